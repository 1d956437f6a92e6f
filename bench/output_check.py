#!/usr/bin/env python3
"""Check that a rollstat build gives the same NUMBERS as a saved baseline, for report, compare and power.

    python3 bench/output_check.py save  BIN [BASELINE]   # run every case with BIN, write BASELINE
    python3 bench/output_check.py check BIN [BASELINE]   # run every case with BIN, compare with BASELINE
    python3 bench/output_check.py list                   # print the cases (name and command)

BASELINE defaults to bench/baseline/outputs.json.gz. Options for `check`:
  --ignore GLOB   ignore differences whose path matches GLOB (fnmatch, e.g. '*.ci.level'); repeatable
  --rtol X        relative tolerance for numbers (default 0: the same float)
  --only WORD     run only the cases whose name contains WORD (repeatable)

Cases (all `--format json`, run from the repository root with relative paths):
  report   every file of examples/ and ../shared/data, and the repository's fixtures (crates/*/tests/fixtures,
           crates/*/tests/data; harness directories as directories), each under the 12 option sets of
           bench/report_check.py (intervals, seed/level, --per-problem, --by, --cluster-by, tie policy, k);
  compare  pairs: examples/demo.jsonl vs demo-b.jsonl (8 option sets: margins, --fail-on, --group-by, --budget,
           seeds, k), budget_short vs budget_long, the CLI's compare fixtures (two files, one file with --by model),
           the tree-of-thought standard vs chain-of-thought runs (crates/rollstat/tests/data: the canonical rows
           of ../shared/data/real's raw ToT logs, which rollstat does not read directly), NeMo-Skills random seeds
           0 vs 1, an input against itself, one input without --by (an error: exit code only);
  power    from parameters only (Miller's worked examples, ω², baseline + σ², correlation, factors) and from a
           report.json that the binary under test writes for several inputs (so power reads what that build
           writes).

What is compared: the exit code and, when the output is JSON, every number, boolean and null of the baseline's
document (values, intervals, standard errors, p-values, counts, ...) and the strings of the keys in STRING_KEYS
(verdicts, metric and group names, unit, method, policies). Tolerated: fields the new output adds; free text
reworded (findings, decisions, messages: other strings are not compared; a list of strings is compared by its
length only, and a string that became an object, e.g. a finding as {kind, ..., text}, is accepted); a value that
became an object holding the same numbers (an interval [lo, hi] that became {lower, upper, ...}, a string enum
that became {"name": ...}). Lists of objects with a `metric` (and `group`, `k`, ...) are matched by those keys,
so added rows are tolerated. Not tolerated: a baseline number, verdict or key that is missing or different.
Prints one line per difference and `N/N equal`; exit 1 when any case differs.
"""

import argparse
import fnmatch
import gzip
import json
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
DEFAULT_BASELINE = REPO / "bench" / "baseline" / "outputs.json.gz"

# The option sets of report_check.py: every interval method, seed/level, per-problem values, breakdowns,
# clusters, tie policy and k list.
REPORT_OPTIONS = {
    "default": [],
    "ci-none": ["--ci", "none"],
    "bca": ["--ci", "bca"],
    "basic": ["--ci", "basic"],
    "t": ["--ci", "t"],
    "wilson": ["--ci", "wilson"],
    "seed7-b2000-l90": ["--seed", "7", "--resamples", "2000", "--level", "0.9"],
    "per-problem": ["--per-problem", "--resamples", "500"],
    "by-model": ["--by", "model", "--resamples", "500"],
    "by-group": ["--by", "group", "--resamples", "500"],
    "cluster-group": ["--cluster-by", "group", "--resamples", "500"],
    "tie-none-k": ["--tie-policy", "none", "--k", "1,3", "--resamples", "500"],
}
FIXTURE_OPTIONS = ("default", "ci-none", "bca", "wilson", "seed7-b2000-l90", "per-problem", "tie-none-k")

# Strings that are data, not prose: compared exactly (an enum that keeps its string passes).
STRING_KEYS = {
    "verdict", "metric", "group", "unit", "method", "tie_policy", "denominator_policy", "p_adjust", "on", "rng",
    "problem", "system", "dominant", "denominator",
}
# Keys that identify an element of a list of objects (rows matched by these, not by position).
ROW_KEYS = ("metric", "group", "k", "system", "problem", "subset", "budget_matched", "name", "label", "factor")

EX = "examples"
CLI_FX = "crates/rollstat-cli/tests/fixtures"
DATA_FX = "crates/rollstat/tests/data"
FMT_FX = "crates/rollstat-formats/tests/fixtures"
FMT_DATA = "crates/rollstat-formats/tests/data"
SHARED_REL = "../shared/data"


def fixture_inputs():
    """The repository's fixtures that `report` reads: files, and harness directories as directories."""
    out = []
    out += sorted(str(p.relative_to(REPO)) for p in (REPO / CLI_FX).rglob("*.jsonl"))
    out += sorted(str(p.relative_to(REPO)) for p in (REPO / DATA_FX).glob("*.jsonl"))
    fmt = REPO / FMT_FX
    for d in sorted(p for p in fmt.iterdir() if p.is_dir()):
        if d.name in ("canonical", "expected"):
            out += sorted(str(p.relative_to(REPO)) for p in d.iterdir() if p.is_file())
        else:
            out.append(str(d.relative_to(REPO)))
    data = REPO / FMT_DATA
    out += sorted(str(p.relative_to(REPO)) for p in (data / "formats").iterdir())
    out += sorted(str(p.relative_to(REPO)) for p in (data / "real").iterdir())
    out.append(f"{FMT_DATA}/nemo_skills")
    out += sorted(str(p.relative_to(REPO)) for p in (data / "runs").iterdir() if p.is_dir())
    out.append(f"{FMT_DATA}/crafted")
    return out


def report_cases():
    cases = []
    main = sorted(f"{EX}/{p.name}" for p in (REPO / EX).iterdir() if p.is_file())
    if SHARED.is_dir():
        main += sorted(
            f"{SHARED_REL}/{p.relative_to(SHARED)}" for p in SHARED.rglob("*") if p.is_file() and p.name != "README.md"
        )
    for path in main:
        for name, opts in REPORT_OPTIONS.items():
            cases.append((f"report {path} [{name}]", ["report", path, "--format", "json", *opts]))
    for path in fixture_inputs():
        for name in FIXTURE_OPTIONS:
            cases.append((f"report {path} [{name}]", ["report", path, "--format", "json", *REPORT_OPTIONS[name]]))
    return cases


COMPARE_OPTIONS = {
    "default": [],
    "margin": ["--margin", "0.02"],
    "fail-inferior": ["--margin", "0.05", "--fail-on", "inferior"],
    "fail-inconclusive": ["--margin", "0.01", "--fail-on", "inconclusive", "--metric", "pass@1"],
    "group-by": ["--group-by", "group", "--resamples", "2000", "--permutations", "2000"],
    "budget": ["--budget", "output_tokens", "--resamples", "2000"],
    "seed7-l90": ["--seed", "7", "--level", "0.9", "--resamples", "2000", "--permutations", "500"],
    "bca-tie-none-k": ["--ci", "bca", "--tie-policy", "none", "--k", "1,3", "--resamples", "2000"],
}


def compare_cases():
    ex_a, ex_b = f"{EX}/demo.jsonl", f"{EX}/demo-b.jsonl"
    pairs = [(f"{ex_a} vs {ex_b}", [ex_a, ex_b], list(COMPARE_OPTIONS))]
    pairs += [
        (f"{ex_a} vs itself", [ex_a, ex_a], ["default", "margin"]),
        ("examples/budget_short vs budget_long", [f"{EX}/budget_short.jsonl", f"{EX}/budget_long.jsonl"],
         ["default", "margin", "budget"]),
        ("cli compare a vs b", [f"{CLI_FX}/compare/a.jsonl", f"{CLI_FX}/compare/b.jsonl"],
         ["default", "margin", "fail-inferior", "seed7-l90"]),
        ("cli budget_vote_short vs long",
         [f"{CLI_FX}/compare/budget_vote_short.jsonl", f"{CLI_FX}/compare/budget_vote_long.jsonl"],
         ["default", "budget", "bca-tie-none-k"]),
        ("tests/data tot standard vs cot",
         [f"{DATA_FX}/tot_game24_gpt4_standard.jsonl", f"{DATA_FX}/tot_game24_gpt4_cot.jsonl"],
         ["default", "margin", "seed7-l90"]),
        ("nemo rs0 vs rs1", [f"{FMT_FX}/expected/nemo_rs0.jsonl", f"{FMT_FX}/expected/nemo_rs1.jsonl"],
         ["default"]),
    ]
    cases = []
    for label, files, opts in pairs:
        for o in opts:
            cases.append((f"compare {label} [{o}]", ["compare", *files, "--format", "json", *COMPARE_OPTIONS[o]]))
    both = f"{CLI_FX}/compare/both.jsonl"
    for o in ("default", "margin"):
        cases.append((f"compare {both} --by model [{o}]",
                      ["compare", both, "--by", "model", "--format", "json", *COMPARE_OPTIONS[o]]))
    cases.append((f"compare {ex_a} alone (error)", ["compare", ex_a, "--format", "json"]))
    return cases


POWER_PARAMS = {
    "miller-omega2": ["--omega2", "1/9", "--delta", "0.03"],
    "miller-corr": ["--var-between", "1/12", "--correlation", "0.5", "--delta", "0.03"],
    "omega2-sigma2-k": ["--omega2", "1/9", "--sigma2", "1/6", "--rollouts", "4", "--delta", "0.03"],
    "baseline": ["--baseline", "0.5", "--delta", "0.03"],
    "baseline-problems": ["--baseline", "0.7", "--sigma2", "0.1", "--rollouts", "4", "--problems", "500"],
    "alpha-power-factors": ["--omega2", "0.02", "--delta", "0.05", "--alpha", "0.01", "--power", "0.9",
                            "--factors", "2,3,8"],
    "mde": ["--omega2", "0.02", "--problems", "1000", "--rollouts", "8", "--sigma2", "0.05"],
    "nothing (error)": [],
}
POWER_REPORTS = [f"{EX}/demo.jsonl", f"{EX}/demo-b.jsonl", f"{EX}/budget_long.jsonl",
                 f"{DATA_FX}/tot_game24_gpt4_standard.jsonl", f"{CLI_FX}/compare/a.jsonl"]
POWER_FROM_REPORT = {
    "default": [],
    "delta": ["--delta", "0.05"],
    "pass1-corr": ["--metric", "pass@1", "--delta", "0.03", "--correlation", "0.5"],
    "problems": ["--problems", "2000", "--factors", "2,5"],
}


def power_cases():
    cases = [(f"power [{k}]", ["power", "--format", "json", *v]) for k, v in POWER_PARAMS.items()]
    for path in POWER_REPORTS:
        for k, v in POWER_FROM_REPORT.items():
            # "{REPORT}" is replaced by a report.json of `path` written by the binary under test.
            cases.append((f"power report({path}) [{k}]", ["power", "{REPORT}", "--format", "json", *v], path))
    return cases


def all_cases():
    return [(*c, None) if len(c) == 2 else c for c in report_cases() + compare_cases() + power_cases()]


# ------------------------------------------------------------------ running


def run_case(binary, args, report_of, tmp):
    if report_of is not None:
        rep = Path(tmp) / "report.json"
        p = subprocess.run([binary, "report", report_of, "--format", "json", "-o", str(rep)], cwd=REPO,
                           capture_output=True)
        if p.returncode != 0:
            return {"exit": -1, "json": None, "error": "report for power failed"}
        args = [str(rep) if a == "{REPORT}" else a for a in args]
    p = subprocess.run([binary, *args], cwd=REPO, capture_output=True)
    try:
        doc = json.loads(p.stdout) if p.stdout.strip() else None
    except ValueError:
        doc = {"__text__": p.stdout.decode(errors="replace")}
    return {"exit": p.returncode, "json": doc}


def run_all(binary, only):
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, args, report_of in all_cases():
            if only and not any(w in name for w in only):
                continue
            out[name] = {"args": args, **run_case(binary, args, report_of, tmp)}
    return out


# --------------------------------------------------------------- comparing


def numbers(x):
    """Every number/boolean/null leaf of x, in document order."""
    if isinstance(x, dict):
        return [v for val in x.values() for v in numbers(val)]
    if isinstance(x, list):
        return [v for val in x for v in numbers(val)]
    if isinstance(x, str):
        return []
    return [x]


def same_number(a, b, rtol):
    if a is None or b is None or isinstance(a, bool) or isinstance(b, bool):
        return a == b and type(a) is type(b)
    if a == b:
        return True
    return rtol > 0 and abs(a - b) <= rtol * max(abs(a), abs(b))


def row_key(obj, keys):
    return tuple(json.dumps(obj.get(k), sort_keys=True) for k in keys)


def match_rows(old, new):
    """Pairs (label, old_elem, new_elem_or_MISSING) for two lists."""
    if old and all(isinstance(o, dict) for o in old) and all(isinstance(n, dict) for n in new):
        keys = [k for k in ROW_KEYS if any(k in o for o in old)]
        if keys:
            olds = [row_key(o, keys) for o in old]
            if len(set(olds)) == len(olds):
                index = {row_key(n, keys): n for n in new}
                for o, key in zip(old, olds):
                    label = ",".join(f"{k}={json.loads(v)}" for k, v in zip(keys, key) if json.loads(v) is not None)
                    yield f"[{label}]", o, index.get(key, MISSING)
                return
    for i, o in enumerate(old):
        yield f"[{i}]", o, new[i] if i < len(new) else MISSING


MISSING = object()


def diff(old, new, path, rtol, out, key=None):
    """Appends (path, message) for every baseline number/verdict that the new document lacks or changes."""
    if new is MISSING:
        if numbers(old) or (isinstance(old, str) and key in STRING_KEYS):
            out.append((path, f"missing (was {short(old)})"))
        return
    if isinstance(old, dict):
        if not isinstance(new, dict):
            return same_leaves(old, new, path, rtol, out)
        for k, v in old.items():
            diff(v, new.get(k, MISSING), f"{path}.{k}", rtol, out, key=k)
        return
    if isinstance(old, list):
        if not isinstance(new, list):
            return same_leaves(old, new, path, rtol, out)
        if old and all(isinstance(o, str) for o in old):
            if len(old) != len(new):
                out.append((path, f"{len(old)} entries → {len(new)}"))
            return
        for label, o, n in match_rows(old, new):
            diff(o, n, f"{path}{label}", rtol, out, key=key)
        return
    if isinstance(old, str):
        if key not in STRING_KEYS:
            return
        if isinstance(new, dict):  # an enum that became {"name": ..., ...}
            if old not in [v for v in new.values() if isinstance(v, str)]:
                out.append((path, f"{old!r} → {short(new)}"))
        elif new != old:
            out.append((path, f"{old!r} → {short(new)}"))
        return
    if isinstance(new, (dict, list)):
        return same_leaves(old, new, path, rtol, out)
    if old is None and isinstance(new, str) and key not in STRING_KEYS:
        return  # free text where there was none (a decision or message now written): text is not compared
    if isinstance(new, str) or not same_number(old, new, rtol):
        out.append((path, f"{short(old)} → {short(new)}"))


def same_leaves(old, new, path, rtol, out):
    """old and new differ in shape (e.g. [lo, hi] → {lower, upper}): old's numbers must appear in new in order."""
    want, have = numbers(old), numbers(new)
    i = 0
    for w in want:
        while i < len(have) and not same_number(w, have[i], rtol):
            i += 1
        if i == len(have):
            out.append((path, f"{short(old)} → {short(new)} (numbers not kept)"))
            return
        i += 1


def short(x):
    s = json.dumps(x, ensure_ascii=False) if not isinstance(x, str) else repr(x)
    return s if len(s) <= 120 else s[:117] + "..."


def compare_case(old, new, rtol, ignore):
    out = []
    if old["exit"] != new["exit"]:
        out.append(("exit", f"{old['exit']} → {new['exit']}"))
    if old["json"] is not None:
        if new["json"] is None:
            out.append(("$", "JSON output missing"))
        else:
            diff(old["json"], new["json"], "$", rtol, out)
    return [(p, m) for p, m in out if not any(fnmatch.fnmatchcase(p, g) for g in ignore)]


# -------------------------------------------------------------------- main


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mode", choices=("save", "check", "list"))
    ap.add_argument("binary", nargs="?")
    ap.add_argument("baseline", nargs="?", default=str(DEFAULT_BASELINE))
    ap.add_argument("--ignore", action="append", default=[])
    ap.add_argument("--rtol", type=float, default=0.0)
    ap.add_argument("--only", action="append", default=[])
    a = ap.parse_args(argv)
    if a.mode == "list":
        for name, args, report_of in all_cases():
            print(f"{name}\t{' '.join(args)}" + (f"\t(report.json of {report_of})" if report_of else ""))
        return 0
    if not a.binary:
        ap.error("BIN is required")
    binary = str(Path(a.binary).resolve())
    version = subprocess.run([binary, "--version"], capture_output=True, text=True).stdout.strip()
    got = run_all(binary, a.only)
    path = Path(a.baseline)
    if a.mode == "save":
        path.parent.mkdir(parents=True, exist_ok=True)
        doc = {"binary": version, "cases": got}
        with gzip.open(path, "wt", encoding="utf-8") as f:
            json.dump(doc, f, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        errors = sum(1 for c in got.values() if c["exit"] != 0)
        print(f"saved {len(got)} cases ({errors} with a non-zero exit) from {version} to {path} "
              f"({path.stat().st_size / 1e6:.2f} MB)")
        return 0
    with gzip.open(path, "rt", encoding="utf-8") as f:
        base = json.load(f)
    cases = base["cases"]
    equal, total, missing = 0, 0, []
    for name, old in cases.items():
        if a.only and not any(w in name for w in a.only):
            continue
        total += 1
        if name not in got:
            missing.append(name)
            continue
        d = compare_case(old, got[name], a.rtol, a.ignore)
        if d:
            print(f"DIFFERS: {name}")
            for p, m in d:
                print(f"    {p}: {m}")
        else:
            equal += 1
    for name in missing:
        print(f"NOT RUN: {name} (the case list changed)")
    new = sorted(set(got) - set(cases))
    if new:
        print(f"({len(new)} cases not in the baseline, not compared)")
    print(f"{equal}/{total} equal (baseline from {base['binary']}; checked {version})")
    return 0 if equal == total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
