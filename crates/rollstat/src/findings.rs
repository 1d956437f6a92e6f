//! Findings as data: what the engine noticed about the input and the
//! numbers, each variant carrying its numbers. [`Finding`]'s `Display` words
//! it in the library's terms (no command-line flags); a front end words its
//! own advice from the variant (the CLI names flags, the Python package
//! names keyword arguments).
//!
//! In a report.json a finding is its text; read back, it becomes
//! [`Finding::Text`].

use rollstat_core::summary::DenominatorPolicy;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// One finding.
///
/// ```
/// use rollstat::Finding;
/// let f = Finding::Truncated { n: 2, total: 40 };
/// assert_eq!(f.to_string(), "2 rollouts (5.0%) were truncated (finish_reason length/max_tokens/content_filter)");
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Finding {
    /// Problems with fewer rollouts than requested; `used` of `n_problems`
    /// problems enter pass@`largest_k`.
    ShortProblems {
        /// Problems with fewer rollouts than requested.
        n_short: u64,
        /// The requested n.
        n_requested: u64,
        /// The largest k of the pass@k metrics.
        largest_k: u64,
        /// Problems with a value for pass@`largest_k`.
        used: u64,
        /// Problems in the population.
        n_problems: u64,
    },
    /// Rollouts without an extracted answer.
    Unextracted {
        /// Unextracted rollouts.
        n: u64,
        /// Rollouts that arrived.
        total: u64,
    },
    /// Unextracted rollouts that the input marked correct.
    UnextractedMarkedCorrect {
        /// Such rollouts (each counted as wrong).
        n: u64,
    },
    /// Truncated generations.
    Truncated {
        /// Truncated rollouts.
        n: u64,
        /// Rollouts that arrived.
        total: u64,
    },
    /// Rollouts without a verdict, under the given denominator policy.
    Failed {
        /// Failed rollouts.
        n: u64,
        /// Whether they count as wrong (`Requested`) or were dropped
        /// (`Judged`).
        policy: DenominatorPolicy,
    },
    /// Malformed rows skipped (lenient mode).
    BadRows {
        /// Rows skipped (in a comparison, over both sides).
        n: u64,
    },
    /// Duplicated rollouts dropped by the dedupe policy.
    DuplicatesDropped {
        /// Rollouts dropped.
        n: u64,
    },
    /// Answer clusters whose members were judged differently.
    InconsistentClusters {
        /// Such clusters.
        n: u64,
    },
    /// Answer comparisons the grader's per-pair work limit left undecided.
    GradingUndecided {
        /// compare: the side (`A` or `B`); `None` in a report.
        side: Option<&'static str>,
        /// Such comparisons.
        n: u64,
    },
    /// Problems given as counts only.
    CountRows {
        /// Problems without per-rollout detail.
        n: u64,
    },
    /// A metric with no value on any problem.
    NotComputable {
        /// The metric's name.
        metric: String,
        /// The most frequent exclusion reason, in words.
        reason: String,
    },
    /// Metrics computed only on problems whose rollouts all carry answers.
    PartialAnswers {
        /// Metrics with a value on some problems that excluded others for
        /// missing answers (`no_answers`).
        metrics: Vec<String>,
    },
    /// A binomial interval method that some metrics could not use.
    BinomialFallback {
        /// The binomial method asked for (`wilson`, `jeffreys`,
        /// `clopper-pearson`).
        method: String,
        /// Metrics that got a percentile bootstrap instead.
        metrics: Vec<String>,
    },
    /// Advice about the interval method; `suggestion` names a better one.
    IntervalMethod {
        /// The advice, in words.
        message: String,
        /// A better method by name (`bca`, `wilson`, `t`), for a front end
        /// to word as its own option; `None` when there is none to name.
        suggestion: Option<String>,
    },
    /// A note from a native-format adapter.
    AdapterNote(String),
    /// Files of a directory walk that could not be read.
    UnreadableFiles {
        /// Their paths.
        files: Vec<String>,
    },
    /// Files of a directory walk passed over: (path, why).
    SkippedFiles {
        /// (path, why) of each file passed over.
        files: Vec<(String, String)>,
    },
    /// Several systems (model/run values) pooled as separate problems.
    PooledSystems {
        /// The systems, sorted (`model`, `run`, or
        /// `model/run` when a row has both).
        systems: Vec<String>,
    },
    /// compare: problems present on one side only.
    Unpaired {
        /// Problem ids only A has.
        only_a: Vec<String>,
        /// Problem ids only B has.
        only_b: Vec<String>,
        /// Problems both sides have (every row is over these).
        matched: u64,
    },
    /// compare: matched problems whose `field` differs between A and B.
    FieldDiffers {
        /// Matched problems with two different values (A's is used).
        n: u64,
        /// The cluster or group field.
        field: String,
    },
    /// compare: the sides have different largest n.
    UnequalRollouts {
        /// Most rollouts of a matched problem on A.
        max_a: u64,
        /// Most rollouts of a matched problem on B.
        max_b: u64,
    },
    /// compare: short matched problems on one side.
    ShortSide {
        /// `A` or `B`.
        side: &'static str,
        /// Matched problems of that side with fewer rollouts than requested.
        n_short: u64,
        /// The requested n.
        n_requested: u64,
    },
    /// compare: a metric with no row.
    NotCompared {
        /// The metric's name.
        metric: String,
        /// Why, in words (as in the comparison's `not_computable`).
        reason: String,
    },
    /// compare: a metric named for the verdict check has no row.
    UncheckedMetric {
        /// The metric, as named in the `metric` option.
        metric: String,
    },
    /// The extrapolation of pass@K beyond n was asked for and could not be
    /// made.
    NoExtrapolation {
        /// Why, in words.
        reason: String,
    },
    /// A finding read back from a report.json (its text only).
    Text(String),
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".into();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

/// Up to 5 names in quotes, then the total.
pub(crate) fn name_some(ids: &[String]) -> String {
    let shown: Vec<String> = ids.iter().take(5).map(|s| format!("'{s}'")).collect();
    if ids.len() > 5 {
        format!("{}, … ({} in all)", shown.join(", "), ids.len())
    } else {
        shown.join(", ")
    }
}

/// Up to 4 metric names, or 3 and a count.
pub(crate) fn summarize_names(names: &[String]) -> String {
    if names.len() <= 4 {
        names.join(", ")
    } else {
        format!(
            "{} and {} more metrics",
            names[..3].join(", "),
            names.len() - 3
        )
    }
}

impl Finding {
    /// The text shared by every front end; advice is added by each.
    fn write_report(&self, f: &mut fmt::Formatter<'_>) -> Option<fmt::Result> {
        Some(match self {
            Finding::ShortProblems { n_short, n_requested, largest_k, used, n_problems } => write!(f,
                "{n_short} problems had fewer than {n_requested} rollouts; pass@{largest_k} uses {used} of {n_problems} problems (short problems are excluded where k exceeds their n, never scored 1 or 0)"),
            Finding::Unextracted { n, total } => write!(f,
                "{n} of {total} rollouts ({}) had no extracted answer; they count as wrong and never vote", pct(*n, *total)),
            Finding::UnextractedMarkedCorrect { n } => write!(f,
                "{n} rollouts were marked correct but had no extracted answer (answer: null); they were counted as wrong"),
            Finding::Truncated { n, total } => write!(f,
                "{n} rollouts ({}) were truncated (finish_reason length/max_tokens/content_filter)", pct(*n, *total)),
            Finding::Failed { n, policy: DenominatorPolicy::Requested } => write!(f,
                "{n} rollouts have no verdict (failed call or judge); they count as wrong"),
            Finding::Failed { n, policy: DenominatorPolicy::Judged } => write!(f,
                "{n} rollouts have no verdict (failed call or judge); they were dropped from n (judged denominator)"),
            Finding::BadRows { n } => write!(f, "{n} malformed rows were skipped"),
            Finding::DuplicatesDropped { n } => write!(f,
                "{n} duplicated rollouts were dropped by the dedupe policy"),
            Finding::InconsistentClusters { n } => write!(f,
                "{n} answer clusters hold members judged differently; a cluster's verdict is its first judged member's"),
            Finding::GradingUndecided { side, n } => write!(f,
                "{}{n} answer comparisons were not decided (over the grader's per-pair work limit): a rollout graded this way has no verdict (failed), two answers compared this way stay in separate clusters",
                side.map_or(String::new(), |s| format!("{s}: "))),
            Finding::CountRows { n } => write!(f,
                "{n} problems are count rows (n, c only): prefix@k, maj@n and self-consistency exclude them"),
            Finding::NotComputable { metric, reason } => write!(f, "{metric} is not computable: {reason}"),
            Finding::PartialAnswers { metrics } => write!(f,
                "{} use only problems whose rollouts all carry an answer", metrics.join(", ")),
            Finding::BinomialFallback { method, metrics } => write!(f,
                "{method} intervals need one 0/1 value per problem (and no clusters); {} got a percentile bootstrap instead", summarize_names(metrics)),
            Finding::IntervalMethod { message, .. } => f.write_str(message),
            Finding::AdapterNote(s) | Finding::Text(s) => f.write_str(s),
            Finding::UnreadableFiles { files } => write!(f,
                "{} input file(s) could not be read and were left out: {}", files.len(), files.join(", ")),
            Finding::SkippedFiles { files } => {
                let names: Vec<String> = files.iter().take(5).map(|(p, why)| format!("{p} ({why})")).collect();
                write!(f, "{} file(s) in the input directories were passed over: {}{}",
                    files.len(), names.join("; "), if files.len() > 5 { "; …" } else { "" })
            }
            Finding::NoExtrapolation { reason } => write!(f,
                "pass@K beyond n was not extrapolated: {reason}"),
            Finding::PooledSystems { systems } => write!(f,
                "the input holds {} systems ({}); the metrics above pool them as separate problems", systems.len(), systems.join(", ")),
            _ => return None,
        })
    }

    fn write_compare(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Finding::Unpaired { only_a, only_b, matched } => {
                let mut parts = Vec::new();
                if !only_a.is_empty() {
                    parts.push(format!("{} only in A ({})", only_a.len(), name_some(only_a)));
                }
                if !only_b.is_empty() {
                    parts.push(format!("{} only in B ({})", only_b.len(), name_some(only_b)));
                }
                write!(f, "unpaired problems are left out: {}; every row is over the {matched} problems both sides have", parts.join(", "))
            }
            Finding::FieldDiffers { n, field } => write!(f,
                "{n} matched problems have a different {field} in A and B; A's value was used"),
            Finding::UnequalRollouts { max_a, max_b } => write!(f,
                "A has up to {max_a} rollouts per problem and B up to {max_b}; a metric whose k exceeds a problem's n excludes that problem on both sides"),
            Finding::ShortSide { side, n_short, n_requested } => write!(f,
                "{side}: {n_short} matched problems have fewer than {n_requested} rollouts (short); they drop out of metrics whose k exceeds their n"),
            Finding::NotCompared { metric, reason } => write!(f, "{metric} is not compared: {reason}"),
            Finding::UncheckedMetric { metric } => write!(f,
                "{metric}: no row could be computed, so the verdict check does not cover it"),
            _ => Ok(()),
        }
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.write_report(f) {
            Some(r) => r,
            None => self.write_compare(f),
        }
    }
}

/// A front end's wording of a finding.
pub type Wording = fn(&Finding) -> String;

thread_local! {
    /// The wording used while serializing on this thread (see
    /// [`Finding::serialize_worded`]); `None`: the library's own.
    static WORDING: std::cell::Cell<Option<Wording>> =
        const { std::cell::Cell::new(None) };
}

impl Finding {
    /// Runs `f` (which serializes a document) with findings worded by
    /// `wording` instead of their `Display` — how a front end writes
    /// report.json in its own words (the CLI names flags) without a second
    /// renderer. Serialization inside `f` must stay on this thread.
    ///
    /// ```
    /// use rollstat::Finding;
    /// let f = vec![Finding::BadRows { n: 2 }];
    /// let json = Finding::serialize_worded(|f| format!("[{f}]"), || serde_json::to_string(&f).unwrap());
    /// assert_eq!(json, r#"["[2 malformed rows were skipped]"]"#);
    /// ```
    pub fn serialize_worded<T>(wording: Wording, f: impl FnOnce() -> T) -> T {
        struct Reset(Option<Wording>);
        impl Drop for Reset {
            fn drop(&mut self) {
                WORDING.with(|w| w.set(self.0));
            }
        }
        let _reset = Reset(WORDING.with(|w| w.replace(Some(wording))));
        f()
    }
}

impl Serialize for Finding {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match WORDING.with(|w| w.get()) {
            Some(word) => s.serialize_str(&word(self)),
            None => s.collect_str(self),
        }
    }
}

impl<'de> Deserialize<'de> for Finding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d).map(Finding::Text)
    }
}
