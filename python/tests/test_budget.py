"""Budgets from Python: report(budget=, extrapolate=) and compare(budget=)
give the CLI's numbers (--budget, --extrapolate) on the same rows, from a
path, from a list of dicts and from a DataFrame."""

from __future__ import annotations

import random

import pytest
from conftest import without_warnings, write_jsonl

import rollstat


def system(name, tokens, lift, seed):
    """40 problems × 8 rollouts with answers, selector scores and a
    per-rollout ``output_tokens`` around ``tokens``."""
    rnd = random.Random(seed)
    rows = []
    for p in range(40):
        rate = min(1.0, rnd.random() + lift)
        for i in range(8):
            right = rnd.random() < rate
            rows.append({
                "problem": f"p{p}",
                "rollout": i,
                "correct": right,
                "answer": "42" if right else rnd.choice(["7", "9"]),
                "score": round(rnd.random() + (0.3 if right else 0.0), 6),
                "output_tokens": tokens + rnd.randrange(-tokens // 4, tokens // 4),
                "model": name,
            })
    return rows


@pytest.fixture(scope="module")
def sides(tmp_path_factory):
    d = tmp_path_factory.mktemp("budget")
    a, b = system("short", 100, 0.0, 1), system("long", 400, 0.2, 2)
    return a, b, write_jsonl(d / "a.jsonl", a), write_jsonl(d / "b.jsonl", b)


def budget_keys(metrics):
    return {k: v for k, v in metrics.items() if k.startswith(("budget@", "cost_of_"))}


def test_report_budget_and_extrapolation_equal_cli(cli, sides):
    _, b, _, pb = sides
    args = ["--k", "1,2,8", "--resamples", "500", "--budget", "output_tokens", "--extrapolate", "20,100"]
    expect = cli.json("report", pb, *args)
    for data in (pb, b):
        got = rollstat.report(data, k=[1, 2, 8], resamples=500, budget="output_tokens", extrapolate=[20, 100])
        doc = got.to_dict()
        assert budget_keys(doc["metrics"]) == budget_keys(expect["metrics"])
        assert {"budget@1", "cost_of_pass@8", "cost_of_maj@2", "cost_of_bon@8"} <= set(budget_keys(doc["metrics"]))
        assert doc["extrapolation"] == expect["extrapolation"]
        assert set(doc["extrapolation"]["values"]) == {"pass@20_fit", "pass@100_fit"}
        assert doc["health"]["budget"] == expect["health"]["budget"]
    assert without_warnings(rollstat.report(pb, k=[1, 2, 8], resamples=500, budget="output_tokens",
                                            extrapolate=[20, 100]).to_dict()) == without_warnings(expect)


def test_report_budget_default_and_off(cli, sides):
    _, _, _, pb = sides
    auto = rollstat.report(pb, k=[1, 2], resamples=200).to_dict()
    assert budget_keys(auto["metrics"]) == budget_keys(cli.json("report", pb, "--k", "1,2", "--resamples", "200")["metrics"])
    assert "budget@1" in auto["metrics"]  # every rollout has output_tokens
    off = rollstat.report(pb, k=[1, 2], resamples=200, budget=None).to_dict()
    assert budget_keys(off["metrics"]) == {} and "budget" not in off["health"]
    with pytest.raises(rollstat.InputError, match="budget"):
        rollstat.report(pb, budget="")


def matched_rows(doc):
    return [r for r in doc["rows"] if r.get("budget_matched") is not None]


def test_compare_budget_matched_rows_equal_cli(cli, sides):
    a, b, pa, pb = sides
    expect = cli.json("compare", pa, pb, "--k", "1,2,4", "--resamples", "500", "--margin", "0.02",
                      "--budget", "output_tokens")
    names = {r["metric"] for r in matched_rows(expect)}
    assert {"pass@1", "maj@1", "bon@1", "pass@2", "maj@2", "bon@2"} <= names
    import pandas as pd

    for da, db in ((pa, pb), (a, b), (pd.DataFrame(a), pd.DataFrame(b))):
        got = rollstat.compare(da, db, k=[1, 2, 4], resamples=500, margin=0.02, budget="output_tokens").to_dict()
        assert matched_rows(got) == matched_rows(expect)
    got = rollstat.compare(pa, pb, k=[1, 2, 4], resamples=500, margin=0.02, budget="output_tokens")
    assert without_warnings(got.to_dict()) == without_warnings(expect)
    assert matched_rows(rollstat.compare(pa, pb, k=[1, 2], resamples=200).to_dict()) == []
