//! A file that fits two formats (#10 item 5): canonical rows that also
//! carry lm-eval sample keys were read as lm-eval, ignoring the
//! `problem`/`correct` they state (pass@1 0.75 instead of 0.25). Canonical
//! rows win over a native format of one record per line, whole documents
//! keep their format, and the report says which was chosen.

use rollstat::{report, ReportOptions, Source};
use rollstat_formats::{detect_all, Format};
use std::path::Path;

/// p1 is correct and p2–p4 wrong by `correct`; lm-eval's own
/// `exact_match` says the opposite for p2–p4, so reading the rows as
/// lm-eval would give 3/4.
const ROWS: &str = r#"{"problem": "p1", "correct": true, "doc_id": 0, "resps": [["1"]], "filtered_resps": ["1"], "target": "1", "filter": "strict-match", "metrics": ["exact_match"], "exact_match": 0.0}
{"problem": "p2", "correct": false, "doc_id": 1, "resps": [["2"]], "filtered_resps": ["2"], "target": "2", "filter": "strict-match", "metrics": ["exact_match"], "exact_match": 1.0}
{"problem": "p3", "correct": false, "doc_id": 2, "resps": [["3"]], "filtered_resps": ["3"], "target": "3", "filter": "strict-match", "metrics": ["exact_match"], "exact_match": 1.0}
{"problem": "p4", "correct": false, "doc_id": 3, "resps": [["4"]], "filtered_resps": ["4"], "target": "4", "filter": "strict-match", "metrics": ["exact_match"], "exact_match": 1.0}
"#;

fn pass1(r: &rollstat::Report) -> f64 {
    r.block.metrics.get("pass@1").unwrap().value
}

#[test]
fn canonical_rows_with_lm_eval_keys_are_read_as_canonical() {
    let d = detect_all(Path::new("samples_x.jsonl"), ROWS.as_bytes()).unwrap();
    assert_eq!(d.format, Format::CanonicalJsonl);
    assert_eq!(d.also_fits, [Format::LmEvalSamples]);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("samples_x.jsonl");
    std::fs::write(&path, ROWS).unwrap();
    let opts = ReportOptions::default();
    // The file named directly, and met in a directory walk.
    for src in [Source::Path(path.clone()), Source::Path(dir.path().into())] {
        let r = report(&[src], &opts).unwrap();
        assert_eq!(pass1(&r), 0.25);
        let said: Vec<String> = r.health.warnings.iter().map(|w| w.to_string()).collect();
        assert!(
            said.iter()
                .any(|w| w.contains("fits canonical-jsonl and lm-eval-samples")
                    && w.contains("read as canonical-jsonl")),
            "{said:?}"
        );
    }
    // Bytes (stdin) take the same rule.
    let r = report(
        &[Source::Bytes {
            name: "rows.jsonl".into(),
            bytes: ROWS.as_bytes().to_vec(),
        }],
        &opts,
    )
    .unwrap();
    assert_eq!(pass1(&r), 0.25);
}

#[test]
fn a_named_native_format_still_reads_the_harness_fields() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("samples_x.jsonl");
    std::fs::write(&path, ROWS).unwrap();
    let opts = ReportOptions {
        source_format: Some(Format::LmEvalSamples),
        ..Default::default()
    };
    let r = report(&[Source::Path(path)], &opts).unwrap();
    assert_eq!(pass1(&r), 0.75);
    assert!(r
        .health
        .warnings
        .iter()
        .all(|w| !w.to_string().contains("fits canonical-jsonl")));
}

/// A MathArena per-problem document also has `problem` (its statement) and
/// per-answer fields; it stays MathArena, and says it also fits canonical.
#[test]
fn a_matharena_document_keeps_its_format() {
    let doc = r#"{"idx": 5, "problem": "Find y.", "gold_answer": 70, "answers": ["70", "None"],
                  "correct": [true, false], "N": 2}"#;
    let d = detect_all(Path::new("5.json"), doc.as_bytes()).unwrap();
    assert_eq!(d.format, Format::MathArena);
    assert_eq!(d.also_fits, [Format::CanonicalJsonl]);
}
