//! Command-line flags. Raw flags are parsed here and validated into the
//! library's option types in `pipeline.rs`; library crates never see clap.

use clap::{Args, Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// Sampled-answer metrics for LLM evaluations with several rollouts per problem.
#[derive(Parser, Debug)]
#[command(name = "rollstat", version, about, long_about = None)]
#[command(
    after_help = "Exit status: 0 ok, 1 a compare verdict failed (--fail-on), 2 bad input or usage."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Every sampled-answer metric for one or more rollout files, with health accounting.
    Report(Box<ReportArgs>),
    /// pass@k (and pass^k, G-Pass@k_τ, mG-Pass@k) for one problem with n rollouts, c correct.
    Passk(PasskArgs),
    /// Paired comparison of two systems on the same problems, with a non-inferiority verdict.
    Compare(Box<crate::compare::CompareArgs>),
    /// Minimum detectable effect, problems needed, and rollouts vs problems.
    Power(Box<crate::power::PowerArgs>),
    /// Extract final answers and grade them against `gold`; writes canonical rows.
    Grade(Box<crate::grade_cmd::GradeArgs>),
    /// Write canonical rollout rows from any supported input (native harness files, directories).
    Convert(Box<crate::convert::ConvertArgs>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Markdown,
    Csv,
}

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Inputs: canonical JSON Lines or CSV, native harness files (lm-eval, lighteval,
    /// inspect, evalscope, OpenCompass, SiEval, MathArena, NeMo-Skills, tau-bench),
    /// directories of them, `.gz`/`.zst`; `-` reads stdin.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = OutputFormat::Table)]
    pub format: OutputFormat,
    /// Write the report to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub metrics: MetricArgs,
    /// Input format, overriding auto-detection (lm-eval, lighteval, inspect,
    /// evalscope, opencompass, sieval, matharena, nemo-skills, tau-bench, canonical).
    #[arg(long, value_name = "NAME")]
    pub from: Option<String>,
    /// Break metrics down by a field (subset, group, model, or any column).
    #[arg(long, value_name = "FIELD")]
    pub by: Option<String>,
    /// Include every problem's per-metric values in the report.
    #[arg(long = "per-problem")]
    pub per_problem: bool,
    #[command(flatten)]
    pub uncertainty: UncertaintyArgs,
    #[command(flatten)]
    pub grading: crate::grading::GradingArgs,
}

/// Interval options shared by `report` (and later `compare`).
#[derive(Args, Debug, Clone)]
pub struct UncertaintyArgs {
    /// Interval method: bootstrap (percentile over problems), bca, basic, t,
    /// wilson, jeffreys, clopper-pearson (binomial ones only where each
    /// problem contributes one 0/1 value), or none.
    #[arg(long, default_value = "bootstrap", value_name = "METHOD")]
    pub ci: String,
    /// Two-sided confidence level.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// Bootstrap resamples.
    #[arg(long, default_value_t = 10_000)]
    pub resamples: usize,
    /// Seed of the resampling streams (output is identical for any thread count).
    #[arg(long, default_value_t = 20_260_729)]
    pub seed: u64,
    /// Cluster problems by this field (template, source, subject): CR1 standard
    /// errors and a bootstrap that resamples whole clusters.
    #[arg(long = "cluster-by", value_name = "FIELD")]
    pub cluster_by: Option<String>,
}

#[derive(Args, Debug)]
pub struct PasskArgs {
    /// Rollouts of the problem.
    pub n: u64,
    /// Correct rollouts.
    pub c: u64,
    /// Draw size.
    pub k: u64,
    /// Also print pass^k (all k correct).
    #[arg(long)]
    pub pow: bool,
    /// Also print G-Pass@k at these thresholds, and mG-Pass@k.
    #[arg(long, value_delimiter = ',', value_name = "TAU,…")]
    pub tau: Option<Vec<String>>,
}

/// What to compute, shared by `report` and `compare`.
#[derive(Args, Debug, Clone)]
pub struct MetricArgs {
    /// Draw sizes, e.g. `--k 1,2,4` (default: 1, 2, 4, … up to n, and n).
    #[arg(long, value_delimiter = ',', value_name = "K,…")]
    pub k: Option<Vec<u64>>,
    /// G-Pass thresholds τ in [0, 1].
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "TAU,…",
        default_value = "0.25,0.5,0.75,1.0"
    )]
    pub tau: Vec<String>,
    /// Requested rollouts per problem (default: the largest n seen).
    #[arg(long)]
    pub n: Option<u64>,
    /// `requested`: failed rollouts count as wrong; `judged`: they are dropped.
    #[arg(long, default_value = "requested", value_name = "requested|judged")]
    pub denominator: String,
    /// maj@n tie policy.
    #[arg(
        long = "tie-policy",
        default_value = "first",
        value_name = "first|none|fractional"
    )]
    pub tie_policy: String,
    /// Stop at the first bad row or short problem (exit code 2).
    #[arg(long)]
    pub strict: bool,
    /// Keep the first or last of duplicated (problem, rollout) rows instead of failing.
    #[arg(long, value_name = "first|last")]
    pub dedupe: Option<String>,
}
