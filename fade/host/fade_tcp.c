/*
 * fade-tcp: the same test pattern over a TCP socket, the baseline for `fastpath bench fade`.
 *
 *   fade-tcp --listen PORT [--verify] [--step K]       receive one connection to its end
 *   fade-tcp --connect IPV4:PORT --bytes N [--step K]  send N bytes of the pattern
 *
 * The receiver prints one JSON line: bytes, seconds (first byte to end), goodput, user and
 * system CPU time of this process, verification (fade_verify.h). Exit 1 on a failed check.
 */
#include "fade_verify.h"

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (1u << 20)

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what)
{
    fprintf(stderr, "fade-tcp: %s: %s\n", what, strerror(errno));
    exit(1);
}

static int receive(int port, int verify, uint64_t step)
{
    static uint8_t buf[CHUNK + 8];
    struct sockaddr_in a;
    struct rusage r0, r1;
    struct fade_verify v;
    uint64_t total = 0;
    size_t have = 0;
    double t0 = 0, t1;
    int ls, s, one = 1;

    ls = socket(AF_INET, SOCK_STREAM, 0);
    if (ls < 0)
        die("socket");
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    if (bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0)
        die("bind/listen");
    printf("ready port=%d\n", port);
    fflush(stdout);
    s = accept(ls, NULL, NULL);
    if (s < 0)
        die("accept");
    fade_verify_init(&v, step);
    getrusage(RUSAGE_SELF, &r0);
    for (;;) {
        ssize_t n = recv(s, buf + have, CHUNK, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            die("recv");
        if (n == 0)
            break;
        if (!total)
            t0 = now_s();
        total += (uint64_t)n;
        have += (size_t)n;
        if (verify)
            fade_verify_bytes(&v, buf, have & ~(size_t)7);
        memmove(buf, buf + (have & ~(size_t)7), have & 7);
        have &= 7;
    }
    t1 = now_s();
    getrusage(RUSAGE_SELF, &r1);
    close(s);
    close(ls);
    {
        double us = (double)(r1.ru_utime.tv_sec - r0.ru_utime.tv_sec) +
                    (r1.ru_utime.tv_usec - r0.ru_utime.tv_usec) * 1e-6;
        double ss = (double)(r1.ru_stime.tv_sec - r0.ru_stime.tv_sec) +
                    (r1.ru_stime.tv_usec - r0.ru_stime.tv_usec) * 1e-6;
        int ok = !verify || (fade_verify_ok(&v) && have == 0);
        printf("{\"bytes\": %llu, \"seconds\": %.6f, \"goodput_gbps\": %.4f, \"cpu_user_s\": %.4f, "
               "\"cpu_sys_s\": %.4f, \"vol_ctxsw\": %ld, \"invol_ctxsw\": %ld, \"verified\": %s, \"words\": %llu, \"lost_words\": %llu, "
               "\"dup_words\": %llu, \"corrupt_words\": %llu}\n",
               (unsigned long long)total, t1 - t0, t1 > t0 ? total * 8 / (t1 - t0) / 1e9 : 0.0,
               us, ss, r1.ru_nvcsw - r0.ru_nvcsw, r1.ru_nivcsw - r0.ru_nivcsw, verify ? (ok ? "true" : "false") : "null", (unsigned long long)v.words,
               (unsigned long long)v.lost, (unsigned long long)v.dup,
               (unsigned long long)v.corrupt);
        return ok ? 0 : 1;
    }
}

static int transmit(const char *dest, uint64_t bytes, uint64_t step)
{
    static uint64_t buf[CHUNK / 8];
    char host[64];
    const char *colon = strrchr(dest, ':');
    struct sockaddr_in a;
    uint64_t sent = 0, word = 0;
    int s, tries;

    if (!colon || (size_t)(colon - dest) >= sizeof(host)) {
        fprintf(stderr, "fade-tcp: --connect IPV4:PORT\n");
        return 2;
    }
    memcpy(host, dest, (size_t)(colon - dest));
    host[colon - dest] = 0;
    memset(&a, 0, sizeof(a));
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)atoi(colon + 1));
    if (inet_pton(AF_INET, host, &a.sin_addr) != 1) {
        fprintf(stderr, "fade-tcp: bad address %s\n", host);
        return 2;
    }
    for (tries = 0;; tries++) {  /* the listener may not be up yet */
        s = socket(AF_INET, SOCK_STREAM, 0);
        if (s < 0)
            die("socket");
        if (connect(s, (struct sockaddr *)&a, sizeof(a)) == 0)
            break;
        close(s);
        if (tries > 100)
            die("connect");
        usleep(20000);
    }
    bytes &= ~(uint64_t)7;
    while (sent < bytes) {
        size_t i, n = bytes - sent < CHUNK ? (size_t)(bytes - sent) : CHUNK, off = 0;
        for (i = 0; i < n / 8; i++, word += step)
            buf[i] = word;
        while (off < n) {
            ssize_t w = send(s, (uint8_t *)buf + off, n - off, 0);
            if (w < 0 && errno == EINTR)
                continue;
            if (w < 0)
                die("send");
            off += (size_t)w;
        }
        sent += n;
    }
    close(s);
    return 0;
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"listen", 1, 0, 'l'}, {"connect", 1, 0, 'c'}, {"bytes", 1, 0, 'b'},
        {"verify", 0, 0, 'v'}, {"step", 1, 0, 'k'}, {0, 0, 0, 0}};
    const char *dest = NULL;
    int opt, port = 0, verify = 0;
    uint64_t bytes = 0, step = 1;
    while ((opt = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
        switch (opt) {
        case 'l': port = atoi(optarg); break;
        case 'c': dest = optarg; break;
        case 'b': bytes = strtoull(optarg, NULL, 0); break;
        case 'v': verify = 1; break;
        case 'k': step = strtoull(optarg, NULL, 0); break;
        default:
            fprintf(stderr, "usage: fade-tcp --listen PORT [--verify] [--step K] | "
                            "--connect IPV4:PORT --bytes N [--step K]\n");
            return 2;
        }
    }
    if (port > 0)
        return receive(port, verify, step);
    if (dest && bytes)
        return transmit(dest, bytes, step);
    fprintf(stderr, "fade-tcp: --listen PORT or --connect IPV4:PORT --bytes N\n");
    return 2;
}
