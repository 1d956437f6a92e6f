//! pass@k and pass^k in O(1) a problem from a table of falling factorials.
//!
//! [`fast`](crate::fast)'s ratio `C(a, k)/C(n, k)` is, on its product path, the
//! quotient of two falling factorials: `falling(a, k) / falling(n, k)`,
//! each `Π_{j<k} (m − j)` rounded in a fixed order. Those depend on one
//! integer each, so when many problems share a range of n (a million
//! problems with n below 10⁵) a table of `falling(m, k)` for every
//! `m ≤ max` turns each problem's O(k) products into two loads and one
//! division. The entries are the very values [`fast`](crate::fast) computes and the
//! division the same, so every value is bit for bit [`fast::pass_at_k`](crate::fast::pass_at_k)'s
//! and [`fast::pass_pow_k`](crate::fast::pass_pow_k)'s, with their proven bound (within [`TOL`] of
//! the exact fraction); where that bound needs the telescoping sum, or the
//! problem is one the table does not serve, the caller computes it.
//!
//! Blocks of [`LANES`] problems: with AVX2, four at a time (gathers from
//! the table, vector division and bound check); else lane by lane, the
//! same operations.
//!
//! [`TOL`]: crate::fast::TOL

use crate::fast::{
    complement_is_exact, small_to_f64, Lanes, LANES, LANES_MIN_N, MIN_NORMAL_PRODUCT,
};
use rayon::prelude::*;

/// Entries computed per parallel task.
const TABLE_CHUNK: usize = 1 << 12;

/// `falling(m, k)` for every `m ≤ max`, +0 for m < k (see the module
/// docs).
pub struct FallingTable {
    /// `values[m]`; never empty (max ≥ 0).
    values: Vec<f64>,
    /// γ_m of the paired ratio (see [`crate::fast`]), its error bound.
    gamma: f64,
    /// Whether this processor has AVX2 (the blocks use its gathers).
    avx2: bool,
}

/// [`LANES`] consecutive entries from `m0` (those past `max` are computed
/// and dropped by the caller).
#[inline(always)]
fn entries_from(lanes: &Lanes, m0: u64, block: &mut [f64]) {
    let m: [f64; LANES] = std::array::from_fn(|l| small_to_f64(m0 + l as u64));
    let f = lanes.falling(&m);
    for (l, v) in block.iter_mut().enumerate() {
        *v = if m0 + (l as u64) < lanes.k { 0.0 } else { f[l] };
    }
}

/// One task's entries, from `start`.
#[inline(always)]
fn fill_entries(lanes: &Lanes, start: u64, chunk: &mut [f64]) {
    for (bi, block) in chunk.chunks_mut(LANES).enumerate() {
        entries_from(lanes, start + (bi * LANES) as u64, block);
    }
}

/// [`fill_entries`] compiled for AVX2 (the same operations, four lanes a
/// register).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn fill_entries_avx2(lanes: &Lanes, start: u64, chunk: &mut [f64]) {
    fill_entries(lanes, start, chunk)
}

/// Whether this processor has AVX2.
fn has_avx2() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

impl FallingTable {
    /// The table up to `max` for the `k` of `lanes`, or `None` when `max`
    /// is not below [`Lanes`]' limit (past it [`fast`](crate::fast) leaves its product
    /// path). Entries are computed in parallel, [`LANES`] at a time by
    /// [`Lanes::falling`] (bit for bit the scalar products).
    pub fn new(lanes: &Lanes, max: u64) -> Option<FallingTable> {
        if max >= lanes.n_limit {
            return None;
        }
        let avx2 = has_avx2();
        let mut values = vec![0.0; max as usize + 1];
        values
            .par_chunks_mut(TABLE_CHUNK)
            .enumerate()
            .for_each(|(ci, chunk)| {
                let start = (ci * TABLE_CHUNK) as u64;
                #[cfg(target_arch = "x86_64")]
                if avx2 {
                    // SAFETY: the processor has AVX2 (checked above).
                    return unsafe { fill_entries_avx2(lanes, start, chunk) };
                }
                fill_entries(lanes, start, chunk);
            });
        Some(FallingTable {
            values,
            gamma: lanes.gamma,
            avx2,
        })
    }

    /// The largest m the table holds.
    pub fn max(&self) -> u64 {
        self.values.len() as u64 - 1
    }

    /// pass@k of [`LANES`] problems from raw counts ([`crate::counts`]
    /// reads negative counts as huge u64): [`fast::pass_at_k`](crate::fast::pass_at_k)'s value
    /// written for each lane whose bit is clear in the returned mask. Set
    /// bits: problems the table does not serve — n ≤ 67 (the engine's
    /// Pascal rows), n > max, c > n, c = 0 — or where `1 − ratio` fails
    /// the bound (the scalar function's telescoping sum); the caller
    /// computes those (their `out` is garbage).
    #[inline(always)]
    pub fn pass_at_k(&self, n: &[u64; LANES], c: &[u64; LANES], out: &mut [f64]) -> u32 {
        self.dispatch(n, c, out, false)
    }

    /// pass^k of [`LANES`] problems from raw counts: [`fast::pass_pow_k`](crate::fast::pass_pow_k)'s
    /// value for each lane whose bit is clear in the returned mask. Set
    /// bits: problems the table does not serve (as
    /// [`FallingTable::pass_at_k`], c = 0 aside) or whose product
    /// underflows.
    #[inline(always)]
    pub fn pass_pow_k(&self, n: &[u64; LANES], c: &[u64; LANES], out: &mut [f64]) -> u32 {
        self.dispatch(n, c, out, true)
    }

    /// One block with AVX2 where the processor has it, else lane by lane.
    #[inline(always)]
    fn dispatch(&self, n: &[u64; LANES], c: &[u64; LANES], out: &mut [f64], pow: bool) -> u32 {
        #[cfg(target_arch = "x86_64")]
        if self.avx2 {
            // SAFETY: the processor has AVX2 (checked in `new`).
            return unsafe { avx2::block(self, n, c, out, pow) };
        }
        self.block(n, c, out, pow)
    }

    /// One block lane by lane: pass^k when `pow`, else pass@k.
    #[inline(always)]
    fn block(&self, n: &[u64; LANES], c: &[u64; LANES], out: &mut [f64], pow: bool) -> u32 {
        let max = self.max();
        let mut rest = 0u32;
        for l in 0..LANES {
            let (nl, cl) = (n[l], c[l]);
            let ordinary = (nl > LANES_MIN_N) & (nl <= max) & (cl <= nl);
            let a = if pow { cl } else { nl.wrapping_sub(cl) };
            let (ai, ni) = if ordinary { (a, nl) } else { (max, max) };
            // SAFETY: ai, ni ≤ max = values.len() − 1 (a ≤ n ≤ max in an
            // ordinary lane, max itself in the others).
            let r = unsafe {
                *self.values.get_unchecked(ai as usize) / *self.values.get_unchecked(ni as usize)
            };
            let (value, ok) = if pow {
                // 0 exactly where c < k (a zero entry), as pass_pow_k.
                (r, (r >= MIN_NORMAL_PRODUCT) | (r == 0.0))
            } else {
                (1.0 - r, complement_is_exact(r, self.gamma))
            };
            out[l] = value;
            rest |= u32::from(!(ordinary & ok)) << l;
        }
        rest
    }
}

/// [`FallingTable`]'s blocks with AVX2: per four lanes, unsigned compares
/// for the lanes served, two gathers, one division, the bound check of
/// [`complement_is_exact`] (the same operations in the same order, no
/// fused multiply-add) or pass^k's underflow check, a sign mask.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::FallingTable;
    use crate::fast::{LANES, LANES_MIN_N, MIN_NORMAL_PRODUCT, TOL, U};
    use std::arch::x86_64::*;

    /// a > b for unsigned 64-bit lanes (AVX2 compares signed: flip the
    /// sign bits).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn above(a: __m256i, b: __m256i) -> __m256i {
        let sign = _mm256_set1_epi64x(i64::MIN);
        _mm256_cmpgt_epi64(_mm256_xor_si256(a, sign), _mm256_xor_si256(b, sign))
    }

    /// [`FallingTable::block`] four lanes at a time.
    ///
    /// # Safety
    ///
    /// The processor must have AVX2; `out` must hold [`LANES`] values.
    #[inline]
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn block(
        table: &FallingTable,
        n: &[u64; LANES],
        c: &[u64; LANES],
        out: &mut [f64],
        pow: bool,
    ) -> u32 {
        assert!(out.len() >= LANES);
        let max = table.max() as i64;
        let (vmax, vmin_n) = (
            _mm256_set1_epi64x(max),
            _mm256_set1_epi64x(LANES_MIN_N as i64),
        );
        let base = table.values.as_ptr();
        let mut rest = 0u32;
        for q in 0..LANES / 4 {
            // SAFETY: lanes 4q..4q+4 are within the arrays and `out`.
            let (nv, cv) = unsafe {
                (
                    _mm256_loadu_si256(n.as_ptr().add(4 * q).cast()),
                    _mm256_loadu_si256(c.as_ptr().add(4 * q).cast()),
                )
            };
            // n > 67, n ≤ max, c ≤ n: served.
            let served = _mm256_andnot_si256(
                _mm256_or_si256(above(nv, vmax), above(cv, nv)),
                above(nv, vmin_n),
            );
            let a = if pow { cv } else { _mm256_sub_epi64(nv, cv) };
            let ai = _mm256_blendv_epi8(vmax, a, served);
            let ni = _mm256_blendv_epi8(vmax, nv, served);
            // SAFETY: every index is ≤ max, within `values` (see
            // FallingTable::block).
            let (num, den) = unsafe {
                (
                    _mm256_i64gather_pd::<8>(base, ai),
                    _mm256_i64gather_pd::<8>(base, ni),
                )
            };
            let r = _mm256_div_pd(num, den);
            let (value, ok) = if pow {
                let normal = _mm256_cmp_pd::<_CMP_GE_OQ>(r, _mm256_set1_pd(MIN_NORMAL_PRODUCT));
                let zero = _mm256_cmp_pd::<_CMP_EQ_OQ>(r, _mm256_setzero_pd());
                (r, _mm256_or_pd(normal, zero))
            } else {
                // complement_is_exact(r, gamma), operation by operation.
                let err = _mm256_mul_pd(
                    _mm256_mul_pd(_mm256_set1_pd(table.gamma), r),
                    _mm256_set1_pd(1.0001),
                );
                let one = _mm256_set1_pd(1.0);
                let margin = _mm256_sub_pd(_mm256_sub_pd(one, r), err);
                let positive = _mm256_cmp_pd::<_CMP_GT_OQ>(margin, _mm256_setzero_pd());
                let bounded = _mm256_cmp_pd::<_CMP_LE_OQ>(
                    _mm256_mul_pd(err, _mm256_set1_pd(1.0 + U)),
                    _mm256_mul_pd(margin, _mm256_set1_pd(TOL - U)),
                );
                (_mm256_sub_pd(one, r), _mm256_and_pd(positive, bounded))
            };
            // SAFETY: out holds LANES values (asserted above).
            unsafe { _mm256_storeu_pd(out.as_mut_ptr().add(4 * q), value) };
            let keep = _mm256_and_pd(_mm256_castsi256_pd(served), ok);
            rest |= ((!_mm256_movemask_pd(keep) & 0xf) as u32) << (4 * q);
        }
        rest
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast;

    /// The table's values are the scalar functions' bit for bit, in both
    /// block implementations, and it leaves exactly the problems it must.
    #[test]
    fn table_blocks_equal_the_scalar_functions() {
        let mut next = fast::xorshift(0x2545_f491_4f6c_dd1d_u64);
        let (mut kept, mut lanes_seen) = (0, 0);
        for k in [2, 3, 8, 16, 33, 64] {
            let lanes = Lanes::new(k).unwrap();
            let max = (5_000u64).min(lanes.n_limit - 1);
            let mut table = FallingTable::new(&lanes, max).unwrap();
            let avx2 = table.avx2;
            for _ in 0..3000 {
                let n: [u64; LANES] = std::array::from_fn(|_| match next(8) {
                    0 => next(68),                     // the engine's rows
                    1 => max + 1 + next(3),            // past the table
                    2 => (-1 - next(3) as i64) as u64, // a negative count
                    _ => 68 + next(max - 67),
                });
                let c: [u64; LANES] = std::array::from_fn(|l| {
                    let nl = n[l].min(max);
                    match next(9) {
                        0 => 0,
                        1 => nl,
                        2 => nl + 1 + next(2), // c > n
                        3 => nl.saturating_sub(k) + next(k + 1).min(k), // n − c ≤ k
                        4 => next(k + 1),      // c ≤ k
                        5 => (-1i64) as u64,   // negative
                        6 => 1 + next(3),      // few correct: telescoping
                        _ => next(nl + 1),
                    }
                });
                for pow in [false, true] {
                    let mut outs = Vec::new();
                    for vector in [false, true] {
                        if vector && !avx2 {
                            continue;
                        }
                        table.avx2 = vector;
                        let mut out = [f64::NAN; LANES];
                        let rest = if pow {
                            table.pass_pow_k(&n, &c, &mut out)
                        } else {
                            table.pass_at_k(&n, &c, &mut out)
                        };
                        for l in 0..LANES {
                            let served = n[l] > 67 && n[l] <= max && c[l] <= n[l];
                            let want = if !served {
                                None
                            } else if pow {
                                fast::pass_pow_k(n[l], c[l], k)
                            } else {
                                fast::pass_at_k(n[l], c[l], k)
                            };
                            lanes_seen += 1;
                            if rest & (1 << l) == 0 {
                                kept += 1;
                                let want = want.expect("a served lane has a value");
                                assert_eq!(
                                    out[l].to_bits(),
                                    want.to_bits(),
                                    "{} {} {k}",
                                    n[l],
                                    c[l]
                                );
                            } else if served && pow {
                                // Left only where the product underflows.
                                assert_eq!(want, None, "{} {} {k}", n[l], c[l]);
                            } else if served && c[l] > 0 {
                                // Left only where 1 − ratio cancels: then
                                // pass@k ≥ c/n (the first draw) is small.
                                assert!(c[l] as f64 / n[l] as f64 <= 0.5, "{} {} {k}", n[l], c[l]);
                            }
                        }
                        outs.push((rest, out.map(f64::to_bits)));
                    }
                    if let [(ra, oa), (rb, ob)] = outs[..] {
                        assert_eq!(ra, rb);
                        for l in 0..LANES {
                            if ra & (1 << l) == 0 {
                                assert_eq!(oa[l], ob[l]);
                            }
                        }
                    }
                }
                table.avx2 = avx2;
            }
        }
        // Most lanes are ordinary ones the table serves (not a test of
        // the leftovers alone).
        assert!(kept * 3 > lanes_seen, "{kept} of {lanes_seen}");
    }
}
