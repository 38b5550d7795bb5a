//! Nameable futures, so adapters and services can hold them without boxing.

use core::future::Future;
use core::pin::Pin;
use core::task::{Context, Poll};

use crate::gate::error::{QueueFull, Refused};
use crate::gate::handle::GateRef;
use crate::gate::permit::Permit;

/// Waits in the gate's FIFO queue for admission. Created by [`Gate::acquire`](crate::Gate::acquire)
/// and [`Gate::acquire_owned`](crate::Gate::acquire_owned).
///
/// Resolves to a [`Permit`], or to [`QueueFull`] on the first poll if the queue is full. Once it
/// has resolved it is spent: polled again, it stays `Pending` (it does not panic).
///
/// # Cancel safety
///
/// Dropping it leaves the queue. If the gate had already handed it capacity (it was woken but not
/// yet polled), that capacity goes to the next waiter: no turn is lost.
#[must_use = "futures do nothing unless polled"]
pub struct Acquire<R: GateRef> {
    /// `None` once the future has completed.
    gate: Option<R>,
    /// Our place in the queue, while we have one.
    ticket: Option<u64>,
}

impl<R: GateRef> Acquire<R> {
    pub(crate) fn new(gate: R) -> Self {
        Acquire {
            gate: Some(gate),
            ticket: None,
        }
    }

    /// The gate's handle, until the future completes.
    pub(crate) fn handle(&self) -> Option<&R> {
        self.gate.as_ref()
    }

    /// Whether this future holds a place in the gate's queue.
    pub fn is_queued(&self) -> bool {
        self.ticket.is_some()
    }
}

impl<R: GateRef> Acquire<R> {
    /// Polls for admission; with `honour_hold`, a newcomer is refused (not queued) while a
    /// `Retry-After` hold is in force, and may poll again once it has passed. Once it has
    /// completed it is spent: polled again, it returns `Pending` and never wakes the task.
    pub(crate) fn poll_entry(
        &mut self,
        honour_hold: bool,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Permit<R>, Refused>> {
        // The gate stays in place while the call runs, so a drop after a panic in it still
        // leaves the queue. Spent, it is `Pending`: a panic's message and location would cost
        // a firmware ~100 B of flash.
        let Some(gate) = &self.gate else {
            return Poll::Pending;
        };
        let Poll::Ready(result) = gate.poll_acquire(&mut self.ticket, honour_hold, cx) else {
            return Poll::Pending;
        };
        if let Err(Refused::Held(until)) = result {
            return Poll::Ready(Err(Refused::Held(until))); // not queued: may come back
        }
        Poll::Ready(match (result, self.gate.take()) {
            (Ok(admission), Some(gate)) => Ok(Permit::new(gate, admission)),
            (Err(refused), _) => Err(refused),
            // Unreachable: the gate was there above and nothing took it since. (Were it not, the
            // admission could not be released without its gate.)
            (Ok(_), None) => Err(Refused::Full),
        })
    }
}

impl<R: GateRef + Unpin> Future for Acquire<R> {
    type Output = Result<Permit<R>, QueueFull>;

    /// Once it has completed, polling again returns `Pending` and never wakes the task.
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        // Without the hold, the only refusal is a full queue.
        self.get_mut().poll_entry(false, cx).map_err(|_| QueueFull)
    }
}

impl<R: GateRef> Drop for Acquire<R> {
    fn drop(&mut self) {
        if let (Some(gate), Some(ticket)) = (&self.gate, self.ticket.take()) {
            gate.cancel_wait(ticket);
        }
    }
}

impl<R: GateRef> core::fmt::Debug for Acquire<R> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Acquire")
            .field("queued", &self.ticket.is_some())
            .field("done", &self.gate.is_none())
            .finish()
    }
}
