//! Canonical rollout rows in a Parquet file (`rollstat report
//! rollouts.parquet`): the columns a DataFrame of rows has (`problem`,
//! `correct`, `rollout`, `answer`, …), read through [`crate::ArrowTable`]
//! as a DataFrame is. A Parquet file is rows when it has a `problem`
//! column and no `rollstat_summary` header (a per-problem summary,
//! [`crate::summary_parquet`]); any other Parquet file (a lighteval
//! `details_*.parquet`) is left to the format adapters.

use crate::arrow_rows::ArrowTable;
use crate::error::{Error, Result};
use crate::read::Table;
use crate::summary_arrow::HEADER_KEY;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use rollstat_io::ReadOptions;
use std::io::Read;
use std::path::Path;

/// The rows of the Parquet file at `path` when it holds canonical rows,
/// with the columns of the fields `opts` name (`by`, `cluster_by`,
/// `budget`) checked. A compressed file (`rows.parquet.zst`) is decompressed
/// first, as canonical JSON Lines and CSV are.
pub(crate) fn load(path: &Path, opts: &ReadOptions) -> Result<Option<Table>> {
    let mut magic = [0u8; 4];
    let plain = std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok_and(|()| magic == *crate::PARQUET_MAGIC);
    let name = path.display().to_string();
    let bytes = if plain {
        std::fs::read(path).map_err(|e| Error::input(format!("{name}: {e}")))?
    } else if compressed_parquet_name(path) {
        // Compressed Parquet: only when the decompressed bytes are Parquet.
        match rollstat_formats::read_decoded(path) {
            Ok(d) if d.content.starts_with(crate::PARQUET_MAGIC) && d.content.len() > 8 => {
                d.content
            }
            _ => return Ok(None),
        }
    } else {
        return Ok(None);
    };
    load_bytes(&name, &bytes, opts)
}

/// `x.parquet.gz`, `x.parquet.zst`: a name that says compressed Parquet
/// (other compressed files are not decompressed here only to look).
fn compressed_parquet_name(path: &Path) -> bool {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    [".parquet.gz", ".parquet.zst", ".parquet.zstd"]
        .iter()
        .any(|s| name.ends_with(s))
}

/// [`load`] for bytes in memory (a decompressed file, standard input):
/// `None` unless they are Parquet of canonical rows.
pub(crate) fn load_bytes(name: &str, bytes: &[u8], opts: &ReadOptions) -> Result<Option<Table>> {
    if !bytes.starts_with(crate::PARQUET_MAGIC) {
        return Ok(None);
    }
    let read: Vec<String> = [&opts.by, &opts.cluster_by, &opts.budget]
        .into_iter()
        .flatten()
        .cloned()
        .collect();
    let data = bytes::Bytes::copy_from_slice(bytes);
    let Some(Ok(builder)) =
        rollstat_formats::quietly_catch(|| ParquetRecordBatchReaderBuilder::try_new(data))
    else {
        // A footer that cannot be read: left to the other readers, which
        // word it.
        return Ok(None);
    };
    let schema = builder.schema();
    if schema.metadata.contains_key(HEADER_KEY) || schema.field_with_name("problem").is_err() {
        return Ok(None);
    }
    let decode = || -> Result<Vec<_>> {
        builder
            .build()
            .map_err(|e| Error::input(format!("{name}: {e}")))?
            .collect::<std::result::Result<Vec<_>, _>>()
            .map_err(|e| Error::input(format!("{name}: {e}")))
    };
    let batches = rollstat_formats::quietly_catch(decode).unwrap_or_else(|| {
        Err(Error::input(format!(
            "{name}: malformed Parquet data (the decoder gave up)"
        )))
    })?;
    Ok(Some(ArrowTable::new(batches, &read, name)?.into()))
}
