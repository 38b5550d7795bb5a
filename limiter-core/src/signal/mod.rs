//! Signals: what a finished call says about capacity. [`Outcome`] and [`Cause`], the
//! [`Classify`] trait that turns a call's output into a [`Verdict`], [`HttpClassifier`] for
//! status codes and responses, the bounded `Retry-After` parser and the remaining-quota hints.

pub(crate) mod classify;
pub(crate) mod http;
pub(crate) mod outcome;
pub(crate) mod quota_hint;
pub(crate) mod retry_after;
