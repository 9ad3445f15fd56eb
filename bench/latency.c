/*
 * The time of one random read of memory on this machine, at a few working-set sizes: a pointer
 * chase through the 64-byte lines of a shared anonymous mapping (what both caches' shared
 * memory is), each line visited once per lap in a random order, so every read waits for the one
 * before it. At a size the CPU's caches hold, a read costs a few nanoseconds; past them, a trip
 * to memory plus, on 4 KiB pages, an address translation. bench/scale.sh prints it so that
 * ratios taken on different machines can be told apart: where a read of memory costs 150 ns,
 * a get at a million shuffled keys is mostly two such reads, for shmcache and APCu alike.
 *
 *   latency SIZE_MB...   (prints "SIZE MB: N ns" for each)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

/* xorshift64*: a repeatable order without libc's rand() (whose range is 31 bits). */
static uint64_t next_random(uint64_t *state) {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545f4914f6cdd1dULL;
}

static double chase_ns(size_t megabytes) {
    size_t bytes = megabytes << 20, lines = bytes / 64;
    char *base = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    size_t *order = malloc(lines * sizeof *order);
    if (base == MAP_FAILED || order == NULL) {
        perror("latency");
        exit(1);
    }
    uint64_t state = 0x9e3779b97f4a7c15ULL;
    for (size_t i = 0; i < lines; i++)
        order[i] = i;
    for (size_t i = lines - 1; i > 0; i--) {
        size_t j = next_random(&state) % (i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (size_t i = 0; i < lines; i++)
        *(char **)(base + order[i] * 64) = base + order[(i + 1) % lines] * 64;
    free(order);
    char *at = base;
    for (size_t i = 0; i < lines; i++) /* one lap untimed: every page mapped and every line met */
        at = *(char **)at;
    const long steps = 4000000;
    double start = now_ns();
    for (long i = 0; i < steps; i++)
        at = *(char **)at;
    double ns = (now_ns() - start) / steps;
    if (at == NULL) /* keeps the chase from being optimised away */
        puts("");
    munmap(base, bytes);
    return ns;
}

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++) {
        size_t mb = strtoul(argv[i], NULL, 10);
        if (mb == 0) {
            fprintf(stderr, "usage: latency SIZE_MB...\n");
            return 1;
        }
        printf("%zu MB: %.0f ns\n", mb, chase_ns(mb));
    }
    return 0;
}
