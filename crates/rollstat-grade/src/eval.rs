//! Numeric evaluation of expression trees: exact (big rationals) where
//! possible, `f64` otherwise. Every node visited costs one work unit.

use std::cell::Cell;
use std::collections::{BTreeSet, HashMap};

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{One, Signed, ToPrimitive, Zero};

use crate::limits::{MAX_EXACT_BITS, MAX_EXACT_EXPONENT, MAX_WORK};
use crate::parse::{Const, Expr};

/// Work budget shared by one comparison (both directions of a clustering
/// comparison share one). Node visits cost one unit; big-number operations
/// cost in proportion to their size ([`Budget::big`]), so the units track
/// time on every path (exact, radical, numeric and point evaluation).
#[derive(Debug, Default)]
pub(crate) struct Budget {
    used: Cell<u64>,
}

/// The work budget ran out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Exhausted;

impl Budget {
    pub(crate) fn tick(&self, n: u64) -> Result<(), Exhausted> {
        let u = self.used.get() + n;
        self.used.set(u);
        if u > MAX_WORK {
            Err(Exhausted)
        } else {
            Ok(())
        }
    }

    /// Charges one big-rational operation on operands of `a` and `b` bits:
    /// (limbs_a + limbs_b)² / 8 units (normalizing a rational is a gcd,
    /// quadratic in the limbs), and fails without charging when the operands
    /// already exceed the exact-size bound, so no single operation can take
    /// long.
    pub(crate) fn big(&self, a: u64, b: u64) -> Result<(), Exhausted> {
        if a.saturating_add(b) > 2 * MAX_EXACT_BITS {
            self.used.set(MAX_WORK + 1);
            return Err(Exhausted);
        }
        let limbs = (a + b) / 64 + 2;
        self.tick(limbs * limbs / 8)
    }

    /// Charges a big-rational operation that normalizes by a gcd: num's
    /// binary gcd is quadratic in *bits* (bits × limbs steps, about 64 times
    /// a multiplication of the same size), so it costs bits·limbs / 16.
    pub(crate) fn gcd(&self, a: u64, b: u64) -> Result<(), Exhausted> {
        self.big(a, b)?;
        let bits = a + b + 64;
        self.tick(bits * (bits / 64) / 16)
    }

    /// Whether the budget ran out.
    pub(crate) fn exhausted(&self) -> bool {
        self.used.get() > MAX_WORK
    }
}

/// How `p%` evaluates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PctEval {
    /// `p% = p`
    Strip,
    /// `p% = p/100`
    Fraction,
}

pub(crate) struct Ctx<'a> {
    pub vars: &'a HashMap<String, f64>,
    pub pct: PctEval,
    pub budget: &'a Budget,
}

pub(crate) fn bits(r: &BigRational) -> u64 {
    r.numer().bits() + r.denom().bits()
}

fn rat_sqrt(r: &BigRational) -> Option<BigRational> {
    if r.is_negative() {
        return None;
    }
    let n = r.numer().sqrt();
    let d = r.denom().sqrt();
    if &(&n * &n) == r.numer() && &(&d * &d) == r.denom() {
        Some(BigRational::new(n, d))
    } else {
        None
    }
}

fn rat_pow(b: &BigRational, e: &BigRational) -> Option<BigRational> {
    if !e.is_integer() {
        // perfect-square roots: 4^{1/2}
        if e.denom() == &BigInt::from(2) {
            let s = rat_sqrt(b)?;
            return rat_pow(&s, &BigRational::from_integer(e.numer().clone()));
        }
        return None;
    }
    let ei = e.to_integer();
    let mag = ei.abs().to_u64()?;
    // 0^n, 1^n, (-1)^n are cheap for any n
    let trivial = b.is_zero() || b.abs().is_one();
    if !trivial && (mag > MAX_EXACT_EXPONENT || bits(b).saturating_mul(mag) > MAX_EXACT_BITS) {
        return None;
    }
    if b.is_zero() && ei.is_negative() {
        return None;
    }
    if b.is_zero() {
        return Some(if mag == 0 {
            BigRational::one()
        } else {
            BigRational::zero()
        });
    }
    if b.abs().is_one() {
        let odd = (&ei % BigInt::from(2)) != BigInt::zero();
        return Some(if b.is_negative() && odd {
            -BigRational::one()
        } else {
            BigRational::one()
        });
    }
    // numerator and denominator are coprime: power them separately (no gcd)
    let n = num_traits::pow(b.numer().clone(), mag as usize);
    let d = num_traits::pow(b.denom().clone(), mag as usize);
    // n and d stay coprime: no gcd (quadratic in bits) is needed
    Some(if !ei.is_negative() {
        BigRational::new_raw(n, d)
    } else if n.is_negative() {
        BigRational::new_raw(-d, -n)
    } else {
        BigRational::new_raw(d, n)
    })
}

/// `n!` for integers `n <= 2500`, charged before it is computed (about
/// `n·log2(n)` bits).
fn factorial(n: &BigRational, budget: &Budget) -> Result<Option<BigRational>, Exhausted> {
    if !n.is_integer() || n.is_negative() {
        return Ok(None);
    }
    let k = match n.to_integer().to_u64() {
        Some(k) if k <= 2500 => k,
        _ => return Ok(None),
    };
    let est_bits = k * (64 - k.leading_zeros() as u64);
    budget.big(est_bits, 0)?;
    Ok(Some(BigRational::from_integer(range_product(1, k + 1))))
}

/// Product of the integers in `[a, b)` by binary splitting (balanced
/// operands make big multiplications much faster than a running product).
fn range_product(a: u64, b: u64) -> BigInt {
    if b <= a {
        return BigInt::one();
    }
    if b - a <= 16 {
        let mut acc = BigInt::one();
        for i in a..b {
            acc *= BigInt::from(i);
        }
        return acc;
    }
    let m = a + (b - a) / 2;
    range_product(a, m) * range_product(m, b)
}

/// `a + b`, charged: integers add without a gcd.
pub(crate) fn rat_add(
    a: &BigRational,
    b: &BigRational,
    budget: &Budget,
) -> Result<BigRational, Exhausted> {
    if a.is_integer() && b.is_integer() {
        budget.big(bits(a), 0)?;
        return Ok(BigRational::from_integer(a.numer() + b.numer()));
    }
    budget.gcd(bits(a), bits(b))?;
    Ok(a + b)
}

/// `a · b`, charged: integers multiply without a gcd (num's rational
/// product takes a binary gcd with the other denominator even when it is 1,
/// quadratic in the bits).
pub(crate) fn rat_mul(
    a: &BigRational,
    b: &BigRational,
    budget: &Budget,
) -> Result<BigRational, Exhausted> {
    if a.is_integer() && b.is_integer() {
        budget.big(bits(a), bits(b))?;
        return Ok(BigRational::from_integer(a.numer() * b.numer()));
    }
    budget.gcd(bits(a), bits(b))?;
    Ok(a * b)
}

/// Exact evaluation. `Ok(None)` means "not exactly representable".
pub(crate) fn eval_exact(e: &Expr, ctx: &Ctx) -> Result<Option<BigRational>, Exhausted> {
    ctx.budget.tick(1)?;
    Ok(match e {
        Expr::Num(n) => Some(n.val.clone()),
        Expr::Add(v) => fold_exact(v, ctx, BigRational::zero(), rat_add)?,
        Expr::Mul(v) => fold_exact(v, ctx, BigRational::one(), rat_mul)?,
        Expr::Neg(a) => eval_exact(a, ctx)?.map(|x| -x),
        Expr::Div(a, b) => match (eval_exact(a, ctx)?, eval_exact(b, ctx)?) {
            (Some(x), Some(y)) if !y.is_zero() => {
                ctx.budget.gcd(bits(&x), bits(&y))?;
                Some(x / y)
            }
            _ => None,
        },
        Expr::Pow(a, b) => match (eval_exact(a, ctx)?, eval_exact(b, ctx)?) {
            (Some(x), Some(y)) => {
                let r = rat_pow(&x, &y);
                if let Some(r) = &r {
                    // big results cost work in proportion to their size
                    ctx.budget.big(bits(r), 0)?;
                }
                r
            }
            _ => None,
        },
        Expr::Percent(a) => eval_exact(a, ctx)?.map(|x| match ctx.pct {
            PctEval::Strip => x,
            PctEval::Fraction => x / BigRational::from_integer(BigInt::from(100)),
        }),
        Expr::Func(name, args) if args.len() == 1 => match eval_exact(&args[0], ctx)? {
            Some(x) => unary_exact(name, &x, ctx.budget)?,
            None => None,
        },
        Expr::Func(name, args) if name == "binom" && args.len() == 2 => {
            match (eval_exact(&args[0], ctx)?, eval_exact(&args[1], ctx)?) {
                (Some(n), Some(k)) if n.is_integer() && k.is_integer() => {
                    binom_exact(&n.to_integer(), &k.to_integer(), ctx.budget)?
                }
                _ => None,
            }
        }
        _ => None,
    })
}

/// The terms `v` combined exactly from `start` by `step` ([`rat_add`] or
/// [`rat_mul`]); `None` as soon as one term is not exact.
fn fold_exact(
    v: &[Expr],
    ctx: &Ctx,
    start: BigRational,
    step: fn(&BigRational, &BigRational, &Budget) -> Result<BigRational, Exhausted>,
) -> Result<Option<BigRational>, Exhausted> {
    let mut acc = start;
    for t in v {
        match eval_exact(t, ctx)? {
            Some(x) => acc = step(&acc, &x, ctx.budget)?,
            None => return Ok(None),
        }
    }
    Ok(Some(acc))
}

/// One-argument function `name` at the exact value `x`, where the result
/// is exact (`sqrt` only of perfect squares); `None` otherwise.
fn unary_exact(
    name: &str,
    x: &BigRational,
    budget: &Budget,
) -> Result<Option<BigRational>, Exhausted> {
    Ok(match name {
        "sqrt" => rat_sqrt(x),
        "abs" => Some(x.abs()),
        "fact" => factorial(x, budget)?,
        "floor" => Some(BigRational::from_integer(x.floor().to_integer())),
        "ceil" => Some(BigRational::from_integer(x.ceil().to_integer())),
        _ => None,
    })
}

/// `C(n, k)` exactly for integers: 0 when `k` is outside `0..=n`, computed
/// for `n ≤ 5000`, `None` beyond that (or outside i64).
fn binom_exact(n: &BigInt, k: &BigInt, budget: &Budget) -> Result<Option<BigRational>, Exhausted> {
    Ok(match (n.to_i64(), k.to_i64()) {
        (Some(n), Some(k)) if (0..=5000).contains(&n) && k >= 0 && k <= n => {
            let k = k.min(n - k);
            // k steps on a number of at most n bits
            budget.tick(k as u64 * (n as u64 / 64 + 1))?;
            let mut acc = BigInt::one();
            for i in 0..k {
                acc = acc * BigInt::from(n - i) / BigInt::from(i + 1);
            }
            Some(BigRational::from_integer(acc))
        }
        (Some(_), Some(_)) => Some(BigRational::zero()),
        _ => None,
    })
}

fn hash_str(s: &str) -> u64 {
    // FNV-1a
    let mut h: u64 = 0xcbf29ce484222325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x100000001b3);
    }
    h
}

/// Pseudo-random but deterministic value of an uninterpreted function.
fn opaque(name: &str, args: &[f64]) -> f64 {
    let mut acc = (hash_str(name) % 1000) as f64 / 997.0 + 1.0;
    for (i, a) in args.iter().enumerate() {
        acc += ((a * 1.618_033 + i as f64 * 0.7 + acc).sin() * 3.7).cos();
    }
    acc
}

fn gamma_fact(x: f64) -> f64 {
    if x < 0.0 || x.fract() != 0.0 {
        return f64::NAN;
    }
    if x > 170.0 {
        return f64::INFINITY;
    }
    let mut acc = 1.0;
    let mut i = 2.0;
    while i <= x {
        acc *= i;
        i += 1.0;
    }
    acc
}

/// Floating evaluation; NaN when undefined or not a scalar.
/// A float result of 0 from nonzero operands (`10^{-100000}`) is an
/// underflow, not a zero: NaN, so no float comparison accepts it.
fn unless_underflow(r: f64, nonzero_operands: bool) -> f64 {
    if r == 0.0 && nonzero_operands {
        f64::NAN
    } else {
        r
    }
}

pub(crate) fn eval_f64(e: &Expr, ctx: &Ctx) -> Result<f64, Exhausted> {
    ctx.budget.tick(1)?;
    Ok(match e {
        Expr::Num(n) => n.val.to_f64().unwrap_or(f64::NAN),
        Expr::Sym(s) => *ctx.vars.get(s).unwrap_or(&f64::NAN),
        Expr::Const(Const::Pi) => std::f64::consts::PI,
        Expr::Const(Const::E) => std::f64::consts::E,
        Expr::Const(Const::Inf) => f64::INFINITY,
        Expr::Add(v) => {
            let mut acc = 0.0;
            for t in v {
                acc += eval_f64(t, ctx)?;
            }
            acc
        }
        Expr::Mul(v) => {
            let mut acc = 1.0;
            let mut zero_factor = false;
            for t in v {
                let x = eval_f64(t, ctx)?;
                zero_factor |= x == 0.0;
                acc *= x;
            }
            unless_underflow(acc, !zero_factor)
        }
        Expr::Neg(a) => -eval_f64(a, ctx)?,
        Expr::Div(a, b) => {
            let (x, y) = (eval_f64(a, ctx)?, eval_f64(b, ctx)?);
            unless_underflow(x / y, x != 0.0 && y.is_finite())
        }
        Expr::Pow(a, b) => pow_f64(eval_f64(a, ctx)?, eval_f64(b, ctx)?),
        Expr::Percent(a) => {
            let x = eval_f64(a, ctx)?;
            match ctx.pct {
                PctEval::Strip => x,
                PctEval::Fraction => x / 100.0,
            }
        }
        Expr::Func(name, args) => {
            let mut xs = Vec::with_capacity(args.len());
            for a in args {
                xs.push(eval_f64(a, ctx)?);
            }
            func_f64(name, &xs)
        }
        _ => f64::NAN,
    })
}

/// `x^y` in f64: an odd root of a negative base stays real (`(-8)^{1/3}` =
/// −2), other fractional powers of negatives are NaN.
fn pow_f64(x: f64, y: f64) -> f64 {
    if x < 0.0 && y.fract() != 0.0 {
        // odd roots of negatives: (-8)^{1/3}
        let r = 1.0 / y;
        if (r - r.round()).abs() < 1e-12 && (r.round() as i64) % 2 != 0 {
            -(-x).powf(y)
        } else {
            f64::NAN
        }
    } else {
        unless_underflow(x.powf(y), x != 0.0 && x.is_finite() && y.is_finite())
    }
}

/// Function `name` applied to the evaluated arguments `xs`: the known
/// functions by their arity, an opaque `@name` (an uninterpreted function)
/// through [`opaque`], anything else NaN.
fn func_f64(name: &str, xs: &[f64]) -> f64 {
    let x = xs.first().copied().unwrap_or(f64::NAN);
    match (name, xs.len()) {
        ("sqrt", 1) => x.sqrt(),
        ("root", 2) => {
            let (n, v) = (xs[0], xs[1]);
            if v < 0.0 && n.fract() == 0.0 && (n as i64) % 2 != 0 {
                -(-v).powf(1.0 / n)
            } else {
                v.powf(1.0 / n)
            }
        }
        ("sin", 1) => x.sin(),
        ("cos", 1) => x.cos(),
        ("tan", 1) => x.tan(),
        ("sec", 1) => 1.0 / x.cos(),
        ("csc", 1) => 1.0 / x.sin(),
        ("cot", 1) => 1.0 / x.tan(),
        ("arcsin", 1) => x.asin(),
        ("arccos", 1) => x.acos(),
        ("arctan", 1) => x.atan(),
        ("sinh", 1) => x.sinh(),
        ("cosh", 1) => x.cosh(),
        ("tanh", 1) => x.tanh(),
        ("ln", 1) | ("log", 1) => x.ln(),
        ("log10", 1) => x.log10(),
        ("logb", 2) => xs[1].ln() / xs[0].ln(),
        ("exp", 1) => unless_underflow(x.exp(), x.is_finite()),
        ("abs", 1) => x.abs(),
        ("fact", 1) => gamma_fact(x),
        ("floor", 1) => x.floor(),
        ("ceil", 1) => x.ceil(),
        ("binom", 2) => {
            let (n, k) = (xs[0], xs[1]);
            gamma_fact(n) / (gamma_fact(k) * gamma_fact(n - k))
        }
        (n, _) if n.starts_with('@') => {
            if xs.iter().any(|v| v.is_nan()) {
                f64::NAN
            } else {
                opaque(n, xs)
            }
        }
        _ => f64::NAN,
    }
}

/// Free variables of an expression (symbol names).
pub(crate) fn free_symbols(e: &Expr, out: &mut BTreeSet<String>) {
    match e {
        Expr::Sym(s) => {
            out.insert(s.clone());
        }
        Expr::Num(_) | Expr::Const(_) | Expr::Text(_) => {}
        Expr::Add(v)
        | Expr::Mul(v)
        | Expr::Tuple(v)
        | Expr::Set(v)
        | Expr::List(v)
        | Expr::Union(v)
        | Expr::Ratio(v)
        | Expr::Func(_, v)
        | Expr::Rel(v, _) => v.iter().for_each(|x| free_symbols(x, out)),
        Expr::Neg(a) | Expr::Percent(a) => free_symbols(a, out),
        Expr::Div(a, b)
        | Expr::Pow(a, b)
        | Expr::PlusMinus(a, b, _)
        | Expr::Interval(a, b, _, _) => {
            free_symbols(a, out);
            free_symbols(b, out);
        }
        Expr::Matrix(rows) => rows.iter().flatten().for_each(|x| free_symbols(x, out)),
    }
}

/// Value of variable `name` at identity-test point `t`: |v| in [0.35, 2.85)
/// (away from 0 and ±1), derived from the name and `t` only, with the sign
/// alternating over `t` (4 of 8 points negative).
pub(crate) fn point_value(name: &str, t: u32) -> f64 {
    let mut x = hash_str(name) ^ (u64::from(t) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    for _ in 0..2 {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    let v = 0.35 + (x >> 11) as f64 / (1u64 << 53) as f64 * 2.5;
    if (u64::from(t) + (hash_str(name) >> 63)) % 2 == 1 {
        -v
    } else {
        v
    }
}

/// Deterministic pseudo-random sample points (xorshift).
pub(crate) struct Points {
    state: u64,
    count: u64,
}

impl Points {
    pub(crate) fn new(seed: u64) -> Self {
        Points {
            state: seed ^ 0x9E37_79B9_7F4A_7C15,
            count: 0,
        }
    }
    pub(crate) fn next_f64(&mut self) -> f64 {
        let mut x = self.state;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.state = x;
        // |v| in [0.35, 2.85): away from 0 and ±1; every other point negative
        let v = 0.35 + (x >> 11) as f64 / (1u64 << 53) as f64 * 2.5;
        self.count += 1;
        if self.count % 2 == 0 {
            -v
        } else {
            v
        }
    }
}

/// Exact value in Q(√k₁, √k₂, …): a sum Σ cₖ·√k over distinct squarefree
/// radicands k (key 1 is the rational part). Because square roots of
/// distinct squarefree integers are linearly independent over Q, this form
/// is canonical: two values are equal iff their maps are equal.
pub(crate) type Surd = std::collections::BTreeMap<u64, BigRational>;

/// Largest radicand (numerator·denominator) factored for a surd.
const MAX_RADICAND: u64 = 100_000_000;
/// Largest number of terms kept in a surd.
const MAX_SURD_TERMS: usize = 32;

fn surd_of(q: BigRational) -> Surd {
    let mut s = Surd::new();
    if !q.is_zero() {
        s.insert(1, q);
    }
    s
}

fn surd_rational(s: &Surd) -> Option<BigRational> {
    match s.len() {
        0 => Some(BigRational::zero()),
        1 => s.get(&1).cloned(),
        _ => None,
    }
}

fn gcd_u64(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn surd_add(mut a: Surd, b: &Surd, budget: &Budget) -> Result<Surd, Exhausted> {
    for (k, c) in b {
        let e = a.entry(*k).or_insert_with(BigRational::zero);
        *e = rat_add(e, c, budget)?;
        if e.is_zero() {
            a.remove(k);
        }
    }
    Ok(a)
}

fn surd_mul(a: &Surd, b: &Surd, budget: &Budget) -> Result<Option<Surd>, Exhausted> {
    let mut out = Surd::new();
    for (k1, c1) in a {
        for (k2, c2) in b {
            // √k1·√k2 = g·√((k1/g)(k2/g)) with g = gcd(k1, k2); the product
            // of the cofactors is again squarefree.
            let g = gcd_u64(*k1, *k2);
            let Some(k) = (k1 / g).checked_mul(k2 / g) else {
                return Ok(None);
            };
            let c = rat_mul(
                &rat_mul(c1, c2, budget)?,
                &BigRational::from_integer(BigInt::from(g)),
                budget,
            )?;
            let e = out.entry(k).or_insert_with(BigRational::zero);
            *e = rat_add(e, &c, budget)?;
            if e.is_zero() {
                out.remove(&k);
            }
        }
    }
    Ok((out.len() <= MAX_SURD_TERMS).then_some(out))
}

/// √q for a non-negative rational q, as s·√k / d.
fn surd_sqrt(q: &BigRational) -> Option<Surd> {
    if q.is_negative() {
        return None;
    }
    if q.is_zero() {
        return Some(Surd::new());
    }
    let m = (q.numer() * q.denom()).to_u64()?;
    if m > MAX_RADICAND {
        return None;
    }
    // m = s²·k with k squarefree (trial division; m ≤ 1e8 so p ≤ 1e4)
    let (mut rest, mut s, mut k) = (m, 1u64, 1u64);
    let mut p = 2u64;
    while p * p <= rest {
        let mut e = 0;
        while rest % p == 0 {
            rest /= p;
            e += 1;
        }
        for _ in 0..e / 2 {
            s *= p;
        }
        if e % 2 == 1 {
            k *= p;
        }
        p += if p == 2 { 1 } else { 2 };
    }
    k *= rest;
    let c = BigRational::new(BigInt::from(s), q.denom().clone());
    let mut out = Surd::new();
    out.insert(k, c);
    Some(out)
}

/// Exact evaluation in Q(√·); `Ok(None)` when not representable.
pub(crate) fn eval_surd(e: &Expr, ctx: &Ctx) -> Result<Option<Surd>, Exhausted> {
    ctx.budget.tick(1)?;
    Ok(match e {
        Expr::Num(n) => Some(surd_of(n.val.clone())),
        Expr::Add(v) => surd_sum(v, ctx)?,
        Expr::Mul(v) => surd_product(v, ctx)?,
        Expr::Neg(a) => eval_surd(a, ctx)?.map(|s| s.into_iter().map(|(k, c)| (k, -c)).collect()),
        Expr::Div(a, b) => match (eval_surd(a, ctx)?, eval_surd(b, ctx)?) {
            (Some(x), Some(y)) => surd_div(&x, &y, ctx.budget)?,
            _ => None,
        },
        Expr::Pow(a, b) => surd_pow(a, b, ctx)?,
        Expr::Percent(a) => eval_surd(a, ctx)?.map(|s| match ctx.pct {
            PctEval::Strip => s,
            PctEval::Fraction => {
                let h = BigRational::from_integer(BigInt::from(100));
                s.into_iter().map(|(k, c)| (k, c / &h)).collect()
            }
        }),
        Expr::Func(name, args) if name == "sqrt" && args.len() == 1 => {
            match eval_surd(&args[0], ctx)?.as_ref().and_then(surd_rational) {
                Some(q) => {
                    ctx.budget.tick(200)?; // trial division
                    surd_sqrt(&q)
                }
                None => None,
            }
        }
        _ => eval_exact(e, ctx)?.map(surd_of),
    })
}

/// The sum of the terms `v` in Q(√·); `None` when a term is not
/// representable or the sum has more than [`MAX_SURD_TERMS`] terms.
fn surd_sum(v: &[Expr], ctx: &Ctx) -> Result<Option<Surd>, Exhausted> {
    let mut acc = Surd::new();
    for t in v {
        match eval_surd(t, ctx)? {
            Some(x) => acc = surd_add(acc, &x, ctx.budget)?,
            None => return Ok(None),
        }
    }
    Ok((acc.len() <= MAX_SURD_TERMS).then_some(acc))
}

/// The product of the factors `v` in Q(√·); `None` when a factor or a
/// partial product is not representable.
fn surd_product(v: &[Expr], ctx: &Ctx) -> Result<Option<Surd>, Exhausted> {
    let mut acc = surd_of(BigRational::one());
    for t in v {
        let x = match eval_surd(t, ctx)? {
            Some(x) => x,
            None => return Ok(None),
        };
        ctx.budget.tick((acc.len() * x.len()) as u64)?;
        match surd_mul(&acc, &x, ctx.budget)? {
            Some(p) => acc = p,
            None => return Ok(None),
        }
    }
    Ok(Some(acc))
}

/// `x / y` for a single-term denominator `y = c·√k` (as `x · √k/(c·k)`);
/// `None` for any other denominator.
fn surd_div(x: &Surd, y: &Surd, budget: &Budget) -> Result<Option<Surd>, Exhausted> {
    if y.len() != 1 {
        return Ok(None);
    }
    let (k, c) = y
        .iter()
        .next()
        .map(|(k, c)| (*k, c.clone()))
        .unwrap_or((1, BigRational::one()));
    let mut inv = Surd::new();
    inv.insert(k, (c * BigRational::from_integer(BigInt::from(k))).recip());
    surd_mul(x, &inv, budget)
}

/// `a^b` in Q(√·) for an exact exponent: `1/2` (the square root of a
/// rational base) or an integer in `0..=32` (repeated multiplication).
fn surd_pow(a: &Expr, b: &Expr, ctx: &Ctx) -> Result<Option<Surd>, Exhausted> {
    let ex = match eval_exact(b, ctx)? {
        Some(x) => x,
        None => return Ok(None),
    };
    let base = match eval_surd(a, ctx)? {
        Some(x) => x,
        None => return Ok(None),
    };
    if ex == BigRational::new(BigInt::from(1), BigInt::from(2)) {
        return Ok(surd_rational(&base).and_then(|q| surd_sqrt(&q)));
    }
    if !ex.is_integer() {
        return Ok(None);
    }
    let n = match ex.to_integer().to_i64() {
        Some(n) if (0..=32).contains(&n) => n,
        _ => return Ok(None),
    };
    let mut acc = surd_of(BigRational::one());
    for _ in 0..n {
        ctx.budget.tick((acc.len() * base.len()) as u64 + 1)?;
        acc = match surd_mul(&acc, &base, ctx.budget)? {
            Some(p) => p,
            None => return Ok(None),
        };
    }
    Ok(Some(acc))
}
