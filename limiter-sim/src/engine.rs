//! The discrete-event engine: virtual time, the real gate, an upstream model, a load.
//!
//! Every call goes through the core's [`Gate`]: admitted at once, or queued in its FIFO and
//! resumed when its `Acquire` future is woken, exactly as an executor would. Time is the core's
//! [`ManualClock`], moved from event to event, so a run is deterministic for a seed and takes
//! no wall time.

use std::collections::{BTreeMap, BinaryHeap};
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use limiter_core::{
    Acquire, AcquireScoped, Clock, Gate, Instant, ManualClock, NoopRawMutex, Outcome, Permit,
    QueueFull, Ratio, RetryBudget, ScopedPermit, Verdict, acquire_scoped,
};
use serde::Serialize;

use crate::limiter::{Limiter, SimController};
use crate::rng::Rng;
use crate::upstream::{Reply, Upstream};

/// Waiting requests each gate can hold; arrivals beyond are rejected (counted in
/// [`Metrics::rejected`]), as a real service would shed them.
const QUEUE: usize = 4_096;

type SimGate<'c> = Gate<NoopRawMutex, SimController, &'c ManualClock, QUEUE>;

/// Who calls.
#[derive(Clone, Debug)]
pub enum Load {
    /// Open loop: `per_tick` calls every `tick_us`, until `until_us`, whatever happens to them.
    Open {
        /// Calls per tick.
        per_tick: u32,
        /// The tick, µs.
        tick_us: u64,
        /// When arrivals stop, µs.
        until_us: u64,
    },
    /// Open loop with Poisson arrivals: `rate_per_s` on average (exponential gaps), until
    /// `until_us`.
    Poisson {
        /// Mean arrivals per second.
        rate_per_s: f64,
        /// When arrivals stop, µs.
        until_us: u64,
    },
    /// Closed loop: `workers` callers, each calling again as soon as its call ends, until
    /// `until_us` (a backlog that never runs dry).
    Closed {
        /// Concurrent callers.
        workers: u32,
        /// When callers stop, µs.
        until_us: u64,
    },
}

impl Load {
    /// Whether a caller of this load, done with a call at `now`, makes another.
    fn calls_again(&self, now: u64) -> bool {
        matches!(self, Load::Closed { until_us, .. } if now < *until_us)
    }

    fn until_us(&self) -> u64 {
        match self {
            Load::Open { until_us, .. }
            | Load::Poisson { until_us, .. }
            | Load::Closed { until_us, .. } => *until_us,
        }
    }
}

/// How failed calls (429, timeout) are retried. Retries go through the limiter like first
/// attempts.
#[derive(Clone, Debug)]
pub struct Retry {
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// Backoff before the first retry, µs; doubled for each further one, with ±50 % jitter.
    pub backoff_us: u64,
    /// A [`RetryBudget`] of `10 + budget × first attempts` over the last 10–20 s; `None`: no
    /// budget.
    pub budget: Option<Ratio>,
}

/// What one run measured.
#[derive(Clone, Debug, Serialize)]
pub struct Metrics {
    /// Calls served.
    pub ok: u64,
    /// Calls refused with 429.
    pub throttled: u64,
    /// Calls that timed out.
    pub timed_out: u64,
    /// Calls the limiter turned away because its queue of waiters was full.
    pub rejected: u64,
    /// Attempts that were retries.
    pub retries: u64,
    /// All attempts per first attempt (1 without retries).
    pub retry_amplification: f64,
    /// Calls served per second, over the whole run (the load, then the drain of what it left).
    pub throughput_per_s: f64,
    /// Service time of served calls (admission to answer), percentiles, ms.
    pub p50_ms: f64,
    /// 95th percentile, ms.
    pub p95_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Time spent queued in the limiter, 95th percentile, ms.
    pub wait_p95_ms: f64,
    /// The limit, averaged over time while the load ran (and over clients).
    pub limit_mean: f64,
    /// Its standard deviation over time.
    pub limit_sd: f64,
    /// The limit at the end of the load (averaged over clients).
    pub final_limit: u32,
    /// Cuts of the limit.
    pub decreases: u64,
    /// When the last call ended, ms.
    pub drained_at_ms: f64,
    /// Time to stabilise: from the last change of the true capacity (the oracle's limit, or the
    /// start if it never changes) until the first client's limit stays within half and one and a
    /// half times it, ms. A limit that never settles counts until the load ends.
    pub settle_ms: f64,
    /// Calls served, per client.
    pub ok_per_client: Vec<u64>,
    /// Jain's fairness index of the calls served per client: 1 when all got the same, 1/n
    /// when one got everything.
    pub fairness: f64,
    /// With a global ceiling: the most calls ever inside it at once.
    pub global_peak: Option<u32>,
    /// Each client's limit at the end of the load.
    pub final_limit_per_client: Vec<u32>,
    /// The first client's limit over time: (µs, limit) at every change, while the load ran.
    #[serde(skip)]
    pub limit_series: Vec<(u64, u32)>,
    /// Every served call: (completed at, service time), µs, in completion order.
    #[serde(skip)]
    pub served: Vec<(u64, u64)>,
}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// (client, call, how it ends)
    Done(usize, u64, ReplyKey),
    /// (client, call)
    Arrive(usize, u64),
}

/// [`Reply`] with an order, for the event heap.
#[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum ReplyKey {
    Ok,
    Throttled(Option<u64>),
    Timeout,
}

/// One waiter's waker: marks the waiter, and counts a wakeup for its client so that clients
/// nobody woke are not scanned.
struct Flag {
    set: AtomicBool,
    client_wakeups: Arc<AtomicUsize>,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.set.store(true, Ordering::SeqCst);
        self.client_wakeups.fetch_add(1, Ordering::SeqCst);
    }
}

/// Time-weighted mean and variance of the limit.
#[derive(Default)]
struct LimitTrace {
    last: (u64, u32),
    sum: f64,
    sum_sq: f64,
    span: f64,
}

impl LimitTrace {
    fn starting_at(limit: u32) -> Self {
        LimitTrace {
            last: (0, limit),
            ..LimitTrace::default()
        }
    }

    fn observe(&mut self, now: u64, limit: u32, until: u64) {
        let end = now.min(until);
        if end > self.last.0 {
            let dt = (end - self.last.0) as f64;
            let l = f64::from(self.last.1);
            self.sum += l * dt;
            self.sum_sq += l * l * dt;
            self.span += dt;
        }
        self.last = (now, limit);
    }

    fn mean_sd(&self) -> (f64, f64) {
        if self.span == 0.0 {
            return (f64::from(self.last.1), 0.0);
        }
        let mean = self.sum / self.span;
        (
            mean,
            (self.sum_sq / self.span - mean * mean).max(0.0).sqrt(),
        )
    }
}

/// The event queue: a min-heap on (time, insertion order).
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

/// An admitted call's permits: its client's, and the global ceiling's when the scenario has one.
enum Ticket<'g, 'c> {
    Own(Permit<&'g SimGate<'c>>),
    Scoped(ScopedPermit<&'g SimGate<'c>, &'g SimGate<'c>>),
}

impl Ticket<'_, '_> {
    /// Records `verdict` on the client's gate (a scoped permit also releases its global one).
    fn record(self, verdict: Verdict) {
        match self {
            Ticket::Own(permit) => permit.record_verdict(verdict),
            Ticket::Scoped(permit) => permit.record_verdict(verdict),
        }
    }
}

/// A call waiting for admission: on its client's gate, or on its gate and then the global one.
enum Waiting<'g, 'c> {
    Own(Acquire<&'g SimGate<'c>>),
    Scoped(AcquireScoped<&'g SimGate<'c>, &'g SimGate<'c>>),
}

impl<'g, 'c> Waiting<'g, 'c> {
    fn poll(&mut self, waker: &Waker) -> Poll<Result<Ticket<'g, 'c>, QueueFull>> {
        let cx = &mut Context::from_waker(waker);
        match self {
            Waiting::Own(acquire) => Pin::new(acquire).poll(cx).map_ok(Ticket::Own),
            Waiting::Scoped(acquire) => Pin::new(acquire).poll(cx).map_ok(Ticket::Scoped),
        }
    }
}

/// What became of an arriving call.
enum Arrival<'g, 'c> {
    Admitted(Ticket<'g, 'c>),
    Queued,
    Rejected,
}

/// One client's calls in each state, and what they measured.
struct Calls<'g, 'c> {
    client: usize,
    gate: &'g SimGate<'c>,
    /// The ceiling over every client, if the scenario has one.
    global: Option<&'g SimGate<'c>>,
    arrived: BTreeMap<u64, u64>,
    waiting: BTreeMap<u64, (Waiting<'g, 'c>, Arc<Flag>)>,
    running: BTreeMap<u64, (Ticket<'g, 'c>, u64)>,
    throttled: u64,
    timed_out: u64,
    rejected: u64,
    /// The retry budget, if the scenario has one.
    budget: Option<RetryBudget>,
    /// Wakeups of this client's waiters not yet acted on.
    wakeups: Arc<AtomicUsize>,
    /// Attempt number of each call in progress (1 for a first attempt).
    attempt: BTreeMap<u64, u32>,
    first_attempts: u64,
    retries: u64,
    /// (completed at, service time) of each served call.
    served: Vec<(u64, u64)>,
    waits: Vec<u64>,
}

impl<'g, 'c> Calls<'g, 'c> {
    /// A call arrives: admitted at once, queued in the gate, or turned away by a full queue.
    fn arrive(&mut self, id: u64, now: u64) -> Arrival<'g, 'c> {
        self.arrived.insert(id, now);
        if let std::collections::btree_map::Entry::Vacant(first) = self.attempt.entry(id) {
            first.insert(1);
            self.first_attempts += 1;
            if let Some(budget) = &mut self.budget {
                budget.deposit(Instant::from_micros(now));
            }
        }
        let flag = Arc::new(Flag {
            set: AtomicBool::new(false),
            client_wakeups: Arc::clone(&self.wakeups),
        });
        let mut acquire = match self.global {
            Some(global) => Waiting::Scoped(acquire_scoped(self.gate, global)),
            None => Waiting::Own(self.gate.acquire()),
        };
        let waker = Waker::from(Arc::clone(&flag));
        match acquire.poll(&waker) {
            Poll::Ready(Ok(ticket)) => Arrival::Admitted(ticket),
            Poll::Ready(Err(_)) => {
                // Shed by the limiter: an overload response, not a bug.
                self.arrived.remove(&id);
                self.attempt.remove(&id);
                self.rejected += 1;
                Arrival::Rejected
            }
            Poll::Pending => {
                self.waiting.insert(id, (acquire, flag));
                Arrival::Queued
            }
        }
    }

    /// When the failed `attempt` is tried again, if the policy and its budget allow.
    fn retry_at(&mut self, policy: &Retry, attempt: u32, now: u64, rng: &mut Rng) -> Option<u64> {
        if attempt >= policy.max_attempts {
            return None;
        }
        if let Some(budget) = &mut self.budget {
            if !budget.try_withdraw(Instant::from_micros(now)) {
                return None;
            }
        }
        self.retries += 1;
        let backoff = policy.backoff_us << (attempt - 1).min(20);
        Some(now + (backoff as f64 * (0.5 + rng.unit())) as u64)
    }

    /// A call ends: its outcome goes to the limiter through its permit.
    fn end(&mut self, id: u64, reply: ReplyKey, now: u64) {
        let (ticket, started) = self.running.remove(&id).expect("a running call");
        let verdict = match reply {
            ReplyKey::Ok => {
                self.served.push((now, now - started));
                Verdict::new(Outcome::Success)
            }
            ReplyKey::Throttled(hint) => {
                self.throttled += 1;
                let verdict = Verdict::new(Outcome::Overload);
                match hint {
                    Some(us) => verdict.retry_after(Duration::from_micros(us)),
                    None => verdict,
                }
            }
            ReplyKey::Timeout => {
                self.timed_out += 1;
                Verdict::new(Outcome::Overload)
            }
        };
        ticket.record(verdict);
    }

    /// Resumes every waiter the gate woke, oldest first; each must come out admitted.
    fn resume_woken(&mut self) -> Vec<(u64, Ticket<'g, 'c>)> {
        if self.wakeups.swap(0, Ordering::SeqCst) == 0 {
            return Vec::new();
        }
        let woken: Vec<u64> = self
            .waiting
            .iter()
            .filter(|(_, (_, f))| f.set.load(Ordering::SeqCst))
            .map(|(id, _)| *id)
            .collect();
        woken
            .into_iter()
            .filter_map(|id| {
                let (mut acquire, flag) = self.waiting.remove(&id).expect("waiting");
                let waker = Waker::from(Arc::clone(&flag));
                match acquire.poll(&waker) {
                    Poll::Ready(Ok(ticket)) => Some((id, ticket)),
                    // Admitted by its own gate, now waiting for the global one: queued again.
                    Poll::Pending => {
                        flag.set.store(false, Ordering::SeqCst);
                        self.waiting.insert(id, (acquire, flag));
                        None
                    }
                    Poll::Ready(Err(_)) => panic!("woken into a full queue"),
                }
            })
            .collect()
    }

    /// An admitted call goes to the upstream.
    fn start(
        &mut self,
        (id, ticket): (u64, Ticket<'g, 'c>),
        now: u64,
        upstream: &mut dyn Upstream,
        rng: &mut Rng,
        events: &mut Events,
    ) {
        self.waits
            .push(now - self.arrived.remove(&id).expect("arrived"));
        let call = upstream.start(now, self.client, rng);
        let key = match call.reply {
            Reply::Ok => ReplyKey::Ok,
            Reply::Throttled { retry_after_us } => ReplyKey::Throttled(retry_after_us),
            Reply::Timeout => ReplyKey::Timeout,
        };
        self.running.insert(id, (ticket, now));
        events.push(now + call.duration_us, Event::Done(self.client, id, key));
    }
}

impl<'g, 'c> Calls<'g, 'c> {
    fn new(
        client: usize,
        gate: &'g SimGate<'c>,
        global: Option<&'g SimGate<'c>>,
        retry: Option<&Retry>,
    ) -> Self {
        Calls {
            client,
            gate,
            global,
            arrived: BTreeMap::new(),
            waiting: BTreeMap::new(),
            running: BTreeMap::new(),
            throttled: 0,
            timed_out: 0,
            rejected: 0,
            wakeups: Arc::new(AtomicUsize::new(0)),
            budget: retry.and_then(|r| r.budget).map(|ratio| {
                RetryBudget::new(ratio, 10, Duration::from_secs(10)).expect("a period")
            }),
            attempt: BTreeMap::new(),
            first_attempts: 0,
            retries: 0,
            served: Vec::new(),
            waits: Vec::new(),
        }
    }
}

/// Runs one client per load against `upstream`, each through its own gate driven by its own
/// instance of `limiter` (and, with `global`, through a fixed ceiling over all of them:
/// hierarchical admission, the client's gate first), until every call ended.
///
/// # Panics
///
/// If the limiter's configuration is invalid.
pub fn run(
    loads: &[Load],
    upstream: &mut dyn Upstream,
    limiter: &Limiter,
    retry: Option<&Retry>,
    global: Option<u32>,
    seed: u64,
) -> Metrics {
    let clock = ManualClock::new();
    let ceiling = global.map(|limit| ceiling_gate(limit, &clock));
    let mut global_peak = 0u32;
    let gates: Vec<Box<SimGate<'_>>> = loads
        .iter()
        .map(|_| {
            let controller = limiter.build().expect("a valid limiter configuration");
            Box::new(Gate::new(controller, &clock))
        })
        .collect();
    let mut clients: Vec<Calls<'_, '_>> = gates
        .iter()
        .enumerate()
        .map(|(i, g)| Calls::new(i, g, ceiling.as_ref(), retry))
        .collect();
    let mut traces: Vec<LimitTrace> = gates
        .iter()
        .map(|g| LimitTrace::starting_at(g.limit()))
        .collect();
    let mut rng = Rng::new(seed);
    let mut events = Events::default();
    let until = loads.iter().map(Load::until_us).max().unwrap_or(0);
    let mut next_id = schedule_arrivals(loads, &mut events, &mut rng);
    let mut final_limits: Vec<u32> = gates.iter().map(|g| g.limit()).collect();
    let mut series: Vec<(u64, u32)> = Vec::new();
    // (time, first client's limit, its oracle limit) after each event, while the load runs.
    let mut against_capacity: Vec<(u64, u32, u32)> = Vec::new();

    while let Some((now, event)) = events.pop() {
        clock.set(Instant::from_micros(now));
        if matches!(limiter, Limiter::Oracle) {
            set_oracles(&gates, upstream, now);
        }
        match event {
            Event::Arrive(client, id) => {
                match clients[client].arrive(id, now) {
                    Arrival::Admitted(permit) => {
                        clients[client].start((id, permit), now, upstream, &mut rng, &mut events);
                    }
                    // A closed-loop caller turned away tries again a moment later.
                    Arrival::Rejected if loads[client].calls_again(now) => {
                        events.push(now + 1_000, Event::Arrive(client, next_id));
                        next_id += 1;
                    }
                    Arrival::Rejected | Arrival::Queued => {}
                }
            }
            Event::Done(client, id, reply) => {
                upstream.end(client);
                let next = Next {
                    retry,
                    load: &loads[client],
                    now,
                };
                next.after(
                    &mut clients[client],
                    id,
                    reply,
                    &mut rng,
                    &mut events,
                    &mut next_id,
                );
            }
        }
        resume_all(&mut clients, now, upstream, &mut rng, &mut events);
        // The limits in force from now until the next event.
        if now <= until {
            for (last, gate) in final_limits.iter_mut().zip(&gates) {
                *last = gate.limit();
            }
            record(
                &mut series,
                &mut against_capacity,
                now,
                final_limits[0],
                || upstream.oracle_limit(now, 0, gates.len()),
            );
        }
        for (trace, gate) in traces.iter_mut().zip(&gates) {
            trace.observe(now, gate.limit(), until);
        }
        if let Some(ceiling) = &ceiling {
            global_peak = global_peak.max(ceiling.in_flight());
        }
    }
    assert!(
        clients
            .iter()
            .all(|c| c.waiting.is_empty() && c.running.is_empty()),
        "calls left behind"
    );
    let mut metrics = summarise(
        &mut clients,
        &mut traces,
        &gates,
        &final_limits,
        until,
        &clock,
    );
    series.push((until, final_limits[0]));
    metrics.limit_series = series;
    metrics.global_peak = global.map(|_| global_peak);
    metrics.settle_ms = settle_time(&against_capacity);
    metrics
}

/// Any client's gate (or the ceiling) may have woken waiters, of any client: a release, an
/// oracle raise. Runs them all.
fn resume_all(
    clients: &mut [Calls<'_, '_>],
    now: u64,
    upstream: &mut dyn Upstream,
    rng: &mut Rng,
    events: &mut Events,
) {
    for calls in clients {
        for call in calls.resume_woken() {
            calls.start(call, now, upstream, rng, events);
        }
    }
}

/// The global ceiling: a fixed limit over every client.
fn ceiling_gate(limit: u32, clock: &ManualClock) -> SimGate<'_> {
    let fixed = Limiter::Fixed(limit)
        .build()
        .expect("a ceiling of at least 1");
    Gate::new(fixed, clock)
}

/// Notes the first client's limit at `now` (on change) and against its capacity.
fn record(
    series: &mut Vec<(u64, u32)>,
    against_capacity: &mut Vec<(u64, u32, u32)>,
    now: u64,
    limit: u32,
    oracle: impl FnOnce() -> u32,
) {
    if series.last().is_none_or(|&(_, l)| l != limit) {
        series.push((now, limit));
    }
    against_capacity.push((now, limit, oracle()));
}

/// See [`Metrics::settle_ms`].
fn settle_time(trace: &[(u64, u32, u32)]) -> f64 {
    let changed = trace
        .windows(2)
        .filter(|w| w[0].2 != w[1].2)
        .map(|w| w[1].0)
        .next_back()
        .unwrap_or(0);
    let outside = |&&(_, limit, oracle): &&(u64, u32, u32)| {
        let (l, o) = (f64::from(limit), f64::from(oracle));
        l < 0.5 * o || l > 1.5 * o
    };
    let last_outside = trace
        .iter()
        .filter(|e| e.0 >= changed)
        .filter(outside)
        .map(|e| e.0)
        .next_back()
        .unwrap_or(changed);
    (last_outside - changed) as f64 / 1e3
}

/// What follows a call's end: a retry, or the closed-loop caller's next call.
struct Next<'a> {
    retry: Option<&'a Retry>,
    load: &'a Load,
    now: u64,
}

impl Next<'_> {
    fn after(
        &self,
        calls: &mut Calls<'_, '_>,
        id: u64,
        reply: ReplyKey,
        rng: &mut Rng,
        events: &mut Events,
        next_id: &mut u64,
    ) {
        calls.end(id, reply, self.now);
        let attempt = calls.attempt.remove(&id).unwrap_or(1);
        let retry_at = match self.retry {
            Some(policy) if reply != ReplyKey::Ok => calls.retry_at(policy, attempt, self.now, rng),
            _ => None,
        };
        if let Some(at) = retry_at {
            events.push(at, Event::Arrive(calls.client, *next_id));
            calls.attempt.insert(*next_id, attempt + 1);
            *next_id += 1;
        } else if self.load.calls_again(self.now) {
            events.push(self.now, Event::Arrive(calls.client, *next_id));
            *next_id += 1;
        }
    }
}

/// Sets each oracle's limit to its client's fair share of the capacity at `now`.
fn set_oracles(gates: &[Box<SimGate<'_>>], upstream: &dyn Upstream, now: u64) {
    for (i, gate) in gates.iter().enumerate() {
        let limit = upstream.oracle_limit(now, i, gates.len());
        gate.with_controller(|c| {
            if let SimController::Oracle(f) = c {
                f.set_limit(limit).expect("at least 1");
            }
        });
    }
}

/// Queues the first arrivals of every client; returns the next free call id.
fn schedule_arrivals(loads: &[Load], events: &mut Events, rng: &mut Rng) -> u64 {
    let mut next_id = 0u64;
    for (client, load) in loads.iter().enumerate() {
        match *load {
            Load::Open {
                per_tick,
                tick_us,
                until_us,
            } => {
                let tick = usize::try_from(tick_us.max(1)).unwrap_or(usize::MAX);
                for t in (0..until_us).step_by(tick) {
                    for _ in 0..per_tick {
                        events.push(t, Event::Arrive(client, next_id));
                        next_id += 1;
                    }
                }
            }
            Load::Poisson {
                rate_per_s,
                until_us,
            } => {
                if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
                    continue; // no arrivals (and no endless loop on a negative rate)
                }
                let mean_gap_us = 1e6 / rate_per_s;
                let mut t = rng.exponential(mean_gap_us);
                while t < until_us as f64 {
                    events.push(t as u64, Event::Arrive(client, next_id));
                    next_id += 1;
                    t += rng.exponential(mean_gap_us);
                }
            }
            Load::Closed { workers, .. } => {
                for _ in 0..workers {
                    events.push(0, Event::Arrive(client, next_id));
                    next_id += 1;
                }
            }
        }
    }
    next_id
}

/// Totals over every client.
fn summarise(
    clients: &mut [Calls<'_, '_>],
    traces: &mut [LimitTrace],
    gates: &[Box<SimGate<'_>>],
    final_limits: &[u32],
    until: u64,
    clock: &ManualClock,
) -> Metrics {
    let mut served: Vec<(u64, u64)> = clients
        .iter()
        .flat_map(|c| c.served.iter().copied())
        .collect();
    served.sort_unstable();
    let mut service: Vec<u64> = served.iter().map(|&(_, s)| s).collect();
    let mut waits: Vec<u64> = clients
        .iter()
        .flat_map(|c| c.waits.iter().copied())
        .collect();
    service.sort_unstable();
    waits.sort_unstable();
    let (mut limit_mean, mut limit_sd) = (0.0, 0.0);
    for (trace, gate) in traces.iter_mut().zip(gates) {
        trace.observe(until, gate.limit(), until);
        let (mean, sd) = trace.mean_sd();
        limit_mean += mean / gates.len() as f64;
        limit_sd += sd / gates.len() as f64;
    }
    let ok_per_client: Vec<u64> = clients.iter().map(|c| c.served.len() as u64).collect();
    let ok: u64 = ok_per_client.iter().sum();
    Metrics {
        ok,
        throttled: clients.iter().map(|c| c.throttled).sum(),
        timed_out: clients.iter().map(|c| c.timed_out).sum(),
        rejected: clients.iter().map(|c| c.rejected).sum(),
        retries: clients.iter().map(|c| c.retries).sum(),
        retry_amplification: {
            let first: u64 = clients.iter().map(|c| c.first_attempts).sum();
            let retries: u64 = clients.iter().map(|c| c.retries).sum();
            (first + retries) as f64 / first.max(1) as f64
        },
        throughput_per_s: ok as f64 / (until.max(clock.now().as_micros()) as f64 / 1e6),
        p50_ms: percentile_ms(&service, 0.50),
        p95_ms: percentile_ms(&service, 0.95),
        p99_ms: percentile_ms(&service, 0.99),
        wait_p95_ms: percentile_ms(&waits, 0.95),
        limit_mean,
        limit_sd,
        final_limit: (final_limits.iter().map(|&l| u64::from(l)).sum::<u64>()
            / final_limits.len().max(1) as u64) as u32,
        decreases: gates.iter().map(|g| g.snapshot().decreases).sum(),
        drained_at_ms: clock.now().as_micros() as f64 / 1e3,
        settle_ms: 0.0,
        fairness: jain(&ok_per_client),
        ok_per_client,
        global_peak: None,
        final_limit_per_client: final_limits.to_vec(),
        limit_series: Vec::new(),
        served,
    }
}

/// Jain's fairness index: (Σx)² / (n Σx²).
fn jain(xs: &[u64]) -> f64 {
    let sum: f64 = xs.iter().map(|&x| x as f64).sum();
    let sum_sq: f64 = xs.iter().map(|&x| (x as f64) * (x as f64)).sum();
    if sum_sq == 0.0 {
        1.0
    } else {
        sum * sum / (xs.len() as f64 * sum_sq)
    }
}

/// Nearest-rank percentile of sorted µs values, in ms (0 for none).
pub(crate) fn percentile_ms(sorted: &[u64], q: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((sorted.len() as f64 * q).ceil() as usize).clamp(1, sorted.len());
    sorted[rank - 1] as f64 / 1e3
}
