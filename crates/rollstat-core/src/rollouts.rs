//! A compact store for the rollouts of one problem.
//!
//! A problem sampled n times usually has far fewer distinct answers than
//! rollouts, so each answer text is stored once per problem ([`AnswerSet`])
//! and each rollout is one packed `u64` ([`PackedRollout`]: index, answer
//! id, verdict, truncation). Ten million rollouts then take 80 MB instead of
//! a string and an enum each.

use crate::summary::{Answer, Rollout, Verdict};
use std::collections::HashMap;

/// Distinct answer texts of one problem, each stored once, with ids
/// 0, 1, … in order of first appearance.
///
/// ```
/// use rollstat_core::rollouts::AnswerSet;
/// let mut a = AnswerSet::default();
/// assert_eq!(a.intern("42"), 0);
/// assert_eq!(a.intern("7"), 1);
/// assert_eq!(a.intern("42"), 0);
/// assert_eq!((a.len(), a.get(1)), (2, "7"));
/// ```
#[derive(Clone, Debug, Default)]
pub struct AnswerSet {
    /// All texts, concatenated.
    text: String,
    /// End offset of each text in `text`.
    ends: Vec<u32>,
    /// Hash → id, built once a problem has many distinct answers (a linear
    /// scan is faster for the usual handful). A hash shared by two texts
    /// keeps the first; lookups that hit a different text scan linearly.
    #[allow(clippy::box_collection)] // boxed: 8 bytes per problem, not 48, while unused
    lookup: Option<Box<HashMap<u64, u32>>>,
}

/// Distinct answers beyond which [`AnswerSet`] keeps a hash index.
const LINEAR_SCAN_MAX: usize = 16;

impl PartialEq for AnswerSet {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.ends == other.ends
    }
}

impl AnswerSet {
    /// Number of distinct answers.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The text of answer `id`.
    ///
    /// Panics if `id >= self.len()`.
    pub fn get(&self, id: u32) -> &str {
        let end = self.ends[id as usize] as usize;
        let start = if id == 0 {
            0
        } else {
            self.ends[id as usize - 1] as usize
        };
        &self.text[start..end]
    }

    fn find_linear(&self, text: &str) -> Option<u32> {
        let mut start = 0usize;
        for (id, &end) in self.ends.iter().enumerate() {
            let end = end as usize;
            if end - start == text.len() && &self.text[start..end] == text {
                return Some(id as u32);
            }
            start = end;
        }
        None
    }

    /// The id of `text`, adding it if new. Texts totalling more than
    /// 4 GiB in one problem are not supported (the offsets are `u32`);
    /// see [`AnswerSet::try_intern`].
    pub fn intern(&mut self, text: &str) -> u32 {
        self.try_intern(text)
            .expect("answer texts of one problem exceed 4 GiB")
    }

    /// [`AnswerSet::intern`] that reports overflow instead of panicking.
    pub fn try_intern(&mut self, text: &str) -> Result<u32, String> {
        if let Some(lookup) = &self.lookup {
            let h = hash_str(text);
            match lookup.get(&h) {
                Some(&id) if self.get(id) == text => return Ok(id),
                Some(_) => {
                    if let Some(id) = self.find_linear(text) {
                        return Ok(id);
                    }
                }
                None => {}
            }
        } else if let Some(id) = self.find_linear(text) {
            return Ok(id);
        }
        let id = self.ends.len() as u32;
        if id >= PackedRollout::MAX_ANSWERS {
            return Err(format!(
                "more than {} distinct answers in one problem",
                PackedRollout::MAX_ANSWERS
            ));
        }
        let end = u32::try_from(self.text.len() + text.len())
            .map_err(|_| "the answers of one problem exceed 4 GiB of text".to_string())?;
        self.text.push_str(text);
        self.ends.push(end);
        if let Some(lookup) = &mut self.lookup {
            lookup.entry(hash_str(text)).or_insert(id);
        } else if self.ends.len() > LINEAR_SCAN_MAX {
            let mut lookup = HashMap::with_capacity(self.ends.len() * 2);
            for i in 0..self.ends.len() as u32 {
                lookup.entry(hash_str(self.get(i))).or_insert(i);
            }
            self.lookup = Some(Box::new(lookup));
        }
        Ok(id)
    }

    /// The code a rollout's answer packs into (see [`PackedRollout`]),
    /// interning its text.
    ///
    /// ```
    /// use rollstat_core::rollouts::{AnswerRef, AnswerSet, PackedRollout};
    /// let mut a = AnswerSet::default();
    /// assert_eq!(a.code_of(AnswerRef::Unextracted), Ok(PackedRollout::UNEXTRACTED));
    /// assert_eq!(a.code_of(AnswerRef::Text("4")), Ok(2));
    /// ```
    pub fn code_of(&mut self, a: AnswerRef<'_>) -> Result<u32, String> {
        Ok(match a {
            AnswerRef::Unknown => PackedRollout::UNKNOWN,
            AnswerRef::Unextracted => PackedRollout::UNEXTRACTED,
            AnswerRef::Text(t) => 2 + self.try_intern(t)?,
        })
    }

    /// Drops the lookup index and spare capacity once no more answers come.
    pub fn shrink(&mut self) {
        self.lookup = None;
        self.text.shrink_to_fit();
        self.ends.shrink_to_fit();
    }
}

/// A 64-bit FNV-1a-style hash over 8-byte words (fast for short keys; not
/// DoS-resistant, which a local file reader does not need).
pub fn hash_str(s: &str) -> u64 {
    hash_bytes(s.as_bytes(), 0)
}

/// [`hash_str`] over bytes, continuing from `seed` (to hash several fields).
///
/// ```
/// use rollstat_core::rollouts::hash_bytes;
/// assert_eq!(hash_bytes(b"p1", 0), hash_bytes(b"p1", 0));
/// assert_ne!(hash_bytes(b"p1", 0), hash_bytes(b"p2", 0));
/// assert_ne!(hash_bytes(b"p1", 0), hash_bytes(b"p1", 1));
/// ```
pub fn hash_bytes(bytes: &[u8], seed: u64) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut h = (seed ^ 0xcbf2_9ce4_8422_2325).wrapping_mul(K) ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(8);
    for c in &mut chunks {
        let w = u64::from_le_bytes(c.try_into().expect("8 bytes"));
        h = (h ^ w).wrapping_mul(K).rotate_left(29);
    }
    let rest = chunks.remainder();
    if !rest.is_empty() {
        let mut buf = [0u8; 8];
        buf[..rest.len()].copy_from_slice(rest);
        h = (h ^ u64::from_le_bytes(buf))
            .wrapping_mul(K)
            .rotate_left(29);
    }
    // Final avalanche (from splitmix64) so low bits are usable as a shard.
    h ^= h >> 31;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^ (h >> 27)
}

/// One rollout in 64 bits: index (32), answer code (28), verdict (2),
/// truncated (1).
///
/// The answer code is 0 for [`Answer::Unknown`], 1 for
/// [`Answer::Unextracted`] and 2 + id for the text with that id in the
/// problem's [`AnswerSet`].
///
/// ```
/// use rollstat_core::rollouts::PackedRollout;
/// use rollstat_core::summary::Verdict;
/// let r = PackedRollout::new(5, Verdict::Failed, PackedRollout::UNEXTRACTED, true).unwrap();
/// assert_eq!((r.index(), r.verdict(), r.answer_code(), r.truncated()), (5, Verdict::Failed, 1, true));
/// assert!(PackedRollout::new(1 << 32, Verdict::Correct, 0, false).is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PackedRollout(u64);

impl PackedRollout {
    /// Answer code of a rollout without answer information.
    pub const UNKNOWN: u32 = 0;
    /// Answer code of a rollout whose extraction found nothing.
    pub const UNEXTRACTED: u32 = 1;
    /// Largest number of distinct answer texts per problem.
    pub const MAX_ANSWERS: u32 = (1 << 28) - 2;

    /// Packs a rollout; fails for an index ≥ 2³² or an answer code ≥ 2²⁸.
    pub fn new(
        index: u64,
        verdict: Verdict,
        answer_code: u32,
        truncated: bool,
    ) -> Result<Self, String> {
        let index = u32::try_from(index)
            .map_err(|_| format!("rollout index {index} is too large (at most {})", u32::MAX))?;
        if answer_code >= 1 << 28 {
            return Err(format!("answer code {answer_code} out of range"));
        }
        let v = match verdict {
            Verdict::Correct => 0u64,
            Verdict::Wrong => 1,
            Verdict::Failed => 2,
        };
        Ok(PackedRollout(
            (u64::from(index) << 32) | (u64::from(answer_code) << 4) | (v << 1) | truncated as u64,
        ))
    }

    pub fn index(self) -> u64 {
        self.0 >> 32
    }

    pub fn answer_code(self) -> u32 {
        ((self.0 >> 4) & ((1 << 28) - 1)) as u32
    }

    pub fn verdict(self) -> Verdict {
        match (self.0 >> 1) & 3 {
            0 => Verdict::Correct,
            1 => Verdict::Wrong,
            _ => Verdict::Failed,
        }
    }

    pub fn truncated(self) -> bool {
        self.0 & 1 == 1
    }

    /// The same rollout with another answer code.
    pub fn with_answer_code(self, code: u32) -> Self {
        debug_assert!(code < 1 << 28);
        PackedRollout((self.0 & !(((1 << 28) - 1) << 4)) | (u64::from(code) << 4))
    }
}

/// A rollout read from a [`RolloutTable`], its answer borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RolloutRef<'a> {
    pub index: u64,
    pub verdict: Verdict,
    pub answer: AnswerRef<'a>,
    pub truncated: bool,
}

impl RolloutRef<'_> {
    /// The same rollout, owned.
    pub fn to_rollout(self) -> Rollout {
        Rollout {
            index: self.index,
            verdict: self.verdict,
            answer: self.answer.to_answer(),
            truncated: self.truncated,
        }
    }
}

/// [`Answer`] with the text borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AnswerRef<'a> {
    Unknown,
    Unextracted,
    Text(&'a str),
}

impl AnswerRef<'_> {
    pub fn to_answer(self) -> Answer {
        match self {
            AnswerRef::Unknown => Answer::Unknown,
            AnswerRef::Unextracted => Answer::Unextracted,
            AnswerRef::Text(t) => Answer::Text(t.to_string()),
        }
    }
}

/// Unsigned integers stored in the narrowest width (8, 16 or 32 bits) that
/// holds every value pushed so far.
///
/// ```
/// use rollstat_core::rollouts::NarrowVec;
/// let mut v = NarrowVec::default();
/// v.push(7);
/// assert_eq!(v.bytes_per_value(), 1);
/// v.push(70_000);
/// assert_eq!((v.get(0), v.get(1), v.bytes_per_value()), (7, 70_000, 4));
/// ```
#[derive(Clone, Debug)]
pub enum NarrowVec {
    U8(Vec<u8>),
    U16(Vec<u16>),
    U32(Vec<u32>),
}

impl Default for NarrowVec {
    fn default() -> Self {
        NarrowVec::U8(Vec::new())
    }
}

impl PartialEq for NarrowVec {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && (0..self.len()).all(|i| self.get(i) == other.get(i))
    }
}

impl NarrowVec {
    pub fn len(&self) -> usize {
        match self {
            NarrowVec::U8(v) => v.len(),
            NarrowVec::U16(v) => v.len(),
            NarrowVec::U32(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes each value takes now.
    pub fn bytes_per_value(&self) -> usize {
        match self {
            NarrowVec::U8(_) => 1,
            NarrowVec::U16(_) => 2,
            NarrowVec::U32(_) => 4,
        }
    }

    pub fn get(&self, i: usize) -> u32 {
        match self {
            NarrowVec::U8(v) => u32::from(v[i]),
            NarrowVec::U16(v) => u32::from(v[i]),
            NarrowVec::U32(v) => v[i],
        }
    }

    /// Appends `x`, widening every value when `x` needs more bits.
    pub fn push(&mut self, x: u32) {
        match self {
            NarrowVec::U8(v) => match u8::try_from(x) {
                Ok(b) => v.push(b),
                Err(_) => {
                    self.widen(x);
                    self.push(x)
                }
            },
            NarrowVec::U16(v) => match u16::try_from(x) {
                Ok(b) => v.push(b),
                Err(_) => {
                    self.widen(x);
                    self.push(x)
                }
            },
            NarrowVec::U32(v) => v.push(x),
        }
    }

    /// Overwrites value `i`.
    pub fn set(&mut self, i: usize, x: u32) {
        let fits = match self {
            NarrowVec::U8(_) => x <= u32::from(u8::MAX),
            NarrowVec::U16(_) => x <= u32::from(u16::MAX),
            NarrowVec::U32(_) => true,
        };
        if !fits {
            self.widen(x);
        }
        match self {
            NarrowVec::U8(v) => v[i] = x as u8,
            NarrowVec::U16(v) => v[i] = x as u16,
            NarrowVec::U32(v) => v[i] = x,
        }
    }

    fn widen(&mut self, x: u32) {
        let values = (0..self.len()).map(|i| self.get(i));
        *self = if x <= u32::from(u16::MAX) {
            NarrowVec::U16(values.map(|v| v as u16).collect())
        } else {
            NarrowVec::U32(values.collect())
        };
    }

    pub fn shrink_to_fit(&mut self) {
        match self {
            NarrowVec::U8(v) => v.shrink_to_fit(),
            NarrowVec::U16(v) => v.shrink_to_fit(),
            NarrowVec::U32(v) => v.shrink_to_fit(),
        }
    }
}

/// One rollout of a dense table as a `u32`: answer code above 3 flag bits
/// (verdict, truncation).
fn dense_value(verdict: Verdict, answer_code: u32, truncated: bool) -> u32 {
    let v = match verdict {
        Verdict::Correct => 0,
        Verdict::Wrong => 1,
        Verdict::Failed => 2,
    };
    (answer_code << 3) | (v << 1) | truncated as u32
}

fn from_dense_value(x: u32) -> (Verdict, u32, bool) {
    let verdict = match (x >> 1) & 3 {
        0 => Verdict::Correct,
        1 => Verdict::Wrong,
        _ => Verdict::Failed,
    };
    (verdict, x >> 3, x & 1 == 1)
}

/// How a table stores its rollouts.
#[derive(Clone, Debug, PartialEq)]
enum Layout {
    /// Rollouts 0, 1, …, len − 1 in order (the usual case): one narrow value
    /// each (answer code and flags; one byte while a problem has fewer than
    /// 30 distinct answers).
    Dense(NarrowVec),
    /// Any indices, in index order: one packed `u64` each.
    Packed(Vec<PackedRollout>),
}

/// The rollouts of one problem and the answers they share.
///
/// Rollouts numbered 0, 1, 2, … in order take one byte each (for problems
/// with fewer than 30 distinct answers); any other numbering takes eight.
///
/// ```
/// use rollstat_core::rollouts::{AnswerRef, RolloutTable};
/// use rollstat_core::summary::{Answer, Rollout, Verdict};
/// let r = |index, answer: &str| Rollout { index, verdict: Verdict::Wrong,
///     answer: Answer::Text(answer.into()), truncated: false };
/// let t: RolloutTable = vec![r(0, "7"), r(1, "7"), r(2, "8")].into_iter().collect();
/// assert_eq!((t.len(), t.answers().len()), (3, 2));
/// assert_eq!(t.get(2).answer, AnswerRef::Text("8"));
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct RolloutTable {
    layout: Layout,
    answers: AnswerSet,
    /// Selector scores by storage position (`NaN`: none), when any rollout
    /// has one.
    scores: Option<Scores>,
    /// Budgets (tokens, cost, seconds) by storage position (`NaN`: none),
    /// when any rollout has one.
    budgets: Option<Scores>,
}

/// Scores compared by bits, so that a table equals itself (`NaN` marks a
/// rollout without a score).
#[derive(Clone, Debug)]
struct Scores(Vec<f64>);

impl PartialEq for Scores {
    fn eq(&self, other: &Self) -> bool {
        self.0.len() == other.0.len()
            && self
                .0
                .iter()
                .zip(&*other.0)
                .all(|(a, b)| a.to_bits() == b.to_bits())
    }
}

impl Default for RolloutTable {
    fn default() -> Self {
        RolloutTable {
            layout: Layout::Dense(NarrowVec::default()),
            answers: AnswerSet::default(),
            scores: None,
            budgets: None,
        }
    }
}

impl RolloutTable {
    /// A table from packed rows whose text codes refer to `answers`.
    ///
    /// Panics if a row refers to an answer `answers` does not hold.
    pub fn from_parts(rows: Vec<PackedRollout>, mut answers: AnswerSet) -> Self {
        let n = answers.len() as u32;
        assert!(
            rows.iter().all(|r| r.answer_code() < 2 + n),
            "a rollout refers to an answer the set does not hold"
        );
        answers.shrink();
        RolloutTable {
            layout: Layout::Packed(rows),
            answers,
            scores: None,
            budgets: None,
        }
    }

    /// A table of rollouts 0, 1, …: for each, its verdict, answer code and
    /// truncation, as written by [`DenseBuilder`].
    pub fn from_dense(rows: DenseBuilder, mut answers: AnswerSet) -> Self {
        let mut values = rows.0;
        let n = answers.len() as u32;
        assert!(
            (0..values.len()).all(|i| from_dense_value(values.get(i)).1 < 2 + n),
            "a rollout refers to an answer the set does not hold"
        );
        values.shrink_to_fit();
        answers.shrink();
        RolloutTable {
            layout: Layout::Dense(values),
            answers,
            scores: None,
            budgets: None,
        }
    }

    /// Adds a rollout; fails for an index ≥ 2³² or too many answers.
    pub fn push(&mut self, r: &Rollout) -> Result<(), String> {
        let code = self.answers.code_of(r.answer.as_ref())?;
        let packed = PackedRollout::new(r.index, r.verdict, code, r.truncated)?;
        for Scores(s) in [&mut self.scores, &mut self.budgets].into_iter().flatten() {
            s.push(f64::NAN);
        }
        if let Layout::Dense(values) = &mut self.layout {
            if r.index == values.len() as u64 {
                values.push(dense_value(r.verdict, code, r.truncated));
                return Ok(());
            }
            self.layout = Layout::Packed(
                (0..values.len())
                    .map(|i| {
                        let (v, c, t) = from_dense_value(values.get(i));
                        PackedRollout::new(i as u64, v, c, t).expect("index fits")
                    })
                    .collect(),
            );
        }
        let Layout::Packed(rows) = &mut self.layout else {
            unreachable!("made packed above")
        };
        rows.push(packed);
        Ok(())
    }

    /// The same table with a selector score for each stored rollout
    /// (`scores[i]` for the rollout stored at `i`, `None` for no score).
    ///
    /// Panics unless there is one entry per rollout.
    ///
    /// ```
    /// use rollstat_core::rollouts::RolloutTable;
    /// use rollstat_core::summary::{Answer, Rollout, Verdict};
    /// let r = |index| Rollout { index, verdict: Verdict::Wrong, answer: Answer::Unknown, truncated: false };
    /// let t: RolloutTable = vec![r(0), r(1)].into_iter().collect();
    /// let t = t.with_scores(&[Some(0.5), None]);
    /// assert_eq!((t.score(0), t.score(1)), (Some(0.5), None));
    /// ```
    pub fn with_scores(mut self, scores: &[Option<f64>]) -> Self {
        assert_eq!(scores.len(), self.len(), "one score entry per rollout");
        let values = scores.iter().map(|s| s.unwrap_or(f64::NAN)).collect();
        self.scores = scores.iter().any(Option::is_some).then_some(Scores(values));
        self
    }

    /// The selector score of the rollout stored at `i`, if it has one.
    pub fn score(&self, i: usize) -> Option<f64> {
        let s = self.scores.as_ref()?.0[i];
        (!s.is_nan()).then_some(s)
    }

    /// Whether any rollout has a selector score.
    pub fn has_scores(&self) -> bool {
        self.scores.is_some()
    }

    /// The same table with a budget (tokens, cost, seconds) for each stored
    /// rollout (`budgets[i]` for the rollout stored at `i`, `None` for a
    /// missing value).
    ///
    /// Panics unless there is one entry per rollout.
    ///
    /// ```
    /// use rollstat_core::rollouts::RolloutTable;
    /// use rollstat_core::summary::{Answer, Rollout, Verdict};
    /// let r = |index| Rollout { index, verdict: Verdict::Wrong, answer: Answer::Unknown, truncated: false };
    /// let t: RolloutTable = vec![r(0), r(1)].into_iter().collect();
    /// let t = t.with_budgets(&[Some(120.0), None]);
    /// assert_eq!((t.budget(0), t.budget(1), t.has_budgets()), (Some(120.0), None, true));
    /// ```
    pub fn with_budgets(mut self, budgets: &[Option<f64>]) -> Self {
        assert_eq!(budgets.len(), self.len(), "one budget entry per rollout");
        let values = budgets.iter().map(|s| s.unwrap_or(f64::NAN)).collect();
        self.budgets = budgets
            .iter()
            .any(Option::is_some)
            .then_some(Scores(values));
        self
    }

    /// The budget of the rollout stored at `i`, if it has one.
    pub fn budget(&self, i: usize) -> Option<f64> {
        let s = self.budgets.as_ref()?.0[i];
        (!s.is_nan()).then_some(s)
    }

    /// Whether any rollout has a budget.
    pub fn has_budgets(&self) -> bool {
        self.budgets.is_some()
    }

    pub fn len(&self) -> usize {
        match &self.layout {
            Layout::Dense(v) => v.len(),
            Layout::Packed(v) => v.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn answers(&self) -> &AnswerSet {
        &self.answers
    }

    /// Bytes the rollouts take (not counting answer texts).
    pub fn rollout_bytes(&self) -> usize {
        match &self.layout {
            Layout::Dense(v) => v.len() * v.bytes_per_value(),
            Layout::Packed(v) => v.len() * 8,
        }
    }

    /// The answer a code stands for.
    pub fn answer(&self, code: u32) -> AnswerRef<'_> {
        match code {
            PackedRollout::UNKNOWN => AnswerRef::Unknown,
            PackedRollout::UNEXTRACTED => AnswerRef::Unextracted,
            c => AnswerRef::Text(self.answers.get(c - 2)),
        }
    }

    /// The answer code of the rollout stored at `i`.
    pub fn answer_code(&self, i: usize) -> u32 {
        match &self.layout {
            Layout::Dense(v) => from_dense_value(v.get(i)).1,
            Layout::Packed(v) => v[i].answer_code(),
        }
    }

    /// The rollout stored at `i`.
    pub fn get(&self, i: usize) -> RolloutRef<'_> {
        let (index, verdict, code, truncated) = match &self.layout {
            Layout::Dense(v) => {
                let (verdict, code, truncated) = from_dense_value(v.get(i));
                (i as u64, verdict, code, truncated)
            }
            Layout::Packed(v) => {
                let r = v[i];
                (r.index(), r.verdict(), r.answer_code(), r.truncated())
            }
        };
        RolloutRef {
            index,
            verdict,
            answer: self.answer(code),
            truncated,
        }
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = RolloutRef<'_>> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// Whether rollouts are stored in index order (always so for rollouts
    /// 0, 1, 2, … pushed in order, and for tables a reader builds).
    pub fn is_index_ordered(&self) -> bool {
        match &self.layout {
            Layout::Dense(_) => true,
            Layout::Packed(v) => v.is_sorted_by_key(|r| r.index()),
        }
    }

    /// Turns every text answer for which `junk` holds into
    /// [`Answer::Unextracted`]; each distinct text is tested once.
    pub fn mark_unextracted(&mut self, junk: impl Fn(&str) -> bool) {
        let is_junk: Vec<bool> = (0..self.answers.len() as u32)
            .map(|id| junk(self.answers.get(id)))
            .collect();
        if !is_junk.contains(&true) {
            return;
        }
        let junk_code = |code: u32| code >= 2 && is_junk[(code - 2) as usize];
        match &mut self.layout {
            Layout::Dense(values) => {
                for i in 0..values.len() {
                    let (v, code, t) = from_dense_value(values.get(i));
                    if junk_code(code) {
                        values.set(i, dense_value(v, PackedRollout::UNEXTRACTED, t));
                    }
                }
            }
            Layout::Packed(rows) => {
                for r in rows {
                    if junk_code(r.answer_code()) {
                        *r = r.with_answer_code(PackedRollout::UNEXTRACTED);
                    }
                }
            }
        }
    }
}

/// Rollouts 0, 1, 2, … of one problem as they arrive, one narrow value each;
/// turned into a table by [`RolloutTable::from_dense`].
///
/// ```
/// use rollstat_core::rollouts::{AnswerSet, DenseBuilder, PackedRollout, RolloutTable};
/// use rollstat_core::summary::Verdict;
/// let mut answers = AnswerSet::default();
/// let mut rows = DenseBuilder::default();
/// rows.push(Verdict::Correct, 2 + answers.intern("12"), false);
/// rows.push(Verdict::Failed, PackedRollout::UNKNOWN, true);
/// let t = RolloutTable::from_dense(rows, answers);
/// assert_eq!((t.get(1).index, t.get(1).verdict, t.get(1).truncated), (1, Verdict::Failed, true));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DenseBuilder(NarrowVec);

impl DenseBuilder {
    pub fn push(&mut self, verdict: Verdict, answer_code: u32, truncated: bool) {
        self.0.push(dense_value(verdict, answer_code, truncated));
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Rollout `i` as a packed value with index `i`.
    pub fn packed(&self, i: usize) -> PackedRollout {
        let (v, c, t) = from_dense_value(self.0.get(i));
        PackedRollout::new(i as u64, v, c, t).expect("a dense index fits 32 bits")
    }
}

impl FromIterator<Rollout> for RolloutTable {
    /// Panics on an index ≥ 2³² (use [`RolloutTable::push`] for input data).
    fn from_iter<I: IntoIterator<Item = Rollout>>(iter: I) -> Self {
        let mut t = RolloutTable::default();
        for r in iter {
            t.push(&r).expect("rollout fits the packed form");
        }
        t.answers.shrink();
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_round_trips_every_field() {
        for index in [0u64, 1, 255, 65_536, u32::MAX as u64] {
            for verdict in [Verdict::Correct, Verdict::Wrong, Verdict::Failed] {
                for code in [0u32, 1, 2, 1000, (1 << 28) - 1] {
                    for truncated in [false, true] {
                        let p = PackedRollout::new(index, verdict, code, truncated).unwrap();
                        assert_eq!(
                            (p.index(), p.verdict(), p.answer_code(), p.truncated()),
                            (index, verdict, code, truncated)
                        );
                        let q = p.with_answer_code(7);
                        assert_eq!(
                            (q.index(), q.verdict(), q.answer_code(), q.truncated()),
                            (index, verdict, 7, truncated)
                        );
                    }
                }
            }
        }
        assert!(PackedRollout::new(0, Verdict::Correct, 1 << 28, false).is_err());
    }

    #[test]
    fn answer_set_finds_every_text_with_and_without_the_hash_index() {
        let mut a = AnswerSet::default();
        let texts: Vec<String> = (0..500).map(|i| format!("{}", i * 7919 % 1000)).collect();
        let mut ids = std::collections::HashMap::new();
        for t in &texts {
            let id = a.intern(t);
            assert_eq!(*ids.entry(t.clone()).or_insert(id), id, "{t}");
            assert_eq!(a.get(id), t);
        }
        assert_eq!(a.len(), ids.len());
        // the empty string is an answer like any other
        let e = a.intern("");
        assert_eq!(a.intern(""), e);
        assert_eq!(a.get(e), "");
    }

    #[test]
    fn table_keeps_rollouts_and_marks_junk_unextracted() {
        let rs = vec![
            Rollout {
                index: 0,
                verdict: Verdict::Correct,
                answer: Answer::Text("[invalid]".into()),
                truncated: false,
            },
            Rollout {
                index: 1,
                verdict: Verdict::Wrong,
                answer: Answer::Unknown,
                truncated: true,
            },
            Rollout {
                index: 2,
                verdict: Verdict::Failed,
                answer: Answer::Text("4".into()),
                truncated: false,
            },
        ];
        let mut t: RolloutTable = rs.clone().into_iter().collect();
        let back: Vec<Rollout> = t.iter().map(|r| r.to_rollout()).collect();
        assert_eq!(back, rs);
        t.mark_unextracted(|a| a == "[invalid]");
        assert_eq!(t.get(0).answer, AnswerRef::Unextracted);
        assert_eq!(t.get(2).answer, AnswerRef::Text("4"));
    }

    #[test]
    fn narrow_vec_widens_and_keeps_every_value() {
        let mut v = NarrowVec::default();
        let xs = [0u32, 255, 256, 65_535, 65_536, u32::MAX, 3];
        for (i, &x) in xs.iter().enumerate() {
            v.push(x);
            assert!((0..=i).all(|j| v.get(j) == xs[j]));
        }
        assert_eq!(v.bytes_per_value(), 4);
        let mut w = NarrowVec::default();
        w.push(1);
        w.set(0, 70_000);
        assert_eq!((w.get(0), w.bytes_per_value()), (70_000, 4));
    }

    #[test]
    fn dense_table_turns_packed_when_an_index_is_out_of_order() {
        let r = |index, verdict, answer: &str| Rollout {
            index,
            verdict,
            answer: Answer::Text(answer.into()),
            truncated: index == 1,
        };
        let rs = vec![
            r(0, Verdict::Correct, "a"),
            r(1, Verdict::Wrong, "b"),
            r(5, Verdict::Failed, "a"),
            r(1, Verdict::Correct, "c"),
        ];
        let mut t = RolloutTable::default();
        t.push(&rs[0]).unwrap();
        t.push(&rs[1]).unwrap();
        assert_eq!(t.rollout_bytes(), 2, "dense: one byte each");
        t.push(&rs[2]).unwrap();
        t.push(&rs[3]).unwrap();
        assert_eq!(t.rollout_bytes(), 32, "packed: eight bytes each");
        let back: Vec<Rollout> = t.iter().map(|r| r.to_rollout()).collect();
        assert_eq!(back, rs);
    }

    #[test]
    fn dense_rows_widen_past_29_distinct_answers() {
        let mut answers = AnswerSet::default();
        let mut rows = DenseBuilder::default();
        for i in 0..100u32 {
            let code = 2 + answers.intern(&i.to_string());
            rows.push(Verdict::Wrong, code, i % 2 == 0);
        }
        let mut t = RolloutTable::from_dense(rows, answers);
        assert_eq!(t.rollout_bytes(), 200);
        assert_eq!(t.get(99).answer, AnswerRef::Text("99"));
        assert!(t.get(98).truncated && !t.get(99).truncated);
        t.mark_unextracted(|a| a == "42");
        assert_eq!(t.get(42).answer, AnswerRef::Unextracted);
        assert_eq!(t.get(41).answer, AnswerRef::Text("41"));
    }
}
