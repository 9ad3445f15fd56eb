//! `final class ShmCache`: the same operations scoped to a namespace.

use ext_php_rs::boxed::ZBox;
use ext_php_rs::convert::{FromZval, StubLiteral};
use ext_php_rs::flags::{ClassFlags, DataType};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendHashTable, Zval};
use ext_php_rs::zend::{ce, ExecutorGlobals};

use super::args::{ArrayArg, Found, IntArg, KeyArg};
use super::info;
use super::ops;
use crate::engine::{Namespace, WriteMode};

/// The namespace argument: checked by `ops::namespace` so errors read like PHP's own.
pub enum NamespaceArg<'a> {
    Given(&'a Zval),
    Root,
}

impl<'a> FromZval<'a> for NamespaceArg<'a> {
    const TYPE: DataType = DataType::String;
    fn from_zval(zval: &'a Zval) -> Option<Self> {
        Some(NamespaceArg::Given(zval))
    }
}

/// Only the declared default ("") is ever converted.
impl From<&'static str> for NamespaceArg<'_> {
    fn from(_: &'static str) -> Self {
        NamespaceArg::Root
    }
}

impl StubLiteral for NamespaceArg<'_> {
    fn stub_literal(&self) -> String {
        "".stub_literal()
    }
}

#[php_class]
#[php(name = "ShmCache")]
#[php(flags = ClassFlags::Final)]
pub struct ShmCache {
    pub(super) ns: Namespace,
}

/// True when the constructor running now was called on an object whose Rust side is already
/// set. The generated constructor handler hands our `__construct` only its arguments, so the
/// object is found through the frame of the call in progress, which is the constructor's own:
/// the engine makes an internal function's frame current before it calls the handler.
fn constructing_a_constructed_object() -> bool {
    let frame = ExecutorGlobals::get().current_execute_data;
    // SAFETY: during an internal call the current frame is that call's live frame; get_object
    // only reads its `This` and yields Some only for a ShmCache whose Rust value is set.
    unsafe { frame.as_mut() }.is_some_and(|frame| frame.get_object::<ShmCache>().is_some())
}

impl ShmCache {
    pub(super) fn class_entry() -> &'static ext_php_rs::zend::ClassEntry {
        <ShmCache as ext_php_rs::class::RegisteredClass>::get_metadata().ce()
    }
}

#[php_impl]
impl ShmCache {
    /// Throws an `Error` when called on an object that is already constructed (`$c->__construct()`
    /// again, by reflection or from user code that a method of this object runs through
    /// serialize()/unserialize()): the methods hold a reference to the namespace while they run,
    /// and ext-php-rs would replace (and free) it.
    #[php(defaults(namespace = "\"\""))]
    pub fn __construct(namespace: NamespaceArg) -> PhpResult<Self> {
        if constructing_a_constructed_object() {
            return Err(PhpException::new(
                "ShmCache::__construct(): the object is already constructed; its namespace cannot change".into(),
                0,
                ce::error(),
            ));
        }
        let ns = match namespace {
            NamespaceArg::Given(z) => ops::namespace("ShmCache::__construct", z)?,
            NamespaceArg::Root => Namespace::root(),
        };
        Ok(ShmCache { ns })
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
    pub fn get_multi(&self, keys: ArrayArg) -> PhpResult<ZBox<ZendHashTable>> {
        ops::get_multi(&self.ns, "ShmCache::getMulti", keys)
    }

    #[php(name = "set")]
    #[php(defaults(ttl = 0))]
    pub fn set(&self, key: KeyArg, value: &Zval, ttl: IntArg) -> PhpResult<bool> {
        ops::store(&self.ns, "ShmCache::set", WriteMode::Set, key.0, value, ttl)
    }

    #[php(name = "setMulti")]
    #[php(defaults(ttl = 0))]
    pub fn set_multi(&self, values: ArrayArg, ttl: IntArg) -> PhpResult<ZBox<ZendHashTable>> {
        ops::store_multi(&self.ns, "ShmCache::setMulti", WriteMode::Set, values, ttl)
    }

    #[php(name = "add")]
    #[php(defaults(ttl = 0))]
    pub fn add(&self, key: KeyArg, value: &Zval, ttl: IntArg) -> PhpResult<bool> {
        ops::store(&self.ns, "ShmCache::add", WriteMode::Add, key.0, value, ttl)
    }

    #[php(name = "addMulti")]
    #[php(defaults(ttl = 0))]
    pub fn add_multi(&self, values: ArrayArg, ttl: IntArg) -> PhpResult<ZBox<ZendHashTable>> {
        ops::store_multi(&self.ns, "ShmCache::addMulti", WriteMode::Add, values, ttl)
    }

    #[php(name = "replace")]
    #[php(defaults(ttl = 0))]
    pub fn replace(&self, key: KeyArg, value: &Zval, ttl: IntArg) -> PhpResult<bool> {
        ops::store(&self.ns, "ShmCache::replace", WriteMode::Replace, key.0, value, ttl)
    }

    #[php(name = "cas")]
    pub fn cas(&self, key: KeyArg, old: IntArg, new: IntArg) -> PhpResult<bool> {
        ops::cas(&self.ns, "ShmCache::cas", key.0, old, new)
    }

    #[php(name = "incr")]
    #[php(defaults(step = 1))]
    pub fn incr(&self, key: KeyArg, step: IntArg) -> PhpResult<Zval> {
        ops::incr(&self.ns, "ShmCache::incr", key.0, step, false)
    }

    #[php(name = "decr")]
    #[php(defaults(step = 1))]
    pub fn decr(&self, key: KeyArg, step: IntArg) -> PhpResult<Zval> {
        ops::incr(&self.ns, "ShmCache::decr", key.0, step, true)
    }

    #[php(name = "delete")]
    pub fn delete(&self, key: KeyArg) -> PhpResult<bool> {
        ops::delete(&self.ns, "ShmCache::delete", key.0)
    }

    #[php(name = "deleteMulti")]
    pub fn delete_multi(&self, keys: ArrayArg) -> PhpResult<ZBox<ZendHashTable>> {
        ops::delete_multi(&self.ns, "ShmCache::deleteMulti", keys)
    }

    #[php(name = "exists")]
    pub fn exists(&self, key: KeyArg) -> PhpResult<bool> {
        ops::exists(&self.ns, "ShmCache::exists", key.0)
    }

    #[php(name = "ttl")]
    pub fn ttl(&self, key: KeyArg) -> PhpResult<Zval> {
        ops::ttl(&self.ns, "ShmCache::ttl", key.0)
    }

    /// Flushes this namespace only (everything for the root namespace ""), in O(1).
    #[php(name = "flush")]
    pub fn flush(&self) -> bool {
        ops::flush(&self.ns)
    }

    /// A number that changes whenever this namespace is flushed (for the root namespace: on
    /// every full flush) and is never reused; 0 when the extension is disabled. Lets a caller
    /// derive child namespace names that one flush of this namespace retires all at once.
    #[php(name = "generation")]
    pub fn generation(&self) -> i64 {
        ops::generation(&self.ns)
    }

    #[php(name = "info")]
    pub fn info(&self) -> PhpResult<ZBox<ZendHashTable>> {
        info::info_array(Some(&self.ns))
    }
}
