<?php
/**
 * The "perfect cache" of bench/wp-instructions.sh: an object-cache drop-in that no shared cache
 * can beat, the limit the real drop-ins are measured against. Its values come from a PHP file
 * that an earlier render of the same page wrote (`return [key => serialized value]`), which
 * OPcache's file cache keeps compiled: including it costs next to nothing and copies nothing,
 * and a get unserializes only the keys the page asks for (as any shared cache must, to give each
 * request its own objects). No memory is shared, no hash is computed beyond PHP's own array
 * lookup, nothing is locked or validated.
 *
 * SHMCACHE_PERFECT_SNAPSHOT (environment) names the file. When it does not exist yet, the
 * request runs on an empty cache and writes, at shutdown, every persistent key it set.
 * A bench tool only: nothing written to it reaches other requests except through that file.
 */

defined('ABSPATH') || exit;

class Perfect_Object_Cache
{
    /** @var array<string, string> serialized values of the snapshot, read-only */
    private array $snapshot = [];
    /** @var array<string, mixed> values of this request, unserialized or set */
    private array $runtime = [];
    /** @var array<string, string> the group of each key set in this request */
    private array $group_of = [];
    /** @var array<string, true> keys deleted in this request */
    private array $deleted = [];
    private array $global_groups = [];
    private array $non_persistent = [];
    private int $blog_id;
    private string $file;
    private bool $recording;

    public function __construct()
    {
        $this->file = (string) getenv('SHMCACHE_PERFECT_SNAPSHOT');
        $this->recording = $this->file !== '' && !is_file($this->file);
        if ($this->file !== '' && !$this->recording) {
            $this->snapshot = include $this->file;
        }
        $this->blog_id = is_multisite() ? get_current_blog_id() : 1;
        if ($this->recording) {
            register_shutdown_function([$this, 'record']);
        }
    }

    private function id(string $key, string $group): string
    {
        $group = $group === '' ? 'default' : $group;
        $prefix = isset($this->global_groups[$group]) ? '' : $this->blog_id . ':';
        return $prefix . $group . ':' . $key;
    }

    public function get($key, $group, bool $force, &$found)
    {
        $id = $this->id((string) $key, (string) $group);
        if (array_key_exists($id, $this->runtime)) {
            $found = true;
            $v = $this->runtime[$id];
            return is_object($v) ? clone $v : $v;
        }
        if (!isset($this->deleted[$id]) && isset($this->snapshot[$id])) {
            $found = true;
            $v = unserialize($this->snapshot[$id]);
            $this->runtime[$id] = $v;
            return is_object($v) ? clone $v : $v;
        }
        $found = false;
        return false;
    }

    public function exists($key, $group): bool
    {
        $this->get($key, $group, false, $found);
        return $found;
    }

    public function set($key, $data, $group): bool
    {
        $id = $this->id((string) $key, (string) $group);
        $this->runtime[$id] = is_object($data) ? clone $data : $data;
        $this->group_of[$id] = $group === '' ? 'default' : (string) $group;
        unset($this->deleted[$id]);
        return true;
    }

    public function delete($key, $group): bool
    {
        $found = $this->exists($key, $group);
        $id = $this->id((string) $key, (string) $group);
        unset($this->runtime[$id]);
        $this->deleted[$id] = true;
        return $found;
    }

    public function flush(): bool
    {
        $this->runtime = [];
        $this->snapshot = [];
        return true;
    }

    public function add_global_groups(array $groups): void
    {
        $this->global_groups += array_fill_keys($groups, true);
    }

    public function add_non_persistent_groups(array $groups): void
    {
        $this->non_persistent += array_fill_keys($groups, true);
    }

    public function switch_to_blog(int $blog_id): void
    {
        $this->blog_id = $blog_id;
    }

    /** Writes the persistent keys of this request as the snapshot (shutdown of the recording run). */
    public function record(): void
    {
        $out = [];
        foreach ($this->runtime as $id => $v) {
            if (isset($this->group_of[$id]) && !isset($this->non_persistent[$this->group_of[$id]])) {
                $out[$id] = serialize($v);
            }
        }
        file_put_contents($this->file . '.tmp', '<?php return ' . var_export($out, true) . ";\n");
        rename($this->file . '.tmp', $this->file);
    }
}

function wp_cache_init()
{
    $GLOBALS['wp_object_cache'] = new Perfect_Object_Cache();
}

function wp_cache_get($key, $group = '', $force = false, &$found = null)
{
    return $GLOBALS['wp_object_cache']->get($key, $group, $force, $found);
}

function wp_cache_get_multiple($keys, $group = '', $force = false)
{
    $out = [];
    foreach ($keys as $key) {
        $out[$key] = wp_cache_get($key, $group, $force);
    }
    return $out;
}

function wp_cache_set($key, $data, $group = '', $expire = 0)
{
    return $GLOBALS['wp_object_cache']->set($key, $data, $group);
}

function wp_cache_set_multiple(array $data, $group = '', $expire = 0)
{
    $out = [];
    foreach ($data as $key => $value) {
        $out[$key] = wp_cache_set($key, $value, $group);
    }
    return $out;
}

function wp_cache_add($key, $data, $group = '', $expire = 0)
{
    if ($GLOBALS['wp_object_cache']->exists($key, $group)) {
        return false;
    }
    return wp_cache_set($key, $data, $group);
}

function wp_cache_add_multiple(array $data, $group = '', $expire = 0)
{
    $out = [];
    foreach ($data as $key => $value) {
        $out[$key] = wp_cache_add($key, $value, $group);
    }
    return $out;
}

function wp_cache_replace($key, $data, $group = '', $expire = 0)
{
    if (!$GLOBALS['wp_object_cache']->exists($key, $group)) {
        return false;
    }
    return wp_cache_set($key, $data, $group);
}

function wp_cache_delete($key, $group = '')
{
    return $GLOBALS['wp_object_cache']->delete($key, $group);
}

function wp_cache_delete_multiple(array $keys, $group = '')
{
    $out = [];
    foreach ($keys as $key) {
        $out[$key] = wp_cache_delete($key, $group);
    }
    return $out;
}

function wp_cache_incr($key, $offset = 1, $group = '')
{
    $value = wp_cache_get($key, $group, false, $found);
    if (!$found) {
        return false;
    }
    $value = max(0, (is_numeric($value) ? (int) $value : 0) + (int) $offset);
    wp_cache_set($key, $value, $group);
    return $value;
}

function wp_cache_decr($key, $offset = 1, $group = '')
{
    return wp_cache_incr($key, -(int) $offset, $group);
}

function wp_cache_flush()
{
    return $GLOBALS['wp_object_cache']->flush();
}

function wp_cache_flush_runtime()
{
    return wp_cache_flush();
}

function wp_cache_flush_group($group)
{
    return false;
}

function wp_cache_supports($feature)
{
    return in_array($feature, ['add_multiple', 'set_multiple', 'get_multiple', 'delete_multiple', 'flush_runtime'], true);
}

function wp_cache_close()
{
    return true;
}

function wp_cache_add_global_groups($groups)
{
    $GLOBALS['wp_object_cache']->add_global_groups((array) $groups);
}

function wp_cache_add_non_persistent_groups($groups)
{
    $GLOBALS['wp_object_cache']->add_non_persistent_groups((array) $groups);
}

function wp_cache_switch_to_blog($blog_id)
{
    $GLOBALS['wp_object_cache']->switch_to_blog((int) $blog_id);
}

function wp_cache_reset()
{
    return wp_cache_flush();
}
