"""Per-problem summaries as pyarrow Tables (docs/summary.md): one row per
(system, subset, problem), the header (format version, reading options,
inputs, malformed rows, counters) in the schema metadata under
``rollstat_summary``. The extension speaks the JSON Lines form; these
helpers convert between it and Arrow."""

from __future__ import annotations

import json
from typing import Any, Dict, List

HEADER_KEY = b"rollstat_summary"


def _pa() -> Any:
    try:
        import pyarrow as pa
    except ImportError:
        raise ImportError("rollstat.summarize and rollstat.merge return pyarrow Tables: pip install pyarrow") from None
    return pa


def schema() -> Any:
    """The Arrow schema of a summary table (without its metadata)."""
    pa = _pa()
    return pa.schema(
        [
            ("system", pa.string()),
            ("subset", pa.string()),
            ("problem", pa.string()),
            ("by", pa.string()),
            ("cluster", pa.string()),
            ("origin", pa.string()),
            ("n", pa.uint64()),
            ("c", pa.uint64()),
            ("index", pa.list_(pa.uint64())),
            ("verdicts", pa.string()),
            ("answers", pa.list_(pa.string())),
            ("answer", pa.list_(pa.int64())),
            ("truncated", pa.list_(pa.uint64())),
            ("score", pa.list_(pa.float64())),
            ("budget", pa.list_(pa.float64())),
            ("numbered_by_arrival", pa.bool_()),
        ]
    )


def table_of(jsonl: str) -> Any:
    """The summary JSON Lines written by the extension, as a pyarrow Table."""
    pa = _pa()
    lines = [line for line in jsonl.splitlines() if line.strip()]
    header = lines[0]
    rows: List[Dict[str, Any]] = [json.loads(line) for line in lines[1:]]
    s = schema()
    for r in rows:
        r.setdefault("numbered_by_arrival", False)
    table = pa.Table.from_pylist(rows, schema=s)
    return table.replace_schema_metadata({HEADER_KEY: header.encode("utf-8")})


def is_summary(data: Any) -> bool:
    """Whether ``data`` is a pyarrow Table carrying a summary header."""
    if _module(data) != "pyarrow":
        return False  # (a polars LazyFrame would resolve its schema)
    meta = getattr(getattr(data, "schema", None), "metadata", None)
    return bool(meta) and HEADER_KEY in meta


def _module(x: Any) -> str:
    return type(x).__module__.split(".")[0]


def jsonl_of(table: Any) -> str:
    """A summary table back as the JSON Lines the extension reads (absent
    values left out, as the file writes them)."""
    header = table.schema.metadata[HEADER_KEY].decode("utf-8")
    out = [header]
    for row in table.to_pylist():
        kept = {k: v for k, v in row.items() if v is not None and not (k == "numbered_by_arrival" and v is False)}
        out.append(json.dumps(kept, ensure_ascii=False, separators=(",", ":")))
    return "\n".join(out) + "\n"
