<?php

/**
 * IDE stubs for the shmcache extension (libshmcache.so), PHP 8.2.
 *
 * This file is for IDEs and static analysers only. Do not include it at runtime: the
 * extension defines these names itself, so including it next to the loaded extension
 * is a fatal "cannot redeclare" error.
 *
 * The parameter lists and declared types match `php --re shmcache`. Where the
 * extension's arginfo declares `mixed` as the return type, the stub declares `mixed`
 * too, and the docblock gives the precise type.
 *
 * Shared rules (every function and every ShmCache method):
 *
 * Keys
 *   A key is a binary-safe string: any bytes, including NUL and bytes that are not
 *   valid UTF-8. An int key is turned into its decimal string, so 42 and "42" are
 *   the same key. A key must be 1 to 4096 bytes long (SHMCACHE_MAX_KEY_LENGTH).
 *   An empty key or a longer one throws ValueError. A float, bool, null, array or
 *   object key throws TypeError, with or without strict_types (floats and bools are
 *   not converted).
 *
 * TTL
 *   $ttl is a whole number of seconds relative to now. 0 (the default) means no
 *   expiry. A negative TTL writes an entry that is already expired: the call still
 *   returns true, and afterwards the key is not visible (any older value is hidden
 *   too). There is no Memcached-style rule that treats large values as absolute Unix
 *   times. Expiry is checked against the system clock in whole seconds, so an entry
 *   written with $ttl = N stays visible for more than N-1 and at most N seconds.
 *   $ttl must be an int: floats and numeric strings throw TypeError.
 *
 * Values
 *   null, bool, int, float and string are stored as they are. Arrays and plain
 *   stdClass objects that hold only these types and each other (nested up to 64
 *   levels) use a compact native encoding. Everything else goes through PHP's
 *   serialize(): objects of any other class (subclasses of stdClass too), values
 *   holding references or the same object twice (serialize() keeps them shared),
 *   deeper nesting. So a value read back is always a copy, never the object that was
 *   stored. A resource anywhere in the value throws TypeError, except inside an object
 *   whose class decides what it stores (__serialize(), __sleep(), Serializable). A
 *   Closure or any other object that serialize() refuses makes serialize() throw its
 *   own Exception (for example "Serialization of 'Closure' is not allowed"). In both
 *   cases nothing is stored.
 *
 * Size limit
 *   An entry (64-byte header + namespace + key + value after encoding and LZ4
 *   compression) may take at most a quarter of shmcache.values_memory_size, and at
 *   most 2 GiB. shmcache_info()['max_value_size'] gives the limit for a 1-byte key in
 *   the root namespace. A larger value is not stored: the call raises an E_WARNING
 *   naming the limit ("value of N bytes is too large; the largest storable value is M
 *   bytes (raise shmcache.values_memory_size)") and returns false.
 *
 * When the extension has no region
 *   With shmcache.enable=0, or in the CLI without shmcache.enable_cli=1, there is no
 *   region. Arguments are still checked and can still throw, but every read is a miss
 *   and every write, flush and incr/decr/cas returns false. shmcache_info() then has
 *   'enabled' => false.
 *
 * Contention
 *   A write that loses the race for its key to other processes 10,000 times in a row
 *   gives up: E_WARNING "too much contention on this key; the write was not applied",
 *   and the call returns false.
 *
 * @link docs/design.md how it works; docs/configuration.md the INI directives
 */

/**
 * Version of the extension, e.g. "0.1.0".
 *
 * @var string
 */
const SHMCACHE_VERSION = '0.1.0';

/**
 * Longest key accepted, in bytes (a namespace's bytes are not counted).
 *
 * @var int
 */
const SHMCACHE_MAX_KEY_LENGTH = 4096;

/**
 * Reads a key.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param bool|null $found Set to true when the key was found and false on a miss, so a
 *                         stored false can be told apart from a miss.
 * @return mixed The stored value (a copy), or false on a miss. Missing, expired, flushed
 *               and deleted keys are misses. So is an entry that fails its integrity check
 *               (counted in shmcache_info()['validation_failures']), and so is every read
 *               when the extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int.
 */
function shmcache_get(string $key, ?bool &$found = null): mixed {}

/**
 * Reads several keys.
 *
 * Each key is read on its own: the result is not a snapshot taken at one instant.
 * All keys are checked before any is read. The keys are read as one batch, with the memory
 * accesses of later keys started while earlier ones are read, so one call is cheaper than a
 * loop of shmcache_get() when the keys are not in the CPU's cache. An exception thrown while
 * a value is unserialized (by __wakeup or __unserialize) ends the call; the keys after that
 * one are not read.
 *
 * @param array<array-key, string|int> $keys The keys to read are the VALUES of this
 *                                           array; its own keys are ignored.
 * @return array<array-key, mixed> key => value, for the hits only, in the order of $keys.
 *                                 Each key is the result key as given (numeric strings
 *                                 become int keys, as in any PHP array). Duplicate keys
 *                                 give one element. [] when nothing was found or the
 *                                 extension has no region.
 * @throws ValueError If a key is empty or longer than 4096 bytes.
 * @throws TypeError If a key is not a string or an int.
 */
function shmcache_get_multi(array $keys): mixed {}

/**
 * Stores a value, whether or not the key exists.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param mixed $value Any value except a resource or an object serialize() refuses.
 * @param int $ttl Seconds to live; 0 = no expiry; negative = already expired (returns
 *                 true, and the key is then not visible).
 * @return bool True when stored. False when the value is too large for the ring (with
 *              an E_WARNING naming the limit), when the write lost to contention (with
 *              an E_WARNING), or when the extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int, $ttl is not an int, or $value
 *                   is (or contains, in a plain array) a resource.
 * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
 */
function shmcache_set(string $key, mixed $value, int $ttl = 0): bool {}

/**
 * Stores several values. Each one is set on its own (like shmcache_set()), not as one
 * atomic group.
 *
 * Every key is checked and every value encoded before anything is stored, so an
 * invalid key or value throws and stores nothing at all. The warnings of values that were
 * not stored come once every key has been written (an error handler sees them all written).
 *
 * @param array<array-key, mixed> $values key => value.
 * @param int $ttl Seconds to live for every value; 0 = no expiry; negative = already expired.
 * @return list<string|int> The keys that could NOT be stored, as they appear in $values
 *                          (a value too large, with an E_WARNING each, or lost to
 *                          contention). [] when all were stored. Every key when the
 *                          extension has no region.
 * @throws ValueError If a key is empty or longer than 4096 bytes.
 * @throws TypeError If $ttl is not an int, or a value is (or contains, in a plain array)
 *                   a resource.
 * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
 */
function shmcache_set_multi(array $values, int $ttl = 0): mixed {}

/**
 * Stores a value only if the key is not live (missing, expired, deleted or flushed).
 *
 * Atomic across processes: when many processes add the same key at once, exactly one
 * gets true.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param mixed $value Any value except a resource or an object serialize() refuses.
 * @param int $ttl Seconds to live; 0 = no expiry; negative = already expired (returns
 *                 true if the key was free, and the key stays invisible).
 * @return bool True when this call stored the value. False when the key is live, when
 *              the value is too large (E_WARNING), on contention (E_WARNING), or when the
 *              extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int, $ttl is not an int, or $value
 *                   is (or contains, in a plain array) a resource.
 * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
 */
function shmcache_add(string $key, mixed $value, int $ttl = 0): bool {}

/**
 * shmcache_add() for several values, in one call: each key is added on its own (atomic per
 * key, not for the batch), in the array's order.
 *
 * Every key is checked and every value encoded before anything is added, so an invalid key
 * or value throws and adds nothing at all, and warnings come once every key has been handled
 * (as shmcache_set_multi()).
 *
 * @param array<array-key, mixed> $values key => value.
 * @param int $ttl Seconds to live for every value; 0 = no expiry; negative = already expired.
 * @return list<string|int> The keys that were NOT added, as they appear in $values: the key
 *                          was live, or the value too large (E_WARNING each), or lost to
 *                          contention (E_WARNING). [] when all were added. Every key when
 *                          the extension has no region.
 * @throws ValueError If a key is empty or longer than 4096 bytes.
 * @throws TypeError If $ttl is not an int, or a value is (or contains, in a plain array)
 *                   a resource.
 * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
 */
function shmcache_add_multi(array $values, int $ttl = 0): mixed {}

/**
 * Stores a value only if the key is live. Atomic across processes: a concurrent
 * delete or expiry either happens before (false) or after (true) the replace.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param mixed $value Any value except a resource or an object serialize() refuses.
 * @param int $ttl Seconds to live; 0 = no expiry; negative = already expired (a live key
 *                 is replaced by an expired entry: true, and the key disappears).
 * @return bool True when replaced. False when the key is not live, when the value is too
 *              large (E_WARNING), on contention (E_WARNING), or when the extension has no
 *              region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int, $ttl is not an int, or $value
 *                   is (or contains, in a plain array) a resource.
 * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
 */
function shmcache_replace(string $key, mixed $value, int $ttl = 0): bool {}

/**
 * Integer compare-and-swap: sets the key to $new only if it currently holds the int
 * $old. Atomic across processes. The entry keeps its expiry time.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param int $old The value the key must hold now.
 * @param int $new The value to store.
 * @return bool True when swapped. False when the key is not live, does not hold an int
 *              (a numeric string or a float is not an int), holds an int other than $old,
 *              on contention (E_WARNING), or when the extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int, or $old/$new is not an int.
 */
function shmcache_cas(string $key, int $old, int $new): bool {}

/**
 * Adds $step to an int value. Atomic across processes: N processes doing M increments
 * each add exactly N*M steps.
 *
 * The key is not created: store an int first (shmcache_add($key, 0) is the usual way).
 * The entry keeps its expiry time. The arithmetic is 64-bit and wraps around
 * (PHP_INT_MAX + 1 gives PHP_INT_MIN); it never turns into a float. A negative $step
 * decrements.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param int $step Amount to add (default 1).
 * @return int|false The new value. False when the key is not live, does not hold an int
 *                   (a numeric string or a float is not an int), on contention
 *                   (E_WARNING), or when the extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int, or $step is not an int.
 */
function shmcache_incr(string $key, int $step = 1): mixed {}

/**
 * Subtracts $step from an int value: shmcache_incr($key, -$step), with the same
 * atomicity, wrap-around and false cases. A negative $step increments.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @param int $step Amount to subtract (default 1).
 * @return int|false The new value, or false (see shmcache_incr()).
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int, or $step is not an int.
 */
function shmcache_decr(string $key, int $step = 1): mixed {}

/**
 * Removes a key.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @return bool True when a live entry was removed. False when there was none (an expired
 *              or flushed entry is unlinked too, but still gives false), on contention
 *              (E_WARNING), or when the extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int.
 */
function shmcache_delete(string $key): bool {}

/**
 * shmcache_delete() for several keys, in one call, in the list's order.
 *
 * Every key is checked before anything is deleted, so an invalid key throws and deletes
 * nothing at all. Warnings (contention) come once every key has been deleted.
 *
 * @param list<string|int> $keys The keys (the array's own keys do not matter).
 * @return list<string|int> The keys that were live and are deleted now, as given in $keys
 *                          (a key listed twice appears once: the second delete finds
 *                          nothing). The others had no live entry, were lost to contention
 *                          (E_WARNING), or the extension has no region ([]).
 * @throws ValueError If a key is empty or longer than 4096 bytes.
 * @throws TypeError If a key is not a string or an int.
 */
function shmcache_delete_multi(array $keys): mixed {}

/**
 * Whether a key is live. Counts neither a hit nor a miss.
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @return bool True when the key holds a live value (it may hold false or null).
 *              False when it is missing, expired, deleted or flushed, or when the
 *              extension has no region.
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int.
 */
function shmcache_exists(string $key): bool {}

/**
 * The whole seconds a live key has left. Counts neither a hit nor a miss. Given back as the
 * $ttl of a write in the same second, it keeps the key's expiry time (rewriting a value that
 * shmcache_incr() refuses, say, without making it live longer or forever).
 *
 * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
 * @return int|false Seconds left, at least 1; 0 when the key never expires. False when it is
 *                   missing, expired, deleted or flushed, or when the extension has no region.
 *                   In tiered mode: Redis' remaining time, rounded down (at least 1).
 * @throws ValueError If the key is empty or longer than 4096 bytes.
 * @throws TypeError If the key is not a string or an int.
 */
function shmcache_ttl(string $key): mixed {}

/**
 * Invalidates everything, in every namespace, in O(1): a single increment of the
 * region's flush epoch, no matter how full the cache is.
 *
 * @return bool True; false when the extension has no region.
 */
function shmcache_flush(): bool {}

/**
 * Starts a new logical request inside a long-lived PHP request (a worker-mode runtime's loop,
 * a queue consumer): call it at the start of each HTTP request or job. In tiered mode
 * (shmcache.redis) the tier syncs with Redis now, so every server's writes that returned
 * before the call are read after it; the request's trust, warnings and region check start
 * over. See docs/configuration.md ("Worker-mode runtimes").
 *
 * @return bool True when the cache can be used (tiered: Redis answered); false when the
 *              extension has no region or Redis failed.
 */
function shmcache_begin_request(): bool {}

/**
 * Counters and sizes of the region. They cover the whole region, all namespaces and
 * all processes.
 *
 * Always present: 'enabled' (bool), 'version' (string), 'sapi' (string),
 * 'max_key_length' (int). When enabled, also these ints:
 * 'hits', 'misses', 'sets', 'deletes', 'kicks' (entries evicted from the key table),
 * 'recycles' (wrap-arounds of the value ring), 'expired' (reads that found an expired
 * entry), 'validation_failures' (reads whose copy failed its checksum or ring check),
 * 'slots_total', 'slots_used', 'keys_memory_size', 'values_memory_size',
 * 'values_written_bytes', 'values_used_bytes', 'compressed_count', 'compress_threshold',
 * 'flushes', 'namespace_flushes', 'namespaces_used', 'cas_retries', 'max_value_size',
 * 'start_time' (Unix time the region was created).
 * With shmcache.redis set (tiered mode) also 'tier_redis' (the address), 'tier_error' (a
 * configuration error, or why a process without shmcache.redis stays out of a region tiered
 * processes use), 'tier_last_error' (the last Redis failure this worker logged) and this
 * worker's 'tier_round_trips',
 * 'tier_near_hits', 'tier_near_misses', 'tier_redis_errors', 'tier_untrusted_requests',
 * 'tier_invalidations_applied', 'tier_near_flushes', 'tier_stale_fills_dropped', 'tier_lag_ms'.
 * docs/configuration.md explains each one and how to read them.
 *
 * Counting 'slots_used' reads the whole key table: about 2 ms for the default
 * 524,288 slots. Fine for a status page; do not call it on every request.
 *
 * @return array<string, int|bool|string>
 */
function shmcache_info(): mixed {}

/**
 * The cache scoped to a namespace.
 *
 * Keys of different namespaces are independent: "k" in namespace "a", "k" in namespace
 * "b" and "k" of the plain functions (the root namespace "") are three different keys.
 * Every method that has a shmcache_* counterpart (get => shmcache_get, getMulti =>
 * shmcache_get_multi, ...) behaves like it: same argument checks, return values, warnings
 * and exceptions, with keys scoped to the namespace.
 *
 * A namespace's bytes are stored with each of its entries, so they count against the
 * entry size limit.
 */
final class ShmCache
{
    /**
     * @param string $namespace Binary-safe, 0..1024 bytes. "" is the root namespace,
     *                          which holds the same keys as the shmcache_* functions.
     * @throws ValueError If $namespace is longer than 1024 bytes, or reserved: "apcu" and
     *                    "apcu\0..." (the apcu_* functions' entries, docs/apcu.md) and
     *                    "\0shmcache..." (the tier's own).
     * @throws TypeError If $namespace is not a string (ints are not converted).
     */
    public function __construct(string $namespace = '') {}

    /**
     * @return string The namespace given to the constructor ("" for the root namespace).
     */
    public function getNamespace(): mixed {}

    /**
     * Reads a key of this namespace. See shmcache_get().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param bool|null $found Set to true on a hit, false on a miss.
     * @return mixed The stored value, or false on a miss.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int.
     */
    public function get(string $key, ?bool &$found = null): mixed {}

    /**
     * Reads several keys of this namespace. See shmcache_get_multi().
     *
     * @param array<array-key, string|int> $keys The keys to read are the VALUES of this array.
     * @return array<array-key, mixed> key => value for the hits only.
     * @throws ValueError If a key is empty or longer than 4096 bytes.
     * @throws TypeError If a key is not a string or an int.
     */
    public function getMulti(array $keys): mixed {}

    /**
     * Stores a value in this namespace. See shmcache_set().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param mixed $value Any value except a resource or an object serialize() refuses.
     * @param int $ttl Seconds to live; 0 = no expiry; negative = already expired.
     * @return bool True when stored; false when too large (E_WARNING), on contention
     *              (E_WARNING), or when the extension has no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int, $ttl is not an int, or
     *                   $value is (or contains, in a plain array) a resource.
     * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
     */
    public function set(string $key, mixed $value, int $ttl = 0): bool {}

    /**
     * Stores several values in this namespace. See shmcache_set_multi().
     *
     * @param array<array-key, mixed> $values key => value.
     * @param int $ttl Seconds to live for every value; 0 = no expiry; negative = already expired.
     * @return list<string|int> The keys that could NOT be stored; [] when all were.
     * @throws ValueError If a key is empty or longer than 4096 bytes.
     * @throws TypeError If $ttl is not an int, or a value is (or contains, in a plain
     *                   array) a resource.
     * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
     */
    public function setMulti(array $values, int $ttl = 0): mixed {}

    /**
     * Stores a value only if the key is not live in this namespace; exactly one of many
     * concurrent adders wins. See shmcache_add().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param mixed $value Any value except a resource or an object serialize() refuses.
     * @param int $ttl Seconds to live; 0 = no expiry; negative = already expired.
     * @return bool True when this call stored the value; false when the key is live, too
     *              large (E_WARNING), on contention (E_WARNING), or with no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int, $ttl is not an int, or
     *                   $value is (or contains, in a plain array) a resource.
     * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
     */
    public function add(string $key, mixed $value, int $ttl = 0): bool {}

    /**
     * Adds several values to this namespace. See shmcache_add_multi().
     *
     * @param array<array-key, mixed> $values key => value.
     * @param int $ttl Seconds to live for every value; 0 = no expiry; negative = already expired.
     * @return list<string|int> The keys that were NOT added (live already, or refused);
     *                          [] when all were added.
     * @throws ValueError If a key is empty or longer than 4096 bytes.
     * @throws TypeError If $ttl is not an int, or a value is (or contains, in a plain
     *                   array) a resource.
     * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
     */
    public function addMulti(array $values, int $ttl = 0): mixed {}

    /**
     * Stores a value only if the key is live in this namespace. See shmcache_replace().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param mixed $value Any value except a resource or an object serialize() refuses.
     * @param int $ttl Seconds to live; 0 = no expiry; negative = already expired.
     * @return bool True when replaced; false when the key is not live, too large
     *              (E_WARNING), on contention (E_WARNING), or with no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int, $ttl is not an int, or
     *                   $value is (or contains, in a plain array) a resource.
     * @throws Exception From serialize(), for objects it cannot serialize (e.g. Closure).
     */
    public function replace(string $key, mixed $value, int $ttl = 0): bool {}

    /**
     * Integer compare-and-swap in this namespace. See shmcache_cas().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param int $old The value the key must hold now.
     * @param int $new The value to store.
     * @return bool True when swapped; false when the key is not live, not an int, not
     *              $old, on contention (E_WARNING), or with no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int, or $old/$new is not an int.
     */
    public function cas(string $key, int $old, int $new): bool {}

    /**
     * Atomically adds $step to an int value of this namespace. See shmcache_incr().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param int $step Amount to add (default 1); negative decrements; 64-bit wrap-around.
     * @return int|false The new value; false when the key is not live or not an int, on
     *                   contention (E_WARNING), or with no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int, or $step is not an int.
     */
    public function incr(string $key, int $step = 1): mixed {}

    /**
     * Atomically subtracts $step from an int value of this namespace. See shmcache_decr().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @param int $step Amount to subtract (default 1); negative increments; 64-bit wrap-around.
     * @return int|false The new value; false when the key is not live or not an int, on
     *                   contention (E_WARNING), or with no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int, or $step is not an int.
     */
    public function decr(string $key, int $step = 1): mixed {}

    /**
     * Removes a key of this namespace. See shmcache_delete().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @return bool True when a live entry was removed; false otherwise.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int.
     */
    public function delete(string $key): bool {}

    /**
     * Deletes several keys of this namespace. See shmcache_delete_multi().
     *
     * @param list<string|int> $keys The keys.
     * @return list<string|int> The keys that were live and are deleted now, as given.
     * @throws ValueError If a key is empty or longer than 4096 bytes.
     * @throws TypeError If a key is not a string or an int.
     */
    public function deleteMulti(array $keys): mixed {}

    /**
     * Whether a key of this namespace is live. Counts neither a hit nor a miss.
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @return bool True when live; false when missing, expired, deleted, flushed, or with
     *              no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int.
     */
    public function exists(string $key): bool {}

    /**
     * The whole seconds a live key of this namespace has left. See shmcache_ttl().
     *
     * @param string|int $key 1..4096 bytes, binary-safe; an int is used as its decimal string.
     * @return int|false Seconds left, at least 1; 0 when the key never expires; false when
     *                   it is not live, or with no region.
     * @throws ValueError If the key is empty or longer than 4096 bytes.
     * @throws TypeError If the key is not a string or an int.
     */
    public function ttl(string $key): mixed {}

    /**
     * Invalidates this namespace only, in O(1), without touching other namespaces: the
     * namespace gets a fresh generation. For the root namespace "" this is
     * shmcache_flush(): everything, in every namespace.
     *
     * Caveat: namespaces are tracked in a fixed table of 16,384 entries (4,096 buckets of 4),
     * one per namespace, found by a 24-bit tag. Two namespaces whose
     * names hash to the same bucket and tag (about 1 in 2^36 per pair) share one entry, so
     * flushing one also empties the other. When a fifth namespace needs a full bucket,
     * the namespace created or last flushed longest ago loses its entry, which empties it.
     * Both cases cause extra misses, never a wrong value.
     *
     * @return bool True; false when the extension has no region.
     */
    public function flush(): bool {}

    /**
     * A number that changes when this namespace is flushed and is never handed out again,
     * so a caller can build names (e.g. child namespace names) that one flush retires.
     *
     * For the root namespace "" it is the global flush epoch, which changes on every
     * shmcache_flush(). For any other namespace it is the namespace's generation, which
     * changes when this namespace is flushed (or loses its table entry, see flush()).
     * In this build it does NOT change on a full shmcache_flush(). Calling it gives a
     * namespace that has no table entry yet its entry (counted in 'namespaces_used').
     *
     * @return int The generation; 0 when the extension has no region.
     */
    public function generation(): int {}

    /**
     * shmcache_info() plus 'namespace' => this namespace. The counters are
     * still those of the whole region, not of this namespace.
     *
     * @return array<string, int|bool|string>
     */
    public function info(): mixed {}
}

/*
 * APCu's user-cache functions, registered only with shmcache.apcu_compat=1 (and never while
 * the APCu extension is loaded). They behave as APCu 5.1's (return values, warnings, array
 * forms); entries live in the namespace "apcu", which ShmCache cannot open. Differences:
 * docs/apcu.md.
 */

/**
 * @param string|array<string> $key One key, or a list of keys (the result then maps each hit
 *   to its value; non-string elements give a warning).
 * @param bool|null $success Set to whether the key was found (true for the list form).
 * @return mixed The value, false on a miss, or an array for a list of keys.
 */
function apcu_fetch(mixed $key, ?bool &$success = null): mixed {}

/**
 * @param string|array<string, mixed> $key A key, or key => value pairs (then $value is unused).
 * @return bool|array<string|int, int> Whether it was stored; for pairs, the keys that failed => -1.
 */
function apcu_store(mixed $key, mixed $value = null, int $ttl = 0): mixed {}

/** apcu_store() that only stores keys not present. @return bool|array<string|int, int> */
function apcu_add(mixed $key, mixed $value = null, int $ttl = 0): mixed {}

/**
 * @param string|array<string>|APCUIterator $key A key, a list of keys, or an iterator: every
 *   entry it selects (its search, listed now) is deleted.
 * @return bool|array<int, mixed> Whether it was deleted; for a list, the keys not deleted; true
 *   for an iterator.
 */
function apcu_delete(mixed $key): mixed {}

/** @return bool|array<string, true> For a list of keys, those that exist => true. */
function apcu_exists(mixed $key): mixed {}

/**
 * Adds $step to an integer; a missing key is created (with $ttl) first.
 * @return int|false The new value; false when the key holds something else.
 */
function apcu_inc(string $key, int $step = 1, ?bool &$success = null, int $ttl = 0): mixed {}

/** @return int|false */
function apcu_dec(string $key, int $step = 1, ?bool &$success = null, int $ttl = 0): mixed {}

function apcu_cas(string $key, int $old, int $new): bool {}

/**
 * The value of $key, or $callback($key)'s, which is then stored (added) with $ttl. One
 * generator runs per missing key while other callers wait for its value, for at most its
 * 5-second lease (at once taken over when its process died).
 */
function apcu_entry(string $key, callable $callback, int $ttl = 0): mixed {}

/** Flushes the APCu entries (namespace "apcu") only, in O(1). */
function apcu_clear_cache(): bool {}

/**
 * The region's counters; unless $limited, also 'cache_list': one row per live APCu entry
 * (info, ttl = the TTL given, num_hits, mtime and creation_time = the store time,
 * deletion_time, access_time, ref_count, mem_size = bytes in the value ring; hits and the
 * other times are 0: not kept).
 * @return array<string, mixed>|false
 */
function apcu_cache_info(bool $limited = false): mixed {}

/** @return array<string, mixed>|false */
function apcu_sma_info(bool $limited = false): mixed {}

/** @return array{hits: int, access_time: int, mtime: int, creation_time: int, deletion_time: int, ttl: int, refs: int}|null */
function apcu_key_info(string $key): ?array {}

function apcu_enabled(): bool {}

const APC_LIST_ACTIVE = 1;
/** shmcache keeps no deleted entries: an iterator over this list is always empty. */
const APC_LIST_DELETED = 2;
const APC_ITER_TYPE = 1;
const APC_ITER_KEY = 2;
const APC_ITER_VALUE = 4;
/** Always 0: entries keep no hit counts. */
const APC_ITER_NUM_HITS = 8;
/** APC_ITER_MTIME, _CTIME, _DTIME, _ATIME: always 0, entries keep no times. */
const APC_ITER_MTIME = 16;
const APC_ITER_CTIME = 32;
const APC_ITER_DTIME = 64;
const APC_ITER_ATIME = 128;
const APC_ITER_REFCOUNT = 256;
/** Bytes the entry takes in the value ring (header, key, stored value). */
const APC_ITER_MEM_SIZE = 512;
/** Seconds the entry has left (0: no expiry). */
const APC_ITER_TTL = 1024;
const APC_ITER_NONE = 0;
const APC_ITER_ALL = 4294967295;

/**
 * APCu's listing of the user cache, registered with the apcu_* functions. Iteration starts
 * with one read-only walk of the key index (the first rewind(), valid(), key() or current()):
 * entries written after it are not seen. Rows are built $chunk_size at a time, their values
 * read then (an entry whose value is gone by then is left out). Keys are the APCu keys, in
 * the order they were written.
 */
class APCUIterator implements Iterator
{
    /**
     * @param string|array<string>|null $search A PCRE pattern (with delimiters, as for
     *   preg_match()) the keys must match, or a list of keys; null or "" for all.
     * @param int $format APC_ITER_* flags: the fields of each row.
     * @param int $chunk_size Rows built at a time; 0 means 100.
     * @param int $list APC_LIST_ACTIVE or APC_LIST_DELETED.
     * @throws Error when the cache is disabled ("APC must be enabled to use APCUIterator").
     * @throws ValueError for a pattern that does not compile (after PHP's warning), a negative
     *   $chunk_size, an unknown $format or $list.
     */
    public function __construct(mixed $search = null, int $format = APC_ITER_ALL, int $chunk_size = 100, int $list = APC_LIST_ACTIVE) {}

    /** Takes a new listing and reads its first chunk. */
    public function rewind(): void {}

    public function valid(): bool {}

    /** @throws Error at the end ("Cannot call current() on invalid iterator"). */
    public function current(): mixed {}

    /**
     * @return string The entry's APCu key.
     * @throws Error at the end ("Cannot call key() on invalid iterator").
     */
    public function key(): mixed {}

    public function next(): void {}

    /** Always 0: entries keep no hit counts. */
    public function getTotalHits(): int {}

    /** Bytes the selected entries take in the value ring. */
    public function getTotalSize(): int {}

    /** How many entries the search selects. */
    public function getTotalCount(): int {}
}
