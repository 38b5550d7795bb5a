//! The limiter in Prometheus: an axum server whose `/metrics` page is scraped by Prometheus,
//! the limiter publishing to the `metrics` facade (features `metrics`, `tower`, `http`).
//!
//! The part an application copies is `main`'s first lines: install the exporter's recorder,
//! spawn `report_metrics`, serve `handle.render()`. The rest sends a few requests and prints
//! what a scrape then reads, so the example ends by itself:
//!
//! ```text
//! cargo run -p limiter-tokio --features metrics,tower,http --example prometheus
//! ```

use std::time::Duration;

use axum::Router;
use axum::routing::get;
use limiter_core::{AimdConfig, HttpClassifier};
use limiter_tokio::{LimitLayer, Limiter};
use metrics_exporter_prometheus::PrometheusBuilder;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let prometheus = PrometheusBuilder::new().install_recorder()?;
    let limiter = Limiter::aimd(AimdConfig::default())?;
    tokio::spawn(limiter.report_metrics("api", Duration::from_secs(1)));
    let app = Router::new()
        .route("/", get(|| async { "hello" }))
        .layer(LimitLayer::new(limiter.clone(), HttpClassifier::new()).refusals_as_responses())
        .route(
            "/metrics",
            get(move || std::future::ready(prometheus.render())),
        );

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, app).await });
    for _ in 0..20 {
        fetch(addr, "/").await?;
    }
    tokio::time::sleep(Duration::from_millis(1_100)).await; // one report period
    let scrape = fetch(addr, "/metrics").await?;
    for line in scrape.lines().filter(|l| l.starts_with("limiter_")) {
        println!("{line}");
    }
    Ok(())
}

/// The body of `GET path` over a fresh connection.
async fn fetch(addr: std::net::SocketAddr, path: &str) -> std::io::Result<String> {
    let mut stream = TcpStream::connect(addr).await?;
    let request = format!("GET {path} HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).await?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).await?;
    Ok(answer
        .split_once("\r\n\r\n")
        .map_or(answer.as_str(), |(_, body)| body)
        .to_owned())
}
