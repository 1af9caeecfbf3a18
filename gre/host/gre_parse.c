/* gre_parse: GRE decapsulation decision and rewrite. See gre_parse.h for the rules. */
#include "gre_parse.h"

#include <string.h>

#define ETH_HDR 14
#define ETYPE_IPV4 0x0800u
#define ETYPE_IPV6 0x86DDu
#define ETYPE_TEB 0x6558u   /* transparent Ethernet bridging */
#define ETYPE_8021Q 0x8100u
#define ETYPE_8021AD 0x88A8u
#define IPPROTO_GRE_ 47u

static uint16_t rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }

static uint32_t rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

uint16_t gre_inet_csum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;
    size_t i;
    for (i = 0; i + 1 < len; i += 2)
        sum += rd16(p + i);
    if (len & 1)
        sum += (uint32_t)p[len - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    return (uint16_t)~sum;
}

/* Does an IP packet of ip_total bytes starting at l3 agree with a frame of len bytes with
 * `tags` VLAN tags? It must end at the frame's end, or inside Ethernet padding: frames of up to
 * 60 bytes plus 4 per tag may be longer than their IP packet. */
static int length_agrees(size_t len, size_t l3, size_t ip_total, unsigned tags)
{
    size_t end = l3 + ip_total;
    return end == len || (end < len && len <= GRE_MIN_FRAME + 4u * tags);
}

static enum gre_verdict stop(struct gre_info *info, enum gre_verdict v, size_t len)
{
    info->verdict = v;
    if (!gre_is_decap(v))
        info->out_len = len;
    return v;
}

enum gre_verdict gre_parse(const uint8_t *f, size_t len, struct gre_info *info)
{
    size_t off, l3, ip_end, g, need;
    uint16_t etype, flags;

    memset(info, 0, sizeof(*info));

    /* 1-2: Ethernet and up to two tags */
    if (len < ETH_HDR)
        return stop(info, GRE_PASS_SHORT, len);
    off = 12;
    etype = rd16(f + off);
    while ((etype == ETYPE_8021Q || etype == ETYPE_8021AD) && info->tags < GRE_MAX_TAGS) {
        off += 4;
        if (len < off + 2)
            return stop(info, GRE_PASS_SHORT, len);
        etype = rd16(f + off);
        info->tags++;
    }
    l3 = off + 2;
    info->l2_len = (uint16_t)l3;
    if (etype != ETYPE_IPV4 && etype != ETYPE_IPV6)
        return stop(info, GRE_PASS_NOT_IP, len);

    if (etype == ETYPE_IPV4) {
        size_t ihl, total;
        uint16_t frag;
        if (len < l3 + 20)                                     /* 3 */
            return stop(info, GRE_PASS_SHORT, len);
        info->ip_version = 4;
        ihl = (size_t)(f[l3] & 0x0F) * 4;
        if ((f[l3] >> 4) != 4 || ihl < 20)                     /* 4 */
            return stop(info, GRE_PASS_BAD_IP, len);
        info->ip_len = (uint16_t)ihl;
        if (len < l3 + ihl)                                    /* 5 */
            return stop(info, GRE_PASS_SHORT, len);
        if (gre_inet_csum(f + l3, ihl) != 0)                   /* 6 */
            return stop(info, GRE_PASS_CSUM, len);
        total = rd16(f + l3 + 2);
        if (total < ihl || !length_agrees(len, l3, total, info->tags))  /* 7 */
            return stop(info, GRE_PASS_LENGTH, len);
        frag = rd16(f + l3 + 6);
        if (frag & 0x3FFFu)                                    /* 8: MF or offset */
            return stop(info, GRE_PASS_FRAGMENT, len);
        if (f[l3 + 9] != IPPROTO_GRE_)                         /* 9 */
            return stop(info, GRE_PASS_NOT_GRE, len);
        ip_end = l3 + total;
    } else {
        size_t payload;
        if (len < l3 + 40)                                     /* 3 */
            return stop(info, GRE_PASS_SHORT, len);
        info->ip_version = 6;
        if ((f[l3] >> 4) != 6)                                 /* 4 */
            return stop(info, GRE_PASS_BAD_IP, len);
        info->ip_len = 40;
        payload = rd16(f + l3 + 4);
        if (!length_agrees(len, l3, 40 + payload, info->tags)) /* 7 */
            return stop(info, GRE_PASS_LENGTH, len);
        if (f[l3 + 6] != IPPROTO_GRE_)                         /* 9 */
            return stop(info, GRE_PASS_NOT_GRE, len);
        ip_end = l3 + 40 + payload;
    }

    /* 10-14: GRE */
    g = l3 + info->ip_len;
    if (ip_end < g + 4)
        return stop(info, GRE_PASS_SHORT, len);
    flags = rd16(f + g);
    info->gre_flags = flags;
    info->gre_proto = rd16(f + g + 2);
    if (flags & GRE_VERSION_MASK)
        return stop(info, GRE_PASS_GRE_VERSION, len);
    if (flags & (GRE_FLAG_R | GRE_RESERVED_MASK))
        return stop(info, GRE_PASS_GRE_FLAGS, len);
    need = 4;
    if (flags & GRE_FLAG_C)
        need += 4;
    if (flags & GRE_FLAG_K) {
        if (ip_end >= g + need + 4)
            info->gre_key = rd32(f + g + need);
        need += 4;
    }
    if (flags & GRE_FLAG_S) {
        if (ip_end >= g + need + 4)
            info->gre_seq = rd32(f + g + need);
        need += 4;
    }
    if (ip_end < g + need) {
        info->gre_key = info->gre_seq = 0;
        return stop(info, GRE_PASS_SHORT, len);
    }
    info->gre_len = (uint16_t)need;
    info->inner_off = g + need;
    info->inner_len = ip_end - info->inner_off;

    switch (info->gre_proto) {
    case ETYPE_TEB:
        if (info->inner_len < ETH_HDR)                         /* 15 */
            return stop(info, GRE_PASS_SHORT, len);
        info->out_len = info->inner_len;
        return stop(info, GRE_DECAP_ETH, len);
    case ETYPE_IPV4:
    case ETYPE_IPV6:
        if (info->inner_len < 1)                               /* 15 */
            return stop(info, GRE_PASS_SHORT, len);
        info->out_len = l3 + info->inner_len;
        return stop(info, info->gre_proto == ETYPE_IPV4 ? GRE_DECAP_IPV4 : GRE_DECAP_IPV6, len);
    default:
        return stop(info, GRE_PASS_GRE_PROTO, len);
    }
}

size_t gre_decap(const uint8_t *frame, size_t len, uint8_t *out, size_t out_cap,
                 struct gre_info *info)
{
    enum gre_verdict v = gre_parse(frame, len, info);
    size_t l2 = info->l2_len;

    if (out_cap < len || len == 0)
        return 0;
    switch (v) {
    case GRE_DECAP_ETH:
        memcpy(out, frame + info->inner_off, info->inner_len);
        break;
    case GRE_DECAP_IPV4:
    case GRE_DECAP_IPV6:
        memcpy(out, frame, l2 - 2);
        out[l2 - 2] = (uint8_t)(info->gre_proto >> 8);
        out[l2 - 1] = (uint8_t)info->gre_proto;
        memcpy(out + l2, frame + info->inner_off, info->inner_len);
        break;
    default:
        memcpy(out, frame, len);
        break;
    }
    return info->out_len;
}

size_t gre_decap_inplace(uint8_t *buf, size_t len, size_t *out_off, struct gre_info *info)
{
    enum gre_verdict v = gre_parse(buf, len, info);
    size_t l2 = info->l2_len, start;

    switch (v) {
    case GRE_DECAP_ETH:
        *out_off = info->inner_off;
        break;
    case GRE_DECAP_IPV4:
    case GRE_DECAP_IPV6:
        /* inner_off >= l2 + 24: the L2 header moves up by at least 24 bytes */
        start = info->inner_off - l2;
        memmove(buf + start, buf, l2 - 2);
        buf[start + l2 - 2] = (uint8_t)(info->gre_proto >> 8);
        buf[start + l2 - 1] = (uint8_t)info->gre_proto;
        *out_off = start;
        break;
    default:
        *out_off = 0;
        break;
    }
    return info->out_len;
}

const char *gre_verdict_name(enum gre_verdict v)
{
    /* the names after parse_ in gre/rtl/gre_verdict.fmt.toml (gre/tests/test_gre_verdict.py) */
    static const char *const names[GRE_VERDICT_COUNT] = {
        [GRE_DECAP_ETH] = "decap_eth",
        [GRE_DECAP_IPV4] = "decap_ipv4",
        [GRE_DECAP_IPV6] = "decap_ipv6",
        [GRE_PASS_SHORT] = "pass_short",
        [GRE_PASS_NOT_IP] = "pass_not_ip",
        [GRE_PASS_BAD_IP] = "pass_bad_ip",
        [GRE_PASS_CSUM] = "pass_csum",
        [GRE_PASS_LENGTH] = "pass_length",
        [GRE_PASS_FRAGMENT] = "pass_fragment",
        [GRE_PASS_NOT_GRE] = "pass_not_gre",
        [GRE_PASS_GRE_VERSION] = "pass_gre_version",
        [GRE_PASS_GRE_FLAGS] = "pass_gre_flags",
        [GRE_PASS_GRE_PROTO] = "pass_gre_proto",
    };
    if ((unsigned)v >= GRE_VERDICT_COUNT || !names[v])
        return "?";
    return names[v];
}
