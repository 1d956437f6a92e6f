//! The tests of a paired comparison of two systems on the same problems:
//! the sign-flip permutation test, McNemar's test, multiplicity adjustments
//! and the non-inferiority verdict. The per-metric means, SEs and sign-flip
//! units come from [`paired_row`](crate::paired_row).

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::bootstrap::Interval;
use crate::dist::{binomial_cdf, chi2_1_sf};
use crate::error::{Result, StatsError};
use crate::rng;

/// Pearson correlation of two equally long samples; NaN when either is
/// constant (or empty).
///
/// ```
/// let r = rollstat_stats::pearson(&[1.0, 2.0, 3.0], &[2.0, 4.0, 7.0]);
/// assert!((r - 0.9933992677987828).abs() < 1e-12);
/// assert!(rollstat_stats::pearson(&[1.0, 1.0], &[0.0, 1.0]).is_nan());
/// ```
pub fn pearson(x: &[f64], y: &[f64]) -> f64 {
    let n = x.len() as f64;
    let mx = x.iter().sum::<f64>() / n;
    let my = y.iter().sum::<f64>() / n;
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    if sxx == 0.0 || syy == 0.0 {
        return f64::NAN;
    }
    sxy / (sxx * syy).sqrt()
}

const PERMUTATION_DOMAIN: u64 = 0x5045_524D_5554_4553; // "PERMUTES"

/// Multiplicities up to this many copies get their Binomial(m, ½) draw by
/// counting ones in `m` random bits; larger ones use the crate's binomial
/// sampler, whose cost does not grow with `m` (≈ 0.3 µs a draw; counting
/// 2¹² bits — 64 words — costs about as much).
const POPCOUNT_MAX_COPIES: u64 = 1 << 12;

/// The nonzero differences grouped by magnitude, the sufficient statistic
/// of a sign-flip test.
///
/// Flipping signs never changes a magnitude, and every copy of one magnitude
/// `v` contributes `±v`, so a sign pattern's statistic depends only on how
/// many of the `m_v` copies of each `v` are positive, `x_v`:
/// `S = Σ_v v·(2·x_v − m_v)`. Under uniformly random signs the `x_v` are
/// independent Binomial(m_v, ½) (the random test draws them directly), and
/// exactly `Π_v C(m_v, x_v)` of the `2^m` patterns share one `(x_v)` (the
/// exact test counts with these weights). Metric differences take few
/// distinct values (pass@1 differences are multiples of 1/n), so this is
/// far less work than one sign per difference.
pub(crate) struct Magnitudes {
    /// Distinct nonzero `|d_i|`, ascending (f64 total order), so that every
    /// sum below is formed in the same order whatever the order of `d`.
    pub(crate) values: Vec<f64>,
    /// Number of copies `m_v` of each value.
    pub(crate) counts: Vec<u64>,
    /// `Σ d_i`, as `Σ_v v·(#positive − #negative)` (signed).
    pub(crate) signed: f64,
    /// `|Σ d_i|`, as `|Σ_v v·(#positive − #negative)|`.
    pub(crate) observed: f64,
    /// Rounding tolerance `1e-12 · Σ|d_i|` of the `|S| ≥ observed` test.
    pub(crate) tol: f64,
}

impl Magnitudes {
    /// Groups the nonzero entries of `d` (finite, checked by the caller) by
    /// `|d_i|` (equal as f64); zeros are dropped, a flip leaves them alone.
    pub(crate) fn new(d: &[f64]) -> Self {
        // For non-negative finite floats the bit pattern orders like the
        // value (and like `f64::total_cmp`); the sign rides in the low bit.
        let mut keys: Vec<u64> = d
            .iter()
            .filter(|&&v| v != 0.0)
            .map(|&v| v.abs().to_bits() << 1 | u64::from(v > 0.0))
            .collect();
        keys.sort_unstable();
        let (mut values, mut counts, mut net) = (Vec::new(), Vec::<u64>::new(), Vec::new());
        for key in keys {
            let v = f64::from_bits(key >> 1);
            if values.last() != Some(&v) {
                values.push(v);
                counts.push(0);
                net.push(0i64);
            }
            *counts.last_mut().expect("pushed") += 1;
            *net.last_mut().expect("pushed") += if key & 1 == 1 { 1 } else { -1 };
        }
        let mut observed = 0.0;
        let mut total = 0.0;
        for ((&v, &m), &k) in values.iter().zip(&counts).zip(&net) {
            observed += v * k as f64;
            total += v * m as f64;
        }
        Self {
            values,
            counts,
            signed: observed,
            observed: observed.abs(),
            tol: 1e-12 * total,
        }
    }

    /// Number m of nonzero differences.
    pub(crate) fn nonzero(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// A pattern counts as at least as extreme when `|S|` reaches this.
    fn threshold(&self) -> f64 {
        self.observed - self.tol
    }
}

/// Random bits taken a few at a time from one generator, so a magnitude with
/// `m` copies costs `m` bits (not a 64-bit word per copy).
pub(crate) struct Bits<'a> {
    g: &'a mut rng::Xoshiro256PlusPlus,
    word: u64,
    left: u32,
}

impl<'a> Bits<'a> {
    pub(crate) fn new(g: &'a mut rng::Xoshiro256PlusPlus) -> Self {
        Self {
            g,
            word: 0,
            left: 0,
        }
    }

    /// Number of ones among the next `m` random bits: an exact
    /// Binomial(m, ½) draw.
    fn ones(&mut self, mut m: u64) -> u64 {
        let mut ones = 0;
        while m > 0 {
            if self.left == 0 {
                self.word = self.g.next_u64();
                self.left = 64;
            }
            let k = m.min(u64::from(self.left)) as u32;
            let mask = u64::MAX >> (64 - k); // 1 ≤ k ≤ 64
            ones += u64::from((self.word & mask).count_ones());
            self.word = self.word.checked_shr(k).unwrap_or(0);
            self.left -= k;
            m -= u64::from(k);
        }
        ones
    }

    /// `±v` with a random sign (one bit): the one-copy case of
    /// `v·(2·Binomial(1, ½) − 1)`, which is the common case for cluster
    /// sums, kept as cheap as one sign per difference.
    #[inline]
    pub(crate) fn signed(&mut self, v: f64) -> f64 {
        if self.left == 0 {
            self.word = self.g.next_u64();
            self.left = 64;
        }
        let minus = !self.word & 1;
        self.word >>= 1;
        self.left -= 1;
        f64::from_bits(v.to_bits() ^ minus << 63)
    }

    /// A Binomial(m, ½) draw: counted bits for up to
    /// [`POPCOUNT_MAX_COPIES`] copies, else the crate's exact sampler.
    pub(crate) fn binomial_half(&mut self, m: u64) -> u64 {
        if m <= POPCOUNT_MAX_COPIES {
            self.ones(m)
        } else {
            crate::multinomial::binomial(self.g, m, 0.5)
        }
    }
}

/// `|S|` of one random sign pattern drawn from `g`: one Binomial(m_v, ½)
/// count of plus signs per distinct magnitude.
fn random_flip_statistic(mags: &Magnitudes, g: &mut rng::Xoshiro256PlusPlus) -> f64 {
    let mut bits = Bits::new(g);
    let mut s = 0.0;
    for (&v, &m) in mags.values.iter().zip(&mags.counts) {
        s += if m == 1 {
            bits.signed(v)
        } else {
            v * (2 * bits.binomial_half(m) as i64 - m as i64) as f64
        };
    }
    s.abs()
}

/// `(hits + 1)/(R + 1)` over `R = permutations` random patterns; pattern
/// `r` is drawn from its own stream, so the count does not depend on how
/// rayon splits the work.
fn random_sign_flip_p(mags: &Magnitudes, permutations: usize, seed: u64) -> f64 {
    const CHUNK: usize = 256;
    let seed = seed ^ PERMUTATION_DOMAIN;
    let threshold = mags.threshold();
    let hits: u64 = (0..permutations.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let (start, end) = (ci * CHUNK, ((ci + 1) * CHUNK).min(permutations));
            (start..end)
                .filter(|&r| {
                    let mut g = rng::stream(seed, r as u64);
                    random_flip_statistic(mags, &mut g) >= threshold
                })
                .count() as u64
        })
        .sum();
    (hits as f64 + 1.0) / (permutations as f64 + 1.0)
}

/// Number of the `2^m` sign patterns with `|S| ≥ threshold`, as an exact
/// integer: the sum over all `(x_v)` of `Π_v C(m_v, x_v)`.
fn exact_sign_flip_hits(mags: &Magnitudes) -> u64 {
    let rows: Vec<Vec<u64>> = mags.counts.iter().map(|&m| binomial_row(m)).collect();
    exact_hits_from(mags, &rows, 0, 0.0)
}

/// Patterns counted from magnitude `i` on, given the partial sum `s` of the
/// magnitudes before it (the sum is formed in the same order as
/// [`random_flip_statistic`] forms it).
fn exact_hits_from(mags: &Magnitudes, rows: &[Vec<u64>], i: usize, s: f64) -> u64 {
    let Some(&v) = mags.values.get(i) else {
        return u64::from(s.abs() >= mags.threshold());
    };
    let m = mags.counts[i] as i64;
    (0..=m)
        .map(|x| {
            let hits = exact_hits_from(mags, rows, i + 1, s + v * (2 * x - m) as f64);
            rows[i][x as usize] * hits
        })
        .sum()
}

/// `C(m, 0..=m)` by Pascal's rule (m ≤ [`MAX_EXACT_SIGN_FLIP`], so u64 is
/// ample).
pub(crate) fn binomial_row(m: u64) -> Vec<u64> {
    let mut row = vec![1u64];
    for _ in 0..m {
        let mut next = vec![1u64; row.len() + 1];
        for j in 1..row.len() {
            next[j] = row[j - 1] + row[j];
        }
        row = next;
    }
    row
}

/// Errors shared by [`sign_flip`] and [`sign_flip_test`].
pub(crate) fn check_differences(d: &[f64]) -> Result<()> {
    if d.is_empty() {
        return Err(StatsError::Empty("no differences"));
    }
    if d.iter().any(|v| !v.is_finite()) {
        return Err(StatsError::InvalidArgument("non-finite difference".into()));
    }
    Ok(())
}

pub(crate) fn check_permutations(permutations: usize) -> Result<()> {
    if permutations == 0 {
        return Err(StatsError::InvalidArgument(
            "permutations must be > 0".into(),
        ));
    }
    Ok(())
}

/// Two-sided paired sign-flip permutation p-value for differences `d`
/// (H0: the distribution of each d_i is symmetric about 0), with `R =
/// permutations` seeded random flips: `p = (#{|Σ s_i d_i| ≥ |Σ d_i|} + 1)/(R + 1)`
/// (`≥` up to a tolerance of 1e-12·Σ|d_i| for rounding).
/// Deterministic for a given seed, independent of thread count and of the
/// order of `d`.
///
/// A random pattern is drawn per distinct magnitude, not per difference:
/// the `m_v` copies of a magnitude `v` contribute `v·(2·X_v − m_v)` with
/// `X_v ~ Binomial(m_v, ½)` plus signs, drawn exactly: the ones in `m_v`
/// random bits up to 4096 copies, above that the crate's binomial sampler
/// (exact in distribution, up to floating point; cost independent of
/// `m_v`). The cost is O(R · distinct |d_i|) (at most 64 words of bits per
/// magnitude) rather than O(R · len(d)). The magnitudes are summed in
/// ascending order, so the p-value does not depend on the order of `d`.
///
/// ```
/// let d = [0.5, 0.4, 0.6, 0.3, 0.7, 0.5, 0.4, 0.6, 0.5, 0.45];
/// let p = rollstat_stats::sign_flip_test(&d, 2000, 1).unwrap();
/// // all ten differences positive: exact p = 2/1024
/// assert!(p < 0.01);
/// ```
pub fn sign_flip_test(d: &[f64], permutations: usize, seed: u64) -> Result<f64> {
    if d.is_empty() {
        return Err(StatsError::Empty("no differences"));
    }
    check_permutations(permutations)?;
    check_differences(d)?;
    Ok(random_sign_flip_p(&Magnitudes::new(d), permutations, seed))
}

/// Result of [`sign_flip`].
///
/// ```
/// let r = rollstat_stats::sign_flip(&[1.0, 1.0, 1.0, 0.0], 10_000, 7).unwrap();
/// assert!(r.exact && r.p == 0.25); // 2 of the 2³ sign patterns reach |Σ| = 3
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SignFlip {
    /// Two-sided p-value.
    pub p: f64,
    /// Whether every sign pattern was enumerated (`p = count / 2^m`), or
    /// `permutations` random patterns were drawn (`p = (r+1)/(R+1)`).
    pub exact: bool,
    /// Number of sign patterns evaluated: `2^m` (exact) or R.
    pub patterns: u64,
}

/// Largest number of nonzero differences that [`sign_flip`] enumerates
/// exactly (2^20 ≈ 10⁶ patterns).
pub const MAX_EXACT_SIGN_FLIP: u32 = 20;

/// Two-sided paired sign-flip test that is **exact** when it can be: with
/// `m` nonzero differences (zeros do not change under a flip) and
/// `2^m ≤ permutations` (and `m ≤ 20`), every sign pattern is counted and
/// `p = #{|Σ s_i d_i| ≥ |Σ d_i|} / 2^m` — the exact permutation p-value, as
/// `scipy.stats.permutation_test` gives when `n_resamples` covers all
/// patterns. Otherwise it is [`sign_flip_test`] with R = `permutations`
/// random patterns. On 0/±1 differences the exact value equals McNemar's
/// exact p.
///
/// The exact count groups the differences by magnitude: patterns with the
/// same number `x_v` of plus signs on each magnitude `v` share one sum, and
/// there are `Π_v C(m_v, x_v)` of them, so only `Π_v (m_v + 1)` sums are
/// formed and the count is exact integer arithmetic.
///
/// ```
/// use rollstat_stats::{sign_flip, mcnemar};
/// // 4 problems only A solves, 1 only B solves, 3 ties
/// let d = [-1.0, -1.0, -1.0, -1.0, 1.0, 0.0, 0.0, 0.0];
/// let r = sign_flip(&d, 10_000, 1).unwrap();
/// assert_eq!(r.p, 0.375); // 12 of 32 patterns: 0, 1, 4 or 5 plus signs
/// assert!((r.p - mcnemar(4, 1).p_exact).abs() < 1e-12);
/// assert_eq!(r.patterns, 32);
/// ```
pub fn sign_flip(d: &[f64], permutations: usize, seed: u64) -> Result<SignFlip> {
    check_differences(d)?;
    let mags = Magnitudes::new(d);
    let m = mags.nonzero();
    if m <= u64::from(MAX_EXACT_SIGN_FLIP) && (1u64 << m) <= permutations as u64 {
        let total = 1u64 << m;
        return Ok(SignFlip {
            p: exact_sign_flip_hits(&mags) as f64 / total as f64,
            exact: true,
            patterns: total,
        });
    }
    check_permutations(permutations)?;
    Ok(SignFlip {
        p: random_sign_flip_p(&mags, permutations, seed),
        exact: false,
        patterns: permutations as u64,
    })
}

/// McNemar's test on the discordant pairs of a paired binary outcome.
///
/// ```
/// let m = rollstat_stats::mcnemar(15, 19);
/// assert!((m.p_exact - 0.607591361273).abs() < 1e-10);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct McNemar {
    /// Problems where only A is correct.
    pub a_only: u64,
    /// Problems where only B is correct.
    pub b_only: u64,
    /// χ² = (b − c)²/(b + c) (NaN if no discordant pairs).
    pub statistic: f64,
    /// Exact two-sided p: min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, ½).
    pub p_exact: f64,
    /// Asymptotic χ²(1) p-value without continuity correction.
    pub p_chi2: f64,
    /// Asymptotic p-value with Edwards' continuity correction (|b−c|−1)²/(b+c).
    pub p_chi2_corrected: f64,
}

/// McNemar's test from the discordant counts `a_only` (A✓B✗) and `b_only`
/// (A✗B✓). With no discordant pairs all p-values are 1.
///
/// ```
/// let m = rollstat_stats::mcnemar(4, 0);
/// assert!((m.p_exact - 0.125).abs() < 1e-15);
/// ```
pub fn mcnemar(a_only: u64, b_only: u64) -> McNemar {
    let total = a_only + b_only;
    if total == 0 {
        return McNemar {
            a_only,
            b_only,
            statistic: f64::NAN,
            p_exact: 1.0,
            p_chi2: 1.0,
            p_chi2_corrected: 1.0,
        };
    }
    let (b, c, t) = (a_only as f64, b_only as f64, total as f64);
    let statistic = (b - c) * (b - c) / t;
    let cc = ((b - c).abs() - 1.0).max(0.0);
    McNemar {
        a_only,
        b_only,
        statistic,
        p_exact: (2.0 * binomial_cdf(a_only.min(b_only), total, 0.5)).min(1.0),
        p_chi2: chi2_1_sf(statistic),
        p_chi2_corrected: chi2_1_sf(cc * cc / t),
    }
}

/// Tango's asymptotic score interval (Tango 1998; Fagerland, Lydersen &
/// Laake 2017, §8.5) for the difference of two paired proportions,
/// `(n12 − n21)/n`, from the discordant counts `n12` (first yes, second
/// no) and `n21` and the pairs `n`, at two-sided `level`. Its bounds solve
/// `T(δ) = ±z` for the score statistic
/// `T(δ) = (n12 − n21 − nδ)/√(n(2p̃21 + δ(1 − δ)))`, `p̃21` the
/// constrained maximum-likelihood estimate, by bisection (T decreases in δ).
/// Unlike a bootstrap over pairs it does not collapse to a point when no
/// pair is discordant (with none of 4 pairs, 90%: ±z²/(n + z²) = ±0.40).
///
/// ```
/// use rollstat_stats::tango_paired_interval;
/// let i = tango_paired_interval(0, 0, 4, 0.90).unwrap();
/// let z2 = 1.6448536269514722f64.powi(2);
/// assert!((i.upper - z2 / (4.0 + z2)).abs() < 1e-9 && (i.lower + i.upper).abs() < 1e-12);
/// ```
pub fn tango_paired_interval(n12: u64, n21: u64, n: u64, level: f64) -> Result<Interval> {
    crate::error::check_level(level)?;
    if n == 0 || n12 + n21 > n {
        return Err(StatsError::InvalidArgument(
            "needs n ≥ 1 pairs and n12 + n21 ≤ n".into(),
        ));
    }
    let (b, c, nf) = (n12 as f64, n21 as f64, n as f64);
    let z = crate::dist::normal_quantile(1.0 - (1.0 - level) / 2.0);
    let score = |d: f64| {
        let qb = -b - c + (2.0 * nf - b + c) * d;
        let qc = -c * d * (1.0 - d);
        let p21 = ((qb * qb - 8.0 * nf * qc).max(0.0).sqrt() - qb) / (4.0 * nf);
        (b - c - nf * d) / (nf * (2.0 * p21 + d * (1.0 - d))).sqrt()
    };
    let estimate = (b - c) / nf;
    // The root of score(d) = target in (lo, hi), where score decreases.
    let solve = |target: f64, mut lo: f64, mut hi: f64| {
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if score(mid) > target {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    let lower = if estimate <= -1.0 {
        -1.0
    } else {
        solve(z, -1.0, estimate)
    };
    let upper = if estimate >= 1.0 {
        1.0
    } else {
        solve(-z, estimate, 1.0)
    };
    Ok(Interval { lower, upper })
}

/// McNemar's test from per-problem binary outcomes of A and B.
///
/// ```
/// let a = [true, true, false, true];
/// let b = [false, true, false, false];
/// let m = rollstat_stats::mcnemar_from_outcomes(&a, &b).unwrap();
/// assert_eq!((m.a_only, m.b_only), (2, 0));
/// ```
pub fn mcnemar_from_outcomes(a: &[bool], b: &[bool]) -> Result<McNemar> {
    if a.len() != b.len() {
        return Err(StatsError::LengthMismatch {
            what: "a vs b",
            left: a.len(),
            right: b.len(),
        });
    }
    let a_only = a.iter().zip(b).filter(|(x, y)| **x && !**y).count() as u64;
    let b_only = a.iter().zip(b).filter(|(x, y)| !**x && **y).count() as u64;
    Ok(mcnemar(a_only, b_only))
}

/// Multiple-comparison adjustment.
///
/// ```
/// assert_eq!(rollstat_stats::PAdjust::Holm.name(), "holm");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PAdjust {
    /// min(1, m·p) — FWER, any dependence.
    Bonferroni,
    /// Holm step-down — FWER, any dependence.
    Holm,
    /// Hochberg step-up — FWER under independence/PRDS.
    Hochberg,
    /// Benjamini–Hochberg — FDR under independence/PRDS.
    BenjaminiHochberg,
    /// Benjamini–Yekutieli — FDR under arbitrary dependence.
    BenjaminiYekutieli,
}

impl PAdjust {
    /// Short name (`"bonferroni"`, `"holm"`, `"hochberg"`, `"bh"`, `"by"`).
    ///
    /// ```
    /// assert_eq!(rollstat_stats::PAdjust::BenjaminiYekutieli.name(), "by");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PAdjust::Bonferroni => "bonferroni",
            PAdjust::Holm => "holm",
            PAdjust::Hochberg => "hochberg",
            PAdjust::BenjaminiHochberg => "bh",
            PAdjust::BenjaminiYekutieli => "by",
        }
    }
}

/// Adjusted p-values, in the input order (as R `p.adjust` / statsmodels
/// `multipletests`). p-values must be in [0, 1].
///
/// ```
/// use rollstat_stats::{adjust_p_values, PAdjust};
/// let p = [0.01, 0.04, 0.03];
/// let h = adjust_p_values(&p, PAdjust::Holm).unwrap();
/// assert!((h[0] - 0.03).abs() < 1e-15 && (h[1] - 0.06).abs() < 1e-15 && (h[2] - 0.06).abs() < 1e-15);
/// ```
pub fn adjust_p_values(p: &[f64], method: PAdjust) -> Result<Vec<f64>> {
    if p.iter().any(|x| !(0.0..=1.0).contains(x)) {
        return Err(StatsError::InvalidArgument(
            "p-values must be in [0, 1]".into(),
        ));
    }
    let m = p.len();
    if m == 0 {
        return Ok(Vec::new());
    }
    let mf = m as f64;
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut adj = vec![0.0; m];
    match method {
        PAdjust::Bonferroni => {
            for i in 0..m {
                adj[i] = (mf * p[i]).min(1.0);
            }
        }
        PAdjust::Holm => {
            let mut running: f64 = 0.0;
            for (rank, &i) in order.iter().enumerate() {
                let v = ((mf - rank as f64) * p[i]).min(1.0);
                running = running.max(v);
                adj[i] = running;
            }
        }
        PAdjust::Hochberg => {
            let mut running: f64 = 1.0;
            for (rank, &i) in order.iter().enumerate().rev() {
                let v = ((mf - rank as f64) * p[i]).min(1.0);
                running = running.min(v);
                adj[i] = running;
            }
        }
        PAdjust::BenjaminiHochberg | PAdjust::BenjaminiYekutieli => {
            let cm = if method == PAdjust::BenjaminiYekutieli {
                (1..=m).map(|i| 1.0 / i as f64).sum::<f64>()
            } else {
                1.0
            };
            let mut running: f64 = 1.0;
            for (rank, &i) in order.iter().enumerate().rev() {
                let v = (cm * mf * p[i] / (rank as f64 + 1.0)).min(1.0);
                running = running.min(v);
                adj[i] = running;
            }
        }
    }
    Ok(adj)
}

/// NonInferiorityVerdict of a non-inferiority check.
///
/// ```
/// assert_eq!(rollstat_stats::NonInferiorityVerdict::Inconclusive.name(), "inconclusive");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum NonInferiorityVerdict {
    /// The lower bound of delta is above −margin.
    NonInferior,
    /// The upper bound of delta is below −margin.
    Inferior,
    /// Neither.
    Inconclusive,
}

impl NonInferiorityVerdict {
    /// Kebab-case name.
    ///
    /// ```
    /// assert_eq!(rollstat_stats::NonInferiorityVerdict::NonInferior.name(), "non-inferior");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            NonInferiorityVerdict::NonInferior => "non-inferior",
            NonInferiorityVerdict::Inferior => "inferior",
            NonInferiorityVerdict::Inconclusive => "inconclusive",
        }
    }
}

/// Non-inferiority verdict for `delta = candidate − baseline` given its
/// **one-sided** lower and upper bounds at the chosen level (equivalently the
/// two-sided interval at `1 − 2α`) and a margin `m > 0`: `NonInferior` if
/// `lower > −m`, `Inferior` if `upper < −m`, otherwise `Inconclusive`.
///
/// ```
/// use rollstat_stats::{non_inferiority_verdict, Interval, NonInferiorityVerdict};
/// let v = non_inferiority_verdict(Interval { lower: -0.08, upper: -0.06 }, 0.05).unwrap();
/// assert_eq!(v, NonInferiorityVerdict::Inferior);
/// ```
pub fn non_inferiority_verdict(bounds: Interval, margin: f64) -> Result<NonInferiorityVerdict> {
    if !(margin > 0.0) || !margin.is_finite() {
        return Err(StatsError::InvalidArgument(format!(
            "margin must be > 0, got {margin}"
        )));
    }
    if bounds.lower.is_nan() || bounds.upper.is_nan() {
        return Ok(NonInferiorityVerdict::Inconclusive);
    }
    Ok(if bounds.lower > -margin {
        NonInferiorityVerdict::NonInferior
    } else if bounds.upper < -margin {
        NonInferiorityVerdict::Inferior
    } else {
        NonInferiorityVerdict::Inconclusive
    })
}

#[cfg(test)]
mod tests {
    use super::tango_paired_interval;

    /// Tango's interval against scipy (brentq on the score statistic as
    /// Fagerland, Lydersen & Laake's R code writes it, xtol 1e-14): their
    /// examples Bentur et al. 2009 ([[1, 1], [7, 12]]) and Cavo et al. 2012
    /// ([[59, 6], [16, 80]]), no discordant pair, one-sided tables, and the
    /// PropCIs example (b = 40, c = 20, n = 160).
    #[test]
    fn tango_interval_matches_scipy() {
        let cases: [(u64, u64, u64, f64, f64, f64); 9] = [
            (1, 7, 21, 0.95, -0.5172322764213774, -0.026003032480868528),
            (
                6,
                16,
                161,
                0.95,
                -0.12402343246406579,
                -0.0054333957316769765,
            ),
            (0, 0, 4, 0.90, -0.40347862520270467, 0.40347862520270494),
            (3, 0, 10, 0.90, 0.023175438891570924, 0.5583002041301649),
            (0, 5, 5, 0.95, -1.0, -0.1310350704336504),
            (5, 0, 5, 0.95, 0.13103507043365048, 1.0),
            (40, 20, 160, 0.95, 0.030864533133086937, 0.2180642441668248),
            (0, 0, 40, 0.90, -0.06335344864545855, 0.06335344864545851),
            (2, 9, 300, 0.90, -0.04505646408281437, -0.005905403986452995),
        ];
        for (b, c, n, level, lo, hi) in cases {
            let i = tango_paired_interval(b, c, n, level).unwrap();
            assert!(
                (i.lower - lo).abs() < 1e-9,
                "{b} {c} {n}: {} vs {lo}",
                i.lower
            );
            assert!(
                (i.upper - hi).abs() < 1e-9,
                "{b} {c} {n}: {} vs {hi}",
                i.upper
            );
        }
        assert!(tango_paired_interval(3, 3, 5, 0.95).is_err());
        assert!(tango_paired_interval(0, 0, 0, 0.95).is_err());
    }
}
