//! What an input was: the provenance recorded beside every report.

use serde::{Deserialize, Serialize};

/// One input file (or in-memory source), as recorded in a report's `inputs`.
///
/// ```
/// let i = rollstat_core::input::InputInfo { path: "a.jsonl".into(), format: "canonical-jsonl".into(), sha256: String::new(), records: 3, field_map: None };
/// assert_eq!(i.records, 3);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct InputInfo {
    /// The path as given (or the source's name).
    pub path: String,
    /// The detected or named format (`canonical-jsonl`, `lm-eval`, …).
    pub format: String,
    /// SHA-256 of the bytes as stored (empty for in-memory rows).
    pub sha256: String,
    /// Records (non-empty lines or CSV rows) read, including bad ones.
    pub records: u64,
    /// The field map the records were read through (`problem=idx,…`),
    /// when the layout was read by one: what each field came from.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field_map: Option<String>,
}
