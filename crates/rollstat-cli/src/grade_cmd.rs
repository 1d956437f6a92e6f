//! `rollstat grade IN… [-o OUT.jsonl]`: adds `answer` (extracted, as
//! written; `null` when nothing was extracted) and `correct` to every row
//! that has a `gold` and something to grade, keeping every other field,
//! the field order and the row order.
//!
//! - rollout rows with `gold` + `response` (no `answer`) get `answer` and
//!   `correct`; rows with `gold` + `answer` (no `correct`) get `correct`;
//! - problem rows with `gold` + `responses` (or `answers`) arrays get an
//!   `answers` array (when absent) and a `correct` array;
//! - rows that already have `correct`, rows without `gold`, count rows and
//!   malformed lines are written through unchanged (malformed lines are
//!   named on stderr).
//!
//! The new keys are appended to the row's own text, so numbers, escapes and
//! unknown fields are byte-for-byte what they were.

use crate::grading::{AnswerGrader, Grading, GradingArgs};
use crate::pipeline::InputError;
use anyhow::{bail, Context, Result};
use clap::Args;
use rayon::prelude::*;
use rollstat_core::summary::Answer;
use serde_json::{Map, Value};
use std::io::{Read, Write};
use std::path::PathBuf;

/// Flags of `rollstat grade`.
#[derive(Args, Debug)]
pub struct GradeArgs {
    /// Inputs: JSON Lines rows with `gold` and `response` (or `answer`);
    /// `-` reads stdin.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Write the graded rows to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub grading: GradingArgs,
}

/// What happened to one line.
#[derive(Debug, PartialEq)]
enum Outcome {
    /// The row with the new keys; (rollouts graded, correct, unextracted).
    Graded(String, u64, u64, u64),
    /// Written through unchanged, and why.
    Kept(&'static str),
    /// Not a JSON object (written through unchanged).
    Bad(String),
}

fn golds(v: Option<&Value>) -> Option<Vec<String>> {
    let scalar = |v: &Value| match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    };
    match v? {
        Value::Array(a) => {
            let g: Vec<String> = a.iter().filter_map(scalar).collect();
            (!g.is_empty()).then_some(g)
        }
        v => scalar(v).map(|s| vec![s]),
    }
}

fn answer_value(v: &Value, what: &str) -> Result<Answer, String> {
    match v {
        Value::Null => Ok(Answer::Unextracted),
        Value::String(s) => Ok(Answer::Text(s.clone())),
        Value::Number(n) => Ok(Answer::Text(n.to_string())),
        other => Err(format!(
            "`{what}` must be a string, a number or null, found {other}"
        )),
    }
}

fn response_of(v: Option<&Value>) -> Option<&str> {
    v.and_then(Value::as_str)
}

/// Grades one answer: (answer to write, correct).
fn grade_one(
    g: &AnswerGrader,
    golds: &[String],
    answer: &Answer,
    response: Option<&str>,
) -> (Option<String>, bool) {
    match g.answer_of(answer, response) {
        None => (None, false),
        Some(a) => {
            let ok = g.matches_any(golds, &a);
            (Some(a), ok)
        }
    }
}

/// Appends `"key": value` pairs to a JSON object's text.
fn append(line: &str, pairs: &[(&str, Value)]) -> String {
    let t = line.trim_end();
    let close = t.rfind('}').expect("a JSON object ends with }");
    let mut out = String::with_capacity(t.len() + 64);
    out.push_str(t[..close].trim_end());
    for (k, v) in pairs {
        out.push_str(", ");
        out.push_str(&Value::String((*k).to_string()).to_string());
        out.push_str(": ");
        out.push_str(&v.to_string());
    }
    out.push('}');
    out
}

fn grade_line(line: &str, g: &AnswerGrader) -> Outcome {
    let m: Map<String, Value> = match serde_json::from_str::<Value>(line.trim()) {
        Ok(Value::Object(m)) => m,
        Ok(other) => return Outcome::Bad(format!("not a JSON object ({other})")),
        Err(e) => return Outcome::Bad(format!("not JSON: {e}")),
    };
    if m.contains_key("correct") {
        return Outcome::Kept("already graded");
    }
    let Some(golds) = golds(m.get("gold")) else {
        return Outcome::Kept("no gold");
    };
    let arrays = m.get("responses").and_then(Value::as_array);
    let given = m.get("answers").and_then(Value::as_array);
    if arrays.is_some() || given.is_some() {
        let n = given.or(arrays).map_or(0, |a| a.len());
        let mut answers = Vec::with_capacity(n);
        let mut correct = Vec::with_capacity(n);
        let (mut c, mut u) = (0, 0);
        for i in 0..n {
            let answer = match given {
                Some(a) => match answer_value(&a[i], &format!("answers[{i}]")) {
                    Ok(x) => x,
                    Err(e) => return Outcome::Bad(e),
                },
                None => Answer::Unknown,
            };
            let response = arrays.and_then(|r| response_of(r.get(i)));
            let (a, ok) = grade_one(g, &golds, &answer, response);
            c += ok as u64;
            u += a.is_none() as u64;
            answers.push(a.map_or(Value::Null, Value::String));
            correct.push(Value::Bool(ok));
        }
        let mut pairs = Vec::new();
        if given.is_none() {
            pairs.push(("answers", Value::Array(answers)));
        }
        pairs.push(("correct", Value::Array(correct)));
        return Outcome::Graded(append(line, &pairs), n as u64, c, u);
    }
    let response = response_of(m.get("response"));
    let (answer, has_answer) = match m.get("answer") {
        Some(v) => match answer_value(v, "answer") {
            Ok(a) => (a, true),
            Err(e) => return Outcome::Bad(e),
        },
        None if response.is_some() => (Answer::Unknown, false),
        None => return Outcome::Kept("no answer or response"),
    };
    let (a, ok) = grade_one(g, &golds, &answer, response);
    let mut pairs = Vec::new();
    let unextracted = a.is_none() as u64;
    if !has_answer {
        pairs.push(("answer", a.map_or(Value::Null, Value::String)));
    }
    pairs.push(("correct", Value::Bool(ok)));
    Outcome::Graded(append(line, &pairs), 1, ok as u64, unextracted)
}

fn read_input(path: &str) -> Result<String> {
    let mut bytes = Vec::new();
    if path == "-" {
        std::io::stdin()
            .read_to_end(&mut bytes)
            .context("<stdin>")?;
    } else {
        bytes = std::fs::read(path).map_err(|e| InputError(format!("{path}: {e}")))?;
    }
    String::from_utf8(bytes).map_err(|e| InputError(format!("{path}: not UTF-8 text ({e})")).into())
}

pub fn run(a: &GradeArgs) -> Result<()> {
    let grading = Grading::from_args(&a.grading)?;
    let g = grading.answer_grader();
    let mut out: Box<dyn Write> = match &a.output {
        Some(p) => Box::new(std::io::BufWriter::new(
            std::fs::File::create(p).with_context(|| format!("{}", p.display()))?,
        )),
        None => Box::new(std::io::BufWriter::new(std::io::stdout().lock())),
    };
    let (mut rows, mut rollouts, mut correct, mut unextracted) = (0u64, 0u64, 0u64, 0u64);
    let mut kept: Vec<(&'static str, u64)> = Vec::new();
    let mut bad: Vec<String> = Vec::new();
    for path in &a.inputs {
        if path.to_ascii_lowercase().ends_with(".csv") {
            bail!(InputError(format!(
                "{path}: rollstat grade reads JSON Lines; convert CSV rows first"
            )));
        }
        let text = read_input(path)?;
        let shown = if path == "-" {
            "<stdin>"
        } else {
            path.as_str()
        };
        let lines: Vec<&str> = text.lines().collect();
        let outcomes: Vec<Outcome> = lines
            .par_iter()
            .with_min_len(64)
            .map(|l| {
                if l.trim().is_empty() {
                    Outcome::Kept("blank")
                } else {
                    grade_line(l, g)
                }
            })
            .collect();
        for (i, (line, o)) in lines.iter().zip(outcomes).enumerate() {
            match o {
                Outcome::Graded(s, r, c, u) => {
                    rows += 1;
                    rollouts += r;
                    correct += c;
                    unextracted += u;
                    writeln!(out, "{s}")?;
                }
                Outcome::Kept("blank") => {}
                Outcome::Kept(why) => {
                    match kept.iter_mut().find(|(w, _)| *w == why) {
                        Some((_, n)) => *n += 1,
                        None => kept.push((why, 1)),
                    }
                    writeln!(out, "{line}")?;
                }
                Outcome::Bad(reason) => {
                    bad.push(format!("{shown}:{}: {reason}", i + 1));
                    writeln!(out, "{line}")?;
                }
            }
        }
    }
    out.flush()?;
    for b in bad.iter().take(20) {
        eprintln!("rollstat: {b} (written through unchanged)");
    }
    if bad.len() > 20 {
        eprintln!("rollstat: … and {} more malformed rows", bad.len() - 20);
    }
    let mut note = format!(
        "rollstat grade: {rows} rows graded ({rollouts} rollouts: {correct} correct, {unextracted} unextracted) with --extract {} --match {}",
        a.grading.extract.trim(),
        a.grading.matching.trim()
    );
    for (why, n) in &kept {
        note.push_str(&format!("; {n} rows kept as they were ({why})"));
    }
    eprintln!("{note}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grader() -> Grading {
        Grading::from_args(&GradingArgs::default()).unwrap()
    }

    #[test]
    fn rows_get_answer_and_correct_appended() {
        let g = grader();
        let g = g.answer_grader();
        let o = grade_line(
            r#"{"problem": "p", "gold": "1/2", "x": 1.50, "response": "so \\boxed{0.5}"}"#,
            g,
        );
        assert_eq!(
            o,
            Outcome::Graded(
                r#"{"problem": "p", "gold": "1/2", "x": 1.50, "response": "so \\boxed{0.5}", "answer": "0.5", "correct": true}"#.into(),
                1,
                1,
                0
            )
        );
        let o = grade_line(r#"{"problem":"p","gold":"3","answer":"[invalid]"}"#, g);
        assert_eq!(
            o,
            Outcome::Graded(
                r#"{"problem":"p","gold":"3","answer":"[invalid]", "correct": false}"#.into(),
                1,
                0,
                1
            )
        );
        assert_eq!(
            grade_line(r#"{"problem":"p","gold":"3","correct":true}"#, g),
            Outcome::Kept("already graded")
        );
        assert_eq!(
            grade_line(r#"{"problem":"p","response":"3"}"#, g),
            Outcome::Kept("no gold")
        );
        assert!(matches!(grade_line("[1]", g), Outcome::Bad(_)));
        let o = grade_line(
            r#"{"problem":"p","gold":["4","four"],"responses":["\\boxed{4}","no idea",null]}"#,
            g,
        );
        assert_eq!(
            o,
            Outcome::Graded(
                r#"{"problem":"p","gold":["4","four"],"responses":["\\boxed{4}","no idea",null], "answers": ["4",null,null], "correct": [true,false,false]}"#.into(),
                3,
                1,
                2
            )
        );
    }
}
