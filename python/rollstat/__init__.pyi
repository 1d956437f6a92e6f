"""Type stubs of :mod:`rollstat`."""

import os
from collections.abc import Mapping
from typing import Any, Dict, Iterator, List, NamedTuple, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

class InputError(ValueError):
    """Bad input or options: names the keyword argument, or the row."""

class RollstatWarning(UserWarning):
    """Malformed rows skipped, unreadable or empty inputs (lenient mode)."""

class BadRow(NamedTuple):
    location: str
    reason: str

_Count = Union[int, np.integer[Any]]
_ArrayLike = Union[npt.ArrayLike, Sequence[int]]

@overload
def pass_at_k(n: _Count, c: _Count, k: _Count) -> float: ...
@overload
def pass_at_k(n: _ArrayLike, c: _ArrayLike, k: _ArrayLike) -> npt.NDArray[np.float64]: ...
@overload
def pass_pow_k(n: _Count, c: _Count, k: _Count) -> float: ...
@overload
def pass_pow_k(n: _ArrayLike, c: _ArrayLike, k: _ArrayLike) -> npt.NDArray[np.float64]: ...
@overload
def g_pass_at_k(n: _Count, c: _Count, k: _Count, tau: float) -> float: ...
@overload
def g_pass_at_k(n: _ArrayLike, c: _ArrayLike, k: _ArrayLike, tau: npt.ArrayLike) -> npt.NDArray[np.float64]: ...
@overload
def mg_pass_at_k(n: _Count, c: _Count, k: _Count) -> float: ...
@overload
def mg_pass_at_k(n: _ArrayLike, c: _ArrayLike, k: _ArrayLike) -> npt.NDArray[np.float64]: ...

class Metrics(Mapping[str, Dict[str, Any]]):
    def __getitem__(self, name: str) -> Dict[str, Any]: ...
    def __iter__(self) -> Iterator[str]: ...
    def __len__(self) -> int: ...
    def rows(self) -> List[Dict[str, Any]]: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def to_arrow(self) -> Any: ...

class Report:
    bad_rows: List[BadRow]
    metrics: Metrics
    def __init__(
        self, json_text: str, bad_rows: Sequence[BadRow] = ..., *, typed: Any = ..., tau_asked: bool = ...
    ) -> None: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json(self) -> str: ...
    @property
    def health(self) -> Dict[str, Any]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def not_computable(self) -> Dict[str, str]: ...
    @property
    def groups(self) -> Dict[str, Any]: ...
    @property
    def config(self) -> Dict[str, Any]: ...
    @property
    def inputs(self) -> List[Dict[str, Any]]: ...
    @property
    def per_problem(self) -> Optional[List[Dict[str, Any]]]: ...
    def metrics_frame(self) -> Any: ...
    def to_pandas(self) -> Any: ...
    def to_html(self, path: Optional[str] = ..., *, all: bool = ...) -> str: ...
    def _repr_html_(self) -> str: ...

class Comparison:
    def __init__(self, json_text: str, *, typed: Any = ...) -> None: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json(self) -> str: ...
    @property
    def rows(self) -> List[Dict[str, Any]]: ...
    @property
    def verdicts(self) -> Dict[str, Optional[str]]: ...
    @property
    def fail(self) -> Optional[Dict[str, Any]]: ...
    @property
    def failed(self) -> bool: ...
    @property
    def pairs(self) -> Dict[str, int]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def not_computable(self) -> List[Dict[str, Any]]: ...
    @property
    def config(self) -> Dict[str, Any]: ...
    @property
    def a(self) -> Dict[str, Any]: ...
    @property
    def b(self) -> Dict[str, Any]: ...
    def table(self) -> List[Dict[str, Any]]: ...
    def to_pandas(self) -> Any: ...
    def to_polars(self) -> Any: ...
    def to_arrow(self) -> Any: ...
    def to_html(self, path: Optional[str] = ...) -> str: ...
    def _repr_html_(self) -> str: ...

class PowerReport:
    def __init__(self, json_text: str) -> None: ...
    def to_dict(self) -> Dict[str, Any]: ...
    def to_json(self) -> str: ...
    @property
    def rows(self) -> List[Dict[str, Any]]: ...
    @property
    def assumptions(self) -> List[str]: ...
    def to_pandas(self) -> Any: ...

Data = Any

def report(
    data: Data,
    *,
    k: Union[int, Sequence[int], None] = ...,
    tau: Union[float, Sequence[float]] = ...,
    ci: Optional[str] = ...,
    level: float = ...,
    resamples: int = ...,
    seed: int = ...,
    cluster_by: Optional[str] = ...,
    by: Optional[str] = ...,
    tie_policy: str = ...,
    score_order: str = ...,
    denominator: str = ...,
    extract: str = ...,
    match: str = ...,
    source_format: Optional[str] = ...,
    strict: bool = ...,
    per_problem: bool = ...,
    n: Optional[int] = ...,
    dedupe: Optional[str] = ...,
    max_decompressed: Union[int, str, None] = ...,
    budget: Optional[str] = ...,
    extrapolate: Union[int, Sequence[int], None] = ...,
) -> Report: ...
def summarize(
    data: Data,
    *,
    by: Optional[str] = ...,
    cluster_by: Optional[str] = ...,
    extract: str = ...,
    match: str = ...,
    source_format: Optional[str] = ...,
    strict: bool = ...,
    dedupe: Optional[str] = ...,
) -> Any: ...
def merge(tables: Sequence[Any]) -> Any: ...
def compare(
    a: Data,
    b: Optional[Data] = ...,
    *,
    by: Optional[str] = ...,
    a_name: Optional[str] = ...,
    b_name: Optional[str] = ...,
    group_by: Optional[str] = ...,
    margin: Optional[float] = ...,
    fail_on: Optional[str] = ...,
    metric: Union[str, Sequence[str], None] = ...,
    permutations: int = ...,
    k: Union[int, Sequence[int], None] = ...,
    tau: Union[float, Sequence[float]] = ...,
    n: Optional[int] = ...,
    ci: Optional[str] = ...,
    level: float = ...,
    resamples: int = ...,
    seed: int = ...,
    cluster_by: Optional[str] = ...,
    tie_policy: str = ...,
    score_order: str = ...,
    denominator: str = ...,
    extract: str = ...,
    match: str = ...,
    source_format: Optional[str] = ...,
    strict: bool = ...,
    dedupe: Optional[str] = ...,
    max_decompressed: Union[int, str, None] = ...,
    budget: Optional[str] = ...,
) -> Comparison: ...
def power(
    report: Union[Report, str, os.PathLike[str], Dict[str, Any], None] = ...,
    *,
    problems: Optional[float] = ...,
    rollouts: Optional[float] = ...,
    delta: Optional[float] = ...,
    alpha: float = ...,
    power: float = ...,
    correlation: Optional[float] = ...,
    omega2: Optional[float] = ...,
    var_between: Optional[float] = ...,
    baseline: Optional[float] = ...,
    sigma2: Optional[float] = ...,
    factors: Sequence[float] = ...,
    metric: Union[str, Sequence[str], None] = ...,
) -> PowerReport: ...
def grade(
    responses: Sequence[Optional[str]],
    golds: Union[str, Sequence[Any]],
    *,
    extract: str = ...,
    match: str = ...,
) -> Tuple[List[Optional[str]], npt.NDArray[np.bool_]]: ...
def extract_answer(text: str, mode: str = ...) -> Optional[str]: ...
@overload
def is_equivalent(gold: str, answer: str) -> bool: ...
@overload
def is_equivalent(gold: str, answer: str, *, reason: bool) -> Union[bool, Tuple[bool, str]]: ...
