"""Summary tables and Parquet summary files are one format (docs/summary.md,
*Arrow / Parquet*): a table from rollstat.summarize written by pyarrow is
read by the CLI, a .parquet the CLI wrote and pyarrow reads is a summary
table rollstat.report accepts, with the numbers of the rows either way; the
Rust-built table is the table the JSON Lines rows make."""

from __future__ import annotations

import json

import pytest
from conftest import write_jsonl
from test_summary import rows_of, shards_of, without_inputs

import rollstat
from rollstat._summary import HEADER_KEY, schema

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")


def table_from_jsonl(text: str):
    """The summary table as JSON Lines rows make it, without the extension:
    absent keys null, the header line in the schema metadata."""
    lines = [line for line in text.splitlines() if line.strip()]
    rows = [json.loads(line) for line in lines[1:]]
    for r in rows:
        r.setdefault("numbered_by_arrival", False)
    t = pa.Table.from_pylist(rows, schema=schema())
    return t.replace_schema_metadata({HEADER_KEY: lines[0].encode("utf-8")})


def test_the_table_is_the_one_its_json_lines_rows_make(cli, tmp_path):
    rows = rows_of(7)
    path = write_jsonl(tmp_path / "rows.jsonl", rows)
    cli.run("summarize", path, "-o", tmp_path / "s.jsonl", "--by", "group")
    expect = table_from_jsonl((tmp_path / "s.jsonl").read_text(encoding="utf-8"))
    got = rollstat.summarize(str(path), by="group")
    assert got.schema == expect.schema
    assert got.schema.metadata == expect.schema.metadata
    assert got.equals(expect)
    # merge's table too (a problem split across shards).
    parts = [rollstat.summarize(s) for s in shards_of(rows, 4)]
    merged = rollstat.merge(parts)
    for i, s in enumerate(shards_of(rows, 4)):
        write_jsonl(tmp_path / f"s{i}.jsonl", s)
        cli.run("summarize", tmp_path / f"s{i}.jsonl", "-o", tmp_path / f"p{i}.jsonl")
    cli.run("merge", *[tmp_path / f"p{i}.jsonl" for i in range(3)], "-o", tmp_path / "m.jsonl")
    expect = table_from_jsonl((tmp_path / "m.jsonl").read_text(encoding="utf-8"))
    assert merged.schema == expect.schema
    assert [r["verdicts"] for r in merged.to_pylist()] == [r["verdicts"] for r in expect.to_pylist()]
    assert merged.drop_columns(["origin"]).equals(expect.drop_columns(["origin"]))
    # (origins name `<data>` in one and the shard files in the other)


def test_a_table_written_by_pyarrow_is_read_by_the_cli(cli, tmp_path):
    rows = rows_of(8)
    shards = shards_of(rows, 5)
    parts = [rollstat.summarize(s, dedupe="last") for s in shards]
    pq.write_table(parts[0], tmp_path / "p0.parquet")
    pq.write_table(rollstat.merge(parts[1:]), tmp_path / "p12.parquet")
    write_jsonl(tmp_path / "all.jsonl", [r for s in shards for r in s])
    cli.run("merge", tmp_path / "p0.parquet", tmp_path / "p12.parquet", "-o", tmp_path / "m.parquet")
    opts = ["--per-problem", "--resamples", "300", "--dedupe", "last"]
    from_parts = cli.json("report", tmp_path / "m.parquet", *opts)
    from_rows = cli.json("report", tmp_path / "all.jsonl", *opts)
    assert without_inputs(from_parts) == without_inputs(from_rows)
    assert [i["path"] for i in from_parts["inputs"]] == ["<data>"] * 3


def test_a_cli_parquet_read_by_pyarrow_is_a_summary_table(cli, demo, tmp_path):
    cli.run("summarize", demo, "-o", tmp_path / "s.parquet")
    table = pq.read_table(tmp_path / "s.parquet")
    assert table.schema == schema().with_metadata(table.schema.metadata)
    header = json.loads(table.schema.metadata[HEADER_KEY])
    assert header["inputs"][0]["path"] == str(demo)
    from_table = rollstat.report(table, resamples=300).to_dict()
    from_cli = cli.json("report", demo, "--resamples", "300")
    # The table keeps the input it was made from: only wording differs.
    assert without_inputs(from_table) == without_inputs(from_cli)
    assert from_table["inputs"] == from_cli["inputs"]
    # And the Python API reads the file by its path too.
    assert rollstat.report(str(tmp_path / "s.parquet"), resamples=300).to_dict() == from_table


def test_a_parquet_of_another_version_is_refused_with_the_reason(cli, tmp_path):
    t = rollstat.summarize([{"problem": "p", "rollout": 0, "correct": True}])
    header = json.loads(t.schema.metadata[HEADER_KEY])
    header["rollstat_summary"] = 2
    v2 = t.replace_schema_metadata({HEADER_KEY: json.dumps(header)})
    pq.write_table(v2, tmp_path / "v2.parquet")
    p = cli.run("report", tmp_path / "v2.parquet", ok=False)
    assert p.returncode == 2
    assert "v2.parquet: summary format version 2; this rollstat reads version 1" in p.stderr
    assert "panicked" not in p.stderr
    with pytest.raises(rollstat.InputError, match="summary format version 2"):
        rollstat.report(v2)
    with pytest.raises(rollstat.InputError, match=r"tables\[1\]: .*version 2"):
        rollstat.merge([t, v2])


def test_a_bad_summary_table_names_the_row(tmp_path):
    t = rollstat.summarize([{"problem": "p", "rollout": i, "correct": i == 0} for i in range(3)])
    bad = t.set_column(t.schema.get_field_index("verdicts"), "verdicts", pa.array(["cxw"]))
    with pytest.raises(rollstat.InputError, match=r"row 1 \(problem 'p'\): verdict 'x' is not c, w or f"):
        rollstat.report(bad)
    short = t.set_column(t.schema.get_field_index("answer"), "answer", pa.array([[0]], pa.list_(pa.int64())))
    with pytest.raises(rollstat.InputError, match="one entry per verdict"):
        rollstat.merge([short])


def test_other_physical_types_of_the_same_values_read_alike():
    t = rollstat.summarize(rows_of(9))

    def wider(ty):
        if pa.types.is_list(ty):
            inner = ty.value_type
            return pa.large_list(pa.int32() if pa.types.is_integer(inner) else wider(inner))
        if pa.types.is_string(ty):
            return pa.large_string()
        return pa.int64() if pa.types.is_unsigned_integer(ty) else ty

    other = pa.schema([pa.field(f.name, wider(f.type)) for f in t.schema], metadata=t.schema.metadata)
    cast = t.cast(other)
    assert cast.schema.field("answers").type == pa.large_list(pa.large_string())
    assert rollstat.merge([cast]).equals(t)
    assert rollstat.report(cast, ci=None).to_dict() == rollstat.report(t, ci=None).to_dict()
