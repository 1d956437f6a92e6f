//! Field maps: canonical rows from records of any layout.
//!
//! A map names, for each canonical field, where its value is in a record,
//! and optionally where the records are in a document:
//!
//! ```text
//! problem=idx,correct=score,answers=pred,gold=gt
//! records=results.*.examples[],problem=id,answers=model_answers,gold=answer
//! ```
//!
//! # Path grammar
//!
//! A path is steps joined by `.`:
//! - `name` — the value of key `name` in an object;
//! - `name[]` or `[]` — every element of a list (the rest of the path is
//!   applied to each);
//! - `*` — every value of an object (in `records=`, the key it was found
//!   under becomes the row's `subset` unless `subset` is mapped).
//!
//! `records=PATH` says where the records are (default: each JSON Lines
//! line, CSV or Parquet row, each element of a JSON list, or a JSON object
//! itself). Every other entry is `FIELD=PATH` relative to a record; FIELD is
//! a canonical field (`problem`, `correct`, `answer`, `gold`, `response`,
//! `score`, `rollout`, `subset`, `model`, `group`, `output_tokens`, …; the
//! plurals `answers`, `responses`, `scores` and `verdicts` name the same
//! fields) or any column to keep (for a breakdown). `problem` is required.
//! When `correct`, `answer`, `response` or `score` is a list, a record is
//! one problem with one rollout per element (the other fields repeat).
//!
//! ```
//! use rollstat_io::field_map::FieldMap;
//! let map: FieldMap = "problem=idx,correct=score,answers=pred,gold=gt".parse().unwrap();
//! let rec = serde_json::json!({"idx": 3, "gt": "7", "pred": ["7", "8"], "score": [true, false]});
//! let rows = map.rows(&rec, None).unwrap();
//! assert_eq!(rows.len(), 2);
//! assert_eq!(rows[1]["answer"], "8");
//! assert_eq!(rows[1]["correct"], false);
//! assert_eq!(rows[1]["rollout"], 1);
//! ```

use std::fmt;
use std::str::FromStr;

use serde_json::{Map, Value};

/// One step of a [`FieldPath`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// The value of a key.
    Key(String),
    /// Every element of a list (`[]`).
    Each,
    /// Every value of an object (`*`).
    Values,
}

/// A path into a JSON value (see the module doc for the grammar).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldPath(pub Vec<Step>);

/// Where each canonical field is in a record, and where the records are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FieldMap {
    /// Where the records are in a document; `None`: the input's own records.
    pub records: Option<FieldPath>,
    /// (canonical field, path in a record), in the order given.
    pub fields: Vec<(String, FieldPath)>,
}

/// Why a field map could not be parsed or applied.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldMapError {
    /// An entry is not `FIELD=PATH`, or its path does not parse.
    #[error("field map entry {entry:?}: {reason}")]
    Syntax {
        /// The entry as written.
        entry: String,
        /// What is wrong with it.
        reason: String,
    },
    /// No `problem=` entry.
    #[error("the field map has no problem=PATH entry (every row needs a problem id)")]
    NoProblem,
    /// A mapped key is not in a record.
    #[error("{field}={path}: no key {key:?} in {record} (its keys: {})", keys.join(", "))]
    Missing {
        /// The canonical field.
        field: String,
        /// The path as written.
        path: String,
        /// The key that was not found.
        key: String,
        /// Which record (`record 1`, `the document`).
        record: String,
        /// The keys that do exist where it was looked up.
        keys: Vec<String>,
    },
    /// A value cannot be what its field needs (a verdict that is not
    /// true/false/0/1, a list as a problem id).
    #[error("{field}={path}: {reason} in {record}")]
    Value {
        /// The canonical field.
        field: String,
        /// The path as written.
        path: String,
        /// What is wrong with the value.
        reason: String,
        /// Which record.
        record: String,
    },
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for s in &self.0 {
            match s {
                Step::Each => f.write_str("[]")?,
                Step::Key(k) => {
                    if !first {
                        f.write_str(".")?;
                    }
                    f.write_str(k)?;
                }
                Step::Values => f.write_str(if first { "*" } else { ".*" })?,
            }
            first = false;
        }
        Ok(())
    }
}

impl FromStr for FieldPath {
    type Err = String;

    /// `a.b[].c`, `*`, `[]`.
    fn from_str(s: &str) -> Result<Self, String> {
        let mut steps = Vec::new();
        for part in s.trim().split('.') {
            let (name, lists) = split_brackets(part)?;
            match name {
                "" if lists == 0 => return Err("an empty step".into()),
                "" => {}
                "*" => steps.push(Step::Values),
                k => steps.push(Step::Key(k.to_string())),
            }
            steps.extend(std::iter::repeat_n(Step::Each, lists));
        }
        Ok(FieldPath(steps))
    }
}

/// `name[][]` → (`name`, 2).
fn split_brackets(part: &str) -> Result<(&str, usize), String> {
    let mut name = part;
    let mut lists = 0;
    while let Some(rest) = name.strip_suffix("[]") {
        name = rest;
        lists += 1;
    }
    if name.contains('[') || name.contains(']') {
        return Err(format!(
            "{part:?}: only an empty [] (every element) is allowed"
        ));
    }
    Ok((name, lists))
}

/// The canonical field a map target names (`answers` → `answer`).
fn canonical(target: &str) -> &str {
    match target {
        "answers" => "answer",
        "responses" => "response",
        "scores" => "score",
        "verdicts" | "verdict" => "correct",
        "golds" => "gold",
        other => other,
    }
}

impl FromStr for FieldMap {
    type Err = FieldMapError;

    fn from_str(s: &str) -> Result<Self, FieldMapError> {
        let mut map = FieldMap {
            records: None,
            fields: Vec::new(),
        };
        for entry in s.split(',').map(str::trim).filter(|e| !e.is_empty()) {
            let syntax = |reason: String| FieldMapError::Syntax {
                entry: entry.to_string(),
                reason,
            };
            let (target, path) = entry
                .split_once('=')
                .ok_or_else(|| syntax("not FIELD=PATH".into()))?;
            let path: FieldPath = path.parse().map_err(syntax)?;
            match canonical(target.trim()) {
                "" => return Err(syntax("no field name before =".into())),
                "records" => map.records = Some(path),
                t => map.fields.push((t.to_string(), path)),
            }
        }
        if !map.fields.iter().any(|(t, _)| t == "problem") {
            return Err(FieldMapError::NoProblem);
        }
        Ok(map)
    }
}

impl fmt::Display for FieldMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = self
            .records
            .iter()
            .map(|r| format!("records={r}"))
            .collect();
        parts.extend(self.fields.iter().map(|(t, p)| format!("{t}={p}")));
        f.write_str(&parts.join(","))
    }
}

/// Fields that hold one value per rollout when they are lists.
const PER_ROLLOUT: &[&str] = &["correct", "answer", "response", "score"];

impl FieldMap {
    /// The records of a document, each with the `*` key it was found under
    /// (the last one, when the records path has several).
    pub fn records<'v>(
        &self,
        doc: &'v Value,
    ) -> Result<Vec<(Option<String>, &'v Value)>, FieldMapError> {
        let Some(path) = &self.records else {
            return Ok(match doc {
                Value::Array(items) => items.iter().map(|v| (None, v)).collect(),
                v => vec![(None, v)],
            });
        };
        let mut out = vec![(None, doc)];
        for step in &path.0 {
            let mut next = Vec::new();
            for (label, v) in out {
                match (step, v) {
                    (Step::Key(k), Value::Object(m)) => match m.get(k) {
                        Some(x) => next.push((label, x)),
                        None => return Err(missing("records", path, k, "the document", m)),
                    },
                    (Step::Each, Value::Array(a)) => {
                        next.extend(a.iter().map(|x| (label.clone(), x)))
                    }
                    (Step::Values, Value::Object(m)) => {
                        next.extend(m.iter().map(|(k, x)| (Some(k.clone()), x)))
                    }
                    _ => {}
                }
            }
            out = next;
        }
        Ok(out)
    }

    /// The canonical rows of one record (`star`: the `*` key of its
    /// records path, the row's `subset` unless one is mapped).
    pub fn rows(
        &self,
        record: &Value,
        star: Option<&str>,
    ) -> Result<Vec<Map<String, Value>>, FieldMapError> {
        self.rows_of(record, star, "the record")
    }

    /// [`FieldMap::rows`], naming the record in errors (`record 3`).
    pub fn rows_of(
        &self,
        record: &Value,
        star: Option<&str>,
        which: &str,
    ) -> Result<Vec<Map<String, Value>>, FieldMapError> {
        let mut values = Vec::with_capacity(self.fields.len());
        for (field, path) in &self.fields {
            let v = resolve(record, path, field, which)?;
            values.push((field.as_str(), path, v));
        }
        let n = values
            .iter()
            .filter(|(f, _, _)| PER_ROLLOUT.contains(f))
            .filter_map(|(_, _, v)| v.as_array().map(Vec::len))
            .max();
        let mut rows = Vec::new();
        for i in 0..n.unwrap_or(1) {
            let mut row = Map::new();
            for (field, path, v) in &values {
                let v = match (n, v) {
                    (Some(_), Value::Array(a)) if PER_ROLLOUT.contains(field) => {
                        a.get(i).cloned().unwrap_or(Value::Null)
                    }
                    _ => v.clone(),
                };
                row.insert(field.to_string(), coerce(field, path, v, which)?);
            }
            if n.is_some() {
                row.entry("rollout").or_insert(Value::from(i as u64));
            }
            if let Some(s) = star {
                row.entry("subset").or_insert(Value::from(s));
            }
            rows.push(row);
        }
        Ok(rows)
    }
}

fn missing(
    field: &str,
    path: &FieldPath,
    key: &str,
    which: &str,
    m: &Map<String, Value>,
) -> FieldMapError {
    FieldMapError::Missing {
        field: field.to_string(),
        path: path.to_string(),
        key: key.to_string(),
        record: which.to_string(),
        keys: m.keys().cloned().collect(),
    }
}

/// The value at `path` in `v`; `[]` and `*` collect a list.
fn resolve(v: &Value, path: &FieldPath, field: &str, which: &str) -> Result<Value, FieldMapError> {
    fn go(
        v: &Value,
        steps: &[Step],
        ctx: (&FieldPath, &str, &str),
    ) -> Result<Value, FieldMapError> {
        let Some((step, rest)) = steps.split_first() else {
            return Ok(v.clone());
        };
        let (path, field, which) = ctx;
        match (step, v) {
            (Step::Key(k), Value::Object(m)) => match m.get(k) {
                Some(x) => go(x, rest, ctx),
                None => Err(missing(field, path, k, which, m)),
            },
            (Step::Key(k), other) => Err(FieldMapError::Value {
                field: field.to_string(),
                path: path.to_string(),
                reason: format!("key {k:?} looked up in a {}, not an object", kind(other)),
                record: which.to_string(),
            }),
            (Step::Each, Value::Array(a)) => a.iter().map(|x| go(x, rest, ctx)).collect(),
            (Step::Values, Value::Object(m)) => m.values().map(|x| go(x, rest, ctx)).collect(),
            (_, other) => Err(FieldMapError::Value {
                field: field.to_string(),
                path: path.to_string(),
                reason: format!("[] or * applied to a {}", kind(other)),
                record: which.to_string(),
            }),
        }
    }
    go(v, &path.0, (path, field, which))
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
    }
}

/// A verdict as a boolean (true/false, 1/0, "true"/"false"/"1"/"0"), a
/// problem id as a scalar; other fields as they are.
fn coerce(field: &str, path: &FieldPath, v: Value, which: &str) -> Result<Value, FieldMapError> {
    let bad = |reason: String| FieldMapError::Value {
        field: field.to_string(),
        path: path.to_string(),
        reason,
        record: which.to_string(),
    };
    match field {
        "correct" => match &v {
            Value::Null | Value::Bool(_) => Ok(v),
            Value::Number(n) if n.as_f64() == Some(1.0) => Ok(Value::Bool(true)),
            Value::Number(n) if n.as_f64() == Some(0.0) => Ok(Value::Bool(false)),
            Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" => Ok(Value::Bool(true)),
                "false" | "0" | "no" => Ok(Value::Bool(false)),
                "" => Ok(Value::Null),
                _ => Err(bad(format!("{v} is not a verdict (true/false or 1/0)"))),
            },
            _ => Err(bad(format!("{v} is not a verdict (true/false or 1/0)"))),
        },
        "problem" => match &v {
            Value::String(s) if !s.is_empty() => Ok(v),
            Value::Number(_) => Ok(v),
            _ => Err(bad(format!(
                "{v} is not a problem id (a string or a number)"
            ))),
        },
        _ => Ok(v),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn paths_parse_and_print_back() {
        for s in ["a", "results.*.examples[]", "[]", "a.b[][]", "*"] {
            let p: FieldPath = s.parse().unwrap();
            assert_eq!(p.to_string(), s);
        }
        assert_eq!(
            "results.*.examples[]".parse::<FieldPath>().unwrap().0,
            [
                Step::Key("results".into()),
                Step::Values,
                Step::Key("examples".into()),
                Step::Each
            ]
        );
        assert!("a[0]".parse::<FieldPath>().is_err());
        assert!("a..b".parse::<FieldPath>().is_err());
    }

    /// Records under `results.*.examples[]`: the task key becomes the
    /// subset, each answer a rollout.
    #[test]
    fn nested_records_and_lists_expand() {
        let map: FieldMap =
            "records=results.*.examples[],problem=id,answers=model_answers,gold=answer"
                .parse()
                .unwrap();
        let doc = json!({"results": {"AIME": {"examples": [
            {"id": 1, "answer": "5", "model_answers": ["5", "", "4"]}
        ]}, "AMC": {"examples": [{"id": 2, "answer": "3", "model_answers": ["3"]}]}}});
        let recs = map.records(&doc).unwrap();
        assert_eq!(recs.len(), 2);
        let rows: Vec<_> = recs
            .iter()
            .flat_map(|(s, r)| map.rows(r, s.as_deref()).unwrap())
            .collect();
        assert_eq!(rows.len(), 4);
        assert_eq!(
            rows[2],
            json!({"problem": 1, "answer": "4", "gold": "5", "rollout": 2, "subset": "AIME"})
                .as_object()
                .unwrap()
                .clone()
        );
        assert_eq!(rows[3]["subset"], "AMC");
    }

    #[test]
    fn a_missing_key_is_named_with_the_keys_that_exist() {
        let map: FieldMap = "problem=idx,correct=passed".parse().unwrap();
        let e = map
            .rows_of(&json!({"idx": 1, "ok": true}), None, "record 4")
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "correct=passed: no key \"passed\" in record 4 (its keys: idx, ok)"
        );
        assert_eq!(
            "correct=x".parse::<FieldMap>(),
            Err(FieldMapError::NoProblem)
        );
        let e = map
            .rows(&json!({"idx": 1, "passed": 0.5}), None)
            .unwrap_err();
        assert!(e.to_string().contains("0.5 is not a verdict"), "{e}");
    }
}
