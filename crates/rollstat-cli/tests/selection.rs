//! maj@k, bon@k and wmaj@n end to end: `rollstat report FILE --k 1,2,4,8`
//! on a file with answers and selector scores equals enumeration of every
//! k-subset of every problem (computed here from the rows, not by rollstat),
//! and the command line equals the library.

use rollstat::{report, ReportOptions, Source};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;

const FILE: &str = "crates/rollstat-cli/tests/fixtures/selection/scored.jsonl";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn cli_json(args: &[&str]) -> Value {
    let o = Command::new(env!("CARGO_BIN_EXE_rollstat"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

/// One rollout: its answer (`None`: unextracted), verdict and score.
type R = (Option<String>, bool, f64);

/// The fixture's problems, read with serde_json alone.
fn problems() -> Vec<Vec<R>> {
    let text = std::fs::read_to_string(root().join(FILE)).unwrap();
    let mut out: Vec<(String, Vec<R>)> = Vec::new();
    for line in text.lines() {
        let v: Value = serde_json::from_str(line).unwrap();
        let p = v["problem"].as_str().unwrap().to_string();
        let rows: Vec<R> = match v["correct"].as_array() {
            Some(c) => (0..c.len())
                .map(|i| {
                    let a = v["answers"][i].as_str().map(str::to_string);
                    (a, c[i].as_bool().unwrap(), v["scores"][i].as_f64().unwrap())
                })
                .collect(),
            None => vec![(
                v["answer"].as_str().map(str::to_string),
                v["correct"].as_bool().unwrap(),
                v["score"].as_f64().unwrap(),
            )],
        };
        match out.iter_mut().find(|(q, _)| *q == p) {
            Some((_, rs)) => rs.extend(rows),
            None => out.push((p, rows)),
        }
    }
    out.into_iter().map(|(_, r)| r).collect()
}

/// Majority credit of one subset (rollout order kept) under `tie`.
fn vote(sub: &[&R], tie: &str) -> f64 {
    let mut tally: Vec<(&str, usize, bool)> = Vec::new(); // by first appearance
    for (a, ok, _) in sub {
        let Some(a) = a.as_deref() else { continue };
        match tally.iter_mut().find(|t| t.0 == a) {
            Some(t) => t.1 += 1,
            None => tally.push((a, 1, *ok)),
        }
    }
    let Some(top) = tally.iter().map(|t| t.1).max() else {
        return 0.0;
    };
    let tied: Vec<_> = tally.iter().filter(|t| t.1 == top).collect();
    let good = tied.iter().filter(|t| t.2).count() as f64;
    match tie {
        "first" => tied[0].2 as u8 as f64,
        "none" => (tied.len() == 1 && tied[0].2) as u8 as f64,
        _ => good / tied.len() as f64,
    }
}

/// Best-of-subset: mean correctness of its best-scored rollouts.
fn best(sub: &[&R]) -> f64 {
    let top = sub.iter().map(|r| r.2).fold(f64::MIN, f64::max);
    let tied: Vec<_> = sub.iter().filter(|r| r.2 == top).collect();
    tied.iter().filter(|r| r.1).count() as f64 / tied.len() as f64
}

/// Mean over problems of the mean over all k-subsets of `f`.
fn enumerate(k: usize, f: &dyn Fn(&[&R]) -> f64) -> f64 {
    let ps = problems();
    let per: Vec<f64> = ps
        .iter()
        .map(|rs| {
            let (mut sum, mut m) = (0.0, 0.0);
            for mask in 0u32..(1 << rs.len()) {
                if mask.count_ones() as usize == k {
                    let sub: Vec<&R> = (0..rs.len())
                        .filter(|&i| mask >> i & 1 == 1)
                        .map(|i| &rs[i])
                        .collect();
                    sum += f(&sub);
                    m += 1.0;
                }
            }
            sum / m
        })
        .collect();
    per.iter().sum::<f64>() / per.len() as f64
}

fn value(r: &Value, name: &str) -> f64 {
    r["metrics"][name]["value"]
        .as_f64()
        .unwrap_or_else(|| panic!("no {name}"))
}

#[test]
fn report_maj_and_bon_at_k_equal_enumeration() {
    for tie in ["first", "none", "fractional"] {
        let r = cli_json(&[
            "report",
            FILE,
            "--k",
            "1,2,4,8",
            "--format",
            "json",
            "--tie-policy",
            tie,
        ]);
        for k in [1, 2, 4, 8] {
            let maj = enumerate(k, &|s| vote(s, tie));
            let bon = enumerate(k, &best);
            let pass = enumerate(k, &|s| s.iter().any(|r| r.1) as u8 as f64);
            assert!(
                (value(&r, &format!("maj@{k}")) - maj).abs() < 1e-12,
                "{tie} maj@{k}"
            );
            assert!(
                (value(&r, &format!("bon@{k}")) - bon).abs() < 1e-12,
                "bon@{k}"
            );
            let gap = value(&r, &format!("pass@{k}-maj@{k}"));
            assert!((gap - (pass - maj)).abs() < 1e-12, "{tie} gap@{k}");
            let gap = value(&r, &format!("pass@{k}-bon@{k}"));
            assert!((gap - (pass - bon)).abs() < 1e-12, "bon gap@{k}");
        }
        assert_eq!(r["config"]["tie_policy"], tie);
    }
}

/// Ascending order: the lowest score is the best (`best` on negated scores).
#[test]
fn ascending_score_order_reverses_the_selector() {
    let r = cli_json(&[
        "report",
        FILE,
        "--k",
        "2",
        "--format",
        "json",
        "--score-order",
        "ascending",
    ]);
    let low = enumerate(2, &|s| {
        let neg: Vec<R> = s.iter().map(|r| (r.0.clone(), r.1, -r.2)).collect();
        best(&neg.iter().collect::<Vec<_>>())
    });
    assert!((value(&r, "bon@2") - low).abs() < 1e-12);
    assert!(
        r["metrics"].get("wmaj@8").is_none(),
        "wmaj@n needs higher-is-better scores"
    );
}

/// wmaj@8 by hand. p1: A 0.2+0.9+0.5 = 1.6, B 1.1, C 0.7 → A ✓. p2: 7 → 1+5+4
/// = 10, 8 → 3+2+2 = 7 → ✓. p3: x 2+2+3 = 7, y 2+2+1 = 5 → x ✗. wmaj@8 = 2/3.
#[test]
fn weighted_majority_by_hand() {
    let r = cli_json(&["report", FILE, "--format", "json"]);
    assert!((value(&r, "wmaj@8") - 2.0 / 3.0).abs() < 1e-15);
}

#[test]
fn command_line_equals_library() {
    let from_cli: rollstat::Report = serde_json::from_value(cli_json(&[
        "report", FILE, "--k", "1,2,4,8", "--format", "json",
    ]))
    .unwrap();
    let mut o = ReportOptions::default();
    o.metrics.k = Some(vec![1, 2, 4, 8]);
    let lib = report(&[Source::Path(root().join(FILE))], &o).unwrap();
    assert_eq!(from_cli.block, lib.block);
    for m in ["maj@2", "bon@4", "wmaj@8", "pass@4-bon@4"] {
        assert!(lib.block.metrics.get(m).is_some(), "{m}");
    }
}

/// NeMo-Skills seed files with `reward_model_score`: the adapter maps it to
/// `score`. Problem 0 over seeds 0..3: correct T F F, scores 0.1 0.8 0.5;
/// problem 1: F T T with 0.9 0.2 0.2. bon@1 = pass@1 = (1/3 + 2/3)/2 = 1/2;
/// bon@3 (best of all): 0.8 ✗ and 0.9 ✗ → 0; bon@2: problem 0's correct
/// rollout has the lowest score, so it is never picked (0); problem 1 picks
/// a correct one only from the pair {0.2, 0.2} (1 of 3 pairs) → bon@2 =
/// (0 + 1/3)/2 = 1/6.
#[test]
fn nemo_skills_reward_model_score_is_the_selector() {
    let dir = tempfile::tempdir().unwrap();
    let rows = [
        [(true, 0.1), (false, 0.9)],
        [(false, 0.8), (true, 0.2)],
        [(false, 0.5), (true, 0.2)],
    ];
    for (seed, lines) in rows.iter().enumerate() {
        let body: String = lines
            .iter()
            .enumerate()
            .map(|(id, (ok, s))| {
                format!(
                    "{{\"id\": {id}, \"expected_answer\": \"1\", \"predicted_answer\": \"{}\", \"symbolic_correct\": {ok}, \"reward_model_score\": {s}}}\n",
                    if *ok { 1 } else { 2 + seed }
                )
            })
            .collect();
        std::fs::write(dir.path().join(format!("output-rs{seed}.jsonl")), body).unwrap();
    }
    let d = dir.path().to_str().unwrap();
    let r = cli_json(&["report", d, "--k", "1,2,3", "--format", "json"]);
    assert!((value(&r, "bon@1") - 0.5).abs() < 1e-15);
    assert!((value(&r, "bon@2") - 1.0 / 6.0).abs() < 1e-15);
    assert_eq!(value(&r, "bon@3"), 0.0);
}
