//! The pages and tables of `rollstat-render` for the Python package: the
//! typed report, comparison or gate is kept beside its JSON; `Report.to_html()` /
//! `_repr_html_()` render its HTML page and `print(report)` its text table
//! with the renderers the command uses, findings and options worded with
//! the keyword arguments.

use crate::wording::{engine_error, finding_text};
use pyo3::prelude::*;
use rollstat_render::{markup, Style, View, Words};

/// The package's words: options are keyword arguments.
const WORDS: Words = Words {
    finding: finding_text,
    all: "all=True",
    tau: "tau=",
    budget: None,
    fail_on: "fail_on=",
};

/// A finished report, typed (what `report.json` is the text of).
#[pyclass(frozen, module = "rollstat._rollstat")]
pub struct TypedReport(pub rollstat::Report);

#[pymethods]
impl TypedReport {
    /// A report read back from report.json's text (findings stay as worded
    /// there).
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        serde_json::from_str(text)
            .map(TypedReport)
            .map_err(|e| engine_error(rollstat::Error::Input(format!("report.json: {e}"))))
    }

    /// The HTML page the command writes with `--format html` (`all`: every
    /// metric in the tables; `tau_asked`: G-Pass rows shown).
    #[pyo3(signature = (*, all, tau_asked))]
    fn html(&self, py: Python<'_>, all: bool, tau_asked: bool) -> String {
        let view = View { all, tau_asked };
        py.detach(|| rollstat_render::html::render(&self.0, view, &WORDS))
    }

    /// The text table the command prints (`rollstat report`, the terminal
    /// table), options named as keyword arguments.
    #[pyo3(signature = (*, all, tau_asked))]
    fn text(&self, all: bool, tau_asked: bool) -> String {
        let view = View { all, tau_asked };
        markup::render(&self.0, Style::Terminal, view, &WORDS)
    }
}

/// A finished comparison, typed (what `compare.json` is the text of).
#[pyclass(frozen, module = "rollstat._rollstat")]
pub struct TypedComparison(pub rollstat::Comparison);

#[pymethods]
impl TypedComparison {
    /// A comparison read back from compare.json's text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        serde_json::from_str(text)
            .map(TypedComparison)
            .map_err(|e| engine_error(rollstat::Error::Input(format!("compare.json: {e}"))))
    }

    /// The HTML page the command writes with `compare --format html`
    /// (`all`: every row in the tables; `tau_asked`: G-Pass rows shown).
    #[pyo3(signature = (*, all, tau_asked))]
    fn html(&self, py: Python<'_>, all: bool, tau_asked: bool) -> String {
        let view = View { all, tau_asked };
        py.detach(|| rollstat_render::compare_html(&self.0, &WORDS, view))
    }

    /// The text table `rollstat compare` prints (the headline rows unless
    /// `all`).
    #[pyo3(signature = (*, all, tau_asked))]
    fn text(&self, all: bool, tau_asked: bool) -> String {
        let view = View { all, tau_asked };
        rollstat_render::compare::render_text(&self.0, false, &WORDS, view)
    }
}

/// A finished gate, typed (what `gate.json` is the text of).
#[pyclass(frozen, module = "rollstat._rollstat")]
pub struct TypedGate(pub rollstat::Gate);

#[pymethods]
impl TypedGate {
    /// A gate read back from gate.json's text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        serde_json::from_str(text)
            .map(TypedGate)
            .map_err(|e| engine_error(rollstat::Error::Input(format!("gate.json: {e}"))))
    }

    /// The exit code of its verdict: 0 GO, 1 NO-GO, 3 INCONCLUSIVE.
    fn exit_code(&self) -> i32 {
        self.0.exit_code()
    }

    /// The HTML page `rollstat gate --format html` writes (forest plot,
    /// flips, flipped problems).
    fn html(&self, py: Python<'_>) -> String {
        py.detach(|| rollstat_render::html_gate::render(&self.0, &WORDS))
    }

    /// The text `rollstat gate` prints (`markdown`: the pull-request
    /// comment of `--format markdown`).
    #[pyo3(signature = (*, markdown=false))]
    fn text(&self, markdown: bool) -> String {
        rollstat_render::gate::render_text(&self.0, markdown, &WORDS)
    }
}

/// A finished ranking, typed (what `rank.json` is the text of).
#[pyclass(frozen, module = "rollstat._rollstat")]
pub struct TypedRanking(pub rollstat::rank::Ranking);

#[pymethods]
impl TypedRanking {
    /// A ranking read back from rank.json's text.
    #[staticmethod]
    fn from_json(text: &str) -> PyResult<Self> {
        serde_json::from_str(text)
            .map(TypedRanking)
            .map_err(|e| engine_error(rollstat::Error::Input(format!("rank.json: {e}"))))
    }

    /// The HTML page `rollstat rank --format html` writes.
    fn html(&self, py: Python<'_>) -> String {
        py.detach(|| rollstat_render::rank_html(&self.0, &WORDS))
    }

    /// The text `rollstat rank` prints (`markdown`: `--format markdown`).
    #[pyo3(signature = (*, markdown=false))]
    fn text(&self, markdown: bool) -> String {
        rollstat_render::rank::render_text(&self.0, markdown, &WORDS)
    }
}

/// `power_text(power_json) -> str`: the text table `rollstat power` prints
/// for a power.json's text.
#[pyfunction]
pub fn power_text(json: &str) -> PyResult<String> {
    let p: rollstat::PowerReport = serde_json::from_str(json)
        .map_err(|e| engine_error(rollstat::Error::Input(format!("power.json: {e}"))))?;
    Ok(rollstat_render::power::render(&p))
}
