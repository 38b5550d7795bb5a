//! Vegas: a queue estimate from the no-load round-trip time.
//!
//! After TCP Vegas (Brakmo & Peterson, 1995) as Netflix's concurrency-limits adapts it: with the
//! no-load latency `rtt₀` known, a request that took `rtt` saw about `limit × (1 − rtt₀/rtt)`
//! requests queued ahead of it. Few queued: grow; many: shrink; in between: hold. Thresholds and
//! steps scale with `log10(limit)`, so a large limit moves in proportionally larger steps.

use core::time::Duration;

use super::level::{Bounds, DEFAULT_BACKOFF, Level, assert_valid, bounds_builders, is_fraction};
use super::{Change, Controller, ControllerStats, Epoch, LimitValue, Q32, Sample};
use crate::config::ConfigError;
use crate::controller::window::WindowedMin;
use crate::num::ratio::Ratio;
use crate::signal::outcome::Outcome;
use crate::time::clock::Instant;
use crate::time::clock::duration_to_micros;
use crate::time::timeline::Timeline;

/// Configuration of a [`Vegas`] controller.
///
/// Defaults: initial 4 within `[1, 64]`; queue thresholds `alpha = 3`, `beta = 6` (times
/// `max(1, ⌊log10 limit⌋)`); the no-load latency is the minimum of the last 10–20 s; an overload
/// (timeout, 429…) cuts by 0.8, at most once per round trip.
///
/// # Examples
///
/// ```
/// use limiter_core::{ConfigError, Vegas, VegasConfig};
///
/// assert!(Vegas::new(VegasConfig::default().initial(10).bounds(2, 100)).is_ok());
/// assert_eq!(
///     Vegas::new(VegasConfig::default().alpha(7).beta(6)).unwrap_err(),
///     ConfigError::ThresholdsOutOfOrder
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct VegasConfig {
    bounds: Bounds,
    alpha: u32,
    beta: u32,
    backoff: Ratio,
    probe_micros: u64,
}

impl Default for VegasConfig {
    fn default() -> Self {
        VegasConfig::DEFAULT
    }
}

impl VegasConfig {
    /// The defaults (see the type's documentation), for `const` code; the same as
    /// [`VegasConfig::default`].
    pub const DEFAULT: VegasConfig = VegasConfig {
        bounds: Bounds::DEFAULT,
        alpha: 3,
        beta: 6,
        backoff: DEFAULT_BACKOFF,
        probe_micros: 10_000_000,
    };

    bounds_builders!();

    /// Grow while fewer than `alpha × max(1, ⌊log10 limit⌋)` requests are estimated queued.
    pub const fn alpha(mut self, alpha: u32) -> Self {
        self.alpha = alpha;
        self
    }

    /// Shrink once more than `beta × max(1, ⌊log10 limit⌋)` are estimated queued.
    pub const fn beta(mut self, beta: u32) -> Self {
        self.beta = beta;
        self
    }

    /// The multiplicative cut on an overload outcome, strictly between 0 and 1.
    pub const fn backoff(mut self, backoff: Ratio) -> Self {
        self.backoff = backoff;
        self
    }

    /// How long a no-load latency is remembered (between one and two of these periods), so that
    /// it follows a dependency that became slower for good.
    pub const fn probe_period(mut self, period: Duration) -> Self {
        self.probe_micros = duration_to_micros(period);
        self
    }

    /// Checks the configuration: what [`Vegas::new`] refuses.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if let Err(e) = self.bounds.validate() {
            return Err(e);
        }
        if !is_fraction(self.backoff) {
            return Err(ConfigError::BackoffOutOfRange);
        }
        if self.alpha == 0 || self.alpha >= self.beta {
            return Err(ConfigError::ThresholdsOutOfOrder);
        }
        if self.probe_micros == 0 {
            return Err(ConfigError::ProbePeriodIsZero);
        }
        Ok(())
    }
}

/// The Vegas controller. Integer state only ([`Q32`]): it runs on a Cortex-M0 without
/// soft-float.
///
/// - Each healthy sample estimates the queue `limit × (1 − rtt₀/rtt)`, with `rtt₀` the minimum
///   latency of the last one to two probe periods. With `s = max(1, ⌊log10 limit⌋)`, per round
///   trip (each sample moves the limit by `1/limit` of the step, as TCP Vegas adjusts once per
///   round trip): nothing queued grows the limit by `2s` (to find capacity quickly), fewer than
///   `alpha × s` queued grows it by `s`, more than `beta × s` shrinks it by `s`, and in between
///   it holds.
/// - Growth only while the limit is used (in-flight at admission at least half the limit).
/// - An overload outcome cuts by `backoff`, at most once per round trip (see [`Epoch`]).
/// - Client errors and cancellations change nothing.
///
/// # Examples
///
/// ```
/// use limiter_core::{Admission, Controller, Instant, Outcome, Sample, Vegas, VegasConfig};
///
/// let mut vegas = Vegas::new(VegasConfig::default().initial(10).bounds(1, 100)).unwrap();
/// let at = Instant::from_millis(0);
/// // A round trip of samples at the no-load latency (nothing queued) grows it by about 2.
/// for _ in 0..10 {
///     let s = Sample::new(Admission::new(&vegas, at, 10), Instant::from_millis(10), Outcome::Success);
///     vegas.on_sample(&s);
/// }
/// assert_eq!(vegas.limit(), 11); // 11.8…
/// ```
#[derive(Clone, Debug)]
pub struct Vegas {
    config: VegasConfig,
    limit: Level,
    no_load: WindowedMin,
    timeline: Timeline,
}

/// `max(1, ⌊log10 n⌋)`: the step and threshold unit of Vegas.
const fn log10_unit(n: u32) -> u32 {
    if n < 100 { 1 } else { n.ilog10() }
}

impl Vegas {
    /// A controller with a validated configuration.
    pub fn new(config: VegasConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::assemble(config))
    }

    /// [`Vegas::new`] for `const` code: panics on an invalid configuration, which in a
    /// `static` or `const` initializer stops the build.
    ///
    /// ```
    /// use limiter_core::{Controller, Vegas, VegasConfig};
    ///
    /// static VEGAS: Vegas = Vegas::new_const(VegasConfig::DEFAULT.initial(8));
    /// assert_eq!(VEGAS.limit(), 8);
    /// ```
    pub const fn new_const(config: VegasConfig) -> Self {
        assert_valid(config.validate());
        Self::assemble(config)
    }

    const fn assemble(config: VegasConfig) -> Self {
        Vegas {
            config,
            limit: Level::new(config.bounds),
            no_load: WindowedMin::new(Duration::from_micros(config.probe_micros)),
            timeline: Timeline::new(),
        }
    }

    /// The fractional limit.
    pub const fn limit_value(&self) -> Q32 {
        self.limit.value()
    }

    /// `step / limit`: one sample's share of a per-round-trip step.
    fn per_sample(&self, step: u32) -> u64 {
        let step = Ratio::from_int(u16::try_from(step).unwrap_or(u16::MAX));
        let limit = self.limit.value();
        limit.grow(step).0 - limit.0
    }

    fn on_latency(&mut self, sample: &Sample) -> Change {
        let rtt = sample.latency_micros().max(1);
        // The minimum ages on monotonic time, so a misbehaving clock cannot keep it stale.
        let now = Instant::from_micros(self.timeline.observe(sample.completed_at));
        self.no_load.push(now, rtt);
        let rtt0 = u64::from(self.no_load.get().unwrap_or(u32::MAX)).clamp(1, rtt);
        let limit = self.limit.whole();
        let unit = log10_unit(limit);
        // queue = limit × (1 − rtt0 / rtt), in integers: limit × (rtt − rtt0) / rtt.
        let queue = (u128::from(limit) * u128::from(rtt - rtt0) / u128::from(rtt)) as u64;
        let (alpha, beta) = (
            u64::from(self.config.alpha) * u64::from(unit),
            u64::from(self.config.beta) * u64::from(unit),
        );
        if queue > beta {
            let down = self.per_sample(unit);
            return self
                .limit
                .set(Q32(self.limit.value().0.saturating_sub(down)));
        }
        if u64::from(sample.admission.in_flight) * 2 < u64::from(limit) {
            return Change::Unchanged; // the limit is not in use: nothing to learn
        }
        let step = match queue {
            0 => 2 * unit,
            q if q < alpha => unit,
            _ => return Change::Unchanged,
        };
        let up = self.per_sample(step);
        self.limit.set(Q32(self.limit.value().0.saturating_add(up)))
    }
}

impl Controller for Vegas {
    fn limit(&self) -> u32 {
        self.limit.whole()
    }

    fn epoch(&self) -> Epoch {
        self.limit.epoch()
    }

    fn on_sample(&mut self, sample: &Sample) -> Change {
        let change = match sample.outcome {
            Outcome::Ignore => Change::Unchanged,
            Outcome::Overload => self.limit.overload(sample, self.config.backoff),
            Outcome::Success => self.on_latency(sample),
        };
        self.limit.observe_floor(sample.completed_at);
        change
    }

    fn stats(&self) -> ControllerStats {
        self.limit.stats(self.no_load.get())
    }
}
