//! The gate's bounded FIFO of waiting requests.
//!
//! Each waiter is identified by a ticket (a number never reused, growing in arrival order), not
//! by its waker: wakers may be cloned, replaced or spuriously equal, tickets may not. The queue
//! holds only requests still waiting for capacity. Granting takes the oldest one out, hands it
//! capacity (it is counted in flight) and moves the *grant horizon* past its ticket: every
//! ticket below the horizon has been granted or given up, so a waiter whose ticket is below it
//! knows it holds a place without looking into the queue, and the gate publishes the horizon
//! where a waiter reads it without the lock (see [`Gate`](crate::Gate)'s invariant 4). A granted
//! waiter whose future is dropped before it claims gives its capacity back, which grants the
//! next waiter: a cancelled waiter passes its turn on.
//!
//! Entries are kept in arrival order, in a fixed ring ([`InlineQueue`]) or on the heap
//! ([`HeapQueue`], `std`). Granting takes the head (O(1)); finding a ticket, for a waiter that
//! polls again before its grant or gives up, is a scan or a binary search (tickets grow along
//! the queue); only a cancellation from the middle shifts entries (O(len)).

use core::task::Waker;

use crate::time::clock::Instant;

/// The most waiters woken per pass; the gate wakes them outside its lock, then takes the lock
/// again if more can be granted. Bounded so the list lives on the stack cheaply.
/// Under loom it is 1, so that the models reach the gaps between batches.
pub(crate) const WAKE_BATCH: usize = if cfg!(loom) { 1 } else { 8 };

/// Queues of up to this many entries find a ticket by scanning: at that size as quick as a binary
/// search, and less code on a microcontroller. Larger queues (the std adapters' 1,024) search.
/// For an [`InlineQueue`] the choice is made at compile time, from `N`.
const LINEAR_SEARCH_UP_TO: usize = 32;

/// One waiting request.
#[derive(Debug)]
pub struct Entry {
    ticket: u64,
    enqueued_at: Instant,
    /// The waker to call when the request is granted; `None` only in an unused slot (and the
    /// `Option` costs nothing: a waker's pointer is never null).
    pub(crate) waker: Option<Waker>,
}

impl Entry {
    /// What an unused slot holds: a slot's use is told by the queue's length, not by its
    /// contents.
    const VACANT: Entry = Entry {
        ticket: 0,
        enqueued_at: Instant::ZERO,
        waker: None,
    };

    /// Moves the entry out, leaving its slot with no waker (and otherwise as it was).
    fn take(&mut self) -> Entry {
        Entry {
            ticket: self.ticket,
            enqueued_at: self.enqueued_at,
            waker: self.waker.take(),
        }
    }
}

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// Where a [`Gate`](crate::Gate) keeps its waiting requests, in arrival order:
/// [`InlineQueue`], a fixed ring inside the gate (no allocation, `const`, for firmware), or
/// [`HeapQueue`] (`std`), on the heap, growing on demand up to a bound set at run time.
///
/// Sealed. Its methods are the gate's internal protocol: logical slots `0..len`, oldest first.
pub trait Queue: sealed::Sealed {
    /// The most entries the queue takes.
    fn bound(&self) -> usize;
    /// Entries held now.
    fn len(&self) -> usize;
    /// Whether no entry is held.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    #[doc(hidden)]
    /// Whether a ticket is found by scanning (small queues) rather than by binary search.
    fn scans(&self) -> bool;
    #[doc(hidden)]
    /// The entry at logical slot `i < len`.
    fn at(&self, i: usize) -> &Entry;
    #[doc(hidden)]
    /// The entry at logical slot `i < len`.
    fn at_mut(&mut self, i: usize) -> &mut Entry;
    #[doc(hidden)]
    /// Appends `entry`; the caller checked `len < bound`.
    fn push_back(&mut self, entry: Entry);
    #[doc(hidden)]
    /// Removes the entry at logical slot `i < len`, keeping the others in order.
    fn remove(&mut self, i: usize) -> Entry;
}

/// A waiting queue of at most `N` requests, kept inside the gate in a fixed ring: no allocation,
/// built in `const` code, so a gate with it can be a `static`.
///
/// ```
/// use limiter_core::{Fixed, Gate, InlineQueue, ManualClock, NoopRawMutex, Queue};
///
/// let clock = ManualClock::new();
/// let gate: Gate<NoopRawMutex, _, _, InlineQueue<4>> = Gate::new(Fixed::new(1).unwrap(), &clock);
/// assert_eq!(InlineQueue::<4>::new().bound(), 4);
/// # let _ = gate;
/// ```
#[derive(Debug)]
pub struct InlineQueue<const N: usize> {
    entries: [Entry; N],
    head: usize,
    len: usize,
}

impl<const N: usize> InlineQueue<N> {
    /// An empty queue.
    pub const fn new() -> Self {
        InlineQueue {
            entries: [const { Entry::VACANT }; N],
            head: 0,
            len: 0,
        }
    }

    /// The physical index of logical slot `i` (only called with `N > 0`).
    const fn slot(&self, i: usize) -> usize {
        (self.head + i) % N
    }
}

impl<const N: usize> Default for InlineQueue<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> sealed::Sealed for InlineQueue<N> {}

impl<const N: usize> Queue for InlineQueue<N> {
    fn bound(&self) -> usize {
        N
    }

    fn len(&self) -> usize {
        self.len
    }

    fn scans(&self) -> bool {
        N <= LINEAR_SEARCH_UP_TO
    }

    fn at(&self, i: usize) -> &Entry {
        &self.entries[self.slot(i)]
    }

    fn at_mut(&mut self, i: usize) -> &mut Entry {
        let slot = self.slot(i);
        &mut self.entries[slot]
    }

    fn push_back(&mut self, entry: Entry) {
        let slot = self.slot(self.len);
        // The slot past the end is always vacant, with no waker (`remove` leaves it so):
        // nothing to drop, and no drop code for it.
        debug_assert!(self.entries[slot].waker.is_none());
        core::mem::forget(core::mem::replace(&mut self.entries[slot], entry));
        self.len += 1;
    }

    fn remove(&mut self, i: usize) -> Entry {
        let entry = self.at_mut(i).take();
        if i == 0 {
            self.head = (self.head + 1) % N;
        } else {
            // The vacancy `take` left moves up to the end, one swap at a time: no entry is
            // dropped on the way (an assignment would drop what it overwrites).
            for at in i..self.len - 1 {
                let (to, from) = (self.slot(at), self.slot(at + 1));
                self.entries.swap(to, from);
            }
        }
        self.len -= 1;
        entry
    }
}

/// A waiting queue on the heap (`std`): it takes memory only for the requests that wait, up to
/// `bound`, and gives a large buffer back once it empties. An idle gate costs a few words
/// whatever its bound, so a bound of a million, or ten thousand keyed gates, cost nothing until
/// requests queue.
///
/// ```
/// use limiter_core::{HeapQueue, Queue};
///
/// assert_eq!(HeapQueue::default().bound(), HeapQueue::DEFAULT_BOUND);
/// assert_eq!(HeapQueue::new(1_000_000).bound(), 1_000_000);
/// ```
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct HeapQueue {
    entries: std::collections::VecDeque<Entry>,
    bound: usize,
}

#[cfg(feature = "std")]
impl HeapQueue {
    /// The bound of [`HeapQueue::default`]: 1,024 waiting requests.
    pub const DEFAULT_BOUND: usize = 1_024;

    /// Once empty, a buffer with room for more than this many entries is given back.
    const KEPT_WHEN_EMPTY: usize = 32;

    /// An empty queue that takes at most `bound` waiting requests (0: none wait; every
    /// `acquire` that cannot be admitted at once is refused).
    pub const fn new(bound: usize) -> Self {
        HeapQueue {
            entries: std::collections::VecDeque::new(),
            bound,
        }
    }

    /// Room reserved now (grows on demand, up to the bound).
    pub fn capacity(&self) -> usize {
        self.entries.capacity()
    }
}

#[cfg(feature = "std")]
impl Default for HeapQueue {
    fn default() -> Self {
        Self::new(Self::DEFAULT_BOUND)
    }
}

#[cfg(feature = "std")]
impl sealed::Sealed for HeapQueue {}

#[cfg(feature = "std")]
impl Queue for HeapQueue {
    fn bound(&self) -> usize {
        self.bound
    }

    fn len(&self) -> usize {
        self.entries.len()
    }

    fn scans(&self) -> bool {
        self.entries.len() <= LINEAR_SEARCH_UP_TO
    }

    fn at(&self, i: usize) -> &Entry {
        &self.entries[i]
    }

    fn at_mut(&mut self, i: usize) -> &mut Entry {
        &mut self.entries[i]
    }

    fn push_back(&mut self, entry: Entry) {
        self.entries.push_back(entry);
    }

    fn remove(&mut self, i: usize) -> Entry {
        // The oldest entry is the usual one (a grant): the deque's own pop is a few
        // instructions where its general removal copies around the gap.
        let entry = if i == 0 {
            self.entries.pop_front()
        } else {
            self.entries.remove(i)
        };
        let entry = entry.unwrap_or(Entry::VACANT);
        if self.entries.is_empty() && self.entries.capacity() > Self::KEPT_WHEN_EMPTY {
            self.entries = std::collections::VecDeque::new();
        }
        entry
    }
}

/// The queue's bookkeeping over its storage `S`. Invariants, whenever no method is running:
/// - tickets strictly increase from slot 0 to slot `len - 1`, and all are at least `horizon`;
/// - every ticket below `horizon` was granted, or its request gave up its place before that;
/// - `len <= bound`.
#[derive(Debug)]
pub(crate) struct Waiters<S> {
    slots: S,
    next_ticket: u64,
    horizon: u64,
}

impl<S: Queue> Waiters<S> {
    pub(crate) const fn new(slots: S) -> Self {
        Waiters {
            slots,
            next_ticket: 0,
            horizon: 0,
        }
    }

    /// Appends a waiting entry; `None` if the queue is full.
    pub(crate) fn push(&mut self, now: Instant, waker: Waker) -> Option<u64> {
        if self.slots.len() >= self.slots.bound() {
            return None;
        }
        let ticket = self.next_ticket;
        self.next_ticket = self.next_ticket.wrapping_add(1);
        self.slots.push_back(Entry {
            ticket,
            enqueued_at: now,
            waker: Some(waker),
        });
        Some(ticket)
    }

    /// The logical slot holding `ticket`.
    pub(crate) fn position(&self, ticket: u64) -> Option<usize> {
        let len = self.slots.len();
        if self.slots.scans() {
            return (0..len).find(|&i| self.slots.at(i).ticket == ticket);
        }
        // Tickets strictly increase along the queue, so `ticket` lies at most
        // `ticket - first ticket` slots in; exactly there unless entries before it left out of
        // order (cancellations). That slot is tried first.
        if len == 0 {
            return None;
        }
        let first = self.slots.at(0).ticket;
        let guess = usize::try_from(ticket.wrapping_sub(first)).map_or(len, |d| d.min(len));
        if guess < len && self.slots.at(guess).ticket == ticket {
            return Some(guess);
        }
        let (mut lo, mut hi) = (0, guess);
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let here = self.slots.at(mid).ticket;
            match here.cmp(&ticket) {
                core::cmp::Ordering::Equal => return Some(mid),
                core::cmp::Ordering::Less => lo = mid + 1,
                core::cmp::Ordering::Greater => hi = mid,
            }
        }
        None
    }

    /// The entry at logical slot `at` (from [`Waiters::position`]).
    pub(crate) fn at_mut(&mut self, at: usize) -> &mut Entry {
        self.slots.at_mut(at)
    }

    /// Removes the entry for `ticket`, keeping the others in order: a waiter that gives up.
    pub(crate) fn remove(&mut self, ticket: u64) -> Option<Entry> {
        let at = self.position(ticket)?;
        Some(self.slots.remove(at))
    }

    /// Grants the oldest waiting entry: takes it out and moves the horizon past its ticket.
    /// Returns its waker.
    pub(crate) fn grant_next(&mut self) -> Option<Waker> {
        if self.slots.is_empty() {
            return None;
        }
        let entry = self.slots.remove(0);
        self.horizon = entry.ticket.wrapping_add(1);
        entry.waker
    }

    /// Every ticket below it has been granted (or its request has given up its place).
    pub(crate) const fn horizon(&self) -> u64 {
        self.horizon
    }

    /// Whether the request holding `ticket` has been granted: a ticket still held by a request
    /// that has not given up is either waiting in the queue or below the horizon.
    pub(crate) const fn is_granted(&self, ticket: u64) -> bool {
        ticket < self.horizon
    }

    /// How many requests wait for capacity.
    pub(crate) fn waiting(&self) -> usize {
        self.slots.len()
    }

    /// When the oldest waiting entry was queued.
    pub(crate) fn oldest_waiting_since(&self) -> Option<Instant> {
        (!self.slots.is_empty()).then(|| self.slots.at(0).enqueued_at)
    }

    /// The storage.
    pub(crate) fn slots(&self) -> &S {
        &self.slots
    }
}

/// Wakers collected under the lock, woken after it is released.
///
/// A `heapless::Vec`, woken last first: the capacity is already granted, in FIFO order, so the
/// order of the wakes decides only which task runs first. Measured on the Cortex-M0 footprint
/// firmware (`bash scripts/footprint.sh`): 5,100 bytes for the limiter; waking in grant order
/// costs 5,148 (`iter` then `clear`) or 5,248 (`heapless::Deque`), and the hand-written
/// `[Option<Waker>; 8]` list 5,172 last first and 5,188 in order.
pub(crate) struct WakeList {
    wakers: heapless::Vec<Waker, WAKE_BATCH>,
}

impl WakeList {
    pub(crate) const fn new() -> Self {
        WakeList {
            wakers: heapless::Vec::new(),
        }
    }

    pub(crate) fn is_full(&self) -> bool {
        self.wakers.is_full()
    }

    pub(crate) fn len(&self) -> usize {
        self.wakers.len()
    }

    /// Adds a waker; the caller checks [`WakeList::is_full`] first (a waker pushed onto a full
    /// list would be dropped, and its task never woken).
    pub(crate) fn push(&mut self, waker: Waker) {
        let _ = self.wakers.push(waker);
    }

    pub(crate) fn wake_all(&mut self) {
        while let Some(waker) = self.wakers.pop() {
            waker.wake();
        }
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

    fn push<S: Queue>(q: &mut Waiters<S>, at: u64) -> Option<u64> {
        q.push(Instant::from_micros(at), Waker::noop().clone())
    }

    fn keeps_order_across_wrap_around_and_removal_from_the_middle<S: Queue>(slots: S) {
        let mut q = Waiters::new(slots);
        let [first, b, c] = [0, 1, 2].map(|t| push(&mut q, t).unwrap());
        assert_eq!(push(&mut q, 9), None, "full");
        assert!(!q.is_granted(first));
        assert!(q.grant_next().is_some()); // first: out of the queue, below the horizon
        assert!(q.is_granted(first) && !q.is_granted(b));
        assert!(
            q.remove(first).is_none(),
            "a granted ticket is no longer queued"
        );
        let d = push(&mut q, 3).unwrap(); // an inline ring wraps to its first physical slot
        assert!(q.remove(c).is_some()); // from the middle: d moves up
        assert_eq!(q.waiting(), 2);
        assert_eq!(q.oldest_waiting_since(), Some(Instant::from_micros(1)));
        assert!(q.grant_next().is_some()); // b
        assert_eq!(q.oldest_waiting_since(), Some(Instant::from_micros(3)));
        assert_eq!((q.position(b), q.position(d)), (None, Some(0)));
        assert!(q.is_granted(b) && !q.is_granted(d));
        assert!(q.grant_next().is_some()); // d: c, which gave up, is skipped
        assert_eq!(q.horizon(), d + 1);
        assert!(q.grant_next().is_none());
        let empty = (q.slots().len(), q.waiting(), q.oldest_waiting_since());
        assert_eq!(empty, (0, 0, None));
    }

    #[test]
    fn the_ring_keeps_order_across_wrap_around_and_removal_from_the_middle() {
        keeps_order_across_wrap_around_and_removal_from_the_middle(InlineQueue::<3>::new());
    }

    #[cfg(feature = "std")]
    #[test]
    fn the_heap_queue_keeps_order_across_removal_from_the_middle() {
        keeps_order_across_wrap_around_and_removal_from_the_middle(HeapQueue::new(3));
    }

    /// Random pushes, grants and removals (from anywhere) against a plain list.
    fn matches_a_list<S: Queue>(slots: S, seed: u64) {
        let bound = slots.bound();
        let mut q = Waiters::new(slots);
        let mut list: std::vec::Vec<u64> = std::vec::Vec::new(); // waiting tickets, in order
        let mut granted: std::vec::Vec<u64> = std::vec::Vec::new();
        let mut rng = seed;
        for step in 0..if cfg!(miri) { 150 } else { 4_000u64 } {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            match rng % 4 {
                0 | 1 => match q.push(Instant::from_micros(step), Waker::noop().clone()) {
                    Some(ticket) => list.push(ticket),
                    None => assert_eq!(list.len(), bound, "refused below capacity"),
                },
                2 => {
                    assert_eq!(q.grant_next().is_some(), !list.is_empty());
                    if !list.is_empty() {
                        granted.push(list.remove(0));
                    }
                }
                _ if !list.is_empty() => {
                    let ticket = list.remove((rng >> 8) as usize % list.len());
                    assert!(!q.is_granted(ticket), "a waiting ticket is not granted");
                    assert!(q.remove(ticket).is_some(), "a queued ticket is found");
                    assert!(q.remove(ticket).is_none(), "removed twice");
                }
                _ => {}
            }
            assert_eq!(q.waiting(), list.len());
            for (i, &ticket) in list.iter().enumerate() {
                assert_eq!(q.position(ticket), Some(i));
                assert!(!q.is_granted(ticket));
            }
            for &ticket in granted.iter().rev().take(8) {
                assert!(q.is_granted(ticket) && q.position(ticket).is_none());
            }
        }
    }

    #[test]
    fn scanning_and_searching_queues_keep_the_same_order() {
        matches_a_list(InlineQueue::<5>::new(), 3);
        matches_a_list(InlineQueue::<LINEAR_SEARCH_UP_TO>::new(), 5);
        matches_a_list(InlineQueue::<{ LINEAR_SEARCH_UP_TO + 1 }>::new(), 7);
        matches_a_list(InlineQueue::<64>::new(), 11);
    }

    #[cfg(feature = "std")]
    #[test]
    fn heap_queues_keep_the_same_order() {
        matches_a_list(HeapQueue::new(5), 3);
        matches_a_list(HeapQueue::new(200), 13);
    }

    #[cfg(feature = "std")]
    #[test]
    fn an_emptied_heap_queue_gives_a_large_buffer_back() {
        let mut q = Waiters::new(HeapQueue::new(1_000_000));
        assert_eq!(
            q.slots().capacity(),
            0,
            "nothing reserved before a request waits"
        );
        let tickets: std::vec::Vec<u64> = (0..500).map(|t| push(&mut q, t).unwrap()).collect();
        assert!(q.slots().capacity() >= 500);
        for &ticket in &tickets[..498] {
            q.remove(ticket).unwrap();
        }
        assert!(q.grant_next().is_some());
        assert!(
            q.slots().capacity() >= 500,
            "kept while requests still wait"
        );
        q.remove(tickets[499]).unwrap();
        assert_eq!(q.slots().capacity(), 0);
        // A few waiters come and go without reallocating.
        let t = push(&mut q, 1).unwrap();
        let kept = q.slots().capacity();
        q.remove(t).unwrap();
        assert_eq!(q.slots().capacity(), kept);
    }

    #[test]
    fn a_zero_capacity_queue_refuses_everyone() {
        let mut q = Waiters::new(InlineQueue::<0>::new());
        assert_eq!(q.push(Instant::ZERO, Waker::noop().clone()), None);
        assert!(q.grant_next().is_none() && q.remove(0).is_none());
    }
}
