//! # rollstat-io
//!
//! Reads rollstat's canonical input — JSON Lines or CSV with the columns of
//! docs/spec.md §2, from files or stdin — and collects rows into problems.
//!
//! The flow is: bytes ([`Input`], read in blocks while the previous block
//! is processed) → parsed rows (in parallel: a byte scanner for flat rollout
//! rows and count rows, serde for everything else, [`record::Record`]) →
//! [`Collector`],
//! which routes rows by problem to shards that fold in parallel, each in
//! input order — grouping rows by problem (and by system, so two models in
//! one file never merge), assigning rollout indices, detecting duplicates,
//! grading rows that carry a `gold` but no verdict — and yields one
//! [`CollectedProblem`] per problem, in order of first appearance. The
//! result does not depend on the number of threads.
//!
//! Bad input is never a panic and never a silently changed number: each
//! malformed row becomes a [`BadLine`] (`path:line: reason`) that is counted,
//! or, under `strict`, the error.
//!
//! ```
//! use rollstat_io::{Collector, Input, ReadOptions};
//! let data = b"{\"problem\": \"p1\", \"correct\": true}\n{\"problem\": \"p1\", \"correct\": false}\n";
//! let mut c = Collector::new(ReadOptions::default());
//! c.add(Input::from_bytes("demo.jsonl", data.to_vec())).unwrap();
//! let out = c.finish().unwrap();
//! assert_eq!(out.problems.len(), 1);
//! assert_eq!(out.inputs[0].records, 2);
//! ```

mod fast;
pub mod field_map;
mod fold;
pub mod record;
mod scan;
mod source;

pub use fast::{FlatAnswer, FlatExtra, FlatRow};
pub use fold::CrossFile;
pub use source::{Input, InputFormat};
use std::sync::Arc;

/// Parsed rows as whole records.
fn full(
    rows: Vec<(u64, Result<Record, String>)>,
) -> Vec<(u64, Result<RowRecord<'static>, String>)> {
    rows.into_iter()
        .map(|(line, r)| (line, r.map(RowRecord::from)))
        .collect()
}

/// One in-memory row, parsed: a flat rollout row with borrowed text, or a
/// whole record (problem rows, count rows, rows with a selector score).
pub enum RowRecord<'a> {
    /// A flat rollout row.
    Flat(FlatRow<'a>),
    /// Any row (boxed: large, and rarer).
    Full(Box<Record>),
}

impl From<Record> for RowRecord<'_> {
    fn from(r: Record) -> Self {
        RowRecord::Full(Box::new(r))
    }
}
use std::io::Read;

use fold::{Context, Item, Shard};
use record::Record;
use rollstat_core::input::InputInfo;
use rollstat_core::summary::{Answer, ProblemData, Verdict};
use std::fmt;

/// What to keep when the same (problem, rollout index) appears twice.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dedupe {
    First,
    Last,
}

impl std::str::FromStr for Dedupe {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "first" => Ok(Dedupe::First),
            "last" => Ok(Dedupe::Last),
            _ => Err(format!(
                "unknown dedupe policy '{s}'; expected first or last"
            )),
        }
    }
}

impl fmt::Display for Dedupe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Dedupe::First => "first",
            Dedupe::Last => "last",
        })
    }
}

/// Reader options.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Breakdown field.
    pub by: Option<String>,
    /// First bad row is an error.
    pub strict: bool,
    /// Keep one of duplicated rollouts instead of failing.
    pub dedupe: Option<Dedupe>,
    /// Field whose value clusters problems.
    pub cluster_by: Option<String>,
    /// Field holding each rollout's budget (tokens, cost, seconds), if
    /// any: a number on rollout rows, an array on problem rows.
    pub budget: Option<String>,
    /// Bytes read so far, for a progress display.
    pub bytes_read: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
    /// Where each canonical field is in records of another layout
    /// ([`field_map::FieldMap`]); applied by the files pipeline.
    pub field_map: Option<field_map::FieldMap>,
}

/// Decides rows that carry `gold` but no `correct`.
pub trait Grader: Sync {
    /// Returns the verdict and the extracted answer.
    fn grade(&self, gold: &str, answer: &Answer, response: Option<&str>) -> (Verdict, Answer);
    /// A short name recorded in the report.
    fn name(&self) -> String;
}

/// Compares a given `answer` with `gold` as trimmed strings; extracts
/// nothing from a bare `response` (the row counts as unextracted).
#[derive(Clone, Copy, Debug, Default)]
pub struct ExactGrader;

impl Grader for ExactGrader {
    fn grade(&self, gold: &str, answer: &Answer, _response: Option<&str>) -> (Verdict, Answer) {
        match answer {
            Answer::Text(a) if a.trim() == gold.trim() => (Verdict::Correct, answer.clone()),
            Answer::Text(_) => (Verdict::Wrong, answer.clone()),
            _ => (Verdict::Wrong, Answer::Unextracted),
        }
    }
    fn name(&self) -> String {
        "exact-string".into()
    }
}

/// A malformed row: where it is and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadLine {
    pub path: String,
    pub line: u64,
    pub reason: String,
}

impl fmt::Display for BadLine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.path, self.line, self.reason)
    }
}

/// Errors that stop reading.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        #[source]
        source: std::io::Error,
    },
    /// A bad row under strict mode.
    #[error("{0} (strict mode stops at the first bad row)")]
    Strict(BadLine),
    /// Duplicated (problem, rollout) without a dedupe policy.
    #[error(
        "{first}; {count} duplicated rollout(s) in all — fix the input or choose which to keep (first or last)"
    )]
    Duplicates { first: BadLine, count: u64 },
    #[error("{path}: no records (the file is empty)")]
    Empty { path: String },
}

/// A problem as collected from the input: its id, its labels (shared with
/// every problem that has the same ones), where it was first seen (eight
/// bytes, formatted only when shown) and its rows. A problem of count rows
/// takes 72 bytes and one allocation (its id).
#[derive(Clone, Debug)]
pub struct CollectedProblem {
    pub problem: String,
    /// `system`, `subset`, `--by` and `--cluster-by` values; `None` when the
    /// problem has none of them.
    pub labels: Option<Arc<Labels>>,
    /// Where the problem was first seen ([`Collected::origin`] shows it).
    pub origin: Origin,
    /// Some rollout of the problem had no index and was numbered by its
    /// arrival: its index depends on which rows came before it, so the
    /// problem's rows cannot be split across separately read parts.
    pub numbered_by_arrival: bool,
    pub data: ProblemData,
}

impl CollectedProblem {
    /// The `model`/`run` value.
    pub fn system(&self) -> Option<&str> {
        self.labels.as_ref()?.system.as_deref()
    }
    /// The `subset` the problem belongs to (part of its identity).
    pub fn subset(&self) -> Option<&str> {
        self.labels.as_ref()?.subset.as_deref()
    }
    /// The `--by` value.
    pub fn by_value(&self) -> Option<&str> {
        self.labels.as_ref()?.by_value.as_deref()
    }
    /// The `--cluster-by` value.
    pub fn cluster_value(&self) -> Option<&str> {
        self.labels.as_ref()?.cluster_value.as_deref()
    }
}

/// A problem's labels besides its id.
///
/// ```
/// use rollstat_io::{LabelInterner, Labels};
/// let mut interner = LabelInterner::default();
/// assert!(interner.get(Labels::default()).is_none());
/// let a = interner.get(Labels { subset: Some("s".into()), ..Labels::default() }).unwrap();
/// let b = interner.get(Labels { subset: Some("s".into()), ..Labels::default() }).unwrap();
/// assert!(std::sync::Arc::ptr_eq(&a, &b));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Labels {
    pub system: Option<String>,
    pub subset: Option<String>,
    pub by_value: Option<String>,
    pub cluster_value: Option<String>,
}

/// Shares equal [`Labels`] between problems: each distinct set is stored
/// once; a set with no label is `None`.
#[derive(Default)]
pub struct LabelInterner(std::collections::HashMap<Labels, Arc<Labels>>);

impl LabelInterner {
    /// The shared copy of `labels` (`None` when it holds no label).
    pub fn get(&mut self, labels: Labels) -> Option<Arc<Labels>> {
        if labels == Labels::default() {
            return None;
        }
        Some(
            self.0
                .entry(labels.clone())
                .or_insert_with(|| Arc::new(labels))
                .clone(),
        )
    }
}

/// Everything read.
#[derive(Debug, Default)]
pub struct Collected {
    pub inputs: Vec<InputInfo>,
    pub problems: Vec<CollectedProblem>,
    /// The origins that are texts ([`Origin::text`]), e.g. read back from a
    /// summary.
    pub origin_texts: Vec<String>,
    pub bad_lines: Vec<BadLine>,
    pub n_duplicate_rollouts: u64,
    /// Of the duplicated rollouts, those whose two copies come from
    /// different inputs (resolved by the dedupe policy all the same).
    pub cross_file_duplicates: CrossFile,
    pub n_graded: u64,
    /// Distinct `model`/`run` values seen.
    pub systems: Vec<String>,
}

impl Collected {
    /// Where a problem was first seen, as `path:line` (or its text).
    ///
    /// ```
    /// use rollstat_io::{Collector, Input, ReadOptions};
    /// let mut c = Collector::new(ReadOptions::default());
    /// c.add(Input::from_bytes("a.jsonl", b"\n{\"problem\": \"p\", \"correct\": true}\n".to_vec())).unwrap();
    /// let out = c.finish().unwrap();
    /// assert_eq!(out.origin(out.problems[0].origin), "a.jsonl:2");
    /// ```
    pub fn origin(&self, o: Origin) -> String {
        o.show(&self.inputs, &self.origin_texts)
    }

    /// Adds an origin given as text (kept in [`Collected::origin_texts`]).
    pub fn text_origin(texts: &mut Vec<String>, text: String) -> Origin {
        texts.push(text);
        Origin::text(texts.len() - 1)
    }
}

/// Where a row was read: the input's index (high 20 bits) and the line
/// (low 43 bits), packed — kept per rollout, so it is small; or, with bit
/// 43 set, the index of a text origin ([`Collected::origin_texts`]). An
/// input past the first [`Origin::MAX_FILES`] − 1 is not told apart from
/// the others past it: its rows show as such, never under another input's
/// path.
///
/// ```
/// use rollstat_io::Origin;
/// assert_eq!(Origin::text(3).text_index(), Some(3));
/// assert_eq!(Origin::new(2, 10).text_index(), None);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin(u64);

const FILE_SHIFT: u32 = 44;
const TEXT_ORIGIN: u64 = 1 << 43;
const LINE_MASK: u64 = TEXT_ORIGIN - 1;

impl Origin {
    /// Inputs an origin tells apart (the last index stands for every
    /// input from it on).
    pub const MAX_FILES: usize = 1 << (64 - FILE_SHIFT);

    /// Line `line` of input `file`.
    pub fn new(file: usize, line: u64) -> Origin {
        let file = file.min(Self::MAX_FILES - 1) as u64;
        Origin((file << FILE_SHIFT) | (line & LINE_MASK))
    }
    /// Text origin number `i`.
    pub fn text(i: usize) -> Origin {
        Origin(TEXT_ORIGIN | (i as u64 & LINE_MASK))
    }
    /// As `path:line`, the path that of input `inputs[file]`; or text
    /// `texts[i]`.
    pub fn show(self, inputs: &[InputInfo], texts: &[String]) -> String {
        match self.text_index() {
            Some(i) => texts.get(i).cloned().unwrap_or_default(),
            None if self.file() == Self::MAX_FILES - 1 => format!(
                "(an input after the first {}):{}",
                Self::MAX_FILES - 1,
                self.line()
            ),
            None => {
                let path = inputs.get(self.file()).map_or("?", |p| p.path.as_str());
                format!("{path}:{}", self.line())
            }
        }
    }
    /// The index of a text origin.
    pub fn text_index(self) -> Option<usize> {
        (self.0 & TEXT_ORIGIN != 0).then_some((self.0 & LINE_MASK) as usize)
    }
    /// The index of the input a file origin is in (None for a text
    /// origin).
    ///
    /// ```
    /// use rollstat_io::Origin;
    /// assert_eq!(Origin::new(2, 10).input_index(), Some(2));
    /// assert_eq!(Origin::text(3).input_index(), None);
    /// ```
    pub fn input_index(self) -> Option<usize> {
        self.text_index().is_none().then(|| self.file())
    }
    pub(crate) fn file(self) -> usize {
        (self.0 >> FILE_SHIFT) as usize
    }
    pub(crate) fn line(self) -> u64 {
        self.0 & LINE_MASK
    }
}

/// Groups rows from any number of inputs into problems.
///
/// Rows go to one of [`fold::SHARDS`] shards by the hash of their problem
/// key and are folded there in input order; blocks of a streamed input
/// fold all shards in parallel.
pub struct Collector<'g> {
    opts: ReadOptions,
    grader: &'g dyn Grader,
    inputs: Vec<InputInfo>,
    paths: Vec<String>,
    shards: Vec<Shard>,
    /// Rows seen so far (the next row's sequence number).
    seq: u64,
    /// Bad rows found while parsing: (sequence number, what is wrong).
    bad: Vec<(u64, BadLine)>,
}

impl Collector<'static> {
    /// A collector that grades with [`ExactGrader`].
    pub fn new(opts: ReadOptions) -> Collector<'static> {
        Collector::with_grader(opts, &ExactGrader)
    }
}

/// A chunk of a block, parsed: its rows, which of them each shard folds,
/// and its bad rows.
struct ParsedChunk<'a> {
    items: Vec<Item<'a>>,
    /// Per shard, positions in `items` with the row's key hash, in input
    /// order (the hash at hand lets a shard fetch ahead what a row needs).
    shards: Vec<Vec<(u32, u64)>>,
    bad: Vec<(u64, BadLine)>,
}

impl<'g> Collector<'g> {
    /// A collector that grades ungraded rows with `grader`.
    pub fn with_grader(opts: ReadOptions, grader: &'g dyn Grader) -> Collector<'g> {
        Collector {
            opts,
            grader,
            inputs: Vec::new(),
            paths: Vec::new(),
            shards: (0..fold::SHARDS).map(|_| Shard::default()).collect(),
            seq: 0,
            bad: Vec::new(),
        }
    }

    fn start_input(&mut self, info: InputInfo) {
        self.paths.push(info.path.clone());
        self.inputs.push(info);
    }

    /// Reads one canonical input.
    pub fn add(&mut self, input: Input) -> Result<(), ReadError> {
        let path = input.display_path().to_string();
        let format = input.format();
        self.start_input(InputInfo {
            path: path.clone(),
            format: format.to_string(),
            sha256: String::new(),
            records: 0,
            field_map: None,
        });
        let io = |source| ReadError::Io {
            path: path.clone(),
            source,
        };
        let mut reader = input.into_reader();
        let mut hasher = source::hasher();
        let records = if format == InputFormat::Csv {
            self.add_csv(&path, &mut reader, &mut hasher, &io)?
        } else {
            self.add_json_lines(&mut reader, &mut hasher, &io)?
        };
        let info = self.inputs.last_mut().expect("pushed above");
        info.sha256 = source::hex(&sha2::Digest::finalize(hasher));
        info.records = records;
        if records == 0 {
            return Err(ReadError::Empty { path });
        }
        Ok(())
    }

    /// Reads and folds a CSV input whole (quoting can span lines; CSV
    /// inputs are small). Returns the number of rows.
    fn add_csv(
        &mut self,
        path: &str,
        reader: &mut Box<dyn Read + Send>,
        hasher: &mut sha2::Sha256,
        io: &impl Fn(std::io::Error) -> ReadError,
    ) -> Result<u64, ReadError> {
        let mut bytes = Vec::new();
        reader.read_to_end(&mut bytes).map_err(io)?;
        sha2::Digest::update(hasher, &bytes);
        let rows = source::parse_csv(
            &bytes,
            self.opts.by.as_deref(),
            self.opts.cluster_by.as_deref(),
            self.opts.budget.as_deref(),
        );
        let records = rows.len() as u64;
        self.push_rows(path, full(rows))?;
        Ok(records)
    }

    /// Streams JSON Lines in blocks cut at a newline. While a block is
    /// hashed (one thread) and parsed and folded (the others), the next
    /// block is read into a second buffer. Returns the number of rows.
    fn add_json_lines(
        &mut self,
        reader: &mut Box<dyn Read + Send>,
        hasher: &mut sha2::Sha256,
        io: &impl Fn(std::io::Error) -> ReadError,
    ) -> Result<u64, ReadError> {
        let counter = self.opts.bytes_read.clone();
        let counter = counter.as_deref();
        let mut cur: Vec<u8> = vec![0; source::BLOCK];
        let mut next: Vec<u8> = vec![0; source::BLOCK];
        let (mut filled, mut eof) = fill(reader, &mut cur, 0, counter).map_err(io)?;
        // Bytes at the start of `cur` already hashed (a carried-over line).
        let mut hashed = 0usize;
        let mut next_line = 1u64;
        let mut records = 0u64;
        loop {
            let Some(cut) = block_end(&cur[..filled], eof) else {
                // One line longer than the buffer: grow it, read on.
                let grown = cur.len() * 2;
                cur.resize(grown, 0);
                (filled, eof) = fill(reader, &mut cur, filled, counter).map_err(io)?;
                continue;
            };
            let left = filled - cut;
            carry_over(&cur[cut..filled], &mut next);
            let (_, ((rows, lines), read)) = rayon::join(
                || sha2::Digest::update(hasher, &cur[hashed..filled]),
                || {
                    rayon::join(
                        || self.fold_block(&cur[..cut], next_line),
                        || {
                            if eof {
                                Ok((left, true))
                            } else {
                                fill(reader, &mut next, left, counter)
                            }
                        },
                    )
                },
            );
            records += rows;
            if self.opts.strict {
                self.check_strict()?;
            }
            next_line += lines;
            if eof && left == 0 {
                break;
            }
            std::mem::swap(&mut cur, &mut next);
            (filled, eof) = read.map_err(io)?;
            hashed = left;
        }
        Ok(records)
    }

    /// Parses a block of JSON Lines in parallel into per-shard buckets, then
    /// folds each shard's rows (in input order) in parallel. Returns the
    /// number of non-blank rows.
    fn fold_block(&mut self, bytes: &[u8], first_line: u64) -> (u64, u64) {
        use rayon::prelude::*;
        let (by, cluster_by) = (self.opts.by.as_deref(), self.opts.cluster_by.as_deref());
        let budget = self.opts.budget.as_deref();
        let pieces = split_pieces(bytes);
        let (piece_first, n_lines) = number_pieces(bytes, &pieces, first_line);
        // Sequence numbers follow line numbers (unique, in input order).
        let base = self.seq;
        self.seq += n_lines + 1;
        let seq_of = |line: u64| base + (line - first_line);
        let path = &self.paths[self.paths.len() - 1];
        let fields = (by, cluster_by, budget);
        let chunks: Vec<ParsedChunk<'_>> = pieces
            .par_iter()
            .zip(piece_first)
            .map(|(range, line0)| parse_piece(&bytes[range.clone()], line0, seq_of, fields, path))
            .collect();
        let n_rows: u64 = chunks
            .iter()
            .map(|c| (c.items.len() + c.bad.len()) as u64)
            .sum();
        let cx = Context {
            file: self.paths.len() - 1,
            path,
            paths: &self.paths,
            by,
            grader: self.grader,
        };
        self.shards
            .par_iter_mut()
            .enumerate()
            .for_each(|(s, shard)| {
                for chunk in &chunks {
                    fold_rows(shard, &chunk.items, &chunk.shards[s], &cx);
                }
            });
        for chunk in chunks {
            self.bad.extend(chunk.bad);
        }
        (n_rows, n_lines)
    }

    /// Under `strict`, the earliest bad row so far is the error.
    fn check_strict(&self) -> Result<(), ReadError> {
        let first = self
            .bad
            .iter()
            .chain(self.shards.iter().flat_map(|s| s.bad.iter()))
            .min_by_key(|(seq, _)| *seq);
        match first {
            Some((_, bad)) => Err(ReadError::Strict(bad.clone())),
            None => Ok(()),
        }
    }

    /// Folds already-parsed rows as [`Collector::fold_block`] folds a
    /// block: keyed in parallel, then each shard's rows in input order, the
    /// shards in parallel. Under `strict` the earliest bad row is the error
    /// — the one a row-at-a-time fold stops at, since a shard's verdict on a
    /// row depends only on the rows before it.
    fn push_rows<'r>(
        &mut self,
        path: &str,
        rows: Vec<(u64, Result<RowRecord<'r>, String>)>,
    ) -> Result<(), ReadError> {
        use rayon::prelude::*;
        let base = self.seq;
        self.seq += rows.len() as u64;
        let items = key_rows(rows, base);
        let mut shards: Vec<Vec<usize>> = vec![Vec::new(); fold::SHARDS];
        for (i, item) in items.iter().enumerate() {
            match item {
                Ok(item) => shards[fold::shard_of(item.hash)].push(i),
                Err((line, reason)) => self.bad.push((
                    base + i as u64,
                    BadLine {
                        path: path.to_string(),
                        line: *line,
                        reason: reason.clone(),
                    },
                )),
            }
        }
        let cx = Context {
            file: self.paths.len() - 1,
            path,
            paths: &self.paths,
            by: self.opts.by.as_deref(),
            grader: self.grader,
        };
        self.shards
            .par_iter_mut()
            .zip(shards)
            .for_each(|(shard, mine)| {
                for i in mine {
                    if let Ok(item) = &items[i] {
                        shard.push(item, &cx);
                    }
                }
            });
        if self.opts.strict {
            self.check_strict()?;
        }
        Ok(())
    }

    /// Adds already-parsed rows (e.g. from a native-format adapter).
    pub fn add_rows(
        &mut self,
        info: InputInfo,
        rows: Vec<(u64, Result<Record, String>)>,
    ) -> Result<(), ReadError> {
        self.add_row_records(info, full(rows))
    }

    /// Adds already-parsed in-memory rows, folded in parallel (a table's
    /// rows, flat ones borrowing their text from its columns).
    pub fn add_row_records(
        &mut self,
        info: InputInfo,
        rows: Vec<(u64, Result<RowRecord<'_>, String>)>,
    ) -> Result<(), ReadError> {
        let path = info.path.clone();
        self.start_input(info);
        self.push_rows(&path, rows)
    }

    /// Starts an input whose rows come in pieces ([`Collector::more_row_records`]).
    pub fn start_rows(&mut self, info: InputInfo) {
        self.start_input(info);
    }

    /// Adds one piece of the current input's parsed rows (counted in its
    /// `records`), folded in parallel; pieces fold in order, so the result
    /// is that of all rows added at once.
    pub fn more_row_records(
        &mut self,
        rows: Vec<(u64, Result<RowRecord<'_>, String>)>,
    ) -> Result<(), ReadError> {
        let Some(info) = self.inputs.last_mut() else {
            unreachable!("more_row_records follows start_rows")
        };
        info.records += rows.len() as u64;
        let path = info.path.clone();
        self.push_rows(&path, rows)
    }

    /// Records a bad row (or fails under `strict`).
    pub fn bad_line(&mut self, bad: BadLine) -> Result<(), ReadError> {
        if self.opts.strict {
            return Err(ReadError::Strict(bad));
        }
        self.bad.push((self.seq, bad));
        self.seq += 1;
        Ok(())
    }

    /// Resolves duplicates and returns the problems in order of first
    /// appearance.
    pub fn finish(self) -> Result<Collected, ReadError> {
        let (mut out, seqs) = self.finish_unordered()?;
        let mut order: Vec<usize> = (0..seqs.len()).collect();
        order.sort_unstable_by_key(|&i| seqs[i]);
        drop(seqs);
        permute(&mut out.problems, &order);
        out.systems = systems_of(&out.problems);
        Ok(out)
    }

    /// Resolves duplicates and returns the problems sorted by (system,
    /// subset, id) as [`sort_problems`] sorts them: the order of first
    /// appearance is never made (one reordering of the problems, not two).
    /// `systems` lists the systems in that order, which is theirs sorted.
    ///
    /// ```
    /// use rollstat_io::{Collector, Input, ReadOptions};
    /// let data = b"{\"problem\": \"b\", \"n\": 2, \"c\": 1}\n{\"problem\": \"a\", \"n\": 2, \"c\": 0}\n";
    /// let mut c = Collector::new(ReadOptions::default());
    /// c.add(Input::from_bytes("demo.jsonl", data.to_vec())).unwrap();
    /// let out = c.finish_sorted().unwrap();
    /// assert_eq!(out.problems[0].problem, "a");
    /// assert_eq!(out.origin(out.problems[0].origin), "demo.jsonl:2");
    /// ```
    pub fn finish_sorted(self) -> Result<Collected, ReadError> {
        let (mut out, seqs) = self.finish_unordered()?;
        drop(seqs);
        sort_problems(&mut out.problems);
        out.systems = systems_of(&out.problems);
        Ok(out)
    }

    /// Every shard's problems, shard after shard, with each problem's first
    /// sequence number; duplicates resolved (an error without a policy).
    fn finish_unordered(self) -> Result<(Collected, Vec<u64>), ReadError> {
        let mut bad: Vec<(u64, BadLine)> = self.bad;
        let mut n_graded = 0;
        // Shards finish one at a time into one vector sized up front, so a
        // shard's folding state is freed as its problems arrive (never all
        // of both at once).
        let total: usize = self.shards.iter().map(fold::Shard::len).sum();
        let mut finished = fold::Finished {
            seqs: Vec::with_capacity(total),
            problems: Vec::with_capacity(total),
            duplicates: Default::default(),
        };
        for mut shard in self.shards {
            bad.append(&mut shard.bad);
            n_graded += shard.n_graded;
            shard.finish(self.opts.dedupe, &self.paths, &mut finished);
        }
        bad.sort_by_key(|(seq, _)| *seq);
        let fold::Finished {
            seqs,
            problems,
            duplicates,
        } = finished;
        let n_duplicate_rollouts = duplicates.count;
        if let (Some((_, first)), None) = (duplicates.first, self.opts.dedupe) {
            return Err(ReadError::Duplicates {
                first,
                count: n_duplicate_rollouts,
            });
        }
        let out = Collected {
            inputs: self.inputs,
            problems,
            bad_lines: bad.into_iter().map(|(_, b)| b).collect(),
            n_duplicate_rollouts,
            cross_file_duplicates: duplicates.across.1,
            n_graded,
            ..Default::default()
        };
        Ok((out, seqs))
    }
}

/// Reads into `buf[filled..]` until it is full or the input ends; returns
/// how much of `buf` is filled and whether the input ended. The bytes read
/// are added to `counter`.
fn fill<R: Read + ?Sized>(
    reader: &mut R,
    buf: &mut [u8],
    mut filled: usize,
    counter: Option<&std::sync::atomic::AtomicU64>,
) -> std::io::Result<(usize, bool)> {
    let start = filled;
    let mut eof = false;
    while filled < buf.len() {
        let got = reader.read(&mut buf[filled..])?;
        if got == 0 {
            eof = true;
            break;
        }
        filled += got;
    }
    if let Some(c) = counter {
        c.fetch_add(
            (filled - start) as u64,
            std::sync::atomic::Ordering::Relaxed,
        );
    }
    Ok((filled, eof))
}

/// Where the whole lines of a filled buffer end: after its last newline,
/// or at its end once the input ended; `None` when a line runs past it.
fn block_end(filled: &[u8], eof: bool) -> Option<usize> {
    if eof {
        return Some(filled.len());
    }
    memchr::memrchr(b'\n', filled).map(|i| i + 1)
}

/// Copies the part line after a block's cut to the start of the next
/// buffer, growing it when less than half a block would be left to read.
fn carry_over(left: &[u8], next: &mut Vec<u8>) {
    if next.len() < left.len() + source::BLOCK / 2 {
        next.resize(left.len() + source::BLOCK, 0);
    }
    next[..left.len()].copy_from_slice(left);
}

/// Cuts a block into pieces of about 128 KiB, each ending at a newline,
/// to be parsed in parallel. (A sequential split of the block into lines
/// left a core idle for a third of the time.)
fn split_pieces(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    const PIECE: usize = 128 << 10;
    let mut pieces: Vec<std::ops::Range<usize>> = Vec::with_capacity(bytes.len() / PIECE + 1);
    let mut start = 0;
    while start < bytes.len() {
        let mut end = (start + PIECE).min(bytes.len());
        if end < bytes.len() {
            end = memchr::memchr(b'\n', &bytes[end..]).map_or(bytes.len(), |i| end + i + 1);
        }
        pieces.push(start..end);
        start = end;
    }
    pieces
}

/// The number of each piece's first line, the block's first being
/// `first_line`, and the number of lines in the block (each piece's lines
/// are counted in parallel).
fn number_pieces(
    bytes: &[u8],
    pieces: &[std::ops::Range<usize>],
    first_line: u64,
) -> (Vec<u64>, u64) {
    use rayon::prelude::*;
    let newlines: Vec<u64> = pieces
        .par_iter()
        .map(|r| memchr::memchr_iter(b'\n', &bytes[r.clone()]).count() as u64)
        .collect();
    let mut piece_first = Vec::with_capacity(pieces.len());
    let mut line = first_line;
    for n in &newlines {
        piece_first.push(line);
        line += n;
    }
    (piece_first, line - first_line)
}

/// Parses a piece of a block whose first line is `line0`: each row is
/// written once, into the piece; shards read it there through small
/// per-shard position lists (rows are large: moving them into buckets cost
/// more than parsing them). `fields` are the `--by`, `--cluster-by` and
/// budget fields.
fn parse_piece<'a>(
    piece: &'a [u8],
    line0: u64,
    seq_of: impl Fn(u64) -> u64,
    fields: (Option<&str>, Option<&str>, Option<&str>),
    path: &str,
) -> ParsedChunk<'a> {
    let (by, cluster_by, budget) = fields;
    let lines = fold::split_lines(piece, line0);
    let cap = lines.len() / fold::SHARDS * 3 / 2 + 8;
    let mut parsed = ParsedChunk {
        items: Vec::with_capacity(lines.len()),
        shards: (0..fold::SHARDS).map(|_| Vec::with_capacity(cap)).collect(),
        bad: Vec::new(),
    };
    for &(line, text) in &lines {
        let seq = seq_of(line);
        match fold::parse_json_row(text, by, cluster_by, budget) {
            Ok(row) => {
                let hash = row.key_hash();
                let at = parsed.items.len() as u32;
                parsed.shards[fold::shard_of(hash)].push((at, hash));
                parsed.items.push(Item {
                    seq,
                    line,
                    hash,
                    row,
                });
            }
            Err(reason) => parsed.bad.push((
                seq,
                BadLine {
                    path: path.to_string(),
                    line,
                    reason,
                },
            )),
        }
    }
    parsed
}

/// Keys already-parsed rows in parallel, each where it lies (no second
/// copy of the rows), numbered from `base`; a bad row keeps its line and
/// reason.
fn key_rows(
    rows: Vec<(u64, Result<RowRecord<'_>, String>)>,
    base: u64,
) -> Vec<Result<Item<'_>, (u64, String)>> {
    use rayon::prelude::*;
    rows.into_par_iter()
        .enumerate()
        .map(|(i, (line, row))| {
            let row = match row.map_err(|reason| (line, reason))? {
                RowRecord::Flat(f) => fold::Row::Flat(f),
                RowRecord::Full(r) => fold::Row::Full(r),
            };
            Ok(Item {
                seq: base + i as u64,
                line,
                hash: row.key_hash(),
                row,
            })
        })
        .collect()
}

/// Folds a shard's rows of one chunk (`mine`: positions in `items` with
/// key hashes). A shard reads one row in 16 of the chunk, the row's id in
/// the input, and probes its index at random: all are fetched a few rows
/// ahead (the id once its row has come), or each row waits on memory
/// thrice.
fn fold_rows(shard: &mut Shard, items: &[Item<'_>], mine: &[(u32, u64)], cx: &Context<'_>) {
    const AHEAD: usize = 8;
    for (j, &(i, _)) in mine.iter().enumerate() {
        if let Some(&(next, hash)) = mine.get(j + AHEAD) {
            let item = &items[next as usize];
            fold::prefetch(item);
            fold::prefetch(&item.row);
            shard.prefetch(hash);
        }
        if let Some(&(next, _)) = mine.get(j + AHEAD / 2) {
            items[next as usize].row.prefetch_problem();
        }
        shard.push(&items[i as usize], cx);
    }
}

/// The distinct systems of `problems`, in order of first appearance.
fn systems_of(problems: &[CollectedProblem]) -> Vec<String> {
    let mut systems: Vec<String> = Vec::new();
    let mut last: Option<&Arc<Labels>> = None;
    for p in problems {
        // Problems sharing labels share their system: checked once a run.
        let Some(labels) = &p.labels else { continue };
        if last.is_some_and(|l| Arc::ptr_eq(l, labels)) {
            continue;
        }
        last = Some(labels);
        if let Some(sys) = &labels.system {
            if !systems.contains(sys) {
                systems.push(sys.clone());
            }
        }
    }
    systems
}

/// Sorts problems by (system, subset, id), compared as text (`None` before
/// any text) — the canonical order of docs/spec.md §5.
///
/// Sorting the problems themselves moves them at every step and compares
/// strings behind pointers. Sorted instead: per problem the rank of its
/// (system, subset), the first 8 bytes of its id (zero padded: never
/// larger than the id's order allows) and its index; only equal prefixes
/// compare the ids. Then the problems are permuted in place, following
/// the permutation's cycles: a second vector of them in order (10⁷
/// problems: 720 MB) was the peak of a report's memory. Unstable is
/// exact: no two problems share system, subset and id.
///
/// ```
/// use rollstat_io::{sort_problems, CollectedProblem, Origin};
/// use rollstat_core::summary::ProblemData;
/// let p = |id: &str| CollectedProblem { problem: id.into(), labels: None, origin: Origin::new(0, 1),
///     numbered_by_arrival: false, data: ProblemData::Counts { n: 1, c: 0 } };
/// let mut ps = vec![p("abcdefgh2"), p("b"), p("abcdefgh1"), p("")];
/// sort_problems(&mut ps);
/// let ids: Vec<&str> = ps.iter().map(|p| p.problem.as_str()).collect();
/// assert_eq!(ids, ["", "abcdefgh1", "abcdefgh2", "b"]);
/// ```
pub fn sort_problems(problems: &mut Vec<CollectedProblem>) {
    use rayon::prelude::*;
    let Ok(len) = u32::try_from(problems.len()) else {
        problems.sort_unstable_by(|a, b| {
            (a.system(), a.subset(), &a.problem).cmp(&(b.system(), b.subset(), &b.problem))
        });
        return;
    };
    let ranks = pair_ranks(problems);
    let mut keys: Vec<(u32, u64, u32)> = (0..len)
        .into_par_iter()
        .map(|i| {
            let p = &problems[i as usize];
            (ranks[i as usize], id_prefix(&p.problem), i)
        })
        .collect();
    drop(ranks);
    let ids: &[CollectedProblem] = problems;
    keys.par_sort_unstable_by(|a, b| {
        (a.0, a.1)
            .cmp(&(b.0, b.1))
            .then_with(|| ids[a.2 as usize].problem.cmp(&ids[b.2 as usize].problem))
    });
    // A fresh vector, not the keys' allocation (three times its size)
    // collected in place: the keys go before `permute` takes its buffer.
    let order: Vec<usize> = keys.iter().map(|&(_, _, i)| i as usize).collect();
    drop(keys);
    permute(problems, &order);
}

/// Each problem's rank among the distinct (system, subset) pairs, in their
/// order.
fn pair_ranks(problems: &[CollectedProblem]) -> Vec<u32> {
    type Pair<'a> = (Option<&'a str>, Option<&'a str>);
    let mut index: std::collections::HashMap<Pair<'_>, u32> = std::collections::HashMap::new();
    let mut last: Option<(Option<&Arc<Labels>>, u32)> = None;
    let mut ids: Vec<u32> = Vec::with_capacity(problems.len());
    for p in problems {
        let id = match last {
            // Problems sharing labels (usually in runs) share their pair.
            Some((l, id)) if same_labels(l, p.labels.as_ref()) => id,
            _ => {
                let next = index.len() as u32;
                *index.entry((p.system(), p.subset())).or_insert(next)
            }
        };
        last = Some((p.labels.as_ref(), id));
        ids.push(id);
    }
    let mut distinct: Vec<(Pair<'_>, u32)> = index.into_iter().collect();
    distinct.sort_unstable();
    let mut rank = vec![0u32; distinct.len()];
    for (r, (_, id)) in distinct.iter().enumerate() {
        rank[*id as usize] = r as u32;
    }
    for id in &mut ids {
        *id = rank[*id as usize];
    }
    ids
}

/// Whether two problems' labels are the same shared copy (or both none).
fn same_labels(a: Option<&Arc<Labels>>, b: Option<&Arc<Labels>>) -> bool {
    match (a, b) {
        (None, None) => true,
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    }
}

/// The first 8 bytes of an id, zero padded, as a big-endian number: ids in
/// byte order have prefixes in the same order or equal ones.
fn id_prefix(id: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = id.len().min(8);
    b[..n].copy_from_slice(&id.as_bytes()[..n]);
    u64::from_be_bytes(b)
}

/// Reorders `items` so that item `i` becomes the one at `order[i]`
/// (`order` a permutation of the indices; panics otherwise).
///
/// The items are gathered into a new vector in parallel chunks, which
/// then replaces `items` (the old buffer is freed, its items having moved).
/// A chunk's reads at random positions overlap in the memory system, where
/// following the permutation's cycles in place waits on one cache miss
/// after another (10⁷ problems: 2.6 s in place, one core); the price is a
/// second buffer of the items while it runs. Gathered into a scratch buffer
/// and copied back, the copy alone took ≈ 0.15 s at 10⁷ problems.
///
/// ```
/// let mut items = vec!['a', 'b', 'c', 'd'];
/// rollstat_io::permute(&mut items, &[2, 0, 3, 1]);
/// assert_eq!(items, ['c', 'a', 'd', 'b']);
/// ```
pub fn permute<T: Send>(items: &mut Vec<T>, order: &[usize]) {
    use rayon::prelude::*;
    assert!(
        is_permutation(order, items.len()),
        "order is not a permutation of the items"
    );
    /// The items' buffer, read from several threads, each item by one.
    struct Source<T>(*const T);
    // SAFETY: each item is read (moved out) by exactly one thread, and T
    // may move between threads.
    unsafe impl<T: Send> Sync for Source<T> {}
    impl<T> Source<T> {
        /// SAFETY: `i` in bounds and read once.
        unsafe fn take(&self, i: usize) -> T {
            unsafe { std::ptr::read(self.0.add(i)) }
        }
    }
    const CHUNK: usize = 1 << 14;
    let len = items.len();
    let mut gathered: Vec<T> = Vec::with_capacity(len);
    let source = Source(items.as_ptr());
    gathered.spare_capacity_mut()[..len]
        .par_chunks_mut(CHUNK)
        .zip(order.par_chunks(CHUNK))
        .for_each(|(slots, from)| {
            for (slot, &i) in slots.iter_mut().zip(from) {
                // SAFETY: `order` is a permutation of `0..len` (checked
                // above): `i` is in bounds and taken once.
                slot.write(unsafe { source.take(i) });
            }
        });
    // SAFETY: every slot of `gathered` below `len` was written, and every
    // item of `items` moved into exactly one of them: `items` forgets its
    // (moved) items, so each is owned once, and its buffer is freed below.
    unsafe {
        gathered.set_len(len);
        items.set_len(0);
    }
    *items = gathered;
}

/// Whether `order` holds each index below `len` exactly once.
fn is_permutation(order: &[usize], len: usize) -> bool {
    let mut seen = vec![0u64; len.div_ceil(64)];
    order.len() == len
        && order.iter().all(|&i| {
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            let fresh = i < len && seen[word] & bit == 0;
            if fresh {
                seen[word] |= bit;
            }
            fresh
        })
}

/// Cross-checks for fuzzing and tests: not part of the stable API.
#[doc(hidden)]
pub mod oracle {
    use crate::record::Record;

    /// Reads one JSON Lines row on every path — the byte scanner, the serde
    /// fast path and the general path — and panics if they disagree: the
    /// scanner gives what serde gives or nothing (a count row: what the
    /// general path gives, or nothing), serde gives what the
    /// general path gives (its gold/response kept only to grade) or nothing,
    /// and a row the general path refuses neither fast path accepts.
    /// Returns the general path's verdict.
    ///
    /// ```
    /// let r = rollstat_io::oracle::check_line(br#"{"problem": "a", "correct": true}"#, None, None);
    /// assert!(r.is_ok());
    /// ```
    pub fn check_line(
        line: &[u8],
        by: Option<&str>,
        cluster_by: Option<&str>,
    ) -> Result<Record, String> {
        let general =
            crate::source::parse_general(line, by, cluster_by, Some(crate::fast::FAST_BUDGET));
        if let Some(crate::scan::Scanned::Counts(c)) = crate::scan::scan_row(line, by, cluster_by) {
            let g = general.clone().unwrap_or_else(|e| {
                panic!("scanner accepted a count row the general path refuses: {e}")
            });
            assert_eq!(c.into_record(), g, "scanner and the general path disagree");
        }
        let scanned = crate::scan::scan_line(line, by, cluster_by);
        let flat = crate::fast::parse_flat(line, by, cluster_by);
        if let Some(s) = &scanned {
            assert_eq!(Some(s), flat.as_ref(), "scanner and serde disagree");
        }
        if let Some(f) = flat {
            let g = general.clone().unwrap_or_else(|e| {
                panic!("fast path accepted a row the general path refuses: {e}")
            });
            assert_eq!(
                f.into_record(),
                crate::fast::kept_by_fast_path(g),
                "serde and the general path disagree"
            );
        }
        general
    }
}

#[cfg(test)]
mod permute_tests {
    /// A problem of count rows takes 72 bytes besides its id.
    #[test]
    fn a_collected_problem_takes_72_bytes() {
        assert_eq!(std::mem::size_of::<super::CollectedProblem>(), 72);
    }

    // Every permutation of 6 items: item i ends up as the one at order[i].
    #[test]
    fn permute_follows_the_order() {
        let mut order: Vec<usize> = (0..6).collect();
        let mut seen = 0;
        loop {
            let mut items: Vec<char> = "abcdef".chars().collect();
            super::permute(&mut items, &order);
            let want: Vec<char> = order.iter().map(|&i| (b'a' + i as u8) as char).collect();
            assert_eq!(items, want);
            seen += 1;
            // Next permutation in lexicographic order.
            let Some(i) = (0..5).rev().find(|&i| order[i] < order[i + 1]) else {
                break;
            };
            let j = (i + 1..6).rev().find(|&j| order[j] > order[i]).unwrap();
            order.swap(i, j);
            order[i + 1..].reverse();
        }
        assert_eq!(seen, 720);
    }

    // Inputs past what an origin tells apart show as such, never as an
    // earlier input (the index once wrapped at 65,536).
    #[test]
    fn origins_of_far_inputs_name_no_other_input() {
        let inputs: Vec<super::InputInfo> = (0..3)
            .map(|i| super::InputInfo {
                path: format!("f{i}.jsonl"),
                format: String::new(),
                sha256: String::new(),
                records: 0,
                field_map: None,
            })
            .collect();
        let show = |file: usize, line: u64| super::Origin::new(file, line).show(&inputs, &[]);
        assert_eq!(show(2, 7), "f2.jsonl:7");
        assert_eq!(show(65_536, 7), "?:7");
        let far = super::Origin::MAX_FILES;
        assert_eq!(
            show(far + 2, 9),
            format!("(an input after the first {}):9", far - 1)
        );
        assert_eq!(
            show(far - 2, (1 << 43) - 1),
            format!("?:{}", (1u64 << 43) - 1)
        );
        assert_eq!(super::Origin::text(5).text_index(), Some(5));
    }

    // Owned items over several parallel chunks: each ends where the order
    // says, once (a double move would double-free the strings).
    #[test]
    fn permute_moves_owned_items_once() {
        let len = 3 * (1 << 14) + 77;
        let order: Vec<usize> = (0..len).map(|i| (i * 7919 + 13) % len).collect();
        let mut items: Vec<String> = (0..len).map(|i| i.to_string()).collect();
        super::permute(&mut items, &order);
        assert!(items.iter().zip(&order).all(|(s, &i)| *s == i.to_string()));
    }

    #[test]
    #[should_panic(expected = "not a permutation")]
    fn permute_refuses_a_repeated_index() {
        let mut items = vec![String::from("a"), String::from("b")];
        super::permute(&mut items, &[1, 1]);
    }
}
