//! The [`Report`] value: what every renderer (table, JSON, Markdown, CSV)
//! reads. Its serde form *is* report.json, schema `rollstat.report/1`
//! (SPEC §6); field names here are the wire names and must not change.
//!
//! ```json
//! {"schema": "rollstat.report/1", "version": "0.1.0",
//!  "inputs": [{"path": "demo.jsonl", "format": "canonical-jsonl", "sha256": "…", "records": 48}],
//!  "config": {"k": [1,2,4,8], "tau": [0.25,0.5,0.75,1.0], "n": 8, "ci": {"method": "none", …},
//!             "tie_policy": "first", "denominator_policy": "requested", …},
//!  "health": {"n_problems": 6, "n_rollouts": {"min": 8, "median": 8.0, "max": 8, "histogram": {"8": 6}}, …},
//!  "metrics": {"pass@1": {"value": 0.375, "stderr": 0.1179, "ci": null, "n_problems": 6, "n_excluded": 0, …}},
//!  "not_computable": {},
//!  "groups": {}}
//! ```

use crate::aggregate::{Exclusion, MetricColumn, PointSummary};
use crate::summary::{DenominatorPolicy, ProblemSummary};
use crate::vote::TiePolicy;
use serde::ser::{Serialize, SerializeMap, Serializer};
use serde::Serialize as DeriveSerialize;

/// The schema tag of report.json.
pub const REPORT_SCHEMA: &str = "rollstat.report/1";

/// A map that serializes in insertion order (metrics keep their
/// pass@k → pass^k → … order in JSON and in every table).
#[derive(Clone, Debug, PartialEq)]
pub struct Ordered<V>(pub Vec<(String, V)>);

impl<V> Default for Ordered<V> {
    fn default() -> Self {
        Ordered(Vec::new())
    }
}

impl<V> Ordered<V> {
    pub fn get(&self, key: &str) -> Option<&V> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }
    pub fn insert(&mut self, key: impl Into<String>, value: V) {
        self.0.push((key.into(), value));
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
    pub fn iter(&self) -> impl Iterator<Item = (&String, &V)> {
        self.0.iter().map(|(k, v)| (k, v))
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

/// One input file.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct InputInfo {
    pub path: String,
    pub format: String,
    pub sha256: String,
    /// Records (non-empty lines or CSV rows) read, including bad ones.
    pub records: u64,
}

/// Interval settings as recorded in `config.ci`.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct CiConfig {
    /// `none` until an interval method is chosen; see the uncertainty docs.
    pub method: String,
    pub level: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resamples: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Random-stream scheme of the resampling, e.g. `xoshiro256++/splitmix64`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rng: Option<String>,
    /// Field whose values cluster problems (`--cluster-by`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cluster_by: Option<String>,
}

/// The configuration that produced the numbers.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct Config {
    pub k: Vec<u64>,
    pub tau: Vec<f64>,
    /// Requested rollouts per problem.
    pub n: u64,
    /// Where the requested n came from: `--n` or `largest n seen`.
    pub n_source: String,
    pub ci: CiConfig,
    pub tie_policy: TiePolicy,
    pub denominator_policy: DenominatorPolicy,
    pub answer_clustering: String,
    pub strict: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dedupe: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
}

/// Distribution of rollouts per problem (as arrived).
#[derive(Clone, Debug, DeriveSerialize)]
pub struct RolloutDistribution {
    pub min: u64,
    pub median: f64,
    pub max: u64,
    /// Rollout count → number of problems.
    pub histogram: Ordered<u64>,
}

/// The accounting block (SPEC §4).
#[derive(Clone, Debug, DeriveSerialize)]
pub struct Health {
    pub n_problems: u64,
    pub n_rollouts: RolloutDistribution,
    pub n_rollouts_total: u64,
    pub n_requested: u64,
    /// Problems with fewer rollouts than requested.
    pub n_short: u64,
    pub n_unextracted: u64,
    /// Unextracted rollouts the input marked correct; counted as wrong.
    pub n_unextracted_marked_correct: u64,
    pub n_truncated: u64,
    pub n_failed: u64,
    pub n_duplicate_rollouts: u64,
    pub n_inconsistent_clusters: u64,
    pub n_bad_lines: u64,
    pub denominator_policy: DenominatorPolicy,
    /// Findings in words, for people.
    pub warnings: Vec<String>,
}

impl Health {
    /// Accounting over problem summaries; reader counts are added by the
    /// caller (`n_duplicate_rollouts`, `n_bad_lines`).
    pub fn from_summaries(
        problems: &[ProblemSummary],
        n_requested: u64,
        policy: DenominatorPolicy,
    ) -> Health {
        let mut counts: Vec<u64> = problems.iter().map(|p| p.n_arrived).collect();
        counts.sort_unstable();
        let median = match counts.len() {
            0 => 0.0,
            l if l % 2 == 1 => counts[l / 2] as f64,
            l => (counts[l / 2 - 1] + counts[l / 2]) as f64 / 2.0,
        };
        let mut histogram: Ordered<u64> = Ordered::default();
        for &c in &counts {
            match histogram.0.last_mut() {
                Some((k, v)) if *k == c.to_string() => *v += 1,
                _ => histogram.insert(c.to_string(), 1),
            }
        }
        let sum = |f: fn(&ProblemSummary) -> u64| problems.iter().map(f).sum::<u64>();
        Health {
            n_problems: problems.len() as u64,
            n_rollouts: RolloutDistribution {
                min: counts.first().copied().unwrap_or(0),
                median,
                max: counts.last().copied().unwrap_or(0),
                histogram,
            },
            n_rollouts_total: sum(|p| p.n_arrived),
            n_requested,
            n_short: problems
                .iter()
                .filter(|p| p.n_arrived < n_requested)
                .count() as u64,
            n_unextracted: sum(|p| p.n_unextracted),
            n_unextracted_marked_correct: sum(|p| p.n_unextracted_marked_correct),
            n_truncated: sum(|p| p.n_truncated),
            n_failed: sum(|p| p.n_failed),
            n_duplicate_rollouts: 0,
            n_inconsistent_clusters: problems
                .iter()
                .filter_map(|p| p.vote.map(|v| v.n_inconsistent as u64))
                .sum(),
            n_bad_lines: 0,
            denominator_policy: policy,
            warnings: Vec::new(),
        }
    }
}

/// One metric's number with everything needed to defend it.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct MetricEntry {
    /// Mean over `n_problems` problems (a fraction in [0, 1], or a count
    /// for `distinct_answers`).
    pub value: f64,
    /// sd/√N over per-problem values; null with fewer than 2 problems.
    pub stderr: Option<f64>,
    /// Interval bounds at `level`, null when no interval was computed.
    pub ci: Option<[f64; 2]>,
    /// The interval method (`none` when no interval was computed).
    pub method: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    pub n_problems: u64,
    pub n_excluded: u64,
    /// Exclusions by reason (only when some problems were excluded).
    #[serde(skip_serializing_if = "Ordered::is_empty")]
    pub excluded: Ordered<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub k: Option<u64>,
    /// Requested rollouts per problem.
    pub n: u64,
    pub denominator: DenominatorPolicy,
    pub unit: &'static str,
    /// Between- vs within-problem variance (pass@k metrics, where estimable).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub variance: Option<VarianceEntry>,
}

/// Split of a metric's variance over problems into the part due to which
/// problems were drawn (between) and the part due to sampling rollouts
/// (within), so a reader knows whether more rollouts or more problems would
/// narrow the interval.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct VarianceEntry {
    pub between: f64,
    pub within: f64,
    /// `between` or `within`.
    pub dominant: String,
    /// What would narrow the interval most.
    pub advice: String,
    /// Problems with an estimable within-problem variance.
    pub n_problems: u64,
}

/// Metrics (and the ones that could not be computed) for one population.
#[derive(Clone, Debug, Default, DeriveSerialize)]
pub struct MetricBlock {
    pub metrics: Ordered<MetricEntry>,
    pub not_computable: Ordered<String>,
}

impl MetricBlock {
    /// Point estimates and standard errors for each column.
    pub fn from_columns(
        columns: &[MetricColumn],
        n_requested: u64,
        policy: DenominatorPolicy,
    ) -> MetricBlock {
        let mut block = MetricBlock::default();
        for col in columns {
            let name = col.metric.to_string();
            match col.summary() {
                Some(PointSummary {
                    mean,
                    stderr,
                    n_problems,
                }) => {
                    let mut excluded = Ordered::default();
                    for (reason, count) in &col.excluded {
                        excluded.insert(exclusion_key(*reason), *count);
                    }
                    block.metrics.insert(
                        name,
                        MetricEntry {
                            value: mean,
                            stderr,
                            ci: None,
                            method: "none".into(),
                            level: None,
                            seed: None,
                            n_problems,
                            n_excluded: col.n_excluded(),
                            excluded,
                            k: col.metric.k(),
                            n: n_requested,
                            denominator: policy,
                            unit: if col.metric.is_fraction() {
                                "fraction"
                            } else {
                                "count"
                            },
                            variance: None,
                        },
                    );
                }
                None => {
                    let reason = col
                        .excluded
                        .iter()
                        .max_by_key(|(_, c)| *c)
                        .map(|(r, _)| r.to_string())
                        .unwrap_or_else(|| "no problems".into());
                    block.not_computable.insert(name, reason);
                }
            }
        }
        block
    }
}

fn exclusion_key(e: Exclusion) -> &'static str {
    match e {
        Exclusion::TooFewRollouts => "too_few_rollouts",
        Exclusion::NoRolloutDetail => "no_rollout_detail",
        Exclusion::NoAnswers => "no_answers",
    }
}

/// A breakdown by `--by FIELD`.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct GroupReport {
    pub health: Health,
    #[serde(flatten)]
    pub block: MetricBlock,
}

/// A number the harness stored itself, beside rollstat's own.
#[derive(Clone, Debug, DeriveSerialize)]
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

/// The whole report.
#[derive(Clone, Debug, DeriveSerialize)]
pub struct Report {
    pub schema: &'static str,
    pub version: &'static str,
    pub inputs: Vec<InputInfo>,
    pub config: Config,
    pub health: Health,
    #[serde(flatten)]
    pub block: MetricBlock,
    pub groups: Ordered<GroupReport>,
    /// Aggregates stored by the harness that wrote the input, compared with
    /// rollstat's numbers (native inputs only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub harness: Vec<HarnessComparison>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub per_problem: Option<Vec<PerProblem>>,
}

/// One problem's values (with `--per-problem`).
#[derive(Clone, Debug, DeriveSerialize)]
pub struct PerProblem {
    pub problem: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
    pub n: u64,
    pub c: u64,
    /// Metric → value; excluded metrics are absent.
    pub values: Ordered<f64>,
}
