//! The count-based estimators over many problems at once.
//!
//! pass@k, pass^k, G-Pass@k_τ and mG-Pass@k depend on a problem only through
//! its `(n, c)`, and real data has few distinct pairs: a million problems at
//! n = 16 have 17. Two ways to use that:
//!
//! - [`EstimatorTable`] — one estimator's values memoized per `(n, c)`; it
//!   fills a per-problem column (`NaN` where undefined) by lookup. Every value
//!   is the scalar function's own result (bit for bit), each distinct `(n, c)`
//!   is computed at most once, and the table is shared between threads, so a
//!   caller can fill disjoint chunks of the column in parallel with any
//!   thread count and get the same bits: every entry is a per-index gather.
//! - [`CountsHistogram`] — how many problems have each `(n, c)`; the mean and
//!   standard error of any estimator come from the distinct pairs alone, with
//!   no per-problem pass, when only the aggregate is needed.
//!
//! # Design
//!
//! The table has one dense row of `n + 1` entries for each `n ≤ 4096` that
//! occurs, made when a problem first needs it. Up to n = 67 a row is
//! computed whole (68 Pascal-triangle ratios at most, nanoseconds each), and
//! a lookup is one bounds check and one load. Above, entries are computed
//! lazily — a row for one problem at n = 4000 costs one estimator
//! evaluation, not 4001 — and are atomics written with the final value, so
//! two threads racing on an entry store the same bits and the result does
//! not depend on timing. Larger n goes to a per-`(n, c)` map: a problem with
//! n = 10⁶ never allocates a 10⁶-entry row.
//!
//! ```
//! use rollstat_core::batch::{CountsEstimator, EstimatorTable};
//! use rayon::prelude::*;
//!
//! let counts: Vec<(u64, u64)> = (0..10_000).map(|i| (16, i % 17)).collect();
//! let table = EstimatorTable::new(CountsEstimator::PassAtK(4));
//! // Sequential…
//! let (column, undefined) = table.column(&counts);
//! assert_eq!(undefined.total(), 0);
//! // …or in parallel over chunks, sharing the table: the same bits.
//! let mut par = vec![0.0; counts.len()];
//! par.par_chunks_mut(1024)
//!     .zip(counts.par_chunks(1024))
//!     .for_each(|(out, chunk)| { table.fill(chunk, out); });
//! assert!(column.iter().zip(&par).all(|(a, b)| a.to_bits() == b.to_bits()));
//! ```

use crate::aggregate::PointSummary;
use crate::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};
use crate::numeric::Dd;
use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::{Mutex, OnceLock};

/// Largest n that gets a dense row (in [`EstimatorTable`] and
/// [`CountsHistogram`]); above it values are kept per `(n, c)` in a map.
pub(crate) const DENSE_MAX_N: u64 = 4096;

/// Largest n whose row is computed whole when first needed: up to here
/// every value is a ratio of Pascal-triangle integers (nanoseconds each), so
/// a whole row costs at most 68 cheap evaluations and lookups need no
/// "computed yet?" check.
const FULL_ROW_MAX_N: u64 = crate::estimators::SMALL_N;

/// Entry not computed yet: a NaN whose payload the estimators never produce
/// (they return `None`, stored as `f64::NAN`, or a finite value).
const PENDING: u64 = 0x7ff8_0000_0000_0001;

/// The values of one n, indexed by c (`NaN` where undefined).
enum Row {
    /// n ≤ `FULL_ROW_MAX_N`: every entry computed when the row was made.
    Full(Box<[f64]>),
    /// Larger n: f64 bits, each `PENDING` until a lookup needs it.
    Lazy(Box<[AtomicU64]>),
}

/// One count-based estimator at a fixed k (and τ).
///
/// ```
/// use rollstat_core::batch::CountsEstimator;
/// let e = CountsEstimator::GPassAtK { k: 5, tau: 0.5 };
/// assert_eq!(e.k(), 5);
/// assert_eq!(e.value(8, 4), Some(0.5));
/// assert_eq!(e.value(4, 4), None); // k > n
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum CountsEstimator {
    /// [`pass_at_k`]
    PassAtK(u64),
    /// [`pass_pow_k`]
    PassPowK(u64),
    /// [`g_pass_at_k`]
    GPassAtK { k: u64, tau: f64 },
    /// [`mg_pass_at_k`]
    MgPassAtK(u64),
}

impl CountsEstimator {
    /// The draw size k.
    pub fn k(self) -> u64 {
        match self {
            CountsEstimator::PassAtK(k)
            | CountsEstimator::PassPowK(k)
            | CountsEstimator::GPassAtK { k, .. }
            | CountsEstimator::MgPassAtK(k) => k,
        }
    }

    /// The value for one problem: exactly the scalar function's result
    /// (`None` when k > n, k = 0, c > n or τ ∉ [0, 1]).
    pub fn value(self, n: u64, c: u64) -> Option<f64> {
        match self {
            CountsEstimator::PassAtK(k) => pass_at_k(n, c, k),
            CountsEstimator::PassPowK(k) => pass_pow_k(n, c, k),
            CountsEstimator::GPassAtK { k, tau } => g_pass_at_k(n, c, k, tau),
            CountsEstimator::MgPassAtK(k) => mg_pass_at_k(n, c, k),
        }
    }

    /// Whether the estimator is defined for some `(n, c)`: k ≥ 1 and τ in
    /// [0, 1]. If so, it is defined exactly where k ≤ n and c ≤ n.
    fn valid(self) -> bool {
        match self {
            CountsEstimator::GPassAtK { k, tau } => k >= 1 && (0.0..=1.0).contains(&tau),
            _ => self.k() >= 1,
        }
    }

    /// Whether every defined value is exactly `+0.0`. Only mG-Pass@1:
    /// `(2/k) Σ_{i=⌈k/2⌉+1..k}` is the empty sum for k = 1 (i from 2 to 1),
    /// and `mg_pass_at_k` returns `+0.0` there for every valid `(n, c)` (both
    /// of its paths sum no term). Nothing else is identically constant.
    fn zero_where_defined(self) -> bool {
        self == CountsEstimator::MgPassAtK(1)
    }

    /// Why `value(n, c)` is `None`.
    fn undefined(self, n: u64, into: &mut Undefined) {
        if n < self.k() {
            into.too_few_rollouts += 1;
        } else {
            into.invalid += 1;
        }
    }
}

/// How many problems had no value, by reason.
///
/// ```
/// use rollstat_core::batch::{CountsEstimator, EstimatorTable};
/// let table = EstimatorTable::new(CountsEstimator::PassPowK(4));
/// let (values, undefined) = table.column(&[(8, 6), (2, 1), (3, 5)]);
/// assert_eq!(values[0], 15.0 / 70.0); // C(6, 4) / C(8, 4)
/// assert!(values[1].is_nan() && values[2].is_nan());
/// assert_eq!((undefined.too_few_rollouts, undefined.invalid), (2, 0)); // n = 2, 3 < k
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Undefined {
    /// Problems with n < k (excluded, never scored 0 or 1).
    pub too_few_rollouts: u64,
    /// Problems with n ≥ k and still no value: c > n, k = 0, or τ outside
    /// [0, 1].
    pub invalid: u64,
}

impl Undefined {
    /// All problems without a value.
    pub fn total(&self) -> u64 {
        self.too_few_rollouts + self.invalid
    }
}

impl std::ops::Add for Undefined {
    type Output = Undefined;
    fn add(self, o: Undefined) -> Undefined {
        Undefined {
            too_few_rollouts: self.too_few_rollouts + o.too_few_rollouts,
            invalid: self.invalid + o.invalid,
        }
    }
}

impl std::iter::Sum for Undefined {
    fn sum<I: Iterator<Item = Undefined>>(iter: I) -> Undefined {
        iter.fold(Undefined::default(), |a, b| a + b)
    }
}

/// One estimator's values, memoized per `(n, c)`, for filling per-problem
/// columns by lookup. `Sync`: share one table between threads filling
/// disjoint chunks (see the [module docs](self)).
///
/// Values are bit-identical to [`CountsEstimator::value`]; undefined ones
/// are `NaN` in columns and counted in [`Undefined`].
///
/// Cost: a column of N problems with D distinct `(n, c)` takes D estimator
/// evaluations plus N lookups (a few nanoseconds each, memory-bound).
///
/// ```
/// use rollstat_core::batch::{CountsEstimator, EstimatorTable};
/// use rollstat_core::estimators::mg_pass_at_k;
/// let table = EstimatorTable::new(CountsEstimator::MgPassAtK(4));
/// assert_eq!(table.get(16, 8), mg_pass_at_k(16, 8, 4));
/// assert_eq!(table.get(1_000_000, 3), mg_pass_at_k(1_000_000, 3, 4)); // no 10⁶-entry row
/// assert_eq!(table.get(3, 1), None);
/// ```
pub struct EstimatorTable {
    est: CountsEstimator,
    /// `rows[n]` for `k ≤ n ≤ DENSE_MAX_N`, made when first needed.
    rows: Box<[OnceLock<Row>]>,
    /// Values for n > `DENSE_MAX_N`, by `(n, c)`.
    sparse: Mutex<HashMap<(u64, u64), f64>>,
}

impl EstimatorTable {
    /// An empty table; entries are computed as lookups need them.
    pub fn new(est: CountsEstimator) -> EstimatorTable {
        let dense = est.k() >= 1 && est.k() <= DENSE_MAX_N;
        let len = if dense { DENSE_MAX_N as usize + 1 } else { 0 };
        EstimatorTable {
            est,
            rows: (0..len).map(|_| OnceLock::new()).collect(),
            sparse: Mutex::new(HashMap::new()),
        }
    }

    /// The estimator this table evaluates.
    pub fn estimator(&self) -> CountsEstimator {
        self.est
    }

    /// The dense row of n, if n has one (k ≤ n ≤ 4096).
    #[inline]
    fn row(&self, n: u64) -> Option<&Row> {
        if n < self.est.k() {
            return None;
        }
        let row = self.rows.get(n as usize)?.get_or_init(|| {
            if n <= FULL_ROW_MAX_N {
                let value = |c| self.est.value(n, c).unwrap_or(f64::NAN);
                Row::Full((0..=n).map(value).collect())
            } else {
                Row::Lazy((0..=n).map(|_| AtomicU64::new(PENDING)).collect())
            }
        });
        Some(row)
    }

    /// Entry `c` of the row of n; `NaN` when undefined.
    #[inline]
    fn entry(&self, cell: &AtomicU64, n: u64, c: u64) -> f64 {
        let bits = cell.load(Relaxed);
        if bits != PENDING {
            return f64::from_bits(bits);
        }
        self.compute(cell, n, c)
    }

    #[cold]
    fn compute(&self, cell: &AtomicU64, n: u64, c: u64) -> f64 {
        let v = self.est.value(n, c).unwrap_or(f64::NAN);
        cell.store(v.to_bits(), Relaxed);
        v
    }

    /// The value of one problem without a dense row (n < k, n > 4096).
    fn get_rowless(&self, n: u64, c: u64) -> Option<f64> {
        if n <= DENSE_MAX_N {
            return self.est.value(n, c);
        }
        let memo = |m: &HashMap<(u64, u64), f64>| m.get(&(n, c)).copied();
        let known = memo(&self.sparse.lock().expect("memo lock"));
        let v = known.unwrap_or_else(|| {
            // Computed outside the lock (large n can take microseconds).
            let v = self.est.value(n, c).unwrap_or(f64::NAN);
            self.sparse.lock().expect("memo lock").insert((n, c), v);
            v
        });
        (!v.is_nan()).then_some(v)
    }

    /// The value for one problem, as [`CountsEstimator::value`] gives it.
    pub fn get(&self, n: u64, c: u64) -> Option<f64> {
        let v = match self.row(n) {
            Some(Row::Full(row)) => *row.get(c as usize)?, // None: c > n
            Some(Row::Lazy(row)) => self.entry(row.get(c as usize)?, n, c),
            None => return self.get_rowless(n, c),
        };
        (!v.is_nan()).then_some(v)
    }

    /// Writes each problem's value into `out` (`NaN` where undefined) and
    /// counts the undefined ones. `counts` holds `(n, c)` per problem;
    /// `out.len()` must equal `counts.len()`.
    ///
    /// ```
    /// use rollstat_core::batch::{CountsEstimator, EstimatorTable};
    /// let table = EstimatorTable::new(CountsEstimator::PassAtK(2));
    /// let mut out = [0.0; 3];
    /// let undefined = table.fill(&[(4, 1), (4, 0), (1, 1)], &mut out);
    /// assert_eq!(&out[..2], [0.5, 0.0]);
    /// assert!(out[2].is_nan());
    /// assert_eq!(undefined.too_few_rollouts, 1);
    /// ```
    pub fn fill(&self, counts: &[(u64, u64)], out: &mut [f64]) -> Undefined {
        self.fill_with(counts, |&nc| nc, out)
    }

    /// [`fill`](Self::fill) over any per-problem records, reading `(n, c)`
    /// from each with `counts_of`.
    ///
    /// ```
    /// use rollstat_core::batch::{CountsEstimator, EstimatorTable};
    /// struct Problem { id: &'static str, n: u64, c: u64 }
    /// let problems = [Problem { id: "a", n: 8, c: 8 }, Problem { id: "b", n: 8, c: 7 }];
    /// let table = EstimatorTable::new(CountsEstimator::PassPowK(8));
    /// let mut out = [0.0; 2];
    /// table.fill_with(&problems, |p| (p.n, p.c), &mut out);
    /// assert_eq!(out, [1.0, 0.0]);
    /// ```
    pub fn fill_with<T>(
        &self,
        items: &[T],
        counts_of: impl Fn(&T) -> (u64, u64),
        out: &mut [f64],
    ) -> Undefined {
        assert_eq!(items.len(), out.len(), "one output slot per problem");
        let mut undefined = Undefined::default();
        if !self.est.valid() {
            for (o, item) in out.iter_mut().zip(items) {
                self.est.undefined(counts_of(item).0, &mut undefined);
                *o = f64::NAN;
            }
            return undefined;
        }
        if self.est.zero_where_defined() {
            // Exact: see `zero_where_defined`. Only validity is looked at.
            for (o, item) in out.iter_mut().zip(items) {
                let (n, c) = counts_of(item);
                *o = if n >= 1 && c <= n {
                    0.0
                } else {
                    self.est.undefined(n, &mut undefined);
                    f64::NAN
                };
            }
            return undefined;
        }
        // The full row of the last such problem's n: consecutive problems
        // usually share n, so the common case is one bounds check and one
        // load; the rest (another n, a lazy row, c > n, no row) is
        // `fill_slow`, out of the loop. (The full row is kept in locals that
        // `fill_slow` does not borrow, so they can stay in registers.)
        let (mut full_n, mut full_row): (u64, &[f64]) = (u64::MAX, &[]);
        let mut slow = SlowPath {
            lazy: (u64::MAX, &[]),
            undefined: Undefined::default(),
        };
        for (o, item) in out.iter_mut().zip(items) {
            let (n, c) = counts_of(item);
            if n == full_n {
                if let Some(&v) = full_row.get(c as usize) {
                    *o = v; // defined: k ≤ n, c ≤ n, and the estimator is valid
                    continue;
                }
            }
            let (v, full) = self.fill_slow(n, c, &mut slow);
            *o = v;
            if let Some(row) = full {
                (full_n, full_row) = (n, row);
            }
        }
        slow.undefined
    }

    /// One problem of [`fill_with`](Self::fill_with) off its fast path, and
    /// the full row of n if n has one.
    #[inline(never)]
    fn fill_slow<'a>(
        &'a self,
        n: u64,
        c: u64,
        slow: &mut SlowPath<'a>,
    ) -> (f64, Option<&'a [f64]>) {
        if n == slow.lazy.0 {
            if let Some(cell) = slow.lazy.1.get(c as usize) {
                return (self.entry(cell, n, c), None);
            }
        }
        let (v, full) = match self.row(n) {
            Some(Row::Full(row)) => (row.get(c as usize).copied(), Some(&row[..])),
            Some(Row::Lazy(row)) => {
                slow.lazy = (n, row);
                (row.get(c as usize).map(|cell| self.entry(cell, n, c)), None)
            }
            None => (self.get_rowless(n, c), None),
        };
        let v = v.unwrap_or_else(|| {
            self.est.undefined(n, &mut slow.undefined);
            f64::NAN
        });
        (v, full)
    }

    /// The column of `counts` (sequential; see the [module docs](self) for
    /// filling chunks in parallel).
    pub fn column(&self, counts: &[(u64, u64)]) -> (Vec<f64>, Undefined) {
        let mut values = vec![0.0; counts.len()];
        let undefined = self.fill(counts, &mut values);
        (values, undefined)
    }
}

/// What [`EstimatorTable::fill_with`] carries between problems off its
/// fast path.
struct SlowPath<'a> {
    /// The lazy row of the last such problem's n.
    lazy: (u64, &'a [AtomicU64]),
    undefined: Undefined,
}

/// How many problems have each `(n, c)`: enough for the mean and standard
/// error of every count-based estimator without a per-problem pass.
///
/// Build it once (by [`add`](Self::add), [`FromIterator`], or per chunk and
/// [`merge`](Self::merge)), then ask for any number of estimators; each
/// costs one evaluation per distinct `(n, c)`.
///
/// ```
/// use rollstat_core::batch::{CountsEstimator, CountsHistogram};
/// let h: CountsHistogram = [(4, 1), (4, 1), (4, 3), (2, 2)].into_iter().collect();
/// assert_eq!(h.problems(), 4);
/// let (s, undefined) = h.summary(CountsEstimator::PassAtK(4));
/// let s = s.unwrap();
/// assert_eq!((s.mean, s.n_problems), (1.0, 3));
/// assert_eq!(undefined.too_few_rollouts, 1); // (2, 2): n < k
/// ```
#[derive(Clone, Debug, Default)]
pub struct CountsHistogram {
    /// `dense[n][c]` for n ≤ 4096 and c ≤ n (rows sized on first use).
    dense: Vec<Vec<u64>>,
    /// Everything else (n > 4096, or c > n), ordered.
    sparse: BTreeMap<(u64, u64), u64>,
    problems: u64,
}

impl CountsHistogram {
    /// An empty histogram.
    pub fn new() -> CountsHistogram {
        CountsHistogram::default()
    }

    /// Counts one problem with n rollouts of which c are correct.
    pub fn add(&mut self, n: u64, c: u64) {
        self.add_count(n, c, 1);
    }

    fn add_count(&mut self, n: u64, c: u64, count: u64) {
        self.problems += count;
        if n > DENSE_MAX_N || c > n {
            *self.sparse.entry((n, c)).or_insert(0) += count;
            return;
        }
        let n = n as usize;
        if self.dense.len() <= n {
            self.dense.resize_with(n + 1, Vec::new);
        }
        let row = &mut self.dense[n];
        if row.is_empty() {
            row.resize(n + 1, 0);
        }
        row[c as usize] += count;
    }

    /// Adds the counts of `other` (for histograms built per chunk).
    pub fn merge(&mut self, other: &CountsHistogram) {
        for ((n, c), count) in other.pairs() {
            self.add_count(n, c, count);
        }
    }

    /// Problems counted.
    pub fn problems(&self) -> u64 {
        self.problems
    }

    /// Each distinct `(n, c)` with its problem count, by n then c.
    pub fn pairs(&self) -> impl Iterator<Item = ((u64, u64), u64)> + '_ {
        let dense = self.dense.iter().enumerate().flat_map(|(n, row)| {
            row.iter()
                .enumerate()
                .filter(|&(_, &count)| count > 0)
                .map(move |(c, &count)| ((n as u64, c as u64), count))
        });
        dense.chain(self.sparse.iter().map(|(&nc, &count)| (nc, count)))
    }

    /// Mean and standard error of `est` over the problems where it is
    /// defined, and the undefined ones by reason.
    ///
    /// The same quantities as [`PointSummary::of`] over the estimator's
    /// column, summed per distinct `(n, c)` in double-double instead of per
    /// problem, so they agree to rounding (not necessarily bit for bit).
    pub fn summary(&self, est: CountsEstimator) -> (Option<PointSummary>, Undefined) {
        let mut undefined = Undefined::default();
        let values: Vec<(f64, u64)> = self
            .pairs()
            .filter_map(|((n, c), count)| match est.value(n, c) {
                Some(v) => Some((v, count)),
                None => {
                    let mut one = Undefined::default();
                    est.undefined(n, &mut one);
                    undefined.too_few_rollouts += one.too_few_rollouts * count;
                    undefined.invalid += one.invalid * count;
                    None
                }
            })
            .collect();
        let weighted_sum = |f: &dyn Fn(f64) -> f64| {
            values.iter().fold(Dd::ZERO, |s, &(v, count)| {
                s.add(Dd { hi: f(v), lo: 0.0 }.mul_f64(count as f64))
            })
        };
        let n: u64 = values.iter().map(|&(_, count)| count).sum();
        if n == 0 {
            return (None, undefined);
        }
        let mean = weighted_sum(&|v| v).to_f64() / n as f64;
        let stderr = (n >= 2).then(|| {
            let ss = weighted_sum(&|v| (v - mean) * (v - mean)).to_f64();
            (ss / (n - 1) as f64).sqrt() / (n as f64).sqrt()
        });
        let summary = PointSummary {
            mean,
            stderr,
            n_problems: n,
        };
        (Some(summary), undefined)
    }
}

impl FromIterator<(u64, u64)> for CountsHistogram {
    fn from_iter<I: IntoIterator<Item = (u64, u64)>>(iter: I) -> CountsHistogram {
        let mut h = CountsHistogram::new();
        for (n, c) in iter {
            h.add(n, c);
        }
        h
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mg_pass_at_1_is_zero_wherever_defined() {
        // The short-circuit in `fill_with` relies on this.
        for n in 0..=80u64 {
            for c in 0..=n + 1 {
                let v = mg_pass_at_k(n, c, 1);
                let valid = n >= 1 && c <= n;
                assert_eq!(v.map(f64::to_bits), valid.then_some(0f64.to_bits()));
            }
        }
        for n in [1_000, 1_000_000, u64::MAX] {
            assert_eq!(mg_pass_at_k(n, n / 2, 1).map(f64::to_bits), Some(0));
        }
    }

    #[test]
    fn pending_is_never_a_value() {
        assert_ne!(f64::NAN.to_bits(), PENDING);
        assert!(f64::from_bits(PENDING).is_nan());
    }
}
