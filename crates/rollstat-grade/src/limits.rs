//! Hard bounds that keep every grading call fast and panic-free.
//!
//! Inputs past a bound are judged not equal with
//! [`Reason::LimitExceeded`](crate::Reason::LimitExceeded), never a hang or panic:
//!
//! ```
//! use rollstat_grade::{is_equivalent, limits::MAX_ANSWER_LEN, Reason};
//! let long = "1".repeat(MAX_ANSWER_LEN + 1);
//! assert_eq!(is_equivalent(&long, &long).reason, Reason::LimitExceeded);
//! assert!(!is_equivalent("2^{99999999}", "2^{99999998}").equal);
//! ```

/// Maximum length (bytes) of an answer string given to the equivalence checker.
pub const MAX_ANSWER_LEN: usize = 4_000;
/// Maximum length (bytes) of a response scanned by extraction (longer
/// responses are scanned on their last `MAX_RESPONSE_LEN` bytes only).
pub const MAX_RESPONSE_LEN: usize = 200_000;
/// Maximum parser nesting depth.
pub const MAX_DEPTH: usize = 320;
/// Maximum number of tokens in one answer.
pub const MAX_TOKENS: usize = 2_000;
/// Maximum absolute integer exponent evaluated exactly.
pub const MAX_EXACT_EXPONENT: u64 = 10_000;
/// Maximum size (bits) of an exactly computed power or factorial.
pub const MAX_EXACT_BITS: u64 = 100_000;
/// Work units (evaluated nodes / comparisons) allowed per answer pair.
pub const MAX_WORK: u64 = 300_000;
/// Maximum number of elements compared in one set/list/tuple.
pub const MAX_ELEMENTS: usize = 256;
