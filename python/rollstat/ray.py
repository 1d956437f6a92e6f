"""Per-problem summaries computed inside Ray Data: each group of rows is
summarized by a Ray task, and only the summaries travel to the driver, where
:func:`collect` joins them into the summary table :func:`rollstat.report`
reads — the numbers of the rows read in one process.

>>> import ray, rollstat, rollstat.ray                     # doctest: +SKIP
>>> parts = ds.groupby("problem").map_groups(
...     rollstat.ray.summarize_groups, batch_format="pyarrow")  # doctest: +SKIP
>>> rollstat.report(rollstat.ray.collect(parts))           # doctest: +SKIP

Without the shuffle, :func:`summarize` runs the aggregation
:func:`summary_aggregation` (an ``AggregateFnV2``): each block is summarized
and the block summaries are combined with ``rollstat.merge``, which joins a
problem split across blocks exactly.

Rows need a ``rollout`` column when a problem has several: the engine does
not keep the order of rows inside a group. Importing this module does not
import ray; :func:`collect` does.
"""

from __future__ import annotations

from typing import Any, Callable

from ._parts import assemble, optional, summarizer, table_of

__all__ = ["collect", "summarize", "summary_aggregation", "summarize_groups", "summarizer_for"]

_default = summarizer("<ray>", {})


def summarize_groups(table: Any) -> Any:
    """The summary part of one group of rows (a ``pyarrow.Table``), for
    ``Dataset.groupby(...).map_groups(summarize_groups, batch_format="pyarrow")``;
    rows are read as :func:`rollstat.report` reads them, with the default
    reading options (see :func:`summarizer_for` for others).

    >>> import pyarrow as pa, rollstat.ray
    >>> rows = pa.table({"problem": ["p", "p"], "rollout": [1, 0], "correct": [True, False]})
    >>> rollstat.ray.summarize_groups(rows).column("verdicts").to_pylist()
    ['wc']
    """
    return _default(table)


def summarizer_for(**reading: Any) -> Callable[[Any], Any]:
    """:func:`summarize_groups` under the reading keywords of
    :func:`rollstat.summarize` (``by``, ``cluster_by``, ``extract``,
    ``match``, ``strict``, ``dedupe``); report the collected summary with
    the same keywords.

    >>> import pyarrow as pa, rollstat.ray
    >>> rows = pa.table({"problem": ["p"], "correct": [True], "level": ["hard"]})
    >>> rollstat.ray.summarizer_for(by="level")(rows).column("by").to_pylist()
    ['hard']
    """
    return summarizer("<ray>", reading)


def collect(parts: Any) -> Any:
    """The summary table (a ``pyarrow.Table``) of a Ray Dataset of summary
    parts — what ``map_groups(summarize_groups, ...)`` returned — brought to
    the driver.
    """
    ray = optional("ray", "rollstat.ray.collect", "ray[data]")
    if not hasattr(parts, "to_arrow_refs"):
        raise TypeError(f"parts: expected a ray.data.Dataset, found {type(parts).__name__}")
    import pyarrow as pa

    tables = [t for t in ray.get(parts.to_arrow_refs()) if t.num_rows]
    if not tables:
        raise ValueError("no summary parts: the dataset had no rows")
    return assemble(pa.concat_tables(tables, promote_options="permissive"), "Ray")


def summary_aggregation(**reading: Any) -> Any:
    """A Ray Data aggregation (``ray.data.aggregate.AggregateFnV2``) named
    ``summary`` whose value is the summary JSON Lines of the dataset: each
    block summarized (reading keywords of :func:`rollstat.summarize`), the
    block summaries combined by ``rollstat.merge``. For
    ``ds.aggregate(summary_aggregation())``; :func:`summarize` wraps it.
    """
    agg = optional("ray.data.aggregate", "rollstat.ray.summary_aggregation", "ray[data]")
    from . import _rollstat, _summarize_jsonl

    class SummaryAggregation(agg.AggregateFnV2):
        def __init__(self) -> None:
            super().__init__("summary", lambda: None, on=None, ignore_nulls=True)

        def aggregate_block(self, block: Any) -> Any:
            if len(block) == 0:
                return None
            return _summarize_jsonl(block, "<ray>", reading)

        def combine(self, current: Any, new: Any) -> Any:
            return _rollstat.merge([current, new]).to_jsonl()

    return SummaryAggregation()


def summarize(ds: Any, **reading: Any) -> Any:
    """The summary table (a ``pyarrow.Table``) of a Ray Dataset's rows,
    computed block by block with :func:`summary_aggregation` (no shuffle);
    in-memory inputs of the blocks count as one input.
    """
    if not hasattr(ds, "aggregate"):
        raise TypeError(f"ds: expected a ray.data.Dataset, found {type(ds).__name__}")
    text = ds.aggregate(summary_aggregation(**reading))["summary"]
    if text is None:
        raise ValueError("no summary: the dataset had no rows")
    return table_of(text, coalesce=True)
