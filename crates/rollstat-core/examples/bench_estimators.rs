//! Times pass@k, pass^k, G-Pass and mG-Pass over many problems, for the
//! side-by-side benchmark in `bench/` (§1 of BENCHMARKS.md).
//!
//! Usage: `bench_estimators COUNTS_FILE K[,K…] [TAU] [REPEATS]` where
//! COUNTS_FILE holds one `n c` pair per line (TAU, the G-Pass threshold,
//! defaults to 0.5; REPEATS, the repetitions per measurement, to 5).
//!
//! The problems are held as loaded: a `Vec<(u64, u64)>` of (n, c) pairs,
//! 16 bytes a problem (numpy's reference holds two int64 arrays, the same 16
//! bytes). Every mode produces what numpy's functions return — the
//! per-problem column of values, a fresh `Vec<f64>` per call (`NaN` where
//! undefined) — and is timed from the pairs to the finished column:
//!
//! - `batch`: the batch API — a new `EstimatorTable` for the estimator (each
//!   distinct (n, c) computed once, inside the clock), then the column
//!   filled by lookup in parallel chunks (rayon, sharing the table).
//! - `direct`: the scalar estimator called for every problem (rayon).
//! - `report`: `MetricColumn::build`, the column `rollstat report` builds,
//!   over the problems' `ProblemSummary`s (128-byte records; sequential
//!   within a metric: `rollstat report` builds the metrics' columns in
//!   parallel instead).
//! - `shared`: the same column from a `ColumnBuilder` shared by all metrics,
//!   which copies every problem's (n, c) out of the summaries once (that
//!   copy is timed on its own as mode `extract`) and reads the copy.
//! - `mean`: the mean alone, from a `CountsHistogram` of the (n, c) pairs
//!   built once before (its build time is printed as mode `build`).
//!
//! Prints `name<TAB>k<TAB>seconds<TAB>checksum<TAB>mode` per estimator, k
//! and mode — seconds is the best of REPEATS, checksum the sum of the
//! defined values (for `mean`: mean × defined problems) — then
//! `threads<TAB>N`. Exits with status 1 if the batch, report or shared
//! column differs from the direct one in any bit. Set `RAYON_NUM_THREADS=1` for a
//! single-threaded run.

use rayon::prelude::*;
use rollstat_core::aggregate::{ColumnBuilder, ColumnValues, Metric, MetricColumn};
use rollstat_core::batch::{CountsEstimator, CountsHistogram, EstimatorTable};
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::{ExactClusterer, TiePolicy};
use std::time::Instant;

/// Problems per parallel chunk of the batch column.
const CHUNK: usize = 16 * 1024;

/// The best time of `repeats` calls of `f`, and the last result.
fn best_of<T>(repeats: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..repeats.max(1) {
        drop(out.take()); // free the previous result before the clock starts
        let t = Instant::now();
        let r = f();
        best = best.min(t.elapsed().as_secs_f64());
        out = Some(r);
    }
    (best, out.expect("one repeat"))
}

fn checksum(values: &[f64]) -> f64 {
    values.iter().filter(|v| !v.is_nan()).sum()
}

fn same_bits(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: bench_estimators COUNTS_FILE K[,K…] [TAU] [REPEATS]");
        std::process::exit(2);
    }
    let text = std::fs::read_to_string(&args[1]).expect("counts file");
    let ks: Vec<u64> = args[2].split(',').map(|k| k.parse().expect("k")).collect();
    let tau: f64 = args.get(3).map_or(0.5, |t| t.parse().expect("tau"));
    let repeats: usize = args.get(4).map_or(5, |r| r.parse().expect("repeats"));
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
    // Start the rayon pool before the first timing.
    let _ = pairs.par_iter().map(|&(n, _)| n).sum::<u64>();

    let (secs, histogram) = best_of(repeats, || {
        pairs
            .par_chunks(CHUNK)
            .map(|chunk| chunk.iter().copied().collect::<CountsHistogram>())
            .reduce(CountsHistogram::new, |mut a, b| {
                a.merge(&b);
                a
            })
    });
    println!("histogram\t0\t{secs:.6}\t{}\tbuild", histogram.problems());

    let (secs, _) = best_of(repeats, || {
        summaries
            .iter()
            .map(|p| (p.n, p.c))
            .collect::<Vec<(u64, u64)>>()
    });
    println!("counts\t0\t{secs:.6}\t0\textract");
    let builder = ColumnBuilder::new(&summaries, TiePolicy::First);
    builder.build(Metric::PassAtK(1)); // copies the (n, c) pairs

    let mut identical = true;
    for name in ["pass@k", "pass^k", "g-pass@k", "mg-pass@k"] {
        for &k in &ks {
            let (est, metric) = match name {
                "pass@k" => (CountsEstimator::PassAtK(k), Metric::PassAtK(k)),
                "pass^k" => (CountsEstimator::PassPowK(k), Metric::PassPowK(k)),
                "g-pass@k" => (
                    CountsEstimator::GPassAtK { k, tau },
                    Metric::GPassAtK {
                        k,
                        tau,
                        tau_text: tau.to_string(),
                    },
                ),
                _ => (CountsEstimator::MgPassAtK(k), Metric::MgPassAtK(k)),
            };
            let line = |secs: f64, sum: f64, mode: &str| {
                println!("{name}\t{k}\t{secs:.6}\t{sum:.9}\t{mode}");
            };

            let (secs, batch) = best_of(repeats, || {
                let table = EstimatorTable::new(est);
                let mut out = vec![0.0; pairs.len()];
                out.par_chunks_mut(CHUNK)
                    .zip(pairs.par_chunks(CHUNK))
                    .for_each(|(o, p)| {
                        table.fill(p, o);
                    });
                out
            });
            line(secs, checksum(&batch), "batch");

            let (secs, direct) = best_of(repeats, || {
                pairs
                    .par_iter()
                    .with_min_len(4096)
                    .map(|&(n, c)| est.value(n, c).unwrap_or(f64::NAN))
                    .collect::<Vec<f64>>()
            });
            line(secs, checksum(&direct), "direct");

            let (secs, report) = best_of(repeats, || {
                dense(MetricColumn::build(metric.clone(), &summaries, TiePolicy::First).values)
            });
            line(secs, checksum(&report), "report");

            // Coded over the (n, c) pairs; expanded to one value a problem here.
            let (secs, shared) = best_of(repeats, || dense(builder.build(metric.clone()).values));
            line(secs, checksum(&shared), "shared");

            let (secs, (summary, _)) = best_of(repeats, || histogram.summary(est));
            let sum = summary.map_or(0.0, |s| s.mean * s.n_problems as f64);
            line(secs, sum, "mean");

            for (mode, column) in [("batch", &batch), ("report", &report), ("shared", &shared)] {
                if !same_bits(column, &direct) {
                    eprintln!("{name} k={k}: the {mode} column differs from the direct one");
                    identical = false;
                }
            }
        }
    }
    println!("threads\t{}", rayon::current_num_threads());
    if !identical {
        std::process::exit(1);
    }
}

/// One value a problem (a coded column expanded).
fn dense(values: ColumnValues) -> Vec<f64> {
    match values {
        ColumnValues::Dense(v) => v,
        coded => coded.to_vec(),
    }
}
