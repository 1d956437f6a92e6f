//! The pass@k sampling variance V̂ (#10 item 9): exact against rational
//! arithmetic on the defining formula of docs/statistics.md §6.2, and
//! closed forms for large n, where the old sum over j took O(k²) steps
//! (n = 10⁵, c = 1: seconds per value; n near 2⁶⁴: forever).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use rollstat_stats::pass_at_k_sampling_variance;

fn binom(n: u64, k: u64) -> BigInt {
    if k > n {
        return BigInt::zero();
    }
    (0..k).fold(BigInt::from(1), |acc, i| acc * (n - i) / (i + 1))
}

fn ratio(a: BigInt, b: BigInt) -> BigRational {
    BigRational::new(a, b)
}

/// `Σ_{j=0}^{k} h(j)·C(n−c,2k−j)/C(n,2k−j) − C(n−c,2k)/C(n,2k)`, exactly.
fn defining_formula(n: u64, c: u64, k: u64) -> f64 {
    let mut v = BigRational::zero();
    for j in 0..=k {
        let h = ratio(binom(k, j) * binom(n - k, k - j), binom(n, k));
        v += h * ratio(binom(n - c, 2 * k - j), binom(n, 2 * k - j));
    }
    v -= ratio(binom(n - c, 2 * k), binom(n, 2 * k));
    v.to_f64().unwrap()
}

#[test]
fn equals_the_defining_formula_exactly_for_small_n() {
    for n in 2..=26u64 {
        for c in 0..=n {
            for k in 1..=n / 2 {
                let want = defining_formula(n, c, k);
                let got = pass_at_k_sampling_variance(n, c, k).unwrap();
                let err = (got - want).abs();
                assert!(
                    err <= 1e-13 * want.abs(),
                    "n={n} c={c} k={k}: {got} vs {want}"
                );
            }
        }
    }
}

fn rel(a: f64, b: f64) -> f64 {
    ((a - b) / b).abs()
}

/// Closed forms of `Σ_i C(n−2k, c−i)·C(k,i)²/(C(n,i)·C(n,c))` for c = 1 and 2:
/// V̂ = k²/n², and V̂ = 2(n−2k)k²/(n²(n−1)) + (k(k−1)/(n(n−1)))².
#[test]
fn closed_forms_for_large_n() {
    for (n, k) in [
        (100_000u64, 50_000u64),
        (100_000, 65_536),
        (1_000_000, 1 << 18),
        (1_000_000, 500_000),
        (u64::MAX, 1 << 62),
        (u64::MAX, u64::MAX / 2),
    ] {
        if n / 2 < k {
            assert_eq!(pass_at_k_sampling_variance(n, 1, k), None);
            continue;
        }
        let (nf, kf) = (n as f64, k as f64);
        let one = pass_at_k_sampling_variance(n, 1, k).unwrap();
        assert!(
            rel(one, (kf / nf).powi(2)) < 1e-14,
            "c=1 n={n} k={k}: {one}"
        );
        let two = pass_at_k_sampling_variance(n, 2, k).unwrap();
        let want = 2.0 * ((n - 2 * k) as f64) * kf * kf / (nf * nf * (nf - 1.0))
            + (kf * (kf - 1.0) / (nf * (nf - 1.0))).powi(2);
        assert!(rel(two, want) < 1e-12, "c=2 n={n} k={k}: {two} vs {want}");
    }
}

/// Every correct or none: the estimate is a constant, V̂ = 0; and where
/// C(n−c, k)/C(n, k) is below the f64 range, so is V̂ ≤ it.
#[test]
fn degenerate_and_negligible_cases() {
    assert_eq!(pass_at_k_sampling_variance(1 << 40, 0, 1 << 20), Some(0.0));
    assert_eq!(pass_at_k_sampling_variance(1000, 990, 20), Some(0.0));
    let n = u64::MAX;
    assert_eq!(pass_at_k_sampling_variance(n, n / 2, 1 << 62), Some(0.0));
}
