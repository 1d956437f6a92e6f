//! Times maj@k for every k over many problems, for the benchmark in
//! `bench/` (BENCHMARKS.md, "maj@k for all k").
//!
//! Usage: `bench_majk PROBLEMS N [REPEATS] [SEED] [POLICY]` (defaults 5, 0
//! and every policy).
//!
//! Each problem has N rollouts with answers drawn (seeded xorshift) as an
//! evaluation produces them: the correct answer with a per-problem rate p
//! (p uniform in [0, 1]), otherwise one of 8 wrong answers with Zipf-like
//! weights 1, 1/2, …, 1/8, and 5 % of rollouts unextracted. Summaries are
//! built outside the clock (the report builds them while reading). The
//! clock covers every maj@k column for k = 1, …, N − 1 (maj@N is maj@n,
//! computed while summarizing) from one `ColumnBuilder`, as `rollstat
//! report --k 1,2,…,N` builds them, for each tie policy; then the same for
//! the default k list 1, 2, 4, …
//!
//! Prints `policy<TAB>ks<TAB>seconds<TAB>cpu_seconds<TAB>checksum` per
//! policy and k set (seconds: best of REPEATS, wall clock; cpu_seconds: the
//! CPU time all the process's threads spent in that repetition, from
//! /proc/self/task/*/schedstat, NaN where unreadable; checksum: the sum of
//! all defined values).

use rollstat_core::aggregate::{default_ks, ColumnBuilder, Metric};
use rollstat_core::summary::{
    summarize, Answer, DenominatorPolicy, ProblemData, ProblemSummary, Rollout, Verdict,
};
use rollstat_core::vote::{ExactClusterer, TiePolicy};
use std::time::Instant;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// One wrong answer, 1..=8 with weights 1/i.
fn wrong(rng: &mut Rng) -> u64 {
    const TOTAL: f64 = 2.717_857_142_857_143; // Σ_{i=1..8} 1/i
    let mut u = rng.unit() * TOTAL;
    for i in 1..=8u64 {
        u -= 1.0 / i as f64;
        if u <= 0.0 {
            return i;
        }
    }
    8
}

fn problem(rng: &mut Rng, n: u64) -> ProblemSummary {
    let p = rng.unit();
    let rollouts = (0..n)
        .map(|index| {
            let (verdict, answer) = if rng.unit() < 0.05 {
                (Verdict::Wrong, Answer::Unextracted)
            } else if rng.unit() < p {
                (Verdict::Correct, Answer::Text("0".into()))
            } else {
                (Verdict::Wrong, Answer::Text(wrong(rng).to_string()))
            };
            Rollout {
                index,
                verdict,
                answer,
                truncated: false,
            }
        })
        .collect();
    summarize(
        ProblemData::rollouts(rollouts),
        DenominatorPolicy::Requested,
        &ExactClusterer,
    )
}

/// CPU time of every thread of this process so far, in seconds (Linux
/// schedstat: nanoseconds on CPU), or NaN where unreadable.
fn cpu_seconds() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let mut ns = 0u64;
    for task in tasks.flatten() {
        let Ok(text) = std::fs::read_to_string(task.path().join("schedstat")) else {
            return f64::NAN;
        };
        ns += text
            .split_whitespace()
            .next()
            .and_then(|v| v.parse::<u64>().ok())
            .unwrap_or(0);
    }
    ns as f64 * 1e-9
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 {
        eprintln!("usage: bench_majk PROBLEMS N [REPEATS] [SEED]");
        std::process::exit(2);
    }
    let count: usize = args[1].parse().expect("problems");
    let n: u64 = args[2].parse().expect("n");
    let repeats: usize = args.get(3).map_or(5, |r| r.parse().expect("repeats"));
    let seed: u64 = args.get(4).map_or(0, |s| s.parse().expect("seed"));
    let only: Option<TiePolicy> = args.get(5).map(|p| p.parse().expect("policy"));
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ seed.wrapping_mul(0x2545_f491_4f6c_dd1d));
    let problems: Vec<ProblemSummary> = (0..count).map(|_| problem(&mut rng, n)).collect();
    let all: Vec<u64> = (1..n).collect();
    let default: Vec<u64> = default_ks(n).into_iter().filter(|&k| k < n).collect();
    let policies = [TiePolicy::First, TiePolicy::None, TiePolicy::Fractional];
    for tie in policies
        .into_iter()
        .filter(|t| only.is_none_or(|o| o == *t))
    {
        for (name, ks) in [("1..n-1", &all), ("default", &default)] {
            let metrics: Vec<Metric> = ks.iter().map(|&k| Metric::MajAtK(k)).collect();
            let (mut best, mut best_cpu) = (f64::INFINITY, f64::NAN);
            let mut checksum = 0.0;
            for _ in 0..repeats.max(1) {
                let cpu = cpu_seconds();
                let t = Instant::now();
                let builder = ColumnBuilder::new(&problems, tie).with_metrics(&metrics);
                let columns: Vec<_> = metrics.iter().map(|m| builder.build(m.clone())).collect();
                let wall = t.elapsed().as_secs_f64();
                if wall < best {
                    (best, best_cpu) = (wall, cpu_seconds() - cpu);
                }
                checksum = columns
                    .iter()
                    .flat_map(|c| c.values.iter().filter(|v| !v.is_nan()))
                    .sum();
            }
            println!("{tie}\t{name}\t{best:.6}\t{best_cpu:.6}\t{checksum:.6}");
        }
    }
}
