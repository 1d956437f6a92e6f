//! Cluster-robust standard errors of a mean.

use std::collections::HashMap;

use serde::Serialize;

use crate::bootstrap::{t_interval, Interval};
use crate::error::{check_level, Result, StatsError};

/// Maps arbitrary cluster labels to dense ids `0..C` in order of first appearance.
pub(crate) fn dense_cluster_ids(clusters: &[u64]) -> (Vec<usize>, usize) {
    let mut map: HashMap<u64, usize> = HashMap::new();
    let ids = clusters
        .iter()
        .map(|c| {
            let next = map.len();
            *map.entry(*c).or_insert(next)
        })
        .collect();
    (ids, map.len())
}

/// Cluster-robust SE of a mean (Miller 2024 Eq. 4 / Appendix A sandwich).
///
/// With `u_i = s_i − s̄` and cluster sums `U_c = Σ_{i∈c} u_i`:
/// * `se_cr0 = sqrt(Σ_c U_c²) / n` — Miller's Appendix A (no small-sample
///   correction; equals Eq. 4 when its SE_CLT² term uses divisor n, see
///   docs/statistics.md §1.6 item 4);
/// * `se_cr1 = se_cr0 · sqrt(C / (C − 1))` — inspect_ai / evaluatellm; NaN when
///   C < 2. Pair it with a t interval on C − 1 df ([`ClusteredSe::t_interval`]).
///
/// ```
/// let s = [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0];
/// let cl = [0, 1, 2, 3, 0, 1, 2, 3];
/// let r = rollstat_stats::clustered_se(&s, &cl).unwrap();
/// assert_eq!(r.clusters, 4);
/// assert!(r.se_cr1 > r.se_cr0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ClusteredSe {
    /// Mean of the defined values.
    pub mean: f64,
    /// Number of defined values.
    pub n: usize,
    /// Number of clusters containing at least one defined value.
    pub clusters: usize,
    /// Ordinary SE, sd(ddof = 1)/√n (Miller Eq. 1), for comparison.
    pub se_iid: f64,
    /// CR0 cluster-robust SE.
    pub se_cr0: f64,
    /// CR1 cluster-robust SE (CR0 · sqrt(C/(C−1))).
    pub se_cr1: f64,
}

impl ClusteredSe {
    /// `mean ± t_{C−1} · se_cr1` at the two-sided `level`.
    ///
    /// ```
    /// let s: Vec<f64> = (0..20).map(|i| i as f64).collect();
    /// let cl: Vec<u64> = (0..20).map(|i| i % 4).collect();
    /// let r = rollstat_stats::clustered_se(&s, &cl).unwrap();
    /// let ci = r.t_interval(0.95).unwrap();
    /// assert!(ci.contains(9.5));
    /// ```
    pub fn t_interval(&self, level: f64) -> Result<Interval> {
        check_level(level)?;
        Ok(t_interval(
            self.mean,
            self.se_cr1,
            self.clusters as f64 - 1.0,
            level,
        ))
    }
}

/// Computes [`ClusteredSe`] for `values` (NaN entries are skipped) grouped by
/// `clusters` (arbitrary labels, one per value).
///
/// ```
/// // docs/statistics.md §1.8: four clusters of four
/// let s = [1.,1.,0.,1., 0.,0.,0.,1., 1.,1.,1.,1., 0.,1.,0.,0.];
/// let cl = [0,0,0,0, 1,1,1,1, 2,2,2,2, 3,3,3,3];
/// let r = rollstat_stats::clustered_se(&s, &cl).unwrap();
/// assert!((r.se_cr1 - 0.1875).abs() < 1e-12);
/// ```
pub fn clustered_se(values: &[f64], clusters: &[u64]) -> Result<ClusteredSe> {
    if values.len() != clusters.len() {
        return Err(StatsError::LengthMismatch {
            what: "values vs clusters",
            left: values.len(),
            right: clusters.len(),
        });
    }
    let pairs: Vec<(f64, u64)> = values
        .iter()
        .zip(clusters)
        .filter(|(v, _)| !v.is_nan())
        .map(|(v, c)| (*v, *c))
        .collect();
    if pairs.is_empty() {
        return Err(StatsError::Empty("no defined values"));
    }
    let n = pairs.len();
    let mean = pairs.iter().map(|p| p.0).sum::<f64>() / n as f64;
    let labels: Vec<u64> = pairs.iter().map(|p| p.1).collect();
    let (ids, c) = dense_cluster_ids(&labels);
    let mut u = vec![0.0; c];
    for ((v, _), id) in pairs.iter().zip(&ids) {
        u[*id] += v - mean;
    }
    let se_cr0 = u.iter().map(|x| x * x).sum::<f64>().sqrt() / n as f64;
    let se_cr1 = if c >= 2 {
        se_cr0 * (c as f64 / (c as f64 - 1.0)).sqrt()
    } else {
        f64::NAN
    };
    let vals: Vec<f64> = pairs.iter().map(|p| p.0).collect();
    let se_iid = crate::bootstrap::sd_ddof1(&vals) / (n as f64).sqrt();
    Ok(ClusteredSe {
        mean,
        n,
        clusters: c,
        se_iid,
        se_cr0,
        se_cr1,
    })
}
