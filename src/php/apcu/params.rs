//! The apcu_* functions' parameters the way PHP coerces them (strings, keys), and the names
//! their errors give.

use std::borrow::Cow;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendStr, Zval};

pub(super) use crate::php::args::arg;
use crate::php::args::{type_error, type_name};
use crate::php::ffi::zval_try_get_string_func;

/// (string) $value, as PHP converts a non-string argument; None with an exception pending
/// when the value has no string form.
pub(super) fn converted_string(value: &Zval) -> Option<ZBox<ZendStr>> {
    let mut copy = value.shallow_clone();
    // SAFETY: `copy` is a live zval we own (its refcount was taken by shallow_clone); PHP returns
    // a zend_string with a reference for us, or NULL with an exception pending.
    let s = unsafe { zval_try_get_string_func(std::ptr::addr_of_mut!(copy).cast()) };
    // SAFETY: a non-null result is a zend_string whose reference we own; ZBox releases it.
    (!s.is_null()).then(|| unsafe { ZBox::from_raw(s) })
}

/// A `string $key` parameter the way PHP coerces one: strings as they are, ints, floats,
/// bools and Stringable objects converted, null as "" (the empty key is a key in APCu).
pub(super) fn string_param<'a>(
    value: &'a Zval,
    what: &dyn Fn() -> String,
) -> PhpResult<Option<Cow<'a, [u8]>>> {
    let value = value.dereference();
    if let Some(s) = value.zend_str() {
        return Ok(Some(Cow::Borrowed(s.as_bytes())));
    }
    if value.is_null() {
        return Ok(Some(Cow::Borrowed(b"")));
    }
    let stringable = value
        .object()
        .is_some_and(|o| o.get_class_entry().function_table.get("__tostring").is_some());
    if value.is_long() || value.is_double() || value.is_bool() || stringable {
        return Ok(converted_string(value).map(|s| Cow::Owned(s.as_bytes().to_vec())));
    }
    Err(type_error(format!("{} must be of type string, {} given", what(), type_name(value))))
}

/// A key of fetch or exists: anything but an array is converted to a string first (an
/// object that cannot be throws Error, as in APCu). None with an exception pending.
pub(super) fn converted_key(value: &Zval) -> Option<Cow<'_, [u8]>> {
    match value.zend_str() {
        Some(s) => Some(Cow::Borrowed(s.as_bytes())),
        None => converted_string(value).map(|s| Cow::Owned(s.as_bytes().to_vec())),
    }
}

pub(super) fn false_zval() -> Zval {
    let mut z = Zval::new();
    z.set_bool(false);
    z
}
