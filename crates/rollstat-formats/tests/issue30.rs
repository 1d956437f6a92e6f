//! Regression tests of issue 30's defects in the adapters: what each file
//! declares beside its rows, JSON documents where JSON Lines were expected,
//! and the wording of unscored logs and unrecognised files.

use std::path::{Path, PathBuf};

use rollstat_formats::{read_path, DetectError, Format, FormatError, NativeFile};
use serde_json::json;

fn fixture(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(rel)
}

fn tempdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "rollstat-formats-issue30-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn read_one(path: &Path, from: Option<Format>) -> Result<NativeFile, FormatError> {
    read_path(path, from).map(|mut f| f.remove(0))
}

/// Defect 1: a tau-bench (v1) list named as `run.py` names its results
/// carries the model and the domain of the name on every row.
#[test]
fn tau_bench_rows_carry_the_named_model_and_domain() {
    let dir = tempdir("tau");
    let path = dir.join("tool-calling-retail-gpt-4o-mini-0.0_range_0-2_user-gpt-4o-llm_0101.json");
    let rows = json!([
        {"task_id": 0, "reward": 1.0, "info": {}, "traj": [], "trial": 0},
        {"task_id": 1, "reward": 0.0, "info": {}, "traj": [], "trial": 0}
    ]);
    std::fs::write(&path, rows.to_string()).unwrap();
    let f = read_one(&path, None).unwrap();
    assert_eq!(f.format, Format::TauBench);
    for r in &f.rows {
        assert_eq!(r["model"], "gpt-4o-mini");
        assert_eq!(r["subset"], "retail");
    }
}

/// Defect 3: an inspect log's header (status, epochs, the dataset's
/// samples) is declared beside what the file holds. The fixture's header:
/// status success, epochs 3, dataset of 2 samples; sample 1 has epochs
/// 1–3, sample "b" epochs 1–2 (see make_fixtures.py): 2 present, 1 short.
#[test]
fn inspect_header_is_declared_against_the_samples() {
    let f = read_one(
        &fixture("inspect/2026-01-02T03-04-05+00-00_arith_abc123.eval"),
        None,
    )
    .unwrap();
    let run = f.declared.run.expect("a declared run");
    assert_eq!(run.status.as_deref(), Some("success"));
    assert!(run.finished);
    assert_eq!((run.dataset_size, run.rollouts), (Some(2), Some(3)));
    assert_eq!((run.present, run.short), (2, 1));
    assert!(run.incomplete());
}

/// Defect 6: a log whose header names a scorer but whose samples carry no
/// score is not "run without a scorer"; Yes/No targets are named with how
/// to grade them.
#[test]
fn unscored_samples_of_a_scored_log_say_how_to_grade() {
    let dir = tempdir("unscored");
    let path = dir.join("log.json");
    let sample = |id: u64, target: &str| {
        json!({"id": id, "epoch": 1, "input": "q", "target": target,
               "output": {"choices": [{"message": {"role": "assistant", "content": "Yes."}}]}})
    };
    let log = json!({
        "version": 2, "status": "success",
        "eval": {"run_id": "r", "task": "t", "model": "m", "config": {"epochs": 1}, "dataset": {"samples": 2}},
        "results": {"scores": [{"name": "model_graded_qa", "metrics": {}}]},
        "samples": [sample(1, "Yes"), sample(2, "No")]
    });
    std::fs::write(&path, log.to_string()).unwrap();
    let f = read_one(&path, None).unwrap();
    let note = f.warnings.join("\n");
    assert!(!note.contains("run without a scorer"), "{note}");
    assert!(note.contains("names scorer model_graded_qa"), "{note}");
    assert!(note.contains("Yes/No"), "{note}");
}

/// Defect 5: a JSON Lines format named by hand on a pretty-printed JSON
/// list reads its records (each numbered by the line its object starts on);
/// a broken document is one error.
#[test]
fn a_named_jsonl_format_reads_a_json_document() {
    let dir = tempdir("doc");
    let path = dir.join("output.json");
    let text = "[\n  {\"problem\": \"p\",\n   \"expected_answer\": \"4\", \"predicted_answer\": \"4\", \"symbolic_correct\": true},\n  {\"problem\": \"q\", \"expected_answer\": \"5\", \"predicted_answer\": \"6\", \"symbolic_correct\": false}\n]\n";
    std::fs::write(&path, text).unwrap();
    let f = read_one(&path, Some(Format::NemoSkills)).unwrap();
    assert_eq!(f.rows.len(), 2);
    assert_eq!(f.bad_lines, 0);
    std::fs::write(&path, "[\n  {\"problem\": \"p\",\n").unwrap();
    let e = read_one(&path, Some(Format::NemoSkills))
        .unwrap_err()
        .to_string();
    assert_eq!(e.matches("output.json").count(), 1, "{e}");
    assert!(e.contains("one valid JSON document"), "{e}");
}

/// Defect 10: an unrecognised file of a walk is one short line; the
/// formats tried are said once.
#[test]
fn unrecognised_files_of_a_walk_are_short() {
    let e = DetectError {
        path: "d/notes.json".into(),
        seen: "a JSON object with keys a, b".into(),
        tried: Vec::new(),
    };
    assert_eq!(
        e.short(),
        "d/notes.json: unrecognised input format (a JSON object with keys a, b)"
    );
    let summary = DetectError::summary(11);
    assert!(summary.starts_with("11 file(s) were not recognised; formats tried: "));
    for spec in rollstat_formats::FORMATS {
        assert!(
            summary.contains(spec.name),
            "{} missing: {summary}",
            spec.name
        );
    }
}

/// Defect 9: a NeMo-Skills arena-hard judgement file (its record layout as
/// NeMo-Skills' own metric tests write it) is recognised, and the error
/// names what it lacks instead of "unrecognised".
#[test]
fn arena_hard_judgements_are_named() {
    let dir = tempdir("arena");
    let path = dir.join("output.jsonl");
    let row = |a: &str, b: &str| {
        json!({"judgement-gen-base": format!("[[{a}]]"), "judgement-base-gen": format!("[[{b}]]"),
               "category": "hard_prompt", "generation": "x"})
        .to_string()
    };
    std::fs::write(
        &path,
        format!("{}\n{}\n", row("A>B", "B>A"), row("B>>A", "A>>B")),
    )
    .unwrap();
    let e = read_one(&path, None).unwrap_err().to_string();
    assert!(e.contains("arena-hard judgement file"), "{e}");
    assert!(!e.contains("unrecognised"), "{e}");
}

/// Defect 10: a CSV file that is not canonical rows is described as CSV
/// and rejected with the canonical CSV rule, not a JSON-worded reason.
#[test]
fn a_non_canonical_csv_is_worded_as_csv() {
    let dir = tempdir("csv");
    let path = dir.join("runs.csv");
    std::fs::write(&path, "id,passed,model\n1,true,x\n").unwrap();
    let e = read_one(&path, None).unwrap_err().to_string();
    assert!(
        e.contains("a CSV file with columns id, passed, model"),
        "{e}"
    );
    assert!(e.contains("CSV header"), "{e}");
    assert!(!e.contains("JSON object"), "{e}");
}

/// Defect 3 for lm-eval: the results beside the samples declare
/// `n-samples.gsm8k_sc.effective` = 2 documents and `repeats` = 4; doc 0
/// has 4 responses in `resps[0]`, doc 1 has 3 (see make_fixtures.py): 2
/// present, 1 short.
#[test]
fn lm_eval_repeats_are_declared_against_the_responses() {
    let f = read_one(
        &fixture("lm_eval/samples_gsm8k_sc_2026-01-02T03-04-05.678901.jsonl"),
        None,
    )
    .unwrap();
    let run = f.declared.run.expect("a declared run");
    assert_eq!((run.dataset_size, run.rollouts), (Some(2), Some(4)));
    assert_eq!((run.present, run.short), (2, 1));
    assert!(run.incomplete());
}
