//! Inputs larger than one read block give the same problems, line numbers
//! and digest as their content implies.

use rollstat_core::summary::ProblemData;
use rollstat_io::{Collector, Input, ReadOptions};

#[test]
fn rows_spanning_block_boundaries_are_read_once_with_right_line_numbers() {
    // 100 000 rows of ~100 bytes: > 8 MiB, so at least two blocks.
    let mut body = String::new();
    for i in 0..100_000u64 {
        body += &format!(
            "{{\"problem\": \"p{}\", \"rollout\": {}, \"correct\": {}, \"answer\": \"{}\", \"pad\": \"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}\n",
            i / 10,
            i % 10,
            i % 3 == 0,
            i % 7
        );
    }
    // A malformed row near the end names its true line number.
    body += "{\"problem\": \"bad\", \"correct\": \"yes\"}\n";
    assert!(body.len() > 8 << 20);
    let digest = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(body.as_bytes());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let mut c = Collector::new(ReadOptions::default());
    c.add(Input::from_bytes("big.jsonl", body.into_bytes()))
        .unwrap();
    let out = c.finish().unwrap();
    assert_eq!(out.inputs[0].records, 100_001);
    assert_eq!(out.inputs[0].sha256, digest);
    assert_eq!(out.problems.len(), 10_000);
    assert_eq!(out.bad_lines.len(), 1);
    assert_eq!(out.bad_lines[0].line, 100_001);
    let correct: usize = out
        .problems
        .iter()
        .map(|p| match &p.data {
            ProblemData::Rollouts(r) => {
                assert_eq!(r.len(), 10);
                r.iter()
                    .filter(|x| x.verdict == rollstat_core::summary::Verdict::Correct)
                    .count()
            }
            _ => panic!("rollout rows"),
        })
        .sum();
    // i % 3 == 0 for i in 0..100000: 33 334 rows.
    assert_eq!(correct, 33_334);
}

/// Rows of many problems, interleaved, some out of order, one duplicated,
/// one count row, and bad rows in two places.
fn interleaved_input() -> String {
    let mut body = String::new();
    // 3000 problems × 5 rollouts, problems interleaved in a fixed shuffle
    // (so they land in every shard), rollout indices descending for some.
    let mut rows = Vec::new();
    for p in 0..3000u64 {
        for r in 0..5u64 {
            let index = if p % 7 == 0 { 4 - r } else { r };
            rows.push(format!(
                "{{\"problem\": \"q{p}\", \"rollout\": {index}, \"correct\": {}, \"answer\": \"{}\"}}",
                (p + index) % 3 == 0,
                (p * 31 + index) % 4
            ));
        }
    }
    // Deterministic interleave: stride through the rows.
    let n = rows.len();
    for i in 0..n {
        body += &rows[(i * 7919) % n];
        body.push('\n');
    }
    body
}

fn collect(
    body: &str,
    opts: ReadOptions,
) -> Result<rollstat_io::Collected, rollstat_io::ReadError> {
    let mut c = Collector::new(opts);
    c.add(Input::from_bytes("mix.jsonl", body.as_bytes().to_vec()))?;
    c.finish()
}

/// Problems come out in order of first appearance, each with its rollouts
/// sorted by index, whichever shard folded them — checked against a
/// direct computation from the rows.
#[test]
fn sharded_fold_keeps_first_appearance_order_and_every_rollout() {
    let body = interleaved_input();
    let out = collect(&body, ReadOptions::default()).unwrap();
    let mut expected_order: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for line in body.lines() {
        let v: serde_json::Value = serde_json::from_str(line).unwrap();
        let p = v["problem"].as_str().unwrap().to_string();
        if seen.insert(p.clone()) {
            expected_order.push(p);
        }
    }
    let got: Vec<&str> = out.problems.iter().map(|p| p.problem.as_str()).collect();
    assert_eq!(got, expected_order);
    for p in &out.problems {
        let ProblemData::Rollouts(t) = &p.data else {
            panic!("rollouts")
        };
        let k: u64 = p.problem[1..].parse().unwrap();
        let idx: Vec<u64> = t.iter().map(|r| r.index).collect();
        assert_eq!(idx, vec![0, 1, 2, 3, 4], "{}", p.problem);
        for r in t.iter() {
            let want = (k + r.index) % 3 == 0;
            assert_eq!(r.verdict == rollstat_core::summary::Verdict::Correct, want);
            let a = ((k * 31 + r.index) % 4).to_string();
            assert_eq!(r.answer, rollstat_core::rollouts::AnswerRef::Text(&a));
        }
    }
}

/// The same rows give identical output with one thread and with two.
#[test]
fn fold_is_identical_for_any_thread_count() {
    let mut body = interleaved_input();
    body += "{\"problem\": \"q5\", \"rollout\": 2, \"correct\": true}\n";
    body += "not json\n";
    let run = |threads| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let out = collect(
                &body,
                ReadOptions {
                    dedupe: Some(rollstat_io::Dedupe::Last),
                    ..Default::default()
                },
            )
            .unwrap();
            format!(
                "{:?}|{:?}|{}",
                out.problems
                    .iter()
                    .map(|p| (&p.problem, &p.origin, &p.data))
                    .collect::<Vec<_>>(),
                out.bad_lines,
                out.n_duplicate_rollouts
            )
        })
    };
    let one = run(1);
    assert_eq!(one, run(2));
    assert!(one.contains("not json") || one.contains("invalid JSON"));
}

/// Under --strict the earliest bad row is the error, even when a later
/// row of another problem (another shard) is also bad.
#[test]
fn strict_reports_the_earliest_bad_row() {
    let mut body = String::new();
    for i in 0..200 {
        body += &format!("{{\"problem\": \"p{i}\", \"rollout\": 0, \"correct\": true}}\n");
    }
    // line 201: a count row for a problem that has rollouts (a fold error)
    body += "{\"problem\": \"p3\", \"n\": 4, \"c\": 1}\n";
    // line 202: a parse error
    body += "{\"problem\": \"p9\", \"correct\": \"maybe\"}\n";
    let err = collect(
        &body,
        ReadOptions {
            strict: true,
            ..Default::default()
        },
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.starts_with("mix.jsonl:201: problem 'p3' already has rows"),
        "{err}"
    );
    // Without --strict both are counted, in file order.
    let out = collect(&body, ReadOptions::default()).unwrap();
    let lines: Vec<u64> = out.bad_lines.iter().map(|b| b.line).collect();
    assert_eq!(lines, vec![201, 202]);
}

/// A duplicate's message names both rows, also when they are far apart.
#[test]
fn duplicates_name_both_rows() {
    let mut body = interleaved_input();
    body += "{\"problem\": \"q17\", \"rollout\": 3, \"correct\": false}\n";
    let err = collect(&body, ReadOptions::default())
        .unwrap_err()
        .to_string();
    let first = body
        .lines()
        .position(|l| l.contains("\"q17\"") && l.contains("\"rollout\": 3"))
        .unwrap()
        + 1;
    assert!(
        err.starts_with(&format!(
            "mix.jsonl:15001: problem 'q17' rollout 3 appears again (first at mix.jsonl:{first})"
        )),
        "{err}"
    );
}

/// A row longer than the read block (a 9 MB response) is read whole; the
/// rows around it keep their line numbers and the digest covers every byte.
#[test]
fn a_row_longer_than_the_block_is_read_whole() {
    let mut body = String::new();
    for i in 0..1000 {
        body += &format!("{{\"problem\": \"p{}\", \"correct\": true}}\n", i % 10);
    }
    body += &format!(
        "{{\"problem\": \"long\", \"correct\": false, \"response\": \"{}\"}}\n",
        "x".repeat(9 << 20)
    );
    for i in 0..1000 {
        body += &format!("{{\"problem\": \"q{}\", \"correct\": false}}\n", i % 10);
    }
    body += "{\"problem\": \"bad\", \"correct\": \"yes\"}\n";
    let digest = {
        use sha2::Digest;
        let d = sha2::Sha256::digest(body.as_bytes());
        d.iter().map(|b| format!("{b:02x}")).collect::<String>()
    };
    let mut c = Collector::new(ReadOptions::default());
    c.add(Input::from_bytes("long.jsonl", body.into_bytes()))
        .unwrap();
    let out = c.finish().unwrap();
    assert_eq!(out.inputs[0].sha256, digest);
    assert_eq!(out.inputs[0].records, 2002);
    assert_eq!(out.problems.len(), 21);
    assert_eq!(out.bad_lines.len(), 1);
    assert_eq!(out.bad_lines[0].line, 2002);
    assert_eq!(out.problems[10].problem, "long");
    assert_eq!(out.origin(out.problems[10].origin), "long.jsonl:1001");
}

/// A file concatenated twice: the first copy is stored densely (no line per
/// rollout), yet the duplicate message still names the exact earlier row.
#[test]
fn duplicate_of_a_densely_stored_row_names_its_line() {
    let mut once = String::new();
    for p in 0..3 {
        for r in 0..4 {
            once += &format!("{{\"problem\": \"p{p}\", \"rollout\": {r}, \"correct\": true}}\n");
        }
    }
    let twice = format!("{once}\n{once}");
    let err = collect(&twice, ReadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(
        err.starts_with("mix.jsonl:14: problem 'p0' rollout 0 appears again (first at mix.jsonl:1); 12 duplicated"),
        "{err}"
    );
    let out = collect(
        &twice,
        ReadOptions {
            dedupe: Some(rollstat_io::Dedupe::First),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(out.n_duplicate_rollouts, 12);
    assert!(out.problems.iter().all(|p| match &p.data {
        ProblemData::Rollouts(t) => t.len() == 4,
        _ => false,
    }));
}
