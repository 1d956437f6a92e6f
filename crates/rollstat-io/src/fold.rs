//! Folding parsed rows into problems, one shard at a time.
//!
//! Rows are routed to a shard by the hash of their problem key (system,
//! subset, problem), so shards share nothing and fold in parallel; within
//! a shard rows arrive in input order, so everything order-dependent
//! (rollout numbering, `--dedupe`, which row is "first") is the same as a
//! sequential fold. Problems keep their first row's global sequence number
//! and come out in order of first appearance whatever the shard count.
//!
//! Per rollout a shard keeps one byte while a problem's rows arrive in
//! order (see [`Store`]), 16 bytes (packed rollout and origin) otherwise.
//! Answer texts are stored once per problem.

use crate::fast::{FlatCounts, FlatRow};
use crate::record::{Record, RecordBody};
use crate::{BadLine, Dedupe, Grader, Labels, Origin};
use rollstat_core::rollouts::{
    hash_bytes, AnswerSet, DenseBuilder, NarrowVec, PackedRollout, RolloutTable,
};
use rollstat_core::summary::{Answer, ProblemData, Verdict};
use std::collections::HashMap;
use std::sync::Arc;

/// Number of shards: fixed, so results never depend on the thread count.
pub(crate) const SHARDS: usize = 16;

/// A parsed row: borrowed from the input block, or owned.
pub(crate) enum Row<'a> {
    Flat(FlatRow<'a>),
    /// A count row read by the byte scanner.
    Counts(FlatCounts<'a>),
    /// Boxed: rare, and large.
    Full(Box<Record>),
}

impl Row<'_> {
    pub(crate) fn into_record(self) -> Record {
        match self {
            Row::Flat(r) => r.into_record(),
            Row::Counts(r) => r.into_record(),
            Row::Full(r) => *r,
        }
    }

    fn problem(&self) -> &str {
        match self {
            Row::Flat(r) => &r.problem,
            Row::Counts(r) => &r.problem,
            Row::Full(r) => &r.problem,
        }
    }
    fn system(&self) -> Option<&str> {
        match self {
            Row::Flat(r) => r.system(),
            Row::Counts(r) => r.extra()?.system.as_deref(),
            Row::Full(r) => r.system.as_deref(),
        }
    }
    fn subset(&self) -> Option<&str> {
        match self {
            Row::Flat(r) => r.subset(),
            Row::Counts(r) => r.extra()?.subset.as_deref(),
            Row::Full(r) => r.subset.as_deref(),
        }
    }
    fn by_value(&self) -> Option<&str> {
        match self {
            Row::Flat(r) => r.by_value(),
            Row::Counts(r) => r.extra()?.by_value.as_deref(),
            Row::Full(r) => r.by_value.as_deref(),
        }
    }
    fn cluster_value(&self) -> Option<&str> {
        match self {
            Row::Flat(r) => r.cluster_value(),
            Row::Counts(r) => r.extra()?.cluster_value.as_deref(),
            Row::Full(r) => r.cluster_value.as_deref(),
        }
    }

    /// `(n, c)` of a count row.
    #[inline]
    fn counts(&self) -> Option<(u64, u64)> {
        match self {
            Row::Counts(r) => Some((r.n, r.c)),
            Row::Full(r) => match r.body {
                RecordBody::Counts { n, c } => Some((n, c)),
                _ => None,
            },
            Row::Flat(_) => None,
        }
    }

    /// Asks for the first bytes of the problem id to be fetched.
    pub(crate) fn prefetch_problem(&self) {
        if let Some(b) = self.problem().as_bytes().first() {
            prefetch(b);
        }
    }

    /// The hash of the problem key; `None` and `""` hash differently.
    pub(crate) fn key_hash(&self) -> u64 {
        let field = |s: Option<&str>, seed: u64| match s {
            None => hash_bytes(b"", seed ^ 0x5bd1_e995),
            Some(s) => hash_bytes(s.as_bytes(), seed),
        };
        let h = field(self.system(), 1);
        let h = field(self.subset(), h);
        hash_bytes(self.problem().as_bytes(), h)
    }
}

/// A row with its place in the input.
pub(crate) struct Item<'a> {
    /// Position among all rows the collector has seen.
    pub seq: u64,
    pub line: u64,
    pub hash: u64,
    pub row: Row<'a>,
}

/// The shard a key hash belongs to.
pub(crate) fn shard_of(hash: u64) -> usize {
    (hash >> 58) as usize % SHARDS
}

/// Short strings (systems, subsets, `--by` values) stored once per shard.
#[derive(Default)]
struct Interner {
    ids: HashMap<Box<str>, u32>,
    names: Vec<Box<str>>,
}

const NONE: u32 = u32::MAX;

impl Interner {
    fn id(&mut self, s: Option<&str>) -> u32 {
        let Some(s) = s else { return NONE };
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = self.names.len() as u32;
        self.names.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }
    fn get(&self, id: u32) -> Option<&str> {
        (id != NONE).then(|| &*self.names[id as usize])
    }
    fn is(&self, id: u32, s: Option<&str>) -> bool {
        self.get(id) == s
    }
}

/// The problems of a shard by the hash of their key: open addressing with
/// linear probing over one `u64` a slot — the hash's high 32 bits above
/// the problem's position + 1, or 0 for an empty slot. A new problem
/// costs one probe (the search that fails is where it is inserted), and
/// the slot a hash starts at is known before the row is folded, so it can
/// be fetched ahead ([`KeyIndex::prefetch`]): the table is far larger than
/// the caches and a probe is otherwise a wait on memory. Keys whose hashes
/// collide simply occupy further slots.
#[derive(Default)]
struct KeyIndex {
    slots: Vec<u64>,
    len: usize,
}

const TAG: u64 = !0 << 32;

impl KeyIndex {
    fn mask(&self) -> usize {
        self.slots.len().wrapping_sub(1)
    }

    /// Asks for the slot `hash` starts at to be brought into the cache.
    fn prefetch(&self, hash: u64) {
        if let Some(slot) = self.slots.get(hash as usize & self.mask()) {
            prefetch(slot);
        }
    }

    /// Whether one more entry would pass the load limit (5/8: probes stay
    /// short, and mostly within one cache line).
    fn is_full(&self) -> bool {
        (self.len + 1) * 8 > self.slots.len() * 5
    }

    /// A table twice the size holding `hashes` (entry i the hash of
    /// problem i: every problem of the shard).
    fn grow(&mut self, hashes: impl Iterator<Item = u64>) {
        let size = (self.slots.len() * 2).max(1 << 10);
        *self = KeyIndex {
            slots: vec![0; size],
            len: 0,
        };
        for (i, hash) in hashes.enumerate() {
            let found = self.find_or_insert(hash, i as u32, |_| false);
            debug_assert!(found.is_none());
        }
    }

    /// The problem with key hash `hash` that `is_key` accepts, if any;
    /// otherwise `new` is recorded as that problem and `None` returned.
    /// The caller keeps room ([`KeyIndex::is_full`]).
    fn find_or_insert(&mut self, hash: u64, new: u32, is_key: impl Fn(u32) -> bool) -> Option<u32> {
        let mask = self.mask();
        let tag = hash & TAG;
        let mut at = hash as usize & mask;
        loop {
            let slot = self.slots[at];
            if slot == 0 {
                self.slots[at] = tag | (u64::from(new) + 1);
                self.len += 1;
                return None;
            }
            if slot & TAG == tag {
                let i = (slot & !TAG) as u32 - 1;
                if is_key(i) {
                    return Some(i);
                }
            }
            at = (at + 1) & mask;
        }
    }
}

/// Asks for the cache line holding `value` to be fetched (a hint: it never
/// faults and changes no result).
#[inline]
pub(crate) fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching reads nothing the program sees and cannot fault;
    // SSE is part of every x86_64 target.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(value).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// One problem being collected: its key, where it was first seen, and its
/// rows. A count row's numbers sit inline and rollouts behind a box, and
/// the id lies in the shard's name arena, so a problem of count rows takes
/// 80 bytes and no allocation of its own.
struct Acc {
    /// The problem id: bytes `name.0..name.1` of the shard's `names`.
    name: (u64, u64),
    /// Hash of the problem key (compared before the strings).
    hash: u64,
    system: u32,
    subset: u32,
    by_value: u32,
    cluster_value: u32,
    /// Sequence number of the problem's first row.
    first_seq: u64,
    origin: Origin,
    body: Body,
}

/// What a problem's rows said so far.
enum Body {
    /// No rollout and no count row yet (a problem row may hold none).
    Empty,
    /// A count row (a problem's only row).
    Counts { n: u64, c: u64 },
    /// Rollouts.
    Rollouts(Box<Rollouts>),
}

/// A problem's rollouts while reading.
struct Rollouts {
    store: Store,
    answers: AnswerSet,
    /// (rollout index, selector score) in arrival order, from the first
    /// score on (rollouts before it entered as `None`); empty without scores.
    scores: Vec<(u64, Option<f64>)>,
    /// (rollout index, budget), kept as `scores` is.
    budgets: Vec<(u64, Option<f64>)>,
    /// Some rollout came without an index (numbered by arrival).
    numbered_by_arrival: bool,
}

impl Rollouts {
    /// No rollouts yet, for a problem first seen at `origin`.
    fn new(origin: Origin) -> Rollouts {
        Rollouts {
            store: Store::new(origin),
            answers: AnswerSet::default(),
            scores: Vec::new(),
            budgets: Vec::new(),
            numbered_by_arrival: false,
        }
    }

    /// Adds a rollout with its score and budget; without an index it is
    /// numbered by arrival.
    #[allow(clippy::too_many_arguments)]
    fn push(
        &mut self,
        index: Option<u64>,
        v: Verdict,
        code: u32,
        t: bool,
        here: Origin,
        score: Option<f64>,
        budget: Option<f64>,
    ) -> Result<(), String> {
        self.numbered_by_arrival |= index.is_none();
        let index = self.store.push(index, v, code, t, here)?;
        track(&mut self.scores, &self.store, index, score);
        track(&mut self.budgets, &self.store, index, budget);
        Ok(())
    }
}

/// Folding a row's rollouts into its problem's.
impl Rollouts {
    /// Adds a flat row's rollout, graded first when it has no verdict.
    #[inline]
    fn push_flat(
        &mut self,
        r: &FlatRow<'_>,
        here: Origin,
        cx: &Context<'_>,
        n_graded: &mut u64,
    ) -> Result<(), String> {
        let (verdict, code) = match r.verdict {
            Some(v) => (v, self.answers.code_of(r.answer.as_ref())?),
            None => {
                *n_graded += 1;
                let (v, a) = grade(cx.grader, r.gold(), &r.answer.to_answer(), r.response());
                (v, self.answers.code_of(a.as_ref())?)
            }
        };
        self.push(r.index, verdict, code, r.truncated, here, None, r.budget)
    }

    /// Adds the rollouts of a full record that is not a count row.
    fn push_record(
        &mut self,
        body: &RecordBody,
        here: Origin,
        cx: &Context<'_>,
        n_graded: &mut u64,
    ) -> Result<(), String> {
        match body {
            RecordBody::Counts { .. } => unreachable!("count rows are folded above"),
            RecordBody::Rollout {
                index,
                verdict,
                answer,
                truncated,
                gold,
                response,
                score,
                budget,
            } => {
                let (verdict, code) = match verdict {
                    Some(v) => (*v, self.answers.code_of(answer.as_ref())?),
                    None => {
                        *n_graded += 1;
                        let (v, a) = grade(cx.grader, gold.as_deref(), answer, response.as_deref());
                        (v, self.answers.code_of(a.as_ref())?)
                    }
                };
                self.push(*index, verdict, code, *truncated, here, *score, *budget)
            }
            RecordBody::Problem {
                rollouts,
                scores,
                budgets,
            } => self.push_problem(rollouts, scores, budgets, here),
            RecordBody::ProblemToGrade {
                gold,
                rollouts,
                scores,
                budgets,
            } => self.push_problem_to_grade(gold, rollouts, scores, budgets, here, cx, n_graded),
        }
    }

    /// Adds a problem row's graded rollouts, numbered by position.
    fn push_problem(
        &mut self,
        rollouts: &[(Verdict, Answer, bool)],
        scores: &Option<Vec<Option<f64>>>,
        budgets: &Option<Vec<Option<f64>>>,
        here: Origin,
    ) -> Result<(), String> {
        for (i, (verdict, answer, truncated)) in rollouts.iter().enumerate() {
            let code = self.answers.code_of(answer.as_ref())?;
            let score = scores.as_ref().and_then(|s| s[i]);
            let budget = budgets.as_ref().and_then(|s| s[i]);
            self.push(
                Some(i as u64),
                *verdict,
                code,
                *truncated,
                here,
                score,
                budget,
            )?;
        }
        Ok(())
    }

    /// Grades a problem row's rollouts against its gold and adds them,
    /// numbered by position.
    #[allow(clippy::too_many_arguments)]
    fn push_problem_to_grade(
        &mut self,
        gold: &str,
        rollouts: &[(Answer, Option<String>, bool)],
        scores: &Option<Vec<Option<f64>>>,
        budgets: &Option<Vec<Option<f64>>>,
        here: Origin,
        cx: &Context<'_>,
        n_graded: &mut u64,
    ) -> Result<(), String> {
        for (i, (answer, response, truncated)) in rollouts.iter().enumerate() {
            *n_graded += 1;
            let (v, a) = cx.grader.grade(gold, answer, response.as_deref());
            let code = self.answers.code_of(a.as_ref())?;
            let score = scores.as_ref().and_then(|s| s[i]);
            let budget = budgets.as_ref().and_then(|s| s[i]);
            self.push(Some(i as u64), v, code, *truncated, here, score, budget)?;
        }
        Ok(())
    }
}

impl Acc {
    /// The problem's rollouts, for a rollout to join; `None` when it has a
    /// count row.
    fn rollouts(&mut self) -> Option<&mut Rollouts> {
        if let Body::Empty = self.body {
            self.body = Body::Rollouts(Box::new(Rollouts::new(self.origin)));
        }
        match &mut self.body {
            Body::Rollouts(r) => Some(r),
            _ => None,
        }
    }

    /// Whether a count row may still be the problem's only row.
    fn takes_counts(&self) -> bool {
        match &self.body {
            Body::Empty => true,
            Body::Counts { .. } => false,
            Body::Rollouts(r) => r.store.is_empty(),
        }
    }
}

/// A shard's problems in chunks of fixed size: growing never copies the
/// problems collected, as a doubling vector does (holding both copies
/// while it does).
struct Chunked<T> {
    chunks: Vec<Vec<T>>,
}

const CHUNK: usize = 1 << 14;

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked { chunks: Vec::new() }
    }
}

impl<T> Chunked<T> {
    fn len(&self) -> usize {
        self.chunks
            .last()
            .map_or(0, |c| (self.chunks.len() - 1) * CHUNK + c.len())
    }

    fn push(&mut self, item: T) {
        match self.chunks.last_mut() {
            Some(c) if c.len() < CHUNK => c.push(item),
            _ => {
                // The first chunk grows as a vector does (small inputs stay
                // small); later ones are made whole.
                let cap = if self.chunks.is_empty() { 0 } else { CHUNK };
                self.chunks.push(Vec::with_capacity(cap));
                self.chunks.last_mut().expect("pushed").push(item);
            }
        }
    }

    fn get(&self, i: u32) -> &T {
        &self.chunks[i as usize / CHUNK][i as usize % CHUNK]
    }

    fn get_mut(&mut self, i: u32) -> &mut T {
        &mut self.chunks[i as usize / CHUNK][i as usize % CHUNK]
    }
}

/// Records the optional value of the rollout just added as `index`: from
/// the first value on (rollouts before it enter as `None`); nothing while
/// no rollout has one.
fn track(list: &mut Vec<(u64, Option<f64>)>, rollouts: &Store, index: u64, value: Option<f64>) {
    if value.is_some() && list.is_empty() {
        let earlier = rollouts.indices();
        *list = earlier[..earlier.len() - 1]
            .iter()
            .map(|&i| (i, None))
            .collect();
    }
    if !list.is_empty() || value.is_some() {
        list.push((index, value));
    }
}

/// A table's scores from what [`Acc`] kept: ordered and deduplicated as the
/// rollouts are (by index; the first of a repeated index, or the last under
/// `keep_last`), so entry i is the score of the table's rollout i.
fn table_scores(mut scores: Vec<(u64, Option<f64>)>, keep_last: bool) -> Vec<Option<f64>> {
    scores.sort_by_key(|&(i, _)| i);
    scores.dedup_by(|later, earlier| {
        let same = later.0 == earlier.0;
        if same && keep_last {
            std::mem::swap(later, earlier);
        }
        same
    });
    scores.into_iter().map(|(_, s)| s).collect()
}

/// The line gaps between consecutive rows of a dense problem (after its
/// first row): one value for all while they agree (rows of a problem are
/// usually adjacent, gap 1, or share one line, gap 0), else one each.
enum Gaps {
    Same { gap: u32, count: usize },
    Each(NarrowVec),
}

impl Gaps {
    fn push(&mut self, g: u32) {
        match self {
            Gaps::Same { count: 0, .. } => *self = Gaps::Same { gap: g, count: 1 },
            Gaps::Same { gap, count } if *gap == g => *count += 1,
            Gaps::Same { gap, count } => {
                let mut each = NarrowVec::default();
                for _ in 0..*count {
                    each.push(*gap);
                }
                each.push(g);
                *self = Gaps::Each(each);
            }
            Gaps::Each(v) => v.push(g),
        }
    }

    /// The gap before row `i + 1`.
    fn get(&self, i: usize) -> u32 {
        match self {
            Gaps::Same { gap, .. } => *gap,
            Gaps::Each(v) => v.get(i),
        }
    }
}

/// A problem's rollouts while reading.
enum Store {
    /// Rollouts 0, 1, 2, … arrived in that order, each from the same input
    /// at or after the line of the one before (the usual case): one narrow
    /// value per rollout, and the line gaps between consecutive rows (for
    /// duplicate messages, should the problem turn sparse). Typically one
    /// byte per rollout: gaps take space only when rows are not adjacent.
    Dense {
        rows: DenseBuilder,
        gaps: Gaps,
        file: usize,
        first_line: u64,
        last_line: u64,
    },
    /// Any other order: each rollout packed, with where it was read.
    Sparse(Vec<(PackedRollout, Origin)>),
}

impl Store {
    fn new(origin: Origin) -> Store {
        Store::Dense {
            rows: DenseBuilder::default(),
            gaps: Gaps::Same { gap: 0, count: 0 },
            file: origin.file(),
            first_line: origin.line(),
            last_line: origin.line(),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Store::Dense { rows, .. } => rows.is_empty(),
            Store::Sparse(v) => v.is_empty(),
        }
    }

    /// Rollout indices in arrival order.
    fn indices(&self) -> Vec<u64> {
        match self {
            Store::Dense { rows, .. } => (0..rows.len() as u64).collect(),
            Store::Sparse(v) => v.iter().map(|(r, _)| r.index()).collect(),
        }
    }

    /// Adds a rollout and returns its index; without an index it is
    /// numbered by arrival.
    fn push(
        &mut self,
        index: Option<u64>,
        verdict: Verdict,
        code: u32,
        truncated: bool,
        here: Origin,
    ) -> Result<u64, String> {
        if let Store::Dense {
            rows,
            gaps,
            file,
            first_line,
            last_line,
        } = self
        {
            let next = rows.len() as u64;
            let index = index.unwrap_or(next);
            let gap = here
                .line()
                .checked_sub(*last_line)
                .and_then(|g| u32::try_from(g).ok());
            match gap {
                Some(gap)
                    if index == next && here.file() == *file && next < u64::from(u32::MAX) =>
                {
                    if !rows.is_empty() {
                        gaps.push(gap);
                    }
                    rows.push(verdict, code, truncated);
                    *last_line = here.line();
                    return Ok(index);
                }
                _ => {
                    // Out of order (or a duplicate): keep each rollout with
                    // where it was read, recovered from the gaps.
                    let mut line = *first_line;
                    let sparse = (0..rows.len())
                        .map(|i| {
                            if i > 0 {
                                line += u64::from(gaps.get(i - 1));
                            }
                            (rows.packed(i), Origin::new(*file, line))
                        })
                        .collect();
                    *self = Store::Sparse(sparse);
                }
            }
        }
        let Store::Sparse(v) = self else {
            unreachable!("made sparse above")
        };
        let index = index.unwrap_or(v.len() as u64);
        v.push((PackedRollout::new(index, verdict, code, truncated)?, here));
        Ok(index)
    }
}

/// What one shard collected.
#[derive(Default)]
pub(crate) struct Shard {
    index: KeyIndex,
    strings: Interner,
    /// Every problem id of the shard, back to back.
    names: String,
    accs: Chunked<Acc>,
    /// The problem of the previous row.
    last: Option<u32>,
    /// Bad rows: (sequence number, what is wrong).
    pub bad: Vec<(u64, BadLine)>,
    pub n_graded: u64,
}

/// Whether `a` (its id in `names`, its labels in `strings`) is the problem
/// of `row`, whose key hash is `hash`.
fn key_matches(a: &Acc, names: &str, strings: &Interner, row: &Row<'_>, hash: u64) -> bool {
    a.hash == hash
        && &names[a.name.0 as usize..a.name.1 as usize] == row.problem()
        && strings.is(a.system, row.system())
        && strings.is(a.subset, row.subset())
}

/// What a shard needs to know about where rows come from.
pub(crate) struct Context<'c> {
    pub file: usize,
    pub path: &'c str,
    /// All input paths so far (for origins in messages).
    pub paths: &'c [String],
    pub by: Option<&'c str>,
    pub grader: &'c dyn Grader,
}

impl Context<'_> {
    fn at(&self, o: Origin) -> String {
        let path = self.paths.get(o.file()).map_or("?", |p| p.as_str());
        format!("{path}:{}", o.line())
    }
}

impl Shard {
    /// Folds one row; a bad row is recorded, not returned.
    pub(crate) fn push(&mut self, item: &Item<'_>, cx: &Context<'_>) {
        let (seq, line) = (item.seq, item.line);
        if let Err(reason) = self.push_row(item, cx) {
            self.bad.push((
                seq,
                BadLine {
                    path: cx.path.to_string(),
                    line,
                    reason,
                },
            ));
        }
    }

    /// Whether problem `i` is the problem of `row`, whose key hash is `hash`.
    fn is_key(&self, i: u32, row: &Row<'_>, hash: u64) -> bool {
        key_matches(self.accs.get(i), &self.names, &self.strings, row, hash)
    }

    /// Asks for the index slot of a row to come to be fetched.
    pub(crate) fn prefetch(&self, hash: u64) {
        self.index.prefetch(hash);
    }

    /// A problem's id.
    fn name(&self, a: &Acc) -> &str {
        &self.names[a.name.0 as usize..a.name.1 as usize]
    }

    /// The problem of the item's row, made when new.
    fn acc_for(&mut self, item: &Item<'_>, here: Origin) -> u32 {
        let (row, hash) = (&item.row, item.hash);
        // Rows of a problem usually come together.
        if let Some(i) = self.last.filter(|&i| self.is_key(i, row, hash)) {
            return i;
        }
        if self.index.is_full() {
            let hashes = self.accs.chunks.iter().flatten().map(|a| a.hash);
            self.index.grow(hashes);
        }
        let i = self.accs.len() as u32;
        let (accs, names, strings) = (&self.accs, self.names.as_str(), &self.strings);
        let is_key = |j| key_matches(accs.get(j), names, strings, row, hash);
        if let Some(j) = self.index.find_or_insert(hash, i, is_key) {
            return j;
        }
        let start = self.names.len() as u64;
        self.names.push_str(row.problem());
        let acc = Acc {
            name: (start, self.names.len() as u64),
            hash,
            system: self.strings.id(row.system()),
            subset: self.strings.id(row.subset()),
            by_value: self.strings.id(row.by_value()),
            cluster_value: self.strings.id(row.cluster_value()),
            first_seq: item.seq,
            origin: here,
            body: Body::Empty,
        };
        self.accs.push(acc);
        i
    }

    /// Folds one row into its problem: a count row sets the counts, any
    /// other row adds its rollouts (graded here when it has no verdict).
    fn push_row(&mut self, item: &Item<'_>, cx: &Context<'_>) -> Result<(), String> {
        let here = Origin::new(cx.file, item.line);
        let idx = self.acc_for(item, here);
        self.last = Some(idx);
        self.check_by_value(idx, item, cx)?;
        if let Some((n, c)) = item.row.counts() {
            return self.set_counts(idx, item, n, c, cx);
        }
        let Some(acc) = self.accs.get_mut(idx).rollouts() else {
            return Err(self.counts_conflict(idx, cx));
        };
        let n_graded = &mut self.n_graded;
        match &item.row {
            Row::Flat(r) => acc.push_flat(r, here, cx, n_graded),
            Row::Counts(_) => unreachable!("count rows are folded above"),
            Row::Full(r) => acc.push_record(&r.body, here, cx, n_graded),
        }
    }

    /// A problem's rows must agree on the `--by` value.
    #[inline]
    fn check_by_value(&self, idx: u32, item: &Item<'_>, cx: &Context<'_>) -> Result<(), String> {
        let acc = self.accs.get(idx);
        let strings = &self.strings;
        if strings.is(acc.by_value, item.row.by_value()) {
            return Ok(());
        }
        Err(format!(
            "problem '{}' has {} = {:?} here but {:?} at {}",
            item.row.problem(),
            cx.by.unwrap_or("?"),
            item.row.by_value(),
            strings.get(acc.by_value),
            cx.at(acc.origin)
        ))
    }

    /// Folds a count row, which must be its problem's only row.
    fn set_counts(
        &mut self,
        idx: u32,
        item: &Item<'_>,
        n: u64,
        c: u64,
        cx: &Context<'_>,
    ) -> Result<(), String> {
        let acc = self.accs.get_mut(idx);
        if !acc.takes_counts() {
            return Err(format!(
                "problem '{}' already has rows (first at {}); a count row must be its only row",
                item.row.problem(),
                cx.at(acc.origin)
            ));
        }
        acc.body = Body::Counts { n, c };
        Ok(())
    }

    /// Why a rollout row cannot join problem `idx`: it has a count row.
    #[cold]
    fn counts_conflict(&self, idx: u32, cx: &Context<'_>) -> String {
        let acc = self.accs.get(idx);
        format!(
            "problem '{}' has a count row (at {}); it cannot also have rollout rows",
            self.name(acc),
            cx.at(acc.origin)
        )
    }

    /// Problems collected so far.
    pub(crate) fn len(&self) -> usize {
        self.accs.len()
    }

    /// Appends the shard's problems to `out`, each with its first row's
    /// sequence number, duplicates resolved and counted.
    pub(crate) fn finish(self, dedupe: Option<Dedupe>, paths: &[String], out: &mut Finished) {
        use rayon::prelude::*;
        let labels = self.shared_labels();
        // The index is done with: its memory goes to the problems.
        let Shard {
            accs, names, index, ..
        } = self;
        drop(index);
        let names = &names;
        let at = |o: Origin| -> (String, u64) {
            let path = paths.get(o.file()).map_or("?", |p| p.as_str());
            (path.to_string(), o.line())
        };
        // Duplicates are rare: counted under a lock.
        let dups = std::sync::Mutex::new(Duplicates::default());
        // A chunk at a time, its problems made in parallel straight into
        // their places in `out` (made into a vector, then moved there one by
        // one, 10⁷ problems took 1.3 s); its accumulators are freed before
        // the next chunk's problems take memory.
        for chunk in accs.chunks {
            let mut both = (
                std::mem::take(&mut out.seqs),
                std::mem::take(&mut out.problems),
            );
            both.par_extend(chunk.into_par_iter().map(|acc| {
                let problem = &names[acc.name.0 as usize..acc.name.1 as usize];
                let key = acc.label_key();
                let (data, pd, numbered_by_arrival) = match acc.body {
                    Body::Counts { n, c } => {
                        (ProblemData::Counts { n, c }, ProblemDups::default(), false)
                    }
                    Body::Empty => rollout_data(Rollouts::new(acc.origin), problem, dedupe, &at),
                    Body::Rollouts(r) => rollout_data(*r, problem, dedupe, &at),
                };
                if pd.n > 0 {
                    let mut dups = dups.lock().expect("no panics");
                    dups.add(acc.first_seq, pd);
                }
                let problem = crate::CollectedProblem {
                    problem: problem.to_string(),
                    labels: (key != NO_LABELS).then(|| labels[&key].clone()),
                    origin: acc.origin,
                    numbered_by_arrival,
                    data,
                };
                (acc.first_seq, problem)
            }));
            (out.seqs, out.problems) = both;
        }
        let dups = dups.into_inner().expect("no panics");
        out.duplicates.add_all(dups);
    }

    /// One shared copy of each distinct set of labels of the shard's
    /// problems (problems without labels have none).
    fn shared_labels(&self) -> HashMap<[u32; 4], Arc<Labels>> {
        let mut shared: HashMap<[u32; 4], Arc<Labels>> = HashMap::new();
        let mut last = NO_LABELS;
        for acc in self.accs.chunks.iter().flatten() {
            let key = acc.label_key();
            if key == NO_LABELS || key == last {
                continue;
            }
            last = key;
            shared.entry(key).or_insert_with(|| {
                let own = |id| self.strings.get(id).map(str::to_string);
                Arc::new(Labels {
                    system: own(key[0]),
                    subset: own(key[1]),
                    by_value: own(key[2]),
                    cluster_value: own(key[3]),
                })
            });
        }
        shared
    }
}

/// The label key of a problem without labels.
const NO_LABELS: [u32; 4] = [NONE; 4];

impl Acc {
    /// The interned ids of the problem's labels.
    fn label_key(&self) -> [u32; 4] {
        [self.system, self.subset, self.by_value, self.cluster_value]
    }
}

/// A problem's rollouts as its table, duplicates resolved: the table, the
/// number of duplicates, the first one (as a bad row), and whether some
/// rollout was numbered by arrival.
fn rollout_data(
    r: Rollouts,
    problem: &str,
    dedupe: Option<Dedupe>,
    at: &dyn Fn(Origin) -> (String, u64),
) -> (ProblemData, ProblemDups, bool) {
    let keep_last = dedupe == Some(Dedupe::Last);
    let mut dups = ProblemDups::default();
    let mut table = match r.store {
        // In order, no duplicates possible.
        Store::Dense { rows, .. } => RolloutTable::from_dense(rows, r.answers),
        Store::Sparse(mut rollouts) => {
            rollouts.sort_by_key(|(r, _)| r.index());
            rollouts.dedup_by(|later, earlier| {
                if later.0.index() != earlier.0.index() {
                    return false;
                }
                dups.add(problem, later.0.index(), (later.1, earlier.1), at);
                if keep_last {
                    std::mem::swap(later, earlier);
                }
                true
            });
            let rows = rollouts.into_iter().map(|(r, _)| r).collect();
            RolloutTable::from_parts(rows, r.answers)
        }
    };
    if !r.scores.is_empty() {
        table = table.with_scores(&table_scores(r.scores, keep_last));
    }
    if !r.budgets.is_empty() {
        table = table.with_budgets(&table_scores(r.budgets, keep_last));
    }
    (
        ProblemData::Rollouts(Box::new(table)),
        dups,
        r.numbered_by_arrival,
    )
}

/// One problem's duplicated rollouts: how many, the first as a bad row,
/// and those whose two copies come from different inputs.
#[derive(Default)]
pub(crate) struct ProblemDups {
    n: u64,
    first: Option<BadLine>,
    across: CrossFile,
}

/// Duplicates whose two copies come from different inputs: how many, and
/// the paths of the first such pair (first copy, again).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CrossFile {
    /// Such duplicated rollouts.
    pub n: u64,
    /// The inputs of the first such pair: the first copy's, then the
    /// repeat's.
    pub first: Option<(String, String)>,
}

impl ProblemDups {
    /// One more duplicate of rollout `index`: `origins` are the repeat's and
    /// the first copy's.
    fn add(
        &mut self,
        problem: &str,
        index: u64,
        (again, earlier): (Origin, Origin),
        at: &dyn Fn(Origin) -> (String, u64),
    ) {
        self.n += 1;
        let across = again.text_index().is_none()
            && earlier.text_index().is_none()
            && again.file() != earlier.file();
        if !across && self.first.is_some() {
            return;
        }
        let (path, line) = at(again);
        let (prev_path, prev_line) = at(earlier);
        if across {
            self.across.n += 1;
            if self.across.first.is_none() {
                self.across.first = Some((prev_path.clone(), path.clone()));
            }
        }
        if self.first.is_none() {
            let other = if across {
                " — in another input: if the two are different systems' runs, their rows need a model to tell them apart"
            } else {
                ""
            };
            self.first = Some(BadLine {
                path,
                line,
                reason: format!(
                    "problem '{problem}' rollout {index} appears again (first at {prev_path}:{prev_line}){other}"
                ),
            });
        }
    }
}

/// A collected problem with what ordering and duplicate reporting need.
pub(crate) struct Finished {
    /// Each problem's first row's sequence number.
    pub seqs: Vec<u64>,
    pub problems: Vec<crate::CollectedProblem>,
    pub duplicates: Duplicates,
}

/// Duplicate rollouts: how many, and the first (by sequence number of its
/// problem's first row) as a bad row.
#[derive(Default)]
pub(crate) struct Duplicates {
    pub count: u64,
    pub first: Option<(u64, BadLine)>,
    /// Those whose copies come from different inputs, with the sequence
    /// number of the problem of the first such pair.
    pub across: (u64, CrossFile),
}

impl Duplicates {
    /// The duplicates of the problem first seen at `seq`.
    fn add(&mut self, seq: u64, pd: ProblemDups) {
        self.count += pd.n;
        self.keep_first(pd.first.map(|d| (seq, d)));
        self.add_across(seq, pd.across);
    }

    fn add_all(&mut self, other: Duplicates) {
        self.count += other.count;
        self.keep_first(other.first);
        self.add_across(other.across.0, other.across.1);
    }

    /// `first` when it comes before the first kept.
    fn keep_first(&mut self, first: Option<(u64, BadLine)>) {
        if let Some((seq, d)) = first {
            if self.first.as_ref().is_none_or(|(s, _)| seq < *s) {
                self.first = Some((seq, d));
            }
        }
    }

    /// Cross-input duplicates of the problem (or shard) first seen at `seq`.
    fn add_across(&mut self, seq: u64, more: CrossFile) {
        let (at, mine) = &mut self.across;
        mine.n += more.n;
        if let Some(pair) = more.first {
            if mine.first.is_none() || seq < *at {
                *at = seq;
                mine.first = Some(pair);
            }
        }
    }
}

fn grade(
    grader: &dyn Grader,
    gold: Option<&str>,
    answer: &Answer,
    response: Option<&str>,
) -> (Verdict, Answer) {
    let gold = gold.expect("rows without a verdict carry gold");
    grader.grade(gold, answer, response)
}

/// Splits a block into non-blank lines numbered from `first_line`.
pub(crate) fn split_lines(bytes: &[u8], first_line: u64) -> Vec<(u64, &[u8])> {
    // Line 1 starts the input: a UTF-8 byte-order mark there is not part of
    // the first row (editors on Windows write one). The digest still covers it.
    let bytes = match (first_line, bytes.strip_prefix(b"\xEF\xBB\xBF")) {
        (1, Some(rest)) => rest,
        _ => bytes,
    };
    let mut lines: Vec<(u64, &[u8])> = Vec::with_capacity(bytes.len() / 64);
    let mut start = 0;
    let mut no = first_line - 1;
    for end in memchr::memchr_iter(b'\n', bytes).chain(std::iter::once(bytes.len())) {
        if start > bytes.len() {
            break;
        }
        no += 1;
        let line = &bytes[start..end];
        start = end + 1;
        if line.iter().all(|b| b.is_ascii_whitespace()) {
            continue;
        }
        lines.push((no, line));
    }
    lines
}

/// Parses one JSON line: the byte scanner, then the serde fast path, then
/// the general path (which words errors).
pub(crate) fn parse_json_row<'a>(
    line: &'a [u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
    budget: Option<&str>,
) -> Result<Row<'a>, String> {
    // The fast paths read `output_tokens` only (the default budget).
    let fast_budget = matches!(budget, None | Some(crate::fast::FAST_BUDGET));
    if crate::fast::handles_field(by) && crate::fast::handles_field(cluster_by) && fast_budget {
        let scanned = match crate::scan::scan_row(line, by, cluster_by) {
            Some(crate::scan::Scanned::Counts(r)) => return Ok(Row::Counts(r)),
            Some(crate::scan::Scanned::Rollout(r)) => Some(r),
            None => crate::fast::parse_flat(line, by, cluster_by),
        };
        if let Some(mut r) = scanned {
            if budget.is_none() {
                r.budget = None;
            }
            return Ok(Row::Flat(r));
        }
    }
    crate::source::parse_general(line, by, cluster_by, budget).map(|r| Row::Full(Box::new(r)))
}

#[cfg(test)]
mod tests {
    use super::KeyIndex;

    /// Keys are told apart by `is_key`, not by their hash: 5000 keys whose
    /// hashes take 7 values (so most collide, in the tag and in the slot)
    /// each get their own entry, found again after the table grew.
    #[test]
    fn colliding_hashes_are_distinct_keys_across_growth() {
        let hash = |k: u32| u64::from(k % 7).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        let mut index = KeyIndex::default();
        let mut hashes: Vec<u64> = Vec::new();
        for k in 0..5000u32 {
            if index.is_full() {
                index.grow(hashes.iter().copied());
            }
            // Entry i holds key i: a new key is inserted, never matched.
            assert_eq!(index.find_or_insert(hash(k), k, |i| i == k), None);
            hashes.push(hash(k));
        }
        assert_eq!(index.len, 5000);
        assert!(index.len * 8 <= index.slots.len() * 5);
        for k in (0..5000u32).rev() {
            assert_eq!(index.find_or_insert(hash(k), u32::MAX, |i| i == k), Some(k));
        }
        assert_eq!(index.len, 5000);
    }
}
