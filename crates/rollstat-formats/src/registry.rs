//! The format registry: one [`FormatSpec`] per input format, in detection
//! order. Everything else about the set of formats — [`Format::ALL`], the
//! names `--from` accepts, the list an unknown name is answered with, the
//! `--from` help text, detection and dispatch to the adapters — is derived
//! from [`FORMATS`]. Adding a format is one adapter module and one entry
//! here (docs/contributing.md, *Adding an input format*).

use std::path::Path;

use crate::adapters::{
    canonical, evalchemy, evalscope, inspect, lighteval, livecodebench, lm_eval, matharena,
    mmlu_pro, nemo_skills, opencompass, qwen_math, sieval, tau_bench,
};
use crate::detect::Probe;
use crate::error::FormatError;
use crate::field_map;
use crate::format::Format;
use crate::harness::AggregateDialect;
use crate::input::DecompressLimit;
use crate::NativeFile;

/// Reads a file's decompressed bytes as its format.
pub(crate) type ReadFn = fn(&Path, &[u8], DecompressLimit) -> Result<NativeFile, FormatError>;

/// A format whose unit is a directory: whether a directory is one, and its
/// reader. A directory walk reads such a directory whole.
#[derive(Clone, Copy)]
pub(crate) struct DirReader {
    pub is: fn(&Path) -> bool,
    pub read: fn(&Path, DecompressLimit) -> Result<NativeFile, FormatError>,
}

/// Everything rollstat knows about one input format.
#[derive(Clone, Copy)]
pub struct FormatSpec {
    /// The format.
    pub format: Format,
    /// The stable report name (`inputs[].format`), accepted by `--from`.
    pub name: &'static str,
    /// Other names `--from` accepts (lower case, `-` for `_`).
    pub aliases: &'static [&'static str],
    /// The family a user names (`lm-eval` stands for its samples and
    /// results formats; content picks between them).
    pub family: &'static str,
    /// The source file that reads it, under `crates/rollstat-formats/src/`.
    pub module: &'static str,
    /// One line: what the files look like.
    pub description: &'static str,
    /// Whether content fits the format; `Err` says why not.
    pub(crate) detect: fn(&Probe<'_>) -> Result<(), String>,
    /// The adapter; `None` for canonical rows, which the caller reads.
    pub(crate) read: Option<ReadFn>,
    /// The reader of a whole directory, for a format whose unit is one.
    pub(crate) read_dir: Option<DirReader>,
    /// How its stored aggregates are named, when it stores any.
    pub(crate) aggregates: Option<AggregateDialect>,
    /// One record per line: a canonical file whose rows also carry this
    /// format's keys is read as canonical rows (see `detect_all`).
    pub(crate) row_per_line: bool,
}

impl std::fmt::Debug for FormatSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FormatSpec")
            .field("name", &self.name)
            .field("family", &self.family)
            .finish_non_exhaustive()
    }
}

/// Every format, in detection order: the first whose rule fits wins.
pub static FORMATS: &[FormatSpec] = &REGISTRY;

/// The table itself (a `const`, so that [`Format::ALL`] is derived from it
/// at compile time).
pub(crate) const REGISTRY: [FormatSpec; 20] = [
    FormatSpec {
        format: Format::InspectEval,
        name: "inspect-eval",
        aliases: &["inspect", "inspect-ai"],
        family: "inspect",
        module: "adapters/inspect.rs",
        description: "inspect_ai `.eval` log (ZIP)",
        detect: inspect::detect_eval,
        read: Some(inspect::read_eval),
        read_dir: None,
        aggregates: Some(inspect::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::LightevalDetails,
        name: "lighteval-details",
        aliases: &["lighteval"],
        family: "lighteval",
        module: "adapters/lighteval.rs",
        description: "lighteval `details_<task>_<date>.parquet`",
        detect: lighteval::detect_details,
        read: Some(|path, bytes, _| lighteval::read(path, bytes)),
        read_dir: None,
        aggregates: Some(lighteval::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::LmEvalSamples,
        name: "lm-eval-samples",
        aliases: &["lm-eval", "lm-evaluation-harness", "lmeval"],
        family: "lm-eval",
        module: "adapters/lm_eval.rs",
        description: "lm-evaluation-harness `samples_<task>_<date>.jsonl`",
        detect: lm_eval::detect_samples,
        read: Some(|path, bytes, _| lm_eval::read_samples(path, bytes)),
        read_dir: None,
        aggregates: Some(lm_eval::AGGREGATES),
        row_per_line: true,
    },
    FormatSpec {
        format: Format::LmEvalResults,
        name: "lm-eval-results",
        aliases: &[],
        family: "lm-eval",
        module: "adapters/lm_eval.rs",
        description: "lm-evaluation-harness `results_<date>.json` (aggregates, or embedded samples)",
        detect: lm_eval::detect_results,
        read: Some(|path, bytes, _| lm_eval::read_results_file(path, bytes)),
        read_dir: None,
        aggregates: Some(lm_eval::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::LightevalResults,
        name: "lighteval-results",
        aliases: &[],
        family: "lighteval",
        module: "adapters/lighteval.rs",
        description: "lighteval `results_<date>.json` (aggregates only)",
        detect: lighteval::detect_results,
        read: Some(|path, bytes, _| lighteval::read_results(path, bytes)),
        read_dir: None,
        aggregates: Some(lighteval::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::InspectJson,
        name: "inspect-json",
        aliases: &[],
        family: "inspect",
        module: "adapters/inspect.rs",
        description: "inspect_ai legacy `.json` log",
        detect: inspect::detect_json,
        read: Some(|path, bytes, _| inspect::read_json(path, bytes)),
        read_dir: None,
        aggregates: Some(inspect::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::EvalscopeReviews,
        name: "evalscope-reviews",
        aliases: &["evalscope"],
        family: "evalscope",
        module: "adapters/evalscope.rs",
        description: "evalscope `reviews/<model>/<benchmark>_<subset>.jsonl` (v1 and v0.x; `reports/` reconciled)",
        detect: evalscope::detect,
        read: Some(|path, bytes, _| evalscope::read(path, bytes)),
        read_dir: None,
        aggregates: Some(evalscope::AGGREGATES),
        row_per_line: true,
    },
    FormatSpec {
        format: Format::OpenCompassResults,
        name: "opencompass-results",
        aliases: &["opencompass"],
        family: "opencompass",
        module: "adapters/opencompass.rs",
        description: "OpenCompass `results/<model>/<dataset>.json` with `details`",
        detect: opencompass::detect_results,
        read: Some(|path, bytes, _| opencompass::read_results(path, bytes)),
        read_dir: None,
        aggregates: Some(opencompass::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::OpenCompassPredictions,
        name: "opencompass-predictions",
        aliases: &[],
        family: "opencompass",
        module: "adapters/opencompass.rs",
        description: "OpenCompass `predictions/<model>/<dataset>.json`",
        detect: opencompass::detect_predictions,
        read: Some(|path, bytes, _| opencompass::read_predictions(path, bytes)),
        read_dir: None,
        aggregates: None,
        row_per_line: false,
    },
    FormatSpec {
        format: Format::Sieval,
        name: "sieval",
        aliases: &[],
        family: "sieval",
        module: "adapters/sieval.rs",
        description: "a SiEval task result directory, or one of its `final` shards",
        detect: sieval::detect,
        read: Some(|path, bytes, _| sieval::read_shard_file(path, bytes)),
        read_dir: Some(DirReader {
            is: sieval::is_result_dir,
            read: sieval::read_dir,
        }),
        aggregates: Some(sieval::AGGREGATES),
        row_per_line: true,
    },
    FormatSpec {
        format: Format::QwenMath,
        name: "qwen-math",
        aliases: &["qwen2.5-math", "qwen25-math"],
        family: "qwen-math",
        module: "adapters/qwen_math.rs",
        description: "Qwen2.5-Math evaluator `<dataset>/test_<prompt>_-1_seed0_t0.0_s0_e-1.jsonl` (`_metrics.json` reconciled)",
        detect: qwen_math::detect,
        read: Some(|path, bytes, _| qwen_math::read(path, bytes)),
        read_dir: None,
        aggregates: Some(qwen_math::AGGREGATES),
        row_per_line: true,
    },
    FormatSpec {
        format: Format::Evalchemy,
        name: "evalchemy",
        aliases: &[],
        family: "evalchemy",
        module: "adapters/evalchemy.rs",
        description: "evalchemy `results_<date>.json` with per-task `examples` (`accuracy_avg` reconciled)",
        detect: evalchemy::detect,
        read: Some(|path, bytes, _| evalchemy::read(path, bytes)),
        read_dir: None,
        aggregates: Some(evalchemy::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::MmluPro,
        name: "mmlu-pro",
        aliases: &["mmlupro"],
        family: "mmlu-pro",
        module: "adapters/mmlu_pro.rs",
        description: "MMLU-Pro `eval_results/<model>/<category>_result.json` (`_summary.json` reconciled)",
        detect: mmlu_pro::detect,
        read: Some(|path, bytes, _| mmlu_pro::read(path, bytes)),
        read_dir: None,
        aggregates: Some(mmlu_pro::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::LiveCodeBench,
        name: "livecodebench",
        aliases: &["lcb"],
        family: "livecodebench",
        module: "adapters/livecodebench.rs",
        description: "LiveCodeBench `<scenario>_eval_all.json` (`_eval.json` reconciled)",
        detect: livecodebench::detect,
        read: Some(|path, bytes, _| livecodebench::read(path, bytes)),
        read_dir: None,
        aggregates: Some(livecodebench::AGGREGATES),
        row_per_line: false,
    },
    FormatSpec {
        format: Format::MathArena,
        name: "matharena",
        aliases: &[],
        family: "matharena",
        module: "adapters/matharena.rs",
        description: "MathArena per-problem output (`<idx>.json[.zst]`) or its HF export rows",
        detect: matharena::detect,
        read: Some(|path, bytes, _| matharena::read(path, bytes)),
        read_dir: None,
        aggregates: None,
        row_per_line: false,
    },
    FormatSpec {
        format: Format::NemoSkills,
        name: "nemo-skills",
        aliases: &["nemo", "nemoskills"],
        family: "nemo-skills",
        module: "adapters/nemo_skills.rs",
        description: "NeMo-Skills `output-rs<seed>.jsonl` (with `metrics.json` reconciled)",
        detect: nemo_skills::detect,
        read: Some(|path, bytes, _| nemo_skills::read(path, bytes)),
        read_dir: None,
        aggregates: Some(nemo_skills::AGGREGATES),
        row_per_line: true,
    },
    FormatSpec {
        format: Format::TauBench,
        name: "tau-bench",
        aliases: &["tau2-bench", "taubench", "tau2", "tau"],
        family: "tau-bench",
        module: "adapters/tau_bench.rs",
        description: "tau-bench results list, or tau2-bench `results.json` (+ `simulations/`)",
        detect: tau_bench::detect,
        read: Some(|path, bytes, _| tau_bench::read(path, bytes)),
        read_dir: None,
        aggregates: None,
        row_per_line: false,
    },
    FormatSpec {
        format: Format::CanonicalJsonl,
        name: "canonical-jsonl",
        aliases: &["canonical", "jsonl"],
        family: "canonical",
        module: "adapters/canonical.rs",
        description: "rollstat's own JSON Lines rows (read by rollstat-io)",
        detect: canonical::detect_jsonl,
        read: None,
        read_dir: None,
        aggregates: None,
        row_per_line: false,
    },
    FormatSpec {
        format: Format::CanonicalCsv,
        name: "canonical-csv",
        aliases: &["csv"],
        family: "canonical",
        module: "adapters/canonical.rs",
        description: "rollstat's own CSV rows (read by rollstat-io)",
        detect: canonical::detect_csv,
        read: None,
        read_dir: None,
        aggregates: None,
        row_per_line: false,
    },
    FormatSpec {
        format: Format::FieldMap,
        name: "field-map",
        aliases: &[],
        family: "field-map",
        module: "field_map.rs",
        description: "any JSON, JSON Lines, CSV or Parquet layout, read through a field map (never detected)",
        detect: field_map::detect,
        read: Some(|path, _, _| field_map::read_without_map(path)),
        read_dir: None,
        aggregates: None,
        row_per_line: false,
    },
];

/// Every format in registry order (a compile-time copy of the table's
/// `format` column, for [`Format::ALL`]).
pub(crate) const fn all_formats() -> [Format; REGISTRY.len()] {
    let mut out = [Format::CanonicalJsonl; REGISTRY.len()];
    let mut i = 0;
    while i < REGISTRY.len() {
        out[i] = REGISTRY[i].format;
        i += 1;
    }
    out
}

/// The spec whose name or alias `name` is (case-insensitive, `_` = `-`).
pub fn by_name(name: &str) -> Option<&'static FormatSpec> {
    let norm = name.trim().to_ascii_lowercase().replace('_', "-");
    FORMATS
        .iter()
        .find(|s| s.name == norm || s.aliases.contains(&norm.as_str()))
}

/// The families, in registry order, each once.
pub fn families() -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for s in FORMATS {
        if !out.contains(&s.family) {
            out.push(s.family);
        }
    }
    out
}

/// The names `--from` is documented with: each family, then its formats'
/// own names.
///
/// ```
/// let names = rollstat_formats::registry::known_names();
/// assert!(names.contains(&"lighteval") && names.contains(&"lighteval-results"));
/// assert!(names.iter().all(|n| n.parse::<rollstat_formats::Format>().is_ok()));
/// ```
pub fn known_names() -> Vec<&'static str> {
    let mut out = Vec::new();
    for family in families() {
        out.push(family);
        let own = FORMATS.iter().filter(|s| s.family == family);
        out.extend(own.map(|s| s.name).filter(|n| *n != family));
    }
    out
}

/// The `--from` help: what the option does and the family names.
///
/// ```
/// let help = rollstat_formats::registry::from_help();
/// assert!(help.starts_with("Input format, overriding auto-detection (inspect, lighteval,"));
/// ```
pub fn from_help() -> String {
    format!(
        "Input format, overriding auto-detection ({}); a family name lets content pick the \
         variant, a format name (e.g. lm-eval-results) fixes it",
        families().join(", ")
    )
}

/// The README's format table (checked against the README by a test):
/// one row per format with its report name, the names `--from` takes,
/// what its files look like, and the module that reads it.
pub fn markdown_table() -> String {
    let mut out = String::from(
        "| format (`inputs[].format`) | `--from` | files | read by |\n|---|---|---|---|\n",
    );
    for s in FORMATS {
        let names: Vec<String> = std::iter::once(&s.name)
            .chain(s.aliases)
            .map(|n| format!("`{n}`"))
            .collect();
        out.push_str(&format!(
            "| `{}` | {} | {} | [{}](crates/rollstat-formats/src/{}) |\n",
            s.name,
            names.join(", "),
            s.description,
            s.module,
            s.module
        ));
    }
    out
}
