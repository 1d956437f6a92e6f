//! End-to-end tests of `rollstat compare`. Expected values are derived by
//! hand in the comments (exact fractions) or taken from published vectors
//! (docs/statistics.md §1.8), never from a run.

mod common;
use common::{close, f, json, stdout, write};
use serde_json::Value;
use std::process::Output;

fn fixture(name: &str) -> String {
    common::fixture(&format!("compare/{name}"))
}

/// `rollstat compare ARGS` with environment `env`.
fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    common::run_env(&[&["compare"], args].concat(), env)
}

fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

fn row<'a>(r: &'a Value, metric: &str) -> &'a Value {
    r["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["metric"] == metric && x["group"].is_null())
        .unwrap_or_else(|| panic!("no row {metric}"))
}

/// One-rollout-per-problem files (`correct` 0/1) for A and B.
fn binary_pair(
    dir: &tempfile::TempDir,
    a: &[u8],
    b: &[u8],
    extra: &dyn Fn(usize) -> String,
) -> (String, String) {
    let rows = |v: &[u8]| -> String {
        v.iter()
            .enumerate()
            .map(|(i, c)| format!("{{\"problem\": \"p{i}\", \"correct\": {c}{}}}\n", extra(i)))
            .collect()
    };
    (
        write(dir, "a.jsonl", rows(a)),
        write(dir, "b.jsonl", rows(b)),
    )
}

fn no_extra(_: usize) -> String {
    String::new()
}

// Fixture (n = 2 rollouts; q11 only in A, q12 only in B):
//        q01 q02 q03 q04 q05 q06 q07 q08 q09 q10
//   A:   00  00  00  01  01  01  11  11  10  00
//   B:   10  11  10  11  10  11  11  11  10  00
// pass@1 A = (0+0+0+½+½+½+1+1+½+0)/10 = 4/10, B = 7/10, Δ = 3/10.
// d = [½,1,½,½,0,½,0,0,0,0]: Σ(d−0.3)² = 1.1 → SE² = 1.1/9/10 = 11/900.
// Var(a) = 1.4/9, Var(b) = 1.1/9 → unpaired SE² = 2.5/90 = 1/36;
// corr = (1.4 + 1.1 − 1.1)/2 / sqrt(1.4·1.1) = 0.7/√1.54.
// Sign flip on the 5 nonzero d: |Σ ±d| ≥ 3 only for all-same signs → 2/32.
// prefix@1 A = [0,0,0,0,0,0,1,1,1,0] = 3/10, B = [1,1,1,1,1,1,1,1,1,0] = 9/10:
// 6 discordant, all for B → McNemar exact 2·(½)⁶ = 1/32 = sign-flip p.
// pass@2 = prefix@2 = g-pass@2_{0.25,0.5}: A 6/10, B 9/10, 3 discordant → p = 2/8.
// pass^2 = g-pass@2_{0.75,1.0} = mg-pass@2: A 2/10, B 5/10, 3 discordant → 2/8.
// The default family (no answers, so no maj@k): pass@1 (p 1/16) and pass^2
// (p ¼; g-pass@2_{0.75,1.0} and mg-pass@2 are pass^2 by definition, never in
// a family). Holm: 2·1/16 = 1/8, max(1/8, ¼) = ¼. BH: ¼·2/2 = ¼, then
// min(¼, 1/16·2/1) = 1/8. Every other row: no adjusted p.
// Named family prefix@1, pass@1, pass@2 (p 1/32, 1/16, ¼): Holm 3/32,
// max(3/32, 2/16) = 1/8, max(1/8, ¼) = ¼; BH ¼·3/3 = ¼, min(¼, 1/16·3/2) =
// 3/32, min(3/32, 1/32·3) = 3/32.
#[test]
fn hand_computed_fixture() {
    let r = json(&run(&[
        &fixture("a.jsonl"),
        &fixture("b.jsonl"),
        "--format",
        "json",
    ]));
    assert_eq!(r["schema"], "rollstat.compare/1");
    assert_eq!(r["pairs"]["matched"], 10);
    assert_eq!(r["pairs"]["only_a"], 1);
    assert_eq!(r["pairs"]["only_b"], 1);
    let w = r["warnings"].to_string();
    assert!(w.contains("'q11'") && w.contains("'q12'"), "{w}");

    let p1 = row(&r, "pass@1");
    close(f(&p1["a"]), 0.4, 1e-12);
    close(f(&p1["b"]), 0.7, 1e-12);
    close(f(&p1["delta"]), 0.3, 1e-12);
    close(f(&p1["stderr"]), (11.0f64 / 900.0).sqrt(), 1e-12);
    close(f(&p1["stderr_unpaired"]), 1.0 / 6.0, 1e-12);
    close(f(&p1["correlation"]), 0.7 / 1.54f64.sqrt(), 1e-12);
    close(f(&p1["p_value"]), 2.0 / 32.0, 1e-15);
    assert_eq!(p1["p_exact"], true);
    assert!(p1["mcnemar_p"].is_null(), "pass@1 with n = 2 is not binary");
    assert!(p1["verdict"].is_null(), "no --margin, no verdict");
    let ci = p1["ci"].as_array().unwrap();
    assert!(f(&ci[0]) <= 0.3 && 0.3 <= f(&ci[1]));

    let pre = row(&r, "prefix@1");
    close(f(&pre["delta"]), 0.6, 1e-12);
    assert_eq!(pre["mcnemar"]["a_only"], 0);
    assert_eq!(pre["mcnemar"]["b_only"], 6);
    close(f(&pre["mcnemar_p"]), 1.0 / 32.0, 1e-12);
    close(f(&pre["p_value"]), 1.0 / 32.0, 1e-15);

    for m in ["pass@2", "prefix@2", "g-pass@2_0.5"] {
        close(f(&row(&r, m)["delta"]), 0.3, 1e-12);
        close(f(&row(&r, m)["mcnemar_p"]), 0.25, 1e-12);
    }
    for m in ["pass^2", "g-pass@2_1.0", "mg-pass@2"] {
        close(f(&row(&r, m)["a"]), 0.2, 1e-12);
        close(f(&row(&r, m)["b"]), 0.5, 1e-12);
    }
    let rows = r["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 10);
    let adjusted = |r: &Value, family: &[(&str, f64, f64)]| {
        for x in r["rows"].as_array().unwrap() {
            let m = x["metric"].as_str().unwrap();
            match family.iter().find(|(name, _, _)| *name == m) {
                Some(&(_, holm, bh)) => {
                    assert_eq!(x["in_family"], true, "{m}");
                    close(f(&x["p_holm"]), holm, 1e-12);
                    close(f(&x["p_bh"]), bh, 1e-12);
                }
                None => {
                    assert_eq!(x["in_family"], false, "{m}");
                    assert!(x["p_holm"].is_null() && x["p_bh"].is_null(), "{m}");
                }
            }
        }
    };
    adjusted(&r, &[("pass@1", 0.125, 0.125), ("pass^2", 0.25, 0.25)]);
    assert_eq!(
        r["summary"]["family"],
        serde_json::json!(["pass@1", "pass^2"])
    );
    let named = json(&run(&[
        &fixture("a.jsonl"),
        &fixture("b.jsonl"),
        "--family",
        "prefix@1,pass@1,pass@2",
        "--format",
        "json",
    ]));
    adjusted(
        &named,
        &[
            ("prefix@1", 0.09375, 0.09375),
            ("pass@1", 0.125, 0.09375),
            ("pass@2", 0.25, 0.25),
        ],
    );
    // no answers → the vote metrics are left out, and the config says why
    assert_eq!(r["config"]["answer_metrics_left_out"], "no_answers");
    let nc = r["not_computable"].to_string();
    assert!(
        !nc.contains("maj@2") && !nc.contains("self_consistency"),
        "{nc}"
    );
    assert_eq!(r["config"]["n"], 2);
    assert_eq!(r["config"]["k"], serde_json::json!([1, 2]));
}

#[test]
fn one_input_by_model_equals_two_inputs() {
    let one = json(&run(&[
        &fixture("both.jsonl"),
        "--by",
        "model",
        "--format",
        "json",
    ]));
    let two = json(&run(&[
        &fixture("a.jsonl"),
        &fixture("b.jsonl"),
        "--format",
        "json",
    ]));
    assert_eq!(one["rows"], two["rows"]);
    assert_eq!(one["pairs"], two["pairs"]);
    assert_eq!(one["a"]["name"], "model = base");
    assert_eq!(one["b"]["name"], "model = new");
    // --a/--b choose the sides: swapping them negates every delta
    let swapped = json(&run(&[
        &fixture("both.jsonl"),
        "--by",
        "model",
        "--a",
        "new",
        "--b",
        "base",
        "--format",
        "json",
    ]));
    close(f(&row(&swapped, "pass@1")["delta"]), -0.3, 1e-12);
    assert_eq!(swapped["pairs"]["only_a"], 1);
    // one input without --by is a usage error
    let o = run(&[&fixture("both.jsonl")]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--by model"));
}

/// docs/statistics.md §1.8 paired vector: means 0.7 and 0.5, SE_paired 0.0917662935,
/// SE_unpaired 0.1555973210, corr 0.6546536707, discordant b = 4, c = 0 →
/// McNemar exact 2·(½)⁴ = 0.125.
#[test]
fn published_paired_vector() {
    let a = [1, 1, 0, 1, 0, 1, 1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0, 1, 1];
    let b = [1, 0, 0, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0, 1, 0, 1, 1, 0, 0, 1];
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = binary_pair(&dir, &a, &b, &no_extra);
    let r = json(&run(&[&pa, &pb, "--format", "json"]));
    let x = row(&r, "pass@1");
    close(f(&x["delta"]), -0.2, 1e-12);
    close(f(&x["stderr"]), 0.0917662935, 1e-9);
    close(f(&x["stderr_unpaired"]), 0.1555973210, 1e-9);
    close(f(&x["correlation"]), 0.6546536707, 1e-9);
    close(f(&x["mcnemar_p"]), 0.125, 1e-12);
    close(f(&x["p_value"]), 0.125, 1e-12); // exact sign flip = sign test
                                           // paired interval narrower than the unpaired normal interval
    let ci = x["ci"].as_array().unwrap();
    assert!(f(&ci[1]) - f(&ci[0]) < 2.0 * 1.96 * 0.1555973210);
}

/// docs/statistics.md §1.8 paired + clustered vector: five clusters of four,
/// CR1 SE of the differences 0.1274754878, d̄ = −0.15 (B − A).
#[test]
fn published_clustered_vector() {
    let a = [1, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 1, 0, 1, 0, 0, 1, 1, 1, 0];
    let b = [1, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 1, 1, 1, 1];
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = binary_pair(&dir, &a, &b, &|i| format!(", \"template\": \"t{}\"", i / 4));
    let r = json(&run(&[
        &pa,
        &pb,
        "--format",
        "json",
        "--cluster-by",
        "template",
    ]));
    let x = row(&r, "pass@1");
    close(f(&x["delta"]), -0.15, 1e-12);
    close(f(&x["stderr"]), 0.1274754878, 1e-9);
    assert_eq!(r["config"]["method"], "cluster-bootstrap");
    assert_eq!(r["config"]["cluster_by"], "template");
    // the cluster sign flip enumerates 2^5 patterns
    assert_eq!(x["p_exact"], true);
}

/// Deterministic pseudo-random 0/1 vector (splitmix-style hash), so the
/// tests need no RNG crate.
fn bits(n: usize, seed: u64, p_num: u64) -> Vec<u8> {
    (0..n as u64)
        .map(|i| {
            let mut z = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ seed;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            z ^= z >> 31;
            u8::from(z % 100 < p_num)
        })
        .collect()
}

/// B agrees with A on all but 10 of 300 problems: the paired SE and the
/// paired bootstrap interval are far narrower than the unpaired ones.
#[test]
fn correlated_systems_pairing_narrows_the_interval() {
    let a = bits(300, 1, 60);
    let mut b = a.clone();
    for i in 0..10 {
        b[i * 30] ^= 1;
    }
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = binary_pair(&dir, &a, &b, &no_extra);
    let r = json(&run(&[&pa, &pb, "--format", "json", "--resamples", "2000"]));
    let x = row(&r, "pass@1");
    assert!(f(&x["correlation"]) > 0.9);
    let (se, se_u) = (f(&x["stderr"]), f(&x["stderr_unpaired"]));
    assert!(se < 0.5 * se_u, "paired {se} vs unpaired {se_u}");
    let ci = x["ci"].as_array().unwrap();
    let width = f(&ci[1]) - f(&ci[0]);
    assert!(
        width < 0.5 * 2.0 * 1.96 * se_u,
        "paired width {width}, unpaired SE {se_u}"
    );
}

/// Three verdict cases on one-rollout data, margin 2 points:
/// * B = A except 2 wins and 2 losses in 300 → Δ = 0, SE ≈ 0.0067, lower
///   bound ≈ −0.011 > −0.02 → non-inferior;
/// * B loses 60 of 300 → Δ = −0.2, upper bound ≈ −0.16 < −0.02 → inferior;
/// * B loses 2 of 20 → Δ = −0.1, SE ≈ 0.069: lower ≈ −0.21, upper ≈ +0.01 → inconclusive.
#[test]
fn verdicts_and_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let base = bits(300, 7, 50);

    let mut ni = base.clone();
    let (ones, zeros): (Vec<usize>, Vec<usize>) = (0..300).partition(|&i| base[i] == 1);
    for &i in ones.iter().take(2).chain(zeros.iter().take(2)) {
        ni[i] ^= 1;
    }
    let d = tempfile::tempdir_in(dir.path()).unwrap();
    let (pa, pb) = binary_pair(&d, &base, &ni, &no_extra);
    let o = run(&[
        &pa,
        &pb,
        "--margin",
        "0.02",
        "--fail-on",
        "inconclusive",
        "--resamples",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(
        text.contains("pass@1: B − A = +0.00 pts, 95% one-sided lower bound"),
        "{text}"
    );
    assert!(text.contains("> -2.00? yes → non-inferior"), "{text}");

    let mut inf = base.clone();
    for &i in ones.iter().take(60) {
        inf[i] = 0;
    }
    let d = tempfile::tempdir_in(dir.path()).unwrap();
    let (pa, pb) = binary_pair(&d, &base, &inf, &no_extra);
    let o = run(&[
        &pa,
        &pb,
        "--margin",
        "0.02",
        "--fail-on",
        "inferior",
        "--resamples",
        "2000",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let text = stdout(&o);
    assert!(text.contains("pass@1: B − A = -20.00 pts"), "{text}");
    assert!(text.contains("< -2.00? yes → inferior"), "{text}");
    assert!(text.contains("--fail-on inferior: FAILED"), "{text}");
    let r = json(&run(&[
        &pa,
        &pb,
        "--margin",
        "0.02",
        "--format",
        "json",
        "--resamples",
        "2000",
    ]));
    let x = row(&r, "pass@1");
    assert_eq!(x["verdict"], "inferior");
    assert!(f(&x["bounds"][1]) < -0.02);
    // -o FILE: nothing on stdout, the exit code still reports the verdict
    let out = d.path().join("cmp.json");
    let o = run(&[
        &pa,
        &pb,
        "--margin",
        "0.02",
        "--fail-on",
        "inferior",
        "--format",
        "json",
        "-o",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(o.stdout.is_empty());
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(saved["fail"]["failed"], true);
    assert_eq!(saved["fail"]["rows"][0], "pass@1");

    let small: Vec<u8> = vec![1; 20];
    let mut worse = small.clone();
    worse[3] = 0;
    worse[11] = 0;
    let d = tempfile::tempdir_in(dir.path()).unwrap();
    let (pa, pb) = binary_pair(&d, &small, &worse, &no_extra);
    let r = json(&run(&[
        &pa, &pb, "--margin", "0.02", "--format", "json", "--ci", "t",
    ]));
    let x = row(&r, "pass@1");
    assert_eq!(x["verdict"], "inconclusive");
    // t bounds by hand: SE = sqrt(0.09·20/19/20) = sqrt(0.09/19); t_{0.95, 19} = 1.729133
    let se = (0.09f64 / 19.0).sqrt();
    close(f(&x["bounds"][0]), -0.1 - 1.729133 * se, 1e-5);
    close(f(&x["bounds"][1]), -0.1 + 1.729133 * se, 1e-5);
    let o = run(&[&pa, &pb, "--margin", "0.02", "--fail-on", "inferior"]);
    assert_eq!(o.status.code(), Some(0));
    let o = run(&[&pa, &pb, "--margin", "0.02", "--fail-on", "inconclusive"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(stdout(&o).contains("→ inconclusive"));
}

#[test]
fn fail_on_a_chosen_metric() {
    // prefix@1 is inferior, pass@2 (n = 2) is not: only --metric decides.
    let dir = tempfile::tempdir().unwrap();
    let mut a = String::new();
    let mut b = String::new();
    for i in 0..200 {
        a.push_str(&format!(
            "{{\"problem\": {i}, \"correct\": [true, false]}}\n"
        ));
        b.push_str(&format!(
            "{{\"problem\": {i}, \"correct\": [false, true]}}\n"
        ));
    }
    let pa = dir.path().join("a.jsonl");
    let pb = dir.path().join("b.jsonl");
    std::fs::write(&pa, a).unwrap();
    std::fs::write(&pb, b).unwrap();
    let (pa, pb) = (pa.to_str().unwrap(), pb.to_str().unwrap());
    let base = [
        "--margin",
        "0.02",
        "--fail-on",
        "inferior",
        "--resamples",
        "500",
    ];
    let o = run(&[&[pa, pb][..], &base[..], &["--metric", "pass@1"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = run(&[&[pa, pb][..], &base[..], &["--metric", "prefix@1"]].concat());
    assert_eq!(o.status.code(), Some(1), "{}", stdout(&o));
    let o = run(&[&[pa, pb][..], &base[..], &["--metric", "nope@3"]].concat());
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn identical_json_for_any_thread_count() {
    let a = bits(400, 3, 55);
    let mut b = a.clone();
    for i in 0..40 {
        b[i * 10 + 3] ^= 1;
    }
    let dir = tempfile::tempdir().unwrap();
    let (pa, pb) = binary_pair(&dir, &a, &b, &|i| {
        format!(", \"subset\": \"s{}\", \"template\": \"t{}\"", i % 3, i / 8)
    });
    for extra in [
        &[][..],
        &[
            "--group-by",
            "subset",
            "--cluster-by",
            "template",
            "--ci",
            "bca",
        ][..],
    ] {
        let args: Vec<&str> = [
            &[
                pa.as_str(),
                pb.as_str(),
                "--format",
                "json",
                "--margin",
                "0.05",
                "--resamples",
                "3000",
            ][..],
            extra,
        ]
        .concat();
        let one = run_env(&args, &[("RAYON_NUM_THREADS", "1")]);
        let two = run_env(&args, &[("RAYON_NUM_THREADS", "2")]);
        assert!(
            one.status.success(),
            "{}",
            String::from_utf8_lossy(&one.stderr)
        );
        assert_eq!(one.stdout, two.stdout);
        let r: Value = serde_json::from_slice(&one.stdout).unwrap();
        // more than 2^13 sign patterns: the random flips were used
        assert_eq!(row(&r, "pass@1")["p_exact"], false);
        if !extra.is_empty() {
            let groups: Vec<&Value> = r["rows"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|x| x["metric"] == "pass@1")
                .collect();
            assert_eq!(groups.len(), 4, "overall + 3 subsets");
        }
    }
}

#[test]
fn usage_errors_exit_2() {
    let (a, b) = (fixture("a.jsonl"), fixture("b.jsonl"));
    for args in [
        vec![a.as_str(), b.as_str(), "--ci", "wilson"],
        vec![a.as_str(), b.as_str(), "--fail-on", "inferior"],
        vec![a.as_str(), b.as_str(), "--margin", "-1"],
        vec![a.as_str(), b.as_str(), "--by", "model"],
        vec![a.as_str(), b.as_str(), "--margin", "0.02", "--ci", "none"],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn markdown_table() {
    let o = run(&[
        &fixture("a.jsonl"),
        &fixture("b.jsonl"),
        "--format",
        "markdown",
        "--margin",
        "0.02",
    ]);
    let text = stdout(&o);
    assert!(text.contains("| metric "), "{text}");
    assert!(text.contains("| pass@1 "), "{text}");
    assert!(text.contains("## verdicts"), "{text}");
}

/// Budget-matched maj@k and bon@k rows reach the table, Markdown and JSON
/// (bon@k, outside the headline set as in `report`, with `--all`).
/// A (100 tokens a rollout) and B (400) on two problems of four rollouts:
/// B's one draw buys A all four. By hand: A's maj@4 votes 4 4 7 7 (tie, the
/// first-seen 4 is right) and 3 2 3 3 (3, wrong) → 1/2; A's bon@4 picks the
/// top scores 0.9 (right) and 0.8 (right) → 1; B's maj@1 = bon@1 = pass@1 =
/// (3/4 + 3/4)/2 = 3/4.
#[test]
fn budget_matched_selection_rows_are_rendered() {
    let (a, b) = (
        fixture("budget_vote_short.jsonl"),
        fixture("budget_vote_long.jsonl"),
    );
    let base = [
        a.as_str(),
        b.as_str(),
        "--budget",
        "output_tokens",
        "--k",
        "1,2",
    ];
    let md = stdout(&run(
        &[&base[..], &["--format", "markdown", "--all"]].concat()
    ));
    let table = stdout(&run(&[&base[..], &["--all"]].concat()));
    let headline = stdout(&run(&base));
    assert!(
        headline.contains("maj@1 at B's budget 400 (A draws 4)"),
        "{headline}"
    );
    assert!(!headline.contains("bon@1 at B's budget"), "{headline}");
    assert!(headline.contains("--all adds"), "{headline}");
    for (family, a_pct) in [("maj", "50.00%"), ("bon", "100.00%")] {
        let name = format!("{family}@1 at B's budget 400 (A draws 4)");
        for out in [&md, &table] {
            let line = out.lines().find(|l| l.contains(&name));
            let line = line.unwrap_or_else(|| panic!("{name} in\n{out}"));
            assert!(line.contains(a_pct) && line.contains("75.00%"), "{line}");
        }
    }
    let j = json(&run(&[&base[..], &["--format", "json"]].concat()));
    let matched = |metric: &str| {
        j["rows"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["metric"] == metric && !r["budget_matched"].is_null())
            .unwrap_or_else(|| panic!("matched {metric}"))
            .clone()
    };
    let maj = matched("maj@1");
    assert_eq!(maj["budget_matched"]["k_a"], 4.0);
    assert_eq!((f(&maj["a"]), f(&maj["b"])), (0.5, 0.75));
    assert_eq!(f(&matched("bon@1")["a"]), 1.0);
}

/// The metric names in the first column of the terminal table(s).
fn table_metrics(table: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in table.lines() {
        if line.trim_start().starts_with('─') {
            inside = true;
            continue;
        }
        if line.trim().is_empty() {
            inside = false;
        }
        if inside {
            out.push(line.split_whitespace().next().unwrap().to_string());
        }
    }
    out
}

/// The default table of demo vs demo-b shows the headline set, never a row
/// that is another row by definition, says what `--all` adds, and puts the
/// summary above the verdicts; `--all` prints every row of the JSON.
#[test]
fn default_table_is_the_headline_set_and_all_is_every_row() {
    let args = [
        "examples/demo.jsonl",
        "examples/demo-b.jsonl",
        "--margin",
        "0.05",
    ];
    let doc = json(&run(&[&args[..], &["--format", "json"]].concat()));
    let rows = doc["rows"].as_array().unwrap();
    let same: Vec<&str> = rows
        .iter()
        .filter(|r| !r["same_as"].is_null())
        .map(|r| r["metric"].as_str().unwrap())
        .collect();
    assert!(
        !same.is_empty(),
        "the demo has rows equal to others by definition"
    );
    let table = stdout(&run(&args));
    let shown = table_metrics(&table);
    for m in &same {
        assert!(
            !shown.iter().any(|s| s == m),
            "{m} is another row by definition"
        );
    }
    assert!(shown
        .iter()
        .all(|m| !m.starts_with("g-pass") && !m.starts_with("mg-pass")));
    assert!(shown.contains(&"pass@1".to_string()) && shown.contains(&"maj@8".to_string()));
    assert!(table.contains("--all adds"), "{table}");
    let summary = table
        .lines()
        .position(|l| l.starts_with("B vs A on 6 problems: pass@1 +10.42 pts"))
        .unwrap_or_else(|| panic!("no summary line:\n{table}"));
    let verdicts = table
        .lines()
        .position(|l| l.starts_with("verdicts"))
        .unwrap();
    assert!(summary < verdicts);
    let line = table.lines().nth(summary).unwrap();
    // pass^8 and maj@8 are 0/1 per problem: Tango's score interval, and 6
    // problems cannot show a drop under 5 points.
    assert!(
        line.contains("family of 3 (pass@1, pass^8, maj@8)")
            && line.contains("1 non-inferior, 2 inconclusive"),
        "{line}"
    );
    let verdict_lines = table
        .lines()
        .filter(|l| l.contains("→ non-inferior") || l.contains("→ inconclusive"))
        .count();
    assert_eq!(
        verdict_lines,
        shown.iter().filter(|m| *m != "self_consistency").count()
    );
    for m in ["pass^8", "maj@8"] {
        let v = table
            .lines()
            .find(|l| l.starts_with(&format!("  {m}: ")))
            .unwrap();
        assert!(v.ends_with("→ inconclusive"), "{v}");
    }

    let every = table_metrics(&stdout(&run(&[&args[..], &["--all"]].concat())));
    let all: Vec<String> = rows
        .iter()
        .map(|r| r["metric"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(every, all);
}

#[test]
fn unknown_family_names_are_a_usage_error_naming_the_rows() {
    let o = run(&[
        "examples/demo.jsonl",
        "examples/demo-b.jsonl",
        "--family",
        "pass@1,pass@3",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("--family") && e.contains("no row named 'pass@3'") && e.contains("rows: pass@1"),
        "{e}"
    );
}
