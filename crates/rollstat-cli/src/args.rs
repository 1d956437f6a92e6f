//! Command-line flags. Raw flags are parsed here and turned into the
//! engine's option types in `options.rs`; library crates never see clap.
//!
//! A flag the engine has a default for is an `Option`: unset, the engine's
//! default applies (`options.rs` merges the flags onto
//! `ReportOptions::default()` and its siblings), and `--help` shows that
//! default ([`command`]). No default is written here.

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use rollstat::{
    BetaPrior, Budget, CompareOptions, Dedupe, DenominatorPolicy, FailOn, GradingPolicy,
    IntervalMethod, Match, PowerOptions, ReportOptions, ScoreOrder, TiePolicy,
};
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
    Compare(Box<CompareArgs>),
    /// Minimum detectable effect, problems needed, and rollouts vs problems.
    Power(Box<PowerArgs>),
    /// Extract final answers and grade them against `gold`; writes canonical rows.
    Grade(Box<crate::grade_cmd::GradeArgs>),
    /// Write canonical rollout rows from any supported input (native harness files, directories).
    Convert(Box<crate::convert::ConvertArgs>),
    /// Write the per-problem summary of rollout files (mergeable; `report` and `compare` read it).
    Summarize(Box<crate::summary_cmd::SummarizeArgs>),
    /// Merge summaries of shards (problems may be split across them) into one.
    Merge(Box<crate::summary_cmd::MergeArgs>),
    /// Ship it or not: one release decision (GO / NO-GO / INCONCLUSIVE) over a suite of benchmarks.
    Gate(Box<crate::gate_cmd::GateArgs>),
    /// Who is really ahead: many systems ranked with intervals, letters and the best's selection-adjusted score.
    Rank(Box<crate::rank_cmd::RankArgs>),
}

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum OutputFormat {
    Table,
    Json,
    Markdown,
    Csv,
    /// One self-contained HTML page (inline SVG plots and CSS).
    Html,
}

/// How every command reads its files: the format, or a field map.
#[derive(Args, Debug, Default)]
pub struct ReadingArgs {
    // Help generated from the format registry.
    #[arg(long, value_name = "NAME", help = rollstat_formats::registry::from_help())]
    pub from: Option<String>,
    /// Read a layout no format knows through a field map: `problem=PATH,correct=PATH,…`
    /// (answers, gold, response, score, subset, …; `records=PATH` for nested records; a path is
    /// `key.key`, `[]` for every list element, `*` for every object value), e.g.
    /// `--map problem=idx,correct=score,answers=pred,gold=gt`.
    #[arg(long = "map", value_name = "MAP")]
    pub map: Option<String>,
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
    #[command(flatten)]
    pub reading: ReadingArgs,
    /// Break metrics down by a field (subset, group, model, or any column).
    #[arg(long, value_name = "FIELD")]
    pub by: Option<String>,
    /// Include every problem's per-metric values in the report.
    #[arg(long = "per-problem")]
    pub per_problem: bool,
    /// What a trial of the run-to-run reliability section is: `run` or
    /// `model` (each label a run, problems matched across runs), or
    /// `rollout`/`trial`/`epoch` (the rollout index, where native formats
    /// put the trial). Default: the rollout index, trials exchangeable.
    #[arg(long = "run-by", value_name = "FIELD")]
    pub run_by: Option<String>,
    /// Tables print every metric (default: the headline set; JSON and CSV always hold every metric).
    #[arg(long)]
    pub all: bool,
    /// Extrapolate pass@K to these K (beyond n) from a beta-binomial fit of
    /// the problems' success rates, with a refitting bootstrap interval.
    /// Model-based: see the fit check in the output.
    #[arg(long, value_delimiter = ',', value_name = "K,…")]
    pub extrapolate: Vec<u64>,
    #[command(flatten)]
    pub uncertainty: UncertaintyArgs,
    #[command(flatten)]
    pub grading: GradingArgs,
}

/// Interval options shared by `report` (and later `compare`).
#[derive(Args, Debug, Clone)]
pub struct UncertaintyArgs {
    /// Interval method: bootstrap (percentile over problems), bca, basic, t,
    /// wilson, jeffreys, clopper-pearson (binomial ones only where each
    /// problem contributes one 0/1 value), beta-binomial (model-based:
    /// pass@k under a hierarchical beta-binomial model, see --prior), or
    /// none.
    #[arg(long, value_name = "METHOD")]
    pub ci: Option<IntervalMethod>,
    /// Prior of the beta-binomial model's mean success rate: uniform
    /// Beta(1, 1) or jeffreys Beta(½, ½).
    #[arg(long, value_name = "PRIOR")]
    pub prior: Option<BetaPrior>,
    /// Two-sided confidence level.
    #[arg(long)]
    pub level: Option<f64>,
    /// Bootstrap resamples.
    #[arg(long)]
    pub resamples: Option<usize>,
    /// Seed of the resampling streams (output is identical for any thread count).
    #[arg(long)]
    pub seed: Option<u64>,
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
    /// G-Pass thresholds τ in [0, 1] (tables show G-Pass rows only when given).
    #[arg(long, value_delimiter = ',', value_name = "TAU,…")]
    pub tau: Option<Vec<String>>,
    /// Requested rollouts per problem (default: the largest n seen).
    #[arg(long)]
    pub n: Option<u64>,
    /// `requested`: failed rollouts count as wrong; `judged`: they are dropped.
    #[arg(long, value_name = "requested|judged")]
    pub denominator: Option<DenominatorPolicy>,
    /// maj@n and maj@k tie policy (`first`: the tied answer seen first in
    /// rollout order wins).
    #[arg(long = "tie-policy", value_name = "first|none|fractional")]
    pub tie_policy: Option<TiePolicy>,
    /// bon@k and wmaj@n: whether a higher (`descending`) or lower
    /// (`ascending`) selector score is better.
    #[arg(long = "score-order", value_name = "descending|ascending")]
    pub score_order: Option<ScoreOrder>,
    /// Stop at the first bad row or short problem (exit code 2).
    #[arg(long)]
    pub strict: bool,
    /// Keep the first or last of duplicated (problem, rollout) rows instead of failing.
    #[arg(long, value_name = "first|last")]
    pub dedupe: Option<Dedupe>,
    /// Most bytes a compressed input (.gz, .zst, .eval) may expand to, e.g.
    /// `4G`, `500M`, or `none` (default: 100× its size, at least 256M).
    #[arg(long = "max-decompressed", value_name = "SIZE|none")]
    pub max_decompressed: Option<String>,
    /// The field holding each rollout's budget: `output_tokens`, `cost`,
    /// `total_tokens`, `latency_s` or any numeric column; `none`: off.
    /// report: budget@k and cost_of_pass@k (default: `output_tokens` when
    /// every rollout has it). compare: also budget-matched rows (only when
    /// a field is given).
    #[arg(long, value_name = "FIELD|none")]
    pub budget: Option<Budget>,
}

/// Grading flags shared by `report`, `compare` and `grade`.
#[derive(Args, Debug, Clone)]
pub struct GradingArgs {
    /// How the final answer is extracted from `response` when a row has no
    /// `answer`: `math` (boxed, "final answer is", "answer is", last LaTeX
    /// span, last number), `mcq` (letter A–J), `number`, or `regex:PATTERN`
    /// (first group of the last match).
    #[arg(long, value_name = "math|mcq|number|regex:PATTERN")]
    pub extract: Option<String>,
    /// How answers are compared with `gold` and with each other (for
    /// maj@n): `equivalent` (math equivalence: 0.5 = 1/2 = \frac{1}{2})
    /// or `exact` (trimmed strings).
    #[arg(long = "match", value_name = "equivalent|exact")]
    pub matching: Option<Match>,
}

/// Output formats of `rollstat compare`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Table,
    Json,
    Markdown,
    /// One self-contained HTML page (inline SVG plots and CSS).
    Html,
}

/// Flags of `rollstat compare`.
#[derive(Args, Debug)]
pub struct CompareArgs {
    /// A (baseline) then B (candidate): two canonical inputs, or one input
    /// holding both systems with `--by model`.
    #[arg(required = true, num_args = 1..=2, value_name = "A [B]")]
    pub inputs: Vec<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = CompareFormat::Table)]
    pub format: CompareFormat,
    /// Write the comparison to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// One input: the field that names the systems (`model` or `run`).
    #[arg(long, value_name = "model|run")]
    pub by: Option<String>,
    /// One input: the value of `--by` that is system A (default: the first seen).
    #[arg(long = "a", value_name = "NAME")]
    pub a_name: Option<String>,
    /// One input: the value of `--by` that is system B (default: the second seen).
    #[arg(long = "b", value_name = "NAME")]
    pub b_name: Option<String>,
    /// Two inputs: also compare per value of FIELD (subset, group, any column).
    #[arg(long = "group-by", value_name = "FIELD")]
    pub group_by: Option<String>,
    /// Non-inferiority margin (a fraction: 0.02 = 2 points). B is
    /// non-inferior when the one-sided lower bound of B − A is above −margin.
    #[arg(long)]
    pub margin: Option<f64>,
    /// Exit with code 1 when a checked row is inferior, or (inconclusive)
    /// when a checked row is not shown non-inferior. Needs --margin.
    #[arg(long = "fail-on", value_name = "inferior|inconclusive")]
    pub fail_on: Option<FailOn>,
    /// Metrics that --fail-on checks (default: every overall row with a verdict).
    #[arg(long, value_delimiter = ',', value_name = "METRIC,…")]
    pub metric: Option<Vec<String>>,
    /// The primary metrics: the overall rows Holm and BH adjust over and the
    /// summary line counts, the first one its headline (default: one row per
    /// family at its headline k — pass@1, pass^n, maj@n; a row that is
    /// another row by definition never enters; p_holm/p_bh are – elsewhere).
    #[arg(long, value_delimiter = ',', value_name = "METRIC,…")]
    pub family: Option<Vec<String>>,
    /// Tables print every row (default: the headline set, as `report`
    /// shows it, never a row that is another row by definition; JSON always
    /// holds every row).
    #[arg(long)]
    pub all: bool,
    /// Random sign-flip permutations (the test is exact, enumerating all
    /// 2^m sign patterns, when 2^m ≤ this number).
    #[arg(long)]
    pub permutations: Option<usize>,
    #[command(flatten)]
    pub metrics: MetricArgs,
    #[command(flatten)]
    pub reading: ReadingArgs,
    #[command(flatten)]
    pub uncertainty: UncertaintyArgs,
    #[command(flatten)]
    pub grading: GradingArgs,
}

/// Output formats of `rollstat power`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum PowerFormat {
    Table,
    Json,
}

/// Flags of `rollstat power`.
#[derive(Args, Debug)]
pub struct PowerArgs {
    /// An existing report.json (`rollstat report --format json`): take the
    /// observed per-problem variance (and, for pass@1, its between/within
    /// split), the number of problems and the rollouts per problem from it.
    pub report: Option<String>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = PowerFormat::Table)]
    pub format: PowerFormat,
    /// Write the result to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Problems N (default with a report: its n_problems).
    #[arg(long, value_parser = parse_count)]
    pub problems: Option<f64>,
    /// Rollouts per problem K for both systems (default 1; with a report: its n).
    #[arg(long, value_parser = parse_count)]
    pub rollouts: Option<f64>,
    /// Effect to detect (a fraction: 0.03 = 3 points) → problems needed.
    #[arg(long, value_parser = parse_num)]
    pub delta: Option<f64>,
    /// Two-sided significance level.
    #[arg(long, value_parser = parse_num)]
    pub alpha: Option<f64>,
    /// Target power 1 − β.
    #[arg(long, value_parser = parse_num)]
    pub power: Option<f64>,
    /// Correlation r of the two systems' per-problem scores, as `rollstat
    /// compare` prints it (typically 0.3–0.7 between frontier models); the
    /// rollout noise in it is taken out: ω² = 2·(Var(x) − r·(Var(x) + σ²/K)).
    /// Default 0: no pairing benefit.
    #[arg(long, value_parser = parse_num)]
    pub correlation: Option<f64>,
    /// ω² directly: between-problem variance of the difference of the two
    /// systems' conditional means (overrides --var-between/--baseline/--correlation).
    #[arg(long, value_parser = parse_num)]
    pub omega2: Option<f64>,
    /// Var(x): between-problem variance of one system's conditional mean.
    #[arg(long = "var-between", value_parser = parse_num)]
    pub var_between: Option<f64>,
    /// Baseline accuracy p of a 0/1 score: Var(x) = p(1 − p) − σ².
    #[arg(long, value_parser = parse_num)]
    pub baseline: Option<f64>,
    /// σ²: mean within-problem variance of one rollout's score (default 0).
    #[arg(long, value_parser = parse_num)]
    pub sigma2: Option<f64>,
    /// Multipliers for the rollouts-vs-problems table.
    #[arg(long, value_delimiter = ',', value_parser = parse_num, value_name = "F,…")]
    pub factors: Option<Vec<f64>>,
    /// With a report: only these metrics (default: every fraction metric with a nonzero stderr; what is left out is said).
    #[arg(long, value_delimiter = ',', value_name = "METRIC,…")]
    pub metric: Option<Vec<String>>,
}

/// Parses a number or a fraction `a/b` (e.g. `1/9`).
fn parse_num(s: &str) -> std::result::Result<f64, String> {
    let v = match s.split_once('/') {
        Some((a, b)) => {
            let a: f64 = a
                .trim()
                .parse()
                .map_err(|_| format!("'{s}' is not a number"))?;
            let b: f64 = b
                .trim()
                .parse()
                .map_err(|_| format!("'{s}' is not a number"))?;
            a / b
        }
        None => s
            .trim()
            .parse()
            .map_err(|_| format!("'{s}' is not a number"))?,
    };
    if !v.is_finite() {
        return Err(format!("'{s}' is not a finite number"));
    }
    Ok(v)
}

fn parse_count(s: &str) -> std::result::Result<f64, String> {
    let v = parse_num(s)?;
    if v <= 0.0 {
        return Err(format!("'{s}' must be > 0"));
    }
    Ok(v)
}

/// The engine's default of each flag that has one, by argument id, as
/// `--help` shows it.
fn engine_defaults() -> Vec<(&'static str, String)> {
    let report = ReportOptions::default();
    let compare = CompareOptions::default();
    let power = PowerOptions::default();
    let (m, i) = (&report.metrics, &report.intervals);
    let grading = GradingPolicy::default();
    let list = |xs: &[f64]| xs.iter().map(f64::to_string).collect::<Vec<_>>().join(",");
    vec![
        ("ci", i.method.to_string()),
        ("level", i.level.to_string()),
        ("resamples", i.resamples.to_string()),
        ("seed", i.seed.to_string()),
        ("prior", i.prior.to_string()),
        ("tau", list(&m.tau)),
        ("denominator", m.denominator.to_string()),
        ("tie_policy", m.tie_policy.to_string()),
        ("score_order", m.score_order.to_string()),
        ("extract", grading.extract_name().to_string()),
        ("matching", grading.matching.to_string()),
        ("permutations", compare.permutations.to_string()),
        ("alpha", power.alpha.to_string()),
        ("power", power.power.to_string()),
        ("factors", list(&power.factors)),
    ]
}

/// The command line with each flag's engine default in its help
/// (`[default: bootstrap]`), as clap shows a `default_value`.
pub fn command() -> clap::Command {
    let defaults = engine_defaults();
    Cli::command().mut_subcommands(|sub| {
        let ids: Vec<String> = sub
            .get_arguments()
            .map(|a| a.get_id().to_string())
            .collect();
        defaults
            .iter()
            .filter(|(id, _)| ids.iter().any(|i| i == id))
            .fold(sub, |sub, (id, value)| {
                sub.mut_arg(*id, |arg| {
                    let help = arg.get_help().map(ToString::to_string);
                    let long = arg.get_long_help().map(ToString::to_string);
                    let long = long.or_else(|| help.clone()).unwrap_or_default();
                    arg.help(format!("{} [default: {value}]", help.unwrap_or_default()))
                        .long_help(format!("{long}\n\n[default: {value}]"))
                })
            })
    })
}

/// Flags whose values the engine reads (`rollstat::Choice`s and the budget): a bad
/// value is reported as `--ci: unknown method 'x'; expected …`, the
/// engine's words after the flag, rather than in clap's wording.
const ENGINE_PARSED: [&str; 9] = [
    "--ci",
    "--prior",
    "--denominator",
    "--tie-policy",
    "--score-order",
    "--dedupe",
    "--match",
    "--fail-on",
    "--budget",
];

/// A bad value of a flag the engine parses, in the engine's words after
/// the flag (`--ci: unknown method 'x'; expected …`); None for other
/// errors, which clap words.
pub fn value_error(e: &clap::Error) -> Option<String> {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let Some(ContextValue::String(arg)) = e.get(ContextKind::InvalidArg) else {
        return None;
    };
    let flag = arg.split([' ', '=']).next().unwrap_or(arg);
    let reason = std::error::Error::source(e)?;
    ENGINE_PARSED
        .contains(&flag)
        .then(|| format!("{flag}: {reason}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollstat::Choice;

    /// Every value of a [`Choice`] parses back from its name (what `--help`
    /// and error messages list).
    fn round_trips<T: Choice>() -> bool {
        T::ALL.iter().all(|v| v.to_string().parse::<T>() == Ok(*v))
    }

    #[test]
    fn help_shows_the_engine_defaults() {
        let mut cmd = command();
        let report = cmd
            .find_subcommand_mut("report")
            .expect("report")
            .render_help()
            .to_string();
        for shown in [
            "[default: bootstrap]",
            "[default: 0.95]",
            "[default: 10000]",
            "[default: 20260729]",
            "[default: requested]",
            "[default: first]",
            "[default: descending]",
            "[default: math]",
            "[default: equivalent]",
            "[default: 0.25,0.5,0.75,1]",
        ] {
            assert!(report.contains(shown), "{shown} not in\n{report}");
        }
        let power = cmd
            .find_subcommand_mut("power")
            .expect("power")
            .render_help()
            .to_string();
        for shown in ["[default: 0.05]", "[default: 0.8]", "[default: 2,4,10]"] {
            assert!(power.contains(shown), "{shown} not in\n{power}");
        }
    }

    #[test]
    fn choices_round_trip() {
        assert!(round_trips::<IntervalMethod>());
        assert!(round_trips::<rollstat::BetaPrior>());
        assert!(round_trips::<TiePolicy>());
        assert!(round_trips::<DenominatorPolicy>());
        assert!(round_trips::<ScoreOrder>());
        assert!(round_trips::<Dedupe>());
        assert!(round_trips::<Match>());
        assert!(round_trips::<FailOn>());
    }

    #[test]
    fn bad_values_are_worded_by_the_engine() {
        let e = command()
            .try_get_matches_from(["rollstat", "report", "x", "--ci", "magic"])
            .unwrap_err();
        let text = value_error(&e).expect("an engine-parsed flag");
        assert!(
            text.starts_with("--ci: unknown method 'magic'; expected bootstrap"),
            "{text}"
        );
    }
}
