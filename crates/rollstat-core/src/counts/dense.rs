//! Every value of each of a few distinct n, looked up: [`counts`]' path
//! when a sample of the problems shows few distinct n (a benchmark at
//! n = 16, a mix of a few n).
//!
//! A lookup is one load of the n's entry (where its row starts and n + 1,
//! packed in one word) and one load of the value, a single comparison
//! telling a served problem from one left to the caller (n without a row,
//! c > n, a negative count wrapped past every n). The value is the row's,
//! so bit for bit what the caller computed the row with.
//!
//! (An AVX-512 form that held one row of n ≤ 31 in four registers was
//! deleted: measured on the 2-core AVX-512 machine, 10⁶ problems at
//! n = 16, one thread, it took 1.30 ms against these lookups' 0.77 ms.)
//!
//! [`counts`]: super

/// The rows of a few distinct n.
pub(crate) struct DenseRows {
    /// By n, up to the largest n with a row and one more: the start of the
    /// row of n in `values` (low 32 bits) and n + 1 (high 32 bits); 0 where
    /// n has no row, and in the last entry, which every larger n reads (no
    /// c is below 0).
    entries: Vec<u64>,
    /// The rows, each n + 1 values.
    values: Vec<f64>,
}

impl DenseRows {
    /// The rows of the `distinct` n (each below 2³¹, and together fewer
    /// than 2³² values), the values of row n `row(n, c)` for c = 0..=n.
    pub(crate) fn new(distinct: &[u64], mut row: impl FnMut(u64, u64) -> f64) -> DenseRows {
        let max = distinct.iter().copied().max().unwrap_or(0);
        let mut rows = DenseRows {
            entries: vec![0; max as usize + 2],
            values: Vec::new(),
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
        rows
    }

    /// The value of `(n, c)` from raw counts (a negative count wrapped to
    /// ≥ 2⁶³) when n has a row and c ≤ n.
    #[inline(always)]
    pub(crate) fn lookup(&self, n: u64, c: u64) -> Option<f64> {
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
    pub(crate) fn lookups(
        &self,
        out: &mut [f64],
        from: usize,
        at: impl Fn(usize) -> (u64, u64),
    ) -> usize {
        for (i, o) in out.iter_mut().enumerate().skip(from) {
            let (n, c) = at(i);
            match self.lookup(n, c) {
                Some(v) => *o = v,
                None => return i,
            }
        }
        out.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
