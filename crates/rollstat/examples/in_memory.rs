//! A full report — metrics with bootstrap intervals, health, findings — from
//! rollouts held in memory, printed as report.json.
//!
//! ```sh
//! cargo run -p rollstat --example in_memory
//! ```

use rollstat::rows::{RolloutRow, Row};
use rollstat::{report, ReportOptions, Source};

fn main() -> Result<(), rollstat::Error> {
    // 50 problems × 8 rollouts; problem p is solved by rollout i when
    // (p + i) % 5 < p % 4, and wrong rollouts answer one of three wrong numbers.
    let rows: Vec<Row> = (0..50u64)
        .flat_map(|p| (0..8u64).map(move |i| (p, i, (p + i) % 5 < p % 4)))
        .map(|(p, i, ok)| {
            let answer = if ok {
                "42".to_string()
            } else {
                ((p + i) % 3).to_string()
            };
            RolloutRow::new(format!("p{p}"), ok)
                .rollout(i)
                .answer(answer)
                .into()
        })
        .collect();
    let r = report(
        &[Source::Rows {
            name: "memory".into(),
            rows,
        }],
        &ReportOptions::default(),
    )?;
    print!("{}", r.to_json());
    Ok(())
}
