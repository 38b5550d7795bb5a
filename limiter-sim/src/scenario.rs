//! The standard scenarios, each a load, an upstream and the limiters to compare.

use std::time::Duration;

use limiter_core::{AimdConfig, EwmaConfig, GradientConfig, Ratio, VegasConfig};

use crate::engine::{Load, Retry};
use crate::limiter::Limiter;
use crate::upstream::{Outage, PerClient, Queueing, Quota, Schedule, Upstream};

const MS: u64 = 1_000;
const S: u64 = 1_000_000;

/// A scenario: who calls, what they call, and which limiters to compare.
#[derive(Debug)]
pub struct Scenario {
    /// Short name, for `--scenario`.
    pub name: &'static str,
    /// One line on what it shows.
    pub about: &'static str,
    /// The clients, one load each; each client has its own limiter.
    pub clients: Vec<Load>,
    /// A fresh upstream for each run.
    pub upstream: fn() -> Box<dyn Upstream>,
    /// The limiters, with their labels.
    pub limiters: Vec<(&'static str, Limiter)>,
    /// Whether and how failed calls are retried.
    pub retry: Option<Retry>,
    /// A fixed ceiling over all clients (hierarchical admission: each call takes its client's
    /// permit, then the ceiling's), if any.
    pub global: Option<u32>,
}

/// The peer controllers, sized like the scenario's AIMD, and the oracle: the rows every
/// comparison ends with.
fn peers(initial: u32, max: u32) -> Vec<(&'static str, Limiter)> {
    vec![
        ("Vegas", Limiter::Vegas(vegas(initial, max))),
        ("EWMA-deviation", Limiter::Ewma(ewma(initial, max))),
        ("Gradient2", Limiter::Gradient(gradient(initial, max))),
        ("oracle", Limiter::Oracle),
    ]
}

fn gradient(initial: u32, max: u32) -> GradientConfig {
    GradientConfig::default().initial(initial).bounds(1, max)
}

fn ewma(initial: u32, max: u32) -> EwmaConfig {
    EwmaConfig::default().initial(initial).bounds(1, max)
}

fn vegas(initial: u32, max: u32) -> VegasConfig {
    VegasConfig::default().initial(initial).bounds(1, max)
}

fn aimd(initial: u32, max: u32) -> AimdConfig {
    AimdConfig::default().initial(initial).bounds(1, max)
}

/// Every scenario, in the order they are printed.
///
/// # Panics
///
/// Never: the constant ratios are valid.
pub fn all() -> Vec<Scenario> {
    vec![
        seed_000(),
        seed_004(),
        slow_no_429(),
        drop_and_recover(),
        retry_after(),
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
    ]
}

fn seed_000() -> Scenario {
    Scenario {
        name: "seed-000",
        about: "capacity 16 -> 4 at 250 ms; 2 calls per ms for 500 ms; 5 ms base, timeouts past 25",
        clients: vec![Load::Open {
            per_tick: 2,
            tick_us: MS,
            until_us: 500 * MS,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Queueing {
                capacity: Schedule(vec![(0, 16), (250 * MS, 4)]),
                base_us: 5 * MS,
                hard_cap: Some(25),
                jitter_us: 0,
                timeout_us: None,
                in_flight: 0,
            })
        },
        limiters: [
            vec![
                ("fixed 16", Limiter::Fixed(16)),
                ("AIMD f32", Limiter::AimdFloat(aimd(16, 64))),
                ("AIMD fixed-point", Limiter::AimdFixedPoint(aimd(16, 64))),
                (
                    "AIMD 20 ms target",
                    Limiter::AimdFloat(aimd(16, 64).target(Duration::from_millis(20))),
                ),
            ],
            peers(16, 64),
        ]
        .concat(),
    }
}

fn seed_004() -> Scenario {
    Scenario {
        name: "seed-004",
        about: "quota 40 / 10 / 30 per 100 ms tick over three 10 s phases; a backlog of work",
        clients: vec![Load::Closed {
            workers: 200,
            until_us: 30 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Quota {
                quota: Schedule(vec![(0, 40), (10 * S, 10), (20 * S, 30)]),
                window_us: 100 * MS,
                latency_us: 100 * MS,
                retry_after: false,
                window: (0, 0),
            })
        },
        limiters: [
            vec![
                ("fixed 4", Limiter::Fixed(4)),
                ("fixed 64", Limiter::Fixed(64)),
                (
                    "AIMD from 4",
                    Limiter::AimdFloat(
                        aimd(4, 100).backoff(Ratio::from_fraction(7, 10).expect("0.7")),
                    ),
                ),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 100))),
            ],
            peers(4, 100),
        ]
        .concat(),
    }
}

fn slow_no_429() -> Scenario {
    Scenario {
        name: "slow-no-429",
        about: "latency grows past 8 in flight and nothing ever fails; 64 callers for 10 s",
        clients: vec![Load::Closed {
            workers: 64,
            until_us: 10 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Queueing {
                capacity: Schedule(vec![(0, 8)]),
                base_us: 10 * MS,
                hard_cap: None,
                jitter_us: MS,
                timeout_us: None,
                in_flight: 0,
            })
        },
        limiters: [
            vec![
                ("fixed 64", Limiter::Fixed(64)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 64))),
            ],
            peers(4, 64),
        ]
        .concat(),
    }
}

fn drop_and_recover() -> Scenario {
    Scenario {
        name: "drop-and-recover",
        about: "quota 50 per tick, 5 from 5 s, 50 again from 10 s; a backlog of work for 15 s",
        clients: vec![Load::Closed {
            workers: 200,
            until_us: 15 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Quota {
                quota: Schedule(vec![(0, 50), (5 * S, 5), (10 * S, 50)]),
                window_us: 100 * MS,
                latency_us: 100 * MS,
                retry_after: false,
                window: (0, 0),
            })
        },
        limiters: [
            vec![
                ("fixed 50", Limiter::Fixed(50)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 100))),
            ],
            peers(4, 100),
        ]
        .concat(),
    }
}

fn retry_after() -> Scenario {
    Scenario {
        name: "retry-after",
        about: "quota 20 per tick; refusals carry Retry-After to the next tick; 200 callers, 10 s",
        clients: vec![Load::Closed {
            workers: 200,
            until_us: 10 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Quota {
                quota: Schedule(vec![(0, 20)]),
                window_us: 100 * MS,
                latency_us: 100 * MS,
                retry_after: true,
                window: (0, 0),
            })
        },
        limiters: [
            vec![
                ("fixed 64", Limiter::Fixed(64)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 100))),
            ],
            peers(4, 100),
        ]
        .concat(),
    }
}

fn quota(schedule: Vec<(u64, u32)>, retry_after: bool) -> Quota {
    Quota {
        quota: Schedule(schedule),
        window_us: 100 * MS,
        latency_us: 100 * MS,
        retry_after,
        window: (0, 0),
    }
}

fn oscillating() -> Scenario {
    Scenario {
        name: "oscillating",
        about: "quota alternates 40 and 10 per tick every 2 s; a backlog of work for 20 s",
        clients: vec![Load::Closed {
            workers: 200,
            until_us: 20 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            let steps = (0..10).map(|i| (i * 2 * S, if i % 2 == 0 { 40 } else { 10 }));
            Box::new(quota(steps.collect(), false))
        },
        limiters: [
            vec![
                ("fixed 40", Limiter::Fixed(40)),
                ("fixed 10", Limiter::Fixed(10)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 100))),
            ],
            peers(4, 100),
        ]
        .concat(),
    }
}

fn fairness() -> Scenario {
    Scenario {
        name: "fairness",
        about: "10 clients, each with its own limiter and 20 callers, share a capacity of 40 for 20 s",
        clients: vec![
            Load::Closed {
                workers: 20,
                until_us: 20 * S,
            };
            10
        ],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Queueing {
                capacity: Schedule(vec![(0, 40)]),
                base_us: 10 * MS,
                hard_cap: Some(80),
                jitter_us: MS,
                timeout_us: None,
                in_flight: 0,
            })
        },
        limiters: [
            vec![
                ("fixed 20 each", Limiter::Fixed(20)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 64))),
            ],
            peers(4, 64),
        ]
        .concat(),
    }
}

/// Two accounts at one provider, each with its own limiter (and, with `global`, a ceiling over
/// both): account A is throttled at 5 calls per tick; `upstream` sets both quotas.
fn noisy_tenant(
    name: &'static str,
    about: &'static str,
    global: Option<u32>,
    upstream: fn() -> Box<dyn Upstream>,
) -> Scenario {
    Scenario {
        name,
        about,
        clients: vec![
            Load::Closed {
                workers: 100,
                until_us: 10 * S,
            };
            2
        ],
        retry: None,
        global,
        upstream,
        limiters: [
            vec![
                ("fixed 40 each", Limiter::Fixed(40)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 100))),
            ],
            peers(4, 100),
        ]
        .concat(),
    }
}

fn steady_noisy() -> Scenario {
    Scenario {
        name: "steady-noisy",
        about: "Poisson 200/s (a third of capacity 8), 10 ms base + 3 ms mean jitter, 30 s",
        clients: vec![Load::Poisson {
            rate_per_s: 200.0,
            until_us: 30 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Queueing {
                capacity: Schedule(vec![(0, 8)]),
                base_us: 10 * MS,
                hard_cap: None,
                jitter_us: 3 * MS,
                timeout_us: None,
                in_flight: 0,
            })
        },
        limiters: [
            vec![
                ("fixed 16", Limiter::Fixed(16)),
                ("AIMD defaults", Limiter::AimdFloat(aimd(4, 64))),
                (
                    "AIMD 20 ms target",
                    Limiter::AimdFloat(aimd(4, 64).target(Duration::from_millis(20))),
                ),
            ],
            peers(4, 64),
        ]
        .concat(),
    }
}

fn retry_storm(name: &'static str, budget: Option<Ratio>) -> Scenario {
    Scenario {
        name,
        about: if budget.is_some() {
            "as retry-storm, with a retry budget of 10 % of recent first attempts (plus 10)"
        } else {
            "capacity 20 fails every call from 2 s to 4 s; 100 callers retry up to 3 times, 10 s"
        },
        clients: vec![Load::Closed {
            workers: 100,
            until_us: 10 * S,
        }],
        retry: Some(Retry {
            max_attempts: 4,
            backoff_us: 20 * MS,
            budget,
        }),
        global: None,
        upstream: || {
            Box::new(Outage {
                inner: Queueing {
                    capacity: Schedule(vec![(0, 20)]),
                    base_us: 10 * MS,
                    hard_cap: Some(40),
                    jitter_us: MS,
                    timeout_us: None,
                    in_flight: 0,
                },
                from_us: 2 * S,
                to_us: 4 * S,
            })
        },
        limiters: vec![
            ("fixed 30", Limiter::Fixed(30)),
            ("AIMD defaults", Limiter::AimdFloat(aimd(4, 64))),
            ("oracle", Limiter::Oracle),
        ],
    }
}

fn hang() -> Scenario {
    Scenario {
        name: "hang",
        about: "capacity 10; past 20 in flight the server stops answering; 1 s client timeout; 60 callers, 20 s",
        clients: vec![Load::Closed {
            workers: 60,
            until_us: 20 * S,
        }],
        retry: None,
        global: None,
        upstream: || {
            Box::new(Queueing {
                capacity: Schedule(vec![(0, 10)]),
                base_us: 20 * MS,
                hard_cap: Some(20),
                jitter_us: 2 * MS,
                timeout_us: Some(S),
                in_flight: 0,
            })
        },
        limiters: vec![
            ("fixed 30", Limiter::Fixed(30)),
            ("AIMD defaults", Limiter::AimdFloat(aimd(4, 64))),
            ("Gradient2", Limiter::Gradient(gradient(4, 64))),
            ("oracle", Limiter::Oracle),
        ],
    }
}
