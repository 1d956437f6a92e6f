//! Power analysis for comparing two systems on N problems (Miller 2024 §5,
//! Eq. 9–10; docs/statistics.md §1.5, with the §1.6 errata).
//!
//! All functions work with the **per-problem** variance of the paired score
//! difference (`ω² + σ_A²/K_A + σ_B²/K_B`, Eq. 9), i.e. n·Var(μ̂), not the
//! variance of the mean (docs/statistics.md §1.6 item 6). For a single system use
//! the per-problem variance of its score instead.

use serde::Serialize;

use crate::dist::normal_quantile;
use crate::error::{Result, StatsError};

fn check_alpha_power(alpha: f64, power: f64) -> Result<()> {
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(StatsError::InvalidArgument(format!(
            "alpha must be in (0,1), got {alpha}"
        )));
    }
    if !(power > 0.0 && power < 1.0) {
        return Err(StatsError::InvalidArgument(format!(
            "power must be in (0,1), got {power}"
        )));
    }
    Ok(())
}

/// `z_{α/2} + z_β` (upper-tail normal quantiles) for a two-sided test at
/// `alpha` with the given `power = 1 − β`.
///
/// ```
/// let z = rollstat_stats::z_alpha_beta(0.05, 0.8).unwrap();
/// assert!((z * z - 7.8488797343).abs() < 1e-9);
/// ```
pub fn z_alpha_beta(alpha: f64, power: f64) -> Result<f64> {
    check_alpha_power(alpha, power)?;
    Ok(normal_quantile(1.0 - alpha / 2.0) + normal_quantile(power))
}

/// Variance of per-problem differences from the two systems' per-problem
/// standard deviations and their correlation: `sd_a² + sd_b² − 2ρ·sd_a·sd_b`
/// (Miller Eq. 7 form).
///
/// ```
/// // uniform scores, ρ = 0.5: 1/12 + 1/12 − 2·0.5/12 = 1/12 (erratum §1.6.1)
/// let sd = (1.0f64 / 12.0).sqrt();
/// let v = rollstat_stats::paired_difference_variance(sd, sd, 0.5);
/// assert!((v - 1.0 / 12.0).abs() < 1e-15);
/// ```
pub fn paired_difference_variance(sd_a: f64, sd_b: f64, correlation: f64) -> f64 {
    sd_a * sd_a + sd_b * sd_b - 2.0 * correlation * sd_a * sd_b
}

/// Components of the per-problem variance in Miller's Eq. 9.
///
/// ```
/// let v = rollstat_stats::PowerVariance { omega2: 0.05, sigma2_a: 0.1, sigma2_b: 0.1, k_a: 10.0, k_b: 10.0 };
/// assert!((v.total() - 0.07).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PowerVariance {
    /// ω²: variance of the difference of conditional means (between problems).
    pub omega2: f64,
    /// σ_A² = E[σ²_{A,i}]: mean within-problem variance of one A rollout.
    pub sigma2_a: f64,
    /// σ_B²: same for B.
    pub sigma2_b: f64,
    /// Rollouts per problem for A.
    pub k_a: f64,
    /// Rollouts per problem for B.
    pub k_b: f64,
}

impl PowerVariance {
    /// `ω² + σ_A²/K_A + σ_B²/K_B`.
    ///
    /// ```
    /// let v = rollstat_stats::PowerVariance { omega2: 0.21, sigma2_a: 0.0, sigma2_b: 0.0, k_a: 1.0, k_b: 1.0 };
    /// assert_eq!(v.total(), 0.21);
    /// ```
    pub fn total(&self) -> f64 {
        self.omega2 + self.sigma2_a / self.k_a + self.sigma2_b / self.k_b
    }

    /// The same with `k_a`, `k_b` rollouts per problem.
    ///
    /// ```
    /// let v = rollstat_stats::PowerVariance { omega2: 0.0, sigma2_a: 1.0, sigma2_b: 1.0, k_a: 1.0, k_b: 1.0 };
    /// assert_eq!(v.with_rollouts(2.0, 2.0).total(), 1.0);
    /// ```
    pub fn with_rollouts(self, k_a: f64, k_b: f64) -> Self {
        Self { k_a, k_b, ..self }
    }
}

/// Minimum detectable effect (Eq. 10): `(z_{α/2} + z_β)·sqrt(variance / n)`.
///
/// ```
/// let mde = rollstat_stats::minimum_detectable_effect(0.21, 1000.0, 0.05, 0.8).unwrap();
/// assert!((mde - 0.040599).abs() < 1e-6);
/// ```
pub fn minimum_detectable_effect(variance: f64, n: f64, alpha: f64, power: f64) -> Result<f64> {
    if !(n > 0.0) || !(variance >= 0.0) {
        return Err(StatsError::InvalidArgument(
            "need n > 0 and variance ≥ 0".into(),
        ));
    }
    Ok(z_alpha_beta(alpha, power)? * (variance / n).sqrt())
}

/// Problems needed to detect `delta` (Eq. 9): `(z_{α/2} + z_β)²·variance/δ²`,
/// unrounded (take the ceiling for a plan).
///
/// ```
/// let n = rollstat_stats::problems_needed(0.21, 0.03, 0.05, 0.8).unwrap();
/// assert!((n - 1831.405).abs() < 1e-3);
/// ```
pub fn problems_needed(variance: f64, delta: f64, alpha: f64, power: f64) -> Result<f64> {
    if delta == 0.0 || delta.is_nan() || !(variance >= 0.0) {
        return Err(StatsError::InvalidArgument(
            "need delta ≠ 0 and variance ≥ 0".into(),
        ));
    }
    let z = z_alpha_beta(alpha, power)?;
    Ok(z * z * variance / (delta * delta))
}

/// Minimum detectable effects now, with `factor`× rollouts per problem, and
/// with `factor`× problems (same total cost multiplier in rollouts).
///
/// ```
/// let v = rollstat_stats::PowerVariance { omega2: 1.0/9.0, sigma2_a: 1.0/6.0, sigma2_b: 1.0/6.0, k_a: 1.0, k_b: 1.0 };
/// let t = rollstat_stats::rollouts_vs_problems(&v, 200.0, 10.0, 0.05, 0.8).unwrap();
/// assert!(t.mde_more_problems < t.mde_more_rollouts);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct RolloutTradeoff {
    /// MDE at the current n and K.
    pub mde_current: f64,
    /// MDE with K multiplied by `factor` (within-problem variance / factor).
    pub mde_more_rollouts: f64,
    /// MDE with n multiplied by `factor`.
    pub mde_more_problems: f64,
    /// Lower limit of the MDE as K → ∞ at the current n.
    pub mde_infinite_rollouts: f64,
}

/// Computes a [`RolloutTradeoff`] for `n` problems.
///
/// ```
/// let v = rollstat_stats::PowerVariance { omega2: 0.0, sigma2_a: 0.2, sigma2_b: 0.2, k_a: 1.0, k_b: 1.0 };
/// let t = rollstat_stats::rollouts_vs_problems(&v, 100.0, 4.0, 0.05, 0.8).unwrap();
/// assert!((t.mde_more_rollouts - t.mde_more_problems).abs() < 1e-12);
/// ```
pub fn rollouts_vs_problems(
    v: &PowerVariance,
    n: f64,
    factor: f64,
    alpha: f64,
    power: f64,
) -> Result<RolloutTradeoff> {
    if !(factor > 0.0) {
        return Err(StatsError::InvalidArgument("factor must be > 0".into()));
    }
    let more_k = v.with_rollouts(v.k_a * factor, v.k_b * factor);
    Ok(RolloutTradeoff {
        mde_current: minimum_detectable_effect(v.total(), n, alpha, power)?,
        mde_more_rollouts: minimum_detectable_effect(more_k.total(), n, alpha, power)?,
        mde_more_problems: minimum_detectable_effect(v.total(), n * factor, alpha, power)?,
        mde_infinite_rollouts: minimum_detectable_effect(v.omega2, n, alpha, power)?,
    })
}
