//! The standard scenarios, each a load, an upstream and the limiters to compare.

use std::fmt;
use std::time::Duration;

use limiter_core::{AimdConfig, Backoff, EwmaConfig, GradientConfig, Ratio, VegasConfig};

use crate::engine::{Clients, Retry};
use crate::limiter::Limiter;
use crate::load::Load;
use crate::upstream::{Growth, Outage, OverCap, PerClient, Queueing, Quota, Schedule, Upstream};

const MS: u64 = 1_000;
const S: u64 = 1_000_000;

/// A scenario: who calls, what they call, and which limiters to compare.
pub struct Scenario {
    /// Short name, for `--scenario`.
    pub name: String,
    /// Other names `--scenario` accepts (older names).
    pub aliases: Vec<String>,
    /// One line on what it shows.
    pub about: String,
    /// How the oracle's limit is derived here, and why no limiter can serve more.
    pub oracle: String,
    /// Who calls, and how.
    pub clients: Clients,
    /// A fresh upstream for each run.
    pub upstream: Box<dyn Fn() -> Box<dyn Upstream>>,
    /// The limiters, with their labels.
    pub limiters: Vec<(String, Limiter)>,
}

impl fmt::Debug for Scenario {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Scenario")
            .field("name", &self.name)
            .field("clients", &self.clients.loads.len())
            .field("limiters", &self.limiters.len())
            .finish_non_exhaustive()
    }
}

impl Scenario {
    /// Whether `--scenario name` means this one.
    pub fn is_named(&self, name: &str) -> bool {
        self.name == name || self.aliases.iter().any(|a| a == name)
    }
}

/// Parameters a user may set from the command line; each applies to the scenarios that have
/// it naturally and leaves the others (the seeds' scenarios among them) as they are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// Clients sharing one dependency (`--clients N`): the shared, late-joiner and creep
    /// scenarios run with `N` instead of their standard sizes.
    pub clients: Option<usize>,
    /// How long the load lasts (`--duration`), µs: the scenarios added with the shared ones.
    pub duration_us: Option<u64>,
}

impl Params {
    fn duration(&self, standard_us: u64) -> u64 {
        self.duration_us.unwrap_or(standard_us)
    }
}

/// The rows every scenario compares: its fixed-limit references (label, limit), then each
/// controller at its library defaults (`initial 4 within [1, 64]` for all of them: one floor,
/// ceiling and initial limit for the whole suite, no per-scenario tuning), then the oracle.
fn compared(fixed: &[(&str, u32)]) -> Vec<(String, Limiter)> {
    let mut rows: Vec<(String, Limiter)> = fixed
        .iter()
        .map(|&(label, limit)| (label.to_owned(), Limiter::Fixed(limit)))
        .collect();
    rows.extend([
        ("AIMD".into(), Limiter::AimdFloat(AimdConfig::default())),
        (
            "AIMD fixed-point".into(),
            Limiter::AimdFixedPoint(AimdConfig::default()),
        ),
        (
            "AIMD compact".into(),
            Limiter::AimdCompact(AimdConfig::default()),
        ),
        (
            "AIMD fast start".into(),
            Limiter::AimdFastStart(AimdConfig::default()),
        ),
        ("Vegas".into(), Limiter::Vegas(VegasConfig::default())),
        (
            "EWMA-deviation".into(),
            Limiter::Ewma(EwmaConfig::default()),
        ),
        (
            "Gradient2".into(),
            Limiter::Gradient(GradientConfig::default()),
        ),
        ("oracle".into(), Limiter::Oracle),
    ]);
    rows
}

/// A [`Queueing`] dependency whose capacity is a true bound on goodput (see [`Growth`]).
fn queueing(capacity: Schedule, base_us: u64, growth: Growth, jitter_us: u64) -> Queueing {
    let q = Queueing {
        capacity,
        base_us,
        growth,
        hard_cap: None,
        over_cap: OverCap::TimeoutAfterBase,
        jitter_us,
        slower: steady(1),
        in_flight: 0,
    };
    assert!(
        q.oracle_is_a_bound(),
        "the oracle would not bound this dependency"
    );
    q
}

fn steady(capacity: u32) -> Schedule {
    Schedule(vec![(0, capacity)])
}

const QUEUEING_ORACLE: &str = "its share of the capacity (shares of active clients add up to it exactly): \
     past the capacity latency grows and throughput never rises";
const QUOTA_ORACLE: &str = "its share of quota x latency / window, the concurrency that spends the quota \
     exactly: no limiter serves more than the quota";

/// Every scenario, in the order they are printed, with `params` applied.
///
/// # Panics
///
/// Never: the constant ratios are valid, and every dependency's oracle is a bound.
pub fn all(params: &Params) -> Vec<Scenario> {
    let sizes = params
        .clients
        .map_or(vec![10, 100, 1000], |n| vec![n.max(1)]);
    let joiners = params.clients.map_or(vec![10, 100], |n| vec![n.max(1)]);
    let mut all = vec![
        capacity_drop(),
        quota_phases(),
        slow_no_429(),
        heavy_tail(),
        capacity_rise(),
        drop_and_recover(),
        quota_jitter(),
        retry_after(),
        quota_window(false),
        quota_window(true),
        oscillating(),
        fairness(),
        noisy_tenant(
            "noisy-tenant",
            "account A is throttled at 5 per tick, account B has 40; 100 callers each, 10 s",
            None,
            || {
                Box::new(PerClient(vec![
                    quota(vec![(0, 5)], false),
                    quota(vec![(0, 40)], false),
                ]))
            },
        ),
        noisy_tenant(
            "noisy-tenant-ceiling",
            "noisy-tenant under a global ceiling of 40 (key permit, then global); B has 30 per tick",
            Some(40),
            || {
                Box::new(PerClient(vec![
                    quota(vec![(0, 5)], false),
                    quota(vec![(0, 30)], false),
                ]))
            },
        ),
        steady_noisy(),
        hang(),
        retry_storm("retry-storm", None),
        retry_storm("retry-storm-budget", Ratio::from_fraction(1, 10).ok()),
    ];
    for growth in [Growth::Linear { per_call: 1.0 }, Growth::Proportional] {
        for &n in &sizes {
            all.push(shared(n, growth, params));
        }
    }
    for &n in &joiners {
        all.push(late_joiner(n, params));
    }
    all.push(shared_quota(params, false));
    all.push(shared_quota(params, true));
    all.extend([
        creep(params),
        hang_low(params),
        hang_silent(),
        fast_backpressure(params),
        shallow_knee(params),
        slow_link(params),
        slow_sender(params),
        slowdown(),
    ]);
    all
}

/// Seed 000 (asyncio degradation): its numbers, as the seed states them.
fn capacity_drop() -> Scenario {
    Scenario {
        name: "capacity-drop".into(),
        aliases: vec!["seed-000".into()],
        about: "seed 000: capacity 16 -> 4 at 250 ms; 2 calls per ms for 500 ms; 5 ms base, timeouts past 25".into(),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::fixed(2, MS, 500 * MS)]),
        upstream: Box::new(|| {
            let mut q = queueing(
                Schedule(vec![(0, 16), (250 * MS, 4)]),
                5 * MS,
                Growth::Linear { per_call: 1.0 },
                0,
            );
            q.hard_cap = Some(25);
            Box::new(q)
        }),
        limiters: compared(&[("fixed 16", 16)]),
    }
}

/// Seed 004 (a provider's published quota).
fn quota_phases() -> Scenario {
    Scenario {
        name: "quota-phases".into(),
        aliases: vec!["seed-004".into()],
        about:
            "seed 004: quota 40 / 10 / 30 per 100 ms tick over three 10 s phases; a backlog of work"
                .into(),
        oracle: QUOTA_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(200, 30 * S)]),
        upstream: Box::new(|| {
            Box::new(Quota {
                quota: Schedule(vec![(0, 40), (10 * S, 10), (20 * S, 30)]),
                window_us: 100 * MS,
                latency_us: 100 * MS,
                jitter_percent: 0,
                retry_after: false,
                hints: false,
                sent: std::collections::BTreeMap::new(),
                window: (0, 0),
            })
        }),
        limiters: compared(&[("fixed 4", 4), ("fixed 64", 64)]),
    }
}

/// A dependency that becomes three times slower at the same capacity (a deploy, a cache
/// flushed): the controller must take the slower latency as the new normal rather than as
/// congestion, at the level the capacity allows, and not leave the limit at its floor.
fn slowdown() -> Scenario {
    let mut upstream = queueing(steady(16), 10 * MS, Growth::Linear { per_call: 1.0 }, MS);
    upstream.slower = Schedule(vec![(0, 1), (10 * S, 3)]);
    one_client(
        "slowdown",
        "latency grows past 16 in flight; every call three times slower from 10 s; 64 callers for 30 s",
        30 * S,
        upstream,
        &[("fixed 64", 64)],
    )
}

fn slow_no_429() -> Scenario {
    one_client(
        "slow-no-429",
        "latency grows past 8 in flight and nothing ever fails; 64 callers for 10 s",
        10 * S,
        queueing(steady(8), 10 * MS, Growth::Linear { per_call: 1.0 }, MS),
        &[("fixed 64", 64)],
    )
}

/// 64 closed-loop callers of one client on `upstream` until `until`.
fn one_client(
    name: &str,
    about: &str,
    until: u64,
    upstream: Queueing,
    fixed: &[(&str, u32)],
) -> Scenario {
    Scenario {
        name: name.into(),
        aliases: Vec::new(),
        about: about.into(),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(64, until)]),
        upstream: Box::new(move || Box::new(upstream.clone())),
        limiters: compared(fixed),
    }
}

/// slow-no-429 on a server whose service times are heavy-tailed, as real ones are: each call
/// takes 10 ms plus an exponential jitter of mean 10 ms, so one call in eleven takes more than
/// twice the median with no queue at all. A latency signal that cuts on single slow calls
/// mistakes that tail for congestion.
fn heavy_tail() -> Scenario {
    one_client(
        "heavy-tail",
        "capacity 8, latency proportional above it; 10 ms + exponential jitter of mean 10 ms; 64 callers for 10 s",
        10 * S,
        queueing(steady(8), 10 * MS, Growth::Proportional, 10 * MS),
        &[("fixed 8", 8), ("fixed 64", 64)],
    )
}

/// A server that becomes four times faster (more replicas behind it) after a client learned
/// its knee from latency: a knee remembered too long costs the capacity that came back.
fn capacity_rise() -> Scenario {
    capacity_rise_at(5 * S)
}

/// The suite's `capacity-rise` with its rise at `rise_us` µs instead of 5 s (the
/// `rise-phase` example runs it at other instants: what one run measures depends on where the
/// rise falls in a dwell below the knee).
///
/// # Examples
///
/// ```
/// use limiter_sim::scenario::capacity_rise_at;
///
/// let later = capacity_rise_at(7_000_000);
/// assert_eq!(later.name, "capacity-rise");
/// assert!(later.about.contains("past 32 from 7 s"));
/// ```
pub fn capacity_rise_at(rise_us: u64) -> Scenario {
    one_client(
        "capacity-rise",
        &format!(
            "latency grows past 8 in flight, past 32 from {}; 100 ms calls; 64 callers for 20 s",
            seconds(rise_us)
        ),
        20 * S,
        queueing(
            Schedule(vec![(0, 8), (rise_us, 32)]),
            100 * MS,
            Growth::Linear { per_call: 1.0 },
            5 * MS,
        ),
        &[("fixed 8", 8), ("fixed 32", 32)],
    )
}

/// One provider quota over time, a backlog of 200 callers until `until`.
fn quota_scenario(
    name: &str,
    about: &str,
    until: u64,
    fixed: &[(&str, u32)],
    upstream: Box<dyn Fn() -> Box<dyn Upstream>>,
) -> Scenario {
    Scenario {
        name: name.into(),
        aliases: Vec::new(),
        about: about.into(),
        oracle: QUOTA_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(200, until)]),
        upstream,
        limiters: compared(fixed),
    }
}

fn drop_and_recover() -> Scenario {
    quota_return_at(10 * S, 0)
}

/// drop-and-recover on a provider whose calls vary in duration, as real ones do: a client
/// that holds growth on latencies in its band finds the returned quota late, or never.
fn quota_jitter() -> Scenario {
    quota_return_at(10 * S, 20)
}

/// The suite's `drop-and-recover` (with `jitter_percent` 0) or `quota-jitter` (with 20) with
/// the quota back at 50 from `return_us` µs instead of 10 s, and the backlog of work 5 s
/// longer than that (the `return-phase` example runs it at other instants: where the return
/// falls in the client's dwell below the low quota's knee decides how soon it is found, and
/// without jitter a single run measures a single such place, on every seed).
///
/// # Examples
///
/// ```
/// use limiter_sim::scenario::quota_return_at;
///
/// let later = quota_return_at(10_500_000, 0);
/// assert_eq!(later.name, "drop-and-recover");
/// assert!(later.about.contains("50 again from 10.5 s"));
/// assert!(quota_return_at(10_500_000, 20).about.contains("back from 10.5 s"));
/// ```
///
/// # Panics
///
/// If `return_us` is not after the fall at 5 s: the quota would never come back.
pub fn quota_return_at(return_us: u64, jitter_percent: u32) -> Scenario {
    assert!(
        return_us > 5 * S,
        "the quota falls at 5 s: it must come back after that"
    );
    let until = return_us.saturating_add(5 * S);
    let base = format!(
        "quota 50 per tick, 5 from 5 s, 50 again from {}; a backlog of work for {}",
        seconds(return_us),
        seconds(until)
    );
    let (name, about) = if jitter_percent == 0 {
        ("drop-and-recover", base)
    } else {
        let moved = if return_us == 10 * S {
            String::new()
        } else {
            format!(", the quota back from {}", seconds(return_us))
        };
        (
            "quota-jitter",
            format!(
                "drop-and-recover with every call's latency uniform within 100 ms ± {jitter_percent} %{moved}"
            ),
        )
    };
    quota_scenario(
        name,
        &about,
        until,
        &[("fixed 50", 50)],
        Box::new(move || {
            let mut quota = quota(vec![(0, 50), (5 * S, 5), (return_us, 50)], false);
            quota.jitter_percent = jitter_percent;
            Box::new(quota)
        }),
    )
}

fn retry_after() -> Scenario {
    quota_scenario(
        "retry-after",
        "quota 20 per tick; refusals carry Retry-After to the next tick; 200 callers, 10 s",
        10 * S,
        &[("fixed 64", 64)],
        Box::new(|| Box::new(quota(vec![(0, 20)], true))),
    )
}

/// A quota counted over a window ten round trips long (500 calls per second, 100 ms calls),
/// where a client can spend it early and be refused until the window resets; with `hints`,
/// every answer carries the provider's remaining-quota headers (calls left, the quota, the
/// reset), and a client that honours them waits for the reset instead of being refused.
fn quota_window(hints: bool) -> Scenario {
    let (name, headers) = if hints {
        (
            "quota-window-hints",
            "every answer carries remaining-quota headers",
        )
    } else {
        ("quota-window", "no remaining-quota headers")
    };
    let mut scenario = quota_scenario(
        name,
        &format!("quota 500 per 1 s window, 100 ms calls, 60 callers, 10 s; {headers}"),
        10 * S,
        &[("fixed 64", 64)],
        Box::new(move || {
            let mut quota = quota(vec![(0, 500)], false);
            quota.window_us = S;
            quota.hints = hints;
            Box::new(quota)
        }),
    );
    // A little more demand than the quota (600 calls a second against 500), so that a
    // client that paces itself has few callers queued when a hint asks it to wait.
    scenario.clients = Clients::new(vec![Load::closed(60, 10 * S)]);
    scenario
}

fn quota(schedule: Vec<(u64, u32)>, retry_after: bool) -> Quota {
    Quota {
        quota: Schedule(schedule),
        window_us: 100 * MS,
        latency_us: 100 * MS,
        jitter_percent: 0,
        retry_after,
        hints: false,
        sent: std::collections::BTreeMap::new(),
        window: (0, 0),
    }
}

fn oscillating() -> Scenario {
    quota_scenario(
        "oscillating",
        "quota alternates 40 and 10 per tick every 2 s; a backlog of work for 20 s",
        20 * S,
        &[("fixed 40", 40), ("fixed 10", 10)],
        Box::new(|| {
            let steps = (0..10).map(|i| (i * 2 * S, if i % 2 == 0 { 40 } else { 10 }));
            Box::new(quota(steps.collect(), false))
        }),
    )
}

fn fairness() -> Scenario {
    Scenario {
        name: "fairness".into(),
        aliases: Vec::new(),
        about:
            "10 clients, each with its own limiter and 20 callers, share a capacity of 40 for 20 s"
                .into(),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(20, 20 * S); 10]),
        upstream: Box::new(|| {
            let mut q = queueing(steady(40), 10 * MS, Growth::Linear { per_call: 1.0 }, MS);
            q.hard_cap = Some(80);
            Box::new(q)
        }),
        limiters: compared(&[("fixed 20 each", 20)]),
    }
}

/// Two accounts at one provider, each with its own limiter (and, with `global`, a ceiling over
/// both): account A is throttled at 5 calls per tick; `upstream` sets both quotas.
fn noisy_tenant(
    name: &str,
    about: &str,
    global: Option<u32>,
    upstream: fn() -> Box<dyn Upstream>,
) -> Scenario {
    let mut clients = Clients::new(vec![Load::closed(100, 10 * S); 2]);
    clients.global = global;
    Scenario {
        name: name.into(),
        aliases: Vec::new(),
        about: about.into(),
        oracle: "each account's own quota x latency / window (its quota alone bounds it)".into(),
        clients,
        upstream: Box::new(upstream),
        limiters: compared(&[("fixed 40 each", 40)]),
    }
}

fn steady_noisy() -> Scenario {
    Scenario {
        name: "steady-noisy".into(),
        aliases: Vec::new(),
        about: "Poisson 200/s (a third of capacity 8), 10 ms base + 3 ms mean jitter, 30 s".into(),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::poisson(200.0, 30 * S)]),
        upstream: Box::new(|| {
            Box::new(queueing(
                steady(8),
                10 * MS,
                Growth::Linear { per_call: 1.0 },
                3 * MS,
            ))
        }),
        limiters: compared(&[("fixed 16", 16)]),
    }
}

fn retry_storm(name: &str, budget: Option<Ratio>) -> Scenario {
    let mut clients = Clients::new(vec![Load::closed(100, 10 * S)]);
    clients.retry = Some(Retry {
        max_attempts: 4,
        // Full jitter within 40 ms, doubling per retry up to 1 s: a first retry 20 ms out on
        // average.
        backoff: Backoff::new(
            Duration::from_millis(40),
            Ratio::from_int(2),
            Duration::from_secs(1),
        ),
        budget,
    });
    Scenario {
        name: name.into(),
        aliases: Vec::new(),
        about: if budget.is_some() {
            "as retry-storm, with a retry budget of 10 % of recent first attempts (plus 10)"
        } else {
            "capacity 20 fails every call from 2 s to 4 s; 100 callers retry up to 3 times, 10 s"
        }
        .into(),
        oracle: "the capacity (during the outage nothing can be served)".into(),
        clients,
        upstream: Box::new(|| {
            let mut inner = queueing(steady(20), 10 * MS, Growth::Linear { per_call: 1.0 }, MS);
            inner.hard_cap = Some(40);
            Box::new(Outage {
                inner,
                from_us: 2 * S,
                to_us: 4 * S,
            })
        }),
        limiters: compared(&[("fixed 30", 30)]),
    }
}

/// A server with `capacity`, 20 ms calls, that stops answering past `hang_past` in flight;
/// clients give up after 1 s.
fn hanging(name: &str, about: String, capacity: u32, hang_past: u32, until: u64) -> Scenario {
    Scenario {
        name: name.into(),
        aliases: Vec::new(),
        about,
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(60, until)]).timeout(S),
        upstream: Box::new(move || {
            let mut q = queueing(
                steady(capacity),
                20 * MS,
                Growth::Linear { per_call: 1.0 },
                2 * MS,
            );
            q.hard_cap = Some(hang_past);
            q.over_cap = OverCap::NoAnswer;
            Box::new(q)
        }),
        limiters: compared(&[("fixed 30", 30)]),
    }
}

fn hang() -> Scenario {
    hanging(
        "hang",
        "capacity 10; past 20 in flight the server stops answering; 1 s client timeout; 60 callers, 20 s"
            .into(),
        10,
        20,
        20 * S,
    )
}

fn hang_silent() -> Scenario {
    hanging(
        "hang-silent",
        "capacity 10; past 10 in flight the server stops answering; 1 s client timeout; 60 callers, 20 s"
            .into(),
        10,
        10,
        20 * S,
    )
}

fn hang_low(params: &Params) -> Scenario {
    let until = params.duration(20 * S);
    hanging(
        "hang-low",
        format!(
            "capacity 4; past 5 in flight the server stops answering; 1 s client timeout; 60 callers, {}",
            seconds(until)
        ),
        4,
        5,
        until,
    )
}

fn seconds(us: u64) -> String {
    format!("{} s", us as f64 / 1e6)
}

/// `n` clients (16 callers each, their own limiters) share a capacity of `4n`, 100 ms calls
/// (2 ms jitter), clients give up after 2 s.
fn shared_clients(loads: Vec<Load>) -> Clients {
    Clients::new(loads).timeout(2 * S)
}

fn shared_upstream(capacity: u32, growth: Growth) -> Box<dyn Fn() -> Box<dyn Upstream>> {
    Box::new(move || Box::new(queueing(steady(capacity), 100 * MS, growth, 2 * MS)))
}

fn growth_name(growth: Growth) -> &'static str {
    match growth {
        Growth::Linear { .. } => "linear",
        Growth::Proportional => "proportional",
    }
}

fn shared(n: usize, growth: Growth, params: &Params) -> Scenario {
    let until = params.duration(if n >= 1000 { 10 * S } else { 20 * S });
    let capacity = 4 * n as u32;
    let model = match growth {
        Growth::Linear { .. } => "+100 ms per call above capacity",
        Growth::Proportional => "latency proportional to load above capacity",
    };
    Scenario {
        name: format!("shared-{n}-{}", growth_name(growth)),
        aliases: Vec::new(),
        about: format!(
            "{n} clients (16 callers, own limiter each) share capacity {capacity}; 100 ms calls, {model}; 2 s timeout, {}",
            seconds(until)
        ),
        oracle: QUEUEING_ORACLE.into(),
        clients: shared_clients(vec![Load::closed(16, until); n]),
        upstream: shared_upstream(capacity, growth),
        limiters: compared(&[]),
    }
}

fn late_joiner(n: usize, params: &Params) -> Scenario {
    let until = params.duration(30 * S);
    let join = until / 3;
    let capacity = 4 * (n as u32 + 1);
    let mut loads = vec![Load::closed(16, until); n];
    loads.push(Load::closed(16, until).starting_at(join));
    Scenario {
        name: format!("late-joiner-{n}"),
        aliases: Vec::new(),
        about: format!(
            "{n} clients share capacity {capacity} (latency proportional above it); one more joins at {}; {}",
            seconds(join),
            seconds(until)
        ),
        oracle: QUEUEING_ORACLE.into(),
        clients: shared_clients(loads),
        upstream: shared_upstream(capacity, Growth::Proportional),
        limiters: compared(&[]),
    }
}

/// `n` clients (64 callers each, own limiters) share one provider's quota of `20n` calls per
/// 100 ms tick, which falls to `5n` for the middle third of the run: each client's share is
/// found only through the refusals that all of them provoke together. Calls take 100 ms ± 20 %:
/// with a constant latency every call lands on a tick's start and the provider refuses the same
/// clients, in the same order, every tick (clients 7 to 9 of 10 held at a limit of 1 for the
/// whole run, whatever the limiter).
///
/// With `hints`, the quota is counted over 1 s windows (the same rate) and every answer carries
/// the provider's remaining-quota headers: the calls left are the whole account's, so each
/// client's stated pace is the account's, not its share (the pace alone overstates its room `n`
/// times over; the count falling by the account's calls tells it its share).
fn shared_quota(params: &Params, hints: bool) -> Scenario {
    let n = params.clients.unwrap_or(10).max(1);
    let until = params.duration(21 * S);
    let (window_us, per, name, unit, told) = if hints {
        (
            S,
            200 * n as u32,
            "shared-quota-hints",
            "1 s window",
            "; every answer carries the account's remaining-quota headers",
        )
    } else {
        (100 * MS, 20 * n as u32, "shared-quota", "tick", "")
    };
    Scenario {
        name: format!("{name}-{n}"),
        aliases: Vec::new(),
        about: format!(
            "{n} clients (64 callers, own limiter each) share a quota of {per} per {unit}, {} from {} to {}{told}; calls of 100 ms ± 20 %; {}",
            per / 4,
            seconds(until / 3),
            seconds(2 * until / 3),
            seconds(until)
        ),
        oracle: QUOTA_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(64, until); n]),
        upstream: Box::new(move || {
            let mut quota = quota(
                vec![(0, per), (until / 3, per / 4), (2 * until / 3, per)],
                false,
            );
            quota.window_us = window_us;
            quota.jitter_percent = 20;
            quota.hints = hints;
            Box::new(quota)
        }),
        limiters: compared(&[]),
    }
}

fn creep(params: &Params) -> Scenario {
    let n = params.clients.unwrap_or(100).max(1);
    let until = params.duration(120 * S);
    let capacity = 4 * n as u32;
    Scenario {
        name: "creep".into(),
        aliases: Vec::new(),
        about: format!(
            "{n} clients on a steady dependency of capacity {capacity} (latency proportional above it) for {}",
            seconds(until)
        ),
        oracle: QUEUEING_ORACLE.into(),
        clients: shared_clients(vec![Load::closed(16, until); n]),
        upstream: shared_upstream(capacity, Growth::Proportional),
        limiters: compared(&[]),
    }
}

fn fast_backpressure(params: &Params) -> Scenario {
    let until = params.duration(20 * S);
    Scenario {
        name: "fast-backpressure".into(),
        aliases: Vec::new(),
        about: format!(
            "capacity 20, 20 ms calls; past 20 in flight a 503 within 1 ms; 100 callers, {}",
            seconds(until)
        ),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(100, until)]),
        upstream: Box::new(|| {
            let mut q = queueing(steady(20), 20 * MS, Growth::Linear { per_call: 1.0 }, MS);
            q.hard_cap = Some(20);
            q.over_cap = OverCap::Unavailable { after_us: MS };
            Box::new(q)
        }),
        limiters: compared(&[("fixed 100", 100)]),
    }
}

fn shallow_knee(params: &Params) -> Scenario {
    let until = params.duration(20 * S);
    Scenario {
        name: "shallow-knee".into(),
        aliases: Vec::new(),
        about: format!(
            "capacity 10, 20 ms calls, +10 % latency per call above it; 64 callers, {}",
            seconds(until)
        ),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::closed(64, until)]),
        upstream: Box::new(|| {
            Box::new(queueing(
                steady(10),
                20 * MS,
                Growth::Linear { per_call: 0.1 },
                MS,
            ))
        }),
        limiters: compared(&[("fixed 64", 64)]),
    }
}

/// A slow link: 100 ms of propagation and 5 ms of transmission per call (200 calls/s). Up to
/// the bandwidth-delay product, 200/s × 105 ms = 21 calls, a call takes 105 ms; each call
/// beyond queues behind the others for another 5 ms.
fn slow_link(params: &Params) -> Scenario {
    let until = params.duration(60 * S);
    Scenario {
        name: "slow-link".into(),
        aliases: Vec::new(),
        about: format!(
            "100 ms propagation + 5 ms per call transmission: best concurrency 21 (the bandwidth-delay product); 500 callers, 2 s timeout, {}",
            seconds(until)
        ),
        oracle:
            "the bandwidth-delay product, 21: below it the link idles, above it calls only queue \
                 (throughput is flat at 200/s)"
                .into(),
        clients: Clients::new(vec![Load::closed(500, until)]).timeout(2 * S),
        upstream: Box::new(|| {
            Box::new(queueing(
                steady(21),
                105 * MS,
                Growth::Linear {
                    per_call: 5.0 / 105.0,
                },
                0,
            ))
        }),
        limiters: compared(&[("fixed 100", 100)]),
    }
}

fn slow_sender(params: &Params) -> Scenario {
    let until = params.duration(60 * S);
    Scenario {
        name: "slow-sender".into(),
        aliases: Vec::new(),
        about: format!(
            "Poisson 5 calls/s against capacity 8, 20 ms calls: the limit is never used; {}",
            seconds(until)
        ),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(vec![Load::poisson(5.0, until)]),
        upstream: Box::new(|| {
            Box::new(queueing(
                steady(8),
                20 * MS,
                Growth::Linear { per_call: 1.0 },
                MS,
            ))
        }),
        limiters: compared(&[]),
    }
}

/// A shared dependency in a shape of its own, beside the suite's (whose shared scenarios give
/// each client a share of 4, the default initial limit, and take 100 ms calls): `clients`
/// clients of 16 callers each, each with a share of `per_client` of the capacity, calls of
/// `call_us` (with an exponential jitter of a fiftieth of it), latency growing as `growth`
/// past the capacity, and with `joiner` one more client that joins a third of the way in. The
/// clients give up after 20 calls' time; the load lasts 300 calls, at least 30 s. Only the
/// default AIMD runs, then the oracle. The `shapes` example runs 24 of them.
///
/// ```
/// use limiter_sim::scenario::shape;
/// use limiter_sim::upstream::Growth;
///
/// let s = shape(3, 2, 20_000, Growth::Linear { per_call: 1.0 }, false);
/// assert_eq!(s.name, "3 x2 20ms linear");
/// assert_eq!(s.clients.loads.len(), 3);
/// assert_eq!(s.limiters.len(), 2);
/// ```
///
/// # Panics
///
/// If the capacity (`per_client` times the clients) does not fit in 32 bits.
pub fn shape(
    clients: usize,
    per_client: u32,
    call_us: u64,
    growth: Growth,
    joiner: bool,
) -> Scenario {
    let until_us = (300 * call_us).max(30 * S);
    let all = clients + usize::from(joiner);
    let capacity = u32::try_from(all)
        .ok()
        .and_then(|all| per_client.checked_mul(all))
        .expect("a capacity within 32 bits");
    let mut loads = vec![Load::closed(16, until_us); clients];
    if joiner {
        loads.push(Load::closed(16, until_us).starting_at(until_us / 3));
    }
    let model = match growth {
        Growth::Linear { .. } => "linear",
        Growth::Proportional => "proportional",
    };
    Scenario {
        name: format!(
            "{}{clients} x{per_client} {}ms {model}",
            if joiner { "join " } else { "" },
            call_us / MS
        ),
        aliases: Vec::new(),
        about: format!("{all} clients share a capacity of {capacity}"),
        oracle: QUEUEING_ORACLE.into(),
        clients: Clients::new(loads).timeout(20 * call_us),
        upstream: Box::new(move || {
            let mut dependency = Queueing::new(capacity, call_us, growth);
            dependency.jitter_us = call_us / 50;
            Box::new(dependency)
        }),
        limiters: vec![
            ("AIMD".into(), Limiter::AimdFloat(AimdConfig::default())),
            ("oracle".into(), Limiter::Oracle),
        ],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_every_upstream_builds() {
        let all = all(&Params::default());
        let mut names: Vec<&str> = all
            .iter()
            .flat_map(|s| {
                std::iter::once(s.name.as_str()).chain(s.aliases.iter().map(String::as_str))
            })
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a name is used twice");
        for s in &all {
            let _ = (s.upstream)();
            assert!(
                s.limiters.iter().any(|(l, _)| l == "oracle"),
                "{}: no oracle",
                s.name
            );
        }
    }

    #[test]
    fn parameters_resize_the_shared_scenarios_only() {
        let params = Params {
            clients: Some(7),
            duration_us: Some(3 * S),
        };
        let all = all(&params);
        let shared = all
            .iter()
            .find(|s| s.name == "shared-7-linear")
            .expect("resized");
        assert_eq!(shared.clients.loads.len(), 7);
        assert_eq!(shared.clients.until_us(), 3 * S);
        let late = all
            .iter()
            .find(|s| s.name == "late-joiner-7")
            .expect("resized");
        assert_eq!(late.clients.loads[7].start_us, S);
        let seed = all.iter().find(|s| s.is_named("seed-000")).expect("alias");
        assert_eq!(seed.clients.until_us(), 500 * MS);
    }
}
