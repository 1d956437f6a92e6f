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
