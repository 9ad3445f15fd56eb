//! The entry read path with arbitrary bytes: one key is stored, then the fuzz input overwrites
//! its entry in the ring (header, key and value bytes). Flags in the first byte can give the
//! forged entry its real offset field, the right key, and a correct checksum, so the input also
//! reaches the checks behind the checksum (lengths, liveness, decompression).
//!
//! Must never panic or crash. A hit must be the original value, or come from a forged entry
//! whose checksum and value hash match its bytes (recomputed by bit 2, or learned by the fuzzer
//! from the engine's comparisons), and then be exactly what the forged header describes: the
//! stored bytes, or their LZ4 decompression of exactly raw_len bytes.
//!
//! Input: byte 0 = flags (bit 0: keep the real offset field, bit 1: keep the real key and
//! lengths, bit 2: recompute the checksum, bit 3: keep epoch/generation/expiry live); then the
//! bytes written over the entry, from its first header byte.

#![no_main]

use libfuzzer_sys::fuzz_target;
use shmcache::engine::{
    entry_pair_matches, entry_value_hash, Cache, Config, Namespace, ValueKind,
    ENTRY_VALUE_HASH_RANGE,
};

const HEADER: usize = 64;
const KEY: &[u8] = b"victim";

fuzz_target!(|data: &[u8]| {
    let config =
        Config { keys_memory_size: 1024, values_memory_size: 64 << 10, compress_threshold: 64 };
    let cache = Cache::create(&config).expect("create");
    let ns = Namespace::root();
    let original: Vec<u8> = (0..200u32).map(|i| (i * 7 % 251) as u8).collect();
    assert!(cache.set(&ns, KEY, ValueKind::STRING, &original, 0).unwrap());
    let layout = cache.region().fuzz_layout();
    // The first entry of a fresh region is at virtual (and physical) ring offset 64.
    let pos = layout.ring.0 + 64;
    let ring_room = layout.ring.1 - 64;

    let (&flags, bytes) = data.split_first().unwrap_or((&0, &[]));
    let n = bytes.len().min(ring_room).min(8192);
    // SAFETY: pos + n is inside the ring; this process is the only user of the mapping.
    let entry = unsafe { std::slice::from_raw_parts_mut(layout.base.add(pos), ring_room) };
    let mut hdr = [0u8; HEADER];
    hdr.copy_from_slice(&entry[..HEADER]);
    entry[..n].copy_from_slice(&bytes[..n]);
    if flags & 1 != 0 {
        entry[0..8].copy_from_slice(&64u64.to_le_bytes());
    }
    if flags & 2 != 0 {
        entry[48..52].copy_from_slice(&hdr[48..52]); // key_len, ns_len
        entry[HEADER..HEADER + KEY.len()].copy_from_slice(KEY);
    }
    if flags & 8 != 0 {
        entry[16..40].copy_from_slice(&hdr[16..40]); // generation, expiry, epoch
    }
    fn field(entry: &[u8], at: usize, len: usize) -> u64 {
        let mut b = [0u8; 8];
        b[..len].copy_from_slice(&entry[at..at + len]);
        u64::from_le_bytes(b)
    }
    // A legitimate writer never produces a raw length above what its stored bytes can hold
    // (LZ4 expands at most ~255x): keep forged ones in that range so the harness does not
    // just measure the allocator.
    let stored_len = field(entry, 40, 4) as usize;
    let raw_len = field(entry, 44, 4) as usize;
    if raw_len > (stored_len + 16) * 255 {
        entry[44..48].copy_from_slice(&(((stored_len + 16) * 255) as u32).to_le_bytes());
    }
    let key_len = field(entry, 48, 2) as usize;
    let total = HEADER + key_len + stored_len;
    let forged_sum = flags & 4 != 0 && total <= ring_room;
    if forged_sum {
        let value_hash =
            if entry[53] & 2 != 0 { 0 } else { entry_value_hash(&entry[HEADER + key_len..total]) };
        entry[ENTRY_VALUE_HASH_RANGE].copy_from_slice(&value_hash.to_le_bytes());
        entry[8..16].fill(0);
        let sum = shmcache::engine::entry_checksum(
            &entry[..HEADER + key_len],
            &entry[HEADER + key_len..total],
        );
        entry[8..16].copy_from_slice(&sum.to_le_bytes());
    }
    // Whether the checksum field matches the bytes the header describes. libFuzzer learns
    // comparison operands, so an input can carry a valid checksum without bit 2 (it found one
    // within a minute): what must hold is that only entries with a matching checksum are hits.
    // An in-place integer (flag 2) stores 0 as its value hash; its pair vouches for itself.
    let in_place = entry[53] & 2 != 0;
    let sum_ok = total <= ring_room && {
        let mut head = entry[..HEADER + key_len].to_vec();
        head[8..16].fill(0);
        let value = &entry[HEADER + key_len..total];
        let value_hash = if in_place { 0 } else { entry_value_hash(value) };
        shmcache::engine::entry_checksum(&head, value).to_le_bytes() == entry[8..16]
            && value_hash.to_le_bytes() == entry[ENTRY_VALUE_HASH_RANGE]
    };
    let identical = entry[..HEADER + KEY.len() + original.len()] == {
        let mut e = hdr.to_vec();
        e.extend_from_slice(KEY);
        e.extend_from_slice(&original);
        e
    }[..];

    let mut out = Vec::new();
    let hit = cache.get(&ns, KEY, &mut out).expect("get");
    if let Some(kind) = hit {
        if identical {
            assert_eq!(out, original);
            assert_eq!(kind, ValueKind::STRING);
        } else {
            assert!(sum_ok, "a forged entry without a valid checksum was returned");
            let value = &entry[HEADER + key_len..total];
            let flags_byte = entry[53];
            if in_place {
                // The entry starts at ring position 64 of a page-aligned ring: its pair is at
                // the first 16-aligned position after the key.
                let pair = ((64 + HEADER + key_len + 15) & !15) - 64;
                let word = |at: usize| u64::from_le_bytes(entry[at..at + 8].try_into().unwrap());
                assert_eq!(out, entry[pair..pair + 8], "an in-place hit is its pair's value");
                assert!(
                    entry_pair_matches(&entry[..HEADER + key_len], word(pair), word(pair + 8)),
                    "an in-place pair failing its check was returned"
                );
            } else if flags_byte & 1 != 0 {
                let raw = field(entry, 44, 4) as usize;
                let d = lz4_flex::block::decompress(value, raw)
                    .expect("returned value must decompress");
                assert_eq!(d.len(), raw);
                assert_eq!(out, d);
            } else {
                assert_eq!(out, value);
            }
            assert_eq!(kind, ValueKind(entry[52]));
        }
    }
    // Everything else on the same key must cope too.
    let _ = cache.exists(&ns, KEY).expect("exists");
    let _ = cache.incr(&ns, KEY, 1).expect("incr");
    let _ = cache.replace(&ns, KEY, ValueKind::STRING, b"r", 0).expect("replace");
    // (A damaged entry whose key bytes still match once made add() retry until it gave up:
    // fuzz/regressions/entry_read/add-on-damaged-entry.)
    let _ = cache.add(&ns, KEY, ValueKind::STRING, b"a", 0).expect("add");
    assert!(cache.set(&ns, KEY, ValueKind::STRING, b"fresh", 0).expect("set"));
    assert_eq!(cache.get(&ns, KEY, &mut out).expect("get"), Some(ValueKind::STRING));
    assert_eq!(out, b"fresh");
    let _ = cache.delete(&ns, KEY).expect("delete");
    let s = cache.stats();
    assert!(s.slots_used <= s.slots_total);
});
