//!
//! Hand-written call handlers (see `handler`) for the common shapes of the hottest calls (a
//! string key, int arguments given as ints): they skip the generated handlers' zend_try frame
//! and argument conversion, which cost more than half of what the glue adds to an `apcu_inc`
//! (measured with callgrind, bench/apcu-instructions.sh). Every other shape (arrays, objects,
//! conversions, wrong argument counts) goes to the generated handler unchanged.

use ext_php_rs::ffi::{zend_execute_data, zval, HashTable};
use ext_php_rs::types::Zval;

use super::params::arg;
use super::store::{delete_one, fetch_one, store_one, update, ApcuKey};
use crate::php::args::Found;
use crate::php::codec;
use crate::php::handler::{
    dispatch, install as swap, Call, Declined, Flag, Generated, Handler, Served, Written,
};
use crate::php::region::cache;

/// The generated handlers the hand-written ones replaced, by function.
struct GeneratedHandlers {
    fetch: Generated,
    store: Generated,
    add: Generated,
    delete: Generated,
    inc: Generated,
    dec: Generated,
}

static GENERATED: GeneratedHandlers = GeneratedHandlers {
    fetch: Generated::new(),
    store: Generated::new(),
    add: Generated::new(),
    delete: Generated::new(),
    inc: Generated::new(),
    dec: Generated::new(),
};

/// An optional int argument passed as an int (or not passed): its value; declined for any
/// other shape, which the generated handler converts or refuses.
fn plain_int(c: &Call<'_>, n: usize, default: i64) -> Result<i64, Declined> {
    match c.arg(n) {
        None => Ok(default),
        Some(z) => z.long().ok_or(Declined),
    }
}

/// The key argument when it is a string (dereferenced, as the generated handlers take it).
fn string_key<'a>(c: &Call<'a>) -> Result<ApcuKey<'a>, Declined> {
    c.arg(0).and_then(|z| ApcuKey::string(z)).ok_or(Declined)
}

unsafe extern "C" fn fetch(ex: *mut zend_execute_data, retval: *mut zval) {
    dispatch(ex, retval, &GENERATED.fetch, |c| {
        c.count(1, 2)?;
        let key = string_key(c)?;
        let mut found = Found::from_argument(c.raw_arg(1));
        let out = c.retval();
        Ok(Some(fetch_one(key, out).map(|hit| {
            found.set(hit);
            if !hit {
                codec::put_false(out);
            }
            Written
        })))
    });
}

fn store(c: &mut Call<'_>, func: &str, exclusive: bool) -> Served<Flag> {
    c.count(2, 3)?;
    let ttl = plain_int(c, 2, 0)?;
    let key = string_key(c)?;
    // As the generated handler takes it: the slot as passed (a null value is left to it).
    let value: &Zval = c.raw_arg(1).ok_or(Declined)?;
    if value.is_null() {
        return Err(Declined);
    }
    Ok(Some(store_one(key, value, ttl, exclusive, &arg(func, 2, "value")).map(Flag)))
}

unsafe extern "C" fn store_fn(ex: *mut zend_execute_data, retval: *mut zval) {
    dispatch(ex, retval, &GENERATED.store, |c| store(c, "apcu_store", false));
}

unsafe extern "C" fn add_fn(ex: *mut zend_execute_data, retval: *mut zval) {
    dispatch(ex, retval, &GENERATED.add, |c| store(c, "apcu_add", true));
}

unsafe extern "C" fn delete(ex: *mut zend_execute_data, retval: *mut zval) {
    dispatch(ex, retval, &GENERATED.delete, |c| {
        c.count(1, 1)?;
        let key = string_key(c)?;
        Ok(Some(Ok(Flag(cache().is_some_and(|cache| delete_one(cache, key))))))
    });
}

fn inc_dec(c: &mut Call<'_>, negate: bool) -> Served<Written> {
    c.count(1, 4)?;
    let key = string_key(c)?;
    let step = plain_int(c, 1, 1)?;
    let ttl = plain_int(c, 3, 0)?;
    let mut success = Found::from_argument(c.raw_arg(2));
    let delta = if negate { step.wrapping_neg() } else { step };
    let result = update(key, delta, ttl);
    success.set(result.is_some());
    let out = c.retval();
    match result {
        Some(n) => codec::put_long(out, n),
        None => codec::put_false(out),
    }
    Ok(Some(Ok(Written)))
}

unsafe extern "C" fn inc(ex: *mut zend_execute_data, retval: *mut zval) {
    dispatch(ex, retval, &GENERATED.inc, |c| inc_dec(c, false));
}

unsafe extern "C" fn dec(ex: *mut zend_execute_data, retval: *mut zval) {
    dispatch(ex, retval, &GENERATED.dec, |c| inc_dec(c, true));
}

/// Swaps the hand-written handlers in (the first request of each process), keeping the
/// generated ones for the shapes these leave to them.
pub(super) fn install(functions: *const HashTable) {
    let swaps: [(&str, Handler, &Generated); 6] = [
        ("apcu_fetch", fetch, &GENERATED.fetch),
        ("apcu_store", store_fn, &GENERATED.store),
        ("apcu_add", add_fn, &GENERATED.add),
        ("apcu_delete", delete, &GENERATED.delete),
        ("apcu_inc", inc, &GENERATED.inc),
        ("apcu_dec", dec, &GENERATED.dec),
    ];
    for (name, handler, generated) in swaps {
        swap(functions, name, handler, generated);
    }
}
