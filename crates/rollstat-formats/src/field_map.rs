//! Reading any layout through a field map ([`rollstat_io::field_map`]):
//! JSON documents, JSON Lines, CSV and Parquet files become records, and
//! the map turns each record into canonical rows. A file read this way is
//! reported as format `field-map`.
//!
//! Also here: the map suggested for a file no format fits, built from its
//! first record's keys when they look like an id, a verdict, answers and a
//! gold.

use std::path::Path;

use rollstat_io::field_map::{FieldMap, FieldMapError};
use serde_json::{Map, Value};

use crate::detect::Probe;
use crate::error::FormatError;
use crate::format::Format;
use crate::NativeFile;

/// `field-map`: never detected; a file is read this way only with a map.
pub(crate) fn detect(_: &Probe<'_>) -> Result<(), String> {
    Err("read only with a field map".into())
}

/// Without a map there is nothing to read the file with.
pub(crate) fn read_without_map(path: &Path) -> Result<NativeFile, FormatError> {
    Err(FormatError::parse(
        path,
        None,
        "the field-map format reads a file only with a field map",
        "give a field map (problem=PATH,correct=PATH,…)",
    ))
}

/// Reads decompressed `bytes` of `path` through `map`.
pub fn read(path: &Path, bytes: &[u8], map: &FieldMap) -> Result<NativeFile, FormatError> {
    let mut file = NativeFile::new(path, Format::FieldMap);
    let records = if bytes.starts_with(b"PAR1") {
        parquet_records(path, bytes)?
    } else if is_csv(path, bytes) {
        csv_records(path, bytes)?
    } else {
        let text = crate::input::text(path, bytes, &mut file.warnings).into_owned();
        json_records(path, &text)?
    };
    let mut seen_ok = false;
    let mut first_err = None;
    for (line, doc) in records {
        let mut fail = |e: FieldMapError, file: &mut NativeFile| {
            file.bad_lines += 1;
            let at = match line {
                0 => String::new(),
                n => format!(":{n}"),
            };
            let shown = path.display();
            file.warnings
                .push(format!("{shown}{at}: {e}; record skipped"));
            first_err.get_or_insert(e);
        };
        let recs = match map.records(&doc) {
            Ok(r) => r,
            Err(e) => {
                fail(e, &mut file);
                continue;
            }
        };
        let nested = line == 0 || map.records.is_some();
        for (i, (star, rec)) in recs.into_iter().enumerate() {
            let which = match nested {
                true if line > 0 => format!("line {line}, record {}", i + 1),
                true => format!("record {}", i + 1),
                false => format!("record {line}"),
            };
            match map.rows_of(rec, star.as_deref(), &which) {
                Ok(rows) => {
                    seen_ok = true;
                    file.rows.extend(rows);
                }
                Err(e) => fail(e, &mut file),
            }
        }
    }
    match (seen_ok, first_err) {
        (false, Some(e)) => Err(map_error(path, e)),
        _ => Ok(file),
    }
}

/// A map that fits no record is an error naming the field and the keys.
fn map_error(path: &Path, e: FieldMapError) -> FormatError {
    FormatError::parse(
        path,
        None,
        e.to_string(),
        "point the field map at keys the records have",
    )
}

fn is_csv(path: &Path, bytes: &[u8]) -> bool {
    let name = crate::util::inner_name(path).to_ascii_lowercase();
    let first = bytes.iter().copied().find(|b| !b.is_ascii_whitespace());
    name.ends_with(".csv") || !matches!(first, Some(b'{') | Some(b'[') | None)
}

/// A whole JSON document (line 0), or JSON Lines (1-based lines).
fn json_records(path: &Path, text: &str) -> Result<Vec<(usize, Value)>, FormatError> {
    if let Ok(doc) = serde_json::from_str::<Value>(text) {
        return Ok(vec![(0, doc)]);
    }
    let mut out = Vec::new();
    for (i, line) in text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
    {
        let v = serde_json::from_str(line).map_err(|e| {
            FormatError::parse(
                path,
                Some(i + 1),
                format!("invalid JSON: {e}"),
                "the file is neither one JSON document nor JSON Lines",
            )
        })?;
        out.push((i + 1, v));
    }
    Ok(out)
}

/// A CSV cell as JSON: empty → null, true/false, a number, else text.
fn cell(s: &str) -> Value {
    match s.trim() {
        "" => Value::Null,
        "true" | "True" | "TRUE" => Value::Bool(true),
        "false" | "False" | "FALSE" => Value::Bool(false),
        t => match t.parse::<i64>() {
            Ok(i) => Value::from(i),
            Err(_) => match t.parse::<f64>() {
                Ok(f) if f.is_finite() => Value::from(f),
                _ => Value::from(s),
            },
        },
    }
}

fn csv_records(path: &Path, bytes: &[u8]) -> Result<Vec<(usize, Value)>, FormatError> {
    let bad = |e: csv::Error| {
        FormatError::parse(
            path,
            None,
            format!("invalid CSV: {e}"),
            "check the file's quoting",
        )
    };
    let mut reader = csv::Reader::from_reader(bytes);
    let header: Vec<String> = reader
        .headers()
        .map_err(bad)?
        .iter()
        .map(str::to_string)
        .collect();
    let mut out = Vec::new();
    for (i, rec) in reader.records().enumerate() {
        let rec = rec.map_err(bad)?;
        let obj: Map<String, Value> = header.iter().cloned().zip(rec.iter().map(cell)).collect();
        // Line 1 is the header.
        out.push((i + 2, Value::Object(obj)));
    }
    Ok(out)
}

#[cfg(feature = "parquet")]
fn parquet_records(path: &Path, bytes: &[u8]) -> Result<Vec<(usize, Value)>, FormatError> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let bad = |e: parquet::errors::ParquetError| {
        FormatError::parse(
            path,
            None,
            format!("unreadable Parquet: {e}"),
            "re-copy or re-save the file",
        )
    };
    let decode = || -> Result<Vec<(usize, Value)>, FormatError> {
        let reader =
            SerializedFileReader::new(bytes::Bytes::copy_from_slice(bytes)).map_err(bad)?;
        let mut out = Vec::new();
        for (i, row) in reader.get_row_iter(None).map_err(bad)?.enumerate() {
            out.push((i + 1, row.map_err(bad)?.to_json_value()));
        }
        Ok(out)
    };
    crate::util::quietly_catch(decode).unwrap_or_else(|| {
        Err(FormatError::parse(
            path,
            None,
            "malformed Parquet (the decoder gave up)",
            "re-copy or re-save the file",
        ))
    })
}

#[cfg(not(feature = "parquet"))]
fn parquet_records(path: &Path, _: &[u8]) -> Result<Vec<(usize, Value)>, FormatError> {
    Err(FormatError::FeatureDisabled {
        path: path.to_path_buf(),
        format: Format::FieldMap.to_string(),
        feature: "parquet",
    })
}

/// Key names that look like each field, most telling first.
const LOOKS_LIKE: &[(&str, &[&str])] = &[
    (
        "problem",
        &[
            "problem_id",
            "question_id",
            "task_id",
            "doc_id",
            "sample_id",
            "idx",
            "id",
            "uid",
            "index",
        ],
    ),
    (
        "correct",
        &[
            "correct",
            "is_correct",
            "correctness",
            "score",
            "scores",
            "passed",
            "pass",
            "graded_list",
            "verdict",
            "label",
            "reward",
        ],
    ),
    (
        "answers",
        &[
            "pred",
            "preds",
            "prediction",
            "predictions",
            "model_answers",
            "model_answer",
            "extracted_answer",
            "parsed_answer",
        ],
    ),
    (
        "gold",
        &[
            "gt",
            "gold",
            "golds",
            "target",
            "expected_answer",
            "ground_truth",
            "reference",
            "answer",
            "solution",
        ],
    ),
];

/// A field map for a record whose keys look like an id, a verdict and/or
/// answers with a gold; `None` when no id-like key or nothing to grade by.
///
/// ```
/// let rec = serde_json::json!({"idx": 0, "question": "…", "gt": "7", "pred": ["7"], "score": [true]});
/// let map = rollstat_formats::field_map::suggest(rec.as_object().unwrap()).unwrap();
/// assert_eq!(map.to_string(), "problem=idx,correct=score,answer=pred,gold=gt");
/// ```
pub fn suggest(record: &Map<String, Value>) -> Option<FieldMap> {
    let mut used: Vec<&str> = Vec::new();
    let mut entries = Vec::new();
    for (field, names) in LOOKS_LIKE {
        let found = names
            .iter()
            .find(|n| record.contains_key(**n) && !used.contains(n));
        if let Some(k) = found {
            used.push(k);
            entries.push(format!("{field}={k}"));
        }
    }
    let has = |f: &str| entries.iter().any(|e| e.starts_with(&format!("{f}=")));
    let gradable = has("correct") || (has("answers") && has("gold"));
    (has("problem") && gradable)
        .then(|| entries.join(",").parse().ok())
        .flatten()
}

/// [`suggest`] for a file's head (its first record: the first JSON
/// record, or a CSV file's first row under its header).
pub fn suggest_for(path: &Path, head: &[u8]) -> Option<FieldMap> {
    let plain = crate::input::decompress_prefix(head);
    let probe = Probe::new(path, &plain);
    if let Some(first) = probe.first_obj() {
        return suggest(first);
    }
    if !is_csv(path, &plain) {
        return None;
    }
    let end = plain
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap_or(plain.len());
    let rows = csv_records(path, &plain[..end]).ok()?;
    suggest(rows.first()?.1.as_object()?)
}
