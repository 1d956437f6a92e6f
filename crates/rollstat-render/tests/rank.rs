//! The rank page over a hand-built `rollstat.rank/1` document: five
//! systems (one named with `<script>`), with and without the suite and the
//! checkpoint curve. Every mark is checked at the x derived from the axis
//! the page emits in its `data-*` attributes.

use rollstat::rank::{
    AnchorRow, BestRow, Curve, CurvePoint, PairRow, RankSettings, Ranking, SuiteRanks, SystemRow,
};
use rollstat::Interval;
use rollstat_render::{html_rank, Words};

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

fn names() -> Vec<String> {
    ["ckpt-300", "ckpt-400", EVIL, "ckpt-200", "ckpt-100"]
        .map(String::from)
        .to_vec()
}

fn system(i: usize, name: &str) -> SystemRow {
    let value = 0.8 - 0.07 * i as f64;
    let letters = ["a", "ab", "ab", "bc", "c"][i];
    SystemRow {
        name: name.into(),
        value,
        ci: Some(Interval {
            lower: value - 0.05,
            upper: value + 0.04,
        }),
        rank: i as u32 + 1,
        rank_interval: [(i as u32).max(1), (i as u32 + 2).min(5)],
        rank_set: [(i as u32).max(1), 5],
        p_best: [0.6, 0.3, 0.1, 0.0, 0.0][i],
        letters: letters.into(),
        dropped: 0,
        rollouts: 4,
        inputs: vec![],
    }
}

fn ranking(suite: bool, curve: bool) -> Ranking {
    let n = names();
    let systems: Vec<SystemRow> = n.iter().enumerate().map(|(i, s)| system(i, s)).collect();
    let mut pairs = vec![];
    for i in 0..5 {
        for j in i + 1..5 {
            pairs.push(PairRow {
                a: n[i].clone(),
                b: n[j].clone(),
                diff: systems[i].value - systems[j].value,
                p: 0.01 * (j - i) as f64,
                p_adjusted: 0.02 * (j - i) as f64,
                method: "sign-flip-exact".into(),
                separated: j - i > 2,
            });
        }
    }
    Ranking {
        schema: "rollstat.rank/1".into(),
        version: "0.0.0".into(),
        settings: RankSettings {
            metric: "pass@1".into(),
            level: 0.95,
            alpha: 0.05,
            adjust: "holm".into(),
            pair_test: "sign-flip".into(),
            resamples: 2000,
            permutations: 10000,
            seed: 7,
            rng: "splitmix".into(),
            cluster_by: None,
            by: None,
        },
        n_problems: 120,
        anchor_walk: (1..5)
            .map(|i| AnchorRow {
                system: n[i].clone(),
                diff: systems[0].value - systems[i].value,
                p: 0.02 * i as f64,
            })
            .collect(),
        systems,
        pairs,
        top_tier: n[..3].to_vec(),
        top_tier_line: format!("top tier: ckpt-300, ckpt-400, {EVIL}"),
        first_separated_rank: Some(4),
        best: BestRow {
            system: n[0].clone(),
            naive: 0.8,
            adjusted: 0.77,
            adjusted_ci: [0.72, 0.81],
            method: "hybrid-conditional".into(),
            bootstrap_adjusted: 0.78,
            split: None,
        },
        suite: suite.then(|| suite_ranks(&n)),
        curve: curve.then(|| curve_of(&n)),
        findings: vec![],
    }
}

fn suite_ranks(n: &[String]) -> SuiteRanks {
    SuiteRanks {
        field: "subset".into(),
        benchmarks: vec!["gsm8k".into(), "math".into(), "aime".into()],
        scores: vec![vec![0.8, 0.7, 0.6, 0.5, 0.4]; 3],
        ranks: vec![
            vec![1.0, 2.0, 3.0, 4.0, 5.0],
            vec![2.0, 1.0, 3.0, 4.0, 5.0],
            vec![1.0, 3.0, 2.0, 5.0, 4.0],
        ],
        mean_ranks: vec![4.0 / 3.0, 2.0, 8.0 / 3.0, 13.0 / 3.0, 14.0 / 3.0],
        chi2: 10.4,
        df: 4,
        p: 0.034,
        f: 9.1,
        f_df: [4, 8],
        f_p: 0.0045,
        critical_difference: 3.52,
        q_alpha: 2.728,
        cd_groups: vec![
            vec![n[0].clone(), n[1].clone(), n[2].clone()],
            vec![n[1].clone(), n[2].clone(), n[3].clone(), n[4].clone()],
        ],
    }
}

fn curve_of(n: &[String]) -> Curve {
    // Step order: ckpt-100 .. ckpt-500 (`EVIL` stands in at step 500).
    let order = [(4, 100.0), (3, 200.0), (0, 300.0), (1, 400.0), (2, 500.0)];
    Curve {
        points: order
            .iter()
            .map(|&(i, step)| {
                let s = system(i, &n[i]);
                CurvePoint {
                    system: s.name,
                    step,
                    value: s.value,
                    ci: s.ci,
                }
            })
            .collect(),
        best: n[0].clone(),
        not_separable: vec![n[1].clone(), n[2].clone()],
    }
}

/// The value of attribute `name` inside one tag.
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    Some(&tag[start..start + tag[start..].find('"')?])
}

fn num(tag: &str, name: &str) -> f64 {
    attr(tag, name)
        .unwrap_or_else(|| panic!("no {name} in {tag}"))
        .parse()
        .unwrap()
}

/// The section of the page from the wrapper `<div class="{class}" …>` to
/// the end of its `</svg>`.
fn plot<'a>(html: &'a str, class: &str) -> &'a str {
    let start = html
        .find(&format!("<div class=\"{class}\" data-x-min"))
        .unwrap_or_else(|| panic!("no plot {class}"));
    let end = start + html[start..].find("</svg>").unwrap();
    &html[start..end]
}

/// Opening tags of `element` in `s` whose class contains `class`.
fn tags<'a>(s: &'a str, element: &str, class: &str) -> Vec<&'a str> {
    s.match_indices(&format!("<{element} "))
        .map(|(i, _)| &s[i..i + s[i..].find('>').unwrap()])
        .filter(|t| attr(t, "class").is_some_and(|c| c.split(' ').any(|w| w == class)))
        .collect()
}

/// Data x → pixel by the axis the wrapper declares.
fn to_px(wrapper: &str, x: f64) -> f64 {
    let (x0, x1) = (num(wrapper, "data-x-min"), num(wrapper, "data-x-max"));
    let (p0, p1) = (num(wrapper, "data-px-min"), num(wrapper, "data-px-max"));
    p0 + (x - x0) / (x1 - x0) * (p1 - p0)
}

fn near(a: f64, b: f64) -> bool {
    (a - b).abs() <= 0.11
}

#[test]
fn names_are_all_there_and_escaped() {
    for (suite, curve) in [(false, false), (true, true)] {
        let html = html_rank::render(&ranking(suite, curve), &words());
        assert!(!html.contains("<script"), "unescaped script");
        assert!(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"));
        for n in names().iter().filter(|n| n.as_str() != EVIL) {
            assert!(html.contains(n.as_str()), "{n} missing");
        }
        assert!(html.contains("unadjusted, against #1"));
        assert!(html.contains("top tier: ckpt-300"));
    }
}

#[test]
fn one_dot_per_system_at_its_value() {
    let r = ranking(false, false);
    let html = html_rank::render(&r, &words());
    let p = plot(&html, "dots");
    let dots = tags(p, "circle", "pt");
    assert_eq!(dots.len(), r.systems.len());
    for (d, s) in dots.iter().zip(&r.systems) {
        assert_eq!(
            attr(d, "data-system").unwrap(),
            rollstat_render_esc(&s.name)
        );
        assert_eq!(num(d, "data-value"), s.value);
        assert!(near(num(d, "cx"), to_px(p, s.value)), "{d}");
        let class = if r.top_tier.contains(&s.name) {
            "s1"
        } else {
            "rest"
        };
        assert!(attr(d, "class").unwrap().contains(class));
    }
    // Best first, rows top to bottom.
    let ys: Vec<f64> = dots.iter().map(|d| num(d, "cy")).collect();
    assert!(ys.windows(2).all(|w| w[0] < w[1]));
}

#[test]
fn rank_ticks_sit_at_each_rank() {
    let r = ranking(false, false);
    let html = html_rank::render(&r, &words());
    let p = plot(&html, "ranks");
    let ticks = tags(p, "line", "rtick");
    assert_eq!(ticks.len(), r.systems.len());
    for (t, s) in ticks.iter().zip(&r.systems) {
        assert!(near(num(t, "x1"), to_px(p, s.rank as f64)));
        assert_eq!(num(t, "data-p-best"), s.p_best);
    }
    assert_eq!(tags(p, "rect", "rset").len(), r.systems.len());
    assert_eq!(tags(p, "rect", "rint").len(), r.systems.len());
}

#[test]
fn cd_diagram_marks_each_mean_rank_and_each_group() {
    let r = ranking(true, false);
    let s = r.suite.as_ref().unwrap();
    let html = html_rank::render(&r, &words());
    let p = plot(&html, "cd");
    let marks = tags(p, "circle", "cdmark");
    assert_eq!(marks.len(), r.systems.len());
    for (sys, mr) in r.systems.iter().zip(&s.mean_ranks) {
        let name = rollstat_render_esc(&sys.name);
        let m = marks
            .iter()
            .find(|m| attr(m, "data-system") == Some(name.as_str()))
            .unwrap();
        assert_eq!(num(m, "data-mean-rank"), *mr);
        assert!(near(num(m, "cx"), to_px(p, *mr)));
    }
    assert_eq!(tags(p, "path", "cdgroup").len(), s.cd_groups.len());
    assert!(html.contains("Iman–Davenport F = 9.100 on (4, 8) df"));
    assert!(html.contains("Friedman χ² = 10.400 on 4 df"));
    assert!(!html_rank::render(&ranking(false, false), &words()).contains("id=\"plot-cd\""));
}

#[test]
fn curve_has_one_point_per_checkpoint_in_step_order() {
    let r = ranking(false, true);
    let c = r.curve.as_ref().unwrap();
    let html = html_rank::render(&r, &words());
    let p = plot(&html, "curve");
    let pts = tags(p, "circle", "pt");
    assert_eq!(pts.len(), c.points.len());
    let mut last = f64::NEG_INFINITY;
    for (t, cp) in pts.iter().zip(&c.points) {
        assert_eq!(num(t, "data-step"), cp.step);
        assert!(near(num(t, "cx"), to_px(p, cp.step)));
        assert!(num(t, "cx") > last);
        last = num(t, "cx");
    }
    let best: Vec<&&str> = pts
        .iter()
        .filter(|t| attr(t, "class") == Some("pt best"))
        .collect();
    assert_eq!(best.len(), 1);
    assert_eq!(attr(best[0], "data-system"), Some(c.best.as_str()));
    assert_eq!(tags(p, "circle", "s1").len(), c.not_separable.len());
    assert!(!html_rank::render(&ranking(true, false), &words()).contains("id=\"plot-curve\""));
}

/// HTML escaping as the page does it (for comparing attribute values).
fn rollstat_render_esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}
