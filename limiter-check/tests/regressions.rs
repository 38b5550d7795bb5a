//! Inputs the fuzzers once crashed on, replayed on every `cargo test`. A new one goes in
//! `regressions/TARGET/` under any name.

use std::fs;
use std::path::Path;

fn replay(target: &str, check: fn(&[u8])) -> usize {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("regressions")
        .join(target);
    let Ok(entries) = fs::read_dir(&dir) else {
        return 0;
    };
    let mut count = 0;
    for entry in entries {
        let path = entry.expect("readable directory").path();
        let data = fs::read(&path).expect("readable input");
        println!("{target}: {}", path.display());
        check(&data);
        count += 1;
    }
    count
}

#[test]
fn crash_inputs_stay_fixed() {
    let replayed = replay("controller", limiter_check::controller)
        + replay("fixed_vs_float", limiter_check::fixed_vs_float)
        + replay("window", limiter_check::window)
        + replay("retry_after", limiter_check::retry_after)
        + replay("gate", limiter_check::gate)
        + replay("retry_budget", limiter_check::retry_budget);
    assert!(replayed >= 1, "the regression inputs were not found");
}
