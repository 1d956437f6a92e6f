//! rank: sources (one system per input, or told apart by `by`) and the
//! keyword arguments → the engine's `rank()` → the `rollstat.rank/1`
//! document as JSON text (findings worded with the keyword arguments).
//! The engine runs with the GIL released.

use crate::engine::{sources as read_sources, MessageLog};
use crate::options::{self, Keywords};
use crate::pages::TypedRanking;
use crate::wording::{engine_error_format_keyword as engine_error, finding_text};
use crate::InputError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rollstat::Finding;

/// `rank(sources, options) -> (rank_json, messages, typed)`; `options`:
/// the keyword arguments ([`crate::options::rank_options`]).
#[pyfunction]
pub fn rank(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
) -> PyResult<(String, Vec<String>, TypedRanking)> {
    let kw = Keywords::new(options)?;
    let mut opts = options::rank_options(&kw)?;
    kw.finish()?;
    // `suite='inputs'` names no field.
    let suite_field = opts.suite.clone().filter(|s| s != "inputs");
    let read: Vec<String> = [&opts.by, &opts.cluster_by, &suite_field]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let srcs = read_sources(sources, &read)?;
    let in_memory = srcs.iter().any(|s| {
        matches!(
            s,
            rollstat::Source::Rows { .. } | rollstat::Source::Table { .. }
        )
    });
    if in_memory && opts.source_format.is_some_and(|f| !f.is_canonical()) {
        return Err(InputError::new_err(
            "format: in-memory rows are canonical rows; format names the format of files only",
        ));
    }
    let log = MessageLog::default();
    opts.messages = Some(log.sink());
    let r = py
        .detach(|| rollstat::rank::rank(&srcs, &opts))
        .map_err(engine_error)?;
    let json = Finding::serialize_worded(finding_text, || {
        serde_json::to_string_pretty(&r).expect("a ranking serializes")
    });
    Ok((json + "\n", log.take(), TypedRanking(r)))
}
