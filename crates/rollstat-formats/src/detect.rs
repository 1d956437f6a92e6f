//! Format detection from the file name and the first bytes / first record.
//!
//! Each format has one rule, the `detect` of its registry entry, written in
//! its adapter module (see the README for the table). Rules are tried in
//! [`Format::ALL`] order; the first that fits wins. When none fits, the
//! error lists every rule and why it did not fit.

use std::collections::BTreeSet;
use std::path::Path;

use serde_json::{Map, Value};

use crate::error::{DetectError, Rejection};
use crate::format::Format;
use crate::input;
use crate::util::inner_name;

/// How far into the content the key scanner looks.
const SCAN_LIMIT: usize = 256 * 1024;

/// What detection knows about a file.
pub(crate) struct Probe<'a> {
    /// Lower-cased file name without `.gz`/`.zst`.
    pub name: String,
    pub bytes: &'a [u8],
    /// The first JSON value (first line of JSONL, first element of an array,
    /// or the whole document), when it could be parsed from the head.
    pub first: Option<Value>,
    /// The content is a JSON array.
    pub is_array: bool,
    /// The content has a second JSON value on a later line (JSON Lines).
    pub is_jsonl: bool,
    /// Top-level keys of `first`, or keys scanned from the text when the
    /// head was too short to parse.
    pub keys: BTreeSet<String>,
    /// Keys were scanned from raw text (less reliable).
    pub keys_scanned: bool,
}

impl<'a> Probe<'a> {
    pub fn new(path: &Path, bytes: &'a [u8]) -> Self {
        let name = inner_name(path).to_ascii_lowercase();
        let mut probe = Probe {
            name,
            bytes,
            first: None,
            is_array: false,
            is_jsonl: false,
            keys: BTreeSet::new(),
            keys_scanned: false,
        };
        probe.parse_first();
        probe
    }

    fn parse_first(&mut self) {
        let start = skip_ws(self.bytes);
        let rest = &self.bytes[start..];
        let (body, is_array) = match rest.first() {
            Some(b'[') => {
                let inner = &rest[1..];
                (&inner[skip_ws(inner)..], true)
            }
            Some(b'{') => (rest, false),
            _ => return,
        };
        self.is_array = is_array;
        let mut stream = serde_json::Deserializer::from_slice(body).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                let offset = stream.byte_offset();
                if !is_array {
                    let after = &body[offset..];
                    let ws = skip_ws(after);
                    let had_newline = after[..ws].contains(&b'\n');
                    self.is_jsonl = had_newline && after.get(ws) == Some(&b'{');
                }
                if let Value::Object(m) = &v {
                    self.keys = m.keys().cloned().collect();
                }
                self.first = Some(v);
            }
            _ => {
                self.keys = scan_keys(&body[..body.len().min(SCAN_LIMIT)]);
                self.keys_scanned = true;
                // A truncated head of a JSONL file still shows a newline
                // followed by `{` when the first line was short enough.
                self.is_jsonl = !is_array && body.windows(2).any(|w| w == b"\n{");
            }
        }
    }

    pub fn has(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    pub fn has_any(&self, keys: &[&str]) -> bool {
        keys.iter().any(|k| self.has(k))
    }

    pub fn first_obj(&self) -> Option<&Map<String, Value>> {
        self.first.as_ref().and_then(Value::as_object)
    }

    fn record_name(&self) -> &'static str {
        if self.keys_scanned {
            "the head"
        } else if self.is_array {
            "the first array element"
        } else if self.is_jsonl {
            "the first line"
        } else {
            "the JSON object"
        }
    }

    /// `the first line lacks "resps"`: names only the keys that are absent.
    pub(crate) fn missing(&self, what: &str, keys: &[&str]) -> String {
        let rec = self.record_name();
        if what.starts_with("key") {
            let absent: Vec<&str> = keys.iter().copied().filter(|k| !self.has(k)).collect();
            format!("{rec} lacks {}", quote_list(&absent, ", "))
        } else {
            format!("{rec} has no {what} {}", quote_list(keys, "/"))
        }
    }

    /// What the content looked like, for the "tried: …" error.
    pub fn describe(&self) -> String {
        let kind = if self.bytes.is_empty() {
            return "the file is empty".into();
        } else if self.first.is_none() && !self.keys_scanned {
            return match csv_header(self.bytes) {
                Some(cols) => format!("a CSV file with columns {}", cols.join(", ")),
                None => "no JSON value at the start".into(),
            };
        } else if self.is_array {
            "a JSON array whose first element has keys"
        } else if self.is_jsonl {
            "JSON Lines whose first line has keys"
        } else if self.keys_scanned {
            "truncated JSON with keys"
        } else {
            "a JSON object with keys"
        };
        let mut keys: Vec<String> = match self.first_obj() {
            Some(m) => m.keys().map(|k| short_key(k)).collect(),
            None => self.keys.iter().map(|k| short_key(k)).collect(),
        };
        let more = keys.len().saturating_sub(12);
        keys.truncate(12);
        let mut out = format!("{kind} {}", keys.join(", "));
        if more > 0 {
            out.push_str(&format!(", … ({more} more)"));
        }
        out
    }
}

/// The columns of a first line that reads as a CSV header (two or more
/// comma-separated names, not JSON), at most 12.
fn csv_header(bytes: &[u8]) -> Option<Vec<String>> {
    let text = &bytes[skip_ws(bytes)..];
    let line = text.split(|b| *b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    if line.starts_with(['{', '[']) || !line.contains(',') {
        return None;
    }
    let mut cols: Vec<String> = line
        .trim_end_matches('\r')
        .split(',')
        .map(|c| short_key(c.trim().trim_matches('"')))
        .collect();
    cols.truncate(12);
    Some(cols)
}

/// A key as shown in a message: at most 32 characters.
fn short_key(k: &str) -> String {
    match k.char_indices().nth(32) {
        Some((i, _)) => format!("{}…", &k[..i]),
        None => k.to_string(),
    }
}

fn quote_list(keys: &[&str], sep: &str) -> String {
    keys.iter()
        .map(|k| format!("\"{k}\""))
        .collect::<Vec<_>>()
        .join(sep)
}

pub(crate) fn skip_ws(b: &[u8]) -> usize {
    let mut i = 0;
    if b.starts_with(&[0xEF, 0xBB, 0xBF]) {
        i = 3;
    }
    while i < b.len() && b[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// Scan `"key":` patterns out of (possibly truncated) JSON text.
fn scan_keys(b: &[u8]) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut i = 0;
    while i < b.len() {
        if b[i] != b'"' {
            i += 1;
            continue;
        }
        let start = i + 1;
        let mut j = start;
        while j < b.len() && b[j] != b'"' {
            if b[j] == b'\\' {
                j += 1;
            }
            j += 1;
        }
        if j >= b.len() {
            break;
        }
        let mut k = j + 1;
        while k < b.len() && b[k].is_ascii_whitespace() {
            k += 1;
        }
        if k < b.len() && b[k] == b':' && j - start <= 64 {
            if let Ok(s) = std::str::from_utf8(&b[start..j]) {
                keys.insert(s.to_string());
            }
        }
        i = j + 1;
    }
    keys
}

/// Check one format's rule (its registry entry's `detect`). `Err` holds
/// why it does not fit.
pub(crate) fn check(format: Format, p: &Probe<'_>) -> Result<(), String> {
    (format.spec().detect)(p)
}

/// NeMo-Skills' `metrics.json`: benchmark → aggregation (`pass@1`, …) →
/// numbers with `num_entries`.
fn is_nemo_metrics(p: &Probe) -> bool {
    let Some(doc) = p
        .first_obj()
        .filter(|_| !p.is_array && p.name.starts_with("metrics"))
    else {
        return false;
    };
    doc.values().any(|bench| {
        bench
            .get("pass@1")
            .is_some_and(|agg| agg.get("num_entries").is_some())
    })
}

/// Files that belong to a harness's output but carry no rows of their own
/// (or duplicate rows read from elsewhere): the reason they are passed over.
pub(crate) fn companion(path: &Path, bytes: &[u8]) -> Option<&'static str> {
    let p = Probe::new(path, bytes);
    if p.has("model_output") && p.has_any(&["index", "messages"]) {
        Some("evalscope predictions file: the verdicts are in the matching reviews/ file")
    } else if !p.is_array
        && p.has("task_id")
        && p.has("trial")
        && p.has_any(&["termination_reason", "reward_info"])
    {
        Some("tau2-bench simulation: read with the results.json of its experiment")
    } else if is_nemo_metrics(&p) {
        Some("NeMo-Skills metrics.json: its numbers are compared with each benchmark's output-rs files")
    } else if p.has("dataset_name") && p.has("model_name") && p.has("metrics") {
        Some("evalscope report: read with its reviews/ file (the harness's numbers beside rollstat's)")
    } else if p.name.ends_with("metrics.json") && p.has("acc") && p.has("num_samples") {
        Some("Qwen2.5-Math metrics file: its acc is compared with the test_*.jsonl beside it")
    } else if p.name.ends_with("_eval.json") && p.has("pass@1") && !p.has("question_id") {
        Some("LiveCodeBench _eval.json: its pass@k are compared with the _eval_all.json beside it")
    } else if p.is_array && p.has("question_id") && p.has("code_list") && !p.has("graded_list") {
        Some("LiveCodeBench generations: the verdicts are in the _eval_all.json beside it")
    } else if p.name.ends_with("_summary.json") && p.has("total") && !p.is_array {
        Some("MMLU-Pro summary: its acc is compared with the <category>_result.json beside it")
    } else if [
        "meta.json",
        "manifest.json",
        "profile.json",
        "anomalies.json",
        "progress.json",
    ]
    .contains(&p.name.as_str())
        && !p.has("samples")
    {
        Some("run metadata file, no per-sample data")
    } else {
        None
    }
}

/// Detect the format of a file from its path and its first bytes.
///
/// `head` may be the whole file or just its beginning (64 KiB is plenty for
/// most formats); `.gz`/`.zst` heads are decompressed as far as they go.
/// The error lists every format tried and why each did not fit. When the
/// content fits several formats, [`detect_all`] says which.
pub fn detect(path: &Path, head: &[u8]) -> Result<Format, DetectError> {
    detect_all(path, head).map(|d| d.format)
}

/// A detected format, and the other formats the content also fits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Detection {
    /// The format the content is read as.
    pub format: Format,
    /// Other formats whose rule the content fits too, in detection order.
    pub also_fits: Vec<Format>,
}

/// [`detect`], also naming every other format the content fits.
///
/// Rules are tried in [`Format::ALL`] order and the first that fits wins,
/// except that canonical JSON Lines wins over a native format of one
/// record per line (lm-eval samples, evalscope reviews, SiEval, NeMo-Skills):
/// a file of rows with `problem` plus a verdict that also carries a
/// harness's keys is most likely rows written for rollstat, and reading it
/// as the harness's would ignore the verdicts it states. Whole-document
/// formats (a MathArena per-problem file also has `problem` and `correct`)
/// keep their place.
///
/// ```
/// use rollstat_formats::{detect_all, Format};
/// use std::path::Path;
/// let row = br#"{"problem": "p1", "correct": true, "doc_id": 0, "resps": [["x"]]}"#;
/// let d = detect_all(Path::new("rows.jsonl"), row).unwrap();
/// assert_eq!(d.format, Format::CanonicalJsonl);
/// assert_eq!(d.also_fits, [Format::LmEvalSamples]);
/// ```
pub fn detect_all(path: &Path, head: &[u8]) -> Result<Detection, DetectError> {
    let plain = input::decompress_prefix(head);
    detect_among_all(path, &plain, &Format::ALL)
}

pub(crate) fn detect_among(
    path: &Path,
    bytes: &[u8],
    candidates: &[Format],
) -> Result<Format, DetectError> {
    detect_among_all(path, bytes, candidates).map(|d| d.format)
}

fn detect_among_all(
    path: &Path,
    bytes: &[u8],
    candidates: &[Format],
) -> Result<Detection, DetectError> {
    let probe = Probe::new(path, bytes);
    let mut tried = Vec::new();
    let mut fits = Vec::new();
    for &f in candidates {
        match check(f, &probe) {
            Ok(()) => fits.push(f),
            Err(reason) => tried.push(Rejection {
                format: f.name().to_string(),
                reason,
            }),
        }
    }
    let Some(&first) = fits.first() else {
        return Err(DetectError {
            path: path.to_path_buf(),
            seen: probe.describe(),
            tried,
        });
    };
    let format = if first.spec().row_per_line && fits.contains(&Format::CanonicalJsonl) {
        Format::CanonicalJsonl
    } else {
        first
    };
    fits.retain(|&f| f != format);
    Ok(Detection {
        format,
        also_fits: fits,
    })
}
