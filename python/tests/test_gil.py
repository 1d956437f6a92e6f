"""The GIL is released while arrays are computed: a second Python thread
keeps running."""

from __future__ import annotations

import threading
import time

import numpy as np

import rollstat


def run_counting_ticks(call):
    """Runs ``call()`` on a second thread while this thread counts; returns
    its result, its start and end times, and this thread's tick times."""
    done = {}

    def work():
        done["start"] = time.perf_counter()
        done["out"] = call()
        done["end"] = time.perf_counter()

    t = threading.Thread(target=work)
    ticks = []
    count = 0
    t.start()
    while t.is_alive():
        count += 1
        if count % 200 == 0:
            ticks.append(time.perf_counter())
    t.join()
    return done["out"], done["start"], done["end"], ticks


def assert_main_thread_ran(start, end, ticks, what, max_stall):
    """This thread ticked all through the call, never stopped for more than
    ``max_stall`` of its duration."""
    duration = end - start
    during = [x for x in ticks if start <= x <= end]
    assert len(during) > 10, f"the main thread ran {len(during)} times in {duration:.2f} s"
    gaps = np.diff([start] + during + [end])
    assert gaps.max() < max_stall * duration, f"main thread stalled {gaps.max():.3f} s of {duration:.3f} s"


def run_long_enough(make_call, size, min_seconds=0.3, tries=5):
    """Runs ``make_call(size)`` on a second thread, doubling ``size`` until
    the call lasts ``min_seconds`` (a fast machine finishes a fixed workload
    too soon for a stall to be told from a short call); returns what
    ``run_counting_ticks`` returns and the size used."""
    for _ in range(tries):
        out, start, end, ticks = run_counting_ticks(make_call(size))
        if end - start >= min_seconds:
            return out, start, end, ticks, size
        size *= 2
    raise AssertionError(f"the call stayed under {min_seconds} s at size {size // 2}")


def test_second_thread_progresses_during_a_big_array():
    # Large n, distinct k per element (> 64 distinct: no memo table), so
    # each value costs ~k double-double steps (~0.1 ms).
    def arrays(size):
        n = np.full(size, 1_000_000_007, dtype=np.int64)
        c = np.full(size, 400_000_000, dtype=np.int64)
        k = 1000 + (np.arange(size) % 1500)
        return n, c, k

    out, start, end, ticks, size = run_long_enough(
        lambda size: (lambda: rollstat.g_pass_at_k(*arrays(size), 0.5)), 10_000
    )
    assert_main_thread_ran(start, end, ticks, "computation", 0.25)
    n, c, k = arrays(size)
    assert np.isfinite(out).all()
    assert out[7] == rollstat.g_pass_at_k(int(n[7]), int(c[7]), int(k[7]), 0.5)


def test_grade_releases_the_gil():
    responses = ["so the answer is \\boxed{\\frac{%d}{%d}}" % (i, i + 1) for i in range(1, 20001)]
    golds = ["%d/%d" % (i, i + 1) for i in range(1, 20001)]
    done = {}

    def work():
        done["start"] = time.perf_counter()
        done["out"] = rollstat.grade(responses, golds)
        done["end"] = time.perf_counter()

    t = threading.Thread(target=work)
    ticks = []
    t.start()
    while t.is_alive():
        ticks.append(time.perf_counter())
        time.sleep(0.001)
    t.join()
    # Converting the lists holds the GIL briefly; grading itself does not.
    during = [x for x in ticks if done["start"] <= x <= done["end"]]
    assert len(during) >= 3
    assert done["out"][1].all()


def test_report_on_an_arrow_table_releases_the_gil():
    # At least 400,000 rollout rows (50,000 problems × 8) as a pyarrow Table: the rows
    # are mapped and the report computed with the GIL released, so this
    # thread keeps running; only the import of the Arrow stream holds it.
    pa = __import__("pytest").importorskip("pyarrow")
    n = 8
    rng = np.random.default_rng(0)

    def table_of(problems):
        return pa.table(
            {
                "problem": np.repeat(np.arange(problems), n),
                "rollout": np.tile(np.arange(n), problems),
                "correct": rng.random(problems * n) < 0.4,
                "answer": rng.integers(0, 5, problems * n).astype(str),
            }
        )

    out, start, end, ticks, problems = run_long_enough(
        lambda problems: (lambda t=table_of(problems): rollstat.report(t, k=[1, 8], resamples=2000)), 50_000
    )
    assert_main_thread_ran(start, end, ticks, "report", 0.5)
    assert out.health["n_problems"] == problems
