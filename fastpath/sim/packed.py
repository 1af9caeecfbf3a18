"""One port of a packed vector as a signal the cocotbext bus models can drive and watch.

Multi-port tops pack each port's pins into one vector (gmii_rxd[PORTS*8-1:0], ...). `Slice`
is a view of bits [lsb +: width] of such a vector; writers of one vector share a `shadow` dict
(the value they drive), so each write sets the whole vector with everyone's bits.
`patch_bus_models()` makes cocotbext-eth's GMII models and cocotbext-axi's AXI4-Stream models wake
on a change of the whole vector (they re-check their own bit), which a Slice needs.
"""
from __future__ import annotations

import cocotbext.axi.axis as _axis_mod
import cocotbext.eth.gmii as _gmii_mod
from cocotb.triggers import Edge, RisingEdge

_XZ_TO_0 = str.maketrans("xXzZuUwWlLhH-", "0000000000110")


class Slice:
    """Bits [lsb +: width] of a packed vector signal (see the module docstring)."""

    def __init__(self, sig, lsb: int, width: int, shadow: dict | None = None):
        self.sig, self.lsb, self.width = sig, lsb, width
        self.mask = ((1 << width) - 1) << lsb
        self.shadow = shadow
        self._path = f"{sig._path}[{lsb + width - 1}:{lsb}]"
        self._name = self._path

    def __len__(self):
        return self.width

    @property
    def value(self) -> int:
        v = self.sig.value
        try:
            n = int(v)
        except ValueError:            # X or Z somewhere in the vector (Icarus): read them as 0
            n = int(str(v).translate(_XZ_TO_0), 2)
        return (n >> self.lsb) & ((1 << self.width) - 1)

    @value.setter
    def value(self, v) -> None:
        self.shadow["v"] = (self.shadow["v"] & ~self.mask) | ((int(v) << self.lsb) & self.mask)
        self.sig.value = self.shadow["v"]

    def setimmediatevalue(self, v) -> None:
        self.value = v


def _edge(sig):
    return Edge(sig.sig) if isinstance(sig, Slice) else Edge(sig)


def _rising(sig):
    # a wake-up on any change of the whole vector: the models re-check the bit themselves
    return Edge(sig.sig) if isinstance(sig, Slice) else RisingEdge(sig)


def patch_bus_models() -> None:
    """Let the GMII sink and the AXI4-Stream models wait on Slice views (idempotent)."""
    _gmii_mod.Edge = _edge          # GmiiSink waits for dv to change
    _axis_mod.RisingEdge = _rising  # the AXI4-Stream models wake on tvalid / tready
