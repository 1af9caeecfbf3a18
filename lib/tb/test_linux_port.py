"""fastpath.sim.linux_port: a simulated core meets a real Linux interface.

An fp_axis_fifo stands in for a core: frames sent by a Linux socket in one network namespace cross
a veth pair into the simulation, pass through the FIFO, go back out over the veth and arrive at
the socket again, byte for byte, in order. Skips cleanly without root or network namespaces."""
import os
import random
import socket
import time

import cocotb
import pytest
from cocotb.triggers import ClockCycles
from cocotbext.axi import AxiStreamBus, AxiStreamSink, AxiStreamSource

from fastpath import netns
from fastpath.sim import runner
from fastpath.sim.linux_port import ETH_P_ALL, LinuxPort
from fastpath.sim.tb import start

ETHERTYPE = 0x88B5  # IEEE local experimental


@cocotb.test()
async def frames_cross_the_simulation(dut):
    ns_sim, ns_host = os.environ["FP_NS_SIM"], os.environ["FP_NS_HOST"]
    source = AxiStreamSource(AxiStreamBus.from_prefix(dut, "s_axis"), dut.clk, dut.rst)
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
    await start(dut)
    port = LinuxPort("s0", netns=ns_sim, poll_cycles=32)
    cocotb.start_soon(port.run(dut.clk, source, sink))
    with netns.in_netns(ns_host):
        host = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETHERTYPE))
        host.bind(("h0", 0))
    host.setblocking(False)
    rnd = random.Random(7)
    sent = []
    for i in range(20):
        payload = i.to_bytes(2, "big") + bytes(rnd.randrange(256) for _ in range(rnd.randrange(46, 1400)))
        frame = b"\x02\x00\x00\x00\x00\x01" + b"\x02\x00\x00\x00\x00\x02" + ETHERTYPE.to_bytes(2, "big") + payload
        host.send(frame)
        sent.append(frame)
    got = []
    deadline = time.monotonic() + 30
    while len(got) < len(sent) and time.monotonic() < deadline:
        await ClockCycles(dut.clk, 200)
        while True:
            try:
                data, addr = host.recvfrom(65535)
            except BlockingIOError:
                break
            if addr[2] != socket.PACKET_OUTGOING:
                got.append(data)
    host.close()
    port.close()
    assert got == sent, f"{len(got)} of {len(sent)} frames came back, or they differ"
    assert port.stats["to_core"] == port.stats["from_core"] == len(sent)


def test_linux_port():
    why = netns.unavailable()
    if why:
        pytest.skip(why)
    with netns.Netns(["sim", "host"], tag="fplp") as n:
        n.veth("sim", "s0", "host", "h0", mtu=1500)
        runner.run("fp_axis_fifo", __name__, {"DATA_WIDTH": 64, "DEPTH": 512},
                   env={"FP_NS_SIM": n.ns["sim"], "FP_NS_HOST": n.ns["host"]})
