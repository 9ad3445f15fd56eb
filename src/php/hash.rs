//! Walking a PHP array the way ZEND_HASH_FOREACH does, without ext-php-rs' iterator (which makes
//! several calls into PHP and builds a key zval per element, costing more per element than a
//! cached get itself: docs/benchmarks.md, "Figures behind code comments"). PHP 8.2 layout: a
//! packed array holds bare zvals, a hash holds Buckets (zval, numeric key, string key).

use ext_php_rs::ffi::{
    zend_hash_index_update, zend_hash_update, zend_string, Bucket, GC_IMMUTABLE, IS_UNDEF,
};
use ext_php_rs::types::{ZendHashTable, ZendStr, Zval};

use super::ffi::{
    _zend_handle_numeric_str_ex, zend_hash_packed_to_hash, zend_hash_real_init_mixed,
};

/// Zend/zend_hash.h
const HASH_FLAG_PACKED: u32 = 1 << 2;
const HASH_FLAG_UNINITIALIZED: u32 = 1 << 3;
const HASH_FLAG_STATIC_KEYS: u32 = 1 << 4;
/// Zend/zend_types.h: the end of a hash chain.
const HT_INVALID_IDX: u32 = u32::MAX;

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

/// The values in order (see `elements`), each element a fixed stride after the one before
/// whatever the array's kind, so that a loop over them tests the kind once, not per element
/// (with the one-test key check of `PlainKey::is_plain`: multi-get 677 -> 669 a key, callgrind).
pub fn values<'a>(ht: &'a ZendHashTable) -> impl Iterator<Item = &'a Zval> + 'a {
    // SAFETY: `u.flags` is the plain flags word of an initialised array; arPacked and arData
    // are the same pointer, read as the kind of array the flags say.
    let (first, stride) = unsafe {
        if ht.u.flags & HASH_FLAG_PACKED != 0 {
            (ht.__bindgen_anon_1.arPacked.cast::<u8>(), std::mem::size_of::<Zval>())
        } else {
            (ht.__bindgen_anon_1.arData.cast::<u8>(), std::mem::size_of::<Bucket>())
        }
    };
    (0..ht.nNumUsed as usize).filter_map(move |i| {
        // SAFETY: as in `elements`: element i of nNumUsed is an initialised zval, or a Bucket
        // whose zval comes first.
        let value = unsafe { &*first.add(i * stride).cast::<Zval>() };
        // SAFETY: reading the type byte of an initialised zval.
        (u32::from(unsafe { value.u1.v.type_ }) != IS_UNDEF).then_some(value)
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

/// Whether `bytes` may be a canonical decimal integer ("42", "-7"), which PHP's arrays store as
/// an integer key: the inline pre-check of ZEND_HANDLE_NUMERIC_STR, only a digit or a '-' and a
/// digit can start one. Both are at most '9', above which lie all letters, the usual first byte
/// of a key: one comparison rules those out. (The two patterns tested at once, as LLVM compiled
/// them, took 17 instructions for a key starting with a letter: multi-get 743 -> 728 per key,
/// callgrind.)
#[inline(always)]
fn maybe_numeric(bytes: &[u8]) -> bool {
    match bytes {
        [first, rest @ ..] if *first <= b'9' => {
            first.is_ascii_digit() || (*first == b'-' && matches!(rest, [b'0'..=b'9', ..]))
        }
        _ => false,
    }
}

/// `$ht[$key] = $value` as PHP does it: a canonical decimal string ("42", "-7") becomes an
/// integer key, any other string goes in as it is, sharing the caller's zend_string (PHP
/// refcounts it) instead of copying and rehashing it. The table takes over `value`'s value:
/// the caller must forget `value` afterwards.
pub fn symtable_update(ht: &mut ZendHashTable, key: &ZendStr, value: &mut Zval) {
    let table: *mut ZendHashTable = ht;
    let bytes = key.as_bytes();
    let mut index = 0u64;
    // SAFETY: `bytes` is valid for its length (PHP's function reads only `length` bytes);
    // `table` is a live array we own; `key` is a live zend_string, which zend_hash_update
    // addrefs (unless interned) rather than taking over; the update takes over the zval's
    // value (the caller forgets it).
    unsafe {
        if maybe_numeric(bytes)
            && _zend_handle_numeric_str_ex(bytes.as_ptr().cast(), bytes.len(), &mut index)
        {
            zend_hash_index_update(table, index, value);
        } else {
            zend_hash_update(table, key as *const ZendStr as *mut zend_string, value);
        }
    }
}

/// A result array filled a key at a time, whose keys are nearly always new to it: made a hash
/// (neither packed nor uninitialised) once, when wrapped, and kept one by taking every change
/// through here, so that `append` needs no test of the array's state.
pub struct HashBuilder<'a>(&'a mut ZendHashTable);

impl<'a> HashBuilder<'a> {
    /// Makes `ht` a hash now if it is not one yet: an array made with room for all the keys to
    /// come (`ZendHashTable::with_capacity`) is then never resized.
    pub fn new(ht: &'a mut ZendHashTable) -> HashBuilder<'a> {
        // SAFETY: `u.flags` is the plain flags word of an initialised array, which we own; each
        // function is given the kind of array it converts.
        unsafe {
            let flags = ht.u.flags;
            if flags & HASH_FLAG_UNINITIALIZED != 0 {
                zend_hash_real_init_mixed(ht);
            } else if flags & HASH_FLAG_PACKED != 0 {
                zend_hash_packed_to_hash(ht);
            }
        }
        HashBuilder(ht)
    }

    /// `symtable_update`.
    pub fn update(&mut self, key: &ZendStr, value: &mut Zval) {
        symtable_update(self.0, key, value);
    }

    /// `index_update`.
    pub fn index_update(&mut self, index: i64, value: &mut Zval) {
        index_update(self.0, index, value);
    }

    /// `update` of a key that `key` points at: a string key not in the array yet goes in at
    /// the end, inline, while the array has room for it; a key already there, a numeric one, or
    /// a full array takes `update`. (zend_hash_update for every key, with its call and its
    /// handling of an array in any state: multi-get 698 -> 682 instructions a key; the first
    /// key's initialisation made here and the tests of the state gone: 669 -> 656, callgrind.)
    ///
    /// # Safety
    /// `key` must point at a live zend_string that PHP has hashed (its `h` is set) and that no
    /// Rust reference covers meanwhile.
    #[inline(always)]
    pub unsafe fn append(&mut self, key: *mut zend_string, value: &mut Zval) {
        // SAFETY: the caller's contract.
        unsafe { self.append_as::<true>(key, value) }
    }

    /// `append` that keeps every key a string key, a numeric one ("3") too, as `str_update`
    /// does (APCu's fetch of an array of keys builds its result so).
    ///
    /// # Safety
    /// As `append`.
    #[inline(always)]
    pub unsafe fn append_string_key(&mut self, key: *mut zend_string, value: &mut Zval) {
        // SAFETY: the caller's contract.
        unsafe { self.append_as::<false>(key, value) }
    }

    /// The fallback of an append: `$ht[$key] = $value` as a symbol table takes it, or with
    /// the key kept a string.
    #[inline(always)]
    fn update_as<const SYMTABLE: bool>(&mut self, key: &ZendStr, value: &mut Zval) {
        if SYMTABLE {
            self.update(key, value)
        } else {
            str_update(self.0, key, value)
        }
    }

    /// `append` (SYMTABLE: numeric strings become integer keys) or `append_string_key`.
    ///
    /// # Safety
    /// As `append`.
    #[inline(always)]
    unsafe fn append_as<const SYMTABLE: bool>(&mut self, key: *mut zend_string, value: &mut Zval) {
        // SAFETY: the caller's contract.
        let (bytes, h) = unsafe { (contents(key), (*key).h) };
        debug_assert_ne!(h, 0, "append of a key PHP has not hashed");
        let ht = &mut *self.0;
        if (SYMTABLE && maybe_numeric(bytes)) || ht.nNumUsed >= ht.nTableSize {
            // SAFETY: the caller's contract; the reference lives for this call only.
            return self.update_as::<SYMTABLE>(unsafe { &*key.cast::<ZendStr>() }, value);
        }
        let used = ht.nNumUsed;
        // SAFETY: the array is a hash (`new`, and nothing here makes it packed) that we own, so
        // arData points at nTableSize Buckets, of which the first nNumUsed are in use, preceded
        // by the hash part of -nTableMask u32 chain heads (`h | nTableMask` is a negative index
        // into it, as HT_HASH_EX takes it). Each chain links in-use Buckets by index through
        // their zvals' `u2.next` and ends at HT_INVALID_IDX. `used < nTableSize`, so Bucket
        // `used` is in the array and free. Keys of in-use Buckets are null (integer keys) or
        // live strings.
        unsafe {
            let data = ht.__bindgen_anon_1.arData;
            let head = data.cast::<u32>().offset((h as u32 | ht.nTableMask) as i32 as isize);
            let mut at = *head;
            while at != HT_INVALID_IDX {
                let b = data.add(at as usize);
                let k = (*b).key;
                if k == key
                    || ((*b).h == h
                        && !k.is_null()
                        && (*k).len == bytes.len()
                        && contents(k) == bytes)
                {
                    // A key repeated in the batch: its value replaces the earlier one's (which
                    // zend_hash_update releases), as `$ht[$key] = $value` does.
                    return self.update_as::<SYMTABLE>(&*key.cast::<ZendStr>(), value);
                }
                at = (*b).val.u2.next;
            }
            if (*key).gc.u.type_info & GC_IMMUTABLE == 0 {
                // The array holds a reference to a key that is not interned, and says so.
                (*key).gc.refcount += 1;
                ht.u.flags &= !HASH_FLAG_STATIC_KEYS;
            }
            let b = data.add(used as usize);
            (*b).key = key;
            (*b).h = h;
            (*b).val.value = value.value;
            (*b).val.u1 = value.u1;
            (*b).val.u2.next = *head;
            *head = used;
            ht.nNumUsed = used + 1;
            ht.nNumOfElements += 1;
        }
    }
}

/// The bytes of a live zend_string.
///
/// # Safety
/// `s` must point at a live zend_string that outlives 'a.
#[inline(always)]
pub unsafe fn contents<'a>(s: *const zend_string) -> &'a [u8] {
    // SAFETY: the caller's contract; a zend_string's `len` bytes start at its `val` field.
    unsafe {
        std::slice::from_raw_parts(
            s.cast::<u8>().add(std::mem::offset_of!(zend_string, val)),
            (*s).len,
        )
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
