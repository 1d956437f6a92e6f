//! Keyword arguments → the engine's typed options, and the engine's
//! defaults → keyword arguments.
//!
//! The Python layer passes the options of one call as one dict keyed by
//! the public keyword names (`ci`, `match`, `a_name`, …). A key that is
//! absent or None takes the engine's default (`ReportOptions::default()`
//! and its siblings), the way `#[serde(default)]` fills a missing field;
//! the Python layer turns the values that mean something else (`ci=None`:
//! no interval, `budget=None`: off) into the engine's names first.
//! [`defaults`] gives the same keywords with the engine's defaults, which
//! the package's signatures read and its tests check.

use crate::InputError;
use pyo3::conversion::FromPyObjectOwned;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rollstat::rank::RankOptions;
use rollstat::{
    Budget, CompareOptions, Format, GradingPolicy, IntervalOptions, Match, MetricOptions,
    PowerOptions, ReportOptions,
};
use rollstat_stats::{PAdjust, PairPreference};

fn bad(keyword: &str, e: impl std::fmt::Display) -> PyErr {
    InputError::new_err(format!("{keyword}: {e}"))
}

/// The keyword arguments of one call. Each option read is taken out of
/// the dict; [`Keywords::finish`] refuses what is left (a keyword the
/// engine does not know).
pub struct Keywords<'py>(Bound<'py, PyDict>);

impl<'py> Keywords<'py> {
    /// The keywords of `dict` (a copy: the caller's dict is not changed).
    pub fn new(dict: &Bound<'py, PyDict>) -> PyResult<Self> {
        Ok(Keywords(dict.copy()?))
    }

    /// The value of `key`; None when it is absent or None.
    pub fn get<T: FromPyObjectOwned<'py>>(&self, key: &str) -> PyResult<Option<T>> {
        let Some(v) = self.0.get_item(key)? else {
            return Ok(None);
        };
        self.0.del_item(key)?;
        if v.is_none() {
            return Ok(None);
        }
        v.extract::<T>()
            .map(Some)
            .map_err(|e| PyTypeError::new_err(format!("{key}: {}", e.into())))
    }

    /// The value of `key` as a name the engine reads (`"bootstrap"` →
    /// `IntervalMethod`); a bad name is an `InputError` in the engine's
    /// words after the keyword.
    pub fn parse<T: std::str::FromStr>(&self, key: &str) -> PyResult<Option<T>>
    where
        T::Err: std::fmt::Display,
    {
        self.get::<String>(key)?
            .map(|s| s.parse().map_err(|e| bad(key, e)))
            .transpose()
    }

    /// Refuses keywords no option read.
    pub fn finish(self) -> PyResult<()> {
        if self.0.is_empty() {
            return Ok(());
        }
        let keys: Vec<String> = self.0.keys().iter().map(|k| k.to_string()).collect();
        Err(PyTypeError::new_err(format!(
            "unknown option(s): {}",
            keys.join(", ")
        )))
    }
}

/// What to compute (report and compare).
fn metric_options(kw: &Keywords<'_>) -> PyResult<MetricOptions> {
    let d = MetricOptions::default();
    Ok(MetricOptions {
        k: kw.get("k")?.or(d.k),
        tau: kw.get("tau")?.unwrap_or(d.tau),
        n: kw.get("n")?.or(d.n),
        denominator: kw.parse("denominator")?.unwrap_or(d.denominator),
        tie_policy: kw.parse("tie_policy")?.unwrap_or(d.tie_policy),
        score_order: kw.parse("score_order")?.unwrap_or(d.score_order),
        strict: kw.get("strict")?.unwrap_or(d.strict),
        dedupe: kw.parse("dedupe")?.or(d.dedupe),
        // A number: a fixed total (u64::MAX: no limit); None: the default
        // rule (100× the compressed size, at least 256 MiB).
        decompress_limit: kw
            .get("max_decompressed")?
            .map(rollstat::DecompressLimit::total)
            .unwrap_or(d.decompress_limit),
        budget: kw.parse("budget")?.unwrap_or(d.budget),
    })
}

/// How intervals are computed (report and compare).
fn interval_options(kw: &Keywords<'_>) -> PyResult<IntervalOptions> {
    let d = IntervalOptions::default();
    Ok(IntervalOptions {
        method: kw.parse("ci")?.unwrap_or(d.method),
        level: kw.get("level")?.unwrap_or(d.level),
        resamples: kw.get("resamples")?.unwrap_or(d.resamples),
        seed: kw.get("seed")?.unwrap_or(d.seed),
        cluster_by: kw.get("cluster_by")?.or(d.cluster_by),
        // Report only (compare refuses the model-based method): read by
        // `report_options`.
        prior: d.prior,
    })
}

/// `extract` and `match`.
fn grading_policy(kw: &Keywords<'_>) -> PyResult<GradingPolicy> {
    let d = GradingPolicy::default();
    let extract: Option<String> = kw.get("extract")?;
    let matching: Match = kw.parse("match")?.unwrap_or(d.matching);
    GradingPolicy::new(extract.as_deref().unwrap_or(d.extract_name()), matching)
        .map_err(|e| bad("extract", e))
}

/// `source_format`, the format of files (checked against the sources in
/// `engine.rs`).
fn source_format(kw: &Keywords<'_>) -> PyResult<Option<Format>> {
    kw.parse("source_format")
}

/// `columns`: a field map as (field, path) pairs in the order the user's
/// dict gave them (`[("problem", "idx"), ("correct", "score")]`, paths as
/// in the command's `--map`), handed to the engine's parser.
fn field_map(kw: &Keywords<'_>) -> PyResult<Option<rollstat::FieldMap>> {
    let Some(cols) = kw.get::<Vec<(String, String)>>("columns")? else {
        return Ok(None);
    };
    let text: Vec<String> = cols.iter().map(|(k, v)| format!("{k}={v}")).collect();
    text.join(",").parse().map(Some).map_err(|e| bad("columns", e))
}

/// The options of `report` (not validated).
pub fn report_options(kw: &Keywords<'_>) -> PyResult<ReportOptions> {
    let d = ReportOptions::default();
    Ok(ReportOptions {
        metrics: metric_options(kw)?,
        intervals: IntervalOptions {
            prior: kw.parse("prior")?.unwrap_or(d.intervals.prior),
            ..interval_options(kw)?
        },
        grading: grading_policy(kw)?,
        by: kw.get("by")?.or(d.by),
        per_problem: kw.get("per_problem")?.unwrap_or(d.per_problem),
        run_by: kw.get("run_by")?.or(d.run_by),
        extrapolate: kw.get("extrapolate")?.unwrap_or(d.extrapolate),
        source_format: source_format(kw)?.or(d.source_format),
        field_map: field_map(kw)?.or(d.field_map),
        bytes_read: d.bytes_read,
        messages: d.messages,
    })
}

/// The options of `compare` (not validated).
pub fn compare_options(kw: &Keywords<'_>) -> PyResult<CompareOptions> {
    let d = CompareOptions::default();
    Ok(CompareOptions {
        metrics: metric_options(kw)?,
        intervals: interval_options(kw)?,
        grading: grading_policy(kw)?,
        by: kw.get("by")?.or(d.by),
        a: kw.get("a_name")?.or(d.a),
        b: kw.get("b_name")?.or(d.b),
        group_by: kw.get("group_by")?.or(d.group_by),
        margin: kw.get("margin")?.or(d.margin),
        fail_on: kw.parse("fail_on")?.or(d.fail_on),
        metric: kw.get("metric")?.or(d.metric),
        family: kw.get("family")?.or(d.family),
        permutations: kw.get("permutations")?.unwrap_or(d.permutations),
        source_format: source_format(kw)?.or(d.source_format),
        field_map: field_map(kw)?.or(d.field_map),
        messages: d.messages,
    })
}

/// The reading options of `summarize`: `by`, `cluster_by`, `extract`,
/// `match`, `source_format`, `strict`, `dedupe`.
pub fn summarize_options(kw: &Keywords<'_>) -> PyResult<ReportOptions> {
    let d = ReportOptions::default();
    let mut o = ReportOptions {
        metrics: MetricOptions {
            strict: kw.get("strict")?.unwrap_or(d.metrics.strict),
            dedupe: kw.parse("dedupe")?.or(d.metrics.dedupe),
            ..d.metrics
        },
        grading: grading_policy(kw)?,
        by: kw.get("by")?.or(d.by),
        source_format: source_format(kw)?.or(d.source_format),
        field_map: field_map(kw)?.or(d.field_map),
        ..Default::default()
    };
    o.intervals.cluster_by = kw.get("cluster_by")?.or(d.intervals.cluster_by);
    Ok(o)
}

/// `adjust`: `holm` or `bh`.
fn adjust(kw: &Keywords<'_>, d: PAdjust) -> PyResult<PAdjust> {
    match kw.get::<String>("adjust")?.as_deref() {
        None => Ok(d),
        Some("holm") => Ok(PAdjust::Holm),
        Some("bh") => Ok(PAdjust::BenjaminiHochberg),
        Some(x) => Err(bad("adjust", format!("unknown '{x}' (holm or bh)"))),
    }
}

/// `pair_test`: `exact` or `chi2-corrected`.
fn pair_test(kw: &Keywords<'_>, d: PairPreference) -> PyResult<PairPreference> {
    match kw.get::<String>("pair_test")?.as_deref() {
        None => Ok(d),
        Some("exact") => Ok(PairPreference::Exact),
        Some("chi2-corrected") => Ok(PairPreference::ContinuityCorrected),
        Some(x) => Err(bad(
            "pair_test",
            format!("unknown '{x}' (exact or chi2-corrected)"),
        )),
    }
}

/// The name of a [`PairPreference`] (the `pair_test` keyword).
fn pair_test_name(p: PairPreference) -> &'static str {
    match p {
        PairPreference::Exact => "exact",
        PairPreference::ContinuityCorrected => "chi2-corrected",
    }
}

/// The options of `rank` (`format`: the input format of files).
pub fn rank_options(kw: &Keywords<'_>) -> PyResult<RankOptions> {
    let d = RankOptions::default();
    Ok(RankOptions {
        metric: kw.get("metric")?.unwrap_or(d.metric),
        by: kw.get("by")?.or(d.by),
        level: kw.get("level")?.unwrap_or(d.level),
        alpha: kw.get("alpha")?.unwrap_or(d.alpha),
        adjust: adjust(kw, d.adjust)?,
        pair_test: pair_test(kw, d.pair_test)?,
        resamples: kw.get("resamples")?.unwrap_or(d.resamples),
        permutations: kw.get("permutations")?.unwrap_or(d.permutations),
        seed: kw.get("seed")?.unwrap_or(d.seed),
        cluster_by: kw.get("cluster_by")?.or(d.cluster_by),
        strict: kw.get("strict")?.unwrap_or(d.strict),
        suite: kw.get("suite")?.or(d.suite),
        order_step: match kw.get::<String>("order")?.as_deref() {
            None => d.order_step,
            Some("step") => true,
            Some(x) => return Err(bad("order", format!("unknown '{x}' (step)"))),
        },
        grading: grading_policy(kw)?,
        source_format: kw.parse("format")?.or(d.source_format),
        field_map: field_map(kw)?.or(d.field_map),
        messages: d.messages,
    })
}

/// The keywords of `rank` with the engine's defaults
/// (`RankOptions::default()`).
fn rank_defaults<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let o = RankOptions::default();
    let d = PyDict::new(py);
    d.set_item("by", o.by)?;
    d.set_item("metric", o.metric)?;
    d.set_item("level", o.level)?;
    d.set_item("alpha", o.alpha)?;
    d.set_item("adjust", o.adjust.name())?;
    d.set_item("pair_test", pair_test_name(o.pair_test))?;
    d.set_item("resamples", o.resamples)?;
    d.set_item("permutations", o.permutations)?;
    d.set_item("seed", o.seed)?;
    d.set_item("cluster_by", o.cluster_by)?;
    d.set_item("strict", o.strict)?;
    d.set_item("suite", o.suite)?;
    d.set_item("order", o.order_step.then_some("step"))?;
    d.set_item("format", o.source_format.map(|f| f.to_string()))?;
    d.set_item("columns", o.field_map.as_ref().map(|m| m.to_string()))?;
    set_grading_defaults(&d, &o.grading)?;
    Ok(d)
}

/// The options of `power`.
pub fn power_options(kw: &Keywords<'_>) -> PyResult<PowerOptions> {
    let d = PowerOptions::default();
    Ok(PowerOptions {
        problems: kw.get("problems")?.or(d.problems),
        rollouts: kw.get("rollouts")?.or(d.rollouts),
        delta: kw.get("delta")?.or(d.delta),
        alpha: kw.get("alpha")?.unwrap_or(d.alpha),
        power: kw.get("power")?.unwrap_or(d.power),
        correlation: kw.get("correlation")?.or(d.correlation),
        omega2: kw.get("omega2")?.or(d.omega2),
        var_between: kw.get("var_between")?.or(d.var_between),
        baseline: kw.get("baseline")?.or(d.baseline),
        sigma2: kw.get("sigma2")?.or(d.sigma2),
        factors: kw.get("factors")?.unwrap_or(d.factors),
        metric: kw.get("metric")?.or(d.metric),
    })
}

/// The `budget` keyword of a [`Budget`]: `"auto"`, None (off) or the field.
fn budget_keyword(b: &Budget) -> Option<String> {
    match b {
        Budget::Auto => Some("auto".into()),
        Budget::Off => None,
        Budget::Field(f) => Some(f.clone()),
    }
}

fn set_metric_defaults(d: &Bound<'_, PyDict>, m: &MetricOptions) -> PyResult<()> {
    d.set_item("k", m.k.clone())?;
    d.set_item("tau", m.tau.clone())?;
    d.set_item("n", m.n)?;
    d.set_item("denominator", m.denominator.to_string())?;
    d.set_item("tie_policy", m.tie_policy.to_string())?;
    d.set_item("score_order", m.score_order.to_string())?;
    d.set_item("strict", m.strict)?;
    d.set_item("dedupe", m.dedupe.map(|x| x.to_string()))?;
    // The default decompression limit is a rule, not a number: None.
    d.set_item("max_decompressed", None::<u64>)?;
    d.set_item("budget", budget_keyword(&m.budget))
}

fn set_interval_defaults(d: &Bound<'_, PyDict>, i: &IntervalOptions) -> PyResult<()> {
    d.set_item("ci", i.method.to_string())?;
    d.set_item("level", i.level)?;
    d.set_item("resamples", i.resamples)?;
    d.set_item("seed", i.seed)?;
    d.set_item("cluster_by", i.cluster_by.clone())
}

fn set_grading_defaults(d: &Bound<'_, PyDict>, g: &GradingPolicy) -> PyResult<()> {
    d.set_item("extract", g.extract_name())?;
    d.set_item("match", g.matching.to_string())
}

/// The keywords of `gate` with the engine's defaults
/// (`GatePlan::default()`; no margin, sources or format by default).
fn gate_defaults<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
    let p = rollstat::gate::GatePlan::default();
    let d = PyDict::new(py);
    d.set_item("baseline", None::<String>)?;
    d.set_item("candidate", None::<String>)?;
    d.set_item("margin", p.margin.map(|m| m.0))?;
    d.set_item("relative_margin", p.relative_margin)?;
    d.set_item("suite_margin", p.suite_margin.map(|m| m.0))?;
    d.set_item("metric", p.metric)?;
    d.set_item("weights", p.weights.name())?;
    d.set_item("rule", p.rule.name())?;
    d.set_item("tier", p.tier.name())?;
    d.set_item("alpha", p.alpha)?;
    d.set_item("mid_p", p.mid_p)?;
    d.set_item("cluster_by", p.cluster_by)?;
    d.set_item("seed", p.seed)?;
    d.set_item("resamples", p.resamples)?;
    d.set_item("permutations", p.permutations)?;
    d.set_item("flips", p.flips_listed)?;
    d.set_item("format", p.format)?;
    d.set_item("columns", p.map)?;
    // No grading declared: a report's (`GradingPolicy::default()`).
    set_grading_defaults(&d, &GradingPolicy::default())?;
    Ok(d)
}

/// `defaults() -> {"report": {...}, "compare": {...}, "power": {...},
/// "summarize": {...}, "gate": {...}, "rank": {...}}`: each function's keyword arguments with the
/// engine's default values (`ReportOptions::default()` and its siblings).
#[pyfunction]
pub fn defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let out = PyDict::new(py);

    let r = ReportOptions::default();
    let report = PyDict::new(py);
    set_metric_defaults(&report, &r.metrics)?;
    set_interval_defaults(&report, &r.intervals)?;
    set_grading_defaults(&report, &r.grading)?;
    report.set_item("by", r.by.clone())?;
    report.set_item("per_problem", r.per_problem)?;
    report.set_item("prior", r.intervals.prior.to_string())?;
    report.set_item("run_by", r.run_by.clone())?;
    report.set_item("extrapolate", r.extrapolate.clone())?;
    report.set_item("source_format", r.source_format.map(|f| f.to_string()))?;
    report.set_item("columns", r.field_map.as_ref().map(|m| m.to_string()))?;
    out.set_item("report", report)?;

    let c = CompareOptions::default();
    let compare = PyDict::new(py);
    set_metric_defaults(&compare, &c.metrics)?;
    set_interval_defaults(&compare, &c.intervals)?;
    set_grading_defaults(&compare, &c.grading)?;
    compare.set_item("by", c.by)?;
    compare.set_item("a_name", c.a)?;
    compare.set_item("b_name", c.b)?;
    compare.set_item("group_by", c.group_by)?;
    compare.set_item("margin", c.margin)?;
    compare.set_item("fail_on", c.fail_on.map(|f| f.to_string()))?;
    compare.set_item("metric", c.metric)?;
    compare.set_item("family", c.family)?;
    compare.set_item("permutations", c.permutations)?;
    // The printed table's view (rollstat_render::View), not an engine option.
    compare.set_item("all", rollstat_render::View::default().all)?;
    compare.set_item("source_format", c.source_format.map(|f| f.to_string()))?;
    compare.set_item("columns", c.field_map.as_ref().map(|m| m.to_string()))?;
    out.set_item("compare", compare)?;

    let summarize = PyDict::new(py);
    summarize.set_item("by", r.by)?;
    summarize.set_item("cluster_by", r.intervals.cluster_by.clone())?;
    set_grading_defaults(&summarize, &r.grading)?;
    summarize.set_item("source_format", r.source_format.map(|f| f.to_string()))?;
    summarize.set_item("columns", r.field_map.as_ref().map(|m| m.to_string()))?;
    summarize.set_item("strict", r.metrics.strict)?;
    summarize.set_item("dedupe", r.metrics.dedupe.map(|x| x.to_string()))?;
    out.set_item("summarize", summarize)?;

    let p = PowerOptions::default();
    let power = PyDict::new(py);
    power.set_item("problems", p.problems)?;
    power.set_item("rollouts", p.rollouts)?;
    power.set_item("delta", p.delta)?;
    power.set_item("alpha", p.alpha)?;
    power.set_item("power", p.power)?;
    power.set_item("correlation", p.correlation)?;
    power.set_item("omega2", p.omega2)?;
    power.set_item("var_between", p.var_between)?;
    power.set_item("baseline", p.baseline)?;
    power.set_item("sigma2", p.sigma2)?;
    power.set_item("factors", p.factors)?;
    power.set_item("metric", p.metric)?;
    out.set_item("power", power)?;
    out.set_item("gate", gate_defaults(py)?)?;
    out.set_item("rank", rank_defaults(py)?)?;
    Ok(out)
}
