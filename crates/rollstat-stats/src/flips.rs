//! Flips between a baseline A and a candidate B on the same problems: the
//! one-sided exact McNemar test for a degradation, the within-model flip
//! floor, the cross-model flip rate and the excess flip (an unbiased
//! per-problem estimate of `(p_A − p_B)²`) with its label-permutation test.
//!
//! Sign convention: a **drop** is A − B (positive = the candidate B is
//! worse); `a_only` = problems A solved and B did not (Kübler's b),
//! `b_only` = the reverse (c). docs/statistics.md, "Suite gates and flips".

use std::collections::BTreeMap;

use rayon::prelude::*;
use serde::Serialize;

use crate::dist::{binomial_cdf, ln_choose};
use crate::error::{Result, StatsError};
use crate::paired::check_permutations;
use crate::rng;

/// One-sided exact McNemar p-value for a **degradation** (B worse than A):
/// `P(X ≥ a_only)` with `X ~ Binomial(a_only + b_only, ½)`; with `mid_p`,
/// the mid-p value `P(X > a_only) + ½·P(X = a_only)` (Fagerland, Lydersen
/// & Laake 2013). With no discordant pairs both are 1.0 (no evidence either
/// way; the mid-p convention would give ½ there, which a gate must not read
/// as half-way to a failure).
///
/// ```
/// use rollstat_stats::degradation_p;
/// assert!((degradation_p(412, 340, false) - 0.004788420996860966).abs() < 1e-12);
/// assert!((degradation_p(3, 0, false) - 0.125).abs() < 1e-14);
/// assert_eq!(degradation_p(0, 0, true), 1.0);
/// ```
pub fn degradation_p(a_only: u64, b_only: u64, mid_p: bool) -> f64 {
    let m = a_only + b_only;
    if m == 0 {
        return 1.0;
    }
    // X ≥ a_only ⇔ m − X ≤ b_only, and m − X ~ Binomial(m, ½) as well.
    let tail = binomial_cdf(b_only, m, 0.5);
    if !mid_p {
        return tail;
    }
    let at = (ln_choose(m, b_only) - m as f64 * std::f64::consts::LN_2).exp();
    (tail - 0.5 * at).clamp(0.0, 1.0)
}

/// Within-model flip rate of one problem: `2c(n − c)/(n(n − 1))`, the mean
/// over ordered pairs of distinct rollouts of `1[x_i ≠ x_j]` given `c`
/// correct of `n`. `None` for `n < 2` (or `c > n`).
///
/// ```
/// assert_eq!(rollstat_stats::within_flip(1, 4), Some(0.5));
/// assert_eq!(rollstat_stats::within_flip(1, 1), None);
/// ```
pub fn within_flip(c: u64, n: u64) -> Option<f64> {
    if n < 2 || c > n {
        return None;
    }
    let (c, n) = (c as f64, n as f64);
    Some(2.0 * c * (n - c) / (n * (n - 1.0)))
}

/// Cross-model flip rate of one problem: the probability that a random
/// rollout of A and a random rollout of B disagree,
/// `[c_A(n_B − c_B) + c_B(n_A − c_A)]/(n_A·n_B)` (requires `c ≤ n`, `n > 0`).
///
/// ```
/// assert_eq!(rollstat_stats::cross_flip(3, 4, 1, 4), 0.625);
/// ```
pub fn cross_flip(c_a: u64, n_a: u64, c_b: u64, n_b: u64) -> f64 {
    let (a, b) = expected_discordant(c_a, n_a, c_b, n_b);
    a + b
}

/// Expected `(a_only, b_only)` contributions of one problem:
/// `(c_A(n_B − c_B)/(n_A n_B), c_B(n_A − c_A)/(n_A n_B))`, the probabilities
/// that a random A rollout is right and a random B rollout wrong, and the
/// reverse. With one rollout each they are the 0/1 McNemar counts.
///
/// ```
/// assert_eq!(rollstat_stats::expected_discordant(1, 1, 0, 1), (1.0, 0.0));
/// assert_eq!(rollstat_stats::expected_discordant(3, 4, 1, 4), (0.5625, 0.0625));
/// ```
pub fn expected_discordant(c_a: u64, n_a: u64, c_b: u64, n_b: u64) -> (f64, f64) {
    let (ca, na, cb, nb) = (c_a as f64, n_a as f64, c_b as f64, n_b as f64);
    let d = na * nb;
    (ca * (nb - cb) / d, cb * (na - ca) / d)
}

/// Unbiased per-problem estimate of `(p_A − p_B)²`:
/// `(p̂_A − p̂_B)² − p̂_A(1 − p̂_A)/(n_A − 1) − p̂_B(1 − p̂_B)/(n_B − 1)`
/// (`p̂(1 − p̂)/(n − 1)` is unbiased for `Var p̂ = p(1 − p)/n`). It can be
/// negative. `None` when `n_A < 2` or `n_B < 2` (or `c > n`).
///
/// ```
/// assert_eq!(rollstat_stats::excess_flip(3, 4, 1, 4), Some(0.125));
/// assert_eq!(rollstat_stats::excess_flip(1, 1, 0, 4), None);
/// ```
pub fn excess_flip(c_a: u64, n_a: u64, c_b: u64, n_b: u64) -> Option<f64> {
    if n_a < 2 || n_b < 2 || c_a > n_a || c_b > n_b {
        return None;
    }
    let pa = c_a as f64 / n_a as f64;
    let pb = c_b as f64 / n_b as f64;
    let d = pa - pb;
    Some(d * d - pa * (1.0 - pa) / (n_a - 1) as f64 - pb * (1.0 - pb) / (n_b - 1) as f64)
}

/// Flip statistics of a suite of problems, from [`flip_summary`].
///
/// ```
/// let s = rollstat_stats::flip_summary(&[(1, 1, 0, 1), (0, 1, 0, 1)]).unwrap();
/// assert!(s.single_draw && s.a_only == 1.0 && s.floor.is_none());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FlipSummary {
    /// Number of problems.
    pub n_problems: u64,
    /// Σ of the expected A-only contributions ([`expected_discordant`]).
    pub a_only: f64,
    /// Σ of the expected B-only contributions.
    pub b_only: f64,
    /// Mean [`cross_flip`] over problems.
    pub flip_rate: f64,
    /// Mean [`within_flip`] of A over problems with `n_A ≥ 2`.
    pub floor_a: Option<f64>,
    /// Mean [`within_flip`] of B over problems with `n_B ≥ 2`.
    pub floor_b: Option<f64>,
    /// Mean of the two floors, or the one present.
    pub floor: Option<f64>,
    /// Mean [`excess_flip`] over problems where it is defined.
    pub excess: Option<f64>,
    /// `sd/√N'` (ddof = 1) of those per-problem estimates (N' ≥ 2).
    pub excess_se: Option<f64>,
    /// Every problem has `n_A = n_B = 1`.
    pub single_draw: bool,
}

/// Rejects empty input, `n = 0` and `c > n`.
pub(crate) fn check_problems(problems: &[(u64, u64, u64, u64)]) -> Result<()> {
    if problems.is_empty() {
        return Err(StatsError::Empty("no problems"));
    }
    for &(ca, na, cb, nb) in problems {
        if na == 0 || nb == 0 || ca > na || cb > nb {
            return Err(StatsError::InvalidArgument(format!(
                "problem counts (c_A, n_A, c_B, n_B) = ({ca}, {na}, {cb}, {nb}) need 0 < n and c ≤ n"
            )));
        }
    }
    Ok(())
}

fn mean(v: &[f64]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().sum::<f64>() / v.len() as f64)
}

/// Flip summary over per-problem counts `(c_A, n_A, c_B, n_B)`. The
/// problems are sorted first, so the result does not depend on their order.
/// Errors on empty input, `n = 0` or `c > n`.
///
/// ```
/// // A 3/4 correct, B 1/4 correct on one problem
/// let s = rollstat_stats::flip_summary(&[(3, 4, 1, 4)]).unwrap();
/// assert_eq!((s.flip_rate, s.floor, s.excess), (0.625, Some(0.5), Some(0.125)));
/// assert_eq!(s.excess_se, None);
/// ```
pub fn flip_summary(problems: &[(u64, u64, u64, u64)]) -> Result<FlipSummary> {
    check_problems(problems)?;
    let mut sorted = problems.to_vec();
    sorted.sort_unstable();
    let (mut a_only, mut b_only, mut flips) = (0.0, 0.0, 0.0);
    let (mut fa, mut fb, mut ex) = (Vec::new(), Vec::new(), Vec::new());
    for &(ca, na, cb, nb) in &sorted {
        let (x, y) = expected_discordant(ca, na, cb, nb);
        a_only += x;
        b_only += y;
        flips += x + y;
        fa.extend(within_flip(ca, na));
        fb.extend(within_flip(cb, nb));
        ex.extend(excess_flip(ca, na, cb, nb));
    }
    let (floor_a, floor_b) = (mean(&fa), mean(&fb));
    let floor = match (floor_a, floor_b) {
        (Some(a), Some(b)) => Some((a + b) / 2.0),
        (a, b) => a.or(b),
    };
    let excess = mean(&ex);
    let excess_se = excess.filter(|_| ex.len() >= 2).map(|m| {
        let ss: f64 = ex.iter().map(|v| (v - m) * (v - m)).sum();
        (ss / (ex.len() - 1) as f64).sqrt() / (ex.len() as f64).sqrt()
    });
    Ok(FlipSummary {
        n_problems: sorted.len() as u64,
        a_only,
        b_only,
        flip_rate: flips / sorted.len() as f64,
        floor_a,
        floor_b,
        floor,
        excess,
        excess_se,
        single_draw: sorted.iter().all(|p| p.1 == 1 && p.3 == 1),
    })
}

/// Result of [`excess_flip_permutation`].
///
/// ```
/// let t = rollstat_stats::excess_flip_permutation(&[(4, 4, 0, 4)], 99, 1).unwrap();
/// assert_eq!(t.permutations, 99);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ExcessFlipTest {
    /// Observed mean excess flip over the problems with `n_A, n_B ≥ 2`.
    pub statistic: f64,
    /// One-sided p of "excess > 0": `(r + 1)/(R + 1)`.
    pub p: f64,
    /// Number R of random relabellings.
    pub permutations: u64,
}

/// The problems sharing one `(C, n_A, n_B)`: under the null the per-problem
/// statistic takes `values[k]` (`c_A* = lo + k`) with hypergeometric
/// probability `probs[k]`; `tail[k] = Σ_{j ≥ k} probs[j]`.
struct Group {
    values: Vec<f64>,
    probs: Vec<f64>,
    tail: Vec<f64>,
    observed: Vec<u64>,
    count: u64,
}

impl Group {
    fn new((c, n_a, n_b): (u64, u64, u64)) -> Self {
        let (lo, hi) = (c.saturating_sub(n_b), c.min(n_a));
        let values: Vec<f64> = (lo..=hi)
            .map(|k| excess_flip(k, n_a, c - k, n_b).expect("n ≥ 2"))
            .collect();
        let ln_total = ln_choose(n_a + n_b, c);
        let mut probs: Vec<f64> = (lo..=hi)
            .map(|k| (ln_choose(n_a, k) + ln_choose(n_b, c - k) - ln_total).exp())
            .collect();
        let sum: f64 = probs.iter().sum();
        probs.iter_mut().for_each(|p| *p /= sum);
        let mut tail = probs.clone();
        for k in (0..tail.len().saturating_sub(1)).rev() {
            tail[k] += tail[k + 1];
        }
        let observed = vec![0; values.len()];
        Self {
            values,
            probs,
            tail,
            observed,
            count: 0,
        }
    }

    /// Sum of the statistic over the group's problems for `counts[k]`
    /// problems taking `values[k]` (always formed in the same order).
    fn sum(&self, counts: impl Iterator<Item = u64>) -> f64 {
        self.values
            .iter()
            .zip(counts)
            .map(|(v, c)| v * c as f64)
            .sum()
    }

    /// A multinomial draw of the group's `count` problems over the values
    /// by sequential binomials, summed.
    fn draw_sum(&self, g: &mut rng::Xoshiro256PlusPlus) -> f64 {
        let mut left = self.count;
        let counts = self.probs.iter().zip(&self.tail).map(|(&p, &t)| {
            let x = if left == 0 || p >= t {
                left
            } else {
                crate::multinomial::binomial(g, left, (p / t).min(1.0))
            };
            left -= x;
            x
        });
        self.sum(counts)
    }
}

/// Groups the problems with `n_A, n_B ≥ 2` by `(C = c_A + c_B, n_A, n_B)`,
/// sorted, with the observed `c_A` tallied.
fn excess_groups(problems: &[(u64, u64, u64, u64)]) -> Vec<Group> {
    let mut groups: BTreeMap<(u64, u64, u64), Group> = BTreeMap::new();
    for &(ca, na, cb, nb) in problems.iter().filter(|p| p.1 >= 2 && p.3 >= 2) {
        let key = (ca + cb, na, nb);
        let g = groups.entry(key).or_insert_with(|| Group::new(key));
        g.observed[(ca - key.0.saturating_sub(nb)) as usize] += 1;
        g.count += 1;
    }
    groups.into_values().collect()
}

const EXCESS_DOMAIN: u64 = 0x4558_4345_5353_464C; // "EXCESSFL"

/// One-sided permutation test of "excess flip > 0" (A and B differ on
/// individual problems beyond their own rollout noise): the model labels of
/// the `n_A + n_B` rollouts of each problem are permuted, so under the null
/// `c_A* ~ Hypergeometric(n_A + n_B, C = c_A + c_B, n_A)` independently per
/// problem. Statistic: the mean of [`excess_flip`]`(c_A*, n_A, C − c_A*, n_B)`
/// over problems with `n_A, n_B ≥ 2` (others are left out). `p = (r + 1)/(R + 1)`
/// with `r = #{T* ≥ T − 1e-12·max|value|}`.
///
/// Problems are grouped by `(C, n_A, n_B)`; per relabelling each group's
/// multiplicity is split over its at most `min(n_A, C) + 1` values by a
/// multinomial draw, so the cost is O(R × Σ_groups values), not O(R ×
/// problems). Relabelling `r` uses its own stream, groups are sorted: the
/// result is deterministic per seed and independent of input order and
/// thread count. Errors: invalid counts, `permutations = 0`, no problem
/// with two or more rollouts on both sides.
///
/// ```
/// // A always right, B always wrong on 30 problems: p at its floor 1/(R+1)
/// let t = rollstat_stats::excess_flip_permutation(&vec![(4, 4, 0, 4); 30], 199, 7).unwrap();
/// assert!(t.statistic > 0.9 && t.p == 1.0 / 200.0);
/// ```
pub fn excess_flip_permutation(
    problems: &[(u64, u64, u64, u64)],
    permutations: usize,
    seed: u64,
) -> Result<ExcessFlipTest> {
    check_problems(problems)?;
    check_permutations(permutations)?;
    let groups = excess_groups(problems);
    let used: u64 = groups.iter().map(|g| g.count).sum();
    if used == 0 {
        return Err(StatsError::Empty(
            "no problem with two or more rollouts on both sides",
        ));
    }
    let observed: f64 = groups
        .iter()
        .map(|g| g.sum(g.observed.iter().copied()))
        .sum();
    let scale = groups
        .iter()
        .flat_map(|g| g.values.iter().map(|v| v.abs()))
        .fold(0.0, f64::max);
    let threshold = observed - 1e-12 * scale * used as f64;
    const CHUNK: usize = 64;
    let seed = seed ^ EXCESS_DOMAIN;
    let hits: u64 = (0..permutations.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let (start, end) = (ci * CHUNK, ((ci + 1) * CHUNK).min(permutations));
            (start..end)
                .filter(|&r| {
                    let mut g = rng::stream(seed, r as u64);
                    let s: f64 = groups.iter().map(|grp| grp.draw_sum(&mut g)).sum();
                    s >= threshold
                })
                .count() as u64
        })
        .sum();
    Ok(ExcessFlipTest {
        statistic: observed / used as f64,
        p: (hits as f64 + 1.0) / (permutations as f64 + 1.0),
        permutations: permutations as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigInt;
    use num_rational::BigRational;
    use num_traits::{One, ToPrimitive, Zero};

    fn choose(n: u64, k: u64) -> u64 {
        (0..k).fold(1, |acc, i| acc * (n - i) / (i + 1))
    }

    fn rel_close(a: f64, b: f64, rtol: f64) -> bool {
        (a - b).abs() <= rtol * b.abs()
    }

    /// scipy.stats.binomtest(412, 752, alternative="greater").pvalue and its mid-p.
    #[test]
    fn degradation_p_scipy_vector() {
        assert!(rel_close(
            degradation_p(412, 340, false),
            0.004788420996860966,
            1e-10
        ));
        assert!(rel_close(
            degradation_p(412, 340, true),
            0.0043255826340586395,
            1e-10
        ));
    }

    /// Exact rational tails `Σ_{x ≥ b} C(m, x)/2^m` (and mid-p) for all m ≤ 12.
    #[test]
    fn degradation_p_exact_enumeration() {
        assert_eq!(
            (degradation_p(0, 0, false), degradation_p(0, 0, true)),
            (1.0, 1.0)
        );
        for m in 1..=12u64 {
            let total = (1u64 << m) as f64;
            for b in 0..=m {
                let above: u64 = (b + 1..=m).map(|x| choose(m, x)).sum();
                let exact = (above + choose(m, b)) as f64 / total;
                let mid = (above as f64 + 0.5 * choose(m, b) as f64) / total;
                assert!(
                    (degradation_p(b, m - b, false) - exact).abs() < 1e-13,
                    "{b}/{m}"
                );
                assert!(
                    (degradation_p(b, m - b, true) - mid).abs() < 1e-13,
                    "{b}/{m}"
                );
            }
        }
    }

    /// within_flip is the mean of 1[x_i ≠ x_j] over ordered pairs i ≠ j.
    #[test]
    fn within_flip_is_pairwise_disagreement() {
        assert_eq!(within_flip(0, 1), None);
        assert_eq!(within_flip(3, 2), None);
        for n in 2..=9u64 {
            for c in 0..=n {
                let x: Vec<bool> = (0..n).map(|i| i < c).collect();
                let mut diff = 0u64;
                for i in 0..n as usize {
                    for j in 0..n as usize {
                        diff += u64::from(i != j && x[i] != x[j]);
                    }
                }
                let want = diff as f64 / (n * (n - 1)) as f64;
                assert!((within_flip(c, n).unwrap() - want).abs() < 1e-15);
            }
        }
    }

    #[test]
    fn toy_three_of_four_vs_one_of_four() {
        assert_eq!(excess_flip(3, 4, 1, 4), Some(0.125));
        assert_eq!(cross_flip(3, 4, 1, 4), 0.625);
        assert_eq!(
            (within_flip(3, 4), within_flip(1, 4)),
            (Some(0.5), Some(0.5))
        );
        // single draws: the expected discordant counts are the 0/1 counts
        assert_eq!(expected_discordant(1, 1, 0, 1), (1.0, 0.0));
        assert_eq!(expected_discordant(0, 1, 1, 1), (0.0, 1.0));
        assert_eq!(expected_discordant(1, 1, 1, 1), (0.0, 0.0));
        assert_eq!(excess_flip(1, 1, 0, 2), None);
    }

    fn rat(n: i64, d: i64) -> BigRational {
        BigRational::new(BigInt::from(n), BigInt::from(d))
    }

    fn binom_pmf(n: u64, k: u64, p: &BigRational) -> BigRational {
        let q = BigRational::one() - p;
        let mut v = BigRational::from_integer(BigInt::from(choose(n, k)));
        for _ in 0..k {
            v *= p;
        }
        for _ in 0..n - k {
            v *= &q;
        }
        v
    }

    /// E[excess_flip] = (p_A − p_B)² exactly, by enumerating
    /// Binomial(n_A, p_A) × Binomial(n_B, p_B) in rationals; the f64
    /// function agrees with the rational formula at every point.
    #[test]
    fn excess_flip_is_unbiased_exact_enumeration() {
        let cases = [
            ((3, 10), (7, 10), 4, 6),
            ((1, 2), (1, 2), 8, 8),
            ((1, 5), (9, 10), 2, 3),
            ((2, 3), (1, 4), 5, 2),
            ((0, 1), (1, 3), 3, 7),
        ];
        for ((an, ad), (bn, bd), na, nb) in cases {
            let (pa, pb) = (rat(an, ad), rat(bn, bd));
            let mut e = BigRational::zero();
            for ka in 0..=na {
                for kb in 0..=nb {
                    let ha = rat(ka as i64, na as i64);
                    let hb = rat(kb as i64, nb as i64);
                    let one = BigRational::one();
                    let d = &ha - &hb;
                    let est = &d * &d
                        - &ha * (&one - &ha) / rat(na as i64 - 1, 1)
                        - &hb * (&one - &hb) / rat(nb as i64 - 1, 1);
                    let got = excess_flip(ka, na, kb, nb).unwrap();
                    assert!((got - est.to_f64().unwrap()).abs() < 1e-12);
                    e += binom_pmf(na, ka, &pa) * binom_pmf(nb, kb, &pb) * est;
                }
            }
            let d = &pa - &pb;
            assert_eq!(e, &d * &d, "{pa} {pb} {na} {nb}");
        }
        // the two quoted vectors
        assert_eq!(rat(4, 10) * rat(4, 10), rat(4, 25));
    }

    /// gpt-4o airline (τ-bench, 50 problems × 4 trials) within-model floor
    /// 0.293333…: c ∈ {1, 3} gives 2·3/12 = ½, c = 2 gives 8/12 = ⅔, c ∈ {0, 4}
    /// gives 0; 16 problems at ½ and 10 at ⅔ make 8 + 20/3 = 44/3 over 50 =
    /// 44/150 = 0.29333….
    #[test]
    fn tau_bench_floor() {
        let mut problems = Vec::new();
        for i in 0..50u64 {
            let c = match i {
                0..=7 => 1,
                8..=15 => 3,
                16..=25 => 2,
                26..=37 => 0,
                _ => 4,
            };
            problems.push((c, 4, c, 4));
        }
        let s = flip_summary(&problems).unwrap();
        assert!((s.floor_a.unwrap() - 44.0 / 150.0).abs() < 1e-15);
        assert!((s.floor.unwrap() - 0.2933333333333333).abs() < 1e-15);
        assert!(!s.single_draw);
    }

    #[test]
    fn flip_summary_hand_values_and_errors() {
        let problems = [(3, 4, 1, 4), (2, 4, 2, 4), (4, 4, 0, 4), (1, 1, 0, 1)];
        let s = flip_summary(&problems).unwrap();
        // excess: 0.125, 0 − 2·(¼/3) = −1/6, 1 (the single-draw problem has none)
        let ex = [0.125, -1.0 / 6.0, 1.0];
        let m = (0.125 - 1.0 / 6.0 + 1.0) / 3.0;
        let sd = (ex.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / 2.0).sqrt();
        assert!((s.excess.unwrap() - m).abs() < 1e-15);
        assert!((s.excess_se.unwrap() - sd / 3f64.sqrt()).abs() < 1e-15);
        // a_only: 9/16 + 4/16 + 1 + 1; b_only: 1/16 + 4/16 + 0 + 0
        assert!((s.a_only - (9.0 / 16.0 + 0.25 + 2.0)).abs() < 1e-15);
        assert!((s.b_only - 5.0 / 16.0).abs() < 1e-15);
        assert!((s.flip_rate - (0.625 + 0.5 + 1.0 + 1.0) / 4.0).abs() < 1e-15);
        // floors: A over 3/4, 2/4, 4/4: (½ + ⅔ + 0)/3; B over 1/4, 2/4, 0/4: the same
        assert!((s.floor_a.unwrap() - (0.5 + 2.0 / 3.0) / 3.0).abs() < 1e-15);
        assert_eq!(s.floor_a, s.floor_b);
        assert_eq!(s.n_problems, 4);
        let mut rev = problems;
        rev.reverse();
        assert_eq!(flip_summary(&rev).unwrap(), s);
        assert!(flip_summary(&[]).is_err());
        assert!(flip_summary(&[(1, 0, 0, 1)]).is_err());
        assert!(flip_summary(&[(2, 1, 0, 1)]).is_err());
        assert!(flip_summary(&[(1, 1, 0, 1)]).unwrap().single_draw);
    }

    /// `P(c_A* = k)` by enumerating every choice of n_A of the N rollouts
    /// (the first C correct).
    fn relabel_distribution(c: u64, n_a: u64, n_b: u64) -> Vec<(u64, f64)> {
        let n = n_a + n_b;
        let mut counts = vec![0u64; n_a as usize + 1];
        let mut total = 0u64;
        for mask in 0u64..(1 << n) {
            if u64::from(mask.count_ones()) == n_a {
                counts[(mask & ((1 << c) - 1)).count_ones() as usize] += 1;
                total += 1;
            }
        }
        (0..=n_a)
            .filter(|&k| counts[k as usize] > 0)
            .map(|k| (k, counts[k as usize] as f64 / total as f64))
            .collect()
    }

    /// Exact permutation p: the full product distribution of the sum.
    fn exact_excess_p(problems: &[(u64, u64, u64, u64)]) -> f64 {
        let observed: f64 = problems
            .iter()
            .map(|&(ca, na, cb, nb)| excess_flip(ca, na, cb, nb).unwrap())
            .sum();
        let mut dist = vec![(0.0f64, 1.0f64)];
        for &(ca, na, cb, nb) in problems {
            let c = ca + cb;
            let mut next = Vec::new();
            for &(s, p) in &dist {
                for (k, q) in relabel_distribution(c, na, nb) {
                    next.push((s + excess_flip(k, na, c - k, nb).unwrap(), p * q));
                }
            }
            dist = next;
        }
        dist.iter()
            .filter(|(s, _)| *s >= observed - 1e-9)
            .map(|(_, p)| p)
            .sum()
    }

    #[test]
    fn excess_permutation_matches_exact_distribution() {
        let problems = [
            (2, 3, 1, 3),
            (0, 2, 2, 2),
            (3, 4, 1, 2),
            (1, 2, 0, 3),
            (2, 3, 1, 3),
            (3, 3, 0, 2),
        ];
        let exact = exact_excess_p(&problems);
        let r = 20_000;
        let t = excess_flip_permutation(&problems, r, 11).unwrap();
        let se = (exact * (1.0 - exact) / r as f64).sqrt();
        assert!(
            (t.p - exact).abs() < 3.0 * se + 1.0 / r as f64,
            "{} vs {exact}",
            t.p
        );
        let mean = problems
            .iter()
            .map(|&(a, b, c, d)| excess_flip(a, b, c, d).unwrap())
            .sum::<f64>()
            / 6.0;
        assert!((t.statistic - mean).abs() < 1e-15);
    }

    #[test]
    fn excess_permutation_order_invariant_and_seeded() {
        let problems: Vec<_> = (0..200u64)
            .map(|i| (i % 5, 4, (i * 7) % 4, 3 + i % 2))
            .collect();
        let a = excess_flip_permutation(&problems, 500, 3).unwrap();
        let mut rev = problems.clone();
        rev.reverse();
        rev.rotate_left(17);
        assert_eq!(excess_flip_permutation(&rev, 500, 3).unwrap(), a);
        assert_eq!(excess_flip_permutation(&problems, 500, 3).unwrap(), a);
        assert!(excess_flip_permutation(&problems, 0, 3).is_err());
        assert!(excess_flip_permutation(&[(1, 1, 0, 1)], 10, 3).is_err());
    }

    /// A all right / B all wrong on 20 problems and the reverse on 20 (equal
    /// accuracy overall), ties elsewhere: the excess is clearly positive.
    #[test]
    fn excess_permutation_detects_drift() {
        let mut problems = vec![(4, 4, 0, 4); 20];
        problems.extend(vec![(0, 4, 4, 4); 20]);
        problems.extend(vec![(2, 4, 2, 4); 60]);
        let t = excess_flip_permutation(&problems, 999, 5).unwrap();
        assert!(t.p <= 0.002, "{}", t.p);
    }

    /// Under the null (A and B share each problem's success probability)
    /// the p-values are not small: mean near ½, few below 0.05.
    #[test]
    fn excess_permutation_null_is_uniformish() {
        let sims = 60;
        let mut ps = Vec::new();
        for sim in 0..sims {
            let mut g = rng::stream(2024, sim);
            let problems: Vec<_> = (0..150)
                .map(|_| {
                    let p = g.next_f64();
                    let ca = crate::multinomial::binomial(&mut g, 4, p);
                    let cb = crate::multinomial::binomial(&mut g, 4, p);
                    (ca, 4, cb, 4)
                })
                .collect();
            ps.push(excess_flip_permutation(&problems, 199, sim).unwrap().p);
        }
        let mean = ps.iter().sum::<f64>() / sims as f64;
        let small = ps.iter().filter(|&&p| p < 0.05).count();
        assert!((0.35..0.65).contains(&mean), "{mean}");
        assert!(small <= 10, "{small} of {sims}");
    }

    /// 50,000 problems × R = 2,000 must stay cheap (grouped draws).
    #[test]
    fn excess_permutation_scales() {
        let problems: Vec<_> = (0..50_000u64)
            .map(|i| ((i * 31) % 5, 4, (i * 17) % 5, 4))
            .collect();
        let start = std::time::Instant::now();
        let t = excess_flip_permutation(&problems, 2_000, 9).unwrap();
        assert!(t.p > 0.0 && t.p <= 1.0);
        assert!(start.elapsed().as_secs() < 30);
    }
}
