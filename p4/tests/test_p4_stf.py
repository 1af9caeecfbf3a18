"""The STF runner: our STF tests of the shared programs pass on the reference interpreter and on
the RTL pipeline in simulation (fastpath.p4.rtl_backend: every one of them, with the table
commands rewriting the TCAM rows between packets); failures and bad statements are reported
precisely; the backend can be swapped."""
from __future__ import annotations

from pathlib import Path

import pytest

from fastpath.p4 import compiler, stf
from fastpath.paths import VECTORS

BMV2 = VECTORS / "bmv2"
STF_DIR = Path(__file__).parent / "stf"
TESTS = sorted(STF_DIR.glob("*.stf"))
need_vectors = pytest.mark.skipif(not (BMV2 / "simple_router.json").exists(), reason=f"no shared BMv2 JSON in {BMV2}")


def backend(name: str):
    return stf.InterpreterBackend(compiler.compile_file(BMV2 / f"{name}.json"))


def test_the_required_stf_tests_exist():
    names = {p.stem for p in TESTS}
    assert {"simple_router", "ternary", "LPM_match_1"} <= names
    assert names & {"l2_switch", "parser_deparser_1"}


@need_vectors
@pytest.mark.parametrize("test", TESTS, ids=lambda p: p.stem)
def test_stf_files_pass(test):
    report = stf.run(test.read_text(), backend(test.stem), name=test.name)
    assert report.checks and report.ok, "\n".join(str(c) for c in report.checks if not c.ok)
    assert report.passed == len([ln for ln in test.read_text().splitlines()
                                 if ln.split("#")[0].strip().startswith(("expect", "no_packet"))])


@need_vectors
@pytest.mark.parametrize("test", [t for t in TESTS if t.stem in ("simple_router", "l2_switch", "LPM_match_1")],
                         ids=lambda p: p.stem)
def test_stf_files_pass_on_the_rtl(test):
    from fastpath.p4 import rtl_backend
    r = rtl_backend.run_job({"kind": "stf", "program": str(BMV2 / f"{test.stem}.json"), "text": test.read_text(),
                             "name": test.name})
    assert "error" not in r and r["checks"], r
    bad = [c for c in r["checks"] if not c[2]]
    assert not bad, bad
    assert len(r["checks"]) == len([ln for ln in test.read_text().splitlines()
                                    if ln.split("#")[0].strip().startswith(("expect", "no_packet"))])


@need_vectors
def test_failures_are_reported_one_per_expectation():
    text = """
        packet 0 0001 AABB
        expect 0 0001 AABC
        packet 0 0002
        expect 1 0002
        expect 0 0002 00
        packet 0 0003 FF
        expect 0 00
        packet 0 0004 EE
        expect 0 0004 $
        packet 0 0005
        expect 3
    """
    r = stf.run(text, backend("ternary"), name="t.stf")  # no entries: everything leaves on port 0
    by_line = {c.line: c for c in r.checks}
    assert not by_line[3].ok and by_line[3].detail.startswith("nibble 7 (byte 3) differs: expected BC, got BB")
    assert not by_line[5].ok and "no packet came out of port 1" in by_line[5].detail
    assert not by_line[6].ok and "shorter" in by_line[6].detail
    assert by_line[8].ok  # a prefix matches
    assert not by_line[10].ok and "expected exactly 2" in by_line[10].detail
    assert by_line[12].ok  # expect 3 alone: any packets on port 3 (none here)
    assert not by_line[11].ok and "unexpected packet on port 0: 0005" in by_line[11].detail
    assert (r.passed, r.failed) == (2, 5) and not r.ok
    assert str(by_line[3]).startswith("FAIL line 3: expect 0 0001 AABC -- nibble 7")


@need_vectors
@pytest.mark.parametrize("line,words", [
    ("add nosuch 0x1:0x2 a()", ["t.stf:2", "no table 'nosuch'"]),
    ("add ter 10 hdr.f1:0x11** nosuch()", ["t.stf:2", "no action 'nosuch'"]),
    ("add ter 10 hdr.f9:0x11** send_1()", ["t.stf:2", "no key fields named 'hdr.f9'", "h.hdr.f1"]),
    ("add ter 10 hdr.f1:0x11** send_1(port:1)", ["has no parameter 'port'"]),
    ("add ter 10 hdr.f1:0x11**", ["no action call"]),
    ("packet 0 12G4", ["hex digits"]),
    ("packet 0 123", ["odd number of hex digits"]),
    ("packet x 1234", ["expected 'packet PORT HEX...'"]),
    ("expect 0 12$34", ["'$' only at the end"]),
    ("check_counter c(0) packets == 1", ["counters and registers"]),
    ("frobnicate", ["unknown statement 'frobnicate'"]),
    ("no_packet", ["no_packet before any packet"]),
    ("add ter 10 hdr.f1:0x1ffff send_1()", ["does not fit in 16 bits"]),
])
def test_bad_statements(line, words):
    with pytest.raises(stf.StfError) as e:
        stf.run(f"# test\n{line}\n", backend("ternary"), name="t.stf")
    msg = str(e.value)
    assert "\n" not in msg
    for w in words:
        assert w in msg, msg


@need_vectors
def test_stf_key_forms():
    b = backend("simple_router")
    stf.run("""
        add ipv4_lpm dstAddr:0x0a01**** set_nhop(nhop_ipv4:1, port:2)
        add ipv4_lpm ipv4.dstAddr:0x0b000000/8 set_nhop(nhop_ipv4:1, port:3)
        add forward routing_metadata.nhop_ipv4:0x00000001 set_dmac(dmac:0x0000000000ff) = H1
    """, b)
    entries = sorted(b.tables["ipv4_lpm"].entries.values(), key=lambda e: e.handle)
    assert [e.key for e in entries] == [[["lpm", 0x0A010000, 16]], [["lpm", 0x0B000000, 8]]]
    tb = backend("ternary")
    stf.run("add ter 7 hdr.f1:0x1*3* send_1()\nadd ter hdr.f1:0b1111000011110000 send_2()", tb)
    e0, e1 = (tb.tables["ingress.ter"].entries[h] for h in (0, 1))
    assert e0.key == [["ternary", 0x1030, 0xF0F0]] and e0.priority == stf.STF_PRIORITY_BASE - 7
    assert e1.key == [["ternary", 0xF0F0, 0xFFFF]]


class RecordingBackend:
    """Another backend: the STF runner only needs `tables` and `send`."""

    def __init__(self, inner):
        self.tables = inner.tables
        self.inner = inner
        self.sent = []

    def send(self, port, data):
        self.sent.append((port, data))
        return [(p + 10, d) for p, d in self.inner.send(port, data)]


@need_vectors
def test_backend_is_swappable():
    rb = RecordingBackend(backend("ternary"))
    r = stf.run("add ter 1 hdr.f1:0x**** send_1()\npacket 4 abcd\nexpect 11 abcd $\n", rb)
    assert r.ok and rb.sent == [(4, bytes.fromhex("abcd"))]
