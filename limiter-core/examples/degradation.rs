//! A dependency loses three quarters of its capacity mid-run: a fixed limit of 16 against AIMD.
//!
//! The scenario of seed 000, step 3, replayed on a virtual clock (deterministic, instant):
//! an upstream whose service time is `5 ms × (1 + in-flight above capacity)` and which times out
//! anything above 25 in flight; two calls arrive every millisecond for 500 ms; at 250 ms the
//! capacity drops from 16 to 4. Every call goes through the real [`Gate`], waiting in its FIFO
//! queue when the limit is reached, and the run lasts until every call has finished.
//!
//! ```text
//! cargo run --release -p limiter-core --example degradation
//! ```

use std::collections::{BTreeMap, BinaryHeap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use limiter_core::{
    Acquire, AimdConfig, AimdF32, Clock, Controller, Fixed, Gate, Instant, ManualClock,
    NoopRawMutex, Outcome, Permit, Ratio,
};

const BASE: u64 = 5_000; // µs
const HARD_CAP: u32 = 25;
const ARRIVALS_PER_MS: u64 = 2;
const DURATION_MS: u64 = 500;
const DEGRADE_AT: u64 = 250_000; // µs
const QUEUE: usize = 1_024;

type SimGate<'c, C> = Gate<NoopRawMutex, C, &'c ManualClock, QUEUE>;

#[derive(Default)]
struct Flag(AtomicBool);

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// A call finishes: (call id, timed out).
    Done(u64, bool),
    Arrival(u64),
}

/// A min-heap of (time, arrival order, event).
#[derive(Default)]
struct Events {
    heap: BinaryHeap<std::cmp::Reverse<(u64, u64, Event)>>,
    seq: u64,
}

impl Events {
    fn push(&mut self, at: u64, event: Event) {
        self.seq += 1;
        self.heap.push(std::cmp::Reverse((at, self.seq, event)));
    }

    fn pop(&mut self) -> Option<(u64, Event)> {
        self.heap.pop().map(|std::cmp::Reverse((at, _, e))| (at, e))
    }
}

/// The upstream of seed 000: service time grows with in-flight above capacity; past a hard cap
/// it times out. Returns (service time in µs, timed out).
fn call_upstream(in_flight: &mut u32, now: u64) -> (u64, bool) {
    *in_flight += 1;
    let capacity = if now < DEGRADE_AT { 16 } else { 4 };
    if *in_flight > HARD_CAP {
        (BASE, true)
    } else {
        (
            BASE * (1 + u64::from(in_flight.saturating_sub(capacity))),
            false,
        )
    }
}

struct Report {
    ok: usize,
    failed: usize,
    p95_all_ms: f64,
    p95_after_ms: f64,
    p50_after_ms: f64,
    makespan_ms: f64,
    final_limit: u32,
    decreases: u64,
}

fn p(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1_000.0
}

fn run<C: Controller>(controller: C) -> Report {
    let clock = ManualClock::new();
    let gate: SimGate<'_, C> = Gate::new(controller, &clock);
    let mut events = Events::default();
    for i in 0..DURATION_MS * ARRIVALS_PER_MS {
        events.push((i / ARRIVALS_PER_MS) * 1_000, Event::Arrival(i));
    }

    let mut waiting: BTreeMap<u64, (Acquire<&SimGate<'_, C>>, Arc<Flag>)> = BTreeMap::new();
    let mut running: BTreeMap<u64, (Permit<&SimGate<'_, C>>, u64)> = BTreeMap::new();
    let mut upstream_in_flight = 0u32;
    let (mut ok, mut failed) = (0, 0);
    let (mut all, mut after) = (Vec::new(), Vec::new());

    while let Some((now, event)) = events.pop() {
        clock.set(Instant::from_micros(now));
        match event {
            Event::Arrival(id) => {
                let flag = Arc::new(Flag::default());
                let mut acquire = gate.acquire();
                let waker = Waker::from(Arc::clone(&flag));
                match Pin::new(&mut acquire).poll(&mut Context::from_waker(&waker)) {
                    Poll::Ready(Ok(permit)) => {
                        let (service, timed_out) = call_upstream(&mut upstream_in_flight, now);
                        running.insert(id, (permit, now));
                        events.push(now + service, Event::Done(id, timed_out));
                    }
                    Poll::Ready(Err(full)) => panic!("{full}"),
                    Poll::Pending => {
                        waiting.insert(id, (acquire, flag));
                    }
                }
            }
            Event::Done(id, timed_out) => {
                upstream_in_flight -= 1;
                let (permit, started) = running.remove(&id).expect("running");
                if timed_out {
                    failed += 1;
                    permit.record(Outcome::Overload);
                } else {
                    ok += 1;
                    let service = now - started;
                    all.push(service);
                    if started >= DEGRADE_AT {
                        after.push(service);
                    }
                    permit.record(Outcome::Success);
                }
                // Run every waiter the release woke, oldest first.
                let woken: Vec<u64> = waiting
                    .iter()
                    .filter(|(_, (_, f))| f.0.load(Ordering::SeqCst))
                    .map(|(id, _)| *id)
                    .collect();
                for id in woken {
                    let (mut acquire, flag) = waiting.remove(&id).expect("waiting");
                    let waker = Waker::from(flag);
                    match Pin::new(&mut acquire).poll(&mut Context::from_waker(&waker)) {
                        Poll::Ready(Ok(permit)) => {
                            let (service, timed_out) = call_upstream(&mut upstream_in_flight, now);
                            running.insert(id, (permit, now));
                            events.push(now + service, Event::Done(id, timed_out));
                        }
                        other => panic!("woken but not admitted: {:?}", other.is_pending()),
                    }
                }
            }
        }
    }
    assert!(waiting.is_empty() && running.is_empty());
    all.sort_unstable();
    after.sort_unstable();
    let snapshot = gate.snapshot();
    Report {
        ok,
        failed,
        p95_all_ms: p(&all, 0.95),
        p95_after_ms: p(&after, 0.95),
        p50_after_ms: p(&after, 0.50),
        makespan_ms: clock.now().as_micros() as f64 / 1_000.0,
        final_limit: snapshot.limit,
        decreases: snapshot.decreases,
    }
}

fn main() {
    let aimd = AimdConfig::default().initial(16).bounds(1, 64);
    let rows = [
        ("fixed limit 16", run(Fixed::new(16).expect("valid"))),
        (
            "AIMD, 20 ms target",
            run(AimdF32::new(aimd.target(Duration::from_millis(20))).expect("valid")),
        ),
        (
            "AIMD, bare median",
            run(
                AimdF32::new(aimd.baseline(Ratio::from_int(2), 10, Duration::ZERO)).expect("valid"),
            ),
        ),
        ("AIMD, defaults", run(AimdF32::new(aimd).expect("valid"))),
    ];
    println!("upstream capacity 16 -> 4 at 250 ms; 1000 calls over 500 ms; virtual time");
    println!(
        "{:>20} {:>6} {:>6} {:>10} {:>16} {:>16} {:>10} {:>7} {:>6}",
        "limiter",
        "ok",
        "fail",
        "p95 all",
        "p50 after 250ms",
        "p95 after 250ms",
        "drained at",
        "limit",
        "cuts"
    );
    for (name, r) in &rows {
        println!(
            "{:>20} {:>6} {:>6} {:>8.1}ms {:>14.1}ms {:>14.1}ms {:>8.0}ms {:>7} {:>6}",
            name,
            r.ok,
            r.failed,
            r.p95_all_ms,
            r.p50_after_ms,
            r.p95_after_ms,
            r.makespan_ms,
            r.final_limit,
            r.decreases
        );
    }
}
