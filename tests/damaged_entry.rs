//! Regression tests for a bug found by fuzzing (docs/reliability.md): a key whose entry fails
//! validation while its key bytes still match made add() retry against its own slot until it
//! gave up ("too much contention"), kicking a neighbour. They need the `fuzzing` feature (to
//! damage bytes of a live region); `scripts/test.sh` runs them (and so does `scripts/fuzz.sh`):
//!
//!   cargo test --release --no-default-features --features fuzzing --target-dir target/engine \
//!     --test damaged_entry
#![cfg(feature = "fuzzing")]

use shmcache::engine::{Cache, Config, Error, Namespace, ValueKind, ValueSink};

/// Flips one byte of the value of the entry stored for `key` (the first match in the ring), as a
/// stalled writer that lapped the ring or a stray write would.
fn damage_value(cache: &Cache, key: &[u8], value: &[u8]) {
    let l = cache.region().fuzz_layout();
    // SAFETY: the ring lies inside the mapping; this test is the only user of the region.
    let ring = unsafe { std::slice::from_raw_parts_mut(l.base.add(l.ring.0), l.ring.1) };
    let mut needle = key.to_vec();
    needle.extend_from_slice(value);
    let at = ring.windows(needle.len()).position(|w| w == needle).expect("entry in the ring");
    ring[at + key.len()] ^= 0x01;
}

/// A roomy cache holding only `key` = `value`, whose value has then been damaged.
fn one_damaged_key(key: &[u8], value: &[u8]) -> (Cache, Namespace) {
    let config = Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    assert!(cache.set(&ns, key, ValueKind(6), value, 0).unwrap());
    damage_value(&cache, key, value);
    (cache, ns)
}

#[test]
fn add_on_a_damaged_entry() {
    let config = Config { keys_memory_size: 1024, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    // 300 neighbours for 16 buckets (112 slots): the buckets are full.
    let neighbours: Vec<Vec<u8>> = (0..300).map(|i| format!("neighbour-{i}").into_bytes()).collect();
    for k in &neighbours {
        assert!(cache.set(&ns, k, ValueKind(6), b"n", 0).unwrap());
    }
    assert!(cache.set(&ns, b"victim", ValueKind(6), b"old value", 0).unwrap());
    damage_value(&cache, b"victim", b"old value");
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, b"victim", &mut out).unwrap(), None, "a damaged entry is a miss (as designed)");
    let before = neighbours.iter().filter(|k| cache.exists(&ns, k).unwrap()).count();
    let r = cache.add(&ns, b"victim", ValueKind(6), b"new value", 0);
    let after = neighbours.iter().filter(|k| cache.exists(&ns, k).unwrap()).count();
    assert!(matches!(r, Ok(true)), "add of a key whose only entry is damaged must store it, got {r:?}");
    assert_eq!(after, before, "add must not evict other keys while it retries");
}

#[test]
fn add_on_a_damaged_entry_reports_contention() {
    let (cache, ns) = one_damaged_key(b"k", b"v1");
    // Before the fix: 10,000 lost "races" against its own damaged slot, then Err(Contended).
    let r = cache.add(&ns, b"k", ValueKind(6), b"v2", 0);
    assert!(!matches!(r, Err(Error::Contended)), "add gave up with 'too much contention' on an uncontended key");
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), Some(ValueKind(6)));
    assert_eq!(out, b"v2");
}

/// Found by the region_corruption fuzz target when delete read only the entry's header: a key
/// whose value is damaged is not live for get, exists and replace, and must not be for delete
/// either (delete still unlinks it).
#[test]
fn delete_of_a_damaged_entry_agrees_with_get() {
    let (cache, ns) = one_damaged_key(b"k", b"value");
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), None);
    assert!(!cache.exists(&ns, b"k").unwrap());
    assert!(!cache.delete(&ns, b"k").unwrap(), "delete reported a damaged entry as live");
    // Unlinked all the same: a later add stores without meeting it.
    assert!(cache.add(&ns, b"k", ValueKind(6), b"new", 0).unwrap());
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), Some(ValueKind(6)));
    assert_eq!(out, b"new");
}

/// Flips the byte `at` bytes into the stored value of the entry for `key` (the first entry in
/// the ring whose bytes hold `key`), whatever the stored form (compressed or not).
fn damage_stored(cache: &Cache, key: &[u8], at: usize) {
    let l = cache.region().fuzz_layout();
    // SAFETY: the ring lies inside the mapping; this test is the only user of the region.
    let ring = unsafe { std::slice::from_raw_parts_mut(l.base.add(l.ring.0), l.ring.1) };
    let start = ring.windows(key.len()).position(|w| w == key).expect("entry in the ring");
    ring[start + key.len() + at] ^= 0x40;
}

/// delete, exists, add and replace validate an entry without taking its value (the value is
/// hashed where it lies, not copied or decompressed): a damaged byte anywhere in a long or a
/// compressed value still makes the key not live for them, as for get.
#[test]
fn validation_without_the_value_covers_long_and_compressed_values() {
    let mut x: u64 = 0x2545_f491_4f6c_dd1d;
    let long: Vec<u8> = (0..50_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect();
    let compressible = b"<li>menu item</li>\n".repeat(3000);
    let config = Config { keys_memory_size: 1 << 20, values_memory_size: 8 << 20, compress_threshold: 4096 };
    // (The engine compresses with lz4_flex's block format: the same call gives the stored length.)
    let compressed_len = lz4_flex::block::compress(&compressible).len();
    for (name, value, stored) in [("long", &long[..], long.len()), ("compressed", &compressible[..], compressed_len)] {
        // Early, middle and late in the stored bytes (the hash's first, inner and last stripes).
        for spot in [0usize, 1, 2] {
            let cache = Cache::create(&config).unwrap();
            let ns = Namespace::root();
            let key = format!("{name}-key-{spot}").into_bytes();
            assert!(cache.set(&ns, &key, ValueKind(6), value, 0).unwrap());
            assert_eq!(cache.stats().compressed_count, u64::from(name == "compressed"));
            let at = [0, stored / 2, stored - 1][spot];
            assert!(cache.exists(&ns, &key).unwrap(), "{name}: live before the damage");
            damage_stored(&cache, &key, at);
            let mut out = Vec::new();
            assert_eq!(cache.get(&ns, &key, &mut out).unwrap(), None, "{name} @{at}: get");
            assert!(!cache.exists(&ns, &key).unwrap(), "{name} @{at}: exists");
            assert!(!cache.replace(&ns, &key, ValueKind(6), b"r", 0).unwrap(), "{name} @{at}: replace");
            assert!(!cache.delete(&ns, &key).unwrap(), "{name} @{at}: delete");
            assert!(cache.add(&ns, &key, ValueKind(6), b"a", 0).unwrap(), "{name} @{at}: add");
        }
    }
}

const HEADER: usize = 56;
/// Where the key's byte positions lie in an entry's header (key_len and ns_len).
const KEY_LENGTHS: std::ops::Range<usize> = 48..52;

/// The ring bytes of the first entry whose stored key (namespace + key) is `stored_key`.
fn entry_bytes<'c>(cache: &'c Cache, stored_key: &[u8]) -> &'c mut [u8] {
    let l = cache.region().fuzz_layout();
    // SAFETY: the ring lies inside the mapping; this test is the only user of the region.
    let ring = unsafe { std::slice::from_raw_parts_mut(l.base.add(l.ring.0), l.ring.1) };
    let at = ring.windows(stored_key.len()).position(|w| w == stored_key).expect("entry in the ring");
    &mut ring[at - HEADER..]
}

/// Every header field is covered by the checksum: flipping a bit of any of them makes a read
/// miss *and* count a validation failure. (A field left out would show up as a hit, or as a
/// miss for another reason: an expired or flushed entry, another key.) The key bytes and the
/// key lengths are checked by comparison with the caller's key instead: a miss.
#[test]
fn every_header_byte_is_validated() {
    let config = Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    // Values that enter the checksum by their xxh3 (22 bytes) and by their own bytes (8 and 3).
    let values: [&[u8]; 3] = [b"a value of a few bytes", b"12345678", b"abc"];
    for (ns_name, value) in [&b""[..], b"site"].into_iter().flat_map(|ns| values.map(|v| (ns, v))) {
        let cache = Cache::create(&config).unwrap();
        let ns = Namespace::new(ns_name).unwrap();
        let key = b"covered-key";
        assert!(cache.set(&ns, key, ValueKind(6), value, 3600).unwrap());
        let stored_key = [ns_name, &key[..]].concat();
        let entry_len = HEADER + stored_key.len() + value.len();
        let entry = entry_bytes(&cache, &stored_key);
        for at in 0..entry_len {
            for bit in [0x01u8, 0x80] {
                entry[at] ^= bit;
                let failures = cache.stats().validation_failures;
                let mut out = Vec::new();
                let hit = cache.get(&ns, key, &mut out).unwrap();
                entry[at] ^= bit;
                assert_eq!(hit, None, "ns {ns_name:?}: byte {at} ^ {bit:#x} still a hit ({out:?})");
                let counted = cache.stats().validation_failures - failures;
                let compared = KEY_LENGTHS.contains(&at) || (HEADER..HEADER + stored_key.len()).contains(&at);
                if !compared {
                    assert_eq!(counted, 1, "ns {ns_name:?}: byte {at} ^ {bit:#x} not caught by validation");
                }
                // Nothing wrote to the ring: every failure is damage, none a lapped copy.
                let s = cache.stats();
                assert_eq!(s.validation_lapped, 0, "ns {ns_name:?}: byte {at} ^ {bit:#x} counted as lapped");
                assert_eq!(s.validation_corrupt, s.validation_failures, "ns {ns_name:?}: byte {at} ^ {bit:#x}");
            }
        }
        // Restored: the entry reads back.
        let mut out = Vec::new();
        assert_eq!(cache.get(&ns, key, &mut out).unwrap(), Some(ValueKind(6)));
        assert_eq!(out, value);
    }
}

/// The checksum the fuzz targets compute for forged entries is the one the cache writes.
#[test]
fn forged_checksums_match_the_cache() {
    let config = Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    // (Keys long enough that their bytes occur in the ring only where they are stored.)
    for (ns_name, key, value) in [
        (&b""[..], &b"forged-empty"[..], &b""[..]),
        (b"", b"forged-plain", b"12345678"),
        (b"wp:posts", b"forged-42", &[7u8; 300][..]),
    ] {
        let ns = Namespace::new(ns_name).unwrap();
        assert!(cache.set(&ns, key, ValueKind(6), value, 0).unwrap());
        let stored_key = [ns_name, key].concat();
        let entry = entry_bytes(&cache, &stored_key);
        let head = &entry[..HEADER + stored_key.len()];
        let stored = &entry[head.len()..head.len() + value.len()];
        let sum = shmcache::engine::entry_checksum(head, stored);
        assert_eq!(sum.to_le_bytes(), head[8..16], "ns {ns_name:?} key {key:?}");
    }
}

/// A damaged value of an entry the ring has not reached is corruption, whichever operation
/// reads it (get copies the value, exists and delete hash it where it lies): counted in
/// `validation_corrupt`, never in `validation_lapped`, and in their sum `validation_failures`.
#[test]
fn a_damaged_entry_counts_as_corrupt() {
    let (cache, ns) = one_damaged_key(b"k", b"a value long enough to hash");
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), None);
    let s = cache.stats();
    assert_eq!((s.validation_corrupt, s.validation_lapped, s.validation_failures), (1, 0, 1));
    assert!(!cache.exists(&ns, b"k").unwrap());
    assert!(!cache.delete(&ns, b"k").unwrap());
    let s = cache.stats();
    assert_eq!((s.validation_corrupt, s.validation_lapped, s.validation_failures), (3, 0, 3));
}

/// A sink that, when the read asks it for memory (after the entry's header has been checked,
/// before the value is copied), writes enough other keys to take the ring once round: the copy
/// is then made from bytes the ring has reused, as when a reader is descheduled mid-read while
/// other processes write a whole ring's worth.
struct LapsTheRing<'c> {
    cache: &'c Cache,
    out: Vec<u8>,
    lapped: bool,
}

// SAFETY: the pointer is to the sink's own Vec, resized to `len` bytes, which nothing else
// touches until the next call.
unsafe impl ValueSink for LapsTheRing<'_> {
    fn buffer(&mut self, _kind: ValueKind, len: usize) -> *mut u8 {
        if !self.lapped {
            self.lapped = true;
            let ns = Namespace::root();
            let filler = [0x5au8; 4000];
            // 1 MiB ring: 300 entries of 4 KB go round it more than once.
            for i in 0..300 {
                assert!(self.cache.set(&ns, format!("filler-{i}").as_bytes(), ValueKind(6), &filler, 0).unwrap());
            }
        }
        self.out.clear();
        self.out.resize(len, 0);
        self.out.as_mut_ptr()
    }

    fn discard(&mut self) {
        self.out.clear();
    }
}

/// A copy the ring overwrote while it was being made is a lapped read, not corruption: the
/// read misses and counts `validation_lapped`.
#[test]
fn a_copy_overwritten_during_the_read_counts_as_lapped() {
    let config = Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    assert!(cache.set(&ns, b"k", ValueKind(6), b"the value read while the ring laps", 0).unwrap());
    let recycles = cache.stats().recycles;
    let mut sink = LapsTheRing { cache: &cache, out: Vec::new(), lapped: false };
    assert_eq!(cache.get_into(&ns, b"k", &mut sink).unwrap(), None, "a lapped copy is a miss");
    assert!(sink.lapped, "the read asked for a buffer");
    let s = cache.stats();
    assert!(s.recycles > recycles, "the fillers went round the ring");
    assert_eq!((s.validation_lapped, s.validation_corrupt, s.validation_failures), (1, 0, 1));
}

/// A listing (`Cache::entries`) validates like a read: with any bit of the entry's header,
/// stored key or value flipped, the entry is not listed; restored, it is.
#[test]
fn a_damaged_entry_is_not_listed() {
    let config = Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    for value in [&b"a value of a few bytes"[..], b"12345678"] {
        let cache = Cache::create(&config).unwrap();
        let ns = Namespace::new(b"site").unwrap();
        let key = b"listed-key";
        assert!(cache.set(&ns, key, ValueKind(6), value, 3600).unwrap());
        let stored_key = [&b"site"[..], &key[..]].concat();
        let entry_len = HEADER + stored_key.len() + value.len();
        let entry = entry_bytes(&cache, &stored_key);
        for at in 0..entry_len {
            for bit in [0x01u8, 0x80] {
                entry[at] ^= bit;
                let listing = cache.entries(&ns);
                entry[at] ^= bit;
                assert!(listing.is_empty(), "byte {at} ^ {bit:#x} still listed: {listing:?}");
            }
        }
        let listing = cache.entries(&ns);
        assert_eq!(listing.len(), 1);
        assert_eq!(listing[0].key, key);
    }
}
