//! End to end on 127.0.0.1 with the `metrics` feature: what an exporter would scrape agrees
//! with what the clients saw. The recorder is this process's global one, so this file holds one
//! test. Every loop is bounded in count and time.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use limiter_core::{Fixed, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};
use metrics_util::debugging::{DebugValue, DebuggingRecorder};

mod common;
use common::{get_once, serve};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_published_series_agree_with_what_the_clients_saw() {
    const LIMIT: u32 = 4;
    let recorder = DebuggingRecorder::new();
    let snapshotter = recorder.snapshotter();
    metrics::set_global_recorder(recorder).expect("the only recorder of this process");

    let limiter = Limiter::new(Fixed::new(LIMIT).unwrap());
    let reports = tokio::spawn(limiter.report_metrics("api", Duration::from_millis(20)));
    let handler_calls = Arc::new(AtomicUsize::new(0));
    let handled = handler_calls.clone();
    let app = Router::new()
        .route(
            "/",
            get(move || {
                let handled = handled.clone();
                async move {
                    handled.fetch_add(1, Ordering::SeqCst);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    "done"
                }
            }),
        )
        .layer(
            LimitLayer::new(limiter.clone(), HttpClassifier::new())
                .refuse_at_limit()
                .refusals_as_responses(),
        );
    let (addr, server) = serve(app).await;

    // 32 clients, 5 requests each, all at once: far more than 4 at a time.
    let clients: Vec<_> = (0..32)
        .map(|_| {
            tokio::spawn(async move {
                let mut statuses = Vec::new();
                for _ in 0..5 {
                    statuses.push(get_once(addr).await.0);
                }
                statuses
            })
        })
        .collect();
    let mut statuses = Vec::new();
    for client in clients {
        statuses.extend(client.await.unwrap());
    }
    server.abort();
    let ok = statuses.iter().filter(|&&s| s == 200).count() as f64;
    let refused = statuses.iter().filter(|&&s| s == 503).count() as f64;
    assert_eq!(ok + refused, statuses.len() as f64, "only 200s and 503s");
    assert!(refused > 0.0 && ok > 0.0, "{ok} served, {refused} refused");
    assert_eq!(handler_calls.load(Ordering::SeqCst) as f64, ok);

    // Two report periods later, the gauges and counters are the snapshot's.
    tokio::time::sleep(Duration::from_millis(60)).await;
    reports.abort();
    let series = snapshotter.snapshot().into_vec();
    let value = |name: &str, label: Option<(&str, &str)>| -> f64 {
        let found = series.iter().find(|(key, ..)| {
            let key = key.key();
            let labels: Vec<_> = key.labels().map(|l| (l.key(), l.value())).collect();
            key.name() == name
                && labels.contains(&("limiter", "api"))
                && label.is_none_or(|l| labels.contains(&l))
        });
        match found {
            Some((.., DebugValue::Counter(c))) => *c as f64,
            Some((.., DebugValue::Gauge(g))) => g.into_inner(),
            Some((.., DebugValue::Histogram(h))) => h.len() as f64,
            None => panic!("no series {name} {label:?} in {series:?}"),
        }
    };
    assert_eq!(value("limiter_admitted_total", None), ok);
    assert_eq!(
        value("limiter_refused_total", Some(("reason", "at_limit"))),
        refused
    );
    assert_eq!(
        value("limiter_refused_total", Some(("reason", "held"))),
        0.0
    );
    assert_eq!(value("limiter_in_flight", None), 0.0);
    assert_eq!(value("limiter_limit", None), f64::from(LIMIT));
    // One latency per admitted request, each a success.
    assert_eq!(
        value("limiter_latency_seconds", Some(("outcome", "success"))),
        ok
    );
    let s = limiter.snapshot();
    assert_eq!((s.admitted as f64, s.at_limit as f64), (ok, refused));
}
