"""cocotb side of the GRE benchmark: latency per header variant, bubbles and Mpps of fp_gre_decap or
fp_gre_encap (whichever is the simulation top) at one data width.

Driven through $FASTPATH_BENCH (JSON, all optional: "frames" in the long run, "size" of its frames,
"clock_mhz" for the Mpps figure) and writing $FASTPATH_BENCH_OUT (JSON). Run it with
`fastpath.sim.runner.run("fp_gre_decap", "fastpath.gre.bench_cocotb", {"DATA_WIDTH": 64},
env={"FASTPATH_BENCH": "{}", "FASTPATH_BENCH_OUT": "/tmp/gre.json"})`.

Latency is counted as in docs/architecture.md (first input beat accepted -> first output beat
offered), one frame at a time with the output always ready. The long run sends frames back to back
with the output always ready and counts bubbles: cycles between the run's first and last input
beat in which no input beat was accepted (decap; zero means line rate), or cycles between the
first and last output beat with no output beat (encap, whose output is the longer side).
Headline latency: plain IPv4 / GRE / 0x6558 (decap), IPv4 0x6558 tunnel (encap).
"""
import json
import logging
import os

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, ReadOnly, RisingEdge

from fastpath.sim.tb import high

DEFAULT_CLOCK_MHZ = {64: 156.25, 256: 322.0, 512: 322.0}
MAC_A, MAC_B = "02:00:00:00:00:0a", "02:00:00:00:00:0b"


def _frames():
    from scapy.layers.inet import IP, UDP, IPOption_NOP
    from scapy.layers.inet6 import IPv6
    from scapy.layers.l2 import GRE, Dot1Q, Ether
    from scapy.packet import Raw
    return IP, UDP, IPOption_NOP, IPv6, GRE, Dot1Q, Ether, Raw


def decap_variants():
    """(name, frame) for the header variants of the latency table."""
    IP, UDP, NOP, IPv6, GRE, Dot1Q, Ether, Raw = _frames()
    e = Ether(dst=MAC_B, src=MAC_A)
    inner_eth = bytes(Ether(dst="02:00:00:00:01:01", src="02:00:00:00:01:02") / IP() / UDP() / Raw(bytes(200)))
    inner_ip = bytes(IP(src="10.1.0.1", dst="10.1.0.2") / UDP() / Raw(bytes(200)))
    v4 = IP(src="192.0.2.1", dst="198.51.100.7")
    out = [
        ("ipv4_gre_6558", e / v4 / GRE(proto=0x6558) / Raw(inner_eth)),
        ("ipv4_gre_0800", e / v4 / GRE(proto=0x0800) / Raw(inner_ip)),
        ("ipv4_gre_key_6558", e / v4 / GRE(key_present=1, key=5, proto=0x6558) / Raw(inner_eth)),
        ("ipv4_gre_cks_6558", e / v4 / GRE(chksum_present=1, key_present=1, key=5, seqnum_present=1,
                                               proto=0x6558) / Raw(inner_eth)),
        ("ipv4_ihl15_gre_cks_6558", e / IP(src="192.0.2.1", dst="198.51.100.7", options=[NOP()] * 40)
         / GRE(chksum_present=1, key_present=1, key=5, seqnum_present=1, proto=0x6558) / Raw(inner_eth)),
        ("qinq_ipv4_ihl15_gre_cks_6558", Ether(dst=MAC_B, src=MAC_A, type=0x88A8) / Dot1Q(vlan=1, type=0x8100)
         / Dot1Q(vlan=2) / IP(src="192.0.2.1", dst="198.51.100.7", options=[NOP()] * 40)
         / GRE(chksum_present=1, key_present=1, key=5, seqnum_present=1, proto=0x6558) / Raw(inner_eth)),
        ("vlan_ipv4_gre_0800", Ether(dst=MAC_B, src=MAC_A) / Dot1Q(vlan=1) / v4 / GRE(proto=0x0800) / Raw(inner_ip)),
        ("ipv6_gre_6558", e / IPv6(src="2001:db8::1", dst="2001:db8::7", nh=47) / GRE(proto=0x6558) / Raw(inner_eth)),
        ("ipv6_gre_86dd", e / IPv6(src="2001:db8::1", dst="2001:db8::7", nh=47) / GRE(proto=0x86DD)
         / Raw(bytes(IPv6() / UDP() / Raw(bytes(100))))),
        ("pass_ipv4_udp", e / v4 / UDP() / Raw(bytes(200))),
        ("pass_arp", Ether(dst=MAC_B, src=MAC_A, type=0x0806) / Raw(bytes(46))),
    ]
    return [(n, bytes(p)) for n, p in out]


def gre92(proto):
    IP, UDP, _, _, GRE, _, Ether, Raw = _frames()
    inner = bytes(IP(src="10.1.0.1", dst="10.1.0.2") / UDP() / Raw(bytes(92 - 38 - 28))) if proto == 0x0800 \
        else bytes(Ether(dst="02:00:00:00:01:01", src="02:00:00:00:01:02") / Raw(bytes(92 - 38 - 14)))
    return bytes(Ether(dst=MAC_B, src=MAC_A) / IP(src="192.0.2.1", dst="198.51.100.7") / GRE(proto=proto) / Raw(inner))


class Bench:
    """Drives s_axis beat by beat (tdest/tlen on the first beat when present) and records
    the cycles of accepted input beats and offered/accepted output beats."""

    def __init__(self, dut):
        self.dut = dut
        self.w = len(dut.s_axis_tdata) // 8
        self.encap = hasattr(dut, "s_axis_tdest")
        self.has_tlen = hasattr(dut, "s_axis_tlen")  # fp_gre_encap; fp_gre_decap (used with LEN_IN = 1)
        self.cycle = 0
        self.ins, self.outs, self.stalls = [], [], 0
        for name in ("tvalid", "tlast", "tdata", "tkeep", "tuser"):
            getattr(dut, f"s_axis_{name}").value = 0
        if self.encap:
            dut.s_axis_tdest.value = 0
        if self.has_tlen:
            dut.s_axis_tlen.value = 0
        dut.m_axis_tready.value = 1
        cocotb.start_soon(self._watch())

    async def _watch(self):
        dut = self.dut
        offered = None
        while True:
            await RisingEdge(dut.clk)
            await ReadOnly()
            self.cycle += 1
            if high(dut.rst):
                continue
            if high(dut.s_axis_tvalid):
                if high(dut.s_axis_tready):
                    self.ins.append((self.cycle, high(dut.s_axis_tlast)))
                else:
                    self.stalls += 1
            if high(dut.m_axis_tvalid):
                if offered is None:
                    offered = self.cycle
                if high(dut.m_axis_tready):
                    self.outs.append((offered, self.cycle, high(dut.m_axis_tlast)))
                    offered = None

    async def send(self, frames, dest=0):
        dut, w = self.dut, self.w
        for data in frames:
            chunks = [data[i:i + w] for i in range(0, len(data), w)]
            for k, ch in enumerate(chunks):
                dut.s_axis_tdata.value = int.from_bytes(ch, "little")
                dut.s_axis_tkeep.value = (1 << len(ch)) - 1
                dut.s_axis_tlast.value = int(k == len(chunks) - 1)
                if self.encap:
                    dut.s_axis_tdest.value = dest
                if self.has_tlen:
                    dut.s_axis_tlen.value = len(data)
                dut.s_axis_tvalid.value = 1
                while True:
                    await ReadOnly()
                    ok = high(dut.s_axis_tready)
                    await RisingEdge(dut.clk)
                    if ok:
                        break
        dut.s_axis_tvalid.value = 0

    def clear(self):
        self.ins, self.outs, self.stalls = [], [], 0

    async def latency(self, frame, dest=0):
        self.clear()
        await self.send([frame], dest)
        await ClockCycles(self.dut.clk, 40 + len(frame) // self.w)
        return self.outs[0][0] - self.ins[0][0] if self.outs else None

    async def run(self, frames, dest=0):
        self.clear()
        await self.send(frames, dest)
        await ClockCycles(self.dut.clk, 60)
        first_in, last_in = self.ins[0][0], self.ins[-1][0]
        first_out, last_out = self.outs[0][1], self.outs[-1][1]
        in_cycles = last_in - first_in + 1
        out_cycles = last_out - first_out + 1
        return {
            "frames": len(frames), "frame_bytes": len(frames[0]),
            "input_beats": len(self.ins), "input_cycles": in_cycles,
            "output_beats": len(self.outs), "output_cycles": out_cycles,
            "input_stall_cycles": self.stalls,
            "bubbles": (out_cycles - len(self.outs)) if self.encap else (in_cycles - len(self.ins)),
            "frames_out": sum(o[2] for o in self.outs),
        }


def configure(dut, encap):
    if encap:
        n = len(dut.cfg_tun_enable)
        dut.cfg_tun_enable.value = (1 << n) - 1
        dut.cfg_tun_ipv6.value = 0b10 if n > 1 else 0
        dut.cfg_tun_l3.value = 0b100 if n > 2 else 0
        dut.cfg_tun_key_en.value = 0
        dut.cfg_tun_seq_en.value = 0
        dut.cfg_tun_mac_dst.value = int("02000000000b" * n, 16)
        dut.cfg_tun_mac_src.value = int("02000000000a" * n, 16)
        dut.cfg_tun_src.value = int(("20010db8" + "0" * 23 + "1") * n, 16) if n > 1 else 0xC0000201
        dut.cfg_tun_dst.value = int(("20010db8" + "0" * 23 + "7") * n, 16)
        dut.cfg_tun_ttl.value = int("40" * n, 16)
        dut.cfg_tun_key.value = 0
    else:
        dut.cfg_accept_all.value = 1
        dut.cfg_drop_unknown.value = 0
        dut.cfg_acc_valid.value = 0
        dut.cfg_acc_ipv6.value = 0
        dut.cfg_acc_addr.value = 0
        dut.cfg_acc_key_valid.value = 0
        dut.cfg_acc_key.value = 0


@cocotb.test()
async def measure(dut):
    cfg = json.loads(os.environ.get("FASTPATH_BENCH", "{}") or "{}")
    width = len(dut.s_axis_tdata)
    clock_mhz = float(cfg.get("clock_mhz", DEFAULT_CLOCK_MHZ.get(width, 200.0)))
    n = int(cfg.get("frames", 1000))
    size = int(cfg.get("size", 92))
    logging.getLogger("cocotb").setLevel(logging.WARNING)
    b = Bench(dut)
    encap = b.encap
    configure(dut, encap)
    cocotb.start_soon(Clock(dut.clk, round(1e6 / clock_mhz), unit="ps").start())
    dut.rst.value = 1
    await ClockCycles(dut.clk, 8)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 8)

    latency = {}
    runs = {}
    if encap:
        from scapy.layers.inet import IP, UDP
        from scapy.layers.l2 import Ether
        from scapy.packet import Raw
        frame = bytes(Ether(dst=MAC_B, src=MAC_A) / IP(src="10.1.0.1", dst="10.1.0.2") / UDP() / Raw(bytes(200)))
        tunnels = len(dut.cfg_tun_enable)
        names = ["ipv4_6558", "ipv6_6558", "ipv4_l3"][:tunnels]
        for dest, name in enumerate(names):
            latency[name] = await b.latency(frame, dest)
        run_frame = bytes(Ether(dst=MAC_B, src=MAC_A) / IP(src="10.1.0.1", dst="10.1.0.2") / UDP()
                          / Raw(bytes(max(0, size - 42))))[:size]
        runs[f"{size}B_ipv4_6558"] = await b.run([run_frame] * n, 0)
        headline = latency["ipv4_6558"]
    else:
        for name, frame in decap_variants():
            latency[name] = await b.latency(frame)
        for proto in (0x0800, 0x6558):
            frame = gre92(proto) if size == 92 else gre92(proto)[:size]
            runs[f"{len(frame)}B_ipv4_gre_{proto:04x}"] = await b.run([frame] * n)
        headline = latency["ipv4_gre_6558"]
    period_ns = 1000.0 / clock_mhz
    for r in runs.values():
        # Mpps: frames per cycle on the busier side, at the stated clock.
        cycles = r["output_cycles"] if encap else r["input_cycles"]
        r["mpps"] = round(r["frames"] / cycles * clock_mhz, 3)
        r["gbps_in"] = round(r["frames"] * r["frame_bytes"] * 8 / cycles * clock_mhz / 1000, 3)
    result = {
        "top": "fp_gre_encap" if encap else "fp_gre_decap", "data_width": width, "clock_mhz": clock_mhz,
        "latency_cycles": latency,
        "latency_ns": {k: (round(v * period_ns, 2) if v is not None else None) for k, v in latency.items()},
        "headline_latency_cycles": headline, "headline_latency_ns": round(headline * period_ns, 2),
        "runs": runs,
    }
    with open(os.environ["FASTPATH_BENCH_OUT"], "w") as fh:
        json.dump(result, fh, indent=1)
