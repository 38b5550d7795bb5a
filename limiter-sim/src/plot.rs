//! SVG charts: each limiter's limit over time against the oracle's (the true capacity).

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::report::Row;
use crate::scenario::Scenario;

const COLOURS: [RGBColor; 6] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
];

/// Writes `DIR/<scenario>.svg`: the first client's limit over time, one line per limiter (the
/// oracle's line is the true capacity). Returns the file written.
pub fn limits(scenario: &Scenario, rows: &[Row], dir: &Path) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{}.svg", scenario.name));
    let end_s = rows
        .iter()
        .filter_map(|r| r.metrics.limit_series.last())
        .map(|&(t, _)| t as f64 / 1e6)
        .fold(0.0, f64::max)
        .max(1e-3);
    let top = rows
        .iter()
        .flat_map(|r| r.metrics.limit_series.iter().map(|&(_, l)| l))
        .max()
        .unwrap_or(1);
    let target = path.clone();
    let root = SVGBackend::new(&target, (900, 420)).into_drawing_area();
    let draw = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: limit over time", scenario.name),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(0.0..end_s, 0.0..f64::from(top) * 1.1)
        .map_err(|e| draw(&e))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("limit")
        .draw()
        .map_err(|e| draw(&e))?;
    for (i, row) in rows.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let steps = row.metrics.limit_series.windows(2).flat_map(|w| {
            let ((t0, l0), (t1, _)) = (w[0], w[1]);
            [
                (t0 as f64 / 1e6, f64::from(l0)),
                (t1 as f64 / 1e6, f64::from(l0)),
            ]
        });
        let width = if row.limiter == "oracle" { 3 } else { 1 };
        chart
            .draw_series(LineSeries::new(steps, colour.stroke_width(width)))
            .map_err(|e| draw(&e))?
            .label(row.limiter)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| draw(&e))?;
    root.present().map_err(|e| draw(&e))?;
    Ok(path)
}
