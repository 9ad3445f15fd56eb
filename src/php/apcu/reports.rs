//! `apcu_cache_info()`, `apcu_sma_info()` and `apcu_key_info()`: the region's counters and
//! an entry's times, in APCu's shapes.

use ext_php_rs::boxed::ZBox;
use ext_php_rs::builders::FunctionBuilder;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::iterator;
use super::params::{arg, false_zval, string_param};
use super::store::{failed_with_warning, locate};
use crate::engine::MAX_KEY_LEN;
use crate::php::args::KeyArg;
use crate::php::region::cache;
use crate::php::warn::warning;

#[php_function]
#[php(name = "apcu_cache_info")]
#[php(defaults(limited = false))]
pub fn apcu_cache_info(limited: bool) -> PhpResult<Zval> {
    let Some(cache) = cache() else {
        warning("No APC info available.  Perhaps APC is not enabled? Check apc.enabled in your ini file");
        return Ok(false_zval());
    };
    let s = cache.stats();
    let mut info = ZendHashTable::new();
    info.insert("num_slots", s.slots_total as i64)?;
    info.insert("ttl", 0i64)?;
    info.insert("num_hits", s.hits as f64)?;
    info.insert("num_misses", s.misses as f64)?;
    info.insert("num_inserts", s.sets as f64)?;
    info.insert("num_entries", s.slots_used as i64)?;
    info.insert("expunges", s.kicks as f64)?;
    info.insert("start_time", s.start_time as i64)?;
    info.insert("mem_size", s.ring_used as f64)?;
    info.insert("memory_type", "mmap")?;
    if !limited {
        let mut list = ZendHashTable::new();
        for entry in iterator::listing(&iterator::Search::All) {
            list.push(iterator::cache_list_row(&entry)?)?;
        }
        info.insert("cache_list", list)?;
        // Deleted entries are not kept anywhere, and the key index has no hash chains.
        info.insert("deleted_list", ZendHashTable::new())?;
        info.insert("slot_distribution", ZendHashTable::new())?;
    }
    let mut z = Zval::new();
    z.set_hashtable(info);
    Ok(z)
}

#[php_function]
#[php(name = "apcu_sma_info")]
#[php(defaults(limited = false))]
pub fn apcu_sma_info(limited: bool) -> PhpResult<Zval> {
    let Some(cache) = cache() else {
        warning("No APC SMA info available.  Perhaps APC is disabled via apc.enabled?");
        return Ok(false_zval());
    };
    let s = cache.stats();
    let avail = s.values_memory_size.saturating_sub(s.ring_used);
    let mut info = ZendHashTable::new();
    info.insert("num_seg", 1i64)?;
    info.insert("seg_size", s.values_memory_size as f64)?;
    info.insert("avail_mem", avail as f64)?;
    if !limited {
        // The value ring has one free stretch: from the write position to the oldest entry.
        let mut block = ZendHashTable::new();
        block.insert("size", avail as i64)?;
        block.insert("offset", s.ring_used as i64)?;
        let mut segment = ZendHashTable::new();
        segment.push(block)?;
        let mut lists = ZendHashTable::new();
        lists.push(segment)?;
        info.insert("block_lists", lists)?;
    }
    let mut z = Zval::new();
    z.set_hashtable(info);
    Ok(z)
}

#[php_function]
#[php(name = "apcu_key_info")]
pub fn apcu_key_info(key: KeyArg) -> PhpResult<Option<ZBox<ZendHashTable>>> {
    let Some(key) = string_param(key.0, &arg("apcu_key_info", 1, "key"))? else { return Ok(None) };
    let Some(cache) = cache() else { return Ok(None) };
    if key.len() > MAX_KEY_LEN {
        return Ok(None);
    }
    let (ns, k) = locate(&key);
    let Some(times) = cache.times(ns, k).unwrap_or_else(failed_with_warning) else {
        return Ok(None);
    };
    let mut info = ZendHashTable::new();
    // Entries keep their store time and expiry, but no hit count nor last access: those would
    // be a shared write on every read.
    info.insert("hits", 0i64)?;
    info.insert("access_time", 0i64)?;
    info.insert("mtime", times.stored_at as i64)?;
    info.insert("creation_time", times.stored_at as i64)?;
    info.insert("deletion_time", 0i64)?;
    info.insert("ttl", iterator::ttl_of(&times))?;
    info.insert("refs", 0i64)?;
    Ok(Some(info))
}

/// The functions above, for `register`.
pub(super) fn builders() -> [FunctionBuilder<'static>; 3] {
    [wrap_function!(apcu_cache_info), wrap_function!(apcu_sma_info), wrap_function!(apcu_key_info)]
}
