//! The AIMD controllers under hostile event streams.

use arbitrary::{Arbitrary, Unstructured};
use core::time::Duration;
use limiter_core::{
    Admission, Aimd, AimdConfig, Change, Controller, Epoch, F32, Instant, LatencySignal,
    LimitValue, Outcome, Q32, Ratio, Sample, Vegas, VegasConfig,
};

/// A configuration as a caller might write it, floats included. One input in eight is taken as
/// it comes (mostly invalid: exercises validation); the others are folded into valid ranges so
/// that the event streams have a controller to run against.
#[derive(Arbitrary, Debug)]
struct ConfigInput {
    raw: u8,
    initial: u16,
    min: u16,
    max: u16,
    backoff: f32,
    tolerance: f32,
    step: f32,
    utilisation: f32,
    min_samples: u8,
    memory_ms: u32,
    cooldown_ms: u32,
    floor_us: u32,
    target_us: u32,
    signal: u8,
    growth_tolerance: u32,
}

impl ConfigInput {
    /// The configuration, or `None` where a float is not a factor (checked: NaN, infinities
    /// and negatives must be refused).
    fn build(&self) -> Option<AimdConfig> {
        let ratio = |x: f32| {
            let r = Ratio::from_f32(x);
            if x.is_nan() || x.is_infinite() || x < 0.0 {
                assert!(r.is_err(), "{x} became a ratio");
            }
            r.ok()
        };
        let (initial, min, max, backoff, tolerance, step, utilisation, min_samples, growth);
        let raw = self.raw % 8 == 0;
        if raw {
            (initial, min, max) = (self.initial.into(), self.min.into(), self.max.into());
            (backoff, tolerance) = (ratio(self.backoff)?, ratio(self.tolerance)?);
            (step, utilisation) = (ratio(self.step)?, ratio(self.utilisation)?);
            min_samples = u16::from(self.min_samples);
            growth = Ratio::from_bits(self.growth_tolerance);
        } else {
            min = u32::from(self.min % 8) + 1;
            // Mostly small limits; one in four reaches the range where float precision matters.
            let span = if self.raw % 4 == 1 { 1 << 20 } else { 200 };
            max = min + u32::from(self.max) * 31 % span;
            initial = min + u32::from(self.initial) % (max - min + 1);
            let fraction = |x: f32, lo: u32, span: u32| {
                let bits = x.to_bits();
                Ratio::from_bits(lo + bits % span)
            };
            backoff = fraction(self.backoff, 1, 65_535); // (0, 1)
            tolerance = fraction(self.tolerance, 65_537, 4 << 16); // (1, 5)
            step = fraction(self.step, 1, 4 << 16); // (0, 4)
            utilisation = fraction(self.utilisation, 0, 65_537); // [0, 1]
            min_samples = u16::from(self.min_samples % 16) + 1;
            // Between 1 and the tolerance, inclusive.
            let room = tolerance.to_bits() - Ratio::ONE.to_bits() + 1;
            growth = Ratio::from_bits(Ratio::ONE.to_bits() + self.growth_tolerance % room);
        }
        let base = AimdConfig::default()
            .initial(initial)
            .bounds(min, max)
            .backoff(backoff)
            .step(step)
            .growth_utilisation(utilisation)
            .growth_tolerance(growth)
            .cooldown(Duration::from_millis(u64::from(self.cooldown_ms % 100_000)))
            .baseline_floor(Duration::from_micros(u64::from(self.floor_us % 10_000)));
        let config = match self.signal % 3 {
            0 => base.baseline(
                tolerance,
                min_samples,
                Duration::from_millis(u64::from(self.memory_ms % 100_000)),
            ),
            1 => base.target(Duration::from_micros(u64::from(self.target_us) + 1)),
            _ => base.signal(LatencySignal::Off),
        };
        if !raw {
            // Folded into the documented ranges: a validator that refuses it is wrong.
            if let Err(e) = Aimd::<Q32, 16>::new(config) {
                panic!("a valid configuration was refused: {e} ({config:?})");
            }
        }
        Some(config)
    }
}

/// How a timestamp moves: mostly forward, sometimes backwards, sometimes anywhere at all.
#[derive(Arbitrary, Debug, Clone, Copy)]
enum TimeStep {
    Forward(u16),
    Back(u32),
    Anywhere(u64),
}

impl TimeStep {
    fn apply(self, now: u64) -> u64 {
        match self {
            TimeStep::Forward(ms) => now.saturating_add(u64::from(ms) * 100),
            TimeStep::Back(us) => now.saturating_sub(u64::from(us)),
            TimeStep::Anywhere(t) => t,
        }
    }
}

#[derive(Arbitrary, Debug, Clone, Copy)]
enum Event {
    /// A request admitted at `admitted` (relative to now), completing at `completed`.
    Sample {
        admitted: TimeStep,
        completed: TimeStep,
        in_flight: u16,
        /// Admitted before the last cut (an older epoch).
        stale: bool,
        outcome: u8,
    },
    /// A Retry-After hint.
    Hold { now: TimeStep, until: u64 },
}

fn outcome(byte: u8) -> Outcome {
    match byte % 4 {
        0 => Outcome::Overload,
        1 => Outcome::Ignore,
        _ => Outcome::Success,
    }
}

/// Applies one event to an AIMD controller; returns what it said.
fn apply<V: LimitValue>(c: &mut Aimd<V, 16>, now: &mut u64, event: Event) -> Option<Change> {
    apply_any(c, now, event)
}

/// Applies one event to any controller; returns what it said.
fn apply_any<C: Controller>(c: &mut C, now: &mut u64, event: Event) -> Option<Change> {
    match event {
        Event::Sample {
            admitted,
            completed,
            in_flight,
            stale,
            outcome: o,
        } => {
            let at = admitted.apply(*now);
            *now = completed.apply(at);
            let epoch = if stale {
                Epoch(c.epoch().0.wrapping_sub(1))
            } else {
                c.epoch()
            };
            let admission = Admission {
                at: Instant::from_micros(at),
                epoch,
                in_flight: u32::from(in_flight),
            };
            Some(c.on_sample(&Sample::new(
                admission,
                Instant::from_micros(*now),
                outcome(o),
            )))
        }
        Event::Hold { now: step, until } => {
            *now = step.apply(*now);
            c.hold_growth_until(Instant::from_micros(*now), Instant::from_micros(until));
            None
        }
    }
}

/// Checks one step's invariants: bounds, one cut per round trip, nothing moves on `Ignore`.
fn check_step<V: LimitValue>(
    before: &Aimd<V, 16>,
    after: &Aimd<V, 16>,
    event: Event,
    change: Option<Change>,
) {
    let config = after.config();
    let stats = after.stats();
    assert!(
        (stats.min..=stats.max).contains(&after.limit()),
        "limit {} outside [{}, {}] ({config:?})",
        after.limit(),
        stats.min,
        stats.max
    );
    let Event::Sample {
        stale, outcome: o, ..
    } = event
    else {
        assert_eq!(
            after.limit_value(),
            before.limit_value(),
            "a hint moved the limit"
        );
        return;
    };
    match change {
        Some(Change::Decreased) => {
            assert!(!stale, "a request from before the last cut cut again");
            assert_ne!(outcome(o), Outcome::Ignore, "an ignored outcome cut");
            assert!(after.limit() <= before.limit());
            assert_eq!(after.epoch().0, before.epoch().0.wrapping_add(1));
        }
        Some(Change::Increased) => {
            assert_eq!(outcome(o), Outcome::Success, "only a success grows");
            assert!(after.limit() >= before.limit());
            assert_eq!(after.epoch(), before.epoch());
        }
        Some(Change::Unchanged) => {
            assert_eq!(
                after.limit_value(),
                before.limit_value(),
                "moved but said unchanged"
            );
            assert_eq!(after.epoch(), before.epoch());
        }
        None => unreachable!("samples always answer"),
    }
}

/// The same stream through a [`Vegas`] controller sized like the AIMD one: bounds, only fresh
/// overloads cut (latency may shrink it by a step), ignored outcomes move nothing.
fn run_vegas(config: &AimdConfig, input_alpha: u8, events: &[Event]) {
    let stats = Aimd::<Q32, 16>::new(*config).map(|a| a.stats());
    let Ok(stats) = stats else {
        return;
    };
    let alpha = u32::from(input_alpha % 8) + 1;
    let vegas = VegasConfig::default()
        .initial(stats.limit)
        .bounds(stats.min, stats.max)
        .alpha(alpha)
        .beta(alpha + 1 + u32::from(input_alpha / 8 % 8))
        .probe_period(Duration::from_millis(1 + u64::from(input_alpha) * 10));
    let mut c = Vegas::new(vegas).expect("a valid configuration");
    let mut now = 0;
    for &event in events {
        let (limit, epoch) = (c.limit_value(), c.epoch());
        let change = apply_any(&mut c, &mut now, event);
        assert!(
            (stats.min..=stats.max).contains(&c.limit()),
            "Vegas limit {} out of bounds",
            c.limit()
        );
        if let Event::Sample {
            stale, outcome: o, ..
        } = event
        {
            match (change, outcome(o)) {
                (_, Outcome::Ignore) => {
                    assert_eq!((change, c.limit_value()), (Some(Change::Unchanged), limit));
                }
                (Some(Change::Decreased), Outcome::Overload) => {
                    assert!(!stale, "a stale overload cut");
                    assert_eq!(c.epoch().0, epoch.0.wrapping_add(1));
                }
                (Some(Change::Increased), o) => {
                    assert_eq!(o, Outcome::Success);
                    assert!(c.limit_value() > limit);
                }
                (Some(Change::Decreased), _) => assert!(c.limit_value() < limit),
                _ => {
                    assert_eq!(c.epoch(), epoch);
                    assert_eq!(c.limit_value(), limit, "moved but said unchanged");
                }
            }
        }
    }
}

/// Decodes a configuration and an event stream; `None` if the bytes run out first or the
/// configuration is (rightly) refused.
fn decode(data: &[u8]) -> Option<(AimdConfig, u8, Vec<Event>)> {
    let mut u = Unstructured::new(data);
    let input = ConfigInput::arbitrary(&mut u).ok()?;
    let config = input.build()?;
    let events = crate::sequence(u);
    Some((config, input.min_samples, events))
}

/// Both AIMD variants under an arbitrary configuration and event stream (times that jump or go
/// backwards, huge and zero latencies, stale epochs, hints): no panic, the limit stays within
/// `[min, max]`, only fresh congestion cuts, ignored outcomes move nothing.
pub fn controller(data: &[u8]) {
    let Some((config, extra, events)) = decode(data) else {
        return;
    };
    run::<F32>(config, &events);
    run::<Q32>(config, &events);
    run_vegas(&config, extra, &events);
}

fn run<V: LimitValue>(config: AimdConfig, events: &[Event]) {
    let Ok(mut c) = Aimd::<V, 16>::new(config) else {
        return;
    };
    let mut now = 0;
    for &event in events {
        let before = c.clone();
        let change = apply(&mut c, &mut now, event);
        check_step(&before, &c, event, change);
    }
}

/// The float and fixed-point AIMD fed the same stream stay within one unit of limit.
///
/// The stream is the healthy kind a limiter meets in service (times move forward; any outcome,
/// latency and in-flight), so that what is compared is the arithmetic of the two variants.
pub fn fixed_vs_float(data: &[u8]) {
    let Some((config, _, events)) = decode(data) else {
        return;
    };
    let (Ok(mut float), Ok(mut fixed)) =
        (Aimd::<F32, 16>::new(config), Aimd::<Q32, 16>::new(config))
    else {
        return;
    };
    let (mut now_f, mut now_q) = (0, 0);
    for event in events {
        let event = match event {
            Event::Sample {
                admitted,
                completed,
                in_flight,
                stale,
                outcome,
            } => Event::Sample {
                admitted: forward(admitted),
                completed: forward(completed),
                in_flight,
                stale,
                outcome,
            },
            Event::Hold { now, until } => Event::Hold {
                now: forward(now),
                until,
            },
        };
        apply(&mut float, &mut now_f, event);
        apply(&mut fixed, &mut now_q, event);
        let (f, q) = (float.limit(), fixed.limit());
        assert!(
            f.abs_diff(q) <= 1,
            "float {:?} and fixed {:?} disagree ({config:?})",
            float.limit_value(),
            fixed.limit_value()
        );
    }
}

fn forward(step: TimeStep) -> TimeStep {
    match step {
        TimeStep::Forward(ms) => TimeStep::Forward(ms),
        TimeStep::Back(us) => TimeStep::Forward(us as u16),
        TimeStep::Anywhere(t) => TimeStep::Forward(t as u16),
    }
}
