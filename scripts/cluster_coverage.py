#!/usr/bin/env python3
"""Coverage of nominal-95% intervals for pass@1 with few clusters (docs/statistics.md §12.5).

10 clusters (templates, subjects) of 20 problems, 4 rollouts each; 1,000 replications.
Data: a cluster's mean success rate m_c ~ Beta(2, 2); its problems' rates
p ~ Beta(4 m_c, 4 (1 − m_c)); c ~ Binomial(4, p). The target is the population pass@1,
E[p] = 0.5. Intervals, as rollstat computes them (docs/statistics.md §2, §3):

  cluster bootstrap   percentile over 2,000 resamples of whole clusters
  cluster BCa         the same resamples, bias correction with ties counted half,
                      acceleration from the jackknife over clusters
  t on C − 1 df       mean ± t_{0.975, C−1} · CR1 SE (the `t` method with --cluster-by)

Deterministic: one numpy Generator seeded 20261205. Usage:
  python3 scripts/cluster_coverage.py        (numpy, scipy; about a minute)
"""

import numpy as np
from scipy import stats

SEED = 20261205
C, M, N_ROLL, REPS, B = 10, 20, 4, 1000, 2000


def one(rng):
    m = rng.beta(2, 2, C)
    p = rng.beta(4 * m[:, None], 4 * (1 - m[:, None]), (C, M))
    y = rng.binomial(N_ROLL, p) / N_ROLL  # per-problem pass@1
    sums = y.sum(1)
    theta = sums.sum() / (C * M)
    # Cluster bootstrap: multinomial counts of clusters, item-weighted mean.
    w = rng.multinomial(C, np.full(C, 1 / C), B)
    boot = (w @ sums) / (w.sum(1) * M)
    pct = np.quantile(boot, [0.025, 0.975])
    # BCa (scipy's conventions).
    z0 = stats.norm.ppf(((boot < theta).sum() + (boot <= theta).sum()) / (2 * B))
    jack = (sums.sum() - sums) / ((C - 1) * M)
    d = jack.mean() - jack
    a = (d**3).sum() / (6 * ((d**2).sum()) ** 1.5)
    z = stats.norm.ppf([0.025, 0.975])
    adj = stats.norm.cdf(z0 + (z0 + z) / (1 - a * (z0 + z)))
    bca = np.quantile(boot, adj)
    # CR1 SE and t on C − 1 df.
    resid = sums - M * theta
    se = np.sqrt(C / (C - 1) * (resid**2).sum()) / (C * M)
    tq = stats.t.ppf(0.975, C - 1)
    t = (theta - tq * se, theta + tq * se)
    return pct, bca, t


def main():
    rng = np.random.default_rng(SEED)
    target = 0.5
    hits = np.zeros(3)
    for _ in range(REPS):
        for j, (lo, hi) in enumerate(one(rng)):
            hits[j] += lo <= target <= hi
    print(f"{C} clusters x {M} problems x {N_ROLL} rollouts, {REPS} replications, seed {SEED}")
    for name, h in zip(["cluster bootstrap", "cluster BCa", "t on C-1 df"], hits):
        print(f"  {name:18s} {h / REPS:.3f}")


if __name__ == "__main__":
    main()
