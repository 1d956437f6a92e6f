//! The canonical rollout model and the per-problem summary it folds into.
//!
//! Every reader maps its input into [`Rollout`]s (or [`ProblemData::Counts`]
//! when only `n` and `c` are known). [`summarize`] turns one problem's
//! rollouts into a [`ProblemSummary`] — the few numbers every estimator needs
//! — so that memory grows with the number of problems, not rollouts.

use crate::best::{weighted_vote, ScoreProfile};
pub use crate::rollouts::RolloutTable;
use crate::rollouts::{AnswerRef, RolloutRef};
use crate::select::VoteProfile;
use crate::vote::{majority_vote, AnswerClusterer, VoteOutcome};
use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// The verdict on one rollout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Correct,
    Wrong,
    /// No verdict exists (the call or the judge failed).
    Failed,
}

/// What is known about a rollout's extracted answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Answer {
    /// The input carries no answer information for this rollout.
    Unknown,
    /// Extraction was attempted and found nothing (`"answer": null`).
    Unextracted,
    /// The extracted answer, as written.
    Text(String),
}

impl Answer {
    /// The answer with its text borrowed.
    pub fn as_ref(&self) -> AnswerRef<'_> {
        match self {
            Answer::Unknown => AnswerRef::Unknown,
            Answer::Unextracted => AnswerRef::Unextracted,
            Answer::Text(t) => AnswerRef::Text(t),
        }
    }
}

/// One sampled answer to a problem, in canonical form.
#[derive(Clone, Debug, PartialEq)]
pub struct Rollout {
    /// Rollout index within the problem (0, 1, …).
    pub index: u64,
    pub verdict: Verdict,
    pub answer: Answer,
    /// `finish_reason` was length / max_tokens / content_filter.
    pub truncated: bool,
}

/// How failed rollouts (no verdict) enter the denominator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DenominatorPolicy {
    /// Failed rollouts count as wrong and stay in n (the default).
    #[default]
    Requested,
    /// Failed rollouts are dropped: n counts judged rollouts only.
    Judged,
}

impl fmt::Display for DenominatorPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DenominatorPolicy::Requested => "requested",
            DenominatorPolicy::Judged => "judged",
        })
    }
}

impl FromStr for DenominatorPolicy {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "requested" => Ok(DenominatorPolicy::Requested),
            "judged" => Ok(DenominatorPolicy::Judged),
            _ => Err(format!(
                "unknown denominator policy '{s}'; expected requested or judged"
            )),
        }
    }
}

/// Everything the estimators need about one problem.
#[derive(Clone, Debug, PartialEq)]
pub struct ProblemSummary {
    /// Rollouts in the denominator (after the denominator policy).
    pub n: u64,
    /// Correct rollouts.
    pub c: u64,
    /// Rollouts that arrived, before the denominator policy.
    pub n_arrived: u64,
    // The counts below and the rank count rollouts of a rollout table,
    // whose indices fit 32 bits: 32 bits each keep a summary at 88 bytes
    // (10⁷ problems are held at once). A table of 2³² rollouts or more
    // stops summarizing with a message, never wraps.
    pub n_failed: u32,
    pub n_unextracted: u32,
    pub n_truncated: u32,
    /// Unextracted rollouts that the input marked correct (counted wrong).
    pub n_unextracted_marked_correct: u32,
    /// Position (0-based, in rollout-index order among rollouts in the
    /// denominator) of the first correct rollout: `Some(None)` when none is
    /// correct, `None` when the input has no per-rollout order (count rows).
    pub first_correct_rank: Option<Option<u32>>,
    /// The answer vote, when every rollout carries answer information
    /// (boxed, as `vote_profile`: a problem without one, such as a count
    /// row, then costs 8 bytes for it, not 56).
    pub vote: Option<Box<VoteOutcome>>,
    /// The denominator policy this summary was made under (what `n`
    /// counts), so it travels with the numbers.
    pub policy: DenominatorPolicy,
    /// The vote as maj@k for k < n needs it (each cluster's size and
    /// verdict, and each rollout's cluster in order, which a caller that
    /// never asks for the `first` tie policy may drop with
    /// [`VoteProfile::without_order`]): with `vote`, for n ≤
    /// [`crate::select::VOTE_DP_MAX_N`].
    pub vote_profile: Option<Box<VoteProfile>>,
    /// Selector scores (bon@k, and wmaj@n when there is a vote), when every
    /// rollout in the denominator has one.
    pub scores: Option<Box<ScoreProfile>>,
    /// Budgets (tokens, cost, seconds) of the rollouts in the denominator,
    /// when any rollout of the problem has one.
    pub budget: Option<Box<BudgetProfile>>,
}

/// What one problem spent: the budgets of its rollouts in the denominator
/// that carry one, and how many carry none (never counted as zero).
///
/// ```
/// use rollstat_core::summary::BudgetProfile;
/// let mut b = BudgetProfile::default();
/// b.add(Some(100.0), true);
/// b.add(Some(300.0), false);
/// b.add(None, true);
/// assert_eq!((b.mean(), b.n_missing, b.sum_correct), (Some(200.0), 1, 100.0));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BudgetProfile {
    /// Budgets of the rollouts that have one, in rollout order.
    pub values: Vec<f64>,
    /// How many of `values` belong to correct rollouts, and their sum.
    pub n_correct: u64,
    pub sum_correct: f64,
    /// Rollouts in the denominator without a budget.
    pub n_missing: u64,
}

impl BudgetProfile {
    /// Records one rollout's budget (`None`: missing).
    pub fn add(&mut self, budget: Option<f64>, correct: bool) {
        match budget {
            Some(x) => {
                self.values.push(x);
                if correct {
                    self.n_correct += 1;
                    self.sum_correct += x;
                }
            }
            None => self.n_missing += 1,
        }
    }

    /// Mean budget per rollout over the rollouts that have one.
    pub fn mean(&self) -> Option<f64> {
        (!self.values.is_empty())
            .then(|| self.values.iter().sum::<f64>() / self.values.len() as f64)
    }
}

/// The data of one problem as read.
#[derive(Clone, Debug, PartialEq)]
pub enum ProblemData {
    /// Per-rollout detail, in a compact table (answers stored once);
    /// boxed, so that a problem of count rows takes 24 bytes, not the
    /// table's 136.
    Rollouts(Box<RolloutTable>),
    Counts {
        n: u64,
        c: u64,
    },
}

impl ProblemData {
    /// Per-rollout data from rollouts (see [`RolloutTable`]).
    ///
    /// Panics on a rollout index ≥ 2³²; readers of input use
    /// [`RolloutTable::push`], which reports it.
    pub fn rollouts(rollouts: Vec<Rollout>) -> ProblemData {
        ProblemData::Rollouts(Box::new(rollouts.into_iter().collect()))
    }
}

/// Folds one problem into its summary.
///
/// Rollouts are ordered by index first. An unextracted rollout is wrong
/// whatever the input's `correct` says (docs/spec.md §1) and never votes.
///
/// ```
/// use rollstat_core::summary::*;
/// use rollstat_core::vote::ExactClusterer;
/// let r = |i, ok, a: &str| Rollout { index: i, verdict: if ok { Verdict::Correct } else { Verdict::Wrong },
///     answer: Answer::Text(a.into()), truncated: false };
/// let data = ProblemData::rollouts(vec![r(1, true, "A"), r(0, false, "B"), r(2, false, "B")]);
/// let s = summarize(data, DenominatorPolicy::Requested, &ExactClusterer);
/// assert_eq!((s.n, s.c), (3, 1));
/// assert_eq!(s.first_correct_rank, Some(Some(1)));
/// assert_eq!(s.vote.unwrap().credit_first, 0.0);
/// ```
pub fn summarize(
    data: ProblemData,
    policy: DenominatorPolicy,
    clusterer: &dyn AnswerClusterer,
) -> ProblemSummary {
    summarize_ref(&data, policy, clusterer)
}

/// [`summarize`] without taking ownership (no copy of the rollouts).
pub fn summarize_ref(
    data: &ProblemData,
    policy: DenominatorPolicy,
    clusterer: &dyn AnswerClusterer,
) -> ProblemSummary {
    let all = match data {
        ProblemData::Counts { n, c } => return counts_summary(*n, *c, policy),
        ProblemData::Rollouts(r) => r,
    };
    let mut s = ProblemSummary {
        n: 0,
        c: 0,
        n_arrived: all.len() as u64,
        n_failed: 0,
        n_unextracted: 0,
        n_truncated: 0,
        n_unextracted_marked_correct: 0,
        first_correct_rank: Some(None),
        vote: None,
        policy,
        vote_profile: None,
        scores: None,
        budget: None,
    };
    let order = index_order(all);
    let mut fold = DenominatorFold::new(all);
    u32::try_from(all.len()).expect(ROLLOUTS_FIT);
    for k in 0..all.len() {
        let i = order.as_ref().map_or(k, |o| o[k]);
        let r = all.get(i);
        let verdict = tally_arrived(&mut s, &r);
        if policy == DenominatorPolicy::Judged && verdict == Verdict::Failed {
            continue;
        }
        tally_denominator(&mut s, verdict);
        fold.add(all, i, r.answer != AnswerRef::Unknown, verdict);
    }
    fold.finish(s, all, clusterer)
}

const ROLLOUTS_FIT: &str = "a problem holds fewer than 2³² rollouts";

/// The summary of a problem known only by its counts: no vote, no
/// per-rollout profiles.
fn counts_summary(n: u64, c: u64, policy: DenominatorPolicy) -> ProblemSummary {
    ProblemSummary {
        n,
        c,
        n_arrived: n,
        n_failed: 0,
        n_unextracted: 0,
        n_truncated: 0,
        n_unextracted_marked_correct: 0,
        first_correct_rank: None,
        vote: None,
        policy,
        vote_profile: None,
        scores: None,
        budget: None,
    }
}

/// Rollouts in index order: tables from readers are stored so already
/// (`None`); others are ordered here (stable: arrival order among equal
/// indices).
fn index_order(all: &RolloutTable) -> Option<Vec<usize>> {
    (!all.is_index_ordered()).then(|| {
        let mut o: Vec<usize> = (0..all.len()).collect();
        o.sort_by_key(|&i| all.get(i).index);
        o
    })
}

/// Counts an arrived rollout's truncation, failure and missing answer, and
/// returns its verdict as summarized: an unextracted rollout is wrong
/// whatever the input's `correct` says.
fn tally_arrived(s: &mut ProblemSummary, r: &RolloutRef<'_>) -> Verdict {
    s.n_truncated += r.truncated as u32;
    s.n_failed += (r.verdict == Verdict::Failed) as u32;
    let mut verdict = r.verdict;
    if r.answer == AnswerRef::Unextracted {
        s.n_unextracted += 1;
        if verdict == Verdict::Correct {
            s.n_unextracted_marked_correct += 1;
            verdict = Verdict::Wrong;
        }
    }
    verdict
}

/// Counts a rollout in the denominator (the next in index order): `n`,
/// `c` and the rank of the first correct one.
fn tally_denominator(s: &mut ProblemSummary, verdict: Verdict) {
    let rank = s.n;
    s.n += 1;
    if verdict == Verdict::Correct {
        s.c += 1;
        if s.first_correct_rank == Some(None) {
            s.first_correct_rank = Some(Some(u32::try_from(rank).expect(ROLLOUTS_FIT)));
        }
    }
}

/// What the vote, the selector scores and the budget profile need from
/// the rollouts in the denominator, gathered in index order.
struct DenominatorFold {
    /// Per rollout: its answer code and verdict (for the vote), kept while
    /// every rollout carries answer information (the vote needs them all).
    codes: Vec<u32>,
    verdicts: Vec<Option<bool>>,
    all_answered: bool,
    /// Selector scores and correctness, while every rollout has a score.
    scored: Option<(Vec<f64>, Vec<bool>)>,
    budget: Option<BudgetProfile>,
}

impl DenominatorFold {
    fn new(all: &RolloutTable) -> Self {
        DenominatorFold {
            codes: Vec::with_capacity(all.len()),
            verdicts: Vec::with_capacity(all.len()),
            all_answered: true,
            scored: all.has_scores().then(Default::default),
            budget: all.has_budgets().then(Default::default),
        }
    }

    /// Adds rollout `i` (in the denominator, with its summarized verdict).
    fn add(&mut self, all: &RolloutTable, i: usize, answered: bool, verdict: Verdict) {
        let correct = verdict == Verdict::Correct;
        if let Some((scores, ok)) = &mut self.scored {
            match all.score(i) {
                Some(x) => {
                    scores.push(x);
                    ok.push(correct);
                }
                None => self.scored = None,
            }
        }
        if let Some(b) = &mut self.budget {
            b.add(all.budget(i), correct);
        }
        self.all_answered &= answered;
        if self.all_answered {
            self.codes.push(all.answer_code(i));
            self.verdicts.push(match verdict {
                Verdict::Correct => Some(true),
                Verdict::Wrong => Some(false),
                Verdict::Failed => None,
            });
        }
    }

    /// Completes `s` with the budget profile and, when it has rollouts, the
    /// vote (if all were answered) and the score profile (if all scored).
    fn finish(
        self,
        mut s: ProblemSummary,
        all: &RolloutTable,
        clusterer: &dyn AnswerClusterer,
    ) -> ProblemSummary {
        let scored = self.scored.filter(|_| s.n > 0);
        s.budget = self.budget.map(Box::new);
        let mut weighted = None;
        if s.n > 0 && self.all_answered {
            let clusters = cluster_codes(all, &self.codes, clusterer);
            let verdicts = &self.verdicts;
            s.vote = Some(Box::new(majority_vote(&clusters, verdicts)));
            s.vote_profile = VoteProfile::new(&clusters, verdicts).map(Box::new);
            weighted = scored
                .as_ref()
                .map(|(scores, _)| weighted_vote(&clusters, verdicts, scores));
        }
        s.scores = scored.map(|(scores, ok)| {
            let p = ScoreProfile::new(&scores, &ok);
            Box::new(match weighted {
                Some(credits) => p.with_weighted_vote(credits),
                None => p,
            })
        });
        s
    }
}

/// Each rollout's cluster from its answer code. Each distinct answer text
/// is clustered once (the partition depends only on the set of texts), then
/// every rollout gets its text's cluster. Only texts of rollouts in the
/// denominator (`codes`) take part.
fn cluster_codes(
    all: &RolloutTable,
    codes: &[u32],
    clusterer: &dyn AnswerClusterer,
) -> Vec<Option<usize>> {
    let n_texts = all.answers().len();
    let mut slot: Vec<u32> = vec![u32::MAX; n_texts];
    let mut texts: Vec<Option<&str>> = Vec::new();
    for &c in codes {
        if c >= 2 && slot[(c - 2) as usize] == u32::MAX {
            slot[(c - 2) as usize] = texts.len() as u32;
            texts.push(Some(all.answers().get(c - 2)));
        }
    }
    let text_cluster = clusterer.cluster(&texts);
    codes
        .iter()
        .map(|&c| {
            if c >= 2 {
                text_cluster[slot[(c - 2) as usize] as usize]
            } else {
                None
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    /// Ten million summaries are held at once at scale: a summary stays
    /// at 88 bytes (a count row's summary allocates nothing more).
    #[test]
    fn a_summary_takes_88_bytes() {
        assert_eq!(std::mem::size_of::<super::ProblemSummary>(), 88);
    }

    use super::*;
    use crate::vote::ExactClusterer;

    fn r(index: u64, verdict: Verdict, answer: Answer) -> Rollout {
        Rollout {
            index,
            verdict,
            answer,
            truncated: false,
        }
    }

    #[test]
    fn judged_policy_drops_failed_rollouts() {
        let data = || {
            ProblemData::rollouts(vec![
                r(0, Verdict::Failed, Answer::Unknown),
                r(1, Verdict::Correct, Answer::Unknown),
                r(2, Verdict::Wrong, Answer::Unknown),
            ])
        };
        let req = summarize(data(), DenominatorPolicy::Requested, &ExactClusterer);
        assert_eq!((req.n, req.c, req.n_failed), (3, 1, 1));
        assert_eq!(req.first_correct_rank, Some(Some(1)));
        let judged = summarize(data(), DenominatorPolicy::Judged, &ExactClusterer);
        assert_eq!((judged.n, judged.c, judged.n_failed), (2, 1, 1));
        assert_eq!(judged.first_correct_rank, Some(Some(0)));
        assert!(judged.vote.is_none(), "no answers, no vote");
    }

    #[test]
    fn unextracted_is_wrong_and_does_not_vote() {
        let data = ProblemData::rollouts(vec![
            r(0, Verdict::Correct, Answer::Unextracted),
            r(1, Verdict::Wrong, Answer::Text("7".into())),
        ]);
        let s = summarize(data, DenominatorPolicy::Requested, &ExactClusterer);
        assert_eq!(
            (s.n, s.c, s.n_unextracted, s.n_unextracted_marked_correct),
            (2, 0, 1, 1)
        );
        let v = s.vote.unwrap();
        assert_eq!((v.largest, v.n_clusters, v.credit_first), (1, 1, 0.0));
    }

    /// The previous per-rollout implementation, kept as the reference:
    /// every rollout's text goes to the clusterer.
    fn naive(
        all: &[Rollout],
        policy: DenominatorPolicy,
        cl: &dyn AnswerClusterer,
    ) -> ProblemSummary {
        let mut rs: Vec<(&Rollout, Verdict)> = Vec::new();
        let mut s = ProblemSummary {
            n: 0,
            c: 0,
            n_arrived: all.len() as u64,
            n_failed: 0,
            n_unextracted: 0,
            n_truncated: 0,
            n_unextracted_marked_correct: 0,
            first_correct_rank: Some(None),
            vote: None,
            policy,
            vote_profile: None,
            scores: None,
            budget: None,
        };
        for r in all {
            s.n_truncated += r.truncated as u32;
            s.n_failed += (r.verdict == Verdict::Failed) as u32;
            let mut v = r.verdict;
            if r.answer == Answer::Unextracted {
                s.n_unextracted += 1;
                if v == Verdict::Correct {
                    s.n_unextracted_marked_correct += 1;
                    v = Verdict::Wrong;
                }
            }
            if policy == DenominatorPolicy::Judged && v == Verdict::Failed {
                continue;
            }
            rs.push((r, v));
        }
        rs.sort_by_key(|(r, _)| r.index);
        s.n = rs.len() as u64;
        for (rank, (_, v)) in rs.iter().enumerate() {
            if *v == Verdict::Correct {
                s.c += 1;
                if s.first_correct_rank == Some(None) {
                    s.first_correct_rank = Some(Some(rank as u32));
                }
            }
        }
        if !rs.is_empty() && rs.iter().all(|(r, _)| r.answer != Answer::Unknown) {
            let answers: Vec<Option<&str>> = rs
                .iter()
                .map(|(r, _)| match &r.answer {
                    Answer::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect();
            let verdicts: Vec<Option<bool>> = rs
                .iter()
                .map(|(_, v)| match v {
                    Verdict::Correct => Some(true),
                    Verdict::Wrong => Some(false),
                    Verdict::Failed => None,
                })
                .collect();
            let clusters = cl.cluster(&answers);
            s.vote = Some(Box::new(majority_vote(&clusters, &verdicts)));
            s.vote_profile = VoteProfile::new(&clusters, &verdicts).map(Box::new);
        }
        s
    }

    /// Case-insensitive clustering (a partition of texts like any other).
    struct Caseless;
    impl AnswerClusterer for Caseless {
        fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
            let lower: Vec<Option<String>> =
                answers.iter().map(|a| a.map(str::to_lowercase)).collect();
            let refs: Vec<Option<&str>> = lower.iter().map(|a| a.as_deref()).collect();
            ExactClusterer.cluster(&refs)
        }
    }

    #[test]
    fn summary_equals_the_per_rollout_reference_on_random_problems() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % m
        };
        let texts = ["7", "7 ", "A", "a", "", "12", "x"];
        for case in 0..3000 {
            let n = 1 + next(12) as usize;
            let shuffled = case % 3 == 0;
            let mut rs: Vec<Rollout> = (0..n as u64)
                .map(|i| Rollout {
                    index: i,
                    verdict: [Verdict::Correct, Verdict::Wrong, Verdict::Failed][next(3) as usize],
                    answer: match next(10) {
                        0 => Answer::Unextracted,
                        1 if case % 5 == 0 => Answer::Unknown,
                        _ => Answer::Text(texts[next(texts.len() as u64) as usize].into()),
                    },
                    truncated: next(4) == 0,
                })
                .collect();
            if shuffled {
                for i in (1..rs.len()).rev() {
                    rs.swap(i, next(i as u64 + 1) as usize);
                }
            }
            let table: RolloutTable = rs.clone().into_iter().collect();
            for policy in [DenominatorPolicy::Requested, DenominatorPolicy::Judged] {
                for cl in [&ExactClusterer as &dyn AnswerClusterer, &Caseless] {
                    let got =
                        summarize_ref(&ProblemData::Rollouts(Box::new(table.clone())), policy, cl);
                    assert_eq!(got, naive(&rs, policy, cl), "case {case} {rs:?}");
                }
            }
        }
    }
}
