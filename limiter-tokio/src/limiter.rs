//! [`Limiter`]: the core's [`Limiter`](limiter_core::Limiter) on tokio's clock and timers.

use std::sync::Arc;

use limiter_core::{AimdF32, Gate, HeapQueue, ScopedPermit, StdRawMutex};

use crate::TokioClock;

/// The core gate a [`Limiter`] shares: its waiting queue is on the heap
/// ([`HeapQueue`]), so an idle limiter costs a few hundred bytes whatever its bound.
pub type SharedGate<C> = Gate<StdRawMutex, C, TokioClock, HeapQueue>;

/// An adaptive concurrency limiter for tokio: the core's
/// [`Limiter`](limiter_core::Limiter) over an `Arc` of the gate, on [`TokioClock`] (tokio's
/// clock and timers, so `tokio::time::pause` drives it in tests).
///
/// A cheap handle: clones share the same limit, in-flight count and queue. The controller `C`
/// decides the limit ([`AimdF32`] unless chosen otherwise); up to 1,024 requests wait for
/// admission in FIFO order (another bound: [`Limiter::with_queue`](limiter_core::Limiter::with_queue)
/// and [`HeapQueue::new`]), and the next one is refused with
/// [`QueueFull`](limiter_core::QueueFull). The queue takes memory only for the requests that
/// wait.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use limiter_core::{AimdConfig, ErrorsAreOverload, Fixed};
/// use limiter_core::HeapQueue;
/// use limiter_tokio::{AcquireError, Limiter};
///
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let limiter = Limiter::aimd(AimdConfig::default().initial(8).bounds(2, 64))?;
///
/// // Hold a permit around a call and let the classifier report how it went.
/// let body = limiter
///     .run(async { Ok::<_, std::io::Error>("response") }, ErrorsAreOverload)
///     .await?;
/// assert_eq!(body?, "response");
///
/// // Or take the permit yourself and say how the call ended.
/// let permit = limiter.acquire().await?;
/// permit.success();
/// assert_eq!(limiter.snapshot().in_flight, 0);
///
/// // A smaller queue, and a bounded wait.
/// let small = Limiter::with_queue(Fixed::new(1).unwrap(), HeapQueue::new(16));
/// let _held = small.try_acquire().unwrap();
/// let waited = small.acquire_timeout(Duration::from_millis(50)).await;
/// assert_eq!(waited.err(), Some(AcquireError::Timeout));
/// assert_eq!(small.snapshot().queued, 0); // it left the queue
/// # Ok(())
/// # }
/// ```
///
/// Reports are a future to spawn:
///
/// ```
/// # use std::sync::{Arc, Mutex};
/// # use std::time::Duration;
/// # use limiter_core::Fixed;
/// # use limiter_tokio::Limiter;
/// # #[tokio::main(flavor = "current_thread", start_paused = true)]
/// # async fn main() {
/// let limiter = Limiter::new(Fixed::new(4).unwrap());
/// let seen = Arc::new(Mutex::new(Vec::new()));
/// let log = Arc::clone(&seen);
/// let reporter = tokio::spawn(limiter.report_owned(Duration::from_secs(1), move |s| {
///     log.lock().unwrap().push((s.limit, s.in_flight, s.queued, s.decreases));
/// }));
/// tokio::time::sleep(Duration::from_millis(2_500)).await;
/// reporter.abort();
/// assert_eq!(seen.lock().unwrap().len(), 3); // at 0, 1 and 2 seconds
/// # }
/// ```
pub type Limiter<C = AimdF32> = limiter_core::Limiter<Arc<SharedGate<C>>>;

/// A permit borrowed from a [`Limiter`]: see [`limiter_core::Permit`].
pub type Permit<'a, C = AimdF32> = limiter_core::Permit<&'a SharedGate<C>>;

/// A permit that owns a handle to its [`Limiter`] (`'static`, for spawned tasks).
pub type OwnedPermit<C = AimdF32> = limiter_core::Permit<Arc<SharedGate<C>>>;

/// The future of [`Limiter::acquire`](limiter_core::Limiter::acquire).
pub type Acquire<'a, C = AimdF32> = limiter_core::Admit<&'a SharedGate<C>, tokio::time::Sleep>;

/// The future of [`Limiter::acquire_owned`](limiter_core::Limiter::acquire_owned).
pub type OwnedAcquire<C = AimdF32> = limiter_core::Admit<Arc<SharedGate<C>>, tokio::time::Sleep>;

/// A key permit and a global permit taken by
/// [`Limiter::acquire_within_owned`](limiter_core::Limiter::acquire_within_owned), released
/// together.
pub type OwnedScopedPermit<C, G> = ScopedPermit<Arc<SharedGate<C>>, Arc<SharedGate<G>>>;
