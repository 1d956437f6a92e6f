//! The report's `extrapolation` block (pass@K beyond n, docs/statistics.md
//! §7): validated on real data against the value observed with all
//! rollouts, wired to the statistic it reports, read back from JSON, and
//! never an error for the report as a whole.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{report, Finding, Report, ReportOptions, Source};
use rollstat_stats::{extrapolate_pass_at_k, ExtrapolationConfig};
use std::path::PathBuf;

/// The tree-of-thought game-24 logs (tests/data/README.md): 100 problems ×
/// 100 GPT-4 rollouts, each problem's verdicts in rollout order.
fn tot(name: &str) -> Vec<Vec<bool>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(format!("tot_game24_gpt4_{name}.jsonl"));
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            v["correct"]
                .as_array()
                .unwrap()
                .iter()
                .map(|b| b.as_bool().unwrap())
                .collect()
        })
        .collect()
}

/// Canonical problem rows holding the first `m` rollouts of each problem.
fn first_rollouts(rows: &[Vec<bool>], m: usize) -> Source {
    let mut bytes = Vec::new();
    for (i, v) in rows.iter().enumerate() {
        let row = serde_json::json!({"problem": format!("p{i}"), "correct": &v[..m]});
        bytes.extend_from_slice(row.to_string().as_bytes());
        bytes.push(b'\n');
    }
    Source::Bytes {
        name: format!("first{m}.jsonl"),
        bytes,
    }
}

fn opts(targets: &[u64]) -> ReportOptions {
    let mut o = ReportOptions::default();
    o.extrapolate = targets.to_vec();
    o.intervals.resamples = 2000;
    o
}

/// Fitted on the first 10, 20 or 50 rollouts of each problem, the 95%
/// interval of pass@100_fit holds pass@100 as observed with all 100
/// rollouts — the fraction of problems solved at least once (CoT 49/100,
/// standard 33/100, counted here from the rows, not by rollstat). Measured
/// with `rollstat report --extrapolate 100` (default seed, 10,000
/// resamples) for m = 10, 20, 50: CoT 46.3% [29.4, 69.0], 37.4% [25.0,
/// 51.3], 48.3% [37.7, 58.9]; standard 29.5% [17.8, 42.6], 26.9% [17.0,
/// 37.6], 32.9% [23.6, 42.5].
#[test]
fn fitted_on_a_prefix_covers_the_observed_pass_at_100() {
    for name in ["cot", "standard"] {
        let rows = tot(name);
        let observed = rows.iter().filter(|v| v.contains(&true)).count() as f64 / 100.0;
        assert_eq!(observed, if name == "cot" { 0.49 } else { 0.33 });
        for m in [10, 20, 50] {
            let r = report(&[first_rollouts(&rows, m)], &opts(&[100])).unwrap();
            let x = r.extrapolation.as_ref().expect("extrapolation block");
            let e = x.values.get("pass@100_fit").unwrap();
            let [lo, hi] = e.ci.unwrap();
            assert!(
                lo <= observed && observed <= hi,
                "{name} m={m}: {e:?} vs {observed}"
            );
            assert!(x.converged && x.n_problems == 100);
        }
    }
}

/// The block reports exactly the statistic of rollstat-stats on the
/// problems' (n, c), with the report's seed, resamples and level; the
/// in-sample check compares the fit with the report's own pass@k.
#[test]
fn block_is_the_statistic_on_the_problems_counts() {
    let rows = tot("standard");
    let o = opts(&[64, 1000]);
    let r = report(&[first_rollouts(&rows, 16)], &o).unwrap();
    let counts: Vec<(u64, u64)> = rows
        .iter()
        .map(|v| (16, v[..16].iter().filter(|&&b| b).count() as u64))
        .collect();
    let direct = extrapolate_pass_at_k(
        &counts,
        &ExtrapolationConfig {
            targets: vec![64, 1000],
            resamples: o.intervals.resamples,
            seed: o.intervals.seed,
            level: o.intervals.level,
        },
    )
    .unwrap();
    let x = r.extrapolation.as_ref().unwrap();
    assert_eq!((x.alpha, x.beta), (direct.fit.alpha, direct.fit.beta));
    for (v, (name, e)) in direct.values.iter().zip(x.values.iter()) {
        assert_eq!(name, &format!("pass@{}_fit", v.k));
        assert_eq!(e.value, v.value);
        assert_eq!(e.ci, v.ci.map(|(a, b)| [a, b]));
    }
    let gap_k = x.check.gap_at_k.unwrap();
    let observed = r.block.metrics.get(&format!("pass@{gap_k}")).unwrap().value;
    assert_eq!(
        x.check.max_abs_gap.unwrap(),
        (direct.fit.pass_at(gap_k as f64) - observed).abs()
    );
    let back: Report = serde_json::from_str(&r.to_json()).unwrap();
    assert_eq!(back.extrapolation, r.extrapolation);
}

/// Data no beta can describe (every rollout correct) give a report with a
/// finding instead of an error; without the option there is no block.
#[test]
fn unidentifiable_data_give_a_finding() {
    let all_correct = vec![vec![true; 8]; 5];
    let r = report(&[first_rollouts(&all_correct, 8)], &opts(&[64])).unwrap();
    assert!(r.extrapolation.is_none());
    assert!(r
        .health
        .warnings
        .iter()
        .any(|w| matches!(w, Finding::NoExtrapolation { .. })));
    let r = report(&[first_rollouts(&tot("cot"), 8)], &opts(&[])).unwrap();
    assert!(r.extrapolation.is_none());
    assert!(!r.to_json().contains("extrapolation"));
    let mut bad = opts(&[0]);
    bad.intervals.resamples = 100;
    assert!(report(&[first_rollouts(&all_correct, 8)], &bad).is_err());
}
