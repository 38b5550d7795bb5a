//! [`TokioClock`]: the core's [`Clock`] on tokio's time.

use limiter_core::{Clock, Instant, Runtime};

/// Reads `tokio::time::Instant`, so a paused runtime (`tokio::time::pause`, `start_paused`)
/// drives the limiter's latency measurements exactly as it drives timers.
///
/// Instants count microseconds from the clock's creation.
///
/// ```
/// use limiter_core::Clock;
/// use limiter_tokio::TokioClock;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let clock = TokioClock::new();
/// tokio::time::sleep(std::time::Duration::from_millis(3)).await;
/// assert_eq!(clock.now().as_micros(), 3_000);
/// # }
/// ```
#[derive(Clone, Copy, Debug)]
pub struct TokioClock {
    origin: tokio::time::Instant,
}

impl TokioClock {
    /// A clock whose epoch is now.
    pub fn new() -> Self {
        TokioClock {
            origin: tokio::time::Instant::now(),
        }
    }

    /// The tokio instant of a core [`Instant`] of this clock, at most
    /// [`FAR_FUTURE`](limiter_core::FAR_FUTURE) ahead of its epoch (so a huge delay
    /// cannot overflow tokio's instant).
    pub fn to_tokio(&self, at: Instant) -> tokio::time::Instant {
        let offset = at
            .saturating_duration_since(Instant::ZERO)
            .min(limiter_core::FAR_FUTURE);
        self.origin.checked_add(offset).unwrap_or(self.origin)
    }

    /// The core [`Instant`] of a tokio instant (the epoch, if `at` is earlier).
    pub fn from_tokio(&self, at: tokio::time::Instant) -> Instant {
        let since = at.saturating_duration_since(self.origin);
        Instant::from_micros(limiter_core::duration_to_micros(since))
    }
}

impl Default for TokioClock {
    fn default() -> Self {
        TokioClock::new()
    }
}

impl Clock for TokioClock {
    fn now(&self) -> Instant {
        self.from_tokio(tokio::time::Instant::now())
    }
}

/// tokio's timer: what the core [`Limiter`](limiter_core::Limiter) waits on for timeouts,
/// `Retry-After` holds and reports.
///
/// ```
/// use limiter_core::{Clock, Runtime};
/// use limiter_tokio::TokioClock;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let clock = TokioClock::new();
/// let deadline = clock.now().saturating_add_micros(2_000);
/// clock.sleep_until(deadline).await;
/// assert_eq!(clock.now(), deadline);
/// # }
/// ```
impl Runtime for TokioClock {
    type Sleep = tokio::time::Sleep;

    fn sleep_until(&self, deadline: Instant) -> tokio::time::Sleep {
        tokio::time::sleep_until(self.to_tokio(deadline))
    }
}
