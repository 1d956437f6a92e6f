//! Ranks across benchmarks (Friedman, Iman–Davenport, Nemenyi's critical
//! difference) and the checkpoint curve.

use super::document::{Curve, CurvePoint, SuiteRanks, SystemRow};
use super::matrix::Matrix;
use crate::error::{Error, Result};
use rollstat_stats::{friedman, nemenyi_cd, nemenyi_q};
use std::collections::BTreeMap;

/// Per-benchmark means (benchmarks × systems in `order`), the Friedman
/// test over them and Nemenyi's critical difference.
pub(crate) fn ranks(m: &Matrix, order: &[usize], field: &str, alpha: f64) -> Result<SuiteRanks> {
    let mut by: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (j, k) in m.problems.iter().enumerate() {
        by.entry(k.0.clone().unwrap_or_else(|| "(none)".into()))
            .or_default()
            .push(j);
    }
    if by.len() < 2 {
        return Err(Error::TooFewBenchmarks {
            field: field.to_string(),
            found: by.len(),
        });
    }
    let scores: Vec<Vec<f64>> = by
        .values()
        .map(|idx| {
            order
                .iter()
                .map(|&i| idx.iter().map(|&j| m.scores[i][j]).sum::<f64>() / idx.len() as f64)
                .collect()
        })
        .collect();
    let f = friedman(&scores)?;
    let (k, n) = (order.len(), scores.len());
    let cd = nemenyi_cd(k, n, alpha)?;
    let q = nemenyi_q(k, alpha)?;
    let names: Vec<String> = order.iter().map(|&i| m.systems[i].clone()).collect();
    Ok(SuiteRanks {
        field: field.to_string(),
        benchmarks: by.keys().cloned().collect(),
        ranks: scores.iter().map(|row| average_ranks(row)).collect(),
        cd_groups: cd_groups(&f.mean_ranks, &names, cd),
        mean_ranks: f.mean_ranks,
        scores,
        chi2: f.chi2,
        df: f.df,
        p: f.p,
        f: f.iman_davenport_f,
        f_df: [f.df1, f.df2],
        f_p: f.p_f,
        critical_difference: cd,
        q_alpha: q,
    })
}

/// Ranks within one benchmark: 1 = the highest score, ties averaged.
fn average_ranks(row: &[f64]) -> Vec<f64> {
    row.iter()
        .map(|&x| {
            let above = row.iter().filter(|&&y| y > x).count() as f64;
            let tied = row.iter().filter(|&&y| y == x).count() as f64;
            above + (tied + 1.0) / 2.0
        })
        .collect()
}

/// Maximal groups of systems whose mean ranks lie within less than `cd`
/// of each other (two or more members), best first.
fn cd_groups(mean_ranks: &[f64], names: &[String], cd: f64) -> Vec<Vec<String>> {
    let mut idx: Vec<usize> = (0..names.len()).collect();
    idx.sort_by(|&a, &b| mean_ranks[a].total_cmp(&mean_ranks[b]).then(a.cmp(&b)));
    let mut groups: Vec<(usize, usize)> = Vec::new();
    for start in 0..idx.len() {
        let mut end = start;
        while end + 1 < idx.len() && mean_ranks[idx[end + 1]] - mean_ranks[idx[start]] < cd {
            end += 1;
        }
        let inside = groups.iter().any(|&(s, e)| s <= start && end <= e);
        if end > start && !inside {
            groups.push((start, end));
        }
    }
    groups
        .into_iter()
        .map(|(s, e)| idx[s..=e].iter().map(|&i| names[i].clone()).collect())
        .collect()
}

/// The last number in a name (`ckpt-1200.jsonl` → 1200).
fn step_of(name: &str) -> Option<f64> {
    let mut digits: Vec<String> = Vec::new();
    let mut cur = String::new();
    for ch in name.chars() {
        if ch.is_ascii_digit() || (ch == '.' && !cur.is_empty() && !cur.contains('.')) {
            cur.push(ch);
        } else if !cur.is_empty() {
            digits.push(std::mem::take(&mut cur));
        }
    }
    if !cur.is_empty() {
        digits.push(cur);
    }
    digits
        .iter()
        .rev()
        .find_map(|d| d.trim_end_matches('.').parse().ok())
}

/// The systems as checkpoints, in step order (names without a number
/// last, by name).
pub(crate) fn curve(systems: &[SystemRow], not_separable: &[String]) -> Curve {
    let mut points: Vec<CurvePoint> = systems
        .iter()
        .map(|s| CurvePoint {
            system: s.name.clone(),
            step: step_of(s.name.trim_end_matches(".jsonl").trim_end_matches(".gz"))
                .unwrap_or(f64::NAN),
            value: s.value,
            ci: s.ci,
        })
        .collect();
    points.sort_by(|a, b| {
        (a.step.is_nan(), a.step, &a.system)
            .partial_cmp(&(b.step.is_nan(), b.step, &b.system))
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Curve {
        points,
        best: systems.first().map(|s| s.name.clone()).unwrap_or_default(),
        not_separable: not_separable.to_vec(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_the_last_number_of_a_name() {
        assert_eq!(step_of("ckpt-1200"), Some(1200.0));
        assert_eq!(step_of("run3_step_400"), Some(400.0));
        assert_eq!(step_of("final"), None);
    }

    #[test]
    fn average_ranks_share_ties() {
        assert_eq!(average_ranks(&[0.9, 0.5, 0.5, 0.1]), [1.0, 2.5, 2.5, 4.0]);
    }

    /// Mean ranks 1, 1.5, 3, 3.2 with CD 1: {1, 1.5} and {3, 3.2}.
    #[test]
    fn cd_groups_are_maximal_runs_within_the_difference() {
        let names: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
        let g = cd_groups(&[1.0, 1.5, 3.0, 3.2], &names, 1.0);
        assert_eq!(g, vec![vec!["a", "b"], vec!["c", "d"]]);
        let g = cd_groups(&[1.0, 1.6, 2.2, 2.8], &names, 1.3);
        assert_eq!(g, vec![vec!["a", "b", "c"], vec!["b", "c", "d"]]);
    }
}
