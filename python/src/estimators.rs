//! The count-based estimators over flat arrays.
//!
//! The Python layer broadcasts `n`, `c`, `k` (and `tau`) to one shape and
//! hands over flat contiguous arrays, each either of the output's length or
//! of length 1 (a scalar, broadcast here without a copy). Values are the
//! engine's scalar functions bit for bit — except pass@k and pass^k at
//! n > [`PASCAL_MAX_N`], computed by [`fast`] within 5·10⁻¹⁴ relative of
//! exact (the engine's double-double path takes microseconds a value, too
//! slow for a million distinct n). With one `(k, τ)` every distinct `(n, c)`
//! is computed once ([`EstimatorTable`]) and looked up, in parallel chunks;
//! with several, one table per distinct `(k, τ)` (up to [`MAX_TABLES`]),
//! else each value is computed directly.

use crate::fast;
use numpy::{PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rollstat_core::batch::{CountsEstimator, EstimatorTable};
use std::cell::Cell;
use std::collections::hash_map::Entry;
use std::collections::HashMap;

/// Problems per parallel chunk.
const CHUNK: usize = 1 << 14;

/// Most distinct `(k, τ)` that get a table each.
const MAX_TABLES: usize = 64;

#[derive(Clone, Copy)]
enum Kind {
    PassAtK,
    PassPowK,
    GPassAtK,
    MgPassAtK,
}

impl Kind {
    fn parse(s: &str) -> PyResult<Kind> {
        Ok(match s {
            "pass_at_k" => Kind::PassAtK,
            "pass_pow_k" => Kind::PassPowK,
            "g_pass_at_k" => Kind::GPassAtK,
            "mg_pass_at_k" => Kind::MgPassAtK,
            other => {
                return Err(PyValueError::new_err(format!(
                    "unknown estimator '{other}'"
                )))
            }
        })
    }

    fn estimator(self, k: u64, tau: f64) -> CountsEstimator {
        match self {
            Kind::PassAtK => CountsEstimator::PassAtK(k),
            Kind::PassPowK => CountsEstimator::PassPowK(k),
            Kind::GPassAtK => CountsEstimator::GPassAtK { k, tau },
            Kind::MgPassAtK => CountsEstimator::MgPassAtK(k),
        }
    }
}

/// A flat argument: one value per element, or one for all.
#[derive(Clone, Copy)]
struct Arg<'a, T>(&'a [T]);

impl<T: Copy> Arg<'_, T> {
    #[inline]
    fn at(&self, i: usize) -> T {
        if self.0.len() == 1 {
            self.0[0]
        } else {
            self.0[i]
        }
    }
    fn scalar(&self) -> bool {
        self.0.len() == 1
    }
    /// The `len` values from `start` of an array argument.
    fn chunk(&self, start: usize, len: usize) -> std::iter::Copied<std::slice::Iter<'_, T>> {
        self.0[start..start + len].iter().copied()
    }
    /// A scalar argument `len` times.
    fn repeat(&self, len: usize) -> std::iter::RepeatN<T> {
        std::iter::repeat_n(self.0[0], len)
    }
}

/// Largest n the engine's table keeps a dense row for; larger n go to a
/// memo local to each chunk (the table's shared map takes a lock per value).
const DENSE_MAX_N: u64 = 4096;

/// Values of problems with n > [`DENSE_MAX_N`] within one chunk, by
/// `(n, c, k, τ bits)`.
#[derive(Default)]
struct LocalMemo(HashMap<(u64, u64, u64, u64), f64>);

impl LocalMemo {
    fn get(&mut self, kind: Kind, n: u64, c: u64, k: u64, tau: f64) -> f64 {
        *self
            .0
            .entry((n, c, k, tau.to_bits()))
            .or_insert_with(|| kind.estimator(k, tau).value(n, c).unwrap_or(f64::NAN))
    }
}

/// Largest n whose pass@k / pass^k come from the engine's table (whole
/// Pascal-triangle rows, exact); above, from [`fast`].
const PASCAL_MAX_N: u64 = 67;

/// pass@k or pass^k from [`fast`]; `None` for the other estimators and
/// where its bound does not hold.
#[inline]
fn fast_value(kind: Kind, n: u64, c: u64, k: u64) -> Option<f64> {
    match kind {
        Kind::PassAtK => fast::pass_at_k(n, c, k),
        Kind::PassPowK => fast::pass_pow_k(n, c, k),
        _ => None,
    }
}

/// The value of pass@k or pass^k for one problem with n > [`PASCAL_MAX_N`]:
/// [`fast`], or the engine's function where its bound does not hold.
fn large_n_value(kind: Kind, n: u64, c: u64, k: u64, memo: &mut LocalMemo) -> f64 {
    match fast_value(kind, n, c, k) {
        Some(v) => v,
        None => memo.get(kind, n, c, k, 0.0),
    }
}

/// Most distinct n that get a dense row each in [`DenseRows`].
const MAX_DENSE_ROWS: usize = 64;

/// Every value of each distinct n, when the problems have few distinct n
/// (a benchmark at n = 16, a mix of a few n): a lookup is two loads.
struct DenseRows {
    /// Start of the row of n in `values`, by n (`u32::MAX`: n not present).
    start: Vec<u32>,
    /// The rows, each `n + 1` values (`NaN` where undefined).
    values: Vec<f64>,
}

/// Problems looked at to find the distinct n for [`DenseRows`] (evenly
/// spaced): an n missed is computed per problem, as without rows.
const DENSE_ROWS_SAMPLE: usize = 1 << 16;

impl DenseRows {
    /// The rows of the distinct n among a sample of `ns`, or `None` when
    /// there are more than [`MAX_DENSE_ROWS`] or the rows would hold more
    /// values than half the problems (then computing each problem is
    /// cheaper).
    fn new(kind: Kind, k: u64, ns: &[u64], problems: usize) -> Option<DenseRows> {
        let mut distinct: Vec<u64> = Vec::new();
        for &n in ns.iter().step_by((ns.len() / DENSE_ROWS_SAMPLE).max(1)) {
            if !distinct.contains(&n) {
                if distinct.len() == MAX_DENSE_ROWS {
                    return None;
                }
                distinct.push(n);
            }
        }
        let max = *distinct.iter().max()?;
        let entries: u64 = distinct.iter().map(|&n| n + 1).sum();
        if max >= 1 << 20 || entries > problems as u64 / 2 {
            return None;
        }
        let table = EstimatorTable::new(kind.estimator(k, 0.0));
        let mut memo = LocalMemo::default();
        let mut rows = DenseRows {
            start: vec![u32::MAX; max as usize + 1],
            values: Vec::new(),
        };
        for n in distinct {
            rows.start[n as usize] = rows.values.len() as u32;
            rows.values
                .extend((0..=n).map(|c| value(kind, n, c, k, &table, &mut memo)));
        }
        Some(rows)
    }

    /// The value of `(n, c)` for c ≤ n, if n has a row.
    #[inline]
    fn get(&self, n: u64, c: u64) -> Option<f64> {
        let start = *self.start.get(n as usize)?;
        (start != u32::MAX).then(|| self.values[start as usize + c as usize])
    }
}

/// pass@k or pass^k of one problem (c ≤ n): n ≤ [`PASCAL_MAX_N`] from the
/// engine's table, larger n from [`large_n_value`].
#[inline]
fn value(kind: Kind, n: u64, c: u64, k: u64, table: &EstimatorTable, memo: &mut LocalMemo) -> f64 {
    if n <= PASCAL_MAX_N {
        table.get(n, c).unwrap_or(f64::NAN)
    } else {
        large_n_value(kind, n, c, k, memo)
    }
}

/// Problems below which [`DenseRows`] are not tried.
const DENSE_ROWS_MIN_PROBLEMS: usize = 4096;

/// pass@k or pass^k (a scalar k) for every element: from [`DenseRows`]
/// when there are few distinct n, else from [`value`] (the rows hold its
/// values: either way a value is the same function of `(n, c)`). Returns
/// the first index with c > n.
fn fill_fast(kind: Kind, k: u64, n: Arg<u64>, c: Arg<u64>, out: &mut [f64]) -> Option<usize> {
    let dense = (out.len() >= DENSE_ROWS_MIN_PROBLEMS)
        .then(|| DenseRows::new(kind, k, n.0, out.len()))
        .flatten();
    let table = EstimatorTable::new(kind.estimator(k, 0.0));
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(ci, chunk)| {
            let start = ci * CHUNK;
            let mut memo = LocalMemo::default();
            let mut one = |ni: u64, cj: u64| match dense.as_ref().and_then(|rows| rows.get(ni, cj))
            {
                Some(v) => v,
                None => value(kind, ni, cj, k, &table, &mut memo),
            };
            // Monomorphized per argument layout: no per-element broadcast
            // test in the loop.
            let bad = match (n.scalar(), c.scalar()) {
                (false, false) => fill_pairs(
                    n.chunk(start, chunk.len()),
                    c.chunk(start, chunk.len()),
                    chunk,
                    &mut one,
                ),
                (true, false) => fill_pairs(
                    n.repeat(chunk.len()),
                    c.chunk(start, chunk.len()),
                    chunk,
                    &mut one,
                ),
                (false, true) => fill_pairs(
                    n.chunk(start, chunk.len()),
                    c.repeat(chunk.len()),
                    chunk,
                    &mut one,
                ),
                (true, true) => fill_pairs(
                    n.repeat(chunk.len()),
                    c.repeat(chunk.len()),
                    chunk,
                    &mut one,
                ),
            };
            bad.map(|j| start + j)
        })
        .min()
}

/// `out[j] = value(n_j, c_j)` over paired counts; the first j with c > n
/// stops the fill.
#[inline]
fn fill_pairs(
    ns: impl Iterator<Item = u64>,
    cs: impl Iterator<Item = u64>,
    out: &mut [f64],
    value: &mut impl FnMut(u64, u64) -> f64,
) -> Option<usize> {
    for (j, ((ni, cj), o)) in ns.zip(cs).zip(out.iter_mut()).enumerate() {
        if cj > ni {
            return Some(j);
        }
        *o = value(ni, cj);
    }
    None
}

/// One estimator for every element: a shared table, parallel chunks, each
/// a gather through [`EstimatorTable::fill_with`] over the array argument.
/// Returns the first index with c > n.
fn fill_one(
    kind: Kind,
    k: u64,
    tau: f64,
    n: Arg<u64>,
    c: Arg<u64>,
    out: &mut [f64],
) -> Option<usize> {
    let table = EstimatorTable::new(kind.estimator(k, tau));
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(ci, chunk)| {
            let start = ci * CHUNK;
            let end = start + chunk.len();
            // n above the dense rows go to the local memo below, not to the
            // table's shared (locked) map.
            let large = Cell::new(false);
            let counts = |ni: u64, cj: u64| {
                if ni > DENSE_MAX_N {
                    large.set(true);
                    (0, 0)
                } else {
                    (ni, cj)
                }
            };
            // The items are whichever argument is an array (the position of
            // an item in it is its index in the chunk).
            let undefined = if !c.scalar() {
                let cs = &c.0[start..end];
                let base = cs.as_ptr();
                table.fill_with(
                    cs,
                    |cj| {
                        // SAFETY: `cj` is an element of `cs`.
                        let j = unsafe { (cj as *const u64).offset_from(base) } as usize;
                        counts(n.at(start + j), *cj)
                    },
                    chunk,
                )
            } else {
                let ns = &n.0[start.min(n.0.len() - 1)..end.min(n.0.len())];
                let c0 = c.at(0);
                if ns.len() == chunk.len() {
                    table.fill_with(ns, |&ni| counts(ni, c0), chunk)
                } else {
                    // n, c and the output are all of length 1.
                    table.fill(&[counts(n.at(0), c0)], chunk)
                }
            };
            if undefined.total() > 0 {
                if let Some(i) = (start..end).find(|&i| c.at(i) > n.at(i)) {
                    return Some(i);
                }
            }
            if large.get() {
                let mut memo = LocalMemo::default();
                for (j, o) in chunk.iter_mut().enumerate() {
                    let ni = n.at(start + j);
                    if ni > DENSE_MAX_N {
                        *o = memo.get(kind, ni, c.at(start + j), k, tau);
                    }
                }
            }
            None
        })
        .min()
}

/// Several `(k, τ)`: a table per distinct pair when there are few, else
/// the scalar functions. Returns the first index with c > n.
fn fill_many(
    kind: Kind,
    n: Arg<u64>,
    c: Arg<u64>,
    k: Arg<u64>,
    tau: Arg<f64>,
    out: &mut [f64],
) -> Option<usize> {
    let mut keys: HashMap<(u64, u64), usize> = HashMap::new();
    let mut tables: Vec<EstimatorTable> = Vec::new();
    for i in 0..out.len() {
        let key = (k.at(i), tau.at(i).to_bits());
        if let Entry::Vacant(slot) = keys.entry(key) {
            if tables.len() == MAX_TABLES {
                tables.clear();
                break;
            }
            slot.insert(tables.len());
            tables.push(EstimatorTable::new(kind.estimator(key.0, tau.at(i))));
        }
    }
    out.par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(ci, chunk)| {
            let start = ci * CHUNK;
            let mut last: Option<((u64, u64), &EstimatorTable)> = None;
            let mut memo = LocalMemo::default();
            for (j, o) in chunk.iter_mut().enumerate() {
                let i = start + j;
                let (ni, cj, kj, tj) = (n.at(i), c.at(i), k.at(i), tau.at(i));
                if cj > ni {
                    return Some(i);
                }
                if ni > PASCAL_MAX_N {
                    if let Some(v) = fast_value(kind, ni, cj, kj) {
                        *o = v;
                        continue;
                    }
                }
                if ni > DENSE_MAX_N {
                    *o = memo.get(kind, ni, cj, kj, tj);
                    continue;
                }
                if tables.is_empty() {
                    *o = kind.estimator(kj, tj).value(ni, cj).unwrap_or(f64::NAN);
                    continue;
                }
                let key = (kj, tj.to_bits());
                let table = match last {
                    Some((lk, t)) if lk == key => t,
                    _ => {
                        let t = &tables[keys[&key]];
                        last = Some((key, t));
                        t
                    }
                };
                *o = table.get(ni, cj).unwrap_or(f64::NAN);
            }
            None
        })
        .min()
}

/// `estimate(kind, n, c, k, tau) -> (values, bad)`: the estimator `kind`
/// (`pass_at_k`, `pass_pow_k`, `g_pass_at_k`, `mg_pass_at_k`) for every
/// element; `NaN` where undefined (k > n). Each array is flat, of the
/// output's length or of length 1. `bad` is the first index with c > n
/// (the values are then not computed), or -1. The GIL is released.
#[pyfunction]
pub fn estimate<'py>(
    py: Python<'py>,
    kind: &str,
    n: PyReadonlyArray1<'py, u64>,
    c: PyReadonlyArray1<'py, u64>,
    k: PyReadonlyArray1<'py, u64>,
    tau: PyReadonlyArray1<'py, f64>,
) -> PyResult<(Bound<'py, PyArray1<f64>>, i64)> {
    let kind = Kind::parse(kind)?;
    let ns: &[u64] = n
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("n: {e}")))?;
    let cs: &[u64] = c
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("c: {e}")))?;
    let ks: &[u64] = k
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("k: {e}")))?;
    let ts: &[f64] = tau
        .as_slice()
        .map_err(|e| PyValueError::new_err(format!("tau: {e}")))?;
    let lens = [ns.len(), cs.len(), ks.len(), ts.len()];
    let size = if lens.contains(&0) {
        0
    } else {
        *lens.iter().max().unwrap_or(&0)
    };
    if lens.iter().any(|&l| l != 1 && l != size) {
        return Err(PyValueError::new_err(format!(
            "arrays of lengths {lens:?} do not broadcast (each must be 1 or the output's length)"
        )));
    }
    let (n, c, k, tau) = (Arg(ns), Arg(cs), Arg(ks), Arg(ts));
    // Written in place, while detached: the array is not visible to Python
    // until it is returned. Uninitialized (no zero-filling pass): every fill
    // writes each element, or reports a bad index and the array is dropped.
    // SAFETY: f64 has no invalid bit patterns, and the array is only read
    // (returned) after every element was written.
    let array = unsafe { PyArray1::<f64>::new(py, size, false) };
    // SAFETY: `array` was just created here and no other reference to its
    // data exists; it outlives `out`, which is only used inside `detach`.
    let out: &mut [f64] = unsafe { array.as_slice_mut() }.expect("a new array is contiguous");
    let bad = py.detach(|| {
        let fast_kind = matches!(kind, Kind::PassAtK | Kind::PassPowK);
        if fast_kind && k.scalar() {
            fill_fast(kind, k.at(0), n, c, out)
        } else if k.scalar() && tau.scalar() {
            fill_one(kind, k.at(0), tau.at(0), n, c, out)
        } else {
            fill_many(kind, n, c, k, tau, out)
        }
    });
    match bad {
        None => Ok((array, -1)),
        Some(b) => Ok((PyArray1::from_vec(py, Vec::new()), b as i64)),
    }
}
