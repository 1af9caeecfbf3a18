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


# ---- the word-serial node (fp_node_w, node/docs/word-serial.md) ----------------------------------
# One clock (125 MHz: the datapath and every TX MAC), so every row is in 8 ns cycles. The rows up to
# "word 0 back at the TX port" are the path that sets the release time: a frame's descriptor and
# its word 0 (the words after it are written into the buffer long before the TX reads them:
# w_word_slack_cycles). The waits are each module's stated worst case with every port loaded.

W_TAIL_CYCLES = 11      # release rule met (T) -> SFD sampled at the TX pins: T + 2 first byte
#                         valid, the MAC's input edge, fp_eth_mac_1g_tx's 7 cycles, the PHY's edge


HOSTS = 2               # fp_node_w's host ports: lanes = ports + 2


def _w_geometry(ports: int) -> tuple[int, int]:
    """(lanes, RD_WAIT) as fp_node_w chooses them."""
    lanes = ports + HOSTS
    return lanes, min(lanes + 1, 15)


def w_rows(ports: int = 4) -> list[Row]:
    """The rows for a switch port's frame: the lookup and push arbiters serve the ports before
    the host lanes (fp_node_wprio), so a port waits for at most ports - 1 others; the buffer's
    read arbiter is a plain round robin over every lane's TX."""
    lanes, rd_wait = _w_geometry(ports)
    return [
        Row("RX MAC: SFD sampled -> byte 0 on m_axis", "port", 7, 0, "fp_eth_mac_1g_rx, input register"),
        Row("bytes 1..15 (the lookup key: DA, SA, tag)", "port", 15, 0, "one byte per 8 ns at 1G"),
        Row("fp_node_wrx: the key into clk", "port", 5, 0,
            "fp_axis_async_fifo: at most 5 clk periods (word 0: 6, a register first)"),
        Row("fp_node_wdec: K1, K2 (VLAN, buckets), request", "port", 2, 0, ""),
        Row("fp_node_wdec: lookup arbitration", "port", 0, ports - 1,
            "one lookup per cycle, ports before hosts"),
        Row("LK0 + fp_node_wl2: lookup", "port", 6, 0, "the request register, then 5"),
        Row("fp_node_wdec: decision, push, descriptor", "port", 3, ports - 1,
            "D registered, X1, X2 (m_desc_valid); one push per cycle, ports before hosts"),
        Row("fp_node_wtx: descriptor -> word 0 request", "port", 2, 0, ""),
        Row("fp_node_wbuf: read grant", "port", 0, rd_wait, f"round robin over {lanes} readers"),
        Row("fp_node_wbuf: read", "port", 6, 0, "RD_LATENCY"),
        Row("fp_node_wtx: word 0 in by T - 1, a strip frame's by T - 5", "port", 5, 0,
            "T = the cycle the release rule is met; a strip frame starts 4 cycles early"),
        Row("fp_node_wtx + TX MAC: T -> SFD sampled at the TX pins", "port", W_TAIL_CYCLES, 0,
            "first byte valid in T + 2, the MAC's 7 cycles, the PHY's edge"),
    ]


def w_fixed_cycles(ports: int = 4) -> int:
    """SFD sampled -> release rule met, every wait at 0: the earliest release that can hold."""
    return int(sum(r.fixed for r in w_rows(ports)[:-1]))


def w_release_ns(ports: int = 4) -> int:
    """The release time: every row's worst case up to the release rule, in ns."""
    return int(sum(r.fixed + r.wait for r in w_rows(ports)[:-1]) * PORT_NS)


def w_latency_ns(ports: int = 4) -> float:
    """SFD sampled at the RX pin -> SFD sampled at the TX pin with w_release_ns, when the RX clock
    is clk in phase (an RX clock of another phase adds the time to the next clk edge)."""
    return w_release_ns(ports) + W_TAIL_CYCLES * PORT_NS


def w_word_slack_cycles(ports: int = 4) -> int:
    """How much earlier than needed the TX port's read of word k >= 1 finds it written, at the
    release time above (>= 0: the words after word 0 never set the release). Word k's last byte
    is sampled 7 + 16k + 15 cycles after the SFD, reaches the buffer 6 cycles later, waits at most
    `ports + 2` cycles for its write slot (every lane writes) and is readable 2 cycles after its
    beat; the TX port requests
    it no earlier than G + 16k + 7 - TURN, G = T - 3 for a strip frame (T + 1 otherwise),
    TURN = RD_WAIT + 6 + 1."""
    lanes, rd_wait = _w_geometry(ports)
    t = w_release_ns(ports) // int(PORT_NS)
    g = t - 3
    turn = rd_wait + 6 + 1
    return (g + 7 - turn) - (7 + 15 + 6 + lanes + 2)


def w_table(ports: int = 4) -> str:
    out = ["| stage | cycles | worst wait | ns (min..max) | note |", "|---|---|---|---|---|"]
    for r in w_rows(ports):
        lo, hi = r.ns(125.0)
        out.append(f"| {r.stage} | {r.fixed:g} | {r.wait:g} | {lo:.0f}..{hi:.0f} | {r.note} |")
    return "\n".join(out)
