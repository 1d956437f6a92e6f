//! `rollstat summarize FILES… -o part.jsonl` and `rollstat merge PARTS… -o
//! merged.jsonl`: the per-problem summary file (docs/summary.md). Thin:
//! flags → [`rollstat::summarize`] / [`rollstat::merge`] → the file,
//! written through a temporary file and renamed into place.

use crate::options::{cli_error, InputError};
use anyhow::Result;
use clap::Args;
use rollstat::{Source, Summary};
use std::path::PathBuf;

/// Flags of `rollstat summarize`: the reading flags of `report`.
#[derive(Args, Debug)]
pub struct SummarizeArgs {
    /// Inputs, as for `report` (files, directories, `.gz`/`.zst`, `-` for stdin).
    #[arg(required = true)]
    pub inputs: Vec<String>,
    /// The summary file to write (`-`: stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    pub output: PathBuf,
    /// Input format, overriding auto-detection (as for `report`).
    #[arg(long, value_name = "NAME")]
    pub from: Option<String>,
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
    pub dedupe: Option<String>,
    /// The field holding each rollout's budget (default `output_tokens`; `none`: off).
    #[arg(long, value_name = "FIELD|none")]
    pub budget: Option<String>,
    /// Most bytes a compressed input may expand to (as for `report`).
    #[arg(long = "max-decompressed", value_name = "SIZE|none")]
    pub max_decompressed: Option<String>,
    #[command(flatten)]
    pub grading: crate::args::GradingArgs,
}

/// Flags of `rollstat merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    /// Summary files written by `rollstat summarize` (or `merge`), in order.
    #[arg(required = true, value_name = "PARTS")]
    pub inputs: Vec<String>,
    /// The merged summary file to write (`-`: stdout).
    #[arg(short = 'o', long = "output", value_name = "FILE", required = true)]
    pub output: PathBuf,
}

/// `rollstat summarize`.
pub fn summarize(a: &SummarizeArgs) -> Result<()> {
    crate::output::check_not_an_input(Some(&a.output), &a.inputs)?;
    let opts = crate::options::summarize_options(a)?;
    let sources: Vec<Source> = a.inputs.iter().map(Source::from).collect();
    let s = rollstat::summarize(&sources, &opts).map_err(cli_error)?;
    crate::output::write_text(Some(&a.output), &s.to_jsonl())
}

/// `rollstat merge`.
pub fn merge(a: &MergeArgs) -> Result<()> {
    crate::output::check_not_an_input(Some(&a.output), &a.inputs)?;
    // Parts are merged as they are read (merging is a left fold over the
    // parts), so only the merged rows and one part are in memory at once.
    let mut merged: Option<Summary> = None;
    for path in &a.inputs {
        let text = std::fs::read_to_string(path).map_err(|e| InputError(format!("{path}: {e}")))?;
        let part = Summary::from_jsonl(path, &text).map_err(cli_error)?;
        drop(text);
        merged = Some(match merged {
            None => part,
            Some(m) => rollstat::merge(vec![m, part]).map_err(cli_error)?,
        });
    }
    let merged = match merged {
        Some(m) => m,
        None => rollstat::merge(Vec::new()).map_err(cli_error)?,
    };
    crate::output::write_text(Some(&a.output), &merged.to_jsonl())
}
