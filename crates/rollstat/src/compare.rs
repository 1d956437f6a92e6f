//! [`compare()`]: paired comparison of two systems on the same problems
//! (docs/spec.md §7, schema `rollstat.compare/1`).
//!
//! read both sides through the report's population path (the same grading,
//! junk rule and clustering) → pair problems by (subset, id) → the report's metric
//! columns on the matched problems → per-problem differences `d = b − a` →
//! one bootstrap over all difference columns (the same resampled problems,
//! or clusters, for every metric and both sides) → paired SE, correlation,
//! sign-flip p, McNemar where each problem has one 0/1 outcome per side →
//! Holm and BH over the family of primary metrics (named, or one overall
//! row per family at its headline k) → non-inferiority verdicts from
//! one-sided bounds → the family's tally ([`CompareSummary`]). The conventions are written up in `docs/compare.md`.

use crate::budget_match::{matched_columns, BudgetMatch};
use crate::document::InputInfo;
use crate::error::{Error, Result};
use crate::findings::{Finding, SideLabel};
use crate::intervals::{cluster_ids, distinct_count, main_reason, method_advice};
use crate::options::{CompareOptions, FailOn, IntervalMethod};
use crate::population::{group_indices, read_population, requested_n, Summarized};
use crate::read::Source;
use crate::report::check_short;
use rayon::prelude::*;
use rollstat_core::aggregate::{default_ks, ColumnBuilder, Metric, MetricColumn, PointSummary};
use rollstat_core::catalogue::{Compared, Family, MetricKey, Primary};
use rollstat_core::summary::{DenominatorPolicy, ProblemSummary};
use rollstat_core::vote::TiePolicy;
use rollstat_io::{CollectedProblem, ReadOptions};
use rollstat_stats::{
    adjust_p_values, bootstrap_means, cluster_bootstrap_means, non_inferiority_verdict, paired_row,
    rng, sign_flip, BootstrapConfig, BootstrapReport, CiMethod, Interval, MethodContext,
    NonInferiorityVerdict, PAdjust, PairedRow,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt::Write as _;

/// JSON schema name of the compare output.
pub const COMPARE_SCHEMA: &str = "rollstat.compare/1";

/// The `rollstat.compare/1` document.
///
/// Keys: `schema`, `version`, `margin`, `level`, `pairs` {`matched`,
/// `only_a`, `only_b`}, `rows` (one per metric overall, then with a
/// budget field budget-matched `pass@k` (and `maj@k`, `bon@k`) rows per k carrying
/// `budget_matched` {`k_a`, `k_b`, `budget`}, then per group; see [`Row`]),
/// `a` / `b` {`name`, `inputs`, `n_problems`}, `config` (see
/// [`CompareConfig`]), `not_computable` [{`metric`, `group`, `reason`}],
/// `fail` (the verdict check, or null), `summary` (the family's tally, see
/// [`CompareSummary`]), `noise` (run-to-run noise of the two sides, see
/// [`crate::RunNoise`]; absent without two rollouts a side), `warnings`
/// (findings in words),
/// `findings` (the same findings typed: `kind`, the finding's fields and
/// `text`; see [`crate::findings`]).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(into = "ComparisonWire", from = "ComparisonWire")]
pub struct Comparison {
    /// `rollstat.compare/1` ([`COMPARE_SCHEMA`]).
    pub schema: String,
    /// The rollstat version that wrote the document.
    pub version: String,
    /// The non-inferiority margin (the `margin` option, a fraction: 0.02 =
    /// 2 points); null without one, and then no row has a verdict.
    pub margin: Option<f64>,
    /// Two-sided level of every row's `ci`, and the one-sided level of its
    /// `bounds`.
    pub level: f64,
    /// How the problems of A and B paired up.
    pub pairs: Pairs,
    /// One row per metric overall (every metric of a report except
    /// `distinct_answers`), then, with a group field, one per group and
    /// metric.
    pub rows: Vec<Row>,
    /// System A, the baseline (not the rows' numeric `a`).
    pub a: Side,
    /// System B, the candidate (not the rows' numeric `b`).
    pub b: Side,
    /// Settings behind the numbers.
    pub config: CompareConfig,
    /// Metrics (per group) for which no row could be computed.
    pub not_computable: Vec<NotComputable>,
    /// The verdict check when the `fail_on` option is set; null otherwise.
    pub fail: Option<FailCheck>,
    /// The family of primary metrics in numbers: what the one-line summary
    /// above the verdicts says. `None` only in a document written before
    /// it existed.
    pub summary: Option<CompareSummary>,
    /// Each side's run-to-run noise (flip floors, ICCs) and whether they
    /// differ, on matched problems with two or more rollouts a side; null
    /// without such problems.
    pub noise: Option<crate::compare_noise::RunNoise>,
    /// Findings: on the wire `warnings` (their texts) and `findings`
    /// (typed, see [`crate::findings`]).
    pub warnings: Vec<Finding>,
}

/// [`Comparison`] on the wire: its findings as texts (`warnings`) and
/// typed (`findings`, absent in documents written before it existed).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ComparisonWire {
    schema: String,
    version: String,
    margin: Option<f64>,
    level: f64,
    pairs: Pairs,
    rows: Vec<Row>,
    a: Side,
    b: Side,
    config: CompareConfig,
    not_computable: Vec<NotComputable>,
    fail: Option<FailCheck>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    summary: Option<CompareSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    noise: Option<crate::compare_noise::RunNoise>,
    warnings: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    findings: Option<Vec<crate::findings::Entry>>,
}

impl From<Comparison> for ComparisonWire {
    fn from(c: Comparison) -> ComparisonWire {
        let (warnings, findings) = crate::findings::to_wire(&c.warnings);
        ComparisonWire {
            schema: c.schema,
            version: c.version,
            margin: c.margin,
            level: c.level,
            pairs: c.pairs,
            rows: c.rows,
            a: c.a,
            b: c.b,
            config: c.config,
            not_computable: c.not_computable,
            fail: c.fail,
            summary: c.summary,
            noise: c.noise,
            warnings,
            findings,
        }
    }
}

impl From<ComparisonWire> for Comparison {
    fn from(w: ComparisonWire) -> Comparison {
        Comparison {
            schema: w.schema,
            version: w.version,
            margin: w.margin,
            level: w.level,
            pairs: w.pairs,
            rows: w.rows,
            a: w.a,
            b: w.b,
            config: w.config,
            not_computable: w.not_computable,
            fail: w.fail,
            summary: w.summary,
            noise: w.noise,
            warnings: crate::findings::from_wire(w.warnings, w.findings),
        }
    }
}

/// How the problems of A and B paired up.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Pairs {
    /// Problems (by `problem` id) that both sides have; every row is over
    /// these or a subset of them.
    pub matched: u64,
    /// Problems only A has; left out of every number.
    pub only_a: u64,
    /// Problems only B has; left out of every number.
    pub only_b: u64,
}

/// One compared system.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Side {
    /// The input's name (with its system, when its rows name one), or
    /// `field = value` for a system picked out of one input.
    pub name: String,
    /// The inputs read for this side (one input holding both systems is
    /// listed on both).
    pub inputs: Vec<InputInfo>,
    /// Problems read for this side (matched or not).
    pub n_problems: u64,
    /// Answer comparisons of this side's reading that the grader's per-pair
    /// work limit left undecided (as a report's `health.n_grading_undecided`;
    /// one input holding both systems counts them once, on A).
    #[serde(default)]
    pub n_grading_undecided: u64,
}

/// A metric without a row.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct NotComputable {
    /// The metric's name.
    pub metric: String,
    /// The group value; null for the overall rows.
    pub group: Option<String>,
    /// Why, in words: no problem has a value on both sides; names a side
    /// without values and its most frequent exclusion reason.
    pub reason: String,
}

/// Settings behind the numbers.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompareConfig {
    /// The interval method of `ci`: `none`, `bootstrap`, `bca`, `basic`
    /// (`cluster-` prefixed when clustered), `t`, or `t (CR1, C−1 df)` when
    /// clustered.
    pub method: String,
    /// Two-sided level of `ci`.
    pub level: f64,
    /// Bootstrap resamples; null when nothing is resampled (`t`, `none`).
    pub resamples: Option<u64>,
    /// Seed of the bootstrap streams and of the random sign flips.
    pub seed: u64,
    /// Random-stream scheme (`xoshiro256++/splitmix64-stream-v1`).
    pub rng: String,
    /// Random sign-flip permutations R (every pattern is enumerated when
    /// 2^m ≤ R for m nonzero differences, m ≤ 20).
    pub permutations: u64,
    /// Field whose values cluster problems (a matched problem takes A's
    /// value, else B's); null without clustering.
    pub cluster_by: Option<String>,
    /// Requested rollouts per problem: the `n` option, else the largest n
    /// among the matched problems of either side.
    pub n: u64,
    /// Where `n` came from: `--n` or `largest n seen`.
    pub n_source: String,
    /// Draw sizes k (as for a report).
    pub k: Vec<u64>,
    /// G-Pass thresholds τ, as given.
    pub tau: Vec<f64>,
    /// maj@n tie policy: `first`, `none` or `fractional`.
    pub tie_policy: TiePolicy,
    /// `requested` or `judged` (as for a report).
    pub denominator_policy: DenominatorPolicy,
    /// One input: the field that tells the two systems apart; null with
    /// two inputs.
    pub by: Option<String>,
    /// Two inputs: the field of the per-group rows; null without groups.
    pub group_by: Option<String>,
    /// Level of the one-sided bounds the verdicts use (equal to `level`);
    /// null without a margin.
    pub verdict_level: Option<f64>,
    /// How `p_holm` and `p_bh` were adjusted, in words.
    pub p_adjust: String,
    /// Why the answer metrics (maj@k, wmaj@n, `self_consistency`) have no
    /// rows (as for a report: no extracted answer on either side, or
    /// n = 1); absent when they were compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer_metrics_left_out: Option<crate::AnswerMetricsLeftOut>,
}

/// The verdict check.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FailCheck {
    /// `inferior` or `inconclusive`.
    pub on: String,
    /// The metrics the check covers (the `metric` option); null: every
    /// overall row with a verdict.
    pub metrics: Option<Vec<String>>,
    /// Whether any checked row hit the condition (`rows` is not empty).
    pub failed: bool,
    /// Checked rows that hit the condition (a budget-matched row as
    /// `pass@1 (budget-matched)`).
    pub rows: Vec<String>,
}

/// The family of primary metrics in numbers (the front ends word it as one
/// line above the verdicts).
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{compare, CompareOptions, Source};
/// let side = |name: &str, cs: &[u64]| Source::Rows {
///     name: name.into(),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 4, c, ..Default::default() }))
///         .collect(),
/// };
/// let mut o = CompareOptions::default();
/// o.metrics.k = Some(vec![1, 4]);
/// o.intervals.resamples = 200;
/// o.margin = Some(0.05);
/// let c = compare(&[side("A", &[1, 2, 3, 0]), side("B", &[2, 2, 4, 1])], &o).unwrap();
/// let s = c.summary.unwrap();
/// // No answers, so no maj@k: pass@1 and pass^4 (pass^n) by default.
/// assert_eq!(s.family, ["pass@1", "pass^4"]);
/// assert_eq!(s.primary.as_deref(), Some("pass@1"));
/// assert_eq!(s.alpha, 0.05);
/// let in_family: Vec<&str> = c.rows.iter().filter(|r| r.in_family).map(|r| r.metric.as_str()).collect();
/// assert_eq!(in_family, s.family);
/// assert!(c.rows.iter().all(|r| r.p_holm.is_some() == r.in_family));
/// ```
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CompareSummary {
    /// The family's rows (overall metrics), in order: the named ones, or
    /// the default family in row order. Every such row has `in_family`.
    pub family: Vec<String>,
    /// Whether `family` is the default one (not named by the caller).
    pub default_family: bool,
    /// The headline: the family's first row (pass@1 by default); null
    /// when the family is empty.
    pub primary: Option<String>,
    /// Significance level of the counts: 1 − `level`.
    pub alpha: f64,
    /// Family rows with `p_holm` ≤ `alpha`.
    pub significant_holm: u64,
    /// Family rows with `p_bh` ≤ `alpha`.
    pub significant_bh: u64,
    /// The family rows' verdicts, counted; null without a margin.
    pub verdicts: Option<VerdictCounts>,
}

/// Verdicts counted.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct VerdictCounts {
    /// Rows shown no worse than A by more than the margin.
    pub non_inferior: u64,
    /// Rows shown worse than A by more than the margin.
    pub inferior: u64,
    /// Rows the data cannot decide.
    pub inconclusive: u64,
}

/// Discordant pairs of a 0/1 metric.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Discordant {
    /// Problems where A scored 1 and B 0.
    pub a_only: u64,
    /// Problems where B scored 1 and A 0.
    pub b_only: u64,
}

/// One metric (overall, or within one group).
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// The metric's name, as in a report (`pass@1`, `maj@8`, …).
    pub metric: String,
    /// Null for an overall row; else A's value of the group field
    /// (`(none)` for problems without one).
    pub group: Option<String>,
    /// A's mean over the row's `n_problems` problems.
    pub a: f64,
    /// B's mean over the row's `n_problems` problems.
    pub b: f64,
    /// B − A.
    pub delta: f64,
    /// Paired SE of delta (CR1 with clusters).
    pub stderr: Option<f64>,
    /// Two-sided interval of delta at `level` (paired bootstrap over
    /// problems or clusters, or t; Tango's score interval on rows 0/1 per
    /// problem, see `interval_method`); null with method `none`, too few
    /// problems, or a non-finite bound.
    #[serde(with = "crate::document::bounds_pair")]
    pub ci: Option<Interval>,
    /// Pearson correlation of A's and B's per-problem values; null when a
    /// side is constant.
    pub correlation: Option<f64>,
    /// Two-sided sign-flip permutation p (whole clusters flip when
    /// clustered); null below 2 problems.
    pub p_value: Option<f64>,
    /// `p_value` Holm-adjusted over the family's rows with a p-value (see
    /// `in_family`); null on every other row.
    pub p_holm: Option<f64>,
    /// `p_value` Benjamini–Hochberg-adjusted over the same rows as
    /// `p_holm`; null on every other row.
    pub p_bh: Option<f64>,
    /// McNemar's exact p; null unless every per-problem value on both sides
    /// is 0 or 1.
    pub mcnemar_p: Option<f64>,
    /// `non-inferior`, `inferior` or `inconclusive` (with a margin).
    pub verdict: Option<NonInferiorityVerdict>,
    /// Problems in this row (both sides defined).
    pub n_problems: u64,
    /// sqrt(SE_a² + SE_b²): what the SE would be ignoring the pairing.
    pub stderr_unpaired: Option<f64>,
    /// Whether `p_value` enumerated every sign pattern.
    pub p_exact: Option<bool>,
    /// The discordant counts behind `mcnemar_p` (null when it is).
    pub mcnemar: Option<Discordant>,
    /// One-sided lower and upper bounds of delta at `config.verdict_level`
    /// (`[lower, upper]` on the wire).
    #[serde(with = "crate::document::bounds_pair")]
    pub bounds: Option<Interval>,
    /// The verdict in words.
    pub decision: Option<String>,
    /// `tango-score` when `ci` and `bounds` are Tango's score interval for
    /// paired proportions (every problem's value 0/1 on both sides, no
    /// clusters); absent when they are the configured method's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interval_method: Option<String>,
    /// Whether the row is in the family of primary metrics that `p_holm`
    /// and `p_bh` adjust over (`config.p_adjust` says which); false in a
    /// document written before it existed.
    #[serde(default)]
    pub in_family: bool,
    /// The metric of another row (same group) this row is by definition
    /// (`g-pass@4_0.25` is `pass@4`); absent when none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub same_as: Option<String>,
    /// A budget-matched row: A evaluated at the budget B spends at `k_b`
    /// (`a` is A's pass at `k_a` draws); absent on the same-k rows.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_matched: Option<BudgetMatch>,
    /// Every problem's (A, B) values behind the row, in the order problems
    /// paired up — for the A-vs-B scatter of the HTML page. Filled on
    /// overall same-k rows whose values are not all 0/1 (0/1 rows have
    /// the discordant counts in `mcnemar`); empty elsewhere. Not in
    /// compare.json (docs/spec.md §6): it would grow the document by every
    /// problem for every metric, and each side's report with per-problem
    /// values already has them.
    #[serde(skip)]
    pub per_problem: Vec<(f64, f64)>,
}

// ---------------------------------------------------------------- reading

/// One side's problems and their summaries (index-aligned).
pub(crate) struct SideData {
    pub(crate) name: String,
    pub(crate) inputs: Vec<InputInfo>,
    pub(crate) problems: Vec<CollectedProblem>,
    /// The problems' text origins (shared by the two sides of one input).
    pub(crate) origin_texts: std::sync::Arc<Vec<String>>,
    pub(crate) summaries: Vec<ProblemSummary>,
    pub(crate) n_bad_lines: usize,
    pub(crate) n_undecided: u64,
}

impl SideData {
    /// Where a problem of the side was first seen.
    pub(crate) fn origin(&self, p: &CollectedProblem) -> String {
        p.origin.show(&self.inputs, &self.origin_texts)
    }
}

pub(crate) fn read_options(o: &CompareOptions, by: Option<String>) -> ReadOptions {
    ReadOptions {
        by,
        strict: o.metrics.strict,
        dedupe: o.metrics.dedupe,
        cluster_by: o.intervals.cluster_by.clone(),
        budget: match &o.metrics.budget {
            crate::Budget::Field(f) => Some(f.clone()),
            _ => None,
        },
        bytes_read: None,
        field_map: o.field_map.clone(),
    }
}

pub(crate) fn read(
    sources: &[Source],
    read: &ReadOptions,
    o: &CompareOptions,
) -> Result<Summarized> {
    read_population(
        sources,
        read,
        o.source_format,
        &o.grading,
        (o.metrics.denominator, o.metrics.tie_policy),
        o.metrics.decompress_limit,
        o.messages.as_ref(),
    )
}

/// Two sources, one system each.
pub(crate) fn read_two(a: &Source, b: &Source, o: &CompareOptions) -> Result<(SideData, SideData)> {
    let ro = read_options(o, o.group_by.clone());
    let mut out = Vec::new();
    crate::read::check_map_has_files([a, b], o.field_map.as_ref())?;
    for (label, src) in [("A", a), ("B", b)] {
        let side = std::slice::from_ref(src);
        let ro = crate::read::side_options(side, &ro);
        let s = read(side, &ro, o).map_err(|e| side_error(label, src, e))?;
        let c = s.inputs.collected;
        let path = src.name();
        if c.systems.len() > 1 {
            return Err(Error::input(format!(
                "{label} ({path}) holds {} systems ({}); give one system per input, or one input with the systems told apart by a field",
                c.systems.len(),
                c.systems.join(", ")
            )));
        }
        out.push(SideData {
            name: match c.systems.first() {
                Some(sys) => format!("{path} ({sys})"),
                None => path,
            },
            inputs: c.inputs,
            problems: c.problems,
            origin_texts: std::sync::Arc::new(c.origin_texts),
            summaries: s.summaries,
            n_bad_lines: c.bad_lines.len(),
            n_undecided: s.n_undecided,
        });
    }
    let b = out.pop().expect("two sides");
    let a = out.pop().expect("two sides");
    Ok((a, b))
}

fn side_error(label: &str, src: &Source, e: Error) -> Error {
    match e {
        Error::InvalidOption { .. } => e,
        other => Error::Side {
            side: label.to_string(),
            name: src.name(),
            error: Box::new(other),
        },
    }
}

/// The values of `field` seen, in order.
fn values_seen(problems: &[CollectedProblem]) -> Vec<String> {
    let mut values: Vec<String> = Vec::new();
    for p in problems {
        if let Some(v) = p.by_value() {
            if !values.iter().any(|seen| seen == v) {
                values.push(v.to_string());
            }
        }
    }
    values
}

/// System `idx` (0 = A) of one input: the given name, or the one left.
fn pick_system(
    values: &[String],
    field: &str,
    given: Option<&String>,
    idx: usize,
    other: Option<&String>,
) -> Result<String> {
    let option = if idx == 0 { "a" } else { "b" };
    if let Some(g) = given {
        if !values.contains(g) {
            return Err(Error::invalid(
                option,
                format!(
                    "no rows have {field} = '{g}' (values seen: {})",
                    values.join(", ")
                ),
            ));
        }
        return Ok(g.clone());
    }
    if values.len() == 2 {
        return Ok(values[idx].clone());
    }
    let rest: Vec<&String> = values.iter().filter(|v| Some(*v) != other).collect();
    match (values.len(), rest.len()) {
        (n, 1) if n == 2 || other.is_some() => Ok(rest[0].clone()),
        _ => Err(Error::invalid(
            option,
            format!(
                "the input holds {} values of {field} ({}); name the two systems",
                values.len(),
                values.join(", ")
            ),
        )),
    }
}

/// One source holding both systems, told apart by `o.by`.
fn read_one(src: &Source, o: &CompareOptions) -> Result<(SideData, SideData)> {
    let field = o.by.clone().expect("checked by caller");
    let s = read(
        std::slice::from_ref(src),
        &read_options(o, Some(field.clone())),
        o,
    )?;
    let mut c = s.inputs.collected;
    let values = values_seen(&c.problems);
    let an = pick_system(&values, &field, o.a.as_ref(), 0, o.b.as_ref())?;
    let bn = pick_system(&values, &field, o.b.as_ref(), 1, Some(&an))?;
    if an == bn {
        return Err(Error::invalid("b", format!("A and B both name '{an}'")));
    }
    let origin_texts = std::sync::Arc::new(std::mem::take(&mut c.origin_texts));
    let side = |name: &str, (n_bad_lines, n_undecided): (usize, u64)| {
        let keep: Vec<usize> = (0..c.problems.len())
            .filter(|&i| c.problems[i].by_value() == Some(name))
            .collect();
        SideData {
            name: format!("{field} = {name}"),
            inputs: c.inputs.clone(),
            problems: keep.iter().map(|&i| c.problems[i].clone()).collect(),
            origin_texts: origin_texts.clone(),
            summaries: keep.iter().map(|&i| s.summaries[i].clone()).collect(),
            n_bad_lines,
            n_undecided,
        }
    };
    // Bad rows and undecided gradings of the one input are counted once, on A.
    let a = side(&an, (c.bad_lines.len(), s.n_undecided));
    Ok((a, side(&bn, (0, 0))))
}

/// A problem's identity across the two sides: its subset and id (ids
/// repeat across subsets, as in the report).
type ProblemKey = (Option<String>, String);

fn key_of(p: &CollectedProblem) -> ProblemKey {
    (p.subset().map(str::to_string), p.problem.clone())
}

/// The name of a problem in messages: `subset/id`, or the id.
pub(crate) fn shown(p: &CollectedProblem) -> String {
    match p.subset() {
        Some(s) => format!("{s}/{}", p.problem),
        None => p.problem.clone(),
    }
}

/// Index of each (subset, problem id) on one side; a repeated one is an
/// error.
fn index(side: &SideData, label: &str) -> Result<HashMap<ProblemKey, usize>> {
    let mut map = HashMap::new();
    for (i, p) in side.problems.iter().enumerate() {
        if let Some(j) = map.insert(key_of(p), i) {
            let first = &side.problems[j];
            return Err(Error::input(format!(
                "{label}: problem '{}' appears twice (at {} as system {:?}, at {} as system {:?}); one side must hold one system — tell the runs apart by a field, or split the input",
                shown(p), side.origin(first), first.system(), side.origin(p), p.system()
            )));
        }
    }
    Ok(map)
}

// ---------------------------------------------------------------- statistics

/// What the intervals and verdicts are computed with.
#[derive(Clone, Copy)]
pub(crate) struct Plan {
    pub(crate) method: Option<CiMethod>,
    pub(crate) level: f64,
    pub(crate) margin: Option<f64>,
    pub(crate) boot: BootstrapConfig,
    pub(crate) permutations: usize,
}

fn finite_pair(i: Interval) -> Option<Interval> {
    (i.lower.is_finite() && i.upper.is_finite()).then_some(i)
}

pub(crate) struct Population<'a> {
    pub(crate) group: Option<String>,
    pub(crate) a: Vec<&'a ProblemSummary>,
    pub(crate) b: Vec<&'a ProblemSummary>,
    pub(crate) clusters: Option<Vec<u64>>,
    /// The ks of the budget-matched rows, when budgets are matched.
    pub(crate) budget_ks: Option<&'a [u64]>,
}

/// Both sides' columns of every metric and their differences; the
/// budget-matched columns follow the metrics' (`matched` is `Some` there).
struct Columns {
    cols: Vec<(MetricColumn, MetricColumn)>,
    diffs: Vec<Vec<f64>>,
    matched: Vec<Option<BudgetMatch>>,
}

fn differences(ca: &MetricColumn, cb: &MetricColumn) -> Vec<f64> {
    ca.values
        .iter()
        .zip(&cb.values)
        .map(|(x, y)| y - x)
        .collect()
}

fn columns(pop: &Population, metrics: &[Metric], tie: TiePolicy) -> Columns {
    let sa: Vec<ProblemSummary> = pop.a.iter().map(|p| (*p).clone()).collect();
    let sb: Vec<ProblemSummary> = pop.b.iter().map(|p| (*p).clone()).collect();
    let (ba, bb) = (
        ColumnBuilder::new(&sa, tie).with_metrics(metrics),
        ColumnBuilder::new(&sb, tie).with_metrics(metrics),
    );
    let cols: Vec<(MetricColumn, MetricColumn)> = metrics
        .par_iter()
        .map(|m| (ba.build(m.clone()), bb.build(m.clone())))
        .collect();
    let mut c = Columns {
        diffs: cols.iter().map(|(ca, cb)| differences(ca, cb)).collect(),
        matched: vec![None; cols.len()],
        cols,
    };
    for m in matched_columns((&sa, &sb), metrics, pop.budget_ks.unwrap_or(&[]), tie) {
        c.diffs.push(differences(&m.a, &m.b));
        c.matched.push(Some(m.matched));
        c.cols.push((m.a, m.b));
    }
    c
}

/// One bootstrap for every difference column with ≥ 2 values: the same
/// resampled problems (or clusters) for all metrics and both sides.
fn bootstrap(
    c: &Columns,
    clusters: Option<&[u64]>,
    plan: &Plan,
) -> (Vec<usize>, Option<BootstrapReport>) {
    let usable: Vec<usize> = (0..c.diffs.len())
        .filter(|&m| c.diffs[m].iter().filter(|v| !v.is_nan()).count() >= 2)
        .collect();
    let boot = match plan.method {
        Some(m) if m != CiMethod::T && !usable.is_empty() => {
            let slices: Vec<&[f64]> = usable.iter().map(|&m| c.diffs[m].as_slice()).collect();
            match clusters {
                Some(cl) => cluster_bootstrap_means(&slices, cl, &plan.boot).ok(),
                None => bootstrap_means(&slices, &plan.boot).ok(),
            }
        }
        _ => None,
    };
    (usable, boot)
}

pub(crate) fn rows_for(
    pop: &Population,
    metrics: &[Metric],
    tie: TiePolicy,
    plan: &Plan,
) -> (Vec<Row>, Vec<NotComputable>) {
    let c = columns(pop, metrics, tie);
    let (usable, boot) = bootstrap(&c, pop.clusters.as_deref(), plan);
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    // Identical difference columns (G-Pass at τ ≤ 1/k is pass@k, …) get
    // the identical sign-flip test: computed once.
    let mut flips: FlipMemo = HashMap::new();
    for mi in 0..c.cols.len() {
        let (ca, cb) = &c.cols[mi];
        let metric = &ca.metric;
        let keep: Vec<usize> = (0..c.diffs[mi].len())
            .filter(|&i| !c.diffs[mi][i].is_nan())
            .collect();
        if keep.is_empty() {
            let (col, side) = if ca.values.iter().all(|v| v.is_nan()) {
                (ca, "A")
            } else {
                (cb, "B")
            };
            let suffix = if c.matched[mi].is_some() {
                " (budget-matched)"
            } else {
                ""
            };
            missing.push(NotComputable {
                metric: format!("{metric}{suffix}"),
                group: pop.group.clone(),
                reason: format!(
                    "no problem has a value on both sides ({side}: {})",
                    main_reason(col)
                ),
            });
            continue;
        }
        let boot_col = usable
            .iter()
            .position(|&u| u == mi)
            .and_then(|j| boot.as_ref().map(|b| &b.columns[j]));
        let mut r = row(pop, metric, (ca, cb), &keep, boot_col, plan, &mut flips);
        r.budget_matched = c.matched[mi];
        if r.budget_matched.is_some() {
            r.per_problem = Vec::new();
        }
        rows.push(r);
    }
    note_identities(&mut rows, metrics);
    (rows, missing)
}

/// Sets `same_as` on the rows (of one population) that are another of its
/// rows by definition.
fn note_identities(rows: &mut [Row], metrics: &[Metric]) {
    let names: Vec<String> = rows.iter().map(|r| r.metric.clone()).collect();
    for (metric, target) in metrics.iter().zip(crate::identities::same_as(metrics)) {
        let Some(target) = target.filter(|t| names.contains(t)) else {
            continue;
        };
        let name = metric.to_string();
        if let Some(r) = rows.iter_mut().find(|r| r.metric == name) {
            r.same_as = Some(target);
        }
    }
}

/// Sign-flip results by the bits of their units.
type FlipMemo = HashMap<Vec<u64>, Option<rollstat_stats::SignFlip>>;

fn row(
    pop: &Population,
    metric: &Metric,
    (ca, cb): (&MetricColumn, &MetricColumn),
    keep: &[usize],
    boot: Option<&rollstat_stats::ColumnBootstrap>,
    plan: &Plan,
    flips: &mut FlipMemo,
) -> Row {
    let va: Vec<f64> = keep.iter().map(|&i| ca.values[i]).collect();
    let vb: Vec<f64> = keep.iter().map(|&i| cb.values[i]).collect();
    let cl: Option<Vec<u64>> = pop
        .clusters
        .as_ref()
        .map(|c| keep.iter().map(|&i| c[i]).collect());
    let s = paired_row(&va, &vb, cl.as_deref());
    let n = keep.len();
    let flip = (n >= 2).then(|| memo_sign_flip(&s, plan, flips)).flatten();
    let score = cl.is_none().then(|| score_intervals(&s, n, plan)).flatten();
    let (ci, bounds) = score.unwrap_or_else(|| row_intervals(&s, boot, plan));
    // Each side's mean as the report computes it (compensated summation),
    // so compare's A column is report(A) to the last bit.
    let mean = |v: &[f64]| PointSummary::of(v.iter().copied()).map_or(f64::NAN, |p| p.mean);
    let per_problem = if pop.group.is_none() && s.mcnemar.is_none() {
        va.iter().copied().zip(vb.iter().copied()).collect()
    } else {
        Vec::new()
    };
    Row {
        metric: metric.to_string(),
        group: pop.group.clone(),
        a: mean(&va),
        b: mean(&vb),
        delta: s.delta,
        stderr: s.se,
        ci,
        correlation: s.correlation,
        p_value: flip.map(|f| f.p),
        p_holm: None,
        p_bh: None,
        mcnemar_p: s.mcnemar.map(|m| m.p_exact),
        verdict: None,
        n_problems: n as u64,
        stderr_unpaired: s.se_unpaired,
        p_exact: flip.map(|f| f.exact),
        mcnemar: s.mcnemar.map(|m| Discordant {
            a_only: m.a_only,
            b_only: m.b_only,
        }),
        bounds: plan.margin.and(bounds),
        decision: None,
        interval_method: score.map(|_| "tango-score".to_string()),
        in_family: false,
        same_as: None,
        budget_matched: None,
        per_problem,
    }
}

/// The sign-flip test of the row's units, once per distinct set of units
/// (rows that are another row by definition have the same).
fn memo_sign_flip(
    s: &PairedRow,
    plan: &Plan,
    flips: &mut FlipMemo,
) -> Option<rollstat_stats::SignFlip> {
    let key: Vec<u64> = s.units.iter().map(|v| v.to_bits()).collect();
    *flips
        .entry(key)
        .or_insert_with(|| sign_flip(&s.units, plan.permutations, plan.boot.seed).ok())
}

/// Tango's score interval of B − A at the plan's level, and its one-sided
/// bounds, in place of a bootstrap interval when every problem's value is
/// 0/1 on both sides: the bootstrap over problems collapses to a point when
/// no problem is discordant, so a verdict would read "non-inferior" from
/// identical sides at any margin. A t interval, asked for by name, stays.
fn score_intervals(
    s: &PairedRow,
    n: usize,
    plan: &Plan,
) -> Option<(Option<Interval>, Option<Interval>)> {
    if matches!(plan.method, None | Some(CiMethod::T)) {
        return None;
    }
    let m = s.mcnemar?;
    let at = |level: f64| {
        rollstat_stats::tango_paired_interval(m.b_only, m.a_only, n as u64, level).ok()
    };
    Some((at(plan.level), at(2.0 * plan.level - 1.0)))
}

/// The two-sided interval of B − A and the one-sided bounds at the same
/// level (the non-inferiority test's), by t or from the bootstrap.
fn row_intervals(
    s: &PairedRow,
    boot: Option<&rollstat_stats::ColumnBootstrap>,
    plan: &Plan,
) -> (Option<Interval>, Option<Interval>) {
    match plan.method {
        None => (None, None),
        Some(CiMethod::T) => (
            s.t_interval(plan.level).and_then(finite_pair),
            s.t_interval(2.0 * plan.level - 1.0).and_then(finite_pair),
        ),
        Some(m) => match boot {
            Some(c) => (
                finite_pair(c.interval(m)),
                c.one_sided_bounds(m, plan.level).ok().and_then(finite_pair),
            ),
            None => (None, None),
        },
    }
}

/// Whether a metric is a correctness score that can be non-inferior: its
/// catalogue entry says (a key outside the catalogue gets one, as before).
fn has_verdict(metric: &str) -> bool {
    metric
        .parse::<MetricKey>()
        .map_or(true, |key| key.spec().compared == Compared::WithVerdict)
}

fn pts(x: f64) -> String {
    format!("{:+.2} pts", 100.0 * x)
}

/// A number with at most 4 decimals and no trailing zeros.
pub fn trim_float(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn decide(row: &mut Row, margin: f64, level: f64) {
    if !has_verdict(&row.metric) {
        return;
    }
    let lvl = format!("{}%", trim_float(100.0 * level));
    let m = format!("{:.2}", -100.0 * margin);
    let Some(bounds) = row.bounds else {
        row.verdict = Some(NonInferiorityVerdict::Inconclusive);
        row.decision = Some(format!(
            "B − A = {}, no {lvl} one-sided bounds (too few problems or a degenerate resampling distribution) → inconclusive",
            pts(row.delta)
        ));
        return;
    };
    let (lo, hi) = (bounds.lower, bounds.upper);
    let v = non_inferiority_verdict(bounds, margin).unwrap_or(NonInferiorityVerdict::Inconclusive);
    let yes = |b: bool| if b { "yes" } else { "no" };
    let mut text = format!(
        "B − A = {}, {lvl} one-sided lower bound {} > {m}? {}",
        pts(row.delta),
        pts(lo),
        yes(lo > -margin)
    );
    if lo <= -margin {
        let _ = write!(
            text,
            "; upper bound {} < {m}? {}",
            pts(hi),
            yes(hi < -margin)
        );
    }
    let _ = write!(text, " → {}", v.name());
    row.verdict = Some(v);
    row.decision = Some(text);
}

// ---------------------------------------------------------------- the entry point

/// Checks the source count against the options.
fn check_sources(sources: &[Source], o: &CompareOptions) -> Result<()> {
    match sources.len() {
        1 => {
            match o.by.as_deref() {
                Some("model" | "run") => {}
                Some(other) => return Err(Error::invalid("by", format!(
                    "{other}: systems in one input are told apart by `model` or `run` (rows that differ only in another field would merge into one problem)"
                ))),
                None => return Err(Error::SystemsFieldMissing),
            }
            if o.group_by.is_some() {
                return Err(Error::invalid(
                    "group_by",
                    "needs two inputs (with one input, `by` already reads the system field)",
                ));
            }
        }
        2 => {
            if o.by.is_some() {
                return Err(Error::invalid("by",
                    "picks two systems out of one input; with two inputs use group_by for per-group rows"));
            }
            if o.a.is_some() || o.b.is_some() {
                return Err(Error::invalid(
                    "a",
                    "a/b name the systems of one input (with by = model)",
                ));
            }
        }
        n => {
            return Err(Error::input(format!(
                "compare takes one or two inputs, got {n}"
            )))
        }
    }
    Ok(())
}

/// The matched problems of A and B: index pairs, and the ids on one side only.
pub(crate) struct Matched {
    pub(crate) pairs: Vec<(usize, usize)>,
    pub(crate) only_a: Vec<String>,
    pub(crate) only_b: Vec<String>,
}

pub(crate) fn match_problems(a: &SideData, b: &SideData) -> Result<Matched> {
    let ia = index(a, "A")?;
    let ib = index(b, "B")?;
    let pairs: Vec<(usize, usize)> = a
        .problems
        .iter()
        .enumerate()
        .filter_map(|(i, p)| ib.get(&key_of(p)).map(|&j| (i, j)))
        .collect();
    let only = |s: &SideData, other: &HashMap<ProblemKey, usize>| -> Vec<String> {
        s.problems
            .iter()
            .filter(|p| !other.contains_key(&key_of(p)))
            .map(shown)
            .collect()
    };
    if pairs.is_empty() {
        return Err(Error::input(format!(
            "no problem appears in both A ({}) and B ({}); compare pairs problems by their `subset` and `problem` id",
            a.name, b.name
        )));
    }
    Ok(Matched {
        only_a: only(a, &ib),
        only_b: only(b, &ia),
        pairs,
    })
}

/// Paired comparison of A (baseline) and B (candidate): two sources, or one
/// source holding both systems told apart by `opts.by`.
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{compare, CompareOptions, Source};
/// let side = |name: &str, cs: &[u64]| Source::Rows {
///     name: name.into(),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 4, c, ..Default::default() }))
///         .collect(),
/// };
/// let a = side("A", &[1, 2, 3, 0]);
/// let b = side("B", &[2, 2, 4, 1]);
/// let mut opts = CompareOptions::default();
/// opts.metrics.k = Some(vec![1]);
/// let c = compare(&[a, b], &opts).unwrap();
/// let row = c.rows.iter().find(|r| r.metric == "pass@1").unwrap();
/// assert_eq!(row.delta, 0.1875); // (1 + 0 + 1 + 1) / 4 / 4
/// ```
pub fn compare(sources: &[Source], opts: &CompareOptions) -> Result<Comparison> {
    opts.validate()?;
    check_sources(sources, opts)?;
    let (side_a, side_b) = match sources {
        [one] => read_one(one, opts)?,
        [a, b] => read_two(a, b, opts)?,
        _ => unreachable!("checked"),
    };
    let m = match_problems(&side_a, &side_b)?;
    finish(side_a, side_b, m, opts)
}

/// The matched summaries of both sides.
pub(crate) fn matched_summaries(
    a: &SideData,
    b: &SideData,
    m: &Matched,
) -> (Vec<ProblemSummary>, Vec<ProblemSummary>) {
    (
        m.pairs
            .iter()
            .map(|&(i, _)| a.summaries[i].clone())
            .collect(),
        m.pairs
            .iter()
            .map(|&(_, j)| b.summaries[j].clone())
            .collect(),
    )
}

fn check_strict(a: &SideData, b: &SideData, m: &Matched, n_req: u64) -> Result<()> {
    for (label, side, pick) in [("A", a, 0usize), ("B", b, 1usize)] {
        for &(i, j) in &m.pairs {
            let k = if pick == 0 { i } else { j };
            let p = &side.problems[k];
            check_short(&side.origin(p), &p.problem, &side.summaries[k], n_req)
                .map_err(|e| Error::input(format!("{label}: {e}")))?;
        }
    }
    Ok(())
}

/// Cluster ids of the matched problems (A's value, else B's), and how
/// many matched problems carry different values.
pub(crate) fn matched_clusters(a: &SideData, b: &SideData, m: &Matched) -> (Vec<u64>, u64) {
    let vals: Vec<Option<&str>> = m
        .pairs
        .iter()
        .map(|&(i, j)| {
            a.problems[i]
                .cluster_value()
                .or(b.problems[j].cluster_value())
        })
        .collect();
    let differ = m
        .pairs
        .iter()
        .filter(|&&(i, j)| {
            let (x, y) = (a.problems[i].cluster_value(), b.problems[j].cluster_value());
            x.is_some() && y.is_some() && x != y
        })
        .count() as u64;
    (cluster_ids(&vals), differ)
}

/// What every population of one comparison is computed with.
struct Setup {
    metrics: Vec<Metric>,
    /// Why the answer metrics are not among `metrics`.
    left_out: Option<crate::AnswerMetricsLeftOut>,
    plan: Plan,
    n_req: u64,
    n_source: String,
    ks: Vec<u64>,
    max: (u64, u64),
    /// The ks of the budget-matched rows (B's ks up to its n), when a
    /// budget field is named.
    budget_ks: Option<Vec<u64>>,
}

fn setup(sums: (&[ProblemSummary], &[ProblemSummary]), o: &CompareOptions) -> Result<Setup> {
    let max_of = |s: &[ProblemSummary]| s.iter().map(|p| p.n_arrived).max().unwrap_or(0);
    let max = (max_of(sums.0), max_of(sums.1));
    let (n_req, n_source) = requested_n(o.metrics.n, max.0.max(max.1));
    let ks = o.metrics.k.clone().unwrap_or_else(|| default_ks(n_req));
    let scored = crate::report::any_scored(sums.0) || crate::report::any_scored(sums.1);
    let left_out = crate::report::answer_metrics_left_out(&[sums.0, sums.1], n_req);
    let metrics: Vec<Metric> = crate::report::all_metrics(&ks, &o.metrics, n_req, scored)
        .into_iter()
        .filter(|m| !matches!(m.spec().compared, Compared::NotCompared(_)))
        .filter(|m| left_out.is_none() || !m.needs_answers())
        .collect();
    check_metric_names(o, &metrics)?;
    let plan = Plan {
        method: match o.intervals.method {
            IntervalMethod::Resampled(m) => Some(m),
            _ => None,
        },
        level: o.intervals.level,
        margin: o.margin,
        boot: BootstrapConfig {
            resamples: o.intervals.resamples,
            level: o.intervals.level,
            seed: o.intervals.seed,
        },
        permutations: o.permutations,
    };
    let budget_ks = matches!(o.metrics.budget, crate::Budget::Field(_))
        .then(|| ks.iter().copied().filter(|&k| k <= max.1).collect());
    Ok(Setup {
        metrics,
        left_out,
        plan,
        n_req,
        n_source,
        ks,
        max,
        budget_ks,
    })
}

/// What [`all_rows`] makes.
struct AllRows {
    rows: Vec<Row>,
    not_computable: Vec<NotComputable>,
    /// Findings about differing fields.
    found: Vec<Finding>,
    summary: CompareSummary,
    /// `config.p_adjust`.
    p_adjust: String,
}

/// Rows overall and per group, p-values adjusted over the family and
/// verdicts decided; the findings about differing fields.
fn all_rows(
    (a, b, m): (&SideData, &SideData, &Matched),
    sums: (&[ProblemSummary], &[ProblemSummary]),
    clusters: Option<&[u64]>,
    st: &Setup,
    o: &CompareOptions,
) -> Result<AllRows> {
    let tie = o.metrics.tie_policy;
    let overall = Population {
        group: None,
        a: sums.0.iter().collect(),
        b: sums.1.iter().collect(),
        clusters: clusters.map(<[u64]>::to_vec),
        budget_ks: st.budget_ks.as_deref(),
    };
    let (mut rows, mut not_computable) = rows_for(&overall, &st.metrics, tie, &st.plan);
    let mut found = Vec::new();
    if let Some(field) = &o.group_by {
        let (r, nc, differ) = group_rows(a, b, m, sums, clusters, (st, tie));
        rows.extend(r);
        not_computable.extend(nc);
        if differ > 0 {
            found.push(Finding::FieldDiffers {
                n: differ,
                field: field.clone(),
            });
        }
    }
    let family = family_rows(&rows, o.family.as_ref())?;
    adjust(&mut rows, &family);
    if let Some(margin) = o.margin {
        for r in &mut rows {
            decide(r, margin, o.intervals.level);
        }
    }
    let summary = summarize(&rows, &family, o);
    let p_adjust = p_adjust_words(&summary);
    Ok(AllRows {
        rows,
        not_computable,
        found,
        summary,
        p_adjust,
    })
}

/// An overall row at the same k on both sides (not per group, not
/// budget-matched): the rows a family is made of.
fn overall_same_k(r: &Row) -> bool {
    r.group.is_none() && r.budget_matched.is_none()
}

/// The indices of the rows Holm and BH adjust over: the named family (in
/// the order named; a name without a row, for no problem had a value, is
/// left out), else the default one. Naming a row that is another row by
/// definition is an error: it would count one number twice.
fn family_rows(rows: &[Row], names: Option<&Vec<String>>) -> Result<Vec<usize>> {
    let Some(names) = names else {
        return Ok(default_family(rows));
    };
    let mut out = Vec::new();
    for n in names {
        let Some(i) = rows
            .iter()
            .position(|r| overall_same_k(r) && &r.metric == n)
        else {
            continue;
        };
        if let Some(t) = &rows[i].same_as {
            return Err(Error::invalid(
                "family",
                format!(
                    "'{n}' is '{t}' by definition; name '{t}' (a family counts each number once)"
                ),
            ));
        }
        if !out.contains(&i) {
            out.push(i);
        }
    }
    Ok(out)
}

/// One overall row per catalogue family whose [`Primary`] puts one in,
/// at its headline k (pass@1, pass^n, maj@n), in row order; a row that is
/// another row by definition is left out (its twin speaks for it).
fn default_family(rows: &[Row]) -> Vec<usize> {
    let mut picks: Vec<(Family, usize, u64)> = Vec::new();
    for (i, r) in rows.iter().enumerate().filter(|(_, r)| overall_same_k(r)) {
        let Ok(key) = r.metric.parse::<MetricKey>() else {
            continue;
        };
        let (Some(k), family, primary) = (key.k(), key.family(), key.spec().primary) else {
            continue;
        };
        let better = |old: u64| match primary {
            Primary::SmallestK => k < old,
            Primary::LargestK => k > old,
            Primary::No => false,
        };
        match picks.iter_mut().find(|p| p.0 == family) {
            Some(p) if better(p.2) => (p.1, p.2) = (i, k),
            Some(_) => {}
            None if primary != Primary::No => picks.push((family, i, k)),
            None => {}
        }
    }
    picks
        .into_iter()
        .map(|p| p.1)
        .filter(|&i| rows[i].same_as.is_none())
        .collect()
}

/// The family's tally: its rows, the significant ones at 1 − level, the
/// verdicts.
fn summarize(rows: &[Row], family: &[usize], o: &CompareOptions) -> CompareSummary {
    // 1 − 0.95 is 0.050000000000000044 in binary: rounded to 12 decimals,
    // the level's complement as written.
    let alpha = (1e12 * (1.0 - o.intervals.level)).round() / 1e12;
    let fam: Vec<&Row> = family.iter().map(|&i| &rows[i]).collect();
    let count = |f: &dyn Fn(&Row) -> bool| fam.iter().filter(|r| f(r)).count() as u64;
    let verdict = |v: NonInferiorityVerdict| count(&|r: &Row| r.verdict == Some(v));
    let verdicts = o.margin.map(|_| VerdictCounts {
        non_inferior: verdict(NonInferiorityVerdict::NonInferior),
        inferior: verdict(NonInferiorityVerdict::Inferior),
        inconclusive: verdict(NonInferiorityVerdict::Inconclusive),
    });
    CompareSummary {
        family: fam.iter().map(|r| r.metric.clone()).collect(),
        default_family: o.family.is_none(),
        primary: fam.first().map(|r| r.metric.clone()),
        alpha,
        significant_holm: count(&|r| r.p_holm.is_some_and(|p| p <= alpha)),
        significant_bh: count(&|r| r.p_bh.is_some_and(|p| p <= alpha)),
        verdicts,
    }
}

/// `config.p_adjust`: over which rows, in words.
fn p_adjust_words(s: &CompareSummary) -> String {
    let how = if s.default_family {
        "the default family (one overall row per metric family at its headline k)"
    } else {
        "the family named"
    };
    if s.family.is_empty() {
        return format!("holm and bh over {how}: no such row; null on every row");
    }
    format!(
        "holm and bh over {how}: {}; null on every other row",
        s.family.join(", ")
    )
}

fn side(s: &SideData) -> Side {
    Side {
        name: s.name.clone(),
        inputs: s.inputs.clone(),
        n_problems: s.problems.len() as u64,
        n_grading_undecided: s.n_undecided,
    }
}

/// The `cluster_by` and named `budget` fields that no row of either side
/// has (a misspelt name would otherwise change nothing, silently).
fn absent_fields(a: &SideData, b: &SideData, o: &CompareOptions) -> Vec<Finding> {
    let mut out = Vec::new();
    let problems = || a.problems.iter().chain(&b.problems);
    if let Some(f) = o.intervals.cluster_by.as_ref() {
        if problems().all(|p| p.cluster_value().is_none()) {
            out.push(Finding::FieldAbsent {
                option: "cluster_by".into(),
                field: f.clone(),
            });
        }
    }
    if let crate::options::Budget::Field(f) = &o.metrics.budget {
        let summaries = || a.summaries.iter().chain(&b.summaries);
        if summaries().all(|p| p.budget.as_ref().is_none_or(|x| x.values.is_empty())) {
            out.push(Finding::FieldAbsent {
                option: "budget".into(),
                field: f.clone(),
            });
        }
    }
    out
}

fn finish(a: SideData, b: SideData, m: Matched, o: &CompareOptions) -> Result<Comparison> {
    let (sum_a, sum_b) = matched_summaries(&a, &b, &m);
    let st = setup((&sum_a, &sum_b), o)?;
    if o.metrics.strict {
        check_strict(&a, &b, &m, st.n_req)?;
    }
    let mut warnings = absent_fields(&a, &b, o);
    let clusters = o.intervals.cluster_by.as_ref().map(|field| {
        let (ids, differ) = matched_clusters(&a, &b, &m);
        if differ > 0 {
            warnings.push(Finding::FieldDiffers {
                n: differ,
                field: field.clone(),
            });
        }
        ids
    });
    let AllRows {
        rows,
        not_computable,
        found,
        summary,
        p_adjust,
    } = all_rows((&a, &b, &m), (&sum_a, &sum_b), clusters.as_deref(), &st, o)?;
    warnings.extend(found);
    let fail = o.fail_on.map(|on| fail_check(on, &rows, o.metric.as_ref()));
    warnings.extend(unchecked_metrics(o, &rows));
    let ctx = Warn {
        a: &a,
        b: &b,
        m: &m,
        sums: (&sum_a, &sum_b),
        n_req: st.n_req,
        max: st.max,
    };
    // The unpaired finding leads.
    let mut all: Vec<Finding> = ctx.unpaired().into_iter().collect();
    all.extend(warnings);
    all.extend(ctx.rest(&not_computable));
    if let Some(mth) = st.plan.method {
        all.extend(method_findings(mth, &rows, clusters.as_deref(), o));
    }
    Ok(Comparison {
        schema: COMPARE_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        margin: o.margin,
        level: o.intervals.level,
        pairs: Pairs {
            matched: m.pairs.len() as u64,
            only_a: m.only_a.len() as u64,
            only_b: m.only_b.len() as u64,
        },
        rows,
        a: side(&a),
        b: side(&b),
        config: CompareConfig {
            answer_metrics_left_out: st.left_out,
            p_adjust,
            ..config(o, st.plan.method, st.n_req, st.n_source, st.ks)
        },
        not_computable,
        fail,
        summary: Some(summary),
        noise: crate::compare_noise::run_noise((&sum_a, &sum_b), &o.intervals, o.permutations),
        warnings: all,
    })
}

/// `--metric` names with no overall row (only group rows, or none): the
/// fail check could not look at them.
fn unchecked_metrics(o: &CompareOptions, rows: &[Row]) -> Vec<Finding> {
    o.metric
        .iter()
        .flatten()
        .filter(|name| !rows.iter().any(|r| r.group.is_none() && &r.metric == *name))
        .map(|name| Finding::UncheckedMetric {
            metric: name.clone(),
        })
        .collect()
}

/// The `metric` and `family` names are rows of this comparison.
fn check_metric_names(o: &CompareOptions, metrics: &[Metric]) -> Result<()> {
    let known: Vec<String> = metrics.iter().map(|m| m.to_string()).collect();
    for (option, names) in [("metric", &o.metric), ("family", &o.family)] {
        for n in names.iter().flatten() {
            if !known.contains(n) {
                return Err(Error::invalid(
                    option,
                    format!("no row named '{n}' (rows: {})", known.join(", ")),
                ));
            }
        }
    }
    Ok(())
}

type GroupRows = (Vec<Row>, Vec<NotComputable>, u64);

/// Rows per value of the group field (A's value), grouped in one pass; the
/// count of matched problems whose value differs between A and B.
fn group_rows(
    a: &SideData,
    b: &SideData,
    m: &Matched,
    (sum_a, sum_b): (&[ProblemSummary], &[ProblemSummary]),
    clusters: Option<&[u64]>,
    (st, tie): (&Setup, TiePolicy),
) -> GroupRows {
    let keys = m
        .pairs
        .iter()
        .map(|&(i, _)| a.problems[i].by_value().unwrap_or("(none)"));
    let differ = m
        .pairs
        .iter()
        .filter(|&&(i, j)| a.problems[i].by_value() != b.problems[j].by_value())
        .count() as u64;
    let mut rows = Vec::new();
    let mut missing = Vec::new();
    for (g, members) in group_indices(keys) {
        let pop = Population {
            group: Some(g),
            a: members.iter().map(|&k| &sum_a[k]).collect(),
            b: members.iter().map(|&k| &sum_b[k]).collect(),
            clusters: clusters.map(|c| members.iter().map(|&k| c[k]).collect()),
            budget_ks: st.budget_ks.as_deref(),
        };
        let (r, nc) = rows_for(&pop, &st.metrics, tie, &st.plan);
        rows.extend(r);
        missing.extend(nc);
    }
    (rows, missing, differ)
}

/// Holm and BH over the family's rows that have a p-value; every family
/// row is marked `in_family`.
fn adjust(rows: &mut [Row], family: &[usize]) {
    for &i in family {
        rows[i].in_family = true;
    }
    let with_p: Vec<usize> = family
        .iter()
        .copied()
        .filter(|&i| rows[i].p_value.is_some())
        .collect();
    let ps: Vec<f64> = with_p
        .iter()
        .map(|&i| rows[i].p_value.expect("filtered"))
        .collect();
    let holm = adjust_p_values(&ps, PAdjust::Holm).expect("p in [0, 1]");
    let bh = adjust_p_values(&ps, PAdjust::BenjaminiHochberg).expect("p in [0, 1]");
    for (k, &i) in with_p.iter().enumerate() {
        rows[i].p_holm = Some(holm[k]);
        rows[i].p_bh = Some(bh[k]);
    }
}

fn fail_check(on: FailOn, rows: &[Row], metrics: Option<&Vec<String>>) -> FailCheck {
    let hit: Vec<String> = rows
        .iter()
        .filter(|r| r.group.is_none() && r.verdict.is_some())
        .filter(|r| metrics.is_none_or(|ms| ms.contains(&r.metric)))
        .filter(|r| match on {
            FailOn::Inferior => r.verdict == Some(NonInferiorityVerdict::Inferior),
            FailOn::Inconclusive => r.verdict != Some(NonInferiorityVerdict::NonInferior),
        })
        .map(|r| match r.budget_matched {
            Some(_) => format!("{} (budget-matched)", r.metric),
            None => r.metric.clone(),
        })
        .collect();
    FailCheck {
        on: on.name().into(),
        metrics: metrics.cloned(),
        failed: !hit.is_empty(),
        rows: hit,
    }
}

/// What the findings of a comparison read.
struct Warn<'a> {
    a: &'a SideData,
    b: &'a SideData,
    m: &'a Matched,
    sums: (&'a [ProblemSummary], &'a [ProblemSummary]),
    n_req: u64,
    max: (u64, u64),
}

impl Warn<'_> {
    /// Problems on one side only.
    fn unpaired(&self) -> Option<Finding> {
        (!self.m.only_a.is_empty() || !self.m.only_b.is_empty()).then(|| Finding::Unpaired {
            only_a: self.m.only_a.clone(),
            only_b: self.m.only_b.clone(),
            matched: self.m.pairs.len() as u64,
        })
    }

    /// Unequal n, short sides, bad rows and metrics without rows.
    fn rest(&self, not_computable: &[NotComputable]) -> Vec<Finding> {
        let mut w = Vec::new();
        if self.max.0 != self.max.1 {
            w.push(Finding::UnequalRollouts {
                max_a: self.max.0,
                max_b: self.max.1,
            });
        }
        for (side, sums) in [(SideLabel::A, self.sums.0), (SideLabel::B, self.sums.1)] {
            let short = sums.iter().filter(|p| p.n_arrived < self.n_req).count() as u64;
            if short > 0 {
                w.push(Finding::ShortSide {
                    side,
                    n_short: short,
                    n_requested: self.n_req,
                });
            }
        }
        let bad = self.a.n_bad_lines + self.b.n_bad_lines;
        if bad > 0 {
            w.push(Finding::BadRows { n: bad as u64 });
        }
        for (side, n) in [
            (SideLabel::A, self.a.n_undecided),
            (SideLabel::B, self.b.n_undecided),
        ] {
            if n > 0 {
                w.push(Finding::GradingUndecided {
                    side: Some(side),
                    n,
                });
            }
        }
        for nc in not_computable.iter().filter(|n| n.group.is_none()) {
            w.push(Finding::NotCompared {
                metric: nc.metric.clone(),
                reason: nc.reason.clone(),
            });
        }
        w
    }
}

fn method_findings(
    method: CiMethod,
    rows: &[Row],
    clusters: Option<&[u64]>,
    o: &CompareOptions,
) -> Vec<Finding> {
    // The advice is about the configured method: rows on Tango's score
    // interval (0/1 per problem) do not use it.
    let first = rows
        .iter()
        .find(|r| r.group.is_none() && r.interval_method.is_none());
    method_advice(&MethodContext {
        method,
        n: first.map_or(0, |r| r.n_problems as usize),
        clusters: clusters.map(distinct_count),
        binary: first.is_some_and(|r| r.mcnemar.is_some()),
        resamples: o.intervals.resamples,
    })
}

fn config(
    o: &CompareOptions,
    method: Option<CiMethod>,
    n: u64,
    n_source: String,
    k: Vec<u64>,
) -> CompareConfig {
    let u = &o.intervals;
    let method_name = match (method, &u.cluster_by) {
        (None, _) => "none".to_string(),
        (Some(CiMethod::T), Some(_)) => "t (CR1, C−1 df)".into(),
        (Some(CiMethod::T), None) => "t".into(),
        (Some(m), cl) => {
            let base = if m == CiMethod::Percentile {
                "bootstrap"
            } else {
                m.name()
            };
            if cl.is_some() {
                format!("cluster-{base}")
            } else {
                base.to_string()
            }
        }
    };
    let resampled = matches!(method, Some(m) if m != CiMethod::T);
    CompareConfig {
        method: method_name,
        level: u.level,
        resamples: resampled.then_some(u.resamples as u64),
        seed: u.seed,
        rng: rng::RNG_SCHEME.into(),
        permutations: o.permutations as u64,
        cluster_by: u.cluster_by.clone(),
        n,
        n_source,
        k,
        tau: o.metrics.tau.clone(),
        tie_policy: o.metrics.tie_policy,
        denominator_policy: o.metrics.denominator,
        by: o.by.clone(),
        group_by: o.group_by.clone(),
        verdict_level: o.margin.map(|_| u.level),
        p_adjust: String::new(),
        answer_metrics_left_out: None,
    }
}
