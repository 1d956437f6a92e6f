"""report(): every input kind against the CLI's report.json on the same rows."""

from __future__ import annotations

import json
import math
import shutil
import warnings
from pathlib import Path

import numpy as np
import pytest
from conftest import without_warnings, write_jsonl

import rollstat

REPORT_KEYS = ["schema", "version", "inputs", "config", "health", "metrics", "not_computable", "groups", "reliability"]


def cli_report(cli, *inputs, **flags):
    args = ["report", *map(str, inputs)]
    for name, value in flags.items():
        flag = "--" + name.replace("_", "-")
        if value is True:
            args.append(flag)
        elif isinstance(value, (list, tuple)):
            args += [flag, ",".join(map(str, value))]
        else:
            args += [flag, str(value)]
    return cli.json(*args)


def without_inputs(doc):
    doc = without_warnings(doc)
    doc.pop("inputs")
    return doc


# --------------------------------------------------------- path vs CLI

OPTION_SETS = [
    ({}, {}),
    ({"ci": "bca", "k": [1, 4], "by": "group", "per_problem": True}, {"ci": "bca", "k": [1, 4], "by": "group", "per_problem": True}),
    ({"ci": "wilson", "level": 0.9, "seed": 7, "resamples": 2000}, {"ci": "wilson", "level": 0.9, "seed": 7, "resamples": 2000}),
    ({"ci": "t", "tau": [0.5], "n": 10}, {"ci": "t", "tau": [0.5], "n": 10}),
    ({"ci": None, "tie_policy": "fractional", "match": "exact"}, {"ci": "none", "tie_policy": "fractional", "match": "exact"}),
    ({"ci": "basic", "cluster_by": "group", "denominator": "judged"}, {"ci": "basic", "cluster_by": "group", "denominator": "judged"}),
    ({"ci": "beta-binomial", "prior": "jeffreys"}, {"ci": "beta-binomial", "prior": "jeffreys"}),
]


SMALL20 = Path(__file__).resolve().parents[2] / "crates/rollstat-cli/tests/fixtures/bayes/small20.jsonl"


def test_beta_binomial_interval_equals_cli_and_quadrature(cli):
    """The model-based interval on the 20-problem fixture: the CLI's numbers,
    and the same model integrated by scipy quadrature (docs/statistics.md §12;
    the values of crates/rollstat-cli/tests/bayes.rs)."""
    r = rollstat.report(str(SMALL20), ci="beta-binomial")
    expect = cli_report(cli, SMALL20, ci="beta-binomial")
    assert without_warnings(r.to_dict()) == without_warnings(expect)
    m = r.metrics["pass@1"]
    assert m["method"] == "beta-binomial model, uniform prior"
    assert m["value"] == 0.5
    assert m["ci"][0] == pytest.approx(0.3510402794997227, abs=1e-4)
    assert m["ci"][1] == pytest.approx(0.648959720500278, abs=1e-4)
    with pytest.raises(rollstat.InputError, match="prior: unknown prior 'flat'"):
        rollstat.report(str(SMALL20), ci="beta-binomial", prior="flat")


@pytest.mark.parametrize("py_opts,cli_opts", OPTION_SETS)
def test_path_report_equals_cli(cli, demo, py_opts, cli_opts):
    r = rollstat.report(str(demo), **py_opts)
    expect = cli_report(cli, demo, **cli_opts)
    assert list(r.to_dict()) == list(expect)
    assert without_warnings(r.to_dict()) == without_warnings(expect)
    # Same number of findings; only the advice wording differs.
    assert len(r.warnings) == len(expect["health"]["warnings"])


def test_to_dict_keys_and_json(demo):
    r = rollstat.report(demo)  # a PathLike
    d = r.to_dict()
    assert list(d) == REPORT_KEYS
    assert json.loads(r.to_json()) == d
    assert r.to_json().endswith("\n")
    d["metrics"].clear()  # a copy
    assert "pass@1" in r.metrics
    assert r.config["ci"]["method"] == "bootstrap" and r.health["n_problems"] == 6
    assert r.inputs[0]["format"] == "canonical-jsonl"
    assert r.not_computable == {} and r.groups == {} and r.per_problem is None


def test_findings_are_worded_with_keyword_arguments(demo):
    r = rollstat.report(demo)
    text = " ".join(r.warnings)
    assert "ci='beta-binomial'" in text
    assert "--" not in text


NATIVE = [
    "formats/lm_eval_samples_excerpt.jsonl",
    "formats/inspect_log_streaming_2epochs.eval",
    "real/taubench_gpt4o_airline_tasks40-44.json",
]


@pytest.mark.parametrize("name", NATIVE)
def test_native_harness_files_equal_cli(cli, name):
    from conftest import ROOT

    path = ROOT / "crates/rollstat-formats/tests/data" / name
    assert path.exists(), path
    p = cli.run("report", path, "--format", "json", "--resamples", "2000", ok=False)
    if p.returncode != 0:  # a file the engine refuses: the same refusal, in Python's words
        with pytest.raises(rollstat.InputError):
            rollstat.report(path, resamples=2000)
        return
    expect = json.loads(p.stdout)
    got = rollstat.report(path, resamples=2000).to_dict()
    assert list(got) == list(expect)
    assert without_warnings(got) == without_warnings(expect)


def test_unrecognised_file_names_source_format(tmp_path):
    from conftest import ROOT

    path = ROOT / "crates/rollstat-formats/tests/data/real/faithfulcot_date_ltm_n40_predictions_lines171-200.jsonl"
    with pytest.raises(rollstat.InputError, match=r"unrecognised input format") as e:
        rollstat.report(path)
    assert "source_format='NAME'" in str(e.value) and "--from" not in str(e.value)


# ------------------------------------------------------ in-memory rows


def test_list_of_dicts_equals_path(demo, demo_rows):
    a = rollstat.report(demo, by="group")
    b = rollstat.report(demo_rows, by="group")
    assert without_inputs(a.to_dict()) == without_inputs(b.to_dict())
    assert b.inputs[0]["path"] == "<data>" and b.inputs[0]["records"] == len(demo_rows)
    assert a.warnings == b.warnings


def test_list_of_dicts_equals_cli_on_its_jsonl(cli, tmp_path, demo_rows):
    path = write_jsonl(tmp_path / "rows.jsonl", demo_rows)
    assert without_inputs(rollstat.report(demo_rows, ci="bca").to_dict()) == without_inputs(
        cli_report(cli, path, ci="bca")
    )


def test_pandas_dataframe(demo, demo_rows):
    import pandas as pd

    df = pd.DataFrame(demo_rows)
    r = rollstat.report(df, by="group")
    assert without_inputs(r.to_dict()) == without_inputs(rollstat.report(demo, by="group").to_dict())


def test_polars_dataframe_and_lazyframe(demo, demo_rows):
    import polars as pl

    df = pl.DataFrame(demo_rows)
    expect = without_inputs(rollstat.report(demo).to_dict())
    assert without_inputs(rollstat.report(df).to_dict()) == expect
    assert without_inputs(rollstat.report(df.lazy()).to_dict()) == expect


def test_pyarrow_table_batch_and_reader(demo, demo_rows):
    import pyarrow as pa

    table = pa.Table.from_pylist(demo_rows)
    expect = without_inputs(rollstat.report(demo).to_dict())
    assert without_inputs(rollstat.report(table).to_dict()) == expect
    assert without_inputs(rollstat.report(table.to_batches()[0]).to_dict()) == expect
    reader = pa.RecordBatchReader.from_batches(table.schema, table.to_batches())
    assert without_inputs(rollstat.report(reader).to_dict()) == expect


class ArrowStream:
    """Anything exposing the Arrow PyCapsule stream interface."""

    def __init__(self, table):
        self.table = table

    def __arrow_c_stream__(self, requested_schema=None):
        return self.table.__arrow_c_stream__(requested_schema)


def test_arrow_pycapsule_stream(demo, demo_rows):
    import pyarrow as pa

    r = rollstat.report(ArrowStream(pa.Table.from_pylist(demo_rows)))
    assert without_inputs(r.to_dict()) == without_inputs(rollstat.report(demo).to_dict())


def problem_rows():
    return [
        {"problem": "p1", "correct": [True, False, False, True], "answers": ["1", "2", "2", "1"], "subset": "a"},
        {"problem": "p2", "correct": [False, False, False, True], "answers": ["3", "4", "4", "5"], "subset": "b"},
        {"problem": "p3", "correct": [True, True, True, True], "answers": ["7", "7", "7", "7"], "subset": "a"},
    ]


def test_problem_rows_with_list_columns_in_every_frame(cli, tmp_path):
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    rows = problem_rows()
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "p.jsonl", rows), by="subset"))
    for data in (rows, pd.DataFrame(rows), pl.DataFrame(rows), pa.Table.from_pylist(rows)):
        assert without_inputs(rollstat.report(data, by="subset").to_dict()) == expect, type(data)


def test_frames_go_through_arrow_not_python_rows(monkeypatch, demo, demo_rows):
    """DataFrames and Arrow tables are read column by column through the
    Arrow C stream interface: converting them to Python rows would fail."""
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    frames = [pd.DataFrame(demo_rows), pl.DataFrame(demo_rows), pa.Table.from_pylist(demo_rows)]

    def refuse(*args, **kwargs):
        raise AssertionError("converted to Python rows")

    monkeypatch.setattr(pd.DataFrame, "to_dict", refuse)
    monkeypatch.setattr(pl.DataFrame, "to_dicts", refuse)
    monkeypatch.setattr(rollstat._data, "rows_of", refuse)  # the records path (pa.Table is immutable)
    expect = without_inputs(rollstat.report(demo, by="group").to_dict())
    for df in frames:
        r = rollstat.report(df, by="group")
        assert without_inputs(r.to_dict()) == expect, type(df)
        assert r.inputs[0]["format"] == "rows" and r.inputs[0]["records"] == len(demo_rows)


def arrow_problem_rows():
    """Problem rows with list columns of several Arrow layouts: list<bool>
    with a null verdict, large_list<string_view> answers, a dictionary
    (categorical) subset, integer problem ids, a float column with NaN."""
    import pyarrow as pa

    return pa.table(
        {
            "problem": pa.array([1, 2, 3, 4], pa.int32()),
            "correct": pa.array([[True, False, None, True], [False, False, False], [True, True, False], [True]],
                                pa.list_(pa.bool_())),
            "answers": pa.array([["1", "2", None, "1"], ["3", "4", "4"], ["7", "7", "8"], ["9"]],
                                pa.large_list(pa.string_view())),
            "subset": pa.array(["a", "b", "a", "b"]).dictionary_encode(),
            "score": pa.array([0.5, float("nan"), None, 1.0]),
        }
    )


def test_list_columns_of_arrow_layouts_equal_cli(cli, tmp_path):
    import polars as pl

    table = arrow_problem_rows()
    rows = table.to_pylist()
    rows[1]["score"] = None  # NaN: null, as in JSON
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "p.jsonl", rows), by="subset", ci="wilson"))
    for data in (table, pl.from_arrow(table)):
        got = rollstat.report(data, by="subset", ci="wilson")
        assert without_inputs(got.to_dict()) == expect, type(data)
    assert got.health["n_failed"] == 1


def test_integer_verdicts_and_count_columns_through_arrow(cli, tmp_path):
    import pyarrow as pa

    table = pa.table({"problem": ["a", "a", "b", "b"], "correct": pa.array([1, 0, 0, 0], pa.int8()),
                      "stamp": pa.array([1, 2, 3, 4], pa.timestamp("s"))})
    rows = [{"problem": r["problem"], "correct": r["correct"]} for r in table.to_pylist()]
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "v.jsonl", rows)))
    # The timestamp column is not a field rows read: left out.
    assert without_inputs(rollstat.report(table).to_dict()) == expect
    with pytest.raises(rollstat.InputError, match=r"^data: column 'stamp' has the Arrow type Timestamp"):
        rollstat.report(table, by="stamp")


def test_bad_row_in_a_frame_names_its_index():
    import pandas as pd
    import polars as pl

    rows = [{"problem": "a", "correct": True}, {"problem": "a", "correct": 2}, {"problem": "b", "correct": False}]
    with pytest.raises(rollstat.InputError, match=r"^data\.iloc\[1\]: "):
        rollstat.report(pd.DataFrame(rows), strict=True)
    with pytest.raises(rollstat.InputError, match=r"^data\[1\]: "):
        rollstat.report(pl.DataFrame(rows), strict=True)
    with pytest.warns(rollstat.RollstatWarning, match=r"data\[1\]"):
        r = rollstat.report(pl.DataFrame(rows))
    assert r.health["n_bad_lines"] == 1 and r.bad_rows[0].location == "data[1]"


def test_pandas_object_column_of_mixed_types_is_read_by_records(cli, tmp_path):
    import pandas as pd

    rows = [{"problem": "a", "correct": True, "answer": "x"}, {"problem": "a", "correct": False, "answer": 7},
            {"problem": "b", "correct": True, "answer": None}]
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "m.jsonl", rows)))
    assert without_inputs(rollstat.report(pd.DataFrame(rows)).to_dict()) == expect


def test_count_rows_and_numpy_values(cli, tmp_path):
    rows = [{"problem": f"p{i}", "n": 8, "c": c} for i, c in enumerate([0, 3, 8, 5, 1])]
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "c.jsonl", rows)))
    assert without_inputs(rollstat.report(rows).to_dict()) == expect
    np_rows = [{"problem": r["problem"], "n": np.int64(r["n"]), "c": np.uint8(r["c"])} for r in rows]
    assert without_inputs(rollstat.report(np_rows).to_dict()) == expect
    assert rollstat.report(rows).metrics["pass@1"]["value"] == (0 + 3 + 8 + 5 + 1) / 40


def test_missing_values_are_null(cli, tmp_path):
    import pandas as pd

    rows = [
        {"problem": "p1", "rollout": 0, "correct": True},
        {"problem": "p1", "rollout": 1, "correct": None},
        {"problem": "p2", "rollout": 0, "correct": False},
        {"problem": "p2", "rollout": 1, "correct": True},
    ]
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "m.jsonl", rows)))
    df = pd.DataFrame(rows)  # correct: object column with None
    assert without_inputs(rollstat.report(df).to_dict()) == expect
    assert rollstat.report(rows).health["n_failed"] == 1


def test_directory_and_list_of_paths(tmp_path, demo, demo_rows):
    problems = sorted({r["problem"] for r in demo_rows})
    half = set(problems[: len(problems) // 2])
    a = write_jsonl(tmp_path / "a.jsonl", [r for r in demo_rows if r["problem"] in half])
    b = write_jsonl(tmp_path / "b.jsonl", [r for r in demo_rows if r["problem"] not in half])
    expect = without_inputs(rollstat.report(demo).to_dict())
    both = rollstat.report([a, b])
    assert len(both.inputs) == 2
    # Same problems in a different file order: compare the metrics only.
    got = without_inputs(both.to_dict())
    assert got["metrics"] == expect["metrics"] or all(
        got["metrics"][m]["value"] == pytest.approx(expect["metrics"][m]["value"], abs=1e-15) for m in expect["metrics"]
    )
    d = tmp_path / "dir"
    d.mkdir()
    shutil.copy(demo, d / "demo.jsonl")
    assert without_inputs(rollstat.report(d).to_dict()) == expect
    assert without_inputs(rollstat.report(str(d)).to_dict()) == expect


# ----------------------------------------------------------- the object


def test_metrics_tables(demo):
    import pandas as pd
    import polars as pl
    import pyarrow as pa

    r = rollstat.report(demo, by="group")
    rows = r.metrics.rows()
    overall = [x for x in rows if x["group"] is None]
    assert [x["metric"] for x in overall] == list(r.metrics)
    # Each group lists its own computable metrics (a cost metric whose
    # success metric solves nothing in a group is not computable there).
    assert len(rows) == len(r.metrics) + sum(len(g["metrics"]) for g in r.groups.values())
    p1 = r.metrics["pass@1"]
    first = overall[0]
    assert first["metric"] == "pass@1" and first["value"] == p1["value"] and first["stderr"] == p1["stderr"]
    assert [first["ci_low"], first["ci_high"]] == p1["ci"]
    df = r.metrics.to_pandas()
    assert isinstance(df, pd.DataFrame) and len(df) == len(rows)
    assert list(df.columns[:10]) == ["metric", "group", "value", "stderr", "ci_low", "ci_high", "method", "level", "n_problems", "n_excluded"]
    assert df.loc[0, "value"] == p1["value"]
    assert r.metrics_frame().equals(df) and r.to_pandas().equals(df)
    assert isinstance(r.metrics.to_polars(), pl.DataFrame) and r.metrics.to_polars().height == len(rows)
    assert isinstance(r.metrics.to_arrow(), pa.Table) and r.metrics.to_arrow().num_rows == len(rows)


def test_repr_and_html(demo):
    r = rollstat.report(demo, by="group")
    text = repr(r)
    # The table the CLI prints, from the same renderer (options named as
    # keyword arguments).
    assert text == str(r) and text.startswith("rollstat report — ")
    assert "pass@1" in text and "CI: bootstrap at 95%" in text and "group = algebra" in text
    assert "all=True adds" in text and "--all" not in text
    frame = r._repr_html_()
    assert frame.startswith("<iframe ") and 'srcdoc="&lt;!DOCTYPE html&gt;' in frame


def test_not_computable_and_excluded(tmp_path):
    rows = [{"problem": "p1", "n": 2, "c": 1}, {"problem": "p2", "n": 4, "c": 4}]
    r = rollstat.report(rows, k=[1, 4])
    assert r.metrics["pass@4"]["n_excluded"] == 1
    assert "prefix@4" in r.not_computable
    # Count rows carry no answers: the answer metrics are left out, once.
    assert "maj@4" not in r.not_computable and "maj@4" not in r.metrics
    assert r.config["answer_metrics_left_out"] == "no_answers"


def test_answer_metrics_only_where_answers_exist():
    # n = 1 with answers: maj@1 would be pass@1 and self-consistency 100%.
    one = [{"problem": "a", "correct": True, "answer": "1"}, {"problem": "b", "correct": False, "answer": "2"}]
    r = rollstat.report(one)
    assert r.config["answer_metrics_left_out"] == "one_rollout"
    assert not any(m.startswith("maj@") or m in ("self_consistency", "distinct_answers") for m in r.metrics)
    assert not any("answer" in w for w in r.warnings)
    # Two rollouts with answers: a = [1, 1] both correct, b = [2 wrong, 3 correct];
    # self_consistency = (2/2 + 1/2)/2 = 3/4, distinct_answers = (1 + 2)/2 = 3/2.
    two = [{"problem": "a", "correct": True, "answer": "1"}, {"problem": "a", "correct": True, "answer": "1"},
           {"problem": "b", "correct": False, "answer": "2"}, {"problem": "b", "correct": True, "answer": "3"}]
    r = rollstat.report(two)
    assert "answer_metrics_left_out" not in r.config
    assert r.metrics["self_consistency"]["value"] == 0.75
    assert r.metrics["distinct_answers"]["value"] == 1.5


# ------------------------------------------------------ lenient bad rows


def test_bad_rows_warn_and_are_counted(demo_rows):
    rows = list(demo_rows)
    rows.insert(2, {"rollout": 0, "correct": True})  # no problem id
    with pytest.warns(rollstat.RollstatWarning, match=r"1 malformed rows were skipped: data\[2\]: "):
        r = rollstat.report(rows)
    assert r.health["n_bad_lines"] == 1
    assert len(r.bad_rows) == 1 and r.bad_rows[0].location == "data[2]"
    assert "strict=True" in " ".join(r.warnings)


def test_bad_line_in_file_is_named_by_path_and_line(tmp_path, demo):
    text = demo.read_text().splitlines()
    text.insert(3, "{not json")
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(text) + "\n")
    with pytest.warns(rollstat.RollstatWarning, match=rf"{path}:4: "):
        r = rollstat.report(path)
    assert r.bad_rows[0].location == f"{path}:4"


def test_no_warning_on_clean_input(demo):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rollstat.report(demo)


def test_gsm8k_style_rows_graded_from_responses(cli, tmp_path):
    rows = [
        {"problem": "q1", "gold": "2 + 2 = 4\n#### 4", "response": "so the answer is \\boxed{4}"},
        {"problem": "q1", "gold": "2 + 2 = 4\n#### 4", "response": "I think 5"},
        {"problem": "q2", "gold": "1/2", "response": "$\\frac{1}{2}$"},
        {"problem": "q2", "gold": "1/2", "response": "0.5"},
    ]
    expect = without_inputs(cli_report(cli, write_jsonl(tmp_path / "g.jsonl", rows)))
    r = rollstat.report(rows)
    assert without_inputs(r.to_dict()) == expect
    assert r.metrics["pass@1"]["value"] == 0.75


def test_unreadable_file_in_a_directory_warns(tmp_path, demo):
    shutil.copy(demo, tmp_path / "demo.jsonl")
    (tmp_path / "broken.json").write_text('{"results": ')
    with pytest.warns(rollstat.RollstatWarning, match="broken.json"):
        r = rollstat.report(tmp_path)
    assert r.health["n_problems"] == 6
    assert any("strict=True makes this an error" in w for w in r.warnings), r.warnings
    with pytest.raises(rollstat.InputError, match="strict=False"):
        rollstat.report(tmp_path, strict=True)


# ------------------------------------------------ selector score order

# Problem p: 4 rollouts, only the lowest-scored one correct. Ascending (lower
# is better): the subset's best is rollout 0 exactly when it is drawn,
# bon@k = k/4. Descending: rollout 0 is the best of a subset only alone,
# bon@1 = 1/4, bon@k = 0 for k ≥ 2. Problem q (T 0.5, F 0.5, T 0.2, F 0.1),
# its 6 pairs by hand: descending, {0,1} is a tie (½), {0,2}, {0,3}, {2,3}
# are won by a correct rollout, {1,2}, {1,3} not: bon@2 = 3.5/6 = 7/12;
# ascending, {0,1} ½, {0,2} and {1,2} won by rollout 2 (0.2, correct), the
# three pairs holding rollout 3 (0.1, wrong) lost: bon@2 = 2.5/6 = 5/12.
SCORED = [
    *({"problem": "p", "rollout": i, "correct": i == 0, "score": s} for i, s in enumerate([0.1, 0.9, 0.5, 0.3])),
    *({"problem": "q", "rollout": i, "correct": c, "score": s}
      for i, (c, s) in enumerate([(True, 0.5), (False, 0.5), (True, 0.2), (False, 0.1)])),
]
BON = {
    "ascending": {"bon@1": (0.25 + 0.5) / 2, "bon@2": (0.5 + 5 / 12) / 2},
    "descending": {"bon@1": (0.25 + 0.5) / 2, "bon@2": (0.0 + 7 / 12) / 2},
}


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_score_order_matches_cli_and_hand_values(cli, tmp_path, order):
    path = write_jsonl(tmp_path / "scored.jsonl", SCORED)
    r = rollstat.report(SCORED, k=[1, 2], ci=None, score_order=order)
    expect = cli_report(cli, path, k=[1, 2], ci="none", score_order=order)
    for name, value in BON[order].items():
        assert r.metrics[name]["value"] == pytest.approx(value, abs=1e-15)
        assert r.metrics[name]["value"] == expect["metrics"][name]["value"]
    assert r.config["score_order"] == order == expect["config"]["score_order"]
    assert r.metrics.get("wmaj@4") == expect["metrics"].get("wmaj@4")


def test_score_order_is_checked():
    with pytest.raises(rollstat.InputError, match="score_order"):
        rollstat.report(SCORED, ci=None, score_order="up")


def awkward_rows(count: int, seed: int):
    """Rollout rows whose values stress their JSON spelling: quotes,
    backslashes, newlines and non-ASCII in ids and answers, missing answers
    and verdicts (nulls), floats, a `by` column, and a few bad rows."""
    rng = np.random.default_rng(seed)
    rows = []
    for i in range(count):
        p = i // 8
        rows.append({
            "problem": f'q"{p}\\\n€' if i % 997 else "",  # every 997th row: an empty id (a bad row)
            "rollout": i % 8,
            "correct": None if i % 53 == 0 else bool(rng.random() < 0.4),
            "answer": None if i % 31 == 0 else f"{rng.integers(0, 4)}\t✓",
            "score": float(rng.random()),
            "group": f"g{p % 5}",
        })
    return rows


def test_large_frame_equals_file_and_dicts_including_health(tmp_path):
    # Many rows (several pieces of text written in parallel, several Arrow
    # batches): a frame gives the report the same rows give as a file and as
    # dicts — values, intervals, health counts (bad rows, failed rollouts).
    import pandas as pd
    import pyarrow as pa

    rows = awkward_rows(40_000, seed=9)
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    opts = {"by": "group", "k": [1, 4], "resamples": 300}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", rollstat.RollstatWarning)
        expect = rollstat.report(str(path), **opts).to_dict()
        table = pa.Table.from_pylist(rows)
        batches = pa.Table.from_batches(table.to_batches(max_chunksize=7_000))
        got = [rollstat.report(d, **opts).to_dict() for d in (pd.DataFrame(rows), batches, rows)]
    assert expect["health"]["n_bad_lines"] == 41 and expect["health"]["n_problems"] == 5000
    for doc in got:
        assert without_inputs(doc) == without_inputs(expect)
        assert doc["inputs"][0]["format"] == "rows" and doc["inputs"][0]["records"] == 40_000


def every_kind_table():
    """Rollout rows with a cell of every kind the Arrow mapping reads:
    integer, unsigned and dictionary problem ids, null and negative
    rollouts, 0/1/2 and 1.0/NaN verdicts, numeric and boolean answers, a
    failed status, truncation by finish_reason and by flag, scores and
    budgets with NaN, infinity and a negative value, gold and response
    beside a verdict, counts on one row (beside its verdict: a bad row, as
    in JSON), an integer `by` column and a cluster column."""
    import pyarrow as pa

    nan, inf = float("nan"), float("inf")
    size = 24
    cols = {
        "problem": pa.array([f"p{i % 6}" for i in range(size)]).dictionary_encode(),
        "rollout": pa.array([i // 6 if i % 7 else None for i in range(size)], pa.int32()),
        "correct": pa.array([(i * 5) % 3 % 2 for i in range(size)], pa.int8()),
        "answer": pa.array([None if i % 5 == 0 else float(i % 3) / 2 for i in range(size)], pa.float32()),
        "status": pa.array(["ok" if i % 9 else "Timeout" for i in range(size)]),
        "finish_reason": pa.array(["length" if i % 4 == 1 else "stop" for i in range(size)]),
        "truncated": pa.array([i % 6 == 2 if i % 8 else None for i in range(size)]),
        "score": pa.array([[0.5, nan, inf, None][i % 4] if i % 5 else i for i in range(size)], pa.float64()),
        "output_tokens": pa.array([None if i % 7 == 3 else 100 + i for i in range(size)], pa.int64()),
        "gold": pa.array(["1" if i % 2 else None for i in range(size)]),
        "response": pa.array([f"so {i}" for i in range(size)], pa.large_string()),
        "model": pa.array(["m"] * size, pa.string_view()),
        "n": pa.array([8 if i == 13 else None for i in range(size)], pa.int64()),
        "c": pa.array([3 if i == 13 else None for i in range(size)], pa.uint8()),
        "grp": pa.array([i % 3 for i in range(size)], pa.uint64()),
        "cl": pa.array([f"c{i % 2}" for i in range(size)]),
    }
    bad = {
        4: ("rollout", pa.array([-1], pa.int32())),  # negative rollout
        10: ("correct", pa.array([2], pa.int8())),  # not 0/1
        17: ("output_tokens", pa.array([-5], pa.int64())),  # negative budget
    }
    for i, (name, value) in bad.items():
        values = cols[name].to_pylist()
        values[i] = value[0].as_py()
        cols[name] = pa.array(values, cols[name].type)
    return pa.table(cols)


def jsonable(rows):
    """Arrow rows as JSON Lines writes them: NaN and infinity are null."""
    fix = lambda v: None if isinstance(v, float) and not math.isfinite(v) else v  # noqa: E731
    return [{k: fix(v) for k, v in r.items()} for r in rows]


def test_every_cell_kind_of_the_arrow_mapping_equals_cli(cli, tmp_path):
    # Each row maps straight into its record or, where a value is one the
    # row parser must word (bad rows, the count row), through its field
    # map: the report equals the CLI's on the same rows as JSON Lines —
    # values, intervals, health counts (bad, failed, truncated rows).
    import polars as pl

    table = every_kind_table()
    path = write_jsonl(tmp_path / "k.jsonl", jsonable(table.to_pylist()))
    opts = {"by": "grp", "cluster_by": "cl", "k": [1, 2], "resamples": 500}
    expect = without_inputs(cli_report(cli, path, **opts))
    assert expect["health"]["n_bad_lines"] == 4
    # (Not pandas: it turns integer columns with nulls into floats, other rows.)
    for data in (table, pl.from_arrow(table)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", rollstat.RollstatWarning)
            got = rollstat.report(data, **opts)
        assert without_inputs(got.to_dict()) == expect, type(data)
    assert sorted(b.location for b in got.bad_rows) == ["data[10]", "data[13]", "data[17]", "data[4]"]


def test_frame_compare_equals_file_compare(tmp_path):
    # compare() reads frames through the same mapping, with its own `by`.
    import pandas as pd

    rows = awkward_rows(4_000, seed=3)
    rows = [dict(r, model="a" if i % 2 else "b") for i, r in enumerate(rows) if r["problem"]]
    path = write_jsonl(tmp_path / "ab.jsonl", rows)
    opts = {"by": "model", "k": [1], "resamples": 300}
    expect = rollstat.compare(str(path), **opts).to_dict()
    got = rollstat.compare(pd.DataFrame(rows), **opts).to_dict()
    for doc in (expect, got):
        for side in ("a", "b"):
            assert doc[side].pop("inputs")[0]["records"] == len(rows)
    assert got == expect
