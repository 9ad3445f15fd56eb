//! Atomic operations across real processes when the key's buckets are full: both candidate
//! buckets of the contested key hold 14 other live keys (its "neighbours"), so every insert of it
//! must evict one, and the processes keep rewriting the neighbours in place (`replace`, which
//! never inserts) so that their ring offsets become newer than the contested key's. Nothing but
//! the contested key's own writers may then remove it: `add` must have exactly one winner per
//! round, `incr` must be exact, `cas` must have exactly one winner per expected value, and
//! `replace` must always find the key. Before the fix, an insert could evict the copy of the key
//! a rival `add` had just published (the oldest entry of the buckets by then), and both adds won.
//!
//! The buckets are chosen with the `fuzzing` hooks, so `scripts/test.sh` runs this file with
//! that feature:
//!
//!   cargo test --release --no-default-features --features fuzzing --target-dir target/engine \
//!     --test fork_full_buckets
#![cfg(feature = "fuzzing")]

mod common;

use std::sync::atomic::{AtomicU64, Ordering};

use common::{spawn, wait, Shared};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const RACERS: usize = 4;
const PROCS: usize = RACERS;
const ADD_ROUNDS: u64 = 20_000;
/// The value the last racer adds is this long, the others' are short: its add finds the key
/// absent, then copies its value into the ring while another racer's add publishes the key
/// and goes on to rewrite the neighbours, so that when it picks a slot to evict, the entry
/// with the oldest offset is the winner's. (With equal short values, the same test failed in
/// 0 to 2 rounds in 1,000.)
const ADD_PAD: usize = 64 << 10;
const INCR_ROUNDS: u64 = 5000;
const INCRS_PER_ROUND: u64 = 20;
const CAS_ROUNDS: u64 = 5000;
const CAS_TARGET: u64 = 20;
const REPLACES: u64 = 20_000;
/// Keys sharing the contested key's two buckets (7 slots each): enough to fill them.
const NEIGHBOURS: usize = 14;
const KEY: &[u8] = b"contested";
const KIND: ValueKind = ValueKind::STRING;

/// A 1 KiB index (16 buckets) and a ring large enough that no round recycles the entries it
/// relies on (the neighbours are rewritten every round, and filled again before each).
fn cache() -> Cache {
    Cache::create(&Config {
        keys_memory_size: 1024,
        values_memory_size: 256 << 20,
        compress_threshold: 0,
    })
    .unwrap()
}

/// Keys whose two candidate buckets are exactly those of `KEY`: they can only live in its
/// buckets (a cuckoo step never moves them out), and 14 of them fill both.
fn neighbours(cache: &Cache, ns: &Namespace) -> Vec<Vec<u8>> {
    let mut want = cache.fuzz_candidate_buckets(ns, KEY);
    want.sort_unstable();
    let found: Vec<Vec<u8>> = (0u64..)
        .map(|i| format!("neighbour-{i}").into_bytes())
        .filter(|k| {
            let mut b = cache.fuzz_candidate_buckets(ns, k);
            b.sort_unstable();
            b == want
        })
        .take(NEIGHBOURS)
        .collect();
    assert_eq!(found.len(), NEIGHBOURS);
    found
}

/// The 14 slot words of `KEY`'s two buckets.
fn candidate_words(cache: &Cache, ns: &Namespace) -> Vec<u64> {
    let l = cache.region().fuzz_layout();
    let mut words = Vec::new();
    for bucket in cache.fuzz_candidate_buckets(ns, KEY) {
        for i in 0..7 {
            let at = l.index.0 + (bucket as usize * 8 + i) * 8;
            assert!(at + 8 <= l.index.0 + l.index.1);
            // SAFETY: an 8-aligned word inside the index area of the live mapping, read
            // atomically as every process does.
            words.push(unsafe { &*l.base.add(at).cast::<AtomicU64>() }.load(Ordering::SeqCst));
        }
    }
    words
}

/// Stores every missing neighbour again (into the slots that are free), then checks that the
/// key's buckets are full: all 14 slots published, every neighbour live. Returns false if not.
fn fill_buckets(cache: &Cache, ns: &Namespace, neighbours: &[Vec<u8>]) -> bool {
    for k in neighbours {
        if !cache.exists(ns, k).unwrap() {
            cache.set(ns, k, KIND, b"neighbour", 0).unwrap();
        }
    }
    neighbours.iter().all(|k| cache.exists(ns, k).unwrap())
        && candidate_words(cache, ns).iter().all(|&w| w != 0 && w & (1 << 63) == 0)
}

/// Rewrites the live neighbours in place until `done` reaches `until`: their offsets become
/// newer than the contested key's. Returns how many rewrites it made.
fn churn(
    cache: &Cache,
    ns: &Namespace,
    neighbours: &[Vec<u8>],
    done: &AtomicU64,
    until: u64,
) -> u64 {
    let mut n = 0;
    while done.load(Ordering::SeqCst) < until {
        for k in neighbours {
            if cache.replace(ns, k, KIND, b"neighbour, rewritten", 0).unwrap() {
                n += 1;
            }
        }
        std::thread::yield_now();
    }
    n
}

/// A reusable barrier over a shared word: the `n`-th call of every process returns once all
/// `procs` processes made it.
fn barrier(arrivals: &AtomicU64, procs: usize, n: u64) {
    arrivals.fetch_add(1, Ordering::SeqCst);
    while arrivals.load(Ordering::SeqCst) < n * procs as u64 {
        std::thread::yield_now();
    }
}

/// Spins until `word` reaches `value`, yielding the CPU now and then (the machine may have
/// fewer cores than the test has processes).
fn wait_for(word: &AtomicU64, value: u64) {
    let mut spins = 0u32;
    while word.load(Ordering::SeqCst) < value {
        spins += 1;
        if spins % 256 == 0 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
}

/// Runs `f(0..procs)` in as many forked processes and waits for all of them.
fn run_all(procs: usize, f: impl Fn(usize) -> i32) {
    let pids: Vec<_> = (0..procs)
        .map(|p| {
            let f = &f;
            spawn(move || {
                // SAFETY: alarm() only arms a timer; a hang turns into SIGALRM and a failed child.
                unsafe { libc::alarm(120) };
                f(p)
            })
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0, "a child failed or hung");
    }
}

fn int(v: &[u8]) -> i64 {
    i64::from_le_bytes(v.try_into().expect("an 8-byte integer"))
}

/// What a round reports: [0] rounds that went wrong, [1] rounds whose buckets were not full at
/// the start, [2] neighbour rewrites, [3..11] the first rounds that went wrong, then the
/// scenario's own words from SCENARIO_WORDS on.
const BAD: usize = 0;
const NOT_FULL: usize = 1;
const REWRITES: usize = 2;
const FIRST_BAD: usize = 3;
/// Private to this runner: the barrier and the count of racers done.
const ARRIVALS: usize = 11;
const RACERS_DONE: usize = 12;
const SCENARIO_WORDS: usize = 13;

/// `rounds` rounds in PROCS processes. Each round process 0 deletes `KEY` and fills its buckets
/// again (`setup` then prepares the round's shared words); then, all at once, processes
/// 0..RACERS run `race` while the others rewrite the neighbours until the racers are done;
/// then every process runs `check`, and a round where process 0's `check` returns false is
/// counted as bad. Returns the shared words.
fn race_rounds(
    cache: &Cache,
    ns: &Namespace,
    neighbours: &[Vec<u8>],
    rounds: u64,
    extra_words: usize,
    setup: impl Fn(&Shared),
    race: impl Fn(&Shared, usize, u64),
    check: impl Fn(&Shared, usize, u64) -> bool,
) -> Shared {
    let s = Shared::new(SCENARIO_WORDS + extra_words);
    run_all(PROCS, |p| {
        let mut barriers = 0;
        let mut sync = || {
            barriers += 1;
            barrier(s.at(ARRIVALS), PROCS, barriers);
        };
        for round in 0..rounds {
            sync();
            if p == 0 {
                cache.delete(ns, KEY).unwrap();
                if !fill_buckets(cache, ns, neighbours) {
                    s.add(NOT_FULL, 1);
                }
                setup(&s);
            }
            sync();
            race(&s, p, round);
            s.add(RACERS_DONE, 1);
            s.add(
                REWRITES,
                churn(cache, ns, neighbours, s.at(RACERS_DONE), (round + 1) * PROCS as u64),
            );
            sync();
            if !check(&s, p, round) && p == 0 {
                let bad = s.at(BAD).fetch_add(1, Ordering::SeqCst);
                if bad < 8 {
                    s.at(FIRST_BAD + bad as usize).store(round, Ordering::SeqCst);
                }
            }
        }
        0
    });
    s
}

/// A scenario's result line: how many of `rounds` went wrong and which came first.
fn round_failures(name: &str, s: &Shared, rounds: u64, failures: &mut Vec<String>) {
    let first: Vec<u64> = (0..s.get(BAD).min(8) as usize).map(|i| s.get(FIRST_BAD + i)).collect();
    let line = format!(
        "{name}: {} of {rounds} rounds went wrong (first: {first:?}); {} neighbour rewrites",
        s.get(BAD),
        s.get(REWRITES)
    );
    eprintln!("{line}");
    assert_eq!(
        s.get(NOT_FULL),
        0,
        "{name}: the key's buckets were not full at the start of some rounds"
    );
    if s.get(BAD) != 0 {
        failures.push(line);
    }
}

#[test]
fn atomic_operations_are_exact_when_the_key_buckets_are_full() {
    let cache = cache();
    let ns = Namespace::root();
    let neighbours = neighbours(&cache, &ns);
    let mut failures = Vec::new();
    let kicks_before = cache.stats().kicks;

    // add: RACERS processes add KEY at once; exactly one wins, and afterwards every process
    // reads the winner's value. Words: winners, last winner + 1, wrong reads.
    let (winners, winner, wrong_reads, slow_started) =
        (SCENARIO_WORDS, SCENARIO_WORDS + 1, SCENARIO_WORDS + 2, SCENARIO_WORDS + 3);
    let slow = RACERS - 1;
    let value = |p: u64, round: u64| {
        let mut v = format!("round {round} won by {p}").into_bytes();
        if p == slow as u64 {
            v.resize(v.len() + ADD_PAD, b'.');
        }
        v
    };
    let s = race_rounds(
        &cache,
        &ns,
        &neighbours,
        ADD_ROUNDS,
        4,
        |s| s.at(winners).store(0, Ordering::SeqCst),
        |s, p, round| {
            // The slow racer goes first, the others as soon as it has.
            if p == slow {
                s.at(slow_started).store(round + 1, Ordering::SeqCst);
            } else {
                wait_for(s.at(slow_started), round + 1);
            }
            if cache.add(&ns, KEY, KIND, &value(p as u64, round), 0).unwrap() {
                s.add(winners, 1);
                s.at(winner).store(p as u64 + 1, Ordering::SeqCst);
            }
        },
        |s, _, round| {
            let mut out = Vec::new();
            if s.get(winners) != 1 {
                return false;
            }
            let read = cache.get(&ns, KEY, &mut out).unwrap().is_some()
                && out == value(s.get(winner) - 1, round);
            if !read {
                s.add(wrong_reads, 1);
            }
            true
        },
    );
    round_failures("add", &s, ADD_ROUNDS, &mut failures);
    if s.get(wrong_reads) != 0 {
        failures.push(format!(
            "add: {} reads after a round were not the winner's value",
            s.get(wrong_reads)
        ));
    }
    eprintln!("add: {} kicks in {ADD_ROUNDS} rounds", cache.stats().kicks - kicks_before);

    // incr, the way PHP code keeps a counter: add(KEY, 0), then incr. RACERS processes do both
    // at once, INCRS_PER_ROUND increments each: the round ends at exactly RACERS x that, and
    // no incr finds the key missing. Words: failed incrs.
    let failed_incrs = SCENARIO_WORDS;
    let s = race_rounds(
        &cache,
        &ns,
        &neighbours,
        INCR_ROUNDS,
        1,
        |_| {},
        |s, _, _| {
            cache.add(&ns, KEY, ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
            for _ in 0..INCRS_PER_ROUND {
                if cache.incr(&ns, KEY, 1).unwrap().is_none() {
                    s.add(failed_incrs, 1);
                }
            }
        },
        |_, _, _| {
            let mut out = Vec::new();
            cache.get(&ns, KEY, &mut out).unwrap().is_some()
                && int(&out) == (RACERS as u64 * INCRS_PER_ROUND) as i64
        },
    );
    round_failures("incr", &s, INCR_ROUNDS, &mut failures);
    if s.get(failed_incrs) != 0 {
        failures.push(format!("incr: {} increments found no counter", s.get(failed_incrs)));
    }

    // cas: add(KEY, 0), then RACERS processes move it from v to v + 1 until CAS_TARGET: each v
    // has exactly one winning cas. Words: winners of cas(v, v + 1) for v in 0..CAS_TARGET.
    let s = race_rounds(
        &cache,
        &ns,
        &neighbours,
        CAS_ROUNDS,
        CAS_TARGET as usize,
        |s| {
            (0..CAS_TARGET as usize)
                .for_each(|v| s.at(SCENARIO_WORDS + v).store(0, Ordering::SeqCst))
        },
        |s, _, _| {
            cache.add(&ns, KEY, ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
            let mut out = Vec::new();
            while cache.get(&ns, KEY, &mut out).unwrap().is_some() {
                let v = int(&out);
                if !(0..CAS_TARGET as i64).contains(&v) {
                    break;
                }
                if cache.cas(&ns, KEY, v, v + 1).unwrap() {
                    s.add(SCENARIO_WORDS + v as usize, 1);
                }
            }
        },
        |s, _, _| {
            let mut out = Vec::new();
            cache.get(&ns, KEY, &mut out).unwrap().is_some()
                && int(&out) == CAS_TARGET as i64
                && (0..CAS_TARGET as usize).all(|v| s.get(SCENARIO_WORDS + v) == 1)
        },
    );
    round_failures("cas", &s, CAS_ROUNDS, &mut failures);

    // replace: KEY stays live throughout, so every replace of two writers succeeds (while a
    // third process rewrites the neighbours); a reader never misses it and sees each writer's values in the order written; the last value
    // is some writer's last.
    cache.delete(&ns, KEY).unwrap();
    assert!(fill_buckets(&cache, &ns, &neighbours), "the key's buckets are full");
    cache.set(&ns, KEY, ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
    let value = |p: usize, i: u64| ((p as u64) << 32 | i).to_le_bytes();
    // [0] writers done, [1] failed replaces, [2] reader misses, [3] values out of order.
    let s = Shared::new(4);
    let writers = PROCS - 2;
    run_all(PROCS, |p| {
        if p == PROCS - 1 {
            churn(&cache, &ns, &neighbours, s.at(0), writers as u64);
            return 0;
        }
        if p == writers {
            // The reader: per writer, the last sequence number seen.
            let mut last = vec![0u64; writers];
            let mut out = Vec::new();
            while s.get(0) < writers as u64 {
                match cache.get(&ns, KEY, &mut out).unwrap() {
                    None => s.add(2, 1),
                    Some(_) if int(&out) == 0 => {}
                    Some(_) => {
                        let v = int(&out) as u64;
                        let (w, i) = ((v >> 32) as usize, v & 0xffff_ffff);
                        if w >= writers || i < last[w] {
                            s.add(3, 1);
                        } else {
                            last[w] = i;
                        }
                    }
                }
            }
            return 0;
        }
        for i in 1..=REPLACES {
            if !cache.replace(&ns, KEY, ValueKind::INT, &value(p, i), 0).unwrap() {
                s.add(1, 1);
            }
        }
        s.add(0, 1);
        0
    });
    let mut out = Vec::new();
    let last_ok = cache.get(&ns, KEY, &mut out).unwrap().is_some()
        && (0..writers).any(|p| out == value(p, REPLACES));
    let line = format!(
        "replace: {writers} x {REPLACES}, {} failed, {} reader misses, {} out of order, last value a writer's last: {last_ok}",
        s.get(1),
        s.get(2),
        s.get(3)
    );
    eprintln!("{line}");
    if s.get(1) != 0 || s.get(2) != 0 || s.get(3) != 0 || !last_ok {
        failures.push(line);
    }

    assert!(failures.is_empty(), "{failures:#?}");
}
