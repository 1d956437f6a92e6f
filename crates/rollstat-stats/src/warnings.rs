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

/// Clusters below this are "few": the cluster bootstrap (percentile or
/// BCa) under-covers and t on C − 1 df with the CR1 SE does not
/// (docs/statistics.md §12.5: at 10 clusters of 20 problems, 0.911 and
/// 0.918 against 0.948 in 1,000 replications, `scripts/cluster_coverage.py`).
///
/// ```
/// assert_eq!(rollstat_stats::FEW_CLUSTERS, 30);
/// ```
pub const FEW_CLUSTERS: usize = 30;

/// The better method for a small sample: with few clusters, t on C − 1 df;
/// with one 0/1 outcome per problem and no clusters, Wilson; otherwise the
/// model-based beta-binomial interval (pass@k and avg@n: at 10–20 problems
/// it covered 0.95–0.97 where the percentile bootstrap covered 0.85–0.94,
/// and 0.07–0.64 for pass@4 of mostly easy problems; docs/statistics.md
/// §12.4) for unclustered problems, and BCa for clusters.
fn small_sample_choice(ctx: &MethodContext) -> &'static str {
    match ctx.clusters {
        Some(c) if c < FEW_CLUSTERS => "t",
        Some(_) => "bca",
        None if ctx.binary => "wilson",
        None => "beta-binomial",
    }
}

/// A t or percentile/basic interval on fewer than [`SMALL_N_THRESHOLD`]
/// resampling units under-covers; suggests [`small_sample_choice`]. With
/// few clusters the t interval on C − 1 df is the advice itself (see
/// [`few_clusters_warning`]), so t gets no small-sample warning there.
fn small_n_warning(ctx: &MethodContext) -> Option<StatsWarning> {
    let better = small_sample_choice(ctx);
    // The interval's accuracy rests on the number of independent resampling
    // units: clusters when the data are clustered, else problems.
    let (units, unit_name) = match ctx.clusters {
        Some(c) if c < ctx.n => (c, "clusters"),
        _ => (ctx.n, "problems"),
    };
    let why = match better {
        "t" => " (t on C − 1 df covered 0.948 where the cluster bootstrap covered 0.911 at 10 clusters)",
        "beta-binomial" => " (the model-based interval for pass@k and avg@n)",
        _ => "",
    };
    match ctx.method {
        CiMethod::T if better == "t" => None,
        CiMethod::T if units < SMALL_N_THRESHOLD => Some(StatsWarning {
            code: "clt-small-n",
            message: format!(
                "t/CLT interval with only {units} {unit_name} (< {SMALL_N_THRESHOLD}) tends to be \
                 too narrow (Bowyer et al. 2025); prefer {better}{why}"
            ),
            suggestion: Some(better),
        }),
        CiMethod::Percentile | CiMethod::Basic | CiMethod::Bca
            if units < SMALL_N_THRESHOLD && (ctx.method != CiMethod::Bca || better == "t") =>
        {
            Some(StatsWarning {
                code: "bootstrap-small-n",
                message: format!(
                    "{} bootstrap interval with only {units} {unit_name} (< {SMALL_N_THRESHOLD}) \
                     under-covers about as much as the CLT; prefer {better}{why}",
                    ctx.method.name(),
                ),
                suggestion: Some(better),
            })
        }
        _ => None,
    }
}

/// Fewer than [`FEW_CLUSTERS`] clusters: CR1 with C − 1 df, and wide
/// intervals.
fn few_clusters_warning(ctx: &MethodContext) -> Option<StatsWarning> {
    let c = ctx.clusters.filter(|&c| c < FEW_CLUSTERS)?;
    Some(StatsWarning {
        code: "few-clusters",
        message: format!(
            "only {c} clusters: use CR1 with a t interval on C − 1 = {} df (the cluster \
             bootstrap and its BCa under-cover with few clusters) and expect wide intervals",
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

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx(method: CiMethod, n: usize, clusters: Option<usize>, binary: bool) -> MethodContext {
        MethodContext {
            method,
            n,
            clusters,
            binary,
            resamples: 10_000,
        }
    }

    fn codes(w: &[StatsWarning]) -> Vec<(&'static str, Option<&'static str>)> {
        w.iter().map(|w| (w.code, w.suggestion)).collect()
    }

    /// Few clusters: the (cluster) percentile bootstrap and its BCa are told
    /// to use t on C − 1 df, which is then not warned about beyond the
    /// few-clusters note (scripts/cluster_coverage.py: 0.911, 0.918, 0.948).
    #[test]
    fn few_clusters_advise_t_on_c_minus_1_df() {
        for m in [CiMethod::Percentile, CiMethod::Bca, CiMethod::Basic] {
            let w = method_warnings(&ctx(m, 200, Some(10), false));
            assert_eq!(
                codes(&w),
                [
                    ("bootstrap-small-n", Some("t")),
                    ("few-clusters", Some("t"))
                ],
                "{m:?}"
            );
            assert!(w[0].message.contains("10 clusters"), "{}", w[0].message);
            assert!(w[1].message.contains("C − 1 = 9 df"), "{}", w[1].message);
        }
        let w = method_warnings(&ctx(CiMethod::T, 200, Some(10), false));
        assert_eq!(codes(&w), [("few-clusters", Some("t"))]);
    }

    /// Many clusters but fewer than the small-sample threshold: BCa, as
    /// before; unclustered small samples: Wilson for 0/1 values, the
    /// model-based interval otherwise; BCa itself is not warned about there.
    #[test]
    fn small_samples_name_the_better_method() {
        let w = method_warnings(&ctx(CiMethod::Percentile, 2000, Some(40), false));
        assert_eq!(codes(&w), [("bootstrap-small-n", Some("bca"))]);
        let w = method_warnings(&ctx(CiMethod::Percentile, 20, None, true));
        assert_eq!(codes(&w), [("bootstrap-small-n", Some("wilson"))]);
        let w = method_warnings(&ctx(CiMethod::Percentile, 20, None, false));
        assert_eq!(codes(&w), [("bootstrap-small-n", Some("beta-binomial"))]);
        assert!(w[0].message.contains("beta-binomial"), "{}", w[0].message);
        assert!(method_warnings(&ctx(CiMethod::Bca, 20, None, false)).is_empty());
        assert!(method_warnings(&ctx(CiMethod::Percentile, 300, None, false)).is_empty());
    }
}
