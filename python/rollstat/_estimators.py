"""pass@k, pass^k, G-Pass@k and mG-Pass@k on scalars and numpy arrays."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from . import _rollstat
from ._rollstat import InputError

_U64_MAX = 2**64 - 1


def _counts(x: Any, name: str) -> np.ndarray:
    """Non-negative integers as a uint64 array (no copy for int64/uint64)."""
    try:
        a = np.asarray(x)
    except (OverflowError, ValueError) as e:
        raise InputError(f"{name}: {e}") from None
    kind = a.dtype.kind
    if kind == "u":
        return a if a.dtype == np.uint64 else a.astype(np.uint64)
    if kind == "i":
        if a.size and a.min() < 0:
            raise InputError(f"{name}: counts must be >= 0, found {a.min()}")
        return a.view(np.uint64) if a.dtype == np.int64 else a.astype(np.uint64)
    if kind == "b":
        return a.astype(np.uint64)
    if kind == "f":
        if a.size:
            if not np.isfinite(a).all():
                raise InputError(f"{name}: counts must be finite, found {a[~np.isfinite(a)].flat[0]}")
            if (a < 0).any():
                raise InputError(f"{name}: counts must be >= 0, found {a.min()}")
            if (a != np.floor(a)).any():
                raise InputError(f"{name}: counts must be whole numbers, found {a[a != np.floor(a)].flat[0]}")
            if a.max() > _U64_MAX:
                raise InputError(f"{name}: {a.max()} is too large")
        return a.astype(np.uint64)
    if kind == "O":
        try:
            values = [int(v) for v in a.ravel().tolist()]
        except (TypeError, ValueError):
            raise TypeError(f"{name}: expected integers, found {a.dtype} values") from None
        if any(v < 0 for v in values):
            raise InputError(f"{name}: counts must be >= 0, found {min(values)}")
        if any(v > _U64_MAX for v in values):
            raise InputError(f"{name}: {max(values)} is too large")
        return np.array(values, dtype=np.uint64).reshape(a.shape)
    raise TypeError(f"{name}: expected integers, found {a.dtype} values")


def _taus(x: Any) -> np.ndarray:
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"tau: expected numbers in [0, 1], found {x!r}") from None
    if a.size and not ((a >= 0) & (a <= 1)).all():
        raise InputError(f"tau: must be in [0, 1], found {a[~((a >= 0) & (a <= 1))].flat[0]}")
    return a


def _flat(a: np.ndarray, shape: Tuple[int, ...]) -> np.ndarray:
    """Flat and contiguous: length 1 (broadcast in Rust) or the output's size."""
    if a.size == 1:
        return np.ascontiguousarray(a.reshape(1))
    if a.shape != shape:
        a = np.broadcast_to(a, shape)
    return np.ascontiguousarray(a).reshape(-1)


def _where(index: int, shape: Tuple[int, ...]) -> str:
    if shape == ():
        return ""
    at = np.unravel_index(index, shape)
    return " at index " + (str(int(at[0])) if len(at) == 1 else str(tuple(int(i) for i in at)))


def estimate(kind: str, n: Any, c: Any, k: Any, tau: Any = 0.0) -> Any:
    """One estimator, broadcast over its arguments (see the public functions)."""
    scalar = all(np.ndim(v) == 0 for v in (n, c, k, tau))
    arrays: List[np.ndarray] = [_counts(n, "n"), _counts(c, "c"), _counts(k, "k")]
    if arrays[2].size and (arrays[2] == 0).any():
        raise InputError("k: must be at least 1")
    t = _taus(tau)
    try:
        shape = np.broadcast_shapes(*(a.shape for a in arrays), t.shape)
    except ValueError as e:
        raise InputError(f"n, c, k{', tau' if kind == 'g_pass_at_k' else ''} do not broadcast: {e}") from None
    out, bad = _rollstat.estimate(
        kind,
        _flat(arrays[0], shape),
        _flat(arrays[1], shape),
        _flat(arrays[2], shape),
        _flat(t, shape),
    )
    if bad >= 0:
        nb = np.broadcast_to(arrays[0], shape).flat[bad]
        cb = np.broadcast_to(arrays[1], shape).flat[bad]
        raise InputError(f"c: {cb} correct exceeds n = {nb} rollouts{_where(bad, shape)}")
    out = out.reshape(shape)
    return float(out) if scalar else out
