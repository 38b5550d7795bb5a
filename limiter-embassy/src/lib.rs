//! The embassy adapter of [`limiter_core`]: an allocation-free adaptive concurrency limiter for
//! firmware.
//!
//! - Latency is measured on `embassy_time::Instant` ([`EmbassyClock`]).
//! - Locking uses an embassy-sync raw mutex: [`CriticalSectionRawMutex`] by default (tasks and
//!   interrupts, any core), [`NoopRawMutex`](embassy_sync::blocking_mutex::raw::NoopRawMutex) or
//!   `ThreadModeRawMutex` (Cortex-M targets only) when every
//!   user runs in one executor.
//! - Waiting is the core gate's FIFO queue of `Q` entries; [`Limiter::acquire_with_timeout`]
//!   bounds it with `embassy_time::with_timeout`.
//! - A `Retry-After` from the dependency ([`Verdict::retry_after`](limiter_core::Verdict)) seen
//!   by [`Limiter::run`], or given to [`Limiter::hold_admissions_for`], holds the limit's growth
//!   *and* holds new admissions back until it has passed (`Timer::at`). Recorded on a permit
//!   directly (`Permit::record_verdict`), it holds growth only.
//!
//! The library selects no time driver and no tick rate; the firmware does. A limiter is built in
//! `const` code, so it is a plain `static`, checked at compile time and set up before `main`
//! with no code at all (a configuration the controller refuses stops the build):
//!
//! ```
//! use limiter_core::{AimdConfig, AimdFixedCompact};
//! use limiter_embassy::Limiter;
//!
//! static LIMITER: Limiter =
//!     Limiter::new(AimdFixedCompact::new_const(AimdConfig::DEFAULT.bounds(1, 16)));
//!
//! let permit = LIMITER.try_acquire().unwrap();
//! permit.success();
//! assert_eq!(LIMITER.snapshot().admitted, 1);
//! ```
//!
//! A controller built at run time (from a stored configuration, say) goes in a
//! `static_cell::StaticCell` instead, or anywhere else that gives a `&'static`.
#![no_std]
// docs.rs marks every item that needs a feature with that feature.
#![cfg_attr(docsrs, feature(doc_cfg))]

use core::cell::{Cell, RefCell};
use core::future::Future;
use core::marker::PhantomData;

use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::blocking_mutex::raw::{CriticalSectionRawMutex, RawMutex as EmbassyRaw};
use embassy_time::{Duration, Timer};
pub use limiter_core::AcquireError;
use limiter_core::{
    AimdFixedCompact, AtLimit, Classify, Clock, Controller, Gate, GateState, Instant, QueueFull,
    ScopedPermit, Snapshot,
};

/// The core's [`RawMutex`](limiter_core::RawMutex) on an embassy-sync raw mutex `R`.
pub struct EmbassyRawMutex<R>(PhantomData<R>);

impl<R> core::fmt::Debug for EmbassyRawMutex<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("EmbassyRawMutex")
    }
}

impl<R: EmbassyRaw> limiter_core::RawMutex for EmbassyRawMutex<R> {
    type Mutex<T> = BlockingMutex<R, RefCell<T>>;
    type Word = BlockingMutex<R, Cell<u64>>;

    fn new<T>(value: T) -> Self::Mutex<T> {
        BlockingMutex::new(RefCell::new(value))
    }

    fn lock<T, Ret>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> Ret) -> Ret {
        mutex.lock(|cell| f(&mut cell.borrow_mut()))
    }

    fn new_word(value: u64) -> Self::Word {
        BlockingMutex::new(Cell::new(value))
    }

    fn load(word: &Self::Word) -> u64 {
        word.lock(Cell::get)
    }

    fn raise(word: &Self::Word, value: u64) {
        word.lock(|cell| cell.set(cell.get().max(value)));
    }

    fn clear(word: &Self::Word, expected: u64) {
        word.lock(|cell| {
            if cell.get() == expected {
                cell.set(0);
            }
        });
    }
}

/// `embassy_time::Instant`, in microseconds since boot.
#[derive(Clone, Copy, Debug, Default)]
pub struct EmbassyClock;

impl Clock for EmbassyClock {
    // One copy for the several places the gate reads the clock: on a microcontroller the
    // driver call and the tick conversion are worth sharing.
    #[inline(never)]
    fn now(&self) -> Instant {
        Instant::from_micros(embassy_time::Instant::now().as_micros())
    }
}

/// The most microseconds converted to embassy-time ticks: the conversion multiplies by the tick
/// rate, so larger values (a `Duration::MAX` hold) would overflow.
const MAX_MICROS: u64 = u64::MAX / embassy_time::TICK_HZ;

/// The core gate a [`Limiter`] wraps.
pub type EmbassyGate<C, R, const Q: usize> = Gate<EmbassyRawMutex<R>, C, EmbassyClock, Q>;

/// A permit of a [`Limiter`]: see [`limiter_core::Permit`].
pub type Permit<'a, C = AimdFixedCompact, R = CriticalSectionRawMutex, const Q: usize = 8> =
    limiter_core::Permit<&'a EmbassyGate<C, R, Q>>;

/// A provider's published rate limit ([`Gcra`](limiter_core::Gcra)) on embassy-time, behind the
/// raw mutex `R`; keep it in a `static`. Compose it with a [`Limiter`] through
/// [`Limiter::acquire_with_quota`].
pub struct Quota<R: EmbassyRaw = CriticalSectionRawMutex> {
    gcra: BlockingMutex<R, Cell<limiter_core::Gcra>>,
}

/// The quota's current state (its next allowed instant and burst).
impl<R: EmbassyRaw> core::fmt::Debug for Quota<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let gcra = self.gcra.lock(Cell::get);
        f.debug_struct("Quota").field("gcra", &gcra).finish()
    }
}

impl<R: EmbassyRaw> Quota<R> {
    /// Shares `gcra`.
    pub const fn new(gcra: limiter_core::Gcra) -> Self {
        Quota {
            gcra: BlockingMutex::new(Cell::new(gcra)),
        }
    }

    /// Takes one call if the quota allows it now; otherwise the instant at which it would.
    pub fn try_take(&self) -> Result<(), embassy_time::Instant> {
        let now = EmbassyClock.now();
        self.gcra
            .lock(|cell| {
                let mut gcra = cell.get();
                let taken = gcra.check(now);
                cell.set(gcra);
                taken
            })
            // Rounded up to a tick: rounded down, the timer could fire just before the quota
            // allows the call, and `ready` would poll again and again until the next tick.
            .map_err(|at| {
                let micros = at.as_micros().min(MAX_MICROS);
                embassy_time::Instant::from_ticks(Duration::from_micros(micros).as_ticks())
            })
    }

    /// Waits until the quota allows one call (`Timer::at`), and takes it.
    pub async fn ready(&self) {
        while let Err(at) = self.try_take() {
            Timer::at(at).await;
        }
    }
}

/// An adaptive concurrency limiter for embassy firmware.
///
/// `C` is the controller ([`AimdFixedCompact`] by default: no floating point, and AIMD without
/// the growth probe, which costs about 1,500 bytes of flash on a Cortex-M0; name
/// [`AimdFixed`](limiter_core::AimdFixed) to have it), `R` the embassy-sync raw
/// mutex, `Q` the waiting-queue capacity. Share it by `&'static` reference.
pub struct Limiter<
    C = AimdFixedCompact,
    R: EmbassyRaw = CriticalSectionRawMutex,
    const Q: usize = 8,
> {
    gate: EmbassyGate<C, R, Q>,
    /// No admission before this instant, in embassy-time ticks (a `Retry-After`); 0 when none
    /// is in force. Ticks, not microseconds: no 64-bit division on the way.
    not_before: BlockingMutex<R, Cell<u64>>,
}

/// The gate's snapshot (it reads the clock) and the Retry-After hold, in ticks (0: none).
impl<C: Controller, R: EmbassyRaw, const Q: usize> core::fmt::Debug for Limiter<C, R, Q> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Limiter")
            .field("snapshot", &self.gate.snapshot())
            .field("not_before_ticks", &self.not_before.lock(Cell::get))
            .finish()
    }
}

impl<C: Controller, R: EmbassyRaw, const Q: usize> Limiter<C, R, Q> {
    /// A limiter whose limit `controller` decides; `const`, for a `static`.
    pub const fn new(controller: C) -> Self {
        Limiter {
            gate: Gate::from_state(
                BlockingMutex::new(RefCell::new(GateState::new(controller))),
                BlockingMutex::new(Cell::new(0)),
                EmbassyClock,
            ),
            not_before: BlockingMutex::new(Cell::new(0)),
        }
    }

    /// The core gate.
    pub fn gate(&self) -> &EmbassyGate<C, R, Q> {
        &self.gate
    }

    /// The instant before which a `Retry-After` holds admissions back, if it is in the future.
    /// The clock is read only while a hold is set (`not_before` is not 0).
    /// A hold found expired is cleared, so the clock reads stop with it.
    fn held_until(&self) -> Option<embassy_time::Instant> {
        let until = self.not_before.lock(|held| {
            let until = held.get();
            if until != 0 && until <= embassy_time::Instant::now().as_ticks() {
                held.set(0);
                return 0;
            }
            until
        });
        (until != 0).then(|| embassy_time::Instant::from_ticks(until))
    }

    /// Admits a request if in-flight is below the limit, nobody waits and no `Retry-After` is in
    /// force; otherwise sheds it at once.
    pub fn try_acquire(&self) -> Result<Permit<'_, C, R, Q>, AtLimit> {
        if self.held_until().is_some() {
            return Err(AtLimit);
        }
        self.gate.try_acquire()
    }

    /// Waits out any `Retry-After`, then waits in FIFO order for admission; [`QueueFull`] at once
    /// if `Q` requests already wait. Cancel safe.
    pub async fn acquire(&self) -> Result<Permit<'_, C, R, Q>, QueueFull> {
        while let Some(until) = self.held_until() {
            Timer::at(until).await;
        }
        self.gate.acquire().await
    }

    /// [`Limiter::acquire`], giving up after `timeout` (`Duration::MAX`: never).
    pub async fn acquire_with_timeout(
        &self,
        timeout: Duration,
    ) -> Result<Permit<'_, C, R, Q>, AcquireError> {
        // A timeout too long to end at an instant (`Duration::MAX`) is no deadline at all;
        // `with_timeout` would overflow adding it to now.
        let Some(deadline) = embassy_time::Instant::now().checked_add(timeout) else {
            return Ok(self.acquire().await?);
        };
        match embassy_time::with_deadline(deadline, self.acquire()).await {
            Ok(admitted) => Ok(admitted?),
            Err(_) => Err(AcquireError::Timeout),
        }
    }

    /// Waits for admission, runs `call` holding the permit, and records what `classify` makes
    /// of its output. A `Retry-After` in the verdict holds growth and holds admissions back until
    /// it has passed. A call that is dropped (a timeout around `run`) releases its permit as
    /// cancelled.
    pub async fn run<F, K>(&self, call: F, classify: K) -> Result<F::Output, QueueFull>
    where
        F: Future,
        K: Classify<F::Output>,
    {
        let permit = self.acquire().await?;
        let output = call.await;
        let verdict = classify.classify(&output);
        if let Some(delay) = verdict.retry_after {
            self.hold_admissions_for(delay); // holds growth too
        }
        permit.record(verdict.outcome);
        Ok(output)
    }

    /// Waits for admission, then for `quota`: the call starts no earlier than the later of the
    /// two, calls leave at the quota's spacing, and the latency measurement starts once both
    /// have passed.
    pub async fn acquire_with_quota<QR: EmbassyRaw>(
        &self,
        quota: &Quota<QR>,
    ) -> Result<Permit<'_, C, R, Q>, QueueFull> {
        let mut permit = self.acquire().await?;
        quota.ready().await;
        permit.start_now();
        Ok(permit)
    }

    /// Hierarchical admission: waits for a permit of this limiter (the key's), then for one of
    /// `global` (the ceiling over all keys). A request waiting on a congested key holds no global
    /// permit; the order is fixed, so it cannot deadlock; the outcome feeds this limiter only.
    /// A `Retry-After` in force on this limiter is waited out first.
    pub async fn acquire_within<'a, G: Controller, const QG: usize>(
        &'a self,
        global: &'a Limiter<G, R, QG>,
    ) -> Result<ScopedPermit<&'a EmbassyGate<C, R, Q>, &'a EmbassyGate<G, R, QG>>, QueueFull> {
        while let Some(until) = self.held_until() {
            Timer::at(until).await;
        }
        limiter_core::acquire_scoped(&self.gate, &global.gate).await
    }

    /// Holds new admissions back (and the limit's growth) for `delay`: the dependency's
    /// `Retry-After`. A later, shorter hold never shortens one in force.
    pub fn hold_admissions_for(&self, delay: core::time::Duration) {
        // Saturated before the conversion to ticks, which multiplies by the tick rate.
        let micros = limiter_core::clock::duration_to_micros(delay).min(MAX_MICROS);
        let until = embassy_time::Instant::now().saturating_add(Duration::from_micros(micros));
        self.not_before
            .lock(|held| held.set(held.get().max(until.as_ticks())));
        self.gate.hold_growth_for(delay);
    }

    /// Runs `f` on the controller, then admits whoever a raised limit makes room for.
    pub fn with_controller<Ret>(&self, f: impl FnOnce(&mut C) -> Ret) -> Ret {
        self.gate.with_controller(f)
    }

    /// The current limit.
    pub fn limit(&self) -> u32 {
        self.gate.limit()
    }

    /// Requests in flight.
    pub fn in_flight(&self) -> u32 {
        self.gate.in_flight()
    }

    /// Limit, in-flight, queue, counters and baseline in one read (`defmt::Format` with the
    /// `defmt` feature).
    pub fn snapshot(&self) -> Snapshot {
        self.gate.snapshot()
    }
}
