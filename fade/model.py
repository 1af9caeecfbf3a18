"""FADE-10G host side in Python: frame codecs, the receiver buffer with ACK generation, the
command client (retries, exactly-once via csn), test-pattern checking, and a model of the core's
retransmission decisions (paper Figure 4b). Frame layouts come from fade/rtl/fade.fmt.toml.

    host = FadeHost(host_mac, fpga_mac, n=4)
    out = host.start()                    # a START command frame to send to the core
    for f in frames_from_core:
        out += host.receive(f)            # ACKs (and nothing else) to send back
    host.data                             # words delivered in order
    host.done                             # LAST packet received and everything before it

Protocol decisions: fade/README.md.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from fastpath import formats

F = formats.load("fade")
C = F.const
ETH_MIN = 60                                   # frame without FCS
WORDS = C["words_per_packet"]
DATA_OFF = F.layout("data").field("data").offset
NWORDS_OFF = F.layout("last").field("nwords").offset
MASK64 = (1 << 64) - 1
BROADCAST = 0xFFFF_FFFF_FFFF


def seq_newer(a: int, b: int) -> bool:
    """a > b for 16-bit frame sequence numbers (paper footnote 4): (a - b) mod 2^16 in 1..2^15."""
    d = (a - b) & 0xFFFF
    return 0 < d <= 0x8000


def pkt_older(a: int, b: int) -> bool:
    """a < b for 32-bit packet numbers (paper footnote 3)."""
    d = (b - a) & 0xFFFF_FFFF
    return 0 < d <= 0x8000_0000


def _pad(b: bytes) -> bytes:
    return b + bytes([C["filler"]]) * max(0, ETH_MIN - len(b))


def _hdr(dst: int, src: int) -> dict:
    return dict(dst=dst, src=src, ethertype=C["ethertype"], version=C["version"])


ACK_OFF = F.layout("ack").field("type").offset            # record 0
ACK_RECORD_LEN = C["ack_record_len"]
ACK_RECORDS_MAX = C["ack_records_max"]


def acks_frame(dst: int, src: int, records: list) -> bytes:
    """One ACK frame carrying 1..ACK_RECORDS_MAX records (seq, pkt, delay, nack) (fade/README.md,
    "ACK records"); with one record it is the paper's ACK frame."""
    assert 1 <= len(records) <= ACK_RECORDS_MAX
    body = b"".join(F.layout("ack").pack(**_hdr(dst, src), type=C["type_nack" if nack else "type_ack"],
                                         seq=seq, pkt=pkt, delay=delay)[ACK_OFF:]
                    for seq, pkt, delay, nack in records)
    return _pad(F.layout("header").pack(**_hdr(dst, src)) + body)


def ack_records(frame: bytes, limit: int = ACK_RECORDS_MAX) -> list:
    """The records a core taking `limit` per frame reads from an ACK frame: (nack, seq, pkt,
    delay) from record 0 on, while the type is ACK or NACK and all 12 bytes are in the frame."""
    out = []
    for i in range(limit):
        off = ACK_OFF + ACK_RECORD_LEN * i
        if off + ACK_RECORD_LEN > len(frame):
            break
        t = int.from_bytes(frame[off:off + 2], "big")
        if t not in (C["type_ack"], C["type_nack"]):
            break
        out.append((int(t == C["type_nack"]), int.from_bytes(frame[off + 2:off + 4], "big"),
                    int.from_bytes(frame[off + 4:off + 8], "big"), int.from_bytes(frame[off + 8:off + 12], "big")))
    return out


def pack_acks(frames: list, per_frame: int) -> list:
    """ACK frames of one record each (as FadeHost.receive returns them), repacked in order into
    frames of up to per_frame records, as a host does for a core that takes that many."""
    out = []
    for i in range(0, len(frames), per_frame):
        group = frames[i:i + per_frame]
        h = F.layout("header").unpack(group[0])
        recs = [(seq, pkt, delay, nack) for f in group for nack, seq, pkt, delay in ack_records(f, 1)]
        out.append(acks_frame(h["dst"], h["src"], recs))
    return out


def ack_frame(dst: int, src: int, seq: int, pkt: int, delay: int = 0, nack: bool = False) -> bytes:
    """The paper's ACK frame: one record."""
    return acks_frame(dst, src, [(seq, pkt, delay, nack)])


def cmd_frame(dst: int, src: int, cmd: int, csn: int, arg: int = 0) -> bytes:
    return _pad(F.layout("cmd").pack(**_hdr(dst, src), cmd=cmd, csn=csn, arg=arg))


@dataclass
class Data:
    """A data or LAST frame from the core."""
    dst: int
    src: int
    last: bool
    seq: int
    pkt: int
    delay: int
    resp: tuple | None          # (cmd, csn, value) or None
    words: list                 # valid words (1,024, or nwords for LAST)


@dataclass
class Resp:
    dst: int
    src: int
    resp: tuple


def parse(frame: bytes):
    """Data, Resp, or None for a frame that is not a FADE frame from the core."""
    h = F.layout("header").unpack(frame) if len(frame) >= 16 else None
    if h is None or h["ethertype"] != C["ethertype"] or h["version"] != C["version"]:
        return None
    t = int.from_bytes(frame[16:18], "big")
    if t == C["type_resp"]:
        r = F.layout("resp").unpack(frame)
        return Resp(h["dst"], h["src"], (r["resp_cmd"], r["resp_csn"], r["resp_val"]))
    if t not in (C["type_data"], C["type_last"]) or len(frame) < F.layout("data").length:
        return None
    d = F.layout("data").unpack(frame)
    last = t == C["type_last"]
    n = int.from_bytes(frame[NWORDS_OFF:NWORDS_OFF + 8], "little") if last else WORDS
    words = [int.from_bytes(frame[DATA_OFF + 8 * i:DATA_OFF + 8 * i + 8], "little") for i in range(min(n, WORDS))]
    resp = None if d["resp_cmd"] == C["cmd_none"] else (d["resp_cmd"], d["resp_csn"], d["resp_val"])
    return Data(h["dst"], h["src"], last, d["seq"], d["pkt"], d["delay"], resp, words)


def data_frame(dst: int, src: int, seq: int, pkt: int, words: list, last: bool = False,
               delay: int = 0, resp: tuple | None = None) -> bytes:
    """A data/LAST frame as the core builds it (for host-side tests and emulators)."""
    rc, rs, rv = resp if resp else (C["cmd_none"], 0, 0)
    hdr = F.layout("data").pack(**_hdr(dst, src), type=C["type_last" if last else "type_data"], seq=seq,
                                pkt=pkt, delay=delay, resp_cmd=rc, resp_csn=rs, resp_val=rv)[:DATA_OFF]
    body = bytearray(8 * WORDS)
    for i, w in enumerate(words[:WORDS - 1] if last else words):
        body[8 * i:8 * i + 8] = (w & MASK64).to_bytes(8, "little")
    if last:
        body[-8:] = len(words).to_bytes(8, "little")
    return hdr + bytes(body)


class CommandClient:
    """Host side of exactly-once commands: one outstanding command, resent until answered."""

    def __init__(self, first_csn: int = 1):
        self.csn = first_csn & 0xFFFF
        self.pending: tuple | None = None      # (code, csn, arg)
        self.results: list = []                # (code, csn, value) in completion order
        self.sent = 0
        self.retries = 0
        self.stale = 0                         # responses that matched no pending command

    def issue(self, code: int, arg: int = 0) -> tuple:
        assert self.pending is None, "one command at a time"
        self.pending = (code, self.csn, arg)
        self.csn = (self.csn + 1) & 0xFFFF
        self.sent += 1
        return self.pending

    def retry(self) -> tuple:
        assert self.pending is not None
        self.retries += 1
        self.sent += 1
        return self.pending

    def on_response(self, resp: tuple) -> bool:
        code, csn, value = resp
        if self.pending is not None and (code, csn) == self.pending[:2]:
            self.results.append((code, csn, value))
            self.pending = None
            return True
        self.stale += 1
        return False


def pattern(first: int, step: int, n: int, start: int = 0) -> list:
    """The test pattern: word i = first + i * step (mod 2^64), i.e. word i = word i-1 + step."""
    return [(first + (start + i) * step) & MASK64 for i in range(n)]


def check_pattern(words: list, step: int) -> int | None:
    """Index of the first word that breaks word i = word i-1 + step, or None."""
    for i in range(1, len(words)):
        if words[i] != (words[i - 1] + step) & MASK64:
            return i
    return None


@dataclass
class FadeHost:
    """The host's receiver: buffer of 2^n_cpu packets, ACKs every data packet (new or duplicate),
    drops packets from the future (protocol error), delivers words in order, handles responses."""

    host_mac: int
    fpga_mac: int
    n: int = 4
    n_cpu: int = 8
    cmd: CommandClient = field(default_factory=CommandClient)
    first_pkt: int = 0                 # packet number after START (the core's PKT_INIT)
    head: int = 0                      # first packet not yet received in order
    slots: dict = field(default_factory=dict)
    data: list = field(default_factory=list)
    last_pkt: int | None = None
    done: bool = False
    received: int = 0                  # new data packets
    duplicates: int = 0
    future: int = 0                    # protocol errors (packets beyond the window)
    foreign: int = 0
    acks: int = 0
    seqs: list = field(default_factory=list)   # (seq, pkt) of every data frame seen, in order
    delays: list = field(default_factory=list)
    board_records: int = 1             # ACK records per frame the core takes (its START response)

    @property
    def window(self) -> int:
        return 1 << self.n

    def command(self, code: int, arg: int = 0) -> bytes:
        code, csn, arg = self.cmd.issue(code, arg)
        return cmd_frame(self.fpga_mac, self.host_mac, code, csn, arg)

    def retry(self) -> bytes:
        code, csn, arg = self.cmd.retry()
        return cmd_frame(self.fpga_mac, self.host_mac, code, csn, arg)

    def start(self) -> bytes:
        self.head, self.slots, self.data, self.last_pkt, self.done = self.first_pkt, {}, [], None, False
        return self.command(C["cmd_start"])

    def stop(self) -> bytes:
        return self.command(C["cmd_stop"])

    def reset(self, broadcast: bool = False) -> bytes:
        self.cmd.pending = None
        return cmd_frame(BROADCAST if broadcast else self.fpga_mac, self.host_mac, C["cmd_reset"], 0)

    def receive(self, frame: bytes) -> list:
        """Handle one frame from the core; returns the frames to send back (ACKs)."""
        p = parse(frame)
        if p is None or p.src != self.fpga_mac or p.dst != self.host_mac:
            self.foreign += 1
            return []
        if p.resp is not None:
            if self.cmd.on_response(p.resp) and p.resp[0] == C["cmd_start"]:
                self.board_records = max(1, min(ACK_RECORDS_MAX, p.resp[2] & 0xFF))
        if isinstance(p, Resp):
            return []
        self.seqs.append((p.seq, p.pkt))
        self.delays.append(p.delay)
        ack = [ack_frame(self.fpga_mac, self.host_mac, p.seq, p.pkt, p.delay)]
        if pkt_older(p.pkt, self.head) or p.pkt in self.slots:
            self.duplicates += 1
        elif ((p.pkt - self.head) & 0xFFFF_FFFF) >= min(self.window, 1 << self.n_cpu):
            self.future += 1
            return []
        else:
            self.received += 1
            self.slots[p.pkt] = p.words
            if p.last:
                self.last_pkt = p.pkt
            while self.head in self.slots:
                self.data.extend(self.slots.pop(self.head))
                if self.head == self.last_pkt:
                    self.done = True
                self.head = (self.head + 1) & 0xFFFF_FFFF
        self.acks += 1
        return ack


class CoreRetransModel:
    """The core's early-retransmission decision (paper Figure 4b), for checking the RTL.

    send(pkt) records a (re)transmission with the next frame sequence number; ack(seq, pkt)
    confirms pkt and returns the packets to retransmit at once: every sent, unconfirmed packet
    before pkt whose last sequence number is older than the ACK's."""

    def __init__(self):
        self.seq = 0
        self.last_seq: dict = {}
        self.confirmed: set = set()

    def send(self, pkt: int) -> int:
        s = self.seq
        self.last_seq[pkt] = s
        self.seq = (self.seq + 1) & 0xFFFF
        return s

    def ack(self, seq: int, pkt: int) -> list:
        if pkt in self.confirmed or pkt not in self.last_seq:
            return []
        self.confirmed.add(pkt)
        return sorted(q for q, s in self.last_seq.items()
                      if pkt_older(q, pkt) and q not in self.confirmed and seq_newer(seq, s))
