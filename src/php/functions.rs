//! The `shmcache_*` functions: the root namespace, so flushing means everything.

use std::sync::OnceLock;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::args::{ArrayArg, Found, IntArg, KeyArg};
use super::info;
use super::ops;
use crate::engine::{Namespace, WriteMode};

pub(super) fn root() -> &'static Namespace {
    static ROOT: OnceLock<Namespace> = OnceLock::new();
    ROOT.get_or_init(Namespace::root)
}

#[php_function]
#[php(name = "shmcache_get")]
pub fn shmcache_get(key: KeyArg, mut found: Found) -> PhpResult<Zval> {
    ops::get(root(), "shmcache_get", key.0, &mut found)
}

#[php_function]
#[php(name = "shmcache_get_multi")]
pub fn shmcache_get_multi(keys: ArrayArg) -> PhpResult<ZBox<ZendHashTable>> {
    ops::get_multi(root(), "shmcache_get_multi", keys)
}

#[php_function]
#[php(name = "shmcache_set")]
#[php(defaults(ttl = 0))]
pub fn shmcache_set(key: KeyArg, value: &Zval, ttl: IntArg) -> PhpResult<bool> {
    ops::store(root(), "shmcache_set", WriteMode::Set, key.0, value, ttl)
}

#[php_function]
#[php(name = "shmcache_set_multi")]
#[php(defaults(ttl = 0))]
pub fn shmcache_set_multi(values: ArrayArg, ttl: IntArg) -> PhpResult<ZBox<ZendHashTable>> {
    ops::store_multi(root(), "shmcache_set_multi", WriteMode::Set, values, ttl)
}

#[php_function]
#[php(name = "shmcache_add")]
#[php(defaults(ttl = 0))]
pub fn shmcache_add(key: KeyArg, value: &Zval, ttl: IntArg) -> PhpResult<bool> {
    ops::store(root(), "shmcache_add", WriteMode::Add, key.0, value, ttl)
}

#[php_function]
#[php(name = "shmcache_add_multi")]
#[php(defaults(ttl = 0))]
pub fn shmcache_add_multi(values: ArrayArg, ttl: IntArg) -> PhpResult<ZBox<ZendHashTable>> {
    ops::store_multi(root(), "shmcache_add_multi", WriteMode::Add, values, ttl)
}

#[php_function]
#[php(name = "shmcache_replace")]
#[php(defaults(ttl = 0))]
pub fn shmcache_replace(key: KeyArg, value: &Zval, ttl: IntArg) -> PhpResult<bool> {
    ops::store(root(), "shmcache_replace", WriteMode::Replace, key.0, value, ttl)
}

#[php_function]
#[php(name = "shmcache_cas")]
pub fn shmcache_cas(key: KeyArg, old: IntArg, new: IntArg) -> PhpResult<bool> {
    ops::cas(root(), "shmcache_cas", key.0, old, new)
}

#[php_function]
#[php(name = "shmcache_incr")]
#[php(defaults(step = 1))]
pub fn shmcache_incr(key: KeyArg, step: IntArg) -> PhpResult<Zval> {
    ops::incr(root(), "shmcache_incr", key.0, step, false)
}

#[php_function]
#[php(name = "shmcache_decr")]
#[php(defaults(step = 1))]
pub fn shmcache_decr(key: KeyArg, step: IntArg) -> PhpResult<Zval> {
    ops::incr(root(), "shmcache_decr", key.0, step, true)
}

#[php_function]
#[php(name = "shmcache_delete")]
pub fn shmcache_delete(key: KeyArg) -> PhpResult<bool> {
    ops::delete(root(), "shmcache_delete", key.0)
}

#[php_function]
#[php(name = "shmcache_delete_multi")]
pub fn shmcache_delete_multi(keys: ArrayArg) -> PhpResult<ZBox<ZendHashTable>> {
    ops::delete_multi(root(), "shmcache_delete_multi", keys)
}

#[php_function]
#[php(name = "shmcache_exists")]
pub fn shmcache_exists(key: KeyArg) -> PhpResult<bool> {
    ops::exists(root(), "shmcache_exists", key.0)
}

#[php_function]
#[php(name = "shmcache_ttl")]
pub fn shmcache_ttl(key: KeyArg) -> PhpResult<Zval> {
    ops::ttl(root(), "shmcache_ttl", key.0)
}

#[php_function]
#[php(name = "shmcache_flush")]
pub fn shmcache_flush() -> bool {
    ops::flush(root())
}

/// Starts a new logical request in a long-lived worker (FrankenPHP worker mode, RoadRunner,
/// Swoole, Octane, a queue consumer): what a new PHP request starts with, now. In tiered mode
/// the tier syncs with Redis at once (every server's writes that returned before this call are
/// seen after it) and the request's trust, warnings and region check start over. True when the
/// cache can be used (tiered: Redis answered).
#[php_function]
#[php(name = "shmcache_begin_request")]
pub fn shmcache_begin_request() -> bool {
    super::tier::begin_logical_request()
}

#[php_function]
#[php(name = "shmcache_info")]
pub fn shmcache_info() -> PhpResult<ZBox<ZendHashTable>> {
    info::info_array(None)
}

pub fn register(module: ModuleBuilder) -> ModuleBuilder {
    module
        .function(wrap_function!(shmcache_get))
        .function(wrap_function!(shmcache_get_multi))
        .function(wrap_function!(shmcache_set))
        .function(wrap_function!(shmcache_set_multi))
        .function(wrap_function!(shmcache_add))
        .function(wrap_function!(shmcache_add_multi))
        .function(wrap_function!(shmcache_replace))
        .function(wrap_function!(shmcache_cas))
        .function(wrap_function!(shmcache_incr))
        .function(wrap_function!(shmcache_decr))
        .function(wrap_function!(shmcache_delete))
        .function(wrap_function!(shmcache_delete_multi))
        .function(wrap_function!(shmcache_exists))
        .function(wrap_function!(shmcache_ttl))
        .function(wrap_function!(shmcache_flush))
        .function(wrap_function!(shmcache_begin_request))
        .function(wrap_function!(shmcache_info))
}
