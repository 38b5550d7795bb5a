#!/usr/bin/env python3
"""Breaks the gate on purpose, one way at a time, and shows which loom model catches it.

Usage: python3 scripts/loom-mutants.py [MUTANT...]   (default: all)

Each mutant is a textual edit of the real source, applied, checked with the loom models
(LOOM_MAX_PREEMPTIONS=2, stopping at the first model that fails) and reverted, whatever
happens. A mutant that no model catches is reported and makes the script exit non-zero.
"""
import os
import shutil
import subprocess
import sys
G = 'limiter-core/src/gate/mod.rs'
# Each: (file, the code as it is, the code broken). The loom models run the std family, whose
# words count the requests in flight (the gate's invariant 6), so most mutants break that path.
muts = {
 # Invariant 2: a release that finds someone waiting grants.
 'drop-ignores-waiters': (G, '''            if M::fetch_add(&self.words[CANCELLED], 1) & WAITING != 0 {
                self.grant_waiters(None, true);
            }''', '''            M::fetch_add(&self.words[CANCELLED], 1);'''),
 # Invariant 2: a raised limit, published, grants.
 'no-grant-on-raise': (G, '''        self.locked(|s| f(&mut s.controller))''',
                       '''        M::lock(&self.state, |s| {
            let r = f(&mut s.controller);
            self.publish(s);
            r
        })'''),
 # Invariant 2: the first grant under the operation's lock leaves the rest to the grant pass.
 'first-grant-keeps-the-rest': (G, '''        (Some(waker), self.has_room(s))''', '''        (Some(waker), false)'''),
 # Invariant 1: no admission at the limit.
 'admit-at-limit': (G, '''            if counts.someone_waits() || in_flight >= counts.limit() {''',
                    '''            if counts.someone_waits() || in_flight > counts.limit() {'''),
 # Invariant 3: no newcomer past a waiter.
 'fast-path-barges': (G, '''            if counts.someone_waits() || in_flight >= counts.limit() {''',
                      '''            if in_flight >= counts.limit() {'''),
 # Invariant 6: an admission under the lock is a compare-and-exchange from the count it judged.
 'lock-admits-by-add': (G, '''            match M::compare_exchange(&self.words[ADMITTED], admitted, one_more(admitted)) {
                Ok(_) => return true,
                Err(held) => admitted = held,
            }''', '''            M::fetch_add(&self.words[ADMITTED], ONE);
            let _ = &mut admitted;
            return true;'''),
 # Invariant 6: the first to queue sets the bit before it looks for room again.
 'queue-without-the-bit': (G, '''        M::fetch_or(&self.words[CANCELLED], WAITING);
        if !self.try_take(s) {''', '''        if !self.try_take(s) {'''),
 # Invariant 6: a new limit goes into the words.
 'limit-not-published': (G, '''        while admitted as u32 != limit {''', '''        while false && admitted as u32 != limit {'''),
 # Invariant 4: what a grant was admitted as goes out before the horizon that tells of it.
 'horizon-first': (G, '''        M::store(
            &self.words[GRANTED_AS],
            epoch << 32 | u64::from(self.in_flight_of(s)),
        );
        M::store(&self.words[HORIZON], s.waiters.horizon());''', '''        M::store(&self.words[HORIZON], s.waiters.horizon());
        M::store(
            &self.words[GRANTED_AS],
            epoch << 32 | u64::from(self.in_flight_of(s)),
        );'''),
 # Invariant 4: a permit gives its unit back on drop.
 'drop-leaks': ('limiter-core/src/gate/permit.rs', '''            self.gate.complete(None);''',
                '''            let _ = &self.gate;'''),
}


def run(name):
    path, old, new = muts[name]
    src = open(path).read()
    assert old in src, f"{name}: the code it breaks has changed; update the mutant"
    open(path, 'w').write(src.replace(old, new))
    try:
        env = dict(os.environ, RUSTFLAGS='--cfg loom', CARGO_TARGET_DIR='target/loom',
                   LOOM_MAX_PREEMPTIONS='2')
        r = subprocess.run(['cargo', 'nextest', 'run', '--release', '-p', 'limiter-core',
                            '--features', 'std', '-E', 'binary(loom)'],
                           env=env, capture_output=True, text=True)
    finally:
        open(path, 'w').write(src)
    out = (r.stdout + r.stderr).splitlines()
    caught = [l.split()[-1] for l in out if ('FAIL [' in l or 'SIGABRT [' in l)]
    why = next((l.strip()[:140] for l in out if 'deadlock' in l or 'assertion' in l), '')
    print(f"{name:>22}: caught by {', '.join(sorted(set(caught))) or 'NOTHING'}")
    if why:
        print(f"{'':>24}{why}")
    return bool(caught)


if __name__ == '__main__':
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
    names = sys.argv[1:] or list(muts)
    missed = [n for n in names if not run(n)]
    sys.exit(1 if missed else 0)
