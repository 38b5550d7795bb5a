//! Additive increase, multiplicative decrease, with a rolling-median latency baseline.

use core::time::Duration;

use super::arith::{F32, LimitValue, Q32};
use super::knee::{CutBy, DwellBackoff, Knee, doublings};
use super::level::{
    Bounds, DEFAULT_BACKOFF, FloorWatch, assert_valid, bounds_builders, is_fraction,
};
use super::probe::Probe;
use super::share::QuotaShare;
use super::tally::Tally;
use super::{Change, Controller, ControllerStats, Epoch, Sample};
use crate::config::ConfigError;
use crate::num::saturating_u32;
use crate::time::clock::duration_to_micros;
use crate::time::timeline::{MAX_TIME_STEP_MICROS, Timeline};

/// A duration in microseconds, saturating at `u32::MAX` (about 71 minutes).
const fn micros_u32(duration: Duration) -> u32 {
    saturating_u32(duration_to_micros(duration))
}
use crate::controller::window::{BelowMark, LAZY_ORDER, MedianWindow, WindowedMin};
use crate::num::ratio::Ratio;
use crate::signal::outcome::Outcome;
use crate::time::clock::Instant;

/// Largest ceiling accepted: every limit up to 2^24 is exact in an `f32`, so the float and the
/// fixed-point variants can agree to the unit over the whole range.
pub const MAX_LIMIT: u32 = 1 << 24;
/// A half: the fast start's end undoes its last doubling (see `Probe`, rule 7).
const HALF: Ratio = Ratio::from_bits(32_768);

/// Largest additive step accepted (per round of the limit).
const MAX_STEP: Ratio = Ratio::from_int(64);

/// What makes a successful call count as congestion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum LatencySignal {
    /// Latency never cuts; only [`Outcome::Overload`] does.
    Off,
    /// Latency at or above `tolerance ×` a baseline learned from the latencies themselves cuts.
    ///
    /// At, not only above: a server that serves `n` calls at a time makes call `n + 1` wait one
    /// whole service time, exactly twice the baseline, and a limit one past such a knee must be
    /// cut, not held.
    ///
    /// The baseline is the rolling median of the last `N` healthy latencies, and, with a
    /// non-zero `memory`, the *lowest* such median of the last one to two `memory` periods. Until
    /// the window holds `min_samples` samples there is no verdict.
    ///
    /// - The median makes it robust to noise: an occasional slow call does not move it.
    /// - Samples judged congested are kept out of the window (unless the limit is at its floor,
    ///   where high latency cannot be our own queue), so a sudden slowdown is cut, not learned.
    /// - The memory stops a *gradual* climb into queueing: each step up by less than `tolerance`
    ///   would be learned by a bare median, and the limit would creep up until only timeouts
    ///   stop it. With memory, a higher median must persist for one to two periods before it is
    ///   the new normal. The default memory is long (10 minutes): on a dependency shared by many
    ///   clients, a queue that grows a little every period was learned, period after period, by
    ///   a shorter one (100 clients over 120 s: p95 3.97× the oracle's with 10 s; 1.46× with
    ///   10 minutes, in the simulator's `creep`).
    /// - A dependency that became uniformly slower is followed through the floor: a congested
    ///   sample at the floor, where the latency cannot be our own queue, forgets the remembered
    ///   medians, and the baseline is the window's median again.
    /// - Between [`AimdConfig::growth_tolerance`] (1.25× by default) and `tolerance` the limit
    ///   holds: neither grows nor cuts.
    Baseline {
        /// Factor over the baseline that counts as congestion; must be above 1.
        tolerance: Ratio,
        /// Samples needed before the baseline is trusted; 1 to `N`.
        min_samples: u16,
        /// How long a low median is remembered (between one and two of these periods); zero
        /// follows the current median alone.
        memory_micros: u32,
    },
    /// Latency above a fixed number of microseconds cuts.
    Target {
        /// The latency target in microseconds.
        micros: u32,
    },
}

/// What a successful call's latency says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Near the baseline: the limit may grow.
    Fast,
    /// Above `growth_tolerance ×` baseline: hold the limit where it is.
    Elevated,
    /// Above the congestion threshold (`tolerance ×` baseline, or the target), µs: cut.
    Congested { threshold: u64 },
}

/// What one sample does to the limit.
#[derive(Clone, Copy)]
enum Step {
    Hold,
    Grow,
    /// Back to the level a round grown with a doubled step began at (see `Probe`, rule 10).
    Undo(u32),
    /// A cut to `part / whole` of the limit (within `[deepest_cut, backoff]`), and what its
    /// signal was.
    Cut(u64, u64, CutBy),
}

/// Configuration of an [`Aimd`] controller, validated by [`Aimd::new`].
///
/// Durations are kept in 32-bit microseconds, so a longer one than about 71 minutes saturates
/// there.
///
/// The defaults: start at 4 within `[1, 64]`, cut by 0.8, grow by one per round of the limit
/// (faster where the growth probe allows, see [`Aimd`]), congestion at twice the baseline
/// (the lowest rolling median of the last 10 to 20 minutes, and at least 1 ms) once 10 samples
/// are known, growth held above 1.25 times the baseline (with the growth probe, above a
/// narrower band where a full window shows less noise than that), growth only while in-flight
/// is at least 80% of the limit, no cooldown.
///
/// Why the band starts at 1.25: where latency rises gently with load the limit settles where
/// growth stops, so the band's start is the standing queue every client keeps; from 1.5× that
/// was half the latency (the simulator's `shallow-knee`: p95 1.59× the oracle's, 1.40× at 1.25×;
/// `creep`, 100 clients: limit quartiles 21/21/21 against the oracle's 4, 6/6/6 at 1.25× with
/// the longer memory below). 1.1× keeps a smaller queue still (shallow-knee 1.20×, creep
/// 5/5/5), but a dependency whose latency varies by ±20 % then holds growth on a quarter of its
/// healthy calls, and a returned quota is found far later (the simulator's `quota-jitter`,
/// drop-and-recover with each call's latency within 100 ms ± 20 %: 49 % of the oracle's
/// goodput at 1.1×, 62 % at 1.25×). With the growth probe the band is measured instead, from
/// the noise a full window shows, and 1.25 is its widest (see the module `probe`, rule 9): on
/// a dependency without noise it starts at 1 + 1/16.
///
/// # Examples
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{AimdConfig, AimdFixed, ConfigError, Ratio};
///
/// let config = AimdConfig::default()
///     .initial(8)
///     .bounds(2, 32)
///     .backoff(Ratio::from_fraction(7, 10).unwrap())
///     .cooldown(Duration::from_millis(100));
/// assert!(AimdFixed::new(config).is_ok());
///
/// let inverted = AimdConfig::default().bounds(10, 5);
/// assert_eq!(AimdFixed::new(inverted).unwrap_err(), ConfigError::MinAboveMax);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct AimdConfig {
    bounds: Bounds,
    backoff: Ratio,
    deepest_cut: Ratio,
    step: Ratio,
    signal: LatencySignal,
    cooldown_micros: u32,
    growth_utilisation: Ratio,
    baseline_floor_micros: u32,
    growth_tolerance: Ratio,
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig::DEFAULT
    }
}

impl AimdConfig {
    /// The defaults (see the type's documentation), for `const` code; the same as
    /// [`AimdConfig::default`].
    pub const DEFAULT: AimdConfig = AimdConfig {
        bounds: Bounds::DEFAULT,
        backoff: DEFAULT_BACKOFF,
        deepest_cut: Ratio::from_bits(32_768), // 0.5
        step: Ratio::ONE,
        signal: LatencySignal::Baseline {
            tolerance: Ratio::from_int(2),
            min_samples: 10,
            memory_micros: 600_000_000, // 10 minutes
        },
        cooldown_micros: 0,
        growth_utilisation: Ratio::from_bits(52_429), // 0.8
        baseline_floor_micros: 1_000,
        growth_tolerance: Ratio::from_bits(81_920), // 1.25
    };

    bounds_builders!();

    /// The multiplicative decrease factor, strictly between 0 and 1.
    pub const fn backoff(mut self, backoff: Ratio) -> Self {
        self.backoff = backoff;
        self
    }

    /// How deep one cut may go when the latency shows congestion: a sample `k ×` over the
    /// congestion threshold cuts by `1 / k`, but never less than `backoff` and never below
    /// `deepest_cut` (default 0.5). A queue that has built up far beyond the threshold is
    /// cleared in one or two round trips instead of many timid ones. With the growth probe
    /// (not in [`AimdFixedCompact`]) a refusal is sized the same way by how long it took: a
    /// timeout `k ×` over the threshold cuts like a success that slow; a quick 429 or 503 cuts
    /// by the backoff.
    /// Set it to the backoff (or above) for a plain, fixed multiplicative decrease.
    /// Strictly between 0 and 1.
    pub const fn deepest_cut(mut self, factor: Ratio) -> Self {
        self.deepest_cut = factor;
        self
    }

    /// The additive increase per round of the limit: each healthy sample adds `step / limit`.
    /// Above 0, at most 64.
    pub const fn step(mut self, step: Ratio) -> Self {
        self.step = step;
        self
    }

    /// The latency signal.
    pub const fn signal(mut self, signal: LatencySignal) -> Self {
        self.signal = signal;
        self
    }

    /// Congestion when latency exceeds `tolerance ×` the baseline: the lowest rolling median of
    /// the last one to two `memory` periods (the current median alone if `memory` is zero), once
    /// `min_samples` are known. See [`LatencySignal::Baseline`].
    pub const fn baseline(self, tolerance: Ratio, min_samples: u16, memory: Duration) -> Self {
        self.signal(LatencySignal::Baseline {
            tolerance,
            min_samples,
            memory_micros: micros_u32(memory),
        })
    }

    /// Congestion when latency exceeds a fixed `target`.
    pub const fn target(self, target: Duration) -> Self {
        self.signal(LatencySignal::Target {
            micros: micros_u32(target),
        })
    }

    /// After a decrease, hold growth for `cooldown`.
    pub const fn cooldown(mut self, cooldown: Duration) -> Self {
        self.cooldown_micros = micros_u32(cooldown);
        self
    }

    /// Grow only while in-flight ≥ `fraction ×` the limit (0 grows even when idle; at most 1).
    pub const fn growth_utilisation(mut self, fraction: Ratio) -> Self {
        self.growth_utilisation = fraction;
        self
    }

    /// The smallest baseline the [`LatencySignal::Baseline`] compares with (default 1 ms).
    ///
    /// A clock with coarse ticks, or a dependency faster than its tick, gives latencies of mostly
    /// zero: without a floor, a baseline of zero would make every one-tick latency congestion.
    /// Set it to at least one tick of the clock; lower it for dependencies that answer in
    /// microseconds. With the growth probe (not in [`AimdFixedCompact`]) a baseline is
    /// remembered as at least the floor: a lower one would move no threshold.
    pub const fn baseline_floor(mut self, floor: Duration) -> Self {
        self.baseline_floor_micros = micros_u32(floor);
        self
    }

    /// With a [`LatencySignal::Baseline`], the limit grows only while latency is within
    /// `growth_tolerance ×` the baseline (default 1.25); between that and `tolerance ×` it holds.
    ///
    /// The band between the two keeps the limit off the knee of the latency curve: a limit that
    /// only stops growing when latency doubles spends much of its time queueing work inside the
    /// dependency, while one that cuts at 1.5× reacts to ordinary noise. Holding in between gets
    /// both. Samples in the band still count towards the baseline, so latency that stays in the
    /// band for a whole baseline memory becomes the new normal and growth resumes. Set it equal
    /// to `tolerance` for no band. At least 1, at most `tolerance`.
    ///
    /// With the growth probe ([`AimdFixed`], [`AimdF32`]) and a baseline with memory, this is
    /// the widest the band gets: once the window is full, the band is measured from the noise
    /// its latencies show (twice the distance from their median to their upper eighth, at
    /// least 1/16), so a dependency that answers in the same time every call keeps a standing
    /// queue of a sixteenth, not a quarter.
    pub const fn growth_tolerance(mut self, growth_tolerance: Ratio) -> Self {
        self.growth_tolerance = growth_tolerance;
        self
    }

    /// Checks the configuration for a window of `window` samples.
    pub const fn validate(&self, window: usize) -> Result<(), ConfigError> {
        if let Err(e) = self.bounds.validate() {
            return Err(e);
        }
        if !is_fraction(self.backoff) {
            return Err(ConfigError::BackoffOutOfRange);
        }
        if !is_fraction(self.deepest_cut) {
            return Err(ConfigError::DeepestCutOutOfRange);
        }
        if self.step.to_bits() == 0 || self.step.to_bits() > MAX_STEP.to_bits() {
            return Err(ConfigError::StepOutOfRange);
        }
        if self.growth_utilisation.to_bits() > Ratio::ONE.to_bits() {
            return Err(ConfigError::UtilisationOutOfRange);
        }
        match self.signal {
            LatencySignal::Baseline {
                tolerance,
                min_samples,
                ..
            } => {
                if tolerance.to_bits() <= Ratio::ONE.to_bits() {
                    return Err(ConfigError::ToleranceOutOfRange);
                }
                let growth = self.growth_tolerance.to_bits();
                if growth < Ratio::ONE.to_bits() || growth > tolerance.to_bits() {
                    return Err(ConfigError::GrowthToleranceOutOfRange);
                }
                if min_samples == 0 || min_samples as usize > window {
                    return Err(ConfigError::MinSamplesOutOfRange);
                }
            }
            LatencySignal::Target { micros: 0 } => return Err(ConfigError::TargetIsZero),
            LatencySignal::Target { .. } | LatencySignal::Off => {}
        }
        Ok(())
    }
}

/// The AIMD controller: grow by `step / limit` per healthy sample, cut by `backoff` on congestion.
///
/// - **Congestion** is an [`Outcome::Overload`], or two successes among the last four slower
///   than the latency signal allows ([`LatencySignal`]; by default twice the baseline, the
///   lowest recent rolling median). One slow success alone holds the limit: on a healthy
///   dependency with an exponential tail one call in a hundred is that slow, and cutting on each
///   held the limit below what the load needed (the simulator's `steady-noisy`: 109 cuts in 30 s
///   and a p95 wait of 2.6 ms in the limiter on single samples; 7 cuts and no wait on two of
///   four), while a queue makes most calls slow. Two *in a row* was too strict one call past a
///   knee, where fast and slow calls alternate (the tokio `degrade` example: p95 15 ms instead
///   of 10 ms). On a dependency whose healthy latencies spread widely (the full window's upper
///   quartile more than 1.5 times its lowest eighth, or than the baseline floor: a long tail is
///   then the rule, not the exception), five congested successes among the last eight cut
///   instead: with service times of 10 ms plus an exponential tail of 10 ms on average, one
///   call in eleven is over twice the median with no queue at all (more against the lowest
///   recent median), two of four came up every few round trips, and the limit was cut to the
///   floor (the simulator's `heavy-tail`: 39 % of the oracle's goodput, 78 % with five of
///   eight, 89 % with no dwell below the knees such cuts find; a queue delays every call, so
///   five of eight still comes within a round). Once a cut by latency has found the window
///   spread, the next ones take it as spread from 1.25 times on: 32 samples of such a
///   dependency often fall under 1.5 by chance, and each time the rule fell back to two of
///   four and a dwell (heavy-tail 89 % → 98 %; seeds 2 to 4: 84 → 96 %, 77 → 95 %,
///   92 → 98 %).
/// - **A hold band**: a success between `growth_tolerance ×` (default 1.25) and `tolerance ×` the
///   baseline neither grows nor cuts the limit, so it does not climb into the queueing that the
///   next step would cause. With the probe and a remembered baseline, the band starts where a
///   full window's noise says (1 + 1/16 with no noise, at most `growth_tolerance`), and a
///   whole round held in it after a doubled step goes back to where that step began (see the
///   module `probe`, rules 9 and 10).
/// - **A late refusal cuts like a slow success** (with the probe): a refusal that arrived
///   `k ×` over the congestion threshold (a client timeout, a gateway's 504 after a long wait)
///   cuts by `1 / k` within `[deepest_cut, backoff]`, as a success that slow would; a quick one
///   by the backoff. Where one call over a sharp knee slows every call in flight, a cut by 0.8
///   left calls admitted into the queue after it to time out in turn, round trip after round
///   trip (the simulator's `shared-100-linear`, 100 clients sharing a capacity whose latency
///   grows by a whole service time per call past it: 45 % of the oracle's goodput with the
///   backoff, 60 % with the sized cut; `shared-1000-linear` 13 → 21 %; no other row moved).
///   The knee such a refusal finds is a latency knee, with the long dwell below it: trying it
///   again holds a call for as long as the timeout, not one quick refusal
///   (`shared-1000-linear` 21 → 41 % and refusals 19.5 → 7.7 % of the calls served, seeds 2
///   and 3 alike; `shared-100-linear` 60 → 57 % but p95 2.88 → 2.01× the oracle's). Such a
///   refusal, or a cut by latency, of a call admitted at a level the last whole round served
///   at the baseline is seen one above it: the congestion came with more than that level
///   (see the module `probe`, rule 4).
/// - **No signal from calls still outstanding.** A call outstanding for longer than the
///   congestion threshold is known to be that slow before it ends. Reported then, as a late
///   refusal that keeps its capacity, it cost more than it found, three ways (seeds 1 to 6 of
///   `cargo run --release -p limiter-sim -- --format json --seed N`, `python3
///   scripts/sim-bars.py --seeds`; 164 of 216 rows meet every bar without it):
///   - the gate watching one call at a time, reported once a call admitted after it ended (the
///     RACK rule): 153 rows, `heavy-tail` 93 → 28 % of the oracle's goodput,
///     `shared-100-linear` 88 → 84 %;
///   - the calls in flight at a completion, watched together until they have all ended: 133;
///   - a timer per call in the caller (the simulator's clients), at the threshold: 147 rows,
///     `heavy-tail` 19 %, `shared-1000-linear` 77 → 19 %; at 1.25 times the baseline (RACK's
///     reorder window) 60 rows.
///
///   Where latencies spread, calls over twice the baseline come with no queue at all, and one
///   reported call cuts where completed ones need two of four, or five of eight. Where one call
///   over capacity slows every later call (`shared-100-linear`, seed 1, the timer), a report at
///   twice the baseline came two round trips after the overshoot, with every round trip's
///   calls past the capacity stuck behind it; the reports took limits from 5 to 4 (198 of them
///   in the first second) or to 2 (93), and the 100 clients ended about 10 calls per 100 ms
///   for the next 1.7 s, against 400 before, until the stuck calls timed out. What sets that
///   loss is every client's first step past its share in the same round trip. Spread apart
///   (growth held after a client's first success for 0 to 7 times its latency, by the
///   latency's lowest bits), those steps cost more than they saved: 121 rows,
///   `shared-1000-linear` 76.9 → 62.3 %, and Jain's index of `fairness` 1.00 → 0.84.
/// - **One cut per round trip**: a congestion signal from a request admitted before the last
///   decrease (an older [`Epoch`]) does not cut again. It was caused by the load the last cut
///   already answered.
/// - **Growth only while the limit is used**: a healthy sample grows the limit only if, when it
///   was admitted, in-flight was at least `growth_utilisation × limit`. An idle client does not
///   drift to its ceiling.
/// - **A knee, and a dwell below it** (both variants): the knee is the concurrency the last
///   cut's congestion was seen at. In the unit just below it the step is an eighth, so the knee
///   is tried again only every eight rounds or so (with the probe, a try refused quickly goes
///   back to the unit below it, not by the backoff: `Knee::tried_back`); below a knee found by
///   latency, a 128th for the
///   first 4 s after the cut (a try there slows every call in flight, not just one), and no
///   dwell at all where the healthy latencies spread widely (a cut by latency there is noise as
///   often as a knee). A sharp knee costs far less goodput (`slow-no-429`: 99 % of the oracle's,
///   where one step per round and the earlier defaults gave 74 %, and an eighth below every
///   knee 89 %; among ten clients sharing a capacity, `fairness`: 97 % where one step per round
///   gave 40 %). With the probe, tries that failed space the next ones: each of its own
///   doubles the rounds of the next dwells, each of another client's (congestion at a level the
///   limit kept) their time too, up to 32 s, until a try of its own is served (`fairness`
///   98.8 %, `shared-100-linear` 78.9 → 83.5 %; see the module `probe`, rule 11). See the
///   module `knee`.
/// - **A growth probe** (with `PROBES = 1`, the default): above the knee, and while each round's
///   completion rate rises with the limit (the added concurrency is served), the step doubles
///   every round of uninterrupted growth, up to a quarter of the limit per round; anything else
///   returns it to one. A quota that returns from 5 to 50 after a cut at 6 is found in 25 rounds
///   instead of 56 (one step per round, with the dwell below the knee); where it fell from 50
///   (a quick refusal's cut moved the knee down), a served round above the new knee takes the
///   limit straight back to 50 (see `Knee::return_to`). Further below a knee
///   found by a quick refusal (a 429, a 503) than the unit just below it, the step is at least
///   the whole way back to that unit (worked out again at each sample: about two thirds of
///   what is left, each round), since the levels below such a knee were served: a try of a
///   quota is a dip of about three rounds, not ten rounds a few units below it. See the modules
///   `probe` and `knee`.
///   [`AimdFixedCompact`] leaves it out (about 1,500 bytes of flash on a Cortex-M0).
/// - **Drains and low rounds** (with the probe, where the baseline is remembered): after 5 s
///   with no success at or below the baseline, the limit is halved for one round, under a new
///   epoch, and then restored (reported as [`Change::Decreased`] and [`Change::Increased`]); a
///   whole round of successes below the band lowers the remembered baseline and scales the
///   limit by the new baseline over the old. Together they show a client that joined a queue
///   others keep what the dependency looks like without it, and give back what the inflated
///   baseline let it take.
/// - **A cut sized by the round before** (with the probe): when a round trip is cut right after
///   one that was cut, within a round of successes, the second cut goes at least down to what
///   the first round kept: its calls in flight less its refusals (stale ones included, which
///   still never cut on their own). A quota that falls from 50 to 5 is met in two round trips
///   instead of about ten (the simulator's `drop-and-recover`: 128 refusals instead of 222;
///   `oscillating`: 370 instead of 543; `quota-phases`: 112 instead of 155). A quick refusal's
///   cut sized so also sets the knee at one above what that round kept. See the module `tally`.
/// - **A stated pace, at the client's part** (with the probe): a provider's remaining-quota
///   headers state the concurrency that spends its calls by the reset ([`Sample::pace`]); a
///   growth sample goes straight to it. Where the answers also state the calls left
///   ([`Sample::calls_left`]), the client measures its share of the account's calls from the
///   count and takes its part of the pace, which is also a ceiling; only a client alone jumps
///   straight to the pace, one that shares the quota at most back to where the last window's
///   ceilings found it. Ten clients of one account no longer each take the whole account's
///   pace. See the modules `probe` (rule 8) and `share`.
/// - **Holds**: growth pauses for `cooldown` after each cut, and until any `Retry-After` hint.
/// - **Bounds**: the limit stays within `[min, max]`, whatever the input.
/// - [`Outcome::Ignore`] (client errors, cancellations) changes nothing.
///
/// `V` is the number the fractional limit is kept in: [`Q32`] fixed point ([`AimdFixed`], no
/// floating point at all) or the same value read as an `f32` ([`F32`], [`AimdF32`]). On the same
/// samples the two take the same decisions. `N` is the size of the latency window. `PROBES` is 1
/// for the growth probe (with its drains, low rounds and cut tally), 0 for none (larger values
/// act as 1).
///
/// Time comes only from the samples. It is kept as a monotonic count of elapsed time: a sample
/// whose clock went backwards adds no elapsed time; after a step back of a second or more (a
/// clock reset) time continues from the new clock's reading, so holds are never stretched by it;
/// completions reported slightly out of order are not counted twice. One observation adds at
/// most about 12.7 days, and holds are capped at that.
///
/// # Examples
///
/// ```
/// use limiter_core::{Admission, AimdConfig, AimdFixed, Controller, Instant, Outcome, Sample};
///
/// let mut aimd = AimdFixed::new(AimdConfig::default().initial(8).bounds(2, 32)).unwrap();
/// let mut now = Instant::ZERO;
/// for _ in 0..200 {
///     let admitted = Admission::new(&aimd, now, aimd.limit());
///     now = now.saturating_add_micros(5_000);
///     aimd.on_sample(&Sample::new(admitted, now, Outcome::Success));
/// }
/// assert_eq!(aimd.limit(), 21); // additive increase is deliberately slow
/// ```
#[derive(Clone, Debug)]
pub struct Aimd<V: LimitValue = F32, const N: usize = 32, const PROBES: usize = 1> {
    config: AimdConfig,
    limit: V,
    window: MedianWindow<N>,
    /// The window's samples below this period's lowest remembered median, with the probe (see
    /// [`COUNTED`](Self::COUNTED)).
    below_mark: [BelowMark; PROBES],
    /// The lowest recent medians, for a [`LatencySignal::Baseline`] with memory.
    low_medians: WindowedMin,
    epoch: Epoch,
    /// Monotonic time, from the samples' timestamps.
    timeline: Timeline,
    /// Growth resumes once `elapsed` reaches this.
    hold_until: u64,
    increases: u64,
    decreases: u64,
    at_floor: FloorWatch,
    /// Which of the last eight successes were congested (bit 0: the latest): a cut needs two of
    /// the last four, or five of eight.
    slow_recent: u8,
    /// Whether the baseline is remembered (see [`remembers`](Self::remembers)): derivable from
    /// `config.signal`, and kept because a sample asks three times, where matching the signal
    /// and its memory cost 6 instructions of the cycle; it fits in the padding (the controller
    /// is 384 bytes either way).
    remembers: bool,
    /// How fast growth may go (see [`Probe`]): none with `PROBES = 0`.
    probe: [Probe; PROBES],
    /// What the last cut round kept, for the depth of the next cut (see [`Tally`]): with the
    /// probe only.
    tally: [Tally; PROBES],
    /// The client's share of a provider's quota, for its part of a stated pace (see
    /// [`QuotaShare`]): with the probe only.
    share: [QuotaShare; PROBES],
    /// Where congestion last appeared and the dwell below it (see [`Knee`]).
    knee: Knee,
    /// The whole limit under 65,536 growth last asked about and the calls in flight it needs
    /// there (`(0, 0)`: none yet): derivable from the configuration and the limit, and kept
    /// because a sample asks on every success and the limit's whole part seldom changes (see
    /// [`needed_in_flight`](Self::needed_in_flight)); with the probe only, where it fits in the
    /// controller's padding (the compact AIMD has none to spare, and works it out each time).
    needed: [(u16, u16); PROBES],
}

/// The latency window of [`AimdF32`] and [`AimdFixed`]: 32 samples.
pub const DEFAULT_WINDOW: usize = 32;

/// [`Aimd`] with an `f32` limit ([`F32`]) and a 32-sample window. Other windows: `Aimd<F32, N>`.
pub type AimdF32 = Aimd<F32, DEFAULT_WINDOW>;
/// [`Aimd`] with a [`Q32`] fixed-point limit (no floating point, for cores without an FPU) and a
/// 32-sample window. Other windows: `Aimd<Q32, N>`.
pub type AimdFixed = Aimd<Q32, DEFAULT_WINDOW>;
/// [`AimdFixed`] without the growth probe (`PROBES = 0`, and with it the drains, low rounds and
/// cut tally): additive increase stays at one step per round, as classic AIMD, with the knee
/// and the dwell below it, and the code is about 1,500 bytes smaller on a Cortex-M0 (the gate
/// with it: 5,100 bytes of flash, with `AimdFixed` about 6,600: `bash scripts/footprint.sh`,
/// and the same firmware built with `AimdFixed`). Every refusal is a quick one to it, cut by the
/// backoff, however late it came: a client timeout's knee is tried again within rounds, where
/// `AimdFixed` dwells below it up to 32 s. The embassy adapter's default, to keep its limiter
/// within 5 KiB of flash.
pub type AimdFixedCompact = Aimd<Q32, DEFAULT_WINDOW, 0>;

impl<const N: usize, const PROBES: usize> Aimd<Q32, N, PROBES> {
    /// [`Aimd::new`] for `const` code, such as a `static` limiter on a microcontroller: it
    /// panics on an invalid configuration instead of returning the error, which in a `static`
    /// or `const` initializer stops the build.
    ///
    /// ```
    /// use limiter_core::{AimdConfig, AimdFixed, Controller};
    ///
    /// const AIMD: AimdFixed = AimdFixed::new_const(AimdConfig::DEFAULT.bounds(2, 16));
    /// assert_eq!(AIMD.limit(), 4);
    /// assert_eq!(AIMD.config(), &AimdConfig::DEFAULT.bounds(2, 16));
    /// ```
    ///
    /// ```compile_fail
    /// # use limiter_core::{AimdConfig, AimdFixed};
    /// const AIMD: AimdFixed = AimdFixed::new_const(AimdConfig::DEFAULT.bounds(0, 16));
    /// ```
    pub const fn new_const(config: AimdConfig) -> Self {
        assert_valid(config.validate(N));
        Self::assemble(config, Q32::from_whole(config.bounds.initial))
    }
}

impl<const N: usize, const PROBES: usize> Aimd<F32, N, PROBES> {
    /// [`Aimd::new`] for `const` code: panics on an invalid configuration (a compile-time error
    /// in a `static` or `const` initializer), like [`AimdFixed::new_const`].
    ///
    /// ```
    /// use limiter_core::{AimdConfig, AimdF32, Controller};
    ///
    /// static AIMD: AimdF32 = AimdF32::new_const(AimdConfig::DEFAULT.initial(8));
    /// assert_eq!(AIMD.limit(), 8);
    /// ```
    pub const fn new_const(config: AimdConfig) -> Self {
        assert_valid(config.validate(N));
        Self::assemble(config, F32::from_whole(config.bounds.initial))
    }
}

impl<V: LimitValue, const N: usize> Aimd<V, N, 1> {
    /// Starts fast: until the first sign of congestion from now on (any cut, or a success held
    /// above the growth band), the limit doubles every round instead of growing by a step, and
    /// that first sign halves it, or cuts deeper if its own factor says so (see the module
    /// `probe`, rule 7). Only the AIMD with the growth probe has it (not [`AimdFixedCompact`]).
    ///
    /// For a dependency the client has to itself, such as a provider's quota per account:
    /// reaching a quota of 50 concurrent calls from 4 takes about 4 round trips instead of 15,
    /// and going past it costs one round trip of refused calls. Not for a backend shared with
    /// other clients: a client that joins a queue others keep sees no sign of it while it
    /// doubles, and takes about twice its share until the queue is next drained; clients that
    /// start together double past their shares at once.
    ///
    /// ```
    /// use limiter_core::{Admission, AimdConfig, AimdFixed, Controller, Instant, Outcome, Sample};
    ///
    /// // Three round trips of 100 ms, each call admitted with the limit in use and served at
    /// // the same latency: the limit after them.
    /// let grown = |mut aimd: AimdFixed| {
    ///     let mut now = Instant::ZERO;
    ///     for _ in 0..3 {
    ///         let n = aimd.limit();
    ///         let admitted: Vec<_> = (0..n).map(|_| Admission::new(&aimd, now, n)).collect();
    ///         now = now.saturating_add_micros(100_000);
    ///         for admission in admitted {
    ///             aimd.on_sample(&Sample::new(admission, now, Outcome::Success));
    ///         }
    ///     }
    ///     aimd.limit()
    /// };
    /// let aimd = AimdFixed::new(AimdConfig::default())?;
    /// assert_eq!(grown(aimd.clone()), 6);
    /// // Each round's calls were admitted at the limit it began with, and growth needs 80 % of
    /// // the limit in flight: the limit grew under them by about a quarter a round. A backlog
    /// // that fills each new unit at once doubles it every round.
    /// assert_eq!(grown(aimd.fast_start()), 11);
    /// # Ok::<(), limiter_core::ConfigError>(())
    /// ```
    #[must_use]
    pub const fn fast_start(mut self) -> Self {
        self.probe[0] = self.probe[0].starting_fast();
        self
    }
}

impl<V: LimitValue, const N: usize, const PROBES: usize> Aimd<V, N, PROBES> {
    /// Whether the window is pushed without ordering and counts its samples below the lowest
    /// median remembered this period (see `remember_median`): with the growth probe, off
    /// microcontrollers. The compact AIMD, and any AIMD on a microcontroller, where flash counts
    /// for more than a sample's instructions, orders the window at each push and reads its
    /// median, without the count's code (the same decisions either way).
    const COUNTED: bool = PROBES > 0 && LAZY_ORDER;

    /// The window's length, as a count of samples (at most `u16::MAX`).
    const WINDOW: u16 = if N > u16::MAX as usize {
        u16::MAX
    } else {
        N as u16
    };

    /// A controller with a validated configuration.
    pub fn new(config: AimdConfig) -> Result<Self, ConfigError> {
        config.validate(N)?;
        Ok(Self::assemble(config, V::from_u32(config.bounds.initial)))
    }

    /// The controller at its starting `limit`, once `config` is known to be valid.
    const fn assemble(config: AimdConfig, limit: V) -> Self {
        let (memory_micros, remembers) = match config.signal {
            LatencySignal::Baseline { memory_micros, .. } => {
                (memory_micros as u64, memory_micros > 0)
            }
            _ => (u64::MAX, false),
        };
        Aimd {
            config,
            limit,
            window: MedianWindow::new(),
            below_mark: [BelowMark::new(); PROBES],
            low_medians: WindowedMin::new(Duration::from_micros(memory_micros)),
            epoch: Epoch(0),
            timeline: Timeline::new(),
            hold_until: 0,
            increases: 0,
            decreases: 0,
            at_floor: FloorWatch::new(),
            slow_recent: 0,
            remembers,
            probe: [Probe::new(config.bounds.initial); PROBES],
            tally: [Tally::new(); PROBES],
            share: [QuotaShare::new(); PROBES],
            knee: Knee::new(config.bounds.initial),
            needed: [(0, 0); PROBES],
        }
    }

    /// The configuration.
    pub const fn config(&self) -> &AimdConfig {
        &self.config
    }

    /// The fractional limit.
    pub const fn limit_value(&self) -> V {
        self.limit
    }

    /// The latency window.
    pub const fn window(&self) -> &MedianWindow<N> {
        &self.window
    }

    /// Advances the monotonic elapsed-time count to `now`; returns it.
    fn observe(&mut self, now: Instant) -> u64 {
        self.timeline.observe(now)
    }

    /// The latency baseline in microseconds, once known: the lowest median remembered (with
    /// the growth probe at least the [baseline floor](AimdConfig::baseline_floor)), or the
    /// window's median before one is.
    pub fn baseline_micros(&self) -> Option<u32> {
        self.remembered().or_else(|| self.window.median())
    }

    /// The lowest median remembered, with memory (see [`remembers`](Self::remembers)).
    fn remembered(&self) -> Option<u32> {
        if self.remembers() {
            self.low_medians.get()
        } else {
            None
        }
    }

    /// What a latency says against `baseline` (the baseline now, once known): no verdict until
    /// the window holds `min_samples`, unless `early` (a refusal's, see `slow_refusal`).
    fn judge(&self, latency: u64, baseline: Option<u32>, early: bool) -> Verdict {
        match self.config.signal {
            LatencySignal::Target { micros } if latency > u64::from(micros) => Verdict::Congested {
                threshold: u64::from(micros),
            },
            LatencySignal::Off | LatencySignal::Target { .. } => Verdict::Fast,
            LatencySignal::Baseline {
                tolerance,
                min_samples,
                ..
            } => {
                if self.window.len() < usize::from(min_samples) && !early {
                    return Verdict::Fast; // no baseline yet: no verdict
                }
                let Some(baseline) = baseline else {
                    return Verdict::Fast;
                };
                let b = u64::from(baseline.max(self.config.baseline_floor_micros));
                if latency < b {
                    // Under the baseline is under both thresholds, each at least the baseline
                    // (the tolerance is over 1, the growth band at least 1): no product needed.
                    return Verdict::Fast;
                }
                let threshold = tolerance.mul_u64(b);
                if latency >= threshold {
                    Verdict::Congested { threshold }
                } else if latency > self.growth_band(tolerance).mul_u64(b) {
                    Verdict::Elevated
                } else {
                    Verdict::Fast
                }
            }
        }
    }

    /// The baseline at `elapsed`: remembered medians age on the controller's monotonic time
    /// first, so a clock that steps back cannot keep a stale baseline alive.
    fn aged_baseline(&mut self, elapsed: u64) -> Option<u32> {
        self.low_medians.rotate(Instant::from_micros(elapsed));
        let remembered = self.remembered();
        if Self::COUNTED && remembered.is_none() {
            // The median is the baseline: read it from a settled window.
            self.window.settle();
        }
        remembered.or_else(|| self.window.median())
    }

    /// Where growth holds, over the baseline: the configured
    /// [`growth_tolerance`](AimdConfig::growth_tolerance), or with the probe the narrower band
    /// measured from the noise (see `Probe`, rule 9); never a band where the configuration
    /// asks for none (`growth_tolerance` at `tolerance`).
    fn growth_band(&self, tolerance: Ratio) -> Ratio {
        let configured = self.config.growth_tolerance;
        match self.probe.first().and_then(Probe::band) {
            Some(band) if configured.to_bits() < tolerance.to_bits() => {
                Ratio::from_bits(band.min(configured.to_bits()))
            }
            _ => configured,
        }
    }

    /// For a refusal that took `latency` to arrive, at `elapsed`: the congestion threshold, if
    /// the latency was at or above it (with the probe only).
    ///
    /// Judged against the latencies known so far, before the window holds `min_samples`: that
    /// many are needed before a baseline may cut a *success*, which noise against a baseline
    /// not yet learned would do; a refusal cuts anyway, and its latency only decides what the
    /// cut's knee is. A client timeout of 2 s against a first round of 100 ms calls is late
    /// whatever the tenth call will say. Taken for a quick refusal, it had no long dwell (the
    /// simulator's `shared-1000-linear`, seed 1: 1,000 clients grew from 4 to 5 on one shared
    /// capacity of 4,000, every call timed out, the cut from 5 to 4 set a quick knee at 4, and
    /// the limits, at their knee, grew to 6 within three rounds and timed out again).
    // Out of line off microcontrollers: not on the common sample's path (see `on_sample`).
    #[cfg_attr(not(target_os = "none"), cold, inline(never))]
    fn slow_refusal(&mut self, latency: u64, elapsed: u64) -> Option<u64> {
        if PROBES == 0 {
            return None;
        }
        let baseline = self.aged_baseline(elapsed);
        match self.judge(latency, baseline, true) {
            Verdict::Congested { threshold } => Some(threshold),
            Verdict::Fast | Verdict::Elevated => None,
        }
    }

    /// Remembers the current median once it is trusted (the window holds `min_samples`).
    ///
    /// From `min_samples` on, not from a full window: the lowest of the medians of 10 to 31
    /// samples is noisier, and on a dependency with an exponential tail it is low (the
    /// simulator's `heavy-tail`, seed 6: 12.2 ms where the median is 16.9, four cuts in the
    /// first 0.2 s and the limit at 1 or 2 until 2.4 s), but it is what a client learns before
    /// a queue builds. Remembered from a full window only: `heavy-tail` 93.6 → 95.5 % of the
    /// oracle's goodput (seeds 1 to 6 of `bash scripts/sim-seeds.sh`), but the late joiners
    /// fair on no seed (5 and 6 before), the shared-proportional rows' Jain index 0.998 →
    /// 0.98, and 152 rows of 216 meeting every bar against 165. Remembered at `min_samples`
    /// and then only from full windows (two looks at the early latencies instead of 22, so
    /// less of the lowest's bias): 158 rows, `heavy-tail` 93.6 → 92.2 %, `capacity-rise`
    /// 90.3 → 87.0 %.
    ///
    /// Only a median below the current period's lowest changes what is remembered; where
    /// [`COUNTED`](Self::COUNTED), the window counts its samples below that one (its mark), and
    /// its order is needed only when the count says the median could be below it, which on a
    /// steady dependency is seldom: a push then costs a comparison or two instead of a reorder
    /// (`valgrind --tool=callgrind` on the bench crate's `cycle` example: 830 instructions per
    /// permit's cycle before, 675 with the count; the floor of a semaphore and two clock reads
    /// is 363).
    fn remember_median(&mut self, now: Instant) {
        if let LatencySignal::Baseline { min_samples, .. } = self.config.signal {
            if self.window.len() >= usize::from(min_samples) {
                let floor = self.config.baseline_floor_micros;
                if PROBES > 0 && self.low_medians.current().is_some_and(|low| low <= floor) {
                    return; // nothing lower is remembered (see `floored`)
                }
                let counted = self.below_mark.first_mut().filter(|_| Self::COUNTED);
                let median = if let Some(count) = counted {
                    let lowest = self.low_medians.current();
                    count.set(&self.window, lowest);
                    let below = self.window.median_if_below(*count);
                    // In a debug build (every test), the count's answer against the ordered
                    // window's: the median if it is below this period's lowest, else nothing.
                    debug_assert_eq!(below, {
                        self.window.settle();
                        let median = self.window.median();
                        median.filter(|&m| lowest.is_none_or(|lowest| m < lowest))
                    });
                    below
                } else {
                    // An ordered window and its median each time.
                    self.window.median()
                };
                if let Some(median) = median {
                    let median = self.floored(u64::from(median));
                    self.low_medians.push(now, median);
                }
                // The band, from a full window whose median was just remembered, or from the
                // first full one (see `Probe`, rule 9).
                let due = |probe: &Probe| median.is_some() || probe.band().is_none();
                if self.window.is_full() && self.probe.first().is_some_and(due) && self.remembers()
                {
                    self.measure_band();
                }
            }
        }
    }

    /// Once the window holds only samples taken after a cut by latency that came before it was
    /// full (see `Probe`, rule 3): if they spread widely, the knee that cut set does not dwell,
    /// as if the cut had found them spread.
    fn judge_spread(&mut self) {
        if !self.probe.first_mut().is_some_and(Probe::pushed) {
            return;
        }
        if Self::COUNTED {
            self.window.settle(); // for its spread
        }
        if self
            .window
            .spreads(self.config.baseline_floor_micros, self.knee.spread())
        {
            self.knee.found_spread();
        }
    }

    /// Measures the growth band from the (full) window: see `Probe`, rule 9.
    fn measure_band(&mut self) {
        if Self::COUNTED {
            self.window.settle();
        }
        let widest = self.config.growth_tolerance.to_bits();
        let (median, high) = (self.window.median(), self.window.quantile_permille(875));
        if let (Some(probe), Some(median), Some(high)) = (self.probe.first_mut(), median, high) {
            probe.measure_band(median, high, widest);
        }
    }

    /// What is remembered of a median or a low round's latency: with the probe, at least the
    /// baseline floor.
    ///
    /// Every threshold compares latencies with the baseline or the floor, whichever is higher
    /// (see `judge`), and a low round under a baseline at or below the floor rescales nothing
    /// (see `watch_baseline`): a lower baseline would move no threshold. Remembered as the
    /// floor, it puts a drain off at every success at or below the floor (a drain there could
    /// show no queue the thresholds see), and it ends the watch for lower medians, whose
    /// window must otherwise be put in order each time its count says the median could be
    /// below the lowest so far. Behind a dependency that answers in microseconds that was
    /// about one sample in three, at about 450 instructions each (`valgrind --tool=callgrind`
    /// on the bench crate's `cycle contended-local-aimd`, whose calls last a task's yield:
    /// 2,424 to 2,475 instructions per acquisition in three runs before, 2,317 in each of three
    /// now; `on_sample` inclusive 570 → 463). The compact AIMD (no probe, no drains) remembers
    /// medians as they are.
    fn floored(&self, micros: u64) -> u64 {
        if PROBES > 0 {
            micros.max(u64::from(self.config.baseline_floor_micros))
        } else {
            micros
        }
    }

    /// The factor of a cut for a latency `latency` over `threshold`: `threshold / latency`,
    /// within `[deepest_cut, backoff]`.
    fn latency_cut(&self, threshold: u64, latency: u64) -> Ratio {
        let (deepest, backoff) = (self.config.deepest_cut, self.config.backoff);
        if deepest >= backoff {
            return backoff;
        }
        // threshold / latency in 16.16; both are below 2^47 µs in any sane use, and a larger
        // threshold only means a factor near 1, which the clamp turns into the backoff.
        let bits = threshold
            .checked_shl(16)
            .filter(|shifted| shifted >> 16 == threshold)
            .map_or(u64::MAX, |shifted| {
                crate::num::divide::div_u64(shifted, latency.max(1))
            });
        let bits = bits.clamp(u64::from(deepest.to_bits()), u64::from(backoff.to_bits()));
        Ratio::from_bits(bits as u32)
    }

    /// A cut by `factor` for `sample`'s signal `by`, if it is of the current epoch; `served`
    /// is the level the last whole round before the signal served at the baseline (0: none, or
    /// no probe; see `Probe::served`), for the knee of a cut by latency or a late refusal.
    // Out of line off microcontrollers: not on the common sample's path (see `on_sample`).
    #[cfg_attr(not(target_os = "none"), cold, inline(never))]
    fn cut(
        &mut self,
        sample: &Sample,
        elapsed: u64,
        factor: Ratio,
        by: CutBy,
        served: u32,
    ) -> Change {
        if sample.admission.epoch != self.epoch {
            return Change::Unchanged; // already answered this round trip
        }
        let whole = self.limit.whole();
        let mut limit = self.limit.shrink(factor);
        // Congestion was seen at the limit, or less if the limit was not in use (a noisy
        // sample at low load says nothing about the limit): the knee's evidence.
        let in_flight = sample.admission.in_flight;
        let mut seen = in_flight.min(whole);
        let refused = matches!(by, CutBy::Refusal | CutBy::LateRefusal { .. });
        // A cut by latency or by a late refusal seen at a level a whole round served at the
        // baseline: the knee is one above it (see `Probe`, rule 4).
        if PROBES > 0 && !matches!(by, CutBy::Refusal) && served > 0 && seen <= served {
            seen = seen.saturating_add(1);
        }
        if let Some(tally) = self.tally.first_mut() {
            // The round before this one kept `kept` calls: this cut goes at least that deep,
            // and a quick refusal's knee is at most one above it; not where a quick refusal
            // came at a level that round served (see `tally`).
            let quick = matches!(by, CutBy::Refusal);
            if let Some(kept) = tally.sizes(self.epoch, in_flight, quick) {
                if quick {
                    seen = seen.min(kept.saturating_add(1));
                }
                let kept = V::from_u32(kept.max(self.config.bounds.min));
                if kept.to_q16() < limit.to_q16() {
                    limit = kept;
                }
            }
            // A quick refusal seen at or above the knee: a try of it takes back what it tried,
            // down to the unit below the knee, not a whole backoff (see `Knee::tried_back`).
            if let Some(back) = self.knee.tried_back(seen).filter(|_| quick) {
                let back = V::from_u32(back);
                if back.to_q16() > limit.to_q16() && back.to_q16() < self.limit.to_q16() {
                    limit = back;
                }
            }
            let limit = limit
                .clamp_to(self.config.bounds.min, self.config.bounds.max)
                .whole();
            tally.open(self.epoch, limit, in_flight, refused);
        }
        let mut backoff = DwellBackoff::NONE;
        if let Some(probe) = self.probe.first_mut() {
            // A cut during a drain cuts the drained limit: the drain is over. A cut also puts
            // the next drain off: it has just lowered the limit.
            probe.stop_drain(elapsed);
            // A try that failed, the client's or another's (see `Probe`, rule 11).
            backoff = probe.back_off(whole, self.knee.at(), by);
            // Before the window is full, whether the latencies spread is judged once it holds
            // only samples taken after the cut (see `Probe`, rule 3).
            let early = matches!(by, CutBy::Latency { .. }) && !self.window.is_full();
            probe.judge_after(if early { Self::WINDOW } else { 0 });
        }
        // With the probe, a second cut below the knee, four rounds or more after the first,
        // lifts it one above the level held (see `knee`).
        if PROBES > 0 {
            // The long dwell lasts at least 32 round trips of the baseline (see `knee`).
            let round = self.aged_baseline(elapsed).unwrap_or(0);
            self.knee
                .cut_backing_off::<true>(seen, by, elapsed, backoff, round);
        } else {
            self.knee.cut_from::<false>(seen, by, elapsed);
        }
        self.decrease_to(limit, elapsed)
    }

    /// A new epoch: the samples admitted before it are stale, and a held round (see `Probe`,
    /// rule 10) starts over.
    fn new_epoch(&mut self) {
        self.epoch = Epoch(self.epoch.0.wrapping_add(1));
        self.probe.iter_mut().for_each(Probe::unheld);
    }

    /// A decrease to `limit` (within the bounds) at `elapsed`, a cut's or the fast start's end:
    /// a new epoch, counted, and growth held for the cooldown.
    fn decrease_to(&mut self, limit: V, elapsed: u64) -> Change {
        self.limit = limit.clamp_to(self.config.bounds.min, self.config.bounds.max);
        self.new_epoch();
        self.decreases = self.decreases.wrapping_add(1);
        self.hold_until = self
            .hold_until
            .max(elapsed.saturating_add(u64::from(self.config.cooldown_micros)));
        Change::Decreased
    }

    /// Counts a success judged `verdict` towards a whole round of fresh successes held above
    /// the band: at the end of one, where a doubled step is undone to, if one is (see `Probe`,
    /// rule 10).
    fn held_round(&mut self, sample: &Sample, verdict: Verdict) -> Option<u32> {
        let (whole, current) = (self.limit.whole(), sample.admission.epoch == self.epoch);
        let probe = self.probe.first_mut().filter(|_| current)?;
        if verdict == Verdict::Elevated {
            probe.held(whole)
        } else {
            probe.unheld();
            None
        }
    }

    /// A decrease to `limit` without a cut (no knee, no tally), under a new epoch: growth
    /// starts over at one step, from the limit before, and waits out the cooldown, as after a
    /// cut. A whole held round's undo of a doubled step (see `Probe`, rule 10) and the fast
    /// start's halving.
    // Out of line off microcontrollers: not on the common sample's path (see `on_sample`).
    #[cfg_attr(not(target_os = "none"), cold, inline(never))]
    fn decrease_uncut(&mut self, limit: V, elapsed: u64) -> Change {
        let whole = self.limit.whole();
        self.knee.restart(whole);
        if let Some(probe) = self.probe.first_mut() {
            probe.restart(whole, elapsed);
        }
        self.decrease_to(limit, elapsed)
    }

    /// Halves the limit, as a decrease without a cut: the fast start's end on a success held
    /// above the band (see `Probe`, rule 7). A drain under way is over.
    // Out of line off microcontrollers: not on the common sample's path (see `on_sample`).
    #[cfg_attr(not(target_os = "none"), cold, inline(never))]
    fn halve(&mut self, elapsed: u64, now: Instant) -> Change {
        if let Some(probe) = self.probe.first_mut() {
            probe.stop_drain(elapsed);
        }
        let change = self.decrease_uncut(self.limit.shrink(HALF), elapsed);
        self.at_floor
            .observe(self.limit.whole() <= self.config.bounds.min, now);
        change
    }

    /// The ceiling `sample`'s stated pace sets (see [`QuotaShare`], rule 1): `u32::MAX` for
    /// none.
    fn ceiling(&self, sample: &Sample) -> u32 {
        self.share
            .first()
            .and_then(|share| share.ceiling(sample.pace, sample.calls_left))
            .unwrap_or(u32::MAX)
    }

    /// `grown`, unless it passes `ceiling`: then the ceiling, or the limit as it is where that is
    /// at the ceiling already (an increase never lowers the limit).
    fn within(&self, grown: V, ceiling: u32) -> V {
        if grown.whole() <= ceiling {
            grown
        } else if ceiling > self.limit.whole() {
            V::from_u32(ceiling)
        } else {
            self.limit
        }
    }

    /// A limit above `sample`'s ceiling (at least the floor) is lowered to it, on a sample of
    /// the current epoch (once per round trip), as a decrease without a cut: no knee, no tally,
    /// growth held for the cooldown. Not on an ignored sample. (No increase passes the
    /// ceiling, so the limit was above it before the sample.)
    fn lower_to_ceiling(&mut self, sample: &Sample, elapsed: u64) -> Option<Change> {
        if sample.pace == 0
            || sample.outcome == Outcome::Ignore
            || sample.admission.epoch != self.epoch
        {
            return None; // no pace (the common case: one comparison), or not to act on
        }
        let (ceiling, whole) = (self.ceiling(sample), self.limit.whole());
        if ceiling.max(self.config.bounds.min) >= whole {
            return None;
        }
        self.share.first_mut()?.lowered(whole);
        Some(self.decrease_to(V::from_u32(ceiling), elapsed))
    }

    /// Counts `sample` where the probe keeps counts: in the tally of the last cut round, and
    /// the calls left it states, for the client's share of a quota. An ignored answer's count
    /// too: a client error spends the provider's quota as any call does (most providers count
    /// it), and left out it would read the share low by the client's share of errors; it moves
    /// nothing by itself (see `lower_to_ceiling`).
    fn count(&mut self, sample: &Sample) {
        if let Some(tally) = self.tally.first_mut() {
            let admission = &sample.admission;
            tally.sample(
                admission.epoch,
                self.epoch,
                admission.in_flight,
                sample.outcome,
            );
        }
        if sample.calls_left != 0 {
            if let Some(share) = self.share.first_mut() {
                share.observe(sample.calls_left);
            }
        }
    }

    /// Whether the baseline is remembered (a [`LatencySignal::Baseline`] with memory): only
    /// then do drains and low rounds have a remembered baseline to correct.
    const fn remembers(&self) -> bool {
        self.remembers
    }

    /// Whether a drain is under way.
    fn draining(&self) -> bool {
        self.probe.first().is_some_and(Probe::draining)
    }

    /// Shows a success to the probe: it may put the next drain off, or find a whole round below
    /// the band, whose slowest latency becomes a remembered baseline; the limit (and the one a
    /// drain under way returns to) is then scaled by the new baseline over the old one, if the
    /// sample is `fresh` (of the current epoch), under a new epoch, as every decrease. Returns
    /// whether the limit was so decreased.
    ///
    /// Why the rescale: a remembered baseline that a whole round of calls has just shown to be
    /// `old / new` times too high (learned on a queue that others kept, as a client that joins
    /// a busy dependency learns it) made every latency look that many times lower, and let the
    /// limit grow into a queue the true baseline would have stopped it short of; scaled by
    /// `new / old`, the limit is where the same latencies would have held it. The new baseline
    /// is the slowest call of the round, so the factor is the smallest the round supports, and
    /// at most 10/11. Without it the corrected baseline only holds growth, and the joiner keeps
    /// what it took: the simulator's late-joiner-10 (seeds 1 / 2) 1.37 / 1.26 times its fair
    /// share 2 s after joining, 1.41 / 1.23 at 5 s; with it 1.20 / 0.91 and 1.20 / 1.04, and
    /// late-joiner-100 (seeds 1 / 3) from 1.19 / 1.22 and 1.28 / 1.30 to 0.89 / 0.91 and
    /// 0.99 / 1.01, fair (within ±20 %) from 1.7 s on; no other scenario's row moved. (The round
    /// is counted from the limit when its run began: see rule 6 in the module `probe`, and the
    /// other seeds there.) A
    /// dependency that became faster after a whole memory of slow calls (a baseline of 300 ms
    /// remembered, then calls of 100 ms) has its limit scaled the same way, once, by what the
    /// calls became faster: the same concurrency would now send three times the calls a second,
    /// and growth above the knee resumes from there.
    fn watch_baseline(
        &mut self,
        latency: u64,
        baseline: Option<u32>,
        elapsed: u64,
        fresh: bool,
    ) -> bool {
        let (true, Some(baseline)) = (self.remembers(), baseline) else {
            return false;
        };
        let whole = self.limit.whole();
        let Some(probe) = self.probe.first_mut() else {
            return false;
        };
        // Below the baseline floor latencies are compared with the floor (see `judge`): a
        // baseline there moves no threshold, and what a round of calls under it shows is the
        // clock's resolution, not a queue (no low round counts there); a new baseline under the
        // floor moves the thresholds down to the floor only.
        let floor = self.config.baseline_floor_micros;
        let Some(low) = probe.success(latency, baseline, floor, whole, elapsed) else {
            return false;
        };
        let low = low.max(u64::from(floor)); // floored: see `floored`
        self.low_medians.push(Instant::from_micros(elapsed), low);
        if !fresh {
            return false; // a stale sample never decreases the limit
        }
        // low / baseline in 16.16, below 1: every call of the round was under 10/11 of it.
        let bits = crate::num::divide::div_u64(low << 16, u64::from(baseline));
        let factor = Ratio::from_bits(u32::try_from(bits).unwrap_or(u32::MAX).min(65_535));
        probe.scale_saved(factor);
        let scaled = self
            .limit
            .shrink(factor)
            .clamp_to(self.config.bounds.min, self.config.bounds.max);
        if scaled.to_q16() >= self.limit.to_q16() {
            return false; // at the floor already
        }
        // The level it stood at was on a queue: a knee found by latency (see `Probe`, rule 6).
        let round = u32::try_from(low).unwrap_or(u32::MAX);
        self.knee.cut_backing_off::<true>(
            whole,
            CutBy::Latency { doublings: 0 },
            elapsed,
            DwellBackoff::NONE,
            round,
        );
        // A queue, not noise: whatever the window's spread, the knee dwells.
        if let Some(probe) = self.probe.first_mut() {
            probe.judge_after(0);
        }
        self.limit = scaled;
        self.new_epoch();
        true
    }

    /// The drain, on a sample that moved nothing else: counts the samples admitted during one,
    /// ends it after its round (back to the limit before it), or starts one when it is due:
    /// half the limit, under a new epoch, for one round. Only on a success of the current epoch,
    /// so a drain is never started or ended by an ignored or stale sample.
    fn drain(&mut self, sample: &Sample, elapsed: u64) -> Change {
        // Neither under way nor due (the common sample): nothing else to look at.
        if !self
            .probe
            .first()
            .is_some_and(|probe| probe.draining() || probe.drain_due(elapsed))
        {
            return Change::Unchanged;
        }
        let fresh = sample.admission.epoch == self.epoch;
        let trusted = self.remembers() && self.window.len() >= self.min_samples();
        let (whole, min, max) = (
            self.limit.whole(),
            self.config.bounds.min,
            self.config.bounds.max,
        );
        let Some(probe) = self.probe.first_mut() else {
            return Change::Unchanged;
        };
        if !fresh || sample.outcome != Outcome::Success || !trusted {
            return Change::Unchanged;
        }
        if probe.draining() {
            probe.drained();
            let Some(saved) = probe.finish_drain(elapsed) else {
                return Change::Unchanged;
            };
            let restored = V::from_u32(saved.min(self.ceiling(sample))).clamp_to(min, max);
            if restored.to_q16() <= self.limit.to_q16() {
                return Change::Unchanged;
            }
            self.limit = restored;
            return Change::Increased;
        }
        if !probe.drain_due(elapsed) {
            return Change::Unchanged;
        }
        let drained = (whole / 2).max(min);
        if drained >= whole {
            probe.stop_drain(elapsed); // at the floor already: nothing to drain
            return Change::Unchanged;
        }
        probe.start_drain(whole, drained);
        self.limit = V::from_u32(drained).clamp_to(min, max);
        self.new_epoch();
        Change::Decreased
    }

    /// Whether the congested successes among the last ones are enough to cut, and if so what
    /// the cut is by: two of the last four, or five of the last eight where the healthy
    /// latencies spread widely (the full window's upper quartile over 1.5 times its lowest
    /// eighth, or 1.25 times if the last cut already found it spread; the knee takes such a
    /// cut for noise as often as for congestion). See the type's documentation.
    fn confirmed(&mut self) -> Option<CutBy> {
        if Self::COUNTED {
            self.window.settle(); // for its spread
        }
        let floor = self.config.baseline_floor_micros;
        let (recent, needed, by) = if self.window.spreads(floor, self.knee.spread()) {
            (self.slow_recent, 5, CutBy::SpreadLatency)
        } else {
            (
                self.slow_recent & 0b1111,
                2,
                CutBy::Latency { doublings: 0 },
            )
        };
        (recent.count_ones() >= needed).then_some(by)
    }

    /// What a congested success of `latency` over `threshold` does: a cut if enough of the
    /// last ones were congested too (see [`confirmed`](Self::confirmed)), whose knee, with the
    /// probe, dwells as long as the slow success says (see `knee::doublings`); a hold otherwise.
    fn congested(&mut self, threshold: u64, latency: u64) -> Step {
        match self.confirmed() {
            Some(CutBy::Latency { .. }) if PROBES > 0 => Step::Cut(
                threshold,
                latency,
                CutBy::Latency {
                    doublings: doublings(threshold, latency),
                },
            ),
            Some(by) => Step::Cut(threshold, latency, by),
            None => Step::Hold,
        }
    }

    /// The `min_samples` of a [`LatencySignal::Baseline`] (1 otherwise).
    const fn min_samples(&self) -> usize {
        match self.config.signal {
            LatencySignal::Baseline { min_samples, .. } => min_samples as usize,
            _ => 1,
        }
    }

    fn grow(&mut self, sample: &Sample, elapsed: u64) -> Change {
        if elapsed < self.hold_until {
            return Change::Unchanged;
        }
        // The documented fraction of the limit, exactly: 0.9 of 2 needs 2 in flight, 0.8 of 10
        // needs 8. The whole limit in flight needs no product: the fraction is at most 1.
        let whole = self.limit.whole();
        let in_flight = sample.admission.in_flight;
        if in_flight < whole && in_flight < self.needed_in_flight(whole) {
            return Change::Unchanged;
        }
        let knee = self.knee.at();
        // At or above the knee, once a round there was served: straight back to the unit
        // below the level served before a quota fell (see `Knee::return_to`, which may end
        // the return here).
        let mut back_to = 0;
        if PROBES > 0 {
            let served = self.probe.first().is_some_and(Probe::followed);
            back_to = self.knee.return_to(whole, served);
        }
        // At the ceiling, no step moves the limit: it is the ceiling exactly (every change is
        // clamped to it), and so is the grown limit once clamped. The step is not worked out
        // there, unless it decides whether the limit passed the knee (`Probe::grown_to`): at
        // the ceiling it has, whatever the step, once the ceiling is above the knee. A healthy
        // dependency with enough demand keeps the limit at its ceiling, and so does a limit
        // bounded to one level: the bench crate's contended runs bound AIMD to `[8, 8]`, where
        // the step was about 105 of a sample's 416 instructions (`valgrind --tool=callgrind` on
        // its `cycle contended-local-aimd`: 2,261 instructions per acquisition, 2,156 without).
        // Not on microcontrollers, where the test cost 80 bytes of the M0's flash budget.
        let at_ceiling = !cfg!(target_os = "none")
            && whole >= self.config.bounds.max
            && (whole > knee || self.knee.lowered());
        // The step is worked out before the round's count (its end may change the probe's
        // shift) and applied after it: of the shapes that keep that order, the one with the
        // smallest M0 image (5,092 bytes; 5,120 with the grown limit worked out here).
        let step = if at_ceiling {
            None
        } else {
            let (step, pace) = self.step(sample, whole, knee, elapsed);
            back_to = back_to.max(pace);
            Some(step)
        };
        if self.knee.count(whole) {
            if let Some(probe) = self.probe.first_mut() {
                probe.round_end(whole, elapsed, knee);
            }
        }
        let grown = match step {
            Some(step) => {
                let mut grown = self.limit.grow(step);
                if back_to > grown.whole() {
                    grown = V::from_u32(back_to);
                }
                grown
            }
            None => self.limit,
        };
        if let Some(probe) = self.probe.first_mut() {
            // Past the knee: its tries are forgotten (see `Probe`, rule 11).
            probe.grown_to(grown.whole(), knee, self.knee.lowered());
        }
        if at_ceiling {
            return Change::Unchanged;
        }
        let grown = self
            .within(grown, self.ceiling(sample))
            .clamp_to(self.config.bounds.min, self.config.bounds.max);
        if grown == self.limit {
            return Change::Unchanged; // at the ceiling
        }
        self.limit = grown;
        self.increases = self.increases.wrapping_add(1);
        Change::Increased
    }

    /// The calls in flight a growth sample needs at the whole limit `whole`: the growth
    /// utilisation of it, rounded up. With the probe, worked out once per whole limit: the
    /// limit's whole part changes far less often than a sample comes, and the product with its
    /// snapping took 13 instructions of a sample that does not grow (`valgrind
    /// --tool=callgrind` on the bench crate's `cycle` example: 618.7 per cycle, 605.7 with the
    /// product kept).
    fn needed_in_flight(&mut self, whole: u32) -> u32 {
        if let Some(&(at, needed)) = self.needed.first() {
            if u32::from(at) == whole {
                return u32::from(needed);
            }
        }
        let needed = self.config.growth_utilisation.mul_whole_ceil(whole);
        // At most the limit (the fraction is at most 1): both fit where the limit does.
        if let (Some(kept), Ok(at), Ok(n)) = (
            self.needed.first_mut(),
            u16::try_from(whole),
            u16::try_from(needed),
        ) {
            *kept = (at, n);
        }
        needed
    }

    /// The step of a growth sample at `whole` with the knee at `knee`, and the level a stated
    /// pace takes the limit straight to (0: none).
    // Out of line off microcontrollers: the common sample does not grow, and without this
    // inlined `on_sample` saves fewer registers (the uncontended cycle of the bench crate's
    // `cycle` example: 637.7 instructions, 640.7 with it inlined; 636.7 before the ceiling's
    // test).
    #[cfg_attr(not(target_os = "none"), inline(never))]
    fn step(&self, sample: &Sample, whole: u32, knee: u32, elapsed: u64) -> (Ratio, u32) {
        let shift = self
            .probe
            .first()
            .map_or(0, |probe| probe.shift(whole, knee));
        // At most 64 whole steps: the shift of a large limit cannot overflow in 64 bits.
        let slow = if PROBES > 0 {
            self.knee.slow::<true>(whole, elapsed)
        } else {
            self.knee.slow::<false>(whole, elapsed)
        };
        let mut bits = (u64::from(self.config.step.to_bits()) << shift) >> slow;
        let mut pace = 0;
        if PROBES > 0 {
            // Below a knee found by a quick refusal: a step of the whole way back to the unit
            // below it (see `Knee::quick_gap`).
            bits = bits.max(u64::from(self.knee.quick_gap(whole)) << 16);
            // The fast start: a whole unit per growth sample (see `Probe`, rule 7).
            if self.probe.first().is_some_and(Probe::starting) {
                bits = bits.max(u64::from(whole) << 16);
            }
            // A pace the dependency stated: straight to it, up to the unit below the last knee
            // (see `Probe`, rule 8).
            // A client's part of it, where others spend the same quota (see `QuotaShare`).
            let stated = self
                .share
                .first()
                .map_or(0, |share| share.jump(sample.pace, sample.calls_left));
            pace = stated_pace(stated, knee);
        }
        let step = Ratio::from_bits(bits.min(u64::from(MAX_STEP.to_bits())) as u32);
        (step, pace)
    }
}

impl<V: LimitValue, const N: usize, const PROBES: usize> Controller for Aimd<V, N, PROBES> {
    fn limit(&self) -> u32 {
        self.limit.whole()
    }

    fn epoch(&self) -> Epoch {
        self.epoch
    }

    // The common sample (a fast success of the current epoch) runs without a call: the small
    // helpers it needs from other modules are inlined (off microcontrollers, where a firmware's
    // LTO decides), and the paths of a cut, a halving and a decrease are out of line. The whole
    // cycle of a permit, `valgrind --tool=callgrind` on the bench crate's `cycle` example: 697
    // instructions with every helper a call, 657 inlined (the floor: 363), 651 with whether the
    // baseline is remembered kept in a flag instead of matched in the configuration, 636 with a
    // latency under the baseline judged fast before the thresholds are worked out, and 606 with
    // the drain's checks skipped where none is under way or due and the calls growth needs kept
    // per whole limit (see `drain` and `needed_in_flight`). The cycle's time did not follow the
    // last 32 (see the README's performance section: the clock's latency and the chain through
    // the sample to the gate's release make it).
    fn on_sample(&mut self, sample: &Sample) -> Change {
        let elapsed = self.observe(sample.completed_at);
        self.count(sample);
        // A congestion signal is a fraction `(part, whole)` the limit is cut to, within
        // [deepest_cut, backoff]: for a latency over the threshold (a success's, or with the
        // probe a refusal's), threshold over latency; a quick overload is a share of 1, which is
        // the backoff.
        let latency = sample.latency_micros();
        // Whether a corrected baseline scaled the limit down (see `watch_baseline`).
        let mut rescaled = false;
        let step = match sample.outcome {
            Outcome::Ignore => Step::Hold,
            Outcome::Overload => match self.slow_refusal(latency, elapsed) {
                Some(threshold) => Step::Cut(
                    threshold,
                    latency,
                    CutBy::LateRefusal {
                        doublings: doublings(threshold, latency),
                    },
                ),
                None => Step::Cut(1, 1, CutBy::Refusal),
            },
            Outcome::Success => {
                let mono = Instant::from_micros(elapsed);
                let baseline = self.aged_baseline(elapsed);
                let verdict = self.judge(latency, baseline, false);
                let fresh = sample.admission.epoch == self.epoch;
                rescaled = self.watch_baseline(latency, baseline, elapsed, fresh);
                // The baseline learns from healthy samples only, or it would absorb the very
                // queueing it is meant to detect (a sustained overload would look normal within
                // half a window). A latency that stays high even at the floor is not our queue:
                // it is the dependency's new normal, and it is learned. Not while a drain holds
                // the limit there for a round: its calls were admitted on the queue it drains.
                let congested = matches!(verdict, Verdict::Congested { .. });
                let at_floor = self.limit.whole() <= self.config.bounds.min && !self.draining();
                // At the floor, a slow sample also forgets the remembered low medians, which
                // would otherwise hold the baseline below the new normal for the whole memory.
                if at_floor && verdict != Verdict::Fast {
                    self.low_medians.clear();
                }
                if !congested || at_floor {
                    match self.below_mark.first_mut().filter(|_| Self::COUNTED) {
                        Some(count) => self.window.push_counted(latency, count),
                        None => self.window.push(latency),
                    }
                    self.judge_spread();
                    self.remember_median(mono);
                }
                // Two congested successes among the last four cut (five of eight on a widely
                // spread dependency); one alone holds (see the type's docs).
                self.slow_recent = self.slow_recent << 1 | u8::from(congested);
                if PROBES > 0 && congested {
                    // The round under way was not served at the baseline (see `Probe::served`).
                    self.probe.iter_mut().for_each(Probe::congested);
                }
                let undo = self.held_round(sample, verdict);
                match verdict {
                    Verdict::Congested { threshold } => self.congested(threshold, latency),
                    Verdict::Elevated => undo.map_or(Step::Hold, Step::Undo),
                    Verdict::Fast => Step::Grow,
                }
            }
        };
        if rescaled {
            // A fast sample that rescaled the limit does nothing else: no growth, no drain.
            self.at_floor.observe(
                self.limit.whole() <= self.config.bounds.min,
                sample.completed_at,
            );
            return Change::Decreased;
        }
        // The first sign of congestion (a cut, or a success held above the growth band) ends
        // the fast start, and undoes its last doubling (see `Probe`, rule 7).
        let first_sign = !matches!(step, Step::Grow)
            && sample.outcome != Outcome::Ignore
            && self.probe.first_mut().is_some_and(Probe::end_start);
        if first_sign && matches!(step, Step::Hold) && sample.admission.epoch == self.epoch {
            return self.halve(elapsed, sample.completed_at);
        }
        // Growth speeds up only between congestion signals: one (even one already answered)
        // starts over at one step. A sample in the hold band only does not count: on a noisy
        // dependency a share of healthy samples always lands there.
        let restart = matches!(step, Step::Cut(..));
        // The level the last whole round served, read before the restart forgets it.
        let served = self.probe.first().map_or(0, Probe::served);
        if restart {
            self.knee.restart(self.limit.whole());
            if let Some(probe) = self.probe.first_mut() {
                probe.restart(self.limit.whole(), elapsed);
            }
        }
        let change = match step {
            // The factor is a division: not worked out for a round trip already answered,
            // which `cut` would ignore.
            Step::Cut(part, whole, by) if sample.admission.epoch == self.epoch => {
                let mut factor = self.latency_cut(part, whole);
                if first_sign && factor.to_bits() > HALF.to_bits() {
                    factor = HALF; // the fast start's last doubling undone, at least
                }
                self.cut(sample, elapsed, factor, by, served)
            }
            // A late refusal of a round trip already answered: what a try of the knee costs
            // (see `Knee::lengthen`).
            Step::Cut(_, _, CutBy::LateRefusal { doublings }) if PROBES > 0 => {
                let round = self.aged_baseline(elapsed).unwrap_or(0);
                self.knee.lengthen(doublings, elapsed, round);
                Change::Unchanged
            }
            Step::Cut(..) => Change::Unchanged,
            // Back to where a doubled step began (see `Probe`, rule 10).
            Step::Undo(to) => self.decrease_uncut(V::from_u32(to), elapsed),
            // A sample that would grow or hold may start or end a drain instead.
            Step::Grow | Step::Hold => match self.drain(sample, elapsed) {
                Change::Unchanged if matches!(step, Step::Grow) && !self.draining() => {
                    self.grow(sample, elapsed)
                }
                drained => drained,
            },
        };
        let change = self.lower_to_ceiling(sample, elapsed).unwrap_or(change);
        self.at_floor.observe(
            self.limit.whole() <= self.config.bounds.min,
            sample.completed_at,
        );
        change
    }

    fn hold_growth_until(&mut self, now: Instant, until: Instant) {
        let elapsed = self.observe(now);
        let hold = elapsed.saturating_add(until.micros_since(now).min(MAX_TIME_STEP_MICROS));
        self.hold_until = self.hold_until.max(hold);
    }

    fn stats(&self) -> ControllerStats {
        ControllerStats {
            limit: self.limit(),
            min: self.config.bounds.min,
            max: self.config.bounds.max,
            baseline_micros: self.baseline_micros(),
            increases: self.increases,
            decreases: self.decreases,
            at_floor_since: self.at_floor.since(),
        }
    }
}

/// The level a stated pace takes the limit to (rule 8 of the growth probe): the pace, up to the
/// unit below the last knee (`knee`, 0: none); 0 for no pace.
const fn stated_pace(pace: u32, knee: u32) -> u32 {
    if knee > 0 && pace >= knee {
        knee - 1
    } else {
        pace
    }
}
