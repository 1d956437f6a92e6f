"""summarize() / merge() / report(summary): the summary tables give the
numbers of the rows they were made from, and of the CLI on those rows
(the reference: `rollstat report FILE --format json`)."""

from __future__ import annotations

import json
import random

import pytest
from conftest import without_warnings, write_jsonl

import rollstat

pa = pytest.importorskip("pyarrow")


def rows_of(seed: int, system: str = "m"):
    """Rows with every per-rollout field a metric reads: subsets, failed
    verdicts, unextracted and equivalent answers, truncation, scores and
    budgets with gaps, plus a count row."""
    g = random.Random(seed)
    rows = []
    for p in range(30):
        for r in range(4 + g.randrange(9)):
            rows.append(
                {
                    "problem": f"q{p}",
                    "subset": "alpha" if p % 2 else "beta",
                    "model": system,
                    "rollout": r,
                    "correct": g.choice([True, False, False, None]),
                    "answer": g.choice([None, "1/2", "0.5", "3", "4", "[invalid]"]),
                    "finish_reason": g.choice(["stop"] * 8 + ["length"]),
                    "output_tokens": g.choice([None] + list(range(100, 2000, 37))),
                    "score": g.random(),
                    "group": f"g{p % 4}",
                }
            )
    rows.append({"problem": "counted", "model": system, "n": 8, "c": 3, "group": "g0"})
    return rows


def shards_of(rows, seed: int):
    """The rows shuffled and dealt into three shards (a problem's rows land
    in several)."""
    rows = list(rows)
    random.Random(seed).shuffle(rows)
    return [rows[i::3] for i in range(3)]


def without_inputs(doc):
    doc = without_warnings(doc)
    doc.pop("inputs")
    return doc


def test_summary_table_has_the_documented_columns_and_header():
    t = rollstat.summarize(rows_of(1))
    assert t.num_rows == 31
    assert t.schema.names[:3] == ["system", "subset", "problem"]
    header = json.loads(t.schema.metadata[b"rollstat_summary"])
    assert header["rollstat_summary"] == 1
    assert header["reading"]["budget"] == "output_tokens"
    counted = [r for r in t.to_pylist() if r["problem"] == "counted"][0]
    assert (counted["n"], counted["c"], counted["verdicts"]) == (8, 3, None)


@pytest.mark.parametrize("opts", [{}, {"by": "group", "cluster_by": "group", "per_problem": True, "ci": "bca"}])
def test_merged_shards_report_as_the_rows_and_as_the_cli(cli, tmp_path, opts):
    rows = rows_of(2)
    shards = shards_of(rows, 3)
    reading = {k: opts[k] for k in ("by", "cluster_by") if k in opts}
    merged = rollstat.merge([rollstat.summarize(s, **reading) for s in shards])
    from_summary = rollstat.report(merged, resamples=500, **opts).to_dict()
    whole = [r for s in shards for r in s]
    from_rows = rollstat.report(whole, resamples=500, **opts).to_dict()
    assert without_inputs(from_summary) == without_inputs(from_rows)
    path = tmp_path / "all.jsonl"
    write_jsonl(path, whole)
    args = ["report", str(path), "--resamples", "500"]
    for k, v in opts.items():
        args += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
    expect = cli.json(*args)
    assert without_inputs(from_summary) == without_inputs(expect)


def test_compare_reads_summary_tables(tmp_path):
    a, b = rows_of(5, "a"), rows_of(6, "b")
    sa = rollstat.merge([rollstat.summarize(s) for s in shards_of(a, 1)])
    sb = rollstat.merge([rollstat.summarize(s) for s in shards_of(b, 2)])
    from_summary = rollstat.compare(sa, sb, resamples=500).to_dict()
    from_rows = rollstat.compare(a, b, resamples=500).to_dict()
    for doc in (from_summary, from_rows):
        for side in ("a", "b"):
            doc[side].pop("inputs")
            doc[side].pop("name")
        doc.pop("warnings")
        doc.pop("findings", None)
    assert from_summary == from_rows


def test_a_rollout_in_two_shards_needs_a_dedupe_policy():
    x = [{"problem": "p", "rollout": 0, "correct": True}]
    y = [{"problem": "p", "rollout": 0, "correct": False}]
    with pytest.raises(rollstat.InputError, match="rollout 0 appears in two summaries"):
        rollstat.merge([rollstat.summarize(x), rollstat.summarize(y)])
    last = rollstat.merge([rollstat.summarize(x, dedupe="last"), rollstat.summarize(y, dedupe="last")])
    assert last.column("verdicts").to_pylist() == ["w"]
    r = rollstat.report(last, ci=None, dedupe="last")
    assert r.health["n_duplicate_rollouts"] == 1
    with pytest.raises(TypeError, match="not a summary table"):
        rollstat.merge([pa.table({"problem": ["p"]})])
