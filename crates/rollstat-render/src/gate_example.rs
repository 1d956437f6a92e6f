//! A small hand-built gate for the doc examples: two benchmarks (one PASS,
//! one BREACH with two flipped problems), the suite, its tests and a
//! finding. The numbers are made up; only their shapes matter.

use rollstat::gate::{
    CombinedTest, DegradationTest, FlippedProblem, FlippedSide, Flips, GateSettings, Margin,
    PlanRecord, RuleOutcome, SuiteRow, TestMethod,
};
use rollstat::{
    BenchmarkRow, BenchmarkStatus, Decision, Gate, GateRule, Interval, Tier, Weighting,
};

fn iv(lower: f64, upper: f64) -> Option<Interval> {
    Some(Interval { lower, upper })
}

fn side(c: u64, n: u64, answers: &[&str]) -> FlippedSide {
    FlippedSide {
        c,
        n,
        answers: answers.iter().map(|a| Some(a.to_string())).collect(),
        responses: Vec::new(),
    }
}

/// A benchmark row with `delta` = B − A and its interval; the rest filled.
fn row(name: &str, status: BenchmarkStatus, a: f64, delta: f64, ci: (f64, f64)) -> BenchmarkRow {
    BenchmarkRow {
        name: name.into(),
        tier: Tier::Critical,
        weight: 0.5,
        status,
        margin: Margin {
            absolute: 0.01,
            relative: None,
            used: 0.01,
        },
        n_problems: 200,
        only_a: Vec::new(),
        only_b: Vec::new(),
        n_a: 1,
        n_b: 1,
        a,
        b: a + delta,
        delta,
        stderr: Some((ci.1 - ci.0) / 3.92),
        ci: iv(ci.0, ci.1),
        interval_method: "bootstrap".into(),
        drop_bounds: iv(-ci.1, -ci.0),
        test: Some(DegradationTest {
            method: TestMethod::McnemarExact,
            p: if delta < 0.0 { 0.004 } else { 0.9 },
            z: Some(-delta * 100.0),
        }),
        flips: Some(Flips {
            a_only: 6.0,
            b_only: 2.0,
            rate: 0.04,
            floor_a: None,
            floor_b: None,
            floor: None,
            excess: None,
            excess_ci: None,
            excess_p: None,
            single_draw: true,
        }),
        problems_needed: None,
        flipped: Vec::new(),
        n_flipped: 8,
        inputs_a: Vec::new(),
        inputs_b: Vec::new(),
    }
}

/// A NO-GO gate under the margin rule: `math` PASS, `gsm8k` BREACH.
#[doc(hidden)]
pub fn example_gate() -> Gate {
    let mut gsm8k = row(
        "gsm8k",
        BenchmarkStatus::Breach,
        0.85,
        -0.021,
        (-0.034, -0.012),
    );
    gsm8k.flipped = vec![FlippedProblem {
        problem: "gsm8k/17".into(),
        drop: 1.0,
        a: side(1, 1, &["42"]),
        b: side(0, 1, &["41"]),
    }];
    Gate {
        schema: rollstat::GATE_SCHEMA.into(),
        version: "0.0.0".into(),
        verdict: Decision::NoGo,
        plan: PlanRecord {
            source: "gate.toml".into(),
            text: "[suite]\nmetric = \"pass@1\"\n".into(),
            sha256: "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef".into(),
        },
        settings: settings(),
        benchmarks: vec![
            row("math", BenchmarkStatus::Pass, 0.60, 0.004, (-0.006, 0.014)),
            gsm8k,
        ],
        suite: suite(),
        findings: vec![rollstat::Finding::BadRows { n: 2 }],
    }
}

/// The settings of [`example_gate`].
fn settings() -> GateSettings {
    GateSettings {
        metric: "pass@1".into(),
        weights: Weighting::Micro,
        rule: GateRule::Margin,
        alpha: 0.05,
        suite_margin: None,
        mid_p: false,
        cluster_by: None,
        method: "bootstrap".into(),
        resamples: 2000,
        permutations: 10000,
        seed: 7,
        rng: "xoshiro256++".into(),
        flips_listed: 5,
        grading: "equivalence, extract=math".into(),
    }
}

/// The suite of [`example_gate`]: a pooled test and both rules NO-GO.
fn suite() -> SuiteRow {
    let rule = |decision, reason: &str| RuleOutcome {
        decision,
        reasons: vec![reason.to_string()],
    };
    SuiteRow {
        n_benchmarks: 2,
        n_problems: 400,
        a: 0.725,
        b: 0.7165,
        delta: -0.0085,
        stderr: Some(0.004),
        ci: iv(-0.0163, -0.0007),
        drop_bounds: iv(0.002, 0.015),
        beyond_margin: false,
        heterogeneity: None,
        alpha_each: 0.05 / 3.0,
        tests: vec![CombinedTest {
            name: "pooled".into(),
            method: "exact binomial".into(),
            statistic: 4.0,
            p: 0.01,
            rejects: true,
        }],
        margin_rule: rule(
            Decision::NoGo,
            "gsm8k BREACH: drop 2.10 pts > margin 1.00 pts",
        ),
        detect_rule: rule(Decision::NoGo, "pooled rejects at α/3 (p 0.0100)"),
    }
}
