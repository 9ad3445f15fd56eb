//! The glue of the multi-key writes and deletes that run as one engine batch
//! (`Cache::write_each`, `Cache::delete_each`): `shmcache_set_multi`/`add_multi`,
//! `shmcache_delete_multi` and `apcu_delete()` of an array of strings on this region alone.
//! No user code runs inside a batch: values are encoded before it, and its errors are raised
//! after it (`Deferred`).

use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::PhpResult;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::args::{array_key_bytes, unchecked_key_bytes, KeyBytes};
use super::codec;
use super::hash::{self, Key};
use super::held;
use super::ops::{error_or_warning, PlainKey};
use super::warn;
use crate::engine::{Cache, Error, Namespace, ValueKind, WriteMode};

/// A key of `delete_batch`: its bytes, and the array element it came from (what the result
/// lists).
struct DeleteKey<'a>(KeyBytes<'a>, &'a Zval);

impl AsRef<[u8]> for DeleteKey<'_> {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

/// `delete_multi` on this region alone, as one engine batch (`Cache::delete_each`: the index
/// lines and entries of a group of keys requested together). The keys were checked by the
/// caller. No user code runs until the batch is done: a contended key's warning, which may run
/// an error handler that changes keys held by reference, is raised afterwards.
pub(super) fn delete_batch(
    cache: &Cache,
    ns: &Namespace,
    keys: &ZendHashTable,
    mut deleted: ZBox<ZendHashTable>,
) -> PhpResult<(ZBox<ZendHashTable>, Deferred)> {
    let mut errors = Deferred::new();
    let mut failed = None;
    let batch = hash::values(keys).filter_map(|k| {
        let k = k.dereference();
        unchecked_key_bytes(k).map(|bytes| DeleteKey(bytes, k))
    });
    cache.delete_each(ns, batch, |DeleteKey(_, k), live| {
        let pushed = match live {
            Ok(false) => return true,
            Ok(true) => match k.long() {
                Some(i) => deleted.push(i),
                None => deleted.push(k.shallow_clone()),
            },
            Err(e) => {
                errors.keep(e);
                return true;
            }
        };
        failed = pushed.err();
        failed.is_none()
    });
    if let Some(e) = failed {
        return Err(e.into());
    }
    Ok((deleted, errors))
}

/// A key of `delete_plain_batch_listing_failed` and the element it is.
struct PlainDelete<'a>(PlainKey<'a>, &'a Zval);

impl AsRef<[u8]> for PlainDelete<'_> {
    fn as_ref(&self) -> &[u8] {
        self.0.as_ref()
    }
}

/// `apcu_delete()` of an array whose elements are all plain string keys (`PlainKey`), as one
/// engine batch (`Cache::delete_each`); the elements not deleted come back as a list, as APCu
/// returns them, and a contended key's warning after the batch. None (nothing done) for any
/// other array, which the caller deletes key by key.
pub fn delete_plain_batch_listing_failed(
    cache: &Cache,
    ns: &Namespace,
    keys: &ZendHashTable,
) -> PhpResult<Option<ZBox<ZendHashTable>>> {
    if !hash::values(keys).all(PlainKey::is_plain) {
        return Ok(None);
    }
    let mut failed = ZendHashTable::new();
    let mut errors = Deferred::new();
    let mut push_failed = None;
    let batch = hash::values(keys).filter_map(|k| PlainKey::of(k).map(|p| PlainDelete(p, k)));
    cache.delete_each(ns, batch, |PlainDelete(_, k), live| {
        if !matches!(live, Ok(true)) {
            if let Err(e) = live {
                errors.keep(e);
            }
            push_failed = failed.push(k.shallow_clone()).err();
        }
        push_failed.is_none()
    });
    if let Some(e) = push_failed {
        return Err(e.into());
    }
    errors.raise_then(failed).map(Some)
}

/// An item of `store_batch`: its key as the array has it and as bytes, and its encoded value.
struct WriteItem<'a> {
    key: Key<'a>,
    bytes: KeyBytes<'a>,
    kind: ValueKind,
    data: &'a [u8],
}

impl<'a> WriteItem<'a> {
    /// The item of a value `codec::encode_into_php_string` made; None for any other value.
    fn of_encoded(key: Key<'a>, bytes: KeyBytes<'a>, encoded: &'a Zval) -> Option<WriteItem<'a>> {
        let (kind, data) = codec::split_php_encoded(encoded)?;
        Some(WriteItem { key, bytes, kind, data })
    }

    fn parts(&self) -> (&[u8], ValueKind, &[u8]) {
        (&self.bytes, self.kind, self.data)
    }
}

/// `store_multi` on this region alone, as one engine batch (`Cache::write_each`: the index
/// lines and entries of a group of keys requested together), from the array of encoded values
/// `store_multi` made (keys checked there). Warnings of refused values are raised after the
/// batch, as in `delete_batch`: their error handler may run for as long as it likes, and the
/// backend is chosen once for the batch.
pub(super) fn store_batch(
    cache: &Cache,
    ns: &Namespace,
    mode: WriteMode,
    ttl: i64,
    encoded: &ZendHashTable,
    key_what: &dyn Fn() -> String,
    mut failed: ZBox<ZendHashTable>,
) -> PhpResult<(ZBox<ZendHashTable>, Deferred)> {
    let mut errors = Deferred::new();
    let mut push_failed = None;
    let items = hash::elements(encoded).filter_map(|(key, v)| {
        // (Every key passed array_key_bytes when its value was encoded.)
        WriteItem::of_encoded(key, array_key_bytes(key, key_what).ok()?, v)
    });
    cache.write_each(ns, items, WriteItem::parts, mode, ttl, |item, stored| {
        if !errors.stored_or_keep(stored) {
            let pushed = match item.key {
                Key::Str(key) => failed.push(codec::string_zval(key.as_bytes())),
                Key::Index(i) => failed.push(i),
            };
            push_failed = pushed.err();
        }
        push_failed.is_none()
    });
    if let Some(e) = push_failed {
        return Err(e.into());
    }
    Ok((failed, errors))
}

/// Errors of a batch, raised once it is done (`raise_then`), as `error_or_warning` raises
/// each: so no user code runs in the middle of a batch (an error handler may take as long as it
/// likes, and change keys held by reference). The warnings' texts wait in a PHP array.
pub(super) struct Deferred {
    warnings: ZBox<ZendHashTable>,
    thrown: Option<Error>,
    /// Every error a warning, none thrown (the `apcu_*` functions' way).
    warn_only: bool,
}

impl Deferred {
    fn new() -> Deferred {
        Deferred { warnings: ZendHashTable::new(), thrown: None, warn_only: false }
    }

    fn warning_only() -> Deferred {
        Deferred { warn_only: true, ..Deferred::new() }
    }

    /// Keeps `e` for `raise_then`.
    fn keep(&mut self, e: Error) {
        match e {
            Error::EmptyKey | Error::KeyTooLong { .. } | Error::NamespaceTooLong { .. }
                if !self.warn_only =>
            {
                self.thrown.get_or_insert(e);
            }
            other => {
                let _ = self.warnings.push(codec::string_zval(other.to_string().as_bytes()));
            }
        }
    }

    /// Whether a write of the batch stored its value; an error is kept for `raise_then`.
    fn stored_or_keep(&mut self, stored: Result<bool, Error>) -> bool {
        stored.unwrap_or_else(|e| {
            self.keep(e);
            false
        })
    }

    /// Raises the warnings in the order they came, then the first error that throws, and
    /// returns `result` unless that threw. An error handler that ends the request with a fatal
    /// error skips our frames: the arrays are held meanwhile (`held`), and the caller has
    /// dropped everything else of its own.
    pub(super) fn raise_then(self, result: ZBox<ZendHashTable>) -> PhpResult<ZBox<ZendHashTable>> {
        let result = held::hold(result);
        let warnings = held::hold(self.warnings);
        for text in hash::values(warnings.get()) {
            if let Some(text) = text.str() {
                warn::warning(text);
            }
        }
        drop(warnings.release());
        let result = result.release();
        match self.thrown {
            Some(e) => error_or_warning(e).map(|_| result),
            None => Ok(result),
        }
    }
}

/// `apcu_store()` / `apcu_add()` (`mode`) of an array of key => value in namespace `ns`: the
/// keys that were not stored, each mapped to -1, as APCu returns them. Runs of elements whose
/// value is a string, a number, a bool or null under a key that is not empty are written as one
/// engine batch each (`Cache::write_each`), their warnings raised after it (every error a
/// warning, as APCu's); any other element (an array or object, whose encoding may run
/// serialize() and so user code, a resource, the empty key, which lives in its own namespace)
/// first ends the run, then goes to `alone`, which stores it as a single call does. So the
/// writes, warnings and exceptions keep the array's order, an exception stopping at its key.
pub(super) fn apcu_store_array(
    cache: &Cache,
    ns: &Namespace,
    values: &ZendHashTable,
    mode: WriteMode,
    ttl: i64,
    what: &dyn Fn() -> String,
    mut alone: impl FnMut(Key<'_>, &Zval) -> PhpResult<bool>,
) -> PhpResult<ZBox<ZendHashTable>> {
    let mut failed = ZendHashTable::new();
    let mut run = ZendHashTable::new();
    for (key, value) in hash::elements(values) {
        let value = value.dereference();
        let simple = !matches!(key, Key::Str(s) if s.as_bytes().is_empty())
            && (value.is_string()
                || value.is_long()
                || value.is_double()
                || value.is_bool()
                || value.is_null());
        if simple {
            let z = codec::encode_into_php_string(value, what)?;
            match key {
                Key::Str(k) => run.insert(k, z)?,
                Key::Index(i) => run.insert(i, z)?,
            }
            continue;
        }
        if run.len() > 0 {
            failed = write_apcu_run(cache, ns, run, mode, ttl, failed)?;
            run = ZendHashTable::new();
        }
        if !alone(key, value)? {
            failed_minus_one(&mut failed, key);
        }
    }
    if run.len() > 0 {
        failed = write_apcu_run(cache, ns, run, mode, ttl, failed)?;
    }
    Ok(failed)
}

/// One run of `apcu_store_array`: written as a batch, its failures added to `failed`, its
/// warnings raised once it is written and released (see `Deferred::raise_then`).
fn write_apcu_run(
    cache: &Cache,
    ns: &Namespace,
    run: ZBox<ZendHashTable>,
    mode: WriteMode,
    ttl: i64,
    mut failed: ZBox<ZendHashTable>,
) -> PhpResult<ZBox<ZendHashTable>> {
    let mut errors = Deferred::warning_only();
    let items = hash::elements(&run).filter_map(|(key, v)| {
        let bytes = match key {
            Key::Str(s) => KeyBytes::Borrowed(s.as_bytes()),
            Key::Index(i) => KeyBytes::int(i),
        };
        WriteItem::of_encoded(key, bytes, v)
    });
    cache.write_each(ns, items, WriteItem::parts, mode, ttl, |item, stored| {
        if !errors.stored_or_keep(stored) {
            failed_minus_one(&mut failed, item.key);
        }
        true
    });
    drop(run);
    errors.raise_then(failed)
}

/// `failed[key] = -1`, as APCu lists a key it did not store (a numeric string key as an int).
fn failed_minus_one(failed: &mut ZendHashTable, key: Key<'_>) {
    let mut minus_one = Zval::new();
    minus_one.set_long(-1);
    match key {
        Key::Str(s) => hash::symtable_update(failed, s, &mut minus_one),
        Key::Index(i) => hash::index_update(failed, i, &mut minus_one),
    }
}
