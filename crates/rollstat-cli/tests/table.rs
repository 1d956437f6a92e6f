//! The terminal table shows the headline set; `--all` everything. The
//! expected rows follow from the definitions (docs/spec.md §6), not from a
//! run: G-Pass@k_τ needs max(⌈τk⌉, 1) of k correct, so at k = 2 τ = 0.5
//! is pass@2; mG-Pass@2 is pass^2.

use serde_json::Value;

mod common;

fn run(args: &[&str]) -> String {
    common::run_with(args, "2")
}

/// The metric names of the first table (the rows under the `──` rule).
fn table_metrics(text: &str) -> Vec<String> {
    text.lines()
        .skip_while(|l| !l.trim_start().starts_with('─'))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .collect()
}

fn names(v: &[&str]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

/// The demo's headline set: pass@k for k = 1, 2, 4, 8, pass^k for k ≥ 2,
/// prefix@k, maj@k, self-consistency (no G-Pass, no distinct answers, no
/// pass@k-maj@k gaps).
const HEADLINE: [&str; 16] = [
    "pass@1",
    "pass@2",
    "pass@4",
    "pass@8",
    "pass^2",
    "pass^4",
    "pass^8",
    "prefix@1",
    "prefix@2",
    "prefix@4",
    "prefix@8",
    "maj@1",
    "maj@2",
    "maj@4",
    "maj@8",
    "self_consistency",
];

#[test]
fn default_table_is_the_headline_set() {
    let t = run(&["report", "examples/demo.jsonl", "--ci", "none"]);
    assert_eq!(table_metrics(&t), names(&HEADLINE));
    // 8 rows equal to another, 7 other G-Pass rows, distinct_answers, the 4
    // gaps pass@k-maj@k, and (the demo carries output_tokens) budget@k and
    // cost_of_pass@k / cost_of_maj@k for k = 1, 2, 4, 8.
    assert!(t.contains("--all adds 32 more"), "{t}");
    assert!(t.contains("12 budget@k and cost_of_…@k rows"), "{t}");
    assert!(t.contains("4 pass@k-maj@k gaps"), "{t}");
}

#[test]
fn tau_shows_g_pass_except_rows_equal_to_others() {
    let t = run(&[
        "report",
        "examples/demo.jsonl",
        "--ci",
        "none",
        "--tau",
        "0.5",
    ]);
    let mut want = names(&HEADLINE[..7]);
    // g-pass@2_0.5 needs 1 of 2 (= pass@2) and mg-pass@2 = pass^2: left out.
    want.extend(names(&[
        "g-pass@4_0.5",
        "g-pass@8_0.5",
        "mg-pass@4",
        "mg-pass@8",
    ]));
    want.extend(names(&HEADLINE[7..]));
    assert_eq!(table_metrics(&t), want);
}

#[test]
fn all_prints_every_json_metric_and_json_notes_identities() {
    let t = run(&["report", "examples/demo.jsonl", "--ci", "none", "--all"]);
    let j: Value = serde_json::from_str(&run(&[
        "report",
        "examples/demo.jsonl",
        "--format",
        "json",
        "--ci",
        "none",
    ]))
    .unwrap();
    let keys: Vec<String> = j["metrics"].as_object().unwrap().keys().cloned().collect();
    assert_eq!(table_metrics(&t), keys);
    let m = &j["metrics"];
    assert_eq!(m["g-pass@2_0.25"]["same_as"], "pass@2");
    assert_eq!(m["g-pass@2_0.5"]["same_as"], "pass@2");
    assert_eq!(m["g-pass@2_0.75"]["same_as"], "pass^2");
    assert_eq!(m["g-pass@4_0.25"]["same_as"], "pass@4");
    assert_eq!(m["g-pass@4_1.0"]["same_as"], "pass^4");
    assert_eq!(m["mg-pass@2"]["same_as"], "pass^2");
    // ⌈0.5·4⌉ = 2 of 4, ⌈0.25·8⌉ = 2 of 8: neither pass@k nor pass^k.
    assert!(m["g-pass@4_0.5"].get("same_as").is_none());
    assert!(m["g-pass@8_0.25"].get("same_as").is_none());
    // CSV carries the same identities in its last column.
    let csv = run(&[
        "report",
        "examples/demo.jsonl",
        "--format",
        "csv",
        "--ci",
        "none",
    ]);
    assert!(csv.lines().next().unwrap().ends_with(",unit,same_as"));
    let row = csv
        .lines()
        .find(|l| l.starts_with(",g-pass@2_0.5,"))
        .unwrap();
    assert!(row.ends_with(",pass@2"), "{row}");
    let row = csv.lines().find(|l| l.starts_with(",pass@2,")).unwrap();
    assert!(row.ends_with(','), "{row}");
    // Equal by definition means equal values.
    for (name, e) in m.as_object().unwrap() {
        if let Some(target) = e["same_as"].as_str() {
            assert_eq!(e["value"], m[target]["value"], "{name} = {target}");
        }
    }
}

#[test]
fn answer_metrics_left_out_with_one_line_why() {
    let dir = tempfile::tempdir().unwrap();
    let no_answers = dir.path().join("noans.jsonl");
    std::fs::write(&no_answers, "{\"problem\":\"a\",\"rollout\":0,\"correct\":true}\n{\"problem\":\"a\",\"rollout\":1,\"correct\":false}\n").unwrap();
    let t = run(&["report", no_answers.to_str().unwrap(), "--ci", "none"]);
    assert!(!table_metrics(&t)
        .iter()
        .any(|m| m.starts_with("maj@") || m == "self_consistency"));
    assert!(
        t.contains("maj@k, self_consistency and distinct_answers left out: no rollout carries an extracted answer"),
        "{t}"
    );
    assert!(!t.contains("warning: maj@"), "{t}");

    let one = dir.path().join("n1.jsonl");
    std::fs::write(&one, "{\"problem\":\"a\",\"rollout\":0,\"correct\":true,\"answer\":\"1\"}\n{\"problem\":\"b\",\"rollout\":0,\"correct\":false,\"answer\":\"2\"}\n").unwrap();
    let t = run(&["report", one.to_str().unwrap(), "--ci", "none"]);
    assert_eq!(table_metrics(&t), names(&["pass@1", "prefix@1"]));
    assert!(t.contains("with n = 1 each problem has one answer"), "{t}");
    // The engine leaves them out, so --all and every format agree.
    let all = run(&["report", one.to_str().unwrap(), "--ci", "none", "--all"]);
    let shown = table_metrics(&all);
    assert!(
        !shown
            .iter()
            .any(|m| m == "maj@1" || m == "self_consistency"),
        "{all}"
    );
    // A row of maj@1 or self_consistency in each format's own syntax.
    for (format, rows) in [
        ("json", ["\"maj@1\"", "\"self_consistency\""]),
        ("csv", [",maj@1,", ",self_consistency,"]),
        ("markdown", ["| maj@1 ", "| self_consistency "]),
        ("html", ["<td>maj@1</td>", "<td>self_consistency</td>"]),
    ] {
        let out = run(&[
            "report",
            one.to_str().unwrap(),
            "--ci",
            "none",
            "--format",
            format,
        ]);
        for row in rows {
            assert!(!out.contains(row), "{format}: {row} in {out}");
        }
    }
}

#[test]
fn markdown_uses_the_same_rows() {
    let md = run(&[
        "report",
        "examples/demo.jsonl",
        "--ci",
        "none",
        "--format",
        "markdown",
    ]);
    let rows: Vec<String> = md
        .lines()
        .skip_while(|l| !l.starts_with("| ---"))
        .skip(1)
        .take_while(|l| l.starts_with('|'))
        .map(|l| {
            l.trim_start_matches('|')
                .split('|')
                .next()
                .unwrap()
                .trim()
                .to_string()
        })
        .collect();
    assert_eq!(rows, names(&HEADLINE));
}

/// `--by model` with budgets: the frontier line of the table and the JSON
/// `frontier`. Two systems on two problems: short (100 tokens a rollout;
/// p0 1 of 2 correct, p1 0 of 2 → pass@1 1/4, pass@2 1/2) and long (150
/// tokens; 2 of 2 and 1 of 2 → pass@1 3/4, pass@2 1). Points (budget@k,
/// pass@k): short (100, 25%), (200, 50%); long (150, 75%), (300, 100%);
/// long@1 beats short@2 for less, so the frontier is short@1, long@1,
/// long@2. `--budget none` drops the frontier and every budget metric.
#[test]
fn frontier_in_the_table_and_the_json() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("two.jsonl");
    let mut text = String::new();
    for (model, tokens, verdicts) in [
        ("short", 100, [[true, false], [false, false]]),
        ("long", 150, [[true, true], [true, false]]),
    ] {
        for (p, vs) in verdicts.iter().enumerate() {
            for (i, ok) in vs.iter().enumerate() {
                text += &format!(
                    "{{\"problem\":\"p{p}\",\"rollout\":{i},\"correct\":{ok},\"output_tokens\":{tokens},\"model\":\"{model}\"}}\n"
                );
            }
        }
    }
    std::fs::write(&path, text).unwrap();
    let file = path.to_str().unwrap();
    let t = run(&["report", file, "--by", "model", "--ci", "none"]);
    let want = "Frontier (pass@k vs budget@k; best at each budget): short at k = 1: 100 → 25.00%; \
                long at k = 1: 150 → 75.00%; long at k = 2: 300 → 100.00%";
    assert!(t.contains(want), "{t}");
    let json = run(&["report", file, "--by", "model", "--format", "json"]);
    let doc: Value = serde_json::from_str(&json).unwrap();
    let points: Vec<(String, u64, f64, f64)> = doc["frontier"]
        .as_array()
        .expect("frontier list")
        .iter()
        .map(|p| {
            (
                p["group"].as_str().unwrap().to_string(),
                p["k"].as_u64().unwrap(),
                p["budget"].as_f64().unwrap(),
                p["pass"].as_f64().unwrap(),
            )
        })
        .collect();
    let want = [
        ("short", 1, 100.0, 0.25),
        ("long", 1, 150.0, 0.75),
        ("long", 2, 300.0, 1.0),
    ];
    let want: Vec<(String, u64, f64, f64)> = want
        .iter()
        .map(|&(g, k, b, p)| (g.to_string(), k, b, p))
        .collect();
    assert_eq!(points, want);
    assert!(doc["metrics"].get("budget@1").is_some() && doc["health"].get("budget").is_some());
    let off = run(&[
        "report", file, "--by", "model", "--budget", "none", "--format", "json",
    ]);
    let doc: Value = serde_json::from_str(&off).unwrap();
    assert!(doc.get("frontier").is_none(), "{off}");
    assert!(doc["health"].get("budget").is_none());
    assert!(doc["metrics"].get("budget@1").is_none());
}

/// One CI label (design review D18): the terminal table, Markdown and the
/// HTML page all say 95.5% for `--level 0.955`, never a rounded 96%.
#[test]
fn every_format_labels_the_level_alike() {
    for format in ["table", "markdown", "html"] {
        let t = run(&[
            "report",
            "examples/demo.jsonl",
            "--level",
            "0.955",
            "--resamples",
            "200",
            "--format",
            format,
        ]);
        assert!(t.contains("bootstrap at 95.5%"), "{format}: {t}");
        assert!(!t.contains("96%"), "{format}");
    }
}
