//! A client's share of a provider's quota, from the remaining-calls count its answers state:
//! what scales the stated pace (rule 8 of the module `probe`) when the quota is an account's
//! that several clients spend.
//!
//! A provider's remaining-quota headers count the *account's* calls. The pace they state, the
//! concurrency that spends the calls left by the reset, is therefore the whole account's: ten
//! services on one API key each read the pace of all ten. Taken as its own, each client jumped to
//! ten times its part, the account spent its window early, and every call after that was refused
//! until the reset: the simulator's `shared-quota-hints-10` (ten clients, one quota of 2,000
//! calls per second, stated with every answer) refused 21 to 24 % as many calls as it served.
//!
//! The count tells the client its part, though. Between two answers the count falls by the
//! calls the whole account made, and the client knows how many of those were its own. So it
//! keeps, for the current window:
//!
//! - a **mark**: the count of the first answer it saw in the window, and the lowest count seen
//!   since;
//! - its **own** answers that stated a count since the mark.
//!
//! Its **share** is `own / (mark - lowest)` in 65,536ths (rounded down, at least one, at most
//! a whole), measured once it has four answers of its own in the window and the count has
//! fallen (an answer carries the count from when the provider served it, and answers come back
//! in about that order, so the answers after the mark are the client's calls served after it;
//! a window's first two or three would replace a share measured over a whole window with a
//! noisy one). A count above the lowest by more than half of what the window has spent, and
//! one, is a new window: the count only falls within one, answers that overtake each other move
//! it by far less, and two answers served one after the other and returned in the other order
//! differ by one. The measure starts again there; the last share stands until the new one is
//! made. A count below the lowest by more than half of the mark, at once, is an answer served
//! before the reset that came back after the new window's first answers: it is left out (taken
//! in, its low count made the client's share of the new window all but nothing).
//!
//! A stated pace `P`, with its count, then means the client's **part** of it: the pace itself at
//! a share of 15/16 or more (the client is alone), else `⌈P × share⌉`.
//!
//! 1. **The part is a ceiling.** No growth passes it, and a limit above it is lowered to it,
//!    once per round trip, as a decrease without a cut (a new epoch, growth held for the
//!    cooldown): the account is spending faster than its quota allows until the reset, and each
//!    client slows in proportion to what it spends. A client alone reads its own pace, and it
//!    too spends its window evenly instead of in a burst refused until the reset.
//! 2. **Only a client alone jumps to it.** A growth sample goes straight to the pace at a share
//!    of 15/16 or more, as before. A client that shares the quota goes straight only to its
//!    part and at most back to the highest level a ceiling lowered it from in the last window
//!    that lowered it (at a window's end the part left is small; at the reset it is whole
//!    again). A jump to its part alone would multiply every client's share by the same factor
//!    and keep whatever unevenness their start left; without such jumps growth above the
//!    level held is additive, the same for every client, which is what evens AIMD's shares out.
//!
//! Until a share is measured, a stated pace is taken as the client's own, as it was before: a
//! growth sample goes straight to it, and it lowers nothing. So it is where no count is stated (a
//! caller that sets [`Sample::pace`](crate::Sample::pace) only), and where the count never falls
//! (a quota that refills as fast as it is spent).
//!
//! Seeds 1 to 9 of `cargo run --release -p limiter-sim -- --format json --seed N --scenario
//! shared-quota-hints-10`, the default AIMD, means over the nine seeds (goodput against the
//! oracle's; refusals against the calls served; Jain's index over the converged window, and
//! over the whole run): before the share 96.7 %, 22.9 %, 0.937, 0.976 (every seed over 5 % of
//! refusals); with it 92.6 %, 2.3 %, 0.963, 0.948 (refusals 1.1 to 3.1 % on every seed; goodput
//! under 90 % on seed 2 only, 87.6 %; the converged index 0.948 and 0.945 on seeds 1 and 4, at
//! least 0.953 on the others: every bar met on six seeds of nine, none before). Measured while
//! building it: with a share from two answers and the late answer taken in, 92.0 %, 3.2 %,
//! 0.965 but 0.899 over the whole run (the noisy shares of a window's first answers, and the
//! late ones, lowered some clients far below the others); a jump to the part with no bound,
//! Jain's index 0.874 to 0.962 over the converged window on seeds 1 to 3; the bound at the
//! level the last ceiling lowered rather than the window's highest, 90.8 % of goodput; no jump
//! before a share is measured, 90.7 % and a whole-run index of 0.75 to 0.91; a ceiling one
//! above the part, 93.5 % with 4.1 % of refusals; a cut by the backoff towards the part
//! rather than to it (as a refusal would cut), 91.7 % and a whole-run index of 0.97, but 6.1 %
//! of refusals. `quota-window-hints` (one client, 500 calls per 1 s window): refusals 3.4 →
//! 0.8 % of the calls served, goodput 97.3 → 99.3 % of the oracle's. No other row of the suite
//! moved on seeds 1 to 3 but the `AIMD fast start` ones of the same two scenarios.
//!
//! Every answer with a count counts, an ignored one (a client error) too: most providers count
//! those calls, and left out they would read the share low by the client's part of errors (a
//! client alone with one call in sixteen refused as bad would have been taken for one that
//! shares its quota). The ignored answer still moves no limit.
//!
//! What it does not see: a quota that falls to less than half between two windows (the new
//! window's count rises less than half of what the last one spent, and the measure goes on,
//! its share growing towards a whole). A share read too high makes the ceiling looser and, at
//! a whole, the pace the client's own, as it was before the share.
//!
//! All integer: one 64-bit product and one 64-bit division per answer with a count.

use crate::num::divide::div_u64;

/// The share of 15/16 or more at which a client takes the pace as its own (rule 2).
const ALONE: u32 = 61_440;

/// The client's answers after the mark that measure a share (a window's first few would
/// replace a share measured over a whole window with a noisy one).
const MEASURED: u32 = 4;

/// One whole share, 16.16.
const WHOLE: u32 = 1 << 16;

/// What a client has seen of its provider's remaining-calls count (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct QuotaShare {
    /// The count the window's measure started from; 0: none yet.
    mark: u32,
    /// The lowest count seen since the mark.
    lowest: u32,
    /// The client's own answers with a count since the mark.
    own: u32,
    /// The client's share of the account's calls, 16.16, at most one whole; 0: not measured.
    share: u32,
    /// The highest limit a ceiling lowered in this window; 0: none.
    lowered_from: u32,
    /// The highest level a ceiling lowered the limit from in the last window; 0: none.
    back_to: u32,
}

impl QuotaShare {
    /// Nothing seen.
    pub(crate) const fn new() -> Self {
        QuotaShare {
            mark: 0,
            lowest: 0,
            own: 0,
            share: 0,
            lowered_from: 0,
            back_to: 0,
        }
    }

    /// The client's share measured so far, 16.16 (0: none).
    #[cfg(test)]
    pub(crate) const fn share(&self) -> u32 {
        self.share
    }

    /// Notes an answer of the client's that stated `left` calls left in the window (0: it
    /// stated none, which changes nothing).
    pub(crate) fn observe(&mut self, left: u32) {
        if left == 0 {
            return;
        }
        let spent = self.mark - self.lowest;
        // Above the lowest by more than half the window's spending and one: a new window.
        if self.mark == 0 || left - self.lowest.min(left) > spent / 2 + 1 {
            // The first count, or a new window: the measure starts here.
            self.mark = left;
            self.lowest = left;
            if self.lowered_from > 0 {
                self.back_to = self.lowered_from;
                self.lowered_from = 0;
            }
            self.own = 0;
            return;
        }
        // Below the lowest by more than half of what was left at the mark, at once: an answer
        // served before the window reset that came back after its first answers. Left out.
        if self.lowest - left.min(self.lowest) > self.mark / 2 {
            return;
        }
        self.own = self.own.saturating_add(1);
        self.lowest = self.lowest.min(left);
        let spent = self.mark - self.lowest;
        if self.own >= MEASURED && spent > 0 {
            let share = div_u64(u64::from(self.own) << 16, u64::from(spent));
            self.share = share.clamp(1, u64::from(WHOLE)) as u32;
        }
    }

    /// The client's part of a stated `pace`: the pace itself once the client is alone, else
    /// `⌈pace × share⌉`; `None` before a share is measured.
    fn part(&self, pace: u32) -> Option<u32> {
        match self.share {
            0 => None,
            share if share >= ALONE => Some(pace),
            share => Some((u64::from(pace) * u64::from(share)).div_ceil(u64::from(WHOLE)) as u32),
        }
    }

    /// The level a growth sample may go straight to for a `pace` stated with `left` calls left
    /// (rule 2; 0: none): the pace where no count was stated, before a share is measured, or
    /// once the client is alone; where it shares the quota, its part, at most the highest level
    /// a ceiling lowered in the last window that lowered it (0, so no jump, before any).
    pub(crate) fn jump(&self, pace: u32, left: u32) -> u32 {
        match self.part(pace) {
            Some(part) if left != 0 && self.share < ALONE => part.min(self.back_to),
            _ => pace,
        }
    }

    /// The ceiling a `pace` stated with `left` calls left sets (rule 1): the client's part of
    /// it; `None` where nothing is stated or no share is measured yet.
    pub(crate) fn ceiling(&self, pace: u32, left: u32) -> Option<u32> {
        if pace == 0 || left == 0 {
            return None;
        }
        self.part(pace)
    }

    /// Notes that a ceiling lowered the limit from `limit` (for rule 2).
    pub(crate) fn lowered(&mut self, limit: u32) {
        self.lowered_from = self.lowered_from.max(limit);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A share of `own` of `spent`, 16.16.
    fn share_of(own: u64, spent: u64) -> u32 {
        ((own << 16) / spent) as u32
    }

    /// A share that has seen `counts`, in order.
    fn observed(counts: impl IntoIterator<Item = u32>) -> QuotaShare {
        let mut s = QuotaShare::new();
        counts.into_iter().for_each(|left| s.observe(left));
        s
    }

    #[test]
    fn the_share_is_the_clients_answers_over_the_accounts_calls() {
        // The mark, then three of its own.
        let mut s = observed([1_000, 996, 992, 988]);
        assert_eq!(s.share(), 0, "three answers of its own measure nothing yet");
        s.observe(984);
        // Four of its own answers while the account spent 16 calls.
        assert_eq!(s.share(), share_of(4, 16));
        // An answer that overtook an earlier one: the lowest stays, the count of own grows.
        s.observe(986);
        assert_eq!(s.share(), share_of(5, 16));
    }

    #[test]
    fn a_count_that_rises_past_half_the_windows_spending_starts_a_new_window() {
        let mut s = observed([1_000, 990, 980, 970, 960]);
        assert_eq!(s.share(), share_of(4, 40));
        // Up by 21, half the 40 spent and one: the same window (answers out of order).
        s.observe(981);
        assert_eq!(s.share(), share_of(5, 40));
        // Up by 22: a new window; the last share stands until the new one is measured.
        s.observe(982);
        assert_eq!(s.share(), share_of(5, 40));
        // Up by one from the new mark: the same window still; four of its own measure again.
        for left in [983, 980, 978] {
            s.observe(left);
            assert_eq!(s.share(), share_of(5, 40));
        }
        s.observe(976);
        assert_eq!(s.share(), share_of(4, 6));
    }

    #[test]
    fn an_answer_from_before_a_reset_that_comes_back_after_it_is_left_out() {
        let mut s = observed([1_000, 990, 980, 970, 960]);
        // The reset; then an answer served before it, with 12 left in the old window.
        for left in [1_995, 1_990, 12] {
            s.observe(left);
        }
        assert_eq!(s.share(), share_of(4, 40));
        for left in [1_985, 1_980, 1_975] {
            s.observe(left);
        }
        // Four of its own since the reset's mark, the late one not among them: a fifth.
        assert_eq!(s.share(), share_of(4, 20));
    }

    #[test]
    fn a_share_is_at_least_one_part_in_65_536_and_15_16_is_alone() {
        // Four answers of its own while the account spent 300,000: under one part in 65,536,
        // which is still a share measured (its part of any pace is one), not none.
        let s = observed([1_000_000, 999_999, 999_998, 999_997, 700_000]);
        assert_eq!(s.share(), 1);
        assert_eq!(s.ceiling(1_000, 700_000), Some(1));
        // Fifteen of sixteen: alone.
        let s = observed((986..=1_000).rev().chain([984]));
        assert_eq!(s.share(), ALONE);
        assert_eq!(s.jump(37, 984), 37);
    }

    #[test]
    fn the_level_to_go_back_to_outlives_a_window_that_lowered_nothing() {
        let mut s = observed([1_000, 990, 980, 970, 960]);
        s.lowered(35);
        // The next window lowers nothing: back to 35 at most (the part of 400 is 40).
        for left in [1_990, 1_980] {
            s.observe(left);
        }
        assert_eq!(s.jump(400, 1_980), 35);
        // Nor does the one after: the level stands.
        s.observe(2_990);
        assert_eq!(s.jump(400, 2_990), 35);
    }

    #[test]
    fn counts_at_the_top_of_the_range_neither_overflow_nor_panic() {
        let top = u32::MAX;
        let mut s = observed([top, top - 10, top - 20, top - 30, top - 40]);
        assert_eq!(s.share(), share_of(4, 40));
        // Far below at once: an answer from before a reset, left out.
        s.observe(1);
        assert_eq!(s.share(), share_of(4, 40));
        // The largest pace: its part, rounded up, in range.
        assert_eq!(s.ceiling(top, top - 40), Some(429_457_408));
    }

    #[test]
    fn a_share_is_at_most_whole() {
        // The count fell by one over three answers: a provider that counts otherwise.
        let mut s = observed([500, 500, 499, 499, 499]);
        assert_eq!(s.share(), WHOLE);
        // A count of 0 (nothing stated) changes nothing.
        s.observe(0);
        assert_eq!(s.share(), WHOLE);
    }

    #[test]
    fn a_shared_part_is_a_ceiling_and_the_next_window_goes_back_as_far_as_it_lowered() {
        // Four of 40: a tenth.
        let mut s = observed([1_000, 990, 980, 970, 960]);
        assert_eq!(s.jump(200, 960), 0, "nothing lowered yet: no jump");
        // A pace of 200 for the account: a part of 20, which lowers a limit of 35.
        assert_eq!(s.ceiling(200, 960), Some(20));
        s.lowered(35);
        // Later in the window the part is smaller: 2, which lowers the limit from 20.
        assert_eq!(s.ceiling(11, 50), Some(2));
        s.lowered(20);
        assert_eq!(s.jump(200, 960), 0, "no jump back within the window");
        // The next window: straight to its part, up to the highest level lowered in the last.
        s.observe(1_990);
        assert_eq!(s.jump(200, 1_990), 20);
        assert_eq!(s.jump(400, 1_990), 35);
    }

    #[test]
    fn a_client_alone_takes_the_pace_as_its_own() {
        // 16 of 17: over 15/16.
        let s = observed([
            1_000, 999, 998, 997, 996, 995, 994, 993, 992, 991, 990, 989, 988, 987, 985, 984, 983,
        ]);
        assert!(s.share() >= ALONE);
        assert_eq!(s.jump(37, 983), 37);
        assert_eq!(s.ceiling(37, 983), Some(37));
        // 14 of 15 is under 15/16: a client that shares the quota, and has not been lowered.
        let s = observed((987..=1_000).rev().chain([985]));
        assert_eq!(s.share(), share_of(14, 15));
        assert_eq!(s.jump(37, 985), 0);
        assert_eq!(s.ceiling(37, 985), Some(35)); // 37 × 14/15, rounded up
    }

    #[test]
    fn a_pace_without_a_share_is_the_clients_own_and_lowers_nothing() {
        let mut s = QuotaShare::new();
        assert_eq!(s.jump(50, 0), 50);
        assert_eq!(s.ceiling(5, 0), None);
        // With a count but no share measured yet: the pace is the client's own too, and lowers
        // nothing.
        s.observe(700);
        assert_eq!(s.jump(50, 700), 50);
        assert_eq!(s.ceiling(5, 700), None);
    }
}
