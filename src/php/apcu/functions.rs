//! The apcu_* functions but `apcu_entry` (`entry`) and the reports (`reports`).

use std::borrow::Cow;

use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::iterator;
use super::params::{arg, converted_key, false_zval, string_param};
use super::store::{
    apcu_namespace, delete_one, empty_key_namespace, exists_one, failed_with_warning, fetch_one,
    locate, store_one, update, ApcuKey,
};
use crate::engine::WriteMode;
use crate::php::args::{Found, IntArg, KeyArg};
use crate::php::hash::{self, Key};
use crate::php::region::cache;
use crate::php::warn::warning;
use crate::php::{batch, ops};

fn store(
    func: &str,
    key: &Zval,
    value: Option<&Zval>,
    ttl: IntArg,
    exclusive: bool,
) -> PhpResult<Zval> {
    let ttl = ttl.value_of(func, 3, "ttl")?;
    let key = key.dereference();
    let what = arg(func, 2, "value");
    if let Some(values) = key.array() {
        // Only the keys that failed come back, each mapped to -1.
        if let Some(cache) = cache() {
            let mode = if exclusive { WriteMode::Add } else { WriteMode::Set };
            let alone = |k: Key<'_>, v: &Zval| {
                let bytes: Cow<'_, [u8]> = match k {
                    Key::Str(s) => Cow::Borrowed(s.as_bytes()),
                    Key::Index(i) => Cow::Owned(i.to_string().into_bytes()),
                };
                store_one(ApcuKey::bytes(&bytes), v, ttl, exclusive, &what)
            };
            let failed =
                batch::apcu_store_array(cache, apcu_namespace(), values, mode, ttl, &what, alone)?;
            let mut z = Zval::new();
            z.set_hashtable(failed);
            return Ok(z);
        }
        let mut failed = ZendHashTable::new();
        for (k, v) in hash::elements(values) {
            let bytes: Cow<'_, [u8]> = match k {
                Key::Str(s) => Cow::Borrowed(s.as_bytes()),
                Key::Index(i) => Cow::Owned(i.to_string().into_bytes()),
            };
            if !store_one(ApcuKey::bytes(&bytes), v.dereference(), ttl, exclusive, &what)? {
                let mut minus_one = Zval::new();
                minus_one.set_long(-1);
                match k {
                    Key::Str(s) => hash::symtable_update(&mut failed, s, &mut minus_one),
                    Key::Index(i) => hash::index_update(&mut failed, i, &mut minus_one),
                }
            }
        }
        let mut z = Zval::new();
        z.set_hashtable(failed);
        return Ok(z);
    }
    let mut z = Zval::new();
    match (ApcuKey::string(key), value) {
        (Some(k), Some(v)) => z.set_bool(store_one(k, v, ttl, exclusive, &what)?),
        // No value: nothing to store.
        (Some(_), None) => z.set_bool(false),
        (None, _) => {
            warning(
                "apc_store expects key parameter to be a string or an array of key/value pairs.",
            );
            z.set_bool(false);
        }
    }
    Ok(z)
}

#[php_function]
#[php(name = "apcu_store")]
#[php(defaults(ttl = 0))]
pub fn apcu_store(key: &Zval, value: Option<&Zval>, ttl: IntArg) -> PhpResult<Zval> {
    store("apcu_store", key, value, ttl, false)
}

#[php_function]
#[php(name = "apcu_add")]
#[php(defaults(ttl = 0))]
pub fn apcu_add(key: &Zval, value: Option<&Zval>, ttl: IntArg) -> PhpResult<Zval> {
    store("apcu_add", key, value, ttl, true)
}

#[php_function]
#[php(name = "apcu_fetch")]
pub fn apcu_fetch(key: &Zval, mut success: Found) -> PhpResult<Zval> {
    let key = key.dereference();
    if let Some(keys) = key.array() {
        let mut out = ZendHashTable::with_capacity(keys.len() as u32);
        // An array of plain strings (the usual call) is read as one batch (a multi-get: the
        // look-ahead, one call), any other key by key.
        if !ops::read_plain_batch_string_keyed(apcu_namespace(), keys, &mut out)? {
            for (_, k) in hash::elements(keys) {
                let k = k.dereference();
                let (Some(s), Some(key)) = (k.zend_str(), ApcuKey::string(k)) else {
                    warning("apc_fetch() expects a string or array of strings.");
                    continue;
                };
                let mut v = Zval::new();
                if fetch_one(key, &mut v)? {
                    hash::str_update(&mut out, s, &mut v);
                    std::mem::forget(v);
                }
            }
        }
        success.set(true);
        let mut z = Zval::new();
        z.set_hashtable(out);
        return Ok(z);
    }
    let Some(bytes) = converted_key(key) else { return Ok(Zval::new()) };
    let mut out = Zval::new();
    let hit = fetch_one(ApcuKey::bytes(&bytes), &mut out)?;
    success.set(hit);
    Ok(if hit { out } else { false_zval() })
}

#[php_function]
#[php(name = "apcu_exists")]
pub fn apcu_exists(key: &Zval) -> PhpResult<Zval> {
    let key = key.dereference();
    let mut z = Zval::new();
    if let Some(keys) = key.array() {
        let mut out = ZendHashTable::new();
        for (_, k) in hash::elements(keys) {
            let Some(s) = k.dereference().zend_str() else {
                warning("apc_exists() expects a string or array of strings.");
                continue;
            };
            if cache().is_some_and(|c| exists_one(c, s.as_bytes())) {
                let mut t = Zval::new();
                t.set_bool(true);
                hash::str_update(&mut out, s, &mut t);
            }
        }
        z.set_hashtable(out);
        return Ok(z);
    }
    let Some(bytes) = converted_key(key) else { return Ok(z) };
    z.set_bool(cache().is_some_and(|c| exists_one(c, &bytes)));
    Ok(z)
}

#[php_function]
#[php(name = "apcu_delete")]
pub fn apcu_delete(key: &Zval) -> PhpResult<Zval> {
    const EXPECTS: &str =
        "apc_delete() expects a string, array of strings, or APCIterator instance";
    let key = key.dereference();
    let mut z = Zval::new();
    if let Some(k) = ApcuKey::string(key) {
        z.set_bool(cache().is_some_and(|c| delete_one(c, k)));
    } else if let Some(keys) = key.array() {
        // An array of plain string keys (the usual call) is deleted as one batch.
        if let Some(cache) = cache() {
            if let Some(failed) =
                crate::php::batch::delete_plain_batch_listing_failed(cache, apcu_namespace(), keys)?
            {
                z.set_hashtable(failed);
                return Ok(z);
            }
        }
        // The keys that were not deleted (not a string, or not there) come back as a list.
        let mut failed = ZendHashTable::new();
        for (_, k) in hash::elements(keys) {
            let k = k.dereference();
            let deleted = match ApcuKey::string(k) {
                Some(key) => cache().is_some_and(|c| delete_one(c, key)),
                None => {
                    warning(EXPECTS);
                    false
                }
            };
            if !deleted {
                failed.push(k.shallow_clone())?;
            }
        }
        z.set_hashtable(failed);
    } else if let Some(obj) = key.object() {
        match iterator::deletable(obj) {
            iterator::Deletable::Iterator(iterator) => {
                let keys = iterator.keys_to_delete()?;
                if let Some(cache) = cache() {
                    for k in keys {
                        delete_one(cache, ApcuKey::bytes(&k));
                    }
                }
                z.set_bool(true);
            }
            iterator::Deletable::Uninitialized => {
                return Err(PhpException::new(
                    "Trying to use uninitialized APCUIterator".into(),
                    0,
                    ext_php_rs::zend::ce::error(),
                ));
            }
            iterator::Deletable::NotAnIterator => {
                warning("apc_delete object argument must be instance of APCUIterator.");
                z.set_bool(false);
            }
        }
    } else {
        warning(EXPECTS);
        z.set_bool(false);
    }
    Ok(z)
}

fn inc_dec(
    func: &str,
    key: KeyArg,
    step: IntArg,
    success: &mut Found,
    ttl: IntArg,
    negate: bool,
) -> PhpResult<Zval> {
    let Some(key) = string_param(key.0, &arg(func, 1, "key"))? else { return Ok(Zval::new()) };
    let step = step.value_of(func, 2, "step")?;
    let ttl = ttl.value_of(func, 4, "ttl")?;
    let delta = if negate { step.wrapping_neg() } else { step };
    let result = update(ApcuKey::bytes(&key), delta, ttl);
    success.set(result.is_some());
    let mut z = Zval::new();
    match result {
        Some(n) => z.set_long(n),
        None => z.set_bool(false),
    }
    Ok(z)
}

#[php_function]
#[php(name = "apcu_inc")]
#[php(defaults(step = 1, ttl = 0))]
pub fn apcu_inc(key: KeyArg, step: IntArg, mut success: Found, ttl: IntArg) -> PhpResult<Zval> {
    inc_dec("apcu_inc", key, step, &mut success, ttl, false)
}

#[php_function]
#[php(name = "apcu_dec")]
#[php(defaults(step = 1, ttl = 0))]
pub fn apcu_dec(key: KeyArg, step: IntArg, mut success: Found, ttl: IntArg) -> PhpResult<Zval> {
    inc_dec("apcu_dec", key, step, &mut success, ttl, true)
}

#[php_function]
#[php(name = "apcu_cas")]
pub fn apcu_cas(key: KeyArg, old: IntArg, new: IntArg) -> PhpResult<bool> {
    let Some(key) = string_param(key.0, &arg("apcu_cas", 1, "key"))? else { return Ok(false) };
    let old = old.value_of("apcu_cas", 2, "old")?;
    let new = new.value_of("apcu_cas", 3, "new")?;
    let Some(cache) = cache() else { return Ok(false) };
    let (ns, key) = locate(&key);
    Ok(cache.cas(ns, key, old, new).unwrap_or_else(failed_with_warning))
}

#[php_function]
#[php(name = "apcu_clear_cache")]
pub fn apcu_clear_cache() -> bool {
    if let Some(cache) = cache() {
        cache.flush_namespace(apcu_namespace());
        cache.flush_namespace(empty_key_namespace());
    }
    true
}

#[php_function]
#[php(name = "apcu_enabled")]
pub fn apcu_enabled() -> bool {
    cache().is_some()
}

/// The functions above, for `register`.
pub(super) fn builders() -> [FunctionBuilder<'static>; 10] {
    [
        wrap_function!(apcu_fetch),
        wrap_function!(apcu_store),
        wrap_function!(apcu_add),
        wrap_function!(apcu_delete),
        wrap_function!(apcu_exists),
        wrap_function!(apcu_inc),
        wrap_function!(apcu_dec),
        wrap_function!(apcu_cas),
        wrap_function!(apcu_clear_cache),
        wrap_function!(apcu_enabled),
    ]
}
