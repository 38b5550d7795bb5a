//! EWMA with deviation: the latency signal of Vector's adaptive request concurrency.
//!
//! Latency is averaged over an *interval* (about one past mean round trip); at the end of each
//! interval the limit moves once: down by `decrease` if the dependency pushed back (an overload
//! outcome) or the interval's mean latency exceeded the long-run mean by more than
//! `deviation_scale` standard deviations; up by one if the limit was reached and the interval's
//! mean was at or below the long-run mean; otherwise it holds. The long-run mean and variance are
//! exponentially weighted moving averages of the interval means.

use super::level::{Bounds, FloorWatch, assert_valid, bounds_builders, is_fraction};
use super::{Change, Controller, ControllerStats, Epoch, Sample};
use crate::config::ConfigError;
use crate::num::ratio::Ratio;
use crate::signal::outcome::Outcome;
use crate::time::timeline::Timeline;

/// Configuration of an [`EwmaDeviation`] controller.
///
/// Defaults (Vector's): initial 4 within `[1, 64]`, EWMA weight `alpha = 0.4`, a deviation band
/// of `2.5 σ`, a decrease factor of `0.9`.
///
/// # Examples
///
/// ```
/// use limiter_core::{ConfigError, EwmaConfig, EwmaDeviation, Ratio};
///
/// assert!(EwmaDeviation::new(EwmaConfig::default().bounds(1, 128)).is_ok());
/// let bad = EwmaConfig::default().alpha(Ratio::ZERO);
/// assert_eq!(EwmaDeviation::new(bad).unwrap_err(), ConfigError::AlphaOutOfRange);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct EwmaConfig {
    bounds: Bounds,
    alpha: Ratio,
    deviation_scale: Ratio,
    decrease: Ratio,
}

impl Default for EwmaConfig {
    fn default() -> Self {
        EwmaConfig::DEFAULT
    }
}

impl EwmaConfig {
    /// The defaults (see the type's documentation), for `const` code; the same as
    /// [`EwmaConfig::default`].
    pub const DEFAULT: EwmaConfig = EwmaConfig {
        bounds: Bounds::DEFAULT,
        alpha: Ratio::from_bits(26_215), // 0.4 (0.400009: products land on round numbers)
        deviation_scale: Ratio::from_bits(163_840), // 2.5
        decrease: Ratio::from_bits(58_982), // 0.9 (cuts land on whole products: Ratio::mul_whole_floor)
    };

    bounds_builders!();

    /// The weight of the newest interval in the moving averages, strictly between 0 and 1.
    pub const fn alpha(mut self, alpha: Ratio) -> Self {
        self.alpha = alpha;
        self
    }

    /// How many standard deviations above the mean count as congestion.
    pub const fn deviation_scale(mut self, scale: Ratio) -> Self {
        self.deviation_scale = scale;
        self
    }

    /// The multiplicative decrease, strictly between 0 and 1.
    pub const fn decrease(mut self, decrease: Ratio) -> Self {
        self.decrease = decrease;
        self
    }

    /// Checks the configuration: what [`EwmaDeviation::new`] refuses.
    pub const fn validate(&self) -> Result<(), ConfigError> {
        if let Err(e) = self.bounds.validate() {
            return Err(e);
        }
        if !is_fraction(self.decrease) {
            return Err(ConfigError::DecreaseOutOfRange);
        }
        if !is_fraction(self.alpha) {
            return Err(ConfigError::AlphaOutOfRange);
        }
        Ok(())
    }
}

/// What the current interval has seen so far.
#[derive(Clone, Copy, Debug)]
struct Interval {
    /// Monotonic time the interval started, µs.
    started: u64,
    latency_sum: u64,
    samples: u64,
    /// A fresh overload outcome arrived.
    pushed_back: bool,
    /// A request was admitted with the limit fully used.
    reached_limit: bool,
    /// Samples of any outcome but `Ignore`.
    completions: u32,
}

impl Interval {
    const EMPTY: Interval = Interval {
        started: 0,
        latency_sum: 0,
        samples: 0,
        pushed_back: false,
        reached_limit: false,
        completions: 0,
    };
}

/// The EWMA-deviation controller (Vector's adaptive request concurrency). Integer state only.
///
/// One adjustment per interval of about one mean round trip (and at most one limit's worth of
/// completions, so no single sample can stretch an interval):
/// - **down** by `decrease` (at least one) when an overload outcome from a request admitted
///   since the last cut arrived, or the interval's mean latency exceeded the long-run mean plus
///   `deviation_scale` standard deviations;
/// - **up** by one when the limit was reached during the interval and its mean latency was at
///   most the long-run mean;
/// - otherwise unchanged. Client errors and cancellations are not samples at all.
///
/// # Examples
///
/// ```
/// use limiter_core::{Admission, Controller, EwmaConfig, EwmaDeviation, Instant, Outcome, Sample};
///
/// let mut c = EwmaDeviation::new(EwmaConfig::default().initial(10)).unwrap();
/// let mut now = 0;
/// for _ in 0..50 {
///     // Steady 10 ms calls with the limit reached: +1 per interval.
///     let a = Admission::new(&c, Instant::from_millis(now), c.limit());
///     now += 10;
///     c.on_sample(&Sample::new(a, Instant::from_millis(now), Outcome::Success));
/// }
/// assert!(c.limit() > 20);
/// ```
#[derive(Clone, Debug)]
pub struct EwmaDeviation {
    config: EwmaConfig,
    limit: u32,
    /// Long-run mean latency, µs; `None` before the first interval ends.
    mean: Option<u64>,
    /// Long-run variance, µs².
    variance: u64,
    interval: Interval,
    timeline: Timeline,
    epoch: Epoch,
    increases: u64,
    decreases: u64,
    at_floor: FloorWatch,
}

impl EwmaDeviation {
    /// A controller with a validated configuration.
    pub fn new(config: EwmaConfig) -> Result<Self, ConfigError> {
        config.validate()?;
        Ok(Self::assemble(config))
    }

    /// [`EwmaDeviation::new`] for `const` code: panics on an invalid configuration, which in a
    /// `static` or `const` initializer stops the build.
    ///
    /// ```
    /// use limiter_core::{Controller, EwmaConfig, EwmaDeviation};
    ///
    /// static EWMA: EwmaDeviation = EwmaDeviation::new_const(EwmaConfig::DEFAULT.initial(6));
    /// assert_eq!(EWMA.limit(), 6);
    /// ```
    pub const fn new_const(config: EwmaConfig) -> Self {
        assert_valid(config.validate());
        Self::assemble(config)
    }

    const fn assemble(config: EwmaConfig) -> Self {
        EwmaDeviation {
            config,
            limit: config.bounds.initial,
            mean: None,
            variance: 0,
            interval: Interval::EMPTY,
            timeline: Timeline::new(),
            epoch: Epoch(0),
            increases: 0,
            decreases: 0,
            at_floor: FloorWatch::new(),
        }
    }

    /// `old + alpha × (new − old)`, in either direction.
    fn blend(&self, old: u64, new: u64) -> u64 {
        if new >= old {
            old.saturating_add(self.config.alpha.mul_u64(new - old))
        } else {
            old - self.config.alpha.mul_u64(old - new)
        }
    }

    /// Ends the interval at `now` (monotonic µs) and moves the limit once.
    fn adjust(&mut self, now: u64) -> Change {
        let interval = core::mem::replace(
            &mut self.interval,
            Interval {
                started: now,
                ..Interval::EMPTY
            },
        );
        let current = (interval.samples > 0).then(|| interval.latency_sum / interval.samples);
        let deviation = self.variance.isqrt();
        let too_slow = match (current, self.mean) {
            (Some(c), Some(m)) => {
                c > m.saturating_add(self.config.deviation_scale.mul_u64(deviation))
            }
            _ => false,
        };
        let change = if interval.pushed_back || too_slow {
            let cut = self.config.decrease.mul_whole_floor(self.limit);
            let cut = cut
                .min(self.limit.saturating_sub(1))
                .max(self.config.bounds.min);
            self.epoch = Epoch(self.epoch.0.wrapping_add(1));
            self.decreases = self.decreases.wrapping_add(1);
            self.limit = cut;
            Change::Decreased
        } else if interval.reached_limit
            && current.is_some_and(|c| self.mean.is_none_or(|m| c <= m))
            && self.limit < self.config.bounds.max
        {
            self.limit += 1;
            self.increases = self.increases.wrapping_add(1);
            Change::Increased
        } else {
            Change::Unchanged
        };
        // Back-pressure intervals say nothing about normal latency.
        if let (Some(c), false) = (current, interval.pushed_back) {
            match self.mean {
                None => self.mean = Some(c),
                Some(m) => {
                    let diff = c.abs_diff(m);
                    self.variance = self.blend(self.variance, diff.saturating_mul(diff));
                    self.mean = Some(self.blend(m, c));
                }
            }
        }
        change
    }
}

impl Controller for EwmaDeviation {
    fn limit(&self) -> u32 {
        self.limit
    }

    fn epoch(&self) -> Epoch {
        self.epoch
    }

    fn on_sample(&mut self, sample: &Sample) -> Change {
        let now = self.timeline.observe(sample.completed_at);
        match sample.outcome {
            Outcome::Ignore => return Change::Unchanged,
            Outcome::Overload if sample.admission.epoch == self.epoch => {
                self.interval.pushed_back = true;
            }
            Outcome::Overload => {}
            Outcome::Success => {
                self.interval.latency_sum = self
                    .interval
                    .latency_sum
                    .saturating_add(sample.latency_micros());
                self.interval.samples += 1;
            }
        }
        if sample.admission.in_flight >= self.limit {
            self.interval.reached_limit = true;
        }
        self.interval.completions = self.interval.completions.saturating_add(1);
        // An interval lasts one long-run mean latency (the first one, a single sample), or one
        // limit's worth of completions, whichever ends first. Without the count, one absurd
        // latency (an hour, or a sample admitted at 0 and completed at `Instant::MAX`) would make
        // the mean, and so the interval, that long, and every overload after it would wait for
        // it; with the count, overloads act within a limit's worth of samples whatever came
        // before, and the inflated mean decays by `alpha` each interval.
        let length = self.mean.unwrap_or(0);
        let change = if now.saturating_sub(self.interval.started) >= length
            || self.interval.completions >= self.limit
        {
            self.adjust(now)
        } else {
            Change::Unchanged
        };
        self.at_floor
            .observe(self.limit <= self.config.bounds.min, sample.completed_at);
        change
    }

    fn stats(&self) -> ControllerStats {
        ControllerStats {
            limit: self.limit,
            min: self.config.bounds.min,
            max: self.config.bounds.max,
            baseline_micros: self.mean.map(crate::num::saturating_u32),
            increases: self.increases,
            decreases: self.decreases,
            at_floor_since: self.at_floor.since(),
        }
    }
}
