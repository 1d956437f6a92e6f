//! read → canonical rollouts → per-problem summaries → metric columns →
//! [`Report`]. Everything after reading is pure; this file only wires the
//! library crates together and words the warnings.

use crate::args::ReportArgs;
use crate::grading::Grading;
use crate::inputs::{compare_aggregates, Inputs};
use crate::uncertainty::{cluster_ids, Uncertainty};
use anyhow::{bail, Result};
use rayon::prelude::*;
use rollstat_core::aggregate::{default_ks, metric_set, ColumnBuilder, Metric, MetricColumn};
use rollstat_core::report::{
    Config, GroupReport, Health, MetricBlock, Ordered, PerProblem, Report, REPORT_SCHEMA,
};
use rollstat_core::summary::{summarize_ref, DenominatorPolicy, ProblemData, ProblemSummary};
use rollstat_core::vote::{AnswerClusterer, TiePolicy};
use rollstat_io::{Collected, Dedupe, ReadOptions};

/// Validated report settings.
pub struct Settings {
    pub ks: Option<Vec<u64>>,
    pub taus: Vec<(f64, String)>,
    pub n: Option<u64>,
    pub denominator: DenominatorPolicy,
    pub tie: TiePolicy,
    pub read: ReadOptions,
    pub per_problem: bool,
    pub uncertainty: Uncertainty,
    pub grading: Grading,
}

/// Bad input or usage: exit code 2.
#[derive(Debug)]
pub struct InputError(pub String);

impl std::fmt::Display for InputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}
impl std::error::Error for InputError {}

fn usage(msg: String) -> anyhow::Error {
    InputError(msg).into()
}

impl Settings {
    pub fn from_args(a: &ReportArgs) -> Result<Settings> {
        let taus = a
            .metrics
            .tau
            .iter()
            .map(|t| {
                let v: f64 = t
                    .trim()
                    .parse()
                    .map_err(|_| usage(format!("--tau: '{t}' is not a number")))?;
                if !(0.0..=1.0).contains(&v) {
                    return Err(usage(format!("--tau: {t} is outside [0, 1]")));
                }
                Ok((v, t.trim().to_string()))
            })
            .collect::<Result<Vec<_>>>()?;
        if let Some(ks) = &a.metrics.k {
            if ks.contains(&0) {
                return Err(usage("--k: k must be at least 1".into()));
            }
        }
        if a.metrics.n == Some(0) {
            return Err(usage(
                "--n: the requested rollouts must be at least 1".into(),
            ));
        }
        Ok(Settings {
            ks: a.metrics.k.clone(),
            taus,
            n: a.metrics.n,
            denominator: a
                .metrics
                .denominator
                .parse()
                .map_err(|e| usage(format!("--denominator: {e}")))?,
            tie: a
                .metrics
                .tie_policy
                .parse()
                .map_err(|e| usage(format!("--tie-policy: {e}")))?,
            read: ReadOptions {
                by: a.by.clone(),
                strict: a.metrics.strict,
                dedupe: a
                    .metrics
                    .dedupe
                    .as_deref()
                    .map(str::parse::<Dedupe>)
                    .transpose()
                    .map_err(|e| usage(format!("--dedupe: {e}")))?,
                cluster_by: a.uncertainty.cluster_by.clone(),
                bytes_read: None,
            },
            per_problem: a.per_problem,
            uncertainty: Uncertainty::from_args(&a.uncertainty)?,
            grading: Grading::from_args(&a.grading)?,
        })
    }
}

/// Reads canonical or native inputs (see `inputs.rs`) and returns the problems.
pub fn read_inputs(paths: &[String], opts: &ReadOptions) -> Result<Collected> {
    Ok(crate::inputs::read_inputs(paths, opts, None, &rollstat_io::ExactGrader)?.collected)
}

/// Builds the report from what was read.
pub fn build_report(inputs: Inputs, s: &Settings) -> Result<Report> {
    let Inputs {
        collected,
        aggregates,
        notes,
        scopes,
    } = inputs;
    let clusterer: &dyn AnswerClusterer = s.grading.clusterer();
    let mut collected = collected;
    s.grading.normalize(&mut collected.problems);
    let Collected {
        inputs,
        problems,
        bad_lines,
        n_duplicate_rollouts,
        systems,
        ..
    } = collected;
    let mut problems = problems;
    // Each problem's rollouts are needed only for its summary: free them as
    // soon as it is made, so the metric columns never coexist with them.
    let summaries: Vec<ProblemSummary> = problems
        .par_iter_mut()
        .map(|p| {
            let summary = summarize_ref(&p.data, s.denominator, clusterer);
            if let ProblemData::Rollouts(t) = &mut p.data {
                *t = Default::default();
            }
            summary
        })
        .collect();
    let max_n = summaries.iter().map(|p| p.n_arrived).max().unwrap_or(0);
    let (n_requested, n_source) = match s.n {
        Some(n) => (n, "--n".to_string()),
        None => (max_n, "largest n seen".to_string()),
    };
    if s.read.strict {
        if let Some((p, sm)) = problems
            .iter()
            .zip(&summaries)
            .find(|(_, sm)| sm.n_arrived < n_requested)
        {
            bail!(InputError(format!(
                "{}: problem '{}' has {} rollouts, {} requested (strict mode rejects short problems; drop --strict to report them as n_short)",
                p.origin, p.problem, sm.n_arrived, n_requested
            )));
        }
    }
    let ks = s.ks.clone().unwrap_or_else(|| default_ks(n_requested));
    let metrics = metric_set(&ks, &s.taus, n_requested);

    let clusters = s.read.cluster_by.as_ref().map(|_| {
        cluster_ids(
            &problems
                .iter()
                .map(|p| p.cluster_value.as_deref())
                .collect::<Vec<_>>(),
        )
    });
    let (health, block, ci_warnings) =
        population(&summaries, clusters.as_deref(), &metrics, n_requested, s);
    let mut health = health;
    health.n_bad_lines = bad_lines.len() as u64;
    health.n_duplicate_rollouts = n_duplicate_rollouts;
    health.warnings = warnings(&health, &block, &metrics, &summaries, n_requested);
    health.warnings.extend(ci_warnings);
    health.warnings.extend(notes);
    if systems.len() > 1
        && s.read.by.as_deref() != Some("model")
        && s.read.by.as_deref() != Some("run")
    {
        health.warnings.push(format!(
            "the input holds {} systems ({}); the metrics above pool them as separate problems — pass --by model",
            systems.len(),
            systems.join(", ")
        ));
    }

    let mut groups = Ordered::default();
    if s.read.by.is_some() {
        let mut names: Vec<String> = Vec::new();
        for p in &problems {
            let name = group_name(p.by_value.as_deref());
            if !names.contains(&name) {
                names.push(name);
            }
        }
        for name in names {
            let members: Vec<usize> = (0..problems.len())
                .filter(|&i| group_name(problems[i].by_value.as_deref()) == name)
                .collect();
            let subset: Vec<ProblemSummary> =
                members.iter().map(|&i| summaries[i].clone()).collect();
            let sub_clusters: Option<Vec<u64>> = clusters
                .as_ref()
                .map(|c| members.iter().map(|&i| c[i]).collect());
            let (mut gh, gb, gw) =
                population(&subset, sub_clusters.as_deref(), &metrics, n_requested, s);
            gh.warnings = warnings(&gh, &gb, &metrics, &subset, n_requested);
            gh.warnings.extend(gw);
            groups.insert(
                name,
                GroupReport {
                    health: gh,
                    block: gb,
                },
            );
        }
    }

    let per_problem = s.per_problem.then(|| {
        problems
            .iter()
            .zip(&summaries)
            .map(|(p, sm)| {
                let mut values = Ordered::default();
                for m in &metrics {
                    if let Ok(v) = m.value(sm, s.tie) {
                        values.insert(m.to_string(), v);
                    }
                }
                PerProblem {
                    problem: match &p.system {
                        Some(sys) => format!("{sys}:{}", p.problem),
                        None => p.problem.clone(),
                    },
                    group: p.by_value.clone(),
                    n: sm.n,
                    c: sm.c,
                    values,
                }
            })
            .collect()
    });

    let mut report = Report {
        schema: REPORT_SCHEMA,
        version: env!("CARGO_PKG_VERSION"),
        inputs,
        config: Config {
            k: ks,
            tau: s.taus.iter().map(|(t, _)| *t).collect(),
            n: n_requested,
            n_source,
            ci: s.uncertainty.config(),
            tie_policy: s.tie,
            denominator_policy: s.denominator,
            answer_clustering: s.grading.describe(),
            strict: s.read.strict,
            dedupe: s.read.dedupe.map(|d| format!("{d:?}").to_lowercase()),
            by: s.read.by.clone(),
        },
        health,
        block,
        groups,
        harness: Vec::new(),
        per_problem,
    };
    report.harness = compare_aggregates(&aggregates, &scopes, &report);
    Ok(report)
}

fn group_name(v: Option<&str>) -> String {
    v.map(str::to_string).unwrap_or_else(|| "(none)".into())
}

fn population(
    summaries: &[ProblemSummary],
    clusters: Option<&[u64]>,
    metrics: &[Metric],
    n_requested: u64,
    s: &Settings,
) -> (Health, MetricBlock, Vec<String>) {
    // One compact copy of every problem's (n, c) serves all count-based columns.
    let builder = ColumnBuilder::new(summaries, s.tie);
    let columns: Vec<MetricColumn> = metrics
        .par_iter()
        .map(|m| builder.build(m.clone()))
        .collect();
    let health = Health::from_summaries(summaries, n_requested, s.denominator);
    let mut block = MetricBlock::from_columns(&columns, n_requested, s.denominator);
    let ci_warnings = s
        .uncertainty
        .apply(&columns, summaries, clusters, &mut block);
    (health, block, ci_warnings)
}

fn pct(part: u64, whole: u64) -> String {
    if whole == 0 {
        return "0%".into();
    }
    format!("{:.1}%", 100.0 * part as f64 / whole as f64)
}

/// Findings in words, each saying what it does to the numbers.
fn warnings(
    h: &Health,
    block: &MetricBlock,
    metrics: &[Metric],
    summaries: &[ProblemSummary],
    n: u64,
) -> Vec<String> {
    let mut w = Vec::new();
    if h.n_short > 0 {
        let largest_k = metrics
            .iter()
            .filter_map(|m| match m {
                Metric::PassAtK(k) => Some(*k),
                _ => None,
            })
            .max()
            .unwrap_or(n);
        let used = block
            .metrics
            .get(&format!("pass@{largest_k}"))
            .map(|e| e.n_problems)
            .unwrap_or(0);
        w.push(format!(
            "{} problems had fewer than {} rollouts; pass@{} uses {} of {} problems (short problems are excluded where k exceeds their n, never scored 1 or 0)",
            h.n_short, n, largest_k, used, h.n_problems
        ));
    }
    if h.n_unextracted > 0 {
        w.push(format!(
            "{} of {} rollouts ({}) had no extracted answer; they count as wrong and never vote",
            h.n_unextracted,
            h.n_rollouts_total,
            pct(h.n_unextracted, h.n_rollouts_total)
        ));
    }
    if h.n_unextracted_marked_correct > 0 {
        w.push(format!(
            "{} rollouts were marked correct but had no extracted answer (answer: null); they were counted as wrong",
            h.n_unextracted_marked_correct
        ));
    }
    if h.n_truncated > 0 {
        w.push(format!(
            "{} rollouts ({}) were truncated (finish_reason length/max_tokens/content_filter)",
            h.n_truncated,
            pct(h.n_truncated, h.n_rollouts_total)
        ));
    }
    if h.n_failed > 0 {
        w.push(match h.denominator_policy {
            DenominatorPolicy::Requested => format!(
                "{} rollouts have no verdict (failed call or judge); they count as wrong — use --denominator judged to drop them",
                h.n_failed
            ),
            DenominatorPolicy::Judged => format!(
                "{} rollouts have no verdict (failed call or judge); they were dropped from n (--denominator judged)",
                h.n_failed
            ),
        });
    }
    if h.n_bad_lines > 0 {
        w.push(format!(
            "{} malformed rows were skipped (named on stderr); --strict makes them an error",
            h.n_bad_lines
        ));
    }
    if h.n_duplicate_rollouts > 0 {
        w.push(format!(
            "{} duplicated rollouts were dropped by --dedupe",
            h.n_duplicate_rollouts
        ));
    }
    if h.n_inconsistent_clusters > 0 {
        w.push(format!(
            "{} answer clusters hold members judged differently; a cluster's verdict is its first judged member's",
            h.n_inconsistent_clusters
        ));
    }
    let no_detail = summaries
        .iter()
        .filter(|p| p.first_correct_rank.is_none())
        .count();
    if no_detail > 0 {
        w.push(format!(
            "{no_detail} problems are count rows (n, c only): prefix@k, maj@n and self-consistency exclude them"
        ));
    }
    for (name, reason) in block.not_computable.iter() {
        w.push(format!("{name} is not computable: {reason}"));
    }
    let partial: Vec<String> = block
        .metrics
        .iter()
        .filter(|(_, e)| e.excluded.get("no_answers").is_some() && e.n_problems > 0)
        .map(|(k, _)| k.clone())
        .collect();
    if !partial.is_empty() {
        w.push(format!(
            "{} use only problems whose rollouts all carry an answer",
            partial.join(", ")
        ));
    }
    w
}

/// Convenience used by `main`: read, then build.
pub fn report(args: &ReportArgs) -> Result<Report> {
    let mut settings = Settings::from_args(args)?;
    let progress = crate::progress::Progress::start();
    progress.phase("reading");
    progress.set_total(
        args.inputs
            .iter()
            .filter_map(|p| std::fs::metadata(p).ok())
            .map(|m| m.len())
            .sum(),
    );
    settings.read.bytes_read = Some(progress.bytes_counter());
    let inputs = crate::inputs::read_inputs(
        &args.inputs,
        &settings.read,
        args.from.as_deref(),
        settings.grading.grader(),
    )?;
    progress.phase(match settings.uncertainty.config().resamples {
        Some(b) => format!("computing metrics and intervals ({b} resamples)"),
        None => "computing metrics".to_string(),
    });
    build_report(inputs, &settings)
}
