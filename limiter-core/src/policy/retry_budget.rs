//! [`RetryBudget`]: retries limited to a share of recent first attempts, so they cannot amplify
//! an overload.

use core::time::Duration;

use crate::config::ConfigError;
use crate::num::ratio::Ratio;
use crate::time::clock::Instant;
use crate::time::clock::duration_to_micros;
use crate::time::timeline::Timeline;

/// Allows a retry only while retries stay within `reserve + ratio × first attempts` over the last
/// one to two `period`s.
///
/// Record each first attempt with [`deposit`](RetryBudget::deposit) and ask before each retry
/// with [`try_withdraw`](RetryBudget::try_withdraw). The reserve lets a quiet client retry at
/// all; the ratio bounds amplification when many calls fail together (a retry storm): with a
/// ratio of 0.1, a burst of failures adds at most 10 % more attempts, however many fail. Counts
/// age out by periods, like [`crate::WindowedMin`], so the budget follows recent traffic. Time is
/// injected; a clock that goes backwards never ages anything.
///
/// Retries still go through the limiter like first attempts: the budget decides whether to
/// retry, the limiter when.
///
/// # Examples
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Instant, Ratio, RetryBudget};
///
/// let ten_percent = Ratio::from_fraction(1, 10).unwrap();
/// let mut budget = RetryBudget::new(ten_percent, 2, Duration::from_secs(10)).unwrap();
/// let now = Instant::from_millis(0);
/// for _ in 0..30 {
///     budget.deposit(now);
/// }
/// // 2 + 10 % of 30 = 5 retries, and no more.
/// assert_eq!((0..10).filter(|_| budget.try_withdraw(now)).count(), 5);
/// ```
#[derive(Clone, Debug)]
pub struct RetryBudget {
    ratio: Ratio,
    reserve: u32,
    period_micros: u64,
    /// Monotonic time from the readings, so a clock that jumps ahead and comes back cannot
    /// stop the periods from ageing.
    timeline: Timeline,
    epoch_start: Instant,
    /// First attempts in the previous and current period.
    deposits: [u64; 2],
    /// Retries in the previous and current period.
    withdrawals: [u64; 2],
}

impl RetryBudget {
    /// A budget of `reserve + ratio × first attempts` retries over the last one to two `period`s.
    /// The period must be above zero.
    pub fn new(ratio: Ratio, reserve: u32, period: Duration) -> Result<Self, ConfigError> {
        let period_micros = duration_to_micros(period);
        if period_micros == 0 {
            return Err(ConfigError::PeriodIsZero);
        }
        Ok(RetryBudget {
            ratio,
            reserve,
            period_micros,
            timeline: Timeline::new(),
            epoch_start: Instant::ZERO,
            deposits: [0; 2],
            withdrawals: [0; 2],
        })
    }

    /// Moves the periods forward to `now`.
    fn rotate(&mut self, now: Instant) {
        let now = Instant::from_micros(self.timeline.observe(now));
        let elapsed = now.micros_since(self.epoch_start);
        if elapsed < self.period_micros {
            return;
        }
        let periods = crate::num::divide::div_u64(elapsed, self.period_micros);
        if periods == 1 {
            self.deposits = [self.deposits[1], 0];
            self.withdrawals = [self.withdrawals[1], 0];
        } else {
            self.deposits = [0; 2];
            self.withdrawals = [0; 2];
        }
        self.epoch_start = self
            .epoch_start
            .saturating_add_micros(periods.saturating_mul(self.period_micros));
    }

    /// A first attempt was made at `now`.
    pub fn deposit(&mut self, now: Instant) {
        self.rotate(now);
        self.deposits[1] = self.deposits[1].saturating_add(1);
    }

    /// Retries the budget allows at `now`.
    pub fn available(&mut self, now: Instant) -> u64 {
        self.rotate(now);
        let earned = self
            .ratio
            .mul_u64(self.deposits[0].saturating_add(self.deposits[1]));
        let spent = self.withdrawals[0].saturating_add(self.withdrawals[1]);
        earned
            .saturating_add(u64::from(self.reserve))
            .saturating_sub(spent)
    }

    /// Takes one retry from the budget if it allows one at `now`.
    pub fn try_withdraw(&mut self, now: Instant) -> bool {
        if self.available(now) == 0 {
            return false;
        }
        self.withdrawals[1] = self.withdrawals[1].saturating_add(1);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(ratio: (u32, u32), reserve: u32) -> RetryBudget {
        let ratio = Ratio::from_fraction(ratio.0, ratio.1).unwrap();
        RetryBudget::new(ratio, reserve, Duration::from_secs(1)).unwrap()
    }

    #[test]
    fn a_retry_storm_adds_at_most_the_ratio() {
        let mut b = budget((1, 10), 10);
        let t = Instant::from_millis(100);
        for _ in 0..1_000 {
            b.deposit(t);
        }
        // All 1000 fail at once and want a retry: 10 + 100 may.
        let retried = (0..1_000).filter(|_| b.try_withdraw(t)).count();
        assert_eq!(retried, 110);
    }

    #[test]
    fn history_ages_out_after_two_periods() {
        let mut b = budget((1, 2), 1);
        for _ in 0..10 {
            b.deposit(Instant::from_millis(0));
        }
        assert_eq!(b.available(Instant::from_millis(500)), 6);
        assert!(b.try_withdraw(Instant::from_millis(900)));
        // Next period: the previous one still counts.
        assert_eq!(b.available(Instant::from_millis(1_500)), 5);
        // Two periods on: only the reserve.
        assert_eq!(b.available(Instant::from_millis(2_100)), 1);
        // A long silence clears everything at once.
        b.deposit(Instant::from_millis(2_200));
        assert_eq!(b.available(Instant::from_millis(60_000)), 1);
    }

    #[test]
    fn backwards_time_and_huge_counts_do_not_panic() {
        let mut b = budget((1, 1), 0);
        b.deposit(Instant::from_millis(5_000));
        assert_eq!(b.available(Instant::from_millis(1)), 1);
        assert!(b.try_withdraw(Instant::ZERO));
        assert!(!b.try_withdraw(Instant::ZERO));
        b.deposit(Instant::MAX);
        assert_eq!(b.available(Instant::MAX), 1);
        assert!(RetryBudget::new(Ratio::ONE, 0, Duration::ZERO).is_err());
    }

    #[test]
    fn a_reading_far_ahead_does_not_stop_the_periods_from_ageing() {
        let mut b = budget((1, 1), 0);
        b.deposit(Instant::MAX); // a glitch
        for second in 10..20 {
            b.deposit(Instant::from_millis(second * 1_000));
        }
        assert!(b.available(Instant::from_millis(19_500)) >= 1);
        // Long after: those first attempts have aged out, as they would without the glitch.
        assert_eq!(b.available(Instant::from_millis(100_000)), 0);
    }
}
