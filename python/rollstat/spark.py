"""Per-problem summaries computed inside Apache Spark (pyspark 4.0 or later,
for ``applyInArrow``): each group of rows is summarized on an executor, and
only the summaries travel to the driver, where :func:`collect` joins them
into the summary table :func:`rollstat.report` reads — the numbers of the
rows read in one process.

>>> import rollstat, rollstat.spark                        # doctest: +SKIP
>>> parts = df.groupBy("problem").applyInArrow(
...     rollstat.spark.summarize_groups, schema=rollstat.spark.SUMMARY_SCHEMA)  # doctest: +SKIP
>>> rollstat.report(rollstat.spark.collect(parts))          # doctest: +SKIP

Without the shuffle, ``df.mapInArrow(rollstat.spark.summarize_partitions,
schema=rollstat.spark.SUMMARY_SCHEMA)`` summarizes each partition as it is
(one engine call per partition, not per problem) and :func:`collect` joins
the problems split across partitions exactly.

Rows need a ``rollout`` column when a problem has several: Spark does not
keep the order of rows inside a group. Importing this module does not
import pyspark; :func:`collect` does.
"""

from __future__ import annotations

from typing import Any, Callable, Iterator

from ._parts import assemble, merge_partition, optional, spark_ddl, summarizer

__all__ = [
    "SUMMARY_SCHEMA",
    "collect",
    "merge_partitions",
    "partition_merger_for",
    "partition_summarizer_for",
    "summarize_groups",
    "summarize_partitions",
    "summarizer_for",
]

#: The schema of what :func:`summarize_groups` returns, as a Spark DDL
#: string: the summary columns (docs/summary.md) and ``header``.
SUMMARY_SCHEMA: str = spark_ddl()

_default = summarizer("<spark>", {})


def summarize_groups(table: Any) -> Any:
    """The summary part of one group of rows (a ``pyarrow.Table``), for
    ``GroupedData.applyInArrow(summarize_groups, schema=SUMMARY_SCHEMA)``;
    rows are read as :func:`rollstat.report` reads them, with the default
    reading options (see :func:`summarizer_for` for others).

    >>> import pyarrow as pa, rollstat.spark
    >>> rows = pa.table({"problem": ["p", "p"], "rollout": [0, 1], "correct": [True, False]})
    >>> rollstat.spark.summarize_groups(rows).column("verdicts").to_pylist()
    ['cw']
    """
    return _default(table)


def summarizer_for(**reading: Any) -> Callable[[Any], Any]:
    """:func:`summarize_groups` under the reading keywords of
    :func:`rollstat.summarize` (``by``, ``cluster_by``, ``extract``,
    ``match``, ``strict``, ``dedupe``); report the collected summary with
    the same keywords.

    >>> import pyarrow as pa, rollstat.spark
    >>> rows = pa.table({"problem": ["p"], "correct": [True], "level": ["hard"]})
    >>> rollstat.spark.summarizer_for(by="level")(rows).column("by").to_pylist()
    ['hard']
    """
    return summarizer("<spark>", reading)


def partition_summarizer_for(**reading: Any) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """:func:`summarize_partitions` under the reading keywords of
    :func:`rollstat.summarize`.

    >>> import pyarrow as pa, rollstat.spark
    >>> rows = pa.table({"problem": ["p"], "correct": [True], "level": ["hard"]})
    >>> f = rollstat.spark.partition_summarizer_for(by="level")
    >>> [b.column(3).to_pylist() for b in f(iter(rows.to_batches()))]
    [['hard']]
    """
    summarize = summarizer("<spark>", reading)

    def summarize_partition(batches: Iterator[Any]) -> Iterator[Any]:
        return _partitions(summarize, batches)

    return summarize_partition


def summarize_partitions(batches: Iterator[Any]) -> Iterator[Any]:
    """The summary part of one partition's rows, for
    ``df.mapInArrow(summarize_partitions, schema=SUMMARY_SCHEMA)``: no
    shuffle, one engine call per partition instead of per problem; a
    problem split across partitions is joined exactly by :func:`collect`
    (``rollstat.merge``). Default reading options; see :func:`summarizer_for`.

    >>> import pyarrow as pa, rollstat.spark
    >>> rows = pa.table({"problem": ["p", "q"], "rollout": [0, 0], "correct": [True, False]})
    >>> [b.num_rows for b in rollstat.spark.summarize_partitions(iter(rows.to_batches()))]
    [2]
    """
    return _partitions(_default, batches)


def _partitions(summarize: Callable[[Any], Any], batches: Iterator[Any]) -> Iterator[Any]:
    import pyarrow as pa

    rows = list(batches)
    if rows:
        yield from summarize(pa.Table.from_batches(rows)).to_batches()


def merge_partitions(batches: Iterator[Any]) -> Iterator[Any]:
    """Summary parts with every piece of a problem in one partition joined
    into one part row, inside Spark: ``parts.repartition(N, "problem")
    .mapInArrow(merge_partitions, schema=SUMMARY_SCHEMA)``. Only the summary
    rows are shuffled (not the rollouts), and :func:`collect` then brings one
    row per problem to the driver instead of one per piece — the driver's
    memory and merge time grow with problems, not with partitions. The
    partition's headers travel combined on its first row (a row with no
    problem when the partition has none).

    >>> import pyarrow as pa, rollstat.spark
    >>> rows = pa.table({"problem": ["p", "p", "q"], "rollout": [0, 1, 0], "correct": [True, False, True]})
    >>> pieces = [b for part in (rows.slice(0, 1), rows.slice(1)) for b in
    ...           rollstat.spark.summarize_partitions(iter(part.to_batches()))]
    >>> [b.column("verdicts").to_pylist() for b in rollstat.spark.merge_partitions(iter(pieces))]
    [['cw', 'c']]
    """
    return iter(merge_partition("<spark>", {}, batches, "Spark"))


def partition_merger_for(**reading: Any) -> Callable[[Iterator[Any]], Iterator[Any]]:
    """:func:`merge_partitions` for parts summarized under the reading
    keywords of :func:`rollstat.summarize` (those of
    :func:`partition_summarizer_for` or :func:`summarizer_for`).

    >>> import pyarrow as pa, rollstat.spark
    >>> rows = pa.table({"problem": ["p", "p"], "rollout": [0, 1], "correct": [True, False], "level": ["hard"] * 2})
    >>> summarize = rollstat.spark.partition_summarizer_for(by="level")
    >>> pieces = [b for i in (0, 1) for b in summarize(iter(rows.slice(i, 1).to_batches()))]
    >>> merge = rollstat.spark.partition_merger_for(by="level")
    >>> [b.column("verdicts").to_pylist() for b in merge(iter(pieces))]
    [['cw']]
    """

    def merge(batches: Iterator[Any]) -> Iterator[Any]:
        return iter(merge_partition("<spark>", reading, batches, "Spark"))

    return merge


def collect(parts: Any) -> Any:
    """The summary table (a ``pyarrow.Table``) of a Spark DataFrame of
    summary parts — what ``applyInArrow(summarize_groups, ...)`` returned —
    brought to the driver (``DataFrame.toArrow``, pyspark 4.0+).
    """
    optional("pyspark", "rollstat.spark.collect", "pyspark>=4")
    if not hasattr(parts, "toArrow"):
        raise TypeError(f"parts: expected a pyspark DataFrame (pyspark 4.0 or later), found {type(parts).__name__}")
    return assemble(parts.toArrow(), "Spark")
