"""Report.reliability: the run-to-run block as DataFrames, the same numbers
as the CLI's report.json on the same file, and tau-bench#57's per-trial
figures on the gpt-4o airline trials (expected values computed with numpy /
scipy 1.17.1: see the header of crates/rollstat-cli/tests/reliability.rs)."""

from __future__ import annotations

import math

from conftest import ROOT

import rollstat

TAU = ROOT / "crates" / "rollstat-cli" / "tests" / "fixtures" / "reliability" / "taubench_gpt4o_airline.json"


def test_tau_bench_figures_as_dataframes():
    rel = rollstat.report(str(TAU)).reliability
    assert rel is not None
    runs = rel.runs()
    assert list(runs["run"]) == ["0", "1", "2", "3"]
    assert [round(v, 12) for v in runs["pass_at_1"]] == [0.42, 0.44, 0.40, 0.42]
    assert rel["flips"]["n_flipping"] == 26
    assert math.isclose(rel["flips"]["mean_pairwise"], 0.29333333333333333, abs_tol=1e-12)
    assert math.isclose(rel["icc"]["icc1"], 0.40458436895885125, abs_tol=1e-12)
    assert math.isclose(rel["icc"]["icc1_f_interval"][0], 0.26075292696873714, abs_tol=1e-9)
    # The bootstrap interval, within 4 SD of numpy's (see tests/reliability.rs),
    # and the interval shown, the union of the two.
    assert rel["icc"]["interval_method"] == "bootstrap+F"
    boot = rel["icc"]["icc1_bootstrap_interval"]
    assert abs(boot[0] - 0.22647) < 0.006
    assert rel["icc"]["icc1_interval"][0] == min(boot[0], rel["icc"]["icc1_f_interval"][0])
    assert math.isclose(rel["icc"]["icc1k"], 0.7310379241516967, abs_tol=1e-12)
    floors = rel.noise_floor()
    single = floors[floors["runs_per_side"] == 1]["floor"].iloc[0]
    assert math.isclose(single, 0.1501218119219818, abs_tol=1e-9)
    flaky = rel.flaky()
    assert len(flaky) == 26
    assert list(flaky.columns) == ["problem", "c", "n", "flip_rate"]
    assert math.isclose(flaky["flip_rate"].iloc[0], 2 / 3, abs_tol=1e-15)
    flips = rel.flips()
    assert list(flips["problems"]) == [14, 12, 10, 4, 10]
    assert set(rel.levers()["change"]) == {"more_runs", "double_runs", "double_problems"}


def test_the_block_equals_the_clis(cli):
    doc = cli.json("report", str(TAU))
    rel = rollstat.report(str(TAU)).reliability
    assert dict(rel) == doc["reliability"]


def test_run_by_names_the_runs_and_one_rollout_has_no_block():
    rows = [
        {"problem": p, "run": r, "correct": ok}
        for r, verdicts in {"r1": [1, 0, 1], "r2": [1, 1, 0]}.items()
        for p, ok in zip(["p1", "p2", "p3"], map(bool, verdicts))
    ]
    rel = rollstat.report(rows, run_by="run").reliability
    assert list(rel.runs()["run"]) == ["r1", "r2"]
    assert rel["trials"]["field"] == "run"
    # c = [2, 1, 1] of 2: p2 and p3 flip, each at rate 1.
    assert rel["flips"]["n_flipping"] == 2
    single = rollstat.report([{"problem": "p1", "correct": True}, {"problem": "p2", "correct": False}])
    assert single.reliability is None
    assert any(f["kind"] == "single_trial" for f in single.health["findings"])
