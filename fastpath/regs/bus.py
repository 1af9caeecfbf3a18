"""The AXI4-Lite bus behaviour every register map has.

The protocol is not generated: every `fp_<name>_regs` instantiates the hand-written shared slave
`lib/rtl/fp_axil_slave.v` (SLAVE) and adds only its map's decode and registers. These constants
state that slave's contract; the generated module's header, the docs and the tests
(lib/tb/test_axil_slave.py, lib/tb/test_regs_generated.py) use them.
"""

SLAVE = "fp_axil_slave"

# rvalid rises READ_LATENCY cycles after the AR handshake (data sampled in the cycle after it);
# bvalid rises WRITE_LATENCY cycles after the later of the AW and W handshakes (the write commits
# in the cycle between) when nothing is ahead of it.
READ_LATENCY = 3
WRITE_LATENCY = 2
RESP_OKAY = 0
RESP_SLVERR = 2
UNMAPPED_READ_VALUE = 0


def read_pipeline(rows: list[dict], start: int) -> tuple[list[int], list[int], list[int]]:
    """The slave's read stages replayed from the bus signals alone, one row per cycle (dicts with
    s_axil_arvalid/arready/rvalid/rready as ints): the cycles at which reads start (their address
    enters stage 0: reg_rd_start), are served (enter stage 1, the data sampled: reg_rd_en) and
    move into the R register. A stage is free when empty or when its read moves on; a read moves
    into R when R is empty or its response is taken; an address waits while arvalid is high or
    the AR holding register is full (arready low)."""
    p0 = p1 = False
    started, served, moved = [], [], []
    for c in range(start, len(rows)):
        row = rows[c]
        adv2 = p1 and (row["s_axil_rvalid"] != 1 or row["s_axil_rready"] == 1)
        adv1 = p0 and (not p1 or adv2)
        go = (row["s_axil_arready"] == 0 or row["s_axil_arvalid"] == 1) and (not p0 or adv1)
        if adv2:
            moved.append(c)
        if adv1:
            served.append(c)
        if go:
            started.append(c)
        p1 = adv1 or (p1 and not adv2)
        p0 = go or (p0 and not adv1)
    return started, served, moved


def write_pipeline(rows: list[dict], start: int) -> tuple[list[int], list[int]]:
    """The slave's write stages replayed from the bus signals alone: the cycles at which writes
    start (address and data enter stage 1: reg_wr_start) and commit (reg_wr_en; bvalid follows).
    A write starts when both its AW and W are there (valid high, or the holding register full:
    ready low) and stage 1 is empty or commits; it commits when B is empty or its response is
    taken."""
    w1 = False
    started, committed = [], []
    for c in range(start, len(rows)):
        row = rows[c]
        commit = w1 and (row["s_axil_bvalid"] != 1 or row["s_axil_bready"] == 1)
        go = (row["s_axil_awready"] == 0 or row["s_axil_awvalid"] == 1) and \
            (row["s_axil_wready"] == 0 or row["s_axil_wvalid"] == 1) and (not w1 or commit)
        if commit:
            committed.append(c)
        if go:
            started.append(c)
        w1 = go or (w1 and not commit)
    return started, committed
