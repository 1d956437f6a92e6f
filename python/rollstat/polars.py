"""Per-problem summaries computed group by group in Polars: each group of
rows becomes a summary part (``group_by(...).map_groups``), and
:func:`collect` joins the parts into the summary table
:func:`rollstat.report` reads — the numbers of the rows read whole.

>>> import polars as pl, rollstat, rollstat.polars
>>> df = pl.DataFrame({"problem": ["a", "a", "b"], "rollout": [0, 1, 0], "correct": [True, False, True]})
>>> parts = df.group_by("problem").map_groups(rollstat.polars.summarize_groups)
>>> rollstat.report(rollstat.polars.collect(parts), ci=None).metrics["pass@1"]["value"]
0.75

Rows need a ``rollout`` column when a problem has several: groups do not
keep the order of rows.
"""

from __future__ import annotations

from typing import Any, Callable

from ._parts import assemble, optional, summarizer

__all__ = ["collect", "summarize_groups", "summarizer_for"]


def _frame(part_of: Callable[[Any], Any]) -> Callable[[Any], Any]:
    pl = optional("polars", "rollstat.polars", "polars")

    def summarize_group(df: Any) -> Any:
        return pl.from_arrow(part_of(df))

    return summarize_group


def summarize_groups(df: Any) -> Any:
    """The summary part of one group of rows (a ``polars.DataFrame``), for
    ``group_by(...).map_groups(summarize_groups)``; rows are read as
    :func:`rollstat.report` reads them, with the default reading options
    (see :func:`summarizer_for` for others).

    >>> import polars as pl, rollstat.polars
    >>> rows = pl.DataFrame({"problem": ["p", "p"], "rollout": [0, 1], "correct": [True, False]})
    >>> rollstat.polars.summarize_groups(rows)["verdicts"].to_list()
    ['cw']
    """
    return _frame(summarizer("<polars>", {}))(df)


def summarizer_for(**reading: Any) -> Callable[[Any], Any]:
    """:func:`summarize_groups` under the reading keywords of
    :func:`rollstat.summarize` (``by``, ``cluster_by``, ``extract``,
    ``match``, ``strict``, ``dedupe``); report the collected summary with
    the same keywords.

    >>> import polars as pl, rollstat.polars
    >>> rows = pl.DataFrame({"problem": ["p"], "correct": [True], "level": ["hard"]})
    >>> rollstat.polars.summarizer_for(by="level")(rows)["by"].to_list()
    ['hard']
    """
    return _frame(summarizer("<polars>", reading))


def collect(parts: Any) -> Any:
    """The summary table (a ``pyarrow.Table``) of a Polars DataFrame of
    summary parts — what ``map_groups(summarize_groups)`` returned."""
    if not hasattr(parts, "to_arrow"):
        raise TypeError(f"parts: expected a polars DataFrame, found {type(parts).__name__}")
    return assemble(parts.to_arrow(), "Polars")
