//! The mapped block of shared memory and its layout.
//!
//! Invariant: a `Region` always points at a mapping of `len` bytes whose header was written by
//! `Region::create` (or validated by `Region::attach`), and every byte of it is only ever accessed
//! through atomics or raw-pointer copies, never through a `&mut` reference, because other
//! processes write it concurrently. The layout stores offsets only, never pointers, so the same
//! bytes can later be mapped at another address (a named, file-backed region).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::error::Error;
use super::index::BUCKET_BYTES;
use super::stats::StatsBlock;

pub(crate) const MAGIC: u64 = 0x5348_4d43_4143_4845; // "SHMCACHE"
pub const LAYOUT_VERSION: u32 = 14;
pub(crate) const HEADER_LEN: usize = 4096;
/// Namespace table: buckets of 4 words, so 16,384 namespaces can hold a generation at once.
pub(crate) const NS_BUCKETS: usize = 4096;
pub(crate) const NS_BUCKET_WORDS: usize = 4;
pub(crate) const NS_BUCKET_BYTES: usize = NS_BUCKET_WORDS * 8;

pub const MIN_KEYS_MEMORY: u64 = 1024;
pub const MAX_KEYS_MEMORY: u64 = 16 << 30;
pub const MIN_VALUES_MEMORY: u64 = 64 << 10;
pub const MAX_VALUES_MEMORY: u64 = 64 << 30;

/// Sizes chosen by the operator (the `shmcache.*` INI directives).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Config {
    /// Bytes for the key index; one slot is 8 bytes.
    pub keys_memory_size: u64,
    /// Bytes for the value ring.
    pub values_memory_size: u64,
    /// Values at least this long are LZ4-compressed; 0 disables compression.
    pub compress_threshold: u64,
}

impl Default for Config {
    fn default() -> Self {
        Config { keys_memory_size: 4 << 20, values_memory_size: 64 << 20, compress_threshold: 4096 }
    }
}

impl Config {
    pub fn validate(&self) -> Result<(), Error> {
        if !(MIN_KEYS_MEMORY..=MAX_KEYS_MEMORY).contains(&self.keys_memory_size) {
            return Err(Error::InvalidConfig(format!(
                "keys_memory_size must be between {MIN_KEYS_MEMORY} bytes and {} GiB, got {}",
                MAX_KEYS_MEMORY >> 30,
                self.keys_memory_size
            )));
        }
        if !(MIN_VALUES_MEMORY..=MAX_VALUES_MEMORY).contains(&self.values_memory_size) {
            return Err(Error::InvalidConfig(format!(
                "values_memory_size must be between {} KiB and {} GiB, got {}",
                MIN_VALUES_MEMORY >> 10,
                MAX_VALUES_MEMORY >> 30,
                self.values_memory_size
            )));
        }
        Ok(())
    }

    /// The ring's size: values_memory_size rounded down to a multiple of 8. Entries are 8-byte
    /// multiples and a slot word stores offset / 8, so every entry must start 8-aligned, also
    /// after a reservation skips the rest of a lap (to `cap - pos` further on). (The ring's bytes
    /// are copied in and out by ring.rs `RingView`, in vector moves or `rep movsb`.)
    pub fn ring_capacity(&self) -> u64 {
        self.values_memory_size & !7
    }

    /// Largest entry (header + key + stored value) the ring accepts: a quarter of the ring (at
    /// most 2 GiB), so one value can never wipe out most of the cache.
    pub fn max_entry_len(&self) -> u64 {
        (self.values_memory_size / 4).min(1 << 31) & !7
    }
}

/// Fixed fields of the region header. Immutable after creation except the atomics.
#[repr(C)]
pub(crate) struct Header {
    magic: u64,
    layout_version: u32,
    /// Named regions: 0, or the pid of the process replacing this file (see named.rs). At
    /// offset 12 in every layout, so a build of any version can retire a file of any other.
    pub retired_by: AtomicU32,
    pub total_len: u64,
    pub keys_memory_size: u64,
    pub values_memory_size: u64,
    pub compress_threshold: u64,
    pub bucket_count: u64,
    /// values_memory_size rounded down to a multiple of 8 (see `Config::ring_capacity`).
    pub ring_capacity: u64,
    pub max_entry_len: u64,
    pub start_time: u64,
    pub ns_table_offset: u64,
    pub index_offset: u64,
    pub ring_offset: u64,
    pub hot: HotWords,
    pub stats: StatsBlock,
    /// Words a layer above the cache keeps for the processes of this region (see
    /// `Cache::coordination_words`); zero in a new region.
    pub coordination: Padded<[AtomicU64; COORDINATION_WORDS]>,
}

/// How many coordination words a region has: the layout's share of them. What each one means is
/// the tier's, and it allocates them all in one place (`tier/positions.rs`, which checks this
/// count). (Six since issue 31: the fifth and sixth were padding of the 128-byte block before,
/// zero in every region, so the header's layout did not change.)
pub const COORDINATION_WORDS: usize = 6;

/// Words every writer touches, each on its own cache line.
#[repr(C)]
pub(crate) struct HotWords {
    /// Next free virtual offset of the ring; only ever grows.
    pub tail: Padded<AtomicU64>,
    /// The flush epochs (one line: a read of a local namespace's entry may load both).
    pub epoch: Padded<Epochs>,
    /// Source of fresh namespace generations (never reused, so a lost generation can't revive).
    pub ns_generation: Padded<AtomicU64>,
}

/// The two flush epochs (layout 11). An entry is live only while the epoch it was written under
/// is current: `all` for every namespace but the local ones (`Namespace::local`), whose entries
/// carry `local` instead, marked (`cache::LOCAL_EPOCH`). `Cache::flush_all` advances both,
/// `Cache::flush_all_but_local` (a tier reset) only `all`.
#[repr(C)]
pub(crate) struct Epochs {
    pub all: AtomicU64,
    pub local: AtomicU64,
    /// The ring's tail when the last flush advanced an epoch (0: never flushed), so an insert
    /// looking for a dead entry to reuse knows that entries at or past it were written after
    /// the flush, without reading their epoch from the ring (insert.rs). Only a hint: a
    /// writer that read the old epoch just before a flush can append a dead entry past it,
    /// which is then evicted as a live one would be. (Padding of this 128-byte block before,
    /// zero in every region: the header's layout did not change.)
    pub flush_tail: AtomicU64,
}

#[repr(C, align(128))]
pub(crate) struct Padded<T>(pub T);

const _: () = assert!(std::mem::size_of::<Header>() <= HEADER_LEN);
// The coordination words fit the one aligned block they always had.
const _: () = assert!(std::mem::size_of::<Padded<[AtomicU64; COORDINATION_WORDS]>>() == 128);

pub struct Region {
    base: *mut u8,
    len: usize,
    owns_mapping: bool,
    /// The file of a named region (kept open to tell when it was unlinked or replaced).
    file: Option<std::fs::File>,
    /// Where the areas are, copied from the header once it was written or validated: a stray
    /// write into the shared header must not be able to send later accesses out of bounds.
    pub(crate) ns_table_offset: u64,
    pub(crate) index_offset: u64,
    ring_offset: u64,
}

// SAFETY: the region is designed for concurrent use by many processes; all access to the shared
// bytes goes through atomics or validated raw copies, so sharing it between threads is as sound
// as sharing it between processes.
unsafe impl Send for Region {}
// SAFETY: as for Send: no method hands out a `&mut` into the mapping.
unsafe impl Sync for Region {}

struct Layout {
    bucket_count: u64,
    ns_table_offset: u64,
    index_offset: u64,
    ring_offset: u64,
    total_len: u64,
}

fn layout(config: &Config) -> Layout {
    let bucket_count = (config.keys_memory_size / BUCKET_BYTES as u64).max(1);
    // Each bucket is one cache line: the index starts on a page.
    let ns_table_offset = HEADER_LEN as u64;
    // The namespace words, then their last-use stamps (namespace.rs).
    let index_offset = (ns_table_offset + 2 * (NS_BUCKETS * NS_BUCKET_BYTES) as u64 + 4095) & !4095;
    let ring_offset = index_offset + bucket_count * BUCKET_BYTES as u64;
    let ring_offset = (ring_offset + 4095) & !4095;
    let total_len = ring_offset + config.values_memory_size;
    Layout { bucket_count, ns_table_offset, index_offset, ring_offset, total_len }
}

/// Asks for transparent huge pages on a shared mapping: with 2 MiB pages, a lookup's random
/// line in the index or the ring rarely misses the TLB. The kernel gives them to shared memory
/// only where `/sys/kernel/mm/transparent_hugepage/shmem_enabled` is `advise` (or `always`,
/// `within_size`), or for a file on a tmpfs mounted with `huge=` (docs/operations.md); elsewhere
/// the advice is ignored, and so is a failure (nothing depends on it).
///
/// # Safety
/// `ptr` must be the start of a mapping of `len` bytes this process made.
pub(crate) unsafe fn advise_huge_pages(ptr: *mut u8, len: usize) {
    // SAFETY: madvise only changes how the kernel backs the caller's own mapping.
    unsafe { libc::madvise(ptr.cast(), len, libc::MADV_HUGEPAGE) };
}

/// Faults every page of a fresh anonymous shared mapping in (after `advise_huge_pages`, so
/// that the pages faulted in can be huge ones, which MAP_POPULATE at mmap time would not give).
///
/// # Safety
/// `ptr` must be a fresh, zero-filled, writable mapping of `len` bytes that no other process
/// uses yet.
unsafe fn populate_pages(ptr: *mut u8, len: usize) {
    const MADV_POPULATE_WRITE: libc::c_int = 23;
    // SAFETY: populating the caller's fresh mapping; no byte changes.
    if unsafe { libc::madvise(ptr.cast(), len, MADV_POPULATE_WRITE) } == 0 {
        return;
    }
    // Kernels before 5.14: write a zero into each page, which it already holds.
    for at in (0..len).step_by(4096) {
        // SAFETY: `at < len`, inside the caller's writable mapping that nobody else uses yet.
        unsafe { std::ptr::write_volatile(ptr.add(at), 0) };
    }
}

impl Region {
    /// Maps a fresh anonymous `MAP_SHARED` region: processes forked afterwards share it. With
    /// `populate`, every page is faulted in now, in this process: otherwise each first write to
    /// a ring page during the first lap costs a page fault in whichever worker makes it
    /// (most of the time of a set on a fresh region). A process that will not fork (the CLI)
    /// leaves pages to be faulted in as it uses them: populating the default sizes delayed a
    /// CLI process's first line many times over (docs/benchmarks.md, "Figures behind code
    /// comments").
    pub fn create(config: &Config, populate: bool) -> Result<Region, Error> {
        config.validate()?;
        let len = Region::len_for(config)?;
        // SAFETY: a fresh anonymous mapping; no existing memory is affected. MAP_SHARED (not
        // memmap2's private anonymous map) is what makes the pages shared across fork().
        let ptr = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        if ptr == libc::MAP_FAILED {
            return Err(Error::Map(format!(
                "mmap of {len} bytes failed: {}",
                std::io::Error::last_os_error()
            )));
        }
        // SAFETY: `ptr` is the fresh mapping of `len` bytes made above, seen by no one else.
        unsafe {
            advise_huge_pages(ptr.cast(), len);
            if populate {
                populate_pages(ptr.cast(), len);
            }
        }
        // SAFETY: a fresh zero-filled mapping of `len` bytes that no other process can see.
        Ok(unsafe { Region::initialise(ptr.cast(), len, config, None) })
    }

    /// Bytes a region of `config` maps.
    pub(crate) fn len_for(config: &Config) -> Result<usize, Error> {
        usize::try_from(layout(config).total_len)
            .map_err(|_| Error::InvalidConfig("region larger than the address space".into()))
    }

    /// Writes the header of a fresh region into `base` and takes over the mapping (unmapped on
    /// drop), and `file` when it is file-backed.
    ///
    /// # Safety
    /// `base` must be a page-aligned `MAP_SHARED` mapping of `len = len_for(config)` zero-filled
    /// bytes, made by this process and not yet visible to any other (nothing attaches to it
    /// before this returns); `config` must be valid.
    pub(crate) unsafe fn initialise(
        base: *mut u8,
        len: usize,
        config: &Config,
        file: Option<std::fs::File>,
    ) -> Region {
        let lay = layout(config);
        let start_time = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_secs())
            .unwrap_or(0);
        // SAFETY: the mapping is fresh, zero-filled, at least HEADER_LEN bytes long and page
        // aligned; no other process can see it yet, so plain writes to the header are fine.
        unsafe {
            let h = base.cast::<Header>();
            (*h).magic = MAGIC;
            (*h).layout_version = LAYOUT_VERSION;
            (*h).total_len = lay.total_len;
            (*h).keys_memory_size = config.keys_memory_size;
            (*h).values_memory_size = config.values_memory_size;
            (*h).compress_threshold = config.compress_threshold;
            (*h).bucket_count = lay.bucket_count;
            (*h).ring_capacity = config.ring_capacity();
            (*h).max_entry_len = config.max_entry_len();
            (*h).start_time = start_time;
            (*h).ns_table_offset = lay.ns_table_offset;
            (*h).index_offset = lay.index_offset;
            (*h).ring_offset = lay.ring_offset;
            // Virtual offsets start past 0 so that no published slot word is ever 0 (= empty).
            (*h).hot.tail.0.store(64, Ordering::Relaxed);
            (*h).hot.epoch.0.all.store(1, Ordering::Relaxed);
            (*h).hot.epoch.0.local.store(1, Ordering::Relaxed);
            (*h).hot.ns_generation.0.store(1, Ordering::Relaxed);
        }
        std::sync::atomic::fence(Ordering::SeqCst);
        Region {
            base,
            len,
            owns_mapping: true,
            file,
            ns_table_offset: lay.ns_table_offset,
            index_offset: lay.index_offset,
            ring_offset: lay.ring_offset,
        }
    }

    /// Uses an existing mapping (e.g. a file another process created) after validating its header.
    ///
    /// # Safety
    /// `base` must point at `len` readable and writable bytes that stay mapped for the life of the
    /// returned value and are only accessed through shmcache.
    pub unsafe fn attach(base: *mut u8, len: usize) -> Result<Region, Error> {
        if len < HEADER_LEN || base.is_null() || !(base as usize).is_multiple_of(4096) {
            return Err(Error::BadRegion("mapping too small or misaligned".into()));
        }
        // SAFETY: the caller guarantees `len >= HEADER_LEN` readable bytes at `base`; the fixed
        // fields are only written before a region is shared.
        let h = unsafe { &*base.cast::<Header>() };
        if h.magic != MAGIC {
            return Err(Error::BadRegion("bad magic".into()));
        }
        if h.layout_version != LAYOUT_VERSION {
            return Err(Error::BadRegion(format!(
                "layout version {} (expected {LAYOUT_VERSION})",
                h.layout_version
            )));
        }
        let config = Config {
            keys_memory_size: h.keys_memory_size,
            values_memory_size: h.values_memory_size,
            compress_threshold: h.compress_threshold,
        };
        config.validate().map_err(|e| Error::BadRegion(e.to_string()))?;
        let lay = layout(&config);
        if lay.total_len != h.total_len
            || lay.total_len > len as u64
            || lay.bucket_count != h.bucket_count
            || lay.index_offset != h.index_offset
            || lay.ring_offset != h.ring_offset
            || h.ring_capacity != config.ring_capacity()
            || h.max_entry_len != config.max_entry_len()
        {
            return Err(Error::BadRegion("sizes in the header do not match the mapping".into()));
        }
        Ok(Region {
            base,
            len,
            owns_mapping: false,
            file: None,
            ns_table_offset: lay.ns_table_offset,
            index_offset: lay.index_offset,
            ring_offset: lay.ring_offset,
        })
    }

    /// A validated region over a mapping this process made of a named region's file: the
    /// mapping is unmapped and the file closed on drop.
    pub(crate) fn adopt(mut self, file: std::fs::File) -> Region {
        self.owns_mapping = true;
        self.file = Some(file);
        self
    }

    /// The sizes the region was created with.
    pub fn config(&self) -> Config {
        let h = self.header();
        Config {
            keys_memory_size: h.keys_memory_size,
            values_memory_size: h.values_memory_size,
            compress_threshold: h.compress_threshold,
        }
    }

    /// For a named region: whether its file is no longer linked at any path (it was replaced
    /// or removed by hand), so this process should attach again. One fstat.
    pub fn file_unlinked(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        self.file.as_ref().is_some_and(|f| f.metadata().map_or(true, |m| m.nlink() == 0))
    }

    pub(crate) fn header(&self) -> &Header {
        // SAFETY: `base` points at a validated header (type invariant); the non-atomic fields are
        // never written after creation, and the atomics are accessed through shared references.
        unsafe { &*self.base.cast::<Header>() }
    }

    /// Pointer to `count` 64-bit words at byte `offset` of the region.
    pub(crate) fn words(&self, offset: u64, count: u64) -> &[AtomicU64] {
        debug_assert!(offset.is_multiple_of(8) && offset + count * 8 <= self.len as u64);
        // SAFETY: offsets come from the validated layout, are 8-aligned and in bounds; AtomicU64
        // has the layout of u64 and shared atomic access from many processes is the intended use.
        unsafe {
            std::slice::from_raw_parts(
                self.base.add(offset as usize).cast::<AtomicU64>(),
                count as usize,
            )
        }
    }

    /// Raw pointer to the ring's first byte; callers bound every access by the ring capacity.
    pub(crate) fn ring_ptr(&self) -> *mut u8 {
        // SAFETY: ring_offset was computed (or validated) by the layout, inside the mapping.
        unsafe { self.base.add(self.ring_offset as usize) }
    }

    pub fn mapped_len(&self) -> usize {
        self.len
    }
}

/// Test/fuzz hook (feature `fuzzing` only, no effect on normal builds): where the areas of the
/// mapping are, so a fuzzer can corrupt chosen bytes of a live region.
#[cfg(feature = "fuzzing")]
#[derive(Debug, Clone, Copy)]
pub struct FuzzLayout {
    /// Base address of the mapping.
    pub base: *mut u8,
    /// Length of the mapping in bytes.
    pub len: usize,
    /// Byte offset and length of the namespace table.
    pub ns_table: (usize, usize),
    /// Byte offset and length of the key index.
    pub index: (usize, usize),
    /// Byte offset and length of the value ring.
    pub ring: (usize, usize),
}

#[cfg(feature = "fuzzing")]
impl Region {
    /// Test/fuzz hook: the mapping's base pointer, length and area offsets. Writing through
    /// `base` is only meant for corruption tests; nothing in the engine calls this.
    pub fn fuzz_layout(&self) -> FuzzLayout {
        let h = self.header();
        FuzzLayout {
            base: self.base,
            len: self.len,
            ns_table: (h.ns_table_offset as usize, NS_BUCKETS * NS_BUCKET_BYTES),
            index: (h.index_offset as usize, (h.bucket_count as usize) * BUCKET_BYTES),
            ring: (h.ring_offset as usize, h.ring_capacity as usize),
        }
    }
}

impl Drop for Region {
    fn drop(&mut self) {
        if self.owns_mapping {
            // SAFETY: we created this mapping with exactly this base and length, and dropping the
            // Region means this process no longer uses it (forked children keep their own).
            unsafe {
                libc::munmap(self.base.cast(), self.len);
            }
        }
    }
}
