//! Summary tables (docs/summary.md, *Arrow / Parquet*) across the Arrow C
//! stream interface: [`SummaryTable`] hands a summary to Python (pyarrow
//! builds its Table from `__arrow_c_stream__`), [`summary_of`] takes one
//! back — both through the engine's own conversion
//! (`Summary::to_arrow` / `Summary::from_arrow`), no JSON in between.

use crate::wording::engine_error;
use arrow_array::ffi_stream::FFI_ArrowArrayStream;
use arrow_array::RecordBatchIterator;
use pyo3::prelude::*;
use pyo3::types::{PyCapsule, PyString};
use rollstat::Summary;

/// A summary, readable as an Arrow stream (`pyarrow.table(s)`).
#[pyclass(module = "rollstat._rollstat", frozen)]
pub struct SummaryTable(pub Summary);

#[pymethods]
impl SummaryTable {
    /// A fresh Arrow C stream of the summary's record batches (the schema
    /// carries the header JSON under `rollstat_summary`).
    #[pyo3(signature = (requested_schema=None))]
    fn __arrow_c_stream__<'py>(
        &self,
        py: Python<'py>,
        requested_schema: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyCapsule>> {
        // The schema is fixed: a requested one is a hint a producer may
        // ignore (the Arrow PyCapsule interface).
        let _ = requested_schema;
        let (schema, batches) = self.0.to_arrow();
        let reader = RecordBatchIterator::new(batches.into_iter().map(Ok), schema);
        let stream = FFI_ArrowArrayStream::new(Box::new(reader));
        PyCapsule::new_with_value(py, stream, c"arrow_array_stream")
    }

    /// The summary as JSON Lines (docs/summary.md).
    fn to_jsonl(&self) -> String {
        self.0.to_jsonl()
    }
}

/// The summary in `obj`: JSON Lines text, or anything with
/// `__arrow_c_stream__` whose schema metadata holds a summary header;
/// `name` names it in errors.
pub fn summary_of(obj: &Bound<'_, PyAny>, name: &str) -> PyResult<Summary> {
    if let Ok(text) = obj.cast::<PyString>() {
        return Summary::from_jsonl(name, &text.to_cow()?).map_err(engine_error);
    }
    let (schema, batches) = crate::arrow::read_stream_with_schema(obj)?;
    obj.py()
        .detach(|| Summary::from_arrow(name, &schema, batches.into_iter().map(Ok)))
        .map_err(engine_error)
}

/// `summary_from_jsonl(text) -> SummaryTable`.
#[pyfunction]
pub fn summary_from_jsonl(text: &str) -> PyResult<SummaryTable> {
    Summary::from_jsonl("summary", text)
        .map(SummaryTable)
        .map_err(engine_error)
}
