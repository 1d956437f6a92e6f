//! The count-based estimators over numpy arrays: argument conversion only.
//!
//! The Python layer (`rollstat/_estimators.py`) broadcasts `n`, `c`, `k`
//! (and `tau`) to one shape and hands over flat contiguous arrays, each
//! either of the output's length or of length 1 (broadcast in core without
//! a copy). The values come from [`rollstat_core::counts`], with pass@k and
//! pass^k at n > 67 within 5·10⁻¹⁴ relative of exact
//! ([`Accuracy::Bounded`]); every other value is the engine's own. The
//! output is a new numpy array left uninitialised (no zero-filling pass),
//! written while the GIL is released.

use numpy::{Element, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rollstat_core::counts::{
    fill_counts, fill_counts_varying, Accuracy, BadProblem, Count, Family,
};

fn family(kind: &str) -> PyResult<Family> {
    Ok(match kind {
        "pass_at_k" => Family::PassAtK,
        "pass_pow_k" => Family::PassPowK,
        "g_pass_at_k" => Family::GPassAtK,
        "mg_pass_at_k" => Family::MgPassAtK,
        other => {
            return Err(PyValueError::new_err(format!(
                "unknown estimator '{other}'"
            )))
        }
    })
}

/// The broadcast length of flat arrays of lengths `lens` (each 1 or the
/// output's length; 0 if any is empty).
fn output_len(lens: &[usize]) -> PyResult<usize> {
    let size = if lens.contains(&0) {
        0
    } else {
        lens.iter().copied().max().unwrap_or(0)
    };
    if lens.iter().any(|&l| l != 1 && l != size) {
        return Err(PyValueError::new_err(format!(
            "arrays of lengths {lens:?} do not broadcast (each must be 1 or the output's length)"
        )));
    }
    Ok(size)
}

/// A new float64 array of `size` elements filled by `fill` with the GIL
/// released; `Err(bad)` from `fill` drops it.
fn filled<'py>(
    py: Python<'py>,
    size: usize,
    fill: impl FnOnce(&mut [f64]) -> Result<(), BadProblem> + Send,
) -> Result<Bound<'py, PyArray1<f64>>, BadProblem> {
    // SAFETY: f64 has no invalid bit patterns, and the array is only
    // returned after every element was written (else it is dropped).
    let array = unsafe { PyArray1::<f64>::new(py, size, false) };
    // SAFETY: `array` was just created here and no other reference to its
    // data exists; it outlives `out`, which is only used inside `detach`.
    let out: &mut [f64] = unsafe { array.as_slice_mut() }.expect("a new array is contiguous");
    py.detach(|| fill(out))?;
    Ok(array)
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
    let family = family(kind)?;
    let slice = |name: &str, e: numpy::AsSliceError| PyValueError::new_err(format!("{name}: {e}"));
    let ns = n.as_slice().map_err(|e| slice("n", e))?;
    let cs = c.as_slice().map_err(|e| slice("c", e))?;
    let ks = k.as_slice().map_err(|e| slice("k", e))?;
    let ts = tau.as_slice().map_err(|e| slice("tau", e))?;
    let size = output_len(&[ns.len(), cs.len(), ks.len(), ts.len()])?;
    // τ is read by G-Pass@k only: one k is one estimator for the others.
    let one = ks.len() == 1 && (ts.len() == 1 || family != Family::GPassAtK);
    let values = filled(py, size, |out| {
        if one {
            let est = family.at(ks[0], ts[0]);
            fill_counts(est, Accuracy::Bounded, ns, cs, out)
        } else {
            fill_counts_varying(family, Accuracy::Bounded, ns, cs, ks, ts, out)
        }
    });
    match values {
        Ok(array) => Ok((array, -1)),
        Err(bad) => Ok((PyArray1::from_vec(py, Vec::new()), bad.index as i64)),
    }
}

/// Reads `a` as a flat contiguous array of `T`, if it is one.
fn slice_of<'a, 'py, T: Element>(a: &'a Option<PyReadonlyArray1<'py, T>>) -> Option<&'a [T]> {
    a.as_ref().and_then(|a| a.as_slice().ok())
}

/// The values of pass@k or pass^k at `k` for the flat count arrays `n` and
/// `c` of one dtype, or the first bad problem's index and reason code.
fn run<'py, T: Count>(
    py: Python<'py>,
    family: Family,
    k: u64,
    n: &[T],
    c: &[T],
) -> PyResult<(Bound<'py, PyArray1<f64>>, i64, u8)> {
    let size = output_len(&[n.len(), c.len()])?;
    let est = family.at(k, 0.0);
    match filled(py, size, |out| {
        fill_counts(est, Accuracy::Bounded, n, c, out)
    }) {
        Ok(array) => Ok((array, -1, 0)),
        Err(bad) => Ok((
            PyArray1::from_vec(py, Vec::new()),
            bad.index as i64,
            bad.reason as u8,
        )),
    }
}

/// `estimate_counts(kind, n, c, k) -> (values, bad, reason)`: pass@k
/// (`kind` `pass_at_k`) or pass^k (`pass_pow_k`) at one k for every
/// problem; `NaN` where undefined (k > n). `n` and `c` are flat
/// contiguous arrays of one dtype — int64, int32, uint64 or uint32 — each
/// of the output's length or of length 1, read in place (no copy, signs
/// checked on the way). `bad` is the first index without a value (the
/// values are then not computed), or -1; `reason` says why: 0 c > n,
/// 1 n < 0, 2 c < 0. The GIL is released.
#[pyfunction]
pub fn estimate_counts<'py>(
    py: Python<'py>,
    kind: &str,
    n: &Bound<'py, PyAny>,
    c: &Bound<'py, PyAny>,
    k: u64,
) -> PyResult<(Bound<'py, PyArray1<f64>>, i64, u8)> {
    let family = family(kind)?;
    if !matches!(family, Family::PassAtK | Family::PassPowK) || k == 0 {
        return Err(PyValueError::new_err(
            "estimate_counts computes pass_at_k and pass_pow_k at k >= 1",
        ));
    }
    macro_rules! typed {
        ($t:ty) => {
            let (na, ca) = (
                n.extract::<PyReadonlyArray1<$t>>().ok(),
                c.extract::<PyReadonlyArray1<$t>>().ok(),
            );
            if let (Some(ns), Some(cs)) = (slice_of(&na), slice_of(&ca)) {
                return run(py, family, k, ns, cs);
            }
        };
    }
    typed!(i64);
    typed!(i32);
    typed!(u64);
    typed!(u32);
    Err(PyValueError::new_err(
        "n and c: flat contiguous arrays of one dtype (int64, int32, uint64 or uint32)",
    ))
}
