"""rollstat: sampled-answer metrics for LLM evaluations with several
rollouts per problem — pass@k, pass^k, G-Pass@k, mG-Pass@k, maj@n,
bootstrap intervals, paired comparisons and power — computed by the same
Rust engine as the ``rollstat`` command, so Python and the CLI give
identical numbers on the same rows.

>>> import rollstat
>>> rollstat.pass_at_k(10, 3, 2)
0.5333333333333333
>>> r = rollstat.report("examples/demo.jsonl")          # doctest: +SKIP
>>> r.metrics["pass@1"]["value"], r.metrics["pass@1"]["ci"]  # doctest: +SKIP

Estimators take scalars or numpy arrays (broadcast) and release the GIL;
``report`` / ``compare`` read paths, directories, pandas / polars
DataFrames, Arrow tables and lists of row dicts; ``gate`` decides a release
over a suite of benchmarks (GO / NO-GO / INCONCLUSIVE) from a plan.
"""

from __future__ import annotations

import json
import numbers
import operator
import os
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np

from . import _gate, _rank, _rollstat
from ._data import columns_of as _columns_of
from ._data import rename_columns as _rename_columns
from ._data import sources as _sources
from ._documents import BadRow, Comparison, Gate, Metrics, PowerReport, Ranking, Reliability, Report
from ._errors import (
    MetricNotFound,
    RollstatWarning,
    rename_rows,
    reraise,
    split_bad_row_messages,
    warn_bad_rows,
    warn_messages,
)
from ._errors import (
    warn as _warn,
)
from ._estimators import estimate as _estimate
from ._rollstat import InputError, MalformedRows
from ._summary import is_summary as _is_summary
from ._summary import table_of as _summary_table

__version__ = _rollstat.__version__

__all__ = [
    "BadRow",
    "Comparison",
    "Gate",
    "InputError",
    "MalformedRows",
    "MetricNotFound",
    "Metrics",
    "PowerReport",
    "Ranking",
    "Reliability",
    "Report",
    "RollstatWarning",
    "compare",
    "extract_answer",
    "gate",
    "g_pass_at_k",
    "grade",
    "is_equivalent",
    "mg_pass_at_k",
    "pass_at_k",
    "pass_pow_k",
    "power",
    "rank",
    "report",
    "summarize",
    "merge",
    "metric_catalogue",
    "metric_family",
]

# The engine's defaults (``ReportOptions::default()`` and its siblings), by
# function and keyword: the signatures below read them, so they are written
# nowhere else. ``tests/test_options.py`` checks the signatures and stubs.
_DEFAULTS: Dict[str, Dict[str, Any]] = _rollstat.defaults()
_REPORT, _COMPARE, _POWER, _SUMMARIZE, _GATE, _RANK = (
    _DEFAULTS["report"],
    _DEFAULTS["compare"],
    _DEFAULTS["power"],
    _DEFAULTS["summarize"],
    _DEFAULTS["gate"],
    _DEFAULTS["rank"],
)
DEFAULT_TAU = tuple(_REPORT["tau"])
DEFAULT_SEED = _REPORT["seed"]


# --------------------------------------------------------------- estimators


def pass_at_k(n: Any, c: Any, k: Any) -> Any:
    """Unbiased pass@k (Chen et al. 2021): ``1 − C(n−c, k) / C(n, k)``, the
    chance that at least one of k rollouts drawn without replacement from a
    problem's n (c of them correct) is correct.

    ``n``, ``c``, ``k`` are non-negative integers or integer arrays and
    broadcast like numpy arguments. Returns a float for scalar arguments,
    else a float64 array of the broadcast shape. For n ≤ 67 the values are
    the engine's own (exact Pascal-triangle ratios); above, a ratio of two
    products of k integers in f64 (paired from both ends: ⌈k/2⌉ exact
    factors each, or looked up in a table of them when many problems share
    a range of n) whose relative error is bounded from the
    computed value: within 5·10⁻¹⁴ of the exact fraction (a telescoping sum
    where 1 − ratio would cancel; the engine's double-double path where no
    bound holds: k > 64, n ≥ 2⁵³). The engine's report uses its own path;
    the two agree within that bound. A problem's value does not depend on
    the other elements of the array. ``n`` and ``c`` arrays of one dtype
    (int64, int32, uint64 or uint32) with an integer ``k`` are read in place,
    without a converted copy.

    Undefined values are NaN, never 0 or 1: k > n (too few rollouts to draw
    k). Invalid input raises :class:`InputError`: c > n, negative or
    fractional counts, k < 1. The GIL is released while arrays are computed.

    >>> pass_at_k(6, 3, 2)
    0.8
    >>> pass_at_k([4, 2], [1, 0], 3).tolist()
    [0.75, nan]
    """
    return _estimate("pass_at_k", n, c, k)


def pass_pow_k(n: Any, c: Any, k: Any) -> Any:
    """pass^k (τ-bench, Yao et al. 2024): ``C(c, k) / C(n, k)``, the chance
    that all k rollouts drawn without replacement are correct.

    Broadcasting, accuracy, NaN for k > n and errors as :func:`pass_at_k`.

    >>> pass_pow_k(6, 3, 2)
    0.2
    """
    return _estimate("pass_pow_k", n, c, k)


def g_pass_at_k(n: Any, c: Any, k: Any, tau: Any) -> Any:
    """G-Pass@k_τ (Liu et al. 2024): the chance that at least ``max(⌈τ·k⌉, 1)``
    of k rollouts drawn without replacement are correct (a hypergeometric
    upper tail). ``tau`` in [0, 1] broadcasts with n, c, k.

    Broadcasting, NaN for k > n and errors as :func:`pass_at_k`; a tau
    outside [0, 1] raises :class:`InputError`.

    >>> g_pass_at_k(8, 4, 4, 0.5)
    0.7571428571428571
    """
    return _estimate("g_pass_at_k", n, c, k, tau)


def mg_pass_at_k(n: Any, c: Any, k: Any) -> Any:
    """mG-Pass@k (Liu et al. 2024): G-Pass@k_τ averaged over τ in (0.5, 1],
    ``(2/k) Σ_{i=⌈k/2⌉+1..k} G-Pass@k_{i/k}``.

    Broadcasting, NaN for k > n and errors as :func:`pass_at_k`.
    """
    return _estimate("mg_pass_at_k", n, c, k)


# ----------------------------------------------------------------- options


def _int(value: Any, name: str, minimum: int = 0) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{name}: expected an integer, found a bool")
    try:
        v = operator.index(value)
    except TypeError:
        if isinstance(value, float) and value.is_integer():
            v = int(value)
        else:
            raise TypeError(f"{name}: expected an integer, found {value!r}") from None
    if v < minimum:
        raise InputError(f"{name}: must be at least {minimum}, found {v}")
    if v > 2**64 - 1:
        raise InputError(f"{name}: {v} is too large")
    return v


def _opt_int(value: Any, name: str, minimum: int = 0) -> Optional[int]:
    return None if value is None else _int(value, name, minimum)


def _float(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name}: expected a number, found {value!r}")
    return float(value)


def _opt_float(value: Any, name: str) -> Optional[float]:
    return None if value is None else _float(value, name)


def _ints(value: Any, name: str) -> Optional[List[int]]:
    """An integer or a list of integers (numpy integer scalars and arrays
    included); anything else is a TypeError naming the keyword."""
    if value is None:
        return None
    if isinstance(value, (numbers.Integral, np.integer)) and not isinstance(value, bool):
        return [_int(value, name, 1)]
    if isinstance(value, (str, bytes, numbers.Number)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name}: expected an integer or a list of integers, found {value!r}")
    try:
        return [_int(v, name, 1) for v in value]
    except TypeError as e:
        raise TypeError(f"{e} (an integer or a list of integers)") from None


def _floats(value: Any, name: str) -> List[float]:
    """A number or a list of numbers (numpy scalars and arrays included)."""
    if isinstance(value, (numbers.Real, np.floating, np.integer)) and not isinstance(value, bool):
        return [float(value)]
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name}: expected a number or a list of numbers, found {value!r}")
    return [_float(v, name) for v in value]


def _strs(value: Any, name: str) -> Optional[List[str]]:
    if value is None:
        return None
    if isinstance(value, str):
        return [value]
    out = list(value)
    if not all(isinstance(v, str) for v in out):
        raise TypeError(f"{name}: expected a string or a list of strings")
    return out


def _opt_str(value: Any, name: str) -> Optional[str]:
    if value is None or isinstance(value, str):
        return value
    raise TypeError(f"{name}: expected a string, found {value!r}")


def _budget(value: Any) -> str:
    """The ``budget`` keyword as the engine reads it: None → ``"none"``."""
    if value is None:
        return "none"
    if isinstance(value, str):
        return value
    raise TypeError(f"budget: expected a field name, 'auto' or None, found {value!r}")


def _name(value: Any, name: str) -> Optional[str]:
    """A name the engine parses; None or empty: the engine's default."""
    return _opt_str(value, name) or None


def _common(
    *,
    k: Any,
    tau: Any,
    n: Any,
    denominator: Any,
    tie_policy: Any,
    score_order: Any,
    strict: Any,
    dedupe: Any,
    ci: Any,
    level: Any,
    resamples: Any,
    seed: Any,
    cluster_by: Any,
    extract: Any,
    match: Any,
    source_format: Any,
    max_decompressed: Any = None,
) -> Dict[str, Any]:
    """The metric, interval and grading keywords shared by report and compare,
    as the extension reads them (None: the engine's default)."""
    return dict(
        k=_ints(k, "k"),
        tau=_floats(tau, "tau"),
        n=_opt_int(n, "n", 1),
        denominator=_name(denominator, "denominator"),
        tie_policy=_name(tie_policy, "tie_policy"),
        score_order=_name(score_order, "score_order"),
        strict=bool(strict),
        dedupe=_opt_str(dedupe, "dedupe"),
        ci="none" if ci is None else _opt_str(ci, "ci"),
        level=_float(level, "level"),
        resamples=_int(resamples, "resamples"),
        seed=_int(seed, "seed"),
        cluster_by=_opt_str(cluster_by, "cluster_by"),
        extract=_name(extract, "extract"),
        match=_name(match, "match"),
        source_format=_opt_str(source_format, "source_format"),
        max_decompressed=_decompress_limit(max_decompressed),
    )


def _decompress_limit(value: Any) -> Optional[int]:
    """``max_decompressed`` as the extension takes it: None (the default
    rule), a number of bytes, or 2**64 - 1 for ``"none"`` (no limit)."""
    if value is None:
        return None
    if isinstance(value, str) and value.strip().lower() == "none":
        return 2**64 - 1
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not 1 <= value < 2**64:
        raise InputError(f"max_decompressed: {value!r} is not a number of bytes ≥ 1, 'none' or None")
    return int(value)


def _bad_rows(raw: Sequence[Tuple[str, int, str]], names: Dict[str, str]) -> List[BadRow]:
    out = []
    for path, line, reason in raw:
        label = names.get(path)
        where = f"{label}[{line - 1}]" if label is not None else f"{path}:{line}"
        out.append(BadRow(where, rename_rows(reason, names)))
    return out


# ------------------------------------------------------------------ report

Data = Any
"""A path (str or PathLike: a file or a directory), a list of paths, a
pandas or polars DataFrame, a pyarrow Table / RecordBatch /
RecordBatchReader (or any object with ``__arrow_c_stream__``), or a list of
row dicts."""


def report(
    data: Data,
    *,
    k: Union[int, Sequence[int], None] = _REPORT["k"],
    tau: Union[float, Sequence[float]] = DEFAULT_TAU,
    ci: Optional[str] = _REPORT["ci"],
    level: float = _REPORT["level"],
    resamples: int = _REPORT["resamples"],
    seed: int = _REPORT["seed"],
    cluster_by: Optional[str] = _REPORT["cluster_by"],
    by: Optional[str] = _REPORT["by"],
    tie_policy: str = _REPORT["tie_policy"],
    score_order: str = _REPORT["score_order"],
    denominator: str = _REPORT["denominator"],
    extract: str = _REPORT["extract"],
    match: str = _REPORT["match"],
    source_format: Optional[str] = _REPORT["source_format"],
    strict: bool = _REPORT["strict"],
    per_problem: bool = _REPORT["per_problem"],
    run_by: Optional[str] = _REPORT["run_by"],
    n: Optional[int] = _REPORT["n"],
    dedupe: Optional[str] = _REPORT["dedupe"],
    max_decompressed: Union[int, str, None] = _REPORT["max_decompressed"],
    budget: Optional[str] = _REPORT["budget"],
    extrapolate: Union[int, Sequence[int], None] = None,
    prior: str = _REPORT["prior"],
    columns: Optional[Mapping[str, str]] = None,
) -> Report:
    """Every metric of the rollouts in ``data`` with its interval, the health
    accounting and findings: the numbers of ``rollstat report``.

    ``data``: a path (a file in any supported format, or a directory, walked),
    a list of paths, a pandas or polars DataFrame, a pyarrow Table /
    RecordBatchReader, or a list of dicts. Rows are the canonical rows:
    rollout rows (``problem``, ``correct`` or ``gold`` + ``response`` /
    ``answer``, optional ``rollout``, ``answer``, ``finish_reason``,
    ``model``, ``subset``, …), problem rows (``problem`` with list columns
    ``correct`` / ``answers`` / ``responses``) and count rows (``problem``,
    ``n``, ``c``). A DataFrame or list of dicts is read exactly as its JSON
    Lines export would be (``None`` / NaN → null). DataFrames and Arrow
    tables (anything with ``__arrow_c_stream__``; pandas through pyarrow)
    are read column by column through the Arrow C stream interface, with no
    Python objects per value: strings, numbers, booleans, lists and structs;
    a column of another type (dates, binary) is left out unless a row field
    or ``by`` / ``cluster_by`` reads it. A pandas frame pyarrow cannot type
    (an object column mixing strings and numbers) is read by records.

    Keywords: ``k`` (draw sizes; default 1, 2, 4, … up to n, and n), ``tau``
    (G-Pass thresholds), ``ci`` (``bootstrap``, ``bca``, ``basic``, ``t``,
    ``wilson``, ``jeffreys``, ``clopper-pearson``, ``beta-binomial`` or
    ``none``/None; ``beta-binomial`` is model-based: the credible interval of
    pass@k under a hierarchical beta-binomial model, docs/statistics.md §12),
    ``prior`` (the beta-binomial model's prior on the mean success rate:
    ``uniform`` Beta(1, 1) or ``jeffreys`` Beta(½, ½)),
    ``level``, ``resamples``, ``seed``, ``cluster_by`` (a field whose values
    cluster problems), ``by`` (break metrics down by a field), ``tie_policy``
    (maj@k and maj@n: ``first``, ``none``, ``fractional``), ``score_order``
    (``descending``: a higher ``score`` is better for bon@k and wmaj@n;
    ``ascending``: lower is better, e.g. a loss), ``denominator``
    (``requested``: failed rollouts count as wrong; ``judged``: dropped),
    ``extract`` (``math``, ``mcq``, ``number``, ``regex:PATTERN``), ``match``
    (``equivalent`` or ``exact``), ``source_format`` (override format
    detection for files: ``inspect``, ``lighteval``, ``lm-eval``,
    ``evalscope``, ``opencompass``, ``sieval``, ``qwen-math``,
    ``evalchemy``, ``mmlu-pro``, ``livecodebench``, ``matharena``,
    ``nemo-skills``, ``tau-bench``, ``canonical``, ``field-map``, or a format's own
    name), ``strict`` (the first bad row, short problem or
    unreadable file is an error), ``per_problem`` (include every problem's
    values), ``run_by`` (what a trial of ``Report.reliability`` is: ``"run"``
    or ``"model"`` make each run label a run, problems matched across runs;
    ``"rollout"``, ``"trial"`` or ``"epoch"`` name the rollout index, where
    native formats put the trial; None, the default, takes the rollout
    index with the trials exchangeable — the CLI's ``--run-by``), ``n``
    (requested rollouts per problem; default the largest n
    seen), ``dedupe`` (``first``/``last``: keep one of duplicated rollouts
    instead of failing), ``max_decompressed`` (how large a compressed input
    may grow when decompressed: None, the default, allows 100× its
    compressed size and at least 256 MiB; a number of bytes is a fixed
    total; ``"none"`` removes the limit — the CLI's ``--max-decompressed``),
    ``budget`` (the per-rollout budget field for
    ``budget@k`` and ``cost_of_pass@k``: ``"auto"``, the default, reads
    ``output_tokens`` when every rollout has it; a field name such as
    ``"output_tokens"``, ``"cost"`` or ``"latency_s"`` reads that field and
    counts rollouts without it as missing, never as zero; None turns budgets
    off — the CLI's ``--budget``), ``extrapolate`` (K or a list of K: the
    model-based ``pass@K_fit`` beyond n from a beta-binomial fit, with a
    refitting bootstrap interval — the CLI's ``--extrapolate``), ``columns``
    (a field map for files of a layout no format knows, as the CLI's
    ``--map``: ``{"problem": "idx", "correct": "score", "answers": "pred",
    "gold": "gt"}``, paths ``a.b``, ``[]`` for every list element, ``*`` for
    every object value, ``"records": "results.*.examples[]"`` for nested
    records; a key no record has is an error naming the keys there are; on
    a DataFrame, Arrow table or list of row dicts, plain column names rename
    the columns: ``columns={"problem": "idx", "correct": "score"}``).

    Raises :class:`InputError` (a ValueError) for bad options — naming the
    keyword — and for bad input, naming the row (``path:line``, or
    ``data[i]`` / ``data.iloc[i]`` for in-memory rows);
    ``FileNotFoundError`` for a missing path. In lenient mode
    (``strict=False``) malformed rows are skipped, counted in
    ``health['n_bad_lines']``, listed in ``Report.bad_rows`` and announced
    with a :class:`RollstatWarning`.
    """
    data, columns = _mapped(data, _columns(columns))
    srcs, names = _sources(data, "<data>", "data")
    opts = _common(
        k=k, tau=tau, n=n, denominator=denominator, tie_policy=tie_policy, score_order=score_order, strict=strict,
        dedupe=dedupe, ci=ci, level=level, resamples=resamples, seed=seed,
        cluster_by=cluster_by, extract=extract, match=match, source_format=source_format,
        max_decompressed=max_decompressed,
    )
    opts.update(
        by=_opt_str(by, "by"),
        per_problem=bool(per_problem),
        run_by=_opt_str(run_by, "run_by"),
        budget=_budget(budget),
        extrapolate=_ints(extrapolate, "extrapolate"),
        prior=_name(prior, "prior"),
        columns=_pairs(columns),
    )
    try:
        text, bad, messages, typed = _rollstat.report(srcs, opts)
    except InputError as e:
        raise reraise(e, names, _columns_of(data)) from None
    bad_rows = _bad_rows(bad, names)
    warn_messages(messages, names)
    warn_bad_rows([(b.location, b.reason) for b in bad_rows])
    out = Report(text, bad_rows, typed=typed, tau_asked=tau is not DEFAULT_TAU)
    _warn_absent_fields(out.health, data)
    return out


def _columns(columns: Optional[Mapping[str, str]]) -> Optional[Dict[str, str]]:
    """The ``columns`` keyword as {canonical field: column or path}."""
    if columns is None:
        return None
    if not isinstance(columns, Mapping):
        raise InputError('columns: a dict {field: column or path}, e.g. {"problem": "idx", "correct": "score"}')
    return {str(f): str(p) for f, p in columns.items()}


def _mapped(data: Any, columns: Optional[Dict[str, str]]) -> Tuple[Any, Optional[Dict[str, str]]]:
    """``data`` and the field map still to apply: in-memory data with
    plain columns is renamed here (the map is then spent), files keep the
    map for the engine to read them through."""
    if columns is None or data is None:
        return data, None
    renamed = _rename_columns(data, columns)
    if renamed is not None:
        return renamed, None
    if _columns_of(data) is not None:
        # In-memory data the map cannot rename: beside files it would be
        # read as canonical rows, the map silently not applied.
        raise InputError(
            "columns: in-memory data is renamed by plain column names; records=, nested paths (a.b) and "
            "wildcards are for files"
        )
    return data, columns


def _pairs(columns: Optional[Dict[str, str]]) -> Optional[List[Tuple[str, str]]]:
    """A field map as the extension takes it: (field, path) pairs in the
    order given, the order the map is recorded in."""
    return None if columns is None else list(columns.items())


def _map_text(columns: Optional[Dict[str, str]]) -> Optional[str]:
    """A field map as the plan's ``map`` text (``problem=idx,correct=score``)."""
    return None if columns is None else ",".join(f"{f}={p}" for f, p in columns.items())


def _one_map(*maps: Optional[Dict[str, str]]) -> Optional[Dict[str, str]]:
    """The field map the engine reads files with: the one left by any
    input that is not in-memory data."""
    return next((m for m in maps if m is not None), None)


def _warn_absent_fields(holder: Dict[str, Any], data: Data) -> None:
    """A RollstatWarning for each field named by ``by``, ``cluster_by`` or
    ``budget`` that no row has (the ``field_absent`` findings of a report's
    health or a comparison), with the columns in-memory ``data`` has."""
    for f in holder.get("findings", []):
        if f.get("kind") != "field_absent":
            continue
        text = f["text"]
        columns = _columns_of(data)
        if columns is not None:
            text += "; columns found: " + (", ".join(repr(c) for c in list(columns)[:20]) or "none")
        _warn(text)


# ----------------------------------------------------------------- compare


def compare(
    a: Data,
    b: Optional[Data] = None,
    *,
    by: Optional[str] = _COMPARE["by"],
    a_name: Optional[str] = _COMPARE["a_name"],
    b_name: Optional[str] = _COMPARE["b_name"],
    group_by: Optional[str] = _COMPARE["group_by"],
    margin: Optional[float] = _COMPARE["margin"],
    fail_on: Optional[str] = _COMPARE["fail_on"],
    metric: Union[str, Sequence[str], None] = _COMPARE["metric"],
    family: Union[str, Sequence[str], None] = _COMPARE["family"],
    all: bool = _COMPARE["all"],
    permutations: int = _COMPARE["permutations"],
    k: Union[int, Sequence[int], None] = _COMPARE["k"],
    tau: Union[float, Sequence[float]] = DEFAULT_TAU,
    n: Optional[int] = _COMPARE["n"],
    ci: Optional[str] = _COMPARE["ci"],
    level: float = _COMPARE["level"],
    resamples: int = _COMPARE["resamples"],
    seed: int = _COMPARE["seed"],
    cluster_by: Optional[str] = _COMPARE["cluster_by"],
    tie_policy: str = _COMPARE["tie_policy"],
    score_order: str = _COMPARE["score_order"],
    denominator: str = _COMPARE["denominator"],
    extract: str = _COMPARE["extract"],
    match: str = _COMPARE["match"],
    source_format: Optional[str] = _COMPARE["source_format"],
    strict: bool = _COMPARE["strict"],
    dedupe: Optional[str] = _COMPARE["dedupe"],
    max_decompressed: Union[int, str, None] = _COMPARE["max_decompressed"],
    budget: Optional[str] = None,
    columns: Optional[Mapping[str, str]] = None,
) -> Comparison:
    """Paired comparison of system A (baseline, ``a``) and B (candidate,
    ``b``) on the problems both have: the numbers of ``rollstat compare``.

    ``a`` and ``b`` are each one input (a path, a directory, a DataFrame, an
    Arrow table or a list of row dicts). With ``b`` None, ``a`` holds both
    systems, told apart by the field ``by`` (``model`` or ``run``);
    ``a_name`` / ``b_name`` pick its values (default: the first two seen).

    Every row has a, b, delta = b − a, a paired stderr and interval, the
    sign-flip p value, McNemar's p where each problem has one 0/1 outcome
    per side. ``p_holm`` and ``p_bh`` are Holm and BH adjusted over the
    family of primary metrics only (``in_family`` on its rows, null
    elsewhere): ``family`` names its overall rows (e.g. ``["pass@1",
    "maj@8"]``; an unknown name raises and lists the rows), by default one
    row per metric family at its headline k — pass@1, pass^n, maj@n — and
    never a row that is another row by definition (``same_as``).
    ``Comparison.summary`` tallies the family (significant rows, verdicts);
    printed, the comparison shows it as one line above the verdicts.
    Printed (and ``to_html``), the tables show the headline rows as
    :func:`report` does; ``all=True`` shows every row (``rows`` and the
    JSON always hold every row). With ``margin`` (a fraction:
    0.02 = 2 points) rows get a non-inferiority verdict; ``fail_on``
    (``inferior`` or ``inconclusive``) checks the verdicts of ``metric``
    (default: every overall row with one) — see ``Comparison.failed``.
    ``group_by`` also compares per value of a field. The metric, interval
    and grading keywords are those of :func:`report` (binomial and
    beta-binomial intervals are refused: a paired difference needs
    bootstrap, bca, basic or t).

    ``budget`` (a field name such as ``"output_tokens"``; default None: off)
    adds budget-matched rows: for each k of B, A at the budget B spends
    (k_A = budget@k of B / A's mean budget per rollout, a fractional k_A
    being the exact expectation of drawing ⌊k_A⌋ or ⌈k_A⌉), for pass@k and,
    where both sides have them, maj@k and bon@k. Each such row has a
    ``budget_matched`` dict {``k_a``, ``k_b``, ``budget``} and is gated by
    ``margin`` / ``fail_on`` like any row (the CLI's ``--budget``).

    ``columns`` ({canonical field: column or path}) reads a layout no
    format knows, as for :func:`report`: files on either side are read
    through it (the CLI's ``--map``), in-memory data has its columns
    renamed.

    Raises :class:`InputError` for bad options or input.
    """
    columns = _columns(columns)
    a, map_a = _mapped(a, columns)
    b, map_b = (None, None) if b is None else _mapped(b, columns)
    srcs, names = _sources(a, "<a>", "a")
    if b is not None:
        more, more_names = _sources(b, "<b>", "b")
        if len(srcs) != 1 or len(more) != 1:
            raise InputError("compare takes one input per side (a path, a directory, a DataFrame or rows)")
        srcs += more
        names.update(more_names)
    elif len(srcs) != 1:
        raise InputError("compare takes one input per side; pass b=, or one input holding both systems with by=")
    opts = _common(
        k=k, tau=tau, n=n, denominator=denominator, tie_policy=tie_policy, score_order=score_order, strict=strict,
        dedupe=dedupe, ci=ci, level=level, resamples=resamples, seed=seed,
        cluster_by=cluster_by, extract=extract, match=match, source_format=source_format,
        max_decompressed=max_decompressed,
    )
    opts.update(
        by=_opt_str(by, "by"),
        a_name=_opt_str(a_name, "a_name"),
        b_name=_opt_str(b_name, "b_name"),
        group_by=_opt_str(group_by, "group_by"),
        margin=_opt_float(margin, "margin"),
        fail_on=_opt_str(fail_on, "fail_on"),
        metric=_strs(metric, "metric"),
        family=_strs(family, "family"),
        permutations=_int(permutations, "permutations"),
        budget=_budget(budget),
        columns=_pairs(_one_map(map_a, map_b)),
    )
    try:
        text, messages, typed = _rollstat.compare(srcs, opts)
    except InputError as e:
        raise reraise(e, names) from None
    rows, unnamed, rest = split_bad_row_messages(messages)
    warn_messages(rest, names)
    located = []
    for m in rows:
        where, _, why = rename_rows(m, names).partition(": ")
        located.append((where, why))
    warn_bad_rows(located, unnamed=unnamed)
    out = Comparison(text, typed=typed, all=bool(all), tau_asked=tau is not DEFAULT_TAU)
    _warn_absent_fields(out.to_dict(), a)
    return out


# -------------------------------------------------------------------- gate


def gate(
    plan: Union[str, os.PathLike, Dict[str, Any], None] = None,
    *,
    baseline: Optional[Data] = None,
    candidate: Optional[Data] = None,
    margin: Union[float, str, None] = None,
    relative_margin: Optional[float] = None,
    suite_margin: Union[float, str, None] = None,
    metric: Optional[str] = None,
    weights: Optional[str] = None,
    rule: Optional[str] = None,
    tier: Optional[str] = None,
    alpha: Optional[float] = None,
    mid_p: Optional[bool] = None,
    cluster_by: Optional[str] = None,
    seed: Optional[int] = None,
    resamples: Optional[int] = None,
    permutations: Optional[int] = None,
    flips: Optional[int] = None,
    format: Optional[str] = None,
    extract: Optional[str] = None,
    match: Optional[str] = None,
    columns: Optional[Mapping[str, str]] = None,
) -> Gate:
    """One release decision over a suite of benchmarks, baseline A against
    candidate B: ``GO``, ``NO-GO`` or ``INCONCLUSIVE`` — the numbers and
    verdict of ``rollstat gate`` (docs/gate.md).

    ``plan`` declares the analysis: a path to a TOML plan (relative paths
    in it are read against its directory), or a dict with the same keys
    (``{{"margin": 0.01, "benchmark": [{{"name": "aime", "baseline": df_a,
    "candidate": df_b, "tier": "critical"}}]}}``; relative paths against the
    working directory). Any ``baseline`` / ``candidate`` value in a dict
    plan is a path, directory or glob, a list of them, or data: a pandas or
    polars DataFrame, a pyarrow Table or a list of row dicts of canonical
    rows (``problem``, ``rollout``, ``correct``, ``answer``, …), read as
    :func:`report` reads them. The plan's record (``Gate.plan``) is the
    file's text, or the dict's canonical TOML with each frame named
    ``<DataFrame: N rows>``, with its SHA-256.

    Without a plan, the short form: ``baseline`` and ``candidate`` (each a
    path, directory, glob, list of paths, or data) with the settings as
    keyword arguments; each ``subset`` value (or file) is a benchmark, and
    a frame without subsets is one. With a plan, the plan declares every
    setting and these keywords are refused, as the command refuses its
    flags.

    Settings (None: the plan's, else the engine's default, shown): ``margin``
    (the largest acceptable drop of every benchmark: a fraction, 0.01 = 1
    point, or points as text, ``"1pt"``; needed by the margin rule),
    ``relative_margin`` (largest drop relative to A's value, 0.05 = 5% of
    A; the smaller margin is used), ``suite_margin`` (on the suite's
    weighted drop; default ``margin``), ``metric`` ({metric}; any
    catalogued metric: ``pass^4``, ``maj@8``), ``weights`` ({weights}:
    ``micro`` per problem or ``macro`` per benchmark), ``rule`` ({rule}:
    ``margin`` — statuses against margins — or ``detect`` — any
    significant degradation), ``tier`` ({tier}: ``critical``,
    ``supporting`` or ``advisory``), ``alpha`` ({alpha}: one-sided bounds
    at 1 − α, each combination test at α/3), ``mid_p`` ({mid_p}: McNemar's
    mid-p), ``cluster_by`` (a field whose values cluster problems),
    ``seed`` ({seed}), ``resamples`` ({resamples}), ``permutations``
    ({permutations}), ``flips`` ({flips}: flipped problems listed per
    benchmark), ``format`` (the input format of every file, overriding
    detection), ``columns`` (a field map {{field: path}} every file is read
    through, for a layout no format knows: the plan's ``map`` key, the
    command's ``--map``), ``extract`` ({extract}) and ``match`` ({match}):
    how rows with ``gold`` are graded, as in :func:`report`.

    Returns a :class:`Gate`: ``verdict``, ``exit_code`` (0 GO, 1 NO-GO, 3
    INCONCLUSIVE), ``benchmarks``, ``suite``, ``findings``, ``plan``,
    ``to_pandas()`` (one row per benchmark), ``flipped_to_pandas()``.
    Findings are also announced as :class:`RollstatWarning`. Raises
    :class:`InputError` (a ValueError) for a bad plan — an unknown key
    named, a margin written as points (``margin=2``) explained, a
    benchmark declared twice — or bad input.

    >>> import rollstat
    >>> rows = lambda cs: [{{"problem": f"p{{i}}", "correct": c}} for i, c in enumerate(cs)]
    >>> a, b = rows([True] * 40), rows([True] * 20 + [False] * 20)
    >>> g = rollstat.gate({{"margin": "2pt", "benchmark": [{{"name": "toy", "baseline": a, "candidate": b}}]}})
    >>> g.verdict, g.exit_code, g.benchmarks[0]["status"]
    ('NO-GO', 1, 'BREACH')
    >>> print(g.plan["text"].splitlines()[-1])
    candidate = "<list: 40 rows #2>"
    """
    columns = _columns(columns)
    baseline, map_a = _mapped(baseline, columns)
    candidate, map_b = _mapped(candidate, columns)
    # Frames renamed here; the map is then for files only (None when every
    # side was data, so a frames-only gate records no map it did not use).
    given = columns if plan is not None else _one_map(map_a, map_b)
    settings = dict(
        margin=margin, relative_margin=relative_margin, suite_margin=suite_margin, metric=metric,
        weights=weights, rule=rule, tier=tier, alpha=alpha, mid_p=mid_p, cluster_by=cluster_by,
        seed=_opt_int(seed, "seed"), resamples=_opt_int(resamples, "resamples"),
        permutations=_opt_int(permutations, "permutations"), flips=_opt_int(flips, "flips"), format=format,
        extract=extract, match=match, columns=_map_text(given),
    )
    if plan is None:
        text, sides = _gate.short_form(baseline, candidate, settings)
    elif baseline is not None or candidate is not None:
        raise InputError("gate: give a plan or baseline= and candidate=, not both")
    else:
        text, sides = _gate.declared(plan, settings)
    try:
        out, messages, typed = _rollstat.gate(text, sides.data)
    except InputError as e:
        raise reraise(e, sides.names) from None
    rows, unnamed, rest = split_bad_row_messages(messages)
    warn_messages(rest, sides.names)
    located = []
    for m in rows:
        where, _, why = rename_rows(m, sides.names).partition(": ")
        located.append((where, why))
    warn_bad_rows(located, unnamed=unnamed, note="counted in each benchmark's findings")
    g = Gate(out, typed=typed)
    warn_messages(g.warnings, {})
    return g


gate.__doc__ = (gate.__doc__ or "").format(**{k: repr(v) for k, v in _GATE.items()})


# -------------------------------------------------------------------- rank


def rank(
    data: Union[Data, Dict[str, Data], None] = None,
    *paths_or_frames: Data,
    by: Optional[str] = _RANK["by"],
    metric: str = _RANK["metric"],
    level: float = _RANK["level"],
    alpha: float = _RANK["alpha"],
    adjust: str = _RANK["adjust"],
    pair_test: str = _RANK["pair_test"],
    resamples: int = _RANK["resamples"],
    permutations: int = _RANK["permutations"],
    seed: int = _RANK["seed"],
    cluster_by: Optional[str] = _RANK["cluster_by"],
    strict: bool = _RANK["strict"],
    suite: Optional[str] = _RANK["suite"],
    order: Optional[str] = _RANK["order"],
    format: Optional[str] = _RANK["format"],
    extract: str = _RANK["extract"],
    match: str = _RANK["match"],
    columns: Optional[Mapping[str, str]] = _RANK["columns"],
) -> Ranking:
    """Many systems ranked on the problems they all share: the numbers of
    ``rollstat rank`` (docs/rank.md, schema ``rollstat.rank/1``).

    Inputs, one of: paths (``rank("a.jsonl", "b.jsonl", "c.jsonl")`` or a
    list), one system per file, named by the file name without extensions;
    data holding every system (a pandas / polars DataFrame, an Arrow table
    or a list of row dicts) with ``by`` naming the field that tells them
    apart (``by="model"``); or a dict {{system name: data or path to a JSON
    Lines / CSV file}}, one system each. With ``by``, paths and data alike
    hold systems by that field's values, not one per input.

    Each system's value is its mean of the per-problem ``metric``
    ({metric}; any catalogued metric: ``pass^4``, ``maj@8``) over the
    problems every system has; a system with more problems loses them (a
    :class:`RollstatWarning` counts them; ``strict=True`` makes this an
    error). Intervals are bootstrap percentiles at ``level`` ({level}; the
    rank intervals and simultaneous rank sets too) over ``resamples``
    ({resamples}) with ``seed`` ({seed}), clustered by ``cluster_by``. Every
    pair is tested — ``pair_test`` ({pair_test}: exact McNemar, or
    ``chi2-corrected``, on 0/1 values; a sign-flip test with
    ``permutations`` ({permutations}) otherwise — and adjusted over every
    pair by ``adjust`` ({adjust}: ``holm`` or ``bh``); systems sharing a
    compact letter are not separable at ``alpha`` ({alpha}). ``suite``
    (``"subset"``: the benchmarks are the subsets; ``"inputs"``: each source
    is one benchmark) also ranks across benchmarks (Friedman, Iman–Davenport,
    Nemenyi's critical difference); ``order="step"`` reads the systems as
    checkpoints of one run (the curve). ``format`` names the input format of
    files, overriding detection; ``columns`` ({{field: column or path}})
    reads a layout no format knows, as for :func:`report` (files through
    the map, in-memory data renamed); ``extract`` ({extract}) and ``match``
    ({match}) grade rows with ``gold`` as :func:`report` does.

    Returns a :class:`Ranking`: ``systems``, ``pairs``, ``top_tier``,
    ``best``, ``suite``, ``curve``, ``findings``, ``to_pandas()`` (one row
    per system), ``pairs_to_pandas()``, ``to_html()`` (the command's
    ``--format html`` page, also shown in notebooks); printed, the
    command's table.
    Findings are also announced as :class:`RollstatWarning`. Raises
    :class:`InputError` (a ValueError) for bad options or input — fewer
    than two systems, no shared problem, a dropped problem under
    ``strict=True``.

    >>> import rollstat
    >>> rows = lambda cs: [{{"problem": f"p{{i}}", "correct": c}} for i, c in enumerate(cs)]
    >>> r = rollstat.rank({{"a": rows([True] * 40), "b": rows([False] * 40), "c": rows([True, False] * 20)}})
    >>> [(s["name"], s["rank"], s["letters"]) for s in r.systems]
    [('a', 1, 'a'), ('c', 2, 'b'), ('b', 3, 'c')]
    >>> r.top_tier
    ['a']
    """
    items = [x for x in (data, *paths_or_frames) if x is not None]
    columns = _columns(columns)
    maps: List[Optional[Dict[str, str]]] = []
    if columns is not None:
        for i, item in enumerate(items):
            if isinstance(item, Mapping):
                renamed = {key: _mapped(value, columns) for key, value in item.items()}
                items[i] = {key: v for key, (v, _) in renamed.items()}
                maps += [m for _, m in renamed.values()]
            else:
                items[i], m = _mapped(item, columns)
                maps.append(m)
    srcs, names = _rank.inputs(items, by)
    opts = dict(
        by=_opt_str(by, "by"),
        metric=_opt_str(metric, "metric"),
        level=_float(level, "level"),
        alpha=_float(alpha, "alpha"),
        adjust=_opt_str(adjust, "adjust"),
        pair_test=_opt_str(pair_test, "pair_test"),
        resamples=_int(resamples, "resamples", 1),
        permutations=_int(permutations, "permutations", 1),
        seed=_int(seed, "seed"),
        cluster_by=_opt_str(cluster_by, "cluster_by"),
        strict=bool(strict),
        suite=_opt_str(suite, "suite"),
        order=_opt_str(order, "order"),
        format=_opt_str(format, "format"),
        extract=_name(extract, "extract"),
        match=_name(match, "match"),
        columns=_pairs(_one_map(*maps)),
    )
    try:
        text, messages, typed = _rollstat.rank(srcs, opts)
    except InputError as e:
        raise reraise(e, names) from None
    rows, unnamed, rest = split_bad_row_messages(messages)
    warn_messages(rest, names)
    located = []
    for m in rows:
        where, _, why = rename_rows(m, names).partition(": ")
        located.append((where, why))
    warn_bad_rows(located, unnamed=unnamed, note="left out of the ranking")
    r = Ranking(text, typed=typed)
    warn_messages(r.warnings, {})
    return r


rank.__doc__ = (rank.__doc__ or "").format(**{k: repr(v) for k, v in _RANK.items()})


# ---------------------------------------------------------------- summaries


def summarize(
    data: Data,
    *,
    by: Optional[str] = _SUMMARIZE["by"],
    cluster_by: Optional[str] = _SUMMARIZE["cluster_by"],
    extract: str = _SUMMARIZE["extract"],
    match: str = _SUMMARIZE["match"],
    source_format: Optional[str] = _SUMMARIZE["source_format"],
    strict: bool = _SUMMARIZE["strict"],
    dedupe: Optional[str] = _SUMMARIZE["dedupe"],
    columns: Optional[Mapping[str, str]] = None,
) -> Any:
    """The per-problem summary of the rollouts in ``data`` as a pyarrow Table:
    what ``rollstat summarize`` writes (docs/summary.md), one row per
    (system, subset, problem) with every rollout's verdict, answer text,
    truncation, score and budget in rollout order; the header (format
    version, reading options, inputs, malformed rows, counters) is in the
    schema metadata under ``rollstat_summary``.

    ``data`` is read exactly as :func:`report` reads it, under the reading
    keywords ``by``, ``cluster_by``, ``extract``, ``match``,
    ``source_format``, ``columns`` (a field map, as for :func:`report`),
    ``strict`` and ``dedupe`` (which duplicated rollout to keep, here and
    in :func:`merge`). Pass the table (or a
    :func:`merge` of several) to :func:`report` or :func:`compare` with the
    same reading keywords: the numbers are those of the rows.

    >>> import rollstat
    >>> rows = [{"problem": "p", "rollout": i, "correct": i == 1} for i in range(3)]
    >>> t = rollstat.summarize(rows)
    >>> t.column("verdicts").to_pylist()
    ['wcw']
    >>> rollstat.report(t, ci=None).metrics["pass@1"]["value"] == rollstat.report(rows, ci=None).metrics["pass@1"]["value"]
    True
    """
    data, left = _mapped(data, _columns(columns))
    reading = dict(by=by, cluster_by=cluster_by, extract=extract, match=match, strict=strict, dedupe=dedupe)
    return _summary_table(_summarize(data, "<data>", dict(reading, source_format=source_format, columns=left)))


def _summarize_jsonl(data: Data, name: str, reading: Dict[str, Any]) -> str:
    """The summary JSON Lines of ``data`` (named ``name`` in its inputs)
    under the reading keywords of :func:`summarize`."""
    return _summarize(data, name, reading).to_jsonl()


def _summarize(data: Data, name: str, reading: Dict[str, Any]) -> Any:
    """The extension's summary (``_rollstat.SummaryTable``) of ``data``
    (named ``name`` in its inputs) under the reading keywords of
    :func:`summarize`."""
    get = reading.get
    srcs, names = _sources(data, name, "data")
    try:
        return _rollstat.summarize(
            srcs,
            dict(
                by=_opt_str(get("by"), "by"),
                cluster_by=_opt_str(get("cluster_by"), "cluster_by"),
                extract=_name(get("extract"), "extract"),
                match=_name(get("match"), "match"),
                source_format=_opt_str(get("source_format"), "source_format"),
                strict=bool(get("strict", False)),
                dedupe=_opt_str(get("dedupe"), "dedupe"),
                columns=_pairs(get("columns")),
            ),
        )
    except InputError as e:
        raise reraise(e, names) from None


def merge(tables: Sequence[Any]) -> Any:
    """Summaries of shards (tables from :func:`summarize` or :func:`merge`),
    in order, merged into one pyarrow Table: a problem split across shards
    gets the union of its rollouts (docs/summary.md, *Merging*). A rollout
    in two shards is resolved by the ``dedupe`` the shards were summarized
    with, and is an :class:`InputError` without one.

    >>> import rollstat
    >>> a = rollstat.summarize([{"problem": "p", "rollout": 0, "correct": True}])
    >>> b = rollstat.summarize([{"problem": "p", "rollout": 1, "correct": False}])
    >>> rollstat.merge([a, b]).column("verdicts").to_pylist()
    ['cw']
    """
    parts = list(tables)
    for i, t in enumerate(parts):
        if not _is_summary(t):
            raise TypeError(f"tables[{i}]: not a summary table (no rollstat_summary header in its schema metadata)")
    try:
        return _summary_table(_rollstat.merge(parts))
    except InputError as e:
        # Rows are named as summarize() named them: data[i] is row i of the
        # data a table was summarized from.
        raise reraise(e, {"<data>": "data"}) from None


# ------------------------------------------------------------------- power


def power(
    report: Union[Report, str, os.PathLike, Dict[str, Any], None] = None,
    *,
    problems: Optional[float] = _POWER["problems"],
    rollouts: Optional[float] = _POWER["rollouts"],
    delta: Optional[float] = _POWER["delta"],
    alpha: float = _POWER["alpha"],
    power: float = _POWER["power"],
    correlation: Optional[float] = _POWER["correlation"],
    omega2: Optional[float] = _POWER["omega2"],
    var_between: Optional[float] = _POWER["var_between"],
    baseline: Optional[float] = _POWER["baseline"],
    sigma2: Optional[float] = _POWER["sigma2"],
    factors: Sequence[float] = tuple(_POWER["factors"]),
    metric: Union[str, Sequence[str], None] = _POWER["metric"],
) -> PowerReport:
    """Minimum detectable effect and problems needed for a paired comparison
    of two systems (Miller 2024 §5): the numbers of ``rollstat power``.

    From parameters (``report`` None): ``problems`` N, ``rollouts`` K,
    ``delta`` (effect to detect, a fraction → problems needed), ``alpha``,
    ``power``, and the variance as ``omega2`` directly, or ``var_between``
    / ``baseline`` with ``correlation`` (and ``sigma2``, the within-problem
    variance of one rollout's score). From a report (a :class:`Report`, a
    report.json path or its dict): one row per fraction metric (unit
    ``fraction`` in :func:`metric_catalogue`: pass@k, maj@k, …) with a
    nonzero stderr, or per ``metric``; token and cost metrics
    (``budget@k``, ``cost_of_pass@k``) and zero-variance metrics are left
    out by default, and ``assumptions`` says which. ``factors``: cost multipliers for the rollouts-vs-problems
    trade-off table.

    Raises :class:`InputError` for inconsistent or out-of-range parameters.
    """
    text: Optional[str] = None
    source = "parameters"
    if isinstance(report, Report):
        text, source = report.to_json(), "<Report>"
    elif isinstance(report, dict):
        text, source = json.dumps(report), "<dict>"
    elif isinstance(report, (str, os.PathLike)):
        source = os.fspath(report)
        with open(source, encoding="utf-8") as f:
            text = f.read()
    elif report is not None:
        raise TypeError(f"report: expected a Report, a report.json path or dict, found {type(report).__name__}")
    out = _rollstat.power(
        text,
        source,
        dict(
            problems=_opt_float(problems, "problems"),
            rollouts=_opt_float(rollouts, "rollouts"),
            delta=_opt_float(delta, "delta"),
            alpha=_float(alpha, "alpha"),
            power=_float(power, "power"),
            correlation=_opt_float(correlation, "correlation"),
            omega2=_opt_float(omega2, "omega2"),
            var_between=_opt_float(var_between, "var_between"),
            baseline=_opt_float(baseline, "baseline"),
            sigma2=_opt_float(sigma2, "sigma2"),
            factors=_floats(factors, "factors"),
            metric=_strs(metric, "metric"),
        ),
    )
    return PowerReport(out)


# ----------------------------------------------------------------- grading


def _texts(values: Any, name: str) -> List[Optional[str]]:
    if isinstance(values, str):
        raise TypeError(f"{name}: expected a list of strings, found one string")
    if hasattr(values, "tolist"):
        values = values.tolist()
    out: List[Optional[str]] = []
    for i, v in enumerate(values):
        if v is None or isinstance(v, str):
            out.append(v)
        elif isinstance(v, float) and v != v:  # NaN: missing
            out.append(None)
        else:
            raise TypeError(f"{name}[{i}]: expected a string or None, found {type(v).__name__}")
    return out


def _gold(v: Any, i: int) -> List[str]:
    if isinstance(v, str):
        return [v]
    if isinstance(v, numbers.Number) and not isinstance(v, bool):
        return [str(v)]
    if isinstance(v, (list, tuple)) and all(isinstance(g, str) for g in v):
        return list(v)
    raise TypeError(f"golds[{i}]: expected a string, a number or a list of strings, found {type(v).__name__}")


def grade(
    responses: Sequence[Optional[str]],
    golds: Union[str, Sequence[Any]],
    *,
    extract: str = "math",
    match: str = "equivalent",
) -> Tuple[List[Optional[str]], np.ndarray]:
    """Grade responses against gold answers with the engine's grading policy
    (the one report and compare use for rows with ``gold``).

    ``responses``: a list or array of generated texts (None: no response).
    ``golds``: one gold per response (a string, a number, or a list of
    accepted answers), or a single string for all. A gold holding a
    GSM8K-style solution is reduced to the text after its last ``####``.

    Returns ``(answers, correct)``: the extracted answer of each response
    (None where nothing was extracted; junk answers count as unextracted)
    and a bool numpy array. ``extract``: ``math``, ``mcq``, ``number`` or
    ``regex:PATTERN``; ``match``: ``equivalent`` (``0.5`` = ``\\frac12``) or
    ``exact`` (trimmed strings). The GIL is released while grading.

    >>> grade(["so $\\\\boxed{0.5}$"], ["\\\\frac12"])
    (['0.5'], array([ True]))
    """
    texts = _texts(responses, "responses")
    if isinstance(golds, str):
        gold_lists = [[golds]] * len(texts)
    else:
        if hasattr(golds, "tolist"):
            golds = golds.tolist()
        gold_lists = [_gold(g, i) for i, g in enumerate(golds)]
    answers, correct = _rollstat.grade(texts, gold_lists, extract, match)
    return answers, np.array(correct, dtype=bool)


def extract_answer(text: str, mode: str = "math") -> Optional[str]:
    """The final answer of a response (``\\boxed{}``, "the answer is", the last
    number, …) under ``mode``: ``math``, ``mcq`` (a letter A–J), ``number``,
    or ``regex:PATTERN`` (first group of the last match). None when nothing
    — or only a junk answer such as ``[invalid]`` — is found.

    >>> extract_answer("so the answer is $\\\\boxed{\\\\frac{1}{2}}$.")
    '\\\\frac{1}{2}'
    """
    if not isinstance(text, str):
        raise TypeError(f"text: expected a string, found {type(text).__name__}")
    return _rollstat.extract_answer(text, mode)


def is_equivalent(gold: str, answer: str, *, reason: bool = False) -> Union[bool, Tuple[bool, str]]:
    """Whether ``answer`` is mathematically equivalent to ``gold``: LaTeX and
    plain math are parsed and compared exactly (big rationals, radicals),
    numerically, or by evaluation at sample points for expressions with
    variables. With ``reason=True`` returns ``(equal, why)``, why being one of
    String, Structural, ExactRational, ExactRadical, Rounding,
    NumericTolerance, Identity, Different, Unparseable, LimitExceeded.

    >>> is_equivalent("0.5", "\\\\frac12")
    True
    """
    if not isinstance(gold, str) or not isinstance(answer, str):
        raise TypeError("is_equivalent: gold and answer must be strings")
    equal, why = _rollstat.is_equivalent(gold, answer)
    return (equal, why) if reason else equal


def metric_catalogue() -> List[Dict[str, Any]]:
    """Every metric family rollstat computes, in report order, as the engine's
    catalogue describes it: ``family`` (the key grammar, ``pass@{k}``),
    ``unit`` (``fraction``, ``count``, ``budget``, ``budget_per_solved``),
    ``needs`` (what the rows must carry: ``rollout_order``, ``answers``,
    ``scores``, ``budget``), ``headline`` (whether the printed table shows it:
    ``always``, ``when_tau_asked``, ``never``), ``compared`` (``verdict``,
    ``row``, or ``none`` with ``not_compared_because``), ``primary`` (which
    row of the family is in :func:`compare`'s default family of primary
    metrics: ``smallest_k``, ``largest_k`` or ``none``) and ``description``.

    >>> [f["family"] for f in metric_catalogue()][:3]
    ['pass@{k}', 'pass^{k}', 'g-pass@{k}_{tau}']
    """
    return _rollstat.metric_catalogue()


def metric_family(key: str) -> str:
    """The family (key grammar) of a report's metric key; ``ValueError`` for a
    text that is no metric key.

    >>> metric_family("pass^4"), metric_family("cost_of_maj@8")
    ('pass^{k}', 'cost_of_{pass|maj|bon}@{k}')
    """
    return _rollstat.metric_family(key)
