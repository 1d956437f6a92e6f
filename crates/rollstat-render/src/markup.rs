//! The terminal table and Markdown: the same rows, two styles.

use super::{answer_note, layout, View};
use crate::Words;
use rollstat::{Extrapolation, Health, MetricBlock, Report};
use std::fmt::Write;

#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Style {
    Terminal,
    Markdown,
}

/// Aligned columns (first left, rest right) in the terminal or Markdown style.
pub fn table(rows: &[Vec<String>], style: Style, out: &mut String) {
    let cols = rows.first().map_or(0, Vec::len);
    let widths: Vec<usize> = (0..cols)
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let pad = |s: &str, w: usize, left: bool| {
        let fill = " ".repeat(w.saturating_sub(s.chars().count()));
        if left {
            format!("{s}{fill}")
        } else {
            format!("{fill}{s}")
        }
    };
    for (i, row) in rows.iter().enumerate() {
        let cells: Vec<String> = row
            .iter()
            .enumerate()
            .map(|(c, s)| pad(s, widths[c], c == 0))
            .collect();
        match style {
            Style::Terminal => {
                let _ = writeln!(out, "  {}", cells.join("  "));
                if i == 0 {
                    let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                    let _ = writeln!(out, "  {}", rule.join("  "));
                }
            }
            Style::Markdown => {
                let _ = writeln!(out, "| {} |", cells.join(" | "));
                if i == 0 {
                    let rule: Vec<String> = widths
                        .iter()
                        .enumerate()
                        .map(|(c, w)| {
                            let dashes = "-".repeat((*w).max(3));
                            if c == 0 {
                                dashes
                            } else {
                                format!("{}:", &dashes[1..])
                            }
                        })
                        .collect();
                    let _ = writeln!(out, "| {} |", rule.join(" | "));
                }
            }
        }
    }
}

fn health_line(h: &Health) -> String {
    format!(
        "{} problems, {} rollouts (per problem min {} / median {} / max {}, requested {}); short {}, unextracted {}, truncated {}, failed {}, duplicates {}, inconsistent clusters {}, bad lines {}; denominator: {}",
        h.n_problems,
        h.n_rollouts_total,
        h.n_rollouts.min,
        h.n_rollouts.median,
        h.n_rollouts.max,
        h.n_requested,
        h.n_short,
        h.n_unextracted,
        h.n_truncated,
        h.n_failed,
        h.n_duplicate_rollouts,
        h.n_inconsistent_clusters,
        h.n_bad_lines,
        h.denominator_policy
    )
}

/// The budget distribution, missing values and correlation in one line.
fn budget_line(b: &rollstat::BudgetHealth, words: &Words) -> String {
    let num = |x: Option<f64>| x.map_or("–".into(), rollstat::trim_float);
    let used = match (b.used, words.budget) {
        (true, _) => String::new(),
        (false, Some(option)) => format!(
            " — not every rollout has it, so no budget metrics (name the field with {option} to use it)"
        ),
        (false, None) => " — not every rollout has it, so no budget metrics".into(),
    };
    format!(
        "{} on {} rollouts, missing on {}; per rollout min {} / median {} / p90 {} / max {}; correlation with correct {}{used}",
        b.field,
        b.n_rollouts,
        b.n_missing,
        num(b.min),
        num(b.median),
        num(b.p90),
        num(b.max),
        b.correlation_with_correct.map_or("–".into(), |r| format!("{r:.2}")),
    )
}

/// One population: its title, table, health line, variance split and
/// findings.
struct Section<'a> {
    title: String,
    health: &'a Health,
    block: &'a MetricBlock,
}

fn block(
    s: &Section,
    c: &rollstat::Config,
    view: View,
    style: Style,
    words: &Words,
    out: &mut String,
) {
    let (title, h, b, n) = (&s.title, s.health, s.block, c.n);
    match style {
        Style::Terminal => {
            let _ = writeln!(out, "{title}");
        }
        Style::Markdown => {
            let _ = writeln!(out, "## {title}\n");
        }
    }
    table(&layout(b, view, n), style, out);
    let _ = writeln!(out);
    let bullet = if style == Style::Markdown { "- " } else { "  " };
    if let Some(note) = answer_note(b, c) {
        let _ = writeln!(out, "{bullet}{note}");
    }

    let _ = writeln!(out, "{bullet}Health: {}", health_line(h));
    if let Some(b) = &h.budget {
        let _ = writeln!(out, "{bullet}Budget: {}", budget_line(b, words));
    }
    let splits: Vec<String> = b
        .metrics
        .iter()
        .filter_map(|(name, e)| {
            e.variance.as_ref().map(|v| {
                format!(
                    "{name} between {:.4} / within {:.4} → {}",
                    v.between, v.within, v.advice
                )
            })
        })
        .collect();
    if !splits.is_empty() {
        let _ = writeln!(
            out,
            "{bullet}Variance over problems (what narrows the interval most): {}",
            splits.join("; ")
        );
    }
    for w in &h.warnings {
        let _ = writeln!(out, "{bullet}warning: {}", (words.finding)(w));
    }
    let _ = writeln!(out);
}

/// A two-sided level for people: `95%`, `95.5%` for 0.955 — the one form
/// of the terminal table, Markdown and the HTML page.
///
/// ```
/// assert_eq!(rollstat_render::markup::level_label(0.955), "95.5%");
/// assert_eq!(rollstat_render::markup::level_label(0.95), "95%");
/// ```
pub fn level_label(level: f64) -> String {
    format!("{}%", rollstat::trim_float(100.0 * level))
}

/// An interval's label for people: `bootstrap at 95.5%`.
///
/// ```
/// assert_eq!(rollstat_render::markup::ci_label("bca", 0.9), "bca at 90%");
/// ```
pub fn ci_label(method: &str, level: f64) -> String {
    format!("{method} at {}", level_label(level))
}

/// Renders the whole report.
pub fn render(r: &Report, style: Style, view: View, words: &Words) -> String {
    let mut out = String::new();
    let c = &r.config;
    heading(r, style, &mut out);
    let note = ci_note(c);
    if let Some(line) = super::hidden_summary(&r.block, c.n, view, Some(words)) {
        let _ = writeln!(out, "Headline metrics; {line}\n");
    }
    let overall = Section {
        title: format!("All problems. {note}"),
        health: &r.health,
        block: &r.block,
    };
    block(&overall, c, view, style, words, &mut out);
    if !r.harness.is_empty() {
        harness(r, style, &mut out);
    }
    if let Some(x) = &r.extrapolation {
        extrapolation(x, style, &mut out);
    }
    if !r.frontier.is_empty() {
        frontier(r, style, &mut out);
    }
    if let Some(rel) = &r.reliability {
        crate::reliability::render(rel, r.per_problem.is_some(), style, &mut out);
    }
    for (name, g) in r.groups.iter() {
        let section = Section {
            title: format!("{} = {}", c.by.as_deref().unwrap_or("group"), name),
            health: &g.health,
            block: &g.block,
        };
        block(&section, c, view, style, words, &mut out);
    }
    out
}

/// The first line: inputs and the settings every number depends on.
fn heading(r: &Report, style: Style, out: &mut String) {
    let inputs: Vec<String> = r.inputs.iter().map(|i| i.path.clone()).collect();
    let c = &r.config;
    let head = format!(
        "rollstat report — {} · n = {} ({}) · tie policy {} · denominator {} · clustering {}",
        inputs.join(", "),
        c.n,
        c.n_source,
        c.tie_policy,
        c.denominator_policy,
        c.answer_clustering
    );
    match style {
        Style::Terminal => {
            let _ = writeln!(out, "{head}\n");
        }
        Style::Markdown => {
            let _ = writeln!(out, "# {head}\n");
        }
    }
}

/// What the values, ±stderr and CI columns are.
fn ci_note(c: &rollstat::Config) -> String {
    if c.ci.method == "none" {
        "Values are means over problems; ±stderr is sd/√N over per-problem values.".to_string()
    } else {
        format!(
            "Values are means over problems; ±stderr is sd/√N; CI: {}.",
            ci_label(&c.ci.method, c.ci.level)
        )
    }
}

/// The budget frontier on one line: the best pass@k at each budget.
fn frontier(r: &Report, style: Style, out: &mut String) {
    let points: Vec<String> = r
        .frontier
        .iter()
        .map(|p| {
            format!(
                "{} at k = {}: {} → {:.2}%",
                p.group,
                p.k,
                rollstat::trim_float(p.budget),
                100.0 * p.pass
            )
        })
        .collect();
    let bullet = if style == Style::Markdown { "- " } else { "  " };
    let _ = writeln!(
        out,
        "{bullet}Frontier (pass@k vs budget@k; best at each budget): {}\n",
        points.join("; ")
    );
}

/// Numbers the harness stored itself, beside rollstat's.
fn harness(r: &Report, style: Style, out: &mut String) {
    let title = "Harness aggregates vs rollstat";
    match style {
        Style::Terminal => {
            let _ = writeln!(out, "{title}");
        }
        Style::Markdown => {
            let _ = writeln!(out, "## {title}\n");
        }
    }
    let mut rows = vec![[
        "harness metric",
        "harness",
        "rollstat metric",
        "rollstat",
        "agrees",
        "note",
    ]
    .map(String::from)
    .to_vec()];
    for h in &r.harness {
        rows.push(vec![
            h.harness_metric.clone(),
            short(h.harness_value),
            h.rollstat_metric.clone().unwrap_or_else(|| "–".into()),
            h.rollstat_value.map(short).unwrap_or_else(|| "–".into()),
            match h.agrees {
                Some(true) => "yes".into(),
                Some(false) => "NO".into(),
                None => "–".into(),
            },
            h.note.clone(),
        ]);
    }
    table(&rows, style, out);
    let _ = writeln!(out);
}

/// pass@K beyond n, with the fit and its check, labelled model-based.
fn extrapolation(x: &Extrapolation, style: Style, out: &mut String) {
    let title = format!(
        "pass@K beyond n — model-based: beta-binomial fit, α = {}, β = {}, over {} problems",
        short(x.alpha),
        short(x.beta),
        x.n_problems
    );
    match style {
        Style::Terminal => {
            let _ = writeln!(out, "{title}");
        }
        Style::Markdown => {
            let _ = writeln!(out, "## {title}\n");
        }
    }
    let mut rows = vec![["metric", "value", "±stderr", "CI"]
        .map(String::from)
        .to_vec()];
    for (name, e) in x.values.iter() {
        rows.push(vec![
            name.clone(),
            format!("{:.2}%", 100.0 * e.value),
            e.stderr
                .map(|s| format!("±{:.2}", 100.0 * s))
                .unwrap_or_else(|| "–".into()),
            match (e.ci, e.level) {
                (Some([lo, hi]), Some(level)) => format!(
                    "[{:.2}, {:.2}] ({} {})",
                    100.0 * lo,
                    100.0 * hi,
                    e.method,
                    level_label(level)
                ),
                _ => "–".into(),
            },
        ]);
    }
    table(&rows, style, out);
    let _ = writeln!(out, "{}\n{}.\n", fit_check(x), x.label);
}

/// The fit check in words: χ² and the fitted-vs-observed gap.
pub(crate) fn fit_check(x: &Extrapolation) -> String {
    let c = &x.check;
    let chi = match (c.chi2, c.df, c.p_value, c.n) {
        (Some(chi2), Some(df), Some(p), Some(n)) => {
            format!(
                "χ² = {} on {df} df at n = {n}, p = {}",
                short(chi2),
                short_p(p)
            )
        }
        _ => "χ²: too few problems to bin".into(),
    };
    let gap = match (c.max_abs_gap, c.gap_at_k) {
        (Some(g), Some(k)) => format!(
            "; fitted vs observed pass@k differ by at most {:.2} points (k = {k})",
            100.0 * g
        ),
        _ => String::new(),
    };
    format!("Fit check: {chi}{gap}.")
}

/// A p-value: 4 significant digits, scientific below 1e-4.
fn short_p(p: f64) -> String {
    if p < 1e-4 {
        format!("{p:.2e}")
    } else {
        format!("{p:.4}")
    }
}

/// Four decimals, trailing zeros dropped (0.3333, 50, 0.75).
pub(crate) fn short(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}
