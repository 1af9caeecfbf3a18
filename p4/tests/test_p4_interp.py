"""The reference interpreter: the shared programs on scapy-built packets and on real captures,
checked against results computed apart (scapy), and the parser-error semantics: a truncated or
malformed packet is never mangled."""
from __future__ import annotations

import random

import pytest
from scapy.all import ARP, IP, TCP, UDP, Ether, raw

from fastpath.frames import read_pcap
from fastpath.p4 import compiler, samples as S
from fastpath.p4.interp import Interpreter
from fastpath.p4.runtime import Runtime, TableStore
from fastpath.paths import VECTORS

BMV2 = VECTORS / "bmv2"
PCAPS = sorted((VECTORS / "pcap").glob("*.pcap")) if (VECTORS / "pcap").is_dir() else []
need_vectors = pytest.mark.skipif(not (BMV2 / "simple_router.json").exists(), reason=f"no shared BMv2 JSON in {BMV2}")
need_pcaps = pytest.mark.skipif(not PCAPS, reason="no shared captures")

ROUTES = {  # prefix -> (next hop, port, next hop MAC)
    ("10.0.0.0", 8): ("10.0.0.1", 1, "00:04:00:00:00:01"),
    ("10.1.0.0", 16): ("10.1.0.1", 2, "00:04:00:00:00:02"),
    ("10.1.2.0", 24): ("10.1.2.1", 3, "00:04:00:00:00:03"),
    ("0.0.0.0", 0): ("192.0.2.254", 4, "00:04:00:00:00:04"),
}
PORT_MAC = {p: f"00:aa:bb:00:00:0{p}" for p in range(5)}


def router(with_default_route=True):
    cfg = compiler.compile_file(BMV2 / "simple_router.json")
    store = TableStore(cfg)
    lines = ["table_set_default ipv4_lpm _drop", "table_set_default forward _drop",
             "table_set_default send_frame _drop"]
    for (net, plen), (nh, port, mac) in ROUTES.items():
        if plen or with_default_route:
            lines.append(f"table_add ipv4_lpm set_nhop {net}/{plen} => {nh} {port}")
        lines.append(f"table_add forward set_dmac {nh} => {mac}")
    lines += [f"table_add send_frame rewrite_mac {p} => {mac}" for p, mac in PORT_MAC.items()]
    Runtime(store).run("\n".join(lines))
    return Interpreter(cfg, store)


def expected_route(dst: str):
    """Longest prefix match written apart from the runtime, with the ipaddress module."""
    import ipaddress
    best = None
    for (net, plen), r in ROUTES.items():
        if ipaddress.IPv4Address(dst) in ipaddress.IPv4Network(f"{net}/{plen}") and (best is None or plen > best[0]):
            best = (plen, r)
    return best[1] if best else None


def routed_by_scapy(pkt: Ether, port: int, nh_mac: str) -> bytes:
    q = pkt.copy()
    q[Ether].dst, q[Ether].src = nh_mac, PORT_MAC[port]
    q[IP].ttl -= 1
    del q[IP].chksum
    return raw(Ether(raw(q)))


@need_vectors
def test_simple_router_on_scapy_packets():
    it = router()
    rng = random.Random(7)
    for i in range(150):
        dst = rng.choice(["10.0.0.", "10.1.0.", "10.1.2.", "192.168.7.", "10.9.9."]) + str(rng.randrange(256))
        l4 = rng.choice([TCP(sport=rng.randrange(65536), dport=80, flags="S"), UDP(sport=53, dport=5353)])
        pkt = Ether(dst="00:aa:bb:00:00:00", src="02:00:00:00:00:01") / \
            IP(src="198.51.100.7", dst=dst, ttl=rng.randrange(1, 256), id=i, tos=rng.randrange(256)) / l4 / \
            bytes(rng.randrange(40))
        res = it.process(raw(pkt), rng.randrange(5))
        nh, port, mac = expected_route(dst)
        assert res.outputs == [(port, routed_by_scapy(pkt, port, mac))], (dst, res.trace)
        out = Ether(res.outputs[0][1])
        assert out[IP].ttl == pkt[IP].ttl - 1
        chk = out[IP].chksum
        del out[IP].chksum
        assert IP(raw(out[IP])).chksum == chk  # scapy agrees with the recomputed checksum


@need_vectors
def test_simple_router_drops():
    it = router(with_default_route=False)
    pkt = Ether() / IP(dst="192.168.1.1") / UDP()
    r = it.process(raw(pkt), 0)
    assert r.dropped and r.outputs == [] and "ipv4_lpm miss -> _drop" in r.trace[0]
    # TTL 0 is not routed: out of port 0 (egress_spec 0) with the source MAC of port 0
    pkt = Ether(dst="00:aa:bb:00:00:00", src="02:00:00:00:00:01") / IP(dst="10.0.0.3", ttl=0) / UDP()
    r = it.process(raw(pkt), 2)
    want = bytearray(raw(pkt))
    want[6:12] = bytes.fromhex("00aabb000000")
    assert r.outputs == [(0, bytes(want))]
    # egress drop: no send_frame entry for the port
    it.store["send_frame"].clear()
    assert it.process(raw(Ether() / IP(dst="10.0.0.3") / UDP()), 0).dropped


@need_vectors
@need_pcaps
@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.stem)
def test_simple_router_on_captures(pcap):
    it = router()
    for n, f in enumerate(read_pcap(pcap)):
        pkt = Ether(f.data)
        res = it.process(f.data, 0)
        if pkt.type == 0x0800 and IP in pkt and pkt[IP].ihl == 5 and pkt[IP].ttl > 0 and len(f.data) >= 34:
            nh, port, mac = expected_route(pkt[IP].dst)
            assert res.outputs == [(port, routed_by_scapy(pkt, port, mac))], (pcap.name, n)
        elif pkt.type == 0x0800 and len(f.data) >= 34 and pkt[IP].ttl > 0:
            assert len(res.outputs) == 1  # IPv4 with options: routed, the options ride along as payload
        else:  # not IPv4 (VLAN, MPLS, ARP, PTP...) or TTL 0: port 0, only the source MAC changes
            want = bytearray(f.data)
            want[6:12] = bytes.fromhex(PORT_MAC[0].replace(":", ""))
            assert res.outputs == [(0, bytes(want))], (pcap.name, n)


@need_vectors
@need_pcaps
@pytest.mark.parametrize("pcap", PCAPS, ids=lambda p: p.stem)
def test_parser_deparser_is_the_identity_on_captures_and_their_truncations(pcap):
    """Every packet and every truncation of the first few: out of port 0 byte for byte."""
    it = Interpreter(compiler.compile_file(BMV2 / "parser_deparser_1.json"))
    frames = read_pcap(pcap)
    for f in frames:
        r = it.process(f.data, 3)
        assert r.outputs == [(0, f.data)] and r.parser_error == "NoError"
    for f in frames[:4]:
        for cut in range(0, min(len(f.data), 80)):
            r = it.process(f.data[:cut], 1)
            assert r.outputs == [(0, f.data[:cut])], (pcap.name, cut)
            eth = Ether(f.data)
            if cut < 14:
                assert r.parser_error == "PacketTooShort"
            elif eth.type == 0x0800 and cut < 34:
                assert r.parser_error == "PacketTooShort"
            elif eth.type != 0x0800:
                assert r.parser_error == "NoError"


@need_vectors
def test_parser_errors_of_the_shared_router():
    it = router()
    base = raw(Ether(dst="00:aa:bb:00:00:00", src="02:00:00:00:00:01") / IP(dst="10.0.0.3") / TCP())
    for cut in (0, 5, 13, 14, 20, 33):
        r = it.process(base[:cut], 0)
        assert r.parser_error == "PacketTooShort"
        want = bytearray(base[:cut])
        if cut >= 14:
            want[6:12] = bytes.fromhex("00aabb000000")
            assert r.outputs == [(0, bytes(want))]  # ethernet parsed: only its source MAC changes
        else:
            assert r.outputs == [(0, bytes(want))]  # nothing parsed: nothing emitted but the bytes


@need_vectors
def test_l2_switch_broadcast_learning_and_forwarding():
    cfg = compiler.compile_file(BMV2 / "l2_switch.json")
    store = TableStore(cfg)
    Runtime(store).run("""
        table_set_default smac mac_learn
        table_set_default dmac broadcast
        table_add smac _nop 00:00:00:00:00:01 =>
        table_add dmac forward 00:00:00:00:00:01 => 1
        mc_mgrp_create 1
        mc_node_create 0 1 2 3
        mc_node_associate 1 0
    """)
    it = Interpreter(cfg, store)
    pkt = raw(Ether(dst="ff:ff:ff:ff:ff:ff", src="00:00:00:00:00:02") / ARP())
    r = it.process(pkt, 2)
    assert r.outputs == [(1, pkt), (3, pkt)]  # flooded, but not back to port 2
    assert r.digests == [("mac_learn_digest", [2, 2])]  # the unknown source and its port
    pkt = raw(Ether(dst="00:00:00:00:00:01", src="00:00:00:00:00:01") / IP())
    r = it.process(pkt, 3)
    assert r.outputs == [(1, pkt)] and not r.digests


@need_vectors
def test_header_stack_pop():
    cfg = compiler.compile_file(BMV2 / "header_stack.json")
    store = TableStore(cfg)
    Runtime(store).run("table_set_default t1 a1 0xabcd")
    r = Interpreter(cfg, store).process(bytes.fromhex("000100020003000400050006"), 0)
    assert r.outputs == [(0, bytes.fromhex("abcd000400050006"))]


# --- hand-made v1model programs: parser errors, verify, stacks, lookahead, drops ----------------

def _v1(p):
    return Interpreter(compiler.compile_program(p, name="t"))


def _error_program():
    """ethernet, then vlan tags into a 2-element stack while etherType is 0x8100, then ipv4-ish;
    ingress sends a packet with a parser error to port 5 + the error code in ethernet.srcAddr."""
    p = S.minimal()
    S.add_header(p, "vlan[0]", "vlan_t", [("tci", 16), ("etherType", 16)])
    S.add_header(p, "vlan[1]", "vlan_t", [("tci", 16), ("etherType", 16)])
    S.add_header(p, "ip", "ip_t", [("vihl", 8), ("rest", 24)])
    p["header_stacks"] = [{"name": "vlan", "id": 0, "size": 2, "header_type": "vlan_t", "header_ids": [3, 4]}]
    p["parsers"][0]["parse_states"] = [
        S.state("start", ["ethernet"], key=[S.field("ethernet", "etherType")],
                transitions=[("0x8100", None, "vlan"), ("0x0800", None, "ip"), ("0x0000", "0xff00", "loop"),
                             ("0x88b5", None, "peek"), (None, None, None)]),
        {"name": "vlan", "id": 1, "parser_ops": [{"op": "extract", "parameters": [{"type": "stack", "value": "vlan"}]}],
         "transition_key": [{"type": "stack_field", "value": ["vlan", "etherType"]}],
         "transitions": [{"type": "hexstr", "value": "0x8100", "mask": None, "next_state": "vlan"},
                         {"type": "hexstr", "value": "0x0800", "mask": None, "next_state": "ip"}]},  # else NoMatch
        S.state("ip", ["ip"], ops=[{"op": "verify", "parameters": [
            S.expr("==", S.expr(">>", S.field("ip", "vihl"), S.const(4)), S.const(4)), S.const(5)]}]),  # HeaderTooShort
        S.state("loop", [], transitions=[(None, None, "loop")]),  # consumes nothing: ParserTimeout
        {"name": "peek", "id": 4, "parser_ops": [],
         "transition_key": [{"type": "lookahead", "value": [0, 8]}],
         "transitions": [{"type": "hexstr", "value": "0x45", "mask": "0xf0", "next_state": "ip"},
                         {"type": "default", "value": None, "mask": None, "next_state": None}]},
    ]
    p["deparsers"][0]["order"] = ["ethernet", "vlan[0]", "vlan[1]", "ip"]
    p["actions"].append(S.action(1, "on_error", [
        S.set_egress(5), S.assign(S.field("ethernet", "srcAddr"), S.field("standard_metadata", "parser_error"))]))
    S.ingress(p)["tables"].append(S.table(0, "tbl_err", [], [(1, "on_error")], default=(1, [])))
    S.ingress(p)["conditionals"].append({
        "name": "node_1", "id": 0, "true_next": "tbl_err", "false_next": None,
        "expression": S.expr("!=", S.field("standard_metadata", "parser_error"), S.const(1))})
    S.ingress(p)["init_table"] = "node_1"
    return p


ETH = bytes.fromhex("001122334455 000000000001").replace(b" ", b"")


def _err_out(data: bytes, code: int) -> bytes:
    return data[:6] + code.to_bytes(6, "big") + data[12:]


@pytest.mark.parametrize("name,data,error", [
    ("good vlan-vlan-ip", ETH + bytes.fromhex("8100 0001 8100 0002 0800 45000000 99".replace(" ", "")), None),
    ("runt", ETH[:9], "PacketTooShort"),
    ("vlan cut", ETH + bytes.fromhex("8100 00".replace(" ", "")), "PacketTooShort"),
    ("three tags", ETH + bytes.fromhex("8100 0001 8100 0002 8100 0003 0800".replace(" ", "")), "StackOutOfBounds"),
    ("no match", ETH + bytes.fromhex("8100 0001 86dd 6000".replace(" ", "")), "NoMatch"),
    ("verify", ETH + bytes.fromhex("0800 60000000 77".replace(" ", "")), "HeaderTooShort"),
    ("loop", ETH + bytes.fromhex("0001 0203".replace(" ", "")), "ParserTimeout"),
    ("lookahead ip", ETH + bytes.fromhex("88b5 45010203 ab".replace(" ", "")), None),
    ("lookahead other", ETH + bytes.fromhex("88b5 65010203".replace(" ", "")), None),
    ("lookahead cut", ETH + bytes.fromhex("88b5".replace(" ", "")), "PacketTooShort"),
])
def test_parser_error_semantics(name, data, error):
    """v1model: a parser error stops parsing, sets standard_metadata.parser_error, and ingress
    still runs; unparsed bytes are payload, so the packet is never mangled."""
    it = _v1(_error_program())
    r = it.process(data, 0)
    if error is None:
        assert r.parser_error == "NoError" and r.outputs == [(0, data)], r.trace
    else:
        assert r.parser_error == error
        code = dict(S.V1MODEL_ERRORS)[error]
        if len(data) >= 14:
            assert r.outputs == [(5, _err_out(data, code))], r.trace
        else:  # ethernet itself was not extracted: only the untouched bytes come out
            assert r.outputs == [(5, data)]


def test_checksum_verify_update_and_condition():
    p = S.minimal()
    S.add_header(p, "h", "h_t", [("a", 16), ("b", 16), ("csum", 16), ("flag", 8)])
    p["parsers"][0]["parse_states"][0]["parser_ops"].append({"op": "extract", "parameters": [
        {"type": "regular", "value": "h"}]})
    p["deparsers"][0]["order"].append("h")
    p["calculations"] = [{"name": "calc", "id": 0, "algo": "csum16",
                          "input": [S.field("h", "a"), S.field("h", "b"), {"type": "hexstr", "value": "0x11",
                                                                           "bitwidth": 8},
                                    S.field("h", "flag")]}]
    p["checksums"] = [{"name": "ck", "id": 0, "target": ["h", "csum"], "type": "generic", "calculation": "calc",
                       "if_cond": S.expr("!=", S.field("h", "flag"), S.const(0xff))}]
    p["actions"].append(S.action(1, "err", [S.set_egress(7)]))
    S.ingress(p)["tables"].append(S.table(0, "t", [], [(1, "err")], default=(1, [])))
    S.ingress(p)["conditionals"].append({"name": "c", "id": 0, "true_next": "t", "false_next": None,
                                         "expression": S.expr("==", S.field("standard_metadata", "checksum_error"),
                                                              S.const(1))})
    S.ingress(p)["init_table"] = "c"
    it = _v1(p)

    def csum(words):
        s = sum(words)
        while s >> 16:
            s = (s & 0xFFFF) + (s >> 16)
        return ~s & 0xFFFF

    a, b, flag = 0x1234, 0xF00F, 0x22
    good = csum([a, b, 0x1100 | flag])
    hdr = lambda c, f=flag: a.to_bytes(2, "big") + b.to_bytes(2, "big") + c.to_bytes(2, "big") + bytes([f])  # noqa
    eth = bytes(12) + b"\x88\xb5"
    r = it.process(eth + hdr(good) + b"pay", 0)
    assert r.outputs == [(0, eth + hdr(good) + b"pay")]
    r = it.process(eth + hdr(0xDEAD), 0)  # wrong on input: checksum_error, fixed on output
    assert r.outputs == [(7, eth + hdr(good))]
    r = it.process(eth + hdr(0xDEAD, 0xFF), 0)  # if_cond false: neither verified nor updated
    assert r.outputs == [(0, eth + hdr(0xDEAD, 0xFF))]


def test_header_ops_drop_exit_and_egress():
    p = S.minimal()
    S.add_header(p, "copy", "ethernet_t", [])
    S.add_header(p, "st[0]", "tag_t", [("v", 16)])
    S.add_header(p, "st[1]", "tag_t", [("v", 16)])
    p["header_stacks"] = [{"name": "st", "id": 0, "size": 2, "header_type": "tag_t", "header_ids": [4, 5]}]
    p["deparsers"][0]["order"] = ["copy", "st[0]", "st[1]", "ethernet"]
    h = lambda n: {"type": "header", "value": n}  # noqa: E731
    p["actions"] += [
        S.action(1, "encap", [S.prim("assign_header", h("copy"), h("ethernet")),
                              S.prim("push", {"type": "header_stack", "value": "st"}, S.const(1)),
                              S.prim("add_header", h("st[0]")),
                              S.assign(S.field("st[0]", "v"), S.param(0)),
                              S.assign(S.field("copy", "etherType"), S.const(0x9999)),
                              S.set_egress(2)], [("v", 16)]),
        S.action(2, "quit", [S.set_egress(3), S.prim("exit"), S.set_egress(4)]),
        S.action(3, "kill", [S.prim("mark_to_drop", h("standard_metadata"))]),
        S.action(4, "strip", [S.prim("remove_header", h("ethernet"))]),
    ]
    acts = [(1, "encap"), (2, "quit"), (3, "kill"), (4, "strip")]
    ing = S.ingress(p)
    ing["tables"] += [S.table(0, "first", [("exact", ["ethernet", "etherType"])], acts, next_node="second"),
                      S.table(1, "second", [("exact", ["ethernet", "etherType"])], acts)]
    ing["init_table"] = "first"
    eg = p["pipelines"][1]
    eg["tables"].append(S.table(2, "eg", [("exact", ["standard_metadata", "egress_port"])], acts))
    eg["init_table"] = "eg"
    cfg = compiler.compile_program(p)
    store = TableStore(cfg)
    Runtime(store).run("table_add first encap 0x0800 => 0x0abc\ntable_add first quit 0x0806 =>\n"
                       "table_add second strip 0x0806 =>\ntable_add eg kill 6 =>\n"
                       "table_add first kill 0x88cc =>\ntable_add first strip 0x88b5 =>")
    it = Interpreter(cfg, store)
    eth = bytes.fromhex("0000000000020000000000010800")
    r = it.process(eth + b"xy", 0)
    assert r.outputs == [(2, eth[:12] + b"\x99\x99" + b"\x0a\xbc" + eth + b"xy")]
    arp = eth[:12] + b"\x08\x06"
    r = it.process(arp, 0)  # exit: port 3 and "second" never runs (it would strip ethernet)
    assert r.outputs == [(3, arp)]
    assert it.process(eth[:12] + b"\x88\xcc", 0).dropped  # mark_to_drop in ingress
    store["first"].clear()
    Runtime(store).run("table_set_default first encap 0\ntable_delete eg 0\ntable_add eg kill 2 =>")
    assert it.process(eth, 0).dropped  # mark_to_drop in egress
    r = Interpreter(cfg, TableStore(cfg))
    Runtime(r.store).run("table_add first strip 0x88b5 =>")
    assert r.process(eth[:12] + b"\x88\xb5" + b"zz", 0).outputs == [(0, b"zz")]  # setInvalid: not emitted
