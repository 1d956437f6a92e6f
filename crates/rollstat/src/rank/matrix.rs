//! Many systems' per-problem values on the problems they share: read the
//! sources (systems told apart by a field, or one per input), summarize
//! each problem, evaluate the primary metric, keep the shared problems.

use crate::compare::read_options;
use crate::error::{Error, Result};
use crate::options::CompareOptions;
use crate::population::read_populations_keeping;
use crate::read::Source;
use rollstat_core::aggregate::{ColumnBuilder, Metric};
use rollstat_core::summary::ProblemSummary;
use rollstat_io::CollectedProblem;
use std::collections::{BTreeMap, HashMap};

/// A problem's identity across systems: (subset, id).
pub(crate) type ProblemKey = (Option<String>, String);

/// One system's problems: its name and, per problem, the primary metric's
/// value (NaN where it has none), its rollouts and its cluster value.
pub(crate) struct SystemValues {
    pub name: String,
    /// The input it was read from (its path), or "" when read by a field.
    pub unit: String,
    pub values: HashMap<ProblemKey, f64>,
    pub rollouts: u64,
    pub clusters: HashMap<ProblemKey, String>,
    pub inputs: Vec<rollstat_core::input::InputInfo>,
}

/// The systems × shared problems matrix.
pub(crate) struct Matrix {
    pub systems: Vec<String>,
    /// The shared problems, in their canonical order (subset, id).
    pub problems: Vec<ProblemKey>,
    /// systems × problems.
    pub scores: Vec<Vec<f64>>,
    /// Each problem's cluster id, when clustered.
    pub clusters: Option<Vec<u64>>,
    /// Per system: problems it has a value on that are not shared.
    pub dropped: Vec<u64>,
    /// Per system: largest rollouts per problem.
    pub rollouts: Vec<u64>,
    /// Per system: its inputs.
    pub inputs: Vec<Vec<rollstat_core::input::InputInfo>>,
}

fn key_of(p: &CollectedProblem) -> ProblemKey {
    (p.subset().map(str::to_string), p.problem.clone())
}

/// The metric's per-problem values of one population.
fn values_of(
    problems: &[&CollectedProblem],
    summaries: &[ProblemSummary],
    metric: &Metric,
    o: &CompareOptions,
) -> (HashMap<ProblemKey, f64>, HashMap<ProblemKey, String>) {
    let col = ColumnBuilder::new(summaries, o.metrics.tie_policy)
        .with_metrics(std::slice::from_ref(metric))
        .build(metric.clone());
    let mut values = HashMap::new();
    let mut clusters = HashMap::new();
    for (i, p) in problems.iter().enumerate() {
        values.insert(key_of(p), col.values[i]);
        if let Some(c) = p.cluster_value() {
            clusters.insert(key_of(p), c.to_string());
        }
    }
    (values, clusters)
}

/// Reads the systems: by `field` within the sources, or one per loaded
/// input (named by its file name without extensions).
pub(crate) fn read_systems(
    sources: &[Source],
    field: Option<&str>,
    metric: &Metric,
    o: &CompareOptions,
) -> Result<Vec<SystemValues>> {
    let ro = read_options(o, field.map(str::to_string));
    let units = read_populations_keeping(
        sources,
        &ro,
        o.source_format,
        &o.grading,
        (o.metrics.denominator, o.metrics.tie_policy),
        o.metrics.decompress_limit,
        o.messages.as_ref(),
        field.is_none(),
    )?;
    let mut out: Vec<SystemValues> = Vec::new();
    for (unit, s) in units {
        let c = &s.inputs.collected;
        let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
        for (i, p) in c.problems.iter().enumerate() {
            let name = match field {
                Some(_) => p.by_value().unwrap_or("(none)").to_string(),
                None => crate::read::file_stem(&unit),
            };
            groups.entry(name).or_default().push(i);
        }
        for (name, idx) in groups {
            let problems: Vec<&CollectedProblem> = idx.iter().map(|&i| &c.problems[i]).collect();
            let sums: Vec<ProblemSummary> = idx.iter().map(|&i| s.summaries[i].clone()).collect();
            let (values, clusters) = values_of(&problems, &sums, metric, o);
            if field.is_some() && out.iter().any(|x| x.name == name) {
                return Err(Error::SystemTwice { name });
            }
            out.push(SystemValues {
                unit: unit.clone(),
                name,
                rollouts: sums.iter().map(|p| p.n_arrived).max().unwrap_or(0),
                values,
                clusters,
                inputs: c.inputs.clone(),
            });
        }
    }
    // Inputs with one file name in different directories: named by their
    // paths.
    for i in 0..out.len() {
        if field.is_none() && out.iter().filter(|x| x.name == out[i].name).count() > 1 {
            let same = out[i].name.clone();
            for x in out.iter_mut().filter(|x| x.name == same) {
                x.name = x.unit.clone();
            }
        }
    }
    Ok(out)
}

/// The shared problems (a value on every system) and each system's
/// dropped count; `strict` refuses any dropped problem.
pub(crate) fn matrix(systems: Vec<SystemValues>, clustered: bool, strict: bool) -> Result<Matrix> {
    if systems.len() < 2 {
        return Err(Error::TooFewSystems {
            found: systems.iter().map(|s| s.name.clone()).collect(),
        });
    }
    let defined = |s: &SystemValues, k: &ProblemKey| s.values.get(k).is_some_and(|v| !v.is_nan());
    let mut problems: Vec<ProblemKey> = systems[0]
        .values
        .keys()
        .filter(|k| systems.iter().all(|s| defined(s, k)))
        .cloned()
        .collect();
    problems.sort();
    let dropped: Vec<u64> = systems
        .iter()
        .map(|s| {
            s.values.iter().filter(|(_, v)| !v.is_nan()).count() as u64 - problems.len() as u64
        })
        .collect();
    if problems.is_empty() {
        return Err(Error::NoSharedProblems);
    }
    if strict && dropped.iter().any(|&d| d > 0) {
        return Err(Error::UnsharedProblems {
            systems: systems
                .iter()
                .zip(&dropped)
                .filter(|(_, d)| **d > 0)
                .map(|(s, d)| (s.name.clone(), *d))
                .collect(),
        });
    }
    let scores = systems
        .iter()
        .map(|s| problems.iter().map(|k| s.values[k]).collect())
        .collect();
    let clusters = clustered.then(|| cluster_ids(&systems[0], &problems));
    Ok(Matrix {
        systems: systems.iter().map(|s| s.name.clone()).collect(),
        dropped,
        rollouts: systems.iter().map(|s| s.rollouts).collect(),
        inputs: systems.iter().map(|s| s.inputs.clone()).collect(),
        problems,
        scores,
        clusters,
    })
}

/// The first system's cluster value of each problem, numbered in order of
/// first appearance (a problem without one is its own cluster).
fn cluster_ids(first: &SystemValues, problems: &[ProblemKey]) -> Vec<u64> {
    let mut ids: HashMap<String, u64> = HashMap::new();
    problems
        .iter()
        .map(|k| {
            let v = first
                .clusters
                .get(k)
                .cloned()
                .unwrap_or_else(|| format!("\u{0}{}/{}", k.0.as_deref().unwrap_or(""), k.1));
            let next = ids.len() as u64;
            *ids.entry(v).or_insert(next)
        })
        .collect()
}

/// Reads a suite whose benchmarks are the inputs: each source is one
/// benchmark (its systems told apart by `field`, or one per file within
/// it), problems keyed by (benchmark, subset/id), systems joined across
/// benchmarks by name.
pub(crate) fn read_suite_inputs(
    sources: &[Source],
    field: Option<&str>,
    metric: &Metric,
    o: &CompareOptions,
) -> Result<Vec<SystemValues>> {
    if sources.len() < 2 {
        return Err(Error::TooFewBenchmarks {
            field: "inputs".into(),
            found: sources.len(),
        });
    }
    let names = benchmark_names(sources);
    let mut out: Vec<SystemValues> = Vec::new();
    for (source, bench) in sources.iter().zip(&names) {
        for s in read_systems(std::slice::from_ref(source), field, metric, o)? {
            let rekey = |k: ProblemKey| -> ProblemKey {
                let id = match k.0 {
                    Some(sub) => format!("{sub}/{}", k.1),
                    None => k.1,
                };
                (Some(bench.clone()), id)
            };
            let values: HashMap<ProblemKey, f64> =
                s.values.into_iter().map(|(k, v)| (rekey(k), v)).collect();
            let clusters: HashMap<ProblemKey, String> =
                s.clusters.into_iter().map(|(k, v)| (rekey(k), v)).collect();
            match out.iter_mut().find(|x| x.name == s.name) {
                Some(x) => {
                    x.values.extend(values);
                    x.clusters.extend(clusters);
                    x.rollouts = x.rollouts.max(s.rollouts);
                    x.inputs.extend(s.inputs);
                }
                None => out.push(SystemValues {
                    values,
                    clusters,
                    ..s
                }),
            }
        }
    }
    Ok(out)
}

/// Each source's benchmark name: its file or directory name without
/// extensions, or the name as given when two would be the same.
fn benchmark_names(sources: &[Source]) -> Vec<String> {
    let stems: Vec<String> = sources
        .iter()
        .map(|s| crate::read::file_stem(s.name().trim_end_matches('/')))
        .collect();
    stems
        .iter()
        .zip(sources)
        .map(|(stem, s)| {
            if stems.iter().filter(|x| *x == stem).count() > 1 {
                s.name()
            } else {
                stem.clone()
            }
        })
        .collect()
}
