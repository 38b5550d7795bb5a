//! A scenario of one's own through the library API, and the guard that stops a run which would
//! never let time move: the run becomes a flagged row and the other limiters' rows still run.

use limiter_sim::engine::Clients;
use limiter_sim::limiter::Limiter;
use limiter_sim::load::Load;
use limiter_sim::report;
use limiter_sim::rng::Rng;
use limiter_sim::scenario::Scenario;
use limiter_sim::upstream::{Call, CallEnd, CallStart, Ending, Reply, Share, Upstream};

/// Answers 503 in no time at all while more than `threshold` calls are in flight... and in no
/// time at all below it too, when `instant` is set: closed-loop callers then call again at the
/// same instant, forever.
struct Flapping {
    in_flight: u32,
    instant: bool,
    ended: Vec<(u64, Ending)>,
}

impl Upstream for Flapping {
    fn start(&mut self, _: &CallStart, _: &mut Rng) -> Call {
        self.in_flight += 1;
        if self.instant {
            Call {
                duration_us: 0,
                reply: Reply::Unavailable,
            }
        } else {
            Call {
                duration_us: 1_000,
                reply: Reply::Ok,
            }
        }
    }
    fn end(&mut self, call: &CallEnd) {
        self.in_flight -= 1;
        self.ended.push((call.id, call.ending));
    }
    fn oracle_limit(&self, _: u64, _: usize, _: Share) -> u32 {
        4
    }
}

fn scenario(instant: bool) -> Scenario {
    Scenario {
        name: "flapping".into(),
        aliases: Vec::new(),
        about: "a test's own dependency".into(),
        oracle: "4".into(),
        clients: Clients::new(vec![Load::closed(8, 100_000)]),
        upstream: Box::new(move || {
            Box::new(Flapping {
                in_flight: 0,
                instant,
                ended: Vec::new(),
            })
        }),
        limiters: vec![
            ("fixed 4".into(), Limiter::Fixed(4)),
            ("oracle".into(), Limiter::Oracle),
        ],
    }
}

#[test]
fn a_runaway_run_is_a_flagged_row_and_the_rest_still_run() {
    let rows = report::rows(&scenario(true), 1);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        let error = row.error.as_deref().expect("flagged");
        // 8 callers: 10,000 + 64 × 8 events allowed at one instant, stopped at the next.
        assert_eq!(
            error,
            "runaway: 10513 events at t = 0.000 s without time moving"
        );
        assert!(row.metrics.is_none());
    }
    let table = report::table(&scenario(true), &rows);
    assert!(table.contains("fixed 4 FLAGGED: runaway"), "{table}");
    // The same dependency answering in 1 ms runs to the end: 8 callers, 4 at a time, 4 calls
    // a millisecond for 100 ms, and the 4 still waiting at the stop served after it.
    let rows = report::rows(&scenario(false), 1);
    let m = rows[0].metrics.as_ref().expect("a result");
    assert_eq!(
        (m.ok, m.ok_during_load, m.server_in_flight_max),
        (404, 400, 4)
    );
    assert_eq!(rows[1].goodput_vs_oracle, Some(1.0));
}

#[test]
fn the_upstream_sees_every_end_with_its_id_and_how_it_ended() {
    let s = scenario(false);
    let mut upstream = Flapping {
        in_flight: 0,
        instant: false,
        ended: Vec::new(),
    };
    let m = limiter_sim::engine::run(&s.clients, &mut upstream, &Limiter::Fixed(4), 1).unwrap();
    assert_eq!(upstream.in_flight, 0);
    assert_eq!(upstream.ended.len() as u64, m.ok);
    let mut ids: Vec<u64> = upstream.ended.iter().map(|(id, _)| *id).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len() as u64, m.ok, "each call ends once");
    assert!(
        upstream
            .ended
            .iter()
            .all(|(_, e)| *e == Ending::Answered(Reply::Ok))
    );
}

/// Serves every call in 1 ms; the oracle's share is 1 until 10 ms, then 100.
struct Stepped;

impl Upstream for Stepped {
    fn start(&mut self, _: &CallStart, _: &mut Rng) -> Call {
        Call {
            duration_us: 1_000,
            reply: Reply::Ok,
        }
    }
    fn end(&mut self, _: &CallEnd) {}
    fn oracle_limit(&self, now: u64, _: usize, _: Share) -> u32 {
        if now < 10_000 { 1 } else { 100 }
    }
    fn oracle_steady_until(&self, now: u64) -> u64 {
        if now < 10_000 { 10_000 } else { u64::MAX }
    }
}

/// More callers woken towards a global ceiling than its queue holds: those turned away by it
/// after their own gate admitted them are refusals (queue full), not a crash.
#[test]
fn a_full_global_queue_sheds_woken_callers() {
    // 60 clients of 100 callers under a ceiling of 40: one call each until the oracle's limit
    // rises from 1 to 100 at 10 ms and wakes 99 waiters of every client at once, 5,940 for a
    // global queue with room for 4,096 less the 20 already in it.
    let mut clients = Clients::new(vec![Load::closed(100, 20_000); 60]);
    clients.global = Some(40);
    let m = limiter_sim::engine::run(&clients, &mut Stepped, &Limiter::Oracle, 1).unwrap();
    assert!(
        m.queue_full >= 1_800,
        "{} refused by a full queue",
        m.queue_full
    );
    assert_eq!(m.global_peak, Some(40));
}
