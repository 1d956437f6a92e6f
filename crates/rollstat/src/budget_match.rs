//! Budget-matched rows of a comparison (docs/statistics.md §7, "Budgets"):
//! for each k of B, A is evaluated at the budget B spends. With β the mean
//! budget per rollout (the mean over problems of each problem's mean), B's
//! budget at k_B is k_B·β_B and A draws k_A = k_B·β_B / β_A rollouts; a
//! fractional k_A is the randomized policy drawing ⌊k_A⌋ or ⌈k_A⌉
//! ([`pass_at_fractional_k`]), whose expected budget is exactly B's.
//! maj@k and bon@k get the same rows when both sides carry answers (scores):
//! A's value is that policy's exact expected credit, (1 − f)·M(⌊k_A⌋) +
//! f·M(⌈k_A⌉) with M(0) = 0, from the exact per-k values (the maj@k program
//! of `rollstat_core::select`, bon@k of `rollstat_core::best`).

use rollstat_core::aggregate::{ColumnBuilder, ColumnValues, Exclusion, Metric, MetricColumn};
use rollstat_core::estimators::pass_at_fractional_k;
use rollstat_core::summary::ProblemSummary;
use rollstat_core::vote::TiePolicy;
use serde::{Deserialize, Serialize};

/// What a budget-matched row matched: B at `k_b` draws spends `budget`
/// per problem on average, which buys A `k_a` draws.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetMatch {
    /// A's draw size at B's budget (fractional: the randomized policy).
    pub k_a: f64,
    /// B's draw size (the row's metric is B's: `pass@k_b`, `maj@k_b`, `bon@k_b`).
    pub k_b: u64,
    /// B's budget@k_b: k_b × B's mean budget per rollout.
    pub budget: f64,
}

/// The mean over problems of each problem's mean budget per rollout, over
/// the problems that have one.
pub(crate) fn mean_budget(problems: &[&ProblemSummary]) -> Option<f64> {
    let means: Vec<f64> = problems
        .iter()
        .filter_map(|p| p.budget.as_ref().and_then(|b| b.mean()))
        .collect();
    (!means.is_empty()).then(|| means.iter().sum::<f64>() / means.len() as f64)
}

/// One budget-matched pair of columns: A's pass at k_A and B's pass@k_B per
/// problem, with what was matched.
pub(crate) struct MatchedColumns {
    pub matched: BudgetMatch,
    pub a: MetricColumn,
    pub b: MetricColumn,
}

/// The budget-matched columns for every k of B (none when a side has no
/// budgets, or A spends nothing): pass@k_B for every k, then maj@k_B and
/// bon@k_B where `metrics` has them and both sides carry answers (scores).
/// k_A is computed once from the point estimates of both mean budgets and
/// held fixed in the resamples.
pub(crate) fn matched_columns(
    (a, b): (&[ProblemSummary], &[ProblemSummary]),
    metrics: &[Metric],
    ks: &[u64],
    tie: TiePolicy,
) -> Vec<MatchedColumns> {
    let (ra, rb): (Vec<&ProblemSummary>, Vec<&ProblemSummary>) =
        (a.iter().collect(), b.iter().collect());
    let (Some(beta_a), Some(beta_b)) = (mean_budget(&ra), mean_budget(&rb)) else {
        return Vec::new();
    };
    if beta_a <= 0.0 {
        return Vec::new();
    }
    let matches: Vec<BudgetMatch> = ks
        .iter()
        .map(|&k_b| {
            let budget = k_b as f64 * beta_b;
            BudgetMatch {
                k_a: whole_if_rounding(budget / beta_a),
                k_b,
                budget,
            }
        })
        .collect();
    let mut out: Vec<MatchedColumns> = matches
        .iter()
        .map(|&m| MatchedColumns {
            matched: m,
            a: column(&ra, m.k_a, m.k_b),
            b: column(&rb, m.k_b as f64, m.k_b),
        })
        .collect();
    for family in [Family::Maj, Family::Bon] {
        if family.carried_by(a) && family.carried_by(b) {
            out.extend(family_columns(family, (a, b), metrics, &matches, tie));
        }
    }
    out
}
/// pass at draw size `k` on every problem (`NaN` and counted where a
/// problem has fewer than ⌈k⌉ rollouts), named `pass@k_b`.
fn column(problems: &[&ProblemSummary], k: f64, k_b: u64) -> MetricColumn {
    let values: Vec<f64> = problems
        .iter()
        .map(|p| pass_at_fractional_k(p.n, p.c, k).unwrap_or(f64::NAN))
        .collect();
    let short = values.iter().filter(|v| v.is_nan()).count() as u64;
    MetricColumn {
        metric: Metric::PassAtK(k_b),
        values: ColumnValues::Dense(values),
        excluded: if short > 0 {
            vec![(Exclusion::TooFewRollouts, short)]
        } else {
            Vec::new()
        },
    }
}

/// `k` as the nearest whole number when it is one up to floating-point
/// rounding (relative 1e-9): budgets 0.1 and 0.1·7 are a ratio of 7, and
/// 7.000…1 would need an 8th rollout and the ⌈k⌉ draw's value.
///
/// Why 1e-9: budgets are never negative (the readers reject them), so the
/// two means (each problem's mean, then the mean over problems, summed in
/// order) carry a relative rounding error of at most (n + P)·2⁻⁵³ each for
/// n rollouts a problem and P problems, and k_A = k_B·β_B/β_A adds two
/// roundings: 1e-9 covers n + P up to about 4 million even in that worst
/// case (the typical error grows like √(n + P)·2⁻⁵³). Going the other way,
/// a k_A that truly lies within δ of a whole number moves A's value by at
/// most δ (it is linear in the fraction with slope M(⌈k⌉) − M(⌊k⌋) ∈ [0, 1]),
/// so rounding a real k_A ≤ 10⁴ moves the row by at most 10⁻⁵ (a
/// thousandth of a percentage point), below every printed digit.
fn whole_if_rounding(k: f64) -> f64 {
    let whole = k.round();
    if (k - whole).abs() <= 1e-9 * whole.max(1.0) {
        whole
    } else {
        k
    }
}

/// A selection metric with a draw size, matched like pass@k.
#[derive(Clone, Copy)]
enum Family {
    /// maj@k (maj@n at the requested n).
    Maj,
    /// bon@k, in the report's score order.
    Bon,
}

impl Family {
    /// Whether some problem of a side has what the metric reads.
    fn carried_by(self, problems: &[ProblemSummary]) -> bool {
        problems.iter().any(|p| match self {
            Family::Maj => p.vote.is_some(),
            Family::Bon => p.scores.is_some(),
        })
    }

    /// The metric of this family at `k` among `metrics` (B's row).
    fn find(self, metrics: &[Metric], k: u64) -> Option<&Metric> {
        metrics.iter().find(|m| {
            m.k() == Some(k)
                && match self {
                    Family::Maj => matches!(m, Metric::MajAtK(_) | Metric::MajAtN(_)),
                    Family::Bon => matches!(m, Metric::BonAtK { .. }),
                }
        })
    }

    /// The same metric at draw size `j` (A's side).
    fn at(metric: &Metric, j: u64) -> Metric {
        match metric {
            Metric::BonAtK { order, .. } => Metric::BonAtK {
                k: j,
                order: *order,
            },
            _ => Metric::MajAtK(j),
        }
    }
}

/// The budget-matched columns of one family: for every match whose k_B has
/// the family's metric, A at the fractional k_A and B at k_B.
fn family_columns(
    family: Family,
    (a, b): (&[ProblemSummary], &[ProblemSummary]),
    metrics: &[Metric],
    matches: &[BudgetMatch],
    tie: TiePolicy,
) -> Vec<MatchedColumns> {
    let found: Vec<(BudgetMatch, &Metric)> = matches
        .iter()
        .filter_map(|m| family.find(metrics, m.k_b).map(|metric| (*m, metric)))
        .collect();
    // One maj@1..K program per problem of A serves every k_A.
    let top = found
        .iter()
        .map(|(m, _)| m.k_a.ceil() as u64)
        .max()
        .unwrap_or(0);
    let cached: Vec<Metric> = found
        .iter()
        .map(|(_, metric)| Family::at(metric, top))
        .collect();
    let builder_a = ColumnBuilder::new(a, tie).with_metrics(&cached);
    let builder_b = ColumnBuilder::new(b, tie).with_metrics(metrics);
    found
        .into_iter()
        .map(|(m, metric)| MatchedColumns {
            matched: m,
            a: fractional(&builder_a, a.len(), metric, m.k_a),
            b: builder_b.build(metric.clone()),
        })
        .collect()
}

/// A's column at a fractional draw size `k`, named `metric` (B's): per
/// problem (1 − f)·M(⌊k⌋) + f·M(⌈k⌉) with f = k − ⌊k⌋ and M(0) = 0, the
/// exact expected credit of drawing ⌊k⌋ or ⌈k⌉ rollouts; a problem without
/// M(⌈k⌉) is excluded with that column's reason.
fn fractional(builder: &ColumnBuilder, n: usize, metric: &Metric, k: f64) -> MetricColumn {
    let lo = k.floor() as u64;
    let f = k - lo as f64;
    let low = (lo > 0).then(|| builder.build(Family::at(metric, lo)));
    let high = (f > 0.0).then(|| builder.build(Family::at(metric, lo + 1)));
    let at = |c: &Option<MetricColumn>, i: usize| c.as_ref().map_or(0.0, |c| c.values[i]);
    let values = (0..n)
        .map(|i| match f > 0.0 {
            true => (1.0 - f) * at(&low, i) + f * at(&high, i),
            false => at(&low, i),
        })
        .collect();
    MetricColumn {
        metric: metric.clone(),
        values: ColumnValues::Dense(values),
        excluded: high.or(low).map(|c| c.excluded).unwrap_or_default(),
    }
}
