//! Python rows (dicts) → the engine's in-memory rows.
//!
//! Each dict becomes the canonical field map that `json.dumps` of it would
//! give ([`Row::Fields`]), so the engine parses it with the same row parser
//! as a file line and the numbers are the CLI's on the rows' JSON Lines.
//! Values map as JSON does: `None` and non-finite floats (pandas' missing
//! values) → `null`, bools, ints, floats, strings, lists/tuples, dicts.
//! Anything else (numpy scalars and arrays, `pd.NA`, …) goes through the
//! `default` callable the Python layer passes (like `json.dumps(default=)`).

use crate::InputError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use rollstat::rows::Row;
use serde_json::{Map, Number, Value};

/// Deepest nesting accepted (lists of lists …, and `default` results).
const MAX_DEPTH: u32 = 64;

/// One Python value as JSON; `Err` says why not (the caller names the row).
fn value(
    obj: &Bound<'_, PyAny>,
    default: Option<&Bound<'_, PyAny>>,
    depth: u32,
) -> Result<Value, String> {
    if depth > MAX_DEPTH {
        return Err("nested too deeply".into());
    }
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(i) = obj.extract::<i64>() {
            return Ok(Value::from(i));
        }
        if let Ok(u) = obj.extract::<u64>() {
            return Ok(Value::from(u));
        }
        return Err(format!("the integer {obj} is out of range"));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(Number::from_f64(f.value()).map_or(Value::Null, Value::Number));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return s
            .to_cow()
            .map(|s| Value::String(s.into_owned()))
            .map_err(|e| e.to_string());
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        return object(d, default, depth + 1).map(Value::Object);
    }
    if let Ok(l) = obj.cast::<PyList>() {
        return l
            .iter()
            .map(|x| value(&x, default, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    if let Ok(t) = obj.cast::<PyTuple>() {
        return t
            .iter()
            .map(|x| value(&x, default, depth + 1))
            .collect::<Result<_, _>>()
            .map(Value::Array);
    }
    match default {
        Some(f) => {
            let v = f.call1((obj,)).map_err(|e| e.to_string())?;
            value(&v, default, depth + 1)
        }
        None => Err(format!("cannot convert a value of type {}", type_name(obj))),
    }
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "?".into())
}

fn object(
    d: &Bound<'_, PyDict>,
    default: Option<&Bound<'_, PyAny>>,
    depth: u32,
) -> Result<Map<String, Value>, String> {
    let mut m = Map::new();
    for (k, v) in d.iter() {
        let key = match k.cast::<PyString>() {
            Ok(s) => s.to_cow().map_err(|e| e.to_string())?.into_owned(),
            Err(_) => return Err(format!("keys must be strings, found {} {k}", type_name(&k))),
        };
        let v = value(&v, default, depth).map_err(|e| format!("'{key}': {e}"))?;
        m.insert(key, v);
    }
    Ok(m)
}

/// The rows as canonical field maps (what each line of their JSON Lines
/// export would hold), in order. A bad row is an [`InputError`] naming it as
/// `{label}[i]` (and the field).
pub fn rows_to_maps(
    rows: &Bound<'_, PyAny>,
    label: &str,
    default: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Row>> {
    let mut out = Vec::new();
    for (i, row) in rows.try_iter()?.enumerate() {
        let row = row?;
        let d = row.cast::<PyDict>().map_err(|_| {
            InputError::new_err(format!(
                "{label}[{i}]: a row must be a dict, found {}",
                type_name(&row)
            ))
        })?;
        let m =
            object(d, default, 1).map_err(|e| InputError::new_err(format!("{label}[{i}]: {e}")))?;
        out.push(Row::Fields(m));
    }
    Ok(out)
}
