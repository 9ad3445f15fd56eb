//! The hand-written call handlers (see `handler`) of the nine hottest shmcache calls, as
//! functions and as `ShmCache` methods: get, set, add, replace, incr, decr, cas, delete and
//! exists. Each serves the call when its argument count is right and its int arguments
//! (`$ttl`, `$step`, `$old`, `$new`) are not null, with the same `ops` code the generated
//! handler calls; every other call goes to the generated handler.

use ext_php_rs::ffi::{zend_execute_data, zval, HashTable};

use super::args::{Found, IntArg};
use super::class::ShmCache;
use super::functions::root;
use super::handler::{
    dispatch, install as swap, Call, Declined, Flag, Generated, Handler, Served, Written,
};
use super::ops;
use crate::engine::{Namespace, WriteMode};

/// An optional int argument with a default; a null one is declined (the generated handler
/// throws its TypeError).
fn int_arg<'a>(c: &Call<'a>, n: usize, default: i64) -> Result<IntArg<'a>, Declined> {
    match c.arg(n) {
        None => Ok(IntArg::Default(default)),
        Some(z) if z.is_null() => Err(Declined),
        Some(z) => Ok(IntArg::Given(z)),
    }
}

/// The namespace of the ShmCache object the method is called on; declined without one (the
/// generated handler throws).
fn namespace<'a>(c: &Call<'a>) -> Result<&'a Namespace, Declined> {
    c.object::<ShmCache>().map(|object| &object.ns).ok_or(Declined)
}

#[inline(always)]
fn store(c: &mut Call<'_>, ns: &Namespace, func: &str, mode: WriteMode) -> Served<Flag> {
    c.count(2, 3)?;
    let ttl = int_arg(c, 2, 0)?;
    let (key, value) = (c.arg(0).ok_or(Declined)?, c.arg(1).ok_or(Declined)?);
    Ok(Some(ops::store(ns, func, mode, key, value, ttl).map(Flag)))
}

#[inline(always)]
fn incr(c: &mut Call<'_>, ns: &Namespace, func: &str, negate: bool) -> Served<Written> {
    c.count(1, 2)?;
    let step = int_arg(c, 1, 1)?;
    let key = c.arg(0).ok_or(Declined)?;
    let out = c.retval();
    Ok(Some(ops::incr_into(ns, func, key, step, negate, out).map(|()| Written)))
}

#[inline(always)]
fn cas(c: &mut Call<'_>, ns: &Namespace, func: &str) -> Served<Flag> {
    c.count(3, 3)?;
    let (old, new) = (int_arg(c, 1, 0)?, int_arg(c, 2, 0)?);
    Ok(Some(ops::cas(ns, func, c.arg(0).ok_or(Declined)?, old, new).map(Flag)))
}

#[inline(always)]
fn get(c: &mut Call<'_>, ns: &Namespace, func: &str) -> Served<Written> {
    c.count(1, 2)?;
    let key = c.arg(0).ok_or(Declined)?;
    let mut found = Found::from_argument(c.raw_arg(1));
    let out = c.retval();
    Ok(Some(ops::get_into(ns, func, key, &mut found, out).map(|()| Written)))
}

#[inline(always)]
fn delete(c: &mut Call<'_>, ns: &Namespace, func: &str) -> Served<Flag> {
    c.count(1, 1)?;
    Ok(Some(ops::delete(ns, func, c.arg(0).ok_or(Declined)?).map(Flag)))
}

#[inline(always)]
fn exists(c: &mut Call<'_>, ns: &Namespace, func: &str) -> Served<Flag> {
    c.count(1, 1)?;
    Ok(Some(ops::exists(ns, func, c.arg(0).ok_or(Declined)?).map(Flag)))
}

/// A function of the root namespace and its ShmCache method twin, from one body, each with the
/// generated handler it replaces.
macro_rules! handlers {
    ($function:ident, $method:ident, $fname:literal, $mname:literal, |$c:ident, $ns:ident, $name:ident| $body:expr) => {
        mod $function {
            pub(super) static GENERATED: super::Generated = super::Generated::new();
        }
        mod $method {
            pub(super) static GENERATED: super::Generated = super::Generated::new();
        }

        unsafe extern "C" fn $function(ex: *mut zend_execute_data, retval: *mut zval) {
            dispatch(ex, retval, &$function::GENERATED, |$c| {
                let $ns = root();
                let $name = $fname;
                $body
            });
        }

        unsafe extern "C" fn $method(ex: *mut zend_execute_data, retval: *mut zval) {
            dispatch(ex, retval, &$method::GENERATED, |$c| {
                let $ns = namespace($c)?;
                let $name = $mname;
                $body
            });
        }
    };
}

handlers!(function_get, method_get, "shmcache_get", "ShmCache::get", |c, ns, name| get(
    c, ns, name
));
handlers!(function_set, method_set, "shmcache_set", "ShmCache::set", |c, ns, name| store(
    c,
    ns,
    name,
    WriteMode::Set
));
handlers!(function_add, method_add, "shmcache_add", "ShmCache::add", |c, ns, name| store(
    c,
    ns,
    name,
    WriteMode::Add
));
handlers!(
    function_replace,
    method_replace,
    "shmcache_replace",
    "ShmCache::replace",
    |c, ns, name| store(c, ns, name, WriteMode::Replace)
);
handlers!(function_incr, method_incr, "shmcache_incr", "ShmCache::incr", |c, ns, name| incr(
    c, ns, name, false
));
handlers!(function_decr, method_decr, "shmcache_decr", "ShmCache::decr", |c, ns, name| incr(
    c, ns, name, true
));
handlers!(function_cas, method_cas, "shmcache_cas", "ShmCache::cas", |c, ns, name| cas(
    c, ns, name
));
handlers!(function_delete, method_delete, "shmcache_delete", "ShmCache::delete", |c, ns, name| {
    delete(c, ns, name)
});
handlers!(function_exists, method_exists, "shmcache_exists", "ShmCache::exists", |c, ns, name| {
    exists(c, ns, name)
});

/// Swaps the hand-written handlers in (`handler::install_once`).
pub(super) fn install(functions: *const HashTable) {
    let class = ShmCache::class_entry();
    let methods = std::ptr::addr_of!(class.function_table);
    type Swap = (&'static str, Handler, &'static Generated);
    let pairs: [(Swap, Swap); 9] = [
        (
            ("shmcache_get", function_get, &function_get::GENERATED),
            ("get", method_get, &method_get::GENERATED),
        ),
        (
            ("shmcache_set", function_set, &function_set::GENERATED),
            ("set", method_set, &method_set::GENERATED),
        ),
        (
            ("shmcache_add", function_add, &function_add::GENERATED),
            ("add", method_add, &method_add::GENERATED),
        ),
        (
            ("shmcache_replace", function_replace, &function_replace::GENERATED),
            ("replace", method_replace, &method_replace::GENERATED),
        ),
        (
            ("shmcache_incr", function_incr, &function_incr::GENERATED),
            ("incr", method_incr, &method_incr::GENERATED),
        ),
        (
            ("shmcache_decr", function_decr, &function_decr::GENERATED),
            ("decr", method_decr, &method_decr::GENERATED),
        ),
        (
            ("shmcache_cas", function_cas, &function_cas::GENERATED),
            ("cas", method_cas, &method_cas::GENERATED),
        ),
        (
            ("shmcache_delete", function_delete, &function_delete::GENERATED),
            ("delete", method_delete, &method_delete::GENERATED),
        ),
        (
            ("shmcache_exists", function_exists, &function_exists::GENERATED),
            ("exists", method_exists, &method_exists::GENERATED),
        ),
    ];
    for (
        (function, function_handler, function_generated),
        (method, method_handler, method_generated),
    ) in pairs
    {
        swap(functions, function, function_handler, function_generated);
        swap(methods, method, method_handler, method_generated);
    }
}
