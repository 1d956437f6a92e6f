//! The grading policy ([`GradingPolicy`], in `rollstat-grade`) plugged into
//! the reader (which grades rows with `gold` and no verdict) and into the
//! summaries (which cluster answers for maj@n and self-consistency). Report
//! and compare both read through [`Grading`], so a row is graded and
//! clustered the same way in both (docs/grading.md).

use rollstat_core::summary::{Answer, ProblemData, Verdict};
use rollstat_core::vote::AnswerClusterer;
use rollstat_grade::{is_junk_answer, GivenAnswer, GradingPolicy};
use rollstat_io::CollectedProblem;

/// A [`GradingPolicy`] as the reader's grader and the summaries' clusterer.
pub(crate) struct Grading<'p>(pub &'p GradingPolicy);

impl rollstat_io::Grader for Grading<'_> {
    fn grade(&self, gold: &str, answer: &Answer, response: Option<&str>) -> (Verdict, Answer) {
        let given = match answer {
            Answer::Text(a) => GivenAnswer::Text(a),
            Answer::Unextracted => GivenAnswer::Unextracted,
            Answer::Unknown => GivenAnswer::Absent,
        };
        match self.0.answer_of(given, response) {
            None => (Verdict::Wrong, Answer::Unextracted),
            Some(a) => {
                let v = if self.0.matches(gold, &a) {
                    Verdict::Correct
                } else {
                    Verdict::Wrong
                };
                (v, Answer::Text(a))
            }
        }
    }

    fn name(&self) -> String {
        self.0.grader_name()
    }
}

impl AnswerClusterer for Grading<'_> {
    fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        self.0.cluster(answers)
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
