//! The report's `reliability` block through the library: the tau-bench
//! gpt-4o airline matrix of `../shared/research/decisions-2026-12.md` §4(c)
//! (50 tasks × 4 trials, written out there bit by bit) gives that note's
//! published figures, the JSON reads back, and the block agrees with the
//! report's own pass@1 and its variance split.
//!
//! Expected values: the research note's (tau-bench#57, reproduced with
//! numpy) and scipy 1.17.1 for the F intervals — see the header of
//! `crates/rollstat-cli/tests/reliability.rs` for the script.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, Report, ReportOptions, Source};

/// The matrix of §4(c): 50 tasks in task_id order, trials 0–3.
const MATRIX: &str = "0000 0100 0010 0000 0000 0100 1000 0010 0000 0000 0000 1000 1111 0110 0000 0011 0001 0001 1111 0000 1111 0111 0000 0000 1111 \
0000 1010 0110 0000 1000 0101 1001 0000 0000 1101 1111 1111 0111 1111 1000 1101 0101 1111 1000 1010 1001 0110 0100 1111 1111";

/// One canonical rollout row per (task, trial), rollout = trial.
fn tau_rows() -> Source {
    let mut bytes = String::new();
    for (task, word) in MATRIX.split_whitespace().enumerate() {
        for (trial, bit) in word.chars().enumerate() {
            bytes.push_str(&format!(
                "{{\"problem\": \"t{task}\", \"rollout\": {trial}, \"correct\": {}}}\n",
                bit == '1'
            ));
        }
    }
    Source::Bytes {
        name: "tau.jsonl".into(),
        bytes: bytes.into_bytes(),
    }
}

fn tau_report() -> Report {
    report(&[tau_rows()], &ReportOptions::default()).unwrap()
}

#[test]
fn the_tau_bench_matrix_gives_the_published_figures() {
    let r = tau_report();
    let rel = r.reliability.as_ref().expect("4 trials per task");
    assert_eq!((rel.n_trials, rel.n_problems), (4, 50));
    let runs: Vec<f64> = rel.runs.iter().map(|v| v.pass_at_1).collect();
    for (got, want) in runs.iter().zip([0.42, 0.44, 0.40, 0.42]) {
        assert!((got - want).abs() < 1e-12, "{runs:?}");
    }
    assert!((rel.flips.share_flipping - 0.52).abs() < 1e-12);
    assert!((rel.flips.mean_pairwise - 0.293333).abs() < 5e-7);
    let icc = rel.icc.as_ref().unwrap();
    assert!((icc.icc1 - 0.404584).abs() < 5e-7);
    assert!((icc.icc1k - 0.731038).abs() < 5e-7);
    assert!((rel.variance.trial_variance - 0.146667).abs() < 5e-7);
    assert!((rel.variance.between - 0.099660).abs() < 5e-7);
    assert!((rel.variance.se - 0.052216).abs() < 5e-7);
}

#[test]
fn the_block_agrees_with_the_reports_pass_at_1_and_its_variance_split() {
    let r = tau_report();
    let rel = r.reliability.as_ref().unwrap();
    let pass1 = r.block.metrics.get("pass@1").unwrap();
    let mean_of_runs = rel.run_spread.as_ref().unwrap().mean;
    assert!((mean_of_runs - pass1.value).abs() < 1e-12);
    let split = pass1.variance.as_ref().unwrap();
    assert!((split.between - rel.variance.between).abs() < 1e-12);
    assert!((split.within - rel.variance.within).abs() < 1e-12);
}

#[test]
fn the_block_reads_back_from_json() {
    let r = tau_report();
    let text = serde_json::to_string(&r).unwrap();
    let back: Report = serde_json::from_str(&text).unwrap();
    assert_eq!(back.reliability, r.reliability);
}

#[test]
fn the_judged_denominator_drops_a_failed_trial_and_the_problem_leaves_the_shared_set() {
    // p3's second rollout failed: under `judged` it has no second trial.
    let rows = "{\"problem\":\"p1\",\"correct\":[true,false]}\n\
                {\"problem\":\"p2\",\"correct\":[true,true]}\n\
                {\"problem\":\"p3\",\"correct\":[true,null]}\n";
    let source = || Source::Bytes {
        name: "f.jsonl".into(),
        bytes: rows.as_bytes().to_vec(),
    };
    let requested = report(&[source()], &ReportOptions::default()).unwrap();
    assert_eq!(requested.reliability.as_ref().unwrap().n_problems, 3);
    let mut judged = ReportOptions::default();
    judged.metrics.denominator = rollstat::DenominatorPolicy::Judged;
    let judged = report(&[source()], &judged).unwrap();
    let rel = judged.reliability.as_ref().unwrap();
    assert_eq!((rel.n_problems, rel.n_problems_left_out), (2, 1));
}
