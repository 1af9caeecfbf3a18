"""fp_axis_crc32 and fp_crc32_step: Ethernet CRC-32 against zlib.crc32, residue check, exact latency.

fp_axis_crc32 is a monitor (s_axis_tready is one of its inputs), so the test drives tready itself with
a random pattern while an AxiStreamSource with random pauses drives the rest of the bus. The last
beat of each frame carries random garbage in its invalid byte lanes, to prove they are ignored.
fp_crc32_step (combinational) is also checked directly, including its stated handling of bad tkeep.
"""
import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge, Timer
from cocotbext.axi import AxiStreamBus, AxiStreamFrame, AxiStreamSource

from fastpath.lib import crc
from fastpath.sim import runner
from fastpath.sim.tb import BeatMonitor, high, params, pauses, random_bytes, rng, start

LATENCY = 1  # rising edge accepting the tlast beat -> crc_valid high


class Checker:
    """Drives s_axis (source + random tready) and records, per cycle, tlast beats and results."""

    def __init__(self, dut, r, source_p=0.0, ready_p=0.0):
        self.dut = dut
        self.r = r
        self.lanes = params().get("DATA_WIDTH", 64) // 8
        self.source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
        self.source.set_pause_generator(pauses(r, source_p) if source_p else None)
        self.ready_p = ready_p
        dut.s_axis_tready.value = 1
        self.results = []  # (cycle, crc, crc_ok)
        self.mon = BeatMonitor(dut, "s_axis", dut.clk)  # s_axis beats (tready is driven here)
        self.mon.every_cycle(self._result)  # crc_valid, in the monitor's cycles
        cocotb.start_soon(self._drive_ready())

    async def _drive_ready(self):
        while True:
            await RisingEdge(self.dut.clk)
            self.dut.s_axis_tready.value = int(self.r.random() >= self.ready_p)

    def _result(self, cycle):
        if high(self.dut.crc_valid):
            self.results.append((cycle, int(self.dut.crc.value), int(self.dut.crc_ok.value)))

    @property
    def last_beats(self):
        """(cycle, valid bytes) of each tlast beat."""
        return [(f.last_beat, bin(f.last("tkeep")).count("1")) for f in self.mon.frames]

    @property
    def garbage_beats(self):
        """tlast beats with nonzero data in their tkeep=0 lanes."""
        return sum((f.last("tdata") >> 8 * n) != 0 for f, (_, n) in zip(self.mon.frames, self.last_beats))

    async def send(self, frames):
        """Send each frame padded to whole beats with garbage bytes marked tkeep=0."""
        for f in frames:
            pad = -len(f) % self.lanes
            await self.source.send(AxiStreamFrame(bytes(f) + random_bytes(self.r, pad),
                                                  tkeep=[1] * len(f) + [0] * pad))

    async def check(self, frames, timeout_cycles=100_000):
        """Wait for one result per frame and check value, residue flag and latency."""
        for _ in range(timeout_cycles):
            if len(self.results) >= len(frames):
                break
            await RisingEdge(self.dut.clk)
        await ClockCycles(self.dut.clk, 5)
        assert len(self.results) == len(frames), f"{len(self.results)} results, {len(frames)} frames"
        assert len(self.last_beats) == len(frames)
        for i, f in enumerate(frames):
            (cyc, value, ok), (last, _) = self.results[i], self.last_beats[i]
            assert value == crc.fcs(f), f"frame {i} ({len(f)} B): crc {value:08x} != {crc.fcs(f):08x}"
            assert ok == int(crc.fcs_ok(f)), f"frame {i} ({len(f)} B): crc_ok {ok}"
            assert cyc - last == LATENCY, f"frame {i}: latency {cyc - last}"


def random_frames(r, lanes, count):
    """Frames of 1..2000 bytes: a third plain, a third with a correct FCS, a third with one bit of a
    correct frame flipped. The first `lanes` frames end on every tkeep count 1..lanes once."""
    lengths = []
    for k in range(1, lanes + 1):
        n = r.randint(0, (2000 - k) // lanes) * lanes + k
        lengths.append(n)
    lengths += [r.randint(1, 2000) for _ in range(max(0, count - lanes))]
    r.shuffle(lengths)
    frames = []
    for i, n in enumerate(lengths):
        kind = i % 3
        if kind == 0 or n < 5:
            frames.append(random_bytes(r, n))
            continue
        f = bytearray(crc.append_fcs(random_bytes(r, n - 4)))
        if kind == 2:
            bit = r.randrange(8 * n)
            f[bit // 8] ^= 1 << (bit % 8)
        frames.append(bytes(f))
    return frames


@cocotb.test()
async def random_traffic(dut):
    """Random frames 1..2000 bytes, random source pauses and tready: zlib, residue, latency."""
    r = rng()
    c = Checker(dut, r, source_p=0.3, ready_p=0.3)
    await start(dut)
    count = {1: 10, 8: 24}.get(c.lanes, c.lanes + 30)
    frames = random_frames(r, c.lanes, count)
    await c.send(frames)
    await c.check(frames)
    assert any(crc.fcs_ok(f) for f in frames) and not all(crc.fcs_ok(f) for f in frames)
    seen = {k for _, k in c.last_beats}
    assert seen == set(range(1, c.lanes + 1)), f"tkeep counts never seen on a last beat: {seen}"
    assert c.garbage_beats > 0 or c.lanes == 1  # the invalid lanes really carried garbage


@cocotb.test()
async def back_to_back(dut):
    """No pauses: short frames back to back, one result per frame, LATENCY after each tlast."""
    r = rng()
    c = Checker(dut, r)
    await start(dut)
    frames = []
    for _ in range(80):
        n = r.choice([1, 2, 3, 4, 5, c.lanes, c.lanes + 1, 2 * c.lanes, r.randint(1, 3 * c.lanes)])
        data = random_bytes(r, n)
        frames.append(crc.append_fcs(data) if r.random() < 0.5 else data)
    await c.send(frames)
    await c.check(frames)
    cycles = [cyc for cyc, _, _ in c.results]
    beats = [-(-len(f) // c.lanes) for f in frames]
    for i in range(1, len(frames)):
        assert cycles[i] - cycles[i - 1] == beats[i], f"frame {i}: bubble in a full-rate stream"


@cocotb.test()
async def reset_mid_frame(dut):
    """A reset in the middle of a frame restarts the CRC: the next frame is computed afresh."""
    r = rng()
    c = Checker(dut, r)
    await start(dut)
    c.source.pause = True
    await c.send([random_bytes(r, 4 * c.lanes + 3)])
    c.source.pause = False
    await ClockCycles(dut.clk, 2)  # two beats of that frame go in
    c.source.pause = True
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    c.source.clear()
    c.source.pause = False
    await RisingEdge(dut.clk)
    assert not high(dut.crc_valid)
    c.results.clear()
    c.mon.clear()
    frames = [crc.append_fcs(random_bytes(r, 3 * c.lanes + 1)), random_bytes(r, 100)]
    await c.send(frames)
    await c.check(frames)


@cocotb.test()
async def step_direct(dut):
    """fp_crc32_step alone (0 latency, combinational): every keep count, garbage in the invalid
    lanes, random crc_in; bad tkeep: holes count as set, tkeep == 0 leaves the state unchanged."""
    r = rng()
    lanes = params()["DATA_WIDTH"] // 8
    for i in range(600):
        state = r.getrandbits(32) if i % 3 else crc.INIT
        data = random_bytes(r, lanes)
        n = i % (lanes + 1) if i < 4 * (lanes + 1) else r.randint(0, lanes)
        keep = (1 << n) - 1
        if n > 1 and i % 5 == 0:  # bad input: holes below the highest set bit
            keep &= r.getrandbits(n - 1) | (1 << (n - 1))
        dut.crc_in.value = state
        dut.data.value = int.from_bytes(data, "little")
        dut.keep.value = keep
        await Timer(1, "ns")
        want = crc.step(state, data[:n])
        got = int(dut.crc_out.value)
        assert got == want, f"n={n} keep={keep:x} crc_in={state:08x}: {got:08x} != {want:08x}"
    # residue: the state after a frame including its FCS, fed one byte per step from the end
    frame = crc.append_fcs(random_bytes(r, 60))
    state = crc.step(crc.INIT, frame[:-min(lanes, 4)])
    dut.crc_in.value = state
    dut.data.value = int.from_bytes(frame[-min(lanes, 4):].ljust(lanes, b"\0"), "little")
    dut.keep.value = (1 << min(lanes, 4)) - 1
    await Timer(1, "ns")
    assert int(dut.crc_out.value) == crc.RESIDUE_STATE == 0xDEBB20E3


AXIS_TESTS = ["random_traffic", "back_to_back", "reset_mid_frame"]


@pytest.mark.parametrize("data_width", [8, 64, 256, 512])
def test_axis_crc32(data_width):
    runner.run("fp_axis_crc32", __name__, {"DATA_WIDTH": data_width}, testcase=AXIS_TESTS)


@pytest.mark.parametrize("data_width", [8, 24, 32, 128])
def test_crc32_step(data_width):
    runner.run("fp_crc32_step", __name__, {"DATA_WIDTH": data_width}, testcase="step_direct")
