//! Answer grading and equivalence clustering for the report, through
//! `rollstat-grade`. (Owned by the grading work; see the issue.)

use anyhow::Result;
use clap::Args;
use rollstat_core::summary::{Answer, Verdict};
use rollstat_core::vote::{AnswerClusterer, ExactClusterer};
use rollstat_io::{CollectedProblem, Grader};

/// Grading flags shared by `report`, `compare` and `grade`.
#[derive(Args, Debug, Clone, Default)]
pub struct GradingArgs {}

/// Validated grading settings.
pub struct Grading;

impl Grading {
    pub fn from_args(_a: &GradingArgs) -> Result<Grading> {
        Ok(Grading)
    }
    /// Decides rows with `gold` but no `correct`.
    pub fn grader(&self) -> &dyn Grader {
        &rollstat_io::ExactGrader
    }
    /// Clusters answers for maj@n and self-consistency.
    pub fn clusterer(&self) -> &dyn AnswerClusterer {
        &ExactClusterer
    }
    /// Recorded as `config.answer_clustering`.
    pub fn describe(&self) -> String {
        "exact-string (trimmed)".into()
    }
    /// Normalizes answers before summarizing (e.g. junk → unextracted).
    pub fn normalize(&self, _problems: &mut [CollectedProblem]) {}
}

#[allow(dead_code)]
fn _types(_: Answer, _: Verdict) {}
