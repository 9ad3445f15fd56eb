//! Listing a namespace while other processes write, delete and overwrite its keys, with a ring
//! small enough to recycle many times during the run: every entry listed is one that was
//! written, whole (its key, kind, length and expiry belong together), listed once.

mod common;

use std::time::{Duration, Instant};

use common::{make_value, spawn, wait, Rng, Shared};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const WRITERS: usize = 3;
const KEYS: u64 = 600;
const PAYLOADS: [usize; 4] = [16, 100, 700, 3000];
const RUN: Duration = Duration::from_millis(1500);

/// What a writer stores under key number `i`: its kind and TTL are fixed per key, so a
/// listed entry whose fields come from two different entries shows.
fn kind_of(i: u64) -> ValueKind {
    ValueKind(10 + (i % 200) as u8)
}

fn ttl_of(i: u64) -> i64 {
    1000 + i as i64
}

fn key_of(i: u64) -> Vec<u8> {
    format!("key:{i}").into_bytes()
}

/// The cache's clock (expiries are computed on it).
fn now() -> u64 {
    shmcache::engine::clock_secs()
}

#[test]
fn listings_during_concurrent_writes_hold_only_whole_live_entries() {
    let cache = Cache::create(&Config {
        keys_memory_size: 64 << 10,
        values_memory_size: 256 << 10,
        compress_threshold: 256,
    })
    .unwrap();
    let stop = Shared::new(1);
    let started = now();
    let pids: Vec<_> = (0..WRITERS)
        .map(|p| {
            let (cache, stop) = (&cache, &stop);
            spawn(move || {
                let listed = Namespace::new(b"listed").unwrap();
                let other = Namespace::new(b"other").unwrap();
                let mut rng = Rng(0x2545_f491 + p as u64 * 7919);
                let mut seq = 0;
                while stop.get(0) == 0 {
                    seq += 1;
                    let i = rng.below(KEYS);
                    let key = key_of(i);
                    match rng.below(8) {
                        0 => {
                            let _ = cache.delete(&listed, &key);
                        }
                        // Same key names in another namespace: never listed.
                        1 => {
                            let _ = cache.set(&other, &key, ValueKind(1), &[0; 40], 0);
                        }
                        _ => {
                            let v = make_value(
                                &key,
                                seq * WRITERS as u64 + p as u64,
                                PAYLOADS[rng.below(4) as usize],
                            );
                            let _ = cache.set(&listed, &key, kind_of(i), &v, ttl_of(i));
                        }
                    }
                }
                0
            })
        })
        .collect();

    let ns = Namespace::new(b"listed").unwrap();
    let deadline = Instant::now() + RUN;
    let (mut listings, mut listed, mut wrong) = (0u64, 0u64, Vec::new());
    while Instant::now() < deadline {
        let listing = cache.entries(&ns);
        listings += 1;
        listed += listing.len() as u64;
        let mut seen = std::collections::HashSet::new();
        for e in &listing {
            let Some(i) = std::str::from_utf8(&e.key)
                .ok()
                .and_then(|k| k.strip_prefix("key:"))
                .and_then(|n| n.parse::<u64>().ok())
            else {
                wrong.push(format!("unknown key {:?}", e.key));
                continue;
            };
            let lengths: Vec<u64> =
                PAYLOADS.iter().map(|&n| make_value(&e.key, 0, n).len() as u64).collect();
            let expiry = now() + ttl_of(i) as u64;
            if i >= KEYS
                || !seen.insert(e.key.clone())
                || e.kind != kind_of(i)
                || !lengths.contains(&e.value_len)
                || !(started + ttl_of(i) as u64..=expiry).contains(&e.expires_at)
            {
                wrong.push(format!("{e:?}"));
            }
        }
    }
    stop.add(0, 1);
    for pid in pids {
        assert_eq!(wait(pid), 0);
    }
    let stats = cache.stats();
    eprintln!(
        "listing: {listings} listings, {listed} entries listed, {} wrong, recycles={}",
        wrong.len(),
        stats.recycles
    );
    assert!(wrong.is_empty(), "wrong entries listed: {:?}", &wrong[..wrong.len().min(5)]);
    assert!(stats.recycles >= 20, "the ring must wrap many times during the run");
    assert!(listings >= 20 && listed >= 1000, "the run must list entries to check");

    // With the writers gone, the listing is exactly the keys a read finds.
    let listing = cache.entries(&ns);
    let readable: Vec<Vec<u8>> =
        (0..KEYS).map(key_of).filter(|k| cache.exists(&ns, k).unwrap()).collect();
    let mut keys: Vec<Vec<u8>> = listing.into_iter().map(|e| e.key).collect();
    keys.sort();
    let mut readable_sorted = readable.clone();
    readable_sorted.sort();
    assert_eq!(keys, readable_sorted);
}
