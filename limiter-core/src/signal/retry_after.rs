//! The `Retry-After` header (RFC 9110 §10.2.3), parsed without allocation.
//!
//! ```text
//! Retry-After = HTTP-date / delay-seconds
//! ```
//!
//! Both forms are accepted, and `HTTP-date` in all three of its formats:
//!
//! | format | example |
//! |---|---|
//! | IMF-fixdate | `Sun, 06 Nov 1994 08:49:37 GMT` |
//! | RFC 850 (obsolete) | `Sunday, 06-Nov-94 08:49:37 GMT` |
//! | asctime (obsolete) | `Sun Nov  6 08:49:37 1994` |
//!
//! A date is turned into a delay relative to a caller-supplied "now" in Unix seconds (the core
//! reads no clock). A date in the past is a zero delay. Every delay is bounded by a caller-chosen
//! maximum, so a hostile or broken server cannot park a client for a century. Malformed input is a
//! [`RetryAfterError`], never a panic.

use core::fmt;
use core::time::Duration;

/// A parsed `Retry-After` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct RetryAfter {
    /// How long to wait before retrying, at most the maximum given to the parser.
    pub delay: Duration,
    /// Whether the header asked for more than the maximum and the delay was capped.
    pub capped: bool,
}

/// Why a `Retry-After` value was rejected.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum RetryAfterError {
    /// The value is empty or only whitespace.
    Empty,
    /// The value is neither delay-seconds nor an HTTP-date in one of the three formats.
    Malformed,
    /// The value has the shape of an HTTP-date but names no real time (31 Feb, 25:00:00…).
    InvalidDate,
}

impl fmt::Display for RetryAfterError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            RetryAfterError::Empty => "empty Retry-After value",
            RetryAfterError::Malformed => "Retry-After is neither delay-seconds nor an HTTP-date",
            RetryAfterError::InvalidDate => "Retry-After names a date that does not exist",
        })
    }
}

impl core::error::Error for RetryAfterError {}

/// Parses a `Retry-After` header value.
///
/// `now_unix_secs` is the current time in seconds since 1970-01-01T00:00:00Z, used to turn a date
/// into a delay (and to resolve the two-digit years of RFC 850 dates). `max` bounds the result.
///
/// # Examples
///
/// ```
/// use core::time::Duration;
/// use limiter_core::{parse_retry_after, RetryAfterError};
///
/// let now = 784_111_777; // Sun, 06 Nov 1994 08:49:37 GMT
/// let max = Duration::from_secs(600);
///
/// let r = parse_retry_after(b"120", now, max).unwrap();
/// assert_eq!(r.delay, Duration::from_secs(120));
///
/// let r = parse_retry_after(b"Sun, 06 Nov 1994 08:51:37 GMT", now, max).unwrap();
/// assert_eq!(r.delay, Duration::from_secs(120));
///
/// let r = parse_retry_after(b"99999999999999999999999", now, max).unwrap();
/// assert_eq!((r.delay, r.capped), (max, true));
///
/// assert_eq!(parse_retry_after(b"soon", now, max), Err(RetryAfterError::Malformed));
/// ```
pub fn parse_retry_after(
    value: &[u8],
    now_unix_secs: u64,
    max: Duration,
) -> Result<RetryAfter, RetryAfterError> {
    let value = trim_ows(value);
    if value.is_empty() {
        return Err(RetryAfterError::Empty);
    }
    let secs = if value[0].is_ascii_digit() {
        parse_delay_seconds(value)?
    } else {
        let at = parse_http_date(value, now_unix_secs)?;
        u64::try_from(at.saturating_sub(i64::try_from(now_unix_secs).unwrap_or(i64::MAX)))
            .unwrap_or(0)
    };
    let wanted = Duration::from_secs(secs);
    Ok(if wanted > max {
        RetryAfter {
            delay: max,
            capped: true,
        }
    } else {
        RetryAfter {
            delay: wanted,
            capped: false,
        }
    })
}

/// Parses an HTTP-date (any of the three formats) into seconds since the Unix epoch.
///
/// Dates before 1970 are negative. `now_unix_secs` resolves the two-digit year of an RFC 850 date:
/// a year that would lie more than 50 years in the future is taken from the previous century, as
/// RFC 9110 requires.
///
/// ```
/// use limiter_core::parse_http_date;
///
/// let now = 784_111_777;
/// for date in [
///     "Sun, 06 Nov 1994 08:49:37 GMT",
///     "Sunday, 06-Nov-94 08:49:37 GMT",
///     "Sun Nov  6 08:49:37 1994",
/// ] {
///     assert_eq!(parse_http_date(date.as_bytes(), now), Ok(784_111_777));
/// }
/// ```
pub fn parse_http_date(value: &[u8], now_unix_secs: u64) -> Result<i64, RetryAfterError> {
    let mut p = Cursor { rest: value };
    let day_name = p.take_while(u8::is_ascii_alphabetic);
    let (day, month, year, hms) = if p.eat(b", ") {
        if day_name.len() == 3 {
            // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
            check_day_name(day_name, false)?;
            let day = p.digits(2)?;
            p.expect(b" ")?;
            let month = p.month()?;
            p.expect(b" ")?;
            let year = p.digits(4)?;
            p.expect(b" ")?;
            let hms = p.time_of_day()?;
            p.expect(b" GMT")?;
            (day, month, year as i64, hms)
        } else {
            // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
            check_day_name(day_name, true)?;
            let day = p.digits(2)?;
            p.expect(b"-")?;
            let month = p.month()?;
            p.expect(b"-")?;
            let yy = p.digits(2)?;
            p.expect(b" ")?;
            let hms = p.time_of_day()?;
            p.expect(b" GMT")?;
            (
                day,
                month,
                resolve_two_digit_year(yy, day, month, hms, now_unix_secs),
                hms,
            )
        }
    } else {
        // asctime: Sun Nov  6 08:49:37 1994
        check_day_name(day_name, false)?;
        p.expect(b" ")?;
        let month = p.month()?;
        p.expect(b" ")?;
        let day = if p.eat(b" ") {
            p.digits(1)?
        } else {
            p.digits(2)?
        };
        p.expect(b" ")?;
        let hms = p.time_of_day()?;
        p.expect(b" ")?;
        let year = p.digits(4)?;
        (day, month, year as i64, hms)
    };
    if !p.rest.is_empty() {
        return Err(RetryAfterError::Malformed);
    }
    let (hour, minute, second) = hms;
    if day == 0 || day > days_in_month(year, month) || hour > 23 || minute > 59 || second > 60 {
        return Err(RetryAfterError::InvalidDate);
    }
    Ok(unix_seconds(year, month, day, hms))
}

/// Seconds since the Unix epoch, saturating (years come from callers' "now" too, which may be
/// absurd).
fn unix_seconds(year: i64, month: u32, day: u32, (hour, minute, second): (u32, u32, u32)) -> i64 {
    days_from_civil(year, month, day)
        .saturating_mul(86_400)
        .saturating_add(i64::from(hour * 3_600 + minute * 60 + second))
}

fn trim_ows(mut v: &[u8]) -> &[u8] {
    while let [b' ' | b'\t', rest @ ..] = v {
        v = rest;
    }
    while let [rest @ .., b' ' | b'\t'] = v {
        v = rest;
    }
    v
}

/// `1*DIGIT`, saturating: a delay too large for a `u64` is simply "very long" and gets capped.
fn parse_delay_seconds(v: &[u8]) -> Result<u64, RetryAfterError> {
    let mut secs: u64 = 0;
    for &b in v {
        if !b.is_ascii_digit() {
            return Err(RetryAfterError::Malformed);
        }
        secs = secs.saturating_mul(10).saturating_add(u64::from(b - b'0'));
    }
    Ok(secs)
}

const DAY_NAMES: [&[u8]; 7] = [b"Mon", b"Tue", b"Wed", b"Thu", b"Fri", b"Sat", b"Sun"];
const DAY_NAMES_LONG: [&[u8]; 7] = [
    b"Monday",
    b"Tuesday",
    b"Wednesday",
    b"Thursday",
    b"Friday",
    b"Saturday",
    b"Sunday",
];
const MONTHS: [&[u8]; 12] = [
    b"Jan", b"Feb", b"Mar", b"Apr", b"May", b"Jun", b"Jul", b"Aug", b"Sep", b"Oct", b"Nov", b"Dec",
];

/// The day name must be a real one; whether it matches the date is not checked (RFC 9110 asks
/// recipients to be lenient, and the date is what matters for a delay).
fn check_day_name(name: &[u8], long: bool) -> Result<(), RetryAfterError> {
    let names = if long { &DAY_NAMES_LONG } else { &DAY_NAMES };
    if names.contains(&name) {
        Ok(())
    } else {
        Err(RetryAfterError::Malformed)
    }
}

/// The year of an RFC 850 date: the one in the current century, unless that puts the timestamp
/// more than 50 years after `now`, in which case the one a century earlier (RFC 9110 §5.6.7).
fn resolve_two_digit_year(
    yy: u32,
    day: u32,
    month: u32,
    hms: (u32, u32, u32),
    now_unix_secs: u64,
) -> i64 {
    /// Fifty years of 365.2425 days.
    const FIFTY_YEARS: i64 = 50 * 31_556_952;
    let now = i64::try_from(now_unix_secs).unwrap_or(i64::MAX);
    let (now_year, _, _) = civil_from_days(now.div_euclid(86_400));
    let year = now_year - now_year.rem_euclid(100) + i64::from(yy);
    // An invalid day is rejected by the caller whichever year is chosen.
    let day = day.clamp(1, days_in_month(year, month.clamp(1, 12)));
    if unix_seconds(year, month, day, hms) > now.saturating_add(FIFTY_YEARS) {
        year - 100
    } else {
        year
    }
}

const fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

const fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to the given proleptic Gregorian date (negative before it).
///
/// Counts in 400-year eras starting on 1 March, so that the leap day is the last day of a year.
fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let (m, d) = (i64::from(month), i64::from(day));
    let y = if m <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y.rem_euclid(400);
    let month_from_march = (m + 9) % 12;
    let day_of_year = (153 * month_from_march + 2) / 5 + d - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The inverse of [`days_from_civil`]: (year, month, day) for a day count since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * month_from_march + 2) / 5 + 1) as u32;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// A forward-only reader over the header bytes.
struct Cursor<'a> {
    rest: &'a [u8],
}

impl<'a> Cursor<'a> {
    fn take_while(&mut self, pred: impl Fn(&u8) -> bool) -> &'a [u8] {
        let n = self.rest.iter().take_while(|b| pred(b)).count();
        let (taken, rest) = self.rest.split_at(n);
        self.rest = rest;
        taken
    }

    fn eat(&mut self, lit: &[u8]) -> bool {
        match self.rest.strip_prefix(lit) {
            Some(rest) => {
                self.rest = rest;
                true
            }
            None => false,
        }
    }

    fn expect(&mut self, lit: &[u8]) -> Result<(), RetryAfterError> {
        if self.eat(lit) {
            Ok(())
        } else {
            Err(RetryAfterError::Malformed)
        }
    }

    /// Exactly `n` ASCII digits (n ≤ 4, so the value fits easily).
    fn digits(&mut self, n: usize) -> Result<u32, RetryAfterError> {
        if self.rest.len() < n {
            return Err(RetryAfterError::Malformed);
        }
        let (head, rest) = self.rest.split_at(n);
        let mut value = 0u32;
        for &b in head {
            if !b.is_ascii_digit() {
                return Err(RetryAfterError::Malformed);
            }
            value = value * 10 + u32::from(b - b'0');
        }
        self.rest = rest;
        Ok(value)
    }

    fn month(&mut self) -> Result<u32, RetryAfterError> {
        let name = self.rest.get(..3).ok_or(RetryAfterError::Malformed)?;
        let index = MONTHS
            .iter()
            .position(|m| *m == name)
            .ok_or(RetryAfterError::Malformed)?;
        self.rest = &self.rest[3..];
        Ok(index as u32 + 1)
    }

    fn time_of_day(&mut self) -> Result<(u32, u32, u32), RetryAfterError> {
        let hour = self.digits(2)?;
        self.expect(b":")?;
        let minute = self.digits(2)?;
        self.expect(b":")?;
        let second = self.digits(2)?;
        Ok((hour, minute, second))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Sun, 06 Nov 1994 08:49:37 GMT, the example date of RFC 9110.
    const RFC_EXAMPLE: u64 = 784_111_777;
    const MAX: Duration = Duration::from_secs(3_600);

    fn delay(v: &str, now: u64) -> Result<u64, RetryAfterError> {
        parse_retry_after(v.as_bytes(), now, MAX).map(|r| r.delay.as_secs())
    }

    #[test]
    fn delay_seconds() {
        assert_eq!(delay("0", 0), Ok(0));
        assert_eq!(delay("120", 0), Ok(120));
        assert_eq!(delay("  7\t", 0), Ok(7));
        assert_eq!(delay("0003", 0), Ok(3));
    }

    #[test]
    fn all_three_date_formats_give_the_same_delay() {
        let now = RFC_EXAMPLE - 90;
        for v in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
        ] {
            assert_eq!(delay(v, now), Ok(90), "{v}");
        }
        assert_eq!(
            delay("Thu Nov 24 08:49:37 1994", RFC_EXAMPLE),
            Ok(MAX.as_secs())
        );
    }

    #[test]
    fn past_dates_are_zero_delay() {
        assert_eq!(
            delay("Sun, 06 Nov 1994 08:49:37 GMT", RFC_EXAMPLE + 5),
            Ok(0)
        );
        assert_eq!(delay("Thu, 01 Jan 1970 00:00:00 GMT", RFC_EXAMPLE), Ok(0));
        assert_eq!(delay("Mon, 01 Jan 1900 00:00:00 GMT", RFC_EXAMPLE), Ok(0));
    }

    #[test]
    fn absurd_values_are_capped_not_overflowed() {
        let r = parse_retry_after(b"18446744073709551616000", 0, MAX).unwrap();
        assert_eq!(
            r,
            RetryAfter {
                delay: MAX,
                capped: true
            }
        );
        let r = parse_retry_after(b"Fri, 31 Dec 9999 23:59:59 GMT", RFC_EXAMPLE, MAX).unwrap();
        assert_eq!(
            r,
            RetryAfter {
                delay: MAX,
                capped: true
            }
        );
        let r = parse_retry_after(b"3600", 0, MAX).unwrap();
        assert!(!r.capped);
        // A "now" far beyond any date does not overflow either.
        assert_eq!(delay("Sun, 06 Nov 1994 08:49:37 GMT", u64::MAX), Ok(0));
    }

    #[test]
    fn garbage_is_an_error() {
        use RetryAfterError::*;
        for (v, e) in [
            ("", Empty),
            ("   ", Empty),
            ("-1", Malformed),
            ("1.5", Malformed),
            ("12 s", Malformed),
            ("soon", Malformed),
            ("Sun, 06 Nov 1994 08:49:37 UTC", Malformed),
            ("Sun, 06 Nov 1994 08:49:37 GMT junk", Malformed),
            ("Sun, 6 Nov 1994 08:49:37 GMT", Malformed),
            ("Sun, 06 Nov 94 08:49:37 GMT", Malformed),
            ("Sund, 06 Nov 1994 08:49:37 GMT", Malformed),
            ("Sun, 06 Noo 1994 08:49:37 GMT", Malformed),
            ("sun, 06 nov 1994 08:49:37 GMT", Malformed),
            ("Sunday, 06-Nov-1994 08:49:37 GMT", Malformed),
            ("Sun Nov 6 08:49:37 1994", Malformed),
            ("Sun, 06 Nov 1994 08:49", Malformed),
            ("Sun, 31 Feb 1994 08:49:37 GMT", InvalidDate),
            ("Sun, 00 Nov 1994 08:49:37 GMT", InvalidDate),
            ("Sun, 06 Nov 1994 24:00:00 GMT", InvalidDate),
            ("Sun, 06 Nov 1994 23:60:00 GMT", InvalidDate),
            ("Sun, 06 Nov 1994 23:59:61 GMT", InvalidDate),
            ("Tue, 29 Feb 2100 00:00:00 GMT", InvalidDate),
        ] {
            assert_eq!(delay(v, RFC_EXAMPLE), Err(e), "{v:?}");
        }
        // Non-ASCII and control bytes.
        assert_eq!(
            parse_retry_after(b"\xff\xfe", 0, MAX),
            Err(RetryAfterError::Malformed)
        );
    }

    #[test]
    fn leap_days_and_leap_seconds() {
        assert_eq!(
            parse_http_date(b"Tue, 29 Feb 2000 00:00:00 GMT", 0),
            Ok(951_782_400)
        );
        assert_eq!(
            parse_http_date(b"Sat, 31 Dec 2016 23:59:60 GMT", 0),
            Ok(1_483_228_800)
        );
    }

    #[test]
    fn rfc850_two_digit_years_resolve_within_fifty_years() {
        // Seen in May 2026: "26" is 2026, "77" is 1977.
        let now_2026 = 1_780_000_000; // 2026-05-28
        let year_of = |yy: &str| {
            let v = format!("Monday, 01-Jun-{yy} 00:00:00 GMT");
            let secs = parse_http_date(v.as_bytes(), now_2026).unwrap();
            civil_from_days(secs.div_euclid(86_400)).0
        };
        assert_eq!(year_of("26"), 2026);
        assert_eq!(year_of("76"), 1976); // 1 June 2076 is 50 years and 4 days ahead
        assert_eq!(year_of("77"), 1977);
        assert_eq!(year_of("00"), 2000);
        // The rule is about timestamps, not calendar years: 1 May 2076 is within 50 years of
        // 28 May 2026, 1 June 2076 is not.
        let may = parse_http_date(b"Friday, 01-May-76 00:00:00 GMT", now_2026).unwrap();
        assert_eq!(civil_from_days(may.div_euclid(86_400)).0, 2076);
    }

    #[test]
    fn absurd_nows_do_not_overflow() {
        for now in [u64::MAX, i64::MAX as u64, i64::MAX as u64 + 1, 0] {
            for v in [
                "Sunday, 06-Nov-94 08:49:37 GMT",
                "Sun, 06 Nov 1994 08:49:37 GMT",
                "Sun Nov  6 08:49:37 1994",
                "99999999999999999999",
            ] {
                assert!(
                    parse_retry_after(v.as_bytes(), now, MAX).is_ok(),
                    "{v} at {now}"
                );
            }
        }
    }

    #[test]
    fn civil_round_trip() {
        // Miri interprets every step: sample the range more sparsely there.
        let stride = if cfg!(miri) { 3_701 } else { 37 };
        for days in (-800_000..800_000).step_by(stride) {
            let (y, m, d) = civil_from_days(days);
            assert!((1..=12).contains(&m) && d >= 1 && d <= days_in_month(y, m));
            assert_eq!(days_from_civil(y, m, d), days);
        }
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(days_from_civil(1994, 11, 6), 9_075);
    }
}
