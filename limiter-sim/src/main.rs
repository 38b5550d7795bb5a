//! `limiter-sim`: runs the standard scenarios and prints how each limiter behaved.
//!
//! ```text
//! limiter-sim [--scenario NAME]... [--seed N] [--format table|json|markdown] [--plot DIR]
//!             [--clients N] [--duration SECONDS] [--list]
//! ```

use std::path::PathBuf;
use std::process::ExitCode;

use limiter_sim::scenario::{self, Params};
use limiter_sim::{plot, report};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Format {
    Table,
    Json,
    Markdown,
}

const USAGE: &str = "usage: limiter-sim [--scenario NAME]... [--seed N] [--format table|json|markdown] \
                     [--plot DIR] [--clients N] [--duration SECONDS] [--list]";

fn main() -> ExitCode {
    let mut names = Vec::new();
    let (mut seed, mut format, mut list) = (1u64, Format::Table, false);
    let mut params = Params::default();
    let mut plot_dir: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => match args.next() {
                Some(name) => names.push(name),
                None => return usage("--scenario takes a name"),
            },
            "--seed" => match args.next().and_then(|s| s.parse().ok()) {
                Some(s) => seed = s,
                None => return usage("--seed takes a number"),
            },
            "--format" => match args.next().as_deref() {
                Some("json") => format = Format::Json,
                Some("table") => format = Format::Table,
                Some("markdown") => format = Format::Markdown,
                _ => return usage("--format is table, json or markdown"),
            },
            "--plot" => match args.next() {
                Some(dir) => plot_dir = Some(PathBuf::from(dir)),
                None => return usage("--plot takes a directory"),
            },
            "--clients" => match args.next().and_then(|s| s.parse::<usize>().ok()) {
                Some(n) if (1..=100_000).contains(&n) => params.clients = Some(n),
                _ => return usage("--clients takes a number from 1 to 100000"),
            },
            "--duration" => match args.next().and_then(|s| s.parse::<f64>().ok()) {
                Some(secs) if secs > 0.0 && secs <= 86_400.0 => {
                    params.duration_us = Some((secs * 1e6) as u64);
                }
                _ => return usage("--duration takes seconds, more than 0 and at most 86400"),
            },
            "--list" => list = true,
            "--help" | "-h" => return usage(""),
            other => return usage(&format!("unknown argument {other}")),
        }
    }
    let all = scenario::all(&params);
    if list {
        for s in &all {
            let aliases = if s.aliases.is_empty() {
                String::new()
            } else {
                format!(" (also {})", s.aliases.join(", "))
            };
            println!("{:>24}  {}{aliases}", s.name, s.about);
            println!("{:>24}  oracle: {}", "", s.oracle);
        }
        return ExitCode::SUCCESS;
    }
    if let Some(missing) = names.iter().find(|n| !all.iter().any(|s| s.is_named(n))) {
        return usage(&format!("no scenario {missing} (see --list)"));
    }
    let chosen = all
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|n| s.is_named(n)));
    let mut rows = Vec::new();
    for s in chosen {
        let r = report::rows(s, seed);
        if format == Format::Table {
            println!("{}", report::table(s, &r));
        }
        if let Some(dir) = &plot_dir {
            for chart in [plot::limits, plot::latency] {
                match chart(s, &r, dir) {
                    Ok(path) => eprintln!("limiter-sim: wrote {}", path.display()),
                    Err(e) => {
                        eprintln!("limiter-sim: cannot plot {}: {e}", s.name);
                        return ExitCode::FAILURE;
                    }
                }
            }
        }
        rows.extend(r);
    }
    match format {
        Format::Table => {}
        Format::Markdown => print!("{}", report::markdown(&rows)),
        Format::Json => match serde_json::to_string(&rows) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("limiter-sim: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("limiter-sim: {problem}");
    }
    eprintln!("{USAGE}");
    if problem.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
