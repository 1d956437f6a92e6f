//! End-to-end tests of answer grading in the `rollstat` binary: `rollstat
//! grade`, automatic grading in `report`, clustering through the verifier,
//! junk answers, and the real Faithful-CoT date file. Expected values are
//! derived by hand in the comments (or, for the real file, by an independent
//! Python script whose numbers are hard-coded), never taken from a run.

mod common;
use common::{json, metric, ok, run, run_stdin};
use serde_json::Value;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Output;

fn fixture(name: &str) -> String {
    common::fixture(&format!("grading/{name}"))
}

fn health(r: &Value, name: &str) -> u64 {
    r["health"][name]
        .as_u64()
        .unwrap_or_else(|| panic!("no health.{name}"))
}

#[track_caller]
fn close(a: f64, b: f64) {
    assert!((a - b).abs() < 1e-12, "{a} != {b}");
}

fn report(args: &[&str]) -> Value {
    let mut all = vec!["report"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json", "--ci", "none"]);
    json(&run(&all))
}

/// grade_small.jsonl, row by row (expected file written by hand):
/// - a0: `\boxed{0.5}` → "0.5" = 1/2 ✓ (other fields, `\u00e9`, `1.50` kept as written)
/// - a1: no box/answer-is/LaTeX → last number "1/3" ✗
/// - a2: prose only → answer null, ✗
/// - a3: given answer "[invalid]" → kept, ✗ (junk = unextracted)
/// - a4: given answer "2/4" = 1/2 ✓ (the response is not read when `answer` is given)
/// - b0: "10/02/2021" vs gold 05/01/2021: both are 5/2021 as divisions, but dates differ ✗
/// - b1: gold "#### 05/01/2021" → 05/01/2021; "5/1/2021" is the same date ✓
/// - b2: `answer: null` stays unextracted (the response is not re-read) ✗
/// - c: has `correct` → unchanged; e: no gold → unchanged
/// - d (problem row): responses → answers ["12", "13", null], correct [✓, ✗, ✗]
#[test]
fn grade_small_fixture_matches_hand_derived_rows() {
    let expected = std::fs::read_to_string(fixture("grade_small.expected.jsonl")).unwrap();
    let out = run(&["grade", &fixture("grade_small.jsonl")]);
    assert_eq!(ok(&out), expected);
    let err = String::from_utf8_lossy(&out.stderr);
    // 9 rows graded; 11 rollouts (5 + 3 + 3); correct a0 a4 b1 d0; unextracted a2 a3 b2 d2
    assert!(
        err.contains("9 rows graded (11 rollouts: 4 correct, 4 unextracted, 0 undecided"),
        "{err}"
    );

    // -o FILE and stdin give the same rows
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("graded.jsonl");
    let body = std::fs::read_to_string(fixture("grade_small.jsonl")).unwrap();
    ok(&run_stdin(
        &["grade", "-", "-o", o.to_str().unwrap()],
        &body,
    ));
    assert_eq!(std::fs::read_to_string(&o).unwrap(), expected);

    // the graded file reports: a 2/5 (a0, a4), b 1/3 (b1), c 1/1, d 1/3; e has
    // no verdict (a bad line): pass@1 = (2/5 + 1/3 + 1 + 1/3)/4 = 31/60
    let r = report(&[o.to_str().unwrap()]);
    close(metric(&r, "pass@1"), 31.0 / 60.0);
    assert_eq!(health(&r, "n_bad_lines"), 1);
}

#[test]
fn grade_modes_and_usage_errors() {
    let rows = concat!(
        r#"{"problem": 1, "gold": "C", "response": "Thinking... the answer is (C)."}"#,
        "\n",
        r#"{"problem": 2, "gold": "1234", "response": "We get 1,234 apples, i.e. 12 boxes. Answer: 1,234 apples"}"#,
        "\n",
        r#"{"problem": 3, "gold": "42", "response": "FINAL=42; check 43"}"#,
        "\n"
    );
    let rows_of = |out: &Output| -> Vec<Value> {
        ok(out)
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    };
    // mcq: "(C)" → C ✓
    let r = rows_of(&run_stdin(&["grade", "-", "--extract", "mcq"], rows));
    assert_eq!(r[0]["answer"], "C");
    assert_eq!(r[0]["correct"], true);
    // number: the first number after the last "Answer:", commas removed → 1234 ✓
    let r = rows_of(&run_stdin(&["grade", "-", "--extract", "number"], rows));
    assert_eq!(r[1]["answer"], "1234");
    assert_eq!(r[1]["correct"], true);
    // regex: first group of the last match; no match → null (never "None")
    let r = rows_of(&run_stdin(
        &["grade", "-", "--extract", r"regex:FINAL=(\d+)"],
        rows,
    ));
    assert_eq!(r[2]["answer"], "42");
    assert_eq!(r[2]["correct"], true);
    assert_eq!(r[0]["answer"], Value::Null);
    assert_eq!(r[0]["correct"], false);
    // exact matching: "0.5" is not "1/2"
    let r = rows_of(&run_stdin(
        &["grade", "-", "--match", "exact"],
        r#"{"problem": 1, "gold": "1/2", "answer": "0.5"}"#,
    ));
    assert_eq!(r[0]["correct"], false);
    // bad flags: exit code 2
    let out = run_stdin(&["grade", "-", "--extract", "regex:("], rows);
    assert_eq!(out.status.code(), Some(2));
    let out = run_stdin(&["grade", "-", "--extract", "fuzzy"], rows);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["report", &fixture("autograde.jsonl"), "--match", "loose"]);
    assert_eq!(out.status.code(), Some(2));
}

/// autograde.jsonl: gold + response, no `correct`; report grades it.
/// p1 (gold 3/4): `\boxed{0.75}` ✓, `\boxed{\dfrac{3}{4}}` ✓, "answer is 0.7" ✗,
///   prose → unextracted ✗: c = 2 of 4; clusters {0.75, 3/4} = 2, {0.7} = 1 → maj ✓, sc 2/4.
/// p2 (gold 10): `\boxed{10}` ✓, "Answer: 10.0" ✓, `\boxed{12}` ✗ ×2: c = 2;
///   clusters {10, 10.0} = 2 and {12} = 2 tie; `first`: the 10-cluster (rollout 0) wins ✓;
///   `none`: a tie scores 0; sc 2/4.
/// pass@1 = (2/4 + 2/4)/2 = 0.5; maj@4 = 1 (first), 0.5 (none); sc = 0.5; 1 unextracted.
/// With --match exact: p1 has no correct string ("0.75", "\dfrac{3}{4}", "0.7" ≠ "3/4"),
///   p2 only "10": pass@1 = (0 + 1/4)/2 = 0.125; p1 three singletons (first 0.75 ✗),
///   p2 {12} = 2 wins ✗ → maj@4 = 0; sc = (1/4 + 2/4)/2 = 0.375.
#[test]
fn report_grades_rows_without_correct() {
    let r = report(&[&fixture("autograde.jsonl")]);
    close(metric(&r, "pass@1"), 0.5);
    close(metric(&r, "maj@4"), 1.0);
    close(metric(&r, "self_consistency"), 0.5);
    assert_eq!(health(&r, "n_unextracted"), 1);
    assert!(
        r["config"]["answer_clustering"]
            .as_str()
            .unwrap()
            .starts_with("equivalence"),
        "{}",
        r["config"]["answer_clustering"]
    );

    let r = report(&[&fixture("autograde.jsonl"), "--tie-policy", "none"]);
    close(metric(&r, "maj@4"), 0.5);

    let r = report(&[&fixture("autograde.jsonl"), "--match", "exact"]);
    close(metric(&r, "pass@1"), 0.125);
    close(metric(&r, "maj@4"), 0.0);
    close(metric(&r, "self_consistency"), 0.375);
}

/// clusters.jsonl: problem rows with verdicts and answers, n = 8.
/// p1: "0.5", "1/2", "\frac{1}{2}" (✓✓✓) form one cluster of 3; "0.25" ×2;
///   "[invalid]" ×3 never votes (by exact string it would be the largest
///   cluster). maj ✓, sc 3/8, c = 3.
/// p2: "[invalid]" ×3 (the first marked correct: unextracted, so counted
///   wrong), "None", "" — 5 unextracted; "7" and " 7 " (✓✓) = 2, "8" = 1.
///   maj ✓, sc 2/8, c = 2.
/// p3: "0.5" ✓ and "1/2" ✗ are one cluster judged differently (inconsistent);
///   "3" ×3 and "4" ×3 tie, `first` picks "3" ✗. maj 0, sc 3/8, c = 1.
/// maj@8 = 2/3, self_consistency = (3 + 2 + 3)/24 = 1/3, pass@1 = 6/24;
/// n_unextracted = 3 + 5 = 8, n_unextracted_marked_correct = 1, n_inconsistent_clusters = 1.
/// With --match exact (junk still never votes): p1 "0.25" ×2 wins ✗ (sc 2/8);
///   p2 unchanged; p3 "3" wins ✗, no inconsistent cluster:
///   maj@8 = 1/3, sc = (2 + 2 + 3)/24 = 7/24.
#[test]
fn clusters_go_through_the_verifier_and_junk_never_votes() {
    let r = report(&[&fixture("clusters.jsonl")]);
    close(metric(&r, "maj@8"), 2.0 / 3.0);
    close(metric(&r, "self_consistency"), 1.0 / 3.0);
    close(metric(&r, "pass@1"), 0.25);
    assert_eq!(health(&r, "n_unextracted"), 8);
    assert_eq!(health(&r, "n_unextracted_marked_correct"), 1);
    assert_eq!(health(&r, "n_inconsistent_clusters"), 1);

    let r = report(&[&fixture("clusters.jsonl"), "--match", "exact"]);
    close(metric(&r, "maj@8"), 1.0 / 3.0);
    close(metric(&r, "self_consistency"), 7.0 / 24.0);
    assert_eq!(health(&r, "n_inconsistent_clusters"), 0);
}

/// A problem whose only "answers" are junk has no cluster: maj@n is 0 and
/// self-consistency 0, even though "[invalid]" is the most common string.
#[test]
fn all_junk_problem_never_wins_a_vote() {
    let rows = concat!(
        r#"{"problem": "j", "answers": ["[invalid]", "[invalid]", "[invalid]", "5"], "correct": [false, false, false, true]}"#,
        "\n",
        r#"{"problem": "k", "answers": ["None", "[invalid]", "null", ""], "correct": [false, false, false, false]}"#,
        "\n"
    );
    let r = json(&run_stdin(
        &["report", "-", "--format", "json", "--ci", "none"],
        rows,
    ));
    // j: the single "5" is the only cluster ✓ (sc 1/4); k: nothing votes (0, sc 0)
    close(metric(&r, "maj@4"), 0.5);
    close(metric(&r, "self_consistency"), 0.125);
    assert_eq!(health(&r, "n_unextracted"), 7);
}

/// Faithful-CoT files: the excerpt and gold file in rollstat-formats'
/// tests/data (in the repository), or the whole files in ../shared.
fn formats_data(name: &str) -> PathBuf {
    let p = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../rollstat-formats/tests/data/real/"
    ))
    .join(name);
    assert!(p.exists(), "{} is missing", p.display());
    p
}

fn shared(name: &str) -> PathBuf {
    common::shared_data(&format!("real/{name}"))
}

/// Writes canonical rows `{problem, rollout, gold, response}` for
/// Faithful-CoT date predictions (40 completions per problem) joined with
/// the gold file.
fn faithfulcot_rows(preds: &Path, golds: &Path, dir: &Path) -> PathBuf {
    let mut gold = std::collections::HashMap::new();
    for l in std::fs::read_to_string(golds).unwrap().lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        gold.insert(v["id"].to_string(), v["answer"].clone());
    }
    let out = dir.join("date.jsonl");
    let mut w = std::io::BufWriter::new(std::fs::File::create(&out).unwrap());
    for l in std::fs::read_to_string(preds).unwrap().lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        let id = v["id"].to_string();
        for (i, c) in v["completions"].as_array().unwrap().iter().enumerate() {
            let row = serde_json::json!({"problem": v["id"], "rollout": i, "gold": gold[&id], "response": c});
            writeln!(w, "{row}").unwrap();
        }
    }
    w.flush().unwrap();
    out
}

/// Expected values for a Faithful-CoT date file under one extraction
/// (pass@1 = correct / completions: every problem has 40).
struct DateExpect {
    correct: u64,
    unextracted: u64,
    maj40: f64,
    self_consistency: f64,
}

/// `rollstat grade`, `rollstat report` (graded and raw rows) with the default
/// lenient extraction, and `report` with the strict regex extraction, on
/// the Faithful-CoT predictions `preds` (40 completions per problem).
fn check_faithfulcot(
    preds: &Path,
    golds: &Path,
    problems: u64,
    lenient: DateExpect,
    strict: DateExpect,
) {
    let dir = tempfile::tempdir().unwrap();
    let rows = faithfulcot_rows(preds, golds, dir.path());
    let rows = rows.to_str().unwrap();
    let n = problems * 40;
    let pass1 = |e: &DateExpect| e.correct as f64 / n as f64;

    // rollstat grade over all completions (default: --extract math)
    let graded = dir.path().join("graded.jsonl");
    let t = std::time::Instant::now();
    let out = run(&["grade", rows, "-o", graded.to_str().unwrap()]);
    ok(&out);
    eprintln!("rollstat grade: {n} completions in {:?}", t.elapsed());
    let text = std::fs::read_to_string(&graded).unwrap();
    let (mut rows_out, mut c, mut u) = (0, 0, 0);
    for l in text.lines() {
        let v: Value = serde_json::from_str(l).unwrap();
        rows_out += 1;
        c += (v["correct"] == true) as u64;
        u += v["answer"].is_null() as u64;
    }
    assert_eq!((rows_out, c, u), (n, lenient.correct, lenient.unextracted));

    // report on the graded file and on the raw rows (report grades them itself)
    for input in [graded.to_str().unwrap(), rows] {
        let r = report(&[input, "--k", "1,40"]);
        assert_eq!(health(&r, "n_problems"), problems);
        close(metric(&r, "pass@1"), pass1(&lenient));
        close(metric(&r, "maj@40"), lenient.maj40);
        close(metric(&r, "self_consistency"), lenient.self_consistency);
    }

    // strict MM/DD/YYYY extraction compared as strings reproduces the jq recipe
    let r = report(&[
        rows,
        "--k",
        "1,40",
        "--extract",
        r"regex:answer is\s*(\d\d/\d\d/\d{4})",
        "--match",
        "exact",
    ]);
    close(metric(&r, "pass@1"), pass1(&strict));
    close(metric(&r, "maj@40"), strict.maj40);
    close(metric(&r, "self_consistency"), strict.self_consistency);
    assert_eq!(health(&r, "n_unextracted"), strict.unextracted);
}

/// The Faithful-CoT date excerpt (lines 171-200 of the predictions: 30
/// problems × 40 completions, gold `#### MM/DD/YYYY`), which holds 487 of
/// the file's 579 completions whose date is not written MM/DD/YYYY.
/// Expected values come from an independent Python script (json + re +
/// collections, no rollstat code; it is in
/// rollstat-formats/tests/data/README.md and reproduces every number of the
/// whole-file test below):
///
/// - strict (the jq recipe of crates/rollstat-formats/README.md): the date
///   after the last `answer is` must be written `\d\d/\d\d/\d{4}`; compare
///   strings; 487 of 1 200 completions have none; 593 correct; pass@1 =
///   593/1200, maj@40 = 15/30, self-consistency = 0.5941666666666666.
/// - lenient (rollstat's default `--extract math` with date equivalence):
///   any `M/D/YYYY` after the last `answer is`, compared as (month, day,
///   year) integers; all 1 200 extracted; 1 080 correct; pass@1 = 0.9,
///   maj@40 = 27/30, self-consistency = 1 (every problem's 40 answers agree).
///
/// No problem has tied top clusters, so the tie policy does not matter.
#[test]
fn faithfulcot_date_excerpt() {
    check_faithfulcot(
        &formats_data("faithfulcot_date_ltm_n40_predictions_lines171-200.jsonl"),
        &formats_data("faithfulcot_date_gold.jsonl"),
        30,
        DateExpect {
            correct: 1080,
            unextracted: 0,
            maj40: 27.0 / 30.0,
            self_consistency: 1.0,
        },
        DateExpect {
            correct: 593,
            unextracted: 487,
            maj40: 15.0 / 30.0,
            self_consistency: 0.5941666666666666,
        },
    );
}

/// The whole Faithful-CoT date file: 359 problems × 40 completions, gold
/// `#### MM/DD/YYYY`. Expected values come from the same independent
/// Python script:
///
/// - strict: 579 of 14 360 completions have no `MM/DD/YYYY` date (e.g.
///   "6/11/2019"); 11 072 correct; pass@1 = 0.7710306406685237, maj@40 =
///   277/359 = 0.7715877437325905, self-consistency = 0.9511142061281337.
/// - lenient: all 14 360 extracted; 11 599 correct; pass@1 =
///   0.8077298050139277, maj@40 = 290/359 = 0.807799442896936,
///   self-consistency = 0.9913649025069637.
///
/// No problem has tied top clusters, so the tie policy does not matter.
#[test]
#[ignore = "needs ../shared/data/real (not in the repository)"]
fn faithfulcot_date_file_real_data() {
    check_faithfulcot(
        &shared("faithfulcot_date_ltm_n40_predictions.jsonl"),
        &shared("faithfulcot_date_gold.jsonl"),
        359,
        DateExpect {
            correct: 11599,
            unextracted: 0,
            maj40: 290.0 / 359.0,
            self_consistency: 0.9913649025069637,
        },
        DateExpect {
            correct: 11072,
            unextracted: 579,
            maj40: 277.0 / 359.0,
            self_consistency: 0.9511142061281337,
        },
    );
}

/// `rollstat grade` on a pair past the work limit (gold `615!^3^32` vs
/// `0`, undecided by the grading policy's own doctest): `correct: null`
/// with the reason, counted on stderr; the graded rows give `report` the
/// raw rows' numbers (p1: 1 of 2 with the undecided one counted wrong, p2:
/// 1 of 2 → pass@1 = 1/2) and one failed rollout.
#[test]
fn grade_writes_undecided_pairs_as_null_and_counts_them() {
    let raw = "{\"problem\":\"p1\",\"gold\":\"615!^3^32\",\"answer\":\"0\"}\n{\"problem\":\"p1\",\"gold\":\"1/2\",\"answer\":\"0.5\"}\n{\"problem\":\"p2\",\"gold\":\"3\",\"answer\":\"3\"}\n{\"problem\":\"p2\",\"gold\":\"3\",\"answer\":\"4\"}\n";
    let out = run_stdin(&["grade", "-"], raw);
    let graded = ok(&out);
    let first: Value = serde_json::from_str(graded.lines().next().unwrap()).unwrap();
    assert_eq!(first["correct"], Value::Null);
    assert!(first["grading_undecided"]
        .as_str()
        .unwrap()
        .contains("work limit"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("4 rollouts: 2 correct, 0 unextracted, 1 undecided"),
        "{err}"
    );
    for input in [raw, graded.as_str()] {
        let r = json(&run_stdin(&["report", "-", "--format", "json"], input));
        assert_eq!(metric(&r, "pass@1"), 0.5);
        assert_eq!(health(&r, "n_failed"), 1);
    }
}
