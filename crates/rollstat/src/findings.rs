//! Findings as data: what the engine noticed about the input and the
//! numbers, each variant carrying its numbers. [`Finding`]'s `Display` words
//! it in the library's terms (no command-line flags); a front end words its
//! own advice from the variant (the CLI names flags, the Python package
//! names keyword arguments).
//!
//! ## Wire format
//!
//! A document carries its findings twice: `warnings`, their texts (as
//! before), and `findings`, one object each: `kind` (the variant in
//! snake case, [`Finding::kind`]), the variant's fields, and `text` (the
//! same words as in `warnings`), e.g.
//! `{"kind": "truncated", "n": 2, "total": 40, "text": "2 rollouts (5.0%) were truncated …"}`.
//! Read back, `findings` gives the typed variants; a document without it
//! (written before it existed) gives [`Finding::Text`] from `warnings`.

use rollstat_core::summary::DenominatorPolicy;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// Which side of a comparison a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum SideLabel {
    /// System A, the baseline.
    A,
    /// System B, the candidate.
    B,
}

impl fmt::Display for SideLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SideLabel::A => "A",
            SideLabel::B => "B",
        })
    }
}

/// One finding.
///
/// ```
/// use rollstat::Finding;
/// let f = Finding::Truncated { n: 2, total: 40 };
/// assert_eq!(f.to_string(), "2 rollouts (5.0%) were truncated (finish_reason length/max_tokens/content_filter)");
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
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
    /// Duplicated rollouts whose two copies came from different inputs,
    /// resolved by the dedupe policy all the same: if the inputs are
    /// different systems' runs, their rows were merged.
    DuplicatesAcrossInputs {
        /// Such rollouts.
        n: u64,
        /// The input of the first such pair's first copy.
        first: String,
        /// The input of its repeat.
        again: String,
    },
    /// Answer clusters whose members were judged differently.
    InconsistentClusters {
        /// Such clusters.
        n: u64,
    },
    /// Answer comparisons the grader's per-pair work limit left undecided.
    GradingUndecided {
        /// compare: the side; `None` in a report.
        side: Option<SideLabel>,
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
    /// The model-based beta-binomial interval covers pass@k and pass^k of
    /// independent problems only; these metrics got a percentile bootstrap instead.
    ModelFallback {
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
    AdapterNote {
        /// The note, in words.
        note: String,
    },
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
    /// Several readings (filters, scorers) of the same responses, kept
    /// apart in a field: one system read several ways, not several systems.
    Readings {
        /// What a reading is in the harness's words (`filter`, `scorer`).
        what: String,
        /// The field that tells them apart (`run`).
        field: String,
        /// Their names.
        values: Vec<String>,
    },
    /// A run that its harness declared bigger (or unfinished) than what the
    /// input holds: expected against present.
    IncompleteRun {
        /// The input.
        path: String,
        /// The run's status when it is not a finished one (`cancelled`,
        /// `error`, `started`).
        status: Option<String>,
        /// Samples the run was to evaluate.
        expected: Option<u64>,
        /// Samples present.
        present: u64,
        /// Rollouts per sample the run asked for (epochs, repeats).
        rollouts: Option<u64>,
        /// Present samples with fewer rollouts than that.
        short: u64,
    },
    /// Several subsets (benchmarks, tasks) pooled into one headline.
    PooledSubsets {
        /// The subsets, in order of first appearance.
        subsets: Vec<String>,
    },
    /// Rows graded here whose targets the math extraction cannot read.
    TargetsNeedExtraction {
        /// The input.
        path: String,
        /// What the targets are (`Yes/No`, `choice letters`).
        targets: String,
        /// The extraction that reads them (`mcq`, `regex:…`).
        extract: String,
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
        /// The side with short problems.
        side: SideLabel,
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
    /// Reliability: the run field is on only some problems' rows; those
    /// without it are left out of the run-to-run statistics.
    RunFieldPartial {
        /// The run field.
        field: String,
        /// Problems (per run) with the field.
        with: u64,
        /// Problems without it.
        without: u64,
    },
    /// Reliability: every problem has one trial, so there is no second
    /// trial to compare with.
    SingleTrial {
        /// Problems.
        n_problems: u64,
    },
    /// Reliability: some runs (trials) lack problems that others have; the
    /// run-to-run statistics are over the problems every run has.
    RunsLackProblems {
        /// Per run, what it lacks.
        gaps: Vec<RunGap>,
        /// Problems every run has.
        shared: u64,
    },
    /// Reliability: fewer than two problems are in every run.
    TooFewSharedProblems {
        /// Problems every run has.
        shared: u64,
    },
    /// Reliability: every problem got the same verdict in all its trials
    /// (as greedy decoding gives): the trials carry no sampling variation.
    NoSamplingVariation {
        /// Trials per problem.
        n_trials: u64,
        /// Problems.
        n_problems: u64,
    },
    /// A finding read back from a report.json written before findings
    /// were typed on the wire (its text only).
    Text {
        /// The finding's text.
        message: String,
    },
    /// A finding about one benchmark of a gate.
    Benchmark {
        /// The benchmark's name.
        benchmark: String,
        /// The finding.
        finding: Box<Finding>,
    },
    /// A gate benchmark has no problems on one side.
    BenchmarkMissing {
        /// The benchmark's name.
        benchmark: String,
        /// The side without problems.
        side: SideLabel,
    },
    /// The benchmarks of a gate disagree in the sign of B − A.
    SignsDisagree {
        /// Benchmarks where B is ahead.
        up: Vec<String>,
        /// Benchmarks where B is behind.
        down: Vec<String>,
    },
    /// A margin of 20 points or more: read as a fraction, as declared.
    LargeMargin {
        /// The benchmark, or none for the suite margin.
        benchmark: Option<String>,
        /// The margin (a fraction).
        margin: f64,
    },
    /// A field named by an option that no row has — most often a misspelt
    /// name: the option then changes nothing.
    FieldAbsent {
        /// The option's field name: `by`, `cluster_by` or `budget`.
        option: String,
        /// The field it names.
        field: String,
    },
}

impl Finding {
    /// The words of [`Finding::FieldAbsent`] with the option shown as a
    /// front end names it (`by`, `--by`, `by=`).
    ///
    /// ```
    /// let t = rollstat::Finding::field_absent_text("subest", "--by");
    /// assert!(t.starts_with("no row has the field 'subest' (--by): every problem falls in one '(none)' group"));
    /// ```
    pub fn field_absent_text(field: &str, shown_option: &str) -> String {
        let bare = shown_option.trim_start_matches('-').trim_end_matches('=');
        let effect = match bare.replace('-', "_").as_str() {
            "by" => "every problem falls in one '(none)' group",
            "cluster_by" => "every problem is its own cluster, as without clusters",
            "budget" => "no rollout has a budget, so there are no budget metrics",
            _ => "the option changes nothing",
        };
        format!("no row has the field '{field}' ({shown_option}): {effect} — check the name against the input's fields")
    }
}

/// What one run (one trial without a run field) lacks.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunGap {
    /// The run (or the rollout index).
    pub run: String,
    /// Problems other runs have and this one lacks.
    pub n_missing: u64,
    /// The first few of them.
    pub named: Vec<String>,
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

impl fmt::Display for Finding {
    /// The text shared by every front end; advice is added by each. The
    /// match is exhaustive: a new variant does not compile without words.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
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
            Finding::DuplicatesAcrossInputs { n, first, again } => write!(f,
                "{n} duplicated rollouts had their two copies in different inputs (the first in {first} and {again}) and the dedupe policy kept one of each: if those inputs are different systems' runs, the systems were merged — give their rows a model (or subset) to keep them apart"),
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
            Finding::ModelFallback { metrics } => write!(f,
                "the beta-binomial model gives intervals for pass@k (avg@n at k = 1) and pass^k of unclustered problems; {} got a percentile bootstrap instead", summarize_names(metrics)),
            Finding::IntervalMethod { message, .. } => f.write_str(message),
            Finding::AdapterNote { note: s } | Finding::Text { message: s } => f.write_str(s),
            Finding::UnreadableFiles { files } => write!(f,
                "{} input file(s) could not be read and were left out: {}", files.len(), files.join(", ")),
            Finding::SkippedFiles { files } => {
                let names: Vec<String> = files.iter().take(5).map(|(p, why)| format!("{p} ({why})")).collect();
                write!(f, "{} file(s) in the input directories were passed over: {}{}",
                    files.len(), names.join("; "), if files.len() > 5 { "; …" } else { "" })
            }
            Finding::RunFieldPartial { .. }
            | Finding::SingleTrial { .. }
            | Finding::RunsLackProblems { .. }
            | Finding::TooFewSharedProblems { .. }
            | Finding::NoSamplingVariation { .. } => f.write_str(&reliability_text(self)),
            Finding::NoExtrapolation { reason } => write!(f,
                "pass@K beyond n was not extrapolated: {reason}"),
            Finding::Readings { what, field, values } => write!(f,
                "the input holds {} {what}s ({}) over the same responses: {} readings of one system, not {} systems; `{field}` tells them apart, and the metrics above pool them as separate problems",
                values.len(), values.join(", "), values.len(), values.len()),
            Finding::IncompleteRun { .. } => f.write_str(&incomplete_text(self)),
            Finding::PooledSubsets { subsets } => write!(f,
                "the numbers above pool {} subsets ({}) into one population; read them per subset", subsets.len(), name_some(subsets)),
            Finding::TargetsNeedExtraction { path, targets, extract } => write!(f,
                "{path}: its rows are graded here and their targets are {targets}, which the math extraction cannot read; the extraction {extract} reads them"),
            Finding::PooledSystems { systems } => write!(f,
                "the input holds {} systems ({}); the metrics above pool them as separate problems", systems.len(), systems.join(", ")),
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
            Finding::Benchmark { benchmark, finding } => write!(f, "{benchmark}: {finding}"),
            Finding::BenchmarkMissing { benchmark, side } => write!(f,
                "{benchmark}: {side} has no problems for this benchmark; it has no numbers (status MISSING)"),
            Finding::SignsDisagree { up, down } => write!(f,
                "the benchmarks disagree in sign: B is ahead on {} and behind on {}; read the rows, not only the suite's number",
                summarize_names(up), summarize_names(down)),
            Finding::FieldAbsent { option, field } => {
                write!(f, "{}", Finding::field_absent_text(field, option))
            }
            Finding::LargeMargin { benchmark, margin } => write!(f,
                "{}margin {} is read as a fraction ({:.1} points); 0.01 is 1 point",
                benchmark.as_ref().map_or("suite ".to_string(), |b| format!("{b}: ")), margin, 100.0 * margin),
        }
    }
}

/// The words of the run-to-run reliability findings.
fn reliability_text(f: &Finding) -> String {
    match f {
        Finding::RunFieldPartial { field, with, without } => format!(
            "the run field `{field}` is on {with} problems' rows and missing on {without}; run-to-run reliability leaves those {without} out"),
        Finding::SingleTrial { n_problems } => format!(
            "run-to-run reliability: nothing to measure — each of the {n_problems} problems has one trial, and run-to-run noise needs two trials of a problem"),
        Finding::RunsLackProblems { gaps, shared } => {
            let parts: Vec<String> = gaps.iter().take(8).map(|g| format!("run {} lacks {} ({}{})",
                g.run, g.n_missing, g.named.join(", "), if g.n_missing as usize > g.named.len() { ", …" } else { "" })).collect();
            format!("runs cover different problems: {}{}; run-to-run reliability is over the {shared} problems every run has",
                parts.join("; "), if gaps.len() > 8 { "; …" } else { "" })
        }
        Finding::TooFewSharedProblems { shared } => format!(
            "run-to-run reliability: only {shared} problems are in every run (it needs 2)"),
        Finding::NoSamplingVariation { n_trials, n_problems } => format!(
            "every one of the {n_problems} problems got the same verdict in all {n_trials} trials (as greedy decoding gives): the trials carry no sampling variation, so run-to-run noise reads as zero; measure it from another perturbation (seed, prompt order, hardware)"),
        _ => String::new(),
    }
}

/// The words of [`Finding::IncompleteRun`]: what was declared against what
/// is present.
fn incomplete_text(f: &Finding) -> String {
    let Finding::IncompleteRun {
        path,
        status,
        expected,
        present,
        rollouts,
        short,
    } = f
    else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(s) = status {
        parts.push(format!("the run's status is '{s}'"));
    }
    match expected {
        Some(e) if present < e => parts.push(format!("{present} of {e} samples are present")),
        _ => {}
    }
    if let (Some(r), 1..) = (rollouts, *short) {
        parts.push(format!(
            "{short} of {present} present samples have fewer than the {r} rollouts (epochs/repeats) declared"
        ));
    }
    format!(
        "{path}: the run is incomplete — {}; the numbers are over what is present only",
        parts.join("; ")
    )
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
    /// use rollstat::{Finding, Source};
    /// let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/demo.jsonl");
    /// let r = rollstat::report(&[Source::from(demo)], &Default::default()).unwrap();
    /// let json = Finding::serialize_worded(|f| format!("[{f}]"), || r.to_json());
    /// let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    /// assert!(v["health"]["warnings"][0].as_str().unwrap().starts_with('['));
    /// assert!(v["health"]["findings"][0]["text"].as_str().unwrap().starts_with('['));
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

impl Finding {
    /// A note from a native-format adapter.
    pub fn adapter_note(note: String) -> Finding {
        Finding::AdapterNote { note }
    }

    /// The variant's name on the wire (`truncated`, `short_problems`, …):
    /// the `kind` of its `findings` object.
    ///
    /// ```
    /// assert_eq!(rollstat::Finding::BadRows { n: 2 }.kind(), "bad_rows");
    /// ```
    pub fn kind(&self) -> &'static str {
        match self {
            Finding::ShortProblems { .. } => "short_problems",
            Finding::Unextracted { .. } => "unextracted",
            Finding::UnextractedMarkedCorrect { .. } => "unextracted_marked_correct",
            Finding::Truncated { .. } => "truncated",
            Finding::Failed { .. } => "failed",
            Finding::BadRows { .. } => "bad_rows",
            Finding::DuplicatesDropped { .. } => "duplicates_dropped",
            Finding::DuplicatesAcrossInputs { .. } => "duplicates_across_inputs",
            Finding::InconsistentClusters { .. } => "inconsistent_clusters",
            Finding::GradingUndecided { .. } => "grading_undecided",
            Finding::CountRows { .. } => "count_rows",
            Finding::NotComputable { .. } => "not_computable",
            Finding::PartialAnswers { .. } => "partial_answers",
            Finding::BinomialFallback { .. } => "binomial_fallback",
            Finding::ModelFallback { .. } => "model_fallback",
            Finding::IntervalMethod { .. } => "interval_method",
            Finding::AdapterNote { .. } => "adapter_note",
            Finding::UnreadableFiles { .. } => "unreadable_files",
            Finding::SkippedFiles { .. } => "skipped_files",
            Finding::Readings { .. } => "readings",
            Finding::IncompleteRun { .. } => "incomplete_run",
            Finding::PooledSubsets { .. } => "pooled_subsets",
            Finding::TargetsNeedExtraction { .. } => "targets_need_extraction",
            Finding::PooledSystems { .. } => "pooled_systems",
            Finding::Unpaired { .. } => "unpaired",
            Finding::FieldDiffers { .. } => "field_differs",
            Finding::UnequalRollouts { .. } => "unequal_rollouts",
            Finding::ShortSide { .. } => "short_side",
            Finding::NotCompared { .. } => "not_compared",
            Finding::UncheckedMetric { .. } => "unchecked_metric",
            Finding::RunFieldPartial { .. } => "run_field_partial",
            Finding::SingleTrial { .. } => "single_trial",
            Finding::RunsLackProblems { .. } => "runs_lack_problems",
            Finding::TooFewSharedProblems { .. } => "too_few_shared_problems",
            Finding::NoSamplingVariation { .. } => "no_sampling_variation",
            Finding::NoExtrapolation { .. } => "no_extrapolation",
            Finding::Text { .. } => "text",
            Finding::Benchmark { .. } => "benchmark",
            Finding::BenchmarkMissing { .. } => "benchmark_missing",
            Finding::SignsDisagree { .. } => "signs_disagree",
            Finding::LargeMargin { .. } => "large_margin",
            Finding::FieldAbsent { .. } => "field_absent",
        }
    }

    /// The finding in the words of the serialization under way (see
    /// [`Finding::serialize_worded`]), else its `Display`.
    fn worded(&self) -> String {
        match WORDING.with(|w| w.get()) {
            Some(word) => word(self),
            None => self.to_string(),
        }
    }
}

/// A finding on the wire (a document's `findings`): its kind and fields,
/// and its text in the words of the serialization under way.
#[derive(Clone, Debug)]
pub(crate) struct Entry(pub Finding);

#[derive(Serialize)]
struct EntryOut<'a> {
    #[serde(flatten)]
    finding: &'a Finding,
    text: String,
}

#[derive(Deserialize)]
struct EntryIn {
    #[serde(flatten)]
    finding: Finding,
}

impl Serialize for Entry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        EntryOut {
            finding: &self.0,
            text: self.0.worded(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Entry {
    /// The `text` is not kept: `Display` words the variant again.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        EntryIn::deserialize(d).map(|e| Entry(e.finding))
    }
}

/// A document's findings on the wire: `warnings` (texts) and `findings`
/// (typed entries).
pub(crate) fn to_wire(findings: &[Finding]) -> (Vec<String>, Option<Vec<Entry>>) {
    let texts = findings.iter().map(Finding::worded).collect();
    (texts, Some(findings.iter().cloned().map(Entry).collect()))
}

/// A document's findings as read back: the typed `findings` when present,
/// else each text of `warnings` as [`Finding::Text`] (a document written
/// before findings were typed).
pub(crate) fn from_wire(warnings: Vec<String>, typed: Option<Vec<Entry>>) -> Vec<Finding> {
    match typed {
        Some(t) => t.into_iter().map(|e| e.0).collect(),
        None => warnings
            .into_iter()
            .map(|message| Finding::Text { message })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn every_kind() -> Vec<Finding> {
        let s = |x: &str| x.to_string();
        vec![
            Finding::ShortProblems {
                n_short: 1,
                n_requested: 4,
                largest_k: 4,
                used: 2,
                n_problems: 3,
            },
            Finding::Unextracted { n: 1, total: 8 },
            Finding::UnextractedMarkedCorrect { n: 1 },
            Finding::Truncated { n: 2, total: 40 },
            Finding::Failed {
                n: 1,
                policy: DenominatorPolicy::Judged,
            },
            Finding::BadRows { n: 2 },
            Finding::DuplicatesDropped { n: 3 },
            Finding::InconsistentClusters { n: 1 },
            Finding::GradingUndecided {
                side: Some(SideLabel::B),
                n: 2,
            },
            Finding::CountRows { n: 5 },
            Finding::NotComputable {
                metric: s("maj@4"),
                reason: s("no answers"),
            },
            Finding::PartialAnswers {
                metrics: vec![s("maj@4")],
            },
            Finding::BinomialFallback {
                method: s("wilson"),
                metrics: vec![s("maj@4")],
            },
            Finding::ModelFallback {
                metrics: vec![s("maj@4")],
            },
            Finding::IntervalMethod {
                message: s("few problems"),
                suggestion: Some(s("t")),
            },
            Finding::adapter_note(s("a note")),
            Finding::UnreadableFiles {
                files: vec![s("a.json")],
            },
            Finding::SkippedFiles {
                files: vec![(s("b.txt"), s("not rollouts"))],
            },
            Finding::PooledSystems {
                systems: vec![s("m1"), s("m2")],
            },
            Finding::Unpaired {
                only_a: vec![s("p1")],
                only_b: vec![],
                matched: 9,
            },
            Finding::FieldDiffers {
                n: 1,
                field: s("subset"),
            },
            Finding::UnequalRollouts { max_a: 4, max_b: 8 },
            Finding::ShortSide {
                side: SideLabel::A,
                n_short: 1,
                n_requested: 4,
            },
            Finding::NotCompared {
                metric: s("maj@4"),
                reason: s("no answers"),
            },
            Finding::UncheckedMetric { metric: s("maj@4") },
            Finding::NoExtrapolation {
                reason: s("one problem"),
            },
            Finding::RunFieldPartial {
                field: s("run"),
                with: 8,
                without: 2,
            },
            Finding::SingleTrial { n_problems: 3 },
            Finding::RunsLackProblems {
                gaps: vec![RunGap {
                    run: s("r2"),
                    n_missing: 1,
                    named: vec![s("p3")],
                }],
                shared: 9,
            },
            Finding::TooFewSharedProblems { shared: 1 },
            Finding::NoSamplingVariation {
                n_trials: 4,
                n_problems: 10,
            },
            Finding::Text {
                message: s("an old finding"),
            },
            Finding::Benchmark {
                benchmark: s("aime"),
                finding: Box::new(Finding::BadRows { n: 2 }),
            },
            Finding::BenchmarkMissing {
                benchmark: s("gsm8k"),
                side: SideLabel::B,
            },
            Finding::SignsDisagree {
                up: vec![s("aime")],
                down: vec![s("gpqa")],
            },
            Finding::LargeMargin {
                benchmark: None,
                margin: 0.25,
            },
            Finding::FieldAbsent {
                option: s("by"),
                field: s("subest"),
            },
        ]
    }

    /// Every variant: words that are not empty, a `kind` equal to the wire
    /// tag, and a typed round trip through JSON.
    #[test]
    fn every_finding_has_words_a_kind_and_reads_back() {
        let all = every_kind();
        let kinds: std::collections::BTreeSet<&str> = all.iter().map(Finding::kind).collect();
        assert_eq!(kinds.len(), all.len(), "each variant once");
        for f in all {
            assert!(!f.to_string().is_empty(), "{f:?}");
            let json = serde_json::to_value(Entry(f.clone())).unwrap();
            assert_eq!(json["kind"], f.kind());
            assert_eq!(json["text"], f.to_string());
            let back: Entry = serde_json::from_value(json).unwrap();
            assert_eq!(back.0, f);
        }
    }

    #[test]
    fn a_document_without_typed_findings_reads_its_texts() {
        let back = from_wire(vec!["2 malformed rows were skipped".into()], None);
        assert_eq!(
            back,
            [Finding::Text {
                message: "2 malformed rows were skipped".into()
            }]
        );
    }
}
