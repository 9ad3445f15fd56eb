//! Argument types: binary-safe keys and the optional by-reference `$found`.

use std::borrow::Cow;

use ext_php_rs::convert::{FromZval, FromZvalMut};
use ext_php_rs::exception::PhpException;
use ext_php_rs::flags::DataType;
use ext_php_rs::types::Zval;
use ext_php_rs::zend::ce;

use crate::engine::MAX_KEY_LEN;

/// Any zval passed where a key is expected; checked by `key_bytes` so errors name the function
/// and argument the way PHP's own functions do. Declared as `string` in arginfo.
pub struct KeyArg<'a>(pub &'a Zval);

impl<'a> FromZval<'a> for KeyArg<'a> {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        Some(KeyArg(zval))
    }
}

/// The optional `?bool &$found = null` out-parameter.
pub struct Found<'a>(Option<&'a mut Zval>);

impl<'a> FromZvalMut<'a> for Found<'a> {
    const TYPE: DataType = DataType::Bool;
    const NULLABLE: bool = true;
    const BY_REF: bool = true;
    fn from_zval_mut(zval: &'a mut Zval) -> Option<Self> {
        Some(Found(Some(zval)))
    }
    fn from_missing() -> Option<Self> {
        Some(Found(None))
    }
}

impl Found<'_> {
    pub fn set(&mut self, found: bool) {
        if let Some(z) = self.0.as_deref_mut() {
            z.set_bool(found);
        }
    }
}

pub fn type_name(z: &Zval) -> &'static str {
    let z = z.dereference();
    if z.is_null() {
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
    } else if z.is_object() {
        "object"
    } else if z.is_resource() {
        "resource"
    } else {
        "unknown"
    }
}

pub fn value_error(msg: String) -> PhpException {
    PhpException::new(msg, 0, ce::value_error())
}

pub fn type_error(msg: String) -> PhpException {
    PhpException::new(msg, 0, ce::type_error())
}

/// The key's bytes: strings as they are (any bytes), integers in decimal, like array keys.
/// `what` names the argument for messages, e.g. `shmcache_get(): Argument #1 ($key)`.
pub fn key_bytes<'a>(zval: &'a Zval, what: &dyn Fn() -> String) -> Result<Cow<'a, [u8]>, PhpException> {
    let bytes: Cow<'a, [u8]> = if let Some(s) = zval.zend_str() {
        Cow::Borrowed(s.as_bytes())
    } else if let Some(n) = zval.long() {
        Cow::Owned(n.to_string().into_bytes())
    } else {
        return Err(type_error(format!("{} must be of type string, {} given", what(), type_name(zval))));
    };
    if bytes.is_empty() {
        return Err(value_error(format!("{} cannot be empty", what())));
    }
    if bytes.len() > MAX_KEY_LEN {
        return Err(value_error(format!("{} must be at most {MAX_KEY_LEN} bytes long, {} given", what(), bytes.len())));
    }
    Ok(bytes)
}
