//! [`Quota`]: a provider's published rate limit (GCRA), shared by tasks, on tokio's clock.

use limiter_core::{Gcra, SharedQuota};

use crate::TokioClock;

/// A shared [`Gcra`] rate limit on tokio's clock. Cheap to clone (one `Arc`).
///
/// Compose it with a [`Limiter`](crate::Limiter) through
/// [`Limiter::acquire_with_quota`](crate::Limiter::acquire_with_quota): a request waits for the
/// concurrency limit, then for the quota, so it starts no earlier than the later of the two and
/// calls leave at the quota's spacing.
///
/// ```
/// use std::time::Duration;
/// use limiter_core::Gcra;
/// use limiter_tokio::Quota;
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let quota = Quota::new(Gcra::new(10, Duration::from_secs(1), 1).unwrap());
/// let start = tokio::time::Instant::now();
/// for _ in 0..3 {
///     quota.ready().await;
/// }
/// assert_eq!(start.elapsed(), Duration::from_millis(200)); // 10 per second
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Quota {
    shared: SharedQuota<TokioClock>,
}

impl Quota {
    /// Shares `gcra`.
    pub fn new(gcra: Gcra) -> Self {
        Quota {
            shared: SharedQuota::new(gcra, TokioClock::new()),
        }
    }

    /// Takes one call if the quota allows it now; otherwise the tokio instant at which it would.
    pub fn try_take(&self) -> Result<(), tokio::time::Instant> {
        self.shared
            .try_take()
            .map_err(|at| self.shared.clock().to_tokio(at))
    }

    /// Waits until the quota allows one call, and takes it. Cancel safe: nothing is taken until
    /// it returns.
    pub async fn ready(&self) {
        while let Err(at) = self.try_take() {
            tokio::time::sleep_until(at).await;
        }
    }
}

/// The quota's turn, for [`Limiter::acquire_with_quota`](limiter_core::Limiter::acquire_with_quota).
impl limiter_core::Pace for Quota {
    fn ready(&self) -> impl std::future::Future<Output = ()> {
        Quota::ready(self)
    }
}
