//! `rollstat compare` output: table, Markdown and JSON (`rollstat.compare/1`)
//! over the engine's [`Comparison`].

use crate::{View, Words};
use rollstat::{trim_float, CompareRow as Row, Comparison};
use std::fmt::Write as _;

/// The comparison as JSON, findings in the front end's words.
pub fn json(c: &Comparison, words: &Words) -> String {
    let mut s = rollstat::Finding::serialize_worded(words.finding, || {
        serde_json::to_string_pretty(c).expect("compare serializes")
    });
    s.push('\n');
    s
}

fn table(rows: &[Vec<String>], markdown: bool, out: &mut String) {
    let style = if markdown {
        crate::Style::Markdown
    } else {
        crate::Style::Terminal
    };
    crate::table(rows, style, out);
}

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// A p-value: 4 decimals, or scientific below 1e-4; `–` without one.
pub(super) fn p_fmt(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

/// A row's name; a budget-matched row says what A draws at B's budget.
fn row_name(r: &Row) -> String {
    match r.budget_matched {
        Some(m) => format!(
            "{} at B's budget {} (A draws {})",
            r.metric,
            trim_float(m.budget),
            trim_float(m.k_a)
        ),
        None => r.metric.clone(),
    }
}

/// A, B, B − A, its stderr and interval, as every compare table prints
/// them (percent, points).
pub(super) fn delta_cells(r: &Row) -> [String; 5] {
    [
        pct(r.a),
        pct(r.b),
        format!("{:+.2}", 100.0 * r.delta),
        r.stderr
            .map_or("–".into(), |s| format!("±{:.2}", 100.0 * s)),
        r.ci.map_or("–".into(), |i| {
            format!("[{:+.2}, {:+.2}]", 100.0 * i.lower, 100.0 * i.upper)
        }),
    ]
}

fn row_cells(r: &Row, with_verdict: bool) -> Vec<String> {
    let mut cells = vec![row_name(r)];
    cells.extend(delta_cells(r));
    cells.extend([
        r.correlation.map_or("–".into(), |c| format!("{c:.2}")),
        p_fmt(r.p_value),
        p_fmt(r.p_holm),
        p_fmt(r.p_bh),
        p_fmt(r.mcnemar_p),
        r.n_problems.to_string(),
    ]);
    if with_verdict {
        cells.push(r.verdict.map_or("–", |v| v.name()).to_string());
    }
    cells
}

/// Headings and lines in the terminal or Markdown style.
struct Text {
    out: String,
    markdown: bool,
}

impl Text {
    fn head(&mut self, title: &str) {
        let _ = match self.markdown {
            true => writeln!(self.out, "## {title}\n"),
            false => writeln!(self.out, "{title}"),
        };
    }

    fn para(&mut self, line: String) {
        let _ = match self.markdown {
            true => writeln!(self.out, "{line}  "),
            false => writeln!(self.out, "{line}"),
        };
    }
}

/// Whether `view` shows row `r`: as a report's table shows a metric
/// ([`View::shows_key`]: the headline set, never a row that is another row
/// by definition; every row with `all`).
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{compare, CompareOptions, Source};
/// let side = |name: &str, cs: &[u64]| Source::Rows {
///     name: name.into(),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 4, c, ..Default::default() }))
///         .collect(),
/// };
/// let mut o = CompareOptions::default();
/// o.metrics.k = Some(vec![1, 4]);
/// o.intervals.resamples = 200;
/// let c = compare(&[side("A", &[1, 2, 3, 0]), side("B", &[2, 2, 4, 1])], &o).unwrap();
/// use rollstat_render::{compare::shows, View};
/// let g = c.rows.iter().find(|r| r.metric == "g-pass@4_1.0").unwrap();
/// assert_eq!(g.same_as.as_deref(), Some("pass^4"));
/// assert!(!shows(View::default(), g));
/// assert!(shows(View { all: true, tau_asked: false }, g));
/// ```
pub fn shows(view: View, r: &Row) -> bool {
    view.shows_key(&r.metric, r.same_as.is_some())
}

/// What the tables leave out that `all` shows, in one line (`None` when
/// nothing is); with `words` the option is named.
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{compare, CompareOptions, Source};
/// let side = |name: &str, cs: &[u64]| Source::Rows {
///     name: name.into(),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 4, c, ..Default::default() }))
///         .collect(),
/// };
/// let mut o = CompareOptions::default();
/// o.metrics.k = Some(vec![1, 4]);
/// o.intervals.resamples = 200;
/// let c = compare(&[side("A", &[1, 2, 3, 0]), side("B", &[2, 2, 4, 1])], &o).unwrap();
/// use rollstat_render::View;
/// let line = rollstat_render::compare::hidden_line(&c, View::default(), None).unwrap();
/// assert!(line.starts_with("the full table adds"), "{line}");
/// assert!(line.contains("equal to another row by definition"), "{line}");
/// let all = View { all: true, tau_asked: false };
/// assert_eq!(rollstat_render::compare::hidden_line(&c, all, None), None);
/// ```
pub fn hidden_line(c: &Comparison, view: View, words: Option<&Words>) -> Option<String> {
    let hidden: Vec<(&str, bool)> = c
        .rows
        .iter()
        .filter(|r| !shows(view, r))
        .map(|r| (r.metric.as_str(), r.same_as.is_some()))
        .collect();
    crate::hidden_line(&hidden, words, "compare.json has every row")
}

/// The one-line summary above the verdicts, e.g. `B vs A on 500 problems:
/// pass@1 -1.20 pts [-2.30, -0.10]; family of 3 (pass@1, pass^8, maj@8) at
/// α = 0.05: 1 significant by Holm, 1 by BH; margin 2 pts: 2 non-inferior,
/// 1 inconclusive`; `None` for a document without a summary (written
/// before it existed).
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{compare, CompareOptions, Source};
/// let side = |name: &str, cs: &[u64]| Source::Rows {
///     name: name.into(),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 4, c, ..Default::default() }))
///         .collect(),
/// };
/// let mut o = CompareOptions::default();
/// o.metrics.k = Some(vec![1, 4]);
/// o.intervals.resamples = 200;
/// let c = compare(&[side("A", &[1, 2, 3, 0]), side("B", &[2, 2, 4, 1])], &o).unwrap();
/// let line = rollstat_render::compare::summary_line(&c).unwrap();
/// assert!(line.starts_with("B vs A on 4 problems: pass@1 +18.75 pts ["), "{line}");
/// assert!(line.contains("; family of 2 (pass@1, pass^4) at α = 0.05: "), "{line}");
/// ```
pub fn summary_line(c: &Comparison) -> Option<String> {
    let s = c.summary.as_ref()?;
    let mut line = format!("B vs A on {} problems", c.pairs.matched);
    let primary = s.primary.as_ref().and_then(|p| {
        c.rows
            .iter()
            .find(|r| r.in_family && r.group.is_none() && &r.metric == p)
    });
    if let Some(r) = primary {
        let _ = write!(line, ": {} {:+.2} pts", r.metric, 100.0 * r.delta);
        if let Some(i) = r.ci {
            let _ = write!(line, " [{:+.2}, {:+.2}]", 100.0 * i.lower, 100.0 * i.upper);
        }
    }
    let alpha = trim_float(s.alpha);
    let _ = match s.family.len() {
        0 => write!(line, "; no family of primary metrics, no adjusted p"),
        m => write!(
            line,
            "; family of {m} ({}) at α = {alpha}: {} significant by Holm, {} by BH",
            s.family.join(", "),
            s.significant_holm,
            s.significant_bh
        ),
    };
    if let (Some(v), Some(m)) = (s.verdicts, c.margin) {
        let counts: Vec<String> = [
            (v.non_inferior, "non-inferior"),
            (v.inferior, "inferior"),
            (v.inconclusive, "inconclusive"),
        ]
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, w)| format!("{n} {w}"))
        .collect();
        if !counts.is_empty() {
            let _ = write!(
                line,
                "; margin {} pts: {}",
                trim_float(100.0 * m),
                counts.join(", ")
            );
        }
    }
    Some(line)
}

/// The run-to-run noise line: each side's flip floor (how often two of its
/// own rollouts disagree), whether they differ, ICC(1) when defined, and
/// the A-vs-B flip rate against the floors; `None` without the block.
///
/// ```
/// let n = rollstat::RunNoise { n_problems: 30, floor_a: 0.1, floor_b: 0.2, floor_difference: 0.1, p_value: 0.01, exact: false, flip_rate: 0.18, excess: Some(0.03), icc_a: None, icc_b: None };
/// let line = rollstat_render::compare::noise_text(&n);
/// assert!(line.starts_with("run-to-run noise on 30 problems with 2+ rollouts a side: A disagrees with itself on 10.00%"), "{line}");
/// ```
pub fn noise_text(n: &rollstat::RunNoise) -> String {
    let mut line = format!(
        "run-to-run noise on {} problems with 2+ rollouts a side: A disagrees with itself on {:.2}% of rollout pairs, B on {:.2}% (B − A {:+.2} pts, sign-flip p = {}{})",
        n.n_problems,
        100.0 * n.floor_a,
        100.0 * n.floor_b,
        100.0 * n.floor_difference,
        p_fmt(Some(n.p_value)),
        if n.exact { ", exact" } else { "" }
    );
    let icc = |i: &Option<rollstat::IccEntry>| {
        i.as_ref().map_or("–".to_string(), |i| {
            format!(
                "{:.2} [{:.2}, {:.2}]",
                i.icc1, i.icc1_interval[0], i.icc1_interval[1]
            )
        })
    };
    if n.icc_a.is_some() || n.icc_b.is_some() {
        let _ = write!(line, "; ICC(1) A {}, B {}", icc(&n.icc_a), icc(&n.icc_b));
    }
    let _ = write!(
        line,
        "; A and B disagree on {:.2}% of rollout pairs",
        100.0 * n.flip_rate
    );
    if let Some(e) = n.excess {
        let _ = write!(line, ", {:+.2} pts beyond their mean floor", 100.0 * e);
    }
    line
}

/// The comparison as a terminal table or Markdown: the rows `view` shows
/// (the headline set unless `view.all`).
pub fn render_text(c: &Comparison, markdown: bool, words: &Words, view: View) -> String {
    let mut t = Text {
        out: String::new(),
        markdown,
    };
    preamble(c, &mut t);
    if let Some(line) = hidden_line(c, view, Some(words)) {
        t.para(format!("Headline rows; {line}"));
        t.out.push('\n');
    }
    row_tables(c, &mut t, view);
    if let Some(line) = summary_line(c) {
        t.para(line);
        t.out.push('\n');
    }
    if let Some(n) = &c.noise {
        t.para(noise_text(n));
        t.out.push('\n');
    }
    verdicts(c, &mut t, view);
    if let Some(f) = &c.fail {
        let scope = match &f.metrics {
            Some(ms) => ms.join(", "),
            None => "every overall row".into(),
        };
        t.para(match f.failed {
            true => format!(
                "{} {}: FAILED ({} checked; hit by {}) → exit code 1",
                words.fail_on,
                f.on,
                scope,
                f.rows.join(", ")
            ),
            false => format!("{} {}: passed ({scope} checked)", words.fail_on, f.on),
        });
        t.out.push('\n');
    }
    if let Some(why) = c.config.answer_metrics_left_out {
        t.para(format!("maj@k and self_consistency left out: {why}"));
        t.out.push('\n');
    }
    if !c.warnings.is_empty() {
        t.head("warnings");
        for w in &c.warnings {
            t.para(format!("  - {}", (words.finding)(w)));
        }
    }
    t.out
}

/// Where rows use Tango's score interval instead of the configured method,
/// the clause that says so (empty when none does).
pub(crate) fn score_note(c: &Comparison) -> &'static str {
    if c.rows
        .iter()
        .any(|r| r.interval_method.as_deref() == Some("tango-score"))
    {
        "; Tango's score interval on rows with a McNemar p (0/1 per problem)"
    } else {
        ""
    }
}

/// The title, the two sides, the pairing and how the numbers were made.
fn preamble(c: &Comparison, t: &mut Text) {
    t.head("rollstat compare");
    t.para(format!("A: {} ({} problems)", c.a.name, c.a.n_problems));
    t.para(format!("B: {} ({} problems)", c.b.name, c.b.n_problems));
    t.para(format!(
        "pairs: {} matched, {} only in A, {} only in B",
        c.pairs.matched, c.pairs.only_a, c.pairs.only_b
    ));
    t.para(format!(
        "B − A in points; {}% CI: {}{}{}; p: sign-flip permutation ({}); p_holm, p_bh: {}; McNemar exact where each problem has one 0/1 outcome per side",
        trim_float(100.0 * c.level),
        c.config.method,
        c.config
            .resamples
            .map_or(String::new(), |r| format!(", {r} resamples, seed {}", c.config.seed)),
        score_note(c),
        if c.rows.iter().all(|r| r.p_exact != Some(false)) {
            "exact".to_string()
        } else {
            format!("{} random flips or exact when fewer patterns", c.config.permutations)
        },
        c.config.p_adjust
    ));
    t.out.push('\n');
}

/// One table of rows overall, then one per group: the rows `view` shows.
fn row_tables(c: &Comparison, t: &mut Text, view: View) {
    let with_verdict = c.margin.is_some();
    let mut header: Vec<String> = [
        "metric", "A", "B", "B − A", "±SE", "CI", "corr", "p", "p_holm", "p_bh", "McNemar",
        "problems",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if with_verdict {
        header.push("verdict".into());
    }
    let mut groups: Vec<Option<String>> = Vec::new();
    for r in &c.rows {
        if !groups.contains(&r.group) {
            groups.push(r.group.clone());
        }
    }
    for g in &groups {
        if let Some(name) = g {
            let field = c.config.group_by.as_deref().unwrap_or("group");
            t.head(&format!("{field} = {name}"));
        }
        let mut rows = vec![header.clone()];
        rows.extend(
            c.rows
                .iter()
                .filter(|r| &r.group == g && shows(view, r))
                .map(|r| row_cells(r, with_verdict)),
        );
        table(&rows, t.markdown, &mut t.out);
        t.out.push('\n');
    }
}

/// Each shown overall row's verdict in words, with a margin.
fn verdicts(c: &Comparison, t: &mut Text, view: View) {
    let Some(m) = c.margin else {
        return;
    };
    t.head(&format!(
        "verdicts (margin {:.2} pts; one-sided {}% bounds = the two-sided {}% {} interval{})",
        100.0 * m,
        trim_float(100.0 * c.level),
        trim_float(100.0 * (2.0 * c.level - 1.0)),
        c.config.method,
        score_note(c)
    ));
    for r in c
        .rows
        .iter()
        .filter(|r| r.group.is_none() && shows(view, r))
    {
        match &r.decision {
            Some(d) => t.para(format!("  {}: {d}", row_name(r))),
            None => t.para(format!(
                "  {}: not a correctness score, no verdict",
                r.metric
            )),
        }
    }
    t.out.push('\n');
}
