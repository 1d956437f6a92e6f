//! Ratio-of-means bootstrap against direct computation.

use rollstat_stats::{bootstrap_means, bootstrap_means_with_ratios, BootstrapConfig, CiMethod};

fn cfg() -> BootstrapConfig {
    BootstrapConfig {
        resamples: 2000,
        level: 0.9,
        seed: 7,
    }
}

/// With a denominator of ones, the ratio is the numerator's mean: the same
/// replicates, hence the same intervals, as the plain bootstrap.
#[test]
fn ratio_over_ones_is_the_plain_mean() {
    let num = [120.0, 80.0, 300.0, 45.0, 10.0, 260.0, 95.0];
    let ones = [1.0; 7];
    let (_, ratios) = bootstrap_means_with_ratios(&[&num, &ones], &[(0, 1)], None, &cfg()).unwrap();
    let plain = bootstrap_means(&[&num], &cfg()).unwrap();
    let (r, p) = (&ratios[0], &plain.columns[0]);
    assert_eq!(r.estimate, num.iter().sum::<f64>() / 7.0);
    for m in [CiMethod::Percentile, CiMethod::Basic, CiMethod::Bca] {
        let (a, b) = (r.interval(m), p.interval(m));
        assert!((a.lower - b.lower).abs() < 1e-9 && (a.upper - b.upper).abs() < 1e-9);
    }
    // Delta-method SE with a constant denominator is sd/√n.
    assert!((r.analytic_se - p.analytic_se).abs() < 1e-12);
}

/// A numerator proportional to the denominator has the same ratio in
/// every resample.
#[test]
fn proportional_columns_have_a_constant_ratio() {
    let den = [0.5, 1.0, 0.25, 0.75, 0.0, 1.0];
    let num: Vec<f64> = den.iter().map(|d| 4.0 * d).collect();
    let (_, ratios) = bootstrap_means_with_ratios(&[&num, &den], &[(0, 1)], None, &cfg()).unwrap();
    let r = &ratios[0];
    assert!((r.estimate - 4.0).abs() < 1e-12);
    assert!(r.distribution().iter().all(|x| (x - 4.0).abs() < 1e-9));
    assert!(r.analytic_se.abs() < 1e-12);
}

/// Estimate and delta-method SE by hand: R = Σa/Σb, zᵢ = (aᵢ − R·bᵢ)/b̄,
/// SE = sd(z)/√n.
#[test]
fn estimate_and_delta_se_by_hand() {
    let a = [200.0, 400.0, 100.0, 300.0];
    let b = [1.0, 0.5, 0.0, 0.5];
    let (_, ratios) = bootstrap_means_with_ratios(&[&a, &b], &[(0, 1)], None, &cfg()).unwrap();
    let r = 1000.0 / 2.0;
    let bbar = 0.5;
    let z: Vec<f64> = a.iter().zip(&b).map(|(x, y)| (x - r * y) / bbar).collect();
    let zbar = z.iter().sum::<f64>() / 4.0;
    let sd = (z.iter().map(|v| (v - zbar).powi(2)).sum::<f64>() / 3.0).sqrt();
    assert_eq!(ratios[0].estimate, r);
    assert!((ratios[0].analytic_se - sd / 2.0).abs() < 1e-9);
    assert_eq!(ratios[0].n, 4);
}

#[test]
fn a_ratio_beyond_the_columns_is_refused() {
    let a = [1.0, 2.0];
    assert!(bootstrap_means_with_ratios(&[&a], &[(0, 1)], None, &cfg()).is_err());
}
