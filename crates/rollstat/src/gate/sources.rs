//! A gate's inputs: the declared benchmarks' sources, or both sides'
//! sources split into benchmarks by subset (or file); read through
//! compare's reading into one [`SideData`] per benchmark and side.

use super::bench::BenchInput;
use super::plan::{expand, GatePlan, Paths};
use crate::compare::{self, SideData};
use crate::error::{Error, Result};
use crate::options::CompareOptions;
use crate::population::read_populations_keeping;
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

impl SuiteSources {
    /// Every source of both sides.
    pub(crate) fn all(&self) -> Vec<&Source> {
        match self {
            SuiteSources::Declared(b) => b
                .iter()
                .flat_map(|b| b.baseline.iter().chain(&b.candidate))
                .collect(),
            SuiteSources::Discovered {
                baseline,
                candidate,
            } => baseline.iter().chain(candidate).collect(),
        }
    }
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

/// `A (baseline)` → (`A`, `baseline`): compare's messages say "A (name)",
/// and a gate side's name is its role.
fn side_and_role(label: &str) -> (&str, &str) {
    match label.split_once(" (") {
        Some((side, r)) => (side, r.trim_end_matches(')')),
        None => (label, label),
    }
}

/// Reads one side, keeping rollouts (the flipped problems list their
/// answers): every source into one population, or (`by_unit`) each loaded
/// input into its own, named by its path. One system a side.
fn read_side(
    sources: &[Source],
    label: &str,
    o: &CompareOptions,
    by_unit: bool,
) -> Result<Vec<(String, SideData)>> {
    let (side, role) = side_and_role(label);
    let ro = crate::read::side_options(sources, &compare::read_options(o, None));
    let units = read_populations_keeping(
        sources,
        &ro,
        o.source_format,
        &o.grading,
        (o.metrics.denominator, o.metrics.tie_policy),
        o.metrics.decompress_limit,
        o.messages.as_ref(),
        by_unit,
    )
    .map_err(|e| match e {
        Error::InvalidOption { .. } => e,
        other => Error::Side {
            side: side.to_string(),
            name: role.to_string(),
            error: Box::new(other),
        },
    })?;
    let mut systems: Vec<String> = Vec::new();
    let mut out = Vec::new();
    for (name, s) in units {
        let c = s.inputs.collected;
        for sys in c.systems {
            if !systems.contains(&sys) {
                systems.push(sys);
            }
        }
        out.push((
            name,
            SideData {
                name: role.to_string(),
                inputs: c.inputs,
                problems: c.problems,
                origin_texts: std::sync::Arc::new(c.origin_texts),
                summaries: s.summaries,
                n_bad_lines: c.bad_lines.len(),
                n_undecided: s.n_undecided,
            },
        ));
    }
    if systems.len() > 1 {
        return Err(Error::input(format!(
            "{label} holds {} systems ({}); give each side one system",
            systems.len(),
            systems.join(", ")
        )));
    }
    Ok(out)
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
                    let mut units = read_side(srcs, label, o, false)
                        .map_err(|e| Error::input(format!("benchmark '{}': {e}", b.name)))?;
                    Ok(units.pop().map(|(_, side)| side))
                };
                Ok(BenchInput {
                    tier: decl.and_then(|d| d.tier).unwrap_or(plan.tier),
                    margin: plan.margin_of(decl),
                    a: side(&b.baseline, "A (baseline)")?,
                    b: side(&b.candidate, "B (candidate)")?,
                    name: b.name.clone(),
                })
            })
            .collect(),
        SuiteSources::Discovered {
            baseline,
            candidate,
        } => {
            let a = split(read_side(baseline, "A (baseline)", o, true)?);
            let mut b = split(read_side(candidate, "B (candidate)", o, true)?);
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

/// The benchmark of a problem of input `unit`: its subset, else the
/// input's file name without directories and extensions.
fn benchmark_of(unit: &str, p: &CollectedProblem) -> String {
    match p.subset() {
        Some(s) => s.to_string(),
        None => crate::read::file_stem(unit),
    }
}

/// One side's inputs split into benchmarks, in order of first appearance;
/// the parts of one benchmark from several inputs are joined (a problem in
/// two of them is then reported as appearing twice).
fn split(units: Vec<(String, SideData)>) -> Vec<(String, SideData)> {
    let mut out: Vec<(String, SideData)> = Vec::new();
    let mut bad_lines = 0;
    let mut undecided = 0;
    for (unit, side) in units {
        bad_lines += side.n_bad_lines;
        undecided += side.n_undecided;
        let keys: Vec<String> = side
            .problems
            .iter()
            .map(|p| benchmark_of(&unit, p))
            .collect();
        for ((p, s), k) in side.problems.into_iter().zip(side.summaries).zip(keys) {
            let i = match out.iter().position(|(name, _)| *name == k) {
                Some(i) => i,
                None => {
                    out.push((k, empty_like(&side.name, &side.inputs, &side.origin_texts)));
                    out.len() - 1
                }
            };
            let part = &mut out[i].1;
            if !part.inputs.iter().any(|x| side.inputs.contains(x)) {
                part.inputs.extend(side.inputs.iter().cloned());
            }
            part.problems.push(p);
            part.summaries.push(s);
        }
    }
    // Bad rows and undecided gradings belong to no benchmark: counted on the first.
    if let Some((_, first)) = out.first_mut() {
        first.n_bad_lines = bad_lines;
        first.n_undecided = undecided;
    }
    out
}

fn empty_like(
    name: &str,
    inputs: &[rollstat_core::input::InputInfo],
    texts: &std::sync::Arc<Vec<String>>,
) -> SideData {
    SideData {
        name: name.to_string(),
        inputs: inputs.to_vec(),
        problems: Vec::new(),
        origin_texts: texts.clone(),
        summaries: Vec::new(),
        n_bad_lines: 0,
        n_undecided: 0,
    }
}
