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
