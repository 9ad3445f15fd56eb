//! zend_strings for the strings inside decoded arrays, made the way PHP makes its own: empty and
//! one-byte values are PHP's shared interned strings (nothing allocated, nothing to free), the
//! rest one allocation filled with one copy.
//!
//! (Tried for array keys: PHP's interned copy via zend_string_init_existing_interned. Without
//! opcache that lookup costs more than the allocation it saves: 11,283 instructions per
//! 20-element array get against 10,281.)

use ext_php_rs::boxed::ZBox;
use ext_php_rs::ffi::zend_string;
use ext_php_rs::types::ZendStr;

use super::sink::alloc_zend_string;

extern "C" {
    // Zend/zend_string.h
    static zend_empty_string: *mut zend_string;
    static zend_one_char_string: [*mut zend_string; 256];
}

/// A string value.
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
