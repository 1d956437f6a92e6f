"""grade(), extract_answer(), is_equivalent()."""

from __future__ import annotations

import numpy as np
import pytest

import rollstat


def test_half_equals_frac_half():
    assert rollstat.is_equivalent("0.5", "\\frac12")
    assert rollstat.is_equivalent("\\frac{1}{2}", "0.5")
    assert rollstat.is_equivalent("0.5", "\\frac12", reason=True) == (True, "ExactRational")
    assert not rollstat.is_equivalent("1/3", "0.3")
    assert rollstat.is_equivalent("x^2-1", "(x-1)(x+1)", reason=True) == (True, "Identity")


def test_grade_lists_and_arrays():
    responses = [
        "so the answer is $\\boxed{0.5}$",
        "The final answer is 12.",
        "I cannot tell",
        None,
        "Answer: \\frac{3}{4}",
    ]
    golds = ["\\frac12", "12", "7", "1", "0.75"]
    answers, correct = rollstat.grade(responses, golds)
    assert answers == ["0.5", "12", None, None, "\\frac{3}{4}"]
    assert correct.dtype == np.bool_ and correct.tolist() == [True, True, False, False, True]
    a2, c2 = rollstat.grade(np.array(responses, dtype=object), np.array(golds, dtype=object))
    assert a2 == answers and c2.tolist() == correct.tolist()


def test_grade_one_gold_for_all_numbers_and_lists():
    answers, correct = rollstat.grade(["\\boxed{4}", "\\boxed{5}"], "2 + 2 = 4\n#### 4")
    assert correct.tolist() == [True, False]
    _, correct = rollstat.grade(["\\boxed{12}", "\\boxed{3}"], [12, ["2", "3"]])
    assert correct.tolist() == [True, True]


def test_grade_modes():
    _, c = rollstat.grade(["I pick (B).", "Answer: C"], ["B", "B"], extract="mcq")
    assert c.tolist() == [True, False]
    a, c = rollstat.grade(["RESULT=41", "RESULT=42"], ["42", "42"], extract="regex:RESULT=(\\d+)", match="exact")
    assert a == ["41", "42"] and c.tolist() == [False, True]
    _, c = rollstat.grade(["\\boxed{1/2}"], ["0.5"], match="exact")
    assert c.tolist() == [False]


def test_grade_matches_report_grading():
    responses = ["\\boxed{\\frac12}", "\\boxed{0.4}", "no idea", "\\boxed{2}"]
    golds = ["0.5", "0.5", "0.5", "2"]
    _, correct = rollstat.grade(responses, golds)
    rows = [{"problem": f"p{i // 2}", "gold": g, "response": r} for i, (r, g) in enumerate(zip(responses, golds))]
    r = rollstat.report(rows, k=1, ci=None)
    assert r.metrics["pass@1"]["value"] == correct.mean()
    assert r.health["n_unextracted"] == 1


def test_extract_answer():
    assert rollstat.extract_answer("so the answer is $\\boxed{\\frac{1}{2}}$.") == "\\frac{1}{2}"
    assert rollstat.extract_answer("It is 12.", mode="number") == "12"
    assert rollstat.extract_answer("nothing here", mode="mcq") is None
    assert rollstat.extract_answer("\\boxed{[invalid]}") is None  # junk answers are unextracted


def test_grading_errors():
    with pytest.raises(rollstat.InputError, match=r"^extract: unknown extract mode 'latex'"):
        rollstat.grade(["x"], ["x"], extract="latex")
    with pytest.raises(rollstat.InputError, match=r"^match: unknown match 'fuzzy'"):
        rollstat.grade(["x"], ["x"], match="fuzzy")
    with pytest.raises(rollstat.InputError, match=r"^mode: invalid regex"):
        rollstat.extract_answer("x", mode="regex:(")
    with pytest.raises(rollstat.InputError, match=r"^golds: 1 golds for 2 responses"):
        rollstat.grade(["a", "b"], ["a"])
    with pytest.raises(TypeError, match=r"responses\[1\]"):
        rollstat.grade(["a", 3], "a")
    with pytest.raises(TypeError):
        rollstat.grade("a single string", "a")
