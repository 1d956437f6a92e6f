//! End-to-end tests of the `rollstat` binary. Expected values are derived
//! by hand in the comments (exact fractions), never taken from a run.

mod common;
use common::{json, metric, run, run_env, run_stdin, stderr, write};
use serde_json::Value;
use std::process::Output;

/// Asserts exit code 2 (bad input) and a message on stderr.
fn fails_with(out: &Output, needle: &str) {
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr(out));
    assert!(stderr(out).contains(needle), "{}", stderr(out));
}

/// The demo: six problems × 8 rollouts with c = 0, 1, 2, 3, 4, 8.
/// pass@1 = 18/48; pass@2 = Σ(1 − C(8−c,2)/28)/6 = (0+7+13+18+22+28)/168;
/// pass@4 = (0+35+55+65+69+70)/420 = 0.7; pass@8 = 5/6;
/// prefix@4: problems 3–6 have a correct answer among rollouts 0–3 → 4/6;
/// maj@8: problems 4, 5, 6 win with the correct answer (problem 3: B×4 beats A×2) → 3/6.
#[test]
fn demo_report_values() {
    let r = json(&run(&["report", "examples/demo.jsonl", "--format", "json"]));
    let close = |a: f64, b: f64| (a - b).abs() < 1e-15;
    assert!(close(metric(&r, "pass@1"), 18.0 / 48.0));
    assert!(close(metric(&r, "pass@2"), 88.0 / 168.0));
    assert!(close(metric(&r, "pass@4"), 0.7));
    assert!(close(metric(&r, "pass@8"), 5.0 / 6.0));
    assert!(close(metric(&r, "prefix@4"), 4.0 / 6.0));
    assert!(close(metric(&r, "maj@8"), 0.5));
    // self-consistency: largest clusters 3,4,4,3,4,8 of 8 → 26/48.
    assert!(close(metric(&r, "self_consistency"), 26.0 / 48.0));
    // stderr of pass@1: values 0,1/8,2/8,3/8,4/8,1 → Σ(y−ȳ)² = 0.625, sd = √(0.625/5), /√6.
    let se = r["metrics"]["pass@1"]["stderr"].as_f64().unwrap();
    assert!((se - (0.625f64 / 5.0).sqrt() / 6f64.sqrt()).abs() < 1e-15);
    assert_eq!(r["schema"], "rollstat.report/1");
    assert_eq!(r["health"]["n_problems"], 6);
    assert_eq!(r["inputs"][0]["records"], 48);
    assert_eq!(r["inputs"][0]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(r["config"]["k"], serde_json::json!([1, 2, 4, 8]));
    assert_eq!(r["metrics"]["pass@4"]["k"], 4);
    assert_eq!(r["metrics"]["pass@4"]["n"], 8);
}

#[test]
fn demo_table_prints_percentages_and_health() {
    let out = run(&["report", "examples/demo.jsonl"]);
    assert!(out.status.success());
    let t = String::from_utf8(out.stdout).unwrap();
    for needle in [
        "pass@1",
        "37.50%",
        "52.38%",
        "70.00%",
        "83.33%",
        "66.67%",
        "maj@8",
        "50.00%",
        "Health: 6 problems",
    ] {
        assert!(t.contains(needle), "missing {needle} in\n{t}");
    }
}

#[test]
fn stdin_csv_and_several_files_agree() {
    let dir = tempfile::tempdir().unwrap();
    let a = write(
        &dir,
        "a.jsonl",
        "{\"problem\": \"p1\", \"correct\": true}\n{\"problem\": \"p1\", \"correct\": false}\n",
    );
    let b = write(
        &dir,
        "b.csv",
        "problem,rollout,correct,answer\np2,0,0,7\np2,1,1,0.50\n",
    );
    let both = json(&run(&["report", &a, &b, "--format", "json"]));
    // p1: 1/2, p2: 1/2 → pass@1 = 0.5, pass@2 = 1.
    assert_eq!(metric(&both, "pass@1"), 0.5);
    assert_eq!(metric(&both, "pass@2"), 1.0);
    assert_eq!(both["health"]["n_problems"], 2);
    assert_eq!(both["inputs"][1]["format"], "canonical-csv");
    let piped = json(&run_stdin(
        &["report", "-", "--format", "json"],
        "{\"problem\": 1, \"n\": 4, \"c\": 1}\n{\"problem\": 2, \"n\": 4, \"c\": 3}\n",
    ));
    // (1/4 + 3/4)/2 = 0.5; pass@2: 1 − C(3,2)/6 = 1/2 and 1 → 0.75.
    assert_eq!(metric(&piped, "pass@1"), 0.5);
    assert_eq!(metric(&piped, "pass@2"), 0.75);
    assert_eq!(piped["inputs"][0]["path"], "<stdin>");
    // Count rows cannot give prefix@k: listed as not computable with the
    // reason; they carry no answers, so the answer metrics are left out.
    assert!(piped["not_computable"]["prefix@4"]
        .as_str()
        .unwrap()
        .contains("count rows"));
    assert_eq!(piped["config"]["answer_metrics_left_out"], "no_answers");
    assert!(piped["not_computable"].get("maj@4").is_none());
}

/// A problem with 2 rollouts among problems with 4: pass@4 excludes it and says so.
#[test]
fn short_problems_are_excluded_and_flagged() {
    let dir = tempfile::tempdir().unwrap();
    let mut body = String::new();
    for i in 0..4 {
        body += &format!("{{\"problem\": \"a\", \"correct\": {}}}\n", i == 0);
        body += &format!("{{\"problem\": \"b\", \"correct\": {}}}\n", i < 2);
    }
    body += "{\"problem\": \"c\", \"correct\": false}\n{\"problem\": \"c\", \"correct\": false}\n";
    let f = write(&dir, "short.jsonl", &body);
    let r = json(&run(&["report", &f, "--format", "json"]));
    assert_eq!(r["health"]["n_short"], 1);
    assert_eq!(r["metrics"]["pass@4"]["n_problems"], 2);
    assert_eq!(r["metrics"]["pass@4"]["n_excluded"], 1);
    assert_eq!(metric(&r, "pass@4"), 1.0); // a: 1, b: 1 — never c's 1.0 or 0.0
                                           // pass@1 over all three: (1/4 + 2/4 + 0)/3.
    assert!((metric(&r, "pass@1") - 0.25).abs() < 1e-15);
    let w = r["health"]["warnings"][0].as_str().unwrap();
    assert!(
        w.contains("1 problems had fewer than 4 rollouts; pass@4 uses 2 of 3 problems"),
        "{w}"
    );
    let strict = run(&["report", &f, "--strict"]);
    fails_with(
        &strict,
        "short.jsonl:9: problem 'c' has 2 rollouts, 4 requested",
    );
}

#[test]
fn malformed_rows_are_named_counted_and_strict_fails() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        &dir,
        "bad.jsonl",
        concat!(
            "{\"problem\": \"a\", \"correct\": true}\n",
            "{\"problem\": \"a\", \"correct\": tru\n",
            "{\"problem\": \"a\", \"correct\": \"yes\"}\n",
            "{\"correct\": false}\n",
            "[1, 2]\n",
            "{\"problem\": \"a\", \"correct\": false}\n",
        ),
    );
    let out = run(&["report", &f, "--format", "json"]);
    let r = json(&out);
    assert_eq!(r["health"]["n_bad_lines"], 4);
    assert_eq!(metric(&r, "pass@1"), 0.5);
    let err = stderr(&out);
    assert!(err.contains("bad.jsonl:2: invalid JSON"), "{err}");
    assert!(
        err.contains("bad.jsonl:3: `correct` must be true/false, 0/1 or null"),
        "{err}"
    );
    assert!(err.contains("bad.jsonl:4: missing `problem`"), "{err}");
    assert!(
        err.contains("bad.jsonl:5: expected a JSON object per line"),
        "{err}"
    );
    let strict = run(&["report", &f, "--strict"]);
    assert_eq!(strict.status.code(), Some(2));
    assert!(stderr(&strict).contains("bad.jsonl:2: invalid JSON"));
}

#[test]
fn duplicates_fail_unless_deduped() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        &dir,
        "dup.jsonl",
        "{\"problem\": \"a\", \"rollout\": 0, \"correct\": true}\n{\"problem\": \"a\", \"rollout\": 1, \"correct\": false}\n{\"problem\": \"a\", \"rollout\": 0, \"correct\": false}\n",
    );
    let out = run(&["report", &f]);
    fails_with(&out, "dup.jsonl:3: problem 'a' rollout 0 appears again");
    assert!(stderr(&out).contains("--dedupe first|last"));
    let first = json(&run(&[
        "report", &f, "--dedupe", "first", "--format", "json",
    ]));
    assert_eq!(metric(&first, "pass@1"), 0.5);
    assert_eq!(first["health"]["n_duplicate_rollouts"], 1);
    let last = json(&run(&[
        "report", &f, "--dedupe", "last", "--format", "json",
    ]));
    assert_eq!(metric(&last, "pass@1"), 0.0);
}

#[test]
fn empty_file_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(&dir, "empty.jsonl", "");
    let out = run(&["report", &f]);
    fails_with(&out, "empty.jsonl: no records");
}

#[test]
fn denominator_policy_and_failures() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        &dir,
        "fail.jsonl",
        "{\"problem\": \"a\", \"correct\": true}\n{\"problem\": \"a\", \"correct\": null}\n{\"problem\": \"a\", \"correct\": false}\n{\"problem\": \"a\", \"correct\": true, \"answer\": null}\n",
    );
    let req = json(&run(&["report", &f, "--format", "json"]));
    // requested: n = 4, the failed one and the unextracted "correct" one count wrong → 1/4.
    assert_eq!(metric(&req, "pass@1"), 0.25);
    assert_eq!(req["health"]["n_failed"], 1);
    assert_eq!(req["health"]["n_unextracted"], 1);
    assert_eq!(req["health"]["n_unextracted_marked_correct"], 1);
    let judged = json(&run(&[
        "report",
        &f,
        "--format",
        "json",
        "--denominator",
        "judged",
    ]));
    // judged: the failed rollout is dropped → 1/3.
    assert!((metric(&judged, "pass@1") - 1.0 / 3.0).abs() < 1e-15);
    assert_eq!(judged["config"]["denominator_policy"], "judged");
}

#[test]
fn tie_policies_and_breakdown() {
    let dir = tempfile::tempdir().unwrap();
    // p: answers A(correct) B → tie; q: A A B (A correct) → clear majority.
    let f = write(
        &dir,
        "ties.jsonl",
        concat!(
            "{\"problem\": \"p\", \"correct\": [true, false], \"answers\": [\"A\", \"B\"], \"subset\": \"x\"}\n",
            "{\"problem\": \"q\", \"correct\": [true, true, false], \"answers\": [\"A\", \"A\", \"B\"], \"subset\": \"y\"}\n",
        ),
    );
    let maj = |policy: &str| {
        let r = json(&run(&[
            "report",
            &f,
            "--format",
            "json",
            "--tie-policy",
            policy,
            "--n",
            "2",
            "--by",
            "subset",
        ]));
        (metric(&r, "maj@2"), r)
    };
    assert_eq!(maj("first").0, 1.0);
    assert_eq!(maj("none").0, 0.5);
    assert_eq!(maj("fractional").0, 0.75);
    let (_, r) = maj("first");
    assert_eq!(r["groups"]["x"]["metrics"]["pass@1"]["value"], 0.5);
    assert!(
        (r["groups"]["y"]["metrics"]["pass@1"]["value"]
            .as_f64()
            .unwrap()
            - 2.0 / 3.0)
            .abs()
            < 1e-15
    );
}

#[test]
fn markdown_and_csv_render_the_same_numbers() {
    let md = run(&["report", "examples/demo.jsonl", "--format", "markdown"]);
    let md = String::from_utf8(md.stdout).unwrap();
    assert!(md.contains("| pass@4 "), "{md}");
    assert!(md.contains("70.00%"));
    let csv = run(&["report", "examples/demo.jsonl", "--format", "csv"]);
    let csv = String::from_utf8(csv.stdout).unwrap();
    let row = csv
        .lines()
        .find(|l| l.starts_with(",pass@4,"))
        .expect("pass@4 row");
    let value: f64 = row.split(',').nth(2).unwrap().parse().unwrap();
    assert!((value - 0.7).abs() < 1e-15, "{row}");
}

#[test]
fn passk_calculator() {
    let out = run(&["passk", "2000000000", "1", "1"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "pass@1 = 5e-10\n");
    let out = run(&["passk", "4", "2", "2", "--pow", "--tau", "0.5,1"]);
    let t = String::from_utf8(out.stdout).unwrap();
    // n=4, c=2, k=2: 1 − 1/6, 1/6, P(X ≥ 1) = 5/6, P(X = 2) = 1/6, mG = 1/6.
    assert!(t.contains("pass@2 = 0.8333333333333334"), "{t}");
    assert!(t.contains("pass^2 = 0.16666666666666666"), "{t}");
    assert!(t.contains("g-pass@2_0.5 = 0.8333333333333334"), "{t}");
    assert!(t.contains("mg-pass@2 = 0.16666666666666666"), "{t}");
    let out = run(&["passk", "2", "0", "5"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("k = 5 exceeds n = 2"));
}

/// Intervals come from one seeded resampling per population: the JSON is
/// byte-identical across runs and thread counts.
#[test]
fn bootstrap_report_is_identical_for_any_thread_count() {
    let run_threads = |t: &str| {
        run_env(
            &[
                "report",
                "examples/demo.jsonl",
                "--format",
                "json",
                "--resamples",
                "2000",
            ],
            &[("RAYON_NUM_THREADS", t)],
        )
        .stdout
    };
    let one = run_threads("1");
    assert_eq!(one, run_threads("2"));
    assert_eq!(one, run_threads("2"));
    let r: Value = serde_json::from_slice(&one).unwrap();
    assert_eq!(r["config"]["ci"]["seed"], 20260729);
    assert_eq!(r["metrics"]["pass@1"]["method"], "bootstrap");
    let ci = &r["metrics"]["pass@1"]["ci"];
    assert!(ci[0].as_f64().unwrap() < 0.375 && 0.375 < ci[1].as_f64().unwrap());
}

/// `--ci t`: mean ± t_{0.975, N−1} · sd/√N. Demo pass@1: N = 6, se = √(0.125/6),
/// t_{0.975,5} = 2.5705818366147395 (scipy.stats.t.ppf).
#[test]
fn t_interval_and_small_n_warning() {
    let r = json(&run(&[
        "report",
        "examples/demo.jsonl",
        "--format",
        "json",
        "--ci",
        "t",
    ]));
    let se = (0.125f64 / 6.0).sqrt();
    let half = 2.5705818366147395 * se;
    let ci = &r["metrics"]["pass@1"]["ci"];
    assert!(
        (ci[0].as_f64().unwrap() - (0.375 - half)).abs() < 1e-9,
        "{ci}"
    );
    assert!(
        (ci[1].as_f64().unwrap() - (0.375 + half)).abs() < 1e-9,
        "{ci}"
    );
    let w = r["health"]["warnings"].to_string();
    assert!(
        w.contains("--ci"),
        "a t interval over 6 problems must warn and name a better method: {w}"
    );
}

/// `--ci wilson` on prefix@1 (one 0/1 value per problem: 3 of 6 first
/// rollouts correct): Wilson 95% for 3/6 is [0.18761, 0.81239]
/// (statsmodels proportion_confint(3, 6, method="wilson")).
#[test]
fn wilson_interval_on_binary_metric() {
    let r = json(&run(&[
        "report",
        "examples/demo.jsonl",
        "--format",
        "json",
        "--ci",
        "wilson",
    ]));
    let ci = &r["metrics"]["prefix@1"]["ci"];
    assert!((ci[0].as_f64().unwrap() - 0.18761).abs() < 1e-4, "{ci}");
    assert!((ci[1].as_f64().unwrap() - 0.81239).abs() < 1e-4, "{ci}");
    assert_eq!(r["metrics"]["prefix@1"]["method"], "wilson");
    // pass@2 is not 0/1 per problem: it falls back to the bootstrap, and says so.
    assert_eq!(r["metrics"]["pass@2"]["method"], "bootstrap");
}

/// `--cluster-by`: inspect's clustered stderr vector — values 0..19 in
/// clusters i % 4 give CR1 = 0.6454972243679028; here as pass@1 = i/19.
#[test]
fn clustered_standard_error() {
    let dir = tempfile::tempdir().unwrap();
    let body: String = (0..20)
        .map(|i| {
            format!(
                "{{\"problem\": {i}, \"n\": 19, \"c\": {i}, \"template\": \"t{}\"}}\n",
                i % 4
            )
        })
        .collect();
    let f = write(&dir, "clusters.jsonl", &body);
    let r = json(&run(&[
        "report",
        &f,
        "--format",
        "json",
        "--cluster-by",
        "template",
        "--ci",
        "t",
    ]));
    let se = r["metrics"]["pass@1"]["stderr"].as_f64().unwrap();
    assert!((se - 0.6454972243679028 / 19.0).abs() < 1e-12, "{se}");
    assert_eq!(r["config"]["ci"]["cluster_by"], "template");
}

/// A problem row with `gold` and `responses` but no `correct` is graded
/// rollout by rollout: 0.5 and \frac12 equal the gold 1/2, 1/3 does not →
/// pass@1 = 2/3; the two equivalent answers form the majority → maj@3 = 1,
/// self-consistency = 2/3.
#[test]
fn problem_rows_without_verdicts_are_graded() {
    let dir = tempfile::tempdir().unwrap();
    let f = write(
        &dir,
        "grade.jsonl",
        r#"{"problem": "q", "gold": "1/2", "responses": ["so \\boxed{0.5}", "the answer is 1/3", "\\boxed{\\frac12}"]}
"#,
    );
    let r = json(&run(&["report", &f, "--format", "json", "--ci", "none"]));
    assert!((metric(&r, "pass@1") - 2.0 / 3.0).abs() < 1e-15);
    assert_eq!(metric(&r, "maj@3"), 1.0);
    assert!((metric(&r, "self_consistency") - 2.0 / 3.0).abs() < 1e-15);
}
