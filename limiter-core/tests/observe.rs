//! What the features `metrics` and `tracing` publish: a latency histogram per named limiter and
//! an event for each cut, rise and admission hold.
#![cfg(all(feature = "metrics", feature = "tracing"))]

use core::time::Duration;
use std::sync::{Arc, Mutex};

use metrics_util::debugging::{DebugValue, DebuggingRecorder};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Event, Metadata, Subscriber};

use limiter_core::{AimdConfig, AimdF32, Gate, InlineQueue, ManualClock, NoopRawMutex};

/// An event's fields, `message` and `level` included, in text.
type Fields = Vec<(String, String)>;

/// A subscriber that keeps each event.
#[derive(Clone, Default)]
struct Events(Arc<Mutex<Vec<Fields>>>);

struct Visitor<'a>(&'a mut Fields);

impl Visit for Visitor<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn core::fmt::Debug) {
        self.0.push((field.name().to_owned(), format!("{value:?}")));
    }
    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.push((field.name().to_owned(), value.to_owned()));
    }
}

impl Subscriber for Events {
    fn enabled(&self, _: &Metadata<'_>) -> bool {
        true
    }
    fn new_span(&self, _: &Attributes<'_>) -> Id {
        Id::from_u64(1)
    }
    fn record(&self, _: &Id, _: &Record<'_>) {}
    fn record_follows_from(&self, _: &Id, _: &Id) {}
    fn event(&self, event: &Event<'_>) {
        let mut fields = vec![("level".to_owned(), event.metadata().level().to_string())];
        event.record(&mut Visitor(&mut fields));
        self.0.lock().unwrap().push(fields);
    }
    fn enter(&self, _: &Id) {}
    fn exit(&self, _: &Id) {}
}

fn field<'a>(event: &'a [(String, String)], name: &str) -> &'a str {
    event
        .iter()
        .find(|(n, _)| n == name)
        .map_or_else(|| panic!("no field {name} in {event:?}"), |(_, v)| v)
}

#[test]
fn a_cut_is_an_event_with_its_cause_and_each_named_sample_is_in_the_histogram() {
    let clock = ManualClock::new();
    let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> =
        Gate::new(AimdF32::new(AimdConfig::default()).unwrap(), &clock);
    let before = gate.snapshot().limit;
    let events = Events::default();
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    tracing::subscriber::with_default(events.clone(), || {
        metrics::with_local_recorder(&recorder, || {
            // Unnamed: events, but no histogram.
            let permit = gate.try_acquire().unwrap();
            clock.advance(Duration::from_millis(40));
            permit.overload();
            assert!(snapshotter.snapshot().into_vec().is_empty());
            gate.set_name("api").unwrap();
            let permit = gate.try_acquire().unwrap();
            clock.advance(Duration::from_millis(30));
            permit.success();
            let permit = gate.try_acquire().unwrap();
            permit.hold_admissions_for(Duration::from_millis(1_500));
            permit.ignore();
        });
    });

    let events = events.0.lock().unwrap();
    let cut = &events[0];
    assert_eq!(field(cut, "message"), "limit cut");
    assert_eq!(field(cut, "level"), "DEBUG");
    assert_eq!(field(cut, "limiter"), "unnamed");
    assert_eq!(field(cut, "cause"), "overload");
    assert_eq!(field(cut, "latency_us"), "40000");
    assert_eq!(field(cut, "in_flight"), "0");
    let after: u32 = field(cut, "limit").parse().unwrap();
    assert!(after < before, "{after} < {before}");
    let held = events.last().unwrap();
    assert_eq!(field(held, "message"), "admissions held");
    assert_eq!(field(held, "limiter"), "api");
    assert_eq!(field(held, "hold_ms"), "1500");

    // One series per outcome, each with its latencies; nothing from before the name.
    let mut series: Vec<_> = snapshotter
        .snapshot()
        .into_vec()
        .into_iter()
        .map(|(key, _, _, value)| {
            let key = key.key();
            assert_eq!(key.name(), "limiter_latency_seconds");
            let labels: Vec<_> = key
                .labels()
                .map(|l| format!("{}={}", l.key(), l.value()))
                .collect();
            let DebugValue::Histogram(values) = value else {
                panic!("{value:?}")
            };
            let values: Vec<f64> = values.iter().map(|v| v.into_inner()).collect();
            (labels.join(","), values)
        })
        .collect();
    series.sort_by(|a, b| a.0.cmp(&b.0));
    assert_eq!(
        series,
        [
            ("limiter=api,outcome=ignore".to_owned(), vec![0.0]),
            ("limiter=api,outcome=success".to_owned(), vec![0.03]),
        ]
    );
}
