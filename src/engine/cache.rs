//! The cache operations over a mapped region.
//!
//! Reads never write shared memory except counters. Writes append a full entry to the ring and
//! then publish it with one CAS on an index slot, so a process killed at any instruction leaves
//! at worst an unpublished entry (garbage the ring will reuse) or a pending slot (invisible to
//! readers and reclaimed by later inserts) — never a half-visible value.

use std::cell::Cell;
use std::mem::MaybeUninit;
use std::sync::atomic::{fence, AtomicU64, Ordering};
use std::thread::LocalKey;

use super::checksum;
use super::entry::{checksum_of, entry_len, EntryHeader, EPOCH_FIELD, FLAG_COMPRESSED, HEADER_LEN, HEAD_MAX};
use super::error::Error;
use super::index::{is_pending, key_hash, make_word, namespace_hash, word_lines, word_offset, word_tag, Probe, OFFSET_PERIOD, PENDING};
use super::namespace::NamespaceTable;
use super::region::{Config, Region, BUCKET_BYTES, NS_BUCKETS, SLOTS_PER_BUCKET};
use super::lz4;
use super::ring;
use super::stats::{install_fork_hook, Counter, Stats};
use super::{MAX_KEY_LEN, MAX_NAMESPACE_LEN};

mod listing;
pub use listing::ListedEntry;

const EXACT_SLOT_COUNT_LIMIT: usize = 1 << 22;
const SAMPLED_SLOTS: usize = 1 << 20;

/// Values at least this long are first compressed on their first COMPRESSION_PROBE bytes, and
/// stored uncompressed when those do not shrink by an eighth.
const COMPRESSION_PROBE_MIN: usize = 32 << 10;
const COMPRESSION_PROBE: usize = 4 << 10;

/// A write gives up after this many lost races on one key (the caller then reports failure).
const MAX_ATTEMPTS: u32 = 10_000;
/// After yielding this many times to the same pending insert, treat its writer as dead.
const MAX_YIELDS_TO_ONE_RIVAL: u32 = 64;

/// Every slot of the index is swept once per this many bytes of writes, clearing words whose
/// entries the ring has overwritten: a slot word stores its offset modulo OFFSET_PERIOD, so a
/// dead word left alone would read as intact again once that many bytes had been written after
/// its entry. The sweep of one slot may be missed twice (its writer killed) and the word still
/// cleared in time: a word dies at most a ring's capacity after its entry was written, and is
/// next swept at most a round and a lap after that.
const SWEEP_ROUND_BYTES: u64 = 1 << 44;
const _: () = assert!(3 * SWEEP_ROUND_BYTES + 3 * super::MAX_VALUES_MEMORY < OFFSET_PERIOD);

/// The type tag stored with a value. The engine only interprets `INT` (8 bytes, little endian);
/// other tags belong to the caller's codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ValueKind(pub u8);

impl ValueKind {
    pub const INT: ValueKind = ValueKind(1);
}

/// A key scope. The root namespace (empty name) is what the plain functions use; flushing it
/// flushes everything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Namespace {
    name: Vec<u8>,
    hash: u64,
    /// Writes through this namespace record the time they stored (`EntryHeader::stored_at`).
    records_store_times: bool,
}

impl Namespace {
    pub fn new(name: &[u8]) -> Result<Namespace, Error> {
        if name.len() > MAX_NAMESPACE_LEN {
            return Err(Error::NamespaceTooLong { len: name.len(), max: MAX_NAMESPACE_LEN });
        }
        Ok(Namespace { name: name.to_vec(), hash: namespace_hash(name), records_store_times: false })
    }

    /// The same namespace, whose writes also record when they stored (one clock read per write,
    /// which other namespaces do not pay): `Cache::times` and the listing report it.
    pub fn recording_store_times(mut self) -> Namespace {
        self.records_store_times = true;
        self
    }

    pub fn root() -> Namespace {
        Namespace { name: Vec::new(), hash: 0, records_store_times: false }
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

enum Lookup {
    Absent,
    /// The slot holding the key. `damaged`: its entry failed validation (the key bytes match but
    /// the checksum does not), so its header and value are not to be trusted: readers miss, and
    /// writers replace the slot instead of looking for another one.
    Present { slot: usize, word: u64, header: EntryHeader, damaged: bool },
}

/// Where a read puts the value. Once the engine knows a slot holds the key, it asks for a buffer
/// of the value's exact length, copies (or decompresses) the value into it and only then
/// validates the entry; when validation fails it calls `discard` and may ask again for another
/// candidate. The value bytes are therefore copied once, straight to where the caller wants them.
///
/// `buffer` is called while the engine holds nothing that must be released (no borrowed
/// scratch buffer, no lock), so an implementation may allocate from an allocator that can
/// abandon the whole call (PHP's emalloc bails out on memory_limit).
///
/// # Safety
/// `buffer` must return a pointer valid for writes of `len` bytes that nobody else reads or
/// writes until the next call to `buffer` or `discard`, or the end of the read.
pub unsafe trait ValueSink {
    /// False for a sink that only wants the entry validated (`CheckOnly`): the value is then
    /// hashed where it lies and `buffer` is never called.
    const TAKES_VALUE: bool = true;
    fn buffer(&mut self, kind: ValueKind, len: usize) -> *mut u8;
    fn discard(&mut self);
}

/// For operations that only need to know whether a key is live (delete, exists, add,
/// replace): the entry is validated in full, its value hashed where it lies in the ring, never
/// copied or decompressed (a delete of a 50 KB value measured 4.5 -> 2.9 us).
struct CheckOnly;

// SAFETY: never asked for a buffer (TAKES_VALUE is false); it never hands out memory.
unsafe impl ValueSink for CheckOnly {
    const TAKES_VALUE: bool = false;
    fn buffer(&mut self, _kind: ValueKind, _len: usize) -> *mut u8 {
        unreachable!("a CheckOnly read takes no value")
    }
    fn discard(&mut self) {}
}

// SAFETY: the pointer is to the Vec's own initialised storage of exactly `len` bytes, which only
// this Vec owns and which stays put until the Vec is touched again.
unsafe impl ValueSink for Vec<u8> {
    fn buffer(&mut self, _kind: ValueKind, len: usize) -> *mut u8 {
        self.clear();
        self.resize(len, 0);
        self.as_mut_ptr()
    }

    fn discard(&mut self) {
        self.clear();
    }
}

/// Receives values the engine reads to inspect them (incr, decr, cas): small ones (counters, flags) on the stack, larger ones in a per-thread buffer.
struct LocalSink {
    inline: [u8; 64],
    len: usize,
    heap: Option<Vec<u8>>,
}

impl LocalSink {
    fn new() -> LocalSink {
        LocalSink { inline: [0; 64], len: 0, heap: None }
    }

    fn bytes(&self) -> &[u8] {
        match &self.heap {
            Some(v) if self.len > self.inline.len() => &v[..self.len],
            _ => &self.inline[..self.len],
        }
    }
}

impl Drop for LocalSink {
    fn drop(&mut self) {
        if let Some(v) = self.heap.take() {
            LOCAL_BUF.set(v);
        }
    }
}

// SAFETY: the pointer is to the sink's own inline array (len <= 64) or to its own Vec of at
// least `len` initialised bytes; the sink is borrowed for the whole read, so neither moves or
// changes meanwhile.
unsafe impl ValueSink for LocalSink {
    fn buffer(&mut self, _kind: ValueKind, len: usize) -> *mut u8 {
        self.len = len;
        if len <= self.inline.len() {
            return self.inline.as_mut_ptr();
        }
        let v = self.heap.get_or_insert_with(|| LOCAL_BUF.take());
        // Only ever grown: the read overwrites the first `len` bytes, so zeroing them first
        // (what clear + resize does) would only cost a memset of the value's size.
        if v.len() < len {
            v.resize(len, 0);
        }
        v.as_mut_ptr()
    }

    fn discard(&mut self) {
        self.len = 0;
    }
}

/// How many keys ahead a batched read (get_each) requests index buckets.
const BATCH_LOOKAHEAD: usize = 4;

/// What one read found. An expired entry is a miss that is also counted as expired.
enum ReadOutcome {
    Hit(ValueKind),
    Miss,
    Expired,
}

impl ReadOutcome {
    fn kind(&self) -> Option<ValueKind> {
        match self {
            ReadOutcome::Hit(kind) => Some(*kind),
            _ => None,
        }
    }
}

/// Hits, misses and expiries of a batch of reads, added to the shared counters once at the end
/// (each shared add is an atomic instruction).
#[derive(Default)]
struct ReadTally {
    hits: u64,
    misses: u64,
    expired: u64,
}

impl ReadTally {
    fn add(&mut self, outcome: &ReadOutcome) {
        match outcome {
            ReadOutcome::Hit(_) => self.hits += 1,
            ReadOutcome::Miss => self.misses += 1,
            ReadOutcome::Expired => {
                self.expired += 1;
                self.misses += 1;
            }
        }
    }

    fn count(&self, cache: &Cache) {
        let stats = &cache.region.header().stats;
        for (counter, n) in [(Counter::Hits, self.hits), (Counter::Misses, self.misses), (Counter::Expired, self.expired)] {
            if n > 0 {
                stats.add(counter, n);
            }
        }
    }
}

/// Values at least this long are validated in a private buffer before the caller's sink is asked
/// for memory, so a damaged length field can never make the caller allocate a huge block.
const DIRECT_COPY_MAX: usize = 1 << 20;

#[inline]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it never faults, even on a bad address.
    unsafe {
        std::arch::x86_64::_mm_prefetch(p.cast::<i8>(), std::arch::x86_64::_MM_HINT_T0)
    };
}

enum EntryRead {
    /// Dead slot or another key with the same tag.
    Other,
    /// The bytes changed under us or were never consistent: a validation failure.
    Invalid,
    Same(EntryHeader),
}

/// Tracks the pending insert we keep yielding to, so a rival killed mid-insert can't block us.
#[derive(Default)]
struct RivalWatch {
    word: u64,
    yields: u32,
}

impl RivalWatch {
    fn yielded(&mut self, word: u64) {
        if self.word == word {
            self.yields += 1;
        } else {
            *self = RivalWatch { word, yields: 1 };
        }
    }

    fn presumed_dead(&self, word: u64) -> bool {
        self.word == word && self.yields >= MAX_YIELDS_TO_ONE_RIVAL
    }
}

thread_local! {
    /// Compressed and large values, validated before the caller's sink gets them; keys read
    /// back for a cuckoo move.
    static READ_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// Larger values read only to be validated (LocalSink).
    static LOCAL_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
    /// Compression output.
    static COMPRESS_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
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

fn now_secs() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs()).unwrap_or(0)
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
}

/// `a == b`, with slices of up to 16 bytes (most keys) compared as two overlapping words each
/// instead of through a call to memcmp, which a get of a short key spent some 20 instructions on.
#[inline(always)]
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n > 16 {
        return a == b;
    }
    if n >= 8 {
        let word = |s: &[u8], at: usize| u64::from_le_bytes(s[at..at + 8].try_into().unwrap());
        return word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
    }
    if n >= 4 {
        let word = |s: &[u8], at: usize| u32::from_le_bytes(s[at..at + 4].try_into().unwrap());
        return word(a, 0) == word(b, 0) && word(a, n - 4) == word(b, n - 4);
    }
    // 0 to 3 bytes: the first, middle and last byte are all of them.
    n == 0 || (a[0] == b[0] && a[n / 2] == b[n / 2] && a[n - 1] == b[n - 1])
}

fn check_key(key: &[u8]) -> Result<(), Error> {
    if key.is_empty() {
        return Err(Error::EmptyKey);
    }
    if key.len() > MAX_KEY_LEN {
        return Err(Error::KeyTooLong { len: key.len(), max: MAX_KEY_LEN });
    }
    Ok(())
}

/// What a write does when the key is (or is not) already live.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Set,
    Add,
    Replace,
}

pub struct Cache {
    region: Region,
    capacity: u64,
    ring_size: ring::RingSize,
    bucket_count: u64,
    max_entry_len: u64,
    compress_threshold: u64,
}

impl Cache {
    pub fn create(config: &Config) -> Result<Cache, Error> {
        Ok(Cache::over(Region::create(config)?))
    }

    pub fn over(region: Region) -> Cache {
        install_fork_hook();
        let h = region.header();
        Cache {
            capacity: h.ring_capacity,
            ring_size: ring::RingSize::new(h.ring_capacity),
            bucket_count: h.bucket_count,
            max_entry_len: h.max_entry_len,
            compress_threshold: h.compress_threshold,
            region,
        }
    }

    pub fn region(&self) -> &Region {
        &self.region
    }

    /// Largest value (after compression) storable under a key of `key_len` bytes.
    pub fn max_value_len(&self, key_len: usize) -> usize {
        (self.max_entry_len as usize).saturating_sub(HEADER_LEN + key_len)
    }

    fn index(&self) -> &[AtomicU64] {
        self.region.words(self.region.index_offset, self.bucket_count * SLOTS_PER_BUCKET as u64)
    }

    fn namespaces(&self) -> NamespaceTable<'_> {
        let h = self.region.header();
        NamespaceTable {
            words: self.region.words(self.region.ns_table_offset, (NS_BUCKETS * SLOTS_PER_BUCKET) as u64),
            used: self.region.words(self.region.ns_table_offset + (NS_BUCKETS * BUCKET_BYTES) as u64, (NS_BUCKETS * SLOTS_PER_BUCKET) as u64),
            counter: &h.hot.ns_generation.0,
        }
    }

    fn tail(&self) -> u64 {
        self.region.header().hot.tail.0.load(Ordering::Acquire)
    }

    fn epoch(&self) -> u64 {
        self.region.header().hot.epoch.0.load(Ordering::Acquire)
    }

    fn bump(&self, c: Counter) {
        self.region.header().stats.bump(c);
    }

    fn probe(&self, ns: &Namespace, key: &[u8]) -> Probe {
        Probe::new(key_hash(ns.hash, key), self.bucket_count)
    }

    /// The generation readers compare entries with; None = nothing in this namespace is live.
    fn read_generation(&self, ns: &Namespace) -> Option<u64> {
        if ns.is_root() {
            Some(0)
        } else {
            self.namespaces().current(ns.hash)
        }
    }

    fn write_generation(&self, ns: &Namespace) -> u64 {
        if ns.is_root() {
            0
        } else {
            self.namespaces().for_write(ns.hash)
        }
    }

    fn liveness(&self, h: &EntryHeader, generation: Option<u64>) -> Liveness {
        if h.epoch != self.epoch() || generation != Some(h.ns_generation) {
            Liveness::Flushed
        } else if h.expires_at != 0 && u64::from(h.expires_at) <= now_secs() {
            Liveness::Expired
        } else {
            Liveness::Live
        }
    }

    /// Compares the stored key at ring position `pos` with `ns` + `key`, copying it out in small
    /// chunks (never forming a reference into shared memory).
    fn stored_key_equals(&self, pos: u64, ns: &[u8], key: &[u8]) -> bool {
        let ring = self.region.ring_ptr();
        let mut chunk = [0u8; 64];
        let mut at = pos;
        for part in [ns, key] {
            for want in part.chunks(chunk.len()) {
                // SAFETY: the caller checked that the whole entry (header + key) lies within the
                // ring; the copy goes to a stack buffer and is only compared.
                unsafe { ring::copy_out(ring, at, chunk.as_mut_ptr(), want.len()) };
                if &chunk[..want.len()] != want {
                    return false;
                }
                at += want.len() as u64;
            }
        }
        true
    }

    /// `read_key` out of line, for the paths that rarely need it (a failed validation, the
    /// check for a rival insert), so that they do not grow the reads they sit in.
    #[inline(never)]
    fn read_key_cold(&self, word: u64, ns: &[u8], key: &[u8]) -> EntryRead {
        self.read_key(word, ns, key)
    }

    /// Establishes that the slot word points at an entry of this key, without validating the
    /// value: what a plain set needs to pick the slot it replaces. The header is unverified.
    #[inline(always)]
    fn read_key(&self, word: u64, ns: &[u8], key: &[u8]) -> EntryRead {
        let cap = self.capacity;
        let tail = self.tail();
        let offset = word_offset(word, tail);
        if !ring::is_intact(tail, offset, cap) {
            return EntryRead::Other;
        }
        let pos = self.ring_size.pos(offset);
        if pos + HEADER_LEN as u64 > cap {
            return EntryRead::Invalid;
        }
        self.prefetch_ring(pos, (HEADER_LEN + ns.len() + key.len()) as u64);
        let mut h = EntryHeader::default();
        // SAFETY: pos + HEADER_LEN <= cap (checked above); the destination is a local header.
        unsafe { ring::copy_out(self.region.ring_ptr(), pos, (&mut h as *mut EntryHeader).cast::<u8>(), HEADER_LEN) };
        if h.offset != offset || h.total_len() > self.max_entry_len || pos + h.total_len() > cap {
            return EntryRead::Invalid;
        }
        if h.ns_len as usize != ns.len() || h.key_len as usize != ns.len() + key.len() {
            return EntryRead::Other;
        }
        if self.stored_key_equals(pos + HEADER_LEN as u64, ns, key) {
            EntryRead::Same(h)
        } else {
            EntryRead::Other
        }
    }

    /// Reads and validates the whole entry a slot word points at: the head (header + key) is
    /// copied to the stack and compared with the key, the value goes to `sink`, then the
    /// checksum and a re-check that the ring did not reuse the bytes meanwhile decide.
    /// Compressed values arrive in the sink decompressed. `key_hash` is the key's hash, which
    /// the checksum covers in place of the key's bytes once they have compared equal.
    fn read_full<S: ValueSink, const PREFETCHED: bool>(&self, word: u64, ns: &[u8], key: &[u8], key_hash: u64, sink: &mut S) -> EntryRead {
        let cap = self.capacity;
        let tail = self.tail();
        let offset = word_offset(word, tail);
        if !ring::is_intact(tail, offset, cap) {
            return EntryRead::Other;
        }
        let pos = self.ring_size.pos(offset);
        let head_len = HEADER_LEN + ns.len() + key.len();
        // Entries never straddle the ring's end: this key's entry can't start here, so the slot
        // is another key's with the same tag (a shorter key fits where this one would not).
        if pos + head_len as u64 > cap {
            return EntryRead::Other;
        }
        // The whole entry, as long as the slot word says (the value's length is not known yet),
        // unless a batch already asked for it.
        if !PREFETCHED {
            self.prefetch_ring(pos, word_lines(word) * 64);
        }
        let ring = self.region.ring_ptr();
        let mut raw = [MaybeUninit::<u8>::uninit(); HEAD_MAX];
        // SAFETY: pos + head_len <= cap, and head_len <= HEAD_MAX because keys and namespaces
        // are length-checked before any lookup; after the copy the first head_len bytes of
        // `raw` are initialised, and only those are viewed as a slice.
        let head = unsafe {
            ring::copy_out(ring, pos, raw.as_mut_ptr().cast::<u8>(), head_len);
            std::slice::from_raw_parts(raw.as_ptr().cast::<u8>(), head_len)
        };
        // SAFETY: `head` holds at least HEADER_LEN initialised bytes; EntryHeader is plain
        // integers (any bit pattern is valid) and read_unaligned needs no alignment.
        let h = unsafe { std::ptr::read_unaligned(head.as_ptr().cast::<EntryHeader>()) };
        let total = h.total_len();
        if h.offset != offset || total > self.max_entry_len || pos + total > cap {
            return EntryRead::Invalid;
        }
        if h.ns_len as usize != ns.len() || h.key_len as usize != ns.len() + key.len() {
            return EntryRead::Other;
        }
        let (stored_ns, stored_key) = head[HEADER_LEN..].split_at(ns.len());
        // (The root namespace is empty: skip a comparison call on every plain get.)
        if (!ns.is_empty() && stored_ns != ns) || !same_bytes(stored_key, key) {
            return EntryRead::Other;
        }
        let value_pos = pos + head_len as u64;
        let stored_len = h.stored_len as usize;
        let kind = ValueKind(h.kind);
        let valid = if !S::TAKES_VALUE {
            // SAFETY: the value lies within the entry, inside the ring (pos + total <= cap);
            // bytes a writer changes meanwhile only make the hash mismatch.
            let value_hash = unsafe { checksum::hash_in_place(ring.add(value_pos as usize), stored_len) };
            checksum_of(&h, key_hash, value_hash) == h.checksum && self.unchanged_since_read(offset)
        } else if !h.compressed() && stored_len < DIRECT_COPY_MAX {
            let dst = sink.buffer(kind, stored_len);
            // SAFETY: the value lies within the entry (head_len + stored_len <= total, and
            // pos + total <= cap); the sink guarantees `dst` is writable for stored_len bytes
            // and untouched by anyone else, so it cannot overlap the ring.
            let value_hash = unsafe { checksum::copy_hashed(ring.add(value_pos as usize), dst, stored_len) };
            checksum_of(&h, key_hash, value_hash) == h.checksum && self.unchanged_since_read(offset)
        } else {
            with_buffer(&READ_BUF, |stored| {
                stored.clear();
                stored.reserve(stored_len);
                // SAFETY: as above for the ring range; `stored` has capacity for stored_len
                // bytes, all initialised by the copy before set_len.
                let value_hash = unsafe {
                    let value_hash = checksum::copy_hashed(ring.add(value_pos as usize), stored.as_mut_ptr(), stored_len);
                    stored.set_len(stored_len);
                    value_hash
                };
                if checksum_of(&h, key_hash, value_hash) != h.checksum || !self.unchanged_since_read(offset) {
                    return false;
                }
                // Validated, so the lengths can be trusted for the allocation below.
                let out_len = if h.compressed() { h.raw_len as usize } else { stored_len };
                let dst = sink.buffer(kind, out_len);
                if h.compressed() {
                    // SAFETY: the sink guarantees `dst` is writable for out_len bytes and that
                    // nobody else touches them meanwhile; as MaybeUninit they need not be
                    // initialised (decompress_exact succeeds only after writing all of them).
                    let out = unsafe { std::slice::from_raw_parts_mut(dst.cast::<MaybeUninit<u8>>(), out_len) };
                    lz4::decompress_exact(stored, out).is_ok()
                } else {
                    // SAFETY: `dst` is writable for out_len == stored.len() bytes (see above) and
                    // is the sink's memory, so it cannot overlap this thread's buffer.
                    unsafe { std::ptr::copy_nonoverlapping(stored.as_ptr(), dst, out_len) };
                    true
                }
            })
        };
        if !valid {
            sink.discard();
            return EntryRead::Invalid;
        }
        EntryRead::Same(h)
    }

    /// Starts loading the cache lines of `len` ring bytes at `pos`, so that an entry's header,
    /// key and value cost one memory latency rather than one per line in the order the read
    /// reaches them. Whole 128-byte pairs of lines, the unit the CPU's adjacent-line prefetcher
    /// works in: measured faster than prefetching only the entry's own lines (docs/design.md).
    #[inline]
    fn prefetch_ring(&self, pos: u64, len: u64) {
        let ring = self.region.ring_ptr();
        let end = ((pos + len) | 127).min(self.capacity - 1);
        let mut at = pos & !127;
        while at <= end {
            prefetch(ring.wrapping_add(at as usize));
            at += 64;
        }
    }

    /// After copying an entry out: true when the ring has not started reusing its bytes.
    fn unchanged_since_read(&self, offset: u64) -> bool {
        fence(Ordering::Acquire);
        ring::is_intact(self.tail(), offset, self.capacity)
    }

    /// Counts a copy of the entry `word` points at that failed its checks, by cause. The read
    /// found the entry intact before it copied; if the tail has since moved past it, the ring
    /// reused the bytes during the copy (lapped, normal under heavy recycling). If it still has
    /// not, nobody was allowed to write those bytes while they were read, so what was read is
    /// what lies there: the entry is damaged (corrupt).
    #[cold]
    #[inline(never)]
    fn count_validation_failure(&self, word: u64) {
        let tail = self.tail();
        let lapped = !ring::is_intact(tail, word_offset(word, tail), self.capacity);
        self.bump(if lapped { Counter::ValidationLapped } else { Counter::ValidationCorrupt });
    }

    /// Finds the published slot holding `key`, checking every candidate with `read`.
    #[inline(always)]
    fn find<const PREFETCHED: bool>(&self, probe: &Probe, ns: &Namespace, key: &[u8], mut read: impl FnMut(u64) -> EntryRead) -> Lookup {
        let index = self.index();
        // The two candidate buckets are independent cache lines: start loading the second now
        // (a batch has requested both already).
        if !PREFETCHED {
            prefetch(&index[probe.buckets[1] as usize * 4] as *const AtomicU64);
        }
        for slot in probe.slots() {
            let slot = slot as usize;
            let word = index[slot].load(Ordering::Acquire);
            if word == 0 || is_pending(word) || word_tag(word) != probe.tag {
                continue;
            }
            match read(word) {
                EntryRead::Same(header) => return Lookup::Present { slot, word, header, damaged: false },
                EntryRead::Invalid => {
                    self.count_validation_failure(word);
                    if let EntryRead::Same(header) = self.read_key_cold(word, &ns.name, key) {
                        return Lookup::Present { slot, word, header, damaged: true };
                    }
                }
                EntryRead::Other => {}
            }
        }
        Lookup::Absent
    }

    /// Finds `key` and validates its whole entry, the value going to `sink`.
    #[inline(always)]
    fn find_full<S: ValueSink>(&self, probe: &Probe, ns: &Namespace, key: &[u8], sink: &mut S) -> Lookup {
        self.find_full_as::<S, false>(probe, ns, key, sink)
    }

    /// find_full; PREFETCHED when the caller has already requested the key's buckets and entry.
    #[inline(always)]
    fn find_full_as<S: ValueSink, const PREFETCHED: bool>(&self, probe: &Probe, ns: &Namespace, key: &[u8], sink: &mut S) -> Lookup {
        self.find::<PREFETCHED>(probe, ns, key, |word| self.read_full::<S, PREFETCHED>(word, &ns.name, key, probe.hash, sink))
    }

    /// Finds the slot holding `key` without validating the value.
    fn find_key(&self, probe: &Probe, ns: &Namespace, key: &[u8]) -> Lookup {
        self.find::<false>(probe, ns, key, |word| self.read_key(word, &ns.name, key))
    }

    /// Looks `key` up. On a hit the value (decompressed) has been written to `sink` and its
    /// kind is returned; on a miss the sink holds nothing the caller should use.
    pub fn get_into<S: ValueSink>(&self, ns: &Namespace, key: &[u8], sink: &mut S) -> Result<Option<ValueKind>, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        let outcome = self.read_probed::<S, false>(&probe, ns, key, generation, sink);
        // Counted directly rather than through a ReadTally: one read needs no batching, and
        // the tally's loop measured 30-odd instructions more per get.
        match outcome {
            ReadOutcome::Hit(_) => self.bump(Counter::Hits),
            ReadOutcome::Expired => {
                self.bump(Counter::Expired);
                self.bump(Counter::Misses);
            }
            ReadOutcome::Miss => self.bump(Counter::Misses),
        }
        Ok(outcome.kind())
    }

    /// `get_into` that counts neither a hit nor a miss: for a listing showing values, which
    /// is not the application asking for them.
    pub fn peek_into<S: ValueSink>(&self, ns: &Namespace, key: &[u8], sink: &mut S) -> Result<Option<ValueKind>, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        Ok(self.read_probed::<S, false>(&probe, ns, key, generation, sink).kind())
    }

    /// Reads `keys` (all of namespace `ns`) one after the other into `sink`, handing each key
    /// back to `deliver` with its result: the kind on a hit (the value is then in the sink,
    /// which `deliver` empties) or None; `deliver` returns false to stop there. The index
    /// buckets of the key a few places ahead are requested from memory while the current one is
    /// read, so a batch of keys not in the CPU's cache waits for memory about once rather than
    /// once per key; hits and misses are counted once per batch. A key that is empty or too long ends the batch with an error
    /// (callers check keys first). Nothing is allocated here, so a `deliver` that never returns
    /// (a PHP fatal error in unserialize) loses at most the keys still in the look-ahead window.
    pub fn get_each<S: ValueSink, K: AsRef<[u8]>, I: IntoIterator<Item = K>>(
        &self,
        ns: &Namespace,
        keys: I,
        sink: &mut S,
        mut deliver: impl FnMut(K, Option<ValueKind>, &mut S) -> bool,
    ) -> Result<(), Error> {
        let generation = self.read_generation(ns);
        let mut keys = keys.into_iter();
        // Key i waits in window[i % BATCH_LOOKAHEAD], its buckets already requested.
        let mut window: [Option<(K, Probe)>; BATCH_LOOKAHEAD] = std::array::from_fn(|_| None);
        let next_probed = |keys: &mut I::IntoIter| -> Result<Option<(K, Probe)>, Error> {
            let Some(key) = keys.next() else { return Ok(None) };
            check_key(key.as_ref())?;
            let probe = self.probe(ns, key.as_ref());
            self.prefetch_buckets(&probe);
            Ok(Some((key, probe)))
        };
        for slot in window.iter_mut() {
            *slot = next_probed(&mut keys)?;
        }
        let mut tally = ReadTally::default();
        let mut i = 0;
        while let Some((key, probe)) = window[i % BATCH_LOOKAHEAD].take() {
            let refill = next_probed(&mut keys);
            // Halfway through the window the buckets have had time to arrive: request the
            // entries they point at too.
            if let Some((_, halfway)) = &window[(i + BATCH_LOOKAHEAD / 2) % BATCH_LOOKAHEAD] {
                self.prefetch_entries(halfway);
            }
            // The first keys of a batch had no turn halfway through the window: their entries
            // are requested by the read itself.
            let outcome = if i >= BATCH_LOOKAHEAD / 2 {
                self.read_probed::<S, true>(&probe, ns, key.as_ref(), generation, sink)
            } else {
                self.read_probed::<S, false>(&probe, ns, key.as_ref(), generation, sink)
            };
            tally.add(&outcome);
            if !deliver(key, outcome.kind(), sink) {
                break;
            }
            match refill {
                Ok(next) => window[i % BATCH_LOOKAHEAD] = next,
                Err(e) => {
                    tally.count(self);
                    return Err(e);
                }
            }
            i += 1;
        }
        tally.count(self);
        Ok(())
    }

    /// Requests the ring lines of the first entry whose slot word carries this probe's tag.
    fn prefetch_entries(&self, probe: &Probe) {
        let index = self.index();
        for &bucket in &probe.buckets {
            let first = bucket as usize * SLOTS_PER_BUCKET;
            for slot in &index[first..first + SLOTS_PER_BUCKET] {
                let word = slot.load(Ordering::Relaxed);
                if word_tag(word) == probe.tag && !is_pending(word) {
                    // Almost always the key's own entry (a 15-bit tag rarely matches another):
                    // one is enough.
                    let tail = self.tail();
                    let offset = word_offset(word, tail);
                    if ring::is_intact(tail, offset, self.capacity) {
                        self.prefetch_ring(self.ring_size.pos(offset), word_lines(word) * 64);
                    }
                    return;
                }
            }
        }
    }

    fn prefetch_buckets(&self, probe: &Probe) {
        let index = self.index();
        for &b in &probe.buckets {
            prefetch(&index[b as usize * SLOTS_PER_BUCKET] as *const AtomicU64);
        }
    }

    /// One validated read of a probed key (counted by the caller).
    #[inline(always)]
    fn read_probed<S: ValueSink, const PREFETCHED: bool>(
        &self,
        probe: &Probe,
        ns: &Namespace,
        key: &[u8],
        generation: Option<u64>,
        sink: &mut S,
    ) -> ReadOutcome {
        if let Lookup::Present { header, damaged: false, .. } = self.find_full_as::<S, PREFETCHED>(probe, ns, key, sink) {
            let liveness = self.liveness(&header, generation);
            if liveness == Liveness::Live {
                return ReadOutcome::Hit(ValueKind(header.kind));
            }
            sink.discard();
            if liveness == Liveness::Expired {
                return ReadOutcome::Expired;
            }
        }
        ReadOutcome::Miss
    }

    /// Looks `key` up; on a hit `out` holds exactly the value and its kind is returned.
    pub fn get(&self, ns: &Namespace, key: &[u8], out: &mut Vec<u8>) -> Result<Option<ValueKind>, Error> {
        let hit = self.get_into(ns, key, out)?;
        if hit.is_none() {
            out.clear();
        }
        Ok(hit)
    }

    /// Whether `key` is live (no hit/miss counted).
    pub fn exists(&self, ns: &Namespace, key: &[u8]) -> Result<bool, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        Ok(matches!(self.find_full(&probe, ns, key, &mut CheckOnly),
            Lookup::Present { header, damaged: false, .. } if self.liveness(&header, generation) == Liveness::Live))
    }

    /// When a live `key` expires (Unix time in seconds, 0 = never); None when it is not live.
    /// Validated like `exists` (no hit/miss counted).
    pub fn expires_at(&self, ns: &Namespace, key: &[u8]) -> Result<Option<u64>, Error> {
        Ok(self.times(ns, key)?.map(|t| t.expires_at))
    }

    /// The expiry and store time of a live `key`; None when it is not live. Validated like
    /// `exists` (no hit/miss counted).
    pub fn times(&self, ns: &Namespace, key: &[u8]) -> Result<Option<EntryTimes>, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        let generation = self.read_generation(ns);
        Ok(match self.find_full(&probe, ns, key, &mut CheckOnly) {
            Lookup::Present { header, damaged: false, .. } if self.liveness(&header, generation) == Liveness::Live => {
                Some(EntryTimes::of(&header))
            }
            _ => None,
        })
    }

    pub fn set(&self, ns: &Namespace, key: &[u8], kind: ValueKind, value: &[u8], ttl: i64) -> Result<bool, Error> {
        self.store(ns, key, kind, value, ttl, Mode::Set)
    }

    /// Stores only if the key is not live; exactly one of many concurrent adders wins.
    pub fn add(&self, ns: &Namespace, key: &[u8], kind: ValueKind, value: &[u8], ttl: i64) -> Result<bool, Error> {
        self.store(ns, key, kind, value, ttl, Mode::Add)
    }

    /// Stores only if the key is live.
    pub fn replace(&self, ns: &Namespace, key: &[u8], kind: ValueKind, value: &[u8], ttl: i64) -> Result<bool, Error> {
        self.store(ns, key, kind, value, ttl, Mode::Replace)
    }

    /// The expiry and store time of a write with `ttl` into `ns`, from one clock read.
    #[inline(never)]
    fn times_of_write(ttl: i64, ns: &Namespace) -> (u32, u32) {
        let now = now_secs();
        (Self::expiry(ttl, now), if ns.records_store_times { clamp_secs(now) } else { 0 })
    }

    /// The expiry of a value stored at `now` with `ttl`.
    fn expiry(ttl: i64, now: u64) -> u32 {
        match ttl {
            0 => 0,
            // A TTL in the past stores an entry that is already dead, so add/replace keep their
            // meaning and nothing becomes visible.
            t if t < 0 => 1,
            t => clamp_secs(now.saturating_add(t as u64)),
        }
    }

    fn store(&self, ns: &Namespace, key: &[u8], kind: ValueKind, value: &[u8], ttl: i64, mode: Mode) -> Result<bool, Error> {
        check_key(key)?;
        let max_value = self.max_value_len(ns.name.len() + key.len());
        if value.len() > u32::MAX as usize {
            return Err(Error::ValueTooLarge { len: value.len(), max: max_value });
        }
        // Most writes have neither a TTL nor a store time to record: no clock read for them.
        let (expires_at, stored_at) = if ttl == 0 && !ns.records_store_times { (0, 0) } else { Self::times_of_write(ttl, ns) };
        let store_as = |stored: &[u8], flags: u8| {
            if stored.len() > max_value {
                return Err(Error::ValueTooLarge { len: value.len(), max: max_value });
            }
            let draft = Draft {
                ns,
                key,
                kind,
                stored,
                flags,
                raw_len: value.len() as u32,
                expires_at,
                stored_at,
            };
            self.store_draft(&draft, mode)
        };
        if !self.worth_compressing(value) {
            return store_as(value, 0);
        }
        with_buffer(&COMPRESS_BUF, |compress_buf| {
            let (stored, flags) = self.maybe_compress(value, compress_buf);
            store_as(stored, flags)
        })
    }

    fn worth_compressing(&self, value: &[u8]) -> bool {
        self.compress_threshold != 0 && value.len() as u64 >= self.compress_threshold
    }

    fn maybe_compress<'v>(&self, value: &'v [u8], buf: &'v mut Vec<u8>) -> (&'v [u8], u8) {
        if !self.worth_compressing(value) {
            return (value, 0);
        }
        // A long value whose first 4 KiB do not compress (images, archives, encrypted or
        // already compressed data) is stored as it is without compressing all of it (an
        // incompressible 50 KB set: 11.6 -> 8.5 us measured). The price: a long
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

    fn store_draft(&self, d: &Draft<'_>, mode: Mode) -> Result<bool, Error> {
        let probe = self.probe(d.ns, d.key);
        // The entry will most likely go where the tail is now (unless another process appends
        // first): start loading those lines while the lookup below waits for its bucket, so
        // the writes into the ring find them in cache instead of stalling the atomics after.
        let tail_pos = self.ring_size.pos(self.tail());
        self.prefetch_ring(tail_pos, d.entry_len().min(4096));
        let mut appended: Option<Appended> = None;
        let mut rival = RivalWatch::default();
        for _ in 0..MAX_ATTEMPTS {
            // A plain set only needs the slot that holds the key; add/replace decide on liveness,
            // so they validate the current entry fully.
            let lookup = if mode == Mode::Set {
                self.find_key(&probe, d.ns, d.key)
            } else {
                self.find_full(&probe, d.ns, d.key, &mut CheckOnly)
            };
            let live = match &lookup {
                Lookup::Present { header, damaged, .. } => {
                    !damaged && self.liveness(header, self.read_generation(d.ns)) == Liveness::Live
                }
                Lookup::Absent => false,
            };
            match mode {
                Mode::Add if live => return Ok(false),
                Mode::Replace if !live => return Ok(false),
                _ => {}
            }
            let generation = self.write_generation(d.ns);
            let epoch = self.epoch();
            let offset = match appended {
                Some(a) if a.generation == generation && a.epoch == epoch && self.still_fresh(a.offset) => a.offset,
                _ => {
                    let Some(offset) = self.append(d, probe.hash, generation, epoch) else { continue };
                    appended = Some(Appended { offset, generation, epoch });
                    offset
                }
            };
            let word = make_word(probe.tag, offset, d.entry_len());
            let published = match lookup {
                Lookup::Present { slot, word: old, .. } => self.index()[slot]
                    .compare_exchange(old, word, Ordering::AcqRel, Ordering::Relaxed)
                    .is_ok(),
                Lookup::Absent => self.insert_new(&probe, d.ns, d.key, offset, word, &mut rival),
            };
            if published {
                self.bump(Counter::Sets);
                return Ok(true);
            }
            self.bump(Counter::CasRetries);
        }
        Err(Error::Contended)
    }

    /// An appended entry may be published only while it is far from being recycled.
    fn still_fresh(&self, offset: u64) -> bool {
        ring::is_intact(self.tail() + self.max_entry_len, offset, self.capacity)
    }

    /// Appends an entry; None when the ring lapped our reservation before we could write it (a
    /// writer descheduled for a whole lap): then nothing is written and the caller retries.
    fn append(&self, d: &Draft<'_>, key_hash: u64, generation: u64, epoch: u64) -> Option<u64> {
        let key_len = d.ns.name.len() + d.key.len();
        let total = d.entry_len();
        let h = self.region.header();
        let (offset, new_lap) = ring::reserve(&h.hot.tail.0, self.ring_size, total);
        if new_lap {
            self.bump(Counter::Recycles);
            self.clear_dead_words(self.ring_size.split(offset + total).0);
        }
        let mut eh = EntryHeader {
            offset,
            checksum: 0,
            ns_generation: generation,
            expires_at: d.expires_at,
            stored_at: d.stored_at,
            epoch,
            stored_len: d.stored.len() as u32,
            raw_len: d.raw_len,
            key_len: key_len as u16,
            ns_len: d.ns.name.len() as u16,
            kind: d.kind.0,
            flags: d.flags,
            _pad: [0; 2],
        };
        // Hashed from our own copy of the value, never from the ring: a writer lapped while
        // copying must not give the bytes it finds there a valid checksum.
        eh.checksum = checksum_of(&eh, key_hash, checksum::value_hash(d.stored));
        let ring = self.region.ring_ptr();
        let pos = self.ring_size.pos(offset);
        // A stalled writer must not scribble over newer entries that now own these bytes.
        // The check leaves only the copy itself as a window; readers' checksums cover it.
        if !ring::is_intact(self.tail(), offset, self.capacity) {
            return None;
        }
        // [ordering: tail] The reservation that moved the tail past older entries must be
        // visible before any byte of ours lands on theirs: a reader that copied one of our bytes
        // then sees the moved tail in its re-check (unchanged_since_read, after its acquire
        // fence) and drops the copy. Free on x86; a barrier on aarch64. Modelled in
        // tests/loom_protocol.rs.
        fence(Ordering::Release);
        // Counted before the copy: an atomic add waits for every store before it, and the
        // ring stores are the slow ones (the publishing CAS has to wait for them anyway).
        h.stats.add(Counter::ValuesWrittenBytes, total);
        if d.flags & FLAG_COMPRESSED != 0 {
            self.bump(Counter::CompressedCount);
        }
        // Straight from the header, the namespace, the key and the value where they are: the
        // checksum needs none of them side by side, so nothing is staged on the stack.
        let ns_pos = pos + HEADER_LEN as u64;
        let key_pos = ns_pos + d.ns.name.len() as u64;
        let value_pos = key_pos + d.key.len() as u64;
        // SAFETY: the reservation gave us [pos, pos + total) inside the ring (it never wraps)
        // and header + namespace + key + value fit in total; nothing is published until the
        // caller's CAS, so no reader trusts these bytes yet.
        unsafe {
            ring::copy_in(ring, pos, eh.as_bytes());
            ring::copy_in(ring, ns_pos, &d.ns.name);
            ring::copy_in(ring, key_pos, d.key);
            ring::copy_in(ring, value_pos, d.stored);
        }
        Some(offset)
    }

    /// Run by the writer whose reservation started lap `lap` of the ring (exactly one
    /// reservation crosses each lap's start): empties the dead words among that lap's share of
    /// the index, slots `(lap mod laps_per_round) * share ..` and the next `share` (2 with the
    /// default sizes), so that the whole index is swept once per SWEEP_ROUND_BYTES of writes.
    /// Each word is cleared with a CAS from the value that was judged dead, so a word published
    /// meanwhile is left alone, and a writer killed halfway leaves every slot either swept or as
    /// it was. Out of line: it runs once per lap.
    #[cold]
    #[inline(never)]
    fn clear_dead_words(&self, lap: u64) {
        let index = self.index();
        let slots = index.len() as u64;
        let laps_per_round = (SWEEP_ROUND_BYTES / self.capacity).max(1);
        let share = slots.div_ceil(laps_per_round);
        let first = (lap % laps_per_round).saturating_mul(share).min(slots);
        let end = first.saturating_add(share).min(slots);
        for slot in &index[first as usize..end as usize] {
            let word = slot.load(Ordering::Acquire);
            if word == 0 {
                continue;
            }
            // The tail after the word: read before, it could be older than a word published in
            // between, which would then decode to an old offset and look dead.
            let tail = self.tail();
            if !ring::is_intact(tail, word_offset(word, tail), self.capacity) {
                let _ = slot.compare_exchange(word, 0, Ordering::AcqRel, Ordering::Relaxed);
            }
        }
    }

    /// Publishes a key that has no slot yet. The new slot is first made pending (invisible);
    /// then every other candidate slot is checked for the same key. Among concurrent inserts of
    /// one key the lowest ring offset wins, a loser withdraws, and a published copy of the key
    /// makes us withdraw and retry as an update — so a key never has two published slots and
    /// exactly one concurrent `add` succeeds. Returns false when the caller must retry.
    #[allow(clippy::too_many_arguments)]
    fn insert_new(
        &self,
        probe: &Probe,
        ns: &Namespace,
        key: &[u8],
        offset: u64,
        word: u64,
        rival: &mut RivalWatch,
    ) -> bool {
        let index = self.index();
        let cap = self.capacity;
        // Candidate i (0..count) is slot slot_of[i]: the first bucket's four, then the second's
        // (only one bucket when both are the same).
        let mut slot_of = [0usize; 2 * SLOTS_PER_BUCKET];
        let mut count = 0;
        for slot in probe.slots() {
            slot_of[count] = slot as usize;
            count += 1;
        }
        let slot_of = &slot_of[..count];
        let mut words = [0u64; 2 * SLOTS_PER_BUCKET];
        let mut tail = self.load_slots(slot_of, &mut words);
        let is_free = |w: u64, tail: u64| w == 0 || !ring::is_intact(tail, word_offset(w, tail), cap);
        let mut stale_ok = false;
        if !words[..count].iter().any(|&w| is_free(w, tail)) {
            // Full buckets: entries of an older flush epoch are garbage too (reading their
            // epoch costs a ring access, so only now); failing that, try one cuckoo move.
            let epoch = self.epoch();
            stale_ok = words[..count].iter().any(|&w| !is_pending(w) && self.entry_epoch(w, tail) != Some(epoch));
            if !stale_ok && self.relocate_one(probe) {
                tail = self.load_slots(slot_of, &mut words);
            }
        }
        let words = &words[..count];
        let epoch = self.epoch();
        let free = |w: u64| is_free(w, tail) || (stale_ok && !is_pending(w) && self.entry_epoch(w, tail) != Some(epoch));
        // Victim: a free slot (empty, recycled by the ring, or flushed) in the less loaded of
        // the two buckets (two-choice placement keeps buckets even), else the oldest entry.
        // Bit i of `free_slots` says candidate i is free; the first four bits are the first bucket.
        let free_slots = words.iter().enumerate().fold(0u32, |bits, (i, &w)| bits | (u32::from(free(w)) << i));
        let bucket_mask = (1u32 << SLOTS_PER_BUCKET) - 1;
        let in_second = free_slots >> SLOTS_PER_BUCKET;
        let in_first = free_slots & bucket_mask;
        let preferred = if in_second.count_ones() > in_first.count_ones() { in_second << SLOTS_PER_BUCKET } else { in_first };
        // (The preferred bucket has no free slot only when neither has one.)
        let chosen = if preferred != 0 {
            preferred.trailing_zeros() as usize
        } else {
            let oldest = (0..count).min_by_key(|&i| word_offset(words[i], tail)).expect("a probe has at least one slot");
            // The oldest entry may be this very key: a rival insert's, published or pending
            // since we looked the key up (a rival that retried reuses its first append, so its
            // offset can be older than every neighbour's). The scan below skips the victim, so
            // it must be judged here, by the same rules.
            let theirs = words[oldest];
            if word_tag(theirs) == probe.tag && matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
                if !is_pending(theirs) {
                    // Published: the retry finds it and updates it (or, for add, returns false).
                    return false;
                }
                if word_offset(theirs & !PENDING, tail) < offset && !rival.presumed_dead(theirs) {
                    rival.yielded(theirs);
                    std::thread::yield_now();
                    return false;
                }
                // A pending rival with a higher offset loses to us: claiming its slot clears it.
            }
            oldest
        };
        let (victim, old, victim_free) = (slot_of[chosen], words[chosen], free_slots & (1 << chosen) != 0);
        let pending = word | PENDING;
        if index[victim].compare_exchange(old, pending, Ordering::SeqCst, Ordering::Relaxed).is_err() {
            return false;
        }
        if !victim_free && !is_pending(old) {
            self.bump(Counter::Kicks);
        }
        let withdraw = || {
            let _ = index[victim].compare_exchange(pending, 0, Ordering::SeqCst, Ordering::Relaxed);
        };
        for &slot in slot_of.iter().filter(|&&s| s != victim) {
            let theirs = index[slot].load(Ordering::SeqCst);
            if theirs == 0 || word_tag(theirs) != probe.tag {
                continue;
            }
            let tail = self.tail();
            if !matches!(self.read_key_cold(theirs & !PENDING, &ns.name, key), EntryRead::Same(_)) {
                continue;
            }
            if !is_pending(theirs) {
                withdraw();
                return false;
            }
            let their_offset = word_offset(theirs & !PENDING, tail);
            if their_offset < offset && !rival.presumed_dead(theirs) {
                withdraw();
                rival.yielded(theirs);
                std::thread::yield_now();
                return false;
            }
            if index[slot].compare_exchange(theirs, 0, Ordering::SeqCst, Ordering::Relaxed).is_err() {
                withdraw();
                return false;
            }
        }
        index[victim].compare_exchange(pending, word, Ordering::SeqCst, Ordering::Relaxed).is_ok()
    }

    /// Reads the words of `slots` into `words`, then the tail: offsets are rebuilt relative to
    /// the tail, so it must be read after the words (a word published after an older tail
    /// reading would decode to a bogus offset).
    #[inline(always)]
    fn load_slots(&self, slots: &[usize], words: &mut [u64; 2 * SLOTS_PER_BUCKET]) -> u64 {
        let index = self.index();
        for (w, &slot) in words.iter_mut().zip(slots) {
            *w = index[slot].load(Ordering::Acquire);
        }
        self.tail()
    }

    /// The flush epoch an entry was written under, read straight from its header.
    fn entry_epoch(&self, word: u64, tail: u64) -> Option<u64> {
        let offset = word_offset(word, tail);
        let pos = self.ring_size.pos(offset) + EPOCH_FIELD as u64;
        if !ring::is_intact(tail, offset, self.capacity) || pos + 8 > self.capacity {
            return None;
        }
        let mut e = [0u8; 8];
        // SAFETY: pos + 8 <= capacity; the copy goes to a local array.
        unsafe { ring::copy_out(self.region.ring_ptr(), pos, e.as_mut_ptr(), 8) };
        Some(u64::from_le_bytes(e))
    }

    /// The header of the entry a slot word points at, with its virtual offset and ring
    /// position: None unless the entry is still intact, its header fits before the ring's end
    /// and the header names that offset. Nothing else of the header is checked yet.
    fn resident_header(&self, word: u64) -> Option<(u64, u64, EntryHeader)> {
        let tail = self.tail();
        let offset = word_offset(word, tail);
        if !ring::is_intact(tail, offset, self.capacity) {
            return None;
        }
        let pos = self.ring_size.pos(offset);
        if pos + HEADER_LEN as u64 > self.capacity {
            return None;
        }
        let mut h = EntryHeader::default();
        // SAFETY: pos + HEADER_LEN <= capacity (checked above); the destination is a local
        // header of plain integers, for which any bytes are a valid value.
        unsafe { ring::copy_out(self.region.ring_ptr(), pos, (&mut h as *mut EntryHeader).cast::<u8>(), HEADER_LEN) };
        (h.offset == offset).then_some((offset, pos, h))
    }

    /// The probe of the key stored at a slot word (read back from the ring), if it still checks out.
    fn probe_of_resident(&self, word: u64, buf: &mut Vec<u8>) -> Option<Probe> {
        let cap = self.capacity;
        let (_, pos, h) = self.resident_header(word)?;
        let ring = self.region.ring_ptr();
        let key_len = h.key_len as usize;
        if h.ns_len > h.key_len || pos + (HEADER_LEN + key_len) as u64 > cap {
            return None;
        }
        buf.clear();
        buf.reserve(key_len);
        // SAFETY: the key lies within the ring (checked above); `buf` has room for key_len bytes.
        unsafe {
            ring::copy_out(ring, pos + HEADER_LEN as u64, buf.as_mut_ptr(), key_len);
            buf.set_len(key_len);
        }
        let (ns, key) = buf.split_at(h.ns_len as usize);
        let probe = Probe::new(key_hash(namespace_hash(ns), key), self.bucket_count);
        (probe.tag == word_tag(word)).then_some(probe)
    }

    /// One cuckoo step: moves a resident of the key's two full buckets to its own other bucket
    /// when that has room, so the insert needs no kick. The move goes through a pending slot,
    /// so the resident is never published twice (at worst it is briefly missing).
    fn relocate_one(&self, probe: &Probe) -> bool {
        let index = self.index();
        let cap = self.capacity;
        for from in probe.slots().map(|s| s as usize) {
            let word = index[from].load(Ordering::Acquire);
            if word == 0 || is_pending(word) {
                continue;
            }
            let Some(theirs) = with_buffer(&READ_BUF, |buf| self.probe_of_resident(word, buf)) else { continue };
            let here = from as u64 / 4;
            if !theirs.buckets.contains(&here) {
                continue;
            }
            let other = if theirs.buckets[0] == here { theirs.buckets[1] } else { theirs.buckets[0] };
            if probe.buckets.contains(&other) {
                continue;
            }
            for to in (other * 4..other * 4 + 4).map(|s| s as usize) {
                let free = index[to].load(Ordering::Acquire);
                let tail = self.tail();
                if free != 0 && ring::is_intact(tail, word_offset(free, tail), cap) {
                    continue;
                }
                if index[to].compare_exchange(free, word | PENDING, Ordering::SeqCst, Ordering::Relaxed).is_err() {
                    return false;
                }
                if index[from].compare_exchange(word, 0, Ordering::SeqCst, Ordering::Relaxed).is_err() {
                    let _ = index[to].compare_exchange(word | PENDING, 0, Ordering::SeqCst, Ordering::Relaxed);
                    return false;
                }
                return index[to].compare_exchange(word | PENDING, word, Ordering::SeqCst, Ordering::Relaxed).is_ok();
            }
        }
        false
    }

    /// Removes `key`; true when a live entry was removed.
    pub fn delete(&self, ns: &Namespace, key: &[u8]) -> Result<bool, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        // The value is validated too, though the slot is emptied either way: delete reports a
        // key live exactly when get, exists, add and replace would see it live (an entry whose
        // value fails its checksum is not). The value is hashed where it lies, never copied.
        for _ in 0..MAX_ATTEMPTS {
            match self.find_full(&probe, ns, key, &mut CheckOnly) {
                Lookup::Absent => return Ok(false),
                Lookup::Present { slot, word, header, damaged } => {
                    let live = !damaged && self.liveness(&header, self.read_generation(ns)) == Liveness::Live;
                    if self.index()[slot].compare_exchange(word, 0, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                        if live {
                            self.bump(Counter::Deletes);
                        }
                        return Ok(live);
                    }
                }
            }
        }
        Err(Error::Contended)
    }

    /// Adds `delta` to a live integer; None when the key is missing or not an integer.
    pub fn incr(&self, ns: &Namespace, key: &[u8], delta: i64) -> Result<Option<i64>, Error> {
        self.update_int(ns, key, |old| Some(old.wrapping_add(delta)))
    }

    /// Sets a live integer to `new` only if it currently equals `old`.
    pub fn cas(&self, ns: &Namespace, key: &[u8], old: i64, new: i64) -> Result<bool, Error> {
        Ok(self.update_int(ns, key, |cur| (cur == old).then_some(new))?.is_some())
    }

    /// Read–append–CAS loop on an integer entry; `f` returns None to leave it unchanged.
    fn update_int(&self, ns: &Namespace, key: &[u8], f: impl Fn(i64) -> Option<i64>) -> Result<Option<i64>, Error> {
        check_key(key)?;
        let probe = self.probe(ns, key);
        // As in store_draft: the new entry will most likely go where the tail is now.
        self.prefetch_ring(self.ring_size.pos(self.tail()), entry_len(ns.name.len() + key.len(), 8));
        let mut sink = LocalSink::new();
        for _ in 0..MAX_ATTEMPTS {
            let Lookup::Present { slot, word, header, damaged: false } = self.find_full(&probe, ns, key, &mut sink) else {
                return Ok(None);
            };
            let Ok(bytes) = <[u8; 8]>::try_from(sink.bytes()) else { return Ok(None) };
            if self.liveness(&header, self.read_generation(ns)) != Liveness::Live
                || ValueKind(header.kind) != ValueKind::INT
                || header.compressed()
            {
                return Ok(None);
            }
            let current = i64::from_le_bytes(bytes);
            let Some(next) = f(current) else { return Ok(None) };
            let bytes = next.to_le_bytes();
            let draft = Draft {
                ns,
                key,
                kind: ValueKind::INT,
                stored: &bytes,
                flags: 0,
                raw_len: 8,
                // An increment keeps the entry's expiry and store time, as APCu's does.
                expires_at: header.expires_at,
                stored_at: header.stored_at,
            };
            let Some(offset) = self.append(&draft, probe.hash, header.ns_generation, header.epoch) else { continue };
            let new_word = make_word(probe.tag, offset, draft.entry_len());
            if self.index()[slot].compare_exchange(word, new_word, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
                self.bump(Counter::Sets);
                return Ok(Some(next));
            }
            self.bump(Counter::CasRetries);
        }
        Err(Error::Contended)
    }

    /// Invalidates every entry of every namespace in O(1).
    pub fn flush_all(&self) {
        self.region.header().hot.epoch.0.fetch_add(1, Ordering::AcqRel);
        self.bump(Counter::Flushes);
    }

    /// The namespace's current generation: a number that changes on every flush of it (for the
    /// root namespace, on every full flush) and is never reused, so callers can build names
    /// that a flush retires — e.g. a site namespace whose generation is part of its per-group
    /// namespace names. Creates the namespace's entry in the namespace table if needed.
    pub fn namespace_generation(&self, ns: &Namespace) -> u64 {
        if ns.is_root() {
            self.epoch()
        } else {
            self.namespaces().for_write(ns.hash)
        }
    }

    /// Invalidates one namespace in O(1); the root namespace means everything.
    pub fn flush_namespace(&self, ns: &Namespace) {
        if ns.is_root() {
            self.flush_all();
        } else {
            self.namespaces().flush(ns.hash);
            self.bump(Counter::NamespaceFlushes);
        }
    }

    /// Counters and sizes. Counting used slots reads the whole index (O(slots)).
    pub fn stats(&self) -> Stats {
        let h = self.region.header();
        let s = &h.stats;
        let (lapped, corrupt) = (s.sum(Counter::ValidationLapped), s.sum(Counter::ValidationCorrupt));
        let epoch = self.epoch();
        // Exact up to 4M slots (32 MiB of index); beyond that an evenly spread sample of 1M
        // slots, scaled, so a status page never walks (and faults in) a huge table.
        let index = self.index();
        let step = if index.len() <= EXACT_SLOT_COUNT_LIMIT { 1 } else { index.len() / SAMPLED_SLOTS };
        let sampled = self
            .index()
            .iter()
            .step_by(step)
            .map(|w| w.load(Ordering::Acquire))
            .filter(|&w| {
                if w == 0 || is_pending(w) {
                    return false;
                }
                self.entry_epoch(w, self.tail()) == Some(epoch)
            })
            .count() as u64;
        let slots_used = (sampled * step as u64).min(index.len() as u64);
        Stats {
            hits: s.sum(Counter::Hits),
            misses: s.sum(Counter::Misses),
            sets: s.sum(Counter::Sets),
            deletes: s.sum(Counter::Deletes),
            kicks: s.sum(Counter::Kicks),
            recycles: s.sum(Counter::Recycles),
            expired: s.sum(Counter::Expired),
            validation_failures: lapped.wrapping_add(corrupt),
            validation_lapped: lapped,
            validation_corrupt: corrupt,
            compressed_count: s.sum(Counter::CompressedCount),
            values_written_bytes: s.sum(Counter::ValuesWrittenBytes),
            flushes: s.sum(Counter::Flushes),
            namespace_flushes: s.sum(Counter::NamespaceFlushes),
            cas_retries: s.sum(Counter::CasRetries),
            slots_total: self.bucket_count * SLOTS_PER_BUCKET as u64,
            slots_used,
            slots_used_estimated: step > 1,
            keys_memory_size: h.keys_memory_size,
            values_memory_size: h.values_memory_size,
            ring_used: (self.tail() - 64).min(self.capacity),
            max_value_size: self.max_value_len(1) as u64,
            compress_threshold: h.compress_threshold,
            start_time: h.start_time,
            namespaces_used: self.namespaces().used(),
        }
    }
}

/// Test/fuzz hooks (feature `fuzzing` only; nothing in the engine calls them).
#[cfg(feature = "fuzzing")]
impl Cache {
    /// The two index buckets `key` may live in (slots `4 * bucket .. 4 * bucket + 4` of the
    /// index area `Region::fuzz_layout` reports), so a test can fill exactly those buckets.
    pub fn fuzz_candidate_buckets(&self, ns: &Namespace, key: &[u8]) -> [u64; 2] {
        self.probe(ns, key).buckets
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
        assert!(tail.is_multiple_of(8) && tail >= hot.load(Ordering::Acquire), "the tail only grows, in steps of 8");
        hot.store(tail, Ordering::Release);
    }
}

/// A value ready to append: everything but the offset, generation and epoch.
struct Draft<'a> {
    ns: &'a Namespace,
    key: &'a [u8],
    kind: ValueKind,
    stored: &'a [u8],
    flags: u8,
    raw_len: u32,
    expires_at: u32,
    stored_at: u32,
}

impl Draft<'_> {
    fn entry_len(&self) -> u64 {
        entry_len(self.ns.name.len() + self.key.len(), self.stored.len())
    }
}

#[derive(Clone, Copy)]
struct Appended {
    offset: u64,
    generation: u64,
    epoch: u64,
}

#[cfg(test)]
mod tests {
    use super::same_bytes;

    /// Agrees with `==` for every length up to 40 and a difference at every position.
    #[test]
    fn same_bytes_is_slice_equality() {
        for n in 0..=40usize {
            let a: Vec<u8> = (0..n as u8).map(|i| i.wrapping_mul(37) ^ 0x5a).collect();
            assert!(same_bytes(&a, &a.clone()), "len {n}");
            for at in 0..n {
                for flip in [0x01u8, 0x80] {
                    let mut b = a.clone();
                    b[at] ^= flip;
                    assert!(!same_bytes(&a, &b), "len {n}, byte {at} ^ {flip:#x}");
                }
            }
            let mut longer = a.clone();
            longer.push(0);
            assert!(!same_bytes(&a, &longer) && !same_bytes(&longer, &a), "len {n} vs {}", n + 1);
        }
    }
}
