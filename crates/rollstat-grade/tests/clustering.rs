//! Clustering is a function of the set of answers (issue #10 item 3), its
//! bucketing compares every pair that can be equivalent (item 8), and
//! grading stops at the per-pair work cap with "not decided" (item 7).

use proptest::prelude::*;
use rollstat_grade::{
    cluster_answers, grade, is_equivalent, ExtractMode, Grader, GradingPolicy, Reason,
};

/// Answers chosen to meet every clustering path: keys shared by answers
/// that parse and answers that do not (`b)s`/`bs`), exact numbers,
/// decimals that match by rounding, radicals, expressions with variables,
/// assignments (which bridge answers), collections, intervals, texts,
/// dates, junk and capped answers.
const POOL: &[&str] = &[
    "b)s",
    "bs",
    "sb",
    "1/3",
    "0.33",
    "0.333",
    "\\frac{1}{3}",
    "0.5",
    "\\frac12",
    "50\\%",
    "50",
    "2",
    "2.0",
    "x=2",
    "y=2",
    "\\sqrt{8}",
    "2\\sqrt2",
    "2.83",
    "x+1",
    "1+x",
    "(x+1)^2",
    "x^2+2x+1",
    "(1,2)",
    "\\{2,1\\}",
    "1, 2",
    "[1,2]",
    "(1,2]",
    "x \\in [1,2]",
    "1 \\le x \\le 2",
    "\\pm 3",
    "3, -3",
    "\\text{Evelyn}",
    "Evelyn",
    "05/01/2021",
    "2021-05-01",
    "\\infty",
    "-\\infty",
    "(-\\infty, 3)",
    "x < 3",
    "615!^3^32",
    "0",
    "[invalid]",
    "\\pi",
    "3.14",
    "3.14159265358979",
    "\\begin{pmatrix}1\\\\2\\end{pmatrix}",
];

/// Whether answers `i` and `j` share a cluster, for every pair.
fn together(ids: &[Option<usize>]) -> Vec<Vec<bool>> {
    ids.iter()
        .map(|a| ids.iter().map(|b| a.is_some() && a == b).collect())
        .collect()
}

/// The partition of `answers` when they arrive in the order `perm`,
/// expressed on the original indices.
fn partition_under(answers: &[&str], perm: &[usize]) -> Vec<Vec<bool>> {
    let permuted: Vec<Option<&str>> = perm.iter().map(|&i| Some(answers[i])).collect();
    let ids = cluster_answers(&permuted);
    let mut back = vec![None; answers.len()];
    for (pos, &i) in perm.iter().enumerate() {
        back[i] = ids[pos];
    }
    together(&back)
}

#[test]
fn issue_example_is_one_partition_in_both_orders() {
    let fwd = cluster_answers(&[Some("b)s"), Some("bs"), Some("sb")]);
    let rev = cluster_answers(&[Some("sb"), Some("bs"), Some("b)s")]);
    // `bs` and `b)s` share a key; its parsed member `bs` equals `sb`
    assert_eq!(fwd, vec![Some(0), Some(0), Some(0)]);
    assert_eq!(rev, vec![Some(0), Some(0), Some(0)]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any subset of the pool, in any order, gives the same partition.
    #[test]
    fn partition_is_independent_of_order(
        picks in proptest::collection::vec(0..POOL.len(), 1..24),
        seed in any::<u64>(),
    ) {
        let answers: Vec<&str> = picks.iter().map(|&i| POOL[i]).collect();
        let n = answers.len();
        let identity: Vec<usize> = (0..n).collect();
        let reference = partition_under(&answers, &identity);
        // two permutations from the seed (Fisher–Yates on a xorshift stream)
        let mut state = seed | 1;
        for _ in 0..2 {
            let mut perm = identity.clone();
            for k in (1..n).rev() {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                perm.swap(k, (state % (k as u64 + 1)) as usize);
            }
            prop_assert_eq!(&partition_under(&answers, &perm), &reference);
        }
    }
}

/// Reference partition by brute force: union over every pair of answers
/// that [`is_equivalent`] accepts in either direction (no bucketing).
fn brute_force(answers: &[&str]) -> Vec<Vec<bool>> {
    let n = answers.len();
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            x = p[x];
        }
        x
    }
    for i in 0..n {
        for j in (i + 1)..n {
            let (a, b) = (answers[i], answers[j]);
            if a == b || is_equivalent(a, b).equal || is_equivalent(b, a).equal {
                let (ri, rj) = (root(&mut parent, i), root(&mut parent, j));
                parent[ri.max(rj)] = ri.min(rj);
            }
        }
    }
    let roots: Vec<usize> = (0..n).map(|i| root(&mut parent, i)).collect();
    roots
        .iter()
        .map(|a| roots.iter().map(|b| a == b).collect())
        .collect()
}

/// Well-formed answers (every key has one parse): the bucketed clustering
/// finds exactly the brute-force partition, so bucketing skips only pairs
/// that cannot be equivalent.
fn well_formed() -> impl Strategy<Value = String> {
    let int = -6i64..7;
    prop_oneof![
        int.clone().prop_map(|a| a.to_string()),
        (int.clone(), 1i64..5).prop_map(|(a, b)| format!("\\frac{{{a}}}{{{b}}}")),
        (int.clone(), 1i64..5).prop_map(|(a, b)| format!("{:.2}", a as f64 / b as f64)),
        (1i64..13).prop_map(|a| format!("\\sqrt{{{a}}}")),
        (int.clone(), int.clone()).prop_map(|(a, b)| format!("{a}x+{b}")),
        (int.clone(), int.clone()).prop_map(|(a, b)| format!("{b}+{a}x")),
        int.clone().prop_map(|a| format!("(x+{a})^2")),
        (int.clone(), int.clone()).prop_map(|(a, b)| format!("({a},{b})")),
        (int.clone(), int.clone()).prop_map(|(a, b)| format!("\\{{{a},{b}\\}}")),
        (int.clone(), int.clone()).prop_map(|(a, b)| format!("[{a},{b}]")),
        int.clone().prop_map(|a| format!("x={a}")),
        int.clone().prop_map(|a| format!("\\pm {a}")),
        int.prop_map(|a| format!("{a}\\%")),
        prop_oneof![
            Just("\\pi"),
            Just("3.14"),
            Just("\\infty"),
            Just("\\text{no}")
        ]
        .prop_map(str::to_string),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn bucketing_finds_the_brute_force_partition(
        answers in proptest::collection::vec(well_formed(), 1..20),
    ) {
        let refs: Vec<&str> = answers.iter().map(String::as_str).collect();
        let ids = cluster_answers(&refs.iter().map(|a| Some(*a)).collect::<Vec<_>>());
        prop_assert_eq!(together(&ids), brute_force(&refs));
    }
}

// ------------------------------------------------------------- work cap

/// `n` twos joined by `^` (left-associative: 2^(2^(n-1))).
fn tower(n: usize) -> String {
    vec!["2"; n].join("^")
}

#[test]
fn issue_pairs_end_undecided_not_wrong() {
    let chain: Vec<String> = (1..=60).map(|i| format!("{}!", 2440 + i)).collect();
    let cases = [
        ("615!^3^32".to_string(), "0".to_string()),
        (tower(36), "0".to_string()),
        (chain.join("\\cdot "), "1".to_string()),
    ];
    for (gold, answer) in &cases {
        let v = is_equivalent(gold, answer);
        assert_eq!(v.reason, Reason::LimitExceeded, "{gold} vs {answer}");
        assert!(!v.equal);
        let g = grade(
            Some(&format!("so \\boxed{{{answer}}}")),
            None,
            gold,
            &ExtractMode::Math,
        );
        assert!(g.undecided && !g.correct, "{gold}: {g:?}");
        assert_eq!(GradingPolicy::default().judge(gold, answer), None);
    }
    // the boxed tower as the response, graded against a plain gold
    let g = grade(
        Some(&format!("\\boxed{{{}}}", tower(36))),
        None,
        "0",
        &ExtractMode::Math,
    );
    assert!(g.undecided, "{g:?}");
}

#[test]
fn work_below_the_cap_still_decides() {
    // big but bounded exact values keep exact verdicts
    assert_eq!(
        is_equivalent("2500!", "2499! \\cdot 2500").reason,
        Reason::ExactRational
    );
    assert_eq!(
        is_equivalent(&tower(5), "65536").reason,
        Reason::ExactRational
    );
    assert!(!is_equivalent(&tower(5), "65537").equal);
    assert_eq!(is_equivalent(&tower(5), "65537").reason, Reason::Different);
}

#[test]
fn capped_clustering_comparisons_are_counted_and_kept_apart() {
    let answers = [Some("615!^3^32"), Some("0"), Some("615!^3^32")];
    let (ids, n_undecided) = Grader::default().cluster_answers_counted(&answers);
    // identical text is one answer; the capped one never joins `0`
    assert_eq!(ids, vec![Some(0), Some(1), Some(0)]);
    // one capped answer (its value could not be computed under the cap)
    assert_eq!(n_undecided, 1);
    let (_, n) = GradingPolicy::default().cluster_counted(&[Some("1/2"), Some("0.5")]);
    assert_eq!(n, 0);
}
