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
//! * [`hierarchical_pass_at_k`], [`posterior_pass_at_k`], [`bayes_at_n`] —
//!   model-based small-N intervals for pass@k and avg@n (beta-binomial), Bayes@N.
//! * [`variance_decomposition`], [`pass1_sampling_variance`],
//!   [`pass_at_k_sampling_variance`] — within vs between problem variance.
//! * [`paired_row`] (means, paired SE, t interval, sign-flip units, McNemar
//!   counts), [`sign_flip`] (exact when every sign pattern fits the budget), [`sign_flip_test`],
//!   [`mcnemar`], [`adjust_p_values`], [`non_inferiority_verdict`] — comparing
//!   two systems.
//! * [`flips`] ([`degradation_p`], [`flip_summary`], [`excess_flip_permutation`])
//!   and [`suite`] ([`max_drop_exact`], [`pooled_sign_flip`], [`cochran_q`], …) —
//!   the statistics of a suite release gate (baseline A vs candidate B over
//!   several benchmarks).
//! * [`rank`] — many systems at once: [`rank_intervals`] (bootstrap rank
//!   intervals, P(best)), [`simultaneous_rank_sets`], [`pairwise_tests`] with
//!   Holm/BH, [`anchor_walk`], [`compact_letters`] / [`top_tier`],
//!   [`friedman`] / [`nemenyi_cd`], [`winners_curse`] / [`split_sample_best`].
//! * [`minimum_detectable_effect`], [`problems_needed`], [`rollouts_vs_problems`] — power.
//! * [`extrapolate_pass_at_k`], [`fit_beta_binomial`] — pass@K beyond the
//!   sampled n from a beta-binomial fit, with a refitting bootstrap.
//! * [`method_warnings`] — "don't use the CLT with N < a few hundred" and friends.
//!
//! ```
//! use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
//! let y = [1.0, 0.0, 1.0, 1.0, 0.5, 0.0, 1.0, 0.75];
//! let report = bootstrap_means(&[&y], &BootstrapConfig { resamples: 2000, seed: 7, ..Default::default() }).unwrap();
//! let ci = report.columns[0].interval(CiMethod::Bca);
//! assert!(ci.lower < 0.65625 && 0.65625 < ci.upper);
//! ```
//!
//! # Bootstrap model
//! The input is `M` columns of per-problem values, each of length `N`; `NaN`
//! means "undefined for this problem" and is excluded from that column only.
//! Each resample draws `U` resampling units with replacement (`U = N` problems,
//! or `U = C` clusters) and the **same** draw is used for every column, so the
//! intervals of one report are mutually consistent. The statistic of a column
//! is the mean over the defined values contained in the resample (for clusters:
//! the concatenated mean, i.e. `Σ_c w_c S_c / Σ_c w_c m_c`, item-weighted).
//!
//! Nothing of size `B × N` is ever materialised: every resample draws `U`
//! unit indices (Lemire's bounded integers on xoshiro256++), tallies them into
//! multinomial counts `w_u`, and takes one sequential pass of dot products of
//! `w` with the per-unit sums (and, for columns with NaN, counts) of all
//! columns. Memory is O(U·M + B·M). Resamples run in
//! parallel with rayon; resample `b` uses its own stream
//! [`rng::stream`]`(seed, b)`, so results are bit-identical for any thread
//! count.
//!
//! # Bootstrap intervals
//! * `percentile` — `[q(α/2), q(1−α/2)]` of the bootstrap distribution.
//! * `basic` — `[2θ̂ − q(1−α/2), 2θ̂ − q(α/2)]`.
//! * `bca` — Efron's bias-corrected and accelerated interval with scipy's
//!   conventions: `ẑ0 = Φ⁻¹((#{θ* < θ̂} + #{θ* ≤ θ̂}) / 2B)` (ties count half),
//!   acceleration from the jackknife over resampling units, computed in O(U)
//!   from leave-one-out sums. Degenerate distributions give `NaN` bounds.
//! * `t` — `θ̂ ± t_{df}·se` with no resampling: `se = sd/√n`, `df = n − 1` for
//!   the problem bootstrap; CR1 cluster-robust SE with `df = C − 1` for the
//!   cluster bootstrap.
//!
//! **Quantile convention:** Hyndman–Fan type 7 (linear interpolation between
//! order statistics, `h = (B−1)p`), the default of `numpy.percentile` and of
//! `scipy.stats.bootstrap`. The bootstrap standard error is the sample standard
//! deviation (`ddof = 1`) of the replicates, as in scipy.
//!
//! Resamples in which a column has no defined value give an undefined
//! replicate; these are dropped from that column's distribution and counted in
//! [`ColumnBootstrap::undefined_resamples`].
//!
//! # Non-inferiority
//! [`non_inferiority_verdict`] takes the **one-sided** bounds of
//! `delta = candidate − baseline` at the chosen level, i.e. the two-sided
//! interval at `2·level − 1` (one-sided 95% ⇔ two-sided 90%), see
//! [`ColumnBootstrap::one_sided_bounds`].
//!
//! # Power analysis
//! Power analysis for comparing two systems on N problems (Miller 2024 §5,
//! Eq. 9–10; docs/statistics.md §1.5, with the §1.6 errata).
//!
//! All functions work with the **per-problem** variance of the paired score
//! difference (`ω² + σ_A²/K_A + σ_B²/K_B`, Eq. 9), i.e. n·Var(μ̂), not the
//! variance of the mean (docs/statistics.md §1.6 item 6). For a single system use
//! the per-problem variance of its score instead.
//!
//! # Reproducibility
//! Record `seed`, `resamples` and [`rng::RNG_SCHEME`] (all in
//! [`BootstrapReport`]) with any reported interval or permutation p-value.

#![warn(missing_docs)]
// `!(x > 0.0)` is used on purpose: it rejects NaN as well as non-positive values.
#![allow(clippy::neg_cmp_op_on_partial_ord)]

mod bayes;
mod binomial;
mod bootstrap;
mod cluster;
mod column;
pub mod dist;
mod error;
mod extrapolate;
pub mod flips;
mod multinomial;
mod paired;
mod paired_row;
mod power;
pub mod rank;
pub mod reliability;
pub mod rng;
pub mod suite;
mod variance;
mod warnings;

pub use bayes::{
    bayes_at_n, hierarchical_pass_at_k, hierarchical_posterior, posterior_pass_at_k, BetaPrior,
    Estimand, HierarchicalPosterior, PosteriorMoments,
};
pub use binomial::{binomial_interval, BinomialMethod};
pub use bootstrap::{
    bootstrap_columns_with_ratios, bootstrap_means, bootstrap_means_with_ratios,
    cluster_bootstrap_means, distribution_interval, jackknife_acceleration, quantile_sorted,
    t_interval, BootstrapConfig, BootstrapReport, CiMethod, ColumnBootstrap, Interval,
    RatioBootstrap, EXACT_DRAWS,
};
pub use cluster::{clustered_se, ClusteredSe};
pub use column::Column;
pub use error::{Result, StatsError};
pub use extrapolate::{
    extrapolate_pass_at_k, fit_beta_binomial, fit_check, BetaBinomialFit, CountTable, Extrapolated,
    Extrapolation, ExtrapolationConfig, FitCheck,
};
pub use flips::{
    cross_flip, degradation_p, excess_flip, excess_flip_permutation, expected_discordant,
    flip_summary, within_flip, ExcessFlipTest, FlipSummary,
};
pub use paired::{
    adjust_p_values, mcnemar, mcnemar_from_outcomes, non_inferiority_verdict, pearson, sign_flip,
    sign_flip_test, tango_paired_interval, McNemar, NonInferiorityVerdict, PAdjust, SignFlip,
    MAX_EXACT_SIGN_FLIP,
};
pub use paired_row::{paired_row, PairedRow};
pub use power::{
    minimum_detectable_effect, paired_difference_variance, problems_needed, rollouts_vs_problems,
    z_alpha_beta, PowerVariance, RolloutTradeoff,
};
pub use rank::friedman::{friedman, friedman_from_mean_ranks, nemenyi_cd, nemenyi_q, Friedman};
pub use rank::letters::{compact_letters, top_tier};
pub use rank::pairwise::{
    anchor_walk, pairwise_tests, AnchorWalk, PairMethod, PairPreference, PairTest,
};
pub use rank::winner::{winner_inference, WinnerInference};
pub use rank::{
    rank_intervals, rank_of, simultaneous_rank_sets, split_sample_best, winners_curse,
    RankIntervals, SplitSample, WinnerCurse,
};
pub use suite::{
    cochran_q, fisher_combination, max_drop_exact, max_drop_sign_flip, pooled_degradation_p,
    pooled_sign_flip, sign_flip_one_sided, weighted_difference, Heterogeneity, SignFlipOneSided,
};
pub use variance::{
    pass1_sampling_variance, pass_at_k_sampling_variance, variance_decomposition,
    variance_decomposition_of, VarianceDecomposition, VarianceSource,
};
pub use warnings::{method_warnings, MethodContext, StatsWarning, FEW_CLUSTERS, SMALL_N_THRESHOLD};
