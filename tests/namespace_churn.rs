//! A namespace flushed all day must not make another namespace's live keys miss: a flush gives
//! the flushed namespace a new generation in its own word of the namespace table; it takes no
//! other namespace's word.

use shmcache::engine::{Cache, Config, Namespace, ValueKind};

const STR: ValueKind = ValueKind::STRING;

#[test]
fn one_namespace_flushed_100k_times_leaves_another_hitting() {
    let c = Cache::create(&Config {
        keys_memory_size: 1 << 20,
        values_memory_size: 8 << 20,
        compress_threshold: 0,
    })
    .unwrap();
    let stable = Namespace::new(b"site-a:options").unwrap();
    let busy = Namespace::new(b"site-b:counts").unwrap();
    for i in 0..200 {
        assert!(c.set(&stable, format!("k{i}").as_bytes(), STR, b"live", 0).unwrap());
    }
    let mut out = Vec::new();
    for round in 0..100_000u32 {
        c.flush_namespace(&busy);
        if round % 1000 == 0 {
            assert!(c.set(&busy, b"n", STR, &round.to_le_bytes(), 0).unwrap());
            for i in 0..200 {
                assert!(
                    c.get(&stable, format!("k{i}").as_bytes(), &mut out).unwrap().is_some(),
                    "round {round}: k{i} of the stable namespace missed"
                );
            }
        }
    }
    let stats = c.stats();
    assert_eq!(stats.namespace_flushes, 100_000);
    assert!(
        stats.namespaces_used <= 2,
        "{} namespace words for two namespaces",
        stats.namespaces_used
    );
    assert!(
        c.get(&busy, b"n", &mut out).unwrap().is_none(),
        "the busy namespace's key survived its own flush"
    );
}

/// Sites that flush all day create namespaces all day (a WordPress site flush retires every
/// group namespace: its names carry the site's generation). Namespaces that are in use must
/// keep their word in the table; the abandoned ones are the ones to evict.
#[test]
fn namespaces_in_use_survive_the_churn_of_abandoned_ones() {
    let c = Cache::create(&Config {
        keys_memory_size: 4 << 20,
        values_memory_size: 32 << 20,
        compress_threshold: 0,
    })
    .unwrap();
    let stable: Vec<Namespace> =
        (0..64).map(|i| Namespace::new(format!("site-a|1|group{i}").as_bytes()).unwrap()).collect();
    for ns in &stable {
        assert!(c.set(ns, b"k", STR, b"live", 0).unwrap());
    }
    let mut out = Vec::new();
    let mut misses = 0;
    for generation in 0..100_000u32 {
        // Another site flushed: its next request writes under a new namespace name.
        let churn = Namespace::new(format!("site-b|{generation}|options").as_bytes()).unwrap();
        assert!(c.set(&churn, b"alloptions", STR, b"x", 0).unwrap());
        if generation % 500 == 0 {
            for ns in &stable {
                if c.get(ns, b"k", &mut out).unwrap().is_none() {
                    misses += 1;
                    assert!(c.set(ns, b"k", STR, b"live", 0).unwrap());
                }
            }
        }
    }
    assert_eq!(misses, 0, "live namespaces lost their generation {misses} times to abandoned ones");
}

/// A namespace whose word the churn of others evicted has no generation: what it held is dead
/// (reads miss, the listing is empty) even though its entries are still in the ring, and a new
/// write gives it a fresh generation under which only new entries live. The namespace is the
/// first ever created, so its entries carry the first generation the table hands out.
#[test]
fn a_namespace_evicted_from_the_table_reads_nothing_it_held() {
    let c = Cache::create(&Config {
        keys_memory_size: 16 << 20,
        values_memory_size: 64 << 20,
        compress_threshold: 0,
    })
    .unwrap();
    let first = Namespace::new(b"site-a|1|options").unwrap();
    let mut out = Vec::new();
    assert!(c.set(&first, b"alloptions", STR, b"before", 0).unwrap());
    assert!(c.get(&first, b"alloptions", &mut out).unwrap().is_some());
    // Far more namespaces than the table has words, none of them the first.
    for generation in 2..100_000u32 {
        let churn = Namespace::new(format!("site-a|{generation}|options").as_bytes()).unwrap();
        assert!(c.set(&churn, b"alloptions", STR, b"x", 0).unwrap());
    }
    assert!(c.get(&first, b"alloptions", &mut out).unwrap().is_none());
    assert!(c.entries(&first).is_empty());
    assert!(c.set(&first, b"siteurl", STR, b"after", 0).unwrap());
    assert!(c.get(&first, b"alloptions", &mut out).unwrap().is_none());
    assert_eq!(c.get(&first, b"siteurl", &mut out).unwrap(), Some(STR));
    assert_eq!(out, b"after");
    let listed: Vec<Vec<u8>> = c.entries(&first).into_iter().map(|e| e.key).collect();
    assert_eq!(listed, vec![b"siteurl".to_vec()]);
}
