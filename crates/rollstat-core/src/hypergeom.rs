//! Hypergeometric upper tails summed outward from the mode (#10 item 9).
//!
//! The direct sum in `estimators.rs` starts from `P(X = min(c, k))` in
//! closed form — a product of up to `min(c, k)` ratios — and walks down to
//! the threshold: O(min(c, k)) steps, 11 s for one G-Pass value at
//! k = 2²⁶ in a debug build. Here every term is taken relative to the pmf
//! at the mode, `r(j) = p(j)/p(mode)`, through the exact ratio recurrence
//! `p(j+1)/p(j) = (c−j)(k−j) / ((j+1)(n−c−k+j+1))`, and the walks stop
//! once the rest of the sum provably cannot show in f64. The tail is then
//! `Σ_{j≥m} w(j)·r(j) / Σ_j r(j)`: no closed-form product, no lgamma.
//!
//! # Why stopping is safe
//!
//! The pmf is log-concave: `p(j+1)/p(j)` is nonincreasing in `j` (its
//! numerator falls and its denominator grows). So walking away from the
//! mode, once the next ratio is `ρ < 1`, every later term is at most
//! `t·ρⁱ` for the current term `t`, and the rest of the walk is at most
//! `t·ρ/(1−ρ)` (weight 1), or `t·(w·ρ/(1−ρ) + ρ/(1−ρ)²)` for a weight
//! that grows by at most 1 per step (mG-Pass's `(j − h)₊`). A walk stops
//! when that bound is below 2⁻⁶⁰ of its sum so far: each of the two sums
//! then lacks less than 2⁻⁶⁰ of its value, and the quotient is within
//! ~2⁻⁵⁹ relative — far below the 1e-12 budget and the final f64 rounding.
//!
//! # Work
//!
//! `−log p` has second difference `1/(c−j) + 1/(k−j) + 1/(j+1) +
//! 1/(n−c−k+j+1) ≥ 4/(min(c,k)+1)`, so `p(mode ± s) ≤ p(mode)·e^{−2s²/(min(c,k)+1)}`
//! roughly: the walks end within O(σ·√log) steps of the mode (σ the
//! standard deviation, at most ~½√min(c,k)), and a tail that starts past
//! where `r` drops below 2⁻¹²⁰⁰ is 0 in f64 and is not walked at all.

use crate::numeric::{Dd, Scaled};

/// A walk stops once the rest of its sum is provably below this fraction
/// of the sum so far.
const NEGLIGIBLE: f64 = 1.0 / (1u64 << 60) as f64;

/// Below 2^this, `r(m)` times the tail's at most `k + 1 ≤ 2⁶⁴` terms over
/// a total ≥ 1 is below 2⁻¹¹³⁶ and rounds to 0 in f64.
const UNDERFLOW_LOG2: f64 = -1200.0;

/// The weight of term j in the tail: 1 (G-Pass) or `(j − h)₊` (mG-Pass).
/// Both are nondecreasing and grow by at most 1 per step.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Weight {
    One,
    ExcessOver(u64),
}

impl Weight {
    pub(crate) fn at(self, j: u64) -> f64 {
        match self {
            Weight::One => 1.0,
            Weight::ExcessOver(h) => j.saturating_sub(h) as f64,
        }
    }

    /// Upper bound on `Σ_{i≥1} w(j±i)·t·ρⁱ` for term `t` at weight `w`,
    /// walking up (weights grow) or down (weights shrink).
    fn rest_bound(self, t: f64, w: f64, rho: f64, up: bool) -> f64 {
        let g = rho / (1.0 - rho);
        match (self, up) {
            (Weight::ExcessOver(_), true) => t * (w * g + g / (1.0 - rho)),
            _ => t * w * g,
        }
    }
}

/// X ~ Hypergeometric(population n, c successes, k draws).
#[derive(Clone, Copy, Debug)]
struct Hypergeom {
    n: u64,
    c: u64,
    k: u64,
}

impl Hypergeom {
    fn lowest(self) -> u64 {
        self.k.saturating_sub(self.n - self.c)
    }

    fn highest(self) -> u64 {
        self.c.min(self.k)
    }

    /// ⌊(k+1)(c+1)/(n+2)⌋, where `p(j±1) ≤ p(j)`.
    fn mode(self) -> u64 {
        let d = (self.k as u128 + 1) * (self.c as u128 + 1) / (self.n as u128 + 2);
        (d as u64).clamp(self.lowest(), self.highest())
    }

    /// `p(j+1)/p(j)` for `lowest ≤ j < highest`. `n−c+j ≥ k` there.
    fn up_ratio(self, j: u64) -> Dd {
        let num = Dd::from_u64(self.c - j).mul(Dd::from_u64(self.k - j));
        let den = Dd::from_u64(j + 1).mul(Dd::from_u64(self.n - self.c + j + 1 - self.k));
        num.div(den)
    }

    /// `p(j−1)/p(j)` for `lowest < j ≤ highest`.
    fn down_ratio(self, j: u64) -> Dd {
        let num = Dd::from_u64(j).mul(Dd::from_u64(self.n - self.c + j - self.k));
        let den = Dd::from_u64(self.c - j + 1).mul(Dd::from_u64(self.k - j + 1));
        num.div(den)
    }

    /// `Σ w(j)·t(j)` for j = `from`, then outward (`up` or down) to `end`,
    /// with `t(from) = start`; stops once the rest is below [`NEGLIGIBLE`]
    /// of `already + sum`.
    fn walk(self, from: u64, start: Dd, up: bool, end: u64, weight: Weight, already: f64) -> Dd {
        let (mut j, mut t) = (from, start);
        let mut sum = t.mul_f64(weight.at(j));
        while j != end {
            let rho = if up {
                self.up_ratio(j)
            } else {
                self.down_ratio(j)
            };
            if rho.hi < 1.0 {
                let rest = weight.rest_bound(t.hi, weight.at(j), rho.hi, up);
                if rest <= NEGLIGIBLE * (already + sum.hi) {
                    break;
                }
            }
            t = t.mul(rho);
            j = if up { j + 1 } else { j - 1 };
            sum = sum.add(t.mul_f64(weight.at(j)));
        }
        sum
    }

    /// `Σ_j r(j)` over the whole support (≥ 1: the mode's own term).
    fn total(self, d: u64) -> Dd {
        let up = self.walk(d, Dd::ONE, true, self.highest(), Weight::One, 0.0);
        if d == self.lowest() {
            return up;
        }
        let start = self.down_ratio(d);
        up.add(self.walk(d - 1, start, false, self.lowest(), Weight::One, up.hi))
    }

    /// `Σ_{j≥m} w(j)·r(j)` for `m ≤ mode`.
    fn tail_through_mode(self, d: u64, m: u64, weight: Weight) -> Dd {
        let up = self.walk(d, Dd::ONE, true, self.highest(), weight, 0.0);
        if d == m {
            return up;
        }
        let start = self.down_ratio(d);
        up.add(self.walk(d - 1, start, false, m, weight, up.hi))
    }

    /// `Σ_{j≥m} w(j)·r(j)` for `m > mode`; zero once `r` underflows on the way.
    fn tail_past_mode(self, d: u64, m: u64, weight: Weight) -> Scaled {
        let mut r = Scaled::one();
        for j in d..m {
            r = r.mul(self.up_ratio(j));
            if r.m.hi == 0.0 || r.exp as f64 + r.m.hi.log2() < UNDERFLOW_LOG2 {
                return Scaled {
                    m: Dd::ZERO,
                    exp: 0,
                };
            }
        }
        let rest = self.walk(m, Dd::ONE, true, self.highest(), weight, 0.0);
        r.mul(rest)
    }
}

/// `Σ_{j ≥ m} w(j)·P(X = j)` for X ~ Hypergeometric(n, c, k), summed from
/// the mode outward in O(σ·√log) steps (see the module comment). Requires
/// `1 ≤ k ≤ n`, `c ≤ n`.
pub(crate) fn upper_tail_from_mode(n: u64, c: u64, k: u64, m: u64, weight: Weight) -> f64 {
    let h = Hypergeom { n, c, k };
    let m = m.max(h.lowest());
    if m > h.highest() {
        return 0.0;
    }
    let d = h.mode();
    let total = h.total(d);
    let tail = if m <= d {
        Scaled {
            m: h.tail_through_mode(d, m, weight),
            exp: 0,
        }
    } else {
        h.tail_past_mode(d, m, weight)
    };
    Scaled {
        m: tail.m.div(total),
        exp: tail.exp,
    }
    .to_dd()
    .to_f64()
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::{BigInt, BigUint};
    use num_rational::BigRational;
    use num_traits::{One, Signed, ToPrimitive, Zero};
    use proptest::prelude::*;

    fn binom(n: u64, k: u64) -> BigUint {
        if k > n {
            return BigUint::zero();
        }
        (0..k.min(n - k)).fold(BigUint::one(), |r, i| r * (n - i) / (i + 1))
    }

    /// `Σ_{j ≥ m} w(j)·C(c,j)·C(n−c,k−j) / C(n,k)` in exact rationals.
    fn exact_tail(n: u64, c: u64, k: u64, m: u64, weight: Weight) -> BigRational {
        let mut s = BigUint::zero();
        for j in m..=c.min(k) {
            if k - j <= n - c {
                let w = weight.at(j) as u64;
                s += binom(c, j) * binom(n - c, k - j) * w;
            }
        }
        BigRational::new(BigInt::from(s), BigInt::from(binom(n, k)))
    }

    /// Relative error; values below 1e-300 (0 in f64 or close) absolutely.
    fn rel_err(got: f64, want: &BigRational) -> f64 {
        let diff = (BigRational::from_float(got).unwrap() - want).abs();
        if want.to_f64().unwrap_or(0.0) < 1e-300 {
            return diff.to_f64().unwrap_or(0.0) / 1e-300;
        }
        (diff / want).to_f64().unwrap()
    }

    fn check(n: u64, c: u64, k: u64, m: u64, weight: Weight) {
        let got = upper_tail_from_mode(n, c, k, m, weight);
        let err = rel_err(got, &exact_tail(n, c, k, m, weight));
        assert!(
            err <= 1e-12,
            "n={n} c={c} k={k} m={m} {weight:?}: {got}, rel err {err}"
        );
    }

    /// Every (c, k, m) for n ≤ 14, both weights: the mode walk, forced on
    /// small n, against exact rationals.
    #[test]
    fn exhaustive_small_n() {
        for n in 1..=14 {
            for c in 0..=n {
                for k in 1..=n {
                    for m in 0..=k + 1 {
                        check(n, c, k, m, Weight::One);
                    }
                    let h = k.div_ceil(2);
                    check(n, c, k, h + 1, Weight::ExcessOver(h));
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]

        /// n ≤ 60, any c and k, the thresholds of several τ (and mG-Pass).
        #[test]
        fn mode_walk_is_exact_to_1e_12(n in 1u64..=60, c_frac in 0.0f64..=1.0, k_frac in 0.0f64..=1.0) {
            let c = ((n as f64 * c_frac) as u64).min(n);
            let k = ((n as f64 * k_frac) as u64).clamp(1, n);
            for tau in [0.1, 0.25, 0.5, 0.6, 0.75, 0.9, 1.0] {
                let m = crate::estimators::g_pass_threshold(k, tau);
                check(n, c, k, m, Weight::One);
            }
            let h = k.div_ceil(2);
            check(n, c, k, h + 1, Weight::ExcessOver(h));
        }
    }
}
