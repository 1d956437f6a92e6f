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
