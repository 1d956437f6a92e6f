//! End-to-end tests of the report's run-to-run reliability section.
//!
//! The tau-bench fixture's expected values were computed independently with
//! numpy 2 / scipy 1.17.1 (run 2026-12-05), not by rollstat:
//!
//! ```python
//! import json, numpy as np
//! from scipy import stats
//! rows = json.load(open("fixtures/reliability/taubench_gpt4o_airline.json"))
//! M = np.zeros((50, 4))
//! for r in rows: M[int(r["task_id"]), int(r["trial"])] = abs(r["reward"] - 1) <= 1e-6
//! N, k = M.shape; m = M.mean(1); c = M.sum(1)
//! msb = k * ((m - m.mean())**2).sum() / (N - 1); msw = ((M - m[:, None])**2).sum() / (N * (k - 1))
//! F = msb / msw; FL = F / stats.f.ppf(.975, N - 1, N*(k - 1)); FU = F * stats.f.ppf(.975, N*(k - 1), N - 1)
//! icc1 = (msb - msw) / (msb + (k - 1)*msw)            # 0.40458436895885125
//! ci1 = ((FL - 1)/(FL + k - 1), (FU - 1)/(FU + k - 1)) # (0.26075292696873714, 0.558166417977037)
//! icc1k = (msb - msw) / msb                            # 0.7310379241516967
//! ci1k = (1 - 1/FL, 1 - 1/FU)                          # (0.5852190035751241, 0.8347976424470733)
//! M.mean(0)                                            # [0.42 0.44 0.40 0.42]
//! ((c > 0) & (c < k)).mean()                           # 0.52
//! (2*c*(k - c)/(k*(k - 1))).mean()                     # 0.29333333333333333
//! s2 = (c*(k - c)/(k*(k - 1))).mean()                  # 0.14666666666666667
//! stats.norm.ppf(.975) * np.sqrt(2*s2/N)               # 0.1501218119219818 (two single runs)
//! stats.norm.ppf(.975) * np.sqrt(2*s2/(4*N))           # 0.0750609059609909 (two means of 4)
//! ```
//!
//! The same figures are those of `../shared/research/decisions-2026-12.md` §4(c) (flips 52%,
//! ICC(1) 0.404584, per-trial .42 .44 .40 .42, mean pairwise flip 0.293333, var_between
//! 0.099660, problem-level SE 0.052216).

mod common;
use common::{close, f, fixture, run, stderr, write};
use serde_json::Value;

const TAU: &str = "reliability/taubench_gpt4o_airline.json";

fn report_json(args: &[&str]) -> Value {
    let o = run(&[&["report"], args, &["--format", "json"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// Writes `body` to a fresh temporary directory (removed when the
/// returned guard drops); the path.
fn write_temp(name: &str, body: &str) -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = write(&dir, name, body);
    (dir, path)
}

fn kinds(doc: &Value) -> Vec<String> {
    doc["health"]["findings"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|f| f["kind"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn tau_bench_per_trial_figures() {
    let doc = report_json(&[&fixture(TAU)]);
    let r = &doc["reliability"];
    assert_eq!(r["n_trials"], 4);
    assert_eq!(r["n_problems"], 50);
    assert_eq!(r["trials"]["exchangeable"], true);
    let runs: Vec<f64> = r["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| f(&v["pass_at_1"]))
        .collect();
    for (got, want) in runs.iter().zip([0.42, 0.44, 0.40, 0.42]) {
        close(*got, want, 1e-12);
    }
    close(f(&r["run_spread"]["range"]), 0.04, 1e-12);
    assert_eq!(r["flips"]["n_flipping"], 26);
    close(f(&r["flips"]["share_flipping"]), 0.52, 1e-12);
    close(f(&r["flips"]["mean_pairwise"]), 0.29333333333333333, 1e-12);
    let icc = &r["icc"];
    close(f(&icc["icc1"]), 0.40458436895885125, 1e-12);
    close(f(&icc["icc1k"]), 0.7310379241516967, 1e-12);
    // The F interval: scipy's F quantiles in Shrout & Fleiss's formulas.
    let (f_lo, f_hi) = (0.26075292696873714, 0.558166417977037);
    close(f(&icc["icc1_f_interval"][0]), f_lo, 1e-9);
    close(f(&icc["icc1_f_interval"][1]), f_hi, 1e-9);
    // The percentile bootstrap over problems: numpy, resampling the 50
    // problems' counts (by c: 14, 12, 10, 4, 10) 400,000 times (seed
    // 20261205), gives [0.22647, 0.56436]; the SD of each bound at 10,000
    // resamples is 0.0014 and 0.0018 (40 repeats): within 4 SD.
    assert_eq!(icc["resamples_used"], 10_000);
    let (b_lo, b_hi) = (
        f(&icc["icc1_bootstrap_interval"][0]),
        f(&icc["icc1_bootstrap_interval"][1]),
    );
    close(b_lo, 0.22647, 0.006);
    close(b_hi, 0.56436, 0.007);
    // The interval shown is their union; ICC(1,k)'s bounds are its
    // Spearman–Brown images 4ρ/(1 + 3ρ), which map the F interval of
    // ICC(1) onto McGraw & Wong's F interval of ICC(1,k) (scipy).
    assert_eq!(icc["interval_method"], "bootstrap+F");
    close(f(&icc["icc1_interval"][0]), f_lo.min(b_lo), 1e-15);
    close(f(&icc["icc1_interval"][1]), f_hi.max(b_hi), 1e-15);
    let sb = |r: f64| 4.0 * r / (1.0 + 3.0 * r);
    close(sb(f_lo), 0.5852190035751241, 1e-9);
    close(sb(f_hi), 0.8347976424470733, 1e-9);
    close(
        f(&icc["icc1k_interval"][0]),
        sb(f(&icc["icc1_interval"][0])),
        1e-12,
    );
    close(
        f(&icc["icc1k_interval"][1]),
        sb(f(&icc["icc1_interval"][1])),
        1e-12,
    );
    close(
        f(&r["variance"]["trial_variance"]),
        0.14666666666666667,
        1e-12,
    );
    close(f(&r["variance"]["between"]), 0.09965986394557826, 1e-12);
    close(f(&r["variance"]["se"]), 0.05221619109284876, 1e-12);
    close(f(&r["noise_floor"]["single_run"]), 0.1501218119219818, 1e-9);
    let means = r["noise_floor"]["means"].as_array().unwrap();
    let four = means.iter().find(|m| m[0] == 4).unwrap();
    close(f(&four[1]), 0.0750609059609909, 1e-9);
    // Flaky: 26 problems, the c = 2 ones (rate 2/3) first.
    let flaky = r["flaky"].as_array().unwrap();
    assert_eq!(flaky.len(), 26);
    close(f(&flaky[0]["flip_rate"]), 2.0 / 3.0, 1e-15);
    close(f(&flaky[25]["flip_rate"]), 0.5, 1e-15);
}

#[test]
fn the_table_prints_n_with_the_flip_share_and_lists_every_flaky_problem_per_problem() {
    let o = run(&["report", &fixture(TAU)]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(out.contains("52.0% (26 of 50) at n = 4"), "{out}");
    assert!(out.contains("taken as exchangeable"), "{out}");
    assert!(out.contains("16 more flaky problems"), "{out}");
    let o = run(&["report", &fixture(TAU), "--per-problem"]);
    let out = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(!out.contains("more flaky problems"), "{out}");
    assert_eq!(out.matches(" / 4 ").count(), 26, "{out}");
}

#[test]
fn runs_over_different_problems_use_the_shared_set_and_name_what_each_lacks() {
    // Runs r1, r2, r3 (the `run` field), one rollout each; r3 lacks p4.
    // Shared p1..p3: verdicts r1 [1,0,1], r2 [1,1,0], r3 [1,0,0].
    let rows = "\
{\"problem\":\"p1\",\"run\":\"r1\",\"correct\":true}\n{\"problem\":\"p2\",\"run\":\"r1\",\"correct\":false}\n\
{\"problem\":\"p3\",\"run\":\"r1\",\"correct\":true}\n{\"problem\":\"p4\",\"run\":\"r1\",\"correct\":true}\n\
{\"problem\":\"p1\",\"run\":\"r2\",\"correct\":true}\n{\"problem\":\"p2\",\"run\":\"r2\",\"correct\":true}\n\
{\"problem\":\"p3\",\"run\":\"r2\",\"correct\":false}\n{\"problem\":\"p4\",\"run\":\"r2\",\"correct\":false}\n\
{\"problem\":\"p1\",\"run\":\"r3\",\"correct\":true}\n{\"problem\":\"p2\",\"run\":\"r3\",\"correct\":false}\n\
{\"problem\":\"p3\",\"run\":\"r3\",\"correct\":false}\n";
    let (_dir, path) = write_temp("runs.jsonl", rows);
    let doc = report_json(&[&path, "--run-by", "run"]);
    let r = &doc["reliability"];
    assert_eq!(r["trials"]["field"], "run");
    assert_eq!(
        (r["n_problems"].clone(), r["n_problems_left_out"].clone()),
        (3.into(), 1.into())
    );
    let runs: Vec<(String, f64)> = r["runs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| (v["run"].as_str().unwrap().to_string(), f(&v["pass_at_1"])))
        .collect();
    assert_eq!(runs.len(), 3);
    for ((name, got), (want_name, want)) in
        runs.iter()
            .zip([("r1", 2.0 / 3.0), ("r2", 2.0 / 3.0), ("r3", 1.0 / 3.0)])
    {
        assert_eq!(name, want_name);
        close(*got, want, 1e-15);
    }
    // c = [3, 1, 1] of 3: p2 and p3 flip; pairwise (0 + 2·2/6 + 2·2/6)/3 = 4/9.
    assert_eq!(r["flips"]["n_flipping"], 2);
    close(f(&r["flips"]["mean_pairwise"]), 4.0 / 9.0, 1e-15);
    let lack = doc["health"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "runs_lack_problems")
        .expect("a finding about the gap");
    assert_eq!(lack["gaps"][0]["run"], "r3");
    assert_eq!(lack["gaps"][0]["named"][0], "p4");
    assert_eq!(lack["shared"], 3);
}

#[test]
fn a_run_field_on_some_rows_is_named() {
    let rows = "\
{\"problem\":\"p1\",\"run\":\"r1\",\"correct\":true}\n{\"problem\":\"p2\",\"run\":\"r1\",\"correct\":false}\n\
{\"problem\":\"p1\",\"run\":\"r2\",\"correct\":false}\n{\"problem\":\"p2\",\"run\":\"r2\",\"correct\":false}\n\
{\"problem\":\"p3\",\"correct\":true}\n";
    let (_dir, path) = write_temp("partial.jsonl", rows);
    let doc = report_json(&[&path, "--run-by", "run"]);
    let f0 = doc["health"]["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "run_field_partial")
        .expect("named");
    assert_eq!(
        (f0["with"].clone(), f0["without"].clone()),
        (4.into(), 1.into())
    );
    assert_eq!(doc["reliability"]["n_problems"], 2);
}

#[test]
fn one_rollout_per_problem_says_there_is_nothing_to_measure() {
    let (_dir, path) = write_temp(
        "one.jsonl",
        "{\"problem\":\"p1\",\"correct\":true}\n{\"problem\":\"p2\",\"correct\":false}\n",
    );
    let doc = report_json(&[&path]);
    assert!(doc.get("reliability").is_none());
    assert!(kinds(&doc).contains(&"single_trial".to_string()));
}

#[test]
fn identical_trials_carry_no_sampling_variation() {
    let (_dir, path) = write_temp(
        "greedy.jsonl",
        "{\"problem\":\"p1\",\"correct\":[true,true,true]}\n{\"problem\":\"p2\",\"correct\":[false,false,false]}\n{\"problem\":\"p3\",\"correct\":[true,true,true]}\n",
    );
    let doc = report_json(&[&path]);
    let r = &doc["reliability"];
    assert_eq!(r["flips"]["n_flipping"], 0);
    assert!(r["icc"].is_null());
    assert_eq!(f(&r["noise_floor"]["single_run"]), 0.0);
    assert!(kinds(&doc).contains(&"no_sampling_variation".to_string()));
}

#[test]
fn an_unknown_run_field_is_refused() {
    let o = run(&["report", &fixture(TAU), "--run-by", "seed"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("run_by") || stderr(&o).contains("--run-by"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn the_html_panel_draws_the_runs_the_floor_the_flip_histogram_and_the_flaky_list() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("r.html");
    let o = run(&[
        "report",
        &fixture(TAU),
        "--format",
        "html",
        "-o",
        page.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let html = std::fs::read_to_string(page).unwrap();
    assert!(html.contains("id=\"reliability-h\""));
    // The floor of two single runs (see the header) and the four runs.
    let floor: f64 = html
        .split("data-floor=\"")
        .nth(1)
        .and_then(|s| s.split('"').next())
        .unwrap()
        .parse()
        .unwrap();
    close(floor, 0.1501218119219818, 1e-9);
    assert_eq!(html.matches("data-run=").count(), 4);
    // Flip rates 0 (c = 0 or 4: 14 + 10), ½ (c = 1 or 3: 12 + 4), ⅔ (c = 2: 10).
    assert!(html.contains("data-counts=\"24,16,10\""), "flip histogram");
    assert_eq!(html.matches("data-flip=").count(), 10);
}

/// Count rows (c of n, no order) give the section from their counts: the
/// same flips, ICC and variance split as rollout rows with those counts
/// (c correct rollouts then n − c wrong), and no per-run values.
#[test]
fn count_rows_give_the_section_from_their_counts() {
    let counts: Vec<(u64, u64)> = (0..12).map(|i| (i % 5, 4)).collect();
    let count_rows: String = counts
        .iter()
        .enumerate()
        .map(|(i, (c, n))| format!("{{\"problem\": \"p{i}\", \"n\": {n}, \"c\": {c}}}\n"))
        .collect();
    let rollout_rows: String = counts
        .iter()
        .enumerate()
        .flat_map(|(i, &(c, n))| {
            (0..n).map(move |r| {
                format!(
                    "{{\"problem\": \"p{i}\", \"rollout\": {r}, \"correct\": {}}}\n",
                    r < c
                )
            })
        })
        .collect();
    let (_d1, a) = write_temp("counts.jsonl", &count_rows);
    let (_d2, b) = write_temp("rollouts.jsonl", &rollout_rows);
    let from_counts = report_json(&[&a]);
    let from_rollouts = report_json(&[&b]);
    let (x, y) = (&from_counts["reliability"], &from_rollouts["reliability"]);
    assert_eq!(x["trials"]["kind"], "counts");
    assert_eq!(x["runs"].as_array().map(Vec::len), Some(0));
    for key in [
        "n_trials",
        "n_problems",
        "flips",
        "icc",
        "variance",
        "noise_floor",
        "flaky",
    ] {
        assert_eq!(x[key], y[key], "{key}");
    }
    // 12 problems, c = 0,1,2,3,4 cycling: 7 flip (c = 1, 2, 3).
    assert_eq!(x["flips"]["n_flipping"].as_u64(), Some(7));
}
