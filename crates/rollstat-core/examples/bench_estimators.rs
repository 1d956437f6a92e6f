//! Times pass@k, pass^k, G-Pass and mG-Pass over many problems, for the
//! side-by-side benchmark in `bench/` (the per-problem values are computed,
//! not memoized, so this measures the estimators themselves).
//!
//! Usage: `bench_estimators COUNTS_FILE K[,K…] [TAU]` where COUNTS_FILE holds
//! one `n c` pair per line (TAU, the G-Pass threshold, defaults to 0.5).
//! Prints one line per estimator, k and mode:
//! `name<TAB>k<TAB>seconds<TAB>checksum<TAB>mode` (checksum = Σ over problems
//! of the value, undefined values counted as 0), then `threads<TAB>N`.
//! Mode `direct`: every problem's value computed (rayon). Mode `memo`: the
//! column built the way `rollstat report` builds it (sequential, each
//! distinct (n, c) computed once through a HashMap, values collected).
//! Timing covers the computation only (the file is parsed before).
//! Set `RAYON_NUM_THREADS=1` for a single-threaded run.

use rayon::prelude::*;
use rollstat_core::aggregate::{Metric, MetricColumn};
use rollstat_core::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::{ExactClusterer, TiePolicy};
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: bench_estimators COUNTS_FILE K[,K…] [TAU]");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[1]).expect("counts file");
    let ks: Vec<u64> = args[2].split(',').map(|k| k.parse().expect("k")).collect();
    let tau: f64 = args.get(3).map_or(0.5, |t| t.parse().expect("tau"));
    let pairs: Vec<(u64, u64)> = text
        .lines()
        .map(|l| {
            let mut it = l.split_whitespace().map(|x| x.parse::<u64>().expect("int"));
            (it.next().expect("n"), it.next().expect("c"))
        })
        .collect();
    drop(text);
    let summaries: Vec<ProblemSummary> = pairs
        .iter()
        .map(|&(n, c)| {
            summarize(
                ProblemData::Counts { n, c },
                DenominatorPolicy::Requested,
                &ExactClusterer,
            )
        })
        .collect();
    type Estimator<'a> = &'a (dyn Fn(u64, u64, u64) -> Option<f64> + Sync);
    let all: [(&str, Estimator); 4] = [
        ("pass@k", &pass_at_k),
        ("pass^k", &pass_pow_k),
        ("g-pass@k", &|n, c, k| g_pass_at_k(n, c, k, tau)),
        ("mg-pass@k", &mg_pass_at_k),
    ];
    // Start the rayon pool before the first timing.
    let _ = pairs.par_iter().map(|&(n, _)| n).sum::<u64>();
    for (name, f) in all {
        for &k in &ks {
            let t = Instant::now();
            let checksum = pairs
                .par_iter()
                .with_min_len(4096)
                .map(|&(n, c)| f(n, c, k).unwrap_or(0.0))
                .sum::<f64>();
            println!(
                "{name}\t{k}\t{:.6}\t{checksum:.9}\tdirect",
                t.elapsed().as_secs_f64()
            );
            // As `rollstat report` builds a metric column: each distinct
            // (n, c) computed once, looked up by index.
            let metric = match name {
                "pass@k" => Metric::PassAtK(k),
                "pass^k" => Metric::PassPowK(k),
                "g-pass@k" => Metric::GPassAtK {
                    k,
                    tau,
                    tau_text: tau.to_string(),
                },
                _ => Metric::MgPassAtK(k),
            };
            let t = Instant::now();
            let values = MetricColumn::build(metric, &summaries, TiePolicy::First).values;
            let secs = t.elapsed().as_secs_f64();
            let checksum: f64 = values.iter().filter(|v| !v.is_nan()).sum();
            println!("{name}\t{k}\t{secs:.6}\t{checksum:.9}\tmemo");
        }
    }
    println!("threads\t{}", rayon::current_num_threads());
}
