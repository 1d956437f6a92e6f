//! The maj@k program as first written (one product over the rivals per run
//! of the winner's members for `first`; a dual-number table for `none` and
//! `fractional`), kept as an independent formulation to check the faster
//! program in `src/select.rs` against on profiles too large to enumerate.

use rollstat_core::vote::TiePolicy;

/// A problem's vote: cluster sizes and verdicts, and the cluster of each
/// voting rollout in rollout order.
pub struct Profile {
    pub n: usize,
    pub sizes: Vec<usize>,
    pub correct: Vec<bool>,
    pub voters: Vec<usize>,
}

impl Profile {
    /// From rollout clusters (ids dense by first appearance) and cluster verdicts.
    pub fn new(clusters: &[Option<usize>], ok: &[bool]) -> Profile {
        let mut sizes = vec![0; ok.len()];
        let voters: Vec<usize> = clusters.iter().flatten().copied().collect();
        for &c in &voters {
            sizes[c] += 1;
        }
        Profile {
            n: clusters.len(),
            sizes,
            correct: ok.to_vec(),
            voters,
        }
    }
}

use std::sync::OnceLock;

/// Pascal's triangle up to 1000 as `f64`, built once.
fn pascal() -> &'static [f64] {
    static TRIANGLE: OnceLock<Vec<f64>> = OnceLock::new();
    TRIANGLE.get_or_init(|| {
        let mut t = Vec::with_capacity((1000 + 1) * (1000 + 2) / 2);
        for n in 0..=1000 {
            let prev = t.len() - n.min(t.len());
            for k in 0..=n {
                let v = if k == 0 || k == n {
                    1.0
                } else {
                    t[prev + k - 1] + t[prev + k]
                };
                t.push(v);
            }
        }
        t
    })
}

/// Row n of Pascal's triangle: C(n, 0), …, C(n, n).
fn row(t: &[f64], n: usize) -> &[f64] {
    let start = n * (n + 1) / 2;
    &t[start..=start + n]
}

/// C(n, k) from row n (0 for k > n).
#[inline]
fn at(row: &[f64], k: usize) -> f64 {
    row.get(k).copied().unwrap_or(0.0)
}

/// maj@1, …, maj@K (element k − 1 is maj@k), K = min(`k_max`, n).
pub fn maj_at_ks_reference(profile: &Profile, tie: TiePolicy, k_max: usize) -> Vec<f64> {
    let n = profile.n;
    let k_max = k_max.min(n);
    let counts = match tie {
        TiePolicy::First => counts_first(profile, k_max),
        _ => counts_symmetric(profile, tie, k_max),
    };
    let total = row(pascal(), n);
    (1..=k_max).map(|k| counts[k] / total[k]).collect()
}

/// Σ_j G_j(x)·(1+x)^{m_j}: winning draws G_j from the tracked clusters,
/// joined by the m_j rollouts outside them (any number of which may be in
/// the subset). Fed with m_j non-increasing, the sum so far is kept divided
/// by (1+x)^{m}, so the whole join costs at most n multiplications by
/// (1 + x), each O(K).
struct Joined {
    poly: Vec<f64>,
    m: usize,
}

impl Joined {
    fn new(k_max: usize) -> Joined {
        Joined {
            poly: vec![0.0; k_max + 1],
            m: usize::MAX,
        }
    }

    /// Continues at `m` free rollouts (never more than before).
    fn shift_to(&mut self, m: usize) {
        if self.m != usize::MAX {
            for _ in m..self.m {
                for s in (1..self.poly.len()).rev() {
                    self.poly[s] += self.poly[s - 1];
                }
            }
        }
        self.m = m;
    }

    /// The counts by subset size k.
    fn finish(mut self) -> Vec<f64> {
        self.shift_to(0);
        self.poly
    }
}

/// Winning counts (index k) for `none` and `fractional`.
///
/// For each winning count j, from the largest down, the clusters of size
/// ≥ j (a prefix of the clusters by size) are tracked; the others and the
/// non-voters are free ([`Joined`]).
fn counts_symmetric(profile: &Profile, tie: TiePolicy, k_max: usize) -> Vec<f64> {
    let sizes = &profile.sizes[..];
    let mut order: Vec<usize> = (0..sizes.len()).collect();
    order.sort_by(|&a, &b| sizes[b].cmp(&sizes[a]));
    let correct_max = (0..sizes.len())
        .filter(|&i| profile.correct[i])
        .map(|i| sizes[i])
        .max()
        .unwrap_or(0);
    let mut joined = Joined::new(k_max);
    let mut tables = Tables::default();
    for j in (1..=correct_max.min(k_max)).rev() {
        let big = &order[..order.partition_point(|&i| sizes[i] >= j)];
        let m = profile.n - big.iter().map(|&i| sizes[i]).sum::<usize>();
        joined.shift_to(m);
        let top = TiedTop {
            sizes,
            correct: &profile.correct,
            j,
            tie,
        };
        top.add_to(big, &mut tables, &mut joined.poly);
    }
    joined.finish()
}

/// Two (s, T) tables, all draws and the dual part marking a correct
/// cluster at the top, with room for the next step (reused across j).
#[derive(Default)]
struct Tables {
    p0: Vec<f64>,
    p1: Vec<f64>,
    q0: Vec<f64>,
    q1: Vec<f64>,
}

impl Tables {
    /// Room for `len` cells; the table is 1 (nothing drawn). Cells are
    /// cleared as the degree grows, not here.
    fn reset(&mut self, len: usize, width: usize) {
        for v in [&mut self.p0, &mut self.p1, &mut self.q0, &mut self.q1] {
            if v.len() < len {
                v.resize(len, 0.0);
            }
        }
        self.p0[..width].fill(0.0);
        self.p1[..width].fill(0.0);
        self.p0[0] = 1.0;
    }
}

/// The top count j shared by the clusters at it, under `none` or
/// `fractional`.
struct TiedTop<'a> {
    sizes: &'a [usize],
    correct: &'a [bool],
    j: usize,
    tie: TiePolicy,
}

impl TiedTop<'_> {
    /// Adds to `acc[s]` the weighted number of ways to draw s rollouts from
    /// the clusters `big` so that the top count is j and the credit goes to
    /// a correct cluster: a table over (s, T = clusters at j), kept twice —
    /// all draws (`p0`) and the first-order part marking one correct
    /// cluster at j (`p1`, a dual number), so any number of correct
    /// clusters costs one pass.
    fn add_to(&self, big: &[usize], t: &mut Tables, acc: &mut [f64]) {
        let (j, k_max) = (self.j, acc.len() - 1);
        if let [only] = big {
            // One cluster reaches j: it wins alone with any j of its members.
            if self.correct[*only] {
                acc[j] += row(pascal(), self.sizes[*only])[j];
            }
            return;
        }
        let width = match self.tie {
            TiePolicy::None => 2,
            _ => big.len().min(k_max / j) + 1,
        };
        t.reset((k_max + 1) * width, width);
        let mut deg = 0;
        for &i in big {
            self.grow(t, i, width, deg, k_max);
            std::mem::swap(&mut t.p0, &mut t.q0);
            std::mem::swap(&mut t.p1, &mut t.q1);
            deg = (deg + j).min(k_max);
        }
        for (s, out) in acc.iter_mut().enumerate().take(deg + 1) {
            for tied in 1..width {
                let w = match self.tie {
                    TiePolicy::Fractional => 1.0 / tied as f64,
                    _ => 1.0,
                };
                *out += t.p1[s * width + tied] * w;
            }
        }
    }

    /// `q` = `p` times Σ_{t<j} C(a,t) x^t + y C(a,j) x^j for cluster i, the
    /// dual part also taking cluster i as the marked one when it is correct.
    fn grow(&self, t: &mut Tables, i: usize, width: usize, deg: usize, k_max: usize) {
        let j = self.j;
        let binom = row(pascal(), self.sizes[i]);
        let at_j = at(binom, j);
        let cells = ((deg + j).min(k_max) + 1) * width;
        t.q0[..cells].fill(0.0);
        t.q1[..cells].fill(0.0);
        for s in 0..=deg {
            for tied in 0..width {
                let (v0, v1) = (t.p0[s * width + tied], t.p1[s * width + tied]);
                if v0 == 0.0 && v1 == 0.0 {
                    continue;
                }
                for (d, &b) in binom.iter().enumerate().take(j.min(k_max - s + 1)) {
                    t.q0[(s + d) * width + tied] += v0 * b;
                    t.q1[(s + d) * width + tied] += v1 * b;
                }
                if tied + 1 < width && s + j <= k_max {
                    let cell = (s + j) * width + tied + 1;
                    t.q0[cell] += v0 * at_j;
                    t.q1[cell] += (v1 + if self.correct[i] { v0 } else { 0.0 }) * at_j;
                }
            }
        }
    }
}

/// Winning counts for `first`: per correct cluster c and winning count j,
/// over the member r of c that is c's first in the subset (the other j − 1
/// come from c's later members), every cluster that also reaches j must
/// have all j members after r's position.
fn counts_first(profile: &Profile, k_max: usize) -> Vec<f64> {
    let sizes = &profile.sizes[..];
    let mut counts = vec![0.0; k_max + 1];
    let mut bufs = (Vec::new(), Vec::new());
    let mut rivals: Vec<usize> = Vec::new();
    for c in (0..sizes.len()).filter(|&c| profile.correct[c]) {
        let before = members_before(profile, c);
        let mut joined = Joined::new(k_max);
        for j in (1..=sizes[c].min(k_max)).rev() {
            rivals.clear();
            rivals.extend((0..sizes.len()).filter(|&i| i != c && sizes[i] >= j));
            let m = profile.n - sizes[c] - rivals.iter().map(|&i| sizes[i]).sum::<usize>();
            joined.shift_to(m);
            let first = FirstWins {
                sizes,
                before: &before,
                c,
                j,
            };
            first.add_to(&rivals, &mut joined.poly, &mut bufs);
        }
        for (total, v) in counts.iter_mut().zip(joined.finish()) {
            *total += v;
        }
    }
    counts
}

/// For each member of cluster c (in order), how many members of every
/// cluster precede it: row r (`m` entries from `r·m`, m clusters) holds the
/// counts before c's r-th member.
fn members_before(profile: &Profile, c: usize) -> Vec<u16> {
    let m = profile.correct.len();
    let mut seen = vec![0u16; m];
    let mut rows = Vec::new();
    for id in profile.voters.iter().copied() {
        if id == c {
            rows.extend_from_slice(&seen);
        }
        seen[id] += 1;
    }
    rows
}

/// Cluster c winning at count j under `first`.
struct FirstWins<'a> {
    sizes: &'a [usize],
    before: &'a [u16],
    c: usize,
    j: usize,
}

impl FirstWins<'_> {
    /// Members of cluster i after c's r-th member.
    #[inline]
    fn after(&self, r: usize, i: usize) -> usize {
        self.sizes[i] - self.before[r * self.sizes.len() + i] as usize
    }

    /// What rival i's factor depends on at c's r-th member: its members
    /// after it, or none when fewer than j (it can no longer tie).
    #[inline]
    fn key(&self, r: usize, i: usize) -> usize {
        let after = self.after(r, i);
        if after >= self.j {
            after
        } else {
            0
        }
    }

    /// Adds the ways to draw c's j and the rivals' rollouts (by total) to
    /// `acc`. Consecutive members of c between which no rival that can
    /// still tie loses a member give the same product, so their weights are
    /// summed first.
    fn add_to(&self, rivals: &[usize], acc: &mut [f64], bufs: &mut (Vec<f64>, Vec<f64>)) {
        let (a_c, j) = (self.sizes[self.c], self.j);
        let t = pascal();
        if rivals.is_empty() {
            // Σ_r C(a_c − 1 − r, j − 1) = C(a_c, j): any j of c's members.
            acc[j] += row(t, a_c)[j];
            return;
        }
        let same = |r: usize, s: usize| rivals.iter().all(|&i| self.key(r, i) == self.key(s, i));
        let mut r = 0;
        while r + j <= a_c {
            let mut weight = 0.0;
            let mut end = r;
            while end + j <= a_c && same(r, end) {
                weight += row(t, a_c - 1 - end)[j - 1];
                end += 1;
            }
            let poly = self.rivals_below_or_after(r, rivals, acc.len() - 1 - j, bufs);
            for (s, v) in poly.iter().enumerate() {
                acc[s + j] += weight * v;
            }
            r = end;
        }
    }

    /// Π over rivals of (Σ_{t<j} C(a_i,t) x^t + C(after_i, j) x^j), where
    /// after_i counts rival i's members after c's r-th member; degree ≤ `top`.
    fn rivals_below_or_after<'b>(
        &self,
        r: usize,
        rivals: &[usize],
        top: usize,
        (poly, next): &'b mut (Vec<f64>, Vec<f64>),
    ) -> &'b [f64] {
        let (j, t) = (self.j, pascal());
        poly.clear();
        poly.resize(top + 1, 0.0);
        next.resize(top + 1, 0.0);
        poly[0] = 1.0;
        let mut deg = 0;
        for &i in rivals {
            let binom = row(t, self.sizes[i]);
            let tied = at(row(t, self.after(r, i)), j);
            next[..=(deg + j).min(top)].fill(0.0);
            for s in (0..=deg).filter(|&s| poly[s] != 0.0) {
                for d in 0..j.min(top - s + 1) {
                    next[s + d] += poly[s] * binom[d];
                }
                if s + j <= top {
                    next[s + j] += poly[s] * tied;
                }
            }
            std::mem::swap(poly, next);
            deg = (deg + j).min(top);
        }
        &poly[..=deg]
    }
}
