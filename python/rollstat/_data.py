"""What ``report(data)`` and ``compare(a, b)`` accept, turned into sources
for the engine: paths (files or directories) as strings, in-memory rows as
``(name, kind, data, label, default)`` tuples: ``kind`` ``"arrow"`` for
DataFrames and Arrow tables (the extension reads their columns through the
Arrow C stream interface), ``"dicts"`` for lists of row dicts (each read as
its JSON Lines line would be)."""

from __future__ import annotations

import datetime
import decimal
import os
from collections.abc import Mapping
from typing import Any, Dict, List, Optional, Tuple

from ._rollstat import InputError
from ._summary import is_summary


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


def _pandas_table(df: Any) -> Any:
    """A pandas DataFrame as an Arrow table (NaN → null, the index left
    out), or None when pyarrow is missing or cannot type a column (an object
    column mixing strings and numbers): then the frame is read by records."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    try:
        return pa.Table.from_pandas(df, preserve_index=False)
    except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
        return None


def arrow_of(data: Any) -> Tuple[Any, str]:
    """(an object with ``__arrow_c_stream__`` or None, how a row is named:
    ``data`` → ``data[3]``, ``data.iloc`` → ``data.iloc[3]``)."""
    mod = _module(data)
    if mod == "pandas" and hasattr(data, "to_dict"):
        if not hasattr(data, "columns"):
            raise TypeError("data: a pandas Series is not a table of rows; pass a DataFrame")
        return _pandas_table(data), ".iloc"
    if mod == "polars" and hasattr(data, "collect") and not hasattr(data, "to_dicts"):
        data = data.collect()  # a LazyFrame
    if hasattr(data, "__arrow_c_stream__"):
        return data, ""
    if hasattr(data, "__arrow_c_array__"):  # a record batch without the stream interface
        try:
            import pyarrow as pa
        except ImportError:
            raise TypeError(
                f"data: {type(data).__name__} exposes only the Arrow array interface; "
                "reading it needs pyarrow (pip install pyarrow), or pass an object with __arrow_c_stream__"
            ) from None
        return pa.table(data), ""
    return None, ""


def rows_of(data: Any) -> List[Any]:
    """The rows of a pandas DataFrame (by records) or of a sequence of dicts."""
    if _module(data) == "pandas" and hasattr(data, "to_dict"):
        return data.to_dict("records")
    if isinstance(data, Mapping):
        raise TypeError("data: a single dict is not a data set; pass a list of row dicts")
    if isinstance(data, (bytes, bytearray)):
        raise TypeError("data: bytes are not accepted; pass a path, a DataFrame or a list of row dicts")
    try:
        return list(data)
    except TypeError:
        raise TypeError(
            f"data: expected a path, a list of paths, a DataFrame, an Arrow table or a list of row dicts, "
            f"found {type(data).__name__}"
        ) from None


def sources(data: Any, name: str, label: str) -> Tuple[List[Any], Dict[str, str]]:
    """The engine sources of one ``data`` argument, and the in-memory names
    to rewrite in messages (``{"<data>": "data"}``)."""
    if _is_path(data):
        return [_path(data)], {}
    if isinstance(data, (list, tuple)) and data and all(_is_path(x) for x in data):
        return [_path(x) for x in data], {}
    if is_summary(data):
        return [(name, "summary", data, label, None)], {name: label}
    table, suffix = arrow_of(data)
    if table is not None:
        return [(name, "arrow", table, label + suffix, None)], {name: label + suffix}
    rows = rows_of(data)
    if rows and all(_is_path(x) for x in rows):
        return [_path(x) for x in rows], {}
    for i, r in enumerate(rows):
        if _is_path(r):
            raise TypeError(f"{label}[{i}]: a path among rows; pass either paths or row dicts")
        if not isinstance(r, Mapping):
            raise InputError(f"{label}{suffix}[{i}]: a row must be a dict, found {type(r).__name__}")
        if not isinstance(r, dict):
            rows[i] = dict(r)
    return [(name, "dicts", rows, label + suffix, json_default)], {name: label + suffix}


def columns_of(data: Any) -> Optional[List[str]]:
    """The column names of in-memory data (a DataFrame, an Arrow table, row
    dicts: the keys of the first rows), for messages; None for paths."""
    if _is_path(data) or (isinstance(data, (list, tuple)) and data and all(_is_path(x) for x in data)):
        return None
    if hasattr(data, "collect_schema"):  # a polars LazyFrame (DataFrame too)
        return [str(c) for c in data.collect_schema().names()]
    schema = getattr(data, "schema", None)
    names = getattr(schema, "names", None)
    if isinstance(names, list):
        return [str(c) for c in names]
    cols = getattr(data, "columns", None)
    if cols is not None and not callable(cols):
        return [str(c) for c in list(cols)]
    if isinstance(data, (list, tuple)):
        out: List[str] = []
        for r in data[:100]:
            if isinstance(r, Mapping):
                out.extend(str(k) for k in r if str(k) not in out)
        return out
    return None


def _simple(path: str) -> bool:
    return not any(ch in path for ch in ".[]*")


def rename_columns(data: Any, columns: Mapping[str, str]) -> Optional[Any]:
    """``columns`` ({canonical field: column}) applied to in-memory data by
    renaming its columns, when every entry names a plain column (no
    ``records``, paths or wildcards: those are for files); None when it
    does not apply (paths, nested paths, data of another kind)."""
    if _is_path(data) or "records" in columns or not all(_simple(p) for p in columns.values()):
        return None
    present = columns_of(data)
    if present is None:
        return None
    missing = [p for p in columns.values() if p not in present]
    if missing:
        raise InputError(
            f"columns: no column {', '.join(repr(m) for m in missing)} in data "
            f"(its columns: {', '.join(repr(c) for c in present[:20]) or 'none'})"
        )
    rename = {src: field for field, src in columns.items()}
    clash = [f for f in rename.values() if f in present and f not in rename]
    if clash:
        raise InputError(
            f"columns: data already has {', '.join(repr(c) for c in clash)}; "
            "drop that column or map it too"
        )
    if hasattr(data, "rename_columns") and hasattr(data, "column_names"):  # pyarrow
        return data.rename_columns([rename.get(c, c) for c in data.column_names])
    if _module(data) == "polars":
        return data.rename(rename)
    if _module(data) == "pandas" and hasattr(data, "rename"):
        return data.rename(columns=rename)
    if isinstance(data, (list, tuple)) and all(isinstance(r, Mapping) for r in data):
        return [{rename.get(str(k), k): v for k, v in r.items()} for r in data]
    return None
