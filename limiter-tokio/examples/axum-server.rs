//! Adaptive admission at an axum server's request boundary, measured on 127.0.0.1.
//!
//! The handler has a limited resource behind it: 8 slots, 10 ms of work each, so the server can
//! do about 800 requests a second, and every request past 8 at a time only waits. The load is
//! this example's own generator: 200 keep-alive HTTP/1.1 connections (hyper's client), each
//! sending its next `GET /` as soon as the previous answer has arrived (a closed loop, as wrk
//! runs). The same load meets the server three times:
//!
//! - **no limiter**: every request waits its turn for a slot;
//! - **refuse at the limit**: the default AIMD limiter in front of the handler, the excess
//!   answered `503` at once;
//! - **wait at most 20 ms**: the same, a request waiting in FIFO order up to 20 ms for a place.
//!
//! It prints, for each, the admitted requests per second (and their share of the no-limiter
//! figure), the p50 and p99 latency of admitted requests as the clients saw them, the share of
//! requests shed with `503`, and the limit the limiter settled at.
//!
//! ```text
//! cargo run --release -p limiter-tokio --features tower,http --example axum-server [-- SECONDS]
//! ```
//!
//! `SECONDS` (default 5) is how long each run is measured, after one second of warm-up.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::routing::get;
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::rt::TokioIo;
use limiter_core::{AimdConfig, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// The handler's resource: this many requests at a time.
const SLOTS: usize = 8;
/// What each request holds a slot for.
const WORK: Duration = Duration::from_millis(10);
/// Connections of the load generator.
const CONNECTIONS: usize = 200;
/// Answers before this are not counted.
const WARM_UP: Duration = Duration::from_secs(1);

/// How the server meets its load.
#[derive(Clone, Copy)]
enum Admission {
    Unlimited,
    RefuseAtLimit,
    MaxWait(Duration),
}

impl Admission {
    fn label(self) -> String {
        match self {
            Admission::Unlimited => "no limiter".into(),
            Admission::RefuseAtLimit => "refuse at the limit".into(),
            Admission::MaxWait(wait) => format!("wait at most {} ms", wait.as_millis()),
        }
    }
}

async fn handler(State(resource): State<Arc<Semaphore>>) -> &'static str {
    let _slot = resource
        .acquire()
        .await
        .expect("the semaphore is never closed");
    tokio::time::sleep(WORK).await;
    "done"
}

/// What one run measured.
struct Run {
    /// Latencies of the `200`s, in microseconds, sorted.
    admitted: Vec<u32>,
    shed: usize,
    seconds: f64,
    limit: Option<u32>,
}

impl Run {
    fn per_second(&self) -> f64 {
        self.admitted.len() as f64 / self.seconds
    }

    fn percentile_ms(&self, p: f64) -> f64 {
        if self.admitted.is_empty() {
            return f64::NAN;
        }
        let rank = ((self.admitted.len() - 1) as f64 * p).round() as usize;
        f64::from(self.admitted[rank]) / 1_000.0
    }

    fn shed_share(&self) -> f64 {
        let all = self.admitted.len() + self.shed;
        if all == 0 {
            0.0
        } else {
            self.shed as f64 / all as f64
        }
    }
}

/// Serves the handler behind `admission`, drives it for `measure` after the warm-up, and stops.
async fn run(admission: Admission, measure: Duration) -> Run {
    let resource = Arc::new(Semaphore::new(SLOTS));
    let routes = Router::new().route("/", get(handler)).with_state(resource);
    let limiter = Limiter::aimd(AimdConfig::default()).expect("the default configuration");
    let app = match admission {
        Admission::Unlimited => routes,
        Admission::RefuseAtLimit => routes.layer(
            LimitLayer::new(limiter.clone(), HttpClassifier::new())
                .refuse_at_limit()
                .refusals_as_responses(),
        ),
        Admission::MaxWait(wait) => routes.layer(
            LimitLayer::new(limiter.clone(), HttpClassifier::new())
                .max_wait(wait)
                .refusals_as_responses(),
        ),
    };
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a loopback port");
    let addr = listener.local_addr().expect("its address");
    let server = tokio::spawn(async move { axum::serve(listener, app).await });

    let started = Instant::now();
    let (from, until) = (started + WARM_UP, started + WARM_UP + measure);
    let connections: Vec<_> = (0..CONNECTIONS)
        .map(|_| tokio::spawn(connection(addr, from, until)))
        .collect();
    let (mut admitted, mut shed) = (Vec::new(), 0);
    for connection in connections {
        let (ok, refused) = connection.await.expect("a connection task");
        admitted.extend(ok);
        shed += refused;
    }
    server.abort();
    admitted.sort_unstable();
    let behind_limiter = !matches!(admission, Admission::Unlimited);
    Run {
        admitted,
        shed,
        seconds: measure.as_secs_f64(),
        limit: behind_limiter.then(|| limiter.limit()),
    }
}

/// One client connection: requests back to back until `until`; the latencies of its `200`s and
/// the count of its `503`s answered in `[from, until)`.
async fn connection(addr: SocketAddr, from: Instant, until: Instant) -> (Vec<u32>, usize) {
    let (mut ok, mut refused) = (Vec::new(), 0);
    let stream = TcpStream::connect(addr).await.expect("connect");
    stream.set_nodelay(true).expect("TCP_NODELAY");
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .expect("handshake");
    let driver = tokio::spawn(conn);
    while Instant::now() < until {
        let request = http::Request::get("/")
            .header(http::header::HOST, "loopback")
            .body(Empty::<Bytes>::new())
            .expect("a valid request");
        let sent = Instant::now();
        let Ok(response) = sender.send_request(request).await else {
            break;
        };
        let status = response.status();
        if response.into_body().collect().await.is_err() {
            break;
        }
        let answered = Instant::now();
        if answered < from || answered >= until {
            continue;
        }
        match status.as_u16() {
            200 => ok.push(u32::try_from((answered - sent).as_micros()).unwrap_or(u32::MAX)),
            503 => refused += 1,
            other => panic!("unexpected status {other}"),
        }
    }
    driver.abort();
    (ok, refused)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let seconds = std::env::args()
        .nth(1)
        .map_or(Ok(5), |s| s.parse::<u64>())
        .expect("SECONDS is a whole number");
    let measure = Duration::from_secs(seconds.max(1));
    println!(
        "handler: {SLOTS} slots x {} ms; load: {CONNECTIONS} keep-alive connections, closed loop; \
         {} s measured after {} s of warm-up",
        WORK.as_millis(),
        measure.as_secs(),
        WARM_UP.as_secs()
    );
    println!();
    println!(
        "| admission | admitted/s | of no limiter | p50 ms | p99 ms | shed | limit at the end |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut unlimited = None;
    for admission in [
        Admission::Unlimited,
        Admission::RefuseAtLimit,
        Admission::MaxWait(Duration::from_millis(20)),
    ] {
        let run = run(admission, measure).await;
        let base = *unlimited.get_or_insert(run.per_second());
        println!(
            "| {} | {:.0} | {:.0} % | {:.1} | {:.1} | {:.1} % | {} |",
            admission.label(),
            run.per_second(),
            100.0 * run.per_second() / base,
            run.percentile_ms(0.5),
            run.percentile_ms(0.99),
            100.0 * run.shed_share(),
            run.limit.map_or_else(|| "-".to_owned(), |l| l.to_string()),
        );
    }
}
