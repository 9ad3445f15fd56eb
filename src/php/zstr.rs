//! zend_strings for the strings inside decoded arrays, made the way PHP makes its own: empty and
//! one-byte values are PHP's shared interned strings, and short strings that recur within a
//! request (the field names of every post object, "publish", "open") are one refcounted string
//! shared by every array decoded in that request, as PHP shares the strings of its literals.
//! A shared string is allocated, copied and hashed once per request instead of once per array,
//! and freeing an array only drops references to it.
//!
//! (Tried first for array keys: PHP's own interned copy via zend_string_init_existing_interned.
//! Without opcache that lookup costs more than the allocation it saves: docs/benchmarks.md,
//! "Figures behind code comments".)

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

use ext_php_rs::boxed::ZBox;
use ext_php_rs::ffi::zend_string;
use ext_php_rs::types::ZendStr;

use super::ffi::{zend_empty_string, zend_one_char_string};
use super::zalloc::alloc_zend_string;

/// A string value of its own.
#[inline]
pub(super) fn value_string(bytes: &[u8]) -> ZBox<ZendStr> {
    match bytes {
        // SAFETY: PHP's shared empty and one-character strings are interned and live for the
        // whole process; releasing an interned string does nothing.
        [] => unsafe { ZBox::from_raw(zend_empty_string.cast::<ZendStr>()) },
        [b] => unsafe { ZBox::from_raw(zend_one_char_string[*b as usize].cast::<ZendStr>()) },
        _ => {
            let (s, contents) = alloc_zend_string(bytes.len());
            // SAFETY: alloc_zend_string returns `contents` writable for exactly bytes.len()
            // bytes, in a fresh block that cannot overlap `bytes`.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), contents, bytes.len()) };
            s
        }
    }
}

/// Longest string worth sharing: field names and short status words; longer strings rarely
/// recur and would only push those out.
const SHARED_MAX_LEN: usize = 32;
const SHARED_SLOTS: usize = 512;

/// Bumped at every RINIT: strings shared in an earlier request were freed with its memory.
static REQUEST: AtomicU64 = AtomicU64::new(0);

pub(super) fn new_request() {
    REQUEST.fetch_add(1, Ordering::Relaxed);
}

/// RSHUTDOWN: gives the table's references back while the request's memory still exists.
/// (PHP frees that memory wholesale anyway; releasing keeps leak checkers, PHP's debug builds
/// and valgrind, quiet, and a string no array holds any more is freed now.)
pub(super) fn end_request() {
    if let Some(mut table) = SHARED.take() {
        if table.request == REQUEST.load(Ordering::Relaxed) {
            for slot in table.slots.iter_mut().filter(|s| !s.is_null()) {
                // SAFETY: a non-null slot of this request's table holds one reference to a
                // live string; it is given up once and the slot cleared.
                drop(unsafe { ZBox::from_raw(slot.cast::<ZendStr>()) });
                *slot = std::ptr::null_mut();
            }
        }
        SHARED.set(Some(table));
    }
}

thread_local! {
    /// Taken while a decode uses it, so a decode abandoned by a bailout (emalloc over
    /// memory_limit) loses the table, never leaves it half-updated for the next one.
    static SHARED: Cell<Option<Box<SharedStrings>>> = const { Cell::new(None) };
}

/// A direct-mapped table of this request's shared strings. Each slot holds one reference to
/// its string, so a string in the table is alive however the arrays holding it are changed
/// or freed; a string replaced in its slot loses only the table's reference.
pub(super) struct SharedStrings {
    request: u64,
    slots: [*mut zend_string; SHARED_SLOTS],
}

impl SharedStrings {
    /// Lends the current request's table to `f`.
    pub(super) fn with<R>(f: impl FnOnce(&mut SharedStrings) -> R) -> R {
        let request = REQUEST.load(Ordering::Relaxed);
        let mut table = SHARED.take().unwrap_or_else(|| {
            Box::new(SharedStrings { request, slots: [std::ptr::null_mut(); SHARED_SLOTS] })
        });
        if table.request != request {
            // The old pointers died with their request's memory: forget them, never release.
            table.slots = [std::ptr::null_mut(); SHARED_SLOTS];
            table.request = request;
        }
        let r = f(&mut table);
        SHARED.set(Some(table));
        r
    }

    /// The shared string with these bytes, without a reference of its own: valid until the
    /// next call on this table (which may replace it). For an array key, which the hash table
    /// then references itself.
    #[inline]
    pub(super) fn borrow(&mut self, bytes: &[u8]) -> *mut zend_string {
        debug_assert!(Self::is_shareable(bytes));
        let slot = &mut self.slots[slot_of(bytes)];
        let current = *slot;
        // SAFETY: a non-null slot points at a live string this table holds a reference to
        // (set below, during this request: see `with`); its bytes are its contents.
        if !current.is_null() && unsafe { contents(current) } == bytes {
            return current;
        }
        let fresh = value_string(bytes).into_raw();
        if !current.is_null() {
            // SAFETY: the table's reference to the string it replaces is given up.
            drop(unsafe { ZBox::from_raw(current.cast::<ZendStr>()) });
        }
        *slot = (fresh as *mut ZendStr).cast::<zend_string>();
        *slot
    }

    /// A string value with these bytes: shared when short, else a string of its own.
    #[inline]
    pub(super) fn value(&mut self, bytes: &[u8]) -> ZBox<ZendStr> {
        if !Self::is_shareable(bytes) {
            return value_string(bytes);
        }
        let s = self.borrow(bytes);
        // SAFETY: `s` is a live, non-interned request string (two or more bytes, made by
        // value_string); the caller gets a reference of its own.
        unsafe {
            (*s).gc.refcount += 1;
            ZBox::from_raw(s.cast::<ZendStr>())
        }
    }

    /// Strings of 2–32 bytes are shared (shorter ones are PHP's own, see `value_string`).
    #[inline]
    pub(super) fn is_shareable(bytes: &[u8]) -> bool {
        (2..=SHARED_MAX_LEN).contains(&bytes.len())
    }
}

/// # Safety
/// `s` must point at a live zend_string.
#[inline]
unsafe fn contents<'a>(s: *const zend_string) -> &'a [u8] {
    // SAFETY: the caller's contract; a zend_string's `len` bytes start at its `val` field.
    unsafe {
        std::slice::from_raw_parts(
            s.cast::<u8>().add(std::mem::offset_of!(zend_string, val)),
            (*s).len,
        )
    }
}

/// The table slot for a string of 2..=32 bytes: its length, first and last eight (or four, or
/// two) bytes, mixed.
#[inline]
fn slot_of(b: &[u8]) -> usize {
    let n = b.len();
    let (head, tail) = if n >= 8 {
        (
            u64::from_le_bytes(b[..8].try_into().unwrap()),
            u64::from_le_bytes(b[n - 8..].try_into().unwrap()),
        )
    } else if n >= 4 {
        (
            u32::from_le_bytes(b[..4].try_into().unwrap()) as u64,
            u32::from_le_bytes(b[n - 4..].try_into().unwrap()) as u64,
        )
    } else {
        (u16::from_le_bytes([b[0], b[1]]) as u64, b[n - 1] as u64)
    };
    let mixed = (head ^ tail.rotate_left(29) ^ n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    (mixed >> (64 - SHARED_SLOTS.trailing_zeros())) as usize
}
