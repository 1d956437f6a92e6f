//! Compact letter displays (Piepho 2004, insert–absorb) and the top tier.

/// Compact letter display of systems with the given `means` (higher is
/// better) and a symmetric separation relation (`separated(i, j)` is `true`
/// when systems `i` and `j` differ significantly; it is called once per
/// unordered pair).
///
/// Piepho (2004, "An Algorithm for a Letter-Based Representation of
/// All-Pairwise Comparisons", J. Comput. Graph. Stat. 13:456–466)
/// insert–absorb, without the sweeping step (as R multcompView
/// `multcompLetters`): start with one letter shared by every system; for each
/// separated pair `(i, j)` replace every letter column that holds both by two
/// copies, one without `i` and one without `j` (insert), then drop every
/// column contained in another (absorb). This guarantees the defining
/// property: two systems share a letter **exactly** when they are not
/// separated. Pairs are processed in the order of the means (best first) and
/// the columns are lettered in that order too (column keys = its members'
/// positions in the mean order, compared lexicographically), so the best
/// system gets `"a"`. Letters run `a–z`, `A–Z`, then Latin Extended-A
/// characters (one `char` per letter). Ties in the means keep index order.
///
/// ```
/// use rollstat_stats::compact_letters;
/// // Holm-adjusted p of four models, separated at α = 0.05.
/// let p = [[1.0, 0.40, 0.03, 0.001], [0.40, 1.0, 0.20, 0.01],
///          [0.03, 0.20, 1.0, 0.30], [0.001, 0.01, 0.30, 1.0]];
/// let sep = |i: usize, j: usize| p[i][j] < 0.05;
/// let l = compact_letters(&[0.9, 0.8, 0.7, 0.6], &sep);
/// assert_eq!(l, vec!["a", "ab", "bc", "c"]);
/// ```
pub fn compact_letters(means: &[f64], separated: &dyn Fn(usize, usize) -> bool) -> Vec<String> {
    let m = means.len();
    let order = mean_order(means);
    let mut cols: Vec<Vec<bool>> = vec![vec![true; m]];
    for a in 0..m {
        for b in a + 1..m {
            let (i, j) = (order[a], order[b]);
            if separated(i, j) {
                cols = insert_absorb(cols, i, j);
            }
        }
    }
    // Letter order: by members' positions in the mean order.
    let mut keyed: Vec<(Vec<usize>, Vec<bool>)> = cols
        .into_iter()
        .map(|c| ((0..m).filter(|&p| c[order[p]]).collect(), c))
        .collect();
    keyed.sort();
    let mut out = vec![String::new(); m];
    for (k, (_, col)) in keyed.iter().enumerate() {
        for (i, s) in out.iter_mut().enumerate() {
            if col[i] {
                s.push(letter(k));
            }
        }
    }
    out
}

/// One insert step for the separated pair `(i, j)`, then absorption.
fn insert_absorb(cols: Vec<Vec<bool>>, i: usize, j: usize) -> Vec<Vec<bool>> {
    let mut next = Vec::with_capacity(cols.len() + 1);
    for c in cols {
        if c[i] && c[j] {
            let (mut without_i, mut without_j) = (c.clone(), c);
            without_i[i] = false;
            without_j[j] = false;
            next.push(without_i);
            next.push(without_j);
        } else {
            next.push(c);
        }
    }
    let subset = |a: &[bool], b: &[bool]| a.iter().zip(b).all(|(x, y)| !*x || *y);
    let mut kept: Vec<Vec<bool>> = Vec::with_capacity(next.len());
    for (k, c) in next.iter().enumerate() {
        // Drop c if another column contains it (for equal columns keep the first).
        let absorbed = next
            .iter()
            .enumerate()
            .any(|(l, d)| l != k && subset(c, d) && (!subset(d, c) || l < k));
        if !absorbed {
            kept.push(c.clone());
        }
    }
    kept
}

/// Indices sorted by decreasing mean (NaN last), ties by index.
fn mean_order(means: &[f64]) -> Vec<usize> {
    let key = |x: f64| if x.is_nan() { f64::NEG_INFINITY } else { x };
    let mut order: Vec<usize> = (0..means.len()).collect();
    order.sort_by(|&a, &b| key(means[b]).total_cmp(&key(means[a])).then(a.cmp(&b)));
    order
}

/// The `k`-th letter: `a–z`, `A–Z`, then U+0100 onwards.
fn letter(k: usize) -> char {
    match k {
        0..=25 => (b'a' + k as u8) as char,
        26..=51 => (b'A' + (k - 26) as u8) as char,
        _ => char::from_u32(0x100 + (k - 52) as u32).unwrap_or('?'),
    }
}

/// The top tier: every system that shares a letter of [`compact_letters`]
/// with the best system (highest mean, lowest index among ties) —
/// equivalently, the best system and every system not separated from it —
/// in the order of the means.
///
/// ```
/// let sep = |i: usize, j: usize| (i, j) == (0, 2) || (i, j) == (2, 0);
/// assert_eq!(rollstat_stats::top_tier(&[0.9, 0.8, 0.7], &sep), vec![0, 1]);
/// ```
pub fn top_tier(means: &[f64], separated: &dyn Fn(usize, usize) -> bool) -> Vec<usize> {
    if means.is_empty() {
        return Vec::new();
    }
    let letters = compact_letters(means, separated);
    let order = mean_order(means);
    let best = &letters[order[0]];
    order
        .into_iter()
        .filter(|&i| letters[i].chars().any(|c| best.contains(c)))
        .collect()
}
