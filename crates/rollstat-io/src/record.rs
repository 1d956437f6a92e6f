//! One canonical input row (docs/spec.md §2) → a typed [`Record`].
//!
//! Three row forms exist and may be mixed: rollout rows (`correct` is a
//! scalar, or absent with `gold` to grade), problem rows (`correct` is an
//! array indexed by rollout, optional `answers`), and count rows (`n`, `c`).
//! Unknown fields are ignored here, never rejected.

use rollstat_core::summary::{Answer, Verdict};
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// What a row says about its rollouts.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordBody {
    /// One rollout. `verdict` is `None` when the row must be graded
    /// (`correct` absent, `gold` present).
    Rollout {
        index: Option<u64>,
        verdict: Option<Verdict>,
        answer: Answer,
        truncated: bool,
        gold: Option<String>,
        response: Option<String>,
        /// The selector score (`score`), if any.
        score: Option<f64>,
        /// The value of the budget field, if any.
        budget: Option<f64>,
    },
    /// All rollouts of a problem, indexed by position.
    Problem {
        rollouts: Vec<(Verdict, Answer, bool)>,
        /// Selector scores by position (`scores`), if given.
        scores: Option<Vec<Option<f64>>>,
        /// Budgets by position (the budget field's array), if given.
        budgets: Option<Vec<Option<f64>>>,
    },
    /// All rollouts of a problem without verdicts, to grade against `gold`:
    /// (answer, response, truncated) by position.
    ProblemToGrade {
        gold: String,
        rollouts: Vec<(Answer, Option<String>, bool)>,
        /// Selector scores by position (`scores`), if given.
        scores: Option<Vec<Option<f64>>>,
        /// Budgets by position (the budget field's array), if given.
        budgets: Option<Vec<Option<f64>>>,
    },
    /// Only counts.
    Counts { n: u64, c: u64 },
}

/// A parsed row.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub problem: String,
    /// `model` and `run` joined with `/`, when present: rows of different
    /// systems never merge into one problem.
    pub system: Option<String>,
    /// The `subset` field: rows of different subsets never merge into one
    /// problem either (two benchmark files may both number problems from 0).
    pub subset: Option<String>,
    /// The value of the `--by` field, as text.
    pub by_value: Option<String>,
    /// The value of the `--cluster-by` field, as text.
    pub cluster_value: Option<String>,
    pub body: RecordBody,
}

/// Field names `finish_reason` may take for a truncated generation.
pub const TRUNCATION_REASONS: [&str; 4] = ["length", "max_tokens", "content_filter", "max_length"];

/// `status` values that mean no verdict exists.
pub(crate) const FAILED_STATUSES: [&str; 6] = [
    "failed",
    "error",
    "errored",
    "judge_failed",
    "timeout",
    "api_error",
];

/// Whether a `status` value means no verdict exists (in any letter case).
///
/// ```
/// assert!(rollstat_io::record::is_failed_status("Timeout"));
/// assert!(!rollstat_io::record::is_failed_status("ok"));
/// ```
pub fn is_failed_status(status: &str) -> bool {
    FAILED_STATUSES
        .iter()
        .any(|f| f.eq_ignore_ascii_case(status))
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn verdict_of(v: &Value, what: &str) -> Result<Verdict, String> {
    match v {
        Value::Null => Ok(Verdict::Failed),
        Value::Bool(true) => Ok(Verdict::Correct),
        Value::Bool(false) => Ok(Verdict::Wrong),
        Value::Number(n) if n.as_f64() == Some(1.0) => Ok(Verdict::Correct),
        Value::Number(n) if n.as_f64() == Some(0.0) => Ok(Verdict::Wrong),
        other => Err(format!(
            "`{what}` must be true/false, 0/1 or null, found {} ({other})",
            type_name(other)
        )),
    }
}

fn answer_of(v: Option<&Value>, what: &str) -> Result<Answer, String> {
    match v {
        None => Ok(Answer::Unknown),
        Some(Value::Null) => Ok(Answer::Unextracted),
        Some(v) => scalar_text(v).map(Answer::Text).ok_or_else(|| {
            format!(
                "`{what}` must be a string, a number or null, found {}",
                type_name(v)
            )
        }),
    }
}

/// A selector score: a finite number, or `null` for none.
fn score_of(v: Option<&Value>, what: &str) -> Result<Option<f64>, String> {
    match v {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_f64()
            .filter(|x| x.is_finite())
            .map(Some)
            .ok_or_else(|| format!("`{what}` = {n} is not a finite number")),
        Some(other) => Err(format!(
            "`{what}` must be a number or null, found {}",
            type_name(other)
        )),
    }
}

/// The `scores` array of a problem row with `len` rollouts, if present.
fn scores_of(m: &Map<String, Value>, len: usize) -> Result<Option<Vec<Option<f64>>>, String> {
    match m.get("scores") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) if a.len() == len => a
            .iter()
            .enumerate()
            .map(|(i, v)| score_of(Some(v), &format!("scores[{i}]")))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(Value::Array(a)) => Err(format!(
            "`scores` has {} entries but the row has {len} rollouts",
            a.len()
        )),
        Some(other) => Err(format!(
            "`scores` must be an array, found {}",
            type_name(other)
        )),
    }
}

/// A budget value: a finite number ≥ 0, or `null` for none (missing).
fn budget_of(v: Option<&Value>, what: &str) -> Result<Option<f64>, String> {
    match score_of(v, what)? {
        Some(x) if x < 0.0 => Err(format!("`{what}` = {x} is negative")),
        x => Ok(x),
    }
}

/// The budget array of a problem row with `len` rollouts, if the budget
/// field is present.
fn budgets_of(
    m: &Map<String, Value>,
    field: Option<&str>,
    len: usize,
) -> Result<Option<Vec<Option<f64>>>, String> {
    let Some(field) = field else { return Ok(None) };
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(a)) if a.len() == len => a
            .iter()
            .enumerate()
            .map(|(i, v)| budget_of(Some(v), &format!("{field}[{i}]")))
            .collect::<Result<Vec<_>, _>>()
            .map(Some),
        Some(Value::Array(a)) => Err(format!(
            "`{field}` has {} entries but the row has {len} rollouts",
            a.len()
        )),
        Some(other) => Err(format!(
            "`{field}` on a problem row must be an array aligned with the rollouts, found {}",
            type_name(other)
        )),
    }
}

fn count_of(m: &Map<String, Value>, key: &str) -> Result<Option<u64>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a non-negative integer, found {n}")),
        Some(other) => Err(format!(
            "`{key}` must be a non-negative integer, found {}",
            type_name(other)
        )),
    }
}

fn opt_string(m: &Map<String, Value>, key: &str) -> Result<Option<String>, String> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => scalar_text(v)
            .map(Some)
            .ok_or_else(|| format!("`{key}` must be a string, found {}", type_name(v))),
    }
}

/// Whether `key` has a value other than `null` (a `null` is no value, as
/// everywhere in a row).
fn given(m: &Map<String, Value>, key: &str) -> bool {
    m.get(key).is_some_and(|v| !v.is_null())
}

fn is_truncated(m: &Map<String, Value>) -> bool {
    matches!(m.get("finish_reason"), Some(Value::String(s)) if TRUNCATION_REASONS.contains(&s.as_str()))
        || matches!(m.get("truncated"), Some(Value::Bool(true)))
}

/// What one JSON Lines row holds at its top level.
enum TopLevel {
    Object(Map<String, Value>),
    /// A key given twice; the value is read whole before this is reported.
    Duplicate(String),
    /// Not an object: what it is instead.
    Other(&'static str),
}

impl<'de> serde::Deserialize<'de> for TopLevel {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(TopLevelVisitor)
    }
}

struct TopLevelVisitor;

const NOT_JSONL: &str = "an array (a file holding one JSON document is not JSON Lines)";

impl<'de> Visitor<'de> for TopLevelVisitor {
    type Value = TopLevel;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<TopLevel, A::Error> {
        let mut m = Map::new();
        let mut duplicate = None;
        while let Some(k) = a.next_key::<String>()? {
            let v: Value = a.next_value()?;
            if duplicate.is_none() && m.contains_key(&k) {
                duplicate = Some(k);
            } else {
                m.insert(k, v);
            }
        }
        Ok(duplicate.map_or(TopLevel::Object(m), TopLevel::Duplicate))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<TopLevel, A::Error> {
        while a.next_element::<Value>()?.is_some() {}
        Ok(TopLevel::Other(NOT_JSONL))
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a scalar"))
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a scalar"))
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a scalar"))
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a scalar"))
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a scalar"))
    }
    fn visit_unit<E: de::Error>(self) -> Result<TopLevel, E> {
        Ok(TopLevel::Other("a scalar"))
    }
}

/// Parses one JSON Lines row into its object. A key given twice in the
/// row is an error, not "the last one wins": which value is meant is
/// unclear, and reading one of them silently could change a verdict.
///
/// ```
/// use rollstat_io::record::parse_row_object;
/// assert!(parse_row_object(br#"{"problem": "a", "correct": true}"#).is_ok());
/// let e = parse_row_object(br#"{"correct": true, "correct": false}"#).unwrap_err();
/// assert!(e.contains("`correct` appears twice"), "{e}");
/// ```
pub fn parse_row_object(line: &[u8]) -> Result<Map<String, Value>, String> {
    match serde_json::from_slice(line).map_err(|e| format!("invalid JSON: {e}"))? {
        TopLevel::Object(m) => Ok(m),
        TopLevel::Duplicate(k) => Err(format!(
            "key `{k}` appears twice in one row (which value is meant is unclear)"
        )),
        TopLevel::Other(kind) => Err(format!("expected a JSON object per line, found {kind}")),
    }
}

/// Parses one row. `by` names the breakdown field, if any. The error is a
/// reason without position; the caller adds `path:line`.
///
/// ```
/// use rollstat_io::record::{parse_record, RecordBody};
/// let row: serde_json::Value = serde_json::json!({"problem": 3, "n": 8, "c": 2});
/// let r = parse_record(row.as_object().unwrap(), None).unwrap();
/// assert_eq!(r.problem, "3");
/// assert_eq!(r.body, RecordBody::Counts { n: 8, c: 2 });
/// ```
pub fn parse_record(m: &Map<String, Value>, by: Option<&str>) -> Result<Record, String> {
    parse_record_with(m, by, None)
}

/// [`parse_record`] that also reads the `cluster_by` field.
pub fn parse_record_with(
    m: &Map<String, Value>,
    by: Option<&str>,
    cluster_by: Option<&str>,
) -> Result<Record, String> {
    parse_record_budget(m, by, cluster_by, None)
}

/// [`parse_record_with`] that also reads the budget field `budget` (a
/// number on a rollout row, an array aligned with the rollouts on a problem
/// row; `null` or absent: missing).
///
/// ```
/// use rollstat_io::record::{parse_record_budget, RecordBody};
/// let row = serde_json::json!({"problem": "p", "correct": [true, false], "cost": [0.5, null]});
/// let r = parse_record_budget(row.as_object().unwrap(), None, None, Some("cost")).unwrap();
/// let RecordBody::Problem { budgets, .. } = r.body else { panic!() };
/// assert_eq!(budgets, Some(vec![Some(0.5), None]));
/// ```
pub fn parse_record_budget(
    m: &Map<String, Value>,
    by: Option<&str>,
    cluster_by: Option<&str>,
    budget: Option<&str>,
) -> Result<Record, String> {
    let problem = problem_id(m)?;
    let model = opt_string(m, "model")?;
    let run = opt_string(m, "run")?;
    let subset = opt_string(m, "subset")?;
    let system = match (model, run) {
        (None, None) => None,
        (Some(a), None) | (None, Some(a)) => Some(a),
        (Some(a), Some(b)) => Some(format!("{a}/{b}")),
    };
    let by_value = match by {
        Some(field) => opt_string(m, field)?,
        None => None,
    };
    let cluster_value = match cluster_by {
        Some(field) => opt_string(m, field)?,
        None => None,
    };
    let body = if let Some(Value::Array(arr)) = m.get("correct") {
        body_from_arrays(m, arr, budget)?
    } else if !m.contains_key("correct")
        && m.get("gold").is_some_and(|g| !g.is_null())
        && (matches!(m.get("answers"), Some(Value::Array(_)))
            || matches!(m.get("responses"), Some(Value::Array(_))))
    {
        body_to_grade(m, budget)?
    } else if given(m, "n") || given(m, "c") {
        body_counts(m)?
    } else {
        body_rollout(m, budget)?
    };
    Ok(Record {
        problem,
        system,
        subset,
        by_value,
        cluster_value,
        body,
    })
}

/// A row without a problem id.
const MISSING_PROBLEM: &str = "missing `problem` (every row needs a problem id)";
/// A rollout row without a verdict or what grading needs.
const NO_VERDICT: &str =
    "no verdict: give `correct`, or `n`+`c`, or `gold` with `answer`/`response` to grade";

/// [`parse_record_budget`] for a row whose map holds every field of the
/// input (a JSON line, a CSV record): a row that lacks the problem id or a
/// verdict is told which fields it has (`(the row has id, passed)`, at
/// most 8 named) — most often the columns are named differently.
pub(crate) fn parse_whole_row(
    m: &Map<String, Value>,
    by: Option<&str>,
    cluster_by: Option<&str>,
    budget: Option<&str>,
) -> Result<Record, String> {
    const SHOWN: usize = 8;
    parse_record_budget(m, by, cluster_by, budget).map_err(|e| {
        if e != MISSING_PROBLEM && e != NO_VERDICT {
            return e;
        }
        let names: Vec<&str> = m.keys().take(SHOWN).map(String::as_str).collect();
        let more = if m.len() > SHOWN { ", …" } else { "" };
        format!("{e} (the row has {}{more})", names.join(", "))
    })
}

/// Largest integral float id read as an integer: 2^53, the last integer a
/// float64 holds exactly.
const MAX_FLOAT_ID: f64 = 9_007_199_254_740_992.0;

/// The row's `problem` id: a non-empty string, or an integer as text. An
/// integral float (`1.0`) is the integer (`"1"`): pandas turns an integer id
/// column into float64 as soon as one value is missing, and the ids are
/// still the integers. A float with a fraction (`1.5`) is refused.
fn problem_id(m: &Map<String, Value>) -> Result<String, String> {
    Ok(match m.get("problem") {
        None | Some(Value::Null) => return Err(MISSING_PROBLEM.into()),
        Some(Value::String(s)) if s.is_empty() => return Err("`problem` is empty".into()),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => n.to_string(),
        Some(Value::Number(n))
            if n.as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f.abs() <= MAX_FLOAT_ID) =>
        {
            format!("{}", n.as_f64().unwrap_or_default() as i64)
        }
        Some(other) => {
            return Err(format!(
                "`problem` must be a string or an integer, found {}",
                type_name(other)
            ))
        }
    })
}

/// A count row: `n` rollouts of which `c` are correct.
fn body_counts(m: &Map<String, Value>) -> Result<RecordBody, String> {
    if m.contains_key("correct") {
        return Err("a row has either `correct` or `n`+`c`, not both".into());
    }
    let n = count_of(m, "n")?.ok_or("count row without `n`")?;
    let c = count_of(m, "c")?.ok_or("count row without `c`")?;
    if c > n {
        return Err(format!("`c` = {c} exceeds `n` = {n}"));
    }
    Ok(RecordBody::Counts { n, c })
}

/// A rollout row: its verdict from `correct`, or failed by its `status`,
/// or none yet when it has `gold` and an answer or response to grade.
fn body_rollout(m: &Map<String, Value>, budget: Option<&str>) -> Result<RecordBody, String> {
    let failed_status = matches!(m.get("status"), Some(Value::String(s)) if FAILED_STATUSES.contains(&s.to_ascii_lowercase().as_str()));
    let index = count_of(m, "rollout")?;
    let gold = opt_string(m, "gold")?;
    let response = opt_string(m, "response")?;
    let verdict = match m.get("correct") {
        Some(v) => Some(verdict_of(v, "correct")?),
        None if failed_status => Some(Verdict::Failed),
        None if gold.is_some() && (m.contains_key("answer") || response.is_some()) => None,
        None => return Err(NO_VERDICT.into()),
    };
    let verdict = if failed_status {
        Some(Verdict::Failed)
    } else {
        verdict
    };
    Ok(RecordBody::Rollout {
        index,
        verdict,
        answer: answer_of(m.get("answer"), "answer")?,
        truncated: is_truncated(m),
        gold,
        response,
        score: score_of(m.get("score"), "score")?,
        budget: match budget {
            Some(field) => budget_of(m.get(field), field)?,
            None => None,
        },
    })
}

/// A problem row with `gold` and `answers` and/or `responses` arrays but no
/// `correct`: every rollout is graded.
fn body_to_grade(m: &Map<String, Value>, budget: Option<&str>) -> Result<RecordBody, String> {
    let gold = opt_string(m, "gold")?.ok_or("`gold` must be a string")?;
    let array = |key: &str| match m.get(key) {
        Some(Value::Array(a)) => Ok(Some(a)),
        None | Some(Value::Null) => Ok(None),
        Some(other) => Err(format!(
            "`{key}` must be an array, found {}",
            type_name(other)
        )),
    };
    let (answers, responses) = (array("answers")?, array("responses")?);
    let len = answers.or(responses).map_or(0, |a| a.len());
    if let (Some(a), Some(r)) = (answers, responses) {
        if a.len() != r.len() {
            return Err(format!(
                "`answers` has {} entries but `responses` has {}",
                a.len(),
                r.len()
            ));
        }
    }
    let reasons = match m.get("finish_reasons") {
        Some(Value::Array(a)) if a.len() == len => Some(a),
        _ => None,
    };
    let mut rollouts = Vec::with_capacity(len);
    for i in 0..len {
        let answer = match answers {
            Some(a) => answer_of(Some(&a[i]), &format!("answers[{i}]"))?,
            None => Answer::Unknown,
        };
        let response = match responses.map(|r| &r[i]) {
            None | Some(Value::Null) => None,
            Some(v) => Some(scalar_text(v).ok_or_else(|| {
                format!("`responses[{i}]` must be a string, found {}", type_name(v))
            })?),
        };
        let truncated = reasons.is_some_and(
            |r| matches!(&r[i], Value::String(s) if TRUNCATION_REASONS.contains(&s.as_str())),
        );
        rollouts.push((answer, response, truncated));
    }
    let scores = scores_of(m, len)?;
    Ok(RecordBody::ProblemToGrade {
        gold,
        rollouts,
        scores,
        budgets: budgets_of(m, budget, len)?,
    })
}

fn body_from_arrays(
    m: &Map<String, Value>,
    correct: &[Value],
    budget: Option<&str>,
) -> Result<RecordBody, String> {
    let answers = match m.get("answers") {
        None | Some(Value::Null) => None,
        Some(Value::Array(a)) if a.len() == correct.len() => Some(a),
        Some(Value::Array(a)) => {
            return Err(format!(
                "`answers` has {} entries but `correct` has {}",
                a.len(),
                correct.len()
            ))
        }
        Some(other) => {
            return Err(format!(
                "`answers` must be an array, found {}",
                type_name(other)
            ))
        }
    };
    let reasons = match m.get("finish_reasons") {
        Some(Value::Array(a)) if a.len() == correct.len() => Some(a),
        _ => None,
    };
    let mut rollouts = Vec::with_capacity(correct.len());
    for (i, v) in correct.iter().enumerate() {
        let verdict = verdict_of(v, &format!("correct[{i}]"))?;
        let answer = match answers {
            Some(a) => answer_of(Some(&a[i]), &format!("answers[{i}]"))?,
            None => Answer::Unknown,
        };
        let truncated = reasons.is_some_and(
            |r| matches!(&r[i], Value::String(s) if TRUNCATION_REASONS.contains(&s.as_str())),
        );
        rollouts.push((verdict, answer, truncated));
    }
    let scores = scores_of(m, correct.len())?;
    let budgets = budgets_of(m, budget, correct.len())?;
    Ok(RecordBody::Problem {
        rollouts,
        scores,
        budgets,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> Result<Record, String> {
        parse_record(v.as_object().unwrap(), Some("subset"))
    }

    #[test]
    fn rollout_row() {
        let r = parse(
            json!({"problem": "a", "rollout": 2, "correct": 1, "answer": 204,
                             "finish_reason": "length", "subset": "aime", "model": "m"}),
        )
        .unwrap();
        assert_eq!(r.system.as_deref(), Some("m"));
        assert_eq!(r.by_value.as_deref(), Some("aime"));
        assert_eq!(
            r.body,
            RecordBody::Rollout {
                index: Some(2),
                verdict: Some(Verdict::Correct),
                answer: Answer::Text("204".into()),
                truncated: true,
                gold: None,
                response: None,
                score: None,
                budget: None
            }
        );
    }

    #[test]
    fn wrong_types_are_named() {
        let e = parse(json!({"problem": "a", "correct": "yes"})).unwrap_err();
        assert!(e.contains("`correct` must be"), "{e}");
        let e = parse(json!({"problem": 1.5, "correct": true})).unwrap_err();
        assert!(
            e.contains("`problem` must be a string or an integer"),
            "{e}"
        );
        let e = parse(json!({"correct": true})).unwrap_err();
        assert!(e.contains("missing `problem`"), "{e}");
        // Issue 30 item 11: a whole row (a JSON line) is told its fields.
        let whole = |v: Value| {
            let Value::Object(m) = v else { unreachable!() };
            parse_whole_row(&m, None, None, None).unwrap_err()
        };
        let e = whole(json!({"id": 1, "passed": true}));
        assert_eq!(e, format!("{MISSING_PROBLEM} (the row has id, passed)"));
        let e = whole(json!({"problem": "a", "reward": 0.5}));
        assert_eq!(e, format!("{NO_VERDICT} (the row has problem, reward)"));
        let e = whole(json!({"problem": "a", "correct": "yes"}));
        assert!(!e.contains("the row has"), "{e}");
        // Issue 30 item 11: an integral float id (pandas' NaN-promoted
        // integer column) is the integer.
        let r = parse(json!({"problem": 7.0, "correct": true})).unwrap();
        assert_eq!(r.problem, "7");
        let r = parse(json!({"problem": -3.0, "correct": true})).unwrap();
        assert_eq!(r.problem, "-3");
        let e = parse(json!({"problem": 1e300, "correct": true})).unwrap_err();
        assert!(e.contains("`problem` must be"), "{e}");
        let e = parse(json!({"problem": "a", "rollout": -1, "correct": true})).unwrap_err();
        assert!(
            e.contains("`rollout` must be a non-negative integer"),
            "{e}"
        );
        let e = parse(json!({"problem": "a", "n": 2, "c": 3})).unwrap_err();
        assert!(e.contains("exceeds"), "{e}");
        let e =
            parse(json!({"problem": "a", "correct": [true], "answers": ["x", "y"]})).unwrap_err();
        assert!(e.contains("`answers` has 2 entries"), "{e}");
        let e = parse(json!({"problem": "a"})).unwrap_err();
        assert!(e.contains("no verdict"), "{e}");
    }

    #[test]
    fn failed_and_to_grade() {
        let r = parse(json!({"problem": "a", "correct": null})).unwrap();
        assert!(matches!(
            r.body,
            RecordBody::Rollout {
                verdict: Some(Verdict::Failed),
                ..
            }
        ));
        let r =
            parse(json!({"problem": "a", "status": "error", "gold": "1", "answer": "1"})).unwrap();
        assert!(matches!(
            r.body,
            RecordBody::Rollout {
                verdict: Some(Verdict::Failed),
                ..
            }
        ));
        let r = parse(json!({"problem": "a", "gold": "1", "response": "so \\boxed{1}"})).unwrap();
        assert!(matches!(r.body, RecordBody::Rollout { verdict: None, .. }));
    }
}
