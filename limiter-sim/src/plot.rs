//! SVG charts: each limiter's limit over time against the oracle's (the true capacity), and the
//! p95 service time over time.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::report::Row;
use crate::scenario::Scenario;

const COLOURS: [RGBColor; 9] = [
    RGBColor(0x1f, 0x77, 0xb4),
    RGBColor(0xd6, 0x27, 0x28),
    RGBColor(0x2c, 0xa0, 0x2c),
    RGBColor(0xff, 0x7f, 0x0e),
    RGBColor(0x94, 0x67, 0xbd),
    RGBColor(0x8c, 0x56, 0x4b),
    RGBColor(0x17, 0xbe, 0xcf),
    RGBColor(0xbc, 0xbd, 0x22),
    RGBColor(0x7f, 0x7f, 0x7f),
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

/// Writes `DIR/<scenario>-p95.svg`: the 95th percentile of service time in each of 60 slices of
/// the run, one line per limiter. Returns the file written.
pub fn latency(scenario: &Scenario, rows: &[Row], dir: &Path) -> Result<PathBuf, String> {
    const SLICES: u64 = 60;
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let path = dir.join(format!("{}-p95.svg", scenario.name));
    let end = rows
        .iter()
        .filter_map(|r| r.metrics.served.last())
        .map(|&(t, _)| t)
        .max()
        .unwrap_or(1)
        .max(1);
    let slice = end.div_ceil(SLICES).max(1);
    let series: Vec<Vec<(f64, f64)>> = rows
        .iter()
        .map(|r| {
            let mut buckets: Vec<Vec<u64>> = vec![Vec::new(); SLICES as usize + 1];
            for &(t, service) in &r.metrics.served {
                buckets[(t / slice) as usize].push(service);
            }
            buckets
                .iter_mut()
                .enumerate()
                .filter(|(_, b)| !b.is_empty())
                .map(|(i, b)| {
                    b.sort_unstable();
                    let rank = (b.len() * 95).div_ceil(100).max(1);
                    ((i as u64 * slice) as f64 / 1e6, b[rank - 1] as f64 / 1e3)
                })
                .collect()
        })
        .collect();
    let top = series
        .iter()
        .flatten()
        .map(|&(_, ms)| ms)
        .fold(1.0, f64::max);
    let target = path.clone();
    let root = SVGBackend::new(&target, (900, 420)).into_drawing_area();
    let draw = |e: &dyn std::fmt::Display| e.to_string();
    root.fill(&WHITE).map_err(|e| draw(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: p95 service time over time", scenario.name),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(0.0..end as f64 / 1e6, 0.0..top * 1.1)
        .map_err(|e| draw(&e))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc("p95 (ms)")
        .draw()
        .map_err(|e| draw(&e))?;
    for (i, (row, points)) in rows.iter().zip(series).enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(points, colour.stroke_width(2)))
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
