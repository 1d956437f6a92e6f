//! Reading raw bytes: transparent `.gz` / `.zst` decompression and hashing.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::FormatError;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// Raw bytes of a file with their sha256, and the decompressed content.
pub(crate) struct Loaded {
    pub sha256: String,
    pub content: Vec<u8>,
}

pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// Read a file, hash its raw bytes and decompress gzip / zstd content
/// (recognised by magic bytes, whatever the extension).
pub(crate) fn load(path: &Path) -> Result<Loaded, FormatError> {
    let raw = std::fs::read(path).map_err(|source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_bytes(path, raw)
}

/// [`load`] for bytes already read.
pub(crate) fn load_bytes(path: &Path, raw: Vec<u8>) -> Result<Loaded, FormatError> {
    let sha256 = sha256_hex(&raw);
    let content = decompress_all(path, raw)?;
    Ok(Loaded { sha256, content })
}

fn decompress_all(path: &Path, raw: Vec<u8>) -> Result<Vec<u8>, FormatError> {
    if raw.starts_with(GZIP_MAGIC) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&raw[..])
            .read_to_end(&mut out)
            .map_err(|e| {
                FormatError::parse(
                    path,
                    None,
                    format!("corrupt gzip stream: {e}"),
                    "re-download or re-compress the file (gzip -t checks it)",
                )
            })?;
        Ok(out)
    } else if raw.starts_with(ZSTD_MAGIC) {
        let mut out = Vec::new();
        let mut dec = ruzstd::decoding::StreamingDecoder::new(&raw[..]).map_err(|e| {
            FormatError::parse(
                path,
                None,
                format!("corrupt zstd stream: {e}"),
                "re-download or re-compress the file (zstd -t checks it)",
            )
        })?;
        dec.read_to_end(&mut out).map_err(|e| {
            FormatError::parse(
                path,
                None,
                format!("corrupt zstd stream: {e}"),
                "re-download or re-compress the file (zstd -t checks it)",
            )
        })?;
        Ok(out)
    } else {
        Ok(raw)
    }
}

/// Decompress as much of a (possibly truncated) head as possible.
pub(crate) fn decompress_prefix(head: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if head.starts_with(GZIP_MAGIC) {
        let mut dec = flate2::read::MultiGzDecoder::new(head);
        read_until_error(&mut dec, &mut out);
        out
    } else if head.starts_with(ZSTD_MAGIC) {
        if let Ok(mut dec) = ruzstd::decoding::StreamingDecoder::new(head) {
            read_until_error(&mut dec, &mut out);
        }
        out
    } else {
        head.to_vec()
    }
}

fn read_until_error(r: &mut impl Read, out: &mut Vec<u8>) {
    let mut buf = [0u8; 8192];
    while let Ok(n) = r.read(&mut buf) {
        if n == 0 {
            break;
        }
        out.extend_from_slice(&buf[..n]);
    }
}

/// The content as UTF-8 text (lossy: invalid bytes become U+FFFD, with a
/// warning).
pub(crate) fn text<'a>(
    path: &Path,
    bytes: &'a [u8],
    warnings: &mut Vec<String>,
) -> std::borrow::Cow<'a, str> {
    let t = String::from_utf8_lossy(bytes);
    if matches!(t, std::borrow::Cow::Owned(_)) {
        warnings.push(format!(
            "{}: invalid UTF-8 replaced by U+FFFD; text fields may differ from the source",
            path.display()
        ));
    }
    t
}
