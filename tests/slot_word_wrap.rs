//! Slot words store their entry's ring offset modulo 2^46 (docs/design.md, "Slot word"). A word
//! left behind by an entry the ring has overwritten (a "dead" word: nobody set or deleted that
//! key again) therefore decodes, 2^46 bytes of writes after its entry was written, to an offset
//! in the ring's current lap: for one lap it reads as intact again. These tests stand in for
//! 64 TiB of writes by moving the ring's tail forward with a `fuzzing` hook, but cross for real
//! (with a write that starts a new lap) every lap boundary at which the design says part of the
//! index is swept, so what those writes would have done to the index still happens.
//!
//!   cargo test --release --no-default-features --features fuzzing --target-dir target/engine \
//!     --test slot_word_wrap
#![cfg(feature = "fuzzing")]

use shmcache::engine::{Cache, Config, Namespace, ValueKind};

/// The period of a slot word's stored offset.
const ALIAS: u64 = 1 << 46;
/// The index is swept once per this many bytes of writes (docs/design.md, "Dead slot words").
const SWEEP_ROUND: u64 = 1 << 44;
const KIND: ValueKind = ValueKind::STRING;

/// 16 buckets (112 slots) and a 64 KiB ring: few keys and short laps.
fn small_cache() -> Cache {
    Cache::create(&Config {
        keys_memory_size: 1024,
        values_memory_size: 64 << 10,
        compress_threshold: 0,
    })
    .unwrap()
}

fn capacity(cache: &Cache) -> u64 {
    cache.region().fuzz_layout().ring.1 as u64
}

fn slots(cache: &Cache) -> u64 {
    (cache.region().fuzz_layout().index.1 / 8) as u64
}

/// The first key named `prefix` + a number that `accept` takes, given its two buckets.
fn key_where(cache: &Cache, prefix: &str, accept: impl Fn([u64; 2]) -> bool) -> Vec<u8> {
    (0..100_000)
        .map(|i| format!("{prefix}{i}").into_bytes())
        .find(|k| accept(cache.fuzz_candidate_buckets(&Namespace::root(), k)))
        .expect("some key has such buckets")
}

/// Moves the tail to `target` as if the bytes in between had been written, except that every
/// lap which the design's sweep schedule gives index slots to is entered by a real write of
/// `filler` (an entry too long for the 8 bytes left before the lap's end; a key of up to 7 bytes
/// makes it 72 bytes long). Laps that sweep nothing are skipped over.
fn write_until(cache: &Cache, target: u64, filler: &[u8]) {
    let ns = Namespace::root();
    let cap = capacity(cache);
    let laps_per_round = (SWEEP_ROUND / cap).max(1);
    let share = slots(cache).div_ceil(laps_per_round);
    let sweeping_laps = slots(cache).div_ceil(share);
    let mut round = 0;
    while round * laps_per_round * cap < target {
        for lap in round * laps_per_round..round * laps_per_round + sweeping_laps {
            let start = lap * cap;
            if start > target {
                break;
            }
            if start >= cache.fuzz_tail() + 8 {
                cache.fuzz_set_tail(start - 8);
                assert!(cache.set(&ns, filler, KIND, b"f", 0).unwrap());
                assert_eq!(cache.fuzz_tail() / cap, lap, "the filler started lap {lap}");
            }
        }
        round += 1;
    }
    assert!(cache.fuzz_tail() <= target, "walked past the target");
    cache.fuzz_set_tail(target);
}

/// A key deleted must stay deleted. Here its old, dead slot word comes back to life in the lap
/// where its offset aliases, pointing at the key's newest entry, which was published in another
/// slot; deleting the key empties that other slot, and the old word keeps serving the value.
#[test]
fn a_deleted_value_does_not_come_back_when_an_old_slot_word_aliases() {
    let cache = small_cache();
    let ns = Namespace::root();
    let key = b"wrapped-key";
    let [first, second] = cache.fuzz_candidate_buckets(&ns, key);
    // Occupies the key's first bucket, so the key's first insert goes to its second bucket.
    let neighbour = key_where(&cache, "neighbour-", |b| b[0] == first && !b.contains(&second));
    let filler = key_where(&cache, "f", |b| !b.contains(&first) && !b.contains(&second));
    // (Its value is long enough that v2 below, which ends where v1 started a lap later, starts
    // after the filler entry that opens that lap.)
    assert!(cache.set(&ns, &neighbour, KIND, &[b'n'; 64], 0).unwrap());
    let old_offset = cache.fuzz_tail();
    assert!(cache.set(&ns, key, KIND, b"v1", 0).unwrap());
    let entry_len = cache.fuzz_tail() - old_offset;
    // Gone again (its slot emptied), so that both buckets are equally free below.
    assert!(cache.delete(&ns, &neighbour).unwrap());

    // 64 TiB later the key is written again; its old word (in the second bucket) has long been
    // dead, so the insert takes a slot of the first bucket (the first of two equally free). Then
    // it is rewritten so that the new entry lands exactly where the old word now decodes to.
    let alias = old_offset + ALIAS;
    write_until(&cache, alias - entry_len, &filler);
    assert!(cache.set(&ns, key, KIND, b"v2", 0).unwrap());
    assert_eq!(cache.fuzz_tail(), alias, "v2 ends where v3 must start");
    assert!(cache.set(&ns, key, KIND, b"v3", 0).unwrap());

    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, key, &mut out).unwrap(), Some(KIND));
    assert_eq!(out, b"v3");
    assert!(cache.delete(&ns, key).unwrap());
    let found = cache.get(&ns, key, &mut out).unwrap();
    assert_eq!(
        found,
        None,
        "a deleted key was found again, value {:?}",
        String::from_utf8_lossy(&out)
    );
    assert!(!cache.exists(&ns, key).unwrap());
}

/// In the lap where a dead word's offset aliases, a get of its key reads whatever entry lies
/// there now: that must be a plain miss, not a validation failure (which the statistics report
/// as damage: the bytes are not damaged, the slot is simply dead).
#[test]
fn a_dead_slot_word_is_no_validation_failure_when_its_offset_aliases() {
    let cache = small_cache();
    let ns = Namespace::root();
    let key = b"wrapped-key";
    let buckets = cache.fuzz_candidate_buckets(&ns, key);
    let filler = key_where(&cache, "f", |b| !b.contains(&buckets[0]) && !b.contains(&buckets[1]));
    let old_offset = cache.fuzz_tail();
    assert!(cache.set(&ns, key, KIND, b"v1", 0).unwrap());

    write_until(&cache, old_offset + ALIAS + capacity(&cache) / 2, &filler);
    let before = cache.stats().validation_failures;
    let mut out = Vec::new();
    assert_eq!(cache.get(&ns, key, &mut out).unwrap(), None);
    assert!(!cache.exists(&ns, key).unwrap());
    assert_eq!(
        cache.stats().validation_failures - before,
        0,
        "a dead slot was counted as a damaged entry"
    );
    // And the key can be stored again, in one slot.
    assert!(cache.add(&ns, key, KIND, b"v2", 0).unwrap());
    assert_eq!(cache.get(&ns, key, &mut out).unwrap(), Some(KIND));
    assert_eq!(out, b"v2");
    assert!(cache.delete(&ns, key).unwrap());
    assert_eq!(cache.get(&ns, key, &mut out).unwrap(), None);
}

/// Live entries written while the tail crosses a multiple of 2^46 (where the stored offsets
/// wrap round to 0) decode to their true offsets, and a sweep running meanwhile (a lap starts
/// there too) clears none of their words.
#[test]
fn live_entries_read_back_across_the_stored_offsets_wrap() {
    let cache = small_cache();
    let ns = Namespace::root();
    let start = ALIAS - 4096;
    cache.fuzz_set_tail(start);
    // The lap starting at 2^46 sweeps the index's first slot (lap 2^30 is the first of a sweep
    // round): the first key goes there, while its entry is live.
    let mut keys = vec![key_where(&cache, "first-slot-", |b| b[0] == 0)];
    keys.extend((0..99).map(|i| format!("live-{i}").into_bytes()));
    let value = |i: usize| format!("{i:0>64}").into_bytes();
    for (i, k) in keys.iter().enumerate() {
        assert!(cache.set(&ns, k, KIND, &value(i), 0).unwrap());
    }
    assert!(cache.fuzz_tail() > ALIAS + 4096, "the writes crossed 2^46");
    assert_eq!(cache.stats().recycles, 1, "a lap started");
    let mut out = Vec::new();
    assert_eq!(
        cache.get(&ns, &keys[0], &mut out).unwrap(),
        Some(KIND),
        "the first slot's key survived the sweep"
    );
    let mut found = 0;
    for (i, k) in keys.iter().enumerate() {
        // 100 keys for 112 slots: a few are evicted by inserts that found both buckets full.
        if cache.get(&ns, k, &mut out).unwrap().is_some() {
            assert_eq!(out, value(i), "key {i}");
            found += 1;
        }
    }
    assert!(found >= 90, "only {found} of 100 live keys found");
    let stats = cache.stats();
    assert_eq!(stats.validation_failures, 0);
    assert_eq!(stats.kicks as usize, 100 - found, "every missing key was evicted by an insert");
}
