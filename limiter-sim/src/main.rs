//! `limiter-sim`: runs the standard scenarios and prints how each limiter behaved.
//!
//! ```text
//! limiter-sim [--scenario NAME]... [--seed N] [--format table|json] [--plot DIR] [--list]
//! ```

use std::process::ExitCode;

use std::path::PathBuf;

use limiter_sim::{plot, report, scenario};

fn main() -> ExitCode {
    let mut names = Vec::new();
    let (mut seed, mut json, mut list) = (1u64, false, false);
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
                Some("json") => json = true,
                Some("table") => json = false,
                _ => return usage("--format is table or json"),
            },
            "--plot" => match args.next() {
                Some(dir) => plot_dir = Some(PathBuf::from(dir)),
                None => return usage("--plot takes a directory"),
            },
            "--list" => list = true,
            "--help" | "-h" => return usage(""),
            other => return usage(&format!("unknown argument {other}")),
        }
    }
    let all = scenario::all();
    if list {
        for s in &all {
            println!("{:>18}  {}", s.name, s.about);
        }
        return ExitCode::SUCCESS;
    }
    if let Some(missing) = names.iter().find(|n| !all.iter().any(|s| s.name == **n)) {
        return usage(&format!("no scenario {missing} (see --list)"));
    }
    let chosen = all
        .iter()
        .filter(|s| names.is_empty() || names.iter().any(|n| n == s.name));
    let mut rows = Vec::new();
    for s in chosen {
        let r = report::rows(s, seed);
        if !json {
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
    if json {
        match serde_json::to_string_pretty(&rows) {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("limiter-sim: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

fn usage(problem: &str) -> ExitCode {
    if !problem.is_empty() {
        eprintln!("limiter-sim: {problem}");
    }
    eprintln!(
        "usage: limiter-sim [--scenario NAME]... [--seed N] [--format table|json] [--plot DIR] [--list]"
    );
    if problem.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    }
}
