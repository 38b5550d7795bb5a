//! Remaining-quota hints: what a provider says about the calls left in its window, parsed
//! without allocation and bounded like `Retry-After`.
//!
//! | header | form | read by |
//! |---|---|---|
//! | `RateLimit` (IETF draft 7) | `limit=100, remaining=0, reset=30` | [`parse_ratelimit`] |
//! | `RateLimit` (IETF draft 8 and later) | `"default";r=0;t=30` (one item per policy) | [`parse_ratelimit`] |
//! | `X-RateLimit-Remaining`, `X-RateLimit-Limit`, `RateLimit-Remaining`, `RateLimit-Limit` | `0` | [`parse_quota_count`] |
//! | `X-RateLimit-Reset`, `RateLimit-Reset` | `30` (seconds), or `1700000000` (a Unix time, as GitHub sends) | [`parse_quota_reset`] |
//!
//! A provider that says its quota is spent and when it resets is asking, in other words, what a
//! `Retry-After` asks: [`QuotaHint::advice`] holds admissions until the reset. One that says its
//! quota is nearly spent (a tenth or less left) holds the limit's growth until then: more
//! concurrency would only reach the wall sooner. Malformed values are errors, and the caller
//! ignores the hint; no value can hold anything longer than the caller's maximum.

use core::fmt;
use core::time::Duration;

/// What one provider's headers say about its current window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct QuotaHint {
    /// Calls left in the window, if stated.
    pub remaining: Option<u64>,
    /// The window's quota, if stated.
    pub limit: Option<u64>,
    /// When the window resets, from now, if stated: at most the parser's maximum.
    pub reset: Option<Duration>,
}

/// What a [`QuotaHint`] asks of the limiter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct QuotaAdvice {
    /// The quota is spent: hold admissions (and growth) this long, as a `Retry-After`.
    pub hold_admissions: Option<Duration>,
    /// The quota is nearly spent: hold the limit's growth this long.
    pub hold_growth: Option<Duration>,
    /// Calls are left (and a reset is stated): how many, and for how long, from which
    /// [`QuotaLeft::concurrency`] works out the pace that spends them by the reset. A reset the
    /// parser cut to its maximum is not the window's: [`HttpClassifier`](crate::HttpClassifier)
    /// drops `left` then, and a caller reading the headers itself should too.
    pub left: Option<QuotaLeft>,
}

/// Calls left in a provider's window and the time until it resets: the quota's pace.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct QuotaLeft {
    /// Calls left in the window (at least one).
    pub calls: u64,
    /// When the window resets, from now.
    pub reset: Duration,
}

impl QuotaLeft {
    /// The concurrency that spends the calls left by the reset, for calls that take `latency`:
    /// `⌈calls × latency / reset⌉` (Little's law: that many calls in flight complete
    /// `concurrency / latency` calls a second), at most `calls` and `u32::MAX`. `None` for a
    /// latency of zero, or one at least as long as the time to the reset: every call in flight
    /// then lands in this window, and the pace says nothing about the next.
    ///
    /// ```
    /// use core::time::Duration;
    /// use limiter_core::QuotaLeft;
    ///
    /// // 496 calls left for 900 ms, calls of 100 ms: 56 in flight spend them.
    /// let left = QuotaLeft { calls: 496, reset: Duration::from_millis(900) };
    /// assert_eq!(left.concurrency(Duration::from_millis(100)), Some(56));
    /// assert_eq!(left.concurrency(Duration::from_millis(900)), None);
    /// assert_eq!(left.concurrency(Duration::ZERO), None);
    /// ```
    pub const fn concurrency(&self, latency: Duration) -> Option<u32> {
        let latency = crate::time::clock::duration_to_micros(latency);
        let reset = crate::time::clock::duration_to_micros(self.reset);
        if latency == 0 || latency >= reset || self.calls == 0 {
            return None;
        }
        // In microseconds, rounded up. Where `calls × latency` passes u64 (no 128-bit division
        // on a microcontroller), `calls = q × reset + m` splits it: `q × latency` is below the
        // calls left (the latency is below the reset), and `⌈m × latency / reset⌉` is exact
        // whenever the reset is below 2^32 µs (71 minutes: `m` and the latency are below it).
        // Past that, the larger of `m` and the latency is halved with the reset until the
        // product fits, which keeps the ratio to far better than one call in a million.
        let up = if let Some(product) = self.calls.checked_mul(latency) {
            div_ceil(product, reset)
        } else {
            let q = crate::num::divide::div_u64(self.calls, reset);
            let (mut m, mut l, mut r) = (self.calls - q * reset, latency, reset);
            let mut product = m.checked_mul(l);
            while product.is_none() {
                // The larger factor gives up its low bits with the reset's: the smaller keeps
                // all of its own.
                if m > l {
                    m >>= 1;
                } else {
                    l >>= 1;
                }
                r >>= 1;
                product = m.checked_mul(l);
            }
            // `None` is not reached: a factor of 0 makes the product fit.
            let part = if let Some(product) = product {
                div_ceil(product, r)
            } else {
                0
            };
            (q * latency).saturating_add(part)
        };
        let pace = if up < self.calls { up } else { self.calls };
        Some(if pace > u32::MAX as u64 {
            u32::MAX
        } else {
            pace as u32
        })
    }
}

/// `⌈n / d⌉` (`u64::MAX` for `d = 0`), without the general 64-bit division routine.
const fn div_ceil(n: u64, d: u64) -> u64 {
    if d == 0 {
        return u64::MAX;
    }
    let quotient = crate::num::divide::div_u64(n, d);
    if quotient.wrapping_mul(d) == n {
        quotient
    } else {
        quotient + 1
    }
}

impl QuotaHint {
    /// What the hint asks: admissions held until the reset when nothing is left, growth held
    /// until then when a tenth of the quota or less is left (one call or none, when the quota is
    /// not stated), nothing without a reset time; and while calls are left, how many and for
    /// how long ([`QuotaAdvice::left`]), the pace a controller may grow to at once.
    ///
    /// ```
    /// use core::time::Duration;
    /// use limiter_core::{QuotaHint, parse_ratelimit};
    ///
    /// let max = Duration::from_secs(600);
    /// let spent = parse_ratelimit(b"limit=100, remaining=0, reset=30", max).unwrap();
    /// assert_eq!(spent.advice().hold_admissions, Some(Duration::from_secs(30)));
    /// let low = parse_ratelimit(b"\"default\";q=100;r=5;t=12", max).unwrap();
    /// assert_eq!(low.advice().hold_growth, Some(Duration::from_secs(12)));
    /// let plenty = QuotaHint { remaining: Some(50), limit: Some(100), reset: Some(max) };
    /// let advice = plenty.advice();
    /// assert_eq!((advice.hold_admissions, advice.hold_growth), (None, None));
    /// assert_eq!(advice.left.map(|left| left.calls), Some(50));
    /// ```
    pub const fn advice(&self) -> QuotaAdvice {
        let none = QuotaAdvice {
            hold_admissions: None,
            hold_growth: None,
            left: None,
        };
        let (Some(reset), Some(remaining)) = (self.reset, self.remaining) else {
            return none;
        };
        if remaining == 0 {
            return QuotaAdvice {
                hold_admissions: Some(reset),
                hold_growth: None,
                left: None,
            };
        }
        let left = Some(QuotaLeft {
            calls: remaining,
            reset,
        });
        let nearly_spent = match self.limit {
            Some(limit) => remaining.saturating_mul(10) <= limit,
            None => remaining <= 1,
        };
        QuotaAdvice {
            hold_admissions: None,
            hold_growth: if nearly_spent { Some(reset) } else { None },
            left,
        }
    }

    /// Of two hints (two policies of one provider), the one closer to its wall: the fewer calls
    /// left, the earlier reset on a tie.
    const fn tighter(self, other: QuotaHint) -> QuotaHint {
        let (a, b) = (
            match self.remaining {
                Some(r) => r,
                None => u64::MAX,
            },
            match other.remaining {
                Some(r) => r,
                None => u64::MAX,
            },
        );
        if b < a { other } else { self }
    }
}

/// Why a quota header was not understood.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum QuotaHintError {
    /// The value is empty or only whitespace.
    Empty,
    /// The value is not one of the forms above.
    Malformed,
}

impl fmt::Display for QuotaHintError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            QuotaHintError::Empty => "empty quota header",
            QuotaHintError::Malformed => "quota header in no known form",
        })
    }
}

impl core::error::Error for QuotaHintError {}

/// Parses an IETF `RateLimit` field, in draft 7's form (a dictionary: `limit=100, remaining=0,
/// reset=30`) or in the later drafts' (a list of policies, each an item with parameters:
/// `"default";r=0;t=30`, where `r` is the remaining quota and `t` the seconds to reset). Of
/// several policies the tightest is returned. Unknown keys and parameters are skipped; a known
/// one with a value that is not a non-negative integer makes the whole value malformed. The
/// reset is at most `max`; a count too large for `u64` saturates.
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{QuotaHint, QuotaHintError, parse_ratelimit};
///
/// let max = Duration::from_secs(60);
/// let hint = parse_ratelimit(b"\"day\";r=900;t=40000, \"minute\";r=3;t=20", max).unwrap();
/// assert_eq!(hint.remaining, Some(3));
/// assert_eq!(hint.reset, Some(Duration::from_secs(20)));
/// assert_eq!(parse_ratelimit(b"remaining=-1", max), Err(QuotaHintError::Malformed));
/// assert_eq!(parse_ratelimit(b"reset=99999999", max).unwrap().reset, Some(max));
/// ```
pub fn parse_ratelimit(value: &[u8], max: Duration) -> Result<QuotaHint, QuotaHintError> {
    let value = trim(value);
    if value.is_empty() {
        return Err(QuotaHintError::Empty);
    }
    if !quotes_close(value) {
        return Err(QuotaHintError::Malformed);
    }
    // Draft 7: one hint from the dictionary's keys. Later drafts: one hint per member.
    let mut dictionary = QuotaHint::default();
    let mut tightest: Option<QuotaHint> = None;
    for member in Members::new(value) {
        let member = trim(member);
        if member.is_empty() {
            return Err(QuotaHintError::Malformed);
        }
        let (head, params) = split_once(member, b';');
        // A member is a dictionary entry (`key=value`) unless it names a policy (a quoted
        // string, or a token without `=`).
        let entry = if head.first() == Some(&b'"') {
            (head, None)
        } else {
            split_once(head, b'=')
        };
        if let (key, Some(number)) = entry {
            let n = || integer(trim(number));
            match trim(key) {
                b"limit" => dictionary.limit = Some(n()?),
                b"remaining" => dictionary.remaining = Some(n()?),
                b"reset" => dictionary.reset = Some(seconds(n()?, max)),
                _ => {}
            }
            continue;
        }
        let mut policy = QuotaHint::default();
        let mut rest = params;
        while let Some(list) = rest {
            let (param, next) = split_once(list, b';');
            rest = next;
            let (key, number) = split_once(trim(param), b'=');
            let Some(number) = number else {
                continue; // a bare flag
            };
            let n = || integer(trim(number));
            match trim(key) {
                b"r" => policy.remaining = Some(n()?),
                b"q" => policy.limit = Some(n()?),
                b"t" => policy.reset = Some(seconds(n()?, max)),
                _ => {}
            }
        }
        tightest = Some(match tightest {
            Some(t) => t.tighter(policy),
            None => policy,
        });
    }
    Ok(match tightest {
        Some(policy) if dictionary == QuotaHint::default() => policy,
        Some(policy) => dictionary.tighter(policy),
        None => dictionary,
    })
}

/// Parses a count header (`X-RateLimit-Remaining`, `X-RateLimit-Limit`, and draft 6's
/// `RateLimit-Remaining`, `RateLimit-Limit`): a non-negative integer, saturating at `u64::MAX`.
///
/// ```
/// use limiter_core::parse_quota_count;
///
/// assert_eq!(parse_quota_count(b" 42 "), Ok(42));
/// assert!(parse_quota_count(b"4 2").is_err());
/// ```
pub fn parse_quota_count(value: &[u8]) -> Result<u64, QuotaHintError> {
    let value = trim(value);
    if value.is_empty() {
        return Err(QuotaHintError::Empty);
    }
    integer(value)
}

/// Parses a reset header (`X-RateLimit-Reset`, draft 6's `RateLimit-Reset`): seconds from now,
/// or, for a value of a billion or more (September 2001 onwards), a Unix time in seconds, as
/// GitHub and others send it, turned into a delay from `now_unix_secs` (a time past is no
/// delay). A fraction of a second rounds up. At most `max`.
///
/// ```
/// use core::time::Duration;
/// use limiter_core::parse_quota_reset;
///
/// let max = Duration::from_secs(3_600);
/// assert_eq!(parse_quota_reset(b"30", 1_700_000_000, max), Ok(Duration::from_secs(30)));
/// assert_eq!(parse_quota_reset(b"1700000045", 1_700_000_000, max), Ok(Duration::from_secs(45)));
/// assert_eq!(parse_quota_reset(b"1.2", 0, max), Ok(Duration::from_secs(2)));
/// ```
pub fn parse_quota_reset(
    value: &[u8],
    now_unix_secs: u64,
    max: Duration,
) -> Result<Duration, QuotaHintError> {
    parse_quota_reset_at(value, || now_unix_secs, max)
}

/// [`parse_quota_reset`], reading the time only for a reset given as a Unix time.
pub(crate) fn parse_quota_reset_at(
    value: &[u8],
    now_unix_secs: impl FnOnce() -> u64,
    max: Duration,
) -> Result<Duration, QuotaHintError> {
    let value = trim(value);
    if value.is_empty() {
        return Err(QuotaHintError::Empty);
    }
    let (whole, fraction) = split_once(value, b'.');
    let mut secs = integer(whole)?;
    if let Some(fraction) = fraction {
        if fraction.is_empty() || !fraction.iter().all(u8::is_ascii_digit) {
            return Err(QuotaHintError::Malformed);
        }
        if fraction.iter().any(|&d| d != b'0') {
            secs = secs.saturating_add(1);
        }
    }
    if secs >= UNIX_TIME_FROM {
        secs = secs.saturating_sub(now_unix_secs());
    }
    Ok(seconds(secs, max))
}

/// A reset of at least this many seconds is a Unix time, not a delay (2001-09-09T01:46:40Z):
/// no provider's window is 31 years long.
const UNIX_TIME_FROM: u64 = 1_000_000_000;

/// `secs` seconds, at most `max`.
fn seconds(secs: u64, max: Duration) -> Duration {
    let delay = Duration::from_secs(secs);
    if delay > max { max } else { delay }
}

/// A non-negative decimal integer, saturating at `u64::MAX`; anything else is malformed.
fn integer(digits: &[u8]) -> Result<u64, QuotaHintError> {
    if digits.is_empty() || !digits.iter().all(u8::is_ascii_digit) {
        return Err(QuotaHintError::Malformed);
    }
    Ok(digits.iter().fold(0u64, |n, &d| {
        n.saturating_mul(10).saturating_add(u64::from(d - b'0'))
    }))
}

/// `value` without leading and trailing spaces and tabs.
fn trim(mut value: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = value {
        value = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = value {
        value = rest;
    }
    value
}

/// The bytes before the first `separator`, and those after it if there is one.
fn split_once(value: &[u8], separator: u8) -> (&[u8], Option<&[u8]>) {
    match value.iter().position(|&b| b == separator) {
        Some(at) => (&value[..at], value.get(at + 1..)),
        None => (value, None),
    }
}

/// Whether every quoted string (with its `\"` escapes) is closed.
fn quotes_close(value: &[u8]) -> bool {
    let (mut quoted, mut escaped) = (false, false);
    for &b in value {
        match b {
            _ if escaped => escaped = false,
            b'\\' if quoted => escaped = true,
            b'"' => quoted = !quoted,
            _ => {}
        }
    }
    !quoted
}

/// The members of a comma-separated list, commas inside a quoted string (with its `\"`
/// escapes) excepted.
struct Members<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Members<'a> {
    const fn new(value: &'a [u8]) -> Self {
        Members { rest: Some(value) }
    }
}

impl<'a> Iterator for Members<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let value = self.rest?;
        let (mut quoted, mut escaped) = (false, false);
        for (at, &b) in value.iter().enumerate() {
            match b {
                _ if escaped => escaped = false,
                b'\\' if quoted => escaped = true,
                b'"' => quoted = !quoted,
                b',' if !quoted => {
                    self.rest = value.get(at + 1..);
                    return value.get(..at);
                }
                _ => {}
            }
        }
        self.rest = None;
        Some(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MAX: Duration = Duration::from_secs(600);

    #[test]
    fn draft_7_dictionaries_and_later_drafts_policies_read_the_same() {
        let seven = parse_ratelimit(b"limit=100, remaining=7, reset=30", MAX).unwrap();
        let eight = parse_ratelimit(b"\"default\";q=100;r=7;t=30", MAX).unwrap();
        let expected = QuotaHint {
            remaining: Some(7),
            limit: Some(100),
            reset: Some(Duration::from_secs(30)),
        };
        assert_eq!((seven, eight), (expected, expected));
    }

    #[test]
    fn the_tightest_policy_wins_and_quoted_commas_are_not_separators() {
        let hint = parse_ratelimit(b"\"a,b\";r=10;t=5, minute;r=2;t=50, \"x\\\",y\";r=9", MAX);
        assert_eq!(hint.unwrap().remaining, Some(2));
        let named = parse_ratelimit(b"\"a=b\";r=4;t=1", MAX).unwrap();
        assert_eq!(named.remaining, Some(4));
    }

    #[test]
    fn malformed_values_are_errors_and_unknown_keys_are_skipped() {
        for bad in [
            &b"remaining=1.5"[..],
            b"remaining=",
            b"r;r=x",
            b"limit=10,,remaining=1",
            b"reset=-3",
            b"limit=1, \"open, remaining=0",
        ] {
            assert_eq!(
                parse_ratelimit(bad, MAX),
                Err(QuotaHintError::Malformed),
                "{bad:?}"
            );
        }
        assert_eq!(parse_ratelimit(b" \t", MAX), Err(QuotaHintError::Empty));
        let skipped = parse_ratelimit(b"policy=x, remaining=3, extra=?", MAX).unwrap();
        assert_eq!(skipped.remaining, Some(3));
    }

    #[test]
    fn huge_values_saturate_and_resets_are_bounded() {
        let hint = parse_ratelimit(b"remaining=99999999999999999999999, reset=1e9", MAX);
        assert_eq!(hint, Err(QuotaHintError::Malformed));
        let hint = parse_ratelimit(
            b"remaining=99999999999999999999999, reset=999999999999",
            MAX,
        );
        assert_eq!(hint.unwrap().remaining, Some(u64::MAX));
        assert_eq!(parse_quota_reset(b"99999999999999999999", 0, MAX), Ok(MAX));
        // A Unix time already past is no delay.
        assert_eq!(
            parse_quota_reset(b"1600000000", 1_700_000_000, MAX),
            Ok(Duration::ZERO)
        );
    }

    #[test]
    fn advice_holds_admissions_only_when_spent_and_growth_when_nearly_spent() {
        let at = |remaining, limit| QuotaHint {
            remaining: Some(remaining),
            limit,
            reset: Some(Duration::from_secs(9)),
        };
        let nine = Some(Duration::from_secs(9));
        assert_eq!(at(0, Some(100)).advice().hold_admissions, nine);
        assert_eq!(at(10, Some(100)).advice().hold_growth, nine);
        let left = |calls| {
            Some(QuotaLeft {
                calls,
                reset: Duration::from_secs(9),
            })
        };
        let plenty = QuotaAdvice {
            left: left(11),
            ..QuotaAdvice::default()
        };
        assert_eq!(at(11, Some(100)).advice(), plenty);
        assert_eq!(at(1, None).advice().hold_growth, nine);
        assert_eq!(at(1, None).advice().left, left(1));
        assert_eq!(at(10, Some(100)).advice().left, left(10));
        assert_eq!(
            at(0, Some(100)).advice().left,
            None,
            "nothing left: a pause"
        );
        assert_eq!(
            at(2, None).advice(),
            QuotaAdvice {
                left: left(2),
                ..QuotaAdvice::default()
            }
        );
        let no_reset = QuotaHint {
            reset: None,
            ..at(0, None)
        };
        assert_eq!(no_reset.advice(), QuotaAdvice::default());
        let no_count = QuotaHint {
            remaining: None,
            ..at(5, None)
        };
        assert_eq!(no_count.advice(), QuotaAdvice::default());
    }

    #[test]
    fn the_pace_spends_the_calls_left_by_the_reset() {
        let ms = Duration::from_millis;
        let left = |calls, reset| QuotaLeft {
            calls,
            reset: ms(reset),
        };
        // ⌈calls × latency / reset⌉.
        assert_eq!(left(496, 900).concurrency(ms(100)), Some(56));
        assert_eq!(left(450, 900).concurrency(ms(100)), Some(50));
        assert_eq!(left(1, 1000).concurrency(ms(1)), Some(1));
        // Never more than the calls left; nothing for a call as long as the window's rest, or
        // for no latency, or for nothing left.
        assert_eq!(left(3, 1000).concurrency(ms(999)), Some(3));
        assert_eq!(left(3, 1000).concurrency(ms(1000)), None);
        assert_eq!(left(3, 1000).concurrency(Duration::ZERO), None);
        assert_eq!(left(0, 1000).concurrency(ms(10)), None);
        // Sub-microsecond latencies round to nothing; huge counts saturate at the calls left,
        // then at u32::MAX.
        assert_eq!(left(9, 1000).concurrency(Duration::from_nanos(999)), None);
        assert_eq!(
            left(u64::MAX, 1000).concurrency(ms(999)),
            Some(u32::MAX),
            "the product overflows u64"
        );
        assert_eq!(left(u64::MAX / 2, 1000).concurrency(ms(1)), Some(u32::MAX));
        // Past u64 but well within u32: a trillion calls left for 30 days, calls of 20 s.
        let month = QuotaLeft {
            calls: 1_000_000_000_000,
            reset: Duration::from_secs(30 * 86_400),
        };
        assert_eq!(month.concurrency(Duration::from_secs(20)), Some(7_716_050));
        let far = QuotaLeft {
            calls: 10,
            reset: Duration::MAX,
        };
        // Both saturate in microseconds: no longer told apart, so no pace.
        assert_eq!(far.concurrency(Duration::from_secs(u64::MAX / 2)), None);
        assert_eq!(far.concurrency(ms(1)), Some(1));
        let days = left(10, 1_000_000_000);
        assert_eq!(days.concurrency(ms(500_000_000)), Some(5));
    }
}
