//! Time: [`Instant`] (microseconds of an injected clock), the [`Clock`] that reads it, the
//! [`Runtime`] that also sleeps, and the monotonic timeline controllers build from samples.

pub(crate) mod clock;
pub(crate) mod runtime;
pub(crate) mod timeline;
