//! maj@k against brute-force enumeration of every k-subset (n ≤ 12, every
//! tie policy, unextracted rollouts, several or no correct clusters) in
//! exact rationals, and the worked example of docs/statistics.md.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{ToPrimitive, Zero};
use rollstat_core::select::{maj_at_ks, VoteProfile};
use rollstat_core::vote::{majority_vote, TiePolicy};

const POLICIES: [TiePolicy; 3] = [TiePolicy::First, TiePolicy::None, TiePolicy::Fractional];

/// The credit of one subset's vote, from the definition: the clusters with
/// the most members in the subset tie; `first` takes the one seen first in
/// the subset, `none` credits only a lone top cluster, `fractional` the
/// share of tied clusters that are correct.
fn subset_credit(
    subset: &[usize],
    clusters: &[Option<usize>],
    ok: &[bool],
    tie: TiePolicy,
) -> BigRational {
    let mut count = vec![0usize; ok.len()];
    let mut seen: Vec<usize> = Vec::new();
    for &i in subset {
        if let Some(c) = clusters[i] {
            if count[c] == 0 {
                seen.push(c);
            }
            count[c] += 1;
        }
    }
    let top = count.iter().copied().max().unwrap_or(0);
    let r = |a: usize, b: usize| BigRational::new(BigInt::from(a), BigInt::from(b));
    if top == 0 {
        return r(0, 1);
    }
    let tied: Vec<usize> = seen.into_iter().filter(|&c| count[c] == top).collect();
    let correct = tied.iter().filter(|&&c| ok[c]).count();
    match tie {
        TiePolicy::First => r(ok[tied[0]] as usize, 1),
        TiePolicy::None => r((tied.len() == 1 && correct == 1) as usize, 1),
        TiePolicy::Fractional => r(correct, tied.len()),
    }
}

/// maj@k by enumerating all k-subsets (bit masks of n ≤ 12).
fn brute(clusters: &[Option<usize>], ok: &[bool], k: usize, tie: TiePolicy) -> BigRational {
    let n = clusters.len();
    let (mut sum, mut m) = (BigRational::zero(), 0u64);
    for mask in 0u32..(1 << n) {
        if mask.count_ones() as usize != k {
            continue;
        }
        let subset: Vec<usize> = (0..n).filter(|&i| mask >> i & 1 == 1).collect();
        sum += subset_credit(&subset, clusters, ok, tie);
        m += 1;
    }
    sum / BigRational::from_integer(BigInt::from(m))
}

struct Rng(u64);
impl Rng {
    fn below(&mut self, m: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % m
    }
}

/// A random problem: answers from up to `m` clusters (some unextracted),
/// each cluster correct or not (several may be).
fn random_problem(rng: &mut Rng, n: usize) -> (Vec<Option<usize>>, Vec<bool>) {
    let m = 1 + rng.below(5) as usize;
    let mut clusters: Vec<Option<usize>> = (0..n)
        .map(|_| (rng.below(6) != 0).then(|| rng.below(m as u64) as usize))
        .collect();
    // Ids dense by first appearance, as a clusterer numbers them.
    let mut map = vec![usize::MAX; m];
    let mut next = 0;
    for c in clusters.iter_mut().flatten() {
        if map[*c] == usize::MAX {
            map[*c] = next;
            next += 1;
        }
        *c = map[*c];
    }
    let ok = (0..next).map(|_| rng.below(3) == 0).collect();
    (clusters, ok)
}

fn profile(clusters: &[Option<usize>], ok: &[bool]) -> VoteProfile {
    let verdicts: Vec<Option<bool>> = clusters.iter().map(|c| c.map(|c| ok[c])).collect();
    VoteProfile::new(clusters, &verdicts).unwrap()
}

#[test]
fn maj_at_k_equals_enumeration_for_every_n_up_to_12() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for n in 1..=12 {
        for _ in 0..if n <= 8 { 40 } else { 8 } {
            let (clusters, ok) = random_problem(&mut rng, n);
            let p = profile(&clusters, &ok);
            for tie in POLICIES {
                let got = maj_at_ks(&p, tie, n).unwrap();
                for k in 1..=n {
                    let want = brute(&clusters, &ok, k, tie).to_f64().unwrap();
                    assert!(
                        (got[k - 1] - want).abs() <= 1e-14,
                        "n={n} k={k} {tie} {clusters:?} {ok:?}: {} vs {want}",
                        got[k - 1]
                    );
                }
            }
        }
    }
}

/// `first` where several rivals can tie with the winner (the program's
/// levels of rival factors, docs/statistics.md): three to five clusters of
/// similar sizes in random order, one or two correct, every largest k (so
/// every truncation), against enumeration.
#[test]
fn first_with_several_rivals_equals_enumeration_at_every_k_max() {
    let mut rng = Rng(0x0dd_ba11_5eed);
    for round in 0..120 {
        let n = 6 + rng.below(7) as usize;
        let m = 3 + rng.below(3) as usize;
        let clusters: Vec<Option<usize>> = (0..n)
            .map(|i| (rng.below(10) != 0).then(|| (i + rng.below(2) as usize) % m))
            .collect();
        let mut ids: Vec<usize> = clusters.iter().flatten().copied().collect();
        ids.dedup();
        let mut map = vec![usize::MAX; m];
        let mut next = 0;
        for c in ids {
            if map[c] == usize::MAX {
                (map[c], next) = (next, next + 1);
            }
        }
        let clusters: Vec<Option<usize>> = clusters.iter().map(|c| c.map(|c| map[c])).collect();
        let ok: Vec<bool> = (0..next).map(|c| c == round % 2 || c == 2).collect();
        let p = profile(&clusters, &ok);
        for k_max in 1..=n {
            let got = maj_at_ks(&p, TiePolicy::First, k_max).unwrap();
            for k in 1..=k_max {
                let want = brute(&clusters, &ok, k, TiePolicy::First).to_f64().unwrap();
                assert!(
                    (got[k - 1] - want).abs() <= 1e-14,
                    "n={n} K={k_max} k={k} {clusters:?} {ok:?}: {} vs {want}",
                    got[k - 1]
                );
            }
        }
    }
}

/// At k = n the only subset is every rollout: maj@k is maj@n's credit.
#[test]
fn k_equal_n_is_maj_at_n() {
    let mut rng = Rng(77);
    for n in 1..=30 {
        let (clusters, ok) = random_problem(&mut rng, n);
        let verdicts: Vec<Option<bool>> = clusters.iter().map(|c| c.map(|c| ok[c])).collect();
        let full = majority_vote(&clusters, &verdicts);
        for tie in POLICIES {
            let got = maj_at_ks(&profile(&clusters, &ok), tie, n).unwrap();
            assert!(
                (got[n - 1] - full.credit(tie)).abs() < 1e-12,
                "{tie} {clusters:?}"
            );
        }
    }
}

/// AABBBC with A correct, counted by hand: C(6,2) = 15 pairs, of which only
/// AA has a lone correct top under `none` (1/15), while `fractional` also
/// credits half of each A-vs-other tie: (1 + 4·½ + 3·0 + …)/15 = 1/3.
#[test]
fn worked_example_aabbbc() {
    let clusters = [0, 0, 1, 1, 1, 2].map(Some);
    let ok = [true, false, false];
    let p = profile(&clusters, &ok);
    let none = [1.0 / 3.0, 1.0 / 15.0, 0.2, 0.2, 0.0, 0.0];
    let fractional = [1.0 / 3.0, 1.0 / 3.0, 0.3, 0.3, 0.25, 0.0];
    for (tie, want) in [(TiePolicy::None, none), (TiePolicy::Fractional, fractional)] {
        let got = maj_at_ks(&p, tie, 6).unwrap();
        for (k, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-15, "{tie} maj@{}: {g} vs {w}", k + 1);
        }
    }
}

/// `first` depends on where the correct answer sits: AAB vs BAA at k = 2
/// (AA wins; AB ties and goes to whichever comes first).
#[test]
fn first_depends_on_rollout_order() {
    let ok = [true, false];
    let aab = maj_at_ks(
        &profile(&[Some(0), Some(0), Some(1)], &ok),
        TiePolicy::First,
        2,
    )
    .unwrap();
    assert!((aab[1] - 1.0).abs() < 1e-15); // AA, A₁B, A₂B: A first in all
    let baa_ok = [false, true];
    let baa = maj_at_ks(
        &profile(&[Some(0), Some(1), Some(1)], &baa_ok),
        TiePolicy::First,
        2,
    )
    .unwrap();
    assert!((baa[1] - 1.0 / 3.0).abs() < 1e-15); // only AA
}

/// docs/statistics.md: averaged over all n! orders of the rollouts, `first`
/// equals `fractional` (a uniformly random order makes each tied cluster
/// equally likely to be seen first in the subset). Checked at every k for
/// random problems with n ≤ 7 by permuting the rollouts.
#[test]
fn first_averaged_over_every_order_is_fractional() {
    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for at in 0..=p.len() {
                let mut q = p.clone();
                q.insert(at, n - 1);
                out.push(q);
            }
        }
        out
    }
    let mut rng = Rng(0x5151);
    for n in 2..=7 {
        for _ in 0..6 {
            let (clusters, ok) = random_problem(&mut rng, n);
            let perms = permutations(n);
            let mut mean = vec![0.0; n];
            for perm in &perms {
                // Re-number clusters by first appearance in the new order.
                let moved: Vec<Option<usize>> = perm.iter().map(|&i| clusters[i]).collect();
                let mut ids: Vec<usize> = Vec::new();
                let dense: Vec<Option<usize>> = moved
                    .iter()
                    .map(|c| {
                        c.map(|c| match ids.iter().position(|&x| x == c) {
                            Some(at) => at,
                            None => {
                                ids.push(c);
                                ids.len() - 1
                            }
                        })
                    })
                    .collect();
                let dense_ok: Vec<bool> = ids.iter().map(|&c| ok[c]).collect();
                let first = maj_at_ks(&profile(&dense, &dense_ok), TiePolicy::First, n).unwrap();
                for (m, v) in mean.iter_mut().zip(first) {
                    *m += v / perms.len() as f64;
                }
            }
            for k in 1..=n {
                let want = brute(&clusters, &ok, k, TiePolicy::Fractional)
                    .to_f64()
                    .unwrap();
                assert!(
                    (mean[k - 1] - want).abs() < 1e-12,
                    "n={n} k={k} {clusters:?} {ok:?}: {} vs {want}",
                    mean[k - 1]
                );
            }
        }
    }
}

/// Larger n, where counts pass 2⁵³: every policy agrees with a direct sum
/// over (A-count, B-count) for two clusters plus unextracted rollouts.
#[test]
fn two_clusters_at_n_64_match_a_closed_form() {
    let (a, b, u) = (30usize, 25usize, 9usize);
    let mut clusters = vec![Some(0); a];
    clusters.extend(vec![Some(1); b]);
    clusters.extend(vec![None; u]);
    let p = profile(&clusters, &[true, false]);
    let binom = |n: usize, k: usize| -> BigInt {
        if k > n {
            return BigInt::zero();
        }
        (0..k).fold(BigInt::from(1), |r, i| r * (n - i) / (i + 1))
    };
    let none = maj_at_ks(&p, TiePolicy::None, 64).unwrap();
    let frac = maj_at_ks(&p, TiePolicy::Fractional, 64).unwrap();
    for k in 1..=64 {
        let (mut win, mut tie) = (BigInt::zero(), BigInt::zero());
        for i in 1..=a.min(k) {
            for j in 0..=b.min(k - i) {
                let ways = binom(a, i) * binom(b, j) * binom(u, k - i - j);
                if i > j {
                    win += ways;
                } else if i == j {
                    tie += ways;
                }
            }
        }
        let total = BigRational::from_integer(binom(64, k));
        let w = BigRational::from_integer(win.clone()) / total.clone();
        let f = (BigRational::from_integer(win) + BigRational::new(tie, BigInt::from(2))) / total;
        assert!((none[k - 1] - w.to_f64().unwrap()).abs() < 1e-13, "k={k}");
        assert!((frac[k - 1] - f.to_f64().unwrap()).abs() < 1e-13, "k={k}");
    }
}

/// The column builder runs the program once per problem for all k; its
/// columns equal `Metric::value` at each k bit for bit (what per-problem
/// output and the block must agree on), and keep the same exclusions.
#[test]
fn builder_columns_equal_per_k_values() {
    use rollstat_core::aggregate::{ColumnBuilder, Metric};
    use rollstat_core::summary::{
        summarize, Answer, DenominatorPolicy, ProblemData, Rollout, Verdict,
    };
    use rollstat_core::vote::ExactClusterer;
    let mut rng = Rng(4242);
    let problems: Vec<_> = (0..60)
        .map(|_| {
            let n = 1 + rng.below(14) as usize;
            let (clusters, ok) = random_problem(&mut rng, n);
            let rollouts = clusters
                .iter()
                .enumerate()
                .map(|(i, c)| Rollout {
                    index: i as u64,
                    verdict: if c.is_some_and(|c| ok[c]) {
                        Verdict::Correct
                    } else {
                        Verdict::Wrong
                    },
                    answer: match c {
                        Some(c) => Answer::Text(format!("a{c}")),
                        None => Answer::Unextracted,
                    },
                    truncated: false,
                })
                .collect();
            summarize(
                ProblemData::rollouts(rollouts),
                DenominatorPolicy::Requested,
                &ExactClusterer,
            )
        })
        .collect();
    let metrics: Vec<Metric> = (1..=12).map(Metric::MajAtK).collect();
    for tie in POLICIES {
        let builder = ColumnBuilder::new(&problems, tie).with_metrics(&metrics);
        for m in &metrics {
            let col = builder.build(m.clone());
            for (p, v) in problems.iter().zip(&col.values) {
                match m.value(p, tie) {
                    Ok(want) => assert_eq!(v.to_bits(), want.to_bits(), "{m} {tie}"),
                    Err(_) => assert!(v.is_nan()),
                }
            }
            assert!(col.n_excluded() > 0 || m == &Metric::MajAtK(1));
        }
    }
}

/// Without the rollout order, `none` and `fractional` are unchanged and
/// `first` says it cannot be computed. Many clusters (6-bit packing across
/// word boundaries) still give maj@n at k = n.
#[test]
fn order_is_needed_only_by_first() {
    use rollstat_core::select::NotComputed;
    let clusters: Vec<Option<usize>> = (0..90)
        .map(|i| (i % 7 != 0).then_some((i * 7) % 40))
        .collect();
    let ok: Vec<bool> = (0..40).map(|c| c % 3 == 0).collect();
    let verdicts: Vec<Option<bool>> = clusters.iter().map(|c| c.map(|c| ok[c])).collect();
    let full = majority_vote(&clusters, &verdicts);
    let p = VoteProfile::new(&clusters, &verdicts).unwrap();
    let bare = p.clone().without_order();
    for tie in [TiePolicy::None, TiePolicy::Fractional] {
        assert_eq!(maj_at_ks(&p, tie, 90), maj_at_ks(&bare, tie, 90));
    }
    assert_eq!(
        maj_at_ks(&bare, TiePolicy::First, 4),
        Err(NotComputed::NoOrder)
    );
    let first = maj_at_ks(&p, TiePolicy::First, 90).unwrap();
    assert!((first[89] - full.credit(TiePolicy::First)).abs() < 1e-12);
}

mod majk_reference;

/// A random problem as evaluations produce them at larger n: a correct
/// cluster with rate p, wrong answers from up to 10 clusters with skewed
/// weights, some unextracted; sometimes a second correct cluster.
fn random_large_problem(rng: &mut Rng, n: usize) -> (Vec<Option<usize>>, Vec<bool>) {
    let p = rng.below(101);
    let wrong = 1 + rng.below(10);
    let raw: Vec<Option<usize>> = (0..n)
        .map(|_| {
            if rng.below(20) == 0 {
                None
            } else if rng.below(100) < p {
                Some(0)
            } else {
                // Weight 1/i over wrong answers 1..=wrong, roughly.
                let w = 1 + rng.below(wrong);
                Some(1 + rng.below(w) as usize)
            }
        })
        .collect();
    let mut map = [usize::MAX; 12];
    let mut ok = Vec::new();
    let second = rng.below(4) == 0;
    let clusters = raw
        .into_iter()
        .map(|c| {
            c.map(|c| {
                if map[c] == usize::MAX {
                    map[c] = ok.len();
                    ok.push(c == 0 || (second && c == 1));
                }
                map[c]
            })
        })
        .collect();
    (clusters, ok)
}

/// The program equals its first formulation (tests/majk_reference: one
/// product over the rivals per run of the winner's members, dual-number
/// tables) on random profiles up to n = 64 and every K, to 1e-12 relative.
#[test]
fn maj_at_k_equals_the_reference_program_up_to_n_64() {
    let mut rng = Rng(0x5eed_1234_abcd_0042);
    for round in 0..400 {
        let n = 1 + rng.below(64) as usize;
        let (clusters, ok) = if round % 2 == 0 {
            random_large_problem(&mut rng, n)
        } else {
            random_problem(&mut rng, n)
        };
        let p = profile(&clusters, &ok);
        let reference = majk_reference::Profile::new(&clusters, &ok);
        let k_max = if round % 3 == 0 {
            n
        } else {
            1 + rng.below(n as u64) as usize
        };
        for tie in POLICIES {
            let got = maj_at_ks(&p, tie, k_max).unwrap();
            let want = majk_reference::maj_at_ks_reference(&reference, tie, k_max);
            assert_eq!(got.len(), want.len());
            for (k, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= 1e-12 * w.abs() + 1e-300,
                    "n={n} K={k_max} k={} {tie} {clusters:?} {ok:?}: {g} vs {w}",
                    k + 1
                );
            }
        }
    }
}
