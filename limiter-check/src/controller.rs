//! The AIMD controllers under hostile event streams.

use arbitrary::{Arbitrary, Unstructured};
use core::time::Duration;
use limiter_core::{
    Admission, Aimd, AimdConfig, Change, Controller, Epoch, EwmaConfig, EwmaDeviation, F32,
    Gradient2, GradientConfig, Instant, LatencySignal, LimitValue, Outcome, Q32, Ratio, Sample,
    Vegas, VegasConfig,
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
    deepest_cut: f32,
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
    fn build(&self) -> Option<(AimdConfig, Plain)> {
        let ratio = |x: f32| {
            let r = Ratio::from_f32(x);
            if x.is_nan() || x.is_infinite() || x < 0.0 {
                assert!(r.is_err(), "{x} became a ratio");
            }
            r.ok()
        };
        let (
            initial,
            min,
            max,
            backoff,
            deepest,
            tolerance,
            step,
            utilisation,
            min_samples,
            growth,
        );
        let raw = self.raw % 8 == 0;
        if raw {
            (initial, min, max) = (self.initial.into(), self.min.into(), self.max.into());
            (backoff, tolerance) = (ratio(self.backoff)?, ratio(self.tolerance)?);
            deepest = ratio(self.deepest_cut)?;
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
            deepest = fraction(self.deepest_cut, 1, 65_535); // (0, 1)
            tolerance = fraction(self.tolerance, 65_537, 4 << 16); // (1, 5)
            step = fraction(self.step, 1, 4 << 16); // (0, 4)
            utilisation = fraction(self.utilisation, 0, 65_537); // [0, 1]
            min_samples = u16::from(self.min_samples % 16) + 1;
            // Between 1 and the tolerance, inclusive.
            let room = tolerance.to_bits() - Ratio::ONE.to_bits() + 1;
            growth = Ratio::from_bits(Ratio::ONE.to_bits() + self.growth_tolerance % room);
        }
        let plain = Plain {
            initial,
            min,
            max,
            backoff,
            deepest,
            step,
            utilisation,
            growth,
            cooldown_us: u64::from(self.cooldown_ms % 100_000) * 1_000,
            floor_us: u64::from(self.floor_us % 10_000),
            // One configuration in four starts fast (taken from bits of `raw` that the rest
            // does not read, so that stored inputs keep the rest of their meaning).
            fast_start: (self.raw >> 5) & 3 == 3,
            signal: match self.signal % 3 {
                0 => PlainSignal::Baseline {
                    tolerance,
                    min_samples,
                    memory_us: u64::from(self.memory_ms % 100_000) * 1_000,
                },
                1 => PlainSignal::Target(u64::from(self.target_us) + 1),
                _ => PlainSignal::Off,
            },
        };
        let config = plain.config();
        if !raw {
            // Folded into the documented ranges: a validator that refuses it is wrong.
            if let Err(e) = Aimd::<Q32, 16>::new(config) {
                panic!("a valid configuration was refused: {e} ({config:?})");
            }
        }
        Some((config, plain))
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
        /// The pace the dependency states with it (see [`pace_of`]).
        pace: u16,
        /// The calls it says are left in its quota's window (0: it says nothing).
        calls_left: u16,
    },
    /// A Retry-After hint.
    Hold { now: TimeStep, until: u64 },
}

/// The pace a `Sample` event states: none for two values in three, so that most streams
/// exercise the rest of the rules as before.
fn pace_of(pace: u16) -> u32 {
    if pace % 3 == 0 {
        u32::from(pace / 3)
    } else {
        0
    }
}

fn outcome(byte: u8) -> Outcome {
    match byte % 4 {
        0 => Outcome::Overload,
        1 => Outcome::Ignore,
        _ => Outcome::Success,
    }
}

/// Applies one event to an AIMD controller; returns what it said.
fn apply<V: LimitValue, const P: usize>(
    c: &mut Aimd<V, 16, P>,
    now: &mut u64,
    event: Event,
) -> Option<Change> {
    apply_any(c, now, event)
}

/// Applies one event to any controller; returns what it said.
fn apply_any<C: Controller>(c: &mut C, now: &mut u64, event: Event) -> Option<Change> {
    match event {
        Event::Sample { .. } => {
            let sample = sample_of(event, c.epoch(), now)?;
            Some(c.on_sample(&sample))
        }
        Event::Hold { now: step, until } => {
            *now = step.apply(*now);
            c.hold_growth_until(Instant::from_micros(*now), Instant::from_micros(until));
            None
        }
    }
}

/// The sample a `Sample` event stands for, given the controller's current epoch; moves `now`
/// to its completion. `None` for other events.
fn sample_of(event: Event, current: Epoch, now: &mut u64) -> Option<Sample> {
    let Event::Sample {
        admitted,
        completed,
        in_flight,
        stale,
        outcome: o,
        pace,
        calls_left,
    } = event
    else {
        return None;
    };
    let at = admitted.apply(*now);
    *now = completed.apply(at);
    let epoch = if stale {
        Epoch(current.0.wrapping_sub(1))
    } else {
        current
    };
    let admission = Admission {
        at: Instant::from_micros(at),
        epoch,
        in_flight: u32::from(in_flight),
    };
    let sample = Sample::new(admission, Instant::from_micros(*now), outcome(o));
    Some(
        sample
            .with_pace(pace_of(pace))
            .with_calls_left(u32::from(calls_left)),
    )
}

/// Checks one step's invariants: bounds, one cut per round trip, nothing moves on `Ignore`.
fn check_step<V: LimitValue, const P: usize>(
    before: &Aimd<V, 16, P>,
    after: &Aimd<V, 16, P>,
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

/// The same stream through the [`Vegas`], [`EwmaDeviation`] and [`Gradient2`] controllers, sized like the AIMD
/// one: bounds, only fresh overloads cut, ignored outcomes move nothing, a reported change matches
/// the limit's movement.
fn run_others(config: &AimdConfig, extra: u8, events: &[Event]) {
    let Ok(stats) = Aimd::<Q32, 16>::new(*config).map(|a| a.stats()) else {
        return;
    };
    let alpha = u32::from(extra % 8) + 1;
    let vegas = VegasConfig::default()
        .initial(stats.limit)
        .bounds(stats.min, stats.max)
        .alpha(alpha)
        .beta(alpha + 1 + u32::from(extra / 8 % 8))
        .probe_period(Duration::from_millis(1 + u64::from(extra) * 10));
    let vegas = Vegas::new(vegas).expect("a valid configuration");
    invariants(vegas, stats.min, stats.max, events, true, |c| {
        c.limit_value().0
    });
    let ewma = EwmaConfig::default()
        .initial(stats.limit)
        .bounds(stats.min, stats.max)
        .alpha(Ratio::from_bits(1 + u32::from(extra) * 250))
        .deviation_scale(Ratio::from_bits(u32::from(extra) << 12));
    let ewma = EwmaDeviation::new(ewma).expect("a valid configuration");
    // It cuts when an interval ends, whichever sample ends it.
    invariants(ewma, stats.min, stats.max, events, false, |c| {
        u64::from(c.limit())
    });
    let gradient = GradientConfig::default()
        .initial(stats.limit)
        .bounds(stats.min, stats.max)
        .smoothing(Ratio::from_bits(1 + u32::from(extra) * 256))
        .long_window(10 + u32::from(extra));
    let gradient = Gradient2::new(gradient).expect("a valid configuration");
    invariants(gradient, stats.min, stats.max, events, true, |c| {
        c.limit_value().0
    });
}

fn invariants<C: Controller>(
    mut c: C,
    min: u32,
    max: u32,
    events: &[Event],
    cuts_on_the_sample: bool,
    value: impl Fn(&C) -> u64,
) {
    let mut now = 0;
    for &event in events {
        let (before, epoch) = (value(&c), c.epoch());
        let change = apply_any(&mut c, &mut now, event);
        assert!(
            (min..=max).contains(&c.limit()),
            "limit {} out of bounds",
            c.limit()
        );
        let after = value(&c);
        if let Event::Sample {
            stale, outcome: o, ..
        } = event
        {
            match (change, outcome(o)) {
                (_, Outcome::Ignore) => {
                    assert_eq!((change, after), (Some(Change::Unchanged), before));
                }
                (Some(Change::Decreased), o) => {
                    assert!(
                        !(cuts_on_the_sample && stale && o == Outcome::Overload),
                        "a stale overload cut"
                    );
                    assert!(after <= before);
                    if o == Outcome::Overload || !cuts_on_the_sample {
                        assert_eq!(c.epoch().0, epoch.0.wrapping_add(1));
                    }
                }
                (Some(Change::Increased), _) => assert!(after > before),
                _ => assert_eq!(after, before, "moved but said unchanged"),
            }
        }
    }
}

/// Decodes a configuration and an event stream; `None` if the bytes run out first or the
/// configuration is (rightly) refused.
fn decode(data: &[u8]) -> Option<(AimdConfig, Plain, u8, Vec<Event>)> {
    let mut u = Unstructured::new(data);
    let input = ConfigInput::arbitrary(&mut u).ok()?;
    let (config, plain) = input.build()?;
    let events = crate::sequence(u);
    Some((config, plain, input.min_samples, events))
}

/// The AIMD variants (float, fixed-point, fixed-point compact) under an arbitrary configuration and event stream (times that jump or go
/// backwards, huge and zero latencies, stale epochs, hints): no panic, the limit stays within
/// `[min, max]`, only fresh congestion cuts, ignored outcomes move nothing.
pub fn controller(data: &[u8]) {
    let Some((config, plain, extra, events)) = decode(data) else {
        return;
    };
    let fast = plain.fast_start;
    run::<F32, 1>(config, fast, &events);
    run::<Q32, 1>(config, fast, &events);
    run::<Q32, 0>(config, false, &events);
    run_others(&config, extra, &events);
    against_model(&plain, &events);
}

/// An AIMD of a 16-sample window as a test builds it: under `config`, started fast if `fast`.
trait Built: Sized {
    /// `None` if `config` is refused, or if `fast` is asked of the compact AIMD, which has no
    /// fast start.
    fn built(config: AimdConfig, fast: bool) -> Option<Self>;
}

impl<V: LimitValue> Built for Aimd<V, 16, 1> {
    fn built(config: AimdConfig, fast: bool) -> Option<Self> {
        let aimd = Self::new(config).ok()?;
        Some(if fast { aimd.fast_start() } else { aimd })
    }
}

impl<V: LimitValue> Built for Aimd<V, 16, 0> {
    fn built(config: AimdConfig, fast: bool) -> Option<Self> {
        if fast {
            return None;
        }
        Self::new(config).ok()
    }
}

fn run<V: LimitValue, const P: usize>(config: AimdConfig, fast: bool, events: &[Event])
where
    Aimd<V, 16, P>: Built,
{
    let Some(mut c) = Aimd::<V, 16, P>::built(config, fast) else {
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
    let Some((config, plain, _, events)) = decode(data) else {
        return;
    };
    let fast = plain.fast_start;
    let (Some(mut float), Some(mut fixed)) = (
        Aimd::<F32, 16>::built(config, fast),
        Aimd::<Q32, 16>::built(config, fast),
    ) else {
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
                pace,
                calls_left,
            } => Event::Sample {
                admitted: forward(admitted),
                completed: forward(completed),
                in_flight,
                stale,
                outcome,
                pace,
                calls_left,
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

/// The configuration as plain values, so the reference model can read what it was given.
#[derive(Clone, Copy, Debug)]
struct Plain {
    initial: u32,
    min: u32,
    max: u32,
    backoff: Ratio,
    deepest: Ratio,
    step: Ratio,
    utilisation: Ratio,
    growth: Ratio,
    cooldown_us: u64,
    floor_us: u64,
    signal: PlainSignal,
    /// Started with `Aimd::fast_start` (the AIMD with the growth probe only).
    fast_start: bool,
}

#[derive(Clone, Copy, Debug)]
enum PlainSignal {
    Off,
    Target(u64),
    Baseline {
        tolerance: Ratio,
        min_samples: u16,
        memory_us: u64,
    },
}

impl Plain {
    /// `AimdConfig::default()`, as its documentation states it.
    const DEFAULT: Plain = Plain {
        initial: 4,
        min: 1,
        max: 64,
        backoff: Ratio::from_bits(52_429), // 0.8
        deepest: Ratio::from_bits(32_768), // 0.5
        step: Ratio::ONE,
        utilisation: Ratio::from_bits(52_429),
        growth: Ratio::from_bits(81_920), // 1.25
        cooldown_us: 0,
        floor_us: 1_000,
        signal: PlainSignal::Baseline {
            tolerance: Ratio::from_int(2),
            min_samples: 10,
            memory_us: 600_000_000,
        },
        fast_start: false,
    };

    fn config(&self) -> AimdConfig {
        let base = AimdConfig::default()
            .initial(self.initial)
            .bounds(self.min, self.max)
            .backoff(self.backoff)
            .deepest_cut(self.deepest)
            .step(self.step)
            .growth_utilisation(self.utilisation)
            .growth_tolerance(self.growth)
            .cooldown(Duration::from_micros(self.cooldown_us))
            .baseline_floor(Duration::from_micros(self.floor_us));
        match self.signal {
            PlainSignal::Off => base.signal(LatencySignal::Off),
            PlainSignal::Target(us) => base.target(Duration::from_micros(us)),
            PlainSignal::Baseline {
                tolerance,
                min_samples,
                memory_us,
            } => base.baseline(tolerance, min_samples, Duration::from_micros(memory_us)),
        }
    }
}

/// AIMD's rules written out again, as plainly as possible, from the documentation: a second
/// implementation to disagree with the first. It shares only the fixed-point arithmetic
/// ([`Q32`], tested on its own); the baseline is a bare median (memory 0), computed by sorting.
struct Model {
    p: Plain,
    limit: Q32,
    epoch: u32,
    window: Vec<u64>,
    last_seen: u64,
    elapsed: u64,
    hold_until: u64,
    speed: Speed,
    /// Whether each of the last successes (up to eight, oldest first) was congested.
    recent: Vec<bool>,
    /// The last cut round, from its documentation: the epoch cut, the limit the cut set, the
    /// most in flight among its refusals, its refusals, and the successes of the next round.
    tally: Option<Tally>,
    /// The fast start, from its documentation: until the first sign of congestion (a cut,
    /// answered or not, or a held success), each growth sample adds a whole unit; the first
    /// sign halves the limit if it is a fresh held success, and makes a fresh cut at least a
    /// cut to half.
    starting: bool,
    /// The client's share of a quota, from its documentation (the module `share` of the core).
    quota: QuotaSeen,
    /// Fresh successes in a row held above the growth band, since the last new epoch: a whole
    /// round of them (the limit's count) after a round began with a doubled step goes back to
    /// where that round began (rule 10 of the probe).
    held: u32,
}

/// What the model has seen of a quota's remaining-calls counts: the window's first count and
/// the lowest since (`None`: no count yet), the client's own answers with a count since the
/// first, its share in 65,536ths (rounded down, at least one, at most 65,536; `None`: not
/// measured), the highest limit a ceiling lowered in this window and in the last window that
/// had one (0: none).
#[derive(Clone, Copy, Debug, Default)]
struct QuotaSeen {
    window: Option<(u32, u32)>,
    own: u32,
    share: Option<u64>,
    lowered_from: u32,
    back_to: u32,
}

impl QuotaSeen {
    /// An answer's count: a count above the lowest by more than half the window's spending
    /// plus one starts a new window; any other adds an answer of the client's, and with two or
    /// more and a count that fell, measures the share.
    fn answer(&mut self, left: u32) {
        if left == 0 {
            return;
        }
        match self.window {
            // Far below the lowest at once (by more than half the first count): an answer from
            // before the window, left out.
            Some((first, lowest)) if u64::from(left) + u64::from(first / 2) < u64::from(lowest) => {
            }
            Some((first, lowest))
                if u64::from(left) <= u64::from(lowest) + u64::from(first - lowest) / 2 + 1 =>
            {
                let lowest = lowest.min(left);
                self.window = Some((first, lowest));
                self.own += 1;
                if self.own >= 4 && first > lowest {
                    let share = (u64::from(self.own) << 16) / u64::from(first - lowest);
                    self.share = Some(share.clamp(1, 65_536));
                }
            }
            _ => {
                self.window = Some((left, left));
                self.own = 0;
                if self.lowered_from > 0 {
                    self.back_to = std::mem::take(&mut self.lowered_from);
                }
            }
        }
    }

    /// The client's part of `pace`: the pace at a share of 15/16 or more, else the pace times
    /// the share, rounded up.
    fn part(&self, pace: u32) -> Option<u32> {
        let share = self.share?;
        Some(if share >= 61_440 {
            pace
        } else {
            u32::try_from((u64::from(pace) * share).div_ceil(65_536)).expect("below the pace")
        })
    }
}

#[derive(Clone, Copy, Debug)]
struct Tally {
    epoch: u32,
    limit: u32,
    round: u32,
    refused: u32,
    next_ok: u32,
}

/// The growth probe's rule, from its documentation: rounds of `limit` growth samples; with the
/// probe (`doubles`; not in the compact AIMD, whose step stays one), after a
/// round that started higher than the last and whose rate rose by at least half as much as the
/// limit did (relatively) the step doubles, while it stays within a quarter of the limit and the limit is at or above the last
/// cut's; any other round, or a congestion signal, returns it to one (a held sample counts for
/// nothing). In the unit
/// just below the knee, the step is an eighth; a 128th within 4 s of a cut by a slow success;
/// no dwell at all after a cut by slow successes while the window spread widely. With the
/// probe, further below a knee set by a quick refusal, or by a cut seen at or above it, the step
/// is at least the whole distance to the unit below the knee; and at or above the knee, right after a round whose rate followed
/// its limit, at least the whole distance to the unit below the level a quick refusal last
/// moved the knee down from (forgotten once the limit is back at that unit or after a latency
/// cut; a quick refusal after such a step moves it halfway down to where it was seen).
#[derive(Clone, Copy, Debug)]
struct Speed {
    /// Whether the step may double (the growth probe): not in the compact AIMD (`PROBES = 0`),
    /// which keeps the knee and the dwell below it.
    doubles: bool,
    doublings: u32,
    samples_left: u32,
    /// This round: its limit and its start (elapsed µs).
    round: (u32, u64),
    /// The last whole round: its limit and duration (µs, within `[1, u32::MAX]`).
    last: Option<(u32, u64)>,
    /// Congested successes in this round so far.
    round_slow: u32,
    /// The last whole round's limit if none of its successes was congested (it was served at
    /// the baseline), 0 otherwise or when no whole round has ended since growth started over.
    last_served: u32,
    /// The concurrency congestion was last seen at: set by a refusal's cut, or a latency cut
    /// at or above it; a latency cut below it moves it to its level if the last cut was below
    /// it too, at most eight rounds before (to one above its level with the probe if four or
    /// more), and halfway (rounded up) otherwise.
    knee: u32,
    /// The last cut was by latency and below the knee.
    below: bool,
    /// Whole rounds since the last cut (saturating at 255).
    rounds_since_cut: u32,
    /// Whether the last cut was by latency, and when (elapsed µs).
    latency_cut_at: Option<u64>,
    /// The long dwell's length before its doublings (µs): 4 s, or 32 round trips of the
    /// baseline (the median) at the cut, whichever is longer.
    long_us: u128,
    /// For a cut by a late refusal, how many times (at most 3) its threshold doubles within
    /// its latency, plus the other clients' tries seen (at most 3 in all): the long dwell is
    /// 2^that times as long, in time and in its step.
    late_doublings: u32,
    /// The long dwell's step is 2^that times smaller: `late_doublings` plus the client's own
    /// tries that failed (at most 3 in all).
    step_doublings: u32,
    /// With the probe, whole rounds in a row that ended at the limit they began at (saturating
    /// at 255); other clients' tries seen (a latency cut below the knee after 4 of them) and the
    /// client's own tries that failed (a latency cut at or above the knee), each at most 3 and
    /// forgotten when growth takes the limit past the knee (rule 11 of the probe).
    kept_rounds: u32,
    tries_seen: u32,
    tries_failed: u32,
    /// Whether the unit below the knee dwells: not after a latency cut on a widely spread
    /// window, nor (with the probe) after one that came before the window was full where the
    /// first 16 healthy samples after it spread.
    dwell: bool,
    /// With the probe, after a latency cut that came before the window was full, the healthy
    /// samples still to take before the window's spread judges it; 0: nothing to judge.
    unjudged: u32,
    /// The return to a level served before a fall.
    back: Return,
    /// Where a whole held round goes back to: the level the last round began at if it grew
    /// with a doubled step, else the level the round under way began at if it does; 0 if
    /// neither did.
    undo_to: u32,
}

/// The return to a level a quota served before it fell (with the probe).
/// The largest k within 0..=3 with `threshold × 2^k <= latency` (a threshold of 0 as 1 µs):
/// how many times a long dwell is doubled for a late refusal, or with the probe a cut by
/// latency, that slow.
fn threshold_doublings(threshold: u64, latency: u64) -> u32 {
    (1..=3)
        .rev()
        .find(|&k| u128::from(threshold.max(1)) << k <= u128::from(latency))
        .unwrap_or(0)
}

#[derive(Clone, Copy, Debug, Default)]
struct Return {
    /// The knee a quick refusal's cut moved down from; 0: none.
    level: u32,
    /// A step has returned towards `level` since the last cut.
    stepping: bool,
    /// The last judged round's rate followed its limit (false after a congestion signal).
    room: bool,
}

impl Speed {
    fn new(initial: u32, doubles: bool) -> Self {
        Speed {
            doubles,
            doublings: 0,
            samples_left: initial.max(1),
            round: (initial, 0),
            last: None,
            knee: 0,
            below: false,
            rounds_since_cut: 0,
            latency_cut_at: None,
            long_us: 4_000_000,
            late_doublings: 0,
            step_doublings: 0,
            kept_rounds: 0,
            tries_seen: 0,
            tries_failed: 0,
            round_slow: 0,
            last_served: 0,
            dwell: true,
            unjudged: 0,
            back: Return::default(),
            undo_to: 0,
        }
    }

    fn begin(&mut self, limit: u32, elapsed: u64) {
        self.round_slow = 0;
        self.round = (limit, elapsed);
        self.samples_left = limit.max(1);
    }

    /// With the probe, the limit the last whole round started at if none of its successes was
    /// congested; 0 otherwise.
    fn served(&self) -> u32 {
        if self.doubles { self.last_served } else { 0 }
    }

    fn start_over(&mut self, limit: u32, elapsed: u64) {
        self.doublings = 0;
        self.undo_to = 0;
        self.back.room = false;
        self.last = None;
        self.last_served = 0;
        self.begin(limit, elapsed);
    }

    /// The step for a growth sample at `limit`, counted, and a level the limit goes straight
    /// to (0: none).
    fn step(&mut self, step: Ratio, limit: u32, elapsed: u64, starting: bool) -> (Ratio, u32) {
        let doublings = if limit >= self.knee {
            self.doublings
        } else {
            0
        };
        let mut bits = u64::from(step.to_bits()) * (1u64 << doublings);
        if self.dwell && limit + 1 == self.knee {
            // The unit just below the knee: a 128th for 4 s after a latency cut; after a late
            // refusal's or other clients' tries, 2^k times longer with a step 2^k times
            // smaller; after the client's own failed tries, a step smaller still.
            let k = self.late_doublings;
            let long = self
                .latency_cut_at
                .is_some_and(|at| u128::from(elapsed) < u128::from(at) + (self.long_us << k));
            bits /= if long { 128 << self.step_doublings } else { 8 };
        }
        if self.doubles
            && (self.latency_cut_at.is_none() || !(self.below && self.rounds_since_cut < 255))
            && u64::from(limit) + 1 < u64::from(self.knee)
        {
            // Below a quick refusal's knee, or one whose last cut was seen at or above it (the
            // client's own try), further than the unit below it: a step of the whole way back
            // to that unit.
            bits = bits.max(u64::from(self.knee - 1 - limit) << 16);
        }
        if starting {
            // The fast start: a whole unit per growth sample.
            bits = bits.max(u64::from(limit) << 16);
        }
        let level = self.back.level;
        let mut back_to = 0;
        if self.doubles && self.back.room && level > 0 && limit >= self.knee {
            if u64::from(limit) + 1 >= u64::from(level) {
                self.back.level = 0; // back where the quota was served before it fell
            } else {
                // Straight back to the unit below that level.
                self.back.stepping = true;
                back_to = level - 1;
            }
        }
        let step = Ratio::from_bits(bits.min(64 << 16) as u32);
        self.samples_left -= 1;
        if self.samples_left == 0 {
            let (doubled, began) = (self.doublings > 0, self.round.0);
            let took = elapsed
                .saturating_sub(self.round.1)
                .clamp(1, u64::from(u32::MAX));
            let this = u128::from(self.round.0);
            // Only a round that started higher than the last one is judged.
            if let Some((l0, d0)) = self.last.filter(|&(l0, _)| this > u128::from(l0)) {
                let (l0, d0) = (u128::from(l0), u128::from(d0));
                // rate ratio (this / took) / (l0 / d0) >= 1 + (this - l0) / (2 l0)
                let served = 2 * this * d0 >= (l0 + this) * u128::from(took);
                self.back.room = served;
                if !served {
                    self.doublings = 0;
                } else if self.doubles
                    && limit >= self.knee
                    && 2 * (1u32 << self.doublings) <= limit / 4
                {
                    self.doublings += 1;
                }
            }
            self.rounds_since_cut = (self.rounds_since_cut + 1).min(255);
            self.kept_rounds = if limit == self.round.0 {
                (self.kept_rounds + 1).min(255)
            } else {
                0
            };
            self.last = Some((self.round.0, took));
            self.last_served = if self.round_slow == 0 {
                self.round.0
            } else {
                0
            };
            // A whole held round goes back to where this round began if it grew with a doubled
            // step, else to where the next one begins if it will.
            self.undo_to = if doubled {
                began
            } else if self.doublings > 0 {
                limit
            } else {
                0
            };
            self.begin(limit, elapsed);
        }
        (step, back_to)
    }
}

impl Model {
    const MAX_STEP: u64 = 1 << 40;
    const HALF: Ratio = Ratio::from_bits(32_768);

    fn observe(&mut self, now: u64) -> u64 {
        if now >= self.last_seen {
            self.elapsed = self
                .elapsed
                .saturating_add((now - self.last_seen).min(Self::MAX_STEP));
            self.last_seen = now;
        } else if self.last_seen - now >= 1_000_000 {
            self.last_seen = now;
        }
        self.elapsed
    }

    /// Whether the healthy window is full (16 samples) and spreads widely: its sample at rank
    /// 12 (from 0) more than 1.5 times the one at rank 2, or than the baseline floor; more than
    /// 1.25 times once the last cut was by latency on a window that spread.
    fn spread(&self) -> bool {
        let mut sorted = self.window.clone();
        sorted.sort_unstable();
        let low = sorted.get(2).map_or(0, |&low| low.max(self.p.floor_us));
        let margin = if self.speed.dwell { low / 2 } else { low / 4 };
        sorted.len() == 16 && low + margin < sorted[12]
    }

    /// The long dwell below a latency knee before its doublings (µs): with the probe, 4 s or
    /// 32 round trips of the baseline (the median), whichever is longer; 4 s without it.
    fn long_dwell(&self) -> u128 {
        let rounds = if self.speed.doubles {
            u128::from(self.median().unwrap_or(0)) * 32
        } else {
            0
        };
        rounds.max(4_000_000)
    }

    fn median(&self) -> Option<u64> {
        let mut sorted = self.window.clone();
        sorted.sort_unstable();
        let n = sorted.len();
        match n {
            0 => None,
            _ if n % 2 == 1 => Some(sorted[n / 2]),
            _ => Some(sorted[n / 2 - 1] + (sorted[n / 2] - sorted[n / 2 - 1]) / 2),
        }
    }

    /// 0: fast, 1: elevated (hold), 2: congested; and the congestion threshold; no verdict
    /// (fast) until the window holds `least` samples (at most `min_samples`).
    fn judge(&self, latency: u64, least: usize) -> (u8, u64) {
        match self.p.signal {
            PlainSignal::Off => (0, 0),
            PlainSignal::Target(t) => {
                // The configuration keeps durations in 32-bit microseconds, saturating.
                let t = t.min(u64::from(u32::MAX));
                (2 * u8::from(latency > t), t)
            }
            PlainSignal::Baseline {
                tolerance,
                min_samples,
                ..
            } => {
                if self.window.len() < least.min(usize::from(min_samples)) {
                    return (0, 0);
                }
                let b = self.median().unwrap_or(0).max(self.p.floor_us);
                let threshold = tolerance.mul_u64(b);
                if latency >= threshold {
                    (2, threshold)
                } else {
                    (u8::from(latency > self.p.growth.mul_u64(b)), threshold)
                }
            }
        }
    }

    /// A latency cut: `threshold / latency` in 16.16, no shallower than the backoff and no
    /// deeper than the deepest cut (just the backoff if that is deeper still).
    fn latency_factor(&self, threshold: u64, latency: u64) -> Ratio {
        let (backoff, deepest) = (self.p.backoff.to_bits(), self.p.deepest.to_bits());
        if deepest >= backoff {
            return self.p.backoff;
        }
        let exact = (u128::from(threshold) << 16) / u128::from(latency.max(1));
        let bits = exact.max(u128::from(deepest)).min(u128::from(backoff));
        Ratio::from_bits(u32::try_from(bits).expect("at most the backoff"))
    }

    /// Counts a sample for the tally: a refusal of the cut round admitted before the cut, or a
    /// success of the round after it.
    fn count(&mut self, s: &Sample) {
        let Some(t) = self.tally.as_mut() else {
            return;
        };
        let admitted = s.admission.epoch.0;
        match s.outcome {
            Outcome::Overload if admitted == t.epoch && admitted != self.epoch => {
                t.refused += 1;
                t.round = t.round.max(s.admission.in_flight);
            }
            Outcome::Success if admitted == self.epoch && self.epoch == t.epoch.wrapping_add(1) => {
                t.next_ok += 1;
            }
            _ => {}
        }
    }

    /// A cut of a request admitted under `epoch` with `in_flight` in flight (`refused`: an
    /// overload; `late`: one that came as late as a congested success, which the knee takes as
    /// a latency cut on a window that does not spread, with the doublings of its threshold
    /// within its latency; `served`: the limit the last whole round before the signal served
    /// at the baseline, 0 for none).
    #[allow(clippy::too_many_arguments)]
    fn cut(
        &mut self,
        epoch: u32,
        in_flight: u32,
        refused: bool,
        late: Option<u32>,
        served: u32,
        elapsed: u64,
        factor: Ratio,
    ) -> Change {
        if epoch != self.epoch {
            // With the probe, a late refusal of a round trip already answered cuts nothing,
            // but lengthens the long dwell below the knee to what its lateness asks, from now,
            // where that ends later, with a step as small; and the unit below the knee dwells.
            if let (true, true, Some(k)) = (self.speed.doubles, refused, late) {
                let long = self.long_dwell();
                let speed = &mut self.speed;
                let k = k.min(3);
                let end = u128::from(elapsed) + (long << k);
                let current = speed.latency_cut_at.map_or(0, |at| {
                    u128::from(at) + (speed.long_us << speed.late_doublings)
                });
                if speed.knee > 0 && end > current {
                    speed.latency_cut_at = Some(elapsed);
                    speed.long_us = long;
                    speed.late_doublings = k;
                    speed.step_doublings = speed.step_doublings.max(k);
                    speed.dwell = true;
                }
            }
            return Change::Unchanged;
        }
        // The knee: the concurrency the congestion was seen at, at most the limit; a latency
        // cut below the knee moves it only right after another one below it.
        let quick = refused && late.is_none();
        // What the round before kept, if this cut comes right after a cut round, within its
        // first `limit` successes.
        let kept = self
            .tally
            .filter(|t| self.epoch == t.epoch.wrapping_add(1) && t.next_ok < t.limit)
            .map(|t| t.round.saturating_sub(t.refused))
            // Not when a quick refusal came with no more in flight than that round kept: a
            // level it served is refused now, so its refusals were not a level.
            .filter(|&kept| !(quick && in_flight <= kept));
        // A quick refusal's knee is at most one above what that round kept.
        let seen = match kept {
            Some(kept) if quick => in_flight
                .min(self.limit.whole())
                .min(kept.saturating_add(1)),
            _ => in_flight.min(self.limit.whole()),
        };
        // A cut by latency or a late refusal at no more in flight than a whole round served at
        // the baseline: seen one above.
        let seen = if !quick && served > 0 && seen <= served {
            seen.saturating_add(1)
        } else {
            seen
        };
        let sure = refused || !self.spread();
        let speed = &mut self.speed;
        if speed.doubles {
            // The level served before a fall: remembered when a quick refusal moves the knee
            // down, halfway to a quick refusal that follows a return towards it, forgotten at
            // a latency cut.
            let Return {
                level, stepping, ..
            } = speed.back;
            speed.back.level = if !quick {
                0
            } else if seen < speed.knee {
                level.max(speed.knee)
            } else if stepping && level > seen {
                seen + (level - seen) / 2
            } else {
                level
            };
            speed.back.stepping = false;
        }
        speed.dwell = sure;
        // Before the window is full, whether its latencies spread is not known yet: a whole
        // window taken after the cut judges it.
        speed.unjudged = if speed.doubles && !refused && self.window.len() < 16 {
            16
        } else {
            0
        };
        let knee_before = speed.knee;
        if speed.doubles && !quick && sure && knee_before > 0 {
            // A try that failed: the client's own at or above the knee, another client's below
            // it after the limit kept its level for 4 rounds.
            if self.limit.whole() >= knee_before {
                speed.tries_failed = (speed.tries_failed + 1).min(3);
            } else if speed.kept_rounds >= 4 {
                speed.tries_seen = (speed.tries_seen + 1).min(3);
            }
        }
        if speed.doubles {
            speed.kept_rounds = 0; // the cut leaves the level kept
        }
        let again = speed.below && speed.rounds_since_cut <= 8;
        let below = !quick && seen < speed.knee;
        if below && again && speed.doubles && speed.rounds_since_cut >= 4 {
            // A second latency cut below the knee four rounds or more after the first: one above
            // the level it was seen at (with the probe; otherwise at that level).
            speed.knee = seen + 1;
        } else if quick || seen >= speed.knee || again {
            speed.knee = seen;
        } else {
            // A first latency cut below the knee: halfway down, rounded up.
            speed.knee -= (speed.knee - seen) / 2;
        }
        speed.below = below;
        speed.rounds_since_cut = 0;
        // The long dwell's end: 4 s << doublings after the latency cut; a latency cut that
        // leaves the knee where it was keeps a later end (with the probe).
        let end = |at: Option<u64>, long: u128, k: u32| at.map(|at| u128::from(at) + (long << k));
        let new_k = (late.unwrap_or(0) + self.speed.tries_seen).min(3);
        let new_step_k = (new_k + self.speed.tries_failed).min(3);
        let long = self.long_dwell();
        let keeps = self.speed.doubles
            && !quick
            && self.speed.knee == knee_before
            && end(
                self.speed.latency_cut_at,
                self.speed.long_us,
                self.speed.late_doublings,
            ) > end(Some(elapsed), long, new_k);
        if !keeps {
            self.speed.latency_cut_at = (!quick).then_some(elapsed);
            self.speed.long_us = long;
            self.speed.late_doublings = new_k;
            self.speed.step_doublings = new_step_k;
        }
        let mut limit = self.limit.shrink(factor);
        // A cut of the round right after a cut round, within its first `limit` successes, goes
        // at least down to what that round kept.
        if let Some(kept) = kept {
            let kept = Q32::from_u32(kept.max(self.p.min));
            if kept.to_q16() < limit.to_q16() {
                limit = kept;
            }
        }
        // With the probe, a quick refusal seen at or above the knee (before this cut moved it):
        // a try of the knee, which takes back no more than down to the unit below it.
        if self.speed.doubles && quick && knee_before > 1 && seen >= knee_before {
            let back = Q32::from_u32(knee_before - 1);
            if back.to_q16() > limit.to_q16() && back.to_q16() < self.limit.to_q16() {
                limit = back;
            }
        }
        self.limit = limit.clamp_to(self.p.min, self.p.max);
        // The tally, like the doubling, belongs to the probe.
        self.tally = self.speed.doubles.then_some(Tally {
            epoch: self.epoch,
            limit: self.limit.whole().max(1),
            round: in_flight,
            refused: u32::from(refused),
            next_ok: 0,
        });
        self.epoch = self.epoch.wrapping_add(1);
        self.held = 0;
        self.hold_until = self
            .hold_until
            .max(elapsed.saturating_add(self.p.cooldown_us.min(Self::MAX_STEP)));
        Change::Decreased
    }

    /// The ceiling a stated pace with a count sets, once a share is measured: the client's
    /// part of it (no growth passes it).
    fn ceiling(&self, s: &Sample) -> Option<u32> {
        if s.pace == 0 || s.calls_left == 0 {
            return None;
        }
        self.quota.part(s.pace)
    }

    /// A sample: the quota's count first (with the probe, an ignored answer's too), then the
    /// rules of [`Model::rules`], then a limit above the sample's ceiling (at least the floor)
    /// is lowered to it, on an answer of the epoch current by then, as a decrease without a
    /// cut: a new epoch, growth held for the cooldown.
    fn sample(&mut self, s: &Sample) -> Change {
        if self.speed.doubles {
            self.quota.answer(s.calls_left);
        }
        let change = self.rules(s);
        let counted = self.speed.doubles && s.outcome != Outcome::Ignore;
        if !counted || s.admission.epoch.0 != self.epoch {
            return change;
        }
        let Some(ceiling) = self.ceiling(s) else {
            return change;
        };
        let whole = self.limit.whole();
        if ceiling.max(self.p.min) >= whole {
            return change;
        }
        self.quota.lowered_from = self.quota.lowered_from.max(whole);
        self.limit = Q32::from_u32(ceiling).clamp_to(self.p.min, self.p.max);
        self.epoch = self.epoch.wrapping_add(1);
        self.held = 0;
        let cooldown = self.p.cooldown_us.min(Self::MAX_STEP);
        self.hold_until = self.hold_until.max(self.elapsed.saturating_add(cooldown));
        Change::Decreased
    }

    /// AIMD's other rules, for one sample.
    fn rules(&mut self, s: &Sample) -> Change {
        let elapsed = self.observe(s.completed_at.as_micros());
        self.count(s);
        match s.outcome {
            Outcome::Ignore => Change::Unchanged,
            Outcome::Overload => {
                let served = self.speed.served();
                self.speed.start_over(self.limit.whole(), elapsed);
                // With the probe, a refusal that came as late as a congested success is cut as
                // deep as one would be; judged once the window holds one sample.
                let latency = s
                    .completed_at
                    .as_micros()
                    .saturating_sub(s.admission.at.as_micros());
                let late = match self.judge(latency, 1) {
                    (2, threshold) if self.speed.doubles => Some(threshold),
                    _ => None,
                };
                let mut factor = late.map_or(self.p.backoff, |t| self.latency_factor(t, latency));
                if std::mem::take(&mut self.starting) {
                    factor = factor.min(Self::HALF);
                }
                let doublings = late.map(|t| threshold_doublings(t, latency));
                self.cut(
                    s.admission.epoch.0,
                    s.admission.in_flight,
                    true,
                    doublings,
                    served,
                    elapsed,
                    factor,
                )
            }
            Outcome::Success => {
                let latency = s
                    .completed_at
                    .as_micros()
                    .saturating_sub(s.admission.at.as_micros());
                let (verdict, threshold) = self.judge(latency, usize::MAX);
                if verdict < 2 || self.limit.whole() <= self.p.min {
                    self.window.push(u64::from(crate::stored_latency(latency)));
                    if self.window.len() > 16 {
                        self.window.remove(0);
                    }
                    // A whole window taken after a latency cut that came before the window
                    // was full judges that cut's spread: a spread window, no dwell below its
                    // knee.
                    if self.speed.unjudged > 0 {
                        self.speed.unjudged -= 1;
                        if self.speed.unjudged == 0 && self.spread() {
                            self.speed.dwell = false;
                        }
                    }
                }
                // A latency cut takes two congested successes among the last four (five among
                // the last eight where the window spreads widely); one holds.
                self.recent.push(verdict == 2);
                if verdict == 2 {
                    self.speed.round_slow = self.speed.round_slow.saturating_add(1);
                }
                if self.recent.len() > 8 {
                    self.recent.remove(0);
                }
                let slow_in = |n: usize| {
                    let from = self.recent.len().saturating_sub(n);
                    self.recent[from..].iter().filter(|&&slow| slow).count()
                };
                let confirmed = if self.spread() {
                    slow_in(8) >= 5
                } else {
                    slow_in(4) >= 2
                };
                let first_sign = verdict > 0 && std::mem::take(&mut self.starting);
                // A whole round of fresh held successes in a row, after a round began with a
                // doubled step: back to where it began, as a decrease without a cut.
                let fresh = s.admission.epoch.0 == self.epoch;
                let mut undo = None;
                if fresh && verdict == 1 {
                    self.held += 1;
                    if self.held >= self.limit.whole().max(1) {
                        self.held = 0;
                        let to = self.speed.undo_to;
                        undo = (to != 0 && to < self.limit.whole()).then_some(to);
                    }
                } else if fresh {
                    self.held = 0;
                }
                if let Some(to) = undo {
                    self.speed.start_over(self.limit.whole(), elapsed);
                    self.limit = Q32::from_u32(to).clamp_to(self.p.min, self.p.max);
                    self.epoch = self.epoch.wrapping_add(1);
                    self.held = 0;
                    let cooldown = self.p.cooldown_us.min(Self::MAX_STEP);
                    self.hold_until = self.hold_until.max(elapsed.saturating_add(cooldown));
                    return Change::Decreased;
                }
                match verdict {
                    2 if confirmed => {
                        // A confirmed congestion signal, answered or not, starts growth over.
                        let served = self.speed.served();
                        self.speed.start_over(self.limit.whole(), elapsed);
                        let mut factor = self.latency_factor(threshold, latency);
                        if first_sign {
                            factor = factor.min(Self::HALF);
                        }
                        let (epoch, in_flight) = (s.admission.epoch.0, s.admission.in_flight);
                        // With the probe, a cut by latency (not on a spread window) dwells as
                        // a late refusal as slow would: its threshold's doublings within it.
                        let late = (self.speed.doubles && !self.spread())
                            .then(|| threshold_doublings(threshold, latency));
                        self.cut(epoch, in_flight, false, late, served, elapsed, factor)
                    }
                    // A fresh held success that ends the fast start halves the limit, as a
                    // decrease without a cut: no knee, no tally, the cooldown as after a cut.
                    1 | 2 if first_sign && s.admission.epoch.0 == self.epoch => {
                        self.speed.start_over(self.limit.whole(), elapsed);
                        self.limit = self
                            .limit
                            .shrink(Self::HALF)
                            .clamp_to(self.p.min, self.p.max);
                        self.epoch = self.epoch.wrapping_add(1);
                        self.held = 0;
                        // Growth waits out the cooldown after it, as after any decrease.
                        let cooldown = self.p.cooldown_us.min(Self::MAX_STEP);
                        self.hold_until = self.hold_until.max(elapsed.saturating_add(cooldown));
                        Change::Decreased
                    }
                    1 | 2 => Change::Unchanged,
                    _ if elapsed < self.hold_until => Change::Unchanged,
                    _ if u64::from(s.admission.in_flight)
                        < needed_in_flight(self.p.utilisation, self.limit.whole()) =>
                    {
                        Change::Unchanged
                    }
                    _ => {
                        let (step, mut back_to) = self.speed.step(
                            self.p.step,
                            self.limit.whole(),
                            elapsed,
                            self.starting,
                        );
                        if self.speed.doubles && s.pace > 0 {
                            // A stated pace: straight to it, up to the unit below the knee;
                            // with a count, where the client shares the quota (a measured
                            // share below 15/16), its part of it, no higher than the highest
                            // level a ceiling lowered in the last window that had one.
                            let pace = match (s.calls_left, self.quota.share) {
                                (1.., Some(share)) if share < 61_440 => {
                                    let part = self.quota.part(s.pace).expect("a share");
                                    part.min(self.quota.back_to)
                                }
                                _ => s.pace,
                            };
                            let knee = self.speed.knee;
                            let to = if knee > 0 && pace >= knee {
                                knee - 1
                            } else {
                                pace
                            };
                            back_to = back_to.max(to);
                        }
                        let mut grown = self.limit.grow(step);
                        if back_to > grown.whole() {
                            grown = Q32::from_u32(back_to);
                        }
                        let lowered = self.speed.below && self.speed.rounds_since_cut < 255;
                        if self.speed.doubles
                            && self.speed.knee > 0
                            && grown.whole() > self.speed.knee
                            && !lowered
                        {
                            // Past a knee the limit's own try found: its tries are forgotten.
                            self.speed.tries_seen = 0;
                            self.speed.tries_failed = 0;
                        }
                        // Never past a stated pace's ceiling; at it already, no growth.
                        match self.ceiling(s) {
                            Some(c) if grown.whole() > c && c > self.limit.whole() => {
                                grown = Q32::from_u32(c);
                            }
                            Some(c) if grown.whole() > c => grown = self.limit,
                            _ => {}
                        }
                        let grown = grown.clamp_to(self.p.min, self.p.max);
                        if grown == self.limit {
                            Change::Unchanged
                        } else {
                            self.limit = grown;
                            Change::Increased
                        }
                    }
                }
            }
        }
    }

    fn hold(&mut self, now: u64, until: u64) {
        let elapsed = self.observe(now);
        let hold = elapsed.saturating_add(until.saturating_sub(now).min(Self::MAX_STEP));
        self.hold_until = self.hold_until.max(hold);
    }
}

/// The fixed-point AIMD, with the probe and compact, against [`Model`], decision by decision,
/// with the baseline's memory off (the model's bare median is then the whole baseline).
fn against_model(plain: &Plain, events: &[Event]) {
    drive_against_model::<1>(plain, |_, i| events.get(i).copied());
    drive_against_model::<0>(plain, |_, i| events.get(i).copied());
}

/// AIMD against its reference model under the default configuration with memory off (and, for
/// half the streams, a fast start), on a stream built
/// from `data` as a dependency's round trips would be: calls admitted with the limit in use,
/// healthy latencies around 10 ms (narrow or widely spread, by the first byte; for half the
/// streams overlapping, and 35 % slower past a knee), bursts of
/// slow calls, refusals (quick ones, and late ones of 80 to 360 ms: client timeouts, whose
/// knees dwell longer), and stale samples now and then. Random bytes alone rarely reach the
/// probe's rules (rounds, knees, dwells); this stream does on every run.
pub fn controller_rounds(data: &[u8]) {
    let Some((&mode, bytes)) = data.split_first() else {
        return;
    };
    let wide = mode % 2 == 1;
    assert_eq!(
        Plain::DEFAULT.config(),
        AimdConfig::default(),
        "the model's defaults"
    );
    // Half the streams start fast (the compact AIMD has no fast start and sits those out).
    let plain = Plain {
        fast_start: mode & 2 != 0,
        ..Plain::DEFAULT
    };
    let round_trips = |limit: u32, i: usize| {
        let &b = bytes.get(i)?;
        let jitter = if wide {
            u16::from(b) * u16::from(b) % 150 // up to 15 ms on a 10 ms base
        } else {
            u16::from(b >> 4) // up to 1.5 ms
        };
        let in_flight = limit
            .saturating_add(u32::from(b >> 6))
            .saturating_sub(1)
            .max(1);
        // Past a knee of 4 to 11 calls (for half the streams), 35 % slower, with refusals and
        // slow calls four times rarer: runs of successes held above the growth band, which
        // the median (the baseline, with memory off) follows within half its window. (So a
        // whole held round, rule 10 of the probe, comes here only at a limit of 8 or less,
        // below any doubled step: the tests of `limiter-core/tests/aimd.rs` pin that rule.)
        let (slope, kind) = if mode & 4 != 0 {
            let knee = 4 + u32::from(mode >> 3) % 8;
            (if in_flight > knee { 35 } else { 0 }, b % 64)
        } else {
            (0, b % 16)
        };
        let (latency, outcome) = match kind {
            0 if b & 16 == 0 => (100, 0),               // a quick refusal
            0 => (400 * (2 + u16::from(b >> 5)), 0),    // a late one: 80 to 360 ms
            1..=3 => (100 * (2 + u16::from(b % 3)), 2), // a slow call: 20 to 40 ms
            _ => (100 + jitter + slope, 2),
        };
        // In those streams the calls overlap: `in_flight` of them complete within one latency,
        // so a round's rate follows its limit below the knee and the step doubles there.
        let admitted = if mode & 4 != 0 {
            let micros = u32::from(latency) * 100;
            TimeStep::Back(micros - micros / in_flight)
        } else {
            TimeStep::Forward(0)
        };
        Some(Event::Sample {
            admitted,
            completed: TimeStep::Forward(latency),
            in_flight: u16::try_from(in_flight).unwrap_or(u16::MAX),
            stale: b % 32 == 5,
            outcome,
            pace: 0,
            calls_left: 0,
        })
    };
    drive_against_model::<1>(&plain, round_trips);
    drive_against_model::<0>(&plain, round_trips);
}

/// AIMD against its reference model under the default configuration with memory off (and again
/// with a fast start), on a quota that falls and comes back: rounds of the limit's calls, each admitted with the limit
/// in flight and answered at once, of which the share the next byte of `data` gives (0 to 8
/// eighths) is served and the rest refused; the calls that complete after a cut within their
/// round were admitted before it (stale). So cut rounds keep few of their calls and the next
/// cut is sized by them (the tally), which sets a quick refusal's knee from what the round
/// kept, and the return below that knee and the dwell at it follow: rules the random streams
/// above rarely reach.
pub fn controller_quota(data: &[u8]) {
    fn stream(data: &[u8]) -> impl FnMut(u32, usize) -> Option<Event> + '_ {
        let mut bytes = data.iter().copied();
        // The round under way: its limit, the calls it serves, the calls emitted so far, and
        // the pace its answers state (as `Event::Sample::pace` encodes it; 0: none).
        let mut round = (0u32, 0u32, 0u32, 0u16);
        let mut spend = 1;
        move |limit: u32, _| {
            while round.2 >= round.0 {
                let byte = bytes.next()?;
                let share = u32::from(byte % 9);
                let calls = limit.clamp(1, u32::from(u16::MAX));
                let served = calls * share / 8;
                // One round in four states about what the quota serves, a few calls more or
                // less (a shared quota's headers count the others' calls as well).
                let stated = if byte >= 192 {
                    (served + u32::from(byte % 8)).saturating_sub(2)
                } else {
                    0
                };
                let pace = u16::try_from(stated * 3).unwrap_or(0);
                round = (calls, served, 0, pace);
                spend = 1 + u32::from(byte % 4);
            }
            let (calls, served, emitted, pace) = round;
            round.2 += 1;
            // A stating round's answers count down the account's calls left, `spend` of them
            // for each answer of this client's (its share: a whole, a half, a third or a
            // quarter). Each stating round counts down from 1,000 again: a new window, unless
            // the round before fell by two calls or less (a rise of at most half of what it
            // spent and one reads as the same window).
            let calls_left = if pace > 0 {
                u16::try_from(1_000u32.saturating_sub(emitted * spend)).unwrap_or(0)
            } else {
                0
            };
            Some(quota_call(calls, limit, emitted < served, pace, calls_left))
        }
    }
    let plain = Plain::DEFAULT;
    drive_against_model::<1>(&plain, stream(data));
    drive_against_model::<0>(&plain, stream(data));
    // And starting fast, which reaches a quota's wall within a few rounds.
    let fast = Plain {
        fast_start: true,
        ..plain
    };
    drive_against_model::<1>(&fast, stream(data));
}

/// One call of a quota round of `calls` (each admitted with that many in flight and answered
/// at once), with the limit now at `limit`: served or refused, with the pace and calls left its
/// answer states.
fn quota_call(calls: u32, limit: u32, served: bool, pace: u16, calls_left: u16) -> Event {
    Event::Sample {
        admitted: TimeStep::Forward(0),
        completed: TimeStep::Forward(100),
        in_flight: u16::try_from(calls).unwrap_or(u16::MAX),
        // A cut during the round: what completes after it was admitted before it.
        stale: limit < calls,
        outcome: if served { 2 } else { 0 },
        pace,
        calls_left,
    }
}

/// AIMD against its reference model, as [`controller_quota`], on a quota that holds for rounds
/// on end and now and then moves: each round of the limit's calls, admitted with the limit in
/// flight and answered at once, is served up to the quota and refused past it; the round's
/// byte of `data` keeps the quota seven times in eight, and otherwise the byte after it sets a
/// new one (1 to 64 calls).
/// Under a quota that holds, the limit finds its knee, dwells below it and tries it again,
/// so a quota that falls as a try is refused, and comes back most of the way a round later,
/// reaches the cut of a refused try of the knee (`Knee::tried_back`) and the tally it opens:
/// the random shares of [`controller_quota`], a new quota every round, seldom do.
pub fn controller_quota_levels(data: &[u8]) {
    fn stream(data: &[u8]) -> impl FnMut(u32, usize) -> Option<Event> + '_ {
        let mut bytes = data.iter().copied();
        let mut quota = 50;
        // The round under way: its calls, the calls it serves and the calls emitted so far.
        let mut round = (0u32, 0u32, 0u32);
        move |limit: u32, _| {
            while round.2 >= round.0 {
                let byte = bytes.next()?;
                if byte % 8 == 0 {
                    quota = 1 + u32::from(bytes.next()? % 64);
                }
                let calls = limit.clamp(1, u32::from(u16::MAX));
                round = (calls, calls.min(quota), 0);
            }
            let (calls, served, emitted) = round;
            round.2 += 1;
            Some(quota_call(calls, limit, emitted < served, 0, 0))
        }
    }
    let plain = Plain::DEFAULT;
    drive_against_model::<1>(&plain, stream(data));
    drive_against_model::<0>(&plain, stream(data));
}

/// `Aimd<Q32, 16, P>` (`P = 1`: with the growth probe; `P = 0`: compact) against the model,
/// fed the events `next` makes from the controller's limit and the event's index.
fn drive_against_model<const P: usize>(
    plain: &Plain,
    mut next: impl FnMut(u32, usize) -> Option<Event>,
) where
    Aimd<Q32, 16, P>: Built,
{
    let mut plain = *plain;
    if let PlainSignal::Baseline { memory_us, .. } = &mut plain.signal {
        *memory_us = 0;
    }
    // (The compact AIMD has no fast start: it sits those streams out.)
    let Some(mut real) = Aimd::<Q32, 16, P>::built(plain.config(), plain.fast_start) else {
        return;
    };
    let mut model = Model {
        p: plain,
        limit: Q32::from_u32(plain.initial),
        epoch: 0,
        window: Vec::new(),
        last_seen: 0,
        elapsed: 0,
        hold_until: 0,
        speed: Speed::new(plain.initial, P > 0),
        recent: Vec::new(),
        tally: None,
        starting: plain.fast_start,
        quota: QuotaSeen::default(),
        held: 0,
    };
    let mut now = 0;
    let mut i = 0;
    while let Some(event) = next(real.limit(), i) {
        i += 1;
        match event {
            Event::Sample { .. } => {
                let sample = sample_of(event, real.epoch(), &mut now).expect("a sample event");
                let expected = model.sample(&sample);
                let got = real.on_sample(&sample);
                assert_eq!(got, expected, "event {i} {event:?}: {plain:?}");
            }
            Event::Hold { now: step, until } => {
                now = step.apply(now);
                model.hold(now, until);
                real.hold_growth_until(Instant::from_micros(now), Instant::from_micros(until));
            }
        }
        assert_eq!(
            real.limit_value(),
            model.limit,
            "event {i} {event:?}: {plain:?}"
        );
        assert_eq!(real.epoch().0, model.epoch, "event {i}");
    }
}

/// The in-flight count growth needs: `utilisation × limit` rounded up, where a product within
/// the stored factor's error (half a unit of 2^-16 per unit of the limit, rounded down, at most
/// 1/256 of a unit)
/// of a whole number is that number. Written apart from `Ratio::mul_whole_ceil`: the product
/// less its tolerance, rounded up.
fn needed_in_flight(utilisation: Ratio, limit: u32) -> u64 {
    let product = u128::from(utilisation.to_bits()) * u128::from(limit);
    let tolerance = u128::from((limit / 2).min(256));
    let needed = product.saturating_sub(tolerance).div_ceil(1 << 16);
    u64::try_from(needed).unwrap_or(u64::MAX)
}
