//! `rollstat power`: minimum detectable effect, problems needed, and what
//! more rollouts buy compared with more problems, for a paired comparison
//! of two systems (Miller 2024 §5, Eq. 9–10, with the errata of
//! statistics.md §1.6: ω² is computed from the correlation, not copied from
//! the paper's inconsistent 1/9, and every number follows the formula, not
//! the paper's rounding).
//!
//! All variances are **per problem** (n·Var(μ̂)): `V = ω² + σ_A²/K_A +
//! σ_B²/K_B`, where ω² = Var(x_A) + Var(x_B) − 2·Cov(x_A, x_B) is the
//! between-problem variance of the difference of the conditional means and
//! σ² is the mean within-problem variance of one rollout's score.

use crate::pipeline::InputError;
use anyhow::{Context, Result};
use clap::{Args, ValueEnum};
use rollstat_stats::{minimum_detectable_effect, problems_needed, z_alpha_beta, PowerVariance};
use serde::Serialize;
use serde_json::Value;
use std::fmt::Write as _;
use std::path::PathBuf;

/// JSON schema name of the power output.
pub const POWER_SCHEMA: &str = "rollstat.power/1";

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
    #[arg(long, default_value = "0.05", value_parser = parse_num)]
    pub alpha: f64,
    /// Target power 1 − β.
    #[arg(long, default_value = "0.8", value_parser = parse_num)]
    pub power: f64,
    /// Correlation ρ of the two systems' per-problem conditional means
    /// (typically 0.3–0.7 between frontier models; `rollstat compare`
    /// reports the observed correlation). Default 0: no pairing benefit.
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
    #[arg(long, value_delimiter = ',', default_value = "2,4,10", value_parser = parse_num)]
    pub factors: Vec<f64>,
    /// With a report: only these metrics (default: every metric with a stderr).
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

fn usage(msg: impl Into<String>) -> anyhow::Error {
    InputError(msg.into()).into()
}

/// The `rollstat.power/1` document.
#[derive(Serialize, Debug)]
pub struct PowerReport {
    pub schema: &'static str,
    pub version: &'static str,
    /// `parameters`, or the report.json path.
    pub source: String,
    pub alpha: f64,
    pub power: f64,
    /// (z_{α/2} + z_β)².
    pub z2: f64,
    pub rows: Vec<PowerRow>,
    /// What was assumed, in words.
    pub assumptions: Vec<String>,
}

/// One scenario (one metric of a report, or the given parameters).
#[derive(Serialize, Debug)]
pub struct PowerRow {
    pub metric: Option<String>,
    pub omega2: f64,
    pub sigma2_a: f64,
    pub sigma2_b: f64,
    pub rollouts: f64,
    /// Per-problem variance of the paired difference, ω² + σ_A²/K + σ_B²/K.
    pub variance: f64,
    /// Whether more rollouts shrink the variance as 1/K here (a split is known).
    pub rollouts_scale: bool,
    pub problems: Option<f64>,
    /// Minimum detectable effect at `problems` (Eq. 10).
    pub mde: Option<f64>,
    pub delta: Option<f64>,
    /// ⌈Eq. 9⌉ for `delta`.
    pub problems_needed: Option<u64>,
    /// Eq. 9 unrounded.
    pub problems_needed_exact: Option<f64>,
    /// MDE at `problems` with K → ∞ (only ω² remains).
    pub mde_infinite_rollouts: Option<f64>,
    pub problems_needed_infinite_rollouts: Option<u64>,
    pub tradeoff: Vec<Tradeoff>,
}

/// The same cost multiplier spent on rollouts or on problems.
#[derive(Serialize, Debug)]
pub struct Tradeoff {
    pub factor: f64,
    /// MDE with factor × K rollouts at N problems.
    pub mde_more_rollouts: Option<f64>,
    /// MDE with factor × N problems at K rollouts.
    pub mde_more_problems: Option<f64>,
    /// Problems needed for `delta` with factor × K rollouts.
    pub problems_needed_more_rollouts: Option<u64>,
}

/// Runs `rollstat power`; returns the text for stdout (empty when `-o`
/// wrote a file).
pub fn run(a: &PowerArgs) -> Result<String> {
    let report = build(a)?;
    let text = match a.format {
        PowerFormat::Json => {
            let mut s = serde_json::to_string_pretty(&report).expect("serializes");
            s.push('\n');
            s
        }
        PowerFormat::Table => render(&report),
    };
    match &a.output {
        Some(p) => {
            std::fs::write(p, &text)
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            Ok(String::new())
        }
        None => Ok(text),
    }
}

fn check(a: &PowerArgs) -> Result<()> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        return Err(usage(format!("--alpha: {} is not in (0, 1)", a.alpha)));
    }
    if !(a.power > 0.0 && a.power < 1.0) {
        return Err(usage(format!("--power: {} is not in (0, 1)", a.power)));
    }
    if let Some(r) = a.correlation {
        if !(-1.0..=1.0).contains(&r) {
            return Err(usage(format!("--correlation: {r} is not in [−1, 1]")));
        }
    }
    if let Some(d) = a.delta {
        if d == 0.0 {
            return Err(usage("--delta: the effect must be nonzero"));
        }
    }
    for (name, v) in [
        ("--omega2", a.omega2),
        ("--var-between", a.var_between),
        ("--sigma2", a.sigma2),
    ] {
        if let Some(v) = v {
            if v < 0.0 {
                return Err(usage(format!(
                    "{name}: a variance cannot be negative ({v})"
                )));
            }
        }
    }
    if let Some(p) = a.baseline {
        if !(0.0..=1.0).contains(&p) {
            return Err(usage(format!("--baseline: {p} is not in [0, 1]")));
        }
    }
    if a.factors.iter().any(|f| *f <= 0.0) {
        return Err(usage("--factors: multipliers must be > 0"));
    }
    Ok(())
}

fn build(a: &PowerArgs) -> Result<PowerReport> {
    check(a)?;
    let z = z_alpha_beta(a.alpha, a.power).map_err(|e| usage(e.to_string()))?;
    let mut assumptions = Vec::new();
    let (source, rows) = match &a.report {
        Some(path) => (path.clone(), from_report(a, path, &mut assumptions)?),
        None => (
            "parameters".to_string(),
            vec![from_parameters(a, &mut assumptions)?],
        ),
    };
    Ok(PowerReport {
        schema: POWER_SCHEMA,
        version: env!("CARGO_PKG_VERSION"),
        source,
        alpha: a.alpha,
        power: a.power,
        z2: z * z,
        rows,
        assumptions,
    })
}

fn from_parameters(a: &PowerArgs, notes: &mut Vec<String>) -> Result<PowerRow> {
    if a.metric.is_some() {
        return Err(usage("--metric selects metrics of a report.json"));
    }
    let sigma2 = a.sigma2.unwrap_or(0.0);
    let k = a.rollouts.unwrap_or(1.0);
    let rho = a.correlation.unwrap_or(0.0);
    let omega2 = match (a.omega2, a.var_between, a.baseline) {
        (Some(w), _, _) => {
            notes.push(format!("ω² = {} as given", short(w)));
            w
        }
        (None, Some(v), _) => {
            notes.push(format!(
                "ω² = 2·Var(x)·(1 − ρ) = 2·{}·(1 − {}) = {} (both systems have the between-problem variance Var(x))",
                short(v),
                short(rho),
                short(2.0 * v * (1.0 - rho))
            ));
            2.0 * v * (1.0 - rho)
        }
        (None, None, Some(p)) => {
            let v = p * (1.0 - p) - sigma2;
            if v < 0.0 {
                return Err(usage(format!(
                    "--sigma2 {sigma2} exceeds the total variance p(1 − p) = {} of a 0/1 score at --baseline {p}",
                    short(p * (1.0 - p))
                )));
            }
            notes.push(format!(
                "0/1 scores at baseline {}: Var(x) = p(1 − p) − σ² = {}; ω² = 2·Var(x)·(1 − ρ) with ρ = {} → {}",
                short(p),
                short(v),
                short(rho),
                short(2.0 * v * (1.0 - rho))
            ));
            2.0 * v * (1.0 - rho)
        }
        (None, None, None) => {
            return Err(usage(
                "power needs a variance: --omega2 W, --var-between V (with --correlation), or --baseline P — or a report.json",
            ))
        }
    };
    if a.problems.is_none() && a.delta.is_none() {
        return Err(usage(
            "give --problems N (→ minimum detectable effect) and/or --delta D (→ problems needed)",
        ));
    }
    if a.sigma2.is_none() && a.baseline.is_some() && a.omega2.is_none() && a.var_between.is_none() {
        notes.push(
            "σ² = 0 (no --sigma2): all of p(1 − p) is taken as between-problem variance, as if each problem were always right or always wrong — the conservative case, in which more rollouts change nothing"
                .into(),
        );
    } else if a.sigma2.is_none() && a.rollouts.is_some_and(|k| k != 1.0) {
        notes.push(
            "σ² = 0 (no --sigma2): rollouts are assumed noiseless, so more rollouts change nothing"
                .into(),
        );
    }
    let v = PowerVariance {
        omega2,
        sigma2_a: sigma2,
        sigma2_b: sigma2,
        k_a: k,
        k_b: k,
    };
    row(a, None, v, true, a.problems)
}

fn row(
    a: &PowerArgs,
    metric: Option<String>,
    v: PowerVariance,
    scales: bool,
    n: Option<f64>,
) -> Result<PowerRow> {
    let err = |e: rollstat_stats::StatsError| usage(e.to_string());
    let mde = |var: f64, n: f64| minimum_detectable_effect(var, n, a.alpha, a.power).map_err(err);
    let need = |var: f64| -> Result<Option<(u64, f64)>> {
        match a.delta {
            Some(d) => {
                let x = problems_needed(var, d, a.alpha, a.power).map_err(err)?;
                // 1e-9 guards a ceiling over rounding noise in exact cases.
                Ok(Some(((x - 1e-9).ceil().max(1.0) as u64, x)))
            }
            None => Ok(None),
        }
    };
    let total = v.total();
    let needed = need(total)?;
    let mut tradeoff = Vec::new();
    for &f in &a.factors {
        let more_k = v.with_rollouts(v.k_a * f, v.k_b * f).total();
        tradeoff.push(Tradeoff {
            factor: f,
            mde_more_rollouts: match (scales, n) {
                (true, Some(n)) => Some(mde(more_k, n)?),
                _ => None,
            },
            mde_more_problems: n.map(|n| mde(total, n * f)).transpose()?,
            problems_needed_more_rollouts: if scales {
                need(more_k)?.map(|x| x.0)
            } else {
                None
            },
        });
    }
    Ok(PowerRow {
        metric,
        omega2: v.omega2,
        sigma2_a: v.sigma2_a,
        sigma2_b: v.sigma2_b,
        rollouts: v.k_a,
        variance: total,
        rollouts_scale: scales,
        problems: n,
        mde: n.map(|n| mde(total, n)).transpose()?,
        delta: a.delta,
        problems_needed: needed.map(|x| x.0),
        problems_needed_exact: needed.map(|x| x.1),
        mde_infinite_rollouts: match (scales, n) {
            (true, Some(n)) => Some(mde(v.omega2, n)?),
            _ => None,
        },
        problems_needed_infinite_rollouts: if scales && v.omega2 > 0.0 {
            need(v.omega2)?.map(|x| x.0)
        } else {
            None
        },
        tradeoff,
    })
}

fn from_report(a: &PowerArgs, path: &str, notes: &mut Vec<String>) -> Result<Vec<PowerRow>> {
    if a.omega2.is_some() || a.var_between.is_some() || a.baseline.is_some() || a.sigma2.is_some() {
        return Err(usage(
            "with a report.json the variances come from the report; drop --omega2/--var-between/--baseline/--sigma2",
        ));
    }
    let text = std::fs::read_to_string(path)
        .map_err(|e| usage(format!("{path}: {e}")))
        .context("reading the report")?;
    let r: Value = serde_json::from_str(&text)
        .map_err(|e| usage(format!("{path}: not JSON ({e}); write one with `rollstat report FILES --format json -o report.json`")))?;
    if r["schema"].as_str() != Some("rollstat.report/1") {
        return Err(usage(format!(
            "{path}: not a rollstat report (schema {}); write one with `rollstat report FILES --format json -o report.json`",
            r["schema"]
        )));
    }
    let k_report = r["config"]["n"].as_f64().unwrap_or(1.0);
    let k = a.rollouts.unwrap_or(k_report);
    let rho = a.correlation.unwrap_or(0.0);
    let metrics = r["metrics"]
        .as_object()
        .ok_or_else(|| usage(format!("{path}: no `metrics` object")))?;
    if let Some(ms) = &a.metric {
        for m in ms {
            if !metrics.contains_key(m) {
                return Err(usage(format!("--metric: {path} has no metric '{m}'")));
            }
        }
    }
    notes.push(format!(
        "system B is assumed to have A's per-problem variance; ρ = {} is the correlation of their conditional means{}",
        short(rho),
        if a.correlation.is_none() {
            " (default: no pairing benefit; pass --correlation from `rollstat compare`)"
        } else {
            ""
        }
    ));
    let mut rows = Vec::new();
    for (name, m) in metrics {
        if a.metric.as_ref().is_some_and(|ms| !ms.contains(name)) {
            continue;
        }
        if m["unit"].as_str() == Some("count") {
            continue;
        }
        let (Some(se), Some(np)) = (m["stderr"].as_f64(), m["n_problems"].as_f64()) else {
            continue;
        };
        let n = a.problems.unwrap_or(np);
        let var_total = np * se * se;
        let split = (name == "pass@1")
            .then(|| {
                (
                    m["variance"]["between"].as_f64(),
                    m["variance"]["within"].as_f64(),
                )
            })
            .and_then(|(b, w)| Some((b?, w?)));
        let v = match split {
            // within = mean sampling variance of c/n at K_report rollouts = σ²/K_report.
            Some((between, within)) => PowerVariance {
                omega2: 2.0 * between * (1.0 - rho),
                sigma2_a: within * k_report,
                sigma2_b: within * k_report,
                k_a: k,
                k_b: k,
            },
            None => PowerVariance {
                omega2: 2.0 * var_total * (1.0 - rho),
                sigma2_a: 0.0,
                sigma2_b: 0.0,
                k_a: k_report,
                k_b: k_report,
            },
        };
        rows.push(row(a, Some(name.clone()), v, split.is_some(), Some(n))?);
    }
    if rows.is_empty() {
        return Err(usage(format!(
            "{path}: no metric with a stderr (need at least 2 problems)"
        )));
    }
    notes.push(format!(
        "pass@1 uses the report's between/within split (within-problem variance shrinks as 1/K, K = {} in the report); other metrics use their total per-problem variance N·stderr² at the report's n and have no rollouts column (their estimators do not scale as 1/K)",
        short(k_report)
    ));
    if r["config"]["ci"]["cluster_by"].is_string() {
        notes.push(
            "the report's stderr is clustered (CR1); its variance includes the design effect"
                .into(),
        );
    }
    Ok(rows)
}

fn short(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}

fn pts(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:.2} pts", 100.0 * x))
}

fn count(x: Option<u64>) -> String {
    x.map_or("–".into(), |x| x.to_string())
}

fn table(rows: &[Vec<String>], out: &mut String) {
    crate::render::table(rows, crate::render::Style::Terminal, out);
}

fn render(p: &PowerReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "rollstat power ({}): two-sided α = {}, power = {}, (z_α/2 + z_β)² = {:.4}",
        p.source,
        short(p.alpha),
        short(p.power),
        p.z2
    );
    for r in &p.rows {
        out.push('\n');
        if let Some(m) = &r.metric {
            let _ = writeln!(out, "{m}");
        }
        let _ = writeln!(
            out,
            "  per-problem variance of B − A: ω² {} + σ_A²/K {} + σ_B²/K {} = {} (K = {} rollouts)",
            short(r.omega2),
            short(r.sigma2_a / r.rollouts),
            short(r.sigma2_b / r.rollouts),
            short(r.variance),
            short(r.rollouts)
        );
        if let (Some(n), Some(m)) = (r.problems, r.mde) {
            let _ = writeln!(
                out,
                "  minimum detectable effect with {} problems: {}",
                short(n),
                pts(Some(m))
            );
        }
        if let (Some(d), Some(need), Some(x)) =
            (r.delta, r.problems_needed, r.problems_needed_exact)
        {
            let _ = writeln!(
                out,
                "  problems needed for δ = {}: {need} ({:.3})",
                pts(Some(d.abs())),
                x
            );
        }
        let informative = r.problems.is_some() || (r.rollouts_scale && r.variance > r.omega2);
        if !r.tradeoff.is_empty() && informative {
            let _ = writeln!(
                out,
                "  more rollouts vs more problems (same multiplier of rollouts run):"
            );
            let mut t = vec![vec![
                "×".to_string(),
                "rollouts".into(),
                "MDE, ×rollouts".into(),
                "problems".into(),
                "MDE, ×problems".into(),
                "problems needed, ×rollouts".into(),
            ]];
            t.push(vec![
                "1".into(),
                short(r.rollouts),
                pts(r.mde),
                r.problems.map_or("–".into(), short),
                pts(r.mde),
                count(r.problems_needed),
            ]);
            for x in &r.tradeoff {
                t.push(vec![
                    short(x.factor),
                    if r.rollouts_scale {
                        short(r.rollouts * x.factor)
                    } else {
                        "–".into()
                    },
                    pts(x.mde_more_rollouts),
                    r.problems.map_or("–".into(), |n| short(n * x.factor)),
                    pts(x.mde_more_problems),
                    count(x.problems_needed_more_rollouts),
                ]);
            }
            if r.rollouts_scale {
                t.push(vec![
                    "∞".into(),
                    "∞".into(),
                    pts(r.mde_infinite_rollouts),
                    "–".into(),
                    "–".into(),
                    count(r.problems_needed_infinite_rollouts),
                ]);
            }
            table(&t, &mut out);
        }
    }
    if !p.assumptions.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "assumptions");
        for n in &p.assumptions {
            let _ = writeln!(out, "  - {n}");
        }
    }
    out
}
