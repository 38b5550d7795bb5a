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
//!
//! Two examples measure what criterion's blocks cannot: `cycle` runs one variant for
//! `valgrind --tool=callgrind` (instruction counts, which do not move with the machine's
//! noise), and `contended` runs the contended variants back to back, round after round, and
//! reports each limiter's time over tokio's semaphore's in the same round (a drift of the
//! machine between criterion's blocks moves their ratio more than the difference it shows).
//!
//! ```text
//! cargo run --release -p limiter-bench --example contended -- 50
//! ```
