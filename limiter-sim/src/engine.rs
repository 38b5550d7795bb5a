//! The discrete-event engine: virtual time, the real gate, an upstream model, a load.
//!
//! Every call goes through the core's [`Gate`]: admitted at once, or queued in its FIFO and
//! resumed when its `Acquire` future is woken, exactly as an executor would. Time is the core's
//! [`ManualClock`], moved from event to event, so a run is deterministic for a seed and takes
//! no wall time.
//!
//! The cost of an event does not grow with the number of clients: only clients whose waiters
//! were woken are resumed, only the client whose call ended can have a new limit (and every
//! client when the oracle's capacity changes), and the limits of all clients are sampled at a
//! fixed period rather than at every event.

use std::collections::{BTreeMap, BinaryHeap};
use std::fmt;
use std::future::Future;
use std::io::Write;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll, Wake, Waker};
use std::time::Duration;

use limiter_core::{
    Acquire, AcquireScoped, Backoff, Clock, Gate, HeapQueue, Instant, ManualClock, NoopRawMutex,
    Outcome, Permit, QueueFull, QuotaHint, Ratio, RetryBudget, ScopedPermit, Verdict,
    acquire_scoped,
};

use crate::limiter::{Limiter, SimController};
use crate::load::Load;
use crate::metrics::{Metrics, Recorder};
use crate::rng::Rng;
use crate::upstream::{CallEnd, CallStart, Ending, QuotaHeaders, Reply, Share, Upstream};

/// Waiting requests each gate can hold; arrivals beyond are refused (counted in
/// [`Metrics::queue_full`]), as a real service would refuse them.
const QUEUE: usize = 4_096;

/// How long after the last load stops every call must have ended: past it a run is stopped as
/// [`RunError::Undrained`].
const DRAIN_LIMIT_US: u64 = 600_000_000;

type SimGate<'c> = Gate<NoopRawMutex, SimController, &'c ManualClock, HeapQueue>;

/// Who calls, and how: a load per client (each client has its own limiter), a retry policy, a
/// ceiling over all clients and the clients' timeout.
#[derive(Clone, Debug, Default)]
pub struct Clients {
    /// One load per client.
    pub loads: Vec<Load>,
    /// Whether and how failed calls are retried.
    pub retry: Option<Retry>,
    /// A fixed ceiling over all clients (hierarchical admission: each call takes its client's
    /// permit, then the ceiling's), if any.
    pub global: Option<u32>,
    /// The clients' timeout, µs: a call that has not ended by then ends as a timeout. It runs
    /// from the call's admission, as the limiter measures latency: time queued in the limiter is
    /// not timed out. `None`: the clients wait for every answer (an upstream that never answers
    /// is then an error).
    pub timeout_us: Option<u64>,
}

impl Clients {
    /// These loads, no retries, no ceiling, no timeout.
    pub fn new(loads: Vec<Load>) -> Self {
        Clients {
            loads,
            ..Clients::default()
        }
    }

    /// The same clients with a timeout of `timeout_us`.
    #[must_use]
    pub fn timeout(mut self, timeout_us: u64) -> Self {
        self.timeout_us = Some(timeout_us);
        self
    }

    /// When the last load stops, µs.
    pub fn until_us(&self) -> u64 {
        self.loads.iter().map(|l| l.stop_us).max().unwrap_or(0)
    }
}

/// How failed calls (429, 503, timeout, failure) are retried. Retries go through the limiter
/// like first attempts.
#[derive(Clone, Debug)]
pub struct Retry {
    /// Attempts per call, the first included.
    pub max_attempts: u32,
    /// When a failed attempt is tried again: the library's exponential backoff with full
    /// jitter, from the end of the attempt or from its `Retry-After` if that is later.
    pub backoff: Backoff,
    /// A [`RetryBudget`] of `10 + budget × first attempts` over the last 10–20 s; `None`: no
    /// budget.
    pub budget: Option<Ratio>,
}

/// Why a run was stopped before it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunError {
    /// More events at one virtual instant than the scenario's callers can explain: a loop that
    /// would never let time move (for instance errors answered in 0 ms to callers that call
    /// again at once).
    Runaway {
        /// The instant, µs.
        at_us: u64,
        /// Events processed at it before the run was stopped.
        events: u64,
    },
    /// Calls still in progress long after the last load stopped.
    Undrained {
        /// When the run was stopped, µs.
        at_us: u64,
    },
    /// An upstream that never answers, with no client timeout to end the call.
    NoAnswerWithoutTimeout,
}

impl fmt::Display for RunError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Runaway { at_us, events } => write!(
                f,
                "runaway: {events} events at t = {:.3} s without time moving",
                *at_us as f64 / 1e6
            ),
            RunError::Undrained { at_us } => write!(
                f,
                "calls still in progress at t = {:.3} s, long after the load stopped",
                *at_us as f64 / 1e6
            ),
            RunError::NoAnswerWithoutTimeout => {
                f.write_str("the upstream never answers and the clients have no timeout")
            }
        }
    }
}

impl std::error::Error for RunError {}

#[derive(PartialEq, Eq, PartialOrd, Ord)]
enum Event {
    /// (client, call, how it ends)
    Done(usize, u64, EndKey),
    /// (client, call)
    Arrive(usize, u64),
}

/// [`Ending`] with an order, for the event heap.
#[derive(PartialEq, Eq, PartialOrd, Ord, Clone, Copy)]
enum EndKey {
    Ok,
    Throttled(Option<u64>),
    Unavailable,
    Timeout,
    Failed,
    GaveUp,
}

impl EndKey {
    /// The outcome's name in a trace.
    const fn name(self) -> &'static str {
        match self {
            EndKey::Ok => "ok",
            EndKey::Throttled(_) => "throttled",
            EndKey::Unavailable => "unavailable",
            EndKey::Timeout => "timeout",
            EndKey::Failed => "failed",
            EndKey::GaveUp => "gave-up",
        }
    }

    fn ending(self) -> Ending {
        match self {
            EndKey::Ok => Ending::Answered(Reply::Ok),
            EndKey::Throttled(retry_after_us) => {
                Ending::Answered(Reply::Throttled { retry_after_us })
            }
            EndKey::Unavailable => Ending::Answered(Reply::Unavailable),
            EndKey::Timeout => Ending::Answered(Reply::Timeout),
            EndKey::Failed => Ending::Answered(Reply::Failed),
            EndKey::GaveUp => Ending::TimedOut,
        }
    }
}

/// The clients with woken waiters, each listed once until it is resumed.
#[derive(Default)]
struct WokenClients(Mutex<Vec<usize>>);

impl WokenClients {
    fn push(&self, client: usize) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(client);
    }

    fn take(&self) -> Vec<usize> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}

/// One client's wake-up state: whether it is listed in [`WokenClients`].
struct ClientWake {
    client: usize,
    listed: AtomicBool,
    list: Arc<WokenClients>,
}

/// One waiter's waker: marks the waiter, and lists its client once.
struct Flag {
    set: AtomicBool,
    client: Arc<ClientWake>,
}

impl Wake for Flag {
    fn wake(self: Arc<Self>) {
        self.set.store(true, Ordering::SeqCst);
        if !self.client.listed.swap(true, Ordering::SeqCst) {
            self.client.list.push(self.client.client);
        }
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

/// One client's calls in each state.
struct Calls<'g, 'c> {
    client: usize,
    gate: &'g SimGate<'c>,
    /// The ceiling over every client, if the scenario has one.
    global: Option<&'g SimGate<'c>>,
    arrived: BTreeMap<u64, u64>,
    waiting: BTreeMap<u64, (Waiting<'g, 'c>, Arc<Flag>)>,
    running: BTreeMap<u64, (Ticket<'g, 'c>, u64)>,
    /// No new call is admitted before this instant, µs: a `Retry-After`, or a provider's spent
    /// quota, holds admissions as the library's `Limiter::run` does.
    held_until: u64,
    /// The retry budget, if the scenario has one.
    budget: Option<RetryBudget>,
    wake: Arc<ClientWake>,
    /// Attempt number of each call in progress (1 for a first attempt).
    attempt: BTreeMap<u64, u32>,
    /// First attempts scheduled so far (the load's count bounds them).
    issued: u64,
    /// Arrivals scheduled and not yet arrived (first attempts and retries).
    pending: u64,
    first_attempts: u64,
    retries: u64,
}

impl<'g, 'c> Calls<'g, 'c> {
    fn new(
        client: usize,
        gate: &'g SimGate<'c>,
        global: Option<&'g SimGate<'c>>,
        retry: Option<&Retry>,
        woken: &Arc<WokenClients>,
    ) -> Self {
        Calls {
            client,
            gate,
            global,
            arrived: BTreeMap::new(),
            waiting: BTreeMap::new(),
            running: BTreeMap::new(),
            held_until: 0,
            budget: retry.and_then(|r| r.budget).map(|ratio| {
                RetryBudget::new(ratio, 10, Duration::from_secs(10)).expect("a period")
            }),
            wake: Arc::new(ClientWake {
                client,
                listed: AtomicBool::new(false),
                list: Arc::clone(woken),
            }),
            attempt: BTreeMap::new(),
            issued: 0,
            pending: 0,
            first_attempts: 0,
            retries: 0,
        }
    }

    /// A call arrives: admitted at once, queued in the gate, or turned away by a full queue.
    fn arrive(&mut self, id: u64, now: u64, rec: &mut Recorder) -> Arrival<'g, 'c> {
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
            client: Arc::clone(&self.wake),
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
                rec.queue_full(self.client);
                Arrival::Rejected
            }
            Poll::Pending => {
                self.waiting.insert(id, (acquire, flag));
                Arrival::Queued
            }
        }
    }

    /// Whether the client still has a call to make, waiting or in progress.
    fn has_work(&self) -> bool {
        self.pending > 0 || !self.waiting.is_empty() || !self.running.is_empty()
    }

    /// When the failed `attempt` is tried again, if the policy and its budget allow.
    fn retry_at(
        &mut self,
        policy: &Retry,
        (attempt, retry_after_us): (u32, Option<u64>),
        now: u64,
        rng: &mut Rng,
    ) -> Option<u64> {
        if attempt >= policy.max_attempts {
            return None;
        }
        if let Some(budget) = &mut self.budget {
            if !budget.try_withdraw(Instant::from_micros(now)) {
                return None;
            }
        }
        self.retries += 1;
        let hint = retry_after_us.map(|us| Instant::from_micros(now.saturating_add(us)));
        let random = (rng.next_u64() >> 32) as u32;
        let at = policy
            .backoff
            .retry_at(Instant::from_micros(now), attempt, random, hint);
        Some(at.as_micros())
    }

    /// A call ends: its outcome goes to the limiter through its permit, with what the
    /// provider's quota headers ask, and a pause it asked for holds this client's admissions.
    fn end(
        &mut self,
        id: u64,
        end: EndKey,
        headers: Option<QuotaHeaders>,
        now: u64,
        rec: &mut Recorder,
    ) {
        let (ticket, started) = self.running.remove(&id).expect("a running call");
        let verdict = match end {
            EndKey::Ok => {
                rec.served(self.client, now, now - started);
                Verdict::new(Outcome::Success)
            }
            EndKey::Throttled(hint) => {
                rec.throttled(self.client);
                let verdict = Verdict::new(Outcome::Overload);
                match hint {
                    Some(us) => verdict.retry_after(Duration::from_micros(us)),
                    None => verdict,
                }
            }
            EndKey::Unavailable => {
                rec.throttled(self.client);
                Verdict::new(Outcome::Overload)
            }
            EndKey::Timeout | EndKey::GaveUp => {
                rec.timed_out(self.client);
                Verdict::new(Outcome::Overload)
            }
            EndKey::Failed => {
                rec.failed(self.client);
                Verdict::new(Outcome::Ignore)
            }
        };
        let verdict = match headers {
            Some(h) => verdict.with_quota(
                QuotaHint {
                    remaining: Some(u64::from(h.remaining)),
                    limit: Some(u64::from(h.limit)),
                    reset: Some(Duration::from_micros(h.reset_at_us.saturating_sub(now))),
                }
                .advice(),
            ),
            None => verdict,
        };
        if let Some(pause) = verdict.retry_after {
            let until = now.saturating_add(u64::try_from(pause.as_micros()).unwrap_or(u64::MAX));
            self.held_until = self.held_until.max(until);
        }
        ticket.record(verdict);
    }

    /// Resumes every waiter the gate woke, oldest first: admitted, queued again (admitted by its
    /// own gate, now waiting for the global one), or turned away by the global one's full queue.
    /// Returns the admitted calls and how many were turned away.
    fn resume_woken(&mut self, rec: &mut Recorder) -> (Vec<(u64, Ticket<'g, 'c>)>, u32) {
        self.wake.listed.store(false, Ordering::SeqCst);
        let woken: Vec<u64> = self
            .waiting
            .iter()
            .filter(|(_, (_, f))| f.set.load(Ordering::SeqCst))
            .map(|(id, _)| *id)
            .collect();
        let mut queue_full = 0;
        let admitted = woken
            .into_iter()
            .filter_map(|id| {
                let (mut acquire, flag) = self.waiting.remove(&id).expect("waiting");
                flag.set.store(false, Ordering::SeqCst);
                let waker = Waker::from(Arc::clone(&flag));
                match acquire.poll(&waker) {
                    Poll::Ready(Ok(ticket)) => Some((id, ticket)),
                    Poll::Pending => {
                        self.waiting.insert(id, (acquire, flag));
                        None
                    }
                    Poll::Ready(Err(_)) => {
                        self.arrived.remove(&id);
                        self.attempt.remove(&id);
                        rec.queue_full(self.client);
                        queue_full += 1;
                        None
                    }
                }
            })
            .collect();
        (admitted, queue_full)
    }
}

/// The run's mutable state besides the clients.
struct World<'u, 't> {
    upstream: &'u mut dyn Upstream,
    rng: Rng,
    events: Events,
    next_id: u64,
    timeout_us: Option<u64>,
    /// Where each call's end is traced, if anywhere (see [`run_traced`]).
    trace: Option<&'t mut dyn Write>,
}

impl World<'_, '_> {
    /// Schedules an arrival of `calls`' client at `at`; returns its id.
    fn schedule(&mut self, calls: &mut Calls<'_, '_>, at: u64) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        calls.pending += 1;
        self.events.push(at, Event::Arrive(calls.client, id));
        id
    }

    /// A call arrives at its client's gate.
    fn arrive(
        &mut self,
        calls: &mut Calls<'_, '_>,
        id: u64,
        load: &Load,
        now: u64,
        rec: &mut Recorder,
    ) -> Result<(), RunError> {
        calls.pending -= 1;
        if now < calls.held_until {
            // Held: the caller waits for the hold to end, then asks again.
            calls.pending += 1;
            self.events
                .push(calls.held_until, Event::Arrive(calls.client, id));
            return Ok(());
        }
        match calls.arrive(id, now, rec) {
            Arrival::Admitted(ticket) => self.start(calls, (id, ticket), now, rec)?,
            // A closed-loop caller turned away tries again a moment later.
            Arrival::Rejected if load.calls_again(now, calls.issued) => {
                self.schedule(calls, now + 1_000);
                calls.issued += 1;
            }
            Arrival::Rejected | Arrival::Queued => {}
        }
        Ok(())
    }

    /// A release or an oracle raise may have woken waiters of any client (through the ceiling,
    /// of another client than the event's): resumes them until none is left.
    fn resume(
        &mut self,
        woken: &WokenClients,
        calls: &mut [Calls<'_, '_>],
        loads: &[Load],
        now: u64,
        rec: &mut Recorder,
    ) -> Result<(), RunError> {
        loop {
            let mut listed = woken.take();
            if listed.is_empty() {
                return Ok(());
            }
            // In client order, whatever order the wakes came in: runs do not depend on it.
            listed.sort_unstable();
            for client in listed {
                let (admitted, queue_full) = calls[client].resume_woken(rec);
                for call in admitted {
                    self.start(&mut calls[client], call, now, rec)?;
                }
                // A closed-loop caller turned away tries again a moment later, as on arrival.
                for _ in 0..queue_full {
                    if loads[client].calls_again(now, calls[client].issued) {
                        self.schedule(&mut calls[client], now + 1_000);
                        calls[client].issued += 1;
                    }
                }
            }
        }
    }

    /// A call ends: the upstream and the limiter hear of it, then what follows (a retry, or the
    /// closed-loop caller's next call).
    fn end(
        &mut self,
        calls: &mut Calls<'_, '_>,
        (id, end): (u64, EndKey),
        clients: &Clients,
        now: u64,
        rec: &mut Recorder,
    ) {
        let client = calls.client;
        self.upstream.end(&CallEnd {
            id,
            client,
            at_us: now,
            ending: end.ending(),
        });
        rec.ended(client, now);
        let headers = self.upstream.take_hint(id);
        // What a trace needs from before the limiter hears of the end (read only when tracing).
        let traced = self.trace.is_some().then(|| {
            let started = calls.running.get(&id).map_or(now, |&(_, at)| at);
            (started, calls.gate.limit())
        });
        calls.end(id, end, headers, now, rec);
        if let (Some(out), Some((started, before))) = (self.trace.as_mut(), traced) {
            let snapshot = calls.gate.snapshot();
            let baseline = snapshot
                .baseline_micros
                .map_or_else(|| "-".to_string(), |b| b.to_string());
            // A trace that cannot be written is not the run's concern: it ends the trace only.
            if writeln!(
                out,
                "{now}\t{client}\t{}\t{}\t{before}\t{}\t{}\t{baseline}",
                end.name(),
                now - started,
                snapshot.limit,
                snapshot.in_flight,
            )
            .is_err()
            {
                self.trace = None;
            }
        }
        let attempt = calls.attempt.remove(&id).unwrap_or(1);
        let retry_at = match &clients.retry {
            Some(policy) if end != EndKey::Ok => {
                let hint = match end {
                    EndKey::Throttled(retry_after_us) => retry_after_us,
                    _ => None,
                };
                calls.retry_at(policy, (attempt, hint), now, &mut self.rng)
            }
            _ => None,
        };
        if let Some(at) = retry_at {
            let retry = self.schedule(calls, at);
            calls.attempt.insert(retry, attempt + 1);
        } else if clients.loads[client].calls_again(now, calls.issued) {
            self.schedule(calls, now);
            calls.issued += 1;
        }
    }

    /// An admitted call goes to the upstream.
    fn start<'g, 'c>(
        &mut self,
        calls: &mut Calls<'g, 'c>,
        (id, ticket): (u64, Ticket<'g, 'c>),
        now: u64,
        rec: &mut Recorder,
    ) -> Result<(), RunError> {
        let waited = now - calls.arrived.remove(&id).expect("arrived");
        rec.started(calls.client, now, waited);
        let start = CallStart {
            id,
            client: calls.client,
            at_us: now,
        };
        let call = self.upstream.start(&start, &mut self.rng);
        let answered = match call.reply {
            Reply::Ok => EndKey::Ok,
            Reply::Throttled { retry_after_us } => EndKey::Throttled(retry_after_us),
            Reply::Unavailable => EndKey::Unavailable,
            Reply::Timeout => EndKey::Timeout,
            Reply::Failed => EndKey::Failed,
            Reply::NoAnswer => EndKey::GaveUp,
        };
        let (after, end) = match (answered, self.timeout_us) {
            (EndKey::GaveUp, None) => return Err(RunError::NoAnswerWithoutTimeout),
            (EndKey::GaveUp, Some(timeout)) => (timeout, EndKey::GaveUp),
            (_, Some(timeout)) if call.duration_us > timeout => (timeout, EndKey::GaveUp),
            (end, _) => (call.duration_us, end),
        };
        calls.running.insert(id, (ticket, now));
        self.events.push(
            now.saturating_add(after),
            Event::Done(calls.client, id, end),
        );
        Ok(())
    }
}

/// Runs one client per load against `upstream`, each through its own gate driven by its own
/// instance of `limiter` (and, with a ceiling, through a fixed gate over all of them:
/// hierarchical admission, the client's gate first), until every call ended.
///
/// # Errors
///
/// A [`RunError`] when the run cannot end: a runaway at one instant, calls that never drain, an
/// upstream that never answers clients without a timeout.
///
/// # Panics
///
/// If the limiter's configuration is invalid.
pub fn run(
    clients: &Clients,
    upstream: &mut dyn Upstream,
    limiter: &Limiter,
    seed: u64,
) -> Result<Metrics, RunError> {
    run_traced(clients, upstream, limiter, seed, None)
}

/// [`run`], writing one line per call's end to `trace`, tab-separated: the time (µs), the
/// client, the outcome (`ok`, `throttled`, `unavailable`, `timeout`, `failed`, `gave-up`), the
/// call's latency from admission (µs), the client's limit before the limiter heard of it and
/// after, its calls in flight after, and its latency baseline (µs, `-` before it has one). The
/// lines come in the order the limiter heard of the ends.
///
/// # Panics
///
/// If the limiter's configuration is invalid.
pub fn run_traced(
    clients: &Clients,
    upstream: &mut dyn Upstream,
    limiter: &Limiter,
    seed: u64,
    trace: Option<&mut dyn Write>,
) -> Result<Metrics, RunError> {
    let loads = &clients.loads;
    let clock = ManualClock::new();
    let ceiling = clients.global.map(|limit| ceiling_gate(limit, &clock));
    let gates: Vec<Box<SimGate<'_>>> = loads
        .iter()
        .map(|_| {
            let controller = limiter.build().expect("a valid limiter configuration");
            Box::new(Gate::with_queue(controller, &clock, HeapQueue::new(QUEUE)))
        })
        .collect();
    let woken = Arc::new(WokenClients::default());
    let mut calls: Vec<Calls<'_, '_>> = gates
        .iter()
        .enumerate()
        .map(|(i, g)| Calls::new(i, g, ceiling.as_ref(), clients.retry.as_ref(), &woken))
        .collect();
    let until = clients.until_us();
    let initial: Vec<u32> = gates.iter().map(|g| g.limit()).collect();
    let mut rec = Recorder::new(loads, until, &initial);
    let mut world = World {
        upstream,
        rng: Rng::new(seed),
        events: Events::default(),
        next_id: 0,
        timeout_us: clients.timeout_us,
        trace,
    };
    for (client, load) in loads.iter().enumerate() {
        for at in load.first_arrivals(&mut world.rng) {
            world.schedule(&mut calls[client], at);
            calls[client].issued += 1;
        }
    }
    let is_oracle = matches!(limiter, Limiter::Oracle);
    let mut boundaries: Vec<u64> = loads.iter().flat_map(|l| [l.start_us, l.stop_us]).collect();
    boundaries.sort_unstable();
    let mut oracle_next = 0u64;
    let mut guard = Guard::new(loads);
    let mut global_peak = 0u32;

    while let Some((now, event)) = world.events.pop() {
        guard.check(now, until)?;
        rec.advance(now);
        clock.set(Instant::from_micros(now));
        if now >= oracle_next {
            let oracles = Oracles {
                loads,
                calls: &calls,
                gates: &gates,
                boundaries: &boundaries,
                set_gates: is_oracle,
            };
            oracle_next = oracles.update(world.upstream, now, &mut rec);
        }
        let client = match event {
            Event::Arrive(client, _) | Event::Done(client, _, _) => client,
        };
        match event {
            Event::Arrive(_, id) => {
                world.arrive(&mut calls[client], id, &loads[client], now, &mut rec)?;
            }
            Event::Done(_, id, end) => {
                world.end(&mut calls[client], (id, end), clients, now, &mut rec);
                rec.limit(client, now, gates[client].limit());
            }
        }
        world.resume(&woken, &mut calls, loads, now, &mut rec)?;
        if let Some(ceiling) = &ceiling {
            global_peak = global_peak.max(ceiling.in_flight());
        }
        // A client with nothing left to do (past its stop, or its count made) leaves the
        // oracle's sharing.
        if !calls[client].has_work() {
            oracle_next = oracle_next.min(now);
        }
    }
    assert!(
        calls
            .iter()
            .all(|c| c.waiting.is_empty() && c.running.is_empty()),
        "calls left behind"
    );
    let decreases = gates.iter().map(|g| g.snapshot().decreases).sum();
    let first: u64 = calls.iter().map(|c| c.first_attempts).sum();
    let retries: u64 = calls.iter().map(|c| c.retries).sum();
    let mut m = rec.finish(clock.now().as_micros());
    m.decreases = decreases;
    m.retries = retries;
    m.retry_amplification = (first + retries) as f64 / first.max(1) as f64;
    m.global_peak = clients.global.map(|_| global_peak);
    Ok(m)
}

/// Stops a run that would never end (see [`RunError`]).
struct Guard {
    /// Events that one instant can legitimately hold: each caller's end, next call and retry,
    /// many times over.
    bound: u64,
    instant: u64,
    same: u64,
}

impl Guard {
    fn new(loads: &[Load]) -> Self {
        Guard {
            bound: 10_000 + 64 * loads.iter().map(Load::callers).sum::<u64>(),
            instant: u64::MAX,
            same: 0,
        }
    }

    /// An event at `now`, in a run whose load stops at `until`.
    fn check(&mut self, now: u64, until: u64) -> Result<(), RunError> {
        if now == self.instant {
            self.same += 1;
            if self.same > self.bound {
                return Err(RunError::Runaway {
                    at_us: now,
                    events: self.same,
                });
            }
        } else {
            (self.instant, self.same) = (now, 1);
        }
        if now > until.saturating_add(DRAIN_LIMIT_US) {
            return Err(RunError::Undrained { at_us: now });
        }
        Ok(())
    }
}

/// What the oracle's limits depend on.
struct Oracles<'a, 'g, 'c> {
    loads: &'a [Load],
    calls: &'a [Calls<'g, 'c>],
    gates: &'a [Box<SimGate<'c>>],
    boundaries: &'a [u64],
    /// Whether the gates are the oracle's, to be set to its limits.
    set_gates: bool,
}

impl Oracles<'_, '_, '_> {
    /// Works the oracle's limits out at `now` (and sets them, for the oracle's run); returns
    /// when they must be worked out again.
    fn update(&self, upstream: &dyn Upstream, now: u64, rec: &mut Recorder) -> u64 {
        let active: Vec<bool> = self
            .loads
            .iter()
            .zip(self.calls)
            .map(|(l, c)| now >= l.start_us && c.has_work())
            .collect();
        let limits = oracle_limits(upstream, &active, now);
        rec.oracle_limits(now, &limits, &active);
        if self.set_gates {
            for (i, (gate, &limit)) in self.gates.iter().zip(&limits).enumerate() {
                gate.with_controller(|c| {
                    if let SimController::Oracle(f) = c {
                        f.set_limit(limit).expect("at least 1");
                    }
                });
                // A client that left keeps the limits of its active time in its statistics.
                if active[i] {
                    rec.limit(i, now, gate.limit());
                }
            }
        }
        let boundary = self
            .boundaries
            .iter()
            .copied()
            .find(|&b| b > now)
            .unwrap_or(u64::MAX);
        upstream.oracle_steady_until(now).min(boundary)
    }
}

/// Each client's oracle limit at `now`: its share of the dependency among the active clients
/// (started, with a call to make, waiting or in progress: every arrival of an open load is
/// scheduled from the start, and a closed-loop caller schedules its next call as its last one
/// ends). An inactive client gets a share as if it were one more.
fn oracle_limits(upstream: &dyn Upstream, active: &[bool], now: u64) -> Vec<u32> {
    let count = active.iter().filter(|&&a| a).count();
    let mut index = 0;
    active
        .iter()
        .enumerate()
        .map(|(client, &is_active)| {
            let share = if is_active {
                index += 1;
                Share {
                    index: index - 1,
                    count,
                }
            } else {
                Share {
                    index: count,
                    count: count + 1,
                }
            };
            upstream.oracle_limit(now, client, share)
        })
        .collect()
}

/// The global ceiling: a fixed limit over every client.
fn ceiling_gate(limit: u32, clock: &ManualClock) -> SimGate<'_> {
    let fixed = Limiter::Fixed(limit)
        .build()
        .expect("a ceiling of at least 1");
    Gate::with_queue(fixed, clock, HeapQueue::new(QUEUE))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::upstream::Call;

    /// Answers every call with a 503 in no time at all.
    struct Instant503;

    impl Upstream for Instant503 {
        fn start(&mut self, _: &CallStart, _: &mut Rng) -> Call {
            Call {
                duration_us: 0,
                reply: Reply::Unavailable,
            }
        }
        fn end(&mut self, _: &CallEnd) {}
        fn oracle_limit(&self, _: u64, _: usize, _: Share) -> u32 {
            1
        }
    }

    #[test]
    fn a_loop_that_never_lets_time_move_is_stopped() {
        let clients = Clients::new(vec![Load::closed(8, 1_000_000)]);
        let limiter = Limiter::Fixed(4);
        let err = run(&clients, &mut Instant503, &limiter, 1).unwrap_err();
        // 8 callers: 10,000 + 64 × 8 events at t = 0, then the run stops.
        assert_eq!(
            err,
            RunError::Runaway {
                at_us: 0,
                events: 10_513
            }
        );
        assert!(err.to_string().contains("runaway"));
    }

    #[test]
    fn a_server_that_never_answers_needs_a_client_timeout() {
        struct Silent;
        impl Upstream for Silent {
            fn start(&mut self, _: &CallStart, _: &mut Rng) -> Call {
                Call {
                    duration_us: 0,
                    reply: Reply::NoAnswer,
                }
            }
            fn end(&mut self, _: &CallEnd) {}
            fn oracle_limit(&self, _: u64, _: usize, _: Share) -> u32 {
                1
            }
        }
        let clients = Clients::new(vec![Load::closed(2, 10_000)]);
        let limiter = Limiter::Fixed(2);
        assert_eq!(
            run(&clients, &mut Silent, &limiter, 1).unwrap_err(),
            RunError::NoAnswerWithoutTimeout
        );
        let m = run(&clients.clone().timeout(3_000), &mut Silent, &limiter, 1).unwrap();
        // Two callers, each call given up after 3 ms, from 0 until 10 ms: four rounds.
        assert_eq!((m.ok, m.timed_out), (0, 8));
    }
}
