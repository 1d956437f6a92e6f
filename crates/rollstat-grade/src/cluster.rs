//! Canonical keys and equivalence clustering for majority voting.

use std::collections::HashMap;

use crate::equiv::{canon_string, prepare, Grader, Prepared};
use crate::eval::{eval_exact, eval_surd, free_symbols, Budget, Ctx, PctEval};
use crate::parse::{Expr, Num};

/// Placeholder strings that graders emit when nothing was extracted.
const JUNK: &[&str] = &[
    "",
    "none",
    "null",
    "nan",
    "n/a",
    "[invalid]",
    "invalid",
    "[invalidanswer]",
    "[no_answer]",
    "no answer",
];

/// True for answers that must never vote: empty, `None`, `[invalid]`, ...
///
/// ```
/// assert!(rollstat_grade::is_junk_answer(" [invalid] "));
/// assert!(!rollstat_grade::is_junk_answer("0"));
/// ```
pub fn is_junk_answer(answer: &str) -> bool {
    let t = answer.trim().to_ascii_lowercase();
    JUNK.contains(&t.as_str())
}

fn has_decimal_literal(e: &Expr) -> bool {
    match e {
        Expr::Num(Num { decimals, .. }) => decimals.is_some(),
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().any(has_decimal_literal),
        Expr::Neg(a) | Expr::Percent(a) => has_decimal_literal(a),
        Expr::Div(a, b) | Expr::Pow(a, b) => has_decimal_literal(a) || has_decimal_literal(b),
        _ => false,
    }
}

/// Value of a scalar answer at a fixed pseudo-random point (each variable's
/// value derived from its name), used to skip comparisons that cannot
/// succeed. `None` when not a plain scalar, when decimals or percents could
/// make a tolerant comparison succeed, or when undefined at that point.
fn fingerprint(p: &Prepared, grader: &Grader) -> Option<f64> {
    let e = p.expr.as_ref().ok()?;
    let scalar = matches!(
        e,
        Expr::Num(_)
            | Expr::Sym(_)
            | Expr::Const(_)
            | Expr::Add(_)
            | Expr::Mul(_)
            | Expr::Neg(_)
            | Expr::Div(..)
            | Expr::Pow(..)
            | Expr::Func(..)
    );
    if !scalar || has_decimal_literal(e) || crate::equiv_has_percent(e) {
        return None;
    }
    let mut syms = std::collections::BTreeSet::new();
    free_symbols(e, &mut syms);
    let vars: HashMap<String, f64> = syms
        .into_iter()
        .map(|s| {
            let h = s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ b as u64).wrapping_mul(0x100_0000_01b3)
            });
            let v = 0.35 + (h % 10_007) as f64 / 10_007.0 * 2.5;
            (s, if h & (1 << 40) != 0 { -v } else { v })
        })
        .collect();
    let budget = Budget::default();
    let ctx = Ctx {
        vars: &vars,
        pct: match grader.percent {
            crate::PercentPolicy::Fraction => PctEval::Fraction,
            _ => PctEval::Strip,
        },
        budget: &budget,
    };
    let v = crate::eval::eval_f64(e, &ctx).ok()?;
    v.is_finite().then_some(v)
}

fn key_of(p: &Prepared, grader: &Grader) -> String {
    if let Some(d) = p.date {
        let [a, b, c] = d.parts;
        let form = match d.form {
            crate::equiv::DateForm::YearLast => "ymd-last",
            crate::equiv::DateForm::YearFirst => "ymd-first",
        };
        return format!("t:{form}:{a}/{b}/{c}");
    }
    if let Ok(e) = &p.expr {
        let mut syms = std::collections::BTreeSet::new();
        free_symbols(e, &mut syms);
        let scalar = matches!(
            e,
            Expr::Num(_)
                | Expr::Add(_)
                | Expr::Mul(_)
                | Expr::Neg(_)
                | Expr::Div(..)
                | Expr::Pow(..)
                | Expr::Percent(_)
                | Expr::Func(..)
        );
        if scalar && syms.is_empty() {
            let budget = Budget::default();
            let vars = HashMap::new();
            let pct = match grader.percent {
                crate::PercentPolicy::Fraction => PctEval::Fraction,
                _ => PctEval::Strip,
            };
            let ctx = Ctx {
                vars: &vars,
                pct,
                budget: &budget,
            };
            let has_pct = crate::equiv_has_percent(e);
            if !(has_pct && grader.percent == crate::PercentPolicy::Either) {
                if let Ok(Some(q)) = eval_exact(e, &ctx) {
                    let tag = if has_decimal_literal(e) { "d" } else { "q" };
                    return format!("{tag}:{}/{}", q.numer(), q.denom());
                }
                if !has_decimal_literal(e) {
                    if let Ok(Some(s)) = eval_surd(e, &ctx) {
                        // canonical radical form: Σ c·√k
                        let terms: Vec<String> = s
                            .iter()
                            .map(|(k, c)| format!("{}/{}*r{k}", c.numer(), c.denom()))
                            .collect();
                        return format!("r:{}", terms.join("+"));
                    }
                }
            }
        }
    }
    format!("s:{}", p.canon)
}

/// A normalized key for an answer: equal keys imply equivalent answers.
///
/// Exact numbers map to `q:NUM/DEN` (so `0.5`, `1/2` and `\frac{1}{2}`
/// share `q:1/2`; decimals that may also match by rounding get `d:`),
/// exact radicals to their canonical form `r:…` (`\sqrt{8}` and
/// `2\sqrt{2}` share a key),
/// everything else to `s:` plus a normalized string. Junk answers give `""`.
///
/// ```
/// use rollstat_grade::canonical_key;
/// assert_eq!(canonical_key("\\frac{1}{2}"), canonical_key("1/2"));
/// assert_eq!(canonical_key("None"), "");
/// ```
pub fn canonical_key(answer: &str) -> String {
    if is_junk_answer(answer) {
        return String::new();
    }
    let g = Grader::default();
    let p = prepare(answer);
    if p.too_long {
        return format!("s:{}", canon_string(prefix(answer)));
    }
    key_of(&p, &g)
}

/// First 64 bytes of `s`, cut on a char boundary.
fn prefix(s: &str) -> &str {
    let mut k = s.len().min(64);
    while !s.is_char_boundary(k) {
        k -= 1;
    }
    &s[..k]
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

fn union(parent: &mut [usize], a: usize, b: usize) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        // keep the smaller index as root (first appearance)
        let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
        parent[hi] = lo;
    }
}

impl Grader {
    /// Cluster answers by equivalence (see [`cluster_answers`]).
    ///
    /// ```
    /// use rollstat_grade::Grader;
    /// let ids = Grader::default().cluster_answers(&[Some("2"), Some("3"), Some("2.0")]);
    /// assert_eq!(ids, vec![Some(0), Some(1), Some(0)]);
    /// ```
    pub fn cluster_answers(&self, answers: &[Option<&str>]) -> Vec<Option<usize>> {
        // 1. group identical keys
        let mut key_index: HashMap<String, usize> = HashMap::new();
        let mut reps: Vec<Prepared> = Vec::new();
        let mut keys: Vec<String> = Vec::new();
        let mut of_answer: Vec<Option<usize>> = Vec::with_capacity(answers.len());
        for a in answers {
            let a = match a {
                Some(a) if !is_junk_answer(a) => *a,
                _ => {
                    of_answer.push(None);
                    continue;
                }
            };
            let p = prepare(a);
            let key = if p.too_long {
                format!("s:{}", canon_string(prefix(a)))
            } else {
                key_of(&p, self)
            };
            let next = reps.len();
            let k = *key_index.entry(key.clone()).or_insert(next);
            if k == next {
                reps.push(p);
                keys.push(key);
            }
            of_answer.push(Some(k));
        }
        // 2. merge equivalent keys (union-find => transitive)
        let n = reps.len();
        let mut parent: Vec<usize> = (0..n).collect();
        let prints: Vec<Option<f64>> = reps.iter().map(|p| fingerprint(p, self)).collect();
        let print_tol = (self.rel_tol * 100.0).max(1e-6);
        for i in 0..n {
            for j in (i + 1)..n {
                if let (Some(a), Some(b)) = (prints[i], prints[j]) {
                    let d = (a - b).abs();
                    if d > print_tol * a.abs().max(b.abs()) && d > 1e-9 {
                        continue; // values differ at a common point: not equivalent
                    }
                }
                let exact = |k: &str| k.starts_with("q:") || k.starts_with("r:");
                if exact(&keys[i]) && exact(&keys[j]) {
                    continue; // distinct exact numbers are never equivalent
                }
                if find(&mut parent, i) == find(&mut parent, j) {
                    continue;
                }
                let eq = self.compare_prepared(&reps[i], &reps[j]).equal
                    || self.compare_prepared(&reps[j], &reps[i]).equal;
                if eq {
                    union(&mut parent, i, j);
                }
            }
        }
        // 3. number clusters by first appearance
        let mut ids: HashMap<usize, usize> = HashMap::new();
        of_answer
            .into_iter()
            .map(|k| {
                k.map(|k| {
                    let root = find(&mut parent, k);
                    let next = ids.len();
                    *ids.entry(root).or_insert(next)
                })
            })
            .collect()
    }
}

/// Cluster rollout answers for majority voting.
///
/// Returns one cluster id per input; `None` for missing or junk answers
/// (`None`, empty, `"None"`, `"[invalid]"`, ...), which never vote.
/// Answers with equal [`canonical_key`]s are grouped first; then distinct
/// keys are merged when [`is_equivalent`](crate::is_equivalent) holds in
/// either direction, using union–find, so clusters are transitive and
/// deterministic. Ids are numbered by first appearance. Cost: one parse per
/// distinct key and at most one comparison per pair of distinct non-numeric
/// keys.
///
/// ```
/// use rollstat_grade::cluster_answers;
/// let ids = cluster_answers(&[Some("0.5"), Some("[invalid]"), Some("\\frac{1}{2}"), None, Some("1/3")]);
/// assert_eq!(ids, vec![Some(0), None, Some(0), None, Some(1)]);
/// ```
pub fn cluster_answers(answers: &[Option<&str>]) -> Vec<Option<usize>> {
    Grader::default().cluster_answers(answers)
}
