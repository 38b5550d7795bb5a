//! The tokio adapter of [`limiter_core`]: an adaptive concurrency limiter for clients of one
//! dependency.
//!
//! [`Limiter`] is the core's [`Limiter`](limiter_core::Limiter) (the same type, the same methods
//! and behaviour on every runtime) over an `Arc` of the gate, with a `std` mutex and
//! [`TokioClock`] (tokio's clock and timers, so `tokio::time::pause` drives it in tests). It
//! admits requests while in-flight is below the controller's limit, queues more (up to a bound) in
//! FIFO order, and learns from every classified outcome: slow calls and congestion signals
//! (timeouts, 429/503/504) cut the limit, fast successes grow it, client errors and
//! cancellations change nothing. A `Retry-After` seen by `run` holds admissions back until it
//! has passed.
//!
//! - [`try_acquire`](limiter_core::Limiter::try_acquire),
//!   [`acquire`](limiter_core::Limiter::acquire),
//!   [`acquire_timeout`](limiter_core::Limiter::acquire_timeout),
//!   [`acquire_until`](limiter_core::Limiter::acquire_until): permits, released on every path.
//! - [`run`](limiter_core::Limiter::run): a permit around a future, with a
//!   [`Classify`](limiter_core::Classify) deciding what its output means
//!   ([`ErrorsAreOverload`](limiter_core::ErrorsAreOverload),
//!   [`HttpClassifier`](limiter_core::HttpClassifier), or a closure).
//! - [`snapshot`](limiter_core::Limiter::snapshot) and
//!   [`report`](limiter_core::Limiter::report) (a future to spawn): what an operator exports.
//! - With feature `tower`: [`LimitLayer`], a tower middleware (for axum and hyper servers,
//!   and HTTP clients that are tower services, as hyper-util's is).
//! - With feature `reqwest-middleware`: [`LimitMiddleware`], for a reqwest client.
//! - With features `metrics` and `tracing`:
//!   [`report_metrics`](limiter_core::Limiter::report_metrics) publishes the limiter to the
//!   `metrics` facade (gauges, counters, a latency histogram), and each cut of the limit is a
//!   `tracing` event with its cause.
//!
//! ```
//! use std::time::Duration;
//! use limiter_core::{AimdConfig, HttpClassifier};
//! use limiter_tokio::Limiter;
//!
//! # #[tokio::main(flavor = "current_thread", start_paused = true)]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let limiter = Limiter::aimd(AimdConfig::default().initial(4).bounds(1, 32))?;
//! for _ in 0..3 {
//!     let status = limiter
//!         .run(async { tokio::time::sleep(Duration::from_millis(5)).await; 429u16 }, HttpClassifier::new())
//!         .await?;
//!     assert_eq!(status, 429);
//! }
//! assert!(limiter.limit() < 4, "throttling cut the limit");
//! # Ok(())
//! # }
//! ```

// docs.rs marks every item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(any(feature = "tower", feature = "reqwest-middleware"))]
mod admission;
mod clock;
mod limiter;
mod quota;
#[cfg(feature = "reqwest-middleware")]
mod reqwest;
#[cfg(feature = "tower")]
mod tower;

#[cfg(any(feature = "tower", feature = "reqwest-middleware"))]
pub use admission::Refusal;
pub use clock::TokioClock;
pub use limiter::{
    Acquire, Limiter, OwnedAcquire, OwnedPermit, OwnedScopedPermit, Permit, SharedGate,
};
pub use limiter_core::AcquireError;
pub use quota::Quota;
#[cfg(feature = "reqwest-middleware")]
pub use reqwest::LimitMiddleware;
#[cfg(all(feature = "tower", feature = "http"))]
pub use tower::LimitedBody;
#[cfg(feature = "tower")]
pub use tower::{
    Answer, BoxError, LimitLayer, LimitService, RefusalsAsErrors, RefusalsAsResponses,
    ResponseFuture, UntilBodyEnds, UntilResponse,
};
