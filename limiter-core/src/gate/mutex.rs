//! The mutual exclusion the [`Gate`](crate::Gate) is generic over: see [`RawMutex`].

use core::cell::{Cell, RefCell};

/// The mutual exclusion the [`Gate`](crate::Gate) is generic over.
///
/// A [`RawMutex`] names a family of mutexes: `M::Mutex<T>` guards a `T`, and
/// [`RawMutex::lock`] runs a closure with exclusive access. The gate is written once against
/// this trait, and each platform picks the implementation that fits it:
///
/// | implementation | feature | for | [`LOCK_FREE`](RawMutex::LOCK_FREE) |
/// |---|---|---|---|
/// | [`NoopRawMutex`] | – | one thread (an embassy executor, a single-threaded runtime); not `Sync` | no |
/// | [`CriticalSectionRawMutex`] | `critical-section` | microcontrollers, including those without CAS | no |
/// | [`StdRawMutex`] | `std` | servers: one `std::sync::Mutex` per gate, and atomics | yes |
/// | `LoomRawMutex` | `--cfg loom` | model checking the real gate with loom | yes |
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

    /// A `u64` read and written without the mutex: an atomic where there is one, a `Cell` in a
    /// critical section where not. The gate keeps its `Retry-After` admission hold in one, so
    /// that the common case (no hold) costs one load and no lock, and the horizon of its grants
    /// in another, so that a granted waiter claims its place without the lock. A value stored
    /// (release) is seen by a later load (acquire) with everything written before it.
    type Word;

    /// A mutex guarding `value`.
    fn new<T>(value: T) -> Self::Mutex<T>;

    /// Runs `f` with exclusive access to the guarded value.
    fn lock<T, R>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R;

    /// A word holding `value`.
    fn new_word(value: u64) -> Self::Word;

    /// The word's value.
    fn load(word: &Self::Word) -> u64;

    /// Sets the word to `value`.
    fn store(word: &Self::Word, value: u64);

    /// Raises the word to `value` if it is lower.
    fn raise(word: &Self::Word, value: u64);

    /// Sets the word to 0 if it still holds `expected`.
    fn clear(word: &Self::Word, expected: u64);

    /// Whether the gate counts its admissions and releases in words, without its lock, where
    /// they allow it (see [`Gate`](crate::Gate), invariant 6): true where a word is an atomic,
    /// whose read-modify-writes cost less than a lock; false (the default) where a word is a
    /// `Cell` in a critical section, and each access would cost as much as the lock. Only an
    /// implementation whose read-modify-writes below are atomic may set it.
    const LOCK_FREE: bool = false;

    /// Sets the word to `new` if it holds `current`; returns the value it held, as `Ok` if it
    /// was `current`.
    fn compare_exchange(word: &Self::Word, current: u64, new: u64) -> Result<u64, u64>;

    /// Adds `value` to the word, wrapping; returns the value it held.
    fn fetch_add(word: &Self::Word, value: u64) -> u64;

    /// Sets the bits of `value` in the word; returns the value it held.
    fn fetch_or(word: &Self::Word, value: u64) -> u64;

    /// Keeps only the bits of `value` in the word; returns the value it held.
    fn fetch_and(word: &Self::Word, value: u64) -> u64;
}

/// No locking at all, for values used from one thread only. The mutex is a `RefCell`, so it is
/// not `Sync`: the compiler stops it from being shared across threads.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoopRawMutex;

impl RawMutex for NoopRawMutex {
    type Mutex<T> = RefCell<T>;
    type Word = Cell<u64>;

    fn new<T>(value: T) -> RefCell<T> {
        RefCell::new(value)
    }

    fn lock<T, R>(mutex: &RefCell<T>, f: impl FnOnce(&mut T) -> R) -> R {
        f(&mut mutex.borrow_mut())
    }

    fn new_word(value: u64) -> Cell<u64> {
        Cell::new(value)
    }

    fn load(word: &Cell<u64>) -> u64 {
        word.get()
    }

    fn store(word: &Cell<u64>, value: u64) {
        word.set(value);
    }

    fn raise(word: &Cell<u64>, value: u64) {
        word.set(word.get().max(value));
    }

    fn clear(word: &Cell<u64>, expected: u64) {
        if word.get() == expected {
            word.set(0);
        }
    }

    fn compare_exchange(word: &Cell<u64>, current: u64, new: u64) -> Result<u64, u64> {
        cell_compare_exchange(word, current, new)
    }

    fn fetch_add(word: &Cell<u64>, value: u64) -> u64 {
        cell_update(word, |held| held.wrapping_add(value))
    }

    fn fetch_or(word: &Cell<u64>, value: u64) -> u64 {
        cell_update(word, |held| held | value)
    }

    fn fetch_and(word: &Cell<u64>, value: u64) -> u64 {
        cell_update(word, |held| held & value)
    }
}

/// A compare-and-exchange on a `Cell`, for the words that are `Cell`s (alone, or in a critical
/// section).
fn cell_compare_exchange(word: &Cell<u64>, current: u64, new: u64) -> Result<u64, u64> {
    let held = word.get();
    if held == current {
        word.set(new);
        Ok(held)
    } else {
        Err(held)
    }
}

/// Replaces a `Cell`'s value by `f` of it; returns the value it held.
fn cell_update(word: &Cell<u64>, f: impl FnOnce(u64) -> u64) -> u64 {
    let held = word.get();
    word.set(f(held));
    held
}

/// Locks by entering a critical section (interrupts off on a single-core microcontroller, or
/// whatever the platform's `critical-section` implementation does).
#[cfg(feature = "critical-section")]
#[derive(Clone, Copy, Debug, Default)]
pub struct CriticalSectionRawMutex;

#[cfg(feature = "critical-section")]
impl RawMutex for CriticalSectionRawMutex {
    type Mutex<T> = critical_section::Mutex<RefCell<T>>;
    type Word = critical_section::Mutex<Cell<u64>>;

    fn new<T>(value: T) -> Self::Mutex<T> {
        critical_section::Mutex::new(RefCell::new(value))
    }

    fn lock<T, R>(mutex: &Self::Mutex<T>, f: impl FnOnce(&mut T) -> R) -> R {
        critical_section::with(|cs| f(&mut mutex.borrow_ref_mut(cs)))
    }

    fn new_word(value: u64) -> Self::Word {
        critical_section::Mutex::new(Cell::new(value))
    }

    fn load(word: &Self::Word) -> u64 {
        critical_section::with(|cs| word.borrow(cs).get())
    }

    fn store(word: &Self::Word, value: u64) {
        critical_section::with(|cs| word.borrow(cs).set(value));
    }

    fn raise(word: &Self::Word, value: u64) {
        critical_section::with(|cs| {
            let cell = word.borrow(cs);
            cell.set(cell.get().max(value));
        });
    }

    fn clear(word: &Self::Word, expected: u64) {
        critical_section::with(|cs| {
            let cell = word.borrow(cs);
            if cell.get() == expected {
                cell.set(0);
            }
        });
    }

    fn compare_exchange(word: &Self::Word, current: u64, new: u64) -> Result<u64, u64> {
        critical_section::with(|cs| cell_compare_exchange(word.borrow(cs), current, new))
    }

    fn fetch_add(word: &Self::Word, value: u64) -> u64 {
        critical_section::with(|cs| cell_update(word.borrow(cs), |held| held.wrapping_add(value)))
    }

    fn fetch_or(word: &Self::Word, value: u64) -> u64 {
        critical_section::with(|cs| cell_update(word.borrow(cs), |held| held | value))
    }

    fn fetch_and(word: &Self::Word, value: u64) -> u64 {
        critical_section::with(|cs| cell_update(word.borrow(cs), |held| held & value))
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
    type Word = std::sync::atomic::AtomicU64;

    #[inline]
    fn new_word(value: u64) -> Self::Word {
        std::sync::atomic::AtomicU64::new(value)
    }

    // Acquire and release: a hold published before a newcomer arrives is seen by it.
    #[inline]
    fn load(word: &Self::Word) -> u64 {
        word.load(std::sync::atomic::Ordering::Acquire)
    }

    #[inline]
    fn store(word: &Self::Word, value: u64) {
        word.store(value, std::sync::atomic::Ordering::Release);
    }

    #[inline]
    fn raise(word: &Self::Word, value: u64) {
        word.fetch_max(value, std::sync::atomic::Ordering::AcqRel);
    }

    #[inline]
    fn clear(word: &Self::Word, expected: u64) {
        let (ordering, on_failure) = (
            std::sync::atomic::Ordering::AcqRel,
            std::sync::atomic::Ordering::Acquire,
        );
        let _ = word.compare_exchange(expected, 0, ordering, on_failure);
    }

    const LOCK_FREE: bool = true;

    #[inline]
    fn compare_exchange(word: &Self::Word, current: u64, new: u64) -> Result<u64, u64> {
        let (ordering, on_failure) = (
            std::sync::atomic::Ordering::AcqRel,
            std::sync::atomic::Ordering::Acquire,
        );
        word.compare_exchange(current, new, ordering, on_failure)
    }

    #[inline]
    fn fetch_add(word: &Self::Word, value: u64) -> u64 {
        word.fetch_add(value, std::sync::atomic::Ordering::AcqRel)
    }

    #[inline]
    fn fetch_or(word: &Self::Word, value: u64) -> u64 {
        word.fetch_or(value, std::sync::atomic::Ordering::AcqRel)
    }

    #[inline]
    fn fetch_and(word: &Self::Word, value: u64) -> u64 {
        word.fetch_and(value, std::sync::atomic::Ordering::AcqRel)
    }

    fn new<T>(value: T) -> Self::Mutex<T> {
        std::sync::Mutex::new(value)
    }

    #[inline]
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
    type Word = loom::sync::atomic::AtomicU64;

    fn new_word(value: u64) -> Self::Word {
        loom::sync::atomic::AtomicU64::new(value)
    }

    fn load(word: &Self::Word) -> u64 {
        word.load(loom::sync::atomic::Ordering::Acquire)
    }

    fn store(word: &Self::Word, value: u64) {
        word.store(value, loom::sync::atomic::Ordering::Release);
    }

    fn raise(word: &Self::Word, value: u64) {
        word.fetch_max(value, loom::sync::atomic::Ordering::AcqRel);
    }

    fn clear(word: &Self::Word, expected: u64) {
        let (ordering, on_failure) = (
            loom::sync::atomic::Ordering::AcqRel,
            loom::sync::atomic::Ordering::Acquire,
        );
        let _ = word.compare_exchange(expected, 0, ordering, on_failure);
    }

    const LOCK_FREE: bool = true;

    fn compare_exchange(word: &Self::Word, current: u64, new: u64) -> Result<u64, u64> {
        let (ordering, on_failure) = (
            loom::sync::atomic::Ordering::AcqRel,
            loom::sync::atomic::Ordering::Acquire,
        );
        word.compare_exchange(current, new, ordering, on_failure)
    }

    fn fetch_add(word: &Self::Word, value: u64) -> u64 {
        word.fetch_add(value, loom::sync::atomic::Ordering::AcqRel)
    }

    fn fetch_or(word: &Self::Word, value: u64) -> u64 {
        word.fetch_or(value, loom::sync::atomic::Ordering::AcqRel)
    }

    fn fetch_and(word: &Self::Word, value: u64) -> u64 {
        word.fetch_and(value, loom::sync::atomic::Ordering::AcqRel)
    }

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
