//! [`Lanes`]' pass@k and pass^k with AVX-512, eight problems a register.
//!
//! The same operations in the same order as [`bounded::pass_at_k`] and
//! [`bounded::pass_pow_k`] on their paired path (so bit for bit their values):
//! counts to f64 (exact below 2⁵²), `x = a(a − k + 1)`, the product of the
//! paired factors `x + j(k − 1 − j)`, one division — no fused multiply-add.
//! pass@k's bound check ([`complement_is_exact`](super::bounded::complement_is_exact))
//! becomes one comparison, `r ≤` [`Wide::sure_complement`], a bound below
//! which it provably passes; the few lanes above it ([`cancelling`]) are
//! collected and computed eight at a time, check and telescoping sum
//! included, as the scalar function does. Written with intrinsics rather
//! than left to the compiler: the range checks become unsigned compares
//! into mask registers, so a block is straight-line vector code. pass@k
//! needs just two (n in range, c ≤ n): its constants (0 at c = 0, 1 at
//! n − c < k) fall out of the ratio exactly (`x86::at_blocks`); pass^k
//! blends a stand-in problem into the lanes not served. [`sixteen`]
//! computes two registers together: a product chain waits on its last
//! multiplication (a few cycles), and
//! the four chains of two registers (numerators, denominators) keep the
//! multiplier busy meanwhile — a fifth less time at k = 16, each lane's
//! operations unchanged.
//!
//! Why it is kept while the AVX2 table of falling factorials and the
//! AVX-512 dense-row registers were deleted (measured 2026-12-04 on the
//! repository's 2-core machine, which has AVX-512; 10⁶ problems, n
//! distinct in [16, 10⁵), pass@k, one thread, medians of 200 calls of the
//! `fill_timing` test, load 6–9):
//!
//! | k | this kernel | AVX2 gather table | portable [`Lanes`] (AVX2 / AVX-512 build) |
//! |---|---|---|---|
//! | 16 | 0.80–0.86 ms | 2.3–2.9 ms | 3.6–3.8 / 3.0 ms |
//! | 40 | 1.42–1.51 ms | 2.5 ms | 7.8–8.2 (best 5.2) / — ms |
//! | 48 | 1.7–2.7 ms (best 1.6) | 5.9–6.1 ms (best 3.2) | — |
//!
//! (Above k = 40 the table used to be chosen over this kernel; now this
//! kernel serves every k ≤ 64 on such a processor.)
//!
//! The table bought 1.2–1.6× over the portable lanes (below the 2× that
//! would keep its intrinsics); this kernel buys 3.7–4.7×, and without it
//! the distinct-n pass@k row of BENCHMARKS §8.1 (≈ 7–16 ms for numpy)
//! would fall to roughly 2–5×, against its ≥ 5× goal. The portable lanes lose on lane bookkeeping that
//! the mask registers here do in one compare.
//!
//! [`bounded::pass_at_k`]: super::bounded::pass_at_k
//! [`bounded::pass_pow_k`]: super::bounded::pass_pow_k

use super::bounded::{Lanes, TOL, U};

/// [`Lanes`] with the constants of its products ready to broadcast.
pub struct Wide {
    lanes: Lanes,
    /// `k − 1`, `(k − 1)/2` and `j(k − 1 − j)` for 0 < j < ⌊k/2⌋, as f64.
    top: f64,
    middle: f64,
    pairs: Vec<f64>,
    /// Below this ratio r, `complement_is_exact(r, γ)` holds (see
    /// [`sure_complement`]).
    sure_complement: f64,
}

/// A ratio r ≥ 0 at or below which `complement_is_exact(r, gamma)` holds.
///
/// The check accepts when `fl(err·(1+u)) ≤ fl(margin·(TOL−u))` with
/// `err = fl(fl(γr)·1.0001) ≤ γr·1.0001·(1+u)²` and `margin = fl(fl(1−r) −
/// err) ≥ ((1−r)(1−u) − err)(1−u)`. Let `t = 0.99·(TOL−u) / (1.01·1.0001·γ)`
/// and r ≤ t/(1+t), i.e. `1.01·1.0001·γr ≤ 0.99·(1−r)(TOL−u)`. Then the
/// left side is below `1.01·1.0001·γr` (four roundings are far below 1 %),
/// and since `err/(1−r) ≤ γ·t ≈ TOL` is negligible, the right side is at
/// least `0.999·(1−r)(TOL−u)` > `0.99·(1−r)(TOL−u)`: accepted, and margin
/// > 0. Another 1 % off t/(1+t) covers the rounding of this computation.
fn sure_complement(gamma: f64) -> f64 {
    let t = 0.99 * (TOL - U) / (1.01 * 1.0001 * gamma);
    0.99 * (t / (1.0 + t))
}

impl Wide {
    /// The kernels of `lanes`, when this processor runs them
    /// ([`available`]).
    pub fn new(lanes: &Lanes) -> Option<Wide> {
        let k = lanes.k;
        available().then(|| Wide {
            lanes: Lanes { ..*lanes },
            top: (k - 1) as f64,
            middle: ((k - 1) / 2) as f64,
            pairs: (1..k / 2).map(|j| (j * (k - 1 - j)) as f64).collect(),
            sure_complement: sure_complement(lanes.gamma),
        })
    }
}

impl Wide {
    /// Whether a pass@k lane [`eight`] or [`sixteen`] left is one for
    /// [`cancelling`]: on [`Lanes`]' path, so left only because `1 − r`
    /// may cancel. (The other lanes they leave are not on that path.)
    pub fn cancels(&self, n: u64, c: u64) -> bool {
        self.lanes.generic_at(n, c)
    }
}

/// Whether this processor runs [`eight`] (AVX-512 F and DQ).
pub fn available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx512f")
            && std::arch::is_x86_feature_detected!("avx512dq")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Eight problems from raw counts: pass^k when `POW`, else pass@k,
/// written to `out` for every lane whose bit is clear in the returned
/// mask — the lanes [`Lanes::generic_at`] (or [`Lanes::generic_pow`])
/// admits whose value the scalar function returns from its product: not
/// where pass@k needs the telescoping sum (nor just below that, past
/// [`Wide::sure_complement`]), nor a pass^k product that underflows; and
/// the lanes of n in that range whose value it returns as a constant (0
/// at pass@k's c = 0 and pass^k's c < k, 1 at pass@k's n − c < k). The
/// caller computes the lanes whose bit is set (their `out` is garbage);
/// [`Wide::cancels`] tells those [`cancelling`] computes (pass@k's lanes
/// past the sure bound).
///
/// # Safety
///
/// The processor must have AVX-512 F and DQ ([`available`]).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub unsafe fn eight<const POW: bool>(
    wide: &Wide,
    n: [u64; 8],
    c: [u64; 8],
    out: &mut [f64; 8],
) -> u8 {
    // SAFETY: both arrays and `out` hold eight 64-bit values.
    unsafe {
        let (nv, cv) = (
            x86::_mm512_loadu_si512(n.as_ptr().cast()),
            x86::_mm512_loadu_si512(c.as_ptr().cast()),
        );
        let [(value, rest)] = x86::blocks::<POW, 1>(wide, [nv], [cv]);
        x86::_mm512_storeu_pd(out.as_mut_ptr(), value);
        rest
    }
}

/// [`eight`] for sixteen problems, two registers computed together (their
/// chains of products interleaved; each lane's operations unchanged, so
/// the same values and mask as two calls of [`eight`]): a bit each.
///
/// Not compiled for AVX-512 itself but always inlined, into the caller's
/// loop compiled for it: called once a block, a call would pass the
/// arrays through memory (a third more time).
///
/// # Safety
///
/// The processor must have AVX-512 F and DQ ([`available`]).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
pub unsafe fn sixteen<const POW: bool>(
    wide: &Wide,
    n: [u64; 16],
    c: [u64; 16],
    out: &mut [f64; 16],
) -> u16 {
    // SAFETY: both arrays and `out` hold sixteen 64-bit values.
    unsafe {
        let load = |a: &[u64; 16], h: usize| x86::_mm512_loadu_si512(a.as_ptr().add(8 * h).cast());
        let (nv, cv) = ([load(&n, 0), load(&n, 1)], [load(&c, 0), load(&c, 1)]);
        let results = x86::blocks::<POW, 2>(wide, nv, cv);
        let mut rest = 0u16;
        for (h, (value, left)) in results.into_iter().enumerate() {
            x86::_mm512_storeu_pd(out.as_mut_ptr().add(8 * h), value);
            rest |= u16::from(left) << (8 * h);
        }
        rest
    }
}

/// pass@k of eight problems [`Lanes::generic_at`] admits, as
/// [`bounded::pass_at_k`](super::bounded::pass_at_k): `1 − r` where
/// [`complement_is_exact`](super::bounded::complement_is_exact) accepts it, else
/// the telescoping sum — the same operations in the same order in each
/// lane. For the lanes [`eight`] leaves past the sure bound, collected
/// eight at a time: a few in a million problems, each a chain of 2k
/// divisions, which eight lanes share.
///
/// # Safety
///
/// The processor must have AVX-512 F and DQ ([`available`]).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f,avx512dq")]
pub unsafe fn cancelling(wide: &Wide, n: [u64; 8], c: [u64; 8]) -> [f64; 8] {
    let mut out = [0.0; 8];
    // SAFETY: both arrays and `out` hold eight 64-bit values.
    unsafe {
        let (nv, cv) = (
            x86::_mm512_loadu_si512(n.as_ptr().cast()),
            x86::_mm512_loadu_si512(c.as_ptr().cast()),
        );
        x86::_mm512_storeu_pd(out.as_mut_ptr(), x86::cancelling(wide, nv, cv));
    }
    out
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    use super::super::bounded::{LANES_MIN_N, MIN_NORMAL_PRODUCT, TOL, U};
    use super::Wide;
    pub(super) use std::arch::x86_64::*;

    /// A problem every path admits at every k (k ≤ 64 ≤ c ≤ n − k),
    /// computed in the lanes not served (no division by zero, no branch).
    const STAND_IN: (i64, i64) = (200, 100);

    /// pass@k of `B` registers of eight problems: the values and the lanes
    /// left to the caller, a bit each (see [`super::eight`]). Every
    /// register's operations are those of one register alone, in its
    /// order, only interleaved with the others' (independent
    /// multiplication chains keep the multiplier busy while each waits on
    /// its last product).
    ///
    /// The ratio straight from the counts, no lane set aside beforehand —
    /// the constants fall out of it. For
    /// 68 ≤ n < n_limit and c ≤ n (`valid`):
    ///
    /// - c = 0: a = n, the two products the same operations on the same
    ///   value, so r = 1 exactly and `1 − r` = +0, the scalar's 0;
    /// - n − c < k (a < k, c ≥ 1): one of the k factors a − j is 0, and
    ///   every paired factor is an exact integer of at most k²/4 in
    ///   magnitude (at most 32 of them, so no partial product overflows):
    ///   the product is ±0, r = ±0 ≤ the sure bound, `1 − r` = 1, the
    ///   scalar's 1;
    /// - otherwise ([`Lanes::generic_at`](super::super::bounded::Lanes::generic_at))
    ///   the scalar's operations, in its order, and its value wherever r
    ///   is at most [`Wide::sure_complement`].
    ///
    /// So a lane is served when valid and r ≤ the bound, or valid and
    /// c = 0; every other lane (n ≤ 67, n past the limit, c > n, a
    /// negative count — its wrapped difference a exceeds n —, r past the
    /// bound) is left, its value garbage (huge or infinite products, a
    /// NaN ratio: no exception is unmasked).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn at_blocks<const B: usize>(
        wide: &Wide,
        nv: [__m512i; B],
        cv: [__m512i; B],
    ) -> [(__m512d, u8); B] {
        // 68 ≤ n < n_limit as one unsigned comparison of n − 68.
        let min = _mm512_set1_epi64(LANES_MIN_N as i64 + 1);
        let span = _mm512_set1_epi64((wide.lanes.n_limit - LANES_MIN_N - 1) as i64);
        let av: [__m512i; B] = std::array::from_fn(|b| _mm512_sub_epi64(nv[b], cv[b]));
        let valid: [u8; B] = std::array::from_fn(|b| {
            let in_range = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(nv[b], min), span);
            // a ≤ n exactly when c ≤ n (else n − c wraps past n).
            _mm512_mask_cmple_epu64_mask(in_range, av[b], nv[b])
        });
        let (num, den) = (
            falling(wide, av.map(|a| _mm512_cvtepu64_pd(a))),
            falling(wide, nv.map(|n| _mm512_cvtepu64_pd(n))),
        );
        let sure = _mm512_set1_pd(wide.sure_complement);
        std::array::from_fn(|b| {
            let r = _mm512_div_pd(num[b], den[b]);
            let zero = _mm512_mask_testn_epi64_mask(valid[b], cv[b], cv[b]);
            let served = _mm512_mask_cmp_pd_mask::<_CMP_LE_OQ>(valid[b], r, sure) | zero;
            (_mm512_sub_pd(_mm512_set1_pd(1.0), r), !served)
        })
    }

    /// [`pow_blocks`] when `POW`, else [`at_blocks`].
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn blocks<const POW: bool, const B: usize>(
        wide: &Wide,
        nv: [__m512i; B],
        cv: [__m512i; B],
    ) -> [(__m512d, u8); B] {
        if POW {
            pow_blocks(wide, nv, cv)
        } else {
            at_blocks(wide, nv, cv)
        }
    }

    /// pass^k of `B` registers (as [`at_blocks`]).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn pow_blocks<const B: usize>(
        wide: &Wide,
        nv: [__m512i; B],
        cv: [__m512i; B],
    ) -> [(__m512d, u8); B] {
        let k = wide.lanes.k;
        let kv = _mm512_set1_epi64(k as i64);
        let (mut af, mut nf, mut served) =
            ([_mm512_setzero_pd(); B], [_mm512_setzero_pd(); B], [0; B]);
        let mut zeros = [0; B];
        for b in 0..B {
            let (nv, cv) = (nv[b], cv[b]);
            // n > 67 and n < n_limit (negative counts read as u64 are huge).
            let in_range = _mm512_cmpgt_epu64_mask(nv, _mm512_set1_epi64(LANES_MIN_N as i64))
                & _mm512_cmplt_epu64_mask(nv, _mm512_set1_epi64(wide.lanes.n_limit as i64));
            // k ≤ c ≤ n: Lanes::generic_pow.
            let ok = _mm512_cmpge_epu64_mask(cv, kv) & _mm512_cmple_epu64_mask(cv, nv);
            served[b] = in_range & ok;
            // c < k: the scalar function's 0 before any product.
            zeros[b] = in_range & _mm512_cmplt_epu64_mask(cv, kv);
            nf[b] = _mm512_cvtepu64_pd(_mm512_mask_blend_epi64(
                served[b],
                _mm512_set1_epi64(STAND_IN.0),
                nv,
            ));
            af[b] = _mm512_cvtepu64_pd(_mm512_mask_blend_epi64(
                served[b],
                _mm512_set1_epi64(STAND_IN.1),
                cv,
            ));
        }
        let (num, den) = (falling(wide, af), falling(wide, nf));
        std::array::from_fn(|b| {
            let r = _mm512_div_pd(num[b], den[b]);
            let normal = _mm512_cmp_pd_mask::<_CMP_GE_OQ>(r, _mm512_set1_pd(MIN_NORMAL_PRODUCT));
            let value = _mm512_mask_blend_pd(zeros[b], r, _mm512_setzero_pd());
            (value, !(served[b] & normal | zeros[b]))
        })
    }

    /// [`super::cancelling`] on registers (every lane admitted).
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn cancelling(wide: &Wide, nv: __m512i, cv: __m512i) -> __m512d {
        let nf = _mm512_cvtepu64_pd(nv);
        let cf = _mm512_cvtepu64_pd(cv);
        let af = _mm512_cvtepu64_pd(_mm512_sub_epi64(nv, cv));
        let [num, den] = falling(wide, [af, nf]);
        let r = _mm512_div_pd(num, den);
        let (value, exact) = complement(r, wide.lanes.gamma);
        _mm512_mask_blend_pd(exact, telescoping(nf, cf, wide.lanes.k), value)
    }

    /// `1 − r` and whether it passes `complement_is_exact(r, gamma)`,
    /// operation by operation.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn complement(r: __m512d, gamma: f64) -> (__m512d, u8) {
        let err = _mm512_mul_pd(
            _mm512_mul_pd(_mm512_set1_pd(gamma), r),
            _mm512_set1_pd(1.0001),
        );
        let one_minus_r = _mm512_sub_pd(_mm512_set1_pd(1.0), r);
        let margin = _mm512_sub_pd(one_minus_r, err);
        let positive = _mm512_cmp_pd_mask::<_CMP_GT_OQ>(margin, _mm512_setzero_pd());
        let bounded = _mm512_cmp_pd_mask::<_CMP_LE_OQ>(
            _mm512_mul_pd(err, _mm512_set1_pd(1.0 + U)),
            _mm512_mul_pd(margin, _mm512_set1_pd(TOL - U)),
        );
        (one_minus_r, positive & bounded)
    }

    /// `bounded::telescoping` in each lane: `Σ_{j<k} c/(n−j) · Π_{i<j}
    /// (n−c−i)/(n−i)`, operation by operation.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn telescoping(nf: __m512d, cf: __m512d, k: u64) -> __m512d {
        let (mut p, mut s) = (_mm512_set1_pd(1.0), _mm512_setzero_pd());
        let rest = _mm512_sub_pd(nf, cf);
        for j in 0..k {
            let jf = _mm512_set1_pd(j as f64);
            let d = _mm512_sub_pd(nf, jf);
            s = _mm512_add_pd(s, _mm512_mul_pd(p, _mm512_div_pd(cf, d)));
            p = _mm512_mul_pd(p, _mm512_div_pd(_mm512_sub_pd(rest, jf), d));
        }
        s
    }

    /// `Π_{j<k} (a−j)` in each lane of each register, as `bounded::falling`:
    /// `x = a(a−k+1)`, times `a − (k−1)/2` for odd k, times `x + j(k−1−j)`
    /// for 0 < j < ⌊k/2⌋ (the scalar loop's first factor, `1·(x + 0)`, is x
    /// exactly). The registers' chains interleaved, each in that order.
    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn falling<const B: usize>(wide: &Wide, a: [__m512d; B]) -> [__m512d; B] {
        let top = _mm512_set1_pd(wide.top);
        let x = a.map(|a| _mm512_mul_pd(a, _mm512_sub_pd(a, top)));
        let mut p = if wide.lanes.k % 2 == 1 {
            let middle = _mm512_set1_pd(wide.middle);
            std::array::from_fn(|b| _mm512_mul_pd(_mm512_sub_pd(a[b], middle), x[b]))
        } else {
            x
        };
        for &d in &wide.pairs {
            let d = _mm512_set1_pd(d);
            for b in 0..B {
                p[b] = _mm512_mul_pd(p[b], _mm512_add_pd(x[b], d));
            }
        }
        p
    }
}

#[cfg(all(test, target_arch = "x86_64"))]
mod tests {
    use super::super::bounded::{self, LANES};
    use super::*;

    /// The blocks give the scalar functions' values bit for bit and leave
    /// the lanes they must: those outside [`Lanes`]' path, those needing
    /// the telescoping sum, underflowing pass^k products — and no others
    /// but pass@k's few just below the telescoping sum; the constants
    /// (pass@k's c = 0 and n − c < k, pass^k's c < k) are never left.
    #[test]
    fn wide_blocks_equal_the_scalar_functions() {
        // Compiled only with the `avx512` feature, which asks for this
        // kernel: a processor without it fails the test rather than
        // passing it unchecked.
        assert!(
            available(),
            "the avx512 feature's tests need AVX-512 F and DQ"
        );
        let mut next = bounded::xorshift(0x5851_f42d_4c95_7f2d_u64);
        let (mut kept, mut seen, mut near) = (0u64, 0u64, 0u64);
        for k in [2, 3, 7, 8, 16, 33, 48, 64] {
            let lanes = Lanes::new(k).unwrap();
            let wide = Wide::new(&lanes).unwrap();
            for _ in 0..3000 {
                let n: [u64; 8] = std::array::from_fn(|_| match next(10) {
                    0 => next(68),                     // the engine's rows
                    1 => lanes.n_limit - 1 + next(3),  // the limit
                    2 => (-1 - next(3) as i64) as u64, // negative
                    3 => {
                        let bits = 5 + next(20);
                        68 + next(1 << bits) // any size
                    }
                    _ => 68 + next(100_000.min(lanes.n_limit - 68)), // as §8.1
                });
                let c: [u64; 8] = std::array::from_fn(|l| {
                    let nl = n[l].min(lanes.n_limit);
                    match next(9) {
                        0 => 0,
                        1 => nl,
                        2 => nl + 1 + next(2),                   // c > n
                        3 => nl.saturating_sub(k) + next(k + 1), // n − c ≤ k
                        4 => next(k + 1),                        // c ≤ k
                        5 => (-1i64) as u64,                     // negative
                        6 => 1 + next(3),                        // telescoping
                        _ => next(nl + 1),
                    }
                });
                for pow in [false, true] {
                    let mut out = [f64::NAN; 8];
                    // SAFETY: AVX-512 F and DQ checked above.
                    let rest = unsafe { eight_of(&wide, n, c, &mut out, pow) };
                    // Sixteen at once: this block twice, the second half
                    // reversed: the same values and masks as two calls.
                    let (mut n2, mut c2) = (n, c);
                    n2.reverse();
                    c2.reverse();
                    let mut out16 = [f64::NAN; 16];
                    let rest16 =
                        unsafe { sixteen_of(&wide, concat(n, n2), concat(c, c2), &mut out16, pow) };
                    let mut out2 = [f64::NAN; 8];
                    let rest2 = unsafe { eight_of(&wide, n2, c2, &mut out2, pow) };
                    assert_eq!(rest16, u16::from(rest) | u16::from(rest2) << 8);
                    let both = out.iter().chain(&out2);
                    for (l, (a, b)) in out16.iter().zip(both).enumerate() {
                        if rest16 & (1 << l) == 0 {
                            assert_eq!(a.to_bits(), b.to_bits());
                        }
                    }
                    for l in 0..8 {
                        let (nl, cl) = (n[l], c[l]);
                        let generic = if pow {
                            lanes.generic_pow(nl, cl)
                        } else {
                            lanes.generic_at(nl, cl)
                        };
                        // What the scalar function computes by its product.
                        let by_product = generic
                            && if pow {
                                bounded::pass_pow_k(nl, cl, k).is_some()
                            } else {
                                let a = (nl - cl) as f64;
                                let r = falling_ref(a, k) / falling_ref(nl as f64, k);
                                bounded::complement_is_exact(r, lanes.gamma)
                            };
                        seen += 1;
                        let left = rest & (1 << l) != 0;
                        let r = || falling_ref((nl - cl) as f64, k) / falling_ref(nl as f64, k);
                        // Left to `cancelling` (Wide::cancels): only past
                        // the sure bound.
                        if !pow && generic && left {
                            assert!(wide.cancels(nl, cl) && r() > wide.sure_complement);
                        }
                        if left && by_product {
                            // Only past the sure bound, and not far past.
                            assert!(!pow && r() > wide.sure_complement, "{nl} {cl} {k}");
                            assert!(r() < 1.05 * wide.sure_complement, "{nl} {cl} {k}");
                            near += 1;
                        }
                        // A constant before any product.
                        let edge = nl > 67
                            && nl < lanes.n_limit
                            && if pow {
                                cl < k
                            } else {
                                cl == 0 || (cl <= nl && nl - cl < k)
                            };
                        assert!(!(edge && left), "{nl} {cl} {k} {pow}");
                        if !left {
                            // By the product, or a constant before it.
                            assert!(by_product || edge, "{nl} {cl} {k} {pow}");
                            kept += 1;
                            let want = if pow {
                                bounded::pass_pow_k(nl, cl, k)
                            } else {
                                bounded::pass_at_k(nl, cl, k)
                            };
                            assert_eq!(out[l].to_bits(), want.unwrap().to_bits(), "{nl} {cl} {k}");
                        }
                    }
                }
            }
        }
        assert!(kept * 4 > seen, "{kept} of {seen}");
        assert!(near * 100 < kept, "{near} of {kept}");
    }

    /// [`cancelling`] gives [`bounded::pass_at_k`]'s value bit for bit, by the
    /// telescoping sum or by `1 − r`, around where the one takes over from
    /// the other.
    #[test]
    fn cancelling_equals_the_scalar_function() {
        // Compiled only with the `avx512` feature, which asks for this
        // kernel: a processor without it fails the test rather than
        // passing it unchecked.
        assert!(
            available(),
            "the avx512 feature's tests need AVX-512 F and DQ"
        );
        let mut next = bounded::xorshift(0x853c_49e6_748f_ea9b_u64);
        let (mut summed, mut total) = (0, 0);
        for k in [2, 3, 8, 16, 33, 48, 64] {
            let lanes = Lanes::new(k).unwrap();
            let wide = Wide::new(&lanes).unwrap();
            // Where 1 − r ≈ k·c/n meets the bound: c/n near TOL-scaled γ.
            let edge = lanes.gamma * 1e14;
            for _ in 0..2000 {
                let n: [u64; 8] = std::array::from_fn(|_| 68 + next(lanes.n_limit - 68 - 1));
                let c: [u64; 8] = std::array::from_fn(|l| {
                    let near = (n[l] as f64 * edge * (0.5 + next(1000) as f64 / 500.0)) as u64;
                    let c = match next(3) {
                        0 => 1 + next(3),
                        1 => near,
                        _ => 1 + next(n[l] - k),
                    };
                    c.clamp(1, n[l] - k)
                });
                // SAFETY: AVX-512 F and DQ checked above.
                let got = unsafe { cancelling(&wide, n, c) };
                for l in 0..8 {
                    assert!(lanes.generic_at(n[l], c[l]));
                    let want = bounded::pass_at_k(n[l], c[l], k).unwrap();
                    assert_eq!(got[l].to_bits(), want.to_bits(), "{} {} {k}", n[l], c[l]);
                    let r = falling_ref((n[l] - c[l]) as f64, k) / falling_ref(n[l] as f64, k);
                    summed += usize::from(!bounded::complement_is_exact(r, lanes.gamma));
                    total += 1;
                }
            }
        }
        // Both branches taken often.
        assert!(
            summed * 10 > total && summed * 10 < total * 9,
            "{summed} of {total}"
        );
    }

    /// At and below [`Wide::sure_complement`] the scalar check accepts
    /// (the bound's proof, checked): every k, ratios spread over
    /// [0, bound] and the last thousand floats below it.
    #[test]
    fn sure_complement_is_below_the_check() {
        let mut next = bounded::xorshift(0x2545_f491_4f6c_dd1d_u64);
        for k in 2..=bounded::MAX_K {
            let gamma = Lanes::new(k).unwrap().gamma;
            let bound = sure_complement(gamma);
            let mut r = bound;
            for _ in 0..1000 {
                assert!(bounded::complement_is_exact(r, gamma), "{k} {r}");
                r = f64::from_bits(r.to_bits() - 1);
            }
            for _ in 0..10_000 {
                let r = bound * (next(1 << 30) as f64 / (1u64 << 30) as f64);
                assert!(bounded::complement_is_exact(r, gamma), "{k} {r}");
            }
            // Not needlessly low: the check fails within 5 % above it.
            assert!(!bounded::complement_is_exact(bound * 1.05, gamma), "{k}");
        }
    }

    /// [`eight`] of the kind `pow` says.
    ///
    /// # Safety
    ///
    /// As [`eight`].
    unsafe fn eight_of(wide: &Wide, n: [u64; 8], c: [u64; 8], out: &mut [f64; 8], pow: bool) -> u8 {
        // SAFETY: the caller's promise.
        unsafe {
            if pow {
                eight::<true>(wide, n, c, out)
            } else {
                eight::<false>(wide, n, c, out)
            }
        }
    }

    /// [`sixteen`] of the kind `pow` says.
    ///
    /// # Safety
    ///
    /// As [`sixteen`].
    unsafe fn sixteen_of(
        wide: &Wide,
        n: [u64; 16],
        c: [u64; 16],
        out: &mut [f64; 16],
        pow: bool,
    ) -> u16 {
        // SAFETY: the caller's promise.
        unsafe {
            if pow {
                sixteen::<true>(wide, n, c, out)
            } else {
                sixteen::<false>(wide, n, c, out)
            }
        }
    }

    /// Two blocks of eight as one of sixteen.
    fn concat<T: Copy + Default>(a: [T; 8], b: [T; 8]) -> [T; 16] {
        std::array::from_fn(|i| if i < 8 { a[i] } else { b[i - 8] })
    }

    /// The scalar product of [`bounded`], restated: `Π_{j<k} (a−j)` with
    /// paired factors.
    fn falling_ref(a: f64, k: u64) -> f64 {
        let lanes = Lanes::new(k).unwrap();
        lanes.falling(&[a; LANES])[0]
    }
}
