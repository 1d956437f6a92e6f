//! Metrics that are other metrics of the same report by definition, noted
//! in each entry's `same_as` so a table can leave the duplicate out while
//! report.json keeps every key.
//!
//! G-Pass@k_τ counts draws with at least m = max(⌈τk⌉, 1) correct
//! (statistics.md §6): m = 1 is pass@k, m = k is pass^k, and two τ with
//! the same m are one metric. mG-Pass@2 = (2/2)·G-Pass@2_1 = pass^2.

use crate::document::MetricBlock;
use rollstat_core::aggregate::{Metric, MetricColumn};
use rollstat_core::estimators::g_pass_threshold;

/// For each metric of `metrics`, the name of the metric it is by
/// definition (pass@k, pass^k, or an earlier g-pass@k_τ), if any.
pub(crate) fn same_as(metrics: &[Metric]) -> Vec<Option<String>> {
    metrics.iter().map(|m| canonical(m, metrics)).collect()
}

/// The metric `m` is by definition, among `metrics` (earlier ones first).
fn canonical(m: &Metric, metrics: &[Metric]) -> Option<String> {
    match m {
        Metric::GPassAtK { k, tau, .. } => {
            let need = g_pass_threshold(*k, *tau);
            if need == 1 {
                return Some(Metric::PassAtK(*k).to_string());
            }
            if need == *k {
                return Some(Metric::PassPowK(*k).to_string());
            }
            metrics
                .iter()
                .take_while(|other| *other != m)
                .find(|other| {
                    matches!(other, Metric::GPassAtK { k: k2, tau: t2, .. }
                        if k2 == k && g_pass_threshold(*k2, *t2) == need)
                })
                .map(ToString::to_string)
        }
        Metric::MgPassAtK(2) => Some(Metric::PassPowK(2).to_string()),
        _ => None,
    }
}

/// Sets `same_as` on every entry of `block` that is another entry of it by
/// definition.
pub(crate) fn note_identities(block: &mut MetricBlock, columns: &[MetricColumn]) {
    let metrics: Vec<Metric> = columns.iter().map(|c| c.metric.clone()).collect();
    for (col, target) in columns.iter().zip(same_as(&metrics)) {
        let Some(target) = target else {
            continue;
        };
        if block.metrics.get(&target).is_none() {
            continue;
        }
        let name = col.metric.to_string();
        if let Some((_, entry)) = block.metrics.0.iter_mut().find(|(k, _)| *k == name) {
            entry.same_as = Some(target);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(k: u64, tau: f64) -> Metric {
        Metric::GPassAtK {
            k,
            tau,
            tau_text: tau.to_string(),
        }
    }

    // Thresholds by hand: k = 4, τ = 0.25 → 1; 0.5 → 2; 0.6 → ⌈2.4⌉ = 3;
    // 0.75 → 3; 1 → 4. k = 10, τ = 0.3 → 3 (not 4: 0.3·10 is snapped).
    #[test]
    fn g_pass_identities_follow_the_threshold() {
        let cols: Vec<Metric> = vec![g(4, 0.25), g(4, 0.5), g(4, 0.6), g(4, 0.75), g(4, 1.0)];
        let got = same_as(&cols);
        assert_eq!(
            got,
            vec![
                Some("pass@4".into()),
                None,
                None,
                Some("g-pass@4_0.6".into()),
                Some("pass^4".into())
            ]
        );
        assert_eq!(
            canonical(&Metric::MgPassAtK(2), &cols),
            Some("pass^2".into())
        );
        assert_eq!(canonical(&Metric::MgPassAtK(4), &cols), None);
        assert_eq!(canonical(&Metric::PassAtK(4), &cols), None);
    }
}
