//! Friedman test, Iman–Davenport F and the Nemenyi critical difference for
//! many systems on many datasets (Demšar 2006, JMLR 7:1–30).

use serde::Serialize;

use crate::dist::{beta_cdf, chi2_sf, studentized_range_quantile_inf};
use crate::error::{Result, StatsError};

/// Result of [`friedman`] / [`friedman_from_mean_ranks`].
///
/// ```
/// let f = rollstat_stats::friedman_from_mean_ranks(&[1.5, 1.5], 4).unwrap();
/// assert_eq!((f.chi2, f.df, f.p), (0.0, 1, 1.0));
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Friedman {
    /// Friedman's χ²_F (tie-corrected in [`friedman`]).
    pub chi2: f64,
    /// k − 1.
    pub df: u64,
    /// P(χ²_{k−1} ≥ χ²_F).
    pub p: f64,
    /// Iman–Davenport `F_F = (N−1)χ²_F / (N(k−1) − χ²_F)` (∞ when every
    /// dataset ranks the systems identically).
    pub iman_davenport_f: f64,
    /// k − 1.
    pub df1: u64,
    /// (k − 1)(N − 1).
    pub df2: u64,
    /// P(F_{df1, df2} ≥ F_F).
    pub p_f: f64,
    /// Mean rank of each system over the datasets (1 = best).
    pub mean_ranks: Vec<f64>,
}

/// Friedman test of `k` systems on `N` datasets. `scores` is datasets ×
/// systems, higher is better; within each dataset the systems are ranked
/// 1 (best) … k with average ranks for ties. (To pass a table of ranks where
/// 1 is best, negate it; χ²_F and F_F do not change under reversal, only
/// `mean_ranks` does.)
///
/// `χ²_F = 12N/(k(k+1)) · Σ_j R_j² − 3N(k+1)` over the mean ranks `R_j`,
/// divided by the tie correction `1 − Σ(t³ − t)/(N k (k² − 1))` (sum over
/// the tie groups of every dataset, as `scipy.stats.friedmanchisquare`);
/// then Iman & Davenport's `F_F` on (k−1, (k−1)(N−1)) df.
///
/// ```
/// // Two datasets × nine systems (scipy: χ² = 11.7333, p = 0.16350; F = 2.75, p = 0.086970).
/// let r = [[1., 8., 6., 4., 7., 2., 5., 3., 9.], [1., 6., 3., 9., 7., 2., 8., 4., 5.]];
/// let s: Vec<Vec<f64>> = r.iter().map(|row| row.iter().map(|x| -x).collect()).collect();
/// let f = rollstat_stats::friedman(&s).unwrap();
/// assert!((f.chi2 - 11.733333333333333).abs() < 1e-9 && f.df == 8);
/// assert!((f.iman_davenport_f - 2.75).abs() < 1e-9 && (f.df1, f.df2) == (8, 8));
/// assert!((f.p_f - 0.086970).abs() < 1e-6);
/// ```
pub fn friedman(scores: &[Vec<f64>]) -> Result<Friedman> {
    let (n, k) = check_table(scores)?;
    let mut sum = vec![0.0; k];
    let mut ties = 0.0;
    for row in scores {
        let (ranks, t) = average_ranks_desc(row);
        sum.iter_mut().zip(&ranks).for_each(|(s, r)| *s += r);
        ties += t;
    }
    let mean_ranks: Vec<f64> = sum.iter().map(|s| s / n as f64).collect();
    let correction = 1.0 - ties / (n as f64 * k as f64 * (k * k - 1) as f64);
    let raw = chi2_from_mean_ranks(&mean_ranks, n);
    let chi2 = if correction > 0.0 {
        raw / correction
    } else {
        0.0
    };
    Ok(finish(chi2, mean_ranks, n))
}

/// [`friedman`] from the mean ranks of `k` systems over `n_datasets`
/// datasets (no tie correction), as in Demšar's worked example.
///
/// ```
/// let f = rollstat_stats::friedman_from_mean_ranks(&[3.143, 2.000, 2.893, 1.964], 14).unwrap();
/// assert!((f.chi2 - 9.28).abs() < 0.01 && (f.iman_davenport_f - 3.69).abs() < 0.01);
/// ```
pub fn friedman_from_mean_ranks(mean_ranks: &[f64], n_datasets: usize) -> Result<Friedman> {
    if mean_ranks.len() < 2 || n_datasets < 2 {
        return Err(StatsError::InvalidArgument(
            "Friedman needs at least 2 systems and 2 datasets".into(),
        ));
    }
    if mean_ranks.iter().any(|r| !r.is_finite()) {
        return Err(StatsError::InvalidArgument(
            "mean ranks must be finite".into(),
        ));
    }
    let chi2 = chi2_from_mean_ranks(mean_ranks, n_datasets);
    Ok(finish(chi2, mean_ranks.to_vec(), n_datasets))
}

fn chi2_from_mean_ranks(r: &[f64], n: usize) -> f64 {
    let (k, nf) = (r.len() as f64, n as f64);
    let ss: f64 = r.iter().map(|x| x * x).sum();
    (12.0 * nf / (k * (k + 1.0)) * (ss - k * (k + 1.0) * (k + 1.0) / 4.0)).max(0.0)
}

fn finish(chi2: f64, mean_ranks: Vec<f64>, n: usize) -> Friedman {
    let k = mean_ranks.len();
    let (df1, df2) = ((k - 1) as u64, ((k - 1) * (n - 1)) as u64);
    let denom = (n * (k - 1)) as f64 - chi2;
    let f = if denom > 0.0 {
        (n - 1) as f64 * chi2 / denom
    } else {
        f64::INFINITY
    };
    let p_f = if f.is_infinite() {
        0.0
    } else if f <= 0.0 {
        1.0
    } else {
        beta_cdf(
            df2 as f64 / (df2 as f64 + df1 as f64 * f),
            df2 as f64 / 2.0,
            df1 as f64 / 2.0,
        )
    };
    Friedman {
        chi2,
        df: df1,
        p: chi2_sf(chi2, df1 as f64),
        iman_davenport_f: f,
        df1,
        df2,
        p_f,
        mean_ranks,
    }
}

/// Datasets × systems table with ≥ 2 of each, finite, rectangular.
fn check_table(scores: &[Vec<f64>]) -> Result<(usize, usize)> {
    let k = scores.first().map(Vec::len).unwrap_or(0);
    if scores.len() < 2 || k < 2 {
        return Err(StatsError::InvalidArgument(
            "Friedman needs at least 2 datasets and 2 systems".into(),
        ));
    }
    for row in scores {
        if row.len() != k {
            return Err(StatsError::LengthMismatch {
                what: "systems per dataset",
                left: row.len(),
                right: k,
            });
        }
        if row.iter().any(|x| !x.is_finite()) {
            return Err(StatsError::InvalidArgument("scores must be finite".into()));
        }
    }
    Ok((scores.len(), k))
}

/// Ranks 1 = highest with average ranks for ties, and `Σ (t³ − t)` over the
/// tie groups.
fn average_ranks_desc(row: &[f64]) -> (Vec<f64>, f64) {
    let mut order: Vec<usize> = (0..row.len()).collect();
    order.sort_by(|&a, &b| row[b].total_cmp(&row[a]));
    let mut ranks = vec![0.0; row.len()];
    let mut ties = 0.0;
    let mut start = 0;
    while start < order.len() {
        let mut end = start + 1;
        while end < order.len() && row[order[end]] == row[order[start]] {
            end += 1;
        }
        let avg = (start + end + 1) as f64 / 2.0; // mean of start+1 ..= end
        order[start..end].iter().for_each(|&i| ranks[i] = avg);
        let t = (end - start) as f64;
        ties += t * t * t - t;
        start = end;
    }
    (ranks, ties)
}

/// The Nemenyi critical difference of mean ranks (Demšar 2006, §3.2.2):
/// `CD = q_α · √(k(k+1)/(6N))` with `q_α = q_{1−α}(k, ∞)/√2`, the
/// studentized range quantile of `k` means at **infinite** df divided by √2
/// (Demšar's Table 5: k = 4 → 2.569). Some posts use a finite df instead
/// (df = N·(k−1) or so), which gives larger CDs; this crate follows Demšar.
///
/// ```
/// let cd = rollstat_stats::nemenyi_cd(4, 14, 0.05).unwrap();
/// assert!((cd - 1.2535).abs() < 1e-3); // Demšar: 1.25
/// ```
pub fn nemenyi_cd(k: usize, n_datasets: usize, alpha: f64) -> Result<f64> {
    if n_datasets == 0 {
        return Err(StatsError::InvalidArgument("n_datasets must be > 0".into()));
    }
    Ok(nemenyi_q(k, alpha)? * ((k * (k + 1)) as f64 / (6.0 * n_datasets as f64)).sqrt())
}

/// Demšar's `q_α` for `k` systems: `qtukey(1 − α, k, ∞)/√2`.
///
/// ```
/// let q = rollstat_stats::nemenyi_q(10, 0.05).unwrap();
/// assert!((q - 3.164).abs() < 5e-4);
/// ```
pub fn nemenyi_q(k: usize, alpha: f64) -> Result<f64> {
    if k < 2 {
        return Err(StatsError::InvalidArgument(format!(
            "Nemenyi needs at least 2 systems, got {k}"
        )));
    }
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(StatsError::InvalidArgument(format!(
            "alpha must be in (0, 1), got {alpha}"
        )));
    }
    Ok(studentized_range_quantile_inf(1.0 - alpha, k) / std::f64::consts::SQRT_2)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn negate(r: &[&[f64]]) -> Vec<Vec<f64>> {
        r.iter()
            .map(|row| row.iter().map(|x| -x).collect())
            .collect()
    }

    /// Research vector §1c (scipy): 2 datasets × 9 systems.
    #[test]
    fn two_by_nine_rank_table() {
        let r: [&[f64]; 2] = [
            &[1., 8., 6., 4., 7., 2., 5., 3., 9.],
            &[1., 6., 3., 9., 7., 2., 8., 4., 5.],
        ];
        let f = friedman(&negate(&r)).unwrap();
        assert!((f.chi2 - 11.7333).abs() < 1e-4, "{}", f.chi2);
        assert_eq!(f.df, 8);
        assert!((f.p - 0.16350).abs() < 1e-5, "{}", f.p);
        assert!((f.iman_davenport_f - 2.75).abs() < 1e-12);
        assert_eq!((f.df1, f.df2), (8, 8));
        assert!((f.p_f - 0.086970).abs() < 1e-6, "{}", f.p_f);
        // ranks given as ranks: mean ranks are the column means
        assert_eq!(f.mean_ranks[0], 1.0);
        assert_eq!(f.mean_ranks[3], 6.5);
        // Nemenyi CD with Demšar's df = ∞ convention
        let cd = nemenyi_cd(9, 2, 0.05).unwrap();
        assert!((cd - 8.494).abs() < 1e-3, "{cd}");
        // scores with higher = better give the same statistic
        let s: Vec<Vec<f64>> = r.iter().map(|row| row.to_vec()).collect();
        assert!((friedman(&s).unwrap().chi2 - f.chi2).abs() < 1e-12);
    }

    /// Demšar (2006) worked example: mean ranks 3.143, 2.000, 2.893, 1.964,
    /// N = 14 → χ²_F = 9.28, F_F = 3.69, CD = 1.254 (paper: 1.25).
    #[test]
    fn demsar_example() {
        let f = friedman_from_mean_ranks(&[3.143, 2.000, 2.893, 1.964], 14).unwrap();
        assert!((f.chi2 - 9.28).abs() < 0.005, "{}", f.chi2);
        assert!(
            (f.iman_davenport_f - 3.69).abs() < 0.005,
            "{}",
            f.iman_davenport_f
        );
        assert_eq!((f.df1, f.df2), (3, 39));
        let cd = nemenyi_cd(4, 14, 0.05).unwrap();
        assert!((cd - 1.254).abs() < 1e-3, "{cd}");
    }

    /// Demšar (2006) Table 5(a), q₀.₀₅ for k = 2 … 10 (three decimals, not
    /// always rounded: k = 3 is 2.3437 → printed 2.343, so allow 1e-3).
    #[test]
    fn demsar_q_table() {
        let table = [
            1.960, 2.343, 2.569, 2.728, 2.850, 2.949, 3.031, 3.102, 3.164,
        ];
        for (k, q) in (2..=10).zip(table) {
            let got = nemenyi_q(k, 0.05).unwrap();
            assert!((got - q).abs() < 1e-3, "k={k}: {got} vs {q}");
        }
        // k = 2 exactly: q/√2 = z₀.₉₇₅
        assert!((nemenyi_q(2, 0.05).unwrap() - 1.959963984540054).abs() < 1e-8);
    }

    /// Ties, by hand. Scores (higher better) per dataset:
    /// (1, 1, 0) → ranks 1.5 1.5 3; (2, 1, 0) → 1 2 3; (0, 1, 1) → 3 1.5 1.5.
    /// Rank sums 5.5, 5, 7.5, Σ² = 111.5; uncorrected χ² = 111.5/3 − 36 = 7/6;
    /// two tie groups of 2 → Σ(t³ − t) = 12, correction 1 − 12/72 = 5/6 →
    /// χ² = 7/5, p = e^{−0.7} (χ² with 2 df). F_F = 2·1.4/(6 − 1.4) = 14/23 on
    /// (2, 4) df; for d1 = 2, P(F ≥ f) = (1 + 2f/d2)^{−d2/2}.
    #[test]
    fn ties_by_hand() {
        let s = vec![
            vec![1.0, 1.0, 0.0],
            vec![2.0, 1.0, 0.0],
            vec![0.0, 1.0, 1.0],
        ];
        let f = friedman(&s).unwrap();
        assert!((f.chi2 - 1.4).abs() < 1e-12, "{}", f.chi2);
        assert!((f.p - (-0.7f64).exp()).abs() < 1e-12);
        assert!((f.iman_davenport_f - 14.0 / 23.0).abs() < 1e-12);
        assert_eq!((f.df1, f.df2), (2, 4));
        let expect = (1.0 + 2.0 * (14.0 / 23.0) / 4.0f64).powi(-2);
        assert!((f.p_f - expect).abs() < 1e-12, "{} {expect}", f.p_f);
        assert_eq!(f.mean_ranks, vec![5.5 / 3.0, 5.0 / 3.0, 2.5]);
    }

    #[test]
    fn perfect_agreement_and_no_difference() {
        // every dataset ranks the systems identically: χ² = N(k−1), F = ∞
        let s = vec![vec![3.0, 2.0, 1.0]; 4];
        let f = friedman(&s).unwrap();
        assert!((f.chi2 - 8.0).abs() < 1e-12);
        assert_eq!((f.iman_davenport_f, f.p_f), (f64::INFINITY, 0.0));
        // all tied everywhere
        let f = friedman(&[vec![1.0; 3], vec![2.0; 3]]).unwrap();
        assert_eq!((f.chi2, f.p), (0.0, 1.0));
    }

    #[test]
    fn invalid_inputs() {
        assert!(friedman(&[vec![1.0, 2.0]]).is_err());
        assert!(friedman(&[vec![1.0, 2.0], vec![1.0]]).is_err());
        assert!(friedman(&[vec![1.0, f64::NAN], vec![1.0, 2.0]]).is_err());
        assert!(nemenyi_cd(1, 5, 0.05).is_err());
        assert!(nemenyi_cd(3, 0, 0.05).is_err());
        assert!(nemenyi_cd(3, 5, 1.0).is_err());
    }
}
