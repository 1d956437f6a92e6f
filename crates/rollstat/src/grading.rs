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

#[cfg(test)]
mod tests {
    use crate::rows::{RolloutRow, Row};
    use crate::{report, ReportOptions, Source};

    fn graded(problem: &str, gold: &str, answer: &str) -> Row {
        Row::from(RolloutRow {
            problem: problem.into(),
            gold: Some(gold.into()),
            answer: Some(Some(answer.into())),
            ..Default::default()
        })
    }

    /// A pair past the work cap gets no verdict and is counted in health
    /// (issue #10 item 7); decided pairs are graded as before.
    #[test]
    fn capped_grading_is_undecided_and_counted() {
        let rows = vec![
            graded("p1", "615!^3^32", "0"),
            graded("p1", "1/2", "0.5"),
            graded("p2", "3", "3"),
            graded("p2", "3", "4"),
        ];
        let r = report(
            &[Source::Rows {
                name: "rows".into(),
                rows,
            }],
            &ReportOptions::default(),
        )
        .unwrap();
        assert_eq!(r.health.n_grading_undecided, 1);
        assert_eq!(r.health.n_failed, 1);
        // requested denominator: the undecided rollout counts as wrong,
        // so pass@1 = (1/2 + 1/2) / 2
        assert_eq!(r.block.metrics.get("pass@1").unwrap().value, 0.5);
    }
}
