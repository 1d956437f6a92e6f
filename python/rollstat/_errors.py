"""Errors and warnings of the rollstat package, and the naming of rows."""

from __future__ import annotations

import re
import warnings
from typing import Dict, Iterable, List, Sequence, Tuple

from ._rollstat import InputError


class RollstatWarning(UserWarning):
    """Something about the input that did not stop the report: malformed rows
    skipped in lenient mode (``strict=False``), unreadable or empty files.

    Each is also counted in the report (``health['n_bad_lines']``,
    ``Report.bad_rows``)."""


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


def reraise(e: InputError, names: Names) -> InputError:
    """The same InputError with in-memory rows named the Python way."""
    return InputError(rename_rows(str(e), names))


def _strip_level(message: str) -> str:
    for prefix in ("warning: ", "error: "):
        if message.startswith(prefix):
            return message[len(prefix):]
    return message


def warn_messages(messages: Iterable[str], names: Names, stacklevel: int = 3) -> None:
    """Reading messages (unreadable files, empty inputs) as RollstatWarnings."""
    for m in messages:
        warnings.warn(rename_rows(_strip_level(m), names), RollstatWarning, stacklevel=stacklevel + 1)


REPORT_BAD_ROWS = "counted in health['n_bad_lines'], listed in Report.bad_rows; strict=True makes them an error"


def warn_bad_rows(
    locations: Sequence[Tuple[str, str]], stacklevel: int = 3, unnamed: int = 0, note: str = REPORT_BAD_ROWS
) -> None:
    """One RollstatWarning naming the first malformed rows skipped (and
    counting ``unnamed`` more that the engine did not name); ``note`` says
    where they are counted."""
    if not locations:
        return
    total = len(locations) + unnamed
    shown = [f"{where}: {why}" for where, why in locations[:5]]
    more = f"; … and {total - len(shown)} more" if total > len(shown) else ""
    warnings.warn(
        f"{total} malformed rows were skipped: " + "; ".join(shown) + more
        + f" ({note})",
        RollstatWarning,
        stacklevel=stacklevel + 1,
    )


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
