//! Equivalence of math answers.

use std::collections::{BTreeSet, HashMap};

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};

use crate::eval::{
    eval_exact, eval_f64, eval_surd, free_symbols, point_value, Budget, Ctx, Exhausted, PctEval,
    Points, Surd,
};
use crate::extract::joined_boxes;
use crate::limits::{MAX_ANSWER_LEN, MAX_ELEMENTS};
use crate::parse::{normalize, parse_answer, Const, Expr, ParseError, RelOp};

/// How percentages compare with plain numbers.
///
/// ```
/// use rollstat_grade::{Grader, PercentPolicy};
/// assert!(Grader::default().is_equivalent("50\\%", "50").equal); // Strip
/// let g = Grader { percent: PercentPolicy::Either, ..Grader::default() };
/// assert!(g.is_equivalent("50\\%", "0.5").equal && g.is_equivalent("50\\%", "50").equal);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum PercentPolicy {
    /// `50%` equals `50` (the sign is dropped, as in the Hendrycks MATH
    /// grader). `50%` does **not** equal `0.5`. This keeps equivalence
    /// transitive. The default.
    #[default]
    Strip,
    /// `50%` equals `0.5` (and `1/2`), not `50`.
    Fraction,
    /// `50%` equals both `50` and `0.5` (lenient, like Qwen2.5-Math's
    /// grader). Not transitive: avoid it for clustering.
    Either,
}

/// Why a [`Equivalence`] was reached.
///
/// ```
/// use rollstat_grade::{is_equivalent, Reason};
/// assert_eq!(is_equivalent("1/2", "0.5").reason, Reason::ExactRational);
/// assert_eq!(is_equivalent("\\pi", "3.14159265358979").reason, Reason::Rounding);
/// assert_eq!(is_equivalent("x^2-1", "(x-1)(x+1)").reason, Reason::Identity);
/// assert_eq!(is_equivalent("2", "3").reason, Reason::Different);
/// assert_eq!(is_equivalent("2", &"1".repeat(5000)).reason, Reason::LimitExceeded);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Equal as normalized strings.
    String,
    /// Equal as parsed trees (same structure).
    Structural,
    /// Equal as exact big rationals.
    ExactRational,
    /// Equal as exact sums of rational multiples of square roots
    /// (`\sqrt{8}` = `2\sqrt{2}`, `\frac{1}{\sqrt{3}}` = `\frac{\sqrt3}{3}`).
    ExactRadical,
    /// A decimal literal is a correct rounding of the other (exact) value to
    /// the number of decimals written (at least 2).
    Rounding,
    /// Equal within the relative tolerance after floating-point evaluation.
    NumericTolerance,
    /// Expressions with variables agree at every pseudo-random sample point.
    Identity,
    /// Parsed and compared: not equal.
    Different,
    /// At least one side could not be parsed (and the strings differ).
    Unparseable,
    /// An input or work limit was hit (input too long, too deep, too much work).
    LimitExceeded,
}

/// Result of comparing two answers.
///
/// ```
/// let v = rollstat_grade::is_equivalent("\\text{Evelyn}", "Evelyn");
/// assert!(v.equal);
/// assert_eq!(v.reason, rollstat_grade::Reason::String);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Equivalence {
    /// Whether the answers are judged equivalent.
    pub equal: bool,
    /// Why.
    pub reason: Reason,
}

impl Equivalence {
    fn yes(reason: Reason) -> Self {
        Equivalence {
            equal: true,
            reason,
        }
    }
    fn no(reason: Reason) -> Self {
        Equivalence {
            equal: false,
            reason,
        }
    }
}

/// Configurable answer-equivalence checker.
///
/// ```
/// use rollstat_grade::{Grader, PercentPolicy};
/// let g = Grader { percent: PercentPolicy::Fraction, ..Grader::default() };
/// assert!(g.is_equivalent("50\\%", "0.5").equal);
/// assert!(!g.is_equivalent("50\\%", "50").equal);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Grader {
    /// Relative tolerance for floating-point comparisons (default `1e-9`).
    pub rel_tol: f64,
    /// Percent policy (default [`PercentPolicy::Strip`]).
    pub percent: PercentPolicy,
    /// Accept a decimal literal with `d >= 2` written decimals when it is the
    /// correct rounding of the other side (`|a-b| <= 0.5·10^-d`), and one
    /// with `s >= 6` significant digits within the relative tolerance
    /// `10^(1-s)` (a printed float: `0.78539815` = π/4). Default true.
    pub rounding: bool,
    /// Also compare a gold *set* with a predicted *relation* (`[-2,7]` vs
    /// `-2 <= x <= 7`). The reverse (gold relation, predicted set) is always
    /// allowed. Default false, as in Math-Verify (stops a model from echoing
    /// the question's inequality).
    pub allow_set_relation_comp: bool,
}

impl Default for Grader {
    fn default() -> Self {
        Grader {
            rel_tol: 1e-9,
            percent: PercentPolicy::Strip,
            rounding: true,
            allow_set_relation_comp: false,
        }
    }
}

/// A parsed answer, reusable across many comparisons.
#[derive(Debug, Clone)]
pub(crate) struct Prepared {
    pub canon: String,
    pub expr: Result<Expr, ParseError>,
    pub too_long: bool,
    /// Set when the whole answer is a calendar date (see [`date_of`]).
    pub date: Option<Date>,
}

/// How a date is written: `MM/DD/YYYY`-like (two short parts, then a
/// four-digit year; `/` or `-`) or ISO-like `YYYY-MM-DD`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum DateForm {
    YearLast,
    YearFirst,
}

/// A calendar date answer: its form and its three parts as integers in the
/// order written (leading zeros dropped).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Date {
    pub form: DateForm,
    pub parts: [u32; 3],
}

/// Reads a whole (canonicalized) answer as a date: `05/01/2021`,
/// `5/1/2021`, `05-01-2021` (year last, two parts of 1–2 digits) or
/// `2021-05-01`, `2021/05/01` (year first, two parts of 2 digits). Such
/// answers are compared as dates, never as arithmetic: as divisions,
/// `05/01/2021` and `10/02/2021` would both be 5/2021.
pub(crate) fn date_of(canon: &str) -> Option<Date> {
    let sep = if canon.contains('/') { '/' } else { '-' };
    let parts: Vec<&str> = canon.split(sep).collect();
    if parts.len() != 3
        || parts
            .iter()
            .any(|p| p.is_empty() || !p.bytes().all(|b| b.is_ascii_digit()))
    {
        return None;
    }
    let lens = [parts[0].len(), parts[1].len(), parts[2].len()];
    let form = match lens {
        [1 | 2, 1 | 2, 4] => DateForm::YearLast,
        [4, 2, 2] => DateForm::YearFirst,
        _ => return None,
    };
    let mut v = [0u32; 3];
    for (x, p) in v.iter_mut().zip(&parts) {
        *x = p.parse().ok()?;
    }
    let (a, b) = match form {
        DateForm::YearLast => (v[0], v[1]),
        DateForm::YearFirst => (v[1], v[2]),
    };
    // month and day (in either order) are 1..=31, one of them ≤ 12
    if !(1..=31).contains(&a) || !(1..=31).contains(&b) || (a > 12 && b > 12) {
        return None;
    }
    Some(Date { form, parts: v })
}

/// Remove `\text{..}`-like wrappers (keeping their content).
fn strip_text_wrappers(s: &str) -> String {
    const WRAPPERS: &[&str] = &[
        "\\text{",
        "\\textbf{",
        "\\textit{",
        "\\textrm{",
        "\\textnormal{",
        "\\mathrm{",
        "\\mathbf{",
        "\\mbox{",
        "\\boxed{",
    ];
    let mut out = s.to_string();
    for w in WRAPPERS {
        let mut guard = 0;
        while let Some(pos) = out.find(w) {
            guard += 1;
            if guard > 64 {
                break;
            }
            let start = pos + w.len();
            let bytes = out.as_bytes();
            let mut depth = 1;
            let mut k = start;
            while k < bytes.len() {
                match bytes[k] {
                    b'{' => depth += 1,
                    b'}' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                k += 1;
            }
            if k >= bytes.len() {
                break;
            }
            let inner = out[start..k].to_string();
            out = format!("{}{}{}", &out[..pos], inner, &out[k + 1..]);
        }
    }
    out
}

/// Normalized comparison string.
pub(crate) fn canon_string(s: &str) -> String {
    let n = normalize(s);
    let n = strip_text_wrappers(&n);
    // drop whitespace, except a single space between two digits ("1 2" != "12")
    let chars: Vec<char> = n.chars().collect();
    // next non-whitespace char after each position (one backward pass)
    let mut next_nonws: Vec<Option<char>> = vec![None; chars.len() + 1];
    for i in (0..chars.len()).rev() {
        next_nonws[i] = if chars[i].is_whitespace() {
            next_nonws[i + 1]
        } else {
            Some(chars[i])
        };
    }
    let mut c = String::with_capacity(n.len());
    for (i, ch) in chars.iter().enumerate() {
        if ch.is_whitespace() {
            let prev = c.chars().next_back();
            let next = next_nonws[i + 1];
            if prev.is_some_and(|p| p.is_ascii_digit())
                && next.is_some_and(|x| x.is_ascii_digit())
                && !c.ends_with(' ')
            {
                c.push(' ');
            }
        } else {
            c.push(*ch);
        }
    }
    while c.ends_with('.') {
        c.pop();
    }
    if !c.is_empty()
        && c.chars()
            .all(|ch| ch.is_alphabetic() || ch == '(' || ch == ')')
    {
        c = c
            .chars()
            .filter(|ch| ch.is_alphabetic())
            .collect::<String>()
            .to_lowercase();
    }
    c
}

pub(crate) fn prepare(s: &str) -> Prepared {
    if s.len() > MAX_ANSWER_LEN {
        return Prepared {
            canon: String::new(),
            expr: Err(ParseError::Limit),
            too_long: true,
            date: None,
        };
    }
    let owned;
    let s = if s.contains("boxed") || s.contains("fbox") {
        owned = joined_boxes(s).unwrap_or_else(|| s.to_string());
        owned.as_str()
    } else {
        s
    };
    let canon = canon_string(s);
    let date = date_of(&canon);
    Prepared {
        canon,
        expr: parse_answer(s),
        too_long: false,
        date,
    }
}

type R = Result<Option<Reason>, Exhausted>;

struct Cmp<'a> {
    g: &'a Grader,
    budget: &'a Budget,
    pct: PctEval,
}

fn is_set_like(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Interval(..) | Expr::Union(_) | Expr::Set(_) | Expr::List(_)
    ) || matches!(e, Expr::Tuple(v) if v.len() == 2)
}

fn contains_rel(e: &Expr) -> bool {
    match e {
        Expr::Rel(..) => true,
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().any(contains_rel),
        Expr::Neg(a) | Expr::Percent(a) => contains_rel(a),
        Expr::Div(a, b) | Expr::Pow(a, b) => contains_rel(a) || contains_rel(b),
        _ => false,
    }
}

fn has_symbols(e: &Expr) -> bool {
    let mut s = BTreeSet::new();
    free_symbols(e, &mut s);
    !s.is_empty()
}

/// Expressions that name a quantity (`x`, `f(x)`, `|AB|`, `A:B`, `(p,q)`).
fn name_like(e: &Expr) -> bool {
    match e {
        Expr::Sym(_) => true,
        Expr::Const(Const::E) => true,
        Expr::Func(n, args) => n.starts_with('@') || (n == "abs" && args.iter().all(name_like)),
        Expr::Mul(v) | Expr::Ratio(v) | Expr::Tuple(v) => {
            !v.is_empty()
                && v.iter()
                    .all(|x| name_like(x) || matches!(x, Expr::Const(_)))
        }
        Expr::Div(a, b) => name_like(a) && name_like(b),
        _ => false,
    }
}

/// Cut a relation chain at its first `≈`; `x ≈ 11` becomes `11`.
fn cut_approx(e: &Expr) -> Expr {
    if let Expr::Rel(items, ops) = e {
        if let Some(k) = ops.iter().position(|o| *o == RelOp::Approx) {
            if k == 0 {
                let rest_items = items[1..].to_vec();
                let rest_ops = ops[1..].to_vec();
                if rest_ops.is_empty() {
                    return rest_items.into_iter().next().unwrap();
                }
                return cut_approx(&Expr::Rel(rest_items, rest_ops));
            }
            let it = items[..=k].to_vec();
            let op = ops[..k].to_vec();
            return cut_approx(&Expr::Rel(it, op));
        }
        // a = b = c = d  ->  a = d
        if ops.len() >= 2 && ops.iter().all(|o| *o == RelOp::Eq) {
            return Expr::Rel(
                vec![items[0].clone(), items[items.len() - 1].clone()],
                vec![RelOp::Eq],
            );
        }
    }
    e.clone()
}

/// The value an equation/membership assigns, if it is an assignment.
fn assigned_value(items: &[Expr], ops: &[RelOp], is_gold: bool, orig_len: usize) -> Option<Expr> {
    if ops.len() == 1 && ops[0] == RelOp::In {
        return Some(items[1].clone());
    }
    if !ops.iter().all(|o| *o == RelOp::Eq) {
        return None;
    }
    if !is_gold || orig_len >= 3 || name_like(&items[0]) {
        return Some(items[items.len() - 1].clone());
    }
    None
}

fn rel_len(e: &Expr) -> usize {
    match e {
        Expr::Rel(items, _) => items.len(),
        _ => 1,
    }
}

fn inf() -> Expr {
    Expr::Const(Const::Inf)
}

/// `a < x <= b` → interval; `x > a` → `(a, ∞)`; `x ∈ S` → `S`.
fn relation_to_set(items: &[Expr], ops: &[RelOp]) -> Option<Expr> {
    let is_const = |e: &Expr| !has_symbols(e);
    let lt = |o: &RelOp| matches!(o, RelOp::Lt | RelOp::Le);
    let gt = |o: &RelOp| matches!(o, RelOp::Gt | RelOp::Ge);
    let closed = |o: &RelOp| matches!(o, RelOp::Le | RelOp::Ge);
    match (items.len(), ops) {
        (2, [RelOp::In]) => Some(items[1].clone()),
        (3, [a, b]) if is_const(&items[0]) && is_const(&items[2]) && !is_const(&items[1]) => {
            if lt(a) && lt(b) {
                Some(Expr::Interval(
                    Box::new(items[0].clone()),
                    Box::new(items[2].clone()),
                    closed(a),
                    closed(b),
                ))
            } else if gt(a) && gt(b) {
                Some(Expr::Interval(
                    Box::new(items[2].clone()),
                    Box::new(items[0].clone()),
                    closed(b),
                    closed(a),
                ))
            } else {
                None
            }
        }
        (2, [o]) if lt(o) || gt(o) => {
            let (var_left, c) = if is_const(&items[1]) && !is_const(&items[0]) {
                (true, items[1].clone())
            } else if is_const(&items[0]) && !is_const(&items[1]) {
                (false, items[0].clone())
            } else {
                return None;
            };
            // x < c  or  c > x : upper bound
            let upper = (var_left && lt(o)) || (!var_left && gt(o));
            Some(if upper {
                Expr::Interval(
                    Box::new(Expr::Neg(Box::new(inf()))),
                    Box::new(c),
                    false,
                    closed(o),
                )
            } else {
                Expr::Interval(Box::new(c), Box::new(inf()), closed(o), false)
            })
        }
        _ => None,
    }
}

fn contains_pm(e: &Expr) -> bool {
    match e {
        Expr::PlusMinus(..) => true,
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().any(contains_pm),
        Expr::Neg(a) | Expr::Percent(a) => contains_pm(a),
        Expr::Div(a, b) | Expr::Pow(a, b) => contains_pm(a) || contains_pm(b),
        _ => false,
    }
}

/// Replace every `±` by `+` (sign = true) or `-` (sign = false).
fn subst_pm(e: &Expr, plus: bool) -> Expr {
    match e {
        Expr::PlusMinus(a, b, m) => {
            let a = subst_pm(a, plus);
            let b = subst_pm(b, plus);
            if plus != *m {
                Expr::Add(vec![a, b])
            } else {
                Expr::Add(vec![a, Expr::Neg(Box::new(b))])
            }
        }
        Expr::Add(v) => Expr::Add(v.iter().map(|x| subst_pm(x, plus)).collect()),
        Expr::Mul(v) => Expr::Mul(v.iter().map(|x| subst_pm(x, plus)).collect()),
        Expr::Func(n, v) => Expr::Func(n.clone(), v.iter().map(|x| subst_pm(x, plus)).collect()),
        Expr::Neg(a) => Expr::Neg(Box::new(subst_pm(a, plus))),
        Expr::Percent(a) => Expr::Percent(Box::new(subst_pm(a, plus))),
        Expr::Div(a, b) => Expr::Div(Box::new(subst_pm(a, plus)), Box::new(subst_pm(b, plus))),
        Expr::Pow(a, b) => Expr::Pow(Box::new(subst_pm(a, plus)), Box::new(subst_pm(b, plus))),
        other => other.clone(),
    }
}

/// Elements of a collection with `±` expanded.
fn expand_items(v: &[Expr]) -> Vec<Expr> {
    let mut out = Vec::new();
    for x in v {
        if contains_pm(x) {
            out.push(subst_pm(x, true));
            out.push(subst_pm(x, false));
        } else {
            out.push(x.clone());
        }
    }
    out
}

type Matrix = Vec<Vec<Expr>>;

/// A matrix expression as the symbolic matrix of its entries: a matrix
/// literal, a sum of same-shaped matrices, or a product of at most 3
/// matrices and scalar factors (`None` for anything else).
fn as_matrix(e: &Expr) -> Option<Matrix> {
    match e {
        Expr::Matrix(r) => Some(r.clone()),
        Expr::Add(v) => {
            let ms: Option<Vec<_>> = v.iter().map(as_matrix).collect();
            matrix_sum(&ms?)
        }
        Expr::Mul(v) => matrix_product(v),
        _ => None,
    }
}

/// The entrywise sum of same-shaped matrices (`None` if shapes differ).
fn matrix_sum(ms: &[Matrix]) -> Option<Matrix> {
    let (r, c) = (ms[0].len(), ms[0][0].len());
    if ms.iter().any(|m| m.len() != r || m[0].len() != c) {
        return None;
    }
    Some(
        (0..r)
            .map(|i| {
                (0..c)
                    .map(|j| Expr::Add(ms.iter().map(|m| m[i][j].clone()).collect()))
                    .collect()
            })
            .collect(),
    )
}

/// The product of the factors `v`: the matrices multiplied in order, then
/// every entry multiplied by the scalar factors (numbers, negations,
/// quotients, symbols). `None` for any other factor, for mismatched
/// shapes, or without a matrix.
fn matrix_product(v: &[Expr]) -> Option<Matrix> {
    // products build symbolic trees: keep them small
    if v.iter().filter(|f| contains_matrix(f)).count() > 3 {
        return None;
    }
    let mut acc: Option<Matrix> = None;
    let mut scalars = Vec::new();
    for f in v {
        if let Some(m) = as_matrix(f) {
            acc = Some(match acc {
                None => m,
                Some(a) => matrix_mul(&a, &m)?,
            });
        } else if matches!(
            f,
            Expr::Num(_) | Expr::Neg(_) | Expr::Div(..) | Expr::Sym(_)
        ) {
            scalars.push(f.clone());
        } else {
            return None;
        }
    }
    let m = acc?;
    if scalars.is_empty() {
        return Some(m);
    }
    Some(
        m.into_iter()
            .map(|row| {
                row.into_iter()
                    .map(|x| {
                        let mut f = scalars.clone();
                        f.push(x);
                        Expr::Mul(f)
                    })
                    .collect()
            })
            .collect(),
    )
}

/// The symbolic matrix product `a · m` (`None` if the shapes do not fit).
fn matrix_mul(a: &Matrix, m: &Matrix) -> Option<Matrix> {
    let (n, k, p) = (a.len(), a[0].len(), m[0].len());
    if m.len() != k {
        return None;
    }
    Some(
        (0..n)
            .map(|i| {
                (0..p)
                    .map(|j| {
                        Expr::Add(
                            (0..k)
                                .map(|t| Expr::Mul(vec![a[i][t].clone(), m[t][j].clone()]))
                                .collect(),
                        )
                    })
                    .collect()
            })
            .collect(),
    )
}

fn contains_matrix(e: &Expr) -> bool {
    match e {
        Expr::Matrix(_) => true,
        Expr::Add(v) | Expr::Mul(v) => v.iter().any(contains_matrix),
        _ => false,
    }
}

fn is_scalar(e: &Expr) -> bool {
    match e {
        Expr::Num(_) | Expr::Sym(_) | Expr::Const(_) => true,
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().all(is_scalar),
        Expr::Neg(a) | Expr::Percent(a) => is_scalar(a),
        Expr::Div(a, b) | Expr::Pow(a, b) => is_scalar(a) && is_scalar(b),
        _ => false,
    }
}

fn has_percent(e: &Expr) -> bool {
    match e {
        Expr::Percent(_) => true,
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().any(has_percent),
        Expr::Neg(a) => has_percent(a),
        Expr::Div(a, b) | Expr::Pow(a, b) => has_percent(a) || has_percent(b),
        _ => false,
    }
}

/// Decimals written in a bare decimal literal (`-1.25`, `12.5%`).
fn literal_decimals(e: &Expr) -> Option<u32> {
    match e {
        Expr::Num(n) => n.decimals,
        Expr::Neg(a) | Expr::Percent(a) => literal_decimals(a),
        _ => None,
    }
}

/// Significant digits of a decimal literal with value `x` and `d` written
/// decimals: `d + floor(log10|x|) + 1`.
fn significant_digits(x: &BigRational, d: u32) -> Option<u32> {
    let f = num_traits::ToPrimitive::to_f64(x)?.abs();
    if f == 0.0 || !f.is_finite() {
        return None;
    }
    let int_digits = f.log10().floor() as i64 + 1;
    u32::try_from(i64::from(d) + int_digits).ok()
}

/// A decimal literal with `s` significant digits, `s` at least this many,
/// is read as a printed float whose last digit may be off (rounded,
/// truncated, or computed from a truncated constant: `0.78539815` for π/4):
/// values within the relative tolerance `10^(1-s)` match. Shorter decimals
/// (`0.34`) must be correct roundings.
pub(crate) const TRUNCATION_MIN_DIGITS: u32 = 6;

fn close(a: f64, b: f64, rel: f64) -> bool {
    if a == b {
        return true;
    }
    if !a.is_finite() || !b.is_finite() {
        return false;
    }
    let d = (a - b).abs();
    d <= rel * a.abs().max(b.abs()) || d < 1e-13
}

impl<'a> Cmp<'a> {
    fn eq(&self, g: &Expr, p: &Expr, depth: usize) -> R {
        self.budget.tick(1)?;
        if depth > 24 {
            return Ok(None);
        }
        if g == p {
            return Ok(Some(Reason::Structural));
        }
        let (glen, plen) = (rel_len(g), rel_len(p));
        let g = &cut_approx(g);
        let p = &cut_approx(p);
        if let Some(r) = self.relation_eq(g, p, (glen, plen), depth) {
            return r;
        }
        if contains_matrix(g) || contains_matrix(p) {
            return match (as_matrix(g), as_matrix(p)) {
                (Some(a), Some(b)) => self.matrix_eq(&a, &b, depth),
                (Some(a), None) => self.matrix_vec_eq(&a, p, depth),
                (None, Some(b)) => self.matrix_vec_eq(&b, g, depth),
                _ => Ok(None),
            };
        }
        // ± at the top level: a two-element set
        if contains_pm(g) || contains_pm(p) {
            let items = |e: &Expr| match e {
                Expr::Set(v) | Expr::List(v) => expand_items(v),
                e => expand_items(std::slice::from_ref(e)),
            };
            let (gs, ps) = (items(g), items(p));
            return self.set_eq(&gs, &ps, depth);
        }
        if let Some(r) = self.collection_eq(g, p, depth) {
            return r;
        }
        if let Some(r) = self.singleton_eq(g, p, depth) {
            return r;
        }
        if is_scalar(g) && is_scalar(p) {
            return self.scalar_eq(g, p);
        }
        Ok(None)
    }

    /// The comparison when either side is a relation (`None` when neither
    /// is): two relations; or a relation that assigns a value (`x = 3`) or
    /// states a set (`-2 <= x <= 7`) against a value or a set. `lens` are
    /// the sides' relation lengths before `\approx` tails were cut.
    fn relation_eq(
        &self,
        g: &Expr,
        p: &Expr,
        (glen, plen): (usize, usize),
        depth: usize,
    ) -> Option<R> {
        Some(match (g, p) {
            (Expr::Rel(gi, go), Expr::Rel(pi, po)) => self.relations_eq(gi, go, pi, po, depth),
            (Expr::Rel(gi, go), _) => {
                if let Some(v) = assigned_value(gi, go, true, glen) {
                    return Some(self.eq(&v, p, depth + 1));
                }
                if is_set_like(p) {
                    if let Some(s) = relation_to_set(gi, go) {
                        return Some(self.eq(&s, p, depth + 1));
                    }
                }
                Ok(None)
            }
            (_, Expr::Rel(pi, po)) => {
                if let Some(v) = assigned_value(pi, po, false, plen) {
                    return Some(self.eq(g, &v, depth + 1));
                }
                // a predicted relation against a gold set only when allowed
                // (a model could echo the question's inequality)
                if self.g.allow_set_relation_comp && is_set_like(g) {
                    if let Some(s) = relation_to_set(pi, po) {
                        return Some(self.eq(g, &s, depth + 1));
                    }
                }
                Ok(None)
            }
            _ => return None,
        })
    }

    /// Two relations: an inequality against a membership `x ∈ S` compares
    /// the inequality's set with `S` (gold membership against a predicted
    /// inequality only when allowed); otherwise [`Self::rel_eq`].
    fn relations_eq(
        &self,
        gi: &[Expr],
        go: &[RelOp],
        pi: &[Expr],
        po: &[RelOp],
        depth: usize,
    ) -> R {
        let g_in = go.len() == 1 && go[0] == RelOp::In;
        let p_in = po.len() == 1 && po[0] == RelOp::In;
        if p_in && !g_in {
            if let Some(s) = relation_to_set(gi, go) {
                return self.eq(&s, &pi[1], depth + 1);
            }
        }
        if g_in && !p_in {
            if self.g.allow_set_relation_comp {
                if let Some(s) = relation_to_set(pi, po) {
                    return self.eq(&gi[1], &s, depth + 1);
                }
            }
            return Ok(None);
        }
        self.rel_eq(gi, go, pi, po, depth)
    }

    /// The comparison of two collections (text, tuples, ratios, sets,
    /// lists, intervals, unions) by their elements; `None` when the pair
    /// is not one of these.
    fn collection_eq(&self, g: &Expr, p: &Expr, depth: usize) -> Option<R> {
        Some(match (g, p) {
            (Expr::Text(a), Expr::Text(b)) => Ok((a == b).then_some(Reason::String)),
            (Expr::Tuple(a), Expr::Tuple(b)) | (Expr::Ratio(a), Expr::Ratio(b)) => {
                self.seq_eq(a, b, depth)
            }
            (Expr::Tuple(a), Expr::Set(b) | Expr::List(b))
            | (Expr::Set(a) | Expr::List(a), Expr::Tuple(b)) => {
                if a.len() == 1 || b.len() == 1 {
                    self.set_eq(a, b, depth)
                } else {
                    self.seq_eq(a, b, depth)
                }
            }
            (Expr::Set(a) | Expr::List(a), Expr::Set(b) | Expr::List(b)) => {
                self.set_eq(&expand_items(a), &expand_items(b), depth)
            }
            (Expr::Interval(a1, b1, l1, r1), Expr::Interval(a2, b2, l2, r2)) => {
                if l1 != l2 || r1 != r2 {
                    return Some(Ok(None));
                }
                self.seq_eq(
                    &[(**a1).clone(), (**b1).clone()],
                    &[(**a2).clone(), (**b2).clone()],
                    depth,
                )
            }
            (Expr::Interval(a1, b1, false, false), Expr::Tuple(t))
            | (Expr::Tuple(t), Expr::Interval(a1, b1, false, false))
                if t.len() == 2 =>
            {
                self.seq_eq(&[(**a1).clone(), (**b1).clone()], t, depth)
            }
            (Expr::Union(a), Expr::Union(b)) => self.set_eq(a, b, depth),
            (Expr::Union(a), other) | (other, Expr::Union(a)) if a.len() == 1 => {
                self.eq(&a[0], other, depth + 1)
            }
            _ => return None,
        })
    }

    /// A one-element set, list or tuple against a scalar compares the
    /// element; `None` for any other pair.
    fn singleton_eq(&self, g: &Expr, p: &Expr, depth: usize) -> Option<R> {
        match (g, p) {
            (Expr::Set(a) | Expr::List(a) | Expr::Tuple(a), other)
                if a.len() == 1 && is_scalar(other) =>
            {
                Some(self.eq(&a[0], other, depth + 1))
            }
            (other, Expr::Set(a) | Expr::List(a) | Expr::Tuple(a))
                if a.len() == 1 && is_scalar(other) =>
            {
                Some(self.eq(other, &a[0], depth + 1))
            }
            _ => None,
        }
    }

    fn seq_eq(&self, a: &[Expr], b: &[Expr], depth: usize) -> R {
        if a.len() != b.len() || a.len() > MAX_ELEMENTS {
            return Ok(None);
        }
        let mut reason = Reason::Structural;
        for (x, y) in a.iter().zip(b) {
            match self.eq(x, y, depth + 1)? {
                Some(r) => reason = weaker(reason, r),
                None => return Ok(None),
            }
        }
        Ok(Some(reason))
    }

    /// Set equality: every element of each side has an equal element on the other.
    fn set_eq(&self, a: &[Expr], b: &[Expr], depth: usize) -> R {
        if a.len() > MAX_ELEMENTS || b.len() > MAX_ELEMENTS || a.is_empty() != b.is_empty() {
            return Ok(None);
        }
        let mut reason = Reason::Structural;
        let mut b_hit = vec![false; b.len()];
        // constant scalars are evaluated once, not once per pair
        let va = self.const_vals(a)?;
        let vb = self.const_vals(b)?;
        for (i, x) in a.iter().enumerate() {
            let mut found = false;
            for (j, y) in b.iter().enumerate() {
                let r = match (&va[i], &vb[j]) {
                    (Some(u), Some(v)) => {
                        // comparing two exact values reads their limbs
                        let limbs =
                            |c: &ConstVal| c.exact.as_ref().map_or(0, crate::eval::bits) / 64;
                        self.budget.tick(1 + limbs(u).min(limbs(v)))?;
                        self.cmp_const(u, v)
                    }
                    _ => self.eq(x, y, depth + 1)?,
                };
                if let Some(r) = r {
                    found = true;
                    b_hit[j] = true;
                    reason = weaker(reason, r);
                }
            }
            if !found {
                return Ok(None);
            }
        }
        for (j, y) in b.iter().enumerate() {
            if b_hit[j] {
                continue;
            }
            let mut found = false;
            for (i, x) in a.iter().enumerate() {
                let r = match (&va[i], &vb[j]) {
                    (Some(u), Some(v)) => self.cmp_const(u, v),
                    _ => self.eq(x, y, depth + 1)?,
                };
                if r.is_some() {
                    found = true;
                    break;
                }
            }
            if !found {
                return Ok(None);
            }
        }
        Ok(Some(reason))
    }

    /// Values of the constant scalar elements (None for everything else).
    fn const_vals(&self, v: &[Expr]) -> Result<Vec<Option<ConstVal>>, Exhausted> {
        let mut out = Vec::with_capacity(v.len());
        for e in v {
            let simple = is_scalar(e)
                && !contains_pm(e)
                && (self.g.percent != PercentPolicy::Either || !has_percent(e))
                && !has_symbols(e);
            out.push(if simple {
                Some(self.const_val(e, self.pct)?)
            } else {
                None
            });
        }
        Ok(out)
    }

    fn matrix_eq(&self, a: &[Vec<Expr>], b: &[Vec<Expr>], depth: usize) -> R {
        if a.len() != b.len() || a.iter().zip(b).any(|(x, y)| x.len() != y.len()) {
            return Ok(None);
        }
        let fa: Vec<Expr> = a.iter().flatten().cloned().collect();
        let fb: Vec<Expr> = b.iter().flatten().cloned().collect();
        self.seq_eq(&fa, &fb, depth)
    }

    /// A row/column matrix against a tuple.
    fn matrix_vec_eq(&self, m: &[Vec<Expr>], other: &Expr, depth: usize) -> R {
        let v = match other {
            Expr::Tuple(v) => v,
            _ => return Ok(None),
        };
        if m.len() == 1 || m.iter().all(|r| r.len() == 1) {
            let flat: Vec<Expr> = m.iter().flatten().cloned().collect();
            return self.seq_eq(&flat, v, depth);
        }
        Ok(None)
    }

    fn rel_eq(&self, gi: &[Expr], go: &[RelOp], pi: &[Expr], po: &[RelOp], depth: usize) -> R {
        // normalize direction: a > b > c  ->  c < b < a
        let norm = |items: &[Expr], ops: &[RelOp]| -> (Vec<Expr>, Vec<RelOp>) {
            if matches!(ops.first(), Some(RelOp::Gt | RelOp::Ge)) {
                let items: Vec<Expr> = items.iter().rev().cloned().collect();
                let ops: Vec<RelOp> = ops
                    .iter()
                    .rev()
                    .map(|o| match o {
                        RelOp::Gt => RelOp::Lt,
                        RelOp::Ge => RelOp::Le,
                        RelOp::Lt => RelOp::Gt,
                        RelOp::Le => RelOp::Ge,
                        o => *o,
                    })
                    .collect();
                (items, ops)
            } else {
                (items.to_vec(), ops.to_vec())
            }
        };
        let (gi, go) = norm(gi, go);
        let (pi, po) = norm(pi, po);
        if go.len() == 1 && po.len() == 1 {
            let (a, b) = (go[0], po[0]);
            // assignments with the same left-hand side: compare values
            if (a == RelOp::Eq || a == RelOp::In) && a == b && gi[0] == pi[0] {
                return self.eq(&gi[1], &pi[1], depth + 1);
            }
            if a == b && gi[0] == pi[0] && gi[1] == pi[1] {
                return Ok(Some(Reason::Structural));
            }
            // canonical difference form: d OP 0 with OP in {=, !=, <, <=}
            let diff = |items: &[Expr], op: RelOp| -> Option<(Expr, RelOp)> {
                let (l, r) = (items[0].clone(), items[1].clone());
                if !is_scalar(&l) || !is_scalar(&r) {
                    return None;
                }
                let sub = |x: Expr, y: Expr| Expr::Add(vec![x, Expr::Neg(Box::new(y))]);
                Some(match op {
                    RelOp::Eq | RelOp::Ne | RelOp::Lt | RelOp::Le => (sub(l, r), op),
                    RelOp::Gt => (sub(r, l), RelOp::Lt),
                    RelOp::Ge => (sub(r, l), RelOp::Le),
                    _ => return None,
                })
            };
            if let (Some((d1, o1)), Some((d2, o2))) = (diff(&gi, a), diff(&pi, b)) {
                if o1 != o2 {
                    return Ok(None);
                }
                let positive_only = matches!(o1, RelOp::Lt | RelOp::Le);
                return self.proportional(&d1, &d2, positive_only);
            }
            return Ok(None);
        }
        if go != po || gi.len() != pi.len() {
            return Ok(None);
        }
        self.seq_eq(&gi, &pi, depth)
    }

    /// d1 = c·d2 for a constant c (c > 0 if `positive_only`).
    fn proportional(&self, d1: &Expr, d2: &Expr, positive_only: bool) -> R {
        let mut syms = BTreeSet::new();
        free_symbols(d1, &mut syms);
        free_symbols(d2, &mut syms);
        if syms.is_empty() || syms.len() > 16 {
            return Ok(None);
        }
        let mut pts = Points::new(0x5eed_0001);
        let mut ratio: Option<f64> = None;
        let mut valid = 0;
        for _ in 0..8 {
            let vars: HashMap<String, f64> =
                syms.iter().map(|s| (s.clone(), pts.next_f64())).collect();
            let ctx = Ctx {
                vars: &vars,
                pct: self.pct,
                budget: self.budget,
            };
            let v1 = eval_f64(d1, &ctx)?;
            let v2 = eval_f64(d2, &ctx)?;
            if !v1.is_finite() || !v2.is_finite() {
                continue;
            }
            let z1 = v1.abs() < 1e-12;
            let z2 = v2.abs() < 1e-12;
            if z1 && z2 {
                continue;
            }
            if z1 != z2 {
                return Ok(None);
            }
            let r = v1 / v2;
            match ratio {
                None => ratio = Some(r),
                Some(r0) => {
                    if !close(r, r0, 1e-7) {
                        return Ok(None);
                    }
                }
            }
            valid += 1;
        }
        match ratio {
            Some(r) if valid >= 3 && (!positive_only || r > 0.0) => Ok(Some(Reason::Identity)),
            _ => Ok(None),
        }
    }

    fn scalar_eq(&self, g: &Expr, p: &Expr) -> R {
        let r = self.scalar_eq_pct(g, p, self.pct)?;
        if r.is_some() || self.g.percent != PercentPolicy::Either {
            return Ok(r);
        }
        if has_percent(g) || has_percent(p) {
            return self.scalar_eq_pct(g, p, PctEval::Fraction);
        }
        Ok(None)
    }

    /// Value of a constant scalar expression (computed once per element).
    fn const_val(&self, e: &Expr, pct: PctEval) -> Result<ConstVal, Exhausted> {
        let empty = HashMap::new();
        let ctx = Ctx {
            vars: &empty,
            pct,
            budget: self.budget,
        };
        let exact = eval_exact(e, &ctx)?;
        if let Some(x) = &exact {
            // later conversions and roundings are linear or quadratic in its size
            self.budget.big(crate::eval::bits(x), 0)?;
        }
        let surd = match &exact {
            Some(_) => None,
            None => eval_surd(e, &ctx)?,
        };
        // the float of an exact value is computed lazily (big values are slow)
        let float = match &exact {
            Some(_) => f64::NAN,
            None => eval_f64(e, &ctx)?,
        };
        let dec = literal_decimals(e);
        Ok(ConstVal {
            sig: dec.and_then(|d| significant_digits(exact.as_ref()?, d)),
            exact,
            surd,
            float,
            dec,
            is_inf: matches!(strip_sign(e), Expr::Const(Const::Inf)),
        })
    }

    /// Compare two constant values (exact, rounding, then float tolerance).
    fn cmp_const(&self, a: &ConstVal, b: &ConstVal) -> Option<Reason> {
        let tol = self.tolerances(a, b);
        if let (Some(x), Some(y)) = (&a.exact, &b.exact) {
            return self.cmp_rationals(x, y, &tol);
        }
        // exact radicals: canonical forms decide unless a decimal literal
        // asks for rounding
        if let (Some(x), Some(y)) = (as_surd(a), as_surd(b)) {
            if x == y {
                return Some(Reason::ExactRadical);
            }
            if !tol.literal {
                return None;
            }
        }
        self.cmp_floats(a, b, &tol)
    }

    /// What a written decimal on either side allows besides exact equality.
    fn tolerances(&self, a: &ConstVal, b: &ConstVal) -> Tolerances {
        let dec = match (a.dec, b.dec) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        };
        // a long literal on either side: its printed precision (fewest
        // significant digits) sets a relative tolerance
        let printed_tol = [a, b]
            .iter()
            .filter_map(|c| c.sig)
            .filter(|s| *s >= TRUNCATION_MIN_DIGITS)
            .min()
            .filter(|_| self.g.rounding)
            .map(|s| 10f64.powi(1 - s.min(300) as i32));
        Tolerances {
            literal: dec.is_some(),
            rounding_decimals: dec.filter(|d| self.g.rounding && *d >= 2),
            printed_tol,
        }
    }

    /// Two rational values: equal, a correct rounding, within the printed
    /// precision, or (with a decimal literal, both nonzero) within the
    /// relative tolerance.
    fn cmp_rationals(&self, x: &BigRational, y: &BigRational, tol: &Tolerances) -> Option<Reason> {
        if x == y {
            return Some(Reason::ExactRational);
        }
        if let Some(d) = tol.rounding_decimals {
            // |a/b - c/e| <= 1/(2·10^d)  <=>  2·10^d·|a·e - c·b| <= b·e,
            // in integers: a rational difference would take a gcd,
            // quadratic in the bits (sizes were charged in `const_val`)
            if d <= 60 {
                let scale = BigInt::from(2) * num_traits::pow(BigInt::from(10), d as usize);
                let diff = x.numer() * y.denom() - y.numer() * x.denom();
                if scale * diff.abs() <= x.denom() * y.denom() {
                    return Some(Reason::Rounding);
                }
            }
        }
        if let Some(t) = tol.printed_tol {
            let fx = num_traits::ToPrimitive::to_f64(x).unwrap_or(f64::NAN);
            let fy = num_traits::ToPrimitive::to_f64(y).unwrap_or(f64::NAN);
            if close(fx, fy, t) {
                return Some(Reason::Rounding);
            }
        }
        if tol.literal && !x.is_zero() && !y.is_zero() {
            let fx = num_traits::ToPrimitive::to_f64(x).unwrap_or(f64::NAN);
            let fy = num_traits::ToPrimitive::to_f64(y).unwrap_or(f64::NAN);
            return close(fx, fy, self.g.rel_tol).then_some(Reason::NumericTolerance);
        }
        None
    }

    /// Two values compared as floats: ∞ only equals ∞; otherwise a correct
    /// rounding, the printed precision, or the relative tolerance.
    fn cmp_floats(&self, a: &ConstVal, b: &ConstVal, tol: &Tolerances) -> Option<Reason> {
        let to_f = |c: &ConstVal| match &c.exact {
            Some(x) => num_traits::ToPrimitive::to_f64(x).unwrap_or(f64::NAN),
            None => c.float,
        };
        let (fa, fb) = (to_f(a), to_f(b));
        if fa.is_nan() || fb.is_nan() {
            return None;
        }
        if fa.is_infinite() || fb.is_infinite() {
            // only ∞ == ∞ is accepted (huge finite values overflow too)
            return (a.is_inf && b.is_inf && fa == fb).then_some(Reason::Structural);
        }
        if let Some(d) = tol.rounding_decimals {
            let half = 0.5 * 10f64.powi(-(d.min(300) as i32));
            if (fa - fb).abs() <= half * (1.0 + 1e-9) {
                return Some(Reason::Rounding);
            }
        }
        if tol.printed_tol.is_some_and(|t| close(fa, fb, t)) {
            return Some(Reason::Rounding);
        }
        close(fa, fb, self.g.rel_tol).then_some(Reason::NumericTolerance)
    }

    fn scalar_eq_pct(&self, g: &Expr, p: &Expr, pct: PctEval) -> R {
        let mut syms = BTreeSet::new();
        free_symbols(g, &mut syms);
        free_symbols(p, &mut syms);
        if syms.is_empty() {
            let a = self.const_val(g, pct)?;
            let b = self.const_val(p, pct)?;
            return Ok(self.cmp_const(&a, &b));
        }
        // identity testing at pseudo-random points; a variable's value at
        // point t depends only on its name and t, so clustering can bucket
        // expressions by their value at point 0 (`signature`)
        let mut valid = 0;
        for t in 0..8 {
            let vars: HashMap<String, f64> = syms
                .iter()
                .map(|s| (s.clone(), point_value(s, t)))
                .collect();
            let ctx = Ctx {
                vars: &vars,
                pct,
                budget: self.budget,
            };
            let a = eval_f64(g, &ctx)?;
            let b = eval_f64(p, &ctx)?;
            // points outside either side's real domain are skipped
            if a.is_nan() || b.is_nan() {
                continue;
            }
            if !close(a, b, 1e-8) {
                return Ok(None);
            }
            valid += 1;
        }
        Ok((valid >= 3).then_some(Reason::Identity))
    }
}

/// What a written decimal allows in [`Cmp::cmp_const`] besides equality.
struct Tolerances {
    /// Either side is a decimal literal.
    literal: bool,
    /// Fewest decimals written on either side, when rounding is accepted
    /// and at least 2: a correct rounding to that many decimals matches.
    rounding_decimals: Option<u32>,
    /// Relative tolerance `10^(1-s)` of a literal with `s ≥`
    /// [`TRUNCATION_MIN_DIGITS`] significant digits, when rounding is
    /// accepted.
    printed_tol: Option<f64>,
}

/// A rational or radical constant in canonical radical form (`None` for
/// anything else).
fn as_surd(c: &ConstVal) -> Option<Surd> {
    match (&c.exact, &c.surd) {
        (Some(q), _) => {
            let mut s = Surd::new();
            if !q.is_zero() {
                s.insert(1, q.clone());
            }
            Some(s)
        }
        (None, Some(s)) => Some(s.clone()),
        _ => None,
    }
}

/// Cached value of a constant scalar.
struct ConstVal {
    exact: Option<BigRational>,
    /// Canonical radical form when the value is irrational but in Q(√·).
    surd: Option<Surd>,
    float: f64,
    dec: Option<u32>,
    /// Significant digits of a decimal literal (`0.78539815` has 8).
    sig: Option<u32>,
    is_inf: bool,
}

fn strip_sign(e: &Expr) -> &Expr {
    match e {
        Expr::Neg(a) => strip_sign(a),
        e => e,
    }
}

/// The weaker of two reasons (the one reported for a compound comparison).
fn weaker(a: Reason, b: Reason) -> Reason {
    fn rank(r: Reason) -> u8 {
        match r {
            Reason::String => 0,
            Reason::Structural => 1,
            Reason::ExactRational => 2,
            Reason::ExactRadical => 2,
            Reason::Rounding => 4,
            Reason::NumericTolerance => 3,
            Reason::Identity => 5,
            _ => 6,
        }
    }
    if rank(a) >= rank(b) {
        a
    } else {
        b
    }
}

impl Grader {
    /// Compare a gold answer with a candidate answer (both already
    /// extracted, e.g. `"\\frac{1}{2}"` and `"0.5"`).
    ///
    /// The comparison is gold-driven where it matters: a gold assignment
    /// `k = 3` accepts `3`, a gold inequality `1 < x < 2` accepts `(1, 2)`.
    ///
    /// ```
    /// use rollstat_grade::{Grader, Reason};
    /// let v = Grader::default().is_equivalent("\\frac{1}{2}", "0.5");
    /// assert!(v.equal);
    /// assert_eq!(v.reason, Reason::ExactRational);
    /// ```
    pub fn is_equivalent(&self, gold: &str, answer: &str) -> Equivalence {
        let g = prepare(gold);
        let p = prepare(answer);
        self.compare_prepared(&g, &p)
    }

    pub(crate) fn compare_prepared(&self, g: &Prepared, p: &Prepared) -> Equivalence {
        self.compare_within(g, p, &Budget::default())
    }

    /// [`Self::compare_prepared`] charging a given budget (shared by the two
    /// directions of one clustering comparison).
    pub(crate) fn compare_within(
        &self,
        g: &Prepared,
        p: &Prepared,
        budget: &Budget,
    ) -> Equivalence {
        if g.too_long || p.too_long {
            return Equivalence::no(Reason::LimitExceeded);
        }
        if g.canon.is_empty() || p.canon.is_empty() {
            return Equivalence::no(Reason::Unparseable);
        }
        if g.canon == p.canon {
            return Equivalence::yes(Reason::String);
        }
        if g.date.is_some() || p.date.is_some() {
            // dates compare as dates (same form, same parts), never as
            // divisions or subtractions
            return if g.date == p.date {
                Equivalence::yes(Reason::Structural)
            } else {
                Equivalence::no(Reason::Different)
            };
        }
        let (ge, pe) = match (&g.expr, &p.expr) {
            (Ok(a), Ok(b)) => (a, b),
            (Err(ParseError::Limit), _) | (_, Err(ParseError::Limit)) => {
                return Equivalence::no(Reason::LimitExceeded)
            }
            _ => return Equivalence::no(Reason::Unparseable),
        };
        if budget.exhausted() {
            return Equivalence::no(Reason::LimitExceeded);
        }
        let cmp = self.cmp(budget);
        match cmp.eq(ge, pe, 0) {
            Ok(Some(r)) => Equivalence::yes(r),
            Ok(None) => Equivalence::no(Reason::Different),
            Err(Exhausted) => Equivalence::no(Reason::LimitExceeded),
        }
    }
}

/// Where a clustering representative can be equivalent to another one
/// (see [`Grader::signature`]).
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Sig {
    /// Only to answers with the same normalized string (unparseable, too
    /// long, a date).
    Never,
    /// Only to answers of the same `shape` (the trees of the parts that
    /// compare only structurally: texts, products with words) whose least
    /// and greatest values are each within [`Grader::sig_window`] of these
    /// (`±∞` only to the same infinity; `lo = +∞, hi = -∞` when no part has
    /// a value).
    Value { shape: String, lo: f64, hi: f64 },
    /// To anything: compared with every other representative.
    Any,
}

/// A part's signature: a value range, or a tree that only equals itself.
enum Part {
    Range(f64, f64),
    Structure(String),
}

impl Grader {
    fn cmp<'a>(&'a self, budget: &'a Budget) -> Cmp<'a> {
        Cmp {
            g: self,
            budget,
            pct: match self.percent {
                PercentPolicy::Fraction => PctEval::Fraction,
                _ => PctEval::Strip,
            },
        }
    }

    /// A necessary condition for equivalence, used to compare only the
    /// clustering representatives that can match. Mirrors [`Cmp::eq`]: a
    /// scalar's signature is its value (at point 0 of the identity test when
    /// it has variables), a tuple's, set's, list's or interval's are the
    /// least and greatest values of its elements (equal collections have
    /// matching elements, so their minima, and their maxima, are within the
    /// window); relations, `±`, matrices and
    /// anything not evaluable are `Any`.
    pub(crate) fn signature(&self, p: &Prepared, budget: &Budget) -> Result<Sig, Exhausted> {
        if p.too_long || p.canon.is_empty() || p.date.is_some() {
            return Ok(Sig::Never);
        }
        let e = match &p.expr {
            Ok(e) => e,
            Err(_) => return Ok(Sig::Never),
        };
        let cmp = self.cmp(budget);
        let items: Vec<&Expr> = match e {
            Expr::Tuple(v) | Expr::Set(v) | Expr::List(v) | Expr::Union(v) | Expr::Ratio(v) => {
                v.iter().collect()
            }
            _ => vec![e],
        };
        if items.is_empty() || items.len() > MAX_ELEMENTS {
            return Ok(Sig::Any);
        }
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        let mut shapes: Vec<String> = Vec::new();
        for x in items {
            match cmp.part(x, 0)? {
                Some(Part::Range(a, b)) => {
                    lo = lo.min(a);
                    hi = hi.max(b);
                }
                Some(Part::Structure(s)) => shapes.push(s),
                None => return Ok(Sig::Any),
            }
        }
        shapes.sort_unstable();
        shapes.dedup();
        Ok(Sig::Value {
            shape: shapes.join("\u{1f}"),
            lo,
            hi,
        })
    }

    /// Whether two signature values are close enough to be compared:
    /// the rounding rule's half unit (at most 0.005), the relative tolerance
    /// (at least the identity test's 1e-8), doubled for the slack of taking
    /// minima, and a tiny absolute floor.
    pub(crate) fn sig_window(&self, a: f64, b: f64) -> bool {
        if a == b {
            return true;
        }
        let abs = if self.rounding { 0.0051 } else { 0.0 };
        let rel = 2.0 * self.rel_tol.max(1e-8);
        (a - b).abs() <= abs + rel * a.abs().max(b.abs()) + 1e-12
    }
}

impl Cmp<'_> {
    /// One part of a top-level answer or collection (see
    /// [`Grader::signature`]); `None` for `Any`.
    fn part(&self, e: &Expr, depth: usize) -> Result<Option<Part>, Exhausted> {
        if let Some((lo, hi)) = self.sig_value(e, depth)? {
            return Ok(Some(Part::Range(lo, hi)));
        }
        // `Cmp::eq` equates these only with an identical tree
        let structural = match e {
            Expr::Text(_) => true,
            Expr::Mul(v) | Expr::Add(v) | Expr::Func(_, v) => {
                !is_scalar(e) && v.iter().all(|x| !is_set_like(x) && !contains_rel(x))
            }
            _ => false,
        };
        Ok((structural && !contains_pm(e) && !contains_matrix(e))
            .then(|| Part::Structure(format!("{e:?}"))))
    }

    /// See [`Grader::signature`]; `None` when not a valued scalar or a
    /// collection of them.
    fn sig_value(&self, e: &Expr, depth: usize) -> Result<Option<(f64, f64)>, Exhausted> {
        self.budget.tick(1)?;
        if depth > 24 || contains_pm(e) || contains_matrix(e) {
            return Ok(None);
        }
        let items: Vec<&Expr> = match e {
            Expr::Tuple(v) | Expr::Set(v) | Expr::List(v) | Expr::Union(v) | Expr::Ratio(v) => {
                v.iter().collect()
            }
            Expr::Interval(a, b, _, _) => vec![&**a, &**b],
            e if is_scalar(e) => return Ok(self.scalar_sig(e)?.map(|v| (v, v))),
            _ => return Ok(None),
        };
        if items.is_empty() || items.len() > MAX_ELEMENTS {
            return Ok(None);
        }
        let (mut least, mut greatest) = (f64::INFINITY, f64::NEG_INFINITY);
        for x in items {
            match self.sig_value(x, depth + 1)? {
                Some((lo, hi)) => {
                    least = least.min(lo);
                    greatest = greatest.max(hi);
                }
                None => return Ok(None),
            }
        }
        Ok(Some((least, greatest)))
    }

    /// A scalar's value as [`Cmp::cmp_const`] or the identity test sees it.
    fn scalar_sig(&self, e: &Expr) -> Result<Option<f64>, Exhausted> {
        if self.g.percent == PercentPolicy::Either && has_percent(e) {
            return Ok(None);
        }
        let mut syms = BTreeSet::new();
        free_symbols(e, &mut syms);
        let v = if syms.is_empty() {
            let c = self.const_val(e, self.pct)?;
            match &c.exact {
                Some(x) => num_traits::ToPrimitive::to_f64(x).unwrap_or(f64::NAN),
                None => c.float,
            }
        } else {
            let vars: HashMap<String, f64> = syms
                .iter()
                .map(|s| (s.clone(), point_value(s, 0)))
                .collect();
            let ctx = Ctx {
                vars: &vars,
                pct: self.pct,
                budget: self.budget,
            };
            eval_f64(e, &ctx)?
        };
        Ok((!v.is_nan()).then_some(v))
    }
}
