"""Estimators against exact rational arithmetic, broadcasting, NaN and errors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import rollstat
from rollstat import InputError

# ----------------------------------------------------- exact references


def exact_pass_at_k(n: int, c: int, k: int) -> Fraction:
    return 1 - Fraction(math.comb(n - c, k), math.comb(n, k))


def exact_pass_pow_k(n: int, c: int, k: int) -> Fraction:
    return Fraction(math.comb(c, k), math.comb(n, k))


def threshold(k: int, tau: Fraction) -> int:
    return max(math.ceil(tau * k), 1)


def exact_tail(n: int, c: int, k: int, m: int, weight=lambda x: 1) -> Fraction:
    total = math.comb(n, k)
    return sum(
        (Fraction(weight(x) * math.comb(c, x) * math.comb(n - c, k - x), total) for x in range(m, min(c, k) + 1)),
        Fraction(0),
    )


def exact_g_pass_at_k(n: int, c: int, k: int, tau: str) -> Fraction:
    return exact_tail(n, c, k, threshold(k, Fraction(tau)))


def exact_mg_pass_at_k(n: int, c: int, k: int) -> Fraction:
    # (2/k) Σ_{i=⌈k/2⌉+1..k} G-Pass@k_{i/k}
    h = -(-k // 2)
    return Fraction(2, k) * sum((exact_tail(n, c, k, i) for i in range(h + 1, k + 1)), Fraction(0))


def close(value: float, exact: Fraction, rel: float = 1e-13) -> bool:
    e = float(exact)
    return value == e or abs(value - e) <= rel * max(abs(e), 1e-300) or abs(value - e) <= 1e-15


GRID = [(n, c, k) for n in range(0, 13) for c in range(0, n + 1) for k in range(1, 15)]


def grid_arrays():
    n, c, k = (np.array(col, dtype=np.int64) for col in zip(*GRID))
    return n, c, k


def test_pass_at_k_grid_exact():
    n, c, k = grid_arrays()
    got = rollstat.pass_at_k(n, c, k)
    assert got.dtype == np.float64 and got.shape == n.shape
    for (ni, ci, ki), v in zip(GRID, got.tolist()):
        if ki > ni:
            assert math.isnan(v), (ni, ci, ki)
        else:
            # n ≤ 12: one correctly rounded division of exact integers.
            assert v == float(exact_pass_at_k(ni, ci, ki)), (ni, ci, ki, v)


def test_pass_pow_k_grid_exact():
    n, c, k = grid_arrays()
    got = rollstat.pass_pow_k(n, c, k)
    for (ni, ci, ki), v in zip(GRID, got.tolist()):
        if ki > ni:
            assert math.isnan(v)
        else:
            assert v == float(exact_pass_pow_k(ni, ci, ki)), (ni, ci, ki, v)


@pytest.mark.parametrize("tau", ["0", "0.25", "0.3", "0.5", "0.75", "1"])
def test_g_pass_at_k_grid(tau):
    n, c, k = grid_arrays()
    got = rollstat.g_pass_at_k(n, c, k, float(tau))
    for (ni, ci, ki), v in zip(GRID, got.tolist()):
        if ki > ni:
            assert math.isnan(v)
        else:
            assert close(v, exact_g_pass_at_k(ni, ci, ki, tau)), (ni, ci, ki, tau, v)


def test_mg_pass_at_k_grid():
    n, c, k = grid_arrays()
    got = rollstat.mg_pass_at_k(n, c, k)
    for (ni, ci, ki), v in zip(GRID, got.tolist()):
        if ki > ni:
            assert math.isnan(v)
        else:
            assert close(v, exact_mg_pass_at_k(ni, ci, ki)), (ni, ci, ki, v)


def test_g_pass_extremes_are_pass_at_k_and_pass_pow_k():
    n, c, k = grid_arrays()
    ok = k <= n
    np.testing.assert_array_equal(rollstat.g_pass_at_k(n, c, k, 0.0)[ok], rollstat.pass_at_k(n, c, k)[ok])
    np.testing.assert_array_equal(rollstat.g_pass_at_k(n, c, k, 1.0)[ok], rollstat.pass_pow_k(n, c, k)[ok])


LARGE = [
    (2_000_000_000, 1, 1),
    (2_000_000_000, 1, 7),
    (2_000_000_000, 1_000_000_000, 5),
    (2_000_000_000, 1_999_999_990, 3),
    (1_000_003, 17, 40),
    (100_000, 99_000, 25),
    (5_000, 2_500, 64),
    (200, 3, 100),
    (68, 34, 34),
    (1 << 40, 12345, 3),
]


@pytest.mark.parametrize("n,c,k", LARGE)
def test_large_n_exact(n, c, k):
    assert close(rollstat.pass_at_k(n, c, k), exact_pass_at_k(n, c, k), 1e-12)
    assert close(rollstat.pass_pow_k(n, c, k), exact_pass_pow_k(n, c, k), 1e-12)


@pytest.mark.parametrize("n,c,k", [(1_000_000, 400_000, 12), (5_000, 2_500, 16), (200, 70, 30), (2_000_000_000, 10**9, 6)])
def test_large_n_g_pass_and_mg_pass(n, c, k):
    for tau in ("0.25", "0.5", "0.75"):
        assert close(rollstat.g_pass_at_k(n, c, k, float(tau)), exact_g_pass_at_k(n, c, k, tau), 1e-12)
    assert close(rollstat.mg_pass_at_k(n, c, k), exact_mg_pass_at_k(n, c, k), 1e-12)


def test_documented_values():
    assert rollstat.pass_at_k(6, 3, 2) == 0.8
    assert rollstat.pass_at_k(2_000_000_000, 1, 1) == 5e-10
    assert rollstat.pass_pow_k(6, 3, 2) == 0.2
    assert rollstat.g_pass_at_k(8, 4, 5, 0.5) == 0.5
    assert rollstat.mg_pass_at_k(4, 2, 2) == 1.0 / 6.0
    assert rollstat.mg_pass_at_k(1, 1, 1) == 0.0


# ------------------------------------------------------ shapes and types


def test_scalars_give_floats_arrays_give_arrays():
    assert isinstance(rollstat.pass_at_k(10, 3, 2), float)
    assert isinstance(rollstat.pass_at_k(np.int64(10), np.int32(3), 2), float)
    assert isinstance(rollstat.pass_at_k(np.array(10), 3, 2), float)
    out = rollstat.pass_at_k([10], 3, 2)
    assert isinstance(out, np.ndarray) and out.shape == (1,) and out.dtype == np.float64


def test_nan_where_k_exceeds_n():
    assert math.isnan(rollstat.pass_at_k(2, 0, 5))
    assert math.isnan(rollstat.pass_pow_k(3, 3, 4))
    assert math.isnan(rollstat.g_pass_at_k(3, 1, 4, 0.5))
    assert math.isnan(rollstat.mg_pass_at_k(0, 0, 1))
    out = rollstat.pass_at_k([4, 2, 8], [1, 0, 8], 3)
    assert out[0] == 0.75 and math.isnan(out[1]) and out[2] == 1.0


def test_broadcasting_matches_scalar_calls():
    n = np.array([[10], [20], [30]])
    c = np.array([0, 1, 5, 10])
    k = 4
    out = rollstat.pass_at_k(n, c, k)
    assert out.shape == (3, 4)
    for i in range(3):
        for j in range(4):
            assert out[i, j] == rollstat.pass_at_k(int(n[i, 0]), int(c[j]), k)
    taus = np.array([0.25, 0.5, 1.0]).reshape(3, 1, 1)
    g = rollstat.g_pass_at_k(n, c, k, taus)
    assert g.shape == (3, 3, 4)
    assert g[1, 2, 3] == rollstat.g_pass_at_k(30, 10, 4, 0.5)


def test_varying_k_few_and_many_distinct():
    rng = np.random.default_rng(7)
    n = rng.integers(1, 200, size=5000)
    c = (rng.random(5000) * (n + 1)).astype(np.int64).clip(0, n)
    for k in (rng.integers(1, 9, size=5000), rng.integers(1, 300, size=5000)):  # ≤ 64 and > 64 distinct k
        for f in (rollstat.pass_at_k, rollstat.pass_pow_k, rollstat.mg_pass_at_k):
            out = f(n, c, k)
            expect = [f(int(a), int(b), int(kk)) for a, b, kk in zip(n[:300], c[:300], k[:300])]
            np.testing.assert_array_equal(out[:300], np.array(expect))
        tau = rng.choice([0.25, 0.5, 0.75], size=5000)
        out = rollstat.g_pass_at_k(n, c, k, tau)
        expect = [rollstat.g_pass_at_k(int(a), int(b), int(kk), float(t)) for a, b, kk, t in zip(n[:300], c[:300], k[:300], tau[:300])]
        np.testing.assert_array_equal(out[:300], np.array(expect))


def test_large_array_parallel_chunks_agree_with_scalars():
    rng = np.random.default_rng(1)
    n = rng.choice([16, 64, 100, 5000, 10**7], size=200_000)
    c = (rng.random(n.size) * (n + 1)).astype(np.int64).clip(0, n)
    out = rollstat.pass_at_k(n, c, 8)
    idx = rng.integers(0, n.size, size=500)
    for i in idx:
        assert out[i] == rollstat.pass_at_k(int(n[i]), int(c[i]), 8)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32, np.uint64, np.float32, np.float64])
def test_input_dtypes(dtype):
    n = np.array([4, 8, 16], dtype=dtype)
    c = np.array([1, 2, 3], dtype=dtype)
    np.testing.assert_array_equal(rollstat.pass_at_k(n, c, 2), rollstat.pass_at_k([4, 8, 16], [1, 2, 3], 2))


def test_non_contiguous_and_empty_inputs():
    n = np.arange(100, 300)[::3]
    c = np.arange(0, 200)[::3]
    out = rollstat.pass_at_k(n, c, 5)
    assert out[10] == rollstat.pass_at_k(int(n[10]), int(c[10]), 5)
    assert rollstat.pass_at_k(np.array([], dtype=np.int64), 0, 1).shape == (0,)
    assert rollstat.pass_at_k(np.zeros((0, 3), dtype=int), 0, 1).shape == (0, 3)


def fast_path_cases(seed: int, size: int):
    """Large distinct n (the f64 product / telescoping-sum path, n > 4096):
    c spread over [0, n] and concentrated near 0 (1 − R near 0: cancellation
    for the product) and near n, k up to 64 and past it (the engine's path)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(4097, 2_000_000_000, size=size, endpoint=True)
    n[: size // 3] = rng.integers(4097, 100_000, size=size // 3)
    k = rng.choice([2, 3, 8, 16, 40, 64, 65, 100], size=size)
    frac = rng.random(size)
    c = np.where(frac < 0.4, (frac * 50).astype(np.int64), (rng.random(size) * (n + 1)).astype(np.int64))
    c = np.where(frac > 0.9, n - (frac * 30).astype(np.int64), c).clip(0, n)
    return n, c, k


def test_large_distinct_n_within_tolerance_of_exact_fractions():
    n, c, k = fast_path_cases(11, 600)
    got_at = rollstat.pass_at_k(n, c, k)
    got_pow = rollstat.pass_pow_k(n, c, k)
    for i in range(n.size):
        ni, ci, ki = int(n[i]), int(c[i]), int(k[i])
        assert close(got_at[i], exact_pass_at_k(ni, ci, ki), 1e-13), (ni, ci, ki, got_at[i])
        assert close(got_pow[i], exact_pass_pow_k(ni, ci, ki), 1e-13), (ni, ci, ki, got_pow[i])
    # One problem at a time: the same values (a scalar is a one-element array).
    for i in range(0, n.size, 37):
        assert got_at[i] == rollstat.pass_at_k(int(n[i]), int(c[i]), int(k[i]))


def test_few_distinct_n_rows_equal_scalar_calls_and_exact():
    # Few distinct n: every value of each n is computed once (dense rows);
    # the same values as one problem at a time, and exact within 1e-13.
    rng = np.random.default_rng(5)
    n = rng.choice([16, 100, 1000, 70_000], size=20_000)
    c = (rng.random(n.size) * (n + 1)).astype(np.int64).clip(0, n)
    # n values the rows' sample misses: computed per problem, the same bits.
    n[[1, 4, 19_999]] = [5_000, 777, 123_456]
    c[[1, 4, 19_999]] = [3, 700, 61_000]
    for f, exact in ((rollstat.pass_at_k, exact_pass_at_k), (rollstat.pass_pow_k, exact_pass_pow_k)):
        out = f(n, c, 8)
        for i in [1, 4, 19_999, *rng.integers(0, n.size, size=200)]:
            ni, ci = int(n[i]), int(c[i])
            assert out[i] == f(ni, ci, 8), (ni, ci)
            assert close(out[i], exact(ni, ci, 8), 1e-13), (ni, ci, out[i])


def test_large_n_cancellation_regime():
    # Few correct of many: 1 − C(n−c, k)/C(n, k) is tiny, where a plain
    # 1 − product loses digits.
    for n, c, k in [(10**9, 1, 64), (10**6, 2, 16), (123_457, 3, 50), (5_000, 1, 2), (2**52, 1, 3)]:
        assert close(rollstat.pass_at_k(n, c, k), exact_pass_at_k(n, c, k), 1e-13), (n, c, k)


def test_python_big_ints_below_2_63():
    n = 2**62
    assert close(rollstat.pass_at_k(n, 3, 2), exact_pass_at_k(n, 3, 2), 1e-12)


# ---------------------------------------------------------------- errors


def test_c_greater_than_n_raises_input_error_with_index():
    with pytest.raises(InputError, match=r"c: 5 correct exceeds n = 4"):
        rollstat.pass_at_k(4, 5, 1)
    with pytest.raises(ValueError, match=r"at index \(1, 2\)"):
        rollstat.pass_at_k([[9, 9, 9], [9, 9, 2]], [[0, 0, 0], [0, 0, 3]], 1)


@pytest.mark.parametrize(
    "args,pattern",
    [
        ((4, -1, 1), "c: counts must be >= 0"),
        ((-4, 1, 1), "n: counts must be >= 0"),
        ((4, 1.5, 1), "c: counts must be whole numbers"),
        ((4, float("nan"), 1), "c: counts must be finite"),
        ((4, 1, 0), "k: must be at least 1"),
        (([1, 2], [0, 0, 0], 1), "do not broadcast"),
    ],
)
def test_invalid_counts(args, pattern):
    with pytest.raises(InputError, match=pattern):
        rollstat.pass_at_k(*args)


def test_invalid_tau():
    with pytest.raises(InputError, match=r"tau: must be in \[0, 1\]"):
        rollstat.g_pass_at_k(4, 2, 2, 1.5)
    with pytest.raises(InputError, match="tau"):
        rollstat.g_pass_at_k(4, 2, 2, float("nan"))


def test_non_numeric_input_is_a_type_error():
    with pytest.raises(TypeError):
        rollstat.pass_at_k(["a"], 1, 1)


@pytest.mark.parametrize(
    "n,c,k",
    [
        ([9, 2], [0, 3], 5),  # c > n where k > n too
        ([10_000, 5_000], [3, 5_001], 2),  # c > n above the dense rows
        (np.full(40_000, 16), np.r_[np.zeros(39_999, dtype=int), 17], 4),  # in a later chunk
        ([5, 6, 7], 6, 2),  # scalar c
    ],
)
def test_c_greater_than_n_found_on_every_path(n, c, k):
    with pytest.raises(InputError, match="exceeds n"):
        rollstat.pass_at_k(n, c, k)
    with pytest.raises(InputError, match="exceeds n"):
        rollstat.g_pass_at_k(n, c, np.full(np.shape(n), k), 0.5)  # the several-(k, tau) path


def test_large_n_arrays_use_exact_values():
    n = np.array([10_000, 10_000, 2_000_000_000, 5_000])
    c = np.array([3, 3, 10**9, 0])
    out = rollstat.pass_at_k(n, c, 7)
    for i in range(4):
        assert out[i] == rollstat.pass_at_k(int(n[i]), int(c[i]), 7)
        assert close(out[i], exact_pass_at_k(int(n[i]), int(c[i]), 7), 1e-12)
    np.testing.assert_array_equal(rollstat.pass_at_k(n, c, np.array([7, 7, 7, 7])), out)
    np.testing.assert_array_equal(rollstat.pass_at_k(10_000, [3, 4], 7), [out[0], rollstat.pass_at_k(10_000, 4, 7)])


# ------------------------------------------ integer arrays read in place


def in_place_cases(seed: int, size: int):
    """Distinct n in [16, 100,000) (the benchmark's regime) with c spread
    over [0, n], concentrated near 0 (1 − R near 0: the telescoping sum)
    and near n (the edge n − c < k), plus a few n ≤ 67 (the engine's table)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(16, 100_000, size=size)
    n[:50] = rng.integers(1, 68, size=50)
    frac = rng.random(size)
    c = (rng.random(size) * (n + 1)).astype(np.int64)
    c = np.where(frac < 0.25, (frac * 20).astype(np.int64), c)
    c = np.where(frac > 0.85, n - (frac * 80).astype(np.int64), c).clip(0, n)
    return n, c


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.uint32])
@pytest.mark.parametrize("k", [2, 5, 16, 64, 65])
def test_in_place_arrays_against_exact_fractions(dtype, k):
    # Arrays of one integer dtype and one k are read in place (blocks of
    # problems in vector lanes): within 5e-14 of the exact fraction, and the
    # same bits as the per-element path (an array k) and as scalar calls.
    n, c = in_place_cases(31 + k, 6_000)
    nd, cd = n.astype(dtype), c.astype(dtype)
    for f, exact in ((rollstat.pass_at_k, exact_pass_at_k), (rollstat.pass_pow_k, exact_pass_pow_k)):
        got = f(nd, cd, k)
        np.testing.assert_array_equal(got, f(n.astype(np.float64), c.astype(np.float64), np.full(n.size, k)))
        rng = np.random.default_rng(k)
        for i in [*range(0, 60, 3), *rng.integers(0, n.size, size=120)]:
            ni, ci = int(n[i]), int(c[i])
            if k > ni:
                assert math.isnan(got[i])
                continue
            e = exact(ni, ci, k)
            assert close(got[i], e, 5e-14), (f.__name__, ni, ci, k, got[i], float(e))
            assert got[i] == f(ni, ci, k)


def test_in_place_errors_name_the_first_bad_element():
    n = np.array([100, 200, 300, 400, 500] * 2000, dtype=np.int64)
    c = np.full(n.size, 7, dtype=np.int64)
    c[1234] = -3
    with pytest.raises(InputError, match=r"c: counts must be >= 0, found -3 at index 1234"):
        rollstat.pass_at_k(n, c, 4)
    n32 = n.astype(np.int32)
    n32[999] = -1
    with pytest.raises(InputError, match=r"n: counts must be >= 0, found -1 at index 999"):
        rollstat.pass_pow_k(n32, c.astype(np.int32), 4)
    c[1234] = 501
    with pytest.raises(InputError, match=r"c: 501 correct exceeds n = 500 rollouts at index 1234"):
        rollstat.pass_at_k(n, c, 4)


# ------------------------------ distinct n through the falling-factorial table


def table_cases(seed: int, size: int, top: int):
    """Many problems with distinct n below `top` (at most half as many n as
    problems: one shared table of falling factorials), c spread over [0, n],
    at 0 and n, near 0 (the telescoping sum), near n (n − c < k), a few
    n ≤ 67 (the engine's table) and n past the sampled range at positions
    the sample skips (indices 1, 2, 3; the sample takes every ⌊size/4096⌋-th
    problem from 0)."""
    rng = np.random.default_rng(seed)
    n = rng.integers(16, top, size=size)
    n[10:50] = rng.integers(1, 68, size=40)
    n[1:4] = [top + 1, 3 * top, 2_000_000_000]
    frac = rng.random(size)
    c = (rng.random(size) * (n + 1)).astype(np.int64)
    c = np.where(frac < 0.2, (frac * 20).astype(np.int64), c)
    c = np.where(frac > 0.85, n - (frac * 80).astype(np.int64), c)
    c[60:70], c[70:80] = 0, n[70:80]
    return n, c.clip(0, n)


@pytest.mark.parametrize("dtype", [np.int64, np.int32, np.uint64, np.uint32])
@pytest.mark.parametrize("k", [2, 7, 16, 64])
def test_table_path_against_exact_fractions_and_other_paths(dtype, k):
    # 40,000 problems, n < 10,000: pass@k and pass^k from the table (two
    # loads and a division a problem, AVX2 blocks where available). The
    # same bits as the per-element path (an array k, float counts) for every
    # problem, as scalar calls, and within 5e-14 of the exact fraction.
    n, c = table_cases(50 + k, 40_000, 10_000)
    nd, cd = n.astype(dtype), c.astype(dtype)
    rng = np.random.default_rng(k)
    for f, exact in ((rollstat.pass_at_k, exact_pass_at_k), (rollstat.pass_pow_k, exact_pass_pow_k)):
        got = f(nd, cd, k)
        np.testing.assert_array_equal(got, f(n.astype(np.float64), c.astype(np.float64), np.full(n.size, k)))
        for i in [*range(0, 80), *rng.integers(0, n.size, size=300)]:
            ni, ci = int(n[i]), int(c[i])
            if k > ni:
                assert math.isnan(got[i])
                continue
            assert close(got[i], exact(ni, ci, k), 5e-14), (f.__name__, ni, ci, k, got[i])
            assert got[i] == f(ni, ci, k)


def test_table_path_broadcasting_views_and_errors():
    n, c = table_cases(7, 30_000, 8_000)
    # A scalar c broadcast against distinct n; a strided view of n.
    got = rollstat.pass_at_k(n, np.int64(1), 9)
    np.testing.assert_array_equal(got, rollstat.pass_at_k(n.astype(np.float64), 1.0, np.full(n.size, 9)))
    wide = np.stack([n, n]).T.copy()
    np.testing.assert_array_equal(rollstat.pass_pow_k(wide[:, 0], c, 9), rollstat.pass_pow_k(n, c, 9))
    two_d = rollstat.pass_at_k(n.reshape(100, 300), c.reshape(100, 300), 9)
    np.testing.assert_array_equal(two_d.ravel(), rollstat.pass_at_k(n, c, 9))
    # A bad count inside a block the table serves is found and named.
    c2 = c.copy()
    c2[25_001] = n[25_001] + 1
    with pytest.raises(InputError, match=r"at index 25001"):
        rollstat.pass_at_k(n, c2, 9)
    c2[25_001] = -2
    with pytest.raises(InputError, match=r"c: counts must be >= 0, found -2 at index 25001"):
        rollstat.pass_pow_k(n, c2, 9)
