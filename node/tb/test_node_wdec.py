"""fp_node_wdec, the word-serial node's decision stage, against fastpath.node.l2, cycle by cycle.

One coroutine drives every input and samples every output once per cycle (the inputs are
flattened per-lane vectors). Per lane: a key descriptor stream (s_key_valid held until
s_key_ready), a classification descriptor stream (s_cls_*, presented a random 0..N cycles after
the key's acceptance, held until taken) and the buffer outcomes (buf_start with a random head,
or buf_drop), sent a random -3..N cycles around the key's presentation, in per-lane order, on
the shared buses (one start and one drop per cycle), never more than 2 waiting in a lane unless
a test provokes it. m_desc_ready is random per output. Frames: untagged / 802.1Q, unicast to
learned and unknown stations and to host-table entries, broadcast, multicast, 01:80:C2:00:00:0x,
ARP, IPv6 (next header 58 or not), unknown EtherTypes, keys that end by byte 15 (short / bad),
bad keys; on every lane, host lanes too; random configuration per round.

The table. The lookup of a frame and its learn are not one operation any more: the lookup is
read in the cycle after the lane's lookup grant, the learn goes through fp_node_wl2's queue and
engine and lands later. The model (node/l2.py L2Table) follows the RTL's order exactly:
  - the lane of each lookup: the one-hot l_grant (the lanes' lookup grants, one per cycle); that
    lane's oldest ungranted frame is classified (classify() with lookup = the model's answer at
    that moment) and its lookup / learn requests on the table's ports (u_l2.s_lk_*, s_ln_*: vid,
    mac, bucket = l2_hash, port = the lane) are checked the next cycle;
  - the learns are queued in the model in request order and applied when the table says so: each
    ev_learn_new / move / full is the next queued learn whose model result is not a refresh (a
    refresh makes no event and changes nothing a lookup sees, ageing being off), and its kind
    must be the model's; ev_learn_drop removes the request of the cycle before. A write comes
    with its event, and a lookup read in a later cycle sees it: the lookup of a grant in cycle c
    sees the events of cycles <= c. Learns still queued when the traffic stops must be refreshes.
  - host INSERTs (host_cmd op 2) only with no frame and no learn in flight, applied to the model
    when accepted; every host_rsp_* field is checked.
A frame is identified at the output by its classification handshake (s_cls_valid & s_cls_ready:
the push stage takes the decision, the classification and the outcome together): its descriptors
must be offered exactly 2 cycles later and its ref / ev_frame 3 cycles later.

Checked for every frame: the set of m_desc_valid (the classify() dst set, plus the host output
PORTS + src / ceil(PORTS / HOSTS) when to_host), m_desc_head (its outcome's head), m_desc_ts, each
copy's vlan_op, m_desc_tci = {pcp, 0, vid} when a copy gets a tag inserted, m_desc_ts_insert;
m_ref_valid (none when the buffer dropped the frame) with m_ref_head and m_ref_count = the copies
accepted (m_desc_valid & m_desc_ready) one cycle after the descriptors, ev_tx_drop for each
refused copy at the same time; ev_frame with its src, ev_frame_discard and the reason
(BUFFER_FULL for a buffer drop); no output in any other cycle; ev_outcome_err only when provoked.

Latency: unloaded (one frame in the module, outcome and classification in before the push) the
descriptors come exactly LATENCY = 11 cycles after the key is accepted (the lookup granted in the
request's first cycle, the descriptors GRANT_TO_DESC = 9 later); under load (a key on every lane
in the same cycle or within 4), a port lane's frame within the header's bound LATENCY +
(PORTS - 1) + (PORTS - 1); host lanes (served when no port asks) are only logged.
"""
from __future__ import annotations

from collections import deque

import cocotb
import pytest
from cocotb.triggers import ReadOnly, RisingEdge

from fastpath import formats
from fastpath.node import l2 as M
from fastpath.sim import runner
from fastpath.sim.tb import params, rng, start, uint

NOC = formats.load("noc_header").const
R_BUF = NOC["reason_buffer_full"]
R_NODEST = NOC["reason_no_dest"]
REASON_NAME = {v: k[len("reason_"):] for k, v in NOC.items() if k.startswith("reason_")}
LATENCY = 11            # key accepted -> m_desc_valid, unloaded (the header's k + 11)
GRANT_TO_DESC = 9       # lookup grant -> m_desc_valid: LK0, the table's 5, D, X1, X2
ETS = (M.ETH_IPV4, M.ETH_IPV6, M.ETH_IPV6, M.ETH_ARP, M.ETH_VLAN, 0x88CC, 0x88F7, 0x0042, 0x9000)


def popcount(x: int) -> int:
    return bin(x).count("1")


class Frame:
    """One frame on one lane: its key and classification fields, its buffer outcome, timings."""

    def __init__(self, lane, data, key_bad, ts, drop, head, key_at, out_delay, cls_delay,
                 send_outcome=True, force_out_at=None, cls_at=None):
        self.lane, self.data, self.ts, self.drop, self.head = lane, bytes(data), ts, drop, head
        f = self.data + bytes(max(0, 28 - len(self.data)))
        self.da, self.sa = M.mac_int(f[0:6]), M.mac_int(f[6:12])
        self.tagged = int.from_bytes(f[12:14], "big") == M.ETH_VLAN
        self.tci = int.from_bytes(f[14:16], "big")
        self.short = len(self.data) < 16
        self.key_bad = key_bad
        self.bad_first = key_bad or self.short
        self.et = int.from_bytes(f[16:18] if self.tagged else f[12:14], "big")
        off = {M.ETH_IPV4: 23, M.ETH_IPV6: 20}.get(self.et)
        if off is not None and self.tagged:
            off += 4
        self.ip_valid = off is not None and len(self.data) > off
        self.proto = self.data[off] if self.ip_valid else None   # random when not valid
        self.key_at, self.out_delay, self.cls_delay = key_at, out_delay, cls_delay
        self.out_at = key_at + out_delay if force_out_at is None else force_out_at
        self.force = force_out_at is not None
        self.send_outcome = send_outcome
        self.cls_at = cls_at
        self.present = self.accept = self.grant = self.pop = self.done = None
        self.dec = None          # classify()'s Decision, at the grant
        self.req = self.lookup = None
        self.out = None          # (drop, head, sent cycle) the RTL paired it with
        self.got_valid = None    # m_desc_valid seen
        self.acc = self.txd = 0


class Bench:
    def __init__(self, dut, r):
        self.dut, self.r = dut, r
        p = params()
        self.P, self.H = p["PORTS"], p["HOSTS"]
        self.L = self.P + self.H
        self.per_dp = -(-self.P // self.H) if self.H else 1
        self.buckets, self.ways, self.nvlans = p["BUCKETS"], p["WAYS"], p["VLANS"]
        self.segments = p["SEGMENTS"]
        # a port lane under load: behind every other port at the lookup port and the push stage
        self.bound = LATENCY + 2 * (self.P - 1)
        self.table = M.L2Table(self.buckets, self.ways)
        self.cycle = 0
        L = self.L
        self.pending = [deque() for _ in range(L)]      # scheduled, key not yet accepted
        self.presenting = [None] * L                    # key on the bus
        self.ungranted = [deque() for _ in range(L)]
        self.unpopped = [deque() for _ in range(L)]     # key accepted, not yet pushed
        self.osend = [deque() for _ in range(L)]        # outcomes not yet sent
        self.ostore = [deque() for _ in range(L)]       # outcomes the lane holds
        self.inject = {}                                # cycle -> [(lane, drop, head, stored)]
        self.exp2, self.exp3, self.exp_oerr = {}, {}, set()
        self.oerr_seen = 0
        self.events = {"learn_new": 0, "learn_move": 0, "learn_full": 0, "learn_drop": 0}
        self.lq = deque()                               # the model's learn queue: (cycle, vid, mac, port)
        self.lk_due = {}                                # cycle -> the frame whose lookup is read then
        self.learn_delay = set()
        self.inflight = 0
        self.p_ready = 1.0
        self.skip_p = 0.15                              # an outcome due waits a cycle
        self.ready_drv = (1 << L) - 1
        self.cls_drv = 0
        self.hcmd = None                                # host command in progress
        self.host_rsps = 0
        self.drv = {}
        self.done = []
        self.stats = {"frames": 0, "tx_drop": 0, "bdrop": 0, "insert": 0, "strip": 0,
                      "ts_insert": 0, "copies": 0, "outcome_first": 0, "outcomes_2": 0}
        self.kinds = {}
        self.cfg = None
        self.ts_cfg = None
        self.cfg_new = False

    # ---- configuration ----------------------------------------------------------------------
    def random_cfg(self):
        r, P = self.r, self.P
        allp = (1 << P) - 1
        enable = allp
        for _ in range(r.choice([0, 0, 1, 2] if P > 3 else [0, 0, 0, 1])):
            enable &= ~(1 << r.randrange(P))
        ents = [M.Vlan(True, 1, allp & ~(r.getrandbits(P) & r.getrandbits(P) & r.getrandbits(P)))]
        ents += [M.Vlan(True, 2, r.getrandbits(P)), M.Vlan(True, 3, r.getrandbits(P)),
                 M.Vlan(True, 3, r.getrandbits(P)),     # a second entry for VID 3: ORed
                 M.Vlan(False, 5, allp), M.Vlan(True, 4095, r.getrandbits(P))]
        ents = ents[:self.nvlans]
        ents += [M.Vlan(False, 0, 0)] * (self.nvlans - len(ents))
        cfg = M.RxCfg(
            ports=P, seg_bytes=1 << 20, port_enable=enable, port_trunk=r.getrandbits(P),
            pvid=[r.choice([1, 1, 1, 2, 3, 5]) for _ in range(P)],
            port_pcp=[r.randrange(8) for _ in range(P)], vlans=ents,
            learn_enable=r.random() < 0.85, host_link_local=r.random() < 0.5,
            host_arp=r.random() < 0.5, host_icmpv6=r.random() < 0.5,
            host_unknown=r.random() < 0.3, flood_host=r.random() < 0.4)
        ts = dict(enable=r.getrandbits(P), by_type=r.getrandbits(P),
                  et=[r.choice([0x88F7, 0x88F7, M.ETH_IPV4, M.ETH_IPV6, 0x0042]) for _ in range(P)])
        return cfg, ts

    def apply_cfg(self, cfg, ts):
        assert self.inflight == 0, "configuration changed with frames in flight"
        self.cfg, self.ts_cfg = cfg, ts
        self.cfg_new = True         # written in the next cycle's drive (not in the ReadOnly phase)

    def _write_cfg(self):
        d, P, cfg, ts = self.dut, self.P, self.cfg, self.ts_cfg
        self.cfg_new = False
        d.cfg_port_enable.value = cfg.port_enable
        d.cfg_port_trunk.value = cfg.port_trunk
        d.cfg_port_pvid.value = sum(v << (12 * i) for i, v in enumerate(cfg.pvid))
        d.cfg_port_pcp.value = sum(v << (3 * i) for i, v in enumerate(cfg.port_pcp))
        d.cfg_vlan_valid.value = sum(int(v.valid) << i for i, v in enumerate(cfg.vlans))
        d.cfg_vlan_vid.value = sum(v.vid << (12 * i) for i, v in enumerate(cfg.vlans))
        d.cfg_vlan_members.value = sum((v.members & ((1 << P) - 1)) << (P * i)
                                       for i, v in enumerate(cfg.vlans))
        d.cfg_learn_enable.value = int(cfg.learn_enable)
        d.cfg_host_link_local.value = int(cfg.host_link_local)
        d.cfg_host_arp.value = int(cfg.host_arp)
        d.cfg_host_icmpv6.value = int(cfg.host_icmpv6)
        d.cfg_host_unknown.value = int(cfg.host_unknown)
        d.cfg_flood_host.value = int(cfg.flood_host)
        d.cfg_ts_enable.value = ts["enable"]
        d.cfg_ts_by_type.value = ts["by_type"]
        d.cfg_ts_ethertype.value = sum(v << (16 * i) for i, v in enumerate(ts["et"]))

    async def start(self):
        d, L = self.dut, self.L
        for name in ("s_key_valid", "s_key_da", "s_key_sa", "s_key_tagged", "s_key_tci", "s_key_ts",
                     "s_key_short", "s_key_bad", "s_cls_valid", "s_cls_ethertype", "s_cls_ip_valid",
                     "s_cls_ip_proto", "buf_start", "buf_start_src", "buf_start_head", "buf_drop",
                     "buf_drop_src", "host_cmd_valid", "host_cmd_op", "host_cmd_bucket",
                     "host_cmd_way", "host_cmd_entry_valid", "host_cmd_static", "host_cmd_port",
                     "host_cmd_vid", "host_cmd_mac", "cfg_age_cycles"):
            getattr(d, name).value = 0
            self.drv[name] = 0
        d.m_desc_ready.value = (1 << L) - 1
        self.drv["m_desc_ready"] = (1 << L) - 1
        self.apply_cfg(*self.random_cfg())
        self._write_cfg()
        await start(d)

    # ---- the cycle --------------------------------------------------------------------------
    def _w(self, name, v):
        if self.drv.get(name) != v:
            getattr(self.dut, name).value = v
            self.drv[name] = v

    def _drive(self, c):
        r, L = self.r, self.L
        if self.cfg_new:
            self._write_cfg()
        kv = da = sa = tg = tci = kts = sh = bd = 0
        for lane in range(L):
            f = self.presenting[lane]
            if f is None and self.pending[lane] and self.pending[lane][0].key_at <= c:
                f = self.presenting[lane] = self.pending[lane].popleft()
                f.present = c
            if f is not None:
                kv |= 1 << lane
                da |= f.da << (48 * lane)
                sa |= f.sa << (48 * lane)
                tg |= f.tagged << lane
                tci |= f.tci << (16 * lane)
                kts |= f.ts << (24 * lane)
                sh |= f.short << lane
                bd |= f.key_bad << lane
        self._w("s_key_valid", kv)
        if kv:
            for name, v in (("s_key_da", da), ("s_key_sa", sa), ("s_key_tagged", tg), ("s_key_tci", tci),
                            ("s_key_ts", kts), ("s_key_short", sh), ("s_key_bad", bd)):
                self._w(name, v)
        cv = et = ipv = pr = 0
        for lane in range(L):
            if self.unpopped[lane] and self.unpopped[lane][0].cls_at <= c:
                f = self.unpopped[lane][0]
                cv |= 1 << lane
                et |= f.et << (16 * lane)
                ipv |= int(f.ip_valid) << lane
                pr |= (f.proto if f.ip_valid else r.choice([58, r.randrange(256)])) << (8 * lane)
        self.cls_drv = cv
        self._w("s_cls_valid", cv)
        if cv:
            self._w("s_cls_ethertype", et)
            self._w("s_cls_ip_valid", ipv)
            self._w("s_cls_ip_proto", pr)
        # buffer outcomes: one start and one drop per cycle, per-lane order
        start_ = drop_ = None
        for lane, is_drop, head, stored in self.inject.pop(c, []):
            if is_drop:
                assert drop_ is None
                drop_ = (lane, 0)
            else:
                assert start_ is None
                start_ = (lane, head)
            if stored:
                self.ostore[lane].append((is_drop, head, c))
        lanes = [q for q in range(L) if self.osend[q] and self.osend[q][0].out_at <= c and
                 (len(self.ostore[q]) < 2 or self.osend[q][0].force)]
        r.shuffle(lanes)
        lanes.sort(key=lambda q: not self.osend[q][0].force)
        for lane in lanes:
            f = self.osend[lane][0]
            if not f.force and r.random() < self.skip_p:
                continue
            if start_ is not None and drop_ is not None:
                break
            if (start_ if not f.drop else drop_) is not None:
                continue
            if (start_ and start_[0] == lane) or (drop_ and drop_[0] == lane):
                continue
            self.osend[lane].popleft()
            if f.drop:
                drop_ = (lane, 0)
            else:
                start_ = (lane, f.head)
            self.ostore[lane].append((f.drop, f.head, c))
            self.stats["outcome_first"] += f.accept is None
        self.stats["outcomes_2"] += start_ is not None and drop_ is not None
        self._w("buf_start", int(start_ is not None))
        if start_ is not None:
            self._w("buf_start_src", start_[0])
            self._w("buf_start_head", start_[1])
        self._w("buf_drop", int(drop_ is not None))
        if drop_ is not None:
            self._w("buf_drop_src", drop_[0])
        # m_desc_ready
        if self.p_ready >= 1.0:
            rdy = (1 << L) - 1
        else:
            rdy = sum(int(r.random() < self.p_ready) << o for o in range(L))
        self.ready_drv = rdy
        self._w("m_desc_ready", rdy)
        # the table's host port
        h = self.hcmd
        if h is not None and not h["accepted"]:
            self._w("host_cmd_valid", 1)
            self._w("host_cmd_op", 2)
            self._w("host_cmd_entry_valid", h["valid"])
            self._w("host_cmd_static", h["static"])
            self._w("host_cmd_port", h["port"])
            self._w("host_cmd_vid", h["vid"])
            self._w("host_cmd_mac", h["mac"])
        else:
            self._w("host_cmd_valid", 0)

    def _sample(self, c):
        d, L = self.dut, self.L
        # keys accepted
        kv = self.drv["s_key_valid"]
        if kv:
            kr = uint(d.s_key_ready)
            for lane in range(L):
                f = self.presenting[lane]
                if f is not None and (kr >> lane) & 1:
                    f.accept = c
                    if f.cls_at is None:
                        f.cls_at = c + f.cls_delay
                    self.presenting[lane] = None
                    self.ungranted[lane].append(f)
                    self.unpopped[lane].append(f)
        # the table (fp_node_wl2). Learn results first: a write comes with its event, and a
        # lookup read from the next cycle on sees it (the lookup of a grant in cycle c is read in
        # c + 1, so it sees the events of cycles <= c).
        self._learn_events(c)
        # the lookup and learn requests of the grant of the previous cycle (LK0 / LN0)
        if uint(d.u_l2.s_lk_valid):
            f = self.lk_due.pop(c, None)
            assert f is not None, f"cycle {c}: a table lookup with no grant the cycle before"
            vid, da, sa, learn = f.req
            got = (uint(d.u_l2.s_lk_vid), uint(d.u_l2.s_lk_mac), uint(d.u_l2.s_lk_bucket))
            want = (vid, da, M.l2_hash(vid, da, self.buckets))
            assert got == want, f"cycle {c} lane {f.lane}: lookup (vid, mac, bucket) {got} expected {want}"
            ln = uint(d.u_l2.s_ln_valid)
            assert ln == int(learn), f"cycle {c} lane {f.lane}: s_ln_valid {ln}, learn {learn}"
            if ln:
                got = (uint(d.u_l2.s_ln_vid), uint(d.u_l2.s_ln_mac), uint(d.u_l2.s_ln_bucket),
                       uint(d.u_l2.s_ln_port))
                want = (vid, sa, M.l2_hash(vid, sa, self.buckets), f.lane)
                assert got == want, f"cycle {c} lane {f.lane}: learn (vid, mac, bucket, port) {got} expected {want}"
                self.lq.append((c, vid, sa, f.lane))
        else:
            assert c not in self.lk_due, f"cycle {c}: no table lookup for the grant of cycle {c - 1}"
            assert not uint(d.u_l2.s_ln_valid), f"cycle {c}: a learn without a lookup"
        # the lookup grant: the order the lanes reach the table
        g = uint(d.l_grant)
        if g:
            assert g & (g - 1) == 0, f"cycle {c}: two lookup grants {g:b}"
            lane = g.bit_length() - 1
            assert self.ungranted[lane], f"cycle {c}: grant for lane {lane} with no key"
            f = self.ungranted[lane].popleft()
            f.req = M.table_request(f.data, lane, self.cfg, f.bad_first)
            f.grant = c
            f.lookup = self.table.lookup(f.req[0], f.req[1])
            f.dec = M.classify(f.data, lane, self.cfg, bad=f.bad_first, lookup=f.lookup)
            self.lk_due[c + 1] = f
        # pushes: the classification handshake
        cv = self.cls_drv
        cr = uint(d.s_cls_ready)
        assert cr & ~cv == 0, f"cycle {c}: s_cls_ready {cr:b} without s_cls_valid {cv:b}"
        assert cr & (cr - 1) == 0, f"cycle {c}: two pushes {cr:b}"
        if cr:
            lane = cr.bit_length() - 1
            f = self.unpopped[lane].popleft()
            assert f.grant is not None and c >= f.grant + GRANT_TO_DESC - 2, \
                f"cycle {c} lane {lane}: pushed before its decision (grant {f.grant})"
            assert self.ostore[lane], f"cycle {c} lane {lane}: pushed without an outcome"
            f.out = self.ostore[lane].popleft()
            assert f.out[2] < c, f"cycle {c} lane {lane}: pushed with an outcome of this cycle"
            f.pop = c
            self.exp2[c + 2] = f
            self.exp3[c + 3] = f
        # X2: the descriptors
        dv = uint(d.m_desc_valid)
        f = self.exp2.pop(c, None)
        if f is None:
            assert dv == 0, f"cycle {c}: m_desc_valid {dv:b} with no frame"
        else:
            want = self.expect_valid(f)
            f.got_valid = dv
            assert dv == want, (f"cycle {c} lane {f.lane}: m_desc_valid {dv:b} expected {want:b}; "
                                f"{f.dec} outcome {f.out} frame {f.data[:20].hex()}")
            if dv:
                self.check_desc(c, f, dv)
            f.acc = dv & self.ready_drv
            f.txd = dv & ~self.ready_drv
        # X3: the ref and the events
        ef = uint(d.ev_frame)
        rv = uint(d.m_ref_valid)
        txd = uint(d.ev_tx_drop)
        f = self.exp3.pop(c, None)
        if f is None:
            assert ef == 0 and rv == 0 and txd == 0, f"cycle {c}: ev_frame {ef} m_ref {rv} ev_tx_drop {txd}"
        else:
            drop = f.out[0]
            reason = R_BUF if drop else f.dec.reason
            # HOSTS = 0: a frame only for the host is dropped (with its reason)
            discard = 1 if drop else int(f.dec.discard or (self.H == 0 and f.dec.dst_set == 0))
            got = (ef, uint(d.ev_frame_src), uint(d.ev_frame_discard), uint(d.ev_frame_reason))
            assert got == (1, f.lane, discard, reason), \
                f"cycle {c}: ev_frame/src/discard/reason {got} expected {(1, f.lane, discard, reason)}; {f.dec}"
            assert rv == int(not drop), f"cycle {c} lane {f.lane}: m_ref_valid {rv}, buffer drop {drop}"
            if rv:
                got = (uint(d.m_ref_head), uint(d.m_ref_count))
                assert got == (f.out[1], popcount(f.acc)), \
                    f"cycle {c} lane {f.lane}: m_ref head/count {got} expected {(f.out[1], popcount(f.acc))}"
            assert txd == f.txd, f"cycle {c}: ev_tx_drop {txd:b} expected {f.txd:b}"
            f.done = c
            self.finish(f)
        # bad input and the table's events
        eo = uint(d.ev_outcome_err)
        assert eo == int(c in self.exp_oerr), f"cycle {c}: ev_outcome_err {eo}"
        self.oerr_seen += eo
        self.exp_oerr.discard(c)
        # host port
        h = self.hcmd
        if h is not None and not h["accepted"] and uint(d.host_cmd_ready):
            h["accepted"] = c
            h["want"] = self.table.host_insert(h["valid"], h["static"], h["port"], h["vid"], h["mac"])
        hr = uint(d.host_rsp_valid)
        if hr:
            assert h is not None and h["accepted"] and h["accepted"] < c, f"cycle {c}: host_rsp_valid"
            x = h["want"]
            got = (uint(d.host_rsp_status), uint(d.host_rsp_entry_valid), uint(d.host_rsp_static),
                   uint(d.host_rsp_hit), uint(d.host_rsp_port), uint(d.host_rsp_vid), uint(d.host_rsp_mac))
            want = (x.status, int(x.entry.valid), int(x.entry.static), int(x.entry.hit), x.entry.port,
                    x.entry.vid, x.entry.mac)
            assert got == want, f"cycle {c}: host rsp {got} expected {want}"
            self.hcmd = None
            self.host_rsps += 1

    def _learn_events(self, c):
        """The table's learn events of cycle c against the model's learn queue (in request order:
        a dropped request leaves it; each new / move / full event is the next request whose result
        is not a refresh, which makes no event)."""
        d = self.dut
        ev = {k: uint(getattr(d, "ev_" + k)) for k in ("learn_new", "learn_move", "learn_full", "learn_drop")}
        for k, v in ev.items():
            self.events[k] += v
        if ev["learn_drop"]:
            hit = [q for q in self.lq if q[0] == c - 1]
            assert hit, f"cycle {c}: ev_learn_drop with no learn request in cycle {c - 1}"
            self.lq.remove(hit[0])
        kinds = [k[len("learn_"):] for k in ("learn_new", "learn_move", "learn_full") if ev[k]]
        assert len(kinds) <= 1, f"cycle {c}: learn events {ev}"
        if kinds:
            while True:
                assert self.lq, f"cycle {c}: ev_learn_{kinds[0]} with no learn request waiting"
                c0, vid, mac, port = self.lq.popleft()
                res = self.table.learn(vid, mac, port)
                if res != "refresh":
                    break
            self.learn_delay.add(c - c0)     # learn request -> its write and event (cycles)
            assert res == kinds[0], f"cycle {c}: ev_learn_{kinds[0]}, the model's next learn gives {res}"

    def flush_learns(self):
        """The learns still queued in the model made no event: each must be a refresh."""
        while self.lq:
            c0, vid, mac, port = self.lq.popleft()
            res = self.table.learn(vid, mac, port)
            assert res == "refresh", f"learn of cycle {c0} ({vid}, {mac:012x}) -> {res} without its event"

    async def step(self):
        await RisingEdge(self.dut.clk)
        self.cycle += 1
        self._drive(self.cycle)
        await ReadOnly()
        self._sample(self.cycle)

    # ---- expectations -----------------------------------------------------------------------
    def expect_valid(self, f) -> int:
        if f.out[0]:
            return 0
        v = f.dec.dst_set
        if f.dec.to_host and self.H:
            v |= 1 << (self.P + f.lane // self.per_dp)
        return v

    def check_desc(self, c, f, dv):
        d, P, cfg, ts = self.dut, self.P, self.cfg, self.ts_cfg
        dec = f.dec
        assert uint(d.m_desc_head) == f.out[1], f"cycle {c}: m_desc_head {uint(d.m_desc_head)} expected {f.out[1]}"
        assert uint(d.m_desc_ts) == f.ts, f"cycle {c}: m_desc_ts"
        ops, tsi = uint(d.m_desc_vlan_op), uint(d.m_desc_ts_insert)
        insert = False
        for o in range(self.L):
            if not (dv >> o) & 1:
                continue
            if o >= P:
                want_op, want_ts = 0, 0
            else:
                tag_out = (cfg.port_trunk >> o) & 1 and dec.vid != cfg.pvid[o]
                want_op = 1 if dec.tagged and not tag_out else 2 if not dec.tagged and tag_out else 0
                want_ts = int(bool((ts["enable"] >> o) & 1) and
                              (not (ts["by_type"] >> o) & 1 or f.et == ts["et"][o]))
            got_op = (ops >> (2 * o)) & 3
            assert got_op == want_op, f"cycle {c} lane {f.lane} output {o}: vlan_op {got_op} expected {want_op}; {dec}"
            assert (tsi >> o) & 1 == want_ts, f"cycle {c} output {o}: ts_insert {(tsi >> o) & 1} expected {want_ts}"
            insert |= want_op == 2
            self.stats["insert"] += want_op == 2
            self.stats["strip"] += want_op == 1
            self.stats["ts_insert"] += want_ts
        if insert:
            want = (dec.pcp << 13) | dec.vid
            assert uint(d.m_desc_tci) == want, f"cycle {c}: m_desc_tci {uint(d.m_desc_tci):04x} expected {want:04x}"

    def finish(self, f):
        self.inflight -= 1
        self.done.append(f)
        self.stats["frames"] += 1
        self.stats["tx_drop"] += popcount(f.txd)
        self.stats["copies"] += popcount(f.acc)
        self.stats["bdrop"] += f.out[0]
        d = f.dec
        if f.out[0]:
            k = "buffer_drop"
        elif d.discard:
            k = REASON_NAME[d.reason]
        elif d.to_host:
            k = "host+ports" if d.dst_set else "host"
        else:
            k = "flood" if popcount(d.dst_set) > 1 else "unicast"
        self.kinds[k] = self.kinds.get(k, 0) + 1

    # ---- traffic ----------------------------------------------------------------------------
    def add(self, f: Frame):
        self.pending[f.lane].append(f)
        if f.send_outcome:
            self.osend[f.lane].append(f)
        self.inflight += 1
        return f

    def stations(self, n_per_port=2):
        r = self.r
        self.st = [[bytes([0x02, 0x10 + q, r.randrange(256), r.randrange(256), r.randrange(256), k])
                    for k in range(n_per_port)] for q in range(self.L)]
        self.hmacs = [bytes([0x02, 0xEE, 0, 0, 0, k]) for k in range(4)]

    def random_data(self, lane, short_p=0.04) -> bytes:
        r = self.r
        k = r.random()
        if k < 0.10:
            da = b"\xff" * 6
        elif k < 0.15:
            da = bytes([0x01, 0x00, 0x5E, r.randrange(128), r.randrange(256), r.randrange(256)])
        elif k < 0.17:
            da = bytes([0x33, 0x33, 0, 0, 0, r.randrange(256)])
        elif k < 0.27:
            da = bytes([0x01, 0x80, 0xC2, 0, 0, r.choice([0, 1, 2, 3, 0xE, 0xF, 0x10, 0x21])])
        elif k < 0.35:
            da = bytes([r.randrange(256) & 0xFE] + [r.randrange(256) for _ in range(5)])
        elif k < 0.42:
            da = r.choice(self.hmacs)
        else:
            da = r.choice(r.choice(self.st))
        k = r.random()
        if k < 0.85:
            sa = r.choice(self.st[lane])
        elif k < 0.92:
            sa = r.choice(r.choice(self.st))                 # a station moves
        elif k < 0.96:
            sa = bytes([0x01, 0, 0x5E, 0, 0, r.randrange(256)])     # multicast SA: never learned
        else:
            sa = bytes([0x02] + [r.randrange(256) for _ in range(5)])
        hdr = da + sa
        if r.random() < 0.35:
            vid = r.choice([1, 1, 2, 3, 3, 5, 0, 4095, 7])
            tci = (r.randrange(8) << 13) | (r.randrange(2) << 12) | vid
            hdr += b"\x81\x00" + tci.to_bytes(2, "big")
        et = r.choice(ETS)
        body = bytearray(r.getrandbits(8) for _ in range(r.choice([4, 8, 30, 46, 60])))
        if et == M.ETH_IPV6 and len(body) > 6:
            body[6] = r.choice([58, 58, 6, 17])
        if et == M.ETH_IPV4 and len(body) > 9:
            body[9] = r.choice([1, 6, 17, 58])
        data = hdr + et.to_bytes(2, "big") + bytes(body)
        if r.random() < short_p:
            data = data[:r.randrange(1, 16)]                 # ended by byte 15
        return data

    def random_frame(self, lane, key_at, out=(-3, 15), cls=(0, 12), drop_p=0.08, bad_p=0.03,
                     short_p=0.04) -> Frame:
        r = self.r
        data = self.random_data(lane, short_p)
        key_bad = (len(data) < 16 and r.random() < 0.8) or r.random() < bad_p
        od = r.randint(*out) if r.random() < 0.9 else r.randint(out[1], out[1] + 30)
        cd = r.randint(*cls) if r.random() < 0.9 else r.randint(cls[1], cls[1] + 30)
        return Frame(lane, data, key_bad, r.getrandbits(24), r.random() < drop_p,
                     r.randrange(self.segments), key_at, od, cd)

    async def settle(self, limit=20000):
        """Until every frame has left and the host port is idle, then a few quiet cycles."""
        n = 0
        while self.inflight or self.hcmd is not None:
            await self.step()
            n += 1
            assert n < limit, (f"stuck: {self.inflight} frames in flight; pending "
                               f"{[len(q) for q in self.pending]} unpopped {[len(q) for q in self.unpopped]}"
                               f" ungranted {[len(q) for q in self.ungranted]} ostore {[len(q) for q in self.ostore]}")
        for _ in range(8 * len(self.lq) + 24):       # the engine: one learn per 8 cycles
            await self.step()
        self.flush_learns()
        assert not self.exp2 and not self.exp3 and not self.exp_oerr and not self.lk_due
        assert all(not q for q in self.ostore), "outcomes left over"

    async def host_insert(self, valid, static, port, vid, mac):
        await self.settle()
        h = self.hcmd = dict(valid=int(valid), static=int(static), port=port, vid=vid, mac=mac,
                             accepted=None, want=None)
        await self.settle()
        return h["want"]

    def check_events(self):
        got = {k: v for k, v in self.events.items() if k != "learn_drop"}
        assert got == self.table.events, f"learn events {self.events} model {self.table.events}"

    def log(self, what):
        lat = [f.pop + 2 - f.accept for f in self.done]
        self.dut._log.info(f"{what}: {self.stats}; kinds {self.kinds}; learn {self.events}; "
                           f"table {len(self.table.entries())} entries; latency {min(lat)}..{max(lat)}; "
                           f"learn request -> event {min(self.learn_delay, default=0)}.."
                           f"{max(self.learn_delay, default=0)}; {self.cycle} cycles")


def latency(f: Frame) -> int:
    return f.pop + 2 - f.accept


@cocotb.test()
async def random_traffic(dut):
    """Random frames on every lane with random gaps, random outcome and classification timing,
    buffer drops, random m_desc_ready; a new random configuration and host table entries each round."""
    r = rng()
    b = Bench(dut, r)
    b.stations()
    await b.start()
    rounds = 8
    per_round = 400
    for rnd in range(rounds):
        await b.settle()
        b.apply_cfg(*b.random_cfg())
        # host entries: static, on a port or on a host (port >= PORTS), some removed again
        for _ in range(r.randrange(1, 4)):
            port = r.choice([r.randrange(b.P), b.P, b.P + 1, 31])
            mac = M.mac_int(r.choice(b.hmacs + [r.choice(r.choice(b.st))]))
            await b.host_insert(r.random() < 0.85, 1, port, r.choice([1, 1, 2, 3]), mac)
        b.p_ready = r.choice([1.0, 0.85, 0.6])
        nxt = [b.cycle + r.randrange(20) for _ in range(b.L)]
        for _ in range(per_round):
            lane = r.randrange(b.L)
            gap = r.choice([0, 1, 3, r.randrange(30), r.randrange(120)])
            nxt[lane] = max(nxt[lane], b.cycle) + gap
            b.add(b.random_frame(lane, nxt[lane]))
        await b.settle()
        b.check_events()
    b.log("random")
    assert b.stats["tx_drop"] > 0 and b.stats["bdrop"] > 0 and b.stats["outcome_first"] > 0
    if b.P >= 4:
        assert b.stats["insert"] > 0 and b.stats["strip"] > 0 and b.stats["ts_insert"] > 0
        assert len(b.kinds) >= 9, b.kinds
    assert b.host_rsps > 0 and b.oerr_seen == 0


@cocotb.test()
async def latency_unloaded(dut):
    """One frame in the module at a time, its outcome and classification in before the push:
    m_desc_valid exactly LATENCY cycles after the key is accepted (GRANT_TO_DESC after the
    lookup grant, which is in the request's first cycle)."""
    r = rng()
    b = Bench(dut, r)
    b.stations()
    await b.start()
    b.apply_cfg(*b.random_cfg())
    b.skip_p = 0.0
    n = 300 if b.L <= 6 else 420
    for k in range(n):
        lane = k % b.L if k < 2 * b.L else r.randrange(b.L)
        f = b.add(b.random_frame(lane, b.cycle + 1 + r.randrange(6), out=(-3, 2), cls=(0, 3),
                                 drop_p=0.05))
        f.out_at = min(f.out_at, f.key_at + 2)
        f.cls_delay = min(f.cls_delay, 3)
        await b.settle()
    b.check_events()
    lat = set()
    for f in b.done:
        assert f.grant == f.accept + 2, f"lane {f.lane}: key {f.accept}, lookup grant {f.grant}"
        assert f.pop + 2 - f.grant == GRANT_TO_DESC, f"lane {f.lane}: grant {f.grant} -> X2 {f.pop + 2}"
        lat.add(latency(f))
    b.log("unloaded")
    assert lat == {LATENCY}, sorted(lat)


@cocotb.test()
async def latency_loaded(dut):
    """Bursts: every lane gets a key in the same cycle or within 4 cycles of the others (outcome
    and classification in before the push, random m_desc_ready): every port lane's frame within
    the header's bound, LATENCY + PORTS - 1 (lookup grants) + PORTS - 1 (pushes); host lanes,
    served when no port asks, have no bound (their worst is logged)."""
    r = rng()
    b = Bench(dut, r)
    b.stations()
    await b.start()
    b.skip_p = 0.0
    for burst in range(80 if b.L <= 6 else 50):
        if burst % 10 == 0:
            await b.settle()
            b.apply_cfg(*b.random_cfg())
            b.p_ready = 0.8
        base = b.cycle + 2
        spread = r.choice([1, 1, 4])
        for lane in range(b.L):
            if r.random() < 0.9:
                # the outcomes before the keys: one buffer start per cycle for all the lanes
                f = b.add(b.random_frame(lane, base + b.L + 2 + r.randrange(spread), cls=(0, 3),
                                         drop_p=0.05))
                f.out_at = base
                f.cls_delay = min(f.cls_delay, 3)
        await b.settle()
    b.check_events()
    worst = {"port": 0, "host": 0}
    for f in b.done:
        host = f.lane >= b.P
        worst["host" if host else "port"] = max(worst["host" if host else "port"], latency(f))
        assert latency(f) >= LATENCY
        assert host or latency(f) <= b.bound, f"lane {f.lane}: latency {latency(f)} > {b.bound}"
    b.log("loaded")
    dut._log.info(f"loaded: worst latency {worst}, port lanes' bound {b.bound}")


@cocotb.test()
async def host_entries(dut):
    """A static entry inserted through host_cmd op 2 changes the forwarding of later frames (and
    is not moved by learning); an entry on a port >= PORTS sends frames to the host."""
    r = rng()
    b = Bench(dut, r)
    b.stations()
    await b.start()
    P, allp = b.P, (1 << b.P) - 1
    cfg = M.RxCfg(ports=P, seg_bytes=1 << 20, vlans=[M.Vlan(True, 1, allp)] +
                  [M.Vlan(False, 0, 0)] * (b.nvlans - 1), host_link_local=False)
    b.apply_cfg(cfg, dict(enable=0, by_type=0, et=[0] * P))
    # X, Y and lane 0's station in different buckets (no bucket fills up)
    used = {b.table.hash(1, M.mac_int(b.st[0][0]))}
    picked = []
    for k in range(256):
        m = bytes([0x02, 0xAA, 0, 0, 0, k])
        if len(picked) < 2 and b.table.hash(1, M.mac_int(m)) not in used:
            used.add(b.table.hash(1, M.mac_int(m)))
            picked.append(m)
    X, Y = picked
    t = P - 1                       # X's port; the frames come from port 0

    async def send(lane, da, sa=None):
        data = da + (sa or b.st[lane][0]) + bytes.fromhex("88b5") + bytes(50)
        f = b.add(Frame(lane, data, False, r.getrandbits(24), False, r.randrange(b.segments),
                        b.cycle + 1, 0, 0))
        await b.settle()
        return f.got_valid

    assert await send(0, X) == allp & ~1                  # unknown: flooded
    assert (await b.host_insert(1, 1, t, 1, M.mac_int(X))).status == M.ST_OK
    assert await send(0, X) == 1 << t                     # static entry: port t only
    assert await send(0, b"\xff" * 6, X) == allp & ~1     # X seen on port 0: not moved (static)
    assert await send(0, X) == 1 << t
    assert (await b.host_insert(1, 1, P, 1, M.mac_int(Y))).status == M.ST_OK   # Y: on a host port
    if b.H:
        assert await send(0, Y) == 1 << P                 # to port 0's host only
        assert await send(P, Y) == 0                      # from a host lane: never to a host: NO_DEST
        assert b.done[-1].dec.reason == R_NODEST
    else:
        assert await send(0, Y) == 0                      # no host: dropped (checked: discard)
        assert b.done[-1].dec.to_host
    assert (await b.host_insert(0, 0, 0, 1, M.mac_int(X))).status == M.ST_OK   # X removed
    assert await send(0, X) == allp & ~1                  # flooded again
    assert (await b.host_insert(0, 0, 0, 1, M.mac_int(X))).status == M.ST_NOT_FOUND
    b.check_events()
    assert b.events["learn_new"] == len([e for e in b.table.entries().values() if not e[1]])
    b.log("host entries")


@cocotb.test()
async def bad_input(dut):
    """A third outcome for a lane before it uses one: ev_outcome_err 2 cycles later, ignored
    (the next keys get the first two); a third outcome in the cycle the lane pushes is kept."""
    r = rng()
    b = Bench(dut, r)
    b.stations()
    await b.start()
    P, allp = b.P, (1 << b.P) - 1
    cfg = M.RxCfg(ports=P, seg_bytes=1 << 20, vlans=[M.Vlan(True, 1, allp)] +
                  [M.Vlan(False, 0, 0)] * (b.nvlans - 1))
    b.apply_cfg(cfg, dict(enable=0, by_type=0, et=[0] * P))
    for lane in (r.randrange(b.L), b.L - 1, 0):
        # three outcomes, no key: the third is refused
        t = b.cycle + 3
        h1, h3 = r.randrange(b.segments), r.randrange(b.segments)
        b.inject[t] = [(lane, False, h1, True)]
        b.inject[t + r.randrange(1, 4)] = [(lane, True, 0, True)]
        t3 = t + 5
        b.inject[t3] = [(lane, False, h3, False)]
        b.exp_oerr.add(t3 + 2)
        for _ in range(t3 + 4 - b.cycle):
            await b.step()
        assert not b.exp_oerr and b.oerr_seen > 0
        # two keys take the first two outcomes, a third frame brings its own
        fs = [b.add(Frame(lane, b"\xff" * 6 + b.st[lane][0] + bytes.fromhex("0800") + bytes(46), False,
                          r.getrandbits(24), False, 0, b.cycle + 2 + k, 0, 0, send_outcome=False))
              for k in range(2)]
        f3 = b.add(b.random_frame(lane, b.cycle + 4, drop_p=0.0))
        await b.settle()
        assert fs[0].out[:2] == (False, h1) and fs[1].out[0], [f.out for f in fs]
        assert f3.out[:2] == (f3.drop, f3.head)
    # a third outcome in the cycle the lane pushes its first frame: no error
    lane = r.randrange(b.L)
    t0 = b.cycle + 3
    a = b.add(b.random_frame(lane, t0, out=(0, 0), short_p=0, bad_p=0, drop_p=0))
    a.cls_at = t0 + 40
    b.add(b.random_frame(lane, t0 + 1, out=(0, 0), drop_p=0))
    c3 = b.random_frame(lane, t0 + 2, drop_p=0)
    c3.out_at, c3.force = t0 + 40, True
    b.add(c3)
    await b.settle()
    assert a.pop == t0 + 40, (a.accept, a.grant, a.pop)
    assert b.oerr_seen == 3
    b.check_events()
    b.log("bad input")


@pytest.mark.parametrize("ports,hosts,buckets,ways,vlans", [
    (4, 2, 16, 2, 4),       # the node's (fp_node_w) shape: 4 ports, 2 hosts
    (12, 2, 16, 4, 6),      # 14 lanes
    (3, 1, 16, 2, 4),       # one host for all ports
    (2, 0, 16, 2, 2),       # no host: frames only for the host are dropped
])
def test_node_wdec(ports, hosts, buckets, ways, vlans):
    runner.run("fp_node_wdec", __name__, {"PORTS": ports, "HOSTS": hosts, "SEGMENTS": 64,
                                          "VLANS": vlans, "BUCKETS": buckets, "WAYS": ways})
