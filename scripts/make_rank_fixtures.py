#!/usr/bin/env python3
"""Writes the fixtures of `rollstat rank`'s tests (crates/rollstat-cli/tests/rank.rs)
into crates/rollstat-cli/tests/fixtures/rank/.

Deterministic (one seeded random.Random, stdlib only): running it again gives the
same bytes. Usage: python3 scripts/make_rank_fixtures.py

Canonical JSONL rollouts, one line per rollout: problem, rollout, correct (plus model
and subset where noted). See fixtures/rank/README.md for one line per file.
"""

import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "rollstat-cli", "tests", "fixtures", "rank")
rng = random.Random(20261205)


def write(rel, rows):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def draws(rate, n):
    return [1 if rng.random() < rate else 0 for _ in range(n)]


def single_rows(outcomes):
    return [
        {"problem": "p%03d" % i, "rollout": 0, "correct": bool(c)}
        for i, c in enumerate(outcomes)
    ]


def single():
    """(a) 6 systems x 150 problems x 1 draw: two better, three middle, one worse."""
    rates = {"alpha": 0.85, "bravo": 0.82, "charlie": 0.6, "delta": 0.6, "echo": 0.6,
             "foxtrot": 0.3}
    for name, rate in rates.items():
        write("single/%s.jsonl" % name, single_rows(draws(rate, 150)))


BENCHES = [("arith", 14), ("logic", 13), ("code", 13)]
MODELS = {
    "m-a": {"arith": 0.85, "logic": 0.75, "code": 0.7},
    "m-b": {"arith": 0.7, "logic": 0.8, "code": 0.4},
    "m-c": {"arith": 0.55, "logic": 0.5, "code": 0.7},
    "m-d": {"arith": 0.3, "logic": 0.35, "code": 0.25},
}


def models():
    """(b) one file, 4 models x 40 problems x 4 rollouts, subset over 3 benchmarks."""
    rows = []
    for model, rates in MODELS.items():
        k = 0
        for bench, n in BENCHES:
            for _ in range(n):
                for r in range(4):
                    rows.append({"model": model, "subset": bench, "problem": "q%02d" % k,
                                 "rollout": r, "correct": rng.random() < rates[bench]})
                k += 1
    write("models.jsonl", rows)


def checkpoints():
    """(c) ckpt-100 ... ckpt-500, 30 problems x 4 rollouts; best at step 400."""
    rates = {100: 0.25, 200: 0.4, 300: 0.55, 400: 0.8, 500: 0.65}
    for step, rate in rates.items():
        rows = [{"problem": "c%02d" % i, "rollout": r, "correct": rng.random() < rate}
                for i in range(30) for r in range(4)]
        write("ckpt/ckpt-%d.jsonl" % step, rows)


def pair_and_ties():
    """(d) full (60 problems) vs partial (50: lacks p050..p059); twin-a == twin-b."""
    write("pair/full.jsonl", single_rows(draws(0.9, 60)))
    write("pair/partial.jsonl", single_rows(draws(0.2, 60)[:50]))
    twin = single_rows(draws(0.7, 80))
    write("ties/twin-a.jsonl", twin)
    write("ties/twin-b.jsonl", twin)
    write("ties/low.jsonl", single_rows(draws(0.3, 80)))


README = """# Fixtures of `rollstat rank` (tests/rank.rs)

Written by `scripts/make_rank_fixtures.py` (seeded, stdlib only; rerun it to
regenerate the same bytes). Canonical JSONL rollouts: problem, rollout, correct.

- `single/{alpha,bravo,charlie,delta,echo,foxtrot}.jsonl`: 6 systems, one per file,
  150 problems x 1 draw (0/1); drawn at 0.85, 0.82 (better), 0.6 x 3 (middle), 0.3 (worse).
- `models.jsonl`: 4 systems told apart by `model` (m-a..m-d), 40 problems x 4 rollouts,
  `subset` over 3 benchmarks (arith 14, logic 13, code 13 problems).
- `ckpt/ckpt-{100,200,300,400,500}.jsonl`: checkpoints of one run, 30 problems x 4
  rollouts, drawn at 0.25, 0.4, 0.55, 0.8, 0.65 (best step 400).
- `pair/full.jsonl`, `pair/partial.jsonl`: 60 vs 50 problems (partial lacks p050..p059:
  full drops 10); drawn at 0.9 vs 0.2 (full dominates).
- `ties/twin-a.jsonl`, `ties/twin-b.jsonl`: byte-identical (exact tie), 80 x 1 at 0.7;
  `ties/low.jsonl`: 80 x 1 at 0.3.
"""


def main():
    single()
    models()
    checkpoints()
    pair_and_ties()
    with open(os.path.join(OUT, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write(README)


if __name__ == "__main__":
    main()
