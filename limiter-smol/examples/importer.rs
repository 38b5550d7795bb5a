//! An importer on smol, fetching from a simulated provider that enforces a quota per API key, as
//! in seed 004: key A's quota goes 40 → 10 → 30 calls per tick over three phases, key B's stays
//! at 20. Each key has its own limiter, so A's throttling never slows B.
//!
//! ```text
//! cargo run --release --example importer -p limiter-smol
//! ```
//!
//! A tick is 20 ms and a call takes one tick, so a quota of `q` per tick sustains `q` calls in
//! flight; a phase lasts 2 s. Sixty workers per key import as fast as their limiter lets them.

use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use limiter_core::{AimdConfig, HttpClassifier};
use limiter_smol::Limiter;

const TICK: Duration = Duration::from_millis(20);
const PHASE: Duration = Duration::from_secs(2);
const WORKERS: usize = 60;

/// One API key's quota at the provider.
struct Key {
    name: &'static str,
    quota: [u32; 3],
    /// The tick being counted and the calls accepted in it, packed as `tick << 32 | count`.
    window: AtomicU64,
}

impl Key {
    /// Accepts the call if this tick's quota has room: 200, else 429.
    fn admit(&self, start: Instant) -> u16 {
        let elapsed = start.elapsed();
        let tick = (elapsed.as_millis() / TICK.as_millis()) as u64;
        let quota = self.quota[phase(elapsed)];
        let mut window = self.window.load(Ordering::SeqCst);
        loop {
            let (at, count) = (window >> 32, window as u32);
            let count = if at == tick { count } else { 0 };
            if count >= quota {
                return 429;
            }
            let next = (tick << 32) | u64::from(count + 1);
            match self
                .window
                .compare_exchange(window, next, Ordering::SeqCst, Ordering::SeqCst)
            {
                Ok(_) => return 200,
                Err(seen) => window = seen,
            }
        }
    }
}

fn phase(elapsed: Duration) -> usize {
    ((elapsed.as_millis() / PHASE.as_millis()) as usize).min(2)
}

/// Per key and phase: successes, throttled attempts, and the limit summed over samples.
#[derive(Default)]
struct Tally {
    ok: [AtomicU32; 3],
    throttled: [AtomicU32; 3],
    limit_sum: [AtomicU64; 3],
    samples: [AtomicU32; 3],
}

fn main() {
    let keys = [
        Arc::new(Key {
            name: "A",
            quota: [40, 10, 30],
            window: AtomicU64::new(0),
        }),
        Arc::new(Key {
            name: "B",
            quota: [20, 20, 20],
            window: AtomicU64::new(0),
        }),
    ];
    let config = AimdConfig::default().initial(4).bounds(1, 100);
    let limiters: Vec<Limiter> = keys
        .iter()
        .map(|_| Limiter::aimd(config).unwrap())
        .collect();
    let tallies: Vec<Arc<Tally>> = keys.iter().map(|_| Arc::default()).collect();
    let start = Instant::now();
    let end = start + 3 * PHASE;

    smol::block_on(async {
        let mut tasks = Vec::new();
        for ((key, limiter), tally) in keys.iter().zip(&limiters).zip(&tallies) {
            for _ in 0..WORKERS {
                let (key, limiter, tally) = (key.clone(), limiter.clone(), tally.clone());
                tasks.push(smol::spawn(async move {
                    while Instant::now() < end {
                        let call = async {
                            let status = key.admit(start);
                            async_io::Timer::after(TICK).await;
                            status
                        };
                        let status = limiter.run(call, HttpClassifier::new()).await.unwrap();
                        let p = phase(start.elapsed());
                        let counter = if status == 200 {
                            &tally.ok
                        } else {
                            &tally.throttled
                        };
                        counter[p].fetch_add(1, Ordering::Relaxed);
                    }
                }));
            }
            // The limit, sampled every tick.
            let (limiter, tally) = (limiter.clone(), tally.clone());
            tasks.push(smol::spawn(async move {
                while Instant::now() < end {
                    let p = phase(start.elapsed());
                    tally.limit_sum[p].fetch_add(u64::from(limiter.limit()), Ordering::Relaxed);
                    tally.samples[p].fetch_add(1, Ordering::Relaxed);
                    async_io::Timer::after(TICK).await;
                }
            }));
        }
        for task in tasks {
            task.await;
        }
    });

    println!("key  phase  quota/tick  ok/tick  throttled  limit mean  (ideal limit = quota)");
    for (key, tally) in keys.iter().zip(&tallies) {
        for p in 0..3 {
            let ticks = (PHASE.as_millis() / TICK.as_millis()) as f64;
            let ok = f64::from(tally.ok[p].load(Ordering::Relaxed)) / ticks;
            let samples = f64::from(tally.samples[p].load(Ordering::Relaxed).max(1));
            let limit = tally.limit_sum[p].load(Ordering::Relaxed) as f64 / samples;
            println!(
                "{:<4} {:>5}  {:>10}  {ok:>7.1}  {:>9}  {limit:>10.1}",
                key.name,
                p + 1,
                key.quota[p],
                tally.throttled[p].load(Ordering::Relaxed),
            );
        }
    }
}
