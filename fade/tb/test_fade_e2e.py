"""FADE-10G end to end: the RTL core in simulation meets the real host receiver over Linux.

fp_fade_core's Ethernet streams are bridged (fastpath.sim.linux_port) to one end of a veth pair in
one network namespace; `fade-recv` (fade/host, the C library) runs in another namespace on the
other end, with nftables dropping 5 % of the frames in both directions. fade-recv opens the board
by its MAC address, sends START, verifies the test pattern (each 64-bit word = previous + 1),
sends user commands while the data streams (each must return arg * 2 + 1, executed exactly once:
the test counts executions on the core's command port), stops after a byte count and waits for
the last packet. Passes when fade-recv reports the stream complete and verified, every command
answered, the core executed each command sequence number once, and the host learned from the
core's START response to send up to 8 ACK records per frame (fade/README.md, "ACK records").

Skips cleanly without root, network namespaces, nftables or the host build."""
import json
import os
import subprocess
import time

import cocotb
import pytest
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource

from fastpath import host, netns
from fastpath.paths import ROOT
from fastpath.sim import runner
from fastpath.sim.linux_port import LinuxPort
from fastpath.sim.tb import start

BOARD_MAC = "02:fa:de:00:00:01"
RECV = host.BUILD / "fade-recv"
PACKETS = 48                       # 8 KiB each: 384 KiB of data through 5 % loss
LOSS_PCT = 5


async def feed_pattern(dut):
    """The user's data: word i = i (+1 per word), one per cycle whenever the core takes it."""
    w = 0
    dut.s_axis_tvalid.value = 1
    dut.s_axis_tdata.value = w
    while True:
        await RisingEdge(dut.clk)
        if dut.s_axis_tready.value == 1:
            w += 1
            dut.s_axis_tdata.value = w


async def command_port(dut, executed: dict):
    """The user's command processor: answer arg * 2 + 1, count executions per csn."""
    dut.m_cmd_ready.value = 1
    dut.s_rsp_valid.value = 0
    while True:
        await RisingEdge(dut.clk)
        if dut.m_cmd_valid.value == 1:
            csn, arg = int(dut.m_cmd_csn.value), int(dut.m_cmd_arg.value)
            executed[csn] = executed.get(csn, 0) + 1
            dut.s_rsp_value.value = arg * 2 + 1
            dut.s_rsp_valid.value = 1
            await RisingEdge(dut.clk)
            while dut.s_rsp_ready.value != 1:
                await RisingEdge(dut.clk)
            dut.s_rsp_valid.value = 0


@cocotb.test()
async def stream_to_the_host_receiver(dut):
    ns_sim, ns_host = os.environ["FP_NS_SIM"], os.environ["FP_NS_HOST"]
    dut.cfg_local_mac.value = int(BOARD_MAC.replace(":", ""), 16)
    source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_eth"), dut.clk, dut.rst)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_eth"), dut.clk, dut.rst)
    dut.s_axis_tvalid.value = 0
    dut.m_cmd_ready.value = 0
    dut.s_rsp_valid.value = 0
    await start(dut, period_ns=6.4)
    port = LinuxPort("s0", netns=ns_sim, poll_cycles=64)
    cocotb.start_soon(port.run(dut.clk, source, sink))
    cocotb.start_soon(feed_pattern(dut))
    executed: dict = {}
    cocotb.start_soon(command_port(dut, executed))
    nbytes = PACKETS * 8192
    recv = subprocess.Popen(
        ["ip", "netns", "exec", ns_host, str(RECV), "-i", "h0", "-m", BOARD_MAC, "-o", "/dev/null",
         "--bytes", str(nbytes), "--verify", "--step", "1", "--commands", "--cmd-timeout-ms", "300",
         "--cmd-retries", "50", "--window-log2", "4"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.monotonic() + 240
    while recv.poll() is None and time.monotonic() < deadline:
        await ClockCycles(dut.clk, 2000)
    if recv.poll() is None:
        recv.kill()
    out = recv.communicate()[0]
    port.close()
    dut._log.info("fade-recv:\n%s", out)
    dut._log.info("bridge %s; commands executed for %d csn", port.stats, len(executed))
    assert recv.returncode == 0, f"fade-recv exit {recv.returncode}:\n{out}"
    report = json.loads(next(line for line in out.splitlines() if line.startswith("{")))
    c = report["counters"]
    # the core's START response allowed 8 ACK records per frame, and the host used it
    assert c["ack_records"] == 8 and 0 < c["ack_frames"] <= c["acks_sent"], c
    assert executed, "no user command reached the core"
    assert all(n == 1 for n in executed.values()), f"a command ran more than once: {executed}"


def test_fade_e2e():
    why = netns.unavailable(need_nft=True)
    if why:
        pytest.skip(why)
    if not RECV.exists():
        r = host.make("all")
        if r.returncode or not RECV.exists():
            pytest.skip(f"host build failed: {r.stderr[-300:]}")
    with netns.Netns(["sim", "host"], tag="fpfe") as n:
        n.veth("sim", "s0", "host", "h0", mtu=9000)
        n.loss("host", "h0", LOSS_PCT, "both")
        runner.run("fp_fade_core", __name__, {"N": 4, "TIMEOUT": 200_000},
                   env={"FP_NS_SIM": n.ns["sim"], "FP_NS_HOST": n.ns["host"]})
