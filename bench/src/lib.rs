//! The permit benchmarks of `limiter-tokio` (`benches/permits.rs`): the limiter against the
//! floor a latency-measuring limiter cannot go below, congestion-limiter and tokio's semaphore,
//! in one criterion run. This library is empty; the crate exists so that the benchmarks build
//! without tokio's `test-util`, which the adapters' tests need and which slows every read of
//! tokio's clock.
//!
//! ```text
//! cargo bench -p limiter-bench
//! python3 scripts/bench-ratios.py
//! ```
