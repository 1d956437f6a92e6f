#!/usr/bin/env python3
"""Scale benchmark data (issue #15): generated, never committed.

    python bench/scale.py counts N OUT.jsonl          # N count rows {"problem": i, "n": 16, "c": c}
    python bench/scale.py shards ROLLOUTS N K OUTDIR  # ROLLOUTS canonical rollouts, N per problem, K Parquet shards

c ~ Binomial(n, p), p ~ Beta(0.7, 0.7), seed 0. Needs numpy (and pyarrow for shards).
"""

import sys
from pathlib import Path

import numpy as np


def counts(problems, out, n=16, seed=0):
    """`{"problem": i, "n": n, "c": c}` per line, in chunks of 10^6."""
    rng = np.random.default_rng(seed)
    with open(out, "w") as f:
        for start in range(0, problems, 1_000_000):
            m = min(1_000_000, problems - start)
            c = rng.binomial(n, rng.beta(0.7, 0.7, m))
            f.write(
                "".join(
                    f'{{"problem": {i}, "n": {n}, "c": {x}}}\n' for i, x in zip(range(start, start + m), c.tolist())
                )
            )


def shards(rollouts, n, k, out, seed=0):
    """`rollouts` canonical rollouts, `n` per problem, cut into `k` shards that split every problem
    (rollout r of problem p goes to shard (p + r) mod k), each written as Parquet
    (`shard-i.parquet`: problem, rollout, correct, answer) and as the same rows in JSON Lines
    (`shard-i.jsonl`). Wrong answers scatter over three integers next to the gold one."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    Path(out).mkdir(parents=True, exist_ok=True)
    problems = rollouts // n
    rng = np.random.default_rng(seed)
    schema = pa.schema(
        [("problem", pa.string()), ("rollout", pa.int32()), ("correct", pa.bool_()), ("answer", pa.string())]
    )
    writers = [pq.ParquetWriter(f"{out}/shard-{i}.parquet", schema) for i in range(k)]
    texts = [open(f"{out}/shard-{i}.jsonl", "w") for i in range(k)]
    chunk = max(1, 1_000_000 // n)
    for start in range(0, problems, chunk):
        m = min(chunk, problems - start)
        p = rng.beta(0.7, 0.7, m)
        correct = rng.random((m, n)) < p[:, None]
        gold = rng.integers(0, 1000, m)
        answer = gold[:, None] + np.where(correct, 0, rng.integers(1, 4, (m, n)))
        prob = np.repeat(np.arange(start, start + m), n)
        roll = np.tile(np.arange(n), m)
        shard = (prob + roll) % k
        cor, ans = correct.ravel(), answer.ravel()
        for i in range(k):
            sel = shard == i
            pi, ri, ci, ai = prob[sel].tolist(), roll[sel].tolist(), cor[sel].tolist(), ans[sel].tolist()
            names = [f"p{x}" for x in pi]
            answers = [str(x) for x in ai]
            writers[i].write_table(pa.table([names, ri, ci, answers], schema=schema))
            texts[i].write(
                "".join(
                    f'{{"problem":"{a}","rollout":{b},"correct":{"true" if c else "false"},"answer":"{d}"}}\n'
                    for a, b, c, d in zip(names, ri, ci, answers)
                )
            )
    for w in writers:
        w.close()
    for t in texts:
        t.close()


def main(argv):
    if argv[:1] == ["counts"] and len(argv) == 3:
        counts(int(argv[1]), argv[2])
    elif argv[:1] == ["shards"] and len(argv) == 5:
        shards(int(argv[1]), int(argv[2]), int(argv[3]), argv[4])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
