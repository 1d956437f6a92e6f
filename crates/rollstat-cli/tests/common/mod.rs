//! Running the binary from the repository root (shared by html.rs and
//! table.rs).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// stdout of a successful run with `RAYON_NUM_THREADS=threads`.
pub fn run_with(args: &[&str], threads: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_rollstat"))
        .args(args)
        .current_dir(root())
        .env("RAYON_NUM_THREADS", threads)
        .output()
        .expect("runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8")
}
