//! A UTF-8 byte-order mark before the first row of a canonical JSON Lines
//! input is not part of that row (#10 item 4); the digest still covers it.

use rollstat_io::{Collector, Input, ReadOptions};
use sha2::{Digest, Sha256};

const ROWS: &[u8] =
    b"\xEF\xBB\xBF{\"problem\":\"p1\",\"correct\":true}\n{\"problem\":\"p2\",\"correct\":false}\n";

fn read(input: Input) -> rollstat_io::Collected {
    let mut c = Collector::new(ReadOptions::default());
    c.add(input).unwrap();
    c.finish().unwrap()
}

#[test]
fn bom_is_skipped_on_every_path() {
    let dir = tempfile::tempdir().unwrap();
    // No extension: the format is sniffed from the content, past the BOM.
    for name in ["rows.jsonl", "rows"] {
        let path = dir.path().join(name);
        std::fs::write(&path, ROWS).unwrap();
        let streamed = read(Input::open(path.to_str().unwrap()).unwrap());
        let bytes = read(Input::from_bytes(name, ROWS.to_vec()));
        for c in [&streamed, &bytes] {
            assert_eq!(c.problems.len(), 2, "{name}");
            assert!(c.bad_lines.is_empty(), "{name}: {:?}", c.bad_lines);
            assert_eq!(c.inputs[0].records, 2);
        }
        let digest: String = Sha256::digest(ROWS)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(streamed.inputs[0].sha256, digest);
        let parsed = Input::from_bytes(name, ROWS.to_vec()).parse_rows(None, None);
        assert!(parsed.iter().all(|(_, r)| r.is_ok()));
    }
}
