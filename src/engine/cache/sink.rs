//! Where a read puts the value: the `ValueSink` trait and the engine's own sinks.
//!
//! Invariant: a sink is asked for memory only after the key has compared equal, and that memory
//! is the sink's own (never the ring), so a value lands in it with one copy; `discard` is called
//! whenever the copy then fails validation.

use std::cell::Cell;

use super::ValueKind;

thread_local! {
    /// Larger values read only to be validated (LocalSink).
    static LOCAL_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
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
    /// hashed from a scratch copy and `buffer` is never called.
    const TAKES_VALUE: bool = true;
    /// Whether a read into this sink first tries the path of a short plain string
    /// (`read_full_at`): the values of gets mostly are; an update's (incr, decr, cas) are
    /// integers, for which the test would only add instructions.
    const SHORT_STRINGS_FIRST: bool = true;
    fn buffer(&mut self, kind: ValueKind, len: usize) -> *mut u8;
    fn discard(&mut self);
}

/// For operations that only need to know whether a key is live (delete, exists, add,
/// replace): the entry is validated in full, its value hashed from a scratch copy (the stack or
/// a per-thread buffer), never handed to a sink or decompressed.
pub(super) struct CheckOnly;

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

/// How many value bytes a `LocalSink` holds on the stack.
const LOCAL_INLINE: usize = 16;

/// Receives values the engine reads to inspect them (incr, decr, cas): small ones (counters, flags) on the stack, larger ones in a per-thread buffer.
pub(super) struct LocalSink {
    /// Room for an integer's 8 bytes, the only value incr, decr and cas act on (anything longer
    /// goes to the per-thread buffer and is then refused). 16 bytes are zeroed in one store,
    /// where 64 took four on every incr and cas (callgrind: incr 857 -> 854, cas 878 -> 875).
    inline: [u8; LOCAL_INLINE],
    len: usize,
    heap: Option<Vec<u8>>,
}

impl LocalSink {
    pub(super) fn new() -> LocalSink {
        LocalSink { inline: [0; LOCAL_INLINE], len: 0, heap: None }
    }

    pub(super) fn bytes(&self) -> &[u8] {
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

// SAFETY: the pointer is to the sink's own inline array (len <= LOCAL_INLINE) or to its own
// Vec of at least `len` initialised bytes; the sink is borrowed for the whole read, so neither
// moves or changes meanwhile.
unsafe impl ValueSink for LocalSink {
    const SHORT_STRINGS_FIRST: bool = false;
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
