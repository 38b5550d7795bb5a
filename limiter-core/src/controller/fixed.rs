//! A limit that does not adapt: the baseline every adaptive controller is compared against.

use super::{Change, Controller, ControllerStats, Epoch, Sample};
use crate::config::ConfigError;

/// A fixed concurrency limit, like a semaphore, that only changes when told to.
///
/// # Examples
///
/// ```
/// use limiter_core::{Controller, Fixed};
///
/// let mut fixed = Fixed::new(16).unwrap();
/// assert_eq!(fixed.limit(), 16);
/// fixed.set_limit(4).unwrap();
/// assert_eq!(fixed.limit(), 4);
/// assert!(Fixed::new(0).is_err());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fixed {
    limit: u32,
}

impl Fixed {
    /// A fixed limit of `limit` (at least 1).
    pub const fn new(limit: u32) -> Result<Self, ConfigError> {
        if limit == 0 {
            return Err(ConfigError::LimitIsZero);
        }
        Ok(Fixed { limit })
    }

    /// Changes the limit (at least 1). Through [`crate::Gate::with_controller`], a raised limit
    /// admits waiters at once.
    pub fn set_limit(&mut self, limit: u32) -> Result<(), ConfigError> {
        *self = Fixed::new(limit)?;
        Ok(())
    }
}

impl Controller for Fixed {
    fn limit(&self) -> u32 {
        self.limit
    }

    fn epoch(&self) -> Epoch {
        Epoch(0)
    }

    fn on_sample(&mut self, _sample: &Sample) -> Change {
        Change::Unchanged
    }

    fn stats(&self) -> ControllerStats {
        ControllerStats {
            limit: self.limit,
            min: self.limit,
            max: self.limit,
            baseline_micros: None,
            increases: 0,
            decreases: 0,
            at_floor_since: None,
        }
    }
}
