//! Per-problem estimators from `n` rollouts of which `c` are correct.
//!
//! Every function returns `None` where the estimator is undefined — most
//! importantly when `k > n`. A problem with fewer than `k` rollouts says
//! nothing about `k` draws without replacement; returning 1.0 (human-eval,
//! lighteval) or 0.0 (SiEval) would silently bias the mean, so the caller
//! excludes the problem and counts it instead.
//!
//! # Accuracy
//!
//! All products of ratios are carried in double-double arithmetic with a
//! separate binary exponent (see `numeric.rs`), then rounded once to `f64`.
//! Against exact rational arithmetic the relative error is a few units in
//! the last place for any `n < 2⁶³` (tested to 1e-12 for n up to 10⁹).
//! `pass@1` is the correctly rounded `c / n`.
//!
//! Cost: `pass@k` and `pass^k` take `min(k, c)` resp. `min(k, n − c)`
//! multiplications, and stop early once the product underflows (to the
//! same f64 result). `g-pass@k` and `mg-pass@k` sum the hypergeometric
//! tail directly while that takes at most [`DIRECT_TAIL_BUDGET`] steps, and
//! beyond it from the mode outward in O(σ·√log) steps (σ the standard
//! deviation of the number correct in k draws; see `hypergeom.rs`).

use crate::hypergeom::{upper_tail_from_mode, Weight};
use crate::numeric::{Dd, Scaled};
use std::sync::OnceLock;

/// Largest n whose binomial coefficients all fit in a u64 (C(67, 33) <
/// 2⁶⁴ < C(68, 34)). Up to here every estimator is a ratio of exact
/// integers from Pascal's triangle, rounded once (plus the u64 → f64
/// conversions): a few nanoseconds and a relative error of ~2 ulp. Typical
/// evals (n = 1…64) never reach the double-double path.
pub(crate) const SMALL_N: u64 = 67;

fn pascal() -> &'static [[u64; 68]; 68] {
    static TABLE: OnceLock<[[u64; 68]; 68]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut t = [[0u64; 68]; 68];
        for n in 0..68 {
            t[n][0] = 1;
            for k in 1..=n {
                t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            }
        }
        t
    })
}

/// C(n, k) for n ≤ 67 (0 when k > n).
#[inline]
fn small_binom(n: u64, k: u64) -> u64 {
    if k > n {
        0
    } else {
        pascal()[n as usize][k as usize]
    }
}

/// Pascal's triangle as f64 (entries above 2⁵³ rounded, ≤ ½ ulp).
fn pascal_f64() -> &'static [[f64; 68]; 68] {
    static TABLE: OnceLock<[[f64; 68]; 68]> = OnceLock::new();
    TABLE.get_or_init(|| {
        let t = pascal();
        let mut f = [[0f64; 68]; 68];
        for n in 0..68 {
            for k in 0..68 {
                f[n][k] = t[n][k] as f64;
            }
        }
        f
    })
}

/// `Σ_{x = m..=min(c,k)} w(x)·C(c,x)·C(n−c,k−x) / C(n,k)` for n ≤ 67. The
/// terms are positive, so summing them in f64 (each binomial within ½ ulp)
/// keeps the relative error within a few ulp — no cancellation.
fn small_upper_tail(n: u64, c: u64, k: u64, m: u64, weight: impl Fn(u64) -> f64) -> f64 {
    let t = pascal_f64();
    let (n, c, k) = (n as usize, c as usize, k as usize);
    let lo = (m as usize).max(k.saturating_sub(n - c));
    let mut num = 0.0;
    for x in lo..=c.min(k) {
        num += weight(x as u64) * t[c][x] * t[n - c][k - x];
    }
    num / t[n][k]
}

/// `Π_{i<terms} (a − i)/(b − i)`, the building block of every ratio of
/// binomial coefficients here. Requires `terms ≤ a ≤ b`.
fn ratio_product(a: u64, b: u64, terms: u64) -> Scaled {
    let mut p = Scaled::one();
    for i in 0..terms {
        p = p.mul(Dd::ratio(a - i, b - i));
    }
    p
}

/// [`ratio_product`] that stops once the product is below 2⁻¹⁵³⁶: every
/// factor is ≤ 1, so it only shrinks from there, its f64 value is 0 and
/// `1 −` it rounds to 1 — the same result as the whole product, without
/// the rest of its (up to 2⁶³) factors.
fn ratio_product_or_zero(a: u64, b: u64, terms: u64) -> Scaled {
    let mut p = Scaled::one();
    for i in 0..terms {
        p = p.mul(Dd::ratio(a - i, b - i));
        if p.exp <= -2048 {
            return Scaled {
                m: Dd::ZERO,
                exp: 0,
            };
        }
    }
    p
}

/// `C(n−c, k) / C(n, k)`: the probability that k draws contain no correct one.
fn all_wrong_probability(n: u64, c: u64, k: u64) -> Scaled {
    // Two product forms of the same ratio; take the shorter one.
    // C(n−c,k)/C(n,k) = Π_{i<k} (n−c−i)/(n−i) = Π_{i<c} (n−k−i)/(n−i).
    if k <= c {
        ratio_product_or_zero(n - c, n, k)
    } else {
        ratio_product_or_zero(n - k, n, c)
    }
}

/// `C(c, k) / C(n, k)`: the probability that k draws are all correct (k ≤ c).
fn all_correct_probability(n: u64, c: u64, k: u64) -> Scaled {
    // C(c,k)/C(n,k) = Π_{i<k} (c−i)/(n−i) = Π_{i<n−c} (n−k−i)/(n−i).
    if k <= n - c {
        ratio_product(c, n, k)
    } else {
        ratio_product(n - k, n, n - c)
    }
}

/// [`all_correct_probability`] as an f64 result: 0 once it underflows.
fn all_correct_or_zero(n: u64, c: u64, k: u64) -> Scaled {
    if k <= n - c {
        ratio_product_or_zero(c, n, k)
    } else {
        ratio_product_or_zero(n - k, n, n - c)
    }
}

fn valid(n: u64, c: u64, k: u64) -> bool {
    k >= 1 && k <= n && c <= n
}

/// pass@k where it needs no product: `Some(None)` outside its domain
/// (k = 0, k > n, c > n), `Some(value)` for c = 0, n − c < k and k = 1,
/// `None` where a product must be computed. Shared by the exact and the
/// bounded paths, so their edge cases are one piece of code.
#[inline]
pub(crate) fn pass_at_k_edge(n: u64, c: u64, k: u64) -> Option<Option<f64>> {
    if !valid(n, c, k) {
        return Some(None);
    }
    if c == 0 {
        return Some(Some(0.0));
    }
    if n - c < k {
        return Some(Some(1.0));
    }
    (k == 1).then(|| Some(c as f64 / n as f64))
}

/// pass@k at a fractional draw size k ≥ 0: the exact success probability
/// of the randomized policy that draws ⌊k⌋ rollouts with probability
/// ⌈k⌉ − k and ⌈k⌉ rollouts otherwise (expected draws: k), i.e.
/// (1 − f)·pass@⌊k⌋ + f·pass@⌈k⌉ with f = k − ⌊k⌋ and pass@0 = 0.
///
/// Returns `None` when k is negative or not finite, ⌈k⌉ > n, or `c > n`.
///
/// ```
/// use rollstat_core::estimators::{pass_at_k, pass_at_fractional_k};
/// assert_eq!(pass_at_fractional_k(6, 3, 2.0), pass_at_k(6, 3, 2));
/// // Half the time 1 draw (1/2), half the time 2 draws (4/5).
/// assert!((pass_at_fractional_k(6, 3, 1.5).unwrap() - 0.65).abs() < 1e-15);
/// assert_eq!(pass_at_fractional_k(6, 3, 0.25), Some(0.125)); // a quarter of one draw
/// assert_eq!(pass_at_fractional_k(6, 3, 6.5), None);
/// ```
pub fn pass_at_fractional_k(n: u64, c: u64, k: f64) -> Option<f64> {
    if !(k.is_finite() && k >= 0.0) || c > n || k.ceil() > n as f64 {
        return None;
    }
    let lo = k.floor() as u64;
    let f = k - lo as f64;
    let at = |j: u64| {
        if j == 0 {
            Some(0.0)
        } else {
            pass_at_k(n, c, j)
        }
    };
    let low = at(lo)?;
    if f == 0.0 {
        return Some(low);
    }
    Some((1.0 - f) * low + f * at(lo + 1)?)
}

/// Unbiased pass@k of Chen et al. (2021): `1 − C(n−c, k)/C(n, k)`, the
/// probability that at least one of k rollouts drawn without replacement
/// from the n is correct.
///
/// Returns `None` when `k == 0`, `k > n` or `c > n`.
///
/// ```
/// use rollstat_core::estimators::pass_at_k;
/// assert_eq!(pass_at_k(6, 3, 2), Some(0.8));
/// assert_eq!(pass_at_k(2_000_000_000, 1, 1), Some(5e-10));
/// assert_eq!(pass_at_k(2, 0, 5), None); // k > n: excluded, never 1.0
/// ```
pub fn pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if let Some(edge) = pass_at_k_edge(n, c, k) {
        return edge;
    }
    if n <= SMALL_N {
        let all = small_binom(n, k);
        return Some((all - small_binom(n - c, k)) as f64 / all as f64);
    }
    let none = all_wrong_probability(n, c, k).to_dd();
    Some(Dd::ONE.add(none.neg()).to_f64())
}

/// pass^k of τ-bench (Yao et al. 2024): `C(c, k)/C(n, k)`, the probability
/// that all k rollouts drawn without replacement are correct.
///
/// ```
/// use rollstat_core::estimators::pass_pow_k;
/// assert_eq!(pass_pow_k(6, 3, 2), Some(0.2));
/// assert_eq!(pass_pow_k(4, 1, 2), Some(0.0));
/// assert_eq!(pass_pow_k(2, 2, 4), None);
/// ```
pub fn pass_pow_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if !valid(n, c, k) {
        return None;
    }
    if k > c {
        return Some(0.0);
    }
    if k == 1 {
        return Some(c as f64 / n as f64);
    }
    if n <= SMALL_N {
        return Some(small_binom(c, k) as f64 / small_binom(n, k) as f64);
    }
    Some(all_correct_or_zero(n, c, k).to_dd().to_f64())
}

/// The number of correct rollouts out of k that G-Pass@k_τ requires:
/// `max(⌈τ·k⌉, 1)`.
///
/// `τ·k` is snapped to the nearest integer when it lies within 1e-9 of it,
/// so that `τ = 0.3, k = 10` asks for 3 (not 4, which a plain
/// `(0.3 * 10.0).ceil()` gives because `0.3·10 = 3.0000000000000004`).
///
/// ```
/// use rollstat_core::estimators::g_pass_threshold;
/// assert_eq!(g_pass_threshold(10, 0.3), 3);
/// assert_eq!(g_pass_threshold(16, 0.5), 8);
/// assert_eq!(g_pass_threshold(4, 0.0), 1);
/// assert_eq!(g_pass_threshold(4, 0.6), 3);
/// ```
pub fn g_pass_threshold(k: u64, tau: f64) -> u64 {
    let t = tau * k as f64;
    let r = t.round();
    let m = if (t - r).abs() <= 1e-9 * r.max(1.0) {
        r
    } else {
        t.ceil()
    };
    (m.max(1.0) as u64).min(k.max(1))
}

/// Iterates the hypergeometric upper tail `Σ_{x ≥ m} w(x)·P(X = x)` for
/// X ~ Hypergeometric(population n, c successes, k draws), from the top of
/// the support downwards, in scaled double-double.
fn hypergeom_upper_weighted(n: u64, c: u64, k: u64, m: u64, weight: impl Fn(u64) -> f64) -> f64 {
    let hi = c.min(k);
    // Below the support's lower end `k − (n − c)` the pmf is zero.
    let m = m.max(k.saturating_sub(n - c));
    if m > hi {
        return 0.0;
    }
    // P(X = hi) in closed form.
    let mut term = if c >= k {
        all_correct_probability(n, c, k)
    } else {
        // P(X = c) = C(k, c)/C(n, c) = Π_{i<c} (k−i)/(n−i) = Π_{i<n−k} (n−c−i)/(n−i).
        if c <= n - k {
            ratio_product(k, n, c)
        } else {
            ratio_product(n - c, n, n - k)
        }
    };
    // Sum in the same scale as `term`; both share `term.exp`.
    let mut sum = Dd::ZERO;
    let mut x = hi;
    loop {
        let w = weight(x);
        if w != 0.0 {
            sum = sum.add(term.m.mul_f64(w));
        }
        if x == m {
            break;
        }
        // P(X = x−1) / P(X = x) = x·(n−c−k+x) / ((c−x+1)·(k−x+1)).
        let num = Dd::from_u64(x).mul(Dd::from_u64(n - c + x - k));
        let den = Dd::from_u64(c - x + 1).mul(Dd::from_u64(k - x + 1));
        let ratio = num.div(den);
        let before = term.exp;
        term = term.mul(ratio);
        if term.exp != before {
            // Keep the running sum in the term's scale.
            let shift = before - term.exp;
            sum = Scaled { m: sum, exp: shift }.to_dd();
        }
        x -= 1;
        // The pmf is unimodal: once it is falling and negligible, stop.
        if ratio.hi < 1.0 && term.m.hi.abs() < sum.hi.abs() * 1e-34 {
            break;
        }
    }
    Scaled {
        m: sum,
        exp: term.exp,
    }
    .to_dd()
    .to_f64()
}

/// Most steps [`hypergeom_upper_weighted`] may take: its closed-form
/// `P(X = min(c, k))` and the walk down to the threshold are each at most
/// `min(c, k)` long. Up to here results are those of the direct sum (as
/// before #10 item 9); beyond it the tail is summed from the mode.
const DIRECT_TAIL_BUDGET: u64 = 1 << 16;

/// `Σ_{x ≥ m} w(x)·P(X = x)` for n > [`SMALL_N`], by whichever sum is
/// bounded: directly for at most `budget` steps, else from the mode.
fn upper_tail(n: u64, c: u64, k: u64, m: u64, weight: Weight, budget: u64) -> f64 {
    if c.min(k).saturating_mul(2) <= budget {
        return hypergeom_upper_weighted(n, c, k, m, |x| weight.at(x));
    }
    upper_tail_from_mode(n, c, k, m, weight)
}

/// G-Pass@k_τ of Liu et al. (2024): `P(X ≥ max(⌈τk⌉, 1))` with
/// X ~ Hypergeometric(n, c, k) — the probability that at least a fraction τ
/// of k rollouts drawn without replacement are correct. τ = 0 is pass@k and
/// τ = 1 is pass^k (and returns exactly their values).
///
/// Returns `None` when `k > n`, `k == 0`, `c > n` or τ is outside [0, 1].
///
/// ```
/// use rollstat_core::estimators::g_pass_at_k;
/// // n = 8, c = 4, k = 5, τ = 0.5 (lighteval's test case)
/// assert_eq!(g_pass_at_k(8, 4, 5, 0.5), Some(0.5));
/// assert_eq!(g_pass_at_k(4, 2, 2, 1.0), Some(1.0 / 6.0));
/// ```
pub fn g_pass_at_k(n: u64, c: u64, k: u64, tau: f64) -> Option<f64> {
    if !valid(n, c, k) || !(0.0..=1.0).contains(&tau) {
        return None;
    }
    let m = g_pass_threshold(k, tau);
    if m <= 1 {
        return pass_at_k(n, c, k);
    }
    if m >= k {
        return pass_pow_k(n, c, k);
    }
    if n <= SMALL_N {
        return Some(small_upper_tail(n, c, k, m, |_| 1.0));
    }
    Some(upper_tail(n, c, k, m, Weight::One, DIRECT_TAIL_BUDGET))
}

/// mG-Pass@k: `(2/k) Σ_{i=⌈k/2⌉+1..k} G-Pass@k_{i/k}`, computed as
/// `(2/k)·E[(X − ⌈k/2⌉)₊]`. mG-Pass@1 = 0.
///
/// ```
/// use rollstat_core::estimators::mg_pass_at_k;
/// assert_eq!(mg_pass_at_k(4, 2, 2), Some(1.0 / 6.0));
/// assert_eq!(mg_pass_at_k(1, 1, 1), Some(0.0));
/// ```
pub fn mg_pass_at_k(n: u64, c: u64, k: u64) -> Option<f64> {
    if !valid(n, c, k) {
        return None;
    }
    let h = k.div_ceil(2);
    if n <= SMALL_N {
        return Some(
            small_upper_tail(n, c, k, h + 1, |x| x.saturating_sub(h) as f64) * 2.0 / k as f64,
        );
    }
    let tail = upper_tail(n, c, k, h + 1, Weight::ExcessOver(h), DIRECT_TAIL_BUDGET);
    Some(tail * 2.0 / k as f64)
}

/// prefix@k: 1 if any of the k lowest-index rollouts is correct, else 0.
/// `correct` must be in rollout-index order. `None` when fewer than k
/// rollouts exist.
///
/// ```
/// use rollstat_core::estimators::prefix_at_k;
/// assert_eq!(prefix_at_k(&[false, true, false], 2), Some(1.0));
/// assert_eq!(prefix_at_k(&[false, true, false], 1), Some(0.0));
/// assert_eq!(prefix_at_k(&[true], 2), None);
/// ```
pub fn prefix_at_k(correct: &[bool], k: usize) -> Option<f64> {
    if k == 0 || k > correct.len() {
        return None;
    }
    Some(if correct[..k].iter().any(|&b| b) {
        1.0
    } else {
        0.0
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vectors_from_statistics_md() {
        let close = |a: f64, b: f64| (a - b).abs() < 1e-11;
        assert!(close(pass_at_k(200, 10, 10).unwrap(), 0.408547866081));
        assert!(close(pass_at_k(200, 10, 100).unwrap(), 0.999228973937));
        assert!(close(pass_at_k(10, 3, 5).unwrap(), 0.916666666667));
        assert!(close(pass_at_k(20, 1, 10).unwrap(), 0.5));
        assert!(close(pass_at_k(16, 8, 4).unwrap(), 0.961538461538));
        assert!(close(pass_pow_k(16, 8, 4).unwrap(), 0.038461538462));
        assert!(close(g_pass_at_k(16, 8, 4, 0.5).unwrap(), 0.715384615385));
        assert!(close(g_pass_at_k(16, 8, 4, 0.75).unwrap(), 0.284615384615));
        assert!(close(mg_pass_at_k(16, 8, 4).unwrap(), 0.161538461538));
        assert!(close(g_pass_at_k(48, 24, 16, 0.5).unwrap(), 0.619945418198));
        assert!((g_pass_at_k(48, 24, 16, 1.0).unwrap() - 3.26173e-07).abs() < 1e-12);
        assert!(close(mg_pass_at_k(48, 24, 16).unwrap(), 0.079963612132));
        assert_eq!(pass_at_k(5, 0, 1), Some(0.0));
        assert_eq!(pass_pow_k(5, 5, 3), Some(1.0));
    }

    /// The integer path (n ≤ 67) and the double-double path agree wherever
    /// both apply, so each checks the other.
    #[test]
    fn integer_and_double_double_paths_agree() {
        let rel = |a: f64, b: f64| {
            if b == 0.0 {
                a.abs()
            } else {
                ((a - b) / b).abs()
            }
        };
        for n in 2..=SMALL_N {
            for c in 0..=n {
                for k in 2..=n {
                    let dd_pass = if n - c < k {
                        1.0
                    } else {
                        Dd::ONE
                            .add(all_wrong_probability(n, c, k).to_dd().neg())
                            .to_f64()
                    };
                    assert!(
                        rel(pass_at_k(n, c, k).unwrap(), dd_pass) < 1e-14,
                        "pass@{k} n={n} c={c}"
                    );
                    let dd_pow = if k > c {
                        0.0
                    } else {
                        all_correct_probability(n, c, k).to_dd().to_f64()
                    };
                    assert!(
                        rel(pass_pow_k(n, c, k).unwrap(), dd_pow) < 1e-14,
                        "pass^{k} n={n} c={c}"
                    );
                    let m = k.div_ceil(2);
                    let tail = hypergeom_upper_weighted(n, c, k, m, |_| 1.0);
                    assert!(
                        rel(small_upper_tail(n, c, k, m, |_| 1.0), tail) < 1e-13,
                        "tail n={n} c={c} k={k}"
                    );
                }
            }
        }
    }

    /// Products of up to 2⁶² factors end once they underflow (#10 item 9):
    /// with half the rollouts correct, k = 2⁶² draws all miss with
    /// probability below 2^(−2⁶²), so pass@k is exactly 1.0 in f64 and
    /// pass^k exactly 0.0 — returned at once rather than after 2⁶² steps.
    #[test]
    fn huge_products_stop_once_they_underflow() {
        let n = u64::MAX;
        assert_eq!(pass_at_k(n, n / 2, 1 << 62), Some(1.0));
        assert_eq!(pass_pow_k(n, n / 2, 1 << 62), Some(0.0));
        // 3000 draws: (1/2)^3000 is below the f64 range too.
        assert_eq!(pass_at_k(1 << 40, 1 << 39, 3000), Some(1.0));
        // One correct rollout: closed forms, any n.
        assert_eq!(
            pass_at_k(n, 1, 1 << 62),
            Some((1u64 << 62) as f64 / n as f64)
        );
        assert_eq!(pass_pow_k(n, 1, 1 << 62), Some(0.0));
    }

    /// The direct sum and the mode walk (#10 item 9) agree where both are
    /// affordable, for n just past the integer path up to 3000, so each
    /// checks the other beyond the exact-rational tests of either.
    #[test]
    fn direct_and_mode_walk_tails_agree() {
        for n in [68u64, 200, 3000] {
            for c in [1, n / 7, n / 2, n - n / 5, n - 1] {
                for k in [2, n / 10, n / 3, n - 2] {
                    let h = k.div_ceil(2);
                    let mut cases = vec![(h + 1, Weight::ExcessOver(h))];
                    for tau in [0.2, 0.5, 0.7, 0.95] {
                        cases.push((g_pass_threshold(k, tau), Weight::One));
                    }
                    for (m, w) in cases {
                        let direct = upper_tail(n, c, k, m, w, u64::MAX);
                        let walk = upper_tail(n, c, k, m, w, 0);
                        let err = ((direct - walk) / direct.max(f64::MIN_POSITIVE)).abs();
                        assert!(
                            err < 1e-13,
                            "n={n} c={c} k={k} m={m} {w:?}: {direct} vs {walk}"
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn threshold_snaps_near_integers() {
        assert_eq!(g_pass_threshold(7, 3.0 / 7.0), 3);
        assert_eq!(g_pass_threshold(5, 0.25), 2);
        assert_eq!(g_pass_threshold(5, 0.75), 4);
        assert_eq!(g_pass_threshold(1, 0.0), 1);
    }
}
