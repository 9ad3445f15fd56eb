//! Hand-written call handlers for the calls a cache serves most: get, set and delete, as
//! functions and as `ShmCache` methods. They behave exactly like the handlers ext-php-rs
//! generates for the same functions (same argument checks and messages, same `ops` code), minus
//! the zend_try/setjmp frame those open around every call, a measurable share of a cached get.
//!
//! The generated handlers stay registered (they carry the arginfo reflection shows); these are
//! swapped in at the first request of each process, once the class exists (ext-php-rs registers
//! classes after our MINIT code runs).
//!
//! A panic is caught and thrown as an exception. A PHP bailout (a fatal error) passes straight
//! through these frames, which hold nothing that needs dropping: everything that can call user
//! code or allocate from PHP lives in `ops`, which is written for that (see `ops::fetch`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};

use ext_php_rs::convert::IntoZval;
use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::ffi::{
    zend_execute_data, zend_function, zend_hash_str_find, zend_wrong_parameters_count_error, zval,
    HashTable, IS_PTR, ZEND_INTERNAL_FUNCTION,
};
use ext_php_rs::flags::DataType;
use ext_php_rs::types::Zval;
use ext_php_rs::zend::{ce, ExecuteData, ExecutorGlobals};

use super::args::{Found, IntArg};
use super::class::ShmCache;
use super::functions::root;
use super::ops::{self, Write};
use crate::engine::Namespace;

pub(super) type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

/// One call's frame: argument access the way the generated handlers do it. References it hands
/// out live as long as the call ('a): each argument slot and the object are distinct memory, and
/// each argument is taken once per call.
pub(super) struct Call<'a> {
    ex: *mut ExecuteData,
    retval: *mut zval,
    _call: std::marker::PhantomData<&'a mut ExecuteData>,
}

/// A handler body's result when it has already written the return value (`Call::retval`).
pub(super) struct Written;

impl IntoZval for Written {
    const TYPE: DataType = DataType::Mixed;
    const NULLABLE: bool = true;

    fn set_zval(self, _: &mut Zval, _: bool) -> ext_php_rs::error::Result<()> {
        Ok(())
    }
}

impl<'a> Call<'a> {
    /// The call's return slot, for a body that writes its value in place (and then returns
    /// `Written`). The engine sets it to null before calling a handler.
    pub(super) fn retval(&mut self) -> &'a mut Zval {
        // SAFETY: the return slot of this call's live frame, distinct from its arguments; run()
        // touches it only after the body has returned, and bodies take it once.
        unsafe { &mut *self.retval.cast::<Zval>() }
    }

    pub(super) fn num_args(&self) -> u32 {
        // SAFETY: `ex` is this call's live frame; `This.u2.num_args` is set by the engine for
        // every internal call.
        unsafe { (*self.ex).This.u2.num_args }
    }

    /// Checks the argument count like every internal function (ArgumentCountError).
    fn count_ok(&self, min: u32, max: u32) -> bool {
        if (min..=max).contains(&self.num_args()) {
            return true;
        }
        // SAFETY: throws an ArgumentCountError for the function being called; callable from
        // any internal function handler.
        unsafe { zend_wrong_parameters_count_error(min, max) };
        false
    }

    /// The n-th argument (0-based), dereferenced; None when it was not passed.
    pub(super) fn arg(&self, n: usize) -> Option<&'a mut Zval> {
        if n >= self.num_args() as usize {
            return None;
        }
        // SAFETY: n < num_args, so the slot holds an initialised argument zval of this frame,
        // which outlives the call; callers take each argument once.
        unsafe { (*self.ex).zend_call_arg(n) }.map(|z| z.dereference_mut())
    }

    /// The n-th argument (0-based) as the frame holds it, references included (for
    /// by-reference parameters); None when it was not passed.
    pub(super) fn raw_arg(&self, n: usize) -> Option<&'a mut Zval> {
        if n >= self.num_args() as usize {
            return None;
        }
        // SAFETY: as in `arg`.
        unsafe { (*self.ex).zend_call_arg(n) }
    }

    /// An optional int argument with a default, rejecting null like the generated handlers.
    fn int_arg(&self, n: usize, name: &str, default: i64) -> Result<IntArg<'a>, PhpException> {
        match self.arg(n) {
            None => Ok(IntArg::Default(default)),
            Some(z) if z.is_null() => Err(PhpException::new(
                format!("Argument `${name}` must not be null"),
                0,
                ce::type_error(),
            )),
            Some(z) => Ok(IntArg::Given(z)),
        }
    }

    /// The namespace of the ShmCache object the method is called on.
    fn namespace(&self) -> Option<&'a Namespace> {
        // SAFETY: `ex` is this call's live frame; its `This` holds the object for the whole call.
        let object = unsafe { (*self.ex).get_object::<ShmCache>()? };
        let ns: *const Namespace = &object.ns;
        // SAFETY: as above, the object (and so its namespace) outlives the call; nothing in the
        // call mutates it.
        Some(unsafe { &*ns })
    }
}

/// Runs a handler body: sets the return value or throws, and turns a panic into an exception.
pub(super) fn run<R: IntoZval>(
    ex: *mut zend_execute_data,
    retval: *mut zval,
    body: impl FnOnce(&mut Call<'_>) -> Option<PhpResult<R>>,
) {
    let result = catch_unwind(AssertUnwindSafe(|| {
        let mut call =
            Call { ex: ex.cast::<ExecuteData>(), retval, _call: std::marker::PhantomData };
        match body(&mut call) {
            None => {}
            Some(Ok(v)) => {
                // SAFETY: the engine passes this call's live return slot, used only during it;
                // the body's own use of it (Call::retval) has ended.
                let retval = unsafe { &mut *retval.cast::<Zval>() };
                if let Err(e) = v.set_zval(retval, false) {
                    PhpException::from(e.to_string()).throw();
                }
            }
            Some(Err(e)) => e.throw(),
        }
    }));
    if let Err(panic) = result {
        let message = panic
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| panic.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "panic".into());
        PhpException::from(format!("shmcache internal error: {message}")).throw();
    }
}

fn missing_this() -> PhpException {
    PhpException::from_message("Failed to retrieve reference to `$this`".into())
}

fn store(c: &mut Call<'_>, ns: &Namespace, func: &str, mode: Write) -> Option<PhpResult<bool>> {
    if !c.count_ok(2, 3) {
        return None;
    }
    let ttl = match c.int_arg(2, "ttl", 0) {
        Ok(t) => t,
        Err(e) => return Some(Err(e)),
    };
    Some(ops::store(ns, func, mode, c.arg(0)?, c.arg(1)?, ttl))
}

fn incr(c: &mut Call<'_>, ns: &Namespace, func: &str, negate: bool) -> Option<PhpResult<Zval>> {
    if !c.count_ok(1, 2) {
        return None;
    }
    let step = match c.int_arg(1, "step", 1) {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    Some(ops::incr(ns, func, c.arg(0)?, step, negate))
}

/// A function of the root namespace and its ShmCache method twin, from one body.
macro_rules! handlers {
    ($function:ident, $method:ident, $fname:literal, $mname:literal, |$c:ident, $ns:ident, $name:ident| $body:expr) => {
        unsafe extern "C" fn $function(ex: *mut zend_execute_data, retval: *mut zval) {
            run(ex, retval, |$c| {
                let $ns = root();
                let $name = $fname;
                $body
            });
        }

        unsafe extern "C" fn $method(ex: *mut zend_execute_data, retval: *mut zval) {
            run(ex, retval, |$c| {
                let Some($ns) = $c.namespace() else { return Some(Err(missing_this())) };
                let $name = $mname;
                $body
            });
        }
    };
}

handlers!(function_set, method_set, "shmcache_set", "ShmCache::set", |c, ns, name| store(
    c,
    ns,
    name,
    Write::Set
));
handlers!(function_add, method_add, "shmcache_add", "ShmCache::add", |c, ns, name| store(
    c,
    ns,
    name,
    Write::Add
));
handlers!(
    function_replace,
    method_replace,
    "shmcache_replace",
    "ShmCache::replace",
    |c, ns, name| store(c, ns, name, Write::Replace)
);
handlers!(function_incr, method_incr, "shmcache_incr", "ShmCache::incr", |c, ns, name| incr(
    c, ns, name, false
));
handlers!(function_decr, method_decr, "shmcache_decr", "ShmCache::decr", |c, ns, name| incr(
    c, ns, name, true
));
handlers!(function_get, method_get, "shmcache_get", "ShmCache::get", |c, ns, name| {
    if !c.count_ok(1, 2) {
        return None;
    }
    let key = c.arg(0)?;
    let mut found = Found::from_argument(c.raw_arg(1));
    let out = c.retval();
    Some(ops::get_into(ns, name, key, &mut found, out).map(|()| Written))
});
handlers!(function_delete, method_delete, "shmcache_delete", "ShmCache::delete", |c, ns, name| {
    if !c.count_ok(1, 1) {
        return None;
    }
    Some(ops::delete(ns, name, c.arg(0)?))
});
handlers!(function_exists, method_exists, "shmcache_exists", "ShmCache::exists", |c, ns, name| {
    if !c.count_ok(1, 1) {
        return None;
    }
    Some(ops::exists(ns, name, c.arg(0)?))
});

/// Points the internal function `name` (lower case) of `table` at `handler`.
fn install(table: *const HashTable, name: &str, handler: Handler) -> bool {
    replace(table, name, handler).is_some()
}

/// `install`, giving back the handler it replaced (None when nothing was replaced).
pub(super) fn replace(table: *const HashTable, name: &str, handler: Handler) -> Option<Handler> {
    if table.is_null() {
        return None;
    }
    // SAFETY: `table` is a live function table (the global one or a class's); the lookup only
    // reads it. A found entry is an IS_PTR zval holding a zend_function, and for an internal
    // function replacing its handler is what extensions that wrap functions do; this process is
    // single-threaded (NTS) and no call of that function is in progress during RINIT.
    unsafe {
        let zv = zend_hash_str_find(table, name.as_ptr().cast(), name.len());
        if zv.is_null() || u32::from((*zv).u1.v.type_) != IS_PTR {
            return None;
        }
        let f = (*zv).value.ptr.cast::<zend_function>();
        if f.is_null() || u32::from((*f).type_) != ZEND_INTERNAL_FUNCTION {
            return None;
        }
        (*f).internal_function.handler.replace(handler)
    }
}

/// Swaps the hand-written handlers in, once per process (at its first request).
pub fn install_once() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::Relaxed) {
        return;
    }
    let functions = ExecutorGlobals::get().function_table.cast_const();
    let class = ShmCache::class_entry();
    let methods = std::ptr::addr_of!(class.function_table);
    let pairs: [(&str, Handler, &str, Handler); 8] = [
        ("shmcache_get", function_get, "get", method_get),
        ("shmcache_set", function_set, "set", method_set),
        ("shmcache_add", function_add, "add", method_add),
        ("shmcache_replace", function_replace, "replace", method_replace),
        ("shmcache_incr", function_incr, "incr", method_incr),
        ("shmcache_decr", function_decr, "decr", method_decr),
        ("shmcache_delete", function_delete, "delete", method_delete),
        ("shmcache_exists", function_exists, "exists", method_exists),
    ];
    for (function, function_handler, method, method_handler) in pairs {
        install(functions, function, function_handler);
        install(methods, method, method_handler);
    }
    super::apcu::install_handlers(functions);
}
