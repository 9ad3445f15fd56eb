//! Argument types: binary-safe keys and the optional by-reference `$found`.

use ext_php_rs::convert::{FromZval, FromZvalMut, StubLiteral};
use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{zend_reference, zend_string};
use ext_php_rs::flags::DataType;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::ce;

use super::ffi::zend_try_assign_typed_ref_bool;
use super::hash::Key;
use crate::engine::{string_hash, MAX_KEY_LEN};

/// How PHP names an argument in its errors ("f(): Argument #2 ($value)"), made only when an
/// error needs it.
pub(crate) fn arg<'a>(func: &'a str, n: u32, name: &'a str) -> impl Fn() -> String + 'a {
    move || format!("{func}(): Argument #{n} (${name})")
}

/// Any zval passed where a key is expected; checked by `key_bytes` so errors name the function
/// and argument the way PHP's own functions do. Declared as `string` in arginfo.
pub struct KeyArg<'a>(pub &'a Zval);

impl<'a> FromZval<'a> for KeyArg<'a> {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        Some(KeyArg(zval))
    }
}

/// The optional `?bool &$found = null` out-parameter, held as the reference PHP passed: a
/// by-reference argument always arrives wrapped in one (the VM's SEND_REF and
/// zend_call_function both wrap a plain value), and a typed property bound to it must see the
/// assignment the way PHP's own functions make it (`$found` may be `$object->typedProperty`).
pub struct Found<'a>(Option<&'a mut zend_reference>);

impl<'a> FromZvalMut<'a> for Found<'a> {
    const TYPE: DataType = DataType::Bool;
    const NULLABLE: bool = true;
    const BY_REF: bool = true;
    /// ext-php-rs hands over the value inside the reference; the reference is around it.
    fn from_zval_mut(zval: &'a mut Zval) -> Option<Self> {
        let value: *mut Zval = zval;
        // SAFETY: by-reference arguments always arrive as references (above), and ext-php-rs
        // dereferences them, so `value` is the `val` field of a live zend_reference that
        // outlives the call; stepping back by the field's offset gives that reference.
        let reference = unsafe {
            &mut *value.byte_sub(std::mem::offset_of!(zend_reference, val)).cast::<zend_reference>()
        };
        Some(Found(Some(reference)))
    }
    fn from_missing() -> Option<Self> {
        Some(Found(None))
    }
}

impl<'a> Found<'a> {
    /// From an argument slot as the call frame holds it (not dereferenced); None when the
    /// argument was not passed.
    pub fn from_argument(argument: Option<&'a mut Zval>) -> Self {
        Found(argument.and_then(|z| {
            // SAFETY: a zval of type IS_REFERENCE points at a live zend_reference, owned by
            // the argument slot for the whole call.
            z.is_reference().then(|| unsafe { &mut *z.value.ref_ })
        }))
    }

    /// `$found = $found_value`, honouring the types of typed properties bound to `$found`
    /// (a refused assignment throws PHP's TypeError, which the caller leaves pending).
    pub fn set(&mut self, found: bool) {
        let Some(reference) = self.0.as_deref_mut() else { return };
        // SAFETY: `sources` is a union whose `ptr` member is null exactly when no typed
        // property is bound to the reference (ZEND_REF_HAS_TYPE_SOURCES).
        if unsafe { reference.sources.ptr }.is_null() {
            reference.val.set_bool(found);
        } else {
            // SAFETY: a live reference with type sources, as zend_try_assign_typed_ref_bool
            // expects; it releases the old value itself.
            unsafe { zend_try_assign_typed_ref_bool(reference, found) };
        }
    }
}

/// The type as PHP's own messages name it: "int", "array", or the class of an object.
pub fn type_name(z: &Zval) -> String {
    let z = z.dereference();
    let name = if z.is_null() {
        "null"
    } else if z.is_bool() {
        "bool"
    } else if z.is_long() {
        "int"
    } else if z.is_double() {
        "float"
    } else if z.is_string() {
        "string"
    } else if z.is_array() {
        "array"
    } else if let Some(o) = z.object() {
        return o.get_class_name().unwrap_or_else(|_| "object".into());
    } else if z.is_resource() {
        "resource"
    } else {
        "unknown"
    };
    name.to_string()
}

/// An array parameter checked by us, so a wrong type gets PHP's own message.
pub struct ArrayArg<'a>(pub &'a Zval);

impl<'a> FromZval<'a> for ArrayArg<'a> {
    const TYPE: DataType = DataType::Array;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        Some(ArrayArg(zval))
    }
}

impl<'a> ArrayArg<'a> {
    pub fn get(&self, what: &dyn Fn() -> String) -> Result<&'a ZendHashTable, PhpException> {
        self.0.array().ok_or_else(|| {
            type_error(format!("{} must be of type array, {} given", what(), type_name(self.0)))
        })
    }
}

pub fn value_error(msg: String) -> PhpException {
    PhpException::new(msg, 0, ce::value_error())
}

pub fn type_error(msg: String) -> PhpException {
    PhpException::new(msg, 0, ce::type_error())
}

/// A key's bytes: a string's own, or an integer written in decimal on the stack. Nothing here
/// needs dropping, so a key can be held across calls that may never return (a PHP fatal error
/// in user code run by serialize()/unserialize() or an error handler longjmps past our frames;
/// a key written into a Vec would leak on each one).
pub enum KeyBytes<'a> {
    Borrowed(&'a [u8]),
    /// The decimal digits of an i64 (at most 20 bytes) and their length.
    Int([u8; 20], u8),
}

impl KeyBytes<'_> {
    pub(super) fn int(n: i64) -> KeyBytes<'static> {
        let mut digits = [0u8; 20];
        let mut at = digits.len();
        let mut rest = n.unsigned_abs();
        loop {
            at -= 1;
            digits[at] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        if n < 0 {
            at -= 1;
            digits[at] = b'-';
        }
        let len = digits.len() - at;
        digits.copy_within(at.., 0);
        KeyBytes::Int(digits, len as u8)
    }
}

impl std::ops::Deref for KeyBytes<'_> {
    type Target = [u8];
    #[inline]
    fn deref(&self) -> &[u8] {
        match self {
            KeyBytes::Borrowed(b) => b,
            KeyBytes::Int(digits, len) => &digits[..*len as usize],
        }
    }
}

impl AsRef<[u8]> for KeyBytes<'_> {
    #[inline]
    fn as_ref(&self) -> &[u8] {
        self
    }
}

/// `key_bytes` for the common case, a string of an acceptable length, without building a
/// `Result` that carries an exception (returning one cost a get many moves: docs/benchmarks.md,
/// "Figures behind code comments"):
/// None for anything else, which `key_bytes` then checks and reports.
#[inline(always)]
pub fn plain_string_key(zval: &Zval) -> Option<KeyBytes<'_>> {
    let bytes = zval.zend_str()?.as_bytes();
    (!bytes.is_empty() && bytes.len() <= MAX_KEY_LEN).then_some(KeyBytes::Borrowed(bytes))
}

/// The key's bytes: strings as they are (any bytes), integers in decimal, like array keys.
/// `what` names the argument for messages, e.g. `shmcache_get(): Argument #1 ($key)`.
#[inline]
pub fn key_bytes<'a>(
    zval: &'a Zval,
    what: &dyn Fn() -> String,
) -> Result<KeyBytes<'a>, PhpException> {
    let Some(bytes) = unchecked_key_bytes(zval) else {
        return Err(type_error(format!(
            "{} must be of type string, {} given",
            what(),
            type_name(zval)
        )));
    };
    checked_key(bytes, what)
}

/// `string_hash` of a key's bytes, taken from PHP's string when PHP has hashed it already (and
/// left there for the next call when it has not), as PHP's own hash tables do.
#[inline(always)]
pub fn key_string_hash(zval: &Zval, bytes: &[u8]) -> u64 {
    match zval_string(zval) {
        // SAFETY: PHP's own pointer to a live string; `bytes`, its contents, is the only
        // borrow of it and does not cover the header.
        Some(s) => unsafe { zend_str_hash_raw(s) },
        None => string_hash(bytes),
    }
}

/// PHP's own pointer to the string a zval holds (None for any other type, a reference to a
/// string included). Writing through it is sound where a pointer made from a `&ZendStr` is not:
/// the compiler takes memory behind a shared reference as unchanging and may drop such a write.
#[inline(always)]
pub fn zval_string(zval: &Zval) -> Option<*mut zend_string> {
    if !zval.is_string() {
        // (The value of another type may not even be initialised: not read.)
        return None;
    }
    // SAFETY: a zval of type string holds a live zend_string pointer.
    Some(unsafe { zval.value.str_ })
}

/// `string_hash` of a PHP string's contents: PHP's own hash of it when PHP has computed it
/// already, and otherwise computed and kept in the string, as PHP's own hash tables do
/// (`zend_string_hash_val`: only strings PHP has not hashed have 0 there, and those are never
/// interned or in shared memory). `string_hash` is the value PHP computes.
///
/// # Safety
/// `s` must be PHP's own pointer to a live zend_string (not one made from a Rust reference)
/// whose header no Rust reference covers meanwhile (a slice of its contents may be live).
#[inline(always)]
pub unsafe fn zend_str_hash_raw(s: *mut zend_string) -> u64 {
    // SAFETY: as in `zend_str_hash`; the caller's contract makes `s` valid to read and write.
    unsafe {
        let cached = (*s).h;
        if cached != 0 {
            return cached;
        }
        let h = string_hash(super::hash::contents(s));
        (*s).h = h;
        h
    }
}

/// `key_bytes` without the checks, for keys already checked (None for a zval that is neither
/// a string nor an int).
#[inline]
pub fn unchecked_key_bytes(zval: &Zval) -> Option<KeyBytes<'_>> {
    if let Some(s) = zval.zend_str() {
        Some(KeyBytes::Borrowed(s.as_bytes()))
    } else {
        zval.long().map(KeyBytes::int)
    }
}

/// The bytes of an array key used as a cache key (set_multi).
pub fn array_key_bytes<'a>(
    key: Key<'a>,
    what: &dyn Fn() -> String,
) -> Result<KeyBytes<'a>, PhpException> {
    let bytes = match key {
        Key::Str(s) => KeyBytes::Borrowed(s.as_bytes()),
        Key::Index(n) => KeyBytes::int(n),
    };
    checked_key(bytes, what)
}

#[inline]
fn checked_key<'a>(
    bytes: KeyBytes<'a>,
    what: &dyn Fn() -> String,
) -> Result<KeyBytes<'a>, PhpException> {
    if bytes.is_empty() {
        return Err(value_error(format!("{} cannot be empty", what())));
    }
    if bytes.len() > MAX_KEY_LEN {
        return Err(value_error(format!(
            "{} must be at most {MAX_KEY_LEN} bytes long, {} given",
            what(),
            bytes.len()
        )));
    }
    Ok(bytes)
}

/// An `int` parameter, coerced the way PHP's own functions coerce in non-strict mode: ints,
/// integral floats, bools and numeric strings ("10", " 1e3 ") are accepted; anything else is a
/// TypeError naming the function and argument.
pub enum IntArg<'a> {
    Given(&'a Zval),
    Default(i64),
}

impl<'a> FromZval<'a> for IntArg<'a> {
    const TYPE: DataType = DataType::Long;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        Some(IntArg::Given(zval))
    }
}

impl From<i64> for IntArg<'_> {
    fn from(v: i64) -> Self {
        IntArg::Default(v)
    }
}

impl StubLiteral for IntArg<'_> {
    fn stub_literal(&self) -> String {
        match self {
            IntArg::Default(v) => v.to_string(),
            IntArg::Given(_) => String::new(),
        }
    }
}

fn float_to_int(f: f64) -> Option<i64> {
    (f.is_finite() && f.fract() == 0.0 && f >= i64::MIN as f64 && f < i64::MAX as f64)
        .then_some(f as i64)
}

impl IntArg<'_> {
    /// The argument as an int. A default or an int given as an int is answered inline (most
    /// calls: the out-of-line conversion cost cas about 60 instructions for its two ints).
    #[inline(always)]
    pub fn value(&self, what: &dyn Fn() -> String) -> Result<i64, PhpException> {
        match self {
            IntArg::Default(v) => Ok(*v),
            IntArg::Given(z) => match z.long() {
                Some(n) => Ok(n),
                None => self.converted(what),
            },
        }
    }

    /// `value` of argument `n` (`name`) of `func`, its name made (`arg`) only for a value that
    /// is not an int. Built before the test, as `value`'s callers build it, the name's five
    /// words were stored on every call: cas 911 -> 878 for its two ints, incr 878 -> 857,
    /// set 1369 -> 1363 (callgrind). (A plain int is one type test: `long()` first sees
    /// through references.)
    #[inline(always)]
    pub fn value_of(&self, func: &str, n: u32, name: &str) -> Result<i64, PhpException> {
        match self {
            IntArg::Default(v) => Ok(*v),
            IntArg::Given(z) if z.is_long() => Ok(z.long().unwrap_or_default()),
            IntArg::Given(_) => self.converted(&arg(func, n, name)),
        }
    }

    /// `value` of anything but a plain int: a reference, or a value PHP's int coercion takes.
    #[inline(never)]
    fn converted(&self, what: &dyn Fn() -> String) -> Result<i64, PhpException> {
        let z = match self {
            IntArg::Default(v) => return Ok(*v),
            IntArg::Given(z) => z.dereference(),
        };
        let coerced = if let Some(n) = z.long() {
            Some(n)
        } else if let Some(b) = z.bool() {
            Some(b as i64)
        } else if let Some(f) = z.double() {
            float_to_int(f)
        } else if let Some(s) = z.zend_str() {
            std::str::from_utf8(s.as_bytes()).ok().map(str::trim).and_then(|t| {
                t.parse::<i64>().ok().or_else(|| {
                    t.parse::<f64>().ok().filter(|_| !t.is_empty()).and_then(float_to_int)
                })
            })
        } else {
            None
        };
        coerced.ok_or_else(|| {
            type_error(format!("{} must be of type int, {} given", what(), type_name(z)))
        })
    }
}
