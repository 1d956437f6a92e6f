//! `rollstat gate`: flags (or a plan file) → the engine's plan → one
//! decision → exit code 0 GO, 1 NO-GO, 3 INCONCLUSIVE (2: bad input).

use crate::args::{GradingArgs, ReadingArgs};
use crate::options::{cli_error, gate_flags_error, plan_error, stderr_sink, InputError};
use anyhow::Result;
use clap::{Args, ValueEnum};
use rollstat::gate::{
    gate, parse_margin, plan_record, sources_from_paths, GateOptions, GatePlan, MarginValue, Paths,
};
use rollstat::{Gate, GateRule, Tier, Weighting};
use std::path::{Path, PathBuf};

/// Output formats of `rollstat gate`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum GateFormat {
    Table,
    Json,
    /// For a pull-request comment.
    Markdown,
    /// One self-contained HTML page (forest plot, flips, flipped problems).
    Html,
}

/// Flags of `rollstat gate`.
#[derive(Args, Debug)]
#[command(after_long_help = EXIT_CODES)]
pub struct GateArgs {
    /// A plan (TOML): the benchmarks with their baseline and candidate
    /// sources, tiers and margins, and the suite-wide settings. Without
    /// one, --baseline and --candidate name the two sides and each subset
    /// (or file) is a benchmark.
    pub plan: Option<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = GateFormat::Table)]
    pub format: GateFormat,
    /// Write the result to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    /// Short form: A's results (files, directories or globs).
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub baseline: Vec<String>,
    /// Short form: B's results, split into benchmarks as A's.
    #[arg(long, num_args = 1.., value_name = "PATH")]
    pub candidate: Vec<String>,
    /// Largest acceptable drop of every benchmark: a fraction (0.01 = 1
    /// point) or points ("1pt").
    #[arg(long, value_name = "FRACTION|Npt")]
    pub margin: Option<String>,
    /// Largest acceptable drop relative to A's value (0.05 = 5% of A); the
    /// smaller margin is used.
    #[arg(long = "relative-margin", value_name = "FRACTION")]
    pub relative_margin: Option<f64>,
    /// The suite's margin on the weighted drop (default: --margin).
    #[arg(long = "suite-margin", value_name = "FRACTION|Npt")]
    pub suite_margin: Option<String>,
    /// The primary metric (pass@1, pass^4, maj@8, any catalogued metric) [default: pass@1].
    #[arg(long)]
    pub metric: Option<String>,
    /// Benchmark weighting of the suite's difference: micro (per problem)
    /// or macro (per benchmark) [default: micro].
    #[arg(long, value_name = "micro|macro")]
    pub weights: Option<String>,
    /// The decision rule: margin (statuses against margins) or detect (any
    /// significant degradation, pooled / Fisher / max-drop at α/3) [default: margin].
    #[arg(long, value_name = "margin|detect")]
    pub rule: Option<String>,
    /// Every benchmark's tier: critical, supporting (both block) or advisory [default: supporting].
    #[arg(long, value_name = "TIER")]
    pub tier: Option<String>,
    /// Significance level: one-sided bounds at 1 − α, each combination test at α/3.
    #[arg(long)]
    pub alpha: Option<f64>,
    /// McNemar's mid-p instead of the exact p.
    #[arg(long = "mid-p")]
    pub mid_p: bool,
    /// Field whose values cluster problems (cluster bootstrap, cluster sign flips).
    #[arg(long = "cluster-by", value_name = "FIELD")]
    pub cluster_by: Option<String>,
    /// Seed of every random procedure.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Bootstrap resamples.
    #[arg(long)]
    pub resamples: Option<usize>,
    /// Random sign-flip and label permutations.
    #[arg(long)]
    pub permutations: Option<usize>,
    /// Flipped problems listed per benchmark [default: 20].
    #[arg(long, value_name = "N")]
    pub flips: Option<usize>,
    #[command(flatten)]
    pub reading: ReadingArgs,
    #[command(flatten)]
    pub grading: GradingArgs,
}

const EXIT_CODES: &str = "Exit codes: 0 GO, 1 NO-GO, 3 INCONCLUSIVE, 2 bad input or usage.

A CI step that gates a release on it:
  - run: rollstat gate gate.toml --format markdown -o gate.md
    # the step fails on NO-GO (1) and INCONCLUSIVE (3)";

fn bad(m: String) -> anyhow::Error {
    InputError(m).into()
}

fn choice<T: std::str::FromStr<Err = String>>(flag: &str, v: &Option<String>) -> Result<Option<T>> {
    v.as_deref()
        .map(|s| s.parse::<T>().map_err(|e| bad(format!("--{flag}: {e}"))))
        .transpose()
}

fn margin(flag: &str, v: &Option<String>) -> Result<Option<MarginValue>> {
    v.as_deref()
        .map(|s| {
            parse_margin(s)
                .map(MarginValue)
                .map_err(|e| bad(format!("--{flag}: {e}")))
        })
        .transpose()
}

/// The suite-wide flags given (a plan file declares these itself).
fn given_settings(a: &GateArgs) -> Vec<&'static str> {
    let flags: [(&str, bool); 18] = [
        ("--margin", a.margin.is_some()),
        ("--relative-margin", a.relative_margin.is_some()),
        ("--suite-margin", a.suite_margin.is_some()),
        ("--metric", a.metric.is_some()),
        ("--weights", a.weights.is_some()),
        ("--rule", a.rule.is_some()),
        ("--tier", a.tier.is_some()),
        ("--alpha", a.alpha.is_some()),
        ("--mid-p", a.mid_p),
        ("--cluster-by", a.cluster_by.is_some()),
        ("--seed", a.seed.is_some()),
        ("--resamples", a.resamples.is_some()),
        ("--permutations", a.permutations.is_some()),
        ("--flips", a.flips.is_some()),
        ("--from", a.reading.from.is_some()),
        ("--map", a.reading.map.is_some()),
        ("--extract", a.grading.extract.is_some()),
        ("--match", a.grading.matching.is_some()),
    ];
    flags.iter().filter(|(_, g)| *g).map(|(f, _)| *f).collect()
}

/// The short form's plan: the flags over the engine's defaults.
fn short_plan(a: &GateArgs) -> Result<GatePlan> {
    let d = GatePlan::default();
    let weights: Option<Weighting> = choice("weights", &a.weights)?;
    if weights == Some(Weighting::Declared) {
        return Err(bad(
            "--weights declared needs a plan file with a weight per benchmark".into(),
        ));
    }
    Ok(GatePlan {
        metric: a.metric.clone().unwrap_or(d.metric),
        weights: weights.unwrap_or(d.weights),
        rule: choice::<GateRule>("rule", &a.rule)?.unwrap_or(d.rule),
        alpha: a.alpha.unwrap_or(d.alpha),
        margin: margin("margin", &a.margin)?,
        relative_margin: a.relative_margin,
        suite_margin: margin("suite-margin", &a.suite_margin)?,
        tier: choice::<Tier>("tier", &a.tier)?.unwrap_or(d.tier),
        mid_p: a.mid_p,
        cluster_by: a.cluster_by.clone(),
        seed: a.seed.unwrap_or(d.seed),
        resamples: a.resamples.unwrap_or(d.resamples),
        permutations: a.permutations.unwrap_or(d.permutations),
        flips_listed: a.flips.unwrap_or(d.flips_listed),
        format: a.reading.from.clone(),
        map: a.reading.map.clone(),
        extract: a.grading.extract.clone(),
        matching: a.grading.matching.map(|m| m.to_string()),
        baseline: Some(Paths(a.baseline.clone())),
        candidate: Some(Paths(a.candidate.clone())),
        benchmarks: Vec::new(),
    })
}

/// A short-form plan's error, naming the flag of the plan key at fault.
fn short_form_error(e: rollstat::Error) -> anyhow::Error {
    match e {
        rollstat::Error::InvalidOption { option, message } => {
            let flag = match option.0 {
                "format" => "from".to_string(),
                "flips_listed" => "flips".to_string(),
                "matching" => "match".to_string(),
                key => key.replace('_', "-"),
            };
            bad(format!("--{flag}: {message}"))
        }
        other => cli_error(other),
    }
}

/// The plan, its record and the directory its relative paths start from.
fn plan(a: &GateArgs) -> Result<(GatePlan, rollstat::gate::PlanRecord, PathBuf)> {
    let short = !a.baseline.is_empty() || !a.candidate.is_empty();
    match (&a.plan, short) {
        (Some(_), true) => Err(bad(
            "give a plan file or --baseline/--candidate, not both".into(),
        )),
        (Some(path), false) => {
            let given = given_settings(a);
            if !given.is_empty() {
                return Err(bad(format!(
                    "{}: the plan declares the analysis; set {} in the plan (flags would change it after the fact)",
                    path.display(),
                    given.join(", ")
                )));
            }
            let text = std::fs::read_to_string(path)
                .map_err(|e| bad(format!("{}: {e}", path.display())))?;
            let name = path.display().to_string();
            let p = GatePlan::from_toml(&text, &name).map_err(cli_error)?;
            let base = path.parent().map_or_else(|| PathBuf::from("."), Path::to_path_buf);
            Ok((p, plan_record(&name, &text), base))
        }
        (None, true) => {
            if a.baseline.is_empty() || a.candidate.is_empty() {
                return Err(bad("the short form needs both --baseline and --candidate".into()));
            }
            let p = short_plan(a)?;
            p.validate().map_err(short_form_error)?;
            let text = p.to_toml();
            Ok((p, plan_record("command line", &text), PathBuf::from(".")))
        }
        (None, false) => Err(bad(
            "give a plan file (rollstat gate gate.toml) or --baseline DIR --candidate DIR --margin 0.01".into(),
        )),
    }
}

/// Runs the gate; the exit code follows its verdict.
pub fn run(a: &GateArgs) -> Result<(Gate, i32)> {
    let (p, record, base) = plan(a)?;
    let sources = sources_from_paths(&p, &base).map_err(cli_error)?;
    // Grading is in the plan (flags are merged into the short form's).
    let opts = GateOptions {
        grading: rollstat::GradingPolicy::default(),
        messages: Some(stderr_sink()),
    };
    // A plan file declares the reading: its keys are what to change.
    let worded = if a.plan.is_some() {
        plan_error
    } else {
        gate_flags_error
    };
    let g = gate(&p, record, sources, &opts).map_err(worded)?;
    let code = g.exit_code();
    Ok((g, code))
}
