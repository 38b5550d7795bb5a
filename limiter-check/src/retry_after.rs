//! The Retry-After parser: arbitrary bytes, and round trips through a second, deliberately naive
//! implementation of the calendar.

use arbitrary::{Arbitrary, Unstructured};
use core::time::Duration;
use limiter_core::{parse_http_date, parse_retry_after};

/// The last second of 9999, the largest year the four-digit formats can write.
const LAST_SECOND: u64 = 253_402_300_799;
const FIFTY_YEARS: i64 = 50 * 31_556_952;
const DAY_NAMES: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
const LONG_DAY_NAMES: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];
const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

#[derive(Arbitrary, Debug)]
struct Input {
    timestamp: u64,
    now: u64,
    max_secs: u32,
    delay: u64,
    raw_now: u64,
}

/// Whatever the bytes: no panic, a delay never above the maximum, `capped` exactly when the
/// header asked for more. Then a timestamp and a "now" decoded from the same bytes are written in
/// all three HTTP-date formats and as delay-seconds, and must parse back to what was written.
pub fn retry_after(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(input) = Input::arbitrary(&mut u) else {
        return;
    };
    let max = Duration::from_secs(u64::from(input.max_secs));
    let raw = u.take_rest();
    if let Ok(r) = parse_retry_after(raw, input.raw_now, max) {
        assert!(r.delay <= max);
        assert!(!r.capped || r.delay == max);
    }

    let t = input.timestamp % (LAST_SECOND + 1);
    let now = input.now % (LAST_SECOND + 1);
    let d = Date::from_unix(t);
    let imf = format!(
        "{}, {:02} {} {:04} {:02}:{:02}:{:02} GMT",
        DAY_NAMES[d.weekday],
        d.day,
        MONTHS[d.month - 1],
        d.year,
        d.hour,
        d.minute,
        d.second
    );
    let asctime = format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {:04}",
        DAY_NAMES[d.weekday],
        MONTHS[d.month - 1],
        d.day,
        d.hour,
        d.minute,
        d.second,
        d.year
    );
    for text in [&imf, &asctime] {
        assert_eq!(
            parse_http_date(text.as_bytes(), now),
            Ok(t as i64),
            "{text}"
        );
        let r = parse_retry_after(text.as_bytes(), now, max).expect(text);
        assert_eq!(
            r.delay,
            Duration::from_secs(t.saturating_sub(now)).min(max),
            "{text}"
        );
    }

    // RFC 850 writes two digits of the year; the reader takes the century that puts the date at
    // most 50 years after now.
    let rfc850 = format!(
        "{}, {:02}-{}-{:02} {:02}:{:02}:{:02} GMT",
        LONG_DAY_NAMES[d.weekday],
        d.day,
        MONTHS[d.month - 1],
        d.year % 100,
        d.hour,
        d.minute,
        d.second
    );
    let now_year = Date::from_unix(now).year;
    let mut year = now_year - now_year % 100 + d.year % 100;
    let expected = loop {
        let day = d.day.min(days_in_month(year, d.month));
        let ts = unix(year, d.month, day) + d.seconds_of_day;
        if ts > now as i64 + FIFTY_YEARS {
            year -= 100;
        } else {
            break (day == d.day).then_some(ts);
        }
    };
    match expected {
        Some(ts) => assert_eq!(parse_http_date(rfc850.as_bytes(), now), Ok(ts), "{rfc850}"),
        // 29 Feb of a year that, a century off, is not a leap year.
        None => assert!(parse_http_date(rfc850.as_bytes(), now).is_err(), "{rfc850}"),
    }

    let r = parse_retry_after(input.delay.to_string().as_bytes(), now, max).unwrap();
    assert_eq!(r.delay, Duration::from_secs(input.delay).min(max));
    assert_eq!(r.capped, Duration::from_secs(input.delay) > max);
}

fn is_leap(year: i64) -> bool {
    year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
}

fn days_in_month(year: i64, month: usize) -> usize {
    [
        31,
        if is_leap(year) { 29 } else { 28 },
        31,
        30,
        31,
        30,
        31,
        31,
        30,
        31,
        30,
        31,
    ][month - 1]
}

/// Seconds from 1970 to midnight of a date, by counting days one year and one month at a time.
fn unix(year: i64, month: usize, day: usize) -> i64 {
    let year_len = |y| if is_leap(y) { 366 } else { 365 };
    let mut days: i64 = if year >= 1970 {
        (1970..year).map(year_len).sum()
    } else {
        -(year..1970).map(year_len).sum::<i64>()
    };
    days += (1..month)
        .map(|m| days_in_month(year, m) as i64)
        .sum::<i64>();
    days += day as i64 - 1;
    days * 86_400
}

struct Date {
    year: i64,
    month: usize,
    day: usize,
    weekday: usize,
    hour: u64,
    minute: u64,
    second: u64,
    seconds_of_day: i64,
}

impl Date {
    fn from_unix(t: u64) -> Date {
        let mut days = t / 86_400;
        let weekday = (days % 7) as usize;
        let mut year = 1970;
        loop {
            let len = if is_leap(year) { 366 } else { 365 };
            if days < len {
                break;
            }
            days -= len;
            year += 1;
        }
        let mut month = 1;
        while days >= days_in_month(year, month) as u64 {
            days -= days_in_month(year, month) as u64;
            month += 1;
        }
        let secs = t % 86_400;
        Date {
            year,
            month,
            day: days as usize + 1,
            weekday,
            hour: secs / 3_600,
            minute: secs / 60 % 60,
            second: secs % 60,
            seconds_of_day: secs as i64,
        }
    }
}
