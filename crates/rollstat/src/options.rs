//! Typed options of [`crate::report`], [`crate::compare`] and
//! [`crate::power`]. Every field has a documented default
//! ([`Default`]); [`ReportOptions::validate`] and its siblings check ranges
//! and name the offending field in [`Error::InvalidOption`].

use crate::error::{Error, Result};
use rollstat_core::best::ScoreOrder;
use rollstat_core::summary::DenominatorPolicy;
use rollstat_core::vote::TiePolicy;
use rollstat_formats::{DecompressLimit, Format};
use rollstat_grade::{GradingPolicy, Match};
use rollstat_io::Dedupe;
use rollstat_stats::{BetaPrior, BinomialMethod, CiMethod};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// A closed set of option values, each with one name: [`std::str::FromStr`]
/// reads it, [`std::fmt::Display`] writes it, and [`Choice::ALL`] lists the
/// values in the order help texts name them. The front ends (command-line
/// flags, Python keyword arguments) parse these names and show these
/// defaults; they keep no list of their own.
///
/// ```
/// use rollstat::{Choice, IntervalMethod, TiePolicy};
/// assert_eq!(TiePolicy::names(), ["first", "none", "fractional"]);
/// for m in IntervalMethod::ALL {
///     assert_eq!(m.to_string().parse::<IntervalMethod>(), Ok(*m));
/// }
/// ```
pub trait Choice:
    Copy + PartialEq + std::fmt::Debug + std::fmt::Display + std::str::FromStr<Err = String> + 'static
{
    /// Every value.
    const ALL: &'static [Self];
    /// The name of every value, in the order of [`Choice::ALL`].
    fn names() -> Vec<String> {
        Self::ALL.iter().map(ToString::to_string).collect()
    }
}

impl Choice for TiePolicy {
    const ALL: &'static [Self] = &[TiePolicy::First, TiePolicy::None, TiePolicy::Fractional];
}

impl Choice for DenominatorPolicy {
    const ALL: &'static [Self] = &[DenominatorPolicy::Requested, DenominatorPolicy::Judged];
}

impl Choice for ScoreOrder {
    const ALL: &'static [Self] = &[ScoreOrder::Descending, ScoreOrder::Ascending];
}

impl Choice for Dedupe {
    const ALL: &'static [Self] = &[Dedupe::First, Dedupe::Last];
}

impl Choice for Match {
    const ALL: &'static [Self] = &[Match::Equivalent, Match::Exact];
}

impl Choice for IntervalMethod {
    const ALL: &'static [Self] = &[
        IntervalMethod::Resampled(CiMethod::Percentile),
        IntervalMethod::Resampled(CiMethod::Bca),
        IntervalMethod::Resampled(CiMethod::Basic),
        IntervalMethod::Resampled(CiMethod::T),
        IntervalMethod::Binomial(BinomialMethod::Wilson),
        IntervalMethod::Binomial(BinomialMethod::Jeffreys),
        IntervalMethod::Binomial(BinomialMethod::ClopperPearson),
        IntervalMethod::BetaBinomial,
        IntervalMethod::None,
    ];
}

impl Choice for BetaPrior {
    const ALL: &'static [Self] = &[BetaPrior::Uniform, BetaPrior::Jeffreys];
}

impl Choice for FailOn {
    const ALL: &'static [Self] = &[FailOn::Inferior, FailOn::Inconclusive];
}

/// The names of a [`Choice`] as a list for people: `a, b or c`.
fn one_of<T: Choice>() -> String {
    let names = T::names();
    match names.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// Receives messages for people while sources are read — unreadable files
/// (`error: …`), empty inputs (`warning: …`) and malformed rows
/// (`path:line: reason`, the first 20, then a count) — as they happen, so a
/// front end can show them even when reading then fails.
///
/// ```
/// let sink = rollstat::MessageSink::new(|m| eprintln!("{m}"));
/// sink.send("hello");
/// ```
#[derive(Clone)]
pub struct MessageSink(Arc<dyn Fn(&str) + Send + Sync>);

impl MessageSink {
    /// A sink calling `f` with each message.
    pub fn new(f: impl Fn(&str) + Send + Sync + 'static) -> MessageSink {
        MessageSink(Arc::new(f))
    }
    /// Sends one message.
    pub fn send(&self, message: &str) {
        (self.0)(message)
    }
}

impl std::fmt::Debug for MessageSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MessageSink")
    }
}

/// The interval a report or comparison computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IntervalMethod {
    /// No interval (standard errors only).
    None,
    /// A resampling or t interval over problems (or clusters).
    Resampled(CiMethod),
    /// A binomial interval where each problem contributes one 0/1 value
    /// (others fall back to the percentile bootstrap, and say so).
    Binomial(BinomialMethod),
    /// Model-based: the equal-tailed credible interval of the population
    /// pass@k (avg@n at k = 1) or pass^k under a hierarchical beta-binomial model
    /// with the prior [`IntervalOptions::prior`]
    /// ([`rollstat_stats::hierarchical_pass_at_k`]; docs/statistics.md §12).
    /// pass@k and pass^k rows of an unclustered population only; others fall back to
    /// the percentile bootstrap, and say so. The point estimate stays the
    /// unbiased one.
    BetaBinomial,
}

impl IntervalMethod {
    /// The name recorded in reports: `none`, `bootstrap` (percentile),
    /// `bca`, `basic`, `t`, `wilson`, `jeffreys`, `clopper-pearson`,
    /// `beta-binomial`.
    pub fn name(self) -> &'static str {
        match self {
            IntervalMethod::None => "none",
            IntervalMethod::Resampled(CiMethod::Percentile) => "bootstrap",
            IntervalMethod::Resampled(m) => m.name(),
            IntervalMethod::Binomial(m) => m.name(),
            IntervalMethod::BetaBinomial => "beta-binomial",
        }
    }

    /// Whether the method draws bootstrap resamples (binomial and
    /// beta-binomial methods do, for the metrics that fall back).
    pub fn resamples(self) -> bool {
        matches!(
            self,
            IntervalMethod::Resampled(CiMethod::Percentile | CiMethod::Basic | CiMethod::Bca)
                | IntervalMethod::Binomial(_)
                | IntervalMethod::BetaBinomial
        )
    }
}

impl std::str::FromStr for IntervalMethod {
    type Err = String;
    /// ```
    /// use rollstat::IntervalMethod;
    /// assert_eq!("none".parse::<IntervalMethod>().unwrap(), IntervalMethod::None);
    /// assert_eq!("bootstrap".parse::<IntervalMethod>().unwrap().name(), "bootstrap");
    /// assert!("magic".parse::<IntervalMethod>().is_err());
    /// ```
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        Ok(match s {
            "none" => IntervalMethod::None,
            "bootstrap" | "percentile" => IntervalMethod::Resampled(CiMethod::Percentile),
            "bca" => IntervalMethod::Resampled(CiMethod::Bca),
            "basic" => IntervalMethod::Resampled(CiMethod::Basic),
            "t" => IntervalMethod::Resampled(CiMethod::T),
            "wilson" => IntervalMethod::Binomial(BinomialMethod::Wilson),
            "jeffreys" => IntervalMethod::Binomial(BinomialMethod::Jeffreys),
            "clopper-pearson" => IntervalMethod::Binomial(BinomialMethod::ClopperPearson),
            "beta-binomial" => IntervalMethod::BetaBinomial,
            other => {
                return Err(format!(
                    "unknown method '{other}'; expected {}",
                    one_of::<IntervalMethod>()
                ))
            }
        })
    }
}

impl std::fmt::Display for IntervalMethod {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest number of bootstrap resamples accepted (memory grows with
/// resamples × metrics).
pub const MAX_RESAMPLES: usize = 10_000_000;

/// How intervals are computed.
#[derive(Clone, Debug, PartialEq)]
pub struct IntervalOptions {
    /// Default: percentile bootstrap.
    pub method: IntervalMethod,
    /// Two-sided level; default 0.95.
    pub level: f64,
    /// Bootstrap resamples; default 10,000.
    pub resamples: usize,
    /// Seed of the resampling streams (output is identical for any thread
    /// count); default 20260729.
    pub seed: u64,
    /// Field whose values cluster problems: CR1 standard errors and a
    /// bootstrap over whole clusters. Default: none.
    pub cluster_by: Option<String>,
    /// The prior of the model-based [`IntervalMethod::BetaBinomial`]
    /// interval (on the population's mean success rate); default uniform
    /// Beta(1, 1).
    pub prior: BetaPrior,
}

impl Default for IntervalOptions {
    fn default() -> Self {
        IntervalOptions {
            method: IntervalMethod::Resampled(CiMethod::Percentile),
            level: 0.95,
            resamples: 10_000,
            seed: 20_260_729,
            cluster_by: None,
            prior: BetaPrior::Uniform,
        }
    }
}

impl IntervalOptions {
    /// Checks `level` and `resamples`.
    pub fn validate(&self) -> Result<()> {
        if !(self.level > 0.0 && self.level < 1.0) {
            return Err(Error::invalid(
                "level",
                format!("{} is not in (0, 1)", self.level),
            ));
        }
        if self.resamples < 2 {
            return Err(Error::invalid("resamples", "need at least 2"));
        }
        if self.resamples > MAX_RESAMPLES {
            return Err(Error::invalid(
                "resamples",
                format!("{} exceeds the maximum of {MAX_RESAMPLES}", self.resamples),
            ));
        }
        Ok(())
    }
}

/// A G-Pass threshold τ in [0, 1].
pub(crate) fn tau_text(t: f64) -> String {
    // `{:?}` keeps one decimal for whole numbers: 1.0 → "1.0", 0.5 → "0.5".
    format!("{t:?}")
}

/// Which field holds each rollout's budget (tokens, cost, seconds).
///
/// ```
/// use rollstat::Budget;
/// assert_eq!("none".parse::<Budget>(), Ok(Budget::Off));
/// assert_eq!("cost".parse::<Budget>(), Ok(Budget::Field("cost".into())));
/// assert_eq!(Budget::Auto.field(), Some("output_tokens"));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Budget {
    /// `output_tokens` when every rollout has it; a report only (compare
    /// matches budgets only for a named field).
    #[default]
    Auto,
    /// No budget metrics.
    Off,
    /// This field; rollouts without it are counted as missing.
    Field(String),
}

/// The field [`Budget::Auto`] reads.
pub const DEFAULT_BUDGET_FIELD: &str = "output_tokens";

impl Budget {
    /// The field to read, if any.
    pub fn field(&self) -> Option<&str> {
        match self {
            Budget::Auto => Some(DEFAULT_BUDGET_FIELD),
            Budget::Off => None,
            Budget::Field(f) => Some(f),
        }
    }
}

impl std::str::FromStr for Budget {
    type Err = String;
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "" => Err("the budget field name is empty".into()),
            "none" => Ok(Budget::Off),
            "auto" => Ok(Budget::Auto),
            f => Ok(Budget::Field(f.to_string())),
        }
    }
}

/// What to compute, shared by report and compare.
#[derive(Clone, Debug, PartialEq)]
pub struct MetricOptions {
    /// Draw sizes k; default: 1, 2, 4, … up to n, and n.
    pub k: Option<Vec<u64>>,
    /// G-Pass thresholds τ; default 0.25, 0.5, 0.75, 1.0.
    pub tau: Vec<f64>,
    /// Requested rollouts per problem; default: the largest n seen.
    pub n: Option<u64>,
    /// Failed rollouts count as wrong (`Requested`, default) or are dropped.
    pub denominator: DenominatorPolicy,
    /// maj@n and maj@k tie policy; default `First`.
    pub tie_policy: TiePolicy,
    /// Which selector scores are better for bon@k and wmaj@n; default
    /// `Descending` (higher is better).
    pub score_order: ScoreOrder,
    /// The first bad row or short problem is an error; default false.
    pub strict: bool,
    /// Keep the first or last of duplicated rollouts instead of failing.
    pub dedupe: Option<Dedupe>,
    /// How far gzip / zstd inputs and `.eval` archives may expand when read;
    /// default 100× their size, at least 256 MiB.
    pub decompress_limit: DecompressLimit,
    /// The budget field (budget@k, cost_of_pass@k, budget-matched
    /// comparison); default [`Budget::Auto`].
    pub budget: Budget,
}

impl Default for MetricOptions {
    fn default() -> Self {
        MetricOptions {
            k: None,
            tau: vec![0.25, 0.5, 0.75, 1.0],
            n: None,
            denominator: DenominatorPolicy::Requested,
            tie_policy: TiePolicy::First,
            score_order: ScoreOrder::Descending,
            strict: false,
            dedupe: None,
            decompress_limit: DecompressLimit::default(),
            budget: Budget::Auto,
        }
    }
}

/// Largest k or n accepted (2⁶²: doubling k stays in range).
pub const MAX_DRAW: u64 = 1 << 62;

impl MetricOptions {
    /// Checks `k`, `tau` and `n`.
    pub fn validate(&self) -> Result<()> {
        for &t in &self.tau {
            if !(0.0..=1.0).contains(&t) {
                return Err(Error::invalid("tau", format!("{t} is outside [0, 1]")));
            }
        }
        if let Some(ks) = &self.k {
            if ks.contains(&0) {
                return Err(Error::invalid("k", "k must be at least 1"));
            }
            if let Some(k) = ks.iter().find(|&&k| k > MAX_DRAW) {
                return Err(Error::invalid(
                    "k",
                    format!("{k} exceeds the maximum of 2^62"),
                ));
            }
        }
        match self.n {
            Some(0) => Err(Error::invalid(
                "n",
                "the requested rollouts must be at least 1",
            )),
            Some(n) if n > MAX_DRAW => Err(Error::invalid(
                "n",
                format!("{n} exceeds the maximum of 2^62"),
            )),
            _ => Ok(()),
        }
    }

    /// The thresholds with the text used in metric names (`g-pass@4_0.5`).
    pub(crate) fn taus(&self) -> Vec<(f64, String)> {
        self.tau.iter().map(|&t| (t, tau_text(t))).collect()
    }
}

/// Options of [`crate::report()`].
///
/// ```
/// let opts = rollstat::ReportOptions::default();
/// assert_eq!(opts.intervals.level, 0.95);
/// assert!(opts.validate().is_ok());
/// ```
#[derive(Clone, Debug, Default)]
pub struct ReportOptions {
    /// What to compute.
    pub metrics: MetricOptions,
    /// How intervals are computed.
    pub intervals: IntervalOptions,
    /// How answers are extracted, graded and clustered; default: extract
    /// `math`, match `equivalent`.
    pub grading: GradingPolicy,
    /// Break metrics down by this field (subset, model, any column).
    pub by: Option<String>,
    /// Include every problem's per-metric values.
    pub per_problem: bool,
    /// What a trial of the reliability block is: `None` (default) takes
    /// the rollout index, its rollouts exchangeable; `rollout`, `trial` or
    /// `epoch` name the index (native adapters put a trial or epoch
    /// there); `run` or `model` make each run label a run, problems matched
    /// across runs by subset and id.
    pub run_by: Option<String>,
    /// K to extrapolate pass@K to from a beta-binomial fit (typically
    /// K > n; docs/statistics.md §7); empty (default): no extrapolation.
    pub extrapolate: Vec<u64>,
    /// The input format, overriding detection (paths and bytes only).
    pub source_format: Option<Format>,
    /// Where each canonical field is in inputs of a layout no format
    /// knows (paths and bytes only; see [`rollstat_io::field_map`]); every
    /// file is read through it instead of detected.
    pub field_map: Option<rollstat_io::field_map::FieldMap>,
    /// Bytes read so far, updated while reading (for a progress display).
    pub bytes_read: Option<Arc<AtomicU64>>,
    /// Where messages about the reading go as they happen; without one they
    /// are kept in [`crate::Report::diagnostics`].
    pub messages: Option<MessageSink>,
}

impl ReportOptions {
    /// Checks every range.
    pub fn validate(&self) -> Result<()> {
        self.metrics.validate()?;
        crate::reliability::check_run_by(self.run_by.as_deref())?;
        if let Some(&k) = self.extrapolate.iter().find(|&&k| k == 0 || k > MAX_DRAW) {
            return Err(Error::invalid(
                "extrapolate",
                format!("{k} is outside 1 … 2^62"),
            ));
        }
        self.intervals.validate()
    }
}

/// Which verdict makes [`crate::Comparison::fail`] fail.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum FailOn {
    /// Fail when a checked row is `inferior`.
    Inferior,
    /// Fail unless every checked row is `non-inferior`.
    Inconclusive,
}

impl FailOn {
    /// `inferior` or `inconclusive`.
    pub fn name(self) -> &'static str {
        match self {
            FailOn::Inferior => "inferior",
            FailOn::Inconclusive => "inconclusive",
        }
    }
}

impl std::fmt::Display for FailOn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

impl std::str::FromStr for FailOn {
    type Err = String;
    /// ```
    /// use rollstat::FailOn;
    /// assert_eq!("inferior".parse::<FailOn>(), Ok(FailOn::Inferior));
    /// assert!("worse".parse::<FailOn>().is_err());
    /// ```
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        match s {
            "inferior" => Ok(FailOn::Inferior),
            "inconclusive" => Ok(FailOn::Inconclusive),
            other => Err(format!(
                "unknown verdict '{other}'; expected 'inferior' or 'inconclusive'"
            )),
        }
    }
}

/// Options of [`crate::compare()`].
#[derive(Clone, Debug)]
pub struct CompareOptions {
    /// What to compute (as for a report).
    pub metrics: MetricOptions,
    /// How intervals are computed; binomial methods are refused.
    pub intervals: IntervalOptions,
    /// How answers are extracted, graded and clustered (as for a report).
    pub grading: GradingPolicy,
    /// One input: the field that names the systems (`model` or `run`).
    pub by: Option<String>,
    /// One input: the value of `by` that is system A (default: the first seen).
    pub a: Option<String>,
    /// One input: the value of `by` that is system B (default: the second seen).
    pub b: Option<String>,
    /// Two inputs: also compare per value of this field.
    pub group_by: Option<String>,
    /// Non-inferiority margin (a fraction: 0.02 = 2 points).
    pub margin: Option<f64>,
    /// Which verdict fails the check; needs `margin`.
    pub fail_on: Option<FailOn>,
    /// Metrics the check covers (default: every overall row with a verdict).
    pub metric: Option<Vec<String>>,
    /// The primary metrics: the overall rows Holm and BH adjust over (and
    /// the summary counts), the first one the headline. `None`: the
    /// default family, one overall row per catalogue family at its
    /// headline k ([`rollstat_core::catalogue::Primary`]: pass@1, pass^n,
    /// maj@n). A row that is another row by definition (`same_as`) never
    /// enters; budget-matched and group rows enter no family.
    pub family: Option<Vec<String>>,
    /// Random sign-flip permutations (exact enumeration when 2^m ≤ this);
    /// default 10,000.
    pub permutations: usize,
    /// The input format, overriding detection (paths and bytes only).
    pub source_format: Option<Format>,
    /// Reads both sides' files through this field map (a layout no format
    /// knows; paths and bytes only, as for a report).
    pub field_map: Option<rollstat_io::field_map::FieldMap>,
    /// Where messages about the reading go as they happen (see
    /// [`MessageSink`]); without one they are dropped.
    pub messages: Option<MessageSink>,
}

impl Default for CompareOptions {
    fn default() -> Self {
        CompareOptions {
            metrics: MetricOptions::default(),
            intervals: IntervalOptions::default(),
            grading: GradingPolicy::default(),
            by: None,
            a: None,
            b: None,
            group_by: None,
            margin: None,
            fail_on: None,
            metric: None,
            family: None,
            permutations: 10_000,
            source_format: None,
            field_map: None,
            messages: None,
        }
    }
}

/// Largest number of sign-flip permutations accepted.
pub const MAX_PERMUTATIONS: usize = 100_000_000;

impl CompareOptions {
    /// Checks every range and the combinations (`fail_on` needs `margin`,
    /// a margin needs an interval, …).
    pub fn validate(&self) -> Result<()> {
        self.metrics.validate()?;
        self.intervals.validate()?;
        if let Some(m) = self.margin {
            if !(m > 0.0 && m < 1.0) {
                return Err(Error::invalid(
                    "margin",
                    format!(
                        "{} is not in (0, 1) (a fraction: 0.02 = 2 points)",
                        shown(m)
                    ),
                ));
            }
            if self.intervals.method == IntervalMethod::None {
                return Err(Error::invalid(
                    "margin",
                    "a margin needs an interval (the interval method is none)",
                ));
            }
            if self.intervals.level <= 0.5 {
                return Err(Error::invalid(
                    "level",
                    "the verdict uses one-sided bounds at this level, which must exceed 0.5",
                ));
            }
        }
        if self.fail_on.is_some() && self.margin.is_none() {
            return Err(Error::invalid("fail_on", "needs a margin"));
        }
        if self.family.as_ref().is_some_and(Vec::is_empty) {
            return Err(Error::invalid(
                "family",
                "names no metric (leave it unset for the default family)",
            ));
        }
        if self.permutations == 0 {
            return Err(Error::invalid("permutations", "need at least 1"));
        }
        if self.permutations > MAX_PERMUTATIONS {
            return Err(Error::invalid(
                "permutations",
                format!(
                    "{} exceeds the maximum of {MAX_PERMUTATIONS}",
                    self.permutations
                ),
            ));
        }
        if let IntervalMethod::Binomial(b) = self.intervals.method {
            return Err(Error::invalid(
                "method",
                format!("{}: binomial intervals are for one proportion; a paired difference needs bootstrap, bca, basic or t", b.name()),
            ));
        }
        if self.intervals.method == IntervalMethod::BetaBinomial {
            return Err(Error::invalid(
                "method",
                "beta-binomial: the model-based interval is for one system's pass@k; a paired difference needs bootstrap, bca, basic or t",
            ));
        }
        Ok(())
    }
}

/// An option's value for an error message: as written when ordinary, in
/// scientific notation when huge (1e308 printed in full is 309 digits).
pub(crate) fn shown(v: f64) -> String {
    if v.abs() < 1e9 {
        v.to_string()
    } else {
        format!("{v:e}")
    }
}
