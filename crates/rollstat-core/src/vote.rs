//! Majority voting over answer clusters (maj@n) and self-consistency.
//!
//! Rollouts are grouped into answer clusters by an [`AnswerClusterer`]; the
//! default [`ExactClusterer`] compares answers as strings after trimming
//! whitespace. Answer grading replaces it with an equivalence-aware
//! clusterer without touching the vote itself. Unextracted rollouts (no
//! answer) never form a cluster and never vote — a harness that writes
//! "[invalid]" for every unparsed answer must not let that string win.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// Groups the extracted answers of one problem into clusters.
///
/// Returns one entry per input answer: `Some(id)` with ids numbered from 0
/// in order of first appearance, or `None` for an answer that must not vote
/// (absent, empty).
pub trait AnswerClusterer: Sync {
    /// Cluster ids for `answers` (in rollout-index order). Which answers
    /// share a cluster must depend only on the texts, not on how often or
    /// where each occurs: [`crate::summary::summarize`] passes each distinct
    /// text once.
    fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>>;
}

/// Clusters answers that are byte-identical after trimming whitespace; an
/// empty answer does not vote.
///
/// ```
/// use rollstat_core::vote::{AnswerClusterer, ExactClusterer};
/// let ids = ExactClusterer.cluster(&[Some("18"), Some(" 18 "), None, Some("20"), Some("")]);
/// assert_eq!(ids, vec![Some(0), Some(0), None, Some(1), None]);
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct ExactClusterer;

impl AnswerClusterer for ExactClusterer {
    fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        let mut ids: HashMap<&str, usize> = HashMap::new();
        answers
            .iter()
            .map(|a| {
                let a = a.map(str::trim).filter(|s| !s.is_empty())?;
                let next = ids.len();
                Some(*ids.entry(a).or_insert(next))
            })
            .collect()
    }
}

/// How maj@n credits a problem whose largest answer clusters tie.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TiePolicy {
    /// Among tied clusters, the one whose first member has the lowest
    /// rollout index wins (what lm-eval, lighteval and evalscope do).
    #[default]
    First,
    /// A tie is no majority: credit 0 (SiEval).
    None,
    /// Credit = share of the tied clusters that are correct (NeMo-Skills).
    Fractional,
}

impl fmt::Display for TiePolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TiePolicy::First => "first",
            TiePolicy::None => "none",
            TiePolicy::Fractional => "fractional",
        })
    }
}

impl FromStr for TiePolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "first" => Ok(TiePolicy::First),
            "none" => Ok(TiePolicy::None),
            "fractional" => Ok(TiePolicy::Fractional),
            _ => Err(format!(
                "unknown tie policy '{s}'; expected first, none or fractional"
            )),
        }
    }
}

/// The outcome of voting over one problem's rollouts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VoteOutcome {
    /// maj@n credit under [`TiePolicy::First`].
    pub credit_first: f64,
    /// maj@n credit under [`TiePolicy::None`].
    pub credit_none: f64,
    /// maj@n credit under [`TiePolicy::Fractional`].
    pub credit_fractional: f64,
    /// Size of the largest cluster (0 when no rollout voted).
    pub largest: usize,
    /// Number of distinct answer clusters.
    pub n_clusters: usize,
    /// Clusters whose members were judged differently.
    pub n_inconsistent: usize,
}

impl VoteOutcome {
    /// The credit under `policy`.
    pub fn credit(&self, policy: TiePolicy) -> f64 {
        match policy {
            TiePolicy::First => self.credit_first,
            TiePolicy::None => self.credit_none,
            TiePolicy::Fractional => self.credit_fractional,
        }
    }
}

/// Votes over clustered rollouts.
///
/// `clusters[i]` is rollout i's cluster (rollouts in index order, `None` =
/// does not vote) and `correct[i]` its verdict (`None` = no verdict). A
/// cluster counts as correct when its first member with a verdict was judged
/// correct; a cluster whose members disagree is counted in
/// `n_inconsistent`. With no voting rollout at all there is no majority and
/// every policy gives 0.
///
/// ```
/// use rollstat_core::vote::{majority_vote, TiePolicy};
/// // Answers A A B B B B C C with A correct: B wins, credit 0.
/// let clusters = [Some(0), Some(0), Some(1), Some(1), Some(1), Some(1), Some(2), Some(2)];
/// let correct = [true, true, false, false, false, false, false, false].map(Some);
/// let v = majority_vote(&clusters, &correct);
/// assert_eq!(v.credit(TiePolicy::First), 0.0);
/// assert_eq!((v.largest, v.n_clusters), (4, 3));
/// ```
pub fn majority_vote(clusters: &[Option<usize>], correct: &[Option<bool>]) -> VoteOutcome {
    let ClusterTally {
        size,
        first,
        verdict,
        inconsistent,
    } = ClusterTally::of(clusters, correct);
    let n_clusters = size.len();
    let largest = size.iter().copied().max().unwrap_or(0);
    let mut outcome = VoteOutcome {
        credit_first: 0.0,
        credit_none: 0.0,
        credit_fractional: 0.0,
        largest,
        n_clusters: size.iter().filter(|&&s| s > 0).count(),
        n_inconsistent: inconsistent.iter().filter(|&&b| b).count(),
    };
    if largest == 0 {
        return outcome;
    }
    let tied: Vec<usize> = (0..n_clusters).filter(|&id| size[id] == largest).collect();
    let is_correct = |id: usize| verdict[id] == Some(true);
    let winner = *tied.iter().min_by_key(|&&id| first[id]).expect("non-empty");
    outcome.credit_first = is_correct(winner) as u8 as f64;
    outcome.credit_none = if tied.len() == 1 {
        outcome.credit_first
    } else {
        0.0
    };
    outcome.credit_fractional =
        tied.iter().filter(|&&id| is_correct(id)).count() as f64 / tied.len() as f64;
    outcome
}

/// Per cluster: its size, its first member's index, the verdict of its first
/// judged member, and whether its members were judged differently.
pub(crate) struct ClusterTally {
    pub size: Vec<usize>,
    pub first: Vec<usize>,
    pub verdict: Vec<Option<bool>>,
    pub inconsistent: Vec<bool>,
}

impl ClusterTally {
    /// Tallies rollouts in index order (`clusters[i]`, `correct[i]`).
    pub fn of(clusters: &[Option<usize>], correct: &[Option<bool>]) -> ClusterTally {
        debug_assert_eq!(clusters.len(), correct.len());
        let n_clusters = clusters
            .iter()
            .flatten()
            .map(|&id| id + 1)
            .max()
            .unwrap_or(0);
        let mut t = ClusterTally {
            size: vec![0; n_clusters],
            first: vec![usize::MAX; n_clusters],
            verdict: vec![None; n_clusters],
            inconsistent: vec![false; n_clusters],
        };
        for (i, (&cl, &ok)) in clusters.iter().zip(correct).enumerate() {
            let Some(id) = cl else { continue };
            t.size[id] += 1;
            t.first[id] = t.first[id].min(i);
            match (t.verdict[id], ok) {
                (None, v) => t.verdict[id] = v,
                (Some(a), Some(b)) if a != b => t.inconsistent[id] = true,
                _ => {}
            }
        }
        t
    }
}

/// Self-consistency: the largest answer cluster's share of all `n`
/// rollouts (unextracted ones count in `n`, never in a cluster).
///
/// ```
/// use rollstat_core::vote::self_consistency;
/// assert_eq!(self_consistency(2, 4), Some(0.5));
/// assert_eq!(self_consistency(0, 0), None);
/// ```
pub fn self_consistency(largest: usize, n: usize) -> Option<f64> {
    (n > 0).then(|| largest as f64 / n as f64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vote(correct: &[bool], answers: &[Option<&str>]) -> VoteOutcome {
        let clusters = ExactClusterer.cluster(answers);
        let correct: Vec<_> = correct.iter().map(|&b| Some(b)).collect();
        majority_vote(&clusters, &correct)
    }

    /// SiEval `majority_at_k` vectors (tie ⇒ 0 is our `TiePolicy::None`).
    #[test]
    fn sieval_majority_vectors() {
        fn s<'a>(v: &[Option<&'a str>]) -> Vec<Option<&'a str>> {
            v.to_vec()
        }
        let c = |v: VoteOutcome| v.credit(TiePolicy::None);
        assert_eq!(
            c(vote(
                &[true, true, false, false],
                &s(&[Some("a"), Some("a"), Some("b"), Some("c")])
            )),
            1.0
        );
        assert_eq!(
            c(vote(
                &[true, false, false, false],
                &s(&[Some("a"), Some("b"), Some("b"), Some("b")])
            )),
            0.0
        );
        assert_eq!(c(vote(&[true, true], &[None, None])), 0.0);
        assert_eq!(c(vote(&[true, false], &s(&[Some(""), Some("x")]))), 0.0);
        assert_eq!(
            c(vote(
                &[true, true, false],
                &s(&[Some("18"), Some("18 "), Some("20")])
            )),
            1.0
        );
        assert_eq!(c(vote(&[true, false], &s(&[Some("a"), Some("b")]))), 0.0);
        assert_eq!(c(vote(&[false, true], &s(&[Some("b"), Some("a")]))), 0.0);
        // Exact strings split "1/2" and "0.5": the wrong pair ties it (grading merges them).
        assert_eq!(
            c(vote(
                &[true, true, false, false],
                &s(&[Some("1/2"), Some("0.5"), Some("9"), Some("8")])
            )),
            0.0
        );
    }

    /// Where we differ from SiEval on purpose: the default policy `first`
    /// credits a tie to the earliest cluster (lm-eval, lighteval, evalscope).
    #[test]
    fn first_policy_differs_from_sieval_on_ties() {
        let v = vote(&[true, false], &[Some("a"), Some("b")]);
        assert_eq!(v.credit(TiePolicy::First), 1.0);
        assert_eq!(v.credit(TiePolicy::None), 0.0);
        assert_eq!(v.credit(TiePolicy::Fractional), 0.5);
        // lighteval maj_at_k: ["Paris","London","Berlin"] gold Paris → 1 (first occurrence).
        let v = vote(
            &[true, false, false],
            &[Some("Paris"), Some("London"), Some("Berlin")],
        );
        assert_eq!(v.credit(TiePolicy::First), 1.0);
        assert!((v.credit(TiePolicy::Fractional) - 1.0 / 3.0).abs() < 1e-15);
        // evalscope vote_at_k: values [1,0,0,1], predictions a,b,c,d → 0.5 over 2 groups of 2.
        let g0 = vote(&[true, false], &[Some("a"), Some("b")]).credit(TiePolicy::First);
        let g1 = vote(&[false, true], &[Some("c"), Some("d")]).credit(TiePolicy::First);
        assert_eq!((g0 + g1) / 2.0, 0.5);
    }

    /// SiEval `self_consistency` vectors.
    #[test]
    fn self_consistency_vectors() {
        let sc = |a: &[Option<&str>]| {
            let v = vote(&vec![false; a.len()], a);
            self_consistency(v.largest, a.len()).unwrap_or(0.0)
        };
        assert_eq!(sc(&[Some("a"); 4]), 1.0);
        assert_eq!(sc(&[Some("a"), Some("a"), Some("a"), Some("b")]), 0.75);
        assert_eq!(sc(&[Some("a"), Some("a"), None, None]), 0.5);
        assert_eq!(sc(&[None; 4]), 0.0);
        assert_eq!(sc(&[Some(""), Some(""), Some("a"), Some("a")]), 0.5);
        assert_eq!(sc(&[Some("1/2"), Some("0.5"), Some("9"), Some("8")]), 0.25);
    }

    #[test]
    fn inconsistent_clusters_are_counted_and_first_judged_member_decides() {
        let clusters = [Some(0), Some(0), Some(1)];
        let v = majority_vote(&clusters, &[None, Some(true), Some(false)]);
        assert_eq!(v.credit_first, 1.0);
        assert_eq!(v.n_inconsistent, 0);
        let v = majority_vote(&clusters, &[Some(false), Some(true), Some(false)]);
        assert_eq!(v.credit_first, 0.0);
        assert_eq!(v.n_inconsistent, 1);
    }
}
