//! The one population path shared by report and compare: read the sources,
//! grade rows that need it, apply the junk rule, and fold every problem
//! into its summary with the policy's clusterer.

use crate::error::Result;
use crate::grading::{mark_junk_unextracted, Grading};
use crate::options::MessageSink;
use crate::read::{read_inputs, Inputs, Source};
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
    (policy, tie): (DenominatorPolicy, TiePolicy),
    limit: rollstat_formats::DecompressLimit,
    sink: Option<&MessageSink>,
) -> Result<Summarized> {
    let g = Grading::new(grading);
    // Summary files (docs/summary.md) stand in for the rows they were made
    // from: the same problems, health counts and grading undecided.
    let (mut inputs, undecided_reading) = match crate::summary::load_summaries(sources)? {
        Some(parts) => crate::summary::into_inputs(parts, read, &grading.describe())?,
        None => (read_inputs(sources, read, from, limit, &g, sink)?, 0),
    };
    let summaries = summarize_problems(&mut inputs.collected.problems, &g, policy, tie);
    Ok(Summarized {
        inputs,
        summaries,
        n_undecided: g.n_undecided() + undecided_reading,
    })
}

/// Puts problems in their canonical order — by system, subset and problem
/// id, compared as text — so that everything downstream (the resampled
/// problems of every interval, sums over problems, groups and per-problem
/// lists) is a function of the data, not of row order, problem order or
/// sharding (docs/spec.md §5).
pub(crate) fn canonical_order(problems: &mut [CollectedProblem]) {
    // Unstable is exact here: no two problems share system, subset and id.
    let Ok(len) = u32::try_from(problems.len()) else {
        problems.sort_unstable_by(|a, b| {
            (&a.system, &a.subset, &a.problem).cmp(&(&b.system, &b.subset, &b.problem))
        });
        return;
    };
    // Sorting the problems themselves moves 176 bytes at every step and
    // compares strings behind pointers. Sorted instead: per problem the
    // rank of its (system, subset), the first 8 bytes of its id (zero
    // padded: never larger than the id's order allows) and its index; only
    // equal prefixes compare the ids. Then each problem moves once.
    let ranks = pair_ranks(problems);
    let mut keys: Vec<(u32, u64, u32)> = (0..len)
        .map(|i| {
            (
                ranks[i as usize],
                id_prefix(&problems[i as usize].problem),
                i,
            )
        })
        .collect();
    drop(ranks);
    keys.sort_unstable_by(|a, b| {
        (a.0, a.1).cmp(&(b.0, b.1)).then_with(|| {
            problems[a.2 as usize]
                .problem
                .cmp(&problems[b.2 as usize].problem)
        })
    });
    let order: Vec<usize> = keys.into_iter().map(|(_, _, i)| i as usize).collect();
    rollstat_io::permute(problems, &order);
}

/// Each problem's rank among the distinct (system, subset) pairs, in their
/// order.
fn pair_ranks<'a>(problems: &'a [CollectedProblem]) -> Vec<u32> {
    type Pair<'a> = (Option<&'a str>, Option<&'a str>);
    let pair = |p: &'a CollectedProblem| -> Pair<'a> { (p.system.as_deref(), p.subset.as_deref()) };
    let mut index: std::collections::HashMap<Pair<'a>, u32> = std::collections::HashMap::new();
    let mut last: Option<(Pair<'a>, u32)> = None;
    let mut ids: Vec<u32> = Vec::with_capacity(problems.len());
    for p in problems {
        let key = pair(p);
        let id = match last {
            // Problems of one pair usually come together.
            Some((k, id)) if k == key => id,
            _ => {
                let next = index.len() as u32;
                *index.entry(key).or_insert(next)
            }
        };
        last = Some((key, id));
        ids.push(id);
    }
    let mut distinct: Vec<(Pair<'a>, u32)> = index.into_iter().collect();
    distinct.sort_unstable();
    let mut rank = vec![0u32; distinct.len()];
    for (r, (_, id)) in distinct.iter().enumerate() {
        rank[*id as usize] = r as u32;
    }
    for id in &mut ids {
        *id = rank[*id as usize];
    }
    ids
}

/// The first 8 bytes of an id, zero padded, as a big-endian number: ids in
/// byte order have prefixes in the same order or equal ones.
fn id_prefix(id: &str) -> u64 {
    let mut b = [0u8; 8];
    let n = id.len().min(8);
    b[..n].copy_from_slice(&id.as_bytes()[..n]);
    u64::from_be_bytes(b)
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
    mark_junk_unextracted(problems);
    problems
        .par_iter_mut()
        .map(|p| {
            let mut summary = summarize_ref(&p.data, policy, clusterer);
            if tie != TiePolicy::First {
                summary.vote_profile = summary.vote_profile.map(|v| Box::new(v.without_order()));
            }
            if let ProblemData::Rollouts(t) = &mut p.data {
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

    fn problem(system: Option<&str>, subset: Option<&str>, id: &str) -> CollectedProblem {
        CollectedProblem {
            problem: id.to_string(),
            system: system.map(str::to_string),
            subset: subset.map(str::to_string),
            by_value: None,
            cluster_value: None,
            origin: String::new(),
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
        for (i, id) in ids.iter().enumerate() {
            for (j, sys) in systems.iter().enumerate() {
                // Not every (system, subset) pair for every id, in a mixed order.
                let sub = subsets[(i + j) % subsets.len()];
                problems.push(problem(*sys, sub, id));
            }
        }
        // A fixed shuffle (a multiplicative step through the indices).
        let len = problems.len();
        let mut shuffled: Vec<CollectedProblem> = (0..len)
            .map(|i| problems[(i * 37 + 11) % len].clone())
            .collect();
        let key = |p: &CollectedProblem| (p.system.clone(), p.subset.clone(), p.problem.clone());
        let mut want: Vec<_> = shuffled.iter().map(key).collect();
        want.sort();
        canonical_order(&mut shuffled);
        let got: Vec<_> = shuffled.iter().map(key).collect();
        assert_eq!(got, want);
    }
}
