//! Reading sources: files, directories and bytes through the reading
//! pipeline of `rollstat-formats` (walk → decompression → detection →
//! adapter, [`rollstat_formats::pipeline`]), canonical rows through
//! `rollstat-io`, in-memory [`Row`]s through the same row parser as file
//! rows.
//!
//! A [`Source`] is a path (a file or a directory, walked; every recognised
//! file is read), stdin, bytes, or typed rows. `.gz` / `.zst` content is
//! decompressed first, for canonical and native files alike. A file named
//! directly that no format fits is an error that lists every format tried
//! and why it did not fit; a file met during a directory walk that cannot be
//! read is named in the diagnostics, counted in a finding and left out —
//! strict mode makes it an error. Nothing here prints.

use crate::error::{Error, Result, MALFORMED_SHOWN};
use crate::findings::Finding;
use crate::harness::{record_scopes, Key, Scopes, Tracked};
use crate::options::MessageSink;
use crate::rows::Row;
use rayon::prelude::*;
use rollstat_core::input::InputInfo;
use rollstat_formats::pipeline::{self, plain_name, Loaded as LoadedFile};
use rollstat_formats::{DecompressLimit, Format, FormatError, HarnessAggregate, NativeFile};
use rollstat_io::record::{parse_record_budget, Record};
use rollstat_io::{BadLine, Collected, Collector, Input, ReadError, ReadOptions, RowRecord};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// Where rows come from.
///
/// ```
/// use rollstat::Source;
/// assert_eq!(Source::from("-"), Source::Stdin);
/// assert_eq!(Source::from("a.jsonl"), Source::Path("a.jsonl".into()));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub enum Source {
    /// A file or a directory (walked).
    Path(PathBuf),
    /// Standard input (canonical unless clearly a native layout).
    Stdin,
    /// The bytes of a file; `name` picks CSV vs JSONL by its extension and
    /// names the rows in messages (`name:line`).
    Bytes {
        /// The bytes' name: in messages, in `inputs`, and (by its extension)
        /// CSV vs JSONL.
        name: String,
        /// The content as stored; gzip and zstd content (recognised by its
        /// magic bytes) is decompressed.
        bytes: Vec<u8>,
    },
    /// Typed rows held in memory; `name` names them in messages (`name:N`
    /// for the N-th row, from 1).
    Rows {
        /// The rows' name: in messages and in `inputs` (format `rows`).
        name: String,
        /// The rows, in order.
        rows: Vec<Row>,
    },
    /// Rows in memory that parse themselves (Arrow record batches:
    /// [`Source::arrow`], each row mapped straight into a record): read as
    /// [`Source::Rows`] are (format `rows`, `name:N` for the N-th row, no
    /// format detection, no hash), parsed with the fields the options name.
    Table {
        /// The rows' name: in messages and in `inputs` (format `rows`).
        name: String,
        /// The rows.
        table: Table,
    },
    /// A per-problem summary held in memory (docs/summary.md): read by
    /// report and compare as a summary file is; not rows to summarize.
    Summary {
        /// The summary's name, in messages.
        name: String,
        /// The summary.
        summary: Box<crate::summary::Summary>,
    },
}

impl From<&str> for Source {
    /// `-` is stdin; anything else a path.
    fn from(s: &str) -> Source {
        if s == "-" {
            Source::Stdin
        } else {
            Source::Path(PathBuf::from(s))
        }
    }
}

impl From<&String> for Source {
    fn from(s: &String) -> Source {
        Source::from(s.as_str())
    }
}

impl From<PathBuf> for Source {
    fn from(p: PathBuf) -> Source {
        Source::Path(p)
    }
}

impl Source {
    /// How the source is named in messages and reports.
    pub fn name(&self) -> String {
        match self {
            Source::Path(p) => p.display().to_string(),
            Source::Stdin => "<stdin>".into(),
            Source::Bytes { name, .. }
            | Source::Rows { name, .. }
            | Source::Table { name, .. }
            | Source::Summary { name, .. } => name.clone(),
        }
    }
}

/// One input after detection.
pub enum Loaded<'a> {
    /// A file, a directory's file or a buffer, as the files pipeline
    /// loaded it: native rows, or canonical rows for rollstat-io's reader.
    File(LoadedFile),
    /// Typed rows from memory.
    Rows {
        /// The rows' name, as in [`Source::Rows`].
        name: String,
        /// The rows, in order: borrowed from the [`Source::Rows`] (a
        /// million rows are not copied to be read).
        rows: &'a [Row],
    },
    /// Rows from memory that parse themselves ([`Source::Table`]).
    Table {
        /// The rows' name, as in [`Source::Table`].
        name: String,
        /// The rows (a shared handle: a Parquet file of rows is read
        /// into one).
        table: Table,
    },
}

/// What the sources held.
#[derive(Default)]
pub struct Gathered<'a> {
    /// Every input loaded, source by source (a directory contributes each
    /// of its files that loaded).
    pub loaded: Vec<Loaded<'a>>,
    /// Files of a directory walk that could not be read: (path, why).
    pub failed: Vec<(String, String)>,
    /// Files of a directory walk passed over on purpose.
    pub skipped: Vec<(PathBuf, String)>,
    /// Inputs whose content fits more than one format: which one each was
    /// read as, in words.
    pub ambiguous: Vec<String>,
    /// Files of `failed` that no format recognised.
    pub unrecognised: usize,
}

/// The messages for the files of a walk that could not be read: one line
/// each, then one line naming the formats tried when some were not
/// recognised.
fn failure_messages(failed: &[(String, String)], unrecognised: usize) -> Vec<String> {
    let mut out: Vec<String> = failed
        .iter()
        .map(|(_, why)| format!("error: {why}"))
        .collect();
    if unrecognised > 0 {
        out.push(format!(
            "error: {}",
            rollstat_formats::DetectError::summary(unrecognised)
        ));
    }
    out
}

/// A reading failure of the files pipeline, as the library's input error.
fn input_error(e: FormatError) -> Error {
    Error::Format(e)
}

/// Detects and loads every source. Files named directly must be readable;
/// files inside a directory are read leniently (failures are listed in
/// [`Gathered::failed`]).
pub fn gather<'a>(
    sources: &'a [Source],
    from: Option<Format>,
    opts: &ReadOptions,
) -> Result<Gathered<'a>> {
    gather_with(sources, from, opts, DecompressLimit::default())
}

/// [`gather`] with a limit on how far compressed inputs may expand.
pub fn gather_with<'a>(
    sources: &'a [Source],
    from: Option<Format>,
    opts: &ReadOptions,
    limit: DecompressLimit,
) -> Result<Gathered<'a>> {
    let files = pipeline::ReadOptions {
        from,
        limit,
        by: opts.by.as_deref(),
        cluster_by: opts.cluster_by.as_deref(),
        map: opts.field_map.as_ref(),
    };
    let mut g = Gathered::default();
    check_map_has_files(sources, opts.field_map.as_ref())?;
    for source in sources {
        match source {
            Source::Stdin => g.loaded.push(read_stdin(&files, opts)?),
            Source::Bytes { name, bytes } => g.loaded.push(load_bytes(name, bytes, opts, &files)?),
            Source::Rows { name, rows } => g.loaded.push(Loaded::Rows {
                name: name.clone(),
                rows,
            }),
            Source::Table { name, table } => g.loaded.push(Loaded::Table {
                name: name.clone(),
                table: table.clone(),
            }),
            Source::Path(path) => {
                #[cfg(feature = "parquet")]
                if path.is_file() {
                    if let Some(table) = crate::rows_parquet::load(path, opts)? {
                        g.loaded.push(Loaded::Table {
                            name: path.display().to_string(),
                            table,
                        });
                        continue;
                    }
                }
                let got = pipeline::gather_path(path, &files).map_err(input_error)?;
                g.loaded.extend(got.loaded.into_iter().map(Loaded::File));
                // A directory's Parquet files of canonical rows, which no
                // format adapter reads.
                #[cfg(feature = "parquet")]
                for (file, why) in got.failed {
                    match crate::rows_parquet::load(Path::new(&file), opts) {
                        Ok(Some(table)) => g.loaded.push(Loaded::Table { name: file, table }),
                        _ => g.failed.push((file, why)),
                    }
                }
                #[cfg(not(feature = "parquet"))]
                g.failed.extend(got.failed);
                g.skipped.extend(got.skipped);
                g.ambiguous.extend(got.ambiguous);
                g.unrecognised += got.unrecognised;
            }
            Source::Summary { name, .. } => {
                return Err(Error::input(format!(
                    "{name}: a summary, not rows: report on it, or merge it with other summaries"
                )))
            }
        }
    }
    Ok(g)
}

/// Bytes in memory: Parquet of canonical rows as a table, anything else
/// through the files pipeline.
fn load_bytes<'a>(
    name: &str,
    bytes: &[u8],
    opts: &ReadOptions,
    files: &pipeline::ReadOptions<'_>,
) -> Result<Loaded<'a>> {
    #[cfg(feature = "parquet")]
    if let Some(table) = crate::rows_parquet::load_bytes(name, bytes, opts)? {
        return Ok(Loaded::Table {
            name: name.to_string(),
            table,
        });
    }
    #[cfg(not(feature = "parquet"))]
    let _ = opts;
    let got = pipeline::load_bytes(Path::new(name), bytes.to_vec(), files);
    Ok(Loaded::File(got.map_err(input_error)?))
}

fn read_stdin(files: &pipeline::ReadOptions<'_>, opts: &ReadOptions) -> Result<Loaded<'static>> {
    let bytes = read_all_stdin()?;
    // Parquet of canonical rows on stdin, as in a file.
    #[cfg(feature = "parquet")]
    if let Some(table) = crate::rows_parquet::load_bytes("<stdin>", &bytes, opts)? {
        return Ok(Loaded::Table {
            name: "<stdin>".into(),
            table,
        });
    }
    #[cfg(not(feature = "parquet"))]
    let _ = opts;
    let got = pipeline::load_bytes(Path::new("<stdin>"), bytes, files);
    Ok(Loaded::File(got.map_err(input_error)?))
}

/// Bytes taken from standard input by [`peek_stdin`] and not yet read:
/// the next reader of stdin gets them first. Stdin is one per process, so
/// its pushback is too.
static STDIN_PEEKED: std::sync::Mutex<Vec<u8>> = std::sync::Mutex::new(Vec::new());

/// The first bytes of standard input — at least `at_least` of them unless
/// it ends sooner — left in place for the next reader of stdin
/// ([`read_all_stdin`]): peeking costs no copy of the rest.
pub(crate) fn peek_stdin(at_least: usize) -> Result<Vec<u8>> {
    use std::io::Read;
    let mut peeked = STDIN_PEEKED.lock().unwrap_or_else(|e| e.into_inner());
    let mut chunk = [0u8; 512];
    while peeked.len() < at_least {
        match std::io::stdin().read(&mut chunk) {
            Ok(0) => break,
            Ok(got) => peeked.extend_from_slice(&chunk[..got]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::input(format!("<stdin>: {e}"))),
        }
    }
    Ok(peeked.clone())
}

/// All of standard input: the bytes [`peek_stdin`] looked at, then the rest.
pub(crate) fn read_all_stdin() -> Result<Vec<u8>> {
    use std::io::Read;
    let mut raw = std::mem::take(&mut *STDIN_PEEKED.lock().unwrap_or_else(|e| e.into_inner()));
    std::io::stdin()
        .read_to_end(&mut raw)
        .map_err(|e| Error::input(format!("<stdin>: {e}")))?;
    Ok(raw)
}

/// Warnings of a native file that stand for skipped malformed records, as
/// `(line, reason)`; the rest are notes.
fn split_warnings(f: &NativeFile) -> (Vec<(u64, String)>, Vec<String>) {
    let shown = f.path.display().to_string();
    let mut bad = Vec::new();
    let mut notes = Vec::new();
    for w in &f.warnings {
        if bad.len() < f.bad_lines && w.contains("skipped") {
            let rest = w
                .strip_prefix(&shown)
                .and_then(|r| r.strip_prefix(':'))
                .unwrap_or(w);
            let (line, reason) = match rest.split_once(':') {
                Some((n, r)) if n.trim().parse::<u64>().is_ok() => {
                    (n.trim().parse().unwrap_or(0), r.trim())
                }
                _ => (0, rest.trim()),
            };
            bad.push((line, reason.to_string()));
        } else {
            notes.push(w.clone());
        }
    }
    while bad.len() < f.bad_lines {
        bad.push((0, "malformed record skipped by the adapter".into()));
    }
    (bad, notes)
}

/// Everything read, plus what the adapters and the walk had to say.
pub(crate) struct Inputs {
    pub collected: Collected,
    /// Aggregates the harnesses stored themselves.
    pub aggregates: Vec<HarnessAggregate>,
    /// Findings of the reading (adapter notes, unreadable and skipped files).
    pub findings: Vec<Finding>,
    /// The problems each harness aggregate summarises.
    pub scopes: Scopes,
    /// Messages for people that are not findings (unreadable files, empty
    /// inputs), in order.
    pub messages: Vec<String>,
}

/// One row's field map as a record, with the fields the options name.
fn parse_with(opts: &ReadOptions, m: &Map<String, Value>) -> Result<Record, String> {
    RowFields::of(opts).parse(m)
}

/// One parsed in-memory row: its number (from 1) and its record (a flat
/// rollout row may borrow its text from the table), or why it is bad
/// (worded as the canonical row parser words it).
pub(crate) type ParsedRow<'a> = (u64, Result<RowRecord<'a>, String>);

/// Where a [`RowTable`] hands its parsed rows, a piece at a time.
pub(crate) type RowSink<'f, 's> = &'f mut dyn FnMut(Vec<ParsedRow<'s>>) -> Result<(), ReadError>;

/// The fields a row's parse reads besides the canonical ones, as the
/// read options name them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct RowFields<'a> {
    /// The breakdown field.
    pub by: Option<&'a str>,
    /// The field whose value clusters problems.
    pub cluster_by: Option<&'a str>,
    /// The field holding each rollout's budget.
    pub budget: Option<&'a str>,
}

impl<'a> RowFields<'a> {
    /// The fields `opts` name.
    pub(crate) fn of(opts: &'a ReadOptions) -> RowFields<'a> {
        RowFields {
            by: opts.by.as_deref(),
            cluster_by: opts.cluster_by.as_deref(),
            budget: opts.budget.as_deref(),
        }
    }

    /// One row's canonical field map as a record: exactly what a JSON
    /// Lines line holding the map parses to.
    pub(crate) fn parse(&self, m: &Map<String, Value>) -> Result<Record, String> {
        parse_record_budget(m, self.by, self.cluster_by, self.budget)
    }
}

/// In-memory rows that parse themselves into records — a table of
/// columns maps each row without building its field map — for
/// [`Source::Table`]. Both methods must agree: each record is what
/// [`RowFields::parse`] makes of the row's field map.
pub(crate) trait RowTable: Send + Sync {
    /// Every row, in order, parsed with `fields` — row N (from 1) with its
    /// record or why it is bad — handed to `sink` in pieces of any size:
    /// each piece is folded before the next is made (memory stays that of
    /// one piece). An error from `sink` (under `strict`) is returned.
    fn records<'s>(&'s self, fields: RowFields<'_>, sink: RowSink<'_, 's>)
        -> Result<(), ReadError>;
    /// Every row's canonical field map, in order (what `convert` writes).
    fn field_maps(&self) -> Vec<CanonicalRow>;
}

/// Rows in memory that parse themselves (made by [`Source::arrow`]):
/// cheap to clone, equal only to its own clones.
#[derive(Clone)]
pub struct Table(pub(crate) std::sync::Arc<dyn RowTable>);

impl Table {
    /// Wraps a table.
    #[cfg_attr(not(feature = "arrow"), allow(dead_code))]
    pub(crate) fn new(table: impl RowTable + 'static) -> Table {
        Table(std::sync::Arc::new(table))
    }
}

impl std::fmt::Debug for Table {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Table(..)")
    }
}

impl PartialEq for Table {
    fn eq(&self, other: &Table) -> bool {
        std::sync::Arc::ptr_eq(&self.0, &other.0)
    }
}

/// The reader's state while sources are added.
struct Reader<'g> {
    opts: &'g ReadOptions,
    collector: Collector<'g>,
    aggregates: Vec<(HarnessAggregate, usize)>,
    tracked: Vec<Tracked>,
    first_origin: HashMap<Key, String>,
    findings: Vec<Finding>,
    messages: Vec<String>,
    sink: Option<&'g MessageSink>,
}

impl<'g> Reader<'g> {
    /// A reader with nothing read yet.
    fn new(
        opts: &'g ReadOptions,
        grader: &'g dyn rollstat_io::Grader,
        sink: Option<&'g MessageSink>,
    ) -> Reader<'g> {
        Reader {
            opts,
            collector: Collector::with_grader(opts.clone(), grader),
            aggregates: Vec::new(),
            tracked: Vec::new(),
            first_origin: HashMap::new(),
            findings: Vec::new(),
            messages: Vec::new(),
            sink,
        }
    }

    /// A message for people: sent now when there is a sink, kept otherwise.
    fn say(&mut self, m: String) {
        match self.sink {
            Some(s) => s.send(&m),
            None => self.messages.push(m),
        }
    }

    fn track(&mut self, path: &str, line: u64, r: &Result<Record, String>) {
        if let Ok(r) = r {
            self.first_origin
                .entry((r.system.clone(), r.subset.clone(), r.problem.clone()))
                .or_insert_with(|| format!("{path}:{line}"));
        }
    }

    /// [`Reader::track`] for every row, skipping a row of the same
    /// problem as the row before it (its origin is not the first).
    fn track_runs(&mut self, path: &str, rows: &[(u64, Result<Record, String>)]) {
        let mut last: Option<&Record> = None;
        for (line, r) in rows {
            if let Ok(rec) = r {
                let same = |l: &Record| {
                    l.problem == rec.problem && l.subset == rec.subset && l.system == rec.system
                };
                if last.is_some_and(same) {
                    continue;
                }
                last = Some(rec);
            }
            self.track(path, *line, r);
        }
    }

    fn parse_map(&self, m: &Map<String, Value>) -> Result<Record, String> {
        parse_with(self.opts, m)
    }

    fn add(&mut self, loaded: Loaded<'_>) -> Result<()> {
        match loaded {
            Loaded::File(LoadedFile::Canonical {
                path,
                sha256,
                content,
            }) => self.add_canonical(path, sha256, content),
            Loaded::File(LoadedFile::CanonicalFile { path }) => {
                if starts_like_document(&path) {
                    let content =
                        std::fs::read(&path).map_err(|e| Error::Input(format!("{path}: {e}")))?;
                    if let Some(rows) = self.json_document(&path, &content)? {
                        return self.add_parsed_rows(path, rows);
                    }
                }
                let input = Input::open(&path)?;
                match self.collector.add(input) {
                    Err(e @ ReadError::Empty { .. }) if !self.opts.strict => {
                        self.say(format!("warning: {e}"));
                        Ok(())
                    }
                    r => Ok(r?),
                }
            }
            Loaded::File(LoadedFile::Native(f)) => self.add_native(f),
            Loaded::Rows { name, rows } => {
                // Rows are independent: parsed in parallel, kept in order.
                let opts = self.opts;
                let parsed: Vec<(u64, Result<Record, String>)> = rows
                    .par_iter()
                    .enumerate()
                    .map(|(i, r)| (i as u64 + 1, parse_with(opts, &r.as_map())))
                    .collect();
                self.add_parsed_rows(name, parsed)
            }
            Loaded::Table { name, table } => self.add_table(name, &table),
        }
    }

    /// A table's rows, piece by piece as it parses them. Not tracked row
    /// by row (as a streamed canonical file is not): only harness
    /// aggregates' scopes read the origins.
    fn add_table(&mut self, name: String, table: &Table) -> Result<()> {
        self.collector.start_rows(InputInfo {
            path: name.clone(),
            format: "rows".into(),
            sha256: String::new(),
            records: 0,
            field_map: None,
        });
        let (collector, mut rows) = (&mut self.collector, 0);
        table.0.records(RowFields::of(self.opts), &mut |piece| {
            rows += piece.len();
            collector.more_row_records(piece)
        })?;
        self.check_empty(&name, rows == 0)
    }

    /// In-memory rows, parsed (row N as line N): tracked and folded.
    fn add_parsed_rows(
        &mut self,
        name: String,
        parsed: Vec<(u64, Result<Record, String>)>,
    ) -> Result<()> {
        self.track_runs(&name, &parsed);
        let info = InputInfo {
            path: name.clone(),
            format: "rows".into(),
            sha256: String::new(),
            records: parsed.len() as u64,
            field_map: None,
        };
        self.check_empty(&name, parsed.is_empty())?;
        Ok(self.collector.add_rows(info, parsed)?)
    }

    fn check_empty(&mut self, path: &str, empty: bool) -> Result<()> {
        if empty {
            let e = ReadError::Empty { path: path.into() };
            if self.opts.strict {
                return Err(e.into());
            }
            self.say(format!("warning: {e}"));
        }
        Ok(())
    }

    /// Canonical rows given as one JSON document (a list of row objects,
    /// or a pretty-printed object) instead of JSON Lines: its rows, each
    /// numbered by its line, or one error for the whole file; `None` for
    /// JSON Lines and CSV.
    fn json_document(&self, path: &str, content: &[u8]) -> Result<Option<Vec<RecordRow>>> {
        let text = String::from_utf8_lossy(content);
        let Some(rows) = rollstat_formats::whole_document(Path::new(path), &text)? else {
            return Ok(None);
        };
        Ok(Some(
            rows.iter()
                .map(|(line, m)| (*line as u64, self.parse_map(m)))
                .collect(),
        ))
    }

    fn add_canonical(&mut self, path: String, sha256: String, content: Vec<u8>) -> Result<()> {
        if let Some(rows) = self.json_document(&path, &content)? {
            return self.add_parsed_rows(path, rows);
        }
        let input = Input::from_bytes(&plain_name(&path), content);
        let rows = input.parse_rows_budget(
            self.opts.by.as_deref(),
            self.opts.cluster_by.as_deref(),
            self.opts.budget.as_deref(),
        );
        for (line, r) in &rows {
            self.track(&path, *line, r);
        }
        let info = InputInfo {
            path: path.clone(),
            format: input.format().to_string(),
            sha256,
            records: rows.len() as u64,
            field_map: None,
        };
        self.check_empty(&path, rows.is_empty())?;
        Ok(self.collector.add_rows(info, rows)?)
    }

    /// Findings from what a native file declares: readings of one system,
    /// and a run incomplete against its declaration (an error in strict
    /// mode).
    fn declared(&mut self, d: &rollstat_formats::Declared) -> Result<()> {
        if let Some(r) = &d.readings {
            self.findings.push(Finding::Readings {
                what: r.what.clone(),
                field: r.field.clone(),
                values: r.values.clone(),
            });
        }
        if let Some(g) = &d.grading {
            self.findings.push(Finding::TargetsNeedExtraction {
                path: g.path.clone(),
                targets: g.targets.clone(),
                extract: g.extract.clone(),
            });
        }
        let Some(run) = d.run.as_ref().filter(|r| r.incomplete()) else {
            return Ok(());
        };
        let finding = Finding::IncompleteRun {
            path: run.path.clone(),
            status: run.status.clone().filter(|_| !run.finished),
            expected: run.dataset_size,
            present: run.present,
            rollouts: run.rollouts,
            short: run.short,
        };
        if self.opts.strict {
            return Err(Error::IncompleteRun(finding.to_string()));
        }
        self.findings.push(finding);
        Ok(())
    }

    fn add_native(&mut self, f: NativeFile) -> Result<()> {
        let shown = f.path.display().to_string();
        let (bad, file_notes) = split_warnings(&f);
        self.findings
            .extend(file_notes.into_iter().map(Finding::adapter_note));
        self.declared(&f.declared)?;
        let rows: Vec<(u64, Result<Record, String>)> = f
            .rows
            .iter()
            .enumerate()
            .map(|(i, row)| (i as u64 + 1, self.parse_map(row)))
            .collect();
        let mut keys = Vec::new();
        for (line, r) in &rows {
            self.track(&shown, *line, r);
            if let Ok(r) = r {
                let run = f.rows[*line as usize - 1]
                    .get("run")
                    .and_then(|v| v.as_str())
                    .map(str::to_string);
                keys.push(((r.system.clone(), r.subset.clone(), r.problem.clone()), run));
            }
        }
        let info = InputInfo {
            path: shown.clone(),
            format: f.format.to_string(),
            sha256: f.sha256.clone().unwrap_or_default(),
            records: (f.rows.len() + f.bad_lines) as u64,
            field_map: (f.format == Format::FieldMap)
                .then(|| self.opts.field_map.as_ref().map(ToString::to_string))
                .flatten(),
        };
        self.collector.add_rows(info, rows)?;
        for (line, reason) in bad {
            self.collector.bad_line(BadLine {
                path: shown.clone(),
                line,
                reason,
            })?;
        }
        let idx = self.tracked.len();
        self.tracked.push(Tracked { keys });
        self.aggregates
            .extend(f.aggregates.into_iter().map(|a| (a, idx)));
        Ok(())
    }
}

/// The per-sample files that go with aggregates-only inputs, by the
/// aggregates' format.
fn per_sample_files(aggregates: &[(HarnessAggregate, usize)]) -> &'static str {
    match aggregates.first().map(|(a, _)| a.format) {
        Some(Format::LightevalResults) => {
            "the lighteval details parquet, details/<model>/<date>/details_*.parquet"
        }
        Some(Format::LmEvalResults) => "lm-eval samples_*.jsonl, written with --log_samples",
        Some(Format::OpenCompassResults) => "OpenCompass predictions/<model>/*.json",
        Some(Format::InspectJson | Format::InspectEval) => "an inspect log written with samples",
        _ => "the harness's per-sample output",
    }
}

/// A row of an input: its line (from 1) and its record, or why not.
type RecordRow = (u64, std::result::Result<Record, String>);

/// Whether a canonical file starts like one JSON document rather than
/// JSON Lines or CSV: a `[`, or a `{` on a line of its own.
fn starts_like_document(path: &str) -> bool {
    use std::io::Read;
    let mut head = [0u8; 4096];
    let n = std::fs::File::open(path)
        .and_then(|mut f| f.read(&mut head))
        .unwrap_or(0);
    let text = String::from_utf8_lossy(&head[..n]);
    let first = text.lines().map(str::trim).find(|l| !l.is_empty());
    matches!(first, Some(l) if l.starts_with('[') || l == "{")
}

/// Reads every source into problems, grading rows that need it; no
/// problem at all is an error.
pub(crate) fn read_inputs(
    sources: &[Source],
    opts: &ReadOptions,
    from: Option<Format>,
    limit: DecompressLimit,
    grader: &dyn rollstat_io::Grader,
    sink: Option<&MessageSink>,
) -> Result<Inputs> {
    read_inputs_with(sources, opts, from, limit, grader, sink, WhenEmpty::Refuse)
}

/// What reading does when no problem remains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum WhenEmpty {
    /// An error saying why nothing was usable.
    Refuse,
    /// Inputs whose every row was malformed are kept (their bad rows still
    /// count when a summary of them is merged with others).
    KeepBadRows,
}

/// [`read_inputs`], with `when_empty` saying what no problem means.
pub(crate) fn read_inputs_with(
    sources: &[Source],
    opts: &ReadOptions,
    from: Option<Format>,
    limit: DecompressLimit,
    grader: &dyn rollstat_io::Grader,
    sink: Option<&MessageSink>,
    when_empty: WhenEmpty,
) -> Result<Inputs> {
    let g = gather_with(sources, from, opts, limit)?;
    let mut r = Reader::new(opts, grader, sink);
    for m in failure_messages(&g.failed, g.unrecognised) {
        r.say(m);
    }
    let Gathered {
        loaded,
        failed,
        skipped,
        ambiguous,
        ..
    } = g;
    r.findings
        .extend(ambiguous.into_iter().map(Finding::adapter_note));
    for l in loaded {
        r.add(l)?;
    }
    walk_findings(&failed, &skipped, opts.strict, &mut r.findings)?;
    // Problems come in their canonical order (docs/spec.md §5), and so do
    // the systems.
    let collected = r.collector.finish_sorted()?;
    if let Some(s) = sink {
        send_bad_rows(s, &collected.bad_lines);
    }
    let keep = when_empty == WhenEmpty::KeepBadRows && !collected.bad_lines.is_empty();
    let only_bad_rows = failed.is_empty() && skipped.is_empty() && r.aggregates.is_empty();
    if collected.problems.is_empty() && !keep && only_bad_rows && !collected.bad_lines.is_empty() {
        return Err(Error::MalformedRowsOnly {
            total: collected.bad_lines.len(),
            first: collected.bad_lines[..collected.bad_lines.len().min(MALFORMED_SHOWN)].to_vec(),
        });
    }
    if collected.problems.is_empty() && !keep {
        return Err(Error::NoProblems(if r.aggregates.is_empty() {
            nothing_usable(&failed, &skipped)
        } else {
            format!(
                "the inputs hold harness aggregates only, no per-sample rows (pass the per-sample files: {})",
                per_sample_files(&r.aggregates)
            )
        }));
    }
    let scopes = record_scopes(&collected, &r.first_origin, &r.tracked, &r.aggregates);
    Ok(Inputs {
        collected,
        aggregates: r.aggregates.into_iter().map(|(a, _)| a).collect(),
        findings: r.findings,
        scopes,
        messages: r.messages,
    })
}

/// The name of a loaded input: its path, or the rows' name.
fn loaded_name(l: &Loaded<'_>) -> String {
    match l {
        Loaded::File(LoadedFile::Native(f)) => f.path.display().to_string(),
        Loaded::File(LoadedFile::Canonical { path, .. } | LoadedFile::CanonicalFile { path }) => {
            path.clone()
        }
        Loaded::Rows { name, .. } | Loaded::Table { name, .. } => name.clone(),
    }
}

/// [`read_inputs`], each loaded input (a file, a directory's file, a
/// buffer, rows) collected on its own: problems of different files never
/// merge, even with equal ids. Inputs without problems are left out; the
/// walk's findings go with the first input kept.
pub(crate) fn read_inputs_by_unit(
    sources: &[Source],
    opts: &ReadOptions,
    from: Option<Format>,
    limit: DecompressLimit,
    grader: &dyn rollstat_io::Grader,
    sink: Option<&MessageSink>,
) -> Result<Vec<(String, Inputs)>> {
    let Gathered {
        loaded,
        failed,
        skipped,
        ambiguous,
        unrecognised,
    } = gather_with(sources, from, opts, limit)?;
    let mut pending: Vec<Finding> = ambiguous.into_iter().map(Finding::adapter_note).collect();
    walk_findings(&failed, &skipped, opts.strict, &mut pending)?;
    let mut messages = failure_messages(&failed, unrecognised);
    if let Some(s) = sink {
        messages.drain(..).for_each(|m| s.send(&m));
    }
    let mut out = Vec::new();
    for l in loaded {
        let name = loaded_name(&l);
        let mut r = Reader::new(opts, grader, sink);
        r.add(l)?;
        let collected = r.collector.finish_sorted()?;
        if let Some(s) = sink {
            send_bad_rows(s, &collected.bad_lines);
        }
        if collected.problems.is_empty() {
            continue;
        }
        let scopes = record_scopes(&collected, &r.first_origin, &r.tracked, &r.aggregates);
        let mut findings = std::mem::take(&mut pending);
        findings.extend(r.findings);
        let mut said = std::mem::take(&mut messages);
        said.extend(r.messages);
        out.push((
            name,
            Inputs {
                collected,
                aggregates: r.aggregates.into_iter().map(|(a, _)| a).collect(),
                findings,
                scopes,
                messages: said,
            },
        ));
    }
    if out.is_empty() {
        return Err(Error::NoProblems(nothing_usable(&failed, &skipped)));
    }
    Ok(out)
}

/// Why no problem remains: the files passed over and unreadable are named
/// before the rows (a walk that skipped everything read no rows at all).
fn nothing_usable(failed: &[(String, String)], skipped: &[(PathBuf, String)]) -> String {
    if failed.is_empty() && skipped.is_empty() {
        return "every input was empty or malformed".to_string();
    }
    let mut parts = Vec::new();
    if !skipped.is_empty() {
        let shown: Vec<String> = skipped
            .iter()
            .take(3)
            .map(|(p, why)| format!("{} ({why})", p.display()))
            .collect();
        let more = if skipped.len() > 3 { "; …" } else { "" };
        parts.push(format!(
            "{} file(s) passed over: {}{more}",
            skipped.len(),
            shown.join("; ")
        ));
    }
    if !failed.is_empty() {
        let shown: Vec<&str> = failed.iter().take(3).map(|(p, _)| p.as_str()).collect();
        let more = if failed.len() > 3 { ", …" } else { "" };
        parts.push(format!(
            "{} file(s) could not be read (unrecognised or malformed): {}{more}",
            failed.len(),
            shown.join(", ")
        ));
    }
    format!("no input held usable rows: {}", parts.join("; "))
}

/// The first 20 malformed rows, then a count.
fn send_bad_rows(sink: &MessageSink, bad: &[BadLine]) {
    for b in bad.iter().take(20) {
        sink.send(&b.to_string());
    }
    if bad.len() > 20 {
        sink.send(&format!("… and {} more malformed rows", bad.len() - 20));
    }
}

/// Findings of a directory walk: unreadable files (an error in strict
/// mode) and files passed over.
fn walk_findings(
    failed: &[(String, String)],
    skipped: &[(PathBuf, String)],
    strict: bool,
    out: &mut Vec<Finding>,
) -> Result<()> {
    if !failed.is_empty() {
        let files: Vec<String> = failed.iter().map(|(p, _)| p.clone()).collect();
        if strict {
            return Err(Error::UnreadableFiles { files });
        }
        out.push(Finding::UnreadableFiles { files });
    }
    if !skipped.is_empty() {
        out.push(Finding::SkippedFiles {
            files: skipped
                .iter()
                .map(|(p, why)| (p.display().to_string(), why.clone()))
                .collect(),
        });
    }
    Ok(())
}

/// One row of [`canonical_rows`]: its line (from 1) and its field map, or
/// why it could not be read.
pub type CanonicalRow = (u64, Result<Map<String, Value>, String>);

/// Rows of one loaded input as canonical field maps (what `convert` writes).
pub fn canonical_rows(source: &Loaded<'_>) -> Vec<CanonicalRow> {
    match source {
        Loaded::File(LoadedFile::CanonicalFile { path }) => match std::fs::read(path) {
            Ok(content) => canonical_lines(path, &content),
            Err(e) => vec![(0, Err(format!("{path}: {e}")))],
        },
        Loaded::File(LoadedFile::Native(f)) => f
            .rows
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u64 + 1, Ok(r.clone())))
            .collect(),
        Loaded::Rows { rows, .. } => rows
            .iter()
            .enumerate()
            .map(|(i, r)| (i as u64 + 1, Ok(r.to_map())))
            .collect(),
        Loaded::File(LoadedFile::Canonical { path, content, .. }) => canonical_lines(path, content),
        Loaded::Table { table, .. } => table.0.field_maps(),
    }
}

fn canonical_lines(path: &str, content: &[u8]) -> Vec<CanonicalRow> {
    if Input::from_bytes(&plain_name(path), content.to_vec()).format()
        == rollstat_io::InputFormat::Csv
    {
        return vec![(
            0,
            Err("canonical CSV is passed over by convert (it is already canonical and is read directly)".into()),
        )];
    }
    content
        .strip_prefix(b"\xEF\xBB\xBF")
        .unwrap_or(content)
        .split(|&b| b == b'\n')
        .enumerate()
        .filter(|(_, l)| !l.trim_ascii().is_empty())
        .map(|(i, l)| {
            let row = rollstat_io::record::parse_row_object(l.strip_suffix(b"\r").unwrap_or(l));
            (i as u64 + 1, row)
        })
        .collect()
}

/// The field map suggested for a file no format fits, built from its
/// first record (the first 64 KiB read); `None` for other errors, or when
/// the record's keys do not look like ids and verdicts. Each front end
/// words it (`--map …`, `columns={…}`).
///
/// ```
/// let e = rollstat::FormatError::Io { path: "nope".into(), source: std::io::ErrorKind::NotFound.into() };
/// assert!(rollstat::suggested_field_map(&e).is_none());
/// ```
pub fn suggested_field_map(
    e: &rollstat_formats::FormatError,
) -> Option<rollstat_io::field_map::FieldMap> {
    use std::io::Read;
    let rollstat_formats::FormatError::Detect(d) = e else {
        return None;
    };
    let mut head = Vec::new();
    std::fs::File::open(&d.path)
        .ok()?
        .take(65536)
        .read_to_end(&mut head)
        .ok()?;
    rollstat_formats::field_map::suggest_for(&d.path, &head)
}

/// Rows or a table handed over in memory (not a file, bytes or stdin).
pub(crate) fn in_memory(s: &Source) -> bool {
    matches!(s, Source::Rows { .. } | Source::Table { .. })
}

/// A field map applies to files and bytes; in-memory rows beside them are
/// canonical rows. A map with nothing to apply to is a mistake.
pub(crate) fn check_map_has_files<'a>(
    sources: impl IntoIterator<Item = &'a Source>,
    map: Option<&rollstat_io::field_map::FieldMap>,
) -> Result<()> {
    let mut sources = sources.into_iter().peekable();
    if map.is_some() && sources.peek().is_some() && sources.all(in_memory) {
        return Err(Error::invalid(
            "field_map",
            "a field map reads files and bytes; in-memory rows are read as canonical rows (name their columns problem, correct, …)",
        ));
    }
    Ok(())
}

/// `opts` for reading one side of several (compare's A or B, a gate
/// side): the field map is dropped when the side is all in memory, since
/// the map was meant for the other side's files ([`check_map_has_files`]
/// refused a map with no file at all).
pub(crate) fn side_options(sources: &[Source], opts: &ReadOptions) -> ReadOptions {
    let mut o = opts.clone();
    if sources.iter().all(in_memory) {
        o.field_map = None;
    }
    o
}

/// An input's name without directories and extensions, which names the
/// benchmark (gate) or the system (rank) it holds: `runs/a/aime.jsonl.gz`
/// → `aime`.
pub(crate) fn file_stem(path: &str) -> String {
    let name = std::path::Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().to_string());
    let mut stem = name.as_str();
    for ext in [
        ".gz", ".zst", ".jsonl", ".json", ".csv", ".parquet", ".tsv", ".eval",
    ] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    stem.to_string()
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_stems_drop_directories_and_extensions() {
        assert_eq!(super::file_stem("runs/a/aime.jsonl.gz"), "aime");
        assert_eq!(super::file_stem("gsm8k.csv"), "gsm8k");
    }
}
