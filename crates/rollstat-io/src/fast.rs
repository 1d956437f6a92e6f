//! A fast path for the common rollout row.
//!
//! Parsing every line into a `serde_json::Value` map allocates a map and a
//! string per field; most rows are flat rollout rows with a handful of known
//! fields. This path deserializes them straight into borrowed fields and
//! builds the same [`Record`] that [`parse_record_with`] would. Anything it
//! does not handle exactly — problem or count rows, numbers where text is
//! expected, wrong types, a key given twice, a `--by` field it does not
//! know — returns `None`, and the caller takes the general path, which also
//! words the error message. Fields it does not use are still checked as the
//! general path checks them (UTF-8, surrogates, numbers, depth), so a row
//! is accepted or refused the same on every path whatever `--by` picks.
//! `tests` check both paths agree.
//!
//! [`parse_record_with`]: crate::record::parse_record_with

use crate::record::{is_failed_status, Record, RecordBody, TRUNCATION_REASONS};
use rollstat_core::rollouts::AnswerRef;
use rollstat_core::summary::{Answer, Verdict};
use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::borrow::Cow;
use std::fmt;

/// A text field: a JSON string, or an integer written as text.
struct Text<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Text<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string or an integer")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_any(V)
    }
}

/// `correct` as a scalar: true/false, 0/1 (integer or float), or null.
struct Correct(Verdict);

impl<'de> Deserialize<'de> for Correct {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Correct;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("true/false, 0/1 or null")
            }
            fn visit_bool<E>(self, v: bool) -> Result<Correct, E> {
                Ok(Correct(if v { Verdict::Correct } else { Verdict::Wrong }))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Correct, E> {
                match v {
                    0 => Ok(Correct(Verdict::Wrong)),
                    1 => Ok(Correct(Verdict::Correct)),
                    _ => Err(E::custom("not 0/1")),
                }
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Correct, E> {
                self.visit_u64(u64::try_from(v).map_err(|_| E::custom("negative"))?)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Correct, E> {
                if v == 0.0 {
                    Ok(Correct(Verdict::Wrong))
                } else if v == 1.0 {
                    Ok(Correct(Verdict::Correct))
                } else {
                    Err(E::custom("not 0/1"))
                }
            }
            fn visit_unit<E>(self) -> Result<Correct, E> {
                Ok(Correct(Verdict::Failed))
            }
            fn visit_none<E>(self) -> Result<Correct, E> {
                Ok(Correct(Verdict::Failed))
            }
        }
        d.deserialize_any(V)
    }
}

/// A value read whole and dropped, checked as the general path checks it
/// (which reads every value into a `serde_json::Value`): strings valid
/// UTF-8 without lone surrogates, numbers within `f64`, nesting within
/// serde_json's depth limit. `IgnoredAny` checks none of these, so a row
/// could pass here and fail there.
struct Checked;

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(Checked)
    }
    fn visit_seq<A: de::SeqAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
        while a.next_element::<Checked>()?.is_some() {}
        Ok(Checked)
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Checked, A::Error> {
        while a.next_key::<Checked>()?.is_some() {
            a.next_value::<Checked>()?;
        }
        Ok(Checked)
    }
}

/// An object key, borrowed from the line when it needs no unescaping.
struct KeyName<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for KeyName<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = KeyName<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a key")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(KeyName(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
                Ok(KeyName(Cow::Owned(v.to_string())))
            }
        }
        d.deserialize_str(V)
    }
}

/// The keys of one object seen so far, to refuse a key given twice: a
/// short list while it is short, a set past that (a row with many keys
/// must not cost quadratic time).
#[derive(Default)]
pub(crate) struct SeenKeys<'a> {
    few: Vec<Cow<'a, [u8]>>,
    many: std::collections::HashSet<Cow<'a, [u8]>>,
}

impl<'a> SeenKeys<'a> {
    const FEW: usize = 16;

    /// Adds a key; `false` if it was there already.
    pub fn insert(&mut self, key: Cow<'a, [u8]>) -> bool {
        if self.few.len() < Self::FEW {
            if self.few.contains(&key) {
                return false;
            }
            self.few.push(key);
            return true;
        }
        if self.many.is_empty() {
            self.many.extend(self.few.iter().cloned());
        }
        self.many.insert(key)
    }
}

#[derive(Default)]
struct Row<'a> {
    problem: Option<Text<'a>>,
    rollout: Option<u64>,
    /// `Some(None)` for an explicit null, `None` when absent.
    correct: Option<Option<Correct>>,
    answer: Option<Option<Text<'a>>>,
    gold: Option<Text<'a>>,
    response: Option<Text<'a>>,
    finish_reason: Option<Text<'a>>,
    truncated: Option<bool>,
    status: Option<Text<'a>>,
    model: Option<Text<'a>>,
    run: Option<Text<'a>>,
    subset: Option<Text<'a>>,
    group: Option<Text<'a>>,
    /// `n`, `c` or `answers` given (not null): a count or problem row; or
    /// a selector `score` (not null), which the general path reads. Such
    /// rows go to the general path.
    counts: bool,
    /// The default budget field ([`FAST_BUDGET`]).
    output_tokens: Option<f64>,
}

impl<'de: 'a, 'a> Deserialize<'de> for Row<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(RowVisitor)
    }
}

struct RowVisitor;

impl<'de> Visitor<'de> for RowVisitor {
    type Value = Row<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a rollout row")
    }
    fn visit_map<A: de::MapAccess<'de>>(self, mut a: A) -> Result<Row<'de>, A::Error> {
        let mut row = Row::default();
        let mut seen = SeenKeys::default();
        while let Some(KeyName(key)) = a.next_key()? {
            let name = match &key {
                Cow::Borrowed(k) => Cow::Borrowed(k.as_bytes()),
                Cow::Owned(k) => Cow::Owned(k.as_bytes().to_vec()),
            };
            if !seen.insert(name) {
                return Err(de::Error::custom("a key appears twice"));
            }
            match &*key {
                "problem" => row.problem = a.next_value()?,
                "rollout" => row.rollout = a.next_value()?,
                "correct" => row.correct = Some(a.next_value()?),
                "answer" => row.answer = Some(a.next_value()?),
                "gold" => row.gold = a.next_value()?,
                "response" => row.response = a.next_value()?,
                "finish_reason" => row.finish_reason = a.next_value()?,
                "truncated" => row.truncated = a.next_value()?,
                "status" => row.status = a.next_value()?,
                "model" => row.model = a.next_value()?,
                "run" => row.run = a.next_value()?,
                "subset" => row.subset = a.next_value()?,
                "group" => row.group = a.next_value()?,
                "output_tokens" => row.output_tokens = a.next_value()?,
                "n" | "c" | "answers" | "score" => {
                    row.counts |= a.next_value::<Option<Checked>>()?.is_some();
                }
                _ => {
                    a.next_value::<Checked>()?;
                }
            }
        }
        Ok(row)
    }
}

/// The one budget field the fast paths read; rows read for another budget
/// field take the general path.
pub(crate) const FAST_BUDGET: &str = "output_tokens";

/// Fields the fast path can read for `--by` / `--cluster-by`.
pub(crate) fn handles_field(field: Option<&str>) -> bool {
    matches!(field, None | Some("subset" | "group" | "model" | "run"))
}

/// A flat rollout row with its text fields borrowed from the input line
/// (or an in-memory column) where they needed no unescaping: what the fast
/// paths hand the fold. Its meaning is that of the [`Record`] it becomes
/// ([`FlatRow::into_record`]); it has no selector score.
/// Fields most rows lack sit behind one box, so a row is small (rows of a
/// block are all held at once).
#[derive(Clone, Debug, PartialEq)]
pub struct FlatRow<'a> {
    /// The problem id.
    pub problem: Cow<'a, str>,
    /// The `rollout` index, if given.
    pub index: Option<u64>,
    /// `None`: grade the row (`correct` absent, `gold` present).
    pub verdict: Option<Verdict>,
    /// The extracted answer.
    pub answer: FlatAnswer<'a>,
    /// Whether the generation was truncated.
    pub truncated: bool,
    /// The rarer fields, boxed when any is present.
    pub extra: Option<Box<FlatExtra<'a>>>,
    /// The budget field's value (`output_tokens`, [`FAST_BUDGET`], on the
    /// file paths), when given.
    pub budget: Option<f64>,
}

/// The rarer fields of a [`FlatRow`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FlatExtra<'a> {
    /// `model` and `run` joined with `/` (see [`Record::system`]).
    pub system: Option<Cow<'a, str>>,
    /// The `subset` field.
    pub subset: Option<Cow<'a, str>>,
    /// The value of the breakdown field.
    pub by_value: Option<Cow<'a, str>>,
    /// The value of the cluster field.
    pub cluster_value: Option<Cow<'a, str>>,
    /// Kept only when `verdict` is `None`.
    pub gold: Option<Cow<'a, str>>,
    /// Kept only when `verdict` is `None`.
    pub response: Option<Cow<'a, str>>,
}

impl<'a> FlatRow<'a> {
    /// A row; the extra fields are boxed only when one is present.
    pub fn new(
        problem: Cow<'a, str>,
        index: Option<u64>,
        verdict: Option<Verdict>,
        answer: FlatAnswer<'a>,
        truncated: bool,
        extra: FlatExtra<'a>,
    ) -> Self {
        let extra = (extra != FlatExtra::default()).then(|| Box::new(extra));
        FlatRow {
            problem,
            index,
            verdict,
            answer,
            truncated,
            extra,
            budget: None,
        }
    }

    pub fn system(&self) -> Option<&str> {
        self.extra.as_ref()?.system.as_deref()
    }
    pub fn subset(&self) -> Option<&str> {
        self.extra.as_ref()?.subset.as_deref()
    }
    pub fn by_value(&self) -> Option<&str> {
        self.extra.as_ref()?.by_value.as_deref()
    }
    pub fn cluster_value(&self) -> Option<&str> {
        self.extra.as_ref()?.cluster_value.as_deref()
    }
    pub fn gold(&self) -> Option<&str> {
        self.extra.as_ref()?.gold.as_deref()
    }
    pub fn response(&self) -> Option<&str> {
        self.extra.as_ref()?.response.as_deref()
    }
}

/// [`Answer`] with borrowed text.
#[derive(Clone, Debug, PartialEq)]
pub enum FlatAnswer<'a> {
    /// No `answer` field.
    Unknown,
    /// `answer` is null.
    Unextracted,
    /// The answer's text.
    Text(Cow<'a, str>),
}

impl FlatAnswer<'_> {
    pub fn as_ref(&self) -> AnswerRef<'_> {
        match self {
            FlatAnswer::Unknown => AnswerRef::Unknown,
            FlatAnswer::Unextracted => AnswerRef::Unextracted,
            FlatAnswer::Text(t) => AnswerRef::Text(t),
        }
    }

    pub fn to_answer(&self) -> Answer {
        match self {
            FlatAnswer::Unknown => Answer::Unknown,
            FlatAnswer::Unextracted => Answer::Unextracted,
            FlatAnswer::Text(t) => Answer::Text(t.to_string()),
        }
    }
}

impl FlatRow<'_> {
    /// The same row as an owned [`Record`].
    pub fn into_record(self) -> Record {
        let mut x = self.extra.map(|b| *b).unwrap_or_default();
        let body = RecordBody::Rollout {
            index: self.index,
            verdict: self.verdict,
            answer: self.answer.to_answer(),
            truncated: self.truncated,
            gold: x.gold.take().map(Cow::into_owned),
            response: x.response.take().map(Cow::into_owned),
            score: None,
            budget: self.budget,
        };
        x.record(self.problem, body)
    }
}

impl FlatExtra<'_> {
    /// A record of `problem` with these labels and `body` (which carries
    /// gold and response, if any).
    fn record(self, problem: Cow<'_, str>, body: RecordBody) -> Record {
        let own = |t: Option<Cow<'_, str>>| t.map(Cow::into_owned);
        Record {
            problem: problem.into_owned(),
            system: own(self.system),
            subset: own(self.subset),
            by_value: own(self.by_value),
            cluster_value: own(self.cluster_value),
            body,
        }
    }
}

/// A count row (`n`, `c`) with its text fields borrowed from the input
/// line: what the byte scanner hands the fold for the row form that has
/// no per-rollout detail. Its meaning is that of the [`Record`] it becomes
/// ([`FlatCounts::into_record`]).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FlatCounts<'a> {
    pub problem: Cow<'a, str>,
    pub n: u64,
    pub c: u64,
    /// The label fields, boxed when any is present (gold and response are
    /// never kept: a count row is not graded).
    pub extra: Option<Box<FlatExtra<'a>>>,
}

impl<'a> FlatCounts<'a> {
    /// A count row; the label fields are boxed only when one is present.
    pub fn new(problem: Cow<'a, str>, n: u64, c: u64, extra: FlatExtra<'a>) -> Self {
        let extra = (extra != FlatExtra::default()).then(|| Box::new(extra));
        FlatCounts {
            problem,
            n,
            c,
            extra,
        }
    }

    pub fn extra(&self) -> Option<&FlatExtra<'a>> {
        self.extra.as_deref()
    }

    /// The same row as an owned [`Record`].
    pub fn into_record(self) -> Record {
        let x = self.extra.map(|b| *b).unwrap_or_default();
        let body = RecordBody::Counts {
            n: self.n,
            c: self.c,
        };
        x.record(self.problem, body)
    }
}

/// `model` and `run` as one system name.
pub(crate) fn join_system<'a>(
    model: Option<Cow<'a, str>>,
    run: Option<Cow<'a, str>>,
) -> Option<Cow<'a, str>> {
    match (model, run) {
        (None, None) => None,
        (Some(a), None) | (None, Some(a)) => Some(a),
        (Some(a), Some(b)) => Some(Cow::Owned(format!("{a}/{b}"))),
    }
}

/// Whether `finish_reason` / `truncated` mark a truncated generation.
pub(crate) fn is_truncated(finish_reason: Option<&str>, truncated: Option<bool>) -> bool {
    finish_reason.is_some_and(|f| TRUNCATION_REASONS.contains(&f)) || truncated == Some(true)
}

/// Parses a flat rollout row, or returns `None` to use the general path.
#[cfg(test)]
pub(crate) fn parse_line(
    line: &[u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
) -> Option<Record> {
    parse_flat(line, by, cluster_by).map(FlatRow::into_record)
}

impl<'a> Row<'a> {
    /// The value of a `--by` or `--cluster-by` field the fast path reads
    /// (`subset`, `group`, `model` or `run`).
    #[inline]
    fn label(&self, field: Option<&str>) -> Option<Cow<'a, str>> {
        match field? {
            "subset" => self.subset.as_ref().map(|t| t.0.clone()),
            "group" => self.group.as_ref().map(|t| t.0.clone()),
            "model" => self.model.as_ref().map(|t| t.0.clone()),
            "run" => self.run.as_ref().map(|t| t.0.clone()),
            _ => None,
        }
    }

    /// The row's verdict, `Some(None)` for a row to grade; `None` when the
    /// row has none (the general path names the error).
    #[inline]
    fn verdict(&self) -> Option<Option<Verdict>> {
        let failed_status = self.status.as_ref().is_some_and(|s| is_failed_status(&s.0));
        Some(match (&self.correct, failed_status) {
            (_, true) => Some(Verdict::Failed),
            (Some(Some(c)), _) => Some(c.0),
            (Some(None), _) => Some(Verdict::Failed),
            (None, _)
                if self.gold.is_some() && (self.answer.is_some() || self.response.is_some()) =>
            {
                None
            }
            (None, _) => return None,
        })
    }
}

/// Parses a flat rollout row with serde into borrowed fields, or returns
/// `None` to use the general path.
pub(crate) fn parse_flat<'a>(
    line: &'a [u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
) -> Option<FlatRow<'a>> {
    let mut row: Row<'a> = serde_json::from_slice(line).ok()?;
    if row.counts {
        return None;
    }
    let problem = row.problem.take()?.0;
    if problem.is_empty() {
        return None;
    }
    let by_value = row.label(by);
    let cluster_value = row.label(cluster_by);
    let verdict = row.verdict()?;
    let answer = match row.answer {
        None => FlatAnswer::Unknown,
        Some(None) => FlatAnswer::Unextracted,
        Some(Some(t)) => FlatAnswer::Text(t.0),
    };
    let truncated = is_truncated(
        row.finish_reason.as_ref().map(|f| f.0.as_ref()),
        row.truncated,
    );
    let system = join_system(row.model.map(|t| t.0), row.run.map(|t| t.0));
    // Gold and response are only needed to grade a row without a verdict.
    let (gold, response) = if verdict.is_none() {
        (row.gold.map(|t| t.0), row.response.map(|t| t.0))
    } else {
        (None, None)
    };
    // A negative budget is an error the general path names.
    if row.output_tokens.is_some_and(|x| x < 0.0) {
        return None;
    }
    let mut flat = FlatRow::new(
        problem,
        row.rollout,
        verdict,
        answer,
        truncated,
        FlatExtra {
            system,
            subset: row.subset.map(|t| t.0),
            by_value,
            cluster_value,
            gold,
            response,
        },
    );
    flat.budget = row.output_tokens;
    Some(flat)
}

/// A record as the fast path builds it: gold and response are kept only
/// when the row must be graded.
pub(crate) fn kept_by_fast_path(mut r: Record) -> Record {
    if let RecordBody::Rollout {
        verdict: Some(_),
        gold,
        response,
        ..
    } = &mut r.body
    {
        *gold = None;
        *response = None;
    }
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    fn general(line: &str, by: Option<&str>) -> Result<Record, String> {
        crate::source::parse_general(line.as_bytes(), by, None, Some(FAST_BUDGET))
    }

    /// Every row the fast path accepts parses to exactly what the general
    /// path gives (modulo gold/response, which the fast path keeps only
    /// when the row must be graded).
    #[test]
    fn fast_path_agrees_with_general_path() {
        let rows = [
            r#"{"problem": "a", "rollout": 3, "correct": true, "answer": "204", "finish_reason": "length"}"#,
            r#"{"problem": 7, "correct": 0, "answer": null, "model": "m", "run": "r", "subset": "s"}"#,
            r#"{"problem": "a\"b", "correct": 1.0, "answer": 12, "group": "g", "extra": {"x": [1, 2]}}"#,
            r#"{"problem": "a", "correct": null, "status": "ok"}"#,
            r#"{"problem": "a", "correct": true, "status": "Error"}"#,
            r#"{"problem": "a", "gold": "1", "response": "so \\boxed{1}"}"#,
            r#"{"problem": "a", "gold": "1", "answer": "2", "truncated": true}"#,
            r#"{"problem": "a", "correct": true, "n": null, "x": {"y": {"y": 1}}}"#,
        ];
        for line in rows {
            let fast = parse_line(line.as_bytes(), Some("group"), None).expect(line);
            let slow = kept_by_fast_path(general(line, Some("group")).unwrap());
            assert_eq!(fast, slow, "{line}");
        }
    }

    #[test]
    fn unusual_rows_take_the_general_path() {
        for line in [
            r#"{"problem": "a", "correct": [true, false]}"#,
            r#"{"problem": "a", "n": 2, "c": 1}"#,
            r#"{"problem": "a", "correct": "yes"}"#,
            r#"{"problem": 1.5, "correct": true}"#,
            r#"{"correct": true}"#,
            r#"{"problem": "a", "correct": true, "answer": 0.5}"#,
            r#"{"problem": "a", "correct": true, "correct": false}"#,
            r#"{"problem": "a"}"#,
            r#"{"problem": "", "correct": true}"#,
        ] {
            assert!(parse_line(line.as_bytes(), None, None).is_none(), "{line}");
        }
    }
}
