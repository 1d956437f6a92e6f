"""Coverage of the report's ICC(1) intervals by simulation (docs/statistics.md,
"Run-to-run reliability"): 1,000 replications per setting, seeded.

Two intervals, as crates/rollstat-stats/src/reliability.rs computes them:
  * the one-way F interval of Shrout & Fleiss (1979, case 1) / McGraw & Wong
    (1996) (F_L = F / F_{1-a/2}(N-1, N(k-1)), F_U = F * F_{1-a/2}(N(k-1), N-1),
    ICC bounds (F_x - 1)/(F_x + k - 1)), the JSON's `icc1_f_interval`;
  * the percentile bootstrap over problems (`icc1_bootstrap_interval`):
    the problems resampled with replacement, ICC(1) of each resample (one
    with no variation at all left out), type-7 quantiles; 1,000 resamples
    here (the report's default is 10,000);
and their union, `icc1_interval`, the interval the report shows.
The F interval is exact for normal data; rollouts are 0/1, so both are
checked on
  * beta-binomial trials: p_i ~ Beta(a, b) with mean mu, trials
    Bernoulli(p_i); the true ICC(1) of one trial is 1/(a + b + 1);
  * normal ratings (the model the interval is exact for), as a control.

Usage: python scripts/icc_coverage.py [--reps 1000] [--seed 20261205]
Needs numpy and scipy. Prints one Markdown table row per setting.
"""

from __future__ import annotations

import argparse

import numpy as np
from scipy import stats


def interval(y: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """ICC(1)'s F interval of a targets x trials table (NaN when MSW = 0)."""
    n, k = y.shape
    m = y.mean(axis=1)
    msb = k * ((m - m.mean()) ** 2).sum() / (n - 1)
    msw = ((y - m[:, None]) ** 2).sum() / (n * (k - 1))
    if msw == 0 or msb == 0:
        return (float("nan"), float("nan"))
    f = msb / msw
    q = 1 - (1 - level) / 2
    f_lo = f / stats.f.ppf(q, n - 1, n * (k - 1))
    f_hi = f * stats.f.ppf(q, n * (k - 1), n - 1)
    return ((f_lo - 1) / (f_lo + k - 1), (f_hi - 1) / (f_hi + k - 1))


def bootstrap(y: np.ndarray, rng: np.random.Generator, resamples: int = 1000, level: float = 0.95) -> tuple[float, float]:
    """ICC(1)'s percentile bootstrap interval over the rows (targets)."""
    n, k = y.shape
    yy = y[rng.integers(0, n, size=(resamples, n))]
    m = yy.mean(axis=2)
    msb = k * ((m - m.mean(axis=1, keepdims=True)) ** 2).sum(axis=1) / (n - 1)
    msw = ((yy - m[:, :, None]) ** 2).sum(axis=(1, 2)) / (n * (k - 1))
    d = msb + (k - 1) * msw
    icc = ((msb - msw) / np.where(d > 0, d, 1))[d > 0]
    if icc.size == 0:
        return (float("nan"), float("nan"))
    tail = (1 - level) / 2
    return tuple(np.quantile(icc, [tail, 1 - tail]))


def coverage(draw, rho: float, reps: int, rng: np.random.Generator) -> tuple[float, float, float, float]:
    """Share of F intervals, of bootstrap intervals and of their union (the
    interval the report shows) holding rho, over the replications with an
    ICC; and the share of replications without one."""
    hit = hit_boot = hit_union = undefined = 0
    for _ in range(reps):
        y = draw(rng)
        f_lo, f_hi = interval(y)
        if np.isnan(f_lo):
            undefined += 1
            continue
        b_lo, b_hi = bootstrap(y, rng)
        hit += f_lo <= rho <= f_hi
        hit_boot += b_lo <= rho <= b_hi
        hit_union += min(f_lo, b_lo) <= rho <= max(f_hi, b_hi)
    defined = reps - undefined
    share = (lambda h: h / defined) if defined else (lambda h: float("nan"))
    return (share(hit), share(hit_boot), share(hit_union), undefined / reps)


def binary(n: int, k: int, mu: float, rho: float):
    s = 1 / rho - 1  # a + b
    a, b = mu * s, (1 - mu) * s

    def draw(rng):
        p = rng.beta(a, b, size=n)
        return (rng.random((n, k)) < p[:, None]).astype(float)

    return draw


def normal(n: int, k: int, rho: float):
    def draw(rng):
        return rng.normal(0, np.sqrt(rho), size=(n, 1)) + rng.normal(0, np.sqrt(1 - rho), size=(n, k))

    return draw


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=20261205)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    print("| data | N | k | mean | true ICC(1) | F (95%) | bootstrap | union | no interval |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in (20, 50, 200):
        for k in (2, 4, 8):
            for rho in (0.1, 0.4, 0.7):
                for mu in (0.5, 0.15):
                    cov, boot, union, none = coverage(binary(n, k, mu, rho), rho, args.reps, rng)
                    print(
                        f"| 0/1 | {n} | {k} | {mu} | {rho} | {cov:.3f} | {boot:.3f} | {union:.3f} | {none:.3f} |",
                        flush=True,
                    )
            cov, boot, union, none = coverage(normal(n, k, 0.4), 0.4, args.reps, rng)
            print(f"| normal | {n} | {k} | – | 0.4 | {cov:.3f} | {boot:.3f} | {union:.3f} | {none:.3f} |", flush=True)


if __name__ == "__main__":
    main()
