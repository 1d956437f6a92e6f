//! The streamed reader (`Collector::add`, blocks, shards, parallel parse)
//! against the all-at-once parse of the same bytes: the same rows read and
//! the same bad lines, and every line agrees across the three row paths.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollstat_io::{Collector, Input, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let at_once = Input::from_bytes("x.jsonl", data.to_vec()).parse_rows(Some("subset"), None);
    for line in data.split(|&b| b == b'\n') {
        let _ = rollstat_io::oracle::check_line(line, Some("subset"), None);
    }
    let mut c = Collector::new(ReadOptions {
        by: Some("subset".into()),
        dedupe: Some(rollstat_io::Dedupe::First),
        ..Default::default()
    });
    match c.add(Input::from_bytes("x.jsonl", data.to_vec())) {
        Ok(()) => {}
        Err(rollstat_io::ReadError::Empty { .. }) => {
            assert!(at_once.is_empty());
            return;
        }
        Err(e) => panic!("unexpected error: {e}"),
    }
    let streamed = c.finish().expect("dedupe keeps the first");
    assert_eq!(streamed.inputs[0].records, at_once.len() as u64);
    let bad_at_once: Vec<u64> = at_once
        .iter()
        .filter(|(_, r)| r.is_err())
        .map(|(l, _)| *l)
        .collect();
    let bad_streamed: Vec<u64> = streamed.bad_lines.iter().map(|b| b.line).collect();
    // The fold adds its own bad rows (a problem given as counts and as
    // rollouts); every parse failure is among them, in order.
    let mut it = bad_streamed.iter();
    for l in &bad_at_once {
        assert!(it.any(|s| s == l), "line {l} refused at once, not streamed");
    }
});
