//! Gradient2: the limit follows the ratio of a long-run latency average to the latest latency.
//!
//! After Netflix concurrency-limits' `Gradient2Limit`: with `long` an exponential average of
//! latency over about 600 samples and `rtt` the latest one,
//! `gradient = clamp(tolerance × long / rtt, 0.5, 1)` and the limit moves towards
//! `limit × gradient + √limit` (the square root is a queue allowance that keeps probing), by
//! `smoothing` of the distance per round trip.
//!
//! Four guards the original lacks:
//! - **Per round trip, not per sample.** The original moves `smoothing` of the distance on every
//!   sample, so at hundreds of samples per round trip it outruns any cut; here each sample moves
//!   `1/limit` of that.
//! - **Overload cuts.** A timeout or 429 cuts by `backoff`, once per round trip (the original
//!   ignores drops altogether).
//! - **No growth while congested.** When the gradient is below 1, the queue allowance may not
//!   lift the target above the current limit: with small limits `√limit` outweighs the gradient
//!   (at 16 and a gradient of 0.8: 12.8 + 4 > 16), and the original drifts upward under load.
//! - **No baseline inflation.** The long average learns only from latencies within `tolerance` of
//!   it, so sustained queueing cannot become the norm; when the latest latency is less than half
//!   the long average (load has passed), the long average decays by 5 % per sample towards it.

use super::arith::{LimitValue, Q32};
use super::level::{Bounds, DEFAULT_BACKOFF, Level, assert_valid, bounds_builders, is_fraction};
use super::{Change, Controller, ControllerStats, Epoch, Sample};
use crate::config::ConfigError;
use crate::num::ratio::Ratio;
use crate::signal::outcome::Outcome;

/// Configuration of a [`Gradient2`] controller.
///
/// Defaults (Netflix's, plus the guards): initial 4 within `[1, 64]`, `tolerance = 1.5`,
/// `smoothing = 0.2`, a long window of 600 samples (10 of warm-up), and a cut of 0.8 on overload.
///
/// # Examples
///
/// ```
/// use limiter_core::{ConfigError, Gradient2, GradientConfig, Ratio};
///
/// assert!(Gradient2::new(GradientConfig::default().bounds(1, 200)).is_ok());
/// let bad = GradientConfig::default().tolerance(Ratio::from_fraction(1, 2).unwrap());
/// assert_eq!(Gradient2::new(bad).unwrap_err(), ConfigError::ToleranceBelowOne);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct GradientConfig {
    bounds: Bounds,
    tolerance: Ratio,
    smoothing: Ratio,
    long_window: u32,
    backoff: Ratio,
}

impl Default for GradientConfig {
    fn default() -> Self {
        GradientConfig::DEFAULT
    }
}

impl GradientConfig {
    /// The defaults (see the type's documentation), for `const` code; the same as
    /// [`GradientConfig::default`].
    pub const DEFAULT: GradientConfig = GradientConfig {
        bounds: Bounds::DEFAULT,
        tolerance: Ratio::from_bits(98_304), // 1.5
        smoothing: Ratio::from_bits(13_108), // 0.2
        long_window: 600,
        backoff: DEFAULT_BACKOFF,
    };

    bounds_builders!();

    /// How much slower than the long average a latency may be before the gradient drops below 1
    /// (at least 1).
    pub const fn tolerance(mut self, tolerance: Ratio) -> Self {
        self.tolerance = tolerance;
        self
    }

    /// The share of the distance to the target covered per sample, above 0 and at most 1.
    pub const fn smoothing(mut self, smoothing: Ratio) -> Self {
        self.smoothing = smoothing;
        self
    }

    /// Samples the long average spans (at least 10).
    pub const fn long_window(mut self, samples: u32) -> Self {
        self.long_window = samples;
        self
    }

    /// The cut on an overload outcome, strictly between 0 and 1.
    pub const fn backoff(mut self, backoff: Ratio) -> Self {
        self.backoff = backoff;
        self
    }

    /// Checks the configuration: what [`Gradient2::new`] refuses.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if let Err(e) = self.bounds.validate() {
            return Err(e);
        }
        if !is_fraction(self.backoff) {
            return Err(ConfigError::BackoffOutOfRange);
        }
        if self.tolerance.to_bits() < Ratio::ONE.to_bits() {
            return Err(ConfigError::ToleranceBelowOne);
        }
        if self.smoothing.to_bits() == 0 || self.smoothing.to_bits() > Ratio::ONE.to_bits() {
            return Err(ConfigError::SmoothingOutOfRange);
        }
        if self.long_window < 10 {
            return Err(ConfigError::LongWindowTooShort);
        }
        Ok(())
    }
}

/// The Gradient2 controller, with its guards. Integer state only ([`Q32`] limit, latencies in
/// 1/65536 µs).
///
/// # Examples
///
/// ```
/// use limiter_core::{Admission, Controller, Gradient2, GradientConfig, Instant, Outcome, Sample};
///
/// let mut g = Gradient2::new(GradientConfig::default().initial(16).bounds(1, 100)).unwrap();
/// for i in 0..200 {
///     let a = Admission::new(&g, Instant::from_millis(i), g.limit());
///     g.on_sample(&Sample::new(a, Instant::from_millis(i + 10), Outcome::Success));
/// }
/// assert!(g.limit() > 16); // steady latency: the queue allowance keeps probing upwards
/// ```
#[derive(Clone, Debug)]
pub struct Gradient2 {
    config: GradientConfig,
    limit: Level,
    /// Long-run latency average in 1/65536 µs; 0 before the first sample.
    long: u64,
    samples: u32,
}

impl Gradient2 {
    /// A controller with a validated configuration.
    pub fn new(config: GradientConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::assemble(config))
    }

    /// [`Gradient2::new`] for `const` code: panics on an invalid configuration, which in a
    /// `static` or `const` initializer stops the build.
    ///
    /// ```
    /// use limiter_core::{Controller, Gradient2, GradientConfig};
    ///
    /// static GRADIENT: Gradient2 = Gradient2::new_const(GradientConfig::DEFAULT.bounds(2, 32));
    /// assert_eq!(GRADIENT.limit(), 4);
    /// ```
    pub const fn new_const(config: GradientConfig) -> Self {
        assert_valid(config.validate());
        Self::assemble(config)
    }

    const fn assemble(config: GradientConfig) -> Self {
        Gradient2 {
            config,
            limit: Level::new(config.bounds),
            long: 0,
            samples: 0,
        }
    }

    /// The fractional limit.
    pub const fn limit_value(&self) -> Q32 {
        self.limit.value()
    }

    /// Feeds a latency (1/65536 µs) to the long average, with the inflation guards.
    fn learn(&mut self, rtt: u64) {
        if self.samples < 10 {
            // Warm-up: a plain running mean.
            self.samples += 1;
            let n = u64::from(self.samples);
            let total = u128::from(self.long) * u128::from(n - 1) + u128::from(rtt);
            self.long = u64::try_from(total / u128::from(n)).unwrap_or(u64::MAX);
            return;
        }
        if rtt.saturating_mul(2) < self.long {
            // Load has passed: do not wait 600 samples to believe it.
            self.long -= self.long / 20;
        } else if rtt <= self.config.tolerance.mul_u64(self.long) {
            let window = u64::from(self.config.long_window);
            self.long = if rtt >= self.long {
                self.long + (rtt - self.long) / window
            } else {
                self.long - (self.long - rtt) / window
            };
        }
    }

    fn on_latency(&mut self, sample: &Sample) -> Change {
        let rtt = sample.latency_micros().max(1).saturating_mul(1 << 16);
        self.learn(rtt);
        let limit = self.limit.whole();
        if u64::from(sample.admission.in_flight) * 2 < u64::from(limit) {
            return Change::Unchanged; // not using the limit: nothing to learn about it
        }
        // gradient = clamp(tolerance × long / rtt, 0.5, 1) in 1/65536ths.
        let scaled = u128::from(self.config.tolerance.mul_u64(self.long)) << 16;
        let gradient = (scaled / u128::from(rtt)).clamp(1 << 15, 1 << 16) as u32;
        let current = self.limit.value();
        let shrunk = current.shrink(Ratio::from_bits(gradient));
        let allowance = Q32::from_u32(limit.isqrt());
        let mut target = Q32(shrunk.0.saturating_add(allowance.0));
        if gradient < 1 << 16 && target > current {
            target = current; // congested: no growth from the allowance
        }
        // `smoothing` of the distance per round trip: each of the `limit` samples of a round
        // trip covers `1/limit` of it, so the pace does not depend on the request rate.
        let s = self.config.smoothing;
        let per_sample = |distance: u64| s.mul_u64(distance) / u64::from(limit.max(1));
        let next = if target >= current {
            Q32(current.0 + per_sample(target.0 - current.0))
        } else {
            Q32(current.0 - per_sample(current.0 - target.0))
        };
        self.limit.set(next)
    }
}

impl Controller for Gradient2 {
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
        let baseline = (self.samples > 0).then(|| crate::num::saturating_u32(self.long >> 16));
        self.limit.stats(baseline)
    }
}
