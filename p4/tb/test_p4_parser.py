"""fp_p4_parser: the RTL's PHV, validity, parser_error and payload offset against the reference
interpreter's parser (fastpath.p4.interp), for every shared BMv2 program the compiler accepts,
the built-in full mode and hand-made programs (ParserTimeout loop, lookahead); packets are
random bytes, scapy-built stacks (VLAN, MPLS, IPv4 with options and bad IHL, IPv6, TCP, UDP,
VXLAN), truncations and the real captures in shared/vectors/pcap.

Three results must agree on every packet: the interpreter's (`parser_load.reference`), the
loader's hardware model (`Image.model`, bit-exact with the RTL and giving each path's cycles) and
the RTL's. The pure-Python tests compare the first two on every capture packet; the cocotb test
compares the RTL with both on a sample, under random backpressure (s_axis pauses, m_axis and
m_phv ready), checks that the packet stream passes through unchanged (latency 1), and asserts
the m_phv latency exactly (10 + sum of T(s) over the path) for every packet whose window found
the engine idle, and as a lower bound for the others. Error paths are counted and must occur.
"""
from __future__ import annotations

import glob
import os
import random
from pathlib import Path

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath.p4 import parser_load as pl
from fastpath.p4 import samples
from fastpath.p4.compiler import compile_file, compile_program
from fastpath.sim import runner
from fastpath.sim.axis import AxisHarness
from fastpath.sim.tb import params, rng, start

ROOT = Path(__file__).resolve().parents[2]
BMV2 = ROOT.parent / "shared" / "vectors" / "bmv2"
PCAP = ROOT.parent / "shared" / "vectors" / "pcap"


# ---- programs ----------------------------------------------------------------------------------

def timeout_program() -> dict:
    """Ethernet, then on etherType 0x9999 a state that loops on itself consuming nothing (its
    lookahead key keeps it a real state): ParserTimeout in both the interpreter and the RTL."""
    p = samples.minimal()
    p["program"] = "timeout_loop.p4"
    la = {"type": "lookahead", "value": [0, 8]}
    p["parsers"][0]["parse_states"] = [
        samples.state("start", ["ethernet"], key=[samples.field("ethernet", "etherType")],
                      transitions=[("0x9999", None, "spin"), (None, None, None)]),
        samples.state("spin", key=[la], transitions=[("0x00", "0x00", "spin")]),
    ]
    return p


def lookahead_program() -> dict:
    """Ethernet, then a choice on the next two bytes (lookahead, not consumed): a 4-byte tag into
    a stack of 3 (extract_next) when they are 0xABxx, accept when 0x0000, else NoMatch; after a
    tag, its len field's top bit ends parsing, else the next two bytes are looked at again."""
    p = samples.minimal()
    p["program"] = "lookahead.p4"
    for k in range(3):
        samples.add_header(p, f"tag[{k}]", "tag_t", [("kind", 8), ("len", 8), ("value", 16)])
    ids = [h["id"] for h in p["headers"] if h["name"].startswith("tag[")]
    p["header_stacks"] = [{"name": "tag", "id": 0, "header_type": "tag_t", "size": 3, "header_ids": ids}]
    la = {"type": "lookahead", "value": [0, 16]}
    tag = samples.state("parse_tag", key=[{"type": "stack_field", "value": ["tag", "len"]}],
                        transitions=[("0x80", "0x80", None), (None, None, "peek")])
    tag["parser_ops"] = [{"op": "extract", "parameters": [{"type": "stack", "value": "tag"}]}]
    p["parsers"][0]["parse_states"] = [
        samples.state("start", ["ethernet"], transitions=[(None, None, "peek")]),
        samples.state("peek", key=[la], transitions=[("0xab00", "0xff00", "parse_tag"), ("0x0000", None, None)]),
        tag,
    ]
    return p


def programs() -> list[tuple[str, object]]:
    out = [("full_mode", pl.full_mode_config())]
    for f in sorted(glob.glob(str(BMV2 / "*.json"))):
        out.append((Path(f).stem, compile_file(f)))
    out.append(("timeout_loop", compile_program(timeout_program(), "timeout_loop")))
    out.append(("lookahead", compile_program(lookahead_program(), "lookahead")))
    return out


# ---- packets -----------------------------------------------------------------------------------

def capture_packets() -> list[bytes]:
    from scapy.all import rdpcap
    out = []
    for f in sorted(glob.glob(str(PCAP / "*.pcap"))):
        out += [bytes(p) for p in rdpcap(f)]
    return out


def _mac(r):
    return bytes(r.getrandbits(8) for _ in range(6))


def stacked_packet(r: random.Random) -> bytes:
    """Ethernet, 0-4 VLAN tags, 0-4 MPLS labels, IPv4 (IHL 0-15, options) / IPv6 / other, TCP /
    UDP / VXLAN + inner Ethernet, a payload; built byte by byte so that bad values are possible."""
    from scapy.all import IP, TCP, UDP, Ether, IPv6, raw
    from scapy.layers.vxlan import VXLAN

    def l4(proto_choice):
        if proto_choice == "tcp":
            return raw(TCP(sport=r.randrange(65536), dport=r.randrange(65536), flags="S"))
        if proto_choice == "udp":
            return raw(UDP(sport=r.randrange(65536), dport=r.choice([53, 4789, 4790])))[:8]
        if proto_choice == "vxlan":
            inner = raw(Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02", type=r.choice([0x0800, 0x86DD])))
            return raw(UDP(sport=r.randrange(65536), dport=4789))[:8] + raw(VXLAN(vni=r.randrange(1 << 24)))[:8] + inner
        return bytes(r.getrandbits(8) for _ in range(r.randint(0, 12)))

    kind = r.choice(["tcp", "udp", "vxlan", "other"])
    proto = {"tcp": 6, "udp": 17, "vxlan": 17, "other": r.choice([1, 47, 6, 17])}[kind]
    l3kind = r.choice(["ipv4", "ipv4", "ipv6", "other"])
    if l3kind == "ipv4":
        ihl = r.choice([5, 5, 5, 6, 8, 15, 4, 0, 3])
        ip = bytearray(raw(IP(src="10.0.0.1", dst="10.0.0.2", proto=proto, ttl=64)))
        ip[0] = 0x40 | ihl
        l3 = bytes(ip) + bytes(r.getrandbits(8) for _ in range(max(0, ihl - 5) * 4))
        etype = 0x0800
    elif l3kind == "ipv6":
        l3 = raw(IPv6(src="fe80::1", dst="fe80::2", nh=proto))[:40]
        etype = 0x86DD
    else:
        l3 = bytes(r.getrandbits(8) for _ in range(r.randint(0, 24)))
        etype = r.choice([0x0806, 0x88F7, 0x1234])
    body = l3 + l4(kind)
    nmpls = r.choice([0, 0, 1, 2, 3, 4])
    if nmpls:
        labels = b""
        for k in range(nmpls):
            bos = 1 if k == nmpls - 1 else 0
            labels += (r.randrange(1 << 20) << 12 | r.randrange(8) << 9 | bos << 8 | 64).to_bytes(4, "big")
        body, etype = labels + body, 0x8847
    ntags = r.choice([0, 0, 1, 2, 3, 4])
    for _ in range(ntags):
        body = (r.randrange(1 << 16)).to_bytes(2, "big") + etype.to_bytes(2, "big") + body
        etype = r.choice([0x8100, 0x88A8])
    pkt = _mac(r) + _mac(r) + etype.to_bytes(2, "big") + body
    pkt += bytes(r.getrandbits(8) for _ in range(r.randint(0, 30)))
    return pkt


def simple_packet(r: random.Random) -> bytes:
    from scapy.all import IP, TCP, UDP, Ether, raw
    l4 = r.choice([TCP(dport=80), UDP(dport=53), b"\x00" * 4])
    p = Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02") / IP(src="10.1.2.3", dst="10.3.2.1") / l4
    return raw(p) + bytes(r.getrandbits(8) for _ in range(r.randint(0, 20)))


def tagged_packet(r: random.Random) -> bytes:
    """For lookahead.p4 and timeout_loop.p4: Ethernet + tags (0xAB, len) / 0x0000 / other."""
    etype = r.choice([0x9999, 0x9999, 0x0800, 0x1111])
    body = b""
    for _ in range(r.randint(0, 4)):
        body += bytes([0xAB, r.choice([0, 1, 0x80, 0x81, 4]), r.getrandbits(8), r.getrandbits(8)])
    body += r.choice([b"\x00\x00", b"\x12\x34", b"\xab", b""])
    return _mac(r) + _mac(r) + etype.to_bytes(2, "big") + body + bytes(r.getrandbits(8) for _ in range(r.randint(0, 8)))


def packets(name: str, r: random.Random, n: int, captures: list[bytes]) -> list[bytes]:
    """n packets for a program: built, random, captured, and truncations of them."""
    out = []
    for _ in range(n):
        x = r.random()
        if x < 0.15 and captures:
            p = r.choice(captures)
        elif x < 0.25:
            p = bytes(r.getrandbits(8) for _ in range(r.randint(1, 160)))
        elif name in ("timeout_loop", "lookahead"):
            p = tagged_packet(r)
        elif name == "full_mode" or x < 0.6:
            p = stacked_packet(r)
        else:
            p = simple_packet(r)
        if r.random() < 0.25:
            p = p[:r.randint(1, min(len(p), 80))]
        out.append(p[:1518] if p else b"\x00")
    return out


# ---- pure-Python checks: the model against the interpreter ----------------------------------------

def test_model_matches_interpreter():
    """Every capture packet (and its truncations), built and random packets: the loader's hardware
    model gives the interpreter's parser result, for every program. Error paths are counted."""
    caps = capture_packets() if PCAP.is_dir() else []
    r = random.Random(4)
    seen = {}
    for name, cfg in programs():
        img = pl.load(cfg)
        pk = list(caps) + [c[:k] for c in caps[:40] for k in (1, 13, 14, 15, 17, 30, 40, 60)]
        pk += packets(name, r, 400, caps)
        for p in pk:
            m = img.model(p)
            ref = pl.reference(cfg, p, img.geometry.phv_bits)
            assert (m.phv, m.valid, m.error, m.offset) == ref, (name, p.hex(), m, ref)
            err = {v: k for k, v in cfg.errors.items()}.get(m.error)
            seen[(name, err)] = seen.get((name, err), 0) + 1
    for err in ("PacketTooShort", "StackOutOfBounds", "HeaderTooShort", "NoError"):
        assert seen.get(("full_mode", err), 0) > 5, (err, seen)
    assert seen.get(("timeout_loop", "ParserTimeout"), 0) > 5, seen
    assert seen.get(("lookahead", "NoMatch"), 0) > 5, seen


def test_full_mode_paths():
    """Crafted full-mode packets take the stated paths and errors (and the stated latency)."""
    img = pl.full_mode()
    cfg = pl.full_mode_config()
    eth = bytes(12)
    tcp = bytes(20)
    ipv4 = bytes([0x45]) + bytes(8) + bytes([6]) + bytes(10)
    m = img.model(eth + b"\x08\x00" + ipv4 + tcp)
    assert m.path == ["parse_ethernet", "parse_ipv4", "parse_tcp"] and m.error == cfg.errors["NoError"]
    assert m.offset == 54 and m.latency == 10 + 24
    three = b"".join(b"\x00\x01\x81\x00" for _ in range(3))
    m = img.model(eth + b"\x81\x00" + three + b"\x00\x01\x08\x00" + bytes(30))
    assert m.error == cfg.errors["StackOutOfBounds"] and m.offset == 26
    bad = bytes([0x43]) + ipv4[1:]
    m = img.model(eth + b"\x08\x00" + bad + tcp)
    assert m.error == cfg.errors["HeaderTooShort"] and m.offset == 34
    opts = bytes([0x47]) + ipv4[1:] + bytes(8)
    m = img.model(eth + b"\x08\x00" + opts + tcp)
    assert m.error == cfg.errors["NoError"] and m.offset == 14 + 28 + 20
    m = img.model(eth + b"\x08\x00" + ipv4[:10])
    assert m.error == cfg.errors["PacketTooShort"] and m.offset == 14
    assert img.reach == 128 and img.longest == 11


def _bad(mutate) -> str:
    p = samples.minimal()
    mutate(p)
    with pytest.raises(pl.ParserLoadError) as e:
        pl.load(compile_program(p))
    msg = str(e.value)
    assert "\n" not in msg
    return msg


def test_refusals():
    """What the hardware cannot do is refused with one line naming the construct."""
    def set_op(p):
        st = p["parsers"][0]["parse_states"][0]
        st["parser_ops"].append({"op": "set", "parameters": [samples.field("standard_metadata", "egress_spec"),
                                                             samples.const(1, 9)]})
    assert 'parser state "start" op 1 (primitive)' in _bad(set_op)

    def wide_key(p):
        st = p["parsers"][0]["parse_states"][0]
        st["transition_key"] = [samples.field("ethernet", "dstAddr")]
        st["transitions"] = [{"type": "hexstr", "value": "0x01", "mask": None, "next_state": None},
                             {"type": "default", "value": None, "mask": None, "next_state": None}]
    assert "KEY_BYTES" in _bad(wide_key)

    def far_lookahead(p):
        st = p["parsers"][0]["parse_states"][0]
        st["transition_key"] = [{"type": "lookahead", "value": [8 * 200, 8]}]
        st["transitions"] = [{"type": "hexstr", "value": "0x01", "mask": None, "next_state": None},
                             {"type": "default", "value": None, "mask": None, "next_state": None}]
    assert "HDR_BYTES" in _bad(far_lookahead)

    def loop(p):
        st = p["parsers"][0]["parse_states"][0]
        st["transitions"] = [{"type": "default", "value": None, "mask": None, "next_state": "start"}]
    assert "parser loop start" in _bad(loop)

    def valid_key(p):
        st = p["parsers"][0]["parse_states"][0]
        st["transition_key"] = [{"type": "field", "value": ["ethernet", "$valid$"]}]
        st["transitions"] = [{"type": "hexstr", "value": "0x01", "mask": None, "next_state": None},
                             {"type": "default", "value": None, "mask": None, "next_state": None}]
    assert "validity" in _bad(valid_key)

    def odd_advance(p):
        st = p["parsers"][0]["parse_states"][0]
        st["parser_ops"].append({"op": "advance", "parameters": [samples.expr(
            "+", samples.field("ethernet", "etherType"), samples.const(8, 16))]})
    assert "one byte" in _bad(odd_advance)


# ---- the cocotb test --------------------------------------------------------------------------

class Bench:
    def __init__(self, dut):
        self.dut = dut
        self.p = params()
        self.g = pl.Geometry.from_params(self.p)
        self.hb = self.g.hdr_bytes
        self.r = rng()
        self.cycle = 0
        self.win_cycles = []      # per packet: the cycle of the beat completing its window
        self.results = []         # (first offered cycle, data, hvalid, error, offset)
        self.nbytes = 0
        self.offered = None
        self.phv_ready_p = 0.0
        self.h = AxisHarness(dut, dut.clk, dut.rst)

    async def monitor(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            await ReadOnly()
            self.cycle += 1
            if int(d.s_axis_tvalid.value) and int(d.s_axis_tready.value):
                last = int(d.s_axis_tlast.value)
                before = self.nbytes
                self.nbytes += bin(int(d.s_axis_tkeep.value)).count("1")
                if before < self.hb and (self.nbytes >= self.hb or last):
                    self.win_cycles.append(self.cycle)
                if last:
                    self.nbytes = 0
            if int(d.m_phv_tvalid.value):
                if self.offered is None:
                    self.offered = self.cycle
                if int(d.m_phv_tready.value):
                    self.results.append((self.offered, int(d.m_phv_data.value), int(d.m_phv_hvalid.value),
                                         int(d.m_phv_error.value), int(d.m_phv_offset.value)))
                    self.offered = None

    async def phv_ready(self):
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            d.m_phv_tready.value = int(self.r.random() >= self.phv_ready_p)

    async def load(self, img: pl.Image):
        d = self.dut
        for addr, data in img.writes():
            await RisingEdge(d.clk)
            d.cfg_wr_valid.value = 1
            d.cfg_wr_addr.value = addr
            d.cfg_wr_data.value = data
        await RisingEdge(d.clk)
        d.cfg_wr_valid.value = 0

    async def run_program(self, name, cfg, caps, n, stats):
        img = pl.load(cfg, self.g)
        await self.load(img)
        pk = packets(name, self.r, n, caps)
        base_in, base_out = len(self.win_cycles), len(self.results)
        # first half: paced, m_phv always ready (exact latency); second half: back to back, all stalls
        half = n // 2
        self.phv_ready_p = 0.0
        self.h.backpressure(self.r, source_p=0.2, sink_p=0.0)
        for k, p in enumerate(pk):
            if k == half:
                self.phv_ready_p = 0.3
                self.h.backpressure(self.r, source_p=0.2, sink_p=0.3)
            await self.h.send([p])
            if k < half:
                await self.h.source.wait()
                for _ in range(self.r.randint(0, 60)):
                    await RisingEdge(self.dut.clk)
        got = await self.h.recv(len(pk))
        for k, (p, f) in enumerate(zip(pk, got)):
            assert bytes(f.tdata) == p, (name, k)
        for _ in range(2000):
            if len(self.results) >= base_out + len(pk):
                break
            await RisingEdge(self.dut.clk)
        assert len(self.results) == base_out + len(pk), (name, len(self.results) - base_out, len(pk))
        errs = {v: k for k, v in cfg.errors.items()}
        prev_offered = -1
        for k, p in enumerate(pk):
            offered, phv, hvalid, error, offset = self.results[base_out + k]
            m = img.model(p)
            ref = pl.reference(cfg, p, self.g.phv_bits)
            assert (m.phv, m.valid, m.error, m.offset) == ref, (name, k, p.hex())
            assert (phv, hvalid, error, offset) == (m.phv, m.valid, m.error, m.offset), \
                (name, k, p.hex(), hex(phv ^ m.phv), hvalid, m.valid, error, m.error, offset, m.offset, m.path)
            lat = offered - self.win_cycles[base_in + k]
            if k < half and prev_offered <= self.win_cycles[base_in + k] + 1:
                assert lat == m.latency, (name, k, lat, m.latency, m.path)
                stats["exact"] += 1
            else:
                assert lat >= m.latency, (name, k, lat, m.latency)
            prev_offered = offered
            key = f"{name}:{errs.get(error, error)}"
            stats[key] = stats.get(key, 0) + 1
        self.dut._log.info("%s: %d packets, %d states, reach %d bytes, longest path %d states",
                           name, len(pk), len(img.states), img.reach, img.longest)


@cocotb.test()
async def parse_programs(dut):
    b = Bench(dut)
    dut.cfg_wr_valid.value = 0
    dut.cfg_wr_addr.value = 0
    dut.cfg_wr_data.value = 0
    dut.m_phv_tready.value = 1
    cocotb.start_soon(b.monitor())
    await start(dut)
    cocotb.start_soon(b.phv_ready())
    caps = capture_packets() if PCAP.is_dir() else []
    stats = {"exact": 0}
    n = int(os.environ.get("FP_PARSER_PACKETS", "80"))
    for name, cfg in programs():
        await b.run_program(name, cfg, caps, n if name in ("full_mode",) else n // 2, stats)
    dut._log.info("stats %s", stats)
    assert stats["exact"] >= 20
    for key in ("full_mode:PacketTooShort", "full_mode:NoError", "full_mode:StackOutOfBounds",
                "full_mode:HeaderTooShort", "timeout_loop:ParserTimeout", "lookahead:NoMatch"):
        assert stats.get(key, 0) > 0, (key, stats)


@pytest.mark.parametrize("data_width", [64, 256, 512])
def test_p4_parser(data_width):
    runner.run("fp_p4_parser", __name__, {"DATA_WIDTH": data_width})
