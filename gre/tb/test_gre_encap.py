"""fp_gre_encap: every tunnel variant (IPv4/IPv6, key, sequence number, 0x6558 or L3), bad input
(wrong tlen, non-IP input on L3 tunnels, disabled / out-of-range tunnels), checked byte for byte
against fastpath.gre.model (whose outer headers scapy builds), round trips through the model
decapsulator, exact cycle timing and full output throughput.

The input is driven by `Driver` (s_axis_tlen and s_axis_tdest are set with each frame's first beat
and are random on the other beats, so only the first beat's value may matter). A `Watch` records
every accepted input beat, every output beat with the cycle it was first offered, and every stat
pulse. With the output always ready, `schedule()` predicts the cycle of every output beat from the
input acceptance cycles: a frame starts when its first beat is there (and, at 64 bits on an L3
tunnel, its second), each output beat waits for the input beats its window reads, one beat per
cycle, frames back to back.
"""
import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from fastpath.gre import model as gre
from fastpath.sim import runner
from fastpath.sim.tb import high, params, random_bytes, rng

CLOCK_MHZ = {8: 156.25, 32: 322.0, 64: 322.0}


def _scapy():
    from scapy.layers.inet import IP, UDP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import Dot1Q, Ether
    from scapy.packet import Raw
    return IP, UDP, IPv6, Dot1Q, Ether, Raw


def input_frame(r, n, kind="v4"):
    """An Ethernet frame of n bytes: IPv4, IPv6, ARP-typed or VLAN-tagged payload."""
    IP, UDP, IPv6, Dot1Q, Ether, Raw = _scapy()
    e = Ether(dst="02:00:00:00:03:01", src="02:00:00:00:03:02")
    if kind == "v4" and n >= 42:
        return bytes(e / IP(src="10.2.0.1", dst="10.2.0.2", id=r.getrandbits(16)) / UDP() / Raw(random_bytes(r, n - 42)))
    if kind == "v6" and n >= 62:
        return bytes(e / IPv6(src="fd00::1", dst="fd00::2") / UDP() / Raw(random_bytes(r, n - 62)))
    et = {"v4": 0x0800, "v6": 0x86DD, "arp": 0x0806, "vlan": 0x8100}[kind]
    head = bytes(Ether(dst="02:00:00:00:03:01", src="02:00:00:00:03:02", type=et))
    return (head + random_bytes(r, max(0, n - 14)))[:n]


def tunnel_table(r, n):
    """n random tunnels: IPv4/IPv6 alternating, random key, sequence number and mode. IPv4
    addresses come with random upper bits (the RTL must use addr[31:0])."""
    out = []
    for i in range(n):
        v6 = bool(i & 1)
        out.append(gre.Tunnel(
            mac_dst=bytes([2, 0, 0, 0, 4, i]), mac_src=bytes([2, 0, 0, 0, 5, i]), ipv6=v6,
            src=(0x20010DB8 << 96 | r.getrandbits(32)) if v6 else r.getrandbits(128),
            dst=(0x20010DB8 << 96 | r.getrandbits(64)) if v6 else r.getrandbits(128),
            ttl=r.randint(1, 255), key=r.getrandbits(32) if r.random() < 0.5 else None,
            seq=r.random() < 0.5, l3=r.random() < 0.4))
    return out


def variant_tunnels():
    """Every combination of IPv4/IPv6, key, sequence number, 0x6558/L3."""
    out = []
    for i in range(16):
        v6 = bool(i & 1)
        out.append(gre.Tunnel(mac_dst=bytes([2, 0, 0, 0, 6, i]), mac_src=bytes([2, 0, 0, 0, 7, i]), ipv6=v6,
                              src="2001:db8::a" if v6 else "192.0.2.10", dst="2001:db8::b" if v6 else "198.51.100.11",
                              ttl=17 + i, key=0x1000 + i if i & 2 else None, seq=bool(i & 4), l3=bool(i & 8)))
    return out


class Tb:
    def __init__(self, dut):
        p = params()
        self.dut = dut
        self.w = p.get("DATA_WIDTH", 64) // 8
        self.ntun = p.get("TUNNELS", 4)
        self.dest_width = len(dut.s_axis_tdest)
        self.cycle = 0
        self.clear()
        self.sink_p = 0.0
        self.r = rng()
        for name in ("tvalid", "tlast", "tdata", "tkeep", "tuser", "tdest", "tlen"):
            getattr(dut, f"s_axis_{name}").value = 0
        dut.m_axis_tready.value = 1
        self.tunnels = []
        self.model = gre.Encap([])
        cocotb.start_soon(self._watch())
        cocotb.start_soon(self._sink())

    def clear(self):
        self.ins, self.outs, self.stats = [], [], []
        self.stalls = 0

    async def reset(self):
        cocotb.start_soon(Clock(self.dut.clk, 5, unit="ns").start())
        self.dut.rst.value = 1
        await ClockCycles(self.dut.clk, 4)
        self.dut.rst.value = 0
        await RisingEdge(self.dut.clk)

    def configure(self, tunnels):
        """Program the tunnel table (only the first TUNNELS entries exist in the RTL)."""
        dut, n = self.dut, self.ntun
        self.tunnels = tunnels[:n]
        counters = self.model.seq + [0] * n  # the RTL's sequence counters live on per index
        self.model = gre.Encap(self.tunnels)
        self.model.seq = counters[:len(self.tunnels)]
        for name, value in gre.encap_ports(self.tunnels).items():
            getattr(dut, name).value = value

    async def _sink(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.dut.m_axis_tready.value = int(not (self.sink_p and self.r.random() < self.sink_p))

    async def _watch(self):
        dut, w = self.dut, self.w
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
                    last = high(dut.s_axis_tlast)
                    n = bin(int(dut.s_axis_tkeep.value)).count("1") if last else w
                    self.ins.append((self.cycle, int(dut.s_axis_tdata.value).to_bytes(w, "little")[:n], last))
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
                    data = int(dut.m_axis_tdata.value).to_bytes(w, "little")[:n]
                    self.outs.append((offered, data, last, int(dut.m_axis_tuser.value)))
                    offered = None

    async def drive(self, items, source_p=0.0, gap=0):
        """items: (frame, tdest, tlen, bad). Only the first beat carries the real tdest/tlen."""
        dut, w, r = self.dut, self.w, self.r
        for data, dest, tlen, bad in items:
            chunks = [data[i:i + w] for i in range(0, len(data), w)]
            for k, ch in enumerate(chunks):
                while source_p and r.random() < source_p:
                    dut.s_axis_tvalid.value = 0
                    await RisingEdge(dut.clk)
                last = k == len(chunks) - 1
                dut.s_axis_tdata.value = int.from_bytes(ch + random_bytes(r, w - len(ch)), "little")
                dut.s_axis_tkeep.value = (1 << len(ch)) - 1
                dut.s_axis_tlast.value = int(last)
                dut.s_axis_tuser.value = int(bad) if last else r.getrandbits(1)
                dut.s_axis_tdest.value = dest if k == 0 else r.getrandbits(self.dest_width)
                dut.s_axis_tlen.value = tlen if k == 0 else r.getrandbits(16)
                dut.s_axis_tvalid.value = 1
                while True:
                    await ReadOnly()
                    accepted = high(dut.s_axis_tready)
                    await RisingEdge(dut.clk)
                    if accepted:
                        break
            if gap:
                dut.s_axis_tvalid.value = 0
                await ClockCycles(dut.clk, gap)
        dut.s_axis_tvalid.value = 0

    async def run(self, items, source_p=0.0, sink_p=0.0, gap=0):
        """Send (frame, tdest, tlen, bad) items; check output, reasons, and with the output always
        ready the exact cycles (and no output bubble when the source never pauses)."""
        await ClockCycles(self.dut.clk, 2)  # a configuration change takes effect the next cycle
        self.clear()
        self.sink_p = sink_p
        want = []
        for data, dest, tlen, bad in items:
            out, reason = self.model.encap(data, dest, tlen)
            want.append((data, dest, tlen, bad, out, reason))
        await self.drive(items, source_p, gap)
        n_out = sum(x[4] is not None for x in want)
        for _ in range(5000):
            if sum(b[2] for b in self.outs) >= n_out and len(self.stats) >= len(items):
                break
            await ClockCycles(self.dut.clk, 10)
        await ClockCycles(self.dut.clk, 20)
        ins, outs = check(self, want)
        if not sink_p:
            drops = any(x[4] is None for x in want)  # the output idles while a frame is dropped
            check_timing(self, ins, outs, want, source_p == 0 and gap == 0 and not drops)
            if gap:
                check_latency(self, ins, outs, want)
        return want, outs


def group(beats):
    frames, cur = [], []
    for b in beats:
        cur.append(b)
        if b[2]:
            frames.append(cur)
            cur = []
    assert not cur, "stream ended inside a frame"
    return frames


def check(tb, want):
    ins = group(tb.ins)
    assert [b"".join(b[1] for b in f) for f in ins] == [x[0] for x in want], "input capture mismatch"
    outs = group(tb.outs)
    exp = [(x[4], int(x[3] or x[5] == "bad_length")) for x in want if x[4] is not None]
    got = [(b"".join(b[1] for b in f), f[-1][3] & 1) for f in outs]
    assert len(got) == len(exp), f"{len(got)} frames out, model says {len(exp)}"
    for i, (g, e) in enumerate(zip(got, exp)):
        assert g == e, f"output frame {i}: got {g[0].hex()} bad={g[1]}, want {e[0].hex()} bad={e[1]}"
    assert [s for _, s in tb.stats] == [gre.ENCAP_REASONS.index(x[5]) for x in want], "stat reasons differ"
    return ins, outs


def frame_shape(tb, x):
    """(mode, T, first-beat extra need) of an item as the RTL sees it."""
    data, dest, tlen, _, out, reason = x
    if reason == "pass":
        return "pass", 0, 0
    if reason == "drop":  # an enabled L3 tunnel: the start waited for the Ethertype's beat
        return "drop", 0, (1 if tb.w < 14 else 0)
    t = tb.tunnels[dest]
    ho = 14 + (40 if t.ipv6 else 20) + 4 + 4 * (t.key is not None) + 4 * t.seq
    return "encap", ho - (14 if t.l3 else 0), (1 if t.l3 and tb.w < 14 else 0)


def schedule(tb, ins, want):
    w = tb.w
    free, cyc = 0, []
    for f, x in zip(ins, want):
        acc = [b[0] + 1 for b in f]  # every beat reaches the output stage through the input register
        last = len(acc) - 1
        mode, T, extra = frame_shape(tb, x)
        if mode == "drop":
            c = None
            for j in range(len(acc)):
                c = max(free, acc[min(extra, last)]) if c is None else max(c + 1, acc[j])
            free = c + 1
            continue
        out = x[4]
        r = (-T) % w
        base0 = -((T + r) // w)
        c = None
        for n in range(-(-len(out) // w)):
            base = base0 + n
            need = -1
            if base >= 0:
                need = base + (1 if r and base < last else 0)
            elif base == -1 and r:
                need = 0
            if c is None:
                need = max(need, min(extra, last))
                c = max(free, acc[0], acc[need] if need >= 0 else 0)
            else:
                c = max(c + 1, acc[need] if need >= 0 else 0)
            cyc.append(c + 1)
        free = c + 1
    return cyc


def check_timing(tb, ins, outs, want, continuous):
    exp = schedule(tb, ins, want)
    got = [b[0] for f in outs for b in f]
    assert got == exp, "output cycles differ from the schedule at beat " \
        f"{next(i for i, (a, b) in enumerate(zip(got + [None], exp + [None])) if a != b)}"
    if continuous and got:
        gaps = [b - a for a, b in zip(got, got[1:]) if b - a != 1]
        assert not gaps, f"output bubbles with the input back to back: {gaps[:10]}"


def check_latency(tb, ins, outs, want):
    it = iter(outs)
    for f, x in zip(ins, want):
        if x[4] is None:
            continue
        o = next(it)
        t = tb.tunnels[x[1]] if x[1] < len(tb.tunnels) else None
        lat = gre.encap_latency(x[0], t, tb.w)
        assert o[0][0] - f[0][0] == lat, f"latency {o[0][0] - f[0][0]}, stated {lat}"


def items_for(tb, r, n, sizes=(14, 300), bad_len_p=0.0, bad_p=0.1, kinds=("v4", "v6")):
    out = []
    for _ in range(n):
        dest = r.randrange(1 << tb.dest_width)
        data = input_frame(r, r.randint(*sizes), r.choice(kinds))
        tlen = len(data)
        if r.random() < bad_len_p:
            tlen = r.choice([tlen + 1, tlen - 1, r.getrandbits(16), 0])
        out.append((data, dest, tlen & 0xFFFF, r.random() < bad_p))
    return out


@cocotb.test()
async def variants_latency(dut):
    """Every tunnel variant, frames one at a time: output == model, exact stated latency."""
    tb = Tb(dut)
    await tb.reset()
    r = tb.r
    tunnels = variant_tunnels()
    for start in range(0, len(tunnels), tb.ntun):
        tb.configure(tunnels[start:start + tb.ntun])
        items = []
        for dest in range(len(tb.tunnels)):
            for n in (14, 15, 60, 61, tb.w * 3 + 1, 200, 1514):
                kind = r.choice(["v4", "v6"])
                items.append((input_frame(r, n, kind), dest, n, r.random() < 0.2))
        await tb.run(items, gap=12)


@cocotb.test()
async def back_to_back(dut):
    """Random frames over random tunnels back to back: exact cycles, no output bubble; with
    random source pauses (exact cycles); with random backpressure on both sides."""
    tb = Tb(dut)
    await tb.reset()
    r = tb.r
    tb.configure(tunnel_table(r, tb.ntun))
    await tb.run(items_for(tb, r, 80))
    await tb.run(items_for(tb, r, 80), source_p=0.3)
    await tb.run(items_for(tb, r, 80, sizes=(1, 200), bad_len_p=0.2, kinds=("v4", "v6", "arp")),
                 source_p=0.3, sink_p=0.4)


@cocotb.test()
async def bad_input(dut):
    """Wrong tlen (marked bad), non-IP / short input on L3 tunnels (dropped), disabled and
    out-of-range tunnels (passed), tiny and jumbo frames."""
    tb = Tb(dut)
    await tb.reset()
    r = tb.r
    tunnels = tunnel_table(r, tb.ntun)
    tunnels[0].l3 = True
    tunnels[-1].enable = False
    tb.configure(tunnels)
    items = items_for(tb, r, 60, sizes=(1, 100), bad_len_p=0.3, kinds=("v4", "v6", "arp", "vlan"))
    items += [(input_frame(r, n, "v4"), 0, n, False) for n in (1, 12, 13, 14, 15, 16)]
    items += [(input_frame(r, 9000, "v6"), d, 9000, False) for d in range(len(tunnels))]
    await tb.run(items)
    await tb.run(items, source_p=0.2, sink_p=0.3)


@cocotb.test()
async def round_trip(dut):
    """fp_gre_encap's output through the model decapsulator gives the input back (the whole frame
    for 0x6558 tunnels; the IP packet under the outer MACs for L3 tunnels)."""
    tb = Tb(dut)
    await tb.reset()
    r = tb.r
    tunnels = tunnel_table(r, tb.ntun)
    tb.configure(tunnels)
    items = [x for x in items_for(tb, r, 60, sizes=(34, 300), bad_p=0.0) if x[1] < len(tunnels)]
    want, outs = await tb.run(items, source_p=0.2, sink_p=0.2)
    cfg = gre.DecapConfig(accept_all=True)
    it = iter(outs)
    for data, dest, _, _, out, reason in want:
        assert reason == "encap"
        got = b"".join(b[1] for b in next(it))
        dec, why = gre.decap(got, cfg)
        assert why == "decap", why
        t = tunnels[dest]
        if t.l3:
            assert dec[12:] == data[12:] and dec[:12] == gre._mac(t.mac_dst) + gre._mac(t.mac_src)
        else:
            assert dec == data


@cocotb.test()
async def throughput_92(dut):
    """Back-to-back 92-byte frames into an IPv4 0x6558 tunnel: one output beat per cycle; reports
    Mpps at the width's clock (the output is the bottleneck: 92 + 38 bytes per frame)."""
    tb = Tb(dut)
    await tb.reset()
    r = tb.r
    tb.configure([gre.Tunnel()] * tb.ntun)
    items = [(input_frame(r, 92, "v4"), 0, 92, False) for _ in range(100)]
    _, outs = await tb.run(items)
    first, last = outs[0][0][0], outs[-1][-1][0]
    beats = sum(len(f) for f in outs)
    assert last - first + 1 == beats
    mpps = len(items) / beats * CLOCK_MHZ[tb.w]
    cocotb.log.info(f"92-byte frames: {beats / len(items):.0f} output beats/frame, {mpps:.2f} Mpps at {CLOCK_MHZ[tb.w]} MHz")


@pytest.mark.parametrize("data_width,tunnels", [(64, 4), (256, 3), (512, 4)])
def test_gre_encap(data_width, tunnels):
    runner.run("fp_gre_encap", __name__, {"DATA_WIDTH": data_width, "TUNNELS": tunnels, "DEST_WIDTH": 2})
