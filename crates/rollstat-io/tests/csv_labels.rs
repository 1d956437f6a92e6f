//! CSV cells of the breakdown and cluster fields are labels, kept as
//! written: `01`, `1`, `1.0` and `1e0` are four groups (#10 item 6).

use rollstat_io::Input;

#[test]
fn by_and_cluster_fields_stay_text() {
    let csv = b"problem,correct,level,template\np1,1,01,7\np2,0,1,07\np3,1,1.0,7.0\np4,1,1e0,7\n";
    let rows = Input::from_bytes("x.csv", csv.to_vec()).parse_rows(Some("level"), Some("template"));
    let by: Vec<Option<String>> = rows
        .iter()
        .map(|(_, r)| r.as_ref().unwrap().by_value.clone())
        .collect();
    let cl: Vec<Option<String>> = rows
        .iter()
        .map(|(_, r)| r.as_ref().unwrap().cluster_value.clone())
        .collect();
    let s = |v: &[&str]| v.iter().map(|x| Some(x.to_string())).collect::<Vec<_>>();
    assert_eq!(by, s(&["01", "1", "1.0", "1e0"]));
    assert_eq!(cl, s(&["7", "07", "7.0", "7"]));
}
