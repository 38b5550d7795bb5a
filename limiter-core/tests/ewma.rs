//! The EWMA-deviation controller on simple sequences, with exact expected values.

use limiter_core::{
    Admission, Change, ConfigError, Controller, Epoch, EwmaConfig, EwmaDeviation, Instant, Outcome,
    Ratio, Sample,
};

/// A request completing at `done_ms` after `latency_ms`, with `in_flight` at admission.
fn sample(
    c: &mut EwmaDeviation,
    done_ms: u64,
    latency_ms: u64,
    in_flight: u32,
    o: Outcome,
) -> Change {
    let a = Admission::new(c, Instant::from_millis(done_ms - latency_ms), in_flight);
    c.on_sample(&Sample::new(a, Instant::from_millis(done_ms), o))
}

fn ewma(initial: u32) -> EwmaDeviation {
    EwmaDeviation::new(EwmaConfig::default().initial(initial).bounds(2, 100)).unwrap()
}

#[test]
fn one_adjustment_per_interval_of_a_mean_round_trip() {
    let mut c = ewma(10);
    // The first sample is an interval of its own: at the limit, nothing known yet: +1.
    assert_eq!(
        sample(&mut c, 10, 10, 10, Outcome::Success),
        Change::Increased
    );
    assert_eq!((c.limit(), c.stats().baseline_micros), (11, Some(10_000)));
    // Within the next 10 ms: samples accumulate, nothing moves.
    assert_eq!(
        sample(&mut c, 15, 10, 11, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(
        sample(&mut c, 19, 10, 11, Outcome::Success),
        Change::Unchanged
    );
    // The interval ends: mean 10 ms, not above the long-run mean, the limit was reached: +1.
    assert_eq!(
        sample(&mut c, 20, 10, 11, Outcome::Success),
        Change::Increased
    );
    assert_eq!(c.limit(), 12);
}

#[test]
fn a_slow_interval_cuts_by_the_decrease_factor() {
    let mut c = ewma(12);
    sample(&mut c, 10, 10, 12, Outcome::Success); // 13, mean 10 ms, variance 0
    // 40 ms against a mean of 10 ms and no deviation yet: too slow, × 0.9.
    assert_eq!(
        sample(&mut c, 50, 40, 13, Outcome::Success),
        Change::Decreased
    );
    assert_eq!(c.limit(), 11); // 13 × 0.9 = 11.7
    assert_eq!(c.epoch(), Epoch(1));
    // The mean moved by alpha = 0.4 towards 40 ms: 10 + 0.4 × 30 = 22 ms.
    assert_eq!(c.stats().baseline_micros, Some(22_000));
}

#[test]
fn a_wide_deviation_tolerates_noise() {
    let mut c = ewma(20);
    // Alternating 10 and 30 ms intervals: the deviation grows and the band widens, so after
    // the first surprises noise this size no longer cuts.
    let mut t = 0;
    let mut late_cuts = 0;
    for i in 0..200 {
        let latency = if i % 2 == 0 { 10 } else { 30 };
        t += 40;
        if sample(&mut c, t, latency, 5, Outcome::Success) == Change::Decreased && i > 20 {
            late_cuts += 1;
        }
    }
    assert_eq!(late_cuts, 0);
}

#[test]
fn pushback_cuts_once_and_stale_pushback_is_ignored() {
    let mut c = ewma(20);
    sample(&mut c, 10, 10, 5, Outcome::Success); // mean 10 ms, no growth (limit not reached)
    assert_eq!(c.limit(), 20);
    let stale = Admission::new(&c, Instant::from_millis(10), 5);
    // A 429 inside the interval: the cut comes when the interval ends.
    assert_eq!(
        sample(&mut c, 12, 2, 5, Outcome::Overload),
        Change::Unchanged
    );
    assert_eq!(
        sample(&mut c, 20, 10, 5, Outcome::Success),
        Change::Decreased
    );
    assert_eq!(c.limit(), 18);
    // From a request admitted before that cut: not a new signal.
    let s = Sample::new(stale, Instant::from_millis(25), Outcome::Overload);
    assert_eq!(c.on_sample(&s), Change::Unchanged);
    assert_eq!(
        sample(&mut c, 30, 10, 5, Outcome::Success),
        Change::Unchanged
    );
    assert_eq!(c.limit(), 18);
}

#[test]
fn ignored_outcomes_and_an_unused_limit_change_nothing() {
    let mut c = ewma(10);
    for i in 1..100 {
        assert_eq!(
            sample(&mut c, i * 1_000, 500, 10, Outcome::Ignore),
            Change::Unchanged
        );
    }
    assert_eq!(c.limit(), 10);
    assert_eq!(c.stats().baseline_micros, None);
    for i in 100..200 {
        assert_ne!(
            sample(&mut c, i * 50, 10, 3, Outcome::Success),
            Change::Increased
        );
    }
    assert_eq!(c.limit(), 10);
}

#[test]
fn invalid_configurations_are_rejected() {
    let ok = EwmaConfig::default();
    for (config, error) in [
        (ok.bounds(0, 5), ConfigError::MinIsZero),
        (ok.bounds(9, 5), ConfigError::MinAboveMax),
        (ok.initial(500), ConfigError::InitialOutOfBounds),
        (ok.decrease(Ratio::ONE), ConfigError::DecreaseOutOfRange),
        (ok.alpha(Ratio::ONE), ConfigError::AlphaOutOfRange),
    ] {
        assert_eq!(EwmaDeviation::new(config).unwrap_err(), error, "{config:?}");
    }
}
