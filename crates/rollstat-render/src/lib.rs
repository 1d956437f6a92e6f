//! Renderers: one per output format, all reading the same [`Report`].
//!
//! The table and Markdown renderers share one layout ([`layout`]): a list
//! of rows with already formatted cells, so the two can never disagree.
//! NB: a new field in `MetricEntry` needs a column here and in `csv.rs`.

pub mod compare;
pub mod csv;
mod frontier;
pub mod gate;
mod gate_example;
pub mod html;
mod html_compare;
pub mod html_gate;
pub mod html_rank;
mod html_reliability;
pub mod markup;
pub mod power;
pub mod rank;
pub mod reliability;
mod scatter;
mod svg;

pub use markup::{table, Style};

use rollstat::{MetricBlock, MetricEntry};
use rollstat_core::catalogue::{spec, Family, Headline, MetricKey};

pub use html_compare::render as compare_html;
pub use html_gate::render as gate_html;
pub use html_rank::render as rank_html;

/// How a front end words what it controls: findings, and the options the
/// terminal table and Markdown point to. The HTML page names no option (the
/// same page comes out of every front end); only its findings are worded.
///
/// ```
/// let words = rollstat_render::Words {
///     finding: |f| f.to_string(),
///     all: "all=True",
///     tau: "tau=",
///     budget: None,
///     fail_on: "fail_on=",
/// };
/// assert_eq!((words.finding)(&rollstat::Finding::BadRows { n: 2 }), "2 malformed rows were skipped");
/// ```
#[derive(Clone, Copy)]
pub struct Words {
    /// A finding in the front end's words.
    pub finding: fn(&rollstat::Finding) -> String,
    /// The option that shows every metric (`--all`).
    pub all: &'static str,
    /// The option that sets G-Pass thresholds (`--tau`).
    pub tau: &'static str,
    /// The option that names a budget field (`--budget`), where there is one.
    pub budget: Option<&'static str>,
    /// The option that asks for a verdict check (`--fail-on`).
    pub fail_on: &'static str,
}

/// Which metrics the tables for people show.
#[derive(Clone, Copy, Debug, Default)]
pub struct View {
    /// Every metric (`--all`).
    pub all: bool,
    /// G-Pass thresholds were given (`--tau`): show g-pass and mg-pass.
    pub tau_asked: bool,
}

impl View {
    /// Whether a table for people shows metric `name`: its catalogue
    /// entry's [`Headline`] (pass@k, pass^k, maj@k, prefix@k,
    /// self-consistency; G-Pass only when thresholds were asked), never a
    /// row that is another row by definition; everything with `all`. A key
    /// outside the catalogue is shown: hiding it would hide it silently.
    pub fn shows(&self, name: &str, e: &MetricEntry) -> bool {
        self.shows_key(name, e.same_as.is_some())
    }

    /// [`View::shows`] for any row named `name` (a report's metric, a
    /// comparison's row): `same_as` says whether it is another row by
    /// definition.
    ///
    /// ```
    /// use rollstat_render::View;
    /// let view = View::default();
    /// assert!(view.shows_key("pass@1", false));
    /// assert!(!view.shows_key("g-pass@4_0.25", true));
    /// assert!(!view.shows_key("mg-pass@4", false)); // no thresholds asked
    /// assert!(View { all: true, ..view }.shows_key("g-pass@4_0.25", true));
    /// ```
    pub fn shows_key(&self, name: &str, same_as: bool) -> bool {
        if self.all {
            return true;
        }
        if same_as {
            return false;
        }
        match family_of(name).map(|f| spec(f).headline) {
            Some(Headline::Always) | None => true,
            Some(Headline::WhenTauAsked) => self.tau_asked,
            Some(Headline::Never) => false,
        }
    }
}

/// The catalogue family of a report key, `None` for a key outside it.
pub fn family_of(name: &str) -> Option<Family> {
    name.parse::<MetricKey>().ok().map(|k| k.family())
}

/// Formats a metric value for people: percent for fractions.
pub fn human_value(e: &MetricEntry) -> String {
    if e.unit.is_fraction() {
        format!("{:.2}%", e.value * 100.0)
    } else {
        format!("{:.2}", e.value)
    }
}

/// Formats a metric's standard error for people.
pub fn human_stderr(e: &MetricEntry) -> String {
    match e.stderr {
        Some(se) if e.unit.is_fraction() => format!("±{:.2}%", se * 100.0),
        Some(se) => format!("±{se:.2}"),
        None => "–".into(),
    }
}

/// Formats a metric's interval for people.
pub fn human_ci(e: &MetricEntry) -> String {
    match &e.ci {
        Some(i) if e.unit.is_fraction() => {
            format!("[{:.2}, {:.2}]%", i.lower * 100.0, i.upper * 100.0)
        }
        Some(i) => format!("[{:.2}, {:.2}]", i.lower, i.upper),
        None => "–".into(),
    }
}

/// Table rows (header first) for the metrics of `block` that `view` shows.
pub fn layout(block: &MetricBlock, view: View, n: u64) -> Vec<Vec<String>> {
    let with_ci = block.metrics.iter().any(|(_, e)| e.ci.is_some());
    let mut header = vec!["metric", "value", "±stderr"];
    if with_ci {
        header.push("CI");
    }
    header.extend(["problems", "excluded"]);
    let mut rows = vec![header.into_iter().map(String::from).collect::<Vec<_>>()];
    for (name, e) in block
        .metrics
        .iter()
        .filter(|(name, e)| shown_in(view, n, name, e))
    {
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

/// Answer metrics (maj@k, self-consistency, distinct answers): the rows a
/// report leaves out without extracted answers, or shows no table row for
/// at n = 1 (one answer votes alone).
fn is_answer_metric(name: &str) -> bool {
    matches!(
        family_of(name),
        Some(Family::MajAtK | Family::SelfConsistency | Family::DistinctAnswers)
    )
}

/// The G-Pass families, shown only when thresholds are asked.
fn is_g_pass(name: &str) -> bool {
    matches!(family_of(name), Some(Family::GPassAtK | Family::MgPassAtK))
}

/// One line saying why the answer metrics are not in the table: the report
/// left them out (no extracted answers, or n = 1), or no problem of this
/// population had one.
pub fn answer_note(block: &MetricBlock, c: &rollstat::Config) -> Option<String> {
    if let Some(why) = c.answer_metrics_left_out {
        return Some(format!(
            "maj@k, self_consistency and distinct_answers left out: {why}"
        ));
    }
    let missing: Vec<&String> = block
        .not_computable
        .iter()
        .filter(|(name, _)| is_answer_metric(name))
        .map(|(name, _)| name)
        .collect();
    let present = block.metrics.iter().any(|(name, _)| is_answer_metric(name));
    if missing.is_empty() || present {
        return None;
    }
    let names: Vec<&str> = missing.iter().map(|s| s.as_str()).collect();
    let reason = block.not_computable.get(missing[0]).cloned();
    Some(format!(
        "{} left out: {}",
        names.join(", "),
        reason.unwrap_or_default()
    ))
}

/// What the table leaves out that the full table prints, by reason, e.g.
/// `--all adds 20 more: 8 equal to another row by definition, 12 G-Pass
/// rows (thresholds not asked with --tau)`; `None` when nothing is left
/// out. With `words` the options are named; without, the text names none
/// (the HTML page).
pub fn hidden_summary(
    block: &MetricBlock,
    n: u64,
    view: View,
    words: Option<&Words>,
) -> Option<String> {
    let hidden: Vec<(&str, bool)> = block
        .metrics
        .iter()
        .filter(|(name, e)| !shown_in(view, n, name, e))
        .map(|(name, e)| (name.as_str(), e.same_as.is_some()))
        .collect();
    hidden_line(&hidden, words, "the JSON report has every metric")
}

/// The "adds N more" line over the rows left out, each a name and whether
/// it is another row by definition; `complete` names where every row is.
pub(crate) fn hidden_line(
    hidden: &[(&str, bool)],
    words: Option<&Words>,
    complete: &str,
) -> Option<String> {
    if hidden.is_empty() {
        return None;
    }
    let same = hidden.iter().filter(|(_, same)| *same).count();
    let gpass = hidden
        .iter()
        .filter(|(name, same)| !same && is_g_pass(name))
        .count();
    let mut parts = Vec::new();
    if same > 0 {
        parts.push(format!("{same} equal to another row by definition"));
    }
    if gpass > 0 {
        parts.push(match words {
            Some(w) => format!("{gpass} G-Pass rows (thresholds not asked with {})", w.tau),
            None => format!("{gpass} G-Pass rows (no thresholds asked)"),
        });
    }
    let is_gap = |name: &str| {
        matches!(name.parse::<MetricKey>(), Ok(MetricKey::Metric(rollstat_core::aggregate::Metric::SelectionGap { selector, .. }))
            if selector.family() == Family::MajAtK)
    };
    let gaps = hidden.iter().filter(|(name, _)| is_gap(name)).count();
    if gaps > 0 {
        parts.push(format!("{gaps} pass@k-maj@k gaps"));
    }
    let is_budget =
        |name: &str| matches!(family_of(name), Some(Family::BudgetAtK | Family::CostOf));
    let budgets = hidden.iter().filter(|(name, _)| is_budget(name)).count();
    if budgets > 0 {
        parts.push(format!("{budgets} budget@k and cost_of_…@k rows"));
    }
    // Each name once (a comparison repeats names per group and for its
    // budget-matched rows).
    for (name, _) in hidden
        .iter()
        .filter(|(name, same)| !same && !is_gap(name) && !is_budget(name) && !is_g_pass(name))
    {
        if !parts.iter().any(|p| p == name) {
            parts.push(name.to_string());
        }
    }
    Some(format!(
        "{} adds {} more: {}; {complete}.",
        words.map_or("the full table", |w| w.all),
        hidden.len(),
        parts.join(", ")
    ))
}

/// Whether `view` shows `name` in this block, given the n = 1 rule.
pub fn shown_in(view: View, n: u64, name: &str, e: &MetricEntry) -> bool {
    view.shows(name, e) && (view.all || n != 1 || !is_answer_metric(name))
}
