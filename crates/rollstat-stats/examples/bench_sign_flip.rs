//! Times the random sign-flip test (`sign_flip_test`) against the previous
//! one-sign-per-difference implementation (kept here verbatim as `legacy`),
//! interleaving the runs so that both see the same machine load.
//!
//! Usage: `bench_sign_flip [N] [PERMUTATIONS] [RUNS] [LEGACY]` (defaults
//! 100000, 10000, 5, 1; LEGACY = 0 skips the old implementation). Two inputs of length N are timed:
//!
//! * `tenths` — differences in multiples of 1/10 in [−1, 1] (10 distinct
//!   nonzero magnitudes), like pass@1 differences with n = 10 rollouts;
//! * `distinct` — N distinct magnitudes (e.g. cluster sums), the worst case
//!   for the distinct-value decomposition.
//!
//! Prints `input<TAB>impl<TAB>n<TAB>permutations<TAB>threads<TAB>median_s<TAB>min_s<TAB>max_s<TAB>p`.

use rayon::prelude::*;
use rollstat_stats::rng::{bounded, stream};
use rollstat_stats::sign_flip_test;
use std::time::Instant;

const PERMUTATION_DOMAIN: u64 = 0x5045_524D_5554_4553;

/// The sign-flip loop before the distinct-value decomposition: one random
/// sign per difference per permutation.
fn legacy(d: &[f64], permutations: usize, seed: u64) -> f64 {
    let observed: f64 = d.iter().sum::<f64>().abs();
    let tol = 1e-12 * d.iter().map(|v| v.abs()).sum::<f64>();
    const CHUNK: usize = 256;
    let seed = seed ^ PERMUTATION_DOMAIN;
    let count: u64 = (0..permutations.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let (start, end) = (ci * CHUNK, ((ci + 1) * CHUNK).min(permutations));
            let mut hits = 0u64;
            for r in start..end {
                let mut g = stream(seed, r as u64);
                let (mut bits, mut left, mut s) = (0u64, 0u32, 0.0);
                for &v in d {
                    if left == 0 {
                        bits = g.next_u64();
                        left = 64;
                    }
                    if bits & 1 == 1 {
                        s += v;
                    } else {
                        s -= v;
                    }
                    bits >>= 1;
                    left -= 1;
                }
                if s.abs() >= observed - tol {
                    hits += 1;
                }
            }
            hits
        })
        .sum();
    (count as f64 + 1.0) / (permutations as f64 + 1.0)
}

fn tenths(n: usize) -> Vec<f64> {
    let mut g = stream(2024, 0);
    // 0..=20 → −1.0..=1.0, with a small shift towards B so the p-value is
    // neither ≈ 1 nor 1/(R+1).
    (0..n)
        .map(|i| {
            let k = bounded(&mut g, 21) as f64 - 10.0 + f64::from(i % 20 == 0);
            k.min(10.0) / 10.0
        })
        .collect()
}

fn distinct(n: usize) -> Vec<f64> {
    let mut g = stream(2025, 0);
    (0..n).map(|_| g.next_f64() - 0.499).collect()
}

fn report(input: &str, name: &str, n: usize, perms: usize, secs: &mut [f64], p: f64) {
    secs.sort_by(f64::total_cmp);
    println!(
        "{input}\t{name}\t{n}\t{perms}\t{}\t{:.4}\t{:.4}\t{:.4}\t{p}",
        rayon::current_num_threads(),
        secs[secs.len() / 2],
        secs[0],
        secs[secs.len() - 1],
    );
}

fn time(input: &str, d: &[f64], perms: usize, runs: usize, with_legacy: bool) {
    let (mut old, mut new) = (Vec::new(), Vec::new());
    let (mut p_old, mut p_new) = (f64::NAN, f64::NAN);
    for _ in 0..runs {
        if with_legacy {
            let t = Instant::now();
            p_old = legacy(d, perms, 1);
            old.push(t.elapsed().as_secs_f64());
        }
        let t = Instant::now();
        p_new = sign_flip_test(d, perms, 1).expect("sign flip");
        new.push(t.elapsed().as_secs_f64());
    }
    if with_legacy {
        report(input, "legacy", d.len(), perms, &mut old, p_old);
    }
    report(input, "distinct-values", d.len(), perms, &mut new, p_new);
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize, default: usize| {
        args.get(i)
            .map_or(default, |s| s.parse().expect("a number"))
    };
    let (n, perms, runs) = (arg(1, 100_000), arg(2, 10_000), arg(3, 5).max(1));
    let with_legacy = arg(4, 1) != 0;
    time("tenths", &tenths(n), perms, runs, with_legacy);
    time("distinct", &distinct(n), perms, runs, with_legacy);
}
