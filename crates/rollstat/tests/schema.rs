//! The wire formats read back into the typed documents, rejecting unknown
//! fields, and write out byte for byte as they were read.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{
    compare, power, report, CompareOptions, PowerOptions, Report, ReportOptions, Source,
};
use std::path::PathBuf;

fn path(rel: &str) -> Source {
    Source::Path(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel))
}

/// Equal texts, or the first line that differs.
fn same_text(got: &str, want: &str) {
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {} differs", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count());
}

fn roundtrip_report(r: &Report) -> Report {
    let text = r.to_json();
    let back: Report = serde_json::from_str(&text).expect("report.json reads back");
    same_text(&back.to_json(), &text);
    back
}

#[test]
fn bundled_example_reads_back_in_every_shape() {
    let demo = path("../../examples/demo.jsonl");
    let mut o = ReportOptions::default();
    o.intervals.resamples = 500;
    let plain = report(std::slice::from_ref(&demo), &o).unwrap();
    let back = roundtrip_report(&plain);
    assert_eq!(back.block, plain.block);
    assert_eq!(back.config, plain.config);
    o.per_problem = true;
    o.by = Some("problem".into());
    o.intervals.method = "wilson".parse().unwrap();
    roundtrip_report(&report(std::slice::from_ref(&demo), &o).unwrap());
}

#[test]
fn native_inputs_with_harness_numbers_read_back() {
    let r = report(
        &[path("../rollstat-formats/tests/fixtures/lm_eval")],
        &ReportOptions::default(),
    )
    .unwrap();
    assert!(!r.harness.is_empty());
    roundtrip_report(&r);
}

#[test]
fn unknown_fields_are_rejected() {
    let demo = path("../../examples/demo.jsonl");
    let r = report(&[demo], &ReportOptions::default()).unwrap();
    let mut v = serde_json::to_value(&r).unwrap();
    v["metrics"]["pass@1"]["surprise"] = serde_json::json!(1);
    assert!(serde_json::from_value::<Report>(v.clone()).is_err());
    let mut v2 = serde_json::to_value(&r).unwrap();
    v2["extra"] = serde_json::json!(true);
    assert!(serde_json::from_value::<Report>(v2).is_err());
}

#[test]
fn comparison_and_power_read_back() {
    let a = path("../rollstat-cli/tests/fixtures/compare/a.jsonl");
    let b = path("../rollstat-cli/tests/fixtures/compare/b.jsonl");
    let mut o = CompareOptions::default();
    o.margin = Some(0.05);
    o.intervals.resamples = 500;
    let c = compare(&[a, b], &o).unwrap();
    let text = serde_json::to_string_pretty(&c).unwrap();
    let back: rollstat::Comparison = serde_json::from_str(&text).unwrap();
    same_text(&serde_json::to_string_pretty(&back).unwrap(), &text);
    let r = report(
        &[path("../../examples/demo.jsonl")],
        &ReportOptions::default(),
    )
    .unwrap();
    let p = power(&PowerOptions::default(), Some(("demo", &r))).unwrap();
    let text = serde_json::to_string(&p).unwrap();
    let back: rollstat::PowerReport = serde_json::from_str(&text).unwrap();
    assert_eq!(back, p);
}
