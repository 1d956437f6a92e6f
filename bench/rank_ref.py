"""numpy reference of `rollstat rank`'s bootstrap rank intervals (§13 of BENCHMARKS.md).

    python bench/rank_ref.py ROWS.jsonl RESAMPLES SEED OUT.json

Reads canonical rows {problem, model, correct}, builds the systems × problems 0/1 matrix, then for each of
RESAMPLES replicates draws problems with replacement (numpy's default_rng(SEED)), takes every system's mean,
ranks them with ties by minimum, and reports per system the point value, the point rank, the 2.5% / 97.5%
rank quantiles (type 1: the smallest rank r with #{rank* ≤ r} ≥ p·B) and P(best). Prints the seconds the
resampling took (reading excluded).
"""

import json
import sys
import time

import numpy as np


def read(path):
    rows = [json.loads(line) for line in open(path)]
    models = sorted({r["model"] for r in rows})
    problems = sorted({r["problem"] for r in rows})
    mi = {m: i for i, m in enumerate(models)}
    pi = {p: j for j, p in enumerate(problems)}
    x = np.zeros((len(models), len(problems)))
    for r in rows:
        x[mi[r["model"]], pi[r["problem"]]] = 1.0 if r["correct"] else 0.0
    return models, x


def min_ranks(v):
    """Competition ranks (1 = highest), ties by minimum, along the last axis."""
    return 1 + (v[..., None, :] > v[..., :, None]).sum(-1)


def main(path, resamples, seed, out):
    models, x = read(path)
    m, n = x.shape
    rng = np.random.default_rng(seed)
    t = time.perf_counter()
    ranks = np.empty((resamples, m), dtype=np.int32)
    chunk = 50
    for s in range(0, resamples, chunk):
        b = min(chunk, resamples - s)
        idx = rng.integers(0, n, (b, n))
        means = x[:, idx].mean(-1).T  # b × m
        ranks[s:s + b] = min_ranks(means)
    secs = time.perf_counter() - t
    point = x.mean(1)
    result = {}
    for i, name in enumerate(models):
        r = np.sort(ranks[:, i])
        q = lambda p: int(r[int(np.ceil(p * resamples)) - 1])  # noqa: E731
        result[name] = {"value": float(point[i]), "rank": int(min_ranks(point)[i]), "lower": q(0.025),
                        "upper": q(0.975), "p_best": float((ranks[:, i] == 1).mean())}
    json.dump({"seconds": secs, "systems": result}, open(out, "w"))
    print(f"{secs:.3f}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
