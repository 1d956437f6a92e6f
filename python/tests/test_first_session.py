"""What a new ML engineer hits in a first Python session (issue 30 items
11–19): errors that say which rows and columns were wrong, warnings on the
user's line, in-page links in a notebook, power from a report, misspelt
field names, verdicts with budgets, typed keyword values, wording and
tables."""

from __future__ import annotations

import html
import inspect
import json
import re
import warnings
from typing import Any, Dict, List

import numpy as np
import pytest
from conftest import write_jsonl

import rollstat
from rollstat import InputError, MalformedRows, MetricNotFound, RollstatWarning


def rows_of(correct: Dict[Any, List[bool]], **extra: Any) -> List[Dict[str, Any]]:
    return [
        {"problem": p, "rollout": i, "correct": c, **extra}
        for p, cs in correct.items()
        for i, c in enumerate(cs)
    ]


# --------------------------------------------------------------- item 11


def test_every_row_bad_names_rows_reasons_and_columns():
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame({"id": [1, 2, 3], "reward": [0.5, 1.0, 0.0]})
    with pytest.raises(MalformedRows) as e:
        rollstat.report(df)
    text = str(e.value)
    assert "every input was empty or malformed" not in text
    assert "all 3 rows were malformed" in text
    assert "data.iloc[0]: missing `problem`" in text
    assert "columns found: 'id', 'reward'" in text
    assert isinstance(e.value, InputError)
    assert e.value.total == 3
    assert [w for w, _ in e.value.rows] == ["data.iloc[0]", "data.iloc[1]", "data.iloc[2]"]

    # A float reward in `correct`: the reason names the column.
    rewards = pd.DataFrame({"problem": ["a", "b"], "correct": [0.5, 0.25]})
    with pytest.raises(MalformedRows, match=r"data\.iloc\[0\]: .*`correct`"):
        rollstat.report(rewards)

    # Row dicts: the keys of the rows are the columns.
    with pytest.raises(MalformedRows, match=r"columns found: 'id', 'passed'"):
        rollstat.report([{"id": "x", "passed": True}])


def test_a_non_json_text_file_is_not_called_empty(tmp_path):
    path = tmp_path / "notes.jsonl"
    path.write_text("hello world\nthis is not json\n", encoding="utf-8")
    with pytest.raises(InputError) as e:
        rollstat.report(str(path), source_format="canonical")
    assert "empty" not in str(e.value)
    assert "notes.jsonl:1: invalid JSON" in str(e.value)


def test_integral_float_problem_ids_are_the_integers():
    pd = pytest.importorskip("pandas")
    # One missing id makes pandas store the column as float64 (1.0, 2.0, NaN, 4.0).
    df = pd.DataFrame({"problem": [1, 1, 2, 2, None, 4, 4], "correct": [True, False, True, True, True, False, False]})
    assert str(df["problem"].dtype) == "float64"
    with pytest.warns(RollstatWarning, match=r"data\.iloc\[4\]: missing `problem`"):
        r = rollstat.report(df, ci=None, per_problem=True)
    assert sorted(p["problem"] for p in r.per_problem) == ["1", "2", "4"]
    # pass@1 by hand: problem 1 → 1/2, problem 2 → 2/2, problem 4 → 0/2.
    assert r.metrics["pass@1"]["value"] == pytest.approx((0.5 + 1.0 + 0.0) / 3, abs=1e-15)
    with pytest.raises(MalformedRows, match="`problem` must be a string or an integer"):
        rollstat.report(pd.DataFrame({"problem": [1.5], "correct": [True]}))


# --------------------------------------------------------------- item 12


def _bad_rows_report():
    return rollstat.report([{"problem": "a", "correct": True}, {"correct": True}], ci=None)


def test_warnings_point_at_the_callers_line():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        line = inspect.currentframe().f_lineno + 1
        rollstat.report([{"problem": "a", "correct": True}, {"correct": True}], ci=None)
    hits = [x for x in w if issubclass(x.category, RollstatWarning)]
    assert hits and all((x.filename, x.lineno) == (__file__, line) for x in hits), [(x.filename, x.lineno) for x in hits]

    # Inside a function of the user's: the line in that function, not its caller's.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        _bad_rows_report()
    inner = inspect.getsourcelines(_bad_rows_report)[1] + 1
    hits = [x for x in w if issubclass(x.category, RollstatWarning)]
    assert hits and all((x.filename, x.lineno) == (__file__, inner) for x in hits)


# --------------------------------------------------------------- item 13


def _ids_and_links(page: str):
    ids = set(re.findall(r'\bid="([^"]+)"', page))
    links = set(re.findall(r'href="#([^"]*)"', page))
    return ids, links


def test_notebook_links_stay_in_the_frame(demo):
    r = rollstat.report(str(demo), resamples=200)
    page = r.to_html()
    ids, links = _ids_and_links(page)
    assert links, "the page has in-page navigation"
    assert links <= ids, f"links without a target: {links - ids}"
    frame = r._repr_html_()
    srcdoc = html.unescape(re.search(r'srcdoc="([^"]*)"', frame).group(1))
    # The frame's own document is the base: `#metrics` is a fragment of the
    # frame, not of the notebook page (which it would load into the frame).
    head = srcdoc[: srcdoc.index("</head>")]
    assert '<base href="about:srcdoc">' in head
    assert head.index("<base") < min(head.find("<link") % 10**9, head.find("<style") % 10**9)
    assert "<script" not in frame
    # The base is the only difference from the page the command writes.
    assert srcdoc.replace('<base href="about:srcdoc">', "", 1) == page


# --------------------------------------------------------------- item 14


def test_power_from_a_report_covers_fraction_metrics_and_says_what_it_leaves_out(cli, tmp_path):
    # 4 problems × 4 rollouts with tokens; problem d is always right, so
    # pass@4 − maj@4-style rows may have zero variance.
    rows = rows_of(
        {"a": [True, False, False, False], "b": [True, True, False, False], "c": [False] * 4, "d": [True] * 4},
        output_tokens=100,
    )
    for i, r in enumerate(rows):
        r["output_tokens"] = 100 + 10 * i
        r["answer"] = "1" if r["correct"] else str(i % 2 + 2)
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    r = rollstat.report(str(path), resamples=200)
    budgets = [m for m in r.metrics if r.metrics[m]["unit"] != "fraction"]
    assert budgets, "the report has token metrics"
    p = rollstat.power(r, delta=0.03)
    got = [row["metric"] for row in p.rows]
    assert got and not any(m.startswith(("budget@", "cost_of_")) for m in got)
    fraction = {
        m for m, e in r.metrics.items()
        if e["unit"] == "fraction" and not e.get("extrapolated") and e.get("stderr") not in (None, 0.0)
    }
    assert set(got) == fraction
    zero = sorted(m for m, e in r.metrics.items() if e["unit"] == "fraction" and e.get("stderr") == 0.0)
    notes = " ".join(p.assumptions)
    assert "not measured as a fraction" in notes and "budget@1" in notes
    if zero:
        assert "zero variance" in notes and zero[0] in notes
    # Every row is a real scenario: more than one problem needed for 3 points.
    assert all(row["problems_needed"] > 1 for row in p.rows)

    # The command gives the same rows and notes from the same report.json.
    rj = tmp_path / "report.json"
    rj.write_text(r.to_json(), encoding="utf-8")
    doc = json.loads(cli.run("power", str(rj), "--delta", "0.03", "--format", "json").stdout)
    assert [row["metric"] for row in doc["rows"]] == got
    assert [row["problems_needed"] for row in doc["rows"]] == [row["problems_needed"] for row in p.rows]
    # Named explicitly, a budget metric is powered (its unit is the user's call).
    assert [row["metric"] for row in rollstat.power(r, delta=0.03, metric="budget@1").rows] == ["budget@1"]


# --------------------------------------------------------------- item 15


def test_a_misspelt_field_is_a_warning(demo_rows, cli, demo):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = rollstat.report(demo_rows, by="gruop", cluster_by="tmpl", budget="tokens", resamples=200)
    said = [str(x.message) for x in w if issubclass(x.category, RollstatWarning)]
    for option, field in (("by", "gruop"), ("cluster_by", "tmpl"), ("budget", "tokens")):
        hit = [s for s in said if f"'{field}' ({option}=)" in s]
        assert hit, (option, said)
        assert "columns found: 'problem', 'rollout', 'correct'" in hit[0] and "'output_tokens'" in hit[0]
    kinds = [f for f in r.health["findings"] if f["kind"] == "field_absent"]
    assert [(f["option"], f["field"]) for f in kinds] == [("by", "gruop"), ("cluster_by", "tmpl"), ("budget", "tokens")]
    # The right names say nothing.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rollstat.report(demo_rows, by="group", budget="output_tokens", resamples=200)
    assert not [x for x in w if "no row has the field" in str(x.message)]
    # The command words it with its flags.
    doc = cli.json("report", demo, "--by", "gruop", "--budget", "tokens", "--resamples", "200")
    texts = doc["health"]["warnings"]
    assert any("'gruop' (--by)" in t for t in texts) and any("'tokens' (--budget)" in t for t in texts)
    # compare says it too, for cluster_by and budget.
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        c = rollstat.compare(demo_rows, demo_rows, cluster_by="tmpl", budget="tokens", resamples=200)
    said = [str(x.message) for x in w if "no row has the field" in str(x.message)]
    assert len(said) == 2 and "'tmpl' (cluster_by=)" in said[0] and "'tokens' (budget=)" in said[1], said
    assert [f["option"] for f in c.to_dict()["findings"] if f["kind"] == "field_absent"] == ["cluster_by", "budget"]


# --------------------------------------------------------------- item 16


def test_verdicts_are_same_k_and_budget_verdicts_the_matched_rows():
    a = rows_of({f"p{i}": [i % 2 == 0, i % 3 == 0, True, False] for i in range(12)})
    b = rows_of({f"p{i}": [i % 2 == 1, True, i % 4 == 0, True] for i in range(12)})
    for r in a:
        r["output_tokens"] = 100
    for r in b:
        r["output_tokens"] = 200
    c = rollstat.compare(a, b, k=[1, 2], margin=0.05, budget="output_tokens", resamples=200)
    same = {r["metric"]: r["verdict"] for r in c.rows if r.get("group") is None and r.get("budget_matched") is None}
    matched = {r["metric"]: r["verdict"] for r in c.rows if r.get("group") is None and r.get("budget_matched")}
    assert matched, "budget-matched rows exist"
    assert c.verdicts == same
    assert c.budget_verdicts == matched
    assert set(matched) <= set(c.verdicts)


# --------------------------------------------------------------- item 17


SNIPPET = """
import numpy as np
import rollstat

equal, why = rollstat.is_equivalent("1/2", "0.5", reason=True)
flag: bool = rollstat.is_equivalent("1/2", "0.5")
also: bool = rollstat.is_equivalent("1/2", "0.5", reason=False)
r = rollstat.report("rows.jsonl", k=np.int64(4), tau=np.float64(0.5), level=np.float64(0.9))
r2 = rollstat.report("rows.jsonl", k=np.array([1, 2, 4]), tau=[np.float64(0.5), 1.0], extrapolate=np.int64(100))
c = rollstat.compare("a.jsonl", "b.jsonl", k=[np.int64(1), 2], margin=np.float64(0.02))
p = rollstat.power(r, delta=np.float64(0.03), problems=np.int64(500))
v = rollstat.g_pass_at_k(8, 3, 4, np.float64(0.5))
"""


def test_stubs_accept_documented_code(tmp_path):
    """The documented calls type-check against the stubs: with mypy when it
    is installed, else by reading the overloads and annotations."""
    import importlib.util
    import subprocess
    import sys
    from pathlib import Path

    stub = Path(rollstat.__file__).with_name("__init__.pyi")
    if importlib.util.find_spec("mypy") is not None:
        src = tmp_path / "snippet.py"
        src.write_text(SNIPPET, encoding="utf-8")
        env = {"MYPYPATH": str(stub.parent.parent), "PATH": ""}
        p = subprocess.run(
            [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", str(tmp_path / "cache"),
             "--follow-imports", "silent", str(src)],
            capture_output=True, text=True, env=env, cwd=tmp_path,
        )
        assert p.returncode == 0, p.stdout + p.stderr
        return
    import ast

    tree = ast.parse(stub.read_text(encoding="utf-8"))
    overloads = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "is_equivalent"]
    returns = {ast.unparse(o.args.kwonlyargs[0].annotation): ast.unparse(o.returns) for o in overloads if o.args.kwonlyargs}
    assert returns["Literal[True]"] == "Tuple[bool, str]" and returns["Literal[False]"] == "bool"
    report = next(n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "report")
    ann = {a.arg: ast.unparse(a.annotation) for a in report.args.kwonlyargs}
    assert ann["k"] == "Optional[_Ints]" and ann["tau"] == "_Floats"


def test_numpy_values_for_keywords_give_the_python_numbers(demo_rows):
    plain = rollstat.report(demo_rows, k=[1, 4], tau=[0.5], level=0.9, resamples=200, seed=7).to_dict()
    numpy = rollstat.report(
        demo_rows, k=np.array([1, 4]), tau=np.float64(0.5), level=np.float64(0.9), resamples=np.int64(200),
        seed=np.int64(7),
    ).to_dict()
    assert numpy == plain
    equal, why = rollstat.is_equivalent("1/2", "0.5", reason=True)
    assert equal is True and isinstance(why, str)


# --------------------------------------------------------------- item 18


def test_wording_of_common_mistakes(demo_rows):
    with pytest.raises(TypeError, match=r"k: expected an integer or a list of integers, found 2\.5"):
        rollstat.report(demo_rows, k=2.5)
    with pytest.raises(TypeError, match=r"k: expected an integer, found 2\.5 \(an integer or a list of integers\)"):
        rollstat.report(demo_rows, k=[1, 2.5])
    with pytest.raises(TypeError, match="tau: expected a number or a list of numbers"):
        rollstat.report(demo_rows, tau="half")
    r = rollstat.report(demo_rows, ci=None)
    with pytest.raises(MetricNotFound) as e:
        r.metrics["pass@99"]
    assert isinstance(e.value, KeyError) and e.value.metric == "pass@99"
    assert "no metric 'pass@99'" in str(e.value) and "pass@1" in str(e.value)
    assert "pass@1" in e.value.available


def test_merge_errors_name_rows_the_python_way():
    a = rollstat.summarize([{"problem": "p", "rollout": 0, "correct": True}])
    b = rollstat.summarize([{"problem": "p", "rollout": 0, "correct": False}])
    with pytest.raises(InputError) as e:
        rollstat.merge([a, b])
    assert "<data>" not in str(e.value) and "data[0]" in str(e.value)


# --------------------------------------------------------------- item 19


# print(r) is the command's table: test_options.py::test_print_is_the_table_the_cli_prints.


def test_tables_type_group_and_k_alike(demo_rows):
    pytest.importorskip("pandas")
    r = rollstat.report(demo_rows, by="group", resamples=200, extrapolate=[20], budget="output_tokens")
    df = r.to_pandas()
    overall = df[df["metric"] == "pass@1"].iloc[0]
    assert overall["group"] is None
    assert df["group"].dtype == object and set(df["group"].dropna()) == set(r.groups)
    assert str(df["k"].dtype) == "Int64"
    assert df.loc[df["metric"] == "pass@4", "k"].tolist()[0] == 4
    # Metrics without a k have <NA>, not NaN-promoted floats.
    assert df.loc[df["metric"] == "self_consistency", "k"].isna().all()
    # The extrapolated value is a metric like the others.
    fit = r.to_dict()["extrapolation"]["values"]["pass@20_fit"]
    assert r.metrics["pass@20_fit"]["value"] == fit["value"]
    assert "pass@20_fit" in r.metrics
    row = df[df["metric"] == "pass@20_fit"].iloc[0]
    assert row["value"] == fit["value"] and row["k"] == 20 and row["family"] == "pass@{K}_fit"
    # polars and Arrow have the same rows.
    pl = pytest.importorskip("polars")
    p = r.metrics.to_polars()
    assert p.height == len(df) and p["k"].dtype == pl.Int64
