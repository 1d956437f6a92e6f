//! The grading policy ([`GradingPolicy`], in `rollstat-grade`) plugged into
//! the reader (which grades rows with `gold` and no verdict) and into the
//! summaries (which cluster answers for maj@n and self-consistency). Report
//! and compare both read through [`Grading`], so a row is graded and
//! clustered the same way in both (docs/grading.md).

use rollstat_core::summary::{Answer, ProblemData, Verdict};
use rollstat_core::vote::AnswerClusterer;
use rollstat_grade::{is_junk_answer, GivenAnswer, GradingPolicy};
use rollstat_io::CollectedProblem;
use std::sync::atomic::{AtomicU64, Ordering};

/// A [`GradingPolicy`] as the reader's grader and the summaries' clusterer,
/// counting the comparisons its per-pair work cap left undecided
/// (`health.n_grading_undecided`).
pub(crate) struct Grading<'p> {
    policy: &'p GradingPolicy,
    undecided: AtomicU64,
}

impl<'p> Grading<'p> {
    pub(crate) fn new(policy: &'p GradingPolicy) -> Self {
        Grading {
            policy,
            undecided: AtomicU64::new(0),
        }
    }

    /// Comparisons (with gold, or between answers) ended by the work cap.
    pub(crate) fn n_undecided(&self) -> u64 {
        self.undecided.load(Ordering::Relaxed)
    }
}

impl rollstat_io::Grader for Grading<'_> {
    fn grade(&self, gold: &str, answer: &Answer, response: Option<&str>) -> (Verdict, Answer) {
        let given = match answer {
            Answer::Text(a) => GivenAnswer::Text(a),
            Answer::Unextracted => GivenAnswer::Unextracted,
            Answer::Unknown => GivenAnswer::Absent,
        };
        match self.policy.answer_of(given, response) {
            None => (Verdict::Wrong, Answer::Unextracted),
            Some(a) => {
                let v = match self.policy.judge(gold, &a) {
                    Some(true) => Verdict::Correct,
                    Some(false) => Verdict::Wrong,
                    // no verdict: the denominator policy decides (docs/spec.md §4)
                    None => {
                        self.undecided.fetch_add(1, Ordering::Relaxed);
                        Verdict::Failed
                    }
                };
                (v, Answer::Text(a))
            }
        }
    }

    fn name(&self) -> String {
        self.policy.grader_name()
    }
}

impl AnswerClusterer for Grading<'_> {
    fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        let (ids, n_undecided) = self.policy.cluster_counted(answers);
        self.undecided.fetch_add(n_undecided, Ordering::Relaxed);
        ids
    }
}

/// Junk answers (`[invalid]`, `None`, empty, …) become unextracted: they
/// count as wrong and never vote (docs/spec.md §1), whatever the row said.
pub(crate) fn mark_junk_unextracted(problems: &mut [CollectedProblem]) {
    use rayon::prelude::*;
    problems.par_iter_mut().for_each(|p| {
        if let ProblemData::Rollouts(rs) = &mut p.data {
            rs.mark_unextracted(is_junk_answer);
        }
    });
}
