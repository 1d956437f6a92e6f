//! Reading sources: canonical JSONL/CSV through `rollstat-io`, native
//! harness files and directories through `rollstat-formats`, in-memory
//! [`Row`]s through the same row parser as file rows.
//!
//! A [`Source`] is a path (a file or a directory, walked; every recognised
//! file is read), stdin, bytes, or typed rows. `.gz` / `.zst` content is
//! decompressed first, for canonical and native files alike. A file named
//! directly that no format fits is an error that lists every format tried
//! and why it did not fit; a file met during a directory walk that cannot be
//! read is named in the diagnostics, counted in a finding and left out —
//! strict mode makes it an error. Nothing here prints.

use crate::error::{Error, Result};
use crate::findings::Finding;
use crate::harness::{record_scopes, Key, Scopes, Tracked};
use crate::options::MessageSink;
use crate::rows::Row;
use rollstat_core::input::InputInfo;
use rollstat_formats::{
    Classified, DecompressLimit, Format, FormatError, HarnessAggregate, NativeFile,
};
use rollstat_io::record::{parse_record_budget, Record};
use rollstat_io::{BadLine, Collected, Collector, Input, ReadError, ReadOptions};
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
            Source::Bytes { name, .. } | Source::Rows { name, .. } => name.clone(),
        }
    }
}

/// One input after detection.
pub enum Loaded {
    /// Native rows, already canonical field maps.
    Native(NativeFile),
    /// Canonical JSONL/CSV bytes (decompressed) for rollstat-io's reader.
    Canonical {
        /// The input's name: its path, `<stdin>`, or the bytes' name.
        path: String,
        /// sha256 of the bytes as stored (before decompression).
        sha256: String,
        /// The decompressed content.
        content: Vec<u8>,
    },
    /// An uncompressed canonical file, streamed by rollstat-io in blocks
    /// (memory grows with problems, not with the file).
    CanonicalFile {
        /// The file's path.
        path: String,
    },
    /// Typed rows from memory.
    Rows {
        /// The rows' name, as in [`Source::Rows`].
        name: String,
        /// The rows, in order.
        rows: Vec<Row>,
    },
}

/// What the sources held.
#[derive(Default)]
pub struct Gathered {
    /// Every input loaded, source by source (a directory contributes each
    /// of its files that loaded).
    pub loaded: Vec<Loaded>,
    /// Files of a directory walk that could not be read: (path, why).
    pub failed: Vec<(String, String)>,
    /// Files of a directory walk passed over on purpose.
    pub skipped: Vec<(PathBuf, String)>,
    /// Inputs whose content fits more than one format: which one each was
    /// read as, in words.
    pub ambiguous: Vec<String>,
}

/// For a file whose content fits canonical rows and a native format, which
/// one it is read as, in words; `None` when only one format fits (or one
/// was named).
fn fit_note(path: &Path, from: Option<Format>) -> Option<String> {
    use std::io::Read;
    if from.is_some() {
        return None;
    }
    let mut head = Vec::with_capacity(65536);
    std::fs::File::open(path)
        .ok()?
        .take(65536)
        .read_to_end(&mut head)
        .ok()?;
    let d = rollstat_formats::detect_all(path, &head).ok()?;
    let canonical_involved =
        d.format.is_canonical() || d.also_fits.iter().any(|f| f.is_canonical());
    if d.also_fits.is_empty() || !canonical_involved {
        return None;
    }
    let others: Vec<&str> = d.also_fits.iter().map(|f| f.name()).collect();
    let why = if d.format.is_canonical() {
        "its rows state `problem` and a verdict, which rollstat reads as given"
    } else {
        "it is one document, as that format writes it"
    };
    Some(format!(
        "{}: the content fits {} and {}; it was read as {} ({why}); choose the format explicitly to read it otherwise",
        path.display(),
        d.format.name(),
        others.join(", "),
        d.format.name(),
    ))
}

fn is_detect_failure(e: &FormatError) -> bool {
    matches!(e, FormatError::Detect(_))
}

/// A file that detection did not recognise may still be canonical JSONL
/// whose first rows are malformed: the canonical reader then names each bad
/// row. Returns the canonical source when at least one row parses.
fn canonical_fallback(path: &Path, opts: &ReadOptions, limit: DecompressLimit) -> Option<Loaded> {
    let decoded = rollstat_formats::read_decoded_with(path, limit).ok()?;
    let shown = path.display().to_string();
    let input = Input::from_bytes(&plain_name(&shown), decoded.content.clone());
    let rows = input.parse_rows(opts.by.as_deref(), opts.cluster_by.as_deref());
    // An empty file is named by the canonical reader ("no records").
    (rows.is_empty() || rows.iter().any(|(_, r)| r.is_ok())).then_some(Loaded::Canonical {
        path: shown,
        sha256: decoded.sha256,
        content: decoded.content,
    })
}

/// The name without a compression suffix, so the canonical reader picks
/// CSV vs JSONL from `x.csv.gz` as from `x.csv`.
fn plain_name(path: &str) -> String {
    for suffix in [".gz", ".zst", ".zstd"] {
        if path.len() > suffix.len() && path.to_ascii_lowercase().ends_with(suffix) {
            return path[..path.len() - suffix.len()].to_string();
        }
    }
    path.to_string()
}

/// An uncompressed file whose head is detected as canonical JSONL/CSV (or
/// a canonical format was named): it can be streamed instead of loaded.
fn plain_canonical(path: &Path, from: Option<Format>) -> bool {
    use std::io::Read;
    if from.is_some_and(|f| !f.is_canonical()) {
        return false;
    }
    let mut head = Vec::with_capacity(65536);
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    if file.take(65536).read_to_end(&mut head).is_err() {
        return false;
    }
    let compressed = head.starts_with(&[0x1f, 0x8b]) || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]);
    !compressed
        && (from.is_some_and(|f| f.is_canonical())
            || rollstat_formats::detect(path, &head).is_ok_and(|f| f.is_canonical()))
}

fn canonical_source(path: &Path, limit: DecompressLimit) -> Result<Loaded, FormatError> {
    let decoded = rollstat_formats::read_decoded_with(path, limit)?;
    Ok(Loaded::Canonical {
        path: path.display().to_string(),
        sha256: decoded.sha256,
        content: decoded.content,
    })
}

/// Detects and loads every source. Files named directly must be readable;
/// files inside a directory are read leniently (failures are listed in
/// [`Gathered::failed`]).
pub fn gather(sources: &[Source], from: Option<Format>, opts: &ReadOptions) -> Result<Gathered> {
    gather_with(sources, from, opts, DecompressLimit::default())
}

/// [`gather`] with a limit on how far compressed inputs may expand.
pub fn gather_with(
    sources: &[Source],
    from: Option<Format>,
    opts: &ReadOptions,
    limit: DecompressLimit,
) -> Result<Gathered> {
    let mut g = Gathered::default();
    for source in sources {
        match source {
            Source::Stdin => g.loaded.push(read_stdin(from, limit)?),
            Source::Bytes { name, bytes } => {
                g.loaded
                    .push(load_bytes(Path::new(name), bytes.clone(), from, limit)?)
            }
            Source::Rows { name, rows } => g.loaded.push(Loaded::Rows {
                name: name.clone(),
                rows: rows.clone(),
            }),
            Source::Path(path) => gather_path(path, from, opts, limit, &mut g)?,
        }
    }
    Ok(g)
}

fn gather_path(
    path: &Path,
    from: Option<Format>,
    opts: &ReadOptions,
    limit: DecompressLimit,
    g: &mut Gathered,
) -> Result<()> {
    if path.is_file() && plain_canonical(path, from) {
        g.ambiguous.extend(fit_note(path, from));
        g.loaded.push(Loaded::CanonicalFile {
            path: path.display().to_string(),
        });
        return Ok(());
    }
    let report = rollstat_formats::read_path_lenient_with(path, from, limit)
        .map_err(|e| Error::input(e.to_string()))?;
    let is_dir = path.is_dir();
    for p in report.files.iter().map(|f| &f.path) {
        if p.is_file() {
            g.ambiguous.extend(fit_note(p, from));
        }
    }
    for (p, _) in &report.canonical {
        g.ambiguous.extend(fit_note(p, from));
    }
    g.loaded
        .extend(report.files.into_iter().map(Loaded::Native));
    for (p, _) in report.canonical {
        if plain_canonical(&p, from) {
            g.loaded.push(Loaded::CanonicalFile {
                path: p.display().to_string(),
            });
            continue;
        }
        match canonical_source(&p, limit) {
            Ok(s) => g.loaded.push(s),
            Err(e) if is_dir => g.failed.push((p.display().to_string(), e.to_string())),
            Err(e) => return Err(Error::input(e.to_string())),
        }
    }
    for e in report.errors {
        let p = e
            .path()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| path.to_path_buf());
        if from.is_none() && is_detect_failure(&e) {
            if let Some(s) = canonical_fallback(&p, opts, limit) {
                g.loaded.push(s);
                continue;
            }
        }
        if !is_dir {
            return Err(Error::input(e.to_string()));
        }
        g.failed.push((p.display().to_string(), e.to_string()));
    }
    g.skipped.extend(report.skipped);
    Ok(())
}

fn read_stdin(from: Option<Format>, limit: DecompressLimit) -> Result<Loaded> {
    load_bytes(Path::new("<stdin>"), read_all_stdin()?, from, limit)
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

/// Bytes are canonical unless their content is clearly a native layout
/// (or a native format is named).
fn load_bytes(
    name: &Path,
    raw: Vec<u8>,
    from: Option<Format>,
    limit: DecompressLimit,
) -> Result<Loaded> {
    let decoded = rollstat_formats::decode_bytes_with(name, raw, limit)
        .map_err(|e| Error::input(e.to_string()))?;
    let canonical = |d: rollstat_formats::Decoded| Loaded::Canonical {
        path: name.display().to_string(),
        sha256: d.sha256,
        content: d.content,
    };
    match from {
        None => match rollstat_formats::read_bytes_with(name, &decoded, None, limit) {
            Ok(Classified::Native(f)) => Ok(Loaded::Native(f)),
            _ => Ok(canonical(decoded)),
        },
        Some(f) if f.is_canonical() => Ok(canonical(decoded)),
        Some(f) => match rollstat_formats::read_bytes_with(name, &decoded, Some(f), limit) {
            Ok(Classified::Native(f)) => Ok(Loaded::Native(f)),
            Ok(Classified::Canonical(_)) => Ok(canonical(decoded)),
            Err(e) => Err(Error::input(e.to_string())),
        },
    }
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

impl Reader<'_> {
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

    fn parse_map(&self, m: &Map<String, Value>) -> Result<Record, String> {
        parse_record_budget(
            m,
            self.opts.by.as_deref(),
            self.opts.cluster_by.as_deref(),
            self.opts.budget.as_deref(),
        )
    }

    fn add(&mut self, loaded: Loaded) -> Result<()> {
        match loaded {
            Loaded::Canonical {
                path,
                sha256,
                content,
            } => self.add_canonical(path, sha256, content),
            Loaded::CanonicalFile { path } => {
                let input = Input::open(&path)?;
                match self.collector.add(input) {
                    Err(e @ ReadError::Empty { .. }) if !self.opts.strict => {
                        self.say(format!("warning: {e}"));
                        Ok(())
                    }
                    r => Ok(r?),
                }
            }
            Loaded::Native(f) => self.add_native(f),
            Loaded::Rows { name, rows } => {
                let parsed: Vec<(u64, Result<Record, String>)> = rows
                    .iter()
                    .enumerate()
                    .map(|(i, r)| (i as u64 + 1, self.parse_map(&r.as_map())))
                    .collect();
                for (line, r) in &parsed {
                    self.track(&name, *line, r);
                }
                let info = InputInfo {
                    path: name.clone(),
                    format: "rows".into(),
                    sha256: String::new(),
                    records: rows.len() as u64,
                };
                self.check_empty(&name, rows.is_empty())?;
                Ok(self.collector.add_rows(info, parsed)?)
            }
        }
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

    fn add_canonical(&mut self, path: String, sha256: String, content: Vec<u8>) -> Result<()> {
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
        };
        self.check_empty(&path, rows.is_empty())?;
        Ok(self.collector.add_rows(info, rows)?)
    }

    fn add_native(&mut self, f: NativeFile) -> Result<()> {
        let shown = f.path.display().to_string();
        let (bad, file_notes) = split_warnings(&f);
        self.findings
            .extend(file_notes.into_iter().map(Finding::AdapterNote));
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
    let mut r = Reader {
        opts,
        collector: Collector::with_grader(opts.clone(), grader),
        aggregates: Vec::new(),
        tracked: Vec::new(),
        first_origin: HashMap::new(),
        findings: Vec::new(),
        messages: Vec::new(),
        sink,
    };
    for (_, why) in &g.failed {
        r.say(format!("error: {why}"));
    }
    let Gathered {
        loaded,
        failed,
        skipped,
        ambiguous,
    } = g;
    r.findings
        .extend(ambiguous.into_iter().map(Finding::AdapterNote));
    for l in loaded {
        r.add(l)?;
    }
    walk_findings(&failed, &skipped, opts.strict, &mut r.findings)?;
    let mut collected = r.collector.finish()?;
    crate::population::canonical_order(&mut collected.problems);
    collected.systems.sort();
    if let Some(s) = sink {
        send_bad_rows(s, &collected.bad_lines);
    }
    let keep = when_empty == WhenEmpty::KeepBadRows && !collected.bad_lines.is_empty();
    if collected.problems.is_empty() && !keep {
        return Err(Error::NoProblems(if r.aggregates.is_empty() {
            nothing_usable(&failed, &skipped)
        } else {
            "the inputs hold harness aggregates only, no per-sample rows (pass the per-sample files, e.g. lm-eval samples_*.jsonl)".to_string()
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
            return Err(Error::input(format!(
                "{} input file(s) could not be read: {} (strict mode rejects unreadable files)",
                files.len(),
                files.join(", ")
            )));
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
pub fn canonical_rows(source: &Loaded) -> Vec<CanonicalRow> {
    match source {
        Loaded::CanonicalFile { path } => match std::fs::read(path) {
            Ok(content) => canonical_rows(&Loaded::Canonical {
                path: path.clone(),
                sha256: String::new(),
                content,
            }),
            Err(e) => vec![(0, Err(format!("{path}: {e}")))],
        },
        Loaded::Native(f) => f
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
        Loaded::Canonical { path, content, .. } => canonical_lines(path, content),
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
