//! LaTeX / plain-math parser: normalization, tokenizer and a recursive-descent
//! parser producing an [`Expr`] tree. All recursion is depth-bounded.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Zero};

use crate::limits::{MAX_DEPTH, MAX_TOKENS};

/// Why parsing failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ParseError {
    /// Syntax not understood.
    Syntax,
    /// Nesting depth or token limit exceeded.
    Limit,
}

/// A numeric literal: exact value plus, for decimal literals, the number of
/// digits written after the decimal point (used for rounding tolerance).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Num {
    pub val: BigRational,
    pub decimals: Option<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Const {
    Pi,
    E,
    Inf,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RelOp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Approx,
    In,
}

/// Parsed expression tree.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Expr {
    Num(Num),
    Sym(String),
    Const(Const),
    Add(Vec<Expr>),
    Mul(Vec<Expr>),
    Neg(Box<Expr>),
    Div(Box<Expr>, Box<Expr>),
    Pow(Box<Expr>, Box<Expr>),
    /// Named function application (sin, sqrt, root, log, abs, fact, or an
    /// uninterpreted function such as `f`).
    Func(String, Vec<Expr>),
    Percent(Box<Expr>),
    /// `a ± b`; a unary `±b` has `a = 0`. The bool is true for `∓`.
    PlusMinus(Box<Expr>, Box<Expr>, bool),
    Tuple(Vec<Expr>),
    Set(Vec<Expr>),
    /// A bare top-level list `a, b, c` (compared as a set).
    List(Vec<Expr>),
    Interval(Box<Expr>, Box<Expr>, bool, bool),
    Union(Vec<Expr>),
    Rel(Vec<Expr>, Vec<RelOp>),
    Matrix(Vec<Vec<Expr>>),
    Ratio(Vec<Expr>),
    Text(String),
}

// ---------------------------------------------------------------------------
// Normalization (string level)
// ---------------------------------------------------------------------------

/// Commands that are dropped entirely (spacing, sizing, delimiters modifiers).
const DROP_CMDS: &[&str] = &[
    "left",
    "right",
    "mleft",
    "mright",
    "big",
    "Big",
    "bigg",
    "Bigg",
    "bigl",
    "bigr",
    "Bigl",
    "Bigr",
    "biggl",
    "biggr",
    "displaystyle",
    "textstyle",
    "limits",
    "quad",
    "qquad",
    "hfill",
    "nonumber",
    "notag",
    "middle",
    "dots",
    "ldots",
    "cdots",
    "dotsc",
    "dotsb",
    "dotsm",
];

fn is_thousands_number(s: &str, sep: char) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match s.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (s, None),
    };
    if let Some(f) = frac {
        if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) {
            return false;
        }
    }
    let groups: Vec<&str> = int.split(sep).collect();
    if groups.len() < 2 {
        return false;
    }
    let first = groups[0];
    if first.is_empty() || first.len() > 3 || !first.bytes().all(|b| b.is_ascii_digit()) {
        return false;
    }
    if first.starts_with('0') {
        return false;
    }
    groups[1..]
        .iter()
        .all(|g| g.len() == 3 && g.bytes().all(|b| b.is_ascii_digit()))
}

/// Whole-answer number rewrites: `1,000` / `1 000` thousands groups and the
/// decimal comma (`1000,99`, `0,111`, `2,74`).
fn whole_number_rewrite(s: &str) -> Option<String> {
    let t = s.trim();
    if t.is_empty() || t.len() > 64 {
        return None;
    }
    if is_thousands_number(t, ',') {
        return Some(t.replace(',', ""));
    }
    if is_thousands_number(t, ' ') {
        return Some(t.replace(' ', ""));
    }
    // plain mixed number: `4 4/9` = 40/9, `-3 1/2` = -7/2
    let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
    let (sign, body) = match t.strip_prefix('-') {
        Some(b) => ("-", b),
        None => ("", t),
    };
    let parts: Vec<&str> = body.split_whitespace().collect();
    if parts.len() == 2 {
        if let Some((b, c)) = parts[1].split_once('/') {
            if digits(parts[0]) && digits(b) && digits(c) && c.bytes().any(|x| x != b'0') {
                return Some(format!("{sign}({}+{b}/{c})", parts[0]));
            }
        }
    }
    // decimal comma: -?\d+,\d+ where the fraction is not a 3-digit group,
    // or the integer part is a single 0.
    let u = t.strip_prefix('-').unwrap_or(t);
    if let Some((i, f)) = u.split_once(',') {
        let digits = |x: &str| !x.is_empty() && x.bytes().all(|b| b.is_ascii_digit());
        if digits(i) && digits(f) && (f.len() != 3 || i == "0") && f.len() >= 2 {
            return Some(t.replacen(',', ".", 1));
        }
    }
    None
}

/// String-level normalization before tokenizing. Handles doubled
/// backslashes, spacing commands, `\left`/`\right`, degree signs, dollar
/// signs, thousands markers `{,}` and `,\!`, frac variants and unicode.
pub(crate) fn normalize(input: &str) -> String {
    // Inside an environment or a table (`&`) `\\` separates rows and stays;
    // elsewhere a doubled backslash before a command (`\\frac`) is an
    // escaping artefact and collapses to one.
    let collapse_double = !input.contains("\\begin") && !input.contains('&');
    let chars: Vec<char> = input.chars().collect();
    let mut out = String::with_capacity(input.len());
    let mut i = 0;
    while i < chars.len() {
        i = if chars[i] == '\\' {
            normalize_backslash(&chars, i, collapse_double, &mut out)
        } else {
            normalize_char(&chars, i, &mut out)
        };
    }
    let trimmed = out.trim();
    if let Some(r) = whole_number_rewrite(trimmed) {
        return r;
    }
    trimmed.to_string()
}

/// Writes the normalized form of the backslash sequence at `i` to `out` and
/// returns the index after it: a doubled backslash, a command, or a
/// spacing / escaped-symbol sequence; any other backslash is kept.
fn normalize_backslash(chars: &[char], i: usize, collapse_double: bool, out: &mut String) -> usize {
    let j = i + 1;
    match chars.get(j) {
        Some('\\') => {
            // doubled backslash before a command: \\frac -> \frac
            if collapse_double && chars.get(j + 1).is_some_and(|c| c.is_ascii_alphabetic()) {
                return j;
            }
            out.push_str("\\\\");
            j + 1
        }
        Some(c) if c.is_ascii_alphabetic() => {
            let end = run_end(chars, j, |c| c.is_ascii_alphabetic());
            let name: String = chars[j..end].iter().collect();
            normalize_command(chars, end, &name, out)
        }
        Some(&c) if normalize_escape(c, out) => j + 1,
        _ => {
            out.push('\\');
            i + 1
        }
    }
}

/// Writes command `name` (its name ends before `i`) to `out` and returns
/// the index to go on from: sizing and spacing commands ([`DROP_CMDS`])
/// become a space, degree signs are dropped, `\dfrac`/`\tfrac`/`\cfrac`
/// become `\frac`, and any other command is kept.
fn normalize_command(chars: &[char], mut i: usize, name: &str, out: &mut String) -> usize {
    if DROP_CMDS.contains(&name) {
        // \left. and \right. : drop the dot delimiter as well
        if (name == "left" || name == "right") && chars.get(i) == Some(&'.') {
            i += 1;
        }
        // \left\{ keeps the \{ (handled next iteration)
        out.push(' ');
        return i;
    }
    match name {
        "circ" | "degree" | "degrees" => return drop_degree_power(chars, i, out),
        "dfrac" | "tfrac" | "cfrac" => {
            out.push_str("\\frac");
            return i;
        }
        _ => {}
    }
    out.push('\\');
    out.push_str(name);
    // keep a separator so `\pi r` stays two tokens
    if chars.get(i).is_some_and(|c| c.is_ascii_alphanumeric()) {
        out.push(' ');
    }
    i
}

/// A degree sign (`\circ`, whose name ends before `i`) is dropped, and with
/// it a preceding `^` or `^{` already written to `out` and, for `^{`, the
/// closing `}`. Returns the index to go on from.
fn drop_degree_power(chars: &[char], mut i: usize, out: &mut String) -> usize {
    let trimmed = out.trim_end().to_string();
    if let Some(s) = trimmed.strip_suffix("^{") {
        *out = s.to_string();
        i = run_end(chars, i, |c| c == ' ');
        if chars.get(i) == Some(&'}') {
            i += 1;
        }
    } else if let Some(s) = trimmed.strip_suffix('^') {
        *out = s.to_string();
    }
    i
}

/// The escape `\c` for spacing (`\,` `\;` `\:` `\ ` `\>`, written as a
/// space; `\!`, which after `<digit>,` marks thousands and drops the comma)
/// and for `\$` (dropped) and `\%` (kept as `%`). `false` for any other `c`.
fn normalize_escape(c: char, out: &mut String) -> bool {
    match c {
        '!' => drop_thousands_comma(out),
        ',' | ';' | ':' | ' ' | '>' => out.push(' '),
        '$' => {}
        '%' => out.push('%'),
        _ => return false,
    }
    true
}

/// `,\!` after a digit is a thousands marker (`1,\!000`): drops the comma
/// written to `out` (and any space after it).
fn drop_thousands_comma(out: &mut String) {
    let t = out.trim_end();
    if t.ends_with(',') && t[..t.len() - 1].ends_with(|c: char| c.is_ascii_digit()) {
        let len = t.len() - 1;
        out.truncate(len);
    }
}

/// Writes the normalized form of the (non-backslash) character at `i` to
/// `out` and returns the next index: currency and degree signs are
/// dropped, unicode operators and superscripts become ASCII, and a `{,}`
/// thousands marker is skipped.
fn normalize_char(chars: &[char], i: usize, out: &mut String) -> usize {
    let c = chars[i];
    match c {
        '$' | '€' | '£' | '¥' | '₹' => {}
        '~' | '\n' | '\t' | '\r' => out.push(' '),
        '°' => {}
        '²' => out.push_str("^2"),
        '³' => out.push_str("^3"),
        '−' | '–' => out.push('-'),
        '×' | '·' | '⋅' => out.push('*'),
        '÷' => out.push('/'),
        '√' => out.push_str("\\sqrt "),
        '{' => match skip_thousands_braces(chars, i) {
            Some(next) => return next,
            None => out.push('{'),
        },
        _ => out.push(c),
    }
    i + 1
}

/// The index after a `{,}` thousands marker at `i` (spaces allowed inside,
/// `{ , }`) and the spaces after it; `None` when `i` starts no marker.
fn skip_thousands_braces(chars: &[char], i: usize) -> Option<usize> {
    let head: String = chars[i..chars.len().min(i + 6)].iter().collect();
    let compact: String = head.chars().filter(|c| *c != ' ').collect();
    if !compact.starts_with("{,}") {
        return None;
    }
    let close = run_end(chars, i + 1, |c| c != '}');
    Some(run_end(chars, close + 1, |c| c == ' '))
}

// ---------------------------------------------------------------------------
// Tokenizer
// ---------------------------------------------------------------------------

#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Tok {
    Num(String),
    Word(String),
    Cmd(String),
    Op(char),
    LBrace,
    RBrace,
    LParen,
    RParen,
    LBrack,
    RBrack,
    LSet,
    RSet,
    Pipe,
    Amp,
    RowSep,
    Comma,
    Semi,
    Rel(RelOp),
}

pub(crate) fn tokenize(s: &str) -> Result<Vec<Tok>, ParseError> {
    let chars: Vec<char> = s.chars().collect();
    let n = chars.len();
    let mut toks = Vec::new();
    let mut i = 0;
    while i < n {
        if toks.len() > MAX_TOKENS {
            return Err(ParseError::Limit);
        }
        let c = chars[i];
        let (tok, next) = if c.is_whitespace() {
            (None, i + 1)
        } else if c.is_ascii_digit() || (c == '.' && i + 1 < n && chars[i + 1].is_ascii_digit()) {
            let (tok, next) = lex_number(&chars, i);
            (Some(tok), next)
        } else if c.is_alphabetic() {
            let end = run_end(&chars, i, |c| c.is_alphabetic());
            (Some(Tok::Word(chars[i..end].iter().collect())), end)
        } else if c == '\\' {
            lex_backslash(&chars, i)
        } else {
            lex_symbol(&chars, i)?
        };
        toks.extend(tok);
        i = next;
    }
    Ok(toks)
}

/// First index at or after `i` where `keep` fails (or the end).
fn run_end(chars: &[char], mut i: usize, keep: impl Fn(char) -> bool) -> usize {
    while i < chars.len() && keep(chars[i]) {
        i += 1;
    }
    i
}

/// A number literal starting at `start`: digits with thousands groups
/// (`12,000,003`, `1,000.5`; the commas are dropped), a decimal part, and an
/// exponent (`1.5E5`, `1e-3`; `2e` alone is 2·e). A trailing `5.` leaves its dot to the
/// main loop, which skips it as a stray period.
fn lex_number(chars: &[char], start: usize) -> (Tok, usize) {
    let n = chars.len();
    let mut i = run_end(chars, start, |c| c.is_ascii_digit());
    i = thousands_groups_end(chars, start, i);
    if i + 1 < n && chars[i] == '.' && chars[i + 1].is_ascii_digit() {
        i = run_end(chars, i + 1, |c| c.is_ascii_digit());
    }
    let lit: String = chars[start..i].iter().filter(|c| **c != ',').collect();
    // scientific notation: 1.5E5, 1e-3 (a lowercase e only with digits
    // after it, so 2e stays 2·e)
    if i + 1 < n && (chars[i] == 'E' || chars[i] == 'e') {
        let mut k = i + 1;
        if k < n && (chars[k] == '+' || chars[k] == '-') {
            k += 1;
        }
        if k < n && chars[k].is_ascii_digit() {
            k = run_end(chars, k, |c| c.is_ascii_digit());
            let exp: String = chars[i + 1..k].iter().collect();
            return (Tok::Num(format!("{lit}E{exp}")), k);
        }
    }
    (Tok::Num(lit), i)
}

/// Extends the digits `chars[start..i]` over `,ddd` thousands groups, and
/// returns the new end. A group is taken only when the number is unambiguous
/// as a thousands-separated one: the leading part has at most 3 digits and
/// the group is followed by a further group or a decimal part, or a group
/// was already taken (so `f(1,234)` stays two arguments).
fn thousands_groups_end(chars: &[char], start: usize, mut i: usize) -> usize {
    let n = chars.len();
    loop {
        let grp = i + 4 <= n
            && chars[i] == ','
            && chars[i + 1..i + 4].iter().all(|c| c.is_ascii_digit())
            && (i + 4 == n || !chars[i + 4].is_ascii_digit());
        if !grp || i - start > 3 && !chars[start..i].contains(&',') {
            return i;
        }
        let next_grp = i + 8 <= n
            && chars[i + 4] == ','
            && chars[i + 5..i + 8].iter().all(|c| c.is_ascii_digit());
        let dec = i + 5 < n && chars[i + 4] == '.' && chars[i + 5].is_ascii_digit();
        let prev_grp = chars[start..i].contains(&',');
        if !(next_grp || dec || prev_grp) {
            return i;
        }
        i += 4;
    }
}

/// The token of a backslash sequence at `i` and the index after it:
/// `\\` (row separator), `\{`, `\}`, `\|`, or a command name (`None` for an
/// unknown escape like `\#`, which is skipped).
fn lex_backslash(chars: &[char], i: usize) -> (Option<Tok>, usize) {
    let escaped = match chars.get(i + 1) {
        Some('\\') => Some(Tok::RowSep),
        Some('{') => Some(Tok::LSet),
        Some('}') => Some(Tok::RSet),
        Some('|') => Some(Tok::Pipe),
        _ => None,
    };
    if escaped.is_some() {
        return (escaped, i + 2);
    }
    let start = i + 1;
    let end = run_end(chars, start, |c| c.is_ascii_alphabetic());
    if end == start {
        return (None, i + 2);
    }
    let name: String = chars[start..end].iter().collect();
    (Some(command_token(name)), end)
}

/// A LaTeX command as a token: relations, operators and delimiters by their
/// meaning, anything else as [`Tok::Cmd`].
fn command_token(name: String) -> Tok {
    match name.as_str() {
        "le" | "leq" | "leqslant" | "leqq" => Tok::Rel(RelOp::Le),
        "ge" | "geq" | "geqslant" | "geqq" => Tok::Rel(RelOp::Ge),
        "lt" => Tok::Rel(RelOp::Lt),
        "gt" => Tok::Rel(RelOp::Gt),
        "ne" | "neq" => Tok::Rel(RelOp::Ne),
        "approx" | "simeq" | "thickapprox" => Tok::Rel(RelOp::Approx),
        "in" => Tok::Rel(RelOp::In),
        "equiv" => Tok::Rel(RelOp::Eq),
        "cdot" | "times" | "ast" => Tok::Op('*'),
        "div" => Tok::Op('/'),
        "pm" => Tok::Op('±'),
        "mp" => Tok::Op('∓'),
        "cup" => Tok::Op('∪'),
        "cap" => Tok::Op('∩'),
        "setminus" => Tok::Op('∖'),
        "colon" => Tok::Op(':'),
        "lbrace" => Tok::LSet,
        "rbrace" => Tok::RSet,
        "vert" | "lvert" | "rvert" | "mid" => Tok::Pipe,
        "langle" => Tok::LParen,
        "rangle" => Tok::RParen,
        "lbrack" => Tok::LBrack,
        "rbrack" => Tok::RBrack,
        _ => Tok::Cmd(name),
    }
}

/// The token of the punctuation, operator or symbol at `i` and the index
/// after it: two-character relations (`==`, `<=`, `>=`, `!=`) take both;
/// stray periods and quotes give no token.
fn lex_symbol(chars: &[char], i: usize) -> Result<(Option<Tok>, usize), ParseError> {
    let c = chars[i];
    let eq_next = chars.get(i + 1) == Some(&'=');
    if let Some(tok) = relation_token(c, eq_next) {
        return Ok((Some(tok), i + 1 + usize::from(eq_next)));
    }
    let tok = match c {
        '{' => Tok::LBrace,
        '}' => Tok::RBrace,
        '(' => Tok::LParen,
        ')' => Tok::RParen,
        '[' => Tok::LBrack,
        ']' => Tok::RBrack,
        '|' => Tok::Pipe,
        '&' => Tok::Amp,
        ',' => Tok::Comma,
        ';' => Tok::Semi,
        '!' => Tok::Op('!'),
        '≤' => Tok::Rel(RelOp::Le),
        '≥' => Tok::Rel(RelOp::Ge),
        '≠' => Tok::Rel(RelOp::Ne),
        '≈' => Tok::Rel(RelOp::Approx),
        '∈' => Tok::Rel(RelOp::In),
        '+' | '-' | '*' | '/' | '^' | '_' | '%' | ':' | '\'' | '±' | '∓' | '∪' | '∩' => {
            Tok::Op(c)
        }
        'π' => Tok::Cmd("pi".into()),
        '∞' => Tok::Cmd("infty".into()),
        '∅' => Tok::Cmd("emptyset".into()),
        '.' | '"' | '`' => return Ok((None, i + 1)), // stray period (sentence end), quotes
        _ => return Err(ParseError::Syntax),
    };
    Ok((Some(tok), i + 1))
}

/// `=`, `<`, `>` and `!` as relations, where `eq_next` says an `=` follows
/// (`==`, `<=`, `>=`, `!=`); a lone `!` is a factorial, not a relation.
fn relation_token(c: char, eq_next: bool) -> Option<Tok> {
    let op = match (c, eq_next) {
        ('=', _) => RelOp::Eq,
        ('<', false) => RelOp::Lt,
        ('<', true) => RelOp::Le,
        ('>', false) => RelOp::Gt,
        ('>', true) => RelOp::Ge,
        ('!', true) => RelOp::Ne,
        _ => return None,
    };
    Some(Tok::Rel(op))
}

// ---------------------------------------------------------------------------
// Parser
// ---------------------------------------------------------------------------

const FUNCS: &[&str] = &[
    "sin", "cos", "tan", "sec", "csc", "cot", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
    "ln", "log", "exp", "lg", "sqrt",
];

/// Single letters read as uninterpreted function names when followed by `(`.
const FUNC_LETTERS: &[&str] = &["f", "g", "h", "F", "G", "H", "W", "P", "Q", "S"];

const TEXT_CMDS: &[&str] = &[
    "text",
    "textbf",
    "textit",
    "textrm",
    "textnormal",
    "textsf",
    "texttt",
    "mathrm",
    "mathbf",
    "mathit",
    "mathsf",
    "mathtt",
    "mbox",
    "hbox",
    "operatorname",
    "boldsymbol",
    "bm",
    "rm",
    "mathbb",
    "mathcal",
];

/// Unit words dropped after a quantity (multi-letter only: single letters
/// are kept as variables unless written as `\text{ m}`).
const UNITS: &[&str] = &[
    "cm",
    "mm",
    "km",
    "kg",
    "mg",
    "ml",
    "ft",
    "mph",
    "kph",
    "hr",
    "hrs",
    "sec",
    "secs",
    "min",
    "mins",
    "feet",
    "foot",
    "inch",
    "inches",
    "yard",
    "yards",
    "mile",
    "miles",
    "meter",
    "meters",
    "metre",
    "metres",
    "centimeter",
    "centimeters",
    "kilometer",
    "kilometers",
    "millimeter",
    "millimeters",
    "gram",
    "grams",
    "kilogram",
    "kilograms",
    "pound",
    "pounds",
    "lb",
    "lbs",
    "oz",
    "ounce",
    "ounces",
    "second",
    "seconds",
    "minute",
    "minutes",
    "hour",
    "hours",
    "day",
    "days",
    "week",
    "weeks",
    "month",
    "months",
    "year",
    "years",
    "degree",
    "degrees",
    "dollar",
    "dollars",
    "cent",
    "cents",
    "unit",
    "units",
    "yuan",
    "rupee",
    "rupees",
    "euro",
    "euros",
    "liter",
    "liters",
    "litre",
    "litres",
    "gallon",
    "gallons",
    "square",
    "sq",
    "cubic",
    "points",
    "ways",
    "students",
    "people",
    "times",
    "steps",
    "inches",
    "hz",
    "khz",
    "mhz",
    "ghz",
    "rpm",
    "kw",
    "kwh",
    "mw",
    "newton",
    "newtons",
    "joule",
    "joules",
    "watt",
    "watts",
    "volt",
    "volts",
    "ohm",
    "ohms",
    "amp",
    "amps",
    "ampere",
    "amperes",
    "pa",
    "kpa",
    "mpa",
    "atm",
    "mol",
    "mole",
    "moles",
    "kj",
    "kcal",
    "cal",
    "ev",
    "kev",
    "mev",
    "mps",
    "kmh",
    "m",
    "s",
    "g",
    "h",
    "l",
    "n",
    "j",
    "w",
    "v",
];

fn is_unit(w: &str, allow_single: bool) -> bool {
    let lw = w.to_ascii_lowercase().replace(" / ", "/");
    let lw = lw.trim();
    if lw.chars().count() == 1 && !allow_single {
        return false;
    }
    // "cm^2" handled by the caller; also accept things like "sq units"
    // and quotients such as "m/s" or "km/h" (single letters allowed there)
    let one =
        |p: &str| UNITS.contains(&p.trim_end_matches(['.', '^', '2', '3'])) || UNITS.contains(&p);
    lw.split_whitespace().all(|p| {
        one(p)
            || p == "of"
            || p == "per"
            || (p.contains('/') && p.split('/').all(|q| !q.is_empty() && one(q)))
    }) && !lw.is_empty()
}

pub(crate) struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    depth: usize,
    abs_depth: usize,
}

fn int(n: i64) -> Expr {
    Expr::Num(Num {
        val: BigRational::from_integer(BigInt::from(n)),
        decimals: None,
    })
}

pub(crate) fn parse_number(lit: &str) -> Option<Num> {
    let (mant, exp) = match lit.split_once('E') {
        Some((m, e)) => (m, Some(e)),
        None => (lit, None),
    };
    let (ip, fp) = match mant.split_once('.') {
        Some((a, b)) => (a, b),
        None => (mant, ""),
    };
    if fp.len() > 4000 || ip.len() > 4000 {
        return None;
    }
    let digits = format!("{ip}{fp}");
    let digits = if digits.is_empty() {
        "0".to_string()
    } else {
        digits
    };
    let num: BigInt = digits.parse().ok()?;
    let den = num_traits::pow(BigInt::from(10), fp.len());
    let mut val = BigRational::new(num, den);
    let mut decimals = if mant.contains('.') {
        Some(fp.len() as u32)
    } else {
        None
    };
    if let Some(e) = exp {
        let e: i64 = e.parse().ok()?;
        if e.abs() > 400 {
            return None;
        }
        let p =
            BigRational::from_integer(num_traits::pow(BigInt::from(10), e.unsigned_abs() as usize));
        if e >= 0 {
            val *= p;
        } else {
            val /= p;
        }
        decimals = None;
    }
    Some(Num { val, decimals })
}

impl Parser {
    pub(crate) fn new(toks: Vec<Tok>) -> Self {
        Parser {
            toks,
            pos: 0,
            depth: 0,
            abs_depth: 0,
        }
    }

    /// Tokens of a unit quotient at the cursor (`m / s`, `km / h`,
    /// `m / s ^ 2`) that ends the term; 0 if there is none.
    fn unit_quotient_len(&self) -> usize {
        let toks = &self.toks[self.pos.min(self.toks.len())..];
        let mut i = 0;
        let mut slashes = 0;
        loop {
            match toks.get(i) {
                Some(Tok::Word(w)) if is_unit(w, true) => i += 1,
                _ => return 0,
            }
            if let (Some(Tok::Op('^')), Some(Tok::Num(_))) = (toks.get(i), toks.get(i + 1)) {
                i += 2;
            }
            match toks.get(i) {
                Some(Tok::Op('/')) => {
                    slashes += 1;
                    i += 1;
                }
                Some(Tok::Word(_) | Tok::Num(_) | Tok::LParen | Tok::Cmd(_)) => return 0,
                _ => return if slashes > 0 { i } else { 0 },
            }
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }
    fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).cloned();
        if t.is_some() {
            self.pos += 1;
        }
        t
    }
    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    fn enter(&mut self) -> Result<(), ParseError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            Err(ParseError::Limit)
        } else {
            Ok(())
        }
    }
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Parse a whole input.
    pub(crate) fn parse_all(&mut self) -> Result<Expr, ParseError> {
        let e = self.parse_list()?;
        if self.pos != self.toks.len() {
            return Err(ParseError::Syntax);
        }
        Ok(e)
    }

    fn is_sep_word(t: Option<&Tok>) -> bool {
        matches!(t, Some(Tok::Word(w)) if w == "and" || w == "or")
    }

    /// Top-level list: items separated by `;` (outer), `,` and `and`/`or`.
    fn parse_list(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut outer: Vec<Expr> = Vec::new();
        let mut has_semi = false;
        loop {
            let mut items: Vec<Expr> = Vec::new();
            loop {
                while self.eat(&Tok::Comma) || {
                    if Self::is_sep_word(self.peek()) {
                        self.pos += 1;
                        true
                    } else {
                        false
                    }
                } {}
                if self.at_list_end() {
                    break;
                }
                let it = self.parse_rel()?;
                items.push(it);
                if !(matches!(self.peek(), Some(Tok::Comma)) || Self::is_sep_word(self.peek())) {
                    break;
                }
            }
            let group = if items.len() == 1 {
                items.pop().unwrap()
            } else {
                Expr::List(items)
            };
            outer.push(group);
            if self.eat(&Tok::Semi) {
                has_semi = true;
                continue;
            }
            break;
        }
        self.leave();
        let res = if has_semi {
            let outer: Vec<Expr> = outer
                .into_iter()
                .filter(|e| !matches!(e, Expr::List(v) if v.is_empty()))
                .collect();
            if outer.len() == 1 {
                outer.into_iter().next().unwrap()
            } else {
                Expr::List(outer)
            }
        } else {
            outer.pop().unwrap()
        };
        Ok(res)
    }

    fn at_list_end(&self) -> bool {
        matches!(
            self.peek(),
            None | Some(Tok::RParen)
                | Some(Tok::RBrack)
                | Some(Tok::RBrace)
                | Some(Tok::RSet)
                | Some(Tok::Semi)
        )
    }

    fn parse_rel(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let first = self.parse_setop()?;
        let mut items = vec![first];
        let mut ops = Vec::new();
        while let Some(Tok::Rel(op)) = self.peek().cloned() {
            self.pos += 1;
            ops.push(op);
            items.push(self.parse_setop()?);
        }
        self.leave();
        if ops.is_empty() {
            Ok(items.pop().unwrap())
        } else {
            Ok(Expr::Rel(items, ops))
        }
    }

    fn parse_setop(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let first = self.parse_ratio()?;
        let mut parts = vec![first];
        while let Some(Tok::Op(c)) = self.peek().cloned() {
            if c != '∪' {
                if c == '∩' || c == '∖' {
                    // not supported semantically
                    self.leave();
                    return Err(ParseError::Syntax);
                }
                break;
            }
            self.pos += 1;
            parts.push(self.parse_ratio()?);
        }
        self.leave();
        if parts.len() == 1 {
            Ok(parts.pop().unwrap())
        } else {
            Ok(Expr::Union(parts))
        }
    }

    fn parse_ratio(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let first = self.parse_add()?;
        let mut parts = vec![first];
        while self.peek() == Some(&Tok::Op(':')) {
            self.pos += 1;
            parts.push(self.parse_add()?);
        }
        self.leave();
        if parts.len() == 1 {
            Ok(parts.pop().unwrap())
        } else {
            Ok(Expr::Ratio(parts))
        }
    }

    fn parse_add(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let first = self.parse_unary()?;
        let mut terms = vec![first];
        let mut pm: Option<(Expr, bool)> = None;
        loop {
            match self.peek() {
                Some(Tok::Op('+')) => {
                    self.pos += 1;
                    terms.push(self.parse_unary()?);
                }
                Some(Tok::Op('-')) => {
                    self.pos += 1;
                    let t = self.parse_unary()?;
                    terms.push(Expr::Neg(Box::new(t)));
                }
                Some(Tok::Op(c @ ('±' | '∓'))) => {
                    let minus_first = *c == '∓';
                    self.pos += 1;
                    let t = self.parse_mul()?;
                    // a ± b ± c is not supported beyond one level
                    if pm.is_some() {
                        self.leave();
                        return Err(ParseError::Syntax);
                    }
                    pm = Some((t, minus_first));
                }
                _ => break,
            }
        }
        self.leave();
        let base = if terms.len() == 1 {
            terms.pop().unwrap()
        } else {
            Expr::Add(terms)
        };
        Ok(match pm {
            Some((b, m)) => Expr::PlusMinus(Box::new(base), Box::new(b), m),
            None => base,
        })
    }

    fn parse_unary(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = match self.peek() {
            Some(Tok::Op('-')) => {
                self.pos += 1;
                let e = self.parse_unary()?;
                Ok(Expr::Neg(Box::new(e)))
            }
            Some(Tok::Op('+')) => {
                self.pos += 1;
                self.parse_unary()
            }
            Some(Tok::Op(c @ ('±' | '∓'))) => {
                let m = *c == '∓';
                self.pos += 1;
                let e = self.parse_mul()?;
                Ok(Expr::PlusMinus(Box::new(int(0)), Box::new(e), m))
            }
            _ => self.parse_mul(),
        };
        self.leave();
        r
    }

    fn starts_factor(&self) -> bool {
        match self.peek() {
            Some(Tok::Num(_)) | Some(Tok::LParen) | Some(Tok::LBrace) | Some(Tok::LSet) => true,
            Some(Tok::Word(w)) => !(w == "and" || w == "or"),
            Some(Tok::Cmd(c)) => !matches!(c.as_str(), "end" | "rfloor" | "rceil"),
            Some(Tok::Pipe) => self.abs_depth == 0,
            _ => false,
        }
    }

    fn parse_mul(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let first = self.parse_power()?;
        let mut factors = vec![first];
        loop {
            match self.peek() {
                Some(Tok::Op('*')) => {
                    self.pos += 1;
                    factors.push(self.parse_power()?);
                }
                Some(Tok::Op('/')) => {
                    self.pos += 1;
                    let d = self.parse_power()?;
                    let num = if factors.len() == 1 {
                        factors.pop().unwrap()
                    } else {
                        Expr::Mul(std::mem::take(&mut factors))
                    };
                    factors = vec![Expr::Div(Box::new(num), Box::new(d))];
                }
                _ if self.starts_factor() => {
                    let f = self.parse_power()?;
                    // mixed number: integer literal followed by \frac of integers
                    if factors.len() == 1 {
                        if let (Expr::Num(a), Expr::Div(p, q)) = (&factors[0], &f) {
                            if a.decimals.is_none() && a.val.is_integer() {
                                if let (Expr::Num(p), Expr::Num(q)) = (&**p, &**q) {
                                    if p.decimals.is_none()
                                        && q.decimals.is_none()
                                        && !q.val.is_zero()
                                    {
                                        factors[0] = Expr::Add(vec![factors[0].clone(), f.clone()]);
                                        continue;
                                    }
                                }
                            }
                        }
                    }
                    if matches!(f, Expr::Text(ref t) if t.is_empty()) {
                        continue;
                    }
                    factors.push(f);
                }
                _ => break,
            }
        }
        self.leave();
        // drop unit markers (empty text) that may remain
        factors.retain(|f| !matches!(f, Expr::Text(t) if t.is_empty()));
        if factors.is_empty() {
            return Err(ParseError::Syntax);
        }
        Ok(if factors.len() == 1 {
            factors.pop().unwrap()
        } else {
            Expr::Mul(factors)
        })
    }

    fn parse_power(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let mut base = self.parse_primary()?;
        loop {
            match self.peek() {
                Some(Tok::Op('^')) => {
                    self.pos += 1;
                    let exp = self.parse_script()?;
                    if matches!(exp, Expr::Text(ref t) if t.is_empty()) {
                        continue;
                    }
                    if matches!(base, Expr::Text(ref t) if t.is_empty()) {
                        continue; // unit squared
                    }
                    base = Expr::Pow(Box::new(base), Box::new(exp));
                }
                Some(Tok::Op('!')) => {
                    self.pos += 1;
                    base = Expr::Func("fact".into(), vec![base]);
                }
                Some(Tok::Op('%')) => {
                    self.pos += 1;
                    base = Expr::Percent(Box::new(base));
                }
                Some(Tok::Word(w)) if matches!(w.as_str(), "percent" | "percentage" | "pct") => {
                    self.pos += 1;
                    base = Expr::Percent(Box::new(base));
                }
                Some(Tok::Word(_))
                    if matches!(base, Expr::Num(_)) && self.unit_quotient_len() > 0 =>
                {
                    // a quotient of units after a number: 12 m/s, 9.8 m/s^2
                    self.pos += self.unit_quotient_len();
                }
                Some(Tok::Word(w)) if !matches!(base, Expr::Text(_)) && is_unit(w, false) => {
                    // trailing unit word: drop it (and a following ^2)
                    self.pos += 1;
                    if self.peek() == Some(&Tok::Op('^')) {
                        self.pos += 1;
                        let _ = self.parse_script()?;
                    }
                }
                _ => break,
            }
        }
        self.leave();
        Ok(base)
    }

    /// Superscript / subscript argument: a group `{...}` or a single atom.
    fn parse_script(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = match self.peek().cloned() {
            Some(Tok::LBrace) => {
                self.pos += 1;
                if self.eat(&Tok::RBrace) {
                    Ok(Expr::Text(String::new()))
                } else {
                    let e = self.parse_list()?;
                    if !self.eat(&Tok::RBrace) {
                        Err(ParseError::Syntax)
                    } else {
                        Ok(e)
                    }
                }
            }
            Some(Tok::Op('-')) => {
                self.pos += 1;
                let e = self.parse_script()?;
                Ok(Expr::Neg(Box::new(e)))
            }
            Some(Tok::Word(w)) if w.chars().count() > 1 => {
                // x^ab : only the first letter is the exponent
                let mut it = w.chars();
                let first = it.next().unwrap();
                let rest: String = it.collect();
                self.toks[self.pos] = Tok::Word(rest);
                Ok(Expr::Sym(first.to_string()))
            }
            _ => self.parse_primary(),
        };
        self.leave();
        r
    }

    /// Argument of `\frac`/`\sqrt` written without braces: a single digit or letter.
    fn parse_macro_arg(&mut self) -> Result<Expr, ParseError> {
        match self.peek().cloned() {
            Some(Tok::Num(s)) if s.len() > 1 && !s.contains('.') => {
                let first = &s[..1];
                self.toks[self.pos] = Tok::Num(s[1..].to_string());
                Ok(Expr::Num(parse_number(first).ok_or(ParseError::Syntax)?))
            }
            Some(Tok::Word(w)) if w.chars().count() > 1 => {
                let mut it = w.chars();
                let first = it.next().unwrap();
                self.toks[self.pos] = Tok::Word(it.collect());
                Ok(letter_expr(&first.to_string()))
            }
            Some(Tok::LBrace) => {
                self.pos += 1;
                let e = self.parse_list()?;
                if !self.eat(&Tok::RBrace) {
                    return Err(ParseError::Syntax);
                }
                Ok(e)
            }
            _ => self.parse_primary(),
        }
    }

    /// Read a raw brace group as text (for \text{...}).
    fn raw_group(&mut self) -> Result<String, ParseError> {
        if !self.eat(&Tok::LBrace) {
            // \text X (single token)
            return match self.next() {
                Some(Tok::Word(w)) => Ok(w),
                Some(Tok::Num(n)) => Ok(n),
                _ => Err(ParseError::Syntax),
            };
        }
        let mut depth = 1;
        let mut parts: Vec<String> = Vec::new();
        while let Some(t) = self.next() {
            match &t {
                Tok::LBrace => depth += 1,
                Tok::RBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(parts.join(" "));
                    }
                }
                _ => {}
            }
            parts.push(tok_text(&t));
        }
        Err(ParseError::Syntax)
    }

    fn parse_subscript_name(&mut self, base: String) -> Result<String, ParseError> {
        let mut name = base;
        while self.peek() == Some(&Tok::Op('_')) || self.peek() == Some(&Tok::Op('\'')) {
            if self.eat(&Tok::Op('\'')) {
                name.push('\'');
                continue;
            }
            self.pos += 1;
            let sub = match self.peek().cloned() {
                Some(Tok::LBrace) => self.raw_group()?,
                Some(Tok::Num(s)) => {
                    self.pos += 1;
                    s
                }
                Some(Tok::Word(w)) => {
                    self.pos += 1;
                    w
                }
                Some(Tok::Cmd(c)) => {
                    self.pos += 1;
                    c
                }
                _ => return Err(ParseError::Syntax),
            };
            let sub: String = sub.chars().filter(|c| !c.is_whitespace()).collect();
            name = format!("{name}_{sub}");
        }
        Ok(name)
    }

    fn parse_delimited(&mut self, open: Tok) -> Result<Expr, ParseError> {
        // open already consumed
        let inner = if self.at_list_end() {
            Expr::List(vec![])
        } else {
            self.parse_list()?
        };
        let close = self.next().ok_or(ParseError::Syntax)?;
        let items = match inner {
            Expr::List(v) => v,
            e => vec![e],
        };
        match (open, close) {
            (Tok::LParen, Tok::RParen) => {
                if items.len() == 1 {
                    Ok(items.into_iter().next().unwrap())
                } else {
                    Ok(Expr::Tuple(items))
                }
            }
            (Tok::LBrack, Tok::RBrack) => {
                if items.len() == 1 {
                    Ok(items.into_iter().next().unwrap())
                } else if items.len() == 2 {
                    let mut it = items.into_iter();
                    Ok(Expr::Interval(
                        Box::new(it.next().unwrap()),
                        Box::new(it.next().unwrap()),
                        true,
                        true,
                    ))
                } else {
                    Ok(Expr::Tuple(items))
                }
            }
            (o @ (Tok::LParen | Tok::LBrack), c @ (Tok::RParen | Tok::RBrack)) => {
                if items.len() != 2 {
                    return Err(ParseError::Syntax);
                }
                let mut it = items.into_iter();
                Ok(Expr::Interval(
                    Box::new(it.next().unwrap()),
                    Box::new(it.next().unwrap()),
                    o == Tok::LBrack,
                    c == Tok::RBrack,
                ))
            }
            (Tok::LBrace, Tok::RBrace) => {
                if items.len() == 1 {
                    Ok(items.into_iter().next().unwrap())
                } else {
                    Ok(Expr::Set(items))
                }
            }
            (Tok::LSet, Tok::RSet) => Ok(Expr::Set(items)),
            _ => Err(ParseError::Syntax),
        }
    }

    fn parse_func_arg(&mut self) -> Result<Expr, ParseError> {
        if self.peek() == Some(&Tok::LParen) {
            self.pos += 1;
            let e = self.parse_delimited(Tok::LParen)?;
            return Ok(e);
        }
        // \sin 2x : a numeric coefficient followed by a letter
        let a = self.parse_power()?;
        if matches!(a, Expr::Num(_)) && matches!(self.peek(), Some(Tok::Word(_))) {
            let b = self.parse_power()?;
            return Ok(Expr::Mul(vec![a, b]));
        }
        Ok(a)
    }

    fn parse_function(&mut self, name: &str) -> Result<Expr, ParseError> {
        // optional power before the argument: \sin^2 x ; optional base: \log_2 8
        let mut power = None;
        let mut base = None;
        loop {
            if self.eat(&Tok::Op('^')) {
                power = Some(self.parse_script()?);
            } else if self.eat(&Tok::Op('_')) {
                base = Some(self.parse_script()?);
            } else {
                break;
            }
        }
        let arg = if name == "sqrt" {
            // \sqrt[n]{x}
            if self.eat(&Tok::LBrack) {
                let n = self.parse_list()?;
                if !self.eat(&Tok::RBrack) {
                    return Err(ParseError::Syntax);
                }
                let x = self.parse_macro_arg()?;
                return Ok(Expr::Func("root".into(), vec![n, x]));
            }
            if self.peek() == Some(&Tok::LParen) {
                self.parse_func_arg()?
            } else {
                self.parse_macro_arg()?
            }
        } else {
            self.parse_func_arg()?
        };
        let fname = match name {
            "lg" => "log10".to_string(),
            n => n.to_string(),
        };
        let mut e = match base {
            Some(b) if fname == "log" => Expr::Func("logb".into(), vec![b, arg]),
            _ => Expr::Func(fname, vec![arg]),
        };
        if let Some(p) = power {
            e = Expr::Pow(Box::new(e), Box::new(p));
        }
        Ok(e)
    }

    fn parse_env(&mut self) -> Result<Expr, ParseError> {
        let env = self.raw_group()?.replace(' ', "");
        let env = env.trim_end_matches('*').to_string();
        let matrix = matches!(
            env.as_str(),
            "pmatrix" | "bmatrix" | "Bmatrix" | "matrix" | "smallmatrix" | "array" | "vmatrix"
        );
        if !matrix {
            return Err(ParseError::Syntax);
        }
        if env == "array" && self.peek() == Some(&Tok::LBrace) {
            let _ = self.raw_group()?;
        }
        let mut rows: Vec<Vec<Expr>> = Vec::new();
        let mut row: Vec<Expr> = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Cmd(c)) if c == "end" => {
                    self.pos += 1;
                    let _ = self.raw_group()?;
                    break;
                }
                Some(Tok::Amp) => {
                    return Err(ParseError::Syntax);
                }
                Some(Tok::RowSep) => {
                    self.pos += 1;
                    // empty trailing row
                    continue;
                }
                None => return Err(ParseError::Syntax),
                _ => {}
            }
            let cell = self.parse_rel()?;
            row.push(cell);
            match self.next() {
                Some(Tok::Amp) => continue,
                Some(Tok::RowSep) => {
                    rows.push(std::mem::take(&mut row));
                }
                Some(Tok::Cmd(c)) if c == "end" => {
                    let _ = self.raw_group()?;
                    break;
                }
                _ => return Err(ParseError::Syntax),
            }
        }
        if !row.is_empty() {
            rows.push(row);
        }
        if rows.is_empty() || rows.iter().any(|r| r.len() != rows[0].len()) {
            return Err(ParseError::Syntax);
        }
        let m = Expr::Matrix(rows);
        if env == "vmatrix" {
            return Ok(Expr::Func("det".into(), vec![m]));
        }
        Ok(m)
    }

    fn parse_primary(&mut self) -> Result<Expr, ParseError> {
        self.enter()?;
        let r = self.parse_primary_inner();
        self.leave();
        r
    }

    fn parse_primary_inner(&mut self) -> Result<Expr, ParseError> {
        let t = self.next().ok_or(ParseError::Syntax)?;
        match t {
            Tok::Num(s) => {
                let num = parse_number(&s).ok_or(ParseError::Syntax)?;
                if self.peek() == Some(&Tok::Op('_')) {
                    // base-n numerals like 204_5 are opaque
                    let name = self.parse_subscript_name(s)?;
                    return Ok(Expr::Text(name));
                }
                Ok(Expr::Num(num))
            }
            Tok::Word(w) => self.parse_word(w),
            Tok::LParen | Tok::LBrack | Tok::LBrace | Tok::LSet => self.parse_delimited(t),
            Tok::Pipe => {
                self.abs_depth += 1;
                let e = self.parse_list();
                self.abs_depth -= 1;
                let e = e?;
                if !self.eat(&Tok::Pipe) {
                    return Err(ParseError::Syntax);
                }
                Ok(Expr::Func("abs".into(), vec![e]))
            }
            Tok::Cmd(c) => self.parse_cmd(&c),
            _ => Err(ParseError::Syntax),
        }
    }

    fn parse_word(&mut self, w: String) -> Result<Expr, ParseError> {
        let lw = w.to_ascii_lowercase();
        match lw.as_str() {
            "sqrt" | "sin" | "cos" | "tan" | "ln" | "log" | "exp" | "sec" | "csc" | "cot"
                if self.peek() == Some(&Tok::LParen) || lw == "sqrt" =>
            {
                return self.parse_function(&lw);
            }
            "pi" => return Ok(Expr::Const(Const::Pi)),
            "inf" | "infinity" | "infty" => return Ok(Expr::Const(Const::Inf)),
            _ => {}
        }
        let nchar = w.chars().count();
        if nchar == 1 {
            let name = self.parse_subscript_name(w.clone())?;
            if name == w && FUNC_LETTERS.contains(&w.as_str()) && self.peek() == Some(&Tok::LParen)
            {
                self.pos += 1;
                let arg = self.parse_delimited(Tok::LParen)?;
                let args = match arg {
                    Expr::Tuple(v) => v,
                    e => vec![e],
                };
                return Ok(Expr::Func(format!("@{w}"), args));
            }
            if name == w {
                return Ok(letter_expr(&w));
            }
            return Ok(Expr::Sym(name));
        }
        if is_unit(&w, false) {
            // a unit word with nothing before it: treat as an empty marker
            return Ok(Expr::Text(String::new()));
        }
        if nchar >= 4 {
            // a plain word: opaque text (lowercased)
            return Ok(Expr::Text(lw));
        }
        // short letter run: implicit product of single letters (xy = x*y);
        // the last letter may carry a subscript.
        let letters: Vec<char> = w.chars().collect();
        let mut factors: Vec<Expr> = letters[..letters.len() - 1]
            .iter()
            .map(|c| letter_expr(&c.to_string()))
            .collect();
        let last = letters[letters.len() - 1].to_string();
        let name = self.parse_subscript_name(last.clone())?;
        factors.push(if name == last {
            letter_expr(&last)
        } else {
            Expr::Sym(name)
        });
        Ok(Expr::Mul(factors))
    }

    fn parse_cmd(&mut self, c: &str) -> Result<Expr, ParseError> {
        match c {
            "frac" | "over" => {
                let a = self.parse_macro_arg()?;
                let b = self.parse_macro_arg()?;
                Ok(Expr::Div(Box::new(a), Box::new(b)))
            }
            "binom" | "dbinom" | "tbinom" | "choose" => {
                let a = self.parse_macro_arg()?;
                let b = self.parse_macro_arg()?;
                Ok(Expr::Func("binom".into(), vec![a, b]))
            }
            "sqrt" => self.parse_function("sqrt"),
            "sin" | "cos" | "tan" | "sec" | "csc" | "cot" | "arcsin" | "arccos" | "arctan"
            | "sinh" | "cosh" | "tanh" | "ln" | "log" | "exp" | "lg" => self.parse_function(c),
            "pi" => Ok(Expr::Const(Const::Pi)),
            "infty" | "infin" => Ok(Expr::Const(Const::Inf)),
            "emptyset" | "varnothing" => Ok(Expr::Set(vec![])),
            "boxed" | "fbox" | "overline" | "underline" | "hat" | "vec" | "bar" | "tilde"
            | "widehat" | "overrightarrow" | "mathring" => {
                let e = self.parse_macro_arg()?;
                if matches!(c, "boxed" | "fbox") {
                    return Ok(e);
                }
                // decorated symbol: keep it distinct from the plain one
                Ok(Expr::Func(format!("@{c}"), vec![e]))
            }
            "lfloor" | "lceil" => {
                let e = self.parse_list()?;
                let close = if c == "lfloor" { "rfloor" } else { "rceil" };
                match self.next() {
                    Some(Tok::Cmd(x)) if x == close => {}
                    _ => return Err(ParseError::Syntax),
                }
                Ok(Expr::Func(
                    if c == "lfloor" { "floor" } else { "ceil" }.into(),
                    vec![e],
                ))
            }
            "begin" => self.parse_env(),
            x if TEXT_CMDS.contains(&x) => {
                let raw = self.raw_group()?;
                self.text_expr(x, &raw)
            }
            x if FUNCS.contains(&x) => self.parse_function(x),
            // Greek letters and other symbols: variables
            x => {
                let name = self.parse_subscript_name(format!("\\{x}"))?;
                Ok(Expr::Sym(name))
            }
        }
    }

    fn text_expr(&mut self, cmd: &str, raw: &str) -> Result<Expr, ParseError> {
        let t = raw.trim();
        let lt = t.to_ascii_lowercase();
        if t.is_empty() {
            return Ok(Expr::Text(String::new()));
        }
        if cmd == "mathbb" {
            return Ok(Expr::Sym(format!("\\mathbb{{{t}}}")));
        }
        if lt == "and" || lt == "or" {
            // acts like a comma: rewind by inserting a Comma token
            self.toks.insert(self.pos, Tok::Comma);
            return Ok(Expr::Text(String::new()));
        }
        if matches!(lt.as_str(), "percent" | "percentage" | "pct" | "%") {
            self.toks.insert(self.pos, Tok::Op('%'));
            return Ok(Expr::Text(String::new()));
        }
        let leading_space = raw.starts_with(' ');
        if is_unit(t, leading_space || cmd == "mathrm" || cmd == "mbox") {
            return Ok(Expr::Text(String::new()));
        }
        let stripped: String = t
            .chars()
            .filter(|c| !matches!(c, '(' | ')'))
            .collect::<String>()
            .trim()
            .to_string();
        if stripped.chars().count() == 1 && stripped.chars().all(|c| c.is_alphabetic()) {
            return Ok(letter_expr(&stripped));
        }
        if !stripped.is_empty() && stripped.chars().all(|c| c.is_ascii_digit()) {
            return Ok(Expr::Num(
                parse_number(&stripped).ok_or(ParseError::Syntax)?,
            ));
        }
        let words: Vec<&str> = t.split_whitespace().collect();
        Ok(Expr::Text(words.join(" ").to_lowercase()))
    }
}

/// A single-letter symbol; `e` is Euler's number.
fn letter_expr(l: &str) -> Expr {
    if l == "e" {
        Expr::Const(Const::E)
    } else {
        Expr::Sym(l.to_string())
    }
}

fn tok_text(t: &Tok) -> String {
    match t {
        Tok::Num(s) | Tok::Word(s) => s.clone(),
        Tok::Cmd(c) => format!("\\{c}"),
        Tok::Op(c) => c.to_string(),
        Tok::LBrace => "{".into(),
        Tok::RBrace => "}".into(),
        Tok::LParen => "(".into(),
        Tok::RParen => ")".into(),
        Tok::LBrack => "[".into(),
        Tok::RBrack => "]".into(),
        Tok::LSet => "\\{".into(),
        Tok::RSet => "\\}".into(),
        Tok::Pipe => "|".into(),
        Tok::Amp => "&".into(),
        Tok::RowSep => "\\\\".into(),
        Tok::Comma => ",".into(),
        Tok::Semi => ";".into(),
        Tok::Rel(r) => format!("{r:?}"),
    }
}

/// Parse an answer string (already extracted) into an expression.
pub(crate) fn parse_answer(s: &str) -> Result<Expr, ParseError> {
    let norm = normalize(s);
    if norm.is_empty() {
        return Err(ParseError::Syntax);
    }
    let toks = tokenize(&norm)?;
    if toks.is_empty() {
        return Err(ParseError::Syntax);
    }
    let mut p = Parser::new(toks);
    p.parse_all()
}

#[allow(dead_code)]
pub(crate) fn one() -> BigRational {
    BigRational::one()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_basic() {
        for s in [
            "1/2",
            "\\frac{1}{2}",
            "\\frac12",
            "2\\frac{1}{2}",
            "x^2+1",
            "(1,2)",
            "[0,1)",
            "\\{1,2\\}",
            "x \\in [1,2]",
            "\\sin^2(y)+1",
            "\\begin{pmatrix}1 & 2 \\\\ 3 & 4\\end{pmatrix}",
            "1 \\pm \\sqrt{19}",
            "28\\%",
            "125 miles",
            "15\\mbox{ cm}^2",
            "\\text{Evelyn}",
            "f(2) < f(1) < f(4)",
            "7:32",
        ] {
            assert!(
                parse_answer(s).is_ok(),
                "failed to parse {s}: {:?}",
                parse_answer(s)
            );
        }
    }

    #[test]
    fn normalizes_numbers() {
        assert_eq!(normalize("1,000"), "1000");
        assert_eq!(normalize("1 000"), "1000");
        assert_eq!(normalize("1000,99"), "1000.99");
        assert_eq!(normalize("0,111"), "0.111");
        assert_eq!(normalize("11,\\! 111,\\! 111,\\! 100"), "11111111100");
        assert_eq!(normalize("14{,}916"), "14916");
        assert_eq!(normalize("90^\\circ"), "90");
        assert_eq!(normalize("90^{\\circ}"), "90");
    }
}
