//! Canonical keys and equivalence clustering for majority voting.

use std::collections::{BTreeMap, HashMap};

use num_bigint::BigInt;

use crate::equiv::{prepare, Grader, Prepared, Sig};
use crate::eval::{eval_exact, eval_surd, free_symbols, Budget, Ctx, PctEval};
use crate::parse::{Expr, Num};

fn has_decimal_literal(e: &Expr) -> bool {
    match e {
        Expr::Num(Num { decimals, .. }) => decimals.is_some(),
        Expr::Add(v) | Expr::Mul(v) | Expr::Func(_, v) => v.iter().any(has_decimal_literal),
        Expr::Neg(a) | Expr::Percent(a) => has_decimal_literal(a),
        Expr::Div(a, b) | Expr::Pow(a, b) => has_decimal_literal(a) || has_decimal_literal(b),
        _ => false,
    }
}

/// An integer in a key: decimal up to 1024 bits, hex beyond (decimal
/// printing is quadratic in the size; hex is linear).
fn int_text(n: &BigInt) -> String {
    if n.bits() <= 1024 {
        n.to_string()
    } else {
        format!("0x{n:x}")
    }
}

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

/// The clustering key of a prepared answer: equal keys are the same
/// answer. Tagged by kind: `l:` over-long text, `t:` a date, `q:`/`d:` an
/// exact rational (`d:` when written with a decimal), `r:` a radical's
/// canonical form, `s:` the canonical text otherwise.
fn key_of(p: &Prepared, answer: &str, grader: &Grader) -> String {
    if p.too_long {
        // too long to compare: only the same text is the same answer
        return format!("l:{}", answer.trim());
    }
    if let Some(d) = p.date {
        let [a, b, c] = d.parts;
        let form = match d.form {
            crate::equiv::DateForm::YearLast => "ymd-last",
            crate::equiv::DateForm::YearFirst => "ymd-first",
        };
        return format!("t:{form}:{a}/{b}/{c}");
    }
    if let Ok(e) = &p.expr {
        if let Some(key) = constant_key(e, grader) {
            return key;
        }
    }
    format!("s:{}", p.canon)
}

/// The key of a constant scalar expression (no free symbols) by its exact
/// value, or by its canonical radical form; `None` when it has none, and
/// for a percentage under [`PercentPolicy::Either`](crate::PercentPolicy)
/// (which equals two values).
fn constant_key(e: &Expr, grader: &Grader) -> Option<String> {
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
    if !scalar || !syms.is_empty() {
        return None;
    }
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
    if has_pct && grader.percent == crate::PercentPolicy::Either {
        return None;
    }
    if let Ok(Some(q)) = eval_exact(e, &ctx) {
        let tag = if has_decimal_literal(e) { "d" } else { "q" };
        return Some(format!(
            "{tag}:{}/{}",
            int_text(q.numer()),
            int_text(q.denom())
        ));
    }
    if has_decimal_literal(e) {
        return None;
    }
    let s = eval_surd(e, &ctx).ok()??;
    // canonical radical form: Σ c·√k
    let terms: Vec<String> = s
        .iter()
        .map(|(k, c)| format!("{}/{}*r{k}", int_text(c.numer()), int_text(c.denom())))
        .collect();
    Some(format!("r:{}", terms.join("+")))
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
    key_of(&prepare(answer), answer, &Grader::default())
}

fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// One distinct canonical key: its representative's parse and signature.
struct Node {
    key: String,
    rep: Prepared,
    sig: Sig,
}

/// Union–find over the nodes, counting comparisons the work cap ended.
struct Merger<'a> {
    grader: &'a Grader,
    nodes: &'a [Node],
    parent: Vec<usize>,
    n_undecided: u64,
}

impl Merger<'_> {
    fn union(&mut self, a: usize, b: usize) {
        let (ra, rb) = (find(&mut self.parent, a), find(&mut self.parent, b));
        if ra != rb {
            let (lo, hi) = if ra < rb { (ra, rb) } else { (rb, ra) };
            self.parent[hi] = lo;
        }
    }

    /// Compares two nodes (both directions, one shared work budget) unless
    /// they are already merged or are distinct exact numbers.
    fn try_merge(&mut self, i: usize, j: usize) {
        let exact = |k: &str| k.starts_with("q:") || k.starts_with("r:");
        let (a, b) = (&self.nodes[i], &self.nodes[j]);
        if exact(&a.key) && exact(&b.key) {
            return; // distinct exact numbers are never equivalent
        }
        if find(&mut self.parent, i) == find(&mut self.parent, j) {
            return;
        }
        let budget = Budget::default();
        let eq = self.grader.compare_within(&a.rep, &b.rep, &budget).equal
            || self.grader.compare_within(&b.rep, &a.rep, &budget).equal;
        if eq {
            self.union(i, j);
        } else if budget.exhausted() {
            self.n_undecided += 1;
        }
    }
}

/// Distinct answers grouped by canonical key, in key order, each group
/// represented by its first member that parses (else its first), members
/// in byte order: a function of the set of answers, not of their order.
/// Returns the nodes and, per distinct answer string, its node.
fn nodes_of<'s>(
    grader: &Grader,
    distinct: &[&'s str],
    n_undecided: &mut u64,
) -> (Vec<Node>, HashMap<&'s str, usize>) {
    let mut by_key: BTreeMap<String, Vec<(&str, Prepared)>> = BTreeMap::new();
    for a in distinct {
        let p = prepare(a);
        by_key
            .entry(key_of(&p, a, grader))
            .or_default()
            .push((a, p));
    }
    let mut nodes = Vec::with_capacity(by_key.len());
    let mut node_of = HashMap::with_capacity(distinct.len());
    for (key, mut members) in by_key {
        members.sort_by(|x, y| x.0.cmp(y.0));
        for (a, _) in &members {
            node_of.insert(*a, nodes.len());
        }
        let k = members.iter().position(|m| m.1.expr.is_ok()).unwrap_or(0);
        let rep = members.swap_remove(k).1;
        let budget = Budget::default();
        let sig = grader.signature(&rep, &budget).unwrap_or_else(|_| {
            *n_undecided += 1;
            Sig::Never
        });
        nodes.push(Node { key, rep, sig });
    }
    (nodes, node_of)
}

/// Pairs of nodes whose signatures allow equivalence, other than `Any`:
/// the same shape and values within the window (scanned in sorted order).
fn candidate_pairs(grader: &Grader, nodes: &[Node]) -> Vec<(usize, usize)> {
    let mut pairs = Vec::new();
    let mut shapes: HashMap<&str, Vec<(f64, f64, usize)>> = HashMap::new();
    for (i, n) in nodes.iter().enumerate() {
        if let Sig::Value { shape, lo, hi } = &n.sig {
            shapes
                .entry(shape.as_str())
                .or_default()
                .push((*lo, *hi, i));
        }
    }
    for values in shapes.values_mut() {
        values.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.2.cmp(&b.2)));
        for (x, &(lo, hi, i)) in values.iter().enumerate() {
            for &(lo2, hi2, j) in &values[x + 1..] {
                if !grader.sig_window(lo, lo2) {
                    break; // sorted by least value: every later one is farther away
                }
                if grader.sig_window(hi, hi2) {
                    pairs.push((i.min(j), i.max(j)));
                }
            }
        }
    }
    pairs.sort_unstable();
    pairs
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
        self.cluster_answers_counted(answers).0
    }

    /// [`Self::cluster_answers`], also returning how many comparisons (or
    /// answers' signatures) the per-pair work cap ended undecided; such
    /// pairs stay in separate clusters. The count, like the partition,
    /// depends only on the set of answers.
    ///
    /// ```
    /// use rollstat_grade::Grader;
    /// let (ids, n_undecided) = Grader::default().cluster_answers_counted(&[Some("1/2"), Some("0.5")]);
    /// assert_eq!((ids, n_undecided), (vec![Some(0), Some(0)], 0));
    /// ```
    pub fn cluster_answers_counted(&self, answers: &[Option<&str>]) -> (Vec<Option<usize>>, u64) {
        let present: Vec<Option<&str>> = answers
            .iter()
            .map(|a| a.filter(|a| !is_junk_answer(a)))
            .collect();
        let mut distinct: Vec<&str> = present.iter().flatten().copied().collect();
        distinct.sort_unstable();
        distinct.dedup();
        let mut n_undecided = 0;
        let (nodes, node_of) = nodes_of(self, &distinct, &mut n_undecided);
        let mut m = Merger {
            grader: self,
            nodes: &nodes,
            parent: (0..nodes.len()).collect(),
            n_undecided,
        };
        // equal normalized strings are equal answers (the comparison's first rule)
        let mut by_canon: HashMap<&str, usize> = HashMap::new();
        for (i, n) in nodes.iter().enumerate() {
            if !n.rep.too_long && !n.rep.canon.is_empty() {
                let first = *by_canon.entry(n.rep.canon.as_str()).or_insert(i);
                m.union(first, i);
            }
        }
        for (i, j) in candidate_pairs(self, &nodes) {
            m.try_merge(i, j);
        }
        // `Any` nodes meet every node that is not `Never`
        let any: Vec<usize> = (0..nodes.len())
            .filter(|&i| nodes[i].sig == Sig::Any)
            .collect();
        for &i in &any {
            for (j, other) in nodes.iter().enumerate() {
                if j != i && other.sig != Sig::Never && !(other.sig == Sig::Any && j < i) {
                    m.try_merge(i.min(j), i.max(j));
                }
            }
        }
        // number clusters by first appearance
        let mut ids: HashMap<usize, usize> = HashMap::new();
        let out = present
            .iter()
            .map(|a| {
                a.map(|a| {
                    let root = find(&mut m.parent, node_of[a]);
                    let next = ids.len();
                    *ids.entry(root).or_insert(next)
                })
            })
            .collect();
        (out, m.n_undecided)
    }
}

/// Cluster rollout answers for majority voting.
///
/// Returns one cluster id per input; `None` for missing or junk answers
/// (`None`, empty, `"None"`, `"[invalid]"`, ...), which never vote.
/// Answers with equal [`canonical_key`]s are grouped first (each key is
/// represented by its first member, in byte order, that parses); then keys
/// are merged when [`is_equivalent`](crate::is_equivalent) holds in either
/// direction between their representatives, using union–find, so clusters
/// are transitive and the partition depends only on the *set* of answers,
/// never on their order. Ids are numbered by first appearance.
///
/// Cost: one parse per distinct answer. Only keys that can be equivalent
/// are compared: equal normalized strings merge without a comparison;
/// unparseable, too-long and date answers are compared with nothing else;
/// texts and prose-like products only with the same text; numbers,
/// expressions and collections only with those whose value (an
/// expression's value at a fixed point, a collection's least and greatest
/// elements) is within the tolerances, found by sorting;
/// relations, `±` and matrices with every other key. Each comparison runs
/// under the per-pair work cap ([`crate::limits::MAX_WORK`]); a capped
/// comparison leaves the two apart.
///
/// ```
/// use rollstat_grade::cluster_answers;
/// let ids = cluster_answers(&[Some("0.5"), Some("[invalid]"), Some("\\frac{1}{2}"), None, Some("1/3")]);
/// assert_eq!(ids, vec![Some(0), None, Some(0), None, Some(1)]);
/// ```
pub fn cluster_answers(answers: &[Option<&str>]) -> Vec<Option<usize>> {
    Grader::default().cluster_answers(answers)
}
