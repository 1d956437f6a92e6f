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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Xoshiro256PlusPlus;

    fn share(a: &str, b: &str) -> bool {
        a.chars().any(|c| b.contains(c))
    }

    /// The defining property: i and j share a letter ⇔ not separated; every
    /// system has a letter; the best system has "a".
    fn check_property(means: &[f64], sep: &dyn Fn(usize, usize) -> bool) {
        let l = compact_letters(means, sep);
        let m = means.len();
        for i in 0..m {
            assert!(!l[i].is_empty());
            for j in 0..m {
                if i != j {
                    assert_eq!(share(&l[i], &l[j]), !sep(i, j), "{i} {j} {l:?}");
                }
            }
        }
        let best = mean_order(means)[0];
        assert!(l[best].contains('a'), "{l:?}");
    }

    /// Every symmetric relation on 4 and on 5 systems (2⁶ and 2¹⁰).
    #[test]
    fn property_holds_for_every_relation_on_4_and_5_systems() {
        for m in 4..=5usize {
            let pairs: Vec<(usize, usize)> = (0..m)
                .flat_map(|i| (i + 1..m).map(move |j| (i, j)))
                .collect();
            let means: Vec<f64> = (0..m).map(|i| ((i * 7) % m) as f64).collect();
            for mask in 0u32..(1 << pairs.len()) {
                let sep = |i: usize, j: usize| {
                    let (a, b) = (i.min(j), i.max(j));
                    let k = pairs.iter().position(|&p| p == (a, b)).unwrap();
                    mask >> k & 1 == 1
                };
                check_property(&means, &sep);
            }
        }
    }

    #[test]
    fn property_holds_on_random_relations() {
        let mut r = Xoshiro256PlusPlus::seed_from_u64(17);
        for _ in 0..300 {
            let m = 6 + (r.next_u64() % 5) as usize;
            let density = r.next_f64();
            let mut rel = vec![vec![false; m]; m];
            for (i, j) in (0..m).flat_map(|i| (i + 1..m).map(move |j| (i, j))) {
                let s = r.next_f64() < density;
                rel[i][j] = s;
                rel[j][i] = s;
            }
            // ties in the means too
            let means: Vec<f64> = (0..m).map(|_| (r.next_u64() % 4) as f64).collect();
            check_property(&means, &|i, j| rel[i][j]);
        }
    }

    /// multcompView example: A–B and A–C not separated, B–C separated.
    #[test]
    fn multcompview_three_systems_up_to_relabelling() {
        let sep = |i: usize, j: usize| (i.min(j), i.max(j)) == (1, 2);
        let l = compact_letters(&[0.9, 0.8, 0.7], &sep);
        assert!(share(&l[0], &l[1]) && share(&l[0], &l[2]) && !share(&l[1], &l[2]));
        assert_eq!((l[0].len(), l[1].len(), l[2].len()), (2, 1, 1));
        // this crate's lettering: columns {A, B} then {A, C} in mean order
        assert_eq!(l, vec!["ab", "a", "b"]);
    }

    /// Research vector (§1c): Holm p M1–M2 .40, M1–M3 .03, M1–M4 .001,
    /// M2–M3 .20, M2–M4 .01, M3–M4 .30 at α = .05 → a, ab, bc, c; the same
    /// when the systems are given in another order.
    #[test]
    fn four_models_vector() {
        let p = [
            [1.0, 0.40, 0.03, 0.001],
            [0.40, 1.0, 0.20, 0.01],
            [0.03, 0.20, 1.0, 0.30],
            [0.001, 0.01, 0.30, 1.0],
        ];
        let sep = |i: usize, j: usize| p[i][j] < 0.05;
        assert_eq!(
            compact_letters(&[0.9, 0.8, 0.7, 0.6], &sep),
            vec!["a", "ab", "bc", "c"]
        );
        assert_eq!(top_tier(&[0.9, 0.8, 0.7, 0.6], &sep), vec![0, 1]);
        // relabelled: position k holds model perm[k]
        let perm = [2usize, 3, 0, 1];
        let means: Vec<f64> = perm.iter().map(|&i| [0.9, 0.8, 0.7, 0.6][i]).collect();
        let sep2 = |a: usize, b: usize| p[perm[a]][perm[b]] < 0.05;
        assert_eq!(compact_letters(&means, &sep2), vec!["bc", "c", "a", "ab"]);
        assert_eq!(top_tier(&means, &sep2), vec![2, 3]);
    }

    #[test]
    fn edge_cases() {
        let none = |_: usize, _: usize| false;
        let all = |_: usize, _: usize| true;
        assert!(compact_letters(&[], &none).is_empty());
        assert_eq!(compact_letters(&[0.5, 0.7], &none), vec!["a", "a"]);
        assert_eq!(compact_letters(&[0.5, 0.7, 0.6], &all), vec!["c", "a", "b"]);
        assert_eq!(top_tier(&[0.5, 0.7, 0.6], &all), vec![1]);
        assert_eq!(letter(51), 'Z');
        assert_eq!(letter(52), '\u{100}');
    }
}
