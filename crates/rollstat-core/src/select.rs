//! maj@k for every k ≤ n: the exact expected majority-vote credit of a
//! uniformly random k-subset of a problem's rollouts, under each tie policy.
//!
//! A problem's vote is its [`VoteProfile`]: the answer cluster of each
//! rollout in rollout-index order (unextracted rollouts are in every count
//! but never vote) and each cluster's verdict. [`maj_at_ks`] returns
//! maj@1, …, maj@K from one dynamic program over clusters (and, for
//! [`TiePolicy::First`], over the positions of the winner's members); no
//! subset is enumerated and nothing is sampled. docs/statistics.md derives
//! it; in short, with `a_i` the cluster sizes, `u` the non-voters and `j`
//! the winning count:
//!
//! - `none`: Σ_{c correct} Σ_j C(a_c, j) · [x^{k−j}] Π_{i≠c} L_i^{(j)}(x) · (1+x)^u,
//!   where `L_i^{(j)} = Σ_{t<j} C(a_i, t) x^t` (every other cluster below j);
//! - `fractional`: the same with clusters tied at j allowed, each term
//!   weighted by 1/(number tied);
//! - `first`: the winner's first member in the subset at position p, every
//!   cluster tied with it having all its j members after p.
//!
//! Each sum is a count of subsets, divided by C(n, k). Counts are `f64`
//! (every term is non-negative, so no cancellation), which bounds n at
//! [`VOTE_DP_MAX_N`] (C(1000, 500) ≈ 2.7·10²⁹⁹); one problem's program
//! stops at [`VOTE_DP_MAX_WORK`] multiply-adds and reports [`NotComputed::TooMuchWork`].

use crate::vote::{ClusterTally, TiePolicy};
use std::cell::RefCell;
use std::sync::OnceLock;

/// Largest n (rollouts in the denominator) for which a [`VoteProfile`] is
/// kept and maj@k for k < n computed.
pub const VOTE_DP_MAX_N: usize = 1000;

/// Most multiply-adds one problem's maj@k program may take (about a second).
pub const VOTE_DP_MAX_WORK: u64 = 1_000_000_000;

/// What maj@k needs to know about one problem's vote: each cluster's size
/// and verdict, the number of rollouts, and — for [`TiePolicy::First`]
/// only — which cluster each rollout is in, in rollout order, packed in
/// ⌈log₂(clusters + 1)⌉ bits a rollout (4 bits for up to 15 clusters).
///
/// ```
/// use rollstat_core::select::VoteProfile;
/// // Answers A A B (unextracted) with A correct.
/// let p = VoteProfile::new(&[Some(0), Some(0), Some(1), None], &[Some(true), Some(true), Some(false), Some(false)]).unwrap();
/// assert_eq!((p.n(), p.sizes()), (4, &[2, 1][..]));
/// assert!(p.has_order() && !p.without_order().has_order());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VoteProfile {
    n: u16,
    /// Per cluster (ids dense, by first appearance): its size.
    sizes: Box<[usize]>,
    /// Per cluster: its first judged member was correct (as in maj@n).
    correct: Box<[bool]>,
    /// Cluster id + 1 of each rollout in rollout-index order (0: does not
    /// vote), when kept.
    order: Option<Packed>,
}

/// Small unsigned values packed `bits` to a value into words.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Packed {
    bits: u32,
    words: Box<[u64]>,
}

impl Packed {
    fn new(values: &[usize], max: usize) -> Packed {
        let bits = usize::BITS - max.leading_zeros();
        let bits = bits.max(1);
        let mut words = vec![0u64; (values.len() * bits as usize).div_ceil(64)];
        for (i, &v) in values.iter().enumerate() {
            let at = i * bits as usize;
            words[at / 64] |= (v as u64) << (at % 64);
            if at % 64 + bits as usize > 64 {
                words[at / 64 + 1] |= (v as u64) >> (64 - at % 64);
            }
        }
        Packed {
            bits,
            words: words.into(),
        }
    }

    /// The first `len` values in order (one pass over the words).
    fn iter(&self, len: usize) -> impl Iterator<Item = usize> + '_ {
        let (bits, mask) = (self.bits, (1u64 << self.bits) - 1);
        let mut words = self.words.iter();
        // Bits not yet read: the low `have` bits of `buf`.
        let (mut buf, mut have) = (0u128, 0u32);
        (0..len).map(move |_| {
            if have < bits {
                buf |= u128::from(*words.next().unwrap_or(&0)) << have;
                have += 64;
            }
            let v = buf as u64 & mask;
            (buf, have) = (buf >> bits, have - bits);
            v as usize
        })
    }
}

impl VoteProfile {
    /// The profile of rollouts with clusters `clusters` and verdicts
    /// `correct` (index order, as for [`crate::vote::majority_vote`]);
    /// `None` above [`VOTE_DP_MAX_N`] rollouts.
    pub fn new(clusters: &[Option<usize>], correct: &[Option<bool>]) -> Option<VoteProfile> {
        if clusters.len() > VOTE_DP_MAX_N {
            return None;
        }
        let tally = ClusterTally::of(clusters, correct);
        let mut dense = vec![usize::MAX; tally.size.len()];
        let (mut sizes, mut ok) = (Vec::new(), Vec::new());
        let ids: Vec<usize> = clusters
            .iter()
            .map(|c| {
                let Some(id) = *c else { return 0 };
                if dense[id] == usize::MAX {
                    dense[id] = ok.len();
                    ok.push(tally.verdict[id] == Some(true));
                    sizes.push(tally.size[id]);
                }
                dense[id] + 1
            })
            .collect();
        Some(VoteProfile {
            n: clusters.len() as u16,
            order: Some(Packed::new(&ids, ok.len())),
            sizes: sizes.into(),
            correct: ok.into(),
        })
    }

    /// The same profile without the rollout order, which only `first`
    /// reads: what `none` and `fractional` keep (O(clusters) memory).
    pub fn without_order(mut self) -> VoteProfile {
        self.order = None;
        self
    }

    /// Whether the rollout order is kept (maj@k under `first` needs it).
    pub fn has_order(&self) -> bool {
        self.order.is_some()
    }

    /// Number of rollouts (voting or not).
    pub fn n(&self) -> usize {
        usize::from(self.n)
    }

    /// Cluster sizes, by cluster id.
    pub fn sizes(&self) -> &[usize] {
        &self.sizes
    }
}

/// Why maj@k has no value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotComputed {
    /// The program would take more than [`VOTE_DP_MAX_WORK`] steps.
    TooMuchWork,
    /// `first` needs the rollout order, which the profile does not keep.
    NoOrder,
}

/// Counts multiply-adds against [`VOTE_DP_MAX_WORK`].
struct Budget(u64);

impl Budget {
    fn spend(&mut self, units: usize) -> Result<(), NotComputed> {
        self.0 = self.0.saturating_add(units as u64);
        if self.0 > VOTE_DP_MAX_WORK {
            return Err(NotComputed::TooMuchWork);
        }
        Ok(())
    }
}

/// Pascal's triangle up to [`VOTE_DP_MAX_N`] as `f64`, built once.
fn pascal() -> &'static [f64] {
    static TRIANGLE: OnceLock<Vec<f64>> = OnceLock::new();
    TRIANGLE.get_or_init(|| {
        let mut t = Vec::with_capacity((VOTE_DP_MAX_N + 1) * (VOTE_DP_MAX_N + 2) / 2);
        for n in 0..=VOTE_DP_MAX_N {
            let prev = t.len() - n.min(t.len());
            for k in 0..=n {
                let v = if k == 0 || k == n {
                    1.0
                } else {
                    t[prev + k - 1] + t[prev + k]
                };
                t.push(v);
            }
        }
        t
    })
}

/// Row n of Pascal's triangle: C(n, 0), …, C(n, n).
fn row(n: usize) -> &'static [f64] {
    let start = n * (n + 1) / 2;
    &pascal()[start..=start + n]
}

/// C(n, k) (0 for k > n).
#[inline]
fn binom(n: usize, k: usize) -> f64 {
    row(n).get(k).copied().unwrap_or(0.0)
}

/// maj@1, …, maj@K (element k − 1 is maj@k) with K = min(`k_max`, n):
/// the exact mean credit over all C(n, k) subsets, the subset's vote
/// credited under `tie` as maj@n credits the full vote.
///
/// ```
/// use rollstat_core::select::{maj_at_ks, VoteProfile};
/// use rollstat_core::vote::TiePolicy;
/// // AABBBC with A correct (docs/statistics.md's worked example).
/// let clusters = [0, 0, 1, 1, 1, 2].map(Some);
/// let correct = [true, true, false, false, false, false].map(Some);
/// let p = VoteProfile::new(&clusters, &correct).unwrap();
/// let none = maj_at_ks(&p, TiePolicy::None, 6).unwrap();
/// let want = [1.0 / 3.0, 1.0 / 15.0, 0.2, 0.2, 0.0, 0.0];
/// assert!(none.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-15));
/// ```
pub fn maj_at_ks(
    profile: &VoteProfile,
    tie: TiePolicy,
    k_max: usize,
) -> Result<Vec<f64>, NotComputed> {
    let n = profile.n();
    let k_max = k_max.min(n);
    SCRATCH.with_borrow_mut(|scratch| {
        let mut program = Program {
            profile,
            k_max,
            budget: Budget(0),
            s: scratch,
        };
        match tie {
            TiePolicy::First => program.counts_first()?,
            _ => program.counts_symmetric(tie)?,
        }
        let (counts, total) = (&scratch.joined.0, row(n));
        Ok((1..=k_max).map(|k| counts[k] / total[k]).collect())
    })
}

thread_local! {
    /// Each thread's buffers, reused from problem to problem so that a
    /// problem allocates only its result.
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Buffers of one program.
#[derive(Default)]
struct Scratch {
    /// Cluster ids, largest first (ties by id).
    by_size: Vec<usize>,
    /// The clusters multiplied out at the current count j: the first
    /// `cursor` of `by_size` (`held` rollouts), less the winner under
    /// `first`; the `split` correct ones first.
    big: Vec<usize>,
    cursor: usize,
    held: usize,
    split: usize,
    /// The buffers of [`Joined`] (the counts, when done).
    joined: (Vec<f64>, Vec<f64>),
    /// Polynomial tables: layers by tied count.
    table: Vec<f64>,
    next: Vec<f64>,
    /// `first`: per cluster, its members after the winner's first
    /// member; the clusters of the voters between the winner's members
    /// and where they sit (see [`Program::fill_before`]).
    start_after: Vec<usize>,
    between: Vec<usize>,
    between_r: Vec<usize>,
    /// `first`: the clusters but the winner, by their members after its
    /// first member (then id).
    by_after: Vec<usize>,
    /// `first`: per cluster, its members after the current member, its
    /// place among the rivals, and running sums of the tie weights.
    after: Vec<usize>,
    pos: Vec<usize>,
    since: Vec<f64>,
    sums: Vec<f64>,
    /// `first`: the counts summed over the correct clusters.
    counts: Vec<f64>,
    /// `first`: per-rival scalars; the cells, the coefficients of each
    /// rival's factor and the degree of each level of [`Levels`].
    weights: Vec<f64>,
    levels: LevelTable,
    taps: Vec<f64>,
    degrees: Vec<usize>,
}

/// One problem's program: its profile, the largest k, the work done.
struct Program<'a> {
    profile: &'a VoteProfile,
    k_max: usize,
    budget: Budget,
    s: &'a mut Scratch,
}

/// `y[i] += a · x[i]` over the shorter of the two.
#[inline]
fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    for (o, &v) in y.iter_mut().zip(x) {
        *o += a * v;
    }
}

/// Adds `src` (degree `deg`) times L(x) = Σ_{d<j} C(a, d) x^d to `dst`,
/// truncated at dst's length (the caller has cleared dst that far).
#[inline]
fn add_times_below(src: &[f64], deg: usize, a: usize, j: usize, dst: &mut [f64]) {
    let top = dst.len() - 1;
    for (d, &b) in row(a).iter().enumerate().take(j.min(top + 1)) {
        axpy(b, &src[..=deg.min(top - d)], &mut dst[d..]);
    }
}

/// Sets (`ADD` false) or adds to `out[k]`, for every k < out.len(),
/// Σ_d taps[d] · src[k − d]: the coefficient k of src times a rival's
/// factor L(x) + t·x^j (taps C(a, 0), …, C(a, j − 1), t), where `padded`
/// holds j zeros, then src (degree `deg`), then zeros through
/// src[out.len() − 1]. One pass
/// over the output with the terms of a coefficient in registers, unrolled
/// for N = j + 1 taps: no per-term slice set-up, which would dominate at
/// the low degrees most of these products have (N = 0: any number of taps,
/// one term at a time over the whole output).
#[inline(never)]
fn convolve<const N: usize, const ADD: bool>(
    padded: &[f64],
    deg: usize,
    taps: &[f64],
    out: &mut [f64],
) {
    if N == 0 {
        // Many taps: term by term over src's coefficients (vectorizes).
        let j = taps.len() - 1;
        if !ADD {
            out.fill(0.0);
        }
        let src = &padded[j..=j + deg];
        for (d, &t) in taps.iter().enumerate().take(out.len()) {
            axpy(t, src, &mut out[d..]);
        }
        return;
    }
    let taps: &[f64; N] = taps.try_into().expect("N taps");
    for (o, w) in out.iter_mut().zip(padded.windows(N)) {
        let w: &[f64; N] = w.try_into().expect("a window of N");
        let mut acc = 0.0;
        for d in 0..N {
            acc += taps[d] * w[N - 1 - d];
        }
        *o = if ADD { *o + acc } else { acc };
    }
}

/// Adds `src` (degree `deg`) times `coef`·x^j to `dst` (truncated).
#[inline]
fn add_times_tied(src: &[f64], deg: usize, coef: f64, j: usize, dst: &mut [f64]) {
    let top = dst.len() - 1;
    if j <= top && coef != 0.0 {
        axpy(coef, &src[..=deg.min(top - j)], &mut dst[j..]);
    }
}

/// Σ_j G_j(x)·(1+x)^{m_j}: winning draws G_j from the tracked clusters,
/// joined by the m_j rollouts outside them (any number of which may be in
/// the subset). Fed with m_j non-increasing, the sum so far is kept divided
/// by (1+x)^{m}, so the whole join multiplies by (1+x)^d for steps d
/// summing to at most n, each over the sum's degree (≤ K).
struct Joined {
    poly: Vec<f64>,
    spare: Vec<f64>,
    deg: usize,
    m: usize,
}

impl Joined {
    /// An empty sum in the buffers `(poly, spare)`, up to degree `k_max`.
    fn new((mut poly, mut spare): (Vec<f64>, Vec<f64>), k_max: usize) -> Joined {
        for v in [&mut poly, &mut spare] {
            v.clear();
            v.resize(k_max + 1, 0.0);
        }
        Joined {
            poly,
            spare,
            deg: 0,
            m: usize::MAX,
        }
    }

    /// Continues at `m` free rollouts (never more than before).
    fn shift_to(&mut self, m: usize, budget: &mut Budget) -> Result<(), NotComputed> {
        let d = if self.m == usize::MAX { 0 } else { self.m - m };
        self.m = m;
        if d == 0 {
            return Ok(());
        }
        let deg = (self.deg + d).min(self.poly.len() - 1);
        budget.spend((deg + 1) * d.min(deg + 1))?;
        // Both buffers are zero above the degree they last held (never
        // above the current one), so only cells up to `deg` are written.
        let (poly, out) = (&self.poly, &mut self.spare[..=deg]);
        if d == 1 {
            // Coefficient k + 1 of (1+x)·P: p_{k+1} + p_k (vectorizes).
            out[0] = poly[0];
            for (o, (a, b)) in out[1..].iter_mut().zip(poly[1..].iter().zip(poly)) {
                *o = a + b;
            }
        } else {
            // Times (1+x)^d at once: Σ_e C(d, e) x^e.
            out.fill(0.0);
            for (e, &b) in row(d).iter().enumerate().take(deg + 1) {
                axpy(b, &poly[..=self.deg.min(deg - e)], &mut out[e..]);
            }
        }
        std::mem::swap(&mut self.poly, &mut self.spare);
        self.deg = deg;
        Ok(())
    }

    /// Adds `coef` · `g` (degree `deg`) · x^j.
    fn add(&mut self, j: usize, coef: f64, g: &[f64], deg: usize) {
        axpy(coef, &g[..=deg], &mut self.poly[j..]);
        self.deg = self.deg.max((j + deg).min(self.poly.len() - 1));
    }

    /// The counts by subset size k, and the buffers back.
    fn finish(mut self, budget: &mut Budget) -> Result<(Vec<f64>, Vec<f64>), NotComputed> {
        self.shift_to(0, budget)?;
        Ok((self.poly, self.spare))
    }
}

impl Program<'_> {
    /// Extends `s.big` to the clusters of size ≥ j (j only decreases
    /// between [`Program::reset_big`]s), leaving out `skip`, with the
    /// correct ones first (`s.split` of them); returns the rollouts outside
    /// them (free at j).
    fn big_at(&mut self, j: usize, skip: Option<usize>) -> usize {
        let (sizes, correct) = (self.profile.sizes(), &self.profile.correct);
        let s = &mut *self.s;
        while let Some(&i) = s.by_size.get(s.cursor).filter(|&&i| sizes[i] >= j) {
            s.cursor += 1;
            s.held += sizes[i];
            if Some(i) == skip {
                continue;
            }
            if correct[i] {
                s.big.insert(s.split, i);
                s.split += 1;
            } else {
                s.big.push(i);
            }
        }
        self.profile.n() - s.held
    }

    /// Starts `s.big` empty (at j above every cluster).
    fn reset_big(&mut self) {
        let s = &mut *self.s;
        s.big.clear();
        (s.cursor, s.held, s.split) = (0, 0, 0);
    }

    /// Sorts the clusters by size (largest first; correct first among
    /// equal sizes, then by id).
    fn sort_by_size(&mut self) {
        let (sizes, correct) = (self.profile.sizes(), &self.profile.correct);
        let order = &mut self.s.by_size;
        order.clear();
        order.extend(0..sizes.len());
        order.sort_unstable_by_key(|&i| (std::cmp::Reverse(sizes[i]), !correct[i], i));
    }

    /// Winning counts (index k) for `none` and `fractional`: for each
    /// winning count j, from the largest down, the clusters of size ≥ j are
    /// multiplied out ([`Program::tied_top`]); the others and the
    /// non-voters are free ([`Joined`]).
    fn counts_symmetric(&mut self, tie: TiePolicy) -> Result<(), NotComputed> {
        let (sizes, correct) = (self.profile.sizes(), &self.profile.correct);
        let correct_max = (0..sizes.len())
            .filter(|&i| correct[i])
            .map(|i| sizes[i])
            .max()
            .unwrap_or(0);
        self.sort_by_size();
        self.reset_big();
        let mut joined = Joined::new(std::mem::take(&mut self.s.joined), self.k_max);
        for j in (1..=correct_max.min(self.k_max)).rev() {
            let m = self.big_at(j, None);
            joined.shift_to(m, &mut self.budget)?;
            self.tied_top(j, tie, &mut joined)?;
        }
        self.s.joined = joined.finish(&mut self.budget)?;
        Ok(())
    }

    /// Adds G_j: the weighted ways to draw from the clusters `s.big` so
    /// that the top count is j and the credit goes to a correct cluster.
    ///
    /// Two tables of layers by the number T of clusters at j: all draws
    /// (`p0`) and the part in which one correct cluster at j is marked as
    /// the credited one (`p1`, the ε-part of a dual number), so any number
    /// of correct clusters costs one pass. Correct clusters come first in
    /// `s.big` (within a size; and the largest correct one first overall
    /// once the clusters below it are excluded), and `p0` is dropped after
    /// the last correct cluster: with one correct cluster the program is
    /// one product over its rivals. Under `none` only T = 0 (`p0`) and
    /// T = 1 (`p1`) are kept.
    fn tied_top(
        &mut self,
        j: usize,
        tie: TiePolicy,
        joined: &mut Joined,
    ) -> Result<(), NotComputed> {
        let (sizes, correct) = (self.profile.sizes(), &self.profile.correct);
        let s = &mut *self.s;
        // Correct clusters first: p0 is needed only until the last one.
        let split = s.split;
        if let [only] = s.big[..] {
            // One cluster reaches j: it wins alone with any j of its members.
            if correct[only] {
                joined.poly[j] += binom(sizes[only], j);
                joined.deg = joined.deg.max(j);
            }
            return Ok(());
        }
        let k_max = self.k_max;
        let layers = match tie {
            TiePolicy::None => 2,
            _ => s.big.len().min(k_max / j) + 1,
        };
        let len = k_max + 1;
        // Layer T of p0 at [T·len], of p1 at [(layers + T)·len]; only the
        // layers up to `tied` and degrees up to `deg` are ever read.
        let lay = Layers {
            j,
            len,
            p1: layers * len,
            lone: tie == TiePolicy::None,
        };
        for v in [&mut s.table, &mut s.next] {
            if v.len() < 2 * lay.p1 {
                v.resize(2 * lay.p1, 0.0);
            }
        }
        s.table[0] = 1.0;
        let mut was = Folded {
            deg: 0,
            tied: 0,
            marked: false,
        };
        for (idx, &i) in s.big.iter().enumerate() {
            let keep_p0 = idx + 1 < split;
            let next = Folded {
                deg: (was.deg + j).min(k_max),
                tied: (was.tied + 1).min(layers - 1),
                marked: was.marked || correct[i],
            };
            let tables = (next.tied + 1) * (was.marked as usize + keep_p0 as usize);
            self.budget.spend((was.deg + 1) * (j + 1) * tables.max(1))?;
            let cluster = (sizes[i], correct[i]);
            fold_cluster(&s.table, &mut s.next, lay, (was, next), keep_p0, cluster);
            std::mem::swap(&mut s.table, &mut s.next);
            was = next;
        }
        add_marked_layers(&s.table, lay, was, tie, joined);
        Ok(())
    }
}

/// Adds the marked draws (p1) of every layer T ≥ 1 to `joined`. In layer
/// T the credited cluster is tied with T − 1 others: its draws weigh 1/T
/// under `fractional`, 1 otherwise.
fn add_marked_layers(table: &[f64], lay: Layers, was: Folded, tie: TiePolicy, joined: &mut Joined) {
    let len = lay.len;
    for t in 1..=was.tied {
        let w = match tie {
            TiePolicy::Fractional => 1.0 / t as f64,
            _ => 1.0,
        };
        let layer = &table[lay.p1 + t * len..lay.p1 + (t + 1) * len];
        axpy(w, &layer[..=was.deg], &mut joined.poly[..]);
    }
    joined.deg = joined.deg.max(was.deg);
}

/// The layout of [`Program::tied_top`]'s tables at top count `j`: layer T
/// of p0 at `[T·len]`, of p1 at `[p1 + T·len]`; under `none` (`lone`) only
/// T = 0 of p0 and T = 1 of p1 are kept.
#[derive(Clone, Copy)]
struct Layers {
    j: usize,
    len: usize,
    p1: usize,
    lone: bool,
}

/// What the tables hold after some clusters: polynomial degree, highest
/// layer (clusters tied at j), and whether a correct cluster was seen.
#[derive(Clone, Copy)]
struct Folded {
    deg: usize,
    tied: usize,
    marked: bool,
}

/// One cluster (its size and correctness) folded from `src` into `dst`,
/// layer by layer: below j it multiplies by L_i; at j it joins the tied
/// clusters (one layer up), and if correct it may be the marked one.
fn fold_cluster(
    src: &[f64],
    dst: &mut [f64],
    lay: Layers,
    (was, next): (Folded, Folded),
    keep_p0: bool,
    (size, correct): (usize, bool),
) {
    let (j, len) = (lay.j, lay.len);
    let b = binom(size, j);
    for t in 0..=next.tied {
        if t >= 1 && (!lay.lone || t == 1) {
            // p1: marked draws times L_i, or with i at j as one
            // more tied cluster, or i itself marked (correct).
            let at = lay.p1 + t * len;
            let out = &mut dst[at..=at + next.deg];
            out.fill(0.0);
            if was.marked && t <= was.tied {
                add_times_below(&src[at..], was.deg, size, j, out);
            }
            if was.marked && !lay.lone && t >= 2 {
                add_times_tied(&src[at - len..], was.deg, b, j, out);
            }
            if correct {
                add_times_tied(&src[(t - 1) * len..], was.deg, b, j, out);
            }
        }
        if keep_p0 && (!lay.lone || t == 0) {
            let out = &mut dst[t * len..=t * len + next.deg];
            out.fill(0.0);
            if t <= was.tied {
                add_times_below(&src[t * len..], was.deg, size, j, out);
            }
            if t >= 1 {
                add_times_tied(&src[(t - 1) * len..], was.deg, b, j, out);
            }
        }
    }
}

impl Program<'_> {
    /// Winning counts for `first`: per correct cluster c and winning count
    /// j, over the member r of c that is c's first in the subset (the other
    /// j − 1 come from c's later members), every rival that also reaches j
    /// must have all j members after r's position.
    fn counts_first(&mut self) -> Result<(), NotComputed> {
        let (sizes, correct) = (self.profile.sizes(), &self.profile.correct);
        self.sort_by_size();
        let mut counts = std::mem::take(&mut self.s.counts);
        counts.clear();
        counts.resize(self.k_max + 1, 0.0);
        for c in (0..sizes.len()).filter(|&c| correct[c]) {
            self.fill_before(c)?;
            self.reset_big();
            let mut joined = Joined::new(std::mem::take(&mut self.s.joined), self.k_max);
            for j in (1..=sizes[c].min(self.k_max)).rev() {
                let m = self.big_at(j, Some(c));
                joined.shift_to(m, &mut self.budget)?;
                self.first_wins(c, j, &mut joined)?;
            }
            let (poly, spare) = joined.finish(&mut self.budget)?;
            axpy(1.0, &poly, &mut counts);
            self.s.joined = (poly, spare);
        }
        // The result is read from `joined.0`; the sum's buffer is kept.
        std::mem::swap(&mut self.s.joined.0, &mut counts);
        self.s.counts = counts;
        Ok(())
    }

    /// Where c's members sit among the other voters: `s.start_after[i]`,
    /// cluster i's members after c's first member, and in rollout order
    /// the voters between c's first and last members: cluster `s.between`
    /// and `s.between_r`, the r (≥ 1) with the voter between c's members
    /// r − 1 and r.
    fn fill_before(&mut self, c: usize) -> Result<(), NotComputed> {
        let order = self.profile.order.as_ref().ok_or(NotComputed::NoOrder)?;
        let (sizes, n) = (self.profile.sizes(), self.profile.n());
        let (a_c, m) = (sizes[c], sizes.len());
        let s = &mut *self.s;
        // Without branches on the (random) cluster of each voter: every
        // voter is written and kept only if between c's members; a
        // non-voter counts against a spare cell m.
        s.start_after.clear();
        s.start_after.extend_from_slice(sizes);
        s.start_after.push(n);
        s.between.clear();
        s.between.resize(n, 0);
        s.between_r.clear();
        s.between_r.resize(n, 0);
        let (mut seen, mut kept) = (0, 0);
        for raw in order.iter(n) {
            let id = if raw == 0 { m } else { raw - 1 };
            seen += usize::from(id == c);
            if seen == a_c {
                break;
            }
            s.start_after[id] -= usize::from(seen == 0);
            (s.between[kept], s.between_r[kept]) = (id, seen);
            kept += usize::from(seen > 0 && id != c && id != m);
        }
        s.start_after.truncate(m);
        s.between.truncate(kept);
        s.between_r.truncate(kept);
        let start_after = &s.start_after;
        s.by_after.clear();
        s.by_after
            .extend((0..start_after.len()).filter(|&i| i != c));
        s.by_after.sort_unstable_by_key(|&i| (start_after[i], i));
        s.after.clear();
        s.after.extend_from_slice(start_after);
        s.pos.clear();
        s.pos.resize(start_after.len(), usize::MAX);
        Ok(())
    }

    /// Adds to `joined` the ways cluster c wins with j members under
    /// `first`, against the rivals in `s.big`:
    /// Σ_r C(a_c − 1 − r, j − 1) · x^j · Π_i (L_i(x) + C(after_i(r), j) x^j).
    ///
    /// Degrees above K − j are never needed, so at most ⌊(K − j)/j⌋ rivals
    /// can tie with c. With none, the sum over r is C(a_c, j) (hockey
    /// stick); with at most one, the product is linear in the tie terms
    /// and the sum over r folds into one weight per rival; otherwise the
    /// products of the runs of c's members with the same rival keys are
    /// summed by [`Levels`].
    fn first_wins(&mut self, c: usize, j: usize, joined: &mut Joined) -> Result<(), NotComputed> {
        let a_c = self.profile.sizes()[c];
        let top = self.k_max - j;
        let rivals = self.s.big.len();
        let can_tie = rivals.min(top / j);
        if rivals == 0 {
            joined.add(j, binom(a_c, j), &[1.0], 0);
            return Ok(());
        }
        if can_tie >= 2 {
            return self.first_by_runs(c, j, joined);
        }
        self.s.weights.clear();
        if can_tie == 1 {
            self.tie_weights(a_c, j);
        }
        let deg = self.below_and_one_tied(j, top)?;
        let len = top + 1;
        joined.add(j, binom(a_c, j), &self.s.table, deg);
        if can_tie == 1 {
            joined.add(j, 1.0, &self.s.table[len..], deg);
        }
        Ok(())
    }

    /// Per rival i (in `s.big` order) into `s.weights`:
    /// Σ_r C(a_c − 1 − r, j − 1) · C(after_i(r), j), r = 0..=a_c − j, in
    /// one pass over the voters between c's members (after_i is constant
    /// between them; the weights of the r it holds for are summed).
    fn tie_weights(&mut self, a_c: usize, j: usize) {
        let s = &mut *self.s;
        let (tri, m) = (pascal(), s.start_after.len());
        s.after.copy_from_slice(&s.start_after);
        for v in [&mut s.since, &mut s.sums] {
            v.clear();
            v.resize(m, 0.0);
        }
        let (after, since, sums) = (&mut s.after[..], &mut s.since[..], &mut s.sums[..]);
        let mut weights = MemberWeights::new(a_c, j);
        let mut cum = 0.0; // Σ_{r' < r} C(a_c − 1 − r', j − 1)
        for (&id, &r) in s.between.iter().zip(&s.between_r) {
            if r > a_c - j {
                break;
            }
            if after[id] >= j {
                cum += weights.up_to(r);
                sums[id] += binom_in(tri, after[id], j) * (cum - since[id]);
                since[id] = cum;
            }
            after[id] -= 1;
        }
        cum += weights.up_to(a_c - j + 1);
        s.weights.extend(
            s.big
                .iter()
                .map(|&i| sums[i] + tie_count(tri, after[i], j) * (cum - since[i])),
        );
    }

    /// Π_i L_i(x) over the rivals `s.big` into `s.table[..=top]`, and, when
    /// `s.weights` holds a weight w_i per rival, Σ_i w_i x^j Π_{l≠i} L_l(x)
    /// into the next `top + 1` cells. Returns the degree reached.
    fn below_and_one_tied(&mut self, j: usize, top: usize) -> Result<usize, NotComputed> {
        let sizes = self.profile.sizes();
        let Scratch {
            big,
            table,
            next,
            weights,
            ..
        } = &mut *self.s;
        let len = top + 1;
        let layers = if weights.is_empty() { 1 } else { 2 };
        for v in [&mut *table, &mut *next] {
            if v.len() < layers * len {
                v.resize(layers * len, 0.0);
            }
        }
        table[0] = 1.0;
        let mut deg = 0;
        for (idx, &i) in big.iter().enumerate() {
            // Π L_i gains j − 1 a rival; the tied layer j.
            let new_deg = (deg + j + layers - 2).min(top);
            self.budget.spend((deg + 1) * (j + 1) * layers)?;
            let out = &mut next[..=new_deg];
            out.fill(0.0);
            add_times_below(table, deg, sizes[i], j, out);
            if layers == 2 {
                let out = &mut next[len..=len + new_deg];
                out.fill(0.0);
                if idx > 0 {
                    add_times_below(&table[len..], deg, sizes[i], j, out);
                }
                add_times_tied(table, deg, weights[idx], j, out);
            }
            std::mem::swap(table, next);
            deg = new_deg;
        }
        Ok(deg)
    }

    /// `first` with two or more rivals able to tie:
    /// Σ_r w_r Π_i (L_i + t_i(r) x^j), t_i(r) = C(key_i(r), j), key_i(r) =
    /// rival i's members after c's r-th member (0 once fewer than j: it can
    /// no longer tie), w_r = C(a_c − 1 − r, j − 1). A key changes only where
    /// a rival's member sits between c's members r − 1 and r; consecutive r
    /// with the same keys form a run, whose weights are summed. The sum is
    /// accumulated by [`Levels`] (factors that change least outermost), so a
    /// change costs one product per factor inside the changed one, at the
    /// degree of those inner factors only.
    fn first_by_runs(
        &mut self,
        c: usize,
        j: usize,
        joined: &mut Joined,
    ) -> Result<(), NotComputed> {
        let sizes = self.profile.sizes();
        let (a_c, top) = (sizes[c], self.k_max - j);
        self.order_rivals(j);
        let s = &mut *self.s;
        let (after, pos) = (&mut s.after[..], &s.pos[..]);
        after.copy_from_slice(&s.start_after);
        let buffers = (&mut s.levels, &mut s.degrees, &mut s.taps);
        let mut levels = Levels::new(buffers, s.big.len(), (j, top + 1, self.k_max));
        let triangle = pascal();
        for &i in &s.big {
            levels.push_rival(sizes[i], tie_count(triangle, after[i], j));
        }
        let mut weights = MemberWeights::new(a_c, j);
        // The voters between c's members r − 1 and r, for each r in turn
        // (then a mark past the last r): a run ends before r if one of
        // them changes a rival's key.
        let (last, mut r, mut first) = (a_c - j, 0, usize::MAX);
        let events = s.between.iter().zip(&s.between_r);
        let events = events.take_while(|&(_, &at)| at <= last);
        for (&id, &at) in events.chain([(&0, &(last + 1))]) {
            if at != r {
                if first != usize::MAX {
                    levels.close(weights.up_to(r), first, &mut self.budget)?;
                    for (t, &i) in s.big.iter().enumerate().skip(first) {
                        levels.set_tie(t, tie_count(triangle, after[i], j));
                    }
                }
                if at > last {
                    break;
                }
                (r, first) = (at, usize::MAX);
            }
            if after[id] >= j {
                first = first.min(pos[id]);
            }
            after[id] -= 1;
        }
        levels.close(weights.up_to(last + 1), 0, &mut self.budget)?;
        let (total, deg) = levels.total();
        joined.add(j, 1.0, total, deg);
        Ok(())
    }

    /// Puts the rivals at j (the clusters of at least j members but c) in
    /// `s.big` in the order of their members after c's first member (a
    /// bound on how often their key changes; fewest outermost, see
    /// [`Levels`]), and each one's place in `s.pos`.
    fn order_rivals(&mut self, j: usize) {
        let sizes = self.profile.sizes();
        let s = &mut *self.s;
        s.big.clear();
        s.big
            .extend(s.by_after.iter().copied().filter(|&i| sizes[i] >= j));
        for (t, &i) in s.big.iter().enumerate() {
            s.pos[i] = t;
        }
    }
}

/// The weights w_r = C(a_c − 1 − r, j − 1) of c's member r (0-based) as
/// its first in the subset (the other j − 1 from its later members),
/// summed over consecutive r.
struct MemberWeights {
    triangle: &'static [f64],
    a_c: usize,
    j: usize,
    /// The r the next sum starts at.
    next: usize,
    /// Every C(m, j) with m ≤ a_c is an integer below 2⁵³ (exact in f64).
    exact: bool,
}

impl MemberWeights {
    /// The weights of a cluster of `a_c` members winning with `j`.
    fn new(a_c: usize, j: usize) -> MemberWeights {
        MemberWeights {
            triangle: pascal(),
            a_c,
            j,
            next: 0,
            exact: binom(a_c, j) < 9_007_199_254_740_992.0,
        }
    }

    /// Σ w_r from where the last sum ended up to `end` (exclusive; r ends
    /// at a_c − j): by the hockey-stick identity C(a_c − next, j) −
    /// C(a_c − end, j) where that is exact (the same value as the sum),
    /// else summed in increasing r.
    fn up_to(&mut self, end: usize) -> f64 {
        let (a_c, j, tri) = (self.a_c, self.j, self.triangle);
        let end = end.min(a_c + 1 - j);
        if end <= self.next {
            return 0.0;
        }
        let start = std::mem::replace(&mut self.next, end);
        if self.exact {
            // a_c − end ≥ j − 1; C(j − 1, j) = 0.
            return binom_in(tri, a_c - start, j) - tie_count(tri, a_c - end, j);
        }
        let mut sum = 0.0;
        for r in start..end {
            sum += binom_in(tri, a_c - 1 - r, j - 1);
        }
        sum
    }
}

/// C(n, k) from the triangle `tri` ([`pascal`]), k ≤ n.
#[inline]
fn binom_in(tri: &[f64], n: usize, k: usize) -> f64 {
    tri[n * (n + 1) / 2 + k]
}

/// C(key, j) for a rival with `after` members after the winner's current
/// first member: the ways it ties at j and loses (0 below j).
#[inline]
fn tie_count(tri: &[f64], after: usize, j: usize) -> f64 {
    if after >= j {
        binom_in(tri, after, j)
    } else {
        0.0
    }
}

/// Σ over runs of w · Π_t f_t (the rivals' factors f_t = L_t + t_t x^j
/// by place t = 0..R) without recomputing the whole product per run:
/// level t holds S_t, the weighted sum of Π_{u≥t} f_u over the runs since
/// f_0, …, f_{t−1} last changed (level R: the summed weights). When the
/// factor at place p changes, levels R − 1 down to p take in the level
/// below (S_t += f_t · S_{t+1}, with f_t as it was) and the levels below p
/// start empty. At the end S_0 is the sum. All terms are non-negative (no
/// cancellation).
///
/// Level t's cells start after zero cells (at least j, see [`LevelTable`])
/// and are zero for j cells above its degree, so [`convolve`] reads it
/// padded.
struct Levels<'a> {
    table: &'a mut LevelTable,
    /// Per level, its degree ([`EMPTY`]: nothing summed yet).
    degrees: &'a mut Vec<usize>,
    /// Per place, the factor's j + 1 coefficients.
    taps: &'a mut Vec<f64>,
    j: usize,
    len: usize,
}

/// The degree of a level that holds nothing.
const EMPTY: usize = usize::MAX;

/// The cells of [`Levels`]: level t at `t · stride + pad`, each after `pad`
/// cells that are never written, so they stay zero for as long as the
/// layout does (for every problem with the same largest k), and no level
/// has to be cleared.
#[derive(Default)]
struct LevelTable {
    cells: Vec<f64>,
    pad: usize,
    stride: usize,
}

impl LevelTable {
    /// At least `levels` levels of `cells` cells after `pad` zeros.
    fn reserve(&mut self, levels: usize, pad: usize, cells: usize) {
        if pad > self.pad || pad + cells > self.stride {
            self.cells.clear();
            (self.pad, self.stride) = (pad, pad + cells);
        }
        let size = levels * self.stride;
        if self.cells.len() < size {
            self.cells.resize(size, 0.0);
        }
    }
}

impl<'a> Levels<'a> {
    /// Levels for `rivals` factors tied at `j`, `len` cells each, in
    /// `table` laid out for any j and len of a program up to degree
    /// `k_max`. No factors yet: [`Levels::push_rival`] adds them.
    fn new(
        (table, degrees, taps): (&'a mut LevelTable, &'a mut Vec<usize>, &'a mut Vec<f64>),
        rivals: usize,
        (j, len, k_max): (usize, usize, usize),
    ) -> Levels<'a> {
        // j ≤ k_max / 3 with two rivals able to tie (see first_wins).
        table.reserve(rivals, j.max(k_max / 3 + 1), len.max(k_max + 1));
        degrees.clear();
        taps.clear();
        Levels {
            table,
            degrees,
            taps,
            j,
            len,
        }
    }

    /// Adds the factor of a rival of `size` (at least j) members with tie
    /// count `tie` as the innermost.
    fn push_rival(&mut self, size: usize, tie: f64) {
        self.taps.extend_from_slice(&row(size)[..self.j]);
        self.taps.push(tie);
        self.degrees.push(EMPTY);
    }

    /// Sets the tie count of the factor at place `t`.
    fn set_tie(&mut self, t: usize, tie: f64) {
        self.taps[t * (self.j + 1) + self.j] = tie;
    }

    /// Ends a run of weight `weight` before the factor at place `from`
    /// changes: the innermost level takes the weight, and each level from
    /// R − 1 down to `from` takes in the one below it.
    fn close(&mut self, weight: f64, from: usize, budget: &mut Budget) -> Result<(), NotComputed> {
        match self.j {
            1 => self.close_n::<2>(weight, from, budget),
            2 => self.close_n::<3>(weight, from, budget),
            3 => self.close_n::<4>(weight, from, budget),
            4 => self.close_n::<5>(weight, from, budget),
            5 => self.close_n::<6>(weight, from, budget),
            6 => self.close_n::<7>(weight, from, budget),
            7 => self.close_n::<8>(weight, from, budget),
            8 => self.close_n::<9>(weight, from, budget),
            _ => self.close_n::<0>(weight, from, budget),
        }
    }

    /// [`Levels::close`] for factors of N = j + 1 coefficients (0: any).
    #[inline(never)]
    fn close_n<const N: usize>(
        &mut self,
        weight: f64,
        from: usize,
        budget: &mut Budget,
    ) -> Result<(), NotComputed> {
        let inner = self.degrees.len();
        // Level R − 1 takes in the weight (level R) times its factor.
        self.take_in::<N>(inner - 1, weight);
        let mut work = self.j + 1;
        for t in (from..inner - 1).rev() {
            work += (self.degrees[t + 1] + 1) * (self.j + 1);
            self.take_in::<N>(t, 0.0);
        }
        budget.spend(work)
    }

    /// Level t += its factor times level t + 1, which is then empty (level
    /// R: `weight`).
    #[inline(always)]
    fn take_in<const N: usize>(&mut self, t: usize, weight: f64) {
        let (j, len, n) = (self.j, self.len, self.j + 1);
        let (pad, stride) = (self.table.pad, self.table.stride);
        let innermost = t + 1 == self.degrees.len();
        let deg = if innermost { 0 } else { self.degrees[t + 1] };
        let taps = &self.taps[t * n..(t + 1) * n];
        let new_deg = (deg + j - usize::from(taps[j] == 0.0)).min(len - 1);
        let (outer, inside) = self.table.cells.split_at_mut((t + 1) * stride);
        let level = &mut outer[t * stride + pad..(t + 1) * stride];
        let (had, zero_to) = (self.degrees[t], (new_deg + j).min(len - 1));
        let add = had != EMPTY;
        if add && new_deg > had {
            level[had + 1..=zero_to].fill(0.0);
        }
        let out = &mut level[..=new_deg];
        match (innermost, add) {
            (true, false) => out.iter_mut().zip(taps).for_each(|(o, c)| *o = weight * c),
            (true, true) => out.iter_mut().zip(taps).for_each(|(o, c)| *o += weight * c),
            (false, false) => convolve::<N, false>(&inside[pad - j..], deg, taps, out),
            (false, true) => convolve::<N, true>(&inside[pad - j..], deg, taps, out),
        }
        if !add {
            zero_tail::<N>(&mut level[new_deg + 1..=zero_to]);
        }
        self.degrees[t] = if add { had.max(new_deg) } else { new_deg };
        if !innermost {
            self.degrees[t + 1] = EMPTY;
        }
    }

    /// The sum (level 0) and its degree.
    fn total(&self) -> (&[f64], usize) {
        let (deg, pad) = (self.degrees[0], self.table.pad);
        (&self.table.cells[pad..=pad + deg], deg)
    }
}

/// Zeros `cells`, at most N − 1 of them (any number for N = 0), without a
/// call to memset for the few cells this is.
#[inline(always)]
fn zero_tail<const N: usize>(cells: &mut [f64]) {
    if N == 0 {
        cells.fill(0.0);
        return;
    }
    for d in 0..N - 1 {
        if let Some(v) = cells.get_mut(d) {
            *v = 0.0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `a` times `b`, truncated at `len` coefficients.
    fn times(a: &[f64], b: &[f64], len: usize) -> Vec<f64> {
        let mut out = vec![0.0; len.min(a.len() + b.len() - 1)];
        for (i, x) in a.iter().enumerate() {
            for (k, y) in b.iter().enumerate() {
                if let Some(o) = out.get_mut(i + k) {
                    *o += x * y;
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        /// [`Levels`] sums the runs' products as multiplying each run's
        /// factors out does (to rounding: all terms are positive), for j up
        /// to 10 (the unrolled kernels and the general one), any truncation,
        /// runs changing any factor, and the table reused across layouts.
        #[test]
        fn levels_sum_the_products_of_every_run(
            j in 1usize..=10,
            extra in 0usize..12,
            more in prop::collection::vec(0usize..4, 2..=6),
            runs in prop::collection::vec((1u32..=5, 0usize..8, prop::collection::vec(0usize..14, 6)), 1..=6),
        ) {
            let (k_max, rivals) = (3 * j + extra, more.len());
            let len = k_max - j + 1;
            let sizes: Vec<usize> = more.iter().map(|&m| j + m).collect();
            let (mut table, mut degrees, mut taps) = (LevelTable::default(), Vec::new(), Vec::new());
            let buffers = (&mut table, &mut degrees, &mut taps);
            let mut levels = Levels::new(buffers, rivals, (j, len, k_max));
            let mut ties = vec![0.0; rivals];
            for &a in &sizes {
                levels.push_rival(a, 0.0);
            }
            let (mut want, mut budget) = (vec![0.0; len], Budget(0));
            for (run, (weight, from, new_ties)) in runs.iter().enumerate() {
                let weight = f64::from(*weight);
                let mut product = vec![weight];
                for (&a, &t) in sizes.iter().zip(&ties) {
                    let mut factor = row(a)[..j].to_vec();
                    factor.push(t);
                    product = times(&product, &factor, len);
                }
                axpy(1.0, &product, &mut want);
                // The last run ends the sum: every level taken in.
                let from = if run + 1 == runs.len() || *from >= rivals { 0 } else { *from };
                levels.close(weight, from, &mut budget).unwrap();
                for t in from..rivals {
                    ties[t] = new_ties[t] as f64;
                    levels.set_tie(t, ties[t]);
                }
            }
            let last = want.iter().rposition(|&v| v != 0.0).unwrap_or(0);
            let (got, deg) = levels.total();
            prop_assert!(deg >= last);
            for (g, w) in got.iter().zip(&want[..=last]) {
                prop_assert!((g - w).abs() <= 1e-14 * w, "{g} vs {w}");
            }
            prop_assert!(got[last + 1..].iter().all(|&v| v == 0.0));
        }

        /// Packed values read back in order, for every width up to 10 bits.
        #[test]
        fn packed_values_read_back_in_order(
            (max, values) in (1usize..=1000).prop_flat_map(|max| {
                (Just(max), prop::collection::vec(0..=max, 1..300))
            }),
        ) {
            let packed = Packed::new(&values, max);
            let got: Vec<usize> = packed.iter(values.len()).collect();
            prop_assert_eq!(got, values);
        }
    }

    /// The run weights summed in pieces equal the weights added one by one,
    /// on both sides of 2⁵³ (the identity and the sum).
    #[test]
    fn member_weights_in_pieces_equal_the_weights() {
        for (a_c, j) in [(12, 3), (40, 7), (64, 21), (300, 40), (999, 300)] {
            let mut weights = MemberWeights::new(a_c, j);
            let (mut r, mut got, mut want) = (0, 0.0, 0.0);
            for piece in (1..=5).cycle() {
                if r > a_c - j {
                    break;
                }
                got += weights.up_to(r + piece);
                for r in r..(r + piece).min(a_c - j + 1) {
                    want += binom(a_c - 1 - r, j - 1);
                }
                r += piece;
            }
            assert!(
                (got - want).abs() <= 1e-13 * want,
                "{a_c} {j}: {got} vs {want}"
            );
            assert!((want - binom(a_c, j)).abs() <= 1e-13 * want);
        }
    }
}
