//! The gate's bounded FIFO of waiting requests.
//!
//! Each waiter is identified by a ticket (a number never reused), not by its waker: wakers may be
//! cloned, replaced or spuriously equal, tickets may not. An entry is either *waiting* (with the
//! waker to call when it is granted) or *granted*: capacity has been handed to it directly, it is
//! counted in flight, and it only has to be claimed by the next poll of its future. A granted
//! entry whose future is dropped before claiming gives its capacity back, which grants the next
//! waiter: a cancelled waiter passes its turn on.
//!
//! Entries are kept in arrival order in a fixed ring. Because the gate always grants the oldest
//! waiting entry, granted entries form a prefix of the ring and waiting ones the rest: granting
//! and claiming the head are O(1), finding a ticket is a binary search (tickets grow along the
//! ring), and only a cancellation from the middle shifts entries (O(Q)).

use core::task::Waker;

use crate::Instant;

/// The most waiters woken per pass; the gate wakes them outside its lock, then takes the lock
/// again if more can be granted. Bounded so the list lives on the stack cheaply.
/// Under loom it is 1, so that the models reach the gaps between batches.
pub(crate) const WAKE_BATCH: usize = if cfg!(loom) { 1 } else { 8 };

/// Queues of up to this many entries find a ticket by scanning: at that size as quick as a binary
/// search, and less code on a microcontroller. Larger queues (the std adapters' 1,024) search.
/// The choice is made at compile time, from `Q`.
const LINEAR_SEARCH_UP_TO: usize = 32;

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

impl Entry {
    /// What an unused slot holds: a slot's use is told by the queue's length, not by its
    /// contents, so slots need no `Option` (which would cost a tag per slot).
    const VACANT: Entry = Entry {
        ticket: 0,
        enqueued_at: Instant::ZERO,
        state: EntryState::Granted,
    };

    /// Moves the entry out, leaving its slot with no waker (and otherwise as it was).
    fn take(&mut self) -> Entry {
        Entry {
            ticket: self.ticket,
            enqueued_at: self.enqueued_at,
            state: core::mem::replace(&mut self.state, EntryState::Granted),
        }
    }
}

/// The queue. Invariants, whenever no method is running:
/// - the logical slots `0..len` (physical `(head + i) % Q`) hold entries; the others hold no
///   waker, and what else they hold is never read;
/// - tickets strictly increase from slot 0 to slot `len - 1`;
/// - the first `len - waiting` entries are granted, the last `waiting` are waiting.
#[derive(Debug)]
pub(crate) struct Waiters<const Q: usize> {
    entries: [Entry; Q],
    head: usize,
    len: usize,
    waiting: usize,
    next_ticket: u64,
}

impl<const Q: usize> Waiters<Q> {
    pub(crate) const fn new() -> Self {
        Waiters {
            entries: [const { Entry::VACANT }; Q],
            head: 0,
            len: 0,
            waiting: 0,
            next_ticket: 0,
        }
    }

    /// The physical index of logical slot `i` (only called with `Q > 0`).
    const fn slot(&self, i: usize) -> usize {
        (self.head + i) % Q
    }

    /// The entry at logical slot `i` (`i < len`).
    fn at(&self, i: usize) -> &Entry {
        &self.entries[self.slot(i)]
    }

    /// Appends a waiting entry; `None` if the queue is full.
    pub(crate) fn push(&mut self, now: Instant, waker: Waker) -> Option<u64> {
        if self.len == Q {
            return None;
        }
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        let slot = self.slot(self.len);
        self.entries[slot] = Entry {
            ticket,
            enqueued_at: now,
            state: EntryState::Waiting(waker),
        };
        self.len += 1;
        self.waiting += 1;
        Some(ticket)
    }

    /// The logical slot holding `ticket`.
    fn position(&self, ticket: u64) -> Option<usize> {
        if Q <= LINEAR_SEARCH_UP_TO {
            return (0..self.len).find(|&i| self.at(i).ticket == ticket);
        }
        let (mut lo, mut hi) = (0, self.len);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let here = self.at(mid).ticket;
            match here.cmp(&ticket) {
                core::cmp::Ordering::Equal => return Some(mid),
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    pub(crate) fn get_mut(&mut self, ticket: u64) -> Option<&mut Entry> {
        let at = self.position(ticket)?;
        let slot = self.slot(at);
        Some(&mut self.entries[slot])
    }

    /// Removes the entry for `ticket`, keeping the others in order.
    pub(crate) fn remove(&mut self, ticket: u64) -> Option<Entry> {
        let at = self.position(ticket)?;
        let entry = self.entries[self.slot(at)].take();
        if at == 0 {
            self.head = (self.head + 1) % Q;
        } else {
            for i in at..self.len - 1 {
                let (to, from) = (self.slot(i), self.slot(i + 1));
                self.entries[to] = self.entries[from].take();
            }
        }
        self.len -= 1;
        if matches!(entry.state, EntryState::Waiting(_)) {
            self.waiting -= 1;
        }
        Some(entry)
    }

    /// The logical slot of the oldest waiting entry, if any waits.
    fn first_waiting(&self) -> Option<usize> {
        (self.waiting > 0).then(|| self.len - self.waiting)
    }

    /// Grants the oldest waiting entry; returns its waker.
    pub(crate) fn grant_next(&mut self) -> Option<Waker> {
        let slot = self.slot(self.first_waiting()?);
        let entry = &mut self.entries[slot];
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
        Some(self.at(self.first_waiting()?).enqueued_at)
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
        let held = self.wakers.iter_mut().take(self.len);
        for waker in held.filter_map(Option::take) {
            waker.wake();
        }
        self.len = 0;
    }
}

impl Drop for WakeList {
    /// A waker that panicked in [`WakeList::wake_all`] leaves the rest here: they are woken too,
    /// so no granted waiter sleeps on capacity it holds.
    fn drop(&mut self) {
        self.wake_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn push(q: &mut Waiters<3>, at: u64) -> Option<u64> {
        q.push(Instant::from_micros(at), Waker::noop().clone())
    }

    #[test]
    fn the_ring_keeps_order_across_wrap_around_and_removal_from_the_middle() {
        let mut q = Waiters::<3>::new();
        let [first, b, c] = [0, 1, 2].map(|t| push(&mut q, t).unwrap());
        assert_eq!(push(&mut q, 9), None, "full");
        assert!(q.grant_next().is_some()); // first
        assert!(q.remove(first).is_some());
        let d = push(&mut q, 3).unwrap(); // wraps to the first physical slot
        assert!(q.remove(c).is_some()); // from the middle: d moves up
        assert_eq!((q.len, q.waiting()), (2, 2));
        assert_eq!(q.oldest_waiting_since(), Some(Instant::from_micros(1)));
        assert!(q.grant_next().is_some()); // b
        assert_eq!(q.oldest_waiting_since(), Some(Instant::from_micros(3)));
        assert!(matches!(q.get_mut(b).unwrap().state, EntryState::Granted));
        assert!(matches!(
            q.get_mut(d).unwrap().state,
            EntryState::Waiting(_)
        ));
        assert!(q.get_mut(c).is_none());
        assert!(q.grant_next().is_some()); // d
        assert!(q.grant_next().is_none());
        assert!(q.remove(d).is_some() && q.remove(b).is_some());
        assert_eq!((q.len, q.waiting(), q.oldest_waiting_since()), (0, 0, None));
    }

    /// Random pushes, grants and removals (from anywhere) against a plain list, on a queue that
    /// scans and on one that searches.
    fn matches_a_list<const Q: usize>(seed: u64) {
        let mut q = Waiters::<Q>::new();
        let mut list: std::vec::Vec<(u64, bool)> = std::vec::Vec::new(); // (ticket, granted)
        let mut rng = seed;
        for step in 0..if cfg!(miri) { 150 } else { 4_000u64 } {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            match rng % 4 {
                0 | 1 => match q.push(Instant::from_micros(step), Waker::noop().clone()) {
                    Some(ticket) => list.push((ticket, false)),
                    None => assert_eq!(list.len(), Q, "refused below capacity"),
                },
                2 => {
                    let next = list.iter_mut().find(|(_, granted)| !granted);
                    assert_eq!(q.grant_next().is_some(), next.is_some());
                    if let Some(entry) = next {
                        entry.1 = true;
                    }
                }
                _ if !list.is_empty() => {
                    let (ticket, granted) = list.remove((rng >> 8) as usize % list.len());
                    let entry = q.remove(ticket).expect("a queued ticket is found");
                    assert_eq!(matches!(entry.state, EntryState::Granted), granted);
                    assert!(q.remove(ticket).is_none(), "removed twice");
                }
                _ => {}
            }
            assert_eq!(q.len, list.len());
            assert_eq!(q.waiting(), list.iter().filter(|(_, g)| !g).count());
            for (i, &(ticket, _)) in list.iter().enumerate() {
                assert_eq!(q.position(ticket), Some(i));
            }
        }
    }

    #[test]
    fn scanning_and_searching_queues_keep_the_same_order() {
        matches_a_list::<5>(3);
        matches_a_list::<LINEAR_SEARCH_UP_TO>(5);
        matches_a_list::<{ LINEAR_SEARCH_UP_TO + 1 }>(7);
        matches_a_list::<64>(11);
    }

    #[test]
    fn a_zero_capacity_queue_refuses_everyone() {
        let mut q = Waiters::<0>::new();
        assert_eq!(q.push(Instant::ZERO, Waker::noop().clone()), None);
        assert!(q.grant_next().is_none() && q.remove(0).is_none());
    }
}
