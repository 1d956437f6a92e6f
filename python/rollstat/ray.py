"""Per-problem summaries computed inside Ray Data: each group of rows is
summarized by a Ray task, and only the summaries travel to the driver, where
:func:`collect` joins them into the summary table :func:`rollstat.report`
reads — the numbers of the rows read in one process.

>>> import ray, rollstat, rollstat.ray                     # doctest: +SKIP
>>> parts = ds.groupby("problem").map_groups(
...     rollstat.ray.summarize_groups, batch_format="pyarrow")  # doctest: +SKIP
>>> rollstat.report(rollstat.ray.collect(parts))           # doctest: +SKIP

Rows need a ``rollout`` column when a problem has several: the engine does
not keep the order of rows inside a group. Importing this module does not
import ray; :func:`collect` does.
"""

from __future__ import annotations

from typing import Any, Callable

from ._parts import assemble, optional, summarizer

__all__ = ["collect", "summarize_groups", "summarizer_for"]

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
