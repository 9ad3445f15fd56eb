//! The cache operations over a mapped region: `Cache` and the public types it takes and gives.
//!
//! Reads never write shared memory except counters. Writes append a full entry to the ring and
//! then publish it with one CAS on an index slot, so a process killed at any instruction leaves
//! at worst an unpublished entry (garbage the ring will reuse) or a pending slot (invisible to
//! readers and reclaimed by later inserts) — never a half-visible value.
//!
//! This file holds what every protocol shares (the region's parts, the tail and epoch, a key's
//! probe, whether an entry is live); each protocol lives in its own file, with its invariants
//! in the file's documentation:
//!
//! | file | what |
//! |---|---|
//! | `read.rs` | validated reads of one key: lookup, copy, checksum, tail re-check |
//! | `batch.rs` | reads of many keys with their memory requested ahead |
//! | `sink.rs` | where a read puts the value (`ValueSink`) |
//! | `write.rs` | set/add/replace: append an entry, publish it with one CAS; the dead-word sweep |
//! | `compress.rs` | which values are stored compressed |
//! | `insert.rs` | publishing a key that has no slot yet: pending claim, rival scan, cuckoo step |
//! | `update.rs` | delete, incr/decr/cas, flushes |
//! | `report.rs` | `stats()`: counters and sizes |
//! | `listing.rs` | the live entries of a namespace |

use std::cell::Cell;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::thread::LocalKey;

use super::clock;
use super::entry::{EntryHeader, HEADER_LEN};
use super::error::Error;
use super::index::{
    key_hash, key_tail, namespace_hash, Buckets, KeyTable, Probe, WORDS_PER_BUCKET,
};
use super::namespace::{NamespaceTable, NO_GENERATION};
use super::region::{
    Config, Region, COORDINATION_WORDS, NS_BUCKETS, NS_BUCKET_BYTES, NS_BUCKET_WORDS,
};
use super::ring;
use super::stats::{install_fork_hook, Counter};
use super::{MAX_KEY_LEN, MAX_NAMESPACE_LEN};

mod batch;
mod batch_write;
mod compress;
mod deferred;
mod insert;
mod listing;
mod read;
mod report;
mod sink;
mod update;
mod write;

pub use deferred::DEFER_UP_TO as DEFERRED_READS_UP_TO;
pub use listing::ListedEntry;
pub use sink::ValueSink;
pub use write::Mode as WriteMode;

/// The type tag stored with a value. The engine only interprets `INT` (8 bytes, little endian);
/// the other tags belong to the PHP codec (`php/codec.rs`), but every kind any part of the
/// extension stores is listed here, once, so no two parts can give one tag two meanings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueKind(pub u8);

impl ValueKind {
    pub const INT: ValueKind = ValueKind(1);
    pub const NULL: ValueKind = ValueKind(2);
    pub const FALSE: ValueKind = ValueKind(3);
    pub const TRUE: ValueKind = ValueKind(4);
    pub const DOUBLE: ValueKind = ValueKind(5);
    pub const STRING: ValueKind = ValueKind(6);
    pub const ARRAY: ValueKind = ValueKind(7);
    /// PHP's serialize() output.
    pub const SERIALIZED: ValueKind = ValueKind(8);
    /// A plain stdClass: its property table in the native encoding.
    pub const OBJECT: ValueKind = ValueKind(9);
    /// The tier's near copy of "Redis has no such key" (a WordPress page asks for many absent
    /// keys: each would otherwise cost a round trip on every request). Never stored in Redis,
    /// never returned to PHP.
    pub const ABSENT: ValueKind = ValueKind(0xFE);
}

/// A key scope. The root namespace (empty name) is what the plain functions use; flushing it
/// flushes everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    name: Vec<u8>,
    hash: u64,
    /// Writes through this namespace record the time they stored (`EntryHeader::stored_at`).
    records_store_times: bool,
    /// Its entries are this machine's alone: `Cache::flush_all_but_local` leaves them.
    local: bool,
}

impl Namespace {
    pub fn new(name: &[u8]) -> Result<Namespace, Error> {
        if name.len() > MAX_NAMESPACE_LEN {
            return Err(Error::NamespaceTooLong { len: name.len(), max: MAX_NAMESPACE_LEN });
        }
        Ok(Namespace {
            name: name.to_vec(),
            hash: namespace_hash(name),
            records_store_times: false,
            local: false,
        })
    }

    /// The same namespace, whose writes also record when they stored (one clock read per write,
    /// which other namespaces do not pay): `Cache::times` and the listing report it.
    pub fn recording_store_times(mut self) -> Namespace {
        self.records_store_times = true;
        self
    }

    /// The same namespace, made *local*: its entries belong to this machine alone (the `apcu_*`
    /// functions'), so a reset of what tiered mode keeps here (`Cache::flush_all_but_local`)
    /// leaves them; `flush_all` takes them too. Its entries carry the local epoch
    /// (`LOCAL_EPOCH`). Every process must open a given name local, or none: an entry is judged
    /// by the epoch its writer stamped. The root namespace cannot be local.
    pub fn local(mut self) -> Namespace {
        assert!(!self.is_root(), "the root namespace cannot be local");
        self.local = true;
        self
    }

    pub fn is_local(&self) -> bool {
        self.local
    }

    pub fn root() -> Namespace {
        Namespace { name: Vec::new(), hash: 0, records_store_times: false, local: false }
    }

    pub fn name(&self) -> &[u8] {
        &self.name
    }

    pub fn is_root(&self) -> bool {
        self.name.is_empty()
    }
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Liveness {
    Live,
    Expired,
    Flushed,
}

/// Lends out a per-thread buffer. It is taken, not borrowed, so a nested use gets a fresh one
/// and a caller abandoned by a longjmp (a PHP bailout inside a sink) loses the buffer instead of
/// leaving it locked.
fn with_buffer<R>(slot: &'static LocalKey<Cell<Vec<u8>>>, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    let mut buf = slot.take();
    let r = f(&mut buf);
    slot.set(buf);
    r
}

/// A Unix time as the 32 bits an entry header keeps (times past 2106 as its last second).
fn clamp_secs(t: u64) -> u32 {
    u32::try_from(t).unwrap_or(u32::MAX)
}

/// An entry's expiry and store time, in Unix seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EntryTimes {
    /// When the entry dies; 0 = never.
    pub expires_at: u64,
    /// When its value was stored; 0 unless its namespace records store times.
    pub stored_at: u64,
}

impl EntryTimes {
    fn of(h: &EntryHeader) -> EntryTimes {
        EntryTimes { expires_at: u64::from(h.expires_at), stored_at: u64::from(h.stored_at) }
    }

    /// The TTL the value was stored with (what APCu reports): None when its namespace does not
    /// record store times.
    pub fn ttl_given(&self) -> Option<u64> {
        match (self.expires_at, self.stored_at) {
            (0, _) => Some(0),
            (_, 0) => None,
            (e, s) => Some(e.saturating_sub(s)),
        }
    }

    /// The whole seconds a live entry has left on the cache's clock, so that a write given
    /// them at once gets the very same expiry: 0 when it never expires, and at least 1 for one
    /// that does (0 would mean "never").
    pub fn seconds_left(&self) -> u64 {
        if self.expires_at == 0 {
            return 0;
        }
        self.expires_at.saturating_sub(clock::now_secs()).max(1)
    }
}

#[inline(always)]
fn check_key(key: &[u8]) -> Result<(), Error> {
    // Both bounds in one comparison (an empty key wraps to usize::MAX), the error picked after.
    if key.len().wrapping_sub(1) >= MAX_KEY_LEN {
        return Err(key_length_error(key.len()));
    }
    Ok(())
}

#[cold]
fn key_length_error(len: usize) -> Error {
    if len == 0 {
        Error::EmptyKey
    } else {
        Error::KeyTooLong { len, max: MAX_KEY_LEN }
    }
}

/// The mark of a local namespace's entry (`Namespace::local`): its `epoch` field is this bit
/// and the region's local epoch. The global epoch counts up from 1 by one per flush and never
/// reaches it, so no other entry can pass for a local one after a `flush_all_but_local`.
pub(crate) const LOCAL_EPOCH: u64 = 1 << 63;

pub struct Cache {
    region: Region,
    capacity: u64,
    ring_size: ring::RingSize,
    /// Every access to the ring's bytes goes through this view.
    ring: ring::RingView,
    bucket_count: u64,
    buckets: Buckets,
    max_entry_len: u64,
    compress_threshold: u64,
    /// The CPU can swap a 16-byte pair atomically: integers are stored in place
    /// (entry.rs `FLAG_IN_PLACE`). Asked once, not on every write.
    pub(super) pair_swap: bool,
    /// Cuckoo steps of this process in a row that found no room (insert.rs `try_relocation`).
    relocation_misses: AtomicU32,
    /// Reads of `get_into_deferred` not yet added to the shared counters (this process's
    /// memory, not the region's).
    deferred: deferred::DeferredReads,
}

impl Cache {
    /// A cache over a fresh anonymous region, every page faulted in (for a process that forks
    /// the ones that use it: `Region::create`).
    pub fn create(config: &Config) -> Result<Cache, Error> {
        Ok(Cache::over(Region::create(config, true)?))
    }

    /// `create` whose pages are faulted in as they are first used: for a process that will
    /// not fork (the CLI), which then pays only for the memory it touches.
    pub fn create_unpopulated(config: &Config) -> Result<Cache, Error> {
        Ok(Cache::over(Region::create(config, false)?))
    }

    pub fn over(region: Region) -> Cache {
        install_fork_hook();
        let h = region.header();
        Cache {
            capacity: h.ring_capacity,
            ring_size: ring::RingSize::new(h.ring_capacity),
            // SAFETY: the ring is `ring_capacity` bytes at ring_ptr inside the mapping, which
            // `region` (moved into the same Cache) keeps mapped as long as the view is used.
            ring: unsafe { ring::RingView::new(region.ring_ptr(), h.ring_capacity) },
            bucket_count: h.bucket_count,
            buckets: Buckets::new(h.bucket_count),
            max_entry_len: h.max_entry_len,
            compress_threshold: h.compress_threshold,
            pair_swap: ring::has_pair_swap(),
            relocation_misses: AtomicU32::new(0),
            deferred: deferred::DeferredReads::default(),
            region,
        }
    }

    pub fn region(&self) -> &Region {
        &self.region
    }

    /// Words that a layer above the cache uses to coordinate the processes sharing this region
    /// (tiered mode keeps its stream positions there). Unlike entries, neither a flush nor the
    /// ring's recycling touches them: a value stays until a process changes it.
    pub fn coordination_words(&self) -> &[AtomicU64; COORDINATION_WORDS] {
        &self.region.header().coordination.0
    }

    /// Largest value (after compression) storable under a key of `key_len` bytes.
    pub fn max_value_len(&self, key_len: usize) -> usize {
        (self.max_entry_len as usize).saturating_sub(HEADER_LEN + key_len)
    }

    fn index(&self) -> KeyTable<'_> {
        KeyTable {
            words: self
                .region
                .words(self.region.index_offset, self.bucket_count * WORDS_PER_BUCKET as u64),
            bucket_count: self.bucket_count,
        }
    }

    fn namespaces(&self) -> NamespaceTable<'_> {
        let h = self.region.header();
        NamespaceTable {
            words: self
                .region
                .words(self.region.ns_table_offset, (NS_BUCKETS * NS_BUCKET_WORDS) as u64),
            used: self.region.words(
                self.region.ns_table_offset + (NS_BUCKETS * NS_BUCKET_BYTES) as u64,
                (NS_BUCKETS * NS_BUCKET_WORDS) as u64,
            ),
            counter: &h.hot.ns_generation.0,
        }
    }

    fn tail(&self) -> u64 {
        self.region.header().hot.tail.0.load(Ordering::Acquire)
    }

    /// The ring's tail at the last flush (`Epochs::flush_tail`).
    fn flush_tail(&self) -> u64 {
        self.region.header().hot.epoch.0.flush_tail.load(Ordering::Acquire)
    }

    fn epoch(&self) -> u64 {
        self.region.header().hot.epoch.0.all.load(Ordering::Acquire)
    }

    /// What an entry of a local namespace written now carries in its `epoch` field.
    fn local_epoch(&self) -> u64 {
        LOCAL_EPOCH | self.region.header().hot.epoch.0.local.load(Ordering::Acquire)
    }

    /// Whether an entry's `epoch` field is current: the global epoch, or for an entry of a local
    /// namespace the local one (an entry that matches the first never loads the second).
    #[inline(always)]
    fn epoch_is_current(&self, epoch: u64) -> bool {
        epoch == self.epoch() || epoch == self.local_epoch()
    }

    /// Whether a flush left the entry a slot word points at dead (or it is no longer intact),
    /// judged from its header's epoch alone (an eviction's cheap test).
    fn flushed(&self, word: u64, tail: u64) -> bool {
        !self.entry_epoch(word, tail).is_some_and(|e| self.epoch_is_current(e))
    }

    fn bump(&self, c: Counter) {
        self.region.header().stats.bump(c);
    }

    fn probe(&self, ns: &Namespace, key: &[u8]) -> Probe {
        Probe::new(key_hash(ns.hash, key), key_tail(key), self.buckets)
    }

    /// The generation readers compare entries with; `NO_GENERATION` = nothing in this
    /// namespace is live.
    fn read_generation(&self, ns: &Namespace) -> u64 {
        if ns.is_root() {
            0
        } else {
            self.namespaces().current(ns.hash).unwrap_or(NO_GENERATION)
        }
    }

    /// `read_generation` out of line, for incr, decr and cas: with the namespace lookup inlined
    /// into them, LLVM compiled the whole update differently (incr 824 -> 838, cas 827 -> 841
    /// instructions, callgrind, for keys of no namespace, which never reach the lookup).
    #[inline(never)]
    fn read_generation_outlined(&self, ns: &Namespace) -> u64 {
        self.read_generation(ns)
    }

    /// The generation and the epoch a write stamps its entry with.
    #[inline(always)]
    fn write_stamp(&self, ns: &Namespace) -> (u64, u64) {
        if ns.is_root() {
            (0, self.epoch())
        } else {
            let generation = self.namespaces().for_write(ns.hash);
            (generation, if ns.local { self.local_epoch() } else { self.epoch() })
        }
    }

    fn liveness(&self, h: &EntryHeader, generation: u64) -> Liveness {
        if !self.epoch_is_current(h.epoch) || generation != h.ns_generation {
            Liveness::Flushed
        } else if h.expires_at != 0 && clock::has_passed(u64::from(h.expires_at)) {
            Liveness::Expired
        } else {
            Liveness::Live
        }
    }
}

/// Test/fuzz hooks (feature `fuzzing` only; nothing in the engine calls them).
#[cfg(feature = "fuzzing")]
impl Cache {
    /// The two index buckets `key` may live in, home first (slots `8 * bucket .. 8 * bucket + 7`
    /// of the index area `Region::fuzz_layout` reports, word `8 * bucket + 7` being the
    /// bucket's hint), so a test can fill exactly those buckets.
    pub fn fuzz_candidate_buckets(&self, ns: &Namespace, key: &[u8]) -> [u64; 2] {
        self.probe(ns, key).buckets
    }

    /// Runs `f` and counts the index lines (buckets) it read or wrote on this thread, as the
    /// engine's own code touched them (prefetches aside).
    pub fn fuzz_index_lines<R>(&self, f: impl FnOnce(&Self) -> R) -> (R, usize) {
        super::index::lines_read::counted(|| f(self))
    }

    /// Runs `f` and counts the entries' flush epochs it read on this thread (each a ring line
    /// an insert into full buckets may read to find a flushed entry to reuse).
    pub fn fuzz_epoch_reads<R>(&self, f: impl FnOnce(&Self) -> R) -> (R, usize) {
        read::epoch_reads::counted(|| f(self))
    }

    /// The sum of every counter of every hint word: how many away words the hints count.
    pub fn fuzz_hint_total(&self) -> u64 {
        let index = self.index();
        (0..self.bucket_count)
            .map(|b| index.hint(b, Ordering::Acquire))
            .map(|h| (0..16).map(|g| (h >> (4 * g)) & 15).sum::<u64>())
            .sum()
    }

    /// The ring's tail: the virtual offset the next entry is appended at (unless it has to
    /// start a new lap).
    pub fn fuzz_tail(&self) -> u64 {
        self.tail()
    }

    /// Moves the ring's tail forward to `tail`, as if the bytes in between had been reserved
    /// by writers that published nothing: how a test stands in for terabytes of writes.
    pub fn fuzz_set_tail(&self, tail: u64) {
        let hot = &self.region.header().hot.tail.0;
        assert!(
            tail.is_multiple_of(8) && tail >= hot.load(Ordering::Acquire),
            "the tail only grows, in steps of 8"
        );
        hot.store(tail, Ordering::Release);
    }
}
