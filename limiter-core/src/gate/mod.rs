//! The gate: admission against the controller's limit, bounded FIFO waiting, permit accounting.
//!
//! # Invariants
//!
//! All state lives behind one [`RawMutex`]; every rule below holds whenever the lock is free.
//!
//! 1. **Hard limit.** `in_flight` grows by one only while `in_flight < limit` (the limit in force
//!    at that moment). Lowering the limit revokes nothing: in-flight requests finish, and nobody
//!    is admitted until `in_flight` has fallen below the new limit.
//! 2. **No idle capacity while someone waits.** Every operation that frees capacity or raises the
//!    limit ends by granting waiters, oldest first, until nobody waits or `in_flight >= limit`.
//!    Wakers are collected in batches of at most eight and woken between batches with the lock
//!    released, so capacity may sit idle for a moment while the operation is still granting.
//!    An operation that finds nobody waiting when it changes the state skips the grant pass
//!    (the common, uncontended case costs one lock); anyone who queues afterwards saw the freed
//!    capacity under the lock and took it on arrival. Off microcontrollers the operation grants
//!    the first waiter under its own lock, and runs the grant pass only if room is left after
//!    it (a contended release then costs one lock, not two).
//! 3. **FIFO, no barging.** The fast path (`try_acquire`, a first poll) admits only when
//!    `in_flight < limit` *and nobody is waiting*, so it can never overtake a waiter, not even in
//!    the gaps between wake batches.
//! 4. **Conservation.** Each unit of `in_flight` belongs to exactly one [`Permit`] or one granted,
//!    unclaimed waiter. A permit gives it back on drop (whatever the path), a granted waiter on
//!    claim (it becomes a permit) or on cancellation (it is released, which grants the next one).
//!    Granting takes the waiter out of the queue and moves the grant horizon past its ticket
//!    (see [`waiters`]); the gate publishes the horizon in a word outside the lock, after the
//!    word that says what the grant was admitted as (the controller's epoch and the count in
//!    flight). A waiter that reads a horizon above its ticket therefore claims its place
//!    without the lock, and reads an admission at least as recent as its own grant. A waiter
//!    that gives up takes the lock: below the horizon it releases the place it was granted,
//!    above it leaves the queue. Both words are written only under the lock, so the gate's
//!    lock orders them.
//! 5. **Wake outside the lock, exactly as many as admitted.** Granting collects wakers; they are
//!    woken after the lock is released, one per granted entry.
//! 6. **Admission and cancellation without the lock** (where [`RawMutex::LOCK_FREE`]: the words
//!    are atomics). The count in flight is kept in three words instead of under the lock:
//!    admissions less releases, each counted modulo 2^32.
//!    - [`ADMITTED`] holds the admissions and the limit in force, and changes only by
//!      compare-and-exchange: a newcomer admitted without the lock, a grant, and a new limit
//!      published under the lock. An admission therefore succeeds only if the limit and count
//!      it read are still those in force.
//!    - [`RELEASED`] holds the releases made under the lock (completions with an outcome,
//!      granted waiters that gave up) and the controller's epoch; only the lock writes it,
//!      after the controller's change and before the new limit goes into [`ADMITTED`].
//!    - [`CANCELLED`] holds the releases made without the lock (a permit dropped without an
//!      outcome, one read-modify-write) and the bit that says someone waits.
//!
//!    A newcomer (`try_acquire`, or the first poll of `acquire` with no hold in force) reads
//!    them in that order and admits itself with one compare-and-exchange if nobody waits and
//!    the count is below the limit. Releases read after the admissions can only make the count
//!    larger, so it never admits above the limit (invariant 1); anything else takes the lock,
//!    which counts the refusal and decides with the controller's own limit. Every admission
//!    under the lock is a compare-and-exchange too, from the very count its room was judged
//!    on: one that merely added one after its check would count a newcomer admitted without
//!    the lock in between as room (the loom model
//!    `a_newcomer_without_the_lock_and_a_waiter_never_both_take_one_place` finds it).
//!
//!    A newcomer that is about to be the first to queue sets the bit (a read-modify-write of
//!    [`CANCELLED`]) and looks for room once more: a drop ordered before the bit is in that
//!    count; one ordered after it sees the bit, and takes the lock to grant (invariant 2).
//!    While the bit is set no newcomer gets in without the lock (invariant 3): one that read
//!    [`CANCELLED`] before the bit read [`ADMITTED`] before that, and its compare-and-exchange
//!    succeeds only if [`ADMITTED`] is unchanged, in which case the newcomer that queued
//!    counted no fewer releases and found no room, and neither did it. A completion that finds
//!    someone waiting and room for one hands its unit straight to the oldest waiter, under the
//!    lock, and no word changes.
//!
//!    The epoch an admission records was read after [`ADMITTED`], so it is never newer than the
//!    one in force when it was admitted. It can be older only if a cut that left the limit
//!    where it was (at the floor) raced with the admission: that one sample then cannot cut,
//!    and one cut per round trip still holds.

pub(crate) mod error;
pub(crate) mod future;
pub(crate) mod handle;
pub(crate) mod mutex;
pub(crate) mod observe;
pub(crate) mod permit;
pub(crate) mod scoped;
pub(crate) mod snapshot;
pub(crate) mod waiters;

use core::task::{Context, Poll, Waker};
use core::time::Duration;

use crate::controller::{Admission, Controller, Epoch, Sample};
use crate::gate::error::{AtLimit, Refused, TryAcquireError};
use crate::gate::future::Acquire;
use crate::gate::handle::GateRef;
use crate::gate::mutex::RawMutex;
#[cfg(any(feature = "metrics", feature = "tracing"))]
use crate::gate::observe::Name;
use crate::gate::observe::Seen;
use crate::gate::permit::Permit;
use crate::gate::snapshot::Snapshot;
use crate::gate::waiters::{InlineQueue, Queue, Waiters, WakeList};
use crate::time::clock::{Clock, Instant};

/// The gate's word holding the end of its `Retry-After` hold: no newcomer is admitted through a
/// [`crate::Limiter`] before this instant, in microseconds; 0: no hold. Outside the lock: no hold
/// costs one load.
const NOT_BEFORE: usize = 0;
/// The gate's word holding the grant horizon (invariant 4): a waiter whose ticket is below it
/// has been granted. Written under the lock after every grant, read without it by the waiter.
const HORIZON: usize = 1;
/// The gate's word holding what the latest grant was admitted as: the controller's epoch in the
/// high half, the count in flight in the low half. Written under the lock before [`HORIZON`].
const GRANTED_AS: usize = 2;
/// The gate's word holding the admissions made (high half, modulo 2^32) and the limit in force
/// (low half), where the words count the requests in flight ([`RawMutex::LOCK_FREE`],
/// invariant 6). Changed only by compare-and-exchange.
/// (The counts are in the high halves: one more is a wrapping add of 2^32.)
const ADMITTED: usize = 3;
/// The gate's word holding the releases made under the lock (high half, modulo 2^32) and the
/// controller's epoch (low half), invariant 6. Written only under the lock.
const RELEASED: usize = 4;
/// The gate's word holding the releases made without the lock (permits dropped without an
/// outcome), and [`WAITING`], invariant 6.
const CANCELLED: usize = 5;
/// How many words a gate reads without its lock (see [`Gate::from_state`]).
pub const GATE_WORDS: usize = 6;
/// [`CANCELLED`]'s bit that says someone waits in the queue.
const WAITING: u64 = 1 << 63;
/// A word's low half.
const LOW: u64 = 0xFFFF_FFFF;
/// One in a word's high half.
const ONE: u64 = 1 << 32;

/// The words of invariant 6, read in this order: [`ADMITTED`], [`RELEASED`], [`CANCELLED`].
#[derive(Clone, Copy)]
struct Counts {
    admitted: u64,
    released: u64,
    cancelled: u64,
}

impl Counts {
    /// The limit in force.
    const fn limit(self) -> u32 {
        self.admitted as u32
    }

    /// Admissions less releases, modulo 2^32: at least the count in flight when the
    /// admissions were read (releases read later can only make it larger).
    const fn in_flight(self) -> u32 {
        ((self.admitted >> 32) as u32)
            .wrapping_sub((self.released >> 32) as u32)
            .wrapping_sub(self.cancelled as u32)
    }

    /// The controller's epoch, as published under the lock.
    const fn epoch(self) -> Epoch {
        Epoch(self.released as u32)
    }

    /// Whether someone waits in the queue.
    const fn someone_waits(self) -> bool {
        self.cancelled & WAITING != 0
    }
}

/// `admitted` with one admission more: its high half incremented, modulo 2^32, its limit kept.
const fn one_more(admitted: u64) -> u64 {
    admitted.wrapping_add(ONE)
}

#[derive(Debug, Clone, Copy)]
struct Counters {
    /// Where the lock counts the requests in flight (not [`RawMutex::LOCK_FREE`]), the
    /// admissions. Where the words do (invariant 6), the releases made under the lock, whole
    /// (the lock's copy of [`RELEASED`]'s count): the admissions are then those releases, the
    /// drops, the requests in flight and [`Counters::handed_over`]. One field for the two, so
    /// that a gate on a microcontroller carries no count it does not use.
    admitted_or_released: u64,
    /// Units of capacity a completion handed straight to a waiter, where the words count in
    /// flight: each is an admission that no count of the words shows (see
    /// [`Gate::release_or_hand_over`], which a microcontroller does not run).
    #[cfg(not(target_os = "none"))]
    handed_over: u64,
    at_limit: u64,
    held: u64,
    queue_full: u64,
    timed_out: u64,
    cancelled: u64,
}

impl Counters {
    const ZERO: Counters = Counters {
        admitted_or_released: 0,
        #[cfg(not(target_os = "none"))]
        handed_over: 0,
        at_limit: 0,
        held: 0,
        queue_full: 0,
        timed_out: 0,
        cancelled: 0,
    };
}

/// What a [`Gate`] keeps under its mutex: the controller, the count in flight, the waiting queue
/// and the counters. It is public only so that a gate can be built in `const` code, through
/// [`Gate::from_state`], which a trait method such as [`RawMutex::new`] cannot do.
#[derive(Debug)]
pub struct GateState<C, Q> {
    controller: C,
    /// Requests in flight, where the lock counts them (not [`RawMutex::LOCK_FREE`]).
    in_flight: u32,
    waiters: Waiters<Q>,
    counters: Counters,
}

impl<C, Q: Queue> GateState<C, Q> {
    /// The state of a new gate whose limit `controller` decides, with `queue` for its waiting
    /// requests: nothing in flight, nobody waiting.
    pub const fn with_queue(controller: C, queue: Q) -> Self {
        GateState {
            controller,
            in_flight: 0,
            waiters: Waiters::new(queue),
            counters: Counters::ZERO,
        }
    }
}

impl<C, const N: usize> GateState<C, InlineQueue<N>> {
    /// The state of a new gate whose limit `controller` decides, with a waiting queue of `N`
    /// inside it: nothing in flight, nobody waiting.
    pub const fn new(controller: C) -> Self {
        GateState::with_queue(controller, InlineQueue::new())
    }
}

/// An adaptive concurrency gate: admits requests while in-flight is below the controller's limit,
/// queues more in FIFO order (up to its queue's bound), and feeds each completed request back to
/// the controller.
///
/// - `M` is the mutual exclusion ([`RawMutex`]): [`crate::NoopRawMutex`] on one thread,
///   [`crate::CriticalSectionRawMutex`] on a microcontroller, [`crate::StdRawMutex`] on a server.
/// - `C` is the [`Controller`]: [`crate::AimdF32`], [`crate::AimdFixed`], [`crate::Fixed`]…
/// - `T` is the [`Clock`], read when a request is admitted and when it completes.
/// - `Q` is the waiting [`Queue`]: [`InlineQueue<N>`](crate::InlineQueue) (`N` places inside the
///   gate, for firmware and `const`) or `HeapQueue` (`std`: on the heap, up to a bound set at
///   run time). A waiter holds a place in it from its first poll until it is granted capacity
///   (or is dropped); a granted waiter that has not run yet is counted in flight.
///
/// The gate never sleeps, spawns or allocates. Waiting is a future ([`Acquire`]) that any
/// executor, or a hand-written poll loop, can drive.
///
/// # Examples
///
/// ```
/// use limiter_core::{AimdF32, Gate, InlineQueue, ManualClock, NoopRawMutex};
///
/// let clock = ManualClock::new();
/// let gate: Gate<NoopRawMutex, _, _, InlineQueue<8>> = Gate::new(AimdF32::new(Default::default()).unwrap(), &clock);
///
/// let permit = gate.try_acquire().expect("below the limit");
/// clock.advance(core::time::Duration::from_millis(5));
/// permit.success(); // a 5 ms latency sample for the controller
/// assert_eq!(gate.snapshot().admitted, 1);
/// assert_eq!(gate.snapshot().in_flight, 0);
/// ```
pub struct Gate<M: RawMutex, C, T, Q> {
    state: M::Mutex<GateState<C, Q>>,
    /// The words read without the lock, by index: [`NOT_BEFORE`], [`HORIZON`], [`GRANTED_AS`],
    /// and the counts of invariant 6, [`ADMITTED`], [`RELEASED`] and [`CANCELLED`].
    words: [M::Word; GATE_WORDS],
    clock: T,
    /// Its name in metrics and events.
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    name: Name,
}

impl<M: RawMutex, C, T, Q> Gate<M, C, T, Q> {
    /// A gate around a mutex already holding its state, and the [`GATE_WORDS`] words the gate
    /// reads without its lock, each holding 0 (its `Retry-After` hold, the grant horizon of its
    /// queue, what its latest grant was admitted as, and where [`RawMutex::LOCK_FREE`] the
    /// counts that admit without the lock): [`Gate::new`] for `const` code, where they have
    /// to be built by their concrete types' `const` constructors. (The counts start with a
    /// limit of 0: the first newcomer takes the lock, which publishes the controller's.)
    ///
    /// ```
    /// use core::cell::{Cell, RefCell};
    /// use limiter_core::{
    ///     Clock, Fixed, GATE_WORDS, Gate, GateState, InlineQueue, Instant, NoopRawMutex,
    /// };
    ///
    /// struct Uptime; // a board's timer, say
    /// impl Clock for Uptime {
    ///     fn now(&self) -> Instant {
    ///         Instant::ZERO
    ///     }
    /// }
    ///
    /// const FIXED: Fixed = match Fixed::new(4) {
    ///     Ok(fixed) => fixed,
    ///     Err(e) => panic!("{}", e.message()),
    /// };
    /// let gate: Gate<NoopRawMutex, Fixed, Uptime, InlineQueue<8>> = const {
    ///     let state = RefCell::new(GateState::new(FIXED));
    ///     Gate::from_state(state, [const { Cell::new(0) }; GATE_WORDS], Uptime)
    /// };
    /// assert_eq!(gate.snapshot().limit, 4);
    /// ```
    pub const fn from_state(
        state: M::Mutex<GateState<C, Q>>,
        words: [M::Word; GATE_WORDS],
        clock: T,
    ) -> Self {
        Gate {
            state,
            words,
            clock,
            #[cfg(any(feature = "metrics", feature = "tracing"))]
            name: Name::new(),
        }
    }
}

impl<M: RawMutex, C: Controller, T: Clock, Q: Queue> Gate<M, C, T, Q> {
    /// A gate with `controller` deciding the limit and `clock` measuring latency, and the
    /// default queue (an empty [`InlineQueue`], or a `HeapQueue` of 1,024).
    pub fn new(controller: C, clock: T) -> Self
    where
        Q: Default,
    {
        Gate::with_queue(controller, clock, Q::default())
    }

    /// A gate with `controller` deciding the limit, `clock` measuring latency, and `queue` for
    /// the requests that wait.
    pub fn with_queue(controller: C, clock: T, queue: Q) -> Self {
        // The counts of invariant 6 start with the controller's limit and epoch in them.
        let published = |word| match word {
            ADMITTED => u64::from(controller.limit()),
            RELEASED => u64::from(controller.epoch().0),
            _ => 0,
        };
        let words = core::array::from_fn(|word| M::new_word(published(word)));
        let state = GateState::with_queue(controller, queue);
        Gate::from_state(M::new(state), words, clock)
    }

    /// The most requests that may wait.
    pub fn queue_bound(&self) -> usize {
        M::lock(&self.state, |s| s.waiters.slots().bound())
    }

    /// The clock.
    pub fn clock(&self) -> &T {
        &self.clock
    }

    /// Requests in flight, under the lock.
    fn in_flight_of(&self, s: &GateState<C, Q>) -> u32 {
        if M::LOCK_FREE {
            // Only the lock writes the releases of `RELEASED`: its own count is the latest.
            let counts = Counts {
                admitted: M::load(&self.words[ADMITTED]),
                released: s.counters.admitted_or_released << 32,
                cancelled: M::load(&self.words[CANCELLED]),
            };
            counts.in_flight()
        } else {
            s.in_flight
        }
    }

    /// Whether the limit leaves room for one more, under the lock.
    fn has_room(&self, s: &GateState<C, Q>) -> bool {
        self.in_flight_of(s) < s.controller.limit()
    }

    /// Admits a newcomer under the lock if nobody waits (invariant 3) and the limit leaves
    /// room; returns whether it did.
    fn admit_newcomer(&self, s: &mut GateState<C, Q>) -> bool {
        s.waiters.waiting() == 0 && self.try_take(s)
    }

    /// Takes one unit of capacity under the lock if the limit leaves room; returns whether it
    /// did. Where the words count in flight (invariant 6) the unit is taken by a
    /// compare-and-exchange from the very count the room was judged on: a newcomer admitted
    /// without the lock in between makes it look again.
    fn try_take(&self, s: &mut GateState<C, Q>) -> bool {
        if !M::LOCK_FREE {
            if !self.has_room(s) {
                return false;
            }
            s.in_flight += 1;
            let admitted = &mut s.counters.admitted_or_released;
            *admitted = admitted.wrapping_add(1);
            return true;
        }
        let (limit, released) = (s.controller.limit(), s.counters.admitted_or_released << 32);
        let mut admitted = M::load(&self.words[ADMITTED]);
        loop {
            let counts = Counts {
                admitted,
                released,
                cancelled: M::load(&self.words[CANCELLED]),
            };
            if counts.in_flight() >= limit {
                return false;
            }
            match M::compare_exchange(&self.words[ADMITTED], admitted, one_more(admitted)) {
                Ok(_) => return true,
                Err(held) => admitted = held,
            }
        }
    }

    /// Grants the oldest waiter a unit of capacity, under the lock, if someone waits and the
    /// limit leaves room: returns its waker, to wake once the lock is released.
    fn grant_one(&self, s: &mut GateState<C, Q>) -> Option<Waker> {
        if s.waiters.waiting() == 0 || !self.try_take(s) {
            return None;
        }
        let waker = s.waiters.grant_next();
        if waker.is_none() {
            // Cannot happen (a queued request has a waker): the unit goes back.
            Self::release(s);
        }
        waker
    }

    /// Gives a completed request's unit of capacity back, under the lock, or hands it straight
    /// to the oldest waiter if the limit leaves room for one once it is given back (invariant
    /// 2): the count in flight does not move, and no word changes for it. Returns that
    /// waiter's waker, to wake once the lock is released.
    ///
    /// On a microcontroller (`target_os = "none"`) it gives the unit back, and anyone waiting
    /// is left to the grant pass (see [`Gate::grant_first`]).
    fn release_or_hand_over(&self, s: &mut GateState<C, Q>) -> Option<Waker> {
        // The count still holds the unit: at most the limit is room once it is given back.
        if !cfg!(target_os = "none")
            && s.waiters.waiting() != 0
            && self.in_flight_of(s) <= s.controller.limit()
        {
            let waker = s.waiters.grant_next();
            if waker.is_some() {
                self.settle_waiting(s);
                #[cfg(not(target_os = "none"))]
                {
                    let admitted = if M::LOCK_FREE {
                        &mut s.counters.handed_over
                    } else {
                        &mut s.counters.admitted_or_released
                    };
                    *admitted = admitted.wrapping_add(1);
                }
                return waker;
            }
        }
        Self::release(s);
        None
    }

    /// Gives one unit of capacity back, under the lock: a completion, or a granted waiter that
    /// gave up.
    fn release(s: &mut GateState<C, Q>) {
        if M::LOCK_FREE {
            // Published by `Gate::publish`.
            let released = &mut s.counters.admitted_or_released;
            *released = released.wrapping_add(1);
        } else {
            s.in_flight = s.in_flight.saturating_sub(1);
        }
    }

    /// Publishes, under the lock, what newcomers admitted without it read (invariant 6): the
    /// releases made under the lock and the controller's epoch, then its limit, if it moved.
    fn publish(&self, s: &GateState<C, Q>) {
        if !M::LOCK_FREE {
            return;
        }
        let epoch = u64::from(s.controller.epoch().0);
        let released = s.counters.admitted_or_released;
        let published = released << 32 | epoch;
        // Stored only if it moved: a handoff moves nothing, and a store would take the line
        // from the cores reading it.
        if M::load(&self.words[RELEASED]) != published {
            M::store(&self.words[RELEASED], published);
        }
        let limit = s.controller.limit();
        let mut admitted = M::load(&self.words[ADMITTED]);
        while admitted as u32 != limit {
            let new = admitted & !LOW | u64::from(limit);
            match M::compare_exchange(&self.words[ADMITTED], admitted, new) {
                Ok(_) => return,
                Err(held) => admitted = held,
            }
        }
    }

    /// Clears the bit that says someone waits once nobody does (invariant 6), under the lock.
    fn settle_waiting(&self, s: &GateState<C, Q>) {
        if M::LOCK_FREE
            && s.waiters.waiting() == 0
            && M::load(&self.words[CANCELLED]) & WAITING != 0
        {
            M::fetch_and(&self.words[CANCELLED], !WAITING);
        }
    }

    /// The admission of the request just taken, timestamped by the caller once the lock is
    /// released (`at` is a placeholder until then).
    fn admission(&self, s: &GateState<C, Q>) -> Admission {
        Admission {
            at: Instant::ZERO,
            epoch: s.controller.epoch(),
            in_flight: self.in_flight_of(s),
        }
    }

    /// The first grant of invariant 2, under the lock of the operation that made room: a
    /// release under contention frees one place for one waiter, and granting it here saves
    /// that handoff a lock of its own. Returns the granted waiter's waker, to wake once the lock
    /// is released, and whether the caller must run the grant pass for more. Nobody waiting
    /// costs one comparison.
    ///
    /// On a microcontroller (`target_os = "none"`) flash counts more than a lock (this costs
    /// about 100 bytes on a Cortex-M0) and contention is rare: there the operation grants
    /// nothing under its own lock, and anyone waiting is left to the grant pass.
    #[cfg(target_os = "none")]
    fn grant_first(&self, s: &mut GateState<C, Q>) -> (Option<Waker>, bool) {
        (None, s.waiters.waiting() != 0)
    }

    /// See the other `grant_first`: the first grant, under the operation's own lock.
    #[cfg(not(target_os = "none"))]
    fn grant_first(&self, s: &mut GateState<C, Q>) -> (Option<Waker>, bool) {
        let Some(waker) = self.grant_one(s) else {
            return (None, false);
        };
        self.settle_waiting(s);
        (Some(waker), self.has_room(s))
    }

    /// Restores invariant 2, up to one batch of wakers. Returns whether more may be grantable.
    fn grant(&self, s: &mut GateState<C, Q>, batch: &mut WakeList) -> bool {
        let more = self.grant_batch(s, batch);
        self.settle_waiting(s);
        more
    }

    /// [`Gate::grant`] but for the bit that says someone waits.
    fn grant_batch(&self, s: &mut GateState<C, Q>, batch: &mut WakeList) -> bool {
        loop {
            if batch.is_full() {
                return self.has_room(s);
            }
            let Some(waker) = self.grant_one(s) else {
                return false;
            };
            batch.push(waker);
        }
    }

    /// Runs `f` under the lock, then grants waiters until invariant 2 holds, waking them outside
    /// the lock in batches.
    fn locked<R>(&self, f: impl FnOnce(&mut GateState<C, Q>) -> R) -> R {
        self.locked_handing(|s| (f(s), None))
    }

    /// [`Gate::locked`] for an operation that may hand a unit of capacity straight to a
    /// waiter under the lock ([`Gate::release_or_hand_over`]): `f` returns that waiter's
    /// waker too, which is woken with the others.
    fn locked_handing<R>(&self, f: impl FnOnce(&mut GateState<C, Q>) -> (R, Option<Waker>)) -> R {
        let (result, first, more) = M::lock(&self.state, |s| {
            let (r, handed) = f(s);
            self.publish(s);
            let (first, more) = match handed {
                Some(waker) => (Some(waker), s.waiters.waiting() != 0 && self.has_room(s)),
                None => self.grant_first(s),
            };
            if first.is_some() {
                self.publish_grants(s);
            }
            (r, first, more)
        });
        if first.is_some() || more {
            self.grant_waiters(first, more);
        }
        result
    }

    /// Wakes `first` (granted already, under the caller's lock) and, if `more`, grants waiters
    /// while there is room, waking them outside the lock in batches. The grants come before
    /// the first wake, so that a waker that panics leaves no granted waiter asleep (the list
    /// wakes the rest as it drops). One copy for every caller of [`Gate::locked`] (on a
    /// microcontroller, flash counts).
    #[inline(never)]
    fn grant_waiters(&self, first: Option<Waker>, mut more: bool) {
        let mut wakes = WakeList::new();
        if let Some(waker) = first {
            wakes.push(waker);
        }
        loop {
            // Checked again under the lock: someone may have been served meanwhile.
            if more {
                more = M::lock(&self.state, |s| {
                    let before = wakes.len();
                    let more = self.grant(s, &mut wakes);
                    if wakes.len() != before {
                        self.publish_grants(s); // only if this pass granted someone
                    }
                    more
                });
            }
            wakes.wake_all();
            if !more {
                return;
            }
        }
    }

    /// Publishes the grants just made under the lock (invariant 4): what they were admitted as,
    /// then the horizon that tells their waiters so.
    fn publish_grants(&self, s: &GateState<C, Q>) {
        let epoch = u64::from(s.controller.epoch().0);
        M::store(
            &self.words[GRANTED_AS],
            epoch << 32 | u64::from(self.in_flight_of(s)),
        );
        M::store(&self.words[HORIZON], s.waiters.horizon());
    }

    /// The admission of a granted waiter, at `now`: as of the latest grant, which is its own or
    /// a later one (read after the horizon that showed the grant).
    fn granted_admission(&self, now: Instant) -> Admission {
        let granted_as = M::load(&self.words[GRANTED_AS]);
        Admission {
            at: now,
            epoch: Epoch((granted_as >> 32) as u32),
            in_flight: granted_as as u32,
        }
    }

    /// Admits a request if in-flight is below the limit and nobody waits, else refuses it at
    /// once ([`AtLimit`]).
    ///
    /// # Examples
    ///
    /// ```
    /// use limiter_core::{AtLimit, Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
    /// let first = gate.try_acquire().unwrap();
    /// assert_eq!(gate.try_acquire().err(), Some(AtLimit));
    /// drop(first); // released without an outcome: counted as cancelled, limit unchanged
    /// assert!(gate.try_acquire().is_ok());
    /// ```
    pub fn try_acquire(&self) -> Result<Permit<&Self>, AtLimit> {
        Self::try_acquire_owned(self)
    }

    /// [`Gate::try_acquire`] through any handle to the gate (`&Gate`, `Arc<Gate>`…); the permit
    /// keeps the handle.
    pub fn try_acquire_owned<R>(handle: R) -> Result<Permit<R>, AtLimit>
    where
        R: core::ops::Deref<Target = Self>,
    {
        let admission = handle.try_admit()?;
        Ok(Permit::new(handle, admission))
    }

    /// Takes one unit of capacity if a newcomer may be admitted now; counts a refusal at the
    /// limit if not.
    ///
    /// The clock is read only for an admitted request, after the lock: refusing at the limit,
    /// the hot path under overload, reads none.
    fn try_admit(&self) -> Result<Admission, AtLimit> {
        self.admit(false).map_err(|_| AtLimit)
    }

    /// [`Gate::try_admit`], refused too while an admission hold is in force
    /// ([`Gate::hold_admissions_for`]), counted as held. The clock is read only while a hold
    /// is set; an expired one is cleared.
    pub(crate) fn try_admit_unless_held(&self) -> Result<Admission, TryAcquireError> {
        self.admit(true)
    }

    fn admit(&self, honour_hold: bool) -> Result<Admission, TryAcquireError> {
        let held = if honour_hold { self.held_until() } else { None };
        if held.is_none() {
            if let Some(mut admission) = self.admit_unlocked() {
                admission.at = self.clock.now();
                return Ok(admission);
            }
        }
        self.admit_locked(held)
    }

    /// [`Gate::admit`] under the lock: where the words do not count in flight, or do not
    /// allow the admission.
    #[cfg_attr(not(target_os = "none"), inline(never))]
    fn admit_locked(&self, held: Option<Instant>) -> Result<Admission, TryAcquireError> {
        let mut admission = M::lock(&self.state, |s| {
            // A word left stale (a gate built in `const` code starts with a limit of 0 in it)
            // is corrected here, for the next newcomer.
            self.publish(s);
            if let Some(until) = held {
                s.counters.held = s.counters.held.wrapping_add(1);
                Err(TryAcquireError::Held { until })
            } else if self.admit_newcomer(s) {
                Ok(self.admission(s))
            } else {
                s.counters.at_limit = s.counters.at_limit.wrapping_add(1);
                Err(TryAcquireError::AtLimit)
            }
        })?;
        admission.at = self.clock.now();
        Ok(admission)
    }

    /// Admits a newcomer without the lock (invariant 6), if the words say nobody waits and the
    /// limit leaves room; `None` for the lock to decide otherwise (and always where not
    /// [`RawMutex::LOCK_FREE`]).
    #[inline]
    fn admit_unlocked(&self) -> Option<Admission> {
        if !M::LOCK_FREE {
            return None;
        }
        let mut admitted = M::load(&self.words[ADMITTED]);
        loop {
            let counts = Counts {
                admitted,
                released: M::load(&self.words[RELEASED]),
                cancelled: M::load(&self.words[CANCELLED]),
            };
            let in_flight = counts.in_flight();
            if counts.someone_waits() || in_flight >= counts.limit() {
                return None;
            }
            match M::compare_exchange(&self.words[ADMITTED], admitted, one_more(admitted)) {
                Ok(_) => {
                    return Some(Admission {
                        at: Instant::ZERO,
                        epoch: counts.epoch(),
                        in_flight: in_flight + 1,
                    });
                }
                Err(held) => admitted = held,
            }
        }
    }

    /// Counts a wait that its deadline ended without a permit (the waiter has left the queue):
    /// as held if a `Retry-After` hold outlasted it, as timed out otherwise.
    pub(crate) fn count_ended_wait(&self, held: bool) {
        M::lock(&self.state, |s| {
            let counter = if held {
                &mut s.counters.held
            } else {
                &mut s.counters.timed_out
            };
            *counter = counter.wrapping_add(1);
        });
    }

    /// Waits, in FIFO order, until the request can be admitted.
    ///
    /// Resolves to [`QueueFull`](crate::QueueFull) at once if `Q` requests are already queued.
    ///
    /// # Cancel safety
    ///
    /// Dropping the future gives up its place in the queue. If capacity had already been handed
    /// to it, that capacity is released and passed to the next waiter.
    ///
    /// # Examples
    ///
    /// ```
    /// use core::future::Future;
    /// use core::pin::pin;
    /// use core::task::{Context, Poll, Waker};
    /// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
    /// let mut cx = Context::from_waker(Waker::noop());
    ///
    /// let held = gate.try_acquire().unwrap();
    /// let mut waiting = pin!(gate.acquire());
    /// assert!(waiting.as_mut().poll(&mut cx).is_pending());
    /// held.success();
    /// let Poll::Ready(Ok(permit)) = waiting.as_mut().poll(&mut cx) else { panic!() };
    /// permit.success();
    /// ```
    pub fn acquire(&self) -> Acquire<&Self> {
        Acquire::new(self)
    }

    /// [`Gate::acquire`] through any handle to the gate (`&Gate`, `Arc<Gate>`…).
    pub fn acquire_owned<R>(handle: R) -> Acquire<R>
    where
        R: core::ops::Deref<Target = Self>,
    {
        Acquire::new(handle)
    }

    /// Polls for admission. `ticket` is the caller's place in the queue, `None` before the first
    /// poll and after admission. The building block of [`Acquire`].
    ///
    /// The clock is read once per poll: on the first, the arrival (the admission time if
    /// admitted at once, the queueing time otherwise); on the one that claims a granted place,
    /// the admission time. A granted waiter claims its place without the lock (invariant 4).
    pub(crate) fn poll_acquire(
        &self,
        ticket: &mut Option<u64>,
        honour_hold: bool,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Admission, Refused>> {
        // On a microcontroller (`target_os = "none"`) a load outside the lock is a critical
        // section too, so it would save nothing: there the claim takes the lock below, and
        // flash keeps the 116 bytes this path costs on a Cortex-M0 (`scripts/footprint.sh`).
        #[cfg(not(target_os = "none"))]
        if let Some(t) = *ticket {
            if t < M::load(&self.words[HORIZON]) {
                let now = self.clock.now();
                // Read after the horizon: a hold whose setter took the lock before this grant (to
                // hold the controller's growth) is seen.
                if let Some(until) = self.hold_at(honour_hold, now) {
                    return Poll::Ready(Err(Refused::Held(until)));
                }
                *ticket = None;
                return Poll::Ready(Ok(self.granted_admission(now)));
            }
        }
        // A newcomer is admitted without the lock where the words allow it (invariant 6),
        // unless a hold may be in force.
        if M::LOCK_FREE
            && ticket.is_none()
            && (!honour_hold || M::load(&self.words[NOT_BEFORE]) == 0)
        {
            if let Some(mut admission) = self.admit_unlocked() {
                admission.at = self.clock.now();
                return Poll::Ready(Ok(admission));
            }
        }
        let now = self.clock.now();
        let mut stale_waker = None;
        let poll = M::lock(&self.state, |s| {
            // With a hold in force, a newcomer does not join the queue and a waiter does not
            // claim a place granted to it (the place stays reserved, in flight): each is told
            // until when to wait, and comes back.
            if let Some(until) = self.hold_at(honour_hold, now) {
                return Poll::Ready(Err(Refused::Held(until)));
            }
            if let Some(t) = *ticket {
                // Granted since the horizon was read above: claimed here, as it would have been
                // there.
                if s.waiters.is_granted(t) {
                    *ticket = None;
                    return Poll::Ready(Ok(self.granted_admission(now)));
                }
                match s
                    .waiters
                    .position(t)
                    .and_then(|at| s.waiters.at_mut(at).waker.as_mut())
                {
                    Some(waker) => {
                        if !waker.will_wake(cx.waker()) {
                            stale_waker = Some(core::mem::replace(waker, cx.waker().clone()));
                        }
                        return Poll::Pending;
                    }
                    // Not queued (cannot happen while invariants hold): start over.
                    None => *ticket = None,
                }
            }
            if self.admit_newcomer(s) || self.first_to_queue_finds_room(s) {
                let mut admission = self.admission(s);
                admission.at = now;
                return Poll::Ready(Ok(admission));
            }
            if let Some(t) = s.waiters.push(now, cx.waker().clone()) {
                *ticket = Some(t);
                Poll::Pending
            } else {
                self.settle_waiting(s);
                s.counters.queue_full = s.counters.queue_full.wrapping_add(1);
                Poll::Ready(Err(Refused::Full))
            }
        });
        drop(stale_waker);
        poll
    }

    /// Under the lock, for a newcomer [`Gate::admit_newcomer`] refused: if it is about to be
    /// the first to queue (and the words count in flight, [`RawMutex::LOCK_FREE`]), sets the
    /// bit that says someone waits, then looks for room once more (invariant 6). Returns
    /// whether it found some and took it (the bit is then cleared again).
    fn first_to_queue_finds_room(&self, s: &mut GateState<C, Q>) -> bool {
        if !M::LOCK_FREE || s.waiters.waiting() != 0 {
            return false;
        }
        M::fetch_or(&self.words[CANCELLED], WAITING);
        if !self.try_take(s) {
            return false;
        }
        M::fetch_and(&self.words[CANCELLED], !WAITING);
        true
    }

    /// The end of the `Retry-After` hold in force at `now`, if `honour_hold` and one is.
    /// [`Gate::held_at`] without clearing an expired hold (the next `try_acquire` or
    /// `held_until` does): called here instead, the clearing cost the Cortex-M0 image 76 bytes
    /// (`scripts/footprint.sh`).
    fn hold_at(&self, honour_hold: bool, now: Instant) -> Option<Instant> {
        let until = if honour_hold {
            M::load(&self.words[NOT_BEFORE])
        } else {
            0
        };
        (until != 0 && now.as_micros() < until).then(|| Instant::from_micros(until))
    }

    /// Leaves the queue; a granted but unclaimed place is released and passed on.
    pub(crate) fn cancel_wait(&self, ticket: u64) {
        let removed = self.locked(|s| {
            if s.waiters.is_granted(ticket) {
                Self::release(s);
                s.counters.cancelled = s.counters.cancelled.wrapping_add(1);
                return None;
            }
            let removed = s.waiters.remove(ticket);
            self.settle_waiting(s);
            removed
        });
        drop(removed); // its waker, if any, is dropped outside the lock
    }

    /// Releases a permit's capacity and feeds its sample to the controller. `None` is a
    /// cancellation: counted, and not shown to the controller.
    pub(crate) fn complete(&self, sample: Option<Sample>) {
        if sample.is_none() && M::LOCK_FREE {
            // Invariant 6: one read-modify-write, and the lock only if someone waits.
            if M::fetch_add(&self.words[CANCELLED], 1) & WAITING != 0 {
                self.grant_waiters(None, true);
            }
            return;
        }
        let seen = self.locked_handing(|s| {
            let Some(sample) = sample else {
                Self::release(s);
                s.counters.cancelled = s.counters.cancelled.wrapping_add(1);
                return (None, None);
            };
            let change = s.controller.on_sample(&sample);
            let handed = self.release_or_hand_over(s);
            let in_flight = || self.in_flight_of(s);
            (
                Some(Seen::new(&sample, change, &s.controller, in_flight)),
                handed,
            )
        });
        #[cfg(any(feature = "metrics", feature = "tracing"))]
        if let Some(seen) = seen {
            seen.publish(&self.name);
        }
        #[cfg(not(any(feature = "metrics", feature = "tracing")))]
        let _ = seen;
    }

    /// Names the gate in its metrics and `tracing` events (features `metrics` and `tracing`):
    /// the latency histogram is recorded once the gate has a name. A gate keeps its first name:
    /// naming it again with another returns that name as the error.
    ///
    /// ```
    /// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(2).unwrap(), &clock);
    /// assert_eq!(gate.name(), None);
    /// assert_eq!(gate.set_name("payments-api"), Ok(()));
    /// assert_eq!(gate.set_name("search"), Err("payments-api"));
    /// assert_eq!(gate.name(), Some("payments-api"));
    /// ```
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    pub fn set_name(&self, name: &'static str) -> Result<(), &'static str> {
        self.name.set(name)
    }

    /// The gate's name, once [`Gate::set_name`] gave it one.
    #[cfg(any(feature = "metrics", feature = "tracing"))]
    pub fn name(&self) -> Option<&'static str> {
        self.name.get()
    }

    /// Holds newcomers back, and the controller's growth, for `delay` from now (a
    /// `Retry-After`): [`Gate::try_admit_unless_held`] refuses newcomers and a
    /// [`crate::Limiter`] makes them wait, and its waiters already queued claim a place only
    /// once it has passed. A later, shorter hold never shortens one in force.
    pub(crate) fn hold_admissions_for(&self, delay: Duration) {
        let now = self.clock.now();
        let until = now.saturating_add(delay);
        M::raise(&self.words[NOT_BEFORE], until.as_micros());
        self.hold_growth_between(now, until);
        #[cfg(feature = "tracing")]
        observe::held(&self.name, delay);
    }

    /// The end of the admission hold, if one is in force; an expired one is cleared. The clock
    /// is read only while a hold is set.
    pub(crate) fn held_until(&self) -> Option<Instant> {
        if M::load(&self.words[NOT_BEFORE]) == 0 {
            return None;
        }
        self.held_at(self.clock.now())
    }

    /// [`Gate::held_until`] at `now`.
    fn held_at(&self, now: Instant) -> Option<Instant> {
        let until = M::load(&self.words[NOT_BEFORE]);
        if until == 0 {
            return None;
        }
        if now.as_micros() >= until {
            M::clear(&self.words[NOT_BEFORE], until); // unless a longer hold was set meanwhile
            return None;
        }
        Some(Instant::from_micros(until))
    }

    /// Holds the controller's growth for `delay` from now (a `Retry-After` hint).
    pub fn hold_growth_for(&self, delay: Duration) {
        let now = self.clock.now();
        self.hold_growth_between(now, now.saturating_add(delay));
    }

    fn hold_growth_between(&self, now: Instant, until: Instant) {
        M::lock(&self.state, |s| {
            s.controller.hold_growth_until(now, until);
            self.publish(s);
        });
    }

    /// Runs `f` on the controller (to reconfigure it, or to read it), then admits any waiters a
    /// raised limit makes room for.
    ///
    /// `f` runs under the gate's lock: it must not use the gate (acquire, release a permit, take
    /// a snapshot, format it). With [`crate::NoopRawMutex`] or
    /// [`crate::CriticalSectionRawMutex`] that panics on the re-borrow; with
    /// [`crate::StdRawMutex`] it deadlocks.
    ///
    /// ```
    /// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex};
    ///
    /// let clock = ManualClock::new();
    /// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
    /// gate.with_controller(|c| c.set_limit(3)).unwrap();
    /// assert_eq!(gate.snapshot().limit, 3);
    /// ```
    pub fn with_controller<R>(&self, f: impl FnOnce(&mut C) -> R) -> R {
        self.locked(|s| f(&mut s.controller))
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        M::lock(&self.state, |s| s.controller.limit())
    }

    /// Requests in flight (permits held and granted waiters not yet resumed).
    pub fn in_flight(&self) -> u32 {
        M::lock(&self.state, |s| self.in_flight_of(s))
    }

    /// Everything an operator needs to see, in one consistent read.
    pub fn snapshot(&self) -> Snapshot {
        let now = self.clock.now();
        M::lock(&self.state, |s| {
            let stats = s.controller.stats();
            let in_flight = self.in_flight_of(s);
            let counted = s.counters.admitted_or_released;
            let (mut admitted, mut cancelled) = (counted, s.counters.cancelled);
            if M::LOCK_FREE {
                // Invariant 6: every admission was released under the lock, cancelled without
                // it, or is in flight.
                let dropped = M::load(&self.words[CANCELLED]) & !WAITING;
                cancelled = cancelled.wrapping_add(dropped);
                #[cfg(not(target_os = "none"))]
                let counted = counted.wrapping_add(s.counters.handed_over);
                admitted = counted
                    .wrapping_add(dropped)
                    .wrapping_add(u64::from(in_flight));
            }
            Snapshot {
                limit: stats.limit,
                in_flight,
                baseline_micros: stats.baseline_micros,
                admitted,
                at_limit: s.counters.at_limit,
                held: s.counters.held,
                queue_full: s.counters.queue_full,
                timed_out: s.counters.timed_out,
                cancelled,
                increases: stats.increases,
                decreases: stats.decreases,
                min: stats.min,
                max: stats.max,
                at_floor_since: stats.at_floor_since,
                queued: s.waiters.waiting() as u32,
                oldest_wait_micros: s
                    .waiters
                    .oldest_waiting_since()
                    .map(|since| now.micros_since(since)),
            }
        })
    }
}

impl<M, C, T, Q> core::fmt::Debug for Gate<M, C, T, Q>
where
    M: RawMutex,
    C: Controller,
    T: Clock,
    Q: Queue,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Gate")
            .field("snapshot", &self.snapshot())
            .finish_non_exhaustive()
    }
}

impl<R, M, C, T, Q> crate::gate::handle::sealed::Sealed for R
where
    R: core::ops::Deref<Target = Gate<M, C, T, Q>>,
    M: RawMutex,
    C: Controller,
    T: Clock,
    Q: Queue,
{
}

impl<R, M, C, T, Q> GateRef for R
where
    R: core::ops::Deref<Target = Gate<M, C, T, Q>>,
    M: RawMutex,
    C: Controller,
    T: Clock,
    Q: Queue,
{
    fn now(&self) -> Instant {
        self.clock.now()
    }

    fn complete(&self, sample: Option<Sample>) {
        Gate::complete(self, sample);
    }

    fn hold_growth_for(&self, delay: Duration) {
        Gate::hold_growth_for(self, delay);
    }

    fn hold_admissions_for(&self, delay: Duration) {
        Gate::hold_admissions_for(self, delay);
    }

    fn poll_acquire(
        &self,
        ticket: &mut Option<u64>,
        honour_hold: bool,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Admission, Refused>> {
        Gate::poll_acquire(self, ticket, honour_hold, cx)
    }

    fn cancel_wait(&self, ticket: u64) {
        Gate::cancel_wait(self, ticket);
    }

    fn try_admit(&self) -> Result<Admission, AtLimit> {
        Gate::try_admit(self)
    }
}
