//! The closed set of formats, with their stable report names.

use std::fmt;
use std::str::FromStr;

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
}

impl Format {
    /// Every format, in detection order.
    pub const ALL: [Format; 15] = [
        Format::InspectEval,
        Format::LightevalDetails,
        Format::LmEvalSamples,
        Format::LmEvalResults,
        Format::LightevalResults,
        Format::InspectJson,
        Format::EvalscopeReviews,
        Format::OpenCompassResults,
        Format::OpenCompassPredictions,
        Format::Sieval,
        Format::MathArena,
        Format::NemoSkills,
        Format::TauBench,
        Format::CanonicalJsonl,
        Format::CanonicalCsv,
    ];

    /// The stable report name.
    pub fn name(self) -> &'static str {
        match self {
            Format::CanonicalJsonl => "canonical-jsonl",
            Format::CanonicalCsv => "canonical-csv",
            Format::LmEvalSamples => "lm-eval-samples",
            Format::LmEvalResults => "lm-eval-results",
            Format::LightevalDetails => "lighteval-details",
            Format::LightevalResults => "lighteval-results",
            Format::InspectEval => "inspect-eval",
            Format::InspectJson => "inspect-json",
            Format::EvalscopeReviews => "evalscope-reviews",
            Format::OpenCompassResults => "opencompass-results",
            Format::OpenCompassPredictions => "opencompass-predictions",
            Format::Sieval => "sieval",
            Format::MathArena => "matharena",
            Format::NemoSkills => "nemo-skills",
            Format::TauBench => "tau-bench",
        }
    }

    /// True for the canonical formats, which the caller reads itself.
    pub fn is_canonical(self) -> bool {
        matches!(self, Format::CanonicalJsonl | Format::CanonicalCsv)
    }

    /// The formats a user-given name stands for (a family name such as
    /// `inspect` stands for both inspect formats; content decides).
    pub(crate) fn family(self) -> &'static [Format] {
        match self {
            Format::CanonicalJsonl | Format::CanonicalCsv => {
                &[Format::CanonicalJsonl, Format::CanonicalCsv]
            }
            Format::LmEvalSamples | Format::LmEvalResults => {
                &[Format::LmEvalSamples, Format::LmEvalResults]
            }
            Format::InspectEval | Format::InspectJson => {
                &[Format::InspectEval, Format::InspectJson]
            }
            Format::OpenCompassResults | Format::OpenCompassPredictions => {
                &[Format::OpenCompassResults, Format::OpenCompassPredictions]
            }
            Format::LightevalDetails | Format::LightevalResults => {
                &[Format::LightevalDetails, Format::LightevalResults]
            }
            Format::EvalscopeReviews => &[Format::EvalscopeReviews],
            Format::Sieval => &[Format::Sieval],
            Format::MathArena => &[Format::MathArena],
            Format::NemoSkills => &[Format::NemoSkills],
            Format::TauBench => &[Format::TauBench],
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// An unknown `--from` name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown format {given:?}. Fix: use one of: {}", KNOWN_NAMES.join(", "))]
pub struct UnknownFormat {
    /// What the user typed.
    pub given: String,
}

const KNOWN_NAMES: &[&str] = &[
    "canonical",
    "canonical-jsonl",
    "canonical-csv",
    "lm-eval",
    "lm-eval-samples",
    "lm-eval-results",
    "lighteval",
    "lighteval-results",
    "inspect",
    "inspect-eval",
    "inspect-json",
    "evalscope",
    "opencompass",
    "opencompass-results",
    "opencompass-predictions",
    "sieval",
    "matharena",
    "nemo-skills",
    "tau-bench",
    "tau2-bench",
];

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let norm = s.trim().to_ascii_lowercase().replace('_', "-");
        let f = match norm.as_str() {
            "canonical" | "canonical-jsonl" | "jsonl" => Format::CanonicalJsonl,
            "canonical-csv" | "csv" => Format::CanonicalCsv,
            "lm-eval" | "lm-eval-samples" | "lm-evaluation-harness" | "lmeval" => {
                Format::LmEvalSamples
            }
            "lm-eval-results" => Format::LmEvalResults,
            "lighteval" | "lighteval-details" => Format::LightevalDetails,
            "lighteval-results" => Format::LightevalResults,
            "inspect" | "inspect-eval" | "inspect-ai" => Format::InspectEval,
            "inspect-json" => Format::InspectJson,
            "evalscope" | "evalscope-reviews" => Format::EvalscopeReviews,
            "opencompass" | "opencompass-results" => Format::OpenCompassResults,
            "opencompass-predictions" => Format::OpenCompassPredictions,
            "sieval" => Format::Sieval,
            "matharena" => Format::MathArena,
            "nemo-skills" | "nemo" | "nemoskills" => Format::NemoSkills,
            "tau-bench" | "tau2-bench" | "taubench" | "tau2" | "tau" => Format::TauBench,
            _ => {
                return Err(UnknownFormat {
                    given: s.to_string(),
                })
            }
        };
        Ok(f)
    }
}
