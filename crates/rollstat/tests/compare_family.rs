//! Holm and BH over a declared family of primary metrics: the default
//! family (one overall row per metric family at its headline k), a named
//! one, and the names refused. Expected p-values are computed here by hand
//! from the rows' raw p-values, independently of `rollstat_stats`.

use rollstat::{compare, CompareOptions, Comparison, Error, Source};

fn demo(name: &str) -> Source {
    Source::from(&format!(
        "{}/../../examples/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
}

fn opts() -> CompareOptions {
    let mut o = CompareOptions::default();
    o.intervals.resamples = 400;
    o.margin = Some(0.05);
    o
}

fn run(o: &CompareOptions) -> rollstat::Result<Comparison> {
    compare(&[demo("demo.jsonl"), demo("demo-b.jsonl")], o)
}

/// Holm's step-down by hand: sort ascending, p_(i) × (m − i + 1) for the
/// 1-based rank i, the running maximum, capped at 1.
fn holm(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut out = vec![0.0; m];
    let mut running = 0.0f64;
    for (rank, &i) in order.iter().enumerate() {
        running = running.max(((m - rank) as f64 * p[i]).min(1.0));
        out[i] = running;
    }
    out
}

/// Benjamini–Hochberg by hand: p_(i) × m / i, the running minimum from
/// the largest p down, capped at 1.
fn bh(p: &[f64]) -> Vec<f64> {
    let m = p.len();
    let mut order: Vec<usize> = (0..m).collect();
    order.sort_by(|&i, &j| p[i].total_cmp(&p[j]));
    let mut out = vec![0.0; m];
    let mut running = 1.0f64;
    for (rank, &i) in order.iter().enumerate().rev() {
        running = running.min(p[i] * m as f64 / (rank + 1) as f64);
        out[i] = running;
    }
    out
}

fn row<'a>(c: &'a Comparison, metric: &str) -> &'a rollstat::CompareRow {
    c.rows
        .iter()
        .find(|r| r.group.is_none() && r.metric == metric)
        .unwrap_or_else(|| panic!("no row {metric}"))
}

/// Only the family's rows carry adjusted p-values, and they are Holm and
/// BH over the family's raw p-values alone.
fn assert_adjusted_over(c: &Comparison, family: &[&str]) {
    let raw: Vec<f64> = family
        .iter()
        .map(|m| row(c, m).p_value.expect("a p-value"))
        .collect();
    let (h, b) = (holm(&raw), bh(&raw));
    for (i, m) in family.iter().enumerate() {
        let r = row(c, m);
        assert!(r.in_family, "{m}");
        assert!((r.p_holm.unwrap() - h[i]).abs() < 1e-12, "{m} holm");
        assert!((r.p_bh.unwrap() - b[i]).abs() < 1e-12, "{m} bh");
    }
    for r in c
        .rows
        .iter()
        .filter(|r| !family.contains(&r.metric.as_str()))
    {
        assert!(!r.in_family, "{} is not in the family", r.metric);
        assert_eq!((r.p_holm, r.p_bh), (None, None), "{}", r.metric);
    }
}

/// The demo (n = 8, answers): pass@1 at the smallest k, pass^8 and maj@8
/// at the largest; no prefix, G-Pass or self-consistency row. Raw p (exact
/// sign flips on 6 problems): pass@1 1/4, pass^8 1, maj@8 1 → Holm
/// 3·¼ = ¾, then 1, 1; BH: 1, min(1, 3/2) = 1, min(1, ¾) = ¾.
#[test]
fn default_family_is_one_row_per_family_at_its_headline_k() {
    let c = run(&opts()).unwrap();
    let family = ["pass@1", "pass^8", "maj@8"];
    let s = c.summary.as_ref().expect("a summary");
    assert_eq!(s.family, family);
    assert!(s.default_family);
    assert_eq!(s.primary.as_deref(), Some("pass@1"));
    assert_eq!(row(&c, "pass@1").p_value, Some(0.25));
    assert_adjusted_over(&c, &family);
    assert_eq!(row(&c, "pass@1").p_holm, Some(0.75));
    assert_eq!(row(&c, "pass@1").p_bh, Some(0.75));
    assert_eq!((s.significant_holm, s.significant_bh), (0, 0));
    let v = s.verdicts.expect("a margin");
    // pass^8 and maj@8 are 0/1 per problem on both sides: their interval
    // is Tango's score interval from the discordant counts, and 6 problems
    // cannot show a drop under 5 points (the bootstrap over problems
    // collapsed to a point and called them non-inferior).
    assert_eq!(
        (v.non_inferior, v.inferior, v.inconclusive),
        (1, 0, 2),
        "pass@1 is non-inferior at 5 points; the 0/1 rows are inconclusive"
    );
    for m in ["pass^8", "maj@8"] {
        let r = row(&c, m);
        assert_eq!(r.interval_method.as_deref(), Some("tango-score"), "{m}");
        let d = r.mcnemar.expect("0/1 rows have discordant counts");
        let want = rollstat_stats::tango_paired_interval(d.b_only, d.a_only, 6, 0.90).unwrap();
        let got = r.bounds.unwrap();
        assert_eq!((got.lower, got.upper), (want.lower, want.upper), "{m}");
    }
    assert_eq!(row(&c, "pass@1").interval_method, None);
    assert!(
        c.config
            .p_adjust
            .contains("headline k): pass@1, pass^8, maj@8;"),
        "{}",
        c.config.p_adjust
    );
    assert!(c
        .rows
        .iter()
        .filter(|r| r.in_family)
        .all(|r| r.same_as.is_none()));
}

/// A named family, in the order named: maj@2 and maj@4 have p = 1/16,
/// pass@1 1/4 → Holm 3·1/16 = 3/16, max(3/16, 2·1/16) = 3/16, 1·¼ = ¼;
/// BH ¼·3/3 = ¼, then min(¼, 1/16·3/2) = 3/32 for both maj rows.
#[test]
fn named_family_is_adjusted_alone() {
    let mut o = opts();
    o.family = Some(vec!["pass@1".into(), "maj@2".into(), "maj@4".into()]);
    let c = run(&o).unwrap();
    assert_adjusted_over(&c, &["pass@1", "maj@2", "maj@4"]);
    assert_eq!(row(&c, "maj@2").p_holm, Some(0.1875));
    assert_eq!(row(&c, "pass@1").p_holm, Some(0.25));
    assert_eq!(row(&c, "maj@4").p_bh, Some(0.09375));
    let s = c.summary.unwrap();
    assert!(!s.default_family);
    assert_eq!(s.primary.as_deref(), Some("pass@1"));
    assert!(c.config.p_adjust.contains("the family named"));
}

#[test]
fn unknown_family_names_are_refused_with_the_rows_that_exist() {
    let mut o = opts();
    o.family = Some(vec!["pass@1".into(), "pass@3".into()]);
    match run(&o) {
        Err(Error::InvalidOption { option, message }) => {
            assert_eq!(option.0, "family");
            assert!(message.contains("no row named 'pass@3'"), "{message}");
            assert!(message.contains("rows: pass@1, pass@2"), "{message}");
        }
        other => panic!("expected an invalid family, got {other:?}"),
    }
}

#[test]
fn a_row_equal_to_another_by_definition_cannot_enter() {
    let mut o = opts();
    o.family = Some(vec!["g-pass@2_0.25".into()]);
    let e = run(&o).unwrap_err().to_string();
    assert!(
        e.contains("'g-pass@2_0.25' is 'pass@2' by definition"),
        "{e}"
    );
    o.family = Some(vec![]);
    let e = run(&o).unwrap_err().to_string();
    assert!(e.contains("names no metric"), "{e}");
}

/// `in_family` and `summary` are additive: they survive a round trip, and
/// a document written before them still reads (no family, no summary).
#[test]
fn family_fields_round_trip_and_old_documents_read() {
    let c = run(&opts()).unwrap();
    let text = serde_json::to_string(&c).unwrap();
    let back: Comparison = serde_json::from_str(&text).unwrap();
    assert_eq!(back.summary, c.summary);
    let mut old: serde_json::Value = serde_json::from_str(&text).unwrap();
    old.as_object_mut().unwrap().remove("summary");
    for r in old["rows"].as_array_mut().unwrap() {
        r.as_object_mut().unwrap().remove("in_family");
    }
    let read: Comparison = serde_json::from_value(old).unwrap();
    assert!(read.summary.is_none());
    assert!(read.rows.iter().all(|r| !r.in_family));
}
