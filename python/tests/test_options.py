"""One option surface: the keyword arguments of report, compare, summarize
and power, their defaults and their stubs agree with the engine's options
(``_rollstat.defaults()``: ``ReportOptions::default()`` and its siblings)."""

from __future__ import annotations

import ast
import inspect
import math
from pathlib import Path
from typing import Any, Dict

import pytest

import rollstat
from rollstat import _rollstat

STUB = Path(rollstat.__file__).with_name("__init__.pyi")
DEFAULTS: Dict[str, Dict[str, Any]] = _rollstat.defaults()
FUNCTIONS = ("report", "compare", "summarize", "power", "gate", "rank")

# A keyword whose documented default is None where the engine's default is
# something else, and why that is the same thing.
NONE_IS_DEFAULT = {
    # None: no extrapolation, the engine's empty list.
    ("report", "extrapolate"),
    # None: no budget-matched rows. compare matches budgets only for a named
    # field, so the engine's "auto" reads nothing there either.
    ("compare", "budget"),
    # gate's settings: None is the plan's value, else the engine's default.
    # A plan declares them and refuses them as keywords (as the command
    # refuses its flags), so "not given" must differ from any value;
    # test_gate_settings_default_to_the_engines checks what None gives.
    *(
        ("gate", k)
        for k in (
            "metric", "weights", "rule", "tier", "alpha", "mid_p", "seed", "resamples", "permutations", "flips",
            "extract", "match",
        )
    ),
}


def keywords(fn: Any) -> Dict[str, inspect.Parameter]:
    return {p.name: p for p in inspect.signature(fn).parameters.values() if p.kind is p.KEYWORD_ONLY}


def same(python: Any, engine: Any) -> bool:
    if isinstance(python, (tuple, list)) and isinstance(engine, list):
        return len(python) == len(engine) and all(same(a, b) for a, b in zip(python, engine))
    if isinstance(python, bool) or isinstance(engine, bool):
        return python is engine
    if isinstance(python, (int, float)) and isinstance(engine, (int, float)):
        return math.isclose(python, engine, rel_tol=0, abs_tol=0)
    return python == engine


def stub_functions() -> Dict[str, ast.FunctionDef]:
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


@pytest.mark.parametrize("name", FUNCTIONS)
def test_keywords_are_the_engines_options(name):
    """Every engine option is a keyword argument and every keyword argument an
    engine option: nothing is added on one side only."""
    assert set(keywords(getattr(rollstat, name))) == set(DEFAULTS[name])


@pytest.mark.parametrize("name", FUNCTIONS)
def test_signature_defaults_are_the_engines(name):
    for key, p in keywords(getattr(rollstat, name)).items():
        engine = DEFAULTS[name][key]
        if (name, key) in NONE_IS_DEFAULT:
            assert p.default is None, (name, key)
            continue
        assert same(p.default, engine), f"{name}({key}=…): Python {p.default!r}, engine {engine!r}"


def test_documented_defaults_match_the_cli_flags():
    """The values the engine gives are those its other front end shows: the
    seed, level and resamples of the design review's example."""
    r = DEFAULTS["report"]
    assert (r["ci"], r["level"], r["resamples"], r["seed"]) == ("bootstrap", 0.95, 10_000, 20_260_729)
    assert rollstat.DEFAULT_SEED == r["seed"] and list(rollstat.DEFAULT_TAU) == r["tau"]


@pytest.mark.parametrize("name", FUNCTIONS)
def test_stub_signature_is_the_functions(name):
    """The stub names the same parameters in the same order and kinds (keyword
    only after ``*``), each with a default where the function has one."""
    stub = stub_functions()[name]
    params = list(inspect.signature(getattr(rollstat, name)).parameters.values())
    positional = [a.arg for a in stub.args.args]
    keyword_only = [a.arg for a in stub.args.kwonlyargs]
    assert positional == [p.name for p in params if p.kind is p.POSITIONAL_OR_KEYWORD]
    assert keyword_only == [p.name for p in params if p.kind is p.KEYWORD_ONLY]
    assert all(d is not None for d in stub.args.kw_defaults), f"{name}: a keyword without a default in the stub"
    positional_defaults = [p for p in params if p.kind is p.POSITIONAL_OR_KEYWORD and p.default is not p.empty]
    assert len(stub.args.defaults) == len(positional_defaults)
    for d in list(stub.args.defaults) + list(stub.args.kw_defaults):
        # The stub shows no value of its own: `...`, the function's default.
        assert isinstance(d, ast.Constant) and d.value is Ellipsis


@pytest.mark.parametrize("name", FUNCTIONS)
def test_stub_annotations_allow_the_defaults(name):
    """A keyword whose default is None is Optional in the stub."""
    stub = stub_functions()[name]
    for a in stub.args.kwonlyargs:
        p = inspect.signature(getattr(rollstat, name)).parameters[a.arg]
        if p.default is None:
            text = ast.unparse(a.annotation)
            assert "Optional" in text or "None" in text, f"{name}({a.arg}): {text} does not allow None"


def test_unknown_options_are_refused_by_the_extension():
    with pytest.raises(TypeError, match="unknown option"):
        _rollstat.report([], {"resampels": 10})


def test_an_empty_options_dict_is_every_default():
    rows = [{"problem": f"p{i}", "rollout": j, "correct": (i + j) % 3 == 0} for i in range(8) for j in range(4)]
    text, _, _, _ = _rollstat.report([("<data>", "dicts", rows, "data", None)], {})
    assert text == rollstat.report(rows).to_json()


def test_print_is_the_table_the_cli_prints(cli, demo, tmp_path):
    """``print(report)`` is ``rollstat report``'s terminal table for the same
    rows, options named as keyword arguments instead of flags."""
    r = rollstat.report(str(demo), by="group", resamples=500)
    out = cli.run("report", str(demo), "--by", "group", "--resamples", "500").stdout
    words = {"--all adds": "all=True adds", "with --tau)": "with tau=)", "(consider --ci beta-binomial)": "(consider ci='beta-binomial')"}
    for flag, keyword in words.items():
        out = out.replace(flag, keyword)
    assert str(r) == out.rstrip("\n")

    path = tmp_path / "report.json"
    path.write_text(r.to_json(), encoding="utf-8")
    p = rollstat.power(str(path), metric="pass@1")
    assert str(p) == cli.run("power", str(path), "--metric", "pass@1").stdout.rstrip("\n")


def test_extension_stub_names_what_the_extension_has():
    """``_rollstat.pyi`` declares the options entry points and table methods
    the package calls."""
    tree = ast.parse(Path(_rollstat.__file__).with_name("_rollstat.pyi").read_text(encoding="utf-8"))
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    classes = {n.name: {m.name for m in n.body if isinstance(m, ast.FunctionDef)} for n in tree.body if isinstance(n, ast.ClassDef)}
    for name in ("defaults", "report", "compare", "summarize", "power", "power_text", "gate", "rank"):
        assert name in functions and callable(getattr(_rollstat, name)), name
    for name in ("report", "compare", "summarize"):
        assert [a.arg for a in functions[name].args.args] == ["sources", "options"], name
    assert {"text", "html"} <= classes["TypedReport"] and {"text", "html"} <= classes["TypedComparison"]
    assert {"text", "html", "from_json", "exit_code"} <= classes["TypedGate"]
    assert [a.arg for a in functions["gate"].args.args] == ["plan", "data"]


def test_gate_settings_default_to_the_engines():
    """A gate given no settings runs with the engine's (``GatePlan::default()``)."""
    rows = [{"problem": f"p{i}", "correct": i % 3 > 0} for i in range(12)]
    g = rollstat.gate(baseline=rows, candidate=rows, margin=0.05)
    d, s = DEFAULTS["gate"], g.settings
    assert g.plan["source"] == "keyword arguments"
    for key in ("metric", "weights", "rule", "alpha", "mid_p", "seed", "resamples", "permutations", "cluster_by"):
        assert same(s[key], d[key]), key
    assert s["flips_listed"] == d["flips"] and g.benchmarks[0]["tier"] == d["tier"]
    assert s["grading"] == rollstat.gate(baseline=rows, candidate=rows, margin=0.05, extract=d["extract"],
                                         match=d["match"]).settings["grading"]
    assert (d["margin"], d["relative_margin"], d["suite_margin"], d["format"]) == (None, None, None, None)
