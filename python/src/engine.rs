//! report, compare, power and summarize: the keyword arguments (one dict,
//! read by [`crate::options`]) → the engine's typed options → the finished
//! document as JSON text (findings worded with the keyword arguments). The
//! engine runs with the GIL released.

use crate::convert::rows_to_maps;
use crate::options::{self, Keywords};
use crate::pages::{TypedComparison, TypedReport};
use crate::summary::{summary_of, SummaryTable};
use crate::wording::{engine_error, finding_text};
use crate::InputError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyString, PyTuple};
use rollstat::{ArrowTable, Finding, Format, MessageSink, Source, Table};
use std::sync::{Arc, Mutex};

fn bad(keyword: &str, e: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{keyword}: {e}"))
}

/// Sources from the Python layer: a path (`str`), or in-memory rows as a
/// tuple `(name, kind, data, label, default)`: `kind` `"arrow"` for an
/// object with `__arrow_c_stream__` (read column by column), `"summary"`
/// for a summary table (an Arrow stream with the summary header), `"bytes"`
/// for a file's content read under `name`, `"dicts"` for
/// an iterable of dicts (`default` converts values JSON has no type for).
/// `label` names rows in conversion errors (`data` → `data[3]`); `read`
/// names the fields the options read besides the canonical ones.
pub(crate) fn sources(items: &Bound<'_, PyAny>, read: &[String]) -> PyResult<Vec<Source>> {
    let mut out = Vec::new();
    for item in items.try_iter()? {
        let item = item?;
        if let Ok(s) = item.cast::<PyString>() {
            out.push(Source::Path(s.to_cow()?.into_owned().into()));
            continue;
        }
        let t = item.cast::<PyTuple>()?;
        let name: String = t.get_item(0)?.extract()?;
        let kind: String = t.get_item(1)?.extract()?;
        let data = t.get_item(2)?;
        let label: String = t.get_item(3)?.extract()?;
        if kind == "summary" {
            // A summary table (docs/summary.md), through the Arrow stream.
            let summary = Box::new(crate::summary::summary_of(&data, &name)?);
            out.push(Source::Summary { name, summary });
            continue;
        }
        if kind == "bytes" {
            // A file's content under a name of the caller's (rank's dict).
            let bytes: Vec<u8> = data.extract()?;
            out.push(Source::Bytes { name, bytes });
            continue;
        }
        if kind == "arrow" {
            let batches = crate::arrow::read_stream(&data)?;
            let table = ArrowTable::new(batches, read, &label).map_err(engine_error)?;
            out.push(Source::Table {
                name,
                table: Table::from(table),
            });
            continue;
        }
        let default = t.get_item(4)?;
        let default = (!default.is_none()).then_some(default);
        let rows = rows_to_maps(&data, &label, default.as_ref())?;
        out.push(Source::Rows { name, rows });
    }
    Ok(out)
}

/// The engine's messages about the reading, kept as they happen.
#[derive(Default)]
pub(crate) struct MessageLog(Arc<Mutex<Vec<String>>>);

impl MessageLog {
    /// A sink that appends to the log.
    pub(crate) fn sink(&self) -> MessageSink {
        let said = Arc::clone(&self.0);
        MessageSink::new(move |m| said.lock().expect("messages").push(m.to_string()))
    }

    /// The messages so far.
    pub(crate) fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.0.lock().expect("messages"))
    }
}

/// The fields named by options (`by`, `cluster_by`, …), for
/// [`sources`].
fn named_fields(names: &[&Option<String>]) -> Vec<String> {
    names.iter().filter_map(|n| n.as_ref().cloned()).collect()
}

/// Whether any source is in-memory rows (canonical rows).
fn has_rows(sources: &[Source]) -> bool {
    sources
        .iter()
        .any(|s| matches!(s, Source::Rows { .. } | Source::Table { .. }))
}

/// `source_format` as the sources allow: in-memory rows are canonical rows.
fn source_format(f: Option<Format>, sources: &[Source]) -> PyResult<Option<Format>> {
    if has_rows(sources) {
        return match f {
            Some(f) if !f.is_canonical() => Err(bad(
                "source_format",
                "in-memory rows are canonical rows; source_format names the format of files only",
            )),
            _ => Ok(None),
        };
    }
    Ok(f)
}

/// The budget's field, for [`sources`] (a column it must read).
fn budget_field(budget: &rollstat::Budget) -> Option<String> {
    match budget {
        rollstat::Budget::Field(f) => Some(f.clone()),
        _ => None,
    }
}

/// `(path, line, reason)` of each malformed row skipped.
type BadRows = Vec<(String, u64, String)>;

/// `report(sources, options) -> (report_json, bad_rows, messages, typed)`;
/// `options`: the keyword arguments ([`crate::options`]).
#[pyfunction]
pub fn report(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
) -> PyResult<(String, BadRows, Vec<String>, TypedReport)> {
    let kw = Keywords::new(options)?;
    let mut opts = options::report_options(&kw)?;
    kw.finish()?;
    let read = named_fields(&[
        &opts.by,
        &opts.intervals.cluster_by,
        &budget_field(&opts.metrics.budget),
    ]);
    let srcs = self::sources(sources, &read)?;
    opts.source_format = self::source_format(opts.source_format, &srcs)?;
    opts.validate().map_err(engine_error)?;
    let r = py
        .detach(|| rollstat::report(&srcs, &opts))
        .map_err(engine_error)?;
    let json = Finding::serialize_worded(finding_text, || r.to_json());
    let bad_rows = r
        .diagnostics
        .bad_rows
        .iter()
        .map(|b| (b.path.clone(), b.line, b.reason.clone()))
        .collect();
    let messages = r.diagnostics.messages.clone();
    Ok((json, bad_rows, messages, TypedReport(r)))
}

/// `compare(sources, options) -> (compare_json, messages, typed)`; one
/// source holding both systems (told apart by `by`), or two.
#[pyfunction]
pub fn compare(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
) -> PyResult<(String, Vec<String>, TypedComparison)> {
    let kw = Keywords::new(options)?;
    let mut opts = options::compare_options(&kw)?;
    kw.finish()?;
    let read = named_fields(&[
        &opts.by,
        &opts.intervals.cluster_by,
        &opts.group_by,
        &budget_field(&opts.metrics.budget),
    ]);
    let srcs = self::sources(sources, &read)?;
    opts.source_format = self::source_format(opts.source_format, &srcs)?;
    let log = MessageLog::default();
    opts.messages = Some(log.sink());
    opts.validate().map_err(engine_error)?;
    let c = py
        .detach(|| rollstat::compare(&srcs, &opts))
        .map_err(engine_error)?;
    let json = Finding::serialize_worded(finding_text, || {
        serde_json::to_string_pretty(&c).expect("a comparison serializes")
    });
    Ok((json + "\n", log.take(), TypedComparison(c)))
}

/// `power(report_json, source, options) -> power_json`: from parameters
/// (`report_json` None) or from a report.json's text (`source` names it).
#[pyfunction]
pub fn power(
    report_json: Option<&str>,
    source: &str,
    options: &Bound<'_, PyDict>,
) -> PyResult<String> {
    let kw = Keywords::new(options)?;
    let opts = options::power_options(&kw)?;
    kw.finish()?;
    let report: Option<rollstat::Report> = report_json
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| {
            bad(
                "report",
                format!("{source} is not a rollstat report.json: {e}"),
            )
        })?;
    let p = rollstat::power(&opts, report.as_ref().map(|r| (source, r))).map_err(engine_error)?;
    Ok(serde_json::to_string_pretty(&p).expect("a power report serializes") + "\n")
}

/// `summarize(sources, options) -> SummaryTable`: the per-problem summary
/// (docs/summary.md) of the rows, read as `report` reads them.
#[pyfunction]
pub fn summarize(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    options: &Bound<'_, PyDict>,
) -> PyResult<SummaryTable> {
    let kw = Keywords::new(options)?;
    let mut opts = options::summarize_options(&kw)?;
    kw.finish()?;
    let read = named_fields(&[&opts.by, &opts.intervals.cluster_by]);
    let srcs = self::sources(sources, &read)?;
    opts.source_format = self::source_format(opts.source_format, &srcs)?;
    py.detach(|| rollstat::summarize(&srcs, &opts))
        .map(SummaryTable)
        .map_err(engine_error)
}

/// `merge(parts) -> SummaryTable`: summaries of shards (summary tables,
/// or JSON Lines text), in order, joined (docs/summary.md, *Merging*).
#[pyfunction]
pub fn merge(py: Python<'_>, parts: Vec<Bound<'_, PyAny>>) -> PyResult<SummaryTable> {
    let parsed = parts
        .iter()
        .enumerate()
        .map(|(i, p)| summary_of(p, &format!("tables[{i}]")))
        .collect::<PyResult<Vec<_>>>()?;
    py.detach(|| rollstat::merge(parsed))
        .map(SummaryTable)
        .map_err(engine_error)
}
