//! The reading pipeline for files and bytes: walk → decompression →
//! detection → adapter → canonical records, under one [`ReadOptions`].
//!
//! A path (a file, or a directory walked in sorted order) or a buffer
//! (stdin, in-memory bytes) comes out as [`Loaded`] inputs: native rows
//! already mapped by their adapter, or canonical JSONL/CSV for
//! `rollstat-io`'s reader (streamed from the file when it is not
//! compressed). A file named directly that no format fits is an error that
//! lists every format tried; a file met during a walk that cannot be read
//! is listed in [`Gathered::failed`] and the rest are read. Nothing here
//! prints.

use std::path::{Path, PathBuf};

use rollstat_io::Input;

use crate::{
    decode_bytes_with, detect, detect_all, read_bytes_with, read_decoded_with,
    read_path_lenient_with, Classified, DecompressLimit, Format, FormatError, NativeFile,
};

/// How files are read: the one set of options of the pipeline.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions<'a> {
    /// The format named by the user (`--from`); `None` detects.
    pub from: Option<Format>,
    /// How far compressed content may expand.
    pub limit: DecompressLimit,
    /// The breakdown field canonical rows are parsed with (a file no format
    /// fits is still read as canonical rows when one of them parses).
    pub by: Option<&'a str>,
    /// The cluster field canonical rows are parsed with.
    pub cluster_by: Option<&'a str>,
    /// A field map: every file is read through it instead of detected.
    pub map: Option<&'a rollstat_io::field_map::FieldMap>,
}

/// One input after detection.
#[derive(Debug)]
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
}

/// What a path held.
#[derive(Debug, Default)]
pub struct Gathered {
    /// Every input loaded (a directory contributes each of its files that
    /// loaded).
    pub loaded: Vec<Loaded>,
    /// Files of a directory walk that could not be read: (path, why).
    pub failed: Vec<(String, String)>,
    /// Files of a directory walk passed over on purpose.
    pub skipped: Vec<(PathBuf, String)>,
    /// Inputs whose content fits more than one format: which one each was
    /// read as, in words.
    pub ambiguous: Vec<String>,
    /// Files of [`Gathered::failed`] that no format recognised.
    pub unrecognised: usize,
}

/// Detects and loads a file or a directory. A file named directly must be
/// readable; files inside a directory are read leniently (failures are
/// listed in [`Gathered::failed`]).
pub fn gather_path(path: &Path, opts: &ReadOptions<'_>) -> Result<Gathered, FormatError> {
    let (from, limit) = (opts.from, opts.limit);
    if let Some(map) = opts.map {
        return gather_mapped(path, map, limit);
    }
    let mut g = Gathered::default();
    if path.is_file() && plain_canonical(path, from) {
        g.ambiguous.extend(fit_note(path, from));
        g.loaded.push(Loaded::CanonicalFile {
            path: path.display().to_string(),
        });
        return Ok(g);
    }
    let report = read_path_lenient_with(path, from, limit)?;
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
            Err(e) => return Err(e),
        }
    }
    for e in report.errors {
        let p = e.path().map(Path::to_path_buf);
        let p = p.unwrap_or_else(|| path.to_path_buf());
        if from.is_none() && matches!(e, FormatError::Detect(_)) {
            if let Some(s) = canonical_fallback(&p, opts) {
                g.loaded.push(s);
                continue;
            }
        }
        if !is_dir {
            return Err(e);
        }
        // An unrecognised file of a walk in one short line; the formats
        // tried are said once for all of them.
        let why = match &e {
            FormatError::Detect(d) => {
                g.unrecognised += 1;
                d.short()
            }
            other => other.to_string(),
        };
        g.failed.push((p.display().to_string(), why));
    }
    g.skipped.extend(report.skipped);
    Ok(g)
}

/// Bytes that did not come from a file of their own (stdin, a buffer):
/// canonical unless their content is clearly a native layout (or a native
/// format is named).
pub fn load_bytes(
    name: &Path,
    raw: Vec<u8>,
    opts: &ReadOptions<'_>,
) -> Result<Loaded, FormatError> {
    let (from, limit) = (opts.from, opts.limit);
    let decoded = decode_bytes_with(name, raw, limit)?;
    if let Some(map) = opts.map {
        let mut f = crate::field_map::read(name, &decoded.content, map)?;
        f.sha256 = Some(decoded.sha256);
        return Ok(Loaded::Native(f));
    }
    let canonical = |d: crate::Decoded| Loaded::Canonical {
        path: name.display().to_string(),
        sha256: d.sha256,
        content: d.content,
    };
    match from {
        None => match read_bytes_with(name, &decoded, None, limit) {
            Ok(Classified::Native(f)) => Ok(Loaded::Native(f)),
            _ => Ok(canonical(decoded)),
        },
        Some(f) if f.is_canonical() => Ok(canonical(decoded)),
        Some(f) => match read_bytes_with(name, &decoded, Some(f), limit)? {
            Classified::Native(f) => Ok(Loaded::Native(f)),
            Classified::Canonical(_) => Ok(canonical(decoded)),
        },
    }
}

/// The first 64 KiB of a file.
fn head(path: &Path) -> Option<Vec<u8>> {
    use std::io::Read;
    let mut head = Vec::with_capacity(65536);
    let file = std::fs::File::open(path).ok()?;
    file.take(65536).read_to_end(&mut head).ok()?;
    Some(head)
}

/// For a file whose content fits canonical rows and a native format, which
/// one it is read as, in words; `None` when only one format fits (or one
/// was named).
fn fit_note(path: &Path, from: Option<Format>) -> Option<String> {
    if from.is_some() {
        return None;
    }
    let d = detect_all(path, &head(path)?).ok()?;
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

/// A file that detection did not recognise may still be canonical JSONL
/// whose first rows are malformed: the canonical reader then names each bad
/// row. Returns the canonical source when at least one row parses.
fn canonical_fallback(path: &Path, opts: &ReadOptions<'_>) -> Option<Loaded> {
    let decoded = read_decoded_with(path, opts.limit).ok()?;
    let shown = path.display().to_string();
    let input = Input::from_bytes(&plain_name(&shown), decoded.content.clone());
    let rows = input.parse_rows(opts.by, opts.cluster_by);
    // An empty file is named by the canonical reader ("no records").
    (rows.is_empty() || rows.iter().any(|(_, r)| r.is_ok())).then_some(Loaded::Canonical {
        path: shown,
        sha256: decoded.sha256,
        content: decoded.content,
    })
}

/// The name without a compression suffix, so the canonical reader picks
/// CSV vs JSONL from `x.csv.gz` as from `x.csv`.
pub fn plain_name(path: &str) -> String {
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
    if from.is_some_and(|f| !f.is_canonical()) {
        return false;
    }
    let Some(head) = head(path) else {
        return false;
    };
    let compressed = head.starts_with(&[0x1f, 0x8b]) || head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]);
    !compressed
        && (from.is_some_and(|f| f.is_canonical())
            || detect(path, &head).is_ok_and(|f| f.is_canonical()))
}

fn canonical_source(path: &Path, limit: DecompressLimit) -> Result<Loaded, FormatError> {
    let decoded = read_decoded_with(path, limit)?;
    Ok(Loaded::Canonical {
        path: path.display().to_string(),
        sha256: decoded.sha256,
        content: decoded.content,
    })
}

/// A file, or every input file of a directory (sorted, recursively), read
/// through a field map.
fn gather_mapped(
    path: &Path,
    map: &rollstat_io::field_map::FieldMap,
    limit: DecompressLimit,
) -> Result<Gathered, FormatError> {
    let mut g = Gathered::default();
    let read_one = |p: &Path| -> Result<NativeFile, FormatError> {
        let d = read_decoded_with(p, limit)?;
        let mut f = crate::field_map::read(p, &d.content, map)?;
        f.sha256 = Some(d.sha256);
        Ok(f)
    };
    if !path.is_dir() {
        g.loaded.push(Loaded::Native(read_one(path)?));
        return Ok(g);
    }
    let mut files = Vec::new();
    mapped_files(path, &mut files);
    files.sort();
    for p in files {
        match read_one(&p) {
            Ok(f) => g.loaded.push(Loaded::Native(f)),
            Err(e) => g.failed.push((p.display().to_string(), e.to_string())),
        }
    }
    Ok(g)
}

/// The input files under `dir` (by extension, not hidden), depth-first.
fn mapped_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for p in entries.flatten().map(|e| e.path()) {
        if p.is_dir() {
            mapped_files(&p, out);
        } else if crate::walk_reads(&p) {
            out.push(p);
        }
    }
}
