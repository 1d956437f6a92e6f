//! # rollstat-io
//!
//! Reads rollstat's canonical input — JSON Lines or CSV with the columns of
//! SPEC §2, from files or stdin — and collects rows into problems.
//!
//! The flow is: bytes ([`Input`]) → parsed rows ([`record::Record`], in
//! parallel, order kept) → [`Collector`], which groups rows by problem
//! (and by system, so two models in one file never merge), assigns rollout
//! indices, detects duplicates, grades rows that carry a `gold` but no
//! verdict, and yields one [`CollectedProblem`] per problem.
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
pub mod record;
mod source;

pub use source::{Input, InputFormat};
use std::io::Read;

use record::{Record, RecordBody};
use rollstat_core::report::InputInfo;
use rollstat_core::summary::{Answer, ProblemData, Rollout, Verdict};
use std::collections::HashMap;
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

/// Reader options.
#[derive(Clone, Debug, Default)]
pub struct ReadOptions {
    /// Breakdown field (`--by`).
    pub by: Option<String>,
    /// First bad row is an error.
    pub strict: bool,
    /// Keep one of duplicated rollouts instead of failing.
    pub dedupe: Option<Dedupe>,
    /// Field whose value clusters problems (`--cluster-by`).
    pub cluster_by: Option<String>,
    /// Bytes read so far, for a progress display.
    pub bytes_read: Option<std::sync::Arc<std::sync::atomic::AtomicU64>>,
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
    /// A bad row under `--strict`.
    #[error(
        "{0} (strict mode stops at the first bad row; drop --strict to skip and count bad rows)"
    )]
    Strict(BadLine),
    /// Duplicated (problem, rollout) without a dedupe policy.
    #[error(
        "{first}; {count} duplicated rollout(s) in all — fix the input or pass --dedupe first|last"
    )]
    Duplicates { first: BadLine, count: u64 },
    #[error("{path}: no records (the file is empty)")]
    Empty { path: String },
}

/// A problem as collected from the input.
#[derive(Clone, Debug)]
pub struct CollectedProblem {
    pub problem: String,
    pub system: Option<String>,
    pub by_value: Option<String>,
    /// The `--cluster-by` value.
    pub cluster_value: Option<String>,
    /// Where the problem was first seen (`path:line`).
    pub origin: String,
    pub data: ProblemData,
}

/// Everything read.
#[derive(Debug, Default)]
pub struct Collected {
    pub inputs: Vec<InputInfo>,
    pub problems: Vec<CollectedProblem>,
    pub bad_lines: Vec<BadLine>,
    pub n_duplicate_rollouts: u64,
    pub n_graded: u64,
    /// Distinct `model`/`run` values seen.
    pub systems: Vec<String>,
}

struct Acc {
    problem: String,
    system: Option<String>,
    subset: Option<String>,
    by_value: Option<String>,
    cluster_value: Option<String>,
    origin: String,
    /// Rollouts in arrival order, with where each was read. (A stable
    /// sort by index later keeps arrival order among duplicates.)
    rollouts: Vec<(Rollout, Origin)>,
    counts: Option<(u64, u64)>,
}

/// Where a row was read: the input's index (high 16 bits) and the line
/// (low 48 bits), packed — kept per rollout, so it is small.
#[derive(Clone, Copy, Debug)]
struct Origin(u64);

impl Origin {
    fn new(file: usize, line: u64) -> Origin {
        Origin(((file as u64 & 0xffff) << 48) | (line & ((1 << 48) - 1)))
    }
    fn file(self) -> usize {
        (self.0 >> 48) as usize
    }
    fn line(self) -> u64 {
        self.0 & ((1 << 48) - 1)
    }
}

/// Groups rows from any number of inputs into problems.
pub struct Collector<'g> {
    opts: ReadOptions,
    grader: &'g dyn Grader,
    inputs: Vec<InputInfo>,
    index: HashMap<(Option<String>, Option<String>, String), usize>,
    accs: Vec<Acc>,
    /// The problem of the previous row.
    last: Option<usize>,
    bad: Vec<BadLine>,
    n_graded: u64,
}

impl Collector<'static> {
    /// A collector that grades with [`ExactGrader`].
    pub fn new(opts: ReadOptions) -> Collector<'static> {
        Collector::with_grader(opts, &ExactGrader)
    }
}

impl<'g> Collector<'g> {
    /// A collector that grades ungraded rows with `grader`.
    pub fn with_grader(opts: ReadOptions, grader: &'g dyn Grader) -> Collector<'g> {
        Collector {
            opts,
            grader,
            inputs: Vec::new(),
            index: HashMap::new(),
            accs: Vec::new(),
            last: None,
            bad: Vec::new(),
            n_graded: 0,
        }
    }

    /// Reads one canonical input.
    pub fn add(&mut self, input: Input) -> Result<(), ReadError> {
        let path = input.display_path().to_string();
        let format = input.format();
        self.inputs.push(InputInfo {
            path: path.clone(),
            format: format.to_string(),
            sha256: String::new(),
            records: 0,
        });
        let io = |source| ReadError::Io {
            path: path.clone(),
            source,
        };
        let mut reader = input.into_reader();
        let mut hasher = source::hasher();
        let mut records = 0u64;
        let (by, cluster_by) = (self.opts.by.clone(), self.opts.cluster_by.clone());
        if format == InputFormat::Csv {
            // CSV quoting can span lines: read whole (CSV inputs are small).
            let mut bytes = Vec::new();
            reader.read_to_end(&mut bytes).map_err(io)?;
            sha2::Digest::update(&mut hasher, &bytes);
            let rows = source::parse_csv(&bytes, by.as_deref(), cluster_by.as_deref());
            records = rows.len() as u64;
            self.push_rows(&path, rows)?;
        } else {
            // JSON Lines streams in blocks cut at a newline: parse a block in
            // parallel, fold it into the problems, drop it.
            let mut buf: Vec<u8> = Vec::with_capacity(source::BLOCK + 4096);
            let mut next_line = 1u64;
            let mut eof = false;
            while !eof {
                let start = buf.len();
                buf.resize(start + source::BLOCK, 0);
                let mut filled = start;
                while filled < buf.len() {
                    let got = reader.read(&mut buf[filled..]).map_err(io)?;
                    if got == 0 {
                        eof = true;
                        break;
                    }
                    filled += got;
                }
                buf.truncate(filled);
                if let Some(counter) = &self.opts.bytes_read {
                    counter.fetch_add(
                        (filled - start) as u64,
                        std::sync::atomic::Ordering::Relaxed,
                    );
                }
                let cut = if eof {
                    buf.len()
                } else {
                    match memchr::memrchr(b'\n', &buf) {
                        Some(i) => i + 1,
                        None => {
                            // One line longer than a block: hash what came, read on.
                            sha2::Digest::update(&mut hasher, &buf[start..]);
                            continue;
                        }
                    }
                };
                // Hash the new bytes on one thread while the block parses on the others.
                let (_, rows) = rayon::join(
                    || sha2::Digest::update(&mut hasher, &buf[start..]),
                    || {
                        source::parse_jsonl(
                            &buf[..cut],
                            next_line,
                            by.as_deref(),
                            cluster_by.as_deref(),
                        )
                    },
                );
                next_line += memchr::memchr_iter(b'\n', &buf[..cut]).count() as u64;
                records += rows.len() as u64;
                self.push_rows(&path, rows)?;
                buf.drain(..cut);
            }
        }
        let info = self.inputs.last_mut().expect("pushed above");
        info.sha256 = source::hex(&sha2::Digest::finalize(hasher));
        info.records = records;
        if records == 0 {
            return Err(ReadError::Empty { path });
        }
        Ok(())
    }

    fn push_rows(
        &mut self,
        path: &str,
        rows: Vec<(u64, Result<Record, String>)>,
    ) -> Result<(), ReadError> {
        for (line, row) in rows {
            if let Err(reason) = row.and_then(|r| self.push(r, path, line)) {
                self.bad_line(BadLine {
                    path: path.to_string(),
                    line,
                    reason,
                })?;
            }
        }
        Ok(())
    }

    /// Adds already-parsed rows (e.g. from a native-format adapter).
    pub fn add_rows(
        &mut self,
        info: InputInfo,
        rows: impl IntoIterator<Item = (u64, Result<Record, String>)>,
    ) -> Result<(), ReadError> {
        let path = info.path.clone();
        self.inputs.push(info);
        for (line, row) in rows {
            if let Err(reason) = row.and_then(|r| self.push(r, &path, line)) {
                self.bad_line(BadLine {
                    path: path.clone(),
                    line,
                    reason,
                })?;
            }
        }
        Ok(())
    }

    /// Records a bad row (or fails under `strict`).
    pub fn bad_line(&mut self, bad: BadLine) -> Result<(), ReadError> {
        if self.opts.strict {
            return Err(ReadError::Strict(bad));
        }
        self.bad.push(bad);
        Ok(())
    }

    fn push(&mut self, r: Record, path: &str, line: u64) -> Result<(), String> {
        let here = Origin::new(self.inputs.len().saturating_sub(1), line);
        // Rows of one problem are usually adjacent: check the last problem
        // before building a key (three string copies) for the map.
        let same_as_last = self.last.is_some_and(|i| {
            let a = &self.accs[i];
            a.problem == r.problem && a.system == r.system && a.subset == r.subset
        });
        let idx = if same_as_last {
            self.last.expect("checked")
        } else {
            let key = (r.system.clone(), r.subset.clone(), r.problem.clone());
            *self.index.entry(key).or_insert_with(|| {
                let origin = format!("{path}:{line}");
                self.accs.push(Acc {
                    problem: r.problem.clone(),
                    system: r.system.clone(),
                    by_value: r.by_value.clone(),
                    cluster_value: r.cluster_value.clone(),
                    origin,
                    rollouts: Vec::new(),
                    subset: r.subset.clone(),
                    counts: None,
                });
                self.accs.len() - 1
            })
        };
        self.last = Some(idx);
        let acc = &mut self.accs[idx];
        if acc.by_value != r.by_value {
            return Err(format!(
                "problem '{}' has {} = {:?} here but {:?} at {}",
                r.problem,
                self.opts.by.as_deref().unwrap_or("?"),
                r.by_value,
                acc.by_value,
                acc.origin
            ));
        }
        match r.body {
            RecordBody::Counts { n, c } => {
                if !acc.rollouts.is_empty() || acc.counts.is_some() {
                    return Err(format!(
                        "problem '{}' already has rows (first at {}); a count row must be its only row",
                        r.problem, acc.origin
                    ));
                }
                acc.counts = Some((n, c));
            }
            RecordBody::ProblemToGrade { gold, rollouts } => {
                let graded: Vec<(Verdict, Answer, bool)> = rollouts
                    .into_iter()
                    .map(|(answer, response, truncated)| {
                        let (verdict, answer) =
                            self.grader.grade(&gold, &answer, response.as_deref());
                        (verdict, answer, truncated)
                    })
                    .collect();
                self.n_graded += graded.len() as u64;
                self.push_positional(idx, &r.problem, graded, here)?;
            }
            RecordBody::Problem { rollouts } => {
                self.push_positional(idx, &r.problem, rollouts, here)?
            }
            RecordBody::Rollout {
                index,
                verdict,
                answer,
                truncated,
                gold,
                response,
            } => {
                if acc.counts.is_some() {
                    return Err(count_conflict(&r.problem, &acc.origin));
                }
                let (verdict, answer) = match verdict {
                    Some(v) => (v, answer),
                    None => {
                        self.n_graded += 1;
                        let gold = gold.expect("rows without verdict carry gold");
                        self.grader.grade(&gold, &answer, response.as_deref())
                    }
                };
                let index = index.unwrap_or(acc.rollouts.len() as u64);
                acc.rollouts.push((
                    Rollout {
                        index,
                        verdict,
                        answer,
                        truncated,
                    },
                    here,
                ));
            }
        }
        Ok(())
    }

    /// Adds the rollouts of a problem row, indexed by position.
    fn push_positional(
        &mut self,
        idx: usize,
        problem: &str,
        rollouts: Vec<(Verdict, Answer, bool)>,
        here: Origin,
    ) -> Result<(), String> {
        let acc = &mut self.accs[idx];
        if acc.counts.is_some() {
            return Err(count_conflict(problem, &acc.origin));
        }
        for (i, (verdict, answer, truncated)) in rollouts.into_iter().enumerate() {
            let rollout = Rollout {
                index: i as u64,
                verdict,
                answer,
                truncated,
            };
            acc.rollouts.push((rollout, here));
        }
        Ok(())
    }

    /// Resolves duplicates and returns the problems in order of first
    /// appearance.
    pub fn finish(self) -> Result<Collected, ReadError> {
        let mut out = Collected {
            inputs: self.inputs,
            bad_lines: self.bad,
            n_graded: self.n_graded,
            ..Default::default()
        };
        let mut first_dup: Option<BadLine> = None;
        let mut systems: Vec<String> = Vec::new();
        for mut acc in self.accs {
            if let Some(s) = &acc.system {
                if !systems.contains(s) {
                    systems.push(s.clone());
                }
            }
            let data = match acc.counts {
                Some((n, c)) => ProblemData::Counts { n, c },
                None => {
                    acc.rollouts.sort_by_key(|(r, _)| r.index);
                    let keep_last = self.opts.dedupe == Some(Dedupe::Last);
                    let inputs = &out.inputs;
                    let at = |o: Origin| {
                        let path = inputs.get(o.file()).map(|i| i.path.as_str()).unwrap_or("?");
                        (path.to_string(), o.line())
                    };
                    let mut n_dup = 0u64;
                    acc.rollouts.dedup_by(|later, earlier| {
                        if later.0.index != earlier.0.index {
                            return false;
                        }
                        n_dup += 1;
                        if first_dup.is_none() {
                            let (path, line) = at(later.1);
                            let (prev_path, prev_line) = at(earlier.1);
                            first_dup = Some(BadLine {
                                path,
                                line,
                                reason: format!(
                                    "problem '{}' rollout {} appears again (first at {prev_path}:{prev_line})",
                                    acc.problem, later.0.index
                                ),
                            });
                        }
                        if keep_last {
                            std::mem::swap(later, earlier);
                        }
                        true
                    });
                    out.n_duplicate_rollouts += n_dup;
                    ProblemData::Rollouts(acc.rollouts.into_iter().map(|(r, _)| r).collect())
                }
            };
            out.problems.push(CollectedProblem {
                problem: acc.problem,
                system: acc.system,
                by_value: acc.by_value,
                cluster_value: acc.cluster_value,
                origin: acc.origin,
                data,
            });
        }
        out.systems = systems;
        if let (Some(first), None) = (first_dup, self.opts.dedupe) {
            return Err(ReadError::Duplicates {
                first,
                count: out.n_duplicate_rollouts,
            });
        }
        Ok(out)
    }
}

fn count_conflict(problem: &str, origin: &str) -> String {
    format!("problem '{problem}' has a count row (at {origin}); it cannot also have rollout rows")
}
