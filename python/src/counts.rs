//! pass@k and pass^k at one k, straight from numpy's count arrays.
//!
//! The most common call — `pass_at_k(n, c, k)` with int64 (or int32,
//! uint64, uint32) arrays and a scalar k — reads the arrays where numpy
//! keeps them (no conversion copy, no separate pass checking signs) and
//! writes into the output array once. Parallel chunks of [`CHUNK`]
//! problems; within a chunk, blocks of [`LANES`] problems:
//!
//! - few distinct n ([`DenseRows`]): every value of each n computed once,
//!   then two loads a problem — or, when every sampled problem has one
//!   n ≤ 31 and the processor has AVX-512, eight problems a compare and
//!   two permutations of the row held in registers;
//! - many distinct n, on a processor with AVX-512 and k ≤ [`WIDE_MAX_K`]
//!   ([`wide`]): the ratio of two paired products in eight lanes, two
//!   registers at a time, read straight from the arrays (faster there than
//!   the table's random loads);
//! - many distinct n within a range at most half the number of problems
//!   ([`FallingTable`]): the falling factorial of every m up to the
//!   sample's largest n computed once, then two loads and a division a
//!   problem;
//! - otherwise [`Lanes`] (or [`wide`] with AVX-512): the ratio of two
//!   paired products, vectorized across the block, bit for bit [`fast`]'s
//!   scalar value.
//!
//! Lanes a kernel does not serve (n ≤ 67, edge cases, bad counts, n past
//! the table, a cancelling `1 − ratio`) go problem by problem. Either way a
//! problem's value is the same function of `(n, c, k)` (rows hold what
//! [`value`] returns; the table and the lanes return what it returns), so
//! it does not depend on the other elements of the array.

use crate::dense::DenseRows;
use crate::estimators::{fast_value, Kind, LocalMemo, PASCAL_MAX_N};
use crate::falling::FallingTable;
use crate::fast::{Lanes, LANES};
use crate::wide::{self, Wide, WIDE_MAX_K};
use numpy::{Element, PyArray1, PyArrayMethods, PyReadonlyArray1};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use rollstat_core::batch::EstimatorTable;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// Problems per parallel chunk: large enough that scheduling is noise,
/// small enough that two threads share a million problems evenly.
const CHUNK: usize = 1 << 14;

/// An element type of a count array, read as a count (`None`: negative).
pub trait Count: Element + Copy + Send + Sync {
    /// The count, or `None` for a negative value.
    fn count(self) -> Option<u64>;
    /// The value as u64, wrapping: a negative value becomes ≥ 2⁶³, which
    /// [`Lanes`] rejects, so a block with one goes problem by problem.
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

/// pass@k problems whose `1 − ratio` may cancel ([`wide::cancelling`]),
/// collected until there are eight: `(index, n, c)`.
#[derive(Default)]
struct Cancelling {
    problems: [(usize, u64, u64); 8],
    len: usize,
}

impl Cancelling {
    /// Computes the problems collected (the free lanes compute the first
    /// one again) and writes their values to `out`.
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512 F and DQ.
    #[cfg(target_arch = "x86_64")]
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

/// Why a problem has no value: the codes the Python layer words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Reason {
    /// c > n.
    CExceedsN = 0,
    /// n < 0.
    NegativeN = 1,
    /// c < 0.
    NegativeC = 2,
}

/// Most distinct n that get a dense row each in [`DenseRows`].
const MAX_DENSE_ROWS: usize = 64;

/// Problems looked at to find the distinct n for [`DenseRows`] and the
/// range of n for a [`FallingTable`], in [`SAMPLE_RUN`]s evenly spaced:
/// an n missed is computed per problem, as without rows or table.
const SAMPLE: usize = 1 << 12;

/// Consecutive problems a run of the sample: eight cache lines of int64
/// counts read in a row (4,096 problems spaced apart cost a cache miss
/// each, about 0.1 ms at a million problems).
const SAMPLE_RUN: usize = 64;

/// Problems below which neither rows nor a table are tried.
const MIN_PROBLEMS: usize = 4096;

/// Most entries of a [`FallingTable`] (8 MiB).
const MAX_TABLE_ENTRIES: u64 = 1 << 20;

/// The n of evenly spaced problems: their distinct values (while there
/// are at most [`MAX_DENSE_ROWS`]) and the largest.
struct NSample {
    /// `None` once there are more than [`MAX_DENSE_ROWS`].
    distinct: Option<Vec<u64>>,
    max: u64,
}

impl NSample {
    /// The sample of the `len` values of `n_at` (raw counts: a negative n
    /// is huge, so no rows or table are built for such an array).
    fn new(len: usize, n_at: impl Fn(usize) -> u64) -> NSample {
        let mut sample = NSample {
            distinct: Some(Vec::new()),
            max: 0,
        };
        let runs = (0..len).step_by((len / (SAMPLE / SAMPLE_RUN)).max(SAMPLE_RUN));
        for i in runs.flat_map(|start| start..(start + SAMPLE_RUN).min(len)) {
            let n = n_at(i);
            sample.max = sample.max.max(n);
            if let Some(distinct) = &mut sample.distinct {
                if !distinct.contains(&n) {
                    if distinct.len() == MAX_DENSE_ROWS {
                        sample.distinct = None;
                    } else {
                        distinct.push(n);
                    }
                }
            }
        }
        sample
    }
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

/// pass@k or pass^k of one problem (c ≤ n): n ≤ [`PASCAL_MAX_N`] from the
/// engine's table (exact Pascal rows), larger n from [`fast`] — or the
/// engine's function where its bound does not hold.
#[inline]
fn value(kind: Kind, n: u64, c: u64, k: u64, table: &EstimatorTable, memo: &mut LocalMemo) -> f64 {
    if n <= PASCAL_MAX_N {
        return table.get(n, c).unwrap_or(f64::NAN);
    }
    match fast_value(kind, n, c, k) {
        Some(v) => v,
        None => memo.get(kind, n, c, k, 0.0),
    }
}

/// A problem every kernel of [`Lanes`] admits at every k it computes
/// (k ≤ 64 ≤ c ≤ n − k): computed in the lanes of the problems that are
/// not, whose values come from [`Shared::one`] instead.
const STAND_IN: (u64, u64) = (200, 100);

/// What computes whole blocks of [`LANES`] problems.
#[derive(Clone, Copy)]
enum Kernel<'a> {
    /// Two loads and a division a problem.
    Table(&'a FallingTable),
    /// A product of k ratios a problem.
    Lanes(&'a Lanes),
    /// [`Lanes`] with AVX-512 ([`wide`]); only where the processor has it.
    Wide(&'a Wide),
}

/// What every chunk shares: the estimator, its table, the rows, the
/// falling factorials and the lanes.
struct Shared {
    kind: Kind,
    k: u64,
    table: EstimatorTable,
    dense: Option<DenseRows>,
    /// The falling factorials of every n up to the sample's largest, when
    /// there are no rows and that range is small next to the problems.
    falling: Option<FallingTable>,
    lanes: Option<Lanes>,
    /// The lanes as [`wide::eight`], where the processor has AVX-512 F
    /// and DQ.
    wide: Option<Wide>,
}

impl Shared {
    /// One problem from its raw counts: the value, or why there is none.
    /// Out of line: the loops call it for the problems neither the rows
    /// nor the lanes serve.
    #[inline(never)]
    fn one<T: Count>(&self, n: T, c: T, memo: &mut LocalMemo) -> Result<f64, Reason> {
        let n = n.count().ok_or(Reason::NegativeN)?;
        let c = c.count().ok_or(Reason::NegativeC)?;
        if c > n {
            return Err(Reason::CExceedsN);
        }
        if let Some(v) = self.dense.as_ref().and_then(|rows| rows.lookup(n, c)) {
            return Ok(v);
        }
        Ok(value(self.kind, n, c, self.k, &self.table, memo))
    }

    /// One block of [`LANES`] problems through [`Lanes`]: the value of
    /// every ordinary problem written to `out`; returns the lanes left for
    /// [`Shared::one`], a bit each (edge cases, n in the engine's table,
    /// bad counts, pass^k products that underflow). Their lanes compute a
    /// stand-in problem meanwhile: no branch in the vector code.
    #[inline(always)]
    fn block(
        &self,
        lanes: &Lanes,
        n: &mut [u64; LANES],
        c: &mut [u64; LANES],
        out: &mut [f64],
    ) -> u32 {
        let at = matches!(self.kind, Kind::PassAtK);
        let mut rest = 0u32;
        for l in 0..LANES {
            let ordinary = if at {
                lanes.generic_at(n[l], c[l])
            } else {
                lanes.generic_pow(n[l], c[l])
            };
            rest |= u32::from(!ordinary) << l;
            n[l] = if ordinary { n[l] } else { STAND_IN.0 };
            c[l] = if ordinary { c[l] } else { STAND_IN.1 };
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

    /// The blocks of [`LANES`] problems of a chunk through `kernel`: the
    /// value of each problem it serves written to `out`, the lanes it
    /// leaves (a bit each) by [`Shared::one`]. Returns how many problems
    /// it filled (whole blocks), or the first problem without a value.
    #[inline(always)]
    fn blocks<T: Count>(
        &self,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
        memo: &mut LocalMemo,
        kernel: Kernel,
    ) -> Result<usize, (usize, Reason)> {
        let at = matches!(self.kind, Kind::PassAtK);
        #[cfg(target_arch = "x86_64")]
        if let Kernel::Wide(wide) = kernel {
            // SAFETY: `Wide` exists only where the processor has AVX-512 F
            // and DQ (wide::available).
            return unsafe {
                if at {
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
            let mut rest = match kernel {
                Kernel::Table(table) if at => table.pass_at_k(&n, &c, block),
                Kernel::Table(table) => table.pass_pow_k(&n, &c, block),
                Kernel::Lanes(lanes) => self.block(lanes, &mut n, &mut c, block),
                Kernel::Wide(_) => unreachable!("handled by wide_blocks"),
            };
            while rest != 0 {
                let i = j + rest.trailing_zeros() as usize;
                rest &= rest - 1;
                out[i] = self.one(n_at.at(i), c_at.at(i), memo).map_err(|r| (i, r))?;
            }
            j += LANES;
        }
        Ok(j)
    }

    /// [`Shared::blocks`] through [`wide::sixteen`] (and [`wide::eight`]
    /// for a last eight), read straight from the columns: pass^k when
    /// `POW` (the kind, which a loop of its own does not test).
    ///
    /// # Safety
    ///
    /// The processor must have AVX-512 F and DQ.
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    unsafe fn wide_blocks<T: Count, const POW: bool>(
        &self,
        wide: &Wide,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
        memo: &mut LocalMemo,
    ) -> Result<usize, (usize, Reason)> {
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

    /// [`Shared::chunk`] by the rows: eight problems at a time in registers
    /// where the rows are [`DenseRows::small`] (and the processor has
    /// AVX-512), then lookups; [`Shared::one`] for the problems the rows do
    /// not serve. The first problem without a value and why.
    #[inline(always)]
    fn dense_chunk<T: Count>(
        &self,
        rows: &DenseRows,
        n_at: impl Column<T>,
        c_at: impl Column<T>,
        out: &mut [f64],
        memo: &mut LocalMemo,
    ) -> Result<(), (usize, Reason)> {
        let mut one = |i: usize, out: &mut [f64]| {
            out[i] = self.one(n_at.at(i), c_at.at(i), memo).map_err(|r| (i, r))?;
            Ok(())
        };
        #[allow(unused_mut)]
        let mut from = 0;
        #[cfg(target_arch = "x86_64")]
        if rows.small() && wide::available() {
            let block = |j| (n_at.block(j), c_at.block(j));
            // SAFETY: the processor has AVX-512 F (checked just above).
            from = unsafe { rows.small_blocks(block, out, &mut one)? };
        }
        loop {
            from = dense_lookups(rows, n_at, c_at, out, from);
            if from == out.len() {
                return Ok(());
            }
            one(from, out)?;
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
    ) -> Option<(usize, Reason)> {
        let mut memo = LocalMemo::default();
        if let Some(rows) = &self.dense {
            return self.dense_chunk(rows, n_at, c_at, out, &mut memo).err();
        }
        let kernel = match (&self.falling, &self.wide, &self.lanes) {
            (Some(table), _, _) => Some(Kernel::Table(table)),
            (None, Some(wide), _) => Some(Kernel::Wide(wide)),
            (None, None, Some(lanes)) => Some(Kernel::Lanes(lanes)),
            (None, None, None) => None,
        };
        let filled = match kernel {
            Some(kernel) => self.blocks(n_at, c_at, out, &mut memo, kernel),
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
) -> Option<(usize, Reason)> {
    let end = start + out.len();
    match (n.len() == 1, c.len() == 1) {
        (false, false) => shared.chunk(Slice(&n[start..end]), Slice(&c[start..end]), out),
        (true, false) => shared.chunk(One(n[0]), Slice(&c[start..end]), out),
        (false, true) => shared.chunk(Slice(&n[start..end]), One(c[0]), out),
        (true, true) => shared.chunk(One(n[0]), One(c[0]), out),
    }
}

/// [`chunk_layouts`] compiled for AVX-512 (eight f64 a register; DQ for
/// [`wide::eight`]'s u64 → f64 conversion, inlined here).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq")]
fn chunk_avx512<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, Reason)> {
    chunk_layouts(shared, n, c, start, out)
}

/// [`chunk_layouts`] compiled for AVX2 (four f64 a register).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn chunk_avx2<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, Reason)> {
    chunk_layouts(shared, n, c, start, out)
}

/// One chunk with the widest vector instructions this processor has
/// (the package is built for the baseline x86-64, SSE2 only). The same
/// operations either way, so the same values: only the width differs.
fn chunk_dispatch<T: Count>(
    shared: &Shared,
    n: &[T],
    c: &[T],
    start: usize,
    out: &mut [f64],
) -> Option<(usize, Reason)> {
    #[cfg(target_arch = "x86_64")]
    {
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

/// Every problem of `out` in parallel chunks; the first problem without a
/// value and why.
pub(crate) fn fill<T: Count>(
    kind: Kind,
    k: u64,
    n: &[T],
    c: &[T],
    out: &mut [f64],
) -> Option<(usize, Reason)> {
    let n_at = |i: usize| n[if n.len() == 1 { 0 } else { i }].wrap();
    let lanes = Lanes::new(k);
    let wide = lanes.as_ref().and_then(Wide::new);
    // One table for the rows and the problems computed one by one (4,097
    // empty rows: not free to make).
    let table = EstimatorTable::new(kind.estimator(k, 0.0));
    let (mut dense, mut falling) = (None, None);
    if out.len() >= MIN_PROBLEMS {
        let sample = NSample::new(out.len(), n_at);
        dense =
            (sample.distinct.as_deref()).and_then(|d| dense_rows(kind, k, &table, out.len(), d));
        let entries = sample.max.saturating_add(1);
        // With AVX-512 the lanes beat the table's random loads up to
        // WIDE_MAX_K (see [`wide`]).
        let table_wins = wide.is_none() || k > WIDE_MAX_K;
        if dense.is_none() && table_wins && entries <= MAX_TABLE_ENTRIES.min(out.len() as u64 / 2) {
            falling = lanes
                .as_ref()
                .and_then(|l| FallingTable::new(l, sample.max));
        }
    }
    let shared = Shared {
        kind,
        k,
        table,
        dense,
        falling,
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

/// The values of `kind` for every problem of the flat count arrays `n`
/// and `c` (each of the output's length or of length 1) at `k`.
fn run<'py, T: Count>(
    py: Python<'py>,
    kind: Kind,
    k: u64,
    n: &[T],
    c: &[T],
) -> PyResult<(Bound<'py, PyArray1<f64>>, i64, u8)> {
    let size = if n.is_empty() || c.is_empty() {
        0
    } else {
        n.len().max(c.len())
    };
    if [n.len(), c.len()].iter().any(|&l| l != 1 && l != size) {
        return Err(PyValueError::new_err(format!(
            "arrays of lengths {:?} do not broadcast (each must be 1 or the output's length)",
            [n.len(), c.len()]
        )));
    }
    // SAFETY: f64 has no invalid bit patterns, and the array is only
    // returned after every element was written (else it is dropped).
    let array = unsafe { PyArray1::<f64>::new(py, size, false) };
    // SAFETY: `array` was just created here and no other reference to its
    // data exists; it outlives `out`, which is only used inside `detach`.
    let out: &mut [f64] = unsafe { array.as_slice_mut() }.expect("a new array is contiguous");
    match py.detach(|| fill(kind, k, n, c, out)) {
        None => Ok((array, -1, 0)),
        Some((i, reason)) => Ok((PyArray1::from_vec(py, Vec::new()), i as i64, reason as u8)),
    }
}

/// Reads `a` as a flat contiguous array of `T`, if it is one.
fn slice_of<'a, 'py, T: Count>(a: &'a Option<PyReadonlyArray1<'py, T>>) -> Option<&'a [T]> {
    a.as_ref().and_then(|a| a.as_slice().ok())
}

/// `estimate_counts(kind, n, c, k) -> (values, bad, reason)`: pass@k
/// (`kind` `pass_at_k`) or pass^k (`pass_pow_k`) at one k for every
/// problem; `NaN` where undefined (k > n). `n` and `c` are flat
/// contiguous arrays of one dtype — int64, int32, uint64 or uint32 — each
/// of the output's length or of length 1, read in place (no copy, signs
/// checked on the way). `bad` is the first index without a value (the
/// values are then not computed), or -1; `reason` says why: 0 c > n,
/// 1 n < 0, 2 c < 0. The GIL is released.
#[pyfunction]
pub fn estimate_counts<'py>(
    py: Python<'py>,
    kind: &str,
    n: &Bound<'py, PyAny>,
    c: &Bound<'py, PyAny>,
    k: u64,
) -> PyResult<(Bound<'py, PyArray1<f64>>, i64, u8)> {
    let kind = Kind::parse(kind)?;
    if !matches!(kind, Kind::PassAtK | Kind::PassPowK) || k == 0 {
        return Err(PyValueError::new_err(
            "estimate_counts computes pass_at_k and pass_pow_k at k >= 1",
        ));
    }
    macro_rules! typed {
        ($t:ty) => {
            let (na, ca) = (
                n.extract::<PyReadonlyArray1<$t>>().ok(),
                c.extract::<PyReadonlyArray1<$t>>().ok(),
            );
            if let (Some(ns), Some(cs)) = (slice_of(&na), slice_of(&ca)) {
                return run(py, kind, k, ns, cs);
            }
        };
    }
    typed!(i64);
    typed!(i32);
    typed!(u64);
    typed!(u32);
    Err(PyValueError::new_err(
        "n and c: flat contiguous arrays of one dtype (int64, int32, uint64 or uint32)",
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The old scalar path, problem by problem: the checks in their order,
    /// then [`value`].
    fn scalar_path<T: Count>(
        kind: Kind,
        k: u64,
        n: &[T],
        c: &[T],
    ) -> Result<Vec<f64>, (usize, Reason)> {
        let table = EstimatorTable::new(kind.estimator(k, 0.0));
        let mut memo = LocalMemo::default();
        let len = n.len().max(c.len());
        let at = |a: &[T], i: usize| a[if a.len() == 1 { 0 } else { i }];
        (0..len)
            .map(|i| {
                let n = at(n, i).count().ok_or((i, Reason::NegativeN))?;
                let c = at(c, i).count().ok_or((i, Reason::NegativeC))?;
                if c > n {
                    return Err((i, Reason::CExceedsN));
                }
                Ok(value(kind, n, c, k, &table, &mut memo))
            })
            .collect()
    }

    /// `fill` against [`scalar_path`]: the values bit for bit, or the same
    /// first bad problem.
    fn check<T: Count + std::fmt::Debug>(case: &str, kind: Kind, k: u64, n: &[T], c: &[T]) {
        let mut out = vec![f64::NAN; n.len().max(c.len())];
        let got = fill(kind, k, n, c, &mut out);
        match scalar_path(kind, k, n, c) {
            Ok(want) => {
                assert_eq!(got, None, "{case}: {kind:?} k={k}");
                for (i, (g, w)) in out.iter().zip(&want).enumerate() {
                    assert_eq!(
                        g.to_bits(),
                        w.to_bits(),
                        "{case}: {kind:?} k={k} at {i}: n {:?} c {:?}",
                        n[i.min(n.len() - 1)],
                        c[i.min(c.len() - 1)]
                    );
                }
            }
            Err(bad) => assert_eq!(got, Some(bad), "{case}: {kind:?} k={k}"),
        }
    }

    /// Samples of n the kernels choose between: one small n (registers),
    /// a few n (rows), many n in a short range (table or lanes), many n
    /// spread wide (lanes), tiny n at the edges.
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

    /// Every path of `fill` — the rows (in registers and by lookup), the
    /// table, the lanes, problem by problem — gives the old scalar path's
    /// values bit for bit, in every dtype and layout, and stops at the
    /// first bad problem with its reason (c > n, n < 0, c < 0) wherever it
    /// is and whichever thread finds it.
    #[test]
    fn fill_equals_the_scalar_path() {
        let mut next = crate::fast::xorshift(0x2545_f491_4f6c_dd1d);
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

    /// Times [`fill`] on a million problems (pass@k: n distinct in
    /// [16, 10⁵), k = 16; n ∈ {8, 16, 64, 100, 1000}, k = 8), best and
    /// median of 200 calls, to compare kernels with less noise than
    /// Python: `RAYON_NUM_THREADS=1 cargo test --release fill_timing --
    /// --ignored --nocapture`.
    #[test]
    #[ignore]
    fn fill_timing() {
        let mut next = crate::fast::xorshift(0x9e37_79b9_7f4a_7c15);
        let len: usize = std::env::var("LEN").map_or(1_000_000, |l| l.parse().unwrap());
        let few = [8, 16, 64, 100, 1000];
        let cases: [(&str, u64, Vec<i64>); 2] = [
            (
                "distinct n",
                16,
                (0..len).map(|_| 16 + next(99_984) as i64).collect(),
            ),
            (
                "few n",
                8,
                (0..len).map(|_| few[next(5) as usize]).collect(),
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
            for _ in 0..200 * (1_000_000 / len).max(1) {
                times.push(time(&mut || {
                    assert_eq!(fill(Kind::PassAtK, k, &n, &c, &mut out), None);
                }));
                // A clock to compare with: reading both arrays, writing one.
                copies.push(time(&mut || {
                    for ((o, &n), &c) in out.iter_mut().zip(&n).zip(&c) {
                        *o = (n + c) as f64;
                    }
                }));
            }
            times.sort_by(f64::total_cmp);
            copies.sort_by(f64::total_cmp);
            let scale = 1_000_000.0 / len as f64;
            let (times, copies): (Vec<f64>, Vec<f64>) = (
                times.iter().map(|t| t * scale).collect(),
                copies.iter().map(|t| t * scale).collect(),
            );
            eprintln!(
                "{case}: best {:.3} q25 {:.3} median {:.3} ms (copy median {:.3} ms: ratio {:.2})",
                times[0],
                times[times.len() / 4],
                times[times.len() / 2],
                copies[copies.len() / 2],
                times[times.len() / 2] / copies[copies.len() / 2]
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
