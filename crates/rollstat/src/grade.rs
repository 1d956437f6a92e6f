//! Grading JSON Lines rows in place: adds `answer` (extracted, as written;
//! `null` when nothing was extracted) and `correct` to every row that has a
//! `gold` and something to grade, keeping every other field, the field
//! order and the row order — through the same [`GradingPolicy`] as report
//! and compare.
//!
//! - rollout rows with `gold` + `response` (no `answer`) get `answer` and
//!   `correct`; rows with `gold` + `answer` (no `correct`) get `correct`;
//! - problem rows with `gold` + `responses` (or `answers`) arrays get an
//!   `answers` array (when absent) and a `correct` array;
//! - rows that already have `correct`, rows without `gold`, count rows and
//!   malformed lines are kept unchanged;
//! - a rollout the grader could not decide (the comparison with gold hit
//!   its per-pair work limit) gets `correct: null` — no verdict, as in a
//!   report — and the row gets `grading_undecided` saying why (a string
//!   for a rollout row, the undecided rollout indices for a problem row).
//!
//! The new keys are appended to the row's own text, so numbers, escapes and
//! unknown fields are byte-for-byte what they were.

use rollstat_core::summary::Answer;
use rollstat_grade::{GivenAnswer, GradingPolicy};
use serde_json::{Map, Value};

/// Why a rollout has `correct: null` after grading.
pub const UNDECIDED_REASON: &str =
    "not decided: the comparison with gold hit the grader's per-pair work limit";

/// Rollouts of one graded row, by outcome.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GradedCounts {
    /// Rollouts graded.
    pub rollouts: u64,
    /// Graded correct.
    pub correct: u64,
    /// Without an extracted answer (graded wrong).
    pub unextracted: u64,
    /// Not decided (`correct: null`): the comparison hit the work limit.
    pub undecided: u64,
}

/// What happened to one line.
#[derive(Debug, PartialEq)]
pub enum LineOutcome {
    /// The row with the new keys, and its rollouts by outcome.
    Graded(String, GradedCounts),
    /// Written through unchanged, and why.
    Kept(&'static str),
    /// Not a JSON object (written through unchanged).
    Bad(String),
}

fn golds(v: Option<&Value>) -> Option<Vec<String>> {
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match v? {
        Value::Array(a) => {
            let g: Vec<String> = a.iter().filter_map(scalar).collect();
            (!g.is_empty()).then_some(g)
        }
        v => scalar(v).map(|s| vec![s]),
    }
}

fn answer_value(v: &Value, what: &str) -> Result<Answer, String> {
    match v {
        Value::Null => Ok(Answer::Unextracted),
        Value::String(s) => Ok(Answer::Text(s.clone())),
        Value::Number(n) => Ok(Answer::Text(n.to_string())),
        other => Err(format!(
            "`{what}` must be a string, a number or null, found {other}"
        )),
    }
}

fn response_of(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

/// Grades one answer against any of `golds`: (answer to write, verdict),
/// the verdict `None` when no gold matched and some comparison was not
/// decided.
fn grade_one(
    g: &GradingPolicy,
    golds: &[String],
    answer: &Answer,
    response: Option<&str>,
) -> (Option<String>, Option<bool>) {
    let given = match answer {
        Answer::Text(a) => GivenAnswer::Text(a),
        Answer::Unextracted => GivenAnswer::Unextracted,
        Answer::Unknown => GivenAnswer::Absent,
    };
    match g.answer_of(given, response) {
        None => (None, Some(false)),
        Some(a) => {
            let verdicts: Vec<Option<bool>> = golds.iter().map(|gold| g.judge(gold, &a)).collect();
            let verdict = if verdicts.contains(&Some(true)) {
                Some(true)
            } else if verdicts.contains(&None) {
                None
            } else {
                Some(false)
            };
            (Some(a), verdict)
        }
    }
}

/// The row's counts after one rollout with this answer and verdict.
fn count(counts: &mut GradedCounts, answer: &Option<String>, verdict: Option<bool>) {
    counts.rollouts += 1;
    counts.correct += u64::from(verdict == Some(true));
    counts.undecided += u64::from(verdict.is_none());
    counts.unextracted += u64::from(answer.is_none());
}

/// Appends `"key": value` pairs to a JSON object's text.
fn append(line: &str, pairs: &[(&str, Value)]) -> String {
    let t = line.trim_end();
    let close = t.rfind('}').expect("a JSON object ends with }");
    let mut out = String::with_capacity(t.len() + 64);
    out.push_str(t[..close].trim_end());
    for (k, v) in pairs {
        out.push_str(", ");
        out.push_str(&Value::String((*k).to_string()).to_string());
        out.push_str(": ");
        out.push_str(&v.to_string());
    }
    out.push('}');
    out
}

/// Grades one JSON Lines row (see the module docs): the row's own text
/// with `answer` / `correct` appended, or why it is kept as it was.
///
/// ```
/// use rollstat::grade::{grade_line, LineOutcome};
/// let p = rollstat::GradingPolicy::default();
/// let o = grade_line(r#"{"problem": "p", "gold": "1/2", "response": "so \\boxed{0.5}"}"#, &p);
/// assert!(matches!(o, LineOutcome::Graded(ref s, c) if c.correct == 1 && s.ends_with(r#""answer": "0.5", "correct": true}"#)));
/// ```
pub fn grade_line(line: &str, g: &GradingPolicy) -> LineOutcome {
    let m: Map<String, Value> = match serde_json::from_str::<Value>(line.trim()) {
        Ok(Value::Object(m)) => m,
        Ok(other) => return LineOutcome::Bad(format!("not a JSON object ({other})")),
        Err(e) => return LineOutcome::Bad(format!("not JSON: {e}")),
    };
    if m.contains_key("correct") {
        return LineOutcome::Kept("already graded");
    }
    let Some(golds) = golds(m.get("gold")) else {
        return LineOutcome::Kept("no gold");
    };
    let arrays = m.get("responses").and_then(Value::as_array);
    let given = m.get("answers").and_then(Value::as_array);
    if arrays.is_some() || given.is_some() {
        return grade_rollouts(line, g, &golds, (arrays, given));
    }
    grade_single(line, g, &golds, &m)
}

/// A line with one entry per rollout (`responses` and/or `answers`): each
/// graded, the verdicts (and extracted answers) appended as arrays.
fn grade_rollouts(
    line: &str,
    g: &GradingPolicy,
    golds: &[String],
    (arrays, given): (Option<&Vec<Value>>, Option<&Vec<Value>>),
) -> LineOutcome {
    let n = given.or(arrays).map_or(0, |a| a.len());
    let mut answers = Vec::with_capacity(n);
    let mut correct = Vec::with_capacity(n);
    let mut counts = GradedCounts::default();
    let mut undecided = Vec::new();
    for i in 0..n {
        let answer = match given {
            Some(a) => match answer_value(&a[i], &format!("answers[{i}]")) {
                Ok(x) => x,
                Err(e) => return LineOutcome::Bad(e),
            },
            None => Answer::Unknown,
        };
        let response = arrays.and_then(|r| response_of(r.get(i)));
        let (a, ok) = grade_one(g, golds, &answer, response);
        count(&mut counts, &a, ok);
        if ok.is_none() {
            undecided.push(Value::from(i));
        }
        answers.push(a.map_or(Value::Null, Value::String));
        correct.push(ok.map_or(Value::Null, Value::Bool));
    }
    let mut pairs = Vec::new();
    if given.is_none() {
        pairs.push(("answers", Value::Array(answers)));
    }
    pairs.push(("correct", Value::Array(correct)));
    if !undecided.is_empty() {
        pairs.push(("grading_undecided", Value::Array(undecided)));
    }
    LineOutcome::Graded(append(line, &pairs), counts)
}

/// A line with one rollout (`response` and/or `answer`).
fn grade_single(
    line: &str,
    g: &GradingPolicy,
    golds: &[String],
    m: &Map<String, Value>,
) -> LineOutcome {
    let response = response_of(m.get("response"));
    let (answer, has_answer) = match m.get("answer") {
        Some(v) => match answer_value(v, "answer") {
            Ok(a) => (a, true),
            Err(e) => return LineOutcome::Bad(e),
        },
        None if response.is_some() => (Answer::Unknown, false),
        None => return LineOutcome::Kept("no answer or response"),
    };
    let (a, ok) = grade_one(g, golds, &answer, response);
    let mut counts = GradedCounts::default();
    count(&mut counts, &a, ok);
    let mut pairs = Vec::new();
    if !has_answer {
        pairs.push(("answer", a.map_or(Value::Null, Value::String)));
    }
    pairs.push(("correct", ok.map_or(Value::Null, Value::Bool)));
    if ok.is_none() {
        pairs.push(("grading_undecided", Value::from(UNDECIDED_REASON)));
    }
    LineOutcome::Graded(append(line, &pairs), counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grader() -> GradingPolicy {
        GradingPolicy::default()
    }

    fn counts(rollouts: u64, correct: u64, unextracted: u64, undecided: u64) -> GradedCounts {
        GradedCounts {
            rollouts,
            correct,
            unextracted,
            undecided,
        }
    }

    /// `615!^3^32` vs `0` is past the per-pair work limit (the policy's own
    /// doctest says `judge` returns `None`): no verdict is written, not
    /// `false`, and the row says why.
    #[test]
    fn undecided_pairs_get_no_verdict_and_a_reason() {
        let g = &grader();
        assert_eq!(g.judge("615!^3^32", "0"), None);
        let o = grade_line(r#"{"problem":"p","gold":"615!^3^32","answer":"0"}"#, g);
        let want = format!(
            r#"{{"problem":"p","gold":"615!^3^32","answer":"0", "correct": null, "grading_undecided": "{UNDECIDED_REASON}"}}"#
        );
        assert_eq!(o, LineOutcome::Graded(want, counts(1, 0, 0, 1)));
        // A problem row: rollout 0 undecided, 1 unextracted (wrong).
        let o = grade_line(
            r#"{"problem":"p","gold":"615!^3^32","answers":["0",null]}"#,
            g,
        );
        assert_eq!(
            o,
            LineOutcome::Graded(
                r#"{"problem":"p","gold":"615!^3^32","answers":["0",null], "correct": [null,false], "grading_undecided": [0]}"#.into(),
                counts(2, 0, 1, 1)
            )
        );
        // A decided match with another gold wins over the undecided one.
        let o = grade_line(
            r#"{"problem":"p","gold":["615!^3^32","0"],"answer":"0"}"#,
            g,
        );
        assert!(
            matches!(o, LineOutcome::Graded(ref s, c) if c == counts(1, 1, 0, 0) && s.ends_with(r#""correct": true}"#))
        );
    }

    #[test]
    fn rows_get_answer_and_correct_appended() {
        let g = &grader();
        let o = grade_line(
            r#"{"problem": "p", "gold": "1/2", "x": 1.50, "response": "so \\boxed{0.5}"}"#,
            g,
        );
        assert_eq!(
            o,
            LineOutcome::Graded(
                r#"{"problem": "p", "gold": "1/2", "x": 1.50, "response": "so \\boxed{0.5}", "answer": "0.5", "correct": true}"#.into(),
                counts(1, 1, 0, 0)
            )
        );
        let o = grade_line(r#"{"problem":"p","gold":"3","answer":"[invalid]"}"#, g);
        assert_eq!(
            o,
            LineOutcome::Graded(
                r#"{"problem":"p","gold":"3","answer":"[invalid]", "correct": false}"#.into(),
                counts(1, 0, 1, 0)
            )
        );
        assert_eq!(
            grade_line(r#"{"problem":"p","gold":"3","correct":true}"#, g),
            LineOutcome::Kept("already graded")
        );
        assert_eq!(
            grade_line(r#"{"problem":"p","response":"3"}"#, g),
            LineOutcome::Kept("no gold")
        );
        assert!(matches!(grade_line("[1]", g), LineOutcome::Bad(_)));
        let o = grade_line(
            r#"{"problem":"p","gold":["4","four"],"responses":["\\boxed{4}","no idea",null]}"#,
            g,
        );
        assert_eq!(
            o,
            LineOutcome::Graded(
                r#"{"problem":"p","gold":["4","four"],"responses":["\\boxed{4}","no idea",null], "answers": ["4",null,null], "correct": [true,false,false]}"#.into(),
                counts(3, 1, 2, 0)
            )
        );
    }
}
