//! A crafted Parquet file that makes the parquet crate panic (#10 item 11):
//! reported as a bad input naming the file, with no "panicked" message or
//! backtrace on stderr, even with RUST_BACKTRACE set.

mod common;
use common::run_env;

const CRAFTED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../rollstat-formats/tests/data/crafted/parquet_decoder_panics.parquet"
);

#[test]
fn a_panicking_parquet_decoder_is_a_bad_input_without_a_backtrace() {
    for args in [
        vec!["report", CRAFTED],
        vec!["report", CRAFTED, "--from", "lighteval"],
        vec!["convert", CRAFTED],
    ] {
        let o = run_env(&args, &[("RUST_BACKTRACE", "1")]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("parquet_decoder_panics.parquet") && err.contains("malformed Parquet"),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("panicked") && !err.contains("backtrace"),
            "{args:?}: {err}"
        );
    }
}
