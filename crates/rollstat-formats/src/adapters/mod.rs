//! One module per harness. Each maps a native layout into canonical rows and
//! computes nothing.

use std::path::Path;

use crate::error::FormatError;
use crate::format::Format;
use crate::input::DecompressLimit;
use crate::NativeFile;

pub(crate) mod evalscope;
pub(crate) mod inspect;
pub(crate) mod lighteval;
pub(crate) mod lm_eval;
pub(crate) mod matharena;
pub(crate) mod nemo_skills;
pub(crate) mod opencompass;
pub(crate) mod sieval;
pub(crate) mod tau_bench;

/// Read decompressed `bytes` of `path` as `format`.
pub(crate) fn read(
    path: &Path,
    format: Format,
    bytes: &[u8],
    limit: DecompressLimit,
) -> Result<NativeFile, FormatError> {
    match format {
        Format::LmEvalSamples => lm_eval::read_samples(path, bytes),
        Format::LmEvalResults => lm_eval::read_results_file(path, bytes),
        Format::LightevalDetails => lighteval::read(path, bytes),
        Format::LightevalResults => lighteval::read_results(path, bytes),
        Format::InspectEval => inspect::read_eval(path, bytes, limit),
        Format::InspectJson => inspect::read_json(path, bytes),
        Format::EvalscopeReviews => evalscope::read(path, bytes),
        Format::OpenCompassResults => opencompass::read_results(path, bytes),
        Format::OpenCompassPredictions => opencompass::read_predictions(path, bytes),
        Format::Sieval => sieval::read_shard_file(path, bytes),
        Format::MathArena => matharena::read(path, bytes),
        Format::NemoSkills => nemo_skills::read(path, bytes),
        Format::TauBench => tau_bench::read(path, bytes),
        Format::CanonicalJsonl | Format::CanonicalCsv => Err(FormatError::Canonical {
            path: path.to_path_buf(),
            format: format.to_string(),
        }),
    }
}
