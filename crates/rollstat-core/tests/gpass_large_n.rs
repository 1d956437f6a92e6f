//! G-Pass@k and mG-Pass@k where the direct sum would exceed its budget
//! (2·min(c, k) > 2¹⁶ steps), so the tail is summed from the mode outward
//! (#10 item 9), against exact values from Python integer arithmetic.
//!
//! The reference values were computed once by this script (exact integer
//! terms C(c,j)·C(n−c,k−j) by the ratio recurrence, which divides exactly,
//! summed over the whole support, over C(n,k); printed to 20 digits, written
//! here rounded to the nearest f64):
//!
//! ```text
//! from math import comb
//! from fractions import Fraction
//! from decimal import Decimal, getcontext
//! def tails(n, c, k, ms, h):
//!     lo, hi = max(0, k - (n - c)), min(c, k)
//!     total = comb(n, k)
//!     t = comb(c, lo) * comb(n - c, k - lo)
//!     sums = {m: 0 for m in ms}; mg = 0
//!     for j in range(lo, hi + 1):
//!         for m in ms:
//!             if j >= m: sums[m] += t
//!         if j > h: mg += (j - h) * t
//!         if j < hi: t = t * (c - j) * (k - j) // ((j + 1) * (n - c - k + j + 1))
//!     return {m: Fraction(s, total) for m, s in sums.items()}, Fraction(2 * mg, k * total)
//! getcontext().prec = 25
//! show = lambda x: format(Decimal(x.numerator) / Decimal(x.denominator), ".20e")
//! # tails(200000, 100000, 70000, [34300, 35000, 35100, 36400, 52500], 35000)
//! # tails(1000000, 990000, 40000, [39500, 39600, 39700, 39900], 20000)
//! ```

use rollstat_core::estimators::{g_pass_at_k, g_pass_threshold, mg_pass_at_k};

fn assert_rel(got: f64, want: f64, what: &str) {
    let err = ((got - want) / want).abs();
    assert!(err <= 1e-12, "{what}: {got} vs exact {want}, rel err {err}");
}

/// (τ, threshold m, exact P(X ≥ m)).
fn check(n: u64, c: u64, k: u64, cases: &[(f64, u64, f64)], mg: f64) {
    for &(tau, m, want) in cases {
        assert_eq!(g_pass_threshold(k, tau), m, "τ = {tau}");
        let got = g_pass_at_k(n, c, k, tau).unwrap();
        assert_rel(got, want, &format!("g-pass n={n} c={c} k={k} m={m}"));
    }
    assert_rel(mg_pass_at_k(n, c, k).unwrap(), mg, "mg-pass");
}

#[test]
fn half_correct_near_and_far_from_the_mode() {
    check(
        200_000,
        100_000,
        70_000,
        &[
            (0.49, 34_300, 0.9999999999745279),
            (0.5, 35_000, 0.5018702623194373),
            (35_100.0 / 70_000.0, 35_100, 0.1754290061226674),
            (0.52, 36_400, 1.2120384824543528e-39),
        ],
        0.0012156705076342492,
    );
    // The exact value is 2.08e-6051: 0 in f64.
    assert_eq!(g_pass_at_k(200_000, 100_000, 70_000, 0.75), Some(0.0));
}

#[test]
fn almost_all_correct_at_the_top_of_the_support() {
    check(
        1_000_000,
        990_000,
        40_000,
        &[
            (0.9875, 39_500, 0.9999996757380872),
            (0.99, 39_600, 0.5133008577816692),
            (0.9925, 39_700, 5.180051082608317e-08),
            (0.9975, 39_900, 1.295133602905601e-74),
        ],
        0.98,
    );
}
