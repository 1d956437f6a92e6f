//! Compressed inputs may expand only so far (#10 item 10): a 1 MB
//! `.jsonl.gz` or `.eval` used to grow to gigabytes in memory. Past the
//! limit, reading stops (the decoder never runs further) and the error names
//! the file and the limit.

use rollstat_formats::{read_decoded_with, read_path_lenient_with, DecompressLimit, FormatError};
use std::io::Write;

/// `rows` canonical rows, gzip-compressed: repetitive, so they compress far
/// beyond 10×.
fn gz_rows(rows: usize) -> (Vec<u8>, usize) {
    let mut plain = Vec::new();
    for i in 0..rows {
        writeln!(plain, r#"{{"problem": "p{}", "correct": true}}"#, i % 10).unwrap();
    }
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(&plain).unwrap();
    (enc.finish().unwrap(), plain.len())
}

const TIGHT: DecompressLimit = DecompressLimit {
    max_ratio: 10,
    min_bytes: 4096,
};

#[test]
fn gzip_past_the_limit_is_an_error_naming_file_and_limit() {
    let (gz, plain_len) = gz_rows(20_000);
    assert!(plain_len > 10 * gz.len(), "the fixture must compress > 10×");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("rows.jsonl.gz");
    std::fs::write(&path, &gz).unwrap();
    let e = read_decoded_with(&path, TIGHT).unwrap_err();
    let text = e.to_string();
    assert!(matches!(e, FormatError::Parse { .. }), "{text}");
    assert!(text.contains("rows.jsonl.gz"), "{text}");
    assert!(text.contains("10× the compressed size"), "{text}");
    // Within a limit that fits, the content is whole.
    let ok = read_decoded_with(&path, DecompressLimit::total(plain_len as u64)).unwrap();
    assert_eq!(ok.content.len(), plain_len);
    let e = read_decoded_with(&path, DecompressLimit::total(plain_len as u64 - 1)).unwrap_err();
    assert!(e.to_string().contains("a total of"), "{e}");
}

#[test]
fn a_zip_archive_counts_every_entry_against_one_budget() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("log.eval");
    let file = std::fs::File::create(&path).unwrap();
    let mut zip = zip::ZipWriter::new(file);
    let opts = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    zip.start_file("header.json", opts).unwrap();
    zip.write_all(br#"{"eval": {"task": "t"}, "status": "success"}"#)
        .unwrap();
    // Each sample entry is small, but padding makes all of them together
    // expand far past 10× the archive.
    let pad = " ".repeat(50_000);
    for i in 0..8 {
        zip.start_file(format!("samples/{i}_epoch_1.json"), opts)
            .unwrap();
        write!(
            zip,
            r#"{{"id": {i}, "epoch": 1, "scores": {{"s": {{"value": "C"}}}}{pad}}}"#
        )
        .unwrap();
    }
    zip.finish().unwrap();
    let report = read_path_lenient_with(&path, None, TIGHT).unwrap();
    assert!(report.files.is_empty());
    let text = report.errors[0].to_string();
    assert!(
        text.contains("log.eval") && text.contains("decompresses to more than"),
        "{text}"
    );
    // The default limit reads it.
    let report = read_path_lenient_with(&path, None, DecompressLimit::default()).unwrap();
    assert_eq!(report.files.len(), 1, "{:?}", report.errors);
    assert_eq!(report.files[0].rows.len(), 8);
}
