//! What every fractional-limit controller keeps besides its signal: the limit within its bounds,
//! the epoch of cuts, counts of moves, and since when it sits at its floor.

use super::arith::{LimitValue, Q32};
use super::{Change, ControllerStats, Epoch, MAX_LIMIT, Sample};
use crate::config::ConfigError;
use crate::num::ratio::Ratio;
use crate::time::clock::Instant;

/// The cut on an overload every controller starts from: 0.8.
pub(crate) const DEFAULT_BACKOFF: Ratio = Ratio::from_bits(52_429);

/// Where a limit starts and the floor and ceiling it stays within: part of every controller's
/// configuration, set through the builders of [`bounds_builders`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub(crate) struct Bounds {
    pub(crate) initial: u32,
    pub(crate) min: u32,
    pub(crate) max: u32,
}

impl Bounds {
    /// Every controller's default: start at 4 within `[1, 64]`.
    ///
    /// Where clients that start together have shares below the initial limit, their first
    /// calls build a queue that their baselines learn (the `shapes` example of `limiter-sim`,
    /// its `x2` rows: p95 2.7 to 5.7 times the oracle's). Starting at 2 instead, seed 1: 8 → 13
    /// of its 24 shapes meet every bar, but the suite's scenarios give each client a share of
    /// 4, and 165 → 135 of its 216 rows (seeds 1 to 6) meet them: the late joiners on no seed
    /// (5 and 6 of 6), drop-and-recover 86.8 → 83.3 %, noisy-tenant 90.3 → 87.4 %.
    pub(crate) const DEFAULT: Bounds = Bounds {
        initial: 4,
        min: 1,
        max: 64,
    };

    /// Checks `min ≥ 1`, `min ≤ max`, `max ≤ MAX_LIMIT` and `initial` within `[min, max]`.
    pub(crate) const fn validate(self) -> Result<(), ConfigError> {
        let Bounds { initial, min, max } = self;
        if min == 0 {
            Err(ConfigError::MinIsZero)
        } else if min > max {
            Err(ConfigError::MinAboveMax)
        } else if max > MAX_LIMIT {
            Err(ConfigError::MaxTooLarge)
        } else if initial < min || initial > max {
            Err(ConfigError::InitialOutOfBounds)
        } else {
            Ok(())
        }
    }
}

/// The `initial`, `min`, `max` and `bounds` builders of a configuration with a `bounds: Bounds`
/// field: the same four on every controller.
macro_rules! bounds_builders {
    () => {
        /// The starting limit, within `[min, max]`.
        pub const fn initial(mut self, initial: u32) -> Self {
            self.bounds.initial = initial;
            self
        }

        /// The floor: the limit never goes below it (at least 1).
        pub const fn min(mut self, min: u32) -> Self {
            self.bounds.min = min;
            self
        }

        /// The ceiling: the limit never goes above it (at most 2^24).
        pub const fn max(mut self, max: u32) -> Self {
            self.bounds.max = max;
            self
        }

        /// Floor and ceiling together.
        pub const fn bounds(self, min: u32, max: u32) -> Self {
            self.min(min).max(max)
        }
    };
}
pub(crate) use bounds_builders;

/// Panics with what is wrong with a configuration: at compile time in a `const` context (the
/// `new_const` constructors).
pub(crate) const fn assert_valid(checked: Result<(), ConfigError>) {
    if let Err(e) = checked {
        panic!("{}", e.message());
    }
}

/// Whether `r` is strictly between 0 and 1.
pub(crate) const fn is_fraction(r: Ratio) -> bool {
    r.to_bits() > 0 && r.to_bits() < Ratio::ONE.to_bits()
}

/// Since when a limit has sat at its floor, in 8 bytes: [`Instant::MAX`] stands for "not at
/// the floor" (a sample completed at that instant, 584,000 years in, reads as not at the floor).
#[derive(Clone, Copy, Debug)]
pub(crate) struct FloorWatch {
    since: Instant,
}

impl FloorWatch {
    pub(crate) const fn new() -> Self {
        FloorWatch {
            since: Instant::MAX,
        }
    }

    /// Notes whether the limit is at its floor after a sample completed at `at`.
    pub(crate) fn observe(&mut self, at_floor: bool, at: Instant) {
        if !at_floor {
            self.since = Instant::MAX;
        } else if self.since == Instant::MAX {
            self.since = at;
        }
    }

    /// Since when the limit is at its floor, if it is.
    pub(crate) fn since(self) -> Option<Instant> {
        (self.since != Instant::MAX).then_some(self.since)
    }
}

/// A [`Q32`] limit with its bounds and bookkeeping.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    value: Q32,
    min: u32,
    max: u32,
    epoch: Epoch,
    increases: u64,
    decreases: u64,
    at_floor: FloorWatch,
}

impl Level {
    pub(crate) const fn new(bounds: Bounds) -> Self {
        Level {
            value: Q32::from_whole(bounds.initial),
            min: bounds.min,
            max: bounds.max,
            epoch: Epoch(0),
            increases: 0,
            decreases: 0,
            at_floor: FloorWatch::new(),
        }
    }

    pub(crate) const fn value(&self) -> Q32 {
        self.value
    }

    pub(crate) fn whole(&self) -> u32 {
        self.value.whole()
    }

    pub(crate) const fn epoch(&self) -> Epoch {
        self.epoch
    }

    /// Moves to `value`, clamped to the bounds; counts and reports the move.
    pub(crate) fn set(&mut self, value: Q32) -> Change {
        let value = value.clamp_to(self.min, self.max);
        let change = match value.cmp(&self.value) {
            core::cmp::Ordering::Greater => {
                self.increases = self.increases.wrapping_add(1);
                Change::Increased
            }
            core::cmp::Ordering::Less => {
                self.decreases = self.decreases.wrapping_add(1);
                Change::Decreased
            }
            core::cmp::Ordering::Equal => Change::Unchanged,
        };
        self.value = value;
        change
    }

    /// An overload: a cut by `backoff`, unless the request was admitted before the last cut.
    pub(crate) fn overload(&mut self, sample: &Sample, backoff: Ratio) -> Change {
        if sample.admission.epoch != self.epoch {
            return Change::Unchanged;
        }
        self.epoch = Epoch(self.epoch.0.wrapping_add(1));
        if self.set(self.value.shrink(backoff)) == Change::Unchanged {
            self.decreases = self.decreases.wrapping_add(1); // at the floor: still a cut
        }
        Change::Decreased
    }

    /// Notes whether the limit sits at its floor after a sample completed at `at`.
    pub(crate) fn observe_floor(&mut self, at: Instant) {
        self.at_floor.observe(self.whole() <= self.min, at);
    }

    pub(crate) fn stats(&self, baseline_micros: Option<u32>) -> ControllerStats {
        ControllerStats {
            limit: self.whole(),
            min: self.min,
            max: self.max,
            baseline_micros,
            increases: self.increases,
            decreases: self.decreases,
            at_floor_since: self.at_floor.since(),
        }
    }
}
