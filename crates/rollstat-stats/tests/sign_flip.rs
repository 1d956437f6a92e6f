//! The sign-flip test by distinct magnitudes (`sign_flip`, `sign_flip_test`):
//! the exact path against brute-force enumeration of every sign pattern, the
//! random path against exact p-values (few and many copies per magnitude),
//! and invariance to the order of the input and to the thread count.

use rollstat_stats::rng::{bounded, stream, Xoshiro256PlusPlus};
use rollstat_stats::{mcnemar, sign_flip, sign_flip_test, StatsError};

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

/// The exact p-value as `sign_flip` computed it before the distinct-value
/// decomposition: every sign pattern of the nonzero differences, summed in
/// input order, counted when `|S| ≥ |Σ d| − 1e-12·Σ|d|`.
fn brute_force_p(d: &[f64]) -> f64 {
    let nonzero: Vec<f64> = d.iter().copied().filter(|&v| v != 0.0).collect();
    let observed = nonzero.iter().sum::<f64>().abs();
    let tol = 1e-12 * nonzero.iter().map(|v| v.abs()).sum::<f64>();
    let total = 1u64 << nonzero.len();
    let hits = (0..total)
        .filter(|mask| {
            let s: f64 = nonzero
                .iter()
                .enumerate()
                .map(|(i, &v)| if mask >> i & 1 == 1 { -v } else { v })
                .fold(0.0, |s, v| s + v);
            s.abs() >= observed - tol
        })
        .count();
    hits as f64 / total as f64
}

/// Differences of one of several kinds: small integers, tenths, a few
/// repeated random magnitudes with random signs, all-distinct floats, and
/// sums of 0.1/0.2/0.3 (whose ties only hold up to rounding).
fn random_differences(g: &mut Xoshiro256PlusPlus, len: usize, kind: u64) -> Vec<f64> {
    let pool: Vec<f64> = (0..4).map(|_| g.next_f64() * 2.0).collect();
    (0..len)
        .map(|_| match kind {
            0 => bounded(g, 7) as f64 - 3.0,
            1 => (bounded(g, 21) as f64 - 10.0) / 10.0,
            2 => {
                let v = pool[bounded(g, 4) as usize];
                if g.next_u64() & 1 == 1 {
                    v
                } else {
                    -v
                }
            }
            3 => g.next_f64() - 0.4,
            _ => [0.1, 0.2, 0.3, -0.1, -0.2, -0.3, 0.0][bounded(g, 7) as usize],
        })
        .collect()
}

fn shuffle(g: &mut Xoshiro256PlusPlus, d: &mut [f64]) {
    for i in (1..d.len()).rev() {
        d.swap(i, bounded(g, i as u64 + 1) as usize);
    }
}

/// Tenths in [−1, 1] shifted towards positive values: ≈ n/10.5 copies of
/// each of the ten magnitudes.
fn tenths(n: usize, seed: u64) -> Vec<f64> {
    let mut g = stream(seed, 0);
    (0..n)
        .map(|i| ((bounded(&mut g, 21) as f64 - 10.0 + f64::from(i % 25 == 0)).min(10.0)) / 10.0)
        .collect()
}

fn nonzero(d: &[f64]) -> u32 {
    d.iter().filter(|&&v| v != 0.0).count() as u32
}

#[test]
fn exact_path_equals_brute_force_enumeration() {
    let mut g = stream(11, 0);
    for case in 0..500u64 {
        let len = 1 + bounded(&mut g, 16) as usize;
        let d = random_differences(&mut g, len, case % 5);
        let r = sign_flip(&d, 1 << 20, case).unwrap();
        let m = nonzero(&d);
        assert!(r.exact, "case {case}: {d:?}");
        assert_eq!(r.patterns, 1 << m);
        assert_eq!(
            r.p.to_bits(),
            brute_force_p(&d).to_bits(),
            "case {case}: {d:?}"
        );
    }
}

/// The largest exact enumerations (m = 18..=20) with repeats and with all
/// magnitudes distinct.
#[test]
fn exact_path_equals_brute_force_at_the_size_limit() {
    let mut g = stream(12, 0);
    for (len, kind) in [(18, 1), (19, 2), (20, 0), (20, 3)] {
        let mut d = random_differences(&mut g, len, kind);
        for v in d.iter_mut().filter(|v| **v == 0.0) {
            *v = 0.5; // keep m = len
        }
        let r = sign_flip(&d, 1 << 20, 1).unwrap();
        assert!(r.exact && r.patterns == 1 << len, "{d:?}");
        assert_eq!(r.p.to_bits(), brute_force_p(&d).to_bits(), "{d:?}");
    }
}

/// On 0/±1 differences the exact sign-flip p is McNemar's exact p.
#[test]
fn exact_path_on_unit_differences_is_mcnemar() {
    for (a, b) in [(0u64, 1u64), (3, 3), (9, 2), (0, 15), (12, 7)] {
        let mut d = vec![-1.0; a as usize];
        d.extend(vec![1.0; b as usize]);
        d.extend([0.0, 0.0]);
        let r = sign_flip(&d, 1 << 20, 1).unwrap();
        assert!(r.exact);
        assert!(
            (r.p - mcnemar(a, b).p_exact).abs() < 1e-12,
            "{a} {b}: {}",
            r.p
        );
    }
}

/// `|p̂ − p| ≤ 4·sd` for `p̂ = (hits + 1)/(R + 1)`, `hits ~ Bin(R, p)`.
fn assert_close_to(p_random: f64, p: f64, permutations: usize, what: &str) {
    let r = permutations as f64;
    let sd = (p * (1.0 - p) / r).sqrt();
    assert!(
        (p_random - p).abs() <= 4.0 * sd + 2.0 / r,
        "{what}: random {p_random} vs exact {p} (sd {sd})"
    );
}

#[test]
fn random_path_within_binomial_error_of_exact_p() {
    let permutations = 20_000;
    let mut g = stream(13, 0);
    let mut checked = 0;
    for case in 0..40u64 {
        let d = random_differences(&mut g, 12, case % 5);
        let exact = brute_force_p(&d);
        if nonzero(&d) < 10 || exact < 0.02 {
            continue; // too few patterns, or too far in the tail to say much
        }
        let p = sign_flip_test(&d, permutations, case).unwrap();
        assert_close_to(p, exact, permutations, &format!("case {case}: {d:?}"));
        // R < 2^m: `sign_flip` takes the same random path.
        let r = sign_flip(&d, 1000, case).unwrap();
        assert!(!r.exact && r.patterns == 1000);
        assert_eq!(r.p, sign_flip_test(&d, 1000, case).unwrap());
        checked += 1;
    }
    assert!(checked >= 20, "{checked}");
}

/// ±1 differences, few and many copies (bit counting and the binomial
/// sampler): the p-value is the exact two-sided binomial tail (McNemar).
#[test]
fn random_path_on_many_copies_matches_binomial_tail() {
    let permutations = 20_000;
    for (minus, plus) in [
        (30u64, 44u64),
        (1450, 1550),
        (9900, 10_100),
        (49_800, 50_200),
    ] {
        let mut d = vec![-1.0; minus as usize];
        d.extend(vec![1.0; plus as usize]);
        let p = sign_flip_test(&d, permutations, 5).unwrap();
        let exact = mcnemar(minus, plus).p_exact;
        assert_close_to(p, exact, permutations, &format!("{minus} vs {plus}"));
    }
}

/// ln C(m, x) − m ln 2 for x = 0..=m.
fn log_binomial_half_pmf(m: u64) -> Vec<f64> {
    let mut out = vec![-(m as f64) * std::f64::consts::LN_2];
    for x in 0..m {
        let next = out[x as usize] + ((m - x) as f64).ln() - ((x + 1) as f64).ln();
        out.push(next);
    }
    out
}

/// Two magnitudes, one above and one below the bit-counting limit: the
/// exact p from the two binomial pmfs.
#[test]
fn random_path_on_two_large_magnitudes_matches_convolution() {
    let (m1, m2) = (6000u64, 3000u64);
    let (net1, net2) = (-40i64, 130i64); // Σ d = −40 + 0.5·130 = 25
    let mut d = vec![1.0; ((m1 as i64 + net1) / 2) as usize];
    d.extend(vec![-1.0; ((m1 as i64 - net1) / 2) as usize]);
    d.extend(vec![0.5; ((m2 as i64 + net2) / 2) as usize]);
    d.extend(vec![-0.5; ((m2 as i64 - net2) / 2) as usize]);
    let observed = (net1 as f64 + 0.5 * net2 as f64).abs();
    let (l1, l2) = (log_binomial_half_pmf(m1), log_binomial_half_pmf(m2));
    let mut exact = 0.0;
    for (x1, a) in l1.iter().enumerate() {
        for (x2, b) in l2.iter().enumerate() {
            let s = (2 * x1 as i64 - m1 as i64) as f64 + 0.5 * (2 * x2 as i64 - m2 as i64) as f64;
            if s.abs() >= observed {
                exact += (a + b).exp();
            }
        }
    }
    let permutations = 20_000;
    let p = sign_flip_test(&d, permutations, 8).unwrap();
    assert_close_to(p, exact, permutations, "two magnitudes");
}

#[test]
fn input_order_does_not_change_p() {
    let mut g = stream(14, 0);
    let mut small = random_differences(&mut g, 14, 2);
    small.extend([0.0, 0.0]);
    let inputs = [
        tenths(60_000, 1),
        tenths(2_000, 2),
        random_differences(&mut g, 3_000, 3),
        random_differences(&mut g, 500, 4),
        small,
    ];
    for d in &inputs {
        let p = sign_flip_test(d, 1_000, 3).unwrap();
        let r = sign_flip(d, 1 << 16, 3).unwrap();
        let mut e = d.clone();
        for _ in 0..4 {
            shuffle(&mut g, &mut e);
            assert_eq!(sign_flip_test(&e, 1_000, 3).unwrap().to_bits(), p.to_bits());
            assert_eq!(sign_flip(&e, 1 << 16, 3).unwrap(), r);
        }
        // Negating every difference only mirrors the pattern sums.
        let neg: Vec<f64> = d.iter().map(|v| -v).collect();
        assert_eq!(
            sign_flip_test(&neg, 1_000, 3).unwrap().to_bits(),
            p.to_bits()
        );
    }
}

#[test]
fn zeros_do_not_change_p() {
    for d in [tenths(5_000, 3), vec![0.25, -0.5, 0.25, 0.75, 1.0]] {
        let mut with_zeros = d.clone();
        with_zeros.extend(vec![0.0; 700]);
        with_zeros.push(-0.0);
        for perms in [64, 3_001] {
            assert_eq!(
                sign_flip(&d, perms, 4).unwrap(),
                sign_flip(&with_zeros, perms, 4).unwrap()
            );
        }
    }
}

#[test]
fn thread_count_does_not_change_p() {
    let mut g = stream(15, 0);
    let inputs = [tenths(100_000, 4), random_differences(&mut g, 5_000, 3)];
    for d in &inputs {
        // 3001 permutations: not a multiple of the chunk size.
        let p1 = pool(1).install(|| sign_flip_test(d, 3_001, 6).unwrap());
        let p2 = pool(2).install(|| sign_flip_test(d, 3_001, 6).unwrap());
        assert_eq!(p1.to_bits(), p2.to_bits());
        let r1 = pool(1).install(|| sign_flip(d, 3_001, 6).unwrap());
        let r2 = pool(2).install(|| sign_flip(d, 3_001, 6).unwrap());
        assert_eq!(r1, r2);
        assert_eq!(r1.p.to_bits(), p1.to_bits());
    }
}

#[test]
fn seeds_and_edge_cases() {
    let d = tenths(20_000, 5);
    let a = sign_flip_test(&d, 2_000, 1).unwrap();
    assert_eq!(a, sign_flip_test(&d, 2_000, 1).unwrap());
    assert_ne!(a, sign_flip_test(&d, 2_000, 2).unwrap());
    // Nothing to flip: every pattern is as extreme as the data.
    assert_eq!(sign_flip_test(&[0.0, -0.0], 99, 1).unwrap(), 1.0);
    let r = sign_flip(&[0.0; 3], 1, 1).unwrap();
    assert!(r.exact && r.p == 1.0 && r.patterns == 1);
    assert!(matches!(
        sign_flip_test(&[], 10, 1),
        Err(StatsError::Empty(_))
    ));
    assert!(matches!(sign_flip(&[], 10, 1), Err(StatsError::Empty(_))));
    assert!(matches!(
        sign_flip_test(&[1.0], 0, 1),
        Err(StatsError::InvalidArgument(_))
    ));
    assert!(matches!(
        sign_flip(&[1.0; 25], 0, 1),
        Err(StatsError::InvalidArgument(_))
    ));
    for bad in [f64::NAN, f64::INFINITY] {
        assert!(sign_flip_test(&[1.0, bad], 10, 1).is_err());
        assert!(sign_flip(&[1.0, bad], 10, 1).is_err());
    }
}
