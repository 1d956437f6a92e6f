//! Arrow tables → record batches.
//!
//! Anything exposing the Arrow PyCapsule stream interface
//! (`__arrow_c_stream__`: a pyarrow Table or RecordBatchReader, a polars
//! DataFrame, a pandas DataFrame through pyarrow) is imported through the C
//! stream interface ([`read_stream`]) and handed to the engine
//! ([`rollstat::ArrowTable`] maps its rows into records): no Python objects
//! per value, no JSON text.

use crate::InputError;
use arrow_array::ffi_stream::{FFI_ArrowArrayStream, RecordBatchStreamReader};
use arrow_array::RecordBatch;
use pyo3::prelude::*;
use pyo3::types::PyCapsule;

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
