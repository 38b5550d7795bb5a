//! Reference models and invariant checks for `limiter-core`, decoded from raw bytes.
//!
//! Each public function takes arbitrary bytes, turns them into a sequence of operations with
//! [`arbitrary`], runs them against the real code and a reference (a simple model, a sort, a
//! second implementation), and panics on the first disagreement or broken invariant. The same
//! functions are driven by proptest in `cargo test` (stable, every CI run) and by the cargo-fuzz
//! targets in `fuzz/` (coverage-guided, for long runs).
//!
//! ```
//! limiter_check::window(&[1, 2, 3, 4, 5, 6, 7, 8]);
//! limiter_check::retry_after(b"Sun, 06 Nov 1994 08:49:37 GMT");
//! ```

// Every check panics by design (that is how a failure reaches proptest and libFuzzer), the
// reference calendar casts bounded values, and the gate check is one long model step.
#![allow(
    clippy::missing_panics_doc,
    clippy::cast_possible_wrap,
    clippy::too_many_lines
)]

mod controller;
mod gate;
mod quota_hint;
mod retry_after;
mod retry_budget;
mod window;

pub use controller::{
    controller, controller_quota, controller_quota_levels, controller_rounds, fixed_vs_float,
};
pub use gate::gate;
pub use quota_hint::quota_hint;
pub use retry_after::retry_after;
pub use retry_budget::retry_budget;
pub use window::window;

use arbitrary::{Arbitrary, Unstructured};

/// Decodes operations until the bytes run out.
///
/// `arbitrary`'s own collections spend a "keep going" bit per element, so random bytes (as
/// proptest gives them) make sequences of two or three operations on average; this reads
/// operations back to back instead, so every byte is part of the sequence.
fn sequence<'a, T: Arbitrary<'a>>(mut u: Unstructured<'a>) -> Vec<T> {
    let mut ops = Vec::new();
    while !u.is_empty() {
        match T::arbitrary(&mut u) {
            Ok(op) => ops.push(op),
            Err(_) => break,
        }
    }
    ops
}

/// A latency in microseconds as a `MedianWindow` keeps it, from its documentation: saturated to
/// 32 bits, then rounded down to its 12 most significant bits.
fn stored_latency(micros: u64) -> u32 {
    let saturated = u32::try_from(micros).unwrap_or(u32::MAX);
    let width = u32::BITS - saturated.leading_zeros();
    let dropped = width.saturating_sub(12);
    (saturated >> dropped) << dropped
}
