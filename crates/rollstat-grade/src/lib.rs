//! # rollstat-grade
//!
//! Grading of LLM rollout answers for rollstat:
//!
//! - [`extract_answer`] pulls the final answer out of a response
//!   (`\boxed{}`, "final answer is", "Answer:", LaTeX spans, MCQ letters,
//!   last number, or a user regex), by the [`ExtractMode`].
//! - [`is_equivalent`] / [`Grader`] decide whether two math answers are the
//!   same: LaTeX and plain math are parsed into an expression tree and
//!   compared exactly with big rationals where possible, numerically
//!   otherwise, and by evaluation at pseudo-random points for expressions
//!   with variables (no CAS). Every call is bounded in input size, nesting
//!   depth, exponent size and work, so it never hangs or panics.
//! - [`canonical_key`] and [`cluster_answers`] group equivalent answers for
//!   majority voting (maj@k, self-consistency).
//! - [`grade`] combines extraction and comparison.
//!
//! ```
//! use rollstat_grade::{grade, ExtractMode};
//! let g = grade(Some("... so the answer is $\\boxed{\\dfrac{1}{2}}$."), None, "0.5", &ExtractMode::Math);
//! assert_eq!(g.answer.as_deref(), Some("\\dfrac{1}{2}"));
//! assert!(g.correct);
//! ```
//!
//! Design notes: the comparison is gold-driven like Math-Verify's (a gold
//! `k = 3` accepts `3`, a gold inequality accepts the matching interval, but
//! a gold interval does not accept an inequality unless
//! [`Grader::allow_set_relation_comp`]). Bare lists `1, 2` compare as sets.
//! See the crate README for the full policy list.

mod cluster;
mod equiv;
mod eval;
mod extract;
pub mod limits;
mod mcq;
mod parse;
mod policy;

pub use cluster::{canonical_key, cluster_answers, is_junk_answer};
pub use equiv::{Equivalence, Grader, PercentPolicy, Reason};
pub use extract::{extract_answer, ExtractMode, ExtractModeError};
pub use policy::{gold_answer, GivenAnswer, GradingPolicy, Match};

pub(crate) fn equiv_has_percent(e: &parse::Expr) -> bool {
    fn go(e: &parse::Expr) -> bool {
        use parse::Expr::*;
        match e {
            Percent(_) => true,
            Add(v) | Mul(v) | Func(_, v) => v.iter().any(go),
            Neg(a) => go(a),
            Div(a, b) | Pow(a, b) => go(a) || go(b),
            _ => false,
        }
    }
    go(e)
}

/// Compare a gold answer with a candidate answer using the default
/// [`Grader`] (relative tolerance `1e-9`, `50%` = `50`, rounding accepted
/// for decimals with at least 2 written digits, a decimal with `s >= 6`
/// significant digits matching to relative `10^(1-s)`).
///
/// ```
/// use rollstat_grade::{is_equivalent, Reason};
/// assert!(is_equivalent("\\frac{\\sqrt{8}}{2}", "\\sqrt2").equal);
/// assert!(is_equivalent("x = 3", "3").equal);
/// assert!(!is_equivalent("1/3", "0.3").equal);
/// assert!(is_equivalent("0.78539815", "\\pi/4").equal);
/// assert!(!is_equivalent("0", "10^{-100000}").equal);
/// assert_eq!(is_equivalent("1/3", "(((").reason, Reason::Unparseable);
/// ```
pub fn is_equivalent(gold: &str, answer: &str) -> Equivalence {
    Grader::default().is_equivalent(gold, answer)
}

/// Outcome of [`grade`].
///
/// ```
/// use rollstat_grade::{grade, ExtractMode, Graded};
/// let g = grade(Some("It is 12."), None, "12", &ExtractMode::Number);
/// assert_eq!(g, Graded { answer: Some("12".into()), correct: true, undecided: false });
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graded {
    /// The answer that was graded (given, or extracted); `None` if none.
    pub answer: Option<String>,
    /// Whether it matches the gold answer (false when undecided).
    pub correct: bool,
    /// The comparison hit a size or work limit ([`Reason::LimitExceeded`]):
    /// no verdict, rather than a wrong one.
    pub undecided: bool,
}

impl Graded {
    fn decided(answer: Option<String>, correct: bool) -> Graded {
        Graded {
            answer,
            correct,
            undecided: false,
        }
    }
}

/// Grade one rollout: use `answer` if given, else extract it from
/// `response` with `mode`, then compare with `gold`. In `Mcq` mode the
/// letters are compared (gold may be `C`, `(C)`, `C. text`); otherwise
/// [`is_equivalent`] decides. A junk answer (`[invalid]`, `None`, empty) is
/// treated as missing, and a GSM8K-style gold (`… #### 72`) is reduced to
/// the text after its last `####` ([`gold_answer`]), as in every other
/// entry point ([`GradingPolicy`]).
///
/// ```
/// use rollstat_grade::{grade, ExtractMode};
/// let g = grade(Some("I think the answer is (B)."), None, "B", &ExtractMode::Mcq);
/// assert!(g.correct);
/// let g = grade(None, Some("72"), "2 + 70 = 72\n#### 72", &ExtractMode::Math);
/// assert!(g.correct);
/// let g = grade(None, Some("[invalid]"), "B", &ExtractMode::Mcq);
/// assert_eq!(g.answer, None);
/// assert!(!g.correct);
/// // past the work cap: not decided, rather than wrong
/// let g = grade(None, Some("0"), "615!^3^32", &ExtractMode::Math);
/// assert!(g.undecided && !g.correct);
/// ```
pub fn grade(
    response: Option<&str>,
    answer: Option<&str>,
    gold: &str,
    mode: &ExtractMode,
) -> Graded {
    let gold = gold_answer(gold);
    let ans = match answer {
        Some(a) => Some(a.trim().to_string()),
        None => response.and_then(|r| extract_answer(r, mode)),
    }
    .filter(|a| !is_junk_answer(a));
    let verdict = match &ans {
        None => None,
        Some(a) => match mode {
            ExtractMode::Mcq => match (mcq::letter_of(gold), mcq::letter_of(a)) {
                (Some(x), Some(y)) => return Graded::decided(ans, x == y),
                _ => Some(is_equivalent(gold, a)),
            },
            _ => Some(is_equivalent(gold, a)),
        },
    };
    Graded {
        answer: ans,
        correct: verdict.is_some_and(|v| v.equal),
        undecided: verdict.is_some_and(|v| v.reason == Reason::LimitExceeded),
    }
}
