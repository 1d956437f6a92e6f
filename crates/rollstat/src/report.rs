//! [`report()`]: sources → canonical rollouts → per-problem summaries →
//! metric columns → the finished [`Report`].

use crate::budget::{budget_health, budget_metrics, ratio_specs, settle, BudgetUse};
use crate::document::{
    AnswerMetricsLeftOut, Config, Diagnostics, Difficulty, GroupReport, HarnessComparison, Health,
    MetricBlock, Ordered, PerProblem, Report, RolloutDistribution, REPORT_SCHEMA,
};
use crate::error::{Error, Result};
use crate::findings::Finding;
use crate::grading::Grading;
use crate::harness::{compare_aggregates, Context};
use crate::intervals::{ci_config, cluster_ids, metric_block, Population};
use crate::options::ReportOptions;
use crate::population::{
    free_rollouts, group_indices, read_population_keeping_rollouts, requested_n, Summarized,
};
use crate::read::Source;
use rayon::prelude::*;
use rollstat_core::aggregate::{
    default_ks, metric_set, selection_metrics, ColumnBuilder, Metric, MetricColumn,
};
use rollstat_core::summary::{DenominatorPolicy, ProblemSummary};
use rollstat_io::{Dedupe, ReadOptions};

/// Every metric of the sources, with intervals, health and findings.
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{report, ReportOptions, Source};
/// let rows = vec![
///     Row::from(CountRow { problem: "p1".into(), n: 4, c: 1, ..Default::default() }),
///     Row::from(CountRow { problem: "p2".into(), n: 4, c: 3, ..Default::default() }),
/// ];
/// let r = report(&[Source::Rows { name: "rows".into(), rows }], &ReportOptions::default()).unwrap();
/// assert_eq!(r.block.metrics.get("pass@1").unwrap().value, 0.5);
/// ```
pub fn report(sources: &[Source], opts: &ReportOptions) -> Result<Report> {
    opts.validate()?;
    let read = read_options(opts);
    let s = read_population_keeping_rollouts(
        sources,
        &read,
        opts.source_format,
        &opts.grading,
        (opts.metrics.denominator, opts.metrics.tie_policy),
        opts.metrics.decompress_limit,
        opts.messages.as_ref(),
    )?;
    build(s, opts)
}

/// The reader's options for a report.
pub(crate) fn read_options(opts: &ReportOptions) -> ReadOptions {
    ReadOptions {
        by: opts.by.clone(),
        strict: opts.metrics.strict,
        dedupe: opts.metrics.dedupe,
        cluster_by: opts.intervals.cluster_by.clone(),
        budget: opts.metrics.budget.field().map(str::to_string),
        bytes_read: opts.bytes_read.clone(),
        field_map: opts.field_map.clone(),
    }
}

pub(crate) fn dedupe_name(d: Dedupe) -> &'static str {
    match d {
        Dedupe::First => "first",
        Dedupe::Last => "last",
    }
}

/// Strict mode rejects a short problem.
pub(crate) fn check_short(
    origin: &str,
    problem: &str,
    sm: &ProblemSummary,
    n_requested: u64,
) -> Result<()> {
    if sm.n_arrived < n_requested {
        return Err(Error::ShortProblem {
            origin: origin.to_string(),
            problem: problem.to_string(),
            n: sm.n_arrived,
            requested: n_requested,
        });
    }
    Ok(())
}

/// Every metric of a report: [`metric_set`] and [`selection_metrics`]
/// (bon@k and wmaj@n only when some problem carries selector scores).
pub(crate) fn all_metrics(
    ks: &[u64],
    o: &crate::options::MetricOptions,
    n_requested: u64,
    scored: bool,
) -> Vec<Metric> {
    let mut metrics = metric_set(ks, &o.taus(), n_requested);
    metrics.extend(selection_metrics(
        ks,
        n_requested,
        scored.then_some(o.score_order),
    ));
    metrics
}

/// Why the answer metrics say nothing about these populations, or `None`
/// when some rollout carries an extracted answer and n > 1.
pub(crate) fn answer_metrics_left_out(
    populations: &[&[ProblemSummary]],
    n_requested: u64,
) -> Option<AnswerMetricsLeftOut> {
    let answered = populations
        .iter()
        .flat_map(|s| s.iter())
        .any(|p| p.vote.as_ref().is_some_and(|v| v.n_clusters > 0));
    if !answered {
        Some(AnswerMetricsLeftOut::NoAnswers)
    } else if n_requested == 1 {
        Some(AnswerMetricsLeftOut::OneRollout)
    } else {
        None
    }
}

/// Whether some problem carries selector scores.
pub(crate) fn any_scored(summaries: &[ProblemSummary]) -> bool {
    summaries.iter().any(|p| p.scores.is_some())
}

/// The metrics and clusters shared by every population of one report.
struct Plan<'a> {
    metrics: Vec<Metric>,
    n_requested: u64,
    opts: &'a ReportOptions,
    budget: Option<BudgetUse>,
}

impl<'a> Plan<'a> {
    /// Every requested metric, less those that need answers when some
    /// problems have none (`answers_left_out`), plus budget@k.
    fn new(
        opts: &'a ReportOptions,
        summaries: &[ProblemSummary],
        ks: &[u64],
        answers_left_out: bool,
        n_requested: u64,
        budget: Option<BudgetUse>,
    ) -> Self {
        let mut metrics = all_metrics(ks, &opts.metrics, n_requested, any_scored(summaries));
        metrics.retain(|m| !answers_left_out || !m.needs_answers());
        metrics.extend(budget_metrics(ks, budget.as_ref()));
        Plan {
            metrics,
            n_requested,
            opts,
            budget,
        }
    }

    /// Health (without findings), block and the interval findings of one
    /// population.
    fn population(
        &self,
        summaries: &[ProblemSummary],
        clusters: Option<&[u64]>,
    ) -> (Health, MetricBlock, Vec<Finding>) {
        let builder =
            ColumnBuilder::new(summaries, self.opts.metrics.tie_policy).with_metrics(&self.metrics);
        let columns: Vec<MetricColumn> = self
            .metrics
            .par_iter()
            .map(|m| builder.build(m.clone()))
            .collect();
        let policy = self.opts.metrics.denominator;
        let ratios = ratio_specs(&columns);
        let pop = Population {
            columns: &columns,
            summaries,
            clusters,
            n_requested: self.n_requested,
            policy,
            ratios: &ratios,
        };
        let (block, interval_findings) = metric_block(&pop, &self.opts.intervals);
        let mut health = health_of(summaries, self.n_requested, policy);
        health.budget = self.budget.as_ref().map(|b| budget_health(summaries, b));
        (health, block, interval_findings)
    }

    /// A population's health with its findings, and its block.
    fn group(&self, summaries: &[ProblemSummary], clusters: Option<&[u64]>) -> GroupReport {
        let (mut health, block, interval_findings) = self.population(summaries, clusters);
        health.warnings = findings(&health, &block, &self.metrics, summaries, self.n_requested);
        health.warnings.extend(interval_findings);
        GroupReport { health, block }
    }
}

fn build(s: Summarized, opts: &ReportOptions) -> Result<Report> {
    let Summarized {
        mut inputs,
        mut summaries,
        n_undecided,
    } = s;
    check_extraction(&mut inputs, &opts.grading)?;
    let budget = settle(&mut summaries, &opts.metrics.budget);
    let collected = &inputs.collected;
    let max_n = summaries.iter().map(|p| p.n_arrived).max().unwrap_or(0);
    let (n_requested, n_source) = requested_n(opts.metrics.n, max_n);
    if opts.metrics.strict {
        check_all_short(collected, &summaries, n_requested)?;
    }
    let ks = requested_ks(opts, n_requested);
    let left_out = answer_metrics_left_out(&[&summaries], n_requested);
    let plan = Plan::new(
        opts,
        &summaries,
        &ks,
        left_out.is_some(),
        n_requested,
        budget,
    );
    let clusters = clusters(opts, &collected.problems);
    let absent = absent_fields(opts, &collected.problems, &summaries);
    let subsets = pooled_subsets(opts, &collected.problems);
    let (reliability, reliability_findings) = crate::reliability::reliability(
        &collected.problems,
        &summaries,
        opts.run_by.as_deref(),
        &opts.intervals,
    );
    free_rollouts(&mut inputs.collected.problems);
    if opts.by.is_none() && !opts.per_problem {
        free_problems(&mut inputs);
    }
    let (mut health, block) = overall(&plan, &inputs, &summaries, clusters.as_deref());
    health.warnings.extend(subsets);
    note_undecided(&mut health, n_undecided);
    health.warnings.extend(absent);
    health.warnings.extend(reliability_findings);
    let groups = match opts.by {
        Some(_) => groups(&plan, &inputs, &summaries, clusters.as_deref()),
        None => Ordered::default(),
    };
    let per_problem = opts
        .per_problem
        .then(|| per_problem(&plan, &inputs, &summaries));
    let harness = harness(&plan, &inputs, &block, &health);
    let (extrapolation, health) = extrapolation(&summaries, &block, &ks, opts, health);
    let frontier = crate::budget::frontier(&groups);
    let scored = any_scored(&summaries);
    let config = config(opts, ks, (n_requested, n_source), scored, left_out);
    let collected = inputs.collected;
    Ok(Report {
        schema: REPORT_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        inputs: collected.inputs,
        config,
        health,
        block,
        groups,
        harness,
        per_problem,
        extrapolation,
        frontier,
        reliability,
        diagnostics: Diagnostics {
            bad_rows: collected.bad_lines,
            messages: inputs.messages,
        },
    })
}

/// The k of pass@k and friends: as given, or the defaults for `n`.
fn requested_ks(opts: &ReportOptions, n_requested: u64) -> Vec<u64> {
    opts.metrics
        .k
        .clone()
        .unwrap_or_else(|| default_ks(n_requested))
}

/// `--strict`: every problem has at least `n_requested` rollouts.
fn check_all_short(
    collected: &rollstat_io::Collected,
    summaries: &[ProblemSummary],
    n_requested: u64,
) -> Result<()> {
    for (p, sm) in collected.problems.iter().zip(summaries) {
        check_short(&collected.origin(p.origin), &p.problem, sm, n_requested)?;
    }
    Ok(())
}

/// `--cluster-by`: each problem's cluster, numbered.
fn clusters(opts: &ReportOptions, problems: &[rollstat_io::CollectedProblem]) -> Option<Vec<u64>> {
    opts.intervals.cluster_by.as_ref().map(|_| {
        let values: Vec<Option<&str>> = problems.iter().map(|p| p.cluster_value()).collect();
        cluster_ids(&values)
    })
}

/// The fields named by `by`, `cluster_by` and a named `budget` that no
/// row has (a misspelt name would otherwise change nothing, silently).
fn absent_fields(
    opts: &ReportOptions,
    problems: &[rollstat_io::CollectedProblem],
    summaries: &[ProblemSummary],
) -> Vec<Finding> {
    let absent = |option: &str, field: &String| Finding::FieldAbsent {
        option: option.into(),
        field: field.clone(),
    };
    let mut out = Vec::new();
    if let Some(f) = opts.by.as_ref() {
        if !problems.is_empty() && problems.iter().all(|p| p.by_value().is_none()) {
            out.push(absent("by", f));
        }
    }
    if let Some(f) = opts.intervals.cluster_by.as_ref() {
        if !problems.is_empty() && problems.iter().all(|p| p.cluster_value().is_none()) {
            out.push(absent("cluster_by", f));
        }
    }
    if let crate::options::Budget::Field(f) = &opts.metrics.budget {
        if summaries
            .iter()
            .all(|p| p.budget.as_ref().is_none_or(|b| b.values.is_empty()))
        {
            out.push(absent("budget", f));
        }
    }
    out
}

/// Nothing after the overall population reads the problems themselves
/// (their summaries stand for them) unless grouping or per-problem rows do:
/// their memory goes before the columns and intervals are made.
/// Rows graded here whose targets the math extraction cannot read are
/// refused under it (every answer would be unextracted, the headline 0);
/// under another extraction the finding has done its work and is dropped.
fn check_extraction(
    inputs: &mut crate::read::Inputs,
    grading: &rollstat_grade::GradingPolicy,
) -> Result<()> {
    let math = matches!(grading.extract, rollstat_grade::ExtractMode::Math);
    let hint = inputs.findings.iter().find_map(|f| match f {
        Finding::TargetsNeedExtraction {
            path,
            targets,
            extract,
        } => Some((path.clone(), targets.clone(), extract.clone())),
        _ => None,
    });
    match hint {
        Some((path, targets, extract)) if math => Err(Error::ExtractionNeeded {
            path,
            targets,
            extract,
        }),
        Some(_) => {
            inputs
                .findings
                .retain(|f| !matches!(f, Finding::TargetsNeedExtraction { .. }));
            Ok(())
        }
        None => Ok(()),
    }
}

/// Without a breakdown, several subsets pooled into one headline: the
/// finding that says so.
fn pooled_subsets(
    opts: &ReportOptions,
    problems: &[rollstat_io::CollectedProblem],
) -> Option<Finding> {
    let subsets = opts.by.is_none().then(|| subsets_of(problems))?;
    (subsets.len() > 1).then_some(Finding::PooledSubsets { subsets })
}

/// The distinct subsets (benchmarks, tasks) of the problems, in order of
/// first appearance; problems sharing labels are looked at once.
fn subsets_of(problems: &[rollstat_io::CollectedProblem]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut last: Option<&std::sync::Arc<rollstat_io::Labels>> = None;
    for p in problems {
        let Some(labels) = &p.labels else { continue };
        if last.is_some_and(|l| std::sync::Arc::ptr_eq(l, labels)) {
            continue;
        }
        last = Some(labels);
        if let Some(s) = &labels.subset {
            if !out.contains(s) {
                out.push(s.clone());
            }
        }
    }
    out
}

fn free_problems(inputs: &mut crate::read::Inputs) {
    // Freed in parallel: 10⁷ problems are 10⁷ frees of their ids.
    std::mem::take(&mut inputs.collected.problems)
        .into_par_iter()
        .for_each(drop);
}

/// Rollouts the grader could not decide: counted, and a finding if any.
fn note_undecided(health: &mut Health, n_undecided: u64) {
    health.n_grading_undecided = n_undecided;
    if n_undecided > 0 {
        health.warnings.push(Finding::GradingUndecided {
            side: None,
            n: n_undecided,
        });
    }
}

/// The harness's own aggregates compared with the metrics computed here.
fn harness(
    plan: &Plan,
    inputs: &crate::read::Inputs,
    block: &MetricBlock,
    health: &Health,
) -> Vec<HarnessComparison> {
    let opts = plan.opts;
    let clusterer = Grading::new(&opts.grading);
    compare_aggregates(
        &inputs.aggregates,
        &inputs.scopes,
        &Context {
            n: plan.n_requested,
            tie: opts.metrics.tie_policy,
            policy: opts.metrics.denominator,
            grouped: opts.by.is_some(),
            block,
            health,
            clusterer: &clusterer,
        },
    )
}

/// The overall population: health with the reader's counts and every
/// finding (metrics, intervals, adapters, pooled systems), and its block.
fn overall(
    plan: &Plan,
    inputs: &crate::read::Inputs,
    summaries: &[ProblemSummary],
    clusters: Option<&[u64]>,
) -> (Health, MetricBlock) {
    let collected = &inputs.collected;
    let (mut health, block, interval_findings) = plan.population(summaries, clusters);
    // Reader counts enter the findings that read them.
    health.n_bad_lines = collected.bad_lines.len() as u64;
    health.n_duplicate_rollouts = collected.n_duplicate_rollouts;
    let mut warnings = findings(&health, &block, &plan.metrics, summaries, plan.n_requested);
    warnings.extend(interval_findings);
    warnings.extend(inputs.findings.iter().cloned());
    if let (n @ 1.., Some((first, again))) = (
        collected.cross_file_duplicates.n,
        collected.cross_file_duplicates.first.clone(),
    ) {
        warnings.push(Finding::DuplicatesAcrossInputs { n, first, again });
    }
    let by = plan.opts.by.as_deref();
    if collected.systems.len() > 1
        && by != Some("model")
        && by != Some("run")
        && !all_readings(&collected.systems, &inputs.findings)
    {
        warnings.push(Finding::PooledSystems {
            systems: collected.systems.clone(),
        });
    }
    health.warnings = warnings;
    (health, block)
}

/// Whether every system is a reading (filter, scorer) of one system that an
/// adapter declared (`reading` or `model/reading`): then the systems are
/// said to be readings, not pooled systems.
fn all_readings(systems: &[String], findings: &[Finding]) -> bool {
    let values: Vec<&str> = findings
        .iter()
        .filter_map(|f| match f {
            Finding::Readings { values, .. } => Some(values),
            _ => None,
        })
        .flatten()
        .map(String::as_str)
        .collect();
    !values.is_empty()
        && systems.iter().all(|s| {
            let last = s.rsplit_once('/').map_or(s.as_str(), |(_, r)| r);
            values.contains(&last)
        })
}

/// The `extrapolation` block when asked; when it cannot be made, a finding
/// says why.
fn extrapolation(
    summaries: &[ProblemSummary],
    block: &MetricBlock,
    ks: &[u64],
    opts: &ReportOptions,
    mut health: Health,
) -> (Option<crate::extrapolation::Extrapolation>, Health) {
    match crate::extrapolation::extrapolate(summaries, block, ks, opts) {
        Ok(x) => (x, health),
        Err(reason) => {
            health.warnings.push(Finding::NoExtrapolation { reason });
            (None, health)
        }
    }
}

/// What `config` records.
/// The settings the report was made with; `scored`: some problem has scores
/// (then their order is part of the config).
fn config(
    opts: &ReportOptions,
    ks: Vec<u64>,
    (n, n_source): (u64, String),
    scored: bool,
    left_out: Option<AnswerMetricsLeftOut>,
) -> Config {
    Config {
        k: ks,
        tau: opts.metrics.tau.clone(),
        n,
        n_source,
        ci: ci_config(&opts.intervals),
        tie_policy: opts.metrics.tie_policy,
        score_order: scored.then_some(opts.metrics.score_order),
        denominator_policy: opts.metrics.denominator,
        answer_clustering: opts.grading.describe(),
        answer_metrics_left_out: left_out,
        strict: opts.metrics.strict,
        dedupe: opts.metrics.dedupe.map(|d| dedupe_name(d).to_string()),
        by: opts.by.clone(),
    }
}

/// One population per value of the breakdown field, grouped in one pass.
fn groups(
    plan: &Plan,
    inputs: &crate::read::Inputs,
    summaries: &[ProblemSummary],
    clusters: Option<&[u64]>,
) -> Ordered<GroupReport> {
    let problems = &inputs.collected.problems;
    let keys = problems.iter().map(|p| p.by_value().unwrap_or("(none)"));
    let groups = group_indices(keys);
    // Groups are independent populations: computed in parallel, kept in order.
    let reports: Vec<GroupReport> = groups
        .par_iter()
        .map(|(_, members)| {
            let subset: Vec<ProblemSummary> =
                members.iter().map(|&i| summaries[i].clone()).collect();
            let sub_clusters: Option<Vec<u64>> =
                clusters.map(|c| members.iter().map(|&i| c[i]).collect());
            plan.group(&subset, sub_clusters.as_deref())
        })
        .collect();
    Ordered(groups.into_iter().map(|(n, _)| n).zip(reports).collect())
}

fn per_problem(
    plan: &Plan,
    inputs: &crate::read::Inputs,
    summaries: &[ProblemSummary],
) -> Vec<PerProblem> {
    // The metrics' columns, as the block builds them: maj@k then runs its
    // program once per problem, not once per k.
    let builder =
        ColumnBuilder::new(summaries, plan.opts.metrics.tie_policy).with_metrics(&plan.metrics);
    let columns: Vec<(String, MetricColumn)> = plan
        .metrics
        .par_iter()
        .map(|m| (m.to_string(), builder.build(m.clone())))
        .collect();
    inputs
        .collected
        .problems
        .iter()
        .zip(summaries)
        .enumerate()
        .map(|(i, (p, sm))| {
            let mut values = Ordered::default();
            for (name, col) in &columns {
                if !col.values[i].is_nan() {
                    values.insert(name.clone(), col.values[i]);
                }
            }
            PerProblem {
                problem: match p.system() {
                    Some(sys) => format!("{sys}:{}", p.problem),
                    None => p.problem.clone(),
                },
                group: p.by_value().map(str::to_string),
                n: sm.n,
                c: sm.c,
                values,
            }
        })
        .collect()
}

/// Accounting over problem summaries; reader counts (`n_bad_lines`,
/// `n_duplicate_rollouts`) are added by the caller.
pub(crate) fn health_of(
    problems: &[ProblemSummary],
    n_requested: u64,
    policy: DenominatorPolicy,
) -> Health {
    let t = Tally::of(problems, n_requested);
    let rollouts = RolloutCounts(t.rollout_counts.into_iter().collect());
    let mut histogram: Ordered<u64> = Ordered::default();
    for &(count, problems) in &rollouts.0 {
        histogram.insert(count.to_string(), problems);
    }
    Health {
        n_problems: problems.len() as u64,
        n_rollouts: RolloutDistribution {
            min: rollouts.0.first().map_or(0, |&(count, _)| count),
            median: rollouts.median(),
            max: rollouts.0.last().map_or(0, |&(count, _)| count),
            histogram,
        },
        n_rollouts_total: t.n_rollouts,
        n_requested,
        n_short: t.n_short,
        n_unextracted: t.n_unextracted,
        n_unextracted_marked_correct: t.n_unextracted_marked_correct,
        n_truncated: t.n_truncated,
        n_failed: t.n_failed,
        n_duplicate_rollouts: 0,
        n_inconsistent_clusters: t.n_inconsistent_clusters,
        n_bad_lines: 0,
        n_grading_undecided: 0,
        denominator_policy: policy,
        warnings: Vec::new(),
        difficulty: t.difficulty,
        budget: None,
    }
}

/// Every count of [`health_of`], from one parallel pass over the problems
/// (whole numbers: the same in any order).
struct Tally {
    n_rollouts: u64,
    n_short: u64,
    n_unextracted: u64,
    n_unextracted_marked_correct: u64,
    n_truncated: u64,
    n_failed: u64,
    n_inconsistent_clusters: u64,
    /// Problems per number of rollouts that arrived.
    rollout_counts: std::collections::BTreeMap<u64, u64>,
    difficulty: Difficulty,
}

impl Tally {
    fn of(problems: &[ProblemSummary], n_requested: u64) -> Tally {
        let empty = || Tally::empty(n_requested);
        problems
            .par_chunks(1 << 14)
            .map(|chunk| {
                let mut t = empty();
                // Problems share a few rollout counts, usually in runs:
                // one map update a run.
                let mut run: Option<(u64, u64)> = None;
                for p in chunk {
                    t.add(p, n_requested);
                    match &mut run {
                        Some((count, problems)) if *count == p.n_arrived => *problems += 1,
                        _ => {
                            t.count_run(run);
                            run = Some((p.n_arrived, 1));
                        }
                    }
                }
                t.count_run(run);
                t
            })
            .reduce(empty, Tally::merge)
    }

    fn empty(n_requested: u64) -> Tally {
        let bins = n_requested.clamp(1, 20);
        Tally {
            n_rollouts: 0,
            n_short: 0,
            n_unextracted: 0,
            n_unextracted_marked_correct: 0,
            n_truncated: 0,
            n_failed: 0,
            n_inconsistent_clusters: 0,
            rollout_counts: Default::default(),
            difficulty: Difficulty {
                bins,
                histogram: vec![0; bins as usize + 1],
                ..Difficulty::default()
            },
        }
    }

    fn add(&mut self, p: &ProblemSummary, n_requested: u64) {
        self.n_rollouts += p.n_arrived;
        self.n_short += u64::from(p.n_arrived < n_requested);
        self.n_unextracted += u64::from(p.n_unextracted);
        self.n_unextracted_marked_correct += u64::from(p.n_unextracted_marked_correct);
        self.n_truncated += u64::from(p.n_truncated);
        self.n_failed += u64::from(p.n_failed);
        self.n_inconsistent_clusters += p.vote.as_deref().map_or(0, |v| v.n_inconsistent as u64);
        add_difficulty(&mut self.difficulty, p);
    }

    /// Adds `problems` problems with `count` rollouts each.
    fn count_run(&mut self, run: Option<(u64, u64)>) {
        if let Some((count, problems)) = run {
            *self.rollout_counts.entry(count).or_insert(0) += problems;
        }
    }

    fn merge(mut self, other: Tally) -> Tally {
        self.n_rollouts += other.n_rollouts;
        self.n_short += other.n_short;
        self.n_unextracted += other.n_unextracted;
        self.n_unextracted_marked_correct += other.n_unextracted_marked_correct;
        self.n_truncated += other.n_truncated;
        self.n_failed += other.n_failed;
        self.n_inconsistent_clusters += other.n_inconsistent_clusters;
        for (count, problems) in other.rollout_counts {
            *self.rollout_counts.entry(count).or_insert(0) += problems;
        }
        let (d, o) = (&mut self.difficulty, other.difficulty);
        for (a, b) in d.histogram.iter_mut().zip(&o.histogram) {
            *a += b;
        }
        d.n_problems += o.n_problems;
        d.never_solved += o.never_solved;
        d.always_solved += o.always_solved;
        self
    }
}

/// How many problems arrived with each number of rollouts: (rollouts,
/// problems), by rollouts ascending ([`Tally`] counts them).
struct RolloutCounts(Vec<(u64, u64)>);

impl RolloutCounts {
    #[cfg(test)]
    fn of(problems: &[ProblemSummary]) -> RolloutCounts {
        RolloutCounts(Tally::of(problems, 0).rollout_counts.into_iter().collect())
    }

    /// The `i`-th smallest count (from 0), over problems.
    fn nth(&self, i: u64) -> u64 {
        let mut below = 0;
        for &(count, problems) in &self.0 {
            below += problems;
            if i < below {
                return count;
            }
        }
        unreachable!("i is below the number of problems")
    }

    /// The median count (the mean of the middle two for an even number of
    /// problems); 0 without problems.
    fn median(&self) -> f64 {
        let len: u64 = self.0.iter().map(|&(_, problems)| problems).sum();
        match len {
            0 => 0.0,
            l if l % 2 == 1 => self.nth(l / 2) as f64,
            l => (self.nth(l / 2 - 1) + self.nth(l / 2)) as f64 / 2.0,
        }
    }
}

/// The distribution of c/n over problems with n ≥ 1, on a grid of
/// B = min(n requested, 20) steps (entry j: c/n nearest j/B, halves up).
#[cfg(test)]
fn difficulty(problems: &[ProblemSummary], n_requested: u64) -> Difficulty {
    Tally::of(problems, n_requested).difficulty
}

/// Counts one problem in `d` (problems with n = 0 are not counted).
fn add_difficulty(d: &mut Difficulty, p: &ProblemSummary) {
    if p.n == 0 {
        return;
    }
    let (bins, c) = (d.bins, p.c.min(p.n));
    // round(c·B/n) in integers: ⌊(2cB + n) / 2n⌋ (in 64 bits while
    // n < 2³², where 2cB + n < 2³⁸; 128-bit division is much slower).
    let j = match p.n < 1 << 32 {
        true => (2 * c * bins + p.n) / (2 * p.n),
        false => {
            let wide = 2 * u128::from(c) * u128::from(bins) + u128::from(p.n);
            (wide / (2 * u128::from(p.n))) as u64
        }
    };
    d.histogram[j as usize] += 1;
    d.n_problems += 1;
    d.never_solved += u64::from(c == 0);
    d.always_solved += u64::from(c == p.n);
}

/// What the health block and the metrics say, as findings.
fn findings(
    h: &Health,
    block: &MetricBlock,
    metrics: &[Metric],
    summaries: &[ProblemSummary],
    n: u64,
) -> Vec<Finding> {
    let mut w = Vec::new();
    if h.n_short > 0 {
        w.push(short_problems(h, block, metrics, n));
    }
    w.extend(health_counts(h));
    let no_detail = summaries
        .iter()
        .filter(|p| p.first_correct_rank.is_none())
        .count() as u64;
    if no_detail > 0 {
        w.push(Finding::CountRows { n: no_detail });
    }
    for (name, reason) in block.not_computable.iter() {
        w.push(Finding::NotComputable {
            metric: name.clone(),
            reason: reason.clone(),
        });
    }
    let partial: Vec<String> = block
        .metrics
        .iter()
        .filter(|(_, e)| e.excluded.get("no_answers").is_some() && e.n_problems > 0)
        .map(|(k, _)| k.clone())
        .collect();
    if !partial.is_empty() {
        w.push(Finding::PartialAnswers { metrics: partial });
    }
    w
}

/// Problems with fewer than `n` rollouts: how many problems the largest
/// requested pass@k could still use.
fn short_problems(h: &Health, block: &MetricBlock, metrics: &[Metric], n: u64) -> Finding {
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
        .get(&Metric::PassAtK(largest_k).to_string())
        .map(|e| e.n_problems)
        .unwrap_or(0);
    Finding::ShortProblems {
        n_short: h.n_short,
        n_requested: n,
        largest_k,
        used,
        n_problems: h.n_problems,
    }
}

/// One finding per nonzero count of the health block, in this order.
fn health_counts(h: &Health) -> impl Iterator<Item = Finding> {
    let total = h.n_rollouts_total;
    let counts = [
        (
            h.n_unextracted,
            Finding::Unextracted {
                n: h.n_unextracted,
                total,
            },
        ),
        (
            h.n_unextracted_marked_correct,
            Finding::UnextractedMarkedCorrect {
                n: h.n_unextracted_marked_correct,
            },
        ),
        (
            h.n_truncated,
            Finding::Truncated {
                n: h.n_truncated,
                total,
            },
        ),
        (
            h.n_failed,
            Finding::Failed {
                n: h.n_failed,
                policy: h.denominator_policy,
            },
        ),
        (h.n_bad_lines, Finding::BadRows { n: h.n_bad_lines }),
        (
            h.n_duplicate_rollouts,
            Finding::DuplicatesDropped {
                n: h.n_duplicate_rollouts,
            },
        ),
        (
            h.n_inconsistent_clusters,
            Finding::InconsistentClusters {
                n: h.n_inconsistent_clusters,
            },
        ),
    ];
    counts.into_iter().filter(|(n, _)| *n > 0).map(|(_, f)| f)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollstat_core::summary::{summarize, ProblemData};
    use rollstat_core::vote::ExactClusterer;

    /// Each problem lands in the bin j nearest c·B/n, halves up: j/B ≤
    /// c/n + 1/(2B) < (j + 1)/B, checked as 2n·j ≤ 2cB + n < 2n·(j + 1)
    /// — for n below 2³² and above, where the bin is computed in 128 bits.
    #[test]
    fn difficulty_bins_are_the_nearest_grid_points() {
        let big = 1u64 << 40;
        let pairs = [
            (16, 0),
            (16, 1),
            (16, 8),
            (16, 16),
            (3, 1),
            (40, 3),
            (big, 1),
            (big, big / 40),
            (big, big / 2 + 1),
            (big, big),
            ((1 << 32) - 1, 12345),
            (1 << 32, (1 << 31) + 7),
        ];
        for (n, c) in pairs {
            let p = summarize(
                ProblemData::Counts { n, c },
                DenominatorPolicy::Requested,
                &ExactClusterer,
            );
            let d = difficulty(&[p], 20);
            let j = d.histogram.iter().position(|&h| h == 1).unwrap() as u128;
            let (n, c, b) = (u128::from(n), u128::from(c), 20u128);
            assert!(
                2 * n * j <= 2 * c * b + n && 2 * c * b + n < 2 * n * (j + 1),
                "{n} {c}"
            );
        }
    }

    /// Rollout counts, their median, minimum and maximum agree with the
    /// sorted list of counts, for odd and even numbers of problems, runs of
    /// equal counts and counts that come back after others.
    /// The one-pass parallel tally over many chunks gives the counts a
    /// problem-by-problem count gives.
    #[test]
    fn tally_over_chunks_counts_every_problem() {
        let problems: Vec<ProblemSummary> = (0..40_000u64)
            .map(|i| {
                // Runs of equal n, and n that come back after others.
                let n = [16, 16, 16, 3, 0, 16, 9][((i / 5) % 7) as usize];
                let c = (i * 7919) % (n + 1);
                summarize(
                    ProblemData::Counts { n, c },
                    DenominatorPolicy::Requested,
                    &ExactClusterer,
                )
            })
            .collect();
        let h = health_of(&problems, 16, DenominatorPolicy::Requested);
        let n_of = |m: u64| problems.iter().filter(|p| p.n_arrived == m).count() as u64;
        assert_eq!(
            h.n_rollouts_total,
            problems.iter().map(|p| p.n_arrived).sum::<u64>()
        );
        assert_eq!(
            h.n_short,
            problems.iter().filter(|p| p.n_arrived < 16).count() as u64
        );
        for m in [0, 3, 9, 16] {
            assert_eq!(h.n_rollouts.histogram.get(&m.to_string()), Some(&n_of(m)));
        }
        let d = &h.difficulty;
        assert_eq!(d.n_problems, problems.len() as u64 - n_of(0));
        assert_eq!(d.histogram.iter().sum::<u64>(), d.n_problems);
        let never = problems.iter().filter(|p| p.n > 0 && p.c == 0).count() as u64;
        let always = problems.iter().filter(|p| p.n > 0 && p.c == p.n).count() as u64;
        assert_eq!((d.never_solved, d.always_solved), (never, always));
        // Entry 16 of 16 bins: c/n nearest 1, i.e. c = n at n = 16 and 9, and
        // c = 3 at n = 3.
        let top = problems
            .iter()
            .filter(|p| p.n > 0 && (2 * p.c * 16 + p.n) / (2 * p.n) == 16);
        assert_eq!(d.histogram[16], top.count() as u64);
    }

    #[test]
    fn rollout_counts_match_the_sorted_counts() {
        let lists: [&[u64]; 5] = [
            &[],
            &[7],
            &[4, 4, 1, 9, 4, 1],
            &[16, 16, 3, 16, 2, 2, 5],
            &[0, 10, 0, 10, 5, 5, 5, 10],
        ];
        for list in lists {
            let problems: Vec<ProblemSummary> = list
                .iter()
                .map(|&n| {
                    let data = ProblemData::Counts { n, c: 0 };
                    summarize(data, DenominatorPolicy::Requested, &ExactClusterer)
                })
                .collect();
            let counts = RolloutCounts::of(&problems);
            let mut sorted = list.to_vec();
            sorted.sort_unstable();
            let expanded: Vec<u64> = counts
                .0
                .iter()
                .flat_map(|&(c, k)| std::iter::repeat_n(c, k as usize))
                .collect();
            assert_eq!(expanded, sorted);
            let l = sorted.len();
            let median = match l {
                0 => 0.0,
                _ if l % 2 == 1 => sorted[l / 2] as f64,
                _ => (sorted[l / 2 - 1] + sorted[l / 2]) as f64 / 2.0,
            };
            assert_eq!(counts.median(), median, "{list:?}");
        }
    }
}
