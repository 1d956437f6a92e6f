"""gate(): a release decision over a suite, from files and from DataFrames,
against the CLI's gate.json and against values recomputed here (scipy,
numpy) from the rows the test builds."""

from __future__ import annotations

import json
import random
from typing import Any, Dict, List, Tuple

import numpy as np
import pytest
from conftest import without_warnings, write_jsonl

import rollstat

# Per benchmark: problem → (A's outcomes, B's outcomes), one list per side.
Outcomes = Dict[str, Tuple[List[bool], List[bool]]]


def single_draw(m: int, flip_ab: int, flip_ba: int, seed: int) -> Outcomes:
    """m problems, one rollout a side: B loses ``flip_ab`` problems A
    solves and gains ``flip_ba`` A misses."""
    rnd = random.Random(seed)
    a = [rnd.random() < 0.6 for _ in range(m)]
    b = list(a)
    right = [i for i in range(m) if a[i]]
    wrong = [i for i in range(m) if not a[i]]
    for i in right[:flip_ab]:
        b[i] = False
    for i in wrong[:flip_ba]:
        b[i] = True
    return {f"q{i:02d}": ([a[i]], [b[i]]) for i in range(m)}


def multi_draw(m: int, n: int, shift: float, seed: int) -> Outcomes:
    """m problems, n rollouts a side; B's chance is A's minus ``shift``."""
    rnd = random.Random(seed)
    out = {}
    for i in range(m):
        p = rnd.random()
        out[f"p{i:02d}"] = (
            [rnd.random() < p for _ in range(n)],
            [rnd.random() < max(0.0, p - shift) for _ in range(n)],
        )
    return out


def rows(outcomes: Outcomes, side: int, subset: str = "") -> List[Dict[str, Any]]:
    out = []
    for problem, sides in outcomes.items():
        for r, ok in enumerate(sides[side]):
            answer = "7" if ok else str(r)
            row = {"problem": problem, "rollout": r, "correct": ok, "answer": answer, "response": f"so it is {answer}"}
            if subset:
                row["subset"] = subset
            out.append(row)
    return out


SUITE = {
    "mcq": single_draw(60, flip_ab=7, flip_ba=2, seed=11),
    "math": multi_draw(30, 4, shift=0.08, seed=5),
}
FAST = {"resamples": 2000, "permutations": 2000}


@pytest.fixture()
def runs(tmp_path):
    """runs/a/{mcq,math}.jsonl and runs/b/{mcq,math}.jsonl."""
    for side, who in ((0, "a"), (1, "b")):
        (tmp_path / "runs" / who).mkdir(parents=True)
        for name, outcomes in SUITE.items():
            write_jsonl(tmp_path / "runs" / who / f"{name}.jsonl", rows(outcomes, side))
    return tmp_path / "runs"


def plan_of(sources: Dict[str, Tuple[Any, Any]], **settings: Any) -> Dict[str, Any]:
    bench = [{"name": n, "baseline": a, "candidate": b} for n, (a, b) in sources.items()]
    return {"margin": 0.05, **FAST, **settings, "benchmark": bench}


def numbers(doc: Dict[str, Any]) -> Dict[str, Any]:
    """A gate.json without what names its inputs (paths or frames) and the
    plan's record: every number, status, verdict and finding stays."""
    doc = without_warnings(doc)
    doc.pop("plan")
    for r in doc["benchmarks"]:
        r.pop("inputs_a")
        r.pop("inputs_b")
    return doc


def test_frames_give_the_numbers_of_files(runs):
    import pandas as pd
    import polars as pl

    files = rollstat.gate(plan_of({n: (str(runs / "a" / f"{n}.jsonl"), str(runs / "b" / f"{n}.jsonl")) for n in SUITE}))
    frames = rollstat.gate(
        plan_of(
            {
                "mcq": (pd.DataFrame(rows(SUITE["mcq"], 0)), pl.DataFrame(rows(SUITE["mcq"], 1))),
                "math": (pl.DataFrame(rows(SUITE["math"], 0)).to_arrow(), rows(SUITE["math"], 1)),
            }
        )
    )
    assert numbers(frames.to_dict()) == numbers(files.to_dict())
    assert [r["name"] for r in files.benchmarks] == ["mcq", "math"]
    assert files.benchmarks[0]["test"]["method"] == "mcnemar-exact"
    assert files.benchmarks[1]["flips"]["excess"] is not None
    # The flipped problems list their rollouts' responses, from frames as from files.
    shown = files.benchmarks[0]["flipped"][0]
    assert shown["a"]["responses"] == [f"so it is {x}" for x in shown["a"]["answers"]]
    # The dict's record: its canonical TOML, frames named, with its digest.
    text = frames.plan["text"]
    assert frames.plan["source"] == "<dict>" and 'baseline = "<DataFrame: 60 rows>"' in text
    assert 'candidate = "<list: 120 rows>"' in text
    import hashlib

    assert frames.plan["sha256"] == hashlib.sha256(text.encode()).hexdigest()


def test_one_frame_a_side_splits_by_subset(runs):
    import pandas as pd

    a = pd.DataFrame([r for n, o in SUITE.items() for r in rows(o, 0, subset=n)])
    b = pd.DataFrame([r for n, o in SUITE.items() for r in rows(o, 1, subset=n)])
    short = rollstat.gate(baseline=a, candidate=b, margin=0.05, **FAST)
    files = rollstat.gate(baseline=str(runs / "a"), candidate=str(runs / "b"), margin=0.05, **FAST)
    assert sorted(r["name"] for r in short.benchmarks) == sorted(SUITE)
    by_name = {r["name"]: r for r in files.table()}
    for r in short.table():
        assert r == by_name[r["name"]]
    assert short.suite == files.suite and short.verdict == files.verdict


def test_the_cli_gives_the_same_gate(cli, runs, tmp_path):
    """A plan file (relative paths against its directory) and the short
    form, against ``rollstat gate --format json`` and its exit code."""
    toml = tmp_path / "gate.toml"
    bench = "".join(
        f'[[benchmark]]\nname = "{n}"\nbaseline = "runs/a/{n}.jsonl"\ncandidate = "runs/b/{n}.jsonl"\n' for n in SUITE
    )
    toml.write_text(f"margin = '5pt'\nresamples = 2000\npermutations = 2000\n{bench}", encoding="utf-8")
    got = rollstat.gate(str(toml))
    p = cli.run("gate", str(toml), "--format", "json", ok=False)
    assert p.returncode == got.exit_code, p.stderr
    expect = json.loads(p.stdout)
    assert without_warnings(got.to_dict()) == without_warnings(expect)
    assert got.plan["text"] == toml.read_text(encoding="utf-8")
    # The same renderers: print(g) is the table, to_markdown() and to_html() the other formats.
    for fmt, mine in (("table", str(got)), ("markdown", got.to_markdown()), ("html", got.to_html())):
        assert cli.run("gate", str(toml), "--format", fmt, ok=False).stdout.rstrip("\n") == mine.rstrip("\n"), fmt

    short = rollstat.gate(baseline=str(runs / "a"), candidate=str(runs / "b"), margin="5pt", rule="detect", **FAST)
    p = cli.run(
        "gate", "--baseline", runs / "a", "--candidate", runs / "b", "--margin", "5pt", "--rule", "detect",
        "--resamples", "2000", "--permutations", "2000", "--format", "json", ok=False,
    )
    assert p.returncode == short.exit_code, p.stderr
    expect = json.loads(p.stdout)
    assert numbers(short.to_dict()) == numbers(expect)
    # The short form's plan is the same TOML whichever front end wrote it.
    assert short.plan["text"] == expect["plan"]["text"] and short.plan["sha256"] == expect["plan"]["sha256"]


def counts(outcomes: Outcomes) -> np.ndarray:
    """(c_A, n_A, c_B, n_B) per problem."""
    return np.array([[sum(a), len(a), sum(b), len(b)] for a, b in outcomes.values()], dtype=float)


def test_values_recomputed_independently():
    from scipy import stats

    g = rollstat.gate(plan_of({n: (rows(o, 0), rows(o, 1)) for n, o in SUITE.items()}))
    by = {r["name"]: r for r in g.benchmarks}

    # McNemar, one-sided exact: b (A right, B wrong) of b + c at ½.
    mcq = counts(SUITE["mcq"])
    b = int(np.sum((mcq[:, 0] == 1) & (mcq[:, 2] == 0)))
    c = int(np.sum((mcq[:, 0] == 0) & (mcq[:, 2] == 1)))
    assert (b, c) == (7, 2)
    row = by["mcq"]
    assert row["test"]["method"] == "mcnemar-exact"
    assert row["test"]["p"] == pytest.approx(stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue, rel=1e-9)
    assert (row["flips"]["a_only"], row["flips"]["b_only"]) == (b, c)
    assert row["flips"]["rate"] == pytest.approx((b + c) / len(mcq))
    assert row["flips"]["floor"] is None and row["flips"]["excess"] is None

    # Excess flip and the within-model floor, from the per-problem counts.
    k = counts(SUITE["math"])
    pa, na, pb, nb = k[:, 0] / k[:, 1], k[:, 1], k[:, 2] / k[:, 3], k[:, 3]
    excess = (pa - pb) ** 2 - pa * (1 - pa) / (na - 1) - pb * (1 - pb) / (nb - 1)
    floor_a = np.mean(2 * k[:, 0] * (na - k[:, 0]) / (na * (na - 1)))
    floor_b = np.mean(2 * k[:, 2] * (nb - k[:, 2]) / (nb * (nb - 1)))
    f = by["math"]["flips"]
    assert f["excess"] == pytest.approx(np.mean(excess), rel=1e-12, abs=1e-15)
    assert (f["floor_a"], f["floor_b"]) == (pytest.approx(floor_a, rel=1e-12), pytest.approx(floor_b, rel=1e-12))
    assert f["floor"] == pytest.approx((floor_a + floor_b) / 2, rel=1e-12)
    assert f["a_only"] == pytest.approx(np.sum(pa * (1 - pb)), rel=1e-12)
    assert f["b_only"] == pytest.approx(np.sum((1 - pa) * pb), rel=1e-12)
    lo, hi = f["excess_ci"]
    se = np.std(excess, ddof=1) / np.sqrt(len(excess))
    t = stats.t.ppf(1 - 0.05 / 2, len(excess) - 1)
    assert (lo, hi) == (pytest.approx(np.mean(excess) - t * se, rel=1e-9), pytest.approx(np.mean(excess) + t * se, rel=1e-9))

    # Each benchmark's pass@1 and the micro-weighted suite difference.
    n_problems, deltas = [], []
    for name, outcomes in SUITE.items():
        k = counts(outcomes)
        a, b = np.mean(k[:, 0] / k[:, 1]), np.mean(k[:, 2] / k[:, 3])
        assert (by[name]["a"], by[name]["b"]) == (pytest.approx(a, rel=1e-12), pytest.approx(b, rel=1e-12))
        assert by[name]["delta"] == pytest.approx(b - a, rel=1e-12)
        n_problems.append(len(k))
        deltas.append(b - a)
    w = np.array(n_problems) / sum(n_problems)
    assert [by[n]["weight"] for n in SUITE] == [pytest.approx(x, rel=1e-12) for x in w]
    assert g.suite["delta"] == pytest.approx(float(np.dot(w, deltas)), rel=1e-12)

    # Fisher's χ² over the benchmarks' one-sided p values.
    tests = {t["name"]: t for t in g.suite["tests"]}
    fisher = stats.combine_pvalues([by[n]["test"]["p"] for n in SUITE], method="fisher")
    assert tests["fisher"]["statistic"] == pytest.approx(fisher.statistic, rel=1e-12)
    assert tests["fisher"]["p"] == pytest.approx(fisher.pvalue, rel=1e-9)
    assert tests["fisher"]["rejects"] == (fisher.pvalue <= 0.05 / 3)


def test_pooled_exact_binomial_when_every_benchmark_is_single_draw():
    from scipy import stats

    suite = {"x": single_draw(50, 5, 1, seed=1), "y": single_draw(40, 3, 2, seed=2)}
    g = rollstat.gate(plan_of({n: (rows(o, 0), rows(o, 1)) for n, o in suite.items()}))
    pooled = next(t for t in g.suite["tests"] if t["name"] == "pooled")
    b, c = 5 + 3, 1 + 2
    assert pooled["statistic"] == b - c
    assert pooled["p"] == pytest.approx(stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue, rel=1e-9)


def test_a_clear_no_go_and_a_go(cli, tmp_path):
    same = single_draw(80, 0, 0, seed=4)
    worse = single_draw(80, 30, 0, seed=4)
    go = rollstat.gate(plan_of({"x": (rows(same, 0), rows(same, 1)), "y": (rows(same, 0), rows(same, 1))}, margin="10pt"))
    assert (go.verdict, go.exit_code) == ("GO", 0)
    assert [r["status"] for r in go.benchmarks] == ["PASS", "PASS"]
    no = rollstat.gate(plan_of({"x": (rows(same, 0), rows(same, 1)), "y": (rows(worse, 0), rows(worse, 1))}, margin="2pt"))
    assert (no.verdict, no.exit_code) == ("NO-GO", 1)
    # x: identical sides, but no discordant problem of 80 is not proof of a
    # drop under 2 points (Tango's interval: ±z²/(80 + z²) = ±0.0327).
    assert no.to_pandas().set_index("name")["status"].to_dict() == {"x": "INSUFFICIENT", "y": "BREACH"}
    assert any("BREACH" in r for r in no.suite["margin_rule"]["reasons"])
    flipped = no.flipped_to_pandas()
    assert set(flipped["benchmark"]) == {"y"} and len(flipped) == 20  # the default number listed
    assert (flipped["drop"] == 1.0).all() and (flipped[["a_c", "b_c"]].values == [1, 0]).all()
    # The command's exit code for the same rows.
    for name, g in (("go", go), ("no", no)):
        d = tmp_path / name
        for side, who in ((0, "a"), (1, "b")):
            (d / who).mkdir(parents=True)
            for bench in g.benchmarks:
                o = same if bench["name"] == "x" or name == "go" else worse
                write_jsonl(d / who / f"{bench['name']}.jsonl", rows(o, side))
        margin = "10pt" if name == "go" else "2pt"
        p = cli.run("gate", "--baseline", d / "a", "--candidate", d / "b", "--margin", margin, "--resamples", "2000",
                    "--permutations", "2000", "--format", "json", ok=False)
        assert p.returncode == g.exit_code


def test_gate_document_views():
    g = rollstat.gate(plan_of({n: (rows(o, 0), rows(o, 1)) for n, o in SUITE.items()}))
    df = g.to_pandas()
    assert list(df.columns) == list(rollstat._documents.GATE_COLUMNS)
    assert list(df["name"]) == ["mcq", "math"]
    assert df["weight"].sum() == pytest.approx(1.0)
    assert json.loads(g.to_json()) == g.to_dict()
    assert str(g).startswith(f"{g.verdict} (rule: margin)")
    assert g.to_markdown().startswith(f"## rollstat gate: {g.verdict}")
    page = g.to_html()
    assert f'data-verdict="{g.verdict}"' in page and 'id="plot-forest"' in page
    assert g._repr_html_().startswith("<iframe") and repr(g) == f"<rollstat.Gate {g.verdict}: 2 benchmarks>"
    # Read back from its JSON, it renders the same.
    again = rollstat.Gate(g.to_json())
    assert again == g and str(again) == str(g)
    assert g.settings["resamples"] == 2000


def test_findings_are_warned():
    a = rows(SUITE["mcq"], 0)
    b = [r for r in rows(SUITE["mcq"], 1) if r["problem"] != "q00"]
    with pytest.warns(rollstat.RollstatWarning, match="only in A"):
        g = rollstat.gate(plan_of({"mcq": (a, b)}))
    assert any(f["kind"] == "benchmark" for f in g.findings)


def test_bad_plans_are_value_errors(runs, tmp_path):
    src = {"baseline": str(runs / "a"), "candidate": str(runs / "b")}
    with pytest.raises(ValueError, match="margn"):
        rollstat.gate({**src, "margin": 0.01, "margn": 0.02})
    with pytest.raises(ValueError, match="tierr"):
        rollstat.gate({"margin": 0.01, "benchmark": [{"name": "x", **src, "tierr": "critical"}]})
    with pytest.raises(ValueError, match=r"200 points.*0\.02.*2pt"):
        rollstat.gate({**src, "margin": 2})
    with pytest.raises(ValueError, match=r"200 points"):
        rollstat.gate(**src, margin=2)
    with pytest.raises(ValueError, match="declared twice"):
        rollstat.gate({"margin": 0.01, "benchmark": [{"name": "x", **src}, {"name": "x", **src}]})
    with pytest.raises(rollstat.InputError, match="the plan declares the analysis; set alpha, flips_listed, match"):
        rollstat.gate({**src, "margin": 0.01}, alpha=0.1, flips=3, match="exact")
    with pytest.raises(ValueError, match="^rule: unknown variant `loose`"):
        rollstat.gate(**src, margin=0.01, rule="loose")
    with pytest.raises(ValueError, match=r"^benchmark\[0\]\.tier: unknown variant `vital`"):
        rollstat.gate({"margin": 0.01, "benchmark": [{"name": "x", **src, "tier": "vital"}]})
    with pytest.raises(ValueError, match="needs a margin"):
        rollstat.gate(**src)
    with pytest.raises(ValueError, match="not both"):
        rollstat.gate({**src, "margin": 0.01}, baseline=src["baseline"])
    with pytest.raises(ValueError, match="no such file"):
        rollstat.gate({"margin": 0.01, "benchmark": [{"name": "x", "baseline": str(tmp_path / "nope"), "candidate": src["candidate"]}]})
    bad = tmp_path / "bad.toml"
    bad.write_text("margin = 0.01\nbaseline = 'runs/a'\ncandidate = 'runs/b'\nrule = 'loose'\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad\.toml:4"):
        rollstat.gate(str(bad))
    with pytest.raises(TypeError, match="plan"):
        rollstat.gate(42)


def test_bad_rows_of_a_frame_are_named_by_the_plan():
    a = rows(SUITE["mcq"], 0)
    b = rows(SUITE["mcq"], 1)
    b[3] = {"problem": "q03", "rollout": 0, "correct": "perhaps"}
    with pytest.warns(rollstat.RollstatWarning) as said:
        g = rollstat.gate(plan_of({"mcq": (a, b)}))
    text = [str(w.message) for w in said]
    assert any(t.startswith("1 malformed rows were skipped: plan['benchmark'][0]['candidate'][3]: `correct`") for t in text)
    assert "mcq: 1 malformed rows were skipped" in text
    assert g.benchmarks[0]["n_problems"] == 59


def test_grading_is_part_of_the_plan():
    """Rows with ``gold`` are graded as the plan says (``extract``,
    ``match``), recorded in the plan and in the settings."""
    a = [{"problem": f"p{i}", "gold": "B", "response": "The answer is (B)."} for i in range(10)]
    b = [{"problem": f"p{i}", "gold": "B", "response": "I pick (C)." if i < 5 else "(B)"} for i in range(10)]
    g = rollstat.gate(baseline=a, candidate=b, margin=0.01, extract="mcq", match="exact", **FAST)
    assert 'extract = "mcq"' in g.plan["text"] and 'match = "exact"' in g.plan["text"]
    assert g.settings["grading"] == "exact-string, extract=mcq"
    assert (g.benchmarks[0]["a"], g.benchmarks[0]["b"]) == (1.0, 0.5)
    same = rollstat.gate({"margin": 0.01, "extract": "mcq", "match": "exact", **FAST, "baseline": a, "candidate": b})
    assert numbers(same.to_dict()) == numbers(g.to_dict())


def test_relative_paths_of_a_dict_start_at_the_working_directory(runs, monkeypatch):
    monkeypatch.chdir(runs)
    rel = rollstat.gate({"margin": 0.05, **FAST, "baseline": "a/*.jsonl", "candidate": ["b/mcq.jsonl", "b/math.jsonl"]})
    absolute = rollstat.gate(
        {"margin": 0.05, **FAST, "baseline": str(runs / "a"), "candidate": [str(runs / "b" / f"{n}.jsonl") for n in SUITE]}
    )
    assert sorted(r["name"] for r in rel.benchmarks) == sorted(SUITE)
    by_name = {r["name"]: r for r in absolute.table()}
    assert all(r == by_name[r["name"]] for r in rel.table())
    assert rel.benchmarks[0]["inputs_a"][0]["path"] == "./a/math.jsonl"  # as the command's short form names it
