//! Extraction never panics, and what it returns is trimmed, non-empty text
//! taken from the response (or a letter/number derived from it).
#![no_main]

use libfuzzer_sys::fuzz_target;
use rollstat_grade::{extract_answer, ExtractMode};

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else {
        return;
    };
    for mode in [ExtractMode::Math, ExtractMode::Mcq, ExtractMode::Number] {
        if let Some(a) = extract_answer(s, &mode) {
            assert!(!a.is_empty() && a.trim() == a, "{mode:?}: {a:?}");
        }
    }
});
