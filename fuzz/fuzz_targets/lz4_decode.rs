//! The engine's LZ4 block decoder (`src/engine/lz4.rs`) against `lz4_flex`, the encoder's own
//! crate, on arbitrary bytes. Bytes 0–1 give the output length (0–65,535); byte 2 picks the
//! half:
//!
//! * even, arbitrary input: the rest is decoded as a block. Must never panic or touch memory
//!   out of bounds (ASan). Wherever `lz4_flex` decodes the input to exactly that length, the
//!   engine's decoder must give the same bytes, and where the engine's decoder succeeds,
//!   `lz4_flex` must too, with the same bytes. The output buffer starts filled with a marker,
//!   so a byte the decoder claims to have written but skipped shows as a difference.
//! * odd, round trip: the rest, repeated up to the length, is compressed by `lz4_flex`; the
//!   engine's decoder must give it back exactly.

#![no_main]

use std::mem::MaybeUninit;

use libfuzzer_sys::fuzz_target;
use shmcache::engine::lz4_decompress_exact;

fn ours(input: &[u8], len: usize) -> Option<Vec<u8>> {
    // Filled with a marker, not zeros, so a byte the decoder skipped cannot pass for a 0.
    let mut out = vec![MaybeUninit::new(0xA5u8); len];
    lz4_decompress_exact(input, &mut out).ok()?;
    // SAFETY: every element was initialised above (and decompress_exact wrote all of them).
    Some(out.into_iter().map(|b| unsafe { b.assume_init() }).collect())
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let len = u16::from_le_bytes([data[0], data[1]]) as usize;
    let rest = &data[3..];
    if data[2] % 2 == 0 {
        let theirs = lz4_flex::block::decompress(rest, len).ok().filter(|v| v.len() == len);
        let mine = ours(rest, len);
        if let Some(t) = &theirs {
            assert_eq!(
                mine.as_ref(),
                Some(t),
                "lz4_flex decodes this block, the engine does not (or differently)"
            );
        }
        if let Some(m) = &mine {
            assert_eq!(theirs.as_ref(), Some(m), "the engine decodes a block lz4_flex refuses");
        }
    } else {
        let plain: Vec<u8> = if rest.is_empty() {
            Vec::new()
        } else {
            rest.iter().copied().cycle().take(len.max(rest.len())).collect()
        };
        if plain.is_empty() {
            return;
        }
        let packed = lz4_flex::block::compress(&plain);
        assert_eq!(ours(&packed, plain.len()).as_deref(), Some(&plain[..]), "round trip");
    }
});
