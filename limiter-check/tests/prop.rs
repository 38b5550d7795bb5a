//! The checks of `limiter-check`, driven by proptest on stable, so every `cargo test` runs them.
//! Failing inputs are persisted in `prop.proptest-regressions` and replayed first.

use proptest::collection::vec;
use proptest::prelude::*;

fn config(cases: u32) -> ProptestConfig {
    ProptestConfig {
        cases,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config(2_048))]

    #[test]
    fn controller_invariants(bytes in vec(any::<u8>(), 0..2_048)) {
        limiter_check::controller(&bytes);
    }

    #[test]
    fn aimd_follows_its_model_over_round_trips(bytes in vec(any::<u8>(), 0..2_048)) {
        limiter_check::controller_rounds(&bytes);
    }

    #[test]
    fn aimd_follows_its_model_under_a_quota_that_falls(bytes in vec(any::<u8>(), 0..512)) {
        limiter_check::controller_quota(&bytes);
    }

    #[test]
    fn aimd_follows_its_model_under_a_quota_that_holds_and_moves(bytes in vec(any::<u8>(), 0..256)) {
        limiter_check::controller_quota_levels(&bytes);
    }

    #[test]
    fn fixed_and_float_agree(bytes in vec(any::<u8>(), 0..2_048)) {
        limiter_check::fixed_vs_float(&bytes);
    }

    #[test]
    fn window_matches_sorting(bytes in vec(any::<u8>(), 0..2_048)) {
        limiter_check::window(&bytes);
    }

    #[test]
    fn retry_after_round_trips(bytes in vec(any::<u8>(), 0..256)) {
        limiter_check::retry_after(&bytes);
    }

    #[test]
    fn quota_hints_round_trip_and_match_the_reference(bytes in vec(any::<u8>(), 0..256)) {
        limiter_check::quota_hint(&bytes);
    }

    #[test]
    fn retry_budget_follows_its_counts(bytes in vec(any::<u8>(), 0..2_048)) {
        limiter_check::retry_budget(&bytes);
    }

    #[test]
    fn gate_follows_its_model(bytes in vec(any::<u8>(), 0..1_024)) {
        limiter_check::gate(&bytes);
    }
}
