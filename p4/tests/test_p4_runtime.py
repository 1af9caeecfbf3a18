"""Run-time table commands (simple_switch_CLI syntax) and the table store's matching rules."""
from __future__ import annotations

import random

import pytest

from fastpath.p4 import compiler, samples as S
from fastpath.p4.runtime import CommandError, Runtime, TableStore, parse_value, range_to_prefixes


def _program():
    """Tables of every kind over Ethernet + a metadata header."""
    p = S.minimal()
    S.add_header(p, "meta", "meta_t", [("port", 9), ("v", 16)], metadata=True)
    p["actions"] += [S.action(1, "fwd", [S.set_egress(0)], [("port", 9)]),
                     S.action(2, "mark", [S.assign(S.field("meta", "v"), S.param(0))], [("v", 16)]),
                     S.action(3, "nop", [])]
    acts = [(1, "fwd"), (2, "mark"), (3, "nop")]
    ing = S.ingress(p)
    ing["tables"] += [
        S.table(0, "ex", [("exact", ["ethernet", "dstAddr"]), ("exact", ["meta", "port"])], acts, size=4),
        S.table(1, "lpm", [("lpm", ["ethernet", "srcAddr"]), ("exact", ["ethernet", "etherType"])], acts),
        S.table(2, "tern", [("ternary", ["ethernet", "etherType"])], acts, default=(3, [])),
        S.table(3, "rng", [("range", ["meta", "v"])], acts),
        S.table(4, "pipe.long.name", [("exact", ["meta", "port"])], acts),
    ]
    return compiler.compile_program(p, name="rt")


@pytest.fixture
def rt():
    return Runtime(TableStore(_program()))


def test_values():
    assert parse_value("0x0a000001", 32) == 0x0A000001
    assert parse_value("10.0.0.1", 32) == 0x0A000001
    assert parse_value("00:11:22:33:44:55", 48) == 0x001122334455
    assert parse_value("510", 9) == 510
    assert parse_value("010", 9) == 10
    for bad, w in (("512", 9), ("0x1ff", 8), ("zz", 8), ("1.2.3", 32), ("-1", 8)):
        with pytest.raises(CommandError):
            parse_value(bad, w)


def test_good_commands(rt):
    out = rt.run("""
        # exact: MAC and decimal; lpm: v/len; ternary: v&&&m + priority; range: lo->hi + priority
        table_add ex fwd 00:00:00:00:00:02 7 => 3
        table_add ex mark 0x000000000003 0x7 => 0xbeef
        table_add lpm nop 00:11:00:00:00:00/16 0x0800 =>
        table_add lpm fwd 00:11:22:00:00:00/24 0x0800 => 2
        table_add tern fwd 0x0800&&&0xff00 => 1 10
        table_add tern fwd 0x0806&&&0xffff => 2 5
        table_add rng mark 100->200 => 7 1
        table_set_default ex fwd 9
        table_set_default lpm nop
        table_add pipe.long.name nop 4 =>
    """)
    assert out[0] == "Entry has been added with handle 0" and out[1].endswith("handle 1")
    s = rt.store
    e = s["ex"].lookup([2, 7])
    assert e.data == [3] and s["ex"].lookup([2, 8]) is None
    assert s["lpm"].lookup([0x001122AABBCC, 0x0800]).handle == 1  # /24 beats /16
    assert s["lpm"].lookup([0x0011FF000000, 0x0800]).handle == 0
    assert s["lpm"].lookup([0x0011FF000000, 0x0806]) is None
    assert s["tern"].lookup([0x0806]).data == [2]  # priority 5 beats 10 (smaller wins, as in bmv2)
    assert s["tern"].lookup([0x08AA]).data == [1]
    assert s["rng"].lookup([150]).data == [7] and s["rng"].lookup([201]) is None
    assert s["ex"].default == (1, [9])
    dump = rt.command("table_dump tern")
    assert "0x800&&&0xff00" in dump and "priority 10" in dump
    assert rt.command("table_num_entries ex") == "2"
    rt.run("table_delete ex 0\ntable_modify ex fwd 1 => 4")
    assert s["ex"].lookup([2, 7]) is None and s["ex"].lookup([3, 7]).data == [4]
    rt.command("table_clear lpm")
    assert not s["lpm"].entries
    assert s.find("name").table.name == "pipe.long.name"


@pytest.mark.parametrize("line,words", [
    ("table_add nosuch fwd 1 => 2", ["line 3", "no table 'nosuch'", "tables: ex"]),
    ("table_add ex jump 1 2 => 3", ["no action 'jump'", "fwd, mark, nop"]),
    ("table_add ex fwd 1 => 2", ["2 key fields", "got 1"]),
    ("table_add ex fwd 1 2 => 2 3", ["'fwd' takes 1 parameters", "got 2"]),
    ("table_add ex fwd 1 2 => 512", ["parameter port", "does not fit in 9 bits"]),
    ("table_add ex fwd 1 0x200 => 1", ["key field meta.port", "does not fit in 9 bits"]),
    ("table_add ex fwd 1/4 2 => 1", ["is exact", "plain value"]),
    ("table_add lpm fwd 00:11:00:00:00:00 0x800 => 1", ["is lpm", "VALUE/PREFIX_LENGTH"]),
    ("table_add lpm fwd 0/49 0x800 => 1", ["prefix length '49'"]),
    ("table_add tern fwd 0x800 => 1 1", ["is ternary", "VALUE&&&MASK"]),
    ("table_add tern fwd 0x800&&&0xff00 => 1", ["give a priority"]),
    ("table_add tern fwd 0x800&&&0xff00 => 1 high", ["priority 'high'"]),
    ("table_add rng fwd 5-10 => 1 1", ["is range", "LOW->HIGH"]),
    ("table_add rng fwd 10->5 => 1 1", ["empty range"]),
    ("table_delete ex 99", ["no entry with handle 99"]),
    ("table_delete ex", ["usage: table_delete TABLE HANDLE"]),
    ("table_set_default ex mark", ["'mark' takes 1 parameters"]),
    ("table_frob ex", ["unknown command 'table_frob'"]),
    ("params 1 2", ["unknown command 'params'"]),
    ("counter_read c 0", ["no counters"]),
    ("table_add ex fwd 1 2 => zz", ["parameter port 'zz' is not a number"]),
    ("mc_node_associate 1 0", ["no multicast group 1"]),
])
def test_bad_commands_name_the_line_and_the_problem(rt, line, words):
    with pytest.raises(CommandError) as e:
        rt.run(f"# first\n\n{line}\n")
    msg = str(e.value)
    assert msg.startswith("line 3: ") and "\n" not in msg, msg
    for w in words:
        assert w in msg, msg


def test_duplicates_full_tables_and_const_entries(rt):
    rt.run("table_add ex fwd 1 1 => 1")
    with pytest.raises(CommandError, match="duplicate entry"):
        rt.command("table_add ex mark 1 1 => 2", 5)
    rt.run("table_add ex fwd 2 1 => 1\ntable_add ex fwd 3 1 => 1\ntable_add ex fwd 4 1 => 1")
    with pytest.raises(CommandError, match="full"):
        rt.command("table_add ex fwd 5 1 => 1")
    # const entries make the table immutable; a const default action cannot change
    p = S.minimal()
    p["actions"] += [S.action(1, "fwd", [S.set_egress(1)], [])]
    t = S.table(0, "c", [("exact", ["ethernet", "etherType"])], [(0, "NoAction"), (1, "fwd")], default=(1, []))
    t["default_entry"]["action_const"] = True
    t["entries"] = [{"match_key": [{"match_type": "exact", "key": "0x0800"}],
                     "action_entry": {"action_id": 1, "action_data": []}, "priority": 1}]
    S.ingress(p)["tables"].append(t)
    r = Runtime(TableStore(compiler.compile_program(p)))
    assert r.store["c"].lookup([0x0800]).action == 1
    with pytest.raises(CommandError, match="const entries"):
        r.command("table_add c fwd 0x0806 =>")
    with pytest.raises(CommandError, match="const default"):
        r.command("table_set_default c NoAction")


def test_ternary_ties_go_to_the_first_added(rt):
    rt.run("table_add tern fwd 0x0800&&&0xf000 => 1 3\ntable_add tern fwd 0x0800&&&0xff00 => 2 3")
    assert rt.store["tern"].lookup([0x0800]).data == [1]


def test_multicast_groups(rt):
    rt.run("mc_mgrp_create 1\nmc_node_create 0 1 2 3\nmc_node_create 5 7\nmc_node_associate 1 0\n"
           "mc_node_associate 1 1")
    assert rt.store.mcast_ports(1) == [(0, 1), (0, 2), (0, 3), (5, 7)]


def test_range_to_prefixes_covers_exactly():
    rng = random.Random(1)
    for _ in range(200):
        w = rng.choice([4, 8, 16])
        lo = rng.randrange(1 << w)
        hi = rng.randrange(lo, 1 << w)
        rows = range_to_prefixes(lo, hi, w)
        assert len(rows) <= 2 * w - 2 or w <= 2 or len(rows) <= 2 * w
        covered = {v for v in range(1 << w) if any(v & m == val for val, m in rows)} if w <= 8 else None
        if covered is not None:
            assert covered == set(range(lo, hi + 1))
        for v in (lo, hi, (lo + hi) // 2):
            assert sum(v & m == val for val, m in rows) == 1
