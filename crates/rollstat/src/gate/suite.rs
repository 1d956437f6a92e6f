//! The suite: the weighted difference under the declared weights,
//! heterogeneity, the three combination tests at α/3, and both rules.

use super::bench::BenchStats;
use super::document::{
    BenchmarkRow, BenchmarkStatus, CombinedTest, Decision, RuleOutcome, SuiteHeterogeneity,
    SuiteRow, Weighting,
};
use super::plan::GatePlan;
use crate::error::{Error, Result};
use crate::findings::Finding;
use rollstat_stats::suite::{
    cochran_q, fisher_combination, max_drop_exact, max_drop_sign_flip, pooled_degradation_p,
    pooled_sign_flip, weighted_difference,
};
use rollstat_stats::{dist, Interval};

/// Sets each present benchmark's normalised weight.
pub(crate) fn set_weights(rows: &mut [BenchmarkRow], plan: &GatePlan) {
    let raw: Vec<f64> = rows
        .iter()
        .map(|r| match (r.status, plan.weights) {
            // Advisory benchmarks are shown, never counted.
            (BenchmarkStatus::Missing, _) => 0.0,
            _ if !r.tier.blocks() => 0.0,
            (_, Weighting::Micro) => r.n_problems as f64,
            (_, Weighting::Macro) => 1.0,
            (_, Weighting::Declared) => declared_weight(plan, &r.name),
        })
        .collect();
    let total: f64 = raw.iter().sum();
    for (r, w) in rows.iter_mut().zip(raw) {
        r.weight = if total > 0.0 { w / total } else { 0.0 };
    }
}

fn declared_weight(plan: &GatePlan, name: &str) -> f64 {
    plan.benchmarks
        .iter()
        .find(|b| b.name == name)
        .and_then(|b| b.weight)
        .unwrap_or(0.0)
}

/// The suite row; `stats` is index-aligned with `rows` (None when missing).
pub(crate) fn suite(
    rows: &[BenchmarkRow],
    stats: &[Option<BenchStats>],
    plan: &GatePlan,
) -> Result<(SuiteRow, Vec<Finding>)> {
    // The suite is over the blocking benchmarks with numbers.
    let present: Vec<usize> = (0..rows.len())
        .filter(|&i| stats[i].is_some() && rows[i].tier.blocks())
        .collect();
    let w: Vec<f64> = present.iter().map(|&i| rows[i].weight).collect();
    let pick = |f: &dyn Fn(&BenchmarkRow) -> f64| -> Vec<f64> {
        present.iter().map(|&i| f(&rows[i])).collect()
    };
    let (deltas, ses) = (pick(&|r| r.delta), pick(&|r| r.stderr.unwrap_or(f64::NAN)));
    let weighted = |v: &[f64]| v.iter().zip(&w).map(|(x, w)| x * w).sum::<f64>();
    let (delta, se) = if present.is_empty() {
        (f64::NAN, f64::NAN)
    } else {
        weighted_difference(&deltas, &ses, &w).map_err(|e| Error::input(e.to_string()))?
    };
    let stderr = se.is_finite().then_some(se);
    let alpha = plan.alpha;
    let (ci, drop_bounds) = match stderr {
        Some(se) => {
            let z1 = dist::normal_quantile(1.0 - alpha);
            (
                Some(Interval {
                    lower: delta - z1 * se,
                    upper: delta + z1 * se,
                }),
                // `0.0 −` keeps an exact zero from printing as −0.
                Some(Interval {
                    lower: 0.0 - delta - z1 * se,
                    upper: 0.0 - delta + z1 * se,
                }),
            )
        }
        None => (None, None),
    };
    let suite_margin = plan.suite_margin.or(plan.margin).map(|m| m.0);
    let beyond_margin = matches!((drop_bounds, suite_margin), (Some(d), Some(m)) if d.lower > m);
    let (heterogeneity, mut found) = heterogeneity(rows, &present, &deltas, &ses);
    let tests = combination_tests(&present, stats, rows, plan)?;
    let mut row = SuiteRow {
        n_benchmarks: present.len() as u64,
        n_problems: present.iter().map(|&i| rows[i].n_problems).sum(),
        a: weighted(&pick(&|r| r.a)),
        b: weighted(&pick(&|r| r.b)),
        delta,
        stderr,
        ci,
        drop_bounds,
        beyond_margin,
        heterogeneity,
        alpha_each: alpha / 3.0,
        tests,
        margin_rule: RuleOutcome {
            decision: Decision::Go,
            reasons: Vec::new(),
        },
        detect_rule: RuleOutcome {
            decision: Decision::Go,
            reasons: Vec::new(),
        },
    };
    row.margin_rule = margin_rule(rows, &row, suite_margin);
    row.detect_rule = detect_rule(&row);
    if suite_margin.is_some_and(|m| m >= 0.2) {
        found.push(Finding::LargeMargin {
            benchmark: None,
            margin: suite_margin.unwrap_or_default(),
        });
    }
    Ok((row, found))
}

fn heterogeneity(
    rows: &[BenchmarkRow],
    present: &[usize],
    deltas: &[f64],
    ses: &[f64],
) -> (Option<SuiteHeterogeneity>, Vec<Finding>) {
    let names = |pred: &dyn Fn(f64) -> bool| -> Vec<String> {
        present
            .iter()
            .filter(|&&i| pred(rows[i].delta))
            .map(|&i| rows[i].name.clone())
            .collect()
    };
    let (up, down) = (names(&|d| d > 0.0), names(&|d| d < 0.0));
    let mut found = Vec::new();
    if !up.is_empty() && !down.is_empty() {
        found.push(Finding::SignsDisagree {
            up: up.clone(),
            down: down.clone(),
        });
    }
    let h = cochran_q(deltas, ses).map(|h| SuiteHeterogeneity {
        q: h.q,
        df: h.df,
        p: h.p,
        i2: h.i2,
        up: if h.signs_disagree { up } else { Vec::new() },
        down: if h.signs_disagree { down } else { Vec::new() },
    });
    (h, found)
}

/// A combination test's method in words, statistic and one-sided p.
type Outcome = (String, f64, f64);

fn stat_err(e: rollstat_stats::StatsError) -> Error {
    Error::input(e.to_string())
}

/// Pooled, Fisher and max-drop, each at α/3: exact binomial forms when
/// every benchmark is one 0/1 outcome per problem and side, sign-flip
/// forms otherwise.
fn combination_tests(
    present: &[usize],
    stats: &[Option<BenchStats>],
    rows: &[BenchmarkRow],
    plan: &GatePlan,
) -> Result<Vec<CombinedTest>> {
    if present.is_empty() {
        return Ok(Vec::new());
    }
    let st: Vec<&BenchStats> = present
        .iter()
        .map(|&i| stats[i].as_ref().expect("present"))
        .collect();
    let counts: Option<Vec<(u64, u64)>> = st.iter().map(|s| s.discordant).collect();
    // Units scaled so that each benchmark's mean over them is its mean drop
    // per problem (cluster sums over clusters ≠ per problem otherwise).
    let scaled: Vec<Vec<f64>> = st
        .iter()
        .map(|s| {
            let k = s.drops.len() as f64 / s.n_problems.max(1) as f64;
            s.drops.iter().map(|d| d * k).collect()
        })
        .collect();
    let drops: Vec<&[f64]> = scaled.iter().map(Vec::as_slice).collect();
    let w: Vec<f64> = present.iter().map(|&i| rows[i].weight).collect();
    let ps: Vec<f64> = present
        .iter()
        .map(|&i| rows[i].test.map_or(1.0, |t| t.p))
        .collect();
    let (chi2, df, p_fisher) = fisher_combination(&ps).map_err(stat_err)?;
    let each = plan.alpha / 3.0;
    let named = [
        ("pooled", pooled(counts.as_deref(), &drops, &w, plan)?),
        ("fisher", (format!("−2 Σ ln p on {df} df"), chi2, p_fisher)),
        ("max-drop", max_drop(counts.as_deref(), &drops, plan)?),
    ];
    Ok(named
        .into_iter()
        .map(|(name, (method, statistic, p))| CombinedTest {
            name: name.into(),
            method,
            statistic: statistic + 0.0,
            p,
            rejects: p <= each,
        })
        .collect())
}

/// Discordant counts summed, one binomial test; with rollouts the
/// sign-flip test of the weighted drop.
fn pooled(
    counts: Option<&[(u64, u64)]>,
    drops: &[&[f64]],
    w: &[f64],
    plan: &GatePlan,
) -> Result<Outcome> {
    if let Some(c) = counts {
        let (b, cc) = c.iter().fold((0, 0), |(x, y), (b, c)| (x + b, y + c));
        let how = if plan.mid_p { "mid-p" } else { "exact" };
        let method = format!("{how} binomial on summed discordant problems (b = {b}, c = {cc})");
        return Ok((
            method,
            b as f64 - cc as f64,
            pooled_degradation_p(c, plan.mid_p),
        ));
    }
    let r = pooled_sign_flip(drops, w, plan.permutations, plan.seed).map_err(stat_err)?;
    let how = if r.exact { "exact" } else { "random" };
    let method = format!(
        "sign-flip ({how}, {} patterns) of the {}-weighted drop",
        r.patterns,
        plan.weights.name()
    );
    Ok((method, r.statistic, r.p))
}

/// The largest per-benchmark z: exact under the binomial nulls, or a
/// sign-flip null with rollouts.
fn max_drop(counts: Option<&[(u64, u64)]>, drops: &[&[f64]], plan: &GatePlan) -> Result<Outcome> {
    if let Some(c) = counts {
        let (z, p) = max_drop_exact(c);
        let method = "largest z = (b − c)/√(b + c), exact under the benchmarks' binomial nulls";
        return Ok((method.into(), z, p));
    }
    let (z, p, exact) =
        max_drop_sign_flip(drops, plan.permutations, plan.seed).map_err(stat_err)?;
    let how = if exact { "exact" } else { "random" };
    Ok((format!("largest z = Σd/√Σd², sign-flip null ({how})"), z, p))
}

fn pts(x: f64) -> String {
    format!("{:.2} pts", 100.0 * x)
}

/// NO-GO when a blocking benchmark is BREACH or MISSING or the suite's
/// drop is beyond the suite margin; INCONCLUSIVE when a blocking one is
/// INSUFFICIENT; else GO.
fn margin_rule(rows: &[BenchmarkRow], suite: &SuiteRow, suite_margin: Option<f64>) -> RuleOutcome {
    let mut no_go = Vec::new();
    let mut unsure = Vec::new();
    for r in rows.iter().filter(|r| r.tier.blocks()) {
        let drop = -r.delta;
        let lo = r.drop_bounds.map_or(f64::NAN, |d| d.lower);
        let hi = r.drop_bounds.map_or(f64::NAN, |d| d.upper);
        let tier = r.tier.name();
        match r.status {
            BenchmarkStatus::Breach => no_go.push(format!(
                "{} ({tier}) BREACH: drop {}, lower bound {} > margin {}",
                r.name,
                pts(drop),
                pts(lo),
                pts(r.margin.used)
            )),
            BenchmarkStatus::Missing => no_go.push(format!(
                "{} ({tier}) MISSING: no problems on one side",
                r.name
            )),
            BenchmarkStatus::Insufficient => unsure.push(format!(
                "{} ({tier}) INSUFFICIENT: drop {}, bounds [{}, {}] straddle margin {}{}",
                r.name,
                pts(drop),
                pts(lo),
                pts(hi),
                pts(r.margin.used),
                r.problems_needed
                    .map_or(String::new(), |n| format!(" (≈{n} problems needed)"))
            )),
            BenchmarkStatus::Pass => {}
        }
    }
    if suite.beyond_margin {
        let lo = suite.drop_bounds.map_or(f64::NAN, |d| d.lower);
        no_go.push(format!(
            "suite: weighted drop {}, lower bound {} > suite margin {}",
            pts(-suite.delta),
            pts(lo),
            pts(suite_margin.unwrap_or(f64::NAN))
        ));
    }
    let (decision, reasons) = if !no_go.is_empty() {
        (Decision::NoGo, no_go)
    } else if !unsure.is_empty() {
        (Decision::Inconclusive, unsure)
    } else {
        let blocking = rows.iter().filter(|r| r.tier.blocks()).count();
        (Decision::Go, vec![format!("every blocking benchmark ({blocking}) PASS: each drop's upper bound is within its margin")])
    };
    RuleOutcome { decision, reasons }
}

/// NO-GO when any combination test rejects at α/3.
fn detect_rule(suite: &SuiteRow) -> RuleOutcome {
    let rejecting: Vec<String> = suite
        .tests
        .iter()
        .filter(|t| t.rejects)
        .map(|t| {
            format!(
                "{} p = {:.3e} ≤ α/3 = {:.4}: a significant degradation",
                t.name, t.p, suite.alpha_each
            )
        })
        .collect();
    if rejecting.is_empty() {
        let ps: Vec<String> = suite
            .tests
            .iter()
            .map(|t| format!("{} p = {:.3}", t.name, t.p))
            .collect();
        RuleOutcome {
            decision: Decision::Go,
            reasons: vec![format!(
                "no combination test rejects at α/3 = {:.4} ({})",
                suite.alpha_each,
                ps.join(", ")
            )],
        }
    } else {
        RuleOutcome {
            decision: Decision::NoGo,
            reasons: rejecting,
        }
    }
}
