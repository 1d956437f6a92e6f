//! Estimators against exact big-rational arithmetic and exhaustive
//! enumeration of k-subsets. The reference values here are computed from
//! binomial coefficients and subset counts, never from the code under test.

use num_bigint::{BigInt, BigUint};
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};
use proptest::prelude::*;
use rollstat_core::estimators::{
    g_pass_at_k, g_pass_threshold, mg_pass_at_k, pass_at_k, pass_pow_k,
};

fn binom(n: u64, k: u64) -> BigUint {
    if k > n {
        return BigUint::zero();
    }
    let k = k.min(n - k);
    let mut r = BigUint::one();
    for i in 0..k {
        r = r * BigUint::from(n - i) / BigUint::from(i + 1);
    }
    r
}

fn ratio(num: BigUint, den: BigUint) -> BigRational {
    BigRational::new(BigInt::from(num), BigInt::from(den))
}

fn exact_pass_at_k(n: u64, c: u64, k: u64) -> BigRational {
    BigRational::one() - ratio(binom(n - c, k), binom(n, k))
}

fn exact_pass_pow_k(n: u64, c: u64, k: u64) -> BigRational {
    ratio(binom(c, k), binom(n, k))
}

fn exact_upper_tail(n: u64, c: u64, k: u64, m: u64) -> BigRational {
    let mut s = BigUint::zero();
    for j in m..=c.min(k) {
        if k - j <= n - c {
            s += binom(c, j) * binom(n - c, k - j);
        }
    }
    ratio(s, binom(n, k))
}

/// Relative error of `approx` against `exact`; absolute below 1e-300
/// (values that small underflow in f64 and are reported as 0).
fn rel_err(approx: f64, exact: &BigRational) -> f64 {
    let a = BigRational::from_float(approx).expect("finite");
    let diff = (a - exact).abs();
    if exact.is_zero() {
        return diff.to_f64().unwrap();
    }
    let e = exact.to_f64().unwrap_or(0.0);
    if e.abs() < 1e-300 {
        return diff.to_f64().unwrap_or(0.0) / 1e-300;
    }
    (diff / exact.abs()).to_f64().unwrap()
}

const TOL: f64 = 1e-12;

fn check_all(n: u64, c: u64, k: u64, tau: f64) {
    let p = pass_at_k(n, c, k).unwrap();
    let e = rel_err(p, &exact_pass_at_k(n, c, k));
    assert!(e <= TOL, "pass@{k} n={n} c={c}: {p} rel err {e}");
    let p = pass_pow_k(n, c, k).unwrap();
    let e = rel_err(p, &exact_pass_pow_k(n, c, k));
    assert!(e <= TOL, "pass^{k} n={n} c={c}: {p} rel err {e}");
    let m = g_pass_threshold(k, tau);
    let p = g_pass_at_k(n, c, k, tau).unwrap();
    let e = rel_err(p, &exact_upper_tail(n, c, k, m));
    assert!(e <= TOL, "g-pass@{k}_{tau} n={n} c={c}: {p} rel err {e}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn estimators_match_exact_rationals_up_to_1e4(
        n in 1u64..=10_000, c_frac in 0.0f64..=1.0, k_frac in 0.0f64..=1.0, tau in 0.0f64..=1.0
    ) {
        let c = ((n as f64) * c_frac).round() as u64;
        // Keep k moderate most of the time so big-integer references stay fast.
        let k = (((n as f64) * k_frac * k_frac * k_frac).round() as u64).clamp(1, n);
        check_all(n, c, k, tau);
    }

    #[test]
    fn estimators_match_exact_rationals_up_to_1e9(
        n in 1_000_000u64..=1_000_000_000, c_frac in 0.0f64..=1.0, k in 1u64..=40, tau in 0.0f64..=1.0
    ) {
        let c = ((n as f64) * c_frac).round() as u64;
        check_all(n, c, k, tau);
    }

    #[test]
    fn mg_pass_matches_exact_rationals(n in 1u64..=400, c_frac in 0.0f64..=1.0, k_frac in 0.0f64..=1.0) {
        let c = ((n as f64) * c_frac).round() as u64;
        let k = (((n as f64) * k_frac).round() as u64).clamp(1, n);
        // Definition: (2/k) Σ_{i=⌈k/2⌉+1..k} P(X ≥ i).
        let mut exact = BigRational::zero();
        for i in (k.div_ceil(2) + 1)..=k {
            exact += exact_upper_tail(n, c, k, i);
        }
        exact *= BigRational::new(BigInt::from(2), BigInt::from(k));
        let p = mg_pass_at_k(n, c, k).unwrap();
        prop_assert!(rel_err(p, &exact) <= TOL, "mg-pass@{} n={} c={}: {}", k, n, c, p);
    }
}

#[test]
fn extreme_and_symmetric_cases() {
    for &(n, c, k) in &[
        (10_000, 5_000, 5_000),
        (10_000, 1, 10_000),
        (10_000, 9_999, 9_999),
        (10_000, 5_000, 2_500),
        (1_000_000_000, 1, 7),
        (1_000_000_000, 999_999_999, 30),
        (999_999_937, 500_000_000, 25),
    ] {
        for &tau in &[0.0, 0.25, 0.5, 0.75, 1.0] {
            check_all(n, c, k, tau);
        }
    }
}

#[test]
fn two_billion_rollouts_one_correct() {
    assert_eq!(pass_at_k(2_000_000_000, 1, 1), Some(5e-10));
    // Through the general product path, too (k = 2).
    let e = rel_err(
        pass_at_k(2_000_000_000, 1, 2).unwrap(),
        &exact_pass_at_k(2_000_000_000, 1, 2),
    );
    assert!(e <= TOL);
}

/// For every correctness pattern of n ≤ 8 rollouts and every k, enumerate
/// all k-subsets and count: at least one correct (pass@k), all correct
/// (pass^k), at least m correct (G-Pass), and mG-Pass from its definition.
#[test]
fn exhaustive_subset_enumeration_n_le_8() {
    for n in 1u32..=8 {
        for pattern in 0u32..(1 << n) {
            let c = pattern.count_ones() as u64;
            for k in 1..=n {
                let mut subsets = 0u64;
                let mut any = 0u64;
                let mut all = 0u64;
                let mut at_least = vec![0u64; k as usize + 2];
                for s in 0u32..(1 << n) {
                    if s.count_ones() != k {
                        continue;
                    }
                    subsets += 1;
                    let x = (s & pattern).count_ones();
                    any += (x >= 1) as u64;
                    all += (x == k) as u64;
                    for (m, slot) in at_least.iter_mut().enumerate().take(x as usize + 1) {
                        let _ = m;
                        *slot += 1;
                    }
                }
                let (n64, k64) = (n as u64, k as u64);
                let f = |num: u64| num as f64 / subsets as f64;
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-15 * b.abs().max(1e-300) || a == b;
                assert!(
                    close(pass_at_k(n64, c, k64).unwrap(), f(any)),
                    "pass@{k} n={n} c={c}"
                );
                assert!(
                    close(pass_pow_k(n64, c, k64).unwrap(), f(all)),
                    "pass^{k} n={n} c={c}"
                );
                for &tau in &[0.0, 0.25, 0.5, 0.75, 1.0] {
                    let m = g_pass_threshold(k64, tau) as usize;
                    assert!(
                        close(g_pass_at_k(n64, c, k64, tau).unwrap(), f(at_least[m])),
                        "g-pass@{k}_{tau} n={n} c={c}"
                    );
                }
                let h = (k as usize).div_ceil(2);
                let mg: f64 =
                    (h + 1..=k as usize).map(|i| f(at_least[i])).sum::<f64>() * 2.0 / k as f64;
                assert!(
                    (mg_pass_at_k(n64, c, k64).unwrap() - mg).abs() < 1e-15,
                    "mg n={n} c={c} k={k}"
                );
            }
        }
    }
}

/// The bounded-accuracy pass@k and pass^k (`rollstat_core::counts::bounded`)
/// within their promised 5·10⁻¹⁴ of the exact fraction — on every path:
/// the paired products (n < 2²⁶), the unpaired ones above, the divisions
/// where `n^k` would overflow, and the telescoping sum for few correct of
/// many. `None` is allowed only where the module sends the problem to the
/// exact function (an underflowing pass^k).
mod bounded_within_tolerance {
    use super::*;
    use rollstat_core::counts::bounded;

    fn check(n: u64, c: u64, k: u64) -> Result<(), TestCaseError> {
        let at = bounded::pass_at_k(n, c, k).expect("in range");
        let e = exact_pass_at_k(n, c, k);
        prop_assert!(
            rel_err(at, &e) <= bounded::TOL,
            "pass@{} n={} c={}: {}",
            k,
            n,
            c,
            at
        );
        if let Some(pow) = bounded::pass_pow_k(n, c, k) {
            let e = exact_pass_pow_k(n, c, k);
            prop_assert!(
                rel_err(pow, &e) <= bounded::TOL,
                "pass^{} n={} c={}: {}",
                k,
                n,
                c,
                pow
            );
        } else {
            prop_assert!(exact_pass_pow_k(n, c, k).to_f64().unwrap() < 1e-280);
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn paired(n in 68u64..(1 << 26), c_frac in 0.0f64..=1.0, k in 2u64..=64) {
            let c = ((n as f64) * c_frac).round() as u64;
            check(n, c, k.min(n))?;
        }

        #[test]
        fn few_correct_of_many(n in 68u64..(1 << 26), c in 1u64..=8, k in 2u64..=64) {
            check(n, c.min(n), k.min(n))?;
        }

        #[test]
        fn unpaired_and_dividing(n in (1u64 << 26)..(1 << 40), c_frac in 0.0f64..=1.0, k in 2u64..=40) {
            let c = ((n as f64) * c_frac).round() as u64;
            check(n, c, k)?;
            check(n, 1 + c % 5, k)?;
        }
    }
}
