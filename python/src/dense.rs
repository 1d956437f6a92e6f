//! Every value of each of a few distinct n, looked up: [`counts`]' path
//! when a sample of the problems shows few distinct n (a benchmark at
//! n = 16, a mix of a few n).
//!
//! A lookup is one load of the n's entry (where its row starts and n + 1,
//! packed in one word) and one load of the value, a single comparison
//! telling a served problem from one left to the caller (n without a row,
//! c > n, a negative count wrapped past every n). When every sampled
//! problem has the same n ≤ [`SMALL_ROW_MAX_N`], its row sits in four
//! AVX-512 registers and eight problems are a compare and two
//! permutations ([`DenseRows::small_blocks`]). Either way the value is
//! the row's, so bit for bit what the caller computed the row with.
//!
//! [`counts`]: crate::counts

/// Largest n whose row (n + 1 ≤ 32 values) [`DenseRows::small_blocks`]
/// keeps in registers.
pub const SMALL_ROW_MAX_N: u64 = 31;

/// The rows of a few distinct n.
pub struct DenseRows {
    /// By n, up to the largest n with a row and one more: the start of the
    /// row of n in `values` (low 32 bits) and n + 1 (high 32 bits); 0 where
    /// n has no row, and in the last entry, which every larger n reads (no
    /// c is below 0).
    entries: Vec<u64>,
    /// The rows, each n + 1 values.
    values: Vec<f64>,
    /// The n of the only row, when there is one row and n ≤
    /// [`SMALL_ROW_MAX_N`].
    small: Option<u64>,
}

impl DenseRows {
    /// The rows of the `distinct` n (each below 2³¹, and together fewer
    /// than 2³² values), the values of row n `row(n, c)` for c = 0..=n.
    pub fn new(distinct: &[u64], mut row: impl FnMut(u64, u64) -> f64) -> DenseRows {
        let max = distinct.iter().copied().max().unwrap_or(0);
        let mut rows = DenseRows {
            entries: vec![0; max as usize + 2],
            values: Vec::new(),
            small: None,
        };
        for &n in distinct {
            if rows.entries[n as usize] != 0 {
                continue;
            }
            let start = u32::try_from(rows.values.len()).expect("rows of fewer than 2³² values");
            let end = u32::try_from(n + 1).expect("n below 2³¹");
            rows.entries[n as usize] = u64::from(start) | u64::from(end) << 32;
            rows.values.extend((0..=n).map(|c| row(n, c)));
        }
        if let [n] = distinct {
            rows.small = (*n <= SMALL_ROW_MAX_N).then_some(*n);
        }
        rows
    }

    /// The value of `(n, c)` from raw counts (a negative count wrapped to
    /// ≥ 2⁶³) when n has a row and c ≤ n.
    #[inline(always)]
    pub fn lookup(&self, n: u64, c: u64) -> Option<f64> {
        let last = self.entries.len() - 1;
        let entry = self.entries[n.min(last as u64) as usize];
        let (start, end) = (entry as u32 as usize, entry >> 32);
        // SAFETY: an entry other than 0 is written only by `new`, with the
        // start of a row of n + 1 = `end` values in `values`, so c < end
        // is inside it (the bounds check cost a tenth of the loop).
        (c < end).then(|| unsafe { *self.values.get_unchecked(start + c as usize) })
    }

    /// Looks up problems `from..` of `out` (`at(i)`: the raw counts of
    /// problem i) until one has no value here: returns its index, or
    /// `out.len()`. No call in the loop, so everything stays in registers.
    #[inline(always)]
    pub fn lookups(&self, out: &mut [f64], from: usize, at: impl Fn(usize) -> (u64, u64)) -> usize {
        for (i, o) in out.iter_mut().enumerate().skip(from) {
            let (n, c) = at(i);
            match self.lookup(n, c) {
                Some(v) => *o = v,
                None => return i,
            }
        }
        out.len()
    }

    /// Whether [`DenseRows::small_blocks`] serves these rows.
    pub fn small(&self) -> bool {
        self.small.is_some()
    }

    /// The blocks of eight problems of `n`, `c` (raw counts, as
    /// [`lookup`](DenseRows::lookup)) when the rows are [`small`](DenseRows::small):
    /// writes every problem of each block to `out` and calls `rest(i)` for
    /// every problem i the row does not serve, in order, before the next
    /// block — its error stops the loop. Returns how many problems it
    /// filled (whole blocks); 0 when the rows are not small.
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512 F.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    pub unsafe fn small_blocks<E>(
        &self,
        block: impl Fn(usize) -> ([u64; 8], [u64; 8]),
        out: &mut [f64],
        mut rest: impl FnMut(usize, &mut [f64]) -> Result<(), E>,
    ) -> Result<usize, E> {
        use std::arch::x86_64::*;
        let Some(n0) = self.small else { return Ok(0) };
        let mut row = [f64::NAN; 32];
        row[..=n0 as usize].copy_from_slice(&self.values[..=n0 as usize]);
        // SAFETY: `row` holds 32 values; the caller's promise.
        let (low, high) = unsafe {
            (
                [
                    _mm512_loadu_pd(row.as_ptr()),
                    _mm512_loadu_pd(row.as_ptr().add(8)),
                ],
                [
                    _mm512_loadu_pd(row.as_ptr().add(16)),
                    _mm512_loadu_pd(row.as_ptr().add(24)),
                ],
            )
        };
        let (n0v, sixteen) = (_mm512_set1_epi64(n0 as i64), _mm512_set1_epi64(16));
        let mut j = 0;
        while j + 8 <= out.len() {
            let (n, c) = block(j);
            // SAFETY: both arrays hold eight u64, `out[j..j + 8]` eight f64.
            unsafe {
                let (nv, cv) = (
                    _mm512_loadu_si512(n.as_ptr().cast()),
                    _mm512_loadu_si512(c.as_ptr().cast()),
                );
                let served = _mm512_cmpeq_epi64_mask(nv, n0v) & _mm512_cmple_epu64_mask(cv, n0v);
                // The low five bits of c pick among the 32 values: bit 4
                // the half, the permutations the rest.
                let below = _mm512_permutex2var_pd(low[0], cv, low[1]);
                let above = _mm512_permutex2var_pd(high[0], cv, high[1]);
                let upper = _mm512_test_epi64_mask(cv, sixteen);
                _mm512_storeu_pd(
                    out.as_mut_ptr().add(j),
                    _mm512_mask_blend_pd(upper, below, above),
                );
                let mut left = !served;
                while left != 0 {
                    rest(j + left.trailing_zeros() as usize, out)?;
                    left &= left - 1;
                }
            }
            j += 8;
        }
        Ok(j)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::xorshift;

    /// A value no two (n, c) share: which row and column it came from.
    fn tag(n: u64, c: u64) -> f64 {
        (n * 1000 + c) as f64
    }

    /// Every (n, c) — present n, absent n, n past the rows, c ≤ n, c > n,
    /// wrapped negative counts — looks up its own value or nothing.
    #[test]
    fn lookups_find_their_row_or_nothing() {
        for distinct in [vec![16], vec![8, 16, 64, 100, 1000], vec![0], vec![3, 3, 5]] {
            let rows = DenseRows::new(&distinct, tag);
            let max = *distinct.iter().max().unwrap();
            let neg = |v: i64| v as u64;
            for n in (0..=max + 3).chain([neg(-1), neg(-5), u64::MAX, 1 << 40]) {
                for c in (0..=n.min(max + 3) + 2).chain([neg(-1), neg(-7)]) {
                    let want = (distinct.contains(&n) && c <= n).then(|| tag(n, c));
                    assert_eq!(rows.lookup(n, c), want, "{n} {c} {distinct:?}");
                }
            }
        }
    }

    /// The register path serves exactly what [`DenseRows::lookup`] serves,
    /// with its values, and hands every other problem to `rest` in order.
    #[test]
    fn small_blocks_equal_lookups() {
        #[cfg(target_arch = "x86_64")]
        {
            if !std::arch::is_x86_feature_detected!("avx512f") {
                eprintln!("no AVX-512 F here: nothing to compare");
                return;
            }
            let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
            for n0 in [0, 1, 7, 15, 16, 17, 31] {
                let rows = DenseRows::new(&[n0], tag);
                assert!(rows.small());
                let len = 8 * 300 + 5;
                let n: Vec<u64> = (0..len)
                    .map(|_| match next(12) {
                        0 => next(40),
                        1 => (-1 - next(3) as i64) as u64,
                        _ => n0,
                    })
                    .collect();
                let c: Vec<u64> = (0..len)
                    .map(|_| match next(12) {
                        0 => n0 + 1 + next(40),
                        1 => (-1 - next(3) as i64) as u64,
                        2 => next(64),
                        _ => next(n0 + 1),
                    })
                    .collect();
                let mut out = vec![f64::NAN; len];
                let mut left = Vec::new();
                let block = |j: usize| {
                    let n: [u64; 8] = n[j..j + 8].try_into().unwrap();
                    let c: [u64; 8] = c[j..j + 8].try_into().unwrap();
                    (n, c)
                };
                // SAFETY: AVX-512 F checked above.
                let filled = unsafe {
                    rows.small_blocks(block, &mut out, |i, _| {
                        left.push(i);
                        Ok::<(), ()>(())
                    })
                };
                assert_eq!(filled, Ok(len - 5));
                let want: Vec<usize> = (0..len - 5)
                    .filter(|&i| rows.lookup(n[i], c[i]).is_none())
                    .collect();
                assert_eq!(left, want);
                for i in 0..len - 5 {
                    if let Some(v) = rows.lookup(n[i], c[i]) {
                        assert_eq!(out[i].to_bits(), v.to_bits(), "{} {}", n[i], c[i]);
                    }
                }
                // An error stops at its problem.
                let stop = unsafe { rows.small_blocks(block, &mut out, |i, _| Err(i)) };
                assert_eq!(stop, Err(want[0]));
            }
            assert!(!DenseRows::new(&[32], tag).small());
            assert!(!DenseRows::new(&[3, 4], tag).small());
        }
    }
}
