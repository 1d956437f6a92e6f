//! The responses of a gate's flipped problems: a second, bounded pass over
//! a side's sources.
//!
//! The first pass (compare's reading) keeps each rollout's verdict and
//! answer but drops its `response` text once graded: inputs can hold a
//! hundred million rollouts. Only a handful of problems are listed as
//! flipped, so their responses are read again afterwards: the same sources
//! through the same gathering (walk → decompression → detection → adapter,
//! [`crate::read::gather_with`]) and the same row parser
//! ([`RowFields::parse`], which keeps `response` where the fold's fast path
//! does not), keeping nothing for any other problem. Each response is cut
//! to a number of characters, so memory grows with the problems wanted,
//! not with the input.

use super::document::{BenchmarkRow, FlippedProblem, FlippedSide};
use super::sources::SuiteSources;
use crate::compare;
use crate::error::Result;
use crate::options::CompareOptions;
use crate::read::{canonical_rows, gather_with, Loaded, RowFields, Source};
use rayon::prelude::*;
use rollstat_formats::pipeline::{plain_name, Loaded as LoadedFile};
use rollstat_io::record::{parse_row_object, Record, RecordBody};
use rollstat_io::{Dedupe, Input, InputFormat};
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::io::Read;

/// The most characters of a response listed with a flipped problem; a
/// longer one is cut on a character boundary and ends with `…`.
pub(crate) const MAX_RESPONSE_CHARS: usize = 2_000;

/// A problem as the reader keys it within one system: (subset, id).
pub(crate) type ProblemKey = (Option<String>, String);

/// A wanted problem's rollouts in the reader's order (by rollout index,
/// a repeated index resolved as the reader resolves it): (index, response).
pub(crate) type Rollouts = Vec<(u64, Option<String>)>;

/// Bytes of a canonical JSON Lines file read at a time.
const BLOCK: usize = 8 << 20;

/// Every rollout of the `wanted` problems in `sources`, with its response
/// cut to `max_chars` characters (`None` where the row has none); nothing
/// is kept for any other problem. A rollout's index is its row's `rollout`
/// field, else its arrival order within the problem (position on a problem
/// row), as the reader numbers them; the list is in index order, one entry
/// per index (the first of a repeated one, the last under `--dedupe last`),
/// so it is aligned with the problem's rollout table. Rows that do not
/// parse are passed over (the first pass counted them).
pub(crate) fn responses(
    sources: &[Source],
    wanted: &HashSet<ProblemKey>,
    o: &CompareOptions,
    max_chars: usize,
) -> Result<HashMap<ProblemKey, Rollouts>> {
    if wanted.is_empty() {
        return Ok(HashMap::new());
    }
    let ro = compare::read_options(o, None);
    let pass = Pass {
        fields: RowFields::of(&ro),
        wanted,
        ids: wanted.iter().map(|(_, id)| id.as_str()).collect(),
        max_chars,
    };
    let mut fold = Fold::default();
    // Standard input was read by the first pass, and summaries hold no
    // rows. One source at a time, in order: a source's inputs are loaded
    // (a compressed file decompressed) only while it is read.
    for source in sources {
        if matches!(source, Source::Stdin | Source::Summary { .. }) {
            continue;
        }
        let one = std::slice::from_ref(source);
        let g = gather_with(one, o.source_format, &ro, o.metrics.decompress_limit)?;
        for loaded in g.loaded {
            pass.loaded(&loaded, &mut fold)?;
        }
    }
    Ok(fold.finish(ro.dedupe == Some(Dedupe::Last)))
}

/// One wanted row: its problem and its rollouts as (index as given,
/// response cut).
type Hit = (ProblemKey, Vec<(Option<u64>, Option<String>)>);

/// What one pass looks for.
struct Pass<'a> {
    fields: RowFields<'a>,
    wanted: &'a HashSet<ProblemKey>,
    /// The wanted problem ids, for a first look at a row.
    ids: HashSet<&'a str>,
    max_chars: usize,
}

impl Pass<'_> {
    /// Folds the wanted rows of one loaded input.
    fn loaded(&self, loaded: &Loaded<'_>, fold: &mut Fold) -> Result<()> {
        match loaded {
            Loaded::File(LoadedFile::CanonicalFile { path }) => {
                let input = Input::open(path)?;
                if input.format() == InputFormat::Csv {
                    self.csv(&input, fold);
                    return Ok(());
                }
                self.stream(input.into_reader(), path, fold)
            }
            Loaded::File(LoadedFile::Canonical { path, content, .. }) => {
                let name = plain_name(path);
                match sniff(&name, content) {
                    InputFormat::Csv => self.csv(&Input::from_bytes(&name, content.clone()), fold),
                    InputFormat::Jsonl => fold.extend(self.lines(strip_bom(content))),
                }
                Ok(())
            }
            Loaded::File(LoadedFile::Native(f)) => {
                fold.extend(f.rows.par_iter().filter_map(|m| self.map(m)).collect());
                Ok(())
            }
            Loaded::Rows { rows, .. } => {
                let hits = rows.par_iter().filter_map(|r| self.map(&r.as_map()));
                fold.extend(hits.collect());
                Ok(())
            }
            table @ Loaded::Table { .. } => {
                // A table's field maps are made all at once (its records,
                // like the fold's fast path, drop the responses).
                let maps = canonical_rows(table);
                let hits = maps
                    .par_iter()
                    .filter_map(|(_, m)| self.map(m.as_ref().ok()?));
                fold.extend(hits.collect());
                Ok(())
            }
        }
    }

    /// A canonical JSON Lines file, a block at a time.
    fn stream(&self, mut reader: Box<dyn Read + Send>, path: &str, fold: &mut Fold) -> Result<()> {
        let io = |e: std::io::Error| crate::error::Error::input(format!("{path}: {e}"));
        let (mut buf, mut first) = (Vec::with_capacity(BLOCK), true);
        loop {
            let start = buf.len();
            buf.resize(start + BLOCK, 0);
            let got = read_full(&mut reader, &mut buf[start..]).map_err(io)?;
            buf.truncate(start + got);
            let end = if got == 0 {
                buf.len()
            } else {
                match buf.iter().rposition(|&b| b == b'\n') {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            let block = if first {
                strip_bom(&buf[..end])
            } else {
                &buf[..end]
            };
            first = false;
            fold.extend(self.lines(block));
            buf.drain(..end);
            if got == 0 {
                return Ok(());
            }
        }
    }

    /// The wanted rows of JSON Lines, in order.
    fn lines(&self, bytes: &[u8]) -> Vec<Hit> {
        let lines: Vec<&[u8]> = bytes
            .split(|&b| b == b'\n')
            .filter(|l| !l.trim_ascii().is_empty())
            .collect();
        lines
            .par_iter()
            .with_min_len(256)
            .filter(|l| self.may_want(l))
            .filter_map(|l| self.map(&parse_row_object(l).ok()?))
            .collect()
    }

    /// Canonical CSV, parsed whole by the reader's own CSV parser.
    fn csv(&self, input: &Input, fold: &mut Fold) {
        let (f, mut hits) = (self.fields, Vec::new());
        for (_, r) in input.parse_rows_budget(f.by, f.cluster_by, f.budget) {
            if let Some(h) = r.ok().and_then(|r| self.record(r, None)) {
                hits.push(h);
            }
        }
        fold.extend(hits);
    }

    /// Whether a JSON line may be a wanted problem's row: its `problem` is
    /// a wanted id, or the line takes the full parse to tell.
    fn may_want(&self, line: &[u8]) -> bool {
        if let Some(id) = leading_id(line) {
            return std::str::from_utf8(id).map_or(true, |id| self.ids.contains(id));
        }
        #[derive(serde::Deserialize)]
        struct ProblemOnly {
            problem: Option<Value>,
        }
        match serde_json::from_slice::<ProblemOnly>(line) {
            Ok(p) => p.problem.as_ref().is_none_or(|v| self.id_wanted(v)),
            Err(_) => true,
        }
    }

    /// Whether a `problem` value may be a wanted id (anything but a string
    /// or a number is left to the parser, which refuses it).
    fn id_wanted(&self, v: &Value) -> bool {
        match v {
            Value::String(s) => self.ids.contains(s.as_str()),
            Value::Number(n) => self.ids.contains(n.to_string().as_str()),
            _ => true,
        }
    }

    /// A field map's record, when it is a wanted problem's.
    fn map(&self, m: &Map<String, Value>) -> Option<Hit> {
        if !m.get("problem").is_none_or(|v| self.id_wanted(v)) {
            return None;
        }
        self.record(self.fields.parse(m).ok()?, Some(m))
    }

    /// A record's rollouts, when it is a wanted problem's (`m`, its field
    /// map, holds a problem row's `responses`).
    fn record(&self, r: Record, m: Option<&Map<String, Value>>) -> Option<Hit> {
        let key = (r.subset, r.problem);
        if !self.wanted.contains(&key) {
            return None;
        }
        let cut = |s: Option<&str>| s.map(|s| truncate(s, self.max_chars));
        let rollouts = match r.body {
            RecordBody::Rollout {
                index, response, ..
            } => vec![(index, cut(response.as_deref()))],
            RecordBody::Problem { rollouts, .. } => {
                let given = m.and_then(|m| match m.get("responses") {
                    Some(Value::Array(a)) if a.len() == rollouts.len() => Some(a),
                    _ => None,
                });
                (0..rollouts.len())
                    .map(|i| (Some(i as u64), cut(given.and_then(|a| a[i].as_str()))))
                    .collect()
            }
            RecordBody::ProblemToGrade { rollouts, .. } => rollouts
                .iter()
                .enumerate()
                .map(|(i, (_, resp, _))| (Some(i as u64), cut(resp.as_deref())))
                .collect(),
            RecordBody::Counts { .. } => return None,
        };
        Some((key, rollouts))
    }
}

/// The id of a line that starts `{"problem": "` and whose id holds no
/// escape, as written (the id itself; a row whose `problem` is not first,
/// or escaped, or not a string gives `None`). A row of another id is not a
/// wanted problem's whatever the rest of the line holds: it is passed over
/// without parsing the rest (responses are most of a line).
fn leading_id(line: &[u8]) -> Option<&[u8]> {
    let rest = line
        .trim_ascii_start()
        .strip_prefix(b"{")?
        .trim_ascii_start();
    let rest = rest.strip_prefix(b"\"problem\"")?.trim_ascii_start();
    let rest = rest.strip_prefix(b":")?.trim_ascii_start();
    let rest = rest.strip_prefix(b"\"")?;
    let end = rest.iter().position(|&b| b == b'"' || b == b'\\')?;
    (rest[end] == b'"').then(|| &rest[..end])
}

/// Reads until `buf` is full or the input ends; how many bytes were read.
fn read_full(reader: &mut dyn Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match reader.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// The format the reader gives `content` named `name`: by its extension,
/// else its first byte that is not white space (only that much is copied).
fn sniff(name: &str, content: &[u8]) -> InputFormat {
    let bytes = strip_bom(content);
    let head = bytes
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .map_or(0, |i| i + 1);
    let skipped = content.len() - bytes.len();
    Input::from_bytes(name, content[..skipped + head].to_vec()).format()
}

/// The bytes without a leading UTF-8 byte-order mark.
fn strip_bom(bytes: &[u8]) -> &[u8] {
    bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes)
}

/// `s` cut to `max` characters on a character boundary, with `…`
/// appended when cut.
pub(crate) fn truncate(s: &str, max: usize) -> String {
    match s.char_indices().nth(max) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// The wanted problems' rollouts as rows arrive.
#[derive(Default)]
struct Fold {
    /// Per problem: rollouts arrived, and (index, response) in arrival order.
    problems: HashMap<ProblemKey, (u64, Rollouts)>,
}

impl Fold {
    /// Adds rows in input order; a rollout without an index is numbered by
    /// arrival within its problem.
    fn extend(&mut self, hits: Vec<Hit>) {
        for (key, rollouts) in hits {
            let (arrived, list) = self.problems.entry(key).or_default();
            for (index, response) in rollouts {
                list.push((index.unwrap_or(*arrived), response));
                *arrived += 1;
            }
        }
    }

    /// Each problem's rollouts by index, one per index: the first of a
    /// repeated one, or the last when `keep_last`.
    fn finish(self, keep_last: bool) -> HashMap<ProblemKey, Rollouts> {
        self.problems
            .into_iter()
            .map(|(key, (_, mut list))| {
                list.sort_by_key(|(i, _)| *i);
                list.dedup_by(|later, earlier| {
                    let same = later.0 == earlier.0;
                    if same && keep_last {
                        std::mem::swap(later, earlier);
                    }
                    same
                });
                (key, list)
            })
            .collect()
    }
}

/// Fills both sides' responses of every benchmark's flipped problems,
/// reading each side's sources again for those problems only. A side
/// whose sources cannot be read again lists none (a message says why);
/// a problem none of whose rollouts has a response lists none.
pub(crate) fn fill(rows: &mut [BenchmarkRow], sources: &SuiteSources, o: &CompareOptions) {
    let a: fn(&mut FlippedProblem) -> &mut FlippedSide = |f| &mut f.a;
    let b: fn(&mut FlippedProblem) -> &mut FlippedSide = |f| &mut f.b;
    match sources {
        SuiteSources::Declared(list) => {
            for row in rows.iter_mut() {
                let Some(decl) = list.iter().find(|d| d.name == row.name) else {
                    continue;
                };
                let one = std::slice::from_mut(row);
                fill_side(one, &decl.baseline, (a, "A"), o);
                fill_side(one, &decl.candidate, (b, "B"), o);
            }
        }
        SuiteSources::Discovered {
            baseline,
            candidate,
        } => {
            fill_side(rows, baseline, (a, "A"), o);
            fill_side(rows, candidate, (b, "B"), o);
        }
    }
}

/// Which side of a flipped problem to fill, and its label.
type Side = (fn(&mut FlippedProblem) -> &mut FlippedSide, &'static str);

/// Fills one side's responses of the flipped problems of `rows`, all read
/// from `sources` (one pass for them all).
fn fill_side(
    rows: &mut [BenchmarkRow],
    sources: &[Source],
    (side, label): Side,
    o: &CompareOptions,
) {
    let flipped = || rows.iter().flat_map(|r| &r.flipped);
    let wanted: HashSet<ProblemKey> = flipped().flat_map(|f| keys_of(&f.problem)).collect();
    if wanted.is_empty() || sources.is_empty() {
        return;
    }
    let got = match responses(sources, &wanted, o, MAX_RESPONSE_CHARS) {
        Ok(got) => got,
        Err(e) => {
            if let Some(sink) = &o.messages {
                sink.send(&format!(
                    "warning: the responses of {label}'s flipped problems were not read: {e}"
                ));
            }
            return;
        }
    };
    for f in rows.iter_mut().flat_map(|r| r.flipped.iter_mut()) {
        let Some(list) = keys_of(&f.problem).into_iter().find_map(|k| got.get(&k)) else {
            continue;
        };
        if list.iter().any(|(_, r)| r.is_some()) {
            side(f).responses = list.iter().map(|(_, r)| r.clone()).collect();
        }
    }
}

/// The keys a flipped problem's name (`subset/id`, or the id) may stand
/// for: the id alone, or a subset ending at any `/` (both may hold one).
fn keys_of(shown: &str) -> Vec<ProblemKey> {
    let mut keys = vec![(None, shown.to_string())];
    keys.extend(
        shown
            .match_indices('/')
            .map(|(i, _)| (Some(shown[..i].to_string()), shown[i + 1..].to_string())),
    );
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rows::{RolloutRow, Row};

    fn key(subset: Option<&str>, id: &str) -> ProblemKey {
        (subset.map(str::to_string), id.to_string())
    }

    fn read(source: Source, wanted: &[ProblemKey], max: usize) -> HashMap<ProblemKey, Rollouts> {
        let wanted: HashSet<ProblemKey> = wanted.iter().cloned().collect();
        responses(&[source], &wanted, &CompareOptions::default(), max).unwrap()
    }

    fn jsonl(name: &str, lines: &[&str]) -> Source {
        Source::Bytes {
            name: name.into(),
            bytes: lines.join("\n").into_bytes(),
        }
    }

    /// Only the wanted problems come back (a subset tells problems of the
    /// same id apart), numbered by arrival without a `rollout` field.
    #[test]
    fn canonical_bytes_give_the_wanted_problems_only() {
        let src = jsonl(
            "a.jsonl",
            &[
                r#"{"problem": "p1", "correct": true, "response": "one"}"#,
                r#"{"problem": "p2", "correct": true, "response": "other"}"#,
                r#"{"problem": "p1", "correct": false, "response": "two", "subset": "s"}"#,
                r#"{"problem": "p1", "correct": false, "response": "three"}"#,
                r#"{"problem": "p\u0031", "correct": false, "response": "escaped id"}"#,
                r#"{"problem": 7, "correct": false, "response": "a number"}"#,
                r#"not json"#,
            ],
        );
        let got = read(src, &[key(None, "p1"), key(None, "7")], 100);
        assert_eq!(got.len(), 2);
        let p1 = &got[&key(None, "p1")];
        let texts: Vec<_> = p1.iter().map(|(i, r)| (*i, r.as_deref())).collect();
        assert_eq!(
            texts,
            [
                (0, Some("one")),
                (1, Some("three")),
                (2, Some("escaped id"))
            ]
        );
        assert_eq!(got[&key(None, "7")], [(0, Some("a number".to_string()))]);
    }

    /// Cut on a character boundary, `…` appended only when cut.
    #[test]
    fn responses_are_cut_at_a_multibyte_character() {
        assert_eq!(truncate("ééééé", 3), "ééé…");
        assert_eq!(truncate("日本語", 3), "日本語");
        assert_eq!(truncate("a😀b", 2), "a😀…");
        let src = jsonl(
            "a.jsonl",
            &[r#"{"problem": "p", "correct": true, "response": "ñññññ"}"#],
        );
        assert_eq!(
            read(src, &[key(None, "p")], 2)[&key(None, "p")][0]
                .1
                .as_deref(),
            Some("ññ…")
        );
    }

    /// Rows without a response list `None`; rollouts come in index order,
    /// the first of a repeated index kept; a problem row's `responses`
    /// are read by position.
    #[test]
    fn rows_without_a_response_are_none() {
        let src = jsonl(
            "a.jsonl",
            &[
                r#"{"problem": "p", "rollout": 2, "correct": true, "response": "two"}"#,
                r#"{"problem": "p", "rollout": 0, "correct": true}"#,
                r#"{"problem": "p", "rollout": 1, "correct": false, "response": null}"#,
                r#"{"problem": "p", "rollout": 2, "correct": false, "response": "again"}"#,
                r#"{"problem": "q", "correct": [true, false], "responses": ["x", null]}"#,
                r#"{"problem": "r", "n": 4, "c": 2}"#,
            ],
        );
        let got = read(src, &[key(None, "p"), key(None, "q"), key(None, "r")], 100);
        let p: Vec<_> = got[&key(None, "p")]
            .iter()
            .map(|(i, r)| (*i, r.clone()))
            .collect();
        assert_eq!(p, [(0, None), (1, None), (2, Some("two".into()))]);
        assert_eq!(got[&key(None, "q")], [(0, Some("x".into())), (1, None)]);
        assert!(!got.contains_key(&key(None, "r")));
    }

    /// Under `--dedupe last` the last of a repeated rollout index is kept,
    /// as the reader keeps it.
    #[test]
    fn dedupe_last_keeps_the_last_response() {
        let src = jsonl(
            "a.jsonl",
            &[
                r#"{"problem": "p", "rollout": 0, "correct": true, "response": "first"}"#,
                r#"{"problem": "p", "rollout": 0, "correct": true, "response": "second"}"#,
            ],
        );
        let mut o = CompareOptions::default();
        o.metrics.dedupe = Some(Dedupe::Last);
        let wanted = HashSet::from([key(None, "p")]);
        let got = responses(&[src], &wanted, &o, 100).unwrap();
        assert_eq!(got[&key(None, "p")], [(0, Some("second".to_string()))]);
    }

    /// Rows in memory are read as rows from a file are.
    #[test]
    fn a_rows_source() {
        let row = |p: &str, response: Option<&str>| {
            Row::from(RolloutRow {
                response: response.map(str::to_string),
                fields: vec![("subset".into(), "s".into())],
                ..RolloutRow::new(p, true)
            })
        };
        let src = Source::Rows {
            name: "rows".into(),
            rows: vec![row("a", Some("ra")), row("b", Some("rb")), row("a", None)],
        };
        let got = read(src, &[key(Some("s"), "a")], 100);
        assert_eq!(got.len(), 1);
        assert_eq!(
            got[&key(Some("s"), "a")],
            [(0, Some("ra".into())), (1, None)]
        );
    }

    /// A canonical file is streamed a block at a time: every line is read,
    /// a byte-order mark at its start skipped.
    #[test]
    fn a_canonical_file() {
        let dir = std::env::temp_dir().join(format!("rollstat-responses-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.jsonl");
        let mut text = String::from("\u{feff}");
        for i in 0..3 {
            text.push_str(&format!(
                "{{\"problem\": \"p\", \"correct\": true, \"response\": \"r{i}\"}}\n"
            ));
        }
        std::fs::write(&path, text).unwrap();
        let got = read(Source::Path(path), &[key(None, "p")], 100);
        std::fs::remove_dir_all(&dir).unwrap();
        let texts: Vec<_> = got[&key(None, "p")]
            .iter()
            .map(|(_, r)| r.clone().unwrap())
            .collect();
        assert_eq!(texts, ["r0", "r1", "r2"]);
    }

    #[test]
    fn a_leading_id_is_read_only_when_plain() {
        assert_eq!(
            leading_id(br#" { "problem" : "p1", "x": 1}"#),
            Some(&b"p1"[..])
        );
        assert_eq!(leading_id(br#"{"problem":"","x": 1}"#), Some(&b""[..]));
        assert_eq!(leading_id(br#"{"problem": "p\u0031"}"#), None);
        assert_eq!(leading_id(br#"{"problem": 7}"#), None);
        assert_eq!(leading_id(br#"{"correct": true, "problem": "p"}"#), None);
    }

    #[test]
    fn a_shown_name_stands_for_the_id_or_a_subset_and_the_rest() {
        assert_eq!(
            keys_of("a/b/c"),
            [
                key(None, "a/b/c"),
                key(Some("a"), "b/c"),
                key(Some("a/b"), "c")
            ]
        );
    }
}
