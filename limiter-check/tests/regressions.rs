//! Inputs the fuzzers once crashed on, replayed on every `cargo test`. A new one goes in
//! `regressions/TARGET/` under any name.
//!
//! Nothing here can pass by finding nothing: every directory under `regressions/` must be named
//! after a check and hold at least one input, and the checks must be exactly the fuzz targets
//! (`fuzz/fuzz_targets/*.rs`), so a new target cannot go without its replay.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// A check of `limiter_check`, fed one input.
type Check = fn(&[u8]);

/// Every fuzz target's check, by the target's name.
const CHECKS: [(&str, Check); 7] = [
    ("controller", limiter_check::controller),
    ("fixed_vs_float", limiter_check::fixed_vs_float),
    ("window", limiter_check::window),
    ("retry_after", limiter_check::retry_after),
    ("gate", limiter_check::gate),
    ("retry_budget", limiter_check::retry_budget),
    ("quota_hint", limiter_check::quota_hint),
];

fn names_in(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let entry = entry.expect("readable directory");
            entry.file_name().into_string().expect("a UTF-8 name")
        })
        .collect()
}

#[test]
fn every_fuzz_target_has_its_check() {
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/fuzz_targets");
    let targets: BTreeSet<String> = names_in(&targets)
        .into_iter()
        .filter_map(|name| name.strip_suffix(".rs").map(str::to_owned))
        .collect();
    let checks: BTreeSet<String> = CHECKS.iter().map(|(name, _)| (*name).to_owned()).collect();
    assert!(!targets.is_empty(), "no fuzz target found");
    assert_eq!(targets, checks, "fuzz targets and replayed checks differ");
}

#[test]
fn crash_inputs_stay_fixed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("regressions");
    let mut replayed = 0;
    for dir in names_in(&root) {
        let check = CHECKS
            .iter()
            .find(|(name, _)| *name == dir)
            .unwrap_or_else(|| panic!("regressions/{dir} is named after no check"))
            .1;
        let inputs = names_in(&root.join(&dir));
        assert!(!inputs.is_empty(), "regressions/{dir} holds no input");
        for input in inputs {
            let path = root.join(&dir).join(&input);
            println!("{dir}: {}", path.display());
            check(&fs::read(&path).expect("readable input"));
            replayed += 1;
        }
    }
    assert!(replayed >= 1, "the regression inputs were not found");
}
