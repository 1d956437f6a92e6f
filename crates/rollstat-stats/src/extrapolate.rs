//! pass@K beyond the sampled n: a beta-binomial model of per-problem success
//! probabilities (docs/statistics.md §7).
//!
//! Each problem i has a success probability p_i; its c_i of n_i rollouts are
//! Binomial(n_i, p_i). Across problems p ~ Beta(α, β), so c_i is
//! beta-binomial. (α, β) are fitted by maximum likelihood over the problems'
//! (n, c), and pass@K for any K — also K > n — is the model's
//!
//! ```text
//! pass@K_fit = 1 − E[(1 − p)^K] = 1 − B(α, β + K) / B(α, β)
//!            = 1 − Π_{j<K} (β + j) / (α + β + j).
//! ```
//!
//! For large K the failure rate decays as Γ(α+β)/Γ(β) · K^(−α): the power-law
//! tail of Schaeffer et al. (2025) is the beta's left tail, with exponent α.
//!
//! This is **model-based**: unlike the unbiased pass@k for k ≤ n it rests on
//! the beta assumption (a problem the model can never solve, p = 0, has no
//! place in it). [`extrapolate_pass_at_k`] therefore returns a goodness-of-fit
//! check beside the values, and a percentile bootstrap interval over problems
//! that refits the model in every resample.

use rayon::prelude::*;

use crate::dist::{chi2_sf, ln_choose};
use crate::error::{Result, StatsError};
use crate::multinomial::multinomial;
use crate::rng;

/// Seeds of the extrapolation bootstrap are separated from the report's own
/// resampling streams (which use the seed as given).
const DOMAIN: u64 = 0x6578_7472_6170_6f6c; // "extrapol"

/// log Γ(x + m) − log Γ(x), the log of the rising factorial x(x+1)…(x+m−1).
fn ln_rising(x: f64, m: u64) -> f64 {
    if m <= 32 {
        return (0..m).map(|j| (x + j as f64).ln()).sum();
    }
    // Peel terms until x ≥ 10, then Stirling's series for the difference,
    // written so that nothing large cancels: (x − ½)·ln(1 + m/x) + m·ln(x + m)
    // − m + S(x + m) − S(x).
    let (mut x, mut m, mut acc) = (x, m as f64, 0.0);
    while x < 10.0 {
        acc += x.ln();
        x += 1.0;
        m -= 1.0;
    }
    let s = |y: f64| {
        let y2 = y * y;
        (1.0 / 12.0 - (1.0 / 360.0 - (1.0 / 1260.0 - 1.0 / (1680.0 * y2)) / y2) / y2) / y
    };
    acc + (x - 0.5) * (m / x).ln_1p() + m * (x + m).ln() - m + s(x + m) - s(x)
}

/// ψ(x + m) − ψ(x) for m > 32: peel terms until x ≥ 12, then the
/// asymptotic series of the difference with the logarithms as ln(1 + m/x),
/// so nothing large cancels when x ≫ m.
fn digamma_difference(x: f64, m: u64) -> f64 {
    let (mut x, mut m, mut acc) = (x, m as f64, 0.0);
    while x < 12.0 {
        acc += 1.0 / x;
        x += 1.0;
        m -= 1.0;
    }
    let tail = |z: f64| {
        let i2 = 1.0 / (z * z);
        0.5 / z
            + i2 * (1.0 / 12.0
                - i2 * (1.0 / 120.0 - i2 * (1.0 / 252.0 - i2 * (1.0 / 240.0 - i2 / 132.0))))
    };
    acc + (m / x).ln_1p() - tail(x + m) + tail(x)
}

/// ψ′(x): trigamma, by recurrence to x ≥ 12 and the asymptotic series
/// (truncation error below 1e-13 there).
fn trigamma(x: f64) -> f64 {
    let (mut x, mut acc) = (x, 0.0);
    while x < 12.0 {
        acc += 1.0 / (x * x);
        x += 1.0;
    }
    let i = 1.0 / x;
    let i2 = i * i;
    acc + i + 0.5 * i2 + i * i2 * (1.0 / 6.0 - i2 * (1.0 / 30.0 - i2 * (1.0 / 42.0 - i2 / 30.0)))
}

/// (ψ(x + m) − ψ(x), ψ′(x + m) − ψ′(x)): first and second derivatives of
/// [`ln_rising`] in x.
fn rising_derivatives(x: f64, m: u64) -> (f64, f64) {
    if m <= 32 {
        return (0..m).fold((0.0, 0.0), |(d1, d2), j| {
            let t = 1.0 / (x + j as f64);
            (d1 + t, d2 - t * t)
        });
    }
    let y = x + m as f64;
    (digamma_difference(x, m), trigamma(y) - trigamma(x))
}

/// Distinct (n, c) pairs of a set of problems, with how many problems have
/// each: the sufficient statistic of the beta-binomial likelihood.
///
/// ```
/// use rollstat_stats::CountTable;
/// let t = CountTable::new(&[(4, 1), (4, 1), (4, 3)]);
/// assert_eq!(t.len(), 2);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct CountTable {
    types: Vec<(u64, u64)>,
    sizes: Vec<u64>,
}

impl CountTable {
    /// Tallies problems given as (n, c) — rollouts and correct rollouts.
    /// Problems with n = 0 carry no information and are left out.
    pub fn new(problems: &[(u64, u64)]) -> CountTable {
        let mut sorted: Vec<(u64, u64)> =
            problems.iter().copied().filter(|&(n, _)| n > 0).collect();
        sorted.sort_unstable();
        let mut table = CountTable {
            types: Vec::new(),
            sizes: Vec::new(),
        };
        for t in sorted {
            if table.types.last() == Some(&t) {
                *table.sizes.last_mut().expect("sizes follow types") += 1;
            } else {
                table.types.push(t);
                table.sizes.push(1);
            }
        }
        table
    }

    /// Number of distinct (n, c) pairs.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Whether no problem has a rollout.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Number of problems tallied.
    pub fn n_problems(&self) -> u64 {
        self.sizes.iter().sum()
    }

    fn weights(&self) -> Vec<f64> {
        self.sizes.iter().map(|&s| s as f64).collect()
    }
}

/// A fitted Beta(α, β) distribution of per-problem success probabilities.
///
/// ```
/// use rollstat_stats::BetaBinomialFit;
/// let f = BetaBinomialFit { alpha: 1.0, beta: 1.0, log_likelihood: 0.0, iterations: 0, converged: true };
/// // p ~ Uniform(0, 1): E[(1 − p)^K] = 1/(K + 1).
/// assert!((f.pass_at(3.0) - 0.75).abs() < 1e-15);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BetaBinomialFit {
    /// α of the beta distribution.
    pub alpha: f64,
    /// β of the beta distribution.
    pub beta: f64,
    /// The maximized log-likelihood of the (n, c) counts.
    pub log_likelihood: f64,
    /// Newton iterations taken.
    pub iterations: u32,
    /// Whether the gradient reached its tolerance (else the iteration cap or
    /// a parameter bound stopped it).
    pub converged: bool,
}

impl BetaBinomialFit {
    /// pass@K under the fitted model: 1 − B(α, β + K)/B(α, β); K may exceed
    /// every problem's n and need not be an integer.
    pub fn pass_at(&self, k: f64) -> f64 {
        let (a, b) = (self.alpha, self.beta);
        let ln_fail = if k.fract() == 0.0 && k <= 32.0 {
            (0..k as u64)
                .map(|j| (-a / (a + b + j as f64)).ln_1p())
                .sum()
        } else {
            ln_gamma_ratio(b, k) - ln_gamma_ratio(a + b, k)
        };
        -ln_fail.exp_m1()
    }

    /// P(c of n correct) under the fitted beta-binomial.
    pub fn pmf(&self, n: u64, c: u64) -> f64 {
        let (a, b) = (self.alpha, self.beta);
        (ln_choose(n, c) + ln_rising(a, c) + ln_rising(b, n - c) - ln_rising(a + b, n)).exp()
    }
}

/// log Γ(x + k) − log Γ(x) for real k ≥ 0 (integer k through [`ln_rising`]).
fn ln_gamma_ratio(x: f64, k: f64) -> f64 {
    if k.fract() == 0.0 {
        return ln_rising(x, k as u64);
    }
    // Split off the fractional part: Γ(x + k)/Γ(x) = Γ(x + f)/Γ(x) · rising(x + f, ⌊k⌋).
    let f = k.fract();
    crate::dist::ln_gamma(x + f) - crate::dist::ln_gamma(x) + ln_rising(x + f, k.floor() as u64)
}

/// Log-likelihood (up to the binomial coefficients) and its gradient and
/// Hessian in (log α, log β).
struct Objective {
    value: f64,
    grad: [f64; 2],
    hess: [[f64; 2]; 2],
}

fn objective(table: &CountTable, w: &[f64], u: f64, v: f64) -> Objective {
    let (a, b) = (u.exp(), v.exp());
    let (mut ll, mut ga, mut gb, mut haa, mut hbb, mut hab) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for (&(n, c), &wt) in table.types.iter().zip(w) {
        if wt == 0.0 {
            continue;
        }
        ll += wt * (ln_rising(a, c) + ln_rising(b, n - c) - ln_rising(a + b, n));
        let (da1, da2) = rising_derivatives(a, c);
        let (db1, db2) = rising_derivatives(b, n - c);
        let (ds1, ds2) = rising_derivatives(a + b, n);
        ga += wt * (da1 - ds1);
        gb += wt * (db1 - ds1);
        haa += wt * (da2 - ds2);
        hbb += wt * (db2 - ds2);
        hab -= wt * ds2;
    }
    Objective {
        value: ll,
        grad: [a * ga, b * gb],
        hess: [
            [a * a * haa + a * ga, a * b * hab],
            [a * b * hab, b * b * hbb + b * gb],
        ],
    }
}

/// log α and log β stay in [−BOUND, BOUND]: beyond it the beta is a point
/// mass at 0 or 1, or the counts are binomial (no overdispersion), and
/// pass@K no longer changes in the digits reported.
const BOUND: f64 = 20.0;
const MAX_ITERATIONS: u32 = 200;

/// Maximum-likelihood fit of Beta(α, β) to per-problem (n, c) counts,
/// weighting each distinct (n, c) by `weights` (problem counts, or bootstrap
/// multiplicities), from a starting point.
fn fit_weighted(table: &CountTable, w: &[f64], start: (f64, f64)) -> BetaBinomialFit {
    let total: f64 = w.iter().sum();
    let (mut u, mut v) = start;
    let mut cur = objective(table, w, u, v);
    let mut lambda = 1e-3;
    let mut iterations = 0;
    let mut converged = false;
    while iterations < MAX_ITERATIONS {
        iterations += 1;
        if cur.grad[0].abs().max(cur.grad[1].abs()) <= 1e-9 * total.max(1.0) {
            converged = true;
            break;
        }
        let Some((nu, nv, next)) = damped_step(table, w, (u, v), &cur, &mut lambda) else {
            break;
        };
        (u, v, cur) = (nu, nv, next);
    }
    BetaBinomialFit {
        alpha: u.exp(),
        beta: v.exp(),
        log_likelihood: cur.value,
        iterations,
        converged,
    }
}

/// One Levenberg–Marquardt step on −log-likelihood: solve (−H + λI)·d = g,
/// raising λ until the likelihood does not fall. `None` when no step helps.
fn damped_step(
    table: &CountTable,
    w: &[f64],
    (u, v): (f64, f64),
    cur: &Objective,
    lambda: &mut f64,
) -> Option<(f64, f64, Objective)> {
    let [g0, g1] = cur.grad;
    for _ in 0..60 {
        let m00 = -cur.hess[0][0] + *lambda;
        let m11 = -cur.hess[1][1] + *lambda;
        let m01 = -cur.hess[0][1];
        let det = m00 * m11 - m01 * m01;
        if det > 0.0 && m00 > 0.0 {
            let du = (m11 * g0 - m01 * g1) / det;
            let dv = (m00 * g1 - m01 * g0) / det;
            let (nu, nv) = ((u + du).clamp(-BOUND, BOUND), (v + dv).clamp(-BOUND, BOUND));
            if (nu, nv) == (u, v) {
                return None;
            }
            let next = objective(table, w, nu, nv);
            if next.value >= cur.value - 1e-12 * cur.value.abs() {
                *lambda = (*lambda * 0.3).max(1e-12);
                return Some((nu, nv, next));
            }
        }
        *lambda = (*lambda * 10.0).max(1e-6);
    }
    None
}

/// A method-of-moments start for the fit, in (log α, log β).
fn moment_start(table: &CountTable) -> (f64, f64) {
    let (mut s, mut s2, mut nsum, mut count) = (0.0, 0.0, 0.0, 0.0);
    for (&(n, c), &k) in table.types.iter().zip(&table.sizes) {
        let (k, p) = (k as f64, c as f64 / n as f64);
        s += k * p;
        s2 += k * p * p;
        nsum += k * n as f64;
        count += k;
    }
    let mean = (s / count).clamp(1e-3, 1.0 - 1e-3);
    let var = (s2 / count - (s / count).powi(2)).max(0.0);
    let n = nsum / count;
    // Var(c/n) = μ(1 − μ)·(1 + (n − 1)ρ)/n, ρ = 1/(α + β + 1).
    let rho = if n > 1.0 {
        ((var * n / (mean * (1.0 - mean)) - 1.0) / (n - 1.0)).clamp(1e-3, 0.999)
    } else {
        0.5
    };
    let size = 1.0 / rho - 1.0;
    ((mean * size).ln(), ((1.0 - mean) * size).ln())
}

/// Fits Beta(α, β) to per-problem (n, c) counts by maximum likelihood.
///
/// Errors when the counts cannot identify a beta: no problem with a
/// rollout, or every rollout of every problem correct (or every one wrong).
///
/// ```
/// use rollstat_stats::{fit_beta_binomial, CountTable};
/// // Counts 0..=4 of 4, each once: exactly Beta(1, 1)'s uniform beta-binomial
/// // shape is not forced, but the fitted mean is the pooled 1/2.
/// let f = fit_beta_binomial(&CountTable::new(&[(4, 0), (4, 1), (4, 2), (4, 3), (4, 4)])).unwrap();
/// assert!((f.alpha / (f.alpha + f.beta) - 0.5).abs() < 1e-9);
/// ```
pub fn fit_beta_binomial(table: &CountTable) -> Result<BetaBinomialFit> {
    identifiable(table.types.iter())?;
    Ok(fit_weighted(table, &table.weights(), moment_start(table)))
}

/// Whether counts of these (n, c) types can identify a beta: some success
/// and some failure.
fn identifiable<'a>(types: impl Iterator<Item = &'a (u64, u64)> + Clone) -> Result<()> {
    if types.clone().next().is_none() {
        return Err(StatsError::Empty("no problem has a rollout"));
    }
    if types.clone().all(|&(_, c)| c == 0) {
        return Err(StatsError::InvalidArgument(
            "no rollout of any problem is correct: the beta fit has no successes to extrapolate"
                .into(),
        ));
    }
    if types.clone().all(|&(n, _)| n < 2) {
        return Err(StatsError::InvalidArgument(
            "every problem has one rollout: the spread of success rates between problems, which the extrapolation rests on, needs problems with at least 2".into(),
        ));
    }
    if types.clone().all(|&(n, c)| c == n) {
        return Err(StatsError::InvalidArgument(
            "every rollout of every problem is correct: nothing to extrapolate".into(),
        ));
    }
    Ok(())
}

/// Pearson's χ² of the fitted beta-binomial against the observed counts of
/// c among the problems with the most common n.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FitCheck {
    /// The n whose problems were binned (the most common n; ties: larger).
    pub n: u64,
    /// Problems with that n.
    pub n_problems: u64,
    /// Pearson's χ² over bins of c merged until each expects ≥ 5 problems.
    pub chi2: f64,
    /// Bins − 1 − 2 fitted parameters.
    pub df: u32,
    /// P(χ²_df ≥ chi2); small values say the beta does not describe the data.
    pub p_value: f64,
}

/// The goodness-of-fit check of a fit; `None` when the bins leave no degree
/// of freedom (too few problems).
///
/// ```
/// use rollstat_stats::{fit_beta_binomial, fit_check, CountTable};
/// let problems: Vec<(u64, u64)> = (0..200).map(|i| (8, (i * 7 % 9) as u64)).collect();
/// let t = CountTable::new(&problems);
/// let check = fit_check(&t, &fit_beta_binomial(&t).unwrap()).unwrap();
/// assert_eq!((check.n, check.n_problems), (8, 200));
/// ```
pub fn fit_check(table: &CountTable, fit: &BetaBinomialFit) -> Option<FitCheck> {
    let mut by_n: Vec<(u64, u64)> = Vec::new();
    for (&(n, _), &k) in table.types.iter().zip(&table.sizes) {
        match by_n.last_mut() {
            Some((m, total)) if *m == n => *total += k,
            _ => by_n.push((n, k)),
        }
    }
    let &(n, n_problems) = by_n.iter().max_by_key(|&&(n, k)| (k, n))?;
    let mut observed = vec![0.0; n as usize + 1];
    for (&(m, c), &k) in table.types.iter().zip(&table.sizes) {
        if m == n {
            observed[c as usize] += k as f64;
        }
    }
    let expected: Vec<f64> = (0..=n).map(|c| n_problems as f64 * fit.pmf(n, c)).collect();
    let bins = merge_bins(&observed, &expected);
    let df = bins.len().checked_sub(3).filter(|&d| d > 0)? as u32;
    let chi2: f64 = bins.iter().map(|(o, e)| (o - e) * (o - e) / e).sum();
    Some(FitCheck {
        n,
        n_problems,
        chi2,
        df,
        p_value: chi2_sf(chi2, df as f64),
    })
}

/// Merges adjacent bins from the left until each expects at least 5; a
/// short last bin joins its neighbour.
fn merge_bins(observed: &[f64], expected: &[f64]) -> Vec<(f64, f64)> {
    let mut bins: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (&oi, &ei) in observed.iter().zip(expected) {
        o += oi;
        e += ei;
        if e >= 5.0 {
            bins.push((o, e));
            (o, e) = (0.0, 0.0);
        }
    }
    if e > 0.0 || o > 0.0 {
        match bins.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => bins.push((o, e)),
        }
    }
    bins
}

/// What [`extrapolate_pass_at_k`] computes.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtrapolationConfig {
    /// The K to extrapolate to.
    pub targets: Vec<u64>,
    /// Bootstrap resamples (0: no interval).
    pub resamples: usize,
    /// Seed of the resampling streams (domain-separated from the report's).
    pub seed: u64,
    /// Two-sided level of the percentile interval.
    pub level: f64,
}

/// pass@K under the fitted model, with its interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Extrapolated {
    /// K.
    pub k: u64,
    /// pass@K_fit on all problems.
    pub value: f64,
    /// Standard deviation of the bootstrap replicates.
    pub stderr: Option<f64>,
    /// Percentile interval over resampled problems (refitted each time).
    pub ci: Option<(f64, f64)>,
}

/// The beta-binomial extrapolation of pass@K: the fit, the values, the
/// goodness-of-fit check and how many resamples could not be refitted.
#[derive(Debug, Clone, PartialEq)]
pub struct Extrapolation {
    /// The fit on all problems.
    pub fit: BetaBinomialFit,
    /// Problems the fit used.
    pub n_problems: u64,
    /// One entry per target K.
    pub values: Vec<Extrapolated>,
    /// χ² goodness of fit, where the bins allow it.
    pub check: Option<FitCheck>,
    /// Resamples whose counts identify no beta (all correct or all wrong) or
    /// whose refit did not converge; left out of the interval.
    pub failed_resamples: usize,
}

/// Fits the beta-binomial to per-problem (n, c) and extrapolates pass@K to
/// each target, with a percentile bootstrap over problems that refits the
/// model in every resample (resample b draws from its own stream, so the
/// result is the same for any thread count).
///
/// ```
/// use rollstat_stats::{extrapolate_pass_at_k, ExtrapolationConfig};
/// let problems: Vec<(u64, u64)> = (0..100).map(|i| (10, (i % 11) as u64)).collect();
/// let cfg = ExtrapolationConfig { targets: vec![100], resamples: 200, seed: 1, level: 0.95 };
/// let x = extrapolate_pass_at_k(&problems, &cfg).unwrap();
/// let v = x.values[0];
/// let (lo, hi) = v.ci.unwrap();
/// assert!(lo <= v.value && v.value <= hi && hi <= 1.0);
/// ```
pub fn extrapolate_pass_at_k(
    problems: &[(u64, u64)],
    cfg: &ExtrapolationConfig,
) -> Result<Extrapolation> {
    if !(cfg.level > 0.0 && cfg.level < 1.0) {
        return Err(StatsError::InvalidLevel(cfg.level));
    }
    let table = CountTable::new(problems);
    let fit = fit_beta_binomial(&table)?;
    let (replicates, failed_resamples) = refit_resamples(&table, &fit, cfg);
    let values = cfg
        .targets
        .iter()
        .enumerate()
        .map(|(i, &k)| {
            let mut column: Vec<f64> = replicates.iter().map(|r| r[i]).collect();
            summarize(k, fit.pass_at(k as f64), &mut column, cfg.level)
        })
        .collect();
    Ok(Extrapolation {
        fit,
        n_problems: table.n_problems(),
        values,
        check: fit_check(&table, &fit),
        failed_resamples,
    })
}

/// pass@K_fit for every target in every resample that could be refitted.
fn refit_resamples(
    table: &CountTable,
    fit: &BetaBinomialFit,
    cfg: &ExtrapolationConfig,
) -> (Vec<Vec<f64>>, usize) {
    let total = table.n_problems();
    let start = (fit.alpha.ln(), fit.beta.ln());
    let results: Vec<Option<Vec<f64>>> = (0..cfg.resamples as u64)
        .into_par_iter()
        .map(|b| {
            let mut r = rng::stream(cfg.seed ^ DOMAIN, b);
            let mut counts = vec![0u32; table.len()];
            multinomial(&mut r, total, &table.sizes, &mut counts);
            let w: Vec<f64> = counts.iter().map(|&k| k as f64).collect();
            let drawn = table.types.iter().zip(&w).filter(|(_, &k)| k > 0.0);
            identifiable(drawn.map(|(t, _)| t)).ok()?;
            let refit = fit_weighted(table, &w, start);
            refit.converged.then(|| {
                cfg.targets
                    .iter()
                    .map(|&k| refit.pass_at(k as f64))
                    .collect()
            })
        })
        .collect();
    let failed = results.iter().filter(|r| r.is_none()).count();
    (results.into_iter().flatten().collect(), failed)
}

fn summarize(k: u64, value: f64, column: &mut [f64], level: f64) -> Extrapolated {
    if column.len() < 2 {
        return Extrapolated {
            k,
            value,
            stderr: None,
            ci: None,
        };
    }
    column.sort_by(f64::total_cmp);
    let m = column.iter().sum::<f64>() / column.len() as f64;
    let var = column.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (column.len() - 1) as f64;
    let alpha = (1.0 - level) / 2.0;
    Extrapolated {
        k,
        value,
        stderr: Some(var.sqrt()),
        ci: Some((
            crate::quantile_sorted(column, alpha),
            crate::quantile_sorted(column, 1.0 - alpha),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ln_rising against the direct sum, across the m ≤ 32 / Stirling switch.
    #[test]
    fn ln_rising_matches_direct_sum() {
        for &x in &[1e-6, 0.03, 0.7, 1.0, 5.5, 12.0, 300.0, 1e6] {
            for &m in &[0u64, 1, 5, 32, 33, 100, 1000, 5000] {
                let direct: f64 = (0..m).map(|j| (x + j as f64).ln()).sum();
                let got = ln_rising(x, m);
                assert!(
                    (got - direct).abs() <= 1e-11 * direct.abs().max(1.0),
                    "x={x} m={m}: {got} vs {direct}"
                );
            }
        }
    }

    /// Derivatives of ln_rising against the direct sums.
    #[test]
    fn rising_derivatives_match_sums() {
        for &x in &[1e-4, 0.5, 3.0, 40.0, 2e5] {
            for &m in &[33u64, 64, 500, 4000] {
                let d1: f64 = (0..m).map(|j| 1.0 / (x + j as f64)).sum();
                let d2: f64 = (0..m).map(|j| -1.0 / (x + j as f64).powi(2)).sum();
                let (g1, g2) = rising_derivatives(x, m);
                assert!((g1 - d1).abs() <= 1e-11 * d1.abs(), "ψ x={x} m={m}");
                assert!((g2 - d2).abs() <= 1e-10 * d2.abs(), "ψ′ x={x} m={m}");
            }
        }
    }

    /// The beta-binomial pmf sums to 1 and matches the closed form of
    /// Beta(1, 1): P(c of n) = 1/(n + 1).
    #[test]
    fn pmf_uniform_beta() {
        let f = BetaBinomialFit {
            alpha: 1.0,
            beta: 1.0,
            log_likelihood: 0.0,
            iterations: 0,
            converged: true,
        };
        for c in 0..=40 {
            assert!((f.pmf(40, c) - 1.0 / 41.0).abs() < 1e-13);
        }
    }

    /// pass@K at non-integer and large K: Beta(1, 1) gives K/(K + 1) exactly.
    #[test]
    fn pass_at_uniform_beta_closed_form() {
        let f = BetaBinomialFit {
            alpha: 1.0,
            beta: 1.0,
            log_likelihood: 0.0,
            iterations: 0,
            converged: true,
        };
        for &k in &[1.0, 2.5, 31.0, 33.0, 100.0, 1e4, 1e7] {
            assert!((f.pass_at(k) - k / (k + 1.0)).abs() < 1e-12, "K={k}");
        }
    }
}
