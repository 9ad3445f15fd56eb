//! Entries whose bytes were damaged in memory: what each operation sees, and what is counted.
//! Started from a bug found by fuzzing (docs/reliability.md): a key whose entry fails
//! validation while its key bytes still match made add() retry against its own slot until it
//! gave up ("too much contention"), kicking a neighbour.
//!
//! Delete, exists, add and replace validate an entry's head (header and key) and never read its
//! value, so their cost does not depend on the value's size; damage to the value bytes alone is
//! found by the first read that takes the value (get, incr, cas), which misses, counts it as
//! corrupt and empties the slot, so that from then on every operation agrees the key is gone.
//!
//! They need the `fuzzing` feature (to damage bytes of a live region); `scripts/test.sh` runs
//! them (and so does `scripts/fuzz.sh`):
//!
//!   cargo test --release --no-default-features --features fuzzing --target-dir target/engine \
//!     --test damaged_entry
#![cfg(feature = "fuzzing")]

use shmcache::engine::{Cache, Config, Namespace, ValueKind, ValueSink};

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
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    assert!(cache.set(&ns, key, ValueKind::STRING, value, 0).unwrap());
    damage_value(&cache, key, value);
    (cache, ns)
}

#[test]
fn add_on_a_damaged_entry() {
    let config =
        Config { keys_memory_size: 1024, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    // 300 neighbours for 16 buckets (112 slots): the buckets are full.
    let neighbours: Vec<Vec<u8>> =
        (0..300).map(|i| format!("neighbour-{i}").into_bytes()).collect();
    for k in &neighbours {
        assert!(cache.set(&ns, k, ValueKind::STRING, b"n", 0).unwrap());
    }
    assert!(cache.set(&ns, b"victim", ValueKind::STRING, b"old value", 0).unwrap());
    damage_value(&cache, b"victim", b"old value");
    let mut out = Vec::new();
    assert_eq!(
        cache.get(&ns, b"victim", &mut out).unwrap(),
        None,
        "a damaged entry is a miss (as designed)"
    );
    let before = neighbours.iter().filter(|k| cache.exists(&ns, k).unwrap()).count();
    let r = cache.add(&ns, b"victim", ValueKind::STRING, b"new value", 0);
    let after = neighbours.iter().filter(|k| cache.exists(&ns, k).unwrap()).count();
    assert!(
        matches!(r, Ok(true)),
        "add of a key whose only entry is damaged must store it, got {r:?}"
    );
    assert_eq!(after, before, "add must not evict other keys while it retries");
}

#[test]
fn add_on_a_damaged_entry_reports_contention() {
    let (cache, ns) = one_damaged_key(b"k", b"v1");
    // Before the fix: 10,000 lost "races" against its own damaged slot, then Err(Contended).
    // Its head is whole, so add (which reads no value) finds the key live and refuses.
    let r = cache.add(&ns, b"k", ValueKind::STRING, b"v2", 0);
    assert!(matches!(r, Ok(false)), "add on an entry with a whole head: refused, got {r:?}");
    let mut out = Vec::new();
    assert_eq!(
        cache.get(&ns, b"k", &mut out).unwrap(),
        None,
        "the damaged value is never returned"
    );
    // The get emptied the slot: add now stores, without contention.
    let r = cache.add(&ns, b"k", ValueKind::STRING, b"v2", 0);
    assert!(matches!(r, Ok(true)), "add after the get found the damage, got {r:?}");
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), Some(ValueKind::STRING));
    assert_eq!(out, b"v2");
}

/// Found by the region_corruption fuzz target when delete reported a damaged entry live while
/// get missed it: once a get has found the damage, delete, exists, add and replace agree with
/// it (the get emptied the slot).
#[test]
fn delete_of_a_damaged_entry_agrees_with_get() {
    let (cache, ns) = one_damaged_key(b"k", b"value");
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), None);
    assert!(!cache.exists(&ns, b"k").unwrap());
    assert!(!cache.replace(&ns, b"k", ValueKind::STRING, b"r", 0).unwrap());
    assert!(!cache.delete(&ns, b"k").unwrap(), "delete reported a damaged entry as live");
    assert!(cache.add(&ns, b"k", ValueKind::STRING, b"new", 0).unwrap());
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), Some(ValueKind::STRING));
    assert_eq!(out, b"new");
}

/// Flips one bit of an in-place integer's pair (entry.rs `FLAG_IN_PLACE`), in its value word
/// (`word` 0) or its check word (1): the pair lies at the first 16-aligned ring position after
/// the entry's key.
fn damage_pair(cache: &Cache, key: &[u8], word: usize, bit: u32) {
    let l = cache.region().fuzz_layout();
    // SAFETY: the ring lies inside the mapping; this test is the only user of the region.
    let ring = unsafe { std::slice::from_raw_parts_mut(l.base.add(l.ring.0), l.ring.1) };
    let at = ring.windows(key.len()).rposition(|w| w == key).expect("entry in the ring");
    let pair = (at + key.len() + 15) & !15;
    let byte = pair + word * 8 + (bit / 8) as usize;
    ring[byte] ^= 1 << (bit % 8);
}

/// incr on a counter whose pair is damaged misses, like get, and empties the slot too; every
/// bit of the value word and of the check word is caught, by get and by incr alike.
#[test]
fn incr_of_a_damaged_counter_misses_and_unlinks_it() {
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let start: i64 = 0x0102_0304_0506_0708;
    for word in 0..2 {
        for bit in 0..64 {
            let cache = Cache::create(&config).unwrap();
            let ns = Namespace::root();
            assert!(cache.set(&ns, b"counter", ValueKind::INT, &start.to_le_bytes(), 0).unwrap());
            assert_eq!(cache.incr(&ns, b"counter", 1).unwrap(), Some(start + 1));
            damage_pair(&cache, b"counter", word, bit);
            assert!(cache.exists(&ns, b"counter").unwrap(), "exists reads the head only");
            let mut out = Vec::new();
            if bit % 2 == 0 {
                assert_eq!(cache.incr(&ns, b"counter", 1).unwrap(), None, "word {word} bit {bit}");
            } else {
                assert_eq!(
                    cache.get(&ns, b"counter", &mut out).unwrap(),
                    None,
                    "word {word} bit {bit}"
                );
            }
            assert!(!cache.exists(&ns, b"counter").unwrap(), "the damaged slot was emptied");
            assert_eq!(cache.stats().validation_corrupt, 1, "word {word} bit {bit}");
        }
    }
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

/// delete, exists, add and replace validate an entry's head and never read its value: with a
/// byte of a long or a compressed value damaged, the key is still live for them, and the first
/// get (which hashes the whole value, early, middle or late) misses, counts the corruption and
/// empties the slot, after which they agree.
#[test]
fn operations_that_take_no_value_never_read_it() {
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
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 8 << 20, compress_threshold: 4096 };
    // (The engine compresses with lz4_flex's block format: the same call gives the stored length.)
    let compressed_len = lz4_flex::block::compress(&compressible).len();
    for (name, value, stored) in
        [("long", &long[..], long.len()), ("compressed", &compressible[..], compressed_len)]
    {
        // Early, middle and late in the stored bytes (the hash's first, inner and last stripes).
        for spot in [0usize, 1, 2] {
            let cache = Cache::create(&config).unwrap();
            let ns = Namespace::root();
            let key = format!("{name}-key-{spot}").into_bytes();
            assert!(cache.set(&ns, &key, ValueKind::STRING, value, 0).unwrap());
            assert_eq!(cache.stats().compressed_count, u64::from(name == "compressed"));
            let at = [0, stored / 2, stored - 1][spot];
            damage_stored(&cache, &key, at);
            assert!(cache.exists(&ns, &key).unwrap(), "{name} @{at}: exists read the value");
            assert!(
                !cache.add(&ns, &key, ValueKind::STRING, b"a", 0).unwrap(),
                "{name} @{at}: add read the value"
            );
            assert_eq!(
                cache.stats().validation_failures,
                0,
                "{name} @{at}: counted before any get"
            );
            let mut out = Vec::new();
            assert_eq!(cache.get(&ns, &key, &mut out).unwrap(), None, "{name} @{at}: get");
            assert_eq!(
                cache.stats().validation_corrupt,
                1,
                "{name} @{at}: the get counts the damage"
            );
            assert!(!cache.exists(&ns, &key).unwrap(), "{name} @{at}: exists after the get");
            assert!(
                !cache.replace(&ns, &key, ValueKind::STRING, b"r", 0).unwrap(),
                "{name} @{at}: replace"
            );
            assert!(!cache.delete(&ns, &key).unwrap(), "{name} @{at}: delete");
            assert!(cache.add(&ns, &key, ValueKind::STRING, b"a", 0).unwrap(), "{name} @{at}: add");
        }
        // delete, the same: it reports the key it removed live, value unread.
        let cache = Cache::create(&config).unwrap();
        let ns = Namespace::root();
        let key = format!("{name}-deleted").into_bytes();
        assert!(cache.set(&ns, &key, ValueKind::STRING, value, 0).unwrap());
        damage_stored(&cache, &key, stored / 2);
        assert!(cache.delete(&ns, &key).unwrap(), "{name}: delete read the value");
        assert!(!cache.exists(&ns, &key).unwrap(), "{name}: deleted");
    }
}

const HEADER: usize = 64;
/// Where the key's byte positions lie in an entry's header (key_len and ns_len).
const KEY_LENGTHS: std::ops::Range<usize> = 48..52;

/// The ring bytes of the last entry (the one written last, before the ring wraps) whose stored
/// key (namespace + key) is `stored_key`. Mutable from a shared `Cache` on purpose: the bytes are
/// the shared mapping, which other processes write through their own `Cache` too, and damaging
/// them behind the cache's back is what these tests do.
#[allow(clippy::mut_from_ref)]
fn entry_bytes<'c>(cache: &'c Cache, stored_key: &[u8]) -> &'c mut [u8] {
    let l = cache.region().fuzz_layout();
    // SAFETY: the ring lies inside the mapping; this test is the only user of the region.
    let ring = unsafe { std::slice::from_raw_parts_mut(l.base.add(l.ring.0), l.ring.1) };
    let at =
        ring.windows(stored_key.len()).rposition(|w| w == stored_key).expect("entry in the ring");
    &mut ring[at - HEADER..]
}

/// Every header field is covered by the checksum, the value by the hash in the header: flipping
/// a bit of any of them makes a get miss *and* count a validation failure. (A field left out
/// would show up as a hit, or as a miss for another reason: an expired or flushed entry,
/// another key.) exists, which reads the head alone, catches every header bit too and no value
/// bit. The key bytes and the key lengths are checked by comparison with the caller's key
/// instead: a miss, not counted.
#[test]
fn every_header_byte_is_validated() {
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    // Values hashed by xxh3 (22 bytes) and by their own bytes (8 and 3).
    let values: [&[u8]; 3] = [b"a value of a few bytes", b"12345678", b"abc"];
    for (ns_name, value) in [&b""[..], b"site"].into_iter().flat_map(|ns| values.map(|v| (ns, v))) {
        let cache = Cache::create(&config).unwrap();
        let ns = Namespace::new(ns_name).unwrap();
        let key = b"covered-key";
        let stored_key = [ns_name, &key[..]].concat();
        let head_len = HEADER + stored_key.len();
        let entry_len = head_len + value.len();
        for at in 0..entry_len {
            for bit in [0x01u8, 0x80] {
                // A fresh entry each time: a get that finds damage empties the key's slot.
                assert!(cache.set(&ns, key, ValueKind::STRING, value, 3600).unwrap());
                let entry = entry_bytes(&cache, &stored_key);
                entry[at] ^= bit;
                let failures = cache.stats().validation_failures;
                let exists = cache.exists(&ns, key).unwrap();
                let mut out = Vec::new();
                let hit = cache.get(&ns, key, &mut out).unwrap();
                entry[at] ^= bit;
                assert_eq!(hit, None, "ns {ns_name:?}: byte {at} ^ {bit:#x} still a hit ({out:?})");
                let counted = cache.stats().validation_failures - failures;
                let compared = KEY_LENGTHS.contains(&at) || (HEADER..head_len).contains(&at);
                let (exists_expected, counted_expected) = if compared {
                    (false, 0)
                } else if at < HEADER {
                    (false, 2)
                } else {
                    (true, 1)
                };
                assert_eq!(exists, exists_expected, "ns {ns_name:?}: byte {at} ^ {bit:#x}: exists");
                assert_eq!(
                    counted, counted_expected,
                    "ns {ns_name:?}: byte {at} ^ {bit:#x}: validation failures counted"
                );
                // Nothing wrote to the ring: every failure is damage, none a lapped copy.
                let s = cache.stats();
                assert_eq!(
                    s.validation_lapped, 0,
                    "ns {ns_name:?}: byte {at} ^ {bit:#x} counted as lapped"
                );
                assert_eq!(
                    s.validation_corrupt, s.validation_failures,
                    "ns {ns_name:?}: byte {at} ^ {bit:#x}"
                );
            }
        }
        // Undamaged: the entry reads back.
        assert!(cache.set(&ns, key, ValueKind::STRING, value, 3600).unwrap());
        let mut out = Vec::new();
        assert_eq!(cache.get(&ns, key, &mut out).unwrap(), Some(ValueKind::STRING));
        assert_eq!(out, value);
    }
}

/// The checksum the fuzz targets compute for forged entries is the one the cache writes.
#[test]
fn forged_checksums_match_the_cache() {
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    // (Keys long enough that their bytes occur in the ring only where they are stored.)
    for (ns_name, key, value) in [
        (&b""[..], &b"forged-empty"[..], &b""[..]),
        (b"", b"forged-plain", b"12345678"),
        (b"wp:posts", b"forged-42", &[7u8; 300][..]),
    ] {
        let ns = Namespace::new(ns_name).unwrap();
        assert!(cache.set(&ns, key, ValueKind::STRING, value, 0).unwrap());
        let stored_key = [ns_name, key].concat();
        let entry = entry_bytes(&cache, &stored_key);
        let head = &entry[..HEADER + stored_key.len()];
        let stored = &entry[head.len()..head.len() + value.len()];
        let sum = shmcache::engine::entry_checksum(head, stored);
        assert_eq!(sum.to_le_bytes(), head[8..16], "ns {ns_name:?} key {key:?}");
        let value_hash = shmcache::engine::entry_value_hash(stored);
        assert_eq!(
            value_hash.to_le_bytes(),
            head[shmcache::engine::ENTRY_VALUE_HASH_RANGE],
            "ns {ns_name:?} key {key:?}"
        );
    }
}

/// A damaged value of an entry the ring has not reached is corruption: the get that finds it
/// counts it in `validation_corrupt`, never in `validation_lapped`, and in their sum
/// `validation_failures`. exists and delete do not read the value; after the get, the slot is
/// empty, so they find nothing more to count.
#[test]
fn a_damaged_entry_counts_as_corrupt() {
    let (cache, ns) = one_damaged_key(b"k", b"a value long enough to hash");
    assert!(cache.exists(&ns, b"k").unwrap());
    let s = cache.stats();
    assert_eq!((s.validation_corrupt, s.validation_lapped, s.validation_failures), (0, 0, 0));
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, b"k", &mut out).unwrap(), None);
    let s = cache.stats();
    assert_eq!((s.validation_corrupt, s.validation_lapped, s.validation_failures), (1, 0, 1));
    assert!(!cache.exists(&ns, b"k").unwrap());
    assert!(!cache.delete(&ns, b"k").unwrap());
    let s = cache.stats();
    assert_eq!((s.validation_corrupt, s.validation_lapped, s.validation_failures), (1, 0, 1));
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
                assert!(self
                    .cache
                    .set(&ns, format!("filler-{i}").as_bytes(), ValueKind::STRING, &filler, 0)
                    .unwrap());
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
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    assert!(cache
        .set(&ns, b"k", ValueKind::STRING, b"the value read while the ring laps", 0)
        .unwrap());
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
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 1 << 20, compress_threshold: 0 };
    for value in [&b"a value of a few bytes"[..], b"12345678"] {
        let cache = Cache::create(&config).unwrap();
        let ns = Namespace::new(b"site").unwrap();
        let key = b"listed-key";
        assert!(cache.set(&ns, key, ValueKind::STRING, value, 3600).unwrap());
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

/// A get copies a value of 9 to 64 bytes word by word and hashes the words it loaded (not the
/// copy): every length reads back whole, and a bit flipped in any byte of the value, at either
/// end of a bit, makes the get miss (and the flip undone, the next get is not fooled either: the
/// damaged slot was emptied).
#[test]
fn a_damaged_byte_of_a_short_value_makes_the_get_miss() {
    let config =
        Config { keys_memory_size: 1 << 20, values_memory_size: 4 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    for len in 1..=80usize {
        let value: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(73) ^ 0xa5).collect();
        let key = format!("short-{len}").into_bytes();
        assert!(cache.set(&ns, &key, ValueKind::STRING, &value, 0).unwrap());
        let mut out = Vec::new();
        assert!(cache.get(&ns, &key, &mut out).unwrap().is_some(), "{len} bytes");
        assert_eq!(out, value, "{len} bytes read back");
        let l = cache.region().fuzz_layout();
        for at in 0..len {
            for bit in [0x01u8, 0x80] {
                // The ring never laps here (4 MB, about 2 MB written): the entry starts where
                // the tail was.
                let start = cache.fuzz_tail() as usize;
                assert!(cache.set(&ns, &key, ValueKind::STRING, &value, 0).unwrap());
                // SAFETY: the ring lies inside the mapping; this test is its only user.
                let ring =
                    unsafe { std::slice::from_raw_parts_mut(l.base.add(l.ring.0), l.ring.1) };
                assert_eq!(&ring[start + HEADER..start + HEADER + key.len()], &key[..]);
                ring[start + HEADER + key.len() + at] ^= bit;
                let mut out = Vec::new();
                assert!(
                    cache.get(&ns, &key, &mut out).unwrap().is_none(),
                    "{len} bytes, byte {at} ^ {bit:#x} read as a hit"
                );
            }
        }
    }
}

/// A slot word whose 4-bit line count was damaged to 0, for an entry at ring position 0: the count only says how many lines to prefetch, so the key still reads back,
/// alone and in a batch. Before `first_and_last_pair`, a length of 0 at position 0 made the
/// prefetch's last line wrap around below 0 and its loop run for ever.
#[test]
fn a_slot_word_announcing_no_lines_reads_back() {
    const LINES_BITS: u64 = 15 << 44;
    let config =
        Config { keys_memory_size: 1 << 16, values_memory_size: 1 << 20, compress_threshold: 0 };
    let cache = Cache::create(&config).unwrap();
    let ns = Namespace::root();
    let l = cache.region().fuzz_layout();
    // The ring's first lap starts past position 0; the second starts at it.
    cache.fuzz_set_tail(l.ring.1 as u64);
    assert!(cache.set(&ns, b"first", ValueKind::STRING, b"at position 0", 0).unwrap());
    // SAFETY: the ring lies inside the mapping; this test is the region's only user.
    let ring = unsafe { std::slice::from_raw_parts(l.base.add(l.ring.0), l.ring.1) };
    assert_eq!(&ring[HEADER..HEADER + 5], b"first", "the entry starts at ring position 0");
    // SAFETY: the index lies inside the mapping and its words are 8-aligned; this test is the
    // region's only user, so plain accesses race with nothing.
    let index = unsafe {
        std::slice::from_raw_parts_mut(l.base.add(l.index.0).cast::<u64>(), l.index.1 / 8)
    };
    let slots: Vec<usize> = (0..index.len()).filter(|&i| i % 8 != 7 && index[i] != 0).collect();
    assert_eq!(slots.len(), 1, "one key, one slot word");
    assert_ne!(index[slots[0]] & LINES_BITS, 0, "a published word counts its lines");
    index[slots[0]] &= !LINES_BITS;
    // On a thread, so that a read that never returns fails the test instead of hanging it.
    let (done, finished) = std::sync::mpsc::channel();
    std::thread::scope(|s| {
        s.spawn(|| {
            let mut out = Vec::new();
            let alone = cache.get(&ns, b"first", &mut out).unwrap().map(|_| out);
            let mut batch = Vec::new();
            let mut sink = Vec::new();
            cache
                .get_each(&ns, [b"first"], &mut sink, |_, kind, sink: &mut Vec<u8>| {
                    batch.push(kind.map(|_| std::mem::take(sink)));
                    true
                })
                .unwrap();
            done.send((alone, batch)).unwrap();
        });
        // A scope waits for its threads even when this one panics: a read that never returns
        // ends the test process instead.
        let Ok((alone, batch)) = finished.recv_timeout(std::time::Duration::from_secs(20)) else {
            eprintln!("a read of a slot word announcing no lines did not return in 20 s");
            std::process::exit(1);
        };
        assert_eq!(alone.as_deref(), Some(&b"at position 0"[..]));
        assert_eq!(batch, vec![Some(b"at position 0".to_vec())]);
    });
}
