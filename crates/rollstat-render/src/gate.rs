//! `rollstat gate` output: terminal table, Markdown (a pull-request
//! comment) and JSON (`rollstat.gate/1`) over the engine's [`Gate`].
//!
//! Every number comes from the document; this module only formats them
//! (points = 100 × fraction, drop = −delta).

use crate::compare::p_fmt;
use crate::Words;
use rollstat::gate::{BenchmarkRow, FlippedProblem, FlippedSide, Flips, RuleOutcome};
use rollstat::{trim_float, Gate, GateRule, Interval};
use std::fmt::Write as _;

pub use crate::gate_example::example_gate;

/// Flipped problems per benchmark the terminal table lists (Markdown and
/// HTML list every one the document has).
const TERMINAL_FLIPS: usize = 3;

/// Characters of a joined answer list in the terminal.
const ANSWER_WIDTH: usize = 22;

/// The gate as JSON, findings in the front end's words.
///
/// ```
/// let g = rollstat_render::gate::example_gate();
/// let words = rollstat_render::Words {
///     finding: |f| format!("[{f}]"),
///     all: "--all",
///     tau: "--tau",
///     budget: None,
///     fail_on: "--fail-on",
/// };
/// let json = rollstat_render::gate::json(&g, &words);
/// let back: rollstat::Gate = serde_json::from_str(&json).unwrap();
/// assert_eq!(back, g);
/// assert!(json.contains("\"text\": \"[2 malformed rows were skipped]\""));
/// ```
pub fn json(g: &Gate, words: &Words) -> String {
    let mut s = rollstat::Finding::serialize_worded(words.finding, || {
        serde_json::to_string_pretty(g).expect("gate serializes")
    });
    s.push('\n');
    s
}

/// A fraction as a percentage: `85.20%`.
pub(crate) fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

/// A difference in points with its sign: `-2.10`.
pub(crate) fn pts(x: f64) -> String {
    format!("{:+.2}", 100.0 * x)
}

/// An interval in points: `[-3.40, -1.20]`; `–` without one.
pub(crate) fn ci_pts(i: Option<Interval>) -> String {
    i.map_or("–".into(), |i| {
        format!("[{:+.2}, {:+.2}]", 100.0 * i.lower, 100.0 * i.upper)
    })
}

/// The margin used, in points; with a relative margin, what it was.
pub(crate) fn margin_cell(r: &BenchmarkRow) -> String {
    let used = format!("{:.2}", 100.0 * r.margin.used);
    match r.margin.relative {
        Some(rel) => format!("{used} ({}% of A)", trim_float(100.0 * rel)),
        None => used,
    }
}

/// The rule outcome that decides (`settings.rule`).
pub(crate) fn declared(g: &Gate) -> &RuleOutcome {
    match g.settings.rule {
        GateRule::Margin => &g.suite.margin_rule,
        GateRule::Detect => &g.suite.detect_rule,
    }
}

/// The verdict line: `NO-GO (rule: margin) — gsm8k BREACH: …`.
///
/// ```
/// let g = rollstat_render::gate::example_gate();
/// assert_eq!(
///     rollstat_render::gate::verdict_line(&g),
///     "NO-GO (rule: margin) — gsm8k BREACH: drop 2.10 pts > margin 1.00 pts"
/// );
/// ```
pub fn verdict_line(g: &Gate) -> String {
    let head = format!("{} (rule: {})", g.verdict.name(), g.settings.rule.name());
    let reasons = &declared(g).reasons;
    if reasons.is_empty() {
        head
    } else {
        format!("{head} — {}", reasons.join("; "))
    }
}

/// One-sided p of the degradation test and its method.
pub(crate) fn test_cells(r: &BenchmarkRow) -> [String; 2] {
    match &r.test {
        Some(t) => [p_fmt(Some(t.p)), t.method.name().to_string()],
        None => ["–".into(), "–".into()],
    }
}

/// Flips b/c, the flip rate, its floor and the excess flip with its p.
pub(crate) fn flip_cells(f: Option<&Flips>) -> [String; 4] {
    let Some(f) = f else {
        return ["–".into(), "–".into(), "–".into(), "–".into()];
    };
    let excess = match f.excess {
        Some(e) => format!("{} (p {})", pct(e), p_fmt(f.excess_p)),
        None => "–".into(),
    };
    [
        // Expected counts over rollout pairs: one decimal is plenty.
        format!(
            "{}/{}",
            trim_float((10.0 * f.a_only).round() / 10.0),
            trim_float((10.0 * f.b_only).round() / 10.0)
        ),
        pct(f.rate),
        f.floor.map_or("–".into(), pct),
        excess,
    ]
}

/// `gsm8k: 3 problems only in A and 1 only in B are left out`; `None`
/// when every problem is matched.
pub(crate) fn unmatched_note(r: &BenchmarkRow) -> Option<String> {
    let (a, b) = (r.only_a.len(), r.only_b.len());
    if a + b == 0 {
        return None;
    }
    let noun = if a == 1 { "problem" } else { "problems" };
    Some(format!(
        "{}: {a} {noun} only in A and {b} only in B are left out (every number is over the {} matched)",
        r.name, r.n_problems
    ))
}

/// Problems needed, shown only when the document gives a number.
pub(crate) fn needed_cell(r: &BenchmarkRow) -> String {
    r.problems_needed.map_or("–".into(), |n| n.to_string())
}

/// The benchmark table: who, how it stands, A, B and B − A.
fn benchmark_rows(g: &Gate, cell: fn(&str) -> String) -> Vec<Vec<String>> {
    let ci = format!(
        "{}% CI (pts)",
        trim_float(100.0 * (1.0 - 2.0 * g.settings.alpha))
    );
    let mut rows = vec![[
        "benchmark",
        "tier",
        "status",
        "problems",
        "A",
        "B",
        "B − A",
        ci.as_str(),
        "margin",
    ]
    .map(String::from)
    .to_vec()];
    for r in &g.benchmarks {
        let nums = r.status != rollstat::BenchmarkStatus::Missing;
        let num = |s: String| if nums { s } else { "–".into() };
        rows.push(vec![
            cell(&r.name),
            r.tier.name().into(),
            r.status.name().into(),
            r.n_problems.to_string(),
            num(pct(r.a)),
            num(pct(r.b)),
            num(pts(r.delta)),
            ci_pts(r.ci),
            margin_cell(r),
        ]);
    }
    rows
}

/// The second table: the degradation test, the flips and what is needed.
fn test_rows(g: &Gate, cell: fn(&str) -> String) -> Vec<Vec<String>> {
    let mut rows = vec![[
        "benchmark",
        "p (1-sided)",
        "test",
        "flips b/c",
        "flip rate",
        "floor",
        "excess flip",
        "needed",
    ]
    .map(String::from)
    .to_vec()];
    for r in &g.benchmarks {
        let mut row = vec![cell(&r.name)];
        row.extend(test_cells(r));
        row.extend(flip_cells(r.flips.as_ref()));
        row.push(needed_cell(r));
        rows.push(row);
    }
    rows
}

/// Headings, lines and tables in the terminal or Markdown style.
struct Text {
    out: String,
    markdown: bool,
}

impl Text {
    fn head(&mut self, title: &str) {
        match self.markdown {
            true => {
                let _ = writeln!(self.out, "### {title}\n");
            }
            false => wrap(title, "  ", &mut self.out),
        }
    }

    /// A line; in the terminal wrapped at 100 columns, continuations
    /// indented as its first word.
    fn para(&mut self, line: &str) {
        match self.markdown {
            true => {
                let _ = writeln!(self.out, "{line}  ");
            }
            false => {
                let indent = line.chars().take_while(|c| *c == ' ').count();
                wrap(line, &" ".repeat(indent + 2), &mut self.out);
            }
        }
    }

    fn bullet(&mut self, line: &str) {
        match self.markdown {
            true => {
                let _ = writeln!(self.out, "- {line}");
            }
            false => wrap(&format!("  - {line}"), "    ", &mut self.out),
        }
    }

    fn table(&mut self, rows: &[Vec<String>]) {
        let style = match self.markdown {
            true => crate::Style::Markdown,
            false => crate::Style::Terminal,
        };
        crate::table(rows, style, &mut self.out);
        self.out.push('\n');
    }

    /// Text from the data, escaped for Markdown (nothing in the terminal).
    fn data(&self, s: &str) -> String {
        match self.markdown {
            true => md_escape(s),
            false => plain(s),
        }
    }

    fn cell_fn(&self) -> fn(&str) -> String {
        match self.markdown {
            true => md_escape,
            false => plain,
        }
    }
}

/// The gate as a terminal table (`markdown = false`, readable at 100
/// columns) or a Markdown pull-request comment.
///
/// ```
/// let g = rollstat_render::gate::example_gate();
/// let words = rollstat_render::Words {
///     finding: |f| f.to_string(),
///     all: "--all",
///     tau: "--tau",
///     budget: None,
///     fail_on: "--fail-on",
/// };
/// let text = rollstat_render::gate::render_text(&g, false, &words);
/// assert!(text.starts_with("NO-GO (rule: margin) — gsm8k BREACH"));
/// let md = rollstat_render::gate::render_text(&g, true, &words);
/// assert!(md.starts_with("## rollstat gate: NO-GO (blocked)\n"));
/// ```
pub fn render_text(g: &Gate, markdown: bool, words: &Words) -> String {
    let mut t = Text {
        out: String::new(),
        markdown,
    };
    verdict(g, &mut t);
    let cell = t.cell_fn();
    t.head("benchmarks (A baseline, B candidate; B − A and margins in points)");
    t.table(&benchmark_rows(g, cell));
    let note = interval_note(g);
    if !note.is_empty() {
        let line = t.data(&note);
        if t.markdown {
            let _ = writeln!(t.out, "{line}");
        } else {
            wrap(&line, "", &mut t.out);
        }
        t.out.push('\n');
    }
    let unmatched: Vec<String> = g.benchmarks.iter().filter_map(unmatched_note).collect();
    if !unmatched.is_empty() {
        for note in unmatched {
            let line = t.data(&note);
            t.bullet(&line);
        }
        t.out.push('\n');
    }
    t.head("degradation tests and flips");
    t.table(&test_rows(g, cell));
    suite(g, &mut t);
    tests(g, &mut t);
    rules(g, &mut t);
    if !g.findings.is_empty() {
        t.head("findings");
        for f in &g.findings {
            let line = t.data(&(words.finding)(f));
            t.bullet(&line);
        }
        t.out.push('\n');
    }
    flipped(g, &mut t);
    footer(g, &mut t);
    t.out
}

/// Which interval each benchmark's B − A has, named with the benchmarks
/// (empty without any interval).
pub(crate) fn interval_note(g: &Gate) -> String {
    let named = |method: &str| -> Vec<&str> {
        g.benchmarks
            .iter()
            .filter(|b| b.ci.is_some() && b.interval_method == method)
            .map(|b| b.name.as_str())
            .collect()
    };
    let level = trim_float(100.0 * (1.0 - 2.0 * g.settings.alpha));
    let one_sided = trim_float(100.0 * (1.0 - g.settings.alpha));
    let mut parts = Vec::new();
    let tango = named("tango-score");
    if !tango.is_empty() {
        parts.push(format!(
            "Tango's score interval (one 0/1 value per problem a side) for {}",
            tango.join(", ")
        ));
    }
    let boot = named("bootstrap");
    if !boot.is_empty() {
        parts.push(format!("the paired bootstrap for {}", boot.join(", ")));
    }
    if parts.is_empty() {
        return String::new();
    }
    format!(
        "B − A intervals at {level}% (one-sided {one_sided}% bounds): {}.",
        parts.join("; ")
    )
}

/// A word for the decision that is not the decision's own name.
fn status_word(d: rollstat::Decision) -> &'static str {
    match d {
        rollstat::Decision::Go => "ship",
        rollstat::Decision::NoGo => "blocked",
        rollstat::Decision::Inconclusive => "undecided",
    }
}

/// The first line(s): the verdict and why.
fn verdict(g: &Gate, t: &mut Text) {
    let (name, rule) = (g.verdict.name(), g.settings.rule.name());
    let reasons = &declared(g).reasons;
    if t.markdown {
        let word = status_word(g.verdict);
        let _ = writeln!(t.out, "## rollstat gate: {name} ({word})\n");
        let _ = writeln!(t.out, "**{name}** under the {rule} rule.\n");
        for r in reasons {
            t.bullet(&md_escape(r));
        }
        t.out.push('\n');
        return;
    }
    // The first line carries the first reason; the others follow it.
    let first = match reasons.first() {
        Some(r) => format!("{name} (rule: {rule}) — {}", plain(r)),
        None => format!("{name} (rule: {rule})"),
    };
    let _ = writeln!(t.out, "{first}");
    for r in reasons.iter().skip(1) {
        wrap(&format!("  — {}", plain(r)), "    ", &mut t.out);
    }
    let width = first.chars().count().min(WIDTH);
    let _ = writeln!(t.out, "{}\n", "═".repeat(width));
}

/// The suite: weights, weighted B − A with its interval, heterogeneity.
fn suite(g: &Gate, t: &mut Text) {
    let s = &g.suite;
    let counted: Vec<&BenchmarkRow> = g.benchmarks.iter().filter(|r| r.weight > 0.0).collect();
    let equal = counted
        .windows(2)
        .all(|w| (w[0].weight - w[1].weight).abs() < 5e-3);
    let weights: Vec<String> = if equal && counted.len() > 3 {
        vec![format!("{:.2} each", counted[0].weight)]
    } else {
        g.benchmarks
            .iter()
            .map(|r| format!("{} {:.2}", t.data(&r.name), r.weight))
            .collect()
    };
    t.head(&format!(
        "suite ({} benchmarks, {} problems; {} weights: {})",
        s.n_benchmarks,
        s.n_problems,
        g.settings.weights.name(),
        weights.join(", ")
    ));
    t.para(&format!(
        "  A {} · B {} · B − A {} pts, CI {}",
        pct(s.a),
        pct(s.b),
        pts(s.delta),
        ci_pts(s.ci)
    ));
    if let Some(m) = g.settings.suite_margin {
        let beyond = match s.beyond_margin {
            true => "beyond",
            false => "not beyond",
        };
        t.para(&format!(
            "  suite margin {:.2} pts: the drop's lower bound is {beyond} it",
            100.0 * m
        ));
    }
    if let Some(h) = &s.heterogeneity {
        t.para(&format!(
            "  heterogeneity: Q = {:.2} on {} df (p {}), I² = {:.0}%",
            h.q,
            h.df,
            p_fmt(Some(h.p)),
            100.0 * h.i2
        ));
    }
    t.out.push('\n');
}

/// The three combination tests at α/3.
fn tests(g: &Gate, t: &mut Text) {
    let s = &g.suite;
    t.head(&format!(
        "combination tests (each at α/3 = {})",
        p_fmt(Some(s.alpha_each))
    ));
    let mut rows = vec![["test", "method", "statistic", "p", "rejects"]
        .map(String::from)
        .to_vec()];
    for c in &s.tests {
        rows.push(vec![
            t.data(&c.name),
            t.data(&c.method),
            format!("{:.3}", c.statistic),
            p_fmt(Some(c.p)),
            if c.rejects { "yes" } else { "no" }.into(),
        ]);
    }
    t.table(&rows);
}

/// Both rules' decisions, the declared one marked.
fn rules(g: &Gate, t: &mut Text) {
    t.head("rules");
    let s = &g.suite;
    for (rule, o) in [
        (GateRule::Margin, &s.margin_rule),
        (GateRule::Detect, &s.detect_rule),
    ] {
        let mark = if rule == g.settings.rule {
            " (declared, decides)"
        } else {
            ""
        };
        let why = o.reasons.iter().map(|r| t.data(r)).collect::<Vec<_>>();
        let why = if why.is_empty() {
            String::new()
        } else {
            format!(" — {}", why.join("; "))
        };
        t.bullet(&format!(
            "{}{mark}: {}{why}",
            rule.name(),
            o.decision.name()
        ));
    }
    t.out.push('\n');
}

/// The line that says which plan and settings made every number.
fn footer(g: &Gate, t: &mut Text) {
    let sha = g.plan.sha256.get(..12).unwrap_or(&g.plan.sha256);
    t.para(&format!(
        "{} written by rollstat {} from plan {}",
        g.schema,
        t.data(&g.version),
        t.data(&g.plan.source)
    ));
    t.para(&format!(
        "n = {} · metric {} · α = {} · seed {} · plan sha256 {sha}",
        rollouts(g),
        t.data(&g.settings.metric),
        trim_float(g.settings.alpha),
        g.settings.seed,
    ));
    if t.markdown {
        let fence = fence_for(&g.plan.text);
        let _ = writeln!(
            t.out,
            "\n<details><summary>plan (sha256 {})</summary>\n\n{fence}toml\n{}\n{fence}\n\n</details>",
            md_escape(&g.plan.sha256),
            g.plan.text.trim_end()
        );
    }
}

/// Rollouts per problem over the benchmarks with numbers: `8`, or the
/// range `1–8` when they differ.
pub(crate) fn rollouts(g: &Gate) -> String {
    let ns = g
        .benchmarks
        .iter()
        .filter(|r| r.n_problems > 0)
        .flat_map(|r| [r.n_a, r.n_b]);
    let (lo, hi) = ns.fold((u64::MAX, 0), |(lo, hi), n| (lo.min(n), hi.max(n)));
    match (lo, hi) {
        (u64::MAX, _) => "–".into(),
        (lo, hi) if lo == hi => format!("{lo} rollouts per problem"),
        (lo, hi) => format!("{lo}–{hi} rollouts per problem"),
    }
}

/// The flipped problems of every benchmark that lists some.
fn flipped(g: &Gate, t: &mut Text) {
    // The terminal lists the benchmarks that did not pass (a suite of 20
    // passing benchmarks would bury the table); the other formats list all.
    let all: Vec<&BenchmarkRow> = g
        .benchmarks
        .iter()
        .filter(|r| !r.flipped.is_empty())
        .collect();
    let listed: Vec<&BenchmarkRow> = all
        .iter()
        .copied()
        .filter(|r| t.markdown || r.status != rollstat::BenchmarkStatus::Pass)
        .collect();
    if listed.len() < all.len() {
        t.para(&format!(
            "flipped problems of the {} passing benchmarks: in the JSON, Markdown and HTML outputs",
            all.len() - listed.len()
        ));
    }
    if listed.is_empty() {
        return;
    }
    if t.markdown {
        t.out
            .push_str("<details><summary>flipped problems (A vs B)</summary>\n\n");
    } else {
        t.head("flipped problems (largest drop first; b = A right B wrong)");
    }
    for r in listed {
        flipped_benchmark(r, t);
    }
    if t.markdown {
        t.out.push_str("</details>\n\n");
    }
}

/// One benchmark's flipped problems: a table of answers, then (Markdown)
/// the responses side by side.
fn flipped_benchmark(r: &BenchmarkRow, t: &mut Text) {
    let shown = if t.markdown {
        r.flipped.len()
    } else {
        r.flipped.len().min(TERMINAL_FLIPS)
    };
    let name = t.data(&r.name);
    t.para(&format!("{name}: {} flipped, {shown} listed", r.n_flipped));
    if t.markdown {
        t.out.push('\n');
    }
    let mut rows = vec![[
        "problem",
        "drop",
        "A c/n",
        "B c/n",
        "A answers",
        "B answers",
    ]
    .map(String::from)
    .to_vec()];
    for p in &r.flipped[..shown] {
        rows.push(flip_row(p, t));
    }
    t.table(&rows);
    if t.markdown {
        responses(&r.flipped, t);
    }
}

fn flip_row(p: &FlippedProblem, t: &Text) -> Vec<String> {
    let answers = |s: &FlippedSide| {
        let joined = answers_joined(s);
        match t.markdown {
            true => md_escape(&joined),
            false => truncate(&plain(&joined), ANSWER_WIDTH),
        }
    };
    let id = match t.markdown {
        true => md_escape(&p.problem),
        false => truncate(&plain(&p.problem), 24),
    };
    vec![
        id,
        format!("{:.2}", p.drop),
        format!("{}/{}", p.a.c, p.a.n),
        format!("{}/{}", p.b.c, p.b.n),
        answers(&p.a),
        answers(&p.b),
    ]
}

/// The answers in rollout order, `∅` where none was extracted.
pub(crate) fn answers_joined(s: &FlippedSide) -> String {
    if s.answers.is_empty() {
        return "–".into();
    }
    s.answers
        .iter()
        .map(|a| a.as_deref().unwrap_or("∅"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Responses of the problems that have some: A and B in two columns.
fn responses(problems: &[FlippedProblem], t: &mut Text) {
    for p in problems {
        if p.a.responses.is_empty() && p.b.responses.is_empty() {
            continue;
        }
        let rows = (0..p.a.responses.len().max(p.b.responses.len()))
            .map(|i| {
                let cell = |s: &FlippedSide| {
                    let r = s.responses.get(i).cloned().flatten().unwrap_or_default();
                    md_escape(&truncate(&r, 400))
                };
                vec![i.to_string(), cell(&p.a), cell(&p.b)]
            })
            .collect::<Vec<_>>();
        t.para(&format!("responses to {}", md_escape(&p.problem)));
        t.out.push('\n');
        let mut table = vec![["rollout", "A response", "B response"]
            .map(String::from)
            .to_vec()];
        table.extend(rows);
        t.table(&table);
    }
}

/// Terminal width the prose lines wrap at.
const WIDTH: usize = 100;

/// `line` wrapped at [`WIDTH`] columns on spaces, continuations starting
/// with `indent`; a word longer than a line stays whole.
fn wrap(line: &str, indent: &str, out: &mut String) {
    let mut current = String::new();
    let lead = line.chars().take_while(|c| *c == ' ').count();
    current.push_str(&line[..lead]);
    let mut fresh = true;
    for word in line[lead..].split(' ') {
        let len = current.chars().count();
        if !fresh && len + 1 + word.chars().count() > WIDTH {
            out.push_str(&current);
            out.push('\n');
            current = indent.to_string();
            fresh = true;
        }
        if !fresh {
            current.push(' ');
        }
        current.push_str(word);
        fresh = false;
    }
    out.push_str(&current);
    out.push('\n');
}

/// Text for the terminal: control characters (newlines, escapes) shown as
/// `␤` / `�` so one value stays on one line and cannot drive the terminal.
pub(crate) fn plain(s: &str) -> String {
    s.chars()
        .map(|c| match c {
            '\n' => '␤',
            '\t' => ' ',
            c if c.is_control() => '�',
            c => c,
        })
        .collect()
}

/// At most `width` characters, `…` marking a cut.
pub(crate) fn truncate(s: &str, width: usize) -> String {
    if s.chars().count() <= width {
        return s.to_string();
    }
    let mut out: String = s.chars().take(width.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// Text for a Markdown table cell or line: HTML's specials as entities,
/// Markdown's punctuation backslashed, `|` escaped, newlines as `<br>`.
///
/// ```
/// assert_eq!(
///     rollstat_render::gate::md_escape("a|b <script>*x*"),
///     "a\\|b &lt;script&gt;\\*x\\*"
/// );
/// ```
pub fn md_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\n' => out.push_str("<br>"),
            '\r' => {}
            '\\' | '|' | '`' | '*' | '_' | '[' | ']' | '#' | '~' | '!' => {
                out.push('\\');
                out.push(c);
            }
            c if c.is_control() => out.push('�'),
            c => out.push(c),
        }
    }
    out
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}
