"""What ``gate(plan, ...)`` takes, turned into what the extension reads: a
plan (a TOML file's text, or a dict / the keyword arguments as JSON) and
the in-memory data the plan's sources name.

Every ``baseline`` / ``candidate`` value of a dict plan (or of the short
form) that is not a path is data: a pandas / polars DataFrame, an Arrow
table, or a list of row dicts. It is replaced in the plan by a placeholder
name (``<DataFrame: 120 rows>``), which the plan's record keeps, and handed
to the extension under that name."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

from ._data import json_default
from ._data import sources as _sources
from ._rollstat import InputError

# The keyword arguments that are plan settings, and their key in the plan
# (TOML) where the two differ.
PLAN_KEY = {"flips": "flips_listed", "columns": "map"}

# (kind, text, name, base): what ``_rollstat.gate`` takes as its plan.
PlanText = Tuple[str, str, str, str]


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _rows(data: Any) -> Optional[int]:
    for attr in ("num_rows", "height"):
        n = getattr(data, attr, None)
        if isinstance(n, int):
            return n
    try:
        return len(data)
    except TypeError:
        return None


def _placeholder(data: Any, taken: Dict[str, Any]) -> str:
    """``<DataFrame: 120 rows>`` (``#2``, ``#3`` … when taken)."""
    kind = type(data).__name__
    n = _rows(data)
    base = f"<{kind}: {n} rows" if n is not None else f"<{kind}"
    name, i = base + ">", 1
    while name in taken:
        i += 1
        name = f"{base} #{i}>"
    return name


class Sides:
    """The in-memory data of a plan's sources, by placeholder name, and the
    names to rewrite in messages (placeholder → ``baseline.iloc``)."""

    def __init__(self) -> None:
        self.data: Dict[str, List[Any]] = {}
        self.names: Dict[str, str] = {}

    def entries(self, value: Any, label: str) -> List[str]:
        """One ``baseline`` / ``candidate`` value as the plan's strings:
        paths and globs as written, data as its placeholder."""
        if _is_path(value):
            return [os.fspath(value)]
        if isinstance(value, (list, tuple)) and value and all(_is_path(x) for x in value):
            return [os.fspath(x) for x in value]
        if value is None or isinstance(value, (Mapping, bytes, int, float)):
            raise TypeError(
                f"{label}: expected a path or glob, a list of them, a DataFrame, an Arrow table "
                f"or a list of row dicts, found {type(value).__name__}"
            )
        name = _placeholder(value, self.data)
        srcs, names = _sources(value, name, label)
        self.data[name] = srcs
        self.names.update(names)
        return [name]


def _benchmarks(value: Any, sides: Sides) -> List[Dict[str, Any]]:
    if not isinstance(value, (list, tuple)) or not all(isinstance(b, Mapping) for b in value):
        raise TypeError("plan['benchmark']: expected a list of dicts, one per benchmark")
    out = []
    for i, b in enumerate(value):
        b = dict(b)
        for side in ("baseline", "candidate"):
            if side in b:
                b[side] = sides.entries(b[side], f"plan['benchmark'][{i}]['{side}']")
        out.append(b)
    return out


def _dict_plan(plan: Mapping, sides: Sides) -> Dict[str, Any]:
    out: Dict[str, Any] = {}
    for key, value in plan.items():
        if not isinstance(key, str):
            raise TypeError(f"plan: keys are strings, found {key!r}")
        if key in ("baseline", "candidate"):
            value = sides.entries(value, f"plan['{key}']")
        elif key == "benchmark":
            value = _benchmarks(value, sides)
        out[key] = value
    return out


def _json(plan: Dict[str, Any]) -> str:
    return json.dumps(plan, default=json_default)


def short_form(baseline: Any, candidate: Any, settings: Dict[str, Any]) -> Tuple[PlanText, Sides]:
    """The keyword arguments' plan: the settings given over the engine's
    defaults; each subset (or file, or frame) of the sides is a benchmark."""
    if baseline is None or candidate is None:
        raise InputError("gate: the short form needs both baseline= and candidate= (or pass a plan)")
    sides = Sides()
    plan = {PLAN_KEY.get(k, k): v for k, v in settings.items() if v is not None}
    plan["baseline"] = sides.entries(baseline, "baseline")
    plan["candidate"] = sides.entries(candidate, "candidate")
    return ("json", _json(plan), "keyword arguments", "."), sides


def declared(plan: Any, settings: Dict[str, Any]) -> Tuple[PlanText, Sides]:
    """A plan file (its relative paths against its directory) or a dict
    (against the working directory). The plan declares the analysis:
    settings given besides are refused, as the command refuses flags."""
    given = [k for k, v in settings.items() if v is not None]
    where = os.fspath(plan) if _is_path(plan) else "plan"
    if given:
        raise InputError(
            f"{where}: the plan declares the analysis; set {', '.join(PLAN_KEY.get(k, k) for k in given)} "
            "in the plan (keyword arguments would change it after the fact)"
        )
    sides = Sides()
    if _is_path(plan):
        path = os.fspath(plan)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        return ("toml", text, path, os.path.dirname(path)), sides
    if isinstance(plan, Mapping):
        return ("json", _json(_dict_plan(plan, sides)), "<dict>", "."), sides
    raise TypeError(f"plan: expected a path to a TOML plan or a dict, found {type(plan).__name__}")
