//! [`rank()`]: many systems on the problems they share — values with
//! intervals, ranks with marginal intervals and simultaneous sets, P(best),
//! all pairs tested with Holm or BH, compact letters, the walk against #1,
//! and the best system's selection-adjusted score (docs/rank.md, schema
//! `rollstat.rank/1`).

mod document;
mod matrix;
mod suite;

pub use document::*;

use crate::error::{Error, Result};
use crate::findings::Finding;
use crate::options::{CompareOptions, MessageSink};
use crate::read::Source;
use rollstat_core::aggregate::Metric;
use rollstat_grade::GradingPolicy;
use rollstat_stats::{
    anchor_walk, bootstrap_means, cluster_bootstrap_means, compact_letters, pairwise_tests,
    rank_intervals, rng, simultaneous_rank_sets, split_sample_best, top_tier, winner_inference,
    winners_curse, BootstrapConfig, CiMethod, PAdjust, PairMethod, PairPreference,
};

/// What a ranking is computed with; every default is defined here.
#[derive(Clone)]
pub struct RankOptions {
    /// The primary metric (default `pass@1`).
    pub metric: String,
    /// The field that tells systems apart (`model`, `run`, …); `None`: one
    /// system per input file.
    pub by: Option<String>,
    /// Level of the value and rank intervals.
    pub level: f64,
    /// Significance level of the pairwise tests.
    pub alpha: f64,
    /// Holm (default) or Benjamini–Hochberg over every pair.
    pub adjust: PAdjust,
    /// Exact McNemar, or its continuity-corrected χ² form, on 0/1 values.
    pub pair_test: PairPreference,
    /// Bootstrap resamples.
    pub resamples: usize,
    /// Sign-flip permutations.
    pub permutations: usize,
    /// Seed of every random procedure.
    pub seed: u64,
    /// Field whose values cluster problems.
    pub cluster_by: Option<String>,
    /// Refuse systems scored on problems the others lack.
    pub strict: bool,
    /// Rank across benchmarks too: `subset` (the benchmarks are the
    /// problems' subset values) or `inputs` (each input is one benchmark,
    /// its systems told apart by `by` or one per file within it).
    pub suite: Option<String>,
    /// The systems are checkpoints of one run: a curve in step order (the
    /// last number of each name).
    pub order_step: bool,
    /// How rows without a verdict are graded.
    pub grading: GradingPolicy,
    /// The input format, overriding detection.
    pub source_format: Option<rollstat_formats::Format>,
    /// Reads the files through this field map (a layout no format knows).
    pub field_map: Option<crate::FieldMap>,
    /// Where messages about the reading go.
    pub messages: Option<MessageSink>,
}

impl Default for RankOptions {
    fn default() -> Self {
        let i = crate::options::IntervalOptions::default();
        RankOptions {
            metric: "pass@1".into(),
            by: None,
            level: i.level,
            alpha: 0.05,
            adjust: PAdjust::Holm,
            pair_test: PairPreference::Exact,
            resamples: i.resamples,
            permutations: CompareOptions::default().permutations,
            seed: i.seed,
            cluster_by: None,
            strict: false,
            suite: None,
            order_step: false,
            grading: GradingPolicy::default(),
            source_format: None,
            field_map: None,
            messages: None,
        }
    }
}

fn compare_options(o: &RankOptions) -> CompareOptions {
    let mut c = CompareOptions {
        grading: o.grading.clone(),
        messages: o.messages.clone(),
        source_format: o.source_format,
        field_map: o.field_map.clone(),
        ..CompareOptions::default()
    };
    c.intervals.cluster_by = o.cluster_by.clone();
    c
}

fn stat_err(e: rollstat_stats::StatsError) -> Error {
    Error::Stats(e)
}

/// Ranks the systems of `sources` on the problems they all have.
///
/// ```
/// use rollstat::rows::{CountRow, Row};
/// use rollstat::{rank::{rank, RankOptions}, Source};
/// let sys = |name: &str, cs: &[u64]| Source::Rows {
///     name: format!("{name}.jsonl"),
///     rows: cs.iter().enumerate()
///         .map(|(i, &c)| Row::from(CountRow { problem: format!("p{i}"), n: 1, c, ..Default::default() }))
///         .collect(),
/// };
/// let sources = [sys("a", &[1; 40]), sys("b", &[0; 40]), sys("c", &[1, 0].repeat(20))];
/// let mut o = RankOptions::default();
/// o.resamples = 500;
/// let r = rank(&sources, &o).unwrap();
/// assert_eq!(r.systems[0].name, "a");
/// assert_eq!(r.systems.iter().map(|s| s.letters.as_str()).collect::<Vec<_>>(), ["a", "b", "c"]);
/// ```
pub fn rank(sources: &[Source], o: &RankOptions) -> Result<Ranking> {
    let metric: Metric = o
        .metric
        .parse()
        .map_err(|e: rollstat_core::catalogue::UnknownKey| {
            Error::invalid("metric", e.to_string())
        })?;
    let in_unit = |x: f64| x > 0.0 && x < 1.0;
    for (name, x) in [("alpha", o.alpha), ("level", o.level)] {
        if !in_unit(x) {
            return Err(Error::invalid(name, format!("{x} is not in (0, 1)")));
        }
    }
    if let Some(f) = o
        .suite
        .as_deref()
        .filter(|f| !matches!(*f, "subset" | "inputs"))
    {
        return Err(Error::invalid(
            "suite",
            format!("'{f}': the benchmarks of a suite are the problems' `subset` values (subset) or the inputs, one benchmark each (inputs)"),
        ));
    }
    let co = compare_options(o);
    let systems = match o.suite.as_deref() {
        Some("inputs") => matrix::read_suite_inputs(sources, o.by.as_deref(), &metric, &co)?,
        _ => matrix::read_systems(sources, o.by.as_deref(), &metric, &co)?,
    };
    let m = matrix::matrix(systems, o.cluster_by.is_some(), o.strict)?;
    build(m, o)
}

fn build(m: matrix::Matrix, o: &RankOptions) -> Result<Ranking> {
    let cl = m.clusters.as_deref();
    let resamples = o.resamples as u64;
    let ri = rank_intervals(&m.scores, cl, resamples, o.level, o.seed).map_err(stat_err)?;
    let sets =
        simultaneous_rank_sets(&m.scores, cl, resamples, o.level, o.seed).map_err(stat_err)?;
    // Clustered problems are tested as whole clusters: the sign flips act
    // on per-cluster sums (a cluster's problems flip together).
    let units = test_units(&m);
    let means: Vec<f64> = m
        .scores
        .iter()
        .map(|r| r.iter().sum::<f64>() / r.len() as f64)
        .collect();
    let mut pairs =
        pairwise_tests(&units, o.pair_test, o.adjust, o.permutations, o.seed).map_err(stat_err)?;
    for p in &mut pairs {
        p.diff = means[p.i] - means[p.j];
    }
    let separated = |i: usize, j: usize| {
        pairs
            .iter()
            .find(|p| (p.i, p.j) == (i.min(j), i.max(j)))
            .is_some_and(|p| p.p_adjusted <= o.alpha)
    };
    let letters = compact_letters(&means, &separated);
    let tier = top_tier(&means, &separated);
    let cis = value_intervals(&m, o)?;
    let order = best_first(&ri.rank, &m.systems);
    let systems: Vec<SystemRow> = order
        .iter()
        .map(|&i| SystemRow {
            name: m.systems[i].clone(),
            value: means[i],
            ci: cis[i],
            rank: ri.rank[i],
            rank_interval: [ri.lower[i], ri.upper[i]],
            rank_set: [sets[i].0, sets[i].1],
            p_best: ri.p_best[i],
            letters: letters[i].clone(),
            dropped: m.dropped[i],
            rollouts: m.rollouts[i],
            inputs: m.inputs[i].clone(),
        })
        .collect();
    let pos = |i: usize| order.iter().position(|&x| x == i).unwrap_or(usize::MAX);
    let pair_rows = pair_rows(&m, &pairs, o.alpha, &pos);
    // The walk and the best in document order, so that a tie for first
    // names the same system everywhere (the first by name).
    let (anchor_rows, first_separated_rank) = walk(&m, &units, &order, &means, &ri.rank, o)?;
    let tier_names: Vec<String> = order
        .iter()
        .filter(|i| tier.contains(i))
        .map(|&i| m.systems[i].clone())
        .collect();
    Ok(Ranking {
        schema: RANK_SCHEMA.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        settings: settings(o, pairs.first().map(|p| p.method)),
        n_problems: m.problems.len() as u64,
        top_tier_line: tier_line(&tier_names, m.systems.len(), pairs.len(), o),
        top_tier: tier_names.clone(),
        anchor_walk: anchor_rows,
        first_separated_rank,
        best: best_row(&m, order[0], means[order[0]], o)?,
        findings: findings(&m),
        suite: match &o.suite {
            Some(field) => Some(suite::ranks(&m, &order, field, o.alpha)?),
            None => None,
        },
        curve: o.order_step.then(|| suite::curve(&systems, &tier_names)),
        pairs: pair_rows,
        systems,
    })
}

/// The walk down the ranks against #1, in document order so that a tie for
/// first names the same system everywhere (the first by name); the first
/// rank separated at p ≤ α, as the pairs are.
fn walk(
    m: &matrix::Matrix,
    units: &[Vec<f64>],
    order: &[usize],
    means: &[f64],
    rank: &[u32],
    o: &RankOptions,
) -> Result<(Vec<AnchorRow>, Option<u32>)> {
    let sorted: Vec<Vec<f64>> = order.iter().map(|&i| units[i].clone()).collect();
    let walk =
        anchor_walk(&sorted, o.pair_test, o.alpha, o.permutations, o.seed).map_err(stat_err)?;
    let rows = walk
        .steps
        .iter()
        .map(|&(k, p)| AnchorRow {
            system: m.systems[order[k]].clone(),
            diff: means[order[0]] - means[order[k]],
            p,
        })
        .collect();
    let first = walk
        .steps
        .iter()
        .find(|&&(_, p)| p <= o.alpha)
        .map(|&(k, _)| rank[order[k]]);
    Ok((rows, first))
}

/// The best system's naive score, its hybrid conditional estimate and
/// interval, the bootstrap bias correction and the split-sample check.
fn best_row(m: &matrix::Matrix, best: usize, naive: f64, o: &RankOptions) -> Result<BestRow> {
    let wc = winners_curse(&m.scores, m.clusters.as_deref(), o.resamples as u64, o.seed)
        .map_err(stat_err)?;
    // The statistics crate takes the lowest index among tied means as the
    // winner: put the document's best (the first by name) first.
    let mut rows: Vec<Vec<f64>> = vec![m.scores[best].clone()];
    rows.extend(
        (0..m.scores.len())
            .filter(|&i| i != best)
            .map(|i| m.scores[i].clone()),
    );
    let hybrid = winner_inference(&rows, m.clusters.as_deref(), o.level).map_err(stat_err)?;
    Ok(BestRow {
        system: m.systems[best].clone(),
        naive,
        adjusted: hybrid.estimate,
        adjusted_ci: [hybrid.lower, hybrid.upper],
        method: hybrid.method.to_string(),
        bootstrap_adjusted: naive - (wc.naive - wc.adjusted),
        split: split(m, o.seed),
    })
}

/// The units the pairwise tests flip: problems, or per-cluster sums of
/// their values (clusters in order of first appearance).
fn test_units(m: &matrix::Matrix) -> Vec<Vec<f64>> {
    let Some(cl) = &m.clusters else {
        return m.scores.clone();
    };
    let k = cl.iter().copied().max().map_or(0, |x| x as usize + 1);
    m.scores
        .iter()
        .map(|row| {
            let mut sums = vec![0.0; k];
            for (v, &c) in row.iter().zip(cl) {
                sums[c as usize] += v;
            }
            sums
        })
        .collect()
}

/// The split-sample check of the best (None below four units).
fn split(m: &matrix::Matrix, seed: u64) -> Option<SplitRow> {
    let units = m
        .clusters
        .as_ref()
        .map_or(m.problems.len(), |c| crate::intervals::distinct_count(c));
    if units < 4 {
        return None;
    }
    let s = split_sample_best(&m.scores, m.clusters.as_deref(), seed).ok()?;
    Some(SplitRow {
        system: m.systems[s.best].clone(),
        selection: s.selection_mean,
        held_out: s.held_out_mean,
        held_out_problems: s.held_out_problems as u64,
    })
}

/// System indices best first (rank, then name).
fn best_first(rank: &[u32], names: &[String]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..rank.len()).collect();
    order.sort_by(|&a, &b| rank[a].cmp(&rank[b]).then_with(|| names[a].cmp(&names[b])));
    order
}

/// Each system's bootstrap percentile interval of its mean.
fn value_intervals(
    m: &matrix::Matrix,
    o: &RankOptions,
) -> Result<Vec<Option<rollstat_stats::Interval>>> {
    if m.problems.len() < 2 {
        return Ok(vec![None; m.systems.len()]);
    }
    let cols: Vec<&[f64]> = m.scores.iter().map(Vec::as_slice).collect();
    let cfg = BootstrapConfig {
        resamples: o.resamples,
        level: o.level,
        seed: o.seed,
    };
    let rep = match &m.clusters {
        Some(c) => cluster_bootstrap_means(&cols, c, &cfg),
        None => bootstrap_means(&cols, &cfg),
    }
    .map_err(stat_err)?;
    Ok(rep
        .columns
        .iter()
        .map(|c| Some(c.interval(CiMethod::Percentile)))
        .collect())
}

fn method_name(m: PairMethod) -> &'static str {
    match m {
        PairMethod::McNemarExact => "mcnemar-exact",
        PairMethod::McNemarChi2Corrected => "mcnemar-chi2-corrected",
        PairMethod::SignFlipExact => "sign-flip-exact",
        PairMethod::SignFlipRandom => "sign-flip-random",
    }
}

fn pair_rows(
    m: &matrix::Matrix,
    pairs: &[rollstat_stats::PairTest],
    alpha: f64,
    pos: &dyn Fn(usize) -> usize,
) -> Vec<PairRow> {
    let mut rows: Vec<(usize, usize, PairRow)> = pairs
        .iter()
        .map(|p| {
            let (a, b, diff) = if pos(p.i) <= pos(p.j) {
                (p.i, p.j, p.diff)
            } else {
                (p.j, p.i, -p.diff)
            };
            let row = PairRow {
                a: m.systems[a].clone(),
                b: m.systems[b].clone(),
                diff,
                p: p.p,
                p_adjusted: p.p_adjusted,
                method: method_name(p.method).into(),
                separated: p.p_adjusted <= alpha,
            };
            (pos(a), pos(b), row)
        })
        .collect();
    rows.sort_by_key(|(a, b, _)| (*a, *b));
    rows.into_iter().map(|(_, _, r)| r).collect()
}

fn tier_line(tier: &[String], systems: usize, pairs: usize, o: &RankOptions) -> String {
    let adj = if o.adjust == PAdjust::Holm {
        "Holm"
    } else {
        "BH"
    };
    match tier.len() {
        1 => format!(
            "#1 ({}) is separable from every other system at α = {} ({adj} over {pairs} pairs)",
            tier[0], o.alpha
        ),
        n if n == systems => format!(
            "no system is separable from #1 at α = {} ({adj} over {pairs} pairs)",
            o.alpha
        ),
        n => format!(
            "the top {n} are not separable from #1 at α = {} ({adj} over {pairs} pairs): {}",
            o.alpha,
            tier.join(", ")
        ),
    }
}

fn settings(o: &RankOptions, method: Option<PairMethod>) -> RankSettings {
    RankSettings {
        metric: o.metric.clone(),
        level: o.level,
        alpha: o.alpha,
        adjust: o.adjust.name().into(),
        pair_test: method.map_or("none", method_name).into(),
        resamples: o.resamples as u64,
        permutations: o.permutations as u64,
        seed: o.seed,
        rng: rng::RNG_SCHEME.into(),
        cluster_by: o.cluster_by.clone(),
        by: o.by.clone(),
    }
}

/// Systems that lose problems to the shared set.
fn findings(m: &matrix::Matrix) -> Vec<Finding> {
    m.systems
        .iter()
        .zip(&m.dropped)
        .filter(|(_, d)| **d > 0)
        .map(|(s, d)| Finding::Text {
            message: format!(
                "{s}: {d} problems without a value on every system are left out; every number is over the {} shared problems",
                m.problems.len()
            ),
        })
        .collect()
}
