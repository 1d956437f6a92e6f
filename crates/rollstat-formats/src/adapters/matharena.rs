//! MathArena outputs: `outputs/<comp>/<solver>/<idx>.json.zst` (current) or
//! `<idx>.json` (Feb-2025), one object per problem; and the HF export with
//! one row per run (`problem_idx`, `idx_answer`, `parsed_answer`, `correct`).
//!
//! Per-problem object: rollout i = `answers[i]` (the string `"None"`, MathArena's
//! marker for an unextracted answer, → `answer: null`), `correct[i]` (a
//! non-boolean such as `"TODO Grading"` → `correct: null`), `messages[i]`'s last
//! assistant message as `response`, `detailed_costs[i].output_tokens`, and
//! `warnings[i]` kept as `warning`. The old layout has no `correct` list: rows
//! then carry `gold` + `answer` for rollstat to grade.

use std::path::Path;

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::input;
use crate::util::{
    answer_or_null, as_index, content_text, parent_name, problem_id, read_json, read_jsonl, Rollout,
};
use crate::NativeFile;

// ---- Detection and aggregate names (this format's registry entry) ----

/// `matharena`: an object with `idx`, `answers` and `N`/`correct`/
/// `gold_answer`, or HF-export rows with `problem_idx`, `idx_answer`.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    if (p.has("idx") && p.has("answers") && p.has_any(&["N", "correct", "gold_answer"]))
        || (p.has("problem_idx") && p.has("idx_answer"))
    {
        Ok(())
    } else {
        Err(p.missing("keys", &["idx", "answers", "N"]))
    }
}

const UNEXTRACTED: &[&str] = &["None"];

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::MathArena);
    let text = input::text(path, bytes, &mut file.warnings);
    let trimmed = text.trim_start();
    let is_single_doc = serde_json::from_str::<Value>(&text).ok();
    match is_single_doc {
        Some(Value::Object(obj)) if obj.contains_key("answers") => {
            map_problem(path, &obj, &mut file)?;
        }
        Some(Value::Object(obj)) => map_export_row(0, &obj, &mut file),
        Some(Value::Array(rows)) => {
            for (i, r) in rows.iter().enumerate() {
                match r.as_object() {
                    Some(o) => map_export_row(i, o, &mut file),
                    None => file.bad_lines += 1,
                }
            }
        }
        _ if trimmed.starts_with('{') => {
            let lines = read_jsonl(path, &text, &mut file.warnings, &mut file.bad_lines)?;
            for (line, obj) in lines {
                map_export_row(line, &obj, &mut file);
            }
        }
        _ => {
            read_json(path, &text)?;
        }
    }
    Ok(file)
}

fn map_problem(
    path: &Path,
    obj: &Map<String, Value>,
    file: &mut NativeFile,
) -> Result<(), FormatError> {
    let problem = obj
        .get("idx")
        .and_then(problem_id)
        .or_else(|| {
            crate::util::inner_name(path)
                .split('.')
                .next()
                .map(|s| s.parse::<u64>().map(Value::from).unwrap_or(Value::from(s)))
        })
        .unwrap_or(Value::Null);
    let answers = obj
        .get("answers")
        .and_then(Value::as_array)
        .ok_or_else(|| {
            FormatError::parse(
                path,
                None,
                "\"answers\" is not a list",
                "pass a MathArena per-problem output file",
            )
        })?;
    let correct = obj.get("correct").and_then(Value::as_array);
    let messages = obj.get("messages").and_then(Value::as_array);
    let costs = obj.get("detailed_costs").and_then(Value::as_array);
    let warnings = obj.get("warnings").and_then(Value::as_array);
    let n_requested = obj.get("N").and_then(as_index);
    if let Some(want) = n_requested {
        if (answers.len() as u64) < want {
            file.warnings.push(format!(
                "{}: problem {problem} has {} of N = {want} runs",
                path.display(),
                answers.len()
            ));
        }
    }
    if correct.is_none() {
        file.warnings.push(format!(
            "{}: no `correct` list (pre-2025-10 layout): rows carry gold + answer for rollstat to grade",
            path.display()
        ));
    }
    let model = parent_name(path).map(Value::from);
    for (i, a) in answers.iter().enumerate() {
        let mut r = Rollout::new(problem.clone());
        r.rollout = Some(i as u64);
        if let Some(c) = correct {
            r.correct = Some(
                c.get(i)
                    .and_then(Value::as_bool)
                    .map(Value::Bool)
                    .unwrap_or(Value::Null),
            );
        }
        r.answer = Some(answer_or_null(Some(a), UNEXTRACTED));
        r.gold = obj.get("gold_answer").cloned().filter(|g| !g.is_null());
        r.response = messages
            .and_then(|m| m.get(i))
            .and_then(Value::as_array)
            .and_then(|conv| {
                conv.iter()
                    .rev()
                    .find(|m| m.get("role").and_then(Value::as_str) == Some("assistant"))
            })
            .and_then(|m| m.get("content"))
            .and_then(content_text)
            .map(Value::from);
        r.output_tokens = costs
            .and_then(|c| c.get(i))
            .and_then(|c| c.get("output_tokens"))
            .cloned();
        r.model = model.clone();
        if let Some(w) = warnings.and_then(|w| w.get(i)) {
            r.extra("warning", w.clone());
        }
        file.rows.push(r.into_map());
    }
    Ok(())
}

fn map_export_row(line: usize, obj: &Map<String, Value>, file: &mut NativeFile) {
    let Some(problem) = obj.get("problem_idx").and_then(problem_id) else {
        file.bad_lines += 1;
        file.warnings.push(format!(
            "{}:{line}: no problem_idx; skipped",
            file.path.display()
        ));
        return;
    };
    let mut r = Rollout::new(problem);
    r.rollout = obj.get("idx_answer").and_then(as_index);
    if obj.contains_key("correct") {
        r.correct = Some(
            obj.get("correct")
                .and_then(Value::as_bool)
                .map(Value::Bool)
                .unwrap_or(Value::Null),
        );
    }
    if obj.contains_key("parsed_answer") {
        r.answer = Some(answer_or_null(obj.get("parsed_answer"), UNEXTRACTED));
    }
    r.gold = obj.get("gold_answer").cloned();
    r.response = obj.get("answer").cloned();
    r.output_tokens = obj.get("output_tokens").cloned();
    r.model = obj.get("model_name").cloned();
    file.rows.push(r.into_map());
}
