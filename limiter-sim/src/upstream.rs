//! Models of the dependency a client calls: what a call costs and how it ends.

use crate::rng::Rng;

/// How a call ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reply {
    /// Served.
    Ok,
    /// Refused with 429 (optionally with a Retry-After, in µs).
    Throttled {
        /// The hinted wait, if any.
        retry_after_us: Option<u64>,
    },
    /// No answer in time.
    Timeout,
}

/// A call as the upstream decides it at its start.
#[derive(Clone, Copy, Debug)]
pub struct Call {
    /// How long the call takes, in µs.
    pub duration_us: u64,
    /// How it ends.
    pub reply: Reply,
}

/// A dependency, shared by every client of a scenario. Clients are numbered from 0 (a client
/// is a tenant, an account, a process: whatever the dependency tells apart).
pub trait Upstream {
    /// A call from `client` starts at `now` (µs).
    fn start(&mut self, now: u64, client: usize, rng: &mut Rng) -> Call;
    /// A call from `client` that started earlier ends.
    fn end(&mut self, client: usize);
    /// The concurrency `client` can have in flight at `now` without queueing or refusals, when
    /// `clients` share the dependency fairly: what an oracle limiter would use.
    fn oracle_limit(&self, now: u64, client: usize, clients: usize) -> u32;
}

/// `total` shared by `clients`, rounded down (so that together they never exceed it), at
/// least 1.
fn share(total: u64, clients: usize) -> u32 {
    u32::try_from((total / clients.max(1) as u64).max(1)).unwrap_or(u32::MAX)
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
}

/// Service time grows with in-flight calls above a capacity; past a hard cap calls time out
/// (the upstream of seed 000): `base × (1 + in-flight above capacity)`, with optional
/// exponential jitter. As in the seed, a call over the hard cap fails after `base`.
#[derive(Clone, Debug)]
pub struct Queueing {
    /// The capacity over time.
    pub capacity: Schedule,
    /// Service time at or below capacity, µs.
    pub base_us: u64,
    /// In-flight above which calls fail; `None`: never.
    pub hard_cap: Option<u32>,
    /// The client's timeout, µs: a call over the hard cap hangs until it (a server that stops
    /// answering), and any slower call times out at it. `None`: calls over the cap fail after
    /// `base_us`, as in the seed.
    pub timeout_us: Option<u64>,
    /// Mean of an exponential jitter added to each call, µs (0: none).
    pub jitter_us: u64,
    /// Calls in flight.
    pub in_flight: u32,
}

impl Upstream for Queueing {
    fn start(&mut self, now: u64, _: usize, rng: &mut Rng) -> Call {
        self.in_flight += 1;
        let jitter = if self.jitter_us == 0 {
            0
        } else {
            rng.exponential(self.jitter_us as f64) as u64
        };
        if self.hard_cap.is_some_and(|cap| self.in_flight > cap) {
            return Call {
                duration_us: self.timeout_us.unwrap_or(self.base_us),
                reply: Reply::Timeout,
            };
        }
        let over = self.in_flight.saturating_sub(self.capacity.at(now));
        let duration_us = self.base_us * (1 + u64::from(over)) + jitter;
        match self.timeout_us {
            Some(timeout) if duration_us > timeout => Call {
                duration_us: timeout,
                reply: Reply::Timeout,
            },
            _ => Call {
                duration_us,
                reply: Reply::Ok,
            },
        }
    }

    fn end(&mut self, _: usize) {
        self.in_flight -= 1;
    }

    fn oracle_limit(&self, now: u64, _: usize, clients: usize) -> u32 {
        share(u64::from(self.capacity.at(now)), clients)
    }
}

/// A provider quota: at most `quota` calls accepted per window, the rest refused with 429
/// (seed 004's synthetic provider). Every call takes `latency_us`.
#[derive(Clone, Debug)]
pub struct Quota {
    /// Calls accepted per window, over time.
    pub quota: Schedule,
    /// The window, µs.
    pub window_us: u64,
    /// Every call's duration, µs.
    pub latency_us: u64,
    /// Whether refusals carry a Retry-After up to the end of the window.
    pub retry_after: bool,
    /// The window being counted, and the calls accepted in it.
    pub window: (u64, u32),
}

impl Upstream for Quota {
    fn start(&mut self, now: u64, _: usize, _: &mut Rng) -> Call {
        let index = now / self.window_us;
        if self.window.0 != index {
            self.window = (index, 0);
        }
        let reply = if self.window.1 < self.quota.at(now) {
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
        Call {
            duration_us: self.latency_us,
            reply,
        }
    }

    fn end(&mut self, _: usize) {}

    fn oracle_limit(&self, now: u64, _: usize, clients: usize) -> u32 {
        // Calls last `latency_us`, so a window admits quota × latency / window concurrently.
        let per_window = u64::from(self.quota.at(now));
        share(
            (per_window * self.latency_us).div_ceil(self.window_us),
            clients,
        )
    }
}

/// A separate [`Quota`] per client (per account, per API key): one client's throttling says
/// nothing about another's.
#[derive(Clone, Debug)]
pub struct PerClient(pub Vec<Quota>);

impl Upstream for PerClient {
    fn start(&mut self, now: u64, client: usize, rng: &mut Rng) -> Call {
        self.0[client].start(now, 0, rng)
    }

    fn end(&mut self, client: usize) {
        self.0[client].end(0);
    }

    fn oracle_limit(&self, now: u64, client: usize, _: usize) -> u32 {
        self.0[client].oracle_limit(now, 0, 1)
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
    fn start(&mut self, now: u64, client: usize, rng: &mut Rng) -> Call {
        let call = self.inner.start(now, client, rng);
        if (self.from_us..self.to_us).contains(&now) {
            Call {
                duration_us: self.inner.base_us,
                reply: Reply::Timeout,
            }
        } else {
            call
        }
    }

    fn end(&mut self, client: usize) {
        self.inner.end(client);
    }

    fn oracle_limit(&self, now: u64, client: usize, clients: usize) -> u32 {
        self.inner.oracle_limit(now, client, clients)
    }
}
