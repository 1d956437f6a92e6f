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
        let counts: Vec<u64> = counts.collect();
        self.sum(counts.into_iter())
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
