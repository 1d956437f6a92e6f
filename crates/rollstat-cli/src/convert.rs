//! `rollstat convert IN… -o OUT.jsonl`: canonical rollout rows (docs/spec.md §2)
//! from any supported input — native harness files, directories, `.gz` /
//! `.zst`, canonical JSONL — one JSON object per line, for jq pipelines and
//! for checking what an adapter read. No metric is computed and nothing is
//! graded: rows without `correct` keep `gold` + `answer`/`response` so that
//! `rollstat report` grades them exactly as it would the native file.

use crate::options::InputError;
use anyhow::{bail, Result};
use clap::Args;
use rollstat::{canonical_rows, gather, Loaded, LoadedFile, Source};
use rollstat_io::ReadOptions;
use std::path::PathBuf;

/// Flags of `rollstat convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Inputs: files or directories in any supported format; `-` reads stdin.
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// Write the rows to FILE instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,
    #[command(flatten)]
    pub reading: crate::args::ReadingArgs,
    /// Any unreadable file or malformed record is an error (exit code 2).
    #[arg(long)]
    pub strict: bool,
}

pub fn run(a: &ConvertArgs) -> Result<()> {
    crate::output::check_not_an_input(a.output.as_deref(), &a.inputs)?;
    let from = crate::options::source_format(&a.reading)?;
    let opts = ReadOptions {
        strict: a.strict,
        field_map: crate::options::field_map(&a.reading)?,
        ..Default::default()
    };
    let sources: Vec<Source> = a.inputs.iter().map(Source::from).collect();
    let g = gather(&sources, from, &opts).map_err(crate::options::cli_error)?;
    for (_, why) in &g.failed {
        eprintln!("rollstat: error: {}", crate::options::cli_text(why));
    }
    if a.strict && !g.failed.is_empty() {
        let files: Vec<&str> = g.failed.iter().map(|(p, _)| p.as_str()).collect();
        bail!(InputError(format!(
            "{} input file(s) could not be read: {} (strict mode)",
            files.len(),
            files.join(", ")
        )));
    }
    let mut out: Vec<u8> = Vec::new();
    let mut n_rows = 0u64;
    let mut n_bad = 0u64;
    for source in &g.loaded {
        let (path, format) = match source {
            Loaded::File(LoadedFile::Native(f)) => {
                (f.path.display().to_string(), f.format.to_string())
            }
            Loaded::File(LoadedFile::Canonical { path, .. })
            | Loaded::File(LoadedFile::CanonicalFile { path }) => {
                (path.clone(), "canonical".into())
            }
            Loaded::Rows { name, .. } | Loaded::Table { name, .. } => (name.clone(), "rows".into()),
        };
        if let Loaded::File(LoadedFile::Native(f)) = source {
            for w in &f.warnings {
                eprintln!("rollstat: warning: {w}");
            }
            n_bad += f.bad_lines as u64;
            if a.strict && f.bad_lines > 0 {
                bail!(InputError(format!(
                    "{path}: {} malformed record(s) (strict mode)",
                    f.bad_lines
                )));
            }
        }
        let mut count = 0u64;
        for (line, row) in canonical_rows(source) {
            match row {
                Ok(r) => {
                    serde_json::to_writer(&mut out, &r)?;
                    out.push(b'\n');
                    count += 1;
                }
                Err(reason) => {
                    if a.strict {
                        bail!(InputError(format!("{path}:{line}: {reason} (strict mode)")));
                    }
                    n_bad += 1;
                    eprintln!("rollstat: {path}:{line}: {reason}");
                }
            }
        }
        eprintln!("rollstat: {path} [{format}]: {count} rows");
        n_rows += count;
    }
    for (p, why) in &g.skipped {
        eprintln!("rollstat: skipped {}: {why}", p.display());
    }
    if n_rows == 0 {
        bail!(InputError(
            "no rows to write: every input was empty, unreadable or aggregates-only".into()
        ));
    }
    if n_bad > 0 || !g.failed.is_empty() {
        eprintln!(
            "rollstat: {n_rows} rows written; {n_bad} malformed records and {} unreadable files left out",
            g.failed.len()
        );
    }
    crate::output::write_text(a.output.as_deref(), &String::from_utf8_lossy(&out))
}
