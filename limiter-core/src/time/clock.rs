//! Time, injected: an [`Instant`] in microseconds and the [`Clock`] trait the edges implement.
//!
//! The core never reads a clock of its own. Every time-dependent operation either takes `now`
//! explicitly or goes through a [`Clock`] supplied by the caller (an adapter crate, a test, the
//! simulator). Arithmetic on instants saturates: a clock that goes backwards yields zero elapsed
//! time, never a panic and never a wrapped, enormous duration.

use core::cell::Cell;
use core::time::Duration;

/// A point in time: a count of microseconds since an arbitrary, clock-specific epoch.
///
/// One tick is one microsecond. A `u64` of microseconds spans more than 580,000 years, so it never
/// wraps in practice; every operation saturates anyway.
///
/// # Examples
///
/// ```
/// use core::time::Duration;
/// use limiter_core::Instant;
///
/// let start = Instant::from_micros(1_000);
/// let later = start.saturating_add(Duration::from_millis(5));
/// assert_eq!(later.as_micros(), 6_000);
/// assert_eq!(later.saturating_duration_since(start), Duration::from_millis(5));
/// // A clock that went backwards: zero elapsed, not a panic.
/// assert_eq!(start.saturating_duration_since(later), Duration::ZERO);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Instant(u64);

impl Instant {
    /// The epoch of the clock (tick zero).
    pub const ZERO: Instant = Instant(0);
    /// The largest representable instant.
    pub const MAX: Instant = Instant(u64::MAX);

    /// An instant `micros` microseconds after the clock's epoch.
    pub const fn from_micros(micros: u64) -> Self {
        Instant(micros)
    }

    /// An instant `millis` milliseconds after the clock's epoch (saturating).
    pub const fn from_millis(millis: u64) -> Self {
        Instant(millis.saturating_mul(1_000))
    }

    /// Microseconds since the clock's epoch.
    pub const fn as_micros(self) -> u64 {
        self.0
    }

    /// Microseconds from `earlier` to `self`, or zero if `earlier` is later (a clock that went
    /// backwards).
    ///
    /// ```
    /// # use limiter_core::Instant;
    /// assert_eq!(Instant::from_micros(10).micros_since(Instant::from_micros(3)), 7);
    /// assert_eq!(Instant::from_micros(3).micros_since(Instant::from_micros(10)), 0);
    /// ```
    pub const fn micros_since(self, earlier: Instant) -> u64 {
        self.0.saturating_sub(earlier.0)
    }

    /// The time from `earlier` to `self`, or [`Duration::ZERO`] if `earlier` is later.
    pub const fn saturating_duration_since(self, earlier: Instant) -> Duration {
        Duration::from_micros(self.micros_since(earlier))
    }

    /// `self + duration`, saturating at [`Instant::MAX`].
    ///
    /// ```
    /// # use core::time::Duration;
    /// # use limiter_core::Instant;
    /// assert_eq!(Instant::MAX.saturating_add(Duration::from_secs(1)), Instant::MAX);
    /// ```
    pub const fn saturating_add(self, duration: Duration) -> Self {
        Instant(self.0.saturating_add(duration_to_micros(duration)))
    }

    /// `self + micros` microseconds, saturating at [`Instant::MAX`].
    pub const fn saturating_add_micros(self, micros: u64) -> Self {
        Instant(self.0.saturating_add(micros))
    }
}

/// Whole microseconds in `duration`, saturating at `u64::MAX`.
///
/// ```
/// # use core::time::Duration;
/// use limiter_core::duration_to_micros;
/// assert_eq!(duration_to_micros(Duration::from_millis(3)), 3_000);
/// assert_eq!(duration_to_micros(Duration::MAX), u64::MAX);
/// ```
pub const fn duration_to_micros(duration: Duration) -> u64 {
    let secs = duration.as_secs();
    let sub = duration.subsec_micros() as u64;
    match secs.checked_mul(1_000_000) {
        Some(whole) => whole.saturating_add(sub),
        None => u64::MAX,
    }
}

/// The ticks of a `hz` timer at `micros` microseconds, rounded up: `⌈micros × hz / 10⁶⌉`,
/// saturating. Rounded up, a timer set to it never fires before the instant it stands for (and
/// a waiter woken early would poll again and again until the next tick). For a runtime whose
/// timer counts ticks: the division does not link the general 64-bit division routine, about
/// 900 bytes of flash on a Cortex-M0.
///
/// ```
/// use limiter_core::micros_to_ticks_ceil;
/// assert_eq!(micros_to_ticks_ceil(1_000, 1_000), 1);
/// assert_eq!(micros_to_ticks_ceil(1_001, 1_000), 2);
/// assert_eq!(micros_to_ticks_ceil(0, 32_768), 0);
/// assert_eq!(micros_to_ticks_ceil(1_000_000, 32_768), 32_768);
/// assert_eq!(micros_to_ticks_ceil(u64::MAX, 1_000_000), u64::MAX);
/// ```
pub const fn micros_to_ticks_ceil(micros: u64, hz: u64) -> u64 {
    // A rate that divides a million (1 kHz, 1 MHz, …) is whole microseconds per tick: one
    // division, and no product that could overflow. With a constant rate, only one branch is
    // compiled.
    if hz != 0 && 1_000_000 % hz == 0 {
        return div_ceil(micros, 1_000_000 / hz);
    }
    div_ceil(micros.saturating_mul(hz), 1_000_000)
}

/// `⌈n / d⌉` for `d > 0`, without a multiplication.
const fn div_ceil(n: u64, d: u64) -> u64 {
    crate::num::divide::div_u64(n.saturating_add(d - 1), d)
}

/// A source of [`Instant`]s, implemented at the edges (runtime adapters, tests, simulators).
///
/// # Contract
///
/// `now` returns the current time as a count of microseconds since an epoch of the clock's
/// choosing. It must be cheap, must never fail and must never panic. It should be monotonic:
/// consecutive calls return non-decreasing instants. The core tolerates clocks that break this
/// (time that stands still or steps backwards is treated as zero elapsed time), but measurements
/// made across a backwards step are lost.
///
/// # Examples
///
/// ```
/// use limiter_core::{Clock, Instant};
///
/// /// A clock driven by a hardware tick counter at 32,768 Hz.
/// struct Rtc<'a>(&'a dyn Fn() -> u64);
///
/// impl Clock for Rtc<'_> {
///     fn now(&self) -> Instant {
///         let ticks = (self.0)();
///         Instant::from_micros(ticks.saturating_mul(1_000_000) / 32_768)
///     }
/// }
///
/// let rtc = Rtc(&|| 32_768);
/// assert_eq!(rtc.now(), Instant::from_micros(1_000_000));
/// ```
pub trait Clock {
    /// The current time.
    fn now(&self) -> Instant;
}

impl<C: Clock + ?Sized> Clock for &C {
    fn now(&self) -> Instant {
        (**self).now()
    }
}

/// A clock that moves only when told to: for tests, simulation and fuzzing.
///
/// It is a [`Cell`], so it is not `Sync`; share it by reference within one thread.
///
/// # Examples
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Clock, Instant, ManualClock};
///
/// let clock = ManualClock::new();
/// clock.advance(Duration::from_millis(20));
/// assert_eq!(clock.now(), Instant::from_millis(20));
/// clock.set(Instant::from_millis(5)); // backwards is allowed: it is a test tool
/// assert_eq!(clock.now(), Instant::from_millis(5));
/// ```
#[derive(Debug, Default)]
pub struct ManualClock {
    now: Cell<Instant>,
}

impl ManualClock {
    /// A clock standing at [`Instant::ZERO`].
    pub const fn new() -> Self {
        ManualClock {
            now: Cell::new(Instant::ZERO),
        }
    }

    /// A clock standing at `now`.
    pub const fn starting_at(now: Instant) -> Self {
        ManualClock {
            now: Cell::new(now),
        }
    }

    /// Moves the clock forward by `by` (saturating).
    pub fn advance(&self, by: Duration) {
        self.now.set(self.now.get().saturating_add(by));
    }

    /// Sets the clock to `now`, forwards or backwards.
    pub fn set(&self, now: Instant) {
        self.now.set(now);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> Instant {
        self.now.get()
    }
}

/// How far ahead of a clock's epoch an instant is turned into a runtime's deadline at most: about
/// a century, far beyond any deadline that matters and well inside every platform's instant.
pub const FAR_FUTURE: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);

/// `std::time::Instant`, counted in microseconds from the clock's creation (feature `std`).
///
/// ```
/// use limiter_core::{Clock, StdClock};
///
/// let clock = StdClock::new();
/// let a = clock.now();
/// std::thread::sleep(std::time::Duration::from_millis(2));
/// assert!(clock.now().micros_since(a) >= 2_000);
/// ```
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug)]
pub struct StdClock {
    origin: std::time::Instant,
}

#[cfg(feature = "std")]
impl StdClock {
    /// A clock whose epoch is now.
    pub fn new() -> Self {
        StdClock {
            origin: std::time::Instant::now(),
        }
    }

    /// The `std` instant of a core [`Instant`] of this clock, at most [`FAR_FUTURE`] ahead of
    /// the clock's epoch (a deadline computed from a huge delay must not overflow `std`'s
    /// instant).
    ///
    /// ```
    /// # use limiter_core::{Instant, StdClock};
    /// let clock = StdClock::new();
    /// assert!(clock.to_std(Instant::MAX) > std::time::Instant::now()); // no overflow, no panic
    /// ```
    pub fn to_std(&self, at: Instant) -> std::time::Instant {
        let offset = Duration::from_micros(at.as_micros()).min(FAR_FUTURE);
        self.origin.checked_add(offset).unwrap_or(self.origin)
    }
}

#[cfg(feature = "std")]
impl Default for StdClock {
    fn default() -> Self {
        StdClock::new()
    }
}

#[cfg(feature = "std")]
impl Clock for StdClock {
    fn now(&self) -> Instant {
        Instant::from_micros(duration_to_micros(self.origin.elapsed()))
    }
}
