//! Budget-matched rows of a comparison (docs/statistics.md §7, "Budgets"):
//! for each k of B, A is evaluated at the budget B spends. With β the mean
//! budget per rollout (the mean over problems of each problem's mean), B's
//! budget at k_B is k_B·β_B and A draws k_A = k_B·β_B / β_A rollouts; a
//! fractional k_A is the randomized policy drawing ⌊k_A⌋ or ⌈k_A⌉
//! ([`pass_at_fractional_k`]), whose expected budget is exactly B's.

use rollstat_core::aggregate::{Exclusion, Metric, MetricColumn};
use rollstat_core::estimators::pass_at_fractional_k;
use rollstat_core::summary::ProblemSummary;
use serde::{Deserialize, Serialize};

/// What a budget-matched row matched: B at `k_b` draws spends `budget`
/// per problem on average, which buys A `k_a` draws.
#[derive(Serialize, Deserialize, Debug, Clone, Copy, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct BudgetMatch {
    /// A's draw size at B's budget (fractional: the randomized policy).
    pub k_a: f64,
    /// B's draw size (the row's metric is B's, `pass@k_b`).
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
/// budgets, or A spends nothing). k_A is computed once from the point
/// estimates of both mean budgets and held fixed in the resamples.
pub(crate) fn matched_columns(
    a: &[&ProblemSummary],
    b: &[&ProblemSummary],
    ks: &[u64],
) -> Vec<MatchedColumns> {
    let (Some(beta_a), Some(beta_b)) = (mean_budget(a), mean_budget(b)) else {
        return Vec::new();
    };
    if beta_a <= 0.0 {
        return Vec::new();
    }
    ks.iter()
        .map(|&k_b| {
            let budget = k_b as f64 * beta_b;
            let k_a = budget / beta_a;
            MatchedColumns {
                matched: BudgetMatch { k_a, k_b, budget },
                a: column(a, k_a, k_b),
                b: column(b, k_b as f64, k_b),
            }
        })
        .collect()
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
        values,
        excluded: if short > 0 {
            vec![(Exclusion::TooFewRollouts, short)]
        } else {
            Vec::new()
        },
    }
}
