/*
 * A unix-socket proxy that holds every chunk for a fixed time before passing it on, in both
 * directions: Redis as if across a network with a round trip of twice that delay (the kernel
 * here has no netem). bench/tier.sh builds it with gcc and puts it in front of its
 * redis-server when BENCH_TIER_RTT_US is set; both object caches then talk to Redis through it.
 *
 *   delay-proxy LISTEN_SOCKET UPSTREAM_SOCKET ONE_WAY_DELAY_US
 *
 * Two threads per connection, one per direction: read a chunk, sleep, write it. A request and
 * its reply are delayed once each, as on a real network; what it costs in CPU is two syscalls
 * and a sleep per chunk.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static struct timespec one_way;
static const char *upstream_path;

struct pipe_ends {
    int from, to;
};

static int connect_unix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, path, sizeof a.sun_path - 1);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) < 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

static void *forward(void *arg) {
    struct pipe_ends ends = *(struct pipe_ends *)arg;
    free(arg);
    char buf[65536];
    for (;;) {
        ssize_t n = read(ends.from, buf, sizeof buf);
        if (n <= 0) break;
        struct timespec left = one_way;
        while (nanosleep(&left, &left) < 0 && errno == EINTR) {}
        for (ssize_t done = 0; done < n;) {
            ssize_t w = write(ends.to, buf + done, (size_t)(n - done));
            if (w <= 0) goto out;
            done += w;
        }
    }
out:
    /* Either side closing ends both directions. */
    shutdown(ends.from, SHUT_RDWR);
    shutdown(ends.to, SHUT_RDWR);
    return NULL;
}

static void *serve(void *arg) {
    int client = (int)(long)arg;
    int server = connect_unix(upstream_path);
    if (server < 0) {
        close(client);
        return NULL;
    }
    pthread_t up, down;
    struct pipe_ends *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    *a = (struct pipe_ends){client, server};
    *b = (struct pipe_ends){server, client};
    pthread_create(&up, NULL, forward, a);
    pthread_create(&down, NULL, forward, b);
    pthread_join(up, NULL);
    pthread_join(down, NULL);
    close(client);
    close(server);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s LISTEN_SOCKET UPSTREAM_SOCKET ONE_WAY_DELAY_US\n", argv[0]);
        return 2;
    }
    upstream_path = argv[2];
    long us = atol(argv[3]);
    one_way.tv_sec = us / 1000000;
    one_way.tv_nsec = (us % 1000000) * 1000;
    signal(SIGPIPE, SIG_IGN);
    int l = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    strncpy(a.sun_path, argv[1], sizeof a.sun_path - 1);
    unlink(argv[1]);
    if (l < 0 || bind(l, (struct sockaddr *)&a, sizeof a) < 0 || listen(l, 512) < 0) {
        perror("delay-proxy: listen");
        return 1;
    }
    for (;;) {
        int c = accept(l, NULL, NULL);
        if (c < 0) continue;
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, serve, (void *)(long)c) != 0) close(c);
        pthread_attr_destroy(&attr);
    }
}
