"""What ``report(data)`` and ``compare(a, b)`` accept, turned into sources
for the engine: paths (files or directories) as strings, in-memory rows as
``(name, rows, label, default)`` tuples that the extension writes as JSON
Lines (the same rows a file would hold)."""

from __future__ import annotations

import datetime
import decimal
import os
from collections.abc import Mapping
from typing import Any, Dict, List, Tuple

from ._rollstat import InputError


def json_default(x: Any) -> Any:
    """Values JSON has no type for, as ``json.dumps(default=...)`` would take
    them: numpy scalars and arrays, pandas/Arrow missing values, dates."""
    name = type(x).__name__
    if name in ("NAType", "NaTType"):
        return None
    if hasattr(x, "tolist"):  # numpy arrays and scalars, pandas arrays
        return x.tolist()
    if hasattr(x, "as_py"):  # pyarrow scalars
        return x.as_py()
    if isinstance(x, (datetime.datetime, datetime.date, datetime.time)):
        return x.isoformat()
    if isinstance(x, decimal.Decimal):
        return float(x)
    if isinstance(x, Mapping):
        return dict(x)
    raise TypeError(f"cannot convert a value of type {name}")


def _module(x: Any) -> str:
    return type(x).__module__.split(".")[0]


def _is_path(x: Any) -> bool:
    return isinstance(x, (str, os.PathLike))


def _path(x: Any) -> str:
    p = os.fspath(x)
    if isinstance(p, bytes):
        p = os.fsdecode(p)
    if not os.path.exists(p):
        raise FileNotFoundError(f"{p}: no such file or directory")
    return p


def rows_of(data: Any) -> Tuple[Any, str]:
    """(rows as an iterable of dicts, how a row is named: ``data`` →
    ``data[3]``, ``data.iloc`` → ``data.iloc[3]``) for a DataFrame, an Arrow
    table or stream, or a sequence of dicts."""
    mod = _module(data)
    if mod == "pandas" and hasattr(data, "to_dict"):
        if not hasattr(data, "columns"):
            raise TypeError("data: a pandas Series is not a table of rows; pass a DataFrame")
        return data.to_dict("records"), ".iloc"
    if mod == "polars":
        if hasattr(data, "collect") and not hasattr(data, "to_dicts"):
            data = data.collect()  # a LazyFrame
        if hasattr(data, "to_dicts"):
            return data.to_dicts(), ""
    if mod == "pyarrow":
        if hasattr(data, "read_all"):  # RecordBatchReader
            data = data.read_all()
        if hasattr(data, "to_pylist"):
            return data.to_pylist(), ""
    if hasattr(data, "__arrow_c_stream__") or hasattr(data, "__arrow_c_array__"):
        try:
            import pyarrow as pa
        except ImportError:
            raise TypeError(
                f"data: {type(data).__name__} exposes the Arrow PyCapsule interface; "
                "reading it needs pyarrow in this release (pip install pyarrow)"
            ) from None
        return pa.table(data).to_pylist(), ""
    if isinstance(data, Mapping):
        raise TypeError("data: a single dict is not a data set; pass a list of row dicts")
    if isinstance(data, (bytes, bytearray)):
        raise TypeError("data: bytes are not accepted; pass a path, a DataFrame or a list of row dicts")
    try:
        rows = list(data)
    except TypeError:
        raise TypeError(
            f"data: expected a path, a list of paths, a DataFrame, an Arrow table or a list of row dicts, "
            f"found {type(data).__name__}"
        ) from None
    return rows, ""


def sources(data: Any, name: str, label: str) -> Tuple[List[Any], Dict[str, str]]:
    """The engine sources of one ``data`` argument, and the in-memory names
    to rewrite in messages (``{"<data>": "data"}``)."""
    if _is_path(data):
        return [_path(data)], {}
    if isinstance(data, (list, tuple)) and data and all(_is_path(x) for x in data):
        return [_path(x) for x in data], {}
    rows, suffix = rows_of(data)
    if rows and all(_is_path(x) for x in rows):
        return [_path(x) for x in rows], {}
    for i, r in enumerate(rows):
        if _is_path(r):
            raise TypeError(f"{label}[{i}]: a path among rows; pass either paths or row dicts")
        if not isinstance(r, Mapping):
            raise InputError(f"{label}{suffix}[{i}]: a row must be a dict, found {type(r).__name__}")
        if not isinstance(r, dict):
            rows[i] = dict(r)
    return [(name, rows, label + suffix, json_default)], {name: label + suffix}
