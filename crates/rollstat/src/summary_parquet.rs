//! Summary files in Parquet (docs/summary.md, *Arrow / Parquet*): the
//! Arrow table of [`crate::summary_arrow`] written with snappy compression,
//! the header JSON both in the Arrow schema metadata and in the file's
//! key-value metadata under `rollstat_summary` (as pyarrow writes a table's
//! schema metadata). A Parquet file is a summary when either holds that key;
//! any other Parquet file (a lighteval `details_*.parquet`) is left to the
//! format adapters.
//!
//! Reading goes one batch at a time, row group by row group: memory grows
//! with the summary's problems, not with the file. A malformed file is an
//! error naming it, never a panic (the decoder is run under
//! [`rollstat_formats::quietly_catch`]).

use crate::error::{Error, Result};
use crate::summary::Summary;
use crate::summary_arrow::{BATCH_ROWS, HEADER_KEY};
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::WriterProperties;
use parquet::file::reader::ChunkReader;
use std::path::Path;

/// The first four bytes of a Parquet file.
pub const PARQUET_MAGIC: &[u8; 4] = b"PAR1";

/// Problems per row group written (a reader holds one row group's pages
/// at a time).
const ROW_GROUP_ROWS: usize = 8 * BATCH_ROWS;

impl Summary {
    /// Writes the summary as a Parquet file (snappy-compressed; the header
    /// JSON under `rollstat_summary` in the key-value and Arrow schema
    /// metadata) to `out`.
    ///
    /// ```
    /// use rollstat::rows::{RolloutRow, Row};
    /// use rollstat::{summarize, ReportOptions, Source, Summary};
    /// let rows: Vec<Row> = (0..3).map(|i| RolloutRow::new("p1", i == 1).rollout(i).into()).collect();
    /// let s = summarize(&[Source::Rows { name: "mem".into(), rows }], &ReportOptions::default()).unwrap();
    /// let mut file = Vec::new();
    /// s.write_parquet(&mut file).unwrap();
    /// assert!(file.starts_with(b"PAR1"));
    /// assert_eq!(Summary::from_parquet_bytes("s.parquet", file).unwrap(), s);
    /// ```
    pub fn write_parquet<W: std::io::Write + Send>(&self, out: W) -> Result<()> {
        let failed = |e: parquet::errors::ParquetError| {
            Error::input(format!("writing the Parquet summary: {e}"))
        };
        let props = WriterProperties::builder()
            .set_compression(Compression::SNAPPY)
            .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
            .build();
        let schema = self.arrow_schema();
        let mut w = ArrowWriter::try_new(out, schema.clone(), Some(props)).map_err(failed)?;
        let header = schema.metadata.get(HEADER_KEY).cloned();
        w.append_key_value_metadata(KeyValue::new(HEADER_KEY.to_string(), header));
        for rows in self.rows.chunks(BATCH_ROWS) {
            w.write(&Summary::record_batch(&schema, rows))
                .map_err(failed)?;
        }
        w.close().map_err(failed)?;
        Ok(())
    }

    /// Reads a Parquet summary file; `path` names it in errors. A Parquet
    /// file without a `rollstat_summary` header is an error.
    pub fn read_parquet(path: &Path) -> Result<Summary> {
        let name = path.display().to_string();
        let file = std::fs::File::open(path).map_err(|e| Error::input(format!("{name}: {e}")))?;
        read(&name, file)
    }

    /// A Parquet summary from its bytes; `name` names it in errors.
    pub fn from_parquet_bytes(name: &str, bytes: Vec<u8>) -> Result<Summary> {
        read(name, bytes::Bytes::from(bytes))
    }
}

fn read<R: ChunkReader + 'static>(name: &str, reader: R) -> Result<Summary> {
    match probe(name, reader)? {
        Some(builder) => read_summary(name, builder),
        None => Err(Error::input(format!(
            "{name}: a Parquet file without a {HEADER_KEY} header in its metadata: not a rollstat summary"
        ))),
    }
}

/// The reader of a Parquet summary: `None` for a Parquet file that is not
/// one, an error for one whose footer cannot be read.
pub(crate) fn probe<R: ChunkReader + 'static>(
    name: &str,
    reader: R,
) -> Result<Option<ParquetRecordBatchReaderBuilder<R>>> {
    let footer =
        rollstat_formats::quietly_catch(|| ParquetRecordBatchReaderBuilder::try_new(reader));
    let builder = match footer {
        Some(Ok(b)) => b,
        Some(Err(e)) => {
            return Err(Error::input(format!(
                "{name}: a Parquet file whose footer cannot be read (truncated, or not completely written?): {e}"
            )))
        }
        None => {
            return Err(Error::input(format!(
                "{name}: malformed Parquet footer (the decoder gave up)"
            )))
        }
    };
    Ok(builder
        .schema()
        .metadata
        .contains_key(HEADER_KEY)
        .then_some(builder))
}

/// Reads the summary behind `builder`, one batch at a time.
pub(crate) fn read_summary<R: ChunkReader + 'static>(
    name: &str,
    builder: ParquetRecordBatchReaderBuilder<R>,
) -> Result<Summary> {
    let schema = builder.schema().clone();
    let decode = || {
        let batches = builder
            .with_batch_size(BATCH_ROWS)
            .build()
            .map_err(|e| Error::input(format!("{name}: {e}")))?;
        Summary::from_arrow(name, &schema, batches)
    };
    rollstat_formats::quietly_catch(decode).unwrap_or_else(|| {
        Err(Error::input(format!(
            "{name}: malformed Parquet data (the decoder gave up)"
        )))
    })
}

/// The summary in the file `path` when it is a Parquet summary.
pub(crate) fn load_path(path: &Path) -> Result<Option<Summary>> {
    let name = path.display().to_string();
    let file = std::fs::File::open(path).map_err(|e| Error::input(format!("{name}: {e}")))?;
    match probe(&name, file)? {
        Some(builder) => read_summary(&name, builder).map(Some),
        None => Ok(None),
    }
}

/// The summary in `bytes` when they are a Parquet summary.
pub(crate) fn load_bytes(name: &str, bytes: &[u8]) -> Result<Option<Summary>> {
    match probe(name, bytes::Bytes::copy_from_slice(bytes))? {
        Some(builder) => read_summary(name, builder).map(Some),
        None => Ok(None),
    }
}
