//! compare's run-to-run noise block on examples/demo.jsonl vs demo-b.jsonl
//! (6 problems × 8 rollouts a side): every number recomputed here from the
//! rows — flip floors 2c(n − c)/(n(n − 1)), the A-vs-B flip rate, the exact
//! sign-flip p by enumerating the 2⁶ sign patterns, ICC(1) from the one-way
//! ANOVA mean squares.

mod common;
use common::{close, f, json, run};
use serde_json::Value;
use std::collections::BTreeMap;

/// problem → (correct, rollouts).
fn counts(rel: &str) -> BTreeMap<String, (u64, u64)> {
    let text = std::fs::read_to_string(common::root().join(rel)).unwrap();
    let mut out: BTreeMap<String, (u64, u64)> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let e = out
            .entry(v["problem"].as_str().unwrap().into())
            .or_default();
        e.0 += u64::from(v["correct"].as_bool().unwrap());
        e.1 += 1;
    }
    out
}

fn within(c: u64, n: u64) -> f64 {
    2.0 * (c * (n - c)) as f64 / (n * (n - 1)) as f64
}

/// ICC(1) = (MSB − MSW)/(MSB + (k − 1)MSW) for 0/1 trials.
fn icc1(cs: &[u64], k: u64) -> f64 {
    let (n, k) = (cs.len() as f64, k as f64);
    let means: Vec<f64> = cs.iter().map(|&c| c as f64 / k).collect();
    let grand = means.iter().sum::<f64>() / n;
    let msb = k * means.iter().map(|m| (m - grand).powi(2)).sum::<f64>() / (n - 1.0);
    // Within a problem: c ones and k − c zeros around c/k.
    let ssw: f64 = cs
        .iter()
        .map(|&c| {
            let m = c as f64 / k;
            c as f64 * (1.0 - m).powi(2) + (k - c as f64) * m * m
        })
        .sum();
    let msw = ssw / (n * (k - 1.0));
    (msb - msw) / (msb + (k - 1.0) * msw)
}

#[test]
fn noise_block_matches_the_rows() {
    let a = counts("examples/demo.jsonl");
    let b = counts("examples/demo-b.jsonl");
    let doc = json(&run(&[
        "compare",
        "examples/demo.jsonl",
        "examples/demo-b.jsonl",
        "--format",
        "json",
        "--resamples",
        "200",
    ]));
    let n = &doc["noise"];
    assert_eq!(n["n_problems"].as_u64(), Some(a.len() as u64));
    let fa: Vec<f64> = a.values().map(|&(c, n)| within(c, n)).collect();
    let fb: Vec<f64> = b.values().map(|&(c, n)| within(c, n)).collect();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    close(f(&n["floor_a"]), mean(&fa), 1e-12);
    close(f(&n["floor_b"]), mean(&fb), 1e-12);
    close(f(&n["floor_difference"]), mean(&fb) - mean(&fa), 1e-12);
    let d: Vec<f64> = fa.iter().zip(&fb).map(|(x, y)| y - x).collect();
    let obs: f64 = d.iter().sum();
    let hits = (0..1u32 << d.len())
        .filter(|mask| {
            let s: f64 = d
                .iter()
                .enumerate()
                .map(|(i, x)| if mask >> i & 1 == 1 { -x } else { *x })
                .sum();
            s.abs() >= obs.abs() - 1e-12
        })
        .count();
    close(
        f(&n["p_value"]),
        hits as f64 / f64::from(1u32 << d.len()),
        1e-15,
    );
    assert_eq!(n["exact"], true);
    let cross: Vec<f64> = a
        .values()
        .zip(b.values())
        .map(|(&(ca, na), &(cb, nb))| (ca * (nb - cb) + cb * (na - ca)) as f64 / (na * nb) as f64)
        .collect();
    close(f(&n["flip_rate"]), mean(&cross), 1e-12);
    close(
        f(&n["excess"]),
        mean(&cross) - (mean(&fa) + mean(&fb)) / 2.0,
        1e-12,
    );
    let ca: Vec<u64> = a.values().map(|x| x.0).collect();
    let cb: Vec<u64> = b.values().map(|x| x.0).collect();
    close(f(&n["icc_a"]["icc1"]), icc1(&ca, 8), 1e-12);
    close(f(&n["icc_b"]["icc1"]), icc1(&cb, 8), 1e-12);
}

#[test]
fn single_draws_have_no_noise_block_and_the_table_says_it() {
    let dir = tempfile::tempdir().unwrap();
    let rows = |p: &[u8]| -> String {
        p.iter()
            .enumerate()
            .map(|(i, c)| format!("{{\"problem\": \"q{i}\", \"correct\": {}}}\n", c == &1))
            .collect()
    };
    let a = common::write(dir.path(), "a.jsonl", rows(&[1, 0, 1, 1]));
    let b = common::write(dir.path(), "b.jsonl", rows(&[1, 1, 0, 1]));
    let doc = json(&run(&[
        "compare",
        &a,
        &b,
        "--format",
        "json",
        "--resamples",
        "100",
    ]));
    assert!(doc.get("noise").is_none(), "{doc}");
    let text = common::ok(&run(&[
        "compare",
        "examples/demo.jsonl",
        "examples/demo-b.jsonl",
    ]));
    assert!(text.contains("run-to-run noise on 6 problems"), "{text}");
}
