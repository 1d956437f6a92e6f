//! Flags → the engine's typed options, and the engine's errors and findings
//! → words that name flags.

use crate::args::{CompareArgs, GradingArgs, MetricArgs, PowerArgs, ReportArgs, UncertaintyArgs};
use anyhow::Result;
use rollstat::{
    CompareOptions, Error, FailOn, Finding, GradingPolicy, IntervalOptions, Match, MetricOptions,
    PowerOptions, ReportOptions,
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
        "matching" => "--match".into(),
        other => format!("--{}", other.replace('_', "-")),
    }
}

/// Library text with the flag that acts on it named.
pub fn cli_text(m: &str) -> String {
    m.replace(
        "Fix: name the format explicitly,",
        "Fix: pass the format explicitly (--from NAME),",
    )
    .replace(
        "(strict mode stops at the first bad row)",
        "(strict mode stops at the first bad row; drop --strict to skip and count bad rows)",
    )
    .replace(
        "choose which to keep (first or last)",
        "pass --dedupe first|last",
    )
}

/// Messages of the reading go to stderr as they happen.
pub fn stderr_sink() -> rollstat::MessageSink {
    rollstat::MessageSink::new(|m| eprintln!("rollstat: {}", cli_text(m)))
}

/// The engine's error in the CLI's words (flags named, advice added).
pub fn cli_error(e: Error) -> anyhow::Error {
    let text = match e {
        Error::InvalidOption { option, message } if option.0 == "by" && message.starts_with("one input:") => {
            "one input: pass --by model (or --by run) to say which field holds the two systems, or give two inputs A B".into()
        }
        Error::InvalidOption { option, message } => format!("{}: {message}", flag(option.0)),
        Error::Input(m) if m.contains("strict mode rejects short problems") => {
            format!("{m}; drop --strict to report them as n_short")
        }
        Error::Input(m) if m.contains("strict mode rejects unreadable files") => {
            format!("{m}; drop --strict to read the rest")
        }
        other => cli_text(&other.to_string()),
    };
    usage(text)
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
        Finding::PooledSystems { .. } => format!("{f} — pass --by model"),
        Finding::UnequalRollouts { .. } => format!("{f} (compare at equal n with --k)"),
        Finding::UncheckedMetric { metric } => format!(
            "--metric {metric}: no row could be computed, so --fail-on does not check it"
        ),
        other => other.to_string(),
    }
}

/// G-Pass thresholds when `--tau` is not given.
const DEFAULT_TAU: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

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

fn metric_options(a: &MetricArgs) -> Result<MetricOptions> {
    Ok(MetricOptions {
        k: a.k.clone(),
        tau: match &a.tau {
            Some(t) => parse_tau(t)?,
            None => DEFAULT_TAU.to_vec(),
        },
        n: a.n,
        denominator: a
            .denominator
            .parse()
            .map_err(|e| usage(format!("--denominator: {e}")))?,
        tie_policy: a
            .tie_policy
            .parse()
            .map_err(|e| usage(format!("--tie-policy: {e}")))?,
        score_order: a
            .score_order
            .parse()
            .map_err(|e| usage(format!("--score-order: {e}")))?,
        strict: a.strict,
        dedupe: a
            .dedupe
            .as_deref()
            .map(str::parse)
            .transpose()
            .map_err(|e| usage(format!("--dedupe: {e}")))?,
        decompress_limit: match a.max_decompressed.as_deref() {
            None => rollstat::DecompressLimit::default(),
            Some(t) => rollstat::DecompressLimit::total(parse_size(t).ok_or_else(|| {
                usage(format!(
                    "--max-decompressed: '{t}' is not a size (e.g. 4G, 500M, 1048576, none)"
                ))
            })?),
        },
        budget: match &a.budget {
            Some(b) => b.parse().map_err(|e| usage(format!("--budget: {e}")))?,
            None => Default::default(),
        },
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

fn interval_options(a: &UncertaintyArgs) -> Result<IntervalOptions> {
    Ok(IntervalOptions {
        method: a.ci.parse().map_err(|e| usage(format!("--ci: {e}")))?,
        level: a.level,
        resamples: a.resamples,
        seed: a.seed,
        cluster_by: a.cluster_by.clone(),
    })
}

/// The grading policy of `--extract` / `--match`.
pub fn grading_policy(a: &GradingArgs) -> Result<GradingPolicy> {
    let matching: Match = a
        .matching
        .parse()
        .map_err(|e| usage(format!("--match: {e}")))?;
    GradingPolicy::new(&a.extract, matching).map_err(|e| usage(format!("--extract: {e}")))
}

fn source_format(from: Option<&str>) -> Result<Option<rollstat::Format>> {
    from.map(|f| f.parse().map_err(|e| usage(format!("--from: {e}"))))
        .transpose()
}

/// `rollstat report` flags → [`ReportOptions`] (validated).
pub fn report_options(a: &ReportArgs) -> Result<ReportOptions> {
    let o = ReportOptions {
        metrics: metric_options(&a.metrics)?,
        intervals: interval_options(&a.uncertainty)?,
        grading: grading_policy(&a.grading)?,
        by: a.by.clone(),
        per_problem: a.per_problem,
        extrapolate: a.extrapolate.clone(),
        source_format: source_format(a.from.as_deref())?,
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
        denominator: "requested".into(),
        tie_policy: "first".into(),
        score_order: "descending".into(),
        strict: a.strict,
        dedupe: a.dedupe.clone(),
        max_decompressed: a.max_decompressed.clone(),
        budget: a.budget.clone(),
    };
    let mut o = ReportOptions {
        metrics: metric_options(&metric_args)?,
        grading: grading_policy(&a.grading)?,
        by: a.by.clone(),
        source_format: source_format(a.from.as_deref())?,
        messages: Some(stderr_sink()),
        ..Default::default()
    };
    o.intervals.cluster_by = a.cluster_by.clone();
    o.validate().map_err(cli_error)?;
    Ok(o)
}

/// `rollstat compare` flags → [`CompareOptions`] (validated).
pub fn compare_options(a: &CompareArgs) -> Result<CompareOptions> {
    let o = CompareOptions {
        metrics: metric_options(&a.metrics)?,
        intervals: interval_options(&a.uncertainty)?,
        grading: grading_policy(&a.grading)?,
        by: a.by.clone(),
        a: a.a_name.clone(),
        b: a.b_name.clone(),
        group_by: a.group_by.clone(),
        margin: a.margin,
        fail_on: a.fail_on.map(|f| match f {
            crate::args::FailOn::Inferior => FailOn::Inferior,
            crate::args::FailOn::Inconclusive => FailOn::Inconclusive,
        }),
        metric: a.metric.clone(),
        permutations: a.permutations,
        source_format: None,
        messages: Some(stderr_sink()),
    };
    o.validate().map_err(cli_error)?;
    Ok(o)
}

/// `rollstat power` flags → [`PowerOptions`].
pub fn power_options(a: &PowerArgs) -> PowerOptions {
    PowerOptions {
        problems: a.problems,
        rollouts: a.rollouts,
        delta: a.delta,
        alpha: a.alpha,
        power: a.power,
        correlation: a.correlation,
        omega2: a.omega2,
        var_between: a.var_between,
        baseline: a.baseline,
        sigma2: a.sigma2,
        factors: a.factors.clone(),
        metric: a.metric.clone(),
    }
}
