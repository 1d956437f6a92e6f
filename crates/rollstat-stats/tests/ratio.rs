//! Per-draw columns and ratios of means against direct computation.

use rollstat_stats::{bootstrap_means, bootstrap_means_with_ratios, BootstrapConfig, CiMethod};

fn cfg() -> BootstrapConfig {
    BootstrapConfig {
        resamples: 2000,
        level: 0.9,
        seed: 7,
    }
}

/// With few problems every resample draws problems one by one, so a
/// per-draw column is bootstrapped exactly as a typed one, and a ratio over
/// a denominator of ones is the numerator's mean.
#[test]
fn per_draw_and_ratio_over_ones_equal_the_plain_bootstrap() {
    let num = [120.0, 80.0, 300.0, 45.0, 10.0, 260.0, 95.0];
    let ones = [1.0; 7];
    let (_, per_draw, ratios) =
        bootstrap_means_with_ratios(&[&ones], &[&num], &[(1, 0)], None, &cfg()).unwrap();
    let plain = bootstrap_means(&[&num], &cfg()).unwrap();
    let p = &plain.columns[0];
    for r in [&per_draw[0], &ratios[0]] {
        assert_eq!(r.estimate, num.iter().sum::<f64>() / 7.0);
        for m in [CiMethod::Percentile, CiMethod::Basic, CiMethod::Bca] {
            let (a, b) = (r.interval(m), p.interval(m));
            assert!((a.lower - b.lower).abs() < 1e-9 && (a.upper - b.upper).abs() < 1e-9);
        }
        assert!((r.analytic_se - p.analytic_se).abs() < 1e-12);
    }
}

/// Per-draw columns leave the typed columns' replicates unchanged.
#[test]
fn per_draw_columns_change_no_typed_replicate() {
    let pass: Vec<f64> = (0..5000).map(|i| f64::from(i % 3 == 0)).collect();
    let tokens: Vec<f64> = (0..5000).map(|i| 100.0 + f64::from(i * 37 % 101)).collect();
    let plain = bootstrap_means(&[&pass], &cfg()).unwrap();
    let (with, _, _) =
        bootstrap_means_with_ratios(&[&pass], &[&tokens], &[], None, &cfg()).unwrap();
    assert_eq!(
        plain.columns[0].distribution(),
        with.columns[0].distribution()
    );
}

/// A numerator proportional to the denominator has the same ratio in
/// every resample.
#[test]
fn proportional_columns_have_a_constant_ratio() {
    let den = [0.5, 1.0, 0.25, 0.75, 0.0, 1.0];
    let num: Vec<f64> = den.iter().map(|d| 4.0 * d).collect();
    let (_, _, ratios) =
        bootstrap_means_with_ratios(&[&num, &den], &[], &[(0, 1)], None, &cfg()).unwrap();
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
    let (_, _, ratios) =
        bootstrap_means_with_ratios(&[&b], &[&a], &[(1, 0)], None, &cfg()).unwrap();
    let r = 1000.0 / 2.0;
    let bbar = 0.5;
    let z: Vec<f64> = a.iter().zip(&b).map(|(x, y)| (x - r * y) / bbar).collect();
    let zbar = z.iter().sum::<f64>() / 4.0;
    let sd = (z.iter().map(|v| (v - zbar).powi(2)).sum::<f64>() / 3.0).sqrt();
    assert_eq!(ratios[0].estimate, r);
    assert!((ratios[0].analytic_se - sd / 2.0).abs() < 1e-9);
    assert_eq!(ratios[0].n, 4);
}

/// With many interchangeable problems the resample draws counts per type;
/// the per-draw mean's bootstrap SE then still matches its analytic
/// sd/√N (the normal step keeps the exact conditional variance).
#[test]
fn per_draw_se_under_type_compression_matches_sd_over_root_n() {
    let n = 20_000;
    let pass: Vec<f64> = (0..n).map(|i| f64::from(i % 4 == 0)).collect();
    // A deterministic, skewed spread of budgets.
    let tokens: Vec<f64> = (0..n)
        .map(|i| 50.0 + f64::from((i * 7919) % 997).powi(2) / 100.0)
        .collect();
    let (_, per_draw, _) =
        bootstrap_means_with_ratios(&[&pass], &[&tokens], &[], None, &cfg()).unwrap();
    let c = &per_draw[0];
    let rel = (c.std_error - c.analytic_se).abs() / c.analytic_se;
    assert!(
        rel < 0.06,
        "bootstrap SE {} vs sd/√N {}",
        c.std_error,
        c.analytic_se
    );
}

#[test]
fn a_ratio_beyond_the_columns_is_refused() {
    let a = [1.0, 2.0];
    assert!(bootstrap_means_with_ratios(&[&a], &[], &[(0, 1)], None, &cfg()).is_err());
}
