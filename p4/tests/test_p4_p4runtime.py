"""The P4Runtime server: p4runtime-shell sets the shared programs (simple_router, ternary) with
their P4Info, inserts, modifies, deletes and reads entries, and the packets sent afterwards (into
the data plane, and as PacketOut) come out exactly as the reference interpreter, loaded apart
with simple_switch_CLI commands, says; raw gRPC for the error codes, arbitration, the pipeline
actions, range/optional matches and controller packet metadata (a hand-made program), multicast
groups, the CLI verb and the update-latency measurement."""
from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time

import pytest

from fastpath.p4 import compiler, p4runtime as rt, samples as S, stf
from fastpath.p4.runtime import Runtime
from fastpath.paths import VECTORS

pb, p4info_pb2 = rt.pb, rt.p4info_pb2
import grpc  # noqa: E402
import p4runtime_sh.shell as sh  # noqa: E402  (after fastpath.p4.p4runtime: it imports the PyPI `p4` protos)
from google.protobuf import text_format  # noqa: E402

BMV2 = VECTORS / "bmv2"
need_vectors = pytest.mark.skipif(not (BMV2 / "simple_router.p4info.txt").exists() or
                                  not (BMV2 / "ternary.p4info.txt").exists(), reason=f"no shared P4Info in {BMV2}")
CPU = 255
FPC = pb.SetForwardingPipelineConfigRequest
INSERT, MODIFY, DELETE = pb.Update.INSERT, pb.Update.MODIFY, pb.Update.DELETE


@pytest.fixture
def server():
    s = rt.P4RuntimeServer(cpu_port=CPU)
    s.start("127.0.0.1:0")
    yield s
    s.stop()


@pytest.fixture
def shell(server):
    def setup(name: str, election_id=(0, 1)):
        sh.setup(device_id=1, grpc_addr=server.addr, election_id=election_id, verbose=False,
                 config=sh.FwdPipeConfig(str(BMV2 / f"{name}.p4info.txt"), str(BMV2 / f"{name}.json")))
        return sh
    yield setup
    if getattr(sh, "client", None) is not None:
        sh.teardown()


def reference(name: str, commands: str) -> stf.InterpreterBackend:
    """The reference interpreter with the same entries given as simple_switch_CLI commands."""
    b = stf.InterpreterBackend(compiler.compile_file(BMV2 / f"{name}.json"))
    Runtime(b.tables).run(commands)
    return b


def packet_out(payload: bytes):
    msg = pb.StreamMessageRequest()
    msg.packet.payload = payload
    sh.client.stream_out_q.put(msg)


def packet_in(timeout=2.0):
    m = sh.client.get_stream_packet("packet", timeout=timeout)
    return None if m is None else m.packet


def codes(err: grpc.RpcError) -> list[str]:
    assert err.code() == grpc.StatusCode.UNKNOWN, (err.code(), err.details())
    return [c for c, _ in rt.batch_errors(err)]


def p4info(name: str):
    return rt.load_p4info(BMV2 / f"{name}.p4info.txt")


def ids(info):
    return ({t.preamble.name: t for t in info.tables}, {a.preamble.name: a for a in info.actions})


def entry(info, table: str, action: str | None = None, params=(), match=(), priority=0, default=False):
    tables, actions = ids(info)
    t = tables[table]
    te = pb.TableEntry(table_id=t.preamble.id, priority=priority, is_default_action=default)
    fields = {f.name: f.id for f in t.match_fields}
    for fname, kind, *vals in match:
        fm = te.match.add(field_id=fields.get(fname, fname) if isinstance(fname, str) else fname)
        if kind == "exact":
            fm.exact.value = vals[0]
        elif kind == "lpm":
            fm.lpm.value, fm.lpm.prefix_len = vals
        elif kind == "ternary":
            fm.ternary.value, fm.ternary.mask = vals
        elif kind == "range":
            fm.range.low, fm.range.high = vals
        elif kind == "optional":
            fm.optional.value = vals[0]
    if action is not None:
        a = actions[action]
        te.action.action.action_id = a.preamble.id
        for p, v in zip(a.params, params):
            te.action.action.params.add(param_id=p.id, value=v)
    return te


def ip(a: str) -> bytes:
    return bytes(int(x) for x in a.split("."))


# ---------------------------------------------------------------------------------------------
# p4runtime-shell on the shared programs


@need_vectors
def test_shell_simple_router_entries_read_back_and_packets_match_the_interpreter(server, shell):
    shell("simple_router")
    routes = [("10.0.0.0/8", "10.0.0.10", "1"), ("10.1.0.0/16", "10.1.0.20", "2"),
              ("10.1.2.0/24", "10.1.2.30", str(CPU))]
    for prefix, nhop, port in routes:
        te = sh.TableEntry("ipv4_lpm")(action="set_nhop")
        te.match["ipv4.dstAddr"] = prefix
        te.action["nhop_ipv4"] = nhop
        te.action["port"] = port
        te.insert()
    for nhop, mac in [("10.0.0.10", "00:00:00:00:00:0a"), ("10.1.0.20", "00:00:00:00:00:0b"),
                      ("10.1.2.30", "00:00:00:00:00:0c")]:
        te = sh.TableEntry("forward")(action="set_dmac")
        te.match["routing_metadata.nhop_ipv4"] = nhop
        te.action["dmac"] = mac
        te.insert()
    for port, mac in [("1", "00:aa:00:00:00:01"), ("2", "00:aa:00:00:00:02")]:
        te = sh.TableEntry("send_frame")(action="rewrite_mac")
        te.match["standard_metadata.egress_port"] = port
        te.action["smac"] = mac
        te.insert()
    te = sh.TableEntry("ipv4_lpm")(action="_drop")
    te.is_default = True
    te.modify()

    got = sorted((e.msg().match[0].lpm.value, e.msg().match[0].lpm.prefix_len,
                  [p.value for p in e.msg().action.action.params]) for e in sh.TableEntry("ipv4_lpm").read())
    assert got == sorted((ip(p.split("/")[0]).lstrip(b"\0") or b"\0", int(p.split("/")[1]),
                          [ip(n), int(port).to_bytes(2, "big").lstrip(b"\0")]) for p, n, port in routes)
    default = [e.msg() for e in _read_default("ipv4_lpm")]
    drop_id = ids(p4info("simple_router"))[1]["_drop"].preamble.id
    assert len(default) == 1 and default[0].is_default_action and default[0].action.action.action_id == drop_id
    assert len(list(sh.TableEntry("forward").read())) == 3

    ref = reference("simple_router", f"""
        table_add ipv4_lpm set_nhop 10.0.0.0/8 => 10.0.0.10 1
        table_add ipv4_lpm set_nhop 10.1.0.0/16 => 10.1.0.20 2
        table_add ipv4_lpm set_nhop 10.1.2.0/24 => 10.1.2.30 {CPU}
        table_add forward set_dmac 10.0.0.10 => 00:00:00:00:00:0a
        table_add forward set_dmac 10.1.0.20 => 00:00:00:00:00:0b
        table_add forward set_dmac 10.1.2.30 => 00:00:00:00:00:0c
        table_add send_frame rewrite_mac 1 => 00:aa:00:00:00:01
        table_add send_frame rewrite_mac 2 => 00:aa:00:00:00:02
        table_set_default ipv4_lpm _drop""")
    frames = [rt.ipv4_frame(d) for d in ("10.0.0.5", "10.1.9.9", "10.1.2.3", "192.168.1.1")]
    frames += [rt.ipv4_frame("10.1.0.1", ttl=1), bytes(12) + b"\x86\xdd" + bytes(40), b"\x01\x02"]
    for f in frames:  # into the data plane on port 3; what goes to the CPU port also comes as PacketIn
        want = ref.send(3, f)
        assert server.inject(3, f) == want
        for d in [d for p, d in want if p == CPU]:
            got = packet_in()
            assert got is not None and got.payload == d
    assert [p for p, _ in ref.send(3, frames[0])] == [1] and ref.send(3, frames[3]) == []
    server.egress.clear()
    for f in frames:  # as PacketOut: ingress on the CPU port; to the CPU port: PacketIn
        packet_out(f)
        want = ref.send(CPU, f)
        ins = [d for p, d in want if p == CPU]
        for d in ins:
            got = packet_in()
            assert got is not None and got.payload == d and not got.metadata
        deadline = time.monotonic() + 2
        while len(server.egress) < len(want) - len(ins) and time.monotonic() < deadline:
            time.sleep(0.005)
        assert list(server.egress) == [(p, d) for p, d in want if p != CPU]
        server.egress.clear()
    assert packet_in(timeout=0.05) is None

    # modify, then delete: the packets follow
    te = sh.TableEntry("ipv4_lpm")(action="set_nhop")
    te.match["ipv4.dstAddr"] = "10.1.0.0/16"
    te.action["nhop_ipv4"] = "10.0.0.10"
    te.action["port"] = "7"
    te.modify()
    assert [p for p, _ in server.inject(0, frames[1])] == [7]
    te = sh.TableEntry("ipv4_lpm")
    te.match["ipv4.dstAddr"] = "10.1.0.0/16"
    te.delete()
    assert [p for p, _ in server.inject(0, frames[1])] == [1]  # now the /8
    assert len(list(sh.TableEntry("ipv4_lpm").read())) == 2


def _read_default(table: str):
    te = sh.TableEntry(table)
    te.is_default = True
    return list(te.read())


@need_vectors
def test_shell_ternary_priorities_larger_wins_as_p4runtime_says(server, shell):
    shell("ternary")
    entries = [(10, "0x1100&&&0xff00", "ingress.send_1"), (20, "0x1122&&&0xffff", "ingress.send_2"),
               (5, "0x0033&&&0x00ff", "ingress.send_2"), (30, "0x0f00&&&0x0f00", "ingress.send_1")]
    for prio, key, action in entries:
        te = sh.TableEntry("ingress.ter")(action=action)
        te.match["h.hdr.f1"] = key
        te.priority = prio
        te.insert()
    read = {e.msg().priority: e.msg() for e in sh.TableEntry("ingress.ter").read()}
    assert sorted(read) == [5, 10, 20, 30]
    assert read[30].match[0].ternary.value == b"\x0f\x00" and read[30].match[0].ternary.mask == b"\x0f\x00"
    assert read[5].match[0].ternary.value == b"\x33" and read[5].match[0].ternary.mask == b"\xff"
    # the reference: simple_switch_CLI priorities, where the smaller wins (10000 - P4Runtime priority)
    ref = reference("ternary", "\n".join(f"table_add ingress.ter {a} {k} => {10000 - p}" for p, k, a in entries))
    for data in ("1122AABBCCDD", "11EE00", "2233", "11330102", "1F33", "444499", "11"):
        f = bytes.fromhex(data)
        assert server.inject(0, f) == ref.send(0, f)
    want = {"1122": 2, "11EE": 1, "2233": 2, "1133": 1, "1F33": 1, "4444": 0}  # ternary.stf's expectations
    for k, port in want.items():
        assert [p for p, _ in server.inject(0, bytes.fromhex(k))] == [port]
    te = sh.TableEntry("ingress.ter")
    te.match["h.hdr.f1"] = "0x0f00&&&0x0f00"
    te.priority = 30
    te.delete()
    assert [p for p, _ in server.inject(0, bytes.fromhex("1F33"))] == [2]  # now the priority-5 entry
    te = sh.TableEntry("ingress.ter")  # same key, another priority: another entry, not there
    te.match["h.hdr.f1"] = "0x1100&&&0xff00"
    te.priority = 11
    with pytest.raises(Exception, match="NOT_FOUND"):
        te.delete()


# ---------------------------------------------------------------------------------------------
# raw gRPC: error codes


@need_vectors
def test_write_and_read_error_codes(server):
    info, cfg = p4info("simple_router"), (BMV2 / "simple_router.json").read_bytes()
    c = rt.Client(server.addr)
    try:
        def lpm(a: str, n: int):
            return [("ipv4.dstAddr", "lpm", ip(a), n)]

        def ins(*a, **k):
            return rt.update(INSERT, entry(info, *a, **k))

        route = entry(info, "ipv4_lpm", "set_nhop", [ip("10.0.0.1"), b"\x01"], lpm("10.0.0.0", 8))
        with pytest.raises(grpc.RpcError) as e:
            c.write(rt.update(INSERT, route))
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION  # no pipeline yet
        with pytest.raises(grpc.RpcError) as e:
            c.read(pb.Entity(table_entry=pb.TableEntry()))
        assert e.value.code() == grpc.StatusCode.FAILED_PRECONDITION
        c.set_pipeline(info, cfg)
        c.write(rt.update(INSERT, route))
        nhop = "routing_metadata.nhop_ipv4"
        cases = {
            "ALREADY_EXISTS": rt.update(INSERT, route),
            "NOT_FOUND": rt.update(DELETE, entry(info, "ipv4_lpm", match=lpm("10.9.0.0", 16))),
            "NOT_FOUND ": rt.update(MODIFY, entry(info, "ipv4_lpm", "_drop", match=lpm("10.9.0.0", 16))),
            "INVALID_ARGUMENT wrong match type": ins(
                "ipv4_lpm", "_drop", match=[("ipv4.dstAddr", "ternary", ip("10.0.0.0"), ip("255.0.0.0"))]),
            "INVALID_ARGUMENT unknown table": rt.update(INSERT, pb.TableEntry(table_id=0x02ABCDEF)),
            "INVALID_ARGUMENT table 0": rt.update(INSERT, pb.TableEntry(table_id=0)),
            "INVALID_ARGUMENT unknown field": ins("ipv4_lpm", "_drop", match=[(9, "lpm", b"\x0a", 8)]),
            "INVALID_ARGUMENT exact left out": ins("forward", "_drop"),
            "INVALID_ARGUMENT bits past the prefix": ins("ipv4_lpm", "_drop", match=lpm("10.0.0.1", 8)),
            "INVALID_ARGUMENT prefix 0": ins("ipv4_lpm", "_drop", match=[("ipv4.dstAddr", "lpm", b"\0", 0)]),
            "OUT_OF_RANGE": ins("forward", "_drop", match=[(nhop, "exact", b"\x01" + bytes(4))]),
            "OUT_OF_RANGE param": ins("forward", "set_dmac", [b"\x01" + bytes(6)], [(nhop, "exact", b"\x05")]),
            "INVALID_ARGUMENT priority": ins("ipv4_lpm", "_drop", match=lpm("10.5.0.0", 16), priority=3),
            "PERMISSION_DENIED defaultonly": ins("ipv4_lpm", "NoAction", match=lpm("10.5.0.0", 16)),
            "INVALID_ARGUMENT action of another table": ins("ipv4_lpm", "set_dmac", [bytes(6)], lpm("10.5.0.0", 16)),
            "INVALID_ARGUMENT missing param": ins("ipv4_lpm", "set_nhop", [ip("1.1.1.1")], lpm("10.5.0.0", 16)),
            "INVALID_ARGUMENT no action": ins("ipv4_lpm", match=lpm("10.5.0.0", 16)),
            "INVALID_ARGUMENT insert default": ins("ipv4_lpm", "_drop", default=True),
            "INVALID_ARGUMENT is_const": rt.update(INSERT, pb.TableEntry(table_id=route.table_id, is_const=True)),
            "INVALID_ARGUMENT idle timeout": rt.update(INSERT, pb.TableEntry(table_id=route.table_id, match=route.match,
                                                                              action=route.action, idle_timeout_ns=9)),
            "UNIMPLEMENTED": rt.update(INSERT, pb.Entity(counter_entry=pb.CounterEntry(counter_id=1))),
            "INVALID_ARGUMENT unspecified": pb.Update(type=pb.Update.UNSPECIFIED, entity=pb.Entity(table_entry=route)),
        }
        for what, u in cases.items():
            with pytest.raises(grpc.RpcError) as e:
                c.write(u)
            got = rt.batch_errors(e.value)
            assert e.value.code() == grpc.StatusCode.UNKNOWN and len(got) == 1, what
            assert got[0][0] == what.split()[0], (what, got)
        # a batch: one p4.Error per update, OK for those done (and they are done)
        new = entry(info, "ipv4_lpm", "_drop", match=[("ipv4.dstAddr", "lpm", ip("10.7.0.0"), 16)])
        with pytest.raises(grpc.RpcError) as e:
            c.write(rt.update(INSERT, new), cases["ALREADY_EXISTS"], cases["NOT_FOUND"])
        assert codes(e.value) == ["OK", "ALREADY_EXISTS", "NOT_FOUND"]
        assert len(c.read(pb.Entity(table_entry=pb.TableEntry(table_id=route.table_id)))) == 2
        # ROLLBACK_ON_ERROR: all or nothing
        new2 = entry(info, "ipv4_lpm", "_drop", match=[("ipv4.dstAddr", "lpm", ip("10.8.0.0"), 16)])
        gone = entry(info, "ipv4_lpm", match=[("ipv4.dstAddr", "lpm", ip("10.7.0.0"), 16)])
        with pytest.raises(grpc.RpcError) as e:
            c.write(rt.update(INSERT, new2), rt.update(DELETE, gone), cases["ALREADY_EXISTS"],
                    atomicity=pb.WriteRequest.ROLLBACK_ON_ERROR)
        assert codes(e.value) == ["ABORTED", "ABORTED", "ALREADY_EXISTS"]
        left = c.read(pb.Entity(table_entry=pb.TableEntry(table_id=route.table_id)))
        assert sorted(e.table_entry.match[0].lpm.value for e in left) == [ip("10.0.0.0"), ip("10.7.0.0")]
        # table full: send_frame holds 256
        fill = [rt.update(INSERT, entry(info, "send_frame", "_drop", match=[("standard_metadata.egress_port", "exact",
                                                                             p.to_bytes(2, "big"))]))
                for p in range(257)]
        with pytest.raises(grpc.RpcError) as e:
            c.write(*fill)
        assert codes(e.value) == ["OK"] * 256 + ["RESOURCE_EXHAUSTED"]
        # reads: a bad request among good ones
        with pytest.raises(grpc.RpcError) as e:
            c.read(pb.Entity(table_entry=pb.TableEntry(table_id=route.table_id)),
                   pb.Entity(table_entry=pb.TableEntry(table_id=12345)), pb.Entity(register_entry=pb.RegisterEntry()))
        assert codes(e.value) == ["OK", "INVALID_ARGUMENT", "UNIMPLEMENTED"]
        assert len(c.read(pb.Entity(table_entry=pb.TableEntry()))) == 2 + 256
        assert c.read(pb.Entity(counter_entry=pb.CounterEntry())) == []
        # the default entry: MODIFY only; no action resets it to the program's
        c.write(rt.update(MODIFY, entry(info, "ipv4_lpm", "_drop", default=True)))
        d = c.read(pb.Entity(table_entry=pb.TableEntry(table_id=route.table_id, is_default_action=True)))
        assert [e.table_entry.action.action.action_id for e in d] == [ids(info)[1]["_drop"].preamble.id]
        c.write(rt.update(MODIFY, entry(info, "ipv4_lpm", default=True)))
        d = c.read(pb.Entity(table_entry=pb.TableEntry(table_id=route.table_id, is_default_action=True)))
        assert [e.table_entry.action.action.action_id for e in d] == [ids(info)[1]["NoAction"].preamble.id]
        with pytest.raises(grpc.RpcError) as e:
            c.write(rt.update(DELETE, entry(info, "ipv4_lpm", default=True)))
        assert codes(e.value) == ["INVALID_ARGUMENT"]
        # controller metadata comes back; MODIFY without an action keeps the action
        te = entry(info, "ipv4_lpm", match=[("ipv4.dstAddr", "lpm", ip("10.0.0.0"), 8)])
        te.controller_metadata, te.metadata = 77, b"cookie"
        c.write(rt.update(MODIFY, te))
        (back,) = c.read(pb.Entity(table_entry=pb.TableEntry(table_id=route.table_id, metadata=b"cookie")))
        assert back.table_entry.controller_metadata == 77 and back.table_entry.action == route.action
        # another device id
        with pytest.raises(grpc.RpcError) as e:
            c.rpc.Write(pb.WriteRequest(device_id=9, election_id=pb.Uint128(low=1)))
        assert e.value.code() == grpc.StatusCode.NOT_FOUND
    finally:
        c.close()


# ---------------------------------------------------------------------------------------------
# arbitration


def test_arbitration_primary_backup_and_permission(server):
    server.install(text_format.Parse(CPU_P4INFO, p4info_pb2.P4Info()), json.dumps(cpu_program()).encode())
    a = rt.Client(server.addr, election_id=(0, 5))
    b = rt.Client(server.addr, election_id=None, arbitrate=False)
    clients = [a, b]
    try:
        assert a.arbitrations.qsize() == 0
        # the first arbitration answered at connection: a is primary
        assert server.device.primary_of() == (0, 5)
        m = b.arbitrate((0, 3))
        assert m.status.code == rt.code_pb2.ALREADY_EXISTS and (m.election_id.high, m.election_id.low) == (0, 5)
        with pytest.raises(grpc.RpcError) as e:
            b.write()
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        with pytest.raises(grpc.RpcError) as e:
            b.set_pipeline(p4info_pb2.P4Info(), b"{}")
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        b.packet_out(b"\x00" * 14)  # a backup's PacketOut: dropped, StreamError PERMISSION_DENIED
        err = b.errors.get(timeout=2)
        assert err.canonical_code == grpc.StatusCode.PERMISSION_DENIED.value[0] and err.packet_out.packet_out.payload
        # same election id as a live controller: the stream ends with INVALID_ARGUMENT
        c = rt.Client(server.addr, election_id=(0, 5), arbitrate=False)
        clients.append(c)
        assert c.arbitrate() is None and c.stream_error.code() == grpc.StatusCode.INVALID_ARGUMENT
        # a device this server does not have: NOT_FOUND
        d = rt.Client(server.addr, device_id=7, election_id=(0, 9), arbitrate=False)
        clients.append(d)
        assert d.arbitrate() is None and d.stream_error.code() == grpc.StatusCode.NOT_FOUND
        # no election id: a backup forever
        u = rt.Client(server.addr, election_id=None, arbitrate=False)
        clients.append(u)
        assert u.arbitrate().status.code == rt.code_pb2.ALREADY_EXISTS
        # the primary leaves: the backups hear that there is no primary
        a.close()
        clients.remove(a)
        for x in (b, u):
            m = x.next_arbitration()
            assert m.status.code == rt.code_pb2.NOT_FOUND and m.election_id.low == 5
        # 3 < 5 (the highest ever seen): still a backup; 6: primary, and the others are told
        assert b.arbitrate((0, 3)).status.code == rt.code_pb2.NOT_FOUND
        assert b.arbitrate((0, 6)).status.code == rt.code_pb2.OK
        assert u.next_arbitration().status.code == rt.code_pb2.ALREADY_EXISTS
        b.write()  # an empty batch from the primary: OK
        # a higher one arrives: it is primary, b is told it is a backup, b's writes are refused
        e2 = rt.Client(server.addr, election_id=(1, 0), arbitrate=False)
        clients.append(e2)
        assert e2.arbitrate().status.code == rt.code_pb2.OK
        assert b.next_arbitration().status.code == rt.code_pb2.ALREADY_EXISTS
        with pytest.raises(grpc.RpcError) as e:
            b.write()
        assert e.value.code() == grpc.StatusCode.PERMISSION_DENIED
        # a live stream may not change its device id
        assert e2.arbitrate(device_id=2) is None and e2.stream_error.code() == grpc.StatusCode.FAILED_PRECONDITION
    finally:
        for x in clients:
            x.close()


# ---------------------------------------------------------------------------------------------
# pipeline config actions


@need_vectors
def test_pipeline_config_actions(server):
    router, tern = p4info("simple_router"), p4info("ternary")
    router_json, tern_json = (BMV2 / "simple_router.json").read_bytes(), (BMV2 / "ternary.json").read_bytes()
    c = rt.Client(server.addr)
    try:
        assert c.rpc.Capabilities(pb.CapabilitiesRequest()).p4runtime_api_version.startswith("1.")
        assert not c.get_pipeline().ListFields()  # nothing set: config unset
        # a refused program: INVALID_ARGUMENT with the compiler's one-line message
        bad = S.minimal()
        bad["register_arrays"] = [{"name": "MyIngress.reg", "id": 0, "size": 4, "bitwidth": 32}]
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(p4info_pb2.P4Info(), json.dumps(bad).encode())
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        assert 'register_arrays[0] "MyIngress.reg": registers are not in the hardware' in e.value.details()
        for cfg_info, cfg_json, why in [(tern, router_json, "ingress.ter"), (router, b"not json", "not JSON"),
                                        (router, b"", "empty")]:
            with pytest.raises(grpc.RpcError) as e:
                c.set_pipeline(cfg_info, cfg_json)
            assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and why in e.value.details()
        c.set_pipeline(router, router_json, action=FPC.VERIFY)  # verified, not kept
        assert not c.get_pipeline().ListFields()
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(None, None, action=FPC.COMMIT)
        assert e.value.code() == grpc.StatusCode.NOT_FOUND  # nothing saved
        c.set_pipeline(router, router_json, cookie=42)
        got = c.get_pipeline(pb.GetForwardingPipelineConfigRequest.ALL)
        assert got.p4info == router and got.p4_device_config == router_json and got.cookie.cookie == 42
        got = c.get_pipeline(pb.GetForwardingPipelineConfigRequest.COOKIE_ONLY)
        assert not got.p4_device_config and not got.HasField("p4info") and got.cookie.cookie == 42
        got = c.get_pipeline(pb.GetForwardingPipelineConfigRequest.DEVICE_CONFIG_AND_COOKIE)
        assert got.p4_device_config == router_json and not got.HasField("p4info")
        c.write(rt.update(INSERT, entry(router, "ipv4_lpm", "set_nhop", [ip("10.0.0.1"), b"\x05"],
                                        [("ipv4.dstAddr", "lpm", ip("10.0.0.0"), 8)])))
        frame = rt.ipv4_frame("10.2.3.4")
        assert [p for p, _ in server.inject(0, frame)] == [5]
        # VERIFY_AND_SAVE: reads and writes go to the saved program, packets still run the live one
        c.set_pipeline(tern, tern_json, action=FPC.VERIFY_AND_SAVE)
        with pytest.raises(grpc.RpcError) as e:
            c.read(pb.Entity(table_entry=pb.TableEntry(table_id=entry(router, "ipv4_lpm").table_id)))
        assert codes(e.value) == ["INVALID_ARGUMENT"]
        c.write(rt.update(INSERT, entry(tern, "ingress.ter", "ingress.send_2",
                                        match=[("h.hdr.f1", "ternary", b"\x12\x34", b"\xff\xff")], priority=1)))
        assert [p for p, _ in server.inject(0, frame)] == [5]
        c.set_pipeline(None, None, action=FPC.COMMIT)
        assert [p for p, _ in server.inject(0, bytes.fromhex("1234"))] == [2]
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(tern, tern_json, action=FPC.COMMIT)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
        # RECONCILE_AND_COMMIT keeps the state when it fits the new program, refuses when not
        c.set_pipeline(tern, tern_json, action=FPC.RECONCILE_AND_COMMIT)
        assert [p for p, _ in server.inject(0, bytes.fromhex("1234"))] == [2]
        assert len(c.read(pb.Entity(table_entry=pb.TableEntry()))) == 1
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(router, router_json, action=FPC.RECONCILE_AND_COMMIT)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT and "ingress.ter" in e.value.details()
        assert [p for p, _ in server.inject(0, bytes.fromhex("1234"))] == [2]  # unchanged
        c.set_pipeline(router, router_json)  # VERIFY_AND_COMMIT: state cleared
        assert c.read(pb.Entity(table_entry=pb.TableEntry())) == []
        with pytest.raises(grpc.RpcError) as e:
            c.set_pipeline(router, router_json, action=FPC.UNSPECIFIED)
        assert e.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    finally:
        c.close()


# ---------------------------------------------------------------------------------------------
# range and optional matches, controller packet metadata, multicast (a hand-made program)


CPU_P4INFO = """
tables { preamble { id: 33554433 name: "ingress.t" alias: "t" }
  match_fields { id: 1 name: "hdr.ethernet.etherType" bitwidth: 16 match_type: RANGE }
  match_fields { id: 2 name: "hdr.packet_out.egress_port" bitwidth: 9 match_type: OPTIONAL }
  action_refs { id: 16777217 } action_refs { id: 16777218 } action_refs { id: 16777219 }
  size: 4 }
actions { preamble { id: 16777217 name: "NoAction" alias: "NoAction" } }
actions { preamble { id: 16777218 name: "ingress.send" alias: "send" } params { id: 1 name: "port" bitwidth: 9 } }
actions { preamble { id: 16777219 name: "ingress.to_cpu" alias: "to_cpu" } }
controller_packet_metadata { preamble { id: 67146229 name: "packet_in" }
  metadata { id: 1 name: "ingress_port" bitwidth: 9 } metadata { id: 2 name: "_pad" bitwidth: 7 } }
controller_packet_metadata { preamble { id: 67121543 name: "packet_out" }
  metadata { id: 1 name: "egress_port" bitwidth: 9 } metadata { id: 2 name: "_pad" bitwidth: 7 } }
"""


def cpu_program() -> dict:
    """Ethernet; from the CPU port a packet_out header first (its egress_port is a key of the
    table); `to_cpu` puts a packet_in header with the ingress port in front."""
    p = S.minimal()
    S.add_header(p, "packet_out", "packet_out_t", [("egress_port", 9), ("_pad", 7)])
    S.add_header(p, "packet_in", "packet_in_t", [("ingress_port", 9), ("_pad", 7)])
    p["parsers"][0]["parse_states"] = [
        S.state("start", key=[S.field("standard_metadata", "ingress_port")],
                transitions=[(f"0x{CPU:04x}", None, "parse_out"), (None, None, "parse_eth")]),
        S.state("parse_out", ["packet_out"], transitions=[(None, None, "parse_eth")]),
        S.state("parse_eth", ["ethernet"])]
    p["deparsers"][0]["order"] = ["packet_in", "ethernet"]
    p["actions"] += [
        S.action(1, "ingress.send", [S.assign(S.field("standard_metadata", "egress_spec"), S.param(0))], [("port", 9)]),
        S.action(2, "ingress.to_cpu", [S.prim("add_header", {"type": "header", "value": "packet_in"}),
                                       S.assign(S.field("packet_in", "ingress_port"),
                                                S.field("standard_metadata", "ingress_port")),
                                       S.set_egress(CPU)])]
    ing = S.ingress(p)
    ing["tables"].append(S.table(0, "ingress.t", [("range", ["ethernet", "etherType"]),
                                                  ("ternary", ["packet_out", "egress_port"])],
                                 [(0, "NoAction"), (1, "ingress.send"), (2, "ingress.to_cpu")], size=4,
                                 default=(0, [])))
    ing["init_table"] = "ingress.t"
    return p


def test_range_optional_and_controller_packet_metadata(server):
    info = text_format.Parse(CPU_P4INFO, p4info_pb2.P4Info())
    prog = json.dumps(cpu_program()).encode()
    c = rt.Client(server.addr)
    try:
        c.set_pipeline(info, prog)
        t = "ingress.t"
        rows = [  # (P4Runtime priority, match, action, params)
            (10, [("hdr.ethernet.etherType", "range", b"\x08\x00", b"\x08\xff"),
                  ("hdr.packet_out.egress_port", "optional", b"\x07")], "ingress.send", [b"\x07"]),
            (5, [("hdr.ethernet.etherType", "range", b"\x08\x00", b"\x08\x00")], "ingress.send", [b"\x03"]),
            (3, [("hdr.ethernet.etherType", "range", b"\x90\x00", b"\x9f\xff")], "ingress.to_cpu", []),
            (1, [], "ingress.send", [b"\x09"]),  # every field left out: matches anything
        ]
        c.write(*[rt.update(INSERT, entry(info, t, a, prm, m, priority=p)) for p, m, a, prm in rows])
        with pytest.raises(grpc.RpcError) as e:  # size 4: full
            c.write(rt.update(INSERT, entry(info, t, "NoAction", match=rows[1][1], priority=2)))
        assert codes(e.value) == ["RESOURCE_EXHAUSTED"]
        for bad in ([("hdr.ethernet.etherType", "range", b"\x00", b"\xff\xff")],  # the full range: left out instead
                    [("hdr.ethernet.etherType", "range", b"\x09", b"\x08")]):  # low > high
            with pytest.raises(grpc.RpcError) as e:
                c.write(rt.update(INSERT, entry(info, t, "NoAction", match=bad, priority=2)))
            assert codes(e.value) == ["INVALID_ARGUMENT"]
        with pytest.raises(grpc.RpcError) as e:  # a ternary table needs a priority
            c.write(rt.update(INSERT, entry(info, t, "NoAction", match=rows[1][1])))
        assert codes(e.value) == ["INVALID_ARGUMENT"]
        read = c.read(pb.Entity(table_entry=pb.TableEntry(table_id=33554433)))
        back = {e.table_entry.priority: e.table_entry for e in read}
        assert sorted(back) == [1, 3, 5, 10] and not back[1].match
        assert back[10].match[1].optional.value == b"\x07" and back[10].match[0].range.high == b"\x08\xff"
        assert back[5].match[0].range.low == b"\x08\x00" and len(back[5].match) == 1

        cfg = compiler.compile_program(prog)
        ref = stf.InterpreterBackend(cfg)
        Runtime(ref.tables).run("table_add ingress.t ingress.send 0x0800->0x08ff 7&&&0x1ff => 7 1\n"
                                "table_add ingress.t ingress.send 0x0800->0x0800 0&&&0 => 3 2\n"
                                "table_add ingress.t ingress.to_cpu 0x9000->0x9fff 0&&&0 => 3\n"
                                "table_add ingress.t ingress.send 0->0xffff 0&&&0 => 9 4")
        eth = lambda t: bytes.fromhex("000000000001 000000000002") + t.to_bytes(2, "big") + b"data"  # noqa: E731
        for port, f in [(1, eth(0x0800)), (1, eth(0x0806)), (2, eth(0x1234))]:
            assert server.inject(port, f) == ref.send(port, f)
        assert [p for p, _ in server.inject(1, eth(0x0800))] == [3]  # not from the CPU: packet_out invalid, 0 != 7
        # PacketOut: the packet_out header (egress_port 7, pad) is put in front, parsed, not deparsed
        server.egress.clear()
        c.packet_out(eth(0x0800), {1: b"\x07", 2: b"\x00"})
        want = ref.send(CPU, (7 << 7).to_bytes(2, "big") + eth(0x0800))
        assert want == [(7, eth(0x0800))]
        _wait(lambda: len(server.egress) == 1)
        assert list(server.egress) == want
        # PacketIn: the packet_in header comes off the front into metadata
        server.inject(4, eth(0x9abc))
        got = c.packet_in()
        assert got.payload == eth(0x9abc)
        assert [(m.metadata_id, m.value) for m in got.metadata] == [(1, b"\x04"), (2, b"\x00")]
        # bad metadata: dropped, StreamError INVALID_ARGUMENT
        for md in ({1: b"\x07"}, {1: b"\x07", 2: b"\x00", 3: b"\x00"}, {1: b"\x07\xff", 2: b"\x00"}):
            c.packet_out(eth(0x0800), md)
            err = c.errors.get(timeout=2)
            assert err.canonical_code == grpc.StatusCode.INVALID_ARGUMENT.value[0], err
        assert server.device.stats["packet_out"] == 1

        # multicast groups
        grp = pb.Entity()
        mg = grp.packet_replication_engine_entry.multicast_group_entry
        mg.multicast_group_id = 1
        mg.replicas.add(egress_port=1, instance=0)
        mg.replicas.add(egress_port=2, instance=0)
        c.write(rt.update(INSERT, grp))
        with pytest.raises(grpc.RpcError) as e:
            c.write(rt.update(INSERT, grp))
        assert codes(e.value) == ["ALREADY_EXISTS"]
        assert server.device.pipeline.store.mcast_ports(1) == [(0, 1), (0, 2)]
        q = pb.Entity()
        q.packet_replication_engine_entry.multicast_group_entry.SetInParent()
        assert [e.packet_replication_engine_entry for e in c.read(q)] == [grp.packet_replication_engine_entry]
        mg.multicast_group_id = 2
        with pytest.raises(grpc.RpcError) as e:
            c.write(rt.update(MODIFY, grp))
        assert codes(e.value) == ["NOT_FOUND"]
        mg.multicast_group_id = 1
        c.write(rt.update(DELETE, grp))
        assert c.read(q) == [] and not server.device.pipeline.store.mc_nodes
    finally:
        c.close()


def _wait(cond, timeout=2.0):
    deadline = time.monotonic() + timeout
    while not cond() and time.monotonic() < deadline:
        time.sleep(0.005)
    assert cond()


# ---------------------------------------------------------------------------------------------
# the CLI verb and the measurement


def _serve_with_controller(tmp_path, name: str, backend: str, controller_body, ready_s: float = 10):
    """`fastpath p4 serve` on simple_router (in this process) with a controller thread that runs
    `controller_body(client, info)` and then stops the server with SIGTERM; returns (rc, stdout,
    stderr-less output, result of the body)."""
    from fastpath import cli
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    info = p4info("simple_router")
    result = {}

    def controller():
        try:
            deadline = time.monotonic() + ready_s   # the RTL's server listens once its simulation runs
            while True:
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    assert time.monotonic() < deadline, f"nothing listens on port {port} after {ready_s} s"
                    time.sleep(0.2)
            ch = grpc.insecure_channel(f"127.0.0.1:{port}")
            grpc.channel_ready_future(ch).result(timeout=10)
            ch.close()
            with rt.Client(f"127.0.0.1:{port}") as c:
                result["body"] = controller_body(c, info)
                time.sleep(0.2)
            result["ok"] = True
        finally:
            if signal.getsignal(signal.SIGTERM) is not before:  # serve's handler: it stops the server
                os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    t = threading.Thread(target=controller)
    t.start()
    rc = cli.main(["p4", "serve", str(BMV2 / "simple_router.json"), "--p4info", str(BMV2 / "simple_router.p4info.txt"),
                   "--grpc-addr", f"127.0.0.1:{port}", "--pcap-out", str(tmp_path / f"{name}.pcapng"),
                   "--json", str(tmp_path / f"{name}.json"), "--duration", "30", "--backend", backend])
    t.join()
    assert signal.getsignal(signal.SIGTERM) == before  # the handler is put back
    return rc, port, result


def _route_and_send(c, info):
    c.write(rt.update(INSERT, entry(info, "ipv4_lpm", "set_nhop", [ip("10.0.0.1"), b"\x04"],
                                    [("ipv4.dstAddr", "lpm", ip("10.0.0.0"), 8)])))
    c.packet_out(rt.ipv4_frame("10.1.1.1"))
    c.packet_out(rt.ipv4_frame("11.1.1.1"))


@need_vectors
def test_cli_serve(tmp_path, capsys):
    from fastpath import cli
    rc, port, result = _serve_with_controller(tmp_path, "s", "interp", _route_and_send)
    out, err = capsys.readouterr()
    assert rc == 0 and result.get("ok"), out + err
    assert f"P4Runtime server on 127.0.0.1:{port}: device 1, CPU port 255, program simple_router.json" in out
    from fastpath.frames import read_pcap
    frames = read_pcap(tmp_path / "s.pcapng")
    assert len(frames) == 2  # 11.1.1.1 misses: the default NoAction leaves egress_spec 0
    st = json.loads((tmp_path / "s.json").read_text())
    assert st["writes"] == 1 and st["packet_out"] == 2 and st["egress"] == 2
    rc = cli.main(["p4", "serve", str(BMV2 / "simple_router.json")])
    _, err = capsys.readouterr()
    assert rc == 2 and "--p4info FILE is needed" in err and err.count("\n") == 1
    rc = cli.main(["p4", "serve", str(BMV2 / "simple_router.json"), "--p4info", str(BMV2 / "ternary.p4info.txt"),
                   "--grpc-addr", "127.0.0.1:0", "--backend", "interp"])
    _, err = capsys.readouterr()
    assert rc == 2 and 'P4Info table "ingress.ter"' in err and err.count("\n") == 1


@need_vectors
def test_cli_serve_rtl(tmp_path, capsys):
    """`serve --backend rtl`: the server inside the pipeline's simulation. The controller's route
    goes into the simulated TCAM, its PacketOuts through the RTL, and what leaves the data-plane
    ports equals the interpreter's; the TCAM's rows limit the table (RESOURCE_EXHAUSTED, the
    status P4Runtime gives for a table that is full), below the P4Info's size."""
    from fastpath.p4.pipeline_sim import SIM_HW

    def body(c, info):
        _route_and_send(c, info)
        codes_seen = []
        for k in range(SIM_HW.rows):
            try:
                c.write(rt.update(INSERT, entry(info, "ipv4_lpm", "set_nhop", [ip("10.0.0.2"), b"\x02"],
                                                [("ipv4.dstAddr", "lpm", ip(f"20.{k}.0.0"), 16)])))
            except grpc.RpcError as e:
                codes_seen.append((k, codes(e)))
        return codes_seen

    rc, port, result = _serve_with_controller(tmp_path, "rtl", "rtl", body, ready_s=900)
    out, err = capsys.readouterr()
    assert rc == 0 and result.get("ok"), out + err
    assert out.splitlines()[0].startswith("backend: RTL")
    assert f"P4Runtime server on 127.0.0.1:{port}: device 1, CPU port 255, program simple_router.json" in out
    # one row is the 10/8 route: the table's rows run out at the last insert, and only there
    assert result["body"] == [(SIM_HW.rows - 1, ["RESOURCE_EXHAUSTED"])], result["body"]
    st = json.loads((tmp_path / "rtl.json").read_text())
    assert st["packet_out"] == 2 and st["egress"] == 2
    _serve_with_controller(tmp_path, "ref", "interp", _route_and_send)
    from fastpath.frames import read_pcap
    got, want = read_pcap(tmp_path / "rtl.pcapng"), read_pcap(tmp_path / "ref.pcapng")
    assert [f.data for f in got] == [f.data for f in want] and len(got) == 2


@need_vectors
def test_measure_update_latency():
    r = rt.measure_update_latency(n=40, warmup=5)
    assert r["misses"] == 0 and r["writes"] == 40
    for k in ("write_rtt_us", "server_apply_us", "packet_rtt_us", "write_to_live_us"):
        assert 0 < r[k]["min"] <= r[k]["median"] <= r[k]["p99"] <= r[k]["max"], (k, r[k])
    assert r["write_to_live_us"]["median"] > r["write_rtt_us"]["median"]
