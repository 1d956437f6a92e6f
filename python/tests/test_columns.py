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


def test_in_memory_rows_are_refused_with_the_keyword():
    with pytest.raises(rollstat.InputError) as e:
        rollstat.report([{"idx": 1, "score": True}], columns={"problem": "idx", "correct": "score"})
    assert str(e.value).startswith("columns:")
