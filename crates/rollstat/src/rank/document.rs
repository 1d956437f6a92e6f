//! The `rollstat.rank/1` document: many systems on shared problems — who is
//! separable from whom, how certain each rank is, and how much picking the
//! best flatters it (docs/rank.md).

use crate::findings::Finding;
use rollstat_core::input::InputInfo;
use rollstat_stats::Interval;
use serde::{Deserialize, Serialize};

/// JSON schema name of the rank output.
pub const RANK_SCHEMA: &str = "rollstat.rank/1";

/// Settings behind the numbers.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RankSettings {
    /// The primary metric, per problem (a per-problem mean with rollouts).
    pub metric: String,
    /// Level of the value intervals and the rank intervals.
    pub level: f64,
    /// Significance level of the pairwise tests.
    pub alpha: f64,
    /// `holm` or `bh`, over every pair.
    pub adjust: String,
    /// How pairs are tested: `mcnemar-exact` / `mcnemar-chi2-corrected` on
    /// 0/1 values, else `sign-flip`.
    pub pair_test: String,
    /// Bootstrap resamples.
    pub resamples: u64,
    /// Sign-flip permutations.
    pub permutations: u64,
    /// Seed of every random procedure.
    pub seed: u64,
    /// Random-stream scheme.
    pub rng: String,
    /// Field whose values cluster problems; null without.
    pub cluster_by: Option<String>,
    /// Field that tells the systems apart; null: one system per input.
    pub by: Option<String>,
}

/// One system.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SystemRow {
    /// The system's name.
    pub name: String,
    /// The metric's mean over the shared problems.
    pub value: f64,
    /// Its bootstrap percentile interval at `level`.
    #[serde(with = "crate::document::bounds_pair")]
    pub ci: Option<Interval>,
    /// Its rank (1 = best; ties share the smallest rank).
    pub rank: u32,
    /// The marginal rank interval: quantiles of its bootstrap ranks
    /// (`[lower, upper]`).
    pub rank_interval: [u32; 2],
    /// The simultaneous rank set (all systems' ranks covered jointly).
    pub rank_set: [u32; 2],
    /// Share of bootstrap replicates where it ranks first (ties count for
    /// each, so the shares may sum past 1).
    pub p_best: f64,
    /// Compact letters: systems sharing a letter are not separable.
    pub letters: String,
    /// Problems it has a value on that not every system has (left out).
    pub dropped: u64,
    /// Largest rollouts per problem.
    pub rollouts: u64,
    /// Its inputs.
    pub inputs: Vec<InputInfo>,
}

/// One pair of systems.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PairRow {
    /// The better-ranked system.
    pub a: String,
    /// The other.
    pub b: String,
    /// a − b of the metric's means.
    pub diff: f64,
    /// Two-sided p of the paired test.
    pub p: f64,
    /// `p` adjusted over every pair.
    pub p_adjusted: f64,
    /// The test: `mcnemar-exact`, `mcnemar-chi2-corrected`,
    /// `sign-flip-exact` or `sign-flip-random`.
    pub method: String,
    /// `p_adjusted` ≤ α.
    pub separated: bool,
}

/// One step of the walk down the ranks against #1 (unadjusted).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct AnchorRow {
    /// The system.
    pub system: String,
    /// #1 − it.
    pub diff: f64,
    /// Two-sided p against #1, not adjusted.
    pub p: f64,
}

/// The best system's score, naive and adjusted for its selection.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BestRow {
    /// The best system (rank 1; the first by name among ties).
    pub system: String,
    /// Its mean on the data it was selected on.
    pub naive: f64,
    /// The selection-adjusted estimate: the hybrid conditional median
    /// estimate given that this system was selected as the best.
    pub adjusted: f64,
    /// The hybrid conditional interval of its true score at the ranking's
    /// level (covers at least that often, selection included).
    pub adjusted_ci: [f64; 2],
    /// How it was adjusted: `hybrid-conditional` (Andrews, Kitagawa &
    /// McCloskey 2024; docs/rank.md).
    pub method: String,
    /// The bootstrap bias correction `naive − (mean_b max θ* − max θ̂)`
    /// (Efron & Tibshirani 1993 §10.3): partial, shown for comparison.
    pub bootstrap_adjusted: f64,
    /// The split-sample check: the best on a seeded half of the problems,
    /// and its mean on the other half (unbiased for that system); null
    /// below four problems (or clusters).
    #[serde(default)]
    pub split: Option<SplitRow>,
}

/// Select on one half, estimate on the other.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SplitRow {
    /// The best system on the selection half.
    pub system: String,
    /// Its mean on the selection half (flattered by the selection).
    pub selection: f64,
    /// Its mean on the held-out half.
    pub held_out: f64,
    /// Problems in the held-out half.
    pub held_out_problems: u64,
}

/// Ranks across benchmarks: per-benchmark ranks, Friedman with the
/// Iman–Davenport F, and the Nemenyi critical difference.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SuiteRanks {
    /// The field whose values are the benchmarks (`subset`).
    pub field: String,
    /// The benchmarks (datasets), in order.
    pub benchmarks: Vec<String>,
    /// benchmarks × systems (systems in the document's order): each
    /// system's mean on the benchmark's shared problems.
    pub scores: Vec<Vec<f64>>,
    /// benchmarks × systems: ranks within the benchmark (1 = best, ties
    /// averaged).
    pub ranks: Vec<Vec<f64>>,
    /// Each system's mean rank over the benchmarks.
    pub mean_ranks: Vec<f64>,
    /// Friedman's χ².
    pub chi2: f64,
    /// Its df (systems − 1).
    pub df: u64,
    /// Its p.
    pub p: f64,
    /// The Iman–Davenport F (null when infinite: every benchmark ranks the
    /// systems alike).
    #[serde(with = "crate::gate::nan_null")]
    pub f: f64,
    /// Its df (k − 1, (k − 1)(N − 1)).
    pub f_df: [u64; 2],
    /// Its p.
    pub f_p: f64,
    /// Nemenyi's critical difference of mean ranks at α.
    pub critical_difference: f64,
    /// q_α: the studentized range quantile at df = ∞ over √2 (Demšar 2006).
    pub q_alpha: f64,
    /// Groups of systems whose mean ranks differ by less than the critical
    /// difference (maximal, best first): the bars of a CD diagram.
    pub cd_groups: Vec<Vec<String>>,
}

/// One checkpoint of a run.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CurvePoint {
    /// The system (checkpoint).
    pub system: String,
    /// Its step (the last number in its name).
    pub step: f64,
    /// Its value.
    pub value: f64,
    /// Its interval.
    #[serde(with = "crate::document::bounds_pair")]
    pub ci: Option<Interval>,
}

/// Systems as checkpoints of one run, in step order.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Curve {
    /// The checkpoints in step order.
    pub points: Vec<CurvePoint>,
    /// The best checkpoint (rank 1).
    pub best: String,
    /// Checkpoints not separable from the best (sharing a letter with it).
    pub not_separable: Vec<String>,
}

/// The `rollstat.rank/1` document.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Ranking {
    /// `rollstat.rank/1`.
    pub schema: String,
    /// The rollstat version that wrote it.
    pub version: String,
    /// The settings.
    pub settings: RankSettings,
    /// Problems every system has; every number is over these.
    pub n_problems: u64,
    /// The systems, best first.
    pub systems: Vec<SystemRow>,
    /// Every pair (a ranked above b).
    pub pairs: Vec<PairRow>,
    /// The systems not separable from #1 (sharing a letter with it).
    pub top_tier: Vec<String>,
    /// The top tier in words.
    pub top_tier_line: String,
    /// Each system against #1 in rank order, unadjusted (as leaderboard
    /// audits walk it); labelled as such.
    pub anchor_walk: Vec<AnchorRow>,
    /// The first rank whose system differs from #1 at α in the walk.
    pub first_separated_rank: Option<u32>,
    /// The best system's score, naive and selection-adjusted.
    pub best: BestRow,
    /// Across benchmarks (with a suite field); null otherwise.
    #[serde(default)]
    pub suite: Option<SuiteRanks>,
    /// The systems as checkpoints of one run (step order); null otherwise.
    #[serde(default)]
    pub curve: Option<Curve>,
    /// Findings, typed (`kind`, fields, `text`).
    #[serde(with = "crate::gate::findings_list")]
    pub findings: Vec<Finding>,
}
