//! A gate's inputs: the declared benchmarks' sources, or both sides'
//! sources split into benchmarks by subset (or file); read through
//! compare's reading into one [`SideData`] per benchmark and side.

use super::bench::BenchInput;
use super::plan::{expand, GatePlan, Paths};
use crate::compare::{self, SideData};
use crate::error::{Error, Result};
use crate::options::CompareOptions;
use crate::read::Source;
use rollstat_io::CollectedProblem;
use std::path::Path;

/// One declared benchmark's sources.
pub struct BenchmarkSources {
    /// The benchmark's name, as in the plan.
    pub name: String,
    /// A's sources.
    pub baseline: Vec<Source>,
    /// B's sources.
    pub candidate: Vec<Source>,
}

/// The suite's sources.
pub enum SuiteSources {
    /// One entry per declared benchmark (the plan's order).
    Declared(Vec<BenchmarkSources>),
    /// Both sides' sources, split into benchmarks by each problem's subset
    /// (or, without one, the file it came from).
    Discovered {
        /// A's sources.
        baseline: Vec<Source>,
        /// B's sources.
        candidate: Vec<Source>,
    },
}

fn paths(base: &Path, p: &Paths) -> Result<Vec<Source>> {
    let mut out = Vec::new();
    for pattern in &p.0 {
        for path in expand(base, pattern)? {
            if !path.exists() {
                return Err(Error::input(format!(
                    "{}: no such file or directory",
                    path.display()
                )));
            }
            out.push(Source::Path(path));
        }
    }
    Ok(out)
}

/// The plan's paths (files, directories, globs; relative ones against
/// `base`, the plan's directory) as sources.
pub fn sources_from_paths(plan: &GatePlan, base: &Path) -> Result<SuiteSources> {
    if let (Some(a), Some(b)) = (&plan.baseline, &plan.candidate) {
        return Ok(SuiteSources::Discovered {
            baseline: paths(base, a)?,
            candidate: paths(base, b)?,
        });
    }
    let named = |b: &super::BenchmarkPlan, which: &Paths| {
        paths(base, which).map_err(|e| Error::input(format!("benchmark '{}': {e}", b.name)))
    };
    plan.benchmarks
        .iter()
        .map(|b| {
            Ok(BenchmarkSources {
                name: b.name.clone(),
                baseline: named(b, &b.baseline)?,
                candidate: named(b, &b.candidate)?,
            })
        })
        .collect::<Result<Vec<_>>>()
        .map(SuiteSources::Declared)
}

/// Reads one side: every source into one population of one system.
fn read_side(sources: &[Source], label: &str, o: &CompareOptions) -> Result<SideData> {
    let ro = compare::read_options(o, None);
    let s = compare::read(sources, &ro, o).map_err(|e| match e {
        Error::InvalidOption { .. } => e,
        other => Error::input(format!("reading {label}: {other}")),
    })?;
    let c = s.inputs.collected;
    if c.systems.len() > 1 {
        return Err(Error::input(format!(
            "{label} holds {} systems ({}); give each side one system",
            c.systems.len(),
            c.systems.join(", ")
        )));
    }
    Ok(SideData {
        name: label.to_string(),
        inputs: c.inputs,
        problems: c.problems,
        origin_texts: std::sync::Arc::new(c.origin_texts),
        summaries: s.summaries,
        n_bad_lines: c.bad_lines.len(),
        n_undecided: s.n_undecided,
    })
}

/// The benchmarks to compute, in the plan's order (declared) or in order
/// of first appearance, A's then B's (discovered).
pub(crate) fn read_benchmarks(
    plan: &GatePlan,
    sources: &SuiteSources,
    o: &CompareOptions,
) -> Result<Vec<BenchInput>> {
    match sources {
        SuiteSources::Declared(list) => list
            .iter()
            .map(|b| {
                let decl = plan.benchmarks.iter().find(|d| d.name == b.name);
                let side = |srcs: &[Source], label: &str| -> Result<Option<SideData>> {
                    if srcs.is_empty() {
                        return Ok(None);
                    }
                    read_side(srcs, &format!("{label} of benchmark '{}'", b.name), o).map(Some)
                };
                Ok(BenchInput {
                    tier: decl.and_then(|d| d.tier).unwrap_or(plan.tier),
                    margin: plan.margin_of(decl),
                    a: side(&b.baseline, "A")?,
                    b: side(&b.candidate, "B")?,
                    name: b.name.clone(),
                })
            })
            .collect(),
        SuiteSources::Discovered {
            baseline,
            candidate,
        } => {
            let a = split(read_side(baseline, "A (baseline)", o)?);
            let mut b = split(read_side(candidate, "B (candidate)", o)?);
            if let ([(name_a, _)], [(name_b, _)]) = (a.as_slice(), b.as_mut_slice()) {
                // One benchmark a side (two files, say): the same benchmark,
                // named as A's.
                *name_b = name_a.clone();
            }
            Ok(pair_up(plan, a, b))
        }
    }
}

fn pair_up(
    plan: &GatePlan,
    a: Vec<(String, SideData)>,
    b: Vec<(String, SideData)>,
) -> Vec<BenchInput> {
    let mut b: Vec<(String, Option<SideData>)> = b.into_iter().map(|(n, s)| (n, Some(s))).collect();
    let mut out: Vec<BenchInput> = a
        .into_iter()
        .map(|(name, sa)| {
            let sb = b
                .iter_mut()
                .find(|(n, _)| *n == name)
                .and_then(|(_, s)| s.take());
            BenchInput {
                tier: plan.tier,
                margin: plan.margin_of(None),
                a: Some(sa),
                b: sb,
                name,
            }
        })
        .collect();
    out.extend(b.into_iter().filter_map(|(name, sb)| {
        sb.map(|sb| BenchInput {
            tier: plan.tier,
            margin: plan.margin_of(None),
            a: None,
            b: Some(sb),
            name,
        })
    }));
    out
}

/// The benchmark a problem belongs to: its subset, else its file's name
/// without directories and extensions.
fn benchmark_of(side: &SideData, p: &CollectedProblem) -> String {
    if let Some(s) = p.subset() {
        return s.to_string();
    }
    let path = match p.origin.input_index() {
        Some(i) => side.inputs.get(i).map(|x| x.path.clone()),
        None if side.inputs.len() == 1 => Some(side.inputs[0].path.clone()),
        None => {
            let text = side.origin(p);
            side.inputs
                .iter()
                .filter(|x| text.starts_with(&x.path))
                .max_by_key(|x| x.path.len())
                .map(|x| x.path.clone())
        }
    };
    path.map_or_else(|| "(unnamed)".to_string(), |p| file_stem(&p))
}

/// `runs/a/aime.jsonl.gz` → `aime`.
fn file_stem(path: &str) -> String {
    let name = Path::new(path)
        .file_name()
        .map_or(path.to_string(), |n| n.to_string_lossy().to_string());
    let mut stem = name.as_str();
    for ext in [".gz", ".zst", ".jsonl", ".json", ".csv", ".parquet", ".tsv"] {
        stem = stem.strip_suffix(ext).unwrap_or(stem);
    }
    stem.to_string()
}

/// One side split into benchmarks, in order of first appearance.
fn split(side: SideData) -> Vec<(String, SideData)> {
    let keys: Vec<String> = side
        .problems
        .iter()
        .map(|p| benchmark_of(&side, p))
        .collect();
    let mut order: Vec<String> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for k in &keys {
        if !index.contains_key(k) {
            index.insert(k.clone(), order.len());
            order.push(k.clone());
        }
    }
    let mut parts: Vec<SideData> = order
        .iter()
        .map(|_| SideData {
            name: side.name.clone(),
            inputs: side.inputs.clone(),
            problems: Vec::new(),
            origin_texts: side.origin_texts.clone(),
            summaries: Vec::new(),
            n_bad_lines: 0,
            n_undecided: 0,
        })
        .collect();
    if let Some(first) = parts.first_mut() {
        // Bad rows and undecided gradings belong to no benchmark: counted on the first.
        first.n_bad_lines = side.n_bad_lines;
        first.n_undecided = side.n_undecided;
    }
    for ((p, s), k) in side.problems.into_iter().zip(side.summaries).zip(&keys) {
        let part = &mut parts[index[k]];
        part.problems.push(p);
        part.summaries.push(s);
    }
    order.into_iter().zip(parts).collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn file_stems_drop_directories_and_extensions() {
        assert_eq!(super::file_stem("runs/a/aime.jsonl.gz"), "aime");
        assert_eq!(super::file_stem("gsm8k.csv"), "gsm8k");
    }
}
