#!/usr/bin/env bash
# Usage: bench/json-parsers/run.sh FILE.jsonl — prints MB/s per parser (one thread).
set -euo pipefail
cd "$(dirname "$0")"
cargo run --release -q -- "$1"
