//! The count-based estimators over flat arrays.
//!
//! The Python layer broadcasts `n`, `c`, `k` (and `tau`) to one shape and
//! hands over flat contiguous arrays, each either of the output's length or
//! of length 1 (a scalar, broadcast here without a copy). Values are the
//! engine's scalar functions bit for bit — except pass@k and pass^k at
//! n > [`PASCAL_MAX_N`], computed by [`fast`] within 5·10⁻¹⁴ relative of
//! exact (the engine's double-double path takes microseconds a value, too
//! slow for a million distinct n). pass@k and pass^k at one k go through
//! [`crate::counts`]; for the others, with one `(k, τ)` every distinct
//! `(n, c)` is computed once ([`EstimatorTable`]) and looked up, in
//! parallel chunks;
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

#[derive(Clone, Copy, Debug)]
pub(crate) enum Kind {
    PassAtK,
    PassPowK,
    GPassAtK,
    MgPassAtK,
}

impl Kind {
    pub(crate) fn parse(s: &str) -> PyResult<Kind> {
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

    pub(crate) fn estimator(self, k: u64, tau: f64) -> CountsEstimator {
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
}

/// Largest n the engine's table keeps a dense row for; larger n go to a
/// memo local to each chunk (the table's shared map takes a lock per value).
const DENSE_MAX_N: u64 = 4096;

/// Values of problems with n > [`DENSE_MAX_N`] within one chunk, by
/// `(n, c, k, τ bits)`.
#[derive(Default)]
pub(crate) struct LocalMemo(HashMap<(u64, u64, u64, u64), f64>);

impl LocalMemo {
    pub(crate) fn get(&mut self, kind: Kind, n: u64, c: u64, k: u64, tau: f64) -> f64 {
        *self
            .0
            .entry((n, c, k, tau.to_bits()))
            .or_insert_with(|| kind.estimator(k, tau).value(n, c).unwrap_or(f64::NAN))
    }
}

/// Largest n whose pass@k / pass^k come from the engine's table (whole
/// Pascal-triangle rows, exact); above, from [`fast`].
pub(crate) const PASCAL_MAX_N: u64 = 67;

/// pass@k or pass^k from [`fast`]; `None` for the other estimators and
/// where its bound does not hold.
#[inline]
pub(crate) fn fast_value(kind: Kind, n: u64, c: u64, k: u64) -> Option<f64> {
    match kind {
        Kind::PassAtK => fast::pass_at_k(n, c, k),
        Kind::PassPowK => fast::pass_pow_k(n, c, k),
        _ => None,
    }
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
            crate::counts::fill(kind, k.at(0), n.0, c.0, out).map(|(i, _)| i)
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
