//! Monotonic time for controllers, built from the timestamps their samples carry.

use crate::time::clock::Instant;

/// The most time one observation may add (2^40 µs, about 12.7 days), and the longest hold: a
/// timestamp far in the future (garbage, a glitching clock) cannot use up the elapsed-time count,
/// and no hold is forever.
pub(crate) const MAX_TIME_STEP_MICROS: u64 = 1 << 40;

/// A step back in time at least this large (one second) is a clock reset, and time continues
/// from the new clock's reading; a smaller one is a completion reported out of order, and is
/// ignored.
const CLOCK_RESET_MICROS: u64 = 1_000_000;

/// Elapsed time that only moves forward, whatever the timestamps do.
///
/// A timestamp behind the last one adds nothing; one a second or more behind is taken as a clock
/// reset, and later timestamps count from it; one far ahead adds at most
/// [`MAX_TIME_STEP_MICROS`]. Holds, cooldowns and windows measured on it are neither frozen nor
/// stretched by a misbehaving clock.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Timeline {
    last_seen: Instant,
    elapsed: u64,
}

impl Timeline {
    pub(crate) const fn new() -> Self {
        Timeline {
            last_seen: Instant::ZERO,
            elapsed: 0,
        }
    }

    /// Advances to `now`; returns the elapsed microseconds.
    // Inlined into the sample of a controller built in another crate, off microcontrollers.
    #[cfg_attr(not(target_os = "none"), inline)]
    pub(crate) fn observe(&mut self, now: Instant) -> u64 {
        if now >= self.last_seen {
            let step = now.micros_since(self.last_seen).min(MAX_TIME_STEP_MICROS);
            self.elapsed = self.elapsed.saturating_add(step);
            self.last_seen = now;
        } else if self.last_seen.micros_since(now) >= CLOCK_RESET_MICROS {
            self.last_seen = now;
        }
        self.elapsed
    }
}
