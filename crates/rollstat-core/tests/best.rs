//! bon@k against enumeration of every k-subset in exact rationals (n ≤ 12,
//! ties in score broken uniformly at random within each subset), and
//! wmaj@n against maj@n when every score is equal.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use rollstat_core::best::{weighted_vote, ScoreOrder, ScoreProfile};
use rollstat_core::vote::{majority_vote, TiePolicy};

/// Best-of-k of one subset: the mean correctness of the subset's rollouts
/// with the best score (a uniformly random pick among them).
fn subset_best(subset: &[usize], scores: &[i32], ok: &[bool], order: ScoreOrder) -> BigRational {
    let key = |i: usize| match order {
        ScoreOrder::Descending => scores[i],
        ScoreOrder::Ascending => -scores[i],
    };
    let top = subset.iter().map(|&i| key(i)).max().expect("k ≥ 1");
    let tied: Vec<usize> = subset.iter().copied().filter(|&i| key(i) == top).collect();
    let good = tied.iter().filter(|&&i| ok[i]).count();
    BigRational::new(BigInt::from(good), BigInt::from(tied.len()))
}

fn brute(scores: &[i32], ok: &[bool], k: usize, order: ScoreOrder) -> BigRational {
    let n = scores.len();
    let (mut sum, mut m) = (BigRational::zero(), 0u64);
    for mask in 0u32..(1 << n) {
        if mask.count_ones() as usize == k {
            let subset: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
            sum += subset_best(&subset, scores, ok, order);
            m += 1;
        }
    }
    sum / BigRational::from_integer(BigInt::from(m))
}

#[test]
fn bon_at_k_equals_enumeration_with_score_ties() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut below = |m: u64| {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x % m
    };
    for n in 1..=12usize {
        for _ in 0..if n <= 8 { 30 } else { 6 } {
            let levels = 1 + below(n as u64 + 1);
            let scores: Vec<i32> = (0..n).map(|_| below(levels) as i32 - 2).collect();
            let ok: Vec<bool> = (0..n).map(|_| below(2) == 0).collect();
            let as_f64: Vec<f64> = scores.iter().map(|&s| f64::from(s) / 4.0).collect();
            let p = ScoreProfile::new(&as_f64, &ok);
            for order in [ScoreOrder::Descending, ScoreOrder::Ascending] {
                for k in 1..=n {
                    let want = brute(&scores, &ok, k, order).to_f64().unwrap();
                    let got = p.bon_at_k(k as u64, order).unwrap();
                    assert!(
                        (got - want).abs() < 1e-14,
                        "n={n} k={k} {order} {scores:?} {ok:?}: {got} vs {want}"
                    );
                }
                assert_eq!(p.bon_at_k(n as u64 + 1, order), None);
            }
        }
    }
}

/// With distinct scores bon@k is the sorted-CDF sum, and at k = n the best
/// rollout decides; at k = 1 bon@1 is the share correct (pass@1).
#[test]
fn bon_edges() {
    let p = ScoreProfile::new(&[0.3, 0.1, 0.7, 0.2], &[true, false, false, true]);
    assert_eq!(p.bon_at_k(1, ScoreOrder::Descending), Some(0.5));
    assert_eq!(p.bon_at_k(4, ScoreOrder::Descending), Some(0.0)); // 0.7 is wrong
    assert_eq!(p.bon_at_k(4, ScoreOrder::Ascending), Some(0.0)); // 0.1 is wrong
                                                                 // k = 2, descending: the best is correct in {0.3, 0.1}, {0.3, 0.2} and
                                                                 // {0.2, 0.1} → 3 of 6 pairs.
    assert!((p.bon_at_k(2, ScoreOrder::Descending).unwrap() - 0.5).abs() < 1e-15);
}

/// Equal scores weight every cluster by its size: wmaj@n is maj@n.
#[test]
fn equal_scores_make_wmaj_maj() {
    let clusters = [Some(0), Some(1), Some(1), None, Some(0), Some(2), Some(2)];
    let ok = [
        Some(true),
        Some(false),
        Some(false),
        Some(false),
        Some(true),
        Some(false),
        Some(false),
    ];
    let w = weighted_vote(&clusters, &ok, &[1.0; 7]);
    let m = majority_vote(&clusters, &ok);
    for tie in [TiePolicy::First, TiePolicy::None, TiePolicy::Fractional] {
        assert_eq!(w.credit(tie), m.credit(tie), "{tie}");
    }
    assert!((w.fractional - 1.0 / 3.0).abs() < 1e-15);
}
