//! # rollstat-stats
//!
//! Uncertainty and comparison statistics for LLM-evaluation metrics that are
//! means over problems of per-problem values (pass@k, pass^k, maj@k, …).
//! Pure math: no I/O, no printing; warnings are returned as data.
//!
//! * [`bootstrap_means`], [`cluster_bootstrap_means`] — multi-metric
//!   bootstrap (percentile, basic, BCa, t) with thread-count-independent,
//!   seeded streams ([`rng`]).
//! * [`clustered_se`] — CR0/CR1 cluster-robust SE.
//! * [`binomial_interval`] — Wilson, Jeffreys, Clopper–Pearson, uniform-prior Bayes.
//! * [`variance_decomposition`], [`pass1_sampling_variance`],
//!   [`pass_at_k_sampling_variance`] — within vs between problem variance.
//! * [`paired_compare`], [`paired_compare_clustered`], [`sign_flip_test`], [`mcnemar`], [`adjust_p_values`],
//!   [`non_inferiority_verdict`] — comparing two systems.
//! * [`minimum_detectable_effect`], [`problems_needed`], [`rollouts_vs_problems`] — power.
//! * [`method_warnings`] — "don't use the CLT with N < a few hundred" and friends.
//!
//! ```
//! use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
//! let y = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.75];
//! let report = bootstrap_means(&[&y], &BootstrapConfig { resamples: 2000, seed: 7, ..Default::default() }).unwrap();
//! let ci = report.columns[0].interval(CiMethod::Bca);
//! assert!(ci.lower < 0.65625 && 0.65625 < ci.upper);
//! ```

#![warn(missing_docs)]
// `!(x > 0.0)` is used on purpose: it rejects NaN as well as non-positive values.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod binomial;
mod bootstrap;
mod cluster;
pub mod dist;
mod error;
mod paired;
mod power;
pub mod rng;
mod variance;
mod warnings;

pub use binomial::{binomial_interval, BinomialMethod};
pub use bootstrap::{
    bootstrap_means, cluster_bootstrap_means, distribution_interval, jackknife_acceleration,
    quantile_sorted, BootstrapConfig, BootstrapReport, CiMethod, ColumnBootstrap, Interval,
};
pub use cluster::{clustered_se, ClusteredSe};
pub use error::{Result, StatsError};
pub use paired::{
    adjust_p_values, mcnemar, mcnemar_from_outcomes, non_inferiority_verdict, paired_compare,
    paired_compare_clustered, sign_flip_test, McNemar, NonInferiority, PAdjust, PairedComparison,
    PairedConfig, Verdict,
};
pub use power::{
    minimum_detectable_effect, paired_difference_variance, problems_needed, rollouts_vs_problems,
    z_alpha_beta, PowerVariance, RolloutTradeoff,
};
pub use variance::{
    pass1_sampling_variance, pass_at_k_sampling_variance, variance_decomposition,
    VarianceDecomposition, VarianceSource,
};
pub use warnings::{method_warnings, MethodContext, StatsWarning, SMALL_N_THRESHOLD};
