//! The [`Report`] document: what every renderer (table, JSON, Markdown,
//! CSV) and binding reads. Its serde form *is* report.json, schema
//! `rollstat.report/1` (docs/spec.md §6); it reads back with
//! `serde_json::from_str::<Report>`, rejecting unknown fields.
//!
//! ## Wire format
//!
//! One JSON object with these keys, in this order:
//!
//! - `schema` — `"rollstat.report/1"`; `version` — the rollstat version.
//! - `inputs` — one object per input: `path`, `format` (`canonical-jsonl`,
//!   `canonical-csv`, `lm-eval`, …, `rows` for in-memory rows), `sha256` of
//!   the bytes as stored (empty for rows), `records` read including bad ones.
//! - `config` — what produced the numbers: `k` (draw sizes), `tau` (G-Pass
//!   thresholds), `n` (requested rollouts per problem) and `n_source`
//!   (`--n` when given, else `largest n seen`), `ci` {`method` (`none`,
//!   `bootstrap`, `bca`, `basic`, `t`, `wilson`, `jeffreys`,
//!   `clopper-pearson`, `cluster-…` when clustered), `level`, and when
//!   resampling `resamples`, `seed`, `rng` (the stream scheme); `cluster_by`
//!   when clustered}, `tie_policy` (`first` | `none` | `fractional`; maj@n
//!   and maj@k — `first` follows rollout order), `score_order`
//!   (`descending` | `ascending`, only when some problem carries scores),
//!   `denominator_policy` (`requested` | `judged`), `answer_clustering`
//!   (`equivalence, extract=math` or `exact-string, extract=…`),
//!   `answer_metrics_left_out` when the answer metrics (maj@k, wmaj@n,
//!   `self_consistency`, `distinct_answers`, pass@k − maj@k) were not
//!   computed (`no_answers`: no rollout carries an extracted answer;
//!   `one_rollout`: n = 1), `strict`,
//!   and when set `dedupe` (`first` | `last`) and `by`.
//! - `health` — the accounting of docs/spec.md §4: `n_problems`,
//!   `n_rollouts` {`min`, `median`, `max`, `histogram` (rollouts → problems,
//!   ascending)}, `n_rollouts_total`, `n_requested`, `n_short`,
//!   `n_unextracted`, `n_unextracted_marked_correct`, `n_truncated`,
//!   `n_failed`, `n_duplicate_rollouts`, `n_inconsistent_clusters`,
//!   `n_bad_lines`, `n_grading_undecided`, `denominator_policy`, `warnings`
//!   (findings in words), `findings` (the same findings typed: `kind`, the
//!   finding's fields and `text`; see [`crate::findings`]), `difficulty` {`n_problems`, `never_solved`,
//!   `always_solved`, `bins`, `histogram`}: the distribution of each
//!   problem's c/n (after the denominator policy; problems with n = 0 left
//!   out), entry j counting the problems whose c/n is nearest j/`bins`
//!   (halves round up), `bins` = min(n requested, 20); and with a budget
//!   field `budget` {`field`, `used` (budget metrics computed),
//!   `n_rollouts`, `n_missing`, `n_problems_without`, `min`, `median`,
//!   `p90`, `max`, `correlation_with_correct`}.
//! - `metrics` — metric name (`pass@4`, `pass^2`, `g-pass@4_0.5`,
//!   `mg-pass@4`, `prefix@4`, `maj@2` (k below n), `maj@8`, `bon@4` and
//!   `wmaj@8` (with scores), `self_consistency`, `distinct_answers`, the
//!   selection gaps `pass@4-maj@4`, `pass@4-bon@4` (per-problem
//!   differences, so their intervals are paired), and with a budget
//!   `budget@4`, `cost_of_pass@4`, `cost_of_maj@4`, `cost_of_bon@4`) →
//!   entry: `value` (mean over `n_problems`), `stderr`
//!   (sd/√N, CR1 when clustered; null below 2 problems), `ci` (`[lower,
//!   upper]` at `level`, or null), `method` (the interval method; `none`
//!   when none was asked), `level` and `seed` (present when an interval was
//!   asked / resampled), `n_problems`, `n_excluded`, `excluded` (reason →
//!   count, only when some were: `too_few_rollouts`, `no_rollout_detail`,
//!   `no_answers`, `no_scores`, `vote_too_large`, `no_budget`), `k` (absent
//!   for metrics without one), `n` (requested), `denominator`, `unit`
//!   (`fraction`, `count`, `budget` for budget@k, `budget_per_solved` for
//!   the cost metrics), for pass@k where estimable `variance` {`between`,
//!   `within`, `dominant`, `advice`, `n_problems`}, `same_as` when the
//!   metric is another metric of the report by definition (`g-pass@k_τ`
//!   with ⌈τk⌉ = 1 is `pass@k`, with ⌈τk⌉ = k it is `pass^k`, two τ with
//!   the same ⌈τk⌉ are one metric; `mg-pass@2` is `pass^2`): the name of
//!   the first such metric, and for the cost metrics `estimator` (they are
//!   ratios of two means, not means of per-problem values: `stderr` is the
//!   delta-method SE, `ci` the ratio of the two means in each of the same
//!   resamples).
//! - `not_computable` — metric name → why no problem had a value.
//! - `groups` — with a breakdown field, group value (`(none)` for rows
//!   without it) → {`health`, `metrics`, `not_computable`} as above.
//! - `harness` (native inputs only) — numbers the harness stored, each with
//!   `source`, `harness_metric`, `harness_value`, `rollstat_metric`,
//!   `rollstat_value`, `agrees`, `note`.
//! - `per_problem` (when asked) — per problem: `problem`, `group` (when
//!   grouped), `n`, `c`, `values` (metric → value; excluded ones absent).
//! - `frontier` (with `by` and a budget) — the accuracy-vs-budget frontier
//!   across groups: the (group, k) points, by increasing `budget`
//!   (budget@k), whose `pass` (pass@k) beats every cheaper point; each
//!   with `group`, `k`, `budget`, `pass`, `ci` (pass@k's).
//! - `extrapolation` (when asked) — pass@K beyond n from a beta-binomial
//!   fit to the problems' (n, c): `model` (`beta-binomial`), `label` (says
//!   it is model-based), `alpha`, `beta`, `log_likelihood`, `converged`,
//!   `n_problems`, `values` (`pass@K_fit` → {`k`, `value`, `stderr`, `ci`
//!   (method `bootstrap-refit`)}), `check` {`chi2`, `df`, `p_value`, `n`
//!   (the binned n), `max_abs_gap`, `gap_at_k` (fitted vs observed pass@k
//!   over the report's k)}, `resamples`, `seed`, `failed_resamples`.
//! - `reliability` (when a problem has two or more trials) — run-to-run
//!   reliability over the problems every trial has ([`crate::Reliability`];
//!   docs/statistics.md §13): `trials` {`kind`, `field`, `exchangeable`},
//!   `n_trials`, `n_problems`, `n_problems_left_out`, `runs` ({`run`,
//!   `pass_at_1`}), `run_spread` {`mean`, `sd`, `min`, `max`, `range`},
//!   `flips` {`n_trials`, `n_flipping`, `share_flipping`, `mean_pairwise`,
//!   `by_correct`}, `icc` {`icc1`, `icc1_interval`, `icc1k`,
//!   `icc1k_interval` (lower bound `null` = −∞), `interval_method`, `resamples_used`,
//!   `icc1_bootstrap_interval`, `icc1_f_interval`, `f`, `df1`, `df2`,
//!   `p_value`, `level`} (null when
//!   every problem's trials agree), `variance` {`between`, `within`,
//!   `trial_variance`, `se`, `dominant`}, `noise_floor` {`level`,
//!   `single_run`, `means`}, `levers` ({`change`, `se`, `half_width`}),
//!   `flaky` ({`problem`, `c`, `n`, `flip_rate`}, most unstable first).
//!
//! ```
//! let text = r#"{"metric": 1}"#;
//! assert!(serde_json::from_str::<rollstat::Report>(text).is_err());
//! ```

use crate::findings::Finding;
use rollstat_core::catalogue::Unit;
use rollstat_core::summary::DenominatorPolicy;
use rollstat_core::vote::TiePolicy;
pub use rollstat_stats::Interval;
use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::{Deserialize as DeriveDeserialize, Serialize as DeriveSerialize};
use std::fmt;

pub use rollstat_core::input::InputInfo;

/// The schema tag of report.json.
pub const REPORT_SCHEMA: &str = "rollstat.report/1";

/// A map that keeps insertion order (metrics keep their pass@k → pass^k →
/// … order in JSON and in every table).
///
/// ```
/// let mut m = rollstat::Ordered::default();
/// m.insert("b", 1);
/// m.insert("a", 2);
/// assert_eq!(serde_json::to_string(&m).unwrap(), r#"{"b":1,"a":2}"#);
/// assert_eq!(m.get("a"), Some(&2));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<V> Ordered<V> {
    /// The value under `key` (a linear scan: these maps are short).
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    /// Appends an entry.
    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        self.0.push((key.into(), value));
    }
    /// Whether there are no entries.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    /// Entries in order.
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        self.0.len()
    }
}

impl<V: Serialize> Serialize for Ordered<V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for Ordered<V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V2<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for V2<V> {
            type Value = Ordered<V>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Ordered<V>, A::Error> {
                let mut out = Vec::new();
                while let Some((k, v)) = a.next_entry::<String, V>()? {
                    out.push((k, v));
                }
                Ok(Ordered(out))
            }
        }
        d.deserialize_map(V2(std::marker::PhantomData))
    }
}

/// Interval settings as recorded in `config.ci`.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct CiConfig {
    /// `none`, or the method's name (`cluster-` prefixed when clustered).
    pub method: String,
    /// Two-sided level of every interval (recorded with `none` too).
    pub level: f64,
    /// Bootstrap resamples; absent when nothing is resampled (`t`, `none`).
    /// Binomial methods record it: metrics that fall back resample.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resamples: Option<u64>,
    /// Seed of the resampling streams (the `seed` option); absent when
    /// nothing is resampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Random-stream scheme of the resampling
    /// (`xoshiro256++/splitmix64-stream-v1`); absent when nothing is
    /// resampled.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rng: Option<String>,
    /// Field whose values cluster problems; absent without clustering.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_by: Option<String>,
}

/// The configuration that produced the numbers.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct Config {
    /// Draw sizes k (the `k` option, else 1, 2, 4, … up to n, plus n).
    pub k: Vec<u64>,
    /// G-Pass thresholds τ in [0, 1], as given (the `tau` option).
    pub tau: Vec<f64>,
    /// Requested rollouts per problem.
    pub n: u64,
    /// Where the requested n came from: `--n` or `largest n seen`.
    pub n_source: String,
    /// Interval settings (wire name `ci`).
    pub ci: CiConfig,
    /// maj@n and maj@k tie policy: `first`, `none` or `fractional`.
    pub tie_policy: TiePolicy,
    /// Which selector scores were better for bon@k and wmaj@n; absent when
    /// no problem carries scores.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score_order: Option<rollstat_core::best::ScoreOrder>,
    /// `requested` (failed rollouts stay in n as wrong) or `judged`
    /// (failed rollouts are dropped).
    pub denominator_policy: DenominatorPolicy,
    /// How answers were clustered for maj@n, `self_consistency` and
    /// `distinct_answers`, and how they were extracted, e.g.
    /// `equivalence, extract=math` or `exact-string, extract=…`.
    pub answer_clustering: String,
    /// Why the answer metrics (maj@k, wmaj@n, `self_consistency`,
    /// `distinct_answers`, pass@k − maj@k) are not in the report; absent
    /// when they were computed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_metrics_left_out: Option<AnswerMetricsLeftOut>,
    /// Whether strict mode was on (bad rows, short problems and unreadable
    /// files are errors).
    pub strict: bool,
    /// `first` or `last`: which of duplicated rollouts was kept; absent
    /// when duplicates are an error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dedupe: Option<String>,
    /// The breakdown field behind `groups`; absent without a breakdown.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// Why a report has no answer metrics: they would say nothing.
///
/// ```
/// use rollstat::AnswerMetricsLeftOut;
/// let why = AnswerMetricsLeftOut::OneRollout;
/// assert_eq!(serde_json::to_string(&why).unwrap(), r#""one_rollout""#);
/// assert!(why.to_string().contains("n = 1"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, DeriveSerialize, DeriveDeserialize)]
#[serde(rename_all = "snake_case")]
pub enum AnswerMetricsLeftOut {
    /// No rollout carries an extracted answer (agent and code benchmarks,
    /// files with verdicts only): there is nothing to vote on.
    NoAnswers,
    /// n = 1: each problem has one answer, so maj@1 is pass@1,
    /// self-consistency is 100% and there is one distinct answer.
    OneRollout,
}

impl fmt::Display for AnswerMetricsLeftOut {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            AnswerMetricsLeftOut::NoAnswers => {
                "no rollout carries an extracted answer (add an `answer` field or `answers` array)"
            }
            AnswerMetricsLeftOut::OneRollout => {
                "with n = 1 each problem has one answer (maj@1 is pass@1, self-consistency is 100%)"
            }
        })
    }
}

/// Distribution of rollouts per problem (as arrived).
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct RolloutDistribution {
    /// Fewest rollouts of any problem.
    pub min: u64,
    /// Median rollouts per problem; the mean of the middle two for an even
    /// count, so it may be fractional.
    pub median: f64,
    /// Most rollouts of any problem.
    pub max: u64,
    /// Rollout count → number of problems, ascending.
    pub histogram: Ordered<u64>,
}

/// The accounting block (docs/spec.md §4).
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(into = "HealthWire", from = "HealthWire")]
pub struct Health {
    /// Problems in this population (a problem is a `problem` id within one
    /// system and subset).
    pub n_problems: u64,
    /// Rollouts per problem as they arrived, before the denominator policy.
    pub n_rollouts: RolloutDistribution,
    /// Rollouts that arrived, over all problems (before the denominator
    /// policy).
    pub n_rollouts_total: u64,
    /// The requested n every problem is measured against (`config.n`).
    pub n_requested: u64,
    /// Problems with fewer rollouts than requested.
    pub n_short: u64,
    /// Rollouts without an extracted answer (null, a junk answer, or none
    /// extractable from `response`); they count as wrong and never vote.
    pub n_unextracted: u64,
    /// Unextracted rollouts the input marked correct; counted as wrong.
    pub n_unextracted_marked_correct: u64,
    /// Rollouts whose `finish_reason` is `length`, `max_tokens`,
    /// `content_filter` or `max_length`, or marked `truncated: true`.
    pub n_truncated: u64,
    /// Rollouts without a verdict (`correct: null` or a failure status);
    /// wrong or dropped as `denominator_policy` says.
    pub n_failed: u64,
    /// Duplicated (problem, rollout index) rows dropped by the `dedupe`
    /// policy (without one a duplicate is an error). Counted for the whole
    /// input: 0 in a group's health.
    pub n_duplicate_rollouts: u64,
    /// Answer clusters whose members were judged differently (a cluster
    /// takes its first judged member's verdict).
    pub n_inconsistent_clusters: u64,
    /// Malformed rows skipped in lenient mode, including rows rejected for
    /// a conflict within a problem. Counted for the whole input: 0 in a
    /// group's health.
    pub n_bad_lines: u64,
    /// Answer comparisons (a row's answer with its gold, or two answers
    /// being clustered) that hit the per-pair work cap and ended
    /// undecided: such a row has no verdict (counted in `n_failed`), such
    /// answers stay in separate clusters. Counted for the whole input: 0 in
    /// a group's health. Absent in older reports (read as 0).
    #[serde(default)]
    pub n_grading_undecided: u64,
    /// The denominator policy these counts and the metrics' n were made
    /// under.
    pub denominator_policy: DenominatorPolicy,
    /// Findings: on the wire `warnings` (their texts) and `findings`
    /// (typed, see [`crate::findings`]).
    pub warnings: Vec<Finding>,
    /// The distribution of per-problem solve rates c/n (what the
    /// difficulty histogram of the HTML report draws).
    #[serde(default)]
    pub difficulty: Difficulty,
    /// What the rollouts spent, when a budget field was read and some
    /// rollout carries it (docs/spec.md §4).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<BudgetHealth>,
}

/// [`Health`] on the wire: its findings as texts (`warnings`) and typed
/// (`findings`, absent in reports written before it existed).
#[derive(DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
struct HealthWire {
    n_problems: u64,
    n_rollouts: RolloutDistribution,
    n_rollouts_total: u64,
    n_requested: u64,
    n_short: u64,
    n_unextracted: u64,
    n_unextracted_marked_correct: u64,
    n_truncated: u64,
    n_failed: u64,
    n_duplicate_rollouts: u64,
    n_inconsistent_clusters: u64,
    n_bad_lines: u64,
    #[serde(default)]
    n_grading_undecided: u64,
    denominator_policy: DenominatorPolicy,
    warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    findings: Option<Vec<crate::findings::Entry>>,
    #[serde(default)]
    difficulty: Difficulty,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    budget: Option<BudgetHealth>,
}

impl From<Health> for HealthWire {
    fn from(h: Health) -> HealthWire {
        let (warnings, findings) = crate::findings::to_wire(&h.warnings);
        HealthWire {
            n_problems: h.n_problems,
            n_rollouts: h.n_rollouts,
            n_rollouts_total: h.n_rollouts_total,
            n_requested: h.n_requested,
            n_short: h.n_short,
            n_unextracted: h.n_unextracted,
            n_unextracted_marked_correct: h.n_unextracted_marked_correct,
            n_truncated: h.n_truncated,
            n_failed: h.n_failed,
            n_duplicate_rollouts: h.n_duplicate_rollouts,
            n_inconsistent_clusters: h.n_inconsistent_clusters,
            n_bad_lines: h.n_bad_lines,
            n_grading_undecided: h.n_grading_undecided,
            denominator_policy: h.denominator_policy,
            warnings,
            findings,
            difficulty: h.difficulty,
            budget: h.budget,
        }
    }
}

impl From<HealthWire> for Health {
    fn from(w: HealthWire) -> Health {
        Health {
            n_problems: w.n_problems,
            n_rollouts: w.n_rollouts,
            n_rollouts_total: w.n_rollouts_total,
            n_requested: w.n_requested,
            n_short: w.n_short,
            n_unextracted: w.n_unextracted,
            n_unextracted_marked_correct: w.n_unextracted_marked_correct,
            n_truncated: w.n_truncated,
            n_failed: w.n_failed,
            n_duplicate_rollouts: w.n_duplicate_rollouts,
            n_inconsistent_clusters: w.n_inconsistent_clusters,
            n_bad_lines: w.n_bad_lines,
            n_grading_undecided: w.n_grading_undecided,
            denominator_policy: w.denominator_policy,
            warnings: crate::findings::from_wire(w.warnings, w.findings),
            difficulty: w.difficulty,
            budget: w.budget,
        }
    }
}

/// How often each problem was solved: the distribution of c/n over
/// problems, with n after the denominator policy.
///
/// ```
/// let d = rollstat::Difficulty::default();
/// assert_eq!(d.histogram.iter().sum::<u64>(), d.n_problems);
/// ```
#[derive(Clone, Debug, Default, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct Difficulty {
    /// Problems with n ≥ 1 (the histogram's total).
    pub n_problems: u64,
    /// Problems with c = 0.
    pub never_solved: u64,
    /// Problems with c = n.
    pub always_solved: u64,
    /// Grid size B: the histogram has B + 1 entries, for c/n = 0, 1/B, …, 1.
    pub bins: u64,
    /// Entry j: problems whose c/n is nearest j/B (halves round up); with
    /// every problem at n = B, entry j counts the problems with c = j.
    pub histogram: Vec<u64>,
}

/// The budget part of the accounting block: how many rollouts carry a
/// budget, its distribution over rollouts and its correlation with
/// correctness.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetHealth {
    /// The field read (`output_tokens`, `cost`, …).
    pub field: String,
    /// Whether the budget metrics (budget@k, cost_of_pass@k, …) were
    /// computed: with the default field only when every rollout carries it.
    pub used: bool,
    /// Rollouts in the denominator with a budget value.
    pub n_rollouts: u64,
    /// Rollouts in the denominator without one (never counted as zero).
    pub n_missing: u64,
    /// Problems none of whose rollouts carries a budget (excluded from the
    /// budget metrics).
    pub n_problems_without: u64,
    /// Smallest per-rollout budget (null without values).
    pub min: Option<f64>,
    /// Median per-rollout budget (linear interpolation, type 7).
    pub median: Option<f64>,
    /// 90th percentile of the per-rollout budget (type 7).
    pub p90: Option<f64>,
    /// Largest per-rollout budget.
    pub max: Option<f64>,
    /// Pearson correlation between a rollout's budget and its correctness
    /// (0/1, point-biserial), over the rollouts with a value; null when
    /// either is constant.
    pub correlation_with_correct: Option<f64>,
}

/// One metric's number with everything needed to defend it.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(into = "EntryWire", from = "EntryWire")]
pub struct MetricEntry {
    /// Mean over `n_problems` problems (a fraction in [0, 1], or a count
    /// for `distinct_answers`).
    pub value: f64,
    /// sd/√N over per-problem values (CR1 when clustered); `None` with
    /// fewer than 2 problems.
    pub stderr: Option<f64>,
    /// The interval, when one could be computed.
    pub ci: Option<Interval>,
    /// The interval method asked for this metric (`none`: no interval).
    pub method: String,
    /// The level, when an interval was asked.
    pub level: Option<f64>,
    /// The resampling seed, when the interval resamples.
    pub seed: Option<u64>,
    /// Problems with a value for this metric: the N of `value` and `stderr`.
    pub n_problems: u64,
    /// Problems of the population without a value (see `excluded`).
    pub n_excluded: u64,
    /// Exclusions by reason (only when some problems were excluded).
    pub excluded: Ordered<u64>,
    /// The metric's k (maj@n has k = n); absent for `self_consistency`
    /// and `distinct_answers`.
    pub k: Option<u64>,
    /// Requested rollouts per problem.
    pub n: u64,
    /// The denominator policy the per-problem n was counted under.
    pub denominator: DenominatorPolicy,
    /// `fraction`, `count`, `budget` (budget@k: in the budget field's unit)
    /// or `budget_per_solved` (cost_of_pass@k and its kin).
    pub unit: Unit,
    /// Between- vs within-problem variance (pass@k, where estimable).
    pub variance: Option<VarianceEntry>,
    /// The metric of the same report this one is by definition, if any
    /// (`g-pass@4_0.25` is `pass@4`).
    pub same_as: Option<String>,
    /// How the value is estimated when it is not a mean of per-problem
    /// values (the cost metrics are ratios of two means).
    pub estimator: Option<String>,
}

#[derive(Clone, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
struct EntryWire {
    value: f64,
    stderr: Option<f64>,
    ci: Option<[f64; 2]>,
    method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    level: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seed: Option<u64>,
    n_problems: u64,
    n_excluded: u64,
    #[serde(default, skip_serializing_if = "Ordered::is_empty")]
    excluded: Ordered<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    k: Option<u64>,
    n: u64,
    denominator: DenominatorPolicy,
    unit: Unit,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    variance: Option<VarianceEntry>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    same_as: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    estimator: Option<String>,
}

impl From<MetricEntry> for EntryWire {
    fn from(e: MetricEntry) -> EntryWire {
        EntryWire {
            value: e.value,
            stderr: e.stderr,
            ci: e.ci.map(|i| [i.lower, i.upper]),
            method: e.method,
            level: e.level,
            seed: e.seed,
            n_problems: e.n_problems,
            n_excluded: e.n_excluded,
            excluded: e.excluded,
            k: e.k,
            n: e.n,
            denominator: e.denominator,
            unit: e.unit,
            variance: e.variance,
            same_as: e.same_as,
            estimator: e.estimator,
        }
    }
}

impl From<EntryWire> for MetricEntry {
    fn from(w: EntryWire) -> MetricEntry {
        let ci = w.ci.map(|[lower, upper]| Interval { lower, upper });
        MetricEntry {
            value: w.value,
            stderr: w.stderr,
            ci,
            method: w.method,
            level: w.level,
            seed: w.seed,
            n_problems: w.n_problems,
            n_excluded: w.n_excluded,
            excluded: w.excluded,
            k: w.k,
            n: w.n,
            denominator: w.denominator,
            unit: w.unit,
            variance: w.variance,
            same_as: w.same_as,
            estimator: w.estimator,
        }
    }
}

/// Split of a metric's variance over problems into the part due to which
/// problems were drawn (between) and the part due to sampling rollouts
/// (within), so a reader knows whether more rollouts or more problems would
/// narrow the interval.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct VarianceEntry {
    /// Between-problem variance: the variance of the per-problem values
    /// (N − 1 divisor) minus `within`, floored at 0.
    pub between: f64,
    /// Mean of the unbiased sampling variance of each problem's pass@k
    /// estimate, over the `n_problems` problems where it is defined
    /// (n ≥ 2k).
    pub within: f64,
    /// `between` or `within`.
    pub dominant: String,
    /// What would narrow the interval most.
    pub advice: String,
    /// Problems with an estimable within-problem variance.
    pub n_problems: u64,
}

/// Metrics (and the ones that could not be computed) for one population.
#[derive(Clone, Debug, Default, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct MetricBlock {
    /// Metric name → entry, for every metric with a value on at least one
    /// problem.
    pub metrics: Ordered<MetricEntry>,
    /// Metric name → why no problem had a value (the most frequent
    /// exclusion reason, in words).
    pub not_computable: Ordered<String>,
}

/// A breakdown by a field's value.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(from = "GroupWire")]
pub struct GroupReport {
    /// The group's own accounting and findings (`n_bad_lines` and
    /// `n_duplicate_rollouts` are 0: they are counted for the whole input).
    pub health: Health,
    /// The group's `metrics` and `not_computable`, over its problems only
    /// (flattened into the group's object).
    #[serde(flatten)]
    pub block: MetricBlock,
}

#[derive(DeriveDeserialize)]
#[serde(deny_unknown_fields)]
struct GroupWire {
    health: Health,
    metrics: Ordered<MetricEntry>,
    not_computable: Ordered<String>,
}

impl From<GroupWire> for GroupReport {
    fn from(w: GroupWire) -> GroupReport {
        GroupReport {
            health: w.health,
            block: MetricBlock {
                metrics: w.metrics,
                not_computable: w.not_computable,
            },
        }
    }
}

/// A number the harness stored itself, beside rollstat's own.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessComparison {
    /// The file the harness number came from.
    pub source: String,
    /// The harness's metric name, as stored.
    pub harness_metric: String,
    /// The harness's value, as stored (a percentage stays a percentage).
    pub harness_value: f64,
    /// The rollstat metric it corresponds to, when one does.
    pub rollstat_metric: Option<String>,
    /// rollstat's value of that metric, on the same scale as `harness_value`.
    pub rollstat_value: Option<f64>,
    /// Whether the two agree within rounding; null when not comparable.
    pub agrees: Option<bool>,
    /// Scope, caveats, and the likely reason for a disagreement.
    pub note: String,
}

/// One problem's values (when asked).
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct PerProblem {
    /// The problem id, prefixed `system:` when the row has `model`/`run`.
    pub problem: String,
    /// The problem's value of the breakdown field; absent without a
    /// breakdown or when the problem has no value.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    /// Rollouts in the denominator (after the denominator policy).
    pub n: u64,
    /// Correct rollouts.
    pub c: u64,
    /// Metric → value; excluded metrics are absent.
    pub values: Ordered<f64>,
}

/// What the reading said that is not part of the document: the malformed
/// rows skipped (each `path:line: reason`) and messages for people
/// (unreadable files, empty inputs). Front ends show them; report.json
/// does not hold them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Diagnostics {
    /// Every malformed row skipped (each displays as `path:line: reason`).
    pub bad_rows: Vec<rollstat_io::BadLine>,
    /// Messages for people, in order; kept only when the options gave no
    /// [`crate::MessageSink`] (a sink receives them as they happen).
    pub messages: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(from = "ReportWire")]
pub struct Report {
    /// `rollstat.report/1` ([`REPORT_SCHEMA`]).
    pub schema: String,
    /// The rollstat version that wrote the report.
    pub version: String,
    /// One entry per input read, in reading order.
    pub inputs: Vec<InputInfo>,
    /// What produced the numbers.
    pub config: Config,
    /// Accounting of the whole input; its `warnings` hold the findings
    /// about the whole input.
    pub health: Health,
    /// `metrics` and `not_computable` of the whole input (flattened into
    /// the top level).
    #[serde(flatten)]
    pub block: MetricBlock,
    /// With a breakdown field, group value → group (in order of first
    /// appearance in the canonical problem order; `(none)` for problems
    /// without a value); else empty.
    pub groups: Ordered<GroupReport>,
    /// Aggregates stored by the harness that wrote the input, compared with
    /// rollstat's numbers (native inputs only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub harness: Vec<HarnessComparison>,
    /// Every problem's values (in the canonical problem order: by system,
    /// subset and problem id) when the
    /// `per_problem` option is set; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_problem: Option<Vec<PerProblem>>,
    /// pass@K beyond n from a beta-binomial fit, when asked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extrapolation: Option<crate::extrapolation::Extrapolation>,
    /// With a breakdown and a budget: the accuracy-vs-budget frontier
    /// across groups (systems with `--by model`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub frontier: Vec<FrontierPoint>,
    /// Run-to-run reliability (per-run pass@1, verdict flips, ICC, the
    /// noise floor, flaky problems) when problems have two or more trials;
    /// absent otherwise (docs/spec.md §6).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reliability: Option<crate::reliability::Reliability>,
    /// Not serialized: see [`Diagnostics`].
    #[serde(skip)]
    pub diagnostics: Diagnostics,
}

#[derive(DeriveDeserialize)]
#[serde(deny_unknown_fields)]
struct ReportWire {
    schema: String,
    version: String,
    inputs: Vec<InputInfo>,
    config: Config,
    health: Health,
    metrics: Ordered<MetricEntry>,
    not_computable: Ordered<String>,
    groups: Ordered<GroupReport>,
    #[serde(default)]
    harness: Vec<HarnessComparison>,
    #[serde(default)]
    per_problem: Option<Vec<PerProblem>>,
    #[serde(default)]
    extrapolation: Option<crate::extrapolation::Extrapolation>,
    #[serde(default)]
    frontier: Vec<FrontierPoint>,
    #[serde(default)]
    reliability: Option<crate::reliability::Reliability>,
}

impl From<ReportWire> for Report {
    fn from(w: ReportWire) -> Report {
        Report {
            schema: w.schema,
            version: w.version,
            inputs: w.inputs,
            config: w.config,
            health: w.health,
            block: MetricBlock {
                metrics: w.metrics,
                not_computable: w.not_computable,
            },
            groups: w.groups,
            harness: w.harness,
            per_problem: w.per_problem,
            extrapolation: w.extrapolation,
            frontier: w.frontier,
            reliability: w.reliability,
            diagnostics: Diagnostics::default(),
        }
    }
}

/// One point of the accuracy-vs-budget frontier: a group (system) at a
/// draw size k whose pass@k no cheaper point reaches.
#[derive(Clone, Debug, PartialEq, DeriveSerialize, DeriveDeserialize)]
#[serde(deny_unknown_fields)]
pub struct FrontierPoint {
    /// The group (system) value.
    pub group: String,
    /// The draw size.
    pub k: u64,
    /// The group's budget@k.
    pub budget: f64,
    /// The group's pass@k.
    pub pass: f64,
    /// pass@k's interval, when it has one.
    pub ci: Option<[f64; 2]>,
}

impl Report {
    /// The report.json text (pretty, with a final newline).
    pub fn to_json(&self) -> String {
        let mut s = serde_json::to_string_pretty(self).expect("a report serializes");
        s.push('\n');
        s
    }
}

/// An optional interval as `[lower, upper]` (or null) on the wire: the
/// form of every `ci` and `bounds` of the documents.
pub(crate) mod bounds_pair {
    use super::Interval;
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(i: &Option<Interval>, s: S) -> Result<S::Ok, S::Error> {
        i.map(|i| [i.lower, i.upper]).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Interval>, D::Error> {
        let pair = Option::<[f64; 2]>::deserialize(d)?;
        Ok(pair.map(|[lower, upper]| Interval { lower, upper }))
    }
}
