//! Gradings the work limit left undecided (#10 item 7 follow-up): `grade`
//! writes `correct: null` (not `false`) with a reason, `compare` counts
//! them per side as `report` does, and a graded file reads back with the
//! same numbers as the raw one.

use rollstat::grade::{grade_line, LineOutcome};
use rollstat::{compare, report, CompareOptions, GradingPolicy, ReportOptions, Source};

/// p1: gold `615!^3^32` vs `0` is past the per-pair work limit (the
/// grading policy's doctest: `judge` is `None`), `1/2` vs `0.5` is correct;
/// p2: `3` vs `3` correct, `3` vs `4` wrong. Requested denominator: the
/// undecided rollout counts as wrong, pass@1 = (1/2 + 1/2)/2 = 1/2.
const RAW: &str = r#"{"problem": "p1", "gold": "615!^3^32", "answer": "0"}
{"problem": "p1", "gold": "1/2", "answer": "0.5"}
{"problem": "p2", "gold": "3", "answer": "3"}
{"problem": "p2", "gold": "3", "answer": "4"}
"#;

/// The same problems, every pair decided: p1 both correct, p2 as above →
/// pass@1 = (1 + 1/2)/2 = 3/4.
const DECIDED: &str = r#"{"problem": "p1", "gold": "2", "answer": "2"}
{"problem": "p1", "gold": "1/2", "answer": "0.5"}
{"problem": "p2", "gold": "3", "answer": "3"}
{"problem": "p2", "gold": "3", "answer": "4"}
"#;

fn bytes(name: &str, text: &str) -> Source {
    Source::Bytes {
        name: name.into(),
        bytes: text.as_bytes().to_vec(),
    }
}

fn graded(text: &str) -> String {
    let g = GradingPolicy::default();
    text.lines()
        .map(|l| match grade_line(l, &g) {
            LineOutcome::Graded(s, _) => s + "\n",
            other => panic!("{other:?}"),
        })
        .collect()
}

#[test]
fn compare_counts_undecided_gradings_per_side_as_report_does() {
    let r = report(&[bytes("raw.jsonl", RAW)], &ReportOptions::default()).unwrap();
    assert_eq!(r.health.n_grading_undecided, 1);
    assert_eq!(r.health.n_failed, 1);
    assert_eq!(r.block.metrics.get("pass@1").unwrap().value, 0.5);
    let said: Vec<String> = r.health.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter()
            .any(|w| w.starts_with("1 answer comparisons were not decided")),
        "{said:?}"
    );

    let c = compare(
        &[bytes("a.jsonl", RAW), bytes("b.jsonl", DECIDED)],
        &CompareOptions::default(),
    )
    .unwrap();
    assert_eq!((c.a.n_grading_undecided, c.b.n_grading_undecided), (1, 0));
    let row = c.rows.iter().find(|r| r.metric == "pass@1").unwrap();
    assert_eq!(row.delta, 0.25); // 3/4 − 1/2
    let said: Vec<String> = c.warnings.iter().map(|w| w.to_string()).collect();
    assert!(
        said.iter()
            .any(|w| w.starts_with("A: 1 answer comparisons")),
        "{said:?}"
    );
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["a"]["n_grading_undecided"], 1);
    assert_eq!(json["b"]["n_grading_undecided"], 0);

    // Swapped sides: the count follows the input.
    let c = compare(
        &[bytes("a.jsonl", DECIDED), bytes("b.jsonl", RAW)],
        &CompareOptions::default(),
    )
    .unwrap();
    assert_eq!((c.a.n_grading_undecided, c.b.n_grading_undecided), (0, 1));
}

#[test]
fn a_graded_file_reads_back_with_the_raw_numbers() {
    let out = graded(RAW);
    let first = out.lines().next().unwrap();
    let row: serde_json::Value = serde_json::from_str(first).unwrap();
    assert_eq!(row["correct"], serde_json::Value::Null);
    assert!(row["grading_undecided"]
        .as_str()
        .unwrap()
        .contains("work limit"));
    let from_raw = report(&[bytes("raw.jsonl", RAW)], &ReportOptions::default()).unwrap();
    let from_graded = report(&[bytes("graded.jsonl", &out)], &ReportOptions::default()).unwrap();
    for name in ["pass@1", "pass@2"] {
        assert_eq!(
            from_raw.block.metrics.get(name).unwrap().value,
            from_graded.block.metrics.get(name).unwrap().value,
            "{name}"
        );
    }
    assert_eq!(from_graded.health.n_failed, 1);
}
