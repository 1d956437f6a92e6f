//! # rollstat
//!
//! The engine behind every rollstat front end (the `rollstat` command, the
//! Python package): typed options in, a finished document out.
//!
//! - [`report()`] — sources ([`Source`]: paths, directories, stdin, bytes,
//!   or in-memory [`rows::Row`]s) → canonical rollouts → per-problem
//!   summaries → every metric with its interval → a [`Report`] (health
//!   accounting, findings, per-group breakdown, harness reconciliation).
//! - [`compare()`] — two systems on the same problems → a [`Comparison`]
//!   (paired differences, intervals, sign-flip and McNemar p-values, Holm/BH,
//!   non-inferiority verdicts).
//! - [`power()`] — minimum detectable effect and problems needed, from
//!   parameters or from a [`Report`] → a [`PowerReport`].
//!
//! Report and compare read through one population path: the same reading,
//! grading policy ([`rollstat_grade::GradingPolicy`]: gold rules, junk rule,
//! answer clustering), summaries and intervals. Findings are data
//! ([`Finding`]); errors ([`Error`]) name options by their field names, never
//! by command-line flags.
//!
//! ```
//! use rollstat::rows::{RolloutRow, Row};
//! use rollstat::{report, ReportOptions, Source};
//! // Two problems, 4 rollouts each.
//! let rows: Vec<Row> = [("p1", [true, false, false, true]), ("p2", [false, false, false, true])]
//!     .iter()
//!     .flat_map(|(p, cs)| cs.iter().enumerate().map(move |(i, &c)| RolloutRow::new(*p, c).rollout(i as u64).into()))
//!     .collect();
//! let mut opts = ReportOptions::default();
//! opts.intervals.resamples = 1000;
//! let r = report(&[Source::Rows { name: "memory".into(), rows }], &opts).unwrap();
//! let p1 = r.block.metrics.get("pass@1").unwrap();
//! assert_eq!(p1.value, 0.375); // (2/4 + 1/4) / 2
//! assert_eq!(r.health.n_problems, 2);
//! assert!(p1.ci.is_some());
//! ```

#![warn(missing_docs)]

#[cfg(feature = "arrow")]
mod arrow_rows;
mod budget;
pub(crate) mod budget_match;
mod compare;
mod compare_noise;
mod document;
mod error;
mod extrapolation;
mod findings;
pub mod gate;
pub mod grade;
mod grading;
mod harness;
mod identities;
mod intervals;
mod options;
mod population;
mod power;
pub mod rank;
mod read;
mod reliability;
mod report;
pub mod rows;
#[cfg(feature = "parquet")]
mod rows_parquet;
mod summary;
#[cfg(feature = "arrow")]
mod summary_arrow;
#[cfg(feature = "parquet")]
mod summary_parquet;

#[cfg(feature = "arrow")]
pub use arrow_rows::ArrowTable;
pub use budget_match::BudgetMatch;
pub use compare::{
    compare, trim_float, CompareConfig, CompareSummary, Comparison, Discordant, FailCheck,
    NotComputable, Pairs, Row as CompareRow, Side, VerdictCounts, COMPARE_SCHEMA,
};
pub use compare_noise::RunNoise;
pub use document::{
    AnswerMetricsLeftOut, BudgetHealth, CiConfig, Config, Diagnostics, Difficulty, FrontierPoint,
    GroupReport, HarnessComparison, Health, InputInfo, Interval, MetricBlock, MetricEntry, Ordered,
    PerProblem, Report, RolloutDistribution, VarianceEntry, REPORT_SCHEMA,
};
pub use error::{Error, OptionName, Result, MALFORMED_SHOWN};
pub use extrapolation::{ExtrapolatedEntry, Extrapolation, FitCheckEntry, EXTRAPOLATION_LABEL};
pub use findings::{Finding, RunGap, SideLabel};
pub use gate::{
    BenchmarkRow, BenchmarkStatus, Decision, Gate, GateRule, Tier, Weighting, GATE_SCHEMA,
};
pub use options::{
    Budget, Choice, CompareOptions, FailOn, IntervalMethod, IntervalOptions, MessageSink,
    MetricOptions, ReportOptions, DEFAULT_BUDGET_FIELD, MAX_DRAW, MAX_PERMUTATIONS, MAX_RESAMPLES,
};
pub use power::{power, short_number, PowerOptions, PowerReport, PowerRow, Tradeoff, POWER_SCHEMA};
pub use read::{
    canonical_rows, gather, gather_with, suggested_field_map, CanonicalRow, Gathered, Loaded,
    Source, Table,
};
pub use reliability::{
    FlakyProblem, Flips, IccEntry, Lever, NoiseFloor, Reliability, RunSpread, RunValue,
    TrialSource, VarianceSplit,
};
pub use report::report;
pub use rollstat_formats::pipeline::Loaded as LoadedFile;
pub use summary::{
    merge, summarize, summarize_pending, BadRow, PendingSummary, Reading, Summary, SummaryHeader,
    SummaryRow, SUMMARY_VERSION,
};
#[cfg(feature = "arrow")]
pub use summary_arrow::{summary_schema, HEADER_KEY as SUMMARY_KEY};
#[cfg(feature = "parquet")]
pub use summary_parquet::PARQUET_MAGIC;

pub use rollstat_core::best::ScoreOrder;
pub use rollstat_core::summary::{DenominatorPolicy, Verdict};
pub use rollstat_core::vote::TiePolicy;
pub use rollstat_formats::{DecompressLimit, DetectError, Format, FormatError};
pub use rollstat_grade::{GradingPolicy, Match};
pub use rollstat_io::field_map::{FieldMap, FieldMapError};
pub use rollstat_io::{BadLine, Dedupe, ReadError, ReadOptions};
pub use rollstat_stats::BetaPrior;
/// A comparison row's decision: non-inferior, inferior or inconclusive.
pub use rollstat_stats::NonInferiorityVerdict;
