//! `final class ShmCache`: the same operations scoped to a namespace.

use std::borrow::Cow;

use ext_php_rs::convert::{FromZval, StubLiteral};
use ext_php_rs::flags::{ClassFlags, DataType};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};

use super::args::{Found, KeyArg};
use super::info;
use super::ops::{self, Write};
use crate::engine::Namespace;

/// A binary-safe string argument (the namespace name).
pub struct Bytes<'a>(Cow<'a, [u8]>);

impl<'a> FromZval<'a> for Bytes<'a> {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        zval.zend_str().map(|s| Bytes(Cow::Borrowed(s.as_bytes())))
    }
}

impl From<&'static str> for Bytes<'_> {
    fn from(s: &'static str) -> Self {
        Bytes(Cow::Borrowed(s.as_bytes()))
    }
}

impl StubLiteral for Bytes<'_> {
    fn stub_literal(&self) -> String {
        String::from_utf8_lossy(&self.0).as_ref().stub_literal()
    }
}

#[php_class]
#[php(name = "ShmCache")]
#[php(flags = ClassFlags::Final)]
pub struct ShmCache {
    ns: Namespace,
}

#[php_impl]
impl ShmCache {
    #[php(defaults(namespace = "\"\""))]
    pub fn __construct(namespace: Bytes) -> PhpResult<Self> {
        Ok(ShmCache { ns: ops::namespace("ShmCache::__construct", &namespace.0)? })
    }

    #[php(name = "getNamespace")]
    pub fn get_namespace(&self) -> Zval {
        super::codec::string_zval(self.ns.name())
    }

    #[php(name = "get")]
    pub fn get(&self, key: KeyArg, mut found: Found) -> PhpResult<Zval> {
        ops::get(&self.ns, "ShmCache::get", key.0, &mut found)
    }

    #[php(name = "getMulti")]
    pub fn get_multi(&self, keys: &ZendHashTable) -> PhpResult<Zval> {
        ops::get_multi(&self.ns, "ShmCache::getMulti", keys)
    }

    #[php(name = "set")]
    #[php(defaults(ttl = 0))]
    pub fn set(&self, key: KeyArg, value: &Zval, ttl: i64) -> PhpResult<bool> {
        ops::store(&self.ns, "ShmCache::set", Write::Set, key.0, value, ttl)
    }

    #[php(name = "setMulti")]
    #[php(defaults(ttl = 0))]
    pub fn set_multi(&self, values: &ZendHashTable, ttl: i64) -> PhpResult<Zval> {
        ops::set_multi(&self.ns, "ShmCache::setMulti", values, ttl)
    }

    #[php(name = "add")]
    #[php(defaults(ttl = 0))]
    pub fn add(&self, key: KeyArg, value: &Zval, ttl: i64) -> PhpResult<bool> {
        ops::store(&self.ns, "ShmCache::add", Write::Add, key.0, value, ttl)
    }

    #[php(name = "replace")]
    #[php(defaults(ttl = 0))]
    pub fn replace(&self, key: KeyArg, value: &Zval, ttl: i64) -> PhpResult<bool> {
        ops::store(&self.ns, "ShmCache::replace", Write::Replace, key.0, value, ttl)
    }

    #[php(name = "cas")]
    pub fn cas(&self, key: KeyArg, old: i64, new: i64) -> PhpResult<bool> {
        ops::cas(&self.ns, "ShmCache::cas", key.0, old, new)
    }

    #[php(name = "incr")]
    #[php(defaults(step = 1))]
    pub fn incr(&self, key: KeyArg, step: i64) -> PhpResult<Zval> {
        ops::incr(&self.ns, "ShmCache::incr", key.0, step)
    }

    #[php(name = "decr")]
    #[php(defaults(step = 1))]
    pub fn decr(&self, key: KeyArg, step: i64) -> PhpResult<Zval> {
        ops::incr(&self.ns, "ShmCache::decr", key.0, step.wrapping_neg())
    }

    #[php(name = "delete")]
    pub fn delete(&self, key: KeyArg) -> PhpResult<bool> {
        ops::delete(&self.ns, "ShmCache::delete", key.0)
    }

    #[php(name = "exists")]
    pub fn exists(&self, key: KeyArg) -> PhpResult<bool> {
        ops::exists(&self.ns, "ShmCache::exists", key.0)
    }

    /// Flushes this namespace only (everything for the root namespace ""), in O(1).
    #[php(name = "flush")]
    pub fn flush(&self) -> bool {
        ops::flush(&self.ns)
    }

    /// A number that changes whenever this namespace is flushed and is never reused (0 when
    /// the extension is disabled). Lets a caller derive child namespace names that one flush
    /// of this namespace retires all at once.
    #[php(name = "generation")]
    pub fn generation(&self) -> i64 {
        ops::generation(&self.ns)
    }

    #[php(name = "info")]
    pub fn info(&self) -> PhpResult<Zval> {
        info::info_array(Some(&self.ns))
    }
}
