"""Spark local path of the scale benchmark (issue #15, BENCHMARKS.md §11).

Reads the Parquet shards written by `bench/scale.py shards` with pyspark in local mode, summarizes inside Spark
(`mapInArrow` per partition, then either the pieces of each problem
joined on the driver or — `joined` — shuffled by problem and joined inside Spark with `merge_partitions`; or
`groupBy("problem").applyInArrow` per problem), brings the summary parts to the
driver (`rollstat.spark.collect`) and makes the report there. Prints one TSV line per step (label, wall seconds)
and, at the end, the driver's peak RSS (this Python process) and the Spark JVM's peak RSS (VmHWM of the java
child, which in local mode also runs the executors).

Usage: python bench/spark_scale.py SHARD_DIR OUT.json [--mode partitions|joined|groups] [--ci none|bootstrap]
                                   [--master local[2]] [--shuffle-partitions N]
                                   [--driver-memory 8g] [--max-result-size 6g]
"""

import argparse
import os
import resource
import sys
import time
from pathlib import Path


def java_children():
    """Pids of this process's java children (the Spark JVM started by pyspark)."""
    me = str(os.getpid())
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            stat = (d / "stat").read_text()
            ppid = stat.rsplit(")", 1)[1].split()[1]
            if ppid == me and "java" in (d / "comm").read_text():
                out.append(d)
        except OSError:
            continue
    return out


def peak_mb(proc_dir):
    for line in (proc_dir / "status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) // 1024
    return -1


def main(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("shards")
    ap.add_argument("out")
    ap.add_argument("--mode", choices=["partitions", "joined", "groups"], default="partitions")
    ap.add_argument("--ci", default="none")
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--shuffle-partitions", type=int, default=8)
    ap.add_argument("--driver-memory", default="8g")
    # Spark refuses to send the driver more than 1 GiB of task results by default; the summary parts of
    # 100M rollouts (n = 64, answers) split over 2 partitions are ≈ 2 GiB.
    ap.add_argument("--max-result-size", default="6g")
    args = ap.parse_args(argv)

    # The Python workers must import the same rollstat as the driver.
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    import rollstat
    import rollstat.spark
    from pyspark.sql import SparkSession

    t0 = time.perf_counter()
    spark = (
        SparkSession.builder.master(args.master)
        .config("spark.driver.memory", args.driver_memory)
        .config("spark.driver.maxResultSize", args.max_result_size)
        .config("spark.sql.shuffle.partitions", str(args.shuffle_partitions))
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "100000")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    t1 = time.perf_counter()
    print(f"spark session\t{t1 - t0:.1f}", flush=True)
    df = spark.read.parquet(*sorted(str(p) for p in Path(args.shards).glob("shard-*.parquet")))
    schema = rollstat.spark.SUMMARY_SCHEMA
    if args.mode == "partitions":
        parts = df.mapInArrow(rollstat.spark.summarize_partitions, schema=schema)
    elif args.mode == "joined":
        pieces = df.mapInArrow(rollstat.spark.summarize_partitions, schema=schema)
        parts = pieces.repartition(args.shuffle_partitions, "problem").mapInArrow(
            rollstat.spark.merge_partitions, schema=schema
        )
    else:
        parts = df.groupBy("problem").applyInArrow(rollstat.spark.summarize_groups, schema=schema)
    summary = rollstat.spark.collect(parts)
    t2 = time.perf_counter()
    print(f"summarize in Spark + collect ({args.mode}), {summary.num_rows} problems\t{t2 - t1:.1f}", flush=True)
    jvm = java_children()
    jvm_mb = max((peak_mb(p) for p in jvm), default=-1)
    report = rollstat.report(summary, ci=args.ci)
    t3 = time.perf_counter()
    print(f"report on the driver (ci={args.ci})\t{t3 - t2:.1f}", flush=True)
    Path(args.out).write_text(report.to_json())
    spark.stop()
    driver_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    print(f"total\t{t3 - t0:.1f}")
    print(f"driver (python) peak RSS MB\t{driver_mb}")
    print(f"spark JVM peak RSS MB\t{jvm_mb}")


if __name__ == "__main__":
    main(sys.argv[1:])
