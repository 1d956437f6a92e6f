//! Regression tests of issue 30's defects (outside files a new user points
//! rollstat at): each on a small fixture, its expected numbers counted by
//! hand from the fixture (written beside each test).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

mod common;
use common::fixture;
use rollstat::{report, Error, Finding, IntervalMethod, Report, ReportOptions, Source};
use std::path::{Path, PathBuf};

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn options() -> ReportOptions {
    let mut o = ReportOptions::default();
    o.intervals.method = IntervalMethod::None;
    o
}

fn read_with(path: &Path, o: &ReportOptions) -> Result<Report, Error> {
    report(&[Source::Path(path.to_path_buf())], o)
}

fn pass1(r: &Report) -> f64 {
    r.block.metrics.get("pass@1").unwrap().value
}

fn group_pass1(r: &Report, group: &str) -> f64 {
    let g = r
        .groups
        .get(group)
        .unwrap_or_else(|| panic!("no group {group}"));
    g.block.metrics.get("pass@1").unwrap().value
}

/// Defect 1: a tau-bench results directory, one file per agent model and
/// domain (`tool-calling-<domain>-<model>-….json`), the two files sharing
/// task ids 0–2 and trials 0–3. Read from tau-bench's published gpt-4o
/// airline trajectories (tests/data/README.md): rewards per task, trials
/// 0..3 — airline 0: 0,0,0,0; 1: 0,1,0,0; 2: 0,0,1,0 → pass@1 (0 + ¼ + ¼)/3
/// = 1/6; the second file (tasks 10–12 as 0–2) 10: 0,0,0,0; 11: 1,0,0,0;
/// 12: 1,1,1,1 → (0 + ¼ + 1)/3 = 5/12. The rows carry the model and the
/// domain the names give: no duplicate, six problems, two systems.
#[test]
fn tau_bench_files_carry_their_model_and_domain() {
    let dir = data("tau_dir");
    let r = read_with(&dir, &options()).unwrap();
    assert_eq!(r.health.n_problems, 6);
    assert_eq!(r.health.n_duplicate_rollouts, 0);
    assert!((pass1(&r) - (1.0 / 6.0 + 5.0 / 12.0) / 2.0).abs() < 1e-12);
    let pooled = r.health.warnings.iter().find_map(|f| match f {
        Finding::PooledSystems { systems } => Some(systems.clone()),
        _ => None,
    });
    assert_eq!(
        pooled,
        Some(vec!["gpt-4o".to_string(), "gpt-4o-mini".to_string()])
    );
    let mut o = options();
    o.by = Some("subset".into());
    let r = read_with(&dir, &o).unwrap();
    assert!((group_pass1(&r, "airline") - 1.0 / 6.0).abs() < 1e-12);
    assert!((group_pass1(&r, "retail") - 5.0 / 12.0).abs() < 1e-12);
}

/// Defect 1, in general: rows without a system in two files collide; under
/// a dedupe policy the duplicates are resolved, and a typed finding names
/// the two inputs (each of the 2 files has problem p rollouts 0 and 1: 2
/// duplicates across inputs).
#[test]
fn duplicates_across_inputs_are_named_under_dedupe() {
    let dir = tempdir("cross");
    let row =
        |c: u8, i: u8| format!("{{\"problem\": \"p\", \"rollout\": {i}, \"correct\": {c}}}\n");
    std::fs::write(dir.join("a.jsonl"), row(1, 0) + &row(1, 1)).unwrap();
    std::fs::write(dir.join("b.jsonl"), row(0, 0) + &row(0, 1)).unwrap();
    let without = read_with(&dir, &options()).unwrap_err().to_string();
    assert!(without.contains("in another input"), "{without}");
    let mut o = options();
    o.metrics.dedupe = Some(rollstat::Dedupe::First);
    let r = read_with(&dir, &o).unwrap();
    let found = r.health.warnings.iter().find_map(|f| match f {
        Finding::DuplicatesAcrossInputs { n, first, again } => {
            Some((*n, first.clone(), again.clone()))
        }
        _ => None,
    });
    let (n, first, again) = found.expect("a duplicates_across_inputs finding");
    assert_eq!(n, 2);
    assert!(
        first.ends_with("a.jsonl") && again.ends_with("b.jsonl"),
        "{first} {again}"
    );
    // first kept: a's rows, both correct.
    assert_eq!(pass1(&r), 1.0);
}

/// Defect 5: `--from canonical` on canonical rows written as one JSON list
/// (pretty-printed): read as rows, each numbered by its line; a broken
/// document is one error, not one per line.
#[test]
fn canonical_rows_as_one_json_document() {
    let dir = tempdir("doc");
    let path = dir.join("rows.json");
    std::fs::write(
        &path,
        "[\n  {\"problem\": \"a\", \"correct\": 1},\n  {\"problem\": \"a\", \"correct\": 0},\n  {\"problem\": \"b\", \"correct\": 1}\n]\n",
    )
    .unwrap();
    let r = read_with(&path, &options()).unwrap();
    // a: 1 of 2, b: 1 of 1 → (½ + 1)/2 = ¾.
    assert_eq!(r.health.n_problems, 2);
    assert_eq!(pass1(&r), 0.75);
    let broken = dir.join("broken.json");
    std::fs::write(
        &broken,
        "[\n  {\"problem\": \"a\", \"correct\": 1},\n  {\"problem\": \n",
    )
    .unwrap();
    let e = read_with(&broken, &options()).unwrap_err().to_string();
    assert_eq!(e.matches("broken.json").count(), 1, "{e}");
}

/// Defect 10: `by` naming a field no row has gives one "(none)" group and
/// says so.
#[test]
fn a_breakdown_field_no_row_has_is_named() {
    let demo = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/demo.jsonl");
    let mut o = options();
    o.by = Some("no_such_field".into());
    let r = read_with(&demo, &o).unwrap();
    assert!(r.groups.get("(none)").is_some());
    assert!(r
        .health
        .warnings
        .iter()
        .any(|f| matches!(f, Finding::FieldAbsent { option, field } if option == "by" && field == "no_such_field")));
}

/// Defect 10: rows of several subsets headline one pooled number, and say
/// so (two subsets, s1 and s2).
#[test]
fn pooled_subsets_are_named() {
    let dir = tempdir("subsets");
    let path = dir.join("rows.jsonl");
    std::fs::write(
        &path,
        "{\"problem\": \"a\", \"subset\": \"s1\", \"correct\": 1}\n{\"problem\": \"a\", \"subset\": \"s2\", \"correct\": 0}\n",
    )
    .unwrap();
    let r = read_with(&path, &options()).unwrap();
    let subsets = r.health.warnings.iter().find_map(|f| match f {
        Finding::PooledSubsets { subsets } => Some(subsets.clone()),
        _ => None,
    });
    assert_eq!(subsets, Some(vec!["s1".to_string(), "s2".to_string()]));
}

/// Defect 2: lm-eval's `score-first` and `maj@4` filters of one
/// self-consistency task are two readings of one system: said so (with the
/// field, `run`, that tells them apart), not "2 systems"; per `run` they
/// are the two groups.
#[test]
fn lm_eval_filters_are_readings_of_one_system() {
    let path = fixture("lm_eval/samples_gsm8k_sc_2026-01-02T03-04-05.678901.jsonl");
    let r = read_with(&path, &options()).unwrap();
    let readings = r.health.warnings.iter().find_map(|f| match f {
        Finding::Readings {
            what,
            field,
            values,
        } => Some((what.clone(), field.clone(), values.clone())),
        _ => None,
    });
    assert_eq!(
        readings,
        Some((
            "filter".to_string(),
            "run".to_string(),
            vec!["maj@4".to_string(), "score-first".to_string()]
        ))
    );
    assert!(
        !r.health
            .warnings
            .iter()
            .any(|f| matches!(f, Finding::PooledSystems { .. })),
        "{:?}",
        r.health.warnings
    );
    let mut o = options();
    o.by = Some("run".into());
    let r = read_with(&path, &o).unwrap();
    let names: Vec<&str> = r.groups.0.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, ["maj@4", "score-first"]);
}

/// Defect 4: an lm-eval results json with embedded samples and a group
/// (`ai2_arc`, lm-eval's mean of arc_easy 0.75 and arc_challenge 0.25 =
/// 0.5, written into the copy here as lm-eval writes groups): the group's
/// number is not reconciled against the rows (no false "disagrees"), and
/// the embedded reading reconciles the same aggregates as the
/// split-directory reading of the same run.
#[test]
fn lm_eval_group_aggregates_are_not_reconciled_against_rows() {
    let src = fixture("lm_eval_two_tasks");
    let mut doc = common::lm_eval_results_with_samples();
    doc["results"]["ai2_arc"] = serde_json::json!({"alias": "ai2_arc", "acc,none": 0.5});
    doc["group_subtasks"] = serde_json::json!({"ai2_arc": ["arc_easy", "arc_challenge"]});
    let dir = tempdir("lm_group");
    let path = dir.join("results.json");
    std::fs::write(&path, doc.to_string()).unwrap();
    let embedded = read_with(&path, &options()).unwrap();
    let beside = read_with(&src, &options()).unwrap();
    let names = |r: &Report| {
        let mut v: Vec<(String, String)> = r
            .harness
            .iter()
            .map(|h| (h.harness_metric.clone(), h.harness_value.to_string()))
            .collect();
        v.sort();
        v
    };
    assert_eq!(names(&embedded), names(&beside));
    assert!(
        embedded.harness.iter().all(|h| h.agrees != Some(false)),
        "{:?}",
        embedded.harness
    );
    assert!(embedded
        .health
        .warnings
        .iter()
        .any(|f| f.to_string().contains("ai2_arc")));
}

/// An inspect JSON log: `status`, `epochs`, the dataset's size, and
/// samples `(id, epoch, value)`.
fn inspect_log(
    status: &str,
    run_id: &str,
    epochs: u64,
    dataset: u64,
    samples: &[(u64, u64, &str)],
) -> String {
    let samples: Vec<String> = samples
        .iter()
        .map(|(id, epoch, v)| {
            format!(
                r#"{{"id": {id}, "epoch": {epoch}, "input": "q", "target": "4", "scores": {{"match": {{"value": "{v}", "answer": "4"}}}}}}"#
            )
        })
        .collect();
    format!(
        r#"{{"version": 2, "status": "{status}", "eval": {{"run_id": "{run_id}", "task": "arith", "model": "m", "config": {{"epochs": {epochs}}}, "dataset": {{"name": "arith", "samples": {dataset}}}}}, "samples": [{}]}}"#,
        samples.join(", ")
    )
}

/// Defect 3: a cancelled inspect run of 4 epochs over 5 samples, of which
/// 3 ran once, is incomplete: the finding gives expected against present
/// (5 samples declared, 3 present, each with 1 of 4 epochs), and strict
/// mode refuses it.
#[test]
fn a_cancelled_inspect_run_is_incomplete() {
    let dir = tempdir("cancelled");
    let path = dir.join("log.json");
    let log = inspect_log(
        "cancelled",
        "r1",
        4,
        5,
        &[(1, 1, "C"), (2, 1, "I"), (3, 1, "C")],
    );
    std::fs::write(&path, log).unwrap();
    let r = read_with(&path, &options()).unwrap();
    let found = r.health.warnings.iter().find_map(|f| match f {
        Finding::IncompleteRun {
            status,
            expected,
            present,
            rollouts,
            short,
            ..
        } => Some((status.clone(), *expected, *present, *rollouts, *short)),
        _ => None,
    });
    assert_eq!(
        found,
        Some((Some("cancelled".to_string()), Some(5), 3, Some(4), 3))
    );
    let mut o = options();
    o.metrics.strict = true;
    let e = read_with(&path, &o).unwrap_err();
    assert!(matches!(e, Error::IncompleteRun(_)), "{e}");
    // A finished run of every declared sample and epoch has no finding.
    let whole = inspect_log("success", "r1", 1, 2, &[(1, 1, "C"), (2, 1, "I")]);
    std::fs::write(&path, whole).unwrap();
    let r = read_with(&path, &options()).unwrap();
    assert!(!r
        .health
        .warnings
        .iter()
        .any(|f| matches!(f, Finding::IncompleteRun { .. })));
}

/// Defect 8: two logs of one task in inspect's `logs/` directory are two
/// runs (`run` = `eval.run_id`), not duplicates: 2 problems × 2 runs, run
/// r1 1 of 2 correct, run r2 2 of 2 → pooled pass@1 ¾.
#[test]
fn two_inspect_logs_of_one_task_are_two_runs() {
    let dir = tempdir("logs");
    let a = inspect_log("success", "r1", 1, 2, &[(1, 1, "C"), (2, 1, "I")]);
    let b = inspect_log("success", "r2", 1, 2, &[(1, 1, "C"), (2, 1, "C")]);
    std::fs::write(dir.join("2026-01-01_arith_a.json"), a).unwrap();
    std::fs::write(dir.join("2026-01-02_arith_b.json"), b).unwrap();
    let r = read_with(&dir, &options()).unwrap();
    assert_eq!(r.health.n_problems, 4);
    assert_eq!(pass1(&r), 0.75);
    let mut o = options();
    o.by = Some("run".into());
    let r = read_with(&dir, &o).unwrap();
    assert_eq!(group_pass1(&r, "r1"), 0.5);
    assert_eq!(group_pass1(&r, "r2"), 1.0);
}

/// A fresh directory for one test.
fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("rollstat-issue30-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Defect 7: Parquet bytes of canonical rows (standard input, or a
/// decompressed `rows.parquet.zst`) are rows, not lighteval details:
/// problems a (1, 0) and b (1) → pass@1 (½ + 1)/2 = ¾.
#[cfg(feature = "parquet")]
#[test]
fn parquet_bytes_of_canonical_rows_are_rows() {
    use arrow_array::{ArrayRef, Int64Array, RecordBatch, StringArray};
    use std::sync::Arc;
    let problem: ArrayRef = Arc::new(StringArray::from(vec!["a", "a", "b"]));
    let correct: ArrayRef = Arc::new(Int64Array::from(vec![1, 0, 1]));
    let batch = RecordBatch::try_from_iter([("problem", problem), ("correct", correct)]).unwrap();
    let mut bytes = Vec::new();
    let mut w = parquet::arrow::ArrowWriter::try_new(&mut bytes, batch.schema(), None).unwrap();
    w.write(&batch).unwrap();
    w.close().unwrap();
    let source = Source::Bytes {
        name: "rows".into(),
        bytes,
    };
    let r = report(&[source], &options()).unwrap();
    assert_eq!(r.health.n_problems, 2);
    assert_eq!(pass1(&r), 0.75);
}

/// Defect 6: an inspect log whose header names a scorer but whose samples
/// carry no score, with Yes/No targets, is refused under the math
/// extraction (every answer would be unextracted: 0%), naming the
/// extraction that reads them; graded with it, the outputs "Yes, it is." /
/// "I think yes" / "No." / "The answer is no" against Yes, No, No, Yes are
/// right, wrong, right, wrong: pass@1 ½.
#[test]
fn unscored_yes_no_targets_name_their_extraction() {
    let dir = tempdir("yesno");
    let path = dir.join("log.json");
    let sample = |id: u64, target: &str, out: &str| {
        format!(
            r#"{{"id": {id}, "epoch": 1, "input": "q", "target": "{target}", "output": {{"choices": [{{"message": {{"role": "assistant", "content": "{out}"}}}}]}}}}"#
        )
    };
    let samples = [
        sample(1, "Yes", "Yes, it is."),
        sample(2, "No", "I think yes"),
        sample(3, "No", "No."),
        sample(4, "Yes", "The answer is no"),
    ];
    let log = format!(
        r#"{{"version": 2, "status": "success", "eval": {{"run_id": "r", "task": "t", "model": "m", "config": {{"epochs": 1}}, "dataset": {{"samples": 4}}}}, "results": {{"scores": [{{"name": "model_graded_qa", "metrics": {{}}}}]}}, "samples": [{}]}}"#,
        samples.join(", ")
    );
    std::fs::write(&path, log).unwrap();
    let e = read_with(&path, &options()).unwrap_err();
    let Error::ExtractionNeeded {
        targets, extract, ..
    } = e
    else {
        panic!("{e}")
    };
    assert_eq!(targets, "Yes/No");
    let mut o = options();
    o.grading = rollstat::GradingPolicy::new(&extract, rollstat::Match::Equivalent).unwrap();
    let r = read_with(&path, &o).unwrap();
    assert_eq!(pass1(&r), 0.5);
}

/// Defect 10: a lighteval results file alone (aggregates, no per-sample
/// rows) is told to pass lighteval's details parquet, not lm-eval samples.
#[test]
fn aggregates_only_input_names_its_harness_per_sample_files() {
    let path = fixture("lighteval/results/org__model/results_2026-01-02T03-04-05.678901.json");
    let e = read_with(&path, &options()).unwrap_err().to_string();
    assert!(e.contains("lighteval details parquet"), "{e}");
    assert!(!e.contains("lm-eval"), "{e}");
}
