"""Per-problem summaries as pyarrow Tables (docs/summary.md): one row per
(system, subset, problem), the header (format version, reading options,
inputs, malformed rows, counters) in the schema metadata under
``rollstat_summary``. The extension converts summaries to and from Arrow
itself (``Summary::to_arrow`` / ``from_arrow``) and hands them over through
the Arrow C stream interface; no JSON in between."""

from __future__ import annotations

from typing import Any

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


def table_of(summary: Any) -> Any:
    """A summary from the extension (``_rollstat.SummaryTable``, or its JSON
    Lines text) as a pyarrow Table: the extension's own Arrow conversion,
    through the Arrow C stream interface."""
    pa = _pa()
    if isinstance(summary, str):
        from . import _rollstat

        summary = _rollstat.summary_from_jsonl(summary)
    return pa.table(summary)


def is_summary(data: Any) -> bool:
    """Whether ``data`` is a pyarrow Table carrying a summary header."""
    if _module(data) != "pyarrow":
        return False  # (a polars LazyFrame would resolve its schema)
    meta = getattr(getattr(data, "schema", None), "metadata", None)
    return bool(meta) and HEADER_KEY in meta


def _module(x: Any) -> str:
    return type(x).__module__.split(".")[0]
