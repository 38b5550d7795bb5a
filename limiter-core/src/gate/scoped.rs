//! Hierarchical admission: a request takes a permit from its key's gate (one provider account,
//! one endpoint class), then one from a global gate (our own resources).
//!
//! # Invariants
//!
//! 1. **Fixed order, no deadlock.** Every scoped acquisition takes the key permit first and the
//!    global one second, and nothing ever waits for a key while holding a global permit. A
//!    request waiting on a key holds nothing; a request waiting on the global gate holds only its
//!    key permit; every global permit belongs to a request that is running. So every wait is on
//!    a permit held by someone who is not waiting on the waiter: no cycle can form.
//! 2. **No global capacity spent on a congested key.** A request waiting for its key holds no
//!    global permit, so one throttled key cannot starve the others of the shared ceiling.
//! 3. **Released together.** Dropping the [`ScopedPermit`], or the acquisition at any point,
//!    releases every permit taken so far (as cancelled), on every path.
//! 4. **Only the key learns, and only about the dependency.** The outcome feeds the key's
//!    controller; the global gate is told [`Outcome::Ignore`], so one tenant's throttling never
//!    shrinks the ceiling everyone shares. The key's latency is measured from when both permits
//!    are held, so time spent waiting for the ceiling never reads as a slow dependency.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::gate::error::{AtLimit, QueueFull};
use crate::gate::future::Acquire;
use crate::gate::handle::GateRef;
use crate::gate::permit::Permit;
use crate::signal::classify::Verdict;
use crate::signal::outcome::Outcome;

/// A key permit and a global permit, released together; see [`acquire_scoped`].
#[must_use = "a permit releases its capacity when dropped; record an outcome with it"]
#[clippy::has_significant_drop]
pub struct ScopedPermit<K: GateRef, G: GateRef> {
    key: Permit<K>,
    global: Permit<G>,
}

impl<K: GateRef, G: GateRef> ScopedPermit<K, G> {
    /// The permit of the key's gate.
    pub fn key(&self) -> &Permit<K> {
        &self.key
    }

    /// The permit of the global gate.
    pub fn global(&self) -> &Permit<G> {
        &self.global
    }

    /// Records `outcome` on the key's gate and releases both permits (the global gate is told
    /// [`Outcome::Ignore`]).
    pub fn record(self, outcome: Outcome) {
        self.record_verdict(Verdict::new(outcome));
    }

    /// Records `verdict` (with its `Retry-After`) on the key's gate and releases both permits.
    pub fn record_verdict(self, verdict: Verdict) {
        self.key.record_verdict(verdict);
        self.global.ignore();
    }

    /// The call succeeded.
    pub fn success(self) {
        self.record(Outcome::Success);
    }

    /// The dependency signalled congestion.
    pub fn overload(self) {
        self.record(Outcome::Overload);
    }

    /// The outcome says nothing about capacity.
    pub fn ignore(self) {
        self.record(Outcome::Ignore);
    }
}

impl<K: GateRef, G: GateRef> core::fmt::Debug for ScopedPermit<K, G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ScopedPermit")
            .field("key", &self.key)
            .field("global", &self.global)
            .finish()
    }
}

/// Waits for a permit of `key`'s gate, then for one of the `global` gate (invariants 1–2).
///
/// Resolves to [`QueueFull`] if either queue is full; a key permit already taken is then
/// released. Cancel safe: dropping the future releases whatever it holds.
///
/// ```
/// use core::future::Future;
/// use core::pin::pin;
/// use core::task::{Context, Poll, Waker};
/// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex, acquire_scoped};
///
/// let clock = ManualClock::new();
/// let global: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(8).unwrap(), &clock);
/// let account_a: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
///
/// let mut cx = Context::from_waker(Waker::noop());
/// let Poll::Ready(Ok(first)) = pin!(acquire_scoped(&account_a, &global)).poll(&mut cx) else {
///     panic!()
/// };
/// // Account A is at its limit: the next request for it waits holding no global permit.
/// let mut second = pin!(acquire_scoped(&account_a, &global));
/// assert!(second.as_mut().poll(&mut cx).is_pending());
/// assert_eq!(global.in_flight(), 1);
/// first.success();
/// let Poll::Ready(Ok(second)) = second.poll(&mut cx) else { panic!() };
/// second.success();
/// assert_eq!((account_a.in_flight(), global.in_flight()), (0, 0));
/// ```
pub fn acquire_scoped<K, G>(key: K, global: G) -> AcquireScoped<K, G>
where
    K: GateRef + Unpin,
    G: GateRef + Unpin,
{
    AcquireScoped {
        key: Some(Acquire::new(key)),
        held: None,
        global: Some(global),
        waiting_global: None,
    }
}

/// The future of [`acquire_scoped`]: first the key's gate, then the global one.
///
/// Cancel safe: dropped while waiting for the key, it leaves that queue; dropped while waiting for
/// the global gate, it leaves that queue and releases the key permit it holds.
#[must_use = "futures do nothing unless polled"]
pub struct AcquireScoped<K: GateRef, G: GateRef> {
    /// Stage 1: waiting for the key's gate.
    key: Option<Acquire<K>>,
    /// The global gate's handle, until stage 2 starts.
    global: Option<G>,
    /// Stage 2: waiting for the global gate, holding the key permit (invariant 1: the only
    /// permit ever held while waiting).
    waiting_global: Option<Acquire<G>>,
    held: Option<Permit<K>>,
}

impl<K: GateRef + Unpin, G: GateRef + Unpin> Future for AcquireScoped<K, G> {
    type Output = Result<ScopedPermit<K, G>, QueueFull>;

    /// Once it has completed, polling again returns `Pending` and never wakes the task.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        if let Some(waiting) = &mut this.key {
            let permit = match Pin::new(waiting).poll(cx) {
                Poll::Pending => return Poll::Pending,
                Poll::Ready(admitted) => {
                    this.key = None;
                    admitted?
                }
            };
            this.held = Some(permit);
            let global = this
                .global
                .take()
                .expect("the global handle waits for stage 2");
            this.waiting_global = Some(Acquire::new(global));
        }
        let Some(waiting) = this.waiting_global.as_mut() else {
            return Poll::Pending; // spent
        };
        match Pin::new(waiting).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(admitted) => {
                this.waiting_global = None;
                // On a full global queue the key permit is dropped here: released.
                let mut key = this.held.take().expect("stage 2 holds the key permit");
                Poll::Ready(admitted.map(|global| {
                    // The call starts now: the wait for the global gate is not the key's
                    // latency (a congested ceiling must not read as a slow dependency).
                    key.start_now();
                    ScopedPermit { key, global }
                }))
            }
        }
    }
}

impl<K: GateRef, G: GateRef> core::fmt::Debug for AcquireScoped<K, G> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let stage = if self.key.is_some() {
            "waiting for the key"
        } else if self.waiting_global.is_some() {
            "waiting for the global gate"
        } else {
            "done"
        };
        f.debug_struct("AcquireScoped")
            .field("stage", &stage)
            .finish_non_exhaustive()
    }
}

/// Takes a key permit and a global permit without waiting, or neither.
///
/// If the key admits and the global gate does not, the key permit is released at once (counted
/// as cancelled by the key's gate) and the request is refused.
///
/// ```
/// use limiter_core::{
///     AtLimit, Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex, try_acquire_scoped,
/// };
///
/// let clock = ManualClock::new();
/// let global: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
/// let a: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(4).unwrap(), &clock);
/// let b: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(4).unwrap(), &clock);
///
/// let held = try_acquire_scoped(&a, &global).unwrap();
/// assert_eq!(try_acquire_scoped(&b, &global).err(), Some(AtLimit)); // the ceiling is reached
/// assert_eq!(b.in_flight(), 0); // and b's permit went back
/// held.success();
/// ```
pub fn try_acquire_scoped<K, G>(key: K, global: G) -> Result<ScopedPermit<K, G>, AtLimit>
where
    K: GateRef,
    G: GateRef,
{
    let key = Permit::try_new(key)?;
    let global = Permit::try_new(global)?;
    Ok(ScopedPermit { key, global })
}

#[cfg(test)]
mod tests {
    use core::time::Duration;

    use super::*;
    use crate::controller::Fixed;
    use crate::gate::Gate;
    use crate::gate::mutex::NoopRawMutex;
    use crate::gate::waiters::InlineQueue;
    use crate::time::clock::ManualClock;

    #[test]
    fn the_wait_for_the_global_gate_is_not_the_keys_latency() {
        let clock = ManualClock::new();
        let global: Gate<NoopRawMutex, _, _, InlineQueue<4>> =
            Gate::new(Fixed::new(1).unwrap(), &clock);
        let key: Gate<NoopRawMutex, _, _, InlineQueue<4>> =
            Gate::new(Fixed::new(4).unwrap(), &clock);
        let held = global.try_acquire().unwrap();
        let mut cx = Context::from_waker(core::task::Waker::noop());
        let mut waiting = core::pin::pin!(acquire_scoped(&key, &global));
        assert!(waiting.as_mut().poll(&mut cx).is_pending());
        assert_eq!(key.in_flight(), 1, "the key admitted it at 0 ms");
        clock.advance(Duration::from_millis(500));
        held.success();
        let Poll::Ready(Ok(permit)) = waiting.poll(&mut cx) else {
            panic!("admitted once the ceiling had room")
        };
        assert_eq!(permit.key().admission().at.as_micros(), 500_000);
        permit.success();
    }
}
