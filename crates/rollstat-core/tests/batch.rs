//! The batch estimators (`rollstat_core::batch`) against the scalar ones:
//! every value bit for bit, every undefined problem counted by reason, the
//! same bits with any thread count, and the report column built through the
//! table equal to `Metric::value` per problem.

use proptest::prelude::*;
use rayon::prelude::*;
use rollstat_core::aggregate::{ColumnBuilder, Metric, MetricColumn, PointSummary};
use rollstat_core::batch::{CountsEstimator, CountsHistogram, EstimatorTable, Undefined};
use rollstat_core::summary::{summarize, DenominatorPolicy, ProblemData};
use rollstat_core::vote::{ExactClusterer, TiePolicy};

/// The estimators at k (G-Pass at two thresholds, one of them 1).
fn estimators(k: u64, tau: f64) -> [CountsEstimator; 5] {
    [
        CountsEstimator::PassAtK(k),
        CountsEstimator::PassPowK(k),
        CountsEstimator::GPassAtK { k, tau },
        CountsEstimator::GPassAtK { k, tau: 1.0 },
        CountsEstimator::MgPassAtK(k),
    ]
}

/// The column and undefined counts computed problem by problem with the
/// scalar estimator.
fn scalar_column(est: CountsEstimator, counts: &[(u64, u64)]) -> (Vec<f64>, Undefined) {
    let mut undefined = Undefined::default();
    let values = counts
        .iter()
        .map(|&(n, c)| {
            est.value(n, c).unwrap_or_else(|| {
                if n < est.k() {
                    undefined.too_few_rollouts += 1;
                } else {
                    undefined.invalid += 1;
                }
                f64::NAN
            })
        })
        .collect();
    (values, undefined)
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// A mix of problem sizes: mostly a few common n (as in real evals), some
/// n up to a few thousand, a few huge n, n < k, and the odd c > n.
fn counts_mix() -> impl Strategy<Value = Vec<(u64, u64)>> {
    let pair = prop_oneof![
        6 => prop::sample::select(vec![1u64, 4, 8, 16, 64]).prop_flat_map(|n| (Just(n), 0..=n)),
        3 => (0u64..3000).prop_flat_map(|n| (Just(n), 0..=n)),
        1 => (4097u64..2_000_000).prop_flat_map(|n| (Just(n), prop_oneof![0..=n, Just(n / 2)])),
        1 => (0u64..40).prop_flat_map(|n| (Just(n), n + 1..n + 5)),
    ];
    prop::collection::vec(pair, 1..400)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn table_column_equals_scalar_bit_for_bit(
        counts in counts_mix(),
        k in prop_oneof![1u64..=20, 21u64..3000],
        tau in 0.0f64..=1.0,
    ) {
        for est in estimators(k, tau) {
            let (want, want_undefined) = scalar_column(est, &counts);
            let table = EstimatorTable::new(est);
            let (got, undefined) = table.column(&counts);
            prop_assert_eq!(bits(&got), bits(&want), "{:?}", est);
            prop_assert_eq!(undefined, want_undefined, "{:?}", est);
            // A second pass reads memoized entries only: still the same.
            let (again, _) = table.column(&counts);
            prop_assert_eq!(bits(&again), bits(&want));
            for &(n, c) in &counts {
                prop_assert_eq!(table.get(n, c).map(f64::to_bits), est.value(n, c).map(f64::to_bits));
            }
        }
    }

    #[test]
    fn histogram_summary_matches_the_column(
        counts in counts_mix(),
        k in 1u64..=20,
        tau in 0.0f64..=1.0,
    ) {
        let whole: CountsHistogram = counts.iter().copied().collect();
        // Built in two halves and merged: the same histogram.
        let mid = counts.len() / 2;
        let mut merged: CountsHistogram = counts[..mid].iter().copied().collect();
        merged.merge(&counts[mid..].iter().copied().collect());
        prop_assert_eq!(whole.pairs().collect::<Vec<_>>(), merged.pairs().collect::<Vec<_>>());
        prop_assert_eq!(whole.problems(), counts.len() as u64);
        for est in estimators(k, tau) {
            let (column, col_undefined) = scalar_column(est, &counts);
            let want = PointSummary::of(column.iter().copied().filter(|v| !v.is_nan()));
            let (got, undefined) = merged.summary(est);
            prop_assert_eq!(undefined, col_undefined);
            match (got, want) {
                (None, None) => {}
                (Some(g), Some(w)) => {
                    prop_assert_eq!(g.n_problems, w.n_problems);
                    prop_assert!((g.mean - w.mean).abs() <= 1e-14 * w.mean.abs().max(1e-300), "{:?} {:?}", g, w);
                    match (g.stderr, w.stderr) {
                        (Some(a), Some(b)) => prop_assert!((a - b).abs() <= 1e-9 * b + 1e-15, "{} {}", a, b),
                        (a, b) => prop_assert_eq!(a, b),
                    }
                }
                (g, w) => prop_assert!(false, "{:?} vs {:?}", g, w),
            }
        }
    }

    /// `MetricColumn::build` (which goes through the table) against
    /// `Metric::value` problem by problem: values and exclusion counts; and
    /// `ColumnBuilder` against `MetricColumn::build`.
    #[test]
    fn report_column_equals_metric_value(
        counts in prop::collection::vec((0u64..70).prop_flat_map(|n| (Just(n), 0..=n)), 1..200),
        k in 1u64..=24,
    ) {
        let problems: Vec<_> = counts
            .iter()
            .map(|&(n, c)| summarize(ProblemData::Counts { n, c }, DenominatorPolicy::Requested, &ExactClusterer))
            .collect();
        let metrics = [
            Metric::PassAtK(k),
            Metric::PassPowK(k),
            Metric::GPassAtK { k, tau: 0.5, tau_text: "0.5".into() },
            Metric::MgPassAtK(k),
        ];
        let builder = ColumnBuilder::new(&problems, TiePolicy::First);
        for metric in metrics {
            let col = MetricColumn::build(metric.clone(), &problems, TiePolicy::First);
            let shared = builder.build(metric.clone());
            prop_assert_eq!(bits(&shared.values.to_vec()), bits(&col.values.to_vec()));
            prop_assert_eq!(&shared.excluded, &col.excluded);
            let mut too_few = 0;
            for (v, p) in col.values.iter().zip(&problems) {
                match metric.value(p, TiePolicy::First) {
                    Ok(want) => prop_assert_eq!(v.to_bits(), want.to_bits()),
                    Err(_) => {
                        prop_assert!(v.is_nan());
                        too_few += 1;
                    }
                }
            }
            prop_assert_eq!(col.n_excluded(), too_few);
        }
    }
}

/// The counts used by the thread tests: 100k problems, mostly n = 16, some
/// other n (rows built concurrently), a few huge n (the shared map).
fn thread_test_counts() -> Vec<(u64, u64)> {
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..100_000)
        .map(|i| {
            let n = match i % 97 {
                0 => 1_000_000 + next() % 1000,
                1..=9 => next() % 3000,
                _ => 16,
            };
            (n, next() % (n + 1))
        })
        .collect()
}

/// Fills the column in parallel chunks on a pool of `threads` threads, all
/// chunks sharing one fresh table (so entries are computed concurrently).
fn parallel_column(
    est: CountsEstimator,
    counts: &[(u64, u64)],
    threads: usize,
    chunk: usize,
) -> (Vec<f64>, Undefined) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("pool");
    let table = EstimatorTable::new(est);
    let mut out = vec![0.0; counts.len()];
    let undefined = pool.install(|| {
        out.par_chunks_mut(chunk)
            .zip(counts.par_chunks(chunk))
            .map(|(o, c)| table.fill(c, o))
            .sum()
    });
    (out, undefined)
}

#[test]
fn same_bits_with_one_and_two_threads() {
    let counts = thread_test_counts();
    for k in [1, 2, 8, 16] {
        for est in estimators(k, 0.5) {
            let (want, want_undefined) = scalar_column(est, &counts);
            for (threads, chunk) in [(1, 4096), (2, 4096), (2, 37)] {
                let (got, undefined) = parallel_column(est, &counts, threads, chunk);
                assert_eq!(bits(&got), bits(&want), "{est:?}, {threads} threads");
                assert_eq!(undefined, want_undefined, "{est:?}, {threads} threads");
            }
        }
    }
}

#[test]
fn huge_n_and_edge_inputs() {
    let est = CountsEstimator::PassAtK(3);
    let table = EstimatorTable::new(est);
    let counts = [
        (u64::MAX, 1),
        (2_000_000_000, 1),
        (10_000_000, 5_000_000),
        (4096, 4096),
        (4097, 0),
        (3, 4), // c > n
        (0, 0),
    ];
    let (got, undefined) = table.column(&counts);
    let (want, want_undefined) = scalar_column(est, &counts);
    assert_eq!(bits(&got), bits(&want));
    assert_eq!(undefined, want_undefined);
    assert_eq!((undefined.too_few_rollouts, undefined.invalid), (1, 1));
    // k = 0 and τ outside [0, 1]: every problem invalid, none scored.
    for est in [
        CountsEstimator::PassAtK(0),
        CountsEstimator::GPassAtK { k: 2, tau: 1.5 },
    ] {
        let (got, undefined) = EstimatorTable::new(est).column(&[(8, 3), (16, 0), (5_000, 7)]);
        assert!(got.iter().all(|v| v.is_nan()));
        assert_eq!(undefined.invalid, 3);
    }
    // k above the dense rows.
    let est = CountsEstimator::PassPowK(5000);
    let (got, undefined) = EstimatorTable::new(est).column(&[(6000, 5500), (4000, 4000)]);
    assert_eq!(got[0], est.value(6000, 5500).unwrap());
    assert_eq!(undefined.too_few_rollouts, 1);
}
