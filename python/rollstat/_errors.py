"""Errors and warnings of the rollstat package, and the naming of rows."""

from __future__ import annotations

import os
import re
import sys
import warnings
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from ._rollstat import InputError, MalformedRows


class RollstatWarning(UserWarning):
    """Something about the input that did not stop the report: malformed rows
    skipped in lenient mode (``strict=False``), unreadable or empty files.

    Each is also counted in the report (``health['n_bad_lines']``,
    ``Report.bad_rows``)."""


class MetricNotFound(KeyError):
    """A metric the document does not have: names it and the ones it has
    (a KeyError, so ``except KeyError`` and ``dict.get``-style code keep
    working)."""

    def __init__(self, metric: str, available: Iterable[str]):
        self.metric = metric
        self.available = list(available)
        super().__init__(metric)

    def __str__(self) -> str:
        shown = ", ".join(self.available[:12])
        more = f", … ({len(self.available)} in all)" if len(self.available) > 12 else ""
        hint = f"; available: {shown}{more}" if self.available else "; the document has no metrics"
        return f"no metric {self.metric!r} in this report{hint}"


# In-memory rows are handed to the engine under a name like "<data>"; the
# engine names row i as "<data>:i+1". Python shows "data[i]"
# (or "data.iloc[i]" for a pandas DataFrame).
Names = Dict[str, str]


def rename_rows(text: str, names: Names) -> str:
    """``<data>:4`` → ``data[3]`` for every in-memory source in ``names``."""
    for name, label in names.items():
        text = re.sub(
            re.escape(name) + r":(\d+)",
            lambda m: f"{label}[{int(m.group(1)) - 1}]",
            text,
        )
    return text


def reraise(e: InputError, names: Names, columns: Optional[Sequence[str]] = None) -> InputError:
    """The same InputError with in-memory rows named the Python way. When
    every row was malformed (:class:`MalformedRows`), the columns the data
    has (``columns``, for in-memory data) are added to the message."""
    if isinstance(e, MalformedRows) and len(e.args) == 3:
        text, total, rows = e.args
        text = rename_rows(text, names)
        if columns is not None:
            found = ", ".join(repr(c) for c in columns[:20]) or "none"
            text += f"; columns found: {found}"
        out = MalformedRows(text)
        out.total = total  # type: ignore[attr-defined]
        out.rows = [(rename_rows(where, names), why) for where, why in rows]  # type: ignore[attr-defined]
        return out
    return InputError(rename_rows(str(e), names))


def _strip_level(message: str) -> str:
    for prefix in ("warning: ", "error: "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


def user_stacklevel() -> int:
    """The ``stacklevel`` that attributes a warning raised by a caller of
    this function to the first frame outside the rollstat package: the
    user's line, however deep inside the package the warning is raised
    (``warnings.warn(..., stacklevel=user_stacklevel())``)."""
    level = 1
    frame = sys._getframe(1)
    while frame is not None:
        path = os.path.abspath(frame.f_code.co_filename)
        if os.path.dirname(path) != _PACKAGE_DIR:
            return level
        frame = frame.f_back
        level += 1
    return level


def warn(message: str) -> None:
    """A RollstatWarning attributed to the user's line."""
    warnings.warn(message, RollstatWarning, stacklevel=user_stacklevel())


def warn_messages(messages: Iterable[str], names: Names) -> None:
    """Reading messages (unreadable files, empty inputs) as RollstatWarnings."""
    for m in messages:
        warn(rename_rows(_strip_level(m), names))


REPORT_BAD_ROWS = "counted in health['n_bad_lines'], listed in Report.bad_rows; strict=True makes them an error"


def warn_bad_rows(locations: Sequence[Tuple[str, str]], unnamed: int = 0, note: str = REPORT_BAD_ROWS) -> None:
    """One RollstatWarning naming the first malformed rows skipped (and
    counting ``unnamed`` more that the engine did not name); ``note`` says
    where they are counted."""
    if not locations:
        return
    total = len(locations) + unnamed
    shown = [f"{where}: {why}" for where, why in locations[:5]]
    more = f"; … and {total - len(shown)} more" if total > len(shown) else ""
    warn(f"{total} malformed rows were skipped: " + "; ".join(shown) + more + f" ({note})")


def split_bad_row_messages(messages: List[str]) -> Tuple[List[str], int, List[str]]:
    """compare's reading messages: (malformed-row lines, how many more rows
    the engine only counted, the rest)."""
    rows, rest, more = [], [], 0
    for m in messages:
        counted = re.fullmatch(r"… and (\d+) more malformed rows", m)
        if counted:
            more += int(counted.group(1))
        elif m.startswith(("warning: ", "error: ")):
            rest.append(m)
        else:
            rows.append(m)
    return rows, more, rest
