//! Multiple-choice letter extraction (`ExtractMode::Mcq`).
//!
//! A letter counts only where the response states it as its choice: an
//! answer statement ("the answer is (C)", "The correct option letter is D",
//! "答案是 A"), a box, or a final line that is the letter. Letters in prose
//! ("(E) is false"), in code (`B = rotate(60)*(D)`) or after a statement of a
//! non-letter answer ("The answer is (Unknown)") are not choices.

use std::sync::OnceLock;

use regex::Regex;

use crate::extract::{find_boxes, tail};

/// An answer statement: `answer is`, `answer:`, `correct option (letter) is`,
/// `choice is`, and the Chinese `答案是` / `答案为` / `答案选` / `答案：`,
/// `故选` / `应选` / `所以选` and `正确选项是`.
fn statement_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i:\b(?:answer|option|choice)(?:\s+(?:letter|choice|option))?(?:\s+(?:is|would\s+be|should\s+be)\s*[:：]?|\s*[:：]))|答案\s*(?:是|为|為|选|[:：])\s*[:：]?|(?:故|应|應|所以)选\s*[:：]?|正确选项\s*(?:是|为)\s*[:：]?",
        )
        .expect("valid regex")
    })
}

/// `answer (C)` / `Answer B` without `is` or a colon, and a choice verb
/// (`I choose option D:`, `I'll pick (B)`, `select C`, `go with A`): a
/// choice only when a letter follows directly.
fn bare_anchor_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?i:\b(?:answer|choose|chose|pick|picked|select|selected|go\s+with|going\s+with))\s+",
        )
        .expect("valid regex")
    })
}

/// A choice right at the start of a statement's text: wrappers (`$`,
/// `\text{`, `\boxed{`, "option"), then `(X)` (any case) or an uppercase `X`
/// not followed by a letter or digit.
fn choice_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^\s*(?:(?:\$|\\\(|\\text\{|\\textbf\{|\\mathrm\{|\\boxed\{|\{)\s*|(?i:option|choice|letter)\s+)*(?:\(([A-Za-z])\)|([A-Z]))(?:[^A-Za-z0-9]|$)",
        )
        .expect("valid regex")
    })
}

/// A second choice offered in the same sentence: `(B) or (C)`, `B and C`.
fn hedge_re() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"^[^.\n]{0,12}?\b(?:or|and)\s+(?:\([A-Za-z]\)|[A-Z](?:[^A-Za-z0-9]|$))")
            .expect("valid regex")
    })
}

/// Answer statements looked at per response, from the last one back.
const MAX_STATEMENTS: usize = 64;

/// What an answer statement says.
enum Stated {
    /// A choice letter.
    Letter(char),
    /// An answer that is not a single letter: `(Unknown)`, `None of the
    /// above`, `(B) or (C)`.
    NotALetter,
    /// Prose (`this answer is correct because …`): not an answer.
    Prose,
}

fn stated(rest: &str, pronoun_guard: bool) -> Stated {
    if let Some(c) = choice_re().captures(rest) {
        let (m, letter) = match (c.get(1), c.get(2)) {
            (Some(m), _) => (m, m.as_str().to_ascii_uppercase()),
            (None, Some(m)) => (m, m.as_str().to_string()),
            _ => return Stated::Prose,
        };
        let after = &rest[m.end()..];
        let after = after.strip_prefix(')').unwrap_or(after);
        // the pronoun "I" ("the answer is I think B") is not a choice
        if pronoun_guard
            && letter == "I"
            && after.starts_with(' ')
            && after[1..].starts_with(|c: char| c.is_ascii_lowercase())
        {
            return Stated::Prose;
        }
        if hedge_re().is_match(after) {
            return Stated::NotALetter;
        }
        return letter.chars().next().map_or(Stated::Prose, Stated::Letter);
    }
    let t: String = rest
        .trim_start_matches([' ', '$', '"', '\''])
        .chars()
        .take(24)
        .collect::<String>()
        .to_lowercase();
    let no_choice = [
        "none",
        "unknown",
        "neither",
        "cannot be determined",
        "not enough",
    ];
    if t.starts_with('(') || no_choice.iter().any(|w| t.starts_with(w)) {
        Stated::NotALetter
    } else {
        Stated::Prose
    }
}

/// The choice of the last answer statement that states one (a letter, or
/// an answer that is not a letter), with the byte offset just after it.
/// Prose statements ("this answer is correct") are passed over.
fn last_statement(s: &str) -> Option<(Option<char>, usize)> {
    let mut found: Vec<(usize, usize, bool)> = statement_re()
        .find_iter(s)
        .map(|m| (m.start(), m.end(), true))
        .collect();
    found.extend(
        bare_anchor_re()
            .find_iter(s)
            .map(|m| (m.start(), m.end(), false)),
    );
    found.sort_unstable();
    for &(_, end, definite) in found.iter().rev().take(MAX_STATEMENTS) {
        match stated(&s[end..], true) {
            Stated::Letter(c) => return Some((Some(c), end)),
            Stated::NotALetter if definite => return Some((None, end)),
            _ => {}
        }
    }
    None
}

/// The final non-empty line as a choice: `A`, `(A)`, `A.`, `A)`, or a line
/// ending in a single `(A)` (`So we pick (C).`).
fn final_line_letter(s: &str) -> Option<char> {
    static RE: OnceLock<Regex> = OnceLock::new();
    static PAREN: OnceLock<Regex> = OnceLock::new();
    let bare = RE.get_or_init(|| Regex::new(r"^\(?([A-Z])\)?[.:]?$").expect("valid regex"));
    let paren = PAREN.get_or_init(|| Regex::new(r"\(([A-Z])\)").expect("valid regex"));
    let line = s.lines().rev().find(|l| !l.trim().is_empty())?;
    let line = line.trim().trim_matches(['#', '*', ' ']);
    if let Some(c) = bare.captures(line) {
        return c[1].chars().next();
    }
    let body = line.trim_end_matches(['.', ' ']);
    let all: Vec<_> = paren.captures_iter(line).collect();
    match all.as_slice() {
        [one] if body.ends_with(&one[0]) => {
            let before = &body[..body.len() - one[0].len()];
            // `*(D)` in code is an argument, not a choice
            (before.is_empty() || before.ends_with(' ')).then(|| one[1].chars().next())?
        }
        _ => None,
    }
}

/// A letter from a short MCQ answer text: `C`, `(C)`, `C.`, `\text{C}`,
/// `C: option text` (letters `A`–`Z`).
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
    match it.next() {
        None | Some(')' | '.' | ':' | ' ' | ',') => Some(c.to_ascii_uppercase()),
        _ => None,
    }
}

/// The chosen letter of a response (see [`crate::extract_answer`]).
pub(crate) fn extract_mcq(resp: &str) -> Option<String> {
    let s = tail(resp).replace("**", "");
    if let Some(b) = find_boxes(&s).last() {
        if let Some(c) = letter_of(&b.content) {
            return Some(c.to_string());
        }
    }
    let statement = last_statement(&s);
    let after = statement.as_ref().map_or(0, |(_, end)| *end);
    // a final line that is the letter, written after any statement
    let final_line = final_line_letter(&s).filter(|_| {
        let last_line_start = s.trim_end().rfind('\n').map_or(0, |k| k + 1);
        last_line_start >= after || statement.is_none()
    });
    if let Some(c) = final_line {
        return Some(c.to_string());
    }
    statement.and_then(|(c, _)| c).map(|c| c.to_string())
}
