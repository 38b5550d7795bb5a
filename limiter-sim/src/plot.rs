//! SVG charts: each limiter's limit over time against the oracle's (the true capacity), and the
//! p95 service time over time.

use std::path::{Path, PathBuf};

use plotters::prelude::*;

use crate::metrics::percentile_ms;
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

/// One line of a chart: its label, its points, its width.
struct Line {
    label: String,
    points: Vec<(f64, f64)>,
    width: u32,
}

/// Draws `lines` over `[0, x_max] × [0, y_max × 1.1]` into an SVG file at `path`.
fn draw(
    path: &Path,
    title: &str,
    y_desc: &str,
    x_max: f64,
    y_max: f64,
    lines: Vec<Line>,
) -> Result<(), String> {
    let text = |e: &dyn std::fmt::Display| e.to_string();
    let root = SVGBackend::new(path, (900, 420)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| text(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(44)
        .build_cartesian_2d(0.0..x_max.max(1e-3), 0.0..y_max.max(1.0) * 1.1)
        .map_err(|e| text(&e))?;
    chart
        .configure_mesh()
        .x_desc("time (s)")
        .y_desc(y_desc)
        .draw()
        .map_err(|e| text(&e))?;
    for (i, line) in lines.into_iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                line.points,
                colour.stroke_width(line.width),
            ))
            .map_err(|e| text(&e))?
            .label(line.label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], colour.stroke_width(2)));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
        .map_err(|e| text(&e))?;
    root.present().map_err(|e| text(&e))
}

/// Steps through `(µs, value)` points: each value holds until the next point (the last one is
/// drawn as a point).
fn steps(points: &[(u64, u32)]) -> Vec<(f64, f64)> {
    let mut out: Vec<(f64, f64)> = points
        .windows(2)
        .flat_map(|w| {
            let ((t0, l0), (t1, _)) = (w[0], w[1]);
            [
                (t0 as f64 / 1e6, f64::from(l0)),
                (t1 as f64 / 1e6, f64::from(l0)),
            ]
        })
        .collect();
    out.extend(points.last().map(|&(t, l)| (t as f64 / 1e6, f64::from(l))));
    out
}

fn target(scenario: &Scenario, dir: &Path, suffix: &str) -> Result<PathBuf, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(dir.join(format!("{}{suffix}.svg", scenario.name)))
}

/// Writes `DIR/<scenario>.svg`: the first client's limit over the whole run (the drain
/// included), one line per limiter (the oracle's line is the true capacity), and, where a client
/// joined late, that client's limit too. Returns the file written.
pub fn limits(scenario: &Scenario, rows: &[Row], dir: &Path) -> Result<PathBuf, String> {
    let path = target(scenario, dir, "")?;
    let mut lines = Vec::new();
    for row in rows {
        let Some(m) = &row.metrics else { continue };
        let width = if row.limiter == "oracle" { 3 } else { 1 };
        if let Some(points) = m.limit_series.of(0) {
            lines.push(Line {
                label: row.limiter.clone(),
                points: steps(&points),
                width,
            });
        }
        for joiner in &m.late_joiners {
            if let Some(points) = m.limit_series.of(joiner.client) {
                lines.push(Line {
                    label: format!("{} (client {}, late)", row.limiter, joiner.client),
                    points: steps(&points),
                    width,
                });
            }
        }
    }
    let (x_max, y_max) = extent(&lines);
    let title = format!("{}: limit over time", scenario.name);
    draw(&path, &title, "limit", x_max, y_max, lines)?;
    Ok(path)
}

/// Writes `DIR/<scenario>-p95.svg`: the 95th percentile of service time in each of 60 slices of
/// the run, one line per limiter. Returns the file written.
pub fn latency(scenario: &Scenario, rows: &[Row], dir: &Path) -> Result<PathBuf, String> {
    const SLICES: u64 = 60;
    let path = target(scenario, dir, "-p95")?;
    let end = rows
        .iter()
        .filter_map(|r| r.metrics.as_ref()?.served.last())
        .map(|&(t, _)| t)
        .max()
        .unwrap_or(1)
        .max(1);
    let slice = end.div_ceil(SLICES).max(1);
    let lines: Vec<Line> = rows
        .iter()
        .filter_map(|r| Some((r, r.metrics.as_ref()?)))
        .map(|(r, m)| {
            let mut buckets: Vec<Vec<u64>> = vec![Vec::new(); SLICES as usize + 1];
            for &(t, service) in &m.served {
                buckets[(t / slice) as usize].push(service);
            }
            let points = buckets
                .iter_mut()
                .enumerate()
                .filter(|(_, b)| !b.is_empty())
                .map(|(i, b)| {
                    b.sort_unstable();
                    ((i as u64 * slice) as f64 / 1e6, percentile_ms(b, 0.95))
                })
                .collect();
            Line {
                label: r.limiter.clone(),
                points,
                width: 2,
            }
        })
        .collect();
    let (_, y_max) = extent(&lines);
    let title = format!("{}: p95 service time over time", scenario.name);
    draw(&path, &title, "p95 (ms)", end as f64 / 1e6, y_max, lines)?;
    Ok(path)
}

/// The largest x and y over every line.
fn extent(lines: &[Line]) -> (f64, f64) {
    lines
        .iter()
        .flat_map(|l| l.points.iter())
        .fold((0.0, 0.0), |(x, y), &(px, py)| {
            (f64::max(x, px), f64::max(y, py))
        })
}
