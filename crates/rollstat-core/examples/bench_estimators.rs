//! Times pass@k, pass^k, G-Pass and mG-Pass over many problems, for the
//! side-by-side benchmark in `bench/` (the per-problem values are computed,
//! not memoized, so this measures the estimators themselves).
//!
//! Usage: `bench_estimators COUNTS_FILE K[,K…]` where COUNTS_FILE holds one
//! `n c` pair per line. Prints seconds and a checksum per estimator.

use rayon::prelude::*;
use rollstat_core::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("counts file");
    let ks: Vec<u64> = args[2].split(',').map(|k| k.parse().expect("k")).collect();
    let pairs: Vec<(u64, u64)> = text
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<u64>().expect("int"));
            (it.next().expect("n"), it.next().expect("c"))
        })
        .collect();
    type Est = fn(u64, u64, u64) -> Option<f64>;
    let g: Est = |n, c, k| g_pass_at_k(n, c, k, 0.5);
    let all: [(&str, Est); 4] = [
        ("pass@k", pass_at_k),
        ("pass^k", pass_pow_k),
        ("g-pass@k_0.5", g),
        ("mg-pass@k", mg_pass_at_k),
    ];
    for (name, f) in all {
        let t = Instant::now();
        let mut checksum = 0.0;
        for &k in &ks {
            checksum += pairs
                .par_iter()
                .map(|&(n, c)| f(n, c, k).unwrap_or(0.0))
                .sum::<f64>();
        }
        println!("{name}\t{:.6}\t{checksum:.6}", t.elapsed().as_secs_f64());
    }
}
