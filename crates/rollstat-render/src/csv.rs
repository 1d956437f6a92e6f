//! One flat row per (group, metric), for spreadsheets and pandas.

use rollstat::{MetricBlock, Report};

fn field(s: &str) -> String {
    if s.contains([',', '"', '\n']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn opt(v: Option<f64>) -> String {
    v.map(|x| x.to_string()).unwrap_or_default()
}

fn rows(group: &str, b: &MetricBlock, out: &mut String) {
    for (name, e) in b.metrics.iter() {
        let cells = [
            field(group),
            field(name),
            e.value.to_string(),
            opt(e.stderr),
            opt(e.ci.as_ref().map(|c| c.lower)),
            opt(e.ci.as_ref().map(|c| c.upper)),
            e.method.clone(),
            opt(e.level),
            e.n_problems.to_string(),
            e.n_excluded.to_string(),
            e.k.map(|k| k.to_string()).unwrap_or_default(),
            e.n.to_string(),
            e.denominator.to_string(),
            e.unit.to_string(),
            field(e.same_as.as_deref().unwrap_or("")),
        ];
        out.push_str(&cells.join(","));
        out.push('\n');
    }
}

pub fn render(r: &Report) -> String {
    let mut out = String::from(
        "group,metric,value,stderr,ci_low,ci_high,method,level,n_problems,n_excluded,k,n,denominator,unit,same_as\n",
    );
    rows("", &r.block, &mut out);
    for (name, g) in r.groups.iter() {
        rows(name, &g.block, &mut out);
    }
    out
}
