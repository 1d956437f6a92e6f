//! Within/between variance decomposition and per-problem sampling variances.

use serde::Serialize;

use crate::error::{Result, StatsError};

/// Unbiased estimate of the sampling variance of the per-problem pass@1
/// estimate `c/n` from `n` rollouts with `c` correct: `c(n−c)/(n²(n−1))`.
/// `None` when `n < 2` or `c > n`.
///
/// ```
/// let v = rollstat_stats::pass1_sampling_variance(10, 3).unwrap();
/// assert!((v - 0.0233333333333).abs() < 1e-12);
/// ```
pub fn pass1_sampling_variance(n: u64, c: u64) -> Option<f64> {
    if n < 2 || c > n {
        return None;
    }
    let (n, c) = (n as f64, c as f64);
    Some(c * (n - c) / (n * n * (n - 1.0)))
}

/// `C(a, m) / C(n, m)` = Π_{i<m} (a−i)/(n−i), 0 when m > a.
fn choose_ratio(a: u64, n: u64, m: u64) -> f64 {
    if m > a {
        return 0.0;
    }
    (0..m).map(|i| (a - i) as f64 / (n - i) as f64).product()
}

fn ln_choose(n: u64, k: u64) -> f64 {
    // exact enough for the moderate n used here: sum of logs
    let k = k.min(n - k);
    (0..k)
        .map(|i| (((n - i) as f64) / ((i + 1) as f64)).ln())
        .sum()
}

/// Unbiased estimate V̂ of the sampling variance of the per-problem unbiased
/// pass@k estimator `1 − C(n−c,k)/C(n,k)` (docs/statistics.md §6.2):
/// `V̂ = Σ_{j=0}^{k} h(j)·C(n−c,2k−j)/C(n,2k−j) − C(n−c,2k)/C(n,2k)` with
/// `h(j) = C(k,j)·C(n−k,k−j)/C(n,k)`. Valid only for `n ≥ 2k`; returns `None`
/// otherwise (or when `k = 0` or `c > n`). For `k = 1` it equals
/// [`pass1_sampling_variance`].
///
/// ```
/// let v = rollstat_stats::pass_at_k_sampling_variance(10, 3, 3).unwrap();
/// assert!((v - 0.0517361111).abs() < 1e-9);
/// assert!(rollstat_stats::pass_at_k_sampling_variance(5, 3, 3).is_none());
/// ```
pub fn pass_at_k_sampling_variance(n: u64, c: u64, k: u64) -> Option<f64> {
    if k == 0 || c > n || n < 2 * k {
        return None;
    }
    let ln_cnk = ln_choose(n, k);
    let mut v = 0.0;
    for j in 0..=k {
        let h = (ln_choose(k, j) + ln_choose(n - k, k - j) - ln_cnk).exp();
        v += h * choose_ratio(n - c, n, 2 * k - j);
    }
    v -= choose_ratio(n - c, n, 2 * k);
    Some(v)
}

/// Which variance component dominates.
///
/// ```
/// assert_eq!(rollstat_stats::VarianceSource::Within.advice(), "more rollouts per problem");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VarianceSource {
    /// Within-problem (sampling) variance: more rollouts per problem help most.
    Within,
    /// Between-problem variance: only more problems narrow the interval.
    Between,
}

impl VarianceSource {
    /// Short advice on what narrows the interval.
    ///
    /// ```
    /// assert_eq!(rollstat_stats::VarianceSource::Between.advice(), "more problems");
    /// ```
    pub fn advice(self) -> &'static str {
        match self {
            VarianceSource::Within => "more rollouts per problem",
            VarianceSource::Between => "more problems",
        }
    }
}

/// Law-of-total-variance split of `Var(y)` (Miller 2024 §3.1).
///
/// ```
/// let y = [0.75, 0.0, 0.5, 1.0, 0.25];
/// let v: Vec<f64> = [3, 0, 2, 4, 1].iter()
///     .map(|&c| rollstat_stats::pass1_sampling_variance(4, c).unwrap()).collect();
/// let d = rollstat_stats::variance_decomposition(&y, &v).unwrap();
/// assert!((d.between - 0.1145833333).abs() < 1e-9);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct VarianceDecomposition {
    /// Number of problems used (both y and v defined).
    pub n: usize,
    /// Mean of y.
    pub mean: f64,
    /// Var(y), ddof = 1.
    pub total: f64,
    /// Within-problem part: mean of the per-problem sampling variances v_i.
    pub within: f64,
    /// Between-problem part: max(total − within, 0).
    pub between: f64,
    /// The larger component.
    pub dominant: VarianceSource,
}

impl VarianceDecomposition {
    /// Current SE of the mean, `sqrt(total / n)`.
    ///
    /// ```
    /// # let y = [0.75, 0.0, 0.5, 1.0, 0.25];
    /// # let v = [0.0625, 0.0, 1.0 / 12.0, 0.0, 0.0625];
    /// let d = rollstat_stats::variance_decomposition(&y, &v).unwrap();
    /// assert!((d.se() - 0.1767766953).abs() < 1e-9);
    /// ```
    pub fn se(&self) -> f64 {
        (self.total / self.n as f64).sqrt()
    }

    /// Projected SE with `n_problems` problems and `rollout_multiplier` times as
    /// many rollouts per problem: `sqrt((between + within / multiplier) / n)`
    /// (within-problem variance shrinks as 1/K, between stays). Use
    /// `f64::INFINITY` for infinitely many rollouts.
    ///
    /// ```
    /// # let y = [0.75, 0.0, 0.5, 1.0, 0.25];
    /// # let v = [0.0625, 0.0, 1.0 / 12.0, 0.0, 0.0625];
    /// let d = rollstat_stats::variance_decomposition(&y, &v).unwrap();
    /// // K = 4 → 16 rollouts (docs/statistics.md §1.8)
    /// assert!((d.projected_se(5.0, 4.0) - 0.1581138830).abs() < 1e-9);
    /// ```
    pub fn projected_se(&self, n_problems: f64, rollout_multiplier: f64) -> f64 {
        ((self.between + self.within / rollout_multiplier) / n_problems).sqrt()
    }
}

/// Splits `Var(y)` into within (mean of `v`) and between (`Var(y) − mean v`,
/// floored at 0) and names the dominant part. `y[i]` is the per-problem score,
/// `v[i]` an (unbiased) estimate of its sampling variance given the problem,
/// e.g. from [`pass1_sampling_variance`] or [`pass_at_k_sampling_variance`].
/// Problems where either is NaN are skipped. Needs at least 2 problems.
///
/// ```
/// let d = rollstat_stats::variance_decomposition(&[0.0, 1.0, 0.5], &[0.0, 0.0, 0.2]).unwrap();
/// assert_eq!(d.dominant, rollstat_stats::VarianceSource::Between);
/// ```
pub fn variance_decomposition(y: &[f64], v: &[f64]) -> Result<VarianceDecomposition> {
    if y.len() != v.len() {
        return Err(StatsError::LengthMismatch {
            what: "y vs v",
            left: y.len(),
            right: v.len(),
        });
    }
    let pairs: Vec<(f64, f64)> = y
        .iter()
        .zip(v)
        .filter(|(a, b)| !a.is_nan() && !b.is_nan())
        .map(|(a, b)| (*a, *b))
        .collect();
    let n = pairs.len();
    if n < 2 {
        return Err(StatsError::Empty("need at least 2 problems"));
    }
    let nf = n as f64;
    let mean = pairs.iter().map(|p| p.0).sum::<f64>() / nf;
    let total = pairs.iter().map(|p| (p.0 - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    let within = pairs.iter().map(|p| p.1).sum::<f64>() / nf;
    let between = (total - within).max(0.0);
    let dominant = if within > between {
        VarianceSource::Within
    } else {
        VarianceSource::Between
    };
    Ok(VarianceDecomposition {
        n,
        mean,
        total,
        within,
        between,
        dominant,
    })
}
