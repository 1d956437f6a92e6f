//! The closed set of formats. Names, aliases, families and everything
//! else about each format are in its registry entry ([`crate::registry`]).

use std::fmt;
use std::str::FromStr;

use crate::registry::FormatSpec;

/// A native (or canonical) input format.
///
/// `Display` gives the stable name used in reports (`inputs[].format`);
/// `FromStr` accepts those names and the short family names users type
/// (`lm-eval`, `inspect`, `opencompass`, `canonical`, …).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Format {
    /// rollstat's own JSON Lines rows (not parsed here).
    CanonicalJsonl,
    /// rollstat's own CSV rows (not parsed here).
    CanonicalCsv,
    /// lm-evaluation-harness `samples_<task>_<date>.jsonl`.
    LmEvalSamples,
    /// lm-evaluation-harness `results_<date>.json` (aggregates only).
    LmEvalResults,
    /// lighteval `details_<task>_<date>.parquet`.
    LightevalDetails,
    /// lighteval `results_<date>.json` (aggregates only).
    LightevalResults,
    /// inspect_ai `.eval` log (ZIP).
    InspectEval,
    /// inspect_ai legacy `.json` log.
    InspectJson,
    /// evalscope `reviews/<model>/<benchmark>_<subset>.jsonl`.
    EvalscopeReviews,
    /// OpenCompass `results/<model>/<dataset>.json` with `details`.
    OpenCompassResults,
    /// OpenCompass `predictions/<model>/<dataset>.json`.
    OpenCompassPredictions,
    /// A SiEval task result directory (or one of its `final` shards).
    Sieval,
    /// MathArena per-problem output (`<idx>.json[.zst]`) or its HF export rows.
    MathArena,
    /// NeMo-Skills `output-rs<seed>.jsonl`.
    NemoSkills,
    /// tau-bench results list or tau2-bench `results.json`.
    TauBench,
    /// Qwen2.5-Math evaluator `test_<prompt>_…_e-1.jsonl`.
    QwenMath,
    /// evalchemy `results_<date>.json` with per-task `examples`.
    Evalchemy,
    /// MMLU-Pro `eval_results/<model>/<category>_result.json`.
    MmluPro,
    /// LiveCodeBench `<scenario>_eval_all.json`.
    LiveCodeBench,
    /// Any layout, read through a field map (never detected).
    FieldMap,
}

impl Format {
    /// Every format, in detection order (the registry's order).
    pub const ALL: [Format; crate::registry::REGISTRY.len()] = crate::registry::all_formats();

    /// The format's registry entry.
    pub fn spec(self) -> &'static FormatSpec {
        crate::registry::FORMATS
            .iter()
            .find(|s| s.format == self)
            .expect("every format has a registry entry")
    }

    /// The stable report name.
    pub fn name(self) -> &'static str {
        self.spec().name
    }

    /// True for the canonical formats, which the caller reads itself.
    pub fn is_canonical(self) -> bool {
        self.spec().read.is_none()
    }

    /// The formats a user-given name stands for (a family name such as
    /// `inspect` stands for both inspect formats; content decides).
    pub(crate) fn family(self) -> Vec<Format> {
        let family = self.spec().family;
        let of = crate::registry::FORMATS
            .iter()
            .filter(|s| s.family == family);
        of.map(|s| s.format).collect()
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown `--from` name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format {given:?}. Fix: use one of: {}", crate::registry::known_names().join(", "))]
#[non_exhaustive]
pub struct UnknownFormat {
    /// What the user typed.
    pub given: String,
}

impl FromStr for Format {
    type Err = UnknownFormat;

    /// A report name or an alias from the registry (case-insensitive,
    /// `_` = `-`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match crate::registry::by_name(s) {
            Some(spec) => Ok(spec.format),
            None => Err(UnknownFormat {
                given: s.to_string(),
            }),
        }
    }
}
