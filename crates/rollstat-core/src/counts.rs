//! Count-based estimators over whole arrays of counts, fast: a column of
//! values from columns of `n` and `c` as numpy (or Arrow) keeps them.
//!
//! [`fill_counts`] writes one estimator's value for every problem of flat
//! count arrays of one integer type ([`Count`]: `i64`, `i32`, `u64`,
//! `u32`), each either of the output's length or of length 1 (one value for
//! every problem, no copy), reading them in place (no conversion pass, no
//! separate pass checking signs) and writing each output element once. It
//! stops at the first problem without a value ([`BadProblem`]: c > n or a
//! negative count), whichever thread finds it. [`fill_counts_varying`] is
//! the same with a k (and τ) per problem.
//!
//! # Accuracy
//!
//! Every value is [`crate::estimators`]' own (bit for bit, within a few ulp
//! of exact), except pass@k and pass^k at n > 67 under
//! [`Accuracy::Bounded`]: those come from [`bounded`], within
//! [`bounded::TOL`] (5·10⁻¹⁴) relative of the exact fraction — the exact
//! double-double path takes about a microsecond a value, too slow for a
//! million distinct n. Either way a problem's value is one function of
//! `(n, c, k)`: it does not depend on the other problems, the chunking, the
//! thread count or which kernel computed it.
//!
//! # How pass@k and pass^k are filled ([`Accuracy::Bounded`])
//!
//! Parallel chunks of `CHUNK` (16,384) problems; within a chunk, blocks of
//! [`LANES`] problems:
//!
//! - few distinct n (`dense::DenseRows`): every value of each n computed
//!   once, then two loads a problem;
//! - many distinct n, on a processor with AVX-512 and with this crate's
//!   `avx512` feature (Rust ≥ 1.89; the Python package turns it on): the
//!   ratio of two paired products in eight lanes, two registers at a time,
//!   with intrinsics, read straight from the arrays (`counts/wide.rs`:
//!   about 4× the portable lanes on such a processor);
//! - otherwise [`Lanes`]: the ratio of two paired products, vectorized
//!   across the block by the compiler (built for AVX2 or AVX-512 where the
//!   processor has them), bit for bit [`bounded`]'s scalar value.
//!
//! Lanes a kernel does not serve (n ≤ 67, edge cases, bad counts, n past
//! the lanes' range, a cancelling `1 − ratio`) go problem by problem
//! (`value`).
//!
//! ```
//! use rollstat_core::batch::CountsEstimator;
//! use rollstat_core::counts::{fill_counts, Accuracy, BadCount, BadProblem};
//!
//! let n: Vec<i64> = vec![16, 1000, 100_000, 3];
//! let c: Vec<i64> = vec![4, 10, 99_000, 0];
//! let mut out = vec![0.0; 4];
//! fill_counts(CountsEstimator::PassAtK(4), Accuracy::Bounded, &n, &c, &mut out).unwrap();
//! assert_eq!(out[0], 1325.0 / 1820.0); // (C(16, 4) − C(12, 4))/C(16, 4), exact
//! assert!(out[3].is_nan()); // k > n: undefined
//! // One n for every problem (length 1), and a bad count:
//! let err = fill_counts(CountsEstimator::PassPowK(2), Accuracy::Exact, &[8i32], &[3, -1, 9], &mut out[..3]);
//! assert_eq!(err, Err(BadProblem { index: 1, reason: BadCount::NegativeC }));
//! ```

pub mod bounded;
mod dense;
// AVX-512 intrinsics (stable since Rust 1.89, above the workspace's 1.85:
// hence a feature, which the Python package, at 1.89, turns on).
#[cfg(all(feature = "avx512", target_arch = "x86_64"))]
#[clippy::msrv = "1.89"]
mod wide;
/// Without the `avx512` feature: no AVX-512 kernel, so never a `Wide`.
#[cfg(not(all(feature = "avx512", target_arch = "x86_64")))]
mod wide {
    /// Uninhabited: no value exists in such a build.
    pub(super) enum Wide {}
    impl Wide {
        pub(super) fn new(_: &super::Lanes) -> Option<Wide> {
            None
        }
    }
}

use crate::batch::{CountsEstimator, EstimatorTable, DENSE_MAX_N};
use crate::estimators::SMALL_N;
use bounded::{Lanes, LANES};
use dense::DenseRows;
use rayon::prelude::*;
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use wide::Wide;

/// Problems per parallel chunk: large enough that scheduling is noise,
/// small enough that two threads share a million problems evenly.
const CHUNK: usize = 1 << 14;

/// How close pass@k and pass^k must be to exact.
///
/// ```
/// use rollstat_core::batch::CountsEstimator;
/// use rollstat_core::counts::{bounded::TOL, fill_counts, Accuracy};
/// let (n, c) = (vec![100_000u64; 3], vec![10u64, 5_000, 99_990]);
/// let est = CountsEstimator::PassAtK(16);
/// let (mut exact, mut fast) = ([0.0; 3], [0.0; 3]);
/// fill_counts(est, Accuracy::Exact, &n, &c, &mut exact).unwrap();
/// fill_counts(est, Accuracy::Bounded, &n, &c, &mut fast).unwrap();
/// assert_eq!(exact[0], rollstat_core::estimators::pass_at_k(100_000, 10, 16).unwrap());
/// assert!((0..3).all(|i| (fast[i] - exact[i]).abs() <= TOL * exact[i]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Accuracy {
    /// [`crate::estimators`]' values bit for bit (double-double above
    /// n = 67: about a microsecond a distinct `(n, c)`).
    Exact,
    /// pass@k and pass^k at n > 67 within [`bounded::TOL`] relative of
    /// exact ([`bounded`]: nanoseconds a problem); every other value as
    /// [`Accuracy::Exact`].
    Bounded,
}

/// An element type of a count array, read as a count (`None`: negative).
///
/// ```
/// use rollstat_core::counts::Count;
/// assert_eq!((-3i64).count(), None);
/// assert_eq!(7u32.count(), Some(7));
/// assert!((-1i32).wrap() >= 1 << 63); // past every n
/// ```
pub trait Count: Copy + Send + Sync {
    /// The count, or `None` for a negative value.
    fn count(self) -> Option<u64>;
    /// The value as u64, wrapping: a negative value becomes ≥ 2⁶³, which
    /// [`Lanes`] and the rows reject, so its problem goes the slow way and
    /// is reported there.
    fn wrap(self) -> u64;
}

impl Count for i64 {
    #[inline(always)]
    fn count(self) -> Option<u64> {
        u64::try_from(self).ok()
    }
    #[inline(always)]
    fn wrap(self) -> u64 {
        self as u64
    }
}

impl Count for i32 {
    #[inline(always)]
    fn count(self) -> Option<u64> {
        u64::try_from(self).ok()
    }
    #[inline(always)]
    fn wrap(self) -> u64 {
        i64::from(self) as u64
    }
}

impl Count for u64 {
    #[inline(always)]
    fn count(self) -> Option<u64> {
        Some(self)
    }
    #[inline(always)]
    fn wrap(self) -> u64 {
        self
    }
}

impl Count for u32 {
    #[inline(always)]
    fn count(self) -> Option<u64> {
        Some(u64::from(self))
    }
    #[inline(always)]
    fn wrap(self) -> u64 {
        u64::from(self)
    }
}

/// Why a problem has no value at all (undefined ones, k > n, are `NaN`).
/// The discriminants are stable codes (the Python binding passes them on).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum BadCount {
    /// c > n.
    CExceedsN = 0,
    /// n < 0.
    NegativeN = 1,
    /// c < 0.
    NegativeC = 2,
}

/// The first problem without a value, and why ([`fill_counts`]).
///
/// ```
/// use rollstat_core::batch::CountsEstimator;
/// use rollstat_core::counts::{fill_counts, Accuracy, BadCount, BadProblem};
/// let mut out = [0.0; 3];
/// let bad = fill_counts(CountsEstimator::PassAtK(1), Accuracy::Bounded, &[4u64, 4, 4], &[1u64, 5, 9], &mut out);
/// assert_eq!(bad, Err(BadProblem { index: 1, reason: BadCount::CExceedsN }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BadProblem {
    /// Its index in the output.
    pub index: usize,
    pub reason: BadCount,
}

/// Whether arrays of lengths `lens` broadcast to `out` problems: each of
/// length 1 or `out`.
fn broadcast_len(lens: &[usize], out: usize) -> bool {
    lens.iter().all(|&l| l == out || (l == 1 && out > 0)) || out == 0
}

/// `est` for every problem of the flat count arrays `n` and `c` (each of
/// `out`'s length or of length 1), written to `out` (`NaN` where
/// undefined: k > n); the first problem with c > n or a negative count is
/// an error (`out` is then partly written). In parallel (rayon) chunks; the
/// values do not depend on the thread count.
///
/// pass@k and pass^k under [`Accuracy::Bounded`] take the fast path of the
/// [module docs](self); every other estimator is filled from one shared
/// [`EstimatorTable`] (each distinct `(n, c)` computed once).
///
/// # Panics
///
/// When a count array is neither of length 1 nor of `out`'s length.
///
/// ```
/// use rollstat_core::batch::CountsEstimator;
/// use rollstat_core::counts::{fill_counts, Accuracy};
/// use rollstat_core::estimators::g_pass_at_k;
/// let n = vec![40u32; 1000];
/// let c: Vec<u32> = (0..1000).map(|i| i % 41).collect();
/// let mut out = vec![0.0; 1000];
/// let est = CountsEstimator::GPassAtK { k: 8, tau: 0.5 };
/// fill_counts(est, Accuracy::Bounded, &n, &c, &mut out).unwrap();
/// assert_eq!(out[17], g_pass_at_k(40, 17, 8, 0.5).unwrap());
/// ```
pub fn fill_counts<T: Count>(
    est: CountsEstimator,
    accuracy: Accuracy,
    n: &[T],
    c: &[T],
    out: &mut [f64],
) -> Result<(), BadProblem> {
    assert!(
        broadcast_len(&[n.len(), c.len()], out.len()),
        "count arrays of lengths {} and {} for {} problems",
        n.len(),
        c.len(),
        out.len()
    );
    if out.is_empty() {
        return Ok(());
    }
    let kind = match est {
        CountsEstimator::PassAtK(k) if k >= 1 => Some((Kind::PassAtK, k)),
        CountsEstimator::PassPowK(k) if k >= 1 => Some((Kind::PassPowK, k)),
        _ => None,
    };
    let bad = match (kind, accuracy) {
        (Some((kind, k)), Accuracy::Bounded) => fill_bounded(kind, k, n, c, out),
        _ => fill_table(est, n, c, out),
    };
    bad.map_or(Ok(()), |(index, reason)| Err(BadProblem { index, reason }))
}

/// pass@k or pass^k: the estimators [`bounded`] computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    PassAtK,
    PassPowK,
}

/// An estimator without its k (and τ): [`fill_counts_varying`] takes those
/// per problem.
///
/// ```
/// use rollstat_core::batch::CountsEstimator;
/// use rollstat_core::counts::Family;
/// assert_eq!(Family::GPassAtK.at(4, 0.5), CountsEstimator::GPassAtK { k: 4, tau: 0.5 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    PassAtK,
    PassPowK,
    GPassAtK,
    MgPassAtK,
}

impl Family {
    /// The estimator at `k` (and `tau`, which only G-Pass@k reads).
    pub fn at(self, k: u64, tau: f64) -> CountsEstimator {
        match self {
            Family::PassAtK => CountsEstimator::PassAtK(k),
            Family::PassPowK => CountsEstimator::PassPowK(k),
            Family::GPassAtK => CountsEstimator::GPassAtK { k, tau },
            Family::MgPassAtK => CountsEstimator::MgPassAtK(k),
        }
    }
}

/// One argument of [`fill_counts_varying`]: one value per problem, or one
/// for all.
#[derive(Clone, Copy)]
struct Arg<'a, T>(&'a [T]);

impl<T: Copy> Arg<'_, T> {
    #[inline]
    fn at(&self, i: usize) -> T {
        if self.0.len() == 1 {
            self.0[0]
        } else {
            self.0[i]
        }
    }
}

/// Most distinct `(k, τ)` that get an [`EstimatorTable`] each in
/// [`fill_counts_varying`]; with more, each value is computed directly.
const MAX_TABLES: usize = 64;

/// [`fill_counts`] with a k and a τ per problem: `family` at `(k[i],
/// tau[i])` for problem i. Every array is of `out`'s length or of length 1;
/// τ is read by G-Pass@k only. A table per distinct `(k, τ)` while there
/// are at most 64, else each value computed directly; the values are the
/// same either way (and [`fill_counts`]' at that k and τ).
///
/// # Panics
///
/// When an array is neither of length 1 nor of `out`'s length.
///
/// ```
/// use rollstat_core::counts::{fill_counts_varying, Accuracy, Family};
/// let mut out = [0.0; 3];
/// fill_counts_varying(Family::PassAtK, Accuracy::Bounded, &[10], &[5], &[1, 2, 11], &[0.0], &mut out).unwrap();
/// assert_eq!(out[0], 0.5);
/// assert_eq!(out[1], 35.0 / 45.0); // (C(10, 2) − C(5, 2))/C(10, 2)
/// assert!(out[2].is_nan()); // k > n
/// ```
pub fn fill_counts_varying(
    family: Family,
    accuracy: Accuracy,
    n: &[u64],
    c: &[u64],
    k: &[u64],
    tau: &[f64],
    out: &mut [f64],
) -> Result<(), BadProblem> {
    let lens = [n.len(), c.len(), k.len(), tau.len()];
    assert!(
        broadcast_len(&lens, out.len()),
        "arrays of lengths {lens:?} for {} problems",
        out.len()
    );
    if out.is_empty() {
        return Ok(());
    }
    let (n, c, k, tau) = (Arg(n), Arg(c), Arg(k), Arg(tau));
    let bounded = accuracy == Accuracy::Bounded;
    let mut keys: HashMap<(u64, u64), usize> = HashMap::new();
    let mut tables: Vec<EstimatorTable> = Vec::new();
    for i in 0..out.len() {
        let key = (k.at(i), tau.at(i).to_bits());
        if let Entry::Vacant(slot) = keys.entry(key) {
            if tables.len() == MAX_TABLES {
                tables.clear();
                break;
            }
            slot.insert(tables.len());
            tables.push(EstimatorTable::new(family.at(key.0, tau.at(i))));
        }
    }
    let first_bad = out
        .par_chunks_mut(CHUNK)
        .enumerate()
        .filter_map(|(ci, chunk)| {
            let start = ci * CHUNK;
            let mut last: Option<((u64, u64), &EstimatorTable)> = None;
            let mut memo = LocalMemo::default();
            for (j, o) in chunk.iter_mut().enumerate() {
                let i = start + j;
                let (ni, cj, kj, tj) = (n.at(i), c.at(i), k.at(i), tau.at(i));
                if cj > ni {
                    return Some(i);
                }
                let est = family.at(kj, tj);
                if bounded && ni > SMALL_N {
                    if let Some(v) = bounded_value(est, ni, cj) {
                        *o = v;
                        continue;
                    }
                }
                if ni > DENSE_MAX_N {
                    *o = memo.get(est, ni, cj);
                    continue;
                }
                if tables.is_empty() {
                    *o = est.value(ni, cj).unwrap_or(f64::NAN);
                    continue;
                }
                let key = (kj, tj.to_bits());
                let table = match last {
                    Some((lk, t)) if lk == key => t,
                    _ => {
                        let t = &tables[keys[&key]];
                        last = Some((key, t));
                        t
                    }
                };
                *o = table.get(ni, cj).unwrap_or(f64::NAN);
            }
            None
        })
        .min();
    first_bad.map_or(Ok(()), |index| {
        Err(BadProblem {
            index,
            reason: BadCount::CExceedsN,
        })
    })
}

/// pass@k or pass^k from [`bounded`]; `None` for the other estimators and
/// where its bound does not hold.
#[inline]
fn bounded_value(est: CountsEstimator, n: u64, c: u64) -> Option<f64> {
    match est {
        CountsEstimator::PassAtK(k) => bounded::pass_at_k(n, c, k),
        CountsEstimator::PassPowK(k) => bounded::pass_pow_k(n, c, k),
        _ => None,
    }
}

/// Values of problems with n > 4096 (no dense row in an
/// [`EstimatorTable`]) within one chunk, by `(n, c, k, τ bits)`: the
/// table's shared map takes a lock per value.
#[derive(Default)]
struct LocalMemo(HashMap<(u64, u64, u64, u64), f64>);

impl LocalMemo {
    fn get(&mut self, est: CountsEstimator, n: u64, c: u64) -> f64 {
        let tau = match est {
            CountsEstimator::GPassAtK { tau, .. } => tau,
            _ => 0.0,
        };
        *self
            .0
            .entry((n, c, est.k(), tau.to_bits()))
            .or_insert_with(|| est.value(n, c).unwrap_or(f64::NAN))
    }
}

/// The first problem of `from..to` with a negative count or c > n, in the
/// order [`fill_counts`] checks: n, then c, then c > n.
fn first_bad<T: Count>(n: Arg<T>, c: Arg<T>, from: usize, to: usize) -> Option<(usize, BadCount)> {
    (from..to).find_map(|i| {
        let reason = match (n.at(i).count(), c.at(i).count()) {
            (None, _) => BadCount::NegativeN,
            (_, None) => BadCount::NegativeC,
            (Some(n), Some(c)) if c > n => BadCount::CExceedsN,
            _ => return None,
        };
        Some((i, reason))
    })
}

/// Any estimator from one shared [`EstimatorTable`], in parallel chunks:
/// each chunk's counts checked, gathered as `(n, c)` pairs (n > 4096 as a
/// placeholder, then from a memo local to the chunk) and filled by lookup.
fn fill_table<T: Count>(
    est: CountsEstimator,
    n: &[T],
    c: &[T],
    out: &mut [f64],
) -> Option<(usize, BadCount)> {
    let table = EstimatorTable::new(est);
    let (n, c) = (Arg(n), Arg(c));
    first_of_chunks(out, |start, chunk| {
        let end = start + chunk.len();
        if let Some(bad) = first_bad(n, c, start, end) {
            return Some(bad);
        }
        let count = |a: Arg<T>, i: usize| a.at(i).count().expect("checked above");
        let mut large = false;
        let pairs: Vec<(u64, u64)> = (start..end)
            .map(|i| {
                let ni = count(n, i);
                large |= ni > DENSE_MAX_N;
                if ni > DENSE_MAX_N {
                    (0, 0)
                } else {
                    (ni, count(c, i))
                }
            })
            .collect();
        table.fill(&pairs, chunk);
        if large {
            let mut memo = LocalMemo::default();
            for (j, o) in chunk.iter_mut().enumerate() {
                let ni = count(n, start + j);
                if ni > DENSE_MAX_N {
                    *o = memo.get(est, ni, count(c, start + j));
                }
            }
        }
        None
    })
}

/// One count argument of a chunk, problem by problem or a block of
/// [`LANES`] at a time: an array ([`Slice`]) or one value for all
/// ([`One`]).
trait Column<T: Count>: Copy {
    /// The count of problem `j`.
    fn at(self, j: usize) -> T;
    /// The counts of problems `j..j + L`, wrapped ([`Count::wrap`]).
    fn block<const L: usize>(self, j: usize) -> [u64; L];
}

/// A chunk's slice of a count array.
#[derive(Clone, Copy)]
struct Slice<'a, T>(&'a [T]);

/// One count for every problem.
#[derive(Clone, Copy)]
struct One<T>(T);

impl<T: Count> Column<T> for Slice<'_, T> {
    #[inline(always)]
    fn at(self, j: usize) -> T {
        self.0[j]
    }
    /// One bounds check a block, then a fixed-size copy the compiler
    /// turns into vector moves (a lane at a time, the kernels' vector
    /// loads would wait on 16 scalar stores).
    #[inline(always)]
    fn block<const L: usize>(self, j: usize) -> [u64; L] {
        let block: &[T; L] = self.0[j..j + L].try_into().expect("a block is L long");
        block.map(Count::wrap)
    }
}

impl<T: Count> Column<T> for One<T> {
    #[inline(always)]
    fn at(self, _: usize) -> T {
        self.0
    }
    #[inline(always)]
    fn block<const L: usize>(self, _: usize) -> [u64; L] {
        [self.0.wrap(); L]
    }
}

/// pass@k problems whose `1 − ratio` may cancel (`wide::cancelling`),
/// collected until there are eight: `(index, n, c)`.
#[cfg(all(feature = "avx512", target_arch = "x86_64"))]
#[derive(Default)]
struct Cancelling {
    problems: [(usize, u64, u64); 8],
    len: usize,
}

#[cfg(all(feature = "avx512", target_arch = "x86_64"))]
impl Cancelling {
    /// Computes the problems collected (the free lanes compute the first
    /// one again) and writes their values to `out`.
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512 F and DQ.
    #[inline(always)]
    unsafe fn flush(&mut self, wide: &Wide, out: &mut [f64]) {
        if self.len == 0 {
            return;
        }
        let first = self.problems[0];
        let lane = |l: usize| {
            if l < self.len {
                self.problems[l]
            } else {
                first
            }
        };
        let n = std::array::from_fn(|l| lane(l).1);
        let c = std::array::from_fn(|l| lane(l).2);
        // SAFETY: the caller's promise.
        let values = unsafe { wide::cancelling(wide, n, c) };
        for (&(i, _, _), v) in self.problems[..self.len].iter().zip(values) {
            out[i] = v;
        }
        self.len = 0;
    }
}

/// Most distinct n that get a dense row each in [`DenseRows`].
const MAX_DENSE_ROWS: usize = 64;

/// Problems looked at to find the distinct n for [`DenseRows`], in
/// [`SAMPLE_RUN`]s evenly spaced: an n missed is computed per problem, as
/// without rows.
const SAMPLE: usize = 1 << 12;

/// Consecutive problems a run of the sample: eight cache lines of int64
/// counts read in a row (4,096 problems spaced apart cost a cache miss
/// each, about 0.1 ms at a million problems).
const SAMPLE_RUN: usize = 64;

/// Problems below which no rows are tried.
const MIN_PROBLEMS: usize = 4096;

/// The distinct n of evenly spaced problems while there are at most
/// [`MAX_DENSE_ROWS`] (raw counts: a negative n is huge, so no rows are
/// built for such an array); `None` once there are more.
fn sampled_n(len: usize, n_at: impl Fn(usize) -> u64) -> Option<Vec<u64>> {
    let mut distinct = Vec::new();
    let runs = (0..len).step_by((len / (SAMPLE / SAMPLE_RUN)).max(SAMPLE_RUN));
    for i in runs.flat_map(|start| start..(start + SAMPLE_RUN).min(len)) {
        let n = n_at(i);
        if !distinct.contains(&n) {
            if distinct.len() == MAX_DENSE_ROWS {
                return None;
            }
            distinct.push(n);
        }
    }
    Some(distinct)
}

/// The rows of the sample's `distinct` n ([`DenseRows`]) of a `len`
/// problems' call, or `None` when they would hold more values than half
/// the problems (then computing each problem is cheaper).
fn dense_rows(
    kind: Kind,
    k: u64,
    table: &EstimatorTable,
    len: usize,
    distinct: &[u64],
) -> Option<DenseRows> {
    // The largest n first: a negative n wraps to ≥ 2⁶³, and n + 1 with it.
    if *distinct.iter().max()? >= 1 << 20 {
        return None;
    }
    let entries: u64 = distinct.iter().map(|&n| n + 1).sum();
    if entries > len as u64 / 2 {
        return None;
    }
    let mut memo = LocalMemo::default();
    Some(DenseRows::new(distinct, |n, c| {
        value(kind, n, c, k, table, &mut memo)
    }))
}

/// pass@k or pass^k of one problem (c ≤ n): n ≤ 67 from the table (exact
/// Pascal rows), larger n from [`bounded`] — or the exact function where
/// its bound does not hold.
#[inline]
fn value(kind: Kind, n: u64, c: u64, k: u64, table: &EstimatorTable, memo: &mut LocalMemo) -> f64 {
    if n <= SMALL_N {
        return table.get(n, c).unwrap_or(f64::NAN);
    }
    let (v, est) = match kind {
        Kind::PassAtK => (bounded::pass_at_k(n, c, k), CountsEstimator::PassAtK(k)),
        Kind::PassPowK => (bounded::pass_pow_k(n, c, k), CountsEstimator::PassPowK(k)),
    };
    v.unwrap_or_else(|| memo.get(est, n, c))
}

/// A problem every kernel of [`Lanes`] admits at every k it computes
/// (k ≤ 64 ≤ c ≤ n − k): computed in the lanes of the problems that are
/// not, whose values come from [`Shared::one`] instead.
const STAND_IN: (u64, u64) = (200, 100);

/// What every chunk shares: the estimator, its table, the rows and the
/// lanes.
struct Shared {
    kind: Kind,
    k: u64,
    table: EstimatorTable,
    dense: Option<DenseRows>,
    lanes: Option<Lanes>,
    /// The lanes as `wide::sixteen`, where the processor has AVX-512 F
    /// and DQ (and the crate the `avx512` feature).
    wide: Option<Wide>,
}

impl Shared {
    /// One problem from its raw counts: the value, or why there is none.
    /// Out of line: the loops call it for the problems neither the rows
    /// nor the lanes serve.
    #[inline(never)]
    fn one<T: Count>(&self, n: T, c: T, memo: &mut LocalMemo) -> Result<f64, BadCount> {
        let n = n.count().ok_or(BadCount::NegativeN)?;
        let c = c.count().ok_or(BadCount::NegativeC)?;
        if c > n {
            return Err(BadCount::CExceedsN);
        }
        if let Some(v) = self.dense.as_ref().and_then(|rows| rows.lookup(n, c)) {
            return Ok(v);
        }
        Ok(value(self.kind, n, c, self.k, &self.table, memo))
    }

    /// One block of [`LANES`] problems through [`Lanes`]: the value of
    /// every ordinary problem written to `out`; returns the lanes left for
    /// [`Shared::one`], a bit each (edge cases, n in the exact Pascal rows,
    /// bad counts, pass^k products that underflow). Their lanes compute a
    /// stand-in problem meanwhile: no branch in the vector code. (The
    /// lanes are classified, substituted and turned into a mask in three
    /// loops: in one, the compiler left the classification scalar —
    /// 3.0 → 2.7 ms best for 10⁶ distinct n at k = 16 when split.)
    #[inline(always)]
    fn block(
        &self,
        lanes: &Lanes,
        n: &mut [u64; LANES],
        c: &mut [u64; LANES],
        out: &mut [f64],
    ) -> u32 {
        let at = self.kind == Kind::PassAtK;
        let mut ordinary = [false; LANES];
        for l in 0..LANES {
            ordinary[l] = if at {
                lanes.generic_at(n[l], c[l])
            } else {
                lanes.generic_pow(n[l], c[l])
            };
        }
        for l in 0..LANES {
            n[l] = if ordinary[l] { n[l] } else { STAND_IN.0 };
            c[l] = if ordinary[l] { c[l] } else { STAND_IN.1 };
        }
        let mut rest = 0u32;
        for (l, &o) in ordinary.iter().enumerate() {
            rest |= u32::from(!o) << l;
        }
        if at {
            lanes.pass_at_k(n, c, out);
        } else {
            lanes.pass_pow_k(n, c, out);
            for (l, o) in out.iter().enumerate().take(LANES) {
                rest |= u32::from(o.is_nan()) << l;
            }
        }
        rest
    }

    /// The blocks of [`LANES`] problems of a chunk through the lanes (or
    /// [`Shared::wide_blocks`]): the value of each problem they serve
    /// written to `out`, the lanes they leave (a bit each) by
    /// [`Shared::one`]. Returns how many problems it filled (whole
    /// blocks), or the first problem without a value.
    #[inline(always)]
    fn blocks<T: Count>(
        &self,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
        memo: &mut LocalMemo,
        lanes: &Lanes,
    ) -> Result<usize, (usize, BadCount)> {
        if let Some(wide) = &self.wide {
            #[cfg(not(all(feature = "avx512", target_arch = "x86_64")))]
            match *wide {}
            // SAFETY: `Wide` exists only where the processor has AVX-512 F
            // and DQ (wide::available).
            #[cfg(all(feature = "avx512", target_arch = "x86_64"))]
            return unsafe {
                if self.kind == Kind::PassAtK {
                    self.wide_blocks::<T, false>(wide, n_at, c_at, out, memo)
                } else {
                    self.wide_blocks::<T, true>(wide, n_at, c_at, out, memo)
                }
            };
        }
        let mut j = 0;
        while j + LANES <= out.len() {
            let (mut n, mut c) = (n_at.block(j), c_at.block(j));
            let block = &mut out[j..j + LANES];
            let mut rest = self.block(lanes, &mut n, &mut c, block);
            while rest != 0 {
                let i = j + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                out[i] = self.one(n_at.at(i), c_at.at(i), memo).map_err(|r| (i, r))?;
            }
            j += LANES;
        }
        Ok(j)
    }

    /// [`Shared::blocks`] through `wide::sixteen` (and `wide::eight`
    /// for a last eight), read straight from the columns: pass^k when
    /// `POW` (the kind, which a loop of its own does not test).
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512 F and DQ.
    #[cfg(all(feature = "avx512", target_arch = "x86_64"))]
    #[inline(always)]
    unsafe fn wide_blocks<T: Count, const POW: bool>(
        &self,
        wide: &Wide,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
        memo: &mut LocalMemo,
    ) -> Result<usize, (usize, BadCount)> {
        let mut queue = Cancelling::default();
        // The lanes of the block at j the kernel left, a bit each, in order.
        let mut left = |j: usize, mut rest: u16, n: &[u64], c: &[u64], out: &mut [f64]| {
            while rest != 0 {
                let l = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                let i = j + l;
                if !POW && wide.cancels(n[l], c[l]) {
                    queue.problems[queue.len] = (i, n[l], c[l]);
                    queue.len += 1;
                    if queue.len == 8 {
                        // SAFETY: the caller's promise.
                        unsafe { queue.flush(wide, out) };
                    }
                } else {
                    out[i] = self.one(n_at.at(i), c_at.at(i), memo).map_err(|r| (i, r))?;
                }
            }
            Ok(())
        };
        let mut j = 0;
        while j + 16 <= out.len() {
            let block: &mut [f64; 16] = (&mut out[j..j + 16]).try_into().expect("16 long");
            let (n, c) = (n_at.block(j), c_at.block(j));
            // SAFETY: the caller's promise.
            let rest = unsafe { wide::sixteen::<POW>(wide, n, c, block) };
            if rest != 0 {
                left(j, rest, &n, &c, out)?;
            }
            j += 16;
        }
        if j + 8 <= out.len() {
            let block: &mut [f64; 8] = (&mut out[j..j + 8]).try_into().expect("8 long");
            let (n, c) = (n_at.block(j), c_at.block(j));
            // SAFETY: the caller's promise.
            let rest = unsafe { wide::eight::<POW>(wide, n, c, block) };
            left(j, rest.into(), &n, &c, out)?;
            j += 8;
        }
        // SAFETY: the caller's promise.
        unsafe { queue.flush(wide, out) };
        Ok(j)
    }

    /// [`Shared::chunk`] by the rows: lookups, and [`Shared::one`] for the
    /// problems the rows do not serve. The first problem without a value
    /// and why.
    #[inline(always)]
    fn dense_chunk<T: Count>(
        &self,
        rows: &DenseRows,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
        memo: &mut LocalMemo,
    ) -> Result<(), (usize, BadCount)> {
        let mut from = 0;
        loop {
            from = dense_lookups(rows, n_at, c_at, out, from);
            if from == out.len() {
                return Ok(());
            }
            out[from] = (self.one(n_at.at(from), c_at.at(from), memo)).map_err(|r| (from, r))?;
            from += 1;
        }
    }

    /// Fills one chunk; `n_at.at(j)`, `c_at.at(j)` are the counts of its
    /// j-th problem. Returns the first problem without a value and why.
    #[inline(always)]
    fn chunk<T: Count>(
        &self,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
    ) -> Option<(usize, BadCount)> {
        let mut memo = LocalMemo::default();
        if let Some(rows) = &self.dense {
            return self.dense_chunk(rows, n_at, c_at, out, &mut memo).err();
        }
        let filled = match &self.lanes {
            Some(lanes) => self.blocks(n_at, c_at, out, &mut memo, lanes),
            None => Ok(0),
        };
        let j = match filled {
            Ok(j) => j,
            Err(bad) => return Some(bad),
        };
        for (l, o) in out.iter_mut().enumerate().skip(j) {
            match self.one(n_at.at(l), c_at.at(l), &mut memo) {
                Ok(v) => *o = v,
                Err(r) => return Some((l, r)),
            }
        }
        None
    }
}

/// [`DenseRows::lookups`] from problem `from` of a chunk: its own function,
/// so the loop has the registers to itself.
#[inline(never)]
fn dense_lookups<T: Count>(
    rows: &DenseRows,
    n_at: impl Column<T>,
    c_at: impl Column<T>,
    out: &mut [f64],
    from: usize,
) -> usize {
    rows.lookups(out, from, |i| (n_at.at(i).wrap(), c_at.at(i).wrap()))
}

/// One chunk (from problem `start` of the arrays) in each argument
/// layout — an array or one value for all — monomorphized, so the loops
/// test no layout per problem.
#[inline(always)]
fn chunk_layouts<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, BadCount)> {
    let end = start + out.len();
    match (n.len() == 1, c.len() == 1) {
        (false, false) => shared.chunk(Slice(&n[start..end]), Slice(&c[start..end]), out),
        (true, false) => shared.chunk(One(n[0]), Slice(&c[start..end]), out),
        (false, true) => shared.chunk(Slice(&n[start..end]), One(c[0]), out),
        (true, true) => shared.chunk(One(n[0]), One(c[0]), out),
    }
}

/// [`chunk_layouts`] compiled for AVX-512 (eight f64 a register; DQ for
/// `wide::eight`'s u64 → f64 conversion, inlined here).
#[cfg(all(feature = "avx512", target_arch = "x86_64"))]
#[target_feature(enable = "avx512f,avx512dq")]
fn chunk_avx512<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, BadCount)> {
    chunk_layouts(shared, n, c, start, out)
}

/// [`chunk_layouts`] compiled for AVX2 (four f64 a register): the portable
/// [`Lanes`] code, vectorized by the compiler.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunk_avx2<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, BadCount)> {
    chunk_layouts(shared, n, c, start, out)
}

/// One chunk with the widest vector instructions this processor has
/// (the crate is built for the baseline x86-64, SSE2 only). The same
/// operations either way, so the same values: only the width differs.
fn chunk_dispatch<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, BadCount)> {
    #[cfg(target_arch = "x86_64")]
    {
        #[cfg(feature = "avx512")]
        if wide::available() {
            // SAFETY: the processor has AVX-512 F and DQ (checked just above).
            return unsafe { chunk_avx512(shared, n, c, start, out) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has AVX2 (checked just above).
            return unsafe { chunk_avx2(shared, n, c, start, out) };
        }
    }
    chunk_layouts(shared, n, c, start, out)
}

/// pass@k or pass^k under [`Accuracy::Bounded`] for every problem of `out`
/// in parallel chunks; the first problem without a value and why.
fn fill_bounded<T: Count>(
    kind: Kind,
    k: u64,
    n: &[T],
    c: &[T],
    out: &mut [f64],
) -> Option<(usize, BadCount)> {
    let n_at = |i: usize| n[if n.len() == 1 { 0 } else { i }].wrap();
    let lanes = Lanes::new(k);
    let wide = lanes.as_ref().and_then(Wide::new);
    // One table for the rows and the problems computed one by one (4,097
    // empty rows: not free to make).
    let table = EstimatorTable::new(match kind {
        Kind::PassAtK => CountsEstimator::PassAtK(k),
        Kind::PassPowK => CountsEstimator::PassPowK(k),
    });
    let dense = (out.len() >= MIN_PROBLEMS)
        .then(|| sampled_n(out.len(), n_at))
        .flatten()
        .and_then(|distinct| dense_rows(kind, k, &table, out.len(), &distinct));
    let shared = Shared {
        kind,
        k,
        table,
        dense,
        lanes,
        wide,
    };
    first_of_chunks(out, |start, chunk| {
        chunk_dispatch(&shared, n, c, start, chunk).map(|(j, r)| (start + j, r))
    })
}

/// `work(start, chunk)` for every [`CHUNK`] of `out` (`start`: its first
/// index), in parallel; the least of what the calls return.
///
/// The calling thread works from the start and rayon's threads (but one)
/// join it as they wake: on a loaded machine a pool thread may wait
/// milliseconds to run, as long as the whole call, and `par_chunks_mut`
/// would have the caller wait for them. Chunks are claimed in order from
/// a counter, each once; with one thread (`RAYON_NUM_THREADS=1`) the
/// caller does them all.
fn first_of_chunks<R, F>(out: &mut [f64], work: F) -> Option<R>
where
    R: Ord + Send,
    F: Fn(usize, &mut [f64]) -> Option<R> + Sync,
{
    let slots: Vec<Mutex<Option<&mut [f64]>>> =
        out.chunks_mut(CHUNK).map(|c| Mutex::new(Some(c))).collect();
    let (next, least) = (AtomicUsize::new(0), Mutex::new(None::<R>));
    let claim = || loop {
        let ci = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = slots.get(ci) else { break };
        let chunk = slot
            .lock()
            .expect("no panics")
            .take()
            .expect("claimed once");
        if let Some(r) = work(ci * CHUNK, chunk) {
            let mut least = least.lock().expect("no panics");
            if least.as_ref().is_none_or(|l| r < *l) {
                *least = Some(r);
            }
        }
    };
    let helpers = rayon::current_num_threads().saturating_sub(1);
    rayon::in_place_scope(|scope| {
        for _ in 0..helpers.min(slots.len().saturating_sub(1)) {
            scope.spawn(|_| claim());
        }
        claim();
    });
    least.into_inner().expect("no panics")
}

#[cfg(test)]
mod tests {
    use super::*;
    use bounded::xorshift;

    /// The scalar path, problem by problem: the checks in their order,
    /// then [`value`] (the exact Pascal rows, [`bounded`], or the exact
    /// function).
    fn scalar_path<T: Count>(
        kind: Kind,
        k: u64,
        n: &[T],
        c: &[T],
    ) -> Result<Vec<f64>, (usize, BadCount)> {
        let est = match kind {
            Kind::PassAtK => CountsEstimator::PassAtK(k),
            Kind::PassPowK => CountsEstimator::PassPowK(k),
        };
        let table = EstimatorTable::new(est);
        let mut memo = LocalMemo::default();
        let len = n.len().max(c.len());
        let at = |a: &[T], i: usize| a[if a.len() == 1 { 0 } else { i }];
        (0..len)
            .map(|i| {
                let n = at(n, i).count().ok_or((i, BadCount::NegativeN))?;
                let c = at(c, i).count().ok_or((i, BadCount::NegativeC))?;
                if c > n {
                    return Err((i, BadCount::CExceedsN));
                }
                Ok(value(kind, n, c, k, &table, &mut memo))
            })
            .collect()
    }

    /// [`fill_counts`] against [`scalar_path`]: the values bit for bit, or
    /// the same first bad problem; and under [`Accuracy::Exact`] the exact
    /// function's values (or the same bad problem).
    fn check<T: Count + std::fmt::Debug>(case: &str, kind: Kind, k: u64, n: &[T], c: &[T]) {
        let est = match kind {
            Kind::PassAtK => CountsEstimator::PassAtK(k),
            Kind::PassPowK => CountsEstimator::PassPowK(k),
        };
        let mut out = vec![f64::NAN; n.len().max(c.len())];
        let got = fill_counts(est, Accuracy::Bounded, n, c, &mut out);
        let want = scalar_path(kind, k, n, c);
        match &want {
            Ok(want) => {
                assert_eq!(got, Ok(()), "{case}: {kind:?} k={k}");
                for (i, (g, w)) in out.iter().zip(want).enumerate() {
                    assert_eq!(
                        g.to_bits(),
                        w.to_bits(),
                        "{case}: {kind:?} k={k} at {i}: n {:?} c {:?}",
                        n[i.min(n.len() - 1)],
                        c[i.min(c.len() - 1)]
                    );
                }
            }
            Err((index, reason)) => {
                let bad = BadProblem {
                    index: *index,
                    reason: *reason,
                };
                assert_eq!(got, Err(bad), "{case}: {kind:?} k={k}");
            }
        }
        // The exact path: checked on a prefix (the exact function takes
        // about a microsecond a distinct large (n, c)).
        let len = out.len().min(300);
        let (ne, ce) = (&n[..n.len().min(len)], &c[..c.len().min(len)]);
        let mut exact = vec![f64::NAN; len];
        let got = fill_counts(est, Accuracy::Exact, ne, ce, &mut exact);
        match scalar_path(kind, k, ne, ce) {
            Ok(_) => {
                assert_eq!(got, Ok(()), "{case}: exact {kind:?} k={k}");
                for (i, g) in exact.iter().enumerate() {
                    let (ni, ci) = (ne[i.min(ne.len() - 1)], ce[i.min(ce.len() - 1)]);
                    let w = est.value(ni.wrap(), ci.wrap()).unwrap_or(f64::NAN);
                    assert_eq!(
                        g.to_bits(),
                        w.to_bits(),
                        "{case}: exact {kind:?} k={k} at {i}"
                    );
                }
            }
            Err((index, reason)) => {
                assert_eq!(got, Err(BadProblem { index, reason }), "{case}: exact");
            }
        }
    }

    /// Samples of n the kernels choose between: one small n, a few n
    /// (rows), many n in a short range, many n spread wide (lanes), tiny n
    /// at the edges.
    fn n_samples(next: &mut impl FnMut(u64) -> u64, len: usize) -> Vec<(&'static str, Vec<i64>)> {
        let draw = |f: &mut dyn FnMut() -> u64| (0..len).map(|_| f() as i64).collect::<Vec<_>>();
        let few = [8, 16, 64, 100, 1000];
        vec![
            ("n = 16", draw(&mut || 16)),
            ("n = 0", draw(&mut || 0)),
            ("n = 31", draw(&mut || 31)),
            ("n = 40", draw(&mut || 40)),
            ("few n", draw(&mut || few[next(5) as usize])),
            ("n < 3000", draw(&mut || 1 + next(3000))),
            ("n < 10⁵", draw(&mut || 16 + next(100_000))),
            ("n < 2³⁰", draw(&mut || 16 + next(1 << 30))),
        ]
    }

    /// c for each n: 0, n, n − k .. n, small, uniform.
    fn c_for(next: &mut impl FnMut(u64) -> u64, n: &[i64], k: u64) -> Vec<i64> {
        n.iter()
            .map(|&n| {
                let n = n as u64;
                (match next(8) {
                    0 => 0,
                    1 => n,
                    2 => n.saturating_sub(next(k + 2)),
                    3 => next(3).min(n),
                    _ => next(n + 1),
                }) as i64
            })
            .collect()
    }

    /// Every path of [`fill_counts`] — the rows, the lanes (portable or
    /// AVX-512), problem by problem — gives the scalar path's values bit
    /// for bit, in every dtype and layout, and stops at the first bad
    /// problem with its reason (c > n, n < 0, c < 0) wherever it is and
    /// whichever thread finds it.
    #[test]
    fn fill_equals_the_scalar_path() {
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let len = 2 * CHUNK + 1003;
        for (case, n) in n_samples(&mut next, len) {
            for k in [1, 2, 4, 16, 33, 65] {
                for kind in [Kind::PassAtK, Kind::PassPowK] {
                    let c = c_for(&mut next, &n, k);
                    check(case, kind, k, &n, &c);
                    let (n32, c32): (Vec<i32>, Vec<i32>) = (
                        n.iter().map(|&v| v.min(i32::MAX as i64) as i32).collect(),
                        c.iter()
                            .zip(&n)
                            .map(|(&v, &n)| v.min(n.min(i32::MAX as i64)) as i32)
                            .collect(),
                    );
                    check(case, kind, k, &n32, &c32);
                    let (nu, cu): (Vec<u64>, Vec<u64>) = (
                        n.iter().map(|&v| v as u64).collect(),
                        c.iter().map(|&v| v as u64).collect(),
                    );
                    check(case, kind, k, &nu, &cu);
                    // One n for all (broadcast), one c for all.
                    check(case, kind, k, &n[..1], &c);
                    check(case, kind, k, &n, &[0]);
                    // Bad problems: the first wins, wherever it is.
                    for bad in 0..4 {
                        let (mut nb, mut cb) = (n.clone(), c.clone());
                        for _ in 0..1 + next(3) {
                            let i = next(len as u64) as usize;
                            match bad {
                                0 => cb[i] = nb[i] + 1 + next(5) as i64,
                                1 => nb[i] = -1 - next(5) as i64,
                                2 => cb[i] = -1 - next(5) as i64,
                                _ => {
                                    nb[i] = -1;
                                    cb[i] = -1;
                                }
                            }
                        }
                        check(case, kind, k, &nb, &cb);
                        let cu: Vec<u32> = cb
                            .iter()
                            .map(|&v| v.clamp(0, u32::MAX as i64) as u32)
                            .collect();
                        let nu: Vec<u32> = nb
                            .iter()
                            .map(|&v| v.clamp(0, u32::MAX as i64) as u32)
                            .collect();
                        check(case, kind, k, &nu, &cu);
                    }
                }
            }
        }
    }

    /// The other estimators (filled from the shared table) and
    /// [`fill_counts_varying`] give the exact function's values, whatever
    /// the layout, and the first bad problem.
    #[test]
    fn table_and_varying_paths_give_the_exact_values() {
        let mut next = xorshift(0x853c_49e6_748f_ea9b);
        let len = CHUNK + 517;
        let n: Vec<u64> = (0..len)
            .map(|_| [1, 16, 40, 300, 5000, 1 << 20][next(6) as usize] + next(3))
            .collect();
        let c: Vec<u64> = n.iter().map(|&n| next(n + 1)).collect();
        let k: Vec<u64> = (0..len).map(|_| 1 + next(20)).collect();
        let tau: Vec<f64> = (0..len)
            .map(|_| [0.0, 0.25, 0.5, 1.0][next(4) as usize])
            .collect();
        let families = [
            Family::PassAtK,
            Family::PassPowK,
            Family::GPassAtK,
            Family::MgPassAtK,
        ];
        for family in families {
            for accuracy in [Accuracy::Exact, Accuracy::Bounded] {
                let mut out = vec![0.0; len];
                let got = fill_counts_varying(family, accuracy, &n, &c, &k, &tau, &mut out);
                assert_eq!(got, Ok(()));
                for i in 0..len {
                    let est = family.at(k[i], tau[i]);
                    let exact = est.value(n[i], c[i]);
                    let bounded = (accuracy == Accuracy::Bounded && n[i] > SMALL_N)
                        .then(|| bounded_value(est, n[i], c[i]))
                        .flatten();
                    let want = bounded.or(exact).unwrap_or(f64::NAN);
                    assert_eq!(out[i].to_bits(), want.to_bits(), "{family:?} {i}");
                    if let (Some(b), Some(e)) = (bounded, exact) {
                        assert!((b - e).abs() <= bounded::TOL * e, "{b} {e}");
                    }
                }
                // One k and τ for all: the same as fill_counts.
                let est = family.at(7, 0.5);
                let mut one = vec![0.0; len];
                fill_counts_varying(family, accuracy, &n, &c, &[7], &[0.5], &mut one).unwrap();
                let mut direct = vec![0.0; len];
                fill_counts(est, accuracy, &n, &c, &mut direct).unwrap();
                for i in 0..len {
                    assert_eq!(one[i].to_bits(), direct[i].to_bits(), "{family:?} {i}");
                }
                // The first c > n wins.
                let mut bad = c.clone();
                bad[CHUNK + 3] = n[CHUNK + 3] + 1;
                bad[9] = n[9] + 2;
                let want = Err(BadProblem {
                    index: 9,
                    reason: BadCount::CExceedsN,
                });
                assert_eq!(
                    fill_counts_varying(family, accuracy, &n, &bad, &k, &tau, &mut out),
                    want
                );
                assert_eq!(fill_counts(est, Accuracy::Exact, &n, &bad, &mut out), want);
            }
        }
        // More than 64 distinct (k, τ): computed directly, same values.
        let many_k: Vec<u64> = (0..len as u64).map(|i| 1 + i % 100).collect();
        let mut out = vec![0.0; len];
        fill_counts_varying(
            Family::MgPassAtK,
            Accuracy::Exact,
            &n,
            &c,
            &many_k,
            &[0.0],
            &mut out,
        )
        .unwrap();
        for i in 0..len {
            let want = mg_pass_at_k_or_nan(n[i], c[i], many_k[i]);
            assert_eq!(out[i].to_bits(), want.to_bits());
        }
        // Negative counts in the table path, in order.
        let mut out = [0.0; 4];
        let est = CountsEstimator::GPassAtK { k: 2, tau: 0.5 };
        let got = fill_counts(
            est,
            Accuracy::Exact,
            &[4i64, 4, -2, 4],
            &[1, 5, 1, -1],
            &mut out,
        );
        assert_eq!(
            got,
            Err(BadProblem {
                index: 1,
                reason: BadCount::CExceedsN
            })
        );
        let got = fill_counts(
            est,
            Accuracy::Exact,
            &[4i64, 4, -2, 4],
            &[1, 2, 1, -1],
            &mut out,
        );
        assert_eq!(
            got,
            Err(BadProblem {
                index: 2,
                reason: BadCount::NegativeN
            })
        );
        assert_eq!(
            fill_counts(est, Accuracy::Exact, &[1i32], &[0], &mut []),
            Ok(())
        );
    }

    fn mg_pass_at_k_or_nan(n: u64, c: u64, k: u64) -> f64 {
        crate::estimators::mg_pass_at_k(n, c, k).unwrap_or(f64::NAN)
    }

    /// Times [`fill_counts`] on a million problems (pass@k: n = 16, k = 4;
    /// n ∈ {8, 16, 64, 100, 1000}, k = 8; n distinct in [16, 10⁵), k = 16
    /// or `K`), best, q25 and median of 200 calls, against a loop that
    /// only reads both arrays and writes one — to compare kernels with
    /// less noise than Python: `RAYON_NUM_THREADS=1 cargo test --release
    /// -p rollstat-core fill_timing -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn fill_timing() {
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let len: usize = std::env::var("LEN").map_or(1_000_000, |l| l.parse().unwrap());
        let k: u64 = std::env::var("K").map_or(16, |l| l.parse().unwrap());
        let few = [8, 16, 64, 100, 1000];
        let cases: [(&str, u64, Vec<i64>); 3] = [
            ("n = 16", 4, vec![16; len]),
            (
                "few n",
                8,
                (0..len).map(|_| few[next(5) as usize]).collect(),
            ),
            (
                "distinct n",
                k,
                (0..len).map(|_| 16 + next(99_984) as i64).collect(),
            ),
        ];
        for (case, k, n) in cases {
            let c: Vec<i64> = n.iter().map(|&n| next(n as u64 + 1) as i64).collect();
            let mut out = vec![0.0; len];
            let (mut times, mut copies) = (Vec::new(), Vec::new());
            let time = |f: &mut dyn FnMut()| {
                let t = std::time::Instant::now();
                f();
                t.elapsed().as_secs_f64() * 1e3
            };
            let est = CountsEstimator::PassAtK(k);
            for _ in 0..200 * (1_000_000 / len).max(1) {
                times.push(time(&mut || {
                    assert_eq!(
                        fill_counts(est, Accuracy::Bounded, &n, &c, &mut out),
                        Ok(())
                    );
                }));
                copies.push(time(&mut || {
                    for ((o, &n), &c) in out.iter_mut().zip(&n).zip(&c) {
                        *o = (n + c) as f64;
                    }
                }));
            }
            times.sort_by(f64::total_cmp);
            copies.sort_by(f64::total_cmp);
            let scale = 1_000_000.0 / len as f64;
            let at = |v: &[f64], q: usize| v[v.len() * q / 4] * scale;
            eprintln!(
                "{case} (k = {k}): best {:.3} q25 {:.3} median {:.3} ms (copy median {:.3} ms)",
                at(&times, 0),
                at(&times, 1),
                at(&times, 2),
                at(&copies, 2),
            );
        }
    }

    /// Every chunk is worked exactly once, at its own start, and the least
    /// result wins whichever thread finds it.
    #[test]
    fn chunks_each_once_least_result() {
        let len = 10 * CHUNK + 123;
        let mut out = vec![0.0; len];
        let least = first_of_chunks(&mut out, |start, chunk| {
            for (j, o) in chunk.iter_mut().enumerate() {
                *o += (start + j) as f64 + 1.0;
            }
            // Chunks 3, 7 and the last report an index inside them.
            [3, 7, 10].contains(&(start / CHUNK)).then_some(start + 5)
        });
        assert_eq!(least, Some(3 * CHUNK + 5));
        assert!(out.iter().enumerate().all(|(i, &v)| v == i as f64 + 1.0));
        assert_eq!(first_of_chunks(&mut [], |_, _| Some(1)), None::<usize>);
    }
}
