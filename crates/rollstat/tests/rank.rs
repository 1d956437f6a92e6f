//! The engine's `rank()` on rows built in the test: per-problem means with
//! rollouts, the exact sign-flip p of every pair (all 2^m sign patterns
//! counted here with integer arithmetic) and its Holm adjustment, the
//! `--by` field and the refusals (docs/rank.md).

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, ToPrimitive, Zero};
use rollstat::rank::{rank, RankOptions, Ranking};
use rollstat::rows::{CountRow, Row};
use rollstat::Source;

/// Correct rollouts of 4 per problem, per system (8 problems).
const SYSTEMS: [(&str, [u64; 8]); 3] = [
    ("hi", [4, 4, 3, 4, 2, 4, 3, 4]),
    ("mid", [3, 2, 3, 1, 2, 4, 1, 2]),
    ("lo", [1, 0, 2, 0, 1, 1, 0, 3]),
];

fn source(name: &str, cs: &[u64], field: Option<(&str, &str)>) -> Source {
    let rows = cs
        .iter()
        .enumerate()
        .map(|(i, &c)| {
            let fields = field.map_or(vec![], |(k, v)| vec![(k.to_string(), v.to_string())]);
            Row::from(CountRow {
                problem: format!("p{i}"),
                n: 4,
                c,
                fields,
            })
        })
        .collect();
    Source::Rows {
        name: format!("{name}.jsonl"),
        rows,
    }
}

fn ranking() -> Ranking {
    let sources: Vec<Source> = SYSTEMS.iter().map(|(n, c)| source(n, c, None)).collect();
    let o = RankOptions {
        resamples: 500,
        ..RankOptions::default()
    };
    rank(&sources, &o).unwrap()
}

/// Exact two-sided sign-flip p of the differences `d` (in quarters):
/// #{s : |Σ s_i d_i| ≥ |Σ d_i|} / 2^m over the m nonzero differences.
fn sign_flip_exact(d: &[i64]) -> BigRational {
    let nz: Vec<i64> = d.iter().copied().filter(|&x| x != 0).collect();
    let observed: i64 = nz.iter().sum::<i64>().abs();
    let m = nz.len() as u32;
    let hits = (0u64..1 << m)
        .filter(|s| {
            let t: i64 = (0..m)
                .map(|i| {
                    if s >> i & 1 == 1 {
                        -nz[i as usize]
                    } else {
                        nz[i as usize]
                    }
                })
                .sum();
            t.abs() >= observed
        })
        .count();
    BigRational::new(BigInt::from(hits), BigInt::one() << m)
}

fn holm(p: &[BigRational]) -> Vec<BigRational> {
    let m = p.len();
    let mut idx: Vec<usize> = (0..m).collect();
    idx.sort_by(|&a, &b| p[a].cmp(&p[b]));
    let (mut out, mut running) = (vec![BigRational::zero(); m], BigRational::zero());
    for (l, &i) in idx.iter().enumerate() {
        let scaled = (&p[i] * BigInt::from((m - l) as u64)).min(BigRational::one());
        running = running.max(scaled);
        out[i] = running.clone();
    }
    out
}

#[test]
fn values_are_means_of_per_problem_means() {
    let r = ranking();
    let names: Vec<&str> = r.systems.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["hi", "mid", "lo"]);
    for (s, (name, cs)) in r.systems.iter().zip(SYSTEMS) {
        assert_eq!(s.name, name);
        let v = cs.iter().map(|&c| c as f64 / 4.0).sum::<f64>() / 8.0;
        assert!((s.value - v).abs() < 1e-12, "{name}: {} vs {v}", s.value);
        assert_eq!(s.rollouts, 4);
    }
    assert_eq!(r.n_problems, 8);
}

#[test]
fn pairs_have_the_exact_sign_flip_p_and_holm() {
    let r = ranking();
    let mut expect = Vec::new();
    for (i, (a, ca)) in SYSTEMS.iter().enumerate() {
        for (b, cb) in &SYSTEMS[i + 1..] {
            let d: Vec<i64> = ca
                .iter()
                .zip(cb)
                .map(|(x, y)| *x as i64 - *y as i64)
                .collect();
            expect.push((*a, *b, sign_flip_exact(&d)));
        }
    }
    let adj = holm(&expect.iter().map(|e| e.2.clone()).collect::<Vec<_>>());
    for ((a, b, p), pa) in expect.iter().zip(adj) {
        let row = r.pairs.iter().find(|x| x.a == *a && x.b == *b).unwrap();
        assert_eq!(row.method, "sign-flip-exact");
        let (p, pa) = (p.to_f64().unwrap(), pa.to_f64().unwrap());
        assert!((row.p - p).abs() < 1e-12, "{a}-{b}: {} vs {p}", row.p);
        assert!(
            (row.p_adjusted - pa).abs() < 1e-12,
            "{a}-{b}: {} vs {pa}",
            row.p_adjusted
        );
        assert_eq!(row.separated, pa <= 0.05);
    }
}

#[test]
fn by_field_names_the_systems_and_a_single_system_is_refused() {
    let sources: Vec<Source> = SYSTEMS
        .iter()
        .map(|(n, c)| source(n, c, Some(("model", &format!("m-{n}")))))
        .collect();
    let o = RankOptions {
        by: Some("model".into()),
        resamples: 200,
        ..RankOptions::default()
    };
    let r = rank(&sources, &o).unwrap();
    let names: Vec<&str> = r.systems.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["m-hi", "m-mid", "m-lo"]);
    let e = rank(&sources[..1], &o).unwrap_err().to_string();
    assert!(e.contains("two or more systems"), "{e}");
}

#[test]
fn a_suite_field_other_than_subset_is_refused() {
    let sources: Vec<Source> = SYSTEMS.iter().map(|(n, c)| source(n, c, None)).collect();
    let o = RankOptions {
        suite: Some("dataset".into()),
        ..RankOptions::default()
    };
    assert!(rank(&sources, &o).is_err());
}
