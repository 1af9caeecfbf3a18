/*
 * fade-recv: receive one FADE-10G stream with libfade.
 *
 *   fade-recv -i IF -m BOARD_MAC [-o FILE|-] [--bytes N] [--seconds S] [--verify] [--step K]
 *             [--buf-log2 M] [--window-log2 N] [--wakeup BYTES] [--commands]
 *             [--cmd-timeout-ms MS] [--cmd-retries R] [--rx-cpu C] [--no-reset]
 *             [--ring v2|v3] [--ring-block-kib K] [--ring-blocks B] [--ack-sendmmsg]
 *             [--ack-records R] [--threaded | --poll-mode] [--inplace | --no-inplace]
 *             [--no-frame-mode]
 *
 * Opens the board (RESET unless --no-reset), START, reads the buffer in place and writes the
 * stream to FILE ("-": stdout; none: nowhere), STOP once --bytes were received, --seconds passed
 * or on SIGINT/SIGTERM, and reads on to the end of the stream (the last packet). --verify checks
 * the test pattern (each 64-bit word = previous + step, default step 1, from whatever the first
 * word is). --commands runs a second thread sending user command 0x100 (arg = i) back to back
 * while the data streams, each expecting arg * 2 + 1. The library runs in poll mode (this
 * thread's calls handle the frames and send the ACKs; no receive thread) unless --threaded
 * (libfade's receive thread), and reads in place (fade_read_span(): packets that arrived in
 * order straight from the RX ring, without a copy; needs the V3 ring) unless --no-inplace
 * (fade_read_ptrs() on the receiver buffer) or --threaded. --ack-records R: at most R ACK
 * records per ACK frame (default: as many as the board's START response allows; 1: the paper's
 * one ACK per frame).
 * Prints one JSON line (rate; CPU time of this process from START to the end of the stream, and
 * of fade_open() apart; context switches; verification, commands, the library's counters) on stdout, or on stderr when the stream goes to stdout. Exit 1 on a verification
 * failure, a wrong or failed command, or a stream that does not end; 2 on usage errors.
 */
#include <fastpath/fade.h>

#include "fade_verify.h"

#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct cmd_thread {
    fade_t *f;
    unsigned timeout_ms, retries;
    volatile int stop;
    uint64_t ok, failed, wrong;
    double seconds;
};

static void *commands(void *arg)
{
    struct cmd_thread *t = arg;
    double t0 = now_s();
    uint32_t i = 0;
    while (!__atomic_load_n(&t->stop, __ATOMIC_ACQUIRE)) {
        uint64_t val = 0;
        int r = fade_user_cmd(t->f, 0x100, i, t->retries, t->timeout_ms, &val);
        if (r != 0)
            t->failed++;
        else if (val != (uint64_t)i * 2 + 1)
            t->wrong++;
        else
            t->ok++;
        i++;
    }
    t->seconds = now_s() - t0;
    return NULL;
}

static void usage(void)
{
    fprintf(stderr, "usage: fade-recv -i IF -m BOARD_MAC [-o FILE|-] [--bytes N] [--seconds S] "
                    "[--verify] [--step K] [--buf-log2 M] [--window-log2 N] [--wakeup BYTES] "
                    "[--commands] [--cmd-timeout-ms MS] [--cmd-retries R] [--rx-cpu C] "
                    "[--no-reset] [--ring v2|v3] [--ring-block-kib K] [--ring-blocks B] "
                    "[--ack-sendmmsg] [--ack-records R] [--threaded | --poll-mode] "
                    "[--inplace | --no-inplace] [--no-frame-mode]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static const struct option longopts[] = {
        {"bytes", 1, 0, 'b'}, {"seconds", 1, 0, 's'}, {"verify", 0, 0, 'v'},
        {"step", 1, 0, 'k'}, {"buf-log2", 1, 0, 'M'}, {"window-log2", 1, 0, 'N'},
        {"wakeup", 1, 0, 'w'}, {"commands", 0, 0, 'c'}, {"cmd-timeout-ms", 1, 0, 'T'},
        {"cmd-retries", 1, 0, 'R'}, {"rx-cpu", 1, 0, 'C'}, {"no-reset", 0, 0, 'n'}, {"ring", 1, 0, 'r'},
        {"ring-block-kib", 1, 0, 'K'}, {"ring-blocks", 1, 0, 'B'}, {"ack-sendmmsg", 0, 0, 'A'},
        {"threaded", 0, 0, 't'}, {"poll-mode", 0, 0, 'P'}, {"inplace", 0, 0, 'I'},
        {"no-inplace", 0, 0, 'X'}, {"ack-records", 1, 0, 'Q'}, {"no-frame-mode", 0, 0, 'F'},
        {0, 0, 0, 0}};
    const char *ifname = NULL, *mac_s = NULL, *out_path = NULL;
    uint64_t limit = 0, step = 1, total = 0;
    size_t buf_bytes;
    size_t wakeup = 256 * 1024;
    double seconds = 0, t0, t_end, t_stop = 0;
    int opt, verify = 0, with_cmds = 0, stopped = 0, eos = 0, err;
    struct fade_options o;
    struct fade_verify v;
    struct fade_counters c;
    struct cmd_thread ct;
    pthread_t cth;
    struct rusage ru_open, ru0, ru1;
    uint8_t mac[6];
    char errbuf[256];
    FILE *out = NULL, *report = stdout;
    fade_t *f;
    struct sigaction sa;

    fade_options_default(&o);
    o.poll_mode = 1;  /* cheaper (fade/docs/host.md); --threaded for the receive thread */
    o.inplace = 1;    /* in-order packets read from the RX ring; --no-inplace: copied */
    memset(&ct, 0, sizeof(ct));
    ct.timeout_ms = 20;
    ct.retries = 100;
    while ((opt = getopt_long(argc, argv, "i:m:o:", longopts, NULL)) != -1) {
        switch (opt) {
        case 'i': ifname = optarg; break;
        case 'm': mac_s = optarg; break;
        case 'o': out_path = optarg; break;
        case 'b': limit = strtoull(optarg, NULL, 0); break;
        case 's': seconds = atof(optarg); break;
        case 'v': verify = 1; break;
        case 'k': step = strtoull(optarg, NULL, 0); break;
        case 'M': o.buf_log2 = (unsigned)atoi(optarg); break;
        case 'N': o.window_log2 = (unsigned)atoi(optarg); break;
        case 'w': wakeup = strtoull(optarg, NULL, 0); break;
        case 'c': with_cmds = 1; break;
        case 'T': ct.timeout_ms = (unsigned)atoi(optarg); break;
        case 'R': ct.retries = (unsigned)atoi(optarg); break;
        case 'C': o.rx_cpu = atoi(optarg); break;
        case 'n': o.no_reset = 1; break;
        case 'r': o.ring_version = (unsigned)atoi(optarg + (optarg[0] == 'v')); break;
        case 'K': o.ring_block_kib = (unsigned)atoi(optarg); break;
        case 'B': o.ring_blocks = (unsigned)atoi(optarg); break;
        case 'A': o.no_tx_ring = 1; break;
        case 'Q': o.ack_records = (unsigned)atoi(optarg); if (o.ack_records < 1 || o.ack_records > 8) usage(); break;
        case 't': o.poll_mode = 0; o.inplace = 0; break;
        case 'P': o.poll_mode = 1; break;
        case 'I': o.poll_mode = 1; o.inplace = 1; break;
        case 'X': o.inplace = 0; break;
        case 'F': o.no_frame_mode = 1; break;
        default: usage();
        }
    }
    if (!ifname || !mac_s || fade_parse_mac(mac_s, mac) != 0)
        usage();
    if (o.ring_version == 2)
        o.inplace = 0;  /* reading in place needs the V3 ring */
    if (out_path && strcmp(out_path, "-") == 0) {
        out = stdout;
        report = stderr;
    } else if (out_path) {
        out = fopen(out_path, "wb");
        if (!out) {
            perror(out_path);
            return 2;
        }
    }
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    fade_verify_init(&v, step);
    getrusage(RUSAGE_SELF, &ru_open);

    f = fade_open(ifname, mac, &o, errbuf, sizeof(errbuf));
    if (!f) {
        fprintf(stderr, "fade-recv: %s\n", errbuf);
        return 1;
    }
    /* CPU time is counted from here (START) to the end of the stream, like fade-tcp counts from
     * the accepted connection; fade_open() (sockets, ring and buffer mapped and populated, the
     * receive thread) is reported apart as cpu_setup_s. */
    getrusage(RUSAGE_SELF, &ru0);
    if (wakeup > fade_buf_len(f) / 2)
        wakeup = fade_buf_len(f) / 2;
    fade_set_wakeup(f, wakeup);
    t0 = now_s();
    err = fade_start(f, 3000);
    if (err) {
        fprintf(stderr, "fade-recv: START: %s\n", fade_strerror(err));
        fade_close(f);
        return 1;
    }
    if (with_cmds) {
        ct.f = f;
        pthread_create(&cth, NULL, commands, &ct);
    }
    for (;;) {
        struct fade_ptrs p;
        struct fade_span sp;
        const uint8_t *d;
        if (o.inplace) {  /* packets in order straight from the RX ring, the rest copied */
            fade_read_span(f, &sp, 50);
            d = sp.data;
            p.avail = sp.len;
            p.eos = sp.eos;
        } else {
            fade_read_ptrs(f, &p, 50);
            d = fade_buf(f) + p.tail;  /* contiguous: the buffer is mirrored */
        }
        if (p.avail) {
            if (verify)
                fade_verify_bytes(&v, d, p.avail);
            if (out && fwrite(d, 1, p.avail, out) != p.avail) {
                perror("fade-recv: write");
                stop_requested = 1;
            }
            if (o.inplace)
                fade_release_span(f, &sp);
            else
                fade_write_ptrs(f, p.avail);
            total += p.avail;
        }
        if (p.eos) {
            eos = 1;
            break;
        }
        if (!stopped && (stop_requested || (limit && total >= limit) ||
                         (seconds > 0 && now_s() - t0 >= seconds))) {
            if (with_cmds) {
                __atomic_store_n(&ct.stop, 1, __ATOMIC_RELEASE);
                pthread_join(cth, NULL);
                with_cmds = 2;
            }
            err = fade_stop(f, 3000);
            if (err)
                fprintf(stderr, "fade-recv: STOP: %s\n", fade_strerror(err));
            stopped = 1;
            t_stop = now_s();
        }
        if (stopped && now_s() - t_stop > 10) {
            fprintf(stderr, "fade-recv: no end of stream 10 s after STOP\n");
            break;
        }
    }
    t_end = now_s();
    if (with_cmds == 1) {
        __atomic_store_n(&ct.stop, 1, __ATOMIC_RELEASE);
        pthread_join(cth, NULL);
    }
    getrusage(RUSAGE_SELF, &ru1);
    fade_get_counters(f, &c);
    buf_bytes = fade_buf_len(f);
    fade_close(f);
    if (out && out != stdout)
        fclose(out);
    else if (out)
        fflush(out);
    {
        double secs = t_end - t0;
        double us = (double)(ru1.ru_utime.tv_sec - ru0.ru_utime.tv_sec) +
                    (ru1.ru_utime.tv_usec - ru0.ru_utime.tv_usec) * 1e-6;
        double ss = (double)(ru1.ru_stime.tv_sec - ru0.ru_stime.tv_sec) +
                    (ru1.ru_stime.tv_usec - ru0.ru_stime.tv_usec) * 1e-6;
        double setup = (double)(ru0.ru_utime.tv_sec - ru_open.ru_utime.tv_sec) +
                       (ru0.ru_utime.tv_usec - ru_open.ru_utime.tv_usec) * 1e-6 +
                       (double)(ru0.ru_stime.tv_sec - ru_open.ru_stime.tv_sec) +
                       (ru0.ru_stime.tv_usec - ru_open.ru_stime.tv_usec) * 1e-6;
        int ok = eos && (!verify || fade_verify_ok(&v)) && ct.failed == 0 && ct.wrong == 0;
        fprintf(report,
                "{\"bytes\": %llu, \"seconds\": %.6f, \"goodput_gbps\": %.4f, \"cpu_user_s\": %.4f, "
                "\"cpu_sys_s\": %.4f, \"cpu_setup_s\": %.4f, \"vol_ctxsw\": %ld, \"invol_ctxsw\": %ld, \"eos\": %d, \"verified\": %s, \"words\": %llu, "
                "\"first_word\": %llu, \"lost_words\": %llu, \"dup_words\": %llu, "
                "\"corrupt_words\": %llu, \"commands\": %llu, \"commands_failed\": %llu, "
                "\"commands_wrong\": %llu, \"commands_per_s\": %.1f, \"ok\": %s, \"poll_mode\": %d, \"inplace\": %d, "
                "\"buf_bytes\": %zu, \"counters\": "
                "{\"frames\": %llu, \"data\": %llu, \"dups\": %llu, \"future\": %llu, "
                "\"no_space\": %llu, \"idle_data\": %llu, \"foreign\": %llu, \"bad_version\": %llu, "
                "\"bad_frame\": %llu, \"resets_sent\": %llu, \"acks_sent\": %llu, "
                "\"ack_frames\": %llu, \"ack_records\": %llu, "
                "\"ack_send_fail\": %llu, \"responses\": %llu, \"stale_responses\": %llu, "
                "\"cmds_sent\": %llu, \"cmd_retries\": %llu, \"kernel_drops\": %llu, "
                "\"inplace\": %llu, \"frame_mode_entries\": %llu, \"frame_mode_frames\": %llu}}\n",
                (unsigned long long)total, secs, secs > 0 ? total * 8 / secs / 1e9 : 0.0, us, ss, setup,
                ru1.ru_nvcsw - ru0.ru_nvcsw, ru1.ru_nivcsw - ru0.ru_nivcsw, eos, verify ? (fade_verify_ok(&v) ? "true" : "false") : "null",
                (unsigned long long)v.words, (unsigned long long)v.first,
                (unsigned long long)v.lost, (unsigned long long)v.dup,
                (unsigned long long)v.corrupt, (unsigned long long)ct.ok,
                (unsigned long long)ct.failed, (unsigned long long)ct.wrong,
                ct.seconds > 0 ? ct.ok / ct.seconds : 0.0, ok ? "true" : "false", o.poll_mode,
                o.inplace, buf_bytes,
                (unsigned long long)c.frames, (unsigned long long)c.data,
                (unsigned long long)c.dups, (unsigned long long)c.future,
                (unsigned long long)c.no_space, (unsigned long long)c.idle_data,
                (unsigned long long)c.foreign, (unsigned long long)c.bad_version,
                (unsigned long long)c.bad_frame, (unsigned long long)c.resets_sent,
                (unsigned long long)c.acks_sent, (unsigned long long)c.ack_frames,
                (unsigned long long)c.ack_records, (unsigned long long)c.ack_send_fail,
                (unsigned long long)c.responses, (unsigned long long)c.stale_responses,
                (unsigned long long)c.cmds_sent, (unsigned long long)c.cmd_retries,
                (unsigned long long)c.kernel_drops, (unsigned long long)c.inplace,
                (unsigned long long)c.frame_mode_entries, (unsigned long long)c.frame_mode_frames);
        fflush(report);
        return ok ? 0 : 1;
    }
}
