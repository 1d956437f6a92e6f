//! `rollstat rank`: flags → the engine's rank options → one ranking.

use crate::args::{GradingArgs, ReadingArgs};
use crate::options::{
    cli_error, field_map, grading_policy, source_format, stderr_sink, InputError,
};
use anyhow::Result;
use clap::{Args, ValueEnum};
use rollstat::rank::{rank, RankOptions, Ranking};
use rollstat::Source;
use rollstat_stats::{PAdjust, PairPreference};
use std::path::PathBuf;

/// Output formats of `rollstat rank`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum RankFormat {
    Table,
    Json,
    Markdown,
    /// One self-contained HTML page (interval dots, rank intervals, CD
    /// diagram, checkpoint curve).
    Html,
}

/// Flags of `rollstat rank`.
#[derive(Args, Debug)]
pub struct RankArgs {
    /// Inputs: one system per file, or any inputs with --by naming the field
    /// that tells the systems apart.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RankFormat::Table)]
    pub format: RankFormat,
    /// Write the result to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// The field that tells the systems apart (model, run, …).
    #[arg(long, value_name = "FIELD")]
    pub by: Option<String>,
    /// The primary metric (pass@1, pass^4, maj@8, …) [default: pass@1].
    #[arg(long)]
    pub metric: Option<String>,
    /// Level of the value and rank intervals.
    #[arg(long)]
    pub level: Option<f64>,
    /// Significance level of the pairwise tests.
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Adjustment over every pair: holm or bh [default: holm].
    #[arg(long, value_name = "holm|bh")]
    pub adjust: Option<String>,
    /// McNemar on 0/1 values: exact, or chi2-corrected (Edwards' continuity
    /// correction, as published leaderboard audits use) [default: exact].
    #[arg(long = "pair-test", value_name = "exact|chi2-corrected")]
    pub pair_test: Option<String>,
    /// Bootstrap resamples.
    #[arg(long)]
    pub resamples: Option<usize>,
    /// Random sign-flip permutations.
    #[arg(long)]
    pub permutations: Option<usize>,
    /// Seed of every random procedure.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Field whose values cluster problems.
    #[arg(long = "cluster-by", value_name = "FIELD")]
    pub cluster_by: Option<String>,
    /// Refuse systems scored on problems the others lack.
    #[arg(long)]
    pub strict: bool,
    /// Rank across benchmarks too (Friedman, Iman–Davenport, Nemenyi's
    /// critical difference): `subset` (the benchmarks are the problems'
    /// subset values) or `inputs` (each input, e.g. a directory, is one
    /// benchmark; systems by --by or one per file within it).
    #[arg(long, value_name = "subset|inputs")]
    pub suite: Option<String>,
    /// `step`: the systems are checkpoints of one run, ordered by the last
    /// number in their names (the curve, the best step, the steps not
    /// separable from it).
    #[arg(long, value_name = "step")]
    pub order: Option<String>,
    #[command(flatten)]
    pub reading: ReadingArgs,
    #[command(flatten)]
    pub grading: GradingArgs,
}

fn bad(m: String) -> anyhow::Error {
    InputError(m).into()
}

fn options(a: &RankArgs) -> Result<RankOptions> {
    let d = RankOptions::default();
    let adjust = match a.adjust.as_deref() {
        None => d.adjust,
        Some("holm") => PAdjust::Holm,
        Some("bh") => PAdjust::BenjaminiHochberg,
        Some(x) => return Err(bad(format!("--adjust: unknown '{x}' (holm or bh)"))),
    };
    let pair_test = match a.pair_test.as_deref() {
        None => d.pair_test,
        Some("exact") => PairPreference::Exact,
        Some("chi2-corrected") => PairPreference::ContinuityCorrected,
        Some(x) => {
            return Err(bad(format!(
                "--pair-test: unknown '{x}' (exact or chi2-corrected)"
            )))
        }
    };
    Ok(RankOptions {
        metric: a.metric.clone().unwrap_or(d.metric),
        by: a.by.clone(),
        level: a.level.unwrap_or(d.level),
        alpha: a.alpha.unwrap_or(d.alpha),
        adjust,
        pair_test,
        resamples: a.resamples.unwrap_or(d.resamples),
        permutations: a.permutations.unwrap_or(d.permutations),
        seed: a.seed.unwrap_or(d.seed),
        cluster_by: a.cluster_by.clone(),
        strict: a.strict,
        suite: a.suite.clone(),
        order_step: match a.order.as_deref() {
            None => false,
            Some("step") => true,
            Some(x) => return Err(bad(format!("--order: unknown '{x}' (step)"))),
        },
        grading: grading_policy(&a.grading)?,
        source_format: source_format(&a.reading)?,
        field_map: field_map(&a.reading)?,
        messages: Some(stderr_sink()),
    })
}

/// Runs the ranking.
pub fn run(a: &RankArgs) -> Result<Ranking> {
    let o = options(a)?;
    let sources: Vec<Source> = a.inputs.iter().map(Source::from).collect();
    rank(&sources, &o).map_err(cli_error)
}
