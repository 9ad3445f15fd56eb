//! `APCUIterator` and the `APC_ITER_*` / `APC_LIST_*` constants, registered with the apcu_*
//! functions (`shmcache.apcu_compat=1`), and the listing `apcu_cache_info()` and
//! `apcu_delete(APCUIterator)` share with it.
//!
//! A listing is one walk of the key index (`Cache::entries`) taken when iteration starts (the
//! first `rewind()`, `valid()`, `key()` or `current()`); entries are then turned into PHP
//! arrays a chunk at a time, their values read (and unserialized) only then. Entries written
//! after the walk are not seen; an entry deleted before its chunk is built is still listed,
//! unless its value is asked for (then it is skipped).
//!
//! User code can run inside these methods: unserialize() of a value (`__wakeup`), the
//! destructor of a value in the chunk being dropped, an error handler called for a warning. So
//! the iterator's state is never borrowed while that happens: what a step needs is taken out
//! first and the result put back after, and calling the methods of the same iterator from that
//! code is safe.

use std::cell::RefCell;
use std::collections::{HashSet, VecDeque};
use std::ffi::c_void;
use std::sync::OnceLock;

use ext_php_rs::boxed::ZBox;
use ext_php_rs::builders::ClassBuilder;
use ext_php_rs::class::RegisteredClass;
use ext_php_rs::constant::IntoConst;
use ext_php_rs::exception::PhpException;
use ext_php_rs::ffi::{
    zend_execute_data, zend_function, zend_hash_str_find, zval, IS_PTR, ZEND_INTERNAL_FUNCTION,
};
use ext_php_rs::prelude::*;
use ext_php_rs::types::{ZendClassObject, ZendHashTable, ZendObject, ZendStr, Zval};
use ext_php_rs::zend::{ce, ExecuteData, ExecutorGlobals};

use crate::engine::{EntryTimes, ListedEntry};
use crate::php::args::{value_error, IntArg};
use crate::php::codec;
use crate::php::ffi::{pcre_get_compiled_regex_cache, php_pcre_match_impl};
use crate::php::hash;
use crate::php::region::cache;

pub const APC_LIST_ACTIVE: i64 = 1;
pub const APC_LIST_DELETED: i64 = 2;
const ITER_TYPE: i64 = 1 << 0;
const ITER_KEY: i64 = 1 << 1;
const ITER_VALUE: i64 = 1 << 2;
const ITER_NUM_HITS: i64 = 1 << 3;
const ITER_MTIME: i64 = 1 << 4;
const ITER_CTIME: i64 = 1 << 5;
const ITER_DTIME: i64 = 1 << 6;
const ITER_ATIME: i64 = 1 << 7;
const ITER_REFCOUNT: i64 = 1 << 8;
const ITER_MEM_SIZE: i64 = 1 << 9;
const ITER_TTL: i64 = 1 << 10;
const ITER_NONE: i64 = 0;
const ITER_ALL: i64 = 0xffff_ffff;
const DEFAULT_CHUNK_SIZE: i64 = 100;

const CONSTANTS: [(&str, i64); 15] = [
    ("APC_LIST_ACTIVE", APC_LIST_ACTIVE),
    ("APC_LIST_DELETED", APC_LIST_DELETED),
    ("APC_ITER_TYPE", ITER_TYPE),
    ("APC_ITER_KEY", ITER_KEY),
    ("APC_ITER_VALUE", ITER_VALUE),
    ("APC_ITER_NUM_HITS", ITER_NUM_HITS),
    ("APC_ITER_MTIME", ITER_MTIME),
    ("APC_ITER_CTIME", ITER_CTIME),
    ("APC_ITER_DTIME", ITER_DTIME),
    ("APC_ITER_ATIME", ITER_ATIME),
    ("APC_ITER_REFCOUNT", ITER_REFCOUNT),
    ("APC_ITER_MEM_SIZE", ITER_MEM_SIZE),
    ("APC_ITER_TTL", ITER_TTL),
    ("APC_ITER_NONE", ITER_NONE),
    ("APC_ITER_ALL", ITER_ALL),
];

const UNINITIALIZED: &str = "Trying to use uninitialized APCUIterator";

fn error(message: &str) -> PhpException {
    PhpException::new(message.into(), 0, ce::error())
}

/// Which keys a listing keeps.
#[derive(Clone)]
pub enum Search {
    All,
    /// A PCRE pattern, delimiters and flags included, as preg_match() takes it.
    Pattern(Vec<u8>),
    Keys(HashSet<Vec<u8>>),
}

/// A compiled pattern from PHP's regex cache. Valid until PHP code runs again (the cache may
/// then drop it), so it is looked up again for every listing.
struct Compiled(*mut c_void);

impl Compiled {
    /// None after PHP's warning about the pattern.
    fn lookup(pattern: &[u8]) -> Option<Compiled> {
        let mut regex = ZendStr::new(pattern, false);
        // SAFETY: a live zend_string we own for the call; PHP returns its cache entry or NULL.
        let pce = unsafe { pcre_get_compiled_regex_cache(std::ptr::addr_of_mut!(*regex)) };
        (!pce.is_null()).then_some(Compiled(pce))
    }

    fn matches(&self, subject: &[u8]) -> bool {
        let mut subject = ZendStr::new(subject, false);
        let mut result = Zval::new();
        // SAFETY: the cache entry was looked up by the caller with no PHP code run since (so it
        // is still cached); subject and result are live and ours. preg_match() semantics: the
        // result becomes 1, 0, or false on a matching error.
        unsafe {
            php_pcre_match_impl(
                self.0,
                std::ptr::addr_of_mut!(*subject),
                std::ptr::addr_of_mut!(result).cast(),
                std::ptr::null_mut(),
                0,
                0,
                0,
                0,
            )
        };
        result.long().is_some_and(|n| n > 0)
    }
}

/// The APCu entries (both namespaces they live in) that `search` keeps, oldest write first,
/// with their APCu keys. Runs PHP code only through a warning about the pattern, before any
/// entry is read.
pub fn listing(search: &Search) -> Vec<ListedEntry> {
    let Some(cache) = cache() else { return Vec::new() };
    let compiled = match search {
        Search::Pattern(p) => match Compiled::lookup(p) {
            Some(c) => Some(c),
            None => return Vec::new(),
        },
        _ => None,
    };
    let (ns, empty_key_ns) = super::store::namespaces();
    let mut entries = cache.entries(ns);
    entries.extend(cache.entries(empty_key_ns).into_iter().map(|mut e| {
        e.key.clear();
        e
    }));
    entries.sort_by_key(|e| e.written_at);
    entries.retain(|e| match search {
        Search::All => true,
        Search::Keys(keys) => keys.contains(&e.key),
        Search::Pattern(_) => compiled.as_ref().is_some_and(|c| c.matches(&e.key)),
    });
    entries
}

/// The `ttl` APCu reports: the TTL the entry was stored with (0: none). An entry written
/// without a store time (through `new ShmCache('apcu')`) reports the seconds it has left.
pub fn ttl_of(times: &EntryTimes) -> i64 {
    if let Some(ttl) = times.ttl_given() {
        return ttl as i64;
    }
    i64::try_from(times.seconds_left()).unwrap_or(i64::MAX)
}

fn times_of(e: &ListedEntry) -> EntryTimes {
    EntryTimes { expires_at: e.expires_at, stored_at: e.stored_at }
}

/// One row of `apcu_cache_info()['cache_list']`.
pub fn cache_list_row(e: &ListedEntry) -> PhpResult<ZBox<ZendHashTable>> {
    let mut row = ZendHashTable::new();
    row.insert("info", codec::string_zval(&e.key))?;
    row.insert("ttl", ttl_of(&times_of(e)))?;
    // Entries keep no hit counts nor access times (docs/apcu.md).
    row.insert("num_hits", 0.0f64)?;
    row.insert("mtime", e.stored_at as i64)?;
    row.insert("creation_time", e.stored_at as i64)?;
    row.insert("deletion_time", 0i64)?;
    row.insert("access_time", 0i64)?;
    row.insert("ref_count", 0i64)?;
    row.insert("mem_size", e.entry_len as i64)?;
    Ok(row)
}

struct Item {
    key: Vec<u8>,
    value: Zval,
}

/// The array `current()` returns for an entry, with the fields `format` asks for, in APCu's
/// order; None when the value was asked for and the entry is gone.
fn item(e: &ListedEntry, format: i64) -> PhpResult<Option<Item>> {
    let mut row = ZendHashTable::new();
    if format & ITER_TYPE != 0 {
        row.insert("type", "user")?;
    }
    if format & ITER_KEY != 0 {
        row.insert("key", codec::string_zval(&e.key))?;
    }
    if format & ITER_VALUE != 0 {
        let mut value = Zval::new();
        if !super::store::peek(&e.key, &mut value)? {
            return Ok(None);
        }
        row.insert("value", value)?;
    }
    if format & ITER_NUM_HITS != 0 {
        row.insert("num_hits", 0i64)?;
    }
    if format & ITER_MTIME != 0 {
        row.insert("mtime", e.stored_at as i64)?;
    }
    if format & ITER_CTIME != 0 {
        row.insert("creation_time", e.stored_at as i64)?;
    }
    if format & ITER_DTIME != 0 {
        row.insert("deletion_time", 0i64)?;
    }
    if format & ITER_ATIME != 0 {
        row.insert("access_time", 0i64)?;
    }
    if format & ITER_REFCOUNT != 0 {
        row.insert("ref_count", 0i64)?;
    }
    if format & ITER_MEM_SIZE != 0 {
        row.insert("mem_size", e.entry_len as i64)?;
    }
    if format & ITER_TTL != 0 {
        row.insert("ttl", ttl_of(&times_of(e)))?;
    }
    let mut value = Zval::new();
    value.set_hashtable(row);
    Ok(Some(Item { key: e.key.clone(), value }))
}

struct State {
    search: Search,
    format: i64,
    chunk_size: usize,
    /// APC_LIST_DELETED: shmcache keeps no list of deleted entries, so it is always empty.
    deleted_list: bool,
    /// Entries of the current listing not yet in a chunk; None until iteration starts.
    pending: Option<VecDeque<ListedEntry>>,
    chunk: Vec<Item>,
    at: usize,
    /// (hits, size, count) over the whole listing, computed once.
    totals: Option<(i64, i64, i64)>,
}

#[php_class]
#[php(name = "APCUIterator")]
#[php(implements(ce = ce::iterator, stub = "\\Iterator"))]
pub struct ApcuIterator {
    state: RefCell<State>,
}

impl ApcuIterator {
    /// Runs `f` on the state. `f` must not run PHP code (which could call this iterator).
    fn with<R>(&self, f: impl FnOnce(&mut State) -> R) -> PhpResult<R> {
        let mut state =
            self.state.try_borrow_mut().map_err(|_| error("APCUIterator: the iterator is busy"))?;
        Ok(f(&mut state))
    }

    /// Replaces the chunk with the next one (taking the listing first when iteration starts);
    /// its length.
    fn fetch(&self) -> PhpResult<usize> {
        let (old, needs_listing, search, deleted) = self.with(|s| {
            (std::mem::take(&mut s.chunk), s.pending.is_none(), s.search.clone(), s.deleted_list)
        })?;
        // Dropped here, with nothing borrowed: a value's destructor may call this iterator.
        drop(old);
        if needs_listing {
            let entries = if deleted { Vec::new() } else { listing(&search) };
            self.with(|s| s.pending = Some(entries.into()))?;
        }
        let (batch, format) = self.with(|s| {
            s.at = 0;
            let pending = s.pending.get_or_insert_with(VecDeque::new);
            let n = s.chunk_size.min(pending.len());
            (pending.drain(..n).collect::<Vec<_>>(), s.format)
        })?;
        let mut items = Vec::with_capacity(batch.len());
        for e in &batch {
            if let Some(item) = item(e, format)? {
                items.push(item);
            }
        }
        let n = items.len();
        let replaced = self.with(|s| {
            s.at = 0;
            std::mem::replace(&mut s.chunk, items)
        })?;
        drop(replaced);
        Ok(n)
    }

    /// The chunk's current item, fetching the next chunk when this one is used up; `what`
    /// names the method for the error on an iterator at its end.
    fn current_item<R>(&self, what: &str, f: impl Fn(&Item) -> R) -> PhpResult<R> {
        if self.with(|s| s.at >= s.chunk.len())? && self.fetch()? == 0 {
            return Err(error(&format!("Cannot call {what}() on invalid iterator")));
        }
        self.with(|s| s.chunk.get(s.at).map(&f))?
            .ok_or_else(|| error(&format!("Cannot call {what}() on invalid iterator")))
    }

    fn totals(&self) -> PhpResult<(i64, i64, i64)> {
        let (known, search, deleted) =
            self.with(|s| (s.totals, s.search.clone(), s.deleted_list))?;
        if let Some(t) = known {
            return Ok(t);
        }
        let entries = if deleted { Vec::new() } else { listing(&search) };
        let size = entries.iter().map(|e| e.entry_len as i64).sum();
        let totals = (0, size, entries.len() as i64);
        self.with(|s| s.totals = Some(totals))?;
        Ok(totals)
    }

    /// The keys `apcu_delete($iterator)` deletes: every entry its search keeps, now.
    pub fn keys_to_delete(&self) -> PhpResult<Vec<Vec<u8>>> {
        let (search, deleted) = self.with(|s| (s.search.clone(), s.deleted_list))?;
        Ok(if deleted { Vec::new() } else { listing(&search).into_iter().map(|e| e.key).collect() })
    }
}

/// True when the constructor running now was called on an iterator already constructed (the
/// object is found through the frame of the call in progress, the constructor's own).
fn constructing_a_constructed_iterator() -> bool {
    let frame = ExecutorGlobals::get().current_execute_data;
    // SAFETY: during an internal call the current frame is that call's live frame; get_object
    // only reads its `This` and yields Some only for a constructed APCUIterator.
    unsafe { frame.as_mut() }.is_some_and(|frame| frame.get_object::<ApcuIterator>().is_some())
}

#[php_impl]
impl ApcuIterator {
    #[php(defaults(format = 4294967295, chunk_size = 100, list = 1))]
    pub fn __construct(
        search: Option<&Zval>,
        format: IntArg,
        chunk_size: IntArg,
        list: IntArg,
    ) -> PhpResult<Self> {
        const FUNC: &str = "APCUIterator::__construct";
        let format = format.value(&|| format!("{FUNC}(): Argument #2 ($format)"))?;
        let chunk_size = chunk_size.value(&|| format!("{FUNC}(): Argument #3 ($chunk_size)"))?;
        let list = list.value(&|| format!("{FUNC}(): Argument #4 ($list)"))?;
        // Constructing again would free the state under a method that may be running.
        if constructing_a_constructed_iterator() {
            return Err(error("APCUIterator::__construct(): the iterator is already constructed"));
        }
        if cache().is_none() {
            return Err(error("APC must be enabled to use APCUIterator"));
        }
        if chunk_size < 0 {
            return Err(value_error(format!(
                "{FUNC}(): Argument #3 ($chunk_size) must be greater than or equal to 0"
            )));
        }
        if format > ITER_ALL {
            return Err(value_error(format!(
                "{FUNC}(): Argument #2 ($format) is not a valid APC_ITER_* format"
            )));
        }
        if list != APC_LIST_ACTIVE && list != APC_LIST_DELETED {
            return Err(value_error(format!(
                "{FUNC}(): Argument #4 ($list) must be APC_LIST_ACTIVE or APC_LIST_DELETED"
            )));
        }
        let search = match search.map(Zval::dereference) {
            Some(z) if z.zend_str().is_some_and(|s| !s.as_bytes().is_empty()) => {
                let pattern = z.zend_str().map(|s| s.as_bytes().to_vec()).unwrap_or_default();
                // Compiled now so that a bad pattern is reported here, with PHP's own warning.
                if Compiled::lookup(&pattern).is_none() {
                    return Err(value_error(format!(
                        "{FUNC}(): Argument #1 ($search) must be a valid regular expression"
                    )));
                }
                Search::Pattern(pattern)
            }
            Some(z) if z.array().is_some() => {
                let mut keys = HashSet::new();
                for (_, v) in hash::elements(z.array().expect("an array")) {
                    let v = v.dereference();
                    match v.zend_str() {
                        Some(s) => keys.insert(s.as_bytes().to_vec()),
                        // APCu looks other values up as integer keys, which its keys (strings)
                        // never are; an int's decimal form is the key it would be stored as.
                        None => keys.insert(
                            v.long().map(|n| n.to_string().into_bytes()).unwrap_or_default(),
                        ),
                    };
                }
                Search::Keys(keys)
            }
            _ => Search::All,
        };
        Ok(ApcuIterator {
            state: RefCell::new(State {
                search,
                format,
                chunk_size: if chunk_size == 0 {
                    DEFAULT_CHUNK_SIZE as usize
                } else {
                    chunk_size as usize
                },
                deleted_list: list == APC_LIST_DELETED,
                pending: None,
                chunk: Vec::new(),
                at: 0,
                totals: None,
            }),
        })
    }

    pub fn rewind(&self) -> PhpResult<()> {
        let old = self.with(|s| {
            s.pending = None;
            s.at = 0;
            std::mem::take(&mut s.chunk)
        })?;
        drop(old);
        self.fetch().map(drop)
    }

    pub fn valid(&self) -> PhpResult<bool> {
        if self.with(|s| s.at >= s.chunk.len())? {
            self.fetch()?;
        }
        self.with(|s| s.at < s.chunk.len())
    }

    pub fn current(&self) -> PhpResult<Zval> {
        self.current_item("current", |item| item.value.shallow_clone())
    }

    pub fn key(&self) -> PhpResult<Zval> {
        self.current_item("key", |item| codec::string_zval(&item.key))
    }

    pub fn next(&self) -> PhpResult<()> {
        self.with(|s| {
            if s.at < s.chunk.len() {
                s.at += 1;
            }
        })
    }

    /// Always 0: entries keep no hit counts.
    #[php(name = "getTotalHits")]
    pub fn get_total_hits(&self) -> PhpResult<i64> {
        self.totals().map(|t| t.0)
    }

    /// Bytes the listed entries take in the value ring.
    #[php(name = "getTotalSize")]
    pub fn get_total_size(&self) -> PhpResult<i64> {
        self.totals().map(|t| t.1)
    }

    #[php(name = "getTotalCount")]
    pub fn get_total_count(&self) -> PhpResult<i64> {
        self.totals().map(|t| t.2)
    }
}

/// What `apcu_delete()` finds in an object argument.
pub enum Deletable<'a> {
    Iterator(&'a ApcuIterator),
    /// An APCUIterator (a subclass) whose constructor never ran.
    Uninitialized,
    NotAnIterator,
}

pub fn deletable(obj: &ZendObject) -> Deletable<'_> {
    if let Some(it) = ZendClassObject::<ApcuIterator>::from_zend_obj(obj) {
        return Deletable::Iterator(it);
    }
    if obj.instance_of(ApcuIterator::get_metadata().ce()) {
        Deletable::Uninitialized
    } else {
        Deletable::NotAnIterator
    }
}

/// The methods' handlers as registered, by position in GUARDED.
static GENERATED: [OnceLock<Handler>; GUARDED.len()] = [const { OnceLock::new() }; GUARDED.len()];
const GUARDED: [&str; 8] =
    ["rewind", "valid", "current", "key", "next", "gettotalhits", "gettotalsize", "gettotalcount"];

type Handler = unsafe extern "C" fn(*mut zend_execute_data, *mut zval);

/// A method's handler in front of the generated one: on an object whose constructor never ran
/// (a subclass constructor that does not call ours) APCu throws its own Error, where the
/// generated handler would throw an Exception of its own.
unsafe extern "C" fn guarded<const N: usize>(ex: *mut zend_execute_data, rv: *mut zval) {
    // SAFETY: PHP calls a method's handler with its live frame.
    let constructed = unsafe { ex.cast::<ExecuteData>().as_mut() }
        .is_some_and(|ex| ex.get_object::<ApcuIterator>().is_some());
    if !constructed {
        let _ = error(UNINITIALIZED).throw();
        return;
    }
    if let Some(generated) = GENERATED[N].get() {
        // SAFETY: the handler PHP registered for this very method, called as PHP would.
        unsafe { generated(ex, rv) };
    }
}

/// Puts `guarded` in front of each method but the constructor.
fn guard_methods() {
    let handlers: [Handler; GUARDED.len()] = [
        guarded::<0>,
        guarded::<1>,
        guarded::<2>,
        guarded::<3>,
        guarded::<4>,
        guarded::<5>,
        guarded::<6>,
        guarded::<7>,
    ];
    let class = ApcuIterator::get_metadata().ce();
    let table = std::ptr::addr_of!(class.function_table);
    for (n, name) in GUARDED.iter().enumerate() {
        // SAFETY: the class's own function table, just registered (MINIT, single thread); a
        // found entry is an IS_PTR zval holding an internal zend_function, whose handler is
        // swapped the way extensions wrap functions.
        unsafe {
            let zv = zend_hash_str_find(table, name.as_ptr().cast(), name.len());
            if zv.is_null() || u32::from((*zv).u1.v.type_) != IS_PTR {
                continue;
            }
            let f = (*zv).value.ptr.cast::<zend_function>();
            if f.is_null() || u32::from((*f).type_) != ZEND_INTERNAL_FUNCTION {
                continue;
            }
            if let Some(generated) = (*f).internal_function.handler {
                let _ = GENERATED[n].set(generated);
                (*f).internal_function.handler = Some(handlers[n]);
            }
        }
    }
}

/// Registers the constants and the class (MINIT, with the apcu_* functions).
pub fn register(module_number: i32) -> Result<(), String> {
    for (name, value) in CONSTANTS {
        value
            .register_constant(name, module_number)
            .map_err(|e| format!("shmcache: could not register {name}: {e}"))?;
    }
    let mut builder = ClassBuilder::new(ApcuIterator::CLASS_NAME);
    for (method, flags) in ApcuIterator::method_builders() {
        builder = builder.method(method, flags);
    }
    for interface in ApcuIterator::IMPLEMENTS {
        builder = builder.implements(*interface);
    }
    builder
        .flags(ApcuIterator::FLAGS)
        .object_override::<ApcuIterator>()
        .registration(|ce, arg_info| {
            ApcuIterator::get_metadata().set_ce(ce);
            ApcuIterator::get_metadata().set_arg_info(arg_info);
        })
        .register()
        .map_err(|e| format!("shmcache: could not register APCUIterator: {e}"))?;
    guard_methods();
    Ok(())
}
