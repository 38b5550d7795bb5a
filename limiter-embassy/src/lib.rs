//! The embassy adapter of [`limiter_core`]: an allocation-free adaptive concurrency limiter for
//! firmware.
//!
//! [`Limiter`] is the core's [`Limiter`](limiter_core::Limiter) (one type, the same methods and
//! behaviour on tokio, smol and embassy) with its gate kept in place, on [`EmbassyClock`]
//! (embassy-time's clock and timers, its [`Runtime`]):
//!
//! - Latency is measured on `embassy_time::Instant`.
//! - Locking uses an embassy-sync raw mutex: [`CriticalSectionRawMutex`] by default (tasks and
//!   interrupts, any core), [`NoopRawMutex`](embassy_sync::blocking_mutex::raw::NoopRawMutex) or
//!   `ThreadModeRawMutex` (Cortex-M targets only) when every user runs in one executor.
//! - Waiting is the core gate's FIFO queue of `Q` entries;
//!   [`acquire_timeout`](limiter_core::Limiter::acquire_timeout) bounds it on an embassy timer.
//! - A `Retry-After` from the dependency ([`Verdict::retry_after`](limiter_core::Verdict)) seen
//!   by [`run`](limiter_core::Limiter::run), or given to
//!   [`hold_admissions_for`](limiter_core::Limiter::hold_admissions_for), holds the limit's growth
//!   *and* holds new admissions back until it has passed. Recorded on a permit directly
//!   (`Permit::record_verdict`), it holds growth only.
//!
//! The library selects no time driver and no tick rate; the firmware does. A limiter is built in
//! `const` code by [`new`], so it is a plain `static`, checked at compile time and set up before
//! `main` with no code at all (a configuration the controller refuses stops the build):
//!
//! ```
//! use limiter_core::{AimdConfig, AimdFixedCompact};
//! use limiter_embassy::Limiter;
//!
//! static LIMITER: Limiter =
//!     limiter_embassy::new(AimdFixedCompact::new_const(AimdConfig::DEFAULT.bounds(1, 16)));
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
use core::marker::PhantomData;

use embassy_sync::blocking_mutex::Mutex as BlockingMutex;
use embassy_sync::blocking_mutex::raw::{CriticalSectionRawMutex, RawMutex as EmbassyRaw};
use embassy_time::Timer;
pub use limiter_core::AcquireError;
use limiter_core::{
    AimdFixedCompact, Clock, Gate, GateState, InPlace, InlineQueue, Instant, NoopRawMutex, Runtime,
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
        mutex.lock(|cell| f(&mut borrow(cell)))
    }

    fn new_word(value: u64) -> Self::Word {
        BlockingMutex::new(Cell::new(value))
    }

    fn load(word: &Self::Word) -> u64 {
        word.lock(Cell::get)
    }

    fn store(word: &Self::Word, value: u64) {
        word.lock(|cell| cell.set(value));
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

    // The gate uses the read-modify-writes below only with `LOCK_FREE`, which stays false
    // here: each would cost a lock of its own. Under the lock a word is a `Cell`, as the
    // core's `NoopRawMutex`'s is, and its operations are those.

    fn compare_exchange(word: &Self::Word, current: u64, new: u64) -> Result<u64, u64> {
        word.lock(|cell| NoopRawMutex::compare_exchange(cell, current, new))
    }

    fn fetch_add(word: &Self::Word, value: u64) -> u64 {
        word.lock(|cell| NoopRawMutex::fetch_add(cell, value))
    }

    fn fetch_or(word: &Self::Word, value: u64) -> u64 {
        word.lock(|cell| NoopRawMutex::fetch_or(cell, value))
    }

    fn fetch_and(word: &Self::Word, value: u64) -> u64 {
        word.lock(|cell| NoopRawMutex::fetch_and(cell, value))
    }
}

/// The `RefCell` borrow of [`EmbassyRawMutex::lock`], out of line: one copy of its re-borrow
/// check and panic path for all the gate's lock sites (64 to 100 bytes less on a Cortex-M0
/// firmware, with what else is inlined).
#[inline(never)]
fn borrow<T>(cell: &RefCell<T>) -> core::cell::RefMut<'_, T> {
    cell.borrow_mut()
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

/// The embassy-time instant of a core [`Instant`], rounded up to a tick: rounded down, a timer
/// could fire just before the instant it waits for, and its waiter would poll again and again
/// until the next tick.
fn ticks_at(at: Instant) -> embassy_time::Instant {
    // Saturating: a deadline past the last tick waits as long as the timer can.
    let ticks = limiter_core::micros_to_ticks_ceil(at.as_micros(), embassy_time::TICK_HZ);
    embassy_time::Instant::from_ticks(ticks)
}

/// embassy-time's timer (`Timer::at`): what the core [`Limiter`](limiter_core::Limiter) waits on
/// for timeouts, `Retry-After` holds and reports.
impl Runtime for EmbassyClock {
    type Sleep = Timer;

    fn sleep_until(&self, deadline: Instant) -> Timer {
        Timer::at(ticks_at(deadline))
    }
}

/// The core gate a [`Limiter`] wraps.
pub type EmbassyGate<C, R, const Q: usize> =
    Gate<EmbassyRawMutex<R>, C, EmbassyClock, InlineQueue<Q>>;

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
            .map_err(ticks_at)
    }

    /// Waits until the quota allows one call (`Timer::at`), and takes it.
    pub async fn ready(&self) {
        while let Err(at) = self.try_take() {
            Timer::at(at).await;
        }
    }
}

/// The quota's turn, for [`acquire_with_quota`](limiter_core::Limiter::acquire_with_quota).
impl<R: EmbassyRaw> limiter_core::Pace for Quota<R> {
    fn ready(&self) -> impl core::future::Future<Output = ()> {
        Quota::ready(self)
    }
}

/// An adaptive concurrency limiter for embassy firmware: the core's
/// [`Limiter`](limiter_core::Limiter) with its gate in place, built by [`new`] in a `static`.
///
/// `C` is the controller ([`AimdFixedCompact`] by default: no floating point, and AIMD with the
/// knee and the dwell below it but without the growth probe's doubling, drains and cut tally,
/// which cost about 1,500 bytes of flash on a Cortex-M0, and without judging how late a refusal
/// came, so a client timeout sets a knee that is tried again within rounds; name
/// [`AimdFixed`](limiter_core::AimdFixed) to have them, as a dependency that can stop answering
/// calls past its capacity, with no rise in latency before, calls for), `R` the embassy-sync raw
/// mutex, `Q` the waiting-queue capacity. Share it by `&'static` reference.
pub type Limiter<C = AimdFixedCompact, R = CriticalSectionRawMutex, const Q: usize = 8> =
    limiter_core::Limiter<InPlace<EmbassyGate<C, R, Q>>>;

/// A limiter whose limit `controller` decides; `const`, for a `static`.
///
/// ```
/// use limiter_core::Fixed;
/// use limiter_embassy::Limiter;
/// use embassy_sync::blocking_mutex::raw::NoopRawMutex;
///
/// const FIXED: Fixed = match Fixed::new(2) {
///     Ok(fixed) => fixed,
///     Err(e) => panic!("{}", e.message()),
/// };
/// static SMALL: Limiter<Fixed, embassy_sync::blocking_mutex::raw::CriticalSectionRawMutex, 4> =
///     limiter_embassy::new(FIXED);
/// assert_eq!(SMALL.limit(), 2);
/// # let _: Option<Limiter<Fixed, NoopRawMutex, 4>> = None;
/// ```
pub const fn new<C, R: EmbassyRaw, const Q: usize>(controller: C) -> Limiter<C, R, Q> {
    limiter_core::Limiter::from_gate(InPlace(Gate::from_state(
        BlockingMutex::new(RefCell::new(GateState::new(controller))),
        [const { BlockingMutex::new(Cell::new(0)) }; limiter_core::GATE_WORDS],
        EmbassyClock,
    )))
}
