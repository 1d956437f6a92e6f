//! All-pairs paired tests with multiplicity, and the anchor walk.

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use super::{check_scores, rank_of};
use crate::error::{Result, StatsError};
use crate::paired::{adjust_p_values, mcnemar, sign_flip, PAdjust};
use crate::rng;

/// Which McNemar p-value [`pairwise_tests`] uses on 0/1 scores.
///
/// ```
/// assert_ne!(rollstat_stats::PairPreference::Exact, rollstat_stats::PairPreference::ContinuityCorrected);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairPreference {
    /// Exact two-sided binomial test on the discordant problems.
    Exact,
    /// Edwards' continuity-corrected χ²(1) (as published leaderboard audits).
    ContinuityCorrected,
}

/// The test behind one [`PairTest`].
///
/// ```
/// assert_ne!(rollstat_stats::PairMethod::McNemarExact, rollstat_stats::PairMethod::SignFlipExact);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairMethod {
    /// Exact two-sided McNemar (binomial on discordant problems).
    #[serde(rename = "mcnemar-exact")]
    McNemarExact,
    /// McNemar χ²(1) with Edwards' continuity correction.
    #[serde(rename = "mcnemar-chi2-corrected")]
    McNemarChi2Corrected,
    /// Sign-flip test, every sign pattern enumerated.
    SignFlipExact,
    /// Sign-flip test with random patterns, p = (r+1)/(R+1).
    SignFlipRandom,
}

impl PairMethod {
    /// Kebab-case name (`"mcnemar-exact"`, `"mcnemar-chi2-corrected"`,
    /// `"sign-flip-exact"`, `"sign-flip-random"`).
    ///
    /// ```
    /// assert_eq!(rollstat_stats::PairMethod::McNemarChi2Corrected.name(), "mcnemar-chi2-corrected");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            PairMethod::McNemarExact => "mcnemar-exact",
            PairMethod::McNemarChi2Corrected => "mcnemar-chi2-corrected",
            PairMethod::SignFlipExact => "sign-flip-exact",
            PairMethod::SignFlipRandom => "sign-flip-random",
        }
    }
}

/// One pair of [`pairwise_tests`].
///
/// ```
/// let s = vec![vec![1.0, 1.0, 1.0, 1.0], vec![0.0, 0.0, 0.0, 0.0]];
/// let t = &rollstat_stats::pairwise_tests(&s, rollstat_stats::PairPreference::Exact,
///     rollstat_stats::PAdjust::Holm, 1000, 1).unwrap()[0];
/// assert_eq!((t.i, t.j, t.diff), (0, 1, 1.0));
/// assert!((t.p - 0.125).abs() < 1e-14); // exact McNemar, 4 discordant: 2/2⁴
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PairTest {
    /// First system (i < j).
    pub i: usize,
    /// Second system.
    pub j: usize,
    /// `mean_i − mean_j`.
    pub diff: f64,
    /// Unadjusted two-sided p-value.
    pub p: f64,
    /// p adjusted over all M(M−1)/2 pairs.
    pub p_adjusted: f64,
    /// The test used.
    pub method: PairMethod,
}

/// Two-sided paired test of systems `a` and `b`: McNemar when every score is
/// 0/1, otherwise the sign-flip test with `permutations` patterns.
fn pair_p(
    a: &[f64],
    b: &[f64],
    binary: bool,
    pref: PairPreference,
    permutations: usize,
    seed: u64,
) -> Result<(f64, PairMethod)> {
    if binary {
        let a_only = a.iter().zip(b).filter(|(x, y)| **x > **y).count() as u64;
        let b_only = a.iter().zip(b).filter(|(x, y)| **x < **y).count() as u64;
        let t = mcnemar(a_only, b_only);
        return Ok(match pref {
            PairPreference::Exact => (t.p_exact, PairMethod::McNemarExact),
            PairPreference::ContinuityCorrected => {
                (t.p_chi2_corrected, PairMethod::McNemarChi2Corrected)
            }
        });
    }
    let d: Vec<f64> = a.iter().zip(b).map(|(x, y)| x - y).collect();
    let s = sign_flip(&d, permutations, seed)?;
    let method = if s.exact {
        PairMethod::SignFlipExact
    } else {
        PairMethod::SignFlipRandom
    };
    Ok((s.p, method))
}

fn is_binary(scores: &[Vec<f64>]) -> bool {
    scores.iter().flatten().all(|&x| x == 0.0 || x == 1.0)
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// All M(M−1)/2 paired tests (`i < j`, in the order (0,1), (0,2), …,
/// (1,2), …), with `diff = mean_i − mean_j`. When every score is 0 or 1 the
/// test is McNemar's on the discordant problems (exact two-sided, or Edwards'
/// continuity-corrected χ² with [`PairPreference::ContinuityCorrected`]);
/// otherwise the two-sided sign-flip test ([`sign_flip`], exact when the
/// `permutations` budget covers every pattern). Pair `k` of the order above
/// uses the seed `rng::stream(seed, k).next_u64()`. p-values are adjusted over
/// all pairs with `adjust` (Holm controls the FWER, BH the FDR).
///
/// ```
/// use rollstat_stats::{pairwise_tests, PAdjust, PairMethod, PairPreference};
/// let s = vec![vec![1.0, 1.0, 0.0], vec![1.0, 0.0, 0.0], vec![0.0, 0.0, 0.0]];
/// let t = pairwise_tests(&s, PairPreference::Exact, PAdjust::Holm, 1000, 1).unwrap();
/// assert_eq!(t.len(), 3);
/// assert_eq!((t[1].i, t[1].j), (0, 2));
/// assert!((t[1].p - 0.5).abs() < 1e-14); // 2 discordant, both for system 0
/// assert_eq!(t[1].method, PairMethod::McNemarExact);
/// ```
pub fn pairwise_tests(
    scores: &[Vec<f64>],
    method_pref: PairPreference,
    adjust: PAdjust,
    permutations: usize,
    seed: u64,
) -> Result<Vec<PairTest>> {
    check_scores(scores)?;
    let binary = is_binary(scores);
    let m = scores.len();
    let pairs: Vec<(usize, usize)> = (0..m)
        .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
        .collect();
    let tested: Vec<(f64, PairMethod)> = pairs
        .par_iter()
        .enumerate()
        .map(|(k, &(i, j))| {
            let s = rng::stream(seed, k as u64).next_u64();
            pair_p(&scores[i], &scores[j], binary, method_pref, permutations, s)
        })
        .collect::<Result<_>>()?;
    let raw: Vec<f64> = tested.iter().map(|t| t.0).collect();
    let adjusted = adjust_p_values(&raw, adjust)?;
    Ok(pairs
        .iter()
        .zip(tested)
        .zip(adjusted)
        .map(|((&(i, j), (p, method)), p_adjusted)| PairTest {
            i,
            j,
            diff: mean(&scores[i]) - mean(&scores[j]),
            p,
            p_adjusted,
            method,
        })
        .collect())
}

/// Result of [`anchor_walk`].
///
/// ```
/// let w = rollstat_stats::AnchorWalk { anchor: 0, steps: vec![(1, 0.01)], first_separated_rank: Some(2) };
/// assert_eq!(w.steps[0].0, 1);
/// ```
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AnchorWalk {
    /// The top-ranked system (lowest index among tied best means).
    pub anchor: usize,
    /// `(system, unadjusted two-sided p vs the anchor)` for every other
    /// system, in rank order (ties by index).
    pub steps: Vec<(usize, f64)>,
    /// Competition rank of the first system in `steps` with `p < alpha`.
    pub first_separated_rank: Option<u32>,
}

/// The anchor walk of leaderboard audits (SWE-bench PR#60 style): every system
/// against the top-ranked one, in rank order, with the test of
/// [`pairwise_tests`] (exact two-sided McNemar on 0/1 scores, else the
/// sign-flip test) and **no multiplicity adjustment** — the tie group it
/// implies is a lower bound and is not transitive. System `j` uses the seed
/// `rng::stream(seed, j).next_u64()`.
///
/// ```
/// use rollstat_stats::{anchor_walk, PairPreference};
/// let s = vec![vec![0.0; 8], vec![1.0; 8], vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0]];
/// let w = anchor_walk(&s, PairPreference::Exact, 0.05, 1000, 1).unwrap();
/// assert_eq!(w.anchor, 1);
/// assert_eq!((w.steps[0].0, w.steps[1].0), (2, 0));
/// assert!((w.steps[0].1 - 1.0).abs() < 1e-14); // one discordant problem
/// assert!((w.steps[1].1 - 2.0 / 256.0).abs() < 1e-14);
/// assert_eq!(w.first_separated_rank, Some(3));
/// ```
pub fn anchor_walk(
    scores: &[Vec<f64>],
    method_pref: PairPreference,
    alpha: f64,
    permutations: usize,
    seed: u64,
) -> Result<AnchorWalk> {
    check_scores(scores)?;
    if !(alpha > 0.0 && alpha < 1.0) {
        return Err(StatsError::InvalidArgument(format!(
            "alpha must be in (0, 1), got {alpha}"
        )));
    }
    let binary = is_binary(scores);
    let means: Vec<f64> = scores.iter().map(|r| mean(r)).collect();
    let ranks = rank_of(&means);
    let mut order: Vec<usize> = (0..scores.len()).collect();
    order.sort_by_key(|&i| (ranks[i], i));
    let anchor = order[0];
    let mut steps = Vec::with_capacity(order.len() - 1);
    let mut first_separated_rank = None;
    for &j in &order[1..] {
        let s = rng::stream(seed, j as u64).next_u64();
        let (p, _) = pair_p(
            &scores[anchor],
            &scores[j],
            binary,
            method_pref,
            permutations,
            s,
        )?;
        if p < alpha && first_separated_rank.is_none() {
            first_separated_rank = Some(ranks[j]);
        }
        steps.push((j, p));
    }
    Ok(AnchorWalk {
        anchor,
        steps,
        first_separated_rank,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dist::normal_cdf;
    use crate::rng::Xoshiro256PlusPlus;
    use num_bigint::BigInt;
    use num_rational::BigRational;
    use num_traits::ToPrimitive;

    /// Exact two-sided McNemar p in rationals:
    /// min(1, 2·Σ_{x ≤ min(b, c)} C(b+c, x) / 2^{b+c}).
    fn mcnemar_rational(b: u64, c: u64) -> f64 {
        let n = b + c;
        let mut tail = BigInt::from(0);
        let mut binom = BigInt::from(1); // C(n, 0)
        for x in 0..=b.min(c) {
            tail += &binom;
            binom = binom * BigInt::from(n - x) / BigInt::from(x + 1);
        }
        let p = BigRational::new(tail * 2, BigInt::from(1) << n as usize);
        p.to_f64().unwrap().min(1.0)
    }

    /// Two-sided sign-flip p by listing all 2^n sign patterns.
    fn sign_flip_enumerated(d: &[f64]) -> f64 {
        let n = d.len();
        let obs: f64 = d.iter().sum::<f64>().abs();
        let mut hits = 0u64;
        for mask in 0u64..(1 << n) {
            let s: f64 = (0..n)
                .map(|i| if mask >> i & 1 == 1 { -d[i] } else { d[i] })
                .sum();
            hits += u64::from(s.abs() >= obs - 1e-9);
        }
        hits as f64 / (1u64 << n) as f64
    }

    fn random_matrix(m: usize, n: usize, levels: u64, seed: u64) -> Vec<Vec<f64>> {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(seed);
        (0..m)
            .map(|_| {
                (0..n)
                    .map(|_| (r.next_u64() % (levels + 1)) as f64 / levels as f64)
                    .collect()
            })
            .collect()
    }

    #[test]
    fn mcnemar_pairs_match_exact_rational_tails() {
        for seed in 0..5 {
            let s = random_matrix(5, 60, 1, seed);
            let t = pairwise_tests(&s, PairPreference::Exact, PAdjust::Holm, 100, 1).unwrap();
            assert_eq!(t.len(), 10);
            for pt in &t {
                let (a, b) = (&s[pt.i], &s[pt.j]);
                let bo = a.iter().zip(b).filter(|(x, y)| x > y).count() as u64;
                let co = a.iter().zip(b).filter(|(x, y)| x < y).count() as u64;
                let want = mcnemar_rational(bo, co);
                assert!(
                    (pt.p - want).abs() < 1e-12 * want.max(1e-300),
                    "{pt:?} {want}"
                );
                assert_eq!(pt.method, PairMethod::McNemarExact);
                let diff = (bo as f64 - co as f64) / 60.0;
                assert!((pt.diff - diff).abs() < 1e-12);
            }
        }
    }

    /// Edwards: (|b − c| − 1)²/(b + c) on χ²(1), p = 2(1 − Φ(√stat)).
    /// b = 10, c = 2: stat = 49/12.
    #[test]
    fn continuity_corrected_mcnemar() {
        let a = [vec![1.0; 10], vec![0.0; 2], vec![1.0; 5]].concat();
        let b = [vec![0.0; 10], vec![1.0; 2], vec![1.0; 5]].concat();
        let t = pairwise_tests(
            &[a, b],
            PairPreference::ContinuityCorrected,
            PAdjust::Holm,
            100,
            1,
        )
        .unwrap();
        let want = 2.0 * (1.0 - normal_cdf((49.0f64 / 12.0).sqrt()));
        assert!((t[0].p - want).abs() < 1e-12, "{} {want}", t[0].p);
        assert_eq!(t[0].method, PairMethod::McNemarChi2Corrected);
        assert_eq!(t[0].p_adjusted, t[0].p); // one pair
    }

    #[test]
    fn sign_flip_pairs_match_full_enumeration() {
        for seed in 0..5 {
            // quarter-steps: the differences are exact in binary
            let s = random_matrix(4, 12, 4, 100 + seed);
            let t = pairwise_tests(&s, PairPreference::Exact, PAdjust::Holm, 1 << 12, 3).unwrap();
            for pt in &t {
                let d: Vec<f64> = s[pt.i].iter().zip(&s[pt.j]).map(|(x, y)| x - y).collect();
                assert_eq!(pt.p, sign_flip_enumerated(&d), "{pt:?}");
                assert_eq!(pt.method, PairMethod::SignFlipExact);
            }
        }
        // a budget smaller than 2^m: random patterns
        let s = random_matrix(2, 40, 4, 7);
        let t = pairwise_tests(&s, PairPreference::Exact, PAdjust::Holm, 999, 3).unwrap();
        assert_eq!(t[0].method, PairMethod::SignFlipRandom);
    }

    /// Holm by hand on three pairs: sorted p₁ ≤ p₂ ≤ p₃ get 3p₁, max(3p₁,
    /// 2p₂), max(…, p₃). BH: p_(k)·3/k with the running minimum from the top.
    #[test]
    fn adjustment_over_all_pairs() {
        // system 0 = all ones; 1 = 4 of 8 ones; 2 = 7 of 8 ones
        let s = vec![
            vec![1.0; 8],
            vec![1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
            vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0],
        ];
        // discordant: (0,1) 4–0 → p = 2/16; (0,2) 1–0 → 1; (1,2) 0–3 → 2/8
        let t = pairwise_tests(&s, PairPreference::Exact, PAdjust::Holm, 100, 1).unwrap();
        let p: Vec<f64> = t.iter().map(|x| x.p).collect();
        let want = [0.125, 1.0, 0.25];
        for (g, w) in p.iter().zip(want) {
            assert!((g - w).abs() < 1e-12);
        }
        let adj: Vec<f64> = t.iter().map(|x| x.p_adjusted).collect();
        for (g, w) in adj.iter().zip([0.375, 1.0, 0.5]) {
            assert!((g - w).abs() < 1e-12, "{adj:?}");
        }
        let t = pairwise_tests(
            &s,
            PairPreference::Exact,
            PAdjust::BenjaminiHochberg,
            100,
            1,
        )
        .unwrap();
        for (g, w) in t.iter().map(|x| x.p_adjusted).zip([0.375, 1.0, 0.375]) {
            assert!((g - w).abs() < 1e-12);
        }
    }

    #[test]
    fn pairwise_is_thread_count_independent() {
        let s = random_matrix(6, 50, 4, 9);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| pairwise_tests(&s, PairPreference::Exact, PAdjust::Holm, 500, 4))
                .unwrap()
        };
        assert_eq!(run(1), run(4));
    }

    /// Anchor walk: means 0.75 (anchor), 0.625, 0.625, 0.0 on 8 problems;
    /// tied systems keep index order; p by exact rational tails.
    #[test]
    fn anchor_walk_in_rank_order() {
        let s = vec![
            vec![0.0; 8],
            vec![1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0],
            vec![1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
            vec![0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0],
        ];
        let w = anchor_walk(&s, PairPreference::Exact, 0.05, 100, 1).unwrap();
        assert_eq!(w.anchor, 2);
        let order: Vec<usize> = w.steps.iter().map(|x| x.0).collect();
        assert_eq!(order, vec![1, 3, 0]);
        // vs anchor 2: system 1 1–0, system 3 1–0, system 0 6–0
        let want = [
            mcnemar_rational(1, 0),
            mcnemar_rational(1, 0),
            mcnemar_rational(6, 0),
        ];
        for ((_, p), w) in w.steps.iter().zip(want) {
            assert!((p - w).abs() < 1e-12);
        }
        assert_eq!(w.first_separated_rank, Some(4)); // 2/64 < 0.05
        let w = anchor_walk(&s, PairPreference::Exact, 0.01, 100, 1).unwrap();
        assert_eq!(w.first_separated_rank, None);
        assert!(anchor_walk(&s, PairPreference::Exact, 0.0, 100, 1).is_err());
    }
}
