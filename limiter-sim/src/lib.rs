//! A deterministic discrete-event simulator for adaptive concurrency limiters.
//!
//! Each [`scenario::Scenario`] runs a load against a model of a dependency through the real
//! `limiter-core` gate, once per limiter, on a virtual clock: the same seed gives the same
//! numbers on every machine, and a run takes milliseconds.
//!
//! ```
//! let scenario = limiter_sim::scenario::all().into_iter().find(|s| s.name == "seed-000").unwrap();
//! let (label, limiter) = &scenario.limiters[0];
//! let m = limiter_sim::engine::run(&scenario.clients, (scenario.upstream)().as_mut(), limiter, None, None, 1);
//! assert_eq!(*label, "fixed 16");
//! assert_eq!(m.ok + m.throttled + m.timed_out, 1_000);
//! ```

pub mod engine;
pub mod limiter;
pub mod plot;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod upstream;
