//! Where output goes: stdout (no `-o`, or `-o -`), or a file written
//! through a temporary file in the same directory and renamed into place,
//! so a failure halfway never leaves a truncated file. An output that is one
//! of the inputs (the same file, by identity: through `./X`, a symlink or a
//! hard link), or an existing file an input directory's walk reads, is refused
//! before anything is read or written.

use crate::options::InputError;
use anyhow::Result;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The output path, `None` for stdout (`-o -` means stdout).
pub fn destination(path: Option<&Path>) -> Option<&Path> {
    path.filter(|p| p.as_os_str() != "-")
}

/// The identity of an existing file: (device, inode) on Unix, the
/// canonical path elsewhere.
fn identity(p: &Path) -> Option<(u64, u64, PathBuf)> {
    let meta = std::fs::metadata(p).ok()?;
    if !meta.is_file() {
        return None;
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.dev(), meta.ino(), PathBuf::new()))
    }
    #[cfg(not(unix))]
    {
        Some((0, 0, std::fs::canonicalize(p).ok()?))
    }
}

/// Whether the existing file `out` is one a walk of the input directory
/// `dir` would read (under it, comparing canonical paths, with an input
/// extension). A report written into a run directory (`.html`, `.md`) is
/// not an input and stays allowed.
fn inside(out: &Path, dir: &Path) -> bool {
    if !dir.is_dir() || !rollstat_formats::walk_reads(out) {
        return false;
    }
    match (std::fs::canonicalize(out), std::fs::canonicalize(dir)) {
        (Ok(out), Ok(dir)) => out.starts_with(dir),
        _ => false,
    }
}

/// Refuses an output file that is one of the inputs, or an existing file
/// inside an input directory.
pub fn check_not_an_input(output: Option<&Path>, inputs: &[String]) -> Result<()> {
    let Some(out) = destination(output) else {
        return Ok(());
    };
    let Some(id) = identity(out) else {
        return Ok(());
    };
    for input in inputs.iter().filter(|i| *i != "-") {
        let what = if identity(Path::new(input)).as_ref() == Some(&id) {
            "the output is the input"
        } else if inside(out, Path::new(input)) {
            "the output is read as an input inside the directory"
        } else {
            continue;
        };
        return Err(InputError(format!(
            "-o {}: {what} {input}; writing it would destroy the input (choose another file)",
            out.display()
        ))
        .into());
    }
    Ok(())
}

/// A file being written: bytes go to a temporary file beside the
/// destination, renamed over it by [`AtomicFile::commit`]; dropped
/// without a commit, the temporary file is removed and the destination is
/// untouched. A destination that exists and is not a regular file (a device
/// such as `/dev/null` or `/dev/stdout`, a named pipe) is written directly:
/// renaming over it would replace the device with a file. A symlink to a
/// file is followed, so the link stays a link.
pub struct AtomicFile {
    /// The temporary file, `None` when writing directly.
    tmp: Option<PathBuf>,
    dest: PathBuf,
    file: Option<std::io::BufWriter<File>>,
}

impl AtomicFile {
    /// Creates the temporary file next to `dest` (or opens `dest` itself
    /// when it is not a regular file).
    pub fn create(dest: &Path) -> Result<AtomicFile> {
        let cannot = |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", dest.display());
        if let Ok(meta) = std::fs::metadata(dest) {
            if !meta.is_file() {
                let file = std::fs::OpenOptions::new()
                    .write(true)
                    .open(dest)
                    .map_err(cannot)?;
                return Ok(AtomicFile {
                    tmp: None,
                    dest: dest.to_path_buf(),
                    file: Some(std::io::BufWriter::new(file)),
                });
            }
        }
        // Through a symlink to an existing file: write beside the target.
        let target = std::fs::canonicalize(dest).unwrap_or_else(|_| dest.to_path_buf());
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "output".into());
        let tmp = target.with_file_name(format!(".{name}.rollstat-{}.tmp", std::process::id()));
        let file = File::create(&tmp).map_err(cannot)?;
        Ok(AtomicFile {
            tmp: Some(tmp),
            dest: target,
            file: Some(std::io::BufWriter::new(file)),
        })
    }

    /// Flushes, syncs and renames the file into place.
    pub fn commit(mut self) -> Result<()> {
        let file = self.file.take().expect("not yet committed");
        let cannot =
            |e: std::io::Error| anyhow::anyhow!("cannot write {}: {e}", self.dest.display());
        let file = file.into_inner().map_err(|e| cannot(e.into_error()))?;
        match &self.tmp {
            Some(tmp) => file
                .sync_all()
                .and_then(|()| std::fs::rename(tmp, &self.dest))
                .map_err(cannot),
            None => Ok(()),
        }
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.file.as_mut().expect("open").write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.file.as_mut().expect("open").flush()
    }
}

impl Drop for AtomicFile {
    fn drop(&mut self) {
        if let (Some(_), Some(tmp)) = (self.file.take(), &self.tmp) {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Writes what `write` produces to `path` as [`write_text`] writes text
/// (atomically to a file; to stdout for `-` or none), without holding it
/// all first.
pub fn write_with(
    path: Option<&Path>,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    match destination(path) {
        Some(p) => {
            let mut f = AtomicFile::create(p)?;
            write(&mut f).map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            f.commit()
        }
        None => {
            let mut out = std::io::BufWriter::new(std::io::stdout().lock());
            match write(&mut out).and_then(|()| out.flush()) {
                // A closed pipe (`rollstat … | head`) is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(Into::into),
            }
        }
    }
}

/// Writes `text` to the destination atomically, or to stdout.
pub fn write_text(path: Option<&Path>, text: &str) -> Result<()> {
    match destination(path) {
        Some(p) => {
            let mut f = AtomicFile::create(p)?;
            f.write_all(text.as_bytes())
                .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", p.display()))?;
            f.commit()
        }
        None => {
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()) {
                // A closed pipe (`rollstat … | head`) is not an error.
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
                r => r.map_err(Into::into),
            }
        }
    }
}
