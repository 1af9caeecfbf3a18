"""fp_node_rxproc: random interleaved multi-segment frames against fastpath.node.l2.classify.

One coroutine drives the segment source (random gaps), the sink's tready (random backpressure)
and the L2 table client port: l2_req_ready follows the real table's slot round (1 cycle in 3) or
is random, and the response comes exactly TABLE_LATENCY cycles after a request is accepted, from
an L2Table model that sees the requests in stream order (as the real table does). Every request
(vid, DA, SA, src_port, learn) and every output segment (data, keep, last, the whole NoC header)
is checked. Without backpressure, every segment must leave exactly LATENCY cycles after it was
accepted, and s_axis_tready may only be low for a first segment while l2_req_ready is low.
"""
import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath import formats
from fastpath.node import l2 as M
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start

NOC = formats.load("noc_header")
LATENCY = 5
TABLE_LATENCY = 4


def hv(sig) -> int:
    return int(sig.value)


def random_cfg(r, ports, dp, seg_bytes, vlans):
    allp = (1 << ports) - 1
    enable = allp
    for _ in range(r.choice([0, 0, 1, 2])):
        enable &= ~(1 << r.randrange(ports))
    ents = [M.Vlan(True, 1, allp)]
    for vid in (2, 3, 5):
        ents.append(M.Vlan(True, vid, r.getrandbits(ports)))
    ents.append(M.Vlan(True, 3, r.getrandbits(ports)))  # a second entry for VID 3: ORed
    ents.append(M.Vlan(False, 7, allp))  # invalid: VID 7 has no members
    ents = ents[:vlans]
    ents += [M.Vlan(False, 0, 0)] * (vlans - len(ents))
    return M.RxCfg(
        ports=ports, dp_index=dp, seg_bytes=seg_bytes, port_enable=enable,
        port_trunk=r.getrandbits(ports) | r.getrandbits(ports), pvid=[r.choice([1, 1, 1, 2, 3, 7]) for _ in range(ports)],
        port_pcp=[r.randrange(8) for _ in range(ports)], prio_pcp_min=r.randrange(8), vlans=ents,
        learn_enable=r.random() < 0.85, host_link_local=r.random() < 0.5,
        host_arp=r.random() < 0.5, host_icmpv6=r.random() < 0.5,
        host_unknown=r.random() < 0.3, flood_host=r.random() < 0.4)


def apply_cfg(dut, cfg, vlans):
    p = cfg.ports
    dut.cfg_port_enable.value = cfg.port_enable
    dut.cfg_port_trunk.value = cfg.port_trunk
    dut.cfg_port_pvid.value = sum(v << (12 * i) for i, v in enumerate(cfg.pvid))
    dut.cfg_port_pcp.value = sum(v << (3 * i) for i, v in enumerate(cfg.port_pcp))
    dut.cfg_prio_pcp_min.value = cfg.prio_pcp_min
    dut.cfg_vlan_valid.value = sum(int(v.valid) << i for i, v in enumerate(cfg.vlans[:vlans]))
    dut.cfg_vlan_vid.value = sum(v.vid << (12 * i) for i, v in enumerate(cfg.vlans[:vlans]))
    dut.cfg_vlan_members.value = sum(v.members << (p * i) for i, v in enumerate(cfg.vlans[:vlans]))
    dut.cfg_learn_enable.value = int(cfg.learn_enable)
    dut.cfg_host_link_local.value = int(cfg.host_link_local)
    dut.cfg_host_arp.value = int(cfg.host_arp)
    dut.cfg_host_icmpv6.value = int(cfg.host_icmpv6)
    dut.cfg_host_unknown.value = int(cfg.host_unknown)
    dut.cfg_flood_host.value = int(cfg.flood_host)


def random_frame(r, macs):
    """A frame that exercises the classifier: DA kinds, tags, Ethertypes, lengths."""
    k = r.random()
    if k < 0.1:
        da = b"\xff" * 6
    elif k < 0.18:
        da = bytes([0x01, 0x00, 0x5E, r.randrange(128), r.randrange(256), r.randrange(256)])
    elif k < 0.26:
        da = bytes([0x01, 0x80, 0xC2, 0, 0, r.choice([0, 1, 2, 0xE, 0xF, 0x10, 0x21])])
    elif k < 0.34:
        da = bytes([r.randrange(256) & 0xFE] + [r.randrange(256) for _ in range(5)])
    else:
        da = r.choice(macs)
    sa = r.choice(macs) if r.random() < 0.93 else bytes([0x01, 2, 3, 4, 5, r.randrange(256)])
    hdr = da + sa
    if r.random() < 0.3:
        tci = (r.randrange(8) << 13) | (r.randrange(2) << 12) | r.choice([1, 1, 1, 2, 3, 5, 7, 0, 4095])
        hdr += b"\x81\x00" + tci.to_bytes(2, "big")
    et = r.choice([0x0800, 0x86DD, 0x86DD, 0x0806, 0x8100, 0x88CC, 0x0042, 0x88F7])
    body = bytearray(r.getrandbits(8) for _ in range(r.choice([2, 10, 46, 60, 100, 200, 400])))
    if et == 0x86DD and r.random() < 0.6 and len(body) > 6:
        body[6] = 58
    f = hdr + et.to_bytes(2, "big") + bytes(body)
    if r.random() < 0.05:
        f = f[:r.randrange(1, 18)]  # runt
    return f


def segments(frame, src, seg_bytes, ts, bad):
    n = -(-len(frame) // seg_bytes)
    out = []
    for i in range(n):
        chunk = frame[i * seg_bytes:(i + 1) * seg_bytes]
        last = i == n - 1
        hdr = dict(bad=int(bad and last), first=int(i == 0), last=int(last), bytes=len(chunk),
                   seg_idx=i % 64, src_port=src, ts=ts, trunc=0)
        out.append((chunk, hdr))
    return out


def build_stream(r, cfg, table, n_frames, host_port, macs, seg_bytes):
    """The interleaved segment stream, the table requests it must make and the expected output."""
    ports = list(range(cfg.ports)) + [host_port]
    per_port = {p: [] for p in ports}  # per port: its frames' segments, in order
    for _ in range(n_frames):
        p = r.choice(ports)
        frame, bad = random_frame(r, macs), r.random() < 0.1
        per_port[p].extend((frame, bad, sg) for sg in segments(frame, p, seg_bytes,
                                                                r.getrandbits(24), bad))
    beats, reqs, expected = [], [], []
    dec = {}
    while any(per_port.values()):
        p = r.choice([q for q in ports if per_port[q]])
        frame, bad, (chunk, hdr) = per_port[p].pop(0)
        if hdr["first"]:
            vid, da, sa, learn = M.table_request(frame, p, cfg, bad)
            hit, port = table.request(vid, da, sa, p, learn)
            reqs.append(((vid, da, sa, p, int(learn)), (int(hit), port)))
            dec[p] = M.classify(frame, p, cfg, bad=bad, lookup=(hit, port))
        d = dec[p]
        out = dict(hdr, tagged=int(d.tagged), vid=d.vid, pcp=d.pcp, prio=int(d.prio),
                   dst=d.dst_set, to_host=int(d.to_host), discard=int(d.discard), reason=d.reason)
        data = int.from_bytes(chunk, "little")
        keep = (1 << len(chunk)) - 1
        beats.append((data, keep, hdr["last"], NOC.pack(**hdr)))
        expected.append((data, keep, hdr["last"], NOC.pack(**out), d))
    return beats, reqs, expected


async def run(dut, r, n_frames, src_idle, sink_p, ready_mode, check_timing, first_run=True):
    p = params()
    ports, seg_bytes, dp, vlans = p["PORTS"], p["SEG_BYTES"], p["DP_INDEX"], p["VLANS"]
    cfg = random_cfg(r, ports, dp, seg_bytes, vlans)
    table = M.L2Table()
    macs = [bytes([r.randrange(256) & 0xFE] + [r.randrange(256) for _ in range(5)]) for _ in range(16)]
    host_port = ports + dp
    # some table entries the traffic will not learn: a host MAC (port >= PORTS), a static entry
    table.host_insert(True, True, host_port, 1, M.mac_int(macs[0]))
    table.host_insert(True, True, r.randrange(ports), 2, M.mac_int(macs[1]))
    beats, reqs, expected = build_stream(r, cfg, table, n_frames, host_port, macs, seg_bytes)

    # idle inputs before reset
    dut.s_axis_tvalid.value = 0
    dut.s_axis_tdata.value = 0
    dut.s_axis_tkeep.value = 0
    dut.s_axis_tlast.value = 0
    dut.s_axis_tuser.value = 0
    dut.m_axis_tready.value = 0
    dut.l2_req_ready.value = 0
    dut.l2_resp_valid.value = 0
    dut.l2_resp_hit.value = 0
    dut.l2_resp_port.value = 0
    apply_cfg(dut, cfg, vlans)
    if first_run:
        await start(dut)
    else:  # the clock runs already: just a reset
        dut.rst.value = 1
        for _ in range(3):
            await RisingEdge(dut.clk)
        dut.rst.value = 0
        await RisingEdge(dut.clk)

    i_in = i_req = i_out = 0
    resp_at = {}  # sample index -> (hit, port)
    accepted_at = []  # sample index of each input beat's acceptance
    first_seen = {}  # output beat -> first sample with it valid
    prev = None
    j = 0
    stalls = 0
    kinds = {}
    limit = len(beats) * 8 + 500
    while i_out < len(beats):
        assert j < limit, f"stuck: in {i_in} out {i_out} of {len(beats)}"
        await RisingEdge(dut.clk)
        if prev is not None:
            if prev["sv"] and prev["sr"]:
                accepted_at.append(j - 1)
                i_in += 1
            if prev["rv"] and prev["rr"]:
                want, resp = reqs[i_req]
                assert prev["req"] == want, f"request {i_req}: {prev['req']} expected {want}"
                resp_at[j - 1 + TABLE_LATENCY] = resp
                i_req += 1
            if prev["mv"] and prev["mr"]:
                i_out += 1
        # drive the source
        if i_in < len(beats) and r.random() >= src_idle:
            data, keep, last, user = beats[i_in]
            dut.s_axis_tdata.value = data
            dut.s_axis_tkeep.value = keep
            dut.s_axis_tlast.value = last
            dut.s_axis_tuser.value = user
            dut.s_axis_tvalid.value = 1
        else:
            dut.s_axis_tvalid.value = 0
        dut.m_axis_tready.value = int(r.random() >= sink_p)
        if ready_mode == "slots":
            dut.l2_req_ready.value = int(j % 3 == 0)
        else:
            dut.l2_req_ready.value = int(r.random() < 0.5)
        resp = resp_at.pop(j, None)
        dut.l2_resp_valid.value = int(resp is not None)
        dut.l2_resp_hit.value = resp[0] if resp else r.getrandbits(1)
        dut.l2_resp_port.value = resp[1] if resp else r.getrandbits(5)

        await ReadOnly()
        s = dict(sv=hv(dut.s_axis_tvalid), sr=hv(dut.s_axis_tready), rv=hv(dut.l2_req_valid),
                 rr=hv(dut.l2_req_ready), mv=hv(dut.m_axis_tvalid), mr=hv(dut.m_axis_tready))
        if s["rv"]:
            assert s["sv"] and i_in < len(beats) and NOC.unpack(beats[i_in][3])["first"], \
                "l2_req_valid without a first segment"
            if s["rr"]:
                s["req"] = (hv(dut.l2_req_vid), hv(dut.l2_req_da), hv(dut.l2_req_sa),
                            hv(dut.l2_req_src_port), hv(dut.l2_req_learn))
        if s["sv"] and i_in < len(beats):
            first = NOC.unpack(beats[i_in][3])["first"]
            if s["sr"]:
                assert s["rv"] == first, f"cycle {j}: a first segment goes with a table request"
            if check_timing:
                # full throughput: only a first segment waiting for the table may be held
                assert s["sr"] == int(not first or s["rr"]), f"cycle {j}: tready {s['sr']}"
                stalls += not s["sr"]
        if s["mv"]:
            first_seen.setdefault(i_out, j)
            if s["mr"]:
                data, keep, last, user, d = expected[i_out]
                got = (hv(dut.m_axis_tdata), hv(dut.m_axis_tkeep), hv(dut.m_axis_tlast),
                       hv(dut.m_axis_tuser))
                if got[3] != user:
                    g, w = NOC.unpack(got[3]), NOC.unpack(user)
                    diff = {k: (g[k], w[k]) for k in g if g[k] != w[k]}
                    raise AssertionError(f"segment {i_out}: header (got, want) {diff}; {d}")
                assert got[:3] == (data, keep, last), f"segment {i_out}: data/keep/last"
                if NOC.unpack(user)["first"]:
                    key = ("discard", d.reason) if d.discard else (
                        "host+" if d.to_host and d.dst_set else "host" if d.to_host else "fwd")
                    kinds[key] = kinds.get(key, 0) + 1
        prev = s
        j += 1
    assert i_req == len(reqs) and not resp_at
    if check_timing:
        lat = {first_seen[k] - accepted_at[k] for k in range(len(beats))}
        assert lat == {LATENCY}, f"latencies {lat}"
    await RisingEdge(dut.clk)  # leave the ReadOnly phase
    dut._log.info(f"{len(beats)} segments, {len(reqs)} frames in {j} cycles, kinds {kinds}, "
                  f"first-segment stalls {stalls}, DA hits {sum(h for _, (h, _) in reqs)}, table {len(table.entries())} entries")
    return kinds


@cocotb.test()
async def random_backpressure(dut):
    """Random gaps, random sink backpressure, random table ready: every field checked."""
    kinds = {}
    r = rng()
    for n, mode in enumerate(("slots", "random", "slots")):
        k = await run(dut, r, 200, src_idle=0.3, sink_p=0.3, ready_mode=mode, check_timing=False,
                      first_run=n == 0)
        for key, v in k.items():
            kinds[key] = kinds.get(key, 0) + v
    assert len(kinds) >= 6, kinds


@cocotb.test()
async def latency_and_throughput(dut):
    """Back-to-back segments, sink always ready: latency exactly LATENCY for every segment, and
    the input only waits for the table's slot on first segments."""
    await run(dut, rng(), 300, src_idle=0.0, sink_p=0.0, ready_mode="slots", check_timing=True)


@pytest.mark.parametrize("ports,seg_bytes,dp_index,vlans", [(12, 64, 0, 16), (6, 32, 1, 8),
                                                            (16, 64, 1, 4)])
def test_node_rxproc(ports, seg_bytes, dp_index, vlans):
    runner.run("fp_node_rxproc", __name__, {"PORTS": ports, "SEG_BYTES": seg_bytes,
                                          "DP_INDEX": dp_index, "VLANS": vlans})
