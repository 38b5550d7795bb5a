//! Models of the dependency a client calls: what a call costs and how it ends, and the
//! concurrency an oracle would use.

use crate::rng::Rng;

/// How the dependency answers a call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Served.
    Ok,
    /// Refused with 429 (optionally with a Retry-After, in µs).
    Throttled {
        /// The hinted wait, if any.
        retry_after_us: Option<u64>,
    },
    /// Refused with 503: the dependency pushes back.
    Unavailable,
    /// Answered as a timeout after the call's duration (a gateway's 504).
    Timeout,
    /// Failed in a way that says nothing about load (a 500): the limiter ignores it.
    Failed,
    /// Never answered: the client's timeout ends the call (a run without one is an error).
    NoAnswer,
}

/// A call as the upstream decides it at its start.
#[derive(Clone, Copy, Debug)]
pub struct Call {
    /// How long the answer takes, in µs (unused for [`Reply::NoAnswer`]). A call slower than
    /// the client's timeout ends at the timeout instead.
    pub duration_us: u64,
    /// How it ends.
    pub reply: Reply,
}

/// A call starting, as the upstream sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallStart {
    /// The call's id, unique within a run (a retry is a new call).
    pub id: u64,
    /// The client making it, from 0.
    pub client: usize,
    /// When it starts, µs.
    pub at_us: u64,
}

/// How a call ended for the client.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// The upstream's answer arrived (what [`Upstream::start`] decided).
    Answered(Reply),
    /// The client's timeout fired first and the client gave up on the call.
    TimedOut,
}

/// A call ending, as the upstream sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallEnd {
    /// The id it started with.
    pub id: u64,
    /// The client that made it.
    pub client: usize,
    /// When it ended, µs.
    pub at_us: u64,
    /// Answered, or given up by the client.
    pub ending: Ending,
}

/// Which of the clients active at an instant one client is: `index` of `count`. An oracle's share
/// of a capacity `C` is `C / count`, the first `C mod count` clients taking one more, so that the
/// shares add up to exactly `C`: a true bound whether or not `count` divides `C`, as long as
/// `C ≥ count` (below that every client still gets 1, and the shares add up to `count`: the
/// suite's shared scenarios give each client a capacity of 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Share {
    /// This client's rank among the active clients, from 0.
    pub index: usize,
    /// How many clients are active.
    pub count: usize,
}

impl Share {
    /// This client's share of `total`, at least 1.
    pub fn of(self, total: u64) -> u32 {
        let count = self.count.max(1) as u64;
        let extra = u64::from((self.index as u64) < total % count);
        u32::try_from((total / count + extra).max(1)).unwrap_or(u32::MAX)
    }
}

/// A dependency, shared by every client of a scenario. Clients are numbered from 0 (a client
/// is a tenant, an account, a process: whatever the dependency tells apart).
///
/// Every call the upstream starts is ended exactly once, with the same id, in time order
/// ([`Upstream::end`] at the answer, or at the client's timeout).
pub trait Upstream {
    /// A call starts; the upstream decides how long it takes and how it ends.
    fn start(&mut self, call: &CallStart, rng: &mut Rng) -> Call;
    /// A call ends.
    fn end(&mut self, call: &CallEnd);
    /// The remaining-quota headers the answer to call `id` carried, if the provider sends them
    /// (asked once, when the call ends).
    fn take_hint(&mut self, _id: u64) -> Option<QuotaHeaders> {
        None
    }
    /// The concurrency one client can have in flight at `now` without queueing or refusals,
    /// when the active clients share the dependency fairly: what an oracle limiter uses. It must
    /// be an upper bound: no limiter can serve more calls than the oracle does.
    fn oracle_limit(&self, now: u64, client: usize, share: Share) -> u32;
    /// The first instant after `now` at which [`Upstream::oracle_limit`] may answer differently
    /// (a capacity step); `now` means "ask again at every event".
    fn oracle_steady_until(&self, now: u64) -> u64 {
        now
    }
}

/// A provider's remaining-quota headers on one answer: calls left in the window, the window's
/// quota, and when it resets (an instant, µs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QuotaHeaders {
    /// Calls left in the window when the call was counted.
    pub remaining: u32,
    /// The window's quota.
    pub limit: u32,
    /// When the window resets, µs.
    pub reset_at_us: u64,
}

/// A value that changes at given times: `(from_us, value)` steps, sorted by time.
#[derive(Clone, Debug)]
pub struct Schedule(pub Vec<(u64, u32)>);

impl Schedule {
    /// The value in force at `now`.
    pub fn at(&self, now: u64) -> u32 {
        self.0
            .iter()
            .take_while(|(from, _)| *from <= now)
            .last()
            .map_or(0, |(_, v)| *v)
    }

    /// The first step after `now`, or `u64::MAX`.
    pub fn next_step(&self, now: u64) -> u64 {
        self.0
            .iter()
            .map(|(from, _)| *from)
            .find(|&from| from > now)
            .unwrap_or(u64::MAX)
    }

    /// The smallest value it ever takes.
    pub fn min(&self) -> u32 {
        self.0.iter().map(|(_, v)| *v).min().unwrap_or(0)
    }
}

/// How service time grows with the calls in flight above the capacity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Growth {
    /// `base × (1 + per_call × calls above capacity)`: a queue in front of the dependency.
    /// `per_call` 1 is a queue of `base`-long services (seed 000); 0.1 is a shallow knee; a slow
    /// link (fixed propagation delay plus a per-call transmission time) is `per_call` =
    /// transmission / base with the bandwidth-delay product as the capacity. The oracle's
    /// capacity is an upper bound on goodput while `per_call × capacity ≥ 1`: past the knee,
    /// throughput then never rises.
    Linear {
        /// The latency each call above capacity adds, in units of `base`.
        per_call: f64,
    },
    /// `base × in-flight / capacity` above capacity: latency proportional to load, throughput
    /// flat past the knee.
    Proportional,
}

/// What happens to a call that arrives with more than the hard cap in flight.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OverCap {
    /// It fails as a timeout after `base` (seed 000: "timeouts past 25").
    TimeoutAfterBase,
    /// The server stops answering: the client's timeout ends it.
    NoAnswer,
    /// The server answers 503 within `after_us` (fast back-pressure).
    Unavailable {
        /// How soon the refusal arrives, µs.
        after_us: u64,
    },
}

/// Service time grows with in-flight calls above a capacity ([`Growth`]); past a hard cap the
/// dependency fails calls ([`OverCap`]). A call's own service is `base` plus an exponential
/// jitter, and the growth multiplies both.
#[derive(Clone, Debug)]
pub struct Queueing {
    /// The capacity over time.
    pub capacity: Schedule,
    /// Service time at or below capacity, µs.
    pub base_us: u64,
    /// How service time grows above capacity.
    pub growth: Growth,
    /// In-flight above which calls fail; `None`: never.
    pub hard_cap: Option<u32>,
    /// How calls over the hard cap fail.
    pub over_cap: OverCap,
    /// Mean of an exponential jitter added to each call, µs (0: none).
    pub jitter_us: u64,
    /// What every call's service time is multiplied by, over time (a deploy or a cold cache
    /// that makes the dependency slower at the same concurrency).
    pub slower: Schedule,
    /// Calls in flight.
    pub in_flight: u32,
}

impl Queueing {
    /// A dependency of `capacity` calls at `base_us` each, latency growing as `growth` above
    /// it, no hard cap, no jitter.
    pub fn new(capacity: u32, base_us: u64, growth: Growth) -> Self {
        Queueing {
            capacity: Schedule(vec![(0, capacity)]),
            base_us,
            growth,
            hard_cap: None,
            over_cap: OverCap::TimeoutAfterBase,
            jitter_us: 0,
            slower: Schedule(vec![(0, 1)]),
            in_flight: 0,
        }
    }

    /// Whether the oracle's capacity bounds the goodput at every step of the schedule (see
    /// [`Growth::Linear`]).
    pub fn oracle_is_a_bound(&self) -> bool {
        match self.growth {
            Growth::Linear { per_call } => self
                .capacity
                .0
                .iter()
                .all(|&(_, c)| per_call * f64::from(c) >= 1.0 - 1e-9),
            Growth::Proportional => true,
        }
    }
}

impl Upstream for Queueing {
    fn start(&mut self, call: &CallStart, rng: &mut Rng) -> Call {
        self.in_flight += 1;
        let jitter = if self.jitter_us == 0 {
            0
        } else {
            rng.exponential(self.jitter_us as f64) as u64
        };
        if self.hard_cap.is_some_and(|cap| self.in_flight > cap) {
            return match self.over_cap {
                OverCap::TimeoutAfterBase => Call {
                    duration_us: self.base_us,
                    reply: Reply::Timeout,
                },
                OverCap::NoAnswer => Call {
                    duration_us: 0,
                    reply: Reply::NoAnswer,
                },
                OverCap::Unavailable { after_us } => Call {
                    duration_us: after_us,
                    reply: Reply::Unavailable,
                },
            };
        }
        let capacity = self.capacity.at(call.at_us).max(1);
        let over = self.in_flight.saturating_sub(capacity);
        // The jitter is part of the call's own service, so queueing stretches it too: then
        // throughput past the capacity never rises, and the oracle stays a bound.
        let service = ((self.base_us + jitter) * u64::from(self.slower.at(call.at_us))) as f64;
        let service = match self.growth {
            Growth::Linear { per_call } => service * (1.0 + per_call * f64::from(over)),
            Growth::Proportional if over > 0 => {
                service * f64::from(self.in_flight) / f64::from(capacity)
            }
            Growth::Proportional => service,
        };
        Call {
            duration_us: service as u64,
            reply: Reply::Ok,
        }
    }

    fn end(&mut self, _: &CallEnd) {
        self.in_flight -= 1;
    }

    fn oracle_limit(&self, now: u64, _: usize, share: Share) -> u32 {
        share.of(u64::from(self.capacity.at(now)))
    }

    fn oracle_steady_until(&self, now: u64) -> u64 {
        self.capacity.next_step(now)
    }
}

/// A provider quota: at most `quota` calls accepted per window, the rest refused with 429
/// (seed 004's synthetic provider). Every call takes `latency_us`, or a duration drawn
/// uniformly within `jitter_percent` of it.
#[derive(Clone, Debug)]
pub struct Quota {
    /// Calls accepted per window, over time.
    pub quota: Schedule,
    /// The window, µs.
    pub window_us: u64,
    /// Every call's duration (its mean, with jitter), µs.
    pub latency_us: u64,
    /// How far a call's duration may be from `latency_us`, in percent of it (0 to 100):
    /// uniform within `latency_us × (1 ± jitter_percent / 100)`.
    pub jitter_percent: u32,
    /// Whether refusals carry a Retry-After up to the end of the window.
    pub retry_after: bool,
    /// Whether every answer carries remaining-quota headers ([`QuotaHeaders`]).
    pub hints: bool,
    /// The headers of the calls under way, by id (when `hints`).
    pub sent: std::collections::BTreeMap<u64, QuotaHeaders>,
    /// The window being counted, and the calls accepted in it.
    pub window: (u64, u32),
}

impl Upstream for Quota {
    fn start(&mut self, call: &CallStart, rng: &mut Rng) -> Call {
        let now = call.at_us;
        let index = now / self.window_us;
        if self.window.0 != index {
            self.window = (index, 0);
        }
        let quota = self.quota.at(now);
        let reply = if self.window.1 < quota {
            self.window.1 += 1;
            Reply::Ok
        } else {
            Reply::Throttled {
                // Until the window's end, counted from when the refusal arrives.
                retry_after_us: self
                    .retry_after
                    .then(|| ((index + 1) * self.window_us).saturating_sub(now + self.latency_us)),
            }
        };
        let duration_us = if self.jitter_percent == 0 {
            self.latency_us
        } else {
            let spread = self.latency_us as f64 * f64::from(self.jitter_percent.min(100)) / 100.0;
            let drawn = self.latency_us as f64 + spread * (2.0 * rng.unit() - 1.0);
            drawn.round().max(1.0) as u64
        };
        if self.hints {
            let headers = QuotaHeaders {
                remaining: quota.saturating_sub(self.window.1),
                limit: quota,
                reset_at_us: (index + 1) * self.window_us,
            };
            self.sent.insert(call.id, headers);
        }
        Call { duration_us, reply }
    }

    fn end(&mut self, _: &CallEnd) {}

    fn take_hint(&mut self, id: u64) -> Option<QuotaHeaders> {
        self.sent.remove(&id)
    }

    fn oracle_limit(&self, now: u64, _: usize, share: Share) -> u32 {
        // Calls last `latency_us` (on average, with jitter), so a window admits quota × latency / window concurrently.
        let per_window = u64::from(self.quota.at(now));
        share.of((per_window * self.latency_us).div_ceil(self.window_us))
    }

    fn oracle_steady_until(&self, now: u64) -> u64 {
        self.quota.next_step(now)
    }
}

/// A separate [`Quota`] per client (per account, per API key): one client's throttling says
/// nothing about another's.
#[derive(Clone, Debug)]
pub struct PerClient(pub Vec<Quota>);

impl Upstream for PerClient {
    fn start(&mut self, call: &CallStart, rng: &mut Rng) -> Call {
        self.0[call.client].start(call, rng)
    }

    fn end(&mut self, call: &CallEnd) {
        self.0[call.client].end(call);
    }

    fn take_hint(&mut self, id: u64) -> Option<QuotaHeaders> {
        self.0.iter_mut().find_map(|q| q.take_hint(id))
    }

    fn oracle_limit(&self, now: u64, client: usize, _: Share) -> u32 {
        let alone = Share { index: 0, count: 1 };
        self.0[client].oracle_limit(now, 0, alone)
    }

    fn oracle_steady_until(&self, now: u64) -> u64 {
        self.0
            .iter()
            .map(|q| q.oracle_steady_until(now))
            .min()
            .unwrap_or(u64::MAX)
    }
}

/// Another upstream that fails every call (a timeout after its base latency) during an outage.
#[derive(Clone, Debug)]
pub struct Outage {
    /// The upstream outside the outage.
    pub inner: Queueing,
    /// When the outage starts, µs.
    pub from_us: u64,
    /// When it ends, µs.
    pub to_us: u64,
}

impl Upstream for Outage {
    fn start(&mut self, call: &CallStart, rng: &mut Rng) -> Call {
        let inner = self.inner.start(call, rng);
        if (self.from_us..self.to_us).contains(&call.at_us) {
            Call {
                duration_us: self.inner.base_us,
                reply: Reply::Timeout,
            }
        } else {
            inner
        }
    }

    fn end(&mut self, call: &CallEnd) {
        self.inner.end(call);
    }

    fn oracle_limit(&self, now: u64, client: usize, share: Share) -> u32 {
        self.inner.oracle_limit(now, client, share)
    }

    fn oracle_steady_until(&self, now: u64) -> u64 {
        self.inner.oracle_steady_until(now)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_capacity() {
        for (total, count) in [(44u64, 11usize), (44, 10), (40, 10), (7, 3), (404, 101)] {
            let sum: u64 = (0..count)
                .map(|index| u64::from(Share { index, count }.of(total)))
                .sum();
            assert_eq!(sum, total, "{total} over {count}");
        }
        assert_eq!(
            Share {
                index: 0,
                count: 10
            }
            .of(44),
            5
        );
        assert_eq!(
            Share {
                index: 9,
                count: 10
            }
            .of(44),
            4
        );
    }

    #[test]
    fn latency_models_grow_as_documented() {
        let start = |q: &mut Queueing| {
            let call = CallStart {
                id: 0,
                client: 0,
                at_us: 0,
            };
            q.start(&call, &mut Rng::new(1)).duration_us
        };
        let mut linear = Queueing::new(4, 1_000, Growth::Linear { per_call: 1.0 });
        let mut proportional = Queueing::new(4, 1_000, Growth::Proportional);
        let mut shallow = Queueing::new(10, 1_000, Growth::Linear { per_call: 0.1 });
        let (mut l, mut p, mut s) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..12 {
            l.push(start(&mut linear));
            p.push(start(&mut proportional));
            s.push(start(&mut shallow));
        }
        assert_eq!(&l[2..6], &[1_000, 1_000, 2_000, 3_000]);
        assert_eq!(&p[2..8], &[1_000, 1_000, 1_250, 1_500, 1_750, 2_000]);
        assert_eq!(&s[9..12], &[1_000, 1_100, 1_200]);
        assert!(linear.oracle_is_a_bound() && shallow.oracle_is_a_bound());
        assert!(!Queueing::new(10, 1_000, Growth::Linear { per_call: 0.05 }).oracle_is_a_bound());
    }
}
