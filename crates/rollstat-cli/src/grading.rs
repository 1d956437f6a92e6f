//! Answer grading and equivalence clustering for `report`, `compare` and
//! `grade`, through `rollstat-grade` (policies: `docs/grading.md`).
//!
//! - rows with `gold` and no `correct` are graded by [`AnswerGrader`]: a
//!   given `answer` is compared as is, otherwise the answer is extracted
//!   from `response` with `--extract`; `answer: null` stays unextracted;
//! - answers are clustered for maj@n and self-consistency by the same
//!   verifier ([`EquivalenceClusterer`]), so `0.5`, `1/2` and `\frac{1}{2}`
//!   are one vote;
//! - junk answers (`[invalid]`, `None`, empty, …) are unextracted: wrong,
//!   and they never vote ([`Grading::normalize`]).

use crate::pipeline::InputError;
use anyhow::Result;
use clap::Args;
use rollstat_core::summary::{Answer, ProblemData, Verdict};
use rollstat_core::vote::{AnswerClusterer, ExactClusterer};
use rollstat_grade::{is_junk_answer, ExtractMode};
use rollstat_io::{CollectedProblem, Grader};

/// Grading flags shared by `report`, `compare` and `grade`.
#[derive(Args, Debug, Clone)]
pub struct GradingArgs {
    /// How the final answer is extracted from `response` when a row has no
    /// `answer`: `math` (boxed, "final answer is", "answer is", last LaTeX
    /// span, last number), `mcq` (letter A–J), `number`, or `regex:PATTERN`
    /// (first group of the last match).
    #[arg(
        long,
        default_value = "math",
        value_name = "math|mcq|number|regex:PATTERN"
    )]
    pub extract: String,
    /// How answers are compared with `gold` and with each other (for
    /// maj@n): `equivalent` (math equivalence: 0.5 = 1/2 = \frac{1}{2})
    /// or `exact` (trimmed strings).
    #[arg(
        long = "match",
        default_value = "equivalent",
        value_name = "equivalent|exact"
    )]
    pub matching: String,
}

impl Default for GradingArgs {
    fn default() -> Self {
        GradingArgs {
            extract: "math".into(),
            matching: "equivalent".into(),
        }
    }
}

/// How answers are compared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Match {
    /// `rollstat_grade` equivalence.
    Equivalent,
    /// Trimmed strings.
    Exact,
}

impl std::str::FromStr for Match {
    type Err = String;
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
pub fn gold_answer(gold: &str) -> &str {
    match gold.rfind("####") {
        Some(i) => gold[i + 4..].trim(),
        None => gold.trim(),
    }
}

/// Decides rows with `gold` but no `correct` (extract, then compare).
pub struct AnswerGrader {
    pub mode: ExtractMode,
    pub matching: Match,
    mode_name: String,
}

impl AnswerGrader {
    /// The answer of a row: the given one (junk → none), else extracted
    /// from the response; `None` = unextracted.
    pub fn answer_of(&self, answer: &Answer, response: Option<&str>) -> Option<String> {
        match answer {
            Answer::Text(a) => Some(a.clone()),
            Answer::Unextracted => None,
            Answer::Unknown => response.and_then(|r| rollstat_grade::extract_answer(r, &self.mode)),
        }
        .filter(|a| !is_junk_answer(a))
    }

    /// Whether `answer` (already extracted, not junk) matches `gold`.
    pub fn matches(&self, gold: &str, answer: &str) -> bool {
        let gold = gold_answer(gold);
        match self.matching {
            Match::Exact => gold == answer.trim(),
            Match::Equivalent => {
                rollstat_grade::grade(None, Some(answer), gold, &self.mode).correct
            }
        }
    }

    /// Grades against any of several gold answers.
    pub fn matches_any(&self, golds: &[String], answer: &str) -> bool {
        golds.iter().any(|g| self.matches(g, answer))
    }
}

impl Grader for AnswerGrader {
    fn grade(&self, gold: &str, answer: &Answer, response: Option<&str>) -> (Verdict, Answer) {
        match self.answer_of(answer, response) {
            None => (Verdict::Wrong, Answer::Unextracted),
            Some(a) => {
                let v = if self.matches(gold, &a) {
                    Verdict::Correct
                } else {
                    Verdict::Wrong
                };
                (v, Answer::Text(a))
            }
        }
    }
    fn name(&self) -> String {
        match self.matching {
            Match::Equivalent => format!("rollstat-grade equivalence (extract {})", self.mode_name),
            Match::Exact => format!("exact-string (extract {})", self.mode_name),
        }
    }
}

/// Clusters answers by `rollstat-grade` equivalence; junk never votes.
#[derive(Clone, Copy, Debug, Default)]
pub struct EquivalenceClusterer;

impl AnswerClusterer for EquivalenceClusterer {
    fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        integer_clusters(answers).unwrap_or_else(|| rollstat_grade::cluster_answers(answers))
    }
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
mod integer_tests {
    use super::*;

    /// The shortcut gives the verifier's clusters on integer answers.
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
                Some(rollstat_grade::cluster_answers(answers)),
                "{answers:?}"
            );
        }
        assert_eq!(integer_clusters(&[Some("1,000"), Some("1000")]), None);
        assert_eq!(integer_clusters(&[Some("1/2")]), None);
    }
}

/// Exact-string clusters (trimmed); junk never votes.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExactNoJunkClusterer;

impl AnswerClusterer for ExactNoJunkClusterer {
    fn cluster(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        let kept: Vec<Option<&str>> = answers
            .iter()
            .map(|a| a.filter(|s| !is_junk_answer(s)))
            .collect();
        ExactClusterer.cluster(&kept)
    }
}

/// Validated grading settings.
pub struct Grading {
    grader: AnswerGrader,
    equivalence: EquivalenceClusterer,
    exact: ExactNoJunkClusterer,
}

impl Grading {
    pub fn from_args(a: &GradingArgs) -> Result<Grading> {
        let mode: ExtractMode = a
            .extract
            .trim()
            .parse()
            .map_err(|e| InputError(format!("--extract: {e}")))?;
        let matching: Match = a
            .matching
            .parse()
            .map_err(|e| InputError(format!("--match: {e}")))?;
        let mode_name = a.extract.trim().to_string();
        Ok(Grading {
            grader: AnswerGrader {
                mode,
                matching,
                mode_name,
            },
            equivalence: EquivalenceClusterer,
            exact: ExactNoJunkClusterer,
        })
    }

    /// The answer grader (also used by `rollstat grade`).
    pub fn answer_grader(&self) -> &AnswerGrader {
        &self.grader
    }

    /// Decides rows with `gold` but no `correct`.
    pub fn grader(&self) -> &dyn Grader {
        &self.grader
    }

    /// Clusters answers for maj@n and self-consistency.
    pub fn clusterer(&self) -> &dyn AnswerClusterer {
        match self.grader.matching {
            Match::Equivalent => &self.equivalence,
            Match::Exact => &self.exact,
        }
    }

    /// Recorded as `config.answer_clustering`.
    pub fn describe(&self) -> String {
        // Junk answers ([invalid], None, empty) never vote in either mode.
        let base = match self.grader.matching {
            Match::Equivalent => "equivalence",
            Match::Exact => "exact-string",
        };
        format!("{base}, extract={}", self.grader.mode_name)
    }

    /// Junk answers (`[invalid]`, `None`, empty, …) become unextracted: they
    /// count as wrong and never vote (SPEC §1).
    pub fn normalize(&self, problems: &mut [CollectedProblem]) {
        use rayon::prelude::*;
        problems.par_iter_mut().for_each(|p| {
            if let ProblemData::Rollouts(rs) = &mut p.data {
                rs.mark_unextracted(is_junk_answer);
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn grading(extract: &str, matching: &str) -> Grading {
        Grading::from_args(&GradingArgs {
            extract: extract.into(),
            matching: matching.into(),
        })
        .unwrap()
    }

    #[test]
    fn grader_extracts_compares_and_keeps_unextracted() {
        let g = grading("math", "equivalent");
        let r = g
            .grader()
            .grade("0.5", &Answer::Unknown, Some("so $\\boxed{\\frac12}$"));
        assert_eq!(r, (Verdict::Correct, Answer::Text("\\frac12".into())));
        let r = g.grader().grade("0.5", &Answer::Text("1/2".into()), None);
        assert_eq!(r.0, Verdict::Correct);
        let r = g
            .grader()
            .grade("0.5", &Answer::Text("[invalid]".into()), None);
        assert_eq!(r, (Verdict::Wrong, Answer::Unextracted));
        // answer: null is an extraction that found nothing; the response is not re-read
        let r = g
            .grader()
            .grade("7", &Answer::Unextracted, Some("\\boxed{7}"));
        assert_eq!(r, (Verdict::Wrong, Answer::Unextracted));
        let r = g.grader().grade("7", &Answer::Unknown, Some("no idea"));
        assert_eq!(r, (Verdict::Wrong, Answer::Unextracted));
        // GSM8K-style gold
        let r = g
            .grader()
            .grade("... so 72\n#### 72", &Answer::Text("72".into()), None);
        assert_eq!(r.0, Verdict::Correct);
        // dates are not divisions: 05/01/2021 and 10/02/2021 are both 5/2021
        let r = g
            .grader()
            .grade("#### 05/01/2021", &Answer::Text("10/02/2021".into()), None);
        assert_eq!(r.0, Verdict::Wrong);
    }

    #[test]
    fn exact_match_and_clusterers() {
        let g = grading("number", "exact");
        assert_eq!(
            g.grader().grade("0.5", &Answer::Text("1/2".into()), None).0,
            Verdict::Wrong
        );
        assert_eq!(
            g.clusterer()
                .cluster(&[Some("1/2"), Some("[invalid]"), Some(" 1/2"), Some("0.5")]),
            vec![Some(0), None, Some(0), Some(1)]
        );
        let g = grading("math", "equivalent");
        assert_eq!(
            g.clusterer().cluster(&[
                Some("1/2"),
                Some("[invalid]"),
                Some("\\frac{1}{2}"),
                Some("0.5")
            ]),
            vec![Some(0), None, Some(0), Some(0)]
        );
    }

    #[test]
    fn bad_flags_are_usage_errors() {
        let e = Grading::from_args(&GradingArgs {
            extract: "regex:(".into(),
            matching: "equivalent".into(),
        });
        assert!(e.is_err());
        let e = Grading::from_args(&GradingArgs {
            extract: "math".into(),
            matching: "fuzzy".into(),
        });
        assert!(e.err().unwrap().to_string().contains("--match"));
    }
}
