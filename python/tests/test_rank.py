"""rank(): many systems on the problems they share, from files, from
DataFrames and from a dict of frames, against the CLI's rank JSON and
against values recomputed here (numpy, scipy) from the rows the test
builds."""

from __future__ import annotations

import random
import warnings
from typing import Any, Dict, List

import numpy as np
import pytest
from conftest import write_jsonl

import rollstat

RESAMPLES = 400
# Each system's chance of solving a problem (the problem's difficulty
# shifts them all).
SKILL = {"m1": 0.85, "m2": 0.8, "m3": 0.55, "m4": 0.3}


def outcomes(m: int, n: int, seed: int, subsets: int = 0) -> Dict[str, Dict[Any, List[bool]]]:
    """system → (subset, problem) → n outcomes."""
    rnd = random.Random(seed)
    out: Dict[str, Dict[Any, List[bool]]] = {s: {} for s in SKILL}
    for i in range(m):
        key = (f"bench{i % subsets}" if subsets else None, f"q{i:03d}")
        hard = rnd.uniform(-0.2, 0.2)
        for s, p in SKILL.items():
            out[s][key] = [rnd.random() < min(1.0, max(0.0, p + hard)) for _ in range(n)]
    return out


def rows_of(values: Dict[Any, List[bool]], model: str = "") -> List[Dict[str, Any]]:
    out = []
    for (subset, problem), oks in values.items():
        for r, ok in enumerate(oks):
            row: Dict[str, Any] = {"problem": problem, "rollout": r, "correct": ok}
            if subset:
                row["subset"] = subset
            if model:
                row["model"] = model
            out.append(row)
    return out


def all_rows(data: Dict[str, Dict[Any, List[bool]]]) -> List[Dict[str, Any]]:
    return [r for s, v in data.items() for r in rows_of(v, s)]


def files(data: Dict[str, Dict[Any, List[bool]]], tmp_path) -> List[str]:
    return [str(write_jsonl(tmp_path / f"{s}.jsonl", rows_of(v))) for s, v in data.items()]


def numbers(r: rollstat.Ranking) -> Dict[str, Any]:
    """Every number of a ranking, without what names its inputs."""
    d = r.to_dict()
    for s in d["systems"]:
        s.pop("inputs")
    d["settings"].pop("by")
    for f in d["findings"]:
        f.pop("text", None)
    return d


@pytest.fixture(scope="module")
def binary():
    return outcomes(120, 1, seed=7)


@pytest.fixture(scope="module")
def rollouts():
    return outcomes(80, 4, seed=11)


# ----------------------------------------------------- (a) inputs agree


def test_frames_and_dicts_give_the_numbers_of_files(rollouts, tmp_path):
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    pa = pytest.importorskip("pyarrow")
    want = numbers(rollstat.rank(*files(rollouts, tmp_path), resamples=RESAMPLES))
    rows = all_rows(rollouts)
    for frame in (pd.DataFrame(rows), pl.DataFrame(rows), pa.Table.from_pylist(rows), rows):
        got = rollstat.rank(frame, by="model", resamples=RESAMPLES)
        assert got.settings["by"] == "model"
        assert numbers(got) == want, type(frame).__name__
    per = {s: pd.DataFrame(rows_of(v)) for s, v in rollouts.items()}
    assert numbers(rollstat.rank(per, resamples=RESAMPLES)) == want
    # A dict of paths names the systems by its keys.
    paths = dict(zip(["x1", "x2", "x3", "x4"], files(rollouts, tmp_path)))
    renamed = rollstat.rank(paths, resamples=RESAMPLES)
    assert [s["name"] for s in renamed.systems] == [s["name"].replace("m", "x") for s in want["systems"]]
    assert [s["value"] for s in renamed.systems] == [s["value"] for s in want["systems"]]
    # A list of paths is the same as the paths one by one.
    assert numbers(rollstat.rank(files(rollouts, tmp_path), resamples=RESAMPLES)) == want


def test_tables_and_text(binary):
    pd = pytest.importorskip("pandas")
    r = rollstat.rank(all_rows(binary), by="model", resamples=RESAMPLES)
    df = r.to_pandas()
    assert list(df.columns) == [
        "name", "rank", "value", "ci_low", "ci_high", "rank_low", "rank_high", "set_low", "set_high", "p_best",
        "letters", "dropped",
    ]
    assert list(df["name"]) == [s["name"] for s in r.systems] and len(df) == 4
    assert isinstance(df, pd.DataFrame) and (df["ci_low"] <= df["value"]).all() and (df["value"] <= df["ci_high"]).all()
    pairs = r.pairs_to_pandas()
    assert len(pairs) == 6 and list(pairs.columns) == ["a", "b", "diff", "p", "p_adjusted", "method", "separated"]
    text = str(r)
    assert text.startswith("rollstat rank: 4 systems on 120 shared problems") and r.top_tier_line in text
    page = r.to_html()
    assert page.lstrip().lower().startswith("<!doctype html") and "m1" in page
    assert r._repr_html_().startswith("<iframe") and 'title="rollstat rank"' in r._repr_html_()
    assert r.best["system"] == r.systems[0]["name"] == r.top_tier[0]
    assert rollstat.Ranking(r.to_json()) == r and str(rollstat.Ranking(r.to_json())) == text
    assert r.suite is None and r.curve is None


# ------------------------------------------------------- (b) the CLI agrees


def test_the_cli_gives_the_same_numbers(cli, binary, rollouts, tmp_path):
    for data, extra in ((binary, []), (rollouts, ["--adjust", "bh", "--alpha", "0.1"])):
        paths = files(data, tmp_path)
        doc = cli.json("rank", *paths, "--resamples", str(RESAMPLES), *extra)
        kw = {"adjust": "bh", "alpha": 0.1} if extra else {}
        r = rollstat.rank(*paths, resamples=RESAMPLES, **kw)
        got = r.to_dict()
        for f in got["findings"] + doc["findings"]:
            f.pop("text", None)
        assert got == doc
    flags = ("--resamples", str(RESAMPLES), "--adjust", "bh", "--alpha", "0.1")
    assert str(r) == cli.run("rank", *paths, *flags).stdout.rstrip("\n")
    assert r.to_html() == cli.run("rank", *paths, *flags, "--format", "html").stdout
    assert r.to_markdown() == cli.run("rank", *paths, *flags, "--format", "markdown").stdout


# --------------------------------------------- (c) values recomputed here


def test_values_are_means_of_per_problem_means(rollouts):
    r = rollstat.rank(all_rows(rollouts), by="model", resamples=RESAMPLES)
    for s in r.systems:
        want = np.mean([np.mean(v) for v in rollouts[s["name"]].values()])
        assert s["value"] == pytest.approx(want, abs=1e-12)
    assert r.n_problems == 80
    assert all(p["method"].startswith("sign-flip") for p in r.pairs)


def holm(ps: List[float]) -> List[float]:
    m = len(ps)
    order = sorted(range(m), key=lambda i: ps[i])
    out, running = [0.0] * m, 0.0
    for i, j in enumerate(order):
        running = max(running, (m - i) * ps[j])
        out[j] = min(1.0, running)
    return out


def test_mcnemar_holm_and_letters(binary):
    stats = pytest.importorskip("scipy.stats")
    alpha = 0.05
    r = rollstat.rank(all_rows(binary), by="model", resamples=RESAMPLES, alpha=alpha)
    keys = list(binary["m1"])
    ps = []
    for p in r.pairs:
        a, b = (np.array([binary[s][k][0] for k in keys]) for s in (p["a"], p["b"]))
        n01, n10 = int(np.sum(a & ~b)), int(np.sum(~a & b))
        want = stats.binomtest(n01, n01 + n10, 0.5).pvalue if n01 + n10 else 1.0
        assert p["method"] == "mcnemar-exact"
        assert p["p"] == pytest.approx(want, rel=1e-9, abs=1e-15), (p["a"], p["b"])
        assert p["diff"] == pytest.approx(a.mean() - b.mean(), abs=1e-12)
        ps.append(want)
    for p, want in zip(r.pairs, holm(ps)):
        assert p["p_adjusted"] == pytest.approx(want, rel=1e-9, abs=1e-15)
        assert p["separated"] == (p["p_adjusted"] <= alpha)
    # Both kinds of pairs occur: the test says something about letters.
    assert {p["separated"] for p in r.pairs} == {True, False}
    letters = {s["name"]: set(s["letters"]) for s in r.systems}
    for p in r.pairs:
        share = bool(letters[p["a"]] & letters[p["b"]])
        assert share == (p["p_adjusted"] > alpha), (p["a"], p["b"], p["p_adjusted"])
    tier = [s["name"] for s in r.systems if letters[s["name"]] & letters[r.systems[0]["name"]]]
    assert r.top_tier == tier


def test_friedman_across_benchmarks(cli, tmp_path):
    stats = pytest.importorskip("scipy.stats")
    data = outcomes(120, 2, seed=5, subsets=6)
    r = rollstat.rank(all_rows(data), by="model", resamples=RESAMPLES, suite="subset")
    s = r.suite
    assert s is not None and s["field"] == "subset" and s["benchmarks"] == [f"bench{i}" for i in range(6)]
    names = [x["name"] for x in r.systems]
    cols = [
        [np.mean([np.mean(v) for (sub, _), v in data[n].items() if sub == b]) for b in s["benchmarks"]]
        for n in names
    ]
    assert np.allclose(np.array(s["scores"]).T, cols, atol=1e-12)
    chi2, p = stats.friedmanchisquare(*cols)
    assert s["chi2"] == pytest.approx(chi2, rel=1e-9) and s["p"] == pytest.approx(p, rel=1e-9)
    assert s["df"] == len(names) - 1
    doc = cli.json("rank", *files(data, tmp_path), "--resamples", str(RESAMPLES), "--suite", "subset")
    assert doc["suite"] == s


def test_checkpoint_curve():
    data = {f"run-step{k}": v for k, v in zip((300, 100, 200, 400), outcomes(40, 1, seed=3).values())}
    r = rollstat.rank(data_frames(data), resamples=RESAMPLES, order="step")
    assert r.curve is not None and [p["step"] for p in r.curve["points"]] == [100, 200, 300, 400]
    assert r.curve["best"] == r.systems[0]["name"]


def data_frames(data: Dict[str, Dict[Any, List[bool]]]) -> Dict[str, List[Dict[str, Any]]]:
    return {s: rows_of(v) for s, v in data.items()}


# ------------------------------------------------ (d) errors and warnings


def test_one_system_is_an_error_naming_the_count(binary):
    rows = rows_of(binary["m1"], "m1")
    with pytest.raises(ValueError, match="two or more systems, found 1") as e:
        rollstat.rank(rows, by="model")
    assert isinstance(e.value, rollstat.InputError)
    with pytest.raises(rollstat.InputError, match="found 1"):
        rollstat.rank({"only": rows})
    pd = pytest.importorskip("pandas")
    with pytest.raises(rollstat.InputError, match=r"found 1 \(data\): pass by='model'"):
        rollstat.rank(pd.DataFrame(all_rows(binary)))


def test_malformed_rows_are_warned_and_left_out(binary):
    rows = all_rows(binary) + [{"problem": "x", "correct": "maybe", "model": "m1"}]
    with pytest.warns(rollstat.RollstatWarning, match=r"1 malformed rows were skipped: data\[480\]"):
        r = rollstat.rank(rows, by="model", resamples=RESAMPLES)
    assert r.n_problems == 120


def test_systems_on_different_problems_warn_and_strict_refuses(binary):
    data = data_frames(binary)
    data["m2"] = data["m2"][:100]  # m2 lacks 20 problems: the others drop them
    with pytest.warns(rollstat.RollstatWarning, match="20 problems without a value on every system"):
        r = rollstat.rank(data, resamples=RESAMPLES)
    assert r.n_problems == 100
    assert {s["name"]: s["dropped"] for s in r.systems} == {"m1": 20, "m2": 0, "m3": 20, "m4": 20}
    with pytest.raises(ValueError, match="strict"):
        rollstat.rank(data, resamples=RESAMPLES, strict=True)


def test_bad_options_name_their_keyword(binary):
    rows = all_rows(binary)
    for kw, word in (
        ({"adjust": "bonferroni"}, "adjust"), ({"pair_test": "z"}, "pair_test"), ({"order": "time"}, "order"),
        ({"alpha": 1.5}, "alpha"), ({"metric": "pass@x"}, "metric"), ({"suite": "benchmark"}, "suite"),
    ):
        with pytest.raises(rollstat.InputError, match=f"^{word}: "):
            rollstat.rank(rows, by="model", resamples=RESAMPLES, **kw)
    with pytest.raises(rollstat.InputError, match="no input"):
        rollstat.rank()


def test_no_warning_on_shared_problems(binary):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rollstat.rank(data_frames(binary), resamples=RESAMPLES)


# ------------------------------------------- (e) published numbers, suites

SWEBENCH = (
    __import__("pathlib").Path(__file__).resolve().parents[2]
    / "crates/rollstat-cli/tests/fixtures/rank/swebench-verified-top9.csv.gz"
)


def test_swe_bench_621_from_python_and_the_cli(cli):
    """SWE-bench#621's walk against #1 (continuity-corrected χ² McNemar;
    rank 2 has b = c, p = 1 here as in R — see docs/rank.md) and the
    best's hybrid conditional estimate inside its interval."""
    r = rollstat.rank(str(SWEBENCH), by="model", pair_test="chi2-corrected", resamples=RESAMPLES)
    ps = [step["p"] for step in r.to_dict()["anchor_walk"]]
    assert ps == pytest.approx([1.0, 0.901, 0.243, 0.253, 0.156, 0.134, 0.115, 0.026], abs=5e-4)
    assert r.to_dict()["first_separated_rank"] == 9
    best = r.best
    assert best["method"] == "hybrid-conditional"
    assert best["adjusted_ci"][0] <= best["adjusted"] <= best["naive"] <= best["adjusted_ci"][1]
    doc = cli.json(
        "rank", str(SWEBENCH), "--by", "model", "--pair-test", "chi2-corrected", "--resamples", str(RESAMPLES)
    )
    assert doc["best"] == best and doc["anchor_walk"] == r.to_dict()["anchor_walk"]


def test_suite_inputs_reads_one_benchmark_per_source(tmp_path):
    data = outcomes(60, 2, seed=9, subsets=3)
    dirs = []
    for b in ("bench0", "bench1", "bench2"):
        d = tmp_path / b
        d.mkdir()
        for s, v in data.items():
            write_jsonl(d / f"{s}.jsonl", rows_of({(None, p): oks for (sub, p), oks in v.items() if sub == b}))
        dirs.append(str(d))
    by_dirs = rollstat.rank(*dirs, suite="inputs", resamples=RESAMPLES)
    by_field = rollstat.rank(all_rows(data), by="model", suite="subset", resamples=RESAMPLES)
    a, b = by_dirs.suite, by_field.suite
    assert a is not None and b is not None and a["field"] == "inputs"
    for key in ("benchmarks", "scores", "mean_ranks", "chi2", "p", "critical_difference"):
        assert a[key] == b[key], key
    with pytest.raises(rollstat.InputError, match="suite='inputs' two or more sources"):
        rollstat.rank(dirs[0], suite="inputs")
