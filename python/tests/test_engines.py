"""The engine adapters (rollstat.spark, rollstat.ray, rollstat.polars): rows
summarized group by group inside the engine, collected and reported give
the document of the CLI on the same rows (the reference:
`rollstat report FILE --format json`), whatever the partitioning; and the
README's examples run as written and give the CLI's report of the demo."""

from __future__ import annotations

import json
import os
import random
import re
import sys

import pytest
from conftest import DEMO, ROOT, without_warnings, write_jsonl

import rollstat
import rollstat._parts
import rollstat.polars
import rollstat.ray
import rollstat.spark

pa = pytest.importorskip("pyarrow")
pl = pytest.importorskip("polars")

# The data set: every per-rollout field a metric reads, problems whose rows
# are dealt round-robin into partitions, ids shared by two subsets.
COLUMNS = {
    "problem": pa.string(),
    "subset": pa.string(),
    "model": pa.string(),
    "rollout": pa.int64(),
    "correct": pa.bool_(),
    "answer": pa.string(),
    "finish_reason": pa.string(),
    "output_tokens": pa.int64(),
    "score": pa.float64(),
    "group": pa.string(),
}


def rows_of(seed: int):
    """Rollout rows with subsets, failed rollouts (no verdict), unextracted,
    junk and equivalent answers, truncation, scores, budgets with gaps;
    shuffled."""
    g = random.Random(seed)
    rows = []
    for p in range(24):
        for r in range(3 + g.randrange(10)):
            rows.append(
                {
                    "problem": f"q{p % 16}",
                    "subset": "alpha" if p < 16 else "beta",
                    "model": "m",
                    "rollout": r,
                    "correct": g.choice([True, False, False, None]),
                    "answer": g.choice([None, "1/2", "0.5", "3", "4", "[invalid]"]),
                    "finish_reason": g.choice(["stop"] * 6 + ["length"]),
                    "output_tokens": g.choice([None] + list(range(100, 3000, 53))),
                    "score": g.random(),
                    "group": f"g{p % 3}",
                }
            )
    g.shuffle(rows)
    return rows


def table_of(rows):
    return pa.Table.from_pylist(rows, schema=pa.schema(list(COLUMNS.items())))


OPTIONS = [{}, {"by": "group", "per_problem": True}]
# Spark and Ray jobs take seconds each: they run with reading options only
# (the README examples run them with the defaults).
BY_GROUP = OPTIONS[1]
READING = ("by", "cluster_by", "dedupe")


def cli_report(cli, tmp_path, rows, opts):
    path = tmp_path / "rows.jsonl"
    write_jsonl(path, rows)
    args = ["report", str(path), "--resamples", "300"]
    for k, v in opts.items():
        args += ["--" + k.replace("_", "-")] + ([] if v is True else [str(v)])
    return cli.json(*args)


def same_document(summary, rows, expect, opts):
    """The report of ``summary`` equals the CLI's document ``expect`` but
    for inputs and the findings' wording (flags vs keywords), and equals
    ``rollstat.report`` on the rows but for inputs."""
    got = rollstat.report(summary, resamples=300, **opts).to_dict()
    whole = rollstat.report(table_of(rows), resamples=300, **opts).to_dict()
    for doc in (got, expect, whole):
        doc.pop("inputs")
    assert got == whole
    assert without_warnings(got) == without_warnings(expect)


def reading(opts):
    return {k: v for k, v in opts.items() if k in READING}


# ------------------------------------------------------------------ polars


@pytest.mark.parametrize("opts", OPTIONS)
def test_polars_groups_give_the_cli_report(cli, tmp_path, opts):
    rows = rows_of(1)
    df = pl.from_arrow(table_of(rows))
    parts = df.group_by("problem").map_groups(rollstat.polars.summarizer_for(**reading(opts)))
    same_document(rollstat.polars.collect(parts), rows, cli_report(cli, tmp_path, rows, opts), opts)


def test_groups_that_split_problems_are_merged(cli, tmp_path):
    """Grouped by rollout, every problem is in several parts: they are
    joined exactly (rollstat.merge), as if grouped by problem."""
    rows = rows_of(2)
    parts = pl.from_arrow(table_of(rows)).group_by("rollout").map_groups(rollstat.polars.summarize_groups)
    summary = rollstat.polars.collect(parts)
    assert summary.num_rows == 24
    same_document(summary, rows, cli_report(cli, tmp_path, rows, {}), {})


def test_malformed_rows_are_counted_and_counts_added(cli, tmp_path):
    # Every row has every column (null where unset), as in the Arrow table.
    blank = dict.fromkeys(COLUMNS)
    rows = rows_of(3) + [{**blank, "problem": None, "rollout": 0, "correct": True}]
    rows.append({**blank, "problem": "dup", "rollout": 0, "correct": True})
    rows.append({**blank, "problem": "dup", "rollout": 0, "correct": False})
    df = pl.from_arrow(table_of(rows))
    parts = df.group_by("problem").map_groups(rollstat.polars.summarizer_for(dedupe="first"))
    summary = rollstat.polars.collect(parts)
    header = json.loads(summary.schema.metadata[b"rollstat_summary"])
    assert header["inputs"] == [{"path": "<polars>", "format": "rows", "sha256": "", "records": len(rows)}]
    with pytest.warns(rollstat.RollstatWarning, match="<polars>:1: missing `problem`"):
        got = rollstat.report(summary, ci=None, dedupe="first").to_dict()
    expect = cli_report(cli, tmp_path, rows, {"ci": "none", "dedupe": "first"})
    assert got["health"]["n_bad_lines"] == expect["health"]["n_bad_lines"] == 1
    assert got["health"]["n_duplicate_rollouts"] == expect["health"]["n_duplicate_rollouts"] == 1
    assert got["metrics"] == expect["metrics"]


def test_rollouts_without_an_index_are_refused():
    df = pl.DataFrame({"problem": ["p", "p", "q"], "correct": [True, False, True]})
    parts = df.group_by("problem").map_groups(rollstat.polars.summarize_groups)
    with pytest.raises(ValueError, match="problem 'p': 2 rollouts without a rollout index; Polars"):
        rollstat.polars.collect(parts)


def test_parts_of_different_reading_options_are_refused():
    df = pl.DataFrame({"problem": ["p", "q"], "rollout": [0, 0], "correct": [True, False], "level": ["a", "b"]})
    a = rollstat.polars.summarizer_for(by="level")(df[:1])
    b = rollstat.polars.summarize_groups(df[1:])
    with pytest.raises(ValueError, match="different reading options"):
        rollstat.polars.collect(pl.concat([a, b]))
    with pytest.raises(ValueError, match="not summary parts"):
        rollstat.polars.collect(df)


# ------------------------------------------------------------------- spark


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", minversion="4.0")
    from pyspark.sql import SparkSession

    # Python workers run this interpreter (the venv's), not the first
    # python3 on PATH.
    before = os.environ.get("PYSPARK_PYTHON")
    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local[2]")
        .config("spark.ui.enabled", "false")
        .config("spark.sql.shuffle.partitions", "4")
        .getOrCreate()
    )
    yield session
    session.stop()
    if before is None:
        os.environ.pop("PYSPARK_PYTHON")
    else:
        os.environ["PYSPARK_PYTHON"] = before


def test_spark_groups_give_the_cli_report(spark, cli, tmp_path):
    opts = BY_GROUP
    rows = rows_of(4)
    df = spark.createDataFrame(table_of(rows)).repartition(3)  # round robin: problems split
    summarize = rollstat.spark.summarizer_for(**reading(opts))
    parts = df.groupBy("problem").applyInArrow(summarize, schema=rollstat.spark.SUMMARY_SCHEMA)
    same_document(rollstat.spark.collect(parts), rows, cli_report(cli, tmp_path, rows, opts), opts)


def test_spark_partitions_give_the_cli_report(spark, cli, tmp_path):
    """mapInArrow, no shuffle: every problem is split across partitions and
    joined on the driver."""
    opts = BY_GROUP
    rows = rows_of(6)
    df = spark.createDataFrame(table_of(rows)).repartition(3)
    summarize = rollstat.spark.partition_summarizer_for(**reading(opts))
    parts = df.mapInArrow(summarize, schema=rollstat.spark.SUMMARY_SCHEMA).cache()
    assert parts.filter("problem is not null").count() > 24  # 24 problems, in several parts
    same_document(rollstat.spark.collect(parts), rows, cli_report(cli, tmp_path, rows, opts), opts)


def test_spark_pieces_joined_in_spark_give_the_cli_report(spark, cli, tmp_path):
    """mapInArrow per partition, then the pieces shuffled by problem and
    joined inside Spark: one row per problem reaches the driver. Some
    partitions receive no header row, so the join must bring its own."""
    opts = BY_GROUP
    rows = rows_of(6)
    df = spark.createDataFrame(table_of(rows)).repartition(3)
    summarize = rollstat.spark.partition_summarizer_for(**reading(opts))
    pieces = df.mapInArrow(summarize, schema=rollstat.spark.SUMMARY_SCHEMA)
    merge = rollstat.spark.partition_merger_for(**reading(opts))
    parts = pieces.repartition(5, "problem").mapInArrow(merge, schema=rollstat.spark.SUMMARY_SCHEMA).cache()
    assert parts.filter("problem is not null").count() == 24  # one row per problem
    assert parts.filter("header is not null").count() <= 5  # at most one (combined) header a partition
    same_document(rollstat.spark.collect(parts), rows, cli_report(cli, tmp_path, rows, opts), opts)


# --------------------------------------------------------------------- ray


@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    pytest.importorskip("ray.data")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def test_ray_groups_give_the_cli_report(ray_local, cli, tmp_path):
    opts = BY_GROUP
    rows = rows_of(5)
    ds = ray_local.data.from_arrow(table_of(rows)).repartition(3)
    summarize = rollstat.ray.summarizer_for(**reading(opts))
    parts = ds.groupby("problem").map_groups(summarize, batch_format="pyarrow")
    same_document(rollstat.ray.collect(parts), rows, cli_report(cli, tmp_path, rows, opts), opts)


def test_ray_aggregation_merges_blocks_into_the_cli_report(ray_local, cli, tmp_path):
    """AggregateFnV2 through Ray (which, in local mode on this little data,
    concatenates the three blocks before aggregating them)."""
    opts = BY_GROUP
    rows = rows_of(7)
    ds = ray_local.data.from_arrow([table_of(rows[i::3]) for i in range(3)])
    summary = rollstat.ray.summarize(ds, **reading(opts))
    header = json.loads(summary.schema.metadata[b"rollstat_summary"])
    assert header["inputs"] == [{"path": "<ray>", "format": "rows", "sha256": "", "records": len(rows)}]
    same_document(summary, rows, cli_report(cli, tmp_path, rows, opts), opts)


def test_ray_aggregation_combines_block_summaries_exactly(cli, tmp_path):
    """The aggregation's own steps, as Ray calls them on separate blocks:
    every problem is split across the three blocks and joined by combine."""
    pytest.importorskip("ray.data")
    opts = BY_GROUP
    rows = rows_of(8)
    agg = rollstat.ray.summary_aggregation(**reading(opts))
    acc = None
    for i in range(3):
        part = agg.aggregate_block(table_of(rows[i::3]))
        acc = part if acc is None else agg.combine(acc, part)
    assert len(json.loads(acc.partition("\n")[0])["inputs"]) == 3
    summary = rollstat._parts.table_of(agg.finalize(acc), coalesce=True)
    same_document(summary, rows, cli_report(cli, tmp_path, rows, opts), opts)


# ------------------------------------------------------------------ README


def readme_example(engine: str) -> str:
    """The README's Python block that imports rollstat.<engine>."""
    text = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    found = [b for b in blocks if f"import rollstat.{engine}" in b or f"rollstat, rollstat.{engine}" in b]
    assert len(found) == 1, f"README: {len(found)} examples for rollstat.{engine}"
    return found[0]


@pytest.mark.parametrize("engine", ["polars", "spark", "ray"])
def test_readme_examples_run_as_written(engine, cli, request, monkeypatch, capsys):
    if engine != "polars":
        request.getfixturevalue("spark" if engine == "spark" else "ray_local")
    monkeypatch.chdir(ROOT)
    scope: dict = {}
    exec(compile(readme_example(engine), f"README.md ({engine})", "exec"), scope)
    got = scope["report"].to_dict()
    expect = cli.json("report", str(DEMO))
    whole = rollstat.report(str(DEMO)).to_dict()
    for doc in (got, expect, whole):
        doc.pop("inputs")
    assert got == whole
    assert without_warnings(got) == without_warnings(expect)
    assert "pass@1" in capsys.readouterr().out


# ------------------------------------------------------------ optional imports


def test_the_adapters_import_no_engine():
    import subprocess

    code = "import sys, rollstat, rollstat.spark, rollstat.ray; print(sorted({'pyspark', 'ray'} & set(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize(
    "module, needs",
    [
        (rollstat.spark, "rollstat.spark.collect needs pyspark: pip install 'pyspark>=4'"),
        (rollstat.ray, "rollstat.ray.collect needs ray: pip install 'ray[data]'"),
    ],
)
def test_a_missing_engine_is_named_with_its_install_command(monkeypatch, module, needs):
    monkeypatch.setitem(sys.modules, needs.split(" needs ")[1].split(":")[0], None)  # import fails
    with pytest.raises(ImportError, match=re.escape(needs)):
        module.collect(object())
