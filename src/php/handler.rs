//! Hand-written call handlers, one design for all of them (`fast` for the shmcache_* functions
//! and `ShmCache` methods, `apcu::handlers` for the apcu_* functions): a hand-written handler
//! serves the common shapes of a hot call (the right number of arguments, a key and ints passed
//! plainly) and declines every other shape, which then goes to the handler ext-php-rs generated
//! for the same function, unchanged. So the behaviour is the generated one by construction: the
//! hand-written bodies call the same functions the generated ones do, in the same order, and
//! never re-implement an argument check of theirs.
//!
//! What they save is the generated handlers' zend_try/setjmp frame and argument conversion, a
//! measurable share of a cached get (bench/instructions.sh, bench/apcu-instructions.sh).
//!
//! The generated handlers stay registered (they carry the arginfo reflection shows); the
//! hand-written ones are swapped in at the first request of each process (`install_once`), once
//! the classes exist (ext-php-rs registers classes after our MINIT code runs), and the generated
//! one each replaced is kept for the shapes it declines.
//!
//! A panic is caught and thrown as an exception. A PHP bailout (a fatal error) passes straight
//! through these frames, which hold nothing that needs dropping: everything that can call user
//! code or allocate from PHP lives in `ops`, which is written for that (see `ops::fetch`).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::OnceLock;

use ext_php_rs::convert::IntoZval;
use ext_php_rs::exception::{PhpException, PhpResult};
use ext_php_rs::ffi::{
    zend_execute_data, zend_function, zend_hash_str_find, zval, HashTable, IS_PTR,
    ZEND_INTERNAL_FUNCTION,
};
use ext_php_rs::flags::DataType;
use ext_php_rs::types::Zval;
use ext_php_rs::zend::{ExecuteData, ExecutorGlobals};

/// A call handler, as PHP calls an internal function.
pub(super) type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

/// The generated handler a hand-written one replaced, kept for the call shapes it declines.
pub(super) type Generated = OnceLock<Handler>;

/// A hand-written body's answer: `Err(Declined)` hands the call to the generated handler;
/// `Ok(None)` means an exception is already pending; `Ok(Some(r))` sets the return value (or
/// throws `r`'s exception).
pub(super) type Served<R> = Result<Option<PhpResult<R>>, Declined>;

/// The call's shape is not one the hand-written body serves.
pub(super) struct Declined;

/// ZEND_MM_ALIGNED_SIZE (Zend/zend_alloc.h): `size` rounded up to the allocator's 8 bytes.
const fn mm_aligned(size: usize) -> usize {
    (size + 7) & !7
}

/// ZEND_CALL_FRAME_SLOT (Zend/zend_compile.h): how many zvals the frame header takes before
/// the first argument. Argument slots are computed here, inline: ext-php-rs' `zend_call_arg`,
/// which computes the same, is a call of its own per argument (cas 876 -> 836, incr
/// 854 -> 830, get 853 -> 842, set 1363 -> 1337, callgrind).
// (Zend's `(a + b - 1) / b` is `a.div_ceil(b)`.)
const CALL_FRAME_SLOT: usize = mm_aligned(std::mem::size_of::<ExecuteData>())
    .div_ceil(mm_aligned(std::mem::size_of::<Zval>()));

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

/// A handler body's true or false, written inline into the null return slot (ext-php-rs'
/// conversion of a `bool` is a call that first releases what the slot held).
pub(super) struct Flag(pub bool);

impl IntoZval for Flag {
    const TYPE: DataType = DataType::Bool;
    const NULLABLE: bool = false;

    #[inline(always)]
    fn set_zval(self, zv: &mut Zval, _: bool) -> ext_php_rs::error::Result<()> {
        super::codec::put_bool(zv, self.0);
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

    /// Declines a call whose argument count is outside `min..=max` (the generated handler then
    /// throws PHP's ArgumentCountError).
    #[inline]
    pub(super) fn count(&self, min: u32, max: u32) -> Result<(), Declined> {
        if (min..=max).contains(&self.num_args()) {
            Ok(())
        } else {
            Err(Declined)
        }
    }

    /// The n-th argument (0-based), dereferenced; None when it was not passed.
    #[inline(always)]
    pub(super) fn arg(&self, n: usize) -> Option<&'a mut Zval> {
        self.raw_arg(n).map(|z| z.dereference_mut())
    }

    /// The n-th argument (0-based) as the frame holds it, references included (for
    /// by-reference parameters); None when it was not passed.
    #[inline(always)]
    pub(super) fn raw_arg(&self, n: usize) -> Option<&'a mut Zval> {
        if n >= self.num_args() as usize {
            return None;
        }
        // SAFETY: n < num_args, so ZEND_CALL_ARG(ex, n + 1) (`CALL_FRAME_SLOT` zvals past the
        // frame's start, as ext-php-rs' `zend_call_arg` computes it) is an initialised
        // argument zval of this frame, which outlives the call; callers take each argument
        // once.
        Some(unsafe { &mut *self.ex.cast::<Zval>().add(CALL_FRAME_SLOT + n) })
    }

    /// The object a method is called on, as the generated method handlers take it.
    pub(super) fn object<T: ext_php_rs::class::RegisteredClass>(&self) -> Option<&'a T> {
        // SAFETY: `ex` is this call's live frame; its `This` holds the object for the whole
        // call, and nothing in the call mutates it.
        let object = unsafe { (*self.ex).get_object::<T>() }?;
        let object: *const T = &**object;
        // SAFETY: as above, the object outlives the call.
        Some(unsafe { &*object })
    }
}

/// Runs a handler body: sets the return value or throws, and turns a panic into an exception.
/// A body that declines the call hands it to `generated` after our frames are gone (so the
/// generated handler's own zend_try sees any bailout).
#[inline(always)]
pub(super) fn dispatch<R: IntoZval>(
    ex: *mut zend_execute_data,
    retval: *mut zval,
    generated: &Generated,
    body: impl FnOnce(&mut Call<'_>) -> Served<R>,
) {
    let mut declined = false;
    run(ex, retval, |c| {
        body(c).unwrap_or_else(|Declined| {
            declined = true;
            None
        })
    });
    if declined {
        if let Some(handler) = generated.get() {
            // SAFETY: the handler PHP would have called for this very call, given the same
            // live frame and return slot; nothing of ours touched either.
            unsafe { handler(ex, retval) };
        }
    }
}

#[inline(always)]
fn run<R: IntoZval>(
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

/// Points the internal function `name` (lower case) of `table` at `handler`, keeping the one
/// it replaced in `generated`. Done once: a function already swapped is left alone.
pub(super) fn install(
    table: *const HashTable,
    name: &str,
    handler: Handler,
    generated: &Generated,
) {
    if generated.get().is_some() {
        return;
    }
    if let Some(old) = replace(table, name, handler) {
        let _ = generated.set(old);
    }
}

/// Points the internal function `name` of `table` at `handler`, giving back the handler it
/// replaced (None when nothing was replaced).
fn replace(table: *const HashTable, name: &str, handler: Handler) -> Option<Handler> {
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

/// RINIT: swaps every hand-written handler in, once per process (at its first request).
pub(super) fn install_once() {
    static DONE: AtomicBool = AtomicBool::new(false);
    if DONE.swap(true, Ordering::Relaxed) {
        return;
    }
    let functions = ExecutorGlobals::get().function_table.cast_const();
    super::fast::install(functions);
    super::apcu::install_handlers(functions);
}
