//! The count-based estimators over flat arrays.
//!
//! The Python layer broadcasts `n`, `c`, `k` (and `tau`) to one shape and
//! hands over flat contiguous arrays, each either of the output's length or
//! of length 1 (a scalar, broadcast here without a copy). Values are the
//! engine's scalar functions bit for bit: with one `(k, τ)` every distinct
//! `(n, c)` is computed once ([`EstimatorTable`]) and looked up, in parallel
//! chunks; with several, one table per distinct `(k, τ)` (up to
//! [`MAX_TABLES`]), else each value is computed directly.

use numpy::{PyArray1, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rollstat_core::batch::{CountsEstimator, EstimatorTable};
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
            other => return Err(PyValueError::new_err(format!("unknown estimator '{other}'"))),
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
}

/// The first index in `start..start + len` with c > n.
fn first_bad(n: Arg<u64>, c: Arg<u64>, start: usize, len: usize) -> Option<usize> {
    (start..start + len).find(|&i| c.at(i) > n.at(i))
}

/// One estimator for every element: a shared table, parallel chunks.
fn fill_one(table: &EstimatorTable, n: Arg<u64>, c: Arg<u64>, out: &mut [f64]) {
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
        let start = ci * CHUNK;
        let counts: Vec<(u64, u64)> = (start..start + chunk.len())
            .map(|i| (n.at(i), c.at(i)))
            .collect();
        table.fill(&counts, chunk);
    });
}

/// Several `(k, τ)`: a table per distinct pair when there are few, else
/// the scalar functions.
fn fill_many(kind: Kind, n: Arg<u64>, c: Arg<u64>, k: Arg<u64>, tau: Arg<f64>, out: &mut [f64]) {
    let mut keys: HashMap<(u64, u64), usize> = HashMap::new();
    let mut tables: Vec<EstimatorTable> = Vec::new();
    for i in 0..out.len() {
        let key = (k.at(i), tau.at(i).to_bits());
        if !keys.contains_key(&key) {
            if tables.len() == MAX_TABLES {
                tables.clear();
                break;
            }
            keys.insert(key, tables.len());
            tables.push(EstimatorTable::new(kind.estimator(key.0, tau.at(i))));
        }
    }
    if tables.is_empty() {
        out.par_iter_mut().enumerate().for_each(|(i, o)| {
            *o = kind
                .estimator(k.at(i), tau.at(i))
                .value(n.at(i), c.at(i))
                .unwrap_or(f64::NAN);
        });
        return;
    }
    out.par_chunks_mut(CHUNK).enumerate().for_each(|(ci, chunk)| {
        let start = ci * CHUNK;
        let mut last: Option<((u64, u64), &EstimatorTable)> = None;
        for (j, o) in chunk.iter_mut().enumerate() {
            let i = start + j;
            let key = (k.at(i), tau.at(i).to_bits());
            let table = match last {
                Some((lk, t)) if lk == key => t,
                _ => {
                    let t = &tables[keys[&key]];
                    last = Some((key, t));
                    t
                }
            };
            *o = table.get(n.at(i), c.at(i)).unwrap_or(f64::NAN);
        }
    });
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
    let ns: &[u64] = n.as_slice().map_err(|e| PyValueError::new_err(format!("n: {e}")))?;
    let cs: &[u64] = c.as_slice().map_err(|e| PyValueError::new_err(format!("c: {e}")))?;
    let ks: &[u64] = k.as_slice().map_err(|e| PyValueError::new_err(format!("k: {e}")))?;
    let ts: &[f64] = tau.as_slice().map_err(|e| PyValueError::new_err(format!("tau: {e}")))?;
    let lens = [ns.len(), cs.len(), ks.len(), ts.len()];
    let size = if lens.contains(&0) { 0 } else { *lens.iter().max().unwrap_or(&0) };
    if lens.iter().any(|&l| l != 1 && l != size) {
        return Err(PyValueError::new_err(format!(
            "arrays of lengths {lens:?} do not broadcast (each must be 1 or the output's length)"
        )));
    }
    let (n, c, k, tau) = (Arg(ns), Arg(cs), Arg(ks), Arg(ts));
    let result = py.detach(|| {
        let bad = (0..size.div_ceil(CHUNK))
            .into_par_iter()
            .filter_map(|ci| {
                let s = ci * CHUNK;
                first_bad(n, c, s, CHUNK.min(size - s))
            })
            .min();
        if let Some(b) = bad {
            return Err(b);
        }
        let mut out = vec![0.0f64; size];
        if k.scalar() && tau.scalar() {
            let table = EstimatorTable::new(kind.estimator(k.at(0), tau.at(0)));
            fill_one(&table, n, c, &mut out);
        } else {
            fill_many(kind, n, c, k, tau, &mut out);
        }
        Ok(out)
    });
    match result {
        Ok(out) => Ok((PyArray1::from_vec(py, out), -1)),
        Err(bad) => Ok((PyArray1::from_vec(py, Vec::new()), bad as i64)),
    }
}
