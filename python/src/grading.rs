//! Answer extraction and equivalence through the engine's grading policy
//! (the same one report and compare grade rows with).

use crate::InputError;
use pyo3::prelude::*;
use rayon::prelude::*;
use rollstat_grade::{GivenAnswer, GradingPolicy, Match};

fn policy(extract: &str, matching: &str) -> PyResult<GradingPolicy> {
    let m: Match = matching
        .parse()
        .map_err(|e| InputError::new_err(format!("match: {e}")))?;
    GradingPolicy::new(extract, m).map_err(|e| InputError::new_err(format!("extract: {e}")))
}

/// `grade(responses, golds, extract, matching) -> (answers, correct)`:
/// each response's extracted answer (None when nothing was extracted, or a
/// junk answer) and whether it matches its gold. `golds` has one entry per
/// response, each a list of accepted gold answers. The GIL is released.
#[pyfunction]
#[pyo3(signature = (responses, golds, extract, matching))]
pub fn grade(
    py: Python<'_>,
    responses: Vec<Option<String>>,
    golds: Vec<Vec<String>>,
    extract: &str,
    matching: &str,
) -> PyResult<(Vec<Option<String>>, Vec<bool>)> {
    if responses.len() != golds.len() {
        return Err(InputError::new_err(format!(
            "golds: {} golds for {} responses (give one per response, or one for all)",
            golds.len(),
            responses.len()
        )));
    }
    let p = policy(extract, matching)?;
    let graded: Vec<(Option<String>, bool)> = py.detach(|| {
        responses
            .par_iter()
            .zip(golds.par_iter())
            .map(
                |(r, g)| match p.answer_of(GivenAnswer::Absent, r.as_deref()) {
                    None => (None, false),
                    Some(a) => {
                        let ok = p.matches_any(g, &a);
                        (Some(a), ok)
                    }
                },
            )
            .collect()
    });
    Ok(graded.into_iter().unzip())
}

/// The final answer of a response under an extract mode (`math`, `mcq`,
/// `number`, `regex:PATTERN`); None when nothing (or only junk) is found.
#[pyfunction]
#[pyo3(signature = (text, mode))]
pub fn extract_answer(text: &str, mode: &str) -> PyResult<Option<String>> {
    let m = mode
        .parse::<rollstat_grade::ExtractMode>()
        .map(|_| ())
        .map_err(|e| InputError::new_err(format!("mode: {e}")));
    m?;
    let p = policy(mode, "equivalent")?;
    Ok(p.answer_of(GivenAnswer::Absent, Some(text)))
}

/// `(equal, reason)`: whether `answer` is mathematically equivalent to
/// `gold` (rollstat-grade's default grader), and why.
#[pyfunction]
#[pyo3(signature = (gold, answer))]
pub fn is_equivalent(gold: &str, answer: &str) -> (bool, String) {
    let v = rollstat_grade::is_equivalent(gold, answer);
    (v.equal, format!("{:?}", v.reason))
}
