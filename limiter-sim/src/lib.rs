//! A deterministic discrete-event simulator for adaptive concurrency limiters.
//!
//! Each [`scenario::Scenario`] runs its clients' loads ([`load::Load`]) against a model of a
//! dependency ([`upstream::Upstream`]) through the real `limiter-core` gate, once per limiter,
//! on a virtual clock: the same seed gives the same numbers on every machine.
//!
//! ```
//! use limiter_sim::scenario::{self, Params};
//!
//! let all = scenario::all(&Params::default());
//! let scenario = all.iter().find(|s| s.is_named("capacity-drop")).unwrap();
//! let (label, limiter) = &scenario.limiters[0];
//! let m = limiter_sim::engine::run(&scenario.clients, (scenario.upstream)().as_mut(), limiter, 1)
//!     .expect("the run ends");
//! assert_eq!(label, "fixed 16");
//! assert_eq!(m.ok + m.throttled + m.timed_out, 1_000);
//! ```
//!
//! A scenario of one's own needs only a load per client and an upstream: see
//! [`engine::run`] and the [`upstream::Upstream`] trait.

pub mod engine;
pub mod limiter;
pub mod load;
pub mod metrics;
pub mod plot;
pub mod report;
pub mod rng;
pub mod scenario;
pub mod upstream;
