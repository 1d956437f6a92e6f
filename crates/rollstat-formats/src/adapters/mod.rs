//! One module per harness. Each maps a native layout into canonical rows and
//! computes nothing. A module holds its format's detection rule, its reader
//! and the dialect of its stored aggregates; the registry
//! ([`crate::registry`]) lists them.

use std::path::Path;

use crate::error::FormatError;
use crate::format::Format;
use crate::input::DecompressLimit;
use crate::NativeFile;

pub(crate) mod canonical;
pub(crate) mod evalchemy;
pub(crate) mod evalscope;
pub(crate) mod inspect;
pub(crate) mod lighteval;
pub(crate) mod livecodebench;
pub(crate) mod lm_eval;
pub(crate) mod matharena;
pub(crate) mod mmlu_pro;
pub(crate) mod nemo_skills;
pub(crate) mod opencompass;
pub(crate) mod qwen_math;
pub(crate) mod sieval;
pub(crate) mod tau_bench;

/// Read decompressed `bytes` of `path` as `format` (its registry entry's
/// reader).
pub(crate) fn read(
    path: &Path,
    format: Format,
    bytes: &[u8],
    limit: DecompressLimit,
) -> Result<NativeFile, FormatError> {
    match format.spec().read {
        Some(read) => read(path, bytes, limit),
        None => Err(FormatError::Canonical {
            path: path.to_path_buf(),
            format: format.to_string(),
        }),
    }
}
