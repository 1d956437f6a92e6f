"""The documents rollstat returns: Report (report.json), Comparison
(compare.json) and PowerReport (power.json), each a thin, read-only view
over the engine's JSON with tables for pandas, polars and Arrow. Printed,
each is the text table the command prints (the engine's renderer)."""

from __future__ import annotations

import copy
import html
import json
from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence

from . import _rollstat
from ._errors import MetricNotFound

METRIC_COLUMNS = (
    "metric",
    "group",
    "value",
    "stderr",
    "ci_low",
    "ci_high",
    "method",
    "level",
    "n_problems",
    "n_excluded",
    "k",
    "unit",
    "family",
)

COMPARE_COLUMNS = (
    "metric",
    "group",
    "a",
    "b",
    "delta",
    "stderr",
    "ci_low",
    "ci_high",
    "correlation",
    "p_value",
    "p_holm",
    "p_bh",
    "mcnemar_p",
    "verdict",
    "n_problems",
    "in_family",
)


class BadRow(NamedTuple):
    """A malformed row skipped in lenient mode: where (``path:line``, or
    ``data[i]`` for in-memory rows) and why."""

    location: str
    reason: str

    def __str__(self) -> str:
        return f"{self.location}: {self.reason}"


# Columns of whole numbers that may be missing: nullable Int64 in pandas
# (not float64 with NaN), so `k` is an integer in every table.
_NULLABLE_INTS = {"k", "n_problems", "n_excluded", "problems_needed", "problems_needed_infinite_rollouts"}
# Text columns that may be missing: None in pandas (not NaN), as in polars,
# Arrow and the rows themselves.
_NULLABLE_TEXT = {"group", "verdict", "method", "unit"}


def _need(module: str, extra: str) -> Any:
    """``import module``, or an ImportError naming the extra that installs it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise ImportError(f"this table needs {module}: pip install 'rollstat[{extra}]' ({e})") from None


def _frame(rows: List[Dict[str, Any]], columns: Sequence[str], kind: str) -> Any:
    if kind == "pandas":
        pd = _need("pandas", "pandas")

        df = pd.DataFrame.from_records(rows, columns=list(columns))
        for c in columns:
            if c in _NULLABLE_INTS:
                df[c] = pd.array([r.get(c) for r in rows], dtype="Int64")
            elif c in _NULLABLE_TEXT:
                df[c] = pd.Series([r.get(c) for r in rows], dtype=object, index=df.index)
        return df
    if kind == "polars":
        pl = _need("polars", "polars")

        return pl.DataFrame({c: [r[c] for r in rows] for c in columns}, strict=False)
    pa = _need("pyarrow", "pandas")
    return pa.Table.from_pylist(rows) if rows else pa.table({c: pa.array([], pa.null()) for c in columns})


def _write_page(page: str, path: Optional[str]) -> str:
    if path is not None:
        with open(path, "w", encoding="utf-8", newline="") as f:
            f.write(page)
    return page


# In a notebook the page is an iframe's srcdoc, whose base URL is the
# notebook's: a plain `href="#metrics"` resolves to the notebook's own URL
# and loads the notebook page into the output frame. With the frame's
# document as base (`about:srcdoc`), `#metrics` is a fragment of the frame's
# own URL, which the browser scrolls to without loading anything; no script
# is needed (notebooks strip scripts from untrusted outputs).
_SRCDOC_BASE = '<base href="about:srcdoc">'


def _in_page_links(page: str) -> str:
    """The page with ``<base href="about:srcdoc">`` first in its head, so
    its in-page links scroll within the notebook's frame."""
    at = page.find("<head>")
    if at < 0:
        return _SRCDOC_BASE + page
    at += len("<head>")
    return page[:at] + _SRCDOC_BASE + page[at:]


def _notebook_frame(page: str, title: str) -> str:
    # The page in an iframe: its stylesheet (body, table, :root colours)
    # stays out of the notebook's and the notebook's out of it; in-page
    # links scroll within the frame (_SRCDOC_BASE).
    page = _in_page_links(page)
    return (
        f'<iframe title="{html.escape(title)}" srcdoc="{html.escape(page, quote=True)}" '
        'style="width:100%;height:720px;border:1px solid #8884;border-radius:6px"></iframe>'
    )


class Metrics(Mapping):
    """The metrics of a report: a read-only mapping of metric name → entry
    (the ``metrics`` object of report.json, overall, followed by the
    extrapolated ``pass@K_fit`` values of its ``extrapolation`` block, which
    carry ``"extrapolated": True``), and tables with one row per metric and
    group (overall rows have ``group`` None; in pandas ``group`` is None,
    not NaN, and ``k`` is a nullable ``Int64``). A missing name raises
    :class:`rollstat.MetricNotFound`, a KeyError naming the ones there are."""

    def __init__(self, doc: Dict[str, Any]):
        self._doc = doc

    def _all(self) -> Dict[str, Dict[str, Any]]:
        """The overall metrics, then the extrapolated ``pass@K_fit`` values
        (``extrapolate=``) as entries of the same shape."""
        return {**self._doc["metrics"], **_extrapolated(self._doc)}

    def __getitem__(self, name: str) -> Dict[str, Any]:
        entry = self._doc["metrics"].get(name)
        if entry is not None:
            return entry
        entries = self._all()
        try:
            return entries[name]
        except KeyError:
            raise MetricNotFound(name, entries) from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __repr__(self) -> str:
        return f"Metrics({list(self)})"

    def rows(self) -> List[Dict[str, Any]]:
        """One flat dict per metric (overall, then each group's): metric,
        group, value, stderr, ci_low, ci_high, method, level, n_problems,
        n_excluded, k, unit, family (the metric's family in
        :func:`rollstat.metric_catalogue`, e.g. ``pass@{k}``)."""
        out: List[Dict[str, Any]] = []
        blocks = [(None, self._all())] + [
            (g, b["metrics"]) for g, b in self._doc.get("groups", {}).items()
        ]
        for group, metrics in blocks:
            for name, e in metrics.items():
                ci = e.get("ci")
                out.append(
                    {
                        "metric": name,
                        "group": group,
                        "value": e["value"],
                        "stderr": e.get("stderr"),
                        "ci_low": ci[0] if ci else None,
                        "ci_high": ci[1] if ci else None,
                        "method": e.get("method"),
                        "level": e.get("level"),
                        "n_problems": e["n_problems"],
                        "n_excluded": e["n_excluded"],
                        "k": e.get("k"),
                        "unit": e.get("unit"),
                        "family": _rollstat.metric_family(name),
                    }
                )
        return out

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (needs pandas)."""
        return _frame(self.rows(), METRIC_COLUMNS, "pandas")

    def to_polars(self) -> Any:
        """The rows as a polars DataFrame (needs polars)."""
        return _frame(self.rows(), METRIC_COLUMNS, "polars")

    def to_arrow(self) -> Any:
        """The rows as a pyarrow Table (needs pyarrow)."""
        return _frame(self.rows(), METRIC_COLUMNS, "arrow")


def _extrapolated(doc: Dict[str, Any]) -> Dict[str, Dict[str, Any]]:
    """The ``extrapolation`` block's ``pass@K_fit`` values as metric entries
    (value, stderr, ci, method, level, k; n_problems of the fit, none
    excluded; unit fraction), so ``metrics`` and the tables hold them."""
    fit = doc.get("extrapolation") or {}
    out = {}
    for name, v in (fit.get("values") or {}).items():
        out[name] = {
            **v,
            "n_problems": fit.get("n_problems", 0),
            "n_excluded": 0,
            "unit": "fraction",
            "extrapolated": True,
        }
    return out


class _Document:
    """A JSON document with ``to_dict()`` / ``to_json()``."""

    def __init__(self, json_text: str):
        self._json = json_text
        self._doc: Dict[str, Any] = json.loads(json_text)

    def to_dict(self) -> Dict[str, Any]:
        """The document as a dict: exactly the keys of its JSON (a copy)."""
        return copy.deepcopy(self._doc)

    def to_json(self) -> str:
        """The JSON text, as the engine wrote it (pretty, final newline)."""
        return self._json

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and other._doc == self._doc  # type: ignore[attr-defined]

    def __getstate__(self) -> Dict[str, Any]:
        # The typed document (for to_html) lives in the extension and does
        # not pickle; a copy renders from its JSON instead (a Comparison
        # read back so has no per-problem values, so no scatter).
        state = dict(self.__dict__)
        if "_typed" in state:
            state["_typed"] = None
        return state

    __hash__ = None  # type: ignore[assignment]


class Report(_Document):
    """A rollstat report: every metric with its interval, the health
    accounting and findings, per-group breakdowns (report.json,
    schema ``rollstat.report/1``)."""

    def __init__(
        self,
        json_text: str,
        bad_rows: Sequence[BadRow] = (),
        *,
        typed: Any = None,
        tau_asked: bool = False,
    ):
        super().__init__(json_text)
        self._typed = typed
        self._tau_asked = tau_asked
        self.bad_rows: List[BadRow] = list(bad_rows)
        """Malformed rows skipped in lenient mode (not part of report.json)."""
        self.metrics = Metrics(self._doc)
        """Metric name → entry; ``.rows()``, ``.to_pandas()``, ``.to_polars()``, ``.to_arrow()``."""

    @property
    def health(self) -> Dict[str, Any]:
        """The accounting of the whole input (problems, rollouts, short,
        unextracted, truncated, failed, bad rows, …) and its ``warnings``."""
        return self._doc["health"]

    @property
    def warnings(self) -> List[str]:
        """Findings about the whole input, in words (``health['warnings']``)."""
        return self._doc["health"]["warnings"]

    @property
    def not_computable(self) -> Dict[str, str]:
        """Metric name → why no problem had a value."""
        return self._doc["not_computable"]

    @property
    def groups(self) -> Dict[str, Any]:
        """With ``by=``: group value → {health, metrics, not_computable}."""
        return self._doc["groups"]

    @property
    def config(self) -> Dict[str, Any]:
        """What produced the numbers (k, tau, n, ci, policies)."""
        return self._doc["config"]

    @property
    def inputs(self) -> List[Dict[str, Any]]:
        """One entry per input read: path, format, sha256, records."""
        return self._doc["inputs"]

    @property
    def per_problem(self) -> Optional[List[Dict[str, Any]]]:
        """Every problem's values (with ``per_problem=True``), else None."""
        return self._doc.get("per_problem")

    @property
    def reliability(self) -> Optional["Reliability"]:
        """Run-to-run reliability (per-run pass@1, verdict flips, ICC, the
        noise floor, flaky problems) when problems have two or more trials,
        else None; tables as DataFrames (see :class:`Reliability`)."""
        block = self._doc.get("reliability")
        return None if block is None else Reliability(block)

    def metrics_frame(self) -> Any:
        """One row per metric and group as a pandas DataFrame (value,
        stderr, ci_low, ci_high, method, n_problems, n_excluded, …)."""
        return self.metrics.to_pandas()

    to_pandas = metrics_frame

    def _typed_report(self) -> Any:
        if self._typed is None:
            self._typed = _rollstat.TypedReport.from_json(self._json)
        return self._typed

    def __repr__(self) -> str:
        """The text table ``rollstat report`` prints for the same rows (the
        same renderer; options named as keyword arguments)."""
        return self._typed_report().text(all=False, tau_asked=self._tau_asked).rstrip("\n")

    def to_html(self, path: Optional[str] = None, *, all: bool = False) -> str:
        """The HTML page ``rollstat report --format html`` writes for the
        same rows (the same renderer; findings in the keyword arguments'
        words): one self-contained file, inline CSS and SVG, no script.
        ``all=True`` puts every metric in the tables. Writes the page to
        ``path`` when given; returns it either way."""
        page = self._typed_report().html(all=bool(all), tau_asked=self._tau_asked)
        return _write_page(page, path)

    def _repr_html_(self) -> str:
        return _notebook_frame(self.to_html(), "rollstat report")


RUN_COLUMNS = ("run", "pass_at_1")
FLAKY_COLUMNS = ("problem", "c", "n", "flip_rate")
FLOOR_COLUMNS = ("runs_per_side", "floor")
LEVER_COLUMNS = ("change", "se", "half_width")
FLIP_COLUMNS = ("correct", "problems")


class Reliability(Mapping):
    """The ``reliability`` block of report.json: a read-only mapping of its
    fields, and its tables as DataFrames (``kind``: ``"pandas"``, the
    default, ``"polars"`` or ``"arrow"``)."""

    def __init__(self, block: Dict[str, Any]):
        self._block = block

    def __getitem__(self, name: str) -> Any:
        return self._block[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._block)

    def __len__(self) -> int:
        return len(self._block)

    def __repr__(self) -> str:
        f = self._block["flips"]
        return (
            f"Reliability({self._block['n_problems']} problems × {self._block['n_trials']} trials, "
            f"{f['n_flipping']} flip, ICC(1) {(self._block.get('icc') or {}).get('icc1')})"
        )

    def runs(self, kind: str = "pandas") -> Any:
        """One row per run: ``run``, ``pass_at_1`` (over the shared problems)."""
        return _frame([dict(r) for r in self._block["runs"]], RUN_COLUMNS, kind)

    def flaky(self, kind: str = "pandas") -> Any:
        """The problems with 0 < c < n, most unstable first: ``problem``,
        ``c``, ``n``, ``flip_rate`` (2c(n − c)/(n(n − 1)))."""
        return _frame([dict(r) for r in self._block["flaky"]], FLAKY_COLUMNS, kind)

    def flips(self, kind: str = "pandas") -> Any:
        """Problems by correct trials: ``correct`` (c = 0 … n), ``problems``
        (c = 0 and c = n never flip)."""
        rows = [{"correct": c, "problems": count} for c, count in enumerate(self._block["flips"]["by_correct"])]
        return _frame(rows, FLIP_COLUMNS, kind)

    def noise_floor(self, kind: str = "pandas") -> Any:
        """How far apart two scores must be to exceed trial noise at the
        report's level: ``runs_per_side`` (1 = two single runs), ``floor``."""
        nf = self._block["noise_floor"]
        rows = [{"runs_per_side": 1, "floor": nf["single_run"]}]
        rows += [{"runs_per_side": m, "floor": v} for m, v in nf["means"]]
        return _frame(rows, FLOOR_COLUMNS, kind)

    def levers(self, kind: str = "pandas") -> Any:
        """pass@1's projected stderr and half-width with one more run,
        twice the runs, twice the problems."""
        return _frame([dict(r) for r in self._block["levers"]], LEVER_COLUMNS, kind)


class Comparison(_Document):
    """A paired comparison of system A (baseline) and B (candidate) on the
    problems both have (compare.json, schema ``rollstat.compare/1``)."""

    def __init__(self, json_text: str, *, typed: Any = None, all: bool = False, tau_asked: bool = False):
        super().__init__(json_text)
        self._typed = typed
        self._all = all
        self._tau_asked = tau_asked

    @property
    def rows(self) -> List[Dict[str, Any]]:
        """One dict per metric overall (``group`` None), then per group and
        metric: a, b, delta = b − a, stderr, ci, p values, verdict, …"""
        return self._doc["rows"]

    @property
    def verdicts(self) -> Dict[str, Optional[str]]:
        """Metric → non-inferiority verdict of its overall same-k row
        (``non-inferior``, ``inferior``, ``inconclusive``; None without a
        ``margin``): A and B both at k draws. With ``budget=`` the
        budget-matched rows of the same metric are in
        :attr:`budget_verdicts`; group rows carry theirs in ``rows``."""
        return {
            r["metric"]: r.get("verdict")
            for r in self.rows
            if r.get("group") is None and r.get("budget_matched") is None
        }

    @property
    def budget_verdicts(self) -> Dict[str, Optional[str]]:
        """With ``budget=``: metric → verdict of its overall budget-matched
        row (A evaluated at the budget B spends at k; the row's
        ``budget_matched`` says at which ``k_a``); empty without budgets."""
        return {
            r["metric"]: r.get("verdict")
            for r in self.rows
            if r.get("group") is None and r.get("budget_matched") is not None
        }

    @property
    def fail(self) -> Optional[Dict[str, Any]]:
        """The verdict check asked for with ``fail_on``, or None."""
        return self._doc.get("fail")

    @property
    def failed(self) -> bool:
        """Whether the ``fail_on`` check failed (False without one)."""
        return bool(self.fail and self.fail.get("failed"))

    @property
    def pairs(self) -> Dict[str, int]:
        """How problems paired up: matched, only_a, only_b."""
        return self._doc["pairs"]

    @property
    def warnings(self) -> List[str]:
        """Findings, in words."""
        return self._doc["warnings"]

    @property
    def not_computable(self) -> List[Dict[str, Any]]:
        """Metrics (per group) without a row, and why."""
        return self._doc["not_computable"]

    @property
    def config(self) -> Dict[str, Any]:
        """Settings behind the numbers."""
        return self._doc["config"]

    @property
    def a(self) -> Dict[str, Any]:
        """System A: name, inputs, n_problems, n_grading_undecided."""
        return self._doc["a"]

    @property
    def b(self) -> Dict[str, Any]:
        """System B: name, inputs, n_problems, n_grading_undecided."""
        return self._doc["b"]

    @property
    def summary(self) -> Optional[Dict[str, Any]]:
        """The family of primary metrics in numbers: ``family`` (its rows),
        ``default_family``, ``primary`` (the headline row), ``alpha``,
        ``significant_holm``, ``significant_bh``, ``verdicts`` (counts, or
        None without a margin); None in a document written before it."""
        return self._doc.get("summary")

    @property
    def noise(self) -> Optional[Dict[str, Any]]:
        """Run-to-run noise of the two sides on the matched problems with
        two or more rollouts a side: ``floor_a``, ``floor_b`` (how often two
        of a side's own rollouts disagree), ``floor_difference`` (B − A) with
        its sign-flip ``p_value`` and ``exact``, ``icc_a``, ``icc_b``,
        ``flip_rate`` (A vs B) and ``excess`` (beyond the mean floor),
        ``n_problems``; None without such problems (docs/compare.md)."""
        return self._doc.get("noise")

    @property
    def family(self) -> List[str]:
        """The overall rows ``p_holm`` and ``p_bh`` adjust over."""
        return [r["metric"] for r in self.rows if r.get("in_family")]

    def table(self) -> List[Dict[str, Any]]:
        """The rows flattened (``ci`` → ci_low, ci_high) to COMPARE_COLUMNS."""
        out = []
        for r in self.rows:
            ci = r.get("ci")
            flat = {c: r.get(c) for c in COMPARE_COLUMNS}
            flat["ci_low"], flat["ci_high"] = (ci[0], ci[1]) if ci else (None, None)
            out.append(flat)
        return out

    def to_pandas(self) -> Any:
        """The rows as a pandas DataFrame (needs pandas)."""
        return _frame(self.table(), COMPARE_COLUMNS, "pandas")

    def to_polars(self) -> Any:
        """The rows as a polars DataFrame (needs polars)."""
        return _frame(self.table(), COMPARE_COLUMNS, "polars")

    def to_arrow(self) -> Any:
        """The rows as a pyarrow Table (needs pyarrow)."""
        return _frame(self.table(), COMPARE_COLUMNS, "arrow")

    def _typed_comparison(self) -> Any:
        if self._typed is None:
            self._typed = _rollstat.TypedComparison.from_json(self._json)
        return self._typed

    def __repr__(self) -> str:
        """The text table ``rollstat compare`` prints for the same rows (the
        same renderer)."""
        return self._typed_comparison().text(all=self._all, tau_asked=self._tau_asked).rstrip("\n")

    def to_html(self, path: Optional[str] = None, *, all: Optional[bool] = None) -> str:
        """The HTML page ``rollstat compare --format html`` writes for the
        same rows (the same renderer; findings in the keyword arguments'
        words). ``all=True`` puts every row in the tables (default: as
        :func:`compare` was called). Writes the page to ``path`` when given;
        returns it either way."""
        every = self._all if all is None else bool(all)
        return _write_page(self._typed_comparison().html(all=every, tau_asked=self._tau_asked), path)

    def _repr_html_(self) -> str:
        return _notebook_frame(self.to_html(), "rollstat compare")


class PowerReport(_Document):
    """Minimum detectable effect and problems needed for a paired comparison
    (power.json, schema ``rollstat.power/1``)."""

    @property
    def rows(self) -> List[Dict[str, Any]]:
        """One dict for the given parameters, or one per report metric."""
        return self._doc["rows"]

    @property
    def assumptions(self) -> List[str]:
        """What was assumed, in words."""
        return self._doc["assumptions"]

    def to_pandas(self) -> Any:
        """The rows (without the trade-off tables) as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame.from_records([{k: v for k, v in r.items() if k != "tradeoff"} for r in self.rows])

    def __repr__(self) -> str:
        """The text table ``rollstat power`` prints for the same numbers."""
        return _rollstat.power_text(self._json).rstrip("\n")


GATE_COLUMNS = (
    "name",
    "tier",
    "status",
    "n_problems",
    "a",
    "b",
    "delta",
    "ci_low",
    "ci_high",
    "drop_lower",
    "drop_upper",
    "margin",
    "p",
    "test",
    "flips_b",
    "flips_c",
    "flip_rate",
    "floor",
    "excess",
    "excess_p",
    "problems_needed",
    "weight",
)

FLIPPED_COLUMNS = (
    "benchmark",
    "problem",
    "drop",
    "a_c",
    "a_n",
    "b_c",
    "b_n",
    "a_answers",
    "b_answers",
)


def _pair(x: Optional[Sequence[float]]) -> Any:
    return (x[0], x[1]) if x else (None, None)


def _gate_row(r: Dict[str, Any]) -> Dict[str, Any]:
    test = r.get("test") or {}
    flips = r.get("flips") or {}
    ci_low, ci_high = _pair(r.get("ci"))
    drop_lower, drop_upper = _pair(r.get("drop_bounds"))
    return {
        "name": r["name"],
        "tier": r["tier"],
        "status": r["status"],
        "n_problems": r["n_problems"],
        "a": r["a"],
        "b": r["b"],
        "delta": r["delta"],
        "ci_low": ci_low,
        "ci_high": ci_high,
        "drop_lower": drop_lower,
        "drop_upper": drop_upper,
        "margin": r["margin"]["used"],
        "p": test.get("p"),
        "test": test.get("method"),
        "flips_b": flips.get("a_only"),
        "flips_c": flips.get("b_only"),
        "flip_rate": flips.get("rate"),
        "floor": flips.get("floor"),
        "excess": flips.get("excess"),
        "excess_p": flips.get("excess_p"),
        "problems_needed": r.get("problems_needed"),
        "weight": r["weight"],
    }


class Gate(_Document):
    """One release decision over a suite of benchmarks, baseline A against
    candidate B (gate.json, schema ``rollstat.gate/1``): the verdict
    (``GO``, ``NO-GO`` or ``INCONCLUSIVE``), one row per benchmark, the
    suite row with its combination tests and both rules, the plan as run
    and the findings. Printed, the text ``rollstat gate`` prints."""

    def __init__(self, json_text: str, *, typed: Any = None):
        super().__init__(json_text)
        self._typed = typed

    @property
    def verdict(self) -> str:
        """``GO``, ``NO-GO`` or ``INCONCLUSIVE``, under the plan's rule."""
        return self._doc["verdict"]

    @property
    def exit_code(self) -> int:
        """The command's exit code for the verdict: 0 GO, 1 NO-GO, 3
        INCONCLUSIVE (``sys.exit(g.exit_code)`` gates a CI step)."""
        return self._typed_gate().exit_code()

    @property
    def benchmarks(self) -> List[Dict[str, Any]]:
        """One dict per benchmark, in the plan's (or discovery) order: name,
        tier, weight, status, margin, n_problems, a, b, delta, ci,
        drop_bounds, test, flips, problems_needed, flipped, …"""
        return self._doc["benchmarks"]

    @property
    def suite(self) -> Dict[str, Any]:
        """The suite row: weighted a, b, delta with its interval,
        heterogeneity, the pooled / Fisher / max-drop tests and both rules'
        decisions with their reasons."""
        return self._doc["suite"]

    @property
    def findings(self) -> List[Dict[str, Any]]:
        """Findings, typed (``kind``, its fields, ``text``)."""
        return self._doc["findings"]

    @property
    def warnings(self) -> List[str]:
        """The findings, in words."""
        return [f["text"] for f in self.findings]

    @property
    def plan(self) -> Dict[str, str]:
        """The plan as run: ``source`` (its path, ``<dict>`` or ``keyword
        arguments``), ``text`` (TOML) and ``sha256``."""
        return self._doc["plan"]

    @property
    def settings(self) -> Dict[str, Any]:
        """The settings behind the numbers (metric, weights, rule, alpha,
        seed, resamples, …)."""
        return self._doc["settings"]

    def table(self) -> List[Dict[str, Any]]:
        """One flat dict per benchmark, with the keys of GATE_COLUMNS."""
        return [_gate_row(r) for r in self.benchmarks]

    def flipped(self) -> List[Dict[str, Any]]:
        """One flat dict per listed flipped problem, with the keys of
        FLIPPED_COLUMNS, in the engine's order (largest |drop| first within
        each benchmark)."""
        return [
            {
                "benchmark": r["name"],
                "problem": f["problem"],
                "drop": f["drop"],
                "a_c": f["a"]["c"],
                "a_n": f["a"]["n"],
                "b_c": f["b"]["c"],
                "b_n": f["b"]["n"],
                "a_answers": f["a"]["answers"],
                "b_answers": f["b"]["answers"],
            }
            for r in self.benchmarks
            for f in r["flipped"]
        ]

    def to_pandas(self) -> Any:
        """One row per benchmark as a pandas DataFrame: name, tier, status,
        n_problems, a, b, delta, ci_low, ci_high, drop_lower, drop_upper,
        margin (the margin used), p (the one-sided test), test (its method),
        flips_b (A right, B wrong: McNemar's b), flips_c (A wrong, B right),
        flip_rate, floor, excess, excess_p, problems_needed, weight."""
        return _frame(self.table(), GATE_COLUMNS, "pandas")

    def to_polars(self) -> Any:
        """The benchmark rows as a polars DataFrame (needs polars)."""
        return _frame(self.table(), GATE_COLUMNS, "polars")

    def flipped_to_pandas(self) -> Any:
        """One row per listed flipped problem as a pandas DataFrame:
        benchmark, problem, drop (A − B of the correct fraction), a_c, a_n,
        b_c, b_n, a_answers, b_answers."""
        return _frame(self.flipped(), FLIPPED_COLUMNS, "pandas")

    def _typed_gate(self) -> Any:
        if self._typed is None:
            self._typed = _rollstat.TypedGate.from_json(self._json)
        return self._typed

    def __str__(self) -> str:
        """The text ``rollstat gate`` prints for the same runs (the same
        renderer): the verdict and why, the benchmarks, the suite."""
        return self._typed_gate().text().rstrip("\n")

    def __repr__(self) -> str:
        return f"<rollstat.Gate {self.verdict}: {len(self.benchmarks)} benchmarks>"

    def to_markdown(self) -> str:
        """The pull-request comment ``rollstat gate --format markdown``
        writes."""
        return self._typed_gate().text(markdown=True)

    def to_html(self, path: Optional[str] = None) -> str:
        """The HTML page ``rollstat gate --format html`` writes (the same
        renderer): verdict banner, forest plot, flips against their floor,
        the benchmarks, the combination tests and the flipped problems; one
        self-contained file. Writes the page to ``path`` when given; returns
        it either way."""
        return _write_page(self._typed_gate().html(), path)

    def _repr_html_(self) -> str:
        return _notebook_frame(self.to_html(), "rollstat gate")


RANK_COLUMNS = (
    "name",
    "rank",
    "value",
    "ci_low",
    "ci_high",
    "rank_low",
    "rank_high",
    "set_low",
    "set_high",
    "p_best",
    "letters",
    "dropped",
)

PAIR_COLUMNS = ("a", "b", "diff", "p", "p_adjusted", "method", "separated")


def _system_row(s: Dict[str, Any]) -> Dict[str, Any]:
    ci = s["ci"] or (None, None)
    return {
        "name": s["name"],
        "rank": s["rank"],
        "value": s["value"],
        "ci_low": ci[0],
        "ci_high": ci[1],
        "rank_low": s["rank_interval"][0],
        "rank_high": s["rank_interval"][1],
        "set_low": s["rank_set"][0],
        "set_high": s["rank_set"][1],
        "p_best": s["p_best"],
        "letters": s["letters"],
        "dropped": s["dropped"],
    }


class Ranking(_Document):
    """Many systems ranked on the problems they share (rank.json, schema
    ``rollstat.rank/1``): each system's value with its interval, its rank
    with a marginal rank interval and a simultaneous rank set, P(best) and
    compact letters; every pair tested and adjusted; the top tier (the
    systems not separable from #1); the best system's selection-adjusted
    score; with ``suite=`` ranks across benchmarks, with ``order='step'``
    the checkpoint curve. Printed, the text ``rollstat rank`` prints."""

    def __init__(self, json_text: str, *, typed: Any = None):
        super().__init__(json_text)
        self._typed = typed

    @property
    def systems(self) -> List[Dict[str, Any]]:
        """One dict per system, best first: name, value, ci ([low, high] or
        None), rank, rank_interval, rank_set, p_best, letters, dropped,
        rollouts, inputs."""
        return self._doc["systems"]

    @property
    def pairs(self) -> List[Dict[str, Any]]:
        """Every pair (``a`` ranked above ``b``): diff (a − b), p,
        p_adjusted (over every pair), method, separated."""
        return self._doc["pairs"]

    @property
    def top_tier(self) -> List[str]:
        """The systems not separable from #1 (sharing a letter with it),
        best first."""
        return self._doc["top_tier"]

    @property
    def top_tier_line(self) -> str:
        """The top tier in words."""
        return self._doc["top_tier_line"]

    @property
    def best(self) -> Dict[str, Any]:
        """The best system: ``system``, ``naive`` (its mean on the data it
        was picked on), ``adjusted`` (for the selection) and ``method``."""
        return self._doc["best"]

    @property
    def suite(self) -> Optional[Dict[str, Any]]:
        """Ranks across benchmarks (with ``suite=``): benchmarks, scores,
        ranks, mean_ranks, Friedman's chi2 / df / p, the Iman–Davenport f /
        f_df / f_p, Nemenyi's critical_difference, q_alpha and cd_groups;
        None otherwise."""
        return self._doc.get("suite")

    @property
    def curve(self) -> Optional[Dict[str, Any]]:
        """The checkpoint curve (with ``order='step'``): points (system,
        step, value, ci) in step order, best, not_separable; None
        otherwise."""
        return self._doc.get("curve")

    @property
    def anchor_walk(self) -> List[Dict[str, Any]]:
        """Each system against #1 in rank order, unadjusted: system, diff,
        p."""
        return self._doc["anchor_walk"]

    @property
    def first_separated_rank(self) -> Optional[int]:
        """The first rank whose system differs from #1 at α in the
        (unadjusted) anchor walk; None when none does."""
        return self._doc["first_separated_rank"]

    @property
    def n_problems(self) -> int:
        """The problems every system has: every number is over these."""
        return self._doc["n_problems"]

    @property
    def findings(self) -> List[Dict[str, Any]]:
        """Findings, typed (``kind``, its fields, ``text``)."""
        return self._doc["findings"]

    @property
    def warnings(self) -> List[str]:
        """The findings, in words."""
        return [f["text"] for f in self.findings]

    @property
    def settings(self) -> Dict[str, Any]:
        """The settings behind the numbers (metric, level, alpha, adjust,
        pair_test, resamples, permutations, seed, rng, cluster_by, by)."""
        return self._doc["settings"]

    def table(self) -> List[Dict[str, Any]]:
        """One flat dict per system, best first, with the keys of
        RANK_COLUMNS."""
        return [_system_row(s) for s in self.systems]

    def to_pandas(self) -> Any:
        """One row per system, best first, as a pandas DataFrame: name, rank,
        value, ci_low, ci_high, rank_low, rank_high (the marginal rank
        interval), set_low, set_high (the simultaneous rank set), p_best,
        letters, dropped."""
        return _frame(self.table(), RANK_COLUMNS, "pandas")

    def to_polars(self) -> Any:
        """The system rows as a polars DataFrame (needs polars)."""
        return _frame(self.table(), RANK_COLUMNS, "polars")

    def pairs_to_pandas(self) -> Any:
        """One row per pair as a pandas DataFrame: a, b, diff, p,
        p_adjusted, method, separated."""
        return _frame([{c: p[c] for c in PAIR_COLUMNS} for p in self.pairs], PAIR_COLUMNS, "pandas")

    def _typed_ranking(self) -> Any:
        if self._typed is None:
            self._typed = _rollstat.TypedRanking.from_json(self._json)
        return self._typed

    def __str__(self) -> str:
        """The text ``rollstat rank`` prints for the same inputs (the same
        renderer)."""
        return self._typed_ranking().text().rstrip("\n")

    def __repr__(self) -> str:
        best = self.systems[0]["name"] if self.systems else "-"
        return f"<rollstat.Ranking {len(self.systems)} systems on {self.n_problems} problems, #1 {best}>"

    def to_markdown(self) -> str:
        """The Markdown ``rollstat rank --format markdown`` writes."""
        return self._typed_ranking().text(markdown=True)

    def to_html(self, path: Optional[str] = None) -> str:
        """The HTML page ``rollstat rank --format html`` writes (the same
        renderer): values with intervals and letters, rank intervals with
        P(best), the CD diagram or checkpoint curve where there is one, the
        tables, findings and settings; one self-contained file. Writes the
        page to ``path`` when given; returns it either way."""
        return _write_page(self._typed_ranking().html(), path)

    def _repr_html_(self) -> str:
        return _notebook_frame(self.to_html(), "rollstat rank")
