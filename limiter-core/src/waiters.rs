//! The gate's bounded FIFO of waiting requests.
//!
//! Each waiter is identified by a ticket (a number never reused), not by its waker: wakers may be
//! cloned, replaced or spuriously equal, tickets may not. An entry is either *waiting* (with the
//! waker to call when it is granted) or *granted*: capacity has been handed to it directly, it is
//! counted in flight, and it only has to be claimed by the next poll of its future. A granted
//! entry whose future is dropped before claiming gives its capacity back, which grants the next
//! waiter: a cancelled waiter passes its turn on.
//!
//! Entries are kept in arrival order in a fixed array; removal from the middle shifts the tail
//! (O(Q), with Q small and fixed).

use core::task::Waker;

use crate::Instant;

/// The most waiters woken per pass; the gate wakes them outside its lock, then takes the lock
/// again if more can be granted. Bounded so the list lives on the stack cheaply.
/// Under loom it is 1, so that the models reach the gaps between batches.
pub(crate) const WAKE_BATCH: usize = if cfg!(loom) { 1 } else { 8 };

#[derive(Debug)]
pub(crate) enum EntryState {
    Waiting(Waker),
    Granted,
}

#[derive(Debug)]
pub(crate) struct Entry {
    ticket: u64,
    enqueued_at: Instant,
    pub(crate) state: EntryState,
}

#[derive(Debug)]
pub(crate) struct Waiters<const Q: usize> {
    entries: [Option<Entry>; Q],
    len: usize,
    /// Entries in the waiting state.
    waiting: usize,
    next_ticket: u64,
}

impl<const Q: usize> Waiters<Q> {
    pub(crate) const fn new() -> Self {
        Waiters {
            entries: [const { None }; Q],
            len: 0,
            waiting: 0,
            next_ticket: 0,
        }
    }

    /// Appends a waiting entry; `None` if the queue is full.
    pub(crate) fn push(&mut self, now: Instant, waker: Waker) -> Option<u64> {
        let slot = self.entries.get_mut(self.len)?;
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        *slot = Some(Entry {
            ticket,
            enqueued_at: now,
            state: EntryState::Waiting(waker),
        });
        self.len += 1;
        self.waiting += 1;
        Some(ticket)
    }

    fn position(&self, ticket: u64) -> Option<usize> {
        self.entries[..self.len]
            .iter()
            .position(|e| e.as_ref().is_some_and(|e| e.ticket == ticket))
    }

    pub(crate) fn get_mut(&mut self, ticket: u64) -> Option<&mut Entry> {
        let at = self.position(ticket)?;
        self.entries[at].as_mut()
    }

    /// Removes the entry for `ticket`, keeping the others in order.
    pub(crate) fn remove(&mut self, ticket: u64) -> Option<Entry> {
        let at = self.position(ticket)?;
        let entry = self.entries[at].take();
        self.entries[at..self.len].rotate_left(1);
        self.len -= 1;
        if matches!(&entry, Some(e) if matches!(e.state, EntryState::Waiting(_))) {
            self.waiting -= 1;
        }
        entry
    }

    /// Grants the oldest waiting entry; returns its waker.
    pub(crate) fn grant_next(&mut self) -> Option<Waker> {
        let entry = self.entries[..self.len]
            .iter_mut()
            .flatten()
            .find(|e| matches!(e.state, EntryState::Waiting(_)))?;
        match core::mem::replace(&mut entry.state, EntryState::Granted) {
            EntryState::Waiting(waker) => {
                self.waiting -= 1;
                Some(waker)
            }
            EntryState::Granted => None,
        }
    }

    /// How many entries still wait for capacity (granted but unclaimed ones excluded).
    pub(crate) const fn waiting(&self) -> usize {
        self.waiting
    }

    /// When the oldest still-waiting entry was queued.
    pub(crate) fn oldest_waiting_since(&self) -> Option<Instant> {
        self.entries[..self.len]
            .iter()
            .flatten()
            .find(|e| matches!(e.state, EntryState::Waiting(_)))
            .map(|e| e.enqueued_at)
    }
}

/// Wakers collected under the lock, woken after it is released.
pub(crate) struct WakeList {
    wakers: [Option<Waker>; WAKE_BATCH],
    len: usize,
}

impl WakeList {
    pub(crate) const fn new() -> Self {
        WakeList {
            wakers: [const { None }; WAKE_BATCH],
            len: 0,
        }
    }

    pub(crate) const fn is_full(&self) -> bool {
        self.len == WAKE_BATCH
    }

    /// Adds a waker; the caller checks [`WakeList::is_full`] first.
    pub(crate) fn push(&mut self, waker: Waker) {
        if let Some(slot) = self.wakers.get_mut(self.len) {
            *slot = Some(waker);
            self.len += 1;
        }
    }

    pub(crate) fn wake_all(&mut self) {
        for waker in self.wakers[..self.len].iter_mut().filter_map(Option::take) {
            waker.wake();
        }
        self.len = 0;
    }
}
