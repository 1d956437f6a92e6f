//! The command line and the engine library give the same numbers on the
//! same rows: report.json and compare.json read back into the typed
//! documents equal what `rollstat::report` / `rollstat::compare` return.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

mod common;
use common::{root, run, success};
use rollstat::{compare, report, CompareOptions, Comparison, Report, ReportOptions, Source};

fn cli(args: &[&str]) -> Vec<u8> {
    success(run(args)).stdout
}

const JUNK: &str = "crates/rollstat/tests/data/graded_junk.jsonl";

#[test]
fn report_json_equals_the_library_report() {
    for file in ["examples/demo.jsonl", JUNK] {
        let out = cli(&["report", file, "--format", "json", "--by", "problem"]);
        let from_cli: Report = serde_json::from_slice(&out).expect("typed report.json");
        let mut o = ReportOptions::default();
        o.by = Some("problem".into());
        let lib = report(&[Source::Path(root().join(file))], &o).unwrap();
        assert_eq!(from_cli.block, lib.block, "{file}");
        assert_eq!(from_cli.config, lib.config, "{file}");
        for ((name, g), (_, h)) in from_cli.groups.iter().zip(lib.groups.iter()) {
            assert_eq!(g.block, h.block, "{file} group {name}");
        }
    }
}

/// The library's rows as compare.json carries them: without the
/// per-problem values (`Row.per_problem` is kept out of the JSON).
fn as_in_json(rows: &[rollstat::CompareRow]) -> Vec<rollstat::CompareRow> {
    let mut rows = rows.to_vec();
    for r in &mut rows {
        r.per_problem.clear();
    }
    rows
}

#[test]
fn compare_json_equals_the_library_comparison() {
    let out = cli(&[
        "compare", JUNK, JUNK, "--format", "json", "--margin", "0.05",
    ]);
    let from_cli: Comparison = serde_json::from_slice(&out).expect("typed compare.json");
    let mut o = CompareOptions::default();
    o.margin = Some(0.05);
    let src = Source::Path(root().join(JUNK));
    let lib = compare(&[src.clone(), src], &o).unwrap();
    assert!(lib.rows.iter().any(|r| !r.per_problem.is_empty()));
    assert_eq!(from_cli.rows, as_in_json(&lib.rows));
    // pass@1 of A is 7/12 on both paths (graded by equivalence, junk unextracted).
    let p1 = from_cli.rows.iter().find(|r| r.metric == "pass@1").unwrap();
    assert!((p1.a - 7.0 / 12.0).abs() < 1e-15);
}

/// `--extrapolate` gives the library's extrapolation block; K = 0 is a
/// usage error naming the flag.
#[test]
fn extrapolation_equals_the_library_block() {
    let file = "crates/rollstat/tests/data/tot_game24_gpt4_cot.jsonl";
    let out = cli(&[
        "report",
        file,
        "--format",
        "json",
        "--extrapolate",
        "200,1000",
        "--resamples",
        "500",
    ]);
    let from_cli: Report = serde_json::from_slice(&out).expect("typed report.json");
    let mut o = ReportOptions::default();
    o.extrapolate = vec![200, 1000];
    o.intervals.resamples = 500;
    let lib = report(&[Source::Path(root().join(file))], &o).unwrap();
    assert!(lib.extrapolation.is_some());
    assert_eq!(from_cli.extrapolation, lib.extrapolation);
    let table = String::from_utf8(cli(&[
        "report",
        file,
        "--extrapolate",
        "200",
        "--resamples",
        "500",
    ]))
    .unwrap();
    assert!(
        table.contains("pass@200_fit") && table.contains("model-based"),
        "{table}"
    );
    let o = run(&["report", file, "--extrapolate", "0"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--extrapolate"));
}

/// `--budget`: the budget metrics, the health budget and the
/// budget-matched compare rows are the library's.
#[test]
fn budgets_equal_the_library() {
    let (a, b) = ("examples/budget_short.jsonl", "examples/budget_long.jsonl");
    let out = cli(&["report", b, "--format", "json", "--resamples", "500"]);
    let from_cli: Report = serde_json::from_slice(&out).expect("typed report.json");
    let mut o = ReportOptions::default();
    o.intervals.resamples = 500;
    let lib = report(&[Source::Path(root().join(b))], &o).unwrap();
    assert!(lib.block.metrics.get("cost_of_pass@1").is_some());
    assert_eq!(from_cli.block, lib.block);
    assert_eq!(from_cli.health.budget, lib.health.budget);
    let args = [
        "compare",
        a,
        b,
        "--budget",
        "output_tokens",
        "--k",
        "1,2",
        "--resamples",
        "500",
        "--format",
        "json",
    ];
    let from_cli: Comparison = serde_json::from_slice(&cli(&args)).expect("typed compare.json");
    let mut o = CompareOptions::default();
    o.metrics.budget = rollstat::Budget::Field("output_tokens".into());
    o.metrics.k = Some(vec![1, 2]);
    o.intervals.resamples = 500;
    let sources = [Source::Path(root().join(a)), Source::Path(root().join(b))];
    let lib = compare(&sources, &o).unwrap();
    assert!(lib.rows.iter().any(|r| r.budget_matched.is_some()));
    assert_eq!(from_cli.rows, as_in_json(&lib.rows));
}
