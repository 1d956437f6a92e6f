//! `rollstat grade IN… -o OUT.jsonl`: adds `answer` and `correct` to rows.
//! (Owned by the grading work; see the issue.)

use anyhow::Result;
use clap::Args;

/// Flags of `rollstat grade`.
#[derive(Args, Debug)]
pub struct GradeArgs {
    /// Inputs (canonical rows with `gold` and `response`/`answer`).
    #[arg(required = true)]
    pub inputs: Vec<String>,
}

pub fn run(_a: &GradeArgs) -> Result<()> {
    anyhow::bail!("grade: work in progress")
}
