//! Every entry point gives the same numbers on the same rows: report from a
//! path, from bytes and from typed rows; compare's A column and report(A);
//! one input with a system field and two inputs. Expected values in the
//! regression tests are derived by hand (exact fractions in the comments).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::rows::{RolloutRow, Row};
use rollstat::{compare, report, CompareOptions, IntervalMethod, ReportOptions, Source};
use std::path::PathBuf;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn opts() -> ReportOptions {
    let mut o = ReportOptions::default();
    o.intervals.resamples = 2000;
    o
}

fn value(r: &rollstat::Report, metric: &str) -> f64 {
    r.block
        .metrics
        .get(metric)
        .unwrap_or_else(|| panic!("no {metric}"))
        .value
}

/// Three problems whose answers `0.5`, `\frac12`, `3.0` are graded against
/// gold `0.5`, and one whose two `[invalid]` answers never vote beside a
/// correct `5`: pass@1 = (3·2/3 + 1/3)/4 = 7/12, maj@3 = 1 (the `0.5`
/// cluster of size 2 wins p1–p3; the lone `5` wins p4).
#[test]
fn graded_rows_and_junk_answers_in_report_and_compare() {
    let src = Source::Path(data("graded_junk.jsonl"));
    let r = report(std::slice::from_ref(&src), &opts()).unwrap();
    assert!((value(&r, "pass@1") - 7.0 / 12.0).abs() < 1e-15);
    assert_eq!(value(&r, "maj@3"), 1.0);
    assert_eq!(r.health.n_unextracted, 2);
    let c = compare(&[src.clone(), src], &CompareOptions::default()).unwrap();
    let row = |m: &str| {
        c.rows
            .iter()
            .find(|r| r.metric == m && r.group.is_none())
            .unwrap()
    };
    // The two bugs of the engine issue: compare graded by exact string
    // (pass@1 = 1/4) and let junk vote (maj@3 = 1/4).
    assert!((row("pass@1").a - 7.0 / 12.0).abs() < 1e-15);
    assert_eq!(row("maj@3").a, 1.0);
}

/// A richer input: graded rows, junk, a subset field and a cluster field.
fn mixed_rows() -> Vec<Row> {
    let mut rows = Vec::new();
    let answers = ["1/2", "0.5", "[invalid]", "2", "\\frac{1}{2}", "None"];
    for p in 0..40u64 {
        for i in 0..6u64 {
            let a = answers[((p * 7 + i * 3) % 6) as usize];
            let mut r = RolloutRow {
                problem: format!("q{p}"),
                rollout: Some(i),
                gold: Some(if p.is_multiple_of(3) {
                    "2".into()
                } else {
                    "0.5".into()
                }),
                answer: Some(Some(a.into())),
                ..Default::default()
            };
            r = r
                .field("subset", ["alg", "geo"][(p % 2) as usize])
                .field("template", format!("t{}", p % 8));
            rows.push(r.into());
        }
    }
    rows
}

fn to_jsonl(rows: &[Row]) -> Vec<u8> {
    rows.iter()
        .flat_map(|r| {
            let mut line = serde_json::to_vec(&r.to_map()).unwrap();
            line.push(b'\n');
            line
        })
        .collect()
}

/// Path, bytes and typed rows give the same metrics, intervals and health.
#[test]
fn report_is_the_same_from_a_path_bytes_and_rows() {
    let rows = mixed_rows();
    let bytes = to_jsonl(&rows);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mixed.jsonl");
    std::fs::write(&path, &bytes).unwrap();
    let mut o = opts();
    o.by = Some("subset".into());
    o.intervals.cluster_by = Some("template".into());
    let from_path = report(&[Source::Path(path)], &o).unwrap();
    let from_bytes = report(
        &[Source::Bytes {
            name: "mixed.jsonl".into(),
            bytes,
        }],
        &o,
    )
    .unwrap();
    let from_rows = report(
        &[Source::Rows {
            name: "rows".into(),
            rows,
        }],
        &o,
    )
    .unwrap();
    for other in [&from_bytes, &from_rows] {
        assert_eq!(from_path.block, other.block);
        assert_eq!(from_path.groups, other.groups);
        assert_eq!(from_path.health, other.health);
        assert_eq!(from_path.config, other.config);
    }
    assert!(from_path.block.metrics.get("pass@1").unwrap().ci.is_some());
}

/// compare's A column equals report(A) for every metric, overall and per
/// group (values and problem counts), with equivalence grading and junk.
#[test]
fn compare_a_column_equals_report_of_a() {
    let rows = mixed_rows();
    let a = Source::Rows {
        name: "A".into(),
        rows: rows.clone(),
    };
    let mut ro = opts();
    ro.by = Some("subset".into());
    let r = report(std::slice::from_ref(&a), &ro).unwrap();
    let mut co = CompareOptions::default();
    co.group_by = Some("subset".into());
    co.intervals.method = IntervalMethod::None;
    let c = compare(&[a.clone(), a], &co).unwrap();
    let mut checked = 0;
    for row in &c.rows {
        let block = match &row.group {
            None => &r.block,
            Some(g) => &r.groups.get(g).unwrap().block,
        };
        let e = block.metrics.get(&row.metric).unwrap();
        assert_eq!(row.a, e.value, "{} {:?}", row.metric, row.group);
        assert_eq!(row.n_problems, e.n_problems, "{}", row.metric);
        checked += 1;
    }
    // Every metric but distinct_answers and the selection gaps (pass@k −
    // maj@k: compare compares the two metrics themselves), overall and in
    // both groups.
    let gaps = r
        .block
        .metrics
        .iter()
        .filter(|(k, _)| k.contains("-maj@"))
        .count();
    assert!(gaps > 0);
    assert_eq!(checked, 3 * (r.block.metrics.len() - 1 - gaps));
}

/// One input told apart by `model` gives the rows of two inputs.
#[test]
fn one_input_by_model_equals_two_inputs() {
    let side = |model: &str, shift: u64| -> Vec<Row> {
        (0..30u64)
            .flat_map(|p| {
                (0..4u64).map(move |i| {
                    RolloutRow::new(format!("p{p}"), (p + i + shift).is_multiple_of(3))
                        .rollout(i)
                        .field("model", model)
                        .into()
                })
            })
            .collect()
    };
    let (a, b) = (side("base", 0), side("new", 1));
    let mut both = a.clone();
    both.extend(b.clone());
    let two = compare(
        &[
            Source::Rows {
                name: "A".into(),
                rows: a,
            },
            Source::Rows {
                name: "B".into(),
                rows: b,
            },
        ],
        &CompareOptions::default(),
    )
    .unwrap();
    let mut o = CompareOptions::default();
    o.by = Some("model".into());
    let one = compare(
        &[Source::Rows {
            name: "both".into(),
            rows: both,
        }],
        &o,
    )
    .unwrap();
    assert_eq!(two.rows, one.rows);
}

/// Library errors name options by field, never a command-line flag.
#[test]
fn errors_name_no_flags() {
    let mut o = ReportOptions::default();
    o.intervals.level = 1.5;
    let e = report(&[Source::Path(data("graded_junk.jsonl"))], &o).unwrap_err();
    assert_eq!(e.to_string(), "level: 1.5 is not in (0, 1)");
    let dup = Source::Bytes {
        name: "d.jsonl".into(),
        bytes: b"{\"problem\":\"p\",\"rollout\":0,\"correct\":true}\n{\"problem\":\"p\",\"rollout\":0,\"correct\":false}\n".to_vec(),
    };
    let e = report(&[dup], &ReportOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("d.jsonl:2"), "{e}");
    assert!(!e.contains("--"), "{e}");
    let e = compare(
        &[Source::Path(data("graded_junk.jsonl"))],
        &CompareOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.starts_with("by: "), "{e}");
    assert!(!e.contains("--"), "{e}");
}
