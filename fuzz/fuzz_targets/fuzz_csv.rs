//! Canonical CSV: any bytes give rows or named bad rows, never a panic, and
//! the collector agrees with the all-at-once parse on how many rows it read.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollstat_io::{Collector, Input, ReadOptions};

fuzz_target!(|data: &[u8]| {
    let rows = Input::from_bytes("x.csv", data.to_vec()).parse_rows(Some("level"), Some("group"));
    let mut c = Collector::new(ReadOptions {
        by: Some("level".into()),
        cluster_by: Some("group".into()),
        dedupe: Some(rollstat_io::Dedupe::Last),
        ..Default::default()
    });
    match c.add(Input::from_bytes("x.csv", data.to_vec())) {
        Ok(()) => {
            let got = c.finish().expect("dedupe keeps the last");
            assert_eq!(got.inputs[0].records, rows.len() as u64);
        }
        Err(rollstat_io::ReadError::Empty { .. }) => assert!(rows.is_empty()),
        Err(e) => panic!("unexpected error: {e}"),
    }
});
