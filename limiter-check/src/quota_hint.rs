//! The remaining-quota parsers: arbitrary bytes, a plain reference reading of the draft-7
//! dictionary, and round trips through every form a provider writes.

use arbitrary::{Arbitrary, Unstructured};
use core::time::Duration;
use limiter_core::{QuotaHint, QuotaLeft, parse_quota_count, parse_quota_reset, parse_ratelimit};

#[derive(Arbitrary, Debug)]
struct Input {
    remaining: u64,
    limit: u64,
    reset: u32,
    max_secs: u16,
    now: u32,
    /// Which byte of a written number to spoil, and with what.
    spoil_at: u8,
    spoil_with: u8,
}

/// The draft-7 dictionary read the plainest way: split on commas and `=`, parse with `str`,
/// trimming HTTP's optional whitespace (spaces and tabs). `None` where it would not accept the
/// value.
fn reference_dictionary(value: &str, max: Duration) -> Option<QuotaHint> {
    const OWS: [char; 2] = [' ', '\t'];
    if value.matches('"').count() % 2 == 1 {
        return None; // a quoted string never closed
    }
    let mut hint = QuotaHint::default();
    for member in value.split(',') {
        let (key, number) = member.split_once('=')?;
        let key = key.trim_matches(OWS);
        if !["limit", "remaining", "reset"].contains(&key) {
            continue; // an unknown key's value may be anything
        }
        let number = number.split(';').next()?.trim_matches(OWS);
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let n = number.parse::<u64>().unwrap_or(u64::MAX);
        match key {
            "limit" => hint.limit = Some(n),
            "remaining" => hint.remaining = Some(n),
            _ => hint.reset = Some(Duration::from_secs(n).min(max)),
        }
    }
    Some(hint)
}

/// Whatever the bytes: no panic, no reset above the maximum, advice never above it either.
/// Then numbers decoded from the same bytes are written as a draft-7 dictionary, a draft-8
/// policy list and `X-RateLimit-*` headers, and must read back as written (the reset bounded);
/// the dictionary agrees with the reference reading; and a number with a byte spoiled either
/// still reads as the reference says or is refused.
pub fn quota_hint(data: &[u8]) {
    let mut u = Unstructured::new(data);
    let Ok(input) = Input::arbitrary(&mut u) else {
        return;
    };
    let max = Duration::from_secs(u64::from(input.max_secs));
    let raw = u.take_rest();
    if let Ok(hint) = parse_ratelimit(raw, max) {
        assert!(hint.reset.is_none_or(|r| r <= max), "{hint:?}");
        let advice = hint.advice();
        assert!(advice.hold_admissions.is_none_or(|d| d <= max));
        assert!(advice.hold_growth.is_none_or(|d| d <= max));
        assert!(advice.hold_admissions.is_none() || advice.hold_growth.is_none());
        // Calls left only while some are, and with the hint's own numbers.
        if let Some(left) = advice.left {
            assert!(advice.hold_admissions.is_none());
            assert_eq!(
                (Some(left.calls), Some(left.reset)),
                (hint.remaining, hint.reset)
            );
            assert!(left.calls > 0);
            check_pace(left, Duration::from_micros(u64::from(input.now)));
        }
    }
    // The pace on the input's own numbers, at latencies around the reset.
    let left = QuotaLeft {
        calls: input.remaining,
        reset: Duration::from_micros(u64::from(input.reset)),
    };
    for latency in [input.now, input.reset.saturating_sub(1), input.reset, 1] {
        check_pace(left, Duration::from_micros(u64::from(latency)));
    }
    // And resets past 2^32 µs, with latencies as long.
    let long = QuotaLeft {
        reset: Duration::from_micros(u64::from(input.reset) << 24 | u64::from(input.now)),
        ..left
    };
    for latency in [u64::from(input.now) << 20, input.limit % (1 << 56)] {
        check_pace(long, Duration::from_micros(latency));
    }
    if let Ok(reset) = parse_quota_reset(raw, u64::from(input.now), max) {
        assert!(reset <= max);
    }
    let _ = parse_quota_count(raw);

    let reset = Duration::from_secs(u64::from(input.reset)).min(max);
    let written = QuotaHint {
        remaining: Some(input.remaining),
        limit: Some(input.limit),
        reset: Some(reset),
    };
    let dictionary = format!(
        "limit={}, remaining={}, reset={}",
        input.limit, input.remaining, input.reset
    );
    let policies = format!(
        "\"window, long\";q={};r={};t={}, other;r={};t=1",
        input.limit,
        input.remaining,
        input.reset,
        input.remaining.saturating_add(1),
    );
    assert_eq!(
        parse_ratelimit(dictionary.as_bytes(), max),
        Ok(written),
        "{dictionary}"
    );
    assert_eq!(
        parse_ratelimit(policies.as_bytes(), max),
        Ok(written),
        "{policies}"
    );
    assert_eq!(
        reference_dictionary(&dictionary, max),
        Some(written),
        "{dictionary}"
    );
    assert_eq!(
        parse_quota_count(input.remaining.to_string().as_bytes()),
        Ok(input.remaining)
    );
    let delay = u64::from(input.reset) % 1_000_000_000;
    assert_eq!(
        parse_quota_reset(delay.to_string().as_bytes(), u64::from(input.now), max),
        Ok(Duration::from_secs(delay).min(max))
    );
    let at = 1_000_000_000 + u64::from(input.now) + u64::from(input.reset);
    assert_eq!(
        parse_quota_reset(
            at.to_string().as_bytes(),
            1_000_000_000 + u64::from(input.now),
            max
        ),
        Ok(reset),
        "a Unix time"
    );

    // A spoiled byte: our reading matches the reference, or both refuse.
    let mut spoiled = dictionary.into_bytes();
    let at = usize::from(input.spoil_at) % spoiled.len();
    spoiled[at] = input.spoil_with;
    let ours = parse_ratelimit(&spoiled, max);
    // Bytes that are not UTF-8 can only spoil a key (skipped) or a number (refused) in both.
    let theirs = reference_dictionary(&String::from_utf8_lossy(&spoiled), max);
    match (ours, theirs) {
        (Ok(a), Some(b)) => assert_eq!(a, b, "{spoiled:?}"),
        (Err(_), None) => {}
        // The reference is stricter where a spoiled byte starts a policy item (no `=`) or
        // a quoted string: ours reads it as a later draft's list, which is allowed.
        (Ok(_), None) => assert!(
            !spoiled.split(|&b| b == b',').all(|m| m.contains(&b'=')) || spoiled.contains(&b'"'),
            "{spoiled:?} accepted, the reference refuses it"
        ),
        (Err(e), Some(b)) => panic!("{spoiled:?}: {e}, the reference reads {b:?}"),
    }
}

/// [`QuotaLeft::concurrency`] against its documentation, in 128-bit arithmetic: `⌈calls ×
/// latency / reset⌉` in microseconds, at most the calls and `u32::MAX`; none for no latency, no
/// calls, or a latency as long as the reset. Exact unless the product passes u64 with a reset
/// of 2^32 µs or more, and within a millionth then.
fn check_pace(left: QuotaLeft, latency: Duration) {
    let micros = |d: Duration| u128::from(limiter_core::duration_to_micros(d));
    let (l, r, calls) = (micros(latency), micros(left.reset), u128::from(left.calls));
    let exact = (l > 0 && l < r && calls > 0).then(|| (calls * l).div_ceil(r).min(calls));
    let got = left.concurrency(latency);
    let capped = exact.map(|pace| u32::try_from(pace).unwrap_or(u32::MAX));
    if got == capped {
        return;
    }
    if calls * l <= u128::from(u64::MAX) || r < 1 << 32 {
        assert_eq!(got, capped, "{left:?} at {latency:?}");
    } else {
        // Past u64 with a reset of 71 minutes or more: within a millionth (and a call).
        let (Some(got), Some(exact)) = (got, exact) else {
            panic!("{left:?} at {latency:?}: {got:?}, not {exact:?}");
        };
        let near = exact.abs_diff(u128::from(got)) <= 1 + exact / 1_000_000;
        assert!(
            near || (got == u32::MAX && exact >= u128::from(u32::MAX)),
            "{left:?} at {latency:?}: {got}, not {exact}"
        );
    }
}
