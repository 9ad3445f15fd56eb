//! The shared-memory cache engine: pure Rust, no PHP.
//!
//! One mapped region holds a header, a namespace table, a lossy key index (buckets of 4 slots,
//! two candidate buckets per key) and a wrap-around value ring. Readers never lock; writers
//! append to the ring and publish with a CAS on an index slot. See `docs/design.md`.

mod cache;
mod checksum;
mod clock;
mod entry;
mod error;
mod index;
mod lz4;
pub mod named;
mod namespace;
mod region;
mod ring;
mod stats;

pub use cache::{
    Cache, EntryTimes, ListedEntry, Namespace, ValueKind, ValueSink, WriteMode,
    DEFERRED_READS_UP_TO,
};
/// The hash of a stored value an entry's header holds, for tests and fuzzers that forge entries.
#[cfg(feature = "fuzzing")]
pub use checksum::value_hash as entry_value_hash;
/// The clock entry expiries and store times are read on (Unix seconds, as PHP's `time()`).
pub use clock::now_secs as clock_secs;
/// How an entry's checksum is computed, for tests and fuzzers that forge entries.
#[cfg(feature = "fuzzing")]
pub use entry::{
    checksum as entry_checksum, pair_matches as entry_pair_matches,
    VALUE_HASH_RANGE as ENTRY_VALUE_HASH_RANGE,
};
pub use error::Error;
pub use index::string_hash;
/// The engine's LZ4 block decoder, for the differential fuzz target.
#[cfg(feature = "fuzzing")]
pub use lz4::{decompress_exact as lz4_decompress_exact, Corrupt as Lz4Corrupt};
#[cfg(feature = "fuzzing")]
pub use region::FuzzLayout;
pub use region::{
    Config, Region, COORDINATION_WORDS, LAYOUT_VERSION, MAX_KEYS_MEMORY, MAX_VALUES_MEMORY,
    MIN_KEYS_MEMORY, MIN_VALUES_MEMORY,
};
pub use stats::Stats;

/// Longest key accepted, in bytes (the namespace is not counted).
pub const MAX_KEY_LEN: usize = 4096;
/// Longest namespace accepted, in bytes.
pub const MAX_NAMESPACE_LEN: usize = 1024;
