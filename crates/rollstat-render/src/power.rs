//! `rollstat power` output: table over the engine's [`PowerReport`].

use rollstat::{short_number as short, PowerReport, PowerRow};
use std::fmt::Write as _;

fn pts(x: Option<f64>) -> String {
    x.map_or("–".into(), |x| format!("{:.2} pts", 100.0 * x))
}

fn count(x: Option<u64>) -> String {
    x.map_or("–".into(), |x| x.to_string())
}

fn table(rows: &[Vec<String>], out: &mut String) {
    crate::table(rows, crate::Style::Terminal, out);
}

/// The power analysis as a terminal table.
pub fn render(p: &PowerReport) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "rollstat power ({}): two-sided α = {}, power = {}, (z_α/2 + z_β)² = {:.4}",
        p.source,
        short(p.alpha),
        short(p.power),
        p.z2
    );
    for r in &p.rows {
        out.push('\n');
        row(r, &mut out);
    }
    if !p.assumptions.is_empty() {
        out.push('\n');
        let _ = writeln!(out, "assumptions");
        for n in &p.assumptions {
            let _ = writeln!(out, "  - {n}");
        }
    }
    out
}

/// One metric's block: its variance, MDE, problems needed and the trade-off table.
fn row(r: &PowerRow, out: &mut String) {
    if let Some(m) = &r.metric {
        let _ = writeln!(out, "{m}");
    }
    let _ = writeln!(
        out,
        "  per-problem variance of B − A: ω² {} + σ_A²/K {} + σ_B²/K {} = {} (K = {} rollouts)",
        short(r.omega2),
        short(r.sigma2_a / r.rollouts),
        short(r.sigma2_b / r.rollouts),
        short(r.variance),
        short(r.rollouts)
    );
    if let (Some(n), Some(m)) = (r.problems, r.mde) {
        let _ = writeln!(
            out,
            "  minimum detectable effect with {} problems: {}",
            short(n),
            pts(Some(m))
        );
    }
    if let (Some(d), Some(need), Some(x)) = (r.delta, r.problems_needed, r.problems_needed_exact) {
        let _ = writeln!(
            out,
            "  problems needed for δ = {}: {need} ({:.3})",
            pts(Some(d.abs())),
            x
        );
    }
    // Without a problem count, the table only says something when more rollouts
    // would shrink the variance (there is rollout noise to average away).
    let informative = r.problems.is_some() || (r.rollouts_scale && r.variance > r.omega2);
    if !r.tradeoff.is_empty() && informative {
        let _ = writeln!(
            out,
            "  more rollouts vs more problems (same multiplier of rollouts run):"
        );
        table(&tradeoff_rows(r), out);
    }
}

/// The rollouts-vs-problems table: the current design (×1), each factor, and
/// (when rollouts scale) the limit of infinitely many rollouts.
fn tradeoff_rows(r: &PowerRow) -> Vec<Vec<String>> {
    let mut t = vec![vec![
        "×".to_string(),
        "rollouts".into(),
        "MDE, ×rollouts".into(),
        "problems".into(),
        "MDE, ×problems".into(),
        "problems needed, ×rollouts".into(),
    ]];
    t.push(vec![
        "1".into(),
        short(r.rollouts),
        pts(r.mde),
        r.problems.map_or("–".into(), short),
        pts(r.mde),
        count(r.problems_needed),
    ]);
    for x in &r.tradeoff {
        t.push(vec![
            short(x.factor),
            if r.rollouts_scale {
                short(r.rollouts * x.factor)
            } else {
                "–".into()
            },
            pts(x.mde_more_rollouts),
            r.problems.map_or("–".into(), |n| short(n * x.factor)),
            pts(x.mde_more_problems),
            count(x.problems_needed_more_rollouts),
        ]);
    }
    if r.rollouts_scale {
        t.push(vec![
            "∞".into(),
            "∞".into(),
            pts(r.mde_infinite_rollouts),
            "–".into(),
            "–".into(),
            count(r.problems_needed_infinite_rollouts),
        ]);
    }
    t
}
