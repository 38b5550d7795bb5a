//! What a gate tells the application about each sample, with the features `metrics` and
//! `tracing`: a latency histogram and an event for each change of the limit, labelled with the
//! gate's name. Without either feature both types here are empty and cost nothing.
//!
//! | feature | what | when |
//! |---|---|---|
//! | `metrics` | histogram `limiter_latency_seconds`, labels `limiter` (the name) and `outcome` (`success`, `overload`, `ignore`): latency from admission | each sample, once the gate is named |
//! | `tracing` | event `limit cut` at `DEBUG`, target `limiter`: fields `limiter`, `cause` (`overload`: the call was classified as congestion; `latency`: a success slower than the controller tolerates), `limit`, `latency_us`, `in_flight` | each cut |
//! | `tracing` | event `limit raised` at `TRACE`, same fields less `cause` | each increase |
//!
//! Both are published after the gate's lock is released: a slow recorder or subscriber never
//! holds up admissions.

#[cfg(any(feature = "metrics", feature = "tracing"))]
use crate::controller::Change;
use crate::controller::{Controller, Sample};
#[cfg(any(feature = "metrics", feature = "tracing"))]
use crate::signal::outcome::Outcome;

/// A gate's name in its metrics and events: set once.
#[cfg(any(feature = "metrics", feature = "tracing"))]
#[derive(Debug, Default)]
pub(crate) struct Name {
    name: std::sync::OnceLock<&'static str>,
}

#[cfg(any(feature = "metrics", feature = "tracing"))]
impl Name {
    pub(crate) const fn new() -> Self {
        Name {
            name: std::sync::OnceLock::new(),
        }
    }

    /// Names the gate; a gate already named keeps its name, returned as the error.
    pub(crate) fn set(&self, name: &'static str) -> Result<(), &'static str> {
        let kept = *self.name.get_or_init(|| name);
        if kept == name { Ok(()) } else { Err(kept) }
    }

    pub(crate) fn get(&self) -> Option<&'static str> {
        self.name.get().copied()
    }
}

/// One sample as the controller left it, taken under the gate's lock and published after it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Seen {
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    latency_micros: u64,
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    outcome: Outcome,
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    change: Change,
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    limit: u32,
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    in_flight: u32,
}

impl Seen {
    /// What `controller` made of `sample` (`change`), with `in_flight` after its release.
    #[cfg_attr(
        not(any(feature = "metrics", feature = "tracing")),
        expect(unused_variables, reason = "nothing is published without the features")
    )]
    #[inline]
    pub(crate) fn new<C: Controller>(
        sample: &Sample,
        change: crate::controller::Change,
        controller: &C,
        in_flight: impl FnOnce() -> u32,
    ) -> Self {
        Seen {
            #[cfg(any(feature = "metrics", feature = "tracing"))]
            latency_micros: sample.latency_micros(),
            #[cfg(any(feature = "metrics", feature = "tracing"))]
            outcome: sample.outcome,
            #[cfg(any(feature = "metrics", feature = "tracing"))]
            change,
            #[cfg(any(feature = "metrics", feature = "tracing"))]
            limit: controller.limit(),
            #[cfg(any(feature = "metrics", feature = "tracing"))]
            in_flight: in_flight(),
        }
    }

    /// Publishes this sample under `name` (see the module's table).
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    pub(crate) fn publish(self, name: &Name) {
        let name = name.get();
        #[cfg(feature = "metrics")]
        if let Some(name) = name {
            let outcome = match self.outcome {
                Outcome::Success => "success",
                Outcome::Overload => "overload",
                Outcome::Ignore => "ignore",
            };
            metrics::histogram!(
                "limiter_latency_seconds",
                "limiter" => name,
                "outcome" => outcome
            )
            .record(self.latency_micros as f64 / 1e6);
        }
        #[cfg(feature = "tracing")]
        {
            let limiter = name.unwrap_or("unnamed");
            match self.change {
                Change::Decreased => {
                    let cause = match self.outcome {
                        Outcome::Overload => "overload",
                        _ => "latency",
                    };
                    tracing::debug!(
                        target: "limiter",
                        limiter,
                        cause,
                        limit = self.limit,
                        latency_us = self.latency_micros,
                        in_flight = self.in_flight,
                        "limit cut"
                    );
                }
                Change::Increased => tracing::trace!(
                    target: "limiter",
                    limiter,
                    limit = self.limit,
                    latency_us = self.latency_micros,
                    in_flight = self.in_flight,
                    "limit raised"
                ),
                Change::Unchanged => {}
            }
        }
    }
}

/// Publishes an admission hold of `delay` (a `Retry-After`) under `name`: the `tracing` event
/// `admissions held` at `DEBUG`, fields `limiter` and `hold_ms`.
#[cfg(feature = "tracing")]
pub(crate) fn held(name: &Name, delay: core::time::Duration) {
    tracing::debug!(
        target: "limiter",
        limiter = name.get().unwrap_or("unnamed"),
        hold_ms = delay.as_millis() as u64,
        "admissions held"
    );
}
