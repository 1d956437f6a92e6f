"""Type stubs of the compiled extension ``rollstat._rollstat`` (internal:
use the functions of :mod:`rollstat`)."""

from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

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
    def text(self, *, all: bool, tau_asked: bool) -> str: ...

class TypedComparison:
    """The engine's typed comparison (what compare.json is the text of)."""
    @staticmethod
    def from_json(text: str) -> TypedComparison: ...
    def html(self, *, all: bool, tau_asked: bool) -> str: ...
    def text(self, *, all: bool, tau_asked: bool) -> str: ...

class TypedGate:
    """The engine's typed gate (what gate.json is the text of)."""
    @staticmethod
    def from_json(text: str) -> TypedGate: ...
    def exit_code(self) -> int: ...
    def html(self) -> str: ...
    def text(self, *, markdown: bool = ...) -> str: ...

class TypedRanking:
    """The engine's typed ranking (what rank.json is the text of)."""
    @staticmethod
    def from_json(text: str) -> TypedRanking: ...
    def html(self) -> str: ...
    def text(self, *, markdown: bool = ...) -> str: ...

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

# A path, or in-memory rows: (name, "arrow" | "summary" | "bytes" | "dicts",
# data, label, default).
Source = Union[str, Tuple[str, str, Any, str, Any]]

# The keyword arguments of one call, keyed by the public keyword names (``ci``,
# ``match``, ``a_name``, …); an absent or None value takes the engine's default.
Options = Dict[str, Any]

def defaults() -> Dict[str, Dict[str, Any]]:
    """The engine's defaults of ``report``, ``compare``, ``summarize``,
    ``power``, ``gate`` and ``rank``, by keyword."""
    ...

def report(
    sources: Sequence[Source], options: Options
) -> Tuple[str, List[Tuple[str, int, str]], List[str], TypedReport]: ...
def compare(sources: Sequence[Source], options: Options) -> Tuple[str, List[str], TypedComparison]: ...
def summarize(sources: Sequence[Source], options: Options) -> Any: ...
def merge(parts: List[Any]) -> Any: ...
# (kind "toml" | "json", text, name, base directory); data: placeholder name
# → in-memory sources.
def gate(plan: Tuple[str, str, str, str], data: Dict[str, Sequence[Source]]) -> Tuple[str, List[str], TypedGate]: ...
def rank(sources: Sequence[Source], options: Options) -> Tuple[str, List[str], TypedRanking]: ...
def power(report_json: Optional[str], source: str, options: Options) -> str: ...
def power_text(json: str) -> str: ...

def grade(
    responses: List[Optional[str]], golds: List[List[str]], extract: str, matching: str
) -> Tuple[List[Optional[str]], List[bool]]: ...

def extract_answer(text: str, mode: str) -> Optional[str]: ...

def is_equivalent(gold: str, answer: str) -> Tuple[bool, str]: ...
def metric_catalogue() -> List[Dict[str, Any]]:
    """Every metric family of the engine's catalogue, in report order."""
    ...
def metric_family(key: str) -> str:
    """The family (key grammar) of a report key; ValueError for no key."""
    ...

class MalformedRows(InputError):
    """Every row was malformed. Raised by the extension with args (message,
    how many rows, [(row, reason), …]); the package re-raises it with the
    message alone and ``total`` / ``rows`` attributes."""
    total: int
    rows: List[Tuple[str, str]]
