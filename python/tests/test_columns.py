"""``report(data, columns={...})``: a layout no format knows, read through a
field map handed to the engine (the command's ``--map``). The file is the
real Qwen2.5-Math output of the formats fixtures (README beside it): ``score``
is true on 2 of its 30 lines."""

from pathlib import Path

import pytest

import rollstat

QWEN = (
    Path(__file__).resolve().parents[2]
    / "crates/rollstat-formats/tests/fixtures/qwen_math/aime25/test_qwen25-math-cot_-1_seed0_t0.6_s0_e-1.jsonl"
)


def test_columns_map_a_file():
    r = rollstat.report(
        str(QWEN),
        columns={"problem": "idx", "correct": "score", "answers": "pred", "gold": "gt"},
        ci=None,
    )
    assert r.health["n_problems"] == 30
    assert r.metrics["pass@1"]["value"] == pytest.approx(2 / 30, abs=1e-15)


def test_a_missing_column_names_the_keys_there_are():
    with pytest.raises(rollstat.InputError) as e:
        rollstat.report(str(QWEN), columns={"problem": "idx", "correct": "passed"}, ci=None)
    assert 'no key "passed"' in str(e.value)
    assert "idx, question, gt_cot, gt, answer, code, pred, report, score" in str(e.value)


def test_columns_need_a_problem():
    with pytest.raises(rollstat.InputError) as e:
        rollstat.report(str(QWEN), columns={"correct": "score"}, ci=None)
    assert str(e.value).startswith("columns:")


def test_in_memory_rows_with_nested_paths_are_refused_with_the_keyword():
    with pytest.raises(rollstat.InputError) as e:
        rollstat.report([{"idx": 1, "score": True}], columns={"problem": "idx", "correct": "a.score"})
    assert str(e.value).startswith("columns:")


def qwen_rows():
    import json

    return [json.loads(line) for line in QWEN.read_text().splitlines() if line.strip()]


def test_plain_columns_rename_in_memory_data_to_the_file_numbers():
    """Row dicts, a DataFrame and an Arrow table of the same lines, renamed
    by ``columns``, give the file's numbers (2 of 30)."""
    cols = {"problem": "idx", "correct": "score"}
    rows = [{"idx": r["idx"], "score": r["score"][0]} for r in qwen_rows()]
    want = rollstat.report(str(QWEN), columns=cols, ci=None).metrics["pass@1"]["value"]
    assert want == pytest.approx(2 / 30, abs=1e-15)
    assert rollstat.report(rows, columns=cols, ci=None).metrics["pass@1"]["value"] == want
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(rows)
    assert rollstat.report(df, columns=cols, ci=None).metrics["pass@1"]["value"] == want
    assert list(df.columns) == ["idx", "score"]  # the caller's frame is not changed
    pa = pytest.importorskip("pyarrow")
    assert rollstat.report(pa.Table.from_pandas(df), columns=cols, ci=None).metrics["pass@1"]["value"] == want


def test_a_column_the_data_lacks_is_named_with_the_columns_there_are():
    with pytest.raises(rollstat.InputError, match=r"columns: no column 'passed' in data \(its columns: 'idx', 'score'\)"):
        rollstat.report([{"idx": 1, "score": True}], columns={"problem": "idx", "correct": "passed"})
    with pytest.raises(rollstat.InputError, match="already has 'correct'"):
        rollstat.report([{"idx": 1, "score": True, "correct": 1}], columns={"problem": "idx", "correct": "score"})


# ------------------------------------------------------- the other commands
#
# Three systems written from declared per-problem correct counts (12
# problems × 4 rollouts) in a layout no format knows, and the same rows as
# canonical rows: read through ``columns``, every command gives the twins'
# numbers, and pass@1 is the counts' mean.

COUNTS = {
    "a": [4, 3, 2, 1, 0, 4, 2, 3, 1, 4, 0, 2],
    "b": [3, 3, 1, 1, 0, 4, 1, 2, 1, 4, 0, 1],
    "c": [4, 4, 3, 2, 1, 4, 3, 3, 2, 4, 1, 3],
}
MAP = {"problem": "task_id", "correct": "is_correct", "answer": "prediction", "gold": "target"}
MAP_TEXT = "problem=task_id,correct=is_correct,answer=prediction,gold=target"


def mystery_rows(name):
    return [
        {"task_id": f"t{p}", "prediction": "42" if r < c else "7", "target": "42", "is_correct": r < c}
        for p, c in enumerate(COUNTS[name])
        for r in range(4)
    ]


def canonical_rows(name):
    return [
        {"problem": m["task_id"], "answer": m["prediction"], "gold": m["target"], "correct": m["is_correct"]}
        for m in mystery_rows(name)
    ]


@pytest.fixture()
def twins(tmp_path):
    """{name: (mystery path, canonical path)} for every system."""
    from conftest import write_jsonl

    (tmp_path / "m").mkdir()
    (tmp_path / "c").mkdir()
    return {
        n: (
            str(write_jsonl(tmp_path / "m" / f"{n}.jsonl", mystery_rows(n))),
            str(write_jsonl(tmp_path / "c" / f"{n}.jsonl", canonical_rows(n))),
        )
        for n in COUNTS
    }


def pass1(name):
    return sum(COUNTS[name]) / 48


def overall(rows, metric):
    return next(r for r in rows if r["metric"] == metric and r.get("group") is None)


def test_compare_reads_files_and_renames_frames(twins, cli):
    pd = pytest.importorskip("pandas")
    kw = dict(k=[1, 4], resamples=1000)
    mapped = rollstat.compare(twins["a"][0], twins["b"][0], columns=MAP, **kw)
    canonical = rollstat.compare(twins["a"][1], twins["b"][1], **kw)
    row = overall(mapped.rows, "pass@1")
    assert (row["a"], row["b"]) == (pass1("a"), pass1("b"))
    assert mapped.rows == canonical.rows
    assert all(i["field_map"] == MAP_TEXT for side in ("a", "b") for i in mapped.to_dict()[side]["inputs"])
    # The command's --map, the same rows.
    expect = cli.json("compare", twins["a"][0], twins["b"][0], "--map", MAP_TEXT, "--k", "1,4", "--resamples", "1000")
    assert mapped.rows == expect["rows"]
    # In-memory frames with those columns are renamed: the same numbers.
    frames = rollstat.compare(
        pd.DataFrame(mystery_rows("a")), pd.DataFrame(mystery_rows("b")), columns=MAP, **kw
    )
    assert frames.rows == canonical.rows


def test_rank_reads_paths_and_a_dict_of_frames(twins):
    kw = dict(resamples=1000, permutations=1000)
    mapped = rollstat.rank(*(twins[n][0] for n in COUNTS), columns=MAP, **kw)
    canonical = rollstat.rank(*(twins[n][1] for n in COUNTS), **kw)
    assert {s["name"]: s["value"] for s in mapped.systems} == {n: pass1(n) for n in COUNTS}
    unread = [{k: v for k, v in s.items() if k != "inputs"} for s in mapped.systems]
    assert unread == [{k: v for k, v in s.items() if k != "inputs"} for s in canonical.systems]
    assert mapped.pairs == canonical.pairs
    assert all(i["field_map"] == MAP_TEXT for s in mapped.systems for i in s["inputs"])
    frames = rollstat.rank({n: mystery_rows(n) for n in COUNTS}, columns=MAP, **kw)
    assert [s["value"] for s in frames.systems] == [s["value"] for s in canonical.systems]


def test_gate_short_form_and_dict_plan(twins):
    kw = dict(margin=0.05, resamples=1000, permutations=1000)
    mapped = rollstat.gate(baseline=twins["a"][0], candidate=twins["b"][0], columns=MAP, **kw)
    canonical = rollstat.gate(baseline=twins["a"][1], candidate=twins["b"][1], **kw)
    b = mapped.benchmarks[0]
    assert (b["a"], b["b"]) == (pass1("a"), pass1("b"))
    assert mapped.verdict == canonical.verdict and b["delta"] == canonical.benchmarks[0]["delta"]
    assert f'map = "{MAP_TEXT}"' in mapped.plan["text"]
    planned = rollstat.gate(
        {"margin": 0.05, "resamples": 1000, "permutations": 1000, "map": MAP_TEXT,
         "baseline": twins["a"][0], "candidate": twins["b"][0]}
    )
    assert planned.benchmarks[0]["delta"] == b["delta"]


def test_summarize_records_the_map(twins):
    import json

    t = rollstat.summarize(twins["a"][0], columns=MAP)
    header = json.loads(t.schema.metadata[b"rollstat_summary"])
    assert header["inputs"][0]["field_map"] == MAP_TEXT
    assert rollstat.report(t, ci=None).metrics["pass@1"]["value"] == pass1("a")


def test_a_frame_beside_a_file_is_renamed_and_the_file_mapped(twins):
    pd = pytest.importorskip("pandas")
    kw = dict(k=[1, 4], resamples=1000)
    canonical = rollstat.compare(twins["a"][1], twins["b"][1], **kw)
    mixed = rollstat.compare(pd.DataFrame(mystery_rows("a")), twins["b"][0], columns=MAP, **kw)
    assert mixed.rows == canonical.rows
    assert mixed.to_dict()["b"]["inputs"][0]["field_map"] == MAP_TEXT
    ranked = rollstat.rank({"a": mystery_rows("a"), "b": twins["b"][0], "c": twins["c"][0]}, columns=MAP,
                           resamples=1000, permutations=1000)
    assert {s["name"]: s["value"] for s in ranked.systems} == {n: pass1(n) for n in COUNTS}
    g = rollstat.gate(baseline=mystery_rows("a"), candidate=twins["b"][0], columns=MAP, margin=0.05,
                      resamples=1000, permutations=1000)
    assert (g.benchmarks[0]["a"], g.benchmarks[0]["b"]) == (pass1("a"), pass1("b"))
    # Frames on both sides: renamed, and no map recorded in the plan.
    g = rollstat.gate(baseline=mystery_rows("a"), candidate=mystery_rows("b"), columns=MAP, margin=0.05,
                      resamples=1000, permutations=1000)
    assert g.benchmarks[0]["b"] == pass1("b") and "map =" not in g.plan["text"]


def test_a_map_in_memory_data_cannot_take_is_refused_beside_a_file(twins):
    with pytest.raises(rollstat.InputError, match=r"^columns: in-memory data is renamed by plain column names"):
        rollstat.compare(mystery_rows("a"), twins["b"][0], columns={"problem": "task_id", "correct": "x.y"})


def test_an_unknown_layout_is_answered_with_the_columns_to_pass(twins):
    for call, keyword in (
        (lambda: rollstat.compare(twins["a"][0], twins["b"][0]), "source_format='NAME'"),
        (lambda: rollstat.rank(twins["a"][0], twins["b"][0]), "format='NAME'"),
    ):
        with pytest.raises(rollstat.InputError) as e:
            call()
        text = str(e.value)
        assert f"({keyword})" in text and "--" not in text, text
        want = ", ".join(f'"{f}": "{p}"' for f, p in MAP.items())
        assert text.endswith(f"or read it through a field map: columns={{{want}}}"), text
