//! The HTML pages (`--format html`): every number on the page is the JSON's
//! (expected text is formatted here from report.json, not taken from the
//! page), every plot is there, nothing is fetched, the bytes do not depend
//! on the thread count, and a real browser renders them.

use serde_json::Value;
use std::collections::BTreeMap;
#[cfg(has_chromium)]
use std::path::Path;
#[cfg(has_chromium)]
use std::process::Command;

mod common;
use common::run_with;

fn run(args: &[&str]) -> String {
    run_with(args, "2")
}

fn with_format(args: &[&str], format: &str) -> Vec<String> {
    let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    v.extend(["--format".into(), format.into()]);
    v
}

fn page_and_json(args: &[&str]) -> (String, Value) {
    let h = with_format(args, "html");
    let j = with_format(args, "json");
    let h: Vec<&str> = h.iter().map(String::as_str).collect();
    let j: Vec<&str> = j.iter().map(String::as_str).collect();
    (run(&h), serde_json::from_str(&run(&j)).expect("json"))
}

/// Every start tag of `name` carrying attribute `attr`, as attribute maps,
/// each with the text up to the tag's end element.
fn tags(html: &str, name: &str, attr: &str) -> Vec<(BTreeMap<String, String>, String)> {
    let open = format!("<{name} ");
    let close = format!("</{name}>");
    let mut out = Vec::new();
    let mut rest = html;
    while let Some(i) = rest.find(&open) {
        rest = &rest[i + open.len()..];
        let end = rest.find('>').expect("tag ends");
        let attrs = attributes(&rest[..end]);
        let body_end = rest.find(&close).unwrap_or(end);
        if attrs.contains_key(attr) {
            out.push((attrs, rest[end + 1..body_end.max(end + 1)].to_string()));
        }
    }
    out
}

fn attributes(s: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    let mut rest = s;
    while let Some(eq) = rest.find("=\"") {
        let key = rest[..eq].trim().trim_end_matches('/').to_string();
        let after = &rest[eq + 2..];
        let q = after.find('"').expect("closing quote");
        m.insert(key, unescape(&after[..q]));
        rest = &after[q + 1..];
    }
    m
}

fn unescape(s: &str) -> String {
    s.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&amp;", "&")
}

/// The cells of a table row's body, tags stripped.
fn cells(row: &str) -> Vec<String> {
    row.split("<td>")
        .skip(1)
        .map(|c| {
            let c = c.split("</td>").next().unwrap_or("");
            let mut text = String::new();
            let mut in_tag = false;
            for ch in c.chars() {
                match ch {
                    '<' => in_tag = true,
                    '>' => in_tag = false,
                    _ if !in_tag => text.push(ch),
                    _ => {}
                }
            }
            unescape(&text)
        })
        .collect()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap_or_else(|_| panic!("not a number: {s}"))
}

fn pct(v: f64) -> String {
    format!("{:.2}%", 100.0 * v)
}

/// The table cells a metric entry must show, formatted from the JSON.
fn expected_cells(name: &str, e: &Value) -> Vec<String> {
    let fraction = e["unit"] == "fraction";
    let v = e["value"].as_f64().unwrap();
    let value = if fraction { pct(v) } else { format!("{v:.2}") };
    let se = match e["stderr"].as_f64() {
        Some(s) if fraction => format!("±{:.2}%", 100.0 * s),
        Some(s) => format!("±{s:.2}"),
        None => "–".into(),
    };
    let ci = match e["ci"].as_array() {
        Some(c) if fraction => format!(
            "[{:.2}, {:.2}]%",
            100.0 * c[0].as_f64().unwrap(),
            100.0 * c[1].as_f64().unwrap()
        ),
        Some(c) => format!(
            "[{:.2}, {:.2}]",
            c[0].as_f64().unwrap(),
            c[1].as_f64().unwrap()
        ),
        None => "–".into(),
    };
    let label = match e["same_as"].as_str() {
        Some(s) => format!("{name} (= {s})"),
        None => name.to_string(),
    };
    vec![
        label,
        value,
        se,
        ci,
        e["n_problems"].to_string(),
        e["n_excluded"].to_string(),
    ]
}

fn metrics_of<'a>(json: &'a Value, group: Option<&str>) -> &'a Value {
    match group {
        Some(g) => &json["groups"][g]["metrics"],
        None => &json["metrics"],
    }
}

/// Asserts that nothing on the page can fetch anything: the only URL is
/// the SVG namespace, and there is no script, link, import or url().
fn assert_self_contained(html: &str) {
    let lower = html.to_lowercase();
    for bad in [
        "<script", "<link", "@import", "url(", "src=", "<iframe", "<object", "<embed",
    ] {
        assert!(!lower.contains(bad), "page contains {bad}");
    }
    // Links only to anchors on the page.
    for (i, _) in lower.match_indices("href=") {
        assert!(lower[i..].starts_with("href=\"#"), "a link leaves the page");
    }
    let mut rest = lower.as_str();
    while let Some(i) = rest.find("://") {
        let before = &rest[..i];
        let start = before.rfind(['"', ' ', '(', '\'']).map_or(0, |s| s + 1);
        let url: String = rest[start..].chars().take_while(|c| *c != '"').collect();
        assert_eq!(
            url, "http://www.w3.org/2000/svg",
            "external URL on the page"
        );
        rest = &rest[i + 3..];
    }
}

const DEMO: &[&str] = &["report", "examples/demo.jsonl", "--by", "group"];

#[test]
fn report_page_numbers_are_the_jsons() {
    let (html, json) = page_and_json(DEMO);
    let rows = tags(&html, "tr", "data-metric");
    assert!(!rows.is_empty());
    for (attrs, body) in &rows {
        let name = &attrs["data-metric"];
        let group = attrs.get("data-group").map(String::as_str);
        let e = &metrics_of(&json, group)[name.as_str()];
        assert_eq!(num(&attrs["data-value"]), e["value"].as_f64().unwrap());
        assert_eq!(cells(body), expected_cells(name, e), "{name} {group:?}");
    }
    // Every metric of the whole input is on the page (the "every metric"
    // table), and every group's headline set.
    for name in json["metrics"].as_object().unwrap().keys() {
        assert!(
            rows.iter()
                .any(|(a, _)| &a["data-metric"] == name && !a.contains_key("data-group")),
            "{name} missing"
        );
    }
    for g in json["groups"].as_object().unwrap().keys() {
        assert!(rows.iter().any(|(a, _)| a.get("data-group") == Some(g)));
    }
}

#[test]
fn report_plots_draw_the_jsons_values() {
    let (html, json) = page_and_json(DEMO);
    for id in [
        "plot-k",
        "plot-difficulty",
        "plot-prefix",
        "plot-variance",
        "plot-groups-0",
    ] {
        assert!(
            html.contains(&format!("data-plot=\"{id}\"")),
            "{id} missing"
        );
    }
    // Points: each drawn value is the JSON's, and every pass@k, pass^k,
    // maj@k and prefix@k of the JSON is drawn.
    let points = tags(&html, "circle", "data-metric");
    for (a, _) in &points {
        let e =
            &metrics_of(&json, a.get("data-group").map(String::as_str))[a["data-metric"].as_str()];
        assert_eq!(num(&a["data-value"]), e["value"].as_f64().unwrap());
    }
    for name in json["metrics"].as_object().unwrap().keys() {
        // family + k: `pass@4`, `maj@8`, `bon@2` (not `pass@4-maj@4`).
        let plotted = ["pass@", "pass^", "maj@", "prefix@", "bon@"]
            .iter()
            .any(|f| {
                name.strip_prefix(f)
                    .is_some_and(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
            });
        if plotted {
            assert!(
                points.iter().any(|(a, _)| &a["data-metric"] == name),
                "{name} not drawn"
            );
        }
    }
    // The difficulty histogram is health.difficulty.
    let (d, _) = &tags(&html, "div", "data-counts")[0];
    let hist: Vec<String> = json["health"]["difficulty"]["histogram"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.to_string())
        .collect();
    assert_eq!(d["data-counts"], hist.join(","));
    assert_eq!(
        d["data-never"],
        json["health"]["difficulty"]["never_solved"].to_string()
    );
    assert_eq!(
        d["data-always"],
        json["health"]["difficulty"]["always_solved"].to_string()
    );
    // The variance split is each pass@k's `variance`.
    for (a, _) in tags(&html, "li", "data-between") {
        let v = &json["metrics"][a["data-metric"].as_str()]["variance"];
        assert_eq!(num(&a["data-between"]), v["between"].as_f64().unwrap());
        assert_eq!(num(&a["data-within"]), v["within"].as_f64().unwrap());
    }
    assert_self_contained(&html);
}

/// Four decimals, trailing zeros dropped (as the terminal table prints
/// harness numbers).
fn four(v: f64) -> String {
    let s = format!("{v:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[test]
fn harness_table_is_the_jsons() {
    let fixture = "crates/rollstat-formats/tests/fixtures/lm_eval";
    let (html, json) = page_and_json(&["report", fixture]);
    let want = json["harness"].as_array().unwrap();
    let rows = tags(&html, "tr", "data-harness");
    assert_eq!(rows.len(), want.len());
    assert!(!want.is_empty());
    for ((a, body), h) in rows.iter().zip(want) {
        assert_eq!(a["data-harness"], h["harness_metric"].as_str().unwrap());
        assert_eq!(
            num(&a["data-harness-value"]),
            h["harness_value"].as_f64().unwrap()
        );
        let c = cells(body);
        assert_eq!(c[1], four(h["harness_value"].as_f64().unwrap()));
        assert_eq!(c[2], h["rollstat_metric"].as_str().unwrap_or("–"));
        assert_eq!(c[3], h["rollstat_value"].as_f64().map_or("–".into(), four));
        assert_eq!(c[5], h["note"].as_str().unwrap());
    }
    assert_self_contained(&html);
}

#[test]
fn extrapolation_table_is_the_jsons() {
    let (html, json) = page_and_json(&["report", "examples/demo.jsonl", "--extrapolate", "16,32"]);
    let want = json["extrapolation"]["values"].as_object().unwrap();
    let rows = tags(&html, "tr", "data-extrapolated");
    assert_eq!(rows.len(), want.len());
    for ((a, body), (name, e)) in rows.iter().zip(want) {
        assert_eq!(&a["data-extrapolated"], name);
        assert_eq!(num(&a["data-value"]), e["value"].as_f64().unwrap());
        let c = cells(body);
        assert_eq!(c[1], pct(e["value"].as_f64().unwrap()));
        assert_eq!(
            c[2],
            format!("±{:.2}%", 100.0 * e["stderr"].as_f64().unwrap())
        );
    }
    assert!(html.contains("model-based"));
}

/// The demo's difficulty by hand: c = 0, 1, 2, 3, 4, 8 of n = 8, so bins
/// 0–4 and 8 hold one problem each; one never and one always solved.
#[test]
fn demo_difficulty_is_the_count_of_each_c() {
    let json: Value =
        serde_json::from_str(&run(&["report", "examples/demo.jsonl", "--format", "json"])).unwrap();
    let d = &json["health"]["difficulty"];
    assert_eq!(
        d["histogram"],
        serde_json::json!([1, 1, 1, 1, 1, 0, 0, 0, 1])
    );
    assert_eq!(
        (d["never_solved"].as_u64(), d["always_solved"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(d["bins"], 8);
}

const CMP: &[&str] = &[
    "compare",
    "examples/demo.jsonl",
    "examples/demo-b.jsonl",
    "--margin",
    "0.05",
];

#[test]
fn compare_page_numbers_are_the_jsons() {
    let (html, json) = page_and_json(CMP);
    let rows = json["rows"].as_array().unwrap();
    // The headline table: the rows `report` would show (no G-Pass without
    // --tau, never a row that is another row by definition), then every
    // row of the JSON, folded.
    let shown: Vec<&Value> = rows
        .iter()
        .filter(|r| {
            let m = r["metric"].as_str().unwrap();
            r["same_as"].is_null() && !m.starts_with("g-pass") && !m.starts_with("mg-pass")
        })
        .collect();
    let (headline, every) = html
        .split_once("id=\"every-row\"")
        .expect("a folded full table");
    let head_trs = tags(headline, "tr", "data-delta");
    assert_eq!(head_trs.len(), shown.len());
    for ((a, _), r) in head_trs.iter().zip(&shown) {
        assert_eq!(a["data-metric"], r["metric"].as_str().unwrap());
    }
    assert!(headline.contains("Headline rows; the full table adds"));
    assert!(headline.contains("B vs A on 6 problems: pass@1 +10.42 pts"));
    let trs = tags(every, "tr", "data-delta");
    assert_eq!(trs.len(), rows.len());
    for ((a, body), r) in trs.iter().zip(rows) {
        assert_eq!(a["data-metric"], r["metric"].as_str().unwrap());
        assert_eq!(num(&a["data-delta"]), r["delta"].as_f64().unwrap());
        let c = cells(body);
        let label = match r["same_as"].as_str() {
            Some(s) => format!("{} (= {s})", r["metric"].as_str().unwrap()),
            None => r["metric"].as_str().unwrap().to_string(),
        };
        assert_eq!(c[0], label);
        assert_eq!(c[1], pct(r["a"].as_f64().unwrap()));
        assert_eq!(c[2], pct(r["b"].as_f64().unwrap()));
        assert_eq!(
            c[3],
            format!("{:+.2}", 100.0 * r["delta"].as_f64().unwrap())
        );
        let p = |k: &str| match r[k].as_f64() {
            None => "–".to_string(),
            Some(p) if p < 1e-4 => format!("{p:.1e}"),
            Some(p) => format!("{p:.4}"),
        };
        assert_eq!(
            c[6..10],
            [p("p_value"), p("p_holm"), p("p_bh"), p("mcnemar_p")]
        );
        assert_eq!(c[11], r["verdict"].as_str().unwrap_or("–"));
    }
    // Forest points: one per headline row (never one that is another row
    // by definition), at the JSON's delta, coloured by verdict.
    let drawn: Vec<&Value> = shown.clone();
    assert!(
        drawn.len() < rows.len(),
        "the demo has g-pass rows equal to pass rows"
    );
    let dots = tags(&html, "circle", "data-delta");
    assert_eq!(dots.len(), drawn.len());
    for ((a, _), r) in dots.iter().zip(drawn) {
        assert_eq!(num(&a["data-delta"]), r["delta"].as_f64().unwrap());
        let class = match r["verdict"].as_str() {
            Some("non-inferior") => "ok",
            Some("inferior") => "bad",
            Some(_) => "mid",
            None => "s1",
        };
        assert_eq!(a["class"], class);
    }
    // Discordant pairs: the JSON's mcnemar counts of the headline rows.
    let expected: Vec<String> = shown
        .iter()
        .filter(|r| !r["mcnemar"].is_null())
        .map(|r| {
            format!(
                "{}:{}:{}",
                r["metric"].as_str().unwrap(),
                r["mcnemar"]["a_only"],
                r["mcnemar"]["b_only"]
            )
        })
        .collect();
    assert!(!expected.is_empty());
    let (d, _) = &tags(&html, "div", "data-pairs")[0];
    assert_eq!(d["data-pairs"], expected.join(","));
    for id in ["plot-forest", "plot-discordant"] {
        assert!(
            html.contains(&format!("data-plot=\"{id}\"")),
            "{id} missing"
        );
    }
    assert_self_contained(&html);
}

/// Each problem's (A, B) values from each side's own report with
/// `--per-problem`, joined by problem id: what the scatter must draw.
fn per_problem_pairs(a: &str, b: &str, metric: &str, extra: &[&str]) -> Vec<(f64, f64)> {
    let side = |path: &str| -> BTreeMap<String, f64> {
        let mut args = vec!["report", path, "--per-problem", "--format", "json"];
        args.extend(extra);
        let json: Value = serde_json::from_str(&run(&args)).unwrap();
        json["per_problem"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| {
                let id = p["problem"].as_str().unwrap().to_string();
                (id, p["values"][metric].as_f64().unwrap())
            })
            .collect()
    };
    let (va, vb) = (side(a), side(b));
    let mut pairs: Vec<(f64, f64)> = va
        .iter()
        .filter_map(|(id, x)| vb.get(id).map(|y| (*x, *y)))
        .collect();
    pairs.sort_by(|p, q| p.partial_cmp(q).unwrap());
    pairs
}

#[test]
fn compare_scatter_draws_each_problems_values() {
    let (html, json) = page_and_json(CMP);
    // The demo's pass@1 has n = 8 rollouts: values in eighths, not 0/1.
    let expected = per_problem_pairs(
        "examples/demo.jsonl",
        "examples/demo-b.jsonl",
        "pass@1",
        &[],
    );
    assert_eq!(
        expected.len() as u64,
        json["pairs"]["matched"].as_u64().unwrap()
    );
    let mut drawn: Vec<(f64, f64)> = tags(&html, "circle", "data-b")
        .iter()
        .map(|(a, _)| (num(&a["data-a"]), num(&a["data-b"])))
        .collect();
    drawn.sort_by(|p, q| p.partial_cmp(q).unwrap());
    assert_eq!(drawn, expected);
    let (d, _) = &tags(&html, "div", "data-b-higher")[0];
    assert_eq!(d["data-metric"], "pass@1");
    assert_eq!(d["data-binned"], "false");
    let above = expected.iter().filter(|(a, b)| b > a).count();
    let below = expected.iter().filter(|(a, b)| a > b).count();
    assert_eq!(d["data-b-higher"], above.to_string());
    assert_eq!(d["data-a-higher"], below.to_string());
    assert_eq!(
        d["data-equal"],
        (expected.len() - above - below).to_string()
    );
    // The JSON's rows are the means of these pairs.
    let row = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["metric"] == "pass@1")
        .unwrap();
    let mean_a = expected.iter().map(|p| p.0).sum::<f64>() / expected.len() as f64;
    assert!((row["a"].as_f64().unwrap() - mean_a).abs() < 1e-12);
}

/// Two systems over `problems` problems with 2 rollouts each: A solves
/// `i % 3` of problem i's rollouts, B `(i / 3) % 3`.
fn two_systems(dir: &std::path::Path, problems: usize) -> (String, String) {
    let write = |name: &str, solved: &dyn Fn(usize) -> usize| {
        let mut text = String::new();
        for i in 0..problems {
            for r in 0..2 {
                text.push_str(&format!(
                    "{{\"problem\":\"p{i}\",\"rollout\":{r},\"correct\":{}}}\n",
                    r < solved(i)
                ));
            }
        }
        common::write(dir, name, text)
    };
    (
        write("a.jsonl", &|i| i % 3),
        write("b.jsonl", &|i| (i / 3) % 3),
    )
}

#[test]
fn a_large_scatter_is_binned_and_counts_every_problem() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = two_systems(dir.path(), 2500);
    let fast = ["--ci", "t", "--permutations", "200"];
    let mut args = vec!["compare", a.as_str(), b.as_str(), "--format", "html"];
    args.extend(fast);
    let html = run(&args);
    assert_eq!(html, run_with(&args, "1"), "same bytes on one thread");
    let (d, _) = &tags(&html, "div", "data-b-higher")[0];
    assert_eq!(d["data-binned"], "true");
    assert_eq!(d["data-problems"], "2500");
    assert!(
        tags(&html, "circle", "data-b").is_empty(),
        "no dot per problem"
    );
    assert!(html.contains("2500 problems binned (40 × 40)"));
    // With values 0, ½ and 1 each (A, B) combination is its own cell:
    // the cells' counts are the combinations' counts in the two reports.
    let pairs = per_problem_pairs(&a, &b, "pass@1", &["--ci", "t"]);
    let mut combos: BTreeMap<String, u64> = BTreeMap::new();
    for (x, y) in &pairs {
        *combos.entry(format!("{x}/{y}")).or_default() += 1;
    }
    let mut expected: Vec<u64> = combos.into_values().collect();
    let mut counts: Vec<u64> = tags(&html, "rect", "data-count")
        .iter()
        .map(|(a, _)| a["data-count"].parse().unwrap())
        .collect();
    expected.sort_unstable();
    counts.sort_unstable();
    assert_eq!(counts, expected);
    assert_self_contained(&html);
}

const BUDGET: &[&str] = &[
    "report",
    "examples/budget_short.jsonl",
    "examples/budget_long.jsonl",
    "--by",
    "model",
    "--budget",
    "output_tokens",
];

#[test]
fn frontier_plot_draws_the_jsons_points() {
    let (html, json) = page_and_json(BUDGET);
    // One marker per (group, k): the group's budget@k and pass@k.
    let mut expected = Vec::new();
    for (g, gr) in json["groups"].as_object().unwrap() {
        for (name, e) in gr["metrics"].as_object().unwrap() {
            if let Some(k) = name.strip_prefix("budget@") {
                let pass = gr["metrics"][format!("pass@{k}")]["value"]
                    .as_f64()
                    .unwrap();
                expected.push((g.clone(), k.to_string(), e["value"].as_f64().unwrap(), pass));
            }
        }
    }
    assert_eq!(expected.len(), 8, "2 models × k = 1, 2, 4, 8");
    let drawn: Vec<(String, String, f64, f64)> = tags(&html, "circle", "data-budget")
        .iter()
        .map(|(a, _)| {
            let (g, k) = (a["data-group"].clone(), a["data-k"].clone());
            (g, k, num(&a["data-budget"]), num(&a["data-pass"]))
        })
        .collect();
    assert_eq!(drawn, expected);
    // The line runs through the JSON's frontier points.
    let frontier: Vec<String> = json["frontier"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| format!("{}:{}", f["group"].as_str().unwrap(), f["k"]))
        .collect();
    let (d, _) = &tags(&html, "div", "data-frontier")[0];
    assert_eq!(d["data-frontier"], frontier.join(","));
    // Budgets span more than 10× (k = 1 of the short model to k = 8 of
    // the long one): a log axis, and the axis says so.
    let budgets: Vec<f64> = expected.iter().map(|p| p.2).collect();
    let span = budgets.iter().cloned().fold(0.0, f64::max)
        / budgets.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(span > 10.0);
    assert!(html.contains("budget@k: mean output_tokens per problem for k draws, log scale"));
    assert!(html.contains("out of n = 8"));
    assert!(html.contains("data-plot=\"plot-frontier\""));
    assert_self_contained(&html);
}

#[test]
fn frontier_axis_is_linear_when_budgets_span_at_most_ten_times() {
    // The demo carries output_tokens; by group it has a frontier.
    let (html, json) = page_and_json(DEMO);
    let budgets: Vec<f64> = json["groups"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|g| {
            g["metrics"]
                .as_object()
                .unwrap()
                .iter()
                .filter(|(name, _)| name.starts_with("budget@"))
                .map(|(_, e)| e["value"].as_f64().unwrap())
                .collect::<Vec<_>>()
        })
        .collect();
    assert!(!json["frontier"].as_array().unwrap().is_empty());
    let span = budgets.iter().cloned().fold(0.0, f64::max)
        / budgets.iter().cloned().fold(f64::INFINITY, f64::min);
    assert!(span <= 10.0, "span {span}");
    assert!(html.contains("mean output_tokens per problem for k draws</text>"));
    assert!(!html.contains("log scale"));
    assert_eq!(tags(&html, "circle", "data-budget").len(), budgets.len());
}

#[test]
fn pages_are_identical_for_any_thread_count() {
    for args in [DEMO, CMP, BUDGET] {
        let args = with_format(args, "html");
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let one = run_with(&args, "1");
        assert_eq!(one, run_with(&args, "2"));
        assert_eq!(one, run_with(&args, "1"));
    }
}

#[test]
fn the_check_for_external_urls_catches_one() {
    let page = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg><p style=\"background:url(x)\">";
    assert!(std::panic::catch_unwind(|| assert_self_contained(page)).is_err());
    let page = "<svg xmlns=\"http://www.w3.org/2000/svg\"></svg><p>https://example.com</p>";
    assert!(std::panic::catch_unwind(|| assert_self_contained(page)).is_err());
    assert!(std::panic::catch_unwind(|| assert_self_contained("<a href=\"x.html\">")).is_err());
    assert_self_contained("<a href=\"#metrics\">metrics</a>");
}

// ------------------------------------------------------------ real browser

/// Decodes an 8-bit RGB or RGBA, non-interlaced PNG into (width, height,
/// RGB pixels): what chromium's `--screenshot` writes.
#[cfg(has_chromium)]
fn decode_png(bytes: &[u8]) -> (usize, usize, Vec<[u8; 3]>) {
    use std::io::Read;
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    let (mut pos, mut idat) = (8, Vec::new());
    let (mut w, mut h, mut channels) = (0, 0, 0);
    while pos + 8 <= bytes.len() {
        let len = u32::from_be_bytes(bytes[pos..pos + 4].try_into().unwrap()) as usize;
        let kind = &bytes[pos + 4..pos + 8];
        let data = &bytes[pos + 8..pos + 8 + len];
        match kind {
            b"IHDR" => {
                w = u32::from_be_bytes(data[0..4].try_into().unwrap()) as usize;
                h = u32::from_be_bytes(data[4..8].try_into().unwrap()) as usize;
                assert_eq!((data[8], data[12]), (8, 0), "8-bit, not interlaced");
                channels = match data[9] {
                    2 => 3,
                    6 => 4,
                    t => panic!("PNG colour type {t}"),
                };
            }
            b"IDAT" => idat.extend_from_slice(data),
            _ => {}
        }
        pos += 12 + len;
    }
    let mut raw = Vec::new();
    flate2::read::ZlibDecoder::new(&idat[..])
        .read_to_end(&mut raw)
        .expect("inflates");
    let stride = w * channels;
    let mut img = vec![0u8; h * stride];
    for y in 0..h {
        let filter = raw[y * (stride + 1)];
        let line = &raw[y * (stride + 1) + 1..(y + 1) * (stride + 1)];
        for x in 0..stride {
            let a = if x >= channels {
                img[y * stride + x - channels]
            } else {
                0
            };
            let b = if y > 0 { img[(y - 1) * stride + x] } else { 0 };
            let c = if x >= channels && y > 0 {
                img[(y - 1) * stride + x - channels]
            } else {
                0
            };
            let pred = match filter {
                0 => 0,
                1 => a,
                2 => b,
                3 => ((a as u16 + b as u16) / 2) as u8,
                4 => {
                    let p = a as i16 + b as i16 - c as i16;
                    let (pa, pb, pc) = (
                        (p - a as i16).abs(),
                        (p - b as i16).abs(),
                        (p - c as i16).abs(),
                    );
                    if pa <= pb && pa <= pc {
                        a
                    } else if pb <= pc {
                        b
                    } else {
                        c
                    }
                }
                f => panic!("PNG filter {f}"),
            };
            img[y * stride + x] = line[x].wrapping_add(pred);
        }
    }
    let px = img.chunks(channels).map(|p| [p[0], p[1], p[2]]).collect();
    (w, h, px)
}

/// Loads `page` in headless chromium with the network disabled (every
/// host unresolvable, a dead proxy) and writes a screenshot; returns the
/// console lines chromium logged.
#[cfg(has_chromium)]
fn browse(page: &Path, png: &Path, size: &str, extra: &[&str]) -> Vec<String> {
    let profile = tempfile::tempdir().unwrap();
    let out = Command::new(env!("ROLLSTAT_TEST_CHROMIUM"))
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--host-resolver-rules=MAP * ~NOTFOUND",
            "--proxy-server=127.0.0.1:9",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.path().display()))
        .arg(format!("--window-size={size}"))
        .arg(format!("--screenshot={}", png.display()))
        .args(extra)
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("chromium runs");
    let log = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(png.is_file(), "no screenshot; chromium said:\n{log}");
    log.lines()
        .filter(|l| l.contains(":CONSOLE"))
        .map(String::from)
        .collect()
}

/// Pixels close to `rgb` (within 6 per channel).
#[cfg(has_chromium)]
fn near(px: &[[u8; 3]], rgb: [u8; 3]) -> usize {
    px.iter()
        .filter(|p| p.iter().zip(rgb).all(|(a, b)| a.abs_diff(b) <= 6))
        .count()
}

#[test]
#[cfg_attr(
    not(has_chromium),
    ignore = "needs Debian's chromium on PATH at build time (apt-get install chromium; .ci/run installs it)"
)]
fn a_real_browser_renders_the_pages() {
    #[cfg(has_chromium)]
    {
        let dir = tempfile::tempdir().unwrap();
        // The console check can fail: a page that logs an error is caught.
        let control = dir.path().join("control.html");
        std::fs::write(
            &control,
            "<!DOCTYPE html><p>x</p><script>console.error(\"control-marker\")</script>",
        )
        .unwrap();
        let lines = browse(&control, &dir.path().join("control.png"), "400,300", &[]);
        assert!(
            lines.iter().any(|l| l.contains("control-marker")),
            "{lines:?}"
        );

        // The colour each page must show: the report's first series
        // (Okabe–Ito blue), the compare page's non-inferior verdicts (green);
        // in dark mode their lighter variants.
        let pages = [
            (
                "report",
                with_format(DEMO, "html"),
                [0x00, 0x72, 0xB2],
                [0x56, 0xB4, 0xE9],
            ),
            (
                "compare",
                with_format(CMP, "html"),
                [0x00, 0x9E, 0x73],
                [0x2f, 0xc3, 0x9a],
            ),
        ];
        for (name, args, light, dark_colour) in pages {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let page = dir.path().join(format!("{name}.html"));
            std::fs::write(&page, run(&args)).unwrap();
            for (size, dark) in [("900,2400", false), ("390,1600", false), ("900,1200", true)] {
                let png = dir.path().join(format!("{name}-{size}-{dark}.png"));
                let extra: &[&str] = if dark { &["--force-dark-mode"] } else { &[] };
                let console = browse(&page, &png, size, extra);
                assert!(console.is_empty(), "{name}: console said {console:?}");
                let (w, h, px) = decode_png(&std::fs::read(&png).unwrap());
                assert_eq!(format!("{w},{h}"), size);
                // Not blank: the background is the page's (white, or
                // #16161a in dark mode), and a good share of the pixels are
                // ink; the page's plot colour is drawn.
                let bg = if dark {
                    [0x16, 0x16, 0x1a]
                } else {
                    [255, 255, 255]
                };
                assert_eq!(px[0], bg, "{name} {size}: background");
                let ink = px.len() - near(&px, bg);
                assert!(
                    ink * 50 > px.len(),
                    "{name} {size}: only {ink} of {} pixels drawn",
                    px.len()
                );
                let colour = if dark { dark_colour } else { light };
                // The compare page's forest draws the demo's 15 green
                // headline rows (183 such pixels at 390×1600; it drew 23
                // rows before the page showed the headline set): the check
                // is that the colour is drawn at all.
                assert!(
                    near(&px, colour) > 100,
                    "{name} {size}: the plots' colour is missing"
                );
            }
        }
    }
}
