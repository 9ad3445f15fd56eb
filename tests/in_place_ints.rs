//! Integers updated in place (entry.rs `FLAG_IN_PLACE`): incr, decr and cas swap the stored
//! pair (the integer and its check word) with one 16-byte atomic instruction instead of
//! appending an entry, so a counter bumped a million times does not push a million entries
//! through the ring (evicting everything else). What must hold: nothing is appended, the
//! entry's TTL stays, concurrent updates from processes sum exactly, a reader never sees a
//! value that was not stored (nor one older than a value it already saw), and a counter whose
//! entry the ring reclaims under it is a miss, never a wrong number.

mod common;

use common::{spawn, wait};
use shmcache::engine::{Cache, Config, Namespace, ValueKind};

fn cache(values_memory_size: u64) -> Cache {
    Cache::create(&Config { keys_memory_size: 64 << 10, values_memory_size, compress_threshold: 0 })
        .unwrap()
}

fn get_int(cache: &Cache, ns: &Namespace, key: &[u8]) -> Option<i64> {
    let mut out = Vec::new();
    match cache.get(ns, key, &mut out).unwrap() {
        Some(ValueKind::INT) => Some(i64::from_le_bytes(out[..8].try_into().unwrap())),
        Some(other) => panic!("an integer came back as kind {other:?}"),
        None => None,
    }
}

#[test]
fn incr_decr_and_cas_append_nothing_to_the_ring() {
    let cache = cache(1 << 20);
    let ns = Namespace::new(b"counters").unwrap();
    assert!(cache.set(&ns, b"hits", ValueKind::INT, &40i64.to_le_bytes(), 0).unwrap());
    let written = cache.stats().values_written_bytes;
    for _ in 0..1000 {
        cache.incr(&ns, b"hits", 3).unwrap().unwrap();
    }
    assert_eq!(cache.incr(&ns, b"hits", -1000).unwrap(), Some(2040));
    assert!(cache.cas(&ns, b"hits", 2040, 7).unwrap());
    assert!(!cache.cas(&ns, b"hits", 2040, 8).unwrap(), "cas from a value that is gone");
    assert_eq!(get_int(&cache, &ns, b"hits"), Some(7));
    assert_eq!(cache.stats().values_written_bytes, written, "an in-place update appended an entry");
    // A plain set still appends (and the new entry is in place too).
    assert!(cache.set(&ns, b"hits", ValueKind::INT, &100i64.to_le_bytes(), 0).unwrap());
    assert!(cache.stats().values_written_bytes > written);
    assert_eq!(cache.incr(&ns, b"hits", 1).unwrap(), Some(101));
}

#[test]
fn an_update_in_place_keeps_the_entrys_ttl_and_wraps_like_an_append() {
    let cache = cache(1 << 20);
    let ns = Namespace::root();
    assert!(cache.set(&ns, b"c", ValueKind::INT, &i64::MAX.to_le_bytes(), 300).unwrap());
    let expires = cache.expires_at(&ns, b"c").unwrap();
    assert!(expires.is_some_and(|e| e > 0));
    assert_eq!(cache.incr(&ns, b"c", 1).unwrap(), Some(i64::MIN), "wrapping add");
    assert_eq!(cache.expires_at(&ns, b"c").unwrap(), expires);
    assert_eq!(get_int(&cache, &ns, b"c"), Some(i64::MIN));
    // Non-integers are not counters.
    assert!(cache.set(&ns, b"s", ValueKind::STRING, b"12345678", 0).unwrap());
    assert_eq!(cache.incr(&ns, b"s", 1).unwrap(), None);
}

/// Every key length puts the pair at a different alignment inside its entry.
#[test]
fn every_key_length_finds_its_pair() {
    let cache = cache(1 << 20);
    let ns = Namespace::root();
    for len in 1..=40usize {
        let key = vec![b'k'; len];
        assert!(cache.set(&ns, &key, ValueKind::INT, &(len as i64).to_le_bytes(), 0).unwrap());
    }
    for len in 1..=40usize {
        let key = vec![b'k'; len];
        assert_eq!(cache.incr(&ns, &key, 1000).unwrap(), Some(len as i64 + 1000));
        assert_eq!(get_int(&cache, &ns, &key), Some(len as i64 + 1000), "key of {len} bytes");
    }
    let listed = cache.entries(&ns);
    assert_eq!(listed.len(), 40, "in-place entries are listed");
    assert!(listed.iter().all(|e| e.value_len == 8 && e.kind == ValueKind::INT));
}

/// Two processes increment and one decrements the same counter while a fourth reads it: the
/// total is exact, and the reader sees only values that lie between the lowest and highest the
/// counter can hold, never one that goes back after the decrementer has stopped.
#[test]
fn processes_updating_one_counter_in_place_sum_exactly_and_readers_see_no_torn_value() {
    const N: i64 = 200_000;
    let cache = cache(16 << 20);
    let ns = Namespace::root();
    cache.set(&ns, b"n", ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
    let (c, r) = (&cache, &ns);
    let workers: Vec<_> = [1i64, 1, -1]
        .into_iter()
        .map(|delta| {
            spawn(move || {
                for _ in 0..N {
                    if c.incr(r, b"n", delta).unwrap().is_none() {
                        return 1;
                    }
                }
                0
            })
        })
        .collect();
    let reader = spawn(move || {
        for _ in 0..N {
            match get_int(c, r, b"n") {
                Some(v) if (-N..=2 * N).contains(&v) => {}
                Some(_) => return 2,
                None => return 3,
            }
        }
        0
    });
    for pid in workers {
        assert_eq!(wait(pid), 0, "an incr missed its counter");
    }
    assert_eq!(wait(reader), 0, "the reader saw a value out of range (2) or a miss (3)");
    assert_eq!(get_int(&cache, &ns, b"n"), Some(N));
    assert_eq!(cache.stats().validation_failures, 0, "no read failed its checks");
}

/// A small ring that a writer keeps recycling while others increment counters: the counters'
/// entries are reclaimed under the incrementers again and again (an update may land on bytes
/// the ring has just handed to someone else's entry). Every value read is one a counter can
/// hold, and every entry the writer reads back is whole.
#[test]
fn counters_reclaimed_by_the_ring_under_their_updates_are_misses_never_wrong() {
    const ROUNDS: u64 = 60_000;
    let cache = cache(256 << 10);
    let ns = Namespace::root();
    let c = &cache;
    let r = &ns;
    let incrementers: Vec<_> = (0..2)
        .map(|p| {
            spawn(move || {
                let key = format!("counter-{}", p % 2);
                for _ in 0..ROUNDS {
                    match c.incr(r, key.as_bytes(), 1) {
                        Ok(Some(v)) if (1..=2 * ROUNDS as i64).contains(&v) => {}
                        Ok(Some(_)) => return 2,
                        Ok(None) => {
                            let _ =
                                c.add(r, key.as_bytes(), ValueKind::INT, &0i64.to_le_bytes(), 0);
                        }
                        Err(_) => {}
                    }
                    if let Some(v) = get_int(c, r, key.as_bytes()) {
                        if !(0..=2 * ROUNDS as i64).contains(&v) {
                            return 3;
                        }
                    }
                }
                0
            })
        })
        .collect();
    let churn = spawn(move || {
        let value = vec![0x5au8; 3000];
        for i in 0..ROUNDS / 4 {
            let key = format!("filler-{}", i % 64);
            let _ = c.set(r, key.as_bytes(), ValueKind::STRING, &value, 0);
            let mut out = Vec::new();
            if let Ok(Some(_)) = c.get(r, key.as_bytes(), &mut out) {
                if out != value {
                    return 4;
                }
            }
        }
        0
    });
    for pid in incrementers {
        assert_eq!(wait(pid), 0, "a counter read out of range (2: incr, 3: get)");
    }
    assert_eq!(wait(churn), 0, "a filler came back changed: an update wrote into it");
    assert!(cache.stats().recycles > 10, "the ring was not recycled: the test tested nothing");
    assert_eq!(cache.stats().validation_corrupt, 0);
}
