//! APCu's user-cache functions (`apcu_fetch`, `apcu_store`, ...) on the shared region, for code
//! written against APCu. Registered at MINIT only when `shmcache.apcu_compat=1` (and APCu itself
//! is not loaded): without the setting no `apcu_*` function exists, so `function_exists()`
//! checks in applications keep meaning "APCu is here".
//!
//! The entries live in their own namespace, "apcu": `apcu_clear_cache()` flushes it in O(1)
//! without touching the shmcache_* keys or a WordPress object cache in the same region, and
//! `new ShmCache('apcu')` sees the same keys. APCu accepts the empty key, which shmcache keys
//! cannot be: it is kept in a second namespace of its own. docs/apcu.md lists where the
//! behaviour differs from APCu's.

mod entry;
mod functions;
mod handlers;
pub(super) mod iterator;
mod lease;
pub(super) mod module;
mod params;
mod reports;
mod store;

use std::ffi::c_int;
use std::sync::OnceLock;

use ext_php_rs::ffi::zend_function_entry;

use crate::php::ffi::{zend_register_functions, zend_unregister_functions};

pub(super) use self::lease::release_abandoned_leases;

const MODULE_PERSISTENT: c_int = 1;

/// The hand-written apcu_* handlers (`handlers`), when this module registered the functions
/// (never over APCu's own).
pub(super) fn install_handlers(functions: *const ext_php_rs::ffi::HashTable) {
    if REGISTERED.get().is_some() {
        handlers::install(functions);
    }
}

/// The function table registered at MINIT, kept for MSHUTDOWN (process lifetime otherwise).
struct Registered {
    entries: Box<[zend_function_entry]>,
}

// SAFETY: written once at MINIT and read at MSHUTDOWN, both on PHP's single startup thread (NTS).
unsafe impl Send for Registered {}
unsafe impl Sync for Registered {}

static REGISTERED: OnceLock<Registered> = OnceLock::new();

/// Registers the apcu_* functions (MINIT, with `shmcache.apcu_compat=1`).
pub fn register(module_number: i32) -> Result<(), String> {
    let [fetch, store, add, delete, exists, inc, dec, cas, clear_cache, enabled] =
        functions::builders();
    let [cache_info, sma_info, key_info] = reports::builders();
    let builders = [
        fetch,
        store,
        add,
        delete,
        exists,
        inc,
        dec,
        cas,
        entry::builder(),
        clear_cache,
        cache_info,
        sma_info,
        key_info,
        enabled,
    ];
    let mut entries = Vec::with_capacity(builders.len() + 1);
    for builder in builders {
        let (entry, arg_info) = builder
            .build()
            .map_err(|e| format!("shmcache: could not build the apcu_* functions: {e}"))?;
        // PHP keeps pointing at the argument info (reflection reads it): it lives as long as
        // the process.
        std::mem::forget(arg_info);
        entries.push(entry);
    }
    // SAFETY: an all-zero zend_function_entry is the table's terminator (a null name).
    entries.push(unsafe { std::mem::zeroed() });
    let registered = Registered { entries: entries.into_boxed_slice() };
    // SAFETY: a NUL-terminated table of entries built by ext-php-rs, which stays alive (in
    // REGISTERED) until MSHUTDOWN unregisters it; called during MINIT, when PHP registers
    // functions of the module being started.
    let r = unsafe {
        zend_register_functions(
            std::ptr::null_mut(),
            registered.entries.as_ptr(),
            std::ptr::null_mut(),
            MODULE_PERSISTENT,
        )
    };
    if r != 0 {
        return Err("shmcache: could not register the apcu_* functions (is another extension defining them?)".into());
    }
    let _ = REGISTERED.set(registered);
    iterator::register(module_number)
}

/// MSHUTDOWN: removes the functions `register` added (PHP only removes a module's own table).
pub fn unregister() {
    if let Some(registered) = REGISTERED.get() {
        let count = (registered.entries.len() - 1) as c_int;
        // SAFETY: the same table `register` registered, still alive; PHP is shutting the
        // module down and no PHP code runs any more.
        unsafe {
            zend_unregister_functions(registered.entries.as_ptr(), count, std::ptr::null_mut())
        };
    }
}
