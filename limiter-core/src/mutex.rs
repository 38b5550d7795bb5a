//! The mutual exclusion the [`Gate`](crate::Gate) is generic over: see [`RawMutex`].

use core::cell::RefCell;

/// The mutual exclusion the [`Gate`](crate::Gate) is generic over.
///
/// A [`RawMutex`] names a family of mutexes: `M::Mutex<T>` guards a `T`, and
/// [`RawMutex::lock`] runs a closure with exclusive access. The gate is written once against
/// this trait, and each platform picks the implementation that fits it:
///
/// | implementation | feature | for |
/// |---|---|---|
/// | [`NoopRawMutex`] | – | one thread (an embassy executor, a single-threaded runtime); not `Sync` |
/// | [`CriticalSectionRawMutex`] | `critical-section` | microcontrollers, including those without CAS |
/// | [`StdRawMutex`] | `std` | servers: one `std::sync::Mutex` per gate |
/// | `LoomRawMutex` | `--cfg loom` | model checking the real gate with loom |
///
/// Unlike embassy-sync's `RawMutex`, the family owns the guarded value, so no `unsafe` is needed
/// anywhere in the core: each implementation is a thin wrapper over a safe mutex.
///
/// The gate runs only its own code and the controller under the lock, and never wakes a waker
/// while it holds it, so implementations need not be re-entrant.
///
/// # Examples
///
/// ```
/// use limiter_core::{NoopRawMutex, RawMutex};
///
/// let counter = NoopRawMutex::new(0u32);
/// NoopRawMutex::lock(&counter, |n| *n += 1);
/// assert_eq!(NoopRawMutex::lock(&counter, |n| *n), 1);
/// ```
pub trait RawMutex {
    /// A mutex guarding a `T`.
    type Mutex<T>;

    /// A mutex guarding `value`.
    fn new<T>(value: T) -> Self::Mutex<T>;

    /// Runs `f` with exclusive access to the guarded value.
    fn lock<T, R>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R;
}

/// No locking at all, for values used from one thread only. The mutex is a `RefCell`, so it is
/// not `Sync`: the compiler stops it from being shared across threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopRawMutex;

impl RawMutex for NoopRawMutex {
    type Mutex<T> = RefCell<T>;

    fn new<T>(value: T) -> RefCell<T> {
        RefCell::new(value)
    }

    fn lock<T, R>(mutex: &RefCell<T>, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut mutex.borrow_mut())
    }
}

/// Locks by entering a critical section (interrupts off on a single-core microcontroller, or
/// whatever the platform's `critical-section` implementation does).
#[cfg(feature = "critical-section")]
#[derive(Clone, Copy, Debug, Default)]
pub struct CriticalSectionRawMutex;

#[cfg(feature = "critical-section")]
impl RawMutex for CriticalSectionRawMutex {
    type Mutex<T> = critical_section::Mutex<RefCell<T>>;

    fn new<T>(value: T) -> Self::Mutex<T> {
        critical_section::Mutex::new(RefCell::new(value))
    }

    fn lock<T, R>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R {
        critical_section::with(|cs| f(&mut mutex.borrow_ref_mut(cs)))
    }
}

/// Locks a `std::sync::Mutex`. A poisoned mutex is used as is: the gate's state is updated in
/// steps that keep it consistent, and no code that can panic runs under the lock.
#[cfg(feature = "std")]
#[derive(Clone, Copy, Debug, Default)]
pub struct StdRawMutex;

#[cfg(feature = "std")]
impl RawMutex for StdRawMutex {
    type Mutex<T> = std::sync::Mutex<T>;

    fn new<T>(value: T) -> Self::Mutex<T> {
        std::sync::Mutex::new(value)
    }

    fn lock<T, R>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R {
        let mut guard = mutex
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }
}

/// Locks a `loom::sync::Mutex`, so that loom explores every interleaving of the real gate.
#[cfg(loom)]
#[derive(Clone, Copy, Debug, Default)]
pub struct LoomRawMutex;

#[cfg(loom)]
impl RawMutex for LoomRawMutex {
    type Mutex<T> = loom::sync::Mutex<T>;

    fn new<T>(value: T) -> Self::Mutex<T> {
        loom::sync::Mutex::new(value)
    }

    fn lock<T, R>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R {
        let mut guard = mutex
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }
}
