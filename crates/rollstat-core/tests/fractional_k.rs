//! The randomized-k policy of a budget-matched comparison against
//! enumeration: draw ⌊k⌋ or ⌈k⌉ rollouts (probabilities ⌈k⌉ − k and
//! k − ⌊k⌋), then every subset of that size equally likely; the success
//! probability is counted over all subsets.

use rollstat_core::estimators::pass_at_fractional_k;

/// Fraction of the size-`j` subsets of `n` rollouts (the first `c`
/// correct) that hold a correct one, by listing every subset as a bitmask.
fn enumerate(n: u32, c: u32, j: u32) -> f64 {
    if j == 0 {
        return 0.0;
    }
    let correct = (1u32 << c) - 1;
    let (mut hit, mut all) = (0u64, 0u64);
    for mask in 0u32..(1 << n) {
        if mask.count_ones() == j {
            all += 1;
            hit += u64::from(mask & correct != 0);
        }
    }
    hit as f64 / all as f64
}

#[test]
fn fractional_k_is_the_randomized_policy_by_enumeration() {
    for n in 1..=10u32 {
        for c in 0..=n {
            for step in 0..=(4 * n) {
                let k = f64::from(step) / 4.0 + 0.1 * f64::from(step % 3 == 1);
                if k.ceil() > f64::from(n) {
                    continue;
                }
                let (lo, hi) = (k.floor() as u32, k.ceil() as u32);
                let f = k - f64::from(lo);
                let expected = (1.0 - f) * enumerate(n, c, lo)
                    + if hi > lo {
                        f * enumerate(n, c, hi)
                    } else {
                        0.0
                    };
                let got = pass_at_fractional_k(u64::from(n), u64::from(c), k).unwrap();
                assert!(
                    (got - expected).abs() < 1e-12,
                    "n={n} c={c} k={k}: {got} vs {expected}"
                );
            }
        }
    }
}

#[test]
fn out_of_range_draws_have_no_value() {
    assert_eq!(pass_at_fractional_k(4, 1, 4.01), None);
    assert_eq!(pass_at_fractional_k(4, 1, -0.5), None);
    assert_eq!(pass_at_fractional_k(4, 1, f64::NAN), None);
    assert_eq!(pass_at_fractional_k(4, 5, 1.0), None);
}
