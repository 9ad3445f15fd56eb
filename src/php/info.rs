//! `shmcache_info()` and the phpinfo() section.

use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::*;
use ext_php_rs::types::ZendHashTable;
use ext_php_rs::zend::ModuleEntry;
use ext_php_rs::{info_table_end, info_table_header, info_table_row, info_table_start};

use super::ffi::display_ini_entries;
use super::region::cache;
use super::{codec, ini, named, tier, VERSION};
use crate::engine::{Namespace, Stats, LAYOUT_VERSION, MAX_KEY_LEN};

fn counters(s: &Stats) -> [(&'static str, u64); 24] {
    [
        ("hits", s.hits),
        ("misses", s.misses),
        ("sets", s.sets),
        ("deletes", s.deletes),
        ("kicks", s.kicks),
        ("recycles", s.recycles),
        ("expired", s.expired),
        ("validation_failures", s.validation_failures),
        ("validation_failures_lapped", s.validation_lapped),
        ("validation_failures_corrupt", s.validation_corrupt),
        ("slots_total", s.slots_total),
        ("slots_used", s.slots_used),
        ("keys_memory_size", s.keys_memory_size),
        ("values_memory_size", s.values_memory_size),
        ("values_written_bytes", s.values_written_bytes),
        ("values_used_bytes", s.ring_used),
        ("compressed_count", s.compressed_count),
        ("compress_threshold", s.compress_threshold),
        ("flushes", s.flushes),
        ("namespace_flushes", s.namespace_flushes),
        ("namespaces_used", s.namespaces_used),
        ("cas_retries", s.cas_retries),
        ("max_value_size", s.max_value_size),
        ("start_time", s.start_time),
    ]
}

pub fn info_array(ns: Option<&Namespace>) -> PhpResult<ZBox<ZendHashTable>> {
    let mut ht = ZendHashTable::new();
    ht.insert("enabled", cache().is_some())?;
    ht.insert("version", VERSION)?;
    ht.insert("sapi", ini::sapi_name())?;
    ht.insert("max_key_length", MAX_KEY_LEN as i64)?;
    if let Some(ns) = ns {
        ht.insert("namespace", codec::string_zval(ns.name()))?;
    }
    match named::status() {
        Some(status) => {
            ht.insert("region", status.name.as_str())?;
            ht.insert(
                "region_path",
                status.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default(),
            )?;
            ht.insert("region_opened", status.opened.unwrap_or(""))?;
            if let Some(error) = &status.error {
                ht.insert("region_error", error.as_str())?;
            }
        }
        None => {
            ht.insert("region", "")?;
            ht.insert("region_path", "")?;
            ht.insert("region_opened", if cache().is_some() { "anonymous" } else { "" })?;
        }
    }
    ht.insert("layout_version", LAYOUT_VERSION as i64)?;
    if let Some(c) = cache() {
        let stats = c.stats();
        for (name, v) in counters(&stats) {
            ht.insert(name, v as i64)?;
        }
        ht.insert("slots_used_estimated", stats.slots_used_estimated)?;
    }
    if let Some((url, c, error)) = tier::status() {
        ht.insert("tier_redis", url.as_str())?;
        if let Some(error) = error {
            ht.insert("tier_error", error.as_str())?;
        }
        if let Some(last) = tier::last_error() {
            ht.insert("tier_last_error", last.as_str())?;
        }
        for (name, v) in tier_counters(&c) {
            ht.insert(name, v as i64)?;
        }
    }
    Ok(ht)
}

/// This worker's tier counters (each worker has its own connection and counts its own).
fn tier_counters(c: &crate::tier::TierCounters) -> [(&'static str, u64); 9] {
    [
        ("tier_round_trips", c.round_trips),
        ("tier_near_hits", c.near_hits),
        ("tier_near_misses", c.near_misses),
        ("tier_redis_errors", c.redis_errors),
        ("tier_untrusted_requests", c.untrusted_requests),
        ("tier_invalidations_applied", c.invalidations_applied),
        ("tier_near_flushes", c.near_flushes),
        ("tier_stale_fills_dropped", c.stale_fills_dropped),
        ("tier_lag_ms", c.lag_ms),
    ]
}

pub extern "C" fn php_info(module: *mut ModuleEntry) {
    info_table_start!();
    info_table_header!("shmcache support", if cache().is_some() { "enabled" } else { "disabled" });
    info_table_row!("version", VERSION);
    info_table_row!("max key length", MAX_KEY_LEN.to_string());
    match named::status() {
        Some(status) => {
            let path = status.path.as_ref().map(|p| p.display().to_string()).unwrap_or_default();
            info_table_row!(
                "region",
                format!("{} ({path}, {})", status.name, status.opened.unwrap_or("not open"))
            );
            if let Some(error) = &status.error {
                info_table_row!("region error", error.as_str());
            }
        }
        None => info_table_row!("region", "anonymous (this FPM master and its workers)"),
    }
    if let Some(c) = cache() {
        for (name, v) in counters(&c.stats()) {
            info_table_row!(name, v.to_string());
        }
    }
    if let Some((url, c, error)) = tier::status() {
        info_table_row!("tier (Redis)", url.as_str());
        if let Some(error) = error {
            info_table_row!("tier error", error.as_str());
        }
        if let Some(last) = tier::last_error() {
            info_table_row!("tier last error", last.as_str());
        }
        for (name, v) in tier_counters(&c) {
            info_table_row!(name, v.to_string());
        }
    }
    info_table_end!();
    // SAFETY: module is the entry PHP passed to this callback; this is DISPLAY_INI_ENTRIES().
    unsafe { display_ini_entries(module) };
}
