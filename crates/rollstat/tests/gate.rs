//! The engine's `gate()` on count rows built here: per-benchmark and suite
//! tests against published vectors (docs/statistics.md §10, the research
//! notes' §2c) and against exact rational tails computed in the test; the
//! margins, weights and rules against the rows the gate returns.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive};
use rollstat::gate::{gate, plan_record, BenchmarkSources, GateOptions, GatePlan, SuiteSources};
use rollstat::rows::{CountRow, Row};
use rollstat::{BenchmarkStatus, Decision, Gate, Source};

/// One side of a benchmark: (c, n) per problem, problems `p0`, `p1`, …
/// (the rows in reverse order when `reversed`).
fn side(name: &str, counts: &[(u64, u64)], reversed: bool) -> Source {
    let mut rows: Vec<Row> = counts
        .iter()
        .enumerate()
        .map(|(i, &(c, n))| {
            Row::from(CountRow {
                problem: format!("p{i}"),
                n,
                c,
                ..Default::default()
            })
        })
        .collect();
    if reversed {
        rows.reverse();
    }
    Source::Rows {
        name: name.into(),
        rows,
    }
}

/// (c, n) per problem.
type Counts = Vec<(u64, u64)>;
/// A benchmark: its name, A's counts and B's.
type Bench = (String, Counts, Counts);

/// A one-rollout benchmark with b problems only A solves, c only B
/// solves, `both` both solve and `neither` neither.
fn binary(b: u64, c: u64, both: u64, neither: u64) -> (Counts, Counts) {
    let mut a = Vec::new();
    let mut bb = Vec::new();
    for (x, y, k) in [(1, 0, b), (0, 1, c), (1, 1, both), (0, 0, neither)] {
        for _ in 0..k {
            a.push((x, 1));
            bb.push((y, 1));
        }
    }
    (a, bb)
}

/// The gate of `benches` under the plan `head` (TOML before the
/// benchmarks), each benchmark declared with `extra` lines.
fn run(head: &str, benches: &[Bench], extra: &dyn Fn(&str) -> String) -> Gate {
    run_ordered(head, benches, extra, false)
}

fn run_ordered(
    head: &str,
    benches: &[Bench],
    extra: &dyn Fn(&str) -> String,
    reversed: bool,
) -> Gate {
    let mut text = head.to_string();
    for (name, _, _) in benches {
        text += &format!(
            "\n[[benchmark]]\nname = '{name}'\nbaseline = 'a'\ncandidate = 'b'\n{}",
            extra(name)
        );
    }
    let plan = GatePlan::from_toml(&text, "plan.toml").unwrap();
    let sources = benches
        .iter()
        .map(|(name, a, b)| BenchmarkSources {
            name: name.clone(),
            baseline: vec![side("a", a, reversed)],
            candidate: vec![side("b", b, reversed)],
        })
        .collect();
    let opts = GateOptions::default();
    gate(
        &plan,
        plan_record("plan.toml", &text),
        SuiteSources::Declared(sources),
        &opts,
    )
    .unwrap()
}

fn none(_: &str) -> String {
    String::new()
}

fn choose(n: u64, k: u64) -> BigInt {
    (0..k).fold(BigInt::one(), |acc, i| acc * (n - i) / (i + 1))
}

/// P(X ≥ b), X ~ Bin(m, ½).
fn upper_tail(b: u64, m: u64) -> BigRational {
    let num: BigInt = (b..=m).map(|k| choose(m, k)).sum();
    BigRational::new(num, BigInt::one() << m)
}

/// P(X > b) + ½ P(X = b).
fn mid_p(b: u64, m: u64) -> BigRational {
    let eq = BigRational::new(choose(m, b), BigInt::one() << m);
    upper_tail(b, m) - eq / BigInt::from(2)
}

fn fl(x: &BigRational) -> f64 {
    x.to_f64().unwrap()
}

#[track_caller]
fn rel_close(got: f64, want: f64, tol: f64) {
    let scale = want.abs().max(1e-300);
    assert!(
        ((got - want) / scale).abs() <= tol,
        "got {got}, want {want}"
    );
}

/// The research notes' six benchmarks: (b, c) per benchmark.
const SIX: [(&str, u64, u64); 6] = [
    ("bbh", 89, 95),
    ("gpqa", 12, 14),
    ("ifeval", 8, 11),
    ("math", 45, 42),
    ("mmlu-pro", 102, 108),
    ("musr", 18, 15),
];

fn six() -> Vec<Bench> {
    SIX.iter()
        .map(|&(name, b, c)| {
            let (x, y) = binary(b, c, 40, 10);
            (name.to_string(), x, y)
        })
        .collect()
}

/// Pooled b = 274, c = 285 → 0.69409; Fisher χ² = 6.3048 on 12 df → 0.89994;
/// z_max = 0.52223 (musr, 18 vs 15), exact max-drop p = 0.90133 (research
/// notes §2c, scipy.stats.binomtest / combine_pvalues); each also recomputed
/// here from exact tails.
#[test]
fn six_benchmarks_match_the_published_suite_vectors() {
    let g = run("margin = 0.01\nrule = 'detect'\n", &six(), &none);
    for (r, &(name, b, c)) in g.benchmarks.iter().zip(&SIX) {
        assert_eq!(r.name, name);
        let f = r.flips.as_ref().unwrap();
        assert_eq!(
            (f.a_only, f.b_only, f.single_draw),
            (b as f64, c as f64, true)
        );
        rel_close(r.test.unwrap().p, fl(&upper_tail(b, b + c)), 1e-9);
    }
    let t = &g.suite.tests;
    assert_eq!(t[0].name, "pooled");
    assert_eq!(t[0].statistic, 274.0 - 285.0);
    rel_close(t[0].p, 0.6940943172044693, 1e-9);
    rel_close(t[0].p, fl(&upper_tail(274, 559)), 1e-9);
    let chi2: f64 = SIX
        .iter()
        .map(|&(_, b, c)| -2.0 * fl(&upper_tail(b, b + c)).ln())
        .sum();
    assert_eq!(t[1].name, "fisher");
    rel_close(t[1].statistic, 6.304808644746986, 1e-9);
    rel_close(t[1].statistic, chi2, 1e-9);
    rel_close(t[1].p, 0.8999438572547623, 1e-9);
    assert_eq!(t[2].name, "max-drop");
    rel_close(t[2].statistic, 0.5222329678670935, 1e-12);
    rel_close(t[2].p, 0.9013311933401498, 1e-9);
    rel_close(t[2].p, exact_max_drop(&SIX), 1e-9);
    assert!(t.iter().all(|t| !t.rejects));
    assert_eq!(g.verdict, Decision::Go);
    assert_eq!(g.suite.detect_rule.decision, Decision::Go);
}

/// 1 − Π_t P(Z_t < z_max), Z_t = (2X − m_t)/√m_t, X ~ Bin(m_t, ½), exactly.
fn exact_max_drop(counts: &[(&str, u64, u64)]) -> f64 {
    let z = |b: u64, m: u64| (2.0 * b as f64 - m as f64) / (m as f64).sqrt();
    let z_max = counts
        .iter()
        .map(|&(_, b, c)| z(b, b + c))
        .fold(f64::NEG_INFINITY, f64::max);
    let prod = counts.iter().fold(BigRational::one(), |acc, &(_, b, c)| {
        let m = b + c;
        let x_star = (0..=m).find(|&x| z(x, m) >= z_max - 1e-12).unwrap_or(m + 1);
        acc * (BigRational::one() - upper_tail(x_star, m))
    });
    fl(&(BigRational::one() - prod))
}

/// b = 412, c = 340: p = 0.004788420996860966, mid-p 0.0043255826340586395
/// (scipy.stats.binomtest(412, 752, alternative="greater")).
#[test]
fn mcnemar_vector_exact_and_mid_p() {
    let (a, b) = binary(412, 340, 100, 100);
    let benches = vec![("t".to_string(), a, b)];
    let exact = run("margin = 0.01\n", &benches, &none);
    let t = exact.benchmarks[0].test.unwrap();
    assert_eq!(t.method.name(), "mcnemar-exact");
    rel_close(t.p, 0.004788420996860966, 1e-9);
    rel_close(t.p, fl(&upper_tail(412, 752)), 1e-9);
    rel_close(t.z.unwrap(), 72.0 / 752f64.sqrt(), 1e-12);
    let mid = run("margin = 0.01\nmid_p = true\n", &benches, &none);
    let t = mid.benchmarks[0].test.unwrap();
    assert_eq!(t.method.name(), "mcnemar-mid-p");
    rel_close(t.p, 0.0043255826340586395, 1e-9);
    rel_close(t.p, fl(&mid_p(412, 752)), 1e-9);
    assert!(mid.settings.mid_p);
}

/// No discordant pair is no evidence: p = 1 with the exact test and the
/// mid-p. Nor is it proof of a drop below a small margin: Tango's score
/// interval with b = c = 0 of N pairs is ±z²/(N + z²) (solving
/// T(δ) = ±z by hand), 0.0513 at N = 50 and 90%, so a 1-point margin is
/// INSUFFICIENT (the bootstrap over problems gave [0, 0] and PASS) and a
/// 6-point one passes.
#[test]
fn no_discordant_pair_gives_p_1() {
    let (a, b) = binary(0, 0, 30, 20);
    let benches = vec![("same".to_string(), a, b)];
    let z = rollstat_stats::dist::normal_quantile(0.95);
    let half = z * z / (50.0 + z * z);
    for mid in ["", "mid_p = true\n"] {
        let g = run(&format!("margin = 0.01\n{mid}"), &benches, &none);
        let r = &g.benchmarks[0];
        assert_eq!(r.test.unwrap().p, 1.0, "{mid}");
        assert_eq!(r.test.unwrap().z, None);
        assert_eq!(r.interval_method, "tango-score");
        let ci = r.ci.unwrap();
        assert!(
            (ci.upper - half).abs() < 1e-9 && (ci.lower + half).abs() < 1e-9,
            "{ci:?}"
        );
        assert_eq!(r.status, BenchmarkStatus::Insufficient);
        assert!(g.suite.tests.iter().all(|t| t.p == 1.0), "{mid}");
        assert_eq!(g.verdict, Decision::Inconclusive);
        let wide = run(&format!("margin = 0.06\n{mid}"), &benches, &none);
        assert_eq!(wide.benchmarks[0].status, BenchmarkStatus::Pass);
    }
}

/// A = 0.5: a relative margin of 5% is 0.025, used when below the absolute one.
#[test]
fn the_margin_used_is_the_smaller_of_absolute_and_relative() {
    let (a, b) = binary(2, 2, 48, 48);
    let benches = vec![("t".to_string(), a, b)];
    for (abs, used) in [(0.03, 0.025), (0.02, 0.02)] {
        let head = format!("margin = {abs}\nrelative_margin = 0.05\n");
        let g = run(&head, &benches, &none);
        let m = g.benchmarks[0].margin;
        assert_eq!(g.benchmarks[0].a, 0.5);
        assert_eq!((m.absolute, m.relative), (abs, Some(0.05)));
        assert!((m.used - used).abs() < 1e-15, "{m:?}");
    }
}

#[test]
fn a_relative_margin_outside_0_1_is_refused() {
    for r in ["5", "-0.5", "1.5"] {
        let text =
            format!("baseline = 'a'\ncandidate = 'b'\nmargin = 0.01\nrelative_margin = {r}\n");
        assert!(
            GatePlan::from_toml(&text, "plan.toml").is_err(),
            "relative_margin = {r}"
        );
    }
}

/// weights = "declared" 3 : 1 → 0.75 and 0.25; the suite's numbers are the
/// weighted sums of the rows' and its SE √Σ w² se².
#[test]
fn declared_weights_are_normalised_and_applied() {
    let (a1, b1) = binary(10, 2, 50, 38);
    let (a2, b2) = binary(1, 4, 20, 15);
    let benches = vec![("one".to_string(), a1, b1), ("two".to_string(), a2, b2)];
    let weight = |n: &str| format!("weight = {}\n", if n == "one" { 3 } else { 1 });
    let g = run("margin = 0.05\nweights = 'declared'\n", &benches, &weight);
    let w: Vec<f64> = g.benchmarks.iter().map(|r| r.weight).collect();
    assert_eq!(w, [0.75, 0.25]);
    // Δ_one = (2 − 10)/100, Δ_two = (4 − 1)/40.
    let deltas = [-8.0 / 100.0, 3.0 / 40.0];
    for (r, d) in g.benchmarks.iter().zip(deltas) {
        assert!((r.delta - d).abs() < 1e-15, "{} {}", r.name, r.delta);
    }
    let want = 0.75 * deltas[0] + 0.25 * deltas[1];
    assert!((g.suite.delta - want).abs() < 1e-15, "{}", g.suite.delta);
    let se = |i: usize| g.benchmarks[i].stderr.unwrap();
    let want_se = ((0.75 * se(0)).powi(2) + (0.25 * se(1)).powi(2)).sqrt();
    assert!((g.suite.stderr.unwrap() - want_se).abs() < 1e-15);
    let a = 0.75 * 60.0 / 100.0 + 0.25 * 21.0 / 40.0;
    assert!((g.suite.a - a).abs() < 1e-15, "{}", g.suite.a);
    assert_eq!(g.settings.weights.name(), "declared");
}

/// An advisory BREACH (b = 60, c = 0: p = 2⁻⁶⁰) is shown and never
/// counts: not in the margin rule, not in the suite's weighted drop, not in
/// the detect rule's combination tests.
#[test]
fn an_advisory_breach_does_not_block_the_margin_rule() {
    let (a1, b1) = binary(60, 0, 40, 0);
    let (a2, b2) = binary(0, 0, 300, 100);
    let benches = vec![("adv".to_string(), a1, b1), ("core".to_string(), a2, b2)];
    let tier = |n: &str| match n {
        "adv" => "tier = 'advisory'\n".to_string(),
        _ => String::new(),
    };
    let g = run("margin = 0.02\nsuite_margin = 0.5\n", &benches, &tier);
    let adv = &g.benchmarks[0];
    assert_eq!(adv.status, BenchmarkStatus::Breach);
    rel_close(adv.test.unwrap().p, 0.5f64.powi(60), 1e-12);
    assert_eq!(g.benchmarks[1].status, BenchmarkStatus::Pass);
    assert_eq!(g.suite.margin_rule.decision, Decision::Go);
    assert_eq!(g.suite.detect_rule.decision, Decision::Go);
    assert_eq!(g.verdict, Decision::Go);
    assert_eq!((adv.weight, g.benchmarks[1].weight), (0.0, 1.0));
    assert_eq!(g.suite.n_benchmarks, 1);
    // The core benchmark alone: no discordant problem, every test p = 1.
    assert!(g.suite.tests.iter().all(|t| (t.p - 1.0).abs() < 1e-12));
    let g = run(
        "margin = 0.02\nsuite_margin = 0.5\nrule = 'detect'\n",
        &benches,
        &tier,
    );
    assert_eq!(g.verdict, Decision::Go);
    // Critical, the same benchmark is counted and detected.
    let critical = |n: &str| match n {
        "adv" => "tier = 'critical'\n".to_string(),
        _ => String::new(),
    };
    let g = run(
        "margin = 0.02\nsuite_margin = 0.5\nrule = 'detect'\n",
        &benches,
        &critical,
    );
    assert_eq!(g.verdict, Decision::NoGo);
}

/// Rollout counts (n = 4): the floors mean 2c(n−c)/(n(n−1)), the expected
/// discordant counts, the excess-flip estimate, and the exact sign-flip p
/// enumerated here over every sign pattern of the nonzero drops.
#[test]
fn rollout_counts_flips_and_the_exact_sign_flip_p() {
    let a = [
        (0, 4),
        (1, 4),
        (2, 4),
        (3, 4),
        (4, 4),
        (3, 4),
        (4, 4),
        (2, 4),
    ];
    let b = [
        (1, 4),
        (1, 4),
        (0, 4),
        (2, 4),
        (4, 4),
        (1, 4),
        (3, 4),
        (2, 4),
    ];
    let g = run(
        "margin = 0.1\n",
        &[("r".into(), a.to_vec(), b.to_vec())],
        &none,
    );
    let r = &g.benchmarks[0];
    let q = |x: u64, y: u64| BigRational::new(BigInt::from(x), BigInt::from(y));
    let n = BigInt::from(a.len());
    let sum = |f: &dyn Fn(u64, u64) -> BigRational| -> BigRational {
        a.iter().zip(&b).map(|(&(ca, _), &(cb, _))| f(ca, cb)).sum()
    };
    let floor = |c: u64| q(2 * c * (4 - c), 12);
    let fa = sum(&|ca, _| floor(ca)) / &n;
    let fb = sum(&|_, cb| floor(cb)) / &n;
    let excess = sum(&|ca, cb| {
        let (pa, pb) = (q(ca, 4), q(cb, 4));
        let d = &pa - &pb;
        let v = |p: &BigRational| p * (BigRational::one() - p) / BigInt::from(3);
        &d * &d - v(&pa) - v(&pb)
    }) / &n;
    let f = r.flips.as_ref().unwrap();
    assert!((f.floor_a.unwrap() - fl(&fa)).abs() < 1e-15);
    assert!((f.floor_b.unwrap() - fl(&fb)).abs() < 1e-15);
    assert!((f.excess.unwrap() - fl(&excess)).abs() < 1e-15);
    let a_only = sum(&|ca, cb| q(ca * (4 - cb), 16));
    assert!((f.a_only - fl(&a_only)).abs() < 1e-13);
    assert_eq!(r.test.unwrap().method.name(), "sign-flip-exact");
    let drops: Vec<i64> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| x.0 as i64 - y.0 as i64)
        .collect();
    assert!((r.test.unwrap().p - sign_flip_p(&drops)).abs() < 1e-12);
}

/// P(Σ s_i|d_i| ≥ Σ d_i) over the 2^m sign patterns of the nonzero d.
fn sign_flip_p(d: &[i64]) -> f64 {
    let nz: Vec<i64> = d.iter().copied().filter(|&x| x != 0).collect();
    let observed: i64 = nz.iter().sum();
    let m = nz.len();
    let hits = (0..1u64 << m)
        .filter(|bits| {
            let t: i64 = (0..m)
                .map(|i| {
                    if bits >> i & 1 == 1 {
                        nz[i].abs()
                    } else {
                        -nz[i].abs()
                    }
                })
                .sum();
            t >= observed
        })
        .count();
    hits as f64 / (1u64 << m) as f64
}

/// The same rows in another order give the same document, byte for byte.
#[test]
fn rows_in_another_order_give_the_same_document() {
    let mut benches = six();
    let (a, b) = (
        vec![(0, 4), (3, 4), (2, 4), (4, 4)],
        vec![(1, 4), (1, 4), (2, 4), (3, 4)],
    );
    benches.push(("rollouts".into(), a, b));
    let one = run_ordered("margin = 0.01\n", &benches, &none, false).to_json();
    let two = run_ordered("margin = 0.01\n", &benches, &none, true).to_json();
    assert!(one.contains("sign-flip"));
    assert_eq!(one, two);
}

/// A benchmark with no baseline sources is MISSING; the document (with its
/// NaN numbers and max-drop statistic) reads back as written.
#[test]
fn a_document_with_a_missing_benchmark_reads_back() {
    let (a, b) = binary(5, 1, 30, 10);
    let text = "margin = 0.05\n[[benchmark]]\nname = 'x'\nbaseline = 'a'\ncandidate = 'b'\n\
                [[benchmark]]\nname = 'gone'\nbaseline = 'a'\ncandidate = 'b'\n";
    let plan = GatePlan::from_toml(text, "plan.toml").unwrap();
    let sources = vec![
        BenchmarkSources {
            name: "x".into(),
            baseline: vec![side("a", &a, false)],
            candidate: vec![side("b", &b, false)],
        },
        BenchmarkSources {
            name: "gone".into(),
            baseline: Vec::new(),
            candidate: vec![side("b", &b, false)],
        },
    ];
    let record = plan_record("plan.toml", text);
    let g = gate(
        &plan,
        record,
        SuiteSources::Declared(sources),
        &GateOptions::default(),
    )
    .unwrap();
    assert_eq!(g.benchmarks[1].status, BenchmarkStatus::Missing);
    assert_eq!(g.verdict, Decision::NoGo);
    let json = g.to_json();
    let back: Gate = serde_json::from_str(&json).expect("reads back");
    assert_eq!(back.to_json(), json);
}

/// Three problems with 4 rollouts a side and ten with one: the excess flip
/// is the mean over the three (where it is defined), and its interval is
/// t on 3 − 1 = 2 df: t₀.₉₇₅,₂ = 4.302652729911275.
#[test]
fn the_excess_interval_uses_the_problems_where_it_is_defined() {
    let mut a = vec![(4, 4), (1, 4), (2, 4)];
    let mut b = vec![(1, 4), (1, 4), (4, 4)];
    for i in 0..10 {
        a.push((i % 2, 1));
        b.push(((i / 2) % 2, 1));
    }
    let g = run(
        "margin = 0.1\n",
        &[("mixed".into(), a.clone(), b.clone())],
        &none,
    );
    let f = g.benchmarks[0].flips.clone().unwrap();
    let ex: Vec<f64> = a[..3]
        .iter()
        .zip(&b[..3])
        .map(|(&(ca, _), &(cb, _))| {
            let (pa, pb) = (ca as f64 / 4.0, cb as f64 / 4.0);
            (pa - pb).powi(2) - pa * (1.0 - pa) / 3.0 - pb * (1.0 - pb) / 3.0
        })
        .collect();
    let m = ex.iter().sum::<f64>() / 3.0;
    assert!((f.excess.unwrap() - m).abs() < 1e-15);
    let sd = (ex.iter().map(|v| (v - m).powi(2)).sum::<f64>() / 2.0).sqrt();
    let half = 4.302652729911275 * sd / 3f64.sqrt();
    let ci = f.excess_ci.unwrap();
    assert!((ci.lower - (m - half)).abs() < 1e-9, "{ci:?} vs ±{half}");
    assert!((ci.upper - (m + half)).abs() < 1e-9, "{ci:?} vs ±{half}");
}

/// One matched problem has no standard error: its status cannot be a
/// certain BREACH (nor PASS).
#[test]
fn one_problem_is_insufficient() {
    let benches = vec![("one".to_string(), vec![(1, 1)], vec![(0, 1)])];
    let g = run("margin = 0.05\n", &benches, &none);
    let r = &g.benchmarks[0];
    assert_eq!(r.n_problems, 1);
    assert_eq!(r.stderr, None);
    assert_eq!(
        r.status,
        BenchmarkStatus::Insufficient,
        "{:?}",
        r.drop_bounds
    );
}

/// The unbiased per-problem excess-flip estimate.
fn excess(ca: u64, na: u64, cb: u64, nb: u64) -> f64 {
    let (pa, pb) = (ca as f64 / na as f64, cb as f64 / nb as f64);
    (pa - pb).powi(2) - pa * (1.0 - pa) / (na - 1) as f64 - pb * (1.0 - pb) / (nb - 1) as f64
}

/// The excess-flip permutation p against its exact null: per problem,
/// c_A* ~ Hypergeometric(n_A + n_B, c_A + c_B, n_A), enumerated over every
/// combination; the seeded p is within 4 Monte Carlo SE.
#[test]
fn the_excess_flip_p_matches_its_enumerated_null() {
    let a = vec![(3, 3), (3, 3), (2, 3), (0, 3), (3, 3)];
    let b = vec![(0, 3), (1, 3), (2, 3), (3, 3), (2, 3)];
    let g = run(
        "margin = 0.1\n",
        &[("x".into(), a.clone(), b.clone())],
        &none,
    );
    let f = g.benchmarks[0].flips.clone().unwrap();
    let observed: f64 = a
        .iter()
        .zip(&b)
        .map(|(x, y)| excess(x.0, 3, y.0, 3))
        .sum::<f64>()
        / 5.0;
    assert!((f.excess.unwrap() - observed).abs() < 1e-15);
    let c = |n: u64, k: u64| choose(n, k).to_f64().unwrap();
    // Per problem: (probability, excess) of each relabelled c_A*.
    let nulls: Vec<Vec<(f64, f64)>> = a
        .iter()
        .zip(&b)
        .map(|(x, y)| {
            let total = x.0 + y.0;
            (total.saturating_sub(3)..=total.min(3))
                .map(|k| {
                    (
                        c(total, k) * c(6 - total, 3 - k) / c(6, 3),
                        excess(k, 3, total - k, 3),
                    )
                })
                .collect()
        })
        .collect();
    let mut dist = vec![(1.0, 0.0)];
    for values in &nulls {
        dist = dist
            .iter()
            .flat_map(|&(p, s)| values.iter().map(move |&(q, e)| (p * q, s + e / 5.0)))
            .collect();
    }
    let exact: f64 = dist
        .iter()
        .filter(|(_, t)| *t >= observed - 1e-12)
        .map(|(p, _)| p)
        .sum();
    let r = g.settings.permutations as f64;
    let tol = 4.0 * (exact * (1.0 - exact) / r).sqrt() + 2.0 / r;
    let got = f.excess_p.unwrap();
    assert!((got - exact).abs() < tol, "{got} vs exact {exact}");
}

/// The research notes' micro/macro SE vector (§2c; docs/statistics.md
/// §10.2): subsets of n = 200 at 0.80 and n = 50 at 0.40 against an A that
/// solves everything, so each Δ = acc − 1 has SE √(p(1 − p)/(n − 1)):
/// micro (0.8, 0.2) → SE 0.026655041393112613, macro → 0.037755725672326775.
#[test]
fn micro_and_macro_se_match_the_published_vector() {
    let bench = |name: &str, n: u64, right: u64| -> Bench {
        let (a, b) = binary(n - right, 0, right, 0);
        (name.to_string(), a, b)
    };
    let benches = vec![bench("big", 200, 160), bench("small", 50, 20)];
    for (weights, delta, se) in [
        ("micro", 0.72 - 1.0, 0.026655041393112613),
        ("macro", 0.6 - 1.0, 0.037755725672326775),
    ] {
        let head = format!("margin = 0.01\nweights = '{weights}'\n");
        let g = run(&head, &benches, &none);
        let s = &g.suite;
        assert!((s.delta - delta).abs() < 1e-14, "{weights}: {}", s.delta);
        rel_close(s.stderr.unwrap(), se, 1e-12);
        assert!((s.b - (1.0 + delta)).abs() < 1e-14);
        assert_eq!(g.verdict, Decision::NoGo);
    }
}

/// The pooled sign-flip vector (research notes §2c, docs/statistics.md
/// §10.2): drops d₁ = [¼, ½, 0, −¼, ¾], d₂ = [½, 0, ¼] (4 rollouts a side):
/// micro T = 0.25, p = 16/256; macro T = 0.25, p = 12/256.
#[test]
fn the_pooled_sign_flip_vector_micro_and_macro() {
    let q = |v: &[u64]| -> Counts { v.iter().map(|&c| (c, 4)).collect() };
    let benches = vec![
        ("one".to_string(), q(&[1, 2, 2, 0, 3]), q(&[0, 0, 2, 1, 0])),
        ("two".to_string(), q(&[2, 1, 1]), q(&[0, 1, 0])),
    ];
    for (weights, p) in [("micro", 16.0 / 256.0), ("macro", 12.0 / 256.0)] {
        let head = format!("margin = 0.01\nweights = '{weights}'\nrule = 'detect'\n");
        let g = run(&head, &benches, &none);
        let pooled = &g.suite.tests[0];
        assert_eq!(pooled.name, "pooled");
        assert!(pooled.method.contains("exact"), "{}", pooled.method);
        assert!((pooled.statistic - 0.25).abs() < 1e-15, "{weights}");
        assert!(
            (pooled.p - p).abs() < 1e-15,
            "{weights}: {} vs {p}",
            pooled.p
        );
    }
}

/// τ-bench gpt-4o airline, 50 tasks × 4 trials (research notes §4c): the
/// within-model flip floor is 44/150 = 0.293333…, pass@1 0.42.
#[test]
fn the_tau_bench_floor_vector() {
    let rows = "0000 0100 0010 0000 0000 0100 1000 0010 0000 0000 0000 1000 1111 0110 0000 0011 0001 \
                0001 1111 0000 1111 0111 0000 0000 1111 0000 1010 0110 0000 1000 0101 1001 0000 0000 \
                1101 1111 1111 0111 1111 1000 1101 0101 1111 1000 1010 1001 0110 0100 1111 1111";
    let counts: Counts = rows
        .split_whitespace()
        .map(|t| (t.chars().filter(|&c| c == '1').count() as u64, 4))
        .collect();
    assert_eq!(counts.len(), 50);
    let g = run(
        "margin = 0.05\n",
        &[("tau".into(), counts.clone(), counts)],
        &none,
    );
    let r = &g.benchmarks[0];
    assert!((r.a - 0.42).abs() < 1e-15);
    let f = r.flips.as_ref().unwrap();
    assert!((f.floor_a.unwrap() - 44.0 / 150.0).abs() < 1e-15);
    assert!((f.floor.unwrap() - 44.0 / 150.0).abs() < 1e-15);
    // The same counts on both sides: the cross flip of a problem is
    // 2c(n − c)/n², so the rate is (12/16) × 44/150 = 0.22.
    assert!((f.rate - 0.22).abs() < 1e-15, "{}", f.rate);
    assert_eq!(r.n_flipped, 0);
    assert_eq!(r.test.unwrap().p, 1.0);
}

/// Count rows with a `topic` field.
fn clustered_side(name: &str, rows: &[(u64, &str)]) -> Source {
    Source::Rows {
        name: name.into(),
        rows: rows
            .iter()
            .enumerate()
            .map(|(i, &(c, topic))| {
                Row::from(CountRow {
                    problem: format!("p{i}"),
                    n: 1,
                    c,
                    fields: vec![("topic".into(), topic.into())],
                })
            })
            .collect(),
    }
}

/// Clustered by topic, the pooled test is still of the declared (micro)
/// weighted drop: bench one has two topics of 5 problems and 3 lost, bench
/// two ten one-problem topics and 1 lost, so the weighted drop is
/// (3 + 1)/20 = 0.2 = −suite.delta.
#[test]
fn the_clustered_pooled_statistic_is_the_weighted_drop() {
    let topics = ["t0", "t0", "t0", "t0", "t0", "t1", "t1", "t1", "t1", "t1"];
    let singles = ["s0", "s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9"];
    let side = |lost: usize, names: &[&'static str], b: bool| -> Vec<(u64, &'static str)> {
        (0..10)
            .map(|i| (u64::from(!(b && i < lost)), names[i]))
            .collect()
    };
    let text = "margin = 0.05\ncluster_by = 'topic'\n\
                [[benchmark]]\nname = 'one'\nbaseline = 'a'\ncandidate = 'b'\n\
                [[benchmark]]\nname = 'two'\nbaseline = 'a'\ncandidate = 'b'\n";
    let plan = GatePlan::from_toml(text, "plan.toml").unwrap();
    let sources = vec![
        BenchmarkSources {
            name: "one".into(),
            baseline: vec![clustered_side("a", &side(3, &topics, false))],
            candidate: vec![clustered_side("b", &side(3, &topics, true))],
        },
        BenchmarkSources {
            name: "two".into(),
            baseline: vec![clustered_side("a", &side(1, &singles, false))],
            candidate: vec![clustered_side("b", &side(1, &singles, true))],
        },
    ];
    let record = plan_record("plan.toml", text);
    let g = gate(
        &plan,
        record,
        SuiteSources::Declared(sources),
        &GateOptions::default(),
    )
    .unwrap();
    assert!((g.suite.delta + 0.2).abs() < 1e-15, "{}", g.suite.delta);
    let pooled = &g.suite.tests[0];
    assert!(pooled.method.contains("micro"), "{}", pooled.method);
    assert!(
        (pooled.statistic - 0.2).abs() < 1e-12,
        "statistic {}",
        pooled.statistic
    );
}
