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
//!   named on stderr);
//! - a rollout the grader could not decide (work limit) gets
//!   `correct: null` and `grading_undecided` says why; they are counted.
//!
//! The new keys are appended to the row's own text, so numbers, escapes and
//! unknown fields are byte-for-byte what they were.

use crate::args::GradingArgs;
use crate::options::{grading_policy, InputError};
use anyhow::{bail, Context, Result};
use clap::Args;
use rayon::prelude::*;
use rollstat::grade::{grade_line, GradedCounts, LineOutcome};
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
    let g = &grading_policy(&a.grading)?;
    crate::output::check_not_an_input(a.output.as_deref(), &a.inputs)?;
    // A file output is written beside its destination and renamed into
    // place at the end, so a failure never leaves a truncated file.
    let mut file = crate::output::destination(a.output.as_deref())
        .map(crate::output::AtomicFile::create)
        .transpose()?;
    let mut stdout = std::io::BufWriter::new(std::io::stdout().lock());
    let out: &mut dyn Write = match &mut file {
        Some(f) => f,
        None => &mut stdout,
    };
    let mut rows = 0u64;
    let mut total = GradedCounts::default();
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
        let outcomes: Vec<LineOutcome> = lines
            .par_iter()
            .with_min_len(64)
            .map(|l| {
                if l.trim().is_empty() {
                    LineOutcome::Kept("blank")
                } else {
                    grade_line(l, g)
                }
            })
            .collect();
        for (i, (line, o)) in lines.iter().zip(outcomes).enumerate() {
            match o {
                LineOutcome::Graded(s, c) => {
                    rows += 1;
                    total.rollouts += c.rollouts;
                    total.correct += c.correct;
                    total.unextracted += c.unextracted;
                    total.undecided += c.undecided;
                    writeln!(out, "{s}")?;
                }
                LineOutcome::Kept("blank") => {}
                LineOutcome::Kept(why) => {
                    match kept.iter_mut().find(|(w, _)| *w == why) {
                        Some((_, n)) => *n += 1,
                        None => kept.push((why, 1)),
                    }
                    writeln!(out, "{line}")?;
                }
                LineOutcome::Bad(reason) => {
                    bad.push(format!("{shown}:{}: {reason}", i + 1));
                    writeln!(out, "{line}")?;
                }
            }
        }
    }
    out.flush()?;
    if let Some(f) = file {
        f.commit()?;
    }
    for b in bad.iter().take(20) {
        eprintln!("rollstat: {b} (written through unchanged)");
    }
    if bad.len() > 20 {
        eprintln!("rollstat: … and {} more malformed rows", bad.len() - 20);
    }
    let GradedCounts {
        rollouts,
        correct,
        unextracted,
        undecided,
    } = total;
    let mut note = format!(
        "rollstat grade: {rows} rows graded ({rollouts} rollouts: {correct} correct, {unextracted} unextracted, {undecided} undecided (correct: null, over the grader's work limit)) with --extract {} --match {}",
        g.extract_name(),
        g.matching
    );
    for (why, n) in &kept {
        note.push_str(&format!("; {n} rows kept as they were ({why})"));
    }
    eprintln!("{note}");
    Ok(())
}
