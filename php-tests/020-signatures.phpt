--TEST--
Functions and methods have the signatures documented in api.md
--DESCRIPTION--
incr/decr return int|false as api.md says, and ttl int|false too; their reflected return type is "mixed" because
ext-php-rs cannot declare a union return type (see stubs/shmcache.stub.php).
--FILE--
<?php
require __DIR__ . '/inc/signature.inc';
foreach (['shmcache_get', 'shmcache_get_multi', 'shmcache_set', 'shmcache_set_multi', 'shmcache_add', 'shmcache_add_multi',
          'shmcache_replace', 'shmcache_cas', 'shmcache_incr', 'shmcache_decr', 'shmcache_delete', 'shmcache_delete_multi',
          'shmcache_exists', 'shmcache_ttl', 'shmcache_flush', 'shmcache_info'] as $f) {
    echo shm_signature(new ReflectionFunction($f)), "\n";
}
foreach (['__construct', 'get', 'getMulti', 'set', 'setMulti', 'add', 'addMulti', 'replace', 'cas', 'incr', 'decr',
          'delete', 'deleteMulti', 'exists', 'ttl', 'flush', 'info'] as $m) {
    echo 'ShmCache::', shm_signature(new ReflectionMethod('ShmCache', $m)), "\n";
}
?>
--EXPECT--
shmcache_get(string $key, ?bool &$found = NULL): mixed
shmcache_get_multi(array $keys): array
shmcache_set(string $key, mixed $value, int $ttl = 0): bool
shmcache_set_multi(array $values, int $ttl = 0): array
shmcache_add(string $key, mixed $value, int $ttl = 0): bool
shmcache_add_multi(array $values, int $ttl = 0): array
shmcache_replace(string $key, mixed $value, int $ttl = 0): bool
shmcache_cas(string $key, int $old, int $new): bool
shmcache_incr(string $key, int $step = 1): mixed
shmcache_decr(string $key, int $step = 1): mixed
shmcache_delete(string $key): bool
shmcache_delete_multi(array $keys): array
shmcache_exists(string $key): bool
shmcache_ttl(string $key): mixed
shmcache_flush(): bool
shmcache_info(): array
ShmCache::__construct(string $namespace = '')
ShmCache::get(string $key, ?bool &$found = NULL): mixed
ShmCache::getMulti(array $keys): array
ShmCache::set(string $key, mixed $value, int $ttl = 0): bool
ShmCache::setMulti(array $values, int $ttl = 0): array
ShmCache::add(string $key, mixed $value, int $ttl = 0): bool
ShmCache::addMulti(array $values, int $ttl = 0): array
ShmCache::replace(string $key, mixed $value, int $ttl = 0): bool
ShmCache::cas(string $key, int $old, int $new): bool
ShmCache::incr(string $key, int $step = 1): mixed
ShmCache::decr(string $key, int $step = 1): mixed
ShmCache::delete(string $key): bool
ShmCache::deleteMulti(array $keys): array
ShmCache::exists(string $key): bool
ShmCache::ttl(string $key): mixed
ShmCache::flush(): bool
ShmCache::info(): array
