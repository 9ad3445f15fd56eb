//! Writers SIGKILLed at random points, 120 times: afterwards every process still works, nothing
//! hangs, and no wrong value is ever read.

mod common;

use common::{kill, make_value, spawn, value_is_valid, wait, Rng, Shared};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const KILLS: usize = 120;
const KEYS: u64 = 500;

fn writer(cache: &Cache, seed: u64) -> i32 {
    let spaces = [Namespace::root(), Namespace::new(b"crash").unwrap()];
    let mut rng = Rng(seed | 1);
    let mut seq = seed << 20;
    loop {
        seq += 1;
        let key = format!("k{}", rng.below(KEYS)).into_bytes();
        let ns = &spaces[rng.below(2) as usize];
        let _ = match rng.below(6) {
            0 => cache.delete(ns, &key).map(|_| true),
            1 => cache.add(ns, &key, ValueKind::STRING, &make_value(&key, seq, 50), 0),
            2 => cache.incr(ns, b"shared-counter", 1).map(|_| true),
            3 => cache.set(ns, &key, ValueKind::STRING, &make_value(&key, seq, 20_000), 0),
            4 => {
                cache.flush_namespace(&spaces[1]);
                Ok(true)
            }
            _ => cache.set(ns, &key, ValueKind::STRING, &make_value(&key, seq, 300), 0),
        };
    }
}

fn checker(cache: &Cache, seed: u64, report: &Shared, slot: usize) -> i32 {
    // SAFETY: alarm() only arms a timer; a hang turns into SIGALRM and a failed child.
    unsafe { libc::alarm(60) };
    let spaces = [Namespace::root(), Namespace::new(b"crash").unwrap()];
    let mut rng = Rng(seed | 1);
    let mut out = Vec::new();
    for i in 0..20_000u64 {
        let key = format!("k{}", rng.below(KEYS)).into_bytes();
        let ns = &spaces[rng.below(2) as usize];
        if i % 3 == 0 {
            cache.set(ns, &key, ValueKind::STRING, &make_value(&key, seed + i, 200), 0).unwrap();
        } else if cache.get(ns, &key, &mut out).unwrap().is_some() {
            report.add(slot, 1);
            if !value_is_valid(&key, &out) {
                report.add(0, 1);
            }
        }
    }
    0
}

fn counter(cache: &Cache) -> i32 {
    // SAFETY: as in `checker`.
    unsafe { libc::alarm(60) };
    for _ in 0..1000 {
        if cache.incr(&Namespace::root(), b"after", 1).unwrap().is_none() {
            return 1;
        }
    }
    0
}

#[test]
fn killed_writers_leave_a_working_cache() {
    let cache = Cache::create(&Config {
        keys_memory_size: 8 << 10,
        values_memory_size: 1 << 20,
        compress_threshold: 1024,
    })
    .unwrap();
    let root = Namespace::root();
    cache.set(&root, b"shared-counter", ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
    let mut rng = Rng(42);
    for round in 0..KILLS {
        let a = spawn(|| writer(&cache, round as u64 * 2 + 1));
        let b = spawn(|| writer(&cache, round as u64 * 2 + 2));
        std::thread::sleep(std::time::Duration::from_micros(500 + rng.below(15_000)));
        kill(a);
        if round % 2 == 0 {
            kill(b);
        } else {
            std::thread::sleep(std::time::Duration::from_micros(rng.below(3000)));
            kill(b);
        }
        assert_eq!(wait(a), 128 + libc::SIGKILL);
        assert_eq!(wait(b), 128 + libc::SIGKILL);
    }
    // Survivors: the parent and 4 new processes read, write and count.
    let mut out = Vec::new();
    for i in 0..KEYS {
        let key = format!("k{i}").into_bytes();
        if cache.get(&root, &key, &mut out).unwrap().is_some() {
            assert!(
                value_is_valid(&key, &out),
                "wrong value for {}",
                String::from_utf8_lossy(&key)
            );
        }
    }
    // report: [0] = wrong values, [1..=4] = hits per checker
    let report = Shared::new(5);
    let pids: Vec<_> = (0..4)
        .map(|p| {
            let (cache, report) = (&cache, &report);
            spawn(move || checker(cache, 1000 + p as u64, report, 1 + p))
        })
        .collect();
    for pid in pids {
        assert_eq!(wait(pid), 0, "a checker failed or hung");
    }
    cache.set(&root, b"after", ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
    let pids: Vec<_> = (0..4).map(|_| spawn(|| counter(&cache))).collect();
    for pid in pids {
        assert_eq!(wait(pid), 0, "a counter process failed or hung");
    }
    cache.get(&root, b"after", &mut out).unwrap().unwrap();
    assert_eq!(i64::from_le_bytes(out[..8].try_into().unwrap()), 4000);
    let hits: u64 = (1..=4).map(|i| report.get(i)).sum();
    let s = cache.stats();
    eprintln!(
        "crash: kills={} wrong={} checker hits={hits} validation_failures={} recycles={}",
        KILLS * 2,
        report.get(0),
        s.validation_failures,
        s.recycles
    );
    assert_eq!(report.get(0), 0);
    assert!(hits > 1000);
}
