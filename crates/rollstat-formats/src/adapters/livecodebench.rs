//! LiveCodeBench (`lcb_runner`) `<scenario>_eval_all.json`: a JSON list of
//! problems, each with `question_id`, `difficulty`, `platform`, one
//! generated program per sample in `code_list` and its verdict in
//! `graded_list`, plus the problem's own `pass@1`.
//!
//! Rollout i of problem `question_id` = `graded_list[i]` (`correct`; a
//! non-boolean → `correct: null`), `code_list[i]` (`response`); `group` =
//! `difficulty`, `platform` and `contest_date` kept. The `<scenario>_eval.json`
//! beside it holds the harness's `pass@k` over all problems (the unbiased
//! estimator, as rollstat's), reconciled.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input;
use crate::util::{inner_name, problem_id, read_json, Rollout};
use crate::{HarnessAggregate, NativeFile};

/// `livecodebench`: a JSON list whose first element has `question_id` and
/// `graded_list`.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    if p.is_array && p.has("question_id") && p.has("graded_list") {
        Ok(())
    } else {
        Err(p.missing("keys", &["question_id", "graded_list"]))
    }
}

/// `_eval.json` names are `pass@k`.
pub(crate) const AGGREGATES: AggregateDialect =
    AggregateDialect::plain(|name, hints| harness::resolve(&harness::Name::plain(name), hints));

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::LiveCodeBench);
    let text = input::text(path, bytes, &mut file.warnings);
    let Value::Array(items) = read_json(path, &text)? else {
        return Err(FormatError::parse(
            path,
            None,
            "not a JSON list of problems",
            "pass a LiveCodeBench *_eval_all.json",
        ));
    };
    for (i, item) in items.iter().enumerate() {
        let problem = item.get("question_id").and_then(problem_id);
        let (Some(q), Some(problem)) = (item.as_object(), problem) else {
            file.bad_lines += 1;
            let shown = path.display();
            file.warnings
                .push(format!("{shown}: element {i} has no question_id; skipped"));
            continue;
        };
        file.rows
            .extend(rollouts(q, problem).into_iter().map(Rollout::into_map));
    }
    if let Some(eval) = eval_file(path) {
        attach_eval(&eval, &mut file);
    }
    Ok(file)
}

fn rollouts(q: &Map<String, Value>, problem: Value) -> Vec<Rollout> {
    let graded = q.get("graded_list").and_then(Value::as_array);
    let codes = q.get("code_list").and_then(Value::as_array);
    (graded.into_iter().flatten().enumerate())
        .map(|(i, g)| {
            let mut r = Rollout::new(problem.clone());
            r.rollout = Some(i as u64);
            r.correct = Some(g.as_bool().map_or(Value::Null, Value::Bool));
            r.response = codes.and_then(|c| c.get(i)).cloned();
            r.group = q.get("difficulty").cloned();
            for key in ["platform", "contest_date"] {
                if let Some(v) = q.get(key) {
                    r.extra(key, v.clone());
                }
            }
            r
        })
        .collect()
}

/// `<scenario>_eval.json` beside `<scenario>_eval_all.json`.
fn eval_file(path: &Path) -> Option<PathBuf> {
    let name = inner_name(path);
    let stem = name.strip_suffix("_eval_all.json")?;
    let p = path.with_file_name(format!("{stem}_eval.json"));
    p.is_file().then_some(p)
}

/// `_eval.json` larger than this is not read.
const MAX_EVAL_BYTES: u64 = 64 << 20;

/// The first element's `pass@k` numbers.
fn attach_eval(eval: &Path, file: &mut NativeFile) {
    let small = std::fs::metadata(eval).is_ok_and(|m| m.len() <= MAX_EVAL_BYTES);
    let doc = small
        .then(|| std::fs::read(eval).ok())
        .flatten()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let first = match doc {
        Some(Value::Array(items)) => items.into_iter().next(),
        other => other,
    };
    let Some(Value::Object(metrics)) = first else {
        return;
    };
    for (name, v) in metrics.iter().filter(|(n, _)| n.starts_with("pass@")) {
        let Some(value) = v.as_f64() else { continue };
        file.aggregates.push(HarnessAggregate {
            source_path: eval.to_path_buf(),
            format: Format::LiveCodeBench,
            metric_name: name.clone(),
            value,
            note: "LiveCodeBench _eval.json; the unbiased pass@k over every problem".into(),
        });
    }
}
