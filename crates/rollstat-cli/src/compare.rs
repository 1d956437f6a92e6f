//! `rollstat compare A B`: paired comparison of two systems on the same
//! problems (SPEC §7, schema `rollstat.compare/1`).
//!
//! read both sides → pair problems by id → the report's metric columns on
//! the matched problems → per-problem differences `d = b − a` → one
//! bootstrap over all difference columns (the same resampled problems, or
//! clusters, for every metric and both sides) → paired SE, correlation,
//! sign-flip p, McNemar where each problem has one 0/1 outcome per side →
//! Holm and BH over every row of the call → non-inferiority verdicts from
//! one-sided bounds → table, Markdown or JSON. The conventions are written
//! up in `docs/compare.md`.

use crate::args::{OutputFormat, ReportArgs, UncertaintyArgs};
use crate::pipeline::{read_inputs, InputError, Settings};
use crate::uncertainty::{cluster_ids, IntervalMethod};
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rayon::prelude::*;
use rollstat_core::aggregate::{default_ks, metric_set, ColumnBuilder, Metric, MetricColumn};
use rollstat_core::report::InputInfo;
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemSummary};
use rollstat_core::vote::{ExactClusterer, TiePolicy};
use rollstat_io::CollectedProblem;
use rollstat_stats::{
    adjust_p_values, bootstrap_means, cluster_bootstrap_means, clustered_se, dist, mcnemar,
    method_warnings, non_inferiority_verdict, rng, sign_flip, BootstrapConfig, BootstrapReport,
    CiMethod, Interval, MethodContext, PAdjust, Verdict,
};
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::PathBuf;

/// JSON schema name of the compare output.
pub const COMPARE_SCHEMA: &str = "rollstat.compare/1";

/// Output formats of `rollstat compare`.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum CompareFormat {
    Table,
    Json,
    Markdown,
}

/// Which verdict makes `--fail-on` exit with code 1.
#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailOn {
    /// Fail when a checked row is `inferior`.
    Inferior,
    /// Fail unless every checked row is `non-inferior`.
    Inconclusive,
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
    #[arg(long = "fail-on", value_enum)]
    pub fail_on: Option<FailOn>,
    /// Metrics that --fail-on checks (default: every overall row with a verdict).
    #[arg(long, value_delimiter = ',', value_name = "METRIC,…")]
    pub metric: Option<Vec<String>>,
    /// Random sign-flip permutations (the test is exact, enumerating all
    /// 2^m sign patterns, when 2^m ≤ this number).
    #[arg(long, default_value_t = 10_000)]
    pub permutations: usize,
    #[command(flatten)]
    pub metrics: crate::args::MetricArgs,
    #[command(flatten)]
    pub uncertainty: UncertaintyArgs,
    #[command(flatten)]
    pub grading: crate::grading::GradingArgs,
}

fn usage(msg: impl Into<String>) -> anyhow::Error {
    InputError(msg.into()).into()
}

/// Runs the comparison; returns the text for stdout (empty when `-o` wrote
/// a file) and the exit code (1 when a `--fail-on` check failed).
pub fn run(a: &CompareArgs) -> Result<(String, i32)> {
    let cmp = compare(a)?;
    let text = match a.format {
        CompareFormat::Json => {
            let mut s = serde_json::to_string_pretty(&cmp).expect("compare serializes");
            s.push('\n');
            s
        }
        CompareFormat::Table => render_text(&cmp, false),
        CompareFormat::Markdown => render_text(&cmp, true),
    };
    let code = i32::from(cmp.fail.as_ref().is_some_and(|f| f.failed));
    match &a.output {
        Some(p) => {
            std::fs::write(p, &text)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            Ok((String::new(), code))
        }
        None => Ok((text, code)),
    }
}

// ---------------------------------------------------------------- output types

/// The `rollstat.compare/1` document.
#[derive(Serialize, Debug)]
pub struct Comparison {
    pub schema: &'static str,
    pub version: &'static str,
    pub margin: Option<f64>,
    pub level: f64,
    pub pairs: Pairs,
    pub rows: Vec<Row>,
    pub a: Side,
    pub b: Side,
    pub config: CompareConfig,
    /// Metric → why no row could be computed.
    pub not_computable: Vec<NotComputable>,
    pub fail: Option<FailCheck>,
    pub warnings: Vec<String>,
}

#[derive(Serialize, Debug)]
pub struct Pairs {
    pub matched: u64,
    pub only_a: u64,
    pub only_b: u64,
}

/// One compared system.
#[derive(Serialize, Debug)]
pub struct Side {
    pub name: String,
    pub inputs: Vec<InputInfo>,
    /// Problems read for this side (matched or not).
    pub n_problems: u64,
}

#[derive(Serialize, Debug)]
pub struct NotComputable {
    pub metric: String,
    pub group: Option<String>,
    pub reason: String,
}

/// Settings behind the numbers.
#[derive(Serialize, Debug)]
pub struct CompareConfig {
    pub method: String,
    pub level: f64,
    pub resamples: Option<u64>,
    pub seed: u64,
    pub rng: &'static str,
    pub permutations: u64,
    pub cluster_by: Option<String>,
    pub n: u64,
    pub n_source: String,
    pub k: Vec<u64>,
    pub tau: Vec<f64>,
    pub tie_policy: TiePolicy,
    pub denominator_policy: DenominatorPolicy,
    pub by: Option<String>,
    pub group_by: Option<String>,
    /// Level of the one-sided bounds the verdicts use.
    pub verdict_level: Option<f64>,
    pub p_adjust: &'static str,
}

/// The `--fail-on` check.
#[derive(Serialize, Debug)]
pub struct FailCheck {
    pub on: &'static str,
    pub metrics: Option<Vec<String>>,
    pub failed: bool,
    /// Checked rows that hit the condition.
    pub rows: Vec<String>,
}

#[derive(Serialize, Debug, Clone, Copy)]
pub struct Discordant {
    pub a_only: u64,
    pub b_only: u64,
}

/// One metric (overall, or within one group): SPEC §7 keys first.
#[derive(Serialize, Debug, Clone)]
pub struct Row {
    pub metric: String,
    pub group: Option<String>,
    pub a: f64,
    pub b: f64,
    /// B − A.
    pub delta: f64,
    /// Paired SE of delta (CR1 with --cluster-by).
    pub stderr: Option<f64>,
    pub ci: Option<[f64; 2]>,
    pub correlation: Option<f64>,
    /// Two-sided sign-flip permutation p.
    pub p_value: Option<f64>,
    pub p_holm: Option<f64>,
    pub p_bh: Option<f64>,
    pub mcnemar_p: Option<f64>,
    pub verdict: Option<&'static str>,
    /// Problems in this row (both sides defined).
    pub n_problems: u64,
    /// sqrt(SE_a² + SE_b²): what the SE would be ignoring the pairing.
    pub stderr_unpaired: Option<f64>,
    /// Whether `p_value` enumerated every sign pattern.
    pub p_exact: Option<bool>,
    pub mcnemar: Option<Discordant>,
    /// One-sided lower and upper bounds of delta at `config.verdict_level`.
    pub bounds: Option<[f64; 2]>,
    /// The verdict in words.
    pub decision: Option<String>,
}

// ---------------------------------------------------------------- reading

struct SideData {
    name: String,
    inputs: Vec<InputInfo>,
    problems: Vec<CollectedProblem>,
    n_bad_lines: usize,
}

fn settings(a: &CompareArgs, by: Option<String>) -> Result<Settings> {
    let ra = ReportArgs {
        inputs: a.inputs.clone(),
        from: None,
        format: OutputFormat::Json,
        output: None,
        metrics: a.metrics.clone(),
        by,
        per_problem: false,
        uncertainty: a.uncertainty.clone(),
        grading: a.grading.clone(),
    };
    Settings::from_args(&ra)
}

fn read_sides(a: &CompareArgs, s: &Settings) -> Result<(SideData, SideData)> {
    if a.inputs.len() == 2 {
        let mut out = Vec::new();
        for (label, path) in ["A", "B"].iter().zip(&a.inputs) {
            let c = read_inputs(std::slice::from_ref(path), &s.read)
                .with_context(|| format!("reading {label} ({path})"))?;
            if c.systems.len() > 1 {
                return Err(usage(format!(
                    "{label} ({path}) holds {} systems ({}); give one system per file, or one file with --by model --a NAME --b NAME",
                    c.systems.len(),
                    c.systems.join(", ")
                )));
            }
            let name = match c.systems.first() {
                Some(sys) => format!("{path} ({sys})"),
                None => path.clone(),
            };
            out.push(SideData {
                name,
                inputs: c.inputs,
                problems: c.problems,
                n_bad_lines: c.bad_lines.len(),
            });
        }
        let b = out.pop().expect("two sides");
        let a = out.pop().expect("two sides");
        return Ok((a, b));
    }
    let field = s.read.by.clone().expect("checked by caller");
    let c = read_inputs(&a.inputs, &s.read).context("reading input")?;
    let mut values: Vec<String> = Vec::new();
    for p in &c.problems {
        if let Some(v) = &p.by_value {
            if !values.contains(v) {
                values.push(v.clone());
            }
        }
    }
    let pick = |given: &Option<String>, idx: usize, other: Option<&String>| -> Result<String> {
        if let Some(g) = given {
            if !values.contains(g) {
                return Err(usage(format!(
                    "--{}: no rows have {field} = '{g}' (values seen: {})",
                    if idx == 0 { "a" } else { "b" },
                    values.join(", ")
                )));
            }
            return Ok(g.clone());
        }
        let rest: Vec<&String> = values.iter().filter(|v| Some(*v) != other).collect();
        if values.len() == 2 {
            return Ok(values[idx].clone());
        }
        match (values.len(), rest.len()) {
            (n, 1) if n == 2 || other.is_some() => Ok(rest[0].clone()),
            _ => Err(usage(format!(
                "the input holds {} values of {field} ({}); name the two systems with --a NAME --b NAME",
                values.len(),
                values.join(", ")
            ))),
        }
    };
    let an = pick(&a.a_name, 0, a.b_name.as_ref())?;
    let bn = pick(&a.b_name, 1, Some(&an))?;
    if an == bn {
        return Err(usage(format!("--a and --b both name '{an}'")));
    }
    let side = |name: &str| SideData {
        name: format!("{field} = {name}"),
        inputs: c.inputs.clone(),
        problems: c
            .problems
            .iter()
            .filter(|p| p.by_value.as_deref() == Some(name))
            .cloned()
            .collect(),
        n_bad_lines: c.bad_lines.len(),
    };
    Ok((side(&an), side(&bn)))
}

/// Index of each problem id on one side; a repeated id is an error.
fn index(side: &SideData, label: &str) -> Result<HashMap<String, usize>> {
    let mut map = HashMap::new();
    for (i, p) in side.problems.iter().enumerate() {
        if let Some(j) = map.insert(p.problem.clone(), i) {
            let first = &side.problems[j];
            return Err(usage(format!(
                "{label}: problem '{}' appears twice (at {} as system {:?}, at {} as system {:?}); one side must hold one system — pass --by run, or split the input",
                p.problem, first.origin, first.system, p.origin, p.system
            )));
        }
    }
    Ok(map)
}

fn name_some(ids: &[&str]) -> String {
    let shown: Vec<String> = ids.iter().take(5).map(|s| format!("'{s}'")).collect();
    if ids.len() > 5 {
        format!("{}, … ({} in all)", shown.join(", "), ids.len())
    } else {
        shown.join(", ")
    }
}

// ---------------------------------------------------------------- statistics

/// What the intervals and verdicts are computed with.
#[derive(Clone, Copy)]
struct Plan {
    method: Option<CiMethod>,
    level: f64,
    margin: Option<f64>,
    boot: BootstrapConfig,
    permutations: usize,
}

fn mean_sd(v: &[f64]) -> (f64, Option<f64>) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let sd = (v.len() >= 2)
        .then(|| (v.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0)).sqrt());
    (mean, sd)
}

fn pearson(x: &[f64], y: &[f64]) -> Option<f64> {
    Some(rollstat_stats::pearson(x, y)).filter(|r| r.is_finite())
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

fn finite_pair(i: Interval) -> Option<[f64; 2]> {
    (i.lower.is_finite() && i.upper.is_finite()).then_some([i.lower, i.upper])
}

/// SE of the mean of `v` (CR1 when clustered) and the t degrees of freedom.
fn se_of(v: &[f64], clusters: Option<&[u64]>) -> (Option<f64>, f64) {
    match clusters {
        Some(cl) => match clustered_se(v, cl) {
            Ok(c) => (finite(c.se_cr1), c.clusters as f64 - 1.0),
            Err(_) => (None, f64::NAN),
        },
        None => (
            mean_sd(v).1.map(|sd| sd / (v.len() as f64).sqrt()),
            v.len() as f64 - 1.0,
        ),
    }
}

struct Population<'a> {
    group: Option<String>,
    a: Vec<&'a ProblemSummary>,
    b: Vec<&'a ProblemSummary>,
    clusters: Option<Vec<u64>>,
}

fn reason_of(col: &MetricColumn) -> String {
    col.excluded
        .iter()
        .max_by_key(|(_, c)| *c)
        .map(|(e, _)| e.to_string())
        .unwrap_or_else(|| "no problems".into())
}

fn rows_for(
    pop: &Population,
    metrics: &[Metric],
    tie: TiePolicy,
    plan: &Plan,
) -> (Vec<Row>, Vec<NotComputable>) {
    let sa: Vec<ProblemSummary> = pop.a.iter().map(|p| (*p).clone()).collect();
    let sb: Vec<ProblemSummary> = pop.b.iter().map(|p| (*p).clone()).collect();
    let (ba, bb) = (ColumnBuilder::new(&sa, tie), ColumnBuilder::new(&sb, tie));
    let cols: Vec<(MetricColumn, MetricColumn)> = metrics
        .par_iter()
        .map(|m| (ba.build(m.clone()), bb.build(m.clone())))
        .collect();
    let diffs: Vec<Vec<f64>> = cols
        .iter()
        .map(|(ca, cb)| {
            ca.values
                .iter()
                .zip(&cb.values)
                .map(|(x, y)| y - x)
                .collect()
        })
        .collect();
    let usable: Vec<usize> = (0..metrics.len())
        .filter(|&m| diffs[m].iter().filter(|v| !v.is_nan()).count() >= 2)
        .collect();
    // One bootstrap for every difference column: the same resampled
    // problems (or clusters) for all metrics and both sides.
    let boot: Option<BootstrapReport> = match plan.method {
        Some(m) if m != CiMethod::T && !usable.is_empty() => {
            let slices: Vec<&[f64]> = usable.iter().map(|&m| diffs[m].as_slice()).collect();
            match &pop.clusters {
                Some(cl) => cluster_bootstrap_means(&slices, cl, &plan.boot).ok(),
                None => bootstrap_means(&slices, &plan.boot).ok(),
            }
        }
        _ => None,
    };
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for (mi, metric) in metrics.iter().enumerate() {
        let (ca, cb) = &cols[mi];
        let keep: Vec<usize> = (0..sa.len()).filter(|&i| !diffs[mi][i].is_nan()).collect();
        if keep.is_empty() {
            let (col, side) = if ca.values.iter().all(|v| v.is_nan()) {
                (ca, "A")
            } else {
                (cb, "B")
            };
            missing.push(NotComputable {
                metric: metric.to_string(),
                group: pop.group.clone(),
                reason: format!(
                    "no problem has a value on both sides ({side}: {})",
                    reason_of(col)
                ),
            });
            continue;
        }
        let va: Vec<f64> = keep.iter().map(|&i| ca.values[i]).collect();
        let vb: Vec<f64> = keep.iter().map(|&i| cb.values[i]).collect();
        let d: Vec<f64> = keep.iter().map(|&i| diffs[mi][i]).collect();
        let cl: Option<Vec<u64>> = pop
            .clusters
            .as_ref()
            .map(|c| keep.iter().map(|&i| c[i]).collect());
        let (mean_a, _) = mean_sd(&va);
        let (mean_b, _) = mean_sd(&vb);
        let (delta, _) = mean_sd(&d);
        let n = d.len();
        let (se, df) = se_of(&d, cl.as_deref());
        let se = if n >= 2 { se } else { None };
        let se_unpaired = match (se_of(&va, cl.as_deref()).0, se_of(&vb, cl.as_deref()).0) {
            (Some(x), Some(y)) if n >= 2 => Some((x * x + y * y).sqrt()),
            _ => None,
        };
        let flip = (n >= 2)
            .then(|| {
                let units: Vec<f64> = match &cl {
                    Some(c) => {
                        let mut dense: HashMap<u64, usize> = HashMap::new();
                        let mut sums: Vec<f64> = Vec::new();
                        for (v, id) in d.iter().zip(c) {
                            let k = *dense.entry(*id).or_insert_with(|| {
                                sums.push(0.0);
                                sums.len() - 1
                            });
                            sums[k] += v;
                        }
                        sums
                    }
                    None => d.clone(),
                };
                sign_flip(&units, plan.permutations, plan.boot.seed).ok()
            })
            .flatten();
        let binary = va.iter().chain(&vb).all(|&v| v == 0.0 || v == 1.0);
        let mc = binary.then(|| {
            let a_only = va
                .iter()
                .zip(&vb)
                .filter(|(x, y)| **x == 1.0 && **y == 0.0)
                .count();
            let b_only = va
                .iter()
                .zip(&vb)
                .filter(|(x, y)| **x == 0.0 && **y == 1.0)
                .count();
            mcnemar(a_only as u64, b_only as u64)
        });
        let (ci, bounds) = match plan.method {
            None => (None, None),
            Some(CiMethod::T) => match se {
                Some(se) if df >= 1.0 => {
                    let q = dist::t_quantile(1.0 - (1.0 - plan.level) / 2.0, df);
                    let q1 = dist::t_quantile(plan.level, df);
                    (
                        Some([delta - q * se, delta + q * se]),
                        Some([delta - q1 * se, delta + q1 * se]),
                    )
                }
                _ => (None, None),
            },
            Some(m) => {
                let col = usable
                    .iter()
                    .position(|&u| u == mi)
                    .and_then(|j| boot.as_ref().map(|b| &b.columns[j]));
                match col {
                    Some(c) => (
                        finite_pair(c.interval(m)),
                        c.one_sided_bounds(m, plan.level).ok().and_then(finite_pair),
                    ),
                    None => (None, None),
                }
            }
        };
        rows.push(Row {
            metric: metric.to_string(),
            group: pop.group.clone(),
            a: mean_a,
            b: mean_b,
            delta,
            stderr: se,
            ci,
            correlation: pearson(&va, &vb),
            p_value: flip.map(|f| f.p),
            p_holm: None,
            p_bh: None,
            mcnemar_p: mc.map(|m| m.p_exact),
            verdict: None,
            n_problems: n as u64,
            stderr_unpaired: se_unpaired,
            p_exact: flip.map(|f| f.exact),
            mcnemar: mc.map(|m| Discordant {
                a_only: m.a_only,
                b_only: m.b_only,
            }),
            bounds: plan.margin.and(bounds),
            decision: None,
        });
    }
    (rows, missing)
}

/// Whether a metric is a correctness score that can be non-inferior.
fn has_verdict(metric: &str) -> bool {
    metric != "self_consistency"
}

fn pts(x: f64) -> String {
    format!("{:+.2} pts", 100.0 * x)
}

fn decide(row: &mut Row, margin: f64, level: f64) {
    if !has_verdict(&row.metric) {
        return;
    }
    let lvl = format!("{}%", trim_float(100.0 * level));
    let m = format!("{:.2}", -100.0 * margin);
    let Some([lo, hi]) = row.bounds else {
        row.verdict = Some(Verdict::Inconclusive.name());
        row.decision = Some(format!(
            "B − A = {}, no {lvl} one-sided bounds (too few problems or a degenerate resampling distribution) → inconclusive",
            pts(row.delta)
        ));
        return;
    };
    let v = non_inferiority_verdict(
        Interval {
            lower: lo,
            upper: hi,
        },
        margin,
    )
    .unwrap_or(Verdict::Inconclusive);
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut text = format!(
        "B − A = {}, {lvl} one-sided lower bound {} > {m}? {}",
        pts(row.delta),
        pts(lo),
        yes(lo > -margin)
    );
    if lo <= -margin {
        let _ = write!(
            text,
            "; upper bound {} < {m}? {}",
            pts(hi),
            yes(hi < -margin)
        );
    }
    let _ = write!(text, " → {}", v.name());
    row.verdict = Some(v.name());
    row.decision = Some(text);
}

fn trim_float(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

// ---------------------------------------------------------------- the command

fn compare(a: &CompareArgs) -> Result<Comparison> {
    let one_input = a.inputs.len() == 1;
    if one_input {
        match a.by.as_deref() {
            Some("model" | "run") => {}
            Some(other) => {
                return Err(usage(format!(
                    "--by {other}: systems in one input are told apart by `model` or `run` (rows that differ only in another field would merge into one problem)"
                )))
            }
            None => {
                return Err(usage(
                    "one input: pass --by model (or --by run) to say which field holds the two systems, or give two inputs A B",
                ))
            }
        }
        if a.group_by.is_some() {
            return Err(usage(
                "--group-by needs two inputs (with one input, --by already reads the system field)",
            ));
        }
    } else {
        if a.by.is_some() {
            return Err(usage(
                "--by picks two systems out of one input; with two inputs use --group-by FIELD for per-group rows",
            ));
        }
        if a.a_name.is_some() || a.b_name.is_some() {
            return Err(usage("--a/--b name systems of one input (with --by model)"));
        }
    }
    if let Some(m) = a.margin {
        if !(m > 0.0 && m < 1.0) {
            return Err(usage(format!(
                "--margin: {m} is not in (0, 1) (a fraction: 0.02 = 2 points)"
            )));
        }
    }
    if a.fail_on.is_some() && a.margin.is_none() {
        return Err(usage("--fail-on needs --margin"));
    }
    if a.permutations == 0 {
        return Err(usage("--permutations: need at least 1"));
    }
    let by = if one_input {
        a.by.clone()
    } else {
        a.group_by.clone()
    };
    let s = settings(a, by)?;
    let u = &s.uncertainty;
    let method = match u.method {
        IntervalMethod::None => None,
        IntervalMethod::Resampled(m) => Some(m),
        IntervalMethod::Binomial(b) => {
            return Err(usage(format!(
                "--ci {}: binomial intervals are for one proportion; a paired difference needs bootstrap, bca, basic or t",
                b.name()
            )))
        }
    };
    if a.margin.is_some() {
        if method.is_none() {
            return Err(usage("--margin needs an interval; drop --ci none"));
        }
        if u.level <= 0.5 {
            return Err(usage(
                "--level: the verdict uses one-sided bounds at --level, which must exceed 0.5",
            ));
        }
    }

    let (side_a, side_b) = read_sides(a, &s)?;
    let ia = index(&side_a, "A")?;
    let ib = index(&side_b, "B")?;
    let matched: Vec<(usize, usize)> = side_a
        .problems
        .iter()
        .enumerate()
        .filter_map(|(i, p)| ib.get(&p.problem).map(|&j| (i, j)))
        .collect();
    let only_a: Vec<&str> = side_a
        .problems
        .iter()
        .filter(|p| !ib.contains_key(&p.problem))
        .map(|p| p.problem.as_str())
        .collect();
    let only_b: Vec<&str> = side_b
        .problems
        .iter()
        .filter(|p| !ia.contains_key(&p.problem))
        .map(|p| p.problem.as_str())
        .collect();
    if matched.is_empty() {
        return Err(usage(format!(
            "no problem appears in both A ({}) and B ({}); compare pairs problems by their `problem` id",
            side_a.name, side_b.name
        )));
    }

    let summarize_side = |side: &SideData, idx: Vec<usize>| -> Vec<ProblemSummary> {
        idx.par_iter()
            .map(|&i| {
                summarize(
                    side.problems[i].data.clone(),
                    s.denominator,
                    &ExactClusterer,
                )
            })
            .collect()
    };
    let sum_a = summarize_side(&side_a, matched.iter().map(|m| m.0).collect());
    let sum_b = summarize_side(&side_b, matched.iter().map(|m| m.1).collect());
    let max_a = sum_a.iter().map(|p| p.n_arrived).max().unwrap_or(0);
    let max_b = sum_b.iter().map(|p| p.n_arrived).max().unwrap_or(0);
    let (n_req, n_source) = match s.n {
        Some(n) => (n, "--n".to_string()),
        None => (max_a.max(max_b), "largest n seen".to_string()),
    };
    if s.read.strict {
        for (label, side, sums, pick) in [
            ("A", &side_a, &sum_a, 0usize),
            ("B", &side_b, &sum_b, 1usize),
        ] {
            if let Some((k, sm)) = sums.iter().enumerate().find(|(_, sm)| sm.n_arrived < n_req) {
                let i = if pick == 0 {
                    matched[k].0
                } else {
                    matched[k].1
                };
                let p = &side.problems[i];
                return Err(usage(format!(
                    "{label}: {}: problem '{}' has {} rollouts, {} requested (strict mode rejects short problems)",
                    p.origin, p.problem, sm.n_arrived, n_req
                )));
            }
        }
    }
    let ks = s.ks.clone().unwrap_or_else(|| default_ks(n_req));
    let metrics: Vec<Metric> = metric_set(&ks, &s.taus, n_req)
        .into_iter()
        .filter(|m| *m != Metric::DistinctAnswers)
        .collect();
    if let Some(names) = &a.metric {
        let known: Vec<String> = metrics.iter().map(|m| m.to_string()).collect();
        for n in names {
            if !known.contains(n) {
                return Err(usage(format!(
                    "--metric: no row named '{n}' (rows: {})",
                    known.join(", ")
                )));
            }
        }
    }

    let mut warnings = Vec::new();
    let clusters: Option<Vec<u64>> = u.cluster_by.as_ref().map(|_| {
        let vals: Vec<Option<&str>> = matched
            .iter()
            .map(|&(i, j)| {
                side_a.problems[i]
                    .cluster_value
                    .as_deref()
                    .or(side_b.problems[j].cluster_value.as_deref())
            })
            .collect();
        cluster_ids(&vals)
    });
    if let Some(field) = &u.cluster_by {
        let differ = matched
            .iter()
            .filter(|&&(i, j)| {
                let (x, y) = (
                    &side_a.problems[i].cluster_value,
                    &side_b.problems[j].cluster_value,
                );
                x.is_some() && y.is_some() && x != y
            })
            .count();
        if differ > 0 {
            warnings.push(format!(
                "{differ} matched problems have a different {field} in A and B; A's value was used"
            ));
        }
    }

    let plan = Plan {
        method,
        level: u.level,
        margin: a.margin,
        boot: BootstrapConfig {
            resamples: u.resamples,
            level: u.level,
            seed: u.seed,
        },
        permutations: a.permutations,
    };
    let overall = Population {
        group: None,
        a: sum_a.iter().collect(),
        b: sum_b.iter().collect(),
        clusters: clusters.clone(),
    };
    let (mut rows, mut not_computable) = rows_for(&overall, &metrics, s.tie, &plan);
    if a.group_by.is_some() {
        let gname = |k: usize| {
            side_a.problems[matched[k].0]
                .by_value
                .clone()
                .unwrap_or_else(|| "(none)".into())
        };
        let mut names: Vec<String> = Vec::new();
        for k in 0..matched.len() {
            let g = gname(k);
            if !names.contains(&g) {
                names.push(g);
            }
        }
        let differ = matched
            .iter()
            .filter(|&&(i, j)| side_a.problems[i].by_value != side_b.problems[j].by_value)
            .count();
        if differ > 0 {
            warnings.push(format!(
                "{differ} matched problems have a different {} in A and B; A's value was used",
                a.group_by.as_deref().unwrap_or("")
            ));
        }
        for g in names {
            let members: Vec<usize> = (0..matched.len()).filter(|&k| gname(k) == g).collect();
            let pop = Population {
                group: Some(g),
                a: members.iter().map(|&k| &sum_a[k]).collect(),
                b: members.iter().map(|&k| &sum_b[k]).collect(),
                clusters: clusters
                    .as_ref()
                    .map(|c| members.iter().map(|&k| c[k]).collect()),
            };
            let (r, nc) = rows_for(&pop, &metrics, s.tie, &plan);
            rows.extend(r);
            not_computable.extend(nc);
        }
    }

    // Holm and BH over every row of this call that has a p-value.
    let with_p: Vec<usize> = (0..rows.len())
        .filter(|&i| rows[i].p_value.is_some())
        .collect();
    let ps: Vec<f64> = with_p
        .iter()
        .map(|&i| rows[i].p_value.expect("filtered"))
        .collect();
    let holm = adjust_p_values(&ps, PAdjust::Holm).expect("p in [0, 1]");
    let bh = adjust_p_values(&ps, PAdjust::BenjaminiHochberg).expect("p in [0, 1]");
    for (k, &i) in with_p.iter().enumerate() {
        rows[i].p_holm = Some(holm[k]);
        rows[i].p_bh = Some(bh[k]);
    }
    if let Some(m) = a.margin {
        for r in &mut rows {
            decide(r, m, u.level);
        }
    }

    let fail = a.fail_on.map(|on| {
        let hit: Vec<String> = rows
            .iter()
            .filter(|r| r.group.is_none() && r.verdict.is_some())
            .filter(|r| a.metric.as_ref().is_none_or(|ms| ms.contains(&r.metric)))
            .filter(|r| match on {
                FailOn::Inferior => r.verdict == Some(Verdict::Inferior.name()),
                FailOn::Inconclusive => r.verdict != Some(Verdict::NonInferior.name()),
            })
            .map(|r| r.metric.clone())
            .collect();
        FailCheck {
            on: match on {
                FailOn::Inferior => "inferior",
                FailOn::Inconclusive => "inconclusive",
            },
            metrics: a.metric.clone(),
            failed: !hit.is_empty(),
            rows: hit,
        }
    });
    if let Some(names) = &a.metric {
        for n in names {
            if !rows.iter().any(|r| r.group.is_none() && &r.metric == n) {
                warnings.push(format!(
                    "--metric {n}: no row could be computed, so --fail-on does not check it"
                ));
            }
        }
    }

    // Warnings in words.
    if !only_a.is_empty() || !only_b.is_empty() {
        let mut parts = Vec::new();
        if !only_a.is_empty() {
            parts.push(format!(
                "{} only in A ({})",
                only_a.len(),
                name_some(&only_a)
            ));
        }
        if !only_b.is_empty() {
            parts.push(format!(
                "{} only in B ({})",
                only_b.len(),
                name_some(&only_b)
            ));
        }
        warnings.insert(
            0,
            format!(
                "unpaired problems are left out: {}; every row is over the {} problems both sides have",
                parts.join(", "),
                matched.len()
            ),
        );
    }
    if max_a != max_b {
        warnings.push(format!(
            "A has up to {max_a} rollouts per problem and B up to {max_b}; a metric whose k exceeds a problem's n excludes that problem on both sides (compare at equal n with --k)"
        ));
    }
    for (label, sums) in [("A", &sum_a), ("B", &sum_b)] {
        let short = sums.iter().filter(|p| p.n_arrived < n_req).count();
        if short > 0 {
            warnings.push(format!(
                "{label}: {short} matched problems have fewer than {n_req} rollouts (short); they drop out of metrics whose k exceeds their n"
            ));
        }
    }
    let bad = if one_input {
        side_a.n_bad_lines
    } else {
        side_a.n_bad_lines + side_b.n_bad_lines
    };
    if bad > 0 {
        warnings.push(format!(
            "{bad} malformed rows were skipped (named on stderr); --strict makes them an error"
        ));
    }
    for nc in not_computable.iter().filter(|n| n.group.is_none()) {
        warnings.push(format!("{} is not compared: {}", nc.metric, nc.reason));
    }
    if let Some(m) = method {
        let first = rows.iter().find(|r| r.group.is_none());
        let ctx = MethodContext {
            method: m,
            n: first.map_or(0, |r| r.n_problems as usize),
            clusters: clusters.as_ref().map(|c| {
                let mut ids = c.clone();
                ids.sort_unstable();
                ids.dedup();
                ids.len()
            }),
            binary: first.is_some_and(|r| r.mcnemar.is_some()),
            resamples: u.resamples,
        };
        for w in method_warnings(&ctx) {
            warnings.push(match w.suggestion {
                Some(s) => format!("{} (consider --ci {s})", w.message),
                None => w.message,
            });
        }
    }

    let method_name = match (method, &u.cluster_by) {
        (None, _) => "none".to_string(),
        (Some(CiMethod::T), Some(_)) => "t (CR1, C−1 df)".into(),
        (Some(CiMethod::T), None) => "t".into(),
        (Some(m), cl) => {
            let base = if m == CiMethod::Percentile {
                "bootstrap"
            } else {
                m.name()
            };
            if cl.is_some() {
                format!("cluster-{base}")
            } else {
                base.to_string()
            }
        }
    };
    let resampled = matches!(method, Some(m) if m != CiMethod::T);
    Ok(Comparison {
        schema: COMPARE_SCHEMA,
        version: env!("CARGO_PKG_VERSION"),
        margin: a.margin,
        level: u.level,
        pairs: Pairs {
            matched: matched.len() as u64,
            only_a: only_a.len() as u64,
            only_b: only_b.len() as u64,
        },
        rows,
        a: Side {
            name: side_a.name.clone(),
            inputs: side_a.inputs.clone(),
            n_problems: side_a.problems.len() as u64,
        },
        b: Side {
            name: side_b.name.clone(),
            inputs: side_b.inputs.clone(),
            n_problems: side_b.problems.len() as u64,
        },
        config: CompareConfig {
            method: method_name,
            level: u.level,
            resamples: resampled.then_some(u.resamples as u64),
            seed: u.seed,
            rng: rng::RNG_SCHEME,
            permutations: a.permutations as u64,
            cluster_by: u.cluster_by.clone(),
            n: n_req,
            n_source,
            k: ks,
            tau: s.taus.iter().map(|(t, _)| *t).collect(),
            tie_policy: s.tie,
            denominator_policy: s.denominator,
            by: a.by.clone(),
            group_by: a.group_by.clone(),
            verdict_level: a.margin.map(|_| u.level),
            p_adjust: "holm and bh over every row with a p-value",
        },
        not_computable,
        fail,
        warnings,
    })
}

// ---------------------------------------------------------------- rendering

fn table(rows: &[Vec<String>], markdown: bool, out: &mut String) {
    let style = if markdown {
        crate::render::Style::Markdown
    } else {
        crate::render::Style::Terminal
    };
    crate::render::table(rows, style, out);
}

fn pct(x: f64) -> String {
    format!("{:.2}%", 100.0 * x)
}

fn p_fmt(p: Option<f64>) -> String {
    match p {
        None => "–".into(),
        Some(p) if p < 1e-4 => format!("{p:.1e}"),
        Some(p) => format!("{p:.4}"),
    }
}

fn row_cells(r: &Row, with_verdict: bool) -> Vec<String> {
    let mut cells = vec![
        r.metric.clone(),
        pct(r.a),
        pct(r.b),
        format!("{:+.2}", 100.0 * r.delta),
        r.stderr
            .map_or("–".into(), |s| format!("±{:.2}", 100.0 * s)),
        r.ci.map_or("–".into(), |[l, h]| {
            format!("[{:+.2}, {:+.2}]", 100.0 * l, 100.0 * h)
        }),
        r.correlation.map_or("–".into(), |c| format!("{c:.2}")),
        p_fmt(r.p_value),
        p_fmt(r.p_holm),
        p_fmt(r.p_bh),
        p_fmt(r.mcnemar_p),
        r.n_problems.to_string(),
    ];
    if with_verdict {
        cells.push(r.verdict.unwrap_or("–").to_string());
    }
    cells
}

fn render_text(c: &Comparison, markdown: bool) -> String {
    let mut out = String::new();
    let with_verdict = c.margin.is_some();
    let lvl = trim_float(100.0 * c.level);
    let head = |out: &mut String, title: &str| {
        if markdown {
            let _ = writeln!(out, "## {title}\n");
        } else {
            let _ = writeln!(out, "{title}");
        }
    };
    let para = |out: &mut String, line: String| {
        if markdown {
            let _ = writeln!(out, "{line}  ");
        } else {
            let _ = writeln!(out, "{line}");
        }
    };
    head(&mut out, "rollstat compare");
    para(
        &mut out,
        format!("A: {} ({} problems)", c.a.name, c.a.n_problems),
    );
    para(
        &mut out,
        format!("B: {} ({} problems)", c.b.name, c.b.n_problems),
    );
    para(
        &mut out,
        format!(
            "pairs: {} matched, {} only in A, {} only in B",
            c.pairs.matched, c.pairs.only_a, c.pairs.only_b
        ),
    );
    para(
        &mut out,
        format!(
            "B − A in points; {lvl}% CI: {}{}; p: sign-flip permutation ({}), Holm and BH over {} rows; McNemar exact where each problem has one 0/1 outcome per side",
            c.config.method,
            c.config
                .resamples
                .map_or(String::new(), |r| format!(", {r} resamples, seed {}", c.config.seed)),
            if c.rows.iter().all(|r| r.p_exact != Some(false)) {
                "exact".to_string()
            } else {
                format!("{} random flips or exact when fewer patterns", c.config.permutations)
            },
            c.rows.iter().filter(|r| r.p_value.is_some()).count()
        ),
    );
    out.push('\n');
    let mut header: Vec<String> = [
        "metric", "A", "B", "B − A", "±SE", "CI", "corr", "p", "p_holm", "p_bh", "McNemar",
        "problems",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    if with_verdict {
        header.push("verdict".into());
    }
    let mut groups: Vec<Option<String>> = Vec::new();
    for r in &c.rows {
        if !groups.contains(&r.group) {
            groups.push(r.group.clone());
        }
    }
    for g in &groups {
        if let Some(name) = g {
            let title = format!(
                "{} = {name}",
                c.config.group_by.as_deref().unwrap_or("group")
            );
            head(&mut out, &title);
        }
        let mut t = vec![header.clone()];
        t.extend(
            c.rows
                .iter()
                .filter(|r| &r.group == g)
                .map(|r| row_cells(r, with_verdict)),
        );
        table(&t, markdown, &mut out);
        out.push('\n');
    }
    if let Some(m) = c.margin {
        head(
            &mut out,
            &format!(
                "verdicts (margin {:.2} pts; one-sided {lvl}% bounds = the two-sided {}% {} interval)",
                100.0 * m,
                trim_float(100.0 * (2.0 * c.level - 1.0)),
                c.config.method
            ),
        );
        for r in c.rows.iter().filter(|r| r.group.is_none()) {
            match &r.decision {
                Some(d) => para(&mut out, format!("  {}: {d}", r.metric)),
                None => para(
                    &mut out,
                    format!("  {}: not a correctness score, no verdict", r.metric),
                ),
            }
        }
        out.push('\n');
    }
    if let Some(f) = &c.fail {
        let scope = match &f.metrics {
            Some(ms) => ms.join(", "),
            None => "every overall row".into(),
        };
        let line = if f.failed {
            format!(
                "--fail-on {}: FAILED ({} checked; hit by {}) → exit code 1",
                f.on,
                scope,
                f.rows.join(", ")
            )
        } else {
            format!("--fail-on {}: passed ({scope} checked)", f.on)
        };
        para(&mut out, line);
        out.push('\n');
    }
    if !c.warnings.is_empty() {
        head(&mut out, "warnings");
        for w in &c.warnings {
            para(&mut out, format!("  - {w}"));
        }
    }
    out
}
