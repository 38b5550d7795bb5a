//! [`metrics_hook`]: a limiter's snapshots published to the `metrics` facade (feature
//! `metrics`), for Prometheus or any other exporter the application installs.

use crate::gate::snapshot::Snapshot;

/// A report hook for [`Limiter::report`](crate::Limiter::report) and `report_owned` that
/// publishes each snapshot through the `metrics` facade, every series labelled
/// `limiter = name`:
///
/// | series | kind | what |
/// |---|---|---|
/// | `limiter_limit` | gauge | the current limit |
/// | `limiter_in_flight` | gauge | requests in flight |
/// | `limiter_queued` | gauge | requests waiting |
/// | `limiter_oldest_wait_seconds` | gauge | how long the oldest waiter has waited (0: none) |
/// | `limiter_baseline_seconds` | gauge | the controller's latency baseline, once it has one |
/// | `limiter_admitted_total` | counter | requests admitted |
/// | `limiter_refused_total` | counter, `reason` = `at_limit`, `held`, `queue_full`, `timed_out` | requests refused, by why |
/// | `limiter_cancelled_total` | counter | permits dropped without an outcome |
/// | `limiter_increases_total`, `limiter_decreases_total` | counter | samples that grew or cut the limit |
///
/// Counters are set to the snapshot's totals (`absolute`), so a period missed costs nothing.
/// [`Limiter::report_metrics`](crate::Limiter::report_metrics) runs this hook every period and
/// names the limiter, which adds the histogram `limiter_latency_seconds` (labels `limiter`,
/// `outcome`): each sample's latency from admission.
///
/// ```
/// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex, metrics_hook};
///
/// let clock = ManualClock::new();
/// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(2).unwrap(), &clock);
/// let mut publish = metrics_hook("payments-api");
/// gate.try_acquire().unwrap().success();
/// publish(gate.snapshot()); // what `report` calls every period
/// ```
pub fn metrics_hook(name: &'static str) -> impl FnMut(Snapshot) + Send + 'static {
    move |s: Snapshot| {
        let gauge = |series: &'static str, value: f64| {
            metrics::gauge!(series, "limiter" => name).set(value);
        };
        gauge("limiter_limit", f64::from(s.limit));
        gauge("limiter_in_flight", f64::from(s.in_flight));
        gauge("limiter_queued", f64::from(s.queued));
        let oldest = s.oldest_wait_micros.unwrap_or(0);
        gauge("limiter_oldest_wait_seconds", oldest as f64 / 1e6);
        if let Some(baseline) = s.baseline_micros {
            gauge("limiter_baseline_seconds", f64::from(baseline) / 1e6);
        }
        let counter = |series: &'static str, value: u64| {
            metrics::counter!(series, "limiter" => name).absolute(value);
        };
        counter("limiter_admitted_total", s.admitted);
        counter("limiter_cancelled_total", s.cancelled);
        counter("limiter_increases_total", s.increases);
        counter("limiter_decreases_total", s.decreases);
        for (reason, value) in [
            ("at_limit", s.at_limit),
            ("held", s.held),
            ("queue_full", s.queue_full),
            ("timed_out", s.timed_out),
        ] {
            metrics::counter!("limiter_refused_total", "limiter" => name, "reason" => reason)
                .absolute(value);
        }
    }
}

#[cfg(test)]
mod tests {
    use core::task::{Context, Waker};
    use core::time::Duration;

    use metrics_util::debugging::{DebugValue, DebuggingRecorder};

    use super::*;
    use crate::controller::Fixed;
    use crate::gate::Gate;
    use crate::gate::mutex::NoopRawMutex;
    use crate::gate::waiters::InlineQueue;
    use crate::time::clock::ManualClock;

    #[test]
    fn every_series_carries_the_snapshot_and_the_limiters_name() {
        let clock = ManualClock::new();
        let gate: Gate<NoopRawMutex, _, _, InlineQueue<1>> =
            Gate::new(Fixed::new(1).unwrap(), &clock);
        let held = gate.try_acquire().unwrap();
        assert!(gate.try_acquire().is_err()); // at the limit
        let mut cx = Context::from_waker(Waker::noop());
        let mut waiting = core::pin::pin!(gate.acquire());
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
        let mut full = core::pin::pin!(gate.acquire());
        assert!(full.as_mut().poll(&mut cx).is_ready()); // queue full
        clock.advance(Duration::from_millis(250));

        let recorder = DebuggingRecorder::new();
        let snapshotter = recorder.snapshotter();
        let mut publish = metrics_hook("api");
        metrics::with_local_recorder(&recorder, || publish(gate.snapshot()));
        let series = snapshotter.snapshot().into_vec();
        let value = |name: &str, reason: Option<&str>| {
            series
                .iter()
                .find(|(key, ..)| {
                    let key = key.key();
                    let labels: Vec<_> = key.labels().map(|l| (l.key(), l.value())).collect();
                    key.name() == name
                        && labels.contains(&("limiter", "api"))
                        && reason.is_none_or(|r| labels.contains(&("reason", r)))
                })
                .map_or_else(
                    || panic!("no {name} {reason:?}"),
                    |(.., v)| match v {
                        DebugValue::Gauge(g) => g.into_inner(),
                        DebugValue::Counter(c) => *c as f64,
                        DebugValue::Histogram(_) => f64::NAN,
                    },
                )
        };
        assert_eq!(value("limiter_limit", None), 1.0);
        assert_eq!(value("limiter_in_flight", None), 1.0);
        assert_eq!(value("limiter_queued", None), 1.0);
        assert_eq!(value("limiter_oldest_wait_seconds", None), 0.25);
        assert_eq!(value("limiter_admitted_total", None), 1.0);
        assert_eq!(value("limiter_refused_total", Some("at_limit")), 1.0);
        assert_eq!(value("limiter_refused_total", Some("queue_full")), 1.0);
        assert_eq!(value("limiter_refused_total", Some("held")), 0.0);
        drop(held);
    }
}
