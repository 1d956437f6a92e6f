#!/usr/bin/env python3
"""Writes the fixtures of `rollstat gate`'s tests (crates/rollstat-cli/tests/gate.rs,
crates/rollstat/tests/gate.rs) into crates/rollstat-cli/tests/fixtures/gate/.

Deterministic (one seeded random.Random, stdlib only): running it again gives the
same bytes. Usage: python3 scripts/make_gate_fixtures.py

Canonical JSONL rollouts, one line per rollout: problem, rollout, correct, answer
(and subset in mmlu.jsonl). Baseline A is bf16/; the candidates:

  bf16/      A: aime (30 problems x 4 rollouts), gsm8k (200 x 1), mmlu (60 x 1, subset "mmlu")
  fp8/       B, NO-GO: gsm8k loses 30 problems and gains 3 (b = 30, c = 3); aime redrawn at
             A's per-problem rates (drift at equal accuracy); mmlu b = 1, c = 1
  fp8-ok/    B, GO: aime one rollout lost and one gained; gsm8k b = 1, c = 2; mmlu b = c = 1
  small/a, small/b
             one benchmark (tiny, 20 x 1), b = 3, c = 1: INCONCLUSIVE at margin 0.05
  partial/   gsm8k of fp8-ok without gsm-190..gsm-199, plus gsm-900, gsm-901 (B only)
  n8/        aime at 8 rollouts per problem (A has 4)

Plans (paths relative to this directory):
  plan.toml          bf16 vs fp8, tiers, margins, micro weights: NO-GO
  plan-ok.toml       bf16 vs fp8-ok, the same declarations: GO
  plan-unknown-key.toml  `tierr` on line 7
  plan-margin2.toml  margin = 2 (meant as points)
  plan-duplicate.toml    gsm8k declared twice
  plan-noglob.toml   aime's candidate glob matches nothing
  plan-partial.toml  gsm8k against partial/ (10 problems only in A, 2 only in B)
  plan-n.toml        aime against n8/ (4 vs 8 rollouts)
"""

import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "crates", "rollstat-cli", "tests", "fixtures", "gate")
rng = random.Random(20261204)


def wrong(gold):
    return str(int(gold) + 1 + rng.randrange(9))


def rows_of(name, table, gold, subset=None):
    """table: problem -> list of 0/1 outcomes, in rollout order."""
    lines = []
    for p, outcomes in table.items():
        for r, c in enumerate(outcomes):
            row = {"problem": p, "rollout": r, "correct": bool(c)}
            row["answer"] = gold[p] if c else wrong(gold[p])
            if subset:
                row["subset"] = subset
            lines.append(json.dumps(row))
    return "\n".join(lines) + "\n"


def write(rel, text):
    path = os.path.join(OUT, rel)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)


def flip(table, n_lost, n_gained):
    """A copy of a 1-rollout table with n_lost correct problems made wrong and
    n_gained wrong ones made right (chosen by the seeded stream)."""
    out = {p: list(v) for p, v in table.items()}
    right = [p for p, v in table.items() if v[0] == 1]
    wrong_ = [p for p, v in table.items() if v[0] == 0]
    for p in rng.sample(right, n_lost):
        out[p] = [0]
    for p in rng.sample(wrong_, n_gained):
        out[p] = [1]
    return out


def golds(ids):
    return {p: str(rng.randrange(1000)) for p in ids}


def main():
    aime_ids = [f"aime-{i:02d}" for i in range(30)]
    gsm_ids = [f"gsm-{i:03d}" for i in range(200)]
    mmlu_ids = [f"mmlu-{i:03d}" for i in range(60)]
    gold = {**golds(aime_ids), **golds(gsm_ids), **golds(mmlu_ids)}
    rate = {p: rng.choice([0.1, 0.25, 0.4, 0.5, 0.6, 0.75, 0.9]) for p in aime_ids}
    draw = lambda p, n: [int(rng.random() < rate[p]) for _ in range(n)]
    aime = {p: draw(p, 4) for p in aime_ids}
    gsm = {p: [int(rng.random() < 0.85)] for p in gsm_ids}
    mmlu = {p: [int(rng.random() < 0.7)] for p in mmlu_ids}
    write("bf16/aime.jsonl", rows_of("aime", aime, gold))
    write("bf16/gsm8k.jsonl", rows_of("gsm8k", gsm, gold))
    write("bf16/mmlu.jsonl", rows_of("mmlu", mmlu, gold, "mmlu"))

    # NO-GO: gsm8k clearly worse.
    write("fp8/aime.jsonl", rows_of("aime", {p: draw(p, 4) for p in aime_ids}, gold))
    write("fp8/gsm8k.jsonl", rows_of("gsm8k", flip(gsm, 30, 3), gold))
    write("fp8/mmlu.jsonl", rows_of("mmlu", flip(mmlu, 1, 1), gold, "mmlu"))

    # GO: next to no change.
    ok_aime = {p: list(v) for p, v in aime.items()}
    lose = next(p for p in aime_ids if 0 < sum(aime[p]) < 4)
    gain = next(p for p in reversed(aime_ids) if 0 < sum(aime[p]) < 4)
    ok_aime[lose][ok_aime[lose].index(1)] = 0
    ok_aime[gain][ok_aime[gain].index(0)] = 1
    ok_gsm = flip(gsm, 1, 2)
    write("fp8-ok/aime.jsonl", rows_of("aime", ok_aime, gold))
    write("fp8-ok/gsm8k.jsonl", rows_of("gsm8k", ok_gsm, gold))
    write("fp8-ok/mmlu.jsonl", rows_of("mmlu", flip(mmlu, 1, 1), gold, "mmlu"))

    # INCONCLUSIVE: 20 problems, b = 3, c = 1.
    tiny_ids = [f"t{i:02d}" for i in range(20)]
    gold.update(golds(tiny_ids))
    tiny_a = {p: [int(i < 12)] for i, p in enumerate(tiny_ids)}
    tiny_b = {p: list(v) for p, v in tiny_a.items()}
    for p in ["t00", "t01", "t02"]:
        tiny_b[p] = [0]
    tiny_b["t19"] = [1]
    write("small/a/tiny.jsonl", rows_of("tiny", tiny_a, gold))
    write("small/b/tiny.jsonl", rows_of("tiny", tiny_b, gold))

    # Problems on one side only.
    part = {p: v for p, v in ok_gsm.items() if int(p[4:]) < 190}
    for p in ["gsm-900", "gsm-901"]:
        gold[p] = "7"
        part[p] = [1]
    write("partial/gsm8k.jsonl", rows_of("gsm8k", part, gold))

    # Different n per side.
    write("n8/aime.jsonl", rows_of("aime", {p: draw(p, 8) for p in aime_ids}, gold))
    plans()
    write("README.md", "# Fixtures of `rollstat gate`'s tests\n\nGenerated by `python3 scripts/make_gate_fixtures.py` (seeded; do not edit by hand).\n\n```\n" + __doc__.split("Canonical JSONL", 1)[1].join(["Canonical JSONL", ""]) + "```\n")


def bench(name, a, b, tier=None, margin=None):
    s = f'\n[[benchmark]]\nname = "{name}"\nbaseline = "{a}"\ncandidate = "{b}"\n'
    if tier:
        s += f'tier = "{tier}"\n'
    if margin is not None:
        s += f"margin = {margin}\n"
    return s


def suite(cand):
    head = 'metric = "pass@1"\nweights = "micro"\nrule = "margin"\nalpha = 0.05\nmargin = 0.02\n'
    return (
        head
        + bench("aime", "bf16/aime.jsonl", f"{cand}/aime.jsonl", "critical", '"5pt"')
        + bench("gsm8k", "bf16/gsm8k.jsonl", f"{cand}/gsm8k.jsonl", "critical", 0.02)
        + bench("mmlu", "bf16/mmlu.jsonl", f"{cand}/mmlu.jsonl", "advisory", 0.03)
    )


def plans():
    write("plan.toml", "# bf16 vs fp8: gsm8k breaches its margin (NO-GO)\n" + suite("fp8"))
    write("plan-ok.toml", "# bf16 vs fp8-ok (GO)\n" + suite("fp8-ok"))
    write(
        "plan-unknown-key.toml",
        "margin = 0.02\n"
        + bench("gsm8k", "bf16/gsm8k.jsonl", "fp8/gsm8k.jsonl")
        + 'tierr = "critical"\n',
    )
    write("plan-margin2.toml", 'baseline = "bf16"\ncandidate = "fp8"\nmargin = 2\n')
    g = bench("gsm8k", "bf16/gsm8k.jsonl", "fp8/gsm8k.jsonl")
    write("plan-duplicate.toml", "margin = 0.02\n" + g + g)
    write(
        "plan-noglob.toml",
        "margin = 0.02\n"
        + bench("gsm8k", "bf16/gsm8k.jsonl", "fp8/gsm8k.jsonl")
        + bench("aime", "bf16/aime*.jsonl", "fp8/aime-2025-*.jsonl"),
    )
    write(
        "plan-partial.toml",
        "margin = 0.02\n" + bench("gsm8k", "bf16/gsm8k.jsonl", "partial/gsm8k.jsonl"),
    )
    write("plan-n.toml", "margin = 0.05\n" + bench("aime", "bf16/aime.jsonl", "n8/aime.jsonl"))


if __name__ == "__main__":
    main()
