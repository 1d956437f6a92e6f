//! maj@k, bon@k and wmaj@n end to end: `rollstat report FILE --k 1,2,4,8`
//! on a file with answers and selector scores equals enumeration of every
//! k-subset of every problem (computed here from the rows, not by rollstat),
//! and the command line equals the library.

mod common;
use common::{json, root, run};
use rollstat::{report, ReportOptions, Source};
use serde_json::Value;

const FILE: &str = "crates/rollstat-cli/tests/fixtures/selection/scored.jsonl";

fn cli_json(args: &[&str]) -> Value {
    json(&run(args))
}

/// One rollout: its answer (`None`: unextracted), verdict and score.
type R = (Option<String>, bool, f64);

/// The fixture's problems, read with serde_json alone.
fn problems() -> Vec<Vec<R>> {
    problems_of(&std::fs::read_to_string(root().join(FILE)).unwrap())
}

/// The problems of JSONL `text` (rollout rows or problem rows), in order of
/// first appearance.
fn problems_of(text: &str) -> Vec<Vec<R>> {
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

/// Mean over the fixture's problems of the mean over all k-subsets of `f`.
fn enumerate(k: usize, f: &dyn Fn(&[&R]) -> f64) -> f64 {
    enumerate_in(&problems(), k, f)
}

/// Mean over `ps` of the mean over all k-subsets of `f`.
fn enumerate_in(ps: &[Vec<R>], k: usize, f: &dyn Fn(&[&R]) -> f64) -> f64 {
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

/// What a subset is credited: a vote or a best-of pick.
type Selector = dyn Fn(&[&R]) -> f64;

/// `problems` as canonical rollout rows, each problem's rollouts in reverse
/// order and every score negated (a second system for compare).
fn reversed_and_negated(ps: &[Vec<R>]) -> (String, Vec<Vec<R>>) {
    let flipped: Vec<Vec<R>> = ps
        .iter()
        .map(|rs| {
            rs.iter()
                .rev()
                .map(|(a, ok, s)| (a.clone(), *ok, -s))
                .collect()
        })
        .collect();
    let mut text = String::new();
    for (p, rs) in flipped.iter().enumerate() {
        for (i, (a, ok, s)) in rs.iter().enumerate() {
            let row = serde_json::json!({
                "problem": format!("p{}", p + 1), "rollout": i, "correct": ok,
                "answer": a, "score": s,
            });
            text += &format!("{row}\n");
        }
    }
    (text, flipped)
}

/// compare works on maj@k and bon@k as on every metric: its A and B columns
/// equal enumeration of every k-subset of each side's rows, and delta is
/// B − A. B is the fixture with each problem's rollouts reversed (which
/// moves `first`'s tie-break) and its scores negated (which moves bon@k).
#[test]
fn compare_rows_for_maj_and_bon_equal_enumeration_of_each_side() {
    let a = problems();
    let (text, b) = reversed_and_negated(&a);
    let dir = tempfile::tempdir().unwrap();
    let b_path = dir.path().join("b.jsonl");
    std::fs::write(&b_path, text).unwrap();
    let b_path = b_path.to_str().unwrap();
    for tie in ["first", "none", "fractional"] {
        let c = cli_json(&[
            "compare",
            FILE,
            b_path,
            "--k",
            "1,2,4",
            "--tie-policy",
            tie,
            "--format",
            "json",
        ]);
        let row = |metric: &str| {
            c["rows"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["metric"] == metric && r["group"].is_null())
                .unwrap_or_else(|| panic!("no row {metric}"))
                .clone()
        };
        for k in [1, 2, 4] {
            let vote_k = |s: &[&R]| vote(s, tie);
            let want: [(String, &Selector); 2] =
                [(format!("maj@{k}"), &vote_k), (format!("bon@{k}"), &best)];
            for (metric, f) in want {
                let (wa, wb) = (enumerate_in(&a, k, f), enumerate_in(&b, k, f));
                let r = row(&metric);
                let got = |key: &str| r[key].as_f64().unwrap();
                assert!((got("a") - wa).abs() < 1e-12, "{tie} {metric} A");
                assert!((got("b") - wb).abs() < 1e-12, "{tie} {metric} B");
                assert!((got("delta") - (wb - wa)).abs() < 1e-12, "{tie} {metric}");
            }
        }
    }
    // The two sides differ where it matters (the test could not pass with
    // B's columns read from A's rows).
    let maj_first = |s: &[&R]| vote(s, "first");
    for f in [&maj_first as &Selector, &best] {
        assert!((enumerate_in(&a, 2, f) - enumerate_in(&b, 2, f)).abs() > 0.01);
    }
}

/// `rollstat report` (JSON) with `args` on rollout rows whose answers are
/// the characters of each problem's string, in rollout order; the answer
/// `correct` is the right one.
fn report_votes(problems: &[(String, &str)], correct: char, args: &[&str]) -> Value {
    let mut text = String::new();
    for (p, answers) in problems {
        for (i, a) in answers.chars().enumerate() {
            let row = serde_json::json!({
                "problem": p, "rollout": i, "correct": a == correct, "answer": a.to_string(),
            });
            text += &format!("{row}\n");
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("votes.jsonl");
    std::fs::write(&path, text).unwrap();
    let path = path.to_str().unwrap();
    cli_json(&[&["report", path, "--format", "json"], args].concat())
}

/// The selection gap is a per-problem difference, so its interval is paired.
/// Two kinds of problem (4 rollouts, `none`): X = one correct `1` and three
/// wrong `2`: pass@2 = 1 − C(3,2)/C(4,2) = 1/2, and no pair has a lone
/// correct top (1+2 ties, 2+2 is wrong), maj@2 = 0. Y = three `1` and one
/// `2`: pass@2 = 1, maj@2 = 3/6 (the 1+1 pairs; 1+2 ties) = 1/2. Both gaps
/// are 1/2, so every resample's gap mean is 1/2: the interval is [1/2, 1/2]
/// and the stderr 0, while pass@2 and maj@2 alone vary between problems.
#[test]
fn selection_gap_interval_is_paired() {
    let problems: Vec<(String, &str)> = (0..12)
        .map(|p| (format!("q{p}"), if p % 2 == 0 { "1222" } else { "1112" }))
        .collect();
    let r = report_votes(&problems, '1', &["--k", "2", "--tie-policy", "none"]);
    let m = &r["metrics"];
    let ci = |name: &str| -> (f64, f64) {
        let c = &m[name]["ci"];
        (c[0].as_f64().unwrap(), c[1].as_f64().unwrap())
    };
    assert!((value(&r, "pass@2") - 0.75).abs() < 1e-15);
    assert!((value(&r, "maj@2") - 0.25).abs() < 1e-15);
    assert!((value(&r, "pass@2-maj@2") - 0.5).abs() < 1e-15);
    let (lo, hi) = ci("pass@2-maj@2");
    assert!(
        (lo - 0.5).abs() < 1e-15 && (hi - 0.5).abs() < 1e-15,
        "{lo} {hi}"
    );
    assert!(m["pass@2-maj@2"]["stderr"].as_f64().unwrap().abs() < 1e-15);
    for name in ["pass@2", "maj@2"] {
        let (lo, hi) = ci(name);
        assert!(hi - lo > 0.1, "{name}: [{lo}, {hi}]");
    }
}

/// maj@k for k above a problem's n is excluded and counted, as pass@k is:
/// problems a (4 rollouts: A A B A, A correct) and b (2 rollouts: A B).
/// maj@4 over a alone = 1 (3 A of 4), with b excluded; maj@2 over both:
/// a's 6 pairs, `first`: AA ×3 → 1, AB ×3 → A seen first in 2 (rollouts
/// 0,1 before 2) and B first in 1 (2 before 3) → 5/6; b: A B → A first →
/// 1; mean (5/6 + 1)/2 = 11/12.
#[test]
fn maj_at_k_above_n_is_excluded_and_counted() {
    let problems = [("a".to_string(), "AABA"), ("b".to_string(), "AB")];
    let args = ["--k", "2,4", "--tie-policy", "first", "--ci", "none"];
    let r = report_votes(&problems, 'A', &args);
    let m = &r["metrics"];
    assert_eq!(value(&r, "maj@4"), 1.0);
    assert_eq!(m["maj@4"]["n_problems"], 1);
    assert_eq!(m["maj@4"]["n_excluded"], 1);
    assert!((value(&r, "maj@2") - 11.0 / 12.0).abs() < 1e-15);
    assert_eq!(m["maj@2"]["n_problems"], 2);
}
