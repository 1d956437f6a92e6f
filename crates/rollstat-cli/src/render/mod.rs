//! Renderers: one per output format, all reading the same [`Report`].
//!
//! The table and Markdown renderers share one layout ([`layout`]): a list
//! of rows with already formatted cells, so the two can never disagree.
//! NB: a new field in `MetricEntry` needs a column here and in `csv.rs`.

pub mod compare;
mod csv;
mod markup;
pub mod power;

pub(crate) use markup::{table, Style};

use crate::args::OutputFormat;
use crate::options::finding_text;
use rollstat::{MetricBlock, MetricEntry, Report};

/// Renders `report` in `format`.
pub fn render(report: &Report, format: OutputFormat) -> String {
    match format {
        OutputFormat::Json => json(report),
        OutputFormat::Table => markup::render(report, markup::Style::Terminal),
        OutputFormat::Markdown => markup::render(report, markup::Style::Markdown),
        OutputFormat::Csv => csv::render(report),
    }
}

/// report.json with the findings in the CLI's words (naming flags).
fn json(report: &Report) -> String {
    rollstat::Finding::serialize_worded(finding_text, || report.to_json())
}

/// Formats a metric value for people: percent for fractions.
pub fn human_value(e: &MetricEntry) -> String {
    if e.unit == "fraction" {
        format!("{:.2}%", e.value * 100.0)
    } else {
        format!("{:.2}", e.value)
    }
}

/// Formats a metric's standard error for people.
pub fn human_stderr(e: &MetricEntry) -> String {
    match e.stderr {
        Some(se) if e.unit == "fraction" => format!("±{:.2}%", se * 100.0),
        Some(se) => format!("±{se:.2}"),
        None => "–".into(),
    }
}

/// Formats a metric's interval for people.
pub fn human_ci(e: &MetricEntry) -> String {
    match &e.ci {
        Some(i) if e.unit == "fraction" => {
            format!("[{:.2}, {:.2}]%", i.lower * 100.0, i.upper * 100.0)
        }
        Some(i) => format!("[{:.2}, {:.2}]", i.lower, i.upper),
        None => "–".into(),
    }
}

/// Table rows (header first) for one block of metrics.
pub fn layout(block: &MetricBlock) -> Vec<Vec<String>> {
    let with_ci = block.metrics.iter().any(|(_, e)| e.ci.is_some());
    let mut header = vec!["metric", "value", "±stderr"];
    if with_ci {
        header.push("CI");
    }
    header.extend(["problems", "excluded"]);
    let mut rows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
    for (name, e) in block.metrics.iter() {
        let mut row = vec![name.clone(), human_value(e), human_stderr(e)];
        if with_ci {
            row.push(human_ci(e));
        }
        row.push(e.n_problems.to_string());
        row.push(e.n_excluded.to_string());
        rows.push(row);
    }
    rows
}
