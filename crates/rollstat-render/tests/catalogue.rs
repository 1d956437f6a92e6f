//! Every metric the engine can produce is in the catalogue, and each front
//! end shows it or says why not: the terminal table and Markdown (a row, or
//! counted in the "adds N more" line), the HTML page (a row of its
//! tables), and compare (a row, or the catalogue's reason for none).
//!
//! The fixture has answers, selector scores and a budget on every rollout,
//! G-Pass thresholds and an extrapolation, so that every family of the
//! catalogue has a key; the test fails when a family is added that it
//! does not reach.

use rollstat::{CompareOptions, Report, ReportOptions, Source};
use rollstat_core::catalogue::{Compared, Family, MetricKey, CATALOGUE};
use rollstat_render::markup::{render, Style};
use rollstat_render::{html, layout, View, Words};
use std::collections::BTreeSet;

/// 12 problems × 4 rollouts with answers, scores and output tokens; `shift`
/// moves which rollouts are correct (system B).
fn rows(shift: u64) -> Vec<u8> {
    let mut out = String::new();
    for i in 0..12u64 {
        for j in 0..4u64 {
            let correct = (i * 7 + j * 3 + shift) % 5 < i % 5;
            let answer = if correct {
                "A".to_string()
            } else {
                ["B", "C", "D"][((i + j) % 3) as usize].to_string()
            };
            let score = ((i * 13 + j * 5 + shift) % 11) as f64 / 10.0;
            out.push_str(&format!(
                "{{\"problem\": \"p{i}\", \"rollout\": {j}, \"correct\": {correct}, \"answer\": \"{answer}\", \"score\": {score}, \"output_tokens\": {}}}\n",
                100 + 37 * i + 11 * j + shift
            ));
        }
    }
    out.into_bytes()
}

fn source(name: &str, shift: u64) -> Source {
    Source::Bytes {
        name: name.into(),
        bytes: rows(shift),
    }
}

fn report() -> Report {
    let mut o = ReportOptions::default();
    o.metrics.tau = vec![0.5, 1.0];
    o.extrapolate = vec![16];
    o.intervals.resamples = 200;
    rollstat::report(&[source("a.jsonl", 0)], &o).expect("fixture reads")
}

fn words() -> Words {
    Words {
        finding: |f| f.to_string(),
        all: "--all",
        tau: "--tau",
        budget: Some("--budget"),
        fail_on: "--fail-on",
    }
}

fn key(name: &str) -> MetricKey {
    name.parse()
        .unwrap_or_else(|e| panic!("a report key outside the catalogue: {e}"))
}

#[test]
fn the_fixture_reaches_every_family_and_every_key_parses() {
    let r = report();
    let mut seen: BTreeSet<Family> = BTreeSet::new();
    for (name, _) in r.block.metrics.iter() {
        seen.insert(key(name).family());
        assert_eq!(key(name).to_string(), *name);
    }
    for (name, _) in r.block.not_computable.iter() {
        seen.insert(key(name).family());
    }
    let x = r.extrapolation.as_ref().expect("extrapolation asked");
    for (name, _) in x.values.iter() {
        seen.insert(key(name).family());
    }
    let all: BTreeSet<Family> = CATALOGUE.iter().map(|s| s.family).collect();
    assert_eq!(seen, all, "families the fixture does not reach");
}

/// The rows the "adds N more: …" line accounts for: each part is a count
/// ("8 equal to another row by definition") or a key named alone, which
/// must be a key of the report that the table does not show.
fn accounted(line: &str, shown: &[String], r: &Report) -> usize {
    let parts = line.split_once(": ").expect("a list").1;
    let parts = parts.split("; the JSON").next().unwrap();
    parts
        .split(", ")
        .map(|part| match part.split_once(' ') {
            Some((count, _)) if count.bytes().all(|b| b.is_ascii_digit()) => {
                count.parse::<usize>().unwrap()
            }
            _ => {
                assert!(r.block.metrics.get(part).is_some(), "'{part}' is no key");
                assert!(!shown.iter().any(|s| s == part), "'{part}' is shown");
                1
            }
        })
        .sum()
}

/// The default table shows a key as a row or counts it in the line that
/// says what `--all` adds; the full table shows every key.
#[test]
fn tables_show_every_key_or_count_it() {
    let r = report();
    let n = r.config.n;
    for tau_asked in [false, true] {
        let view = View {
            all: false,
            tau_asked,
        };
        let shown: Vec<String> = layout(&r.block, view, n)
            .into_iter()
            .skip(1)
            .map(|row| row[0].clone())
            .collect();
        let hidden = r.block.metrics.len() - shown.len();
        let line = rollstat_render::hidden_summary(&r.block, n, view, Some(&words()));
        match line {
            Some(text) => {
                assert!(text.contains(&format!("adds {hidden} more: ")), "{text}");
                assert_eq!(accounted(&text, &shown, &r), hidden, "{text}");
            }
            None => assert_eq!(hidden, 0),
        }
        for style in [Style::Terminal, Style::Markdown] {
            let text = render(&r, style, view, &words());
            for name in &shown {
                assert!(text.contains(name.as_str()), "{name} not in a table");
            }
        }
    }
    let all = View {
        all: true,
        tau_asked: false,
    };
    let rows = layout(&r.block, all, n);
    let names: Vec<&str> = rows.iter().skip(1).map(|row| row[0].as_str()).collect();
    let keys: Vec<&str> = r.block.metrics.iter().map(|(k, _)| k.as_str()).collect();
    assert_eq!(names, keys);
}

/// The HTML page lists every metric (the headline table and, folded, the
/// full one) and every metric without a value.
#[test]
fn the_html_page_shows_every_key() {
    let r = report();
    let page = html::render(
        &r,
        View {
            all: false,
            tau_asked: false,
        },
        &words(),
    );
    let names = r.block.metrics.iter().map(|(k, _)| k);
    for name in names.chain(r.block.not_computable.iter().map(|(k, _)| k)) {
        assert!(page.contains(name.as_str()), "{name} not on the page");
    }
}

/// compare gives every compared family a row (with a verdict exactly when
/// the catalogue says so), and leaves out only what the catalogue says it
/// leaves out.
#[test]
fn compare_has_a_row_for_every_compared_key() {
    let r = report();
    let mut o = CompareOptions::default();
    o.metrics.tau = vec![0.5, 1.0];
    o.intervals.resamples = 200;
    o.margin = Some(0.05);
    let c = rollstat::compare(&[source("a.jsonl", 0), source("b.jsonl", 1)], &o)
        .expect("fixture compares");
    let overall: Vec<_> = c
        .rows
        .iter()
        .filter(|row| row.group.is_none() && row.budget_matched.is_none())
        .collect();
    for (name, _) in r.block.metrics.iter() {
        let spec = key(name).spec();
        let row = overall.iter().find(|row| row.metric == *name);
        match (spec.compared, row) {
            (Compared::NotCompared(why), None) => assert!(!why.is_empty()),
            (Compared::NotCompared(_), Some(_)) => panic!("{name}: a row the catalogue rules out"),
            (_, None) => assert!(
                c.not_computable.iter().any(|m| m.metric == *name),
                "{name}: no row and no reason"
            ),
            (Compared::WithVerdict, Some(row)) => assert!(row.verdict.is_some(), "{name}"),
            (Compared::WithoutVerdict, Some(row)) => assert!(row.verdict.is_none(), "{name}"),
        }
    }
    // The full table (`all`) prints every row; the default one the rows
    // the report's table would show, and a line on the rest.
    let all = View {
        all: true,
        tau_asked: false,
    };
    let table = rollstat_render::compare::render_text(&c, false, &words(), all);
    for row in &overall {
        assert!(
            table.contains(row.metric.as_str()),
            "{} not in compare's full table",
            row.metric
        );
    }
    let headline = View {
        all: false,
        tau_asked: false,
    };
    let table = rollstat_render::compare::render_text(&c, false, &words(), headline);
    let cells: Vec<&str> = table
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    for row in &overall {
        let shown = headline.shows_key(&row.metric, row.same_as.is_some());
        assert_eq!(
            cells.contains(&row.metric.as_str()),
            shown,
            "{}",
            row.metric
        );
    }
}
