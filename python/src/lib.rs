//! `rollstat._rollstat`: the compiled half of the `rollstat` Python package.
//!
//! A thin layer over the engine crate (`rollstat`): the pure-Python package
//! (`python/rollstat/__init__.py`) turns keyword arguments and data into the
//! plain values these functions take, and wraps what they return (JSON
//! documents, numpy arrays) in Python objects. Every heavy call releases the
//! GIL.
//!
//! - [`estimators`]: pass@k, pass^k, G-Pass@k, mG-Pass@k over numpy
//!   arrays: argument conversion around `rollstat_core::counts`, which
//!   computes them.
//! - [`engine`]: report, compare and power, with errors and findings worded
//!   with the Python keyword arguments; [`options`]: the keyword arguments
//!   (one dict) → the engine's options, and the engine's defaults.
//! - [`gate`]: one release decision over a suite (a plan file or dict,
//!   paths and in-memory data) → the `rollstat.gate/1` document.
//! - [`rank`]: many systems ranked on the problems they share → the
//!   `rollstat.rank/1` document.
//! - [`arrow`]: Arrow C streams (DataFrames, Arrow tables) → record batches,
//!   which the engine reads as rows (`rollstat::ArrowTable`).
//! - [`convert`]: Python rows (dicts) → in-memory rows.
//! - [`catalogue`]: the metric catalogue (families, a key's family).
//! - [`grading`]: answer extraction and equivalence.
//! - [`pages`]: the typed report / comparison and their HTML pages (the
//!   renderer the command uses).
//! - [`summary`]: summary tables across the Arrow C stream interface.

use pyo3::prelude::*;

mod arrow;
mod catalogue;
mod convert;
mod engine;
mod estimators;
mod gate;
mod grading;
mod options;
mod pages;
mod rank;
mod summary;
mod wording;

pyo3::create_exception!(
    rollstat,
    InputError,
    pyo3::exceptions::PyValueError,
    "Bad input or options: names the keyword argument, or the row (`path:line`, `data[i]`), and the reason."
);

pyo3::create_exception!(
    rollstat,
    MalformedRows,
    InputError,
    "Nothing to report because every row was malformed: args are (message, how many rows, [(row, reason), …] for the first few)."
);

#[pymodule]
fn _rollstat(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("InputError", m.py().get_type::<InputError>())?;
    m.add("MalformedRows", m.py().get_type::<MalformedRows>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_function(wrap_pyfunction!(estimators::estimate, m)?)?;
    m.add_function(wrap_pyfunction!(estimators::estimate_counts, m)?)?;
    m.add_function(wrap_pyfunction!(engine::report, m)?)?;
    m.add_function(wrap_pyfunction!(engine::compare, m)?)?;
    m.add_function(wrap_pyfunction!(engine::power, m)?)?;
    m.add_function(wrap_pyfunction!(gate::gate, m)?)?;
    m.add_function(wrap_pyfunction!(options::defaults, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue::metric_catalogue, m)?)?;
    m.add_function(wrap_pyfunction!(catalogue::metric_family, m)?)?;
    m.add_function(wrap_pyfunction!(pages::power_text, m)?)?;
    m.add_class::<pages::TypedReport>()?;
    m.add_class::<pages::TypedComparison>()?;
    m.add_class::<pages::TypedGate>()?;
    m.add_function(wrap_pyfunction!(rank::rank, m)?)?;
    m.add_class::<pages::TypedRanking>()?;
    m.add_function(wrap_pyfunction!(engine::summarize, m)?)?;
    m.add_function(wrap_pyfunction!(engine::merge, m)?)?;
    m.add_class::<summary::SummaryTable>()?;
    m.add_function(wrap_pyfunction!(summary::summary_from_jsonl, m)?)?;
    m.add_function(wrap_pyfunction!(grading::grade, m)?)?;
    m.add_function(wrap_pyfunction!(grading::extract_answer, m)?)?;
    m.add_function(wrap_pyfunction!(grading::is_equivalent, m)?)?;
    Ok(())
}
