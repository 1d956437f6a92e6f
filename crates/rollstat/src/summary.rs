//! The per-problem summary as a file (docs/summary.md): [`summarize()`]
//! reads sources as a report would and keeps, per (system, subset,
//! problem), every rollout's verdict, answer *text*, truncation, selector
//! score and budget in rollout-index order, plus the reading's health
//! counts; [`merge()`] unions summaries of shards (a problem may be split
//! across them); report and compare read a summary in place of the rows it
//! was made from and give the same numbers.
//!
//! Answers are kept as texts, not cluster ids, so answer clustering (and
//! the junk rule) runs when the report is made, exactly as on raw rows.

use crate::error::{Error, Result};
use crate::findings::Finding;
use crate::grading::Grading;
use crate::options::ReportOptions;
use crate::read::{read_inputs_with, Inputs, Source, WhenEmpty};
use rollstat_core::input::InputInfo;
use rollstat_core::rollouts::RolloutTable;
use rollstat_core::summary::{Answer, ProblemData, Rollout, Verdict};
use rollstat_io::{
    BadLine, Collected, CollectedProblem, Dedupe, LabelInterner, Labels, ReadOptions,
};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::io::{BufRead, Read};

/// The summary format version this build writes and reads.
pub const SUMMARY_VERSION: u64 = 1;

/// The first line of a summary file: the format version, the reading
/// options the rows depend on, and the reading's health counts.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SummaryHeader {
    /// The format version ([`SUMMARY_VERSION`]); its key marks the file.
    pub rollstat_summary: u64,
    /// The reading options the rows were made under.
    pub reading: Reading,
    /// Every input read, in order (with its sha256 and record count).
    pub inputs: Vec<InputInfo>,
    /// Malformed rows, in input order.
    pub bad_lines: Vec<BadRow>,
    /// Duplicated (problem, rollout) rows resolved by `reading.dedupe`.
    pub n_duplicate_rollouts: u64,
    /// Rows graded against `gold` while reading.
    pub n_graded: u64,
    /// Gradings the work cap left undecided while reading.
    pub n_grading_undecided: u64,
    /// Notes of the adapters and of format detection.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Files of a directory walk that could not be read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_files: Vec<String>,
    /// Files of a directory walk passed over on purpose: (path, why).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped_files: Vec<(String, String)>,
    /// Messages for people from the reading.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub messages: Vec<String>,
}

/// The reading options a summary's rows depend on; a summary is read only
/// under the same ones.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    /// The breakdown field whose value each row carries (`by`).
    pub by: Option<String>,
    /// The field whose value clusters problems (`cluster_by`).
    pub cluster_by: Option<String>,
    /// The field each rollout's budget was read from.
    pub budget: Option<String>,
    /// The grading policy rows without a verdict were graded under.
    pub grading: String,
    /// Which of duplicated rollouts was kept (`first` / `last`), if any.
    pub dedupe: Option<String>,
}

/// A malformed row: where it is and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BadRow {
    /// The input's path.
    pub path: String,
    /// The line (from 1).
    pub line: u64,
    /// What is wrong.
    pub reason: String,
}

/// One problem of one system and subset: its count row (`n`, `c`) or its
/// rollouts in index order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct SummaryRow {
    /// The `model` / `run`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system: Option<String>,
    /// The `subset`, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub subset: Option<String>,
    /// The problem id.
    pub problem: String,
    /// The value of the breakdown field (`reading.by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by: Option<String>,
    /// The value of the clustering field (`reading.cluster_by`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cluster: Option<String>,
    /// Where the problem was first seen (`path:line`).
    pub origin: String,
    /// A count row: rollouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub n: Option<u64>,
    /// A count row: correct rollouts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub c: Option<u64>,
    /// Rollout indices, when not 0, 1, …, len − 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index: Option<Vec<u64>>,
    /// One letter per rollout: `c` correct, `w` wrong, `f` failed.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub verdicts: String,
    /// Distinct answer texts, in order of first use.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answers: Vec<String>,
    /// Per rollout: a position in `answers`, −1 unextracted, −2 no answer
    /// information; empty when no rollout has answer information.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub answer: Vec<i64>,
    /// Positions (in rollout order) of truncated rollouts.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truncated: Vec<u64>,
    /// Per rollout: its selector score, when any rollout has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub score: Option<Vec<Option<f64>>>,
    /// Per rollout: its budget, when any rollout has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<Vec<Option<f64>>>,
    /// Some rollout had no index and was numbered by arrival.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub numbered_by_arrival: bool,
}

/// A summary: its header and one row per problem.
///
/// ```
/// use rollstat::rows::{RolloutRow, Row};
/// use rollstat::{summarize, ReportOptions, Source, Summary};
/// let rows: Vec<Row> = (0..3).map(|i| RolloutRow::new("p1", i == 1).rollout(i).into()).collect();
/// let s = summarize(&[Source::Rows { name: "mem".into(), rows }], &ReportOptions::default()).unwrap();
/// assert_eq!(s.rows[0].verdicts, "wcw");
/// let back = Summary::from_jsonl("s.jsonl", &s.to_jsonl()).unwrap();
/// assert_eq!(back, s);
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    /// The first line.
    pub header: SummaryHeader,
    /// One row per (system, subset, problem).
    pub rows: Vec<SummaryRow>,
}

fn dedupe_of(name: Option<&str>) -> Option<Dedupe> {
    name.and_then(|d| d.parse().ok())
}

/// The reading options of a report, as a summary records them.
fn reading_of(read: &ReadOptions, opts: &ReportOptions) -> Reading {
    Reading {
        by: read.by.clone(),
        cluster_by: read.cluster_by.clone(),
        budget: read.budget.clone(),
        grading: opts.grading.describe(),
        dedupe: read
            .dedupe
            .map(|d| crate::report::dedupe_name(d).to_string()),
    }
}

/// Reads `sources` as [`crate::report()`] would (same options) and keeps
/// what every metric needs, per problem.
pub fn summarize(sources: &[Source], opts: &ReportOptions) -> Result<Summary> {
    Ok(summarize_pending(sources, opts)?.into_summary())
}

/// A summary whose rows are made as they are written: its header, and the
/// problems read. 10⁷ rows held at once take gigabytes; written one batch
/// at a time ([`PendingSummary::write_jsonl`]) they take nothing beyond the
/// problems read.
///
/// ```
/// use rollstat::rows::{RolloutRow, Row};
/// use rollstat::{summarize, summarize_pending, ReportOptions, Source};
/// let rows: Vec<Row> = (0..3).map(|i| RolloutRow::new("p1", i == 1).rollout(i).into()).collect();
/// let source = [Source::Rows { name: "mem".into(), rows }];
/// let mut out = Vec::new();
/// summarize_pending(&source, &ReportOptions::default()).unwrap().write_jsonl(&mut out).unwrap();
/// let whole = summarize(&source, &ReportOptions::default()).unwrap();
/// assert_eq!(String::from_utf8(out).unwrap(), whole.to_jsonl());
/// ```
pub struct PendingSummary {
    /// The first line.
    pub header: SummaryHeader,
    collected: Collected,
}

/// Reads `sources` as [`summarize()`] does, leaving the rows to be made
/// as they are written.
pub fn summarize_pending(sources: &[Source], opts: &ReportOptions) -> Result<PendingSummary> {
    opts.validate()?;
    let read = crate::report::read_options(opts);
    let g = Grading::new(&opts.grading);
    // A shard of malformed rows only is a summary of no problems: merged
    // with the others, its bad rows count as in the whole.
    let inputs = read_inputs_with(
        sources,
        &read,
        opts.source_format,
        opts.metrics.decompress_limit,
        &g,
        opts.messages.as_ref(),
        WhenEmpty::KeepBadRows,
    )?;
    if !inputs.aggregates.is_empty() {
        return Err(Error::input(
            "the inputs carry harness aggregates, which a summary (version 1) does not hold: summarize the per-sample files only, or report on the native files directly",
        ));
    }
    let mut header = header_of(&inputs, reading_of(&read, opts));
    header.n_grading_undecided = g.n_undecided();
    Ok(PendingSummary {
        header,
        collected: inputs.collected,
    })
}

impl PendingSummary {
    fn problems(&self) -> &[CollectedProblem] {
        &self.collected.problems
    }

    fn row(&self, p: &CollectedProblem) -> SummaryRow {
        row_of(p, self.collected.origin(p.origin))
    }

    /// The summary with all its rows made.
    pub fn into_summary(self) -> Summary {
        let rows = self.problems().iter().map(|p| self.row(p)).collect();
        Summary {
            header: self.header,
            rows,
        }
    }

    /// Writes the summary as [`Summary::to_jsonl`] does, rows made and
    /// serialized a batch at a time (in parallel), so no more than a batch
    /// of them exists at once.
    pub fn write_jsonl(&self, out: &mut dyn std::io::Write) -> std::io::Result<()> {
        use rayon::prelude::*;
        // Batches of pieces: each piece one text, the pieces of a batch
        // made in parallel and written in order.
        const PIECE: usize = 4096;
        const BATCH: usize = 64 * PIECE;
        out.write_all(header_json(&self.header).as_bytes())?;
        out.write_all(b"\n")?;
        for batch in self.problems().chunks(BATCH) {
            let texts: Vec<Vec<u8>> = batch
                .par_chunks(PIECE)
                .map(|piece| {
                    let mut text = Vec::new();
                    for p in piece {
                        serde_json::to_writer(&mut text, &self.row(p)).expect("a row serializes");
                        text.push(b'\n');
                    }
                    text
                })
                .collect();
            for t in texts {
                out.write_all(&t)?;
            }
        }
        Ok(())
    }
}

fn header_of(inputs: &Inputs, reading: Reading) -> SummaryHeader {
    let c = &inputs.collected;
    let mut h = SummaryHeader {
        rollstat_summary: SUMMARY_VERSION,
        reading,
        inputs: c.inputs.clone(),
        bad_lines: c.bad_lines.iter().map(bad_row).collect(),
        n_duplicate_rollouts: c.n_duplicate_rollouts,
        n_graded: c.n_graded,
        n_grading_undecided: 0,
        notes: Vec::new(),
        unreadable_files: Vec::new(),
        skipped_files: Vec::new(),
        messages: inputs.messages.clone(),
    };
    for f in &inputs.findings {
        match f {
            Finding::AdapterNote { note } => h.notes.push(note.clone()),
            Finding::UnreadableFiles { files } => h.unreadable_files.extend(files.clone()),
            Finding::SkippedFiles { files } => h.skipped_files.extend(files.clone()),
            other => h.notes.push(other.to_string()),
        }
    }
    h
}

fn bad_row(b: &BadLine) -> BadRow {
    BadRow {
        path: b.path.clone(),
        line: b.line,
        reason: b.reason.clone(),
    }
}

fn verdict_letter(v: Verdict) -> char {
    match v {
        Verdict::Correct => 'c',
        Verdict::Wrong => 'w',
        Verdict::Failed => 'f',
    }
}

/// A collected problem, first seen at `origin`, as a summary row.
fn row_of(p: &CollectedProblem, origin: String) -> SummaryRow {
    let own = |s: Option<&str>| s.map(str::to_string);
    let mut row = SummaryRow {
        system: own(p.system()),
        subset: own(p.subset()),
        problem: p.problem.clone(),
        by: own(p.by_value()),
        cluster: own(p.cluster_value()),
        origin,
        numbered_by_arrival: p.numbered_by_arrival,
        ..Default::default()
    };
    match &p.data {
        ProblemData::Counts { n, c } => {
            row.n = Some(*n);
            row.c = Some(*c);
        }
        ProblemData::Rollouts(t) => {
            let rollouts: Vec<Slot> = (0..t.len()).map(|i| slot_of(t, i)).collect();
            fill_rollouts(&mut row, rollouts);
        }
    }
    row
}

/// One rollout with its score and budget, owned.
#[derive(Clone, Debug)]
struct Slot {
    rollout: Rollout,
    score: Option<f64>,
    budget: Option<f64>,
}

fn slot_of(t: &RolloutTable, i: usize) -> Slot {
    Slot {
        rollout: t.get(i).to_rollout(),
        score: t.score(i),
        budget: t.budget(i),
    }
}

/// Writes `slots` (sorted by index here) into the row's per-rollout columns.
fn fill_rollouts(row: &mut SummaryRow, mut slots: Vec<Slot>) {
    slots.sort_by_key(|s| s.rollout.index);
    let dense = slots
        .iter()
        .enumerate()
        .all(|(i, s)| s.rollout.index == i as u64);
    row.index = (!dense).then(|| slots.iter().map(|s| s.rollout.index).collect());
    row.verdicts = slots
        .iter()
        .map(|s| verdict_letter(s.rollout.verdict))
        .collect();
    let mut ids: HashMap<String, i64> = HashMap::new();
    let mut answers = Vec::new();
    let codes: Vec<i64> = slots
        .iter()
        .map(|s| match &s.rollout.answer {
            Answer::Unknown => -2,
            Answer::Unextracted => -1,
            Answer::Text(t) => *ids.entry(t.clone()).or_insert_with(|| {
                answers.push(t.clone());
                answers.len() as i64 - 1
            }),
        })
        .collect();
    if codes.iter().any(|&c| c != -2) {
        row.answer = codes;
        row.answers = answers;
    }
    row.truncated = (0..slots.len() as u64)
        .filter(|&i| slots[i as usize].rollout.truncated)
        .collect();
    let column = |f: fn(&Slot) -> Option<f64>| {
        let v: Vec<Option<f64>> = slots.iter().map(f).collect();
        v.iter().any(Option::is_some).then_some(v)
    };
    row.score = column(|s| s.score);
    row.budget = column(|s| s.budget);
}

/// The row's rollouts back, checked (`at` names the row in messages).
fn slots_of(row: &SummaryRow, at: &str) -> Result<Vec<Slot>> {
    let len = row.verdicts.len();
    let bad = |what: &str| Error::input(format!("{at}: {what}"));
    let same_len = |l: usize| l == len;
    if row.index.as_ref().is_some_and(|v| !same_len(v.len()))
        || !(row.answer.is_empty() || same_len(row.answer.len()))
        || row.score.as_ref().is_some_and(|v| !same_len(v.len()))
        || row.budget.as_ref().is_some_and(|v| !same_len(v.len()))
    {
        return Err(bad(
            "index, answer, score and budget must hold one entry per verdict",
        ));
    }
    let mut out = Vec::with_capacity(len);
    for (i, letter) in row.verdicts.chars().enumerate() {
        let verdict = match letter {
            'c' => Verdict::Correct,
            'w' => Verdict::Wrong,
            'f' => Verdict::Failed,
            other => return Err(bad(&format!("verdict '{other}' is not c, w or f"))),
        };
        let answer = match row.answer.get(i).copied().unwrap_or(-2) {
            -2 => Answer::Unknown,
            -1 => Answer::Unextracted,
            k => Answer::Text(
                row.answers
                    .get(usize::try_from(k).map_err(|_| bad("an answer code below -2"))?)
                    .ok_or_else(|| bad("an answer code past the answers list"))?
                    .clone(),
            ),
        };
        let rollout = Rollout {
            index: row.index.as_ref().map_or(i as u64, |v| v[i]),
            verdict,
            answer,
            truncated: row.truncated.binary_search(&(i as u64)).is_ok(),
        };
        let pick = |v: &Option<Vec<Option<f64>>>| v.as_ref().and_then(|v| v[i]);
        out.push(Slot {
            rollout,
            score: pick(&row.score),
            budget: pick(&row.budget),
        });
    }
    Ok(out)
}

impl Summary {
    /// The summary as JSON Lines: the header, then one row per problem.
    pub fn to_jsonl(&self) -> String {
        let mut out = header_json(&self.header);
        out.push('\n');
        for r in &self.rows {
            out.push_str(&serde_json::to_string(r).expect("a row serializes"));
            out.push('\n');
        }
        out
    }

    /// Parses JSON Lines written by [`Summary::to_jsonl`]; `name` names
    /// the input in errors (`name:line: reason`).
    pub fn from_jsonl(name: &str, text: &str) -> Result<Summary> {
        let mut lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        let (_, first) = lines
            .next()
            .ok_or_else(|| Error::input(format!("{name}: empty (no summary header)")))?;
        let header = parse_header(&format!("{name}:1"), name, first)?;
        let mut rows = Vec::new();
        for (i, line) in lines {
            let at = format!("{name}:{}", i + 1);
            let row: SummaryRow = serde_json::from_str(line)
                .map_err(|e| Error::input(format!("{at}: not a summary row ({e})")))?;
            check_row(&row, &at)?;
            rows.push(row);
        }
        Ok(Summary { header, rows })
    }
}

/// The header as the JSON text of a summary's first line (and of the Arrow
/// schema metadata).
pub(crate) fn header_json(h: &SummaryHeader) -> String {
    serde_json::to_string(h).expect("a header serializes")
}

/// A row's rollouts checked together (one entry per verdict in every
/// per-rollout list, known verdict letters, answer codes in range); `at`
/// names the row.
pub(crate) fn check_row(row: &SummaryRow, at: &str) -> Result<()> {
    if row.n.is_none() {
        slots_of(row, at)?;
    }
    Ok(())
}

/// The header in `text`, of the input `name`; `at` names where it is in
/// messages (`name:1`, or the metadata key).
pub(crate) fn parse_header(at: &str, name: &str, text: &str) -> Result<SummaryHeader> {
    let v: serde_json::Value = serde_json::from_str(text)
        .map_err(|e| Error::input(format!("{at}: not a summary header ({e})")))?;
    match v.get("rollstat_summary").and_then(|x| x.as_u64()) {
        Some(SUMMARY_VERSION) => {}
        Some(other) => {
            return Err(Error::input(format!(
            "{name}: summary format version {other}; this rollstat reads version {SUMMARY_VERSION}"
        )))
        }
        None => return Err(Error::input(format!("{at}: no rollstat_summary version"))),
    }
    serde_json::from_value(v).map_err(|e| Error::input(format!("{at}: not a summary header ({e})")))
}

/// Whether a file starts with a summary header (its first line's first key
/// is `rollstat_summary`).
pub(crate) fn is_summary_file(path: &std::path::Path) -> bool {
    let Ok(f) = std::fs::File::open(path) else {
        return false;
    };
    let mut first = Vec::new();
    let mut reader = std::io::BufReader::new(f).take(1 << 20);
    if reader.read_until(b'\n', &mut first).is_err() {
        return false;
    }
    is_summary_start(&first)
}

fn is_summary_start(bytes: &[u8]) -> bool {
    let rest = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let rest = rest.trim_ascii_start();
    rest.strip_prefix(b"{")
        .map(|r| r.trim_ascii_start().starts_with(b"\"rollstat_summary\""))
        .unwrap_or(false)
}

/// Whether standard input starts with a summary header. Only its first
/// bytes are read; they stay in place for whichever reader takes stdin.
fn is_summary_stdin() -> Result<bool> {
    // Enough for a BOM, some blank space and `{"rollstat_summary"`.
    const START: usize = 256;
    Ok(is_summary_start(&crate::read::peek_stdin(START)?))
}

/// Whether the file at `path` starts with the Parquet magic.
fn starts_parquet(path: &std::path::Path) -> bool {
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| magic == *b"PAR1")
}

impl Summary {
    /// Reads a summary file, JSON Lines or (with the `parquet` feature)
    /// Parquet, told apart by the Parquet magic; `path` names it in errors.
    pub fn read_file(path: &std::path::Path) -> Result<Summary> {
        let name = path.display().to_string();
        if starts_parquet(path) {
            #[cfg(feature = "parquet")]
            return Summary::read_parquet(path);
            #[cfg(not(feature = "parquet"))]
            return Err(Error::input(format!(
                "{name}: a Parquet file; this rollstat was built without Parquet summaries (feature `parquet`)"
            )));
        }
        let text =
            std::fs::read_to_string(path).map_err(|e| Error::input(format!("{name}: {e}")))?;
        Summary::from_jsonl(&name, &text)
    }
}

/// The summary a source holds, when it holds one: a JSON Lines file (or
/// stdin, or bytes) starting with a summary header, a Parquet file with a
/// `rollstat_summary` header in its metadata, or an in-memory summary.
fn load_summary(source: &Source) -> Result<Option<Summary>> {
    match source {
        Source::Path(p) if p.is_file() && is_summary_file(p) => Summary::read_file(p).map(Some),
        #[cfg(feature = "parquet")]
        Source::Path(p) if p.is_file() && starts_parquet(p) => crate::summary_parquet::load_path(p),
        Source::Stdin if is_summary_stdin()? => {
            let bytes = crate::read::read_all_stdin()?;
            let text = String::from_utf8(bytes)
                .map_err(|e| Error::input(format!("<stdin>: not UTF-8 ({e})")))?;
            Summary::from_jsonl("<stdin>", &text).map(Some)
        }
        #[cfg(feature = "parquet")]
        Source::Stdin if crate::read::peek_stdin(4)?.starts_with(b"PAR1") => {
            // The whole input is peeked (a Parquet footer is at its end)
            // and left in place when it is not a summary.
            let all = crate::read::peek_stdin(usize::MAX)?;
            let found = crate::summary_parquet::load_bytes("<stdin>", &all)?;
            if found.is_some() {
                drop(crate::read::read_all_stdin()?);
            }
            Ok(found)
        }
        Source::Bytes { name, bytes } if is_summary_start(bytes) => {
            let text = std::str::from_utf8(bytes)
                .map_err(|e| Error::input(format!("{name}: not UTF-8 ({e})")))?;
            Summary::from_jsonl(name, text).map(Some)
        }
        #[cfg(feature = "parquet")]
        Source::Bytes { name, bytes } if bytes.starts_with(b"PAR1") => {
            crate::summary_parquet::load_bytes(name, bytes)
        }
        Source::Summary { summary, .. } => Ok(Some((**summary).clone())),
        _ => Ok(None),
    }
}

/// The summaries among `sources`: `None` when no source is one; an error
/// when only some are.
pub(crate) fn load_summaries(sources: &[Source]) -> Result<Option<Vec<Summary>>> {
    let mut found = Vec::new();
    let mut other = Vec::new();
    for s in sources {
        match load_summary(s)? {
            Some(summary) => found.push(summary),
            None => other.push(s.name()),
        }
    }
    match (found.is_empty(), other.is_empty()) {
        (true, _) => Ok(None),
        (false, true) => Ok(Some(found)),
        (false, false) => Err(Error::input(format!(
            "the inputs mix summaries with rollout files ({}); summarize the rollout files first, or pass only rollout files",
            other.join(", ")
        ))),
    }
}

/// Merges summaries of shards: problems split across them are joined by
/// rollout index; inputs, malformed rows and counts add up, in part order
/// — the summary of the parts' rows read one after the other.
///
/// A rollout index present in two parts is a duplicate, resolved as the
/// parts' dedupe policy resolves duplicates within a file (keep the one of
/// the earlier part for `first`, the later for `last`); without a policy
/// it is an error, as it is when reading the rows.
///
/// ```
/// use rollstat::rows::{RolloutRow, Row};
/// use rollstat::{merge, summarize, ReportOptions, Source};
/// let part = |i: u64, ok: bool| {
///     let rows: Vec<Row> = vec![RolloutRow::new("p1", ok).rollout(i).into()];
///     summarize(&[Source::Rows { name: format!("shard{i}"), rows }], &ReportOptions::default()).unwrap()
/// };
/// let merged = merge(vec![part(1, true), part(0, false)]).unwrap();
/// assert_eq!(merged.rows[0].verdicts, "wc"); // rollout 0, then rollout 1
/// assert_eq!(merged.header.inputs.len(), 2);
/// assert!(merge(vec![part(0, true), part(0, false)]).is_err()); // a duplicate, no dedupe policy
/// ```
pub fn merge(parts: Vec<Summary>) -> Result<Summary> {
    let mut parts = parts.into_iter();
    let mut out = parts
        .next()
        .ok_or_else(|| Error::input("nothing to merge: no summaries given"))?;
    let mut index: HashMap<(Option<String>, Option<String>, String), usize> = HashMap::new();
    for (i, r) in out.rows.iter().enumerate() {
        index.insert((r.system.clone(), r.subset.clone(), r.problem.clone()), i);
    }
    let dedupe = dedupe_of(out.header.reading.dedupe.as_deref());
    for part in parts {
        if part.header.reading != out.header.reading {
            return Err(Error::input(format!(
                "the summaries were made under different reading options ({:?} and {:?}); summarize every part with the same options",
                out.header.reading, part.header.reading
            )));
        }
        add_header(&mut out.header, part.header);
        for row in part.rows {
            let key = (row.system.clone(), row.subset.clone(), row.problem.clone());
            match index.get(&key) {
                Some(&at) => {
                    let n_dup = join_rows(&mut out.rows[at], row, dedupe)?;
                    out.header.n_duplicate_rollouts += n_dup;
                }
                None => {
                    index.insert(key, out.rows.len());
                    out.rows.push(row);
                }
            }
        }
    }
    Ok(out)
}

fn add_header(h: &mut SummaryHeader, part: SummaryHeader) {
    h.inputs.extend(part.inputs);
    h.bad_lines.extend(part.bad_lines);
    h.n_duplicate_rollouts += part.n_duplicate_rollouts;
    h.n_graded += part.n_graded;
    h.n_grading_undecided += part.n_grading_undecided;
    h.notes.extend(part.notes);
    h.unreadable_files.extend(part.unreadable_files);
    h.skipped_files.extend(part.skipped_files);
    h.messages.extend(part.messages);
}

/// Joins a later part's row of the same problem into `row`; returns the
/// duplicated rollouts resolved.
fn join_rows(row: &mut SummaryRow, later: SummaryRow, dedupe: Option<Dedupe>) -> Result<u64> {
    let name = format!("problem '{}'", row.problem);
    if row.n.is_some() || later.n.is_some() {
        return Err(Error::input(format!(
            "{name} has a count row in one summary ({}) and rows in another ({}); a count row must be a problem's only row",
            row.origin, later.origin
        )));
    }
    if row.by != later.by || row.cluster != later.cluster {
        return Err(Error::input(format!(
            "{name} has different breakdown or cluster values in {} and {}",
            row.origin, later.origin
        )));
    }
    if row.numbered_by_arrival || later.numbered_by_arrival {
        return Err(Error::input(format!(
            "{name} is split across summaries ({} and {}) and some of its rows carry no rollout index: their numbering depends on the split; give every row its `rollout` index or summarize the problem's rows together",
            row.origin, later.origin
        )));
    }
    let mut slots = slots_of(row, &row.origin)?;
    let mut at: HashMap<u64, usize> = slots
        .iter()
        .enumerate()
        .map(|(i, s)| (s.rollout.index, i))
        .collect();
    let mut n_dup = 0;
    for s in slots_of(&later, &later.origin)? {
        match at.get(&s.rollout.index) {
            None => {
                at.insert(s.rollout.index, slots.len());
                slots.push(s);
            }
            Some(&i) => {
                n_dup += 1;
                match dedupe {
                    None => {
                        return Err(Error::DuplicateAcrossSummaries {
                            problem: name.to_string(),
                            rollout: s.rollout.index,
                            first: row.origin.to_string(),
                            again: later.origin.to_string(),
                        })
                    }
                    Some(Dedupe::First) => {}
                    Some(Dedupe::Last) => slots[i] = s,
                }
            }
        }
    }
    fill_rollouts(row, slots);
    Ok(n_dup)
}

/// Checks that a summary can stand in for rows read under `read` and
/// `grading`.
fn check_reading(name: &str, h: &Reading, read: &ReadOptions, grading: &str) -> Result<()> {
    let mismatch = |what: &str, had: String, asked: String| {
        Err(Error::input(format!(
            "{name}: the summary was made with {what} {had}, this reading asks for {asked}; summarize again with the same options"
        )))
    };
    let show = |o: &Option<String>| o.clone().unwrap_or_else(|| "none".into());
    if h.by != read.by {
        return mismatch("breakdown field", show(&h.by), show(&read.by));
    }
    if h.cluster_by != read.cluster_by {
        return mismatch("cluster field", show(&h.cluster_by), show(&read.cluster_by));
    }
    if read.budget.is_some() && h.budget != read.budget {
        return mismatch("budget field", show(&h.budget), show(&read.budget));
    }
    if h.grading != grading {
        return mismatch("grading", h.grading.clone(), grading.to_string());
    }
    Ok(())
}

/// The rows of merged summaries as the reader's problems (checked against
/// the reading options), with the gradings left undecided while reading.
pub(crate) fn into_inputs(
    parts: Vec<Summary>,
    read: &ReadOptions,
    grading: &str,
) -> Result<(Inputs, u64)> {
    let s = merge(parts)?;
    check_reading("summary", &s.header.reading, read, grading)?;
    let h = s.header;
    if h.n_duplicate_rollouts > 0 && read.dedupe != dedupe_of(h.reading.dedupe.as_deref()) {
        return Err(Error::input(format!(
            "the summary resolved {} duplicated rollout(s) keeping the {}; read it with the same choice",
            h.n_duplicate_rollouts,
            h.reading.dedupe.as_deref().unwrap_or("none")
        )));
    }
    if read.strict {
        if let Some(b) = h.bad_lines.first() {
            return Err(Error::Read(rollstat_io::ReadError::Strict(
                rollstat_io::BadLine {
                    path: b.path.clone(),
                    line: b.line,
                    reason: b.reason.clone(),
                },
            )));
        }
    }
    let mut problems = Vec::with_capacity(s.rows.len());
    let mut labels = LabelInterner::default();
    let mut origins = Vec::new();
    for row in s.rows {
        problems.push(problem_of(
            row,
            read.budget.is_some(),
            &mut labels,
            &mut origins,
        )?);
    }
    finish_inputs(h, problems, origins)
}

/// A summary row as a collected problem, its labels shared through
/// `labels` and its origin kept in `origins`.
fn problem_of(
    row: SummaryRow,
    keep_budget: bool,
    labels: &mut LabelInterner,
    origins: &mut Vec<String>,
) -> Result<CollectedProblem> {
    let data = match (row.n, row.c) {
        (Some(n), Some(c)) => ProblemData::Counts { n, c },
        _ => {
            let slots = slots_of(&row, &row.origin)?;
            let mut t = RolloutTable::default();
            for s in &slots {
                t.push(&s.rollout)
                    .map_err(|e| Error::input(format!("{}: {e}", row.origin)))?;
            }
            if row.score.is_some() {
                t = t.with_scores(&slots.iter().map(|s| s.score).collect::<Vec<_>>());
            }
            if keep_budget && row.budget.is_some() {
                t = t.with_budgets(&slots.iter().map(|s| s.budget).collect::<Vec<_>>());
            }
            ProblemData::Rollouts(Box::new(t))
        }
    };
    Ok(CollectedProblem {
        problem: row.problem,
        labels: labels.get(Labels {
            system: row.system,
            subset: row.subset,
            by_value: row.by,
            cluster_value: row.cluster,
        }),
        origin: Collected::text_origin(origins, row.origin),
        numbered_by_arrival: row.numbered_by_arrival,
        data,
    })
}

fn finish_inputs(
    h: SummaryHeader,
    mut problems: Vec<CollectedProblem>,
    origin_texts: Vec<String>,
) -> Result<(Inputs, u64)> {
    crate::population::canonical_order(&mut problems);
    let mut systems: Vec<String> = problems
        .iter()
        .filter_map(|p| p.system().map(str::to_string))
        .collect();
    systems.sort();
    systems.dedup();
    if problems.is_empty() {
        return Err(Error::NoProblems("the summary holds no problems".into()));
    }
    let mut findings: Vec<Finding> = h.notes.into_iter().map(Finding::adapter_note).collect();
    if !h.unreadable_files.is_empty() {
        findings.push(Finding::UnreadableFiles {
            files: h.unreadable_files,
        });
    }
    if !h.skipped_files.is_empty() {
        findings.push(Finding::SkippedFiles {
            files: h.skipped_files,
        });
    }
    let collected = Collected {
        inputs: h.inputs,
        problems,
        origin_texts,
        bad_lines: h
            .bad_lines
            .into_iter()
            .map(|b| BadLine {
                path: b.path,
                line: b.line,
                reason: b.reason,
            })
            .collect(),
        n_duplicate_rollouts: h.n_duplicate_rollouts,
        // A summary keeps the count of duplicates, not their inputs.
        cross_file_duplicates: Default::default(),
        n_graded: h.n_graded,
        systems,
    };
    let inputs = Inputs {
        collected,
        aggregates: Vec::new(),
        findings,
        scopes: Default::default(),
        messages: h.messages,
    };
    Ok((inputs, h.n_grading_undecided))
}
