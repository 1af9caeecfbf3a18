"""Small hand-made BMv2 JSON programs and JSON builders, for tests of the compiler, the
interpreter and (later) the RTL pipeline.

`minimal()` is a v1model program in the format p4c writes (version 2.18): standard_metadata with
`parser_error` and `checksum_error`, an Ethernet header, a parser that extracts it, empty ingress
and egress, a deparser emitting it. Tests add headers, states, actions and tables with the helpers
below and compile the result.
"""
from __future__ import annotations

import copy

V1MODEL_ERRORS = [["NoError", 1], ["PacketTooShort", 2], ["NoMatch", 3], ["StackOutOfBounds", 4],
                  ["HeaderTooShort", 5], ["ParserTimeout", 6], ["ParserInvalidArgument", 7]]

STANDARD_METADATA = [["ingress_port", 9, False], ["egress_spec", 9, False], ["egress_port", 9, False],
                     ["instance_type", 32, False], ["packet_length", 32, False], ["mcast_grp", 16, False],
                     ["egress_rid", 16, False], ["checksum_error", 1, False], ["parser_error", 32, False],
                     ["_padding", 3, False]]


def field(h: str, f: str) -> dict:
    return {"type": "field", "value": [h, f]}


def const(v: int, width: int | None = None) -> dict:
    digits = max(1, ((width or max(v.bit_length(), 1)) + 3) // 4)
    return {"type": "hexstr", "value": f"0x{v:0{digits}x}" if v >= 0 else f"-0x{-v:x}"}


def param(i: int) -> dict:
    return {"type": "runtime_data", "value": i}


def expr(op: str, left, right, cond=None) -> dict:
    v = {"op": op, "left": left, "right": right}
    if cond is not None:
        v["cond"] = cond
    return {"type": "expression", "value": v}


def prim(op: str, *params) -> dict:
    return {"op": op, "parameters": list(params)}


def assign(dst, src) -> dict:
    return prim("assign", dst, src)


def action(aid: int, name: str, primitives: list, params: list[tuple[str, int]] = ()) -> dict:
    return {"name": name, "id": aid, "runtime_data": [{"name": n, "bitwidth": w} for n, w in params],
            "primitives": list(primitives)}


def table(tid: int, name: str, key: list[tuple[str, list, ]], actions: list[tuple[int, str]], size: int = 64,
          default: tuple[int, list[str]] | None = None, next_node=None, match_type: str | None = None) -> dict:
    """key: [(match_type, [header, field])...]; actions: [(id, name)...]."""
    kinds = {k for k, _ in key}
    mt = match_type or ("range" if "range" in kinds else "ternary" if "ternary" in kinds else
                        "lpm" if "lpm" in kinds else "exact")
    t = {"name": name, "id": tid, "key": [{"match_type": k, "name": ".".join(tg) if isinstance(tg, list) else tg,
                                          "target": tg, "mask": None} for k, tg in key],
         "match_type": mt, "type": "simple", "max_size": size, "with_counters": False, "support_timeout": False,
         "direct_meters": None, "action_ids": [a for a, _ in actions], "actions": [n for _, n in actions],
         "base_default_next": next_node, "next_tables": {n: next_node for _, n in actions}}
    if default is not None:
        t["default_entry"] = {"action_id": default[0], "action_const": False, "action_data": list(default[1]),
                              "action_entry_const": False}
    return t


def state(name: str, extracts: list[str] = (), key: list | None = None, transitions: list | None = None,
          ops: list | None = None) -> dict:
    """transitions: [(value hexstr or None for default, mask or None, next state or None)]."""
    pops = [{"op": "extract", "parameters": [{"type": "regular", "value": h}]} for h in extracts]
    pops += ops or []
    trans = []
    for v, m, n in transitions or [(None, None, None)]:
        if v is None:
            trans.append({"type": "default", "value": None, "mask": None, "next_state": n})
        else:
            trans.append({"type": "hexstr", "value": v, "mask": m, "next_state": n})
    return {"name": name, "id": 0, "parser_ops": pops, "transition_key": key or [], "transitions": trans}


def minimal() -> dict:
    """A valid v1model program: Ethernet in, Ethernet out, no tables."""
    return copy.deepcopy({
        "__meta__": {"version": [2, 18], "compiler": "fastpath.p4.samples"},
        "program": "minimal.p4",
        "header_types": [
            {"name": "scalars_0", "id": 0, "fields": []},
            {"name": "standard_metadata", "id": 1, "fields": STANDARD_METADATA},
            {"name": "ethernet_t", "id": 2, "fields": [["dstAddr", 48, False], ["srcAddr", 48, False],
                                                       ["etherType", 16, False]]},
        ],
        "headers": [
            {"name": "scalars", "id": 0, "header_type": "scalars_0", "metadata": True},
            {"name": "standard_metadata", "id": 1, "header_type": "standard_metadata", "metadata": True},
            {"name": "ethernet", "id": 2, "header_type": "ethernet_t", "metadata": False},
        ],
        "header_stacks": [], "header_union_types": [], "header_unions": [], "header_union_stacks": [],
        "field_lists": [], "errors": V1MODEL_ERRORS, "enums": [],
        "parsers": [{"name": "parser", "id": 0, "init_state": "start",
                     "parse_states": [state("start", ["ethernet"])]}],
        "parse_vsets": [],
        "deparsers": [{"name": "deparser", "id": 0, "order": ["ethernet"]}],
        "meter_arrays": [], "counter_arrays": [], "register_arrays": [], "calculations": [], "learn_lists": [],
        "actions": [action(0, "NoAction", [])],
        "pipelines": [{"name": "ingress", "id": 0, "init_table": None, "tables": [], "action_profiles": [],
                       "conditionals": []},
                      {"name": "egress", "id": 1, "init_table": None, "tables": [], "action_profiles": [],
                       "conditionals": []}],
        "checksums": [], "force_arith": [], "extern_instances": [], "field_aliases": [],
    })


def add_header(p: dict, inst: str, htype: str, fields: list[tuple[str, int]], metadata: bool = False) -> dict:
    if not any(t["name"] == htype for t in p["header_types"]):
        p["header_types"].append({"name": htype, "id": len(p["header_types"]),
                                  "fields": [[n, w, False] for n, w in fields]})
    p["headers"].append({"name": inst, "id": len(p["headers"]), "header_type": htype, "metadata": metadata})
    return p


def ingress(p: dict) -> dict:
    return p["pipelines"][0]


def set_egress(port: int) -> dict:
    return assign(field("standard_metadata", "egress_spec"), const(port, 9))


# ---- programs for the action unit and the deparser (p4/tb/test_p4_action.py, test_p4_deparser.py) ----
# Built like p4c's output: metadata padded to whole bytes (so every packet header starts on a byte
# of the PHV), Ethernet / VLAN / MPLS / IPv4 with p4c's field names.

IPV4_FIELDS = [("version", 4), ("ihl", 4), ("diffserv", 8), ("totalLen", 16), ("identification", 16),
               ("flags", 3), ("fragOffset", 13), ("ttl", 8), ("protocol", 8), ("hdrChecksum", 16),
               ("srcAddr", 32), ("dstAddr", 32)]
MPLS_FIELDS = [("label", 20), ("tc", 3), ("bos", 1), ("ttl", 8)]
VLAN_FIELDS = [("pcp", 3), ("cfi", 1), ("vid", 12), ("etherType", 16)]


def _byte_aligned(p: dict) -> dict:
    """standard_metadata padded to a whole number of bytes, as p4c pads it."""
    for t in p["header_types"]:
        if t["name"] == "standard_metadata":
            bits = sum(f[1] for f in t["fields"] if f[0] != "_padding")
            for f in t["fields"]:
                if f[0] == "_padding":
                    f[1] = (-bits) % 8 or 8
    return p


def _hdr(name: str) -> dict:
    return {"type": "header", "value": name}


def _stack(name: str) -> dict:
    return {"type": "header_stack", "value": name}


def _ipv4_checksum(p: dict, cond: bool = False) -> None:
    """The IPv4 header checksum, verified and updated (v1model's verify/update_checksum)."""
    p["calculations"] = [{"name": "calc", "id": 0, "algo": "csum16",
                          "input": [field("ipv4", f) for f, _ in IPV4_FIELDS if f != "hdrChecksum"]}]
    ck = {"name": "cksum", "id": 0, "target": ["ipv4", "hdrChecksum"], "type": "generic", "calculation": "calc",
          "verify": True, "update": True, "if_cond": None}
    if cond:
        ck["if_cond"] = {"type": "expression", "value": {"op": "d2b", "left": None,
                                                         "right": field("ipv4", "$valid$")}}
    p["checksums"] = [ck]


def _send_table(p: dict, actions: list[tuple[int, str]], key=("exact", ["ethernet", "etherType"])) -> None:
    S_ing = ingress(p)
    S_ing["tables"].append(table(0, "tbl", [key], actions, size=64))
    S_ing["init_table"] = "tbl"


def mpls_push() -> dict:
    """SR-MPLS: Ethernet, a stack of 3 MPLS labels, IPv4 (with its checksum). Actions push 1, 2
    or 3 labels (label from a parameter, tc 0, bottom-of-stack on the last pushed, ttl 64), set
    the Ethertype to 0x8847 and the egress port; mpls_pop1 pops one label; ipv4_fwd decrements
    the TTL."""
    p = _byte_aligned(minimal())
    for i in range(3):
        add_header(p, f"mpls[{i}]", "mpls_t", MPLS_FIELDS)
    add_header(p, "ipv4", "ipv4_t", IPV4_FIELDS)
    p["header_stacks"] = [{"name": "mpls", "id": 0, "size": 3, "header_type": "mpls_t", "header_ids": [3, 4, 5]}]
    p["parsers"][0]["parse_states"] = [
        state("start", ["ethernet"], key=[field("ethernet", "etherType")],
              transitions=[("0x8847", None, "mpls"), ("0x0800", None, "ipv4"), (None, None, None)]),
        {"name": "mpls", "id": 1, "parser_ops": [{"op": "extract", "parameters": [{"type": "stack", "value": "mpls"}]}],
         "transition_key": [{"type": "stack_field", "value": ["mpls", "bos"]}],
         "transitions": [{"type": "hexstr", "value": "0x00", "mask": None, "next_state": "mpls"},
                         {"type": "default", "value": None, "mask": None, "next_state": "ipv4"}]},
        state("ipv4", ["ipv4"]),
    ]
    p["deparsers"][0]["order"] = ["ethernet", "mpls[0]", "mpls[1]", "mpls[2]", "ipv4"]
    _ipv4_checksum(p)
    acts = []
    for k in (1, 2, 3):
        prims = [prim("push", _stack("mpls"), const(k))]
        for i in range(k):
            m = f"mpls[{i}]"
            prims += [prim("add_header", _hdr(m)), assign(field(m, "label"), param(i)),
                      assign(field(m, "tc"), const(0, 3)), assign(field(m, "bos"), const(int(i == k - 1), 1)),
                      assign(field(m, "ttl"), const(64, 8))]
        prims += [assign(field("ethernet", "etherType"), const(0x8847, 16)), assign(
            field("standard_metadata", "egress_spec"), param(k))]
        p["actions"].append(action(k, f"mpls_push{k}", prims, [(f"label{i}", 20) for i in range(k)] + [("port", 9)]))
        acts.append((k, f"mpls_push{k}"))
    p["actions"].append(action(4, "mpls_pop1", [prim("pop", _stack("mpls"), const(1)), set_egress(1)]))
    p["actions"].append(action(5, "ipv4_fwd", [
        assign(field("ipv4", "ttl"), expr("&", expr("+", field("ipv4", "ttl"), const(0xff, 8)), const(0xff, 8))),
        assign(field("standard_metadata", "egress_spec"), param(0))], [("port", 9)]))
    acts += [(4, "mpls_pop1"), (5, "ipv4_fwd")]
    _send_table(p, acts)
    return p


def vlan_push_pop() -> dict:
    """Ethernet, a stack of 2 VLAN tags, IPv4. vlan_push(vid, pcp) pushes a tag (the old
    Ethertype moves into it, Ethernet's becomes 0x8100); vlan_pop removes the outer tag;
    vlan_retag rewrites the outer VID."""
    p = _byte_aligned(minimal())
    for i in range(2):
        add_header(p, f"vlan[{i}]", "vlan_t", VLAN_FIELDS)
    add_header(p, "ipv4", "ipv4_t", IPV4_FIELDS)
    p["header_stacks"] = [{"name": "vlan", "id": 0, "size": 2, "header_type": "vlan_t", "header_ids": [3, 4]}]
    p["parsers"][0]["parse_states"] = [
        state("start", ["ethernet"], key=[field("ethernet", "etherType")],
              transitions=[("0x8100", None, "vlan"), ("0x0800", None, "ipv4"), (None, None, None)]),
        {"name": "vlan", "id": 1, "parser_ops": [{"op": "extract", "parameters": [{"type": "stack", "value": "vlan"}]}],
         "transition_key": [{"type": "stack_field", "value": ["vlan", "etherType"]}],
         "transitions": [{"type": "hexstr", "value": "0x8100", "mask": None, "next_state": "vlan"},
                         {"type": "hexstr", "value": "0x0800", "mask": None, "next_state": "ipv4"},
                         {"type": "default", "value": None, "mask": None, "next_state": None}]},
        state("ipv4", ["ipv4"]),
    ]
    p["deparsers"][0]["order"] = ["ethernet", "vlan[0]", "vlan[1]", "ipv4"]
    p["actions"] += [
        action(1, "vlan_push", [prim("push", _stack("vlan"), const(1)), prim("add_header", _hdr("vlan[0]")),
                                assign(field("vlan[0]", "pcp"), param(1)), assign(field("vlan[0]", "cfi"), const(0, 1)),
                                assign(field("vlan[0]", "vid"), param(0)),
                                assign(field("vlan[0]", "etherType"), field("ethernet", "etherType")),
                                assign(field("ethernet", "etherType"), const(0x8100, 16)), set_egress(2)],
               [("vid", 12), ("pcp", 3)]),
        action(2, "vlan_pop", [assign(field("ethernet", "etherType"), field("vlan[0]", "etherType")),
                               prim("pop", _stack("vlan"), const(1)), set_egress(3)]),
        action(3, "vlan_retag", [assign(field("vlan[0]", "vid"), param(0)), set_egress(4)], [("vid", 12)]),
    ]
    _send_table(p, [(1, "vlan_push"), (2, "vlan_pop"), (3, "vlan_retag")])
    return p


def ipv4_ttl() -> dict:
    """Ethernet, IPv4 with the header checksum verified and updated (if valid); ipv4_forward
    sets the MACs from parameters, decrements the TTL and sets the port; mark drops."""
    p = _byte_aligned(minimal())
    add_header(p, "ipv4", "ipv4_t", IPV4_FIELDS)
    p["parsers"][0]["parse_states"] = [
        state("start", ["ethernet"], key=[field("ethernet", "etherType")],
              transitions=[("0x0800", None, "ipv4"), (None, None, None)]),
        state("ipv4", ["ipv4"]),
    ]
    p["deparsers"][0]["order"] = ["ethernet", "ipv4"]
    _ipv4_checksum(p, cond=True)
    p["actions"] += [
        action(1, "ipv4_forward", [
            assign(field("ethernet", "srcAddr"), field("ethernet", "dstAddr")),
            assign(field("ethernet", "dstAddr"), param(0)),
            assign(field("ipv4", "ttl"), expr("&", expr("+", field("ipv4", "ttl"), const(0xff, 8)), const(0xff, 8))),
            assign(field("standard_metadata", "egress_spec"), param(1))], [("dmac", 48), ("port", 9)]),
        action(2, "mark", [prim("mark_to_drop", _hdr("standard_metadata"))]),
    ]
    _send_table(p, [(1, "ipv4_forward"), (2, "mark")], key=("lpm", ["ipv4", "dstAddr"]))
    return p


def alu_mix() -> dict:
    """Actions exercising every operation of the action unit: expressions with temporaries,
    comparisons, mux, shifts by constants and parameters, logic, set from a validity bit,
    header copy, a 128-bit field moved whole, exit and digest (each action fits 8 op slots); two
    checksums for the deparser (one over an odd number of bytes, one at an odd PHV byte, with a
    constant input and a condition)."""
    p = _byte_aligned(minimal())
    add_header(p, "h", "h_t", [("a", 32), ("b", 16), ("c", 8), ("d", 4), ("e", 12), ("w", 128), ("x", 64)])
    add_header(p, "k", "k_t", [("u", 16), ("v", 32)])
    add_header(p, "k2", "k_t", [])
    add_header(p, "meta", "meta_t", [("m0", 32), ("m1", 7), ("flag", 1)], metadata=True)
    p["parsers"][0]["parse_states"] = [state("start", ["ethernet", "h", "k"])]
    p["deparsers"][0]["order"] = ["ethernet", "h", "k", "k2"]
    f = field
    p["learn_lists"] = [{"id": 1, "name": "learn", "elements": [f("h", "a")]}]
    # two checksums: over h's fields (an odd number of bytes: padded), and over k, which sits at
    # an odd byte (summed byte-swapped), the latter only while k2 is valid
    p["calculations"] = [
        {"name": "c_h", "id": 0, "algo": "csum16", "input": [f("h", "a"), f("h", "c"), f("h", "d"), f("h", "e")]},
        {"name": "c_k", "id": 1, "algo": "csum16", "input": [f("k", "v"), {"type": "hexstr", "value": "0x4321",
                                                                          "bitwidth": 16}]}]
    p["checksums"] = [
        {"name": "ck_h", "id": 0, "target": ["h", "b"], "type": "generic", "calculation": "c_h", "verify": False,
         "update": True, "if_cond": None},
        {"name": "ck_k", "id": 1, "target": ["k", "u"], "type": "generic", "calculation": "c_k", "verify": True,
         "update": True, "if_cond": {"type": "expression", "value": {"op": "d2b", "left": None,
                                                                      "right": field("k2", "$valid$")}}}]
    p["actions"] += [
        action(1, "arith", [
            assign(f("h", "a"), expr("+", f("h", "a"), expr("-", f("h", "b"), param(0)))),
            assign(f("meta", "m0"), expr("<<", f("h", "b"), const(3, 8))),
            assign(f("h", "x"), expr("~", None, f("h", "x")))], [("p0", 16)]),
        action(2, "logic", [
            assign(f("h", "c"), expr("&", expr("^", f("h", "c"), const(0x5a, 8)), expr("|", f("h", "d"), param(0)))),
            assign(f("h", "e"), expr(">>", f("h", "a"), const(20, 8)))], [("p1", 4)]),
        action(3, "compare", [
            assign(f("meta", "flag"), expr("d2b", None, expr("<", f("h", "b"), param(0))))], [("p0", 16)]),
        action(4, "select", [
            assign(f("meta", "m1"), expr("?", f("h", "e"), const(5, 7), expr("==", f("h", "d"), const(3, 4))))]),
        action(5, "boolean", [
            assign(f("h", "d"), expr("b2d", None, expr("and", expr("!=", f("h", "c"), const(0, 8)),
                                                           expr(">", f("h", "b"), const(9, 16)))))]),
        action(6, "wide", [
            assign(f("h", "w"), param(0)),
            prim("assign_header", _hdr("k2"), _hdr("k")),
            assign(f("h", "b"), f("meta", "flag")),
            assign(f("meta", "m0"), expr("valid", None, _hdr("k2"))),
            assign(f("h", "x"), f("h", "w"))], [("w", 128)]),
        action(7, "shifts", [
            assign(f("h", "x"), expr("<<", f("h", "x"), param(0))),
            assign(f("h", "a"), expr(">>", f("h", "a"), param(0))),
            assign(f("h", "b"), expr("|", f("h", "b"), expr("<<", const(1, 16), f("h", "d")))),
            prim("generate_digest", const(0, 8), const(1, 8)),
            prim("remove_header", _hdr("k2")),
            prim("exit"),
            assign(f("h", "a"), const(0, 32))], [("sh", 8)]),
        action(8, "many_sets", [
            assign(f("ethernet", "dstAddr"), param(0)), assign(f("ethernet", "srcAddr"), param(1)),
            assign(f("h", "c"), const(7, 8)), assign(f("h", "d"), const(1, 4)), assign(f("h", "e"), const(0x123, 12)),
            prim("add_header", _hdr("k2")), set_egress(9)], [("dst", 48), ("src", 48)]),
        action(9, "compare_mux", [
            assign(f("h", "c"), expr("?", param(0), f("h", "c"), expr(">=", f("h", "a"), f("meta", "m0"))))],
               [("p1", 8)]),
        action(10, "negate", [
            assign(f("meta", "flag"), expr("d2b", None, expr("not", None, expr(">", f("h", "b"), const(9, 16)))))]),
    ]
    _send_table(p, [(i + 1, a["name"]) for i, a in enumerate(p["actions"][1:])])
    return p
