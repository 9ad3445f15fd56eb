//! `shmcache.apcu_compat=1`: a module entry named `apcu`, so that applications that look for
//! the APCu extension rather than for its functions find it: `extension_loaded('apcu')`,
//! `phpversion('apcu')` (Nextcloud requires 5.1.0 or later), `php -m`, `phpinfo()`,
//! `ReflectionExtension('apcu')`. The entry has no functions, settings or hooks of its own: the
//! apcu_* functions, `APCUIterator` and the `apc.*` mirrors stay shmcache's (`apcu/`,
//! `ini.rs`). Registered during shmcache's MINIT, so it follows shmcache in PHP's module
//! registry and is destroyed before shmcache's library is unloaded (the registry is destroyed
//! in reverse order): its callback and strings are never used after that.

use std::ffi::CString;

use ext_php_rs::zend::{ExecutorGlobals, ModuleEntry};
use ext_php_rs::{info_table_end, info_table_row, info_table_start};

use crate::php::ffi::zend_register_internal_module;

/// The APCu release whose user-cache API shmcache provides (its functions, warnings and phpt
/// suite were compared with this one, docs/apcu.md): what `phpversion('apcu')` says.
pub const APCU_API_VERSION: &str = "5.1.22";

/// Registers the `apcu` module entry (MINIT, after the apcu_* functions).
pub fn register() -> Result<(), String> {
    let name = CString::new("apcu").expect("no NUL");
    let version = CString::new(APCU_API_VERSION).expect("no NUL");
    // SAFETY: zend_module_entry is a C struct of integers, pointers and optional callbacks, for
    // which all zeroes is valid (no functions, INI entries, dependencies, hooks or globals).
    let mut entry: ModuleEntry = unsafe { std::mem::zeroed() };
    entry.size = std::mem::size_of::<ModuleEntry>() as _;
    entry.zend_api = ext_php_rs::ffi::ZEND_MODULE_API_NO;
    entry.zend_debug = u8::from(ext_php_rs::PHP_DEBUG);
    entry.zts = u8::from(ext_php_rs::PHP_ZTS);
    // PHP keeps these for the life of the process (the registry points at them).
    entry.name = name.into_raw().cast_const();
    entry.version = version.into_raw().cast_const();
    entry.info_func = Some(info);
    // SAFETY: the build id PHP compiled this extension against (a static string of PHP's).
    entry.build_id = unsafe { ext_php_rs::ffi::ext_php_rs_php_build_id() };
    let entry = Box::into_raw(Box::new(entry));
    // PHP points `EG(current_module)` at the module it registers and then clears it, but
    // shmcache's own MINIT is still running (ext-php-rs registers its classes after this, and
    // needs it): it is put back.
    let current = ExecutorGlobals::get().current_module;
    // SAFETY: a complete entry that lives as long as the process. Called during MINIT, on the
    // startup thread, while PHP starts the modules with zend_hash_apply over its registry,
    // which reads each element at its index afresh, so an element added meanwhile (this one)
    // is safe to add and is started by the same pass (it has nothing to start).
    let registered = unsafe { zend_register_internal_module(entry) };
    ExecutorGlobals::get_mut().current_module = current;
    if registered.is_null() {
        return Err(
            "shmcache: could not register the apcu module entry for shmcache.apcu_compat".into()
        );
    }
    Ok(())
}

/// The module's phpinfo() section: who provides it.
extern "C" fn info(_module: *mut ModuleEntry) {
    info_table_start!();
    info_table_row!(
        "APCu Support",
        if crate::php::region::cache().is_some() { "Enabled" } else { "Disabled" }
    );
    info_table_row!("Version", APCU_API_VERSION);
    info_table_row!(
        "Provided by",
        format!("shmcache {} (shmcache.apcu_compat=1)", crate::php::VERSION)
    );
    info_table_end!();
}
