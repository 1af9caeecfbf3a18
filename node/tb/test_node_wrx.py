"""fp_node_wrx: random frames (1..MAX_BYTES and longer; untagged, 802.1Q, 802.1ad, QinQ; IPv4,
IPv6, ARP, other types; some bad, runts) driven as the RX MAC's byte stream (one byte per rx_clk
cycle, no tready, 20..40 idle cycles between frames) into the port; every word, key and cls
descriptor checked against a Python model; exact latency with rx_clk = clk in phase, the bound at
+-125 ppm and random phase; random backpressure on all three outputs (AxiStreamSink on the words);
long stops for the overflow paths (frames cut with last + bad, or dropped whole) and the events.

There is no test wrapper of fp_eth_mac_1g's RX in node/tb/harness, so the test drives the MAC-side
byte stream itself (Driver). Times are in ps at the clock edges where things happen: the rx_clk
edge that takes a byte, and the first clk edge at which an output's valid is sampled high.
"""
import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import RisingEdge, Timer, with_timeout
from cocotbext.axi import AxiStreamBus, AxiStreamSink

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.monitor import BeatMonitor, high, now_ps, uint
from fastpath.sim.tb import params, random_bytes, rng

NW = formats.load("node_word")

CLK_PS = 8000                      # 125 MHz, clk and (nominally) rx_clk
# Latency (RTL header), clk periods from the rx_clk edge taking the completing byte to the clk
# edge sampling valid high: in phase exactly LAT; otherwise more than LAT - 1 (LAT - 1 on a clk edge
# that coincides with the rx_clk edge and samples the new pointer), at most LAT. The descriptors
# (m_key, m_cls) take LAT_HDR, the words LAT_WORD (their write is registered once more before
# the crossing).
LAT_HDR = 5
LAT_WORD = 6
TPIDS = (0x8100, 0x88A8)
KEY_FIELDS = ("da", "sa", "tagged", "tci", "ts", "short", "bad")
CLS_FIELDS = ("ethertype", "ip_valid", "ip_proto", "short")
EVENTS = ("ev_frame", "ev_trunc", "ev_overflow")


def cfg():
    p = params()
    return {"max": p.get("MAX_BYTES", 1518), "depth": p.get("FIFO_WORDS", 16)}


# ---------------------------------------------------------------------------------------- model

def model(data: bytes, bad: bool, ts: int, mx: int) -> dict:
    """Expected words, key and cls of one frame, with the byte index that completes each."""
    n = len(data)
    trunc = n > mx
    keep = data[:mx] if trunc else data
    words = []
    for s in range(0, len(keep), 16):
        chunk = keep[s:s + 16]
        last = s + 16 >= len(keep)
        words.append({"data": chunk + bytes(16 - len(chunk)) if last else chunk, "last": int(last),
                      "bad": int(last and (bad or trunc)), "nbytes_m1": len(chunk) - 1,
                      "done": s + len(chunk) - 1})

    def b(i):
        return data[i] if i < n else 0

    def be(i, k):
        return int.from_bytes(bytes(b(j) for j in range(i, i + k)), "big")

    tagged = n >= 14 and be(12, 2) in TPIDS
    key = {"da": be(0, 6), "sa": be(6, 6), "tagged": int(tagged), "tci": be(14, 2),
           "ts": (ts >> 16) & 0xFFFFFF, "short": int(n < 16), "bad": int(n <= 16 and bad),
           "done": min(15, n - 1)}
    off = 16 if tagged else 12
    et = be(off, 2)
    et_complete = n >= off + 2
    ip4, ip6 = et_complete and et == 0x0800, et_complete and et == 0x86DD
    pp = off + 11 if ip4 else off + 8
    need = pp if (ip4 or ip6) else off + 1          # the byte that completes the fields
    short = n - 1 < need
    ipv = (ip4 or ip6) and not short
    at = pp if (ip4 or ip6) else 19 if tagged else 15   # the byte that writes it (RTL header)
    cls = {"ethertype": et, "ip_valid": int(ipv), "ip_proto": b(pp) if ipv else 0,
           "short": int(short), "done": min(n - 1, at)}
    return {"words": words, "key": key, "cls": cls, "trunc": trunc}


def random_frame(r, mx):
    k = r.random()
    if k < 0.15:
        n = r.randint(1, 63)                 # runts (the MAC marks them bad)
    elif k < 0.55:
        n = r.randint(64, 200)
    elif k < 0.88:
        n = r.randint(64, mx)
    elif k < 0.94:
        n = mx + r.randint(-2, 0)
    else:
        n = r.randint(mx + 1, mx + 60)     # longer than MAX_BYTES: truncated
    h = bytearray(random_bytes(r, 12))
    tag = r.choice((None, None, None, 0x8100, 0x88A8))
    if tag:
        h += tag.to_bytes(2, "big") + random_bytes(r, 2)
        if tag == 0x88A8 and r.random() < 0.3:
            h += (0x8100).to_bytes(2, "big") + random_bytes(r, 2)   # QinQ: the inner TPID is the type
    et = r.choice((0x0800, 0x0800, 0x86DD, 0x0806, 0x8100 if not tag else 0x88CC, r.getrandbits(16)))
    h += et.to_bytes(2, "big")
    if r.random() < 0.1:                   # a few frames that look like TPID / IP prefixes
        h[12] = r.choice((0x81, 0x88, 0x08, 0x86))
    data = bytes(h) + random_bytes(r, max(0, n - len(h)))
    return data[:n], n < 64 or r.random() < 0.15, r.getrandbits(64)


# ---------------------------------------------------------------------------------------- bench

class Tb:
    def __init__(self, dut, r, rx_ps=CLK_PS, phase_ps=0):
        self.dut, self.r, self.c = dut, r, cfg()
        self.rx_ps, self.phase_ps = rx_ps, phase_ps
        d = dut
        for s in (d.rx_clk, d.clk):
            s.value = 0
        d.rx_rst.value = 1
        d.rst.value = 1
        d.s_axis_tvalid.value = 0
        d.s_axis_tdata.value = 0
        d.s_axis_tlast.value = 0
        d.s_axis_tuser.value = 0
        d.s_axis_ts.value = 0
        d.m_key_ready.value = 1
        d.m_cls_ready.value = 1
        self.sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis"), dut.clk, dut.rst)
        self.sink.log.setLevel("WARNING")
        self.words = BeatMonitor(dut, "m_axis", dut.clk, dut.rst)
        sig = {"key": {"tvalid": d.m_key_valid, "tready": d.m_key_ready},
               "cls": {"tvalid": d.m_cls_valid, "tready": d.m_cls_ready}}
        self.key = BeatMonitor(dut, "m_key", dut.clk, dut.rst, signals=sig["key"], extra=KEY_FIELDS)
        self.cls = BeatMonitor(dut, "m_cls", dut.clk, dut.rst, signals=sig["cls"], extra=CLS_FIELDS)
        self.present = []          # per word: ps of the first clk edge sampling valid high with it
        self.events = dict.fromkeys(EVENTS, 0)
        self._pres = None
        self.words.every_cycle(self._each)
        self.byte_ps = []          # per frame: the rx_clk edge (ps) taking each byte
        self.hdr_mode = ("always", 0.0)

    def _each(self, _cycle):
        d = self.dut
        if high(d.rst):
            return
        for ev in EVENTS:
            self.events[ev] += high(getattr(d, ev))
        if high(d.m_axis_tvalid):
            if self._pres is None:
                self._pres = now_ps() + CLK_PS
            if high(d.m_axis_tready):
                self.present.append(self._pres)
                self._pres = None

    async def start(self):
        d = self.dut
        cocotb.start_soon(Clock(d.clk, CLK_PS, unit="ps").start())
        if self.phase_ps:
            await Timer(self.phase_ps, unit="ps")
        cocotb.start_soon(Clock(d.rx_clk, self.rx_ps, unit="ps", period_high=self.rx_ps // 2).start())
        await Timer(5 * CLK_PS, unit="ps")
        await RisingEdge(d.clk)
        d.rst.value = 0
        await RisingEdge(d.rx_clk)
        d.rx_rst.value = 0
        cocotb.start_soon(self._hdr_ready())

    async def _hdr_ready(self):
        """m_key_ready / m_cls_ready: always, random (p = probability low), or stopped for stretches."""
        d, r = self.dut, self.r
        off = {"key": 0, "cls": 0}
        while True:
            await RisingEdge(d.clk)
            mode, p = self.hdr_mode
            for name, sig in (("key", d.m_key_ready), ("cls", d.m_cls_ready)):
                if mode == "random":
                    sig.value = int(r.random() >= p)
                elif mode == "bursty":
                    if off[name] > 0:
                        off[name] -= 1
                        sig.value = 0
                    elif r.random() < p:
                        off[name] = r.randint(300, 3000)
                    else:
                        sig.value = 1
                else:
                    sig.value = 1

    async def drive(self, frames, gap=(20, 40)):
        """The RX MAC's stream: one byte per rx_clk cycle, no tready, gap idle cycles between frames."""
        d = self.dut
        for data, bad, ts in frames:
            t = []
            for i, byte in enumerate(data):
                await RisingEdge(d.rx_clk)
                last = i == len(data) - 1
                d.s_axis_tvalid.value = 1
                d.s_axis_tdata.value = byte
                d.s_axis_tlast.value = int(last)
                d.s_axis_tuser.value = int(last and bad)
                if i == 0:
                    d.s_axis_ts.value = ts
                t.append(now_ps() + self.rx_ps)
            self.byte_ps.append(t)
            await RisingEdge(d.rx_clk)
            d.s_axis_tvalid.value = 0
            d.s_axis_tlast.value = 0
            d.s_axis_tuser.value = 0
            for _ in range(self.r.randint(*gap) - 1):
                await RisingEdge(d.rx_clk)

    async def run(self, frames, gap=(20, 40), quiet=400, stop=None):
        total = sum(len(f[0]) + gap[1] for f in frames)
        await with_timeout(self.drive(frames, gap), 2 * total * self.rx_ps + 10**6, "ps")
        if stop is not None:                      # the readers resume for good: drain
            stop["off"] = True
            stop["left"] = 0
            self.hdr_mode = ("always", 0.0)
        idle, seen = 0, -1
        while idle < quiet:                       # until the outputs have been still a while
            await RisingEdge(self.dut.clk)
            n = len(self.words.beats) + len(self.key.beats) + len(self.cls.beats)
            idle = idle + 1 if n == seen else 0
            seen = n

    def check(self, frames, overflow_ok=False):
        """Compare with the model. Returns per-kind latency lists (clk periods) and the counts."""
        mx = self.c["max"]
        keys = [{f: b[f] for f in KEY_FIELDS} | {"ps": f.first_valid_ps + CLK_PS}
                for f in self.key.frames for b in f.beats]
        clss = [{f: b[f] for f in CLS_FIELDS} | {"ps": f.first_valid_ps + CLK_PS}
                for f in self.cls.frames for b in f.beats]
        wframes = [f.beats for f in self.words.frames]
        assert self.words.current is None or not self.words.current.beats, "output ends inside a frame"
        assert len(keys) == len(clss) == len(wframes), \
            f"{len(keys)} keys, {len(clss)} cls, {len(wframes)} word frames: {[len(x) for x in wframes]}"
        present = iter(self.present)
        lat = {"word": [], "key": [], "cls": []}
        prev_present = None
        n = {"drop": 0, "cut": 0, "trunc": 0}
        gi = 0
        for fi, (data, bad, ts) in enumerate(frames):
            m = model(data, bad, ts, mx)
            want_key = {k: v for k, v in m["key"].items() if k != "done"}
            got_key = keys[gi] if gi < len(keys) else None
            if got_key is None or {k: got_key[k] for k in KEY_FIELDS} != want_key:
                assert overflow_ok, f"frame {fi} ({len(data)} bytes): key {got_key} != {want_key}"
                n["drop"] += 1
                continue
            got_cls = clss[gi]
            want_cls = {k: v for k, v in m["cls"].items() if k != "done"}
            assert {k: got_cls[k] for k in CLS_FIELDS} == want_cls, \
                f"frame {fi} ({len(data)} bytes): cls {got_cls} != {want_cls}"
            bt = self.byte_ps[fi]
            lat["key"].append((got_key["ps"] - bt[m["key"]["done"]]) / CLK_PS)
            lat["cls"].append((got_cls["ps"] - bt[m["cls"]["done"]]) / CLK_PS)
            g = wframes[gi]
            gi += 1
            want = m["words"]
            if len(g) != len(want):
                assert overflow_ok and len(g) < len(want), f"frame {fi}: {len(g)} words, want {len(want)}"
                n["cut"] += 1
                want = want[:len(g) - 1] + [dict(want[len(g) - 1], last=1, bad=1)]
            elif m["trunc"]:
                n["trunc"] += 1
            for k, (beat, w) in enumerate(zip(g, want)):
                u = NW.unpack(beat["tuser"])
                got = {"data": beat["tdata"].to_bytes(16, "little")[:len(w["data"])], "last": beat["tlast"],
                       "bad": u["bad"], "nbytes_m1": u["nbytes_m1"]}
                assert u["last"] == beat["tlast"], f"frame {fi} word {k}: tlast != sideband last"
                exp = {x: w[x] for x in got}
                if w["last"]:   # bytes beyond nbytes_m1 of a last word are 0
                    got["data"] = beat["tdata"].to_bytes(16, "little")
                    exp["data"] = w["data"] + bytes(16 - len(w["data"]))
                assert got == exp, f"frame {fi} word {k}: {got} != {exp}"
                p = next(present)
                x = (p - bt[w["done"]]) / CLK_PS
                # a word presented right after the previous one waited behind it (not latency)
                lat["word"].append((x, prev_present is not None and p - prev_present <= CLK_PS))
                prev_present = p
        assert gi == len(keys), f"{len(keys) - gi} unexpected output frames"
        assert self.events["ev_frame"] == len(frames), self.events
        assert self.events["ev_overflow"] == n["drop"] + n["cut"], (self.events, n)
        assert self.events["ev_trunc"] == n["trunc"], (self.events, n)
        assert not high(self.dut.m_axis_tvalid) and not high(self.dut.m_key_valid) \
            and not high(self.dut.m_cls_valid), "output left over"
        return lat, n

    def assert_latency(self, lat, exact):
        words = [x for x, _ in lat["word"]]
        for kind, xs in (("key", lat["key"]), ("cls", lat["cls"])):
            if exact:
                assert set(xs) == {LAT_HDR}, (kind, sorted(set(xs)))
            else:
                assert all(LAT_HDR - 1 <= x <= LAT_HDR for x in xs), (kind, min(xs), max(xs))
        if exact:
            assert set(words) == {LAT_WORD}, sorted(set(words))
        else:
            bad = [(x, b) for x, b in lat["word"]
                   if not (LAT_WORD - 1 <= x <= LAT_WORD or (b and x <= LAT_WORD + 1))]
            assert not bad, bad
        self.dut._log.info("latency (clk periods): word %.3f..%.3f key %.3f..%.3f cls %.3f..%.3f",
                           min(words), max(words), min(lat["key"]), max(lat["key"]),
                           min(lat["cls"]), max(lat["cls"]))


def frames_for(r, c, count):
    return [random_frame(r, c["max"]) for _ in range(count)]


# ---------------------------------------------------------------------------------------- tests

@cocotb.test()
async def in_phase_exact_latency(dut):
    """rx_clk = clk, same phase, every output always ready: every word and descriptor equals the
    model, each arrives exactly LAT_WORD / LAT_HDR cycles after its completing byte; key LAT_HDR + 15
    after byte 0."""
    r = rng()
    tb = Tb(dut, r)
    await tb.start()
    frames = frames_for(r, tb.c, 40)
    frames[:4] = [(random_bytes(r, 17), False, 1 << 16), (random_bytes(r, 1), True, 2 << 16),
                  (random_bytes(r, 16), True, 3 << 16), (random_bytes(r, 33), False, 4 << 16),
                  (random_bytes(r, tb.c["max"] + 5), False, 5 << 16)]   # truncated
    await tb.run(frames)
    lat, n = tb.check(frames)
    tb.assert_latency(lat, exact=True)
    for fi, (data, _, _) in enumerate(frames):   # key from the frame's first byte
        if len(data) >= 16:
            k = tb.key.frames[fi]
            assert (k.first_valid_ps + CLK_PS - tb.byte_ps[fi][0]) / CLK_PS == LAT_HDR + 15
    assert n["cut"] == n["drop"] == 0 and n["trunc"] > 0


@cocotb.test()
async def random_backpressure(dut):
    """Random backpressure on the words (AxiStreamSink) and both descriptors, random phase:
    output == model, nothing lost (the reader keeps up on average)."""
    r = rng()
    tb = Tb(dut, r, phase_ps=r.randint(1, CLK_PS - 1))
    await tb.start()
    tb.sink.set_pause_generator(iter(lambda: r.random() < 0.4, None))
    tb.hdr_mode = ("random", 0.4)
    frames = frames_for(r, tb.c, 40)
    await tb.run(frames, gap=(20, 22))
    _, n = tb.check(frames)
    assert n["cut"] == n["drop"] == 0


async def ppm(dut, rx_ps):
    r = rng()
    tb = Tb(dut, r, rx_ps=rx_ps, phase_ps=r.randint(1, CLK_PS - 1))
    await tb.start()
    frames = frames_for(r, tb.c, 40)
    await tb.run(frames, gap=(20, 24))
    lat, n = tb.check(frames)
    tb.assert_latency(lat, exact=False)
    assert n["cut"] == n["drop"] == 0


@cocotb.test()
async def rx_fast_125ppm(dut):
    """rx_clk 125 ppm faster than clk (7999 ps: the nearest ps to 100 ppm is beyond it), random
    phase, short gaps: data intact, every latency within [LAT - 1, LAT] (LAT_WORD, LAT_HDR)."""
    await ppm(dut, CLK_PS - 1)


@cocotb.test()
async def rx_slow_125ppm(dut):
    """rx_clk 125 ppm slower (8001 ps), random phase: data intact, latency bound."""
    await ppm(dut, CLK_PS + 1)


@cocotb.test()
async def overflow(dut):
    """Word reader and descriptor readers stopped for long stretches: frames are cut (last word
    with last + bad, counted) or dropped whole (no words, no descriptors, counted); the rest is
    intact and nothing hangs."""
    r = rng()
    tb = Tb(dut, r, phase_ps=r.randint(1, CLK_PS - 1))
    await tb.start()
    stop = {"left": 0}

    def pauses():
        while True:
            if stop.get("off"):
                yield False
            elif stop["left"] > 0:
                stop["left"] -= 1
                yield True
            elif r.random() < 1 / 300:
                stop["left"] = r.randint(300, 3000)
                yield True
            else:
                yield False

    tb.sink.set_pause_generator(pauses())
    tb.hdr_mode = ("bursty", 1 / 2000)
    # directed first: the words stopped, a 40-word frame is cut, the next one dropped whole
    stop["left"] = 2000
    frames = [(random_bytes(r, 640), False, 1 << 16), (random_bytes(r, 100), False, 2 << 16)]
    frames += [random_frame(r, min(tb.c["max"], 400)) for _ in range(50)]
    await tb.run(frames, gap=(20, 30), stop=stop)
    _, n = tb.check(frames, overflow_ok=True)
    dut._log.info("overflow: %s", n)
    assert n["cut"] > 0 and n["drop"] > 0, n


@pytest.mark.parametrize("fifo_words,max_bytes", [(16, 1518), (8, 300)])
def test_node_wrx(fifo_words, max_bytes):
    runner.run("fp_node_wrx", __name__, {"FIFO_WORDS": fifo_words, "MAX_BYTES": max_bytes})
