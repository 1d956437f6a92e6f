"""Type stubs of the compiled extension ``rollstat._rollstat`` (internal:
use the functions of :mod:`rollstat`)."""

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class InputError(ValueError):
    """Bad input or options: names the keyword argument or the row."""

class TypedReport:
    """The engine's typed report (what report.json is the text of)."""
    @staticmethod
    def from_json(text: str) -> TypedReport: ...
    def html(self, *, all: bool, tau_asked: bool) -> str: ...

class TypedComparison:
    """The engine's typed comparison (what compare.json is the text of)."""
    @staticmethod
    def from_json(text: str) -> TypedComparison: ...
    def html(self) -> str: ...

def estimate(
    kind: str,
    n: npt.NDArray[np.uint64],
    c: npt.NDArray[np.uint64],
    k: npt.NDArray[np.uint64],
    tau: npt.NDArray[np.float64],
) -> Tuple[npt.NDArray[np.float64], int]: ...

# n and c: flat arrays of one dtype (int64, int32, uint64 or uint32), read in
# place; returns (values, first bad index or -1, reason: 0 c > n, 1 n < 0, 2 c < 0).
def estimate_counts(
    kind: str,
    n: npt.NDArray[Any],
    c: npt.NDArray[Any],
    k: int,
) -> Tuple[npt.NDArray[np.float64], int, int]: ...

# A path, or in-memory rows: (name, "arrow" | "dicts", data, label, default).
Source = Union[str, Tuple[str, str, Any, str, Any]]

def report(
    sources: Sequence[Source],
    *,
    k: Optional[List[int]],
    tau: List[float],
    ci: str,
    level: float,
    resamples: int,
    seed: int,
    cluster_by: Optional[str],
    by: Optional[str],
    tie_policy: str,
    score_order: str,
    denominator: str,
    extract: str,
    matching: str,
    source_format: Optional[str],
    strict: bool,
    per_problem: bool,
    n: Optional[int],
    dedupe: Optional[str],
    max_decompressed: Optional[int],
    budget: str,
    extrapolate: List[int],
) -> Tuple[str, List[Tuple[str, int, str]], List[str], TypedReport]: ...

def compare(
    sources: Sequence[Source],
    *,
    by: Optional[str],
    a_name: Optional[str],
    b_name: Optional[str],
    group_by: Optional[str],
    margin: Optional[float],
    fail_on: Optional[str],
    metric: Optional[List[str]],
    permutations: int,
    k: Optional[List[int]],
    tau: List[float],
    n: Optional[int],
    denominator: str,
    tie_policy: str,
    score_order: str,
    strict: bool,
    dedupe: Optional[str],
    max_decompressed: Optional[int],
    ci: str,
    level: float,
    resamples: int,
    seed: int,
    cluster_by: Optional[str],
    extract: str,
    matching: str,
    source_format: Optional[str],
    budget: str,
) -> Tuple[str, List[str], TypedComparison]: ...

def summarize(
    sources: Sequence[Source],
    *,
    by: Optional[str],
    cluster_by: Optional[str],
    extract: str,
    matching: str,
    source_format: Optional[str],
    strict: bool,
    dedupe: Optional[str],
) -> str: ...
def merge(parts: List[str]) -> str: ...
def power(
    report_json: Optional[str],
    source: str,
    *,
    problems: Optional[float],
    rollouts: Optional[float],
    delta: Optional[float],
    alpha: float,
    power: float,
    correlation: Optional[float],
    omega2: Optional[float],
    var_between: Optional[float],
    baseline: Optional[float],
    sigma2: Optional[float],
    factors: List[float],
    metric: Optional[List[str]],
) -> str: ...

def grade(
    responses: List[Optional[str]], golds: List[List[str]], extract: str, matching: str
) -> Tuple[List[Optional[str]], List[bool]]: ...

def extract_answer(text: str, mode: str) -> Optional[str]: ...

def is_equivalent(gold: str, answer: str) -> Tuple[bool, str]: ...
