//! Small helpers shared by the adapters: building canonical rows, reading
//! JSON Lines leniently, and coercing native verdicts.

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::FormatError;

/// A canonical rollout row under construction. `into_map` writes the docs/spec.md §2
/// keys first, in the documented order, then native extras.
#[derive(Debug, Default, Clone)]
pub(crate) struct Rollout {
    pub problem: Value,
    pub rollout: Option<u64>,
    /// `Some(Value::Null)` marks a failed rollout (no verdict).
    pub correct: Option<Value>,
    /// `Some(Value::Null)` marks an unextracted answer.
    pub answer: Option<Value>,
    pub gold: Option<Value>,
    pub response: Option<Value>,
    pub finish_reason: Option<Value>,
    pub output_tokens: Option<Value>,
    pub score: Option<Value>,
    pub group: Option<Value>,
    pub subset: Option<Value>,
    pub model: Option<Value>,
    /// Set when one file holds several evaluations of the same rollouts
    /// (lm-eval filters, inspect scorers), so they are not duplicates.
    pub run: Option<Value>,
    pub extra: Vec<(String, Value)>,
}

impl Rollout {
    pub fn new(problem: Value) -> Self {
        Rollout {
            problem,
            ..Default::default()
        }
    }

    pub fn extra(&mut self, key: &str, value: Value) {
        self.extra.push((key.to_string(), value));
    }

    pub fn into_map(mut self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("problem".into(), self.problem);
        // docs/spec.md §2 text fields are scalars. Several acceptable golds keep the
        // first as `gold` and the list as `golds`; other structures become
        // their JSON text.
        let gold = match self.gold.take() {
            Some(Value::Array(list)) => {
                let first = list.iter().find(|g| !g.is_null()).cloned().map(scalar);
                if list.len() > 1 {
                    self.extra.push(("golds".into(), Value::Array(list)));
                }
                first
            }
            other => other.map(scalar),
        };
        let fields = [
            ("rollout", self.rollout.map(Value::from)),
            ("correct", self.correct),
            ("answer", self.answer.map(scalar)),
            ("gold", gold),
            ("response", self.response.map(scalar)),
            ("finish_reason", self.finish_reason),
            ("output_tokens", self.output_tokens),
            ("score", self.score),
            ("group", self.group),
            ("subset", self.subset),
            ("model", self.model),
            ("run", self.run),
        ];
        for (k, v) in fields {
            if let Some(v) = v {
                m.insert(k.into(), v);
            }
        }
        for (k, v) in self.extra {
            m.entry(k).or_insert(v);
        }
        m
    }
}

/// A JSONL record with its 1-based line number.
/// A record and its line in the file (from 1).
pub type Line = (usize, Map<String, Value>);

/// A JSON scalar as is; an array or object as its compact JSON text.
fn scalar(v: Value) -> Value {
    match v {
        Value::Array(_) | Value::Object(_) => Value::String(v.to_string()),
        other => other,
    }
}

/// Parse JSON Lines leniently: blank lines are skipped, a malformed line is
/// reported in `warnings` as `path:line: reason` and skipped. Returns the
/// 1-based line number with each object. Fails only if no line is valid.
pub(crate) fn read_jsonl(
    path: &Path,
    text: &str,
    warnings: &mut Vec<String>,
    bad_lines: &mut usize,
) -> Result<Vec<Line>, FormatError> {
    if let Some(records) = whole_document(path, text)? {
        return Ok(records);
    }
    let mut out = Vec::new();
    let mut first_err = None;
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        match serde_json::from_str::<Value>(line) {
            Ok(Value::Object(m)) => out.push((i + 1, m)),
            Ok(_) => {
                *bad_lines += 1;
                let msg = format!(
                    "{}:{}: not a JSON object; line skipped",
                    path.display(),
                    i + 1
                );
                first_err.get_or_insert((i + 1, "not a JSON object".to_string()));
                warnings.push(msg);
            }
            Err(e) => {
                *bad_lines += 1;
                first_err.get_or_insert((i + 1, format!("invalid JSON: {e}")));
                warnings.push(format!(
                    "{}:{}: invalid JSON ({e}); line skipped",
                    path.display(),
                    i + 1
                ));
            }
        }
    }
    if out.is_empty() {
        let (line, reason) = first_err.unwrap_or((0, "file is empty".to_string()));
        return Err(FormatError::parse(
            path,
            (line > 0).then_some(line),
            reason,
            "the file holds no valid JSON record; check that it was written completely",
        ));
    }
    Ok(out)
}

/// A whole JSON document where JSON Lines were expected (a pretty-printed
/// object or a list, as a format named by hand may be): its records, each
/// numbered by its line in the file, or one error for the whole file.
/// `None` when the text reads as JSON Lines (its first line is a value by
/// itself).
///
/// ```
/// use std::path::Path;
/// let text = "[\n  {\"problem\": 1},\n  {\"problem\": 2}\n]\n";
/// let rows = rollstat_formats::whole_document(Path::new("a.json"), text).unwrap().unwrap();
/// assert_eq!(rows.iter().map(|(line, _)| *line).collect::<Vec<_>>(), [2, 3]);
/// assert!(rollstat_formats::whole_document(Path::new("a.jsonl"), "{\"problem\": 1}\n").unwrap().is_none());
/// ```
pub fn whole_document(path: &Path, text: &str) -> Result<Option<Vec<Line>>, FormatError> {
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    let Some(first) = first else { return Ok(None) };
    if !first.starts_with(['{', '[']) || serde_json::from_str::<Value>(first).is_ok() {
        return Ok(None);
    }
    let hint = "the file is one JSON document, not JSON Lines (one record per line)";
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let start = text.len() - text.trim_start().len();
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(m)) => Ok(Some(vec![(line_of(start), m)])),
        Ok(Value::Array(items)) if items.iter().all(Value::is_object) && !items.is_empty() => {
            // Each record's line: where its object starts in the file.
            let starts = element_starts(text);
            let out = items
                .into_iter()
                .enumerate()
                .filter_map(|(i, item)| match item {
                    Value::Object(m) => Some((starts.get(i).map_or(i + 1, |&o| line_of(o)), m)),
                    _ => None,
                })
                .collect();
            Ok(Some(out))
        }
        Ok(_) => Err(FormatError::parse(
            path,
            None,
            "a JSON document that is neither an object nor a list of objects",
            hint,
        )),
        Err(e) => Err(FormatError::parse(
            path,
            Some(e.line()),
            format!("invalid JSON: {e}"),
            "the file is neither JSON Lines nor one valid JSON document; check that it was written completely",
        )),
    }
}

/// Byte offsets where the elements of a top-level JSON list start (the
/// text is known to be one valid list).
fn element_starts(text: &str) -> Vec<usize> {
    let (mut depth, mut in_str, mut escaped) = (0u32, false, false);
    let mut starts = Vec::new();
    for (i, b) in text.bytes().enumerate() {
        if in_str {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_str = false,
                _ => {}
            }
            continue;
        }
        match b {
            b'"' => in_str = true,
            b'{' | b'[' => {
                if depth == 1 && b == b'{' {
                    starts.push(i);
                }
                depth += 1;
            }
            b'}' | b']' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    starts
}

/// Parse a whole JSON document.
pub(crate) fn read_json(path: &Path, text: &str) -> Result<Value, FormatError> {
    serde_json::from_str(text).map_err(|e| {
        FormatError::parse(
            path,
            Some(e.line()),
            format!("invalid JSON: {e}"),
            "the file is not valid JSON; check that it was written completely",
        )
    })
}

/// A 0/1-ish verdict: bools, 0/1 numbers, "true"/"false". `None` if the value
/// is not binary.
pub(crate) fn as_verdict(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::Number(n) => {
            let f = n.as_f64()?;
            if f == 1.0 {
                Some(true)
            } else if f == 0.0 {
                Some(false)
            } else {
                None
            }
        }
        Value::String(s) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Some(true),
            "false" | "no" | "0" => Some(false),
            _ => None,
        },
        _ => None,
    }
}

/// An integer-valued JSON value (also `3.0` and `"3"`).
pub(crate) fn as_index(v: &Value) -> Option<u64> {
    match v {
        Value::Number(n) => n.as_u64().or_else(|| {
            n.as_f64()
                .filter(|f| *f >= 0.0 && f.fract() == 0.0)
                .map(|f| f as u64)
        }),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A problem id: integers stay integers, strings stay strings.
pub(crate) fn problem_id(v: &Value) -> Option<Value> {
    match v {
        Value::Number(n) if n.is_u64() || n.is_i64() => Some(v.clone()),
        Value::Number(n) => n
            .as_f64()
            .filter(|f| f.fract() == 0.0)
            .map(|f| Value::from(f as i64)),
        Value::String(s) if !s.is_empty() => Some(v.clone()),
        _ => None,
    }
}

/// A string answer, with the given sentinels meaning "not extracted".
pub(crate) fn answer_or_null(v: Option<&Value>, sentinels: &[&str]) -> Value {
    match v {
        None | Some(Value::Null) => Value::Null,
        Some(Value::String(s)) if s.trim().is_empty() || sentinels.contains(&s.trim()) => {
            Value::Null
        }
        Some(other) => other.clone(),
    }
}

/// The file name without directories and without `.gz`/`.zst`.
pub(crate) fn inner_name(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    for suf in [".gz", ".zst", ".zstd"] {
        if let Some(stripped) = name.strip_suffix(suf) {
            return stripped.to_string();
        }
    }
    name
}

/// Name of the directory holding `path` (for `model` from harness layouts).
pub(crate) fn parent_name(path: &Path) -> Option<String> {
    path.parent()
        .and_then(|p| p.file_name())
        .map(|n| n.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
}

/// Text of a chat message `content` (string or list of typed parts).
pub(crate) fn content_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter_map(|p| match p {
                    Value::String(s) => Some(s.as_str()),
                    Value::Object(o) => o.get("text").and_then(Value::as_str),
                    _ => None,
                })
                .collect();
            (!texts.is_empty()).then(|| texts.join(""))
        }
        _ => None,
    }
}

/// Pull numeric leaves from a JSON tree as `(dotted.key, value)`.
pub(crate) fn numeric_leaves(prefix: &str, v: &Value, out: &mut Vec<(String, f64)>) {
    match v {
        Value::Number(n) => {
            if let Some(f) = n.as_f64() {
                out.push((prefix.to_string(), f));
            }
        }
        Value::Object(m) => {
            for (k, child) in m {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                numeric_leaves(&key, child, out);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rows_keep_spec_order_and_scalar_text_fields() {
        let mut r = Rollout::new(json!(7));
        r.extra("filter", json!("none"));
        r.model = Some(json!("m"));
        r.gold = Some(json!(["A", "B"]));
        r.answer = Some(json!({"x": 1}));
        r.correct = Some(Value::Null);
        r.rollout = Some(2);
        let m = r.into_map();
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["problem", "rollout", "correct", "answer", "gold", "model", "filter", "golds"]
        );
        assert_eq!(m["gold"], "A");
        assert_eq!(m["golds"], json!(["A", "B"]));
        assert_eq!(m["answer"], "{\"x\":1}");
    }

    #[test]
    fn verdicts_and_sentinels() {
        assert_eq!(as_verdict(&json!(1.0)), Some(true));
        assert_eq!(as_verdict(&json!("No")), Some(false));
        assert_eq!(as_verdict(&json!(0.5)), None);
        assert_eq!(
            answer_or_null(Some(&json!(" [invalid] ")), &["[invalid]"]),
            Value::Null
        );
        assert_eq!(answer_or_null(Some(&json!("")), &[]), Value::Null);
        assert_eq!(answer_or_null(Some(&json!(3)), &[]), json!(3));
        assert_eq!(as_index(&json!("4")), Some(4));
        assert_eq!(as_index(&json!(-1)), None);
    }
}

thread_local! {
    /// Set while [`quietly_catch`] runs on this thread.
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Runs `f`, turning a panic inside it into `None` without the default
/// hook's "thread … panicked" message and backtrace: a third-party decoder
/// that panics on malformed input is bad input, reported as such by the
/// caller. Panics on other threads, or outside `f`, still reach the hook
/// that was installed before (it is wrapped once, process-wide).
///
/// ```
/// assert_eq!(rollstat_formats::quietly_catch(|| 2 + 2), Some(4));
/// assert_eq!(rollstat_formats::quietly_catch(|| -> u8 { panic!("bad input") }), None);
/// ```
pub fn quietly_catch<T>(f: impl FnOnce() -> T) -> Option<T> {
    static WRAP: std::sync::Once = std::sync::Once::new();
    WRAP.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
    let was = QUIET.with(|q| q.replace(true));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).ok();
    QUIET.with(|q| q.set(was));
    out
}
