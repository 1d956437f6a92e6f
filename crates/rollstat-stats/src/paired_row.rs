//! The per-metric statistics of a paired comparison of two systems on the
//! same problems: means, the paired difference and its standard error (CR1
//! when clustered), what the SE would be ignoring the pairing, the
//! correlation, the units a sign-flip test permutes, and McNemar's counts
//! where every value is 0 or 1.

use crate::bootstrap::{mean_sd, t_interval, Interval};
use crate::cluster::{clustered_se, dense_cluster_ids};
use crate::paired::{mcnemar_from_outcomes, pearson, McNemar};

/// Statistics of one paired metric (`d = b − a` per problem).
#[derive(Debug, Clone, PartialEq)]
pub struct PairedRow {
    /// Mean of A.
    pub mean_a: f64,
    /// Mean of B.
    pub mean_b: f64,
    /// Mean of B − A.
    pub delta: f64,
    /// SE of `delta` (CR1 with clusters); `None` below 2 problems.
    pub se: Option<f64>,
    /// Degrees of freedom of a t interval: N − 1, or C − 1 with clusters.
    pub df: f64,
    /// sqrt(SE_A² + SE_B²): the SE ignoring the pairing.
    pub se_unpaired: Option<f64>,
    /// Pearson correlation of A and B (`None` when undefined).
    pub correlation: Option<f64>,
    /// McNemar counts and exact p when every value is 0 or 1.
    pub mcnemar: Option<McNemar>,
    /// The exchangeable units of a sign-flip test: the differences, or
    /// their sums per cluster.
    pub units: Vec<f64>,
}

impl PairedRow {
    /// A two-sided t interval for `delta` at `level` (`None` without an SE
    /// or with df < 1).
    pub fn t_interval(&self, level: f64) -> Option<Interval> {
        let se = self.se?;
        (self.df >= 1.0).then(|| t_interval(self.delta, se, self.df, level))
    }
}

fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

/// SE of the mean of `v` (CR1 when clustered) and the t degrees of freedom.
fn se_of(v: &[f64], clusters: Option<&[u64]>) -> (Option<f64>, f64) {
    match clusters {
        Some(cl) => match clustered_se(v, cl) {
            Ok(c) => (finite(c.se_cr1), c.clusters as f64 - 1.0),
            Err(_) => (None, f64::NAN),
        },
        None => {
            let (_, sd, n) = mean_sd(v);
            (finite(sd / (n as f64).sqrt()), n as f64 - 1.0)
        }
    }
}

/// Sums of `d` per cluster, in order of first appearance.
fn cluster_sums(d: &[f64], clusters: &[u64]) -> Vec<f64> {
    let (ids, count) = dense_cluster_ids(clusters);
    let mut sums = vec![0.0; count];
    for (v, &id) in d.iter().zip(&ids) {
        sums[id] += v;
    }
    sums
}

/// The paired statistics of A and B values (same problems, no NaN).
///
/// ```
/// let r = rollstat_stats::paired_row(&[1.0, 0.0, 1.0, 0.0], &[1.0, 1.0, 1.0, 0.0], None);
/// assert_eq!((r.mean_a, r.mean_b, r.delta), (0.5, 0.75, 0.25));
/// assert_eq!(r.se, Some(0.25));
/// assert_eq!(r.mcnemar.unwrap().b_only, 1);
/// ```
pub fn paired_row(a: &[f64], b: &[f64], clusters: Option<&[u64]>) -> PairedRow {
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| y - x).collect();
    let n = d.len();
    let (se, df) = se_of(&d, clusters);
    let se_unpaired = match (se_of(a, clusters).0, se_of(b, clusters).0) {
        (Some(x), Some(y)) if n >= 2 => Some((x * x + y * y).sqrt()),
        _ => None,
    };
    let binary = a.iter().chain(b).all(|&v| v == 0.0 || v == 1.0);
    let outcomes = |v: &[f64]| v.iter().map(|&x| x == 1.0).collect::<Vec<bool>>();
    PairedRow {
        mean_a: mean_sd(a).0,
        mean_b: mean_sd(b).0,
        delta: mean_sd(&d).0,
        se: if n >= 2 { se } else { None },
        df,
        se_unpaired,
        correlation: finite(pearson(a, b)),
        mcnemar: binary
            .then(|| mcnemar_from_outcomes(&outcomes(a), &outcomes(b)).ok())
            .flatten(),
        units: match clusters {
            Some(c) => cluster_sums(&d, c),
            None => d,
        },
    }
}
