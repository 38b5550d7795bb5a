//! `limiter-sim`: runs the standard scenarios and prints how each limiter behaved.
//!
//! ```text
//! limiter-sim [--scenario NAME]... [--seed N] [--format table|json|markdown] [--plot DIR]
//!             [--clients N] [--duration SECONDS] [--trace LIMITER] [--list]
//! ```
//!
//! `--trace LIMITER` writes, to standard error, every call's end in the runs of the limiter
//! with that label (`AIMD`, `Vegas`, `fixed 16`...): the time, the client, the outcome, the
//! latency, the client's limit before and after, its calls in flight and its baseline (see
//! `limiter_sim::engine::run_traced`).

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
                     [--plot DIR] [--clients N] [--duration SECONDS] [--trace LIMITER] [--list]";

/// What the command line asks for.
struct Options {
    names: Vec<String>,
    trace: Option<String>,
    seed: u64,
    format: Format,
    list: bool,
    params: Params,
    plot_dir: Option<PathBuf>,
}

/// The options, or the exit code of a usage message (`--help`, or a problem).
fn parse(mut args: impl Iterator<Item = String>) -> Result<Options, ExitCode> {
    let mut o = Options {
        names: Vec::new(),
        trace: None,
        seed: 1,
        format: Format::Table,
        list: false,
        params: Params::default(),
        plot_dir: None,
    };
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--scenario" => match args.next() {
                Some(name) => o.names.push(name),
                None => return Err(usage("--scenario takes a name")),
            },
            "--seed" => match args.next().and_then(|s| s.parse().ok()) {
                Some(s) => o.seed = s,
                None => return Err(usage("--seed takes a number")),
            },
            "--format" => match args.next().as_deref() {
                Some("json") => o.format = Format::Json,
                Some("table") => o.format = Format::Table,
                Some("markdown") => o.format = Format::Markdown,
                _ => return Err(usage("--format is table, json or markdown")),
            },
            "--plot" => match args.next() {
                Some(dir) => o.plot_dir = Some(PathBuf::from(dir)),
                None => return Err(usage("--plot takes a directory")),
            },
            "--clients" => match args.next().and_then(|s| s.parse::<usize>().ok()) {
                Some(n) if (1..=100_000).contains(&n) => o.params.clients = Some(n),
                _ => return Err(usage("--clients takes a number from 1 to 100000")),
            },
            "--duration" => match args.next().and_then(|s| s.parse::<f64>().ok()) {
                Some(secs) if secs > 0.0 && secs <= 86_400.0 => {
                    o.params.duration_us = Some((secs * 1e6) as u64);
                }
                _ => {
                    return Err(usage(
                        "--duration takes seconds, more than 0 and at most 86400",
                    ));
                }
            },
            "--trace" => match args.next() {
                Some(label) => o.trace = Some(label),
                None => {
                    return Err(usage(
                        "--trace takes a limiter's label, as the rows print it",
                    ));
                }
            },
            "--list" => o.list = true,
            "--help" | "-h" => return Err(usage("")),
            other => return Err(usage(&format!("unknown argument {other}"))),
        }
    }
    Ok(o)
}

fn main() -> ExitCode {
    let Options {
        names,
        trace,
        seed,
        format,
        list,
        params,
        plot_dir,
    } = match parse(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(code) => return code,
    };
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
    if let Some(label) = &trace {
        let known = all
            .iter()
            .flat_map(|s| &s.limiters)
            .any(|(l, _)| l == label);
        if !known {
            return usage(&format!("no limiter labelled {label:?} in any scenario"));
        }
    }
    // Standard error, buffered, only when a trace is asked for.
    let mut sink = trace
        .as_ref()
        .map(|_| std::io::BufWriter::new(std::io::stderr()));
    let mut rows = Vec::new();
    for s in chosen {
        let traced = trace
            .as_deref()
            .zip(sink.as_mut())
            .map(|(label, out)| (label, out as &mut dyn std::io::Write));
        let r = report::rows_traced(s, seed, traced);
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
    if let Some(Err(e)) = sink.as_mut().map(std::io::Write::flush) {
        eprintln!("limiter-sim: cannot write the trace: {e}");
        return ExitCode::FAILURE;
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
