//! zval ⇄ bytes. Scalars and strings are stored as they are; arrays and plain stdClass objects
//! of scalars, strings, arrays and such objects use the compact native encoding of
//! `crate::native` (which also holds its decoder, free of PHP so that it can be fuzzed);
//! anything else (objects of other classes, references, one object reached twice) goes through
//! PHP's own serialize()/unserialize(), which may run user code, so it is always called while
//! nothing shared is held.

use std::borrow::Cow;
use std::cell::Cell;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{
    std_object_handlers, zend_hash_index_update, zend_hash_str_update, zend_hash_update,
    zend_objects_new, zend_standard_class_def, zend_string, GC_IMMUTABLE,
};
use ext_php_rs::flags::ZvalTypeFlags;
use ext_php_rs::types::{ZendHashTable, ZendObject, ZendStr, Zval};
use ext_php_rs::zend::ExecutorGlobals;

use super::args::type_error;
use super::ffi::{
    object_properties_init_ex, php_var_serialize, php_var_serialize_destroy,
    php_var_serialize_init, php_var_unserialize, php_var_unserialize_destroy,
    php_var_unserialize_init, shmcache_serializer_restore, shmcache_serializer_set_aside,
    SerializerState, SmartStr,
};
use super::hash::{self, Key as ArrayKey};
use super::kinds::{ARRAY, DOUBLE, FALSE, NULL, OBJECT, SERIALIZED, STRING, TRUE};
use super::zalloc::alloc_zend_string;
use super::zstr::{self, SharedStrings};
use crate::engine::ValueKind;
use crate::native::{
    self, Item, Key, Table, K_INT, K_STRING, T_ARRAY, T_DOUBLE, T_FALSE, T_INT, T_NULL, T_OBJECT,
    T_STRING, T_TRUE,
};

/// Deeper arrays are handed to serialize(), which has its own limits.
const MAX_NATIVE_DEPTH: u32 = native::MAX_DEPTH;

pub struct Encoded<'a> {
    pub kind: ValueKind,
    data: Data<'a>,
}

/// Encoded bytes: ints and floats inline (no allocation per stored number), strings borrowed
/// from the caller's value, arrays and serialized values owned.
enum Data<'a> {
    Inline([u8; 8]),
    Bytes(Cow<'a, [u8]>),
}

impl Encoded<'_> {
    pub fn bytes(&self) -> &[u8] {
        match &self.data {
            Data::Inline(b) => b,
            Data::Bytes(b) => b,
        }
    }
}

impl Drop for Encoded<'_> {
    fn drop(&mut self) {
        if let Data::Bytes(Cow::Owned(buf)) = &mut self.data {
            give_back(std::mem::take(buf));
        }
    }
}

thread_local! {
    /// The native encoder's output buffer, reused from one store to the next: an object or
    /// array value otherwise grows a new one through several reallocations and copies (a 3 KB
    /// post object: about a tenth of its set). Taken while in use, so a nested encode (from
    /// user code inside serialize()) simply starts a new one.
    static ENCODE_BUF: Cell<Vec<u8>> = const { Cell::new(Vec::new()) };
}

/// Buffers up to this size are kept for the next encode; larger ones are freed.
const ENCODE_BUF_KEEP: usize = 1 << 20;

fn take_buffer() -> Vec<u8> {
    let mut buf = ENCODE_BUF.take();
    buf.clear();
    buf.reserve(64);
    buf
}

/// Keeps `buf` for the next encode if it is the larger of it and the one kept already.
fn give_back(buf: Vec<u8>) {
    if buf.capacity() <= ENCODE_BUF_KEEP {
        // (try_with: nothing to keep once the thread is exiting.)
        let _ = ENCODE_BUF.try_with(|kept| {
            let old = kept.take();
            kept.set(if buf.capacity() > old.capacity() { buf } else { old });
        });
    }
}

/// Encodes a value for storage. `what` names the argument for error messages.
pub fn encode<'a>(value: &'a Zval, what: &dyn Fn() -> String) -> Result<Encoded<'a>, PhpException> {
    let value = value.dereference();
    let (kind, bytes): (ValueKind, Cow<'a, [u8]>) = if let Some(n) = value.long() {
        return Ok(Encoded { kind: ValueKind::INT, data: Data::Inline(n.to_le_bytes()) });
    } else if let Some(d) = value.double() {
        return Ok(Encoded { kind: DOUBLE, data: Data::Inline(d.to_le_bytes()) });
    } else if value.is_null() {
        (NULL, Cow::Borrowed(&[]))
    } else if value.is_false() {
        (FALSE, Cow::Borrowed(&[]))
    } else if value.is_true() {
        (TRUE, Cow::Borrowed(&[]))
    } else if let Some(s) = value.zend_str() {
        (STRING, Cow::Borrowed(s.as_bytes()))
    } else if value.is_array() || value.is_object() {
        let mut encoder = Encoder { out: take_buffer(), objects: SeenObjects::default(), what };
        let native = match (value.array(), value.object()) {
            (Some(ht), _) => encoder.table(ht, Table::Array, 0)?.then_some(ARRAY),
            (_, Some(obj)) => match plain_properties(obj) {
                Some(props) => {
                    encoder.objects.first_visit(obj.get_id());
                    encoder.table(props, Table::Object, 0)?.then_some(OBJECT)
                }
                None => None,
            },
            _ => None,
        };
        // serialize() runs user code that may end in a fatal error: hold nothing of ours.
        let Encoder { out, objects, .. } = encoder;
        drop(objects);
        match native {
            Some(kind) => (kind, Cow::Owned(out)),
            None => {
                give_back(out);
                refuse_resources(value, 0, &mut Vec::new(), what)?;
                (SERIALIZED, Cow::Owned(serialize(value)?))
            }
        }
    } else {
        return Err(type_error(format!(
            "{} cannot be a {}",
            what(),
            super::args::type_name(value)
        )));
    };
    Ok(Encoded { kind, data: Data::Bytes(bytes) })
}

fn put_len(out: &mut Vec<u8>, n: usize) {
    out.extend_from_slice(&(n as u32).to_le_bytes());
}

/// The properties of `obj` when it is a plain stdClass, which the native encoding can store:
/// no class code decides what is stored or runs when it is read back, and every property is a
/// dynamic one in the properties table. None for any other object (subclasses included).
fn plain_properties(obj: &ZendObject) -> Option<&ZendHashTable> {
    // SAFETY: reading the addresses of two PHP globals; nothing is dereferenced.
    let (stdclass, std_handlers) =
        unsafe { (zend_standard_class_def, std::ptr::addr_of!(std_object_handlers)) };
    if !std::ptr::eq(obj.ce, stdclass) || !std::ptr::eq(obj.handlers, std_handlers) {
        return None;
    }
    // (The standard handler: the properties table, created empty if the object has none yet.)
    obj.get_properties().ok()
}

struct Encoder<'w> {
    out: Vec<u8>,
    /// The stdClass objects encoded so far: one reached twice, or inside itself, must go
    /// through serialize(), which keeps it one object.
    objects: SeenObjects,
    what: &'w dyn Fn() -> String,
}

/// Object handles: a short list for the usual few objects, a set once a value holds many
/// (a list of query result rows) so that checking each stays cheap.
#[derive(Default)]
struct SeenObjects {
    few: Vec<u32>,
    many: std::collections::HashSet<u32>,
}

impl SeenObjects {
    const FEW: usize = 32;

    /// Records `handle`; false if it was already there.
    fn first_visit(&mut self, handle: u32) -> bool {
        if self.many.is_empty() {
            if self.few.contains(&handle) {
                return false;
            }
            if self.few.len() < Self::FEW {
                self.few.push(handle);
                return true;
            }
            self.many.extend(self.few.drain(..));
        }
        self.many.insert(handle)
    }
}

impl Encoder<'_> {
    /// Appends `ht` (an array, or the properties of a stdClass) in the native encoding.
    /// Returns Ok(false) when the value needs PHP's serializer (other objects, references,
    /// depth); the walk goes on after that decision, through references too, so that a resource
    /// anywhere in the array is refused instead of being stored as 0 the way serialize() would.
    fn table(
        &mut self,
        ht: &ZendHashTable,
        table: Table,
        depth: u32,
    ) -> Result<bool, PhpException> {
        if depth > MAX_NATIVE_DEPTH {
            return Ok(false);
        }
        let mut native = true;
        put_len(&mut self.out, ht.len());
        hash::try_for_each(ht, |key, v| -> Result<(), PhpException> {
            let out = &mut self.out;
            match key {
                ArrayKey::Index(i) => {
                    // (A stdClass's property names are strings, even "0".)
                    native &= table == Table::Array;
                    out.push(K_INT);
                    out.extend_from_slice(&i.to_le_bytes());
                }
                ArrayKey::Str(s) => {
                    out.push(K_STRING);
                    put_len(out, s.len());
                    out.extend_from_slice(s.as_bytes());
                }
            }
            if v.is_reference() || v.is_indirect() {
                native = false;
            }
            let v = v.dereference();
            if v.is_null() {
                out.push(T_NULL);
            } else if v.is_false() {
                out.push(T_FALSE);
            } else if v.is_true() {
                out.push(T_TRUE);
            } else if let Some(n) = v.long() {
                out.push(T_INT);
                out.extend_from_slice(&n.to_le_bytes());
            } else if let Some(d) = v.double() {
                out.push(T_DOUBLE);
                out.extend_from_slice(&d.to_le_bytes());
            } else if let Some(s) = v.zend_str() {
                out.push(T_STRING);
                put_len(out, s.len());
                out.extend_from_slice(s.as_bytes());
            } else if let Some(inner) = v.array() {
                out.push(T_ARRAY);
                native &= self.table(inner, Table::Array, depth + 1)?;
            } else if let Some(obj) = v.object() {
                match plain_properties(obj) {
                    Some(props) if native && self.objects.first_visit(obj.get_id()) => {
                        self.out.push(T_OBJECT);
                        native &= self.table(props, Table::Object, depth + 1)?;
                    }
                    // Not stored natively: refuse_resources looks inside instead.
                    _ => native = false,
                }
            } else {
                return Err(type_error(format!(
                    "{} cannot contain a {}",
                    (self.what)(),
                    super::args::type_name(v)
                )));
            }
            Ok(())
        })?;
        Ok(native)
    }
}

/// Whether a resource lies anywhere `encode` looks for one (and then refuses the value).
pub fn holds_resource(value: &Zval) -> bool {
    // Strings and numbers, most values, hold nothing: no walk (and its setup) for them.
    let v = value.dereference();
    if !v.is_array() && !v.is_object() && !v.is_resource() {
        return false;
    }
    refuse_resources(value, 0, &mut Vec::new(), &String::new).is_err()
}

/// serialize() silently turns a resource into 0. Look for resources where serialize() would
/// take them from: arrays, and the properties of objects whose class leaves serialization to
/// PHP (a class with __serialize, __sleep or Serializable decides for itself what it stores).
fn refuse_resources(
    v: &Zval,
    depth: u32,
    seen: &mut Vec<u32>,
    what: &dyn Fn() -> String,
) -> Result<(), PhpException> {
    let v = v.dereference();
    if depth > MAX_NATIVE_DEPTH {
        return Ok(());
    }
    if v.is_resource() {
        return Err(type_error(format!("{} cannot contain a resource", what())));
    }
    let children = if let Some(ht) = v.array() {
        ht
    } else if let Some(obj) = v.object() {
        let ce = obj.get_class_entry();
        let custom = !ce.__serialize.is_null()
            || ce.serialize.is_some()
            || ce.function_table.get("__sleep").is_some();
        if custom || seen.contains(&obj.get_id()) {
            return Ok(());
        }
        seen.push(obj.get_id());
        match obj.get_properties() {
            Ok(props) => props,
            Err(_) => return Ok(()),
        }
    } else {
        return Ok(());
    };
    let mut it = children.iter();
    while let Some((_, child)) = it.next_zval() {
        let child = match child.indirect() {
            Some(target) => target,
            None => child,
        };
        refuse_resources(child, depth + 1, seen, what)?;
    }
    Ok(())
}

/// Runs `f` as a top-level serialize()/unserialize() would run, whatever user code called us
/// from: inside a serialize()/unserialize() of user code (a cache call from
/// Serializable::unserialize, say), `php_var_*_init` would otherwise join the outer call's
/// back-reference table, and the value stored or read would point into the outer value (a
/// reference linking the wrong elements, or a stored value that cannot decode). A fatal error
/// inside `f` loses the outer state, but it also ends the request, and every request starts
/// with a fresh one.
fn isolated<R>(f: impl FnOnce() -> R) -> R {
    let mut outer = SerializerState {
        serialize_data: std::ptr::null_mut(),
        unserialize_data: std::ptr::null_mut(),
        serialize_level: 0,
        unserialize_level: 0,
        lock: 0,
    };
    // SAFETY: saves and resets request globals of this single-threaded process into `outer`,
    // which matches the C struct field for field.
    unsafe { shmcache_serializer_set_aside(&mut outer) };
    let r = f();
    // SAFETY: puts back exactly what was saved; `f` has destroyed its own table (levels 0).
    unsafe { shmcache_serializer_restore(&outer) };
    r
}

/// The exception user code threw (in __serialize, __sleep, __wakeup, ...) stays pending and is
/// what PHP reports; the PhpException returned here is not thrown over it.
fn pending_exception() -> Option<PhpException> {
    ExecutorGlobals::has_exception()
        .then(|| PhpException::from_message("exception in user serialization code".into()))
}

fn serialize(value: &Zval) -> Result<Vec<u8>, PhpException> {
    let mut buf = SmartStr { s: std::ptr::null_mut(), a: 0 };
    // SAFETY: the documented calling sequence of php_var_serialize (PHP_VAR_SERIALIZE_INIT,
    // serialize into a zeroed smart_str, PHP_VAR_SERIALIZE_DESTROY); `value` is a live zval that
    // serialize only reads (it takes a non-const pointer for historical reasons).
    isolated(|| unsafe {
        let mut data = php_var_serialize_init();
        php_var_serialize(&mut buf, (value as *const Zval).cast_mut(), &mut data);
        php_var_serialize_destroy(data);
    });
    // SAFETY: on return buf.s is null or a zend_string we own; ZBox releases it once.
    let out = (!buf.s.is_null()).then(|| unsafe { ZBox::<ZendStr>::from_raw(buf.s) });
    if let Some(e) = pending_exception() {
        return Err(e);
    }
    Ok(out.map(|s| s.as_bytes().to_vec()).unwrap_or_default())
}

/// `bytes` must be followed by a NUL byte in memory (the parser may peek one byte past `max`):
/// callers pass the contents of a zend_string, which always is.
fn unserialize(bytes: &[u8]) -> Result<Option<Zval>, PhpException> {
    let mut rval = Zval::new();
    let mut p = bytes.as_ptr();
    // SAFETY: the documented calling sequence of php_var_unserialize; p..max is our buffer,
    // NUL-terminated by the caller; rval is a fresh zval that PHP fills.
    let ok = isolated(|| unsafe {
        let max = p.add(bytes.len());
        let mut data = php_var_unserialize_init();
        let ok = php_var_unserialize(&mut rval, &mut p, max, &mut data);
        // Delayed __wakeup/__unserialize calls run here.
        php_var_unserialize_destroy(data);
        ok != 0
    });
    if let Some(e) = pending_exception() {
        return Err(e);
    }
    Ok(ok.then_some(rval))
}

thread_local! {
    /// The strings being unserialized by `decode_serialized`, innermost last (a get from inside
    /// __wakeup nests). A fatal error in user code longjmps past the frame that owns one; the
    /// request's shutdown then releases it (`release_abandoned`).
    static UNSERIALIZING: std::cell::RefCell<Vec<*mut zend_string>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// `decode_into` for a value read into the zend_string `s`, which is released afterwards, or
/// at the request's end if user code run by unserialize() never returns.
pub fn decode_serialized(
    kind: ValueKind,
    s: ZBox<ZendStr>,
    out: &mut Zval,
) -> Result<bool, PhpException> {
    let raw = s.into_raw();
    UNSERIALIZING.with_borrow_mut(|v| v.push((raw as *mut ZendStr).cast::<zend_string>()));
    // SAFETY: `raw` is the live string just taken out of its box; it stays allocated until it
    // is released below (or by release_abandoned), and nothing writes to it meanwhile.
    let r = decode_into(kind, unsafe { (*raw).as_bytes() }, out);
    UNSERIALIZING.with_borrow_mut(|v| v.pop());
    // SAFETY: `raw` came from ZBox::into_raw above and is released exactly once, here.
    drop(unsafe { ZBox::from_raw(raw) });
    r
}

/// RSHUTDOWN: releases the strings whose unserialize() a fatal error abandoned.
pub fn release_abandoned() {
    for s in UNSERIALIZING.with_borrow_mut(std::mem::take) {
        // SAFETY: each pointer is a live string taken out of its box by decode_serialized,
        // whose frame was skipped by a bailout before it could release it; still request
        // memory, since RSHUTDOWN runs before the request's memory is freed.
        drop(unsafe { ZBox::<ZendStr>::from_raw(s.cast::<ZendStr>()) });
    }
}

/// `value` encoded (`encode`) into a PHP string, its kind byte first: what a batch of writes
/// keeps its values in while serialize() may still run user code, as PHP frees its own memory
/// if that ends the request with a fatal error, where a Rust buffer would leak.
pub fn encode_into_php_string(
    value: &Zval,
    what: &dyn Fn() -> String,
) -> Result<Zval, PhpException> {
    let encoded = encode(value, what)?;
    let (s, contents) = alloc_zend_string(1 + encoded.bytes().len());
    // SAFETY: `contents` is writable for 1 + len bytes (alloc_zend_string's contract) and does
    // not overlap the encoded bytes, which live in our own buffer or the caller's value.
    unsafe {
        *contents = encoded.kind.0;
        std::ptr::copy_nonoverlapping(
            encoded.bytes().as_ptr(),
            contents.add(1),
            encoded.bytes().len(),
        );
    }
    drop(encoded);
    let mut z = Zval::new();
    z.set_zend_string(s);
    Ok(z)
}

/// The kind and bytes of a value `encode_into_php_string` made.
pub fn split_php_encoded(z: &Zval) -> Option<(ValueKind, &[u8])> {
    let (&kind, data) = z.zend_str()?.as_bytes().split_first()?;
    Some((ValueKind(kind), data))
}

pub fn string_zval(bytes: &[u8]) -> Zval {
    let mut z = Zval::new();
    z.set_zend_string(ZendStr::new(bytes, false));
    z
}

/// `out = false`, for a null (or other non-refcounted) `out`: the type word alone, inline
/// (ext-php-rs' `set_bool` is a call that first releases what `out` held).
#[inline(always)]
pub fn put_false(out: &mut Zval) {
    out.u1.type_info = ZvalTypeFlags::False.bits();
}

/// `out = b`, for a null (or other non-refcounted) `out`, as `put_false`.
#[inline(always)]
pub fn put_bool(out: &mut Zval, b: bool) {
    out.u1.type_info = if b { ZvalTypeFlags::True.bits() } else { ZvalTypeFlags::False.bits() };
}

/// `out = n`, for a null (or other non-refcounted) `out`, as `put_false`.
#[inline(always)]
pub fn put_long(out: &mut Zval, n: i64) {
    out.value.lval = n;
    out.u1.type_info = ZvalTypeFlags::Long.bits();
}

/// `decode_into` for ints and floats, small enough to inline into a get (decode_into itself
/// sets up for arrays and objects): Some(whether the bytes made a value), None for other kinds.
#[inline]
pub fn decode_number(kind: ValueKind, bytes: &[u8], out: &mut Zval) -> Option<bool> {
    let bytes: [u8; 8] = match kind {
        ValueKind::INT | DOUBLE => match bytes.try_into() {
            Ok(b) => b,
            Err(_) => return Some(false),
        },
        _ => return None,
    };
    if kind == ValueKind::INT {
        put_long(out, i64::from_le_bytes(bytes));
    } else {
        out.value.dval = f64::from_le_bytes(bytes);
        out.u1.type_info = ZvalTypeFlags::Double.bits();
    }
    Some(true)
}

/// Decodes a stored value into `out` (a null zval). false means the bytes do not decode
/// (treated as a miss); an Err is an exception thrown by user code during unserialize(). For
/// SERIALIZED, `bytes` must be a zend_string's contents (NUL-terminated, and freed by PHP if
/// user code bails out). Scalars are written field by field (see `put_string`).
pub fn decode_into(kind: ValueKind, bytes: &[u8], out: &mut Zval) -> Result<bool, PhpException> {
    if let Some(hit) = decode_number(kind, bytes, out) {
        return Ok(hit);
    }
    let type_info = match kind {
        NULL => ZvalTypeFlags::Null,
        FALSE => ZvalTypeFlags::False,
        TRUE => ZvalTypeFlags::True,
        STRING => {
            put_string(out, zstr::value_string(bytes));
            return Ok(true);
        }
        ARRAY => {
            let decoded =
                SharedStrings::with(|strings| native::decode(bytes, &mut TableSink { strings }));
            let Some(ht) = decoded else { return Ok(false) };
            out.value.arr = ht.into_raw();
            ZvalTypeFlags::ArrayEx
        }
        OBJECT => {
            let decoded = SharedStrings::with(|strings| {
                native::decode_table(bytes, Table::Object, &mut TableSink { strings })
            });
            let Some(props) = decoded else { return Ok(false) };
            stdclass_with(props, out)
        }
        SERIALIZED => {
            let Some(z) = unserialize(bytes)? else { return Ok(false) };
            *out = z;
            return Ok(true);
        }
        _ => return Ok(false),
    };
    out.u1.type_info = type_info.bits();
    Ok(true)
}

/// Makes `out` (a null zval) the string `s`, field by field: ext-php-rs' setter is an
/// out-of-line call, and moving the zval it built right after its narrower stores stalls the
/// CPU's store forwarding, which showed on every get.
#[inline]
pub fn put_string(out: &mut Zval, s: ZBox<ZendStr>) {
    out.u1.type_info = string_value(out, s).bits();
}

/// `put_string` of a string `alloc_zend_string` has just made, which is never interned: its
/// type needs no look at its flags (a read's result).
#[inline]
pub fn put_new_string(out: &mut Zval, s: ZBox<ZendStr>) {
    // SAFETY: reading the GC flags of a live zend_string.
    debug_assert_eq!(unsafe { s.gc.u.type_info } & GC_IMMUTABLE, 0);
    out.value.str_ = s.into_raw();
    out.u1.type_info = ZvalTypeFlags::StringEx.bits();
}

/// Points `out`'s value at `s` and returns the type `out` must then get.
#[inline]
fn string_value(out: &mut Zval, s: ZBox<ZendStr>) -> ZvalTypeFlags {
    // SAFETY: reading the GC flags of a live zend_string.
    let interned = unsafe { s.gc.u.type_info } & GC_IMMUTABLE != 0;
    out.value.str_ = s.into_raw();
    if interned {
        ZvalTypeFlags::InternedStringEx
    } else {
        ZvalTypeFlags::StringEx
    }
}

/// Makes `out` (a null zval) a new stdClass whose properties are `props` (string keys, as the
/// decoder guarantees for a [`Table::Object`]): what `(object) $array` does.
fn stdclass_with(props: ZBox<ZendHashTable>, out: &mut Zval) -> ZvalTypeFlags {
    // SAFETY: zend_standard_class_def is registered before any request runs, and stdClass has
    // no create_object handler, so zend_objects_new makes the whole object (it does not
    // return null: PHP's allocator bails out instead). stdClass declares no properties, so
    // object_properties_init_ex just makes the table, which we own, the object's.
    unsafe {
        let obj = zend_objects_new(zend_standard_class_def);
        object_properties_init_ex(obj, props.into_raw());
        out.value.obj = obj;
    }
    ZvalTypeFlags::ObjectEx
}

/// Builds the PHP array as the native decoder walks the bytes; a malformed input drops the
/// tables built so far (ZBox releases them).
struct TableSink<'s> {
    strings: &'s mut SharedStrings,
}

impl<'a> native::Sink<'a> for TableSink<'_> {
    type Array = ZBox<ZendHashTable>;

    #[inline]
    fn begin_array(&mut self, count: usize) -> Self::Array {
        // The decoder bounds count by the input's length, and it came from a u32.
        ZendHashTable::with_capacity(count as u32)
    }

    #[inline]
    fn element(&mut self, ht: &mut Self::Array, key: Key<'a>, item: Item<'a, Self::Array>) {
        // The zval is filled field by field where it stays until the table copies it, rather
        // than built by ext-php-rs' setters (out-of-line calls) and then moved: a 16-byte move
        // right after those 8- and 4-byte stores cannot be forwarded from them and stalls the
        // CPU, once per element (a large share of the decoder's time: docs/benchmarks.md, "Figures
        // behind code comments").
        let mut v = Zval::new();
        let type_info = match item {
            Item::Null => ZvalTypeFlags::Null,
            Item::Bool(false) => ZvalTypeFlags::False,
            Item::Bool(true) => ZvalTypeFlags::True,
            Item::Int(n) => {
                v.value.lval = n;
                ZvalTypeFlags::Long
            }
            Item::Double(d) => {
                v.value.dval = d;
                ZvalTypeFlags::Double
            }
            Item::String(s) => string_value(&mut v, self.strings.value(s)),
            Item::Array(inner) => {
                v.value.arr = inner.into_raw();
                ZvalTypeFlags::ArrayEx
            }
            Item::Object(props) => stdclass_with(props, &mut v),
        };
        v.u1.type_info = type_info.bits();
        insert(ht, key, &mut v, self.strings);
        std::mem::forget(v);
    }
}

/// Inserts without ext-php-rs' key conversion: stored string keys came out of a PHP array (so
/// they are never numeric strings) or are property names (which stay strings even when
/// numeric), and go straight in. The table takes over `v`'s value.
#[inline]
fn insert(ht: &mut ZendHashTable, key: Key<'_>, v: &mut Zval, strings: &mut SharedStrings) {
    let table: *mut ZendHashTable = ht;
    // SAFETY: `table` is a live, initialised array we own; each update takes over the zval's
    // value (the caller forgets it). A shared key is a live string the table of shared
    // strings holds (borrow's contract), which zend_hash_update references itself; other keys
    // are copied from the bytes.
    unsafe {
        match key {
            Key::Int(i) => zend_hash_index_update(table, i as u64, v),
            Key::Bytes(s) if SharedStrings::is_shareable(s) => {
                zend_hash_update(table, strings.borrow(s), v)
            }
            Key::Bytes(s) => zend_hash_str_update(table, s.as_ptr().cast(), s.len(), v),
        };
    }
}
