//! # rollstat-core
//!
//! The math of rollstat, free of I/O: exact per-problem estimators
//! ([`estimators`]) and their batch form over many problems ([`batch`];
//! [`counts`]: whole count arrays of any integer type, in parallel, with
//! pass@k and pass^k optionally within 5·10⁻¹⁴ of exact for speed),
//! majority voting and answer clustering ([`vote`]), maj@k for every k
//! ([`select`]), best-of-k and score-weighted voting ([`best`]), the
//! per-problem summary that rollouts fold into ([`summary`]), and the
//! aggregation of per-problem values into report metrics ([`aggregate`]),
//! and the metric catalogue: every key's grammar, unit and presentation
//! ([`catalogue`]).
//!
//! Data flows one way: canonical rollouts → [`summary::ProblemSummary`] →
//! per-problem values for each metric → mean, standard error and exclusion
//! counts ([`aggregate::MetricColumn`]). Readers and renderers live in other
//! crates; everything here can be called with plain numbers.
//!
//! ```
//! use rollstat_core::estimators::{pass_at_k, pass_pow_k};
//! // One problem, 8 rollouts, 3 correct.
//! assert!((pass_at_k(8, 3, 2).unwrap() - 0.6428571428571429).abs() < 1e-15);
//! assert!((pass_pow_k(8, 3, 2).unwrap() - 3.0 / 28.0).abs() < 1e-15);
//! ```

pub mod aggregate;
pub mod batch;
pub mod best;
pub mod catalogue;
pub mod counts;
pub mod estimators;
mod hypergeom;
pub mod input;
mod numeric;
pub mod rollouts;
pub mod select;
pub mod summary;
pub mod vote;
