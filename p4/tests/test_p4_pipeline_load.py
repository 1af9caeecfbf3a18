"""The pipeline's loader (fastpath.p4.pipeline_load) without a simulator: the system region, the
stage order and gates, key slots, TCAM rows in match order, refusals in one line, and the
synthesis entry that the bench's Gb/s figure relies on."""
from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from fastpath.p4 import compiler
from fastpath.p4 import pipeline_load as PL
from fastpath.p4 import samples as S
from fastpath.p4.action_load import LoadError
from fastpath.p4.runtime import CommandError, Runtime, TableStore
from fastpath.paths import VECTORS

BMV2 = VECTORS / "bmv2"
need_vectors = pytest.mark.skipif(not (BMV2 / "simple_router.json").exists(), reason="no shared vectors")
HW = PL.PipelineHW(PHV_BITS=768, VALID_BITS=8, STAGES=5, STATES=16, STACKS=1, HDRS=8, CSUMS=2)


def router():
    return compiler.compile_file(BMV2 / "simple_router.json")


@need_vectors
def test_simple_router_stages_gates_and_system_region():
    p = PL.plan(router(), HW)
    assert [(s.kind, s.name) for s in p.stages] == [
        ("conditional", "node_2"), ("table", "ipv4_lpm"), ("table", "forward"), ("bridge", "__bridge"),
        ("table", "send_frame")]
    # the first node of each pipeline runs ungated; the others on their flags; egress on the bridge's
    assert p.stages[0].gate is None and p.stages[3].gate is None
    assert {s.name: s.gate for s in p.stages[1:]} == {"ipv4_lpm": p.flags["ipv4_lpm"], "forward": p.flags["forward"],
                                                      "__bridge": None, "send_frame": p.flags["send_frame"]}
    assert all(PL.SYS_FLAGS <= g < PL.GATE_BITS for g in p.flags.values())
    sys_i = p.flow.instance(PL.SYS)
    assert sys_i.phv_offset + sys_i.width == HW.PHV_BITS      # at the PHV's least significant end
    t = p.flow.header_type(sys_i.type)
    pos = {f.name: HW.PHV_BITS - sys_i.phv_offset - f.offset - f.width for f in t.fields}   # LSB positions
    assert pos["ingress_port"] == PL.SYS_PORT
    assert pos.get("parser_error", pos.get("parser_error_pad")) == PL.SYS_ERR   # simple_router has none
    assert pos["payload_offset"] == PL.SYS_OFF and pos["egress"] == PL.SYS_EGRESS
    # the program's fields are renamed into the region: set_nhop writes the egress slot
    set_nhop = next(a for a in p.flow.actions if a.name == "set_nhop")
    assert any(o.dst == ["field", PL.SYS, "egress"] for o in set_nhop.ops)
    # the LPM key: one slot of 32 bits, the IPv4 destination's LSB in {PHV, validity}
    sl = p.stages[1].slots
    kf = p.flow.table("ipv4_lpm").key[0]
    assert [(s.offset, s.width) for s in sl] == [(HW.VALID_BITS + HW.PHV_BITS - kf.phv_offset - 32, 32)]


@need_vectors
def test_tcam_rows_in_match_order():
    cfg = router()
    store = TableStore(cfg)
    Runtime(store).run("table_add ipv4_lpm set_nhop 10.0.0.0/8 => 10.0.0.1 1\n"
                       "table_add ipv4_lpm set_nhop 10.1.0.0/16 => 10.1.0.1 2\n"
                       "table_add ipv4_lpm _drop 0.0.0.0/0 =>\n")
    p = PL.plan(cfg, HW)
    rows = p.tcam_rows(store, p.stages[1])
    top = HW.key_width - HW.SLOT_BITS        # slot 0 is the key's most significant
    masks = [m >> top for _, m, _ in rows]
    assert masks == [0xFFFF0000, 0xFF000000, 0]            # longest prefix first
    assert [v >> top for v, _, _ in rows] == [0x0A010000, 0x0A000000, 0]
    aids = [a >> HW.DATA_BITS for _, _, a in rows]
    st = p.stages[1]
    drop = next(a.id for a in cfg.actions if a.name == "_drop" and a.id in cfg.table("ipv4_lpm").actions)
    set_nhop = next(a.id for a in cfg.actions if a.name == "set_nhop")
    assert aids == [st.aids[(set_nhop, True)]] * 2 + [st.aids[(drop, True)]]


def test_ternary_rows_by_priority_and_ranges_expanded():
    cfg = compiler.compile_program(S.vlan_push_pop(), name="vlan")
    t = cfg.tables[0]
    store = TableStore(cfg)
    p = PL.plan(cfg, HW)
    ts = store.tables[t.name]
    aid = t.actions[0]
    data = [0] * len(cfg.action(aid).params)
    ts.add([["exact", 0x0800]], aid, data, None)
    ts.add([["exact", 0x8100]], aid, data, None)
    assert len(p.tcam_rows(store, p.stages[0])) == 2


@pytest.mark.parametrize("hw, msg", [
    (PL.PipelineHW(PHV_BITS=768, STAGES=4, STATES=16), r'5 stages needed \(node_2, ipv4_lpm, forward, __bridge, '
                                                       r'send_frame\): the pipeline has STAGES = 4'),
    (PL.PipelineHW(PHV_BITS=512, STAGES=5, STATES=16), r"PHV of 448 bits \+ 99 system bits: the pipeline has "
                                                       r"PHV_BITS = 512"),
    (PL.PipelineHW(PHV_BITS=768, STAGES=5, STATES=16, SLOTS=1, SLOT_BITS=16),
     r'table "ipv4_lpm": a key of 32 bits takes 2 slots of 16 bits, the stages have SLOTS = 1'),
    (PL.PipelineHW(PHV_BITS=768, STAGES=5, STATES=16, ACTIONS=4), r'stage 1 "ipv4_lpm": 5 action programs, '
                                                                  r"the stages have ACTIONS = 4"),
])
@need_vectors
def test_refusals_are_one_line(hw, msg):
    with pytest.raises(LoadError, match=msg) as e:
        PL.plan(router(), hw)
    assert "\n" not in str(e.value)


@need_vectors
def test_too_many_rows_is_refused():
    cfg = router()
    store = TableStore(cfg)
    Runtime(store).run("\n".join(f"table_add forward set_dmac 10.0.0.{i} => 00:00:00:00:00:{i:02x}"
                                 for i in range(40)))
    p = PL.plan(cfg, HW)
    with pytest.raises(LoadError, match=r'table "forward": 40 TCAM rows, the stage has 32'):
        p.tcam_rows(store, p.stages[2])


@need_vectors
def test_deliver_is_the_traffic_manager():
    cfg = compiler.compile_file(BMV2 / "l2_switch.json")
    store = TableStore(cfg)
    Runtime(store).run("mc_mgrp_create 1\nmc_node_create 0 1 2 3\nmc_node_associate 1 0\n")
    p = PL.plan(cfg, HW)
    data = b"x" * 60
    assert PL.deliver(p, store, (1 << 16) | 0, data, 2) == [(1, data), (3, data)]   # not back to port 2
    assert PL.deliver(p, store, 511, data, 2) == []
    assert PL.deliver(p, store, 7, data, 2) == [(7, data)]


def test_the_synthesis_entry_is_the_benchs_build():
    """`fastpath bench p4` turns bits per cycle of bench.mpls_hw(64) into Gb/s at the routed clock
    of p4_pipeline_64: the two must be the same build."""
    from fastpath.p4 import bench
    entry = tomllib.loads((Path(PL.__file__).parent / "syn.toml").read_text())["p4_pipeline_64"]
    assert entry["top"] == "fp_p4_pipeline" and entry["params"] == bench.mpls_hw(64).params()


def _lookup(rows: dict, key: int):
    """A fixed-priority TCAM: the action of the lowest valid row whose unmasked bits equal the key's."""
    for i in sorted(rows):
        _, v, m, a = rows[i]
        if (key ^ v) & m == 0:
            return a
    return None


@need_vectors
@pytest.mark.parametrize("table,seed", [("ipv4_lpm", 0), ("ipv4_lpm", 1), ("ipv4_lpm", 2), ("forward", 0)])
def test_single_updates_are_hitless_and_write_few_rows(table, seed):
    """The driver's TCAM updates (`pipeline_sim.tcam_update`) over 300 random single INSERTs,
    DELETEs and MODIFYs of simple_router's LPM and exact tables, the table between 0 and 32 rows:
    every state between two row writes answers every key as the table before or after the update,
    the rows end as the table's (every row in rank order, lookups as the match-ordered rows give),
    a DELETE or MODIFY writes one row, and an INSERT one row when a hole is in range (exact: always)."""
    import random

    from fastpath.p4.pipeline_sim import tcam_update
    r = random.Random(seed)
    cfg = router()
    store = TableStore(cfg)
    p = PL.plan(cfg, HW)
    st = next(s for s in p.stages if s.name == table)
    ts = store.tables[table]
    top = HW.key_width - HW.SLOT_BITS
    act = next(a.id for a in cfg.actions if a.name == ("set_nhop" if table == "ipv4_lpm" else "set_dmac"))
    params = lambda: [r.getrandbits(w) for _, w in cfg.action(act).params]   # noqa: E731
    lpm = table == "ipv4_lpm"
    nets = [(r.getrandbits(32), r.choice([8, 16, 16, 24, 24, 24, 32]) if lpm else 32) for _ in range(60)]
    keys = [(n ^ r.getrandbits(32 - ln)) << top for n, ln in nets] + [r.getrandbits(32) << top for _ in range(40)]
    rows: dict = {}
    handles: list[int] = []
    counts = {"insert": [], "delete": [], "modify": []}
    for step in range(300):
        before = dict(rows)
        k = r.random()
        if handles and (k < 0.35 or len(handles) >= HW.BLOCK_ENTRIES):
            kind = "delete"
            ts.delete(handles.pop(r.randrange(len(handles))))
        elif handles and k < 0.45:
            kind = "modify"
            ts.modify(r.choice(handles), act, params())
        else:
            kind = "insert"
            n, ln = r.choice(nets)
            try:
                handles.append(ts.add([["lpm", n, ln] if lpm else ["exact", n]], act, params(), None))
            except CommandError:    # the same key twice: the store refuses it
                continue
        want = p.tcam_rows_ranked(store, st)
        rows, seq = tcam_update(before, want, HW.rows)
        new_rows = {i: x for i, x in enumerate(want)}
        cur = dict(before)
        for i, x in seq:
            if x is None:
                del cur[i]
            else:
                cur[i] = x
            for key in keys:
                assert _lookup(cur, key) in (_lookup(before, key), _lookup(new_rows, key)), (step, kind, i, hex(key))
        assert cur == rows
        assert sorted(rows.values()) == sorted(want)
        ranks = [rows[i][0] for i in sorted(rows)]
        assert ranks == sorted(ranks)
        for key in keys:
            assert _lookup(rows, key) == _lookup(new_rows, key)
        counts[kind].append(len(seq))
    assert set(counts["delete"]) == {1} and set(counts["modify"]) <= {1}
    assert len(counts["insert"]) > 50 and min(counts["insert"]) == 1
    if not lpm:
        assert set(counts["insert"]) == {1}
