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
    s = stream.run_pcap("fp_axis_register", tmp_path / "in.pcap", tmp_path / "out.pcap", {"DATA_WIDTH": 64},
                        report=["m_axis_tvalid"])
    assert s["frames_in"] == s["frames_out"] == 25 and s["bad_out"] == 0
    assert s["signals"] == {"m_axis_tvalid": 0}
    assert [c.data for c in frames.read_pcap(tmp_path / "out.pcap")] == data


def test_stream_refuses_bad_input_before_simulating(tmp_path):
    """A missing, unreadable or non-Ethernet capture, or a sideband of the wrong length: one-line
    InputError, nothing built."""
    from scapy.utils import RawPcapWriter

    from fastpath.sim import stream
    w = RawPcapWriter(str(tmp_path / "raw.pcap"), linktype=101)
    w.write(b"\x45" + bytes(19))
    w.close()
    (tmp_path / "junk.pcap").write_bytes(b"this is not a capture" * 10)
    frames.write_pcap(tmp_path / "ok.pcap", [bytes(60)] * 3)
    out = tmp_path / "out.pcap"
    for name, message in (("missing", "no such file"), ("raw", "not Ethernet"), ("junk", "not a readable pcap")):
        with pytest.raises(stream.InputError, match=message) as e:
            stream.run_pcap("fp_axis_register", tmp_path / f"{name}.pcap", out)
        assert "\n" not in str(e.value)
    with pytest.raises(stream.InputError, match="2 values for 3 frames"):
        stream.run_pcap("fp_axis_register", tmp_path / "ok.pcap", out, sideband={"s_axis_tuser": [0, 1]})
    with pytest.raises(stream.InputError, match="directory does not exist"):
        stream.run_pcap("fp_axis_register", tmp_path / "ok.pcap", tmp_path / "no" / "out.pcap")
    with pytest.raises(stream.InputError, match="frame 2 is 70 bytes"):
        frames.write_pcap(tmp_path / "long.pcap", [bytes(60), bytes(70)])
        stream.read_frames(tmp_path / "long.pcap", max_len=64)
    assert not out.exists()


def test_stream_sideband_marks_frames_bad(tmp_path):
    """Per-frame sideband (here s_axis_tuser, held for every beat of its frame): the frames marked
    bad are counted, listed in order, and written only with keep_bad; a cycle limit that is too
    short is a SimulationError."""
    from fastpath.sim import stream
    rng = random.Random(4)
    data = [frames.random_frame(rng, 60, 200) for _ in range(12)]
    frames.write_pcap(tmp_path / "in.pcap", data)
    bad = [int(i % 3 == 1) for i in range(len(data))]
    s = stream.run_pcap("fp_axis_register", tmp_path / "in.pcap", tmp_path / "good.pcap", {"DATA_WIDTH": 64},
                        sideband={"s_axis_tuser": bad})
    assert s["bad"] == bad and s["bad_out"] == sum(bad) and s["frames_out"] == len(data) - sum(bad)
    assert [c.data for c in frames.read_pcap(tmp_path / "good.pcap")] == [d for d, b in zip(data, bad) if not b]
    assert s["cycles"] > sum(-(-len(d) // 8) for d in data) and s["sim"] in ("verilator", "icarus")
    s = stream.run_pcap("fp_axis_register", tmp_path / "in.pcap", tmp_path / "all.pcap", {"DATA_WIDTH": 64},
                        sideband={"s_axis_tuser": bad}, keep_bad=True)
    assert [c.data for c in frames.read_pcap(tmp_path / "all.pcap")] == data and s["frames_out"] == len(data)
    with pytest.raises(stream.SimulationError, match="cycle limit"):
        stream.run_pcap("fp_axis_register", tmp_path / "in.pcap", tmp_path / "x.pcap", {"DATA_WIDTH": 64},
                        max_cycles=20)
