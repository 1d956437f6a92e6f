//! Budgets: budget@k and the cost metrics against hand-computed values;
//! missing values counted, never zero; the fast and general readers, rollout
//! and problem rows, files and typed rows agree.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::rows::{RolloutRow, Row};
use rollstat::{report, Budget, Report, ReportOptions, Source};

/// p1: 100 (correct, answer 4), 300 (wrong, 5); p2: 200, 400 (both wrong,
/// 6 and 8); p3: 50, 150 (both correct, 7 and 7).
const ROWS: [(&str, bool, &str, f64); 6] = [
    ("p1", true, "4", 100.0),
    ("p1", false, "5", 300.0),
    ("p2", false, "6", 200.0),
    ("p2", false, "8", 400.0),
    ("p3", true, "7", 50.0),
    ("p3", true, "7", 150.0),
];

fn jsonl(field: &str) -> Vec<u8> {
    ROWS.iter()
        .map(|(p, ok, a, t)| {
            format!("{{\"problem\":\"{p}\",\"correct\":{ok},\"answer\":\"{a}\",\"{field}\":{t}}}\n")
        })
        .collect::<String>()
        .into_bytes()
}

fn bytes(name: &str, b: Vec<u8>) -> Source {
    Source::Bytes {
        name: name.into(),
        bytes: b,
    }
}

fn opts(budget: Budget) -> ReportOptions {
    let mut o = ReportOptions::default();
    o.intervals.resamples = 500;
    o.metrics.budget = budget;
    o
}

fn value(r: &Report, metric: &str) -> f64 {
    r.block
        .metrics
        .get(metric)
        .unwrap_or_else(|| panic!("no {metric}"))
        .value
}

/// Per-problem mean budgets 200, 300, 100 → budget@1 = 200, budget@2 =
/// 400. pass@1 = (1/2 + 0 + 1)/3 = 1/2, pass@2 = 2/3; maj@1 = pass@1,
/// maj@2 = (1 + 0 + 1)/3 (p1's tie goes to the first answer, correct).
/// cost_of_pass@1 = 200 / (1/2) = 400, cost_of_pass@2 = 400 / (2/3) = 600.
#[test]
fn budget_and_cost_by_hand() {
    let r = report(
        &[bytes("b.jsonl", jsonl("output_tokens"))],
        &opts(Budget::Auto),
    )
    .unwrap();
    let close = |m: &str, x: f64| assert!((value(&r, m) - x).abs() < 1e-9, "{m}: {}", value(&r, m));
    close("budget@1", 200.0);
    close("budget@2", 400.0);
    close("cost_of_pass@1", 400.0);
    close("cost_of_pass@2", 600.0);
    close("cost_of_maj@1", 400.0);
    close("cost_of_maj@2", 600.0);
    let e = r.block.metrics.get("cost_of_pass@2").unwrap();
    assert_eq!(
        (e.k, e.n_problems, e.unit.name()),
        (Some(2), 3, "budget_per_solved")
    );
    assert!(e
        .estimator
        .as_deref()
        .unwrap()
        .starts_with("ratio of means"));
    let ci = e.ci.as_ref().unwrap();
    assert!(ci.lower <= 600.0 && 600.0 <= ci.upper);
    let h = r.health.budget.as_ref().unwrap();
    assert_eq!((h.n_rollouts, h.n_missing, h.used), (6, 0, true));
    // Sorted 50 100 150 200 300 400: median (150 + 200)/2, p90 at h = 4.5.
    assert_eq!(
        (h.min, h.median, h.p90, h.max),
        (Some(50.0), Some(175.0), Some(350.0), Some(400.0))
    );
    // Point-biserial r = (M₁ − M₀)/s·√(pq): correct rollouts spend 100 on
    // average, wrong ones 300, s² = 85000/6 around the mean 200, p = q = 1/2.
    let r_by_hand = -200.0 / (85000.0f64 / 6.0).sqrt() * 0.5;
    assert!((h.correlation_with_correct.unwrap() - r_by_hand).abs() < 1e-12);
}

/// bon@k and cost_of_bon@k: ROWS with selector scores p1 0.2 (correct),
/// 0.9 (wrong); p2 0.5, 0.1 (both wrong); p3 0.3, 0.4 (both correct).
/// bon@1 = pass@1 = 1/2; bon@2 picks p1's wrong answer: (0 + 0 + 1)/3.
/// cost_of_bon@1 = 200 / (1/2) = 400, cost_of_bon@2 = 400 / (1/3) = 1200.
#[test]
fn best_of_k_and_its_cost_by_hand() {
    let scores = [0.2, 0.9, 0.5, 0.1, 0.3, 0.4];
    let text: String = ROWS
        .iter()
        .zip(scores)
        .map(|((p, ok, _, t), s)| {
            format!(
                "{{\"problem\":\"{p}\",\"correct\":{ok},\"score\":{s},\"output_tokens\":{t}}}\n"
            )
        })
        .collect();
    let r = report(&[bytes("s.jsonl", text.into_bytes())], &opts(Budget::Auto)).unwrap();
    let close = |m: &str, x: f64| assert!((value(&r, m) - x).abs() < 1e-9, "{m}: {}", value(&r, m));
    close("bon@1", 0.5);
    close("bon@2", 1.0 / 3.0);
    close("cost_of_bon@1", 400.0);
    close("cost_of_bon@2", 1200.0);
    let e = r.block.metrics.get("cost_of_bon@2").unwrap();
    assert_eq!((e.k, e.unit.name()), (Some(2), "budget_per_solved"));
}

/// The fast reader (output_tokens) and the general one (another field),
/// rollout rows, problem rows and typed rows give the same report block.
#[test]
fn every_reader_agrees() {
    let fast = report(
        &[bytes("a.jsonl", jsonl("output_tokens"))],
        &opts(Budget::Auto),
    )
    .unwrap();
    let general = report(
        &[bytes("b.jsonl", jsonl("tok"))],
        &opts(Budget::Field("tok".into())),
    )
    .unwrap();
    assert_eq!(fast.block, general.block);
    let problem_rows =
        br#"{"problem":"p1","correct":[true,false],"answers":["4","5"],"cost":[100,300]}
{"problem":"p2","correct":[false,false],"answers":["6","8"],"cost":[200,400]}
{"problem":"p3","correct":[true,true],"answers":["7","7"],"cost":[50,150]}
"#;
    let cost = opts(Budget::Field("cost".into()));
    let by_problem = report(&[bytes("c.jsonl", problem_rows.to_vec())], &cost).unwrap();
    assert_eq!(fast.block, by_problem.block);
    let rows: Vec<Row> = ROWS
        .iter()
        .map(|(p, ok, a, t)| {
            RolloutRow::new(*p, *ok)
                .answer(*a)
                .number("cost", *t)
                .into()
        })
        .collect();
    let typed = report(
        &[Source::Rows {
            name: "rows".into(),
            rows,
        }],
        &cost,
    )
    .unwrap();
    assert_eq!(fast.block, typed.block);
}

/// A rollout without a budget is counted missing, never zero: the named
/// field averages p1 over its one value (100), and the default field turns
/// itself off.
#[test]
fn missing_budgets_are_counted_not_zero() {
    let text = String::from_utf8(jsonl("output_tokens"))
        .unwrap()
        .replace(",\"output_tokens\":300", "");
    let named = report(
        &[bytes("m.jsonl", text.clone().into_bytes())],
        &opts(Budget::Field("output_tokens".into())),
    )
    .unwrap();
    let h = named.health.budget.as_ref().unwrap();
    assert_eq!((h.n_rollouts, h.n_missing, h.used), (5, 1, true));
    // Means 100, 300, 100 → budget@1 = 500/3.
    assert!((value(&named, "budget@1") - 500.0 / 3.0).abs() < 1e-9);
    let auto = report(&[bytes("m.jsonl", text.into_bytes())], &opts(Budget::Auto)).unwrap();
    let h = auto.health.budget.as_ref().unwrap();
    assert_eq!((h.n_missing, h.used), (1, false));
    assert!(auto.block.metrics.get("budget@1").is_none());
    let off = report(
        &[bytes("a.jsonl", jsonl("output_tokens"))],
        &opts(Budget::Off),
    )
    .unwrap();
    assert!(off.health.budget.is_none() && off.block.metrics.get("budget@1").is_none());
}

/// A negative or non-numeric budget is a bad row, named.
#[test]
fn bad_budgets_are_named() {
    let text = String::from_utf8(jsonl("output_tokens"))
        .unwrap()
        .replacen(":300}", ":-3}", 1)
        .replacen(":150}", ":\"many\"}", 1);
    let r = report(
        &[bytes("bad.jsonl", text.into_bytes())],
        &opts(Budget::Auto),
    )
    .unwrap();
    let bad = &r.diagnostics.bad_rows;
    assert_eq!(bad.len(), 2);
    assert!(
        bad[0].reason.contains("`output_tokens` = -3 is negative"),
        "{}",
        bad[0].reason
    );
    assert!(
        bad[1].reason.contains("`output_tokens` must be a number"),
        "{}",
        bad[1].reason
    );
}

/// A native harness file: NeMo-Skills' `num_generated_tokens` is the
/// rollout's `output_tokens` (fixture rows: 12, 4096 and 3 tokens).
#[test]
fn nemo_skills_generated_tokens_are_the_budget() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../rollstat-formats/tests/fixtures/nemo_skills/output-rs0.jsonl");
    let r = report(&[Source::Path(path)], &opts(Budget::Auto)).unwrap();
    let h = r.health.budget.as_ref().expect("budget health");
    assert_eq!(
        (h.field.as_str(), h.n_rollouts, h.n_missing),
        ("output_tokens", 3, 0)
    );
    assert_eq!(
        (h.min, h.median, h.max),
        (Some(3.0), Some(12.0), Some(4096.0))
    );
    assert!(r.block.metrics.get("budget@1").is_some());
}

/// Two systems by `--by model`: short (100 tokens; pass@1 1/4, pass@2 1/2)
/// and long (150 tokens; pass@1 3/4, pass@2 1). Points (budget, pass):
/// short (100, 1/4), (200, 1/2); long (150, 3/4), (300, 1). Long at k = 1
/// beats short at k = 2 for less: the frontier is short@1, long@1, long@2.
#[test]
fn frontier_across_systems() {
    let mut rows: Vec<Row> = Vec::new();
    let mut add = |model: &str, tokens: f64, verdicts: [[bool; 2]; 2]| {
        for (p, vs) in verdicts.iter().enumerate() {
            for &ok in vs {
                let r = RolloutRow::new(format!("p{p}"), ok)
                    .number("output_tokens", tokens)
                    .field("model", model);
                rows.push(r.into());
            }
        }
    };
    add("short", 100.0, [[true, false], [false, false]]);
    add("long", 150.0, [[true, true], [true, false]]);
    let mut o = opts(Budget::Auto);
    o.by = Some("model".into());
    let r = report(
        &[Source::Rows {
            name: "rows".into(),
            rows,
        }],
        &o,
    )
    .unwrap();
    let got: Vec<(&str, u64, f64, f64)> = r
        .frontier
        .iter()
        .map(|p| (p.group.as_str(), p.k, p.budget, p.pass))
        .collect();
    assert_eq!(
        got,
        [
            ("short", 1, 100.0, 0.25),
            ("long", 1, 150.0, 0.75),
            ("long", 2, 300.0, 1.0)
        ]
    );
}
