//! Budget-matched maj@k and bon@k rows against a hand-built pair of
//! systems — A answers in short rollouts, B in ones four times longer —
//! with every expected value found by enumerating all subsets of each
//! problem's rollouts here (not by the maj@k program or bon@k formula under
//! test): vote or pick the best score in each subset, average, then mix
//! ⌊k_A⌋ and ⌈k_A⌉ draws by the randomized policy's probabilities.

// Options are set field by field, as a caller would.
#![allow(clippy::field_reassign_with_default)]

use rollstat::{compare, Budget, CompareOptions, Comparison, FailOn, Source, TiePolicy};

/// One rollout: its answer (`None`: unextracted), whether it is right, and
/// its selector score.
type Roll = (Option<&'static str>, bool, f64);

/// Four problems of eight rollouts each; answers repeat so subsets tie.
fn system_a() -> Vec<Vec<Roll>> {
    vec![
        roll(&["4", "7", "4", "9", "7", "7", "4", "x"], "4", 0.0),
        roll(&["2", "3", "3", "", "2", "5", "6", "3"], "2", 0.3),
        roll(&["1", "1", "8", "1", "8", "8", "8", "1"], "8", 0.6),
        roll(&["5", "6", "7", "8", "9", "5", "", "0"], "5", 0.9),
    ]
}

fn system_b() -> Vec<Vec<Roll>> {
    vec![
        roll(&["4", "4", "7", "4", "9", "4", "7", "4"], "4", 0.2),
        roll(&["2", "2", "3", "2", "3", "3", "2", "6"], "2", 0.5),
        roll(&["8", "1", "8", "8", "1", "8", "1", "1"], "8", 0.1),
        roll(&["5", "0", "5", "", "0", "5", "5", "5"], "5", 0.7),
    ]
}

/// Rollouts with answers `answers` (`""`: unextracted) against `gold`, and
/// distinct scores that favour a right answer only partly (shifted by
/// `phase`), so best-of-k differs from pass@k.
fn roll(answers: &[&'static str], gold: &str, phase: f64) -> Vec<Roll> {
    answers
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let right = a == gold;
            let score = ((i as f64 * 0.37 + phase) % 1.0) + if right { 0.3 } else { 0.0 };
            ((!a.is_empty()).then_some(a), right, score)
        })
        .collect()
}

fn source(name: &str, problems: &[Vec<Roll>], tokens: u64, answers: bool) -> Source {
    let mut text = String::new();
    for (p, rolls) in problems.iter().enumerate() {
        for (i, (answer, right, score)) in rolls.iter().enumerate() {
            let answer = match (answers, answer) {
                (false, _) => String::new(),
                (true, Some(a)) => format!(",\"answer\":\"{a}\""),
                (true, None) => ",\"answer\":null".into(),
            };
            text += &format!(
                "{{\"problem\":\"p{p}\",\"rollout\":{i},\"correct\":{right}{answer},\
                 \"score\":{score},\"output_tokens\":{tokens}}}\n"
            );
        }
    }
    Source::Bytes {
        name: name.into(),
        bytes: text.into_bytes(),
    }
}

/// Every k-subset of 0..n as index lists, in increasing order.
fn subsets(n: usize, k: usize) -> Vec<Vec<usize>> {
    (0u32..1 << n)
        .filter(|m| m.count_ones() as usize == k)
        .map(|m| (0..n).filter(|i| m & (1 << i) != 0).collect())
        .collect()
}

/// The majority vote's credit on one subset (rollout order kept) under
/// `tie`: the most frequent extracted answer wins; a tie goes to the
/// answer seen first in the subset (`First`), to nobody (`None`), or
/// splits the credit (`Fractional`). No voter: 0.
fn vote(rolls: &[Roll], subset: &[usize], tie: TiePolicy) -> f64 {
    let mut counts: Vec<(&str, usize, bool)> = Vec::new();
    for &i in subset {
        let (Some(a), right, _) = rolls[i] else {
            continue;
        };
        match counts.iter_mut().find(|c| c.0 == a) {
            Some(c) => c.1 += 1,
            None => counts.push((a, 1, right)),
        }
    }
    let Some(top) = counts.iter().map(|c| c.1).max() else {
        return 0.0;
    };
    let tied: Vec<bool> = counts.iter().filter(|c| c.1 == top).map(|c| c.2).collect();
    match tie {
        TiePolicy::First => f64::from(u8::from(tied[0])),
        TiePolicy::None => f64::from(u8::from(tied.len() == 1 && tied[0])),
        TiePolicy::Fractional => tied.iter().filter(|&&r| r).count() as f64 / tied.len() as f64,
    }
}

/// The best-scored rollout of a subset is right (scores here are distinct).
fn best(rolls: &[Roll], subset: &[usize]) -> f64 {
    let top = subset
        .iter()
        .max_by(|&&x, &&y| rolls[x].2.total_cmp(&rolls[y].2))
        .unwrap();
    f64::from(u8::from(rolls[*top].1))
}

/// The mean over all k-subsets of `credit` (0 for k = 0: nothing drawn).
fn by_enumeration(rolls: &[Roll], k: usize, credit: &dyn Fn(&[usize]) -> f64) -> f64 {
    if k == 0 {
        return 0.0;
    }
    let all = subsets(rolls.len(), k);
    all.iter().map(|s| credit(s)).sum::<f64>() / all.len() as f64
}

/// The mean over problems of the randomized policy's credit at draw size
/// `k`: ⌊k⌋ draws with probability ⌈k⌉ − k, ⌈k⌉ otherwise.
fn expected(problems: &[Vec<Roll>], k: f64, credit: &dyn Fn(&[Roll], &[usize]) -> f64) -> f64 {
    let (lo, f) = (k.floor() as usize, k - k.floor());
    let per_problem = |rolls: &Vec<Roll>| {
        let at = |j| by_enumeration(rolls, j, &|s| credit(rolls, s));
        (1.0 - f) * at(lo) + if f > 0.0 { f * at(lo + 1) } else { 0.0 }
    };
    problems.iter().map(per_problem).sum::<f64>() / problems.len() as f64
}

fn opts(tie: TiePolicy) -> CompareOptions {
    let mut o = CompareOptions::default();
    o.intervals.resamples = 500;
    o.metrics.budget = Budget::Field("output_tokens".into());
    o.metrics.tie_policy = tie;
    o.metrics.k = Some(vec![1, 2, 4]);
    o
}

fn run(tokens_a: u64, o: &CompareOptions) -> Comparison {
    let a = source("a.jsonl", &system_a(), tokens_a, true);
    let b = source("b.jsonl", &system_b(), 400, true);
    compare(&[a, b], o).unwrap()
}

/// The budget-matched row named `metric` at B's draw size `k_b`.
fn matched<'a>(c: &'a Comparison, metric: &str, k_b: u64) -> Option<&'a rollstat::CompareRow> {
    c.rows
        .iter()
        .find(|r| r.metric == metric && r.budget_matched.is_some_and(|m| m.k_b == k_b))
}

/// Checks one matched row's A, B and delta against enumeration.
fn check(
    c: &Comparison,
    family: &str,
    k_b: u64,
    k_a: f64,
    credit: &dyn Fn(&[Roll], &[usize]) -> f64,
) {
    let name = format!("{family}@{k_b}");
    let r = matched(c, &name, k_b).unwrap_or_else(|| panic!("{name} budget-matched row"));
    let m = r.budget_matched.unwrap();
    assert!((m.k_a - k_a).abs() < 1e-12, "{name}: k_a {}", m.k_a);
    assert_eq!(m.budget, 400.0 * k_b as f64);
    let a = expected(&system_a(), k_a, credit);
    let b = expected(&system_b(), k_b as f64, credit);
    assert!((r.a - a).abs() < 1e-12, "{name}: A {} vs {a}", r.a);
    assert!((r.b - b).abs() < 1e-12, "{name}: B {} vs {b}", r.b);
    assert!((r.delta - (b - a)).abs() < 1e-12, "{name}: delta");
    assert!(
        r.ci.is_some() && r.p_value.is_some(),
        "{name}: paired interval and p"
    );
}

/// Four times longer answers: B's k_B draws buy A 4·k_B (k_B = 1, 2; at
/// k_B = 4 A would need 16 of its 8). Every tie policy.
#[test]
fn maj_and_bon_at_four_times_the_budget() {
    for tie in [TiePolicy::First, TiePolicy::None, TiePolicy::Fractional] {
        let c = run(100, &opts(tie));
        for k_b in [1u64, 2] {
            let k_a = 4.0 * k_b as f64;
            check(&c, "maj", k_b, k_a, &|r, s| vote(r, s, tie));
            check(&c, "bon", k_b, k_a, &|r, s| best(r, s));
        }
        assert!(matched(&c, "maj@4", 4).is_none() && matched(&c, "bon@4", 4).is_none());
        for name in ["maj@4 (budget-matched)", "bon@4 (budget-matched)"] {
            assert!(c.not_computable.iter().any(|n| n.metric == name), "{name}");
        }
    }
}

/// A at 250 tokens: k_A = 1.6, 3.2, 6.4 — fractional, so A's value mixes
/// two draw sizes.
#[test]
fn maj_and_bon_at_a_fractional_draw_size() {
    for tie in [TiePolicy::First, TiePolicy::Fractional] {
        let c = run(250, &opts(tie));
        for (k_b, k_a) in [(1u64, 1.6), (2, 3.2), (4, 6.4)] {
            check(&c, "maj", k_b, k_a, &|r, s| vote(r, s, tie));
            check(&c, "bon", k_b, k_a, &|r, s| best(r, s));
        }
    }
}

/// `--margin` and `--fail-on` gate on the matched maj@k rows, and a family
/// one side lacks gets no matched row (and no not-computable noise).
#[test]
fn gating_and_a_side_without_answers() {
    let mut o = opts(TiePolicy::First);
    o.margin = Some(0.02);
    o.fail_on = Some(FailOn::Inconclusive);
    o.metric = Some(vec!["maj@2".into()]);
    let c = run(250, &o);
    let r = matched(&c, "maj@2", 2).unwrap();
    assert!(r.verdict.is_some());
    // Only maj@2 is checked, and its matched row is named apart.
    let fail = c.fail.as_ref().unwrap();
    let named = "maj@2 (budget-matched)".to_string();
    let gated = r.verdict.map(|v| v.name()) == Some("inconclusive");
    assert_eq!(fail.rows.contains(&named), gated);
    assert!(fail.rows.iter().all(|n| n.starts_with("maj@2")));

    let a = source("a.jsonl", &system_a(), 100, false);
    let b = source("b.jsonl", &system_b(), 400, true);
    let c = compare(&[a, b], &opts(TiePolicy::First)).unwrap();
    assert!(matched(&c, "maj@1", 1).is_none());
    assert!(matched(&c, "bon@1", 1).is_some() && matched(&c, "pass@1", 1).is_some());
    assert!(!c
        .not_computable
        .iter()
        .any(|n| n.metric.starts_with("maj@1 (budget")));
}
