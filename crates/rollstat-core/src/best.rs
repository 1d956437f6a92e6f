//! Selection by a score: best-of-k (bon@k) and score-weighted majority
//! (wmaj@n).
//!
//! A selector (reward model, verifier, log-probability) gives each rollout a
//! score. bon@k is the expected correctness of the best-scored rollout of a
//! uniformly random k-subset. With rollouts ranked from worst to best and
//! `r_i` the number ranked below rollout i, rollout i is the best of a
//! subset that holds it and k − 1 of those r_i, so
//!
//! ```text
//! bon@k = Σ_i C(r_i, k−1) / C(n, k) · y_i
//! ```
//!
//! Rollouts with equal scores are ranked in every order with equal weight:
//! a tied group occupying ranks lo..hi is credited its mean correctness
//! times Σ_{r=lo}^{hi−1} C(r, k−1)/C(n, k) — the same as breaking ties
//! uniformly at random in each subset, averaged exactly, and independent of
//! rollout order.

use crate::vote::{ClusterTally, TiePolicy};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// Which scores are better.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScoreOrder {
    /// Higher is better (reward models, verifiers, log-probabilities).
    #[default]
    Descending,
    /// Lower is better (a loss, a perplexity).
    Ascending,
}

impl fmt::Display for ScoreOrder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ScoreOrder::Descending => "descending",
            ScoreOrder::Ascending => "ascending",
        })
    }
}

impl FromStr for ScoreOrder {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "descending" => Ok(ScoreOrder::Descending),
            "ascending" => Ok(ScoreOrder::Ascending),
            _ => Err(format!(
                "unknown score order '{s}'; expected descending or ascending"
            )),
        }
    }
}

/// maj@n-style credits under each tie policy.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TieCredits {
    pub first: f64,
    pub none: f64,
    pub fractional: f64,
}

impl TieCredits {
    /// The credit under `policy`.
    pub fn credit(&self, policy: TiePolicy) -> f64 {
        match policy {
            TiePolicy::First => self.first,
            TiePolicy::None => self.none,
            TiePolicy::Fractional => self.fractional,
        }
    }
}

/// What bon@k and wmaj@n need about one problem's scores: the rollouts
/// grouped by distinct score (ascending) with how many of each group are
/// correct, and the weighted vote.
///
/// ```
/// use rollstat_core::best::{ScoreOrder, ScoreProfile};
/// // Scores 0.9 (wrong), 0.5 (correct), 0.1 (correct).
/// let p = ScoreProfile::new(&[0.9, 0.5, 0.1], &[false, true, true]);
/// assert_eq!(p.bon_at_k(1, ScoreOrder::Descending), Some(2.0 / 3.0));
/// assert_eq!(p.bon_at_k(3, ScoreOrder::Descending), Some(0.0));
/// assert_eq!(p.bon_at_k(3, ScoreOrder::Ascending), Some(1.0));
/// assert_eq!(p.bon_at_k(4, ScoreOrder::Descending), None);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct ScoreProfile {
    /// (rollouts, correct ones) per distinct score, lowest score first.
    groups: Box<[(u32, u32)]>,
    /// wmaj@n, when the rollouts carry answers.
    weighted: Option<TieCredits>,
}

impl ScoreProfile {
    /// Groups `scores` (finite) with their rollouts' correctness.
    pub fn new(scores: &[f64], correct: &[bool]) -> ScoreProfile {
        debug_assert_eq!(scores.len(), correct.len());
        let mut pairs: Vec<(f64, bool)> = scores
            .iter()
            .copied()
            .zip(correct.iter().copied())
            .collect();
        pairs.sort_by(|a, b| a.0.total_cmp(&b.0));
        let mut groups: Vec<(f64, u32, u32)> = Vec::new();
        for (s, ok) in pairs {
            match groups.last_mut() {
                Some(g) if g.0 == s => {
                    g.1 += 1;
                    g.2 += ok as u32;
                }
                _ => groups.push((s, 1, ok as u32)),
            }
        }
        ScoreProfile {
            groups: groups.into_iter().map(|(_, n, c)| (n, c)).collect(),
            weighted: None,
        }
    }

    /// The same profile with wmaj@n's credits.
    pub fn with_weighted_vote(mut self, credits: TieCredits) -> ScoreProfile {
        self.weighted = Some(credits);
        self
    }

    /// wmaj@n's credits, when the rollouts carry answers.
    pub fn weighted_vote(&self) -> Option<TieCredits> {
        self.weighted
    }

    /// Number of scored rollouts.
    pub fn n(&self) -> u64 {
        self.groups.iter().map(|&(n, _)| u64::from(n)).sum()
    }

    /// bon@k, exact over all k-subsets with score ties averaged over their
    /// orders; `None` for k = 0 or k > n.
    ///
    /// Cost O(n): the weight of rank r, w(r) = C(r, k−1)/C(n, k), is
    /// stepped down from w(n−1) = k/n by w(r−1) = w(r)·(r−k+1)/r, a product
    /// of ratios in (0, 1] that neither overflows nor cancels.
    pub fn bon_at_k(&self, k: u64, order: ScoreOrder) -> Option<f64> {
        let n = self.n();
        if k == 0 || k > n {
            return None;
        }
        let best_first: Box<dyn Iterator<Item = &(u32, u32)>> = match order {
            ScoreOrder::Descending => Box::new(self.groups.iter().rev()),
            ScoreOrder::Ascending => Box::new(self.groups.iter()),
        };
        let (mut rank, mut w, mut total) = (n - 1, k as f64 / n as f64, 0.0);
        for &(size, correct) in best_first {
            let mut group_weight = 0.0;
            for _ in 0..size {
                group_weight += w;
                if rank + 1 < k || rank == 0 {
                    w = 0.0;
                } else {
                    w *= (rank + 1 - k) as f64 / rank as f64;
                    rank -= 1;
                }
            }
            total += group_weight * f64::from(correct) / f64::from(size);
        }
        Some(total)
    }
}

/// Majority weighted by summed score: each cluster's weight is the sum of
/// its members' scores (in rollout order), the heaviest wins, and clusters
/// of equal weight tie under the tie policies as in maj@n. `clusters`,
/// `correct` and `scores` are per rollout in index order; a cluster is
/// correct when its first judged member is. No voting rollout: credit 0.
///
/// ```
/// use rollstat_core::best::weighted_vote;
/// // A A B with B scored far higher: B wins although A has more votes.
/// let c = weighted_vote(&[Some(0), Some(0), Some(1)], &[Some(true), Some(true), Some(false)], &[0.2, 0.3, 0.9]);
/// assert_eq!((c.first, c.none, c.fractional), (0.0, 0.0, 0.0));
/// let c = weighted_vote(&[Some(0), Some(1)], &[Some(false), Some(true)], &[0.5, 0.5]);
/// assert_eq!((c.first, c.none, c.fractional), (0.0, 0.0, 0.5));
/// ```
pub fn weighted_vote(
    clusters: &[Option<usize>],
    correct: &[Option<bool>],
    scores: &[f64],
) -> TieCredits {
    let tally = ClusterTally::of(clusters, correct);
    let mut weight = vec![0.0; tally.size.len()];
    for (c, s) in clusters.iter().zip(scores) {
        if let Some(c) = c {
            weight[*c] += s;
        }
    }
    let live: Vec<usize> = (0..weight.len()).filter(|&i| tally.size[i] > 0).collect();
    let Some(top) = live.iter().map(|&i| weight[i]).max_by(f64::total_cmp) else {
        return TieCredits::default();
    };
    let tied: Vec<usize> = live.into_iter().filter(|&i| weight[i] == top).collect();
    let ok = |i: usize| tally.verdict[i] == Some(true);
    let winner = *tied
        .iter()
        .min_by_key(|&&i| tally.first[i])
        .expect("non-empty");
    let first = ok(winner) as u8 as f64;
    TieCredits {
        first,
        none: if tied.len() == 1 { first } else { 0.0 },
        fractional: tied.iter().filter(|&&i| ok(i)).count() as f64 / tied.len() as f64,
    }
}
