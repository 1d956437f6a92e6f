"""Shared fixtures: the repository's files and the CLI built from the same
checkout (the reference the Python numbers must equal)."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any, Dict, List

import pytest

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "examples" / "demo.jsonl"


def _cli_binary() -> Path:
    given = os.environ.get("ROLLSTAT_BIN")
    if given:
        return Path(given)
    # A debug build of the CLI: `cargo test --workspace` (run first by
    # scripts/test) has built it already, so this is quick.
    subprocess.run(
        ["cargo", "build", "-q", "-p", "rollstat-cli"], cwd=ROOT, check=True
    )
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    if not target.is_absolute():
        target = ROOT / target
    return target / "debug" / "rollstat"


class Cli:
    """Runs the rollstat command and parses its JSON output."""

    def __init__(self, binary: Path):
        self.binary = binary

    def run(self, *args: str, ok: bool = True) -> subprocess.CompletedProcess:
        p = subprocess.run([str(self.binary), *map(str, args)], capture_output=True, text=True)
        if ok and p.returncode not in (0, 1):
            raise AssertionError(f"rollstat {' '.join(map(str, args))} failed ({p.returncode}): {p.stderr}")
        return p

    def json(self, *args: str) -> Dict[str, Any]:
        return json.loads(self.run(*args, "--format", "json").stdout)


@pytest.fixture(scope="session")
def cli() -> Cli:
    binary = _cli_binary()
    assert binary.exists(), f"no CLI binary at {binary}"
    return Cli(binary)


@pytest.fixture(scope="session")
def demo() -> Path:
    return DEMO


@pytest.fixture(scope="session")
def demo_rows() -> List[Dict[str, Any]]:
    with open(DEMO, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _unworded(holder: Dict[str, Any]) -> None:
    """Drops a document's findings' words (``warnings`` and each typed
    finding's ``text``); the findings' kinds and data stay."""
    holder.pop("warnings", None)
    for f in holder.get("findings", []):
        f.pop("text", None)


def without_warnings(doc: Dict[str, Any]) -> Dict[str, Any]:
    """A report/compare dict without its findings' wording (the CLI names
    flags, Python names keyword arguments) — every number, and every
    finding's kind and data, stays."""
    doc = json.loads(json.dumps(doc))
    if "health" in doc:
        _unworded(doc["health"])
    for g in doc.get("groups", {}).values():
        _unworded(g["health"])
    _unworded(doc)
    return doc


def write_jsonl(path: Path, rows: List[Dict[str, Any]]) -> Path:
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    return path
