"""fp_node_l2_table: random client lookups/learns, host ops and ageing against fastpath.node.l2.

One coroutine drives every input and, each cycle, mirrors the RTL's issue schedule (slot round,
host command, sweep steps, age timer; documented in the RTL header) to apply the operation issued
at the next edge to the L2Table model. The expected outputs are then checked cycle by cycle:
resp_* exactly LATENCY cycles after a request is accepted (and never otherwise), learn events
likewise, host responses HOST_LATENCY cycles after their op is issued. req_ready must follow the fixed
slot round (one slot per client every CLIENTS+1 cycles, whatever the other clients do).
"""
import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath.node import l2 as M
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start

LATENCY = 4
HOST_LATENCY = 5


def hv(sig) -> int:
    return int(sig.value)


class Mirror:
    """The RTL's maintenance/slot state, advanced once per clock edge."""

    def __init__(self, p):
        self.clients = p["CLIENTS"]
        self.buckets = p["BUCKETS"]
        self.reset()

    def reset(self):
        self.slot = 0
        self.age_cnt = 0
        self.age_req = False
        self.sweep = False
        self.sweep_kind = "age"
        self.sweep_idx = 0
        self.sweep_port = 0
        self.host_pend = False
        self.host_busy = False
        self.host = None


async def run_random(dut, cycles, age_cycles, p_req, p_host, n_macs, vids, final_dump):
    p = params()
    buckets, ways, clients, pb = p["BUCKETS"], p["WAYS"], p["CLIENTS"], p["PORT_BITS"]
    r = rng()
    model = M.L2Table(buckets, ways, pb)
    mir = Mirror(p)
    macs = [r.getrandbits(48) for _ in range(n_macs)]

    # idle inputs before reset (Icarus has X otherwise)
    dut.req_valid.value = 0
    for s in ("req_vid", "req_da", "req_sa", "req_src_port", "req_learn"):
        getattr(dut, s).value = 0
    dut.cfg_age_cycles.value = 0
    dut.host_cmd_valid.value = 0
    for s in ("host_cmd_op", "host_cmd_bucket", "host_cmd_way", "host_cmd_entry_valid",
              "host_cmd_static", "host_cmd_port", "host_cmd_vid", "host_cmd_mac"):
        getattr(dut, s).value = 0
    await start(dut)
    dut.cfg_age_cycles.value = age_cycles

    # per-client request being presented: None or dict
    req = [None] * clients
    reqs_f = {k: [0] * clients for k in ("vid", "da", "sa", "port", "learn")}
    host_cmd = None
    expect = {}  # sample index -> {"resp": {c: (hit, port)}, "host": HostRsp, "ev": (n, m, f)}
    stats = {"ops": 0, "hits": 0, "full": 0, "move": 0, "host": 0, "age_steps": 0, "flush": 0}
    dump = list(range(buckets * ways)) if final_dump else []
    prev = None  # the previous sample
    j = 0

    def at(k):
        return expect.setdefault(k, {"resp": {}, "host": None, "ev": (0, 0, 0)})

    def rand_key():
        return r.choice(vids), r.choice(macs)

    def write_req():
        v = 0
        for k, sig in (("vid", dut.req_vid), ("da", dut.req_da), ("sa", dut.req_sa)):
            w = {"vid": 12, "da": 48, "sa": 48}[k]
            sig.value = sum(x << (w * c) for c, x in enumerate(reqs_f[k]))
        dut.req_src_port.value = sum(x << (pb * c) for c, x in enumerate(reqs_f["port"]))
        dut.req_learn.value = sum(x << c for c, x in enumerate(reqs_f["learn"]))
        for c in range(clients):
            v |= (req[c] is not None) << c
        dut.req_valid.value = v

    limit = cycles + len(dump) * 20 + 2000
    while True:
        driving = j < cycles
        if not driving and not dump and host_cmd is None and not mir.host_busy and not expect \
                and all(q is None for q in req):
            break
        assert j < limit, "the table stopped answering"
        await RisingEdge(dut.clk)
        # our own reset, seen by the mirror (samples 0..2 have rst = 1)
        dut.rst.value = int(j < 3)
        # ---- drive: the handshakes at this edge are those seen in the previous sample ----
        if prev is not None and not prev["rst"]:
            for c in range(clients):
                if req[c] is not None and (prev["req_valid"] >> c) & 1 and (prev["req_ready"] >> c) & 1:
                    req[c] = None
                if req[c] is None and driving and r.random() < p_req:
                    vid, da = rand_key()
                    sa = rand_key()[1] if r.random() < 0.5 else r.choice(macs)
                    req[c] = dict(vid=vid, da=da, sa=sa, port=r.randrange(1 << pb),
                                  learn=int(r.random() < 0.8))
                    for k in reqs_f:
                        reqs_f[k][c] = req[c][k]
            write_req()
            if host_cmd is not None and prev["host_cmd_valid"] and prev["host_cmd_ready"]:
                host_cmd = None
                dut.host_cmd_valid.value = 0
            op = None
            if host_cmd is None and not mir.host_busy:
                if driving and r.random() < p_host:
                    op = r.choices([0, 1, 2, 3, 4, 5], [30, 20, 30, 2, 3, 1])[0]
                    op = r.randint(5, 7) if op == 5 else op
                elif not driving and dump:
                    op = 0
            if op is not None:
                vid, mac = rand_key()
                idx = dump.pop(0) if not driving else r.randrange(buckets * ways)
                host_cmd = dict(op=op, bucket=idx // ways, way=idx % ways,
                                ev=int(r.random() < 0.75), static=int(r.random() < 0.3),
                                port=r.randrange(1 << pb), vid=vid, mac=mac)
                dut.host_cmd_op.value = op
                dut.host_cmd_bucket.value = host_cmd["bucket"]
                dut.host_cmd_way.value = host_cmd["way"]
                dut.host_cmd_entry_valid.value = host_cmd["ev"]
                dut.host_cmd_static.value = host_cmd["static"]
                dut.host_cmd_port.value = host_cmd["port"]
                dut.host_cmd_vid.value = vid
                dut.host_cmd_mac.value = mac
                dut.host_cmd_valid.value = 1

        await ReadOnly()
        s = dict(req_valid=hv(dut.req_valid), req_ready=hv(dut.req_ready),
                 host_cmd_valid=hv(dut.host_cmd_valid), host_cmd_ready=hv(dut.host_cmd_ready),
                 rst=hv(dut.rst))
        # ---- check the outputs of this sample ----
        e = expect.pop(j, None) or {"resp": {}, "host": None, "ev": (0, 0, 0)}
        rv = hv(dut.resp_valid)
        assert rv == sum(1 << c for c in e["resp"]), f"cycle {j}: resp_valid {rv:b}, expected {e['resp']}"
        for c, (hit, port) in e["resp"].items():
            assert (hv(dut.resp_hit) >> c) & 1 == hit, f"cycle {j} client {c}: hit"
            if hit:
                assert (hv(dut.resp_port) >> (pb * c)) & ((1 << pb) - 1) == port, f"cycle {j}: port"
        ev = (hv(dut.ev_learn_new), hv(dut.ev_learn_move), hv(dut.ev_learn_full))
        assert ev == e["ev"], f"cycle {j}: events {ev} expected {e['ev']}"
        host_rsp = hv(dut.host_rsp_valid)
        assert host_rsp == (e["host"] is not None), f"cycle {j}: host_rsp_valid {host_rsp}"
        if e["host"] is not None:
            x = e["host"]
            got = (hv(dut.host_rsp_status), hv(dut.host_rsp_bucket), hv(dut.host_rsp_way),
                   hv(dut.host_rsp_entry_valid), hv(dut.host_rsp_static), hv(dut.host_rsp_hit),
                   hv(dut.host_rsp_port), hv(dut.host_rsp_vid), hv(dut.host_rsp_mac))
            want = (x.status, x.bucket, x.way, int(x.entry.valid), int(x.entry.static),
                    int(x.entry.hit), x.entry.port, x.entry.vid, x.entry.mac)
            assert got == want, f"cycle {j}: host rsp {got} expected {want}"

        # ---- mirror the edge that follows this sample: which op is issued, apply it ----
        if s["rst"]:
            mir.reset()
        else:
            exp_ready = sum(1 << c for c in range(clients) if mir.slot == c)
            assert s["req_ready"] == exp_ready, f"cycle {j}: req_ready {s['req_ready']:b}"
            age = hv(dut.cfg_age_cycles)
            tick = age != 0 and mir.age_cnt >= age - 1
            host_single = mir.host_pend and mir.host["op"] not in (3, 4)
            flush = mir.host_pend and mir.host["op"] in (3, 4)
            if s["host_cmd_valid"] and s["host_cmd_ready"]:
                assert not mir.host_busy
                mir.host_pend = mir.host_busy = True
                mir.host = dict(host_cmd)
            if host_rsp:
                mir.host_busy = False
            c = mir.slot
            if c < clients and (s["req_valid"] >> c) & 1:
                q = req[c]
                before = dict(model.events)
                hit, port = model.request(q["vid"], q["da"], q["sa"], q["port"], q["learn"])
                slot = at(j + LATENCY)
                slot["resp"][c] = (int(hit), port)
                slot["ev"] = tuple(model.events[k] - before[k]
                                   for k in ("learn_new", "learn_move", "learn_full"))
                stats["ops"] += 1
                stats["hits"] += hit
                stats["full"] += slot["ev"][2]
                stats["move"] += slot["ev"][1]
            elif host_single:
                mir.host_pend = False
                h = mir.host
                if h["op"] == 0:
                    rsp = model.host_read(h["bucket"], h["way"])
                elif h["op"] == 1:
                    rsp = model.host_write(h["bucket"], h["way"], h["ev"], h["static"], h["port"],
                                           h["vid"], h["mac"])
                elif h["op"] == 2:
                    rsp = model.host_insert(h["ev"], h["static"], h["port"], h["vid"], h["mac"])
                else:
                    rsp = model.host_read(h["bucket"], h["way"])._replace(status=M.ST_BAD_OP)
                at(j + HOST_LATENCY)["host"] = rsp
                stats["host"] += 1
            elif mir.sweep or flush or mir.age_req:
                if not mir.sweep:
                    mir.sweep_kind = ("flush_port" if mir.host["op"] == 4 else "flush_all") \
                        if flush else "age"
                    mir.sweep_port = mir.host["port"]
                    if flush:
                        mir.host_pend = False
                    else:
                        mir.age_req = False
                    mir.sweep, mir.sweep_idx = True, 0
                b = mir.sweep_idx
                if mir.sweep_kind == "age":
                    model.age_bucket(b)
                    stats["age_steps"] += 1
                else:
                    model.flush_bucket(b, mir.sweep_port if mir.sweep_kind == "flush_port" else None)
                if b == buckets - 1:
                    mir.sweep = False
                    if mir.sweep_kind != "age":
                        at(j + HOST_LATENCY)["host"] = model.host_read(buckets - 1, 0)
                        stats["flush"] += 1
                mir.sweep_idx = (b + 1) % buckets
            mir.slot = 0 if mir.slot == clients else mir.slot + 1
            mir.age_cnt = 0 if (age == 0 or tick) else mir.age_cnt + 1
            if tick:
                mir.age_req = True
        prev = s
        j += 1
    dut._log.info(f"stats {stats} entries {len(model.entries())} events {model.events}")
    return stats, model


@cocotb.test()
async def random_ops(dut):
    """Random lookups/learns on every client, host ops, ageing: every output checked per cycle."""
    p = params()
    small = p["BUCKETS"] * p["WAYS"] <= 32
    stats, _ = await run_random(dut, cycles=5000, age_cycles=700, p_req=0.6, p_host=0.05,
                                n_macs=24 if small else 60, vids=[1, 2, 7], final_dump=small)
    assert stats["ops"] > 1000 and stats["hits"] > 100 and stats["age_steps"] > 0


@cocotb.test()
async def full_rate_no_ageing(dut):
    """Every client asks in every slot (one op per client per CLIENTS+1 cycles, the maximum);
    host ops get the maintenance slot; then the whole table is read back."""
    stats, model = await run_random(dut, cycles=3000, age_cycles=0, p_req=1.0, p_host=0.02,
                                    n_macs=40, vids=[1], final_dump=True)
    clients = params()["CLIENTS"]
    assert stats["ops"] >= clients * 3000 // (clients + 1) - 2 * clients


@pytest.mark.parametrize("buckets,ways,clients", [(128, 8, 2), (4, 2, 2), (8, 4, 1), (16, 2, 3)])
def test_node_l2_table(buckets, ways, clients):
    runner.run("fp_node_l2_table", __name__,
               {"BUCKETS": buckets, "WAYS": ways, "CLIENTS": clients, "PORT_BITS": 5})
