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


# dtypes the extension reads in place (signs checked there).
_IN_PLACE = (np.dtype(np.int64), np.dtype(np.int32), np.dtype(np.uint64), np.dtype(np.uint32))
_REASONS = ("", "n: counts must be >= 0, found {n}", "c: counts must be >= 0, found {c}")


def _in_place(kind: str, n: Any, c: Any, k: Any) -> Any:
    """pass@k or pass^k at one integer k of two integer arrays of one dtype
    the extension reads in place (no conversion copy, no separate sign
    pass): the values, or None when the arguments are not of that form."""
    if kind not in ("pass_at_k", "pass_pow_k") or not isinstance(n, np.ndarray) or not isinstance(c, np.ndarray):
        return None
    if n.dtype != c.dtype or n.dtype not in _IN_PLACE or n.size == 0:
        return None
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 1 <= k < 2**63:
        return None
    try:
        shape = np.broadcast_shapes(n.shape, c.shape)
    except ValueError:
        return None
    out, bad, reason = _rollstat.estimate_counts(kind, _flat(n, shape), _flat(c, shape), int(k))
    if bad >= 0:
        nb = np.broadcast_to(n, shape).flat[bad]
        cb = np.broadcast_to(c, shape).flat[bad]
        if reason == 0:
            raise InputError(f"c: {cb} correct exceeds n = {nb} rollouts{_where(bad, shape)}")
        raise InputError(_REASONS[reason].format(n=nb, c=cb) + _where(bad, shape))
    return out.reshape(shape)


def estimate(kind: str, n: Any, c: Any, k: Any, tau: Any = 0.0) -> Any:
    """One estimator, broadcast over its arguments (see the public functions)."""
    fast = _in_place(kind, n, c, k)
    if fast is not None:
        return fast
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
