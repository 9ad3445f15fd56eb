//! Allocating a zend_string to fill in place: the one place that builds a zend_string by hand.
//! A leaf: it uses nothing else of the extension, so the read sink, the array decoder's
//! strings and the batch writers can all depend on it.

use std::alloc::Layout;
use std::mem::offset_of;

use ext_php_rs::alloc::emalloc;
use ext_php_rs::boxed::ZBox;
use ext_php_rs::ffi::{zend_string, IS_STRING};
use ext_php_rs::types::ZendStr;

use super::ffi::emalloc_release;

/// GC_STRING from Zend/zend_types.h: IS_STRING | (GC_NOT_COLLECTABLE << GC_FLAGS_SHIFT).
const GC_STRING: u32 = IS_STRING | (1 << 4);

/// A request-lifetime zend_string of `len` bytes whose contents the caller fills in through the
/// returned pointer (PHP's zend_string_alloc, an inline function and so not callable from here).
///
/// Always inlined: each caller makes one per string (a read's value, each string of a decoded
/// array), and LLVM's own choice flipped with unrelated changes elsewhere (out of line, a get
/// of a post object cost 9627 -> 9661 instructions, callgrind). Inlined into the read sink too:
/// get 867 -> 853, multi-get 798 -> 767 per key.
#[inline(always)]
pub(super) fn alloc_zend_string(len: usize) -> (ZBox<ZendStr>, *mut u8) {
    let header = offset_of!(zend_string, val);
    let size = len.checked_add(header + 1).expect("value length fits in memory");
    let p = if ext_php_rs::PHP_DEBUG {
        emalloc(Layout::from_size_align(size, 8).expect("zend_string layout"))
    } else {
        // SAFETY: PHP's allocator, declared as a release build defines it (this build is one);
        // any size is valid, and its blocks are aligned to 8 bytes, enough for a zend_string.
        // Called directly: ext-php-rs' `emalloc`, which picks the declaration for the build,
        // is out of line and checks the alignment (get 841 -> 836 instructions, multi-get
        // 682 -> 677 a key, callgrind).
        unsafe { emalloc_release(size) }.cast::<u8>()
    }
    .cast::<zend_string>();
    assert!(!p.is_null(), "emalloc returned null");
    // SAFETY: `p` points at `size` fresh bytes from emalloc (which bails out rather than return
    // a short block): room for the header fields written here, `len` bytes of contents and the
    // terminating NUL at val[len]. The fields are set the way zend_string_alloc sets them for a
    // non-persistent string, so ZBox's release (zend_string_release) frees it correctly.
    unsafe {
        (*p).gc.refcount = 1;
        (*p).gc.u.type_info = GC_STRING;
        (*p).h = 0;
        (*p).len = len;
        let contents = p.cast::<u8>().add(header);
        *contents.add(len) = 0;
        (ZBox::from_raw(p.cast::<ZendStr>()), contents)
    }
}
