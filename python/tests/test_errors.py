"""Errors the Python way: InputError (a ValueError) naming the keyword
argument or the row; TypeError / FileNotFoundError where Python expects them."""

from __future__ import annotations

import pytest

import rollstat
from rollstat import InputError


def test_input_error_is_a_value_error():
    assert issubclass(InputError, ValueError)
    assert InputError.__module__ == "rollstat" and InputError.__name__ == "InputError"
    assert issubclass(rollstat.RollstatWarning, UserWarning)


@pytest.mark.parametrize(
    "kwargs,prefix",
    [
        ({"ci": "magic"}, "ci: unknown method 'magic'"),
        ({"match": "fuzzy"}, "match: unknown match 'fuzzy'"),
        ({"extract": "latex"}, "extract: unknown extract mode"),
        ({"level": 1.5}, "level: 1.5 is not in (0, 1)"),
        ({"tau": [2.0]}, "tau: 2 is outside [0, 1]"),
        ({"k": 0}, "k: must be at least 1"),
        ({"k": [1, -2]}, "k: must be at least 1"),
        ({"n": 0}, "n: must be at least 1"),
        ({"resamples": 1}, "resamples: need at least 2"),
        ({"denominator": "all"}, "denominator: "),
        ({"tie_policy": "random"}, "tie_policy: "),
        ({"dedupe": "middle"}, "dedupe: "),
        ({"source_format": "excel"}, "source_format: "),
    ],
)
def test_bad_options_name_the_keyword(demo, kwargs, prefix):
    with pytest.raises(InputError) as e:
        rollstat.report(demo, **kwargs)
    assert str(e.value).startswith(prefix), str(e.value)
    assert "--" not in str(e.value)


def test_source_format_with_rows_must_be_canonical(demo_rows):
    with pytest.raises(InputError, match="^source_format: in-memory rows are canonical rows"):
        rollstat.report(demo_rows, source_format="lm-eval")
    assert rollstat.report(demo_rows, source_format="jsonl").health["n_problems"] == 6


def test_strict_bad_row_names_the_row(demo_rows):
    import pandas as pd

    rows = list(demo_rows)
    rows.insert(5, {"problem": "demo-1", "rollout": 99, "correct": "maybe"})
    with pytest.raises(InputError, match=r"^data\[5\]: ") as e:
        rollstat.report(rows, strict=True)
    assert "strict=False" in str(e.value)
    with pytest.raises(InputError, match=r"^data\.iloc\[5\]: "):
        rollstat.report(pd.DataFrame(rows), strict=True)


def test_strict_short_problem_names_keyword(demo_rows):
    rows = [r for r in demo_rows if not (r["problem"] == "demo-2" and r["rollout"] == 7)]
    with pytest.raises(InputError, match=r"^data\[8\]: problem 'demo-2' has 7 rollouts, 8 requested") as e:
        rollstat.report(rows, strict=True)
    assert str(e.value).endswith("(strict mode rejects short problems); pass strict=False to report them as n_short")


def test_unconvertible_value_names_row_and_field():
    rows = [{"problem": "p", "correct": True}, {"problem": "p", "correct": object()}]
    with pytest.raises(InputError, match=r"^data\[1\]: 'correct': .*cannot convert a value of type object"):
        rollstat.report(rows)
    with pytest.raises(InputError, match=r"^data\[0\]: a row must be a dict, found int"):
        rollstat.report([1, 2])


def test_duplicates_name_dedupe(demo_rows):
    rows = demo_rows + [demo_rows[0]]
    with pytest.raises(InputError) as e:
        rollstat.report(rows)
    assert "dedupe='first'" in str(e.value) and "data[" in str(e.value), str(e.value)
    r = rollstat.report(rows, dedupe="first")
    assert r.health["n_duplicate_rollouts"] == 1
    assert any("dedupe=" in w for w in r.warnings)


def test_empty_rows_and_python_types():
    with pytest.raises(InputError, match="no problems to report"):
        rollstat.report([])
    with pytest.raises(FileNotFoundError):
        rollstat.report("no/such/file.jsonl")
    with pytest.raises(TypeError, match="a single dict"):
        rollstat.report({"problem": "p", "correct": True})
    with pytest.raises(TypeError):
        rollstat.report(42)
    with pytest.raises(TypeError, match="resamples"):
        rollstat.report([{"problem": "p", "correct": True}], resamples="many")


def test_max_decompressed_limits_a_compressed_input(tmp_path):
    # 2000 rows of 20 problems (every third correct), gzipped: about 60 KB
    # of content from well under 1 KB of gzip.
    import gzip

    text = "".join(f'{{"problem": "p{i % 20}", "correct": {"true" if i % 3 == 0 else "false"}}}\n' for i in range(2000))
    path = tmp_path / "rows.jsonl.gz"
    path.write_bytes(gzip.compress(text.encode(), 9))
    with pytest.raises(InputError, match="rows.jsonl.gz: the content decompresses to more than 1 KiB"):
        rollstat.report(str(path), ci=None, max_decompressed=1024)
    with pytest.raises(InputError, match="rows.jsonl.gz: the content decompresses"):
        rollstat.compare(str(path), str(path), ci=None, max_decompressed=1024)
    # The same rows read whole: 2000 rollouts, 100 per problem; pass@1 is the
    # share of i with i % 3 == 0 in each problem's i's, averaged: 667/2000.
    for limit in (1 << 20, "none", None):
        r = rollstat.report(str(path), ci=None, k=1, max_decompressed=limit)
        assert r.metrics["pass@1"]["value"] == pytest.approx(667 / 2000, abs=1e-12)
    for bad in (0, -5, 1.5, "lots", True):
        with pytest.raises(InputError, match="max_decompressed: "):
            rollstat.report(str(path), ci=None, max_decompressed=bad)
