//! What the loopback tests share: an axum server on a free port of 127.0.0.1, a raw HTTP/1.1
//! `GET`, and an upstream that throttles its first call. Every wait is bounded.
#![allow(dead_code, reason = "each test file uses the helpers it needs")]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use axum::Router;
use axum::http::StatusCode;
use axum::routing::get;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// Serves `app` on a free loopback port; the server stops when the returned task is aborted.
pub(crate) async fn serve(app: Router) -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let server = tokio::spawn(async move {
        axum::serve(listener, app).await.unwrap();
    });
    (addr, server)
}

/// One `GET /` over a fresh connection; the status code and the `Retry-After` header, if any.
pub(crate) async fn get_once(addr: std::net::SocketAddr) -> (u16, Option<String>) {
    let exchange = async {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        stream
            .write_all(b"GET / HTTP/1.1\r\nHost: loopback\r\nConnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = Vec::new();
        stream.read_to_end(&mut answer).await.unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    };
    let answer = tokio::time::timeout(Duration::from_secs(10), exchange)
        .await
        .expect("answered within 10 s");
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {answer:?}"));
    let retry_after = answer.lines().find_map(|line| {
        let (name, value) = line.split_once(':')?;
        name.eq_ignore_ascii_case("retry-after")
            .then(|| value.trim().to_owned())
    });
    (status, retry_after)
}

/// An upstream that answers its first call "429, Retry-After: 1" and serves every later one,
/// and the count of the calls it has seen.
pub(crate) fn throttles_its_first_call() -> (Router, Arc<AtomicUsize>) {
    let calls = Arc::new(AtomicUsize::new(0));
    let counted = calls.clone();
    let upstream = Router::new().route(
        "/",
        get(move || {
            let counted = counted.clone();
            async move {
                if counted.fetch_add(1, Ordering::SeqCst) == 0 {
                    (
                        StatusCode::TOO_MANY_REQUESTS,
                        [("retry-after", "1")],
                        "slow down",
                    )
                } else {
                    (StatusCode::OK, [("x-served", "yes")], "ok")
                }
            }
        }),
    );
    (upstream, calls)
}
