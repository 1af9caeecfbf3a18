/* The SR-MPLS label push: see mpls_edit.h for what is checked and what comes out. */
#include "mpls_edit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned rd16(const uint8_t *p) { return ((unsigned)p[0] << 8) | p[1]; }

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

uint32_t mpls_lse(uint32_t label, unsigned tc, int bos, unsigned ttl)
{
    return ((label & MPLS_LABEL_MAX) << 12) | ((uint32_t)(tc & 7u) << 9) |
           ((uint32_t)(bos ? 1u : 0u) << 8) | (ttl & 0xFFu);
}

const char *mpls_verdict_name(enum mpls_verdict v)
{
    static const char *const names[MPLS_VERDICT_COUNT] = {
        "pushed", "forwarded", "truncated", "not_ip", "bad_ip", "too_big"};
    return (unsigned)v < MPLS_VERDICT_COUNT ? names[v] : "?";
}

int mpls_cfg_parse_labels(struct mpls_cfg *cfg, const char *spec, char *err, size_t errlen)
{
    const char *p = spec;
    unsigned n = 0;

    if (!spec || !*spec || !strcmp(spec, "none")) {
        cfg->n = 0;
        return 0;
    }
    for (;;) {
        char *end;
        unsigned long label, tc = 0;
        if (*p < '0' || *p > '9') {
            snprintf(err, errlen, "label %u: expected a number at \"%s\"", n + 1, p);
            return -1;
        }
        label = strtoul(p, &end, 10);
        if (label > MPLS_LABEL_MAX || end - p > 7) {
            snprintf(err, errlen, "label %u: %.12s is out of 0..%u", n + 1, p, MPLS_LABEL_MAX);
            return -1;
        }
        if (label == MPLS_LABEL_IMPLNULL) {
            snprintf(err, errlen, "label %u: 3 (implicit null) is never pushed", n + 1);
            return -1;
        }
        p = end;
        if (*p == '/') {
            p++;
            if (*p < '0' || *p > '7' || (p[1] >= '0' && p[1] <= '9')) {
                snprintf(err, errlen, "label %u: TC must be 0..7", n + 1);
                return -1;
            }
            tc = (unsigned long)(*p - '0');
            p++;
        }
        if (n == MPLS_MAX_LABELS) {
            snprintf(err, errlen, "more than %u labels", MPLS_MAX_LABELS);
            return -1;
        }
        cfg->label[n].label = (uint32_t)label;
        cfg->label[n].tc = (uint8_t)tc;
        n++;
        if (!*p)
            break;
        if (*p != ',') {
            snprintf(err, errlen, "label %u: unexpected \"%s\"", n, p);
            return -1;
        }
        p++;
    }
    cfg->n = n;
    return 0;
}

static int is_tag(unsigned tpid) { return tpid == 0x8100 || tpid == 0x88A8 || tpid == 0x9100; }

enum mpls_verdict mpls_push_header(const struct mpls_cfg *cfg, const uint8_t *head, size_t head_len,
                                   size_t frame_len, uint8_t *hdr, size_t *hdr_len, size_t *cut)
{
    /* every read below stays inside head[0, avail) */
    size_t avail = head_len < frame_len ? head_len : frame_len;
    size_t off = 12, l3, ip_len, i, n;
    unsigned tags = 0, etype, ttl;
    uint8_t *p;

    *hdr_len = *cut = 0;
    if (cfg->n == 0)
        return MPLS_FORWARDED;
    if (frame_len < 14 || avail < 14)
        return MPLS_DROP_TRUNCATED;
    etype = rd16(head + off);
    while (is_tag(etype) && tags < MPLS_MAX_TAGS) {
        off += 4;
        tags++;
        if (frame_len < off + 2 || avail < off + 2)
            return MPLS_DROP_TRUNCATED;
        etype = rd16(head + off);
    }
    l3 = off + 2;
    if (etype == 0x0800) {
        if (frame_len < l3 + 20 || avail < l3 + 20)
            return MPLS_DROP_TRUNCATED;
        if ((head[l3] >> 4) != 4 || (head[l3] & 0x0F) < 5)
            return MPLS_DROP_BAD_IP;
        ip_len = rd16(head + l3 + 2);
        if (ip_len < (size_t)(head[l3] & 0x0F) * 4)
            return MPLS_DROP_BAD_IP;
        ttl = head[l3 + 8];
    } else if (etype == 0x86DD) {
        if (frame_len < l3 + 40 || avail < l3 + 40)
            return MPLS_DROP_TRUNCATED;
        if ((head[l3] >> 4) != 6)
            return MPLS_DROP_BAD_IP;
        ip_len = 40 + (size_t)rd16(head + l3 + 4);
        ttl = head[l3 + 7];
    } else {
        return MPLS_DROP_NOT_IP;
    }
    if (l3 + ip_len > frame_len)
        return MPLS_DROP_TRUNCATED;
    n = cfg->n < MPLS_MAX_LABELS ? cfg->n : MPLS_MAX_LABELS;
    if (cfg->mtu && frame_len - l3 + 4 * n > cfg->mtu)
        return MPLS_DROP_TOO_BIG;
    if (cfg->ttl)
        ttl = cfg->ttl;

    memcpy(hdr, head, off);  /* MACs and tags */
    hdr[off] = (uint8_t)(MPLS_ETH_P_MPLS >> 8);
    hdr[off + 1] = (uint8_t)MPLS_ETH_P_MPLS;
    p = hdr + l3;
    for (i = 0; i < n; i++, p += 4)
        wr32(p, mpls_lse(cfg->label[i].label, cfg->label[i].tc, i + 1 == n, ttl));
    *hdr_len = l3 + 4 * n;
    *cut = l3;
    return MPLS_PUSHED;
}

size_t mpls_push(const struct mpls_cfg *cfg, const uint8_t *in, size_t len, uint8_t *out,
                 size_t cap, enum mpls_verdict *verdict)
{
    uint8_t hdr[MPLS_HDR_MAX];
    size_t hlen, cut, total;
    enum mpls_verdict v = mpls_push_header(cfg, in, len, len, hdr, &hlen, &cut);

    if (verdict)
        *verdict = v;
    if (v != MPLS_PUSHED && v != MPLS_FORWARDED)
        return 0;
    total = hlen + (len - cut);
    if (total > cap || total == 0)
        return 0;
    memcpy(out, hdr, hlen);
    memcpy(out + hlen, in + cut, len - cut);
    return total;
}
