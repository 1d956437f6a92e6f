"""Coverage of the report's ICC(1) interval by simulation (docs/statistics.md,
"Run-to-run reliability"): 1,000 replications per setting, seeded.

The interval is the one-way F interval of Shrout & Fleiss (1979, case 1) /
McGraw & Wong (1996), as crates/rollstat-stats/src/reliability.rs computes it
(F_L = F / F_{1-a/2}(N-1, N(k-1)), F_U = F * F_{1-a/2}(N(k-1), N-1),
ICC bounds (F_x - 1)/(F_x + k - 1)). It is exact for normal data; rollouts
are 0/1, so it is checked on
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


def coverage(draw, rho: float, reps: int, rng: np.random.Generator) -> tuple[float, float]:
    """Share of intervals holding rho, and share of replications without one."""
    hit = undefined = 0
    for _ in range(reps):
        lo, hi = interval(draw(rng))
        if np.isnan(lo):
            undefined += 1
        elif lo <= rho <= hi:
            hit += 1
    defined = reps - undefined
    return (hit / defined if defined else float("nan"), undefined / reps)


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
    print("| data | N | k | mean | true ICC(1) | coverage (95%) | no interval |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for n in (20, 50, 200):
        for k in (2, 4, 8):
            for rho in (0.1, 0.4, 0.7):
                for mu in (0.5, 0.15):
                    cov, none = coverage(binary(n, k, mu, rho), rho, args.reps, rng)
                    print(f"| 0/1 | {n} | {k} | {mu} | {rho} | {cov:.3f} | {none:.3f} |")
            cov, none = coverage(normal(n, k, 0.4), 0.4, args.reps, rng)
            print(f"| normal | {n} | {k} | – | 0.4 | {cov:.3f} | {none:.3f} |")


if __name__ == "__main__":
    main()
