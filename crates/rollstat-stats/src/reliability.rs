//! Run-to-run reliability of repeated trials over the same problems:
//! one-way ANOVA and ICC(1) / ICC(1,k) with F intervals (Shrout & Fleiss
//! 1979, case 1; McGraw & Wong 1996), verdict flips across trials, the
//! spread of per-run values, and the noise floor of a difference between
//! runs (docs/statistics.md, "Run-to-run reliability").

use serde::Serialize;

use crate::dist::{f_quantile, f_sf, normal_quantile};
use crate::error::{check_level, Result, StatsError};
use crate::flips::within_flip;

/// One-way ANOVA of `n_targets` targets (problems) × `k` exchangeable
/// ratings (trials) each: the mean squares between and within targets.
///
/// ```
/// use rollstat_stats::reliability::OneWayAnova;
/// let a = OneWayAnova::from_rows(&[vec![1.0, 0.0], vec![1.0, 1.0]]).unwrap();
/// assert_eq!((a.msb, a.msw), (0.25, 0.25));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct OneWayAnova {
    /// Targets (problems).
    pub n_targets: usize,
    /// Ratings (trials) per target.
    pub k: usize,
    /// Mean square between targets, `k·Σ(ȳ_i − ȳ)²/(N − 1)`.
    pub msb: f64,
    /// Mean square within targets, `ΣΣ(y_it − ȳ_i)²/(N(k − 1))`.
    pub msw: f64,
}

impl OneWayAnova {
    /// From a balanced table, one row per target. Needs ≥ 2 rows of equal
    /// length ≥ 2.
    pub fn from_rows(rows: &[Vec<f64>]) -> Result<OneWayAnova> {
        let k = rows.first().map_or(0, Vec::len);
        if let Some(r) = rows.iter().find(|r| r.len() != k) {
            return Err(StatsError::LengthMismatch {
                what: "ratings per target",
                left: k,
                right: r.len(),
            });
        }
        let stats = rows.iter().map(|r| {
            let m = r.iter().sum::<f64>() / k as f64;
            (m, r.iter().map(|y| (y - m).powi(2)).sum::<f64>())
        });
        Self::from_target_stats(stats, k)
    }

    /// From 0/1 trials: `c[i]` successes of `k` trials per target (the
    /// within sum of squares of a target is `c(k − c)/k`).
    ///
    /// ```
    /// use rollstat_stats::reliability::OneWayAnova;
    /// let a = OneWayAnova::from_counts(&[1, 2], 2).unwrap();
    /// assert_eq!(a, OneWayAnova::from_rows(&[vec![1.0, 0.0], vec![1.0, 1.0]]).unwrap());
    /// ```
    pub fn from_counts(c: &[u64], k: u64) -> Result<OneWayAnova> {
        if c.iter().any(|&c| c > k) {
            return Err(StatsError::InvalidArgument(
                "a count exceeds the trials".into(),
            ));
        }
        let kf = k as f64;
        let stats = c.iter().map(|&c| {
            let c = c as f64;
            (c / kf, c * (kf - c) / kf)
        });
        Self::from_target_stats(stats, k as usize)
    }

    /// From each target's (mean, within sum of squares).
    fn from_target_stats(
        stats: impl Iterator<Item = (f64, f64)> + Clone,
        k: usize,
    ) -> Result<OneWayAnova> {
        Self::from_weighted_stats(stats.map(|(m, s)| (m, s, 1.0)), k)
    }

    /// From (mean, within sum of squares, how many targets have them):
    /// targets grouped by their values, as a bootstrap resample draws them.
    fn from_weighted_stats(
        stats: impl Iterator<Item = (f64, f64, f64)> + Clone,
        k: usize,
    ) -> Result<OneWayAnova> {
        let n: f64 = stats.clone().map(|s| s.2).sum();
        if n < 2.0 || k < 2 {
            return Err(StatsError::Empty("need 2 targets with 2 ratings each"));
        }
        let grand = stats.clone().map(|s| s.2 * s.0).sum::<f64>() / n;
        let between: f64 = stats.clone().map(|s| s.2 * (s.0 - grand).powi(2)).sum();
        let within: f64 = stats.map(|s| s.2 * s.1).sum();
        Ok(OneWayAnova {
            n_targets: n as usize,
            k,
            msb: k as f64 * between / (n - 1.0),
            msw: within / (n * (k - 1) as f64),
        })
    }

    /// ICC(1), `(MSB − MSW)/(MSB + (k − 1)·MSW)`; `None` without any
    /// variation (MSB = MSW = 0).
    pub fn icc1(&self) -> Option<f64> {
        let denominator = self.msb + (self.k as f64 - 1.0) * self.msw;
        (denominator > 0.0).then(|| (self.msb - self.msw) / denominator)
    }

    /// Degrees of freedom (between, within): `(N − 1, N(k − 1))`.
    pub fn df(&self) -> (f64, f64) {
        let n = self.n_targets as f64;
        (n - 1.0, n * (self.k as f64 - 1.0))
    }
}

/// An interval `[lower, upper]`.
pub type Bounds = (f64, f64);

/// ICC(1) (single trial) and ICC(1,k) (mean of the k trials) of a one-way
/// model, with their F-based intervals (Shrout & Fleiss 1979, eqs. for
/// case 1; McGraw & Wong 1996, Table 7).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Icc {
    /// `(MSB − MSW)/(MSB + (k − 1)·MSW)`: the share of one trial's variance
    /// that is the problem's.
    pub icc1: f64,
    /// `(MSB − MSW)/MSB`: the reliability of the mean of the k trials.
    pub icc1k: f64,
    /// Interval for `icc1` at `level`.
    pub icc1_interval: Bounds,
    /// Interval for `icc1k` at `level`.
    pub icc1k_interval: Bounds,
    /// `F = MSB/MSW`.
    pub f: f64,
    /// Degrees of freedom of F.
    pub df: (f64, f64),
    /// P(F ≥ f) under ICC = 0.
    pub p_value: f64,
    /// The interval level.
    pub level: f64,
}

/// ICC(1) and ICC(1,k) from `anova` at `level`. `None` when `MSW = 0`
/// (every target's trials agree: no trial noise to compare against) or
/// `MSB = 0`.
///
/// ```
/// use rollstat_stats::reliability::{icc_oneway, OneWayAnova};
/// let a = OneWayAnova { n_targets: 6, k: 4, msb: 2.0, msw: 1.0 };
/// let icc = icc_oneway(&a, 0.95).unwrap().unwrap();
/// assert!((icc.icc1 - 0.2).abs() < 1e-12 && (icc.icc1k - 0.5).abs() < 1e-12);
/// ```
pub fn icc_oneway(anova: &OneWayAnova, level: f64) -> Result<Option<Icc>> {
    check_level(level)?;
    let OneWayAnova { msb, msw, k, .. } = *anova;
    if !(msw > 0.0) || !(msb > 0.0) {
        return Ok(None);
    }
    let k = k as f64;
    let (d1, d2) = anova.df();
    let f = msb / msw;
    let q = 1.0 - (1.0 - level) / 2.0;
    let f_lo = f / f_quantile(q, d1, d2);
    let f_hi = f * f_quantile(q, d2, d1);
    let single = |x: f64| (x - 1.0) / (x + k - 1.0);
    let mean = |x: f64| 1.0 - 1.0 / x;
    Ok(Some(Icc {
        icc1: anova.icc1().expect("MSB > 0"),
        icc1k: (msb - msw) / msb,
        icc1_interval: (single(f_lo), single(f_hi)),
        icc1k_interval: (mean(f_lo), mean(f_hi)),
        f,
        df: (d1, d2),
        p_value: f_sf(f, d1, d2),
        level,
    }))
}

/// Domain of the ICC bootstrap's streams ("ICCBOOTS").
const ICC_DOMAIN: u64 = 0x4943_4342_4F4F_5453;

/// Percentile bootstrap intervals of ICC(1) and ICC(1,k) over problems.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct IccBootstrap {
    /// Interval for ICC(1).
    pub icc1_interval: Bounds,
    /// Interval for ICC(1,k): the Spearman–Brown image of ICC(1)'s.
    pub icc1k_interval: Bounds,
    /// Resamples with an ICC (a resample whose problems show no variation
    /// at all has none and is left out).
    pub resamples_used: usize,
}

/// ICC(1) of problems of `k` 0/1 trials, `weights[t]` of them with
/// `counts[t]` correct; `None` without any variation (MSB = MSW = 0) or
/// fewer than 2 problems.
fn icc1_of_histogram(counts: &[u64], weights: &[u32], k: u64) -> Option<f64> {
    let kf = k as f64;
    let stats = counts.iter().zip(weights).map(|(&j, &w)| {
        let j = j as f64;
        (j / kf, j * (kf - j) / kf, w as f64)
    });
    OneWayAnova::from_weighted_stats(stats, k as usize)
        .ok()?
        .icc1()
}

/// The distinct correct counts of `c` (ascending) and how many problems
/// have each.
fn count_types(c: &[u64], k: u64) -> (Vec<u64>, Vec<u64>) {
    if k < 4096 {
        let mut dense = vec![0u64; k as usize + 1];
        for &x in c {
            dense[x as usize] += 1;
        }
        return (0..=k).zip(dense).filter(|&(_, n)| n > 0).unzip();
    }
    let mut sorted = c.to_vec();
    sorted.sort_unstable();
    let mut out: (Vec<u64>, Vec<u64>) = (Vec::new(), Vec::new());
    for x in sorted {
        if out.0.last() == Some(&x) {
            *out.1.last_mut().expect("pushed with its count") += 1;
        } else {
            out.0.push(x);
            out.1.push(1);
        }
    }
    out
}

/// ICC(1,k) from ICC(1) by Spearman–Brown, `kρ/(1 + (k − 1)ρ)`, which the
/// one-way ANOVA estimators obey exactly and which is increasing. At
/// ICC(1)'s floor −1/(k − 1) (every problem with the same mean: MSB = 0)
/// it is −∞; so is a value within rounding of the floor, where
/// `1 + (k − 1)ρ` would be a rounding residue of either sign.
///
/// ```
/// use rollstat_stats::reliability::spearman_brown;
/// assert!((spearman_brown(0.2, 4) - 0.5).abs() < 1e-15);
/// assert_eq!(spearman_brown(-1.0 / 14.0, 15), f64::NEG_INFINITY);
/// ```
pub fn spearman_brown(icc1: f64, k: u64) -> f64 {
    let kf = k as f64;
    let denominator = 1.0 + (kf - 1.0) * icc1;
    if denominator <= 1e-12 {
        return f64::NEG_INFINITY;
    }
    kf * icc1 / denominator
}

/// Binomial draws an ICC bootstrap may make (resamples × distinct correct
/// counts): about a second. Past it the resamples shrink to fit.
pub const ICC_BOOTSTRAP_WORK: usize = 20_000_000;

/// Fewer resamples than this, and [`icc_bootstrap`] gives none.
pub const ICC_BOOTSTRAP_MIN_RESAMPLES: usize = 1_000;

/// Percentile bootstrap intervals at `level` of ICC(1) and ICC(1,k) for
/// problems of `k` 0/1 trials, `c[i]` of them correct: each of `resamples`
/// resamples draws the problems with replacement — as how many land on
/// each distinct correct count, an exact multinomial, so the cost grows
/// with the distinct counts (at most k + 1), not the problems — from
/// stream `b` of `seed` (domain-separated), and takes ICC(1) (Hyndman–Fan
/// type 7 quantiles). ICC(1,k)'s interval is the image of ICC(1)'s under
/// Spearman–Brown, `kρ/(1 + (k − 1)ρ)`, which the two estimators obey
/// exactly and which is increasing. The work is bounded: the resamples
/// shrink so that resamples × distinct counts stays within
/// [`ICC_BOOTSTRAP_WORK`]. `None` when fewer than 2 problems, fewer than
/// [`ICC_BOOTSTRAP_MIN_RESAMPLES`] resamples fit, or no resample has an ICC.
///
/// The F interval of [`icc_oneway`] is exact for normal ratings only; on
/// 0/1 trials it under-covers when the ICC is high or the success rate far
/// from ½, at any number of problems; this one approaches its level as
/// problems grow (docs/statistics.md §13.1).
///
/// ```
/// use rollstat_stats::reliability::icc_bootstrap;
/// let c = [0, 0, 1, 2, 3, 4, 4, 4, 1, 0, 3, 4];
/// let b = icc_bootstrap(&c, 4, 0.95, 2000, 7).unwrap().unwrap();
/// let (lo, hi) = b.icc1_interval;
/// assert!(lo < hi && hi <= 1.0);
/// let sb = |r: f64| 4.0 * r / (1.0 + 3.0 * r);
/// assert!((b.icc1k_interval.0 - sb(lo)).abs() < 1e-12);
/// ```
pub fn icc_bootstrap(
    c: &[u64],
    k: u64,
    level: f64,
    resamples: usize,
    seed: u64,
) -> Result<Option<IccBootstrap>> {
    check_level(level)?;
    if k < 2 || c.iter().any(|&x| x > k) {
        return Err(StatsError::InvalidArgument(
            "needs k ≥ 2 trials and counts ≤ k".into(),
        ));
    }
    let (counts, sizes) = count_types(c, k);
    let asked = resamples;
    let resamples = asked.min(ICC_BOOTSTRAP_WORK / counts.len().max(1));
    // Asking for few is the caller's choice; shrinking to few is not.
    if c.len() < 2 || resamples == 0 || resamples < ICC_BOOTSTRAP_MIN_RESAMPLES.min(asked) {
        return Ok(None);
    }
    let mut drawn = vec![0u32; sizes.len()];
    let mut values: Vec<f64> = (0..resamples as u64)
        .filter_map(|b| {
            let mut r = crate::rng::stream(seed ^ ICC_DOMAIN, b);
            crate::multinomial::multinomial(&mut r, c.len() as u64, &sizes, &mut drawn);
            icc1_of_histogram(&counts, &drawn, k)
        })
        .collect();
    if values.is_empty() {
        return Ok(None);
    }
    values.sort_by(f64::total_cmp);
    let tail = (1.0 - level) / 2.0;
    let lo = crate::quantile_sorted(&values, tail);
    let hi = crate::quantile_sorted(&values, 1.0 - tail);
    Ok(Some(IccBootstrap {
        icc1_interval: (lo, hi),
        icc1k_interval: (spearman_brown(lo, k), spearman_brown(hi, k)),
        resamples_used: values.len(),
    }))
}

/// How often verdicts flip across `n` trials of each problem.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FlipStats {
    /// Trials per problem.
    pub n_trials: u64,
    /// Problems.
    pub n_problems: u64,
    /// Problems whose verdict is not the same in every trial (0 < c < n).
    pub n_flipping: u64,
    /// `n_flipping / n_problems`; grows with `n_trials`.
    pub share_flipping: f64,
    /// Mean over problems of the pairwise flip rate `2c(n − c)/(n(n − 1))`:
    /// the chance that two distinct trials of a random problem disagree.
    pub mean_pairwise: f64,
    /// `by_correct[c]`: problems with `c` correct trials, `c = 0..=n`.
    pub by_correct: Vec<u64>,
}

/// [`FlipStats`] of problems with `c[i]` correct of `n ≥ 2` trials each.
///
/// ```
/// let f = rollstat_stats::reliability::flip_stats(&[0, 1, 2, 4], 4).unwrap();
/// assert_eq!(f.n_flipping, 2);
/// assert!((f.mean_pairwise - (0.5 + 4.0 / 6.0) / 4.0).abs() < 1e-15);
/// ```
pub fn flip_stats(c: &[u64], n: u64) -> Result<FlipStats> {
    if c.is_empty() {
        return Err(StatsError::Empty("no problems"));
    }
    if n < 2 {
        return Err(StatsError::InvalidArgument("flips need 2 trials".into()));
    }
    let mut by_correct = vec![0u64; n as usize + 1];
    let mut pairwise = 0.0;
    for &ci in c {
        pairwise +=
            within_flip(ci, n).ok_or(StatsError::InvalidArgument("a count exceeds n".into()))?;
        by_correct[ci as usize] += 1;
    }
    let n_problems = c.len() as u64;
    let n_flipping = n_problems - by_correct[0] - by_correct[n as usize];
    Ok(FlipStats {
        n_trials: n,
        n_problems,
        n_flipping,
        share_flipping: n_flipping as f64 / n_problems as f64,
        mean_pairwise: pairwise / n_problems as f64,
        by_correct,
    })
}

/// Mean, sample SD (N − 1 divisor), min and max of per-run values.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Spread {
    /// Mean of the values.
    pub mean: f64,
    /// Sample standard deviation (`NaN` for one value).
    pub sd: f64,
    /// Smallest value.
    pub min: f64,
    /// Largest value.
    pub max: f64,
}

impl Spread {
    /// `max − min`.
    pub fn range(&self) -> f64 {
        self.max - self.min
    }
}

/// The [`Spread`] of `values` (at least one).
///
/// ```
/// let s = rollstat_stats::reliability::spread(&[0.42, 0.44, 0.40, 0.42]).unwrap();
/// assert!((s.range() - 0.04).abs() < 1e-12);
/// ```
pub fn spread(values: &[f64]) -> Result<Spread> {
    if values.is_empty() {
        return Err(StatsError::Empty("no runs"));
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let ss: f64 = values.iter().map(|v| (v - mean).powi(2)).sum();
    Ok(Spread {
        mean,
        sd: if values.len() > 1 {
            (ss / (n - 1.0)).sqrt()
        } else {
            f64::NAN
        },
        min: values.iter().copied().fold(f64::INFINITY, f64::min),
        max: values.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    })
}

/// How far apart two scores of the same system on the same `n_problems`
/// problems must be before the gap exceeds trial-to-trial noise at
/// `level`: `z·√(2σ²_w/(m·N))` for two means of `m` trials each, where
/// `σ²_w = trial_variance` is the mean within-problem variance of one trial
/// (the mean of `c(n − c)/(n(n − 1))`, unbiased for `p(1 − p)`). The
/// problems are the same on both sides, so between-problem variance
/// cancels.
///
/// ```
/// let f = rollstat_stats::reliability::noise_floor(0.25, 100, 1, 0.95).unwrap();
/// assert!((f - 1.959963984540054 * (0.005f64).sqrt()).abs() < 1e-12);
/// ```
pub fn noise_floor(trial_variance: f64, n_problems: u64, m: u64, level: f64) -> Result<f64> {
    check_level(level)?;
    if n_problems == 0 || m == 0 || !(trial_variance >= 0.0) {
        return Err(StatsError::InvalidArgument(
            "noise floor needs problems, runs and a variance".into(),
        ));
    }
    let z = normal_quantile(1.0 - (1.0 - level) / 2.0);
    Ok(z * (2.0 * trial_variance / (m as f64 * n_problems as f64)).sqrt())
}

/// Whether B's trial-to-trial noise differs from A's on the same problems:
/// per problem the difference of the pairwise flip rates
/// `2c(n − c)/(n(n − 1))` (B − A), their mean, and the two-sided paired
/// sign-flip permutation p ([`crate::sign_flip`]: exact when
/// `permutations` covers every sign pattern, else seeded by `seed`).
/// `problems[i] = (c_a, n_a, c_b, n_b)`; problems where a side has fewer
/// than 2 trials are left out; `None` when none is left.
///
/// ```
/// // A never flips, B flips on 2 of 3 rollout pairs of every problem.
/// let p: Vec<(u64, u64, u64, u64)> = (0..12).map(|_| (0, 4, 2, 4)).collect();
/// let t = rollstat_stats::reliability::noise_difference(&p, 4096, 1).unwrap().unwrap();
/// assert!((t.mean_difference - 2.0 / 3.0).abs() < 1e-12);
/// assert_eq!(t.p_value, 2.0 / 4096.0); // all 12 signs positive: 2 of 2¹² patterns
/// ```
pub fn noise_difference(
    problems: &[(u64, u64, u64, u64)],
    permutations: usize,
    seed: u64,
) -> Result<Option<NoiseDifference>> {
    let pairs: Vec<(f64, f64)> = problems
        .iter()
        .filter_map(|&(ca, na, cb, nb)| Some((within_flip(ca, na)?, within_flip(cb, nb)?)))
        .collect();
    if pairs.is_empty() {
        return Ok(None);
    }
    let d: Vec<f64> = pairs.iter().map(|(a, b)| b - a).collect();
    let n = pairs.len() as f64;
    let test = crate::sign_flip(&d, permutations, seed)?;
    Ok(Some(NoiseDifference {
        n_problems: pairs.len() as u64,
        floor_a: pairs.iter().map(|p| p.0).sum::<f64>() / n,
        floor_b: pairs.iter().map(|p| p.1).sum::<f64>() / n,
        mean_difference: d.iter().sum::<f64>() / n,
        p_value: test.p,
        exact: test.exact,
    }))
}

/// [`noise_difference`]'s result.
///
/// ```
/// let t = rollstat_stats::reliability::NoiseDifference { n_problems: 3, floor_a: 0.1, floor_b: 0.2, mean_difference: 0.1, p_value: 0.25, exact: true };
/// assert!(t.floor_b > t.floor_a);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct NoiseDifference {
    /// Problems with two or more trials on both sides.
    pub n_problems: u64,
    /// A's mean pairwise flip rate on them (its flip floor).
    pub floor_a: f64,
    /// B's mean pairwise flip rate on them.
    pub floor_b: f64,
    /// Mean of B − A.
    pub mean_difference: f64,
    /// Two-sided sign-flip permutation p.
    pub p_value: f64,
    /// Whether every sign pattern was enumerated (else seeded draws).
    pub exact: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three problems with B − A flip-rate differences 1/2, −1/6 and 1/2
    /// (A: c = 2 of 4 → 2/3, B: c = 0 of 4 → 0, …): the exact two-sided
    /// sign-flip p by enumerating the 8 sign patterns, |sum| ≥ |observed|.
    #[test]
    fn noise_difference_by_enumeration() {
        // within: (1,4) → 1/2, (2,4) → 2/3, (0,4) → 0, (1,3) → 2/3, (1,2) → 1.
        let problems = [(0, 4, 1, 4), (2, 4, 1, 4), (0, 4, 1, 4)];
        let d = [0.5, 0.5 - 2.0 / 3.0, 0.5];
        let t = noise_difference(&problems, 1 << 10, 7).unwrap().unwrap();
        assert_eq!(t.n_problems, 3);
        assert!((t.mean_difference - d.iter().sum::<f64>() / 3.0).abs() < 1e-15);
        let obs: f64 = d.iter().sum();
        let mut hits = 0;
        for mask in 0..8u32 {
            let s: f64 = (0..3)
                .map(|i| if mask >> i & 1 == 1 { -d[i] } else { d[i] })
                .sum();
            hits += u32::from(s.abs() >= obs.abs() - 1e-12);
        }
        assert_eq!(t.p_value, f64::from(hits) / 8.0);
        // Single trials carry no flip rate.
        assert!(noise_difference(&[(1, 1, 0, 1)], 100, 1).unwrap().is_none());
    }

    /// Shrout & Fleiss (1979), Table 2: 6 targets × 4 judges.
    fn shrout_fleiss() -> Vec<Vec<f64>> {
        [
            [9, 2, 5, 8],
            [6, 1, 3, 2],
            [8, 4, 6, 8],
            [7, 1, 2, 6],
            [10, 5, 6, 9],
            [6, 2, 4, 7],
        ]
        .iter()
        .map(|r| r.iter().map(|&x| x as f64).collect())
        .collect()
    }

    #[test]
    fn icc_matches_shrout_fleiss_table_2() {
        let a = OneWayAnova::from_rows(&shrout_fleiss()).unwrap();
        // Their Table 3 (one-way): BMS = 11.24, WMS = 6.26.
        assert!((a.msb - 11.241666666666667).abs() < 1e-12);
        assert!((a.msw - 6.263888888888889).abs() < 1e-12);
        let icc = icc_oneway(&a, 0.95).unwrap().unwrap();
        // Published ICC(1,1) = .17, ICC(1,k) = .44; to 4 places .1657, .4428.
        assert_eq!(format!("{:.2} {:.2}", icc.icc1, icc.icc1k), "0.17 0.44");
        assert!((icc.icc1 - 0.1657).abs() < 5e-5);
        assert!((icc.icc1k - 0.4428).abs() < 5e-5);
        // Intervals from scipy 1.17.1 (stats.f.ppf, stats.f.sf) with the
        // same case-1 formulas, run 2026-12-05 (/tmp/icc_ref.py):
        // ci1 (-0.13293232487475098, 0.722560062328121),
        // ci1k (-0.8844421552381201, 0.9124154203407755), p 0.16476880834463953.
        assert!((icc.icc1_interval.0 - -0.13293232487475098).abs() < 1e-9);
        assert!((icc.icc1_interval.1 - 0.722560062328121).abs() < 1e-9);
        assert!((icc.icc1k_interval.0 - -0.8844421552381201).abs() < 1e-9);
        assert!((icc.icc1k_interval.1 - 0.9124154203407755).abs() < 1e-9);
        assert!((icc.p_value - 0.16476880834463953).abs() < 1e-9);
        assert_eq!(icc.df, (5.0, 18.0));
    }

    #[test]
    fn f_quantile_matches_scipy() {
        // scipy.stats.f.ppf(p, d1, d2), scipy 1.17.1.
        let cases = [
            (0.975, 5.0, 18.0, 3.381967805875243),
            (0.975, 18.0, 5.0, 6.361883204654352),
            (0.95, 3.0, 10.0, 3.7082648190468435),
            (0.025, 49.0, 150.0, 0.6142217523860203),
            (0.975, 49.0, 150.0, 1.5421542056316353),
            (0.975, 150.0, 49.0, 1.628076498618579),
        ];
        for (p, d1, d2, want) in cases {
            let got = f_quantile(p, d1, d2);
            assert!((got - want).abs() < 1e-9 * want, "{p} {d1} {d2}: {got}");
        }
    }

    /// Every 0/1 table of `n` trials: the mean over ordered pairs of
    /// distinct trials of 1[y_s ≠ y_t], by enumeration of the pairs.
    #[test]
    fn pairwise_flip_is_the_enumerated_pair_mean() {
        for n in 2u32..=7 {
            for bits in 0u32..(1 << n) {
                let y: Vec<u32> = (0..n).map(|t| (bits >> t) & 1).collect();
                let (mut differ, mut pairs) = (0u32, 0u32);
                for s in 0..n as usize {
                    for t in 0..n as usize {
                        if s != t {
                            pairs += 1;
                            differ += u32::from(y[s] != y[t]);
                        }
                    }
                }
                let c = u64::from(bits.count_ones());
                let f = flip_stats(&[c], u64::from(n)).unwrap();
                assert!((f.mean_pairwise - f64::from(differ) / f64::from(pairs)).abs() < 1e-15);
                let flips = y.iter().any(|&v| v != y[0]);
                assert_eq!(f.n_flipping, u64::from(flips));
            }
        }
    }

    /// The any-flip share grows with n at a fixed p: for p = 1/2 it is
    /// 1 − 2·2⁻ⁿ, by enumeration of all 2ⁿ outcome sequences.
    #[test]
    fn share_flipping_over_all_sequences_is_one_minus_two_to_the_one_minus_n() {
        for n in 2u64..=8 {
            let cs: Vec<u64> = (0u64..(1 << n))
                .map(|b| u64::from(b.count_ones()))
                .collect();
            let f = flip_stats(&cs, n).unwrap();
            assert!((f.share_flipping - (1.0 - 2.0 / (1u64 << n) as f64)).abs() < 1e-15);
            // E over sequences of the pairwise rate at p = ½ is 2p(1 − p) = ½.
            assert!((f.mean_pairwise - 0.5).abs() < 1e-12);
        }
    }

    #[test]
    fn anova_from_counts_equals_the_table() {
        let rows = vec![
            vec![1.0, 0.0, 0.0],
            vec![1.0, 1.0, 1.0],
            vec![0.0, 0.0, 0.0],
            vec![1.0, 1.0, 0.0],
        ];
        let a = OneWayAnova::from_rows(&rows).unwrap();
        let b = OneWayAnova::from_counts(&[1, 3, 0, 2], 3).unwrap();
        assert!((a.msb - b.msb).abs() < 1e-15 && (a.msw - b.msw).abs() < 1e-15);
    }

    #[test]
    fn identical_trials_have_no_icc() {
        let a = OneWayAnova::from_counts(&[0, 4, 4, 0], 4).unwrap();
        assert_eq!(a.msw, 0.0);
        assert!(icc_oneway(&a, 0.95).unwrap().is_none());
    }

    #[test]
    fn spread_of_one_run_has_no_sd() {
        let s = spread(&[0.5]).unwrap();
        assert!(s.sd.is_nan());
        assert_eq!(s.range(), 0.0);
        assert!(spread(&[]).is_err());
    }

    /// The exact bootstrap distribution of ICC(1) over the 5⁵ equally
    /// likely resamples of 5 problems (k = 3), by enumeration with the
    /// ANOVA formulas on the rows: rollstat's percentile bounds are its
    /// 2.5% and 97.5% quantiles (atoms chosen away from the cut, so the
    /// 20,000-resample estimate lands on them), and ICC(1,k)'s are their
    /// Spearman–Brown images.
    #[test]
    fn icc_bootstrap_matches_the_enumerated_bootstrap_distribution() {
        let c = [0u64, 1, 2, 3, 3];
        let k = 3u64;
        let row = |x: u64| -> Vec<f64> { (0..k).map(|t| if t < x { 1.0 } else { 0.0 }).collect() };
        let mut values: Vec<f64> = Vec::new();
        for code in 0..5usize.pow(5) {
            let rows: Vec<Vec<f64>> = (0..5).map(|i| row(c[code / 5usize.pow(i) % 5])).collect();
            let a = OneWayAnova::from_rows(&rows).unwrap();
            let d = a.msb + (k as f64 - 1.0) * a.msw;
            if d > 0.0 {
                values.push((a.msb - a.msw) / d);
            }
        }
        values.sort_by(f64::total_cmp);
        let cdf_below =
            |x: f64| values.iter().filter(|&&v| v < x - 1e-12).count() as f64 / values.len() as f64;
        let cdf_at = |x: f64| {
            values.iter().filter(|&&v| v <= x + 1e-12).count() as f64 / values.len() as f64
        };
        let atom = |p: f64| *values.iter().find(|&&v| cdf_at(v) >= p).unwrap();
        let (lo, hi) = (atom(0.025), atom(0.975));
        for (x, p) in [(lo, 0.025), (hi, 0.975)] {
            assert!(
                cdf_below(x) < p - 0.005 && cdf_at(x) > p + 0.005,
                "atom {x} too near the cut"
            );
        }
        let b = icc_bootstrap(&c, k, 0.95, 20_000, 11).unwrap().unwrap();
        assert!(
            (b.icc1_interval.0 - lo).abs() < 1e-12,
            "{} vs {lo}",
            b.icc1_interval.0
        );
        assert!(
            (b.icc1_interval.1 - hi).abs() < 1e-12,
            "{} vs {hi}",
            b.icc1_interval.1
        );
        let sb = |r: f64| 3.0 * r / (1.0 + 2.0 * r);
        assert!((b.icc1k_interval.0 - sb(lo)).abs() < 1e-12);
        assert!((b.icc1k_interval.1 - sb(hi)).abs() < 1e-12);
        // Resamples of one count only (all 0, or all 3: (1 + 2⁵)/5⁵ of
        // them) have no variation and are left out: 20,000 × 33/3125 ≈ 211.
        let expect = 20_000.0 * (1.0 - 33.0 / 3125.0);
        let sd = (20_000.0f64 * (33.0 / 3125.0) * (1.0 - 33.0 / 3125.0)).sqrt();
        assert!(
            (b.resamples_used as f64 - expect).abs() < 4.0 * sd,
            "{}",
            b.resamples_used
        );
        // The same seed gives the same interval; no problems to resample, none.
        assert_eq!(icc_bootstrap(&c, k, 0.95, 20_000, 11).unwrap().unwrap(), b);
        assert!(icc_bootstrap(&[2], k, 0.95, 100, 11).unwrap().is_none());
        assert!(icc_bootstrap(&[4], k, 0.95, 100, 11).is_err());
    }

    /// The work stays bounded: with T distinct correct counts the
    /// resamples shrink to ICC_BOOTSTRAP_WORK / T, and below the minimum
    /// there is no bootstrap at all.
    #[test]
    fn icc_bootstrap_work_is_bounded_by_the_distinct_counts() {
        let k = 1_000_000_000u64;
        let few: Vec<u64> = (0..5_000u64).map(|i| i * 1_000).collect();
        let b = icc_bootstrap(&few, k, 0.95, 10_000, 3).unwrap().unwrap();
        assert_eq!(b.resamples_used, ICC_BOOTSTRAP_WORK / 5_000);
        let many: Vec<u64> = (0..30_000u64).map(|i| i * 1_000).collect();
        assert!(icc_bootstrap(&many, k, 0.95, 10_000, 3).unwrap().is_none());
        // A small request is honoured as asked.
        let b = icc_bootstrap(&[0, 1, 2, 2], 2, 0.95, 200, 3)
            .unwrap()
            .unwrap();
        assert!(b.resamples_used <= 200 && b.resamples_used > 150);
    }

    /// A resample whose problems all have one count 0 < j < k sits at
    /// ICC(1)'s floor −1/(k − 1), computed with rounding error: its
    /// ICC(1,k) is −∞, never a huge finite number of either sign. Checked
    /// at every k ≤ 40 and count, against the exact floor.
    #[test]
    fn the_floor_maps_to_minus_infinity() {
        for k in 2..=40u64 {
            for j in 1..k {
                let r = icc1_of_histogram(&[j, j + 1], &[7, 0], k).unwrap();
                assert!((r + 1.0 / (k - 1) as f64).abs() < 1e-12, "k={k} j={j}: {r}");
                assert_eq!(spearman_brown(r, k), f64::NEG_INFINITY, "k={k} j={j}");
            }
        }
        // With two problems only the bootstrap lands on the floor often:
        // the interval's ICC(1,k) lower bound is then −∞, below the upper.
        let b = icc_bootstrap(&[3, 4], 15, 0.95, 2000, 1).unwrap().unwrap();
        assert_eq!(b.icc1k_interval.0, f64::NEG_INFINITY);
        assert!(b.icc1k_interval.1 > b.icc1k_interval.0);
    }
}
