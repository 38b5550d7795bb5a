//! Policies beside the limit: a provider's quota ([`Gcra`]), a retry budget, backoff with
//! jitter, and a learned limit kept across restarts.

pub(crate) mod backoff;
pub(crate) mod persist;
pub(crate) mod quota;
pub(crate) mod retry_budget;
#[cfg(feature = "std")]
pub(crate) mod shared;
