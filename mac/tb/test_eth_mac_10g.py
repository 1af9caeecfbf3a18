"""fp_eth_mac_10g: both directions at line rate at once (every size 64..84, a spread, 1518 and a 9000-byte
jumbo), all 15 counters exact over mixed good/bad traffic, a received pause frame holding the TX for
exactly quanta x 8 cycles (measured at the pins), and TX looped into RX through a one-cycle wire:
the timestamp written by the TX equals the RX timestamp minus one clock, FCS good; tester frames
with the tester stamp (s_axis_ts_mode = 1) come back with the four time fields of tx_ts, and
fastpath.ptrain.frame.parse() takes them.

Bus models and the cycle monitor come from fastpath.mac.bench_cocotb_10g (shared with the bench);
so is the generator of bad RX frames.
"""
import cocotb
from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.eth import XgmiiFrame

from fastpath.mac.bench_cocotb_10g import Mac10g, bad_case
from fastpath.mac import eth10g
from fastpath.mac.eth10g import dic_starts, fp, pause_frame, rx_expect, tx_wire, with_fcs
from fastpath.sim import runner
from fastpath.ptrain import frame as pframe
from fastpath.sim.tb import random_bytes, rng, start
from test_eth_mac_1g_tx import check_tester_frame, ptrain_frames
from test_eth_mac_10g_tx import ModeSideband

RX_LATENCY = 3
TX_LATENCY = 1


async def setup(dut, **kw):
    mac = Mac10g(dut, **kw)  # bus models first: they drive the inputs idle
    mac.mode = ModeSideband(dut, mac.tx_client)
    await start(dut, period_ns=6.4)
    return mac


async def send(mac, payload: bytes, ts_mode: int = 0, **kw):
    """Mac10g.send_tx with s_axis_ts_mode (ModeSideband)."""
    mac.mode.queue(ts_mode)
    await mac.send_tx(payload, **kw)


def rx_latencies(mac, first_frame, first_start, n):
    out = []
    for f, (c, lane, _) in zip(mac.rx_frames[first_frame:first_frame + n], mac.rx_starts[first_start:first_start + n]):
        out.append(f.first_beat - (c + (1 if lane == 4 else 0)))
    return out


@cocotb.test()
async def both_directions_line_rate(dut):
    """Sizes 64..84, a spread and 1518 (with FCS), then a 9000-byte payload jumbo with
    cfg_rx_max_len = 9600: received and sent back to back at the minimum IFG in both directions at
    once, nothing lost, data exact, RX latency 3, TX starts = DIC model, counters."""
    r = rng()
    mac = await setup(dut)
    sizes = list(range(64, 85)) + [r.randint(85, 1517) for _ in range(6)] + [1518]
    dut.cfg_rx_max_len.value = 9600
    sizes.append(9004)
    bodies = [with_fcs(random_bytes(r, n - 4)) for n in sizes]
    payloads = [random_bytes(r, n - 4) for n in sizes]
    for b in bodies:
        mac.send_rx(XgmiiFrame.from_raw_payload(b))
    for p in payloads:
        await send(mac, p)
    got = await mac.recv_tx(len(payloads))
    await mac.wait_rx(len(bodies))
    await ClockCycles(dut.clk, 5)
    assert [f.data for f in mac.rx_frames] == [b[:-4] for b in bodies]
    assert not any(f.user for f in mac.rx_frames)
    assert set(rx_latencies(mac, 0, 0, len(bodies))) == {RX_LATENCY}
    assert {lane for _, lane, _ in mac.rx_starts} == {0, 4}
    for g, p in zip(got, payloads):
        assert g.check_fcs() and bytes(g.get_payload()) == p
    txs = [8 * c + lane for c, lane, _ in mac.tx_starts]
    assert txs == dic_starts([len(p) + 4 for p in payloads], 12, first=txs[0])
    assert mac.tx_starts[0][0] - mac.tx_in[0].first_valid == TX_LATENCY
    st = mac.stats()
    assert st["rx_good"] == len(bodies) and st["rx_bytes"] == sum(sizes) and st["rx_bad"] == 0
    assert st["tx_frames"] == len(payloads) and st["tx_bytes"] == sum(sizes)


@cocotb.test()
async def counters(dut):
    """Random good and bad RX traffic (every cause) and TX traffic (stomped, underrun, timestamp
    offsets that do not fit) at the same time: every counter equals the model's count."""
    r = rng()
    mac = await setup(dut)
    dut.cfg_rx_max_len.value = 100
    rx_exp, bad_pre = [], 0
    for _ in range(120):
        body, errors, bad_end, pre_ok, frame = bad_case(r, 100, max_quanta=2)
        mac.send_rx(frame, r.choice([5, 8, 12]) if len(body) > 3 else 8)
        if pre_ok:
            rx_exp.append(rx_expect(body, errors, bad_end, 100))
        else:
            bad_pre += 1
    tx_exp = {"frames": 0, "bytes": 0, "stomped": 0, "underrun": 0, "ts_bad": 0}
    for _ in range(40):
        kind = r.choice(["good", "bad", "ts", "under"])
        size = r.randint(17, 120)
        p = random_bytes(r, size)
        if kind == "under":
            await mac.client.wait()
            n0 = len(mac.tx_in)
            await send(mac, p)
            stop = r.randint(1, -(-size // 8) - 2)
            while mac.tx_client.current is None or len(mac.tx_client.current.beats) < stop:
                await RisingEdge(dut.clk)
            mac.client.pause = True
            await ClockCycles(dut.clk, 2)
            mac.client.pause = False
            while len(mac.tx_in) == n0:
                await RisingEdge(dut.clk)
            tx_exp["underrun"] += 1
            tx_exp["bytes"] += 8 * mac.tx_in[-1].gap + 4
        else:
            end = max(size, 60)
            off = r.choice([r.randint(0, end - 8), r.randint(end - 7, end + 4)]) if kind == "ts" else 0
            await send(mac, p, bad=kind == "bad", ts_insert=int(kind == "ts"), ts_offset=off)
            tx_exp["stomped"] += kind == "bad"
            tx_exp["ts_bad"] += kind == "ts" and off + 8 > max(size, 60)
            tx_exp["bytes"] += max(size, 60) + 4
        tx_exp["frames"] += 1
    await mac.recv_tx(tx_exp["frames"])
    await mac.rx_source.wait()
    await ClockCycles(dut.clk, 40)
    st = mac.stats()
    want = {f"rx_{k}": sum(e.status[k] for e in rx_exp)
            for k in ("good", "bad", "bad_fcs", "runt", "oversize", "phy_err", "pause")}
    want["rx_bytes"] = sum(e.status["len"] for e in rx_exp)
    want["rx_bad_preamble"] = bad_pre
    want.update({"tx_frames": tx_exp["frames"], "tx_bytes": tx_exp["bytes"], "tx_stomped": tx_exp["stomped"],
                 "tx_underrun": tx_exp["underrun"], "tx_ts_bad_offset": tx_exp["ts_bad"]})
    # the pause frames received (quanta 0..2) held the TX at times that depend on both streams:
    # exact timing is pause_coupling's; here the count is bounded by the quanta received
    paused = st.pop("tx_paused_cycles")
    assert paused <= 8 * sum(e.pause_quanta for e in rx_exp if e.pause_quanta is not None)
    assert st == want, {k: (st[k], want[k]) for k in st if st[k] != want[k]}
    n_pause = sum(e.status["pause"] for e in rx_exp)
    assert len(mac.rx_pauses) == n_pause and n_pause > 0
    assert all(v > 0 for v in want.values())


@cocotb.test()
async def pause_coupling(dut):
    """A pause frame received while a long frame is being sent: that frame finishes, the next one
    starts quanta x 8 cycles after the IFG would have let it (lane 0), measured at the TX pins."""
    r = rng()
    mac = await setup(dut)
    for q in (1, r.randint(2, 20)):
        await ClockCycles(dut.clk, 40)
        i = len(mac.tx_starts)
        st0 = mac.stats()
        a, b = random_bytes(r, 1000), random_bytes(r, 100)
        await send(mac, a)
        await send(mac, b)
        while len(mac.tx_starts) <= i:
            await RisingEdge(dut.clk)
        mac.send_rx(XgmiiFrame.from_raw_payload(pause_frame(q)))
        await mac.recv_tx(2)
        assert mac.rx_pauses[-1][0] < mac.tx_starts[i][0] + 1000 // 8  # arrived mid-frame
        free = dic_starts([1004, 104], 12, first=8 * mac.tx_starts[i][0])[1]
        assert mac.tx_starts[i + 1][:2] == (free // 8 + 8 * q, 0), (mac.tx_starts[i + 1], free, q)
        st = mac.stats()
        assert st["tx_paused_cycles"] - st0["tx_paused_cycles"] == 8 * q
        assert st["rx_pause"] - st0["rx_pause"] == 1


@cocotb.test()
async def loopback_timestamps(dut):
    """TX pins looped into the RX pins one cycle later: every frame arrives good; the timestamp the
    TX wrote (offset 42, the UDP payload) equals tx_ts and the RX timestamp minus one clock."""
    r = rng()
    mac = await setup(dut, rx_source=False)

    def loop():
        dut.xgmii_rxd.value = int(dut.xgmii_txd.value)
        dut.xgmii_rxc.value = int(dut.xgmii_txc.value)

    mac.loop = loop
    sizes = [r.randint(50, 300) for _ in range(40)]
    payloads = [random_bytes(r, n) for n in sizes]
    testers = {}  # frame index -> build() arguments: tester frames, tester stamp
    for i, (data, off, kw) in enumerate(ptrain_frames(r, 20, max_size=300)):
        k = 2 * i + 1
        payloads.insert(k, data)
        testers[k] = (off, kw)
    for i, p in enumerate(payloads):
        if i in testers:
            await send(mac, p, ts_mode=1, ts_insert=1, ts_offset=testers[i][0])
        else:
            await send(mac, p, ts_insert=1, ts_offset=42)
        if r.random() < 0.3:
            await ClockCycles(dut.clk, r.randint(1, 20))
    await mac.recv_tx(len(payloads))
    await mac.wait_rx(len(payloads))
    await ClockCycles(dut.clk, 5)
    assert len(mac.tx_ts) == len(payloads)
    period = fp(eth10g.PERIOD_PS)
    for i, (p, f, ts) in enumerate(zip(payloads, mac.rx_frames, mac.tx_ts)):
        if i in testers:
            check_tester_frame(bytes(f.data), testers[i][1], ts)
            t = pframe.parse(bytes(f.data))
            assert f.user == 0 and abs(f.first("ts") - t.tx_time - period) <= 2, f"frame {i}: one-way delay"
            continue
        want, made = tx_wire(p, ts=ts, ts_offset=42)
        assert made and f.data == want[:-4] and f.user == 0, f"frame {i}"
        stamp = int.from_bytes(f.data[42:50], "big")
        assert stamp == ts
        assert abs(f.first("ts") - stamp - period) <= 2, f"frame {i}: one-way {f.first('ts') - stamp}"
    st = mac.stats()
    assert st["rx_good"] == st["tx_frames"] == len(payloads)
    assert {lane for _, lane, _ in mac.tx_starts} == {0, 4}


def test_eth_mac_10g():
    runner.run("fp_eth_mac_10g", __name__)
