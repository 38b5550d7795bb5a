//! What a cut round kept: how deep the next cut goes after a round that lost most of its calls.
//!
//! One cut per round trip is the contract: a refusal of a call admitted before the last cut
//! does not cut again. But those refusals still say something. When a quota falls from 50 calls
//! per window to 5, the round in flight at the cut (50 calls) brings back 45 refusals; a cut by
//! the backoff (0.8) leaves 40, the next round refuses 35, and so on: 0.8 per round trip needs
//! about ten round trips and 200 refusals to reach 5, where one round trip of refusals (45) is
//! all a causal controller must take.
//!
//! So a cut also opens a **tally** of its round: the most calls in flight any of its refusals
//! was admitted with, and how many of its calls were refused, stale or not. If the *next* round
//! is cut too, and within its first `limit` successes (the first cut was not enough, and soon),
//! that cut goes at least down to what the tallied round kept, `round - refused` (at the floor
//! if nothing was kept): 50 in flight, 45 refused, so 5. The stale refusals never cut on their
//! own, so there is still at most one cut per round trip; they only size the next one. TCP's
//! proportional rate reduction (RFC 6937) makes the same use of what a lossy round delivered.
//!
//! In the simulator (`cargo run --release -p limiter-sim`): drop-and-recover 222 refusals → 128,
//! oscillating 543 → 370, quota-phases 155 → 112, retry-storm 266 → 228, at the same goodput
//! (±1 %). Among 100 or 1000 clients behind one knee that refuses past a hard cap
//! (shared-100-linear), a round often keeps little of itself and the next cut goes deep:
//! goodput 21 % → 18 % of the oracle's, a scenario no independent controller gets near.
//!
//! Such a cut, by a quick refusal, also sets the knee (the module `knee`) at one above what
//! the tallied round kept, not at the calls in flight when the refused call was admitted: after
//! a quota falls from 50 to 5, those were admitted at the old level, and a knee there would
//! bring the limit straight back towards it (below a quick refusal's knee the limit returns
//! fast) into another round of refusals.
//!
//! **Unless the refusal contradicts it.** A quick refusal of a call admitted with no more calls
//! in flight than the tallied round kept says the dependency now refuses a concurrency it
//! served a round ago: the refusals were not a level. That is a budget spent for the rest of its
//! window (a quota of 500 calls per second, spent at 0.9 s: the tallied round kept the calls the
//! budget had left, the next is refused from its first call until the window resets), not a
//! quota per round trip that fell (50 to 5: the next round keeps its 5 again and is refused past
//! them). Such a cut is not sized by the tally: it cuts by its own factor. In the simulator's
//! `quota-window` (seeds 1 / 2 / 3 alike) the second cut of each spent window went from 49 to
//! the 25 the first round had kept, and the limit climbed back for most of the next window:
//! 82.5 → 85.0 % of the oracle's goodput, refusals 5.9 → 4.6 % of the calls served. Nothing
//! else moved on seeds 1 to 3 but `shared-quota-10` (ten clients on one quota: Jain's index over
//! the second half 0.93 / 0.95 → 0.91 / 0.96 on seeds 1 / 2; seeds 4 to 7 unchanged but 7,
//! 0.96 → 0.91; started fast, 0.95 → 0.89 on seed 1, goodput 93.7 → 93.0 %, and 92.3 → 93.2 %
//! on seed 3), where a client's refusals depend on the others' calls as much as on its own.
//! Measured and not kept: a refused return to the level served before a fall (see
//! `Knee::return_to`) taken to have kept at least the unit below the knee it left. The return
//! sends a burst, and under a quota per tick a burst that lands in a spent tick keeps nothing,
//! so the next cut went to the floor (the simulator's `quota-jitter`, seed 1, `--trace AIMD`:
//! 7 → 47 at 9.18 s, 37 at the first refusal, 1 at the next). With the floor, seeds 1 to 6 of
//! `bash scripts/sim-seeds.sh`: quota-jitter 74.1 → 75.2 % of the oracle's goodput, but
//! shared-quota-10 met every bar on 3 → 2 seeds and shared-quota-hints-10 on 5 → 3 (162 rows of
//! 216 against 165); seeds 7 to 12, 165 rows against 164 and quota-jitter unchanged; over where
//! the quota's return falls (`cargo run --release -p limiter-sim --example return-phase`),
//! quota-jitter 74.8 % either way, refusals 4.1 → 3.9 % of the calls served.
//!
//! A round that kept nothing (an outage that refuses every call) is still sized: no call is
//! admitted with fewer than none in flight.
//!
//! Noise cannot use it: a round that kept more than the backoff's share of itself (a few random
//! refusals) gives a bound above the backoff's cut, which then decides; and a cut that comes a
//! round or more after the last finds no tally. A drain, which changes the epoch without a cut,
//! closes the tally too.

use super::Epoch;
use crate::signal::outcome::Outcome;

/// The tally of the last cut round (see the module's documentation).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tally {
    /// The epoch the last cut ended.
    epoch: Epoch,
    /// The limit the cut set, at least 1; 0: no cut yet.
    limit: u32,
    /// The most calls in flight any of the round's refusals was admitted with.
    round: u32,
    /// The round's refusals.
    refused: u32,
    /// Successes of the round after the cut so far.
    next_ok: u32,
}

impl Tally {
    /// No cut yet: nothing tallied.
    pub(crate) const fn new() -> Self {
        Tally {
            epoch: Epoch(0),
            limit: 0,
            round: 0,
            refused: 0,
            next_ok: 0,
        }
    }

    /// Counts a sample admitted under `admitted`, with `in_flight` in flight, that completed
    /// while the controller is at epoch `current`: a refusal of the tallied round, or a success
    /// of the round after it.
    // Inlined into the sample of a controller built in another crate, off microcontrollers.
    #[cfg_attr(not(target_os = "none"), inline)]
    pub(crate) fn sample(
        &mut self,
        admitted: Epoch,
        current: Epoch,
        in_flight: u32,
        outcome: Outcome,
    ) {
        if self.limit == 0 {
            return;
        }
        let next = Epoch(self.epoch.0.wrapping_add(1));
        match outcome {
            Outcome::Overload if admitted == self.epoch && admitted != current => {
                self.refused = self.refused.saturating_add(1);
                self.round = self.round.max(in_flight);
            }
            Outcome::Success if admitted == current && current == next => {
                self.next_ok = self.next_ok.saturating_add(1);
            }
            _ => {}
        }
    }

    /// What the previous cut's round kept, for a cut of epoch `epoch`: known if this is the
    /// round right after it and the cut comes within its first `limit` successes (`limit` as
    /// that cut set it).
    pub(crate) fn kept(&self, epoch: Epoch) -> Option<u32> {
        let next = Epoch(self.epoch.0.wrapping_add(1));
        (epoch == next && self.next_ok < self.limit)
            .then(|| self.round.saturating_sub(self.refused))
    }

    /// [`Tally::kept`], for a cut of epoch `epoch` on a signal admitted with `in_flight` in
    /// flight, unless the signal is a quick refusal (`quick`) admitted with no more in flight
    /// than that: a level the round before served is refused now, and its refusals were not a
    /// level (see the module's documentation).
    pub(crate) fn sizes(&self, epoch: Epoch, in_flight: u32, quick: bool) -> Option<u32> {
        self.kept(epoch).filter(|&kept| !quick || in_flight > kept)
    }

    /// Tallies the round of epoch `epoch`, just cut to `limit` on a signal admitted with
    /// `in_flight` in flight (`refused`: the signal is a refusal).
    pub(crate) fn open(&mut self, epoch: Epoch, limit: u32, in_flight: u32, refused: bool) {
        *self = Tally {
            epoch,
            limit: limit.max(1),
            round: in_flight,
            refused: u32::from(refused),
            next_ok: 0,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_round_that_lost_most_of_its_calls_sizes_the_next_cut() {
        let mut tally = Tally::new();
        // No tally before the first cut.
        assert_eq!(tally.kept(Epoch(0)), None);
        tally.open(Epoch(0), 40, 50, true);
        // 44 more refusals of epoch 0 come back after the cut (the controller is at 1).
        for _ in 0..44 {
            tally.sample(Epoch(0), Epoch(1), 50, Outcome::Overload);
        }
        // The next round: 5 successes, then a refusal cuts epoch 1.
        for _ in 0..5 {
            tally.sample(Epoch(1), Epoch(1), 40, Outcome::Success);
        }
        assert_eq!(tally.kept(Epoch(1)), Some(5));
        // A refusal past those 5 is sized by them, as a latency signal at any level is.
        assert_eq!(tally.sizes(Epoch(1), 6, true), Some(5));
        assert_eq!(tally.sizes(Epoch(1), 3, false), Some(5));
        // A quick refusal at 5 in flight or fewer: a level just served is refused, not sized.
        assert_eq!(tally.sizes(Epoch(1), 5, true), None);
        assert_eq!(tally.sizes(Epoch(1), 1, true), None);
    }

    #[test]
    fn a_cut_a_round_later_or_after_a_drain_finds_no_tally() {
        let mut tally = Tally::new();
        tally.open(Epoch(0), 8, 10, true);
        for _ in 0..7 {
            tally.sample(Epoch(1), Epoch(1), 8, Outcome::Success);
        }
        assert_eq!(tally.kept(Epoch(1)), Some(9));
        // Eight successes after a cut to 8: a whole round went by.
        tally.sample(Epoch(1), Epoch(1), 8, Outcome::Success);
        assert_eq!(tally.kept(Epoch(1)), None);
        // A drain moved the epoch from 1 to 2: the cut of 2 is not the round after 0's.
        assert_eq!(tally.kept(Epoch(2)), None);
    }

    #[test]
    fn refusals_count_only_for_the_tallied_round_and_saturate() {
        let mut tally = Tally::new();
        tally.open(Epoch(u32::MAX), 3, 4, false);
        // Current-epoch refusals, older rounds' and ignored outcomes are not the tally's.
        tally.sample(Epoch(0), Epoch(0), 9, Outcome::Overload);
        tally.sample(Epoch(7), Epoch(0), 9, Outcome::Overload);
        tally.sample(Epoch(u32::MAX), Epoch(0), 9, Outcome::Ignore);
        assert_eq!(tally.kept(Epoch(0)), Some(4));
        tally.open(Epoch(0), 3, 4, true);
        // More refusals than the round had keep nothing: the floor.
        for _ in 0..10 {
            tally.sample(Epoch(0), Epoch(1), 3, Outcome::Overload);
        }
        assert_eq!(tally.kept(Epoch(1)), Some(0));
        // A round that kept nothing sizes every refusal: none comes with fewer in flight.
        assert_eq!(tally.sizes(Epoch(1), 1, true), Some(0));
    }
}
