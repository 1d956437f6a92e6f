//! The one population path shared by report and compare: read the sources,
//! grade rows that need it, apply the junk rule, and fold every problem
//! into its summary with the policy's clusterer.

use crate::error::Result;
use crate::grading::{mark_junk_unextracted, Grading};
use crate::options::MessageSink;
use crate::read::{read_inputs, read_inputs_by_unit, Inputs, Source};
use rayon::prelude::*;
use rollstat_core::summary::{summarize_ref, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::TiePolicy;
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
    policy_tie: (DenominatorPolicy, TiePolicy),
    limit: rollstat_formats::DecompressLimit,
    sink: Option<&MessageSink>,
) -> Result<Summarized> {
    read_population_freeing(sources, read, from, grading, policy_tie, limit, sink, true)
}

/// [`read_population`] keeping every problem's rollouts (the report reads
/// its trials from them, then frees them with [`free_rollouts`]).
pub(crate) fn read_population_keeping_rollouts(
    sources: &[Source],
    read: &ReadOptions,
    from: Option<Format>,
    grading: &GradingPolicy,
    policy_tie: (DenominatorPolicy, TiePolicy),
    limit: rollstat_formats::DecompressLimit,
    sink: Option<&MessageSink>,
) -> Result<Summarized> {
    read_population_freeing(sources, read, from, grading, policy_tie, limit, sink, false)
}

/// [`read_population`]; `free`: free each problem's rollouts once summarized.
#[allow(clippy::too_many_arguments)]
fn read_population_freeing(
    sources: &[Source],
    read: &ReadOptions,
    from: Option<Format>,
    grading: &GradingPolicy,
    (policy, tie): (DenominatorPolicy, TiePolicy),
    limit: rollstat_formats::DecompressLimit,
    sink: Option<&MessageSink>,
    free: bool,
) -> Result<Summarized> {
    let g = Grading::new(grading);
    // Summary files (docs/summary.md) stand in for the rows they were made
    // from: the same problems, health counts and grading undecided.
    let (mut inputs, undecided_reading) = match crate::summary::load_summaries(sources)? {
        Some(parts) => crate::summary::into_inputs(parts, read, &grading.describe())?,
        None => (read_inputs(sources, read, from, limit, &g, sink)?, 0),
    };
    let problems = &mut inputs.collected.problems;
    let summaries = if free {
        summarize_problems(problems, &g, policy, tie)
    } else {
        summarize(problems, &g, (policy, tie), false)
    };
    Ok(Summarized {
        inputs,
        summaries,
        n_undecided: g.n_undecided() + undecided_reading,
    })
}

/// Frees every problem's rollouts (their summaries stand for them).
pub(crate) fn free_rollouts(problems: &mut [CollectedProblem]) {
    problems.par_iter_mut().for_each(|p| {
        if let ProblemData::Rollouts(t) = &mut p.data {
            **t = Default::default();
        }
    });
}

/// Reads `sources` as [`read_population`] does, keeping every problem's
/// rollouts; `by_unit`: each loaded input (file, buffer, rows) is its own
/// population, named by its path (else one population, named "").
#[allow(clippy::too_many_arguments)]
pub(crate) fn read_populations_keeping(
    sources: &[Source],
    read: &ReadOptions,
    from: Option<Format>,
    grading: &GradingPolicy,
    policy_tie: (DenominatorPolicy, TiePolicy),
    limit: rollstat_formats::DecompressLimit,
    sink: Option<&MessageSink>,
    by_unit: bool,
) -> Result<Vec<(String, Summarized)>> {
    let g = Grading::new(grading);
    let units = if by_unit {
        read_inputs_by_unit(sources, read, from, limit, &g, sink)?
    } else {
        vec![(
            String::new(),
            read_inputs(sources, read, from, limit, &g, sink)?,
        )]
    };
    let mut out: Vec<(String, Summarized)> = units
        .into_iter()
        .map(|(name, mut inputs)| {
            let summaries = summarize(&mut inputs.collected.problems, &g, policy_tie, false);
            (
                name,
                Summarized {
                    inputs,
                    summaries,
                    n_undecided: 0,
                },
            )
        })
        .collect();
    // The grader counts over every unit: the count goes with the first.
    if let Some((_, first)) = out.first_mut() {
        first.n_undecided = g.n_undecided();
    }
    Ok(out)
}

/// Puts problems in their canonical order — by system, subset and problem
/// id, compared as text — so that everything downstream (the resampled
/// problems of every interval, sums over problems, groups and per-problem
/// lists) is a function of the data, not of row order, problem order or
/// sharding (docs/spec.md §5).
pub(crate) fn canonical_order(problems: &mut Vec<CollectedProblem>) {
    rollstat_io::sort_problems(problems);
}

/// Applies the junk rule and summarizes each problem, freeing its
/// rollouts as soon as its summary is made (so the metric columns never
/// coexist with them). Only the `first` tie policy keeps each rollout's
/// cluster (maj@k follows rollout order there); the others keep O(clusters).
pub(crate) fn summarize_problems(
    problems: &mut [CollectedProblem],
    clusterer: &Grading<'_>,
    policy: DenominatorPolicy,
    tie: TiePolicy,
) -> Vec<ProblemSummary> {
    summarize(problems, clusterer, (policy, tie), true)
}

/// [`summarize_problems`]; `free` says whether each problem's rollouts are
/// freed once summarized (a gate keeps them to list the flipped problems'
/// answers).
fn summarize(
    problems: &mut [CollectedProblem],
    clusterer: &Grading<'_>,
    (policy, tie): (DenominatorPolicy, TiePolicy),
    free: bool,
) -> Vec<ProblemSummary> {
    mark_junk_unextracted(problems);
    problems
        .par_iter_mut()
        .map(|p| {
            let mut summary = summarize_ref(&p.data, policy, clusterer);
            if tie != TiePolicy::First {
                summary.vote_profile = summary.vote_profile.map(|v| Box::new(v.without_order()));
            }
            if let (true, ProblemData::Rollouts(t)) = (free, &mut p.data) {
                **t = Default::default();
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

#[cfg(test)]
mod tests {
    use super::*;
    use rollstat_io::{LabelInterner, Labels};

    /// A problem with its own copy of its labels, or a shared one.
    fn problem(
        system: Option<&str>,
        subset: Option<&str>,
        id: &str,
        shared: Option<&mut LabelInterner>,
    ) -> CollectedProblem {
        let labels = Labels {
            system: system.map(str::to_string),
            subset: subset.map(str::to_string),
            ..Labels::default()
        };
        CollectedProblem {
            problem: id.to_string(),
            labels: match shared {
                Some(interner) => interner.get(labels),
                None => (labels != Labels::default()).then(|| std::sync::Arc::new(labels)),
            },
            origin: rollstat_io::Origin::new(0, 1),
            numbered_by_arrival: false,
            data: ProblemData::Counts { n: 1, c: 0 },
        }
    }

    /// The keyed sort puts problems in the order of a plain sort by
    /// (system, subset, id) — ids sharing their first 8 bytes, ids that
    /// are prefixes of others or hold zero bytes, systems and subsets
    /// absent and present — whatever order they come in.
    #[test]
    fn canonical_order_is_the_order_of_system_subset_and_id() {
        let systems = [None, Some(""), Some("m"), Some("m/r")];
        let subsets = [None, Some("a"), Some("b")];
        let ids = [
            "0",
            "1",
            "10",
            "9",
            "abcdefgh",
            "abcdefg",
            "abcdefgh\0",
            "abcdefghi",
            "abcdefgi",
            "abcdefg\0z",
            "é",
            "\0",
            "zz",
        ];
        let mut problems = Vec::new();
        let mut interner = LabelInterner::default();
        for (i, id) in ids.iter().enumerate() {
            for (j, sys) in systems.iter().enumerate() {
                // Not every (system, subset) pair for every id, in a mixed
                // order; labels shared for some ids, copied for others.
                let sub = subsets[(i + j) % subsets.len()];
                let shared = (i % 2 == 0).then_some(&mut interner);
                problems.push(problem(*sys, sub, id, shared));
            }
        }
        // A fixed shuffle (a multiplicative step through the indices).
        let len = problems.len();
        let mut shuffled: Vec<CollectedProblem> = (0..len)
            .map(|i| problems[(i * 37 + 11) % len].clone())
            .collect();
        let key = |p: &CollectedProblem| {
            let own = |s: Option<&str>| s.map(str::to_string);
            (own(p.system()), own(p.subset()), p.problem.clone())
        };
        let mut want: Vec<_> = shuffled.iter().map(key).collect();
        want.sort();
        canonical_order(&mut shuffled);
        let got: Vec<_> = shuffled.iter().map(key).collect();
        assert_eq!(got, want);
    }
}
