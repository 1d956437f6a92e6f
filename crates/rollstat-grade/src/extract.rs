//! Final-answer extraction from model responses.

use std::str::FromStr;
use std::sync::OnceLock;

use regex::Regex;

use crate::limits::MAX_RESPONSE_LEN;

/// How to extract the final answer from a response.
///
/// Parsed from the strings `math`, `mcq`, `number` and `regex:PATTERN`:
///
/// ```
/// use rollstat_grade::ExtractMode;
/// let m: ExtractMode = "regex:ANSWER: (\\d+)".parse().unwrap();
/// assert!(matches!(m, ExtractMode::Regex(_)));
/// assert!("bogus".parse::<ExtractMode>().is_err());
/// ```
#[derive(Debug, Clone)]
pub enum ExtractMode {
    /// LaTeX / math answers (boxed, "final answer is", LaTeX spans, last number).
    Math,
    /// Multiple-choice letters `A`–`J`.
    Mcq,
    /// The final number only.
    Number,
    /// A user regex: first capture group (or the whole match) of the last match.
    Regex(Regex),
}

/// Error parsing an [`ExtractMode`].
///
/// ```
/// use rollstat_grade::{ExtractMode, ExtractModeError};
/// let e = "latex".parse::<ExtractMode>().unwrap_err();
/// assert!(matches!(e, ExtractModeError::Unknown(_)));
/// assert!(matches!("regex:(".parse::<ExtractMode>(), Err(ExtractModeError::Regex(_))));
/// ```
#[derive(Debug, thiserror::Error)]
pub enum ExtractModeError {
    /// Not one of `math`, `mcq`, `number`, `regex:PATTERN`.
    #[error("unknown extract mode '{0}' (expected math, mcq, number or regex:PATTERN)")]
    Unknown(String),
    /// The regex did not compile.
    #[error("invalid regex in extract mode: {0}")]
    Regex(#[from] regex::Error),
}

impl FromStr for ExtractMode {
    type Err = ExtractModeError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if let Some(p) = s.strip_prefix("regex:") {
            return Ok(ExtractMode::Regex(Regex::new(p)?));
        }
        match s.trim().to_ascii_lowercase().as_str() {
            "math" => Ok(ExtractMode::Math),
            "mcq" => Ok(ExtractMode::Mcq),
            "number" => Ok(ExtractMode::Number),
            _ => Err(ExtractModeError::Unknown(s.to_string())),
        }
    }
}

/// Keep at most the last `MAX_RESPONSE_LEN` bytes (on a char boundary).
pub(crate) fn tail(s: &str) -> &str {
    if s.len() <= MAX_RESPONSE_LEN {
        return s;
    }
    let mut start = s.len() - MAX_RESPONSE_LEN;
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

/// Find the index of the brace matching the `{` at `open` (byte index).
fn match_brace(s: &str, open: usize) -> Option<usize> {
    let b = s.as_bytes();
    let mut depth = 0usize;
    let mut i = open;
    while i < b.len() {
        match b[i] {
            b'\\' => {
                i += 2;
                continue;
            }
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
        i += 1;
    }
    None
}

#[derive(Debug, Clone)]
pub(crate) struct Span {
    start: usize,
    end: usize,
    pub(crate) content: String,
}

/// All `\boxed{..}` / `\fbox{..}` / `\boxed 5` spans (outermost only).
/// Linear time: a box starting inside an earlier box is skipped before its
/// braces are matched.
pub(crate) fn find_boxes(s: &str) -> Vec<Span> {
    let mut starts: Vec<(usize, usize)> = Vec::new();
    for kw in ["\\boxed", "\\fbox"] {
        starts.extend(s.match_indices(kw).map(|(p, _)| (p, kw.len())));
    }
    starts.sort_unstable();
    let mut out: Vec<Span> = Vec::new();
    let mut last_end = 0usize;
    for (pos, kwlen) in starts {
        if pos < last_end {
            continue;
        }
        let after = pos + kwlen;
        let rest = &s[after..];
        if rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        let ws = rest.len() - rest.trim_start().len();
        let r2 = &rest[ws..];
        let span = if r2.starts_with('{') {
            let open = after + ws;
            match match_brace(s, open) {
                Some(close) => Span {
                    start: pos,
                    end: close + 1,
                    content: s[open + 1..close].to_string(),
                },
                // unterminated: take the remaining text
                None => Span {
                    start: pos,
                    end: s.len(),
                    content: s[open + 1..].to_string(),
                },
            }
        } else if ws > 0 {
            // \boxed 5  : up to whitespace or $
            let end_rel = r2
                .find(|c: char| c.is_whitespace() || c == '$')
                .unwrap_or(r2.len());
            if end_rel == 0 {
                continue;
            }
            let e = after + ws + end_rel;
            Span {
                start: pos,
                end: e,
                content: s[after + ws..e].to_string(),
            }
        } else {
            continue;
        };
        last_end = span.end;
        out.push(span);
    }
    out
}

fn has_separator(gap: &str) -> bool {
    let g = gap.to_ascii_lowercase();
    g.contains(',')
        || g.contains(';')
        || g.split(|c: char| !c.is_ascii_alphabetic())
            .any(|w| w == "and" || w == "or")
}

/// Words that make a later box a revision of an earlier one rather than
/// the next part of one answer: `\boxed{5}, wait, it's \boxed{6}`,
/// `\boxed{5}. Actually, \boxed{6}`, `\boxed{5}; no, \boxed{6}`.
const REVISION_WORDS: &[&str] = &[
    "wait",
    "actually",
    "no",
    "oops",
    "sorry",
    "hmm",
    "mistake",
    "correction",
    "corrected",
    "instead",
    "rather",
    "but",
    "however",
    "recheck",
    "recalculate",
    "reconsider",
    "check",
    "so",
    "thus",
    "therefore",
    "hence",
    "hold",
];

/// Whether the text between two boxes revises the earlier one (a
/// [`REVISION_WORDS`] word): then the boxes are two attempts and the last
/// one is the answer.
fn revises(gap: &str) -> bool {
    gap.to_ascii_lowercase()
        .split(|c: char| !c.is_ascii_alphabetic())
        .any(|w| REVISION_WORDS.contains(&w))
}

/// Percent suffix right after position `end` (`%`, `\%`, `percent`, `pct`).
fn percent_after(s: &str, end: usize) -> bool {
    let rest = s[end..].trim_start_matches(['$', ' ', '}', ')']);
    let rest = rest.trim_start_matches("\\)");
    let rest = rest.trim_start();
    rest.starts_with('%')
        || rest.starts_with("\\%")
        || rest.starts_with("percent")
        || rest.starts_with("pct")
}

/// Whether `content` repeats a collected box: the same text, or (for the
/// first few parts) an equivalent answer (`\boxed{\frac12} = \boxed{0.5}`).
fn repeats(parts: &[String], content: &str) -> bool {
    const EQUIVALENCE_CHECKED: usize = 4;
    parts.iter().any(|p| p == content)
        || (parts.len() <= EQUIVALENCE_CHECKED
            && parts.iter().any(|p| crate::is_equivalent(p, content).equal))
}

/// Last box, joined with earlier boxes that are adjacent (< 10 characters
/// apart, no words in between) or close (< 70 characters) with a separator (`,`, `;`, `and`,
/// `or`) and no revision word ([`REVISION_WORDS`]) in between; repeated identical boxes count
/// once. Boxes that are not joined are earlier attempts: the last one is the answer.
fn boxes_answer(s: &str, boxes: &[Span]) -> Option<(String, usize)> {
    let last = boxes.last()?;
    let mut parts = vec![last.content.trim().to_string()];
    let mut cur = last;
    for b in boxes[..boxes.len() - 1].iter().rev() {
        let gap = &s[b.end..cur.start];
        let g = gap.chars().count();
        let content = b.content.trim().to_string();
        let wordless = gap
            .split(|c: char| !c.is_ascii_alphabetic())
            .all(|w| matches!(w, "" | "and" | "or" | "text" | "quad" | "qquad" | "mbox"));
        let join = (g < 10 && wordless) || (g < 70 && has_separator(gap) && !revises(gap));
        if !join {
            break;
        }
        if !repeats(&parts, &content) {
            parts.push(content);
        }
        cur = b;
        if parts.len() > 64 {
            break;
        }
    }
    parts.reverse();
    let mut ans = parts.join(", ");
    if percent_after(s, last.end) && !ans.trim_end().ends_with('%') {
        ans.push('%');
    }
    Some((ans, last.end))
}

/// The joined content of the boxes in `s` (see [`extract_answer`]).
pub(crate) fn joined_boxes(s: &str) -> Option<String> {
    let boxes = find_boxes(s);
    boxes_answer(s, &boxes).map(|(a, _)| a)
}

/// LaTeX math spans: `$$..$$`, `$..$`, `\(..\)`, `\[..\]`.
fn find_envs(s: &str) -> Vec<Span> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    // per closer kind: no closer of that kind is left in the text
    let mut unclosed = [false; 4];
    let mut i = 0;
    while i < b.len() {
        let (open_len, close, kind) = match env_opener(b, i) {
            Ok(opener) => opener,
            Err(step) => {
                i += step;
                continue;
            }
        };
        if unclosed[kind] {
            i += open_len;
            continue;
        }
        let cstart = i + open_len;
        match find_closer(b, cstart, close) {
            Some(j) => {
                let content = s.get(cstart..j).unwrap_or("").to_string();
                out.push(Span {
                    start: i,
                    end: j + close.len(),
                    content,
                });
                i = j + close.len();
            }
            None => {
                // no closer of this kind anywhere after: never search again
                unclosed[kind] = true;
                i += open_len;
            }
        }
    }
    out.retain(|e| !e.content.trim().is_empty());
    out
}

/// The math-span opener at `i`: its length, its closer and the closer's
/// kind (0 to 3); `Err(step)` when `i` opens no span (another escape `\x`
/// is stepped over whole).
fn env_opener(b: &[u8], i: usize) -> Result<(usize, &'static str, usize), usize> {
    if b[i] == b'\\' && i + 1 < b.len() {
        match b[i + 1] {
            b'(' => Ok((2, "\\)", 0)),
            b'[' => Ok((2, "\\]", 1)),
            _ => Err(2),
        }
    } else if b[i] == b'$' {
        if i + 1 < b.len() && b[i + 1] == b'$' {
            Ok((2, "$$", 2))
        } else {
            Ok((1, "$", 3))
        }
    } else {
        Err(1)
    }
}

/// The position of the first `close` at or after `from`, skipping escaped
/// characters.
fn find_closer(b: &[u8], from: usize, close: &str) -> Option<usize> {
    let mut j = from;
    while j < b.len() {
        if b[j..].starts_with(close.as_bytes()) {
            return Some(j);
        }
        if b[j] == b'\\' {
            j += 2;
            continue;
        }
        j += 1;
    }
    None
}

/// Last LaTeX span, joined with up to 4 preceding spans separated only by
/// `,`, `and`, `or`; a span repeating a joined one counts once.
fn envs_answer(s: &str, envs: &[Span]) -> Option<String> {
    let last = envs.last()?;
    let mut parts = vec![last.content.trim().to_string()];
    let mut cur = last;
    for e in envs[..envs.len() - 1].iter().rev() {
        let gap = s[e.end..cur.start].trim().to_ascii_lowercase();
        let gap = gap.trim_start_matches(',').trim();
        if matches!(gap, "" | "and" | "or") && parts.len() < 5 {
            let content = e.content.trim().to_string();
            if !repeats(&parts, &content) {
                parts.push(content);
            }
            cur = e;
        } else {
            break;
        }
    }
    parts.reverse();
    let mut ans = parts.join(", ");
    if percent_after(s, last.end) && !ans.trim_end().ends_with('%') {
        ans.push('%');
    }
    Some(ans)
}

fn number_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"\d{1,2}/\d{1,2}/\d{4}\b|\d{4}-\d{2}-\d{2}\b|-?\d+(?: +and)? +\d+/\d+\b|-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+|,\d+)?(?:[eE][-+]?\d+\b|/\d+)?|\.\d+)(?:\s*(?:\\?%|percent\b))?",
        )
        .expect("valid regex")
    })
}

/// A mixed number `3 and 1/4` / `3 1/4` as `3 1/4` (read as 13/4); with an
/// improper fraction (`2 and 5/3`) only the fraction.
fn clean_mixed(m: &str) -> Option<String> {
    let words: Vec<&str> = m.split_whitespace().filter(|w| *w != "and").collect();
    let [whole, frac] = words.as_slice() else {
        return None;
    };
    let (num, den) = frac.split_once('/')?;
    let proper = num.parse::<u64>().ok()? < den.parse::<u64>().ok()?;
    Some(if proper {
        format!("{whole} {frac}")
    } else {
        frac.to_string()
    })
}

fn clean_number(m: &str) -> String {
    if let Some(mixed) = clean_mixed(m) {
        return mixed;
    }
    let mut t = m.replace(' ', "");
    if t.ends_with("percent") {
        t.truncate(t.len() - "percent".len());
        t.push('%');
    }
    t.replace("\\%", "%")
}

/// Numbers not glued to a preceding letter (`AZYUK2A` has none) and not
/// labels (`horse #12`; a GSM8K `#### 12` still counts).
fn numbers(s: &str) -> impl Iterator<Item = regex::Match<'_>> {
    number_re().find_iter(s).filter(move |m| {
        let mut before = s[..m.start()].chars().rev();
        let prev = before.next();
        let label = prev == Some('#') && before.next() != Some('#');
        !label && !prev.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '^' || c == '\\')
    })
}

/// Last number in `s` (thousands groups, decimals, `a/b`, percent suffix).
fn last_number(s: &str) -> Option<String> {
    last_number_at(s).map(|(n, _)| n)
}

fn last_number_at(s: &str) -> Option<(String, usize)> {
    numbers(s)
        .last()
        .map(|m| (clean_number(m.as_str()), m.start()))
}

fn first_number(s: &str) -> Option<String> {
    numbers(s).next().map(|m| clean_number(m.as_str()))
}

/// English words of two letters that are prose, never math (`so 7`).
const PROSE_WORDS: &[&str] = &[
    "so", "is", "it", "be", "an", "as", "at", "by", "to", "of", "on", "we", "if", "us", "my", "me",
    "he", "do", "no", "am",
];

fn has_prose_word(t: &str) -> bool {
    let mut prev = ' ';
    let mut word = String::new();
    // a trailing non-letter closes the last word; `\to` is a command
    for c in t.chars().chain(std::iter::once(' ')) {
        if c.is_ascii_alphabetic() {
            if word.is_empty() && prev == '\\' {
                word.push('\\');
            }
            word.push(c.to_ascii_lowercase());
        } else {
            if PROSE_WORDS.contains(&word.as_str()) {
                return true;
            }
            word.clear();
        }
        prev = c;
    }
    false
}

/// Words that may stand between an answer statement and its value
/// (`the answer is approximately 12`).
const FILLER_WORDS: &[&str] = &[
    "approximately",
    "about",
    "around",
    "roughly",
    "exactly",
    "just",
    "therefore",
    "thus",
    "then",
    "hence",
    "indeed",
    "simply",
    "clearly",
    "now",
    "still",
    "also",
    "so",
];

/// The text after an answer statement starts with prose (`this answer is
/// correct since it uses all 4 numbers`), not with a value.
fn starts_with_prose(seg: &str) -> bool {
    let word: String = seg
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    word.len() >= 3
        && word.chars().all(|c| c.is_ascii_lowercase())
        && !FILLER_WORDS.contains(&word.as_str())
}

/// Words that end the clause holding a stated value (`1982 with an actual
/// total income of $931,441`).
const CLAUSE_BREAKS: &[&str] = &[
    " with ",
    " because ",
    " since ",
    " which ",
    " where ",
    " while ",
    " whereas ",
    " but ",
    " for ",
    " from ",
    " of ",
    " in ",
    " at ",
    " on ",
    " after ",
    " before ",
    " when ",
    " as ",
];

/// The first clause of `seg`, if it holds a number; else `seg`.
fn first_clause(seg: &str) -> &str {
    let lower = seg.to_ascii_lowercase();
    let cut = CLAUSE_BREAKS.iter().filter_map(|b| lower.find(b)).min();
    match cut {
        Some(k) if numbers(&seg[..k]).next().is_some() => &seg[..k],
        _ => seg,
    }
}

/// Short answer text without prose (letter runs of 3+ must be commands)
/// that parses as math.
fn math_like(s: &str) -> bool {
    let t = s.trim();
    if t.is_empty() || t.chars().count() > 80 || t.contains('\n') {
        return false;
    }
    if crate::parse::parse_answer(t).is_err() || has_prose_word(t) {
        return false;
    }
    let mut run = 0;
    let mut in_cmd = false;
    for c in t.chars() {
        if c == '\\' {
            in_cmd = true;
            run = 0;
            continue;
        }
        if c.is_alphabetic() {
            if !in_cmd {
                run += 1;
                if run >= 3 {
                    return false;
                }
            }
        } else {
            in_cmd = false;
            run = 0;
        }
    }
    true
}

/// Answer text following an anchor ("final answer is", "answer:").
fn segment_answer(seg: &str, depth: usize) -> Option<String> {
    let mut seg = seg;
    for stop in ["\n", "I hope", "<|"] {
        if let Some(k) = seg.find(stop) {
            seg = &seg[..k];
        }
    }
    let seg = seg
        .trim()
        .trim_start_matches([':', '*', ' '])
        .trim_start_matches("\\\"")
        .trim_start_matches('"')
        .trim();
    let seg = seg
        .trim_end_matches(['.', ' ', '"', '*'])
        .trim_end_matches("\\\"")
        .trim();
    if seg.is_empty() {
        return None;
    }
    let envs = find_envs(seg);
    if seg.starts_with('$') || seg.starts_with("\\(") || seg.starts_with("\\[") {
        if let Some(a) = envs_answer(seg, &envs) {
            return Some(a);
        }
    }
    if depth == 0 {
        if let Some(k) = seg.rfind(" is ") {
            return segment_answer(&seg[k + 4..], 1);
        }
    }
    if let Some(a) = envs_answer(seg, &envs) {
        return Some(a);
    }
    if math_like(seg) {
        return Some(seg.trim_end_matches('.').trim().to_string());
    }
    if starts_with_prose(seg) {
        return None;
    }
    last_number(first_clause(seg))
}

/// Answer statements tried per response, from the last one back.
const MAX_STATEMENTS: usize = 16;

/// Byte offsets just after the last [`MAX_STATEMENTS`] case-insensitive
/// occurrences of any of `pats`, last first (overlapping patterns such as
/// `answer is` / `answer is:` give one offset each).
fn statements_ci(s: &str, pats: &[&str]) -> Vec<usize> {
    let lower = s.to_ascii_lowercase();
    let mut found: Vec<(usize, usize)> = pats
        .iter()
        .flat_map(|p| lower.match_indices(p).map(|(k, m)| (k, k + m.len())))
        .collect();
    // one offset per start: the longest pattern
    found.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(b.1.cmp(&a.1)));
    found.dedup_by_key(|x| x.0);
    found
        .into_iter()
        .take(MAX_STATEMENTS)
        .map(|x| x.1)
        .collect()
}

/// Find the last case-insensitive occurrence of one of `pats`; returns the
/// byte index just after it.
fn rfind_ci(s: &str, pats: &[&str]) -> Option<(usize, usize)> {
    let lower = s.to_ascii_lowercase();
    pats.iter()
        .filter_map(|p| lower.rfind(p).map(|k| (k, k + p.len())))
        .max_by_key(|x| x.0)
}

/// Openings of a refusal: its stray numbers ("question 3") are not answers.
const REFUSALS: &[&str] = &[
    "i'm sorry",
    "i am sorry",
    "sorry,",
    "i cannot",
    "i can't",
    "i can not",
    "i am unable",
    "i'm unable",
    "i am not able",
    "i'm not able",
    "as an ai",
    "unfortunately, i",
];

/// The response opens with a refusal (and states no answer: callers ask
/// after looking for boxes and answer statements).
fn is_refusal(s: &str) -> bool {
    let start: String = s.trim_start().chars().take(24).collect::<String>();
    let start = start.to_lowercase().replace('\u{2019}', "'");
    REFUSALS.iter().any(|r| start.starts_with(r))
}

fn extract_math(resp: &str) -> Option<String> {
    let s = tail(resp);
    let boxes = find_boxes(s);
    let boxed = boxes_answer(s, &boxes);
    let final_is = rfind_ci(s, &["final answer is"]);
    // Minerva-style "final answer is X" written after the last box wins.
    if let Some((start, after)) = final_is {
        let after_box = boxed.as_ref().is_none_or(|(_, end)| start > *end);
        if after_box {
            if let Some(a) = segment_answer(&s[after..], 0) {
                return Some(a);
            }
        }
    }
    if let Some((a, _)) = boxed {
        if !a.trim().is_empty() {
            return Some(a);
        }
    }
    // the last answer statement that states a value (not "this answer is correct")
    for after in statements_ci(s, &["answer:", "answer is", "answer is:", "answer :"]) {
        if let Some(a) = segment_answer(&s[after..], 0) {
            return Some(a);
        }
    }
    if is_refusal(s) {
        return None;
    }
    let envs = find_envs(s);
    if let Some(a) = envs_answer(s, &envs) {
        // a plain number written in prose after the last LaTeX span wins
        let last_end = envs.last().map_or(0, |e| e.end);
        if let Some((n, _)) = last_number_at(&s[last_end..]) {
            return Some(n);
        }
        return Some(a);
    }
    if math_like(s) {
        return Some(s.trim().trim_end_matches('.').trim().to_string());
    }
    last_number(s)
}

fn extract_number(resp: &str) -> Option<String> {
    let s = tail(resp);
    let boxes = find_boxes(s);
    if let Some(b) = boxes.last() {
        if let Some(n) = first_number(&b.content) {
            return Some(n.replace(',', ""));
        }
    }
    for after in statements_ci(s, &["answer is", "answer:", "answer :"]) {
        let seg = s[after..].split('\n').next().unwrap_or("");
        let seg = seg.trim_start_matches([':', '*', ' ']);
        if starts_with_prose(seg) {
            continue;
        }
        if let Some(n) = first_number(seg) {
            return Some(n.replace(',', ""));
        }
    }
    if is_refusal(s) {
        return None;
    }
    last_number(s).map(|n| n.replace(',', ""))
}

/// Where a hallucinated follow-up problem starts: a line opening with
/// `Question:`, `Q:` or `Problem:` after some text. Its answer belongs to
/// that problem, not to the one asked.
fn followup_start(s: &str) -> Option<usize> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"(?m)^[ \t#*]*(?:Question|Q|Problem)(?: \d+)?[ \t]*[:：]").expect("valid regex")
    });
    re.find_iter(s)
        .map(|m| m.start())
        .find(|&k| !s[..k].trim().is_empty())
}

fn extract_regex(resp: &str, re: &Regex) -> Option<String> {
    let s = tail(resp);
    let c = re.captures_iter(s).last()?;
    let m = c.get(1).or_else(|| c.get(0))?;
    Some(m.as_str().trim().to_string())
}

/// Extract the final answer from a model response.
///
/// Returns `None` when nothing is found (never a placeholder string).
/// Only the last 200 000 bytes of a response are scanned.
///
/// Except in `Regex` mode, a hallucinated follow-up problem (a line opening
/// with `Question:`, `Q:` or `Problem:` after some text) is cut first: the
/// text before it is tried, and the whole response only if that yields
/// nothing. Priority order per mode (docs/grading.md has the details):
///
/// **`Math`**
/// 1. A Minerva-style `final answer is X` (case-insensitive) that appears
///    *after* the last box; X is cut at a newline, `I hope` or `<|`.
/// 2. The last `\boxed{…}` / `\fbox{…}` (brace-matched; `\boxed 5`;
///    unterminated boxes take the rest of the text), joined with earlier
///    boxes that are < 10 characters away with no words in between, or
///    < 70 characters away with `,` `;` `and` `or` in between, joined by
///    `", "` (one multi-part answer: `\boxed{1} and \boxed{-2}`). Boxes
///    with a revision word between them (`wait`, `actually`, `no`, `but`,
///    `so`, …: `\boxed{5}, wait, it's \boxed{6}`) are attempts: only the
///    last counts; a box repeating a joined one (same text, or an equivalent
///    answer) counts once. A `%`/`\%`/`percent`/`pct` right after the box is kept.
/// 3. `final answer is X` anywhere, then the answer statements `answer:` /
///    `answer is` from the last one back: the text after one (a LaTeX span
///    if it starts with one; otherwise the part after the last ` is `; then
///    a LaTeX span, short math text or the last number of its first clause);
///    a statement followed by a prose word states nothing.
/// 4. Nothing, if the response opens with a refusal (`I'm sorry`, `I cannot`).
/// 5. The last LaTeX span (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`), joined with up
///    to 4 preceding spans separated only by `,` / `and` / `or`.
/// 6. The whole response, if it is short math-like text (no prose words).
/// 7. The last number (thousands groups, decimals, `a/b`, `1e-3`, mixed numbers
///    `3 and 1/4`, percent suffix; not a `#12` label).
///
/// **`Mcq`** (letters `A`–`Z`; `**` markdown removed first; only a stated
/// choice counts, never a letter in prose or code)
/// 1. The last box, if its content is a letter (`\boxed{C}`,
///    `\boxed{\text{(C)}}`, `\boxed{C: text}`).
/// 2. A final line that is the letter (`C`, `(C)`, `C.`) or ends in a
///    single ` (C)`.
/// 3. The last answer statement (`answer is X`, `answer: X`, `the correct
///    option (letter) is X`, `答案是 X`, `I choose option X`, `pick X`, …; X uppercase, any case inside
///    parentheses). A statement of a non-letter answer (`(Unknown)`) or of
///    two letters (`(B) or (C)`) gives nothing.
///
/// **`Number`**: first number inside the last box, else the first number
/// after the last `answer is`/`answer:` that is not followed by prose, else
/// (unless a refusal) the last number; thousands commas removed.
///
/// **`Regex(re)`**: the first capture group (or the whole match) of the
/// last match.
///
/// ```
/// use rollstat_grade::{extract_answer, ExtractMode};
/// let r = "so $x=2$ and the total is \\boxed{\\frac{1}{2}}.";
/// assert_eq!(extract_answer(r, &ExtractMode::Math).as_deref(), Some("\\frac{1}{2}"));
/// assert_eq!(extract_answer("The answer is (C).", &ExtractMode::Mcq).as_deref(), Some("C"));
/// assert_eq!(extract_answer("no digits here", &ExtractMode::Number), None);
/// let r = "The answer is (B).\n\nQuestion: What is 2+2?\nAnswer: (A)";
/// assert_eq!(extract_answer(r, &ExtractMode::Mcq).as_deref(), Some("B"));
/// assert_eq!(extract_answer("(E) is false.", &ExtractMode::Mcq), None);
/// ```
pub fn extract_answer(response: &str, mode: &ExtractMode) -> Option<String> {
    let extract = |text: &str| {
        let out = match mode {
            ExtractMode::Math => extract_math(text),
            ExtractMode::Mcq => crate::mcq::extract_mcq(text),
            ExtractMode::Number => extract_number(text),
            ExtractMode::Regex(re) => extract_regex(text, re),
        };
        out.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
    };
    if !matches!(mode, ExtractMode::Regex(_)) {
        let text = tail(response);
        if let Some(k) = followup_start(text) {
            if let Some(a) = extract(&text[..k]) {
                return Some(a);
            }
        }
    }
    extract(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boxes_join() {
        assert_eq!(
            joined_boxes("\\boxed{1}\\boxed{2}").as_deref(),
            Some("1, 2")
        );
        assert_eq!(
            joined_boxes("\\boxed{1} no no no no no \\boxed{2}").as_deref(),
            Some("2")
        );
        assert_eq!(
            joined_boxes("\\boxed{1} papers and \\boxed{2} bins").as_deref(),
            Some("1, 2")
        );
        assert_eq!(
            joined_boxes("\\boxed{840}. \\boxed{840}").as_deref(),
            Some("840")
        );
        assert_eq!(joined_boxes("$\\boxed{28}$ pct").as_deref(), Some("28%"));
        assert_eq!(joined_boxes("\\boxed 5").as_deref(), Some("5"));
    }
}
