//! Method-choice warnings, returned as data (never printed).

use serde::Serialize;

use crate::bootstrap::CiMethod;

/// Problem counts below this are "fewer than a few hundred" (Bowyer et al.
/// 2025): CLT-based (and plain bootstrap) intervals tend to under-cover.
///
/// ```
/// assert_eq!(rollstat_stats::SMALL_N_THRESHOLD, 300);
/// ```
pub const SMALL_N_THRESHOLD: usize = 300;

/// Describes the data an interval is computed on, for [`method_warnings`].
///
/// ```
/// let ctx = rollstat_stats::MethodContext { method: rollstat_stats::CiMethod::T, n: 1000, clusters: None, binary: false, resamples: 0 };
/// assert!(rollstat_stats::method_warnings(&ctx).is_empty());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MethodContext {
    /// Interval method in use.
    pub method: CiMethod,
    /// Number of problems (defined values).
    pub n: usize,
    /// Number of clusters, if the data are clustered.
    pub clusters: Option<usize>,
    /// Whether each problem has a single 0/1 outcome.
    pub binary: bool,
    /// Bootstrap resamples (ignored for `T`).
    pub resamples: usize,
}

/// A warning about a method choice, with a suggested alternative.
///
/// ```
/// let w = rollstat_stats::StatsWarning { code: "x", message: "m".into(), suggestion: None };
/// assert_eq!(w.code, "x");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatsWarning {
    /// Stable machine-readable code, e.g. `"clt-small-n"`.
    pub code: &'static str,
    /// Human-readable explanation.
    pub message: String,
    /// A better method, if any (e.g. `"bca"`, `"wilson"`, `"cluster-bootstrap"`).
    pub suggestion: Option<&'static str>,
}

/// Warnings for an interval method given the data shape.
///
/// Codes: `clt-small-n` (t/normal interval with fewer than
/// [`SMALL_N_THRESHOLD`] independent units), `bootstrap-small-n`
/// (percentile/basic below the threshold),
/// `few-clusters` (fewer than 30 clusters), `few-resamples` (B < 1000, or BCa
/// with B < n), `too-few-problems` (n < 2).
///
/// ```
/// use rollstat_stats::{method_warnings, MethodContext, CiMethod};
/// let w = method_warnings(&MethodContext { method: CiMethod::T, n: 80, clusters: None, binary: true, resamples: 0 });
/// assert_eq!(w[0].code, "clt-small-n");
/// assert_eq!(w[0].suggestion, Some("wilson"));
///
/// // Clustered: 2000 problems in 40 clusters are 40 independent units.
/// let w = method_warnings(&MethodContext { method: CiMethod::Percentile, n: 2000, clusters: Some(40), binary: false, resamples: 10_000 });
/// assert_eq!(w[0].code, "bootstrap-small-n");
/// assert!(w[0].message.contains("40 clusters"));
/// ```
pub fn method_warnings(ctx: &MethodContext) -> Vec<StatsWarning> {
    if ctx.n < 2 {
        return vec![StatsWarning {
            code: "too-few-problems",
            message: format!("only {} problem(s): no interval can be estimated", ctx.n),
            suggestion: None,
        }];
    }
    [
        small_n_warning(ctx),
        few_clusters_warning(ctx),
        few_resamples_warning(ctx),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// A t or percentile/basic interval on fewer than [`SMALL_N_THRESHOLD`]
/// resampling units under-covers; suggests Wilson (binary, unclustered) or
/// BCa.
fn small_n_warning(ctx: &MethodContext) -> Option<StatsWarning> {
    let better = if ctx.binary && ctx.clusters.is_none() {
        "wilson"
    } else {
        "bca"
    };
    // The interval's accuracy rests on the number of independent resampling
    // units: clusters when the data are clustered, else problems.
    let (units, unit_name) = match ctx.clusters {
        Some(c) if c < ctx.n => (c, "clusters"),
        _ => (ctx.n, "problems"),
    };
    match ctx.method {
        CiMethod::T if units < SMALL_N_THRESHOLD => Some(StatsWarning {
            code: "clt-small-n",
            message: format!(
                "t/CLT interval with only {units} {unit_name} (< {SMALL_N_THRESHOLD}) tends to be \
                 too narrow (Bowyer et al. 2025); prefer {better}"
            ),
            suggestion: Some(better),
        }),
        CiMethod::Percentile | CiMethod::Basic if units < SMALL_N_THRESHOLD => Some(StatsWarning {
            code: "bootstrap-small-n",
            message: format!(
                "{} bootstrap interval with only {units} {unit_name} (< {SMALL_N_THRESHOLD}) \
                     under-covers about as much as the CLT; prefer {better}",
                ctx.method.name(),
            ),
            suggestion: Some(better),
        }),
        _ => None,
    }
}

/// Fewer than 30 clusters: CR1 with C − 1 df, and wide intervals.
fn few_clusters_warning(ctx: &MethodContext) -> Option<StatsWarning> {
    let c = ctx.clusters.filter(|&c| c < 30)?;
    Some(StatsWarning {
        code: "few-clusters",
        message: format!(
            "only {c} clusters: use CR1 with a t interval on C − 1 = {} df \
             (or a cluster bootstrap) and expect wide, unreliable intervals",
            c.saturating_sub(1)
        ),
        suggestion: Some("t"),
    })
}

/// A bootstrap interval needs at least 1000 resamples (BCa: at least one
/// per problem as well).
fn few_resamples_warning(ctx: &MethodContext) -> Option<StatsWarning> {
    if ctx.method == CiMethod::T {
        return None;
    }
    let min_b = if ctx.method == CiMethod::Bca {
        ctx.n.max(1000)
    } else {
        1000
    };
    (ctx.resamples < min_b).then(|| StatsWarning {
        code: "few-resamples",
        message: format!(
            "{} resamples is too few for stable {} bounds; use at least {}",
            ctx.resamples,
            ctx.method.name(),
            min_b.max(10_000)
        ),
        suggestion: None,
    })
}
