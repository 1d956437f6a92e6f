//! Published / independently derived test vectors. Every expected number here
//! comes from `docs/statistics.md` (section given per test),
//! from the cited reference suites it quotes, or from an independent mpmath /
//! exact-enumeration computation — never from this crate's own output.
#![allow(clippy::excessive_precision)] // reference values are quoted verbatim

use rollstat_stats::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

fn rclose(a: f64, b: f64, rtol: f64) -> bool {
    (a - b).abs() <= rtol * b.abs()
}

macro_rules! assert_close {
    ($a:expr, $b:expr, $tol:expr) => {{
        let (a, b) = ($a, $b);
        assert!(
            close(a, b, $tol),
            "{} = {a}, expected {b} ± {}",
            stringify!($a),
            $tol
        );
    }};
}

macro_rules! assert_rclose {
    ($a:expr, $b:expr, $rtol:expr) => {{
        let (a, b) = ($a, $b);
        assert!(
            rclose(a, b, $rtol),
            "{} = {a}, expected {b} (rtol {})",
            stringify!($a),
            $rtol
        );
    }};
}

const RBOOT_X: [f64; 16] = [
    10.0, 12.0, 12.5, 12.5, 13.9, 15.0, 21.0, 22.0, 23.0, 34.0, 50.0, 81.0, 89.0, 121.0, 134.0,
    213.0,
];

// ---------------------------------------------------------------- §2.4 bootstrap

/// scipy test_bootstrap_against_R: R `boot.ci` with 1e6 resamples; scipy
/// asserts rtol 0.005 with its own 1e6-resample stream. Our stream differs,
/// so this is a large-B convergence test with the same tolerance.
#[test]
fn rboot_intervals_large_b() {
    let cfg = BootstrapConfig {
        resamples: 1_000_000,
        level: 0.95,
        seed: 20240611,
    };
    let r = bootstrap_means(&[&RBOOT_X], &cfg).unwrap();
    let c = &r.columns[0];
    assert_close!(c.estimate, 53.99375, 1e-12);
    assert_rclose!(c.basic.lower, 23.77, 0.005);
    assert_rclose!(c.basic.upper, 79.12, 0.005);
    assert_rclose!(c.percentile.lower, 28.86, 0.005);
    assert_rclose!(c.percentile.upper, 84.21, 0.005);
    assert_rclose!(c.bca.lower, 32.31, 0.005);
    assert_rclose!(c.bca.upper, 91.43, 0.005);
    // Ideal (B → ∞) bootstrap SE of the mean, sqrt(Σ(x−x̄)²)/N [D].
    assert_rclose!(c.std_error, 14.2367687168, 0.005);
    // Jackknife acceleration of the mean of x [D], also recomputed with mpmath.
    assert_close!(c.acceleration, 0.06152886961259408, 1e-14);
    // t interval uses CLT SE (ddof = 1) = 14.7036715051 [D].
    assert_close!(c.analytic_se, 14.7036715051, 1e-9);
}

/// scipy test_BCa_acceleration_against_reference: two-sample unpaired
/// statistic mean(z) − mean(y), â = 0.011008228344026734.
#[test]
fn bca_acceleration_two_sample_scipy() {
    let y = [10.0, 27.0, 31.0, 40.0, 46.0, 50.0, 52.0, 104.0, 146.0];
    let z = [16.0, 23.0, 38.0, 94.0, 99.0, 141.0, 197.0];
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    let (my, mz) = (mean(&y), mean(&z));
    let sy: f64 = y.iter().sum();
    let sz: f64 = z.iter().sum();
    // Leave one out of y (z fixed), then one out of z (y fixed).
    let loo_y: Vec<f64> = y.iter().map(|v| mz - (sy - v) / 8.0).collect();
    let loo_z: Vec<f64> = z.iter().map(|v| (sz - v) / 6.0 - my).collect();
    let a = jackknife_acceleration(&[&loo_y, &loo_z]);
    assert_close!(a, 0.011008228344026734, 1e-15);
}

#[test]
fn one_sample_acceleration_direct() {
    let s: f64 = RBOOT_X.iter().sum();
    let loo: Vec<f64> = RBOOT_X.iter().map(|v| (s - v) / 15.0).collect();
    assert_close!(jackknife_acceleration(&[&loo]), 0.06152886961259408, 1e-15);
}

/// Quantile convention (numpy `percentile(..., method="linear")`, type 7).
#[test]
fn quantile_type7() {
    let x = [1.0, 2.0, 3.0, 4.0];
    assert_close!(quantile_sorted(&x, 0.1), 1.3, 1e-15); // np.percentile([1,2,3,4],10)
    assert_close!(quantile_sorted(&x, 0.25), 1.75, 1e-15);
    assert_close!(quantile_sorted(&x, 0.75), 3.25, 1e-15);
    assert_close!(quantile_sorted(&x, 1.0), 4.0, 0.0);
    assert_close!(quantile_sorted(&[7.0], 0.3), 7.0, 0.0);
}

/// The BCa formula (scipy's `_bca_interval`, ties half) applied to a given
/// distribution 0..99 with θ̂ = 50.5, â = 0.05, level 0.95. Expected values
/// recomputed independently with mpmath (30 digits).
#[test]
fn bca_formula_on_given_distribution() {
    let dist: Vec<f64> = (0..100).map(|i| i as f64).collect();
    let ci = distribution_interval(CiMethod::Bca, 50.5, &dist, 0.05, 0.95).unwrap();
    assert_close!(ci.lower, 4.0594367668958981, 1e-9);
    assert_close!(ci.upper, 97.721647001782806, 1e-9);
}

/// Binary data: the ideal bootstrap distribution of the mean is
/// Binomial(20, 0.7)/20 → percentile CI [0.5, 0.9], SE 0.1024695077 [D].
#[test]
fn binary_ideal_bootstrap() {
    let mut y = vec![1.0; 14];
    y.extend(vec![0.0; 6]);
    let cfg = BootstrapConfig {
        resamples: 200_000,
        level: 0.95,
        seed: 3,
    };
    let c = &bootstrap_means(&[&y], &cfg).unwrap().columns[0];
    assert_close!(c.percentile.lower, 0.5, 1e-12);
    assert_close!(c.percentile.upper, 0.9, 1e-12);
    assert_rclose!(c.std_error, 0.1024695077, 0.01);
}

/// scipy test_bootstrap_degenerate: constant data → percentile and basic
/// (10000, 10000), SE 0, BCa NaN.
#[test]
fn degenerate_data() {
    let y = vec![10000.0; 35];
    let c = &bootstrap_means(&[&y], &BootstrapConfig::default())
        .unwrap()
        .columns[0];
    assert_eq!((c.percentile.lower, c.percentile.upper), (10000.0, 10000.0));
    assert_eq!((c.basic.lower, c.basic.upper), (10000.0, 10000.0));
    assert_eq!(c.std_error, 0.0);
    assert!(c.bca.lower.is_nan() && c.bca.upper.is_nan());
}

/// scipy test_bootstrap_alternative: the one-sided 95% bound equals the
/// two-sided 90% bound.
#[test]
fn one_sided_equals_two_sided_at_double_alpha() {
    let cfg = BootstrapConfig {
        resamples: 5000,
        level: 0.95,
        seed: 11,
    };
    let c = &bootstrap_means(&[&RBOOT_X], &cfg).unwrap().columns[0];
    for m in CiMethod::ALL {
        let one = c.one_sided_bounds(m, 0.95).unwrap();
        let two = c.interval_at(m, 0.90).unwrap();
        assert_eq!(one, two, "{m:?}");
    }
    assert_eq!(c.interval_at(CiMethod::Bca, 0.95).unwrap(), c.bca);
}

/// inspect_ai test_metric.py: `ci()` over 0..9 = 4.5 ± t_{0.975,9}·0.9574271077563381.
#[test]
fn t_interval_inspect() {
    let y: Vec<f64> = (0..10).map(|i| i as f64).collect();
    let c = &bootstrap_means(
        &[&y],
        &BootstrapConfig {
            resamples: 100,
            ..Default::default()
        },
    )
    .unwrap()
    .columns[0];
    assert_close!(c.analytic_se, 0.9574271077563381, 1e-15);
    let t = 2.262157162798205; // t_{0.975,9}, mpmath
    assert_close!(c.t.lower, 4.5 - t * 0.9574271077563381, 1e-9);
    assert_close!(c.t.upper, 4.5 + t * 0.9574271077563381, 1e-9);
    assert_eq!(c.t_df, 9.0);
}

// ---------------------------------------------------------------- §1.8 / §3.1 clusters

const S16: [f64; 16] = [
    1., 1., 0., 1., 0., 0., 0., 1., 1., 1., 1., 1., 0., 1., 0., 0.,
];
const C16: [u64; 16] = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3];

#[test]
fn clustered_se_vectors() {
    let r = clustered_se(&S16, &C16).unwrap();
    assert_close!(r.mean, 0.5625, 1e-15);
    assert_close!(r.se_iid, 0.1280868846, 1e-10);
    assert_close!(r.se_cr0, 0.1623797632, 1e-10);
    assert_close!(r.se_cr1, 0.1875, 1e-12);
    assert_eq!(r.clusters, 4);
}

/// inspect_ai: stderr(cluster) over 0..19 with cluster i % 4 = 0.6454972243679028
/// (CR1); clustered ci = 9.5 ± t_{0.975,3}·se; single cluster → CR0 0.
#[test]
fn clustered_se_inspect() {
    let y: Vec<f64> = (0..20).map(|i| i as f64).collect();
    let cl: Vec<u64> = (0..20).map(|i| i % 4).collect();
    let r = clustered_se(&y, &cl).unwrap();
    assert_close!(r.se_cr1, 0.6454972243679028, 1e-14);
    let ci = r.t_interval(0.95).unwrap();
    let t3 = 3.1824463052837084; // t_{0.975,3}, mpmath
    assert_close!(ci.lower, 9.5 - t3 * 0.6454972243679028, 1e-9);
    assert_close!(ci.upper, 9.5 + t3 * 0.6454972243679028, 1e-9);
    let one = clustered_se(&y, &[7; 20]).unwrap();
    assert_eq!(one.se_cr0, 0.0);
    assert!(one.se_cr1.is_nan());
}

/// §1.8's clustered example: 20 binary outcomes of A and B.
#[rustfmt::skip]
const CLUSTERED_A: [f64; 20] = [
    1., 1., 0., 1., 0., 0., 0., 1., 1., 1., 1., 1., 0., 1., 0., 0., 1., 1., 1., 0.,
];
#[rustfmt::skip]
const CLUSTERED_B: [f64; 20] = [
    1., 0., 0., 1., 0., 0., 0., 0., 1., 0., 0., 1., 0., 0., 1., 0., 1., 1., 1., 1.,
];

/// §1.8 paired + clustered (Eq. 8) on d = B − A.
#[test]
fn paired_clustered_se() {
    let (a, b) = (CLUSTERED_A, CLUSTERED_B);
    let cl: Vec<u64> = (0..20).map(|i| i / 4).collect();
    let d: Vec<f64> = a.iter().zip(&b).map(|(x, y)| x - y).collect();
    let r = clustered_se(&d, &cl).unwrap();
    assert_close!(r.mean, 0.15, 1e-15);
    assert_close!(r.se_cr0, 0.1140175425, 1e-10);
    assert_close!(r.se_cr1, 0.1274754878, 1e-10);
    assert_close!(r.se_iid, 0.1312891546, 1e-10);
    // The same through compare's per-metric statistics (delta = mean(b) −
    // mean(a)); numpy: CR1 of each side, t_{1−α/2, 4} from scipy.stats.t.
    let r = paired_row(&a, &b, Some(&cl));
    assert_close!(r.delta, -0.15, 1e-15);
    assert_close!(r.se.unwrap(), 0.1274754878398196, 1e-15);
    assert_close!(r.se_unpaired.unwrap(), 0.223606797749979, 1e-15);
    assert_close!(r.correlation.unwrap(), 0.3282439759448873, 1e-15);
    assert_eq!(r.df, 4.0);
    // the sign-flip units are the per-cluster sums of b − a, in cluster order
    assert_eq!(r.units, [-1.0, -1.0, -2.0, 0.0, 1.0]);
    let ci = r.t_interval(0.95).unwrap();
    assert_close!(ci.lower, -0.503928694245568, 1e-14);
    assert_close!(ci.upper, 0.20392869424556795, 1e-14);
    let ci = r.t_interval(0.90).unwrap();
    assert_close!(ci.lower, -0.42175820908674133, 1e-14);
    assert_close!(ci.upper, 0.12175820908674131, 1e-14);
    // Degenerate: every cluster has the same difference sum → CR0 exactly 0.
    let d2 = [1., 0., 0., 0., 0., 1., 0., 0., 0., 0., 0., 1.];
    let cl2 = [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2];
    assert_eq!(clustered_se(&d2, &cl2).unwrap().se_cr0, 0.0);
}

/// §3.1 test vectors 1 and 2: exact B → ∞ cluster-only bootstrap SEs;
/// large-B convergence of our cluster bootstrap.
#[test]
fn cluster_bootstrap_converges_to_exact_se() {
    let m = [
        [2.0, 4.0, 8.0, 16.0],
        [0.5, 0.7, 0.6, 0.8],
        [2.1, 2.3, 2.0, 2.2],
    ];
    let y: Vec<f64> = m.iter().flatten().copied().collect();
    let cl: Vec<u64> = (0..12).map(|i| i / 4).collect();
    let cfg = BootstrapConfig {
        resamples: 200_000,
        level: 0.95,
        seed: 5,
    };
    let r = cluster_bootstrap_means(&[&y], &cl, &cfg).unwrap();
    assert_eq!(r.units, 3);
    let c = &r.columns[0];
    assert_close!(c.estimate, 3.4333333333, 1e-9);
    assert_rclose!(c.std_error, 1.6974381568, 0.01);

    let bin = [
        [1., 1., 1., 1.],
        [0., 0., 0., 0.],
        [1., 0., 1., 0.],
        [1., 1., 1., 1.],
        [0., 1., 0., 0.],
        [1., 1., 0., 1.],
    ];
    let y: Vec<f64> = bin.iter().flatten().copied().collect();
    let cl: Vec<u64> = (0..24).map(|i| i / 4).collect();
    let c = &cluster_bootstrap_means(&[&y], &cl, &cfg).unwrap().columns[0];
    assert_close!(c.estimate, 0.5833333333, 1e-9);
    assert_rclose!(c.std_error, 0.1521451549, 0.01);
    // The problem-level bootstrap on question means is the same scheme.
    let qm: Vec<f64> = bin.iter().map(|r| r.iter().sum::<f64>() / 4.0).collect();
    let c = &bootstrap_means(&[&qm], &cfg).unwrap().columns[0];
    assert_rclose!(c.std_error, 0.1521451549, 0.01);
    // and Miller's SE on question means 0.1666666667 is the t-interval SE.
    assert_close!(c.analytic_se, 0.1666666667, 1e-9);
}

// ---------------------------------------------------------------- §5.2 binomial

#[test]
fn binomial_interval_table() {
    use BinomialMethod::*;
    // (x, n, method, lower, upper) from docs/statistics.md §5.2 (R binom.confint /
    // statsmodels reference values).
    #[rustfmt::skip]
    let table: &[(u64, u64, BinomialMethod, f64, f64)] = &[
        (18, 20, Wilson, 0.6989663548, 0.9721335188),
        (18, 20, ClopperPearson, 0.6830172860, 0.9876514728),
        (18, 20, Jeffreys, 0.7161467427, 0.9786275120),
        (18, 20, BayesUniform, 0.6962255931, 0.9695110324),
        (4, 20, Wilson, 0.0806576626, 0.4160174323),
        (4, 20, ClopperPearson, 0.0573339971, 0.4366140030),
        (4, 20, Jeffreys, 0.0715200525, 0.4082257625),
        (4, 20, BayesUniform, 0.0821758756, 0.4190660412),
        (4, 200, Wilson, 0.0078044264, 0.0502870869),
        (4, 200, ClopperPearson, 0.0054755659, 0.0504136091),
        (4, 200, Jeffreys, 0.0067875988, 0.0468465670),
        (4, 200, BayesUniform, 0.0081252947, 0.0501667043),
        (0, 30, Wilson, 0.0, 0.1135133932),
        (0, 30, ClopperPearson, 0.0, 0.1157033082),
        (0, 30, Jeffreys, 0.0000162319, 0.0796781738),
        (0, 30, BayesUniform, 0.0008163701, 0.1121887469),
        (1, 30, Wilson, 0.0059085904, 0.1667039099),
        (1, 30, ClopperPearson, 0.0008435709, 0.1721694556),
        (1, 30, Jeffreys, 0.0036204644, 0.1454177774),
        (1, 30, BayesUniform, 0.0079109835, 0.1670211162),
        (29, 30, Wilson, 0.8332960901, 0.9940914096),
        (29, 30, ClopperPearson, 0.8278305444, 0.9991564291),
        (29, 30, Jeffreys, 0.8545822226, 0.9963795356),
        (29, 30, BayesUniform, 0.8329788838, 0.9920890165),
        (100, 200, Wilson, 0.4313608596, 0.5686391404),
        (100, 200, ClopperPearson, 0.4286584309, 0.5713415691),
        (100, 200, Jeffreys, 0.4311216876, 0.5688783124),
        (100, 200, BayesUniform, 0.4312911836, 0.5687088164),
    ];
    for &(x, n, m, lo, hi) in table {
        let ci = binomial_interval(x, n, 0.95, m).unwrap();
        assert!(
            close(ci.lower, lo, 2e-10) && close(ci.upper, hi, 2e-10),
            "{x}/{n} {m:?}: got [{}, {}], expected [{lo}, {hi}]",
            ci.lower,
            ci.upper
        );
    }
    // statsmodels wilson-clip test, rtol 1e-12.
    let ci = binomial_interval(19, 38, 0.95, Wilson).unwrap();
    assert_rclose!(ci.lower, 0.348499283643951, 1e-12);
    assert_rclose!(ci.upper, 0.651500716356049, 1e-12);
}

/// One-sided 95% bounds at 100/200 (statsmodels `alternative=`), equal to
/// the two-sided 90% interval.
#[test]
fn binomial_one_sided_references() {
    use BinomialMethod::*;
    for &(m, lo, hi) in &[
        (Wilson, 0.442235, 0.557765),
        (ClopperPearson, 0.439641, 0.560359),
        (Jeffreys, 0.4421138, 0.5578862),
    ] {
        let ci = binomial_interval(100, 200, 0.90, m).unwrap();
        assert_close!(ci.lower, lo, 1e-6);
        assert_close!(ci.upper, hi, 1e-6);
    }
}

// ---------------------------------------------------------------- §4.3 tests

#[test]
fn mcnemar_vectors() {
    let m = mcnemar(15, 19);
    assert_close!(m.statistic, 0.470588235294, 1e-11);
    assert_close!(m.p_chi2, 0.492716677227, 1e-11);
    assert_close!(m.p_chi2_corrected, 0.606905427218, 1e-11);
    assert_close!(m.p_exact, 0.607591361273, 1e-11);
}

#[test]
fn multiplicity_p6() {
    let p = [0.002, 0.004, 0.006, 0.008, 0.010, 0.012];
    let holm = adjust_p_values(&p, PAdjust::Holm).unwrap();
    for (a, e) in holm.iter().zip([0.012, 0.020, 0.024, 0.024, 0.024, 0.024]) {
        assert_close!(*a, e, 1e-15);
    }
    for (a, pi) in adjust_p_values(&p, PAdjust::Bonferroni)
        .unwrap()
        .iter()
        .zip(p)
    {
        assert_close!(*a, 6.0 * pi, 1e-15);
    }
    for m in [PAdjust::Hochberg, PAdjust::BenjaminiHochberg] {
        for a in adjust_p_values(&p, m).unwrap() {
            assert_close!(a, 0.012, 1e-15);
        }
    }
    for a in adjust_p_values(&p, PAdjust::BenjaminiYekutieli).unwrap() {
        assert_close!(a, 0.0294, 1e-15);
    }
}

#[test]
fn multiplicity_tilestats_bh() {
    let p = [0.005, 0.009, 0.019, 0.022, 0.051, 0.101, 0.361, 0.387];
    let e = [0.036, 0.036, 0.044, 0.044, 0.082, 0.135, 0.387, 0.387];
    for (a, e) in adjust_p_values(&p, PAdjust::BenjaminiHochberg)
        .unwrap()
        .iter()
        .zip(e)
    {
        assert_close!(*a, e, 1e-3);
    }
}

#[test]
fn multiplicity_statsmodels_pval0() {
    let p = [
        0.838541367553,
        0.642193923795,
        0.680845947633,
        0.967833824309,
        0.71626938238,
        0.177096952723,
        5.23656777208e-05,
        0.0202732688798,
        0.00028140506198,
        0.0149877310796,
    ];
    let holm = adjust_p_values(&p, PAdjust::Holm).unwrap();
    let bh = adjust_p_values(&p, PAdjust::BenjaminiHochberg).unwrap();
    let by = adjust_p_values(&p, PAdjust::BenjaminiYekutieli).unwrap();
    // (input index, Holm, BH, BY)
    let rows = [
        (6, 5.23656777208e-04, 5.23656777208e-04, 1.5337740764e-03),
        (8, 2.53264555782e-03, 1.4070253099e-03, 4.1211324652e-03),
        (9, 0.1199018486, 0.0499591036, 0.1463286284),
        (7, 0.1419128822, 0.0506831722, 0.1484494024),
    ];
    for (i, h, b, y) in rows {
        assert_rclose!(holm[i], h, 1e-9);
        assert_rclose!(bh[i], b, 1e-9);
        assert_rclose!(by[i], y, 1e-9);
    }
    for i in [0, 1, 2, 3, 4, 5] {
        assert_eq!(holm[i], 1.0);
    }
}

// ---------------------------------------------------------------- §1.8 paired

/// §1.8 (Miller Eq. 7) through `paired_row`, the statistics the `compare`
/// command computes per metric. scipy 1.17: `ttest_rel(b, a)` (statistic and
/// `confidence_interval`), `pearsonr`, `binomtest(0, 4)`,
/// `permutation_test(..., permutation_type="samples", n_resamples=inf)`.
#[test]
fn paired_vectors_miller_eq7() {
    let a = [
        1., 1., 0., 1., 0., 1., 1., 0., 1., 1., 0., 1., 1., 1., 0., 1., 1., 0., 1., 1.,
    ];
    let b = [
        1., 0., 0., 1., 0., 1., 0., 0., 1., 1., 0., 1., 0., 1., 0., 1., 1., 0., 0., 1.,
    ];
    let r = paired_row(&a, &b, None);
    assert_close!(r.mean_a, 0.7, 1e-15);
    assert_close!(r.mean_b, 0.5, 1e-15);
    assert_close!(r.delta, -0.2, 1e-15);
    assert_close!(r.se.unwrap(), 0.09176629354822471, 1e-15);
    assert_close!(r.se_unpaired.unwrap(), 0.1555973210430998, 1e-15);
    assert_close!(r.correlation.unwrap(), 0.6546536707079772, 1e-15);
    assert_eq!(r.df, 19.0);
    assert_close!(r.delta / r.se.unwrap(), -2.1794494717703365, 1e-13);
    let ci = r.t_interval(0.95).unwrap();
    assert_close!(ci.lower, -0.39206905978032836, 1e-14);
    assert_close!(ci.upper, -0.007930940219671667, 1e-14);
    let ci = r.t_interval(0.90).unwrap();
    assert_close!(ci.lower, -0.3586761091659372, 1e-14);
    assert_close!(ci.upper, -0.04132389083406299, 1e-14);
    let m = r.mcnemar.unwrap();
    assert_eq!((m.a_only, m.b_only), (4, 0));
    assert_close!(m.p_exact, 0.125, 1e-15); // 2·(1/2)^4
                                            // Sign flip on the units: 4 nonzero differences of one sign, so exactly
                                            // 2 of the 2^4 patterns reach |Σ| = 4 (scipy's permutation_test: 0.125).
    let f = sign_flip(&r.units, 10_000, 1).unwrap();
    assert!(f.exact);
    assert_eq!((f.p, f.patterns), (0.125, 16));
}

/// Pass@1 over 4 rollouts (multiples of 1/4) through `paired_row`: scipy
/// `ttest_rel(b, a)`, `pearsonr`, and `permutation_test` over all 2^10 sign
/// patterns (zeros included) = 18/256; McNemar does not apply.
#[test]
fn paired_row_fractional_scipy() {
    let a = [0.25, 0.5, 1.0, 0.75, 0.0, 0.5, 0.25, 1.0, 0.75, 0.5];
    let b = [0.5, 0.75, 1.0, 1.0, 0.25, 0.25, 0.5, 1.0, 1.0, 0.75];
    let r = paired_row(&a, &b, None);
    assert_close!(r.delta, 0.15, 1e-15);
    assert_close!(r.se.unwrap(), 0.055277079839256664, 1e-15);
    assert_close!(r.se_unpaired.unwrap(), 0.14240006242195885, 1e-15);
    assert_close!(r.correlation.unwrap(), 0.851314306390689, 1e-15);
    assert_close!(r.delta / r.se.unwrap(), 2.7136021011998723, 1e-13);
    let ci = r.t_interval(0.95).unwrap();
    assert_close!(ci.lower, 0.024954557903057284, 1e-14);
    assert_close!(ci.upper, 0.2750454420969427, 1e-14);
    assert!(r.mcnemar.is_none());
    let f = sign_flip(&r.units, 1 << 10, 1).unwrap();
    assert!(f.exact);
    assert_eq!(f.p, 0.0703125);
    assert_eq!(f.p, enumerated_sign_flip_p(&r.units, 4.0));
}

/// Exact two-sided sign-flip p-value by enumeration of all `2^len` sign
/// patterns of `units` (zeros included, as scipy's `permutation_test` does),
/// in integer arithmetic on `units · scale` (which must be integers): the
/// fraction of patterns with `|Σ ±u| ≥ |Σ u|`.
fn enumerated_sign_flip_p(units: &[f64], scale: f64) -> f64 {
    let ints: Vec<i64> = units
        .iter()
        .map(|&u| {
            let v = u * scale;
            assert_eq!(v, v.round(), "{u} · {scale} is not an integer");
            v as i64
        })
        .collect();
    let observed = ints.iter().sum::<i64>().abs();
    let total = 1u64 << ints.len();
    let hits = (0..total)
        .filter(|mask| {
            let s: i64 = ints
                .iter()
                .enumerate()
                .map(|(i, &v)| if mask >> i & 1 == 1 { -v } else { v })
                .sum();
            s.abs() >= observed
        })
        .count() as u64;
    hits as f64 / total as f64 // exact: total is a power of 2 ≤ 2^20
}

/// Binary outcomes with `a_only` problems only A solves, `b_only` only B
/// solves and `both`/`neither` ties, through `paired_row`: McNemar's exact p
/// is scipy `binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue`,
/// and the exact sign flip on the units equals it (and the enumeration).
#[test]
fn paired_row_mcnemar_binomtest() {
    #[rustfmt::skip]
    let cases: &[(usize, usize, usize, usize, f64)] = &[
        (4, 1, 2, 1, 0.375),
        (7, 2, 3, 0, 0.1796875),
        (0, 6, 1, 1, 0.03125),
        (3, 3, 0, 2, 1.0),
        (10, 4, 2, 2, 0.1795654296875),
        (15, 19, 3, 5, 0.6075913612730801),
    ];
    for &(a_only, b_only, both, neither, p) in cases {
        let mut a = Vec::new();
        let mut b = Vec::new();
        for (n, x, y) in [
            (a_only, 1.0, 0.0),
            (b_only, 0.0, 1.0),
            (both, 1.0, 1.0),
            (neither, 0.0, 0.0),
        ] {
            a.extend(std::iter::repeat_n(x, n));
            b.extend(std::iter::repeat_n(y, n));
        }
        let r = paired_row(&a, &b, None);
        let m = r.mcnemar.unwrap();
        assert_eq!((m.a_only, m.b_only), (a_only as u64, b_only as u64));
        assert_rclose!(m.p_exact, p, 1e-13);
        let discordant = a_only + b_only;
        if discordant <= 20 {
            let f = sign_flip(&r.units, 1 << 20, 1).unwrap();
            assert!(f.exact);
            assert_eq!(f.p, p, "{a_only}/{b_only}");
            assert_eq!(f.p, enumerated_sign_flip_p(&r.units, 1.0));
        }
    }
}

/// Clustered units through `paired_row`: the exact sign flip over whole
/// clusters equals the enumeration of every sign pattern of the cluster sums.
#[test]
fn paired_row_clustered_sign_flip_enumeration() {
    let (a, b) = (CLUSTERED_A, CLUSTERED_B);
    // Cluster sums of b − a in order of first appearance, and the fraction
    // of their 2^C sign patterns reaching |Σ| (enumerated with Python's
    // itertools.product and fractions, as well as in this test).
    type Label = fn(u64) -> u64;
    #[rustfmt::skip]
    let cases: [(Label, Vec<f64>, f64); 3] = [
        (|i| i / 4, vec![-1., -1., -2., 0., 1.], 16.0 / 32.0),
        (|i| i / 2, vec![-1., 0., 0., -1., -1., -1., -1., 1., 0., 1.], 464.0 / 1024.0),
        (|i| i % 7, vec![0., -1., -1., -1., 0., 1., -1.], 48.0 / 128.0),
    ];
    for (label, units, p) in cases {
        let cl: Vec<u64> = (0..20).map(label).collect();
        let r = paired_row(&a, &b, Some(&cl));
        assert_eq!(r.units, units);
        let expected = enumerated_sign_flip_p(&r.units, 1.0);
        assert_eq!(expected, p);
        let f = sign_flip(&r.units, 1 << 10, 1).unwrap();
        assert!(f.exact);
        assert_eq!(f.p, expected);
    }
}

/// Sign-flip test on ±1 data equals the two-sided sign test; exact
/// enumeration of all 2^10 flips gives 112/1024 = 0.109375.
#[test]
fn sign_flip_matches_exact_enumeration() {
    let mut d = vec![1.0; 8];
    d.extend([-1.0, -1.0]);
    assert_eq!(enumerated_sign_flip_p(&d, 1.0), 0.109375);
    assert_eq!(sign_flip(&d, 1 << 10, 9).unwrap().p, 0.109375);
    let p = sign_flip_test(&d, 40_000, 9).unwrap();
    assert!((p - 0.109375).abs() < 0.006, "{p}");
}

// ---------------------------------------------------------------- §1.3 / §1.5 power

#[test]
fn miller_power_examples() {
    let z = z_alpha_beta(0.05, 0.8).unwrap();
    assert_close!(z * z, 7.8488797343, 1e-10);
    // n ≈ 969 with ω² = 1/9 (paper), 968.997 recomputed.
    assert_close!(
        problems_needed(1.0 / 9.0, 0.03, 0.05, 0.8).unwrap(),
        968.997,
        1e-3
    );
    // Erratum §1.6.1: corr 0.5 on uniform scores gives ω² = 1/12 → 726.75.
    let sd = (1.0f64 / 12.0).sqrt();
    let omega2 = paired_difference_variance(sd, sd, 0.5);
    assert_close!(
        problems_needed(omega2, 0.03, 0.05, 0.8).unwrap(),
        726.75,
        1e-2
    );
    // Erratum §1.6.2: MDE K = 1 → 10 at n = 200 is 13.207% → 7.529%; n = 198 gives 0.13273 / 0.07567.
    let v = PowerVariance {
        omega2: 1.0 / 9.0,
        sigma2_a: 1.0 / 6.0,
        sigma2_b: 1.0 / 6.0,
        k_a: 1.0,
        k_b: 1.0,
    };
    let mde = |n: f64, k: f64| {
        minimum_detectable_effect(v.with_rollouts(k, k).total(), n, 0.05, 0.8).unwrap()
    };
    assert_close!(mde(200.0, 1.0), 0.13207, 1e-5);
    assert_close!(mde(200.0, 10.0), 0.07529, 1e-5);
    assert_close!(mde(198.0, 1.0), 0.13273, 1e-5);
    assert_close!(mde(198.0, 10.0), 0.07567, 1e-5);
    let t = rollouts_vs_problems(&v, 200.0, 10.0, 0.05, 0.8).unwrap();
    assert_close!(t.mde_current, 0.13207, 1e-5);
    assert_close!(t.mde_more_rollouts, 0.07529, 1e-5);
}

/// §1.8 power table (Eq. 9 with K_A = K_B).
#[test]
fn power_table() {
    #[rustfmt::skip]
    let rows: &[(f64, f64, f64, f64, Option<f64>)] = &[
        (0.21, 0.0, 1.0, 1831.405, Some(0.040599)),
        (0.42, 0.0, 1.0, 3662.811, None),
        (0.05, 0.1, 1.0, 2180.244, Some(0.044297)),
        (0.05, 0.1, 10.0, 610.468, Some(0.023440)),
    ];
    for &(omega2, s2, k, n, mde) in rows {
        let v = PowerVariance {
            omega2,
            sigma2_a: s2,
            sigma2_b: s2,
            k_a: k,
            k_b: k,
        };
        assert_close!(
            problems_needed(v.total(), 0.03, 0.05, 0.8).unwrap(),
            n,
            1e-3
        );
        if let Some(m) = mde {
            assert_close!(
                minimum_detectable_effect(v.total(), 1000.0, 0.05, 0.8).unwrap(),
                m,
                1e-6
            );
        }
    }
}

/// Miller §3.1: x ~ U[0,1] binary, Var(x) = 1/12, E[σ²] = 1/6 →
/// Var(μ̂|K)/Var(μ̂|1) = (1+2/K)/3: −1/3 at K=2, −1/2 at K=4, −5/9 at K=6.
#[test]
fn miller_resampling_ratios() {
    let v = PowerVariance {
        omega2: 1.0 / 12.0,
        sigma2_a: 1.0 / 6.0,
        sigma2_b: 0.0,
        k_a: 1.0,
        k_b: 1.0,
    };
    let base = v.total();
    for (k, red) in [(2.0, 1.0 / 3.0), (4.0, 0.5), (6.0, 5.0 / 9.0)] {
        let r = v.with_rollouts(k, 1.0).total() / base;
        assert_close!(1.0 - r, red, 1e-15);
    }
}

// ---------------------------------------------------------------- §1.8 / §6.2 variance

#[test]
fn resampling_k4_decomposition() {
    let rows = [
        [1., 1., 1., 0.],
        [0., 0., 0., 0.],
        [1., 0., 1., 0.],
        [1., 1., 1., 1.],
        [0., 1., 0., 0.],
    ];
    let y: Vec<f64> = rows.iter().map(|r| r.iter().sum::<f64>() / 4.0).collect();
    let v: Vec<f64> = rows
        .iter()
        .map(|r| pass1_sampling_variance(4, r.iter().sum::<f64>() as u64).unwrap())
        .collect();
    let d = variance_decomposition(&y, &v).unwrap();
    assert_close!(d.se(), 0.1767766953, 1e-10);
    // Ê[σ²] (per rollout, ddof=1) = 1/6 → within (per mean of 4) = 1/24
    assert_close!(d.within * 4.0, 0.1666666667, 1e-10);
    assert_close!(d.between, 0.1145833333, 1e-10);
    assert_eq!(d.dominant, VarianceSource::Between);
    assert_close!(d.projected_se(5.0, 0.25), 0.2371708245, 1e-10);
    assert_close!(d.projected_se(5.0, 4.0), 0.1581138830, 1e-10);
    assert_close!(d.projected_se(5.0, f64::INFINITY), 0.1513825177, 1e-10);
}

/// §6.2 observed-data V̂ values.
#[test]
fn pass_at_k_variance_estimates() {
    assert_close!(
        pass_at_k_sampling_variance(10, 3, 1).unwrap(),
        0.0233333333,
        1e-10
    );
    assert_close!(pass1_sampling_variance(10, 3).unwrap(), 0.0233333333, 1e-10);
    assert_close!(
        pass_at_k_sampling_variance(10, 3, 3).unwrap(),
        0.0517361111,
        1e-10
    );
    assert_close!(
        pass_at_k_sampling_variance(20, 2, 5).unwrap(),
        0.0685595568,
        1e-10
    );
    assert_close!(
        pass_at_k_sampling_variance(16, 8, 4).unwrap(),
        0.0014015899,
        1e-10
    );
    assert!(pass_at_k_sampling_variance(5, 2, 3).is_none());
    assert!(pass_at_k_sampling_variance(10, 3, 0).is_none());
    assert!(pass1_sampling_variance(1, 1).is_none());
}

/// §6.2 table: E[V̂] over c ~ Bin(n, p) equals the exact Var[p̂_k]
/// (enumerated values), i.e. V̂ is unbiased.
#[test]
fn pass_at_k_variance_unbiased() {
    fn ln_fact(n: u64) -> f64 {
        (1..=n).map(|i| (i as f64).ln()).sum()
    }
    for &(n, k, p, var) in &[
        (10u64, 1u64, 0.3, 0.021),
        (10, 3, 0.3, 4.977787500e-02),
        (20, 5, 0.1, 5.073540849e-02),
        (200, 10, 0.05, 9.535465097e-03),
        (16, 4, 0.5, 5.191878434e-03),
    ] {
        let mut e = 0.0;
        for c in 0..=n {
            let lp = ln_fact(n) - ln_fact(c) - ln_fact(n - c)
                + c as f64 * f64::ln(p)
                + (n - c) as f64 * f64::ln(1.0 - p);
            e += lp.exp() * pass_at_k_sampling_variance(n, c, k).unwrap();
        }
        assert_rclose!(e, var, 1e-8);
    }
}
