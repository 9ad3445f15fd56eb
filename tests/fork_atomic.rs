//! Atomic operations across real processes: exact incr totals and a single add winner.

mod common;

use std::sync::atomic::Ordering;

use common::{spawn, wait, Shared};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const PROCS: usize = 4;
const INCRS: i64 = 100_000;
const ROUNDS: usize = 1000;

#[test]
fn incr_totals_and_add_winners_are_exact() {
    // A ring large enough that no writer is descheduled for a whole lap of it (a writer stalled
    // that long can only lose data, never return a wrong one: that is fork_crash's subject).
    let cache = Cache::create(&Config {
        keys_memory_size: 64 << 10,
        values_memory_size: 128 << 20,
        compress_threshold: 0,
    })
    .unwrap();
    let root = Namespace::root();
    cache.set(&root, b"counter", ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
    let pids: Vec<_> = (0..PROCS)
        .map(|_| {
            let (cache, root) = (&cache, &root);
            spawn(move || {
                for _ in 0..INCRS {
                    match cache.incr(root, b"counter", 1) {
                        Ok(Some(_)) => {}
                        Ok(None) => return 1,
                        Err(_) => return 2,
                    }
                }
                0
            })
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0);
    }
    let mut out = Vec::new();
    cache.get(&root, b"counter", &mut out).unwrap().unwrap();
    let total = i64::from_le_bytes(out[..8].try_into().unwrap());
    eprintln!("incr: {PROCS} x {INCRS} -> {total}, cas_retries = {}", cache.stats().cas_retries);
    assert_eq!(total, PROCS as i64 * INCRS);

    // add race: in each round every process waits at a barrier, then adds the same fresh key.
    // Shared words: [0] = arrivals, [1 + round] = winners of the round.
    let shared = Shared::new(1 + ROUNDS);
    let pids: Vec<_> = (0..PROCS)
        .map(|p| {
            let (cache, root, shared) = (&cache, &root, &shared);
            spawn(move || {
                for round in 0..ROUNDS {
                    shared.at(0).fetch_add(1, Ordering::SeqCst);
                    while shared.get(0) < ((round + 1) * PROCS) as u64 {
                        std::hint::spin_loop();
                    }
                    let key = format!("fresh-{round}");
                    if cache
                        .add(
                            root,
                            key.as_bytes(),
                            ValueKind::STRING,
                            format!("winner {p}").as_bytes(),
                            0,
                        )
                        .unwrap()
                    {
                        shared.add(1 + round, 1);
                    }
                }
                0
            })
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0);
    }
    let bad: Vec<_> =
        (0..ROUNDS).filter(|&r| shared.get(1 + r) != 1).map(|r| (r, shared.get(1 + r))).collect();
    assert!(bad.is_empty(), "rounds without exactly one add winner: {bad:?}");
    for round in 0..ROUNDS {
        assert!(cache.get(&root, format!("fresh-{round}").as_bytes(), &mut out).unwrap().is_some());
        assert!(out.starts_with(b"winner "));
    }
}
