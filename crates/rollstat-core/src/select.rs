//! maj@k for every k ≤ n: the exact expected majority-vote credit of a
//! uniformly random k-subset of a problem's rollouts, under each tie policy.
//!
//! A problem's vote is its [`VoteProfile`]: the answer cluster of each
//! rollout in rollout-index order (unextracted rollouts are in every count
//! but never vote) and each cluster's verdict. [`maj_at_ks`] returns
//! maj@1, …, maj@K from one dynamic program over clusters (and, for
//! [`TiePolicy::First`], over the positions of the winner's members); no
//! subset is enumerated and nothing is sampled. docs/statistics.md derives
//! it; in short, with `a_i` the cluster sizes, `u` the non-voters and `j`
//! the winning count:
//!
//! - `none`: Σ_{c correct} Σ_j C(a_c, j) · [x^{k−j}] Π_{i≠c} L_i^{(j)}(x) · (1+x)^u,
//!   where `L_i^{(j)} = Σ_{t<j} C(a_i, t) x^t` (every other cluster below j);
//! - `fractional`: the same with clusters tied at j allowed, each term
//!   weighted by 1/(number tied);
//! - `first`: the winner's first member in the subset at position p, every
//!   cluster tied with it having all its j members after p.
//!
//! Each sum is a count of subsets, divided by C(n, k). Counts are `f64`
//! (every term is non-negative, so no cancellation), which bounds n at
//! [`VOTE_DP_MAX_N`] (C(1000, 500) ≈ 2.7·10²⁹⁹); one problem's program
//! stops at [`VOTE_DP_MAX_WORK`] multiply-adds and reports [`TooMuchWork`].

use crate::vote::{ClusterTally, TiePolicy};
use std::sync::OnceLock;

/// Largest n (rollouts in the denominator) for which a [`VoteProfile`] is
/// kept and maj@k for k < n computed.
pub const VOTE_DP_MAX_N: usize = 1000;

/// Most multiply-adds one problem's maj@k program may take (about a second).
pub const VOTE_DP_MAX_WORK: u64 = 1_000_000_000;

/// Cluster id of a rollout that does not vote.
const NO_VOTE: u16 = u16::MAX;

/// What maj@k needs to know about one problem's vote.
///
/// ```
/// use rollstat_core::select::VoteProfile;
/// // Answers A A B (unextracted) with A correct.
/// let p = VoteProfile::new(&[Some(0), Some(0), Some(1), None], &[Some(true), Some(true), Some(false), Some(false)]).unwrap();
/// assert_eq!((p.n(), p.sizes()), (4, vec![2, 1]));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteProfile {
    /// Cluster of each rollout in rollout-index order ([`NO_VOTE`] for a
    /// rollout without an extracted answer); ids dense, by first appearance.
    seq: Box<[u16]>,
    /// Per cluster: its first judged member was correct (as in maj@n).
    correct: Box<[bool]>,
}

impl VoteProfile {
    /// The profile of rollouts with clusters `clusters` and verdicts
    /// `correct` (index order, as for [`crate::vote::majority_vote`]);
    /// `None` above [`VOTE_DP_MAX_N`] rollouts.
    pub fn new(clusters: &[Option<usize>], correct: &[Option<bool>]) -> Option<VoteProfile> {
        if clusters.len() > VOTE_DP_MAX_N {
            return None;
        }
        let tally = ClusterTally::of(clusters, correct);
        let mut dense = vec![NO_VOTE; tally.size.len()];
        let mut ok = Vec::new();
        let seq = clusters
            .iter()
            .map(|c| {
                let Some(id) = *c else { return NO_VOTE };
                if dense[id] == NO_VOTE {
                    dense[id] = ok.len() as u16;
                    ok.push(tally.verdict[id] == Some(true));
                }
                dense[id]
            })
            .collect();
        Some(VoteProfile {
            seq,
            correct: ok.into(),
        })
    }

    /// Number of rollouts (voting or not).
    pub fn n(&self) -> usize {
        self.seq.len()
    }

    /// Cluster sizes, by cluster id.
    pub fn sizes(&self) -> Vec<usize> {
        let mut sizes = vec![0; self.correct.len()];
        for &c in self.seq.iter().filter(|&&c| c != NO_VOTE) {
            sizes[c as usize] += 1;
        }
        sizes
    }
}

/// maj@k's program would take more than [`VOTE_DP_MAX_WORK`] steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooMuchWork;

/// Counts multiply-adds against [`VOTE_DP_MAX_WORK`].
struct Budget(u64);

impl Budget {
    fn spend(&mut self, units: usize) -> Result<(), TooMuchWork> {
        self.0 = self.0.saturating_add(units as u64);
        if self.0 > VOTE_DP_MAX_WORK {
            return Err(TooMuchWork);
        }
        Ok(())
    }
}

/// C(n, k) as `f64` for n ≤ [`VOTE_DP_MAX_N`] (0 for k > n), from a Pascal
/// triangle built once.
fn binom(n: usize, k: usize) -> f64 {
    static TRIANGLE: OnceLock<Vec<f64>> = OnceLock::new();
    if k > n {
        return 0.0;
    }
    let t = TRIANGLE.get_or_init(|| {
        let mut t = Vec::with_capacity((VOTE_DP_MAX_N + 1) * (VOTE_DP_MAX_N + 2) / 2);
        for row in 0..=VOTE_DP_MAX_N {
            let start = t.len();
            let prev = start - row.min(start);
            for col in 0..=row {
                let v = if col == 0 || col == row {
                    1.0
                } else {
                    t[prev + col - 1] + t[prev + col]
                };
                t.push(v);
            }
        }
        t
    });
    t[n * (n + 1) / 2 + k]
}

/// maj@1, …, maj@K (element k − 1 is maj@k) with K = min(`k_max`, n):
/// the exact mean credit over all C(n, k) subsets, the subset's vote
/// credited under `tie` as maj@n credits the full vote.
///
/// ```
/// use rollstat_core::select::{maj_at_ks, VoteProfile};
/// use rollstat_core::vote::TiePolicy;
/// // AABBBC with A correct (docs/statistics.md's worked example).
/// let clusters = [0, 0, 1, 1, 1, 2].map(Some);
/// let correct = [true, true, false, false, false, false].map(Some);
/// let p = VoteProfile::new(&clusters, &correct).unwrap();
/// let none = maj_at_ks(&p, TiePolicy::None, 6).unwrap();
/// let want = [1.0 / 3.0, 1.0 / 15.0, 0.2, 0.2, 0.0, 0.0];
/// assert!(none.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
pub fn maj_at_ks(
    profile: &VoteProfile,
    tie: TiePolicy,
    k_max: usize,
) -> Result<Vec<f64>, TooMuchWork> {
    let n = profile.n();
    let k_max = k_max.min(n);
    let mut budget = Budget(0);
    let counts = match tie {
        TiePolicy::First => counts_first(profile, k_max, &mut budget)?,
        _ => counts_symmetric(profile, tie, k_max, &mut budget)?,
    };
    Ok((1..=k_max).map(|k| counts[k] / binom(n, k)).collect())
}

/// Adds Σ_s acc[s] · C(m, k − s) to `counts[k]` (the `m` rollouts outside
/// the clusters the program tracked join freely) and clears `acc`.
fn flush(
    acc: &mut [f64],
    m: usize,
    counts: &mut [f64],
    budget: &mut Budget,
) -> Result<(), TooMuchWork> {
    let k_max = counts.len() - 1;
    budget.spend(k_max * k_max)?;
    for (s, v) in acc.iter_mut().enumerate().filter(|(_, v)| **v != 0.0) {
        let top = k_max.min(s + m);
        for (k, count) in counts.iter_mut().enumerate().take(top + 1).skip(s) {
            *count += *v * binom(m, k - s);
        }
        *v = 0.0;
    }
    Ok(())
}

/// Winning counts (index k) for `none` and `fractional`.
///
/// For each winning count j, the clusters of size ≥ j (a prefix of the
/// clusters by size) are tracked; the rest and the non-voters join freely,
/// and their number only grows with j, so terms are summed per number and
/// joined once ([`flush`]).
fn counts_symmetric(
    profile: &VoteProfile,
    tie: TiePolicy,
    k_max: usize,
    budget: &mut Budget,
) -> Result<Vec<f64>, TooMuchWork> {
    let sizes = profile.sizes();
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]));
    let mut counts = vec![0.0; k_max + 1];
    let mut acc = vec![0.0; k_max + 1];
    let mut free = profile.n();
    for j in 1..=k_max {
        let big: Vec<usize> = order
            .iter()
            .copied()
            .take_while(|&i| sizes[i] >= j)
            .collect();
        if !big.iter().any(|&i| profile.correct[i]) {
            break;
        }
        let m = profile.n() - big.iter().map(|&i| sizes[i]).sum::<usize>();
        if m != free {
            flush(&mut acc, free, &mut counts, budget)?;
            free = m;
        }
        tied_top(&big, &sizes, &profile.correct, j, tie, &mut acc, budget)?;
    }
    flush(&mut acc, free, &mut counts, budget)?;
    Ok(counts)
}

/// Adds to `acc[s]` the weighted number of ways to draw s rollouts from the
/// clusters `big` so that the top count is j and the credit goes to a
/// correct cluster: a table over (s, T = clusters at j), kept twice — all
/// draws (`p0`) and the first-order part marking one correct cluster at j
/// (`p1`, a dual number), so any number of correct clusters costs one pass.
fn tied_top(
    big: &[usize],
    sizes: &[usize],
    correct: &[bool],
    j: usize,
    tie: TiePolicy,
    acc: &mut [f64],
    budget: &mut Budget,
) -> Result<(), TooMuchWork> {
    let k_max = acc.len() - 1;
    let width = match tie {
        TiePolicy::None => 2,
        _ => big.len().min(k_max / j) + 1,
    };
    let mut p0 = vec![0.0; (k_max + 1) * width];
    let mut p1 = p0.clone();
    p0[0] = 1.0;
    let mut deg = 0;
    for &i in big {
        budget.spend((deg + 1) * width * (j + 1))?;
        let grown = Grow {
            a: sizes[i],
            j,
            k_max,
            width,
            deg,
        };
        (p0, p1) = grown.times(&p0, &p1, correct[i]);
        deg = (deg + j).min(k_max);
    }
    for s in 0..=deg {
        for t in 1..width {
            let w = match tie {
                TiePolicy::Fractional => 1.0 / t as f64,
                _ => 1.0,
            };
            acc[s] += p1[s * width + t] * w;
        }
    }
    Ok(())
}

/// One cluster of size `a` joining a (s, T) table at winning count j.
struct Grow {
    a: usize,
    j: usize,
    k_max: usize,
    width: usize,
    deg: usize,
}

impl Grow {
    /// The tables times Σ_{t<j} C(a,t) x^t + y C(a,j) x^j, the dual part
    /// also taking this cluster as the marked one when it is correct.
    fn times(&self, p0: &[f64], p1: &[f64], correct: bool) -> (Vec<f64>, Vec<f64>) {
        let (w, j) = (self.width, self.j);
        let mut q0 = vec![0.0; p0.len()];
        let mut q1 = vec![0.0; p1.len()];
        let at_j = binom(self.a, j);
        for s in 0..=self.deg {
            for t_tied in 0..w {
                let (v0, v1) = (p0[s * w + t_tied], p1[s * w + t_tied]);
                if v0 == 0.0 && v1 == 0.0 {
                    continue;
                }
                for t in 0..j.min(self.k_max - s + 1) {
                    let b = binom(self.a, t);
                    q0[(s + t) * w + t_tied] += v0 * b;
                    q1[(s + t) * w + t_tied] += v1 * b;
                }
                if t_tied + 1 < w && s + j <= self.k_max {
                    let at = (s + j) * w + t_tied + 1;
                    q0[at] += v0 * at_j;
                    q1[at] += (v1 + if correct { v0 } else { 0.0 }) * at_j;
                }
            }
        }
        (q0, q1)
    }
}

/// Winning counts for `first`: per correct cluster c and winning count j,
/// over the member r of c that is c's first in the subset (the other j − 1
/// come from c's later members), every cluster that also reaches j must
/// have all j members after r's position.
fn counts_first(
    profile: &VoteProfile,
    k_max: usize,
    budget: &mut Budget,
) -> Result<Vec<f64>, TooMuchWork> {
    let sizes = profile.sizes();
    let mut counts = vec![0.0; k_max + 1];
    let mut acc = vec![0.0; k_max + 1];
    for c in (0..sizes.len()).filter(|&c| profile.correct[c]) {
        let before = members_before(profile, c);
        let mut free = profile.n();
        for j in 1..=sizes[c].min(k_max) {
            let rivals: Vec<usize> = (0..sizes.len())
                .filter(|&i| i != c && sizes[i] >= j)
                .collect();
            let m = profile.n() - sizes[c] - rivals.iter().map(|&i| sizes[i]).sum::<usize>();
            if m != free {
                flush(&mut acc, free, &mut counts, budget)?;
                free = m;
            }
            let first = FirstWins {
                sizes: &sizes,
                before: &before,
                c,
                j,
            };
            first.add_to(&rivals, &mut acc, budget)?;
        }
        flush(&mut acc, free, &mut counts, budget)?;
    }
    Ok(counts)
}

/// For each member of cluster c (in order), how many members of every
/// cluster precede it: row r holds the counts before c's r-th member.
fn members_before(profile: &VoteProfile, c: usize) -> Vec<Vec<u16>> {
    let mut seen = vec![0u16; profile.correct.len()];
    let mut rows = Vec::new();
    for &id in profile.seq.iter().filter(|&&id| id != NO_VOTE) {
        if id as usize == c {
            rows.push(seen.clone());
        }
        seen[id as usize] += 1;
    }
    rows
}

/// Cluster c winning at count j under `first`.
struct FirstWins<'a> {
    sizes: &'a [usize],
    before: &'a [Vec<u16>],
    c: usize,
    j: usize,
}

impl FirstWins<'_> {
    /// Adds the ways to draw c's j and the rivals' rollouts (by total) to
    /// `acc`. Consecutive members of c with no rival member between them
    /// give the same product, so their weights are summed first.
    fn add_to(
        &self,
        rivals: &[usize],
        acc: &mut [f64],
        budget: &mut Budget,
    ) -> Result<(), TooMuchWork> {
        let (a_c, j) = (self.sizes[self.c], self.j);
        if rivals.is_empty() {
            // Σ_r C(a_c − 1 − r, j − 1) = C(a_c, j): any j of c's members.
            acc[j] += binom(a_c, j);
            return Ok(());
        }
        let same = |r: usize, s: usize| {
            rivals
                .iter()
                .all(|&i| self.before[r][i] == self.before[s][i])
        };
        let mut r = 0;
        while r + j <= a_c {
            let mut weight = 0.0;
            let mut end = r;
            while end + j <= a_c && same(r, end) {
                weight += binom(a_c - 1 - end, j - 1);
                end += 1;
            }
            let poly = self.rivals_below_or_after(r, rivals, acc.len() - 1 - j, budget)?;
            for (s, v) in poly.iter().enumerate() {
                acc[s + j] += weight * v;
            }
            r = end;
        }
        Ok(())
    }

    /// Π over rivals of (Σ_{t<j} C(a_i,t) x^t + C(after_i, j) x^j), where
    /// after_i counts rival i's members after c's r-th member; degree ≤ `top`.
    fn rivals_below_or_after(
        &self,
        r: usize,
        rivals: &[usize],
        top: usize,
        budget: &mut Budget,
    ) -> Result<Vec<f64>, TooMuchWork> {
        let j = self.j;
        let mut poly = vec![0.0; top + 1];
        poly[0] = 1.0;
        let mut deg = 0;
        for &i in rivals {
            budget.spend((deg + 1) * (j + 1))?;
            let a = self.sizes[i];
            let after = a - self.before[r][i] as usize;
            let mut next = vec![0.0; top + 1];
            for s in (0..=deg).filter(|&s| poly[s] != 0.0) {
                for t in 0..j.min(top - s + 1) {
                    next[s + t] += poly[s] * binom(a, t);
                }
                if s + j <= top {
                    next[s + j] += poly[s] * binom(after, j);
                }
            }
            poly = next;
            deg = (deg + j).min(top);
        }
        Ok(poly)
    }
}
