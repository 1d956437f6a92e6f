//! The one population path shared by report and compare: read the sources,
//! grade rows that need it, apply the junk rule, and fold every problem
//! into its summary with the policy's clusterer.

use crate::error::Result;
use crate::grading::{mark_junk_unextracted, Grading};
use crate::options::MessageSink;
use crate::read::{read_inputs, Inputs, Source};
use rayon::prelude::*;
use rollstat_core::summary::{summarize_ref, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_formats::Format;
use rollstat_grade::GradingPolicy;
use rollstat_io::{CollectedProblem, ReadOptions};

/// Problems as read, with their summaries (index-aligned).
pub(crate) struct Summarized {
    pub inputs: Inputs,
    /// One summary per problem of `inputs.collected.problems`.
    pub summaries: Vec<ProblemSummary>,
    /// Gradings and answer comparisons the work cap left undecided.
    pub n_undecided: u64,
}

/// Reads `sources` and summarizes every problem under `policy`, grading
/// and clustering by `grading`.
pub(crate) fn read_population(
    sources: &[Source],
    read: &ReadOptions,
    from: Option<Format>,
    grading: &GradingPolicy,
    policy: DenominatorPolicy,
    sink: Option<&MessageSink>,
) -> Result<Summarized> {
    let g = Grading::new(grading);
    let mut inputs = read_inputs(sources, read, from, &g, sink)?;
    let summaries = summarize_problems(&mut inputs.collected.problems, &g, policy);
    Ok(Summarized {
        inputs,
        summaries,
        n_undecided: g.n_undecided(),
    })
}

/// Applies the junk rule and summarizes each problem, freeing its
/// rollouts as soon as its summary is made (so the metric columns never
/// coexist with them).
pub(crate) fn summarize_problems(
    problems: &mut [CollectedProblem],
    clusterer: &Grading<'_>,
    policy: DenominatorPolicy,
) -> Vec<ProblemSummary> {
    mark_junk_unextracted(problems);
    problems
        .par_iter_mut()
        .map(|p| {
            let summary = summarize_ref(&p.data, policy, clusterer);
            if let ProblemData::Rollouts(t) = &mut p.data {
                *t = Default::default();
            }
            summary
        })
        .collect()
}

/// The requested n and where it came from.
pub(crate) fn requested_n(given: Option<u64>, largest_seen: u64) -> (u64, String) {
    match given {
        Some(n) => (n, "--n".to_string()),
        None => (largest_seen, "largest n seen".to_string()),
    }
}

/// Problem indices grouped by a key, groups in order of first appearance
/// (one pass, a hash map from key to group).
pub(crate) fn group_indices<'a>(keys: impl Iterator<Item = &'a str>) -> Vec<(String, Vec<usize>)> {
    let mut index: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    let mut groups: Vec<(String, Vec<usize>)> = Vec::new();
    for (i, k) in keys.enumerate() {
        let g = *index.entry(k).or_insert_with(|| {
            groups.push((k.to_string(), Vec::new()));
            groups.len() - 1
        });
        groups[g].1.push(i);
    }
    groups
}
