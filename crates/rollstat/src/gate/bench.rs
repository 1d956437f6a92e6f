//! One benchmark's row: the primary metric's paired difference, the
//! one-sided test for degradation, flips against their floor, the status
//! against the margin and the flipped problems.

use super::document::{
    BenchmarkRow, BenchmarkStatus, DegradationTest, FlippedProblem, FlippedSide, Flips, Margin,
    TestMethod, Tier,
};
use crate::compare::{self, Matched, Plan, Population, SideData};
use crate::error::{Error, Result};
use crate::findings::{Finding, SideLabel};
use rollstat_core::aggregate::{ColumnBuilder, Metric};
use rollstat_core::summary::{ProblemData, ProblemSummary};
use rollstat_core::vote::TiePolicy;
use rollstat_io::CollectedProblem;
use rollstat_stats::flips::{degradation_p, excess_flip_permutation, flip_summary};
use rollstat_stats::suite::sign_flip_one_sided;
use rollstat_stats::{dist, problems_needed, Interval};

/// What every benchmark is computed with.
pub(crate) struct Context<'a> {
    pub metric: &'a Metric,
    pub plan: Plan,
    pub alpha: f64,
    pub mid_p: bool,
    pub clustered: bool,
    pub flips_listed: usize,
    pub tie: TiePolicy,
}

/// A benchmark to compute: its declaration and both sides' problems.
pub(crate) struct BenchInput {
    pub name: String,
    pub tier: Tier,
    pub margin: (f64, Option<f64>),
    pub a: Option<SideData>,
    pub b: Option<SideData>,
}

/// What the suite needs of a benchmark beyond its row.
pub(crate) struct BenchStats {
    /// Per-unit drops A − B (per problem, or per cluster when clustered).
    pub drops: Vec<f64>,
    /// Problems behind `drops` (more than its length when clustered): the
    /// benchmark's mean drop is Σ drops / problems.
    pub n_problems: usize,
    /// (a_only, b_only) when every unit is one 0/1 outcome per side.
    pub discordant: Option<(u64, u64)>,
}

/// A benchmark's row, the suite's inputs and its findings.
pub(crate) type Computed = (BenchmarkRow, Option<BenchStats>, Vec<Finding>);

pub(crate) fn compute(input: BenchInput, ctx: &Context) -> Result<Computed> {
    let (a, b) = match (input.a, input.b) {
        (Some(a), Some(b)) if !a.problems.is_empty() && !b.problems.is_empty() => (a, b),
        (a, b) => return Ok(missing(&input.name, input.tier, input.margin, a, b)),
    };
    let m = compare::match_problems(&a, &b).map_err(|e| bench_error(&input.name, e))?;
    let (sa, sb) = compare::matched_summaries(&a, &b, &m);
    let clusters = ctx
        .clustered
        .then(|| compare::matched_clusters(&a, &b, &m).0);
    let values = metric_values(ctx, &sa, &sb, &input.name)?;
    let row = paired(ctx, &sa, &sb, clusters.as_deref(), &input.name)?;
    let margin = margin_used(input.margin, row.a);
    let (stats, test) = degradation(ctx, &values, clusters.as_deref())?;
    let flips = flips(ctx, &sa, &sb)?;
    let (drop_bounds, interval_method) = drop_bounds(&row, &stats, clusters.as_deref(), ctx.alpha);
    let status = status(drop_bounds, margin.used);
    let (flipped, n_flipped) = flipped(&a, &b, &m, (&sa, &sb), ctx.flips_listed);
    let mut row_out = BenchmarkRow {
        name: input.name.clone(),
        tier: input.tier,
        weight: 0.0,
        status,
        margin,
        n_problems: m.pairs.len() as u64,
        only_a: m.only_a.clone(),
        only_b: m.only_b.clone(),
        n_a: sa.iter().map(|p| p.n_arrived).max().unwrap_or(0),
        n_b: sb.iter().map(|p| p.n_arrived).max().unwrap_or(0),
        a: row.a,
        b: row.b,
        delta: row.delta,
        stderr: row.stderr,
        // The interval whose ends are the one-sided bounds the status reads
        // (two-sided at 1 − 2α), so a bar never crosses a margin it passes.
        ci: drop_bounds.map(|d| Interval {
            lower: 0.0 - d.upper,
            upper: 0.0 - d.lower,
        }),
        interval_method: interval_method.into(),
        drop_bounds,
        test: Some(test),
        flips: Some(flips),
        problems_needed: None,
        flipped,
        n_flipped,
        inputs_a: a.inputs.clone(),
        inputs_b: b.inputs.clone(),
    };
    row_out.problems_needed = needed(&row_out, ctx.alpha);
    let mut found = findings(&input.name, &a, &b, &m, &row_out);
    if interval_method == "bootstrap" {
        found.extend(interval_advice(&input.name, &row_out, clusters.as_deref()));
    }
    Ok((row_out, Some(stats), found))
}

fn bench_error(name: &str, e: Error) -> Error {
    Error::input(format!("benchmark '{name}': {e}"))
}

fn missing(
    name: &str,
    tier: Tier,
    margin: (f64, Option<f64>),
    a: Option<SideData>,
    b: Option<SideData>,
) -> Computed {
    let empty = |s: &Option<SideData>| s.as_ref().is_none_or(|s| s.problems.is_empty());
    let side = if empty(&a) {
        SideLabel::A
    } else {
        SideLabel::B
    };
    let row = BenchmarkRow {
        name: name.to_string(),
        tier,
        weight: 0.0,
        status: BenchmarkStatus::Missing,
        margin: Margin {
            absolute: margin.0,
            relative: margin.1,
            used: margin.0,
        },
        n_problems: 0,
        only_a: Vec::new(),
        only_b: Vec::new(),
        n_a: 0,
        n_b: 0,
        a: f64::NAN,
        b: f64::NAN,
        delta: f64::NAN,
        stderr: None,
        ci: None,
        interval_method: "bootstrap".into(),
        drop_bounds: None,
        test: None,
        flips: None,
        problems_needed: None,
        flipped: Vec::new(),
        n_flipped: 0,
        inputs_a: a.map(|s| s.inputs).unwrap_or_default(),
        inputs_b: b.map(|s| s.inputs).unwrap_or_default(),
    };
    let f = Finding::BenchmarkMissing {
        benchmark: name.to_string(),
        side,
    };
    (row, None, vec![f])
}

/// The margin used: the absolute one, or the relative one × A when it is
/// smaller.
fn margin_used((absolute, relative): (f64, Option<f64>), a: f64) -> Margin {
    let used = match relative {
        Some(r) if a.is_finite() => absolute.min(r * a),
        _ => absolute,
    };
    Margin {
        absolute,
        relative,
        used,
    }
}

/// The one-sided bounds of the drop A − B the status reads, and how B − A's
/// interval was computed (`tango-score` or `bootstrap`).
fn drop_bounds(
    row: &crate::compare::Row,
    stats: &BenchStats,
    clusters: Option<&[u64]>,
    alpha: f64,
) -> (Option<Interval>, &'static str) {
    let (interval, method) = match score_interval(stats, alpha) {
        Some(i) => (Some(i), "tango-score"),
        None => (usable_bounds(row, clusters), "bootstrap"),
    };
    let negated = interval.map(|i| Interval {
        lower: 0.0 - i.upper,
        upper: 0.0 - i.lower,
    });
    (negated, method)
}

/// B − A's interval with one-sided 1 − α ends from the discordant counts,
/// when every problem has one 0/1 value a side (and no clusters): Tango's
/// score interval, which keeps its level at a few problems and does not
/// collapse to a point when no problem is discordant, as the bootstrap
/// over problems does (docs/gate.md).
fn score_interval(stats: &BenchStats, alpha: f64) -> Option<Interval> {
    let (a_only, b_only) = stats.discordant?;
    let n = stats.n_problems as u64;
    rollstat_stats::tango_paired_interval(b_only, a_only, n, 1.0 - 2.0 * alpha).ok()
}

/// The row's one-sided bounds when they can be read: an SE, and two or
/// more clusters when clustered (one cluster resamples to a point).
fn usable_bounds(row: &crate::compare::Row, clusters: Option<&[u64]>) -> Option<Interval> {
    let distinct = |c: &[u64]| {
        let mut v = c.to_vec();
        v.sort_unstable();
        v.dedup();
        v.len()
    };
    let enough = clusters.is_none_or(|c| distinct(c) >= 2);
    (row.stderr.is_some_and(|se| se > 0.0 || row.n_problems >= 2) && enough)
        .then_some(row.bounds)
        .flatten()
}

/// PASS when the drop's upper bound is within the margin, BREACH when its
/// lower bound is beyond it, else INSUFFICIENT.
pub(crate) fn status(drop_bounds: Option<Interval>, margin: f64) -> BenchmarkStatus {
    match drop_bounds {
        Some(d) if d.upper <= margin => BenchmarkStatus::Pass,
        Some(d) if d.lower > margin => BenchmarkStatus::Breach,
        _ => BenchmarkStatus::Insufficient,
    }
}

/// Per-problem values of the primary metric on both sides (NaN where a
/// side has none).
fn metric_values(
    ctx: &Context,
    sa: &[ProblemSummary],
    sb: &[ProblemSummary],
    name: &str,
) -> Result<Vec<(f64, f64)>> {
    let col = |s: &[ProblemSummary]| {
        ColumnBuilder::new(s, ctx.tie)
            .with_metrics(std::slice::from_ref(ctx.metric))
            .build(ctx.metric.clone())
    };
    let (ca, cb) = (col(sa), col(sb));
    let pairs: Vec<(f64, f64)> = (0..ca.values.len())
        .map(|i| (ca.values[i], cb.values[i]))
        .collect();
    if pairs.iter().all(|(x, y)| x.is_nan() || y.is_nan()) {
        return Err(Error::input(format!(
            "benchmark '{name}': no problem has a value of {} on both sides (its k may exceed the rollouts per problem)",
            ctx.metric
        )));
    }
    Ok(pairs)
}

/// The paired row of the primary metric, as compare computes it.
fn paired(
    ctx: &Context,
    sa: &[ProblemSummary],
    sb: &[ProblemSummary],
    clusters: Option<&[u64]>,
    name: &str,
) -> Result<crate::compare::Row> {
    let pop = Population {
        group: None,
        a: sa.iter().collect(),
        b: sb.iter().collect(),
        clusters: clusters.map(<[u64]>::to_vec),
        budget_ks: None,
    };
    let (rows, _) = compare::rows_for(&pop, std::slice::from_ref(ctx.metric), ctx.tie, &ctx.plan);
    rows.into_iter()
        .next()
        .ok_or_else(|| Error::input(format!("benchmark '{name}': {} has no row", ctx.metric)))
}

/// The one-sided test for degradation: exact McNemar (or its mid-p) when
/// every problem has one 0/1 value per side and problems are not
/// clustered; else the sign-flip test on per-unit drops.
fn degradation(
    ctx: &Context,
    values: &[(f64, f64)],
    clusters: Option<&[u64]>,
) -> Result<(BenchStats, DegradationTest)> {
    let kept: Vec<(usize, f64)> = values
        .iter()
        .enumerate()
        .filter(|(_, (x, y))| !x.is_nan() && !y.is_nan())
        .map(|(i, (x, y))| (i, x - y))
        .collect();
    let binary = values
        .iter()
        .filter(|(x, y)| !x.is_nan() && !y.is_nan())
        .all(|&(x, y)| (x == 0.0 || x == 1.0) && (y == 0.0 || y == 1.0));
    let drops: Vec<f64> = match clusters {
        Some(cl) => cluster_sums(&kept, cl),
        None => kept.iter().map(|&(_, d)| d).collect(),
    };
    let z = z_of(&drops);
    if binary && clusters.is_none() {
        let a_only = drops.iter().filter(|&&d| d > 0.0).count() as u64;
        let b_only = drops.iter().filter(|&&d| d < 0.0).count() as u64;
        let method = if ctx.mid_p {
            TestMethod::McnemarMidP
        } else {
            TestMethod::McnemarExact
        };
        let p = degradation_p(a_only, b_only, ctx.mid_p);
        let stats = BenchStats {
            drops,
            n_problems: kept.len(),
            discordant: Some((a_only, b_only)),
        };
        return Ok((stats, DegradationTest { method, p, z }));
    }
    let sf = sign_flip_one_sided(&drops, ctx.plan.permutations, ctx.plan.boot.seed)
        .map_err(|e| Error::input(format!("sign-flip test: {e}")))?;
    let method = if sf.exact {
        TestMethod::SignFlipExact
    } else {
        TestMethod::SignFlipRandom
    };
    let test = DegradationTest { method, p: sf.p, z };
    Ok((
        BenchStats {
            drops,
            n_problems: kept.len(),
            discordant: None,
        },
        test,
    ))
}

/// Σd/√Σd²: (b − c)/√(b + c) on 0/±1 drops; None when every drop is 0.
fn z_of(d: &[f64]) -> Option<f64> {
    let ss: f64 = d.iter().map(|x| x * x).sum();
    (ss > 0.0).then(|| d.iter().sum::<f64>() / ss.sqrt())
}

/// Per-cluster sums of the drops, in the order clusters first appear.
fn cluster_sums(kept: &[(usize, f64)], clusters: &[u64]) -> Vec<f64> {
    let mut order: Vec<u64> = Vec::new();
    let mut sums: std::collections::HashMap<u64, f64> = std::collections::HashMap::new();
    for &(i, d) in kept {
        let c = clusters[i];
        if !sums.contains_key(&c) {
            order.push(c);
        }
        *sums.entry(c).or_insert(0.0) += d;
    }
    order.iter().map(|c| sums[c]).collect()
}

/// Flips against their floor, from each problem's correct counts.
fn flips(ctx: &Context, sa: &[ProblemSummary], sb: &[ProblemSummary]) -> Result<Flips> {
    let counts: Vec<(u64, u64, u64, u64)> = sa
        .iter()
        .zip(sb)
        .filter(|(a, b)| a.n > 0 && b.n > 0)
        .map(|(a, b)| (a.c, a.n, b.c, b.n))
        .collect();
    let f = flip_summary(&counts).map_err(|e| Error::input(format!("flips: {e}")))?;
    // The excess is defined on problems with two or more rollouts a side.
    let defined = counts.iter().filter(|c| c.1 >= 2 && c.3 >= 2).count();
    let excess_ci = match (f.excess, f.excess_se) {
        (Some(e), Some(se)) if defined >= 2 => {
            let t = dist::t_quantile(1.0 - ctx.alpha / 2.0, (defined - 1) as f64);
            Some(Interval {
                lower: e - t * se,
                upper: e + t * se,
            })
        }
        _ => None,
    };
    let excess_p = match f.excess {
        Some(_) => Some(
            excess_flip_permutation(&counts, ctx.plan.permutations, ctx.plan.boot.seed)
                .map_err(|e| Error::input(format!("excess-flip test: {e}")))?
                .p,
        ),
        None => None,
    };
    Ok(Flips {
        a_only: f.a_only,
        b_only: f.b_only,
        rate: f.flip_rate,
        floor_a: f.floor_a,
        floor_b: f.floor_b,
        floor: f.floor,
        excess: f.excess,
        excess_ci,
        excess_p,
        single_draw: f.single_draw,
    })
}

/// The problems whose correct fraction differs, largest drop first (B's
/// losses, then its gains; ties by name), at most `limit`; and how many
/// there are.
fn flipped(
    a: &SideData,
    b: &SideData,
    m: &Matched,
    (sa, sb): (&[ProblemSummary], &[ProblemSummary]),
    limit: usize,
) -> (Vec<FlippedProblem>, u64) {
    let frac = |s: &ProblemSummary| {
        if s.n == 0 {
            f64::NAN
        } else {
            s.c as f64 / s.n as f64
        }
    };
    let mut diff: Vec<(usize, f64)> = (0..m.pairs.len())
        .map(|k| (k, frac(&sa[k]) - frac(&sb[k])))
        .filter(|(_, d)| *d != 0.0 && !d.is_nan())
        .collect();
    let total = diff.len() as u64;
    let name = |k: usize| compare::shown(&a.problems[m.pairs[k].0]);
    // Largest drop first: the problems B lost, then those it gained.
    diff.sort_by(|x, y| y.1.total_cmp(&x.1).then_with(|| name(x.0).cmp(&name(y.0))));
    let listed = diff
        .into_iter()
        .take(limit)
        .map(|(k, d)| {
            let (i, j) = m.pairs[k];
            FlippedProblem {
                problem: name(k),
                drop: d,
                a: flipped_side(&a.problems[i], &sa[k]),
                b: flipped_side(&b.problems[j], &sb[k]),
            }
        })
        .collect();
    (listed, total)
}

fn flipped_side(p: &CollectedProblem, s: &ProblemSummary) -> FlippedSide {
    let answers = match &p.data {
        ProblemData::Rollouts(t) => (0..t.len())
            .map(|i| match t.get(i).answer.to_answer() {
                rollstat_core::summary::Answer::Text(x) => Some(x),
                _ => None,
            })
            .collect(),
        ProblemData::Counts { .. } => Vec::new(),
    };
    FlippedSide {
        c: s.c,
        n: s.n,
        answers,
        responses: Vec::new(),
    }
}

/// With INSUFFICIENT: problems for the bound to clear the margin at 80%
/// power, at the observed drop and per-problem variance (one-sided α).
fn needed(row: &BenchmarkRow, alpha: f64) -> Option<u64> {
    if row.status != BenchmarkStatus::Insufficient {
        return None;
    }
    let se = row.stderr?;
    let gap = (row.margin.used + row.delta).abs();
    let variance = se * se * row.n_problems as f64;
    if gap.is_nan() || gap <= 0.0 || variance.is_nan() || variance <= 0.0 {
        return None;
    }
    problems_needed(variance, gap, 2.0 * alpha, 0.8)
        .ok()
        .map(|n| n.ceil() as u64)
}

/// Few problems (or clusters) for a bootstrap interval: the percentile
/// bootstrap under-covers below about 300 problems (docs/statistics.md
/// §2), so a PASS there is weaker than its level says.
fn interval_advice(name: &str, row: &BenchmarkRow, clusters: Option<&[u64]>) -> Vec<Finding> {
    let (units, what) = match clusters {
        Some(c) => (crate::intervals::distinct_count(c), "clusters"),
        None => (row.n_problems as usize, "problems"),
    };
    let few = if clusters.is_some() { 30 } else { 300 };
    if units >= few || row.status == BenchmarkStatus::Missing {
        return Vec::new();
    }
    let message = format!(
        "B − A's bootstrap interval rests on {units} {what} (< {few}) and under-covers: its status is weaker than the stated level"
    );
    vec![Finding::Benchmark {
        benchmark: name.to_string(),
        finding: Box::new(Finding::IntervalMethod {
            message,
            suggestion: None,
        }),
    }]
}

/// Unpaired problems and unequal rollouts, named by benchmark.
fn findings(
    name: &str,
    a: &SideData,
    b: &SideData,
    m: &Matched,
    row: &BenchmarkRow,
) -> Vec<Finding> {
    let mut out = Vec::new();
    if !m.only_a.is_empty() || !m.only_b.is_empty() {
        out.push(Finding::Unpaired {
            only_a: m.only_a.clone(),
            only_b: m.only_b.clone(),
            matched: m.pairs.len() as u64,
        });
    }
    if row.n_a != row.n_b {
        out.push(Finding::UnequalRollouts {
            max_a: row.n_a,
            max_b: row.n_b,
        });
    }
    let bad = a.n_bad_lines + b.n_bad_lines;
    if bad > 0 {
        out.push(Finding::BadRows { n: bad as u64 });
    }
    out.into_iter()
        .map(|f| Finding::Benchmark {
            benchmark: name.to_string(),
            finding: Box::new(f),
        })
        .collect()
}
