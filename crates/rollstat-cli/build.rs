//! Finds Debian's `chromium` for the real-browser test of the HTML pages
//! (tests/html.rs): with it on PATH the test runs; without it the test is
//! compiled as ignored, with the reason, instead of passing silently.

use std::path::PathBuf;

fn main() {
    println!("cargo:rustc-check-cfg=cfg(has_chromium)");
    println!("cargo:rerun-if-env-changed=PATH");
    let dirs: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).collect())
        .unwrap_or_default();
    for dir in dirs.iter().filter(|d| d.is_dir()) {
        // Installing chromium later changes the directory: rerun then.
        println!("cargo:rerun-if-changed={}", dir.display());
    }
    if let Some(path) = dirs
        .iter()
        .map(|d| d.join("chromium"))
        .find(|p| p.is_file())
    {
        println!("cargo:rustc-cfg=has_chromium");
        println!("cargo:rustc-env=ROLLSTAT_TEST_CHROMIUM={}", path.display());
    }
}
