//! 64-bit division that does not link the general 64-bit division routine on 32-bit cores.
//!
//! On a Cortex-M, `u64 / u64` calls compiler-builtins' general division, about 900 bytes of
//! flash: as much as a quarter of the whole limiter. The controllers divide a few times per
//! sample, so a shift-and-subtract loop (a few dozen bytes, at most 64 steps) is the better trade
//! there; on 64-bit targets the hardware instruction is used.

/// `n / d`, rounded down; `u64::MAX` for `d == 0` (callers never divide by zero).
#[inline]
pub(crate) const fn div_u64(n: u64, d: u64) -> u64 {
    if d == 0 {
        return u64::MAX;
    }
    if cfg!(target_pointer_width = "64") {
        n / d
    } else {
        soft_div(n, d)
    }
}

/// Long division, one bit per step, in 64-bit shifts, subtractions and comparisons only. `d` is
/// not zero.
///
/// One copy, out of line, for every caller, and no 32-bit shortcut: on a Cortex-M0 firmware
/// (`bash scripts/footprint.sh`) the two cost 180 bytes of flash, and the controllers' hot
/// division (a growth step, `step · 2^32 / limit`) never fits 32 bits anyway.
#[inline(never)]
const fn soft_div(n: u64, d: u64) -> u64 {
    if n < d {
        return 0;
    }
    if d > 1 << 63 {
        return 1; // n >= d > 2^63: the quotient is 1
    }
    // The remainder and the dividend shift left together, one place per step (a shift by a
    // variable amount is a routine call on a Cortex-M0), and each quotient bit enters the
    // dividend's low end as its top bit leaves: after 64 steps the dividend is the quotient.
    // r < d <= 2^63 at every step, so r << 1 cannot overflow.
    let (mut r, mut q) = (0u64, n);
    let mut bits = 64;
    while bits > 0 {
        bits -= 1;
        r = (r << 1) | (q >> 63);
        q <<= 1;
        if r >= d {
            r -= d;
            q |= 1;
        }
    }
    q
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_long_division_agrees_with_the_operator() {
        let edges = [
            0,
            1,
            2,
            3,
            7,
            1 << 16,
            u32::MAX as u64,
            1 << 32,
            (1 << 32) + 1,
            1 << 40,
        ];
        let edges = edges.into_iter().chain([
            1 << 62,
            (1 << 63) - 1,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX - 1,
            u64::MAX,
        ]);
        let edges: Vec<u64> = edges.collect();
        for &n in &edges {
            for &d in edges.iter().filter(|&&d| d != 0) {
                assert_eq!(soft_div(n, d), n / d, "{n} / {d}");
            }
        }
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..if cfg!(miri) { 1_000 } else { 200_000 } {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let n = x;
            let d = (x.rotate_left(29) >> (x % 64)).max(1);
            assert_eq!(soft_div(n, d), n / d, "{n} / {d}");
            assert_eq!(div_u64(n, d), n / d);
        }
        assert_eq!(div_u64(5, 0), u64::MAX);
    }
}
