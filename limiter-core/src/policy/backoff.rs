//! [`Backoff`]: when to retry, with exponential growth, full jitter from an injected random
//! source, and a `Retry-After` taken as the earliest retry time.

use core::time::Duration;

use crate::num::ratio::Ratio;
use crate::time::clock::Instant;
use crate::time::clock::duration_to_micros;

/// Exponential backoff with full jitter.
///
/// Attempt `n` (the first retry is 1) waits a uniformly random time in `[0, min(cap, base ×
/// factorⁿ⁻¹)]`; the randomness comes from the caller (`random`: any `u32`, uniformly drawn), so
/// the schedule is testable and the core needs no generator. A `Retry-After` moves the start of
/// that window to the instant the dependency named: it is the earliest retry, and the jitter
/// still spreads a backlog of retries out after it instead of sending them all at once.
///
/// Retries should also pass a [`RetryBudget`](crate::RetryBudget) and take a permit like any
/// first attempt.
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Backoff, Instant, Ratio};
///
/// let backoff = Backoff::new(Duration::from_millis(100), Ratio::from_int(2), Duration::from_secs(5));
/// assert_eq!(backoff.ceiling(1), Duration::from_millis(100));
/// assert_eq!(backoff.ceiling(4), Duration::from_millis(800));
/// assert_eq!(backoff.ceiling(30), Duration::from_secs(5));
/// assert_eq!(backoff.delay(4, u32::MAX), Duration::from_micros(799_999));
///
/// // A Retry-After 10 s out: never before it, spread over the window after it.
/// let now = Instant::from_millis(1_000);
/// let after = Instant::from_millis(11_000);
/// let at = backoff.retry_at(now, 2, 0x8000_0000, Some(after));
/// assert_eq!(at, Instant::from_millis(11_100));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Backoff {
    base_us: u64,
    factor: Ratio,
    cap_us: u64,
}

impl Backoff {
    /// Waits of up to `base` for the first retry, `factor` times more for each further one (a
    /// factor below 1 is taken as 1), never more than `cap`.
    pub fn new(base: Duration, factor: Ratio, cap: Duration) -> Self {
        Backoff {
            base_us: duration_to_micros(base),
            factor: if factor < Ratio::ONE {
                Ratio::ONE
            } else {
                factor
            },
            cap_us: duration_to_micros(cap),
        }
    }

    /// The longest wait before retry `attempt` (1 for the first retry; 0 is taken as 1):
    /// `base × factor^(attempt - 1)`, at most the cap. At most 32 steps, whatever `attempt` is.
    pub fn ceiling(&self, attempt: u32) -> Duration {
        // x · f for f in 16.16, saturating.
        let scale = |x: u64, f: u64| {
            let wide = (u128::from(x) * u128::from(f)) >> 16;
            u64::try_from(wide).unwrap_or(u64::MAX)
        };
        let mut ceiling = self.base_us.min(self.cap_us);
        let mut power = u64::from(self.factor.to_bits()); // factor^(2^k), 16.16
        let mut n = attempt.saturating_sub(1);
        while n > 0 && ceiling < self.cap_us && ceiling > 0 {
            if n & 1 == 1 {
                ceiling = scale(ceiling, power).min(self.cap_us);
            }
            power = scale(power, power);
            n >>= 1;
        }
        Duration::from_micros(ceiling)
    }

    /// The wait before retry `attempt`: `random / 2³²` of its ceiling.
    pub fn delay(&self, attempt: u32, random: u32) -> Duration {
        let ceiling = duration_to_micros(self.ceiling(attempt));
        let (hi, lo) = (ceiling >> 32, ceiling & 0xffff_ffff);
        let scaled = hi * u64::from(random) + ((lo * u64::from(random)) >> 32);
        Duration::from_micros(scaled)
    }

    /// When to send retry `attempt`: the jittered delay, counted from `now` or from the
    /// `Retry-After` instant if that is later.
    pub fn retry_at(
        &self,
        now: Instant,
        attempt: u32,
        random: u32,
        retry_after: Option<Instant>,
    ) -> Instant {
        let from = match retry_after {
            Some(at) if at > now => at,
            _ => now,
        };
        from.saturating_add(self.delay(attempt, random))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delays_stay_under_a_ceiling_that_grows_to_the_cap_and_never_precede_retry_after() {
        let backoff = Backoff::new(
            Duration::from_millis(50),
            Ratio::from_int(3),
            Duration::from_secs(2),
        );
        let mut x = 0x1234_5678_u64;
        let mut previous_ceiling = Duration::ZERO;
        for attempt in 1..40 {
            let ceiling = backoff.ceiling(attempt);
            assert!(ceiling >= previous_ceiling && ceiling <= Duration::from_secs(2));
            previous_ceiling = ceiling;
            for _ in 0..if cfg!(miri) { 5 } else { 200 } {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let random = x as u32;
                let delay = backoff.delay(attempt, random);
                assert!(
                    delay < ceiling || ceiling.is_zero(),
                    "{delay:?} >= {ceiling:?}"
                );
                let now = Instant::from_micros(x >> 40);
                let after = Instant::from_micros((x >> 38) & 0xff_ffff);
                let at = backoff.retry_at(now, attempt, random, Some(after));
                assert!(at >= now && at >= after);
            }
        }
        assert_eq!(previous_ceiling, Duration::from_secs(2));
        // Full jitter: the extremes of the random source reach both ends of the window.
        assert_eq!(backoff.delay(3, 0), Duration::ZERO);
        assert!(backoff.delay(3, u32::MAX) > Duration::from_millis(449));
        // A constant backoff, and one too small to grow in 16.16 steps, answer at once for any
        // attempt, and a small base still grows.
        let constant = Backoff::new(
            Duration::from_millis(100),
            Ratio::ONE,
            Duration::from_secs(5),
        );
        assert_eq!(constant.ceiling(u32::MAX), Duration::from_millis(100));
        let tiny = Backoff::new(
            Duration::from_micros(1),
            Ratio::from_fraction(3, 2).unwrap(),
            Duration::from_secs(1),
        );
        assert_eq!(tiny.ceiling(u32::MAX), Duration::from_secs(1));
        assert_eq!(
            Backoff::new(Duration::ZERO, Ratio::from_int(2), Duration::MAX).ceiling(u32::MAX),
            Duration::ZERO
        );
        // Nothing overflows.
        let huge = Backoff::new(Duration::MAX, Ratio::from_int(1000), Duration::MAX);
        assert_eq!(huge.ceiling(u32::MAX), Duration::from_micros(u64::MAX));
        let _ = huge.retry_at(Instant::MAX, u32::MAX, u32::MAX, Some(Instant::MAX));
    }
}
