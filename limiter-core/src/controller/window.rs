//! Latency windows: a rolling median over the last `N` samples, and a windowed minimum.
//!
//! [`MedianWindow`] keeps each sample in 16 bits (see [`MedianWindow::push`]): exact below
//! 4,096 µs, rounded down to 12 significant bits above (a relative error under 0.05 %), up to
//! about 71 minutes. A median over latencies needs no more, and a 32-sample window's samples
//! and order cost 96 bytes instead of 160.

use crate::num::saturating_u32;

/// Significant bits a stored sample keeps.
const SIGNIFICANT_BITS: u32 = 12;
/// Stored bits below the implicit leading one.
const MANTISSA_BITS: u32 = SIGNIFICANT_BITS - 1;
const MANTISSA_MASK: u32 = (1 << MANTISSA_BITS) - 1;

/// A sample's 16-bit code, in the same order as the samples: a small float.
///
/// Below 2^12 the code is the value itself. From 2^12 up, a value `1.m × 2^e` (`12 <= e <= 31`)
/// is `(e - 10) << 11 | m`, its 11 bits after the leading one: the codes go on where the exact
/// ones stop (2^12 is code 4,096) and end at 45,055 for `u32::MAX`.
const fn encode(sample: u32) -> u16 {
    if sample < 1 << SIGNIFICANT_BITS {
        return sample as u16;
    }
    // The position of the leading one, 12 to 31; counted, not taken from a leading-zeros count,
    // which a Cortex-M0 has no instruction for.
    let mut exponent = SIGNIFICANT_BITS;
    while exponent < 31 && sample >> (exponent + 1) != 0 {
        exponent += 1;
    }
    let mantissa = (sample >> (exponent - MANTISSA_BITS)) & MANTISSA_MASK;
    (((exponent - 10) << MANTISSA_BITS) | mantissa) as u16
}

/// The value a code stands for: the smallest sample with that code.
const fn decode(code: u16) -> u32 {
    let code = code as u32;
    let band = code >> MANTISSA_BITS;
    if band < 2 {
        code
    } else {
        ((code & MANTISSA_MASK) | (1 << MANTISSA_BITS)) << (band - 1)
    }
}

/// The last `N` latency samples, with their median and any quantile.
///
/// A ring buffer remembers arrival order, so the oldest sample is evicted first; an array of
/// one-byte ring indices in the samples' ascending order answers order statistics by indexing.
/// A [`push`](Self::push) writes the ring and moves the new sample's index past its neighbours
/// to its place in the order: O(N) in the worst case; reads are O(1). (Within
/// the crate, a controller that needs the median only when it could fall below a remembered
/// one pushes without ordering and counts the samples below that mark instead; the order is
/// then settled only when the count says the median could be below it.) No allocation and no
/// panic path. `N` must be at least 1 and at most 256.
///
/// Samples are stored in 16 bits: exact up to 4,095 µs, and above that rounded down to their
/// 12 most significant bits, so what the window reports is at most 0.05 % below what was
/// pushed (and never above it). Saturates at `u32::MAX` µs, about 71 minutes.
///
/// # Examples
///
/// ```
/// use limiter_core::MedianWindow;
///
/// let mut w = MedianWindow::<4>::new();
/// assert_eq!(w.median(), None);
/// for micros in [50, 10, 40, 20, 30] {
///     w.push(micros); // 50 falls out when 30 arrives
/// }
/// assert_eq!(w.len(), 4);
/// assert_eq!(w.median(), Some(25)); // mean of the two middle samples, 20 and 30
/// assert_eq!(w.min(), Some(10));
/// assert_eq!(w.quantile_permille(1_000), Some(40));
/// ```
#[derive(Clone, Debug)]
pub struct MedianWindow<const N: usize> {
    /// Sample codes in arrival order; `ring[head]` is the oldest once the window is full. While
    /// the window is not full, `head` is 0 and the samples are `ring[..len]`.
    ring: [u16; N],
    /// Ring slots in ascending order of their samples as of the last settle; `order[..len]` holds
    /// every slot in use, those recorded since out of place.
    order: [u8; N],
    head: u16,
    len: u16,
    /// Whether a sample was recorded since the order was last settled.
    unsettled: bool,
}

/// A count of a [`MedianWindow`]'s samples below a mark, which tells in O(1) whether the
/// window's median could be below it (see [`MedianWindow::median_if_below`]). It belongs to
/// one window, all of whose samples come through [`MedianWindow::push_counted`] with it (a
/// plain push or a clear leaves it stale: start a new one); kept apart from the window so that
/// a window without a mark (the compact AIMD's, on a microcontroller) carries none of it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BelowMark {
    /// The mark, `NO_MARK` if none.
    mark: u32,
    /// The window's samples below the mark, if there is one.
    below: u16,
}

impl BelowMark {
    /// No mark.
    pub(crate) const fn new() -> Self {
        BelowMark {
            mark: NO_MARK,
            below: 0,
        }
    }

    /// Sets the mark (none: every sample and every median is below it) and counts `window`'s
    /// samples below it, if it changed.
    pub(crate) fn set<const N: usize>(&mut self, window: &MedianWindow<N>, mark: Option<u32>) {
        // A mark of `u32::MAX` is no mark: every sample kept is below it.
        let mark = mark.unwrap_or(NO_MARK);
        if mark == self.mark {
            return;
        }
        self.mark = mark;
        let len = usize::from(window.len).min(N);
        let below = window.ring[..len]
            .iter()
            .filter(|&&code| decode(code) < mark)
            .count();
        // At most `N <= 256`.
        self.below = below as u16;
    }
}

/// No mark: `u32::MAX`, above every sample a window keeps.
const NO_MARK: u32 = u32::MAX;

/// Whether [`MedianWindow::push_counted`] leaves the order for a later settle. Not on
/// microcontrollers: there it orders at once, as `push` does, so no read ever finds the order
/// unsettled and the code for such reads (about 130 bytes on a Cortex-M0) is left out.
pub(crate) const LAZY_ORDER: bool = !cfg!(target_os = "none");

impl<const N: usize> Default for MedianWindow<N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> MedianWindow<N> {
    const CAPACITY_OK: () = assert!(N >= 1 && N <= 256, "1 <= N <= 256");

    /// An empty window.
    pub const fn new() -> Self {
        let () = Self::CAPACITY_OK;
        MedianWindow {
            ring: [0; N],
            order: [0; N],
            head: 0,
            len: 0,
            unsettled: false,
        }
    }

    /// Number of samples held (at most `N`).
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether no sample has been pushed yet.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Whether the window holds `N` samples (the next push evicts the oldest).
    pub const fn is_full(&self) -> bool {
        self.len as usize == N
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.head = 0;
        self.len = 0;
        self.unsettled = false;
    }

    /// Brings the order up to date with the samples recorded since it last was (by
    /// [`push_counted`](Self::push_counted)), so that reads are O(1) again.
    ///
    /// An insertion sort, stable (a sample moves down only past larger ones), written out
    /// rather than through [`reorder`](Self::reorder), and out of line: an index already in
    /// place costs one comparison and no call, and a settle is mostly indices in place (the few
    /// recorded since the last one, among 32). Through `reorder` a settle of a full window took
    /// about 1,100 instructions whatever moved, about 420 now. It matters where the median often
    /// could be below the remembered one: the contended bench's AIMD, whose latencies of a few
    /// microseconds tie often, settled on one sample in six to one in three, and took 2,555
    /// instructions per acquisition, 2,424 to 2,458 with this sort (`valgrind --tool=callgrind`
    /// on the bench crate's `cycle` example, `contended-local-aimd`; the semaphore's 1,490,
    /// `Fixed(8)`'s 1,837). That bench no longer settles for a median since the probing AIMD
    /// remembers at least the baseline floor (2,317; see `Aimd::floored`). Samples are only
    /// recorded unsettled off microcontrollers.
    pub(crate) fn settle(&mut self) {
        if LAZY_ORDER && self.unsettled {
            self.sort();
        }
    }

    /// The insertion sort of [`settle`](Self::settle), out of line: the check that calls it
    /// runs on every sample, the sort on few.
    #[inline(never)]
    fn sort(&mut self) {
        let len = usize::from(self.len).min(N);
        let (ring, order) = (&self.ring, &mut self.order);
        let key = |slot: u8| ring[usize::from(slot) % N];
        for at in 1..len {
            let moving = order[at];
            let sample = key(moving);
            if key(order[at - 1]) <= sample {
                continue; // in place
            }
            let mut to = at;
            while to > 0 && key(order[to - 1]) > sample {
                order[to] = order[to - 1];
                to -= 1;
            }
            order[to] = moving;
        }
        self.unsettled = false;
    }

    /// The `rank`-th smallest sample held (0-based; `rank < len`). One copy on bare metal,
    /// where flash counts (48 bytes less on a Cortex-M0 firmware, `bash scripts/footprint.sh`);
    /// inlined elsewhere.
    #[cfg_attr(target_os = "none", inline(never))]
    fn at_rank(&self, rank: usize) -> u32 {
        if LAZY_ORDER && self.unsettled {
            return self.at_rank_unsettled(rank);
        }
        // Both indices are below `N` already; the modulo only lets the compiler see it, so no
        // bounds check (and no panic path) is left in the firmware.
        decode(self.ring[usize::from(self.order[rank % N]) % N])
    }

    /// The `rank`-th smallest sample of a window whose order is not settled (read through a
    /// shared reference between a [`push_counted`](Self::push_counted) and the next settle): the
    /// sample with at most `rank` samples below it and more than `rank` at or below it. O(N²),
    /// and seldom: the controller settles before it reads.
    fn at_rank_unsettled(&self, rank: usize) -> u32 {
        let held = &self.ring[..usize::from(self.len).min(N)];
        let mut found = 0;
        for &code in held {
            let below = held.iter().filter(|&&other| other < code).count();
            let at_or_below = held.iter().filter(|&&other| other <= code).count();
            if below <= rank && rank < at_or_below {
                found = code;
            }
        }
        decode(found)
    }

    /// Moves the ring index at `order[at]`, whose sample just changed, to its place among
    /// `order[..len]` (which is otherwise sorted) by swapping it past its neighbours. One copy
    /// on bare metal, where flash counts.
    #[cfg_attr(target_os = "none", inline(never))]
    fn reorder(&mut self, at: usize, len: usize) {
        let ring = &self.ring;
        let key = |i: u8| ring[usize::from(i) % N];
        let order = &mut self.order[..len.min(N)];
        // Swaps the pair starting at `first` if it is out of order; false if it is not (or
        // does not exist).
        let mut swap_if_above = |first: usize| match order.get_mut(first..first + 2) {
            Some([lower, upper]) if key(*lower) > key(*upper) => {
                core::mem::swap(lower, upper);
                true
            }
            _ => false,
        };
        let mut at = at;
        if at > 0 && swap_if_above(at - 1) {
            at -= 1;
            while at > 0 && swap_if_above(at - 1) {
                at -= 1;
            }
        } else {
            while swap_if_above(at) {
                at += 1;
            }
        }
    }

    /// Writes a sample's code into the ring, evicting the oldest if full (returned); the order
    /// is left for the next settle (for `push_counted`).
    fn record(&mut self, code: u16) -> Option<u16> {
        let len = self.len as usize;
        self.unsettled = true;
        if len < N {
            // A new slot (`head` is 0 until the window is full), appended to the order: the
            // next settle moves it to its place.
            self.ring[len % N] = code;
            // `len < N <= 256` (checked at compile time), so it fits a byte.
            self.order[len % N] = len as u8;
            self.len += 1;
            return None;
        }
        // Full: the oldest slot takes the new sample, in its old place in the order until the
        // next settle.
        let slot = self.head as usize % N;
        let evicted = core::mem::replace(&mut self.ring[slot], code);
        self.head = ((slot + 1) % N) as u16;
        Some(evicted)
    }

    /// Adds a sample in microseconds, evicting the oldest if full. It is kept exactly below
    /// 4,096 µs, rounded down to 12 significant bits above, and saturates at `u32::MAX`.
    ///
    /// ```
    /// # use limiter_core::MedianWindow;
    /// let mut w = MedianWindow::<2>::new();
    /// w.push(4_095);
    /// assert_eq!(w.max(), Some(4_095));
    /// w.push(1_000_003); // 20 significant bits: the last 8 are dropped
    /// assert_eq!(w.max(), Some(999_936));
    /// ```
    pub fn push(&mut self, micros: u64) {
        // Writes the ring as `record` does, spelled out: through `record` (and its evicted
        // sample, unused here) the Cortex-M0 image is 100 bytes larger, past its budget.
        if LAZY_ORDER {
            self.settle(); // after samples added by `push_counted`
        }
        let sample = encode(saturating_u32(micros));
        let len = self.len as usize;
        if len < N {
            // A new slot (`head` is 0 until the window is full), appended to the order and
            // moved down to its place.
            let slot = (self.head as usize + len) % N;
            self.ring[slot] = sample;
            // `slot < N <= 256` (checked at compile time), so it fits a byte.
            self.order[len] = slot as u8;
            self.len += 1;
            self.reorder(len, len + 1);
            return;
        }
        // Full: the oldest slot takes the new sample and moves from its place in the order to
        // its new one.
        let slot = self.head as usize % N;
        self.ring[slot] = sample;
        if let Some(at) = self.order.iter().position(|&i| usize::from(i) == slot) {
            self.reorder(at, N);
        }
        self.head = ((slot + 1) % N) as u16;
    }

    /// Adds a sample as [`push`](Self::push) does, and keeps `count` of the samples below its
    /// mark, without ordering: O(1). The order waits for [`settle`](Self::settle), which
    /// [`median_if_below`](Self::median_if_below) calls only when the count leaves the answer
    /// open.
    // Inlined into the sample of a controller built in another crate, off microcontrollers.
    #[cfg_attr(not(target_os = "none"), inline)]
    pub(crate) fn push_counted(&mut self, micros: u64, count: &mut BelowMark) {
        let code = encode(saturating_u32(micros));
        let evicted = self.record(code);
        if !LAZY_ORDER {
            self.settle();
        }
        let mark = count.mark;
        if mark != NO_MARK {
            let left = evicted.is_some_and(|old| decode(old) < mark);
            let came = decode(code) < mark;
            count.below = (count.below + u16::from(came)).wrapping_sub(u16::from(left));
        }
    }

    /// The median, if it is below `count`'s mark (any median if there is none); the order is
    /// settled only when the count of samples below the mark leaves the answer open.
    ///
    /// Why a count answers: an odd number `len` of samples has its median below the mark exactly
    /// when more than `len / 2` of them are; an even number when the upper middle one is (more
    /// than `len / 2` below), never when the lower middle one is not (fewer than `len / 2`), and
    /// with exactly `len / 2` below, the mean of the two middle ones decides.
    pub(crate) fn median_if_below(&mut self, count: BelowMark) -> Option<u32> {
        let (len, below) = (usize::from(self.len), usize::from(count.below));
        if count.mark != NO_MARK && (below < len / 2 || (below == len / 2 && len % 2 == 1)) {
            return None;
        }
        self.settle();
        let median = self.median()?;
        // Every median is below `NO_MARK`: the largest sample kept is 0xFFF0_0000.
        (median < count.mark).then_some(median)
    }

    /// The median: the middle sample, or the mean of the two middle samples (rounded down).
    pub fn median(&self) -> Option<u32> {
        let len = self.len as usize;
        if len == 0 {
            return None;
        }
        let hi = self.at_rank(len / 2);
        if len % 2 == 1 {
            Some(hi)
        } else {
            let lo = self.at_rank(len / 2 - 1);
            Some(lo + (hi - lo) / 2)
        }
    }

    /// The nearest-rank quantile at `permille` thousandths (0 is the minimum, 1000 and above the
    /// maximum): the smallest sample such that at least `permille`‰ of the samples are ≤ it.
    ///
    /// ```
    /// # use limiter_core::MedianWindow;
    /// let mut w = MedianWindow::<100>::new();
    /// for micros in 1..=100 {
    ///     w.push(micros);
    /// }
    /// assert_eq!(w.quantile_permille(950), Some(95));
    /// assert_eq!(w.quantile_permille(0), Some(1));
    /// ```
    pub fn quantile_permille(&self, permille: u16) -> Option<u32> {
        let len = self.len as usize;
        if len == 0 {
            return None;
        }
        let p = usize::from(permille.min(1_000));
        let rank = (p * len).div_ceil(1_000).max(1);
        Some(self.at_rank(rank - 1))
    }

    /// Whether the window is full and its samples spread widely: the one at rank `3N / 4` (from
    /// 0, the smallest) is more than 1.5 times the one at rank `N / 8`, or than `floor` if
    /// that is more (below a floor, differences are the clock's resolution); more than 1.25
    /// times if the caller found it `already` spread. A long upper tail usually comes with such
    /// a spread; the lower bar for a window already found spread keeps one from being judged
    /// narrow by the luck of 32 samples (with service times of 10 ms plus an exponential 10 ms,
    /// less the calls over twice a 15 ms baseline that the window leaves out, the two ranks are
    /// about 1.8 apart by the distribution; in the simulator's heavy-tail, seed 3, 20 of the
    /// compact AIMD's 47 cuts came with a window under 1.5).
    ///
    /// A knee that doubles the latency fills the window with its tries' calls, just under the
    /// congestion threshold, and is judged spread too: the simulator's `capacity-rise` (latency
    /// doubles at the 9th call in flight), seed 22, cut three times by latency on a window
    /// judged spread in 2.3 to 3.9 s, so with no dwell, and tried its knee about once a second
    /// (p95 1.73 to 1.75 times the oracle's on seeds 4, 18 and 22). The median against rank
    /// `N / 8` instead (1.25 times, 1.125 if `already`), which such a window's lower half does
    /// not reach: over seeds 1 to 24 of `capacity-rise`, `heavy-tail`, `hang`, `hang-low`,
    /// `slow-no-429`, `capacity-drop`, `shared-10-linear` and `fairness`, `heavy-tail` 95.5 →
    /// 90.7 % of the oracle's goodput (every bar on 23 → 18 seeds), `capacity-rise` 87.8 →
    /// 88.3 % (17 → 15): an exponential tail's lower half is narrower than its spread. Not kept.
    /// Nor the same ranks among the samples within the growth band only (where at least half
    /// the window is): `heavy-tail` 28.5 % (its tail is what the band leaves out, and its cuts
    /// then all dwell), `capacity-rise` 88.3 % as well.
    pub(crate) fn spreads(&self, floor: u32, already: bool) -> bool {
        let low = self.at_rank(N / 8).max(floor);
        let margin = if already { low / 4 } else { low / 2 };
        self.is_full() && low.saturating_add(margin) < self.at_rank(3 * N / 4)
    }

    /// The smallest sample held.
    pub fn min(&self) -> Option<u32> {
        (self.len > 0).then(|| self.at_rank(0))
    }

    /// The largest sample held.
    pub fn max(&self) -> Option<u32> {
        (self.len > 0).then(|| self.at_rank(self.len as usize - 1))
    }

    /// The samples held, ascending.
    pub fn sorted(&self) -> impl Iterator<Item = u32> + '_ {
        (0..self.len as usize).map(|rank| self.at_rank(rank))
    }
}

/// The minimum latency seen over a sliding time period, refreshed so it cannot go stale.
///
/// Time is cut into epochs of length `period`, back to back (after two periods or more without a
/// push or a rotation, a new epoch starts at the next one). The minimum reported is the smaller of the current
/// and the previous epoch's minima, so it always covers between one and two periods of history.
/// A minimum seen once, long ago (a lucky cached response before a deploy made everything
/// slower), therefore ages out after at most two periods instead of pinning the baseline forever,
/// while sustained queueing has to persist for a whole period before it can raise the baseline.
///
/// Times are explicit; a clock that goes backwards never rotates epochs and never panics.
///
/// # Examples
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Instant, WindowedMin};
///
/// let mut min = WindowedMin::new(Duration::from_secs(10));
/// min.push(Instant::from_millis(0), 5_000);
/// min.push(Instant::from_millis(1_000), 9_000);
/// assert_eq!(min.get(), Some(5_000));
/// // Two whole periods later the old 5 ms has aged out.
/// min.push(Instant::from_millis(21_000), 9_000);
/// assert_eq!(min.get(), Some(9_000));
/// ```
#[derive(Clone, Debug)]
pub struct WindowedMin {
    period_micros: u64,
    epoch_start: crate::time::clock::Instant,
    current: Option<u32>,
    previous: Option<u32>,
}

impl WindowedMin {
    /// A windowed minimum refreshed every `period` (a zero period is taken as one microsecond).
    pub const fn new(period: core::time::Duration) -> Self {
        let micros = crate::time::clock::duration_to_micros(period);
        WindowedMin {
            period_micros: if micros == 0 { 1 } else { micros },
            epoch_start: crate::time::clock::Instant::ZERO,
            current: None,
            previous: None,
        }
    }

    /// Records a sample taken at `now`.
    pub fn push(&mut self, now: crate::time::clock::Instant, micros: u64) {
        self.rotate(now);
        let sample = saturating_u32(micros);
        self.current = Some(self.current.map_or(sample, |m| m.min(sample)));
    }

    /// Moves the epochs forward to `now` without a sample (so an idle period also ages the
    /// minimum).
    // Two callers in a controller: one copy on a microcontroller; inlined elsewhere, where it
    // runs on every sample.
    #[cfg_attr(target_os = "none", inline(never))]
    pub fn rotate(&mut self, now: crate::time::clock::Instant) {
        let elapsed = now.micros_since(self.epoch_start);
        if elapsed < self.period_micros {
            return;
        }
        if elapsed - self.period_micros < self.period_micros {
            // The next epoch: the current one becomes the previous.
            self.previous = self.current;
            self.epoch_start = self.epoch_start.saturating_add_micros(self.period_micros);
        } else {
            // Two periods or more without a sample: both epochs are over, and a new one starts
            // now (no division needed to find where a grid of epochs would have put it).
            self.previous = None;
            self.epoch_start = now;
        }
        self.current = None;
    }

    /// The minimum of the current epoch alone.
    pub(crate) const fn current(&self) -> Option<u32> {
        self.current
    }

    /// The minimum over the current and previous epochs.
    // Inlined into the sample of a controller built in another crate, off microcontrollers.
    #[cfg_attr(not(target_os = "none"), inline)]
    pub fn get(&self) -> Option<u32> {
        match (self.current, self.previous) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.current = None;
        self.previous = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::clock::Instant;
    use core::time::Duration;
    use std::vec::Vec;

    /// A tiny deterministic generator (xorshift), enough to vary samples without a dependency.
    fn xorshift(state: &mut u64) -> u64 {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    }

    /// What the window should keep of `micros`, written without the codes: saturated to 32
    /// bits, then every bit below the 12 most significant ones cleared.
    fn kept(micros: u64) -> u32 {
        let v = u32::try_from(micros).unwrap_or(u32::MAX);
        let dropped = (32 - v.leading_zeros()).saturating_sub(12);
        v >> dropped << dropped
    }

    #[test]
    fn codes_are_ordered_and_round_down_by_under_one_part_in_2048() {
        let mut previous = None;
        for code in 0..=encode(u32::MAX) {
            let value = decode(code);
            assert_eq!(encode(value), code, "code {code} is the code of its value");
            assert!(
                previous.is_none_or(|p| p < value),
                "code {code} above code {}",
                code - 1
            );
            previous = Some(value);
        }
        let mut rng = 7;
        for v in (0..10_000).chain((0..10_000).map(|_| xorshift(&mut rng) as u32)) {
            let stored = decode(encode(v));
            assert_eq!(stored, kept(u64::from(v)));
            assert!(
                stored <= v && u64::from(v - stored) * 2048 <= u64::from(v),
                "{v} -> {stored}"
            );
        }
        assert_eq!(decode(encode(u32::MAX)), 0xFFF0_0000);
    }

    /// The median of sorted samples as the window defines it: the middle one, or the mean of
    /// the two middle ones rounded down.
    fn median_of(sorted: &[u32]) -> Option<u32> {
        let n = sorted.len();
        (n > 0).then(|| {
            if n % 2 == 1 {
                sorted[n / 2]
            } else {
                u64::midpoint(u64::from(sorted[n / 2 - 1]), u64::from(sorted[n / 2])) as u32
            }
        })
    }

    /// Adds what a window of `n` keeps of `micros` to `reference`, dropping its oldest past `n`.
    fn keep(reference: &mut Vec<u32>, micros: u64, n: usize) {
        reference.push(kept(micros));
        if reference.len() > n {
            reference.remove(0);
        }
    }

    fn check_against_sorting<const N: usize>(seed: u64, range: u64) {
        let mut w = MedianWindow::<N>::new();
        let mut reference: Vec<u32> = Vec::new();
        let mut rng = seed;
        for _ in 0..if cfg!(miri) { 100 } else { 2_000 } {
            let v = xorshift(&mut rng) % range;
            w.push(v);
            keep(&mut reference, v, N);
            let mut sorted = reference.clone();
            sorted.sort_unstable();
            assert!(w.sorted().eq(sorted.iter().copied()));
            let n = sorted.len();
            assert_eq!(w.median(), median_of(&sorted));
            assert_eq!(w.min(), sorted.first().copied());
            assert_eq!(w.max(), sorted.last().copied());
            for p in [0u16, 1, 250, 500, 900, 950, 990, 999, 1_000, 5_000] {
                let rank = ((usize::from(p.min(1000)) * n).div_ceil(1000)).max(1);
                assert_eq!(w.quantile_permille(p), Some(sorted[rank - 1]));
            }
        }
    }

    /// Pushes (with and without the count), settles, clears and marks in a random mix: after
    /// each step the count below the mark, the median if below it, and every read on the
    /// unsettled and the settled window equal what sorting the samples gives.
    fn check_marks<const N: usize>(seed: u64, range: u64) {
        let mut w = MedianWindow::<N>::new();
        let mut count = BelowMark::new();
        let mut reference: Vec<u32> = Vec::new();
        let mut mark: Option<u32> = None;
        let mut rng = seed;
        for _ in 0..if cfg!(miri) { 60 } else { 5_000 } {
            let roll = xorshift(&mut rng) % 100;
            let v = xorshift(&mut rng) % range;
            match roll {
                0 => {
                    // A cleared window starts a new count.
                    w.clear();
                    reference.clear();
                    count = BelowMark::new();
                    mark = None;
                }
                1..=10 => {
                    // Often a value held (a mark at a sample), sometimes any or none.
                    mark = match roll {
                        1 => None,
                        2..=5 => Some(u32::try_from(v).unwrap_or(u32::MAX)),
                        _ => reference.get(v as usize % N).copied().or(Some(0)),
                    };
                    count.set(&w, mark);
                }
                11..=20 => w.settle(),
                21..=25 => {
                    // A plain push, after which the count starts again.
                    w.push(v);
                    count = BelowMark::new();
                    mark = None;
                    keep(&mut reference, v, N);
                }
                _ => {
                    w.push_counted(v, &mut count);
                    keep(&mut reference, v, N);
                }
            }
            let mut sorted = reference.clone();
            sorted.sort_unstable();
            assert_eq!(count.mark, mark.unwrap_or(u32::MAX));
            if let Some(m) = mark {
                let below = sorted.iter().filter(|&&s| s < m).count();
                assert_eq!(usize::from(count.below), below, "{sorted:?} below {m}");
            }
            let n = sorted.len();
            let median = median_of(&sorted);
            assert_eq!(w.median(), median);
            let rank = v as usize % N;
            assert_eq!(w.quantile_permille(0), sorted.first().copied());
            if rank < n {
                assert_eq!(w.at_rank(rank), sorted[rank]);
            }
            let mut settled = w.clone();
            settled.settle();
            assert!(settled.sorted().eq(sorted.iter().copied()));
            let expected = median.filter(|&m| mark.is_none_or(|mark| m < mark));
            assert_eq!(
                w.clone().median_if_below(count),
                expected,
                "{sorted:?} {mark:?}"
            );
        }
    }

    #[test]
    fn the_count_below_a_mark_answers_whether_the_median_is_below_it() {
        check_marks::<1>(11, 10);
        check_marks::<2>(12, 5);
        check_marks::<7>(13, 20);
        // Under miri, which interprets every step, the small windows only: their reads of an
        // unsettled order count ranks in O(N²).
        if !cfg!(miri) {
            check_marks::<32>(14, 50);
            check_marks::<32>(15, 10_000_000);
            check_marks::<33>(16, 3);
        }
    }

    #[test]
    fn matches_a_sort_based_reference() {
        check_against_sorting::<1>(1, 100);
        check_against_sorting::<2>(2, 5);
        check_against_sorting::<7>(3, 10);
        check_against_sorting::<32>(4, 1_000_000);
        check_against_sorting::<33>(5, 3);
        check_against_sorting::<200>(6, u64::MAX);
    }

    #[test]
    fn a_window_spreads_past_one_and_a_half_and_stays_spread_past_one_and_a_quarter() {
        let mut w = MedianWindow::<32>::new();
        // Ranks 0-7 at 1,000 µs, 8-23 at 1,200, 24-31 at `upper`.
        let fill = |w: &mut MedianWindow<32>, upper: u64| {
            for i in 0..32 {
                w.push(match i {
                    0..8 => 1_000,
                    8..24 => 1_200,
                    _ => upper,
                });
            }
        };
        fill(&mut w, 1_400);
        assert_eq!([w.spreads(0, false), w.spreads(0, true)], [false, true]);
        fill(&mut w, 1_250);
        assert_eq!([w.spreads(0, false), w.spreads(0, true)], [false, false]);
        fill(&mut w, 1_501);
        assert_eq!([w.spreads(0, false), w.spreads(0, true)], [true, true]);
        // Below the floor, differences do not count.
        assert!(!w.spreads(1_300, true));
        // Nor in a window that is not full.
        w.clear();
        w.push(1_000);
        w.push(9_000);
        assert!(!w.spreads(0, true));
    }

    #[test]
    fn huge_samples_saturate() {
        let mut w = MedianWindow::<3>::new();
        w.push(u64::MAX);
        w.push(u64::from(u32::MAX) + 1);
        assert_eq!(w.median(), Some(kept(u64::MAX)));
        assert_eq!(w.min(), Some(0xFFF0_0000));
    }

    #[test]
    fn clear_empties() {
        let mut w = MedianWindow::<3>::new();
        w.push(1);
        w.clear();
        assert!(w.is_empty());
        assert_eq!(w.median(), None);
        assert_eq!(w.quantile_permille(500), None);
    }

    #[test]
    fn windowed_min_refreshes_and_tolerates_backwards_time() {
        let mut m = WindowedMin::new(Duration::from_millis(100));
        assert_eq!(m.get(), None);
        m.push(Instant::from_millis(10), 50);
        m.push(Instant::from_millis(150), 70); // next epoch: previous keeps 50
        assert_eq!(m.get(), Some(50));
        m.push(Instant::from_millis(250), 80); // 50 ages out
        assert_eq!(m.get(), Some(70));
        m.push(Instant::from_millis(5), 90); // backwards: no rotation, no panic
        assert_eq!(m.get(), Some(70));
        m.rotate(Instant::from_millis(1_000)); // long idle: everything ages out
        assert_eq!(m.get(), None);
        m.push(Instant::MAX, 1);
        assert_eq!(m.get(), Some(1));
        let mut zero = WindowedMin::new(Duration::ZERO);
        zero.push(Instant::from_micros(3), 4);
        assert_eq!(zero.get(), Some(4));
    }
}
