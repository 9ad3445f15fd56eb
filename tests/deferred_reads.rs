//! Reads that keep their hit and miss counts in the process (`Cache::get_into_deferred`): the
//! process sees its own counts at once, others see them when they are added (by the process, or
//! by themselves every `DEFERRED_READS_UP_TO`), and a forked child that forgets its parent's
//! counts never adds them a second time.

mod common;

use common::{spawn, wait};
use shmcache::engine::{string_hash, Cache, Config, Namespace, ValueKind, DEFERRED_READS_UP_TO};

fn deferred_get(cache: &Cache, key: &[u8]) -> bool {
    let mut out = Vec::new();
    cache.get_into_deferred(&Namespace::root(), key, string_hash(key), &mut out).unwrap().is_some()
}

#[test]
fn deferred_read_counts_reach_the_shared_counters_once() {
    let cache = Cache::create(&Config {
        keys_memory_size: 64 << 10,
        values_memory_size: 1 << 20,
        compress_threshold: 256,
    })
    .unwrap();
    let root = Namespace::root();
    assert!(cache.set(&root, b"here", ValueKind::STRING, b"value", 0).unwrap());

    // The process's own counts show at once.
    for _ in 0..3 {
        assert!(deferred_get(&cache, b"here"));
    }
    assert!(!deferred_get(&cache, b"absent"));
    let own = cache.stats();
    assert_eq!((own.hits, own.misses), (3, 1));

    // A child forgets the parent's 3 + 1 (as the PHP extension's fork handler does), reads
    // 5 hits and 2 misses, and adds them before it exits.
    let child = spawn(|| {
        cache.forget_deferred_reads();
        for _ in 0..5 {
            assert!(deferred_get(&cache, b"here"));
        }
        for _ in 0..2 {
            assert!(!deferred_get(&cache, b"absent"));
        }
        cache.add_deferred_reads();
        0
    });
    assert_eq!(wait(child), 0);
    let after_child = cache.stats();
    assert_eq!((after_child.hits, after_child.misses), (3 + 5, 1 + 2));

    // A child that exits without adding its counts (killed, say) has added them in bulk only.
    let reads = DEFERRED_READS_UP_TO + DEFERRED_READS_UP_TO / 2;
    let child = spawn(|| {
        cache.forget_deferred_reads();
        for _ in 0..reads {
            assert!(deferred_get(&cache, b"here"));
        }
        0
    });
    assert_eq!(wait(child), 0);
    assert_eq!(cache.stats().hits, 3 + 5 + DEFERRED_READS_UP_TO);

    // The parent's own counts, added, are counted once.
    cache.add_deferred_reads();
    let last = cache.stats();
    assert_eq!((last.hits, last.misses), (3 + 5 + DEFERRED_READS_UP_TO, 1 + 2));
}
