"""`fastpath p4 compile|stf|run`: outputs, exit statuses, one-line errors; `stf` and `run` on both
backends (the RTL pipeline in simulation and the reference interpreter) give the same results."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from fastpath import cli
from fastpath.frames import read_pcap
from fastpath.p4 import rtl_backend
from fastpath.p4 import samples as S
from fastpath.paths import VECTORS

BMV2 = VECTORS / "bmv2"
PCAP = VECTORS / "pcap" / "zeek-mixed-vlan-mpls.pcap"
STF_DIR = Path(__file__).parent / "stf"
need_vectors = pytest.mark.skipif(not (BMV2 / "simple_router.json").exists() or not PCAP.exists(),
                                  reason="no shared vectors")


def run(capsys, *argv):
    rc = cli.main(list(map(str, argv)))
    out, err = capsys.readouterr()
    return rc, out, err


@need_vectors
def test_compile_writes_the_configuration_and_stats(tmp_path, capsys):
    rc, out, err = run(capsys, "p4", "compile", BMV2 / "simple_router.json", "-o", tmp_path / "cfg.json",
                       "--json", tmp_path / "stats.json")
    assert rc == 0 and not err
    assert "table ipv4_lpm (ingress): key 32 bits [lpm], 1024 entries -> tcam" in out
    cfg = json.loads((tmp_path / "cfg.json").read_text())
    assert {t["name"] for t in cfg["tables"]} == {"ipv4_lpm", "forward", "send_frame"}
    stats = json.loads((tmp_path / "stats.json").read_text())
    assert 0 < stats["compile_ms"] < 500 and stats["tables"] == 3


def test_compile_refusal_is_one_line(tmp_path, capsys):
    p = S.minimal()
    p["register_arrays"] = [{"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 32}]
    (tmp_path / "reg.json").write_text(json.dumps(p))
    rc, out, err = run(capsys, "p4", "compile", tmp_path / "reg.json")
    assert rc == 2 and err.count("\n") == 1
    assert "reg.json: refused: register_arrays[0] \"MyIngress.reg\": registers are not in the hardware" in err
    rc, out, err = run(capsys, "p4", "compile", tmp_path / "missing.json")
    assert rc == 2 and "no such program" in err and err.count("\n") == 1


@need_vectors
def test_stf_prints_each_expectation(tmp_path, capsys):
    for backend, first in (("interp", "backend: reference interpreter"), ("rtl", rtl_backend.BACKEND_LINE)):
        rc, out, err = run(capsys, "p4", "stf", BMV2 / "ternary.json", STF_DIR / "ternary.stf", "--backend", backend)
        assert rc == 0, out + err
        lines = out.splitlines()
        assert lines[0] == first
        assert sum(ln.startswith("PASS line") for ln in lines) == 7
        assert lines[-1] == "stf: 7 expectations passed, 0 failed"
    bad = tmp_path / "bad.stf"
    bad.write_text("packet 0 1234\nexpect 1 1234\n")
    rc, out, err = run(capsys, "p4", "stf", BMV2 / "ternary.json", bad)
    assert rc == 1 and "FAIL line 2: expect 1 1234 -- no packet came out of port 1" in out
    assert "FAIL line 1: packet of line 1 -- unexpected packet on port 0: 1234" in out
    bad.write_text("packet 0 12345\n")
    rc, out, err = run(capsys, "p4", "stf", BMV2 / "ternary.json", bad, "--backend", "interp")
    assert rc == 2 and "bad.stf:1: odd number of hex digits" in err and err.count("\n") == 1


@need_vectors
def test_run_writes_one_interface_per_port(tmp_path, capsys):
    cmds = tmp_path / "cmds.txt"
    cmds.write_text("table_set_default ipv4_lpm _drop\ntable_add ipv4_lpm set_nhop 0.0.0.0/0 => 10.0.0.1 3\n"
                    "table_set_default forward set_dmac 00:04:00:00:00:07\n"
                    "table_add send_frame rewrite_mac 0 => 00:aa:bb:00:00:00\n"
                    "table_add send_frame rewrite_mac 3 => 00:aa:bb:00:00:03\n")
    out_pcap = tmp_path / "out.pcapng"
    rc, out, err = run(capsys, "p4", "run", BMV2 / "simple_router.json", "--commands", cmds, PCAP, out_pcap,
                       "--json", tmp_path / "s.json")
    assert rc == 0, err
    assert out.splitlines()[0] == rtl_backend.BACKEND_LINE
    # the RTL pipeline and the reference interpreter write the same packets
    ref = tmp_path / "ref.pcapng"
    rc, out, err = run(capsys, "p4", "run", BMV2 / "simple_router.json", "--commands", cmds, PCAP, ref,
                       "--backend", "interp")
    assert rc == 0 and out.splitlines()[0] == "backend: reference interpreter"
    assert [(f.data, f.time) for f in read_pcap(out_pcap)] == [(f.data, f.time) for f in read_pcap(ref)]
    frames_in = read_pcap(PCAP)
    stats = json.loads((tmp_path / "s.json").read_text())
    assert stats["packets_in"] == len(frames_in) and stats["packets_out"] + stats["dropped"] == len(frames_in)
    from scapy.utils import RawPcapNgReader
    recs = list(RawPcapNgReader(str(out_pcap)))
    assert len(recs) == stats["packets_out"] == len(read_pcap(out_pcap))
    names = {m.ifname.decode() for _, m in recs}
    assert names == {f"port {p}" for p in map(int, stats["per_port"])} and names <= {"port 0", "port 3"}
    for data, m in recs:
        assert m.comments[0].decode().startswith(f"egress {m.ifname.decode()};")
        if m.ifname == b"port 3":
            assert data[:6] == bytes.fromhex("000400000007") and data[6:12] == bytes.fromhex("00aabb000003")


@need_vectors
def test_run_errors_are_one_line(tmp_path, capsys):
    cmds = tmp_path / "cmds.txt"
    cmds.write_text("# ok\ntable_add ipv4_lpm set_nhop 10.0.0.0/33 => 10.0.0.1 3\n")
    rc, out, err = run(capsys, "p4", "run", BMV2 / "simple_router.json", "--commands", cmds, PCAP, tmp_path / "o",
                       "--backend", "interp")
    assert rc == 2 and err.count("\n") == 1 and "cmds.txt: line 2: table_add: key field ipv4.dstAddr" in err
    rc, out, err = run(capsys, "p4", "run", BMV2 / "simple_router.json", tmp_path / "nope.pcap", tmp_path / "o")
    assert rc == 2 and "no such capture" in err
    # more entries than the simulated pipeline's TCAM rows: one line from the RTL backend
    cmds.write_text("".join(f"table_add ipv4_lpm set_nhop 10.{i}.0.0/16 => 10.0.0.1 3\n" for i in range(40)))
    rc, out, err = run(capsys, "p4", "run", BMV2 / "simple_router.json", "--commands", cmds, PCAP, tmp_path / "o")
    assert rc == 2 and err.count("\n") == 1, err
    assert 'simple_router.json: table "ipv4_lpm": 40 TCAM rows, the stage has 32' in err
