//! Budgets: which field is used, the health block's budget distribution,
//! and the cost metrics (cost_of_pass@k and its kin), ratios of two means
//! bootstrapped from the same resamples as every metric
//! (docs/statistics.md §7, "Budgets").

use crate::document::{BudgetHealth, FrontierPoint, GroupReport, Interval, MetricEntry, Ordered};
use crate::options::{Budget, IntervalMethod, IntervalOptions};
use rollstat_core::aggregate::{Metric, MetricColumn};
use rollstat_core::catalogue::{MetricKey, Unit};
use rollstat_core::summary::{DenominatorPolicy, ProblemSummary};
use rollstat_stats::{t_interval, CiMethod, ColumnBootstrap};

/// The budget field of a report and whether its metrics are computed.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct BudgetUse {
    pub field: String,
    pub used: bool,
}

/// Decides the budget of a report: with [`Budget::Auto`] the budgets are
/// kept only when every rollout of every problem carries one (otherwise
/// they are dropped from the summaries, and health says how many were
/// missing); a named field is used as given. `None` when no field was read
/// or no rollout carries one.
pub(crate) fn settle(summaries: &mut [ProblemSummary], budget: &Budget) -> Option<BudgetUse> {
    let field = budget.field()?.to_string();
    if !summaries.iter().any(|p| p.budget.is_some()) {
        return None;
    }
    let complete = summaries
        .iter()
        .all(|p| p.budget.as_ref().is_some_and(|b| b.n_missing == 0) || p.n == 0);
    let used = complete || *budget != Budget::Auto;
    Some(BudgetUse { field, used })
}

/// Whether budget metrics are computed for these summaries.
pub(crate) fn budget_metrics(ks: &[u64], budget: Option<&BudgetUse>) -> Vec<Metric> {
    match budget {
        Some(b) if b.used => ks.iter().map(|&k| Metric::BudgetAtK(k)).collect(),
        _ => Vec::new(),
    }
}

/// The budget part of a population's health.
pub(crate) fn budget_health(summaries: &[ProblemSummary], b: &BudgetUse) -> BudgetHealth {
    let mut values: Vec<f64> = Vec::new();
    let (mut n_missing, mut without) = (0u64, 0u64);
    let (mut n_correct, mut sum_correct) = (0u64, 0.0f64);
    for p in summaries {
        match p.budget.as_deref().filter(|x| !x.values.is_empty()) {
            Some(x) => {
                values.extend_from_slice(&x.values);
                n_missing += x.n_missing;
                n_correct += x.n_correct;
                sum_correct += x.sum_correct;
            }
            None => {
                without += 1;
                n_missing += p.n;
            }
        }
    }
    let correlation = point_biserial(&values, n_correct, sum_correct);
    let (min, median, p90, max) = quantiles(&mut values);
    BudgetHealth {
        field: b.field.clone(),
        used: b.used,
        n_rollouts: values.len() as u64,
        n_missing,
        n_problems_without: without,
        min,
        median,
        p90,
        max,
        correlation_with_correct: correlation,
    }
}

/// Pearson correlation of x with a 0/1 variable that is 1 on `n1` of the
/// values, whose sum is `s1`.
fn point_biserial(x: &[f64], n1: u64, s1: f64) -> Option<f64> {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    let var = x.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / n;
    let p = n1 as f64 / n;
    let cov = s1 / n - mean * p;
    let r = cov / (var * p * (1.0 - p)).sqrt();
    r.is_finite().then_some(r)
}

/// Min, median, p90 and max (type 7), by selection rather than a sort.
fn quantiles(v: &mut [f64]) -> (Option<f64>, Option<f64>, Option<f64>, Option<f64>) {
    if v.is_empty() {
        return (None, None, None, None);
    }
    let q = |v: &mut [f64], p: f64| {
        let h = (v.len() - 1) as f64 * p;
        let lo = h.floor() as usize;
        let (_, &mut a, rest) = v.select_nth_unstable_by(lo, f64::total_cmp);
        let frac = h - lo as f64;
        match rest.iter().copied().min_by(f64::total_cmp) {
            Some(b) if frac > 0.0 => a + frac * (b - a),
            _ => a,
        }
    };
    let min = v.iter().copied().min_by(f64::total_cmp);
    let max = v.iter().copied().max_by(f64::total_cmp);
    (min, Some(q(v, 0.5)), Some(q(v, 0.9)), max)
}

/// A cost metric: budget@k over a success metric at the same k, as
/// indices into a population's columns.
pub(crate) struct RatioSpec {
    /// The key (`cost_of_pass@4`).
    pub name: String,
    /// The success metric the budget is divided by (pass@4).
    pub success_metric: Metric,
    pub k: u64,
    pub budget: usize,
    pub success: usize,
}

/// The cost metrics of these columns: for each budget@k, the success
/// metrics at the same k (pass@k, maj@k, bon@k) that have a value.
pub(crate) fn ratio_specs(columns: &[MetricColumn]) -> Vec<RatioSpec> {
    let mut out = Vec::new();
    for (bi, b) in columns.iter().enumerate() {
        let Metric::BudgetAtK(k) = b.metric else {
            continue;
        };
        let defined = |c: &MetricColumn| c.values.iter().any(|v| !v.is_nan());
        for (si, s) in columns.iter().enumerate().filter(|(_, s)| defined(s)) {
            let success = match s.metric {
                Metric::PassAtK(j) | Metric::MajAtK(j) | Metric::MajAtN(j) if j == k => {
                    s.metric.clone()
                }
                Metric::BonAtK { k: j, .. } if j == k => s.metric.clone(),
                _ => continue,
            };
            out.push(RatioSpec {
                name: MetricKey::CostOf(success.clone()).to_string(),
                success_metric: success,
                k,
                budget: bi,
                success: si,
            });
        }
    }
    out
}

/// A ratio's two columns restricted to the problems where both are
/// defined: (budget@k, success@k).
pub(crate) fn ratio_columns(spec: &RatioSpec, columns: &[MetricColumn]) -> (Vec<f64>, Vec<f64>) {
    let (b, s) = (&columns[spec.budget].values, &columns[spec.success].values);
    b.iter()
        .zip(s)
        .map(|(&x, &y)| {
            if x.is_nan() || y.is_nan() {
                (f64::NAN, f64::NAN)
            } else {
                (x, y)
            }
        })
        .unzip()
}

/// What a cost entry's `estimator` says.
pub(crate) fn ratio_estimator(spec: &RatioSpec) -> String {
    let success = &spec.success_metric;
    format!(
        "ratio of means: mean budget@{k} / {success} over the same problems (expected budget per solved problem); interval from the same resamples as every metric, t by the delta method",
        k = spec.k
    )
}

/// A ratio's point estimate over the problems where both columns are
/// defined, and their count.
pub(crate) fn ratio_point(num: &[f64], den: &[f64]) -> Option<(f64, u64)> {
    let (mut a, mut b, mut n) = (0.0, 0.0, 0u64);
    for (&x, &y) in num.iter().zip(den) {
        if !x.is_nan() {
            a += x;
            b += y;
            n += 1;
        }
    }
    (n > 0 && b > 0.0).then(|| (a / b, n))
}

/// Everything a cost entry is built from.
pub(crate) struct RatioEntry<'a> {
    pub spec: &'a RatioSpec,
    pub value: f64,
    pub n_problems: u64,
    pub n_excluded: u64,
    pub boot: Option<&'a ColumnBootstrap>,
    pub n_requested: u64,
    pub policy: DenominatorPolicy,
}

impl RatioEntry<'_> {
    /// The entry: the interval of the asked method from the ratio's
    /// resamples (a binomial method falls back to the percentile bootstrap,
    /// as for any non-binary metric).
    pub(crate) fn build(self, o: &IntervalOptions, method_name: String) -> MetricEntry {
        let bounds = match (o.method, self.boot) {
            (IntervalMethod::None, _) | (_, None) => None,
            (IntervalMethod::Resampled(CiMethod::T), Some(b)) => {
                let i = t_interval(self.value, b.analytic_se, b.t_df, o.level);
                Some(i)
            }
            (IntervalMethod::Resampled(m), Some(b)) => Some(b.interval(m)),
            (IntervalMethod::Binomial(_) | IntervalMethod::BetaBinomial, Some(b)) => {
                Some(b.interval(CiMethod::Percentile))
            }
        };
        let method = match o.method {
            IntervalMethod::Binomial(_) | IntervalMethod::BetaBinomial => "bootstrap".to_string(),
            _ => method_name,
        };
        let asked = o.method != IntervalMethod::None;
        MetricEntry {
            value: self.value,
            stderr: self.boot.map(|b| b.analytic_se).filter(|s| s.is_finite()),
            ci: bounds
                .filter(|i| i.lower.is_finite() && i.upper.is_finite())
                .map(|i| Interval {
                    lower: i.lower,
                    upper: i.upper,
                }),
            method,
            level: asked.then_some(o.level),
            seed: (asked && o.method.resamples()).then_some(o.seed),
            n_problems: self.n_problems,
            n_excluded: self.n_excluded,
            excluded: Ordered::default(),
            k: Some(self.spec.k),
            n: self.n_requested,
            denominator: self.policy,
            unit: Unit::BudgetPerSolved,
            variance: None,
            estimator: Some(ratio_estimator(self.spec)),
            same_as: None,
        }
    }
}

/// The accuracy-vs-budget frontier across groups: every (group, k) with
/// budget@k and pass@k, by increasing budget (ties: higher pass first),
/// kept when its pass@k exceeds that of every cheaper point.
pub(crate) fn frontier(groups: &Ordered<GroupReport>) -> Vec<FrontierPoint> {
    let mut points: Vec<FrontierPoint> = Vec::new();
    for (name, g) in groups.iter() {
        for (metric, e) in g.block.metrics.iter() {
            let Ok(Metric::BudgetAtK(k)) = metric.parse::<Metric>() else {
                continue;
            };
            if let Some(p) = g.block.metrics.get(&Metric::PassAtK(k).to_string()) {
                points.push(FrontierPoint {
                    group: name.clone(),
                    k,
                    budget: e.value,
                    pass: p.value,
                    ci: p.ci.as_ref().map(|i| [i.lower, i.upper]),
                });
            }
        }
    }
    points.sort_by(|a, b| {
        a.budget
            .total_cmp(&b.budget)
            .then(b.pass.total_cmp(&a.pass))
    });
    let mut best = f64::NEG_INFINITY;
    points.retain(|p| {
        let keep = p.pass > best;
        best = best.max(p.pass);
        keep
    });
    points
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_by_selection_match_type_7_on_sorted_data() {
        let data = [7.0, 1.0, 4.0, 10.0, 2.0, 8.0, 3.0];
        let mut sorted = data.to_vec();
        sorted.sort_by(f64::total_cmp);
        let mut v = data.to_vec();
        let (min, med, p90, max) = quantiles(&mut v);
        assert_eq!((min, max), (Some(1.0), Some(10.0)));
        assert_eq!(med, Some(rollstat_stats::quantile_sorted(&sorted, 0.5)));
        assert_eq!(p90, Some(rollstat_stats::quantile_sorted(&sorted, 0.9)));
    }

    /// Point-biserial r against Pearson's formula on explicit pairs.
    #[test]
    fn point_biserial_is_pearson_with_a_binary_variable() {
        let x = [100.0, 250.0, 80.0, 400.0, 120.0];
        let y = [1.0, 0.0, 1.0, 0.0, 1.0];
        let (mx, my) = (x.iter().sum::<f64>() / 5.0, y.iter().sum::<f64>() / 5.0);
        let cov: f64 = x.iter().zip(&y).map(|(a, b)| (a - mx) * (b - my)).sum();
        let sx: f64 = x.iter().map(|a| (a - mx).powi(2)).sum::<f64>().sqrt();
        let sy: f64 = y.iter().map(|b| (b - my).powi(2)).sum::<f64>().sqrt();
        let r = point_biserial(&x, 3, 300.0).unwrap();
        assert!((r - cov / (sx * sy)).abs() < 1e-12);
        assert_eq!(point_biserial(&x, 5, x.iter().sum()), None);
    }
}
