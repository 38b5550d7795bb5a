//! [`Gcra`]: an explicit rate limit (calls per period, with a burst), for providers that publish
//! a quota, to compose with the concurrency limit.
//!
//! The generic cell rate algorithm keeps one instant, the *theoretical arrival time* (TAT): when
//! the next call would be due if calls came exactly one `interval` apart. A call at `now` conforms
//! if the TAT is no more than `tolerance = (burst - 1) × interval` ahead of `now`; it then moves
//! the TAT one interval further. A non-conforming call learns exactly when it would conform. Over
//! any span of time `d`, at most `burst + d / interval` calls conform. No clock is read: every
//! call passes `now`, and time that steps backwards is treated as no time.

use core::time::Duration;

use crate::time::clock::Instant;
use crate::time::clock::duration_to_micros;

/// Why a quota was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum QuotaError {
    /// Zero calls, a zero burst, or a zero period.
    Zero,
    /// More calls than microseconds in the period: the interval would be below a microsecond.
    /// (Intervals are whole microseconds, rounded up: a quota is never exceeded.)
    TooFast,
}

impl core::fmt::Display for QuotaError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            QuotaError::Zero => "a quota needs at least one call, a burst of one and a period",
            QuotaError::TooFast => "a quota faster than one call per microsecond",
        })
    }
}

impl core::error::Error for QuotaError {}

/// A rate limit: `calls` per `period`, up to `burst` at once.
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{Gcra, Instant};
///
/// // 10 calls per second, bursts of up to 3.
/// let mut quota = Gcra::new(10, Duration::from_secs(1), 3).unwrap();
/// let t0 = Instant::from_millis(1_000);
/// for _ in 0..3 {
///     assert!(quota.check(t0).is_ok()); // the burst
/// }
/// let retry_at = quota.check(t0).unwrap_err();
/// assert_eq!(retry_at, Instant::from_millis(1_100)); // one interval later
/// assert!(quota.check(retry_at).is_ok());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct Gcra {
    interval_us: u64,
    tolerance_us: u64,
    /// The theoretical arrival time of the next call.
    tat: Instant,
}

impl Gcra {
    /// `calls` per `period`, with bursts of up to `burst` calls. A `const fn`, so a quota can be
    /// built in a `static`.
    pub const fn new(calls: u32, period: Duration, burst: u32) -> Result<Self, QuotaError> {
        let period_us = duration_to_micros(period);
        if calls == 0 || burst == 0 || period_us == 0 {
            return Err(QuotaError::Zero);
        }
        if calls as u64 > period_us {
            return Err(QuotaError::TooFast);
        }
        // Rounded up: a quota may only ever be under-used, never exceeded.
        let interval_us = crate::num::divide::div_u64(period_us - 1, calls as u64) + 1;
        Ok(Gcra {
            interval_us,
            tolerance_us: interval_us.saturating_mul((burst - 1) as u64),
            tat: Instant::ZERO,
        })
    }

    /// The time between calls at the sustained rate.
    pub const fn interval(&self) -> Duration {
        Duration::from_micros(self.interval_us)
    }

    /// Takes one call at `now` if it conforms; otherwise the earliest instant at which it would.
    pub fn check(&mut self, now: Instant) -> Result<(), Instant> {
        let tat = self.arrival(now);
        let allowed_from = Instant::from_micros(tat.as_micros().saturating_sub(self.tolerance_us));
        if allowed_from > now {
            // Kept as bounded: a glitch is paid for once, not at every later reading.
            self.tat = tat;
            return Err(allowed_from);
        }
        self.tat = tat.saturating_add_micros(self.interval_us);
        Ok(())
    }

    /// The earliest instant at which a call would conform (`now` or earlier: at once), without
    /// taking it.
    pub fn ready_at(&self, now: Instant) -> Instant {
        let tat = self.arrival(now);
        Instant::from_micros(tat.as_micros().saturating_sub(self.tolerance_us))
    }

    /// The theoretical arrival time as seen at `now`: never before `now`, and never more than
    /// one burst and one interval after it. While time moves forward the bound never binds
    /// (each call adds one interval to a time at most a burst ahead); after a clock that stepped
    /// back, or one reading far in the future, it limits the wait to one burst instead of the
    /// size of the step ([`Gcra::check`] keeps the bounded value).
    fn arrival(&self, now: Instant) -> Instant {
        let latest = now
            .saturating_add_micros(self.tolerance_us)
            .saturating_add_micros(self.interval_us);
        self.tat.max(now).min(latest)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn xorshift(x: &mut u64) -> u64 {
        *x ^= *x << 13;
        *x ^= *x >> 7;
        *x ^= *x << 17;
        *x
    }

    #[test]
    fn no_span_of_time_admits_more_than_burst_plus_span_over_interval() {
        for seed in 1..=if cfg!(miri) { 3 } else { 300 } {
            let mut rng = seed;
            let calls = 1 + (xorshift(&mut rng) % 50) as u32;
            let burst = 1 + (xorshift(&mut rng) % 8) as u32;
            let mut quota = Gcra::new(calls, Duration::from_millis(100), burst).unwrap();
            let interval = quota.interval_us;
            let mut now = 0u64;
            let mut admitted = Vec::new();
            for _ in 0..if cfg!(miri) { 60 } else { 400 } {
                now += xorshift(&mut rng) % (2 * interval);
                match quota.check(Instant::from_micros(now)) {
                    Ok(()) => admitted.push(now),
                    Err(at) => {
                        assert!(at.as_micros() > now, "a refusal names a later instant");
                        // Retrying exactly then conforms (nobody else called meanwhile).
                        let mut probe = quota;
                        assert!(probe.check(at).is_ok(), "the named instant conforms");
                    }
                }
            }
            for (i, &start) in admitted.iter().enumerate() {
                for (j, &end) in admitted.iter().enumerate().skip(i) {
                    let count = (j - i + 1) as u64;
                    let bound = u64::from(burst) + (end - start) / interval;
                    assert!(
                        count <= bound,
                        "{count} calls in {} µs, bound {bound}",
                        end - start
                    );
                }
            }
        }
    }

    #[test]
    fn a_steady_caller_gets_the_sustained_rate() {
        let mut quota = Gcra::new(10, Duration::from_secs(1), 1).unwrap();
        let mut ok = 0;
        for ms in (0..10_000u64).step_by(if cfg!(miri) { 100 } else { 1 }) {
            ok += u32::from(quota.check(Instant::from_millis(ms)).is_ok());
        }
        assert_eq!(ok, 100, "10 per second for 10 s");
    }

    #[test]
    fn bad_quotas_are_rejected_and_time_going_back_changes_nothing() {
        assert_eq!(
            Gcra::new(0, Duration::from_secs(1), 1),
            Err(QuotaError::Zero)
        );
        assert_eq!(Gcra::new(1, Duration::ZERO, 1), Err(QuotaError::Zero));
        assert_eq!(
            Gcra::new(1, Duration::from_secs(1), 0),
            Err(QuotaError::Zero)
        );
        assert_eq!(
            Gcra::new(u32::MAX, Duration::from_millis(1), 1),
            Err(QuotaError::TooFast)
        );
        let mut quota = Gcra::new(1, Duration::from_secs(1), 1).unwrap();
        assert!(quota.check(Instant::from_millis(5_000)).is_ok());
        assert!(
            quota.check(Instant::from_millis(1_000)).is_err(),
            "the past is no loophole"
        );
        let huge = Gcra::new(1, Duration::MAX, u32::MAX).unwrap();
        assert_eq!(huge.interval(), Duration::from_micros(u64::MAX));
    }

    #[test]
    fn one_reading_far_in_the_future_costs_one_burst_not_forever() {
        let mut quota = Gcra::new(10, Duration::from_secs(1), 3).unwrap();
        assert!(quota.check(Instant::MAX).is_ok());
        let now = Instant::from_millis(1_000);
        let Err(ready) = quota.check(now) else {
            panic!("the glitch still counts for one burst");
        };
        assert!(
            ready.micros_since(now) <= quota.interval_us * 3,
            "{ready:?}"
        );
        assert!(quota.check(ready).is_ok());
    }
}
