//! Keeping a learned limit across a restart: on shutdown the limiter's limit is written to a
//! file as a [`LimitRecord`]; on start it is read back, aged (pulled halfway back toward the
//! initial limit for every hour it sat on disk) and used as the new limiter's initial limit, so
//! the process resumes near the concurrency its dependency took instead of relearning it from 4.
//!
//! ```text
//! cargo run --release --example restart -p limiter-tokio
//! ```
//!
//! The dependency serves 24 calls at a time in 10 ms; every call beyond that waits 10 ms more.
//! 64 callers keep it busy for two seconds (on tokio's paused clock, so the run is instant and
//! the same every time).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use limiter_core::{AimdConfig, LimitRecord, Outcome, RecordError, classify_fn};
use limiter_tokio::Limiter;

/// The key the record belongs to: one per dependency (a hash of its name, say).
const SCOPE: u64 = 0x5EED_0001;
/// How fast a stored limit is forgotten: halfway back to the initial limit per hour.
const HALF_LIFE_SECS: u32 = 3_600;
/// Where a limiter starts without a record, and the bounds it keeps to.
const INITIAL: u32 = 4;
const BOUNDS: (u32, u32) = (1, 64);
const CONFIG: AimdConfig = AimdConfig::DEFAULT
    .initial(INITIAL)
    .bounds(BOUNDS.0, BOUNDS.1);

/// A dependency that serves `CAPACITY` calls at a time in `BASE`, and queues the rest.
struct Dependency {
    in_flight: AtomicU32,
}

const CAPACITY: u32 = 24;
const BASE: Duration = Duration::from_millis(10);

impl Dependency {
    async fn call(&self) {
        let in_flight = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        tokio::time::sleep(BASE * (1 + in_flight.saturating_sub(CAPACITY))).await;
        self.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
}

/// 64 callers through `limiter` for `run_for`; returns the limit at the end.
async fn serve(limiter: &Limiter, run_for: Duration) -> u32 {
    let dependency = Arc::new(Dependency {
        in_flight: AtomicU32::new(0),
    });
    let until = tokio::time::Instant::now() + run_for;
    let callers: Vec<_> = (0..64)
        .map(|_| {
            let (limiter, dependency) = (limiter.clone(), Arc::clone(&dependency));
            tokio::spawn(async move {
                let ok = classify_fn(|(): &()| Outcome::Success);
                while tokio::time::Instant::now() < until {
                    let _ = limiter.run(dependency.call(), &ok).await;
                }
            })
        })
        .collect();
    for caller in callers {
        caller.await.expect("a caller panicked");
    }
    limiter.limit()
}

/// Writes `limiter`'s limit to `path` as exported at `now_unix_secs`.
fn save(limiter: &Limiter, path: &Path, now_unix_secs: u64) -> std::io::Result<()> {
    let record = LimitRecord::from_snapshot(&limiter.snapshot(), SCOPE, now_unix_secs);
    std::fs::write(path, record.encode())
}

/// The initial limit to start from at `now_unix_secs`: the stored one, aged, or the configured
/// one if there is no usable record (missing, damaged, another scope's), with why.
fn restore(path: &Path, now_unix_secs: u64) -> (u32, Option<String>) {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => return (INITIAL, Some(format!("no record: {e}"))),
    };
    match LimitRecord::decode(&bytes, SCOPE) {
        Ok(record) => {
            let limit = record.restored_limit(INITIAL, BOUNDS, now_unix_secs, HALF_LIFE_SECS);
            (limit, None)
        }
        Err(e @ (RecordError::Length | RecordError::Version | RecordError::Checksum)) => {
            (INITIAL, Some(format!("unreadable record: {e}")))
        }
        Err(e) => (INITIAL, Some(format!("record refused: {e}"))),
    }
}

fn record_path() -> PathBuf {
    std::env::temp_dir().join(format!("limiter-restart-{}.bin", std::process::id()))
}

/// A whole run: learn, save, "restart" `away` later, restore. The limits learned and restored.
async fn run(path: &Path, saved_at: u64, away: u64) -> (u32, u32, Option<String>) {
    let first = Limiter::aimd(CONFIG).expect("a valid configuration");
    let learned = serve(&first, Duration::from_secs(2)).await;
    save(&first, path, saved_at).expect("the record is written");
    drop(first);
    let (initial, why) = restore(path, saved_at + away);
    let second = Limiter::aimd(CONFIG.initial(initial)).expect("a restored limit within bounds");
    (learned, second.limit(), why)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .expect("a runtime");
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let path = record_path();
    for (label, away) in [
        ("a minute", 60),
        ("an hour", 3_600),
        ("two days", 2 * 86_400),
    ] {
        let (learned, restored, why) = runtime.block_on(run(&path, now, away));
        println!(
            "learned {learned}, restarted {label} later: starts at {restored}{}",
            why.map(|w| format!(" ({w})")).unwrap_or_default()
        );
    }
    std::fs::write(&path, b"damaged").expect("the file is written");
    let (initial, why) = restore(&path, now);
    println!(
        "a damaged file: starts at {initial} ({})",
        why.unwrap_or_default()
    );
    let _ = std::fs::remove_file(&path);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_restart_resumes_near_the_learned_limit_and_ages_it() {
        let path = record_path().with_extension("test.bin");
        let (learned, restored, why) = run(&path, 1_000_000, 60).await;
        assert!(learned > 12, "learned {learned}: the dependency takes 24");
        assert_eq!(why, None);
        assert!(
            restored + 1 >= learned && restored <= learned,
            "{restored} vs {learned}"
        );
        // An hour on disk: halfway back to the initial 4.
        let (learned, restored, _) = run(&path, 1_000_000, 3_600).await;
        let halfway = (learned + INITIAL).div_ceil(2);
        assert!(restored.abs_diff(halfway) <= 1, "{restored} vs {halfway}");
        // Two days: forgotten.
        let (_, restored, _) = run(&path, 1_000_000, 2 * 86_400).await;
        assert_eq!(restored, INITIAL);
        // A damaged or missing file, or another dependency's record: the configured start.
        std::fs::write(&path, b"damaged").unwrap();
        let (initial, why) = restore(&path, 1_000_000);
        assert_eq!(initial, INITIAL);
        assert!(why.unwrap().starts_with("unreadable record"));
        let other = LimitRecord {
            scope: SCOPE + 1,
            limit: 40,
            min: 1,
            max: 64,
            at_unix_secs: 1_000_000,
        };
        std::fs::write(&path, other.encode()).unwrap();
        assert_eq!(restore(&path, 1_000_000).0, INITIAL);
        std::fs::remove_file(&path).unwrap();
        assert!(
            restore(&path, 1_000_000)
                .1
                .unwrap()
                .starts_with("no record")
        );
    }
}
