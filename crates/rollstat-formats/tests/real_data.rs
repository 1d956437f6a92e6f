//! Real harness files from shared/data (copied unchanged from public
//! repositories). Each test skips with a note when the files are absent.

use std::collections::BTreeMap;
use std::path::PathBuf;

use rollstat_formats::{read_path, read_path_lenient, Format, FormatError};
use serde_json::Value;

const SHARED: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data");

fn shared(rel: &str) -> Option<PathBuf> {
    let p = PathBuf::from(SHARED).join(rel);
    if p.exists() {
        Some(p)
    } else {
        eprintln!("SKIP: {} not found (shared data absent)", p.display());
        None
    }
}

/// tau-bench historical trajectories, gpt-4o airline: 50 tasks × 4 trials.
#[test]
fn tau_bench_airline_50_tasks_4_trials() {
    let Some(p) = shared("real/taubench_gpt4o_airline_4trials.json") else {
        return;
    };
    let files = read_path(&p, None).unwrap();
    assert_eq!(files.len(), 1);
    let f = &files[0];
    assert_eq!(f.format, Format::TauBench);
    assert_eq!(f.rows.len(), 200);
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
    assert_eq!(trials.len(), 50);
    for (task, mut t) in trials {
        t.sort_unstable();
        assert_eq!(t, [0, 1, 2, 3], "task {task}");
    }
    // Derived independently from the raw file with jq:
    //   jq -c '[group_by(.task_id)[] | (map(select(((.reward - 1) | fabs) <= 1e-6)) | length)]'
    // (and cross-checked with a python3 Counter); task ids 0..49 in order.
    let want: [u64; 50] = [
        0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 4, 2, 0, 2, 1, 1, 4, 0, 4, 3, 0, 0, 4, 0, 2, 2, 0, 1,
        2, 2, 0, 0, 3, 4, 4, 3, 4, 1, 3, 2, 4, 1, 2, 2, 2, 1, 4, 4,
    ];
    let got: Vec<u64> = correct.values().copied().collect();
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
    let Some(p) = shared("formats/inspect_log_streaming_2epochs.eval") else {
        return;
    };
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
    let Some(p) = shared("formats/lm_eval_samples_excerpt.jsonl") else {
        return;
    };
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
    let Some(p) = shared("formats/lm_eval_results_excerpt.json") else {
        return;
    };
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
fn shared_formats_directory_reads_clean() {
    let Some(p) = shared("formats") else { return };
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

/// The tree-of-thought and Faithful-CoT logs are not a harness format: they
/// are rejected with the list of formats tried (README gives jq recipes).
#[test]
fn unsupported_real_files_are_rejected_with_reasons() {
    for rel in [
        "real/tot_game24_gpt4_cot_n100.json",
        "real/tot_game24_gpt4_standard_n100.json",
        "real/faithfulcot_date_ltm_n40_predictions.jsonl",
    ] {
        let Some(p) = shared(rel) else { return };
        match read_path(&p, None) {
            Err(FormatError::Detect(d)) => assert_eq!(d.tried.len(), Format::ALL.len()),
            other => panic!("{rel}: {other:?}"),
        }
    }
}

/// The README's jq recipes for the tree-of-thought logs, run as written,
/// reproduce the published ToT numbers (pass@1 = 4.03% / 7.34%, best of
/// 100 = 49% / 33%). Skips when jq is not installed.
#[test]
fn readme_jq_recipes_for_tree_of_thought_logs() {
    let Some(dir) = shared("real") else { return };
    if std::process::Command::new("jq")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("SKIP: jq not installed");
        return;
    }
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    for (file, n_correct, n_solved) in [
        ("tot_game24_gpt4_cot_n100.json", 403, 49),
        ("tot_game24_gpt4_standard_n100.json", 734, 33),
    ] {
        let rows = run_recipe(&readme, &dir, file);
        assert_eq!(rows.len(), 10_000, "{file}");
        let correct = rows.iter().filter(|r| r["correct"] == true).count();
        assert_eq!(correct, n_correct, "{file}");
        let mut solved: BTreeMap<String, bool> = BTreeMap::new();
        for r in &rows {
            *solved.entry(r["problem"].to_string()).or_default() |= r["correct"] == true;
        }
        assert_eq!(solved.len(), 100);
        assert_eq!(solved.values().filter(|s| **s).count(), n_solved, "{file}");
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
    // human-eval results: the summary line without task_id is dropped.
    let tmp = std::env::temp_dir().join(format!("rollstat-he-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
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
