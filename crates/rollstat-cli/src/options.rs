//! Flags → the engine's typed options (each flag left unset takes the
//! engine's default: the flags are merged onto `ReportOptions::default()`
//! and its siblings), and the engine's errors and findings → words that
//! name flags.

use crate::args::{
    CompareArgs, GradingArgs, MetricArgs, PowerArgs, ReadingArgs, ReportArgs, UncertaintyArgs,
};
use anyhow::Result;
use rollstat::{
    CompareOptions, Error, Finding, GradingPolicy, IntervalOptions, MetricOptions, PowerOptions,
    ReportOptions,
};

/// Bad input or usage: exit code 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for InputError {}

fn usage(msg: String) -> anyhow::Error {
    InputError(msg).into()
}

/// The flag of an option field.
fn flag(option: &str) -> String {
    match option {
        "method" => "--ci".into(),
        "source_format" => "--from".into(),
        "field_map" => "--map".into(),
        "matching" => "--match".into(),
        other => format!("--{}", other.replace('_', "-")),
    }
}

/// A message of the reading (streamed as text, not an error value) with
/// the flag that names a format: the library's fix says "name the format
/// explicitly".
pub fn cli_text(m: &str) -> String {
    m.replace(
        "Fix: name the format explicitly,",
        "Fix: pass the format explicitly (--from NAME),",
    )
}

/// Messages of the reading go to stderr as they happen.
pub fn stderr_sink() -> rollstat::MessageSink {
    rollstat::MessageSink::new(|m| eprintln!("rollstat: {}", cli_text(m)))
}

/// Where the user sets how files are read: flags, or a plan file's keys.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum ReadingSetBy {
    /// `--from NAME`, `--map MAP`, `--dedupe`, … (report, compare, rank).
    Flags,
    /// A gate's short form: its flags, which have no `--dedupe`.
    GateFlags,
    /// `format = "NAME"`, `map = "MAP"`, `extract = …` in a gate plan.
    PlanKeys,
}

/// The engine's error in the CLI's words (flags named, advice added).
pub fn cli_error(e: Error) -> anyhow::Error {
    usage(cli_words(e, ReadingSetBy::Flags))
}

/// [`cli_error`] for a run whose reading a plan file declares: the format
/// and the field map advised as its keys.
pub fn plan_error(e: Error) -> anyhow::Error {
    usage(cli_words(e, ReadingSetBy::PlanKeys))
}

/// [`cli_error`] for a gate's short form (no `--dedupe` to advise).
pub fn gate_flags_error(e: Error) -> anyhow::Error {
    usage(cli_words(e, ReadingSetBy::GateFlags))
}

/// The text of [`cli_error`].
fn cli_words(e: Error, set_by: ReadingSetBy) -> String {
    use rollstat::ReadError;
    match e {
        Error::Side { side, name, error } => {
            format!("reading {side} ({name}): {}", cli_words(*error, set_by))
        }
        Error::SystemsFieldMissing => {
            "one input: pass --by model (or --by run) to say which field holds the two systems, or give two inputs A B".into()
        }
        Error::InvalidOption { option, message } => format!("{}: {message}", flag(option.0)),
        Error::ShortProblem { .. } => format!("{e}; drop --strict to report them as n_short"),
        Error::IncompleteRun(_) => format!("{e}; drop --strict to report what is present"),
        Error::ExtractionNeeded { ref extract, .. } => match set_by {
            ReadingSetBy::PlanKeys => format!("{e} (set extract = \"{extract}\" in the plan)"),
            _ => format!("{e} (pass --extract '{extract}')"),
        },
        Error::Read(ReadError::Strict(bad)) => format!(
            "{bad} (strict mode stops at the first bad row; drop --strict to skip and count bad rows)"
        ),
        Error::Read(ReadError::Duplicates { first, count }) => match set_by {
            ReadingSetBy::Flags => format!(
                "{first}; {count} duplicated rollout(s) in all — fix the input or pass --dedupe first|last"
            ),
            _ => format!(
                "{first}; {count} duplicated rollout(s) in all — fix the input (a gate reads each rollout once)"
            ),
        },
        Error::DuplicateAcrossSummaries { problem, rollout, first, again } => format!(
            "{problem} rollout {rollout} appears in two summaries (first at {first}, again at {again}); pass --dedupe first|last when summarizing, as for duplicated rows"
        ),
        Error::UnreadableFiles { .. } => format!("{e}; drop --strict to read the rest"),
        Error::Format(f) => match set_by {
            ReadingSetBy::Flags | ReadingSetBy::GateFlags => {
                f.worded("pass the format explicitly (--from NAME)") + &map_hint(&f, set_by)
            }
            ReadingSetBy::PlanKeys => {
                f.worded("name the format in the plan (format = \"NAME\")") + &map_hint(&f, set_by)
            }
        },
        Error::TooFewSystems { ref found } => format!(
            "ranking needs two or more systems, found {} ({}); give one input per system, or pass --by FIELD (model, run, …) naming the field that tells them apart",
            found.len(),
            found.join(", ")
        ),
        Error::UnsharedProblems { .. } => format!("{e}; drop --strict to rank on the shared problems"),
        Error::TooFewBenchmarks { .. } => format!(
            "{e}; --suite subset needs problems in two or more subsets, --suite inputs two or more inputs"
        ),
        other => other.to_string(),
    }
}

/// A finding in the CLI's words: the library's text, with the flag that
/// acts on it where there is one.
pub fn finding_text(f: &Finding) -> String {
    use rollstat::DenominatorPolicy as D;
    match f {
        Finding::Failed { n, policy: D::Requested } => format!(
            "{n} rollouts have no verdict (failed call or judge); they count as wrong — use --denominator judged to drop them"
        ),
        Finding::Failed { n, policy: D::Judged } => format!(
            "{n} rollouts have no verdict (failed call or judge); they were dropped from n (--denominator judged)"
        ),
        Finding::BadRows { n } => format!(
            "{n} malformed rows were skipped (named on stderr); --strict makes them an error"
        ),
        Finding::DuplicatesDropped { n } => {
            format!("{n} duplicated rollouts were dropped by --dedupe")
        }
        Finding::IntervalMethod {
            message,
            suggestion: Some(s),
        } => format!("{message} (consider --ci {s})"),
        Finding::UnreadableFiles { files } => format!(
            "{} input file(s) could not be read and were left out (named on stderr): {}; --strict makes this an error",
            files.len(),
            files.join(", ")
        ),
        Finding::DuplicatesAcrossInputs { .. } => format!("{f} (resolved by --dedupe)"),
        Finding::PooledSystems { .. } => format!("{f} — pass --by model"),
        Finding::FieldAbsent { option, field } => {
            Finding::field_absent_text(field, &format!("--{}", option.replace('_', "-")))
        }
        Finding::PooledSubsets { .. } => format!("{f} — pass --by subset"),
        Finding::Readings { field, .. } => format!("{f} — pass --by {field} to report each"),
        Finding::IncompleteRun { rollouts, short, .. } => match (rollouts, short) {
            (Some(r), 1..) => format!(
                "{f} (--n {r} measures samples against the declared n; --strict makes this an error)"
            ),
            _ => format!("{f} (--strict makes this an error)"),
        },
        Finding::UnequalRollouts { .. } => format!("{f} (compare at equal n with --k)"),
        Finding::UncheckedMetric { metric } => format!(
            "--metric {metric}: no row could be computed, so --fail-on does not check it"
        ),
        other => other.to_string(),
    }
}

fn parse_tau(texts: &[String]) -> Result<Vec<f64>> {
    texts
        .iter()
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| usage(format!("--tau: '{t}' is not a number")))
        })
        .collect()
}

/// The metric flags merged onto [`MetricOptions::default()`].
fn metric_options(a: &MetricArgs) -> Result<MetricOptions> {
    let d = MetricOptions::default();
    Ok(MetricOptions {
        k: a.k.clone().or(d.k),
        tau: match &a.tau {
            Some(t) => parse_tau(t)?,
            None => d.tau,
        },
        n: a.n.or(d.n),
        denominator: a.denominator.unwrap_or(d.denominator),
        tie_policy: a.tie_policy.unwrap_or(d.tie_policy),
        score_order: a.score_order.unwrap_or(d.score_order),
        strict: a.strict || d.strict,
        dedupe: a.dedupe.or(d.dedupe),
        decompress_limit: match a.max_decompressed.as_deref() {
            None => d.decompress_limit,
            Some(t) => rollstat::DecompressLimit::total(parse_size(t).ok_or_else(|| {
                usage(format!(
                    "--max-decompressed: '{t}' is not a size (e.g. 4G, 500M, 1048576, none)"
                ))
            })?),
        },
        budget: a.budget.clone().unwrap_or(d.budget),
    })
}

/// `4G`, `500M`, `64K`, `1048576` (bytes, binary units) or `none`.
fn parse_size(t: &str) -> Option<u64> {
    let t = t.trim();
    if t.eq_ignore_ascii_case("none") {
        return Some(u64::MAX);
    }
    let (digits, shift) = match t.to_ascii_uppercase().trim_end_matches(['B', 'I']) {
        s if s.ends_with('K') => (s[..s.len() - 1].to_string(), 10),
        s if s.ends_with('M') => (s[..s.len() - 1].to_string(), 20),
        s if s.ends_with('G') => (s[..s.len() - 1].to_string(), 30),
        s if s.ends_with('T') => (s[..s.len() - 1].to_string(), 40),
        s => (s.to_string(), 0),
    };
    digits.trim().parse::<u64>().ok()?.checked_mul(1 << shift)
}

/// The interval flags merged onto [`IntervalOptions::default()`].
fn interval_options(a: &UncertaintyArgs) -> IntervalOptions {
    let d = IntervalOptions::default();
    IntervalOptions {
        method: a.ci.unwrap_or(d.method),
        level: a.level.unwrap_or(d.level),
        resamples: a.resamples.unwrap_or(d.resamples),
        seed: a.seed.unwrap_or(d.seed),
        cluster_by: a.cluster_by.clone().or(d.cluster_by),
        prior: a.prior.unwrap_or(d.prior),
    }
}

/// The grading policy of `--extract` / `--match`, merged onto
/// [`GradingPolicy::default()`].
pub fn grading_policy(a: &GradingArgs) -> Result<GradingPolicy> {
    let d = GradingPolicy::default();
    let extract = a.extract.as_deref().unwrap_or(d.extract_name());
    GradingPolicy::new(extract, a.matching.unwrap_or(d.matching))
        .map_err(|e| usage(format!("--extract: {e}")))
}

/// The field map of `--map`.
pub fn field_map(a: &ReadingArgs) -> Result<Option<rollstat::FieldMap>> {
    let map = a.map.as_deref();
    map.map(|m| m.parse().map_err(|e| usage(format!("--map: {e}"))))
        .transpose()
}

/// The field map suggested for a file no format fits, as the flag to pass
/// (or the plan key to set).
fn map_hint(e: &rollstat::FormatError, set_by: ReadingSetBy) -> String {
    rollstat::suggested_field_map(e)
        .map(|m| match set_by {
            ReadingSetBy::Flags | ReadingSetBy::GateFlags => {
                format!("; or read it through a field map: --map {m}")
            }
            ReadingSetBy::PlanKeys => {
                format!("; or read it through a field map: map = \"{m}\" in the plan")
            }
        })
        .unwrap_or_default()
}

/// The input format of `--from`.
pub fn source_format(a: &ReadingArgs) -> Result<Option<rollstat::Format>> {
    let from = a.from.as_deref();
    from.map(|f| f.parse().map_err(|e| usage(format!("--from: {e}"))))
        .transpose()
}

/// `rollstat report` flags → [`ReportOptions`] (validated).
pub fn report_options(a: &ReportArgs) -> Result<ReportOptions> {
    let o = ReportOptions {
        metrics: metric_options(&a.metrics)?,
        intervals: interval_options(&a.uncertainty),
        grading: grading_policy(&a.grading)?,
        by: a.by.clone(),
        per_problem: a.per_problem,
        run_by: a.run_by.clone(),
        extrapolate: a.extrapolate.clone(),
        source_format: source_format(&a.reading)?,
        field_map: field_map(&a.reading)?,
        bytes_read: None,
        messages: Some(stderr_sink()),
    };
    o.validate().map_err(cli_error)?;
    Ok(o)
}

/// `rollstat summarize` flags → the [`ReportOptions`] its reading uses.
pub fn summarize_options(a: &crate::summary_cmd::SummarizeArgs) -> Result<ReportOptions> {
    let metric_args = MetricArgs {
        k: None,
        tau: None,
        n: None,
        denominator: None,
        tie_policy: None,
        score_order: None,
        strict: a.strict,
        dedupe: a.dedupe,
        max_decompressed: a.max_decompressed.clone(),
        budget: a.budget.clone(),
    };
    let mut o = ReportOptions {
        metrics: metric_options(&metric_args)?,
        grading: grading_policy(&a.grading)?,
        by: a.by.clone(),
        source_format: source_format(&a.reading)?,
        field_map: field_map(&a.reading)?,
        messages: Some(stderr_sink()),
        ..Default::default()
    };
    o.intervals.cluster_by = a.cluster_by.clone();
    o.validate().map_err(cli_error)?;
    Ok(o)
}

/// `rollstat compare` flags → [`CompareOptions`] (validated).
pub fn compare_options(a: &CompareArgs) -> Result<CompareOptions> {
    let d = CompareOptions::default();
    let o = CompareOptions {
        metrics: metric_options(&a.metrics)?,
        intervals: interval_options(&a.uncertainty),
        grading: grading_policy(&a.grading)?,
        by: a.by.clone().or(d.by),
        a: a.a_name.clone().or(d.a),
        b: a.b_name.clone().or(d.b),
        group_by: a.group_by.clone().or(d.group_by),
        margin: a.margin.or(d.margin),
        fail_on: a.fail_on.or(d.fail_on),
        metric: a.metric.clone().or(d.metric),
        family: a.family.clone().or(d.family),
        permutations: a.permutations.unwrap_or(d.permutations),
        source_format: source_format(&a.reading)?,
        field_map: field_map(&a.reading)?,
        messages: Some(stderr_sink()),
    };
    o.validate().map_err(cli_error)?;
    Ok(o)
}

/// `rollstat power` flags merged onto [`PowerOptions::default()`].
pub fn power_options(a: &PowerArgs) -> PowerOptions {
    let d = PowerOptions::default();
    PowerOptions {
        problems: a.problems.or(d.problems),
        rollouts: a.rollouts.or(d.rollouts),
        delta: a.delta.or(d.delta),
        alpha: a.alpha.unwrap_or(d.alpha),
        power: a.power.unwrap_or(d.power),
        correlation: a.correlation.or(d.correlation),
        omega2: a.omega2.or(d.omega2),
        var_between: a.var_between.or(d.var_between),
        baseline: a.baseline.or(d.baseline),
        sigma2: a.sigma2.or(d.sigma2),
        factors: a.factors.clone().unwrap_or(d.factors),
        metric: a.metric.clone().or(d.metric),
    }
}
