//! `fold_coded` and `PointSummary::of_coded` against each column folded
//! alone, bit for bit: any number of columns (whole groups of four and a
//! remainder), values with NaN, -0.0 and magnitudes far apart (where the
//! order of additions shows in the last bits).

use proptest::prelude::*;
use rollstat_core::aggregate::{fold_coded, PointSummary};

/// A table value: often NaN or a signed zero, else spread over 40 binades.
fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        1 => Just(f64::NAN),
        1 => Just(-0.0),
        6 => (-20i32..20, any::<u32>(), any::<bool>()).prop_map(|(e, m, neg)| {
            let v = (1.0 + f64::from(m) / f64::from(u32::MAX)) * 2f64.powi(e);
            if neg { -v } else { v }
        }),
    ]
}

/// Columns over one code array: `(codes, tables)`.
fn coded() -> impl Strategy<Value = (Vec<u32>, Vec<Vec<f64>>)> {
    (1usize..12, 1usize..10).prop_flat_map(|(types, columns)| {
        (
            prop::collection::vec(0..types as u32, 0..300),
            prop::collection::vec(prop::collection::vec(value(), types), columns),
        )
    })
}

fn bits(v: f64) -> u64 {
    v.to_bits()
}

proptest! {
    #[test]
    fn fold_coded_folds_each_column_in_order((codes, tables) in coded()) {
        let refs: Vec<&[f64]> = tables.iter().map(Vec::as_slice).collect();
        // A fold whose result depends on the order of its values.
        let step = |(s, n): (f64, u64), v: f64| (s * 0.75 + v, n + 1);
        let got = fold_coded(&codes, &refs, |j| (j as f64, 0), step);
        prop_assert_eq!(got.len(), tables.len());
        for (j, t) in tables.iter().enumerate() {
            let want = codes.iter().fold((j as f64, 0), |a, &c| step(a, t[c as usize]));
            prop_assert_eq!((bits(got[j].0), got[j].1), (bits(want.0), want.1));
        }
    }

    #[test]
    fn of_coded_is_of_each_column((codes, tables) in coded()) {
        let refs: Vec<&[f64]> = tables.iter().map(Vec::as_slice).collect();
        let got = PointSummary::of_coded(&codes, &refs);
        for (j, t) in tables.iter().enumerate() {
            let values = codes.iter().map(|&c| t[c as usize]).filter(|v| !v.is_nan());
            let want = PointSummary::of(values);
            let key = |p: Option<PointSummary>| {
                p.map(|p| (bits(p.mean), p.stderr.map(bits), p.n_problems))
            };
            prop_assert_eq!(key(got[j]), key(want));
        }
    }
}
