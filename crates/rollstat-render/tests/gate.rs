//! The gate's renderers over a hand-built `rollstat.gate/1` document: three
//! benchmarks (gsm8k BREACH with flipped problems whose answers and
//! responses carry `<script>` and `|`, math PASS, aime MISSING), the
//! suite, its tests and findings.

use rollstat::gate::{
    CombinedTest, DegradationTest, FlippedProblem, FlippedSide, Flips, GateSettings, Margin,
    PlanRecord, RuleOutcome, SuiteHeterogeneity, SuiteRow, TestMethod,
};
use rollstat::{
    BenchmarkRow, BenchmarkStatus, Decision, Finding, Gate, GateRule, InputInfo, Interval,
    SideLabel, Tier, Weighting,
};
use rollstat_render::{gate, html_gate, Words};

const EVIL: &str = "<script>alert(1)</script>";

fn words() -> Words {
    Words {
        finding: |f| f.to_string(),
        all: "--all",
        tau: "--tau",
        budget: None,
        fail_on: "--fail-on",
    }
}

fn iv(lower: f64, upper: f64) -> Option<Interval> {
    Some(Interval { lower, upper })
}

fn side(c: u64, n: u64, answers: &[&str], responses: &[&str]) -> FlippedSide {
    FlippedSide {
        c,
        n,
        answers: answers.iter().map(|a| Some(a.to_string())).collect(),
        responses: responses.iter().map(|r| Some(r.to_string())).collect(),
    }
}

fn flips(a_only: f64, b_only: f64, rate: f64, floor: f64, excess: f64) -> Flips {
    Flips {
        a_only,
        b_only,
        rate,
        floor_a: Some(floor - 0.01),
        floor_b: Some(floor + 0.01),
        floor: Some(floor),
        excess: Some(excess),
        excess_ci: iv(excess - 0.01, excess + 0.01),
        excess_p: Some(0.031),
        single_draw: false,
    }
}

/// gsm8k: B drops 2.1 points, beyond its 1-point margin.
fn gsm8k() -> BenchmarkRow {
    BenchmarkRow {
        name: "gsm8k".into(),
        tier: Tier::Critical,
        weight: 0.6,
        status: BenchmarkStatus::Breach,
        margin: Margin {
            absolute: 0.01,
            relative: None,
            used: 0.01,
        },
        n_problems: 1319,
        only_a: vec!["train/999".into()],
        only_b: vec![],
        n_a: 4,
        n_b: 4,
        a: 0.852,
        b: 0.831,
        delta: -0.021,
        stderr: Some(0.0055),
        ci: iv(-0.0318, -0.0102),
        interval_method: "bootstrap".into(),
        drop_bounds: iv(0.0119, 0.0301),
        test: Some(DegradationTest {
            method: TestMethod::SignFlipRandom,
            p: 0.00012,
            z: Some(3.8),
        }),
        flips: Some(flips(61.5, 33.75, 0.0722, 0.05, 0.0222)),
        problems_needed: None,
        flipped: vec![
            FlippedProblem {
                problem: "train|17".into(),
                drop: 0.75,
                a: side(4, 4, &["42", "42", "42", "42"], &["so 42", "thus 42"]),
                b: side(1, 4, &[EVIL, "a|b", "42", "7"], &[EVIL, "x | y\nnext line"]),
            },
            FlippedProblem {
                problem: "train/3".into(),
                drop: 0.5,
                a: side(3, 4, &["9", "9", "9", "8"], &[]),
                b: side(1, 4, &["9", "1", "2", "3"], &[]),
            },
        ],
        n_flipped: 95,
        inputs_a: vec![input("a/gsm8k.jsonl")],
        inputs_b: vec![input("b/gsm8k<v2>.jsonl")],
    }
}

fn input(path: &str) -> InputInfo {
    InputInfo {
        path: path.into(),
        format: "canonical-jsonl".into(),
        sha256: "5".repeat(64),
        records: 5276,
        field_map: None,
    }
}

/// math: B gains 0.4 points, within the margin.
fn math() -> BenchmarkRow {
    BenchmarkRow {
        name: "math".into(),
        tier: Tier::Supporting,
        weight: 0.4,
        status: BenchmarkStatus::Pass,
        margin: Margin {
            absolute: 0.02,
            relative: Some(0.05),
            used: 0.015,
        },
        n_problems: 500,
        a: 0.30,
        b: 0.304,
        delta: 0.004,
        stderr: Some(0.004),
        ci: iv(-0.0038, 0.0118),
        interval_method: "bootstrap".into(),
        drop_bounds: iv(-0.0105, 0.0026),
        test: Some(DegradationTest {
            method: TestMethod::SignFlipExact,
            p: 0.84,
            z: Some(-1.0),
        }),
        flips: Some(flips(20.0, 22.0, 0.084, 0.08, 0.004)),
        flipped: vec![],
        n_flipped: 42,
        only_a: vec![],
        inputs_a: vec![input("a/math.jsonl")],
        inputs_b: vec![input("b/math.jsonl")],
        ..gsm8k()
    }
}

/// aime: B has no problems.
fn aime() -> BenchmarkRow {
    BenchmarkRow {
        name: "aime".into(),
        tier: Tier::Advisory,
        weight: 0.0,
        status: BenchmarkStatus::Missing,
        margin: Margin {
            absolute: 0.05,
            relative: None,
            used: 0.05,
        },
        n_problems: 0,
        n_a: 8,
        n_b: 0,
        a: 0.0,
        b: 0.0,
        delta: 0.0,
        stderr: None,
        ci: None,
        interval_method: "bootstrap".into(),
        drop_bounds: None,
        test: None,
        flips: None,
        flipped: vec![],
        n_flipped: 0,
        only_a: vec![],
        inputs_a: vec![input("a/aime.jsonl")],
        inputs_b: vec![],
        ..gsm8k()
    }
}

fn combined(name: &str, method: &str, statistic: f64, p: f64) -> CombinedTest {
    CombinedTest {
        name: name.into(),
        method: method.into(),
        statistic,
        p,
        rejects: p <= 0.05 / 3.0,
    }
}

fn suite() -> SuiteRow {
    SuiteRow {
        n_benchmarks: 2,
        n_problems: 1819,
        a: 0.6312,
        b: 0.6202,
        delta: -0.011,
        stderr: Some(0.0037),
        ci: iv(-0.0183, -0.0037),
        drop_bounds: iv(0.0049, 0.0171),
        beyond_margin: false,
        heterogeneity: Some(SuiteHeterogeneity {
            q: 13.6,
            df: 1,
            p: 0.0002,
            i2: 0.93,
            up: vec!["math".into()],
            down: vec!["gsm8k".into()],
        }),
        alpha_each: 0.05 / 3.0,
        tests: vec![
            combined("pooled", "sign-flip (random)", 0.011, 0.0021),
            combined("fisher", "χ² on 4 df", 19.7, 0.0006),
            combined("max-drop", "max of z", 3.8, 0.00024),
        ],
        margin_rule: RuleOutcome {
            decision: Decision::NoGo,
            reasons: vec!["gsm8k BREACH: drop 2.10 pts > margin 1.00 pts".into()],
        },
        detect_rule: RuleOutcome {
            decision: Decision::NoGo,
            reasons: vec!["max-drop rejects at α/3 (p 0.0002)".into()],
        },
    }
}

fn fixture() -> Gate {
    Gate {
        schema: rollstat::GATE_SCHEMA.into(),
        version: "9.9.9".into(),
        verdict: Decision::NoGo,
        plan: PlanRecord {
            source: "gate.toml".into(),
            text: "[suite]\nmetric = \"pass@1\"\n# ```\n[benchmarks.gsm8k]\nmargin = 0.01\n".into(),
            sha256: "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789".into(),
        },
        settings: GateSettings {
            metric: "pass@1".into(),
            weights: Weighting::Micro,
            rule: GateRule::Margin,
            alpha: 0.05,
            suite_margin: Some(0.02),
            mid_p: false,
            cluster_by: None,
            method: "bootstrap".into(),
            resamples: 2000,
            permutations: 10000,
            seed: 20260,
            rng: "xoshiro256++".into(),
            flips_listed: 5,
            grading: "equivalence, extract=math".into(),
        },
        benchmarks: vec![gsm8k(), math(), aime()],
        suite: suite(),
        findings: vec![
            Finding::BenchmarkMissing {
                benchmark: "aime".into(),
                side: SideLabel::B,
            },
            Finding::SignsDisagree {
                up: vec!["math".into()],
                down: vec!["gsm8k".into()],
            },
        ],
    }
}

#[test]
fn text_first_line_names_the_verdict_and_the_reason() {
    let text = gate::render_text(&fixture(), false, &words());
    let first = text.lines().next().unwrap();
    assert_eq!(
        first,
        "NO-GO (rule: margin) — gsm8k BREACH: drop 2.10 pts > margin 1.00 pts"
    );
}

#[test]
fn further_reasons_follow_the_first_line() {
    let mut g = fixture();
    g.suite
        .margin_rule
        .reasons
        .push("suite | drop <b>beyond</b>".into());
    let text = gate::render_text(&g, false, &words());
    let lines: Vec<&str> = text.lines().take(3).collect();
    assert!(lines[0].starts_with("NO-GO (rule: margin) — gsm8k BREACH"));
    assert_eq!(lines[1], "  — suite | drop <b>beyond</b>");
    assert!(lines[2].starts_with("═══"));
    let md = gate::render_text(&g, true, &words());
    assert!(md.contains("**NO-GO** under the margin rule.\n\n- gsm8k BREACH: drop 2.10 pts &gt; margin 1.00 pts\n- suite \\| drop &lt;b&gt;beyond&lt;/b&gt;\n"));
}

#[test]
fn every_benchmark_and_status_appears_in_every_format() {
    let g = fixture();
    let outputs = [
        gate::render_text(&g, false, &words()),
        gate::render_text(&g, true, &words()),
        html_gate::render(&g, &words()),
    ];
    for out in &outputs {
        for r in &g.benchmarks {
            assert!(out.contains(&r.name), "{} missing", r.name);
            assert!(out.contains(r.status.name()), "{:?} missing", r.status);
        }
        assert!(out.contains("abcdef012345"), "plan sha256 missing");
    }
}

#[test]
fn terminal_table_fits_100_columns_and_names_the_plan() {
    let text = gate::render_text(&fixture(), false, &words());
    for line in text.lines() {
        assert!(line.chars().count() <= 100, "too wide: {line}");
    }
    let footer = text.lines().last().unwrap();
    for part in [
        "n = 4 rollouts per problem",
        "metric pass@1",
        "α = 0.05",
        "seed 20260",
        "plan sha256 abcdef012345",
    ] {
        assert!(footer.contains(part), "{part} not in {footer}");
    }
    // The terminal lists a few flipped problems, answers cut to fit.
    assert!(text.contains("train|17") && text.contains("4/4") && text.contains("1/4"));
    assert!(text.contains("(declared, decides)"));
    assert!(text.contains("gsm8k: 1 problem only in A and 0 only in B are left out"));
    assert!(!text.contains("math: 1 problem only in A"));
}

#[test]
fn markdown_escapes_pipes_and_markup_in_answers() {
    let md = gate::render_text(&fixture(), true, &words());
    assert!(md.starts_with("## rollstat gate: NO-GO (blocked)\n"));
    assert!(!md.contains("<script"), "raw <script> in Markdown");
    assert!(md.contains("&lt;script&gt;"));
    assert!(md.contains("a\\|b") && md.contains("train\\|17"));
    // Every table row has exactly as many unescaped pipes as its header.
    for block in md.split("\n\n") {
        let rows: Vec<&str> = block.lines().filter(|l| l.starts_with('|')).collect();
        let Some(head) = rows.first() else { continue };
        let pipes = |l: &str| l.replace("\\|", "").matches('|').count();
        for r in &rows {
            assert_eq!(pipes(r), pipes(head), "row breaks its table: {r}");
        }
    }
    // Responses side by side, the plan in a collapsed block with a fence
    // longer than the plan's own backticks.
    assert!(md.lines().any(|l| l.starts_with("| rollout |")
        && l.contains("A response |")
        && l.contains("B response |")));
    assert!(md.contains("x \\| y<br>next line"));
    assert!(md.contains("<details><summary>plan (sha256 abcdef0123456789"));
    assert!(md.contains("````toml\n[suite]"));
}

#[test]
fn html_escapes_the_data() {
    let html = html_gate::render(&fixture(), &words());
    assert!(!html.contains("<script"), "unescaped <script>");
    assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
    assert!(html.contains("<div class=\"banner bad\" data-verdict=\"NO-GO\">"));
    assert!(html.contains("<td>b/gsm8k&lt;v2&gt;.jsonl</td>"));
}

/// `name="value"` attributes of one SVG element.
fn attr(el: &str, name: &str) -> Option<String> {
    let key = format!(" {name}=\"");
    let start = el.find(&key)? + key.len();
    let len = el[start..].find('"')?;
    Some(el[start..start + len].to_string())
}

fn num(el: &str, name: &str) -> f64 {
    attr(el, name).unwrap().parse().unwrap()
}

/// Every element of the forest plot that starts with `prefix`.
fn elements<'a>(svg: &'a str, prefix: &str) -> Vec<&'a str> {
    svg.split('\n').filter(|l| l.starts_with(prefix)).collect()
}

/// The forest plot's scale: the range the page says it drew, checked
/// against the rule (every interval, 0 and −margins, padded 6% of the
/// span), mapped onto the plot area 170 → 704 px.
fn forest_scale(html: &str) -> impl Fn(f64) -> f64 {
    let div = html
        .split('\n')
        .find(|l| l.starts_with("<div class=\"forest\""))
        .unwrap();
    let (lo, hi) = (num(div, "data-x-min"), num(div, "data-x-max"));
    let (raw_lo, raw_hi) = (-0.05_f64, 0.0118_f64); // aime's −margin, math's upper bound
    let pad = ((raw_hi - raw_lo) * 0.06).max(0.005);
    assert!((lo - (raw_lo - pad)).abs() < 1e-12 && (hi - (raw_hi + pad)).abs() < 1e-12);
    assert_eq!(
        (num(div, "data-px-min"), num(div, "data-px-max")),
        (170.0, 704.0)
    );
    move |x| 170.0 + (x - lo) / (hi - lo) * (704.0 - 170.0)
}

#[test]
fn forest_plot_draws_points_margins_and_the_suite_diamond() {
    let g = fixture();
    let html = html_gate::render(&g, &words());
    let start = html.find("<svg").unwrap();
    let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
    let px = forest_scale(&html);
    let close = |a: f64, b: f64| (a - b).abs() <= 0.051;
    let points = elements(svg, "<circle class=\"pt ");
    let drawn: Vec<&BenchmarkRow> = g
        .benchmarks
        .iter()
        .filter(|r| r.status != BenchmarkStatus::Missing)
        .collect();
    assert_eq!(points.len(), drawn.len());
    for (el, r) in points.iter().zip(&drawn) {
        assert_eq!(attr(el, "data-benchmark").unwrap(), r.name);
        assert!(close(num(el, "cx"), px(r.delta)), "{el}");
        let class = match r.status {
            BenchmarkStatus::Pass => "pt ok",
            BenchmarkStatus::Breach => "pt bad",
            _ => unreachable!(),
        };
        assert_eq!(attr(el, "class").unwrap(), class);
    }
    let margins = elements(svg, "<line class=\"margin\"");
    assert_eq!(
        margins.len(),
        g.benchmarks.len() + 1,
        "one per row and the suite's"
    );
    for el in &margins {
        let m = match attr(el, "data-benchmark").unwrap().as_str() {
            "suite" => g.settings.suite_margin.unwrap(),
            name => {
                g.benchmarks
                    .iter()
                    .find(|r| r.name == name)
                    .unwrap()
                    .margin
                    .used
            }
        };
        assert!(
            close(num(el, "x1"), px(-m)) && num(el, "x1") == num(el, "x2"),
            "{el}"
        );
    }
    let zero = elements(svg, "<line class=\"ref\"");
    assert!(zero.len() == 1 && close(num(zero[0], "x1"), px(0.0)));
    let diamonds = elements(svg, "<path class=\"diamond");
    assert_eq!(diamonds.len(), 1);
    let d = attr(diamonds[0], "d").unwrap();
    let xs: Vec<f64> = d
        .split(['M', 'L', 'Z'])
        .filter(|s| !s.is_empty())
        .map(|p| p.split(' ').next().unwrap().parse().unwrap())
        .collect();
    let ci = g.suite.ci.unwrap();
    assert!(close(xs[0], px(ci.lower)) && close(xs[1], px(g.suite.delta)));
    assert!(close(xs[2], px(ci.upper)) && close(xs[3], px(g.suite.delta)));
}

#[test]
fn flips_chart_marks_each_floor() {
    let g = fixture();
    let html = html_gate::render(&g, &words());
    let start = html.find("id=\"plot-flips\"").unwrap();
    let svg = &html[start..start + html[start..].find("</svg>").unwrap()];
    let floors = elements(svg, "<line class=\"floor\"");
    assert_eq!(
        floors.len(),
        2,
        "gsm8k and math have floors; aime has no flips"
    );
    assert!(svg.contains("excess 2.22% (p 0.0310)"));
}

#[test]
fn json_round_trips_with_worded_findings() {
    let g = fixture();
    let w = Words {
        finding: |f| format!("<<{f}>>"),
        ..words()
    };
    let json = gate::json(&g, &w);
    let back: Gate = serde_json::from_str(&json).unwrap();
    assert_eq!(back, g);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(v["findings"][0]["text"]
        .as_str()
        .unwrap()
        .starts_with("<<aime"));
    assert_eq!(v["verdict"], "NO-GO");
    assert!(json.ends_with("}\n"));
}

#[test]
fn insufficient_is_amber_and_says_what_is_needed() {
    let mut g = fixture();
    g.verdict = Decision::Inconclusive;
    g.suite.margin_rule = RuleOutcome {
        decision: Decision::Inconclusive,
        reasons: vec!["math INSUFFICIENT: 1873 problems needed".into()],
    };
    g.benchmarks[0].status = BenchmarkStatus::Pass;
    g.benchmarks[1].status = BenchmarkStatus::Insufficient;
    g.benchmarks[1].problems_needed = Some(1873);
    let html = html_gate::render(&g, &words());
    assert!(html.contains("<div class=\"banner amber\" data-verdict=\"INCONCLUSIVE\">"));
    assert!(html.contains("<circle class=\"pt amber\""));
    assert!(html.contains("<circle class=\"pt ok\""));
    let text = gate::render_text(&g, false, &words());
    assert!(text.starts_with("INCONCLUSIVE (rule: margin) — math INSUFFICIENT"));
    let math = text
        .lines()
        .find(|l| l.trim_start().starts_with("math ") && l.contains("sign-flip"));
    assert!(math.unwrap().trim_end().ends_with("1873"));
    let md = gate::render_text(&g, true, &words());
    assert!(md.starts_with("## rollstat gate: INCONCLUSIVE (undecided)"));
}

/// The terminal lists the flipped problems of the benchmarks that did not
/// pass and says where the others are; Markdown lists every benchmark's.
#[test]
fn the_terminal_lists_flips_of_failing_benchmarks_only() {
    let mut g = fixture();
    let listed = g.benchmarks[0].flipped.clone();
    g.benchmarks[1].flipped = vec![FlippedProblem {
        problem: "math-only-flip".into(),
        ..listed[0].clone()
    }];
    let text = rollstat_render::gate::render_text(&g, false, &words());
    assert!(!text.contains("math-only-flip"), "{text}");
    assert!(
        text.contains("flipped problems of the 1 passing benchmarks"),
        "{text}"
    );
    assert!(text.contains(&listed[0].problem.replace('|', "")[..5]));
    let md = rollstat_render::gate::render_text(&g, true, &words());
    assert!(md.contains("math-only-flip"));
}
