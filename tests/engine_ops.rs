//! Single-process behaviour of every engine operation (no PHP involved).

use shmcache::engine::{
    Cache, Config, Error, Namespace, ValueKind, MAX_KEY_LEN, MAX_NAMESPACE_LEN,
};

const STR: ValueKind = ValueKind::STRING;

fn cache(keys: u64, values: u64, threshold: u64) -> Cache {
    Cache::create(&Config {
        keys_memory_size: keys,
        values_memory_size: values,
        compress_threshold: threshold,
    })
    .unwrap()
}

fn small() -> Cache {
    cache(64 << 10, 1 << 20, 4096)
}

fn get(c: &Cache, ns: &Namespace, key: &[u8]) -> Option<(ValueKind, Vec<u8>)> {
    let mut out = Vec::new();
    c.get(ns, key, &mut out).unwrap().map(|k| (k, out))
}

#[test]
fn set_then_get_returns_the_value_and_counts() {
    let c = small();
    let root = Namespace::root();
    assert_eq!(get(&c, &root, b"k"), None);
    assert!(c.set(&root, b"k", STR, b"hello", 0).unwrap());
    assert_eq!(get(&c, &root, b"k"), Some((STR, b"hello".to_vec())));
    assert!(c.set(&root, b"k", STR, b"world!", 0).unwrap());
    assert_eq!(get(&c, &root, b"k"), Some((STR, b"world!".to_vec())));
    let s = c.stats();
    assert_eq!((s.hits, s.misses, s.sets), (2, 1, 2));
    assert_eq!(s.slots_used, 1);
}

#[test]
fn binary_keys_and_empty_values() {
    let c = small();
    let root = Namespace::root();
    let key = b"a\x00b\xff\xfe";
    assert!(c.set(&root, key, STR, b"", 0).unwrap());
    assert_eq!(get(&c, &root, key), Some((STR, vec![])));
    assert_eq!(get(&c, &root, b"a"), None);
    assert_eq!(get(&c, &root, b"a\x00b"), None);
}

#[test]
fn key_limits_are_enforced() {
    let c = small();
    let root = Namespace::root();
    assert_eq!(c.set(&root, b"", STR, b"x", 0), Err(Error::EmptyKey));
    assert_eq!(c.get(&root, b"", &mut Vec::new()), Err(Error::EmptyKey));
    let long = vec![b'k'; MAX_KEY_LEN];
    assert!(c.set(&root, &long, STR, b"v", 0).unwrap());
    assert_eq!(get(&c, &root, &long).unwrap().1, b"v");
    let too_long = vec![b'k'; MAX_KEY_LEN + 1];
    assert_eq!(
        c.set(&root, &too_long, STR, b"v", 0),
        Err(Error::KeyTooLong { len: MAX_KEY_LEN + 1, max: MAX_KEY_LEN })
    );
    assert!(Namespace::new(&vec![b'n'; MAX_NAMESPACE_LEN]).is_ok());
    assert!(matches!(
        Namespace::new(&vec![b'n'; MAX_NAMESPACE_LEN + 1]),
        Err(Error::NamespaceTooLong { .. })
    ));
}

#[test]
fn oversized_values_are_refused_and_nothing_is_lost() {
    let c = cache(64 << 10, 256 << 10, 0);
    let root = Namespace::root();
    c.set(&root, b"keep", STR, b"safe", 0).unwrap();
    let max = c.max_value_len(3);
    let at_max: Vec<u8> = (0..max).map(|i| (i * 7 % 251) as u8).collect();
    assert!(c.set(&root, b"big", STR, &at_max, 0).unwrap());
    assert_eq!(get(&c, &root, b"big").unwrap().1, at_max);
    let over = vec![1u8; max + 1];
    assert!(matches!(c.set(&root, b"big", STR, &over, 0), Err(Error::ValueTooLarge { .. })));
    assert_eq!(
        get(&c, &root, b"big").unwrap().1,
        at_max,
        "a refused write must not disturb the old value"
    );
    assert_eq!(get(&c, &root, b"keep").unwrap().1, b"safe");
}

#[test]
fn add_and_replace_semantics() {
    let c = small();
    let root = Namespace::root();
    assert!(!c.replace(&root, b"k", STR, b"r", 0).unwrap());
    assert_eq!(get(&c, &root, b"k"), None);
    assert!(c.add(&root, b"k", STR, b"a", 0).unwrap());
    assert!(!c.add(&root, b"k", STR, b"b", 0).unwrap());
    assert_eq!(get(&c, &root, b"k").unwrap().1, b"a");
    assert!(c.replace(&root, b"k", STR, b"r", 0).unwrap());
    assert_eq!(get(&c, &root, b"k").unwrap().1, b"r");
    assert!(c.delete(&root, b"k").unwrap());
    assert!(!c.replace(&root, b"k", STR, b"x", 0).unwrap());
    assert!(c.add(&root, b"k", STR, b"again", 0).unwrap());
}

#[test]
fn delete_and_exists() {
    let c = small();
    let root = Namespace::root();
    assert!(!c.delete(&root, b"k").unwrap());
    c.set(&root, b"k", STR, b"v", 0).unwrap();
    assert!(c.exists(&root, b"k").unwrap());
    assert!(c.delete(&root, b"k").unwrap());
    assert!(!c.exists(&root, b"k").unwrap());
    assert!(!c.delete(&root, b"k").unwrap());
    assert_eq!(c.stats().deletes, 1);
}

#[test]
fn incr_decr_and_cas_on_integers_only() {
    let c = small();
    let root = Namespace::root();
    assert_eq!(c.incr(&root, b"n", 1).unwrap(), None, "missing key");
    c.set(&root, b"n", ValueKind::INT, &10i64.to_le_bytes(), 0).unwrap();
    assert_eq!(c.incr(&root, b"n", 5).unwrap(), Some(15));
    assert_eq!(c.incr(&root, b"n", -20).unwrap(), Some(-5));
    assert_eq!(get(&c, &root, b"n").unwrap(), (ValueKind::INT, (-5i64).to_le_bytes().to_vec()));
    assert!(!c.cas(&root, b"n", 7, 8).unwrap());
    assert!(c.cas(&root, b"n", -5, 100).unwrap());
    assert_eq!(c.incr(&root, b"n", 0).unwrap(), Some(100));
    c.set(&root, b"s", STR, b"12345678", 0).unwrap();
    assert_eq!(c.incr(&root, b"s", 1).unwrap(), None, "a string is not an integer even if 8 bytes");
    assert!(!c.cas(&root, b"s", 0, 1).unwrap());
    c.set(&root, b"max", ValueKind::INT, &i64::MAX.to_le_bytes(), 0).unwrap();
    assert_eq!(
        c.incr(&root, b"max", 1).unwrap(),
        Some(i64::MIN),
        "documented: wraps like a C integer"
    );
}

#[test]
fn ttl_expiry_and_past_ttl() {
    let c = small();
    let root = Namespace::root();
    c.set(&root, b"past", STR, b"v", -1).unwrap();
    assert_eq!(get(&c, &root, b"past"), None);
    assert!(c.add(&root, b"past", STR, b"w", 0).unwrap(), "an expired entry does not block add");
    c.set(&root, b"short", STR, b"v", 1).unwrap();
    c.set(&root, b"long", STR, b"v", 3600).unwrap();
    assert!(get(&c, &root, b"short").is_some());
    std::thread::sleep(std::time::Duration::from_millis(2100));
    assert_eq!(get(&c, &root, b"short"), None);
    assert!(get(&c, &root, b"long").is_some());
    assert!(!c.replace(&root, b"short", STR, b"x", 0).unwrap());
    assert!(c.stats().expired >= 1);
    c.set(&root, b"cnt", ValueKind::INT, &1i64.to_le_bytes(), 3600).unwrap();
    assert_eq!(c.incr(&root, b"cnt", 1).unwrap(), Some(2));
}

#[test]
fn expires_at_reports_live_keys_only() {
    let c = small();
    let ns = Namespace::new(b"exp").unwrap();
    // The cache's own clock (the kernel's tick, up to a few ms behind the precise one).
    let before = shmcache::engine::clock_secs();
    c.set(&ns, b"forever", STR, b"v", 0).unwrap();
    c.set(&ns, b"hour", STR, b"v", 3600).unwrap();
    c.set(&ns, b"past", STR, b"v", -1).unwrap();
    let after = shmcache::engine::clock_secs();
    assert_eq!(c.expires_at(&ns, b"forever").unwrap(), Some(0));
    let hour = c.expires_at(&ns, b"hour").unwrap().expect("live");
    assert!(
        (before + 3600..=after + 3600).contains(&hour),
        "{hour} not within [{}, {}]",
        before + 3600,
        after + 3600
    );
    assert_eq!(c.expires_at(&ns, b"past").unwrap(), None, "expired");
    assert_eq!(c.expires_at(&ns, b"missing").unwrap(), None);
    assert_eq!(c.expires_at(&Namespace::root(), b"hour").unwrap(), None, "another namespace");
    c.flush_namespace(&ns);
    assert_eq!(c.expires_at(&ns, b"forever").unwrap(), None, "flushed");
    assert_eq!(c.expires_at(&ns, b"").unwrap_err(), Error::EmptyKey);
}

#[test]
fn seconds_left_counts_on_the_cache_clock() {
    let c = small();
    let ns = Namespace::new(b"left").unwrap();
    c.set(&ns, b"forever", STR, b"v", 0).unwrap();
    assert_eq!(c.times(&ns, b"forever").unwrap().unwrap().seconds_left(), 0, "0: never expires");
    let before = shmcache::engine::clock_secs();
    c.set(&ns, b"hour", STR, b"v", 3600).unwrap();
    let hour = c.times(&ns, b"hour").unwrap().unwrap();
    let left = hour.seconds_left();
    let after = shmcache::engine::clock_secs();
    assert!(
        (3600 - (after - before)..=3600).contains(&left),
        "{left} s left of a TTL of 3600 written between {before} and {after}"
    );
    // A write given what is left lands on the same expiry unless a second passed meanwhile.
    let start = shmcache::engine::clock_secs();
    c.set(&ns, b"again", STR, b"v", left as i64).unwrap();
    if shmcache::engine::clock_secs() == start && start == after {
        let again = c.times(&ns, b"again").unwrap().unwrap();
        assert_eq!(again.expires_at, hour.expires_at);
    }
    // An expiry this very second is not "never": at least 1.
    let edge = shmcache::engine::EntryTimes { expires_at: before, stored_at: 0 };
    assert_eq!(edge.seconds_left(), 1);
}

#[test]
fn flush_all_is_global_and_counted() {
    let c = small();
    let root = Namespace::root();
    let ns = Namespace::new(b"site-a").unwrap();
    c.set(&root, b"k", STR, b"v", 0).unwrap();
    c.set(&ns, b"k", STR, b"v", 0).unwrap();
    c.flush_all();
    assert_eq!(get(&c, &root, b"k"), None);
    assert_eq!(get(&c, &ns, b"k"), None);
    assert!(c.add(&root, b"k", STR, b"new", 0).unwrap());
    assert_eq!(get(&c, &root, b"k").unwrap().1, b"new");
    assert_eq!(c.stats().flushes, 1);
    assert_eq!(c.stats().slots_used, 1);
}

#[test]
fn namespaces_are_isolated_and_flush_alone() {
    let c = small();
    let root = Namespace::root();
    let a = Namespace::new(b"a").unwrap();
    let b = Namespace::new(b"b").unwrap();
    c.set(&root, b"k", STR, b"root", 0).unwrap();
    c.set(&a, b"k", STR, b"in a", 0).unwrap();
    c.set(&b, b"k", STR, b"in b", 0).unwrap();
    // "a" + "k" must not collide with the root key "ak".
    c.set(&root, b"ak", STR, b"root ak", 0).unwrap();
    assert_eq!(get(&c, &a, b"k").unwrap().1, b"in a");
    assert_eq!(get(&c, &b, b"k").unwrap().1, b"in b");
    c.flush_namespace(&a);
    assert_eq!(get(&c, &a, b"k"), None);
    assert_eq!(get(&c, &b, b"k").unwrap().1, b"in b");
    assert_eq!(get(&c, &root, b"k").unwrap().1, b"root");
    assert_eq!(get(&c, &root, b"ak").unwrap().1, b"root ak");
    c.set(&a, b"k", STR, b"a again", 0).unwrap();
    assert_eq!(get(&c, &a, b"k").unwrap().1, b"a again");
    let unseen = Namespace::new(b"never-written").unwrap();
    assert_eq!(get(&c, &unseen, b"k"), None);
    c.flush_namespace(&unseen);
    assert_eq!(get(&c, &b, b"k").unwrap().1, b"in b");
}

#[test]
fn compression_round_trips_and_is_counted() {
    let c = cache(64 << 10, 4 << 20, 100);
    let root = Namespace::root();
    let compressible = b"abcdefgh".repeat(2000);
    c.set(&root, b"z", STR, &compressible, 0).unwrap();
    assert_eq!(get(&c, &root, b"z").unwrap().1, compressible);
    assert_eq!(c.stats().compressed_count, 1);
    assert!(c.stats().values_written_bytes < 4000, "stored compressed");
    // Incompressible bytes are stored as they are.
    let mut x = 0x12345678u64;
    let noise: Vec<u8> = (0..5000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    c.set(&root, b"n", STR, &noise, 0).unwrap();
    assert_eq!(get(&c, &root, b"n").unwrap().1, noise);
    assert_eq!(c.stats().compressed_count, 1);
    // Below the threshold nothing is compressed.
    c.set(&root, b"s", STR, &b"a".repeat(99), 0).unwrap();
    assert_eq!(c.stats().compressed_count, 1);
    // Long values are judged by their first 4 KiB first: long noise is stored as it is...
    let long_noise: Vec<u8> = (0..64 << 10)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        })
        .collect();
    let written = c.stats().values_written_bytes;
    c.set(&root, b"ln", STR, &long_noise, 0).unwrap();
    assert_eq!(get(&c, &root, b"ln").unwrap().1, long_noise);
    assert_eq!(c.stats().compressed_count, 1);
    assert!(c.stats().values_written_bytes - written > 64 << 10, "stored uncompressed");
    // (which is why a long value whose first 4 KiB are noise is stored uncompressed even when
    // the rest would compress: the documented price of the probe)...
    let mut noisy_start = long_noise[..4096].to_vec();
    noisy_start.extend_from_slice(&b"abcdefgh".repeat(8192));
    let written = c.stats().values_written_bytes;
    c.set(&root, b"ns", STR, &noisy_start, 0).unwrap();
    assert_eq!(get(&c, &root, b"ns").unwrap().1, noisy_start);
    assert_eq!(c.stats().compressed_count, 1);
    assert!(
        c.stats().values_written_bytes - written > noisy_start.len() as u64,
        "stored uncompressed"
    );
    // ...a long value that starts compressible is compressed as a whole (here it shrinks by
    // its compressible start)...
    let mut mixed = b"abcdefgh".repeat(1024);
    mixed.extend_from_slice(&long_noise);
    c.set(&root, b"mx", STR, &mixed, 0).unwrap();
    assert_eq!(get(&c, &root, b"mx").unwrap().1, mixed);
    assert_eq!(c.stats().compressed_count, 2);
    // ...and so is a long compressible value.
    let long_text = b"<p>Lorem ipsum dolor sit amet.</p>\n".repeat(2000);
    c.set(&root, b"lt", STR, &long_text, 0).unwrap();
    assert_eq!(get(&c, &root, b"lt").unwrap().1, long_text);
    assert_eq!(c.stats().compressed_count, 3);
    // A compressible value larger than the ring's limit fits once compressed.
    let huge = vec![b'q'; 3 << 20];
    assert!(c.set(&root, b"huge", STR, &huge, 0).unwrap());
    assert_eq!(get(&c, &root, b"huge").unwrap().1, huge);
}

#[test]
fn ring_recycles_and_old_values_are_never_returned() {
    let c = cache(64 << 10, 64 << 10, 0);
    let root = Namespace::root();
    let mut latest = std::collections::HashMap::new();
    for i in 0..5000u32 {
        let key = format!("key-{}", i % 300);
        let value = format!("{key}={i}").repeat(1 + (i as usize % 7));
        c.set(&root, key.as_bytes(), STR, value.as_bytes(), 0).unwrap();
        latest.insert(key, value);
    }
    let s = c.stats();
    assert!(s.recycles >= 5, "ring should have wrapped, recycles = {}", s.recycles);
    let mut hits = 0;
    for (k, v) in &latest {
        if let Some((_, got)) = get(&c, &root, k.as_bytes()) {
            assert_eq!(&got, v.as_bytes(), "stale or wrong value for {k}");
            hits += 1;
        }
    }
    assert!(hits > 0);
    assert_eq!(c.stats().validation_failures, 0);
}

/// `values_written_bytes` counts what writes put in the ring, not the bytes the tail skips at
/// the end of each lap (an entry never wraps): equal writes each add the same, laps or not.
#[test]
fn values_written_bytes_leaves_out_the_end_of_each_lap() {
    let c = cache(64 << 10, 64 << 10, 0);
    let root = Namespace::root();
    let value = vec![b'v'; 1000];
    let mut deltas = std::collections::BTreeSet::new();
    for i in 0..1000u32 {
        let before = c.stats().values_written_bytes;
        c.set(&root, format!("k{:04}", i % 50).as_bytes(), STR, &value, 0).unwrap();
        deltas.insert(c.stats().values_written_bytes - before);
    }
    let s = c.stats();
    assert!(s.recycles >= 10, "the ring should have wrapped often, recycles = {}", s.recycles);
    assert_eq!(deltas.len(), 1, "every write of the same size counts the same: {deltas:?}");
    let per_write = *deltas.first().unwrap();
    assert!((1000..1100).contains(&per_write), "an entry of a 1000-byte value: {per_write}");
    // The end of each lap the tail skipped is left out.
    assert_eq!(s.values_written_bytes, 1000 * per_write);
}

/// A ring whose size is not a multiple of 8 (values_memory_size is any byte count): entries
/// must stay 8-aligned after the reservation skips to the next lap, or the slot words, which
/// store offset / 8, point beside them and every entry written after a wrap is lost.
#[test]
fn a_ring_of_odd_size_keeps_serving_after_it_wraps() {
    let c = cache(64 << 10, (64 << 10) + 5, 0);
    let root = Namespace::root();
    for i in 0..3000u32 {
        let key = format!("key-{}", i % 200);
        c.set(
            &root,
            key.as_bytes(),
            STR,
            format!("{key}={i}").repeat(1 + i as usize % 5).as_bytes(),
            0,
        )
        .unwrap();
    }
    assert!(c.stats().recycles >= 3, "the ring should have wrapped");
    for i in 2900..3000u32 {
        let key = format!("key-{}", i % 200);
        let want = format!("{key}={i}").repeat(1 + i as usize % 5);
        assert_eq!(get(&c, &root, key.as_bytes()), Some((STR, want.into_bytes())), "{key}");
    }
    assert_eq!(c.stats().validation_failures, 0);
}

#[test]
fn a_full_bucket_kicks_the_oldest_and_counts_it() {
    // 1 KiB of keys = 16 buckets x 7 slots = 112 slots; 1000 keys cannot all fit.
    let c = cache(1024, 4 << 20, 0);
    let root = Namespace::root();
    for i in 0..1000u32 {
        c.set(&root, format!("k{i}").as_bytes(), STR, b"v", 0).unwrap();
    }
    let s = c.stats();
    assert_eq!(s.slots_total, 112);
    assert!(s.kicks >= 1000 - 112, "kicks = {}", s.kicks);
    assert!(s.slots_used <= 112 && s.slots_used >= 105, "slots_used = {}", s.slots_used);
    // The most recent key survives: the oldest entry of a bucket is the one evicted.
    assert!(get(&c, &root, b"k999").is_some());
}

/// Fills a 4 MiB key table to `percent` of its slots with distinct keys and checks that at
/// least `min_kept` per 10,000 are still there, every lost key counted as a kick.
fn assert_retention_at_load(percent: u64, min_kept: u64) {
    let c = cache(4 << 20, 64 << 20, 0);
    let root = Namespace::root();
    let keys = c.stats().slots_total * percent / 100;
    for i in 0..keys {
        c.set(&root, format!("wp:options:{i}").as_bytes(), STR, b"1", 0).unwrap();
    }
    let kept = (0..keys)
        .filter(|i| c.exists(&root, format!("wp:options:{i}").as_bytes()).unwrap())
        .count() as u64;
    let kicks = c.stats().kicks;
    eprintln!("retention at {percent}%: {kept}/{keys}, kicks = {kicks}");
    assert_eq!(keys - kept, kicks, "every key lost is a counted kick");
    assert!(kept * 10_000 >= keys * min_kept, "kept {kept} of {keys} at {percent}% load");
}

#[test]
fn retention_at_80_percent_load_is_at_least_99_99_percent() {
    assert_retention_at_load(80, 9_999);
}

/// Placing a new key in the less loaded of its two buckets is what keeps buckets even: always
/// trying the first bucket first loses 1,179 of 445,644 keys at 85% load (and 300 at 80%),
/// both above the bounds here; the two-choice placement loses 199 (and 15). The keys and
/// their hashes are fixed, so the figures do not vary from run to run.
#[test]
fn retention_at_85_percent_load_is_at_least_99_9_percent() {
    assert_retention_at_load(85, 9_990);
}

#[test]
fn invalid_configs_are_rejected() {
    for (k, v) in
        [(0, 1 << 20), (1023, 1 << 20), (1 << 20, 1000), (1 << 20, 128 << 30), (32 << 30, 1 << 20)]
    {
        let r = Cache::create(&Config {
            keys_memory_size: k,
            values_memory_size: v,
            compress_threshold: 0,
        });
        assert!(matches!(r, Err(Error::InvalidConfig(_))), "{k} {v}");
    }
}

#[test]
fn attach_validates_the_header() {
    let c = small();
    let len = c.region().mapped_len();
    let mut junk = vec![0u8; 8192 + 4096];
    let aligned = junk.as_mut_ptr().wrapping_add(junk.as_ptr().align_offset(4096));
    // SAFETY (test): 8192 zeroed bytes at a page-aligned address inside `junk`.
    let r = unsafe { shmcache::engine::Region::attach(aligned, 8192) };
    assert!(r.is_err());
    assert!(len > 0);
}

#[test]
fn namespace_generations_change_on_flush_and_are_never_reused() {
    let c = small();
    let a = Namespace::new(b"site").unwrap();
    let b = Namespace::new(b"other").unwrap();
    let g1 = c.namespace_generation(&a);
    assert_eq!(c.namespace_generation(&a), g1, "stable until flushed");
    let gb = c.namespace_generation(&b);
    c.flush_namespace(&a);
    let g2 = c.namespace_generation(&a);
    assert_ne!(g1, g2);
    assert!(g2 > g1 && g2 > gb, "fresh generations come from one growing counter");
    assert_eq!(c.namespace_generation(&b), gb, "other namespaces keep theirs");
    let root = Namespace::root();
    let e1 = c.namespace_generation(&root);
    c.flush_all();
    assert_ne!(c.namespace_generation(&root), e1);
}

#[test]
fn flushed_entries_are_reused_without_counting_kicks() {
    // 112 slots, 88 keys (79%): fill them, flush, fill again: the second round evicts only
    // dead entries.
    let c = cache(1024, 4 << 20, 0);
    let root = Namespace::root();
    for i in 0..88u32 {
        c.set(&root, format!("a{i}").as_bytes(), STR, b"v", 0).unwrap();
    }
    let kicks_before = c.stats().kicks;
    c.flush_all();
    assert_eq!(c.stats().slots_used, 0);
    for i in 0..88u32 {
        c.set(&root, format!("b{i}").as_bytes(), STR, b"v", 0).unwrap();
    }
    let s = c.stats();
    // 88 keys in 112 slots can still overflow a pair of buckets now and then (a real kick),
    // but the 88 flushed entries being replaced must not be counted.
    assert!(s.kicks - kicks_before <= 3, "kicks after the flush: {}", s.kicks - kicks_before);
    let kept = (0..88u32).filter(|i| c.exists(&root, format!("b{i}").as_bytes()).unwrap()).count();
    assert!(kept >= 84, "kept {kept} of 88 after a flush");
}

#[test]
fn incr_after_set_in_a_fresh_cache() {
    let c = cache(64 << 10, 8 << 20, 0);
    let root = Namespace::root();
    c.set(&root, b"counter", ValueKind::INT, &0i64.to_le_bytes(), 0).unwrap();
    assert_eq!(c.incr(&root, b"counter", 1).unwrap(), Some(1));
}

/// A key and what a read found for it: the kind and value on a hit.
type Delivered = (Vec<u8>, Option<(ValueKind, Vec<u8>)>);

/// get_each over `keys`, in the order delivered.
fn get_each(c: &Cache, ns: &Namespace, keys: &[Vec<u8>]) -> Result<Vec<Delivered>, Error> {
    let mut seen = Vec::new();
    let mut sink = Vec::new();
    c.get_each(ns, keys.iter().cloned(), &mut sink, |key, hit, sink| {
        seen.push((key, hit.map(|kind| (kind, std::mem::take(sink)))));
        true
    })?;
    Ok(seen)
}

#[test]
fn get_each_agrees_with_get_for_every_batch_length() {
    let c = small();
    let root = Namespace::root();
    let ns = Namespace::new(b"batch").unwrap();
    for i in 0..40u32 {
        if i % 3 != 0 {
            assert!(c
                .set(
                    &root,
                    format!("k{i}").as_bytes(),
                    STR,
                    &vec![b'a' + (i % 26) as u8; i as usize * 7],
                    0
                )
                .unwrap());
        }
        assert!(c.set(&ns, format!("k{i}").as_bytes(), ValueKind(1), &i.to_le_bytes(), 0).unwrap());
    }
    assert!(c.set(&root, b"gone", STR, b"x", -1).unwrap()); // already expired
    c.flush_namespace(&ns);
    assert!(c.set(&ns, b"k5", ValueKind(1), b"after", 0).unwrap());
    // Every length around the look-ahead window, with misses, repeats, an expired key and a
    // flushed namespace mixed in.
    for len in 0..=24usize {
        let keys: Vec<Vec<u8>> = (0..len)
            .map(|j| match j % 7 {
                5 => b"gone".to_vec(),
                6 => b"k2".to_vec(),
                _ => format!("k{}", (j * 5) % 40).into_bytes(),
            })
            .collect();
        for space in [&root, &ns] {
            let before = c.stats();
            let got = get_each(&c, space, &keys).unwrap();
            let after = c.stats();
            let expected: Vec<_> = keys.iter().map(|k| (k.clone(), get(&c, space, k))).collect();
            assert_eq!(got, expected, "batch of {len}");
            let hits = got.iter().filter(|(_, hit)| hit.is_some()).count() as u64;
            assert_eq!(after.hits - before.hits, hits, "hits counted once per key");
            assert_eq!(
                after.misses - before.misses,
                len as u64 - hits,
                "misses counted once per key"
            );
        }
    }
}

/// Two caches with the same 40 keys (some in a namespace, one expired).
fn filled_pair() -> [Cache; 2] {
    let root = Namespace::root();
    let ns = Namespace::new(b"del").unwrap();
    [small(), small()].map(|c| {
        for i in 0..40u32 {
            let key = format!("k{i}");
            assert!(c.set(&root, key.as_bytes(), STR, &vec![b'v'; i as usize * 9], 0).unwrap());
            if i % 2 == 0 {
                assert!(c.set(&ns, key.as_bytes(), STR, b"in ns", 0).unwrap());
            }
        }
        assert!(c.set(&root, b"gone", STR, b"x", -1).unwrap());
        c
    })
}

#[test]
fn delete_each_agrees_with_delete_for_every_batch_length() {
    let ns = Namespace::new(b"del").unwrap();
    // Every length around the look-ahead group, with misses, a key listed twice, an expired
    // key and a bad (empty) key mixed in.
    for len in 0..=24usize {
        let keys: Vec<Vec<u8>> = (0..len)
            .map(|j| match j % 9 {
                4 => b"gone".to_vec(),
                6 => b"absent".to_vec(),
                7 => Vec::new(),
                8 => format!("k{}", (j * 7 - 8 * 7) % 40).into_bytes(), // a key seen before
                _ => format!("k{}", (j * 7) % 40).into_bytes(),
            })
            .collect();
        for space in [Namespace::root(), ns.clone()] {
            let [batched, one_by_one] = filled_pair();
            let mut got = Vec::new();
            batched.delete_each(&space, keys.iter().cloned(), |key, result| {
                got.push((key, result));
                true
            });
            let expected: Vec<_> =
                keys.iter().map(|k| (k.clone(), one_by_one.delete(&space, k))).collect();
            assert_eq!(got, expected, "batch of {len}");
            assert_eq!(batched.stats().deletes, one_by_one.stats().deletes, "batch of {len}");
            for i in 0..40 {
                let key = format!("k{i}");
                for s in [&Namespace::root(), &ns] {
                    assert_eq!(
                        get(&batched, s, key.as_bytes()),
                        get(&one_by_one, s, key.as_bytes())
                    );
                }
            }
        }
    }
}

#[test]
fn write_each_agrees_with_single_writes_for_every_batch_length() {
    use shmcache::engine::WriteMode;
    let ns = Namespace::new(b"del").unwrap();
    let too_large = vec![b'L'; 2 << 20];
    for len in 0..=20usize {
        // New keys and stored ones, a key given twice, an empty key and a value too large.
        let items: Vec<(Vec<u8>, Vec<u8>)> = (0..len)
            .map(|j| match j % 8 {
                3 => (b"fresh".to_vec(), format!("fresh {j}").into_bytes()),
                5 => (Vec::new(), b"empty key".to_vec()),
                6 => (format!("k{j}").into_bytes(), too_large.clone()),
                _ => (format!("k{}", (j * 11) % 45).into_bytes(), format!("v{j}").into_bytes()),
            })
            .collect();
        for mode in [WriteMode::Set, WriteMode::Add, WriteMode::Replace] {
            for space in [Namespace::root(), ns.clone()] {
                let [batched, one_by_one] = filled_pair();
                let mut got = Vec::new();
                batched.write_each(
                    &space,
                    items.iter(),
                    |(k, v)| (k.as_slice(), ValueKind(1), v.as_slice()),
                    mode,
                    0,
                    |(k, _), result| {
                        got.push((k.clone(), result));
                        true
                    },
                );
                let expected: Vec<_> = items
                    .iter()
                    .map(|(k, v)| {
                        let r = match mode {
                            WriteMode::Set => one_by_one.set(&space, k, ValueKind(1), v, 0),
                            WriteMode::Add => one_by_one.add(&space, k, ValueKind(1), v, 0),
                            WriteMode::Replace => one_by_one.replace(&space, k, ValueKind(1), v, 0),
                        };
                        (k.clone(), r)
                    })
                    .collect();
                assert_eq!(got, expected, "{mode:?}, batch of {len}");
                for key in (0..45).map(|i| format!("k{i}")).chain(["fresh".to_string()]) {
                    for s in [&Namespace::root(), &ns] {
                        assert_eq!(
                            get(&batched, s, key.as_bytes()),
                            get(&one_by_one, s, key.as_bytes()),
                            "{mode:?}, batch of {len}, {key}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn delete_each_stops_where_deliver_says() {
    let [c, _] = filled_pair();
    let root = Namespace::root();
    let keys: Vec<Vec<u8>> = (0..20).map(|i| format!("k{i}").into_bytes()).collect();
    let mut seen = 0;
    c.delete_each(&root, keys.iter().cloned(), |_, result| {
        assert_eq!(result, Ok(true));
        seen += 1;
        seen < 11
    });
    assert_eq!(seen, 11);
    assert_eq!(get(&c, &root, b"k10"), None, "the key deliver stopped at was deleted");
    assert!(get(&c, &root, b"k11").is_some(), "the keys after it were not");
    assert!(get(&c, &root, b"k15").is_some(), "nor those of its group");
}

#[test]
fn get_each_stops_where_deliver_says_and_counts_only_what_it_read() {
    let c = small();
    let root = Namespace::root();
    for k in [b"a", b"b", b"c", b"d", b"e", b"f"] {
        assert!(c.set(&root, k, STR, k, 0).unwrap());
    }
    let keys: Vec<&[u8]> = vec![b"a", b"b", b"c", b"d", b"e", b"f"];
    let before = c.stats().hits;
    let mut seen = Vec::new();
    c.get_each(&root, keys, &mut Vec::new(), |key, _, _| {
        seen.push(key);
        key != b"c"
    })
    .unwrap();
    assert_eq!(seen, vec![b"a" as &[u8], b"b", b"c"]);
    assert_eq!(c.stats().hits - before, 3);
}

/// What `deliver` does to the keys still waiting in the batch happens before they are read: a
/// batch locates its keys' entries ahead of reading them, and must not read a located entry
/// that a delete, a set or a flush has since replaced (unserialize() of one value runs user
/// code, which may change the keys after it).
#[test]
fn get_each_reads_what_deliver_changed_in_the_keys_after_it() {
    let c = small();
    let root = Namespace::root();
    let keys: Vec<Vec<u8>> = (0..8).map(|i| format!("w{i}").into_bytes()).collect();
    for k in &keys {
        assert!(c.set(&root, k, STR, &[k.as_slice(), b":old"].concat(), 0).unwrap());
    }
    let mut seen = Vec::new();
    c.get_each(&root, keys.iter().cloned(), &mut Vec::new(), |key, hit, sink| {
        seen.push((key.clone(), hit.map(|_| std::mem::take(sink))));
        if key == b"w0" {
            assert!(c.delete(&root, b"w1").unwrap());
            assert!(c.set(&root, b"w2", STR, b"new", 0).unwrap());
            assert!(c.set(&root, b"w3", STR, &[b'n'; 300], 0).unwrap());
            assert!(c.set(&root, b"w4", STR, b"gone soon", -1).unwrap());
        }
        if key == b"w5" {
            c.flush_all();
        }
        true
    })
    .unwrap();
    let expected: Vec<(Vec<u8>, Option<Vec<u8>>)> = vec![
        (b"w0".to_vec(), Some(b"w0:old".to_vec())),
        (b"w1".to_vec(), None),
        (b"w2".to_vec(), Some(b"new".to_vec())),
        (b"w3".to_vec(), Some(vec![b'n'; 300])),
        (b"w4".to_vec(), None),
        (b"w5".to_vec(), Some(b"w5:old".to_vec())),
        (b"w6".to_vec(), None),
        (b"w7".to_vec(), None),
    ];
    assert_eq!(seen, expected);
}

#[test]
fn get_each_refuses_a_bad_key_with_an_error() {
    let c = small();
    let root = Namespace::root();
    assert!(c.set(&root, b"a", STR, b"1", 0).unwrap());
    let keys = vec![b"a".to_vec(), Vec::new(), b"a".to_vec()];
    assert_eq!(get_each(&c, &root, &keys), Err(Error::EmptyKey));
    let long = vec![b"a".to_vec(), vec![b'x'; MAX_KEY_LEN + 1]];
    assert!(matches!(get_each(&c, &root, &long), Err(Error::KeyTooLong { .. })));
}
