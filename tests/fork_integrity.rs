//! 4 processes, 50% writes, a ring small enough to recycle many times: zero wrong values.

mod common;

use common::{make_value, spawn, value_is_valid, wait, Rng, Shared};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const PROCS: usize = 4;
const OPS: u64 = 150_000;
const KEYS: u64 = 3000;

#[test]
fn concurrent_writers_and_readers_never_see_a_wrong_value() {
    let cache = Cache::create(&Config {
        keys_memory_size: 16 << 10,
        values_memory_size: 512 << 10,
        compress_threshold: 256,
    })
    .unwrap();
    // Per child: [wrong, hits, misses, sets]
    let report = Shared::new(PROCS * 4);
    let pids: Vec<_> = (0..PROCS)
        .map(|p| {
            let cache = &cache;
            let report = &report;
            spawn(move || {
                let ns = [Namespace::root(), Namespace::new(b"ns").unwrap()];
                let mut rng = Rng(0x9e37_79b9 + p as u64 * 7919);
                let mut out = Vec::new();
                for seq in 0..OPS {
                    let key = format!("key:{}", rng.below(KEYS)).into_bytes();
                    let space = &ns[(rng.below(2)) as usize];
                    if rng.below(2) == 0 {
                        let len = [16, 100, 700, 3000][rng.below(4) as usize];
                        let v = make_value(&key, seq * PROCS as u64 + p as u64, len);
                        if cache.set(space, &key, ValueKind::STRING, &v, 0).unwrap() {
                            report.add(p * 4 + 3, 1);
                        }
                    } else {
                        match cache.get(space, &key, &mut out).unwrap() {
                            Some(_) => {
                                report.add(p * 4 + 1, 1);
                                if !value_is_valid(&key, &out) {
                                    report.add(p * 4, 1);
                                }
                            }
                            None => report.add(p * 4 + 2, 1),
                        }
                    }
                }
                0
            })
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0);
    }
    let sum = |i: usize| (0..PROCS).map(|p| report.get(p * 4 + i)).sum::<u64>();
    let stats = cache.stats();
    eprintln!(
        "integrity: wrong={} hits={} misses={} sets={} recycles={} kicks={} validation_failures={}",
        sum(0),
        sum(1),
        sum(2),
        sum(3),
        stats.recycles,
        stats.kicks,
        stats.validation_failures
    );
    assert_eq!(sum(0), 0, "wrong values returned");
    assert!(stats.recycles >= 50, "the ring must wrap many times during the run");
    assert!(sum(1) > 10_000, "the run must produce hits to check");
}
