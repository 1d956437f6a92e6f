//! The metric catalogue for Python: every family's description
//! ([`metric_catalogue`]) and a report key's family ([`metric_family`]),
//! both read from `rollstat_core::catalogue` — the package builds and
//! parses no key itself.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rollstat_core::catalogue::{Compared, FamilySpec, Headline, MetricKey, Primary, CATALOGUE};

/// One family as a dict: `family` (its key grammar, `pass@{k}`), `unit`,
/// `needs` (what the rows must carry), `headline` (`always`,
/// `when_tau_asked`, `never`), `compared` (`verdict`, `row`, or `none`
/// with `not_compared_because`), `primary` (the row of compare's default
/// family: `smallest_k`, `largest_k`, or `none`), `description`.
fn family_dict<'py>(py: Python<'py>, s: &FamilySpec) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("family", s.grammar)?;
    d.set_item("unit", s.unit.name())?;
    let needs: Vec<&str> = [
        (s.needs.rollout_order, "rollout_order"),
        (s.needs.answers, "answers"),
        (s.needs.scores, "scores"),
        (s.needs.budget, "budget"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    d.set_item("needs", needs)?;
    d.set_item(
        "headline",
        match s.headline {
            Headline::Always => "always",
            Headline::WhenTauAsked => "when_tau_asked",
            Headline::Never => "never",
        },
    )?;
    let (compared, why) = match s.compared {
        Compared::WithVerdict => ("verdict", None),
        Compared::WithoutVerdict => ("row", None),
        Compared::NotCompared(why) => ("none", Some(why)),
    };
    d.set_item("compared", compared)?;
    d.set_item("not_compared_because", why)?;
    d.set_item(
        "primary",
        match s.primary {
            Primary::SmallestK => "smallest_k",
            Primary::LargestK => "largest_k",
            Primary::No => "none",
        },
    )?;
    d.set_item("description", s.description)?;
    Ok(d)
}

/// Every metric family rollstat computes, in report order.
#[pyfunction]
pub fn metric_catalogue(py: Python<'_>) -> PyResult<Vec<Bound<'_, PyDict>>> {
    CATALOGUE.iter().map(|s| family_dict(py, s)).collect()
}

/// The family (key grammar, `pass@{k}`) of a report key; `ValueError` for a
/// text that is no metric key.
#[pyfunction]
pub fn metric_family(key: &str) -> PyResult<&'static str> {
    key.parse::<MetricKey>()
        .map(|k| k.spec().grammar)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}
