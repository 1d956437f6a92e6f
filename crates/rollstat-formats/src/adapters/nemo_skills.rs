//! NeMo-Skills `output-rs<seed>.jsonl`: one file per random seed, one line
//! per problem, so each file is one rollout (`rollout` = seed).
//!
//! `problem` = the line's `id` (else its 0-based position: all seed files of
//! one run list problems in the same order). `correct` = `symbolic_correct`,
//! else `judge_correct`, else the `judgement` text ("Judgement: Yes/No"),
//! else `is_correct`; without any, rows carry `gold` + `answer` for rollstat
//! to grade. `answer` = `predicted_answer` (null = unextracted, also what
//! NeMo-Skills writes for generations over `--max_seq_len`), `gold` =
//! `expected_answer`, `response` = `generation`, `output_tokens` =
//! `num_generated_tokens`, `score` = `reward_model_score` (the reward
//! model's score of the generation, what NeMo-Skills' `rm_best` picks by;
//! rollstat's bon@k and wmaj@n read it).

use std::path::Path;

use serde_json::{Map, Value};

use crate::error::FormatError;
use crate::format::Format;
use crate::input;
use crate::util::{answer_or_null, as_verdict, inner_name, problem_id, read_jsonl, Rollout};
use crate::NativeFile;

fn seed_of(path: &Path) -> Option<u64> {
    inner_name(path)
        .strip_prefix("output-rs")
        .and_then(|r| r.strip_suffix(".jsonl"))
        .and_then(|d| d.parse().ok())
}

fn verdict(rec: &Map<String, Value>) -> Option<Value> {
    for key in ["symbolic_correct", "judge_correct"] {
        if let Some(v) = rec.get(key) {
            return Some(as_verdict(v).map(Value::Bool).unwrap_or(Value::Null));
        }
    }
    if let Some(Value::String(j)) = rec.get("judgement") {
        let last = j.to_ascii_lowercase();
        let tail = last.rsplit("judgement:").next().unwrap_or("").trim();
        return Some(if tail.starts_with("yes") {
            Value::Bool(true)
        } else if tail.starts_with("no") {
            Value::Bool(false)
        } else {
            Value::Null
        });
    }
    rec.get("is_correct")
        .map(|v| as_verdict(v).map(Value::Bool).unwrap_or(Value::Null))
}

pub(crate) fn read(path: &Path, bytes: &[u8]) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::NemoSkills);
    let seed = seed_of(path);
    if seed.is_none() {
        file.warnings.push(format!(
            "{}: file name is not output-rs<seed>.jsonl; rows are rollout 0",
            path.display()
        ));
    }
    let text = input::text(path, bytes, &mut file.warnings);
    let lines = read_jsonl(path, &text, &mut file.warnings, &mut file.bad_lines)?;
    let mut ungraded = false;
    for (pos, (_line, rec)) in lines.into_iter().enumerate() {
        let problem = rec
            .get("id")
            .and_then(problem_id)
            .unwrap_or(Value::from(pos as u64));
        let mut r = Rollout::new(problem);
        r.rollout = Some(seed.unwrap_or(0));
        r.correct = verdict(&rec);
        ungraded |= r.correct.is_none();
        r.answer = Some(answer_or_null(rec.get("predicted_answer"), &[]));
        r.gold = rec.get("expected_answer").cloned();
        r.response = rec.get("generation").cloned();
        r.finish_reason = rec.get("finish_reason").cloned();
        r.output_tokens = rec.get("num_generated_tokens").cloned();
        r.score = rec
            .get("reward_model_score")
            .filter(|v| v.is_number())
            .cloned();
        if let Some(s) = seed {
            r.extra("seed", Value::from(s));
        }
        for key in ["subset_for_metrics", "reward_model_score"] {
            if let Some(v) = rec.get(key) {
                r.extra(key, v.clone());
            }
        }
        file.rows.push(r.into_map());
    }
    if ungraded {
        file.warnings.push(format!(
            "{}: some lines have no verdict (symbolic_correct/judgement); rollstat grades them",
            path.display()
        ));
    }
    Ok(file)
}
