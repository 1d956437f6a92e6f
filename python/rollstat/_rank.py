"""What ``rank(...)`` takes, turned into the extension's sources: paths
(one system per file, or told apart by ``by``), DataFrames / Arrow tables /
lists of row dicts, or a dict {system name: data or path}.

In-memory data is handed over under a name that is the system's name when
``by`` is None (the engine names a system by its input): the dict's key,
else ``input1``, ``input2`` … by position. A path in a dict is a file read
as bytes under its key (its extensions kept: ``.jsonl``, ``.csv``,
``.gz``), so the key names the system."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Dict, List, Tuple

from ._data import sources as _sources
from ._rollstat import InputError

_EXTENSIONS = (".gz", ".zst", ".jsonl", ".json", ".csv", ".tsv")


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _extensions(path: str) -> str:
    """The known extensions a path ends with (``.jsonl.gz``)."""
    name, out = os.path.basename(path), ""
    stripped = True
    while stripped:
        stripped = False
        for ext in _EXTENSIONS:
            if name.endswith(ext) and len(name) > len(ext):
                name, out, stripped = name[: -len(ext)], ext + out, True
    return out


def _named_file(key: str, path: Any) -> Tuple[List[Any], Dict[str, str]]:
    p = os.fspath(path)
    if not os.path.isfile(p):
        raise InputError(f"data['{key}']: {p} is not a file (a dict names one system per file or frame)")
    with open(p, "rb") as f:
        raw = f.read()
    name = key + _extensions(p)
    return [(name, "bytes", raw, f"data['{key}']", None)], {name: f"data['{key}']"}


def _check_key(key: Any) -> str:
    if not isinstance(key, str) or not key or "/" in key or "\\" in key:
        raise TypeError(f"data: system names are non-empty strings without '/', found {key!r}")
    return key


def inputs(items: List[Any], by: Any) -> Tuple[List[Any], Dict[str, str]]:
    """The sources of ``rank``'s positional arguments, and the in-memory
    names to rewrite in messages. One frame without ``by`` is one system:
    refused here, in the keyword's words."""
    if not items:
        raise InputError("rank: no input; pass paths, a DataFrame with by=, or a dict {system: data}")
    if len(items) == 1 and isinstance(items[0], Mapping):
        srcs: List[Any] = []
        names: Dict[str, str] = {}
        for key, value in items[0].items():
            key = _check_key(key)
            if _is_path(value):
                s, n = _named_file(key, value)
            else:
                s, n = _sources(value, key, f"data['{key}']")
            srcs += s
            names.update(n)
        return srcs, names
    srcs, names = [], {}
    if len(items) == 1 and not isinstance(items[0], Mapping):
        s, n = _sources(items[0], "input1", "data")
        if by is None and len(s) == 1 and isinstance(s[0], tuple):
            raise InputError(
                "ranking needs two or more systems, found 1 (data): pass by='model' (or the field that tells "
                "the systems apart), a dict {system: data}, or one input per system"
            )
        return s, n
    for i, item in enumerate(items):
        if isinstance(item, Mapping):
            raise TypeError("rank: a dict {system: data} is the only input when given")
        s, n = _sources(item, f"input{i + 1}", "data" if i == 0 else f"data{i + 1}")
        srcs += s
        names.update(n)
    return srcs, names
