//! Which values are stored LZ4-compressed.
//!
//! Invariant: a value is stored compressed only when that makes it shorter; the entry then
//! records the raw length, and readers decompress to exactly that length or miss.

use std::cell::Cell;

use super::Cache;
use crate::engine::entry::FLAG_COMPRESSED;

thread_local! {
    /// Compression output.
    pub(super) static COMPRESS_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Values at least this long are first compressed on their first COMPRESSION_PROBE bytes, and
/// stored uncompressed when those do not shrink by an eighth.
const COMPRESSION_PROBE_MIN: usize = 32 << 10;
const COMPRESSION_PROBE: usize = 4 << 10;

impl Cache {
    pub(super) fn worth_compressing(&self, value: &[u8]) -> bool {
        self.compress_threshold != 0 && value.len() as u64 >= self.compress_threshold
    }

    pub(super) fn maybe_compress<'v>(
        &self,
        value: &'v [u8],
        buf: &'v mut Vec<u8>,
    ) -> (&'v [u8], u8) {
        if !self.worth_compressing(value) {
            return (value, 0);
        }
        // A long value whose first 4 KiB do not compress (images, archives, encrypted or
        // already compressed data) is stored as it is without compressing all of it (an
        // incompressible 50 KB set got faster: docs/benchmarks.md, "Figures behind code comments").
        // The price: a long
        // value that starts incompressible and compresses later is stored uncompressed.
        if value.len() >= COMPRESSION_PROBE_MIN {
            let probe = &value[..COMPRESSION_PROBE];
            buf.clear();
            buf.resize(lz4_flex::block::get_maximum_output_size(probe.len()), 0);
            match lz4_flex::block::compress_into(probe, buf) {
                Ok(n) if n <= probe.len() / 8 * 7 => {}
                _ => return (value, 0),
            }
        }
        buf.clear();
        buf.resize(lz4_flex::block::get_maximum_output_size(value.len()), 0);
        match lz4_flex::block::compress_into(value, buf) {
            Ok(n) if n < value.len() => (&buf[..n], FLAG_COMPRESSED),
            _ => (value, 0),
        }
    }
}
