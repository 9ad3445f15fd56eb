/*
 * PHP's serializer keeps the back-reference table of a running serialize()/unserialize() in
 * request globals (BG(serialize), BG(unserialize), BG(serialize_lock)): php_var_*_init() joins
 * the table of a call already running. A cache call made by user code inside such a call
 * (Serializable::unserialize, for one) must encode and decode its value with a table of its own,
 * or the value's back-references point into the outer value. These helpers set the outer state
 * aside and bring it back, so the cache's own call runs exactly like a top-level serialize():
 * user code nested inside it shares its table, as PHP does. BG() is a macro over a struct whose
 * layout Rust cannot see, hence C.
 */
#include "php.h"
#include "ext/standard/basic_functions.h"

/* Mirrored by SerializerState in codec.rs. */
struct shmcache_serializer_state {
	void *serialize_data;
	void *unserialize_data;
	unsigned serialize_level;
	unsigned unserialize_level;
	unsigned lock;
};

void shmcache_serializer_set_aside(struct shmcache_serializer_state *saved)
{
	saved->serialize_data = BG(serialize).data;
	saved->serialize_level = BG(serialize).level;
	saved->unserialize_data = BG(unserialize).data;
	saved->unserialize_level = BG(unserialize).level;
	saved->lock = BG(serialize_lock);
	BG(serialize).data = NULL;
	BG(serialize).level = 0;
	BG(unserialize).data = NULL;
	BG(unserialize).level = 0;
	BG(serialize_lock) = 0;
}

void shmcache_serializer_restore(const struct shmcache_serializer_state *saved)
{
	BG(serialize).data = saved->serialize_data;
	BG(serialize).level = saved->serialize_level;
	BG(unserialize).data = saved->unserialize_data;
	BG(unserialize).level = saved->unserialize_level;
	BG(serialize_lock) = saved->lock;
}
