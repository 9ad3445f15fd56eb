//! Where a value read from the cache lands. Strings and serialized values go straight into a new
//! zend_string, so their bytes are copied out of shared memory exactly once; numbers into the
//! sink itself, native arrays into a reusable buffer that the codec decodes.

use std::cell::Cell;
use std::mem::ManuallyDrop;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::types::ZendStr;

use super::kinds::{SERIALIZED, STRING};
use super::zalloc::alloc_zend_string;
use crate::engine::{ValueKind, ValueSink};

thread_local! {
    /// Reused for non-string values; taken while in use, so a nested read (a get from inside
    /// __wakeup) or one abandoned by a bailout simply gets a fresh buffer.
    static VALUE_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// The sink's array buffer, taken from the thread when it has none yet. Out of line: inlined
/// into `buffer` (LLVM's choice once the string allocation beside it was inlined there) it
/// cost a get of an array about 10 instructions more (callgrind: get-object 9627 -> 9637).
#[inline(never)]
fn array_buf(buf: &mut Option<Vec<u8>>) -> &mut Vec<u8> {
    buf.get_or_insert_with(|| VALUE_BUF.take())
}

pub struct ZvalSink {
    // The two fields that own something are dropped by hand (`Drop` below), so that the drop
    // that follows every read is two tests inline rather than a call.
    string: ManuallyDrop<Option<ZBox<ZendStr>>>,
    /// Ints, floats, null and booleans (at most 8 bytes).
    small: [u8; 8],
    small_len: Option<usize>,
    /// Taken from VALUE_BUF only when an array arrives; never shrunk, so it is usually long
    /// enough already and needs no zeroing. The value is its first `buf_len` bytes.
    buf: ManuallyDrop<Option<Vec<u8>>>,
    buf_len: usize,
}

impl ZvalSink {
    pub fn new() -> ZvalSink {
        ZvalSink {
            string: ManuallyDrop::new(None),
            small: [0; 8],
            small_len: None,
            buf: ManuallyDrop::new(None),
            buf_len: 0,
        }
    }

    /// The value read, as the zend_string it was copied into (strings, serialized values).
    pub fn take_string(&mut self) -> Option<ZBox<ZendStr>> {
        self.string.take()
    }

    /// The value read, for the kinds that go through the buffer.
    pub fn bytes(&self) -> &[u8] {
        match self.small_len {
            Some(n) => &self.small[..n],
            None => self.buf.as_deref().map_or(&[], |b| &b[..self.buf_len]),
        }
    }
}

impl ZvalSink {
    /// Gives the array buffer back to the thread (as dropping the sink does), before code that
    /// may never return to this frame.
    pub fn release_buffer(&mut self) {
        if let Some(buf) = self.buf.take() {
            VALUE_BUF.set(buf);
        }
    }
}

impl Drop for ZvalSink {
    #[inline(always)]
    fn drop(&mut self) {
        // A read's value has been taken by now (the string) or was never ours to keep; the
        // buffer is there only after an array was read.
        if self.string.is_some() || self.buf.is_some() {
            self.drop_held();
        }
    }
}

impl ZvalSink {
    #[cold]
    #[inline(never)]
    fn drop_held(&mut self) {
        self.release_buffer();
        // SAFETY: called once, from `drop`; neither field is used after it.
        unsafe {
            ManuallyDrop::drop(&mut self.string);
            ManuallyDrop::drop(&mut self.buf);
        }
    }
}

// SAFETY: the pointer is to the contents of a zend_string of exactly `len` bytes owned by this
// sink, to the sink's own inline array (len <= 8), or to its own Vec of at least `len`
// initialised bytes; the sink is borrowed for the whole read, so none of them moves or changes until the next call.
unsafe impl ValueSink for ZvalSink {
    #[inline(always)]
    fn buffer(&mut self, kind: ValueKind, len: usize) -> *mut u8 {
        if kind == STRING || kind == SERIALIZED {
            *self.string = None;
            let (s, contents) = alloc_zend_string(len);
            *self.string = Some(s);
            contents
        } else if len <= self.small.len() {
            self.small_len = Some(len);
            self.small.as_mut_ptr()
        } else {
            self.small_len = None;
            let buf = array_buf(&mut self.buf);
            // The read overwrites the first `len` bytes: zeroing them first (clear + resize)
            // cost a memset of the value's size on every array read.
            if buf.len() < len {
                buf.resize(len, 0);
            }
            self.buf_len = len;
            buf.as_mut_ptr()
        }
    }

    fn discard(&mut self) {
        *self.string = None;
        self.small_len = None;
        self.buf_len = 0;
    }
}
