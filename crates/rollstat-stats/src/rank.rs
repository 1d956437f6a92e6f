//! Ranking many systems at once: bootstrap rank intervals and P(best),
//! simultaneous rank sets, all-pairs tests with multiplicity, the anchor walk,
//! the winner's curse (docs/statistics.md §11).
//!
//! Input convention: `scores` is a systems × problems matrix of per-problem
//! means (higher is better), every system on the same problems, no NaN;
//! `clusters` optionally labels each problem with a cluster, and then whole
//! clusters are resampled.
//!
//! Compact letter displays are in [`letters`], Friedman / Nemenyi in
//! [`friedman`].

pub mod friedman;
pub mod letters;
pub mod pairwise;
pub mod winner;

use rayon::prelude::*;
use serde::Serialize;

use crate::cluster::dense_cluster_ids;
use crate::error::{check_level, Result, StatsError};
use crate::rng;

/// Competition ranks ("1224"): the highest value gets rank 1, tied values
/// share the smallest rank of their group. NaN values rank last.
///
/// ```
/// assert_eq!(rollstat_stats::rank_of(&[0.5, 0.9, 0.5, 0.1]), vec![2, 1, 2, 4]);
/// ```
pub fn rank_of(values: &[f64]) -> Vec<u32> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    let key = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
    order.sort_by(|&a, &b| key(values[b]).total_cmp(&key(values[a])));
    let mut ranks = vec![0u32; values.len()];
    for (pos, &i) in order.iter().enumerate() {
        ranks[i] = if pos > 0 && key(values[order[pos - 1]]) == key(values[i]) {
            ranks[order[pos - 1]]
        } else {
            pos as u32 + 1
        };
    }
    ranks
}

/// Per-system sums over resampling units (problems or clusters).
pub(crate) struct Units {
    /// Number of systems.
    pub(crate) m: usize,
    /// Number of resampling units.
    pub(crate) u: usize,
    /// `m × u`, row-major: the sum of system `i`'s scores in unit `c`.
    pub(crate) sums: Vec<f64>,
    /// Problems per unit.
    pub(crate) sizes: Vec<f64>,
}

impl Units {
    pub(crate) fn new(scores: &[Vec<f64>], clusters: Option<&[u64]>) -> Result<Units> {
        let n = check_scores(scores)?;
        let m = scores.len();
        let (ids, u) = match clusters {
            None => ((0..n).collect::<Vec<_>>(), n),
            Some(c) if c.len() != n => {
                return Err(StatsError::LengthMismatch {
                    what: "clusters vs problems",
                    left: c.len(),
                    right: n,
                })
            }
            Some(c) => dense_cluster_ids(c),
        };
        let mut sums = vec![0.0; m * u];
        let mut sizes = vec![0.0; u];
        for (p, &c) in ids.iter().enumerate() {
            sizes[c] += 1.0;
            for (i, row) in scores.iter().enumerate() {
                sums[i * u + c] += row[p];
            }
        }
        Ok(Units { m, u, sums, sizes })
    }

    /// Point estimates: every system's mean over all problems.
    pub(crate) fn means(&self) -> Vec<f64> {
        let w = vec![1.0; self.u];
        let mut out = vec![0.0; self.m];
        self.weighted_means(&w, &mut out);
        out
    }

    /// `Σ_c w_c S_ic / Σ_c w_c n_c` for every system (one pass over the matrix).
    fn weighted_means(&self, w: &[f64], out: &mut [f64]) {
        let total = dot(w, &self.sizes);
        for (i, o) in out.iter_mut().enumerate() {
            *o = dot(&self.sums[i * self.u..(i + 1) * self.u], w) / total;
        }
    }

    /// Multinomial counts of `u` draws with replacement from stream `(seed, b)`.
    fn draw(&self, seed: u64, b: u64, w: &mut [f64]) {
        w.iter_mut().for_each(|x| *x = 0.0);
        let mut r = rng::stream(seed, b);
        for _ in 0..self.u {
            w[rng::bounded(&mut r, self.u as u64) as usize] += 1.0;
        }
    }

    /// `f(b, means*_b)` for every replicate `b`, in order. Replicate `b` uses
    /// its own stream, so the result does not depend on the thread count.
    pub(crate) fn replicates<T, F>(&self, resamples: u64, seed: u64, f: F) -> Vec<T>
    where
        T: Send,
        F: Fn(&[f64]) -> T + Sync,
    {
        (0..resamples)
            .into_par_iter()
            .map_init(
                || (vec![0.0; self.u], vec![0.0; self.m]),
                |(w, means), b| {
                    self.draw(seed, b, w);
                    self.weighted_means(w, means);
                    f(means)
                },
            )
            .collect()
    }
}

/// Validates a systems × problems matrix; returns the number of problems.
pub(crate) fn check_scores(scores: &[Vec<f64>]) -> Result<usize> {
    let n = scores.first().map(Vec::len).unwrap_or(0);
    if scores.is_empty() || n == 0 {
        return Err(StatsError::Empty("no systems or no problems"));
    }
    for row in scores {
        if row.len() != n {
            return Err(StatsError::LengthMismatch {
                what: "problems per system",
                left: row.len(),
                right: n,
            });
        }
        if row.iter().any(|x| !x.is_finite()) {
            return Err(StatsError::InvalidArgument(
                "scores must be finite (restrict to the shared problems first)".into(),
            ));
        }
    }
    Ok(n)
}

fn check_resamples(resamples: u64) -> Result<()> {
    if resamples == 0 {
        return Err(StatsError::InvalidArgument("resamples must be > 0".into()));
    }
    Ok(())
}

/// Dot product with four interleaved accumulators (fixed summation order).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    let mut acc = [0.0f64; 4];
    let (ca, cb) = (a.chunks_exact(4), b.chunks_exact(4));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for k in 0..4 {
            acc[k] += x[k] * y[k];
        }
    }
    let mut s = (acc[0] + acc[1]) + (acc[2] + acc[3]);
    for (x, y) in ra.iter().zip(rb) {
        s += x * y;
    }
    s
}

/// Bootstrap rank intervals and P(best) of [`rank_intervals`].
///
/// ```
/// let s = vec![vec![1.0, 1.0, 1.0], vec![0.0, 0.0, 0.0]];
/// let r = rollstat_stats::rank_intervals(&s, None, 200, 0.95, 1).unwrap();
/// assert_eq!((r.lower[0], r.upper[0], r.p_best[0]), (1, 1, 1.0));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RankIntervals {
    /// Competition rank of each system's mean ([`rank_of`]).
    pub rank: Vec<u32>,
    /// Lower end (best rank) of the marginal interval.
    pub lower: Vec<u32>,
    /// Upper end (worst rank) of the marginal interval.
    pub upper: Vec<u32>,
    /// Share of replicates in which the system has rank 1 (ties count for
    /// every tied system, so the sum can exceed 1).
    pub p_best: Vec<f64>,
    /// Number of bootstrap replicates.
    pub resamples: u64,
}

/// Marginal bootstrap rank intervals (as evaluatellm `ev_rank`): resample
/// problems (whole clusters when `clusters` is given) with replacement; in each
/// replicate rank the systems' means with ties by minimum. `lower`/`upper` are
/// the quantiles at `(1−level)/2` and `(1+level)/2` of each system's bootstrap
/// ranks by the inverse empirical CDF (type 1: the smallest rank `r` with
/// `#{rank*_b ≤ r} ≥ p·B`), so they are always attained ranks. `p_best` is the
/// share of replicates at rank 1. Replicate `b` uses [`rng::stream`]`(seed, b)`;
/// results are identical for any thread count.
///
/// ```
/// // A beats B on 3 of 4 problems.
/// let s = vec![vec![1.0, 1.0, 1.0, 0.0], vec![0.0, 0.0, 0.0, 1.0]];
/// let r = rollstat_stats::rank_intervals(&s, None, 2000, 0.95, 7).unwrap();
/// assert_eq!(r.rank, vec![1, 2]);
/// assert!(r.p_best[0] > r.p_best[1]);
/// ```
pub fn rank_intervals(
    scores: &[Vec<f64>],
    clusters: Option<&[u64]>,
    resamples: u64,
    level: f64,
    seed: u64,
) -> Result<RankIntervals> {
    check_level(level)?;
    check_resamples(resamples)?;
    let units = Units::new(scores, clusters)?;
    let m = units.m;
    let ranks = units.replicates(resamples, seed, rank_of);
    // hist[i * m + (r − 1)] = replicates in which system i has rank r.
    let mut hist = vec![0u64; m * m];
    for rb in &ranks {
        for (i, &r) in rb.iter().enumerate() {
            hist[i * m + r as usize - 1] += 1;
        }
    }
    let b = resamples as f64;
    let quantile = |row: &[u64], p: f64| -> u32 {
        let need = p * b * (1.0 - 1e-12);
        let mut cum = 0u64;
        for (r, &c) in row.iter().enumerate() {
            cum += c;
            if cum as f64 >= need && cum > 0 {
                return r as u32 + 1;
            }
        }
        m as u32
    };
    let (mut lower, mut upper, mut p_best) = (vec![], vec![], vec![]);
    for i in 0..m {
        let row = &hist[i * m..(i + 1) * m];
        lower.push(quantile(row, (1.0 - level) / 2.0));
        upper.push(quantile(row, (1.0 + level) / 2.0));
        p_best.push(row[0] as f64 / b);
    }
    Ok(RankIntervals {
        rank: rank_of(&units.means()),
        lower,
        upper,
        p_best,
        resamples,
    })
}

/// Simultaneous confidence sets for all ranks (Mogstad, Romano, Shaikh &
/// Wilhelm 2023, "Inference for Ranks with Applications to Mobility across
/// Neighbourhoods and Academic Achievement across Countries", REStud), by the
/// bootstrap over problems (whole clusters when given):
///
/// 1. `B` replicates of all means θ*; `se_ij` = bootstrap sd (ddof 1) of
///    `θ*_i − θ*_j`;
/// 2. the critical value `c` = the `level` quantile (type 7) of
///    `max_{i<j} |(θ*_i − θ*_j) − (θ̂_i − θ̂_j)| / se_ij` (pairs with `se = 0`
///    are known exactly and left out of the max);
/// 3. simultaneous intervals `θ̂_i − θ̂_j ± c·se_ij` for every pair;
/// 4. rank set of `i` = `[1 + #{j: θ_j − θ_i surely > 0}, M − #{j: θ_i − θ_j surely > 0}]`.
///
/// This is the single-step version: no step-down (csranks' `stepdown=TRUE`
/// can only shorten the sets), so the sets are conservative. With
/// probability ≈ `level` all the sets cover the true ranks jointly.
///
/// ```
/// let s = vec![vec![1.0; 30], vec![0.0; 30], vec![0.5; 30]];
/// let sets = rollstat_stats::simultaneous_rank_sets(&s, None, 200, 0.95, 1).unwrap();
/// assert_eq!(sets, vec![(1, 1), (3, 3), (2, 2)]);
/// ```
pub fn simultaneous_rank_sets(
    scores: &[Vec<f64>],
    clusters: Option<&[u64]>,
    resamples: u64,
    level: f64,
    seed: u64,
) -> Result<Vec<(u32, u32)>> {
    check_level(level)?;
    check_resamples(resamples)?;
    let units = Units::new(scores, clusters)?;
    let m = units.m;
    let theta = units.means();
    let reps: Vec<Vec<f64>> = units.replicates(resamples, seed, |t| t.to_vec());
    let se = pairwise_se(&reps, m);
    let mut maxes: Vec<f64> = reps
        .par_iter()
        .map(|t| {
            let mut mx = 0.0f64;
            for i in 0..m {
                for j in i + 1..m {
                    let s = se[i * m + j];
                    if s > 0.0 {
                        let z = ((t[i] - t[j]) - (theta[i] - theta[j])).abs() / s;
                        mx = mx.max(z);
                    }
                }
            }
            mx
        })
        .collect();
    maxes.sort_by(f64::total_cmp);
    let c = crate::bootstrap::quantile_sorted(&maxes, level);
    let mut sets = Vec::with_capacity(m);
    for i in 0..m {
        let (mut above, mut below) = (0u32, 0u32);
        for j in (0..m).filter(|&j| j != i) {
            let (d, s) = (theta[j] - theta[i], se[i.min(j) * m + i.max(j)]);
            if d - c * s > 0.0 {
                above += 1;
            } else if d + c * s < 0.0 {
                below += 1;
            }
        }
        sets.push((1 + above, m as u32 - below));
    }
    Ok(sets)
}

/// Bootstrap sd (ddof 1) of `θ*_i − θ*_j` for `i < j`, at `[i * m + j]`.
fn pairwise_se(reps: &[Vec<f64>], m: usize) -> Vec<f64> {
    let b = reps.len() as f64;
    let mut centre = vec![0.0; m];
    for t in reps {
        for (c, x) in centre.iter_mut().zip(t) {
            *c += x / b;
        }
    }
    let rows: Vec<Vec<f64>> = (0..m)
        .into_par_iter()
        .map(|i| {
            let mut row = vec![0.0; m];
            for t in reps {
                let di = t[i] - centre[i];
                for j in i + 1..m {
                    let d = di - (t[j] - centre[j]);
                    row[j] += d * d;
                }
            }
            row.iter()
                .map(|s| if b > 1.0 { (s / (b - 1.0)).sqrt() } else { 0.0 })
                .collect()
        })
        .collect();
    rows.concat()
}

/// Result of [`winners_curse`].
///
/// ```
/// let w = rollstat_stats::WinnerCurse { best: 0, naive: 0.6, adjusted: 0.55, method: "bootstrap-bias" };
/// assert!(w.adjusted < w.naive);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct WinnerCurse {
    /// The system with the highest mean (lowest index among ties).
    pub best: usize,
    /// Its mean, `max_i θ̂_i` (biased upwards as an estimate of its true mean).
    pub naive: f64,
    /// `naive − bias`, bias = `mean_b max_i θ*_i − max_i θ̂_i`.
    pub adjusted: f64,
    /// `"bootstrap-bias"`.
    pub method: &'static str,
}

/// Bootstrap bias correction of the selected maximum (Efron & Tibshirani
/// 1993, *An Introduction to the Bootstrap*, §10.3; the "winner's curse" of
/// selecting the best of many noisy estimates): the statistic is
/// `max_i θ̂_i`, its bootstrap bias is `mean_b[max_i θ*_i] − max_i θ̂_i`
/// (problems or whole clusters resampled, replicate `b` on
/// [`rng::stream`]`(seed, b)`), and `adjusted = naive − bias`. The correction
/// is partial: it shrinks the selection bias but does not remove it when
/// several systems are close (see [`split_sample_best`] for an unbiased
/// estimate).
///
/// ```
/// let s = vec![vec![1.0, 0.0, 1.0, 0.0], vec![0.0, 1.0, 0.0, 1.0]];
/// let w = rollstat_stats::winners_curse(&s, None, 2000, 3).unwrap();
/// assert_eq!((w.best, w.naive), (0, 0.5));
/// assert!(w.adjusted < 0.5); // the max of two noisy means is biased upwards
/// ```
pub fn winners_curse(
    scores: &[Vec<f64>],
    clusters: Option<&[u64]>,
    resamples: u64,
    seed: u64,
) -> Result<WinnerCurse> {
    check_resamples(resamples)?;
    let units = Units::new(scores, clusters)?;
    let theta = units.means();
    let best = argmax(&theta);
    let maxes = units.replicates(resamples, seed, |t| t[argmax(t)]);
    let bias = maxes.iter().sum::<f64>() / resamples as f64 - theta[best];
    Ok(WinnerCurse {
        best,
        naive: theta[best],
        adjusted: theta[best] - bias,
        method: "bootstrap-bias",
    })
}

/// Index of the largest value (lowest index among ties).
pub(crate) fn argmax(x: &[f64]) -> usize {
    let mut best = 0;
    for (i, &v) in x.iter().enumerate() {
        if v > x[best] {
            best = i;
        }
    }
    best
}

/// Result of [`split_sample_best`].
///
/// ```
/// let s = rollstat_stats::SplitSample { best: 1, selection_mean: 0.8, held_out_mean: 0.7, held_out_problems: 50 };
/// assert!(s.held_out_mean < s.selection_mean);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct SplitSample {
    /// The best system on the selection half.
    pub best: usize,
    /// Its mean on the selection half (biased upwards).
    pub selection_mean: f64,
    /// Its mean on the held-out half (unbiased for its true mean).
    pub held_out_mean: f64,
    /// Problems in the held-out half.
    pub held_out_problems: usize,
}

/// Select on one half, estimate on the other: the resampling units (problems,
/// or whole clusters) are shuffled by a Fisher–Yates pass on
/// [`rng::stream`]`(seed, 0)`; the first `⌈U/2⌉` units select the best system
/// (highest mean, lowest index among ties) and its mean over the remaining
/// units is reported. Because the held-out half is independent of the
/// selection, that mean is unbiased for the selected system's true mean
/// (at the cost of half the data). Needs at least two units.
///
/// ```
/// let s = vec![vec![1.0, 1.0, 0.0, 1.0], vec![0.0, 0.0, 0.0, 0.0]];
/// let r = rollstat_stats::split_sample_best(&s, None, 5).unwrap();
/// assert_eq!((r.best, r.held_out_problems), (0, 2));
/// ```
pub fn split_sample_best(
    scores: &[Vec<f64>],
    clusters: Option<&[u64]>,
    seed: u64,
) -> Result<SplitSample> {
    let units = Units::new(scores, clusters)?;
    let u = units.u;
    if u < 2 {
        return Err(StatsError::InvalidArgument(
            "split_sample_best needs at least two resampling units".into(),
        ));
    }
    let mut perm: Vec<usize> = (0..u).collect();
    let mut r = rng::stream(seed, 0);
    for k in (1..u).rev() {
        perm.swap(k, rng::bounded(&mut r, k as u64 + 1) as usize);
    }
    let half = u.div_ceil(2);
    let mut w = vec![0.0; u];
    perm[..half].iter().for_each(|&c| w[c] = 1.0);
    let mut sel = vec![0.0; units.m];
    units.weighted_means(&w, &mut sel);
    let best = argmax(&sel);
    let w_out: Vec<f64> = w.iter().map(|x| 1.0 - x).collect();
    let mut out = vec![0.0; units.m];
    units.weighted_means(&w_out, &mut out);
    let held_out_problems = dot(&w_out, &units.sizes) as usize;
    Ok(SplitSample {
        best,
        selection_mean: sel[best],
        held_out_mean: out[best],
        held_out_problems,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Xoshiro256PlusPlus;

    /// Bernoulli(p[i]) scores, systems × n problems.
    fn bernoulli(p: &[f64], n: usize, seed: u64) -> Vec<Vec<f64>> {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
        p.iter()
            .map(|&pi| {
                (0..n)
                    .map(|_| f64::from(u8::from(r.next_f64() < pi)))
                    .collect()
            })
            .collect()
    }

    #[test]
    fn rank_of_is_competition_ranking() {
        assert_eq!(rank_of(&[3.0, 3.0, 3.0]), vec![1, 1, 1]);
        assert_eq!(rank_of(&[1.0, 2.0, 2.0, 3.0]), vec![4, 2, 2, 1]);
        assert_eq!(rank_of(&[0.1, f64::NAN, 0.2]), vec![2, 3, 1]);
        assert!(rank_of(&[]).is_empty());
    }

    #[test]
    fn rank_intervals_identical_for_any_thread_count() {
        let s = bernoulli(&[0.6, 0.55, 0.5, 0.5, 0.45, 0.3], 150, 11);
        let clusters: Vec<u64> = (0..150).map(|p| (p / 5) as u64).collect();
        let run = |threads: usize, c: Option<&[u64]>| {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            pool.install(|| rank_intervals(&s, c, 3000, 0.9, 42).unwrap())
        };
        assert_eq!(run(1, None), run(4, None));
        assert_eq!(run(1, Some(&clusters)), run(4, Some(&clusters)));
    }

    #[test]
    fn rank_intervals_relabel_with_the_systems() {
        let s = bernoulli(&[0.6, 0.55, 0.5, 0.45], 80, 3);
        let perm = [2usize, 0, 3, 1];
        let t: Vec<Vec<f64>> = perm.iter().map(|&i| s[i].clone()).collect();
        let a = rank_intervals(&s, None, 1000, 0.95, 9).unwrap();
        let b = rank_intervals(&t, None, 1000, 0.95, 9).unwrap();
        for (k, &i) in perm.iter().enumerate() {
            assert_eq!(
                (b.rank[k], b.lower[k], b.upper[k], b.p_best[k]),
                (a.rank[i], a.lower[i], a.upper[i], a.p_best[i])
            );
        }
    }

    /// A = (1, 0), B = (0, 1): a resample draws both problems with
    /// probability 1/2 (tie, both rank 1), two copies of problem 0 with
    /// probability 1/4 (A first) and of problem 1 with 1/4 (B first). So
    /// P(best) = 3/4 for each (sum 3/2), and each system's rank is 1 with
    /// probability 3/4 and 2 with 1/4.
    #[test]
    fn two_problem_case_by_hand() {
        let s = vec![vec![1.0, 0.0], vec![0.0, 1.0]];
        let b = 40_000;
        let r = rank_intervals(&s, None, b, 0.95, 5).unwrap();
        assert_eq!(r.rank, vec![1, 1]);
        // binomial sd of a share near 3/4 with B = 40 000 is 0.0022; allow 5 sd.
        for p in &r.p_best {
            assert!((p - 0.75).abs() < 0.011, "{p}");
        }
        // 95%: quantiles 0.025 and 0.975 of {1: 3/4, 2: 1/4} are 1 and 2.
        assert_eq!((r.lower.clone(), r.upper.clone()), (vec![1, 1], vec![2, 2]));
        // 40%: quantiles 0.3 and 0.7 both fall in the rank-1 mass.
        let r = rank_intervals(&s, None, b, 0.4, 5).unwrap();
        assert_eq!((r.lower, r.upper), (vec![1, 1], vec![1, 1]));
    }

    #[test]
    fn one_cluster_resamples_to_the_point_estimate() {
        let s = bernoulli(&[0.7, 0.5, 0.3], 40, 8);
        let c = vec![7u64; 40];
        let r = rank_intervals(&s, Some(&c), 500, 0.95, 1).unwrap();
        assert_eq!(r.lower, r.rank);
        assert_eq!(r.upper, r.rank);
    }

    /// Each cluster holds one problem won by A and one won by B, so every
    /// cluster resample is a tie (both rank 1, P(best) = 1 each); resampling
    /// problems instead breaks the tie in most replicates.
    #[test]
    fn clusters_are_resampled_whole() {
        let s = vec![
            vec![1.0, 0.0, 1.0, 0.0, 1.0, 0.0],
            vec![0.0, 1.0, 0.0, 1.0, 0.0, 1.0],
        ];
        let c = [5u64, 5, 9, 9, 2, 2];
        let r = rank_intervals(&s, Some(&c), 1000, 0.95, 3).unwrap();
        assert_eq!(
            (r.p_best.clone(), r.lower.clone(), r.upper.clone()),
            (vec![1.0, 1.0], vec![1, 1], vec![1, 1])
        );
        // problems: a tie needs 3 draws of each kind, P = C(6,3)/2⁶ = 5/16
        let r = rank_intervals(&s, None, 20_000, 0.95, 3).unwrap();
        let tie = r.p_best[0] + r.p_best[1] - 1.0;
        assert!((tie - 5.0 / 16.0).abs() < 0.02, "{tie}"); // sd 0.0033 per share
        assert_eq!(r.upper, vec![2, 2]);
    }

    #[test]
    fn other_bootstraps_identical_for_any_thread_count() {
        let s = bernoulli(&[0.6, 0.55, 0.5, 0.5, 0.45], 120, 12);
        let c: Vec<u64> = (0..120).map(|p| (p % 17) as u64).collect();
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| {
                    (
                        simultaneous_rank_sets(&s, Some(&c), 500, 0.9, 8).unwrap(),
                        winners_curse(&s, Some(&c), 500, 8).unwrap(),
                    )
                })
        };
        assert_eq!(run(1), run(4));
    }

    #[test]
    fn dominant_system_is_always_best() {
        let mut s = bernoulli(&[0.5, 0.5, 0.5], 60, 4);
        s.push(vec![2.0; 60]); // strictly above every other system on every problem
        let r = rank_intervals(&s, None, 2000, 0.95, 2).unwrap();
        assert_eq!(r.p_best[3], 1.0);
        assert_eq!((r.lower[3], r.upper[3], r.rank[3]), (1, 1, 1));
        // a clearly better but not dominant system: P(best) close to 1
        let s = bernoulli(&[0.9, 0.5, 0.5, 0.5], 300, 6);
        let r = rank_intervals(&s, None, 2000, 0.95, 2).unwrap();
        assert!(r.p_best[0] > 0.999, "{}", r.p_best[0]);
    }

    #[test]
    fn invalid_inputs_are_refused() {
        let s = vec![vec![1.0, 0.0], vec![0.0]];
        assert!(rank_intervals(&s, None, 10, 0.95, 1).is_err());
        let s = vec![vec![1.0, f64::NAN]];
        assert!(rank_intervals(&s, None, 10, 0.95, 1).is_err());
        let s = vec![vec![1.0, 0.0]];
        assert!(rank_intervals(&s, Some(&[1]), 10, 0.95, 1).is_err());
        assert!(rank_intervals(&s, None, 0, 0.95, 1).is_err());
        assert!(rank_intervals(&s, None, 10, 1.0, 1).is_err());
    }

    #[test]
    fn simultaneous_sets_contain_point_ranks() {
        let s = bernoulli(&[0.62, 0.6, 0.55, 0.5, 0.5, 0.4], 200, 21);
        let ranks = rank_of(&Units::new(&s, None).unwrap().means());
        let sets = simultaneous_rank_sets(&s, None, 1000, 0.95, 3).unwrap();
        for (r, (lo, hi)) in ranks.iter().zip(&sets) {
            assert!(lo <= r && r <= hi, "{r} not in [{lo}, {hi}]");
        }
    }

    #[test]
    fn separated_systems_get_singleton_sets() {
        // means 0.9 / 0.5 / 0.1 on 400 problems: differences of ≥ 0.4 with
        // SEs ≈ 0.03, i.e. > 10 SEs apart.
        let s = bernoulli(&[0.5, 0.9, 0.1], 400, 5);
        let sets = simultaneous_rank_sets(&s, None, 1000, 0.95, 3).unwrap();
        assert_eq!(sets, vec![(2, 2), (1, 1), (3, 3)]);
    }

    /// Null: 5 systems with the same true mean. The true ranks are all tied,
    /// so the sets cover them jointly only if no pair is declared separated,
    /// i.e. every set is [1, 5]; that should happen in about 95% of the
    /// simulations. 100 simulations: ≥ 88 (expected 95, sd 2.2; 88 is 3 sd
    /// below). A 400-simulation run of the same design covered 383/400.
    #[test]
    fn null_sets_cover_everything_jointly() {
        let mut covered = 0;
        for sim in 0..100 {
            let s = bernoulli(&[0.5; 5], 150, 1000 + sim);
            let sets = simultaneous_rank_sets(&s, None, 400, 0.95, sim).unwrap();
            covered += usize::from(sets.iter().all(|&x| x == (1, 5)));
        }
        assert!(covered >= 88, "{covered}/100");
    }

    /// 20 systems, all Bernoulli(0.5) on 200 problems (σ of a mean =
    /// 0.0354). The expected maximum of 20 iid normals is 1.87σ, so the
    /// naive winner's score averages ≈ 0.566. The bootstrap correction is
    /// partial (in the bootstrap world the systems' means differ, which
    /// makes the selection look less lucky): theory of the max of 20
    /// normals gives a residual bias ≈ 1.1σ. Tolerances over 30
    /// simulations: naive bias > 1.5σ; adjusted bias < 0.8 × naive bias;
    /// split-sample held-out mean within 0.5 ± 4 SE (SE = 0.05/√30 per
    /// simulation → 0.0091 on the mean of 30).
    #[test]
    fn winners_curse_is_reduced_and_split_sample_unbiased() {
        let sims = 30;
        let (mut naive, mut adjusted, mut held) = (0.0, 0.0, 0.0);
        for sim in 0..sims {
            let s = bernoulli(&[0.5; 20], 200, 500 + sim);
            let w = winners_curse(&s, None, 300, sim).unwrap();
            naive += w.naive / sims as f64;
            adjusted += w.adjusted / sims as f64;
            let h = split_sample_best(&s, None, sim).unwrap();
            assert_eq!(h.held_out_problems, 100);
            held += h.held_out_mean / sims as f64;
        }
        let sigma = 0.5 / 200f64.sqrt();
        assert!(naive - 0.5 > 1.5 * sigma, "naive {naive}");
        assert!(
            adjusted - 0.5 < 0.8 * (naive - 0.5),
            "adjusted {adjusted} naive {naive}"
        );
        assert!(
            (held - 0.5).abs() < 4.0 * 0.05 / (sims as f64).sqrt(),
            "held {held}"
        );
    }

    #[test]
    fn split_sample_splits_whole_clusters() {
        // 3 clusters of sizes 2, 3, 5: the held-out half is one cluster
        // (⌈3/2⌉ = 2 select), so its size is 2, 3 or 5.
        let s = bernoulli(&[0.5, 0.6], 10, 1);
        let c = [1u64, 1, 2, 2, 2, 3, 3, 3, 3, 3];
        for seed in 0..20 {
            let h = split_sample_best(&s, Some(&c), seed).unwrap();
            assert!([2, 3, 5].contains(&h.held_out_problems));
        }
        assert!(split_sample_best(&s, Some(&[1; 10]), 0).is_err());
    }

    /// Speed check (release build): 200 systems × 2,000 problems × 10,000
    /// resamples. Run with `cargo test --release -p rollstat-stats -- --ignored`.
    #[test]
    #[ignore]
    fn rank_intervals_speed() {
        let p: Vec<f64> = (0..200).map(|i| 0.3 + 0.002 * i as f64).collect();
        let s = bernoulli(&p, 2000, 1);
        let t = std::time::Instant::now();
        let r = rank_intervals(&s, None, 10_000, 0.95, 1).unwrap();
        let secs = t.elapsed().as_secs_f64();
        eprintln!("200 × 2000 × 10000: {secs:.2} s");
        assert_eq!(r.rank.len(), 200);
    }
}
