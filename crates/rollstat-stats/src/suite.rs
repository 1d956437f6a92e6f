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
        benches.iter().any(|b| {
            let plus = b
                .mags
                .counts
                .iter()
                .map(|&m| bits.binomial_half(m))
                .collect::<Vec<_>>();
            b.z_of(plus.into_iter()) >= threshold
        })
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
