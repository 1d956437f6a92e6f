#!/usr/bin/env python3
"""Coverage of the model-based `beta-binomial` interval against the percentile
bootstrap (docs/statistics.md §12.4), for the population pass@k.

Per replication: N problems with rates p ~ Beta(A, B) (the "spread"), n rollouts each,
c ~ Binomial(n, p). Target: the population pass@k, 1 − B(A, B + k)/B(A, B).

  bootstrap       percentile interval of the mean of the unbiased per-problem pass@k
                  over 2,000 resamples of problems (rollstat's default method)
  beta-binomial   the equal-tailed 95% credible interval of θ_k under rollstat's
                  hierarchical model (p_i ~ Beta(μκ, (1−μ)κ), μ ~ Beta(1, 1),
                  κ density 1/(1+κ)² on [0.01, 10⁴]), here on one fixed 400 × 160
                  grid over (μ, ln κ) in numpy — the same model as
                  rollstat_stats::hierarchical_pass_at_k, whose own numbers are tested
                  against scipy quadrature.

1,000 replications per row; deterministic (numpy Generator seeded 20261205).
Usage: python3 scripts/bayes_coverage.py          pass@1 and pass@4 (numpy, scipy; ~20 minutes)
       python3 scripts/bayes_coverage.py pass^2   pass^2 = E[p²] instead
       python3 scripts/bayes_coverage.py jeffreys pass@1 and pass@4 under the Jeffreys prior
                                                  μ ~ Beta(½, ½) (`--prior jeffreys`); the model's
                                                  interval only (the bootstrap has no prior)
"""

import sys

import numpy as np
from scipy import special

SEED = 20261205
REPS = 1000
lb = special.betaln
MU = (np.arange(400) + 0.5) / 400
LK = np.log(0.01) + (np.log(1e4) - np.log(0.01)) * (np.arange(160) + 0.5) / 160
GM, GK = np.meshgrid(MU, LK, indexing="ij")
KAP = np.exp(GK)
AL, BE = GM * KAP, (1 - GM) * KAP
LB0 = lb(AL, BE)
LPRIOR = GK - 2 * np.log1p(KAP)  # μ ~ Beta(1, 1)
JEFFREYS = "jeffreys" in sys.argv[1:]
if JEFFREYS:  # μ ~ Beta(½, ½)
    LPRIOR = LPRIOR - 0.5 * np.log(GM) - 0.5 * np.log1p(-GM)


def theta_grid(k, pow_k=False):
    if pow_k:
        return np.exp(lb(AL + k, BE) - LB0)
    return GM if k == 1 else 1 - np.exp(lb(AL, BE + k) - LB0)


def credible(c, n, theta, level=0.95):
    lp = LPRIOR.copy()
    vals, cnt = np.unique(c, return_counts=True)
    for v, m in zip(vals, cnt):
        lp += m * (lb(v + AL, n - v + BE) - LB0)
    w = np.exp(lp - lp.max()).ravel()
    order = np.argsort(theta, axis=None)
    t, w = theta.ravel()[order], w[order]
    cdf = (np.cumsum(w) - 0.5 * w) / w.sum()
    return np.interp([(1 - level) / 2, (1 + level) / 2], cdf, t)


def unbiased_pow(c, n, k):
    """pass^k per problem: C(c, k)/C(n, k)."""
    return special.comb(c, k) / special.comb(n, k)


def unbiased(c, n, k):
    fail = n - c
    ok = fail >= k
    ratio = np.exp(special.gammaln(fail + 1) - special.gammaln(np.where(ok, fail - k, 0) + 1)
                   - special.gammaln(n + 1) + special.gammaln(n - k + 1))
    return 1 - np.where(ok, ratio, 0.0)


def row(rng, spread, N, n, k, pow_k=False):
    A, B = spread
    if pow_k:
        target = np.exp(lb(A + k, B) - lb(A, B))
    else:
        target = 1 - np.exp(lb(A, B + k) - lb(A, B))
    theta = theta_grid(k, pow_k)
    hit = np.zeros(2)
    width = np.zeros(2)
    for _ in range(REPS):
        c = rng.binomial(n, rng.beta(A, B, N))
        y = unbiased_pow(c, n, k) if pow_k else unbiased(c, n, k)
        if JEFFREYS:
            boot = (np.nan, np.nan)
        else:
            idx = rng.integers(0, N, (2000, N))
            boot = np.quantile(y[idx].mean(1), [0.025, 0.975])
        bayes = credible(c, n, theta)
        for j, (lo, hi) in enumerate([boot, bayes]):
            hit[j] += lo <= target <= hi
            width[j] += hi - lo
    return hit / REPS, width / REPS


def main():
    pow_k = sys.argv[1:] == ["pass^2"]
    rng = np.random.default_rng(SEED)
    prior = "Jeffreys prior Beta(1/2, 1/2) on μ" if JEFFREYS else "uniform prior on μ"
    print(f"{REPS} replications per row, seed {SEED}, {prior}; coverage (mean width) of nominal 95%")
    print(f"| p ~ | N | n | {'pass^k' if pow_k else 'pass@k'} | bootstrap | beta-binomial |")
    print("|---|---|---|---|---|---|")
    for spread in [(2, 3), (5, 1)]:
        for N in [10, 20, 50]:
            for n in [4, 16]:
                for k in ([2] if pow_k else [1, 4]):
                    h, w = row(rng, spread, N, n, k, pow_k)
                    boot = "–" if JEFFREYS else f"{h[0]:.3f} ({w[0]:.3f})"
                    print(f"| Beta{spread} | {N} | {n} | {k} | {boot} | {h[1]:.3f} ({w[1]:.3f}) |", flush=True)


if __name__ == "__main__":
    main()
