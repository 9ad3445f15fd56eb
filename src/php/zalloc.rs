//! Allocating a zend_string to fill in place: the one place that builds a zend_string by hand.
//! A leaf: it uses nothing else of the extension, so the read sink, the array decoder's
//! strings and the batch writers can all depend on it.

#[cfg(php_debug_build)]
use std::alloc::Layout;
#[cfg(not(php_debug_build))]
use std::ffi::c_void;
use std::mem::offset_of;

#[cfg(php_debug_build)]
use ext_php_rs::alloc::emalloc;
use ext_php_rs::boxed::ZBox;
use ext_php_rs::ffi::{zend_string, IS_STRING};
use ext_php_rs::types::ZendStr;

#[cfg(not(php_debug_build))]
use super::ffi::{
    _emalloc_112, _emalloc_128, _emalloc_16, _emalloc_160, _emalloc_192, _emalloc_224, _emalloc_24,
    _emalloc_256, _emalloc_32, _emalloc_40, _emalloc_48, _emalloc_56, _emalloc_64, _emalloc_8,
    _emalloc_80, _emalloc_96, emalloc_release,
};

#[cfg(not(php_debug_build))]
type SizedAlloc = unsafe extern "C" fn() -> *mut c_void;

/// PHP's allocator of the smallest bin that holds a block of `8 * (i + 1)` bytes, for the
/// sizes of up to 256 bytes: the bins PHP's own `_emalloc` picks for them. A block of one bin
/// is what `_emalloc` returns for such a size, so `efree` (zend_string_release) takes it as any
/// other. Picked by a table lookup rather than by `_emalloc`'s own computation of the bin:
/// get 836 -> 822 instructions, multi-get 656 -> 647 a key (callgrind, a 42-byte string).
/// (The per-size functions exist in PHP's release builds only, as `emalloc_release`'s
/// declaration fits them only: against a debug build of PHP, build.rs sets `php_debug_build`,
/// the table and the declarations are left out and ext-php-rs' `emalloc` is used.)
#[cfg(not(php_debug_build))]
static BY_EIGHTS: [SizedAlloc; 32] = [
    _emalloc_8,
    _emalloc_16,
    _emalloc_24,
    _emalloc_32,
    _emalloc_40,
    _emalloc_48,
    _emalloc_56,
    _emalloc_64,
    _emalloc_80,
    _emalloc_80,
    _emalloc_96,
    _emalloc_96,
    _emalloc_112,
    _emalloc_112,
    _emalloc_128,
    _emalloc_128,
    _emalloc_160,
    _emalloc_160,
    _emalloc_160,
    _emalloc_160,
    _emalloc_192,
    _emalloc_192,
    _emalloc_192,
    _emalloc_192,
    _emalloc_224,
    _emalloc_224,
    _emalloc_224,
    _emalloc_224,
    _emalloc_256,
    _emalloc_256,
    _emalloc_256,
    _emalloc_256,
];

/// emalloc of `size` bytes, in a release build of PHP.
#[cfg(not(php_debug_build))]
#[inline(always)]
fn emalloc_small_or(size: usize) -> *mut c_void {
    // SAFETY: PHP's allocators, declared as a release build defines them (this build is one:
    // see `alloc_zend_string`); any size is valid, each BY_EIGHTS entry gives a block of at
    // least the sizes it is picked for, and every block is aligned to 8 bytes, enough for a
    // zend_string.
    unsafe {
        if (1..=256).contains(&size) {
            BY_EIGHTS[(size - 1) >> 3]()
        } else {
            emalloc_release(size)
        }
    }
}

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
    #[cfg(php_debug_build)]
    let p = emalloc(Layout::from_size_align(size, 8).expect("zend_string layout"));
    // Called directly: ext-php-rs' `emalloc`, which picks the declaration for the build, is
    // out of line and checks the alignment (get 841 -> 836 instructions, multi-get 682 -> 677
    // a key, callgrind).
    #[cfg(not(php_debug_build))]
    let p = emalloc_small_or(size).cast::<u8>();
    let p = p.cast::<zend_string>();
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
