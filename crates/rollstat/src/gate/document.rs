//! The `rollstat.gate/1` document: one release decision over a suite of
//! benchmarks (docs/gate.md). Every renderer and binding reads this type.

use crate::findings::Finding;
use rollstat_core::input::InputInfo;
use rollstat_stats::Interval;
use serde::{Deserialize, Serialize};
use std::fmt;

/// JSON schema name of the gate output.
pub const GATE_SCHEMA: &str = "rollstat.gate/1";

/// The suite's decision.
///
/// ```
/// assert_eq!(rollstat::Decision::NoGo.name(), "NO-GO");
/// assert_eq!(rollstat::Decision::NoGo.exit_code(), 1);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Decision {
    /// Ship: exit code 0.
    #[serde(rename = "GO")]
    Go,
    /// Do not ship: exit code 1.
    #[serde(rename = "NO-GO")]
    NoGo,
    /// Not enough evidence either way: exit code 3.
    #[serde(rename = "INCONCLUSIVE")]
    Inconclusive,
}

impl Decision {
    /// `GO`, `NO-GO` or `INCONCLUSIVE`.
    pub fn name(self) -> &'static str {
        match self {
            Decision::Go => "GO",
            Decision::NoGo => "NO-GO",
            Decision::Inconclusive => "INCONCLUSIVE",
        }
    }

    /// The process exit code a front end gives it: 0 GO, 1 NO-GO, 3
    /// INCONCLUSIVE (2 is bad input).
    pub fn exit_code(self) -> i32 {
        match self {
            Decision::Go => 0,
            Decision::NoGo => 1,
            Decision::Inconclusive => 3,
        }
    }
}

impl fmt::Display for Decision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A benchmark's status against its margin.
///
/// ```
/// assert_eq!(rollstat::BenchmarkStatus::Breach.name(), "BREACH");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BenchmarkStatus {
    /// The drop's upper bound is within the margin.
    Pass,
    /// The drop's lower bound is beyond the margin.
    Breach,
    /// Neither: the interval straddles the margin.
    Insufficient,
    /// One side has no problems for the benchmark.
    Missing,
}

impl BenchmarkStatus {
    /// `PASS`, `BREACH`, `INSUFFICIENT` or `MISSING`.
    pub fn name(self) -> &'static str {
        match self {
            BenchmarkStatus::Pass => "PASS",
            BenchmarkStatus::Breach => "BREACH",
            BenchmarkStatus::Insufficient => "INSUFFICIENT",
            BenchmarkStatus::Missing => "MISSING",
        }
    }
}

/// How much a benchmark counts in the margin rule.
///
/// ```
/// use rollstat::Tier;
/// assert_eq!("advisory".parse::<Tier>().unwrap(), Tier::Advisory);
/// assert!(Tier::Critical.blocks() && !Tier::Advisory.blocks());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    /// Blocks a release.
    Critical,
    /// Blocks a release (the default).
    #[default]
    Supporting,
    /// Shown, never blocks.
    Advisory,
}

impl Tier {
    /// `critical`, `supporting` or `advisory`.
    pub fn name(self) -> &'static str {
        match self {
            Tier::Critical => "critical",
            Tier::Supporting => "supporting",
            Tier::Advisory => "advisory",
        }
    }

    /// Whether the benchmark's status can make the margin rule NO-GO or
    /// INCONCLUSIVE.
    pub fn blocks(self) -> bool {
        self != Tier::Advisory
    }
}

impl std::str::FromStr for Tier {
    type Err = String;
    fn from_str(s: &str) -> Result<Tier, String> {
        match s {
            "critical" => Ok(Tier::Critical),
            "supporting" => Ok(Tier::Supporting),
            "advisory" => Ok(Tier::Advisory),
            other => Err(format!(
                "unknown tier '{other}' (critical, supporting or advisory)"
            )),
        }
    }
}

/// How the benchmarks are weighted in the suite's difference.
///
/// ```
/// assert_eq!("macro".parse::<rollstat::Weighting>().unwrap(), rollstat::Weighting::Macro);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Weighting {
    /// Each problem counts once: benchmark weight ∝ its matched problems.
    #[default]
    Micro,
    /// Each benchmark counts once.
    Macro,
    /// The weights the plan gives each benchmark.
    Declared,
}

impl Weighting {
    /// `micro`, `macro` or `declared`.
    pub fn name(self) -> &'static str {
        match self {
            Weighting::Micro => "micro",
            Weighting::Macro => "macro",
            Weighting::Declared => "declared",
        }
    }
}

impl std::str::FromStr for Weighting {
    type Err = String;
    fn from_str(s: &str) -> Result<Weighting, String> {
        match s {
            "micro" => Ok(Weighting::Micro),
            "macro" => Ok(Weighting::Macro),
            "declared" => Ok(Weighting::Declared),
            other => Err(format!(
                "unknown weighting '{other}' (micro, macro or declared)"
            )),
        }
    }
}

/// Which rule makes the decision (both are always computed).
///
/// ```
/// assert_eq!("detect".parse::<rollstat::GateRule>().unwrap(), rollstat::GateRule::Detect);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum GateRule {
    /// NO-GO when a blocking benchmark is BREACH (or MISSING) or the suite's
    /// drop is beyond the suite margin; INCONCLUSIVE when one is
    /// INSUFFICIENT; else GO.
    #[default]
    Margin,
    /// NO-GO when any of the three combination tests rejects at α/3.
    Detect,
}

impl GateRule {
    /// `margin` or `detect`.
    pub fn name(self) -> &'static str {
        match self {
            GateRule::Margin => "margin",
            GateRule::Detect => "detect",
        }
    }
}

impl std::str::FromStr for GateRule {
    type Err = String;
    fn from_str(s: &str) -> Result<GateRule, String> {
        match s {
            "margin" => Ok(GateRule::Margin),
            "detect" => Ok(GateRule::Detect),
            other => Err(format!("unknown rule '{other}' (margin or detect)")),
        }
    }
}

/// The declared plan, as run.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct PlanRecord {
    /// Where the plan came from: its path, or `command line` for the
    /// short form (then `text` is the equivalent plan).
    pub source: String,
    /// The plan's text (TOML).
    pub text: String,
    /// SHA-256 of `text`, lowercase hex.
    pub sha256: String,
}

/// Suite-wide settings behind the numbers.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct GateSettings {
    /// The primary metric (`pass@1`, `pass^4`, `maj@8`, …).
    pub metric: String,
    /// The benchmark weighting of the suite's difference.
    pub weights: Weighting,
    /// The declared decision rule.
    pub rule: GateRule,
    /// Significance level α: one-sided bounds at 1 − α, each combination
    /// test at α/3.
    pub alpha: f64,
    /// The suite margin (a fraction; null: none).
    pub suite_margin: Option<f64>,
    /// Whether McNemar tests use the mid-p.
    pub mid_p: bool,
    /// Field whose values cluster problems; null without clustering.
    pub cluster_by: Option<String>,
    /// The interval method (`bootstrap`, `cluster-bootstrap`, `t`, …).
    pub method: String,
    /// Bootstrap resamples.
    pub resamples: u64,
    /// Random sign-flip and label permutations.
    pub permutations: u64,
    /// Seed of every random procedure.
    pub seed: u64,
    /// Random-stream scheme.
    pub rng: String,
    /// Flipped problems listed per benchmark, at most.
    pub flips_listed: u64,
    /// How rows without a verdict were graded (`equivalence, extract=math`).
    #[serde(default)]
    pub grading: String,
}

/// A benchmark's margin.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Margin {
    /// Largest acceptable drop as declared (a fraction: 0.01 = 1 point).
    pub absolute: f64,
    /// Largest acceptable drop relative to A's value, when declared
    /// (0.05 = 5% of A).
    pub relative: Option<f64>,
    /// The margin used: the smaller of `absolute` and `relative × A`.
    pub used: f64,
}

/// The one-sided test for degradation of one benchmark.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "kebab-case")]
pub enum TestMethod {
    /// Exact McNemar on the discordant problems (one 0/1 outcome per side).
    McnemarExact,
    /// McNemar's mid-p.
    McnemarMidP,
    /// Sign-flip test on per-problem drops, every pattern enumerated.
    SignFlipExact,
    /// Sign-flip test on per-problem drops, seeded random patterns.
    SignFlipRandom,
}

impl TestMethod {
    /// The method's name as on the wire.
    pub fn name(self) -> &'static str {
        match self {
            TestMethod::McnemarExact => "mcnemar-exact",
            TestMethod::McnemarMidP => "mcnemar-mid-p",
            TestMethod::SignFlipExact => "sign-flip-exact",
            TestMethod::SignFlipRandom => "sign-flip-random",
        }
    }
}

/// One-sided test of "B is worse than A".
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct DegradationTest {
    /// How it was computed.
    pub method: TestMethod,
    /// One-sided p of the drop (A − B > 0).
    pub p: f64,
    /// z = Σd/√Σd² over per-problem drops d = A − B ((b − c)/√(b + c)
    /// on 0/1 outcomes); null when no problem differs.
    pub z: Option<f64>,
}

/// Flips of one benchmark: problems one model solves and the other does
/// not, against the rate at which each model disagrees with itself.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Flips {
    /// b: A right, B wrong (expected count over random rollout pairs; the
    /// count itself when each side has one rollout per problem).
    pub a_only: f64,
    /// c: A wrong, B right.
    pub b_only: f64,
    /// (b + c) / problems.
    pub rate: f64,
    /// A's within-model flip rate (mean 2c(n−c)/(n(n−1))); null with one
    /// rollout per problem.
    pub floor_a: Option<f64>,
    /// B's within-model flip rate.
    pub floor_b: Option<f64>,
    /// The mean of the two floors.
    pub floor: Option<f64>,
    /// The excess flip: the drift left at equal accuracy, mean of the
    /// unbiased per-problem estimates of (p_A − p_B)²; null with one
    /// rollout per problem on a side.
    pub excess: Option<f64>,
    /// Its two-sided interval at 1 − α (t over problems).
    #[serde(with = "crate::document::bounds_pair")]
    pub excess_ci: Option<Interval>,
    /// One-sided permutation p of excess > 0 (model labels permuted within
    /// each problem).
    pub excess_p: Option<f64>,
    /// Each side had one rollout per problem.
    pub single_draw: bool,
}

/// One side of a listed flipped problem.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlippedSide {
    /// Correct rollouts.
    pub c: u64,
    /// Rollouts.
    pub n: u64,
    /// The answers, in rollout order (empty for count rows).
    pub answers: Vec<Option<String>>,
    /// The responses, when the input has them and they were kept.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub responses: Vec<Option<String>>,
}

/// A problem whose outcome differs between the two sides.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FlippedProblem {
    /// `subset/id` or the id.
    pub problem: String,
    /// A − B of the correct fraction (positive: B lost it).
    pub drop: f64,
    /// The baseline.
    pub a: FlippedSide,
    /// The candidate.
    pub b: FlippedSide,
}

fn bootstrap_name() -> String {
    "bootstrap".into()
}

/// One benchmark's row.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkRow {
    /// The benchmark's name (declared, or its subset / file).
    pub name: String,
    /// Its tier.
    pub tier: Tier,
    /// Its normalised weight in the suite's difference (0 when missing).
    pub weight: f64,
    /// Its status against `margin`.
    pub status: BenchmarkStatus,
    /// Its margin.
    pub margin: Margin,
    /// Matched problems (on both sides); every number is over these.
    pub n_problems: u64,
    /// Problems only A has (left out).
    pub only_a: Vec<String>,
    /// Problems only B has (left out).
    pub only_b: Vec<String>,
    /// Largest rollouts per problem on A.
    pub n_a: u64,
    /// Largest rollouts per problem on B.
    pub n_b: u64,
    /// A's primary metric (null when MISSING).
    #[serde(with = "nan_null")]
    pub a: f64,
    /// B's primary metric.
    #[serde(with = "nan_null")]
    pub b: f64,
    /// B − A.
    #[serde(with = "nan_null")]
    pub delta: f64,
    /// Paired SE of delta.
    pub stderr: Option<f64>,
    /// Interval of B − A whose ends are the one-sided bounds at 1 − α
    /// (two-sided at 1 − 2α: 90% at α = 0.05), as non-inferiority is read.
    #[serde(with = "crate::document::bounds_pair")]
    pub ci: Option<Interval>,
    /// How `ci` was computed: `tango-score` (Tango's score interval for
    /// paired proportions, when every problem has one 0/1 value a side and
    /// problems are not clustered) or `bootstrap` (the paired bootstrap
    /// over problems or clusters, as compare computes its rows).
    #[serde(default = "bootstrap_name")]
    pub interval_method: String,
    /// One-sided bounds of the drop A − B at 1 − α each: the status reads
    /// them (`[lower, upper]`; `ci` negated).
    #[serde(with = "crate::document::bounds_pair")]
    pub drop_bounds: Option<Interval>,
    /// The one-sided test for degradation.
    pub test: Option<DegradationTest>,
    /// Flips against their floor.
    pub flips: Option<Flips>,
    /// With INSUFFICIENT: problems needed for the bound to clear the
    /// margin at 80% power, at the observed drop and variance.
    pub problems_needed: Option<u64>,
    /// The flipped problems, largest drop first (at most
    /// `settings.flips_listed`).
    pub flipped: Vec<FlippedProblem>,
    /// Flipped problems in all.
    pub n_flipped: u64,
    /// A's inputs.
    pub inputs_a: Vec<InputInfo>,
    /// B's inputs.
    pub inputs_b: Vec<InputInfo>,
}

/// One combination test over the benchmarks.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct CombinedTest {
    /// `pooled`, `fisher` or `max-drop`.
    pub name: String,
    /// How: `exact binomial`, `sign-flip (exact)`, `χ² on 2T df`, …
    pub method: String,
    /// The statistic (pooled: the weighted drop or b − c; Fisher: χ²;
    /// max-drop: z_max).
    #[serde(with = "nan_null")]
    pub statistic: f64,
    /// One-sided p.
    pub p: f64,
    /// p ≤ α/3.
    pub rejects: bool,
}

/// Heterogeneity of the benchmarks' differences.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SuiteHeterogeneity {
    /// Cochran's Q.
    pub q: f64,
    /// Its degrees of freedom (benchmarks − 1).
    pub df: u64,
    /// χ² p of Q.
    pub p: f64,
    /// I² = max(0, (Q − df)/Q).
    pub i2: f64,
    /// Benchmarks where B is ahead and where B is behind, when both exist.
    pub up: Vec<String>,
    /// See `up`.
    pub down: Vec<String>,
}

/// A rule's decision and why.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RuleOutcome {
    /// The decision under the rule.
    pub decision: Decision,
    /// Why, one line each.
    pub reasons: Vec<String>,
}

/// The suite row.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SuiteRow {
    /// Benchmarks with a row on both sides.
    pub n_benchmarks: u64,
    /// Matched problems over those benchmarks.
    pub n_problems: u64,
    /// Weighted A.
    #[serde(with = "nan_null")]
    pub a: f64,
    /// Weighted B.
    #[serde(with = "nan_null")]
    pub b: f64,
    /// Weighted B − A.
    #[serde(with = "nan_null")]
    pub delta: f64,
    /// Its SE under the weights (benchmarks independent).
    pub stderr: Option<f64>,
    /// Normal interval of B − A at 1 − 2α (its ends the one-sided bounds).
    #[serde(with = "crate::document::bounds_pair")]
    pub ci: Option<Interval>,
    /// One-sided bounds of the drop at 1 − α each.
    #[serde(with = "crate::document::bounds_pair")]
    pub drop_bounds: Option<Interval>,
    /// Whether the drop's lower bound is beyond the suite margin.
    pub beyond_margin: bool,
    /// Heterogeneity (null below two benchmarks with an SE).
    pub heterogeneity: Option<SuiteHeterogeneity>,
    /// α/3: the level of each combination test.
    pub alpha_each: f64,
    /// Pooled, Fisher and max-drop.
    pub tests: Vec<CombinedTest>,
    /// The margin rule.
    pub margin_rule: RuleOutcome,
    /// The detect rule.
    pub detect_rule: RuleOutcome,
}

/// The `rollstat.gate/1` document.
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// `rollstat.gate/1`.
    pub schema: String,
    /// The rollstat version that wrote it.
    pub version: String,
    /// The decision, under `settings.rule`.
    pub verdict: Decision,
    /// The plan as run.
    pub plan: PlanRecord,
    /// The settings behind the numbers.
    pub settings: GateSettings,
    /// One row per benchmark, in the plan's (or discovery) order.
    pub benchmarks: Vec<BenchmarkRow>,
    /// The suite.
    pub suite: SuiteRow,
    /// Findings, typed (`kind`, fields, `text`).
    #[serde(with = "findings_list")]
    pub findings: Vec<Finding>,
}

pub(crate) mod findings_list {
    use crate::findings::{Entry, Finding};
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(f: &[Finding], s: S) -> Result<S::Ok, S::Error> {
        let entries: Vec<Entry> = f.iter().cloned().map(Entry).collect();
        entries.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Finding>, D::Error> {
        Ok(Vec::<Entry>::deserialize(d)?
            .into_iter()
            .map(|e| e.0)
            .collect())
    }
}

/// A number that may be NaN (no value): `null` on the wire, NaN read back.
pub(crate) mod nan_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    pub fn serialize<S: Serializer>(x: &f64, s: S) -> Result<S::Ok, S::Error> {
        x.is_finite().then_some(*x).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
        Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
    }
}
