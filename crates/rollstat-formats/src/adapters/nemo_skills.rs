//! NeMo-Skills `output-rs<seed>.jsonl`: one file per random seed, one line
//! per problem, so each file is one rollout (`rollout` = seed).
//!
//! `problem` = the line's `id` (else its 0-based position: all seed files of
//! one run list problems in the same order); `subset` = the benchmark, i.e.
//! the directory holding the file (`eval-results/<benchmark>/`), since
//! problem ids repeat across benchmarks; `group` = `subset_for_metrics`
//! (NeMo-Skills' per-subset breakdown). `correct` = `symbolic_correct`, else
//! `judge_correct`, else `is_correct`, else `proof_status == "completed"`
//! (Lean 4), else `strict_eval.follow_all_instructions` (IFEval), else — for
//! answer-judgement benchmarks — whether the `judgement` ("Judgement:
//! Yes/No") equals `expected_judgement`, else the `judgement` itself; without
//! any, rows carry `gold` + `answer` for rollstat to grade. `answer` =
//! `predicted_answer` when the key is present (null = unextracted, also what
//! NeMo-Skills writes for generations over `--max_seq_len`; no key = no
//! answer information, as in code benchmarks), `gold` =
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

/// NeMo-Skills' reading of a judge's text: the words after the last
/// `Judgement:` start with yes or no; anything else is no judgement.
fn judgement(text: &str) -> Option<bool> {
    let (_, tail) = text.rsplit_once("Judgement:")?;
    let tail = tail.trim_start().to_ascii_lowercase();
    if tail.starts_with("yes") {
        Some(true)
    } else if tail.starts_with("no") {
        Some(false)
    } else {
        None
    }
}

fn bool_or_null(v: Option<bool>) -> Value {
    v.map(Value::Bool).unwrap_or(Value::Null)
}

/// The rollout's verdict, from the first field a NeMo-Skills evaluator
/// writes (symbolic or judge correctness, Lean proofs, IFEval's strict
/// prompt-level result, answer-judgement benchmarks, a judge's text);
/// `Some(Null)` is a rollout whose verdict field holds no verdict.
fn verdict(rec: &Map<String, Value>) -> Option<Value> {
    for key in ["symbolic_correct", "judge_correct", "is_correct"] {
        if let Some(v) = rec.get(key) {
            return Some(bool_or_null(as_verdict(v)));
        }
    }
    if let Some(status) = rec.get("proof_status") {
        // Lean 4: only a completed proof counts (timeouts and errors do not).
        return Some(Value::Bool(status.as_str() == Some("completed")));
    }
    if let Some(strict) = rec.get("strict_eval") {
        // IFEval: prompt-level strict accuracy, NeMo-Skills' headline.
        return Some(bool_or_null(
            strict.get("follow_all_instructions").and_then(as_verdict),
        ));
    }
    let said = rec.get("judgement").and_then(Value::as_str).map(judgement);
    if let Some(Value::String(expected)) = rec.get("expected_judgement") {
        // Answer-judgement benchmarks: the model is the judge, and it is
        // right when its judgement matches the expected one.
        let expected = judgement(expected);
        return Some(match (said.flatten(), expected) {
            (Some(s), Some(e)) => Value::Bool(s == e),
            (None, Some(_)) => Value::Bool(false),
            _ => Value::Null,
        });
    }
    said.map(bool_or_null)
}

/// The benchmark a file belongs to: NeMo-Skills writes
/// `eval-results/<benchmark>/output-rs<seed>.jsonl`, and problem ids repeat
/// across benchmarks.
fn benchmark_of(path: &Path) -> Option<String> {
    let dir = path.parent()?.file_name()?.to_string_lossy().into_owned();
    (!dir.is_empty() && dir != "." && dir != "eval-results").then_some(dir)
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
    let benchmark = benchmark_of(path);
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
        // A missing predicted_answer is no answer information (code and
        // judge benchmarks), not an unextracted answer.
        r.answer = rec
            .get("predicted_answer")
            .map(|v| answer_or_null(Some(v), &[]));
        r.subset = benchmark.clone().map(Value::from);
        r.group = rec.get("subset_for_metrics").cloned();
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
        for key in ["reward_model_score"] {
            if let Some(v) = rec.get(key) {
                r.extra(key, v.clone());
            }
        }
        file.rows.push(r.into_map());
    }
    if ungraded {
        file.warnings.push(format!(
            "{}: some lines have no verdict (symbolic_correct, judge_correct, proof_status, strict_eval, judgement); rollstat grades them",
            path.display()
        ));
    }
    Ok(file)
}
