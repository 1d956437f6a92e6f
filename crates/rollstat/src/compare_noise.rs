//! compare's run-to-run noise: each side's flip floor (how often it
//! disagrees with itself between two of its own rollouts) and ICC(1), the
//! test of whether B's floor differs from A's, and the A-vs-B flip rate
//! read against the floors (docs/compare.md, "Run-to-run noise").

use crate::options::IntervalOptions;
use crate::reliability::{icc_entry, IccEntry};
use rollstat_core::summary::ProblemSummary;
use rollstat_stats::flips::flip_summary;
use rollstat_stats::reliability::noise_difference;
use serde::{Deserialize, Serialize};

/// The two sides' run-to-run noise on the matched problems with two or
/// more rollouts a side.
///
/// ```
/// let n = rollstat::RunNoise { n_problems: 30, floor_a: 0.1, floor_b: 0.2, floor_difference: 0.1, p_value: 0.01, exact: false, flip_rate: 0.18, excess: Some(0.03), icc_a: None, icc_b: None };
/// assert!(n.floor_b > n.floor_a);
/// ```
#[derive(Serialize, Deserialize, Debug, Clone, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RunNoise {
    /// Matched problems with two or more rollouts on both sides.
    pub n_problems: u64,
    /// A's flip floor: its mean pairwise disagreement between two of its
    /// own rollouts, `2c(n − c)/(n(n − 1))` averaged over problems.
    pub floor_a: f64,
    /// B's flip floor.
    pub floor_b: f64,
    /// `floor_b − floor_a`.
    pub floor_difference: f64,
    /// Two-sided sign-flip p of the per-problem floor differences.
    pub p_value: f64,
    /// Whether every sign pattern was enumerated.
    pub exact: bool,
    /// How often one rollout of A and one of B disagree (expected over
    /// rollout pairs, averaged over problems).
    pub flip_rate: f64,
    /// `flip_rate` minus the mean of the two floors: the disagreement
    /// beyond what either side shows with itself.
    pub excess: Option<f64>,
    /// A's ICC(1) and ICC(1,k) (when every problem has the same n ≥ 2).
    pub icc_a: Option<IccEntry>,
    /// B's.
    pub icc_b: Option<IccEntry>,
}

/// The noise block, `None` unless some matched problem has two or more
/// rollouts on both sides.
pub(crate) fn run_noise(
    (a, b): (&[ProblemSummary], &[ProblemSummary]),
    intervals: &IntervalOptions,
    permutations: usize,
) -> Option<RunNoise> {
    let seed = intervals.seed;
    let counts: Vec<(u64, u64, u64, u64)> = a
        .iter()
        .zip(b)
        .filter(|(x, y)| x.n >= 2 && y.n >= 2)
        .map(|(x, y)| (x.c, x.n, y.c, y.n))
        .collect();
    let d = noise_difference(&counts, permutations, seed).ok()??;
    let f = flip_summary(&counts).ok()?;
    Some(RunNoise {
        n_problems: d.n_problems,
        floor_a: d.floor_a,
        floor_b: d.floor_b,
        floor_difference: d.floor_b - d.floor_a,
        p_value: d.p_value,
        exact: d.exact,
        flip_rate: f.flip_rate,
        excess: f.excess,
        icc_a: side_icc(counts.iter().map(|t| (t.0, t.1)), intervals),
        icc_b: side_icc(counts.iter().map(|t| (t.2, t.3)), intervals),
    })
}

/// One side's ICC when all its problems have one n.
fn side_icc(cn: impl Iterator<Item = (u64, u64)>, intervals: &IntervalOptions) -> Option<IccEntry> {
    let (c, n): (Vec<u64>, Vec<u64>) = cn.unzip();
    let first = *n.first()?;
    if n.iter().any(|&x| x != first) {
        return None;
    }
    icc_entry(&c, first, intervals)
}
