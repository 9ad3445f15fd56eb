//! Walking a PHP array the way ZEND_HASH_FOREACH does, without ext-php-rs' iterator (which makes
//! several calls into PHP and builds a key zval per element, costing more per element than a
//! cached get itself: docs/benchmarks.md, "Figures behind code comments"). PHP 8.2 layout: a
//! packed array holds bare zvals, a hash holds Buckets (zval, numeric key, string key).

use ext_php_rs::ffi::{zend_hash_index_update, zend_hash_update, zend_string, IS_UNDEF};
use ext_php_rs::types::{ZendHashTable, ZendStr, Zval};

use super::ffi::_zend_handle_numeric_str_ex;

/// Zend/zend_hash.h
const HASH_FLAG_PACKED: u32 = 1 << 2;

#[derive(Clone, Copy)]
pub enum Key<'a> {
    Index(i64),
    Str(&'a ZendStr),
}

/// The elements in order. The array must not change while this runs; an array passed by value
/// to our function can't be changed by user code it runs (PHP separates a shared array before
/// writing to it, and the call frame holds a reference).
pub fn elements<'a>(ht: &'a ZendHashTable) -> impl Iterator<Item = (Key<'a>, &'a Zval)> + 'a {
    // SAFETY: `u.flags` is the plain flags word of an initialised array.
    let packed = unsafe { ht.u.flags } & HASH_FLAG_PACKED != 0;
    (0..ht.nNumUsed as usize).filter_map(move |i| {
        // SAFETY: the first nNumUsed elements of arPacked (packed) or arData (hash) are
        // initialised zvals or Buckets (deleted ones are IS_UNDEF); the array outlives 'a and
        // is not changed meanwhile (see above). A Bucket's key is null or a live zend_string.
        let (key, value) = unsafe {
            if packed {
                (Key::Index(i as i64), &*ht.__bindgen_anon_1.arPacked.add(i).cast::<Zval>())
            } else {
                let b = ht.__bindgen_anon_1.arData.add(i);
                let key = match (*b).key.as_ref() {
                    Some(s) => Key::Str(s),
                    None => Key::Index((*b).h as i64),
                };
                (key, &*std::ptr::addr_of!((*b).val).cast::<Zval>())
            }
        };
        // SAFETY: reading the type byte of an initialised zval.
        (u32::from(unsafe { value.u1.v.type_ }) != IS_UNDEF).then_some((key, value))
    })
}

/// Calls `f` for every element in order, stopping at the first error (see `elements`). Kept
/// out of line: inlined into the encoder's recursive `Encoder::table` (which LLVM chose to do
/// or not as unrelated code changed) it cost a set of a post object about 160 instructions more.
#[inline(never)]
pub fn try_for_each<'a, E>(
    ht: &'a ZendHashTable,
    mut f: impl FnMut(Key<'a>, &'a Zval) -> Result<(), E>,
) -> Result<(), E> {
    for (key, value) in elements(ht) {
        f(key, value)?;
    }
    Ok(())
}

/// `$ht[$key] = $value` as PHP does it: a canonical decimal string ("42", "-7") becomes an
/// integer key, any other string goes in as it is, sharing the caller's zend_string (PHP
/// refcounts it) instead of copying and rehashing it. The table takes over `value`'s value:
/// the caller must forget `value` afterwards.
pub fn symtable_update(ht: &mut ZendHashTable, key: &ZendStr, value: &mut Zval) {
    let table: *mut ZendHashTable = ht;
    let bytes = key.as_bytes();
    // The inline pre-check of ZEND_HANDLE_NUMERIC_STR: only a digit or a '-' and a digit can
    // start an integer key. Both are at most '9', above which lie all letters, the usual first
    // byte of a key: one comparison rules those out. (The two patterns tested at once, as
    // LLVM compiled them, took 17 instructions for a key starting with a letter: multi-get
    // 743 -> 728 per key, callgrind.)
    let maybe_numeric = match bytes {
        [first, rest @ ..] if *first <= b'9' => {
            first.is_ascii_digit() || (*first == b'-' && matches!(rest, [b'0'..=b'9', ..]))
        }
        _ => false,
    };
    let mut index = 0u64;
    // SAFETY: `bytes` is valid for its length (PHP's function reads only `length` bytes);
    // `table` is a live array we own; `key` is a live zend_string, which zend_hash_update
    // addrefs (unless interned) rather than taking over; the update takes over the zval's
    // value (the caller forgets it).
    unsafe {
        if maybe_numeric
            && _zend_handle_numeric_str_ex(bytes.as_ptr().cast(), bytes.len(), &mut index)
        {
            zend_hash_index_update(table, index, value);
        } else {
            zend_hash_update(table, key as *const ZendStr as *mut zend_string, value);
        }
    }
}

/// `$ht[$index] = $value`.
pub fn index_update(ht: &mut ZendHashTable, index: i64, value: &mut Zval) {
    // SAFETY: `ht` is a live array we own; the update takes over the zval's value.
    unsafe { zend_hash_index_update(ht, index as u64, value) };
}

/// `$ht[$key] = $value` with `key` kept a string key even when it reads as a number ("3"), as
/// zend_hash_update does (APCu's fetch and exists build their results this way).
pub fn str_update(ht: &mut ZendHashTable, key: &ZendStr, value: &mut Zval) {
    // SAFETY: `ht` is a live array we own; `key` is a live zend_string, which zend_hash_update
    // addrefs (unless interned); the update takes over the zval's value (the caller forgets it).
    unsafe { zend_hash_update(ht, key as *const ZendStr as *mut zend_string, value) };
}
