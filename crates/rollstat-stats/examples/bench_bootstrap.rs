//! Times the bootstrap engine for the side-by-side benchmark in `bench/`.
//!
//! Usage: `bench_bootstrap VALUES_FILE RESAMPLES` (one value per line).
//! Prints seconds, the percentile and BCa bounds, and the bootstrap SE.

use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let text = std::fs::read_to_string(&args[1]).expect("values file");
    let resamples: usize = args[2].parse().expect("resamples");
    let y: Vec<f64> = text
        .lines()
        .map(|l| l.trim().parse().expect("number"))
        .collect();
    let t = Instant::now();
    let r = bootstrap_means(
        &[&y],
        &BootstrapConfig {
            resamples,
            level: 0.95,
            seed: 1,
        },
    )
    .expect("bootstrap");
    let secs = t.elapsed().as_secs_f64();
    let c = &r.columns[0];
    let p = c.interval(CiMethod::Percentile);
    let b = c.interval(CiMethod::Bca);
    println!(
        "{secs:.6}\t{}\t{}\t{}\t{}\t{}",
        p.lower, p.upper, b.lower, b.upper, c.std_error
    );
}
