//! `rollstat passk N C K`: the estimators for one problem.

use crate::args::PasskArgs;
use crate::options::InputError;
use anyhow::Result;
use rollstat_core::estimators::{g_pass_at_k, mg_pass_at_k, pass_at_k, pass_pow_k};

/// Shortest round-tripping text; exponent form for small magnitudes so that
/// 5e-10 prints as `5e-10`, not `0.0000000005`.
fn num(v: f64) -> String {
    if v != 0.0 && v.abs() < 1e-4 {
        format!("{v:e}")
    } else {
        format!("{v}")
    }
}

pub fn run(a: &PasskArgs) -> Result<String> {
    let (n, c, k) = (a.n, a.c, a.k);
    if c > n {
        return Err(InputError(format!("c = {c} exceeds n = {n}")).into());
    }
    if k == 0 {
        return Err(InputError("k must be at least 1".into()).into());
    }
    if k > n {
        return Err(InputError(format!(
            "k = {k} exceeds n = {n}: pass@{k} is undefined for a problem with {n} rollouts \
             (rollstat excludes such problems instead of reporting 1.0 or 0.0)"
        ))
        .into());
    }
    let mut out = format!(
        "pass@{k} = {}\n",
        num(pass_at_k(n, c, k).expect("validated"))
    );
    if a.pow {
        out += &format!(
            "pass^{k} = {}\n",
            num(pass_pow_k(n, c, k).expect("validated"))
        );
    }
    if let Some(taus) = &a.tau {
        for t in taus {
            let tau: f64 = t
                .trim()
                .parse()
                .ok()
                .filter(|v| (0.0..=1.0).contains(v))
                .ok_or_else(|| InputError(format!("--tau: '{t}' is not a number in [0, 1]")))?;
            out += &format!(
                "g-pass@{k}_{} = {}\n",
                t.trim(),
                num(g_pass_at_k(n, c, k, tau).expect("validated"))
            );
        }
        out += &format!(
            "mg-pass@{k} = {}\n",
            num(mg_pass_at_k(n, c, k).expect("validated"))
        );
    }
    Ok(out)
}
