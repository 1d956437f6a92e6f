"""Summary parts: what an engine adapter (``rollstat.spark``, ``rollstat.ray``,
``rollstat.polars``) emits for one group of rows, and how the driver joins
the parts into one summary table (docs/summary.md, *Engines*).

An engine keeps no per-table metadata, so a part carries its summary header
as a column: a part is the group's summary rows plus ``header`` (the
group's header JSON on the part's first row, null on the others); a group
whose rows were all malformed still emits one row, ``problem`` null, to
carry its header. Integer columns are signed (``int64``), as Spark's types
are."""

from __future__ import annotations

import functools
import json
from collections import Counter
from typing import Any, Callable, Dict, List

from ._summary import HEADER_KEY, schema
from ._summary import table_of as summary_table

HEADER_COLUMN = "header"
# The summary columns whose Arrow type is unsigned in a summary table and
# signed in a part.
_UNSIGNED = {"n", "c", "index", "truncated"}


def _pa() -> Any:
    from ._summary import _pa as pa

    return pa()


@functools.lru_cache(maxsize=None)
def part_schema() -> Any:
    """The Arrow schema of a part: the summary columns with signed integers,
    then ``header``."""
    pa = _pa()
    fields = []
    for f in schema():
        t = f.type
        if pa.types.is_list(t) and pa.types.is_unsigned_integer(t.value_type):
            t = pa.list_(pa.int64())
        elif pa.types.is_unsigned_integer(t):
            t = pa.int64()
        fields.append(pa.field(f.name, t))
    fields.append(pa.field(HEADER_COLUMN, pa.string()))
    return pa.schema(fields)


def spark_ddl() -> str:
    """:func:`part_schema` as a Spark DDL string (what ``applyInArrow``
    takes as its ``schema``)."""
    names = {"string": "string", "int64": "bigint", "double": "double", "bool": "boolean"}
    cols = []
    for f in part_schema():
        t = f.type
        if hasattr(t, "value_type"):
            kind = f"array<{names[str(t.value_type)]}>"
        else:
            kind = names[str(t)]
        cols.append(f"`{f.name}` {kind}")
    return ", ".join(cols)


def summarizer(name: str, reading: Dict[str, Any]) -> Callable[[Any], Any]:
    """A function from one group's rows (an Arrow table) to its part, the
    rows read under the reading keywords of :func:`rollstat.summarize` and
    named ``name`` in the header's inputs and in messages."""
    from . import _summarize

    def summarize_group(table: Any) -> Any:
        return part_of(_summarize(table, name, reading))

    return summarize_group


def part_of(summary: Any) -> Any:
    """The summary of one group (the extension's ``SummaryTable``, or its
    JSON Lines text) as a part table. The columns come through the
    extension's Arrow conversion, not a JSON round trip per row: at a
    partition of 50M rollouts that round trip was most of the executor's
    time."""
    pa = _pa()
    table = summary_table(summary)
    header = table.schema.metadata[HEADER_KEY].decode("utf-8")
    target = part_schema()
    if table.num_rows == 0:
        return pa.Table.from_pylist([{"numbered_by_arrival": False, HEADER_COLUMN: header}], schema=target)
    columns = [table.column(f.name).cast(f.type) for f in target if f.name != HEADER_COLUMN]
    arrival = target.get_field_index("numbered_by_arrival")
    columns[arrival] = columns[arrival].fill_null(False)
    headers = pa.concat_arrays([pa.array([header], pa.string()), pa.nulls(table.num_rows - 1, pa.string())])
    return pa.Table.from_arrays([*columns, headers], schema=target)


def assemble(parts: Any, engine: str) -> Any:
    """The summary table of every part in ``parts`` (an Arrow table of
    :func:`part_schema` columns, in any order): headers combined as
    ``merge`` combines them, in-memory inputs of one name counted as one
    input; a problem present in several parts (grouped by something other
    than the problem) is joined by ``rollstat.merge``."""
    pa = _pa()
    names = set(parts.schema.names)
    if HEADER_COLUMN not in names or "problem" not in names:
        raise ValueError(
            f"not summary parts (no {HEADER_COLUMN!r} column): pass what rollstat.{engine}.summarize_groups returned"
        )
    headers = [json.loads(h) for h in parts.column(HEADER_COLUMN).to_pylist() if h is not None]
    if not headers:
        raise ValueError("no summary parts: the data had no rows")
    header = combine_headers(headers)
    rows = parts.filter(parts.column("problem").is_valid()).drop_columns([HEADER_COLUMN])
    rows = rows.select(schema().names).cast(schema())
    _refuse_arrival_order(rows, engine)
    keys = Counter(zip(*(rows.column(k).to_pylist() for k in ("system", "subset", "problem"))))
    if all(n == 1 for n in keys.values()):
        return _with_header(rows, header)
    return _join_repeated(rows, header, pa)


def table_of(jsonl: str, coalesce: bool = False) -> Any:
    """Summary JSON Lines as a summary table; with ``coalesce``, in-memory
    inputs of one name and format counted as one input."""
    if not coalesce:
        return summary_table(jsonl)
    first, _, rest = jsonl.partition("\n")
    header = combine_headers([json.loads(first)])
    return summary_table(json.dumps(header, ensure_ascii=False, separators=(",", ":")) + "\n" + rest)


def combine_headers(headers: List[Dict[str, Any]]) -> Dict[str, Any]:
    """One header for parts read under the same options: inputs, malformed
    rows and findings concatenated (in-memory inputs of one name and format
    summed into one), counters added — as ``merge`` adds them."""
    first = headers[0]
    for h in headers[1:]:
        if h["reading"] != first["reading"]:
            raise ValueError(
                f"the parts were made under different reading options ({first['reading']} and {h['reading']}); "
                "summarize every group with the same options"
            )
    out: Dict[str, Any] = {"rollstat_summary": first["rollstat_summary"], "reading": first["reading"]}
    out["inputs"] = _inputs([i for h in headers for i in h["inputs"]])
    out["bad_lines"] = [b for h in headers for b in h["bad_lines"]]
    for k in ("n_duplicate_rollouts", "n_graded", "n_grading_undecided"):
        out[k] = sum(h.get(k, 0) for h in headers)
    for k in ("notes", "unreadable_files", "skipped_files", "messages"):
        # The same finding from many groups is said once.
        seen = _unique(x for h in headers for x in h.get(k, []))
        if seen:
            out[k] = seen
    return out


def _unique(xs: Any) -> List[Any]:
    out: List[Any] = []
    seen = set()
    for x in xs:
        key = json.dumps(x)
        if key not in seen:
            seen.add(key)
            out.append(x)
    return out


def _inputs(inputs: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """Inputs in order; in-memory rows (no sha256) of one name and format
    become one input with their records added."""
    out: List[Dict[str, Any]] = []
    at: Dict[Any, int] = {}
    for i in inputs:
        key = (i["path"], i["format"]) if not i["sha256"] else None
        if key is not None and key in at:
            out[at[key]]["records"] += i["records"]
            continue
        if key is not None:
            at[key] = len(out)
        out.append(dict(i))
    return out


def _refuse_arrival_order(rows: Any, engine: str) -> None:
    """A problem with several rollouts numbered by arrival: the engine does
    not keep row order inside a group, so that numbering is arbitrary."""
    arrival = rows.column("numbered_by_arrival").to_pylist()
    verdicts = rows.column("verdicts").to_pylist()
    for i, (by_arrival, v) in enumerate(zip(arrival, verdicts)):
        if by_arrival and v is not None and len(v) > 1:
            problem = rows.column("problem")[i].as_py()
            raise ValueError(
                f"problem {problem!r}: {len(v)} rollouts without a rollout index; {engine} does not keep the "
                "order of rows inside a group, so number them first (a `rollout` column)"
            )


def _with_header(rows: Any, header: Dict[str, Any]) -> Any:
    text = json.dumps(header, ensure_ascii=False, separators=(",", ":"))
    return rows.replace_schema_metadata({HEADER_KEY: text.encode("utf-8")})


def _join_repeated(rows: Any, header: Dict[str, Any], pa: Any) -> Any:
    """Rows with repeated (system, subset, problem) keys joined by
    ``rollstat.merge``: the k-th copy of every key goes to part k, the first
    part carries the combined header, the others an empty one."""
    from . import merge

    keys = zip(*(rows.column(k).to_pylist() for k in ("system", "subset", "problem")))
    seen: Counter = Counter()
    copy: List[int] = []
    for key in keys:
        copy.append(seen[key])
        seen[key] += 1
    import pyarrow.compute as pc

    copies = pa.array(copy)
    empty = empty_header(header)
    tables: List[Any] = []
    for k in range(max(copy) + 1):
        part = rows.filter(pc.equal(copies, k))
        tables.append(_with_header(part, header if k == 0 else empty))
    return merge(tables)


def empty_header(header: Dict[str, Any]) -> Dict[str, Any]:
    """``header`` with nothing read: its version and reading options, no
    inputs, no malformed rows, zero counters, no findings — what
    :func:`combine_headers` adds nothing from."""
    empty = {**header, "inputs": [], "bad_lines": [], "n_duplicate_rollouts": 0, "n_graded": 0}
    empty["n_grading_undecided"] = 0
    for k in ("notes", "unreadable_files", "skipped_files", "messages"):
        empty.pop(k, None)
    return empty


def reading_header(name: str, reading: Dict[str, Any]) -> str:
    """The empty header (:func:`empty_header`) of parts summarized under
    ``reading``, as JSON text: the reading options exactly as a part
    carries them."""
    from . import _summarize

    probe = _pa().table({"problem": ["probe"], "correct": [True]})
    first = _summarize(probe, name, reading).to_jsonl().partition("\n")[0]
    return json.dumps(empty_header(json.loads(first)), ensure_ascii=False, separators=(",", ":"))


def merge_partition(name: str, reading: Dict[str, Any], batches: Any, engine: str) -> Any:
    """The parts in ``batches`` (one partition, every piece of each of its
    problems present) with each problem's pieces joined into one part row,
    the partition's headers combined on the first row. A partition may hold
    no header (the rows that carried one went elsewhere), so an empty header
    of the same reading options joins it: the join needs the options."""
    pa = _pa()
    rows = list(batches)
    if not rows:
        return []
    carrier = {"numbered_by_arrival": False, HEADER_COLUMN: reading_header(name, reading)}
    table = pa.concat_tables([pa.Table.from_pylist([carrier], schema=part_schema()), pa.Table.from_batches(rows)])
    return part_of(assemble(table, engine)).to_batches()


def optional(module: str, purpose: str, pip: str) -> Any:
    """Imports ``module`` or raises an ImportError that says what needs it
    and how to install it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"{purpose} needs {module}: pip install '{pip}' ({e})") from None
