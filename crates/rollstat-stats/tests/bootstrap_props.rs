//! Behavioural tests of the bootstrap engine: determinism across thread
//! counts, seed sensitivity, shared resampled indices across columns, NaN
//! handling, exact-enumeration convergence, paired vs unpaired width, and
//! coverage of nominal 95% intervals on simulated rollout data.

use proptest::prelude::*;
use rollstat_stats::rng::{bounded, Xoshiro256PlusPlus};
use rollstat_stats::*;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
}

fn bits(i: Interval) -> (u64, u64) {
    (i.lower.to_bits(), i.upper.to_bits())
}

fn assert_bit_identical(a: &BootstrapReport, b: &BootstrapReport) {
    assert_eq!(a.columns.len(), b.columns.len());
    for (x, y) in a.columns.iter().zip(&b.columns) {
        let dx: Vec<u64> = x.distribution().iter().map(|v| v.to_bits()).collect();
        let dy: Vec<u64> = y.distribution().iter().map(|v| v.to_bits()).collect();
        assert_eq!(dx, dy);
        for m in CiMethod::ALL {
            assert_eq!(bits(x.interval(m)), bits(y.interval(m)), "{m:?}");
        }
        assert_eq!(x.std_error.to_bits(), y.std_error.to_bits());
        assert_eq!(x.undefined_resamples, y.undefined_resamples);
    }
}

/// A deterministic synthetic dataset: N problems, columns with some NaN.
fn synthetic(n: usize, seed: u64) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
    let mut g = Xoshiro256PlusPlus::seed_from_u64(seed);
    let a: Vec<f64> = (0..n).map(|_| (bounded(&mut g, 9) as f64) / 8.0).collect();
    let b: Vec<f64> = a
        .iter()
        .map(|v| if g.next_f64() < 0.1 { f64::NAN } else { v * v })
        .collect();
    let c: Vec<f64> = (0..n).map(|_| g.next_f64() * 3.0).collect();
    (a, b, c)
}

#[test]
fn bit_identical_for_one_and_two_threads() {
    let (a, b, c) = synthetic(301, 1);
    let cfg = BootstrapConfig {
        resamples: 3001, // not a multiple of the chunk size
        level: 0.95,
        seed: 77,
    };
    let cols: [&[f64]; 3] = [&a, &b, &c];
    let r1 = pool(1).install(|| bootstrap_means(&cols, &cfg).unwrap());
    let r2 = pool(2).install(|| bootstrap_means(&cols, &cfg).unwrap());
    assert_bit_identical(&r1, &r2);
    let cl: Vec<u64> = (0..301).map(|i| (i / 7) as u64).collect();
    let c1 = pool(1).install(|| cluster_bootstrap_means(&cols, &cl, &cfg).unwrap());
    let c2 = pool(2).install(|| cluster_bootstrap_means(&cols, &cl, &cfg).unwrap());
    assert_bit_identical(&c1, &c2);
    let d: Vec<f64> = a.iter().zip(&c).map(|(x, y)| y - x).collect();
    let p1 = pool(1).install(|| sign_flip_test(&d, 5000, 3).unwrap());
    let p2 = pool(2).install(|| sign_flip_test(&d, 5000, 3).unwrap());
    assert_eq!(p1.to_bits(), p2.to_bits());
    // and repeatable in the same pool
    let r3 = pool(2).install(|| bootstrap_means(&cols, &cfg).unwrap());
    assert_bit_identical(&r2, &r3);
}

#[test]
fn different_seeds_differ_but_are_close() {
    let (a, _, _) = synthetic(400, 2);
    let run = |seed| {
        bootstrap_means(
            &[&a],
            &BootstrapConfig {
                resamples: 4000,
                level: 0.95,
                seed,
            },
        )
        .unwrap()
        .columns
        .remove(0)
    };
    let (x, y) = (run(1), run(2));
    assert_eq!(x.estimate, y.estimate);
    for m in [CiMethod::Percentile, CiMethod::Basic, CiMethod::Bca] {
        let (i, j) = (x.interval(m), y.interval(m));
        assert_ne!(bits(i), bits(j), "{m:?}: seeds gave identical intervals");
        let w = i.width();
        assert!((i.lower - j.lower).abs() < 0.05 * w, "{m:?} {i:?} {j:?}");
        assert!((i.upper - j.upper).abs() < 0.05 * w, "{m:?} {i:?} {j:?}");
    }
    assert!((x.std_error / y.std_error - 1.0).abs() < 0.05);
    // t does not resample
    assert_eq!(bits(x.t), bits(y.t));
}

/// All columns see the same resampled problems: an affine transform of a
/// column has the affinely transformed distribution, replicate by replicate.
#[test]
fn columns_share_resampled_indices() {
    let (a, _, _) = synthetic(97, 3);
    let b: Vec<f64> = a.iter().map(|v| 2.0 * v + 1.0).collect();
    let r = bootstrap_means(
        &[&a, &b],
        &BootstrapConfig {
            resamples: 2000,
            ..Default::default()
        },
    )
    .unwrap();
    let (da, db) = (r.columns[0].distribution(), r.columns[1].distribution());
    for (x, y) in da.iter().zip(db) {
        assert!((2.0 * x + 1.0 - y).abs() < 1e-12);
    }
}

/// A column defined on one problem out of four: every defined replicate
/// equals that value; the others are undefined with probability (3/4)^4.
#[test]
fn nan_entries_are_excluded_per_column() {
    let a = [0.1, 0.2, 0.3, 0.4];
    let b = [f64::NAN, 5.0, f64::NAN, f64::NAN];
    let r = bootstrap_means(
        &[&a, &b],
        &BootstrapConfig {
            resamples: 20_000,
            ..Default::default()
        },
    )
    .unwrap();
    let c = &r.columns[1];
    assert_eq!(c.n, 1);
    assert_eq!(c.estimate, 5.0);
    assert!(c.distribution().iter().all(|&v| v == 5.0));
    let frac = c.undefined_resamples as f64 / 20_000.0;
    assert!((frac - 0.31640625).abs() < 0.012, "{frac}");
    assert_eq!(r.columns[0].undefined_resamples, 0);
}

/// Exact enumeration: for N = 3 the ideal bootstrap distribution of the mean
/// puts mass on the 27 equally likely index tuples; the empirical CDF of a
/// large-B run must match it.
#[test]
fn matches_exact_enumeration_small_n() {
    let x = [0.0, 1.0, 3.0];
    let mut exact: Vec<f64> = Vec::new();
    for i in 0..3 {
        for j in 0..3 {
            for k in 0..3 {
                exact.push((x[i] + x[j] + x[k]) / 3.0);
            }
        }
    }
    let r = bootstrap_means(
        &[&x],
        &BootstrapConfig {
            resamples: 200_000,
            level: 0.95,
            seed: 123,
        },
    )
    .unwrap();
    let d = r.columns[0].distribution();
    let mut support = exact.clone();
    support.sort_by(f64::total_cmp);
    support.dedup_by(|a, b| (*a - *b).abs() < 1e-12);
    for &v in &support {
        let p_exact = exact.iter().filter(|&&e| e <= v + 1e-12).count() as f64 / 27.0;
        let p_emp = d.partition_point(|&e| e <= v + 1e-12) as f64 / d.len() as f64;
        assert!(
            (p_exact - p_emp).abs() < 0.005,
            "v={v}: {p_exact} vs {p_emp}"
        );
    }
    // ideal SE = sqrt(Σ(x−x̄)²)/N
    let mean = 4.0 / 3.0;
    let ideal = x
        .iter()
        .map(|v| (v - mean) * (v - mean))
        .sum::<f64>()
        .sqrt()
        / 3.0;
    assert!((r.columns[0].std_error / ideal - 1.0).abs() < 0.01);
}

/// Strongly correlated a and b: the paired CI is much narrower than an
/// unpaired one. Built as the `compare` command builds a row: `paired_row`
/// for the SEs, one bootstrap of the differences, `sign_flip` on the units
/// and `non_inferiority_verdict` on the one-sided bounds.
#[test]
fn paired_ci_narrower_than_unpaired() {
    let mut g = Xoshiro256PlusPlus::seed_from_u64(8);
    let n = 300;
    let a: Vec<f64> = (0..n).map(|_| g.next_f64()).collect();
    let b: Vec<f64> = a
        .iter()
        .map(|v| (v + 0.03 + 0.05 * (g.next_f64() - 0.5)).clamp(0.0, 1.0))
        .collect();
    let config = BootstrapConfig::default();
    let paired = |a: &[f64], b: &[f64]| {
        let row = paired_row(a, b, None);
        let boot = bootstrap_means(&[&row.units], &config).unwrap();
        (row, boot.columns.into_iter().next().unwrap())
    };
    let verdict = |c: &ColumnBootstrap, m: CiMethod, margin: f64| {
        non_inferiority_verdict(c.one_sided_bounds(m, 0.95).unwrap(), margin).unwrap()
    };
    let (r, boot) = paired(&a, &b);
    let (se, se_unpaired) = (r.se.unwrap(), r.se_unpaired.unwrap());
    assert!(r.correlation.unwrap() > 0.95, "{:?}", r.correlation);
    assert!(se < 0.2 * se_unpaired);
    let z = 1.959963984540054;
    let unpaired_width = 2.0 * z * se_unpaired;
    for m in CiMethod::ALL {
        let ci = boot.interval(m);
        assert!(ci.width() < 0.2 * unpaired_width, "{m:?}");
        assert!(ci.lower > 0.0, "{m:?}: clear improvement should exclude 0");
    }
    // bootstrap SE ≈ paired SE (ideal ratio sqrt((n-1)/n))
    assert!((boot.std_error / se - 1.0).abs() < 0.05);
    assert!(sign_flip(&r.units, 10_000, config.seed).unwrap().p < 0.001);
    assert_eq!(
        verdict(&boot, CiMethod::Bca, 0.01),
        NonInferiorityVerdict::NonInferior
    );
    // swapped roles: b is clearly worse than a by more than a 0.005 margin
    let (_, boot2) = paired(&b, &a);
    assert_eq!(
        verdict(&boot2, CiMethod::Percentile, 0.005),
        NonInferiorityVerdict::Inferior
    );
    assert_eq!(
        verdict(&boot2, CiMethod::Percentile, 0.03),
        NonInferiorityVerdict::Inconclusive
    );
}

/// Beta(2, 3) draw as the 2nd order statistic of 4 uniforms.
fn beta23(g: &mut Xoshiro256PlusPlus) -> f64 {
    let mut u = [g.next_f64(), g.next_f64(), g.next_f64(), g.next_f64()];
    u.sort_by(f64::total_cmp);
    u[1]
}

/// Fraction of simulated datasets whose percentile / BCa intervals cover the
/// true mean 0.4. Each dataset: `problems` problems, p ~ Beta(2,3), `n`
/// rollouts each, y = c/n.
fn coverage(datasets: usize, problems: usize, rollouts: usize, resamples: usize) -> (f64, f64) {
    let truth = 0.4;
    let (mut cp, mut cb) = (0usize, 0usize);
    for d in 0..datasets {
        let mut g = Xoshiro256PlusPlus::seed_from_u64(0xC0FFEE + d as u64);
        let y: Vec<f64> = (0..problems)
            .map(|_| {
                let p = beta23(&mut g);
                (0..rollouts).filter(|_| g.next_f64() < p).count() as f64 / rollouts as f64
            })
            .collect();
        let r = bootstrap_means(
            &[&y],
            &BootstrapConfig {
                resamples,
                level: 0.95,
                seed: d as u64,
            },
        )
        .unwrap();
        cp += r.columns[0].percentile.contains(truth) as usize;
        cb += r.columns[0].bca.contains(truth) as usize;
    }
    (cp as f64 / datasets as f64, cb as f64 / datasets as f64)
}

/// Quick seeded coverage check: 200 datasets × 1000 resamples. With 200
/// datasets the binomial sd of a 95% rate is 1.5 points, so accept [0.90, 0.99].
#[test]
fn coverage_quick() {
    let (p, b) = coverage(200, 200, 8, 1000);
    eprintln!("coverage (200 datasets): percentile {p}, bca {b}");
    assert!((0.90..=0.99).contains(&p), "percentile coverage {p}");
    assert!((0.90..=0.99).contains(&b), "bca coverage {b}");
}

/// Longer version: 2000 datasets × 2000 resamples (sd 0.5 points).
/// Run with `cargo test --release -p rollstat-stats -- --ignored`.
#[test]
#[ignore]
fn coverage_long() {
    let (p, b) = coverage(2000, 300, 8, 2000);
    eprintln!("coverage (2000 datasets): percentile {p}, bca {b}");
    assert!((0.935..=0.965).contains(&p), "percentile coverage {p}");
    assert!((0.935..=0.965).contains(&b), "bca coverage {b}");
}

#[test]
fn warnings_as_data() {
    let w = method_warnings(&MethodContext {
        method: CiMethod::T,
        n: 120,
        clusters: None,
        binary: false,
        resamples: 0,
    });
    assert_eq!(w.len(), 1);
    assert_eq!(w[0].code, "clt-small-n");
    // Unclustered values that are not 0/1: the model-based interval.
    assert_eq!(w[0].suggestion, Some("beta-binomial"));
    let w = method_warnings(&MethodContext {
        method: CiMethod::Percentile,
        n: 50,
        clusters: Some(10),
        binary: false,
        resamples: 500,
    });
    let codes: Vec<&str> = w.iter().map(|w| w.code).collect();
    assert_eq!(
        codes,
        ["bootstrap-small-n", "few-clusters", "few-resamples"]
    );
    assert!(method_warnings(&MethodContext {
        method: CiMethod::Bca,
        n: 5000,
        clusters: None,
        binary: true,
        resamples: 10_000,
    })
    .is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn interval_invariants(y in proptest::collection::vec(0.0f64..1.0, 2..40), seed in any::<u64>()) {
        let r = bootstrap_means(&[&y], &BootstrapConfig { resamples: 300, level: 0.9, seed }).unwrap();
        let c = &r.columns[0];
        let lo = y.iter().cloned().fold(f64::INFINITY, f64::min);
        let hi = y.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
        prop_assert!(c.percentile.lower <= c.percentile.upper);
        prop_assert!(c.percentile.lower >= lo - 1e-12 && c.percentile.upper <= hi + 1e-12);
        prop_assert!((c.basic.lower + c.percentile.upper - 2.0 * c.estimate).abs() < 1e-9);
        prop_assert!((c.basic.upper + c.percentile.lower - 2.0 * c.estimate).abs() < 1e-9);
        if !c.bca.lower.is_nan() {
            prop_assert!(c.bca.lower <= c.bca.upper);
        }
    }

    #[test]
    fn p_adjust_invariants(p in proptest::collection::vec(0.0f64..=1.0, 1..30)) {
        let holm = adjust_p_values(&p, PAdjust::Holm).unwrap();
        let bonf = adjust_p_values(&p, PAdjust::Bonferroni).unwrap();
        let hoch = adjust_p_values(&p, PAdjust::Hochberg).unwrap();
        let bh = adjust_p_values(&p, PAdjust::BenjaminiHochberg).unwrap();
        let by = adjust_p_values(&p, PAdjust::BenjaminiYekutieli).unwrap();
        for i in 0..p.len() {
            prop_assert!(p[i] <= bh[i] + 1e-15 && bh[i] <= by[i] + 1e-15 && by[i] <= 1.0);
            prop_assert!(bh[i] <= hoch[i] + 1e-15 && hoch[i] <= holm[i] + 1e-15 && holm[i] <= bonf[i] + 1e-15);
            for j in 0..p.len() {
                if p[i] <= p[j] {
                    prop_assert!(holm[i] <= holm[j] && bh[i] <= bh[j]);
                }
            }
        }
    }

    #[test]
    fn binomial_intervals_ordered(n in 1u64..500, frac in 0.0f64..=1.0, level in 0.5f64..0.999) {
        let x = ((n as f64) * frac).round() as u64;
        let p = x as f64 / n as f64;
        for m in [BinomialMethod::Wilson, BinomialMethod::Jeffreys, BinomialMethod::ClopperPearson, BinomialMethod::BayesUniform] {
            let ci = binomial_interval(x, n, level, m).unwrap();
            prop_assert!(0.0 <= ci.lower && ci.lower <= ci.upper && ci.upper <= 1.0, "{:?} {:?}", m, ci);
            // Equal-tailed Bayes/Jeffreys intervals exclude p̂ at x ∈ {0, n}
            // (no Brown–Cai–DasGupta boundary modification; documented).
            let boundary = x == 0 || x == n;
            if m == BinomialMethod::Wilson || m == BinomialMethod::ClopperPearson || (m == BinomialMethod::Jeffreys && !boundary) {
                prop_assert!(ci.lower <= p + 1e-12 && p <= ci.upper + 1e-12, "{:?} {:?} p={}", m, ci, p);
            }
        }
        // Clopper–Pearson contains Jeffreys
        let cp = binomial_interval(x, n, level, BinomialMethod::ClopperPearson).unwrap();
        let j = binomial_interval(x, n, level, BinomialMethod::Jeffreys).unwrap();
        prop_assert!(cp.lower <= j.lower + 1e-12 && j.upper <= cp.upper + 1e-12);
    }
}

/// Singleton clusters: the cluster bootstrap is the problem bootstrap (same
/// units, same streams), and CR1 with singleton clusters equals sd/√n.
#[test]
fn singleton_clusters_equal_problem_bootstrap() {
    let (a, b, _) = synthetic(150, 4);
    let cfg = BootstrapConfig {
        resamples: 1000,
        level: 0.9,
        seed: 21,
    };
    let cl: Vec<u64> = (0..150).map(|i| 1000 + i as u64).collect();
    let p = bootstrap_means(&[&a, &b], &cfg).unwrap();
    let c = cluster_bootstrap_means(&[&a, &b], &cl, &cfg).unwrap();
    for (x, y) in p.columns.iter().zip(&c.columns) {
        assert_eq!(x.distribution(), y.distribution());
        assert_eq!(bits(x.bca), bits(y.bca));
        assert!((x.analytic_se / y.analytic_se - 1.0).abs() < 1e-12);
    }
}

/// Analogue of scipy's test_bootstrap_against_theory: for 5000 normal draws
/// (our own generator, so not scipy's data) the percentile, basic and BCa
/// intervals of the mean match the t interval to rtol 5e-4 and the bootstrap
/// SE matches sd/√n (atol 6e-4, ≈ 3 Monte-Carlo sd at B = 9999).
#[test]
fn normal_data_matches_t_interval() {
    let mut g = Xoshiro256PlusPlus::seed_from_u64(2442101192988600726);
    let n = 5000;
    let y: Vec<f64> = (0..n / 2)
        .flat_map(|_| {
            let (u1, u2) = (1.0 - g.next_f64(), g.next_f64());
            let r = (-2.0 * u1.ln()).sqrt();
            let t = 2.0 * std::f64::consts::PI * u2;
            [5.0 + 2.0 * r * t.cos(), 5.0 + 2.0 * r * t.sin()]
        })
        .collect();
    let c = &bootstrap_means(
        &[&y],
        &BootstrapConfig {
            resamples: 9999,
            level: 0.95,
            seed: 1,
        },
    )
    .unwrap()
    .columns[0];
    for m in [CiMethod::Percentile, CiMethod::Basic, CiMethod::Bca] {
        let ci = c.interval(m);
        assert!(
            rclose(ci.lower, c.t.lower, 5e-4),
            "{m:?} {ci:?} vs {:?}",
            c.t
        );
        assert!(
            rclose(ci.upper, c.t.upper, 5e-4),
            "{m:?} {ci:?} vs {:?}",
            c.t
        );
    }
    assert!((c.std_error - c.analytic_se).abs() < 6e-4);
}

fn rclose(a: f64, b: f64, rtol: f64) -> bool {
    (a - b).abs() <= rtol * b.abs()
}

/// Many problems with few distinct values take the per-type multinomial
/// path: its bootstrap SE and percentile interval must match the known
/// sampling distribution of a mean (SE = population sd / √U, ddof 0), and
/// the same seed must give the same numbers on 1 and 2 threads.
#[test]
fn typed_multinomial_path_matches_theory() {
    use rollstat_stats::{bootstrap_means, BootstrapConfig, CiMethod};
    let values = [0.0, 0.25, 0.5, 0.75, 1.0];
    let weights = [5usize, 1, 1, 1, 2]; // skewed towards 0
    let mut y = Vec::new();
    for i in 0..50_000usize {
        let mut k = i % 10;
        let mut v = 0;
        while k >= weights[v] {
            k -= weights[v];
            v += 1;
        }
        y.push(values[v]);
    }
    let u = y.len() as f64;
    let mean = y.iter().sum::<f64>() / u;
    let var_pop = y.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / u;
    let se = (var_pop / u).sqrt();
    let cfg = BootstrapConfig {
        resamples: 4000,
        level: 0.95,
        seed: 11,
    };
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| bootstrap_means(&[&y], &cfg).unwrap())
    };
    let r = run(2);
    assert_eq!(r.columns[0].percentile, run(1).columns[0].percentile);
    let c = &r.columns[0];
    // SE of a bootstrap SE from B = 4000 replicates ≈ SE/√(2B) ≈ 1.1 %.
    assert!(
        (c.std_error / se - 1.0).abs() < 0.05,
        "{} vs {se}",
        c.std_error
    );
    let ci = c.interval(CiMethod::Percentile);
    assert!((ci.lower - (mean - 1.96 * se)).abs() < 0.1 * se, "{ci:?}");
    assert!((ci.upper - (mean + 1.96 * se)).abs() < 0.1 * se, "{ci:?}");
}

/// A column repeated among the inputs is resampled once: every column's
/// result is what it is without the duplicates (same draws, same statistic).
#[test]
fn duplicate_columns_do_not_change_any_result() {
    use rollstat_stats::{bootstrap_means, cluster_bootstrap_means, BootstrapConfig};
    let a: Vec<f64> = (0..200)
        .map(|i| ((i * 7 + i / 13) % 5) as f64 / 4.0)
        .collect();
    let b: Vec<f64> = (0..200)
        .map(|i| {
            if i % 9 == 0 {
                f64::NAN
            } else {
                ((i * 3) % 4) as f64
            }
        })
        .collect();
    let cfg = BootstrapConfig {
        resamples: 999,
        ..Default::default()
    };
    let plain = bootstrap_means(&[&a, &b], &cfg).unwrap();
    let dup = bootstrap_means(&[&a, &b, &a, &b], &cfg).unwrap();
    assert_eq!(dup.columns.len(), 4);
    // Debug text compares NaN fields (BCa acceleration) as equal.
    let same = |x: &rollstat_stats::ColumnBootstrap, y: &rollstat_stats::ColumnBootstrap| {
        format!("{x:?}") == format!("{y:?}") && x.distribution() == y.distribution()
    };
    for k in 0..4 {
        assert!(same(&dup.columns[k], &plain.columns[k % 2]), "column {k}");
    }
    let cl: Vec<u64> = (0..200).map(|i| i / 10).collect();
    let plain = cluster_bootstrap_means(&[&a, &b], &cl, &cfg).unwrap();
    let dup = cluster_bootstrap_means(&[&b, &a, &b], &cl, &cfg).unwrap();
    assert!(same(&dup.columns[1], &plain.columns[0]));
    assert!(same(&dup.columns[0], &plain.columns[1]));
    assert!(same(&dup.columns[2], &plain.columns[1]));
}
