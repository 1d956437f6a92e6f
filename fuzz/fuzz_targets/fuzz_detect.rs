//! Format detection and the native adapters on any bytes (also gzip/zstd
//! and ZIP, under a small decompression limit): an answer or a named error,
//! never a panic, and never more content than the limit allows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollstat_formats::{decode_bytes_with, detect_all, read_bytes_with, DecompressLimit};
use std::path::Path;

const NAMES: [&str; 8] = [
    "x.jsonl",
    "x.json",
    "x.csv",
    "x.eval",
    "x.parquet",
    "samples_t_2026.jsonl",
    "output-rs0.jsonl",
    "results_2026.json",
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, bytes)) = data.split_first() else {
        return;
    };
    let path = Path::new(NAMES[usize::from(pick) % NAMES.len()]);
    if let Ok(d) = detect_all(path, bytes) {
        assert!(!d.also_fits.contains(&d.format));
    }
    let limit = DecompressLimit::total(1 << 20);
    if let Ok(decoded) = decode_bytes_with(path, bytes.to_vec(), limit) {
        assert!(decoded.content.len() <= 1 << 20 || decoded.content == bytes);
        let _ = read_bytes_with(path, &decoded, None, limit);
    }
});
