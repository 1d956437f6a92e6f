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
//! rollstat's bon@k and wmaj@n read it). An answer-judgement row's `answer`
//! is its judgement (`yes` / `no`), what NeMo-Skills votes on; IFEval's
//! `loose_eval` is kept as `loose_correct`. `strict_eval` / `loose_eval`
//! may be objects or Python dict reprs (both occur in NeMo-Skills output).
//!
//! The benchmark's numbers in `eval-results/metrics.json` (pass@k and the
//! largest majority@k, for the accuracy the verdicts come from) are
//! attached to the lowest-seed file of each benchmark for reconciliation.

use std::path::Path;

use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::harness::{self, AggregateDialect};
use crate::input;
use crate::util::{answer_or_null, as_verdict, inner_name, problem_id, read_jsonl, Rollout};
use crate::{HarnessAggregate, NativeFile};

// ---- Detection and aggregate names (this format's registry entry) ----

/// `nemo-skills`: named `output-rs<seed>.jsonl`, or records with
/// `predicted_answer` and a verdict.
pub(crate) fn detect(p: &Probe<'_>) -> Result<(), String> {
    let named = is_nemo_name(&p.name);
    let keyed = p.has("predicted_answer")
        && p.has_any(&["expected_answer", "symbolic_correct", "judgement"]);
    if named && (p.first.is_some() || p.keys_scanned) || keyed || is_arena(p) {
        Ok(())
    } else {
        Err(format!(
            "name is not output-rs<seed>.jsonl and {}",
            p.missing("keys", &["predicted_answer", "expected_answer"])
        ))
    }
}

/// Arena-hard judgement records: the two judge verdicts of each answer
/// against a baseline, with the answers swapped between them.
fn is_arena(p: &Probe<'_>) -> bool {
    p.has("judgement-gen-base") && p.has("judgement-base-gen")
}

/// Why arena-hard judgements are recognised and not read: what they lack.
const ARENA: &str =
    "an arena-hard judgement file (judgement-gen-base / judgement-base-gen: pairwise \
     verdicts such as [[A>>B]] of each answer against a baseline's) holds no per-rollout verdict; \
     arena-hard's score is a Bradley–Terry fit over those pairs with the baseline's answers, \
     not a pass rate over problems";

fn is_nemo_name(name: &str) -> bool {
    name.strip_prefix("output-rs")
        .and_then(|r| r.strip_suffix(".jsonl"))
        .is_some_and(|d| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// `metrics.json` names are `metric/aggregation` (`symbolic_correct/majority@8`).
pub(crate) const AGGREGATES: AggregateDialect = AggregateDialect::plain(|name, hints| {
    harness::resolve(&harness::strip_prefix_path(name), hints)
});

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

/// IFEval's `follow_all_instructions` in a `strict_eval` / `loose_eval`
/// field: a JSON object, or the Python dict repr NeMo-Skills also writes
/// (`"{'follow_all_instructions': False, ...}"`).
fn follows_all(v: &Value) -> Option<bool> {
    match v {
        Value::Object(m) => m.get("follow_all_instructions").and_then(as_verdict),
        Value::String(s) => {
            let (_, tail) = s.split_once("follow_all_instructions")?;
            let value = tail.trim_start_matches(['\'', '"', ':', ' ']);
            if value.starts_with("True") || value.starts_with("true") {
                Some(true)
            } else if value.starts_with("False") || value.starts_with("false") {
                Some(false)
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The rollout's verdict, from the first field a NeMo-Skills evaluator
/// writes (symbolic or judge correctness, Lean proofs, IFEval's strict
/// prompt-level result, answer-judgement benchmarks, a judge's text), with
/// the name NeMo-Skills' `metrics.json` gives the accuracy computed from
/// that field; a `Null` verdict is a rollout whose field holds none.
fn verdict(rec: &Map<String, Value>) -> Option<(Value, Option<&'static str>)> {
    for (key, metric) in [
        ("symbolic_correct", "symbolic_correct"),
        ("judge_correct", "judge_correct"),
        ("is_correct", "passing_base_tests"),
    ] {
        if let Some(v) = rec.get(key) {
            return Some((bool_or_null(as_verdict(v)), Some(metric)));
        }
    }
    if let Some(status) = rec.get("proof_status") {
        // Lean 4: only a completed proof counts (timeouts and errors do not).
        let done = status.as_str() == Some("completed");
        return Some((Value::Bool(done), Some("lean4_correct")));
    }
    if let Some(strict) = rec.get("strict_eval") {
        // IFEval: prompt-level strict accuracy, NeMo-Skills' headline.
        let v = bool_or_null(follows_all(strict));
        return Some((v, Some("prompt_strict_accuracy")));
    }
    let said = rec.get("judgement").and_then(Value::as_str).map(judgement);
    if let Some(Value::String(expected)) = rec.get("expected_judgement") {
        // Answer-judgement benchmarks: the model is the judge, and it is
        // right when its judgement matches the expected one.
        let expected = judgement(expected);
        let v = match (said.flatten(), expected) {
            (Some(s), Some(e)) => Value::Bool(s == e),
            (None, Some(_)) => Value::Bool(false),
            _ => Value::Null,
        };
        return Some((v, Some("correct_judgements")));
    }
    said.map(|s| (bool_or_null(s), None))
}

/// The answer of an answer-judgement row: the judgement it gave (`yes` /
/// `no`; null when it gave none), what NeMo-Skills' majority@k votes on.
fn judgement_answer(rec: &Map<String, Value>) -> Option<Value> {
    rec.get("expected_judgement")?;
    let said = rec
        .get("judgement")
        .and_then(Value::as_str)
        .and_then(judgement);
    Some(said.map_or(Value::Null, |s| Value::from(if s { "yes" } else { "no" })))
}

/// The benchmark a file belongs to: NeMo-Skills writes
/// `eval-results/<benchmark>/output-rs<seed>.jsonl`, and problem ids repeat
/// across benchmarks.
fn benchmark_of(path: &Path) -> Option<String> {
    let dir = path.parent()?.file_name()?.to_string_lossy().into_owned();
    (!dir.is_empty() && dir != "." && dir != "eval-results").then_some(dir)
}

/// One line as a rollout, with the `metrics.json` name of the accuracy its
/// verdict comes from.
fn rollout(
    rec: &Map<String, Value>,
    pos: usize,
    seed: Option<u64>,
    benchmark: &Option<String>,
) -> (Rollout, Option<&'static str>) {
    let problem = rec
        .get("id")
        .and_then(problem_id)
        .unwrap_or(Value::from(pos as u64));
    let mut r = Rollout::new(problem);
    r.rollout = Some(seed.unwrap_or(0));
    let (correct, metric) = verdict(rec).unzip();
    r.correct = correct;
    // A missing predicted_answer is no answer information (code
    // benchmarks), not an unextracted answer; a judge's answer is its
    // judgement.
    r.answer = rec
        .get("predicted_answer")
        .map(|v| answer_or_null(Some(v), &[]))
        .or_else(|| judgement_answer(rec));
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
    if let Some(v) = rec.get("reward_model_score") {
        r.extra("reward_model_score", v.clone());
    }
    // IFEval's loose prompt-level result, kept beside the strict verdict.
    if let Some(loose) = rec.get("loose_eval").and_then(follows_all) {
        r.extra("loose_correct", Value::Bool(loose));
    }
    (r, metric.flatten())
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
    let arena = |(_, r): &&crate::util::Line| {
        r.contains_key("judgement-gen-base") && r.contains_key("judgement-base-gen")
    };
    if lines.first().is_some_and(|l| arena(&l)) {
        return Err(FormatError::parse(
            path,
            None,
            ARENA,
            "to read its verdicts as wins, map each record's judgement to a correct field \
             (0/1) and read the rows as canonical rows",
        ));
    }
    let benchmark = benchmark_of(path);
    let mut ungraded = false;
    let mut scored_as = None;
    for (pos, (_line, rec)) in lines.into_iter().enumerate() {
        let (r, metric) = rollout(&rec, pos, seed, &benchmark);
        scored_as = scored_as.or(metric);
        ungraded |= r.correct.is_none();
        file.rows.push(r.into_map());
    }
    if let (Some(bench), Some(metric)) = (&benchmark, scored_as) {
        if is_first_seed(path, seed) {
            metrics_aggregates(path, bench, metric, &mut file);
        }
    }
    if ungraded {
        file.warnings.push(format!(
            "{}: some lines have no verdict (symbolic_correct, judge_correct, proof_status, strict_eval, judgement); rollstat grades them",
            path.display()
        ));
    }
    Ok(file)
}

/// Whether `path` is the lowest-seed `output-rs<seed>.jsonl` of its
/// directory: the file the benchmark's `metrics.json` numbers are attached
/// to, once per benchmark.
fn is_first_seed(path: &Path, seed: Option<u64>) -> bool {
    let (Some(seed), Some(dir)) = (seed, path.parent()) else {
        return false;
    };
    let dir = if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return false;
    };
    entries
        .flatten()
        .filter_map(|e| seed_of(&e.path()))
        .all(|other| other >= seed)
}

/// `metrics.json` larger than this is not read (NeMo-Skills' own is a few
/// KiB per benchmark).
const MAX_METRICS_BYTES: u64 = 16 << 20;

/// NeMo-Skills' own numbers for `benchmark` from
/// `eval-results/metrics.json` (written by `ns summarize_results`): every
/// `pass@k` and the largest `majority@k` (what NeMo-Skills prints), for the
/// accuracy `metric` the rows' verdicts come from, as percentages.
/// NeMo-Skills' pass@k is the unbiased estimator over all seeds, as
/// rollstat's; its majority@k votes over the first k seeds and splits the
/// credit of a tie (rollstat's `fractional` tie policy).
fn metrics_aggregates(path: &Path, benchmark: &str, metric: &str, file: &mut NativeFile) {
    let Some(metrics) = path
        .parent()
        .and_then(Path::parent)
        .map(|d| d.join("metrics.json"))
    else {
        return;
    };
    let small = std::fs::metadata(&metrics).is_ok_and(|m| m.len() <= MAX_METRICS_BYTES);
    let doc = small
        .then(|| std::fs::read(&metrics).ok())
        .flatten()
        .and_then(|b| serde_json::from_slice::<Value>(&b).ok());
    let Some(aggs) = doc.as_ref().and_then(|d| d.get(benchmark)?.as_object()) else {
        return;
    };
    let k_of = |name: &str, prefix: &str| name.strip_prefix(prefix)?.parse::<u64>().ok();
    let max_majority = aggs.keys().filter_map(|n| k_of(n, "majority@")).max();
    for (name, values) in aggs {
        let keep = k_of(name, "pass@").is_some()
            || k_of(name, "majority@").is_some_and(|k| Some(k) == max_majority);
        let Some(value) = values.get(metric).and_then(Value::as_f64).filter(|_| keep) else {
            continue;
        };
        let mut note = format!("NeMo-Skills metrics.json; task={benchmark}; percentage");
        if let Some(n) = values.get("num_entries").and_then(Value::as_u64) {
            note.push_str(&format!("; num_entries={n}"));
        }
        if name.starts_with("majority@") {
            note.push_str("; NeMo-Skills votes over the first k seeds and splits a tie's credit");
        }
        file.aggregates.push(HarnessAggregate {
            source_path: metrics.clone(),
            format: Format::NemoSkills,
            metric_name: format!("{metric}/{name}"),
            value,
            note,
        });
    }
}
