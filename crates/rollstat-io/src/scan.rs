//! A hand-written scanner for the common flat rollout row and count row.
//!
//! [`parse_flat`] reads a rollout row with serde; this reads the same rows
//! in one pass over the bytes, with no `Deserializer` in between, and is
//! several times faster on the rows evaluation harnesses write. It gives
//! either exactly what [`parse_flat`] gives or `None`, and then the caller
//! tries [`parse_flat`] and then the general path. It returns `None`
//! whenever it is not sure: a float for `correct` other than
//! `0.0…`/`1.0…`, `-0`, numbers that might not fit an `f64`, containers
//! nested deeper than [`MAX_DEPTH`], lone surrogates or invalid UTF-8
//! anywhere, a key given twice, and, as [`parse_flat`], everything serde
//! rejects and every row that is not a flat rollout row — except count rows
//! (`n`, `c`; no `correct`, no `gold`), which [`scan_row`] reads exactly
//! as the general path does (serde's fast path has no count rows). `tests`
//! check the agreement differentially, with the general path as the third
//! party: a row the general path refuses is refused by both fast paths.
//!
//! The line is checked as UTF-8 at once; the scan records where each
//! known field's value lies, and the text is unescaped afterwards, only for
//! the fields the row keeps.
//!
//! [`parse_flat`]: crate::fast::parse_flat

use crate::fast::{
    handles_field, is_truncated, join_system, FlatAnswer, FlatCounts, FlatExtra, FlatRow,
};
use crate::record::is_failed_status;
use rollstat_core::summary::Verdict;
use std::borrow::Cow;

/// Deepest nesting of arrays and objects skipped under unknown keys.
const MAX_DEPTH: u32 = 64;

/// Text fields (strings or integers), by slot.
const PROBLEM: usize = 0;
const ANSWER: usize = 1;
const GOLD: usize = 2;
const RESPONSE: usize = 3;
const FINISH_REASON: usize = 4;
const STATUS: usize = 5;
const MODEL: usize = 6;
const RUN: usize = 7;
const SUBSET: usize = 8;
const GROUP: usize = 9;
const TEXT_SLOTS: usize = 10;

/// What a top-level key means to the row.
#[derive(Clone, Copy)]
enum Key {
    /// A text field, by slot.
    Text(usize),
    Rollout,
    Correct,
    Truncated,
    /// `n`, `c`, `answers` or `score` (0, 1, 2, 3): `n` and `c` make a
    /// count row; `answers` and `score` unless `null` make a row this
    /// scanner does not read (`score` goes to the general path).
    Count(u8),
    /// `output_tokens`, the default budget field.
    Budget,
    Unknown,
}

impl Key {
    #[inline]
    fn of(k: &[u8]) -> Key {
        match k {
            b"problem" => Key::Text(PROBLEM),
            b"rollout" => Key::Rollout,
            b"correct" => Key::Correct,
            b"answer" => Key::Text(ANSWER),
            b"gold" => Key::Text(GOLD),
            b"response" => Key::Text(RESPONSE),
            b"finish_reason" => Key::Text(FINISH_REASON),
            b"truncated" => Key::Truncated,
            b"status" => Key::Text(STATUS),
            b"model" => Key::Text(MODEL),
            b"run" => Key::Text(RUN),
            b"subset" => Key::Text(SUBSET),
            b"group" => Key::Text(GROUP),
            b"n" => Key::Count(0),
            b"c" => Key::Count(1),
            b"answers" => Key::Count(2),
            b"score" => Key::Count(3),
            b"output_tokens" => Key::Budget,
            _ => Key::Unknown,
        }
    }

    /// A bit per known field, to refuse duplicates as serde's derive does.
    #[inline]
    fn bit(self) -> u32 {
        match self {
            Key::Text(slot) => 1 << slot,
            Key::Rollout => 1 << TEXT_SLOTS,
            Key::Correct => 1 << (TEXT_SLOTS + 1),
            Key::Truncated => 1 << (TEXT_SLOTS + 2),
            Key::Count(k) => 1 << (TEXT_SLOTS + 3 + usize::from(k)),
            Key::Budget => 1 << (TEXT_SLOTS + 7),
            Key::Unknown => 0,
        }
    }
}

/// The slot a `--by` / `--cluster-by` field reads.
fn slot_of(field: Option<&str>) -> Option<usize> {
    match field? {
        "subset" => Some(SUBSET),
        "group" => Some(GROUP),
        "model" => Some(MODEL),
        "run" => Some(RUN),
        _ => None,
    }
}

const ONES: u64 = u64::MAX / 255;
const HIGH: u64 = ONES << 7;

/// The index of the first byte at or after `i` that ends a plain run of
/// string content: `"`, `\` or a control character; `None` at the end.
#[inline(always)]
fn find_special(b: &[u8], mut i: usize) -> Option<usize> {
    // Eight bytes at a time: a byte's high bit in `m` is set where it is
    // below 0x20, a quote or a backslash. Borrows only carry upwards from a
    // match, so the lowest set bit is always a true one.
    while let Some(chunk) = b.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().ok()?);
        let q = x ^ (ONES * u64::from(b'"'));
        let s = x ^ (ONES * u64::from(b'\\'));
        let m = (x.wrapping_sub(ONES * 0x20) & !x
            | q.wrapping_sub(ONES) & !q
            | s.wrapping_sub(ONES) & !s)
            & HIGH;
        if m != 0 {
            return Some(i + (m.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    let rest = b.get(i..)?;
    rest.iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| i + p)
}

/// Four hex digits at `i`, as serde's `decode_hex_escape` reads them.
fn hex4(b: &[u8], i: usize) -> Option<u32> {
    b.get(i..i + 4)?.iter().try_fold(0u32, |n, &c| {
        let d = (c as char).to_digit(16)?;
        Some(n << 4 | d)
    })
}

/// Where a text value lies in the line: a string's content between its
/// quotes (escapes checked but not decoded), or an integer's digits.
#[derive(Clone, Copy)]
struct Span {
    start: usize,
    end: usize,
    escaped: bool,
}

/// The text of a span, as serde would hand it to `Text`.
#[inline(always)]
fn text_of(line: &str, span: Span) -> Option<Cow<'_, str>> {
    // Spans start and end next to ASCII bytes, so on char boundaries.
    let raw = line.get(span.start..span.end)?;
    if span.escaped {
        unescape(raw).map(Cow::Owned)
    } else {
        Some(Cow::Borrowed(raw))
    }
}

/// Decodes the escapes of a string already checked by
/// [`Scanner::escapes`]; a pair of surrogate escapes is one `char`.
#[cold]
fn unescape(raw: &str) -> Option<String> {
    let mut out = String::with_capacity(raw.len());
    let mut rest = raw;
    while let Some(p) = memchr::memchr(b'\\', rest.as_bytes()) {
        out.push_str(rest.get(..p)?);
        let b = rest.as_bytes();
        let (c, len) = match *b.get(p + 1)? {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'b' => ('\u{8}', 2),
            b'f' => ('\u{c}', 2),
            b'n' => ('\n', 2),
            b'r' => ('\r', 2),
            b't' => ('\t', 2),
            b'u' => {
                let n = hex4(b, p + 2)?;
                if (0xD800..0xDC00).contains(&n) {
                    let low = hex4(b, p + 8)?;
                    if b.get(p + 6..p + 8)? != b"\\u" || !(0xDC00..0xE000).contains(&low) {
                        return None;
                    }
                    (
                        char::from_u32(0x1_0000 + ((n - 0xD800) << 10 | (low - 0xDC00)))?,
                        12,
                    )
                } else {
                    (char::from_u32(n)?, 6)
                }
            }
            _ => return None,
        };
        out.push(c);
        rest = rest.get(p + len..)?;
    }
    out.push_str(rest);
    Some(out)
}

/// A JSON number as written: its text, sign, whether it has no fraction or
/// exponent, and its magnitude when that is an integer fitting a `u64`.
struct Num<'a> {
    text: &'a [u8],
    neg: bool,
    int: bool,
    magnitude: Option<u64>,
}

impl Num<'_> {
    /// Whether [`Text`](crate::fast) takes the number as text: an integer
    /// serde parses as `u64` or `i64` (a float, `-0` or one out of range
    /// fails there).
    fn is_text(&self) -> bool {
        match (self.int, self.magnitude) {
            (true, Some(m)) => !self.neg || (1..=1 << 63).contains(&m),
            _ => false,
        }
    }

    /// The number as `correct`: 0 or 1, as an integer or as `0.0…`/`1.0…`.
    fn verdict(&self) -> Option<Verdict> {
        if self.neg {
            return None;
        }
        let v = if self.int {
            self.magnitude?
        } else {
            // "0.000" and "1.0" parse to exactly 0.0 and 1.0 whatever
            // serde's float algorithm; other floats are left to serde.
            let (&d, rest) = self.text.split_first()?;
            let frac = rest.strip_prefix(b".")?;
            if frac.len() > 15 || !frac.iter().all(|&c| c == b'0') {
                return None;
            }
            u64::from(char::from(d).to_digit(10)?)
        };
        match v {
            0 => Some(Verdict::Wrong),
            1 => Some(Verdict::Correct),
            _ => None,
        }
    }
}

struct Scanner<'a> {
    /// The line, checked as UTF-8 (serde checks every string it reads,
    /// though not those it skips; bytes outside strings must be ASCII).
    line: &'a str,
    b: &'a [u8],
    i: usize,
}

impl<'a> Scanner<'a> {
    #[inline(always)]
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    #[inline(always)]
    fn ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.peek() {
            self.i += 1;
        }
    }

    #[inline(always)]
    fn eat(&mut self, c: u8) -> Option<()> {
        (self.next()? == c).then_some(())
    }

    /// `true`, `false` or `null`, as given.
    #[inline(always)]
    fn literal(&mut self, word: &[u8]) -> Option<()> {
        if self.b.get(self.i..self.i + word.len())? == word {
            self.i += word.len();
            Some(())
        } else {
            None
        }
    }

    /// A string after its opening quote: where its content lies.
    #[inline(always)]
    fn string(&mut self) -> Option<Span> {
        let start = self.i;
        let end = find_special(self.b, start)?;
        if self.b[end] == b'"' {
            self.i = end + 1;
            return Some(Span {
                start,
                end,
                escaped: false,
            });
        }
        self.escapes(start, end)
    }

    /// The rest of a string whose plain run from `start` stops at `end`,
    /// not its closing quote: its escapes checked as serde checks them when
    /// it reads a string (lone surrogates refused).
    #[cold]
    fn escapes(&mut self, start: usize, mut end: usize) -> Option<Span> {
        let b = self.b;
        loop {
            match b[end] {
                b'"' => {
                    self.i = end + 1;
                    return Some(Span {
                        start,
                        end,
                        escaped: true,
                    });
                }
                b'\\' => {}
                _ => return None,
            }
            let mut next = end + 2;
            match *b.get(end + 1)? {
                b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                b'u' => {
                    let n = hex4(b, next)?;
                    next += 4;
                    match n {
                        0xD800..=0xDBFF => {
                            if b.get(next..next + 2)? != b"\\u" {
                                return None;
                            }
                            let low = hex4(b, next + 2)?;
                            if !(0xDC00..=0xDFFF).contains(&low) {
                                return None;
                            }
                            next += 6;
                        }
                        0xDC00..=0xDFFF => return None,
                        _ => {}
                    }
                }
                _ => return None,
            }
            end = find_special(b, next)?;
        }
    }

    /// An object key after its opening quote, then the colon and the white
    /// space around it: the raw bytes of an unescaped key, else the key
    /// decoded.
    #[inline(always)]
    fn key(&mut self) -> Option<Cow<'a, [u8]>> {
        let span = self.string()?;
        let key = if span.escaped {
            Cow::Owned(text_of(self.line, span)?.into_owned().into_bytes())
        } else {
            Cow::Borrowed(&self.b[span.start..span.end])
        };
        self.ws();
        self.eat(b':')?;
        self.ws();
        Some(key)
    }

    /// A key of an object skipped whole, checked.
    fn skip_key(&mut self) -> Option<()> {
        self.eat(b'"')?;
        self.key().map(drop)
    }

    /// A number, by the JSON grammar.
    #[inline(always)]
    fn number(&mut self) -> Option<Num<'a>> {
        let b = self.b;
        let start = self.i;
        let mut i = start;
        let neg = b.get(i) == Some(&b'-');
        i += usize::from(neg);
        let digits = i;
        let mut m = 0u64;
        match b.get(i) {
            Some(b'0') => i += 1,
            Some(b'1'..=b'9') => {
                while let Some(&c @ b'0'..=b'9') = b.get(i) {
                    m = m.wrapping_mul(10).wrapping_add(u64::from(c - b'0'));
                    i += 1;
                }
            }
            _ => return None,
        }
        let int_digits = i - digits;
        // Up to 19 digits always fit; 20 may.
        let magnitude = match int_digits {
            ..=19 => Some(m),
            20 => std::str::from_utf8(&b[digits..i]).ok()?.parse().ok(),
            _ => None,
        };
        let mut int = true;
        if let Some(b'.' | b'e' | b'E') = b.get(i) {
            int = false;
            self.i = i;
            self.fraction_and_exponent(int_digits)?;
            i = self.i;
        }
        self.i = i;
        Some(Num {
            text: &b[start..i],
            neg,
            int,
            magnitude,
        })
    }

    /// A number's fraction and exponent, by the JSON grammar. Numbers that
    /// might not fit an f64 (which serde_json's `Value` refuses, while serde
    /// skips them in fields it ignores) are left to serde: more than 200
    /// integer digits, or an exponent of 3 digits.
    #[cold]
    fn fraction_and_exponent(&mut self, int_digits: usize) -> Option<()> {
        let b = self.b;
        let digits = |i: &mut usize| {
            let from = *i;
            while let Some(b'0'..=b'9') = b.get(*i) {
                *i += 1;
            }
            (*i > from).then_some(*i - from)
        };
        let mut i = self.i;
        if b.get(i) == Some(&b'.') {
            i += 1;
            digits(&mut i)?;
        }
        if let Some(b'e' | b'E') = b.get(i) {
            i += 1;
            if let Some(b'+' | b'-') = b.get(i) {
                i += 1;
            }
            if digits(&mut i)? > 2 {
                return None;
            }
        }
        if int_digits > 200 {
            return None;
        }
        self.i = i;
        Some(())
    }

    /// A text field: a string or an integer; `Some(None)` for `null`.
    #[inline(always)]
    fn text(&mut self) -> Option<Option<Span>> {
        match self.peek()? {
            b'"' => {
                self.i += 1;
                self.string().map(Some)
            }
            b'n' => self.literal(b"null").map(|()| None),
            _ => {
                let start = self.i;
                let n = self.number()?;
                n.is_text().then_some(Some(Span {
                    start,
                    end: self.i,
                    escaped: false,
                }))
            }
        }
    }

    /// `rollout`: an integer fitting a `u64`; `Some(None)` for `null`.
    #[inline(always)]
    fn rollout(&mut self) -> Option<Option<u64>> {
        if self.peek()? == b'n' {
            return self.literal(b"null").map(|()| None);
        }
        let n = self.number()?;
        if n.int && !n.neg {
            n.magnitude.map(Some)
        } else {
            None
        }
    }

    /// `correct`: a verdict, or `None` inside for `null`.
    #[inline(always)]
    fn correct(&mut self) -> Option<Option<Verdict>> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| Some(Verdict::Correct)),
            b'f' => self.literal(b"false").map(|()| Some(Verdict::Wrong)),
            b'n' => self.literal(b"null").map(|()| None),
            _ => self.number()?.verdict().map(Some),
        }
    }

    /// A budget: an integer up to 2⁵³ (exact as an `f64`); `Some(None)`
    /// for `null`; other numbers are left to serde.
    fn budget(&mut self) -> Option<Option<f64>> {
        if self.peek()? == b'n' {
            return self.literal(b"null").map(|()| None);
        }
        let n = self.number()?;
        match n.magnitude {
            Some(m) if n.int && !n.neg && m <= 1 << 53 => Some(Some(m as f64)),
            _ => None,
        }
    }

    /// `n` or `c` of a count row: an integer fitting a `u64`; `Some(None)`
    /// for `null` (what `rollout` reads).
    #[inline(always)]
    fn count(&mut self) -> Option<Option<u64>> {
        self.rollout()
    }

    /// `truncated`: a boolean; `Some(None)` for `null`.
    fn boolean(&mut self) -> Option<Option<bool>> {
        match self.peek()? {
            b't' => self.literal(b"true").map(|()| Some(true)),
            b'f' => self.literal(b"false").map(|()| Some(false)),
            b'n' => self.literal(b"null").map(|()| None),
            _ => None,
        }
    }

    /// A scalar value, checked and dropped.
    #[inline(always)]
    fn skip_scalar(&mut self) -> Option<()> {
        match self.peek()? {
            b'"' => {
                self.i += 1;
                self.string().map(drop)
            }
            b'-' | b'0'..=b'9' => self.number().map(drop),
            b't' => self.literal(b"true"),
            b'f' => self.literal(b"false"),
            b'n' => self.literal(b"null"),
            _ => None,
        }
    }

    /// Any value, checked and dropped.
    #[inline(always)]
    fn skip_value(&mut self) -> Option<()> {
        match self.peek()? {
            b'[' | b'{' => self.skip_nested(),
            _ => self.skip_scalar(),
        }
    }

    /// An array or object, checked and dropped: iteratively, the open ones
    /// a bit each in `open` (1: object).
    #[cold]
    fn skip_nested(&mut self) -> Option<()> {
        let mut open: u64 = 0;
        let mut depth = 0;
        loop {
            // At a value.
            match self.peek()? {
                c @ (b'[' | b'{') => {
                    self.i += 1;
                    self.ws();
                    let close = if c == b'{' { b'}' } else { b']' };
                    if self.peek()? == close {
                        self.i += 1;
                    } else {
                        depth += 1;
                        if depth > MAX_DEPTH {
                            return None;
                        }
                        open = open << 1 | u64::from(c == b'{');
                        if c == b'{' {
                            self.skip_key()?;
                        }
                        continue;
                    }
                }
                _ => self.skip_scalar()?,
            }
            // After a value: close what ends here, then a comma or the end.
            loop {
                if depth == 0 {
                    return Some(());
                }
                self.ws();
                let in_object = open & 1 == 1;
                match self.next()? {
                    b',' => {
                        self.ws();
                        if in_object {
                            self.skip_key()?;
                        }
                        break;
                    }
                    b'}' if in_object => {}
                    b']' if !in_object => {}
                    _ => return None,
                }
                depth -= 1;
                open >>= 1;
            }
        }
    }
}

/// Scans a flat rollout row: exactly what [`crate::fast::parse_flat`]
/// returns, or `None` to let it (and then the general path) decide.
pub(crate) fn scan_line<'a>(
    line: &'a [u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
) -> Option<FlatRow<'a>> {
    match scan_row(line, by, cluster_by)? {
        Scanned::Rollout(row) => Some(row),
        Scanned::Counts(_) => None,
    }
}

/// What [`scan_row`] read.
#[derive(Debug, PartialEq)]
pub(crate) enum Scanned<'a> {
    /// A flat rollout row, as [`crate::fast::parse_flat`] gives it.
    Rollout(FlatRow<'a>),
    /// A count row, as the general path reads it.
    Counts(FlatCounts<'a>),
}

/// Scans a flat rollout row or a count row: a rollout row exactly as
/// [`crate::fast::parse_flat`] returns it, a count row exactly as the
/// general path reads it, or `None` to let those decide.
pub(crate) fn scan_row<'a>(
    line: &'a [u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
) -> Option<Scanned<'a>> {
    if !handles_field(by) || !handles_field(cluster_by) {
        return None;
    }
    let (line, f) = scan_fields(line)?;
    if f.n.is_some() || f.c.is_some() {
        f.build_counts(line, by, cluster_by).map(Scanned::Counts)
    } else {
        f.build(line, by, cluster_by).map(Scanned::Rollout)
    }
}

/// One pass over a row: where its known fields lie, and their values.
#[inline(always)]
fn scan_fields(line: &[u8]) -> Option<(&str, Fields)> {
    let mut f = Fields::none();
    let mut unknown = UnknownKeys::default();
    let line = std::str::from_utf8(line).ok()?;
    let mut s = Scanner {
        line,
        b: line.as_bytes(),
        i: 0,
    };
    s.ws();
    s.eat(b'{')?;
    s.ws();
    if s.peek()? == b'}' {
        s.i += 1;
    } else {
        loop {
            s.eat(b'"')?;
            let name = s.key()?;
            let key = Key::of(&name);
            if f.seen & key.bit() != 0 {
                return None;
            }
            f.seen |= key.bit();
            f.read_value(&mut s, key, name, &mut unknown)?;
            s.ws();
            match s.next()? {
                b',' => s.ws(),
                b'}' => break,
                _ => return None,
            }
        }
    }
    s.ws();
    if s.i != s.b.len() {
        return None;
    }
    Some((line, f))
}

/// The unknown keys of a row (decoded), to refuse one given twice as the
/// other paths do. Rows with many unknown keys are left to serde.
struct UnknownKeys<'a> {
    keys: [Cow<'a, [u8]>; 16],
    len: usize,
}

impl Default for UnknownKeys<'_> {
    fn default() -> Self {
        UnknownKeys {
            keys: std::array::from_fn(|_| Cow::Borrowed(&[][..])),
            len: 0,
        }
    }
}

impl<'a> UnknownKeys<'a> {
    /// Adds a key; `None` if it was given before or cannot be kept here.
    #[inline(always)]
    fn insert(&mut self, name: Cow<'a, [u8]>) -> Option<()> {
        if self.len == self.keys.len() || self.keys[..self.len].contains(&name) {
            return None;
        }
        self.keys[self.len] = name;
        self.len += 1;
        Some(())
    }
}

/// The known fields of a scanned row.
struct Fields {
    /// The known keys given, a bit each (see [`Key::bit`]).
    seen: u32,
    /// Where the text fields' values lie, by slot; `values` has a bit for
    /// each given a value (not `null`), `escaped` for each to unescape.
    spans: [(usize, usize); TEXT_SLOTS],
    values: u32,
    escaped: u32,
    rollout: Option<u64>,
    /// `Some(None)` for `null`.
    correct: Option<Option<Verdict>>,
    truncated: Option<bool>,
    budget: Option<f64>,
    /// A count row's `n` and `c`, when given (not `null`).
    n: Option<u64>,
    c: Option<u64>,
}

impl Fields {
    /// No field seen yet.
    #[inline(always)]
    fn none() -> Fields {
        Fields {
            seen: 0,
            spans: [(0, 0); TEXT_SLOTS],
            values: 0,
            escaped: 0,
            rollout: None,
            correct: None,
            truncated: None,
            budget: None,
            n: None,
            c: None,
        }
    }

    /// Reads the value of key `key` (named `name`) at the scanner; a text
    /// field's value is kept as its span, an unknown key's is skipped.
    #[inline(always)]
    fn read_value<'a>(
        &mut self,
        s: &mut Scanner<'a>,
        key: Key,
        name: Cow<'a, [u8]>,
        unknown: &mut UnknownKeys<'a>,
    ) -> Option<()> {
        match key {
            Key::Text(slot) => {
                if let Some(span) = s.text()? {
                    self.spans[slot] = (span.start, span.end);
                    self.values |= 1 << slot;
                    self.escaped |= u32::from(span.escaped) << slot;
                }
            }
            Key::Rollout => self.rollout = s.rollout()?,
            Key::Correct => self.correct = Some(s.correct()?),
            Key::Truncated => self.truncated = s.boolean()?,
            Key::Count(0) => self.n = s.count()?,
            Key::Count(1) => self.c = s.count()?,
            Key::Count(_) => s.literal(b"null")?,
            Key::Budget => self.budget = s.budget()?,
            Key::Unknown => {
                unknown.insert(name)?;
                s.skip_value()?
            }
        }
        Some(())
    }

    #[inline(always)]
    fn get(&self, slot: usize) -> Option<Span> {
        (self.values & 1 << slot != 0).then(|| Span {
            start: self.spans[slot].0,
            end: self.spans[slot].1,
            escaped: self.escaped & 1 << slot != 0,
        })
    }

    /// A slot's text; `Some(None)` if absent or `null`, `None` if invalid.
    #[inline(always)]
    fn cow<'a>(&self, line: &'a str, slot: usize) -> Option<Option<Cow<'a, str>>> {
        match self.get(slot) {
            Some(span) => text_of(line, span).map(Some),
            None => Some(None),
        }
    }

    /// A count row, as the general path reads it: `n` and `c` both given,
    /// `c` ≤ `n`, and no `correct` or `gold` (which make it another kind of
    /// row, or an error the general path words).
    fn build_counts<'a>(
        &self,
        line: &'a str,
        by: Option<&str>,
        cluster_by: Option<&str>,
    ) -> Option<FlatCounts<'a>> {
        let (n, c) = (self.n?, self.c?);
        let other_kind = Key::Correct.bit() | Key::Text(GOLD).bit();
        if c > n || self.seen & other_kind != 0 {
            return None;
        }
        let problem = self.cow(line, PROBLEM)??;
        if problem.is_empty() {
            return None;
        }
        let labels = self.labels(line, by, cluster_by)?;
        Some(FlatCounts::new(problem, n, c, labels))
    }

    /// The label fields of a row (system, subset, `--by` and
    /// `--cluster-by` values), as [`FlatExtra`] without gold and response.
    #[inline(always)]
    fn labels<'a>(
        &self,
        line: &'a str,
        by: Option<&str>,
        cluster_by: Option<&str>,
    ) -> Option<FlatExtra<'a>> {
        let model = self.cow(line, MODEL)?;
        let run = self.cow(line, RUN)?;
        let subset = self.cow(line, SUBSET)?;
        let group = self.cow(line, GROUP)?;
        let pick = |field: Option<&str>| {
            slot_of(field).and_then(|slot| match slot {
                SUBSET => subset.clone(),
                GROUP => group.clone(),
                MODEL => model.clone(),
                _ => run.clone(),
            })
        };
        Some(FlatExtra {
            by_value: pick(by),
            cluster_value: pick(cluster_by),
            system: join_system(model, run),
            subset,
            gold: None,
            response: None,
        })
    }

    /// The row, as `parse_flat` builds it from its `Row`.
    #[inline(always)]
    fn build<'a>(
        &self,
        line: &'a str,
        by: Option<&str>,
        cluster_by: Option<&str>,
    ) -> Option<FlatRow<'a>> {
        // A text field other than `answer` reads `null` as absent.
        let problem = self.cow(line, PROBLEM)?;
        let status = self.cow(line, STATUS)?;
        let finish_reason = self.cow(line, FINISH_REASON)?;
        let labels = self.labels(line, by, cluster_by)?;
        let answer_given = self.seen & Key::Text(ANSWER).bit() != 0;
        let answer = match (answer_given, self.get(ANSWER)) {
            (false, _) => FlatAnswer::Unknown,
            (true, None) => FlatAnswer::Unextracted,
            (true, Some(span)) => FlatAnswer::Text(text_of(line, span)?),
        };
        let has = |slot: usize| self.get(slot).is_some();
        let failed_status = status.as_deref().is_some_and(is_failed_status);
        let verdict = match (self.correct, failed_status) {
            (_, true) => Some(Verdict::Failed),
            (Some(v), _) => Some(v.unwrap_or(Verdict::Failed)),
            (None, _) if has(GOLD) && (answer_given || has(RESPONSE)) => None,
            (None, _) => return None,
        };
        // Gold and response are kept only to grade a row without a verdict
        // (their escapes are checked either way).
        let (gold, response) = if verdict.is_none() {
            (self.cow(line, GOLD)?, self.cow(line, RESPONSE)?)
        } else {
            (None, None)
        };
        let problem = problem?;
        if problem.is_empty() {
            return None;
        }
        let mut row = FlatRow::new(
            problem,
            self.rollout,
            verdict,
            answer,
            is_truncated(finish_reason.as_deref(), self.truncated),
            FlatExtra {
                gold,
                response,
                ..labels
            },
        );
        row.budget = self.budget;
        Some(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fast::parse_flat;
    use std::io::BufRead;

    /// The contract for one line: `None`, or what `parse_flat` gives (a
    /// scanned count row: what the general path gives); and whatever
    /// `parse_flat` gives, the general path gives too (and when it refuses
    /// the line, both fast paths do). Returns whether the scan accepted it.
    fn agrees(line: &[u8], by: Option<&str>, cluster_by: Option<&str>) -> bool {
        let shown = String::from_utf8_lossy(line);
        if let Some(Scanned::Counts(row)) = scan_row(line, by, cluster_by) {
            let general =
                crate::source::parse_general(line, by, cluster_by, Some(crate::fast::FAST_BUDGET))
                    .unwrap_or_else(|e| {
                        panic!("count row scanned, general path refused ({e}): {shown}")
                    });
            assert_eq!(
                row.into_record(),
                general,
                "{shown} by {by:?} cluster by {cluster_by:?}"
            );
            assert_eq!(parse_flat(line, by, cluster_by), None, "{shown}");
            return true;
        }
        let scanned = scan_line(line, by, cluster_by);
        let flat = parse_flat(line, by, cluster_by);
        if let Some(row) = &scanned {
            assert_eq!(
                Some(row),
                flat.as_ref(),
                "{shown} by {by:?} cluster by {cluster_by:?}"
            );
        }
        let general =
            crate::source::parse_general(line, by, cluster_by, Some(crate::fast::FAST_BUDGET));
        if let Some(row) = flat {
            let general = general.unwrap_or_else(|e| {
                panic!("fast path accepted, general path refused ({e}): {shown}")
            });
            assert_eq!(
                row.into_record(),
                crate::fast::kept_by_fast_path(general),
                "{shown} by {by:?} cluster by {cluster_by:?}"
            );
        }
        scanned.is_some()
    }

    /// Count rows are scanned as the general path reads them; rows that
    /// are not count rows after all, or bad ones (which the general path
    /// words), are left to it.
    #[test]
    fn count_rows_agree_with_the_general_path() {
        let scanned = [
            r#"{"problem": 0, "n": 16, "c": 3}"#,
            r#"{"problem": "a", "n": 4, "c": 4, "model": "m", "run": "r", "subset": "s", "group": "g"}"#,
            r#"{"c": 0, "problem": -7, "n": 0, "rollout": null, "answer": "x", "extra": [1, {"y": 2}]}"#,
            r#"{"problem": "a\u0062", "n": 18446744073709551615, "c": 1, "answers": null, "score": null}"#,
            r#"{"problem": "p", "n": 2, "c": 1, "output_tokens": 7, "status": "failed", "truncated": true}"#,
        ];
        for line in scanned {
            for by in BYS {
                for cluster_by in BYS {
                    assert!(
                        agrees(line.as_bytes(), by, cluster_by),
                        "not scanned: {line}"
                    );
                }
            }
            assert!(
                matches!(
                    scan_row(line.as_bytes(), None, None),
                    Some(Scanned::Counts(_))
                ),
                "{line}"
            );
        }
        let left: &[&str] = &[
            r#"{"problem": "a", "n": 2, "c": 3}"#,
            r#"{"problem": "a", "n": 2}"#,
            r#"{"problem": "a", "c": 1, "n": null}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "correct": null}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "correct": [true, false]}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "gold": "1", "responses": ["1", "2"]}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "gold": null}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "answers": ["1", "2"]}"#,
            r#"{"problem": "a", "n": 2.0, "c": 1}"#,
            r#"{"problem": "a", "n": -2, "c": 1}"#,
            r#"{"problem": "a", "n": "2", "c": 1}"#,
            r#"{"problem": "a", "n": 18446744073709551616, "c": 1}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "n": 3}"#,
            r#"{"problem": "", "n": 2, "c": 1}"#,
            r#"{"n": 2, "c": 1}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "model": ["m"]}"#,
            r#"{"problem": "a", "n": 2, "c": 1, "score": 0.5}"#,
        ];
        for line in left {
            assert!(!agrees(line.as_bytes(), None, None), "scanned: {line}");
        }
    }

    /// A selector score is read by the general parser only: neither fast
    /// path takes a row that has one.
    #[test]
    fn scored_rows_go_to_the_general_path() {
        for line in [
            r#"{"problem":"q","correct":true,"score":0.5}"#,
            r#"{"problem":"q","score":-1e-3,"correct":false,"answer":"7"}"#,
        ] {
            assert_eq!(scan_line(line.as_bytes(), None, None), None, "{line}");
            assert_eq!(parse_flat(line.as_bytes(), None, None), None, "{line}");
        }
    }

    #[test]
    fn unescape_refuses_what_escapes_refuses() {
        assert_eq!(
            unescape(r"a\tb\u00e9\ud83d\ude00\/").as_deref(),
            Some("a\tbé😀/")
        );
        for raw in [
            r"\",
            r"\x",
            r"\u12",
            r"\ud800",
            r"\ud800\u0041",
            r"\ud800\n\u0041",
            r"\udc00",
        ] {
            assert_eq!(unescape(raw), None, "{raw}");
        }
    }

    const BYS: [Option<&str>; 5] = [
        None,
        Some("subset"),
        Some("group"),
        Some("model"),
        Some("run"),
    ];

    #[test]
    fn scan_agrees_on_hand_written_rows() {
        // Rows the scanner must read itself.
        let common = [
            r#"{"problem":"p0","rollout":0,"correct":false,"answer":"298","gold":"295","finish_reason":"stop","output_tokens":714}"#,
            r#"{"problem": "a", "rollout": 3, "correct": true, "answer": "204", "finish_reason": "length"}"#,
            r#"{"problem": 7, "correct": 0, "answer": null, "model": "m", "run": "r", "subset": "s"}"#,
            r#"{"problem": "a\"b", "correct": 1.0, "answer": 12, "group": "g", "extra": {"x": [1, 2]}}"#,
            r#"{"problem": "a", "correct": null, "status": "ok"}"#,
            r#"{"problem": "a", "correct": true, "status": "Error"}"#,
            r#"{"problem": "a", "correct": true, "status": 5}"#,
            r#"{"problem": "a", "gold": "1", "response": "so \\boxed{1}"}"#,
            r#"{"problem": "a", "gold": "1", "answer": "2", "truncated": true}"#,
            r#"{"problem": "a", "gold": null, "answer": "2", "correct": 0.000}"#,
            r#"{"problem":"q","correct":1,"answer":"\\frac{1}{2}","gold":"\\frac12"}"#,
            r#"{"problem":"q","correct":1,"response":"line\nnext \"quoted\" \u00e9 \ud83d\ude00 \/ \b\f\r\t"}"#,
            r#"{"problem":"q","correct":1,"answer":"é 中 😀","model":"m","run":"r"}"#,
            r#"{"problem":-12,"correct":true,"answer":-9223372036854775808,"gold":18446744073709551615}"#,
            // An unknown float field (`score` is a selector score now, left to serde).
            r#"{"problem":"q","correct":false,"rollout":18446744073709551615,"loss":-1.5e-3,"ok":true,"no":false,"x":null}"#,
            r#"{"problem":"q","correct":true,"score":null}"#,
            r#"{"problem":"q","correct":true,"output_tokens":812,"x":[1]}"#,
            r#"{"problem":"q","correct":false,"meta":{"a":[],"b":{},"c":[[1,{"d":"e"}],"\u0041"]},"tags":["x","y"]}"#,
            r#"{"problem":"q","correct":true,"correct_ish":1,"problem_id":"z","Correct":2}"#,
            " \t{ \"problem\" :\"q\" , \"correct\"\n:\rtrue\t}\r\n ",
            r#"{"problem":"q","correct":true,"model":"m","run":"r","subset":"s","group":"g"}"#,
            r#"{"problem":"q","correct":1.000000000000000,"finish_reason":"max_tokens"}"#,
            r#"{"problem":"q","correct":true,"truncated":null,"rollout":null,"model":null}"#,
            r#"{"problem":"0","correct":true,"answer":""}"#,
            r#"{"problem":"q","correct":true,"n":null,"c":null,"answers":null}"#,
            r#"{"pro\u0062lem":"q","c\u006frrect":true,"\u00e9\n":1,"x":{"\ud83d\ude00":[]}}"#,
        ];
        for line in common {
            for by in BYS {
                for cluster_by in BYS {
                    assert!(
                        agrees(line.as_bytes(), by, cluster_by),
                        "not scanned: {line}"
                    );
                }
            }
        }
        // Rows the scanner may leave to serde; most of them serde refuses.
        let tricky: &[&[u8]] = &[
            br#"{"problem": "a", "correct": [true, false]}"#,
            br#"{"problem": "a", "n": 2, "c": 1}"#,
            br#"{"problem": "a", "correct": true, "answers": 1}"#,
            br#"{"problem": "a", "correct": "yes"}"#,
            br#"{"problem": 1.5, "correct": true}"#,
            br#"{"problem": 1e2, "correct": true}"#,
            br#"{"problem": -0, "correct": true}"#,
            br#"{"problem": 18446744073709551616, "correct": true}"#,
            br#"{"problem": -9223372036854775809, "correct": true}"#,
            br#"{"correct": true}"#,
            br#"{"problem": null, "correct": true}"#,
            br#"{"problem": "a", "correct": true, "answer": 0.5}"#,
            br#"{"problem": "a", "correct": true, "correct": false}"#,
            br#"{"problem": "a", "correct": true, "gold": null, "gold": "1"}"#,
            br#"{"problem":"q","correct":true,"x":1,"x":2,"x":"\ud83d\ude00"}"#,
            br#"{"problem":"q","correct":true,"x":1,"\u0078":2}"#,
            br#"{"problem": "a"}"#,
            br#"{"problem": "", "correct": true}"#,
            br#"{"problem": "a", "correct": 2}"#,
            br#"{"problem": "a", "correct": -0}"#,
            br#"{"problem": "a", "correct": -0.0}"#,
            br#"{"problem": "a", "correct": 1e0}"#,
            br#"{"problem": "a", "correct": 0.5}"#,
            br#"{"problem": "a", "correct": 1.0000000000000000000001}"#,
            br#"{"problem": "a", "correct": 01}"#,
            br#"{"problem": "a", "correct": 1.}"#,
            br#"{"problem": "a", "correct": .5}"#,
            br#"{"problem": "a", "correct": +1}"#,
            br#"{"problem": "a", "correct": tru}"#,
            br#"{"problem": "a", "correct": truex}"#,
            br#"{"problem": "a", "correct": True}"#,
            br#"{"problem": "a", "correct": true, "rollout": -1}"#,
            br#"{"problem": "a", "correct": true, "rollout": -0}"#,
            br#"{"problem": "a", "correct": true, "rollout": 1.0}"#,
            br#"{"problem": "a", "correct": true, "rollout": 18446744073709551616}"#,
            br#"{"problem": "a", "correct": true, "rollout": "3"}"#,
            br#"{"problem": "a", "correct": true, "truncated": 1}"#,
            br#"{"problem": "a", "correct": true, "x": 00}"#,
            br#"{"problem": "a", "correct": true, "x": 1e}"#,
            br#"{"problem": "a", "correct": true, "x": -}"#,
            br#"{"problem": "a", "correct": true, "x": [1,]}"#,
            br#"{"problem": "a", "correct": true, "x": {"a" 1}}"#,
            br#"{"problem": "a", "correct": true, "x": {"a":1,}}"#,
            br#"{"problem": "a", "correct": true, "x": [1 2]}"#,
            br#"{"problem": "a", "correct": true, "x": [}"#,
            br#"{"problem": "a", "correct": true,}"#,
            br#"{"problem": "a" "correct": true}"#,
            br#"{"problem": "a", "correct": true} x"#,
            br#"{"problem": "a", "correct": true}}"#,
            br#"{"problem": "a", "correct": true"#,
            br#"{"problem": "a", "correct": "#,
            br#"{"problem": "a"#,
            br#"{"problem"#,
            br#"{"#,
            b"",
            b"   ",
            br#"["a", 0, true]"#,
            br#"{"pro\u0062lem": "a", "correct": true}"#,
            br#"{"problem": "a\u0000", "correct": true}"#,
            br#"{"problem": "a\x", "correct": true}"#,
            br#"{"problem": "a\u12", "correct": true}"#,
            br#"{"problem": "a\u12G4", "correct": true}"#,
            br#"{"problem": "\ud800", "correct": true}"#,
            br#"{"problem": "\udc00", "correct": true}"#,
            br#"{"problem": "\ud800\u0041", "correct": true}"#,
            br#"{"problem": "\ud800\n", "correct": true}"#,
            br#"{"problem": "\ud800\ud800\udc00", "correct": true}"#,
            br#"{"problem": "a", "correct": true, "x": "\udc00"}"#,
            br#"{"problem": "a", "correct": true, "x": "\ud800"}"#,
            br#"{"problem": "a", "correct": true, "x": 1e400}"#,
            br#"{"problem": "a", "correct": true, "x": -1e99999999999}"#,
            br#"{"problem": "a", "correct": true, "x": 1e-400}"#,
            b"{\"problem\": \"a\tb\", \"correct\": true}",
            b"{\"problem\": \"a\x7fb\", \"correct\": true}",
            b"{\"problem\": \"a\xffb\", \"correct\": true}",
            b"{\"problem\": \"\xc3\", \"correct\": true}",
            b"{\"problem\": \"\xed\xa0\x80\", \"correct\": true}",
            b"{\"problem\": \"\xc0\x80\", \"correct\": true}",
            b"{\"problem\": \"a\", \"correct\": true, \"x\": \"\xff\"}",
            b"{\"problem\": \"a\", \"correct\": true, \"\xff\": 1}",
            b"{\"problem\": \"a\", \"correct\": true}\x0c",
            b"\xef\xbb\xbf{\"problem\": \"a\", \"correct\": true}",
            b"{\"problem\":\xc2\xa0\"a\", \"correct\": true}",
        ];
        for &line in tricky {
            for by in BYS {
                agrees(line, by, None);
            }
        }
        // Unusual `--by` fields go to serde (and, after it, the general path).
        let line = common[0].as_bytes();
        assert!(scan_line(line, Some("problem"), None).is_none());
        assert!(scan_line(line, None, Some("answer")).is_none());
        // Deep nesting under an unknown key is left to serde.
        let deep = format!(
            r#"{{"problem":"a","correct":true,"x":{}1{}}}"#,
            "[".repeat(100),
            "]".repeat(100)
        );
        assert!(scan_line(deep.as_bytes(), None, None).is_none());
        let fine = format!(
            r#"{{"problem":"a","correct":true,"x":{}1{}}}"#,
            "[".repeat(60),
            "]".repeat(60)
        );
        assert!(agrees(fine.as_bytes(), None, None));
    }

    /// xorshift64*: a seeded generator, so failures reproduce.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }
        /// True `percent` times in a hundred.
        fn chance(&mut self, percent: usize) -> bool {
            self.below(100) < percent
        }
        fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
            xs[self.below(xs.len())]
        }
    }

    /// Random rows from a grammar of rollout rows, mostly valid.
    struct Gen {
        rng: Rng,
        /// Whether the row being built holds an array or object.
        nested: bool,
    }

    const NUMBERS: [&str; 23] = [
        "0",
        "1",
        "2",
        "7",
        "42",
        "-1",
        "-0",
        "-17",
        "0.0",
        "1.0",
        "1.000",
        "-0.0",
        "0.5",
        "1e0",
        "2E-3",
        "1e+2",
        "-1.5e-3",
        "18446744073709551615",
        "18446744073709551616",
        "99999999999999999999999",
        "-9223372036854775808",
        "-9223372036854775809",
        "1.0000000000000000000001",
    ];

    /// Numbers serde refuses, or may refuse.
    const BAD_NUMBERS: [&str; 12] = [
        "01", "1.", "-", ".5", "+1", "1e", "00", "-01", "1e400", "1.e3", "0x10", "1_000",
    ];

    impl Gen {
        fn ws(&mut self, out: &mut Vec<u8>) {
            match self.rng.below(12) {
                0..=6 => {}
                7..=9 => out.push(b' '),
                10 => {
                    for _ in 0..1 + self.rng.below(3) {
                        out.push(self.rng.pick(b" \t\n\r"));
                    }
                }
                _ => {
                    if self.rng.chance(3) {
                        out.extend_from_slice(self.rng.pick(&[&b"\x0c"[..], b"\xc2\xa0", b"\x0b"]));
                    }
                }
            }
        }

        fn string(&mut self, out: &mut Vec<u8>, long: bool) {
            out.push(b'"');
            let pieces = if long {
                self.rng.below(80)
            } else {
                self.rng.below(8)
            };
            for _ in 0..pieces {
                match self.rng.below(24) {
                    0..=11 => {
                        let c = loop {
                            let c = 0x20 + self.rng.below(95) as u8;
                            if c != b'"' && c != b'\\' {
                                break c;
                            }
                        };
                        out.push(c);
                    }
                    12 => out.extend_from_slice(self.rng.pick(&[
                        &br#"\""#[..],
                        br"\\",
                        br"\/",
                        br"\b",
                        br"\f",
                        br"\n",
                        br"\r",
                        br"\t",
                    ])),
                    13 => {
                        let n = loop {
                            let n = self.rng.below(0x1_0000);
                            if !(0xD800..0xE000).contains(&n) {
                                break n;
                            }
                        };
                        let s = if self.rng.chance(50) {
                            format!("\\u{n:04x}")
                        } else {
                            format!("\\u{n:04X}")
                        };
                        out.extend_from_slice(s.as_bytes());
                    }
                    14 => {
                        let c = 0x1_0000 + self.rng.below(0x10_0000) as u32;
                        let mut units = [0u16; 2];
                        let units = char::from_u32(c).unwrap().encode_utf16(&mut units);
                        out.extend_from_slice(
                            format!("\\u{:04x}\\u{:04X}", units[0], units[1]).as_bytes(),
                        );
                    }
                    15 => out.extend_from_slice(
                        self.rng
                            .pick(&["é", "中", "😀", "∑", "ß", "\u{7f}"])
                            .as_bytes(),
                    ),
                    16 => out.extend_from_slice(br"\\frac{1}{2}"),
                    17 => out.extend_from_slice(br"\\boxed{\\sqrt{3}}"),
                    18 => {
                        if self.rng.chance(25) {
                            // Rarely, something serde refuses in a string it reads.
                            out.extend_from_slice(self.rng.pick(&[
                                &br"\ud800"[..],
                                br"\udfff",
                                br"\ud800\u0041",
                                br"\ud83d\n",
                                br"\x",
                                br"\u12g4",
                                b"\x01",
                                b"\t",
                                b"\xff",
                                b"\xc3",
                                b"\xed\xa0\x80",
                                b"\xc0\xaf",
                            ]));
                        }
                    }
                    _ => out.extend_from_slice(b"x"),
                }
            }
            out.push(b'"');
        }

        fn number(&mut self, out: &mut Vec<u8>) {
            if self.rng.chance(40) {
                let digits = 1 + self.rng.below(22);
                if self.rng.chance(20) {
                    out.push(b'-');
                }
                out.push(b'1' + self.rng.below(9) as u8);
                for _ in 1..digits {
                    out.push(b'0' + self.rng.below(10) as u8);
                }
            } else if self.rng.chance(90) {
                out.extend_from_slice(self.rng.pick(&NUMBERS).as_bytes());
            } else {
                out.extend_from_slice(self.rng.pick(&BAD_NUMBERS).as_bytes());
            }
        }

        fn scalar(&mut self, out: &mut Vec<u8>) {
            match self.rng.below(6) {
                0 | 1 => self.string(out, false),
                2 | 3 => self.number(out),
                _ => out.extend_from_slice(self.rng.pick(&["true", "false", "null"]).as_bytes()),
            }
        }

        fn value(&mut self, out: &mut Vec<u8>, depth: usize) {
            if depth < 4 && self.rng.chance(8) {
                self.nested = true;
                let object = self.rng.chance(50);
                out.push(if object { b'{' } else { b'[' });
                self.ws(out);
                for k in 0..self.rng.below(4) {
                    if k > 0 {
                        out.push(b',');
                        self.ws(out);
                    }
                    if object {
                        self.string(out, false);
                        self.ws(out);
                        out.push(b':');
                        self.ws(out);
                    }
                    self.value(out, depth + 1);
                    self.ws(out);
                }
                out.push(if object { b'}' } else { b']' });
            } else {
                self.scalar(out);
            }
        }

        /// A value for a text field: mostly a string.
        fn text(&mut self, out: &mut Vec<u8>, long: bool) {
            match self.rng.below(20) {
                0..=14 => self.string(out, long),
                15 | 16 => self.number(out),
                17 => out.extend_from_slice(b"null"),
                _ => self.value(out, 0),
            }
        }

        fn field_value(&mut self, key: &str, out: &mut Vec<u8>) {
            match key {
                "problem" if self.rng.chance(90) => {
                    out.extend_from_slice(format!("\"p{}\"", self.rng.below(1000)).as_bytes())
                }
                "correct" => match self.rng.below(20) {
                    0..=13 => out.extend_from_slice(self.rng.pick(&["true", "false"]).as_bytes()),
                    14 | 15 => out.extend_from_slice(self.rng.pick(&["0", "1", "null"]).as_bytes()),
                    16 => out.extend_from_slice(
                        self.rng.pick(&["0.0", "1.0", "1.00", "0.000"]).as_bytes(),
                    ),
                    _ => self.value(out, 0),
                },
                "rollout" => match self.rng.below(10) {
                    0..=6 => out.extend_from_slice(self.rng.below(100).to_string().as_bytes()),
                    7 => out.extend_from_slice(b"null"),
                    _ => self.value(out, 0),
                },
                "truncated" => match self.rng.below(10) {
                    0..=7 => {
                        out.extend_from_slice(self.rng.pick(&["true", "false", "null"]).as_bytes())
                    }
                    _ => self.value(out, 0),
                },
                "finish_reason" if self.rng.chance(80) => out.extend_from_slice(self.rng.pick(&[
                    &br#""stop""#[..],
                    br#""length""#,
                    br#""max_tokens""#,
                ])),
                "status" if self.rng.chance(80) => out.extend_from_slice(self.rng.pick(&[
                    &br#""ok""#[..],
                    br#""Error""#,
                    br#""TIMEOUT""#,
                    br#""failed""#,
                ])),
                "response" => self.text(out, true),
                _ if KNOWN.contains(&key) => self.text(out, false),
                _ => self.value(out, 0),
            }
        }

        /// A row, and whether it is as generated (not corrupted afterwards).
        fn row(&mut self) -> (Vec<u8>, bool) {
            self.nested = false;
            let mut keys: Vec<Vec<u8>> = Vec::new();
            for (key, percent) in [
                ("problem", 98),
                ("correct", 85),
                ("rollout", 60),
                ("answer", 60),
                ("gold", 50),
                ("response", 20),
                ("finish_reason", 40),
                ("truncated", 10),
                ("status", 10),
                ("model", 30),
                ("run", 15),
                ("subset", 25),
                ("group", 25),
                ("n", 1),
                ("c", 1),
                ("answers", 1),
            ] {
                if self.rng.chance(percent) {
                    keys.push(key.as_bytes().to_vec());
                }
            }
            for _ in 0..self.rng.below(4) {
                let mut name = Vec::new();
                self.string(&mut name, false);
                keys.push(name[1..name.len() - 1].to_vec());
            }
            if self.rng.chance(3) {
                keys.push(
                    self.rng
                        .pick(&[&br"pro\u0062lem"[..], br"correct\n", "ké".as_bytes()])
                        .to_vec(),
                );
            }
            if self.rng.chance(4) && !keys.is_empty() {
                let k = keys[self.rng.below(keys.len())].clone();
                keys.push(k);
            }
            for i in (1..keys.len()).rev() {
                keys.swap(i, self.rng.below(i + 1));
            }
            let mut out = Vec::new();
            self.ws(&mut out);
            out.push(b'{');
            self.ws(&mut out);
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                    self.ws(&mut out);
                }
                out.push(b'"');
                out.extend_from_slice(key);
                out.push(b'"');
                self.ws(&mut out);
                out.push(b':');
                self.ws(&mut out);
                self.field_value(std::str::from_utf8(key).unwrap_or(""), &mut out);
                self.ws(&mut out);
            }
            out.push(b'}');
            self.ws(&mut out);
            if self.rng.chance(75) {
                return (out, true);
            }
            for _ in 0..1 + self.rng.below(2) {
                let at = self.rng.below(out.len() + 1);
                match self.rng.below(4) {
                    0 if at < out.len() => {
                        out.remove(at);
                    }
                    1 => out.insert(at, self.rng.pick(b"\"\\,:{}[] 0-1e.\x00\x1f\x80\xffnt")),
                    2 => out.truncate(at),
                    _ if at < out.len() => out[at] = self.rng.pick(b"\"\\,:{}[]x09\n\x80"),
                    _ => {}
                }
            }
            (out, false)
        }
    }

    const KNOWN: [&str; 13] = [
        "problem",
        "rollout",
        "correct",
        "answer",
        "gold",
        "response",
        "finish_reason",
        "truncated",
        "status",
        "model",
        "run",
        "subset",
        "group",
    ];

    #[test]
    fn scan_agrees_with_serde_on_random_rows() {
        // SCAN_FUZZ_SEED and SCAN_FUZZ_ROWS explore further.
        let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        let mut gen = Gen {
            rng: Rng(env("SCAN_FUZZ_SEED").unwrap_or(0x9e37_79b9_7f4a_7c15) | 1),
            nested: false,
        };
        let (mut flat_rows, mut flat_scanned) = (0usize, 0usize);
        let (mut nested_rows, mut nested_scanned) = (0usize, 0usize);
        let (mut all, mut scanned, mut parsed) = (0usize, 0usize, 0usize);
        for _ in 0..env("SCAN_FUZZ_ROWS").unwrap_or(200_000) {
            let (line, intact) = gen.row();
            let by = gen.rng.pick(&BYS);
            let cluster_by = gen.rng.pick(&BYS);
            let ok = agrees(&line, by, cluster_by);
            let serde_ok = parse_flat(&line, by, cluster_by).is_some();
            all += 1;
            scanned += usize::from(ok);
            parsed += usize::from(serde_ok);
            if intact && serde_ok {
                if gen.nested {
                    nested_rows += 1;
                    nested_scanned += usize::from(ok);
                } else {
                    flat_rows += 1;
                    flat_scanned += usize::from(ok);
                }
            }
        }
        eprintln!(
            "{all} rows: parse_flat read {parsed}, scan_line {scanned}; of the intact rows \
             parse_flat reads, flat: {flat_rows}, scanned {flat_scanned}; \
             nested: {nested_rows}, scanned {nested_scanned}"
        );
        assert!(flat_rows > 50_000, "too few readable rows: {flat_rows}");
        assert!(
            flat_scanned * 10 >= flat_rows * 9,
            "scanned {flat_scanned} of {flat_rows} flat rows"
        );
    }

    fn bench_file() -> Option<std::fs::File> {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../bench/data/rollouts_625000x16.jsonl"
        );
        std::fs::File::open(path).ok()
    }

    #[test]
    fn scan_reads_every_bench_row() {
        let Some(file) = bench_file() else {
            eprintln!("bench/data/rollouts_625000x16.jsonl absent: skipped");
            return;
        };
        for line in std::io::BufReader::new(file).lines().take(2000) {
            let line = line.unwrap();
            for by in BYS {
                assert!(
                    agrees(line.as_bytes(), by, Some("group")),
                    "not scanned: {line}"
                );
            }
        }
    }

    /// Throughput of both fast paths on the bench rows; not a timed test:
    /// `cargo test --release -p rollstat-io scan_throughput -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn scan_throughput() {
        use std::hint::black_box;
        use std::io::Read;
        use std::time::Instant;
        let Some(file) = bench_file() else {
            eprintln!("bench/data/rollouts_625000x16.jsonl absent: skipped");
            return;
        };
        let mut bytes = Vec::new();
        file.take(120 << 20).read_to_end(&mut bytes).unwrap();
        let end = memchr::memrchr(b'\n', &bytes).unwrap();
        bytes.truncate(end + 1);
        let lines: Vec<&[u8]> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.is_empty())
            .collect();
        let mb = bytes.len() as f64 / 1e6;
        // The best of several rounds: the machine may be shared.
        let (mut best_scan, mut best_serde) = (f64::MAX, f64::MAX);
        for _ in 0..7 {
            let t = Instant::now();
            let mut fallbacks = 0usize;
            for line in &lines {
                let row = scan_line(black_box(line), None, None);
                fallbacks += usize::from(black_box(&row).is_none());
            }
            best_scan = best_scan.min(t.elapsed().as_secs_f64());
            let t = Instant::now();
            let mut misses = 0usize;
            for line in &lines {
                let row = parse_flat(black_box(line), None, None);
                misses += usize::from(black_box(&row).is_none());
            }
            best_serde = best_serde.min(t.elapsed().as_secs_f64());
            eprintln!("{fallbacks} fallbacks, {misses} misses");
        }
        eprintln!(
            "{} lines, {mb:.0} MB: scan_line {:.0} MB/s, parse_flat {:.0} MB/s, {:.2}x",
            lines.len(),
            mb / best_scan,
            mb / best_serde,
            best_serde / best_scan
        );
        // Fallbacks over the whole file.
        let (mut all, mut fallbacks) = (0usize, 0usize);
        let reader = std::io::BufReader::with_capacity(1 << 20, bench_file().unwrap());
        for line in reader.split(b'\n') {
            let line = line.unwrap();
            all += 1;
            fallbacks += usize::from(scan_line(&line, None, None).is_none());
        }
        eprintln!("whole file: {fallbacks} fallbacks in {all} lines");
    }
}
