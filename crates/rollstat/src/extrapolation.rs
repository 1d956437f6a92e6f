//! pass@K beyond the sampled n (docs/statistics.md §7, docs/spec.md §6):
//! the report's `extrapolation` block, from a beta-binomial fit to the
//! problems' (n, c) with a bootstrap over problems that refits in every
//! resample. Model-based, and labelled so.

use crate::document::{MetricBlock, Ordered};
use crate::options::{IntervalMethod, ReportOptions};
use rollstat_core::aggregate::Metric;
use rollstat_core::catalogue::MetricKey;
use rollstat_core::summary::ProblemSummary;
use rollstat_stats::{extrapolate_pass_at_k, ExtrapolationConfig};
use serde::{Deserialize, Serialize};

/// What the `extrapolation` block says about its own standing.
pub const EXTRAPOLATION_LABEL: &str = "model-based: assumes the problems' success rates follow a beta distribution (a problem that can never be solved has no place in it); not an unbiased estimate like pass@k for k ≤ n";

/// The `extrapolation` block of report.json.
///
/// ```
/// let text = r#"{"model": "beta-binomial"}"#;
/// assert!(serde_json::from_str::<rollstat::Extrapolation>(text).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Extrapolation {
    /// `beta-binomial`.
    pub model: String,
    /// [`EXTRAPOLATION_LABEL`].
    pub label: String,
    /// Fitted α of Beta(α, β).
    pub alpha: f64,
    /// Fitted β of Beta(α, β).
    pub beta: f64,
    /// The maximized log-likelihood (without the binomial coefficients).
    pub log_likelihood: f64,
    /// Whether the maximum-likelihood iteration converged.
    pub converged: bool,
    /// Problems the fit used (those with at least one rollout).
    pub n_problems: u64,
    /// `pass@K_fit` → the extrapolated value.
    pub values: Ordered<ExtrapolatedEntry>,
    /// How well the model describes the data it was fitted on.
    pub check: FitCheckEntry,
    /// Bootstrap resamples (0 when no interval was asked).
    pub resamples: usize,
    /// Seed of the resampling streams (separated from the metrics' streams).
    pub seed: u64,
    /// Resamples that could not be refitted, left out of the intervals.
    pub failed_resamples: usize,
}

/// One extrapolated pass@K.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExtrapolatedEntry {
    /// K.
    pub k: u64,
    /// pass@K under the fitted model.
    pub value: f64,
    /// Standard deviation of the refitted bootstrap replicates.
    pub stderr: Option<f64>,
    /// `[lower, upper]`: percentile interval of the refitted replicates.
    pub ci: Option<[f64; 2]>,
    /// `bootstrap-refit`, or `none` when no interval was asked.
    pub method: String,
    /// The interval's two-sided level (absent without one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<f64>,
}

/// The fit's check against the data: χ² over the counts of c, and the gap
/// between fitted and observed pass@k for the report's k.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FitCheckEntry {
    /// Pearson χ² of the problems with the most common n (null when the
    /// bins leave no degree of freedom).
    pub chi2: Option<f64>,
    /// Its degrees of freedom.
    pub df: Option<u32>,
    /// P(χ²_df ≥ chi2): small values say the beta does not fit.
    pub p_value: Option<f64>,
    /// The n whose problems were binned.
    pub n: Option<u64>,
    /// Largest |fitted − observed| pass@k over the report's k.
    pub max_abs_gap: Option<f64>,
    /// The k where it is largest.
    pub gap_at_k: Option<u64>,
}

/// The extrapolation block for `targets`, or why there is none.
pub(crate) fn extrapolate(
    summaries: &[ProblemSummary],
    block: &MetricBlock,
    ks: &[u64],
    opts: &ReportOptions,
) -> Result<Option<Extrapolation>, String> {
    let targets = &opts.extrapolate;
    if targets.is_empty() {
        return Ok(None);
    }
    let o = &opts.intervals;
    let resamples = match o.method {
        IntervalMethod::None => 0,
        _ => o.resamples,
    };
    let cfg = ExtrapolationConfig {
        targets: targets.clone(),
        resamples,
        seed: o.seed,
        level: o.level,
    };
    let problems: Vec<(u64, u64)> = summaries.iter().map(|s| (s.n, s.c)).collect();
    let x = extrapolate_pass_at_k(&problems, &cfg).map_err(|e| e.to_string())?;
    let mut values = Ordered::default();
    for v in &x.values {
        values.insert(
            MetricKey::PassAtKFit(v.k).to_string(),
            entry(v, resamples, o.level),
        );
    }
    Ok(Some(Extrapolation {
        model: "beta-binomial".into(),
        label: EXTRAPOLATION_LABEL.into(),
        alpha: x.fit.alpha,
        beta: x.fit.beta,
        log_likelihood: x.fit.log_likelihood,
        converged: x.fit.converged,
        n_problems: x.n_problems,
        values,
        check: check(&x, block, ks),
        resamples,
        seed: o.seed,
        failed_resamples: x.failed_resamples,
    }))
}

fn entry(v: &rollstat_stats::Extrapolated, resamples: usize, level: f64) -> ExtrapolatedEntry {
    let resampled = resamples > 0;
    ExtrapolatedEntry {
        k: v.k,
        value: v.value,
        stderr: v.stderr.filter(|_| resampled),
        ci: v
            .ci
            .filter(|_| resampled)
            .map(|(lower, upper)| [lower, upper]),
        method: if resampled { "bootstrap-refit" } else { "none" }.into(),
        level: resampled.then_some(level),
    }
}

fn check(x: &rollstat_stats::Extrapolation, block: &MetricBlock, ks: &[u64]) -> FitCheckEntry {
    let gaps = ks.iter().filter_map(|&k| {
        let observed = block.metrics.get(&Metric::PassAtK(k).to_string())?.value;
        Some((k, (x.fit.pass_at(k as f64) - observed).abs()))
    });
    let worst = gaps.fold(None, |best: Option<(u64, f64)>, (k, g)| match best {
        Some((_, b)) if b >= g => best,
        _ => Some((k, g)),
    });
    FitCheckEntry {
        chi2: x.check.map(|c| c.chi2),
        df: x.check.map(|c| c.df),
        p_value: x.check.map(|c| c.p_value),
        n: x.check.map(|c| c.n),
        max_abs_gap: worst.map(|(_, g)| g),
        gap_at_k: worst.map(|(k, _)| k),
    }
}
