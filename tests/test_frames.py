"""Frame utilities and pcap I/O; running a core over a capture."""
import random

import pytest

from fastpath import frames
from fastpath.paths import VECTORS


def test_pcap_round_trip(tmp_path):
    rng = random.Random(1)
    data = [frames.udp_frame(n, rng) for n in (60, 61, 128, 1514)] + [frames.random_frame(rng) for _ in range(20)]
    assert frames.write_pcap(tmp_path / "a.pcap", data) == len(data)
    got = frames.read_pcap(tmp_path / "a.pcap")
    assert [c.data for c in got] == data
    assert all(b.time >= a.time for a, b in zip(got, got[1:]))


def test_empty_capture(tmp_path):
    frames.write_pcap(tmp_path / "e.pcap", [])
    assert frames.read_pcap(tmp_path / "e.pcap") == []


def test_non_ethernet_capture_is_refused(tmp_path):
    from scapy.utils import RawPcapWriter
    w = RawPcapWriter(str(tmp_path / "raw.pcap"), linktype=101)  # LINKTYPE_RAW (IP)
    w.write(b"\x45" + bytes(19))
    w.close()
    with pytest.raises(ValueError, match="not Ethernet"):
        frames.read_pcap(tmp_path / "raw.pcap")


def test_fcs_helpers():
    f = frames.udp_frame(100)
    assert frames.fcs_ok(frames.with_fcs(f))
    bad = bytearray(frames.with_fcs(f))
    bad[10] ^= 1
    assert not frames.fcs_ok(bytes(bad))
    assert len(frames.pad(b"abc")) == 60


def test_udp_frame_sizes_and_vlan():
    for n in (60, 64, 1514):
        assert len(frames.udp_frame(n)) == n
    tagged = frames.udp_frame(100, vlan=5)
    assert tagged[12:14] == b"\x81\x00" and len(tagged) == 100


def test_real_capture_reads():
    path = VECTORS / "pcap" / "zeek-gre-sample.pcap"
    if not path.exists():
        pytest.skip(f"{path} absent (shared vectors not checked out beside the repo)")
    assert len(frames.read_pcap(path)) == 40


def test_core_runs_over_a_capture(tmp_path):
    """`fastpath sim stream`: a register slice passes every frame of a capture unchanged."""
    from fastpath.sim import stream
    rng = random.Random(2)
    data = [frames.random_frame(rng, 60, 300) for _ in range(25)]
    frames.write_pcap(tmp_path / "in.pcap", data)
    s = stream.run_pcap("axis_register", tmp_path / "in.pcap", tmp_path / "out.pcap", {"DATA_WIDTH": 64},
                        report=["m_axis_tvalid"])
    assert s["frames_in"] == s["frames_out"] == 25 and s["bad_out"] == 0
    assert s["signals"] == {"m_axis_tvalid": 0}
    assert [c.data for c in frames.read_pcap(tmp_path / "out.pcap")] == data
