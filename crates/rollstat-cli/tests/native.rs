//! `rollstat report` / `rollstat convert` on native harness outputs.
//!
//! The fixtures are rollstat-formats' (one per harness, `tests/fixtures/`),
//! and its copies and excerpts of real files (`tests/data/`, see the README
//! there). Every expected number is derived by hand from the native file
//! itself (the derivation is in the comment beside it), never from
//! rollstat's output. The tests of whole real files that are too large to
//! copy read `../shared/data/real/` and are `#[ignore]`d; run with
//! `--ignored`, they fail (never skip) when it is absent.

mod common;
use common::{metric, run, run_stdin, shared_data as shared, stderr, success as ok};
use serde_json::Value;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

const FIX: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rollstat-formats/tests/fixtures"
);
const DATA: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rollstat-formats/tests/data"
);

fn fix(rel: &str) -> String {
    format!("{FIX}/{rel}")
}

/// A file of rollstat-formats' `tests/data/` (in the repository).
fn data(rel: &str) -> String {
    let p = Path::new(DATA).join(rel);
    assert!(p.exists(), "{} is missing", p.display());
    p.to_str().unwrap().to_string()
}

/// The JSON report of `args` (plus `--format json`).
fn report(args: &[&str]) -> Value {
    let mut a = vec!["report"];
    a.extend_from_slice(args);
    a.extend_from_slice(&["--format", "json", "--ci", "none"]);
    let o = ok(run(&a));
    serde_json::from_slice(&o.stdout).unwrap()
}

fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-9, "{a} != {b}");
}

/// `rollstat report FILE` with no options succeeds and prints a table.
fn plain_report_works(path: &str) {
    let o = ok(run(&["report", path]));
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("pass@1"), "{text}");
}

fn formats(r: &Value) -> Vec<String> {
    r["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["format"].as_str().unwrap().to_string())
        .collect()
}

fn harness<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["harness"]
        .as_array()
        .unwrap_or_else(|| panic!("no harness block"))
        .iter()
        .find(|h| h["harness_metric"] == name)
        .unwrap_or_else(|| panic!("no harness metric {name}"))
}

#[test]
fn lm_eval_samples_with_results_beside() {
    let f = fix("lm_eval/samples_math_single_2026-01-02T03-04-05.678901.jsonl");
    plain_report_works(&f);
    let r = report(&[&f]);
    assert_eq!(formats(&r), ["lm-eval-samples"]);
    // doc 0 exact_match 1.0, doc 1 exact_match 0.0, doc 2 no metric (failed,
    // wrong under --denominator requested), line 4 truncated JSON:
    // pass@1 = 1/3, one bad line.
    close(metric(&r, "pass@1"), 1.0 / 3.0);
    assert_eq!(r["health"]["n_problems"], 3);
    assert_eq!(r["health"]["n_failed"], 1);
    assert_eq!(r["health"]["n_bad_lines"], 1);
    // results_<date>.json beside it: exact_match,strict-match 0.3333.
    let h = harness(&r, "exact_match,strict-match");
    assert_eq!(h["rollstat_metric"], "pass@1");
    assert_eq!(h["agrees"], true);
    // --strict: the truncated line is an error.
    let o = run(&["report", &f, "--strict"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    // The whole directory: gsm8k_sc has filters score-first and maj@4 over
    // 4 repeats. score-first scored only the first repeat: doc 0 "The
    // answer is 4." (gold 4) right, doc 1 "no idea" wrong → 0.5 = prefix@1.
    let r = report(&[&fix("lm_eval")]);
    let h = harness(&r, "exact_match,score-first");
    assert_eq!(h["rollstat_metric"], "prefix@1");
    close(h["rollstat_value"].as_f64().unwrap(), 0.5);
    assert_eq!(h["agrees"], true);
    assert_eq!(harness(&r, "exact_match,maj@4")["rollstat_metric"], "maj@4");
}

#[test]
fn lighteval_details_and_results() {
    let details = fix("lighteval/details");
    plain_report_works(&details);
    let r = report(&[&details, &fix("lighteval/results")]);
    assert_eq!(formats(&r), ["lighteval-details", "lighteval-results"]);
    // doc 0: "so \boxed{204}" and "so \boxed{3}", gold 204 → 1/2;
    // doc 1: one sample, pass@k 1.0 → 1. pass@1 = 0.75.
    close(metric(&r, "pass@1"), 0.75);
    assert_eq!(r["health"]["n_problems"], 2);
    // results json: pass@k:k=1&n=2 = 0.75 for the task.
    let h = harness(&r, "pass@k:k=1&n=2");
    assert_eq!(h["rollstat_metric"], "pass@1");
    assert_eq!(h["agrees"], true);
}

#[test]
fn inspect_eval_log() {
    let f = fix("inspect/2026-01-02T03-04-05+00-00_arith_abc123.eval");
    plain_report_works(&f);
    let r = report(&[&f]);
    assert_eq!(formats(&r), ["inspect-eval"]);
    // sample 1 epochs C, I, N (N = unextracted) → 1/3; sample b epochs P
    // (partial = wrong) and an error (failed) → 0. pass@1 = 1/6,
    // prefix@1 = (1 + 0)/2.
    close(metric(&r, "pass@1"), 1.0 / 6.0);
    close(metric(&r, "prefix@1"), 0.5);
    assert_eq!(r["health"]["n_failed"], 1);
    assert_eq!(r["health"]["n_truncated"], 1);
    // The log's match/accuracy (0.25) is shown and flagged.
    let h = harness(&r, "match/accuracy");
    assert_eq!(h["agrees"], false);
}

#[test]
fn evalscope_reviews() {
    let d = fix("evalscope");
    plain_report_works(&d);
    let r = report(&[&d]);
    assert_eq!(formats(&r), ["evalscope-reviews"]);
    // group 0: acc 1, then a failed status; group 1: 0, 1; group 2: 1.
    // pass@1 = (1/2 + 1/2 + 1)/3; prefix@1 = (1 + 0 + 1)/3.
    close(metric(&r, "pass@1"), 2.0 / 3.0);
    close(metric(&r, "prefix@1"), 2.0 / 3.0);
    assert_eq!(r["health"]["n_problems"], 3);
    assert_eq!(r["health"]["n_failed"], 1);
}

#[test]
fn opencompass_results_with_first_sample_disagreement() {
    let d = fix("opencompass");
    plain_report_works(&d);
    let r = report(&[&d]);
    assert_eq!(formats(&r), ["opencompass-results"]);
    // details: [T, T, F] and [F, T]: pass@1 = (2/3 + 1/2)/2 = 7/12;
    // prefix@1 = (1 + 0)/2.
    close(metric(&r, "pass@1"), 7.0 / 12.0);
    close(metric(&r, "prefix@1"), 0.5);
    // "accuracy (3 runs average)": 50.0 (percent) = first replicas only.
    let h = harness(&r, "accuracy (3 runs average)");
    assert_eq!(h["rollstat_metric"], "pass@1");
    close(h["rollstat_value"].as_f64().unwrap(), 700.0 / 12.0);
    assert_eq!(h["agrees"], false);
    let note = h["note"].as_str().unwrap();
    assert!(note.contains("first-sample-only"), "{note}");
    assert!(note.contains("prefix@1 = 50"), "{note}");
}

#[test]
fn sieval_result_directory_with_denominator_disagreement() {
    let d = fix("sieval/gsm8k");
    plain_report_works(&d);
    let r = report(&[&d]);
    assert_eq!(formats(&r), ["sieval"]);
    // sample 0: [correct, unextracted]; sample 1: [correct, wrong];
    // sample 2 failed (2 rollouts, no verdict). pass@1 = (1/2 + 1/2 + 0)/3,
    // pass@2 = (1 + 1 + 0)/3.
    close(metric(&r, "pass@1"), 1.0 / 3.0);
    close(metric(&r, "pass@2"), 2.0 / 3.0);
    assert_eq!(r["health"]["n_failed"], 2);
    // report.json: pass@1 50 (failed sample dropped), pass@k 66.67 (k = 2).
    let h = harness(&r, "pass@1");
    assert_eq!(h["agrees"], false);
    assert!(h["note"].as_str().unwrap().contains("denominator"), "{h}");
    let h = harness(&r, "pass@k");
    assert_eq!(h["rollstat_metric"], "pass@2");
    assert_eq!(h["agrees"], true);
    // The judged denominator reproduces SiEval's 50%: (1/2 + 1/2)/2.
    let j = report(&[&d, "--denominator", "judged"]);
    close(metric(&j, "pass@1"), 0.5);
    assert_eq!(harness(&j, "pass@1")["agrees"], true);
}

#[test]
fn matharena_outputs_zst_and_plain() {
    let d = fix("matharena");
    plain_report_works(&d);
    let r = report(&[&d]);
    assert_eq!(formats(&r), ["matharena", "matharena"]);
    // 3.json.zst: correct [T, F, F] → 1/3; 5.json: answers "70" (gold 70,
    // graded) and "None" (unextracted) → 1/2. pass@1 = (1/3 + 1/2)/2;
    // prefix@1 = 1 (both first answers right).
    close(metric(&r, "pass@1"), 5.0 / 12.0);
    close(metric(&r, "prefix@1"), 1.0);
    assert_eq!(r["health"]["n_unextracted"], 2);
}

#[test]
fn nemo_skills_seed_files_join_into_problems() {
    let d = fix("nemo_skills");
    plain_report_works(&d);
    let r = report(&[&d]);
    assert_eq!(formats(&r), ["nemo-skills", "nemo-skills"]);
    // rs0 = rollout 0, rs1 (gzip) = rollout 1, problems by line position:
    // line 0: True, False; line 1: False, True; line 2: "Judgement: Yes"
    // (Ada = gold), "Bob" vs gold Ada (graded wrong).
    // pass@1 = 3 × (1/2) / 3; prefix@1 = (1 + 0 + 1)/3; every problem n = 2.
    close(metric(&r, "pass@1"), 0.5);
    close(metric(&r, "prefix@1"), 2.0 / 3.0);
    assert_eq!(r["health"]["n_problems"], 3);
    assert_eq!(r["health"]["n_rollouts"]["min"], 2);
}

#[test]
fn tau_bench_and_tau2() {
    let f = fix("tau/retail_results.json");
    plain_report_works(&f);
    let r = report(&[&f]);
    assert_eq!(formats(&r), ["tau-bench"]);
    // task 0: rewards 1, 0; task 1: 1 then an agent error (failed);
    // task 2: 0 (one trial). pass@1 = (1/2 + 1/2 + 0)/3; pass^2 over the two
    // tasks with 2 trials: 0.
    close(metric(&r, "pass@1"), 1.0 / 3.0);
    close(metric(&r, "pass^2"), 0.0);
    assert_eq!(r["health"]["n_failed"], 1);
    let f = fix("tau/tau2_results.json");
    plain_report_works(&f);
    let r = report(&[&f]);
    // t1: rewards 1.0, 0.0; t2: infrastructure_error (failed) → (1/2 + 0)/2.
    close(metric(&r, "pass@1"), 0.25);
    close(metric(&r, "prefix@1"), 0.5);
}

#[test]
fn from_overrides_detection_and_unknown_file_lists_formats() {
    // --from with a family name.
    let r = report(&[&fix("tau/retail_results.json"), "--from", "tau-bench"]);
    assert_eq!(formats(&r), ["tau-bench"]);
    // A wrong --from: the adapter's error, exit 2.
    let o = run(&[
        "report",
        &fix("tau/retail_results.json"),
        "--from",
        "evalscope",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["report", &fix("tau/retail_results.json"), "--from", "nope"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("unknown format"), "{}", stderr(&o));
    // An unrecognised file: one short line (#10 item 16: it was 1.6 KB) with
    // why it is not canonical rows and how many harness formats were tried.
    let o = run(&["report", &fix("unknown/notes.json")]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(e.contains("unrecognised input format"), "{e}");
    assert!(
        e.contains("as canonical rows: the JSON object has no \"problem\""),
        "{e}"
    );
    let harness = rollstat_formats::Format::ALL
        .iter()
        .filter(|f| !f.is_canonical())
        .count();
    let tried = format!("nor does any of {harness} harness formats");
    assert!(e.contains(&tried), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
}

/// #30: a layout no format knows is answered with the `--map` to pass,
/// built from its first record, and reads with it (the Qwen2.5-Math
/// fixture's lines as `task_id`/`is_correct` records: 2 of 30 correct).
#[test]
fn unknown_layout_suggests_a_map_that_reads_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("mystery.jsonl");
    let qwen = fix("qwen_math/aime25/test_qwen25-math-cot_-1_seed0_t0.6_s0_e-1.jsonl");
    let mut out = String::new();
    for line in std::fs::read_to_string(qwen).unwrap().lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let rec = serde_json::json!({"task_id": v["idx"], "prediction": v["pred"][0], "target": v["gt"], "is_correct": v["score"][0]});
        out += &format!("{rec}\n");
    }
    std::fs::write(&path, out).unwrap();
    let p = path.to_str().unwrap();
    let o = run(&["report", p]);
    assert_eq!(o.status.code(), Some(2));
    let map = "problem=task_id,correct=is_correct,answer=prediction,gold=target";
    assert!(
        stderr(&o).contains(&format!("--map {map}")),
        "{}",
        stderr(&o)
    );
    let r = report(&[p, "--map", map]);
    close(metric(&r, "pass@1"), 2.0 / 30.0);
    assert_eq!(formats(&r), ["field-map"]);
    // A key the records lack is named with the keys they have.
    let o = run(&["report", p, "--map", "problem=task_id,correct=passed"]);
    assert_eq!(o.status.code(), Some(2));
    let e = stderr(&o);
    assert!(
        e.contains(
            "no key \"passed\" in record 1 (its keys: task_id, prediction, target, is_correct)"
        ),
        "{e}"
    );
}

#[test]
fn compressed_canonical_input() {
    let dir = tempfile::tempdir().unwrap();
    let plain = b"{\"problem\": \"a\", \"correct\": true}\n{\"problem\": \"a\", \"correct\": false}\n{\"problem\": \"b\", \"correct\": true}\n";
    let gz = dir.path().join("rows.jsonl.gz");
    let mut enc = flate2_gzip(plain);
    std::fs::write(&gz, &mut enc).unwrap();
    let r = report(&[gz.to_str().unwrap()]);
    // (1/2 + 1)/2
    close(metric(&r, "pass@1"), 0.75);
    assert_eq!(formats(&r), ["canonical-jsonl"]);
    assert_eq!(r["inputs"][0]["records"], 3);
    // stdin, compressed too.
    let o = ok(run_stdin(
        &["report", "-", "--format", "json", "--ci", "none"],
        flate2_gzip(plain),
    ));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    close(metric(&r, "pass@1"), 0.75);
}

/// gzip via the system `gzip` (the CLI crate has no compression dependency).
fn flate2_gzip(data: &[u8]) -> Vec<u8> {
    let mut child = Command::new("gzip")
        .arg("-c")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("gzip");
    child.stdin.take().unwrap().write_all(data).unwrap();
    child.wait_with_output().unwrap().stdout
}

#[test]
fn directory_with_mixed_formats_and_a_corrupt_file() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::copy(
        fix("evalscope/reviews/qwen-7b/gsm8k_main.jsonl"),
        d.join("gsm8k_main.jsonl"),
    )
    .unwrap();
    std::fs::copy(fix("tau/tau2_results.json"), d.join("tau2_results.json")).unwrap();
    std::fs::copy(fix("canonical/rows.jsonl"), d.join("rows.jsonl")).unwrap();
    std::fs::write(d.join("corrupt.json"), "{\"simulations\": [{\"task_id\": ").unwrap();
    let ds = d.to_str().unwrap();
    let o = ok(run(&["report", ds, "--format", "json", "--ci", "none"]));
    let e = stderr(&o);
    assert!(e.contains("corrupt.json"), "{e}");
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let mut f = formats(&r);
    f.sort();
    assert_eq!(f, ["canonical-jsonl", "evalscope-reviews", "tau-bench"]);
    // evalscope 3 problems + tau2 2 + canonical 1.
    assert_eq!(r["health"]["n_problems"], 6);
    let w = r["health"]["warnings"].to_string();
    assert!(
        w.contains("could not be read") && w.contains("corrupt.json"),
        "{w}"
    );
    let o = run(&["report", ds, "--strict"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("corrupt.json"), "{}", stderr(&o));
}

#[test]
fn convert_round_trip_gives_the_same_metrics() {
    let dir = tempfile::tempdir().unwrap();
    for native in [
        fix("sieval/gsm8k"),
        fix("opencompass"),
        fix("matharena"),
        fix("nemo_skills"),
        fix("lm_eval"),
        fix("inspect/2026-01-02T03-04-05+00-00_arith_abc123.eval"),
    ] {
        let out = dir.path().join("rows.jsonl");
        let o = ok(run(&["convert", &native, "-o", out.to_str().unwrap()]));
        assert!(stderr(&o).contains("rows"), "{}", stderr(&o));
        let a = report(&[&native]);
        let b = report(&[out.to_str().unwrap()]);
        assert_eq!(a["metrics"], b["metrics"], "{native}");
        assert_eq!(
            a["health"]["n_problems"], b["health"]["n_problems"],
            "{native}"
        );
        // Without -o the rows go to stdout, one JSON object per line.
        let o = ok(run(&["convert", &native]));
        let text = String::from_utf8(o.stdout).unwrap();
        assert_eq!(text, std::fs::read_to_string(&out).unwrap());
        assert!(text
            .lines()
            .all(|l| !serde_json::from_str::<Value>(l).unwrap()["problem"].is_null()));
    }
}

// ---- real files (rollstat-formats/tests/data, ../shared/data) -------------

/// tau-bench gpt-4o airline, the excerpt of tasks 40-44 × 4 trials. Correct
/// trials per task (python3 and jq on the excerpt, see
/// rollstat-formats/tests/data/README.md): c = 3, 2, 4, 1, 2. pass^k =
/// mean C(c,k)/C(4,k): pass^1 = 12/20; pass^2 = (3 + 1 + 6 + 0 + 1)/6/5 =
/// 11/30; pass^3 = (1 + 0 + 4 + 0 + 0)/4/5 = 5/20; pass^4 = 1/5.
#[test]
fn real_tau_bench_airline_excerpt_pass_pow_k() {
    let r = report(&[
        &data("real/taubench_gpt4o_airline_tasks40-44.json"),
        "--k",
        "1,2,3,4",
    ]);
    assert_eq!(formats(&r), ["tau-bench"]);
    assert_eq!(r["health"]["n_problems"], 5);
    assert_eq!(r["health"]["n_rollouts"]["histogram"]["4"], 5);
    close(metric(&r, "pass@1"), 12.0 / 20.0);
    close(metric(&r, "pass^2"), 11.0 / 30.0);
    close(metric(&r, "pass^3"), 5.0 / 20.0);
    close(metric(&r, "pass^4"), 1.0 / 5.0);
}

/// tau-bench gpt-4o airline, the whole file: 50 tasks × 4 trials. Per-task
/// correct counts (jq: `[group_by(.task_id)[] | map(select(((.reward-1)|fabs)
/// <= 1e-6)) | length]`, see rollstat-formats/tests/real_data.rs) give the
/// histogram c = 0:14, 1:12, 2:10, 3:4, 4:10 tasks. pass^k = mean
/// C(c,k)/C(4,k): pass^1 = 84/200; pass^2 = (10·1 + 4·3 + 10·6)/6/50 =
/// 82/300; pass^3 = (4·1 + 10·4)/4/50 = 44/200; pass^4 = 10/50.
#[test]
#[ignore = "needs ../shared/data/real (not in the repository)"]
fn real_tau_bench_airline_pass_pow_k() {
    let p = shared("real/taubench_gpt4o_airline_4trials.json");
    let r = report(&[p.to_str().unwrap(), "--k", "1,2,3,4"]);
    assert_eq!(formats(&r), ["tau-bench"]);
    assert_eq!(r["health"]["n_problems"], 50);
    assert_eq!(r["health"]["n_rollouts"]["histogram"]["4"], 50);
    close(metric(&r, "pass@1"), 84.0 / 200.0);
    close(metric(&r, "pass^2"), 82.0 / 300.0);
    close(metric(&r, "pass^3"), 44.0 / 200.0);
    close(metric(&r, "pass^4"), 10.0 / 50.0);
}

/// inspect_ai's streaming log: samples 1 and 2 × epochs 1, 2 with the
/// `match` scorer: sample 1 I then C, sample 2 C, C (summaries.json).
/// pass@1 = (1/2 + 1)/2 = 0.75 = the log's own match/accuracy.
#[test]
fn real_inspect_log_two_problems_two_epochs() {
    let r = report(&[&data("formats/inspect_log_streaming_2epochs.eval")]);
    assert_eq!(formats(&r), ["inspect-eval"]);
    assert_eq!(r["health"]["n_problems"], 2);
    assert_eq!(r["health"]["n_rollouts"]["histogram"]["2"], 2);
    close(metric(&r, "pass@1"), 0.75);
    close(metric(&r, "prefix@1"), 0.5);
    let h = harness(&r, "match/accuracy");
    assert_eq!(h["agrees"], true);
}

/// The lm-eval excerpts: two docs with exact_match 0.0 → pass@1 = 0.
#[test]
fn real_lm_eval_excerpt() {
    let r = report(&[&data("formats/lm_eval_samples_excerpt.jsonl")]);
    assert_eq!(r["health"]["n_problems"], 2);
    close(metric(&r, "pass@1"), 0.0);
}

/// Canonical rows for a tree-of-thought Game24 log, built here the way the
/// jq recipe of rollstat-formats/README.md does: `correct` from `infos[j].r
/// == 1` (CoT) or `accs[j]` (standard), `answer` = the text after the first
/// `Answer:` (spaces skipped, to the end of the line), else the last
/// non-blank line.
fn tot_rows(path: &Path) -> String {
    let log: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = String::new();
    for p in log.as_array().unwrap() {
        let ys = p["ys"].as_array().unwrap();
        let labels: Vec<bool> = match (p.get("infos"), p.get("accs")) {
            (Some(infos), _) => infos
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["r"] == 1)
                .collect(),
            (None, Some(accs)) => accs
                .as_array()
                .unwrap()
                .iter()
                .map(|a| a.as_bool().unwrap())
                .collect(),
            (None, None) => panic!("no infos or accs in {}", path.display()),
        };
        assert_eq!(labels.len(), ys.len());
        for (j, (y, correct)) in ys.iter().zip(labels).enumerate() {
            let y = y.as_str().unwrap();
            let answer = match y.find("Answer:") {
                Some(i) => y[i + "Answer:".len()..]
                    .trim_start_matches(' ')
                    .split('\n')
                    .next()
                    .unwrap(),
                None => y.lines().rfind(|l| !l.trim().is_empty()).unwrap_or(""),
            };
            let row = serde_json::json!({
                "problem": p["idx"], "rollout": j, "correct": correct,
                "answer": answer, "response": y, "subset": "game24",
            });
            out.push_str(&format!("{row}\n"));
        }
    }
    out
}

/// A tree-of-thought log's rows piped into `rollstat report -`: the number
/// of problems, and pass@1 and pass@100 against `p1` and `p100`.
fn check_tot(path: &Path, n_problems: u64, p1: f64, p100: f64) {
    let rows = tot_rows(path);
    let o = ok(run_stdin(
        &["report", "-", "--format", "json", "--ci", "none"],
        rows.as_bytes(),
    ));
    let r: Value = serde_json::from_slice(&o.stdout).unwrap();
    let name = path.display();
    assert_eq!(r["health"]["n_problems"], n_problems, "{name}");
    // Every rollout marked correct carries its answer (the recipe falls
    // back to the last line when there is no "Answer:" line).
    assert_eq!(r["health"]["n_unextracted_marked_correct"], 0, "{name}");
    close(metric(&r, "pass@1"), p1);
    close(metric(&r, "pass@100"), p100);
}

/// The tree-of-thought Game24 excerpts (first 10 problems × 100 rollouts).
/// Counted with python3 on the excerpts (rollstat-formats/tests/data/
/// README.md): CoT 45 correct rollouts, 7 problems solved at least once;
/// standard 8 and 5.
#[test]
fn real_tree_of_thought_excerpts() {
    check_tot(
        Path::new(&data("real/tot_game24_gpt4_cot_n100_first10.json")),
        10,
        45.0 / 1000.0,
        7.0 / 10.0,
    );
    check_tot(
        Path::new(&data("real/tot_game24_gpt4_standard_n100_first10.json")),
        10,
        8.0 / 1000.0,
        5.0 / 10.0,
    );
}

/// The whole tree-of-thought Game24 logs: 100 problems × 100 rollouts; 403
/// and 734 correct rollouts, 49 and 33 problems solved at least once
/// (counted with jq in rollstat-formats/tests/real_data.rs; the ToT paper's
/// 4.0%/49% and 7.3%/33%).
#[test]
#[ignore = "needs ../shared/data/real (not in the repository)"]
fn real_tree_of_thought_whole_logs() {
    for (file, p1, p100) in [
        ("tot_game24_gpt4_cot_n100.json", 0.0403, 0.49),
        ("tot_game24_gpt4_standard_n100.json", 0.0734, 0.33),
    ] {
        check_tot(&shared(&format!("real/{file}")), 100, p1, p100);
    }
}
