"""compare() and power() against the CLI's compare.json / power.json."""

from __future__ import annotations

import itertools
import json

import pytest
from conftest import without_warnings, write_jsonl

import rollstat


def side(correct_by_problem, model=None):
    rows = []
    for p, cs in correct_by_problem.items():
        for i, c in enumerate(cs):
            r = {"problem": p, "rollout": i, "correct": c, "answer": "x" if c else "y"}
            if model:
                r["model"] = model
            rows.append(r)
    return rows


def systems(m=40, seed=3):
    import random

    rnd = random.Random(seed)
    a, b = {}, {}
    for i in range(m):
        p = rnd.random()
        a[f"p{i}"] = [rnd.random() < p for _ in range(4)]
        b[f"p{i}"] = [rnd.random() < min(1.0, p + 0.15) for _ in range(4)]
    return side(a, "base"), side(b, "cand")


def test_two_paths_equal_cli(cli, tmp_path):
    a, b = systems()
    pa = write_jsonl(tmp_path / "a.jsonl", a)
    pb = write_jsonl(tmp_path / "b.jsonl", b)
    got = rollstat.compare(pa, pb, margin=0.02, k=[1, 2], resamples=2000)
    expect = cli.json("compare", pa, pb, "--margin", "0.02", "--k", "1,2", "--resamples", "2000")
    assert list(got.to_dict()) == list(expect)
    assert without_warnings(got.to_dict()) == without_warnings(expect)
    assert json.loads(got.to_json()) == got.to_dict()


def test_rows_equal_paths_and_verdicts(tmp_path):
    a, b = systems()
    pa = write_jsonl(tmp_path / "a.jsonl", a)
    pb = write_jsonl(tmp_path / "b.jsonl", b)
    from_paths = rollstat.compare(pa, pb, margin=0.02, fail_on="inferior", resamples=2000)
    from_rows = rollstat.compare(a, b, margin=0.02, fail_on="inferior", resamples=2000)
    assert from_rows.rows == from_paths.rows
    assert from_rows.pairs == {"matched": 40, "only_a": 0, "only_b": 0}
    v = from_rows.verdicts
    assert set(v) == {r["metric"] for r in from_rows.rows if r["group"] is None}
    assert v["pass@1"] in ("non-inferior", "inferior", "inconclusive")
    assert from_rows.fail is not None and from_rows.failed == from_paths.failed
    assert from_rows.rows[0]["delta"] == pytest.approx(from_rows.rows[0]["b"] - from_rows.rows[0]["a"])


def test_clear_improvement_is_non_inferior_and_regression_fails():
    a = side({f"p{i}": [i % 4 == 0] * 4 for i in range(60)})
    b = side({f"p{i}": [i % 4 != 3] * 4 for i in range(60)})
    up = rollstat.compare(a, b, margin=0.02, fail_on="inferior", k=1, resamples=2000)
    assert up.verdicts["pass@1"] == "non-inferior"
    assert up.failed is False
    down = rollstat.compare(b, a, margin=0.02, fail_on="inferior", k=1, resamples=2000)
    assert down.verdicts["pass@1"] == "inferior"
    assert down.failed is True
    assert "FAILED" in repr(down)
    assert rollstat.compare(a, b, k=1, resamples=2000).verdicts["pass@1"] is None  # no margin


def test_one_input_by_model(cli, tmp_path):
    a, b = systems()
    path = write_jsonl(tmp_path / "both.jsonl", a + b)
    got = rollstat.compare(a + b, by="model", k=1, resamples=2000)
    expect = cli.json("compare", path, "--by", "model", "--k", "1", "--resamples", "2000")
    g, e = without_warnings(got.to_dict()), without_warnings(expect)
    for d in (g, e):
        for s in ("a", "b"):
            d[s].pop("inputs")
    assert g == e
    assert got.a["name"].endswith("base") and got.b["name"].endswith("cand")
    assert rollstat.compare(a + b, by="model", a_name="cand", b_name="base", k=1, resamples=2000).a["name"].endswith("cand")


def test_group_by_and_tables():
    import pandas as pd

    a, b = systems()
    for r in a + b:
        r["subset"] = "even" if int(r["problem"][1:]) % 2 == 0 else "odd"
    c = rollstat.compare(a, b, group_by="subset", k=1, resamples=2000)
    groups = {r["group"] for r in c.rows}
    assert groups == {None, "even", "odd"}
    df = c.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == len(c.rows)
    assert {"metric", "group", "a", "b", "delta", "ci_low", "ci_high", "p_value", "verdict"} <= set(df.columns)
    assert c.to_polars().height == len(c.rows) and c.to_arrow().num_rows == len(c.rows)
    assert "rollstat compare" in repr(c) and "&lt;table&gt;" in c._repr_html_()


def test_compare_option_errors():
    a, b = systems(10)
    with pytest.raises(rollstat.InputError, match=r"^ci: wilson: binomial intervals"):
        rollstat.compare(a, b, ci="wilson")
    with pytest.raises(rollstat.InputError, match=r"^fail_on: needs a margin"):
        rollstat.compare(a, b, fail_on="inferior")
    with pytest.raises(rollstat.InputError, match=r"^fail_on: unknown verdict"):
        rollstat.compare(a, b, margin=0.01, fail_on="worse")
    with pytest.raises(rollstat.InputError, match=r"^margin: "):
        rollstat.compare(a, b, margin=2.0)
    with pytest.raises(rollstat.InputError, match=r"by='model'"):
        rollstat.compare(a)


# ------------------------------------------------------------------ power


def test_power_from_parameters_equals_cli(cli):
    got = rollstat.power(problems=500, delta=0.03, baseline=0.5, correlation=0.5, rollouts=4)
    expect = cli.json("power", "--problems", "500", "--delta", "0.03", "--baseline", "0.5", "--correlation", "0.5", "--rollouts", "4")
    assert got.to_dict() == expect
    row = got.rows[0]
    assert row["metric"] is None and row["problems_needed"] >= 1 and row["mde"] > 0
    assert "rollstat power" in repr(got) and len(got.to_pandas()) == 1


def test_power_from_report_equals_cli(cli, tmp_path, demo):
    r = rollstat.report(demo)
    path = tmp_path / "report.json"
    path.write_text(r.to_json())
    expect = cli.json("power", path, "--delta", "0.1")
    from_path = rollstat.power(path, delta=0.1).to_dict()
    assert from_path == expect
    from_object = rollstat.power(r, delta=0.1).to_dict()
    assert from_object["source"] == "<Report>"
    from_object["source"] = expect["source"]
    assert from_object == expect
    assert rollstat.power(r.to_dict(), delta=0.1, metric="pass@1").rows[0]["metric"] == "pass@1"


def test_power_errors():
    with pytest.raises(rollstat.InputError, match=r"^metric: "):
        rollstat.power(problems=100, omega2=0.1, metric="pass@1")
    with pytest.raises(rollstat.InputError):
        rollstat.power(problems=100, omega2=0.1, alpha=1.5)
    with pytest.raises(rollstat.InputError, match=r"^report: "):
        rollstat.power({"not": "a report"})


def test_compare_bad_rows_warn_with_row_names():
    a, b = systems(30)
    b = list(b)
    for i in range(25):
        b.insert(3, {"rollout": i, "correct": True})  # no problem id
    with pytest.warns(rollstat.RollstatWarning, match=r"25 malformed rows were skipped: b\[3\]: .*… and 20 more"):
        c = rollstat.compare(a, b, k=1, resamples=2000)
    assert c.pairs["matched"] == 30


def test_undecided_gradings_are_counted_per_side():
    # gold 615!^3^32 vs answer 0 is past the grader's per-pair work limit:
    # no verdict (counted), as the CLI and the engine count it.
    raw = [{"problem": "p1", "gold": "615!^3^32", "answer": "0"}, {"problem": "p1", "gold": "1/2", "answer": "0.5"},
           {"problem": "p2", "gold": "3", "answer": "3"}, {"problem": "p2", "gold": "3", "answer": "4"}]
    decided = [dict(r, gold="2", answer="2") if r["gold"] == "615!^3^32" else r for r in raw]
    c = rollstat.compare(raw, decided, resamples=200)
    assert (c.a["n_grading_undecided"], c.b["n_grading_undecided"]) == (1, 0)
    assert rollstat.report(raw).health["n_grading_undecided"] == 1


def test_family_and_all(demo):
    """Holm and BH run over the family only (``family=`` names it; by default
    pass@1, pass^n and maj@n), each row says whether it is in it, and the
    printed table shows the headline rows unless ``all=True``."""
    b = demo.with_name("demo-b.jsonl")
    c = rollstat.compare(demo, b, margin=0.05, resamples=200)
    assert c.family == ["pass@1", "pass^8", "maj@8"]
    assert c.summary["family"] == c.family and c.summary["primary"] == "pass@1"
    assert c.summary["alpha"] == 0.05
    for r in c.rows:
        assert (r["p_holm"] is not None) == r["in_family"], r["metric"]
    # Holm by hand over the family's raw p-values: sorted p × (m − i + 1),
    # the running maximum, capped at 1.
    raw = {r["metric"]: r["p_value"] for r in c.rows if r["in_family"]}
    running, want = 0.0, {}
    for i, (m, p) in enumerate(sorted(raw.items(), key=lambda kv: kv[1])):
        running = max(running, min(1.0, (len(raw) - i) * p))
        want[m] = running
    assert {r["metric"]: r["p_holm"] for r in c.rows if r["in_family"]} == pytest.approx(want, abs=1e-12)

    named = rollstat.compare(demo, b, family=["maj@2", "pass@1"], resamples=200)
    assert named.family == ["pass@1", "maj@2"]  # in row order
    assert named.summary["family"] == ["maj@2", "pass@1"]  # as named
    assert named.summary["default_family"] is False
    with pytest.raises(rollstat.InputError, match=r"family: no row named 'pass@3' \(rows: pass@1"):
        rollstat.compare(demo, b, family="pass@3")

    same = {r["metric"] for r in c.rows if r.get("same_as")}
    assert same, "the demo has rows equal to others by definition"

    def first_cells(text):
        lines = text.splitlines()
        start = next(i for i, line in enumerate(lines) if line.strip().startswith("─"))
        table = itertools.takewhile(str.strip, lines[start + 1 :])
        return [line.split()[0] for line in table]

    shown = first_cells(repr(c))
    assert not same & set(shown)
    assert "all=True adds" in repr(c)
    every = rollstat.compare(demo, b, all=True, resamples=200)
    assert set(same) <= set(first_cells(repr(every)))
    assert "Every row (" in c.to_html() and "Every row (" not in c.to_html(all=True)


def test_noise_block_equals_cli_and_the_floors_by_hand(cli, tmp_path):
    """Each side's flip floor is the mean of 2c(n − c)/(n(n − 1)) over
    problems; DataFrames and files give the CLI's block."""
    a, b = systems()
    pa = write_jsonl(tmp_path / "a.jsonl", a)
    pb = write_jsonl(tmp_path / "b.jsonl", b)
    got = rollstat.compare(pa, pb, resamples=200)
    assert got.noise == cli.json("compare", pa, pb, "--resamples", "200")["noise"]

    def floor(rows):
        by = {}
        for r in rows:
            by.setdefault(r["problem"], []).append(r["correct"])
        return sum(2 * sum(v) * (len(v) - sum(v)) / (len(v) * (len(v) - 1)) for v in by.values()) / len(by)

    assert got.noise["floor_a"] == pytest.approx(floor(a), abs=1e-12)
    assert got.noise["floor_b"] == pytest.approx(floor(b), abs=1e-12)
    assert got.noise["n_problems"] == 40
    one = rollstat.compare(side({"p": [True]}), side({"p": [False]}), resamples=100)
    assert one.noise is None
