//! `rollstat power`: minimum detectable effect, problems needed, and what
//! more rollouts buy compared with more problems, for a paired comparison
//! of two systems (Miller 2024 §5, Eq. 9–10, with the errata of
//! docs/statistics.md §1.6: ω² is computed from the correlation, not copied from
//! the paper's inconsistent 1/9, and every number follows the formula, not
//! the paper's rounding).
//!
//! All variances are **per problem** (n·Var(μ̂)): `V = ω² + σ_A²/K_A +
//! σ_B²/K_B`, where ω² = Var(x_A) + Var(x_B) − 2·Cov(x_A, x_B) is the
//! between-problem variance of the difference of the conditional means and
//! σ² is the mean within-problem variance of one rollout's score.

use crate::document::{MetricEntry, Report};
use crate::error::{Error, Result};
use rollstat_core::aggregate::Metric;
use rollstat_core::catalogue::Unit;
use rollstat_stats::{minimum_detectable_effect, problems_needed, z_alpha_beta, PowerVariance};
use serde::{Deserialize, Serialize};

/// JSON schema name of the power output.
pub const POWER_SCHEMA: &str = "rollstat.power/1";

/// Options of [`power()`].
#[derive(Clone, Debug, PartialEq)]
pub struct PowerOptions {
    /// Problems N (default with a report: its n_problems).
    pub problems: Option<f64>,
    /// Rollouts per problem K for both systems (default 1; with a report: its n).
    pub rollouts: Option<f64>,
    /// Effect to detect (a fraction: 0.03 = 3 points) → problems needed.
    pub delta: Option<f64>,
    /// Two-sided significance level; default 0.05.
    pub alpha: f64,
    /// Target power 1 − β; default 0.8.
    pub power: f64,
    /// Correlation r of the two systems' per-problem scores (each problem's
    /// mean over K rollouts), as `compare` reports it. Rollout noise
    /// attenuates it, so ω² = 2·(Var(x) − r·(Var(x) + σ²/K)) — with σ² = 0
    /// this is the correlation of the conditional means. Default 0: no
    /// pairing benefit.
    pub correlation: Option<f64>,
    /// ω² directly: between-problem variance of the difference of the two
    /// systems' conditional means (overrides var_between/baseline/correlation).
    pub omega2: Option<f64>,
    /// Var(x): between-problem variance of one system's conditional mean.
    pub var_between: Option<f64>,
    /// Baseline accuracy p of a 0/1 score: Var(x) = p(1 − p) − σ².
    pub baseline: Option<f64>,
    /// σ²: mean within-problem variance of one rollout's score (default 0).
    pub sigma2: Option<f64>,
    /// Multipliers for the rollouts-vs-problems table; default 2, 4, 10.
    pub factors: Vec<f64>,
    /// With a report: only these metrics (default: every fraction metric —
    /// unit `fraction` in the metric catalogue — with a nonzero stderr; the
    /// assumptions name what was left out).
    pub metric: Option<Vec<String>>,
}

impl Default for PowerOptions {
    fn default() -> Self {
        PowerOptions {
            problems: None,
            rollouts: None,
            delta: None,
            alpha: 0.05,
            power: 0.8,
            correlation: None,
            omega2: None,
            var_between: None,
            baseline: None,
            sigma2: None,
            factors: vec![2.0, 4.0, 10.0],
            metric: None,
        }
    }
}

fn usage(option: &'static str, msg: impl Into<String>) -> Error {
    Error::invalid(option, msg)
}

/// The `rollstat.power/1` document.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PowerReport {
    /// `rollstat.power/1` ([`POWER_SCHEMA`]).
    pub schema: String,
    /// The rollstat version that wrote the document.
    pub version: String,
    /// `parameters`, or the report.json path.
    pub source: String,
    /// Two-sided significance level α (the `alpha` option).
    pub alpha: f64,
    /// Target power 1 − β (the `power` option).
    pub power: f64,
    /// (z_{α/2} + z_β)².
    pub z2: f64,
    /// One row for the given parameters, or one per metric of the report.
    pub rows: Vec<PowerRow>,
    /// What was assumed, in words.
    pub assumptions: Vec<String>,
}

/// One scenario (one metric of a report, or the given parameters).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PowerRow {
    /// The report metric; null for the given parameters.
    pub metric: Option<String>,
    /// ω²: between-problem variance of the difference of the two systems'
    /// conditional means (per problem).
    pub omega2: f64,
    /// σ_A²: mean within-problem variance of one rollout's score for A
    /// (the `sigma2` option, or pass@1's split in a report; else 0).
    pub sigma2_a: f64,
    /// σ_B², as `sigma2_a` for B.
    pub sigma2_b: f64,
    /// Rollouts per problem K of both systems (the `rollouts` option, else
    /// 1 or the report's n; a report metric without a split always uses
    /// the report's n).
    pub rollouts: f64,
    /// Per-problem variance of the paired difference, ω² + σ_A²/K + σ_B²/K.
    pub variance: f64,
    /// Whether more rollouts shrink the variance as 1/K here (a split is known).
    pub rollouts_scale: bool,
    /// Problems N the MDE is computed at (the `problems` option, else the
    /// metric's `n_problems`); null when only `delta` was given.
    pub problems: Option<f64>,
    /// Minimum detectable effect at `problems` (Eq. 10).
    pub mde: Option<f64>,
    /// The effect to detect (the `delta` option, a fraction); null when not
    /// given.
    pub delta: Option<f64>,
    /// ⌈Eq. 9⌉ for `delta`.
    pub problems_needed: Option<u64>,
    /// Eq. 9 unrounded.
    pub problems_needed_exact: Option<f64>,
    /// MDE at `problems` with K → ∞ (only ω² remains).
    pub mde_infinite_rollouts: Option<f64>,
    /// ⌈Eq. 9⌉ for `delta` with K → ∞; null when rollouts do not scale,
    /// ω² = 0, or there is no `delta`.
    pub problems_needed_infinite_rollouts: Option<u64>,
    /// One entry per multiplier of the `factors` option.
    pub tradeoff: Vec<Tradeoff>,
}

/// The same cost multiplier spent on rollouts or on problems.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Tradeoff {
    /// The multiplier, applied to K or to N.
    pub factor: f64,
    /// MDE with factor × K rollouts at N problems.
    pub mde_more_rollouts: Option<f64>,
    /// MDE with factor × N problems at K rollouts.
    pub mde_more_problems: Option<f64>,
    /// Problems needed for `delta` with factor × K rollouts.
    pub problems_needed_more_rollouts: Option<u64>,
}

/// Largest problem or rollout count accepted: 2^53, the last integer f64
/// holds exactly.
const MAX_COUNT: f64 = 9_007_199_254_740_992.0;

/// Largest cost multiplier of the rollouts-vs-problems table.
const MAX_FACTOR: f64 = 1e6;

fn check(a: &PowerOptions) -> Result<()> {
    if !(a.alpha > 0.0 && a.alpha < 1.0) {
        return Err(usage("alpha", format!("{} is not in (0, 1)", a.alpha)));
    }
    if !(a.power > 0.0 && a.power < 1.0) {
        return Err(usage("power", format!("{} is not in (0, 1)", a.power)));
    }
    if let Some(r) = a.correlation {
        if !(-1.0..=1.0).contains(&r) {
            return Err(usage("correlation", format!("{r} is not in [−1, 1]")));
        }
    }
    if let Some(d) = a.delta {
        if d == 0.0 {
            return Err(usage("delta", "the effect must be nonzero"));
        }
        if d.abs() > 1.0 {
            return Err(usage(
                "delta",
                format!(
                    "{} is not in [−1, 1] (a fraction: 0.03 = 3 points)",
                    crate::options::shown(d)
                ),
            ));
        }
    }
    // Counts beyond 2^53 are not exact in f64 (and print as 300 digits).
    for (name, v) in [("problems", a.problems), ("rollouts", a.rollouts)] {
        if let Some(v) = v.filter(|v| !(1.0..=MAX_COUNT).contains(v)) {
            let v = crate::options::shown(v);
            return Err(usage(name, format!("{v} is not between 1 and 2^53")));
        }
    }
    for (name, v) in [
        ("omega2", a.omega2),
        ("var_between", a.var_between),
        ("sigma2", a.sigma2),
    ] {
        if let Some(v) = v {
            if v < 0.0 {
                return Err(usage(name, format!("a variance cannot be negative ({v})")));
            }
        }
    }
    if let Some(p) = a.baseline {
        if !(0.0..=1.0).contains(&p) {
            return Err(usage("baseline", format!("{p} is not in [0, 1]")));
        }
    }
    if a.factors.iter().any(|f| !(*f > 0.0 && *f <= MAX_FACTOR)) {
        return Err(usage("factors", "multipliers must be > 0 and at most 10^6"));
    }
    Ok(())
}

/// Minimum detectable effect, problems needed and the rollouts-vs-problems
/// trade-off, from parameters or from a report (`source` names it).
///
/// ```
/// let mut o = rollstat::PowerOptions::default();
/// o.baseline = Some(0.5);
/// o.problems = Some(500.0);
/// let p = rollstat::power(&o, None).unwrap();
/// // ω² = 2·0.25 = 0.5; MDE = (z_.975 + z_.8)·sqrt(0.5/500)
/// assert!((p.rows[0].mde.unwrap() - 2.801585218 * (0.5f64 / 500.0).sqrt()).abs() < 1e-6);
/// ```
pub fn power(a: &PowerOptions, report: Option<(&str, &Report)>) -> Result<PowerReport> {
    check(a)?;
    let z = z_alpha_beta(a.alpha, a.power).map_err(|e| usage("alpha", e.to_string()))?;
    let mut assumptions = Vec::new();
    let (source, rows) = match report {
        Some((path, r)) => (path.to_string(), from_report(a, path, r, &mut assumptions)?),
        None => (
            "parameters".to_string(),
            vec![from_parameters(a, &mut assumptions)?],
        ),
    };
    Ok(PowerReport {
        schema: POWER_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        source,
        alpha: a.alpha,
        power: a.power,
        z2: z * z,
        rows,
        assumptions,
    })
}

fn from_parameters(a: &PowerOptions, notes: &mut Vec<String>) -> Result<PowerRow> {
    if a.metric.is_some() {
        return Err(usage(
            "metric",
            "selects metrics of a report; there is none",
        ));
    }
    let sigma2 = a.sigma2.unwrap_or(0.0);
    let k = a.rollouts.unwrap_or(1.0);
    let rho = a.correlation.unwrap_or(0.0);
    let omega2 = omega2_from_options(a, sigma2, k, rho, notes)?;
    if a.problems.is_none() && a.delta.is_none() {
        return Err(usage(
            "problems",
            "give problems (→ minimum detectable effect) and/or delta (→ problems needed)",
        ));
    }
    sigma2_notes(a, notes);
    let v = PowerVariance {
        omega2,
        sigma2_a: sigma2,
        sigma2_b: sigma2,
        k_a: k,
        k_b: k,
    };
    row(a, None, v, true, a.problems)
}

/// ω² from the options: given, from Var(x) and the correlation, or from a
/// baseline accuracy of a 0/1 score (Var(x) = p(1 − p) − σ²).
fn omega2_from_options(
    a: &PowerOptions,
    sigma2: f64,
    k: f64,
    rho: f64,
    notes: &mut Vec<String>,
) -> Result<f64> {
    let omega2 = match (a.omega2, a.var_between, a.baseline) {
        (Some(w), _, _) => {
            notes.push(format!("ω² = {} as given", short_number(w)));
            w
        }
        (None, Some(v), _) => {
            let w = omega2_from_observed(v, sigma2 / k, rho)?;
            notes.push(format!(
                "ω² = 2·(Var(x) − r·(Var(x) + σ²/K)) = 2·({} − {}·({} + {}/{})) = {} (both systems have the between-problem variance Var(x); r is the correlation of per-problem scores at K rollouts)",
                short_number(v),
                short_number(rho),
                short_number(v),
                short_number(sigma2),
                short_number(k),
                short_number(w)
            ));
            w
        }
        (None, None, Some(p)) => {
            let v = p * (1.0 - p) - sigma2;
            if v < 0.0 {
                return Err(usage("sigma2", format!(
                    "{sigma2} exceeds the total variance p(1 − p) = {} of a 0/1 score at baseline {p}",
                    short_number(p * (1.0 - p))
                )));
            }
            let w = omega2_from_observed(v, sigma2 / k, rho)?;
            notes.push(format!(
                "0/1 scores at baseline {}: Var(x) = p(1 − p) − σ² = {}; ω² = 2·(Var(x) − r·(Var(x) + σ²/K)) with r = {}, K = {} → {}",
                short_number(p),
                short_number(v),
                short_number(rho),
                short_number(k),
                short_number(w)
            ));
            w
        }
        (None, None, None) => {
            return Err(usage(
                "omega2",
                "power needs a variance: omega2, var_between (with correlation), or baseline — or a report",
            ))
        }
    };
    Ok(omega2)
}

/// When σ² was not given, say what taking it as 0 means.
fn sigma2_notes(a: &PowerOptions, notes: &mut Vec<String>) {
    if a.sigma2.is_none() && a.baseline.is_some() && a.omega2.is_none() && a.var_between.is_none() {
        notes.push(
            "σ² = 0 (σ² not given): all of p(1 − p) is taken as between-problem variance, as if each problem were always right or always wrong — the conservative case, in which more rollouts change nothing"
                .into(),
        );
    } else if a.sigma2.is_none() && a.rollouts.is_some_and(|k| k != 1.0) {
        notes.push(
            "σ² = 0 (σ² not given): rollouts are assumed noiseless, so more rollouts change nothing"
                .into(),
        );
    }
}

fn row(
    a: &PowerOptions,
    metric: Option<String>,
    v: PowerVariance,
    scales: bool,
    n: Option<f64>,
) -> Result<PowerRow> {
    let mde = |var: f64, n: f64| mde(a, var, n);
    let need = |var: f64| need(a, var);
    let total = v.total();
    let needed = need(total)?;
    let tradeoff = tradeoffs(a, &v, scales, n)?;
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

fn stats_error(e: rollstat_stats::StatsError) -> Error {
    usage("problems", e.to_string())
}

/// The minimum detectable effect at per-problem variance `var` and `n` problems.
fn mde(a: &PowerOptions, var: f64, n: f64) -> Result<f64> {
    minimum_detectable_effect(var, n, a.alpha, a.power).map_err(stats_error)
}

/// Problems needed for `a.delta` at per-problem variance `var`: rounded up, and exact.
fn need(a: &PowerOptions, var: f64) -> Result<Option<(u64, f64)>> {
    match a.delta {
        Some(d) => {
            let x = problems_needed(var, d, a.alpha, a.power).map_err(stats_error)?;
            // 1e-9 guards a ceiling over rounding noise in exact cases.
            Ok(Some(((x - 1e-9).ceil().max(1.0) as u64, x)))
        }
        None => Ok(None),
    }
}

/// For each factor f: f× the rollouts (only when the variance scales with
/// them) against f× the problems.
fn tradeoffs(
    a: &PowerOptions,
    v: &PowerVariance,
    scales: bool,
    n: Option<f64>,
) -> Result<Vec<Tradeoff>> {
    let total = v.total();
    let mut tradeoff = Vec::new();
    for &f in &a.factors {
        let more_k = v.with_rollouts(v.k_a * f, v.k_b * f).total();
        tradeoff.push(Tradeoff {
            factor: f,
            mde_more_rollouts: match (scales, n) {
                (true, Some(n)) => Some(mde(a, more_k, n)?),
                _ => None,
            },
            mde_more_problems: n.map(|n| mde(a, total, n * f)).transpose()?,
            problems_needed_more_rollouts: if scales {
                need(a, more_k)?.map(|x| x.0)
            } else {
                None
            },
        });
    }
    Ok(tradeoff)
}

fn from_report(
    a: &PowerOptions,
    path: &str,
    r: &Report,
    notes: &mut Vec<String>,
) -> Result<Vec<PowerRow>> {
    check_report_options(a, path, r)?;
    let k_report = r.config.n as f64;
    let k = a.rollouts.unwrap_or(k_report);
    let rho = a.correlation.unwrap_or(0.0);
    notes.push(format!(
        "system B is assumed to have A's per-problem variance; r = {} is the correlation of their per-problem scores at the report's n, as compare reports it (pass@1: ω² = 2·(between − r·(between + within)), the rollout noise in r taken out){}",
        short_number(rho),
        if a.correlation.is_none() {
            " (default: no pairing benefit; give the correlation a comparison reports)"
        } else {
            ""
        }
    ));
    let (rows, left_out) = report_rows(a, r, (k, k_report), rho)?;
    notes.extend(left_out.notes());
    if rows.is_empty() {
        let why = left_out.notes().join("; ");
        return Err(Error::input(format!(
            "{path}: no metric with a nonzero stderr (need at least 2 problems that differ){}",
            if why.is_empty() {
                String::new()
            } else {
                format!("; {why}")
            }
        )));
    }
    notes.push(format!(
        "pass@1 uses the report's between/within split (within-problem variance shrinks as 1/K, K = {} in the report); other metrics use their total per-problem variance N·stderr² at the report's n and have no rollouts column (their estimators do not scale as 1/K)",
        short_number(k_report)
    ));
    if r.config.ci.cluster_by.is_some() {
        notes.push(
            "the report's stderr is clustered (CR1); its variance includes the design effect"
                .into(),
        );
    }
    Ok(rows)
}

/// One row per report metric powered: the `metric` option's, else every
/// fraction metric; metrics of zero variance are left out (and, without
/// `metric`, those not in fractions), and said.
fn report_rows(
    a: &PowerOptions,
    r: &Report,
    (k, k_report): (f64, f64),
    rho: f64,
) -> Result<(Vec<PowerRow>, LeftOut)> {
    let mut rows = Vec::new();
    let mut left_out = LeftOut::default();
    for (name, m) in r.block.metrics.iter() {
        let asked = a.metric.as_ref().map(|ms| ms.contains(name));
        if asked == Some(false) || m.unit == Unit::Count {
            continue;
        }
        if asked.is_none() && !m.unit.is_fraction() {
            left_out.not_fraction.push(name.clone());
            continue;
        }
        let Some(se) = m.stderr else {
            continue;
        };
        let n = a.problems.unwrap_or(m.n_problems as f64);
        let (v, scales) = metric_variance(name, m, se, (k, k_report), rho)?;
        if v.total() == 0.0 {
            left_out.zero_variance.push(name.clone());
            continue;
        }
        rows.push(row(a, Some(name.clone()), v, scales, Some(n))?);
    }
    Ok((rows, left_out))
}

/// The report metrics a power analysis from a report leaves out, by why.
#[derive(Default)]
struct LeftOut {
    /// Not a fraction (budget@k, cost_of_pass@k: tokens, dollars, seconds):
    /// left out unless selected by name, since an effect of 0.03 in their
    /// unit means nothing.
    not_fraction: Vec<String>,
    /// Zero per-problem variance (every problem scored alike): any
    /// difference would be "detected" by one problem.
    zero_variance: Vec<String>,
}

impl LeftOut {
    /// At most this many names per list in the notes.
    const SHOWN: usize = 4;

    fn names(names: &[String]) -> String {
        let mut s = names[..names.len().min(Self::SHOWN)].join(", ");
        if names.len() > Self::SHOWN {
            s.push_str(&format!(", … ({} in all)", names.len()));
        }
        s
    }

    /// One note per non-empty list, in words.
    fn notes(&self) -> Vec<String> {
        let mut out = Vec::new();
        if !self.not_fraction.is_empty() {
            out.push(format!(
                "left out {} metric(s) not measured as a fraction ({}): the effect is a fraction of problems; select them by name to include them",
                self.not_fraction.len(),
                Self::names(&self.not_fraction)
            ));
        }
        if !self.zero_variance.is_empty() {
            out.push(format!(
                "left out {} metric(s) with zero variance across problems ({}): every problem scored alike, so the report says nothing about how many problems an effect needs",
                self.zero_variance.len(),
                Self::names(&self.zero_variance)
            ));
        }
        out
    }
}

/// With a report: no variance option, and every `--metric` is in it.
fn check_report_options(a: &PowerOptions, path: &str, r: &Report) -> Result<()> {
    if a.omega2.is_some() || a.var_between.is_some() || a.baseline.is_some() || a.sigma2.is_some() {
        return Err(usage(
            "omega2",
            "with a report the variances come from the report; drop omega2, var_between, baseline and sigma2",
        ));
    }
    if let Some(ms) = &a.metric {
        for m in ms {
            if r.block.metrics.get(m).is_none() {
                return Err(usage("metric", format!("{path} has no metric '{m}'")));
            }
        }
    }
    Ok(())
}

/// One metric's per-problem variance, and whether it scales with rollouts:
/// pass@1 from the report's between/within split (at `k` rollouts), any other
/// metric from its total N·stderr² at the report's `k_report`.
fn metric_variance(
    name: &str,
    m: &MetricEntry,
    se: f64,
    (k, k_report): (f64, f64),
    rho: f64,
) -> Result<(PowerVariance, bool)> {
    let var_total = m.n_problems as f64 * se * se;
    let split = m
        .variance
        .as_ref()
        .filter(|_| name.parse::<Metric>() == Ok(Metric::PassAtK(1)))
        .map(|v| (v.between, v.within));
    let v = match split {
        // within = mean sampling variance of c/n at K_report rollouts = σ²/K_report.
        Some((between, within)) => PowerVariance {
            omega2: omega2_from_observed(between, within, rho)?,
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
    Ok((v, split.is_some()))
}

/// ω² from an observed correlation r of per-problem scores (docs/statistics.md
/// §1.6): each score is the conditional mean x plus rollout noise of variance
/// `noise` (σ²/K), independent between systems, so
/// Cov(x_A, x_B) = r·(Var(x) + noise) and ω² = 2·(Var(x) − Cov). A
/// correlation the noise cannot allow (ω² < 0) is an error rather than a
/// negative variance.
fn omega2_from_observed(var_between: f64, noise: f64, r: f64) -> Result<f64> {
    let total = var_between + noise;
    let omega2 = 2.0 * (var_between - r * total);
    if omega2 < 0.0 {
        return Err(usage(
            "correlation",
            format!(
                "{r} is above the largest correlation of per-problem scores that their rollout noise allows (Var(x)/(Var(x) + σ²/K) = {})",
                short_number(var_between / total)
            ),
        ));
    }
    Ok(omega2)
}

/// A number in at most 6 decimals, trailing zeros dropped (`0.05`, `1`).
///
/// ```
/// assert_eq!(rollstat::short_number(0.0500), "0.05");
/// assert_eq!(rollstat::short_number(-0.0000001), "0");
/// ```
pub fn short_number(x: f64) -> String {
    let s = format!("{x:.6}");
    let s = s.trim_end_matches('0').trim_end_matches('.');
    if s == "-0" {
        "0".into()
    } else {
        s.to_string()
    }
}
