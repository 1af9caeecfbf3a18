"""The node's cut-through latency budget, module by module (node/README.md, "Latency budget").

Every figure is a module's stated and tested latency (its header comment and its cocotb test);
the waits are the worst case under full load on every port with a non-oversubscribed mapping.
`release_ns` is the cut-through release time the benchmark writes into the `release_ns` register:
the latest a frame's first segment can reach its TX FIFO's read side after the frame's SFD, so
that every frame leaves exactly `release_ns` (+ the TX MAC) after it arrived.

    rows(seg_bytes=64, clk_mhz=200) -> [Row(stage, domain, fixed cycles, worst wait cycles, ns)]
    release_ns(seg_bytes, clk_mhz)  -> int (a multiple of the 8 ns port clock)
    expected_latency_ns(seg_bytes, clk_mhz) -> SFD in -> SFD out at the pins, cut-through
"""
from __future__ import annotations

from dataclasses import dataclass

PORT_NS = 8.0          # 125 MHz GMII
PORTS_PER_DP = 6
DATAPATHS = 2
TABLE_ROUND = 3        # fp_node_l2_table: one slot per client every CLIENTS + 1 cycles


@dataclass
class Row:
    stage: str
    domain: str         # "port" (125 MHz) or "dp" (datapath clock)
    fixed: float        # cycles every frame takes
    wait: float         # extra cycles in the worst case under full load
    note: str = ""

    def ns(self, clk_mhz: float) -> tuple[float, float]:
        period = PORT_NS if self.domain == "port" else 1000.0 / clk_mhz
        return self.fixed * period, (self.fixed + self.wait) * period


def rows(seg_bytes: int = 64, clk_mhz: float = 200.0) -> list[Row]:
    per_dp_outputs = PORTS_PER_DP + 1
    return [
        Row("RX MAC: SFD sampled -> first byte on m_axis", "port", 7, 0, "fp_eth_mac_1g_rx, input register"),
        Row(f"RXF: aggregate the first segment (bytes 1..{seg_bytes - 1})", "port", seg_bytes - 1, 0,
            "one byte per 8 ns at 1G: the dominant term"),
        Row("RXF: clock crossing to the datapath clock", "dp", 4, 1, "fp_axis_async_fifo: > 4, <= 5 clk periods"),
        Row("HC: NoC header", "dp", 1, 0, ""),
        Row("RXARB: round robin", "dp", 1, PORTS_PER_DP - 1, "waits for the other ports' segments"),
        Row("RxProcDP: parse, VLAN, L2 lookup + learn", "dp", 5, TABLE_ROUND * PORTS_PER_DP,
            "first segments of all ports at once queue for table slots (1 per 3 cycles)"),
        Row("BM: write arbiter (2 datapaths), input register, admission + enqueue", "dp", 2, 1, ""),
        Row("QM/SCHED: choice, segment RAM read, output buffer", "dp", 3, DATAPATHS * per_dp_outputs - 1,
            "one RAM read per cycle shared by both TX datapaths and their outputs"),
        Row("ROUTE: decision register, VLAN edit", "dp", 2, 1, "one extra cycle per tag insertion"),
        Row("HT: header termination, demux", "dp", 1, 0, ""),
        Row("TXF: clock crossing to the port clock", "port", 4, 1, "fp_axis_async_fifo: > 4, <= 5 out_clk periods"),
        Row("TXF: release rule met -> first byte registered", "port", 3, 0,
            "now - ts >= release_ns is registered (off the FIFO pop path), the start is the cycle "
            "after, then the byte register"),
        Row("TX MAC: takes the byte -> SFD on the pins, sampled by the PHY", "port", 8, 0,
            "the MAC's input edge + fp_eth_mac_1g_tx 7 cycles (+ the PHY's edge, counted in TAIL_PORT_CYCLES)"),
    ]


def _tail_port_cycles() -> int:
    """Port cycles from the release time to the SFD sampled at the TX pins: the TXF release row
    plus the TX MAC row (the rows arrival_ns leaves out)."""
    return int(sum(r.fixed for r in rows() if r.stage.startswith(("TXF: release", "TX MAC"))))


def arrival_ns(seg_bytes: int, clk_mhz: float, worst: bool = True) -> float:
    """SFD sampled -> first segment at the TX FIFO's read side (before the release rule)."""
    total = 0.0
    for r in rows(seg_bytes, clk_mhz):
        if r.stage.startswith(("TXF: release", "TX MAC")):
            continue
        lo, hi = r.ns(clk_mhz)
        total += hi if worst else lo
    return total


def release_ns(seg_bytes: int = 64, clk_mhz: float = 200.0) -> int:
    """The cut-through release time: the worst first-segment arrival, rounded up to the port
    clock (the rule is checked once per port cycle), plus one port cycle for the SFD timestamp's
    and the release comparison's phase."""
    a = arrival_ns(seg_bytes, clk_mhz, worst=True)
    return int(-(-a // PORT_NS) * PORT_NS + PORT_NS)


TAIL_PORT_CYCLES = _tail_port_cycles()


def expected_latency_ns(seg_bytes: int = 64, clk_mhz: float = 200.0) -> float:
    """SFD in -> SFD out at the pins with the release time above: release + TAIL_PORT_CYCLES
    port cycles (asserted exactly by node/tb/test_fastpath_node.py and node/tests/test_node.py)."""
    return release_ns(seg_bytes, clk_mhz) + TAIL_PORT_CYCLES * PORT_NS


def table(seg_bytes: int = 64, clk_mhz: float = 200.0) -> str:
    out = ["| stage | clock | cycles | worst wait | ns (min..max) | note |", "|---|---|---|---|---|---|"]
    for r in rows(seg_bytes, clk_mhz):
        lo, hi = r.ns(clk_mhz)
        clk = "125 MHz" if r.domain == "port" else f"{clk_mhz:g} MHz"
        out.append(f"| {r.stage} | {clk} | {r.fixed:g} | {r.wait:g} | {lo:.0f}..{hi:.0f} | {r.note} |")
    return "\n".join(out)
