//! Budget-matched comparison against a hand-built pair of systems: A
//! answers in 100 tokens, B in 400 (four times longer).

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{compare, Budget, CompareOptions, Comparison, FailOn, Source};

/// Eight rollouts per problem, the first `c` correct, each `tokens` long.
fn side(name: &str, cs: &[u64], tokens: u64) -> Source {
    rows(name, cs, 8, "output_tokens", tokens as f64)
}

/// `per` rollouts per problem, the first `c` correct, each with `field` =
/// `value`.
fn rows(name: &str, cs: &[u64], per: u64, field: &str, value: f64) -> Source {
    let mut text = String::new();
    for (p, &c) in cs.iter().enumerate() {
        for i in 0..per {
            text += &format!(
                "{{\"problem\":\"p{p}\",\"rollout\":{i},\"correct\":{},\"{field}\":{value}}}\n",
                i < c
            );
        }
    }
    Source::Bytes {
        name: name.into(),
        bytes: text.into_bytes(),
    }
}

fn run(opts: &CompareOptions) -> Comparison {
    let a = side("a.jsonl", &[2, 0, 4, 1], 100);
    let b = side("b.jsonl", &[6, 2, 8, 3], 400);
    compare(&[a, b], opts).unwrap()
}

fn opts() -> CompareOptions {
    let mut o = CompareOptions::default();
    o.intervals.resamples = 1000;
    o.metrics.budget = Budget::Field("output_tokens".into());
    o
}

/// k_B = 1 costs B 400 tokens, which buys A k_A = 4 draws: A's pass@4 per
/// problem is 1 − C(8−c, 4)/C(8, 4) = 55/70, 0, 69/70, 35/70 → mean
/// 159/280; B's pass@1 is 19/32. k_B = 2 (800 tokens) buys A all 8 draws:
/// A = 3/4, B's pass@2 = (27 + 13 + 28 + 18)/28/4 = 43/56. k_B = 4 would
/// need 16 draws of A, which has 8: not computable.
#[test]
fn short_answers_against_four_times_longer_ones() {
    let c = run(&opts());
    let matched = |k: u64| {
        c.rows
            .iter()
            .find(|r| r.budget_matched.is_some_and(|m| m.k_b == k))
    };
    let r1 = matched(1).expect("k_B = 1");
    let m1 = r1.budget_matched.unwrap();
    assert_eq!(
        (r1.metric.as_str(), m1.k_a, m1.budget),
        ("pass@1", 4.0, 400.0)
    );
    assert!((r1.a - 159.0 / 280.0).abs() < 1e-12);
    assert!((r1.b - 19.0 / 32.0).abs() < 1e-12);
    assert!((r1.delta - (19.0 / 32.0 - 159.0 / 280.0)).abs() < 1e-12);
    assert!(r1.ci.is_some() && r1.p_value.is_some());
    let r2 = matched(2).expect("k_B = 2");
    assert_eq!(r2.budget_matched.unwrap().k_a, 8.0);
    assert!((r2.a - 0.75).abs() < 1e-12 && (r2.b - 43.0 / 56.0).abs() < 1e-12);
    assert!(matched(4).is_none());
    assert!(c
        .not_computable
        .iter()
        .any(|n| n.metric == "pass@4 (budget-matched)"));
    // The same-k rows stay: pass@1 of A is 7/32.
    let plain = c
        .rows
        .iter()
        .find(|r| r.metric == "pass@1" && r.budget_matched.is_none())
        .unwrap();
    assert!((plain.a - 7.0 / 32.0).abs() < 1e-12);
}

/// A margin and a failure condition gate on the budget-matched rows too.
#[test]
fn margin_and_fail_on_cover_budget_matched_rows() {
    let mut o = opts();
    o.margin = Some(0.02);
    o.fail_on = Some(FailOn::Inconclusive);
    o.metric = Some(vec!["pass@1".into()]);
    let c = run(&o);
    let rows: Vec<_> = c.rows.iter().filter(|r| r.metric == "pass@1").collect();
    assert_eq!(rows.len(), 2);
    // Same k: B's pass@1 is 19/32 against A's 7/32, far above the margin;
    // at B's budget the +0.026 over four problems is inconclusive.
    let verdict = |matched: bool| {
        rows.iter()
            .find(|r| r.budget_matched.is_some() == matched)
            .and_then(|r| r.verdict)
    };
    assert_eq!(verdict(false).map(|v| v.name()), Some("non-inferior"));
    assert_eq!(verdict(true).map(|v| v.name()), Some("inconclusive"));
    let fail = c.fail.unwrap();
    assert!(fail.failed);
    assert_eq!(fail.rows, ["pass@1 (budget-matched)"]);
}

/// Without a named budget field no row is budget-matched.
#[test]
fn no_budget_field_no_matched_rows() {
    let mut o = opts();
    o.metrics.budget = Budget::Auto;
    let c = run(&o);
    assert!(c.rows.iter().all(|r| r.budget_matched.is_none()));
}

/// Budgets in dollars whose ratio is 7 only up to rounding (0.1·7 =
/// 0.7000000000000001 against 0.1 per rollout, 7 rollouts a problem): k_A
/// is all 7 draws of A, not 7.000…1 (which would need an 8th rollout and
/// drop the row).
#[test]
fn a_ratio_that_is_whole_up_to_rounding_is_whole() {
    let mut o = opts();
    o.metrics.budget = Budget::Field("cost".into());
    o.metrics.k = Some(vec![1]);
    let a = rows("a.jsonl", &[2, 0, 4, 1, 3, 5, 7], 7, "cost", 0.1);
    let b = rows("b.jsonl", &[6, 2, 7, 3, 1, 1, 2], 7, "cost", 0.1 * 7.0);
    let c = compare(&[a, b], &o).unwrap();
    let r = c.rows.iter().find(|r| r.budget_matched.is_some());
    let m = r.expect("k_B = 1 is matched").budget_matched.unwrap();
    assert_eq!(m.k_a, 7.0);
    // A with all 7 draws solves every problem with a correct rollout: 6/7.
    assert!((r.unwrap().a - 6.0 / 7.0).abs() < 1e-12);
}
