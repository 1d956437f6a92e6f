//! The metric block of one population: every metric entry built in one
//! step from its column — value, standard error (CR1 when clustered),
//! interval, variance split. All metrics of one population are resampled
//! with the same problem (or cluster) indices, so their intervals are
//! consistent.

use crate::budget::{ratio_columns, ratio_point, RatioEntry, RatioSpec};
use crate::document::{CiConfig, Interval, MetricBlock, MetricEntry, Ordered, VarianceEntry};
use crate::findings::Finding;
use crate::options::{IntervalMethod, IntervalOptions};
use rayon::prelude::*;
use rollstat_core::aggregate::{
    coded_groups, ColumnValues, Exclusion, Metric, MetricColumn, PointSummary,
};
use rollstat_core::summary::{DenominatorPolicy, ProblemSummary};
use rollstat_stats::{
    binomial_interval, bootstrap_columns_with_ratios, clustered_se, hierarchical_posterior,
    method_warnings, pass1_sampling_variance, pass_at_k_sampling_variance, rng, t_interval,
    variance_decomposition_of, BootstrapConfig, CiMethod, ClusteredSe, Column, ColumnBootstrap,
    Estimand, MethodContext,
};

/// What `config.ci` records for these options.
pub(crate) fn ci_config(o: &IntervalOptions) -> CiConfig {
    let resampled = o.method.resamples();
    CiConfig {
        method: match (o.method, &o.cluster_by) {
            (IntervalMethod::None, _) => "none".into(),
            (IntervalMethod::BetaBinomial, None) => model_label(o),
            // The model assumes independent problems: every row falls back.
            (IntervalMethod::BetaBinomial, Some(_)) => "cluster-bootstrap".into(),
            (m, Some(_)) if resampled => format!("cluster-{}", m.name()),
            (m, _) => m.name().into(),
        },
        level: o.level,
        resamples: resampled.then_some(o.resamples as u64),
        seed: resampled.then_some(o.seed),
        rng: resampled.then(|| rng::RNG_SCHEME.to_string()),
        cluster_by: o.cluster_by.clone(),
    }
}

/// The method name of a model-based interval: says it is a model and
/// names the prior (`beta-binomial model, uniform prior`).
pub(crate) fn model_label(o: &IntervalOptions) -> String {
    format!("beta-binomial model, {} prior", o.prior)
}

/// The population a block is computed over.
pub(crate) struct Population<'a> {
    pub columns: &'a [MetricColumn],
    pub summaries: &'a [ProblemSummary],
    pub clusters: Option<&'a [u64]>,
    pub n_requested: u64,
    pub policy: DenominatorPolicy,
    /// The cost metrics (ratios of two columns' means).
    pub ratios: &'a [RatioSpec],
}

/// Builds every entry of the population's block; returns the findings
/// about intervals (fallbacks, method advice).
pub(crate) fn metric_block(pop: &Population, o: &IntervalOptions) -> (MetricBlock, Vec<Finding>) {
    // Each column's mean and standard error are passes over every problem:
    // the columns' in parallel.
    let points = point_summaries(pop.columns);
    let defined: Vec<&MetricColumn> = pop
        .columns
        .iter()
        .zip(&points)
        .filter_map(|(c, p)| p.map(|_| c))
        .collect();
    let ratio_cols: Vec<RatioColumns> = pop
        .ratios
        .iter()
        .map(|r| ratio_columns(r, pop.columns))
        .collect();
    let boot = (o.method.resamples() && !defined.is_empty())
        .then(|| bootstrap(&defined, (&ratio_cols, pop.ratios), pop.clusters, o))
        .flatten();
    // What each column needs from its values, for all columns in parallel.
    let stats: Vec<ColumnStats> = defined
        .par_iter()
        .map(|col| ColumnStats::of(col, pop.clusters, pop.summaries))
        .collect();
    let models = model_intervals(&defined, pop, o);
    let mut block = MetricBlock::default();
    let mut fell_back = Vec::new();
    let mut next = 0;
    for (col, point) in pop.columns.iter().zip(points) {
        let name = col.metric.to_string();
        let Some(point) = point else {
            block.not_computable.insert(name, main_reason(col));
            continue;
        };
        let idx = next;
        next += 1;
        let built = Entry {
            col,
            point,
            stats: &stats[idx],
            boot: boot.as_ref().map(|b| &b.0[idx]),
            clustered: pop.clusters.is_some(),
            model: models[idx],
        }
        .build(o, pop);
        if built.fell_back {
            fell_back.push(name.clone());
        }
        block.metrics.insert(name, built.entry);
    }
    let ratio_boot = boot.as_ref().map(|b| b.1.as_slice());
    ratio_entries(pop, o, (&ratio_cols, ratio_boot), &mut block);
    crate::identities::note_identities(&mut block, pop.columns);
    let findings = interval_findings(fell_back, defined.first().copied(), pop.clusters, o);
    (block, findings)
}

/// With the beta-binomial method on an unclustered population, each pass@k
/// and pass^k column's model-based interval (in parallel); `None` for the others.
fn model_intervals(
    defined: &[&MetricColumn],
    pop: &Population,
    o: &IntervalOptions,
) -> Vec<Option<[f64; 2]>> {
    if o.method != IntervalMethod::BetaBinomial || pop.clusters.is_some() {
        return vec![None; defined.len()];
    }
    defined
        .par_iter()
        .map(|col| model_interval(col, pop.summaries, o))
        .collect()
}

/// The credible interval of the population pass@k or pass^k under the
/// hierarchical beta-binomial model, from the (n, c) of the problems the
/// column has a value for; `None` for other metrics.
fn model_interval(
    col: &MetricColumn,
    summaries: &[ProblemSummary],
    o: &IntervalOptions,
) -> Option<[f64; 2]> {
    let estimand = match col.metric {
        Metric::PassAtK(k) => Estimand::PassAtK(k),
        Metric::PassPowK(k) => Estimand::PassPowK(k),
        _ => return None,
    };
    let counts: Vec<(u64, u64)> = col
        .values
        .iter()
        .zip(summaries)
        .filter(|(v, p)| !v.is_nan() && p.n > 0)
        .map(|(_, p)| (p.n, p.c))
        .collect();
    let post = hierarchical_posterior(&counts, estimand, o.prior, o.level).ok()?;
    Some([post.interval.lower, post.interval.upper])
}

/// The columns that fell back from a binomial interval, then advice about
/// the method (judged on the first defined column).
fn interval_findings(
    fell_back: Vec<String>,
    first: Option<&MetricColumn>,
    clusters: Option<&[u64]>,
    o: &IntervalOptions,
) -> Vec<Finding> {
    let mut findings = Vec::new();
    if !fell_back.is_empty() && o.method == IntervalMethod::BetaBinomial {
        findings.push(Finding::ModelFallback { metrics: fell_back });
    } else if !fell_back.is_empty() {
        findings.push(Finding::BinomialFallback {
            method: o.method.name().to_string(),
            metrics: fell_back,
        });
    }
    if let Some(first) = first {
        findings.extend(method_findings(first, clusters, o));
    }
    findings
}

/// The cost ratios' entries (or why one has no value), with their bootstraps.
fn ratio_entries(
    pop: &Population,
    o: &IntervalOptions,
    (ratio_cols, boot): (&[RatioColumns], Option<&[ColumnBootstrap]>),
    block: &mut MetricBlock,
) {
    for (i, spec) in pop.ratios.iter().enumerate() {
        let (num, den) = &ratio_cols[i];
        let Some((value, n_problems)) = ratio_point(num, den) else {
            let why = format!(
                "no problem solved at k = {} (or none with a budget)",
                spec.k
            );
            block.not_computable.insert(spec.name.clone(), why);
            continue;
        };
        let entry = RatioEntry {
            spec,
            value,
            n_problems,
            n_excluded: num.len() as u64 - n_problems,
            boot: boot.map(|b| &b[i]),
            n_requested: pop.n_requested,
            policy: pop.policy,
        };
        block
            .metrics
            .insert(spec.name.clone(), entry.build(o, ci_config(o).method));
    }
}

/// The most common exclusion reason of a column with no value.
pub(crate) fn main_reason(col: &MetricColumn) -> String {
    col.excluded
        .iter()
        .max_by_key(|(_, c)| *c)
        .map(|(r, _)| r.to_string())
        .unwrap_or_else(|| "no problems".into())
}

fn exclusion_key(e: Exclusion) -> &'static str {
    match e {
        Exclusion::TooFewRollouts => "too_few_rollouts",
        Exclusion::NoRolloutDetail => "no_rollout_detail",
        Exclusion::NoAnswers => "no_answers",
        Exclusion::NoScores => "no_scores",
        Exclusion::NoBudget => "no_budget",
        Exclusion::VoteTooLarge => "vote_too_large",
    }
}

/// One defined column and what its entry is built from.
struct Entry<'a> {
    col: &'a MetricColumn,
    point: PointSummary,
    stats: &'a ColumnStats,
    /// This column's bootstrap.
    boot: Option<&'a ColumnBootstrap>,
    clustered: bool,
    /// The model-based interval (beta-binomial method, pass@k and pass^k).
    model: Option<[f64; 2]>,
}

struct Built {
    entry: MetricEntry,
    /// A binomial or model-based method was asked but this column got the
    /// bootstrap.
    fell_back: bool,
}

impl Entry<'_> {
    /// The interval's bounds by the asked method (t on the stderr, exact
    /// binomial, or the bootstrap's), and whether a binomial interval fell
    /// back to the bootstrap (the metric is not 0/1, or is clustered).
    fn bounds(
        &self,
        o: &IntervalOptions,
        stderr: Option<f64>,
        df: f64,
    ) -> (Option<[f64; 2]>, bool) {
        let st = self.stats;
        let value = self.point.mean;
        let interval = |m: CiMethod| {
            self.boot.map(|b| {
                let iv = b.interval(m);
                [iv.lower, iv.upper]
            })
        };
        let mut fell_back = false;
        let bounds = match o.method {
            IntervalMethod::None => None,
            IntervalMethod::Resampled(CiMethod::T) => stderr.filter(|_| df >= 1.0).map(|se| {
                let i = t_interval(value, se, df, o.level);
                [i.lower, i.upper]
            }),
            IntervalMethod::Binomial(m) if st.binary && !self.clustered => {
                binomial_interval(st.ones, st.n as u64, o.level, m)
                    .ok()
                    .map(|i| [i.lower, i.upper])
            }
            IntervalMethod::Binomial(_) => {
                fell_back = true;
                interval(CiMethod::Percentile)
            }
            IntervalMethod::BetaBinomial if self.model.is_some() => self.model,
            IntervalMethod::BetaBinomial => {
                fell_back = true;
                interval(CiMethod::Percentile)
            }
            IntervalMethod::Resampled(m) => interval(m),
        };
        (bounds, fell_back)
    }

    fn build(self, o: &IntervalOptions, pop: &Population) -> Built {
        let st = self.stats;
        let (stderr, df) = match &st.clustered {
            Some(c) => (Some(c.se_cr1), c.clusters as f64 - 1.0),
            None => (self.point.stderr, st.n as f64 - 1.0),
        };
        let value = self.point.mean;
        let (bounds, fell_back) = self.bounds(o, stderr, df);
        let asked = o.method != IntervalMethod::None;
        let method = match () {
            _ if fell_back => "bootstrap".to_string(),
            _ => ci_config(o).method,
        };
        let ci = bounds
            .filter(|c| c[0].is_finite() && c[1].is_finite())
            .map(|[lower, upper]| Interval { lower, upper });
        let mut excluded = Ordered::default();
        for (reason, count) in &self.col.excluded {
            excluded.insert(exclusion_key(*reason), *count);
        }
        let metric = &self.col.metric;
        let entry = MetricEntry {
            value,
            stderr,
            ci,
            method,
            level: asked.then_some(o.level),
            // A model-based interval draws nothing: no seed.
            seed: (asked && o.method.resamples() && (fell_back || self.model.is_none()))
                .then_some(o.seed),
            n_problems: self.point.n_problems,
            n_excluded: self.col.n_excluded(),
            excluded,
            k: metric.k(),
            n: pop.n_requested,
            denominator: pop.policy,
            unit: metric.unit(),
            variance: st.variance.clone(),
            same_as: None,
            estimator: None,
        };
        Built { entry, fell_back }
    }
}

/// Advice about the method for this population (small N, 0/1 metrics, …).
fn method_findings(
    first: &MetricColumn,
    clusters: Option<&[u64]>,
    o: &IntervalOptions,
) -> Vec<Finding> {
    let IntervalMethod::Resampled(method) = o.method else {
        return Vec::new();
    };
    let defined = first.values.iter().filter(|v| !v.is_nan());
    let n = defined.clone().count();
    let binary = defined.clone().all(|&v| v == 0.0 || v == 1.0);
    method_advice(&MethodContext {
        method,
        n,
        clusters: clusters.map(distinct_count),
        binary,
        resamples: o.resamples,
    })
}

/// The interval-method warnings of `rollstat-stats` as findings.
pub(crate) fn method_advice(ctx: &MethodContext) -> Vec<Finding> {
    method_warnings(ctx)
        .into_iter()
        .map(|w| Finding::IntervalMethod {
            message: w.message,
            suggestion: w.suggestion.map(str::to_string),
        })
        .collect()
}

/// Number of distinct cluster ids.
pub(crate) fn distinct_count(ids: &[u64]) -> usize {
    let mut ids = ids.to_vec();
    ids.sort_unstable();
    ids.dedup();
    ids.len()
}

/// A cost ratio's (numerator, denominator) columns.
type RatioColumns = (Vec<f64>, Vec<f64>);

/// Every defined column's bootstrap (in order) and each cost ratio's, from
/// one set of resamples: budget columns are per-draw columns (their values
/// differ from problem to problem), the others typed. budget@k is k × the
/// per-rollout budget: it is resampled divided by k, so that the budget
/// columns of every k (and the ratios' numerators) are one column when
/// their problems agree, and the results are scaled back.
fn bootstrap(
    cols: &[&MetricColumn],
    (ratios, specs): (&[RatioColumns], &[RatioSpec]),
    clusters: Option<&[u64]>,
    o: &IntervalOptions,
) -> Option<(Vec<ColumnBootstrap>, Vec<ColumnBootstrap>)> {
    let per_rollout =
        |v: &ColumnValues, k: u64| -> Vec<f64> { v.iter().map(|x| x / k as f64).collect() };
    let budget_k = |c: &MetricColumn| match c.metric {
        Metric::BudgetAtK(k) => Some(k),
        _ => None,
    };
    let mut typed: Vec<Column> = Vec::new();
    let mut drawn: Vec<(Vec<f64>, u64)> = Vec::new();
    for c in cols {
        match budget_k(c) {
            Some(k) => drawn.push((per_rollout(&c.values, k), k)),
            None => typed.push(column(&c.values)),
        }
    }
    let n_budget = drawn.len();
    let mut pairs = Vec::with_capacity(ratios.len());
    let nt = typed.len() + ratios.len();
    for ((num, den), spec) in ratios.iter().zip(specs) {
        let k = spec.k;
        pairs.push((nt + drawn.len(), typed.len()));
        drawn.push((num.iter().map(|x| x / k as f64).collect(), k));
        typed.push(Column::Values(den));
    }
    let per_draw: Vec<&[f64]> = drawn.iter().map(|(v, _)| v.as_slice()).collect();
    let cfg = BootstrapConfig {
        resamples: o.resamples,
        level: o.level,
        seed: o.seed,
    };
    let (report, drawn_boots, ratio_boots) =
        bootstrap_columns_with_ratios(&typed, &per_draw, &pairs, clusters, &cfg).ok()?;
    let mut t = report.columns.into_iter();
    let mut d = drawn_boots.iter().zip(&drawn).take(n_budget);
    let aligned = cols
        .iter()
        .map(|c| match budget_k(c) {
            Some(_) => d.next().map(|(b, (_, k))| b.scaled(*k as f64)),
            None => t.next(),
        })
        .collect::<Option<Vec<_>>>()?;
    let ratio_boots = ratio_boots
        .iter()
        .zip(&drawn[n_budget..])
        .map(|(b, (_, k))| b.scaled(*k as f64))
        .collect();
    Some((aligned, ratio_boots))
}

/// Each column's [`MetricColumn::summary`]: the coded columns over one
/// code array folded together ([`PointSummary::of_coded`], the same
/// values), the others each in parallel.
fn point_summaries(columns: &[MetricColumn]) -> Vec<Option<PointSummary>> {
    let mut points: Vec<Option<PointSummary>> = columns
        .par_iter()
        .map(|c| match c.values {
            ColumnValues::Dense(_) => c.summary(),
            ColumnValues::Coded { .. } => None,
        })
        .collect();
    let coded = columns.iter().map(|c| match &c.values {
        ColumnValues::Coded { codes, table } => Some((&codes[..], &table[..])),
        ColumnValues::Dense(_) => None,
    });
    for g in coded_groups(coded) {
        let summaries = PointSummary::of_coded(g.codes, &g.tables);
        for (&j, p) in g.members.iter().zip(summaries) {
            points[j] = p;
        }
    }
    points
}

/// A column's values as the bootstrap reads them (coded stays coded).
fn column(v: &ColumnValues) -> Column<'_> {
    match v {
        ColumnValues::Dense(values) => Column::Values(values),
        ColumnValues::Coded { codes, table } => Column::Coded { codes, table },
    }
}

/// Per column: what the interval code reads from its values.
struct ColumnStats {
    clustered: Option<ClusteredSe>,
    variance: Option<VarianceEntry>,
    /// Defined values.
    n: usize,
    /// Values equal to 1.
    ones: u64,
    /// Every defined value is 0 or 1.
    binary: bool,
}

impl ColumnStats {
    fn of(col: &MetricColumn, clusters: Option<&[u64]>, summaries: &[ProblemSummary]) -> Self {
        let (mut n, mut ones, mut binary) = (0usize, 0u64, true);
        let mut count = |v: f64, times: u64| {
            if !v.is_nan() && times > 0 {
                n += times as usize;
                ones += u64::from(v == 1.0) * times;
                binary &= v == 0.0 || v == 1.0;
            }
        };
        match &col.values {
            ColumnValues::Coded { codes, table } => {
                let times = code_counts(codes, table.len());
                table.iter().zip(&times).for_each(|(&v, &t)| count(v, t));
            }
            ColumnValues::Dense(values) => values.iter().for_each(|&v| count(v, 1)),
        }
        ColumnStats {
            clustered: clusters.and_then(|cl| clustered_se(&col.values.to_vec(), cl).ok()),
            variance: variance_split(&col.metric, &col.values, summaries),
            n,
            ones,
            binary,
        }
    }
}

/// Between/within split for pass@k, from the unbiased per-problem sampling
/// variance (defined where n ≥ 2k).
fn variance_split(
    metric: &Metric,
    values: &ColumnValues,
    summaries: &[ProblemSummary],
) -> Option<VarianceEntry> {
    let Metric::PassAtK(k) = *metric else {
        return None;
    };
    // Per problem (value, sampling variance), streamed: no copy of the
    // column, no column of variances.
    let d = match values {
        // Codes number (n, c) pairs (ColumnValues): the variance is the
        // code's, read from one problem of each code.
        ColumnValues::Coded { codes, table } => {
            let variances = code_variances(k, codes, table.len(), summaries);
            let pairs = codes
                .iter()
                .map(|&c| (table[c as usize], variances[c as usize]));
            variance_decomposition_of(pairs).ok()?
        }
        ColumnValues::Dense(_) => {
            let table = SamplingVariances::new(k, summaries);
            let pairs = values
                .iter()
                .copied()
                .zip(summaries.iter().map(|p| table.get(p)));
            variance_decomposition_of(pairs).ok()?
        }
    };
    if d.n < 2 {
        return None;
    }
    Some(VarianceEntry {
        between: d.between,
        within: d.within,
        dominant: format!("{:?}", d.dominant).to_lowercase(),
        advice: d.dominant.advice().to_string(),
        n_problems: d.n as u64,
    })
}

/// How many problems have each of `n_codes` codes.
fn code_counts(codes: &[u32], n_codes: usize) -> Vec<u64> {
    let mut times = vec![0u64; n_codes];
    codes.iter().for_each(|&c| times[c as usize] += 1);
    times
}

/// The unbiased sampling variance of pass@k for each code's (n, c) pair,
/// from the first problem with that code.
fn code_variances(k: u64, codes: &[u32], n_codes: usize, summaries: &[ProblemSummary]) -> Vec<f64> {
    let mut first = vec![usize::MAX; n_codes];
    let mut left = n_codes;
    for (i, &c) in codes.iter().enumerate() {
        if left == 0 {
            break;
        }
        if first[c as usize] == usize::MAX {
            first[c as usize] = i;
            left -= 1;
        }
    }
    first
        .iter()
        .map(|&i| match summaries.get(i) {
            Some(p) => sampling_variance(k, p.n, p.c),
            None => f64::NAN,
        })
        .collect()
}

/// The unbiased sampling variance of a problem's pass@k estimate (`NaN`
/// where it has none).
fn sampling_variance(k: u64, n: u64, c: u64) -> f64 {
    let est = if k == 1 {
        pass1_sampling_variance(n, c)
    } else {
        pass_at_k_sampling_variance(n, c, k)
    };
    est.unwrap_or(f64::NAN)
}

/// Per problem, the unbiased sampling variance of its pass@k estimate. It
/// depends on (n, c) only, which repeat across problems: each distinct pair
/// is computed once, in a dense row per n (up to 4096), a map beyond.
struct SamplingVariances {
    rows: Vec<Vec<f64>>,
    big: std::collections::HashMap<(u64, u64), f64>,
}

impl SamplingVariances {
    fn new(k: u64, summaries: &[ProblemSummary]) -> SamplingVariances {
        let compute = |n: u64, c: u64| sampling_variance(k, n, c);
        let mut rows: Vec<Vec<Option<f64>>> = Vec::new();
        let mut big = std::collections::HashMap::new();
        for p in summaries {
            if p.n <= 4096 && p.c <= p.n {
                let n = p.n as usize;
                if rows.len() <= n {
                    rows.resize(n + 1, Vec::new());
                }
                if rows[n].is_empty() {
                    rows[n] = vec![None; n + 1];
                }
                rows[n][p.c as usize].get_or_insert_with(|| compute(p.n, p.c));
            } else {
                big.entry((p.n, p.c)).or_insert_with(|| compute(p.n, p.c));
            }
        }
        let rows = rows
            .into_iter()
            .map(|r| r.into_iter().map(|v| v.unwrap_or(f64::NAN)).collect())
            .collect();
        SamplingVariances { rows, big }
    }

    /// The sampling variance of a problem of [`SamplingVariances::new`].
    fn get(&self, p: &ProblemSummary) -> f64 {
        if p.n <= 4096 && p.c <= p.n {
            self.rows[p.n as usize][p.c as usize]
        } else {
            self.big[&(p.n, p.c)]
        }
    }
}

/// Dense cluster ids in order of first appearance; a problem without a
/// value is its own cluster (treated as independent).
pub(crate) fn cluster_ids(values: &[Option<&str>]) -> Vec<u64> {
    let mut map: std::collections::HashMap<&str, u64> = std::collections::HashMap::new();
    let mut next = 0u64;
    values
        .iter()
        .map(|v| {
            let fresh = |next: &mut u64| {
                *next += 1;
                *next - 1
            };
            match v {
                Some(s) => match map.get(s) {
                    Some(&id) => id,
                    None => {
                        let id = fresh(&mut next);
                        map.insert(s, id);
                        id
                    }
                },
                None => fresh(&mut next),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rollstat_core::aggregate::ColumnBuilder;
    use rollstat_core::summary::{summarize, ProblemData};
    use rollstat_core::vote::{ExactClusterer, TiePolicy};

    /// A coded column's statistics are read per code; they equal those
    /// of the same values as a dense column, problem by problem.
    #[test]
    fn coded_column_stats_equal_the_dense_ones() {
        let problems: Vec<ProblemSummary> = (0..5000u64)
            .map(|i| {
                let n = [4, 16, 7, 1][(i % 4) as usize];
                let c = (i * 7919) % (n + 1);
                let data = ProblemData::Counts { n, c };
                summarize(data, DenominatorPolicy::Requested, &ExactClusterer)
            })
            .collect();
        let builder = ColumnBuilder::new(&problems, TiePolicy::First);
        for metric in [Metric::PassAtK(1), Metric::PassAtK(2), Metric::PassPowK(4)] {
            let coded = builder.build(metric.clone());
            assert!(matches!(coded.values, ColumnValues::Coded { .. }));
            let dense = MetricColumn {
                values: ColumnValues::Dense(coded.values.to_vec()),
                ..coded.clone()
            };
            let (a, b) = (
                ColumnStats::of(&coded, None, &problems),
                ColumnStats::of(&dense, None, &problems),
            );
            assert_eq!((a.n, a.ones, a.binary), (b.n, b.ones, b.binary));
            assert_eq!(a.variance, b.variance);
            assert_eq!(a.variance.is_some(), matches!(metric, Metric::PassAtK(_)));
        }
    }
}
