//! End-to-end tests of `rollstat gate` on the fixtures of
//! `tests/fixtures/gate/` (written by `scripts/make_gate_fixtures.py`).
//!
//! Every expected number is recomputed here from the fixture rows themselves
//! (the JSONL is parsed in the test) with exact rational arithmetic, or from
//! closed forms (docs/statistics.md §10), never taken from a run of the code
//! under test. The rules are re-derived from the rows the output prints.

mod common;
use common::{close, f, stderr, write};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

// ---------------------------------------------------------------- running

fn dir() -> PathBuf {
    PathBuf::from(common::fixture("gate"))
}

/// `rollstat gate ARGS` run from the fixtures' directory.
fn gate(args: &[&str]) -> Output {
    common::run_in(&dir(), &[&["gate"], args].concat())
}

/// `rollstat gate ARGS --format json` run in `cwd`: the document and the exit code.
#[track_caller]
fn gate_json_in(cwd: &Path, args: &[&str]) -> (Value, i32) {
    let o = common::run_in(cwd, &[&["gate"], args, &["--format", "json"]].concat());
    let code = o.status.code().expect("exit code");
    assert!(
        [0, 1, 3].contains(&code),
        "exit {code}\nstderr: {}",
        stderr(&o)
    );
    let v: Value = serde_json::from_slice(&o.stdout).expect("valid JSON");
    (v, code)
}

#[track_caller]
fn gate_json(args: &[&str]) -> (Value, i32) {
    gate_json_in(&dir(), args)
}

/// A usage error: exit 2; its stderr.
#[track_caller]
fn refused(args: &[&str]) -> String {
    let o = gate(args);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "no document on a refusal");
    stderr(&o)
}

fn row<'a>(g: &'a Value, name: &str) -> &'a Value {
    g["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["name"] == name)
        .unwrap_or_else(|| panic!("no row {name}"))
}

fn names(g: &Value) -> Vec<String> {
    g["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap().to_string())
        .collect()
}

fn strs(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------- the fixtures

/// A fixture file's outcomes: problem → 0/1 per rollout, in rollout order.
fn outcomes(rel: &str) -> BTreeMap<String, Vec<bool>> {
    let text = std::fs::read_to_string(dir().join(rel)).unwrap();
    let mut rows: BTreeMap<String, Vec<(u64, bool)>> = BTreeMap::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value = serde_json::from_str(line).unwrap();
        let p = v["problem"].as_str().unwrap().to_string();
        let r = v["rollout"].as_u64().unwrap();
        rows.entry(p)
            .or_default()
            .push((r, v["correct"].as_bool().unwrap()));
    }
    rows.into_iter()
        .map(|(p, mut v)| {
            v.sort();
            (p, v.into_iter().map(|(_, c)| c).collect())
        })
        .collect()
}

/// A benchmark's matched problems as (c_A, n_A, c_B, n_B), with the
/// problems only A has and only B has.
struct Paired {
    counts: Vec<(u64, u64, u64, u64)>,
    only_a: Vec<String>,
    only_b: Vec<String>,
}

fn paired(a_rel: &str, b_rel: &str) -> Paired {
    let (a, b) = (outcomes(a_rel), outcomes(b_rel));
    let c = |v: &[bool]| (v.iter().filter(|&&x| x).count() as u64, v.len() as u64);
    let counts = a
        .iter()
        .filter_map(|(p, va)| {
            let vb = b.get(p)?;
            let ((ca, na), (cb, nb)) = (c(va), c(vb));
            Some((ca, na, cb, nb))
        })
        .collect();
    let only = |x: &BTreeMap<String, Vec<bool>>, y: &BTreeMap<String, Vec<bool>>| {
        x.keys().filter(|p| !y.contains_key(*p)).cloned().collect()
    };
    Paired {
        counts,
        only_a: only(&a, &b),
        only_b: only(&b, &a),
    }
}

/// McNemar's b (A right, B wrong) and c (the reverse) of a one-rollout benchmark.
fn discordant(p: &Paired) -> (u64, u64) {
    assert!(p.counts.iter().all(|&(_, na, _, nb)| na == 1 && nb == 1));
    let b = p.counts.iter().filter(|&&(ca, _, cb, _)| ca > cb).count();
    let c = p.counts.iter().filter(|&&(ca, _, cb, _)| ca < cb).count();
    (b as u64, c as u64)
}

// ------------------------------------------------------ exact arithmetic

fn q(n: i64, d: i64) -> BigRational {
    BigRational::new(BigInt::from(n), BigInt::from(d))
}

fn fl(x: &BigRational) -> f64 {
    x.to_f64().unwrap()
}

fn choose(n: u64, k: u64) -> BigInt {
    (0..k).fold(BigInt::one(), |acc, i| acc * (n - i) / (i + 1))
}

/// P(X ≥ b), X ~ Bin(m, ½), exactly.
fn upper_tail(b: u64, m: u64) -> BigRational {
    let num: BigInt = (b..=m).map(|k| choose(m, k)).sum();
    BigRational::new(num, BigInt::one() << m)
}

/// Relative closeness (absolute below 1e-300).
#[track_caller]
fn rel_close(got: f64, want: f64, tol: f64) {
    let scale = want.abs().max(1e-300);
    assert!(
        ((got - want) / scale).abs() <= tol,
        "got {got}, want {want}"
    );
}

/// Fisher's combination p: e^{−x/2} Σ_{j<T} (x/2)^j / j!.
fn fisher_p(chi2: f64, t: usize) -> f64 {
    let h = chi2 / 2.0;
    let (mut term, mut sum) = (1.0, 0.0);
    for j in 0..t {
        if j > 0 {
            term *= h / j as f64;
        }
        sum += term;
    }
    (-h).exp() * sum
}

// ------------------------------------------------------------- exit codes

#[test]
fn exit_codes_are_0_go_1_no_go_3_inconclusive_2_bad_input() {
    assert_eq!(gate(&["plan-ok.toml"]).status.code(), Some(0));
    assert_eq!(gate(&["plan.toml"]).status.code(), Some(1));
    let small = ["--baseline", "small/a", "--candidate", "small/b"];
    let o = gate(&[&small[..], &["--margin", "0.05"]].concat());
    assert_eq!(o.status.code(), Some(3), "stderr: {}", stderr(&o));
    refused(&["plan-unknown-key.toml"]);
    refused(&["no-such-plan.toml"]);
    refused(&[]);
    let (g, _) = gate_json(&["plan-ok.toml"]);
    assert_eq!(g["verdict"], "GO");
    let (g, _) = gate_json(&["plan.toml"]);
    assert_eq!(g["verdict"], "NO-GO");
}

/// 20 problems, b = 3, c = 1: a drop of 10 points whose bounds straddle a
/// 5-point margin; the exact p is P(X ≥ 3), X ~ Bin(4, ½) = 5/16.
#[test]
fn a_small_benchmark_straddling_the_margin_is_inconclusive() {
    let args = ["--baseline", "small/a", "--candidate", "small/b"];
    let (g, code) = gate_json(&[&args[..], &["--margin", "0.05"]].concat());
    assert_eq!((code, &g["verdict"]), (3, &Value::from("INCONCLUSIVE")));
    assert_eq!(names(&g), ["tiny"]);
    let r = row(&g, "tiny");
    assert_eq!(r["status"], "INSUFFICIENT");
    let p = paired("small/a/tiny.jsonl", "small/b/tiny.jsonl");
    assert_eq!(discordant(&p), (3, 1));
    close(f(&r["delta"]), -2.0 / 20.0, 1e-15);
    close(f(&r["test"]["p"]), fl(&q(5, 16)), 1e-12);
    let d = &r["drop_bounds"];
    assert!(f(&d[0]) <= 0.05 && f(&d[1]) > 0.05, "{d}");
    // d = B − A: three −1, one +1, sixteen 0; sd (ddof 1) = √(3.8/19), SE = √(0.2/20) = 0.1.
    close(f(&r["stderr"]), 0.1, 1e-12);
    // Problems for the bound to clear the margin at 80% power, one-sided α = 0.05:
    // ⌈(z₀.₉₅ + z₀.₈)² σ² / (drop − margin)²⌉ with σ² = SE²·n = 0.2, gap 0.05.
    let z = 1.6448536269514722 + 0.8416212335729143;
    let needed = (z * z * 0.2 / (0.05f64 * 0.05)).ceil();
    assert_eq!(r["problems_needed"], needed as u64);
    assert_eq!(g["suite"]["margin_rule"]["decision"], "INCONCLUSIVE");
    let why = strs(&g["suite"]["margin_rule"]["reasons"]).join("\n");
    assert!(
        why.contains("tiny") && why.contains("INSUFFICIENT"),
        "{why}"
    );
}

// -------------------------------------------------------- the document

#[test]
fn the_json_document_names_its_schema_and_the_plans_sha256() {
    let (g, _) = gate_json(&["plan.toml"]);
    assert_eq!(g["schema"], "rollstat.gate/1");
    let bytes = std::fs::read(dir().join("plan.toml")).unwrap();
    let want: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(g["plan"]["sha256"], want.as_str());
    assert_eq!(
        g["plan"]["text"],
        String::from_utf8(bytes).unwrap().as_str()
    );
    assert_eq!(g["plan"]["source"], "plan.toml");
    assert_eq!(names(&g), ["aime", "gsm8k", "mmlu"]);
    let tiers: Vec<&Value> = g["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["tier"])
        .collect();
    assert_eq!(tiers, ["critical", "critical", "advisory"]);
    let used: Vec<f64> = ["aime", "gsm8k", "mmlu"]
        .iter()
        .map(|n| f(&row(&g, n)["margin"]["used"]))
        .collect();
    assert_eq!(used, [0.05, 0.02, 0.03]);
    assert_eq!(g["settings"]["weights"], "micro");
    assert_eq!(g["settings"]["suite_margin"], 0.02);
}

#[test]
fn the_short_form_gives_one_row_per_file() {
    let args = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8",
        "--margin",
        "0.01",
    ];
    let (g, code) = gate_json(&args);
    assert_eq!(code, 1);
    let mut got = names(&g);
    got.sort();
    assert_eq!(got, ["aime", "gsm8k", "mmlu"]);
    for (name, n) in [("aime", 30), ("gsm8k", 200), ("mmlu", 60)] {
        let r = row(&g, name);
        assert_eq!(r["n_problems"], n, "{name}");
        assert_eq!(f(&r["margin"]["used"]), 0.01, "{name}");
        assert_eq!(r["tier"], "supporting");
    }
    assert_eq!(g["plan"]["source"], "command line");
    let text = g["plan"]["text"].as_str().unwrap();
    let want: String = Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(g["plan"]["sha256"], want.as_str());
}

// ------------------------------------------------------------ refusals

#[test]
fn flags_are_refused_with_a_plan_file() {
    let e = refused(&["plan.toml", "--margin", "0.01"]);
    assert!(e.contains("--margin") && e.contains("plan"), "{e}");
    let e = refused(&["plan.toml", "--seed", "3", "--weights", "macro"]);
    assert!(e.contains("--seed") && e.contains("--weights"), "{e}");
    let e = refused(&["plan.toml", "--baseline", "bf16", "--candidate", "fp8"]);
    assert!(e.contains("not both"), "{e}");
    let e = refused(&["--baseline", "bf16", "--margin", "0.01"]);
    assert!(e.contains("--candidate"), "{e}");
}

/// Grading flags change the analysis as much as --margin does, and neither
/// the plan nor the document's settings record them.
#[test]
fn grading_flags_are_refused_with_a_plan_file() {
    let e = refused(&["plan-ok.toml", "--match", "exact"]);
    assert!(e.contains("--match"), "{e}");
    let e = refused(&["plan-ok.toml", "--extract", "number"]);
    assert!(e.contains("--extract"), "{e}");
}

#[test]
fn an_unknown_key_names_the_key_and_its_line() {
    let e = refused(&["plan-unknown-key.toml"]);
    assert!(e.contains("tierr"), "{e}");
    assert!(e.contains("plan-unknown-key.toml:7"), "{e}");
}

#[test]
fn a_margin_of_2_names_the_unit() {
    let e = refused(&["plan-margin2.toml"]);
    assert!(e.contains("200 points"), "{e}");
    assert!(e.contains("0.02") && e.contains("2pt"), "{e}");
    let e = refused(&["--baseline", "bf16", "--candidate", "fp8", "--margin", "2"]);
    assert!(e.contains("200 points") && e.contains("0.02"), "{e}");
}

#[test]
fn a_plan_files_bad_margin_names_the_plan_not_a_flag() {
    let e = refused(&["plan-margin2.toml"]);
    assert!(e.contains("plan-margin2.toml"), "{e}");
    assert!(!e.contains("--margin"), "{e}");
}

#[test]
fn bad_settings_are_refused() {
    let short = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8",
        "--margin",
        "0.01",
    ];
    let e = refused(&[&short[..], &["--weights", "declared"]].concat());
    assert!(e.contains("declared"), "{e}");
    let e = refused(&[&short[..], &["--alpha", "0.5"]].concat());
    assert!(e.contains("alpha"), "{e}");
    let e = refused(&[&short[..], &["--rule", "strict"]].concat());
    assert!(e.contains("margin or detect"), "{e}");
    let e = refused(&[&short[..], &["--tier", "blocking"]].concat());
    assert!(e.contains("critical, supporting or advisory"), "{e}");
    let e = refused(&["--baseline", "bf16", "--candidate", "fp8"]);
    assert!(e.contains("margin"), "{e}");
    let e = refused(&[&short[..], &["--metric", "pass@8"]].concat());
    assert!(e.contains("pass@8"), "{e}");
}

#[test]
fn duplicate_benchmark_names_are_refused() {
    let e = refused(&["plan-duplicate.toml"]);
    assert!(e.contains("'gsm8k'") && e.contains("declared twice"), "{e}");
}

/// A declared benchmark whose glob matches nothing is bad input (exit 2),
/// named by benchmark and pattern.
#[test]
fn a_glob_matching_nothing_names_the_benchmark_and_pattern() {
    let e = refused(&["plan-noglob.toml"]);
    assert!(e.contains("'aime'"), "{e}");
    assert!(e.contains("fp8/aime-2025-*.jsonl"), "{e}");
}

// ------------------------------------------------- one side short of data

/// mmlu is on A's side only: MISSING, weight 0, and the margin rule says
/// NO-GO whatever the other rows say.
#[test]
fn a_benchmark_missing_on_one_side_is_missing_and_no_go() {
    let args = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8-ok/aime.jsonl",
        "fp8-ok/gsm8k.jsonl",
        "--margin",
        "0.05",
    ];
    let (g, code) = gate_json(&args);
    assert_eq!((code, &g["verdict"]), (1, &Value::from("NO-GO")));
    let r = row(&g, "mmlu");
    assert_eq!(r["status"], "MISSING");
    assert_eq!((&r["n_problems"], &r["weight"]), (&0.into(), &0.0.into()));
    assert_eq!(g["suite"]["n_benchmarks"], 2);
    let why = strs(&g["suite"]["margin_rule"]["reasons"]).join("\n");
    assert!(why.contains("mmlu") && why.contains("MISSING"), "{why}");
    let missing: Vec<&Value> = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|x| x["kind"] == "benchmark_missing")
        .collect();
    assert_eq!(missing.len(), 1, "{}", g["findings"]);
    assert_eq!(missing[0]["benchmark"], "mmlu");
    assert_eq!(missing[0]["side"], "B");
}

/// partial/gsm8k.jsonl lacks 10 of A's problems and has 2 A lacks: both
/// lists are named, and every number is over the matched problems.
#[test]
fn problems_on_one_side_only_are_counted_and_listed() {
    let (g, _) = gate_json(&["plan-partial.toml"]);
    let p = paired("bf16/gsm8k.jsonl", "partial/gsm8k.jsonl");
    assert_eq!((p.only_a.len(), p.only_b.len()), (10, 2));
    let r = row(&g, "gsm8k");
    assert_eq!(strs(&r["only_a"]), p.only_a);
    assert_eq!(strs(&r["only_b"]), p.only_b);
    assert_eq!(r["n_problems"], p.counts.len() as u64);
    let (b, c) = discordant(&p);
    let n = p.counts.len() as f64;
    close(f(&r["delta"]), (c as f64 - b as f64) / n, 1e-15);
    close(f(&r["test"]["p"]), fl(&upper_tail(b, b + c)), 1e-12);
    let unpaired = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["finding"]["kind"] == "unpaired")
        .expect("an unpaired finding");
    assert_eq!(unpaired["benchmark"], "gsm8k");
    assert_eq!(unpaired["finding"]["matched"], p.counts.len() as u64);
    assert_eq!(strs(&unpaired["finding"]["only_b"]), p.only_b);
}

#[test]
fn different_rollouts_per_side_are_a_finding() {
    let (g, _) = gate_json(&["plan-n.toml"]);
    let r = row(&g, "aime");
    assert_eq!((&r["n_a"], &r["n_b"]), (&4.into(), &8.into()));
    let f = g["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|x| x["finding"]["kind"] == "unequal_rollouts")
        .expect("an unequal_rollouts finding");
    assert_eq!(f["benchmark"], "aime");
    assert_eq!(
        (&f["finding"]["max_a"], &f["finding"]["max_b"]),
        (&4.into(), &8.into())
    );
    check_flips(r, &paired("bf16/aime.jsonl", "n8/aime.jsonl"));
}

// ---------------------------------------------------- independent values

/// Each one-rollout benchmark of bf16 vs fp8: b and c, the one-sided exact
/// McNemar p = P(X ≥ b), X ~ Bin(b + c, ½), z, both accuracies and Δ.
#[test]
fn mcnemar_counts_and_p_match_the_fixture_rows() {
    let (g, _) = gate_json(&["plan.toml"]);
    for name in ["gsm8k", "mmlu"] {
        let p = paired(&format!("bf16/{name}.jsonl"), &format!("fp8/{name}.jsonl"));
        let (b, c) = discordant(&p);
        let r = row(&g, name);
        assert_eq!(r["test"]["method"], "mcnemar-exact");
        assert_eq!(
            (f(&r["flips"]["a_only"]), f(&r["flips"]["b_only"])),
            (b as f64, c as f64)
        );
        rel_close(f(&r["test"]["p"]), fl(&upper_tail(b, b + c)), 1e-9);
        let z = (b as f64 - c as f64) / ((b + c) as f64).sqrt();
        close(f(&r["test"]["z"]), z, 1e-12);
        let n = p.counts.len() as i64;
        let acc = |side: fn(&(u64, u64, u64, u64)) -> u64| {
            q(p.counts.iter().map(side).sum::<u64>() as i64, n)
        };
        let (a_acc, b_acc) = (acc(|x| x.0), acc(|x| x.2));
        close(f(&r["a"]), fl(&a_acc), 1e-15);
        close(f(&r["b"]), fl(&b_acc), 1e-15);
        close(f(&r["delta"]), fl(&(b_acc - a_acc)), 1e-15);
        assert_eq!(r["n_flipped"], b + c);
    }
    assert_eq!(
        discordant(&paired("bf16/gsm8k.jsonl", "fp8/gsm8k.jsonl")),
        (30, 3)
    );
}

/// The suite of the two one-rollout benchmarks: pooled exact p over the
/// summed counts, Fisher's χ² and its closed-form p, and the exact
/// max-drop p = 1 − Π_t P(Z_t < z_max) under independent Bin(m_t, ½).
#[test]
fn suite_tests_of_one_rollout_benchmarks_are_exact() {
    let (g, _) = gate_json(&[
        "--baseline",
        "bf16/gsm8k.jsonl",
        "bf16/mmlu.jsonl",
        "--candidate",
        "fp8/gsm8k.jsonl",
        "fp8/mmlu.jsonl",
        "--margin",
        "0.02",
        "--rule",
        "detect",
    ]);
    let counts: Vec<(u64, u64)> = ["gsm8k", "mmlu"]
        .iter()
        .map(|n| {
            discordant(&paired(
                &format!("bf16/{n}.jsonl"),
                &format!("fp8/{n}.jsonl"),
            ))
        })
        .collect();
    let t = test_map(&g);
    let (b, c) = counts.iter().fold((0, 0), |(x, y), (b, c)| (x + b, y + c));
    close(f(&t["pooled"]["statistic"]), b as f64 - c as f64, 0.0);
    rel_close(f(&t["pooled"]["p"]), fl(&upper_tail(b, b + c)), 1e-9);
    let ps: Vec<BigRational> = counts.iter().map(|&(b, c)| upper_tail(b, b + c)).collect();
    let chi2: f64 = ps.iter().map(|p| -2.0 * fl(p).ln()).sum();
    rel_close(f(&t["fisher"]["statistic"]), chi2, 1e-9);
    rel_close(f(&t["fisher"]["p"]), fisher_p(chi2, 2), 1e-9);
    let z = |&(b, c): &(u64, u64)| (b as f64 - c as f64) / ((b + c) as f64).sqrt();
    let z_max = counts.iter().map(z).fold(f64::NEG_INFINITY, f64::max);
    close(f(&t["max-drop"]["statistic"]), z_max, 1e-12);
    // P(Z_t < z_max) = P(X < x*), x* the least x with z(x) ≥ z_max (ties within 1e-12 count).
    let below = |m: u64| -> BigRational {
        let x_star = (0..=m)
            .find(|&x| z(&(x, m - x)) >= z_max - 1e-12)
            .unwrap_or(m + 1);
        BigRational::one() - upper_tail(x_star, m)
    };
    let prod = counts
        .iter()
        .fold(BigRational::one(), |acc, &(b, c)| acc * below(b + c));
    rel_close(
        f(&t["max-drop"]["p"]),
        fl(&(BigRational::one() - prod)),
        1e-9,
    );
    assert_eq!(g["verdict"], "NO-GO");
    check_rules(&g);
}

fn test_map(g: &Value) -> BTreeMap<String, Value> {
    g["suite"]["tests"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["name"].as_str().unwrap().to_string(), t.clone()))
        .collect()
}

/// Fisher over a mixed suite reads each row's p as printed.
#[test]
fn fisher_combines_the_rows_p_values() {
    for plan in ["plan.toml", "plan-ok.toml"] {
        let (g, _) = gate_json(&[plan]);
        // Advisory benchmarks are shown, never combined.
        let ps: Vec<f64> = g["benchmarks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["tier"] != "advisory")
            .map(|r| f(&r["test"]["p"]))
            .collect();
        let chi2: f64 = ps.iter().map(|p| -2.0 * p.ln()).sum();
        let t = test_map(&g);
        rel_close(f(&t["fisher"]["statistic"]), chi2, 1e-12);
        rel_close(f(&t["fisher"]["p"]), fisher_p(chi2, ps.len()), 1e-9);
        assert!(t["fisher"]["method"].as_str().unwrap().contains("4 df"));
    }
}

/// pass@1 of one side over the matched problems: mean c/n.
fn pass1(p: &Paired, side_b: bool) -> BigRational {
    let sum = p
        .counts
        .iter()
        .fold(BigRational::zero(), |acc, &(ca, na, cb, nb)| {
            acc + if side_b {
                q(cb as i64, nb as i64)
            } else {
                q(ca as i64, na as i64)
            }
        });
    sum / BigInt::from(p.counts.len())
}

/// The suite's weighted difference, micro (∝ matched problems) and macro
/// (each benchmark once), from the fixture rows; its SE from the rows' SEs.
#[test]
fn micro_and_macro_weighted_deltas() {
    let bench = ["aime", "gsm8k", "mmlu"];
    let pairs: Vec<Paired> = bench
        .iter()
        .map(|n| paired(&format!("bf16/{n}.jsonl"), &format!("fp8/{n}.jsonl")))
        .collect();
    let sizes: Vec<i64> = pairs.iter().map(|p| p.counts.len() as i64).collect();
    let total: i64 = sizes.iter().sum();
    for weights in ["micro", "macro"] {
        let args = [
            "--baseline",
            "bf16",
            "--candidate",
            "fp8",
            "--margin",
            "0.02",
        ];
        let (g, _) = gate_json(&[&args[..], &["--weights", weights]].concat());
        let w: Vec<BigRational> = match weights {
            "micro" => sizes.iter().map(|&n| q(n, total)).collect(),
            _ => vec![q(1, 3); 3],
        };
        let mix = |side_b: bool| -> BigRational {
            pairs
                .iter()
                .zip(&w)
                .map(|(p, w)| w * pass1(p, side_b))
                .sum()
        };
        let s = &g["suite"];
        close(f(&s["a"]), fl(&mix(false)), 1e-14);
        close(f(&s["b"]), fl(&mix(true)), 1e-14);
        close(f(&s["delta"]), fl(&(mix(true) - mix(false))), 1e-14);
        let mut var = 0.0;
        for (i, name) in bench.iter().enumerate() {
            let r = row(&g, name);
            close(f(&r["weight"]), fl(&w[i]), 1e-15);
            var += (fl(&w[i]) * f(&r["stderr"])).powi(2);
        }
        close(f(&s["stderr"]), var.sqrt(), 1e-14);
        assert_eq!(s["n_problems"], total);
        assert_eq!(g["settings"]["weights"], weights);
    }
}

/// Flips of a rollout benchmark against the fixture rows: expected
/// discordant contributions, cross flip, the within-model floors
/// mean 2c(n−c)/(n(n−1)) and the unbiased excess-flip estimate.
#[track_caller]
fn check_flips(r: &Value, p: &Paired) {
    let n = BigInt::from(p.counts.len());
    let (mut a_only, mut b_only, mut fa, mut fb, mut ex) = (
        BigRational::zero(),
        BigRational::zero(),
        BigRational::zero(),
        BigRational::zero(),
        BigRational::zero(),
    );
    for &(ca, na, cb, nb) in &p.counts {
        let (ca, na, cb, nb) = (ca as i64, na as i64, cb as i64, nb as i64);
        a_only += q(ca * (nb - cb), na * nb);
        b_only += q(cb * (na - ca), na * nb);
        fa += q(2 * ca * (na - ca), na * (na - 1));
        fb += q(2 * cb * (nb - cb), nb * (nb - 1));
        let (pa, pb) = (q(ca, na), q(cb, nb));
        let one = BigRational::one();
        let d = &pa - &pb;
        ex += &d * &d
            - &pa * (&one - &pa) / BigInt::from(na - 1)
            - &pb * (&one - &pb) / BigInt::from(nb - 1);
    }
    let fl_ = &r["flips"];
    close(f(&fl_["a_only"]), fl(&a_only), 1e-12);
    close(f(&fl_["b_only"]), fl(&b_only), 1e-12);
    close(f(&fl_["rate"]), fl(&((&a_only + &b_only) / &n)), 1e-14);
    let (fa, fb) = (fa / &n, fb / &n);
    close(f(&fl_["floor_a"]), fl(&fa), 1e-14);
    close(f(&fl_["floor_b"]), fl(&fb), 1e-14);
    close(f(&fl_["floor"]), fl(&((fa + fb) / BigInt::from(2))), 1e-14);
    close(f(&fl_["excess"]), fl(&(ex / &n)), 1e-14);
    assert_eq!(fl_["single_draw"], false);
    let ci = &fl_["excess_ci"];
    assert!(
        f(&ci[0]) <= f(&fl_["excess"]) && f(&fl_["excess"]) <= f(&ci[1]),
        "{ci}"
    );
}

#[test]
fn rollout_benchmarks_flips_floor_and_excess() {
    for (plan, cand) in [("plan.toml", "fp8"), ("plan-ok.toml", "fp8-ok")] {
        let (g, _) = gate_json(&[plan]);
        let p = paired("bf16/aime.jsonl", &format!("{cand}/aime.jsonl"));
        check_flips(row(&g, "aime"), &p);
        // z = Σd/√Σd² over per-problem drops d = (c_A − c_B)/4.
        let d = unit_drops("aime", cand, 4);
        let z = d.iter().sum::<i64>() as f64 / (d.iter().map(|x| x * x).sum::<i64>() as f64).sqrt();
        close(f(&row(&g, "aime")["test"]["z"]), z, 1e-12);
        close(
            f(&row(&g, "aime")["delta"]),
            fl(&(pass1(&p, true) - pass1(&p, false))),
            1e-15,
        );
    }
}

// ----------------------------------------------------------------- rules

/// A row's status from its printed drop bounds and margin: PASS when the
/// upper bound is within the margin, BREACH when the lower bound is beyond
/// it, else INSUFFICIENT (MISSING rows have no bounds).
fn expected_status(r: &Value) -> &'static str {
    let d = &r["drop_bounds"];
    if d.is_null() {
        return "MISSING";
    }
    let (lo, hi, m) = (f(&d[0]), f(&d[1]), f(&r["margin"]["used"]));
    // One-sided bounds at 1 − α each sit inside the two-sided 1 − α interval of B − A.
    let ci = &r["ci"];
    assert!(
        lo >= -f(&ci[1]) - 1e-12 && hi <= -f(&ci[0]) + 1e-12,
        "{d} vs {ci}"
    );
    assert!(
        lo <= -f(&r["delta"]) + 1e-12 && -f(&r["delta"]) <= hi + 1e-12,
        "{d}"
    );
    if hi <= m {
        "PASS"
    } else if lo > m {
        "BREACH"
    } else {
        "INSUFFICIENT"
    }
}

/// Every row's status, both rules and the verdict, re-derived from the
/// rows and tests the document prints.
#[track_caller]
fn check_rules(g: &Value) {
    let rows = g["benchmarks"].as_array().unwrap();
    for r in rows {
        assert_eq!(r["status"], expected_status(r), "{}", r["name"]);
        if r["status"] != "INSUFFICIENT" {
            assert!(r["problems_needed"].is_null(), "{}", r["name"]);
        }
    }
    let blocking: Vec<&Value> = rows.iter().filter(|r| r["tier"] != "advisory").collect();
    let any = |s: &str| blocking.iter().any(|r| r["status"] == s);
    let s = &g["suite"];
    let beyond = match (&s["drop_bounds"], &g["settings"]["suite_margin"]) {
        (d, m) if !d.is_null() && !m.is_null() => f(&d[0]) > f(m),
        _ => false,
    };
    assert_eq!(s["beyond_margin"], beyond);
    let margin_rule = if any("BREACH") || any("MISSING") || beyond {
        "NO-GO"
    } else if any("INSUFFICIENT") {
        "INCONCLUSIVE"
    } else {
        "GO"
    };
    assert_eq!(s["margin_rule"]["decision"], margin_rule);
    let each = f(&g["settings"]["alpha"]) / 3.0;
    close(f(&s["alpha_each"]), each, 1e-15);
    let tests = s["tests"].as_array().unwrap();
    assert_eq!(tests.len(), 3);
    for t in tests {
        assert_eq!(t["rejects"], f(&t["p"]) <= each, "{t}");
    }
    let detect = if tests.iter().any(|t| f(&t["p"]) <= each) {
        "NO-GO"
    } else {
        "GO"
    };
    assert_eq!(s["detect_rule"]["decision"], detect);
    let rule = g["settings"]["rule"].as_str().unwrap();
    assert_eq!(g["verdict"], s[format!("{rule}_rule")]["decision"]);
}

#[test]
fn statuses_and_both_rules_follow_from_the_rows() {
    let small = [
        "--baseline",
        "small/a",
        "--candidate",
        "small/b",
        "--margin",
        "0.05",
    ];
    let missing = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8-ok/aime.jsonl",
        "--margin",
        "0.05",
    ];
    let short = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8",
        "--margin",
        "0.01",
    ];
    let runs: Vec<Vec<&str>> = vec![
        vec!["plan.toml"],
        vec!["plan-ok.toml"],
        vec!["plan-partial.toml"],
        vec!["plan-n.toml"],
        small.to_vec(),
        missing.to_vec(),
        short.to_vec(),
        [&short[..], &["--rule", "detect", "--weights", "macro"]].concat(),
        [&small[..], &["--rule", "detect"]].concat(),
    ];
    for args in runs {
        let (g, code) = gate_json(&args);
        check_rules(&g);
        let want = match g["verdict"].as_str().unwrap() {
            "GO" => 0,
            "NO-GO" => 1,
            _ => 3,
        };
        assert_eq!(code, want, "{args:?}");
    }
    let (g, _) = gate_json(&["plan.toml"]);
    assert_eq!(row(&g, "gsm8k")["status"], "BREACH");
    let (g, _) = gate_json(&["plan-ok.toml"]);
    assert_eq!(row(&g, "mmlu")["status"], "INSUFFICIENT"); // advisory: does not block
    assert_eq!(g["verdict"], "GO");
}

/// Clustered by a field with one value, 20 problems are one cluster: no
/// interval can be had (the SE is null), so the drop of 10 points (b = 3,
/// c = 1) must not read as a certain BREACH.
#[test]
fn one_cluster_is_no_evidence_of_a_breach() {
    let tmp = tempfile::tempdir().unwrap();
    for side in ["a", "b"] {
        let text = std::fs::read_to_string(dir().join(format!("small/{side}/tiny.jsonl"))).unwrap();
        let body: String = text
            .lines()
            .map(|l| format!("{}, \"subset\": \"s\"}}\n", l.trim_end_matches('}')))
            .collect();
        write(tmp.path(), &format!("{side}.jsonl"), body);
    }
    let args = [
        "--baseline",
        "a.jsonl",
        "--candidate",
        "b.jsonl",
        "--margin",
        "0.05",
    ];
    let (g, _) = gate_json_in(
        tmp.path(),
        &[&args[..], &["--cluster-by", "subset"]].concat(),
    );
    let r = &g["benchmarks"][0];
    assert_eq!(r["n_problems"], 20);
    assert!(r["stderr"].is_null(), "{r}");
    assert_eq!(
        r["status"], "INSUFFICIENT",
        "drop bounds {}",
        r["drop_bounds"]
    );
    assert_eq!(g["verdict"], "INCONCLUSIVE");
}

// ------------------------------------------------------- reproducibility

/// `-o FILE` writes the document there; the exit code still follows the verdict.
#[test]
fn the_output_file_holds_the_document_and_the_exit_code_the_verdict() {
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("gate.json");
    let o = gate(&["plan.toml", "--format", "json", "-o", out.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
    let g: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(g["verdict"], "NO-GO");
    assert_eq!(g["schema"], "rollstat.gate/1");
}

/// One thread or four: the same document.
#[test]
fn the_thread_count_changes_nothing() {
    let run = |threads: &str| {
        let mut c = common::bin();
        c.current_dir(dir()).env("RAYON_NUM_THREADS", threads);
        let o = c
            .args(["gate", "plan.toml", "--format", "json"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "stderr: {}", stderr(&o));
        o.stdout
    };
    assert_eq!(run("1"), run("4"));
}

/// A simple seeded shuffle (a 64-bit LCG driving Fisher–Yates).
fn shuffle<T>(v: &mut [T], seed: u64) {
    let mut s = seed;
    for i in (1..v.len()).rev() {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        v.swap(i, ((s >> 33) % (i as u64 + 1)) as usize);
    }
}

fn copy_sides(to: &Path, shuffled: bool) {
    for side in ["bf16", "fp8"] {
        std::fs::create_dir_all(to.join(side)).unwrap();
        for name in ["aime", "gsm8k", "mmlu"] {
            let text = std::fs::read_to_string(dir().join(format!("{side}/{name}.jsonl"))).unwrap();
            let mut lines: Vec<&str> = text.lines().collect();
            if shuffled {
                shuffle(&mut lines, 7 + name.len() as u64);
            }
            write(
                to.join(side),
                &format!("{name}.jsonl"),
                lines.join("\n") + "\n",
            );
        }
    }
}

/// The document without the inputs' SHA-256 (a shuffled file's bytes differ).
fn without_input_digests(mut g: Value) -> String {
    for r in g["benchmarks"].as_array_mut().unwrap() {
        for side in ["inputs_a", "inputs_b"] {
            for i in r[side].as_array_mut().unwrap() {
                i.as_object_mut().unwrap().remove("sha256");
            }
        }
    }
    serde_json::to_string_pretty(&g).unwrap()
}

#[test]
fn shuffled_input_lines_give_the_same_document() {
    let tmp = tempfile::tempdir().unwrap();
    let args = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8",
        "--margin",
        "0.02",
    ];
    copy_sides(tmp.path(), false);
    let (ordered, _) = gate_json_in(tmp.path(), &args);
    copy_sides(tmp.path(), true);
    let (shuffled, _) = gate_json_in(tmp.path(), &args);
    assert_ne!(
        std::fs::read_to_string(tmp.path().join("fp8/gsm8k.jsonl")).unwrap(),
        std::fs::read_to_string(dir().join("fp8/gsm8k.jsonl")).unwrap()
    );
    assert_eq!(
        without_input_digests(ordered),
        without_input_digests(shuffled)
    );
}

/// The exact tests' parts of a document: each row's test, the suite's tests.
fn exact_parts(g: &Value) -> Value {
    let rows: Vec<Value> = g["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            serde_json::json!([
                r["name"],
                r["test"],
                r["flips"]["a_only"],
                r["flips"]["b_only"]
            ])
        })
        .collect();
    serde_json::json!([rows, g["suite"]["tests"]])
}

#[test]
fn the_seed_changes_nothing_of_the_exact_tests() {
    let args = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8-ok",
        "--margin",
        "0.05",
    ];
    let (one, _) = gate_json(&[&args[..], &["--seed", "1"]].concat());
    let (two, _) = gate_json(&[&args[..], &["--seed", "987654321"]].concat());
    assert_eq!(
        (&one["settings"]["seed"], &two["settings"]["seed"]),
        (&1.into(), &987654321u64.into())
    );
    for r in one["benchmarks"].as_array().unwrap() {
        let m = r["test"]["method"].as_str().unwrap();
        assert!(m == "mcnemar-exact" || m == "sign-flip-exact", "{m}");
    }
    for t in one["suite"]["tests"].as_array().unwrap() {
        let m = t["method"].as_str().unwrap();
        assert!(!m.contains("random"), "{m}");
    }
    assert_eq!(exact_parts(&one), exact_parts(&two));
}

// --------------------------------------------------------- flipped lists

/// The flipped problems of gsm8k (one rollout a side) carry each side's
/// answer as the fixture has it.
#[test]
fn flipped_problems_carry_their_answers() {
    let (g, _) = gate_json(&["plan.toml"]);
    let answers = |rel: &str| -> BTreeMap<String, String> {
        let text = std::fs::read_to_string(dir().join(rel)).unwrap();
        text.lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .map(|v| {
                (
                    v["problem"].as_str().unwrap().into(),
                    v["answer"].as_str().unwrap().into(),
                )
            })
            .collect()
    };
    let (a, b) = (answers("bf16/gsm8k.jsonl"), answers("fp8/gsm8k.jsonl"));
    let r = row(&g, "gsm8k");
    let listed = r["flipped"].as_array().unwrap();
    assert_eq!(listed.len(), 20);
    for x in listed {
        let p = x["problem"].as_str().unwrap();
        assert_eq!(strs(&x["a"]["answers"]), [a[p].clone()], "{p}");
        assert_eq!(strs(&x["b"]["answers"]), [b[p].clone()], "{p}");
    }
}

/// The listed flipped problems of aime: every problem whose correct
/// fraction differs, largest drop first (B's losses, then its gains), ties
/// by name, at most 20.
#[test]
fn flipped_problems_are_listed_largest_drop_first() {
    let (g, _) = gate_json(&["plan.toml"]);
    let a = outcomes("bf16/aime.jsonl");
    let b = outcomes("fp8/aime.jsonl");
    let frac = |v: &[bool]| v.iter().filter(|&&x| x).count() as f64 / v.len() as f64;
    let mut want: Vec<(String, f64)> = a
        .iter()
        .map(|(p, va)| (p.clone(), frac(va) - frac(&b[p])))
        .filter(|(_, d)| *d != 0.0)
        .collect();
    let r = row(&g, "aime");
    assert_eq!(r["n_flipped"], want.len() as u64);
    want.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(&y.0)));
    want.truncate(20);
    let got: Vec<(String, f64)> = r["flipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| (x["problem"].as_str().unwrap().to_string(), f(&x["drop"])))
        .collect();
    assert_eq!(got, want);
    for x in r["flipped"].as_array().unwrap() {
        let p = x["problem"].as_str().unwrap();
        let c = |v: &[bool]| v.iter().filter(|&&x| x).count() as u64;
        assert_eq!((&x["a"]["c"], &x["a"]["n"]), (&c(&a[p]).into(), &4.into()));
        assert_eq!((&x["b"]["c"], &x["b"]["n"]), (&c(&b[p]).into(), &4.into()));
    }
}

/// With --mid-p: P(X > b) + ½ P(X = b) per benchmark and pooled.
#[test]
fn mid_p_per_benchmark_and_pooled() {
    let (g, _) = gate_json(&[
        "--baseline",
        "bf16/gsm8k.jsonl",
        "bf16/mmlu.jsonl",
        "--candidate",
        "fp8/gsm8k.jsonl",
        "fp8/mmlu.jsonl",
        "--margin",
        "0.02",
        "--mid-p",
    ]);
    let mid = |b: u64, m: u64| -> f64 {
        let eq = BigRational::new(choose(m, b), BigInt::one() << m);
        fl(&(upper_tail(b, m) - eq / BigInt::from(2)))
    };
    let (mut sb, mut sc) = (0, 0);
    for name in ["gsm8k", "mmlu"] {
        let (b, c) = discordant(&paired(
            &format!("bf16/{name}.jsonl"),
            &format!("fp8/{name}.jsonl"),
        ));
        let r = row(&g, name);
        assert_eq!(r["test"]["method"], "mcnemar-mid-p");
        rel_close(f(&r["test"]["p"]), mid(b, b + c), 1e-9);
        (sb, sc) = (sb + b, sc + c);
    }
    rel_close(f(&test_map(&g)["pooled"]["p"]), mid(sb, sb + sc), 1e-9);
    assert_eq!(g["settings"]["mid_p"], true);
}

/// One file holding two subsets: each subset is a benchmark.
#[test]
fn subsets_split_a_file_into_benchmarks() {
    let tmp = tempfile::tempdir().unwrap();
    let rows = |flip: usize| -> String {
        (0..24)
            .map(|i| {
                let s = if i % 2 == 0 { "x" } else { "y" };
                let c = (i % 3 != 0) != (i == flip);
                format!("{{\"problem\": \"q{i}\", \"subset\": \"{s}\", \"correct\": {c}}}\n")
            })
            .collect()
    };
    write(tmp.path(), "a.jsonl", rows(99));
    write(tmp.path(), "b.jsonl", rows(4));
    let args = [
        "--baseline",
        "a.jsonl",
        "--candidate",
        "b.jsonl",
        "--margin",
        "0.5",
    ];
    let (g, _) = gate_json_in(tmp.path(), &args);
    assert_eq!(names(&g), ["x", "y"]);
    assert_eq!(
        (&row(&g, "x")["n_problems"], &row(&g, "y")["n_problems"]),
        (&12.into(), &12.into())
    );
    // q4 (subset x) is right in A and wrong in B: b = 1, c = 0 → p = ½.
    close(f(&row(&g, "x")["test"]["p"]), 0.5, 1e-12);
    close(f(&row(&g, "y")["test"]["p"]), 1.0, 0.0);
}

/// The suite's normal interval and one-sided drop bounds (both z₀.₉₅),
/// and Cochran's Q over the rows (w = 1/se², 2 df: p = e^{−Q/2}), I².
#[test]
fn suite_interval_and_heterogeneity_from_the_rows() {
    let (g, _) = gate_json(&["plan.toml"]);
    let s = &g["suite"];
    let (d, se) = (f(&s["delta"]), f(&s["stderr"]));
    // ci's ends are the one-sided 1 − α bounds (z₀.₉₅), as the drop's.
    let z1 = 1.6448536269514722;
    close(f(&s["ci"][0]), d - z1 * se, 1e-12);
    close(f(&s["ci"][1]), d + z1 * se, 1e-12);
    close(f(&s["drop_bounds"][0]), -d - z1 * se, 1e-12);
    close(f(&s["drop_bounds"][1]), -d + z1 * se, 1e-12);
    let rows: Vec<&Value> = g["benchmarks"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["tier"] != "advisory")
        .collect();
    let w: Vec<f64> = rows.iter().map(|r| f(&r["stderr"]).powi(-2)).collect();
    let th: Vec<f64> = rows.iter().map(|r| f(&r["delta"])).collect();
    let mean = th.iter().zip(&w).map(|(t, w)| t * w).sum::<f64>() / w.iter().sum::<f64>();
    let q: f64 = th.iter().zip(&w).map(|(t, w)| w * (t - mean).powi(2)).sum();
    let h = &s["heterogeneity"];
    rel_close(f(&h["q"]), q, 1e-9);
    // Two blocking benchmarks (mmlu is advisory): 1 df, p = erfc(√(Q/2)).
    assert_eq!(h["df"], 1);
    rel_close(f(&h["p"]), erfc((q / 2.0).sqrt()), 1e-6);
    close(f(&h["i2"]), ((q - 1.0) / q).max(0.0), 1e-9);
    assert_eq!(strs(&h["up"]), ["aime"]);
    assert_eq!(strs(&h["down"]), ["gsm8k"]);
}

/// erfc by Numerical Recipes' Chebyshev fit (relative error < 1.2e-7).
fn erfc(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.5 * x.abs());
    let c = [
        -1.26551223,
        1.00002368,
        0.37409196,
        0.09678418,
        -0.18628806,
        0.27886807,
        -1.13520398,
        1.48851587,
        -0.82215223,
        0.17087277,
    ];
    let poly = c.iter().rev().fold(0.0, |acc, k| acc * t + k);
    let r = t * (-x * x + poly).exp();
    if x >= 0.0 {
        r
    } else {
        2.0 - r
    }
}

/// --relative-margin: each row's margin is min(absolute, relative × A),
/// A from the fixture rows.
#[test]
fn relative_margins_use_each_benchmarks_baseline() {
    let args = [
        "--baseline",
        "bf16",
        "--candidate",
        "fp8-ok",
        "--margin",
        "0.03",
    ];
    let (g, _) = gate_json(&[&args[..], &["--relative-margin", "0.05"]].concat());
    for name in ["aime", "gsm8k", "mmlu"] {
        let p = paired(
            &format!("bf16/{name}.jsonl"),
            &format!("fp8-ok/{name}.jsonl"),
        );
        let a = fl(&pass1(&p, false));
        let m = &row(&g, name)["margin"];
        assert_eq!((f(&m["absolute"]), f(&m["relative"])), (0.03, 0.05));
        close(f(&m["used"]), 0.03f64.min(0.05 * a), 1e-15);
    }
    check_rules(&g);
}

/// A plan's relative paths start from the plan's directory, whatever the
/// working directory; a plan that lets the benchmarks be discovered gives
/// the short form's rows.
#[test]
fn plan_paths_start_from_the_plans_directory() {
    let from_root = common::run(&[
        "gate",
        "crates/rollstat-cli/tests/fixtures/gate/plan.toml",
        "--format",
        "json",
    ]);
    assert_eq!(
        from_root.status.code(),
        Some(1),
        "stderr: {}",
        stderr(&from_root)
    );
    let g: Value = serde_json::from_slice(&from_root.stdout).unwrap();
    let (here, _) = gate_json(&["plan.toml"]);
    assert_eq!(g["benchmarks"].as_array().unwrap().len(), 3);
    for name in ["aime", "gsm8k", "mmlu"] {
        assert_eq!(row(&g, name)["test"], row(&here, name)["test"]);
        assert_eq!(
            row(&g, name)["drop_bounds"],
            row(&here, name)["drop_bounds"]
        );
    }
    let tmp = tempfile::tempdir().unwrap();
    let d = dir();
    let text = format!(
        "baseline = '{}'\ncandidate = '{}'\nmargin = 0.01\n",
        d.join("bf16").display(),
        d.join("fp8").display()
    );
    let plan = write(tmp.path(), "discover.toml", text);
    let (by_plan, _) = gate_json_in(tmp.path(), &[&plan]);
    let (short, _) = gate_json(&[
        "--baseline",
        "bf16",
        "--candidate",
        "fp8",
        "--margin",
        "0.01",
    ]);
    assert_eq!(names(&by_plan), names(&short));
    for name in names(&short) {
        for key in ["status", "delta", "drop_bounds", "test", "flips"] {
            assert_eq!(
                row(&by_plan, &name)[key],
                row(&short, &name)[key],
                "{name} {key}"
            );
        }
    }
    assert_eq!(by_plan["suite"]["tests"], short["suite"]["tests"]);
}

// ---------------------------------------------- sign flips, enumerated

/// The distribution of Σ s_i m_i over every sign pattern of the nonzero
/// integer magnitudes m (pattern counts, out of 2^m).
fn sign_sums(mags: &[i64]) -> BTreeMap<i64, u128> {
    let mut dist = BTreeMap::from([(0i64, 1u128)]);
    for &m in mags.iter().filter(|&&m| m != 0) {
        let mut next = BTreeMap::new();
        for (&s, &k) in &dist {
            *next.entry(s + m.abs()).or_insert(0) += k;
            *next.entry(s - m.abs()).or_insert(0) += k;
        }
        dist = next;
    }
    dist
}

/// One-sided exact sign-flip p of integer drops: P(Σ s|d| ≥ Σ d).
fn exact_sign_flip_p(d: &[i64]) -> f64 {
    let dist = sign_sums(d);
    let observed: i64 = d.iter().sum();
    let total: u128 = dist.values().sum();
    let hits: u128 = dist.range(observed..).map(|(_, k)| k).sum();
    hits as f64 / total as f64
}

/// Per-problem drops A − B of a fixture benchmark in units of 1/n
/// (n rollouts a side, the same on both).
fn unit_drops(bench: &str, cand: &str, n: i64) -> Vec<i64> {
    paired(
        &format!("bf16/{bench}.jsonl"),
        &format!("{cand}/{bench}.jsonl"),
    )
    .counts
    .iter()
    .map(|&(ca, na, cb, nb)| {
        assert_eq!((na as i64, nb as i64), (n, n));
        ca as i64 - cb as i64
    })
    .collect()
}

/// aime's sign-flip p: exact under fp8-ok (2 nonzero drops), random under
/// fp8 (within 4 Monte Carlo SE of the enumerated p).
#[test]
fn the_sign_flip_p_of_a_rollout_benchmark_matches_enumeration() {
    let (g, _) = gate_json(&["plan-ok.toml"]);
    let t = &row(&g, "aime")["test"];
    assert_eq!(t["method"], "sign-flip-exact");
    close(
        f(&t["p"]),
        exact_sign_flip_p(&unit_drops("aime", "fp8-ok", 4)),
        1e-12,
    );
    let (g, _) = gate_json(&["plan.toml"]);
    let t = &row(&g, "aime")["test"];
    assert_eq!(t["method"], "sign-flip-random");
    let p = exact_sign_flip_p(&unit_drops("aime", "fp8", 4));
    let r = f(&g["settings"]["permutations"]);
    let tol = 4.0 * (p * (1.0 - p) / r).sqrt() + 2.0 / r;
    assert!((f(&t["p"]) - p).abs() < tol, "{} vs exact {p}", t["p"]);
}

/// plan-ok's suite (micro weights, so T ∝ Σ d over all problems): the
/// pooled sign-flip p, and the exact max-drop p = 1 − Π_t P(z_t* < z_max).
#[test]
fn pooled_and_max_drop_sign_flips_of_a_mixed_suite_are_exact() {
    let (g, _) = gate_json(&["plan-ok.toml"]);
    let aime = unit_drops("aime", "fp8-ok", 4);
    let one = |b: &str| -> Vec<i64> { unit_drops(b, "fp8-ok", 1).iter().map(|d| 4 * d).collect() };
    // mmlu is advisory: shown, never combined.
    let all: Vec<i64> = [aime.clone(), one("gsm8k")].concat();
    let t = test_map(&g);
    assert!(t["pooled"]["method"].as_str().unwrap().contains("exact"));
    close(f(&t["pooled"]["p"]), exact_sign_flip_p(&all), 1e-12);
    close(
        f(&t["pooled"]["statistic"]),
        all.iter().sum::<i64>() as f64 / 4.0 / 230.0,
        1e-15,
    );
    let benches = [aime, one("gsm8k")];
    let z = |d: &[i64], s: i64| s as f64 / (d.iter().map(|x| x * x).sum::<i64>() as f64).sqrt();
    let z_max = benches
        .iter()
        .map(|d| z(d, d.iter().sum()))
        .fold(f64::NEG_INFINITY, f64::max);
    close(f(&t["max-drop"]["statistic"]), z_max, 1e-12);
    let mut below = 1.0;
    for d in &benches {
        let dist = sign_sums(d);
        let total: u128 = dist.values().sum();
        let under: u128 = dist
            .iter()
            .filter(|(&s, _)| z(d, s) < z_max - 1e-12)
            .map(|(_, k)| k)
            .sum();
        below *= under as f64 / total as f64;
    }
    close(f(&t["max-drop"]["p"]), 1.0 - below, 1e-12);
}

/// Whether a JSON value holds a negative zero anywhere.
fn has_negative_zero(v: &Value) -> bool {
    match v {
        Value::Number(n) => n.as_f64().is_some_and(|x| x == 0.0 && x.is_sign_negative()),
        Value::Array(a) => a.iter().any(has_negative_zero),
        Value::Object(o) => o.values().any(has_negative_zero),
        _ => false,
    }
}

/// Identical sides: every drop is 0, printed as 0, not −0. (No
/// discordant problem is not proof of a drop under 1 point on a few
/// hundred problems — Tango's interval is ±z²/(N + z²) — so the margin is
/// wide enough to pass.)
#[test]
fn identical_sides_print_no_negative_zero() {
    let args = [
        "--baseline",
        "bf16",
        "--candidate",
        "bf16",
        "--margin",
        "0.5",
    ];
    let o = common::run_in(
        &dir(),
        &[&["gate"], &args[..], &["--format", "json"]].concat(),
    );
    assert_eq!(o.status.code(), Some(0), "stderr: {}", stderr(&o));
    let g: Value = serde_json::from_slice(&o.stdout).unwrap();
    let rows = g["benchmarks"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["status"] == "PASS"));
    assert!(!has_negative_zero(&g), "{}", rows[0]["drop_bounds"]);
}

/// No problem in common: the message names each side once.
#[test]
fn no_problem_in_common_names_each_side_once() {
    let e = refused(&[
        "--baseline",
        "bf16/gsm8k.jsonl",
        "--candidate",
        "fp8/mmlu.jsonl",
        "--margin",
        "0.05",
    ]);
    assert!(e.contains("no problem appears in both"), "{e}");
    assert!(!e.contains("A (A ("), "{e}");
}

/// A duplicated rollout inside a gate side is advised in the gate's terms:
/// it has no `--dedupe` (report's advice), with flags or with a plan.
#[test]
fn duplicated_rollouts_are_advised_without_a_flag_the_gate_lacks() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let row = |p: u32, r: u32, ok: bool| {
        format!("{{\"problem\": \"p{p}\", \"rollout\": {r}, \"correct\": {ok}}}\n")
    };
    let clean: String = (0..10).map(|p| row(p, 0, p % 2 == 0)).collect();
    std::fs::write(d.join("a.jsonl"), &clean).unwrap();
    std::fs::write(d.join("b.jsonl"), clean + &row(3, 0, true)).unwrap();
    std::fs::write(
        d.join("plan.toml"),
        "margin = 0.05\nbaseline = \"a.jsonl\"\ncandidate = \"b.jsonl\"\n",
    )
    .unwrap();
    for args in [
        vec![
            "gate",
            "--baseline",
            "a.jsonl",
            "--candidate",
            "b.jsonl",
            "--margin",
            "0.05",
        ],
        vec!["gate", "plan.toml"],
    ] {
        let o = common::run_in(d, &args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = common::stderr(&o);
        assert!(e.contains("reading B (candidate): "), "{e}");
        assert!(
            e.contains(
                "duplicated rollout(s) in all — fix the input (a gate reads each rollout once)"
            ),
            "{e}"
        );
        assert!(!e.contains("--dedupe"), "{e}");
    }
}
