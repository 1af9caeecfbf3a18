"""Frame-level reference model of the whole node (fp_node) and its scoreboard.

    m = NodeModel(NodeCfg(ports=12))
    copies = m.ingress(port, frame)            # in SFD order: [(out, frame as it must leave)], or
                                               # [] with m.last_reason the drop reason
    sb = Scoreboard(m)
    sb.send(port, frame)                       # every frame offered, in SFD order
    sb.check(out_frames_by_port, drops=...)    # what came out, per output port, in order

The model is fp_node_rxproc's decision (`fastpath.node.l2.classify`, which includes the
learning table) followed by ROUTE's egress VLAN edit. It knows nothing of time: frames it cannot
place because the buffer or a queue was full are the scoreboard's business (a frame may be
missing from an output only if the node counted it dropped; what arrives must be exact and in
order per (input, output) pair).
"""
from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

from fastpath.node import l2 as node_l2
from fastpath.node.l2 import L2Table, RxCfg, Vlan  # noqa: F401  (re-exported for callers)

TPID = 0x8100


@dataclass
class NodeCfg:
    ports: int = 12
    datapaths: int = 2
    seg_bytes: int = 64
    rx: RxCfg | None = None          # switching configuration (ports, VLANs, host options)
    buckets: int = 128
    ways: int = 8

    def __post_init__(self):
        if self.rx is None:
            self.rx = RxCfg(ports=self.ports, seg_bytes=self.seg_bytes)

    def datapath(self, port: int) -> int:
        per = -(-self.ports // self.datapaths)
        return port // per


def egress(frame: bytes, out: int, d: node_l2.Decision, cfg: RxCfg) -> bytes:
    """ROUTE's VLAN edit for a copy leaving on `out` (node/README.md)."""
    if out >= cfg.ports:                 # host: unchanged
        return frame
    trunk = (cfg.port_trunk >> out) & 1
    want_tag = bool(trunk and d.vid != cfg.pvid[out])
    if d.tagged and not want_tag:
        return frame[:12] + frame[16:]
    if not d.tagged and want_tag:
        tci = (d.pcp << 13) | d.vid
        return frame[:12] + TPID.to_bytes(2, "big") + tci.to_bytes(2, "big") + frame[12:]
    return frame


class NodeModel:
    def __init__(self, cfg: NodeCfg):
        self.cfg = cfg
        self.table = L2Table(cfg.buckets, cfg.ways)
        self.last_reason = 0
        self.last_decision: node_l2.Decision | None = None

    def ingress(self, port: int, frame: bytes, bad: bool = False) -> list[tuple[int, bytes]]:
        """The copies of one frame (input `port` < ports, or a host port ports + d)."""
        rx = self.cfg.rx
        d = node_l2.classify(frame, port, rx, self.table, bad=bad)
        self.last_decision = d
        self.last_reason = d.reason
        if d.discard:
            return []
        outs = [o for o in range(self.cfg.ports) if (d.dst_set >> o) & 1]
        # a port's TX MAC pads a frame to 60 bytes (a 64-byte tagged frame stripped on egress)
        copies = [(o, egress(frame, o, d, rx).ljust(60, b"\0")) for o in outs]
        if d.to_host:
            dp = port - self.cfg.ports if port >= self.cfg.ports else self.cfg.datapath(port)
            copies.append((self.cfg.ports + dp, frame))
        return copies


@dataclass
class Scoreboard:
    """Checks what left the node against the model (see the module docstring)."""
    model: NodeModel
    expected: dict = field(default_factory=lambda: defaultdict(list))   # out -> [(in, frame)]
    offered: int = 0
    model_drops: dict = field(default_factory=lambda: defaultdict(int))  # reason -> frames
    # order is kept per (input, output, priority): the two priority queues of an output may
    # overtake each other, so with by_prio the order is checked per (input, prio) stream
    by_prio: bool = False

    def send(self, port: int, frame: bytes, bad: bool = False) -> list[tuple[int, bytes]]:
        self.offered += 1
        copies = self.model.ingress(port, frame, bad=bad)
        if not copies:
            self.model_drops[self.model.last_reason] += 1
        src = (port, bool(self.model.last_decision.prio)) if self.by_prio else port
        for o, f in copies:
            self.expected[o].append((src, f))
        return copies

    def check(self, got: dict, allow_missing: bool = False) -> dict:
        """got: out -> [frame bytes] in the order they left. Every frame that left must be the
        next expected one of its (input, output) pair (so nothing unexpected, duplicated,
        mangled or reordered; frames must be unique, e.g. by an id in the payload); with allow_missing, expected frames may be absent (dropped:
        the caller compares the count with the node's drop counters). Returns
        {"delivered", "missing", "missing_by_out"}."""
        delivered = missing = 0
        missing_by_out: dict = defaultdict(int)
        for out in sorted(set(self.expected) | set(got)):
            per_in: dict = defaultdict(list)          # input -> [frame] in the order sent
            for src, f in self.expected.get(out, []):
                per_in[src].append(f)
            head = {src: 0 for src in per_in}         # next unmatched position per input
            for f in got.get(out, []):
                found = None
                for src, want in per_in.items():
                    try:
                        j = want.index(f, head[src])
                    except ValueError:
                        continue
                    found = (src, j)
                    break
                if found is None:
                    raise AssertionError(f"output {out}: unexpected frame (len {len(f)}) {f[:32].hex()}... "
                                         "(not expected, a duplicate, mangled, or out of order)")
                src, j = found
                if j > head[src] and not allow_missing:
                    raise AssertionError(f"output {out}: {j - head[src]} frames from port {src} missing "
                                         "before one that arrived (lost or reordered)")
                missing += j - head[src]
                missing_by_out[out] += j - head[src]
                delivered += 1
                head[src] = j + 1
            for src, want in per_in.items():
                left = len(want) - head[src]
                if left and not allow_missing:
                    raise AssertionError(f"output {out}: {left} frames from port {src} never left; "
                                         f"first: {want[head[src]][:32].hex()}...")
                missing += left
                missing_by_out[out] += left
        return {"delivered": delivered, "missing": missing, "missing_by_out": dict(missing_by_out)}
