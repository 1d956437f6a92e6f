//! Flag → renderer dispatch; the renderers live in `rollstat-render`.

use crate::args::OutputFormat;
use crate::options::finding_text;
use rollstat::Report;
use rollstat_render::{csv, html, markup, Style, View, Words};

pub use rollstat_render::{compare, compare_html, power};

/// The command's words: findings name its flags.
pub const WORDS: Words = Words {
    finding: finding_text,
    all: "--all",
    tau: "--tau",
    budget: Some("--budget"),
    fail_on: "--fail-on",
};

/// Renders `report` in `format`.
pub fn render(report: &Report, format: OutputFormat, view: View) -> String {
    match format {
        OutputFormat::Json => json(report),
        OutputFormat::Table => markup::render(report, Style::Terminal, view, &WORDS),
        OutputFormat::Markdown => markup::render(report, Style::Markdown, view, &WORDS),
        OutputFormat::Csv => csv::render(report),
        OutputFormat::Html => html::render(report, view, &WORDS),
    }
}

/// report.json with the findings in the CLI's words (naming flags).
fn json(report: &Report) -> String {
    rollstat::Finding::serialize_worded(finding_text, || report.to_json())
}

/// Renders a gate in `format`.
pub fn gate(g: &rollstat::Gate, format: crate::gate_cmd::GateFormat) -> String {
    use crate::gate_cmd::GateFormat;
    match format {
        GateFormat::Json => rollstat_render::gate::json(g, &WORDS),
        GateFormat::Table => rollstat_render::gate::render_text(g, false, &WORDS),
        GateFormat::Markdown => rollstat_render::gate::render_text(g, true, &WORDS),
        GateFormat::Html => rollstat_render::gate_html(g, &WORDS),
    }
}
