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
fn tail(s: &str) -> &str {
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
struct Span {
    start: usize,
    end: usize,
    content: String,
}

/// All `\boxed{..}` / `\fbox{..}` / `\boxed 5` spans (outermost only).
/// Linear time: a box starting inside an earlier box is skipped before its
/// braces are matched.
fn find_boxes(s: &str) -> Vec<Span> {
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

/// Last box, joined with earlier boxes that are adjacent (< 10 characters
/// apart, no words in between) or close (< 70 characters) with a separator (`,`, `;`, `and`,
/// `or`) in between; repeated identical boxes count once.
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
        let join = (g < 10 && wordless) || (g < 70 && has_separator(gap));
        if !join {
            break;
        }
        if !parts.contains(&content) {
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
    let mut unclosed = [false; 4];
    let mut i = 0;
    while i < b.len() {
        let (open_len, close): (usize, &str) = if b[i] == b'\\' && i + 1 < b.len() {
            match b[i + 1] {
                b'(' => (2, "\\)"),
                b'[' => (2, "\\]"),
                _ => {
                    i += 2;
                    continue;
                }
            }
        } else if b[i] == b'$' {
            if i + 1 < b.len() && b[i + 1] == b'$' {
                (2, "$$")
            } else {
                (1, "$")
            }
        } else {
            i += 1;
            continue;
        };
        let cstart = i + open_len;
        let kind = match close {
            "\\)" => 0,
            "\\]" => 1,
            "$$" => 2,
            _ => 3,
        };
        if unclosed[kind] {
            i += open_len;
            continue;
        }
        // find the closing delimiter, skipping escaped characters
        let mut j = cstart;
        let mut found = None;
        while j < b.len() {
            if b[j..].starts_with(close.as_bytes()) {
                found = Some(j);
                break;
            }
            if b[j] == b'\\' {
                j += 2;
                continue;
            }
            j += 1;
        }
        if found.is_none() {
            // no closer of this kind anywhere after: never search again
            unclosed[kind] = true;
        }
        match found {
            Some(j) if j <= b.len() => {
                let content = s.get(cstart..j).unwrap_or("").to_string();
                out.push(Span {
                    start: i,
                    end: j + close.len(),
                    content,
                });
                i = j + close.len();
            }
            _ => {
                i += open_len;
            }
        }
    }
    out.retain(|e| !e.content.trim().is_empty());
    out
}

/// Last LaTeX span, joined with up to 4 preceding spans separated only by
/// `,`, `and`, `or`.
fn envs_answer(s: &str, envs: &[Span]) -> Option<String> {
    let last = envs.last()?;
    let mut parts = vec![last.content.trim().to_string()];
    let mut cur = last;
    for e in envs[..envs.len() - 1].iter().rev() {
        let gap = s[e.end..cur.start].trim().to_ascii_lowercase();
        let gap = gap.trim_start_matches(',').trim();
        if matches!(gap, "" | "and" | "or") && parts.len() < 5 {
            parts.push(e.content.trim().to_string());
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
            r"\d{1,2}/\d{1,2}/\d{4}\b|\d{4}-\d{2}-\d{2}\b|-?(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+|,\d+)?(?:/\d+)?|\.\d+)(?:\s*(?:\\?%|percent\b))?",
        )
        .expect("valid regex")
    })
}

fn clean_number(m: &str) -> String {
    let mut t = m.replace(' ', "");
    if t.ends_with("percent") {
        t.truncate(t.len() - "percent".len());
        t.push('%');
    }
    t.replace("\\%", "%")
}

/// Numbers not glued to a preceding letter (`AZYUK2A` has none).
fn numbers(s: &str) -> impl Iterator<Item = regex::Match<'_>> {
    number_re().find_iter(s).filter(move |m| {
        !s[..m.start()]
            .chars()
            .next_back()
            .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '^' || c == '\\')
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

/// Short answer text without prose (letter runs of 3+ must be commands)
/// that parses as math.
fn math_like(s: &str) -> bool {
    let t = s.trim();
    if t.is_empty() || t.chars().count() > 80 || t.contains('\n') {
        return false;
    }
    if crate::parse::parse_answer(t).is_err() {
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
    for stop in ["I hope", "\n", "<|"] {
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
    last_number(seg)
}

/// Find the last case-insensitive occurrence of one of `pats`; returns the
/// byte index just after it.
fn rfind_ci(s: &str, pats: &[&str]) -> Option<(usize, usize)> {
    let lower = s.to_ascii_lowercase();
    pats.iter()
        .filter_map(|p| lower.rfind(p).map(|k| (k, k + p.len())))
        .max_by_key(|x| x.0)
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
    if let Some((_, after)) = rfind_ci(s, &["answer:", "answer is", "answer is:", "answer :"]) {
        if let Some(a) = segment_answer(&s[after..], 0) {
            return Some(a);
        }
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
    if let Some((_, after)) = rfind_ci(s, &["answer is", "answer:", "answer :"]) {
        let seg = &s[after..];
        let seg = seg.split('\n').next().unwrap_or("");
        if let Some(n) = first_number(seg) {
            return Some(n.replace(',', ""));
        }
    }
    last_number(s).map(|n| n.replace(',', ""))
}

fn mcq_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i:answer)(?:\s+(?i:is))?\s*[:：]?\s*(?:\$|\\\(|\\text\{|\\textbf\{|\\mathrm\{|\\boxed\{|\{)*\s*(?:\(([A-Ja-j])\)|([A-J]))(?:[^A-Za-z0-9]|$)",
        )
        .expect("valid regex")
    })
}

fn paren_letter_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| Regex::new(r"\(([A-J])\)").expect("valid regex"))
}

/// A letter from a short MCQ answer text: `C`, `(C)`, `C.`, `\text{C}`, `C: option text`.
pub(crate) fn letter_of(s: &str) -> Option<char> {
    let mut t = s.trim().to_string();
    for w in ["\\text{", "\\textbf{", "\\mathrm{", "\\mathbf{"] {
        t = t.replace(w, "");
    }
    let t: String = t
        .chars()
        .filter(|c| !matches!(c, '{' | '}' | '$' | '*'))
        .collect();
    let t = t.trim();
    let t = t.strip_prefix('(').unwrap_or(t);
    let mut it = t.chars();
    let c = it.next()?;
    if !c.is_ascii_alphabetic() {
        return None;
    }
    let c = c.to_ascii_uppercase();
    if !('A'..='J').contains(&c) {
        return None;
    }
    match it.next() {
        None => Some(c),
        Some(')' | '.' | ':' | ' ' | ',') => Some(c),
        _ => None,
    }
}

fn extract_mcq(resp: &str) -> Option<String> {
    let s = tail(resp).replace("**", "");
    if let Some(b) = find_boxes(&s).last() {
        if let Some(c) = letter_of(&b.content) {
            return Some(c.to_string());
        }
    }
    // the pronoun "I" ("the answer is I think B") is not a choice
    let pronoun = |end: usize| {
        let rest = &s[end..];
        rest.starts_with(' ') && rest[1..].starts_with(|c: char| c.is_ascii_lowercase())
    };
    let hit = mcq_re()
        .captures_iter(&s)
        .filter_map(|c| match (c.get(1), c.get(2)) {
            (Some(m), _) => Some(m.as_str().to_ascii_uppercase()),
            (None, Some(m)) if m.as_str() == "I" && pronoun(m.end()) => None,
            (None, Some(m)) => Some(m.as_str().to_string()),
            _ => None,
        });
    if let Some(l) = hit.last() {
        return Some(l);
    }
    if let Some(c) = letter_of(&s) {
        if s.trim().chars().count() <= 3 {
            return Some(c.to_string());
        }
    }
    if let Some(c) = paren_letter_re().captures_iter(&s).last() {
        return Some(c[1].to_string());
    }
    None
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
/// Priority order per mode:
///
/// **`Math`**
/// 1. A Minerva-style `final answer is X` (case-insensitive) that appears
///    *after* the last box; X is cut at `I hope`, a newline or `<|`.
/// 2. The last `\boxed{…}` / `\fbox{…}` (brace-matched; `\boxed 5`;
///    unterminated boxes take the rest of the text), joined with earlier
///    boxes that are < 10 characters away with no words in between, or
///    < 70 characters away with
///    `,` `;` `and` `or` in between (repeated boxes count once), joined by
///    `", "`. A `%`/`\%`/`percent`/`pct` right after the box is kept.
/// 3. `final answer is X` anywhere, then the last `answer:` / `answer is`:
///    the text after it (a LaTeX span if it starts with one; otherwise the
///    part after the last ` is `; then a LaTeX span, short math text or the
///    last number).
/// 4. The last LaTeX span (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`), joined with up
///    to 4 preceding spans separated only by `,` / `and` / `or`.
/// 5. The whole response, if it is short math-like text (no prose words).
/// 6. The last number (thousands groups, decimals, `a/b`, percent suffix).
///
/// **`Mcq`** (letters `A`–`J`; `**` markdown removed first)
/// 1. The last box, if its content is a letter (`\boxed{C}`,
///    `\boxed{\text{(C)}}`, `\boxed{C: text}`).
/// 2. The last `answer is X`, `answer: X`, `answer is (X)`, `Answer: $X$`
///    (case-insensitive anchor; X uppercase, or any case inside parentheses).
/// 3. A response that is just the letter (`C`, `(C)`, `C.`).
/// 4. The last `(X)` in the text.
///
/// **`Number`**: first number inside the last box, else the first number
/// after the last `answer is`/`answer:`, else the last number; thousands
/// commas removed.
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
/// ```
pub fn extract_answer(response: &str, mode: &ExtractMode) -> Option<String> {
    let out = match mode {
        ExtractMode::Math => extract_math(response),
        ExtractMode::Mcq => extract_mcq(response),
        ExtractMode::Number => extract_number(response),
        ExtractMode::Regex(re) => extract_regex(response, re),
    };
    out.map(|s| s.trim().to_string()).filter(|s| !s.is_empty())
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
