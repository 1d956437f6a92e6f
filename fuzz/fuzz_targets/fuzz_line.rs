//! One JSON Lines row on every path: scanner = serde = general path
//! (`rollstat_io::oracle::check_line` panics on any disagreement). The first
//! byte picks the `--by` and `--cluster-by` fields.
#![no_main]

use libfuzzer_sys::fuzz_target;

const FIELDS: [Option<&str>; 6] = [
    None,
    Some("subset"),
    Some("group"),
    Some("model"),
    Some("run"),
    Some("level"),
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, line)) = data.split_first() else {
        return;
    };
    let by = FIELDS[usize::from(pick % 6)];
    let cluster_by = FIELDS[usize::from(pick / 6 % 6)];
    let _ = rollstat_io::oracle::check_line(line, by, cluster_by);
});
