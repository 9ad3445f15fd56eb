//! Every C symbol of PHP (and of our own C shim, `build.rs`) that ext-php-rs does not declare,
//! declared once, here. What each one does and when it may be called is said at the call site
//! (its SAFETY comment); here, where in PHP's headers it comes from.

use std::ffi::{c_char, c_int, c_void};

use ext_php_rs::ffi::{
    zend_function_entry, zend_long, zend_reference, zend_result, zend_string, zval, HashTable,
};
use ext_php_rs::types::{ZendHashTable, ZendObject, Zval};
use ext_php_rs::zend::ModuleEntry;

/// The leading fields of PHP's `sapi_module_struct`: its name comes first.
#[repr(C)]
pub(super) struct SapiModuleHead {
    pub(super) name: *const c_char,
}

/// PHP's own serializer, called directly (what `serialize()`/`unserialize()` run, without the
/// function-call machinery): ext/standard/php_var.h.
#[repr(C)]
pub(super) struct SmartStr {
    pub(super) s: *mut zend_string,
    pub(super) a: usize,
}

/// The outer call's serializer state while ours runs (serializer_state.c).
#[repr(C)]
pub(super) struct SerializerState {
    pub(super) serialize_data: *mut c_void,
    pub(super) unserialize_data: *mut c_void,
    pub(super) serialize_level: std::ffi::c_uint,
    pub(super) unserialize_level: std::ffi::c_uint,
    pub(super) lock: std::ffi::c_uint,
}

extern "C" {
    // main/main.c, main/php.h
    pub(super) fn php_error_docref(docref: *const c_char, type_: c_int, format: *const c_char, ...);
    pub(super) fn php_log_err_with_severity(message: *const c_char, syslog_type: c_int);
    // main/SAPI.h
    pub(super) static sapi_module: SapiModuleHead;
    // main/php_ini.h
    pub(super) fn display_ini_entries(module: *mut ModuleEntry);

    // Zend/zend_API.h: the module registry, and registering modules and functions.
    pub(super) static mut module_registry: HashTable;
    pub(super) fn zend_register_internal_module(module: *mut ModuleEntry) -> *mut ModuleEntry;
    pub(super) fn zend_register_functions(
        scope: *mut c_void,
        functions: *const zend_function_entry,
        function_table: *mut c_void,
        type_: c_int,
    ) -> c_int;
    pub(super) fn zend_unregister_functions(
        functions: *const zend_function_entry,
        count: c_int,
        function_table: *mut c_void,
    );
    // Zend/zend_API.h: assigns to a reference bound to typed properties, checking each type
    // (throws a TypeError and changes nothing when one refuses the value).
    pub(super) fn zend_try_assign_typed_ref_bool(
        reference: *mut zend_reference,
        value: bool,
    ) -> zend_result;
    // Zend/zend_API.h: gives an object the properties table it will own.
    pub(super) fn object_properties_init_ex(
        object: *mut ZendObject,
        properties: *mut ZendHashTable,
    );

    // Zend/zend_ini.h
    pub(super) fn zend_ini_parse_quantity(
        value: *mut zend_string,
        errstr: *mut *mut zend_string,
    ) -> zend_long;
    pub(super) fn zend_unregister_ini_entries(module_number: c_int);

    // Zend/zend_hash.h: the out-of-line part of ZEND_HANDLE_NUMERIC_STR.
    pub(super) fn _zend_handle_numeric_str_ex(
        key: *const c_char,
        length: usize,
        idx: *mut u64,
    ) -> bool;

    // Zend/zend_hash.h: makes an array not yet initialised a hash of its nTableSize buckets,
    // and a packed array a hash.
    pub(super) fn zend_hash_real_init_mixed(ht: *mut ZendHashTable);
    pub(super) fn zend_hash_packed_to_hash(ht: *mut ZendHashTable);

    // Zend/zend_string.h
    pub(super) static zend_empty_string: *mut zend_string;
    pub(super) static zend_one_char_string: [*mut zend_string; 256];

    // Zend/zend_operators.h: (string) $value, NULL with an exception pending when refused.
    pub(super) fn zval_try_get_string_func(op: *mut zval) -> *mut zend_string;

    // ext/standard/php_var.h
    pub(super) fn php_var_serialize(buf: *mut SmartStr, value: *mut Zval, data: *mut *mut c_void);
    pub(super) fn php_var_serialize_init() -> *mut c_void;
    pub(super) fn php_var_serialize_destroy(data: *mut c_void);
    pub(super) fn php_var_unserialize(
        rval: *mut Zval,
        p: *mut *const u8,
        max: *const u8,
        data: *mut *mut c_void,
    ) -> c_int;
    pub(super) fn php_var_unserialize_init() -> *mut c_void;
    pub(super) fn php_var_unserialize_destroy(data: *mut c_void);

    // ext/pcre/php_pcre.h: the compiled pattern from PHP's regex cache (NULL after a warning
    // when it does not compile), and preg_match() on it.
    pub(super) fn pcre_get_compiled_regex_cache(regex: *mut zend_string) -> *mut c_void;
    pub(super) fn php_pcre_match_impl(
        pce: *mut c_void,
        subject: *mut zend_string,
        return_value: *mut zval,
        subpats: *mut zval,
        global: c_int,
        use_flags: c_int,
        flags: i64,
        start_offset: i64,
    );

    // build.rs's C shim (src/php/serializer_state.c): sets the request's serializer state aside
    // and puts it back.
    pub(super) fn shmcache_serializer_set_aside(saved: *mut SerializerState);
    pub(super) fn shmcache_serializer_restore(saved: *const SerializerState);
}

// PHP's allocator as a release build declares it, and its per-size allocators, which only a
// release build has (build.rs sets `php_debug_build` against a debug one): declared apart so
// that a library built for a debug PHP references none of them.
#[cfg(not(php_debug_build))]
extern "C" {
    // Zend/zend_alloc.h: the request allocator as a release build of PHP declares it (a debug
    // build adds the caller's file and line; `zalloc` calls this in a release build only).
    #[link_name = "_emalloc"]
    pub(super) fn emalloc_release(size: usize) -> *mut c_void;
    // Zend/zend_alloc.h: a release build's allocator of one size of small block, what
    // emalloc() of a constant size compiles to in PHP's own code.
    pub(super) fn _emalloc_8() -> *mut c_void;
    pub(super) fn _emalloc_16() -> *mut c_void;
    pub(super) fn _emalloc_24() -> *mut c_void;
    pub(super) fn _emalloc_32() -> *mut c_void;
    pub(super) fn _emalloc_40() -> *mut c_void;
    pub(super) fn _emalloc_48() -> *mut c_void;
    pub(super) fn _emalloc_56() -> *mut c_void;
    pub(super) fn _emalloc_64() -> *mut c_void;
    pub(super) fn _emalloc_80() -> *mut c_void;
    pub(super) fn _emalloc_96() -> *mut c_void;
    pub(super) fn _emalloc_112() -> *mut c_void;
    pub(super) fn _emalloc_128() -> *mut c_void;
    pub(super) fn _emalloc_160() -> *mut c_void;
    pub(super) fn _emalloc_192() -> *mut c_void;
    pub(super) fn _emalloc_224() -> *mut c_void;
    pub(super) fn _emalloc_256() -> *mut c_void;
}
