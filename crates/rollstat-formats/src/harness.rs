//! Harness aggregates: the numbers a harness stored itself, and what each
//! one's name means in rollstat's terms.
//!
//! Each format that stores aggregates has its own way of composing a metric
//! name (its *dialect*), kept in its adapter module and reached through the
//! registry ([`HarnessAggregate::target`]):
//!
//! | format | name | syntax peeled off first |
//! |---|---|---|
//! | lm-eval | `exact_match,strict-match`, `acc_stderr,none` | `metric,filter` ([`split_filter`]) |
//! | inspect | `match/accuracy`, `match/stderr` | `scorer/metric` ([`strip_prefix_path`]) |
//! | NeMo-Skills | `symbolic_correct/majority@8` | `metric/aggregation` ([`strip_prefix_path`]) |
//! | lighteval | `pass@k:k=1&n=2` | `metric:params` ([`split_params`]) |
//! | evalscope, OpenCompass, SiEval | `mean_acc_pass@4`, `G-Pass@16_0.5`, `pass@k` | none |
//!
//! What is left is read by the rules every dialect shares ([`resolve`]):
//! `stderr` names, evalscope's `_pass@k`/`_vote@k` suffixes, health counts,
//! lm-eval's filter (`maj@K`, `…first`), `G-Pass@k_τ`, `pass@k`/`pass^k`,
//! `maj@k`/`majority@k`/`cons@k` and accuracy-like names.

use std::path::PathBuf;

use rollstat_core::aggregate::Metric;

use crate::format::Format;

/// An aggregate number the harness computed itself.
#[derive(Debug, Clone, PartialEq)]
pub struct HarnessAggregate {
    /// The file the number was read from.
    pub source_path: PathBuf,
    /// The format whose dialect names it (see [`HarnessAggregate::target`]).
    pub format: Format,
    /// The harness's own metric name, e.g. `exact_match,strict-match`.
    pub metric_name: String,
    /// The value as stored (percentages stay percentages; see `note`).
    pub value: f64,
    /// Scope and caveats: task/subset, scale, stderr, reducer.
    pub note: String,
}

impl HarnessAggregate {
    /// What the aggregate reports in rollstat's terms, read with its
    /// format's dialect.
    ///
    /// ```
    /// use rollstat_core::aggregate::Metric;
    /// use rollstat_formats::{Format, HarnessAggregate, HarnessTarget, TargetHints};
    /// let a = HarnessAggregate {
    ///     source_path: "results.json".into(),
    ///     format: Format::LightevalResults,
    ///     metric_name: "pass@k:k=1&n=2".into(),
    ///     value: 0.5,
    ///     note: String::new(),
    /// };
    /// let hints = TargetHints { n: 2, k_hint: None, scored_by: None };
    /// assert_eq!(a.target(&hints), HarnessTarget::Metric(Metric::PassAtK(1)));
    /// ```
    pub fn target(&self, hints: &TargetHints<'_>) -> HarnessTarget {
        match self.format.spec().aggregates {
            Some(d) => (d.target)(&self.metric_name, hints),
            None => HarnessTarget::None,
        }
    }

    /// The `run` the aggregate is about, among the `runs` of its file's
    /// rows, when its name names one (lm-eval's filter, inspect's scorer).
    pub fn run<'r>(&self, runs: &[&'r str]) -> Option<&'r str> {
        let d = self.format.spec().aggregates?;
        let name = (d.run)(&self.metric_name)?;
        runs.iter().find(|r| **r == name).copied()
    }
}

/// How a format names its aggregates: the metric a name reports, and the
/// row `run` (filter, scorer) a name is about.
#[derive(Clone, Copy)]
pub(crate) struct AggregateDialect {
    pub target: fn(&str, &TargetHints<'_>) -> HarnessTarget,
    pub run: fn(&str) -> Option<&str>,
}

impl AggregateDialect {
    /// Names that carry no run.
    pub(crate) const fn plain(target: fn(&str, &TargetHints<'_>) -> HarnessTarget) -> Self {
        AggregateDialect {
            target,
            run: |_| None,
        }
    }
}

/// What a harness metric name corresponds to in rollstat.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum HarnessTarget {
    /// A report metric.
    Metric(Metric),
    /// The standard error of a metric's mean over problems (sd/√N with the
    /// N − 1 divisor, as inspect's `stderr` and lm-eval's `*_stderr`).
    Stderr(Metric),
    /// A count in the health block.
    Health(HealthCount),
    /// No rollstat counterpart.
    None,
}

/// A count of the report's health block that a harness also stores.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum HealthCount {
    /// Rollouts requested per problem.
    N,
    /// Problems with fewer rollouts than requested.
    NShort,
    /// Rollouts whose answer could not be extracted.
    NUnextracted,
}

impl HealthCount {
    /// The health field's name.
    pub fn name(self) -> &'static str {
        match self {
            HealthCount::N => "n",
            HealthCount::NShort => "n_short",
            HealthCount::NUnextracted => "n_unextracted",
        }
    }
}

/// What the reading of a name may use besides the name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TargetHints<'a> {
    /// Requested rollouts per problem (maj@k at or above it is maj@n).
    pub n: u64,
    /// The k of a `pass@k` named without a number (SiEval stores `k` beside it).
    pub k_hint: Option<u64>,
    /// The per-sample metric the rows' verdicts come from, when the
    /// adapter knows it (lm-eval's first metric, evalscope's main score):
    /// that metric's mean is pass@1 whatever its name (`acc_norm`), and
    /// another accuracy-like metric is not.
    pub scored_by: Option<&'a str>,
}

/// A name with its harness syntax peeled off.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Name {
    /// The metric, lower case.
    pub metric: String,
    /// lm-eval's filter.
    pub filter: Option<String>,
    /// A k stated in the name's parameters (lighteval `k=1`).
    pub k: Option<u64>,
}

impl Name {
    /// A name without syntax of its own.
    pub(crate) fn plain(name: &str) -> Name {
        Name {
            metric: name.trim().to_ascii_lowercase(),
            filter: None,
            k: None,
        }
    }
}

/// lm-eval `metric,filter`: the filter decides what was scored.
pub(crate) fn split_filter(name: &str) -> Name {
    let mut n = Name::plain(name);
    if let Some((m, f)) = n.metric.split_once(',') {
        n.filter = Some(f.to_string());
        n.metric = m.trim().to_string();
    }
    n
}

/// inspect `scorer/metric`, NeMo-Skills `metric/aggregation`: the last part.
pub(crate) fn strip_prefix_path(name: &str) -> Name {
    let mut n = Name::plain(name);
    if let Some((_, last)) = n.metric.rsplit_once('/') {
        n.metric = last.trim().to_string();
    }
    n
}

/// lighteval `pass@k:k=1&n=2`: parameters after the colon.
pub(crate) fn split_params(name: &str) -> Name {
    let mut n = Name::plain(name);
    if let Some((base, params)) = n.metric.split_once(':') {
        n.k = params
            .split('&')
            .find_map(|kv| kv.strip_prefix("k="))
            .and_then(|v| v.trim().parse::<u64>().ok());
        n.metric = base.to_string();
    }
    n
}

/// The rules every dialect shares, on a name with its syntax peeled off.
pub(crate) fn resolve(name: &Name, hints: &TargetHints<'_>) -> HarnessTarget {
    let hints = TargetHints {
        k_hint: name.k.or(hints.k_hint),
        ..*hints
    };
    let metric = name.metric.as_str();
    if let Some(t) = stderr_target(name, &hints) {
        return t;
    }
    if metric.contains("stderr") || metric == "std" || metric.starts_with("sample") {
        return HarnessTarget::None;
    }
    if let Some(t) = suffix_target(name, &hints) {
        return t;
    }
    match metric {
        "n_short" => return HarnessTarget::Health(HealthCount::NShort),
        "n_unextracted" => return HarnessTarget::Health(HealthCount::NUnextracted),
        "n" => return HarnessTarget::Health(HealthCount::N),
        _ => {}
    }
    let found = filter_target(name.filter.as_deref(), hints.n)
        .or_else(|| k_target(metric, &hints))
        .map(HarnessTarget::Metric);
    found.unwrap_or_else(|| accuracy_target(metric, hints.scored_by))
}

/// inspect `scorer/stderr` is the stderr of the scorer's accuracy;
/// `acc_stderr` that of `acc`.
fn stderr_target(name: &Name, hints: &TargetHints<'_>) -> Option<HarnessTarget> {
    let base = match name.metric.as_str() {
        "stderr" => "accuracy",
        m => m.strip_suffix("_stderr")?,
    };
    let of = Name {
        metric: base.to_string(),
        ..name.clone()
    };
    Some(match resolve(&of, hints) {
        HarnessTarget::Metric(m) => HarnessTarget::Stderr(m),
        _ => HarnessTarget::None,
    })
}

/// evalscope `mean_acc_pass@4`, `acc_pass^4`, `acc_vote@4`, and `vote@4`.
fn suffix_target(name: &Name, hints: &TargetHints<'_>) -> Option<HarnessTarget> {
    let metric = name.metric.as_str();
    let at = metric
        .rsplit_once("_pass@")
        .map(|(_, k)| format!("pass@{k}"))
        .or_else(|| {
            metric
                .rsplit_once("_pass^")
                .map(|(_, k)| format!("pass^{k}"))
        });
    if let Some(at) = at {
        // Read as the bare name `pass@4`: no filter applies to it.
        let of = Name {
            metric: at,
            filter: None,
            k: name.k,
        };
        return Some(resolve(&of, hints));
    }
    let k = (metric.rsplit_once("_vote@").and_then(|(_, k)| num(k)))
        .or_else(|| metric.strip_prefix("vote@").and_then(num))?;
    Some(HarnessTarget::Metric(maj_at(k, hints.n)))
}

/// lm-eval's filter: `maj@K`, a majority vote, or the first sample.
fn filter_target(filter: Option<&str>, n: u64) -> Option<Metric> {
    let f = filter?;
    if let Some(k) = f.strip_prefix("maj@").and_then(num) {
        return Some(maj_at(k, n));
    }
    if f.contains("maj") || f.contains("vote") {
        return Some(Metric::MajAtN(n));
    }
    f.contains("first").then_some(Metric::PrefixAtK(1))
}

fn num(s: &str) -> Option<u64> {
    s.trim().parse::<u64>().ok()
}

/// Metrics with a k in their name: G-Pass@k_τ, mG-Pass@k, pass@k,
/// pass^k, maj@k, NeMo-Skills' majority@k, cons@k.
fn k_target(metric: &str, hints: &TargetHints<'_>) -> Option<Metric> {
    if let Some((k, tau)) = metric
        .strip_prefix("g-pass@")
        .and_then(|r| r.split_once('_'))
    {
        if let Some(m) = num(k).and_then(|k| g_pass(k, tau)) {
            return Some(m);
        }
    }
    if let Some(k) = metric.strip_prefix("mg-pass@").and_then(num) {
        return Some(Metric::MgPassAtK(k));
    }
    for (prefix, is_pow) in [("pass@", false), ("pass^", true), ("pass_at_", false)] {
        let Some(rest) = metric.strip_prefix(prefix) else {
            continue;
        };
        let named_k = (rest == "k" || rest == "n")
            .then_some(hints.k_hint)
            .flatten();
        if let Some(k) = num(rest).or(named_k) {
            return Some(match is_pow {
                true => Metric::PassPowK(k),
                false => Metric::PassAtK(k),
            });
        }
    }
    let n = hints.n;
    if metric == "maj@k" {
        return Some(maj_at(hints.k_hint.unwrap_or(n), n));
    }
    let leading = |r: &str| num(r.split(|c: char| !c.is_ascii_digit()).next().unwrap_or(""));
    let k = (metric.strip_prefix("maj@").and_then(leading))
        .or_else(|| metric.strip_prefix("majority@").and_then(num))
        .or_else(|| metric.strip_prefix("cons@").and_then(num))?;
    Some(maj_at(k, n))
}

fn g_pass(k: u64, tau_text: &str) -> Option<Metric> {
    let tau: f64 = tau_text.parse().ok()?;
    (0.0..=1.0).contains(&tau).then(|| Metric::GPassAtK {
        k,
        tau,
        tau_text: tau_text.to_string(),
    })
}

/// The report's vote at k: maj@k (exact over k-subsets) below the requested
/// n, maj@n at or above it — the metric the report's `maj@<k>` key holds.
fn maj_at(k: u64, n: u64) -> Metric {
    if k < n {
        Metric::MajAtK(k)
    } else {
        Metric::MajAtN(k)
    }
}

const ACCURACY_LIKE: &[&str] = &[
    "acc",
    "accuracy",
    "exact_match",
    "em",
    "score",
    "mean",
    "avg@n",
    "avg",
    "correct",
    "is_correct",
    "quasi_exact_match",
    "math_pass@1:1_samples",
    "extractive_match",
    "averageaccuracy",
    "weightedaverageaccuracy",
];

/// An accuracy-like name is pass@1, unless the rows were scored by
/// another metric (then only that metric's mean is).
fn accuracy_target(metric: &str, scored_by: Option<&str>) -> HarnessTarget {
    let metric = metric.strip_prefix("mean_").unwrap_or(metric);
    if let Some(main) = scored_by.map(str::to_ascii_lowercase) {
        if metric == main {
            return HarnessTarget::Metric(Metric::PassAtK(1));
        }
        if ACCURACY_LIKE.contains(&metric) || metric.contains("acc") {
            return HarnessTarget::None;
        }
    }
    if ACCURACY_LIKE.contains(&metric)
        || metric.starts_with("accuracy")
        || metric.starts_with("avg@")
    {
        return HarnessTarget::Metric(Metric::PassAtK(1));
    }
    HarnessTarget::None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(format: Format, name: &str, scored_by: Option<&str>) -> HarnessTarget {
        let a = HarnessAggregate {
            source_path: PathBuf::new(),
            format,
            metric_name: name.into(),
            value: 0.0,
            note: String::new(),
        };
        a.target(&TargetHints {
            n: 8,
            k_hint: None,
            scored_by,
        })
    }

    /// evalscope's report names (schema 1 `mean_acc`, `mean_acc_pass@4`,
    /// `AverageAccuracy` of 0.x; schema 2 identities written `acc_vote@4`,
    /// `acc_pass^2`) and lm-eval's, with the metric the rows were scored by.
    #[test]
    fn harness_names_map_to_the_metric_they_report() {
        let es = |name: &str, by: Option<&str>| target(Format::EvalscopeReviews, name, by);
        let lm = |name: &str, by: Option<&str>| target(Format::LmEvalResults, name, by);
        let metric = HarnessTarget::Metric;
        assert_eq!(es("mean_acc", Some("acc")), metric(Metric::PassAtK(1)));
        assert_eq!(es("AverageAccuracy", None), metric(Metric::PassAtK(1)));
        assert_eq!(es("accuracy", None), metric(Metric::PassAtK(1)));
        assert_eq!(
            es("mean_acc_pass@4", Some("acc")),
            metric(Metric::PassAtK(4))
        );
        assert_eq!(es("acc_pass^2", None), metric(Metric::PassPowK(2)));
        assert_eq!(es("acc_vote@4", None), metric(Metric::MajAtK(4)));
        assert_eq!(es("acc_vote@8", None), metric(Metric::MajAtN(8)));
        // A task scored only by acc_norm: its mean is pass@1, its stderr
        // that of pass@1; acc (not the verdicts) has no counterpart.
        let norm = Some("acc_norm");
        assert_eq!(lm("acc_norm,none", norm), metric(Metric::PassAtK(1)));
        assert_eq!(
            lm("acc_norm_stderr,none", norm),
            HarnessTarget::Stderr(Metric::PassAtK(1))
        );
        assert_eq!(lm("acc,none", norm), HarnessTarget::None);
        assert_eq!(lm("acc_norm,none", None), HarnessTarget::None);
        // Verdicts from acc: acc_norm stays without a counterpart.
        assert_eq!(lm("acc_norm,none", Some("acc")), HarnessTarget::None);
        assert_eq!(lm("acc,none", Some("acc")), metric(Metric::PassAtK(1)));
        assert_eq!(lm("exact_match,maj@4", None), metric(Metric::MajAtK(4)));
        assert_eq!(
            lm("exact_match,take_first", None),
            metric(Metric::PrefixAtK(1))
        );
    }

    /// Each dialect peels its own syntax: inspect's scorer, lighteval's
    /// parameters, NeMo-Skills' metric prefix; health counts and G-Pass.
    #[test]
    fn each_dialect_reads_its_own_syntax() {
        let metric = HarnessTarget::Metric;
        let inspect = |n: &str| target(Format::InspectEval, n, None);
        assert_eq!(inspect("match/accuracy"), metric(Metric::PassAtK(1)));
        assert_eq!(
            inspect("match/stderr"),
            HarnessTarget::Stderr(Metric::PassAtK(1))
        );
        let le = |n: &str| target(Format::LightevalResults, n, None);
        assert_eq!(le("pass@k:k=2&n=4"), metric(Metric::PassAtK(2)));
        assert_eq!(le("math_pass@1:1_samples"), metric(Metric::PassAtK(1)));
        let nemo = |n: &str| target(Format::NemoSkills, n, None);
        assert_eq!(
            nemo("symbolic_correct/majority@8"),
            metric(Metric::MajAtN(8))
        );
        assert_eq!(nemo("judge_correct/pass@4"), metric(Metric::PassAtK(4)));
        let si = |n: &str| target(Format::Sieval, n, None);
        assert_eq!(si("n_short"), HarnessTarget::Health(HealthCount::NShort));
        let oc = target(Format::OpenCompassResults, "G-Pass@16_0.5", None);
        assert!(matches!(
            oc,
            HarnessTarget::Metric(Metric::GPassAtK { k: 16, .. })
        ));
        // A format that stores no aggregates has no dialect.
        assert_eq!(
            target(Format::TauBench, "accuracy", None),
            HarnessTarget::None
        );
    }
}
