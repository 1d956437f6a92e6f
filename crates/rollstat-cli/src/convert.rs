//! `rollstat convert IN… -o OUT.jsonl`: canonical rollout rows from any
//! supported input. (Owned by the native-formats work; see the issue.)

use anyhow::Result;
use clap::Args;

/// Flags of `rollstat convert`.
#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Inputs: files or directories in any supported format.
    #[arg(required = true)]
    pub inputs: Vec<String>,
}

pub fn run(_a: &ConvertArgs) -> Result<()> {
    anyhow::bail!("convert: work in progress")
}
