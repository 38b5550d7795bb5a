//! No single sample may silence a controller: after one absurd latency (an hour; or a request
//! admitted at `Instant::ZERO` and completed at `Instant::MAX`), overloads still cut within a
//! bounded number of samples, for every controller. And the exact-value rules that turn a
//! fraction of a limit into a whole number: a backoff of 0.9 cuts 30 to 27; growth needs the
//! documented share of the limit in flight, exactly.

use limiter_core::{
    Admission, AimdConfig, AimdF32, AimdFixed, Change, Controller, EwmaConfig, EwmaDeviation, F32,
    Gradient2, GradientConfig, Instant, LimitValue, Outcome, Q32, Ratio, Sample, Vegas,
    VegasConfig,
};

/// `at_ms` to `at_ms + latency_ms`, admitted with the limit in use.
fn feed(c: &mut dyn Controller, at_ms: u64, latency_ms: u64, outcome: Outcome) -> Change {
    let admission = Admission::new(c, Instant::from_millis(at_ms), c.limit());
    c.on_sample(&Sample::new(
        admission,
        Instant::from_millis(at_ms + latency_ms),
        outcome,
    ))
}

/// Every controller, at 64 within [1, 64].
fn controllers() -> Vec<(&'static str, Box<dyn Controller>)> {
    let aimd = AimdConfig::default().initial(64).bounds(1, 64);
    vec![
        ("AIMD f32", Box::new(AimdF32::new(aimd).unwrap())),
        ("AIMD fixed", Box::new(AimdFixed::new(aimd).unwrap())),
        (
            "Vegas",
            Box::new(Vegas::new(VegasConfig::default().initial(64).bounds(1, 64)).unwrap()),
        ),
        (
            "EWMA",
            Box::new(EwmaDeviation::new(EwmaConfig::default().initial(64).bounds(1, 64)).unwrap()),
        ),
        (
            "Gradient2",
            Box::new(Gradient2::new(GradientConfig::default().initial(64).bounds(1, 64)).unwrap()),
        ),
    ]
}

/// How many overloads, 10 ms apart and each 10 ms long, it takes to cut the limit after `poison`.
fn overloads_to_cut(
    c: &mut dyn Controller,
    poison: impl FnOnce(&mut dyn Controller),
) -> Option<u32> {
    for i in 0..200 {
        feed(c, i * 10, 10, Outcome::Success);
    }
    poison(c);
    let before = c.limit();
    (1..=1_000u32).find(|&n| {
        feed(c, 2_000 + u64::from(n) * 10, 10, Outcome::Overload);
        c.limit() < before
    })
}

#[test]
fn an_hour_long_latency_silences_no_controller() {
    for (name, mut c) in controllers() {
        let n = overloads_to_cut(c.as_mut(), |c| {
            feed(c, 2_000, 3_600_000, Outcome::Success);
        });
        // Within one limit's worth of samples (64), whatever the controller.
        assert!(n.is_some_and(|n| n <= 64), "{name}: {n:?} overloads to cut");
    }
}

#[test]
fn a_sample_from_zero_to_the_end_of_time_silences_no_controller() {
    for (name, mut c) in controllers() {
        let n = overloads_to_cut(c.as_mut(), |c| {
            let admission = Admission::new(c, Instant::ZERO, c.limit());
            c.on_sample(&Sample::new(admission, Instant::MAX, Outcome::Success));
        });
        assert!(n.is_some_and(|n| n <= 64), "{name}: {n:?} overloads to cut");
    }
}

#[test]
fn ewma_after_an_hour_long_latency_cuts_on_the_limits_worth_of_overloads() {
    let mut c = EwmaDeviation::new(EwmaConfig::default().initial(64).bounds(1, 64)).unwrap();
    // The hour-long sample ends its own interval and cuts 64 to 57 (too slow); the mean is then
    // 0.4 of an hour, and the overloads that follow complete before the sample did (monotonic
    // time stands still). The 57th completion ends the interval: 57 × 0.9 = 51.3, so 51.
    // Without the completion count, no overload would ever cut again.
    let n = overloads_to_cut(&mut c, |c| {
        assert_eq!(
            feed(c, 2_000, 3_600_000, Outcome::Success),
            Change::Decreased
        );
    });
    assert_eq!((n, c.limit()), (Some(57), 51));
}

#[test]
fn a_backoff_of_nine_tenths_cuts_30_to_27() {
    let nine_tenths = Ratio::from_fraction(9, 10).unwrap();
    let config = AimdConfig::default()
        .initial(30)
        .bounds(1, 64)
        .backoff(nine_tenths);
    let mut f = AimdF32::new(config).unwrap();
    let mut q = AimdFixed::new(config).unwrap();
    assert_eq!(feed(&mut f, 0, 10, Outcome::Overload), Change::Decreased);
    assert_eq!(feed(&mut q, 0, 10, Outcome::Overload), Change::Decreased);
    assert_eq!((f.limit(), q.limit()), (27, 27));
    let eight_tenths = Ratio::from_fraction(8, 10).unwrap();
    let mut f = AimdF32::new(config.backoff(eight_tenths)).unwrap();
    let mut q = AimdFixed::new(config.backoff(eight_tenths)).unwrap();
    feed(&mut f, 0, 10, Outcome::Overload);
    feed(&mut q, 0, 10, Outcome::Overload);
    assert_eq!((f.limit(), q.limit()), (24, 24));
    // The cut lands on 27 exactly, with no fraction left below or above it.
    let mut f = AimdF32::new(config).unwrap();
    let mut q = AimdFixed::new(config).unwrap();
    feed(&mut f, 0, 10, Outcome::Overload);
    feed(&mut q, 0, 10, Outcome::Overload);
    assert_eq!(f.limit_value(), F32::from_u32(27));
    assert_eq!(q.limit_value(), Q32::from_u32(27));
}

#[test]
fn vegas_and_gradient_cut_on_overload_by_the_same_rule() {
    // Both cut an overload through the same shrink: 30 × 0.9 is 27 in each.
    let nine_tenths = Ratio::from_fraction(9, 10).unwrap();
    let mut v = Vegas::new(
        VegasConfig::default()
            .initial(30)
            .bounds(1, 64)
            .backoff(nine_tenths),
    )
    .unwrap();
    feed(&mut v, 0, 10, Outcome::Overload);
    assert_eq!(v.limit(), 27);
    let mut g = Gradient2::new(
        GradientConfig::default()
            .initial(30)
            .bounds(1, 64)
            .backoff(nine_tenths),
    )
    .unwrap();
    feed(&mut g, 0, 10, Outcome::Overload);
    assert_eq!(g.limit(), 27);
}

/// Growth at `limit` with `in_flight` at admission, utilisation `share`.
fn grows(limit: u32, in_flight: u32, share: Ratio) -> bool {
    let config = AimdConfig::default()
        .initial(limit)
        .bounds(1, 64)
        .growth_utilisation(share);
    let mut c = AimdFixed::new(config).unwrap();
    let admission = Admission::new(&c, Instant::from_millis(0), in_flight);
    c.on_sample(&Sample::new(
        admission,
        Instant::from_millis(1),
        Outcome::Success,
    )) == Change::Increased
}

#[test]
fn growth_needs_the_documented_share_of_the_limit_in_flight() {
    let nine_tenths = Ratio::from_fraction(9, 10).unwrap();
    let eight_tenths = Ratio::from_fraction(8, 10).unwrap();
    // 0.9 of 2 is 1.8: one in flight (50 %) is not enough.
    assert!(!grows(2, 1, nine_tenths));
    assert!(grows(2, 2, nine_tenths));
    // 0.9 of 10 is 9: eight in flight is not enough.
    assert!(!grows(10, 8, nine_tenths));
    assert!(grows(10, 9, nine_tenths));
    // 0.8 of 10 is 8 (stored just above 0.8): eight is enough, seven is not.
    assert!(grows(10, 8, eight_tenths));
    assert!(!grows(10, 7, eight_tenths));
}
