//! Statistics of a suite release decision (`rollstat gate`): baseline A vs
//! candidate B over several benchmarks. Pooled and combined one-sided
//! degradation tests, the max-drop test over benchmarks, weighted (micro /
//! macro) sign-flip tests, Cochran's Q heterogeneity and weighted
//! differences.
//!
//! Sign convention: a **drop** is A − B (positive = the candidate B is
//! worse). Counts are `(a_only, b_only)` per benchmark. docs/statistics.md,
//! "Suite gates and flips".

use rayon::prelude::*;
use serde::Serialize;

use crate::dist::{binomial_cdf, chi2_sf, ln_gamma};
use crate::error::{Result, StatsError};
use crate::flips::degradation_p;
use crate::paired::{binomial_row, check_permutations, Bits, Magnitudes, MAX_EXACT_SIGN_FLIP};
use crate::rng;

/// One exact one-sided degradation test on the discordant counts summed
/// over benchmarks: [`degradation_p`]`(Σ a_only, Σ b_only, mid_p)`.
///
/// ```
/// let p = rollstat_stats::pooled_degradation_p(&[(3, 0), (1, 0)], false);
/// assert!((p - 1.0 / 16.0).abs() < 1e-14);
/// ```
pub fn pooled_degradation_p(counts: &[(u64, u64)], mid_p: bool) -> f64 {
    let (b, c) = counts.iter().fold((0, 0), |(b, c), &(x, y)| (b + x, c + y));
    degradation_p(b, c, mid_p)
}

/// Fisher's combination of independent p-values: `χ² = −2 Σ ln p_t` on
/// `2T` degrees of freedom, `p = P(χ²_{2T} ≥ χ²) = e^{−x/2} Σ_{j<T} (x/2)^j/j!`
/// (exact for even df). Any `p_t = 0` gives `χ² = ∞`, p = 0. Errors on
/// empty input or a p-value outside [0, 1].
///
/// ```
/// let (chi2, df, p) = rollstat_stats::fisher_combination(&[0.5]).unwrap();
/// assert_eq!(df, 2);
/// assert!((chi2 - 2.0 * 2f64.ln()).abs() < 1e-15 && (p - 0.5).abs() < 1e-15);
/// ```
pub fn fisher_combination(p_values: &[f64]) -> Result<(f64, u64, f64)> {
    if p_values.is_empty() {
        return Err(StatsError::Empty("no p-values"));
    }
    if p_values.iter().any(|p| !(0.0..=1.0).contains(p)) {
        return Err(StatsError::InvalidArgument(
            "p-values must be in [0, 1]".into(),
        ));
    }
    let t = p_values.len() as u64;
    if p_values.contains(&0.0) {
        return Ok((f64::INFINITY, 2 * t, 0.0));
    }
    let chi2 = -2.0 * p_values.iter().map(|p| p.ln()).sum::<f64>();
    let z = chi2 / 2.0;
    let p = if z == 0.0 {
        1.0
    } else {
        // Terms in logs, so neither z^j nor j! overflows.
        (0..t)
            .map(|j| (j as f64 * z.ln() - z - ln_gamma(j as f64 + 1.0)).exp())
            .sum::<f64>()
            .min(1.0)
    };
    Ok((chi2, 2 * t, p))
}

/// `z = (b − c)/√(b + c)` of discordant counts.
fn count_z(plus: u64, m: u64) -> f64 {
    (2.0 * plus as f64 - m as f64) / (m as f64).sqrt()
}

/// Exact max-drop test over benchmarks: `z_t = (a_only − b_only)/√(a_only + b_only)`,
/// `z_max = max_t z_t` over benchmarks with discordant pairs, and
/// `p = P(max_t Z_t ≥ z_max) = 1 − Π_t P(Z_t < z_max)` with independent
/// `a_only_t ~ Binomial(m_t, ½)` (ties within 1e-12 count as reaching it).
/// Without any discordant pair: `(NaN, 1.0)`.
///
/// ```
/// let (z, p) = rollstat_stats::max_drop_exact(&[(2, 0), (0, 0)]);
/// assert!((z - 2f64.sqrt()).abs() < 1e-15 && (p - 0.25).abs() < 1e-14);
/// ```
pub fn max_drop_exact(counts: &[(u64, u64)]) -> (f64, f64) {
    let active: Vec<(u64, u64)> = counts.iter().copied().filter(|&(b, c)| b + c > 0).collect();
    let Some(z_max) = active
        .iter()
        .map(|&(b, c)| count_z(b, b + c))
        .reduce(f64::max)
    else {
        return (f64::NAN, 1.0);
    };
    let threshold = z_max - 1e-12 * z_max.abs().max(1.0);
    // ln Π_t (1 − q_t), q_t = P(Z_t ≥ threshold) = P(plus ≥ x0).
    let ln_none: f64 = active
        .iter()
        .map(|&(b, c)| {
            let m = b + c;
            let x0 = (0..=m)
                .find(|&x| count_z(x, m) >= threshold)
                .unwrap_or(m + 1);
            let q = if x0 > m {
                0.0
            } else {
                binomial_cdf(m - x0, m, 0.5)
            };
            (-q).ln_1p()
        })
        .sum();
    (z_max, -ln_none.exp_m1())
}

/// One benchmark of a max-drop sign-flip test: its magnitudes and `√Σ d²`.
struct Bench {
    mags: Magnitudes,
    root_q: f64,
}

impl Bench {
    fn key(&self) -> (Vec<u64>, Vec<u64>) {
        let bits = self.mags.values.iter().map(|v| v.to_bits()).collect();
        (bits, self.mags.counts.clone())
    }

    /// `z` for `plus[i]` plus signs on magnitude `i`, in ascending order.
    fn z_of(&self, plus: impl Iterator<Item = u64>) -> f64 {
        let mut s = 0.0;
        for ((&v, &m), x) in self.mags.values.iter().zip(&self.mags.counts).zip(plus) {
            s += v * (2 * x as i64 - m as i64) as f64;
        }
        s / self.root_q
    }

    /// Number of sign patterns of this benchmark with `z* < threshold`.
    fn below(&self, threshold: f64) -> u64 {
        let rows: Vec<Vec<u64>> = self.mags.counts.iter().map(|&m| binomial_row(m)).collect();
        let mut plus = vec![0u64; rows.len()];
        let mut total = 0;
        loop {
            if self.z_of(plus.iter().copied()) < threshold {
                total += plus
                    .iter()
                    .zip(&rows)
                    .map(|(&x, r)| r[x as usize])
                    .product::<u64>();
            }
            // Next combination of plus counts (odometer).
            let Some(i) = (0..plus.len()).find(|&i| plus[i] < self.mags.counts[i]) else {
                return total;
            };
            plus[..i].iter_mut().for_each(|x| *x = 0);
            plus[i] += 1;
        }
    }
}

/// Checks benchmarks of differences: at least one, every one non-empty and finite.
fn check_benchmarks(benchmarks: &[&[f64]]) -> Result<()> {
    if benchmarks.is_empty() {
        return Err(StatsError::Empty("no benchmarks"));
    }
    for d in benchmarks {
        if d.is_empty() {
            return Err(StatsError::Empty("a benchmark without differences"));
        }
        if d.iter().any(|v| !v.is_finite()) {
            return Err(StatsError::InvalidArgument("non-finite difference".into()));
        }
    }
    Ok(())
}

const MAX_DROP_DOMAIN: u64 = 0x4D41_5844_524F_5053; // "MAXDROPS"
const ONE_SIDED_DOMAIN: u64 = 0x4F4E_4553_4944_4544; // "ONESIDED"

/// Whether `m` nonzero differences are enumerated exactly.
fn enumerate(m: u64, permutations: usize) -> bool {
    m <= u64::from(MAX_EXACT_SIGN_FLIP) && (1u64 << m) <= permutations as u64
}

/// Counts `r` in `0..permutations` (each with its own stream) for which
/// `hit` holds, in parallel chunks.
fn count_hits<F>(permutations: usize, seed: u64, hit: F) -> u64
where
    F: Fn(&mut rng::Xoshiro256PlusPlus) -> bool + Sync,
{
    const CHUNK: usize = 256;
    (0..permutations.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let (start, end) = (ci * CHUNK, ((ci + 1) * CHUNK).min(permutations));
            (start..end)
                .filter(|&r| hit(&mut rng::stream(seed, r as u64)))
                .count() as u64
        })
        .sum()
}

/// Max-drop sign-flip test over benchmarks of per-problem drops `d` (A − B,
/// any real values): `z_t = Σd/√Σd²` (= `(b − c)/√(b + c)` on 0/±1 data),
/// statistic `max_t z_t` over benchmarks with a nonzero difference; null:
/// independent random sign flips of every `d`, the same draws giving
/// `max_t z_t*`. Returns `(z_max, p, exact)`: exact enumeration
/// (`p = #{max z* ≥ z_max}/2^m`) when the total number m of nonzero
/// differences is ≤ 20 and `2^m ≤ permutations`, else `p = (r + 1)/(R + 1)`.
/// Without any nonzero difference: `(NaN, 1.0, true)`.
///
/// Per benchmark the differences are grouped by magnitude (as
/// [`sign_flip`](crate::sign_flip)), so a pattern costs O(distinct
/// magnitudes); benchmarks are sorted by their magnitudes, so the result
/// does not depend on the order of benchmarks or problems.
///
/// ```
/// let (z, p, exact) = rollstat_stats::max_drop_sign_flip(&[&[1.0, 1.0], &[0.0]], 1000, 1).unwrap();
/// assert!(exact && (z - 2f64.sqrt()).abs() < 1e-15 && p == 0.25);
/// ```
pub fn max_drop_sign_flip(
    benchmarks: &[&[f64]],
    permutations: usize,
    seed: u64,
) -> Result<(f64, f64, bool)> {
    check_benchmarks(benchmarks)?;
    let mut benches: Vec<Bench> = benchmarks
        .iter()
        .map(|d| Magnitudes::new(d))
        .filter(|m| !m.values.is_empty())
        .map(|mags| {
            let q: f64 = mags
                .values
                .iter()
                .zip(&mags.counts)
                .map(|(v, &m)| v * v * m as f64)
                .sum();
            Bench {
                mags,
                root_q: q.sqrt(),
            }
        })
        .collect();
    benches.sort_by_key(Bench::key);
    let Some(z_max) = benches
        .iter()
        .map(|b| b.mags.signed / b.root_q)
        .reduce(f64::max)
    else {
        return Ok((f64::NAN, 1.0, true));
    };
    let tol = benches
        .iter()
        .map(|b| b.mags.tol / b.root_q)
        .fold(0.0, f64::max);
    let threshold = z_max - tol;
    let m: u64 = benches.iter().map(|b| b.mags.nonzero()).sum();
    if enumerate(m, permutations) {
        let none: u64 = benches.iter().map(|b| b.below(threshold)).product();
        return Ok((
            z_max,
            ((1u64 << m) - none) as f64 / (1u64 << m) as f64,
            true,
        ));
    }
    check_permutations(permutations)?;
    let hits = count_hits(permutations, seed ^ MAX_DROP_DOMAIN, |g| {
        let mut bits = Bits::new(g);
        benches
            .iter()
            .any(|b| b.z_of(b.mags.counts.iter().map(|&m| bits.binomial_half(m))) >= threshold)
    });
    Ok((
        z_max,
        (hits as f64 + 1.0) / (permutations as f64 + 1.0),
        false,
    ))
}

/// Result of a one-sided sign-flip test ([`pooled_sign_flip`],
/// [`sign_flip_one_sided`]).
///
/// ```
/// let r = rollstat_stats::sign_flip_one_sided(&[1.0, 1.0, 0.0], 100, 1).unwrap();
/// assert!(r.exact && r.patterns == 4 && r.p == 0.25);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SignFlipOneSided {
    /// Observed statistic (weighted mean drop).
    pub statistic: f64,
    /// One-sided p-value of "drop > 0": `P(T* ≥ T)`.
    pub p: f64,
    /// Whether every sign pattern was enumerated.
    pub exact: bool,
    /// `2^m` (exact, m = nonzero differences) or R.
    pub patterns: u64,
}

/// Patterns with `S ≥ threshold` from magnitude `i` on, given the partial
/// sum `s` (formed in ascending order, as the random draws form it).
fn one_sided_hits(mags: &Magnitudes, rows: &[Vec<u64>], i: usize, s: f64, threshold: f64) -> u64 {
    let Some(&v) = mags.values.get(i) else {
        return u64::from(s >= threshold);
    };
    let m = mags.counts[i] as i64;
    (0..=m)
        .map(|x| {
            let next = s + v * (2 * x - m) as f64;
            rows[i][x as usize] * one_sided_hits(mags, rows, i + 1, next, threshold)
        })
        .sum()
}

/// One-sided sign-flip test of `S = Σ d_i` (the differences already scaled).
fn one_sided(mags: &Magnitudes, permutations: usize, seed: u64) -> Result<SignFlipOneSided> {
    let threshold = mags.signed - mags.tol;
    let m = mags.nonzero();
    if enumerate(m, permutations) {
        let rows: Vec<Vec<u64>> = mags.counts.iter().map(|&c| binomial_row(c)).collect();
        let hits = one_sided_hits(mags, &rows, 0, 0.0, threshold);
        return Ok(SignFlipOneSided {
            statistic: mags.signed,
            p: hits as f64 / (1u64 << m) as f64,
            exact: true,
            patterns: 1u64 << m,
        });
    }
    check_permutations(permutations)?;
    let hits = count_hits(permutations, seed ^ ONE_SIDED_DOMAIN, |g| {
        let mut bits = Bits::new(g);
        let mut s = 0.0;
        for (&v, &c) in mags.values.iter().zip(&mags.counts) {
            s += v * (2 * bits.binomial_half(c) as i64 - c as i64) as f64;
        }
        s >= threshold
    });
    Ok(SignFlipOneSided {
        statistic: mags.signed,
        p: (hits as f64 + 1.0) / (permutations as f64 + 1.0),
        exact: false,
        patterns: permutations as u64,
    })
}

/// One-sided pooled sign-flip test over benchmarks: `T = Σ_t w_t·mean(d_t)`
/// (weights as given: micro `w_t = n_t/N`, macro `1/T`), p = `P(T* ≥ T)`
/// under independent sign flips of every difference (`≥` up to
/// 1e-12·Σ|w_t d_ti/n_t|). Since `T = Σ_{t,i} (w_t/n_t)·d_ti`, it is one
/// sign-flip test of the scaled differences, grouped by magnitude
/// `w_t|d|/n_t`; exact when the number m of nonzero ones is ≤ 20 and
/// `2^m ≤ permutations`, else seeded random with `p = (r + 1)/(R + 1)`.
/// The statistic is the grouped sum (ascending magnitudes), independent of
/// input order.
///
/// ```
/// let b1 = [0.25, 0.5, 0.0, -0.25, 0.75];
/// let b2 = [0.5, 0.0, 0.25];
/// let r = rollstat_stats::pooled_sign_flip(&[&b1, &b2], &[0.5, 0.5], 1000, 1).unwrap();
/// assert!(r.exact && (r.statistic - 0.25).abs() < 1e-15);
/// assert_eq!(r.p * 64.0, 3.0);
/// ```
pub fn pooled_sign_flip(
    benchmarks: &[&[f64]],
    weights: &[f64],
    permutations: usize,
    seed: u64,
) -> Result<SignFlipOneSided> {
    check_benchmarks(benchmarks)?;
    if weights.len() != benchmarks.len() {
        return Err(StatsError::LengthMismatch {
            what: "weights vs benchmarks",
            left: weights.len(),
            right: benchmarks.len(),
        });
    }
    if weights.iter().any(|w| !w.is_finite()) {
        return Err(StatsError::InvalidArgument("non-finite weight".into()));
    }
    let scaled: Vec<f64> = benchmarks
        .iter()
        .zip(weights)
        .flat_map(|(d, &w)| d.iter().map(move |&x| x * (w / d.len() as f64)))
        .collect();
    one_sided(&Magnitudes::new(&scaled), permutations, seed)
}

/// One-sided sign-flip test of one benchmark: statistic `mean(d)`, p =
/// `P(T* ≥ T)` ([`pooled_sign_flip`] with one benchmark of weight 1).
///
/// ```
/// let r = rollstat_stats::sign_flip_one_sided(&[1.0, 1.0, 1.0, -1.0], 100, 1).unwrap();
/// assert_eq!(r.p, 5.0 / 16.0); // 3 or 4 plus signs of 4
/// ```
pub fn sign_flip_one_sided(d: &[f64], permutations: usize, seed: u64) -> Result<SignFlipOneSided> {
    pooled_sign_flip(&[d], &[1.0], permutations, seed)
}

/// Cochran's Q heterogeneity of per-benchmark estimates, from [`cochran_q`].
///
/// ```
/// let h = rollstat_stats::cochran_q(&[0.5, 0.5], &[0.25, 0.25]).unwrap();
/// assert_eq!((h.q, h.df, h.i2, h.signs_disagree), (0.0, 1, 0.0, false));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Heterogeneity {
    /// `Q = Σ w_t (θ_t − θ̄)²`.
    pub q: f64,
    /// `T − 1` (benchmarks kept).
    pub df: u64,
    /// `P(χ²_df ≥ Q)`.
    pub p: f64,
    /// `I² = max(0, (Q − df)/Q)`, 0 when Q = 0.
    pub i2: f64,
    /// Some kept estimate is > 0 and some is < 0.
    pub signs_disagree: bool,
}

/// Cochran's Q test of heterogeneity: inverse-variance weights
/// `w_t = 1/se_t²`, `θ̄ = Σwθ/Σw`, `Q = Σ w(θ − θ̄)²` on `T − 1` df,
/// `I² = max(0, (Q − df)/Q)` (Higgins & Thompson 2002). Benchmarks with
/// `se = 0` or a non-finite estimate or SE are left out; `None` when fewer
/// than two remain or the lengths differ.
///
/// ```
/// let h = rollstat_stats::cochran_q(&[0.1, -0.1], &[0.05, 0.05]).unwrap();
/// assert!((h.q - 8.0).abs() < 1e-12 && h.df == 1 && h.signs_disagree);
/// ```
pub fn cochran_q(estimates: &[f64], std_errors: &[f64]) -> Option<Heterogeneity> {
    if estimates.len() != std_errors.len() {
        return None;
    }
    let kept: Vec<(f64, f64)> = estimates
        .iter()
        .zip(std_errors)
        .filter(|(t, s)| t.is_finite() && s.is_finite() && **s > 0.0)
        .map(|(&t, &s)| (t, 1.0 / (s * s)))
        .collect();
    if kept.len() < 2 {
        return None;
    }
    let sw: f64 = kept.iter().map(|k| k.1).sum();
    let pooled = kept.iter().map(|(t, w)| t * w).sum::<f64>() / sw;
    let q: f64 = kept
        .iter()
        .map(|(t, w)| w * (t - pooled) * (t - pooled))
        .sum();
    let df = kept.len() as u64 - 1;
    Some(Heterogeneity {
        q,
        df,
        p: chi2_sf(q, df as f64),
        i2: if q > 0.0 {
            ((q - df as f64) / q).max(0.0)
        } else {
            0.0
        },
        signs_disagree: kept.iter().any(|k| k.0 > 0.0) && kept.iter().any(|k| k.0 < 0.0),
    })
}

/// Weighted combination of per-benchmark estimates with independent errors:
/// weights normalised to sum 1, returns `(Σ w θ, √Σ w² se²)`. Errors on
/// empty or mismatched input, negative or non-finite weights, or weights
/// summing to 0.
///
/// ```
/// let (d, se) = rollstat_stats::weighted_difference(&[0.2, 0.4], &[0.3, 0.4], &[1.0, 1.0]).unwrap();
/// assert!((d - 0.3).abs() < 1e-15 && (se - 0.25).abs() < 1e-15);
/// ```
pub fn weighted_difference(
    estimates: &[f64],
    std_errors: &[f64],
    weights: &[f64],
) -> Result<(f64, f64)> {
    if estimates.is_empty() {
        return Err(StatsError::Empty("no estimates"));
    }
    for (what, other) in [
        ("std_errors vs estimates", std_errors),
        ("weights vs estimates", weights),
    ] {
        if other.len() != estimates.len() {
            return Err(StatsError::LengthMismatch {
                what,
                left: other.len(),
                right: estimates.len(),
            });
        }
    }
    let total: f64 = weights.iter().sum();
    if weights.iter().any(|w| !w.is_finite() || *w < 0.0) || !(total > 0.0) {
        return Err(StatsError::InvalidArgument(
            "weights must be finite, ≥ 0 and not all 0".into(),
        ));
    }
    let mut est = 0.0;
    let mut var = 0.0;
    for ((t, s), w) in estimates.iter().zip(std_errors).zip(weights) {
        let w = w / total;
        est += w * t;
        var += w * w * s * s;
    }
    Ok((est, var.sqrt()))
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIX: [(u64, u64); 6] = [(89, 95), (12, 14), (8, 11), (45, 42), (102, 108), (18, 15)];

    fn rel_close(a: f64, b: f64, rtol: f64) -> bool {
        (a - b).abs() <= rtol * b.abs()
    }

    /// scipy.stats.binomtest(274, 559, alternative="greater").
    #[test]
    fn pooled_vector() {
        assert!(rel_close(
            pooled_degradation_p(&SIX, false),
            0.6940943172044693,
            1e-10
        ));
        assert_eq!(pooled_degradation_p(&[], false), 1.0);
    }

    /// scipy.stats.combine_pvalues(method="fisher") of the six one-sided exact p.
    #[test]
    fn fisher_vector() {
        let p: Vec<f64> = SIX
            .iter()
            .map(|&(b, c)| degradation_p(b, c, false))
            .collect();
        let (chi2, df, pv) = fisher_combination(&p).unwrap();
        assert!(rel_close(chi2, 6.304808644746986, 1e-10));
        assert_eq!(df, 12);
        assert!(rel_close(pv, 0.8999438572547623, 1e-10));
        // the closed form agrees with the incomplete-gamma survival function
        assert!(rel_close(pv, chi2_sf(chi2, 12.0), 1e-10));
        assert_eq!(
            fisher_combination(&[0.3, 0.0]).unwrap(),
            (f64::INFINITY, 4, 0.0)
        );
        assert_eq!(fisher_combination(&[1.0, 1.0]).unwrap(), (0.0, 4, 1.0));
        assert!(fisher_combination(&[]).is_err());
        assert!(fisher_combination(&[1.5]).is_err());
        // χ²/2 > 709: e^{−χ²/2} alone underflows, the log-space terms do not
        let (chi2, df, tiny) = fisher_combination(&[0.01; 200]).unwrap();
        assert!(chi2 / 2.0 > 745.0 && df == 400);
        assert!(
            tiny > 1e-200 && rel_close(tiny, chi2_sf(chi2, 400.0), 1e-8),
            "{tiny}"
        );
    }

    #[test]
    fn max_drop_exact_vector() {
        let (z, p) = max_drop_exact(&SIX);
        assert!(rel_close(z, 0.5222329678670935, 1e-14));
        assert!(rel_close(p, 0.9013311933401498, 1e-10));
        let (z, p) = max_drop_exact(&[(0, 0)]);
        assert!(z.is_nan() && p == 1.0);
    }

    /// Sign patterns enumerated one by one (no grouping): `max_t z_t*`.
    fn brute_max_drop(benchmarks: &[&[f64]]) -> (f64, f64) {
        let all: Vec<(usize, f64)> = benchmarks
            .iter()
            .enumerate()
            .flat_map(|(t, d)| d.iter().filter(|v| **v != 0.0).map(move |&v| (t, v)))
            .collect();
        let zmax = |signs: u64| {
            let mut s = vec![0.0; benchmarks.len()];
            let mut q = vec![0.0; benchmarks.len()];
            for (i, &(t, v)) in all.iter().enumerate() {
                s[t] += if signs >> i & 1 == 1 { -v } else { v };
                q[t] += v * v;
            }
            (0..benchmarks.len())
                .filter(|&t| q[t] > 0.0)
                .map(|t| s[t] / q[t].sqrt())
                .fold(f64::NEG_INFINITY, f64::max)
        };
        let observed = zmax(0);
        let n = 1u64 << all.len();
        let hits = (0..n).filter(|&p| zmax(p) >= observed - 1e-9).count();
        (observed, hits as f64 / n as f64)
    }

    /// On 0/±1 drops the exact sign-flip max-drop test is max_drop_exact.
    #[test]
    fn max_drop_sign_flip_equals_exact_counts() {
        let counts = [(3u64, 1u64), (2, 2), (0, 1), (4, 0)];
        let data: Vec<Vec<f64>> = counts
            .iter()
            .map(|&(b, c)| {
                let mut d = vec![1.0; b as usize];
                d.extend(vec![-1.0; c as usize]);
                d.extend(vec![0.0; 3]);
                d
            })
            .collect();
        let refs: Vec<&[f64]> = data.iter().map(|d| d.as_slice()).collect();
        let (z, p, exact) = max_drop_sign_flip(&refs, 1 << 13, 1).unwrap();
        let (z0, p0) = max_drop_exact(&counts);
        assert!(exact);
        assert_eq!(z, z0);
        assert!((p - p0).abs() < 1e-12, "{p} vs {p0}");
        let (zb, pb) = brute_max_drop(&refs);
        assert!((z - zb).abs() < 1e-12 && (p - pb).abs() < 1e-12);
    }

    #[test]
    fn max_drop_sign_flip_real_values_brute_force_and_random() {
        let b1 = [0.25, 0.5, 0.0, -0.25, 0.75, 0.5];
        let b2 = [0.5, 0.0, 0.25, -0.5, 1.0];
        let b3 = [-0.125, 0.375, 0.375, 0.125, 0.25];
        let refs: [&[f64]; 3] = [&b1, &b2, &b3];
        let (zb, pb) = brute_max_drop(&refs);
        let (z, p, exact) = max_drop_sign_flip(&refs, 1 << 14, 1).unwrap();
        assert!(exact && (z - zb).abs() < 1e-12 && (p - pb).abs() < 1e-12);
        let r = 4000;
        let (_, pr, exact) = max_drop_sign_flip(&refs, r, 5).unwrap();
        assert!(!exact);
        let se = (pb * (1.0 - pb) / r as f64).sqrt();
        assert!((pr - pb).abs() < 3.0 * se + 1.0 / r as f64, "{pr} vs {pb}");
        // order of benchmarks and of problems does not matter
        let (c1, c3) = (
            [0.5, 0.75, -0.25, 0.0, 0.5, 0.25],
            [0.25, 0.125, 0.375, -0.125, 0.375],
        );
        let shuffled: [&[f64]; 3] = [&c3, &b2, &c1];
        assert_eq!(max_drop_sign_flip(&shuffled, r, 5).unwrap(), (z, pr, false));
        let (z, p, exact) = max_drop_sign_flip(&[&[0.0], &[0.0, 0.0]], 10, 1).unwrap();
        assert!(z.is_nan() && p == 1.0 && exact);
        assert!(max_drop_sign_flip(&[], 10, 1).is_err());
        assert!(max_drop_sign_flip(&[&[f64::NAN]], 10, 1).is_err());
    }

    /// Every one of the 2^8 patterns of the 8 differences (zeros included)
    /// enumerated: count `Σ_t w_t mean(s·d_t) ≥ T`.
    fn brute_pooled(b1: &[f64], b2: &[f64], w: (f64, f64)) -> (f64, u64) {
        let t = |s: u64| {
            let m1: f64 = b1
                .iter()
                .enumerate()
                .map(|(i, v)| if s >> i & 1 == 1 { -v } else { *v })
                .sum::<f64>();
            let m2: f64 = b2
                .iter()
                .enumerate()
                .map(|(i, v)| if s >> (i + b1.len()) & 1 == 1 { -v } else { *v })
                .sum::<f64>();
            w.0 * m1 / b1.len() as f64 + w.1 * m2 / b2.len() as f64
        };
        let n = 1u64 << (b1.len() + b2.len());
        (t(0), (0..n).filter(|&s| t(s) >= t(0) - 1e-9).count() as u64)
    }

    #[test]
    fn pooled_sign_flip_vectors() {
        let b1 = [0.25, 0.5, 0.0, -0.25, 0.75];
        let b2 = [0.5, 0.0, 0.25];
        for (w, hits256) in [((5.0 / 8.0, 3.0 / 8.0), 16), ((0.5, 0.5), 12)] {
            let r = pooled_sign_flip(&[&b1, &b2], &[w.0, w.1], 1000, 1).unwrap();
            assert!((r.statistic - 0.25).abs() < 1e-15);
            assert!(r.exact && r.patterns == 64);
            assert_eq!(r.p, hits256 as f64 / 256.0);
            let (t, hits) = brute_pooled(&b1, &b2, w);
            assert!((t - 0.25).abs() < 1e-15);
            assert_eq!(hits, hits256);
        }
        // a budget below 2^6 switches to random patterns
        let r = pooled_sign_flip(&[&b1, &b2], &[0.5, 0.5], 63, 1).unwrap();
        assert!(!r.exact && r.patterns == 63);
        assert!(pooled_sign_flip(&[&b1, &b2], &[0.5], 100, 1).is_err());
        assert!(pooled_sign_flip(&[&b1, &[]], &[0.5, 0.5], 100, 1).is_err());
        assert!(pooled_sign_flip(&[&b1], &[f64::NAN], 100, 1).is_err());
    }

    #[test]
    fn one_sided_random_close_to_exact() {
        // 16 nonzero differences: exact by brute force over 65,536 patterns
        let d: Vec<f64> = (0..16)
            .map(|i| [0.5, -0.25, 0.75, 0.25, -0.5][i % 5] + 0.0625 * (i % 3) as f64)
            .collect();
        let mean = d.iter().sum::<f64>() / 16.0;
        let hits = (0u64..1 << 16)
            .filter(|&s| {
                let t: f64 = d
                    .iter()
                    .enumerate()
                    .map(|(i, v)| if s >> i & 1 == 1 { -v } else { *v })
                    .sum();
                t / 16.0 >= mean - 1e-9
            })
            .count();
        let exact = hits as f64 / 65536.0;
        let e = sign_flip_one_sided(&d, 1 << 16, 1).unwrap();
        assert!(e.exact && e.p == exact && (e.statistic - mean).abs() < 1e-15);
        let r = 20_000;
        let s = sign_flip_one_sided(&d, r, 3).unwrap();
        let se = (exact * (1.0 - exact) / r as f64).sqrt();
        assert!(
            !s.exact && (s.p - exact).abs() < 3.0 * se + 1.0 / r as f64,
            "{} vs {exact}",
            s.p
        );
        let mut rev = d.clone();
        rev.reverse();
        assert_eq!(sign_flip_one_sided(&rev, r, 3).unwrap(), s);
        // all ten positive: 1 pattern of 1024
        assert_eq!(
            sign_flip_one_sided(&[0.5; 10], 1 << 10, 1).unwrap().p,
            1.0 / 1024.0
        );
    }

    /// Hand computation in exact fractions: w = (2500, 10000/9, 625),
    /// θ̄ = 0.03901639344262295, Q = 6.495901639344262, p = e^{−Q/2} (2 df),
    /// I² = (Q − 2)/Q = 0.6921135646687697.
    #[test]
    fn cochran_q_hand_values() {
        let h = cochran_q(&[0.05, -0.02, 0.10], &[0.02, 0.03, 0.04]).unwrap();
        assert!(rel_close(h.q, 6.495901639344262, 1e-12));
        assert_eq!(h.df, 2);
        assert!(rel_close(h.p, 0.03885374464043918, 1e-10));
        assert!(rel_close(h.i2, 0.6921135646687697, 1e-12));
        assert!(h.signs_disagree);
        // se = 0 and non-finite entries are left out
        let h2 = cochran_q(
            &[0.05, -0.02, 0.10, 0.9, 0.3],
            &[0.02, 0.03, 0.04, 0.0, f64::NAN],
        )
        .unwrap();
        assert_eq!(h2, h);
        assert!(cochran_q(&[0.1, 0.2], &[0.1, 0.0]).is_none());
        assert!(cochran_q(&[0.1], &[0.1, 0.2]).is_none());
        // small Q: I² = 0
        let h3 = cochran_q(&[0.1, 0.11], &[0.05, 0.05]).unwrap();
        assert!(h3.i2 == 0.0 && !h3.signs_disagree);
    }

    /// Subsets A (n = 200, acc 0.80) and B (n = 50, acc 0.40) with
    /// SE_t = √(p(1 − p)/(n − 1)).
    #[test]
    fn weighted_difference_micro_macro() {
        let est = [0.8, 0.4];
        let se = [(0.8f64 * 0.2 / 199.0).sqrt(), (0.4f64 * 0.6 / 49.0).sqrt()];
        let (m, sm) = weighted_difference(&est, &se, &[200.0, 50.0]).unwrap();
        assert!((m - 0.72).abs() < 1e-15 && rel_close(sm, 0.026655041393112613, 1e-12));
        let (m, sm) = weighted_difference(&est, &se, &[0.5, 0.5]).unwrap();
        assert!((m - 0.6).abs() < 1e-15 && rel_close(sm, 0.037755725672326775, 1e-12));
        assert!(weighted_difference(&[], &[], &[]).is_err());
        assert!(weighted_difference(&est, &se, &[1.0]).is_err());
        assert!(weighted_difference(&est, &se, &[0.0, 0.0]).is_err());
        assert!(weighted_difference(&est, &se, &[-1.0, 2.0]).is_err());
    }
}
