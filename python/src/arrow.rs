//! Arrow tables → record batches, and each row's canonical field map.
//!
//! Anything exposing the Arrow PyCapsule stream interface
//! (`__arrow_c_stream__`: a pyarrow Table or RecordBatchReader, a polars
//! DataFrame, a pandas DataFrame through pyarrow) is imported through the C
//! stream interface ([`read_stream`]); [`crate::table`] maps its rows
//! straight into records, and a row it leaves to the engine's parser
//! becomes the canonical field map a JSON Lines line would hold ([`cell`]):
//! no Python objects per value, no JSON text. Values map as JSON does:
//! nulls and non-finite floats → `null`, booleans, integers, floats,
//! strings (any width, views, dictionary-encoded), lists (problem rows:
//! `correct`, `answers`, `responses`) and structs. Only the columns the row
//! parser reads (the canonical fields, `by`, `cluster_by`) are read — it
//! ignores every other field — and one of those of another type (dates,
//! binary, decimals) is an error naming the column.

use crate::InputError;
use arrow_array::cast::AsArray;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::types::*;
use arrow_array::{Array, ArrayRef, RecordBatch};
use arrow_schema::DataType;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;
use serde_json::{Number, Value};

/// Fields the row parser reads (docs/spec.md §2); a column with one of
/// these names must have a type rows can hold.
pub(crate) const READ_FIELDS: [&str; 20] = [
    "problem",
    "rollout",
    "correct",
    "answer",
    "answers",
    "gold",
    "response",
    "responses",
    "finish_reason",
    "finish_reasons",
    "truncated",
    "status",
    "n",
    "c",
    "model",
    "run",
    "subset",
    "score",
    "scores",
    "output_tokens",
];

/// Deepest nesting of list and struct types accepted.
const MAX_DEPTH: u32 = 64;

/// The record batches of an object with `__arrow_c_stream__`.
pub fn read_stream(obj: &Bound<'_, PyAny>) -> PyResult<Vec<RecordBatch>> {
    Ok(read_stream_with_schema(obj)?.1)
}

/// The schema (with its metadata) and record batches of an object with
/// `__arrow_c_stream__`.
pub fn read_stream_with_schema(
    obj: &Bound<'_, PyAny>,
) -> PyResult<(arrow_schema::SchemaRef, Vec<RecordBatch>)> {
    let capsule = obj.call_method0("__arrow_c_stream__")?;
    let capsule = capsule.cast::<PyCapsule>()?;
    let pointer = capsule.pointer_checked(Some(c"arrow_array_stream"))?;
    // SAFETY: the capsule named `arrow_array_stream` holds an
    // FFI_ArrowArrayStream (the Arrow PyCapsule interface); `from_raw`
    // moves the stream out and marks the capsule's copy released, so the
    // capsule's destructor does not release it a second time.
    let reader = unsafe {
        RecordBatchStreamReader::from_raw(pointer.as_ptr().cast::<FFI_ArrowArrayStream>())
    }
    .map_err(|e| InputError::new_err(format!("reading the Arrow stream: {e}")))?;
    let schema = arrow_array::RecordBatchReader::schema(&reader);
    let batches = reader
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| InputError::new_err(format!("reading the Arrow stream: {e}")))?;
    Ok((schema, batches))
}

/// Whether rows can hold values of this type.
pub(crate) fn supported(t: &DataType, depth: u32) -> bool {
    use DataType::*;
    if depth > MAX_DEPTH {
        return false;
    }
    match t {
        Null | Boolean | Int8 | Int16 | Int32 | Int64 | UInt8 | UInt16 | UInt32 | UInt64
        | Float16 | Float32 | Float64 | Utf8 | LargeUtf8 | Utf8View => true,
        Dictionary(_, v) => supported(v, depth + 1),
        List(f) | LargeList(f) | FixedSizeList(f, _) => supported(f.data_type(), depth + 1),
        Struct(fields) => fields.iter().all(|f| supported(f.data_type(), depth + 1)),
        _ => false,
    }
}

fn float(v: f64) -> Value {
    Number::from_f64(v).map_or(Value::Null, Value::Number)
}

fn list(items: ArrayRef) -> Value {
    Value::Array((0..items.len()).map(|i| cell(items.as_ref(), i)).collect())
}

/// The value at row `i` of an array of a [`supported`] type.
pub(crate) fn cell(a: &dyn Array, i: usize) -> Value {
    use DataType::*;
    if a.is_null(i) {
        return Value::Null;
    }
    match a.data_type() {
        Boolean => Value::Bool(a.as_boolean().value(i)),
        Int8 => Value::from(a.as_primitive::<Int8Type>().value(i)),
        Int16 => Value::from(a.as_primitive::<Int16Type>().value(i)),
        Int32 => Value::from(a.as_primitive::<Int32Type>().value(i)),
        Int64 => Value::from(a.as_primitive::<Int64Type>().value(i)),
        UInt8 => Value::from(a.as_primitive::<UInt8Type>().value(i)),
        UInt16 => Value::from(a.as_primitive::<UInt16Type>().value(i)),
        UInt32 => Value::from(a.as_primitive::<UInt32Type>().value(i)),
        UInt64 => Value::from(a.as_primitive::<UInt64Type>().value(i)),
        Float16 => float(a.as_primitive::<Float16Type>().value(i).to_f64()),
        Float32 => float(f64::from(a.as_primitive::<Float32Type>().value(i))),
        Float64 => float(a.as_primitive::<Float64Type>().value(i)),
        Utf8 => Value::String(a.as_string::<i32>().value(i).to_owned()),
        LargeUtf8 => Value::String(a.as_string::<i64>().value(i).to_owned()),
        Utf8View => Value::String(a.as_string_view().value(i).to_owned()),
        Dictionary(..) => {
            let d = a.as_any_dictionary();
            cell(d.values().as_ref(), d.normalized_keys()[i])
        }
        List(_) => list(a.as_list::<i32>().value(i)),
        LargeList(_) => list(a.as_list::<i64>().value(i)),
        FixedSizeList(..) => list(a.as_fixed_size_list().value(i)),
        Struct(fields) => {
            let s = a.as_struct();
            let m = fields
                .iter()
                .zip(s.columns())
                .map(|(f, c)| (f.name().clone(), cell(c.as_ref(), i)))
                .collect();
            Value::Object(m)
        }
        // Null, and nothing else: `supported` admitted the type.
        _ => Value::Null,
    }
}

/// One column, ready to be read row by row: a dictionary-encoded column
/// has its values converted once.
pub(crate) enum Column<'a> {
    Plain(&'a dyn Array),
    Dictionary {
        keys: Vec<usize>,
        values: Vec<Value>,
        array: &'a dyn Array,
    },
}

impl Column<'_> {
    pub(crate) fn new(a: &dyn Array) -> Column<'_> {
        match a.as_any_dictionary_opt() {
            Some(d) => {
                let values = d.values();
                Column::Dictionary {
                    keys: d.normalized_keys(),
                    values: (0..values.len())
                        .map(|i| cell(values.as_ref(), i))
                        .collect(),
                    array: a,
                }
            }
            None => Column::Plain(a),
        }
    }

    pub(crate) fn get(&self, i: usize) -> Value {
        match self {
            Column::Plain(a) => cell(*a, i),
            Column::Dictionary { array, .. } if array.is_null(i) => Value::Null,
            Column::Dictionary { keys, values, .. } => values[keys[i]].clone(),
        }
    }
}
