"""fp_gre_decap: scapy-built GRE variants, the zeek capture, encap round trips and fuzzed frames,
checked byte for byte (and reason for reason) against fastpath.gre.model, with exact cycle timing.

A `Watch` records every accepted input beat, every output beat (with the cycle it was first
offered) and every stat pulse. `check()` compares the output frames and the per-frame reasons with
the model. When the output is always ready, `schedule()` predicts the exact cycle at which every
output beat is first offered (from the cycles at which the input beats were accepted): a frame's
first beat needs its decision (registered: usable the cycle after the beat completing it) and the
beats its first output beat reads;
later beats follow one per cycle; a frame waits for the one ahead of it. Isolated frames then show
the stated latency (`decap_latency`), back-to-back frames show full throughput (no input stall,
no output bubble inside a frame).

`s_axis_tlen` is driven with each frame's first beat (random on the other beats) by
`Env._drive_tlen`: the frame's length, or with `tlen_p` a wrong one (a lying source). With
LEN_IN = 1 the model gets that tlen (`gre.decap(..., tlen)`: the length verdict up front, frames
whose IP length disagrees pass unchanged as `pass_length`); with LEN_IN = 0 it gets None (the
verdict at the frame's end, `drop_length`).
"""
import logging
import random

import cocotb
import pytest
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge, with_timeout

from fastpath.frames import read_pcap
from fastpath.gre import model as gre
from fastpath.paths import VECTORS
from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness, frame
from fastpath.sim.tb import high, params, random_bytes, rng, start

PCAP = VECTORS / "pcap" / "zeek-gre-sample.pcap"
MAC_A, MAC_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"
SRC4, DST4 = "192.0.2.1", "198.51.100.7"
SRC6, DST6 = "2001:db8::1", "2001:db8::7"
CLOCK_MHZ = {8: 156.25, 32: 322.0, 64: 322.0}
PERIOD_NS = 5  # fastpath.sim.tb.start's clock


# ---------------------------------------------------------------------------------------------
# Frames (scapy)
# ---------------------------------------------------------------------------------------------

def _scapy():
    from scapy.layers.inet import IP, UDP, IPOption_NOP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import GRE, Dot1Q, Ether
    from scapy.packet import Raw
    return IP, UDP, IPOption_NOP, IPv6, GRE, Dot1Q, Ether, Raw


def inner_frame(r, proto, n):
    """An inner Ethernet frame (0x6558), IPv4 or IPv6 packet of exactly n bytes."""
    IP, UDP, _, IPv6, _, _, Ether, Raw = _scapy()
    if proto == 0x6558 and n >= 14:
        hdr = bytes(Ether(dst="02:00:00:00:01:01", src="02:00:00:00:01:02", type=0x0800))
        return hdr + random_bytes(r, n - 14)
    if proto == 0x0800 and n >= 28:
        return bytes(IP(src="10.1.0.1", dst="10.1.0.2", id=r.getrandbits(16)) / UDP(sport=1, dport=2)
                     / Raw(random_bytes(r, n - 28)))
    if proto == 0x86DD and n >= 48:
        return bytes(IPv6(src="fd00::1", dst="fd00::2") / UDP(sport=1, dport=2) / Raw(random_bytes(r, n - 48)))
    return random_bytes(r, n)


def gre_frame(inner, proto=0x6558, tags=(), ipv6=False, ihl=5, c=False, key=None, seq=None,
              src=None, dst=None, ip_kw=None):
    """Ethernet [tags] / IPv4 or IPv6 / GRE / inner, built by scapy (lengths, checksum)."""
    IP, _, NOP, IPv6, GRE, Dot1Q, Ether, Raw = _scapy()
    ip_type = 0x86DD if ipv6 else 0x0800
    types = list(tags) + [ip_type]
    pkt = Ether(dst=MAC_B, src=MAC_A, type=types[0])
    for i, _ in enumerate(tags):
        pkt = pkt / Dot1Q(vlan=100 + i, type=types[i + 1])
    if ipv6:
        pkt = pkt / IPv6(src=src or SRC6, dst=dst or DST6, nh=47, hlim=64, **(ip_kw or {}))
    else:
        opts = [NOP()] * (4 * (ihl - 5))
        pkt = pkt / IP(src=src or SRC4, dst=dst or DST4, ihl=ihl, options=opts, proto=47, **(ip_kw or {}))
    g = GRE(chksum_present=int(c), key_present=int(key is not None), seqnum_present=int(seq is not None),
            proto=proto)
    if key is not None:
        g.key = key
    if seq is not None:
        g.sequence_number = seq
    return bytes(pkt / g / Raw(inner))


def fix_ipv4_checksum(f):
    """Recompute the outer IPv4 header checksum of a (mutated) frame, if it has one."""
    f = bytearray(f)
    l2 = 14
    for _ in range(2):
        if f[l2 - 2:l2] in (b"\x81\x00", b"\x88\xa8") and len(f) >= l2 + 4:
            l2 += 4
    if f[l2 - 2:l2] == b"\x08\x00" and len(f) >= l2 + 20:
        ihl = (f[l2] & 15) * 4
        if ihl >= 20 and len(f) >= l2 + ihl:
            f[l2 + 10:l2 + 12] = b"\0\0"
            f[l2 + 10:l2 + 12] = (0xFFFF - gre.ones_sum(bytes(f[l2:l2 + ihl]))).to_bytes(2, "big")
    return bytes(f)


def variant_frames(r, size_range=(14, 120)):
    """Every header variant: 0/1/2 tags x IPv4 (IHL 5, 15, random) / IPv6 x C/K/S x protocol."""
    out = []
    for tags in ((), (0x8100,), (0x88A8, 0x8100)):
        for ip in ("v4_5", "v4_15", "v4_r", "v6"):
            for flags in range(8):
                for proto in gre.PROTOS:
                    c, k, s = flags & 1, flags & 2, flags & 4
                    lo = {0x6558: 14, 0x0800: 1, 0x86DD: 1}[proto]
                    n = r.randint(max(lo, size_range[0]), size_range[1])
                    ihl = {"v4_5": 5, "v4_15": 15, "v4_r": r.randint(5, 15), "v6": 5}[ip]
                    out.append(gre_frame(inner_frame(r, proto, n), proto, tags, ip == "v6", ihl, bool(c),
                                         r.getrandbits(32) if k else None, r.getrandbits(32) if s else None))
    return out


def other_frames(r):
    """Frames passed or dropped for each reason, padding and length cases, sizes at the limits."""
    IP, UDP, _, IPv6, GRE, Dot1Q, Ether, Raw = _scapy()
    e = Ether(dst=MAC_B, src=MAC_A)
    inner = inner_frame(r, 0x6558, 60)
    out = [
        bytes(e / IP(src=SRC4, dst=DST4) / UDP() / Raw(random_bytes(r, 40))),          # not GRE
        bytes(e / IPv6(src=SRC6, dst=DST6) / UDP() / Raw(random_bytes(r, 40))),
        bytes(Ether(dst=MAC_B, src=MAC_A, type=0x0806) / Raw(random_bytes(r, 46))),     # ARP-like
        bytes(Ether(dst=MAC_B, src=MAC_A, type=0x8100) / Dot1Q(vlan=1, type=0x8100) / Dot1Q(vlan=2, type=0x8100)
              / Dot1Q(vlan=3, type=0x0800) / IP(src=SRC4, dst=DST4) / GRE() / Raw(inner)),  # 3 tags
        gre_frame(inner, ip_kw={"flags": "MF"}),                                          # fragments
        gre_frame(inner, ip_kw={"frag": 100}),
        gre_frame(inner, ip_kw={"chksum": 0x1234}),                                       # bad checksum
        gre_frame(inner, tags=(0x8100,), ihl=15, ip_kw={"chksum": 0x1234}),
        gre_frame(inner, tags=(0x88A8, 0x8100), ihl=7, c=True, ip_kw={"chksum": 0xBEEF}),
        # one bit off in the header's last word (IPv4 option bytes), and in its first
        bytes(bytearray(f ^ (1 if i == 22 + 59 else 0) for i, f in
                        enumerate(gre_frame(inner, tags=(0x88A8, 0x8100), ihl=15)))),
        bytes(bytearray(f ^ (4 if i == 14 + 1 else 0) for i, f in enumerate(gre_frame(inner)))),
        gre_frame(inner, proto=0x0806),                                                   # unsupported
        gre_frame(inner, src="203.0.113.9"),                                              # unknown tunnel
        gre_frame(inner, ipv6=True, src="2001:db8::99"),
        gre_frame(inner_frame(r, 0x6558, 14)),                                            # minimum inner
        gre_frame(inner_frame(r, 0x0800, 1), proto=0x0800),
        gre_frame(inner_frame(r, 0x6558, 1514 - 38)),                                    # 1514 bytes
        gre_frame(inner_frame(r, 0x6558, 1518 - 42), tags=(0x8100,)),
        gre_frame(inner_frame(r, 0x86DD, 9000 - 66), proto=0x86DD, tags=(0x8100,), ipv6=True),  # jumbo
    ]
    for bits, byte1 in ((0x40, 0), (0x08, 0), (0x01, 0), (0, 1), (0, 0x80)):              # R, s, recur, v1, rsvd
        f = bytearray(gre_frame(inner))
        f[34] |= bits
        f[35] |= byte1
        out.append(bytes(f))
    # Padding: short IP packets padded to 60 (+4 per tag): padding removed; longer: drop_length.
    for tags in ((), (0x8100,), (0x88A8, 0x8100)):
        for proto, n in ((0x6558, 14), (0x6558, 20), (0x0800, 1), (0x0800, 20), (0x86DD, 1)):
            f = gre_frame(inner_frame(r, proto, n), proto, tags)
            limit = 60 + 4 * len(tags)
            out.append(f + random_bytes(r, max(0, limit - len(f))))
            out.append(f + random_bytes(r, max(1, limit - len(f) + 1)))
    # IP length disagreeing with the frame: longer (truncated frame) and shorter (trailing bytes).
    for delta in (-200, -7, -1, 1, 9, 300):
        for ipv6 in (False, True):
            f = gre_frame(inner_frame(r, 0x6558, 100), ipv6=ipv6)
            if delta < 0:
                out.append(f[:len(f) + delta])
            else:
                out.append(f + random_bytes(r, delta))
    # IP length too small for the headers (known at the decision).
    out.append(gre_frame(inner, ip_kw={"len": 20 + 4 + 13}))
    out.append(gre_frame(inner, ipv6=True, ip_kw={"plen": 4}))
    # Truncated at every length up to one inner byte past the header.
    full = gre_frame(inner, tags=(0x8100,), c=True, key=7, seq=9)
    out += [full[:n] for n in range(1, 18 + 20 + 16 + 2)]
    return out


def length_frames(r, n):
    """GRE frames whose IP length disagrees with the frame, or agrees only by padding: truncated,
    with trailing bytes, padded to 60 (+4 per tag) and one byte more, and with the IP length field
    changed (checksum fixed); one in four left intact."""
    out = []
    for _ in range(n):
        tags = r.choice(((), (0x8100,), (0x88A8, 0x8100)))
        proto = r.choice(gre.PROTOS)
        ipv6 = r.random() < 0.4
        lo = {0x6558: 14, 0x0800: 1, 0x86DD: 1}[proto]
        short = r.random() < 0.4
        size = r.randint(lo, 20) if short else r.randint(lo, 200)
        f = gre_frame(inner_frame(r, proto, size), proto, tags, ipv6, r.choice([5, 5, r.randint(5, 15)]),
                      r.random() < 0.3, r.choice([None, r.getrandbits(32)]), r.choice([None, r.getrandbits(32)]))
        limit = 60 + 4 * len(tags)
        kind = r.randrange(5)
        if kind == 0:                                             # truncated
            f = f[:len(f) - r.randint(1, min(len(f) - 1, 40))]
        elif kind == 1:                                           # trailing bytes
            f = f + random_bytes(r, r.randint(1, 40))
        elif kind == 2 and len(f) < limit + 2:                    # padding: up to and past the limit
            f = f + random_bytes(r, r.randint(1, limit + 2 - len(f)))
        elif kind == 3:                                           # IP length field changed
            l2 = 14 + 4 * len(tags)
            at = l2 + (4 if ipv6 else 2)
            v = (int.from_bytes(f[at:at + 2], "big") + r.choice([-3, -1, 1, 2, 50])) & 0xFFFF
            f = fix_ipv4_checksum(f[:at] + v.to_bytes(2, "big") + f[at + 2:])
        out.append(f)
    return out


def fuzz_frames(r, n):
    """Random bytes, random mutations of GRE headers (checksum fixed or not), random lengths."""
    base = variant_frames(r, (1, 80))
    out = []
    for _ in range(n):
        kind = r.random()
        if kind < 0.15:
            out.append(random_bytes(r, r.randint(1, 120)))
            continue
        f = bytearray(r.choice(base))
        for _ in range(r.randint(1, 4)):
            pos = r.randint(0, min(len(f) - 1, 100))
            if r.random() < 0.5:
                f[pos] ^= 1 << r.randint(0, 7)
            else:
                f[pos] = r.getrandbits(8)
        f = bytes(f)
        if r.random() < 0.6:
            f = fix_ipv4_checksum(f)
        if r.random() < 0.3:
            f = f[:r.randint(1, len(f))]
        elif r.random() < 0.2:
            f = f + random_bytes(r, r.randint(1, 40))
        out.append(f)
    return out


# ---------------------------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------------------------

def base_config():
    """Accepts the test endpoints (IPv4 with any key, IPv6 with any key)."""
    return gre.DecapConfig(entries=[gre.Accept((0xABCD << 32) | gre._addr(SRC4)),  # upper bits ignored
                                    gre.Accept(SRC6, ipv6=True)])


def apply_config(dut, cfg, entries):
    for name, value in gre.decap_ports(cfg, entries).items():
        getattr(dut, name).value = value


# ---------------------------------------------------------------------------------------------
# Monitor, checks, timing model
# ---------------------------------------------------------------------------------------------

class Watch:
    def __init__(self, dut, lanes):
        self.dut, self.lanes = dut, lanes
        self.cycle = 0
        self.clear()
        cocotb.start_soon(self._run())

    def clear(self):
        self.ins, self.outs, self.stats = [], [], []   # (cycle, ...) records
        self.stalls = 0

    async def _run(self):
        dut, w = self.dut, self.lanes
        offered = None
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            self.cycle += 1
            if high(dut.rst):
                offered = None
                continue
            if high(dut.stat_valid):
                self.stats.append((self.cycle, int(dut.stat_reason.value)))
            if high(dut.s_axis_tvalid):
                if high(dut.s_axis_tready):
                    keep = int(dut.s_axis_tkeep.value)
                    data = int(dut.s_axis_tdata.value).to_bytes(w, "little")
                    n = bin(keep).count("1") if high(dut.s_axis_tlast) else w
                    self.ins.append((self.cycle, data[:n], high(dut.s_axis_tlast), int(dut.s_axis_tuser.value)))
                else:
                    self.stalls += 1
            if high(dut.m_axis_tvalid):
                if offered is None:
                    offered = self.cycle
                if high(dut.m_axis_tready):
                    keep = int(dut.m_axis_tkeep.value)
                    last = high(dut.m_axis_tlast)
                    n = bin(keep).count("1")
                    assert keep == (1 << n) - 1, f"cycle {self.cycle}: tkeep {keep:x} not contiguous"
                    assert last or n == w, f"cycle {self.cycle}: partial beat without tlast"
                    data = kept_bytes(dut.m_axis_tdata.value, n)
                    self.outs.append((offered, data, last, int(dut.m_axis_tuser.value)))
                    offered = None


def kept_bytes(value, n):
    """The first n bytes (byte 0 in the low bits) of a tdata value; bytes outside tkeep are don't
    care (with OUT_STAGES = 2 they may come from buffer entries never written: X in simulation)."""
    bits = str(value)
    out = bytearray()
    for i in range(n):
        byte = bits[len(bits) - 8 * (i + 1):len(bits) - 8 * i]
        assert set(byte) <= {"0", "1"}, f"output byte {i} is {byte}"
        out.append(int(byte, 2))
    return bytes(out)


def group(beats):
    frames, cur = [], []
    for b in beats:
        cur.append(b)
        if b[2]:
            frames.append(cur)
            cur = []
    assert not cur, "stream ended inside a frame"
    return frames


def check(watch, sent, cfg, stages):
    """Output frames, their tuser[0] and the stat reasons equal the model's; each stat pulse
    comes 1 + PARSE_STAGES cycles after the frame's last input beat. sent: (frame, bad, tlen for
    the model or None)."""
    ins = group(watch.ins)
    assert [b"".join(b[1] for b in f) for f in ins] == [s[0] for s in sent], "input capture mismatch"
    want_out, want_reason = [], []
    for data, bad, tlen in sent:
        out, reason = gre.decap(data, cfg, tlen)
        want_reason.append(gre.DECAP_REASONS.index(reason))
        if out is not None:
            want_out.append((out, int(bad or reason == "drop_length")))
    outs = group(watch.outs)
    got = [(b"".join(b[1] for b in f), f[-1][3] & 1) for f in outs]
    assert len(got) == len(want_out), f"{len(got)} frames out, model says {len(want_out)}"
    for i, (g, e) in enumerate(zip(got, want_out)):
        assert g == e, f"output frame {i}: got {g[0].hex()} bad={g[1]}, want {e[0].hex()} bad={e[1]}"
    assert [r for _, r in watch.stats] == want_reason, "stat reasons differ from the model"
    assert [c for c, _ in watch.stats] == [f[-1][0] + 1 + stages for f in ins], \
        "stat pulse not 1 + PARSE_STAGES cycles after tlast"
    return ins, outs


def schedule(ins, sent, cfg, w, stages, out_stages):
    """Expected offered cycle of every output beat, output always ready (see module docstring).
    Behind the parser pipeline every beat arrives `stages` (PARSE_STAGES) cycles after it was
    accepted, with its decision. With OUT_STAGES = 2 the output stage reads a beat one cycle after
    it arrives (no bypass) and the beat it forms is offered one cycle later than with 1."""
    want = []
    free = 0
    x = out_stages - 1
    for f, (data, _, tlen) in zip(ins, sent):
        acc = [b[0] + stages + x for b in f]  # when the output stage can read each beat
        d = gre.decide(data, cfg, tlen)
        out, _ = gre.decap(data, cfg, tlen)
        k_dec = (min(d.need, len(data)) - 1) // w
        last = len(acc) - 1
        ready = acc[k_dec] - x + 1  # the decision is registered: usable from the next cycle
        if d.reason != "decap":
            c = None
            for j in range(len(acc)):
                c = max(free, ready, acc[j]) if c is None else max(c + 1, acc[j])
                if out is not None:
                    want.append(c + 1 + x)
            free = c + 1
            continue
        b0, r = divmod(d.S, w)
        n_out = -(-len(out) // w)
        c = None
        for n in range(n_out):
            s = b0 + n
            j = s + (1 if r and last > s else 0)
            c = max(free, acc[j], ready) if c is None else max(c + 1, acc[j])
            want.append(c + 1 + x)
        s = b0 + n_out - 1
        visible = last == s or (r and last == s + 1)
        if not visible:  # the last output beat waits for the input frame's end
            for j in range(s + 1, last + 1):
                c = max(c + 1, acc[j])
            want[-1] = c + 1 + x
        free = c + 1
    return want


def check_timing(watch, ins, outs, sent, cfg, w, stages, out_stages, isolated=False):
    want = schedule(ins, sent, cfg, w, stages, out_stages)
    got = [b[0] for f in outs for b in f]
    assert got == want, f"output cycles differ: first mismatch at beat " \
        f"{next(i for i, (a, b) in enumerate(zip(got + [None], want + [None])) if a != b)}"
    assert watch.stalls == 0, f"input stalled {watch.stalls} cycles with the output always ready"
    if isolated:
        outs_it = iter(outs)
        for f, (data, _, tlen) in zip(ins, sent):
            lat = gre.decap_latency(data, cfg, w, stages, out_stages, tlen)
            if lat is None:
                continue
            o = next(outs_it)
            assert o[0][0] - f[0][0] == lat, f"latency {o[0][0] - f[0][0]}, stated {lat}: {gre.decide(data, cfg, tlen)} len {len(data)} tlen {tlen}: {data.hex()}"


# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

class Env:
    def __init__(self, dut):
        p = params()
        self.dut = dut
        self.w = p.get("DATA_WIDTH", 64) // 8
        self.entries = p.get("ACCEPT_ENTRIES", 8)
        self.stages = p.get("PARSE_STAGES", gre.DEFAULT_PARSE_STAGES[self.w])
        self.out_stages = p.get("OUT_STAGES", gre.DEFAULT_OUT_STAGES[self.w])
        self.len_in = p.get("LEN_IN", gre.DEFAULT_LEN_IN)
        self.h = AxisHarness(dut, dut.clk, dut.rst)  # bus models first: they drive the inputs idle
        self.h.source.log.setLevel(logging.WARNING)
        self.h.sink.log.setLevel(logging.WARNING)
        self.tlens = []  # s_axis_tlen of the frames queued in the source, in order
        self.noise = random.Random(5)
        dut.s_axis_tlen.value = 0
        cocotb.start_soon(self._drive_tlen())
        self.watch = Watch(dut, self.w)
        self.cfg = base_config()
        apply_config(dut, self.cfg, self.entries)

    async def start(self):
        await start(self.dut)

    async def _drive_tlen(self):
        """s_axis_tlen: the head frame's tlen while its first beat is offered, random otherwise."""
        dut = self.dut
        first, advance = True, False
        while True:
            await RisingEdge(dut.clk)
            if advance and self.tlens:
                self.tlens.pop(0)
            advance = False
            dut.s_axis_tlen.value = self.tlens[0] if first and self.tlens else self.noise.getrandbits(16)
            await ReadOnly()
            if high(dut.rst):
                first = True
                continue
            if high(dut.s_axis_tvalid) and high(dut.s_axis_tready):
                first = advance = high(dut.s_axis_tlast)

    def configure(self, cfg):
        self.cfg = cfg
        apply_config(self.dut, cfg, self.entries)

    def tlen_for(self, f, r, tlen_p):
        """The frame's length, or with probability tlen_p a wrong one."""
        n = len(f)
        if r.random() < tlen_p:
            n = r.choice([n + 1, n - 1, n + r.randint(2, 30), max(0, n - r.randint(2, 30)), 0,
                          r.getrandbits(16)])
        return n & 0xFFFF

    async def run(self, frames, r, isolated=False, source_p=0.0, sink_p=0.0, bad_p=0.1, tlen_p=0.0):
        """Send frames, wait until everything is out, check data and reasons; with the output
        always ready also the exact cycle of every output beat. Returns the input and output
        beats by frame. tlen_p: probability of a wrong s_axis_tlen."""
        self.watch.clear()
        self.h.backpressure(r, source_p=source_p, sink_p=sink_p)
        tlens = [self.tlen_for(f, r, tlen_p) for f in frames]
        sent = [(f, r.random() < bad_p, t if self.len_in else None) for f, t in zip(frames, tlens)]
        n_out = sum(gre.decap(f, self.cfg, t)[0] is not None for f, _, t in sent)
        limit = 20 * sum(len(f) // self.w + 30 for f in frames) * PERIOD_NS  # never hang
        if isolated:
            for (data, bad, _), t in zip(sent, tlens):
                self.tlens.append(t)
                await self.h.send([frame(data, bad)])
                await with_timeout(self.h.source.wait(), limit, "ns")
                await ClockCycles(self.dut.clk, 24)
        else:
            self.tlens += tlens
            await self.h.send([frame(d, b) for d, b, _ in sent])
        await with_timeout(self.h.source.wait(), limit, "ns")
        for _ in range(2000):
            if sum(b[2] for b in self.watch.outs) >= n_out and len(self.watch.stats) >= len(sent):
                break
            await ClockCycles(self.dut.clk, 10)
        await ClockCycles(self.dut.clk, 30)
        ins, outs = check(self.watch, sent, self.cfg, self.stages)
        if not sink_p:
            check_timing(self.watch, ins, outs, sent, self.cfg, self.w, self.stages, self.out_stages, isolated)
        return ins, outs

    def length_reason(self):
        """The reason a GRE frame whose IP length disagrees with the frame gets in this mode."""
        return "pass_length" if self.len_in else "drop_length"


@cocotb.test()
async def variants_latency(dut):
    """Every header variant, one frame at a time: output == model, exact stated latency."""
    r = rng()
    env = Env(dut)
    await env.start()
    frames = variant_frames(r)
    frames += [gre_frame(inner_frame(r, 0x6558, 30), ihl=ihl) for ihl in range(5, 16)]
    frames += length_frames(r, 30)  # pass_length (LEN_IN = 1) is a passed frame's latency
    for proto in (0x0800, 0x86DD):  # one-beat outputs (256 bits) with padding beats behind them
        for n in (1, 2, 6):
            f = gre_frame(inner_frame(r, proto, n), proto, (0x88A8, 0x8100))
            frames.append(f + random_bytes(r, 68 - len(f)))
    await env.run(frames, r, isolated=True)
    assert sum(c == gre.DECAP_REASONS.index(env.length_reason()) for _, c in env.watch.stats) > 0


@cocotb.test()
async def variants_back_to_back(dut):
    """Variants, every pass/drop reason and IP lengths disagreeing with the frame back to back
    (a few with a wrong s_axis_tlen): exact cycles, no stall; then half of them with random
    pauses of the source (still exact), the other half with random backpressure on both sides.
    The length reason (pass_length with LEN_IN = 1, drop_length with 0) is counted."""
    r = rng()
    env = Env(dut)
    await env.start()
    frames = variant_frames(r) + other_frames(r) + length_frames(r, 60)
    r.shuffle(frames)
    await env.run(frames, r, tlen_p=0.05)
    code = gre.DECAP_REASONS.index(env.length_reason())
    assert sum(c == code for _, c in env.watch.stats) > 0
    half = len(frames) // 2
    await env.run(frames[:half], r, source_p=0.3, tlen_p=0.05)
    env.configure(gre.DecapConfig(entries=env.cfg.entries, drop_unknown=True))
    await env.run(frames[half:], r, source_p=0.3, sink_p=0.4, tlen_p=0.05)


@cocotb.test()
async def worst_case_back_to_back(dut):
    """The deepest header-buffer use, back to back with the output always ready: frames passed
    only after byte 98 (2 tags, IHL 15, C+K+S, unknown endpoint), the longest decapsulations
    (0x6558 and 0x0800), runs of 1-byte runts behind them, drops, padding drains, and frames of
    every size 1..200. The input never stalls and every output beat is in its predicted cycle."""
    r = rng()
    env = Env(dut)
    await env.start()
    qinq = (0x88A8, 0x8100)

    def longest(proto, src=None, n=None):
        lo = 14 if proto == 0x6558 else 1
        return gre_frame(inner_frame(r, proto, n or r.randint(lo, 90)), proto, qinq, ihl=15, c=True,
                         key=r.getrandbits(32), seq=r.getrandbits(32), src=src)

    pool = [
        lambda: longest(0x6558, src="203.0.113.1"),                   # passed at byte 98
        lambda: longest(0x6558),
        lambda: longest(0x0800),
        lambda: longest(0x86DD, n=r.randint(40, 200)),
        lambda: random_bytes(r, 1),
        lambda: random_bytes(r, r.randint(1, 30)),
        lambda: gre_frame(inner_frame(r, 0x0800, 1), 0x0800, qinq) + random_bytes(r, 9),  # padded
        lambda: random_bytes(r, r.randint(1, 200)),
        lambda: gre_frame(inner_frame(r, 0x6558, r.randint(14, 160)), ihl=r.randint(5, 15)),
    ]
    for drop in (False, True):
        env.configure(gre.DecapConfig(entries=env.cfg.entries, drop_unknown=drop))
        frames = []
        for _ in range(30):
            frames.append(pool[0]())
            frames += [r.choice(pool)() for _ in range(r.randint(0, 4))]
            frames += [random_bytes(r, 1) for _ in range(r.randint(0, 16))]
        await env.run(frames, r)


@cocotb.test()
async def tunnel_filter(dut):
    """Accept table: IPv4/IPv6 entries with and without keys, invalid entries, accept-all,
    drop-unknown; each configuration against the model."""
    r = rng()
    env = Env(dut)
    await env.start()
    addrs4 = [f"192.0.2.{i}" for i in range(1, 6)]
    addrs6 = [f"2001:db8::{i}" for i in range(1, 6)]
    keys = [None, 1, 2, 0xFFFFFFFF]
    for trial in range(4):
        entries = []
        for _ in range(env.entries):
            v6 = r.random() < 0.4
            a = r.choice(addrs6 if v6 else addrs4)
            addr = gre._addr(a) | ((r.getrandbits(96) << 32) if not v6 else 0)  # upper bits ignored
            entries.append(gre.Accept(addr, v6, r.choice(keys), r.random() < 0.85))
        cfg = gre.DecapConfig(entries, accept_all=trial == 3, drop_unknown=trial % 2 == 1)
        env.configure(cfg)
        frames = []
        for _ in range(40):
            v6 = r.random() < 0.4
            frames.append(gre_frame(inner_frame(r, 0x6558, r.randint(14, 60)), ipv6=v6,
                                    src=r.choice(addrs6 if v6 else addrs4), c=r.random() < 0.3,
                                    key=r.choice(keys), seq=r.choice([None, 5])))
        await env.run(frames, r, source_p=0.2 if trial % 2 else 0.0)


@cocotb.test()
async def fuzz(dut):
    """Random and malformed frames, IP lengths disagreeing with the frame and wrong s_axis_tlen
    values, under random backpressure: never hangs, output and reasons equal the model
    (unchanged, decapsulated, or length-marked bad); then back to back with exact cycles."""
    r = rng()
    env = Env(dut)
    await env.start()
    env.configure(gre.DecapConfig(entries=env.cfg.entries, accept_all=r.random() < 0.5))
    code = gre.DECAP_REASONS.index(env.length_reason())
    for kw in ({"source_p": 0.2, "sink_p": 0.3, "bad_p": 0.2}, {}):
        frames = fuzz_frames(r, 150) + length_frames(r, 50)
        r.shuffle(frames)
        await env.run(frames, r, tlen_p=0.1, **kw)
        assert sum(c == code for _, c in env.watch.stats) > 0


@cocotb.test()
async def round_trip(dut):
    """gre.Encap (random tunnels) then fp_gre_decap gives back the frame (0x6558) or, for L3
    tunnels, the IP packet under the outer MACs."""
    r = rng()
    env = Env(dut)
    await env.start()
    env.configure(gre.DecapConfig(accept_all=True))
    tunnels = []
    for i in range(8):
        v6 = i % 2 == 1
        tunnels.append(gre.Tunnel(mac_dst=f"02:00:00:00:02:{i:02x}", ipv6=v6,
                                  src=SRC6 if v6 else SRC4, dst=DST6 if v6 else DST4, ttl=r.randint(1, 255),
                                  key=r.choice([None, r.getrandbits(32)]), seq=r.random() < 0.5, l3=i >= 4))
    enc = gre.Encap(tunnels)
    originals, frames = [], []
    for _ in range(60):
        t = r.randrange(len(tunnels))
        proto = r.choice([0x0800, 0x86DD]) if tunnels[t].l3 else 0x6558
        inner = inner_frame(r, proto, r.randint(48, 300))
        if proto != 0x6558:
            inner = bytes.fromhex("02000000030102000000030208000000")[:12] + proto.to_bytes(2, "big") + inner
        out, reason = enc.encap(inner, t)
        assert reason == "encap"
        originals.append((inner, tunnels[t]))
        frames.append(out)
    _, outs = await env.run(frames, r, source_p=0.2, sink_p=0.2, bad_p=0.0)
    for f, (inner, t) in zip(outs, originals):
        data = b"".join(b[1] for b in f)
        if t.l3:
            assert data[12:] == inner[12:]
            assert data[:12] == gre._mac(t.mac_dst) + gre._mac(t.mac_src)
        else:
            assert data == inner


@cocotb.test()
async def capture(dut):
    """zeek-gre-sample.pcap (IPv4 / GRE 0x0800 / IPv4): every frame the RTL decapsulates equals
    the model's result, back to back with exact cycles, then under backpressure. Skipped (SKIP
    in the cocotb summary) when ../shared/vectors is absent."""
    if not PCAP.exists():
        pytest.skip(f"{PCAP} absent (shared vectors not beside the repo)")
    r = rng()
    env = Env(dut)
    await env.start()
    env.configure(gre.DecapConfig(accept_all=True))
    frames = [c.data for c in read_pcap(PCAP)]
    _, outs = await env.run(frames, r, bad_p=0.0)
    reasons = [gre.decap(f, env.cfg)[1] for f in frames]
    assert reasons.count("decap") >= 30, reasons
    await env.run(frames, r, source_p=0.3, sink_p=0.3, bad_p=0.0)


@cocotb.test()
async def throughput_92(dut):
    """Back-to-back 92-byte IPv4/GRE frames (0x0800, the paper's case; and 0x6558): one input
    beat every cycle, no stall, exact cycles; reports Mpps at the width's clock."""
    r = rng()
    env = Env(dut)
    await env.start()
    for proto in (0x0800, 0x6558):
        frames = [gre_frame(inner_frame(r, proto, 92 - 38), proto) for _ in range(100)]
        ins, _ = await env.run(frames, r, bad_p=0.0)
        first, last = ins[0][0][0], ins[-1][-1][0]
        beats = sum(len(f) for f in ins)
        assert last - first + 1 == beats, f"{beats} input beats took {last - first + 1} cycles"
        mpps = len(frames) / (last - first + 1) * CLOCK_MHZ[env.w]
        cocotb.log.info(f"92-byte GRE 0x{proto:04x}: {beats / len(frames):.0f} beats/frame, "
                        f"{mpps:.2f} Mpps at {CLOCK_MHZ[env.w]} MHz")


@cocotb.test()
async def reset_mid_frame(dut):
    """A reset in the middle of traffic empties the core; traffic after it is clean."""
    r = rng()
    env = Env(dut)
    await env.start()
    env.h.sink.pause = True
    await env.h.send([frame(f) for f in variant_frames(r)[:6]])
    await ClockCycles(dut.clk, 7)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    env.h.source.clear()
    env.tlens.clear()
    await ClockCycles(dut.clk, 1)
    env.h.sink.clear()
    env.h.sink.pause = False
    await ClockCycles(dut.clk, 2)
    assert not high(dut.m_axis_tvalid)
    await env.run(variant_frames(r)[:20], r)


_D = gre.DEFAULT_PARSE_STAGES, gre.DEFAULT_OUT_STAGES


# LEN_IN = 0 (the length verdict at the frame's end) on one parameter set only.
@pytest.mark.parametrize("data_width,parse_stages,out_stages,len_in", [
    (64, _D[0][8], _D[1][8], 1), (256, _D[0][32], _D[1][32], 1), (512, _D[0][64], _D[1][64], 1),
    (64, 0, 1, 0), (512, 1, 1, 1), (64, 1, 1, 1), (64, 2, 2, 1), (256, 0, 2, 1), (64, 3, 2, 1), (256, 3, 2, 1)])
def test_gre_decap(data_width, parse_stages, out_stages, len_in):
    runner.run("fp_gre_decap", __name__, {"DATA_WIDTH": data_width, "PARSE_STAGES": parse_stages,
                                       "OUT_STAGES": out_stages, "LEN_IN": len_in})


def test_latency_models_agree():
    """No simulator: the stated latency (`gre.decap_latency`) equals the first output cycle of
    the beat-by-beat schedule (`schedule`, which the RTL is checked against cycle by cycle) for
    every frame shape the tests generate, every width, PARSE_STAGES and OUT_STAGES, with and
    without s_axis_tlen: the two models cannot drift apart unnoticed (they did once: a one-beat
    decapsulation followed by padding waits for the input's last beat)."""
    cfg = base_config()
    for seed in range(3):
        r = random.Random(seed)
        frames = variant_frames(r) + length_frames(r, 60) + fuzz_frames(r, 100) + other_frames(r)
        for w in (8, 32, 64):
            for stages in range(4):
                for out_stages in (1, 2):
                    for f in frames:
                        for tlen in (len(f), None):
                            lat = gre.decap_latency(f, cfg, w, stages, out_stages, tlen)
                            if lat is None:
                                continue
                            ins = [[(k,) for k in range(-(-len(f) // w))]]
                            want = schedule(ins, [(f, False, tlen)], cfg, w, stages, out_stages)
                            assert want[:1] == [lat], (w, stages, out_stages, tlen, f.hex())
