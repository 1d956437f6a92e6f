//! Model-based (Bayesian) small-N intervals for pass@k and avg@n, and the
//! Bayes@N estimator of Hariri et al. (arXiv 2510.04265).
//!
//! # The model of [`hierarchical_pass_at_k`] (docs/statistics.md §12)
//! Problem i has `n_i` rollouts of which `c_i` are correct:
//!
//! * `c_i | p_i ~ Binomial(n_i, p_i)`;
//! * `p_i | μ, κ ~ Beta(μκ, (1 − μ)κ)`, independently over problems (the
//!   problems are a sample from a population of problems);
//! * `μ ~ Beta(a, b)` — the declared [`BetaPrior`] (uniform Beta(1, 1) or
//!   Jeffreys Beta(½, ½)) on the population's mean success rate;
//! * `κ` with density `1/(1 + κ)²` on `κ > 0` (proper, median 1), truncated
//!   to `[0.01, 10⁴]`.
//!
//! The estimand is the population pass@k, `θ_k = E[1 − (1 − p)^k] =
//! 1 − B(α, β + k)/B(α, β)` with `α = μκ`, `β = (1 − μ)κ` (k = 1: `θ = μ`,
//! avg@n); [`hierarchical_posterior`] also gives pass^k, `E[p^k] =
//! B(α + k, β)/B(α, β)`. Given (μ, κ), each `p_i | c_i` is `Beta(c_i + α, n_i − c_i + β)`.
//! The posterior of (μ, κ) is computed on a grid (μ uniform, log κ uniform):
//! a coarse pass over the whole range, then a fine pass over the box holding
//! the mass. The interval is the equal-tailed credible interval of `θ_k`
//! (weighted quantiles of the grid, linearly interpolated). Deterministic:
//! no random numbers.
//!
//! Independent per-problem posteriors with a fixed prior (scorio, Bayes@N)
//! do not give a benchmark interval: they condition on the problem set and
//! their shrinkage toward the prior does not fade with more problems
//! (docs/statistics.md §12.3); the hierarchical model learns the spread of
//! the `p_i` from the data.

use rayon::prelude::*;
use serde::Serialize;
use std::collections::BTreeMap;

use crate::bootstrap::Interval;
use crate::dist::ln_gamma;
use crate::error::{check_level, Result, StatsError};

/// The prior Beta(a, b) of a success rate.
///
/// ```
/// use rollstat_stats::BetaPrior;
/// assert_eq!(BetaPrior::Jeffreys.params(), (0.5, 0.5));
/// assert_eq!(BetaPrior::default(), BetaPrior::Uniform);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum BetaPrior {
    /// Beta(1, 1).
    #[default]
    Uniform,
    /// Beta(½, ½).
    Jeffreys,
}

impl BetaPrior {
    /// `uniform` or `jeffreys`.
    pub fn name(self) -> &'static str {
        match self {
            BetaPrior::Uniform => "uniform",
            BetaPrior::Jeffreys => "jeffreys",
        }
    }
    /// The parameters (a, b).
    pub fn params(self) -> (f64, f64) {
        match self {
            BetaPrior::Uniform => (1.0, 1.0),
            BetaPrior::Jeffreys => (0.5, 0.5),
        }
    }
}

impl std::fmt::Display for BetaPrior {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for BetaPrior {
    type Err = String;
    /// ```
    /// use rollstat_stats::BetaPrior;
    /// assert_eq!("jeffreys".parse::<BetaPrior>(), Ok(BetaPrior::Jeffreys));
    /// assert!("flat".parse::<BetaPrior>().is_err());
    /// ```
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "uniform" => Ok(BetaPrior::Uniform),
            "jeffreys" => Ok(BetaPrior::Jeffreys),
            other => Err(format!(
                "unknown prior '{other}'; expected uniform or jeffreys"
            )),
        }
    }
}

fn ln_beta(a: f64, b: f64) -> f64 {
    ln_gamma(a) + ln_gamma(b) - ln_gamma(a + b)
}

/// A posterior's mean and standard deviation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PosteriorMoments {
    /// Posterior mean.
    pub mean: f64,
    /// Posterior standard deviation.
    pub sd: f64,
}

/// The posterior mean and SD of one problem's `1 − (1 − p)^k` when
/// `p | c ~ Beta(c + a, n − c + b)`: `E = 1 − B(α, β + k)/B(α, β)`,
/// `E[(1 − p)^{2k}] = B(α, β + 2k)/B(α, β)`.
///
/// ```
/// use rollstat_stats::{posterior_pass_at_k, BetaPrior};
/// // decisions-2026-12 §5c: (n, c, k) = (5, 3, 2) → 0.7857142857 (= 11/14)
/// let m = posterior_pass_at_k(5, 3, 2, BetaPrior::Uniform).unwrap();
/// assert!((m.mean - 11.0 / 14.0).abs() < 1e-12);
/// ```
pub fn posterior_pass_at_k(n: u64, c: u64, k: u64, prior: BetaPrior) -> Result<PosteriorMoments> {
    if c > n {
        return Err(StatsError::InvalidArgument(format!(
            "correct {c} exceed rollouts {n}"
        )));
    }
    if k == 0 {
        return Err(StatsError::InvalidArgument("k must be at least 1".into()));
    }
    let (a, b) = prior.params();
    let (al, be) = (c as f64 + a, (n - c) as f64 + b);
    let lb = ln_beta(al, be);
    let q1 = (ln_beta(al, be + k as f64) - lb).exp();
    let q2 = (ln_beta(al, be + 2.0 * k as f64) - lb).exp();
    Ok(PosteriorMoments {
        mean: 1.0 - q1,
        sd: (q2 - q1 * q1).max(0.0).sqrt(),
    })
}

/// Bayes@N (Hariri et al., arXiv 2510.04265, as in `scorio.eval.bayes`):
/// `outcomes` is M rows of N categories in `0..=C`, `weights` the C + 1
/// category weights `w_0..w_C`, `prior_outcomes` optional D prior outcomes
/// per row. With `ν_αj = n_αj + 1 + n⁰_αj` and `T = 1 + C + D + N`:
/// `μ = w_0 + Σ_α Σ_j ν_αj (w_j − w_0) / (M·T)` and
/// `σ² = Σ_α [Σ_j (ν_αj/T)(w_j − w_0)² − (Σ_j (ν_αj/T)(w_j − w_0))²] / (M²(T + 1))`.
/// It is the posterior of the weighted score under independent
/// Dirichlet(1, …, 1) priors per row; it conditions on the M rows.
///
/// ```
/// use rollstat_stats::bayes_at_n;
/// let r = vec![vec![0, 1, 2, 2, 1], vec![1, 1, 0, 2, 2]];
/// let m = bayes_at_n(&r, &[0.0, 0.5, 1.0], None).unwrap();
/// assert!((m.mean - 0.5625).abs() < 1e-12);
/// ```
pub fn bayes_at_n(
    outcomes: &[Vec<u32>],
    weights: &[f64],
    prior_outcomes: Option<&[Vec<u32>]>,
) -> Result<PosteriorMoments> {
    let m = outcomes.len();
    let n = outcomes.first().map_or(0, Vec::len);
    if m == 0 || n == 0 {
        return Err(StatsError::Empty("no outcomes"));
    }
    if weights.len() < 2 {
        return Err(StatsError::InvalidArgument(
            "need at least two category weights".into(),
        ));
    }
    if let Some(p) = prior_outcomes {
        if p.len() != m {
            return Err(StatsError::InvalidArgument(format!(
                "{} prior rows for {m} rows",
                p.len()
            )));
        }
    }
    let d = prior_outcomes.and_then(|p| p.first()).map_or(0, Vec::len);
    let cats = weights.len();
    let t = (cats + d + n) as f64; // 1 + C + D + N with C = cats − 1
    let (mut sum_mu, mut sum_var) = (0.0, 0.0);
    for (i, row) in outcomes.iter().enumerate() {
        let prior_row = prior_outcomes.map(|p| p[i].as_slice()).unwrap_or(&[]);
        if row.len() != n || prior_row.len() != d {
            return Err(StatsError::InvalidArgument(format!(
                "row {i} has a different number of outcomes"
            )));
        }
        let mut nu = vec![1.0; cats];
        for &o in row.iter().chain(prior_row) {
            let slot = nu.get_mut(o as usize).ok_or_else(|| {
                StatsError::InvalidArgument(format!("category {o} has no weight"))
            })?;
            *slot += 1.0;
        }
        let (mut first, mut second) = (0.0, 0.0);
        for (v, w) in nu.iter().zip(weights) {
            let dw = w - weights[0];
            first += v / t * dw;
            second += v / t * dw * dw;
        }
        sum_mu += first;
        sum_var += second - first * first;
    }
    let mf = m as f64;
    Ok(PosteriorMoments {
        mean: weights[0] + sum_mu / mf,
        sd: (sum_var / (mf * mf * (t + 1.0))).max(0.0).sqrt(),
    })
}

/// The posterior of the population pass@k under the hierarchical
/// beta-binomial model of this module: its mean and equal-tailed credible
/// interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct HierarchicalPosterior {
    /// Posterior mean of θ_k.
    pub mean: f64,
    /// Equal-tailed credible interval at the asked level.
    pub interval: Interval,
}

/// Bounds of the (μ, log κ) grid.
const LN_KAPPA: (f64, f64) = (-4.605_170_185_988_091, 9.210_340_371_976_184); // ln 0.01, ln 10⁴
/// Cells of the coarse and the fine pass (μ × log κ).
const COARSE: (usize, usize) = (80, 60);
const FINE: (usize, usize) = (200, 120);
/// Cells below this share of the largest weight leave the fine box.
const NEGLIGIBLE: f64 = 1e-12;

/// The population quantity a [`hierarchical_posterior`] is about.
///
/// ```
/// use rollstat_stats::Estimand;
/// assert_eq!(Estimand::PassPowK(2).k(), 2);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum Estimand {
    /// pass@k: `E[1 − (1 − p)^k] = 1 − B(α, β + k)/B(α, β)` (k = 1: the
    /// mean success rate, avg@n).
    PassAtK(u64),
    /// pass^k: `E[p^k] = B(α + k, β)/B(α, β)`.
    PassPowK(u64),
}

impl Estimand {
    /// The draw size k.
    pub fn k(self) -> u64 {
        match self {
            Estimand::PassAtK(k) | Estimand::PassPowK(k) => k,
        }
    }
}

/// The posterior of the population pass@k from per-problem `(n, c)` counts
/// (see the module docs for the model), at `level`; the same as
/// [`hierarchical_posterior`] with [`Estimand::PassAtK`].
///
/// ```
/// use rollstat_stats::{hierarchical_pass_at_k, BetaPrior};
/// let counts: Vec<(u64, u64)> = (0..20).map(|i| (4, i % 5)).collect();
/// let p = hierarchical_pass_at_k(&counts, 1, BetaPrior::Uniform, 0.95).unwrap();
/// assert!(p.interval.lower < 0.5 && 0.5 < p.interval.upper);
/// ```
pub fn hierarchical_pass_at_k(
    counts: &[(u64, u64)],
    k: u64,
    prior: BetaPrior,
    level: f64,
) -> Result<HierarchicalPosterior> {
    hierarchical_posterior(counts, Estimand::PassAtK(k), prior, level)
}

/// The posterior of the population `estimand` (pass@k or pass^k) from
/// per-problem `(n, c)` counts under the hierarchical beta-binomial model
/// of this module, at `level`.
///
/// ```
/// use rollstat_stats::{hierarchical_posterior, BetaPrior, Estimand};
/// let counts: Vec<(u64, u64)> = (0..20).map(|i| (4, i % 5)).collect();
/// let p = hierarchical_posterior(&counts, Estimand::PassPowK(2), BetaPrior::Uniform, 0.95).unwrap();
/// assert!(p.interval.lower < p.mean && p.mean < p.interval.upper);
/// ```
pub fn hierarchical_posterior(
    counts: &[(u64, u64)],
    estimand: Estimand,
    prior: BetaPrior,
    level: f64,
) -> Result<HierarchicalPosterior> {
    check_level(level)?;
    if estimand.k() == 0 {
        return Err(StatsError::InvalidArgument("k must be at least 1".into()));
    }
    let mut groups: BTreeMap<(u64, u64), f64> = BTreeMap::new();
    for &(n, c) in counts {
        if c > n || n == 0 {
            return Err(StatsError::InvalidArgument(format!(
                "counts (n = {n}, c = {c}) are not rollouts and correct ones"
            )));
        }
        *groups.entry((n, c)).or_default() += 1.0;
    }
    if groups.is_empty() {
        return Err(StatsError::Empty("no problems"));
    }
    let groups: Vec<((f64, f64), f64)> = groups
        .into_iter()
        .map(|((n, c), m)| ((c as f64, (n - c) as f64), m))
        .collect();
    let model = Model {
        groups: &groups,
        prior: prior.params(),
        estimand,
    };
    let coarse = model.grid(((0.0, 1.0), LN_KAPPA), COARSE);
    let fine = model.grid(coarse.mass_box(), FINE);
    Ok(fine.posterior(level))
}

struct Model<'a> {
    /// ((c, n − c), problems with these counts).
    groups: &'a [((f64, f64), f64)],
    prior: (f64, f64),
    estimand: Estimand,
}

/// One grid cell: θ_k at its centre and its μ edges, and its log weight.
#[derive(Clone, Copy)]
struct Cell {
    theta: f64,
    low: f64,
    high: f64,
    lp: f64,
}

/// Grid cells, row-major (μ outer), and the grid's bounds and shape.
struct Grid {
    cells: Vec<Cell>,
    bounds: ((f64, f64), (f64, f64)),
    shape: (usize, usize),
}

impl Model<'_> {
    /// The estimand at (μ, κ): pass@k `1 − B(α, β + k)/B(α, β)` or pass^k
    /// `B(α + k, β)/B(α, β)`; μ itself at k = 1. Both grow with μ at fixed κ.
    fn theta(&self, mu: f64, kappa: f64) -> f64 {
        if self.estimand.k() == 1 {
            return mu;
        }
        let (al, be) = (mu * kappa, (1.0 - mu) * kappa);
        let lb = ln_beta(al, be);
        match self.estimand {
            Estimand::PassAtK(k) => 1.0 - (ln_beta(al, be + k as f64) - lb).exp(),
            Estimand::PassPowK(k) => (ln_beta(al + k as f64, be) - lb).exp(),
        }
    }

    /// The cell centred at (μ, ln κ), `h` wide in μ: log posterior (up to a
    /// constant), θ_k at its centre and at its μ edges (θ_k grows with μ).
    fn cell(&self, mu: f64, ln_kappa: f64, h: f64) -> Cell {
        let kappa = ln_kappa.exp();
        let (al, be) = (mu * kappa, (1.0 - mu) * kappa);
        let (a, b) = self.prior;
        // μ ~ Beta(a, b); on the log κ scale the density 1/(1+κ)² gains the
        // Jacobian κ.
        let mut lp =
            (a - 1.0) * mu.ln() + (b - 1.0) * (-mu).ln_1p() + ln_kappa - 2.0 * kappa.ln_1p();
        let lb = ln_beta(al, be);
        for &((c, f), m) in self.groups {
            lp += m * (ln_beta(c + al, f + be) - lb);
        }
        Cell {
            theta: self.theta(mu, kappa),
            low: self.theta(mu - 0.5 * h, kappa),
            high: self.theta(mu + 0.5 * h, kappa),
            lp,
        }
    }

    fn grid(&self, bounds: ((f64, f64), (f64, f64)), shape: (usize, usize)) -> Grid {
        let ((m0, m1), (l0, l1)) = bounds;
        let (gm, gk) = shape;
        let cells = (0..gm)
            .into_par_iter()
            .flat_map_iter(|i| {
                let h = (m1 - m0) / gm as f64;
                let mu = m0 + h * (i as f64 + 0.5);
                (0..gk).map(move |j| {
                    let lk = l0 + (l1 - l0) * (j as f64 + 0.5) / gk as f64;
                    self.cell(mu, lk, h)
                })
            })
            .collect();
        Grid {
            cells,
            bounds,
            shape,
        }
    }
}

impl Grid {
    /// The smallest box of cells (widened by one cell) holding every cell
    /// above [`NEGLIGIBLE`] of the largest weight.
    fn mass_box(&self) -> ((f64, f64), (f64, f64)) {
        let top = self.cells.iter().map(|c| c.lp).fold(f64::MIN, f64::max);
        let cut = top + NEGLIGIBLE.ln();
        let (gm, gk) = self.shape;
        let (mut i0, mut i1, mut j0, mut j1) = (gm, 0, gk, 0);
        for (idx, _) in self.cells.iter().enumerate().filter(|(_, c)| c.lp >= cut) {
            let (i, j) = (idx / gk, idx % gk);
            (i0, i1, j0, j1) = (i0.min(i), i1.max(i), j0.min(j), j1.max(j));
        }
        let ((m0, m1), (l0, l1)) = self.bounds;
        let edge = |lo: f64, hi: f64, from: usize, to: usize, g: usize| {
            let w = (hi - lo) / g as f64;
            (
                lo + w * from.saturating_sub(1) as f64,
                lo + w * (to + 2).min(g) as f64,
            )
        };
        (edge(m0, m1, i0, i1, gm), edge(l0, l1, j0, j1, gk))
    }

    /// Mean and equal-tailed interval of θ_k: each cell's weight spread
    /// evenly over θ_k between its μ edges.
    fn posterior(&self, level: f64) -> HierarchicalPosterior {
        let top = self.cells.iter().map(|c| c.lp).fold(f64::MIN, f64::max);
        let spread: Vec<Spread> = self
            .cells
            .iter()
            .map(|c| Spread {
                low: c.low,
                high: c.high,
                weight: (c.lp - top).exp(),
            })
            .collect();
        let total: f64 = spread.iter().map(|c| c.weight).sum();
        let mean = self
            .cells
            .iter()
            .zip(&spread)
            .map(|(c, s)| c.theta * s.weight)
            .sum::<f64>()
            / total;
        let alpha = 1.0 - level;
        HierarchicalPosterior {
            mean,
            interval: Interval {
                lower: spread_quantile(&spread, total, alpha / 2.0),
                upper: spread_quantile(&spread, total, 1.0 - alpha / 2.0),
            },
        }
    }
}

/// A cell's weight, spread evenly over `[low, high]`.
struct Spread {
    low: f64,
    high: f64,
    weight: f64,
}

impl Spread {
    /// The weight at or below `x`.
    fn below(&self, x: f64) -> f64 {
        if x >= self.high {
            self.weight
        } else if x <= self.low {
            0.0
        } else {
            self.weight * (x - self.low) / (self.high - self.low)
        }
    }
}

/// The `p` quantile of the spread cells' distribution, by bisection on its
/// (continuous, nondecreasing) CDF to 1e-12.
fn spread_quantile(cells: &[Spread], total: f64, p: f64) -> f64 {
    let target = p * total;
    let lo0 = cells.iter().map(|c| c.low).fold(f64::INFINITY, f64::min);
    let hi0 = cells
        .iter()
        .map(|c| c.high)
        .fold(f64::NEG_INFINITY, f64::max);
    let (mut lo, mut hi) = (lo0, hi0);
    while hi - lo > 1e-12 {
        let mid = 0.5 * (lo + hi);
        if cells.iter().map(|c| c.below(mid)).sum::<f64>() < target {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// decisions-2026-12 §5c, Beta–binomial posterior pass@k [D], uniform
    /// prior: (n, c, k) → (mean, SD).
    #[test]
    fn posterior_moments_match_the_research_vectors() {
        let cases = [
            ((5, 3, 2), 0.7857142857, 0.1597191412),
            ((10, 0, 5), 0.3125, 0.2261708951),
            ((16, 8, 4), 0.9172932331, 0.0711259742),
            ((4, 1, 4), 0.7222222222, 0.2259305964),
        ];
        for ((n, c, k), mean, sd) in cases {
            let m = posterior_pass_at_k(n, c, k, BetaPrior::Uniform).unwrap();
            assert!((m.mean - mean).abs() < 1e-9, "{n} {c} {k}: {m:?}");
            assert!((m.sd - sd).abs() < 1e-9, "{n} {c} {k}: {m:?}");
        }
        // Extrapolation from (4, 1) to k = 64: 0.99574.
        let m = posterior_pass_at_k(4, 1, 64, BetaPrior::Uniform).unwrap();
        assert!((m.mean - 0.99574).abs() < 5e-6, "{m:?}");
    }

    /// Jeffreys prior, by numerical integration in scipy 1.17.1:
    /// `quad(lambda p: (1-(1-p)**k) * beta.pdf(p, c+.5, n-c+.5), 0, 1)` and
    /// the second moment likewise (epsabs = epsrel = 1e-13), for (n, c, k) = (5, 3, 2) and (10, 0, 5).
    #[test]
    fn jeffreys_moments_match_numerical_integration() {
        let cases = [
            ((5, 3, 2), 0.7916666666666667, 0.1679637030895522),
            ((10, 0, 5), 0.1800972465034965, 0.1982328955397754),
        ];
        for ((n, c, k), mean, sd) in cases {
            let m = posterior_pass_at_k(n, c, k, BetaPrior::Jeffreys).unwrap();
            assert!((m.mean - mean).abs() < 1e-7, "{n} {c} {k}: {m:?}");
            assert!((m.sd - sd).abs() < 1e-7, "{n} {c} {k}: {m:?}");
        }
    }

    /// statistics.md §5.3 (scorio docstring, recomputed there): Bayes@N.
    #[test]
    fn bayes_at_n_matches_the_published_vectors() {
        let r = vec![vec![0, 1, 2, 2, 1], vec![1, 1, 0, 2, 2]];
        let w = [0.0, 0.5, 1.0];
        let prior = vec![vec![0, 2], vec![1, 2]];
        let m = bayes_at_n(&r, &w, Some(&prior)).unwrap();
        assert!((m.mean - 0.575).abs() < 1e-12, "{m:?}");
        assert!((m.sd - 0.08427498281).abs() < 1e-10, "{m:?}");
        let m = bayes_at_n(&r, &w, None).unwrap();
        assert!((m.mean - 0.5625).abs() < 1e-12, "{m:?}");
        assert!((m.sd - 0.09199750902).abs() < 1e-10, "{m:?}");
        let binary = vec![vec![0, 1, 1, 0, 1], vec![1, 1, 0, 1, 1]];
        let m = bayes_at_n(&binary, &[0.0, 1.0], None).unwrap();
        assert!((m.mean - 0.642857143).abs() < 1e-9, "{m:?}");
        assert!((m.sd - 0.118450885).abs() < 1e-9, "{m:?}");
    }

    #[test]
    fn bayes_at_n_names_bad_input() {
        assert!(bayes_at_n(&[], &[0.0, 1.0], None).is_err());
        assert!(bayes_at_n(&[vec![3]], &[0.0, 1.0], None).is_err());
        assert!(bayes_at_n(&[vec![0, 1], vec![1]], &[0.0, 1.0], None).is_err());
    }

    #[test]
    fn hierarchical_names_bad_input() {
        assert!(hierarchical_pass_at_k(&[], 1, BetaPrior::Uniform, 0.95).is_err());
        assert!(hierarchical_pass_at_k(&[(4, 5)], 1, BetaPrior::Uniform, 0.95).is_err());
        assert!(hierarchical_pass_at_k(&[(4, 1)], 0, BetaPrior::Uniform, 0.95).is_err());
        assert!(hierarchical_pass_at_k(&[(4, 1)], 1, BetaPrior::Uniform, 1.5).is_err());
    }

    /// The hierarchical posterior against the same model integrated by
    /// adaptive quadrature in scipy 1.17.1 (`integrate.dblquad` over μ and
    /// ln κ, epsrel 1e-10; the k = 1 bounds by `optimize.brentq` on the
    /// integrated CDF of μ). Data A: 20 problems, n = 4, c = i mod 5; B: 10
    /// problems, n = 16, c = 0,0,0,1,2,5,16,16,3,0. Each row: prior, data,
    /// mean at k = 1, mean at k = 4, the 95% interval at k = 1.
    #[test]
    fn hierarchical_matches_quadrature() {
        let a: Vec<(u64, u64)> = (0..20).map(|i| (4, i % 5)).collect();
        let b: Vec<(u64, u64)> = [0, 0, 0, 1, 2, 5, 16, 16, 3, 0]
            .iter()
            .map(|&c| (16, c))
            .collect();
        let rows = [
            (
                BetaPrior::Uniform,
                &a,
                0.5,
                0.7868659521513924,
                (0.3510402794997227, 0.648959720500278),
            ),
            (
                BetaPrior::Jeffreys,
                &a,
                0.5,
                0.7866431181319,
                (0.34923245038860384, 0.6507675496113975),
            ),
            (
                BetaPrior::Uniform,
                &b,
                0.35905607873655926,
                0.48491384975765756,
                (0.15991432257679475, 0.5990455479324077),
            ),
            (
                BetaPrior::Jeffreys,
                &b,
                0.3505650000832874,
                0.47568477901720324,
                (0.14939782472285282, 0.5972707572636513),
            ),
        ];
        for (prior, counts, m1, m4, (lo, hi)) in rows {
            let p1 = hierarchical_pass_at_k(counts, 1, prior, 0.95).unwrap();
            let p4 = hierarchical_pass_at_k(counts, 4, prior, 0.95).unwrap();
            assert!((p1.mean - m1).abs() < 1e-8, "{prior:?} {p1:?}");
            assert!((p4.mean - m4).abs() < 1e-8, "{prior:?} {p4:?}");
            assert!((p1.interval.lower - lo).abs() < 1e-4, "{prior:?} {p1:?}");
            assert!((p1.interval.upper - hi).abs() < 1e-4, "{prior:?} {p1:?}");
        }
    }

    /// pass^2 on data A (uniform prior) against scipy 1.17.1 quadrature: the
    /// mean by nested `integrate.quad` over μ and ln κ, the bounds by
    /// `brentq` on the CDF that integrates μ up to the root of
    /// θ(μ, κ) = x for each κ.
    #[test]
    fn pass_pow_k_matches_quadrature() {
        let a: Vec<(u64, u64)> = (0..20).map(|i| (4, i % 5)).collect();
        let p =
            hierarchical_posterior(&a, Estimand::PassPowK(2), BetaPrior::Uniform, 0.95).unwrap();
        assert!((p.mean - 0.34055192445998567).abs() < 1e-8, "{p:?}");
        assert!(
            (p.interval.lower - 0.19523186763695585).abs() < 1e-4,
            "{p:?}"
        );
        assert!(
            (p.interval.upper - 0.5124932409296455).abs() < 1e-4,
            "{p:?}"
        );
    }

    /// Cells spread their weight evenly: two unit cells on [0, 1] and
    /// [1, 3] put the median at 1 and the 0.75 quantile at 2.
    #[test]
    fn spread_quantile_inverts_the_piecewise_linear_cdf() {
        let cells = [
            Spread {
                low: 0.0,
                high: 1.0,
                weight: 1.0,
            },
            Spread {
                low: 1.0,
                high: 3.0,
                weight: 1.0,
            },
        ];
        assert!((spread_quantile(&cells, 2.0, 0.5) - 1.0).abs() < 1e-11);
        assert!((spread_quantile(&cells, 2.0, 0.75) - 2.0).abs() < 1e-11);
        assert!((spread_quantile(&cells, 2.0, 0.25) - 0.5).abs() < 1e-11);
    }
}
