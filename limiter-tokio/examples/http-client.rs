//! An HTTP client through the limiter, against a provider with a quota, on 127.0.0.1.
//!
//! The provider serves 100 requests per one-second window (5 ms each) and answers the rest
//! `429 Too Many Requests` with `Retry-After` (whole seconds to the window's end). With
//! `hints`, every answer also carries `X-RateLimit-Limit`, `X-RateLimit-Remaining` and
//! `X-RateLimit-Reset`. The client is hyper-util's `Client`, called by 32 workers back to back:
//!
//! - **no limiter**: the client as it comes;
//! - **through the layer**: `LimitLayer` around the same client, with the default AIMD and
//!   `HttpClassifier`: a `429`'s `Retry-After` holds the limiter's admissions until it has
//!   passed, so the workers wait instead of sending;
//! - **through the layer, with hints**: a spent `X-RateLimit-Remaining: 0` and its reset hold
//!   admissions the same way, before any `429`.
//!
//! It prints, for each, the calls served per second, the `429`s the provider had to send, and
//! the share of requests they were.
//!
//! ```text
//! cargo run --release -p limiter-tokio --features tower,http --example http-client [-- SECONDS]
//! ```

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::routing::get;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use limiter_core::{AimdConfig, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};
use tokio::net::TcpListener;
use tower::{Service, ServiceExt};

/// The provider's quota: this many calls per window.
const QUOTA: u32 = 100;
const WINDOW: Duration = Duration::from_secs(1);
/// What a served call takes.
const WORK: Duration = Duration::from_millis(5);
/// Workers of the client, each calling back to back.
const WORKERS: usize = 32;

/// The provider's books: when its window opened, and the calls served in it.
struct Quota {
    opened: Instant,
    used: u32,
    hints: bool,
}

async fn provider(State(quota): State<Arc<Mutex<Quota>>>) -> (StatusCode, HeaderMap) {
    let (served, remaining, reset, hints) = {
        let mut q = quota.lock().expect("the provider's lock");
        let now = Instant::now();
        while now >= q.opened + WINDOW {
            q.opened += WINDOW;
            q.used = 0;
        }
        let served = q.used < QUOTA;
        if served {
            q.used += 1;
        }
        // Whole seconds to the window's end, rounded up, as `Retry-After` and resets are sent.
        let reset = (q.opened + WINDOW - now).as_secs_f64().ceil().max(1.0) as u64;
        (served, QUOTA - q.used, reset, q.hints)
    };
    let mut headers = HeaderMap::new();
    if hints {
        headers.insert("x-ratelimit-limit", HeaderValue::from(QUOTA));
        headers.insert("x-ratelimit-remaining", HeaderValue::from(remaining));
        headers.insert("x-ratelimit-reset", HeaderValue::from(reset));
    }
    if !served {
        headers.insert(http::header::RETRY_AFTER, HeaderValue::from(reset));
        return (StatusCode::TOO_MANY_REQUESTS, headers);
    }
    tokio::time::sleep(WORK).await;
    (StatusCode::OK, headers)
}

/// Serves the provider on a free loopback port.
async fn serve(hints: bool) -> (SocketAddr, tokio::task::JoinHandle<std::io::Result<()>>) {
    let quota = Quota {
        opened: Instant::now(),
        used: 0,
        hints,
    };
    let app = Router::new()
        .route("/", get(provider))
        .with_state(Arc::new(Mutex::new(quota)));
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    (
        addr,
        tokio::spawn(async move { axum::serve(listener, app).await }),
    )
}

/// Calls `/` through `client` from `WORKERS` workers until `until`; the statuses seen.
async fn drive<S>(client: S, addr: SocketAddr, until: Instant) -> (usize, usize)
where
    S: Service<http::Request<Empty<Bytes>>, Response = http::Response<hyper::body::Incoming>>
        + Clone
        + Send
        + 'static,
    S::Error: std::fmt::Debug,
    S::Future: Send,
{
    let workers: Vec<_> = (0..WORKERS)
        .map(|_| {
            let mut client = client.clone();
            tokio::spawn(async move {
                let (mut ok, mut throttled) = (0, 0);
                while Instant::now() < until {
                    let request = http::Request::get(format!("http://{addr}/"))
                        .body(Empty::new())
                        .expect("a valid request");
                    let response = client
                        .ready()
                        .await
                        .expect("the client is ready")
                        .call(request)
                        .await
                        .expect("an answer");
                    let status = response.status();
                    response.into_body().collect().await.expect("the body");
                    match status.as_u16() {
                        200 => ok += 1,
                        429 => throttled += 1,
                        other => panic!("unexpected status {other}"),
                    }
                }
                (ok, throttled)
            })
        })
        .collect();
    let (mut ok, mut throttled) = (0, 0);
    for worker in workers {
        let (o, t) = worker.await.expect("a worker");
        ok += o;
        throttled += t;
    }
    (ok, throttled)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let seconds = std::env::args()
        .nth(1)
        .map_or(Ok(5), |s| s.parse::<u64>())
        .expect("SECONDS is a whole number");
    let measure = Duration::from_secs(seconds.max(1));
    println!(
        "provider: {QUOTA} calls per {} s window, {} ms each, 429 + Retry-After past it; \
         client: {WORKERS} workers back to back for {} s",
        WINDOW.as_secs(),
        WORK.as_millis(),
        measure.as_secs()
    );
    println!();
    println!("| client | served/s | 429s sent | of all requests | limit at the end |");
    println!("|---|---:|---:|---:|---:|");
    for (label, limited, hints) in [
        ("no limiter", false, false),
        ("through the layer", true, false),
        ("through the layer, with hints", true, true),
    ] {
        let (addr, server) = serve(hints).await;
        let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
        let until = Instant::now() + measure;
        let limiter = Limiter::aimd(AimdConfig::default()).expect("the default configuration");
        let (ok, throttled) = if limited {
            let layer = LimitLayer::new(limiter.clone(), HttpClassifier::new());
            drive(tower::Layer::layer(&layer, client), addr, until).await
        } else {
            drive(client, addr, until).await
        };
        server.abort();
        println!(
            "| {label} | {:.0} | {throttled} | {:.1} % | {} |",
            ok as f64 / measure.as_secs_f64(),
            100.0 * throttled as f64 / (ok + throttled).max(1) as f64,
            if limited {
                limiter.limit().to_string()
            } else {
                "-".to_owned()
            },
        );
    }
}
