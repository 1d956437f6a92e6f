//! Parses every line of a canonical JSONL file into the fields rollstat's
//! fast path reads, with serde_json, simd-json and sonic-rs, one thread,
//! and prints MB/s for each (median of 3 passes).

use serde::Deserialize;
use std::borrow::Cow;
use std::time::Instant;

#[derive(Deserialize)]
#[allow(dead_code)]
struct Row<'a> {
    #[serde(borrow)]
    problem: Cow<'a, str>,
    rollout: Option<u64>,
    correct: Option<bool>,
    #[serde(borrow)]
    answer: Option<Cow<'a, str>>,
    #[serde(borrow)]
    gold: Option<Cow<'a, str>>,
    #[serde(borrow)]
    finish_reason: Option<Cow<'a, str>>,
    output_tokens: Option<u64>,
}

fn time(name: &str, bytes: &[u8], mut f: impl FnMut() -> u64) {
    let mut runs: Vec<f64> = (0..3)
        .map(|_| {
            let t = Instant::now();
            let n = f();
            assert!(n > 0);
            t.elapsed().as_secs_f64()
        })
        .collect();
    runs.sort_by(f64::total_cmp);
    println!("{name}\t{:.0} MB/s", bytes.len() as f64 / runs[1] / 1e6);
}

fn main() {
    let path = std::env::args().nth(1).expect("JSONL file");
    let bytes = std::fs::read(path).expect("read");
    let lines: Vec<&[u8]> = bytes.split(|&b| b == b'\n').filter(|l| !l.is_empty()).collect();
    time("serde_json", &bytes, || {
        lines.iter().map(|l| serde_json::from_slice::<Row>(l).expect("row").rollout.unwrap_or(0) + 1).sum()
    });
    let mut scratch: Vec<u8> = Vec::new();
    time("simd-json", &bytes, || {
        let mut n = 0;
        for l in &lines {
            scratch.clear();
            scratch.extend_from_slice(l);
            let r: Row = simd_json::serde::from_slice(&mut scratch).expect("row");
            n += r.rollout.unwrap_or(0) + 1;
        }
        n
    });
    time("sonic-rs", &bytes, || {
        lines.iter().map(|l| sonic_rs::from_slice::<Row>(l).expect("row").rollout.unwrap_or(0) + 1).sum()
    });
}
