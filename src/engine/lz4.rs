//! LZ4 block decoding into uninitialised memory.
//!
//! Values are compressed with `lz4_flex` (standard LZ4 block format, no size prefix). Its safe
//! decoder copies a match that overlaps its own output one byte at a time, and such matches are
//! what repetitive values (HTML lists, serialized rows) are made of: a 50 KB menu took ~5.5 µs
//! to decode, more than copying 50 KB out of memory. Here an overlapping match is copied in
//! doubling chunks that never overlap (see `repeat_match`), and the output may be uninitialised,
//! so it needs no zeroing first.
//!
//! Every length and offset is checked against the input and the output: any byte string gives
//! either the decoded bytes or an error, never an out-of-bounds access or a panic. The engine only
//! decodes values whose checksum it has verified, so an error here means a damaged entry.

use std::mem::MaybeUninit;

/// The block is not valid LZ4, or does not decode to exactly the expected length.
#[derive(Debug, PartialEq, Eq)]
pub struct Corrupt;

/// Shortest match LZ4 encodes (a match-length nibble of 0 means 4 bytes).
const MIN_MATCH: usize = 4;

/// Decodes the LZ4 block `input` into `out`, which it must fill exactly.
/// On success every byte of `out` has been written.
pub fn decompress_exact(input: &[u8], out: &mut [MaybeUninit<u8>]) -> Result<(), Corrupt> {
    let mut at = 0; // next input byte
    let mut pos = 0; // bytes of out written so far, all initialised
    loop {
        let token = *input.get(at).ok_or(Corrupt)?;
        at += 1;
        // The common sequence: under 15 literals and a match under 19 bytes, far from both ends.
        // Fixed-size copies (16 and 18 bytes, one or two vector moves each) whose extra bytes
        // later sequences overwrite.
        if token >> 4 != 15
            && token & 15 != 15
            && input.len() - at >= WILD + 2
            && out.len() - pos >= WILD + SHORT_MATCH
        {
            let literals = (token >> 4) as usize;
            out[pos..pos + WILD].copy_from_slice(as_uninit(&input[at..at + WILD]));
            at += literals;
            pos += literals;
            let offset = u16::from_le_bytes([input[at], input[at + 1]]) as usize;
            at += 2;
            if offset == 0 || offset > pos {
                return Err(Corrupt);
            }
            let len = (token & 15) as usize + MIN_MATCH;
            if offset >= len {
                // memmove semantics: the first `len` bytes written are the `len` bytes at start.
                // (Two sizes: an 18-byte copy needs a 2-byte load that usually straddles a recent
                // store and waits for it, so most matches, 16 bytes or shorter, avoid it.)
                let start = pos - offset;
                if len <= WILD {
                    out.copy_within(start..start + WILD, pos);
                } else {
                    out.copy_within(start..start + SHORT_MATCH, pos);
                }
            } else {
                repeat_match(out, pos, offset, len);
            }
            pos += len;
            continue;
        }
        let literals = read_length(input, &mut at, (token >> 4) as usize)?;
        let src = input.get(at..at.checked_add(literals).ok_or(Corrupt)?).ok_or(Corrupt)?;
        let dst = out.get_mut(pos..pos.checked_add(literals).ok_or(Corrupt)?).ok_or(Corrupt)?;
        dst.copy_from_slice(as_uninit(src));
        at += literals;
        pos += literals;
        if at == input.len() {
            // The last sequence has literals only.
            return if pos == out.len() { Ok(()) } else { Err(Corrupt) };
        }
        let offset = match input.get(at..at + 2) {
            Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]) as usize,
            _ => return Err(Corrupt),
        };
        at += 2;
        if offset == 0 || offset > pos {
            return Err(Corrupt);
        }
        let len = read_length(input, &mut at, (token & 15) as usize)?
            .checked_add(MIN_MATCH)
            .ok_or(Corrupt)?;
        if len > out.len() - pos {
            return Err(Corrupt);
        }
        repeat_match(out, pos, offset, len);
        pos += len;
    }
}

/// Longest match the common-sequence path handles (a match-length nibble of 14, plus 4).
const SHORT_MATCH: usize = 18;

/// Bytes copied at once for short literal runs and matches.
const WILD: usize = 16;

fn as_uninit(bytes: &[u8]) -> &[MaybeUninit<u8>] {
    // SAFETY: MaybeUninit<u8> has the size, alignment and validity of u8, so initialised bytes
    // may be viewed as MaybeUninit<u8> for reading.
    unsafe { &*(bytes as *const [u8] as *const [MaybeUninit<u8>]) }
}

/// A 4-bit length field: 15 means more bytes follow, each added, until one below 255.
fn read_length(input: &[u8], at: &mut usize, nibble: usize) -> Result<usize, Corrupt> {
    let mut len = nibble;
    if nibble == 15 {
        loop {
            let b = *input.get(*at).ok_or(Corrupt)?;
            *at += 1;
            // An input of n bytes cannot describe more than ~255·n: no overflow on 64-bit,
            // but checked all the same.
            len = len.checked_add(b as usize).ok_or(Corrupt)?;
            if b != 255 {
                break;
            }
        }
    }
    Ok(len)
}

/// Writes `len` bytes at `pos` that repeat the `offset` bytes before it (the caller checked
/// 1 <= offset <= pos and pos + len <= out.len(), so everything read is initialised).
///
/// When the match overlaps its own output (len > offset), the bytes from `pos - offset` on form a
/// pattern of period `offset`. Copying the filled span `[pos - offset, end)` to `end` keeps the
/// period (the span's length is always a multiple of `offset`) and never overlaps, and each copy
/// doubles the span: ~log2(len / offset) copies instead of `len` single bytes.
fn repeat_match(out: &mut [MaybeUninit<u8>], pos: usize, offset: usize, len: usize) {
    let start = pos - offset;
    if len <= offset {
        out.copy_within(start..start + len, pos);
        return;
    }
    if len <= 2 * WILD {
        // Short overlapping match.
        if offset >= 8 && out.len() - pos >= len + 8 {
            // 8-byte steps, each reading bytes written at least 8 before (no overlap); the last
            // may write up to 7 bytes past the match, into room later sequences overwrite.
            let mut i = 0;
            while i < len {
                out.copy_within(start + i..start + i + 8, pos + i);
                i += 8;
            }
        } else if offset == 1 {
            let byte = out[start];
            out[pos..pos + len].fill(byte);
        } else {
            for i in pos..pos + len {
                out[i] = out[i - offset];
            }
        }
        return;
    }
    let stop = pos + len;
    let mut end = pos;
    while end < stop {
        let chunk = (end - start).min(stop - end);
        out.copy_within(start..start + chunk, end);
        end += chunk;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(input: &[u8], len: usize) -> Result<Vec<u8>, Corrupt> {
        let mut out = vec![MaybeUninit::<u8>::uninit(); len];
        decompress_exact(input, &mut out)?;
        // SAFETY: decompress_exact returned Ok, so it wrote every byte of `out`.
        Ok(out.into_iter().map(|b| unsafe { b.assume_init() }).collect())
    }

    fn samples() -> Vec<Vec<u8>> {
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut noise = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x as u8
        };
        let mut v = vec![Vec::new(), b"a".to_vec(), b"ab".repeat(3), vec![7u8; 100_000]];
        v.push("<li class=\"menu-item\">Item text that repeats</li>\n".repeat(1200).into_bytes());
        v.push((0..70_000).map(|_| noise()).collect());
        // Short periods 1..=40 (overlapping matches of every small offset), mixed with literals.
        for period in 1..=40usize {
            let pattern: Vec<u8> = (0..period).map(|_| noise()).collect();
            let mut s = Vec::new();
            for round in 0..30 {
                s.extend(pattern.iter().cycle().take(period * (round % 7 + 1) + round));
                s.push(noise());
            }
            v.push(s);
        }
        v
    }

    #[test]
    fn decodes_what_lz4_flex_encodes() {
        for s in samples() {
            let packed = lz4_flex::block::compress(&s);
            assert_eq!(decode(&packed, s.len()).as_deref(), Ok(&s[..]), "length {}", s.len());
        }
    }

    #[test]
    fn output_must_be_filled_exactly() {
        let s = b"hello hello hello hello hello".to_vec();
        let packed = lz4_flex::block::compress(&s);
        assert_eq!(decode(&packed, s.len() - 1), Err(Corrupt));
        assert_eq!(decode(&packed, s.len() + 1), Err(Corrupt));
    }

    #[test]
    fn damaged_input_is_an_error_or_some_bytes_never_a_panic() {
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for s in samples().into_iter().take(20) {
            let packed = lz4_flex::block::compress(&s);
            for _ in 0..300 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                let mut bad = packed.clone();
                if bad.is_empty() {
                    break;
                }
                let i = (x as usize) % bad.len();
                bad[i] ^= (x >> 32) as u8 | 1;
                let cut = (x >> 40) as usize % (bad.len() + 1);
                let _ = decode(&bad, s.len());
                let _ = decode(&bad[..cut], s.len());
                // What lz4_flex accepts, this decoder decodes the same way.
                if let Ok(theirs) = lz4_flex::block::decompress(&bad, s.len()) {
                    if theirs.len() == s.len() {
                        assert_eq!(decode(&bad, s.len()), Ok(theirs));
                    }
                }
            }
        }
        assert_eq!(decode(&[], 0), Err(Corrupt));
        assert_eq!(decode(&[0xf0], 100), Err(Corrupt));
        assert_eq!(decode(&[0x0f, 0, 0], 100), Err(Corrupt)); // offset 0
    }
}
