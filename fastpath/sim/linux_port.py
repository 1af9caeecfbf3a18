"""Attach a simulated core's Ethernet client streams to a real Linux interface (veth or TAP).

    port = LinuxPort("a0", netns="fpx-a")                # AF_PACKET socket on a0 inside fpx-a
    cocotb.start_soon(port.run(clk, source, sink))      # source/sink: cocotbext-axi AxiStream*
    ...
    port.close()

Frames the kernel delivers on the interface are sent into the core through `source` (the MAC's
RX client side, without FCS); frames the core emits on `sink` (its TX client side) are written to
the interface. The socket is polled every `poll_cycles` clock cycles of simulated time, so
simulated time runs as fast as the simulator allows and real time passes as it does; protocols
with real-time timeouts on the Linux side see the simulation as a slow link.

Frames shorter than 60 bytes are padded on the way out, as a MAC would; frames the core marks bad
(tuser = 1) are not sent and are counted in `stats["bad_dropped"]`, as a MAC would stomp them.
"""
from __future__ import annotations

import socket

import cocotb
from cocotb.triggers import ClockCycles

from ..netns import in_netns

ETH_P_ALL = 0x0003


class LinuxPort:
    def __init__(self, ifname: str, netns: str | None = None, poll_cycles: int = 64,
                 max_frames_per_poll: int = 64):
        def make() -> socket.socket:
            s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
            s.bind((ifname, 0))
            s.setblocking(False)
            return s
        if netns:
            with in_netns(netns):
                self.sock = make()
        else:
            self.sock = make()
        self.ifname = ifname
        self.poll_cycles = poll_cycles
        self.max_frames_per_poll = max_frames_per_poll
        self.stats = {"to_core": 0, "from_core": 0, "bad_dropped": 0}
        self.outgoing: set[bytes] = set()   # our own frames echoed back by PACKET_OUTGOING are skipped

    def _poll_in(self) -> list[bytes]:
        out = []
        for _ in range(self.max_frames_per_poll):
            try:
                data, addr = self.sock.recvfrom(65535)
            except BlockingIOError:
                break
            if addr[2] == socket.PACKET_OUTGOING:
                continue
            out.append(data)
        return out

    def send(self, frame: bytes) -> None:
        if len(frame) < 60:
            frame = frame + bytes(60 - len(frame))
        self.sock.send(frame)
        self.stats["from_core"] += 1

    async def _to_linux(self, sink) -> None:
        while True:
            f = await sink.recv()
            user = f.tuser if isinstance(f.tuser, int) else (f.tuser[-1] if f.tuser else 0)
            if user & 1:
                self.stats["bad_dropped"] += 1
                continue
            self.send(bytes(f.tdata))

    async def run(self, clk, source, sink) -> None:
        """Bridge until the test ends: Linux -> source, sink -> Linux."""
        from cocotbext.axi import AxiStreamFrame
        if sink is not None:
            cocotb.start_soon(self._to_linux(sink))
        while True:
            await ClockCycles(clk, self.poll_cycles)
            if source is None:
                continue
            for data in self._poll_in():
                self.stats["to_core"] += 1
                await source.send(AxiStreamFrame(data, tuser=0))

    def close(self) -> None:
        self.sock.close()
