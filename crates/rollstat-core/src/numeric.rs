//! Double-double arithmetic with a separate binary exponent.
//!
//! The estimators are products and sums of many ratios of integers
//! (`(n−c−i)/(n−i)`, hypergeometric term ratios). Rounding each factor to
//! `f64` loses about one unit in the last place per factor, which for
//! k = 10⁴ factors already exceeds the 1e-12 relative-error budget. Carrying
//! every product in double-double (≈ 106-bit mantissa) keeps the error near
//! `k · 2⁻¹⁰⁶`, far below what the final rounding to `f64` costs. The separate
//! exponent lets `C(c,k)/C(n,k) ≈ 2⁻¹⁰⁰⁰⁰` be carried without underflow so that
//! later ratios (or a sum) can bring it back into range.

/// An unevaluated sum `hi + lo` with `|lo| ≤ ulp(hi)/2`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Dd {
    pub hi: f64,
    pub lo: f64,
}

#[inline]
fn two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    let bb = s - a;
    (s, (a - (s - bb)) + (b - bb))
}

#[inline]
fn quick_two_sum(a: f64, b: f64) -> (f64, f64) {
    let s = a + b;
    (s, b - (s - a))
}

#[inline]
fn two_prod(a: f64, b: f64) -> (f64, f64) {
    let p = a * b;
    (p, a.mul_add(b, -p))
}

impl Dd {
    pub const ZERO: Dd = Dd { hi: 0.0, lo: 0.0 };
    pub const ONE: Dd = Dd { hi: 1.0, lo: 0.0 };

    /// Exact representation of an integer below 2¹⁰⁶.
    #[inline]
    pub fn from_u64(v: u64) -> Dd {
        let hi = v as f64;
        // `hi` may round up or down; the difference is exact in i128 and in f64.
        let lo = (v as i128 - hi as i128) as f64;
        let (hi, lo) = quick_two_sum(hi, lo);
        Dd { hi, lo }
    }

    #[inline]
    pub fn add(self, o: Dd) -> Dd {
        let (s, e) = two_sum(self.hi, o.hi);
        let (t, f) = two_sum(self.lo, o.lo);
        let (s, e) = quick_two_sum(s, e + t);
        let (hi, lo) = quick_two_sum(s, e + f);
        Dd { hi, lo }
    }

    #[inline]
    pub fn neg(self) -> Dd {
        Dd {
            hi: -self.hi,
            lo: -self.lo,
        }
    }

    #[inline]
    pub fn mul(self, o: Dd) -> Dd {
        let (p, e) = two_prod(self.hi, o.hi);
        let e = e + (self.hi * o.lo + self.lo * o.hi);
        let (hi, lo) = quick_two_sum(p, e);
        Dd { hi, lo }
    }

    #[inline]
    pub fn mul_f64(self, b: f64) -> Dd {
        let (p, e) = two_prod(self.hi, b);
        let e = e + self.lo * b;
        let (hi, lo) = quick_two_sum(p, e);
        Dd { hi, lo }
    }

    #[inline]
    pub fn div(self, o: Dd) -> Dd {
        let q1 = self.hi / o.hi;
        let r = self.add(o.mul_f64(q1).neg());
        let q2 = r.hi / o.hi;
        let r = r.add(o.mul_f64(q2).neg());
        let q3 = r.hi / o.hi;
        let (hi, lo) = quick_two_sum(q1, q2);
        Dd { hi, lo }.add(Dd { hi: q3, lo: 0.0 })
    }

    /// Exact-as-possible ratio of two integers.
    #[inline]
    pub fn ratio(num: u64, den: u64) -> Dd {
        Dd::from_u64(num).div(Dd::from_u64(den))
    }

    #[inline]
    pub fn to_f64(self) -> f64 {
        self.hi + self.lo
    }
}

/// A double-double mantissa times `2^exp`, for products that would underflow.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scaled {
    pub m: Dd,
    pub exp: i64,
}

const RESCALE_BITS: i32 = 512;

impl Scaled {
    pub fn one() -> Scaled {
        Scaled { m: Dd::ONE, exp: 0 }
    }

    fn pow2(e: i32) -> f64 {
        2f64.powi(e)
    }

    /// Multiplies and keeps the mantissa within [2⁻⁵¹², 2⁵¹²].
    #[inline]
    pub fn mul(self, f: Dd) -> Scaled {
        let mut m = self.m.mul(f);
        let mut exp = self.exp;
        let a = m.hi.abs();
        if a != 0.0 && a < Self::pow2(-RESCALE_BITS) {
            let s = Self::pow2(RESCALE_BITS);
            m = Dd {
                hi: m.hi * s,
                lo: m.lo * s,
            };
            exp -= RESCALE_BITS as i64;
        } else if a > Self::pow2(RESCALE_BITS) {
            let s = Self::pow2(-RESCALE_BITS);
            m = Dd {
                hi: m.hi * s,
                lo: m.lo * s,
            };
            exp += RESCALE_BITS as i64;
        }
        Scaled { m, exp }
    }

    /// The value as a double-double, flushing to zero below the f64 range.
    pub fn to_dd(self) -> Dd {
        if self.exp == 0 {
            return self.m;
        }
        if self.exp < -2200 {
            return Dd::ZERO;
        }
        if self.exp > 2200 {
            return Dd {
                hi: f64::INFINITY,
                lo: 0.0,
            };
        }
        // Apply the exponent in steps that stay exact (powers of two).
        let mut m = self.m;
        let mut e = self.exp;
        while e != 0 {
            let step = e.clamp(-RESCALE_BITS as i64, RESCALE_BITS as i64);
            let s = Self::pow2(step as i32);
            m = Dd {
                hi: m.hi * s,
                lo: m.lo * s,
            };
            e -= step;
        }
        m
    }
}

/// Neumaier-compensated sum of `f64` values (order-independent to ~1 ulp).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CompensatedSum {
    sum: f64,
    comp: f64,
}

impl CompensatedSum {
    #[inline]
    pub fn add(&mut self, x: f64) {
        let t = self.sum + x;
        if self.sum.abs() >= x.abs() {
            self.comp += (self.sum - t) + x;
        } else {
            self.comp += (x - t) + self.sum;
        }
        self.sum = t;
    }

    #[inline]
    pub fn value(&self) -> f64 {
        self.sum + self.comp
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ratio_one_third_is_accurate_beyond_f64() {
        let third = Dd::ratio(1, 3);
        let back = third.mul(Dd::from_u64(3));
        assert_eq!(back.hi, 1.0);
        assert!(back.lo.abs() < 1e-31);
    }

    #[test]
    fn from_u64_is_exact_for_large_values() {
        let v = u64::MAX - 1;
        let d = Dd::from_u64(v);
        assert_eq!(d.hi as i128 + d.lo as i128, v as i128);
    }

    #[test]
    fn scaled_survives_underflow_and_returns() {
        let mut s = Scaled::one();
        let half = Dd { hi: 0.5, lo: 0.0 };
        let two = Dd { hi: 2.0, lo: 0.0 };
        for _ in 0..3000 {
            s = s.mul(half);
        }
        assert_eq!(s.to_dd().hi, 0.0);
        for _ in 0..2999 {
            s = s.mul(two);
        }
        assert_eq!(s.to_dd().hi, 0.5);
    }

    #[test]
    fn compensated_sum_recovers_small_terms() {
        let mut s = CompensatedSum::default();
        s.add(1.0);
        for _ in 0..10 {
            s.add(1e-17);
        }
        s.add(-1.0);
        assert!((s.value() - 1e-16).abs() < 1e-30);
    }
}
