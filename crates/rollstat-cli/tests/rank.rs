//! End-to-end tests of `rollstat rank` on the fixtures of
//! `tests/fixtures/rank/` (written by `scripts/make_rank_fixtures.py`).
//!
//! Every expected number is recomputed here from the fixture rows (the JSONL
//! is parsed in the test): means of per-problem means, competition ranks,
//! exact McNemar p's with integer binomial sums, Holm by hand, Friedman /
//! Iman–Davenport / Nemenyi from their closed forms (docs/rank.md) — never
//! taken from a run of the code under test.

mod common;
use common::{close, f, stderr};
use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use serde_json::Value;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Output;

const ALPHA: f64 = 0.05;
const SINGLE: [&str; 6] = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"];

// ---------------------------------------------------------------- running

fn dir() -> PathBuf {
    PathBuf::from(common::fixture("rank"))
}

/// `rollstat rank ARGS` run in `cwd`.
fn rank_in(cwd: &Path, args: &[&str]) -> Output {
    common::run_in(cwd, &[&["rank"], args].concat())
}

/// `rollstat rank ARGS --format json` in the fixtures' directory: the document.
#[track_caller]
fn rank_json(args: &[&str]) -> Value {
    common::json(&rank_in(&dir(), &[args, &["--format", "json"]].concat()))
}

/// A refusal: exit 2, nothing on stdout; its stderr.
#[track_caller]
fn refused(args: &[&str]) -> String {
    let o = rank_in(&dir(), args);
    assert_eq!(o.status.code(), Some(2), "stderr: {}", stderr(&o));
    assert!(o.stdout.is_empty(), "no document on a refusal");
    stderr(&o)
}

fn single_files() -> Vec<String> {
    SINGLE.iter().map(|s| format!("single/{s}.jsonl")).collect()
}

fn single_json() -> Value {
    let files = single_files();
    rank_json(&files.iter().map(String::as_str).collect::<Vec<_>>())
}

fn system<'a>(r: &'a Value, name: &str) -> &'a Value {
    r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no system {name}"))
}

fn names(v: &Value) -> Vec<String> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

// ---------------------------------------------------------------- fixture rows

/// system → problem → (correct, rollouts); problems keyed by (subset, id).
type Table = BTreeMap<String, BTreeMap<(String, String), (u64, u64)>>;

fn rows(rel: &str) -> Vec<Value> {
    std::fs::read_to_string(dir().join(rel))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// Adds the rows of `rel` to `t`, the system named `name` or by `field`.
fn add(t: &mut Table, rel: &str, name: Option<&str>, field: &str) {
    for r in rows(rel) {
        let sys = name.map_or_else(|| r[field].as_str().unwrap().to_string(), str::to_string);
        let subset = r["subset"].as_str().unwrap_or("").to_string();
        let key = (subset, r["problem"].as_str().unwrap().to_string());
        let e = t.entry(sys).or_default().entry(key).or_default();
        e.0 += u64::from(r["correct"].as_bool().unwrap());
        e.1 += 1;
    }
}

fn single_table() -> Table {
    let mut t = Table::new();
    for s in SINGLE {
        add(&mut t, &format!("single/{s}.jsonl"), Some(s), "");
    }
    t
}

fn models_table() -> Table {
    let mut t = Table::new();
    add(&mut t, "models.jsonl", None, "model");
    t
}

/// The problems every system has.
fn shared(t: &Table) -> Vec<(String, String)> {
    let first = t.values().next().unwrap();
    first
        .keys()
        .filter(|k| t.values().all(|s| s.contains_key(*k)))
        .cloned()
        .collect()
}

/// Mean over `problems` of each problem's mean over its rollouts.
fn value(t: &Table, sys: &str, problems: &[(String, String)]) -> f64 {
    let s = &t[sys];
    let sum: f64 = problems.iter().map(|k| s[k].0 as f64 / s[k].1 as f64).sum();
    sum / problems.len() as f64
}

/// Competition ranks ("1224"): ties share the smallest rank.
fn min_ranks(values: &[f64]) -> Vec<u32> {
    values
        .iter()
        .map(|&x| 1 + values.iter().filter(|&&y| y > x).count() as u32)
        .collect()
}

// ---------------------------------------------------------------- exact McNemar and Holm

fn binom(n: u64, k: u64) -> BigInt {
    (0..k).fold(BigInt::one(), |acc, i| acc * (n - i) / (i + 1))
}

/// Exact two-sided McNemar: min(1, 2·P(X ≤ min(b, c))), X ~ Bin(b + c, ½).
fn mcnemar(b: u64, c: u64) -> BigRational {
    let n = b + c;
    if n == 0 {
        return BigRational::one();
    }
    let tail: BigInt = (0..=b.min(c)).map(|i| binom(n, i)).sum();
    let p = BigRational::new(tail * 2, BigInt::one() << n);
    p.min(BigRational::one())
}

/// Discordant counts (x = 1, y = 0) and (x = 0, y = 1) on single draws.
fn discordant(t: &Table, x: &str, y: &str) -> (u64, u64) {
    let (mut b, mut c) = (0, 0);
    for k in shared(t) {
        match (t[x][&k].0, t[y][&k].0) {
            (1, 0) => b += 1,
            (0, 1) => c += 1,
            _ => {}
        }
    }
    (b, c)
}

/// Holm's step-down adjustment of `p` (same order out).
fn holm(p: &[BigRational]) -> Vec<BigRational> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| p[a].cmp(&p[b]));
    let mut out = vec![BigRational::zero(); m];
    let mut running = BigRational::zero();
    for (l, &i) in idx.iter().enumerate() {
        let scaled = (&p[i] * BigInt::from((m - l) as u64)).min(BigRational::one());
        running = running.max(scaled);
        out[i] = running.clone();
    }
    out
}

/// Every unordered pair of (a)'s systems: (x, y, exact p, Holm p).
fn single_pairs() -> Vec<(String, String, f64, f64)> {
    let t = single_table();
    let mut pairs = Vec::new();
    for (i, x) in SINGLE.iter().enumerate() {
        for y in &SINGLE[i + 1..] {
            let (b, c) = discordant(&t, x, y);
            pairs.push((x.to_string(), y.to_string(), mcnemar(b, c)));
        }
    }
    let adj = holm(&pairs.iter().map(|p| p.2.clone()).collect::<Vec<_>>());
    pairs
        .into_iter()
        .zip(adj)
        .map(|((x, y, p), a)| (x, y, p.to_f64().unwrap(), a.to_f64().unwrap()))
        .collect()
}

/// Benjamini–Hochberg's step-up adjustment of `p` (same order out).
fn bh(p: &[BigRational]) -> Vec<BigRational> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| p[a].cmp(&p[b]));
    let mut out = vec![BigRational::zero(); m];
    let mut running = BigRational::one();
    for (l, &i) in idx.iter().enumerate().rev() {
        let scaled = &p[i] * BigRational::new(BigInt::from(m as u64), BigInt::from(l as u64 + 1));
        running = running.min(scaled);
        out[i] = running.clone();
    }
    out
}

fn adjusted(pairs: &[(String, String, f64, f64)], x: &str, y: &str) -> f64 {
    pairs
        .iter()
        .find(|p| (p.0 == x && p.1 == y) || (p.0 == y && p.1 == x))
        .unwrap()
        .3
}

// ---------------------------------------------------------------- (a) one system per file

#[test]
fn json_has_the_schema_and_lists_systems_best_first() {
    let r = single_json();
    assert_eq!(r["schema"], "rollstat.rank/1");
    assert_eq!(r["n_problems"], 150);
    assert_eq!(r["settings"]["pair_test"], "mcnemar-exact");
    assert_eq!(r["settings"]["adjust"], "holm");
    let sys = r["systems"].as_array().unwrap();
    assert_eq!(sys.len(), 6);
    for w in sys.windows(2) {
        assert!(f(&w[0]["value"]) >= f(&w[1]["value"]), "best first");
        assert!(w[0]["rank"].as_u64() <= w[1]["rank"].as_u64());
    }
    assert_eq!(sys[0]["name"], "alpha");
    assert_eq!(sys[5]["name"], "foxtrot");
    assert_eq!(r["pairs"].as_array().unwrap().len(), 15);
    assert!(r["suite"].is_null() && r["curve"].is_null());
}

#[test]
fn values_and_ranks_are_means_of_problem_means_with_ties_by_minimum() {
    let r = single_json();
    let t = single_table();
    let problems = shared(&t);
    let values: Vec<f64> = SINGLE.iter().map(|s| value(&t, s, &problems)).collect();
    let ranks = min_ranks(&values);
    for (i, s) in SINGLE.iter().enumerate() {
        let row = system(&r, s);
        close(f(&row["value"]), values[i], 1e-12);
        assert_eq!(row["rank"].as_u64(), Some(u64::from(ranks[i])), "{s}");
        assert_eq!(row["dropped"], 0);
        assert_eq!(row["rollouts"], 1);
        let [lo, hi] = [&row["rank_interval"][0], &row["rank_interval"][1]].map(f);
        assert!(
            lo <= ranks[i] as f64 && ranks[i] as f64 <= hi,
            "{s}: {lo}..{hi}"
        );
        let [slo, shi] = [&row["rank_set"][0], &row["rank_set"][1]].map(f);
        assert!(
            slo <= lo && hi <= shi,
            "{s}: the simultaneous set holds the marginal one"
        );
    }
}

#[test]
fn every_pair_has_the_exact_mcnemar_p_and_its_holm_adjustment() {
    let r = single_json();
    let expect = single_pairs();
    for row in r["pairs"].as_array().unwrap() {
        let (a, b) = (row["a"].as_str().unwrap(), row["b"].as_str().unwrap());
        let e = expect
            .iter()
            .find(|p| (p.0 == a && p.1 == b) || (p.0 == b && p.1 == a))
            .unwrap();
        assert_eq!(row["method"], "mcnemar-exact");
        close(f(&row["p"]), e.2, 1e-12 * e.2.max(1e-300) + 1e-15);
        close(f(&row["p_adjusted"]), e.3, 1e-12 * e.3.max(1e-300) + 1e-15);
        assert_eq!(row["separated"].as_bool(), Some(e.3 <= ALPHA), "{a} vs {b}");
        let diff = f(&system(&r, a)["value"]) - f(&system(&r, b)["value"]);
        close(f(&row["diff"]), diff, 1e-12);
        assert!(
            f(&system(&r, a)["rank"]) <= f(&system(&r, b)["rank"]),
            "a ranks above b"
        );
    }
}

/// Two systems share a letter iff their Holm-adjusted p > α; the top tier
/// is every system sharing a letter with #1.
#[test]
fn letters_share_exactly_the_unseparated_pairs_and_define_the_top_tier() {
    let r = single_json();
    let pairs = single_pairs();
    let letters = |s: &str| system(&r, s)["letters"].as_str().unwrap().to_string();
    for (x, y, _, adj) in &pairs {
        let share = letters(x).chars().any(|c| letters(y).contains(c));
        assert_eq!(
            share,
            *adj > ALPHA,
            "{x} ({}) vs {y} ({})",
            letters(x),
            letters(y)
        );
    }
    let best = r["systems"][0]["name"].as_str().unwrap().to_string();
    let tier: Vec<String> = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .filter(|s| *s == best || adjusted(&pairs, &best, s) > ALPHA)
        .collect();
    assert_eq!(names(&r["top_tier"]), tier);
    assert_eq!(tier, ["alpha", "bravo"], "the two better systems");
}

#[test]
fn the_anchor_walk_has_unadjusted_p_against_number_one() {
    let r = single_json();
    let t = single_table();
    let sys = r["systems"].as_array().unwrap();
    let best = sys[0]["name"].as_str().unwrap();
    let walk = r["anchor_walk"].as_array().unwrap();
    assert_eq!(walk.len(), 5);
    let mut first = None;
    for (step, s) in walk.iter().zip(&sys[1..]) {
        let name = s["name"].as_str().unwrap();
        assert_eq!(step["system"], name, "the walk goes down the ranks");
        let (b, c) = discordant(&t, best, name);
        let p = mcnemar(b, c).to_f64().unwrap();
        close(f(&step["p"]), p, 1e-12 * p.max(1e-300) + 1e-15);
        close(
            f(&step["diff"]),
            f(&sys[0]["value"]) - f(&s["value"]),
            1e-12,
        );
        if p < ALPHA && first.is_none() {
            first = s["rank"].as_u64();
        }
    }
    assert_eq!(r["first_separated_rank"].as_u64(), first);
    assert_eq!(
        first,
        Some(3),
        "the middle systems are separated unadjusted"
    );
}

#[test]
fn the_winners_curse_adjustment_does_not_raise_a_close_best() {
    let r = single_json();
    assert_eq!(r["best"]["system"], "alpha");
    assert_eq!(r["best"]["method"], "hybrid-conditional");
    close(
        f(&r["best"]["naive"]),
        f(&system(&r, "alpha")["value"]),
        1e-12,
    );
    let b = &r["best"];
    assert!(f(&b["adjusted"]) <= f(&b["naive"]));
    assert!(f(&b["bootstrap_adjusted"]) <= f(&b["naive"]));
    assert!(f(&b["adjusted_ci"][0]) <= f(&b["adjusted"]));
    assert!(f(&b["adjusted"]) <= f(&b["adjusted_ci"][1]));
}

#[test]
fn shuffled_lines_give_the_same_document() {
    let tmp = tempfile::tempdir().unwrap();
    for s in SINGLE {
        let rel = format!("single/{s}.jsonl");
        let text = std::fs::read_to_string(dir().join(&rel)).unwrap();
        let mut lines: Vec<&str> = text.lines().collect();
        // A fixed permutation: odd lines reversed, then the even ones.
        let (odd, even): (Vec<_>, Vec<_>) =
            lines.drain(..).enumerate().partition(|(i, _)| i % 2 == 1);
        let body: Vec<&str> = odd.iter().rev().chain(&even).map(|(_, l)| *l).collect();
        common::write(tmp.path(), &format!("{s}.jsonl"), body.join("\n") + "\n");
    }
    let files: Vec<String> = SINGLE.iter().map(|s| format!("{s}.jsonl")).collect();
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let shuffled = common::json(&rank_in(
        tmp.path(),
        &[&args[..], &["--format", "json"]].concat(),
    ));
    let strip = |mut v: Value| {
        for s in v["systems"].as_array_mut().unwrap() {
            s.as_object_mut().unwrap().remove("inputs");
        }
        v
    };
    assert_eq!(strip(shuffled), strip(single_json()));
}

#[test]
fn a_single_system_is_refused() {
    let e = refused(&["single/alpha.jsonl"]);
    assert!(e.contains("two or more systems"), "{e}");
}

// ---------------------------------------------------------------- (b) --by model, --suite subset

#[test]
fn by_model_names_the_systems_by_the_field() {
    let r = rank_json(&["models.jsonl", "--by", "model"]);
    let t = models_table();
    let problems = shared(&t);
    assert_eq!(r["n_problems"], 40);
    assert_eq!(r["settings"]["by"], "model");
    assert_eq!(
        r["settings"]["pair_test"], "sign-flip-random",
        "2^40 patterns"
    );
    let values: Vec<f64> = t.keys().map(|m| value(&t, m, &problems)).collect();
    let ranks = min_ranks(&values);
    for (i, m) in t.keys().enumerate() {
        let row = system(&r, m);
        close(f(&row["value"]), values[i], 1e-12);
        assert_eq!(row["rank"].as_u64(), Some(u64::from(ranks[i])), "{m}");
        assert_eq!(row["rollouts"], 4);
    }
    assert_eq!(r["systems"][0]["name"], "m-a");
    assert_eq!(r["systems"][3]["name"], "m-d");
}

/// Ranks within one benchmark: 1 = highest, ties averaged.
fn average_ranks(row: &[f64]) -> Vec<f64> {
    row.iter()
        .map(|&x| {
            let above = row.iter().filter(|&&y| y > x).count() as f64;
            let tied = row.iter().filter(|&&y| y == x).count() as f64;
            above + (tied + 1.0) / 2.0
        })
        .collect()
}

/// Per-benchmark means (benchmarks × systems in `order`).
fn bench_scores(t: &Table, order: &[String], benches: &[String]) -> Vec<Vec<f64>> {
    let problems = shared(t);
    benches
        .iter()
        .map(|b| {
            let ps: Vec<_> = problems.iter().filter(|k| &k.0 == b).cloned().collect();
            order.iter().map(|m| value(t, m, &ps)).collect()
        })
        .collect()
}

#[test]
fn suite_gives_per_benchmark_ranks_friedman_and_the_nemenyi_cd() {
    let r = rank_json(&["models.jsonl", "--by", "model", "--suite", "subset"]);
    let s = &r["suite"];
    let order: Vec<String> = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x["name"].as_str().unwrap().to_string())
        .collect();
    let benches = ["arith", "code", "logic"].map(String::from).to_vec();
    assert_eq!(s["field"], "subset");
    assert_eq!(names(&s["benchmarks"]), benches);
    let scores = bench_scores(&models_table(), &order, &benches);
    let ranks: Vec<Vec<f64>> = scores.iter().map(|row| average_ranks(row)).collect();
    let (k, n) = (order.len() as f64, benches.len() as f64);
    let mean_ranks: Vec<f64> = (0..order.len())
        .map(|j| ranks.iter().map(|row| row[j]).sum::<f64>() / n)
        .collect();
    for (b, row) in scores.iter().enumerate() {
        for (j, v) in row.iter().enumerate() {
            close(f(&s["scores"][b][j]), *v, 1e-12);
            close(f(&s["ranks"][b][j]), ranks[b][j], 1e-12);
        }
    }
    for (j, m) in mean_ranks.iter().enumerate() {
        close(f(&s["mean_ranks"][j]), *m, 1e-12);
    }
    let sum_sq: f64 = mean_ranks.iter().map(|x| x * x).sum();
    let chi2 = 12.0 * n / (k * (k + 1.0)) * sum_sq - 3.0 * n * (k + 1.0);
    let ff = (n - 1.0) * chi2 / (n * (k - 1.0) - chi2);
    close(f(&s["chi2"]), chi2, 1e-9);
    close(f(&s["f"]), ff, 1e-9);
    assert_eq!(s["df"], 3);
    assert_eq!(s["f_df"], serde_json::json!([3, 6]));
    close(f(&s["q_alpha"]), 2.569, 1e-3);
    let cd = 2.569 * (k * (k + 1.0) / (6.0 * n)).sqrt();
    close(f(&s["critical_difference"]), cd, 2e-3);
    close(f(&s["p"]), chi2_3_upper(chi2), 1e-9);
    close(f(&s["f_p"]), f_3_6_upper(ff), 1e-8);
    assert_eq!(
        s["cd_groups"],
        serde_json::json!(cd_groups(&mean_ranks, &order, cd))
    );
}

/// Maximal runs (two or more) of systems, by mean rank, within less than `cd`
/// of the run's first.
fn cd_groups(mean_ranks: &[f64], names: &[String], cd: f64) -> Vec<Vec<String>> {
    let mut idx: Vec<usize> = (0..names.len()).collect();
    idx.sort_by(|&a, &b| mean_ranks[a].total_cmp(&mean_ranks[b]));
    let mut out: Vec<(usize, usize)> = Vec::new();
    for s in 0..idx.len() {
        let e = (s..idx.len())
            .take_while(|&e| mean_ranks[idx[e]] - mean_ranks[idx[s]] < cd)
            .last()
            .unwrap();
        if e > s && !out.iter().any(|&(a, b)| a <= s && e <= b) {
            out.push((s, e));
        }
    }
    out.iter()
        .map(|&(s, e)| idx[s..=e].iter().map(|&i| names[i].clone()).collect())
        .collect()
}

/// P(χ²₃ > x) = erfc(√(x/2)) + √(2x/π)·e^{−x/2}.
fn chi2_3_upper(x: f64) -> f64 {
    chi2_1_upper(x) + (2.0 * x / std::f64::consts::PI).sqrt() * (-x / 2.0).exp()
}

/// P(F₍₃,₆₎ > f) = I_x(3, 3/2) with x = 6/(6 + 3f): the Beta(3, 3/2)
/// density t²√(1 − t)/B(3, 3/2), B = 1/6.5625, integrated by Simpson's rule.
fn f_3_6_upper(f: f64) -> f64 {
    let x = 6.0 / (6.0 + 3.0 * f);
    let n = 200_000;
    let h = x / n as f64;
    let g = |t: f64| t * t * (1.0 - t).sqrt();
    let inner: f64 = (1..n)
        .map(|k| (if k % 2 == 1 { 4.0 } else { 2.0 }) * g(k as f64 * h))
        .sum();
    6.5625 * h / 3.0 * (g(0.0) + inner + g(x))
}

// ---------------------------------------------------------------- (c) --order step

#[test]
fn order_step_gives_the_curve_in_step_order_and_the_best_step() {
    let files = [
        "ckpt/ckpt-500.jsonl",
        "ckpt/ckpt-100.jsonl",
        "ckpt/ckpt-300.jsonl",
    ];
    let more = ["ckpt/ckpt-400.jsonl", "ckpt/ckpt-200.jsonl"];
    let r = rank_json(&[&files[..], &more[..], &["--order", "step"]].concat());
    let c = &r["curve"];
    let points = c["points"].as_array().unwrap();
    let steps: Vec<f64> = points.iter().map(|p| f(&p["step"])).collect();
    assert_eq!(steps, [100.0, 200.0, 300.0, 400.0, 500.0]);
    let mut best = ("", f64::MIN);
    for (p, step) in points.iter().zip([100, 200, 300, 400, 500]) {
        assert_eq!(p["system"], format!("ckpt-{step}"));
        let mut t = Table::new();
        add(&mut t, &format!("ckpt/ckpt-{step}.jsonl"), Some("x"), "");
        let v = value(&t, "x", &shared(&t));
        close(f(&p["value"]), v, 1e-12);
        if v > best.1 {
            best = (p["system"].as_str().unwrap(), v);
        }
    }
    assert_eq!(best.0, "ckpt-400");
    assert_eq!(c["best"], best.0);
    assert_eq!(r["systems"][0]["name"], best.0);
    assert_eq!(names(&c["not_separable"]), names(&r["top_tier"]));
    assert!(names(&c["not_separable"]).contains(&best.0.to_string()));
}

// ---------------------------------------------------------------- (d) dropped problems, ties

#[test]
fn strict_refuses_dropped_problems_naming_the_count() {
    let e = refused(&["pair/full.jsonl", "pair/partial.jsonl", "--strict"]);
    assert!(e.contains("full (10)"), "{e}");
}

#[test]
fn without_strict_a_finding_names_the_dropped_count() {
    let r = rank_json(&["pair/full.jsonl", "pair/partial.jsonl"]);
    assert_eq!(r["n_problems"], 50);
    assert_eq!(system(&r, "full")["dropped"], 10);
    assert_eq!(system(&r, "partial")["dropped"], 0);
    let findings = r["findings"].to_string();
    assert!(findings.contains("full: 10 problems"), "{findings}");
}

#[test]
fn a_clearly_dominant_system_has_p_best_one() {
    let r = rank_json(&["pair/full.jsonl", "pair/partial.jsonl"]);
    assert_eq!(r["systems"][0]["name"], "full");
    close(f(&system(&r, "full")["p_best"]), 1.0, 1e-3);
    close(f(&system(&r, "partial")["p_best"]), 0.0, 1e-3);
}

#[test]
fn identical_files_are_tied() {
    let r = rank_json(&["ties/twin-a.jsonl", "ties/twin-b.jsonl", "ties/low.jsonl"]);
    let (a, b) = (system(&r, "twin-a"), system(&r, "twin-b"));
    assert_eq!(a["rank"], 1);
    assert_eq!(b["rank"], 1);
    assert_eq!(system(&r, "low")["rank"], 3);
    assert!(f(&a["p_best"]) > 0.0 && f(&b["p_best"]) > 0.0);
    assert_eq!(a["value"], b["value"]);
    assert_eq!(a["letters"], b["letters"], "not separable");
    assert_eq!(
        a["p_best"], b["p_best"],
        "identical data, identical replicates"
    );
    let total: f64 = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| f(&s["p_best"]))
        .sum();
    assert!(total > 1.0, "tied firsts count for each: {total}");
    let pair = &r["pairs"][0];
    assert_eq!(
        (pair["a"].as_str(), pair["b"].as_str()),
        (Some("twin-a"), Some("twin-b"))
    );
    assert_eq!(f(&pair["p"]), 1.0, "no discordant problem");
}

#[test]
fn bh_adjusts_the_exact_p_over_every_pair() {
    let files = single_files();
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--adjust", "bh"]);
    let r = rank_json(&args);
    assert_eq!(r["settings"]["adjust"], "bh");
    let t = single_table();
    let mut pairs = Vec::new();
    for (i, x) in SINGLE.iter().enumerate() {
        for y in &SINGLE[i + 1..] {
            let (b, c) = discordant(&t, x, y);
            pairs.push((*x, *y, mcnemar(b, c)));
        }
    }
    let adj = bh(&pairs.iter().map(|p| p.2.clone()).collect::<Vec<_>>());
    for ((x, y, _), a) in pairs.iter().zip(adj) {
        let a = a.to_f64().unwrap();
        let row = r["pairs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| (p["a"] == *x && p["b"] == *y) || (p["a"] == *y && p["b"] == *x))
            .unwrap();
        close(f(&row["p_adjusted"]), a, 1e-12 * a + 1e-15);
    }
}

/// The best system of `best` is "the first by name among ties" (document.rs),
/// as are `systems[0]` and the walk's anchor: whatever the input order.
#[test]
fn a_tie_for_first_names_one_best_whatever_the_input_order() {
    let r = rank_json(&["ties/twin-b.jsonl", "ties/twin-a.jsonl", "ties/low.jsonl"]);
    assert_eq!(r["systems"][0]["name"], "twin-a");
    assert_eq!(r["best"]["system"], "twin-a");
    let walk: Vec<&str> = r["anchor_walk"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["system"].as_str().unwrap())
        .collect();
    assert_eq!(
        walk,
        ["twin-b", "low"],
        "the walk goes down from systems[0]"
    );
}

// ---------------------------------------------------------------- the document round-trips

/// The JSON reads back into the engine's own `rollstat.rank/1` type.
#[track_caller]
fn round_trips(r: &Value) {
    let back: Result<rollstat::rank::Ranking, _> = serde_json::from_value(r.clone());
    assert!(back.is_ok(), "{:?}", back.err());
}

#[test]
fn every_fixture_document_reads_back_as_the_schema_type() {
    round_trips(&single_json());
    round_trips(&rank_json(&[
        "models.jsonl",
        "--by",
        "model",
        "--suite",
        "subset",
    ]));
    round_trips(&rank_json(&[
        "ckpt/ckpt-100.jsonl",
        "ckpt/ckpt-200.jsonl",
        "--order",
        "step",
    ]));
    round_trips(&rank_json(&["pair/full.jsonl", "pair/partial.jsonl"]));
}

/// Every benchmark ranks the systems alike: χ²_F = N(k − 1), so the
/// Iman–Davenport F's denominator N(k − 1) − χ²_F is 0 and F = ∞.
#[test]
fn perfect_agreement_across_benchmarks_gives_a_readable_document() {
    let tmp = tempfile::tempdir().unwrap();
    let mut body = String::new();
    for (m, solved) in [("x", 9), ("y", 5), ("z", 1)] {
        for b in ["b1", "b2"] {
            for i in 0..10 {
                let row = serde_json::json!({"model": m, "subset": b, "problem": format!("{b}-{i}"),
                    "rollout": 0, "correct": i < solved});
                body += &format!("{row}\n");
            }
        }
    }
    common::write(tmp.path(), "perfect.jsonl", body);
    let args = [
        "perfect.jsonl",
        "--by",
        "model",
        "--suite",
        "subset",
        "--format",
        "json",
    ];
    let r = common::json(&rank_in(tmp.path(), &args));
    let (n, k) = (2.0, 3.0);
    close(f(&r["suite"]["chi2"]), n * (k - 1.0), 1e-12);
    round_trips(&r);
}

// ---------------------------------------------------------------- the α boundary

/// `top` solves 5 problems `next` misses and no problem the other way:
/// b = 5, c = 0, exact p = 2 · ½⁵ = 1/16 (both written in `dir`).
fn five_discordant(dir: &Path) {
    let line = |i: usize, c: bool| format!("{{\"problem\": \"p{i}\", \"correct\": {c}}}\n");
    let top: String = (0..20).map(|i| line(i, i < 15)).collect();
    let next: String = (0..20).map(|i| line(i, (5..15).contains(&i))).collect();
    common::write(dir, "top.jsonl", top);
    common::write(dir, "next.jsonl", next);
}

fn two_systems(dir: &Path, alpha: &str) -> Value {
    let args = [
        "top.jsonl",
        "next.jsonl",
        "--alpha",
        alpha,
        "--format",
        "json",
    ];
    common::json(&rank_in(dir, &args))
}

#[test]
fn an_exact_p_on_the_boundary_is_exact() {
    let tmp = tempfile::tempdir().unwrap();
    five_discordant(tmp.path());
    let r = two_systems(tmp.path(), "0.0625");
    let expect = mcnemar(5, 0);
    assert_eq!(expect, BigRational::new(1.into(), 16.into()));
    assert_eq!(f(&r["pairs"][0]["p"]), 0.0625);
    assert_eq!(r["pairs"][0]["separated"], true, "p ≤ α separates");
}

/// With two systems Holm adjusts nothing: the pair is separated exactly
/// when the walk separates #2 from #1.
#[test]
fn the_walk_and_the_pairs_agree_at_the_boundary() {
    let tmp = tempfile::tempdir().unwrap();
    five_discordant(tmp.path());
    let p = f(&two_systems(tmp.path(), "0.05")["pairs"][0]["p"]);
    let r = two_systems(tmp.path(), &format!("{p:?}"));
    close(f(&r["pairs"][0]["p_adjusted"]), p, 0.0);
    let separated = r["pairs"][0]["separated"].as_bool().unwrap();
    let walk = r["first_separated_rank"].as_u64();
    assert_eq!(
        walk == Some(2),
        separated,
        "walk {walk:?}, pair separated {separated}"
    );
}

// ---------------------------------------------------------------- text output, naming, refusals

#[test]
fn the_table_labels_the_walk_unadjusted_and_names_the_top_tier() {
    let files = single_files();
    let args: Vec<&str> = files.iter().map(String::as_str).collect();
    let text = common::ok(&rank_in(&dir(), &args));
    assert!(text.contains("6 systems on 150 shared problems"), "{text}");
    assert!(text.contains("unadjusted"), "{text}");
    assert!(
        text.contains(
            "the top 2 are not separable from #1 at α = 0.05 (Holm over 15 pairs): alpha, bravo"
        ),
        "{text}"
    );
    let md = common::ok(&rank_in(
        &dir(),
        &[&args[..], &["--format", "markdown"]].concat(),
    ));
    assert!(md.contains("| "), "{md}");
}

#[test]
fn inputs_with_one_file_name_are_named_by_their_paths() {
    let tmp = tempfile::tempdir().unwrap();
    for (d, src) in [("a", "single/alpha.jsonl"), ("b", "single/foxtrot.jsonl")] {
        std::fs::create_dir(tmp.path().join(d)).unwrap();
        std::fs::copy(dir().join(src), tmp.path().join(d).join("x.jsonl")).unwrap();
    }
    let args = ["a/x.jsonl", "b/x.jsonl", "--format", "json"];
    let r = common::json(&rank_in(tmp.path(), &args));
    let names: Vec<&str> = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["a/x.jsonl", "b/x.jsonl"]);
}

#[test]
fn bad_flags_and_a_one_benchmark_suite_are_refused() {
    let two = ["single/alpha.jsonl", "single/bravo.jsonl"];
    let e = refused(&[&two[..], &["--suite", "subset"]].concat());
    assert!(
        e.contains("two or more benchmarks (subset), found 1"),
        "{e}"
    );
    let e = refused(&[&two[..], &["--order", "time"]].concat());
    assert!(e.contains("--order"), "{e}");
    let e = refused(&[&two[..], &["--adjust", "bonferroni"]].concat());
    assert!(e.contains("--adjust"), "{e}");
    let e = refused(&[&two[..], &["--pair-test", "mid-p"]].concat());
    assert!(e.contains("--pair-test"), "{e}");
}

/// P(χ²₁ > x) = erfc(√(x/2)) = 2/√π ∫_{√(x/2)}^∞ e^{−t²} dt, by Simpson's
/// rule on [z, z + 12] (the rest is below e^{−144}).
fn chi2_1_upper(x: f64) -> f64 {
    let (z, n) = ((x / 2.0).sqrt(), 200_000);
    let h = 12.0 / n as f64;
    let g = |t: f64| (-t * t).exp();
    let inner: f64 = (1..n)
        .map(|k| (if k % 2 == 1 { 4.0 } else { 2.0 }) * g(z + k as f64 * h))
        .sum();
    let integral = h / 3.0 * (g(z) + inner + g(z + 12.0));
    2.0 / std::f64::consts::PI.sqrt() * integral
}

/// Edwards: χ² = (|b − c| − 1)² / (b + c) on 1 df.
#[test]
fn chi2_corrected_has_edwards_statistic_and_its_tail() {
    let files = single_files();
    let mut args: Vec<&str> = files.iter().map(String::as_str).collect();
    args.extend(["--pair-test", "chi2-corrected"]);
    let r = rank_json(&args);
    assert_eq!(r["settings"]["pair_test"], "mcnemar-chi2-corrected");
    let t = single_table();
    for row in r["pairs"].as_array().unwrap() {
        assert_eq!(row["method"], "mcnemar-chi2-corrected");
        let (a, b) = (row["a"].as_str().unwrap(), row["b"].as_str().unwrap());
        let (x, y) = discordant(&t, a, b);
        let (x, y) = (x as f64, y as f64);
        let stat = ((x - y).abs() - 1.0).max(0.0).powi(2) / (x + y);
        let p = chi2_1_upper(stat);
        close(f(&row["p"]), p, 1e-9 * p);
    }
}

#[test]
fn cluster_by_is_recorded_and_the_intervals_hold_the_ranks() {
    let r = rank_json(&["models.jsonl", "--by", "model", "--cluster-by", "subset"]);
    assert_eq!(r["settings"]["cluster_by"], "subset");
    for s in r["systems"].as_array().unwrap() {
        let rank = f(&s["rank"]);
        assert!(f(&s["rank_interval"][0]) <= rank && rank <= f(&s["rank_interval"][1]));
        assert!(f(&s["ci"][0]) <= f(&s["value"]) && f(&s["value"]) <= f(&s["ci"][1]));
    }
    let total: f64 = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| f(&s["p_best"]))
        .sum();
    assert!(total >= 1.0 - 1e-12, "every replicate has a first: {total}");
}

/// 17 of 36 rollouts each (3 per problem), spread differently: the same mean
/// 17/36, though summing thirds in two orders differs in the last bit.
#[test]
fn equal_means_of_thirds_are_tied() {
    let tmp = tempfile::tempdir().unwrap();
    let a = [0, 0, 0, 3, 1, 3, 0, 1, 3, 3, 1, 2];
    let b = [0, 0, 3, 0, 3, 3, 0, 1, 1, 2, 1, 3];
    for (name, cs) in [("sa", a), ("sb", b)] {
        let mut body = String::new();
        for (i, c) in cs.iter().enumerate() {
            for r in 0..3 {
                let row = serde_json::json!({"problem": format!("p{i:02}"), "rollout": r, "correct": r < *c});
                body += &format!("{row}\n");
            }
        }
        common::write(tmp.path(), &format!("{name}.jsonl"), body);
    }
    let r = common::json(&rank_in(
        tmp.path(),
        &["sa.jsonl", "sb.jsonl", "--format", "json"],
    ));
    for s in r["systems"].as_array().unwrap() {
        assert_eq!(s["rank"], 1, "{}", s["name"]);
        close(f(&s["value"]), 17.0 / 36.0, 1e-12);
    }
    close(f(&r["pairs"][0]["diff"]), 0.0, 1e-12);
    assert_eq!(r["pairs"][0]["p"], 1.0);
}

/// With --cluster-by, pairs are tested by flipping whole clusters: on the
/// three benchmarks of models.jsonl as clusters, every sign-flip p is at
/// least 2/2³ (three cluster sums), so nothing is separated.
#[test]
fn clustered_pairs_flip_whole_clusters() {
    let o = rank_in(
        &dir(),
        &[
            "models.jsonl",
            "--by",
            "model",
            "--cluster-by",
            "subset",
            "--format",
            "json",
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    for p in r["pairs"].as_array().unwrap() {
        assert!(p["p"].as_f64().unwrap() >= 0.25 - 1e-12, "{p}");
        assert_eq!(p["separated"], false);
        assert!(p["method"].as_str().unwrap().starts_with("sign-flip"));
    }
}

/// The split-sample check: the two halves partition the shared problems,
/// so the selected system's selection and held-out means recombine into its
/// mean over all of them; it is the best on its selection half.
#[test]
fn the_split_sample_halves_recombine_into_the_systems_mean() {
    let o = rank_in(
        &dir(),
        &["models.jsonl", "--by", "model", "--format", "json"],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let r: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let sp = &r["best"]["split"];
    let n = r["n_problems"].as_u64().unwrap() as f64;
    let held = sp["held_out_problems"].as_u64().unwrap() as f64;
    assert!(
        held == (n / 2.0).floor() || held == (n / 2.0).ceil(),
        "{held} of {n}"
    );
    let name = sp["system"].as_str().unwrap();
    let value = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap()["value"]
        .as_f64()
        .unwrap();
    let whole =
        (n - held) * sp["selection"].as_f64().unwrap() + held * sp["held_out"].as_f64().unwrap();
    assert!((whole - n * value).abs() < 1e-9, "{whole} vs {}", n * value);
}

/// SWE-bench/SWE-bench#621 (2026-07-19), on the public per-instance results
/// of the top nine Verified submissions (fixture README): the table
/// of McNemar p's against #1 (continuity-corrected χ²), "the top 8 … are all
/// statistically tied with #1, and #1 first becomes significant at rank 9".
#[test]
fn swe_bench_621_is_reproduced_from_the_public_results() {
    let r = rank_json(&[
        "swebench-verified-top9.csv.gz",
        "--by",
        "model",
        "--pair-test",
        "chi2-corrected",
        "--resamples",
        "500",
    ]);
    let resolved: Vec<u64> = r["systems"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (f(&s["value"]) * 500.0).round() as u64)
        .collect();
    assert_eq!(resolved, [396, 396, 394, 388, 387, 384, 384, 382, 378]);
    assert_eq!(
        r["systems"][0]["name"],
        "20251205_sonar-foundation-agent_claude-opus-4-5"
    );
    // Row 2 has b = c = 18. The 0.868 is statsmodels' unclamped
    // (|b − c| − 1)²/(b + c) = 1/36 → P(χ²₁ > 1/36) = 0.8676; rollstat, like
    // R's mcnemar.test, applies no correction when b = c (a correction that
    // makes |b − c| negative is no correction), so p = 1 there.
    let published = [1.0, 0.901, 0.243, 0.253, 0.156, 0.134, 0.115, 0.026];
    let walk = r["anchor_walk"].as_array().unwrap();
    assert_eq!(walk.len(), published.len());
    for (step, want) in walk.iter().zip(published) {
        close(f(&step["p"]), want, 5e-4);
    }
    assert_eq!(r["first_separated_rank"].as_u64(), Some(9));
}

/// `--suite inputs`: one directory per benchmark, one file per system in
/// each. The same rows as `models.jsonl` laid out that way give the same
/// suite (benchmarks, per-benchmark scores, Friedman, CD) and the same
/// systems as `--by model --suite subset`, whose numbers the test above
/// derives by hand.
#[test]
fn suite_inputs_takes_each_directory_as_a_benchmark() {
    let tmp = tempfile::tempdir().unwrap();
    let mut files: BTreeMap<(String, String), String> = BTreeMap::new();
    for mut row in rows("models.jsonl") {
        let o = row.as_object_mut().unwrap();
        let model = o.remove("model").unwrap().as_str().unwrap().to_string();
        let bench = o.remove("subset").unwrap().as_str().unwrap().to_string();
        let text = files.entry((bench, model)).or_default();
        text.push_str(&serde_json::to_string(&row).unwrap());
        text.push('\n');
    }
    for ((bench, model), text) in &files {
        std::fs::create_dir_all(tmp.path().join(bench)).unwrap();
        std::fs::write(tmp.path().join(bench).join(format!("{model}.jsonl")), text).unwrap();
    }
    let by_dirs = common::json(&rank_in(
        tmp.path(),
        &[
            "arith", "code", "logic", "--suite", "inputs", "--format", "json",
        ],
    ));
    let by_field = rank_json(&["models.jsonl", "--by", "model", "--suite", "subset"]);
    let (a, b) = (&by_dirs["suite"], &by_field["suite"]);
    assert_eq!(a["field"], "inputs");
    for key in [
        "benchmarks",
        "scores",
        "ranks",
        "mean_ranks",
        "chi2",
        "p",
        "f",
        "critical_difference",
    ] {
        assert_eq!(a[key], b[key], "{key}");
    }
    let system_names = |r: &Value| -> Vec<String> {
        r["systems"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s["name"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(system_names(&by_dirs), system_names(&by_field));
    assert_eq!(by_dirs["n_problems"], by_field["n_problems"]);
    // One input is not a suite of benchmarks.
    let o = rank_in(tmp.path(), &["arith", "--suite", "inputs"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("two or more inputs"), "{}", stderr(&o));
}
