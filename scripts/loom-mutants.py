#!/usr/bin/env python3
"""Breaks the gate on purpose, one way at a time, and shows which loom model catches it.

Usage: python3 scripts/loom-mutants.py [MUTANT...]   (default: all)

Each mutant is a textual edit of the real source, applied, checked with the loom models
(LOOM_MAX_PREEMPTIONS=2) and reverted, whatever happens. A mutant that no model catches is
reported and makes the script exit non-zero.
"""
import os
import shutil
import subprocess
import sys
muts = {
 'no-pass-on': ('limiter-core/src/gate/mod.rs', '''            if matches!(entry.state, EntryState::Granted) {
                s.in_flight = s.in_flight.saturating_sub(1);''', '''            if matches!(entry.state, EntryState::Granted) {'''),
 'no-grant-on-release': ('limiter-core/src/gate/mod.rs', '''    pub(crate) fn complete(&self, admission: Admission, outcome: Option<(Outcome, Instant)>) {
        let seen = self.locked(|s| {''', '''    pub(crate) fn complete(&self, admission: Admission, outcome: Option<(Outcome, Instant)>) {
        let seen = M::lock(&self.state, |s| {'''),
 'no-grant-on-raise': ('limiter-core/src/gate/mod.rs', '''        self.locked(|s| f(&mut s.controller))''', '''        M::lock(&self.state, |s| f(&mut s.controller))'''),
 'first-grant-keeps-the-rest': ('limiter-core/src/gate/mod.rs', '''        (Some(waker), self.has_room())''', '''        (Some(waker), false)'''),
 'admit-at-limit': ('limiter-core/src/gate/mod.rs', '''        self.in_flight < self.controller.limit()''', '''        self.in_flight <= self.controller.limit()'''),
 'fast-path-barges': ('limiter-core/src/gate/mod.rs', '''        self.waiters.waiting() == 0 && self.has_room()''', '''        self.has_room()'''),
 'drop-leaks': ('limiter-core/src/gate/permit.rs', '''            self.gate.complete(self.admission, None);''', '''            let _ = &self.gate;'''),
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
                            '-E', 'binary(loom)', '--no-fail-fast'],
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
