//! In-memory typed rows: the canonical row forms of docs/spec.md §2 as Rust
//! values, for callers that hold rollouts in memory (a training loop, a
//! DataFrame, the Python package) instead of in a file.
//!
//! A row is turned into the canonical field map and parsed by the same
//! function that parses file rows ([`rollstat_io::record::parse_record_with`]),
//! so one row gets one verdict whichever way it arrives.

use rollstat_core::summary::Verdict;
use serde_json::{Map, Value};
use std::borrow::Cow;

/// One rollout of one problem.
///
/// ```
/// use rollstat::rows::RolloutRow;
/// let r = RolloutRow::new("p1", true).rollout(0).answer("42").field("subset", "algebra");
/// assert_eq!(r.problem, "p1");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RolloutRow {
    /// The problem id (non-empty). With `model`/`run` and `subset` from
    /// `fields` it identifies the problem.
    pub problem: String,
    /// Rollout index within the problem; default: order of arrival.
    pub rollout: Option<u64>,
    /// The verdict; `None` grades the row from `gold` (with `answer` or
    /// `response`). `Verdict::Failed` is a rollout with no verdict.
    pub correct: Option<Verdict>,
    /// The extracted answer: `Some(Some(text))`, `Some(None)` for "no answer
    /// was extracted" (`answer: null`), `None` when the row has none.
    pub answer: Option<Option<String>>,
    /// The reference answer; a row without `correct` is graded against it.
    pub gold: Option<String>,
    /// The generated text; read only to extract an answer for grading when
    /// `answer` is absent.
    pub response: Option<String>,
    /// `length`, `max_tokens`, … mark a truncated generation.
    pub finish_reason: Option<String>,
    /// Selector score (reward model, verifier, log-probability) for bon@k
    /// and wmaj@n.
    pub score: Option<f64>,
    /// Numeric fields, such as the rollout's budget (`output_tokens`,
    /// `cost`, `latency_s`, …).
    pub numbers: Vec<(String, f64)>,
    /// Other text fields: `model`, `run`, `subset`, and any field named by
    /// `by` or `cluster_by`.
    pub fields: Vec<(String, String)>,
}

impl RolloutRow {
    /// A judged rollout.
    pub fn new(problem: impl Into<String>, correct: bool) -> RolloutRow {
        RolloutRow {
            problem: problem.into(),
            correct: Some(if correct {
                Verdict::Correct
            } else {
                Verdict::Wrong
            }),
            ..Default::default()
        }
    }

    /// Sets the rollout index.
    pub fn rollout(mut self, index: u64) -> RolloutRow {
        self.rollout = Some(index);
        self
    }

    /// Sets the extracted answer.
    pub fn answer(mut self, answer: impl Into<String>) -> RolloutRow {
        self.answer = Some(Some(answer.into()));
        self
    }

    /// The same row with a selector score.
    ///
    /// ```
    /// use rollstat::rows::RolloutRow;
    /// assert_eq!(RolloutRow::new("p1", true).score(0.9).score, Some(0.9));
    /// ```
    pub fn score(mut self, score: f64) -> RolloutRow {
        self.score = Some(score);
        self
    }

    /// Adds a numeric field (a budget: `output_tokens`, `cost`, …).
    ///
    /// ```
    /// use rollstat::rows::RolloutRow;
    /// let r = RolloutRow::new("p1", true).number("output_tokens", 812.0);
    /// assert_eq!(r.numbers, [("output_tokens".to_string(), 812.0)]);
    /// ```
    pub fn number(mut self, name: impl Into<String>, value: f64) -> RolloutRow {
        self.numbers.push((name.into(), value));
        self
    }

    /// Adds a text field (`model`, `subset`, a `by` or `cluster_by` field).
    pub fn field(mut self, name: impl Into<String>, value: impl Into<String>) -> RolloutRow {
        self.fields.push((name.into(), value.into()));
        self
    }
}

/// All rollouts of one problem, by position.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ProblemRow {
    /// The problem id, as for [`RolloutRow::problem`].
    pub problem: String,
    /// Verdicts by rollout (`Verdict::Failed`: no verdict). Empty with a
    /// `gold`: every rollout is graded from `answers` / `responses`.
    pub correct: Vec<Verdict>,
    /// Answers by rollout (`None`: unextracted); empty when not known.
    pub answers: Vec<Option<String>>,
    /// Generated texts by rollout, for grading from `gold`; empty when not
    /// known.
    pub responses: Vec<String>,
    /// The reference answer; with `correct` empty, every rollout is graded
    /// against it.
    pub gold: Option<String>,
    /// Selector scores by rollout (`None`: no score); empty when not given.
    pub scores: Vec<Option<f64>>,
    /// Other text fields, as for [`RolloutRow::fields`].
    pub fields: Vec<(String, String)>,
}

/// Only the counts of one problem: n rollouts, c correct.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct CountRow {
    /// The problem id, as for [`RolloutRow::problem`].
    pub problem: String,
    /// Rollouts of the problem.
    pub n: u64,
    /// Correct rollouts, at most `n` (`c > n` is a bad row).
    pub c: u64,
    /// Other text fields, as for [`RolloutRow::fields`].
    pub fields: Vec<(String, String)>,
}

/// One canonical row.
#[derive(Clone, Debug, PartialEq)]
pub enum Row {
    /// A rollout row: one rollout of one problem.
    Rollout(RolloutRow),
    /// A problem row: all rollouts of one problem, as arrays.
    Problem(ProblemRow),
    /// A count row: no per-rollout detail, so prefix@k, maj@n,
    /// `self_consistency` and `distinct_answers` exclude the problem.
    Counts(CountRow),
    /// A row as its canonical field map, exactly what one JSON Lines line
    /// holds (e.g. one row of a DataFrame read column by column): fields
    /// the typed rows have no place for (`truncated`, `finish_reasons`,
    /// `status`, 0/1 verdicts, integer problem ids) keep their meaning.
    ///
    /// ```
    /// use rollstat::rows::Row;
    /// let m = serde_json::json!({"problem": 7, "correct": 1, "truncated": true});
    /// let row = Row::Fields(m.as_object().unwrap().clone());
    /// assert_eq!(row.to_map()["problem"], 7);
    /// ```
    Fields(Map<String, Value>),
}

impl From<RolloutRow> for Row {
    fn from(r: RolloutRow) -> Row {
        Row::Rollout(r)
    }
}
impl From<ProblemRow> for Row {
    fn from(r: ProblemRow) -> Row {
        Row::Problem(r)
    }
}
impl From<CountRow> for Row {
    fn from(r: CountRow) -> Row {
        Row::Counts(r)
    }
}

fn verdict_value(v: Verdict) -> Value {
    match v {
        Verdict::Correct => Value::Bool(true),
        Verdict::Wrong => Value::Bool(false),
        Verdict::Failed => Value::Null,
    }
}

fn text(s: &str) -> Value {
    Value::String(s.to_string())
}

impl Row {
    /// The canonical field map of this row, borrowed when the row is one
    /// already ([`Row::Fields`]).
    pub fn as_map(&self) -> Cow<'_, Map<String, Value>> {
        match self {
            Row::Fields(m) => Cow::Borrowed(m),
            _ => Cow::Owned(self.to_map()),
        }
    }

    /// The canonical field map of this row (what a JSON Lines file holds).
    pub fn to_map(&self) -> Map<String, Value> {
        let mut m = Map::new();
        let fields = match self {
            Row::Rollout(r) => {
                rollout_fields(r, &mut m);
                &r.fields
            }
            Row::Problem(r) => {
                problem_fields(r, &mut m);
                &r.fields
            }
            Row::Counts(r) => {
                m.insert("problem".into(), text(&r.problem));
                m.insert("n".into(), Value::from(r.n));
                m.insert("c".into(), Value::from(r.c));
                &r.fields
            }
            Row::Fields(f) => return f.clone(),
        };
        for (k, v) in fields {
            m.insert(k.clone(), text(v));
        }
        m
    }
}

/// A rollout row's typed fields, in canonical order.
fn rollout_fields(r: &RolloutRow, m: &mut Map<String, Value>) {
    m.insert("problem".into(), text(&r.problem));
    if let Some(i) = r.rollout {
        m.insert("rollout".into(), Value::from(i));
    }
    if let Some(v) = r.correct {
        m.insert("correct".into(), verdict_value(v));
    }
    if let Some(a) = &r.answer {
        m.insert("answer".into(), a.as_deref().map_or(Value::Null, text));
    }
    for (k, v) in [
        ("gold", &r.gold),
        ("response", &r.response),
        ("finish_reason", &r.finish_reason),
    ] {
        if let Some(v) = v {
            m.insert(k.into(), text(v));
        }
    }
    if let Some(s) = r.score {
        m.insert("score".into(), Value::from(s));
    }
    for (k, v) in &r.numbers {
        m.insert(k.clone(), Value::from(*v));
    }
}

/// A problem row's typed fields (its arrays), in canonical order.
fn problem_fields(r: &ProblemRow, m: &mut Map<String, Value>) {
    m.insert("problem".into(), text(&r.problem));
    if !r.correct.is_empty() || r.gold.is_none() {
        let v = r.correct.iter().map(|&v| verdict_value(v)).collect();
        m.insert("correct".into(), Value::Array(v));
    }
    if !r.answers.is_empty() {
        let v = r
            .answers
            .iter()
            .map(|a| a.as_deref().map_or(Value::Null, text))
            .collect();
        m.insert("answers".into(), Value::Array(v));
    }
    if !r.responses.is_empty() {
        let v = r.responses.iter().map(|s| text(s)).collect();
        m.insert("responses".into(), Value::Array(v));
    }
    if let Some(g) = &r.gold {
        m.insert("gold".into(), text(g));
    }
    if !r.scores.is_empty() {
        let v = r.scores.iter().map(|s| s.map_or(Value::Null, Value::from));
        m.insert("scores".into(), Value::Array(v.collect()));
    }
}
