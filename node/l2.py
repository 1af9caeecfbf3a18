"""Reference model of the node's L2 learning table (fp_node_l2_table) and RxProcDP (fp_node_rxproc).

`L2Table` models the table as a sequence of operations, applied one at a time in the order the
RTL executes them (the RTL serialises every operation through one pipeline; each one sees the
effects of all earlier ones):

    t = L2Table(buckets=128, ways=8)
    hit, port = t.request(vid, da, sa, src_port, learn)   # a client op: DA lookup, then SA learn
    t.age_bucket(b)                                        # one step of an ageing sweep
    t.host_read(bucket, way) / host_write(...) / host_insert(...) / host_flush(port=None)

MAC addresses are 48-bit integers, the first byte on the wire in bits 47:40 (`mac_int`).
The key is {vid[11:0], mac[47:0]} (60 bits); its bucket is `l2_hash(vid, mac, buckets)`: the key
XOR-folded to log2(buckets) bits (key bit i goes into hash bit i mod log2(buckets)).

`classify(frame, src_port, cfg, table)` is what fp_node_rxproc decides for one frame (from its first
segment): it performs the table request (lookup + learn) and returns a `Decision`, which unpacks as
(dst_set, to_host, discard, reason, vid, pcp, prio, tagged).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from fastpath import formats

# NoC header reason codes, from their one definition (node/rtl/noc_header.fmt.toml).
_NOC = formats.load("noc_header").const
REASON_NONE = _NOC["reason_none"]
REASON_BAD_FRAME = _NOC["reason_bad_frame"]
REASON_PORT_DISABLED = _NOC["reason_port_disabled"]
REASON_VLAN = _NOC["reason_vlan"]
REASON_NO_DEST = _NOC["reason_no_dest"]
REASON_RESERVED_MAC = _NOC["reason_reserved_mac"]

# Host command opcodes and response status codes of fp_node_l2_table.
OP_READ, OP_WRITE, OP_INSERT, OP_FLUSH_ALL, OP_FLUSH_PORT = range(5)
ST_OK, ST_FULL, ST_NOT_FOUND, ST_BAD_OP = range(4)

ETH_IPV4, ETH_IPV6, ETH_ARP, ETH_VLAN = 0x0800, 0x86DD, 0x0806, 0x8100
IPPROTO_ICMPV6 = 58


def mac_int(b: bytes) -> int:
    """A 6-byte MAC address as the table's 48-bit integer (first byte on the wire = bits 47:40)."""
    return int.from_bytes(bytes(b[:6]), "big")


def l2_hash(vid: int, mac: int, buckets: int) -> int:
    """Bucket of key {vid, mac}: XOR fold of the 60-bit key to log2(buckets) bits."""
    hb = buckets.bit_length() - 1
    key = ((vid & 0xFFF) << 48) | (mac & ((1 << 48) - 1))
    h = 0
    for i in range(60):
        h ^= ((key >> i) & 1) << (i % hb)
    return h


@dataclass
class Entry:
    valid: bool = False
    static: bool = False
    hit: bool = False
    port: int = 0
    vid: int = 0
    mac: int = 0

    def copy(self) -> "Entry":
        return Entry(self.valid, self.static, self.hit, self.port, self.vid, self.mac)


class HostRsp(NamedTuple):
    status: int
    bucket: int
    way: int
    entry: Entry


class L2Table:
    """BUCKETS x WAYS hash table; the first (lowest) way wins when a key matches several ways."""

    def __init__(self, buckets: int = 128, ways: int = 8, port_bits: int = 5):
        assert buckets >= 2 and buckets & (buckets - 1) == 0
        self.buckets, self.ways, self.port_mask = buckets, ways, (1 << port_bits) - 1
        self.b = [[Entry() for _ in range(ways)] for _ in range(buckets)]
        self.events = {"learn_new": 0, "learn_move": 0, "learn_full": 0}

    def hash(self, vid: int, mac: int) -> int:
        return l2_hash(vid, mac, self.buckets)

    def _find(self, bucket: int, vid: int, mac: int):
        for w, e in enumerate(self.b[bucket]):
            if e.valid and e.vid == vid and e.mac == mac:
                return w
        return None

    def _free(self, bucket: int):
        for w, e in enumerate(self.b[bucket]):
            if not e.valid:
                return w
        return None

    # ---- client operations ------------------------------------------------------------------
    def lookup(self, vid: int, mac: int):
        """(hit, port) of key {vid, mac}."""
        bk = self.hash(vid, mac)
        w = self._find(bk, vid, mac)
        return (False, 0) if w is None else (True, self.b[bk][w].port)

    def learn(self, vid: int, mac: int, port: int) -> str:
        """Learn mac+vid on port: 'refresh', 'move', 'new' or 'full' (then ev_learn_full)."""
        bk = self.hash(vid, mac)
        w = self._find(bk, vid, mac)
        if w is not None:
            e = self.b[bk][w]
            e.hit = True
            if not e.static and e.port != port:
                e.port = port
                self.events["learn_move"] += 1
                return "move"
            return "refresh"
        w = self._free(bk)
        if w is None:
            self.events["learn_full"] += 1
            return "full"
        self.b[bk][w] = Entry(True, False, True, port & self.port_mask, vid, mac)
        self.events["learn_new"] += 1
        return "new"

    def request(self, vid: int, da: int, sa: int, src_port: int, learn: bool):
        """One client op: look DA up (before this op's learn), then learn SA if asked."""
        res = self.lookup(vid, da)
        if learn:
            self.learn(vid, sa, src_port)
        return res

    # ---- maintenance -------------------------------------------------------------------------
    def age_bucket(self, bucket: int):
        """One ageing step: dynamic entries not hit since the last sweep go, hit flags clear."""
        for e in self.b[bucket]:
            if e.valid and not e.static and not e.hit:
                e.valid = False
            e.hit = False if e.valid else e.hit

    def age_all(self):
        for bk in range(self.buckets):
            self.age_bucket(bk)

    def flush_bucket(self, bucket: int, port: int | None = None):
        for e in self.b[bucket]:
            if e.valid and not e.static and (port is None or e.port == port):
                e.valid = False

    def host_read(self, bucket: int, way: int) -> HostRsp:
        return HostRsp(ST_OK, bucket, way, self.b[bucket][way].copy())

    def host_write(self, bucket: int, way: int, valid: bool, static: bool, port: int, vid: int,
                   mac: int) -> HostRsp:
        """Write one entry by index; its hit flag is set to `valid`."""
        self.b[bucket][way] = Entry(bool(valid), bool(static), bool(valid), port & self.port_mask,
                                    vid, mac)
        return self.host_read(bucket, way)

    def host_insert(self, valid: bool, static: bool, port: int, vid: int, mac: int) -> HostRsp:
        """valid=1: add or update the key (hit set); valid=0: remove the key."""
        bk = self.hash(vid, mac)
        w = self._find(bk, vid, mac)
        if not valid:
            if w is None:
                return HostRsp(ST_NOT_FOUND, bk, 0, self.b[bk][0].copy())
            self.b[bk][w].valid = False
            return self.host_read(bk, w)
        if w is None:
            w = self._free(bk)
        if w is None:
            return HostRsp(ST_FULL, bk, 0, self.b[bk][0].copy())
        self.b[bk][w] = Entry(True, bool(static), True, port & self.port_mask, vid, mac)
        return self.host_read(bk, w)

    def host_flush(self, port: int | None = None) -> HostRsp:
        """Remove every dynamic entry (of `port` if given); answers with entry {BUCKETS-1, 0}."""
        for bk in range(self.buckets):
            self.flush_bucket(bk, port)
        return self.host_read(self.buckets - 1, 0)

    def entries(self):
        """{(vid, mac): (port, static, hit)} of the valid entries (first way wins)."""
        out = {}
        for bucket in self.b:
            for e in bucket:
                if e.valid and (e.vid, e.mac) not in out:
                    out[(e.vid, e.mac)] = (e.port, e.static, e.hit)
        return out


# ---- RxProcDP classification -------------------------------------------------------------------

@dataclass
class Vlan:
    valid: bool
    vid: int
    members: int  # bit i = port i


@dataclass
class RxCfg:
    """fp_node_rxproc configuration (the cfg_* ports)."""

    ports: int = 12
    dp_index: int = 0
    seg_bytes: int = 64
    port_enable: int = -1  # bit masks over ports (-1: all)
    port_trunk: int = 0
    pvid: list = field(default_factory=list)  # per port, default 1
    port_pcp: list = field(default_factory=list)  # per port, default 0
    prio_pcp_min: int = 4
    vlans: list = field(default_factory=list)  # VLANS entries; default: VID 1, all ports
    learn_enable: bool = True
    host_link_local: bool = True
    host_arp: bool = False
    host_icmpv6: bool = False
    host_unknown: bool = False
    flood_host: bool = False

    def __post_init__(self):
        allp = (1 << self.ports) - 1
        self.port_enable &= allp
        self.port_trunk &= allp
        self.pvid = list(self.pvid) + [1] * (self.ports - len(self.pvid))
        self.port_pcp = list(self.port_pcp) + [0] * (self.ports - len(self.port_pcp))
        if not self.vlans:
            self.vlans = [Vlan(True, 1, allp)]

    def members(self, vid: int) -> int:
        """Ports of VLAN vid: the OR of every valid entry with that VID."""
        m = 0
        for v in self.vlans:
            if v.valid and v.vid == vid:
                m |= v.members
        return m & ((1 << self.ports) - 1)


class Decision(NamedTuple):
    dst_set: int
    to_host: bool
    discard: bool
    reason: int
    vid: int
    pcp: int
    prio: bool
    tagged: bool


class Parsed(NamedTuple):
    tagged: bool
    vid: int
    pcp: int
    ethertype: int
    da: int
    sa: int
    runt: bool


def parse(frame: bytes, src_port: int, cfg: RxCfg) -> Parsed:
    """Header fields of a frame as RxProcDP reads them (missing bytes read as 0)."""
    f = bytes(frame) + bytes(max(0, 64 - len(frame)))
    host = src_port >= cfg.ports
    tagged = int.from_bytes(f[12:14], "big") == ETH_VLAN
    if tagged:
        tci = int.from_bytes(f[14:16], "big")
        vid, pcp, et = tci & 0xFFF, tci >> 13, int.from_bytes(f[16:18], "big")
    else:
        vid = 1 if host else cfg.pvid[src_port]
        pcp = 0 if host else cfg.port_pcp[src_port]
        et = int.from_bytes(f[12:14], "big")
    runt = len(frame) < (18 if tagged else 14)
    return Parsed(tagged, vid, pcp, et, mac_int(f[0:6]), mac_int(f[6:12]), runt)


def is_icmpv6(frame: bytes, p: Parsed) -> bool:
    off = 24 if p.tagged else 20  # IPv6 next header: 6 bytes into the IPv6 header
    return p.ethertype == ETH_IPV6 and len(frame) > off and frame[off] == IPPROTO_ICMPV6


def table_request(frame: bytes, src_port: int, cfg: RxCfg, bad: bool = False):
    """The (vid, da, sa, learn) fp_node_rxproc sends to the table for a frame's first segment.

    `bad` is the frame's bad flag; it is seen at the first segment only when the frame fits in
    one segment (len <= cfg.seg_bytes), so only then does it stop learning.
    """
    p = parse(frame, src_port, cfg)
    host = src_port >= cfg.ports
    bad_first = (bad and len(frame) <= cfg.seg_bytes) or p.runt
    ingress_ok = (not host and (cfg.port_enable >> src_port) & 1 and not bad_first
                  and not (p.tagged and not (cfg.port_trunk >> src_port) & 1)
                  and (cfg.members(p.vid) >> src_port) & 1)
    learn = bool(cfg.learn_enable and ingress_ok and not (p.sa >> 40) & 1)
    return p.vid, p.da, p.sa, learn


def classify(frame: bytes, src_port: int, cfg: RxCfg, table: L2Table | None = None,
             bad: bool = False, lookup=None) -> Decision:
    """fp_node_rxproc's decision for one frame (the lookup + learn is done on `table`).

    `lookup` = (hit, port) overrides the table's answer (when the caller runs the table itself).
    """
    p = parse(frame, src_port, cfg)
    vid, da, sa, learn = table_request(frame, src_port, cfg, bad)
    if lookup is not None:
        hit, hport = lookup
    elif table is not None:
        hit, hport = table.request(vid, da, sa, src_port, learn)
    else:
        hit, hport = False, 0
    host = src_port >= cfg.ports
    allp = (1 << cfg.ports) - 1
    srcbit = 0 if host else 1 << src_port
    prio = p.pcp >= cfg.prio_pcp_min
    bad_first = (bad and len(frame) <= cfg.seg_bytes) or p.runt

    def out(dst=0, to_host=False, discard=False, reason=REASON_NONE):
        return Decision(dst, bool(to_host), bool(discard), reason, p.vid, p.pcp, prio, p.tagged)

    if not host and not (cfg.port_enable >> src_port) & 1:
        return out(discard=True, reason=REASON_PORT_DISABLED)
    if bad_first:
        return out(discard=True, reason=REASON_BAD_FRAME)
    if not host and ((p.tagged and not (cfg.port_trunk >> src_port) & 1)
                     or not (cfg.members(p.vid) >> src_port) & 1):
        return out(discard=True, reason=REASON_VLAN)
    link_local = (da >> 4) == 0x0180C200000
    if link_local:
        th = cfg.host_link_local and not host
        return out(to_host=th, discard=not th, reason=REASON_RESERVED_MAC)
    known_et = p.ethertype in (ETH_IPV4, ETH_IPV6, ETH_ARP, ETH_VLAN)
    if not host and cfg.host_unknown and not known_et:
        return out(to_host=True)
    members = cfg.members(p.vid) & cfg.port_enable & allp
    to_host = False
    if (da >> 40) & 1 or not hit:
        dst = members & ~srcbit
        to_host = cfg.flood_host
    elif hport >= cfg.ports:
        dst, to_host = 0, True  # a (static) entry pointing at a host port
    elif (members >> hport) & 1 and hport != src_port:
        dst = 1 << hport
    else:
        dst = 0
    if not host:
        to_host = to_host or (cfg.host_arp and p.ethertype == ETH_ARP) \
            or (cfg.host_icmpv6 and is_icmpv6(frame, p))
    else:
        to_host = False
    if dst == 0 and not to_host:
        return out(discard=True, reason=REASON_NO_DEST)
    return out(dst=dst, to_host=to_host)
