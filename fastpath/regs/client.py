"""Python access to a register map over AXI4-Lite, by register and field name (cocotb tests)."""
from __future__ import annotations

from .bus import RESP_OKAY
from .model import RegMap


class RegBusError(RuntimeError):
    """An AXI4-Lite access answered with a response other than OKAY."""


class RegClient:
    """Read and write a block's registers by name through a cocotbext-axi AxiLiteMaster.

        regs = RegClient(load("fastpath_id"), AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), ...))
        await regs.write("scratch", 0x1234)          # or write("ctrl", enable=1, mode=2)
        v = await regs.read("scratch"); t = await regs.read64("cycles")

    A response other than OKAY raises RegBusError. `base` is the block's address on the bus.
    """

    def __init__(self, regmap: RegMap, master, base: int = 0):
        self.map = regmap
        self.master = master
        self.base = base

    async def read_word(self, offset: int) -> int:
        r = await self.master.read(self.base + offset, 4)
        if int(r.resp) != RESP_OKAY:
            raise RegBusError(f"{self.map.name}: read at {offset:#x} answered {r.resp!r}")
        return int.from_bytes(r.data, "little")

    async def write_word(self, offset: int, value: int) -> None:
        r = await self.master.write(self.base + offset, int(value).to_bytes(4, "little"))
        if int(r.resp) != RESP_OKAY:
            raise RegBusError(f"{self.map.name}: write at {offset:#x} answered {r.resp!r}")

    async def read(self, reg: str, index: int | None = None) -> int:
        """A register's value; a 64-bit register is read low word first (see read64)."""
        r = self.map.register(reg)
        off = self.map.offset(reg, index)
        if r.width == 64:
            lo = await self.read_word(off)
            return lo | (await self.read_word(off + 4)) << 32
        return await self.read_word(off)

    async def read64(self, reg: str, index: int | None = None) -> int:
        """A 64-bit register: low word (which latches the high word of an ro register), then high."""
        if self.map.register(reg).width != 64:
            raise TypeError(f"{reg} is a 32-bit register")
        return await self.read(reg, index)

    async def read_fields(self, reg: str, index: int | None = None) -> dict:
        return self.map.decode(reg, await self.read(reg, index))

    async def write(self, reg: str, value: int | None = None, *, index: int | None = None, **fields) -> None:
        """Write a whole value, or fields by name (fields not named take their reset value)."""
        r = self.map.register(reg)
        v = self.map.encode(reg, value, **fields)
        off = self.map.offset(reg, index)
        await self.write_word(off, v & 0xFFFFFFFF)
        if r.width == 64:
            await self.write_word(off + 4, v >> 32)
