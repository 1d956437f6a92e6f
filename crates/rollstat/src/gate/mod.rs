//! [`gate()`]: one release decision over a suite of benchmarks, baseline A
//! against candidate B (docs/gate.md, schema `rollstat.gate/1`).
//!
//! plan (TOML, or the short form's equivalent) → per benchmark: read both
//! sides through compare's reading, pair problems → the primary metric's
//! paired row (compare's bootstrap) → one-sided test for degradation, flips
//! against their floor, status against the margin → suite: weighted
//! difference, heterogeneity, pooled / Fisher / max-drop at α/3 → both
//! rules, the declared one decides.

mod bench;
mod document;
mod plan;
mod responses;
mod sources;
mod suite;

pub use document::*;
pub(crate) use document::{findings_list, nan_null};
pub use plan::{
    expand, parse_margin, BenchmarkPlan, GatePlan, MarginValue, Paths, DEFAULT_ALPHA,
    DEFAULT_FLIPS_LISTED, DEFAULT_METRIC,
};
pub use sources::{sources_from_paths, BenchmarkSources, SuiteSources};

use crate::compare::Plan;
use crate::error::{Error, Result};
use crate::findings::Finding;
use crate::options::{CompareOptions, IntervalMethod, MessageSink};
use rollstat_core::aggregate::Metric;
use rollstat_grade::GradingPolicy;
use rollstat_stats::{rng, BootstrapConfig, CiMethod};
use sha2::{Digest, Sha256};

/// What a gate reads with besides its plan.
#[derive(Clone, Default)]
pub struct GateOptions {
    /// How answers are extracted and graded (as for a report).
    pub grading: GradingPolicy,
    /// Where messages about the reading go as they happen.
    pub messages: Option<MessageSink>,
}

/// The plan's record: its source, text and SHA-256.
///
/// ```
/// let r = rollstat::gate::plan_record("plan.toml", "margin = 0.01\n");
/// assert_eq!(r.sha256.len(), 64);
/// ```
pub fn plan_record(source: &str, text: &str) -> PlanRecord {
    let digest = Sha256::digest(text.as_bytes());
    PlanRecord {
        source: source.to_string(),
        text: text.to_string(),
        sha256: digest.iter().map(|b| format!("{b:02x}")).collect(),
    }
}

/// The compare options a gate reads and computes rows with.
fn compare_options(plan: &GatePlan, opts: &GateOptions) -> Result<CompareOptions> {
    let mut o = CompareOptions {
        grading: grading(plan, opts)?,
        messages: opts.messages.clone(),
        permutations: plan.permutations,
        margin: Some(0.0),
        ..CompareOptions::default()
    };
    o.intervals.level = 1.0 - plan.alpha;
    o.intervals.resamples = plan.resamples;
    o.intervals.seed = plan.seed;
    o.intervals.cluster_by = plan.cluster_by.clone();
    if let Some(f) = &plan.format {
        o.source_format = Some(f.parse().map_err(|e: rollstat_formats::UnknownFormat| {
            Error::invalid("format", e.to_string())
        })?);
    }
    if let Some(m) = &plan.map {
        o.field_map = Some(
            m.parse()
                .map_err(|e: crate::FieldMapError| Error::invalid("map", e.to_string()))?,
        );
    }
    Ok(o)
}

/// The plan's grading when it declares one, else the options'.
fn grading(plan: &GatePlan, opts: &GateOptions) -> Result<GradingPolicy> {
    if plan.extract.is_none() && plan.matching.is_none() {
        return Ok(opts.grading.clone());
    }
    let d = GradingPolicy::default();
    let matching = match &plan.matching {
        Some(m) => m
            .parse()
            .map_err(|e: String| Error::invalid("matching", e))?,
        None => d.matching,
    };
    let extract = plan.extract.as_deref().unwrap_or(d.extract_name());
    GradingPolicy::new(extract, matching).map_err(|e| Error::invalid("extract", e.to_string()))
}

fn stats_plan(o: &CompareOptions) -> Plan {
    let method = match o.intervals.method {
        IntervalMethod::Resampled(m) => Some(m),
        _ => Some(CiMethod::Percentile),
    };
    Plan {
        method,
        level: o.intervals.level,
        margin: Some(0.0),
        boot: BootstrapConfig {
            resamples: o.intervals.resamples,
            level: o.intervals.level,
            seed: o.intervals.seed,
        },
        permutations: o.permutations,
    }
}

/// One release decision over a suite: `plan` declares the analysis,
/// `record` is its text as run, `sources` the benchmarks' inputs.
///
/// ```
/// use rollstat::gate::{gate, plan_record, BenchmarkSources, GatePlan, GateOptions, SuiteSources};
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::Source;
/// let side = |name: &str, cs: &[u64]| Source::Rows {
///     name: name.into(),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 1, c, ..Default::default() }))
///         .collect(),
/// };
/// let text = "margin = 0.05\n[[benchmark]]\nname = 'toy'\nbaseline = 'a'\ncandidate = 'b'\n";
/// let plan = GatePlan::from_toml(text, "plan.toml").unwrap();
/// let sources = SuiteSources::Declared(vec![BenchmarkSources {
///     name: "toy".into(),
///     baseline: vec![side("a", &[1, 1, 1, 0, 1, 1])],
///     candidate: vec![side("b", &[0, 1, 0, 0, 1, 0])],
/// }]);
/// let g = gate(&plan, plan_record("plan.toml", text), sources, &GateOptions::default()).unwrap();
/// let t = g.benchmarks[0].test.unwrap();
/// assert!((t.p - 0.125).abs() < 1e-12); // 3 problems only A solves, none only B: (½)³
/// ```
pub fn gate(
    plan: &GatePlan,
    record: PlanRecord,
    sources: SuiteSources,
    opts: &GateOptions,
) -> Result<Gate> {
    plan.validate()?;
    let metric: Metric =
        plan.metric
            .parse()
            .map_err(|e: rollstat_core::catalogue::UnknownKey| {
                Error::invalid("metric", e.to_string())
            })?;
    let co = compare_options(plan, opts)?;
    crate::read::check_map_has_files(sources.all(), co.field_map.as_ref())?;
    let inputs = sources::read_benchmarks(plan, &sources, &co)?;
    let ctx = bench::Context {
        metric: &metric,
        plan: stats_plan(&co),
        alpha: plan.alpha,
        mid_p: plan.mid_p,
        clustered: plan.cluster_by.is_some(),
        flips_listed: plan.flips_listed,
        tie: co.metrics.tie_policy,
    };
    let mut rows = Vec::new();
    let mut stats = Vec::new();
    let mut findings: Vec<Finding> = Vec::new();
    for input in inputs {
        let (row, st, found) = bench::compute(input, &ctx)?;
        rows.push(row);
        stats.push(st);
        findings.extend(found);
    }
    responses::fill(&mut rows, &sources, &co);
    if stats.iter().all(Option::is_none) {
        return Err(Error::input(
            "no benchmark has problems on both sides; nothing to decide",
        ));
    }
    suite::set_weights(&mut rows, plan);
    let (suite_row, found) = suite::suite(&rows, &stats, plan)?;
    findings.extend(found);
    let verdict = match plan.rule {
        GateRule::Margin => suite_row.margin_rule.decision,
        GateRule::Detect => suite_row.detect_rule.decision,
    };
    Ok(Gate {
        schema: GATE_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        verdict,
        plan: record,
        settings: settings(plan, &co),
        benchmarks: rows,
        suite: suite_row,
        findings,
    })
}

fn settings(plan: &GatePlan, co: &CompareOptions) -> GateSettings {
    let grading = co.grading.describe();
    let base = "bootstrap";
    GateSettings {
        metric: plan.metric.clone(),
        weights: plan.weights,
        rule: plan.rule,
        alpha: plan.alpha,
        suite_margin: plan.suite_margin.or(plan.margin).map(|m| m.0),
        mid_p: plan.mid_p,
        cluster_by: plan.cluster_by.clone(),
        method: match &co.intervals.cluster_by {
            Some(_) => format!("cluster-{base}"),
            None => base.into(),
        },
        resamples: co.intervals.resamples as u64,
        permutations: plan.permutations as u64,
        seed: plan.seed,
        rng: rng::RNG_SCHEME.into(),
        flips_listed: plan.flips_listed as u64,
        grading,
    }
}

impl Gate {
    /// The document as pretty JSON (findings in the library's words).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).expect("a gate serializes")
    }

    /// The exit code of its verdict: 0 GO, 1 NO-GO, 3 INCONCLUSIVE.
    pub fn exit_code(&self) -> i32 {
        self.verdict.exit_code()
    }
}
