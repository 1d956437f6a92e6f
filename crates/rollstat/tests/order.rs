//! A report is a function of the data, not of how it was ordered or split:
//! shuffled rows, shuffled problems and inputs cut into shards that split
//! problems give the same report.json, byte for byte, apart from `inputs`
//! (each input's name, digest and row count). docs/spec.md §5.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{compare, report, CompareOptions, ReportOptions, Source};

/// Rollout rows of 60 problems in 3 subsets (problem ids reused across
/// subsets) with answers, 6 rollouts each; answers vary so maj@k and
/// self-consistency depend on every row.
fn rows() -> Vec<String> {
    let mut out = Vec::new();
    for p in 0..20u64 {
        for subset in ["algebra", "geometry", "number"] {
            for r in 0..6u64 {
                let h = (p * 7 + r * 3 + subset.len() as u64) % 5;
                let answer = ["1", "2", "2", "3", "x"][h as usize];
                out.push(format!(
                    r#"{{"problem": "q{p}", "subset": "{subset}", "rollout": {r}, "answer": "{answer}", "correct": {}, "template": "t{}"}}"#,
                    answer == "2",
                    p % 4
                ));
            }
        }
    }
    out
}

/// A fixed permutation (Fisher–Yates driven by an LCG).
fn shuffled(mut v: Vec<String>, seed: u64) -> Vec<String> {
    let mut x = seed;
    for i in (1..v.len()).rev() {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.swap(i, (x >> 33) as usize % (i + 1));
    }
    v
}

fn source(name: &str, rows: &[String]) -> Source {
    Source::Bytes {
        name: name.into(),
        bytes: (rows.join("\n") + "\n").into_bytes(),
    }
}

/// report.json without its `inputs`.
fn body(sources: &[Source], o: &ReportOptions) -> String {
    let mut v: serde_json::Value =
        serde_json::from_str(&report(sources, o).unwrap().to_json()).unwrap();
    v.as_object_mut().unwrap().remove("inputs");
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn shuffled_and_sharded_inputs_give_the_same_report() {
    let mut o = ReportOptions::default();
    o.intervals.resamples = 500;
    o.by = Some("subset".into());
    o.per_problem = true;
    let base = rows();
    let want = body(&[source("all.jsonl", &base)], &o);
    for seed in [1, 2, 3] {
        let s = shuffled(base.clone(), seed);
        assert_eq!(
            body(&[source("shuffled.jsonl", &s)], &o),
            want,
            "seed {seed}"
        );
        // Three shards that split problems (rows dealt round-robin).
        let shards: Vec<Source> = (0..3)
            .map(|k| {
                let part: Vec<String> = s.iter().skip(k).step_by(3).cloned().collect();
                source(&format!("part{k}.jsonl"), &part)
            })
            .collect();
        assert_eq!(body(&shards, &o), want, "shards, seed {seed}");
    }
    o.intervals.cluster_by = Some("template".into());
    o.intervals.method = "bca".parse().unwrap();
    let want = body(&[source("all.jsonl", &base)], &o);
    assert_eq!(body(&[source("s.jsonl", &shuffled(base, 9))], &o), want);
}

#[test]
fn shuffled_sides_give_the_same_comparison() {
    // Three subsets reusing problem ids: compare pairs problems by (subset,
    // id), as the report keeps them apart (#10 item 16).
    let a = rows();
    let b: Vec<String> = a
        .iter()
        .map(|r| r.replace(r#""answer": "3""#, r#""answer": "2""#))
        .collect();
    let mut o = CompareOptions::default();
    o.intervals.resamples = 500;
    let run = |a: &[String], b: &[String]| {
        let c = compare(&[source("a.jsonl", a), source("b.jsonl", b)], &o).unwrap();
        serde_json::to_string(&c.rows).unwrap()
    };
    let want = run(&a, &b);
    assert_eq!(run(&shuffled(a.clone(), 4), &shuffled(b, 5)), want);
    let c = compare(&[source("a.jsonl", &a), source("a2.jsonl", &a)], &o).unwrap();
    let p1 = c
        .rows
        .iter()
        .find(|r| r.metric == "pass@1" && r.group.is_none())
        .unwrap();
    assert_eq!(p1.n_problems, 60);
}
