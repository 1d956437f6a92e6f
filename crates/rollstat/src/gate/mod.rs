//! [`gate()`]: one release decision over a suite of benchmarks, baseline A
//! against candidate B (docs/gate.md, schema `rollstat.gate/1`).
//!
//! plan (TOML, or the short form's equivalent) → per benchmark: read both
//! sides through compare's reading, pair problems → the primary metric's
//! paired row (compare's bootstrap) → one-sided test for degradation, flips
//! against their floor, status against the margin → suite: weighted
//! difference, heterogeneity, pooled / Fisher / max-drop at α/3 → both
//! rules, the declared one decides.

mod document;

pub use document::*;
