"""pass@k on 1M problems: rollstat.pass_at_k against a vectorized numpy
implementation (the human-eval product formula in log space, one cumulative
sum shared by all problems). Run: python python/bench/estimators.py"""

from __future__ import annotations

import math
import time
from fractions import Fraction

import numpy as np

import rollstat


def numpy_pass_at_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """1 − Π_{i=n−c+1..n} (1 − k/i), vectorized: L[m] = Σ_{i≤m} log(1 − k/i)."""
    n = np.asarray(n, dtype=np.int64)
    c = np.asarray(c, dtype=np.int64)
    i = np.arange(1, int(n.max()) + 1, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(i > k, np.log1p(-k / i), 0.0)
    cum = np.concatenate([[0.0], np.cumsum(terms)])
    out = 1.0 - np.exp(cum[n] - cum[n - c])
    out = np.where(n - c < k, 1.0, out)
    return np.where(k > n, np.nan, out)


def human_eval_pass_at_k(n: int, c: int, k: int) -> float:
    """The per-problem estimator of OpenAI's human-eval (called in a loop)."""
    if n - c < k:
        return 1.0
    return 1.0 - float(np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def best(f, repeat=3):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def main() -> None:
    rng = np.random.default_rng(0)
    size = 1_000_000
    cases = {
        "n = 16, k = 4": (np.full(size, 16), 4),
        "n in {8, 16, 64, 100, 1000}, k = 8": (rng.choice([8, 16, 64, 100, 1000], size=size), 8),
        "n up to 100000 (distinct), k = 16": (rng.integers(16, 100_000, size=size), 16),
    }
    print(f"pass@k on {size:,} problems (best of 3 each)")
    for name, (n, k) in cases.items():
        c = (rng.random(size) * (n + 1)).astype(np.int64).clip(0, n)
        t_rs, rs = best(lambda: rollstat.pass_at_k(n, c, k))
        t_np, ref = best(lambda: numpy_pass_at_k(n, c, k))
        # Accuracy against exact fractions on a sample of problems.
        idx = rng.integers(0, size, size=200)
        def err(v):
            worst = 0.0
            for j in idx:
                ni, ci = int(n[j]), int(c[j])
                e = float(1 - Fraction(math.comb(ni - ci, k), math.comb(ni, k)))
                worst = max(worst, abs(float(v[j]) - e) / max(abs(e), 1e-300))
            return worst
        print(
            f"  {name:38s} rollstat {t_rs * 1e3:7.1f} ms   numpy {t_np * 1e3:7.1f} ms   "
            f"ratio {t_np / t_rs:5.1f}x   max rel err rollstat {err(rs):.1e}, numpy {err(ref):.1e}"
        )


    n = np.full(size, 16)
    c = (rng.random(size) * 17).astype(np.int64)
    t = time.perf_counter()
    _ = [human_eval_pass_at_k(int(a), int(b), 4) for a, b in zip(n, c)]
    t_loop = time.perf_counter() - t
    t_rs, _ = best(lambda: rollstat.pass_at_k(n, c, 4))
    print(f"  {'human-eval loop, n = 16, k = 4':38s} rollstat {t_rs * 1e3:7.1f} ms   loop {t_loop * 1e3:7.0f} ms   ratio {t_loop / t_rs:5.0f}x")


if __name__ == "__main__":
    main()
