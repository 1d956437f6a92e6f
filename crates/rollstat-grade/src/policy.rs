//! The whole grading policy in one place: which answer a row has, whether it
//! matches its gold answer, and which answers vote together for maj@n.
//!
//! Every front end (the report, compare and grade commands, the library and
//! the Python package) grades through a [`GradingPolicy`], so a row is graded
//! the same way wherever it is read:
//!
//! - a given answer is used as is; without one, the answer is extracted from
//!   the response by the [`ExtractMode`]; an explicit "no answer" (`null`)
//!   stays unextracted and the response is not re-read;
//! - junk answers (`[invalid]`, `None`, empty, …; [`is_junk_answer`]) are
//!   unextracted: they count as wrong and never vote;
//! - a gold field that holds a GSM8K-style solution is reduced to the text
//!   after its last `####` ([`gold_answer`]);
//! - answers are compared with the gold answer, and clustered for voting, by
//!   math equivalence ([`Match::Equivalent`]) or as trimmed strings
//!   ([`Match::Exact`]).

use crate::{extract_answer, is_junk_answer, ExtractMode};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// How answers are compared with the gold answer and with each other.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Match {
    /// Math equivalence: `0.5`, `1/2` and `\frac{1}{2}` are one answer.
    #[default]
    Equivalent,
    /// Trimmed strings.
    Exact,
}

impl Match {
    /// The name used in options and reports: `equivalent` or `exact`.
    pub fn name(self) -> &'static str {
        match self {
            Match::Equivalent => "equivalent",
            Match::Exact => "exact",
        }
    }
}

impl fmt::Display for Match {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Match {
    type Err = String;
    /// ```
    /// use rollstat_grade::Match;
    /// assert_eq!("exact".parse::<Match>(), Ok(Match::Exact));
    /// assert!("fuzzy".parse::<Match>().is_err());
    /// ```
    fn from_str(s: &str) -> Result<Self, String> {
        match s.trim() {
            "equivalent" | "equiv" => Ok(Match::Equivalent),
            "exact" => Ok(Match::Exact),
            other => Err(format!(
                "unknown match '{other}'; expected equivalent or exact"
            )),
        }
    }
}

/// The gold answer inside a gold field: the text after the last `####`
/// (GSM8K-style solutions end in `#### 72`), trimmed.
///
/// ```
/// assert_eq!(rollstat_grade::gold_answer("2 + 70 = 72\n#### 72"), "72");
/// assert_eq!(rollstat_grade::gold_answer(" 7 "), "7");
/// ```
pub fn gold_answer(gold: &str) -> &str {
    match gold.rfind("####") {
        Some(i) => gold[i + 4..].trim(),
        None => gold.trim(),
    }
}

/// What a row says about its answer before grading.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GivenAnswer<'a> {
    /// The row carries this answer.
    Text(&'a str),
    /// The row says no answer was extracted (`answer: null`).
    Unextracted,
    /// The row has no answer field: extract one from the response.
    Absent,
}

/// Extraction, matching and clustering settings, applied the same way by
/// every entry point.
///
/// ```
/// use rollstat_grade::{GivenAnswer, GradingPolicy};
/// let p = GradingPolicy::default(); // extract math, match equivalent
/// let a = p.answer_of(GivenAnswer::Absent, Some("so $\\boxed{\\frac12}$")).unwrap();
/// assert!(p.matches("... hence\n#### 0.5", &a));
/// assert_eq!(p.cluster(&[Some("1/2"), Some("[invalid]"), Some("0.5")]), vec![Some(0), None, Some(0)]);
/// assert_eq!(p.describe(), "equivalence, extract=math");
/// ```
#[derive(Clone, Debug)]
pub struct GradingPolicy {
    /// How a final answer is taken from a response.
    pub extract: ExtractMode,
    /// How answers are compared.
    pub matching: Match,
    /// The extract mode as written (`math`, `regex:…`), for [`Self::describe`].
    extract_name: String,
}

impl Default for GradingPolicy {
    fn default() -> Self {
        GradingPolicy {
            extract: ExtractMode::Math,
            matching: Match::Equivalent,
            extract_name: "math".into(),
        }
    }
}

impl GradingPolicy {
    /// A policy from an extract mode as written (`math`, `mcq`, `number`,
    /// `regex:PATTERN`) and a match rule.
    ///
    /// ```
    /// use rollstat_grade::{GradingPolicy, Match};
    /// assert!(GradingPolicy::new("regex:(", Match::Exact).is_err());
    /// assert_eq!(GradingPolicy::new("mcq", Match::Exact).unwrap().describe(), "exact-string, extract=mcq");
    /// ```
    pub fn new(extract: &str, matching: Match) -> Result<GradingPolicy, crate::ExtractModeError> {
        Ok(GradingPolicy {
            extract: extract.trim().parse()?,
            matching,
            extract_name: extract.trim().to_string(),
        })
    }

    /// The extract mode as written.
    pub fn extract_name(&self) -> &str {
        &self.extract_name
    }

    /// The answer a row is graded on; `None` = unextracted (junk included).
    pub fn answer_of(&self, given: GivenAnswer<'_>, response: Option<&str>) -> Option<String> {
        match given {
            GivenAnswer::Text(a) => Some(a.to_string()),
            GivenAnswer::Unextracted => None,
            GivenAnswer::Absent => response.and_then(|r| extract_answer(r, &self.extract)),
        }
        .filter(|a| !is_junk_answer(a))
    }

    /// Whether an answer (already extracted, not junk) matches a gold field;
    /// an undecided comparison ([`Self::judge`]) counts as no match.
    pub fn matches(&self, gold: &str, answer: &str) -> bool {
        self.judge(gold, answer) == Some(true)
    }

    /// Whether an answer (already extracted, not junk) matches a gold field,
    /// or `None` when the comparison hit a size or work limit
    /// ([`Reason::LimitExceeded`](crate::Reason::LimitExceeded)): not
    /// decided, rather than a wrong verdict.
    ///
    /// ```
    /// use rollstat_grade::GradingPolicy;
    /// let p = GradingPolicy::default();
    /// assert_eq!(p.judge("#### 0.5", "1/2"), Some(true));
    /// assert_eq!(p.judge("3", "2"), Some(false));
    /// assert_eq!(p.judge("615!^3^32", "0"), None);
    /// ```
    pub fn judge(&self, gold: &str, answer: &str) -> Option<bool> {
        let gold = gold_answer(gold);
        match self.matching {
            Match::Exact => Some(gold == answer.trim()),
            Match::Equivalent => {
                let g = crate::grade(None, Some(answer), gold, &self.extract);
                (!g.undecided).then_some(g.correct)
            }
        }
    }

    /// Whether an answer matches any of several gold fields.
    pub fn matches_any(&self, golds: &[String], answer: &str) -> bool {
        golds.iter().any(|g| self.matches(g, answer))
    }

    /// Cluster ids for maj@n and self-consistency (`None`: does not vote),
    /// numbered from 0 in order of first appearance.
    pub fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        self.cluster_counted(answers).0
    }

    /// [`Self::cluster`] and the number of comparisons the per-pair work
    /// cap left undecided ([`Grader::cluster_answers_counted`](crate::Grader::cluster_answers_counted)).
    ///
    /// ```
    /// use rollstat_grade::GradingPolicy;
    /// let (ids, n) = GradingPolicy::default().cluster_counted(&[Some("x+1"), Some("1+x")]);
    /// assert_eq!((ids, n), (vec![Some(0), Some(0)], 0));
    /// ```
    pub fn cluster_counted(&self, answers: &[Option<&str>]) -> (Vec<Option<usize>>, u64) {
        match self.matching {
            Match::Equivalent => match integer_clusters(answers) {
                Some(ids) => (ids, 0),
                None => crate::Grader::default().cluster_answers_counted(answers),
            },
            Match::Exact => (exact_clusters(answers), 0),
        }
    }

    /// What reports record as the answer clustering:
    /// `equivalence, extract=math` or `exact-string, extract=…`.
    pub fn describe(&self) -> String {
        let base = match self.matching {
            Match::Equivalent => "equivalence",
            Match::Exact => "exact-string",
        };
        format!("{base}, extract={}", self.extract_name)
    }

    /// The grader's name as recorded beside graded rows.
    pub fn grader_name(&self) -> String {
        match self.matching {
            Match::Equivalent => {
                format!("rollstat-grade equivalence (extract {})", self.extract_name)
            }
            Match::Exact => format!("exact-string (extract {})", self.extract_name),
        }
    }
}

impl fmt::Display for GradingPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe())
    }
}

/// Trimmed-string clusters; junk and empty answers never vote.
fn exact_clusters(answers: &[Option<&str>]) -> Vec<Option<usize>> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    answers
        .iter()
        .map(|a| {
            let a = a
                .filter(|s| !is_junk_answer(s))
                .map(str::trim)
                .filter(|s| !s.is_empty())?;
            let next = ids.len();
            Some(*ids.entry(a).or_insert(next))
        })
        .collect()
}

/// When every present answer is a plain integer (`-12`, `007`, at most 15
/// digits), equivalence is equality of the integers: cluster on the value
/// and skip parsing. Returns `None` for any other answer set.
fn integer_clusters(answers: &[Option<&str>]) -> Option<Vec<Option<usize>>> {
    let mut seen: Vec<i64> = Vec::new();
    answers
        .iter()
        .map(|a| {
            let Some(a) = a else { return Some(None) };
            let t = a.trim();
            let digits = t.strip_prefix(['-', '+']).unwrap_or(t);
            if digits.is_empty() || digits.len() > 15 || !digits.bytes().all(|b| b.is_ascii_digit())
            {
                return None;
            }
            let v: i64 = t.parse().ok()?;
            let id = seen.iter().position(|&x| x == v).unwrap_or_else(|| {
                seen.push(v);
                seen.len() - 1
            });
            Some(Some(id))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The integer shortcut gives the verifier's clusters on integer answers.
    #[test]
    fn integer_shortcut_matches_the_verifier() {
        let cases: [&[Option<&str>]; 4] = [
            &[
                Some("7"),
                Some("007"),
                Some("+7"),
                Some("-7"),
                None,
                Some("12"),
            ],
            &[Some("0"), Some("-0"), Some(" 3 ")],
            &[Some("1"), Some("2"), Some("1")],
            &[None, None],
        ];
        for answers in cases {
            assert_eq!(
                integer_clusters(answers),
                Some(crate::cluster_answers(answers)),
                "{answers:?}"
            );
        }
        assert_eq!(integer_clusters(&[Some("1,000"), Some("1000")]), None);
        assert_eq!(integer_clusters(&[Some("1/2")]), None);
    }

    fn policy(extract: &str, matching: Match) -> GradingPolicy {
        GradingPolicy::new(extract, matching).unwrap()
    }

    #[test]
    fn answers_are_extracted_compared_and_junk_is_unextracted() {
        let g = GradingPolicy::default();
        let a = g.answer_of(GivenAnswer::Absent, Some("so $\\boxed{\\frac12}$"));
        assert_eq!(a.as_deref(), Some("\\frac12"));
        assert!(g.matches("0.5", "\\frac12"));
        assert!(g.matches("0.5", "1/2"));
        assert_eq!(g.answer_of(GivenAnswer::Text("[invalid]"), None), None);
        // answer: null is an extraction that found nothing; the response is not re-read
        assert_eq!(
            g.answer_of(GivenAnswer::Unextracted, Some("\\boxed{7}")),
            None
        );
        assert_eq!(g.answer_of(GivenAnswer::Absent, Some("no idea")), None);
        assert!(g.matches("... so 72\n#### 72", "72"));
        // dates are not divisions: 05/01/2021 and 10/02/2021 are both 5/2021
        assert!(!g.matches("#### 05/01/2021", "10/02/2021"));
    }

    #[test]
    fn exact_match_and_clusters() {
        let g = policy("number", Match::Exact);
        assert!(!g.matches("0.5", "1/2"));
        assert_eq!(
            g.cluster(&[Some("1/2"), Some("[invalid]"), Some(" 1/2"), Some("0.5")]),
            vec![Some(0), None, Some(0), Some(1)]
        );
        let g = GradingPolicy::default();
        assert_eq!(
            g.cluster(&[
                Some("1/2"),
                Some("[invalid]"),
                Some("\\frac{1}{2}"),
                Some("0.5")
            ]),
            vec![Some(0), None, Some(0), Some(0)]
        );
    }
}
