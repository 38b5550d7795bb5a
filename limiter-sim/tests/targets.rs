//! The simulator's JSON output, checked against what each scenario is meant to show. These are
//! regression guards on behaviour (virtual time: no wall clock is involved), run end to end
//! through the binary.

use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value;

fn run(args: &[&str]) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_limiter-sim"))
        .args(args)
        .output()
        .expect("the simulator runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8")
}

/// Every scenario's rows, from one run of the binary shared by the tests.
fn rows() -> &'static [Value] {
    static ROWS: OnceLock<Vec<Value>> = OnceLock::new();
    ROWS.get_or_init(|| serde_json::from_str(&run(&["--format", "json"])).expect("JSON"))
}

fn metric(rows: &[Value], scenario: &str, limiter: &str, field: &str) -> f64 {
    rows.iter()
        .find(|r| r["scenario"] == scenario && r["limiter"] == limiter)
        .unwrap_or_else(|| panic!("no row {scenario} / {limiter}"))[field]
        .as_f64()
        .unwrap_or_else(|| panic!("no field {field}"))
}

/// Issue target: p95 service time at most 12 ms (the seed's asyncio AIMD: about 21 ms; fixed 16:
/// about 66 ms) with completed calls within 5 % of fixed 16.
#[test]
fn capacity_drop_aimd_keeps_p95_within_12_ms() {
    let r = rows();
    let fixed = metric(r, "capacity-drop", "fixed 16", "p95_ms");
    for aimd in ["AIMD", "AIMD fixed-point"] {
        let p95 = metric(r, "capacity-drop", aimd, "p95_ms");
        assert!(
            p95 <= 12.0 && p95 * 4.0 <= fixed,
            "{aimd}: p95 {p95} ms vs fixed {fixed} ms"
        );
        let ok = metric(r, "capacity-drop", aimd, "ok");
        assert!(
            ok >= 0.95 * metric(r, "capacity-drop", "fixed 16", "ok"),
            "{aimd}: ok {ok}"
        );
    }
}

/// Issue target: successes at least 85 % of the oracle's, refusals at most 15 % of successes.
#[test]
fn quota_phases_adaptive_finds_most_of_the_quota_with_few_refusals() {
    let r = rows();
    let oracle = metric(r, "quota-phases", "oracle", "ok");
    let ok = metric(r, "quota-phases", "AIMD", "ok");
    let throttled = metric(r, "quota-phases", "AIMD", "throttled");
    assert!(ok >= 0.85 * oracle, "AIMD {ok} ok vs oracle {oracle}");
    assert!(
        throttled <= 0.15 * ok,
        "AIMD {throttled} throttled for {ok} ok"
    );
    // As in the seed: fixed 64 gets its work done only by failing more often than not.
    assert!(
        metric(r, "quota-phases", "fixed 64", "throttled")
            > metric(r, "quota-phases", "fixed 64", "ok")
    );
    assert!(metric(r, "quota-phases", "fixed 4", "ok") < 0.25 * oracle);
}

#[test]
fn without_errors_concurrency_stops_growing_when_latency_grows() {
    let r = rows();
    let limit = metric(r, "slow-no-429", "AIMD", "limit_mean");
    assert!(limit <= 12.0, "mean limit {limit} against a capacity of 8");
    let p95 = metric(r, "slow-no-429", "AIMD", "p95_ms");
    let fixed = metric(r, "slow-no-429", "fixed 64", "p95_ms");
    assert!(p95 * 10.0 <= fixed, "p95 {p95} ms vs fixed {fixed} ms");
}

#[test]
fn retry_after_hints_keep_refusals_rare() {
    let r = rows();
    let aimd = metric(r, "retry-after", "AIMD", "throttled");
    let fixed = metric(r, "retry-after", "fixed 64", "throttled");
    assert!(aimd * 20.0 <= fixed, "{aimd} refusals vs {fixed}");
}

#[test]
fn runs_are_deterministic_for_a_seed() {
    let once = run(&[
        "--format",
        "json",
        "--seed",
        "7",
        "--scenario",
        "slow-no-429",
    ]);
    let again = run(&[
        "--format",
        "json",
        "--seed",
        "7",
        "--scenario",
        "slow-no-429",
    ]);
    assert_eq!(once, again);
    let other = run(&[
        "--format",
        "json",
        "--seed",
        "8",
        "--scenario",
        "slow-no-429",
    ]);
    assert_ne!(once, other, "the seed drives the jitter");
}

#[test]
fn bad_arguments_are_refused_with_usage() {
    let out = Command::new(env!("CARGO_BIN_EXE_limiter-sim"))
        .args(["--scenario", "no-such-thing"])
        .output()
        .expect("runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--list"));
}

fn per_client(rows: &[Value], scenario: &str, limiter: &str) -> Vec<f64> {
    rows.iter()
        .find(|r| r["scenario"] == scenario && r["limiter"] == limiter)
        .expect("row")["ok_per_client"]
        .as_array()
        .expect("array")
        .iter()
        .map(|v| v.as_f64().expect("number"))
        .collect()
}

/// Issue target: Jain's index at least 0.95.
#[test]
fn ten_clients_with_their_own_limiters_share_fairly() {
    let r = rows();
    let jain = metric(r, "fairness", "AIMD", "fairness");
    assert!(jain >= 0.95, "Jain's index {jain}");
    assert_eq!(metric(r, "fairness", "AIMD", "timed_out"), 0.0);
    // Without adaptation the first callers take everything and the rest time out.
    assert!(metric(r, "fairness", "fixed 20 each", "fairness") < 0.5);
    assert!(metric(r, "fairness", "fixed 20 each", "timed_out") > 0.0);
}

#[test]
fn a_throttled_tenant_does_not_hold_back_a_healthy_one() {
    let r = rows();
    let aimd = per_client(r, "noisy-tenant", "AIMD");
    let oracle = per_client(r, "noisy-tenant", "oracle");
    assert!(
        aimd[1] >= 0.75 * oracle[1],
        "healthy tenant: {} vs {}",
        aimd[1],
        oracle[1]
    );
    let refused = metric(r, "noisy-tenant", "AIMD", "throttled");
    assert!(refused * 20.0 <= metric(r, "noisy-tenant", "fixed 40 each", "throttled"));
}

#[test]
fn plots_are_written_as_svg() {
    let dir = std::env::temp_dir().join(format!("limiter-sim-plot-{}", std::process::id()));
    run(&[
        "--scenario",
        "capacity-drop",
        "--plot",
        dir.to_str().expect("UTF-8 path"),
    ]);
    let svg = std::fs::read_to_string(dir.join("capacity-drop.svg")).expect("the chart");
    assert!(svg.starts_with("<svg") && svg.contains("AIMD fixed-point") && svg.contains("oracle"));
    let p95 =
        std::fs::read_to_string(dir.join("capacity-drop-p95.svg")).expect("the latency chart");
    assert!(p95.starts_with("<svg") && p95.contains("p95 service time"));
    std::fs::remove_dir_all(dir).expect("cleanup");
}

#[test]
fn a_healthy_noisy_dependency_is_not_throttled() {
    let r = rows();
    // Every call is served whatever the limiter: what matters is that none waited for it.
    let wait = metric(r, "steady-noisy", "AIMD", "wait_p95_ms");
    assert!(wait <= 2.0, "calls queued in the limiter: p95 {wait} ms");
}

#[test]
fn a_retry_budget_bounds_amplification_and_aimd_avoids_the_storm() {
    let r = rows();
    let unbounded = metric(r, "retry-storm", "fixed 30", "retry_amplification");
    let budgeted = metric(r, "retry-storm-budget", "fixed 30", "retry_amplification");
    assert!(
        unbounded > 1.5,
        "a fixed limit through an outage retries a lot: {unbounded}"
    );
    assert!(
        budgeted <= 1.1 + 0.01,
        "10 % budget (plus 10 retries): {budgeted}"
    );
    // AIMD cuts during the outage, so few calls fail and few are retried, budget or not.
    for scenario in ["retry-storm", "retry-storm-budget"] {
        let amplification = metric(r, scenario, "AIMD", "retry_amplification");
        assert!(amplification <= 1.05, "{scenario}: {amplification}");
    }
}

#[test]
fn adaptive_limits_settle_after_the_capacity_changes_and_fixed_ones_do_not() {
    let r = rows();
    let aimd = metric(r, "quota-phases", "AIMD", "settle_ms");
    assert!(aimd <= 2_000.0, "AIMD settled after {aimd} ms");
    assert!(metric(r, "quota-phases", "fixed 4", "settle_ms") >= 9_000.0);
    assert_eq!(metric(r, "quota-phases", "oracle", "settle_ms"), 0.0);
}

#[test]
fn a_server_that_stops_answering_is_avoided() {
    let r = rows();
    let oracle = metric(r, "hang", "oracle", "ok");
    assert!(metric(r, "hang", "AIMD", "ok") >= 0.6 * oracle);
    assert!(metric(r, "hang", "AIMD", "timed_out") <= 0.01 * oracle);
    // A fixed limit above the point where the server hangs gets almost nothing through.
    assert!(metric(r, "hang", "fixed 30", "timed_out") > metric(r, "hang", "fixed 30", "ok"));
}

/// A knee found by latency is tried again rarely (a try slows every call in flight), so a
/// client behind a sharp knee, alone or among others, loses little to its tries; and capacity
/// that comes back is still found within seconds (the long dwell lasts at most 4 s).
#[test]
fn a_sharp_latency_knee_is_tried_rarely_and_capacity_that_returns_is_found() {
    let r = rows();
    let share = |scenario: &str| {
        let goodput = metric(r, scenario, "AIMD", "goodput_vs_oracle");
        let p95 = metric(r, scenario, "AIMD", "p95_vs_oracle");
        (goodput, p95)
    };
    for scenario in ["slow-no-429", "hang", "hang-low"] {
        let (goodput, p95) = share(scenario);
        assert!(
            goodput >= 0.95 && p95 <= 1.25,
            "{scenario}: {goodput}, p95 {p95}×"
        );
    }
    // Ten clients on one sharp knee: each stays at its share (a knee moves down only when
    // cuts below it keep coming, not when another client's try slows its calls).
    let (goodput, p95) = share("fairness");
    let jain = metric(r, "fairness", "AIMD", "fairness_converged");
    assert!(
        goodput >= 0.9 && p95 <= 1.25,
        "fairness: {goodput}, p95 {p95}×"
    );
    assert!(jain >= 0.95, "fairness: Jain's index {jain}");
    assert!(
        goodput >= 0.75 && p95 <= 2.0,
        "fairness: {goodput}, p95 {p95}×"
    );
    // The server becomes four times faster at 5 s of 20: a knee remembered for good would
    // serve about a third of the oracle's calls, as a fixed limit at the old knee does.
    let (goodput, _) = share("capacity-rise");
    assert!(goodput >= 0.85, "capacity-rise: {goodput}");
    assert!(metric(r, "capacity-rise", "fixed 8", "goodput_vs_oracle") < 0.4);
}

/// A knee found by a client timeout is tried as rarely as such a try costs: every call of the
/// try is held for the whole timeout (the dwell below it doubles with the timeout's lateness,
/// up to 32 s). On a server that stops answering past its capacity with no rise in latency
/// before it, tries every 4 s timed out 56 calls and lost a quarter of the oracle's goodput;
/// 1,000 clients on a dependency whose throughput collapses past its capacity timed out together
/// at each try (41 % of the oracle's goodput).
#[test]
fn a_timeouts_knee_is_tried_as_rarely_as_a_try_costs() {
    let r = rows();
    let goodput = metric(r, "hang-silent", "AIMD", "goodput_vs_oracle");
    let timed_out = metric(r, "hang-silent", "AIMD", "timed_out");
    assert!(
        goodput >= 0.9 && timed_out <= 20.0,
        "hang-silent: {goodput}, {timed_out} timeouts"
    );
    let goodput = metric(r, "shared-1000-linear", "AIMD", "goodput_vs_oracle");
    assert!(goodput >= 0.55, "shared-1000-linear: {goodput}");
}

/// A quota that falls and comes back: below a knee found by a quick refusal the limit returns
/// to the unit below it within a few rounds (each try of the quota is a dip, not ten rounds a
/// few units below it), and the cut sized by a round that kept few of its calls sets that knee
/// at one above what the round kept, so after a fall the return stops where the quota now
/// refuses. With one step per round below such a knee: oscillating 69 % of the oracle's
/// goodput (refusals 10.2 % of the calls served), drop-and-recover 78 %, noisy-tenant 88 %.
/// Once the quota has come back and a round above the knee the fall left is served, the limit
/// goes straight back to the level the quota served before it fell; with the probe's doubling
/// alone from there, oscillating 74 % and drop-and-recover 80 %; with a step of the whole way
/// back (spread over rounds), 79 % and 84 %.
#[test]
fn a_quota_that_falls_and_returns_is_followed_within_rounds() {
    let r = rows();
    for (scenario, least) in [
        ("oscillating", 0.82),
        ("drop-and-recover", 0.85),
        ("noisy-tenant", 0.89),
        ("fast-backpressure", 0.97),
    ] {
        let goodput = metric(r, scenario, "AIMD", "goodput_vs_oracle");
        let past = metric(r, scenario, "AIMD", "refused_past_unavoidable_share");
        assert!(
            goodput >= least && past <= 0.065,
            "{scenario}: {goodput}, refused past the unavoidable {past}"
        );
    }
}

/// Ten clients share one provider's quota, which falls to a quarter for the middle third of
/// the run: each finds its share through refusals that all of them provoke together, and the
/// calls are spread fairly over the whole run (Jain's index; over the second half it is lower,
/// 0.92 to 0.95 on seeds 1 to 3: the levels the clients return to after the fall are each
/// their own).
#[test]
fn clients_sharing_a_quota_find_it_together() {
    let r = rows();
    let goodput = metric(r, "shared-quota-10", "AIMD", "goodput_vs_oracle");
    let past = metric(
        r,
        "shared-quota-10",
        "AIMD",
        "refused_past_unavoidable_share",
    );
    let jain = metric(r, "shared-quota-10", "AIMD", "fairness");
    assert!(
        goodput >= 0.9 && past <= 0.05 && jain >= 0.95,
        "goodput {goodput}, refused past the unavoidable {past}, Jain's index {jain}"
    );
}

/// Many clients on one knee that collapses throughput (each call past the shared capacity adds
/// a whole service time to every call, and a 2 s timeout): a timeout cuts as deep as its
/// lateness says and sets a knee that dwells as a latency knee does, and a knee moved down by
/// other clients' tries stays one above the level a client held, as does a cut seen at a level
/// a clean round served. With a timeout cut by the backoff and dwelt under for an eighth of a
/// step, shared-100-linear served 45 % of the oracle's calls (p95 3.85×) and
/// shared-1000-linear 13 %, refusing 35 % of what it served; with the knee at the level a
/// round served, 75 % and 63 %. Among ten clients the p95 was about 1.03× or 1.9× the oracle's
/// by seed (1.9× where one try's doubled latency reached more than one call in twenty) until
/// a cut by slow successes dwelt as long as they took (see below).
///
/// Goodput over seeds 1 to 3, as a mean: when the clients' dwells end together is chance, and
/// one seed's share of the oracle's calls moves by ten points with any rule that moves a
/// client's timing (shared-100-linear: 84, 81 and 65 % on seeds 1 to 3 before the growth band
/// was measured from the noise, 74, 75 and 84 % since). Since another client's try stretches
/// each client's next dwells (rule 11 of the growth probe), the 100 clients try rarely enough
/// that their p95 stays near the oracle's: 80, 85 and 85 %, p95 at most 1.04× (1.89× on seed 1
/// before; a mean of 77.4 %). Since a timeout of a round trip that an earlier cut answered
/// lengthens the dwell to what it says (`Knee::lengthen`), no client tries again 4 s after the
/// start-up's collapse: 88 / 89 / 88 % and 77 / 76 / 77 % for 1,000 clients, p95 1.00× (means
/// of 83.3 % and 67.8 % before, p95 up to 1.04×). Since a cut by slow successes dwells as
/// long as they took (the threshold's doublings within them, as for a late refusal), the ten
/// clients' tries are rare enough too: 91 / 91 / 91 %, p95 at most 1.02× (a mean of 88.5 %
/// and 1.90× on seed 3 before).
#[test]
fn clients_sharing_a_sharp_knee_recover_from_their_timeouts() {
    let scenarios = [
        "shared-10-linear",
        "shared-100-linear",
        "shared-1000-linear",
    ];
    let mut seeds: Vec<Vec<Value>> = ["2", "3"]
        .iter()
        .map(|seed| {
            let mut args = vec!["--format", "json", "--seed", seed];
            for scenario in scenarios {
                args.extend(["--scenario", scenario]);
            }
            serde_json::from_str(&run(&args)).expect("JSON")
        })
        .collect();
    seeds.push(rows().to_vec()); // seed 1, the default
    let refused = |r: &[Value], scenario: &str| {
        let ok = metric(r, scenario, "AIMD", "ok");
        (metric(r, scenario, "AIMD", "throttled") + metric(r, scenario, "AIMD", "timed_out")) / ok
    };
    for (scenario, least, p95_most, refused_most) in [
        ("shared-10-linear", 0.89, 1.25, 0.01),
        ("shared-100-linear", 0.86, 1.1, 0.02),
        ("shared-1000-linear", 0.74, 1.1, 0.1),
    ] {
        let goodput = seeds
            .iter()
            .map(|r| metric(r, scenario, "AIMD", "goodput_vs_oracle"))
            .sum::<f64>()
            / 3.0;
        let p95 = seeds
            .iter()
            .map(|r| metric(r, scenario, "AIMD", "p95_vs_oracle"))
            .fold(0.0, f64::max);
        let refused = seeds
            .iter()
            .map(|r| refused(r, scenario))
            .fold(0.0, f64::max);
        assert!(
            goodput >= least && p95 <= p95_most && refused <= refused_most,
            "{scenario}: mean {goodput}, p95 at most {p95}×, refused at most {refused}"
        );
    }
}

/// Heavy-tailed service times (10 ms plus an exponential 10 ms) put one healthy call in six
/// over twice the baseline: AIMD needs five slow calls of eight to cut there, and keeps most of
/// the oracle's goodput instead of being cut to its floor by the tail; the cuts it does make
/// leave no dwell below the knee they set (78 % with one), and once one has found the window
/// spread the next judge it on a lower bar (89 % without).
#[test]
fn a_heavy_tail_is_not_mistaken_for_congestion() {
    let r = rows();
    for (limiter, least) in [("AIMD", 0.95), ("AIMD compact", 0.95)] {
        let goodput = metric(r, "heavy-tail", limiter, "goodput_vs_oracle");
        let p95 = metric(r, "heavy-tail", limiter, "p95_vs_oracle");
        assert!(
            goodput >= least && p95 <= 1.5,
            "{limiter}: {goodput}, p95 {p95}×"
        );
    }
}

/// A dependency three times slower from 10 s at the same capacity: the probing AIMD cuts to
/// its floor, takes the slower latency there as the new normal and grows back to the capacity
/// (a limit that kept the old baseline would sit at the floor, every call judged congested:
/// 61 % of the oracle's goodput, limit quartiles 1/1/16).
#[test]
fn a_dependency_that_became_slower_is_learned_at_the_floor() {
    let r = rows();
    for limiter in ["AIMD", "AIMD compact", "AIMD fast start"] {
        let goodput = metric(r, "slowdown", limiter, "goodput_vs_oracle");
        let median = row(r, "slowdown", limiter)["limit_quartiles_median"][1]
            .as_f64()
            .unwrap();
        assert!(
            goodput >= 0.9 && median >= 15.0,
            "{limiter}: {goodput}, limit median {median}"
        );
    }
}

fn row<'a>(rows: &'a [Value], scenario: &str, limiter: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["scenario"] == scenario && r["limiter"] == limiter)
        .unwrap_or_else(|| panic!("no row {scenario} / {limiter}"))
}

/// Issue target (scoped limiting): under a global ceiling, a throttled tenant A shrinks its own
/// limit and leaves the shared capacity to a healthy tenant B, whose throughput stays near what
/// the oracle gets it; the ceiling holds. A fixed limit per tenant lets A's throttled calls sit
/// on the ceiling instead.
#[test]
fn a_noisy_tenant_under_a_ceiling_shrinks_alone() {
    let r = rows();
    let (scenario, ceiling) = ("noisy-tenant-ceiling", 40.0);
    let b_ok = |limiter: &str| {
        row(r, scenario, limiter)["ok_per_client"][1]
            .as_f64()
            .unwrap()
    };
    let aimd = row(r, scenario, "AIMD");
    assert!(
        aimd["global_peak"].as_f64().unwrap() <= ceiling,
        "the ceiling held"
    );
    assert!(
        aimd["final_limit_per_client"][0].as_f64().unwrap() <= 8.0,
        "A's limit shrank"
    );
    assert!(
        b_ok("AIMD") >= 0.8 * b_ok("oracle"),
        "B kept most of its throughput"
    );
    assert!(
        b_ok("AIMD") >= 1.5 * b_ok("fixed 40 each"),
        "more than with fixed limits"
    );
}

/// The JSON's field names are part of its interface: each new measurement is there, in every
/// row that ran.
#[test]
fn json_rows_carry_every_metric() {
    let r = rows();
    let fields = [
        "ok",
        "ok_during_load",
        "throttled",
        "timed_out",
        "failed",
        "queue_full",
        "rtt_mean_ms",
        "p95_ms",
        "limit_mean",
        "limit_quartiles",
        "limit_quartiles_median",
        "fairness",
        "fairness_converged",
        "server_in_flight_max",
        "server_in_flight_mean",
        "late_joiners",
        "limit_series",
        "goodput_vs_oracle",
        "p95_vs_oracle",
        "refused_share",
        "refusal_bound",
        "unavoidable_refusals",
        "refused_past_unavoidable_share",
    ];
    for row in r {
        assert!(row.get("error").is_none(), "flagged: {row}");
        for f in fields {
            assert!(
                row.get(f).is_some(),
                "{} / {}: no {f}",
                row["scenario"],
                row["limiter"]
            );
        }
    }
}

/// The refusals no causal controller avoids are one round trip of excess calls per fall of the
/// true capacity, worked out from the oracle's limits: the scenarios' own arithmetic, the same
/// for every limiter, and nothing where the capacity never falls.
#[test]
fn unavoidable_refusals_are_one_round_trip_of_excess_per_fall() {
    let r = rows();
    // (scenario, the bound): quota 40 → 10 calls per 100 ms tick of 100 ms calls, five times in
    // 20 s; 50 → 5 once; 40 → 10 once (10 → 30 is a rise); 16 → 4 once.
    for (scenario, bound) in [
        ("oscillating", 5 * 30),
        ("drop-and-recover", 45),
        ("quota-phases", 30),
        ("capacity-drop", 12),
        ("quota-window", 0),
        ("shared-100-linear", 0),
        ("slow-no-429", 0),
    ] {
        for row in r.iter().filter(|row| row["scenario"] == scenario) {
            assert_eq!(
                row["unavoidable_refusals"].as_u64(),
                Some(bound),
                "{scenario} / {}",
                row["limiter"]
            );
        }
    }
    // The share past them: oscillating's 150 excused, what AIMD refuses beyond.
    let refused = metric(r, "oscillating", "AIMD", "throttled")
        + metric(r, "oscillating", "AIMD", "timed_out");
    let ok = metric(r, "oscillating", "AIMD", "ok");
    let past = metric(r, "oscillating", "AIMD", "refused_past_unavoidable_share");
    assert!((past - (refused - 150.0) / ok).abs() < 1e-9, "{past}");
}

/// The oracle is an upper bound in every scenario: no limiter serves more during the load
/// (within 1 %: jitter draws differ between runs, and a limiter that starts more calls at once
/// gets a head start of one round trip).
#[test]
fn the_oracle_bounds_every_limiter() {
    for row in rows() {
        let share = row["goodput_vs_oracle"].as_f64().expect("a share");
        assert!(
            share <= 1.01,
            "{} / {}: {share}",
            row["scenario"],
            row["limiter"]
        );
    }
}

/// Every client's limit is sampled through the whole run, the drain included.
#[test]
fn limit_series_cover_every_client_and_the_drain() {
    let r = rows();
    let shared = row(r, "shared-10-linear", "AIMD");
    let series = &shared["limit_series"];
    assert_eq!(series["clients"].as_array().unwrap().len(), 10);
    let period = series["period_ms"].as_f64().unwrap();
    let samples = series["limits"][9].as_array().unwrap().len() as f64;
    let drained = shared["drained_at_ms"].as_f64().unwrap();
    assert!(
        samples * period >= drained,
        "{samples} × {period} ms < {drained} ms"
    );
    // 1000 clients: 20 of them are kept, the first and the last among them.
    let big = &row(r, "shared-1000-proportional", "AIMD")["limit_series"]["clients"];
    let big: Vec<u64> = big
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c.as_u64().unwrap())
        .collect();
    assert_eq!((big.len(), big[0], big[19]), (20, 0, 999));
    assert_eq!(
        row(r, "shared-1000-proportional", "AIMD")["limit_quartiles"]
            .as_array()
            .unwrap()
            .len(),
        1000
    );
}

/// A late joiner's share is measured; the oracle's is fair as soon as it can be measured (its
/// first one-second window).
#[test]
fn a_late_joiner_is_measured_against_its_fair_share() {
    let r = rows();
    for n in [10, 100] {
        let scenario = format!("late-joiner-{n}");
        let joiner = &row(r, &scenario, "oracle")["late_joiners"][0];
        assert_eq!(joiner["client"].as_u64(), Some(n));
        assert_eq!(joiner["joined_ms"].as_f64(), Some(10_000.0));
        assert_eq!(joiner["fair_after_ms"].as_f64(), Some(1_000.0));
        let share = joiner["share_at_2s"].as_f64().unwrap();
        assert!(
            (0.8..=1.2).contains(&share),
            "{scenario}: oracle share {share}"
        );
    }
}

/// A client that joins a queue others keep learns it as its baseline; the others' drain shows
/// it a whole round below that, and the limit it grew against the inflated baseline is scaled
/// down by what the baseline was off. Before that rescale: late-joiner-100's joiner 1.19× its
/// fair share 2 s after joining and 1.28× at 5 s, never fair; late-joiner-10's 1.37× and 1.41×.
#[test]
fn a_late_joiner_gives_back_what_its_inflated_baseline_took() {
    let r = rows();
    let joiner = &row(r, "late-joiner-100", "AIMD")["late_joiners"][0];
    let at_5s = joiner["share_at_5s"].as_f64().unwrap();
    let fair_after = joiner["fair_after_ms"].as_f64();
    assert!(
        (0.8..=1.2).contains(&at_5s) && fair_after.is_some_and(|ms| ms <= 5_000.0),
        "late-joiner-100: {at_5s}x fair at 5 s, fair after {fair_after:?} ms"
    );
    let at_5s = row(r, "late-joiner-10", "AIMD")["late_joiners"][0]["share_at_5s"]
        .as_f64()
        .unwrap();
    assert!(at_5s <= 1.25, "late-joiner-10: {at_5s}x fair at 5 s");
}

/// The late joiner on other seeds, whose others' drains are spread over a round trip: the
/// joiner sees the no-load latency for about one round and completes the calls it had in
/// flight. Counted against the limit those fast calls grew it to, or against at least 8, its
/// run fell one short and it kept 2.4 times its share 5 s after joining (late-joiner-10 on seed
/// 3, late-joiner-100 on seed 2); a round counted from the limit when the run began, at least
/// 6, corrects its baseline in every one of seeds 2 to 6. What is left is a unit or two of
/// limit, which nothing evens out while every client sits in its hold band (the others at 6,
/// the joiner at 7 or 8: late-joiner-10 on seed 4, 1.30 times fair), not the ±20 % of the
/// target.
#[test]
fn a_late_joiner_is_fair_within_five_seconds_on_other_seeds() {
    for seed in 2..=6 {
        let seed = seed.to_string();
        let rows: Vec<Value> = serde_json::from_str(&run(&[
            "--format",
            "json",
            "--seed",
            &seed,
            "--scenario",
            "late-joiner-10",
            "--scenario",
            "late-joiner-100",
        ]))
        .expect("JSON");
        for n in [10, 100] {
            let scenario = format!("late-joiner-{n}");
            let at_5s = row(&rows, &scenario, "AIMD")["late_joiners"][0]["share_at_5s"]
                .as_f64()
                .unwrap();
            assert!(
                (0.8..=1.35).contains(&at_5s),
                "{scenario}, seed {seed}: {at_5s}x fair at 5 s"
            );
        }
    }
}

#[test]
fn old_names_and_parameters_are_accepted() {
    let old = run(&["--format", "json", "--scenario", "seed-000"]);
    let new = run(&["--format", "json", "--scenario", "capacity-drop"]);
    assert_eq!(old, new);
    let small: Vec<Value> = serde_json::from_str(&run(&[
        "--format",
        "json",
        "--clients",
        "3",
        "--duration",
        "2",
        "--scenario",
        "shared-3-linear",
    ]))
    .expect("JSON");
    assert_eq!(small[0]["ok_per_client"].as_array().unwrap().len(), 3);
    let markdown = run(&["--format", "markdown", "--scenario", "capacity-drop"]);
    assert!(
        markdown.starts_with(
            "| scenario | AIMD | AIMD fast start | Vegas | EWMA-deviation | Gradient2 |"
        )
    );
    assert!(
        markdown.contains("| capacity-drop | AIMD | 92 %, p95 1.00×, 0 refused (0.0 %) |"),
        "{markdown}"
    );
}

/// The fixed-point AIMD (what firmware runs) and the `f32` one give the same rows in every
/// scenario: every measurement, not only the totals.
#[test]
fn fixed_point_and_float_aimd_agree_everywhere() {
    let r = rows();
    let mut compared = 0;
    for float in r.iter().filter(|row| row["limiter"] == "AIMD") {
        let scenario = float["scenario"].as_str().unwrap();
        let mut fixed = row(r, scenario, "AIMD fixed-point").clone();
        let mut float = float.clone();
        fixed["limiter"] = Value::Null;
        float["limiter"] = Value::Null;
        assert_eq!(fixed, float, "{scenario}");
        compared += 1;
    }
    assert_eq!(compared, 36);
}

/// A provider that states its remaining quota and reset is followed from the first answers:
/// the stated pace takes the limit straight to the quota's concurrency, where additive growth
/// takes about two seconds (quota-window, the same provider without the headers).
#[test]
fn a_quota_stated_in_headers_is_reached_within_a_round_trip() {
    let r = rows();
    let hinted = metric(r, "quota-window-hints", "AIMD", "goodput_vs_oracle");
    let silent = metric(r, "quota-window", "AIMD", "goodput_vs_oracle");
    let refused = metric(r, "quota-window-hints", "AIMD", "refused_share");
    assert!(
        hinted >= 0.95 && hinted >= silent + 0.05 && refused <= 0.05,
        "with headers {hinted}, without {silent}, refused {refused}"
    );
    // Clients sharing one account, each told the account's pace: each takes its part of it,
    // measured from the count of calls left, and spends the account's windows evenly, with
    // few refusals (20 to 24 % of the calls served when each took the account's pace), the
    // calls spread about evenly (on seeds 1 to 9, Jain's index over the converged window 0.945
    // to 0.985, over the whole run 0.92 to 0.98).
    let shared = metric(r, "shared-quota-hints-10", "AIMD", "goodput_vs_oracle");
    let refused = metric(r, "shared-quota-hints-10", "AIMD", "refused_share");
    let converged = metric(r, "shared-quota-hints-10", "AIMD", "fairness_converged");
    let whole = metric(r, "shared-quota-hints-10", "AIMD", "fairness");
    assert!(
        shared >= 0.9 && refused <= 0.05 && converged >= 0.94 && whole >= 0.9,
        "shared: {shared}, refused {refused}, Jain's index {converged} converged, {whole} in all"
    );
}

#[test]
fn a_trace_has_every_call_end_of_the_traced_limiter_once() {
    // One scenario whose AIMD run has timeouts, one whose run has refusals: every kind counted.
    for (scenario, refused) in [
        ("hang-silent", "timed_out"),
        ("drop-and-recover", "throttled"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_limiter-sim"))
            .args([
                "--scenario",
                scenario,
                "--trace",
                "AIMD",
                "--format",
                "json",
            ])
            .output()
            .expect("the simulator runs");
        assert!(out.status.success());
        let rows: Vec<Value> = serde_json::from_slice(&out.stdout).expect("JSON");
        let aimd = rows
            .iter()
            .find(|r| r["limiter"] == "AIMD")
            .expect("an AIMD row");
        let count = |field: &str| aimd[field].as_u64().expect("a count");
        assert!(count(refused) > 0, "{scenario} has no {refused} to trace");
        let trace = String::from_utf8(out.stderr).expect("UTF-8");
        let mut lines = trace.lines();
        assert_eq!(lines.next(), Some(format!("# {scenario} AIMD").as_str()));
        assert!(
            lines
                .next()
                .is_some_and(|l| l.starts_with("# us\tclient\toutcome"))
        );
        let ends: Vec<Vec<&str>> = lines.map(|l| l.split('\t').collect()).collect();
        // One line per call's end, whatever its outcome, and nothing else.
        let outcomes =
            |names: &[&str]| ends.iter().filter(|e| names.contains(&e[2])).count() as u64;
        assert_eq!(outcomes(&["ok"]), count("ok"), "{scenario}");
        assert_eq!(outcomes(&["throttled", "unavailable"]), count("throttled"));
        assert_eq!(outcomes(&["timeout", "gave-up"]), count("timed_out"));
        assert_eq!(outcomes(&["failed"]), count("failed"));
        assert_eq!(
            ends.len() as u64,
            count("ok") + count("throttled") + count("timed_out") + count("failed")
        );
        // In time order, eight columns each; the limit moves only when the limiter hears of a
        // call's end, so each line's limit before is the last line's limit after, from the
        // default initial limit of 4 (one client).
        assert!(ends.iter().all(|e| e.len() == 8));
        let times: Vec<u64> = ends.iter().map(|e| e[0].parse().expect("µs")).collect();
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        let mut limit = "4";
        for e in &ends {
            assert_eq!(e[4], limit, "{scenario} at {} µs", e[0]);
            limit = e[5];
        }
        assert!(
            ends.iter().any(|e| e[4] != e[5]),
            "{scenario}: the limit never moved"
        );
    }
}
