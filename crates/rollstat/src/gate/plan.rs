//! The gate's declared plan: a TOML file (or a Python dict, or the short
//! form's flags) read into [`GatePlan`], with every default defined here.
//!
//! ```toml
//! baseline = "runs/bf16"      # a directory, file or glob (or a list)
//! candidate = "runs/fp8"      # each subset / task / file is a benchmark
//! margin = 0.01               # largest acceptable drop: 1 point
//!
//! [[benchmark]]               # or declare the benchmarks one by one
//! name = "aime"
//! baseline = "runs/bf16/aime*.jsonl"
//! candidate = "runs/fp8/aime*.jsonl"
//! tier = "critical"
//! margin = "2pt"
//! ```

use super::document::{GateRule, Tier, Weighting};
use crate::error::{Error, Result};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::path::{Path, PathBuf};

/// The default significance level.
pub const DEFAULT_ALPHA: f64 = 0.05;
/// The default number of flipped problems listed per benchmark.
pub const DEFAULT_FLIPS_LISTED: usize = 20;
/// The default primary metric.
pub const DEFAULT_METRIC: &str = "pass@1";

/// One or several paths (files, directories or globs).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Paths(pub Vec<String>);

impl Serialize for Paths {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        match self.0.as_slice() {
            [one] => one.serialize(s),
            many => many.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Paths {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Paths, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum OneOrMany {
            One(String),
            Many(Vec<String>),
        }
        Ok(Paths(match OneOrMany::deserialize(d)? {
            OneOrMany::One(s) => vec![s],
            OneOrMany::Many(v) => v,
        }))
    }
}

/// A margin as written: a number is a fraction (0.01 = 1 point); a string
/// names its unit (`"1pt"`, `"1.5 points"`, `"0.015"`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MarginValue(pub f64);

impl Serialize for MarginValue {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de> Deserialize<'de> for MarginValue {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<MarginValue, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Written {
            Number(f64),
            Text(String),
        }
        let v = match Written::deserialize(d)? {
            Written::Number(x) => x,
            Written::Text(t) => parse_margin(&t).map_err(serde::de::Error::custom)?,
        };
        Ok(MarginValue(v))
    }
}

/// A margin from text: `0.01` (a fraction), `1pt`, `1 pt`, `1 point`,
/// `1.5 points` (points: hundredths).
///
/// ```
/// use rollstat::gate::parse_margin;
/// assert_eq!(parse_margin("0.01").unwrap(), 0.01);
/// assert_eq!(parse_margin("2pt").unwrap(), 0.02);
/// assert_eq!(parse_margin("1.5 points").unwrap(), 0.015);
/// assert!(parse_margin("2%").is_err());
/// ```
pub fn parse_margin(text: &str) -> std::result::Result<f64, String> {
    let t = text.trim();
    let (number, points) = match ["points", "point", "pts", "pt"]
        .iter()
        .find_map(|u| t.strip_suffix(u))
    {
        Some(n) => (n.trim(), true),
        None => (t, false),
    };
    let x: f64 = number.parse().map_err(|_| {
        format!("margin '{text}': write a fraction (0.01 = 1 point) or points (\"1pt\")")
    })?;
    Ok(if points { x / 100.0 } else { x })
}

/// One declared benchmark.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkPlan {
    /// Its name (unique in the plan).
    pub name: String,
    /// A's sources.
    pub baseline: Paths,
    /// B's sources.
    pub candidate: Paths,
    /// Its tier (default: the plan's `tier`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<Tier>,
    /// Largest acceptable drop (default: the plan's `margin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<MarginValue>,
    /// Largest acceptable drop relative to A's value (0.05 = 5% of A);
    /// the smaller of the two margins is used.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_margin: Option<f64>,
    /// Its weight, with `weights = "declared"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

/// The plan: suite-wide settings, and the benchmarks (declared, or
/// discovered in `baseline` / `candidate`).
///
/// ```
/// let plan = rollstat::gate::GatePlan::from_toml(
///     "baseline = 'a/'\ncandidate = 'b/'\nmargin = 0.01\n", "plan.toml").unwrap();
/// assert_eq!(plan.metric, "pass@1");
/// assert_eq!(plan.margin.unwrap().0, 0.01);
/// let err = rollstat::gate::GatePlan::from_toml("margin = 0.01\nmargn = 2\n", "plan.toml").unwrap_err();
/// assert!(err.to_string().contains("plan.toml:2"), "{err}");
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatePlan {
    /// The primary metric (any catalogued metric: `pass@1`, `pass^4`,
    /// `maj@8`, …).
    #[serde(default = "default_metric")]
    pub metric: String,
    /// The benchmark weighting of the suite's difference.
    #[serde(default)]
    pub weights: Weighting,
    /// The decision rule.
    #[serde(default)]
    pub rule: GateRule,
    /// Significance level.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
    /// Every benchmark's margin unless it declares its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<MarginValue>,
    /// Every benchmark's relative margin unless it declares its own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub relative_margin: Option<f64>,
    /// The suite's margin on the weighted drop (default: `margin`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suite_margin: Option<MarginValue>,
    /// Every benchmark's tier unless it declares its own.
    #[serde(default)]
    pub tier: Tier,
    /// McNemar's mid-p instead of the exact p.
    #[serde(default)]
    pub mid_p: bool,
    /// Field whose values cluster problems.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster_by: Option<String>,
    /// Seed of every random procedure.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Bootstrap resamples.
    #[serde(default = "default_resamples")]
    pub resamples: usize,
    /// Sign-flip and label permutations.
    #[serde(default = "default_permutations")]
    pub permutations: usize,
    /// Flipped problems listed per benchmark.
    #[serde(default = "default_flips_listed")]
    pub flips_listed: usize,
    /// The input format of every source, overriding detection.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// A field map every source is read through, for a layout no format
    /// knows: `problem=PATH,correct=PATH,…` (see [`crate::FieldMap`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub map: Option<String>,
    /// How answers are extracted from responses when rows need grading
    /// (`math`, `mcq`, `number`, `regex:PATTERN`; default as for a report).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extract: Option<String>,
    /// How answers are compared with gold (`equivalent` or `exact`).
    #[serde(default, rename = "match", skip_serializing_if = "Option::is_none")]
    pub matching: Option<String>,
    /// A's sources, split into benchmarks by subset (or file).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Paths>,
    /// B's sources, split as A's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate: Option<Paths>,
    /// The declared benchmarks.
    #[serde(default, rename = "benchmark", skip_serializing_if = "Vec::is_empty")]
    pub benchmarks: Vec<BenchmarkPlan>,
}

fn default_metric() -> String {
    DEFAULT_METRIC.into()
}
fn default_alpha() -> f64 {
    DEFAULT_ALPHA
}
/// Resamples, seed and permutations default as compare's.
fn default_resamples() -> usize {
    crate::options::IntervalOptions::default().resamples
}
fn default_seed() -> u64 {
    crate::options::IntervalOptions::default().seed
}
fn default_permutations() -> usize {
    crate::options::CompareOptions::default().permutations
}
fn default_flips_listed() -> usize {
    DEFAULT_FLIPS_LISTED
}

impl Default for GatePlan {
    fn default() -> Self {
        GatePlan {
            metric: default_metric(),
            weights: Weighting::default(),
            rule: GateRule::default(),
            alpha: DEFAULT_ALPHA,
            margin: None,
            relative_margin: None,
            suite_margin: None,
            tier: Tier::default(),
            mid_p: false,
            cluster_by: None,
            seed: default_seed(),
            resamples: default_resamples(),
            permutations: default_permutations(),
            flips_listed: DEFAULT_FLIPS_LISTED,
            format: None,
            map: None,
            extract: None,
            matching: None,
            baseline: None,
            candidate: None,
            benchmarks: Vec::new(),
        }
    }
}

/// A settings error of a plan file, named by the file and the line of its
/// key (not by an option of a front end).
fn in_plan(e: Error, text: &str, name: &str) -> Error {
    match e {
        Error::InvalidOption { option, message } => {
            let key = option.0;
            let line = text
                .lines()
                .position(|l| {
                    let t = l.trim_start();
                    t.strip_prefix(key)
                        .is_some_and(|r| r.trim_start().starts_with('='))
                })
                .map_or(String::new(), |i| format!(":{}", i + 1));
            Error::input(format!("{name}{line}: {key}: {message}"))
        }
        other => Error::input(format!("{name}: {other}")),
    }
}

/// The 1-based line of a byte offset.
fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

impl GatePlan {
    /// Reads a plan from TOML; `name` (its path) names it in errors, which
    /// say `name:line: reason` (an unknown key names the key).
    pub fn from_toml(text: &str, name: &str) -> Result<GatePlan> {
        let plan: GatePlan = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(1, |s| line_of(text, s.start));
            Error::input(format!("{name}:{line}: {}", e.message()))
        })?;
        plan.validate().map_err(|e| in_plan(e, text, name))?;
        Ok(plan)
    }

    /// Reads a plan from JSON (the Python binding's dicts).
    pub fn from_json(text: &str) -> Result<GatePlan> {
        let plan: GatePlan =
            serde_json::from_str(text).map_err(|e| Error::input(format!("gate plan: {e}")))?;
        plan.validate()?;
        Ok(plan)
    }

    /// The plan as TOML (the short form's plan, recorded in the output).
    pub fn to_toml(&self) -> String {
        toml::to_string(self).expect("a plan serializes")
    }

    /// Checks ranges and combinations; names the benchmark at fault.
    pub fn validate(&self) -> Result<()> {
        if !(self.alpha > 0.0 && self.alpha < 0.5) {
            return Err(Error::invalid(
                "alpha",
                format!("{} is not in (0, 0.5)", self.alpha),
            ));
        }
        self.metric
            .parse::<rollstat_core::aggregate::Metric>()
            .map_err(|e| Error::invalid("metric", e.to_string()))?;
        for (what, m) in [("margin", self.margin), ("suite_margin", self.suite_margin)] {
            if let Some(m) = m {
                check_margin(what, None, m.0)?;
            }
        }
        check_relative(None, self.relative_margin)?;
        if let Some(f) = &self.format {
            f.parse::<rollstat_formats::Format>()
                .map_err(|e| Error::invalid("format", e.to_string()))?;
        }
        if let Some(m) = &self.map {
            m.parse::<crate::FieldMap>()
                .map_err(|e| Error::invalid("map", e.to_string()))?;
        }
        if self.resamples < 100 {
            return Err(Error::invalid("resamples", "needs at least 100"));
        }
        if self.permutations < 100 || self.permutations > crate::options::MAX_PERMUTATIONS {
            return Err(Error::invalid(
                "permutations",
                format!("needs 100 to {}", crate::options::MAX_PERMUTATIONS),
            ));
        }
        self.validate_sources()?;
        self.validate_benchmarks()
    }

    fn validate_sources(&self) -> Result<()> {
        match (&self.baseline, &self.candidate, self.benchmarks.is_empty()) {
            (Some(_), Some(_), true) | (None, None, false) => Ok(()),
            (Some(_), None, _) | (None, Some(_), _) => Err(Error::input(
                "the plan names a baseline without a candidate (or the reverse); give both",
            )),
            (Some(_), Some(_), false) => Err(Error::input(
                "the plan has both top-level baseline/candidate and [[benchmark]] entries; declare the benchmarks, or let them be discovered, not both",
            )),
            (None, None, true) => Err(Error::input(
                "the plan has no sources: give baseline and candidate, or [[benchmark]] entries",
            )),
        }
    }

    fn validate_benchmarks(&self) -> Result<()> {
        let mut seen = std::collections::HashSet::new();
        for b in &self.benchmarks {
            if b.name.trim().is_empty() {
                return Err(Error::input("a [[benchmark]] has an empty name"));
            }
            if !seen.insert(b.name.as_str()) {
                return Err(Error::input(format!(
                    "benchmark '{}' is declared twice; benchmark names are unique",
                    b.name
                )));
            }
            if b.baseline.0.is_empty() || b.candidate.0.is_empty() {
                return Err(Error::input(format!(
                    "benchmark '{}' needs both baseline and candidate sources",
                    b.name
                )));
            }
            if let Some(m) = b.margin {
                check_margin("margin", Some(&b.name), m.0)?;
            }
            check_relative(Some(&b.name), b.relative_margin)?;
            if b.margin.is_none() && self.margin.is_none() && self.rule == GateRule::Margin {
                return Err(Error::input(format!(
                    "benchmark '{}' has no margin: give `margin` to the plan or the benchmark (0.01 = 1 point)",
                    b.name
                )));
            }
            match (self.weights, b.weight) {
                (Weighting::Declared, None) => {
                    return Err(Error::input(format!(
                        "weights = \"declared\" but benchmark '{}' has no weight",
                        b.name
                    )))
                }
                (_, Some(w)) if !(w > 0.0 && w.is_finite()) => {
                    return Err(Error::input(format!(
                        "benchmark '{}': weight {w} is not a positive number",
                        b.name
                    )))
                }
                _ => {}
            }
        }
        if self.benchmarks.is_empty() && self.margin.is_none() && self.rule == GateRule::Margin {
            return Err(Error::invalid(
                "margin",
                "the margin rule needs a margin (0.01 = 1 point)",
            ));
        }
        if self.benchmarks.is_empty() && self.weights == Weighting::Declared {
            return Err(Error::invalid(
                "weights",
                "declared weights need [[benchmark]] entries with a weight",
            ));
        }
        Ok(())
    }

    /// The margin used for a benchmark (its own, else the plan's; 0 when
    /// none is declared, under the detect rule).
    pub fn margin_of(&self, b: Option<&BenchmarkPlan>) -> (f64, Option<f64>) {
        let abs = b
            .and_then(|b| b.margin)
            .or(self.margin)
            .map_or(0.0, |m| m.0);
        let rel = b.and_then(|b| b.relative_margin).or(self.relative_margin);
        (abs, rel)
    }
}

/// A margin must be a fraction in [0, 1): a number ≥ 1 was surely meant
/// as points.
fn check_margin(what: &'static str, bench: Option<&str>, m: f64) -> Result<()> {
    let whose = bench.map_or(String::new(), |b| format!("benchmark '{b}': "));
    if !(0.0..1.0).contains(&m) || !m.is_finite() {
        let hint = if m >= 1.0 {
            format!(
                "; a number is read as a fraction, so {m} would be {} points: write {} or \"{m}pt\" for {m} points",
                100.0 * m,
                m / 100.0
            )
        } else {
            String::new()
        };
        return Err(Error::invalid(
            what,
            format!("{whose}{m} is not a fraction in [0, 1){hint}"),
        ));
    }
    Ok(())
}

/// A relative margin is a fraction of A in (0, 1]: 0.05 is 5% of A.
fn check_relative(bench: Option<&str>, r: Option<f64>) -> Result<()> {
    match r {
        Some(r) if !(r > 0.0 && r <= 1.0) => {
            let whose = bench.map_or(String::new(), |b| format!("benchmark '{b}': "));
            Err(Error::invalid(
                "relative_margin",
                format!("{whose}{r} is not a fraction of A in (0, 1]: 0.05 is 5% of A"),
            ))
        }
        _ => Ok(()),
    }
}

/// Expands a plan path against the plan's directory: a glob (`*`, `?`,
/// `**`) gives the matching files, sorted; anything else is one path.
pub fn expand(base: &Path, pattern: &str) -> Result<Vec<PathBuf>> {
    let full = if Path::new(pattern).is_absolute() {
        PathBuf::from(pattern)
    } else {
        base.join(pattern)
    };
    if !pattern.contains(['*', '?', '[']) {
        return Ok(vec![full]);
    }
    let text = full.to_string_lossy().to_string();
    let cut = text[..text.find(['*', '?', '[']).expect("has a wildcard")]
        .rfind('/')
        .map_or(0, |i| i + 1);
    let root = PathBuf::from(if cut == 0 { "." } else { &text[..cut] });
    let rest: Vec<&str> = text[cut..].split('/').collect();
    let mut out = Vec::new();
    walk_glob(&root, &rest, &mut out);
    out.sort();
    if out.is_empty() {
        return Err(Error::input(format!("{pattern}: no file matches")));
    }
    Ok(out)
}

fn walk_glob(dir: &Path, parts: &[&str], out: &mut Vec<PathBuf>) {
    let Some((first, rest)) = parts.split_first() else {
        return;
    };
    if *first == "**" {
        walk_glob(dir, rest, out);
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for e in entries {
        let name = e.file_name().to_string_lossy().to_string();
        let path = e.path();
        if *first == "**" {
            if path.is_dir() {
                walk_glob(&path, parts, out);
            }
        } else if wildcard(first, &name) {
            if rest.is_empty() {
                out.push(path);
            } else if path.is_dir() {
                walk_glob(&path, rest, out);
            }
        }
    }
}

/// `*` and `?` against one path component (a leading dot is matched only
/// by a leading dot).
fn wildcard(pattern: &str, name: &str) -> bool {
    if name.starts_with('.') && !pattern.starts_with('.') {
        return false;
    }
    let (p, n): (Vec<char>, Vec<char>) = (pattern.chars().collect(), name.chars().collect());
    let (mut i, mut j, mut star, mut mark) = (0, 0, None, 0);
    while j < n.len() {
        if i < p.len() && (p[i] == '?' || p[i] == n[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some(i);
            mark = j;
            i += 1;
        } else if let Some(s) = star {
            i = s + 1;
            mark += 1;
            j = mark;
        } else {
            return false;
        }
    }
    p[i..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wildcards_match_as_a_shell_does() {
        assert!(wildcard("*.jsonl", "aime.jsonl"));
        assert!(wildcard("aime*", "aime-2024.jsonl"));
        assert!(wildcard("a?me.jsonl", "aime.jsonl"));
        assert!(!wildcard("*.jsonl", "aime.json"));
        assert!(!wildcard("*", ".hidden"));
        assert!(wildcard("*a*b*", "xxaybz"));
    }

    #[test]
    fn unknown_keys_name_the_key_and_line() {
        let text = "margin = 0.01\n\n[[benchmark]]\nname = 'a'\nbaseline = 'x'\ncandidate = 'y'\ntierr = 'critical'\n";
        let e = GatePlan::from_toml(text, "p.toml").unwrap_err().to_string();
        assert!(e.contains("p.toml:7"), "{e}");
        assert!(e.contains("tierr"), "{e}");
    }

    #[test]
    fn margins_in_points_are_refused_as_fractions() {
        let e = GatePlan::from_toml("baseline='a'\ncandidate='b'\nmargin = 2\n", "p")
            .unwrap_err()
            .to_string();
        assert!(e.contains("200 points") && e.contains("0.02"), "{e}");
        let p = GatePlan::from_toml("baseline='a'\ncandidate='b'\nmargin = '2pt'\n", "p").unwrap();
        assert_eq!(p.margin.unwrap().0, 0.02);
    }

    #[test]
    fn duplicate_benchmarks_are_refused() {
        let b = "[[benchmark]]\nname='a'\nbaseline='x'\ncandidate='y'\n";
        let e = GatePlan::from_toml(&format!("margin=0.01\n{b}{b}"), "p")
            .unwrap_err()
            .to_string();
        assert!(e.contains("declared twice"), "{e}");
    }

    #[test]
    fn the_short_forms_plan_reads_back_equal() {
        let p = GatePlan {
            baseline: Some(Paths(vec!["a/".into()])),
            candidate: Some(Paths(vec!["b/".into()])),
            margin: Some(MarginValue(0.01)),
            rule: GateRule::Detect,
            ..GatePlan::default()
        };
        assert_eq!(GatePlan::from_toml(&p.to_toml(), "x").unwrap(), p);
    }
}
