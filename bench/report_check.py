#!/usr/bin/env python3
"""Snapshot `rollstat report --format json` over the bundled inputs, and check a later build against it.

    python bench/report_check.py snapshot BIN DIR [EXTRA_FILE ...]   # write DIR/<case>.json
    python bench/report_check.py check BIN DIR [EXTRA_FILE ...]      # byte-compare against DIR; exit 1 on a difference

Cases: every file of examples/ and of ../shared/data (when present), plus any EXTRA_FILE (e.g. generated count
rows from bench/scale.py), each under several interval and grouping options. Used to show that an engine change
leaves every number of report.json unchanged (issue #15, scale part). For report, compare and power with a tolerance
for added fields and reworded text, use bench/output_check.py.
"""

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared" / "data"
OPTIONS = {
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


def inputs(extra):
    files = sorted((REPO / "examples").iterdir())
    if SHARED.is_dir():
        files += sorted(p for p in SHARED.rglob("*") if p.is_file() and p.name != "README.md")
    return files + [Path(e) for e in extra]


def run(binary, path, opts):
    cmd = [binary, "report", str(path), "--format", "json", *opts]
    p = subprocess.run(cmd, capture_output=True)
    return p.stdout + b"\n--- exit %d\n" % p.returncode + p.stderr


def main(argv):
    if len(argv) < 3 or argv[0] not in ("snapshot", "check"):
        sys.exit(__doc__)
    mode, binary, out, extra = argv[0], argv[1], Path(argv[2]), argv[3:]
    out.mkdir(parents=True, exist_ok=True)
    differ = 0
    cases = 0
    for path in inputs(extra):
        for name, opts in OPTIONS.items():
            case = out / f"{path.name}.{name}.json"
            got = run(binary, path, opts)
            cases += 1
            if mode == "snapshot":
                case.write_bytes(got)
            elif case.read_bytes() != got:
                differ += 1
                print(f"DIFFERS: {case.name}")
    print(f"{cases} cases, {differ} differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
