//! report, compare and power: keyword arguments → the engine's typed
//! options → the finished document as JSON text (findings worded with the
//! keyword arguments). The engine runs with the GIL released.

use crate::convert::rows_to_maps;
use crate::pages::{TypedComparison, TypedReport};
use crate::summary::{summary_of, SummaryTable};
use crate::wording::{engine_error, finding_text};
use crate::InputError;
use pyo3::prelude::*;
use pyo3::types::{PyString, PyTuple};
use rollstat::{
    CompareOptions, FailOn, Finding, Format, GradingPolicy, IntervalMethod, IntervalOptions, Match,
    MessageSink, MetricOptions, PowerOptions, ReportOptions, Source, Table,
};
use std::sync::{Arc, Mutex};

fn bad(keyword: &str, e: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{keyword}: {e}"))
}

/// Sources from the Python layer: a path (`str`), or in-memory rows as a
/// tuple `(name, kind, data, label, default)`: `kind` `"arrow"` for an
/// object with `__arrow_c_stream__` (read column by column), `"summary"`
/// for a summary table (an Arrow stream with the summary header), `"dicts"` for
/// an iterable of dicts (`default` converts values JSON has no type for).
/// `label` names rows in conversion errors (`data` → `data[3]`); `read`
/// names the fields the options read besides the canonical ones.
fn sources(items: &Bound<'_, PyAny>, read: &[String]) -> PyResult<Vec<Source>> {
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
        if kind == "arrow" {
            let batches = crate::arrow::read_stream(&data)?;
            let table = crate::table::ArrowTable::new(batches, read, &label)?;
            out.push(Source::Table {
                name,
                table: Table::new(table),
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

fn source_format(name: Option<&str>, sources: &[Source]) -> PyResult<Option<Format>> {
    let f: Option<Format> = name
        .map(str::parse)
        .transpose()
        .map_err(|e| bad("source_format", e))?;
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

#[allow(clippy::too_many_arguments)]
fn metric_options(
    k: Option<Vec<u64>>,
    tau: Vec<f64>,
    n: Option<u64>,
    denominator: &str,
    tie_policy: &str,
    score_order: &str,
    strict: bool,
    dedupe: Option<&str>,
    max_decompressed: Option<u64>,
    budget: rollstat::Budget,
) -> PyResult<MetricOptions> {
    Ok(MetricOptions {
        k,
        tau,
        n,
        denominator: denominator.parse().map_err(|e| bad("denominator", e))?,
        tie_policy: tie_policy.parse().map_err(|e| bad("tie_policy", e))?,
        score_order: score_order.parse().map_err(|e| bad("score_order", e))?,
        strict,
        dedupe: dedupe
            .map(str::parse)
            .transpose()
            .map_err(|e| bad("dedupe", e))?,
        // None: the default rule (100x the compressed size, at least
        // 256 MiB); a number: a fixed total (u64::MAX: no limit).
        decompress_limit: max_decompressed
            .map(rollstat::DecompressLimit::total)
            .unwrap_or_default(),
        budget,
    })
}

/// `budget`: `"auto"` (`output_tokens` when every rollout has it), `"none"`
/// (off; Python's None) or a field name.
fn budget_option(budget: &str) -> PyResult<rollstat::Budget> {
    budget.parse().map_err(|e| bad("budget", e))
}

/// The budget's field, for [`sources`] (a column it must read).
fn budget_field(budget: &rollstat::Budget) -> Option<String> {
    match budget {
        rollstat::Budget::Field(f) => Some(f.clone()),
        _ => None,
    }
}

fn interval_options(
    ci: &str,
    level: f64,
    resamples: usize,
    seed: u64,
    cluster_by: Option<String>,
) -> PyResult<IntervalOptions> {
    Ok(IntervalOptions {
        method: ci.parse::<IntervalMethod>().map_err(|e| bad("ci", e))?,
        level,
        resamples,
        seed,
        cluster_by,
    })
}

fn grading_policy(extract: &str, matching: &str) -> PyResult<GradingPolicy> {
    let m: Match = matching.parse().map_err(|e| bad("match", e))?;
    GradingPolicy::new(extract, m).map_err(|e| bad("extract", e))
}

/// `(path, line, reason)` of each malformed row skipped.
type BadRows = Vec<(String, u64, String)>;

/// `report(sources, **options) -> (report_json, bad_rows, messages, typed)`.
#[pyfunction]
#[pyo3(signature = (sources, *, k, tau, ci, level, resamples, seed, cluster_by, by, tie_policy,
    score_order, denominator, extract, matching, source_format, strict, per_problem, n, dedupe, max_decompressed, budget,
    extrapolate))]
#[allow(clippy::too_many_arguments)]
pub fn report(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    k: Option<Vec<u64>>,
    tau: Vec<f64>,
    ci: &str,
    level: f64,
    resamples: usize,
    seed: u64,
    cluster_by: Option<String>,
    by: Option<String>,
    tie_policy: &str,
    score_order: &str,
    denominator: &str,
    extract: &str,
    matching: &str,
    source_format: Option<&str>,
    strict: bool,
    per_problem: bool,
    n: Option<u64>,
    dedupe: Option<&str>,
    max_decompressed: Option<u64>,
    budget: &str,
    extrapolate: Vec<u64>,
) -> PyResult<(String, BadRows, Vec<String>, TypedReport)> {
    let budget = budget_option(budget)?;
    let read = named_fields(&[&by, &cluster_by, &budget_field(&budget)]);
    let srcs = self::sources(sources, &read)?;
    let metrics = metric_options(
        k,
        tau,
        n,
        denominator,
        tie_policy,
        score_order,
        strict,
        dedupe,
        max_decompressed,
        budget,
    )?;
    let opts = ReportOptions {
        metrics,
        intervals: interval_options(ci, level, resamples, seed, cluster_by)?,
        grading: grading_policy(extract, matching)?,
        by,
        per_problem,
        extrapolate,
        source_format: self::source_format(source_format, &srcs)?,
        bytes_read: None,
        messages: None,
    };
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

/// `compare(sources, **options) -> (compare_json, messages, typed)`; one source
/// holding both systems (told apart by `by`), or two.
#[pyfunction]
#[pyo3(signature = (sources, *, by, a_name, b_name, group_by, margin, fail_on, metric, permutations,
    k, tau, n, denominator, tie_policy, score_order, strict, dedupe, max_decompressed, ci, level, resamples, seed, cluster_by,
    extract, matching, source_format, budget))]
#[allow(clippy::too_many_arguments)]
pub fn compare(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    by: Option<String>,
    a_name: Option<String>,
    b_name: Option<String>,
    group_by: Option<String>,
    margin: Option<f64>,
    fail_on: Option<&str>,
    metric: Option<Vec<String>>,
    permutations: usize,
    k: Option<Vec<u64>>,
    tau: Vec<f64>,
    n: Option<u64>,
    denominator: &str,
    tie_policy: &str,
    score_order: &str,
    strict: bool,
    dedupe: Option<&str>,
    max_decompressed: Option<u64>,
    ci: &str,
    level: f64,
    resamples: usize,
    seed: u64,
    cluster_by: Option<String>,
    extract: &str,
    matching: &str,
    source_format: Option<&str>,
    budget: &str,
) -> PyResult<(String, Vec<String>, TypedComparison)> {
    let budget = budget_option(budget)?;
    let read = named_fields(&[&by, &cluster_by, &group_by, &budget_field(&budget)]);
    let srcs = self::sources(sources, &read)?;
    let metrics = metric_options(
        k,
        tau,
        n,
        denominator,
        tie_policy,
        score_order,
        strict,
        dedupe,
        max_decompressed,
        budget,
    )?;
    let fail_on = match fail_on {
        None => None,
        Some("inferior") => Some(FailOn::Inferior),
        Some("inconclusive") => Some(FailOn::Inconclusive),
        Some(other) => {
            return Err(bad(
                "fail_on",
                format!("unknown verdict '{other}'; expected 'inferior' or 'inconclusive'"),
            ))
        }
    };
    let said = Arc::new(Mutex::new(Vec::<String>::new()));
    let sink = {
        let said = Arc::clone(&said);
        MessageSink::new(move |m| said.lock().expect("messages").push(m.to_string()))
    };
    let opts = CompareOptions {
        metrics,
        intervals: interval_options(ci, level, resamples, seed, cluster_by)?,
        grading: grading_policy(extract, matching)?,
        by,
        a: a_name,
        b: b_name,
        group_by,
        margin,
        fail_on,
        metric,
        permutations,
        source_format: self::source_format(source_format, &srcs)?,
        messages: Some(sink),
    };
    opts.validate().map_err(engine_error)?;
    let c = py
        .detach(|| rollstat::compare(&srcs, &opts))
        .map_err(engine_error)?;
    let json = Finding::serialize_worded(finding_text, || {
        serde_json::to_string_pretty(&c).expect("a comparison serializes")
    });
    let messages = said.lock().expect("messages").clone();
    Ok((json + "\n", messages, TypedComparison(c)))
}

/// `power(report_json, source, **options) -> power_json`: from parameters
/// (`report_json` None) or from a report.json's text (`source` names it).
#[pyfunction]
#[pyo3(signature = (report_json, source, *, problems, rollouts, delta, alpha, power, correlation,
    omega2, var_between, baseline, sigma2, factors, metric))]
#[allow(clippy::too_many_arguments)]
pub fn power(
    report_json: Option<&str>,
    source: &str,
    problems: Option<f64>,
    rollouts: Option<f64>,
    delta: Option<f64>,
    alpha: f64,
    power: f64,
    correlation: Option<f64>,
    omega2: Option<f64>,
    var_between: Option<f64>,
    baseline: Option<f64>,
    sigma2: Option<f64>,
    factors: Vec<f64>,
    metric: Option<Vec<String>>,
) -> PyResult<String> {
    let opts = PowerOptions {
        problems,
        rollouts,
        delta,
        alpha,
        power,
        correlation,
        omega2,
        var_between,
        baseline,
        sigma2,
        factors,
        metric,
    };
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

/// `summarize(sources, **options) -> SummaryTable`: the per-problem
/// summary (docs/summary.md) of the rows, read as `report` reads them.
#[pyfunction]
#[pyo3(signature = (sources, *, by, cluster_by, extract, matching, source_format, strict, dedupe))]
#[allow(clippy::too_many_arguments)]
pub fn summarize(
    py: Python<'_>,
    sources: &Bound<'_, PyAny>,
    by: Option<String>,
    cluster_by: Option<String>,
    extract: &str,
    matching: &str,
    source_format: Option<&str>,
    strict: bool,
    dedupe: Option<&str>,
) -> PyResult<SummaryTable> {
    let srcs = self::sources(sources, &named_fields(&[&by, &cluster_by]))?;
    let mut opts = ReportOptions {
        metrics: MetricOptions {
            strict,
            dedupe: dedupe
                .map(str::parse)
                .transpose()
                .map_err(|e| bad("dedupe", e))?,
            ..Default::default()
        },
        grading: grading_policy(extract, matching)?,
        by,
        source_format: self::source_format(source_format, &srcs)?,
        ..Default::default()
    };
    opts.intervals.cluster_by = cluster_by;
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
