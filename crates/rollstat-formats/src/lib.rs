//! Adapters that map native LLM-evaluation harness outputs into rollstat's
//! canonical rollout rows (product contract, docs/spec.md §2).
//!
//! # Brief overview
//!
//! A harness writes its per-sample results in its own layout. This crate
//! recognises the layout ([`detect`]), reads it, and returns one
//! [`NativeFile`] per input file with canonical rows: JSON objects with
//! `problem`, `rollout`, `correct`, `answer`, `gold`, `response`,
//! `finish_reason`, `output_tokens`, `score`, `subset`, `model` (each only when
//! the native file has it) followed by useful native fields (`filter`,
//! `metric`, `epoch`, `trial`, `task`, …). Adapters only *map*: they compute
//! no metric. Where a harness stored its own aggregate (lm-eval results json,
//! SiEval `report.json`, OpenCompass metrics, inspect `results`) it is returned
//! as [`HarnessAggregate`] so a report can show it beside rollstat's number.
//!
//! Conventions shared by every adapter:
//! - `correct: null` marks a *failed* rollout (the native file says there is
//!   no verdict: an error, an unusable judge status, an unscored epoch).
//! - `answer: null` marks an *unextracted* answer (the native file says
//!   extraction failed: `"[invalid]"`, `"None"`, `extracted: false`, …). An
//!   absent `answer` key means the native file does not store one.
//! - When a native file stores responses and gold but no per-rollout verdict
//!   (lm-eval repeats beyond the first, lighteval details, OpenCompass
//!   predictions), `correct` is left out so rollstat grades the row itself.
//! - Canonical JSONL/CSV is only *detected*: [`read_path`] answers with
//!   [`FormatError::Canonical`] for an explicit canonical file and lists it in
//!   [`ReadReport::canonical`] during a directory walk, so the caller uses its
//!   own fast reader.
//!
//! ```no_run
//! use rollstat_formats::{read_path, Format};
//! let files = read_path("runs/tau".as_ref(), Some("tau-bench".parse::<Format>()?))?;
//! for f in &files {
//!     println!("{} [{}]: {} rows", f.path.display(), f.format, f.rows.len());
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

#![warn(missing_docs)]

mod adapters;
mod detect;
mod error;
pub mod field_map;
mod format;
mod harness;
mod input;
pub mod pipeline;
pub mod registry;
mod util;

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub use detect::{detect, detect_all, Detection};
pub use error::{DetectError, FormatError, Rejection};
pub use format::{Format, UnknownFormat};
pub use harness::{HarnessAggregate, HarnessTarget, HealthCount, TargetHints};
pub use input::DecompressLimit;
pub use registry::{FormatSpec, FORMATS};
pub use util::{quietly_catch, whole_document, Line};

/// One canonical row: a JSON object following docs/spec.md §2.
pub type Row = Map<String, Value>;

/// What was read from one native file (or one SiEval result directory).
#[derive(Debug, Clone, PartialEq)]
pub struct NativeFile {
    /// The file (or directory) read.
    pub path: PathBuf,
    /// Its format.
    pub format: Format,
    /// Canonical rows, in native order.
    pub rows: Vec<Row>,
    /// Aggregates the harness stored.
    pub aggregates: Vec<HarnessAggregate>,
    /// Things the user should know (skipped lines, assumptions made).
    pub warnings: Vec<String>,
    /// Malformed lines skipped (feeds `n_bad_lines`).
    pub bad_lines: usize,
    /// sha256 (hex) of the raw bytes as stored on disk (for a directory:
    /// of the sorted `name\0sha256\n` list of its files).
    pub sha256: Option<String>,
    /// What the harness declared about the run beyond its rows (boxed:
    /// most files declare nothing).
    pub declared: Box<Declared>,
}

/// What a native file declares about its run that its rows alone do not
/// say: typed, so the engine can word findings and compare the declared
/// run with what arrived.
///
/// ```
/// let d = rollstat_formats::Declared::default();
/// assert!(d.readings.is_none() && d.run.is_none());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Declared {
    /// Several readings of the same responses (lm-eval filters, inspect
    /// scorers), each kept apart in the rows' `run`.
    pub readings: Option<Readings>,
    /// The run as declared beside what the file holds.
    pub run: Option<DeclaredRun>,
    /// Rows left to grade whose targets the default (math) extraction
    /// cannot read: their shape and the extraction that fits.
    pub grading: Option<GradingHint>,
}

/// The extraction that fits the targets of rows left to grade.
#[derive(Clone, Debug, PartialEq)]
pub struct GradingHint {
    /// The input.
    pub path: String,
    /// What the targets are, in words (`Yes/No`, `choice letters`).
    pub targets: String,
    /// The extraction mode that reads them (`mcq`, `regex:…`), as the
    /// grading options spell it.
    pub extract: String,
}

/// Several readings of one system's responses, kept apart in one field.
#[derive(Clone, Debug, PartialEq)]
pub struct Readings {
    /// What a reading is in the harness's words (`filter`, `scorer`).
    pub what: String,
    /// The row field that holds them (`run`).
    pub field: String,
    /// Their names, in the file's order.
    pub values: Vec<String>,
}

/// A run as its harness declared it (status, dataset size, rollouts per
/// sample) and what the file holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclaredRun {
    /// The input.
    pub path: String,
    /// The run's status when the harness records one (`success`,
    /// `cancelled`, `error`, `started`).
    pub status: Option<String>,
    /// Whether `status` says the run finished.
    pub finished: bool,
    /// Samples the dataset declares.
    pub dataset_size: Option<u64>,
    /// Rollouts per sample the run asked for (inspect `epochs`, lm-eval
    /// `repeats`).
    pub rollouts: Option<u64>,
    /// Samples present.
    pub present: u64,
    /// Present samples with fewer rollouts than declared.
    pub short: u64,
}

impl DeclaredRun {
    /// Whether the file holds less than the run declared: a status other
    /// than a finished one, fewer samples than the dataset, or samples
    /// with fewer rollouts than asked.
    pub fn incomplete(&self) -> bool {
        (self.status.is_some() && !self.finished)
            || self.dataset_size.is_some_and(|d| self.present < d)
            || self.short > 0
    }
}

impl NativeFile {
    pub(crate) fn new(path: &Path, format: Format) -> Self {
        NativeFile {
            path: path.to_path_buf(),
            format,
            rows: Vec::new(),
            aggregates: Vec::new(),
            warnings: Vec::new(),
            bad_lines: 0,
            sha256: None,
            declared: Box::default(),
        }
    }
}

/// Everything found under a path, good and bad.
#[derive(Debug, Default)]
pub struct ReadReport {
    /// Files read successfully.
    pub files: Vec<NativeFile>,
    /// Canonical inputs found (for the caller's own reader).
    pub canonical: Vec<(PathBuf, Format)>,
    /// Files that failed, each error naming its path.
    pub errors: Vec<FormatError>,
    /// Files passed over on purpose, with the reason.
    pub skipped: Vec<(PathBuf, String)>,
}

/// Read a file or directory strictly: any failing file is an error (all
/// failures are listed in [`FormatError::Several`]). A canonical file given
/// directly is answered with [`FormatError::Canonical`].
pub fn read_path(path: &Path, from: Option<Format>) -> Result<Vec<NativeFile>, FormatError> {
    let mut report = read_path_lenient(path, from)?;
    if path.is_file() {
        if let Some((p, f)) = report.canonical.pop() {
            return Err(FormatError::Canonical {
                path: p,
                format: f.to_string(),
            });
        }
    }
    match report.errors.len() {
        0 => Ok(report.files),
        1 => Err(report.errors.remove(0)),
        _ => Err(FormatError::Several {
            errors: report.errors,
        }),
    }
}

/// Read a file or directory leniently: a directory is walked in sorted order,
/// every recognised file is read, and a failing file is recorded in
/// [`ReadReport::errors`] while the rest are still read. Fails only when the
/// path itself cannot be read.
pub fn read_path_lenient(path: &Path, from: Option<Format>) -> Result<ReadReport, FormatError> {
    read_path_lenient_with(path, from, DecompressLimit::default())
}

/// [`read_path_lenient`] with a limit on how far compressed content may
/// expand (a file past it is a failing file, named with the limit).
pub fn read_path_lenient_with(
    path: &Path,
    from: Option<Format>,
    limit: DecompressLimit,
) -> Result<ReadReport, FormatError> {
    let meta = std::fs::metadata(path).map_err(|source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let mut report = ReadReport::default();
    if meta.is_dir() {
        walk(path, from, limit, 0, &mut Visited::default(), &mut report)?;
    } else {
        match read_file(path, from, limit) {
            Ok(Read::Native(f)) => report.files.push(f),
            Ok(Read::Canonical(f)) => report.canonical.push((path.to_path_buf(), f)),
            Ok(Read::Companion(why)) => report.errors.push(FormatError::parse(
                path,
                None,
                why,
                "pass the file that holds the per-sample rows",
            )),
            Err(e) => report.errors.push(e),
        }
    }
    Ok(report)
}

pub(crate) enum Read {
    Native(NativeFile),
    Canonical(Format),
    /// A harness file without rows of its own (see `detect::companion`).
    Companion(&'static str),
}

/// Extensions a directory walk reads; anything else is skipped.
const READ_EXTS: &[&str] = &["json", "jsonl", "ndjson", "eval", "parquet", "csv"];

/// Whether a directory walk would read a file of this name (its extension,
/// under `.gz` / `.zst`, is an input format and it is not hidden); other
/// files in an input directory are passed over.
///
/// ```
/// use rollstat_formats::walk_reads;
/// use std::path::Path;
/// assert!(walk_reads(Path::new("runs/graded.jsonl.gz")));
/// assert!(!walk_reads(Path::new("runs/report.html")));
/// assert!(!walk_reads(Path::new("runs/.graded.jsonl")));
/// ```
pub fn walk_reads(path: &Path) -> bool {
    let inner = util::inner_name(path).to_ascii_lowercase();
    let ext = inner.rsplit('.').next().unwrap_or("");
    !inner.starts_with('.') && inner.contains('.') && READ_EXTS.contains(&ext)
}

/// Directory nesting beyond this is refused (guards against symlink loops).
const MAX_DEPTH: usize = 32;

/// Directories and files a walk has met, by identity, so that a symlink
/// back up the tree (`a/up -> ..`) or a second link to a file never reads
/// anything twice.
#[derive(Default)]
struct Visited(std::collections::HashSet<(u64, u64, PathBuf)>);

impl Visited {
    /// Records `p`; false when it was met before.
    fn first_visit(&mut self, p: &Path) -> bool {
        match identity(p) {
            Some(id) => self.0.insert(id),
            None => true,
        }
    }
}

/// (device, inode) on Unix; the canonical path elsewhere.
fn identity(p: &Path) -> Option<(u64, u64, PathBuf)> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(p).ok()?;
        Some((m.dev(), m.ino(), PathBuf::new()))
    }
    #[cfg(not(unix))]
    {
        Some((0, 0, std::fs::canonicalize(p).ok()?))
    }
}

fn walk(
    dir: &Path,
    from: Option<Format>,
    limit: DecompressLimit,
    depth: usize,
    visited: &mut Visited,
    report: &mut ReadReport,
) -> Result<(), FormatError> {
    if !visited.first_visit(dir) {
        report.skipped.push((
            dir.to_path_buf(),
            "directory already walked through another path (a symlink)".into(),
        ));
        return Ok(());
    }
    if depth > MAX_DEPTH {
        report.errors.push(FormatError::parse(
            dir,
            None,
            format!("directory nesting deeper than {MAX_DEPTH} levels (a symlink loop?)"),
            "pass a less deeply nested directory",
        ));
        return Ok(());
    }
    // A directory that is one input of its own (a SiEval result directory).
    let whole = FORMATS.iter().find_map(|s| {
        let d = s.read_dir?;
        ((d.is)(dir) && from.is_none_or(|f| f == s.format)).then_some(d)
    });
    if let Some(d) = whole {
        match (d.read)(dir, limit) {
            Ok(f) => report.files.push(f),
            Err(e) => report.errors.push(e),
        }
        return Ok(());
    }
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(|source| FormatError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .collect();
    entries.sort();
    let consumed = adapters::lm_eval::results_consumed_by_samples(&entries);
    for p in entries {
        let name = p
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if name.starts_with('.') {
            continue;
        }
        if p.is_dir() {
            walk(&p, from, limit, depth + 1, visited, report)?;
            continue;
        }
        if !visited.first_visit(&p) {
            report
                .skipped
                .push((p, "file already read through another path (a link)".into()));
            continue;
        }
        let inner = util::inner_name(&p).to_ascii_lowercase();
        let ext = inner.rsplit('.').next().unwrap_or("");
        if !READ_EXTS.contains(&ext) || !inner.contains('.') {
            report
                .skipped
                .push((p, format!("extension .{ext} is not an input format")));
            continue;
        }
        if consumed.contains(&p) {
            report.skipped.push((
                p,
                "lm-eval results file: its aggregates are attached to the samples files beside it"
                    .into(),
            ));
            continue;
        }
        if inner == "logs.json" || inner.starts_with("summary_") && ext == "csv" {
            report
                .skipped
                .push((p, "harness index/summary file, no per-sample data".into()));
            continue;
        }
        if let Some(why) = adapters::opencompass::predictions_shadowed(&p) {
            report.skipped.push((p, why.into()));
            continue;
        }
        match read_file(&p, from, limit) {
            Ok(Read::Native(f)) => report.files.push(f),
            Ok(Read::Canonical(f)) => report.canonical.push((p, f)),
            Ok(Read::Companion(why)) => report.skipped.push((p, why.into())),
            Err(e) => report.errors.push(e),
        }
    }
    Ok(())
}

/// A file's raw-bytes digest and its content, decompressed when the bytes
/// are gzip or zstd (recognised by magic bytes, whatever the extension).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// Hex sha256 of the bytes as stored.
    pub sha256: String,
    /// The content, decompressed.
    pub content: Vec<u8>,
}

/// Reads a file and decompresses `.gz` / `.zst` content transparently, so a
/// caller's own reader (canonical JSONL/CSV) gets plain bytes.
pub fn read_decoded(path: &Path) -> Result<Decoded, FormatError> {
    read_decoded_with(path, DecompressLimit::default())
}

/// [`read_decoded`] within a decompression limit.
pub fn read_decoded_with(path: &Path, limit: DecompressLimit) -> Result<Decoded, FormatError> {
    let l = input::load(path, limit)?;
    Ok(Decoded {
        sha256: l.sha256,
        content: l.content,
    })
}

/// [`read_decoded`] for bytes already in memory (stdin); `path` names them
/// in errors.
pub fn decode_bytes(path: &Path, raw: Vec<u8>) -> Result<Decoded, FormatError> {
    decode_bytes_with(path, raw, DecompressLimit::default())
}

/// [`decode_bytes`] within a decompression limit.
pub fn decode_bytes_with(
    path: &Path,
    raw: Vec<u8>,
    limit: DecompressLimit,
) -> Result<Decoded, FormatError> {
    let l = input::load_bytes(path, raw, limit)?;
    Ok(Decoded {
        sha256: l.sha256,
        content: l.content,
    })
}

/// What one input's bytes turned out to be ([`read_bytes`]).
#[derive(Debug)]
pub enum Classified {
    /// A native harness file, read.
    Native(NativeFile),
    /// Canonical rows: the caller reads `Decoded::content` itself.
    Canonical(Format),
}

/// Detects (or takes `from`) and reads decoded bytes that did not come
/// from a file of their own (stdin). Directory-only layouts (a SiEval result
/// directory) cannot be read this way.
pub fn read_bytes(
    path: &Path,
    decoded: &Decoded,
    from: Option<Format>,
) -> Result<Classified, FormatError> {
    read_bytes_with(path, decoded, from, DecompressLimit::default())
}

/// [`read_bytes`] within a decompression limit (for archives such as
/// inspect `.eval` logs, whose entries are compressed).
pub fn read_bytes_with(
    path: &Path,
    decoded: &Decoded,
    from: Option<Format>,
    limit: DecompressLimit,
) -> Result<Classified, FormatError> {
    match read_loaded(path, &decoded.sha256, &decoded.content, from, limit)? {
        Read::Native(f) => Ok(Classified::Native(f)),
        Read::Canonical(f) => Ok(Classified::Canonical(f)),
        Read::Companion(why) => Err(FormatError::parse(
            path,
            None,
            why,
            "pass the file that holds the per-sample rows",
        )),
    }
}

fn read_file(
    path: &Path,
    from: Option<Format>,
    limit: DecompressLimit,
) -> Result<Read, FormatError> {
    let loaded = input::load(path, limit)?;
    read_loaded(path, &loaded.sha256, &loaded.content, from, limit)
}

fn read_loaded(
    path: &Path,
    sha256: &str,
    content: &[u8],
    from: Option<Format>,
    limit: DecompressLimit,
) -> Result<Read, FormatError> {
    let format = match from {
        None => match detect::detect_among(path, content, &Format::ALL) {
            Ok(f) => f,
            Err(e) => {
                return match detect::companion(path, content) {
                    Some(why) => Ok(Read::Companion(why)),
                    None => Err(e.into()),
                }
            }
        },
        Some(f) => {
            let family = f.family();
            if family.len() == 1 {
                f
            } else {
                detect::detect_among(path, content, &family).unwrap_or(f)
            }
        }
    };
    if format.is_canonical() {
        return Ok(Read::Canonical(format));
    }
    let mut file = adapters::read(path, format, content, limit)?;
    if from.is_some() {
        named_format_fits(&file)?;
    }
    file.sha256 = Some(sha256.to_string());
    Ok(Read::Native(file))
}

/// A format named by hand whose layout no record of the file fits is one
/// error (the first record's reason), not a warning per record.
fn named_format_fits(file: &NativeFile) -> Result<(), FormatError> {
    if !file.rows.is_empty() || file.bad_lines == 0 || !file.aggregates.is_empty() {
        return Ok(());
    }
    let first = file.warnings.first().map_or("", String::as_str);
    let shown = file.path.display().to_string();
    let reason = first
        .strip_prefix(shown.as_str())
        .map(|r| r.trim_start_matches(|c: char| c == ':' || c.is_ascii_digit() || c == ' '))
        .unwrap_or(first);
    Err(FormatError::parse(
        &file.path,
        None,
        format!(
            "no record fits the {} layout ({} records; the first: {reason})",
            file.format, file.bad_lines
        ),
        "name the format the file was written in, or let it be detected",
    ))
}
