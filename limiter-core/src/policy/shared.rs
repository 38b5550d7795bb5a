//! [`SharedQuota`]: a [`Gcra`](crate::Gcra) quota shared by threads and tasks through an `Arc`
//! (feature `std`) — the body of the std adapters' `Quota`, which add only their runtime's timer.

use std::sync::Arc;

use crate::time::clock::Clock;

/// A [`Gcra`](crate::Gcra) rate limit shared by threads and tasks (one `Arc`), on clock `T`
/// (feature `std`). The std adapters' `Quota` wraps it with their runtime's timer.
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Gcra, SharedQuota, StdClock};
///
/// let quota = SharedQuota::new(Gcra::new(1, Duration::from_secs(60), 1).unwrap(), StdClock::new());
/// assert!(quota.try_take().is_ok());
/// let next = quota.try_take().unwrap_err(); // a minute from the first call
/// assert!(next.as_micros() >= 59_000_000);
/// ```
#[derive(Clone, Debug)]
pub struct SharedQuota<T> {
    gcra: Arc<std::sync::Mutex<crate::policy::quota::Gcra>>,
    clock: T,
}

impl<T: Clock> SharedQuota<T> {
    /// Shares `gcra`, on `clock`.
    pub fn new(gcra: crate::policy::quota::Gcra, clock: T) -> Self {
        SharedQuota {
            gcra: Arc::new(std::sync::Mutex::new(gcra)),
            clock,
        }
    }

    /// The clock the quota is kept on.
    pub fn clock(&self) -> &T {
        &self.clock
    }

    /// Takes one call if the quota allows it now; otherwise the instant (of [`Self::clock`]) at
    /// which it would.
    pub fn try_take(&self) -> Result<(), crate::time::clock::Instant> {
        let now = self.clock.now();
        let mut gcra = self
            .gcra
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        gcra.check(now)
    }
}
