"""What bench/output_check.py tolerates and what it reports (no binary needed).

    /work/venv/bin/python -m pytest bench/test_output_check.py
"""

import copy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import output_check as oc  # noqa: E402

BASE = {
    "exit": 0,
    "json": {
        "schema": "rollstat.compare/1",
        "version": "0.1.0",
        "margin": 0.02,
        "rows": [
            {"metric": "pass@1", "group": None, "a": 0.375, "b": 0.48, "delta": 0.105, "ci": [0.02, 0.19],
             "p_value": 0.25, "verdict": "non-inferior", "decision": "B − A = +10.5 pts → non-inferior"},
            {"metric": "maj@n", "group": None, "a": 0.5, "b": 0.5, "delta": 0.0, "ci": None, "p_value": None,
             "verdict": None, "decision": None},
        ],
        "warnings": ["percentile bootstrap interval with only 6 problems under-covers"],
        "metrics": {"pass@1": {"value": 0.375, "unit": "fraction", "method": "bootstrap", "level": 0.95}},
    },
}


def check(new, ignore=()):
    return oc.compare_case(BASE, new, 0.0, list(ignore))


def test_same_is_equal():
    assert check(copy.deepcopy(BASE)) == []


def test_typed_json_is_tolerated():
    new = copy.deepcopy(BASE)
    j = new["json"]
    j["schema"] = "rollstat.compare/2"
    j["warnings"] = [{"kind": "small_sample", "problems": 6, "text": "reworded"}]
    j["rows"].insert(0, {"metric": "new@1", "a": 1.0})  # an added row
    for r in j["rows"][1:]:
        r["extra"] = 1
        r["decision"] = "other words"  # reworded, or now written where it was null
        if r["ci"]:
            r["ci"] = {"lower": r["ci"][0], "upper": r["ci"][1], "level": 0.95}
        if r["verdict"]:
            r["verdict"] = {"name": r["verdict"]}
    assert check(new) == []


def test_changed_numbers_and_verdicts_are_reported():
    for path, value in (("p_value", 0.3), ("delta", 0.105 + 1e-15), ("verdict", "inferior"), ("ci", [0.02, 0.2])):
        new = copy.deepcopy(BASE)
        new["json"]["rows"][0][path] = value
        got = check(new)
        assert [p for p, _ in got] == [f"$.rows[metric=pass@1].{path}" + ("[1]" if path == "ci" else "")], got


def test_missing_row_field_and_exit_are_reported():
    new = copy.deepcopy(BASE)
    del new["json"]["rows"][1]
    del new["json"]["metrics"]["pass@1"]["method"]
    new["exit"] = 1
    got = [p for p, _ in check(new)]
    assert got == ["exit", "$.rows[metric=maj@n]", "$.metrics.pass@1.method"]
    assert [p for p, _ in check(new, ignore=["*.method", "exit", "$.rows*"])] == []


def test_findings_are_counted():
    new = copy.deepcopy(BASE)
    new["json"]["warnings"] = []
    assert [p for p, _ in check(new)] == ["$.warnings"]
