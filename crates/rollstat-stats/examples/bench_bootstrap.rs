//! Times the bootstrap engine for the side-by-side benchmark in `bench/`.
//!
//! Usage: `bench_bootstrap VALUES_FILE RESAMPLES [SEED]`. Each line of
//! VALUES_FILE holds one problem's values, whitespace-separated, one column
//! per metric (`nan` for undefined); all columns are bootstrapped together in
//! one run, as `rollstat report` does.
//!
//! Prints `seconds<TAB>columns<TAB>problems<TAB>threads`, then per column
//! `pct_lo<TAB>pct_hi<TAB>bca_lo<TAB>bca_hi<TAB>se` (percentile and BCa from
//! one run; se is the sample standard deviation of the bootstrap means).
//! Timing covers the bootstrap only (the file is parsed before).

use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
use std::io::BufRead;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: bench_bootstrap VALUES_FILE RESAMPLES [SEED]");
        std::process::exit(2);
    }
    // Read line by line so the file's text is never held whole (the RSS
    // measured is then the columns plus the engine, not the loader).
    let file = std::io::BufReader::new(std::fs::File::open(&args[1]).expect("values file"));
    let resamples: usize = args[2].parse().expect("resamples");
    let seed: u64 = args.get(3).map_or(1, |s| s.parse().expect("seed"));
    let mut cols: Vec<Vec<f64>> = Vec::new();
    for l in file.lines() {
        let l = l.expect("read");
        if l.trim().is_empty() {
            continue;
        }
        let vals: Vec<f64> = l
            .split_whitespace()
            .map(|x| x.parse().expect("number"))
            .collect();
        if cols.is_empty() {
            cols = vec![Vec::new(); vals.len()];
        }
        assert_eq!(vals.len(), cols.len(), "ragged values file");
        for (c, v) in cols.iter_mut().zip(vals) {
            c.push(v);
        }
    }
    let refs: Vec<&[f64]> = cols.iter().map(|c| c.as_slice()).collect();
    let t = Instant::now();
    let r = bootstrap_means(
        &refs,
        &BootstrapConfig {
            resamples,
            level: 0.95,
            seed,
        },
    )
    .expect("bootstrap");
    let secs = t.elapsed().as_secs_f64();
    println!(
        "{secs:.6}\t{}\t{}\t{}",
        cols.len(),
        cols.first().map_or(0, |c| c.len()),
        rayon::current_num_threads()
    );
    for c in &r.columns {
        let p = c.interval(CiMethod::Percentile);
        let b = c.interval(CiMethod::Bca);
        println!(
            "{}\t{}\t{}\t{}\t{}",
            p.lower, p.upper, b.lower, b.upper, c.std_error
        );
    }
}
