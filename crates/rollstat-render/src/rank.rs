//! `rollstat rank` output: terminal table, Markdown and JSON
//! (`rollstat.rank/1`) over the engine's [`Ranking`].
//!
//! Every number comes from the document; this module only formats them.

use crate::compare::p_fmt;
use crate::markup::{table, Style};
use crate::Words;
use rollstat::rank::Ranking;
use rollstat::trim_float;
use std::fmt::Write as _;

/// The ranking as JSON, findings in the front end's words.
pub fn json(r: &Ranking, words: &Words) -> String {
    let mut s = rollstat::Finding::serialize_worded(words.finding, || {
        serde_json::to_string_pretty(r).expect("a ranking serializes")
    });
    s.push('\n');
    s
}

pub(crate) fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

pub(crate) fn ci(i: Option<rollstat::Interval>) -> String {
    i.map_or("–".into(), |i| {
        format!("[{:.2}, {:.2}]", 100.0 * i.lower, 100.0 * i.upper)
    })
}

/// An interval of fractions in percent: `[51.20%, 58.34%]`.
pub(crate) fn pct_span([lo, hi]: [f64; 2]) -> String {
    format!("[{}, {}]", pct(lo), pct(hi))
}

pub(crate) fn span([lo, hi]: [u32; 2]) -> String {
    if lo == hi {
        lo.to_string()
    } else {
        format!("{lo}–{hi}")
    }
}

/// The systems table: value, interval, rank, rank interval and set,
/// P(best), letters.
fn systems_table(r: &Ranking) -> Vec<Vec<String>> {
    let level = trim_float(100.0 * r.settings.level);
    let mut rows = vec![vec![
        "rank".to_string(),
        "system".into(),
        r.settings.metric.clone(),
        format!("{level}% CI"),
        format!("{level}% rank interval"),
        "simultaneous rank set".into(),
        "P(best)".into(),
        "letters".into(),
    ]];
    for s in &r.systems {
        rows.push(vec![
            s.rank.to_string(),
            s.name.clone(),
            pct(s.value),
            ci(s.ci),
            span(s.rank_interval),
            span(s.rank_set),
            format!("{:.3}", s.p_best),
            s.letters.clone(),
        ]);
    }
    rows
}

/// The ranking as a terminal table (or Markdown).
///
/// ```
/// # use rollstat::rows::{CountRow, Row};
/// # use rollstat::{rank::{rank, RankOptions}, Source};
/// # let sys = |name: &str, cs: &[u64]| Source::Rows { name: format!("{name}.jsonl"),
/// #     rows: cs.iter().enumerate().map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 1, c, ..Default::default() })).collect() };
/// # let mut o = RankOptions::default();
/// # o.resamples = 200;
/// let r = rank(&[sys("a", &[1; 30]), sys("b", &[0; 30])], &o).unwrap();
/// let words = rollstat_render::Words { finding: |f| f.to_string(), all: "--all", tau: "--tau", budget: None, fail_on: "--fail-on" };
/// let text = rollstat_render::rank::render_text(&r, false, &words);
/// assert!(text.contains("#1 (a) is separable"));
/// ```
pub fn render_text(r: &Ranking, markdown: bool, words: &Words) -> String {
    let style = if markdown {
        Style::Markdown
    } else {
        Style::Terminal
    };
    let mut out = String::new();
    let head = |out: &mut String, t: &str| {
        if markdown {
            let _ = writeln!(out, "### {t}\n");
        } else {
            let _ = writeln!(out, "{t}");
        }
    };
    head(
        &mut out,
        &format!(
            "rollstat rank: {} systems on {} shared problems ({}, per-problem means)",
            r.systems.len(),
            r.n_problems,
            r.settings.metric
        ),
    );
    let _ = writeln!(out, "{}\n", r.top_tier_line);
    table(&systems_table(r), style, &mut out);
    out.push('\n');
    let b = &r.best;
    let _ = writeln!(
        out,
        "best: {} at {} on the data it was picked on; {} adjusted for the selection, {} {} ({}, Andrews–Kitagawa–McCloskey); bootstrap bias correction {}\n",
        b.system,
        pct(b.naive),
        pct(b.adjusted),
        crate::markup::level_label(r.settings.level),
        pct_span(b.adjusted_ci),
        b.method,
        pct(b.bootstrap_adjusted)
    );
    if let Some(sp) = &b.split {
        let _ = writeln!(
            out,
            "split-sample check: {} is best on a seeded half ({}) and scores {} on the other {} problems\n",
            sp.system,
            pct(sp.selection),
            pct(sp.held_out),
            sp.held_out_problems
        );
    }
    pairs(r, style, &mut out);
    anchor(r, &mut out);
    suite(r, style, &mut out);
    curve(r, style, &mut out);
    for f in &r.findings {
        let _ = writeln!(out, "- {}", (words.finding)(f));
    }
    let _ = writeln!(
        out,
        "\n{} · resamples {} · seed {} · letters: systems sharing a letter are not separable ({} over every pair, α = {})",
        rollstat::rank::RANK_SCHEMA,
        r.settings.resamples,
        r.settings.seed,
        r.settings.adjust,
        trim_float(r.settings.alpha)
    );
    out
}

/// Adjacent pairs (each system against the next), the most read pairs.
fn pairs(r: &Ranking, style: Style, out: &mut String) {
    let mut rows = vec![
        ["pair", "diff (pts)", "p", "p adjusted", "test", "separated"]
            .map(String::from)
            .to_vec(),
    ];
    for w in r.systems.windows(2) {
        if let Some(p) = r
            .pairs
            .iter()
            .find(|p| p.a == w[0].name && p.b == w[1].name)
        {
            rows.push(vec![
                format!("{} vs {}", p.a, p.b),
                format!("{:+.2}", 100.0 * p.diff),
                p_fmt(Some(p.p)),
                p_fmt(Some(p.p_adjusted)),
                p.method.clone(),
                if p.separated {
                    "yes".into()
                } else {
                    "no".into()
                },
            ]);
        }
    }
    let _ = writeln!(
        out,
        "adjacent pairs (all {} pairs in the JSON)",
        r.pairs.len()
    );
    table(&rows, style, out);
    out.push('\n');
}

/// The walk down the ranks against #1 (unadjusted, as leaderboard audits).
fn anchor(r: &Ranking, out: &mut String) {
    let first = r
        .first_separated_rank
        .map_or("no system".into(), |k| format!("rank {k}"));
    let _ = writeln!(
        out,
        "against #1, unadjusted (anchor walk): the first separated at α = {} is {first}\n",
        trim_float(r.settings.alpha)
    );
}

/// Across benchmarks: mean ranks, Friedman, Iman–Davenport, the critical
/// difference and its groups.
fn suite(r: &Ranking, style: Style, out: &mut String) {
    let Some(s) = &r.suite else {
        return;
    };
    let _ = writeln!(
        out,
        "across {} benchmarks ({}): Friedman χ² = {:.3} on {} df (p {}); Iman–Davenport F = {:.3} on ({}, {}) df (p {})",
        s.benchmarks.len(),
        s.field,
        s.chi2,
        s.df,
        p_fmt(Some(s.p)),
        s.f,
        s.f_df[0],
        s.f_df[1],
        p_fmt(Some(s.f_p))
    );
    let mut rows = vec![vec!["system".to_string(), "mean rank".into()]];
    for (sys, mr) in r.systems.iter().zip(&s.mean_ranks) {
        rows.push(vec![sys.name.clone(), format!("{mr:.3}")]);
    }
    table(&rows, style, out);
    let groups: Vec<String> = s
        .cd_groups
        .iter()
        .map(|g| format!("{{{}}}", g.join(", ")))
        .collect();
    let _ = writeln!(
        out,
        "Nemenyi critical difference {:.3} (q_α = {:.3}, studentized range at df = ∞ over √2); not separable: {}\n",
        s.critical_difference,
        s.q_alpha,
        if groups.is_empty() { "none".into() } else { groups.join(" ") }
    );
}

/// The checkpoint curve in step order.
fn curve(r: &Ranking, style: Style, out: &mut String) {
    let Some(c) = &r.curve else {
        return;
    };
    let mut rows = vec![vec![
        "step".to_string(),
        "checkpoint".into(),
        r.settings.metric.clone(),
        "CI".into(),
    ]];
    for p in &c.points {
        rows.push(vec![
            trim_float(p.step),
            p.system.clone(),
            pct(p.value),
            ci(p.ci),
        ]);
    }
    let _ = writeln!(out, "checkpoints in step order");
    table(&rows, style, out);
    let _ = writeln!(
        out,
        "best checkpoint {}; not separable from it: {}\n",
        c.best,
        c.not_separable.join(", ")
    );
}
