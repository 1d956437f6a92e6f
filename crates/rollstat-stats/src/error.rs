//! Error type shared by the crate.

/// Errors returned by `rollstat_stats` functions.
///
/// ```
/// use rollstat_stats::StatsError;
/// let e = StatsError::InvalidLevel(1.5);
/// assert!(e.to_string().contains("1.5"));
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StatsError {
    /// No (defined) data where some was required.
    #[error("empty input: {0}")]
    Empty(&'static str),
    /// Inputs that must be aligned have different lengths.
    #[error("length mismatch: {what} ({left} vs {right})")]
    LengthMismatch {
        /// Which inputs disagree.
        what: &'static str,
        /// First length.
        left: usize,
        /// Second length.
        right: usize,
    },
    /// Confidence level outside (0, 1).
    #[error("confidence level must be in (0, 1), got {0}")]
    InvalidLevel(f64),
    /// Any other invalid argument.
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
}

/// Shorthand result type.
pub type Result<T> = std::result::Result<T, StatsError>;

pub(crate) fn check_level(level: f64) -> Result<()> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(StatsError::InvalidLevel(level))
    }
}
