//! evalchemy `results_<date>.json`: `results.<task>` holds the task's
//! `examples[]` and its aggregates. Math tasks (AIME, AMC23, MATH500, …)
//! keep every repetition's extracted answer in `model_answers[i]` (and the
//! generation in `model_outputs[i]`) with the gold in `answer` or
//! `expected_answer`, and no verdict: rows carry gold + answer for
//! rollstat to grade, and `accuracy_avg` (the mean over repetitions of
//! the fraction solved) is reconciled with rollstat's pass@1.
//!
//! LiveCodeBench keeps one verdict per problem (`correctness`, with
//! `difficulty`), and only for the last of its repetitions: rows are that
//! run's, reconciled with the last entry of `raw_metrics`; its
//! `accuracy_avg` (over every repetition) is listed with no rollstat
//! counterpart, since the other runs' verdicts are not in the file.

use std::path::Path;

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect, Name};
use crate::input;
use crate::util::{answer_or_null, as_verdict, parent_name, problem_id, read_json, Rollout};
use crate::{HarnessAggregate, NativeFile};

/// `evalchemy`: one object whose `results` map tasks to `examples` and
/// `accuracy_avg`.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    let why = || p.missing("keys", &["results", "examples", "accuracy_avg"]);
    if p.is_jsonl || p.is_array || !p.has("results") {
        return Err(why());
    }
    let fits = match p.first_obj() {
        Some(doc) => doc
            .get("results")
            .and_then(Value::as_object)
            .is_some_and(|r| {
                r.values()
                    .any(|t| t.get("examples").is_some() && t.get("accuracy_avg").is_some())
            }),
        // A head cut before the aggregates: the examples' own keys.
        None => p.has("examples") && p.has_any(&["accuracy_avg", "model_answers", "correctness"]),
    };
    if fits {
        Ok(())
    } else {
        Err(why())
    }
}

/// `accuracy_avg` and LiveCodeBench's `last_run_accuracy` are pass@1;
/// LiveCodeBench's average over runs has no counterpart.
pub(crate) const AGGREGATES: AggregateDialect = AggregateDialect::plain(|name, hints| match name {
    "accuracy_avg" | "last_run_accuracy" => harness::resolve(&Name::plain("accuracy"), hints),
    _ => harness::HarnessTarget::None,
});

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::Evalchemy);
    let text = input::text(path, bytes, &mut file.warnings);
    let doc = read_json(path, &text)?;
    let model = (doc.get("model_name").cloned())
        .filter(Value::is_string)
        .or_else(|| parent_name(path).map(Value::from));
    let Some(results) = doc.get("results").and_then(Value::as_object) else {
        return Err(FormatError::parse(
            path,
            None,
            "no \"results\" object",
            "pass an evalchemy results_<date>.json",
        ));
    };
    for (task, t) in results {
        let Some(examples) = t.get("examples").and_then(Value::as_array) else {
            continue;
        };
        let coded = examples.iter().any(|e| e.get("correctness").is_some());
        for (i, e) in examples.iter().enumerate() {
            let Some(e) = e.as_object() else {
                file.bad_lines += 1;
                continue;
            };
            let problem = e
                .get("id")
                .and_then(problem_id)
                .unwrap_or(Value::from(i as u64));
            let rows = match coded {
                true => vec![code_row(e, problem)],
                false => math_rows(e, problem),
            };
            for mut r in rows {
                r.subset = Some(Value::from(task.as_str()));
                r.model = model.clone();
                file.rows.push(r.into_map());
            }
        }
        aggregates(path, task, t, coded, &mut file);
    }
    Ok(file)
}

/// Math: one row per repetition, graded by rollstat.
fn math_rows(e: &Map<String, Value>, problem: Value) -> Vec<Rollout> {
    let answers = e.get("model_answers").and_then(Value::as_array);
    let outputs = e.get("model_outputs").and_then(Value::as_array);
    let gold = (e.get("answer").or_else(|| e.get("expected_answer"))).cloned();
    (answers.into_iter().flatten().enumerate())
        .map(|(i, a)| {
            let mut r = Rollout::new(problem.clone());
            r.rollout = Some(i as u64);
            r.answer = Some(answer_or_null(Some(a), &[]));
            r.gold = gold.clone().map(|g| match g {
                Value::Number(n) => Value::from(n.to_string()),
                g => g,
            });
            r.response = outputs.and_then(|o| o.get(i)).cloned();
            r
        })
        .collect()
}

/// LiveCodeBench: the last run's verdict.
fn code_row(e: &Map<String, Value>, problem: Value) -> Rollout {
    let mut r = Rollout::new(problem);
    r.rollout = Some(0);
    let verdict = e.get("correctness").and_then(as_verdict);
    r.correct = Some(verdict.map_or(Value::Null, Value::Bool));
    r.group = e.get("difficulty").cloned();
    if let Some(reason) = e.get("reason") {
        r.extra("reason", reason.clone());
    }
    r
}

fn aggregates(path: &Path, task: &str, t: &Value, coded: bool, file: &mut NativeFile) {
    let mut push = |name: &str, value: f64, note: String| {
        file.aggregates.push(HarnessAggregate {
            source_path: path.to_path_buf(),
            format: Format::Evalchemy,
            metric_name: name.into(),
            value,
            note,
        });
    };
    let avg = t.get("accuracy_avg").and_then(Value::as_f64);
    let runs = t.get("raw_metrics").and_then(Value::as_array);
    let last = runs
        .and_then(|r| r.last())
        .and_then(|m| m.get("accuracy")?.as_f64());
    if coded {
        if let Some(v) = last {
            push("last_run_accuracy", v, format!("evalchemy; task={task}; the last run's accuracy (raw_metrics), the run the examples are from"));
        }
        if let Some(v) = avg {
            let n = runs.map_or(0, Vec::len);
            push("accuracy_avg_over_runs", v, format!("evalchemy accuracy_avg; task={task}; the mean over {n} runs, of which the file keeps only the last run's examples"));
        }
    } else if let Some(v) = avg {
        let n = t.get("num_repeat").and_then(Value::as_u64).unwrap_or(0);
        push(
            "accuracy_avg",
            v,
            format!("evalchemy; task={task}; mean over {n} repetitions of the fraction solved"),
        );
    }
}
