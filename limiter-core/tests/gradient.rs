//! Gradient2 on simple sequences, with the expected values worked out by hand.

use limiter_core::{
    Admission, Change, ConfigError, Controller, Gradient2, GradientConfig, Instant, Outcome, Ratio,
    Sample,
};

const MS: u64 = 1_000;

fn sample(g: &mut Gradient2, at_ms: u64, latency_us: u64, in_flight: u32, o: Outcome) -> Change {
    let a = Admission::new(g, Instant::from_millis(at_ms), in_flight);
    g.on_sample(&Sample::new(
        a,
        Instant::from_micros(at_ms * MS + latency_us),
        o,
    ))
}

fn value(g: &Gradient2) -> f64 {
    g.limit_value().0 as f64 / (1u64 << 32) as f64
}

fn close(actual: f64, expected: f64) -> bool {
    (actual - expected).abs() < 1e-3
}

/// Ten samples at 10 ms: the long average is 10 ms. `limit` is set by growing to it first.
fn warmed(initial: u32) -> Gradient2 {
    let config = GradientConfig::default().initial(initial).bounds(1, 1_000);
    let mut g = Gradient2::new(config).unwrap();
    for i in 0..10 {
        sample(&mut g, i, 10 * MS, 0, Outcome::Success); // unused limit: only learns
    }
    assert_eq!(g.stats().baseline_micros, Some(10_000));
    assert_eq!(g.limit(), initial);
    g
}

#[test]
fn at_steady_latency_the_queue_allowance_probes_upwards() {
    let mut g = warmed(16);
    // gradient 1: target 16 + √16 = 20; a fifth of the way per round trip of 16 samples:
    // 4 × 0.2 / 16 = 0.05 per sample.
    assert_eq!(
        sample(&mut g, 20, 10 * MS, 16, Outcome::Success),
        Change::Increased
    );
    assert!(close(value(&g), 16.05), "{}", value(&g));
}

#[test]
fn congestion_pulls_the_limit_down_by_the_gradient() {
    let mut g = warmed(20);
    // 30 ms against 10: gradient max(0.5, 1.5 × 10 / 30) = 0.5; target 20 × 0.5 + √20 (4) = 14;
    // a fifth of the way per round trip of 20 samples: 6 × 0.2 / 20 = 0.06 per sample.
    assert_eq!(
        sample(&mut g, 20, 30 * MS, 20, Outcome::Success),
        Change::Decreased
    );
    assert!(close(value(&g), 19.94), "{}", value(&g));
    // Far above the long average: it does not learn that sample.
    assert_eq!(g.stats().baseline_micros, Some(10_000));
}

#[test]
fn the_allowance_cannot_lift_a_congested_limit() {
    let mut g = warmed(16);
    // 18.75 ms: gradient 1.5 × 10 / 18.75 = 0.8; 16 × 0.8 + 4 = 16.8 would grow: held at 16.
    assert_eq!(
        sample(&mut g, 20, 18_750, 16, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(g.limit(), 16);
    assert!(close(value(&g), 16.0));
}

#[test]
fn a_much_faster_latency_pulls_the_long_average_down_quickly() {
    let mut g = warmed(16);
    sample(&mut g, 20, 4 * MS, 0, Outcome::Success); // under half: the average decays by 5 %
    assert_eq!(g.stats().baseline_micros, Some(9_500));
}

#[test]
fn overload_cuts_once_per_round_trip_and_ignored_outcomes_change_nothing() {
    let mut g = warmed(20);
    let stale = Admission::new(&g, Instant::from_millis(20), 20);
    assert_eq!(
        sample(&mut g, 21, MS, 20, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(g.limit(), 16); // × 0.8
    let s = Sample::new(stale, Instant::from_millis(22), Outcome::Overload);
    assert_eq!(g.on_sample(&s), Change::Unchanged);
    let before = g.limit_value();
    for i in 0..50 {
        assert_eq!(
            sample(&mut g, 30 + i, 900 * MS, 16, Outcome::Ignore),
            Change::Unchanged
        );
    }
    assert_eq!(g.limit_value(), before);
}

#[test]
fn invalid_configurations_are_rejected() {
    let ok = GradientConfig::default();
    for (config, error) in [
        (ok.bounds(0, 5), ConfigError::MinIsZero),
        (ok.bounds(9, 5), ConfigError::MinAboveMax),
        (ok.initial(500), ConfigError::InitialOutOfBounds),
        (ok.backoff(Ratio::ONE), ConfigError::BackoffOutOfRange),
        (ok.smoothing(Ratio::ZERO), ConfigError::SmoothingOutOfRange),
        (ok.long_window(9), ConfigError::LongWindowTooShort),
    ] {
        assert_eq!(Gradient2::new(config).unwrap_err(), error, "{config:?}");
    }
}
