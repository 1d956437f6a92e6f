//! Raw inputs: bytes from a file or stdin, their format and digest, and
//! the split into parsed rows.

use crate::record::Record;
use crate::ReadError;
use rayon::prelude::*;
use serde_json::{Map, Value};
use sha2::{Digest, Sha256};
use std::fmt;
use std::io::Read;
use std::path::Path;

/// The canonical encodings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    Jsonl,
    Csv,
}

impl fmt::Display for InputFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            InputFormat::Jsonl => "canonical-jsonl",
            InputFormat::Csv => "canonical-csv",
        })
    }
}

/// Where an input's bytes come from.
enum Source {
    Bytes(Vec<u8>),
    /// A file, read in blocks; `head` holds the bytes already read to sniff it.
    File {
        file: std::fs::File,
        head: Vec<u8>,
    },
}

/// One input: its name, its bytes (in memory, or a file read in blocks) and
/// its format.
pub struct Input {
    path: String,
    source: Source,
    format: InputFormat,
}

/// Bytes read per block when streaming an input.
pub(crate) const BLOCK: usize = 8 << 20;

impl Input {
    /// Opens a file (read later, in blocks), or reads stdin for `-`.
    pub fn open(path: &str) -> Result<Input, ReadError> {
        let io = |source| ReadError::Io {
            path: path.to_string(),
            source,
        };
        if path == "-" {
            let mut b = Vec::new();
            std::io::stdin().read_to_end(&mut b).map_err(io)?;
            return Ok(Input::from_bytes("<stdin>", b));
        }
        let mut file = std::fs::File::open(Path::new(path)).map_err(io)?;
        let mut head = Vec::with_capacity(4096);
        (&mut file).take(4096).read_to_end(&mut head).map_err(io)?;
        let format = sniff(path, &head);
        Ok(Input {
            path: path.to_string(),
            source: Source::File { file, head },
            format,
        })
    }

    /// Wraps bytes; the format comes from the extension, else the content.
    pub fn from_bytes(path: &str, bytes: Vec<u8>) -> Input {
        let format = sniff(path, &bytes);
        Input {
            path: path.to_string(),
            source: Source::Bytes(bytes),
            format,
        }
    }

    pub fn display_path(&self) -> &str {
        &self.path
    }

    pub fn format(&self) -> InputFormat {
        self.format
    }

    /// Parses every non-blank row at once: `(line number, row or reason)`,
    /// in input order. Holds every row in memory; `Collector::add` streams
    /// instead. A file input is read again from its path.
    pub fn parse_rows(
        &self,
        by: Option<&str>,
        cluster_by: Option<&str>,
    ) -> Vec<(u64, Result<Record, String>)> {
        self.parse_rows_budget(by, cluster_by, None)
    }

    /// [`Input::parse_rows`] that also reads the budget field `budget`.
    pub fn parse_rows_budget(
        &self,
        by: Option<&str>,
        cluster_by: Option<&str>,
        budget: Option<&str>,
    ) -> Vec<(u64, Result<Record, String>)> {
        let owned;
        let bytes: &[u8] = match &self.source {
            Source::Bytes(b) => b,
            Source::File { .. } => {
                owned = std::fs::read(&self.path).unwrap_or_default();
                &owned
            }
        };
        match self.format {
            InputFormat::Jsonl => parse_jsonl(bytes, 1, [by, cluster_by, budget]),
            InputFormat::Csv => parse_csv(bytes, by, cluster_by, budget),
        }
    }

    /// The bytes as a reader, from the start.
    pub fn into_reader(self) -> Box<dyn Read + Send> {
        match self.source {
            Source::Bytes(b) => Box::new(std::io::Cursor::new(b)),
            Source::File { file, head } => Box::new(std::io::Cursor::new(head).chain(file)),
        }
    }
}

/// Hex of a digest.
pub(crate) fn hex(digest: &[u8]) -> String {
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// A fresh SHA-256 hasher.
pub(crate) fn hasher() -> Sha256 {
    Sha256::new()
}

fn sniff(path: &str, bytes: &[u8]) -> InputFormat {
    let lower = path.to_ascii_lowercase();
    if lower.ends_with(".csv") {
        return InputFormat::Csv;
    }
    if lower.ends_with(".jsonl") || lower.ends_with(".ndjson") || lower.ends_with(".json") {
        return InputFormat::Jsonl;
    }
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'{') | None => InputFormat::Jsonl,
        _ => InputFormat::Csv,
    }
}

/// Parses the JSON Lines in `bytes` in parallel, numbering lines from
/// `first_line`; blank lines are skipped; order is kept.
pub(crate) fn parse_jsonl(
    bytes: &[u8],
    first_line: u64,
    [by, cluster_by, budget]: [Option<&str>; 3],
) -> Vec<(u64, Result<Record, String>)> {
    // Split into lines first (cheap, memchr), then parse in parallel; the
    // order of rows is kept so rollout indices and --dedupe stay defined.
    let lines = crate::fold::split_lines(bytes, first_line);
    lines
        .par_iter()
        .with_min_len(256)
        .map(|&(no, line)| (no, parse_json_line(line, by, cluster_by, budget)))
        .collect()
}

fn parse_json_line(
    line: &[u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
    budget: Option<&str>,
) -> Result<Record, String> {
    crate::fold::parse_json_row(line, by, cluster_by, budget).map(crate::fold::Row::into_record)
}

/// The general path: any row form, and the wording of every error.
pub(crate) fn parse_general(
    line: &[u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
    budget: Option<&str>,
) -> Result<Record, String> {
    crate::record::parse_whole_row(
        &crate::record::parse_row_object(line)?,
        by,
        cluster_by,
        budget,
    )
}

/// Columns that are always text, even when they look numeric
/// (an answer "0.50" must not become 0.5).
const TEXT_COLUMNS: [&str; 9] = [
    "problem",
    "answer",
    "gold",
    "response",
    "finish_reason",
    "group",
    "subset",
    "model",
    "run",
];

/// One CSV cell as a JSON value. Text columns, and the breakdown and
/// cluster fields (labels: `01` and `1` are different groups), stay text.
fn csv_cell(column: &str, cell: &str, labels: [Option<&str>; 2]) -> Option<Value> {
    if cell.is_empty() {
        return Some(Value::Null);
    }
    if TEXT_COLUMNS.contains(&column) || labels.contains(&Some(column)) {
        return Some(Value::String(cell.to_string()));
    }
    let t = cell.trim();
    if t.starts_with('[') {
        if let Ok(v) = serde_json::from_str(t) {
            return Some(v);
        }
    }
    match t.to_ascii_lowercase().as_str() {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    if let Ok(i) = t.parse::<i64>() {
        return Some(Value::from(i));
    }
    if let Ok(f) = t.parse::<f64>() {
        if let Some(n) = serde_json::Number::from_f64(f) {
            return Some(Value::Number(n));
        }
    }
    Some(Value::String(cell.to_string()))
}

pub(crate) fn parse_csv(
    bytes: &[u8],
    by: Option<&str>,
    cluster_by: Option<&str>,
    budget: Option<&str>,
) -> Vec<(u64, Result<Record, String>)> {
    let mut rdr = csv::ReaderBuilder::new().flexible(false).from_reader(bytes);
    let headers = match rdr.headers() {
        Ok(h) => h.clone(),
        Err(e) => return vec![(1, Err(format!("invalid CSV header: {e}")))],
    };
    // A column named twice: which cell is meant is unclear (as a key given
    // twice in a JSON row).
    let mut names = std::collections::HashSet::new();
    if let Some(dup) = headers.iter().find(|h| !names.insert(*h)) {
        return vec![(
            1,
            Err(format!(
                "invalid CSV header: column `{dup}` appears twice (which cell is meant is unclear)"
            )),
        )];
    }
    let mut out = Vec::new();
    for row in rdr.records() {
        match row {
            Ok(rec) => {
                let line = rec.position().map(|p| p.line()).unwrap_or(0);
                let mut m = Map::new();
                for (h, cell) in headers.iter().zip(rec.iter()) {
                    if let Some(v) = csv_cell(h, cell, [by, cluster_by]) {
                        if !(v.is_null() && h != "correct" && h != "answer") {
                            m.insert(h.to_string(), v);
                        }
                    }
                }
                out.push((
                    line,
                    crate::record::parse_whole_row(&m, by, cluster_by, budget),
                ));
            }
            Err(e) => {
                let line = e.position().map(|p| p.line()).unwrap_or(0);
                out.push((line, Err(format!("invalid CSV row: {e}"))));
            }
        }
    }
    out
}
