//! [`LimitRecord`]: a learned limit that survives a restart, and decays toward the safe initial
//! value as it ages.
//!
//! A process that restarts forgets what its limiters learned and starts every dependency from the
//! initial limit again; one that restores a stale limit may start far above what a dependency
//! can take today. A record carries the limit with its scope (the key it belongs to), the bounds
//! it was learned within and when; on import the limit is pulled toward the initial value by
//! half for every `half_life` of age, and clamped to the bounds in force now.

use crate::gate::snapshot::Snapshot;

/// The format version written by [`LimitRecord::encode`].
const VERSION: u8 = 1;

/// Why a stored record was refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub enum RecordError {
    /// Not [`LimitRecord::ENCODED_LEN`] bytes.
    Length,
    /// A format version this code does not read.
    Version,
    /// The checksum does not match: the bytes were damaged.
    Checksum,
    /// The floor is zero or above the ceiling, or the limit is outside them.
    Bounds,
    /// The record belongs to another scope.
    Scope,
}

impl core::fmt::Display for RecordError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            RecordError::Length => "a limit record has the wrong length",
            RecordError::Version => "a limit record of an unknown version",
            RecordError::Checksum => "a damaged limit record",
            RecordError::Bounds => "a limit record with impossible bounds",
            RecordError::Scope => "a limit record of another scope",
        })
    }
}

impl core::error::Error for RecordError {}

/// A limit learned for one scope, as exported and re-imported.
///
/// ```
/// use limiter_core::{LimitRecord, RecordError};
///
/// let record = LimitRecord { scope: 42, limit: 40, min: 1, max: 64, at_unix_secs: 1_000_000 };
/// let bytes = record.encode();
/// assert_eq!(LimitRecord::decode(&bytes, 42), Ok(record));
/// assert_eq!(LimitRecord::decode(&bytes, 7), Err(RecordError::Scope));
///
/// // Restored against an initial limit of 4: fresh, one half-life old, long forgotten.
/// let hour = 3_600;
/// assert_eq!(record.restored_limit(4, (1, 64), 1_000_000, hour), 40);
/// assert_eq!(record.restored_limit(4, (1, 64), 1_000_000 + hour as u64, hour), 22);
/// assert_eq!(record.restored_limit(4, (1, 64), 1_000_000 + 40 * hour as u64, hour), 4);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
pub struct LimitRecord {
    /// What the limit belongs to: the caller's identifier (or hash) of the key.
    pub scope: u64,
    /// The learned limit.
    pub limit: u32,
    /// The floor it was learned within.
    pub min: u32,
    /// The ceiling it was learned within.
    pub max: u32,
    /// When it was exported, in seconds since the Unix epoch.
    pub at_unix_secs: u64,
}

impl LimitRecord {
    /// The size of an encoded record: version, scope, limit, min, max, time, checksum.
    pub const ENCODED_LEN: usize = 1 + 8 + 4 + 4 + 4 + 8 + 4;

    /// The record of `snapshot`'s limit and bounds for `scope`, exported at `now_unix_secs`.
    pub const fn from_snapshot(snapshot: &Snapshot, scope: u64, now_unix_secs: u64) -> Self {
        LimitRecord {
            scope,
            limit: snapshot.limit,
            min: snapshot.min,
            max: snapshot.max,
            at_unix_secs: now_unix_secs,
        }
    }

    /// Little-endian fields after a version byte, then a checksum of everything before it.
    pub fn encode(&self) -> [u8; Self::ENCODED_LEN] {
        let mut out = [0u8; Self::ENCODED_LEN];
        out[0] = VERSION;
        out[1..9].copy_from_slice(&self.scope.to_le_bytes());
        out[9..13].copy_from_slice(&self.limit.to_le_bytes());
        out[13..17].copy_from_slice(&self.min.to_le_bytes());
        out[17..21].copy_from_slice(&self.max.to_le_bytes());
        out[21..29].copy_from_slice(&self.at_unix_secs.to_le_bytes());
        let sum = checksum(&out[..29]);
        out[29..33].copy_from_slice(&sum.to_le_bytes());
        out
    }

    /// Reads a record written by [`LimitRecord::encode`] for `scope`, checking everything it can.
    pub fn decode(bytes: &[u8], scope: u64) -> Result<Self, RecordError> {
        let bytes: &[u8; Self::ENCODED_LEN] = bytes.try_into().map_err(|_| RecordError::Length)?;
        if bytes[0] != VERSION {
            return Err(RecordError::Version);
        }
        let u32_at = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let u64_at = |at: usize| (u64::from(u32_at(at + 4)) << 32) | u64::from(u32_at(at));
        if u32_at(29) != checksum(&bytes[..29]) {
            return Err(RecordError::Checksum);
        }
        let record = LimitRecord {
            scope: u64_at(1),
            limit: u32_at(9),
            min: u32_at(13),
            max: u32_at(17),
            at_unix_secs: u64_at(21),
        };
        if record.min == 0
            || record.min > record.max
            || !(record.min..=record.max).contains(&record.limit)
        {
            return Err(RecordError::Bounds);
        }
        if record.scope != scope {
            return Err(RecordError::Scope);
        }
        Ok(record)
    }

    /// The limit to start from at `now_unix_secs`: the recorded one pulled toward `initial` by
    /// half for every `half_life_secs` of age (linearly within a half-life), then clamped to
    /// `bounds` (the floor and ceiling in force now). A record from the future (a clock that
    /// stepped) is not trusted: `initial`. A zero half-life forgets at once.
    pub fn restored_limit(
        &self,
        initial: u32,
        bounds: (u32, u32),
        now_unix_secs: u64,
        half_life_secs: u32,
    ) -> u32 {
        let (min, max) = (bounds.0.max(1), bounds.1.max(bounds.0.max(1)));
        let initial = initial.clamp(min, max);
        if now_unix_secs < self.at_unix_secs || half_life_secs == 0 {
            return initial;
        }
        let age = now_unix_secs - self.at_unix_secs;
        let half_lives = crate::num::divide::div_u64(age, u64::from(half_life_secs));
        if half_lives >= 32 {
            return initial;
        }
        // The weight of the recorded limit, in 1/65536ths: 2^-whole, then linearly toward half
        // of that across the fraction of the current half-life.
        let whole = 65_536u64 >> half_lives;
        let into = age - half_lives * u64::from(half_life_secs);
        let weight =
            whole - crate::num::divide::div_u64(whole * into, 2 * u64::from(half_life_secs));
        let (from, to) = (u64::from(initial), u64::from(self.limit));
        let restored = if to >= from {
            from + ((to - from) * weight + 32_768) / 65_536
        } else {
            from - ((from - to) * weight + 32_768) / 65_536
        };
        (restored as u32).clamp(min, max)
    }
}

/// FNV-1a, 32 bits: enough to tell a damaged record from a sound one.
fn checksum(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5, |h: u32, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    })
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

    fn random_record(rng: &mut u64) -> LimitRecord {
        let min = 1 + (xorshift(rng) % 100) as u32;
        let max = min + (xorshift(rng) % 1_000) as u32;
        LimitRecord {
            scope: xorshift(rng),
            limit: min + (xorshift(rng) % u64::from(max - min + 1)) as u32,
            min,
            max,
            at_unix_secs: xorshift(rng) >> 20,
        }
    }

    #[test]
    fn records_round_trip_and_any_damage_is_refused() {
        let mut rng = 7;
        for _ in 0..if cfg!(miri) { 20 } else { 5_000 } {
            let record = random_record(&mut rng);
            let bytes = record.encode();
            assert_eq!(LimitRecord::decode(&bytes, record.scope), Ok(record));
            let mut damaged = bytes;
            let at = (xorshift(&mut rng) as usize) % bytes.len();
            damaged[at] ^= 1 << (xorshift(&mut rng) % 8);
            assert!(
                LimitRecord::decode(&damaged, record.scope).is_err(),
                "one flipped bit"
            );
            let cut = (xorshift(&mut rng) as usize) % bytes.len();
            assert_eq!(
                LimitRecord::decode(&bytes[..cut], record.scope),
                Err(RecordError::Length)
            );
        }
        // Arbitrary bytes never panic.
        for _ in 0..if cfg!(miri) { 20 } else { 5_000 } {
            let mut bytes = [0u8; LimitRecord::ENCODED_LEN];
            for b in &mut bytes {
                *b = xorshift(&mut rng) as u8;
            }
            let _ = LimitRecord::decode(&bytes, 0);
        }
    }

    #[test]
    fn a_restored_limit_decays_monotonically_toward_the_initial_one_within_bounds() {
        let mut rng = 11;
        for _ in 0..if cfg!(miri) { 10 } else { 2_000 } {
            let record = random_record(&mut rng);
            let initial =
                record.min + (xorshift(&mut rng) % u64::from(record.max - record.min + 1)) as u32;
            let bounds = (record.min, record.max);
            let half_life = 1 + (xorshift(&mut rng) % 10_000) as u32;
            let at = record.at_unix_secs;
            assert_eq!(
                record.restored_limit(initial, bounds, at, half_life),
                record.limit
            );
            let mut previous = record.limit;
            let mut age = 0u64;
            while age < 40 * u64::from(half_life) {
                age += 1 + xorshift(&mut rng) % u64::from(half_life);
                let now = record.restored_limit(initial, bounds, at + age, half_life);
                assert!((record.min..=record.max).contains(&now));
                let (lo, hi) = (initial.min(previous), initial.max(previous));
                assert!(
                    (lo..=hi).contains(&now),
                    "{previous} -> {now}, initial {initial}"
                );
                previous = now;
            }
            assert_eq!(previous, initial, "forgotten after 32 half-lives");
            assert_eq!(
                record.restored_limit(initial, bounds, at.saturating_sub(100), half_life),
                initial
            );
        }
    }
}
