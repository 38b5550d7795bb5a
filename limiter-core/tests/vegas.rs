//! The Vegas controller on simple sequences, with exact expected limits.

use core::time::Duration;

use limiter_core::{
    Admission, Change, ConfigError, Controller, Epoch, Instant, Outcome, Ratio, Sample, Vegas,
    VegasConfig,
};

const MS: u64 = 1_000;

/// One request admitted at `at` ms with `in_flight` in flight, taking `latency` µs.
fn sample(v: &mut Vegas, at: u64, latency: u64, in_flight: u32, outcome: Outcome) -> Change {
    let a = Admission::new(v, Instant::from_millis(at), in_flight);
    let done = Instant::from_micros(at * MS + latency);
    v.on_sample(&Sample::new(a, done, outcome))
}

fn vegas(initial: u32) -> Vegas {
    Vegas::new(VegasConfig::default().initial(initial).bounds(2, 1_000)).unwrap()
}

/// The limit as a float, for comparisons.
fn value(v: &Vegas) -> f64 {
    v.limit_value().0 as f64 / (1u64 << 32) as f64
}

/// One round trip: as many samples as the limit, each with the limit in use.
fn round(v: &mut Vegas, at: u64, latency: u64) -> Vec<Change> {
    (0..v.limit())
        .map(|_| {
            let in_flight = v.limit();
            sample(v, at, latency, in_flight, Outcome::Success)
        })
        .collect()
}

#[test]
fn grows_without_queueing_holds_with_some_and_shrinks_with_much() {
    let mut v = vegas(10);
    // At the no-load latency nothing is queued: about +2 over a round trip.
    assert!(
        round(&mut v, 0, 10 * MS)
            .iter()
            .all(|c| *c == Change::Increased)
    );
    assert!((11.7..=12.0).contains(&value(&v)), "{}", value(&v));
    assert_eq!(v.limit(), 11);
    // Twice the no-load latency: 11 × (1 − 1/2) = 5 queued, between alpha 3 and beta 6: hold.
    let before = v.limit_value();
    assert!(
        round(&mut v, 1, 20 * MS)
            .iter()
            .all(|c| *c == Change::Unchanged)
    );
    assert_eq!(v.limit_value(), before);
    // Four times: 11 × 3/4 = 8 queued, above beta: about −1 over a round trip.
    assert!(
        round(&mut v, 2, 40 * MS)
            .iter()
            .all(|c| *c == Change::Decreased)
    );
    assert!((10.6..=10.9).contains(&value(&v)), "{}", value(&v));
    // 11 ms against 10: 10 × 1/11 = 0 queued: grow again.
    assert_eq!(
        sample(&mut v, 3, 11 * MS, 10, Outcome::Success),
        Change::Increased
    );
    assert_eq!(v.stats().baseline_micros, Some(10_000));
}

#[test]
fn steps_scale_with_log10_of_the_limit() {
    let mut v = vegas(150);
    round(&mut v, 0, 10 * MS); // unit 2: +4 over a round trip
    assert!((153.8..=154.0).contains(&value(&v)), "{}", value(&v));
    // 20 ms: 153 / 2 = 76 queued > beta 12: −2 over a round trip.
    round(&mut v, 1, 20 * MS);
    assert!((151.8..=152.0).contains(&value(&v)), "{}", value(&v));
}

#[test]
fn an_unused_limit_does_not_grow_but_still_shrinks() {
    let mut v = vegas(10);
    assert_eq!(
        sample(&mut v, 0, 10 * MS, 4, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(v.limit(), 10);
    assert_eq!(
        sample(&mut v, 1, 50 * MS, 4, Outcome::Success),
        Change::Decreased
    );
    assert!(value(&v) < 10.0);
}

#[test]
fn overload_cuts_once_per_round_trip_and_ignored_outcomes_change_nothing() {
    let mut v = vegas(20);
    let stale = Admission::new(&v, Instant::ZERO, 20);
    assert_eq!(
        sample(&mut v, 0, 5 * MS, 20, Outcome::Overload),
        Change::Decreased
    );
    assert_eq!(v.limit(), 16); // × 0.8
    let s = Sample::new(stale, Instant::from_millis(6), Outcome::Overload);
    assert_eq!(
        v.on_sample(&s),
        Change::Unchanged,
        "admitted before the cut"
    );
    assert_eq!(v.epoch(), Epoch(1));
    for i in 0..50 {
        assert_eq!(
            sample(&mut v, 10 + i, 900 * MS, 16, Outcome::Ignore),
            Change::Unchanged
        );
    }
    assert_eq!(v.limit(), 16);
    // Down to the floor and no further.
    for i in 0..20 {
        sample(&mut v, 100 + i, 5 * MS, 16, Outcome::Overload);
    }
    assert_eq!(v.limit(), 2);
    assert!(v.stats().at_floor_since.is_some());
}

#[test]
fn the_no_load_latency_is_re_measured() {
    let config = VegasConfig::default()
        .initial(10)
        .bounds(1, 100)
        .probe_period(Duration::from_secs(1));
    let mut v = Vegas::new(config).unwrap();
    sample(&mut v, 0, 10 * MS, 10, Outcome::Success);
    // The dependency becomes 3x slower for good; two periods later that is its new no-load.
    for i in 0..300u64 {
        let in_flight = v.limit();
        sample(&mut v, 10 + i * 10, 30 * MS, in_flight, Outcome::Success);
    }
    assert_eq!(v.stats().baseline_micros, Some(30_000));
}

#[test]
fn invalid_configurations_are_rejected() {
    let ok = VegasConfig::default();
    for (config, error) in [
        (ok.bounds(0, 10), ConfigError::MinIsZero),
        (ok.bounds(10, 5), ConfigError::MinAboveMax),
        (ok.initial(100), ConfigError::InitialOutOfBounds),
        (ok.backoff(Ratio::ONE), ConfigError::BackoffOutOfRange),
        (ok.alpha(0), ConfigError::ThresholdsOutOfOrder),
        (ok.alpha(6).beta(6), ConfigError::ThresholdsOutOfOrder),
        (
            ok.probe_period(Duration::ZERO),
            ConfigError::ProbePeriodIsZero,
        ),
    ] {
        assert_eq!(Vegas::new(config).unwrap_err(), error, "{config:?}");
    }
}
