//! Agreement with the Math-Verify and Hendrycks test-suite cases.
//!
//! The case files are copied into `tests/fixtures/` (sources and licenses in
//! `tests/fixtures/README.md`), so every test here always runs. Every
//! disagreement must be listed in `tests/known_disagreements.txt` with a
//! reason, and agreement must be at least 95% (Math-Verify file).

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use rollstat_grade::{extract_answer, ExtractMode, Grader};
use serde_json::Value;

const MV: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/math_verify_cases.jsonl"
);
const HE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/hendrycks_is_equiv_cases.jsonl"
);
const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/mv_subset.jsonl"
);
const KNOWN: &str = include_str!("known_disagreements.txt");

/// Keys `file:line` (Math-Verify) or `hendrycks:test` listed as known.
fn known() -> HashSet<String> {
    KNOWN
        .lines()
        .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
        .filter_map(|l| l.split_whitespace().next().map(str::to_string))
        .collect()
}

fn extracted(s: &str) -> String {
    extract_answer(s, &ExtractMode::Math).unwrap_or_else(|| s.to_string())
}

/// Grade one Math-Verify row the way its `compare_strings` does: extract
/// from both gold and prediction, then compare (with the row's flags).
fn mv_verdict(row: &Value) -> bool {
    let gold = row["gold"].as_str().unwrap_or("");
    let pred = row["pred"].as_str().unwrap_or("");
    let mut grader = Grader::default();
    if let Some(b) = row.get("allow_set_relation_comp").and_then(Value::as_bool) {
        grader.allow_set_relation_comp = b;
    }
    grader
        .is_equivalent(&extracted(gold), &extracted(pred))
        .equal
}

fn key(row: &Value) -> String {
    let mut k = format!(
        "{}:{}",
        row["file"].as_str().unwrap_or("?"),
        row["lineno"].as_i64().unwrap_or(0)
    );
    for flag in ["strict", "allow_set_relation_comp"] {
        if let Some(b) = row.get(flag).and_then(Value::as_bool) {
            k.push_str(&format!(":{flag}={b}"));
        }
    }
    k
}

/// The case file's text; a missing file is a failure (it is in the repository).
fn read_cases(path: &str) -> String {
    assert!(Path::new(path).exists(), "{path} is missing");
    std::fs::read_to_string(path).unwrap()
}

fn run_mv(path: &str, require_listed: bool, min_agreement: f64) -> usize {
    let text = read_cases(path);
    let known = known();
    let mut per_cat: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let (mut agree, mut total) = (0usize, 0usize);
    let mut unlisted = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).unwrap();
        let expected = row["expected"].as_i64().unwrap_or(-1) == 1;
        let t0 = std::time::Instant::now();
        let got = mv_verdict(&row);
        let dt = t0.elapsed();
        assert!(dt.as_millis() < 1000, "case {} took {dt:?}", key(&row));
        let cat = format!(
            "{}::{}",
            row["file"].as_str().unwrap_or("?"),
            row["test"].as_str().unwrap_or("?")
        );
        let e = per_cat.entry(cat).or_default();
        e.1 += 1;
        total += 1;
        if got == expected {
            e.0 += 1;
            agree += 1;
        } else {
            let k = key(&row);
            let listed = known.contains(&k);
            println!(
                "DISAGREE {k} expected={expected} got={got} listed={listed}\n   gold={:?}\n   pred={:?}",
                extracted(row["gold"].as_str().unwrap_or("")),
                extracted(row["pred"].as_str().unwrap_or(""))
            );
            if !listed {
                unlisted.push(k);
            }
        }
    }
    for (cat, (a, t)) in &per_cat {
        println!("{cat}: {a}/{t} ({:.1}%)", 100.0 * *a as f64 / *t as f64);
    }
    let rate = agree as f64 / total.max(1) as f64;
    println!("OVERALL {path}: {agree}/{total} ({:.1}%)", 100.0 * rate);
    if require_listed {
        assert!(unlisted.is_empty(), "unlisted disagreements: {unlisted:?}");
    }
    assert!(
        rate >= min_agreement,
        "agreement {rate:.3} below {min_agreement}"
    );
    total
}

#[test]
fn math_verify_agreement() {
    // All 268 rows (a copy of ../shared/cases/math_verify_cases.jsonl).
    assert_eq!(run_mv(MV, true, 0.95), 268);
}

#[test]
fn math_verify_fixture_subset_always_runs() {
    // 75 representative rows of the Math-Verify file.
    assert_eq!(run_mv(FIXTURE, true, 0.95), 75);
}

#[test]
fn hendrycks_agreement() {
    let text = read_cases(HE);
    let known = known();
    let (mut agree, mut total) = (0usize, 0usize);
    let mut unlisted = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let row: Value = serde_json::from_str(line).unwrap();
        let a = row["a"].as_str().unwrap();
        let b = row["b"].as_str().unwrap();
        let expected = row["is_equiv"].as_bool().unwrap();
        let got = Grader::default().is_equivalent(a, b).equal;
        total += 1;
        if got == expected {
            agree += 1;
        } else {
            let k = format!("hendrycks:{}", row["test"].as_str().unwrap_or("?"));
            let listed = known.contains(&k);
            println!("DISAGREE {k} a={a:?} b={b:?} expected={expected} got={got} listed={listed}");
            if !listed {
                unlisted.push(k);
            }
        }
    }
    assert_eq!(total, 16, "the 16 Hendrycks is_equiv cases");
    let rate = agree as f64 / total.max(1) as f64;
    println!("OVERALL hendrycks: {agree}/{total} ({:.1}%)", 100.0 * rate);
    assert!(unlisted.is_empty(), "unlisted disagreements: {unlisted:?}");
    // Only listed (order-of-list policy) disagreements are allowed; see
    // known_disagreements.txt. The 16-case file is too small for a 95% bar
    // to mean anything beyond "no unlisted disagreement".
    assert!(rate >= 0.85, "agreement {rate:.3} below 0.85");
}
