//! Reading raw bytes: transparent `.gz` / `.zst` decompression and hashing.

use std::io::Read;
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::FormatError;

const GZIP_MAGIC: &[u8] = &[0x1f, 0x8b];
const ZSTD_MAGIC: &[u8] = &[0x28, 0xb5, 0x2f, 0xfd];

/// How far compressed content may expand when it is decompressed: a
/// 1 MB gzip or ZIP bomb must not grow to gigabytes in memory. The content
/// of a file of `s` compressed bytes may reach `max(max_ratio · s,
/// min_bytes)` bytes; past that, reading it is an error that names the file
/// and the limit.
///
/// ```
/// use rollstat_formats::DecompressLimit;
/// let d = DecompressLimit::default();
/// assert_eq!(d.allowed(1 << 20), 256 << 20); // 1 MiB may grow to 256 MiB
/// assert_eq!(d.allowed(10 << 20), 1000 << 20); // 10 MiB to 100× that
/// assert_eq!(DecompressLimit::total(5 << 30).allowed(1), 5 << 30);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DecompressLimit {
    /// Largest ratio of decompressed to compressed size.
    pub max_ratio: u64,
    /// Size any file may reach whatever its ratio.
    pub min_bytes: u64,
}

impl Default for DecompressLimit {
    /// 100× the compressed size, and at least 256 MiB (JSON Lines of
    /// rollouts compress 5–30×; nothing real approaches 100× at that size).
    fn default() -> Self {
        DecompressLimit {
            max_ratio: 100,
            min_bytes: 256 << 20,
        }
    }
}

impl DecompressLimit {
    /// A fixed total, whatever the compressed size (`u64::MAX`: no limit).
    pub fn total(bytes: u64) -> Self {
        DecompressLimit {
            max_ratio: 0,
            min_bytes: bytes,
        }
    }

    /// The decompressed size allowed for `compressed` bytes.
    pub fn allowed(self, compressed: u64) -> u64 {
        self.max_ratio
            .saturating_mul(compressed)
            .max(self.min_bytes)
    }

    /// The error for content that grows past the limit.
    pub(crate) fn exceeded(self, path: &Path, compressed: u64) -> FormatError {
        let rule = if self.max_ratio == 0 {
            format!("a total of {}", bytes_text(self.min_bytes))
        } else {
            format!(
                "{}× the compressed size, at least {}",
                self.max_ratio,
                bytes_text(self.min_bytes)
            )
        };
        FormatError::parse(
            path,
            None,
            format!(
                "the content decompresses to more than {} ({} compressed; the limit is {rule})",
                bytes_text(self.allowed(compressed)),
                bytes_text(compressed)
            ),
            "raise the decompression limit if the file is genuine, or check where it came from",
        )
    }
}

/// `268435456` → `256 MiB`.
fn bytes_text(b: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut v = b as f64;
    let mut u = 0;
    while v >= 1024.0 && u + 1 < UNITS.len() {
        v /= 1024.0;
        u += 1;
    }
    if u == 0 {
        format!("{b} bytes")
    } else if v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[u])
    } else {
        format!("{v:.1} {}", UNITS[u])
    }
}

/// Reads everything from `r` into `out`, failing once more than `cap`
/// bytes came out: the decoder never runs past the limit.
pub(crate) fn read_capped(r: impl Read, cap: u64, out: &mut Vec<u8>) -> std::io::Result<bool> {
    let got = r.take(cap.saturating_add(1)).read_to_end(out)?;
    Ok(got as u64 <= cap)
}

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
/// (recognised by magic bytes, whatever the extension), within `limit`.
pub(crate) fn load(path: &Path, limit: DecompressLimit) -> Result<Loaded, FormatError> {
    let raw = std::fs::read(path).map_err(|source| FormatError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    load_bytes(path, raw, limit)
}

/// [`load`] for bytes already read.
pub(crate) fn load_bytes(
    path: &Path,
    raw: Vec<u8>,
    limit: DecompressLimit,
) -> Result<Loaded, FormatError> {
    let sha256 = sha256_hex(&raw);
    let content = decompress_all(path, raw, limit)?;
    Ok(Loaded { sha256, content })
}

fn corrupt(path: &Path, codec: &str, e: impl std::fmt::Display) -> FormatError {
    FormatError::parse(
        path,
        None,
        format!("corrupt {codec} stream: {e}"),
        format!("re-download or re-compress the file ({codec} -t checks it)"),
    )
}

fn decompress_all(
    path: &Path,
    raw: Vec<u8>,
    limit: DecompressLimit,
) -> Result<Vec<u8>, FormatError> {
    let cap = limit.allowed(raw.len() as u64);
    let mut out = Vec::new();
    let within = if raw.starts_with(GZIP_MAGIC) {
        read_capped(flate2::read::MultiGzDecoder::new(&raw[..]), cap, &mut out)
            .map_err(|e| corrupt(path, "gzip", e))?
    } else if raw.starts_with(ZSTD_MAGIC) {
        let dec = ruzstd::decoding::StreamingDecoder::new(&raw[..])
            .map_err(|e| corrupt(path, "zstd", e))?;
        read_capped(dec, cap, &mut out).map_err(|e| corrupt(path, "zstd", e))?
    } else {
        return Ok(raw);
    };
    if !within {
        return Err(limit.exceeded(path, raw.len() as u64));
    }
    Ok(out)
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
