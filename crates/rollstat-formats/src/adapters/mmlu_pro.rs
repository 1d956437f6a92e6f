//! MMLU-Pro (TIGER-AI-Lab) `eval_results/<model>/<category>_result.json`:
//! a JSON list of questions, each with `question_id`, `options`, `answer`
//! (the gold letter), `pred` (the extracted letter, `null` when none was
//! found), `category` and `response`; `<category>_summary.json` beside it
//! holds the harness's `corr`, `wrong` and `acc` per category and `total`.
//!
//! One rollout per question: `correct` = `pred == answer`, `answer` =
//! `pred` (null = unextracted, and wrong), `gold` = `answer`, `subset` =
//! `category`, `model` = the directory. MMLU-Pro's own scripts score a
//! question without a `pred` by a random guess among its options, so its
//! `acc` exceeds rollstat's pass@1 by the guesses that happened to hit:
//! the reconciliation note names those questions.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input;
use crate::util::{answer_or_null, inner_name, parent_name, problem_id, read_json, Rollout};
use crate::{HarnessAggregate, NativeFile};

/// `mmlu-pro`: a JSON list whose first element has `question_id`,
/// `answer`, `pred` and `category`.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    let keys = ["question_id", "answer", "pred", "category"];
    if p.is_array && keys.iter().all(|k| p.has(k)) {
        Ok(())
    } else {
        Err(p.missing("keys", &keys))
    }
}

/// The summary's `acc` is pass@1.
pub(crate) const AGGREGATES: AggregateDialect =
    AggregateDialect::plain(|name, hints| harness::resolve(&harness::Name::plain(name), hints));

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::MmluPro);
    let text = input::text(path, bytes, &mut file.warnings);
    let Value::Array(items) = read_json(path, &text)? else {
        return Err(FormatError::parse(
            path,
            None,
            "not a JSON list of questions",
            "pass an MMLU-Pro <category>_result.json",
        ));
    };
    let model = parent_name(path).map(Value::from);
    let mut unextracted = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let Some(q) = item.as_object() else {
            file.bad_lines += 1;
            continue;
        };
        let Some(problem) = q.get("question_id").and_then(problem_id) else {
            file.bad_lines += 1;
            let shown = path.display();
            file.warnings
                .push(format!("{shown}: element {i} has no question_id; skipped"));
            continue;
        };
        let r = rollout(q, problem.clone(), &model);
        if r.answer.as_ref().is_some_and(Value::is_null) {
            unextracted.push(problem);
        }
        file.rows.push(r.into_map());
    }
    if let Some(summary) = summary_file(path) {
        attach_summary(&summary, &unextracted, &mut file);
    }
    Ok(file)
}

fn rollout(q: &Map<String, Value>, problem: Value, model: &Option<Value>) -> Rollout {
    let mut r = Rollout::new(problem);
    r.rollout = Some(0);
    let pred = answer_or_null(q.get("pred"), &[]);
    let gold = q.get("answer").cloned();
    r.correct = Some(Value::Bool(!pred.is_null() && Some(&pred) == gold.as_ref()));
    r.answer = Some(pred);
    r.gold = gold;
    r.response = q.get("response").cloned().filter(|v| !v.is_null());
    r.subset = q.get("category").cloned();
    r.model = model.clone();
    if let Some(src) = q.get("src") {
        r.extra("src", src.clone());
    }
    r
}

/// `<category>_summary.json` beside `<category>_result.json`.
fn summary_file(path: &Path) -> Option<PathBuf> {
    let name = inner_name(path);
    let category = name.strip_suffix("_result.json")?;
    let p = path.with_file_name(format!("{category}_summary.json"));
    p.is_file().then_some(p)
}

/// The summary's `acc` for each category, with the questions the harness
/// scored by a random guess named in the note.
fn attach_summary(summary: &Path, unextracted: &[Value], file: &mut NativeFile) {
    let doc = std::fs::read(summary)
        .ok()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let Some(Value::Object(cats)) = doc else {
        return;
    };
    for (cat, v) in cats.iter().filter(|(c, _)| c.as_str() != "total") {
        let Some(acc) = v.get("acc").and_then(Value::as_f64) else {
            continue;
        };
        let ids: Vec<String> = unextracted.iter().map(Value::to_string).collect();
        let mut note = format!("MMLU-Pro summary; task={cat}");
        if !ids.is_empty() {
            note.push_str(&format!(
                "; MMLU-Pro scores a question without a pred by a random guess among its options, \
                 rollstat counts it wrong: {} such questions (question_id {})",
                ids.len(),
                ids.join(", ")
            ));
        }
        file.aggregates.push(HarnessAggregate {
            source_path: summary.to_path_buf(),
            format: Format::MmluPro,
            metric_name: "acc".into(),
            value: acc,
            note,
        });
    }
}
