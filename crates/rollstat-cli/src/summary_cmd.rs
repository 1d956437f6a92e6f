//! `rollstat summarize FILES… -o part.jsonl` and `rollstat merge PARTS… -o
//! merged.jsonl`: the per-problem summary file (docs/summary.md), JSON
//! Lines or, named `*.parquet`, Parquet. Thin: flags →
//! [`rollstat::summarize`] / [`rollstat::merge`] → the file, written
//! through a temporary file and renamed into place.

use crate::options::cli_error;
use anyhow::Result;
use clap::Args;
use rollstat::{Source, Summary};
use std::path::{Path, PathBuf};

/// Flags of `rollstat summarize`: the reading flags of `report`.
#[derive(Args, Debug)]
pub struct SummarizeArgs {
    /// Inputs, as for `report` (files, directories, `.gz`/`.zst`, `-` for stdin).
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// The summary file to write: Parquet when named `*.parquet`, JSON Lines otherwise (`-`: stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    pub output: PathBuf,
    #[command(flatten)]
    pub reading: crate::args::ReadingArgs,
    /// The breakdown field whose value each problem keeps (report with the same --by).
    #[arg(long, value_name = "FIELD")]
    pub by: Option<String>,
    /// The field whose value clusters problems (report with the same --cluster-by).
    #[arg(long = "cluster-by", value_name = "FIELD")]
    pub cluster_by: Option<String>,
    /// Stop at the first bad row (exit code 2).
    #[arg(long)]
    pub strict: bool,
    /// Keep the first or last of duplicated (problem, rollout) rows, here and when merging.
    #[arg(long, value_name = "first|last")]
    pub dedupe: Option<rollstat::Dedupe>,
    /// The field holding each rollout's budget (default `output_tokens`; `none`: off).
    #[arg(long, value_name = "FIELD|none")]
    pub budget: Option<rollstat::Budget>,
    /// Most bytes a compressed input may expand to (as for `report`).
    #[arg(long = "max-decompressed", value_name = "SIZE|none")]
    pub max_decompressed: Option<String>,
    #[command(flatten)]
    pub grading: crate::args::GradingArgs,
}

/// Flags of `rollstat merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Summary files written by `rollstat summarize` (or `merge`), in order; .jsonl and .parquet mix.
    #[arg(required = true, value_name = "PARTS")]
    pub inputs: Vec<String>,
    /// The merged summary file to write: Parquet when named `*.parquet`, JSON Lines otherwise (`-`: stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    pub output: PathBuf,
}

/// `rollstat summarize`.
pub fn summarize(a: &SummarizeArgs) -> Result<()> {
    crate::output::check_not_an_input(Some(&a.output), &a.inputs)?;
    let opts = crate::options::summarize_options(a)?;
    let sources: Vec<Source> = a.inputs.iter().map(Source::from).collect();
    let s = rollstat::summarize_pending(&sources, &opts).map_err(cli_error)?;
    if is_parquet(&a.output) && crate::output::destination(Some(&a.output)).is_some() {
        return write_summary(&a.output, &s.into_summary());
    }
    // Rows are made as they are written: 10⁷ of them held at once took
    // gigabytes.
    crate::output::write_with(Some(&a.output), |w| s.write_jsonl(w))
}

/// Whether `output` names a Parquet file.
fn is_parquet(output: &Path) -> bool {
    output
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet"))
}

/// Writes a summary to `output`: Parquet when its name ends in `.parquet`,
/// JSON Lines otherwise (and on stdout, `-`).
fn write_summary(output: &Path, s: &Summary) -> Result<()> {
    match crate::output::destination(Some(output)) {
        Some(path) if is_parquet(output) => write_parquet(path, s),
        _ => crate::output::write_text(Some(output), &s.to_jsonl()),
    }
}

#[cfg(feature = "parquet")]
fn write_parquet(path: &Path, s: &Summary) -> Result<()> {
    let mut f = crate::output::AtomicFile::create(path)?;
    s.write_parquet(&mut f)
        .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    f.commit()
}

#[cfg(not(feature = "parquet"))]
fn write_parquet(path: &Path, _: &Summary) -> Result<()> {
    Err(crate::options::InputError(format!(
        "-o {}: this rollstat was built without Parquet summaries (feature `parquet`); write .jsonl",
        path.display()
    ))
    .into())
}

/// `rollstat merge`.
pub fn merge(a: &MergeArgs) -> Result<()> {
    crate::output::check_not_an_input(Some(&a.output), &a.inputs)?;
    // Parts are merged as they are read (merging is a left fold over the
    // parts), so only the merged rows and one part are in memory at once.
    let mut merged: Option<Summary> = None;
    for path in &a.inputs {
        let part = Summary::read_file(Path::new(path)).map_err(cli_error)?;
        merged = Some(match merged {
            None => part,
            Some(m) => rollstat::merge(vec![m, part]).map_err(cli_error)?,
        });
    }
    let merged = match merged {
        Some(m) => m,
        None => rollstat::merge(Vec::new()).map_err(cli_error)?,
    };
    write_summary(&a.output, &merged)
}
