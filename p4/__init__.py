"""The P4 pipeline of seeds/004 (P4 smart NIC): BMv2-JSON compiler, reference interpreter, table commands, STF runner, P4Runtime server, RTL TCAM, parser, actions and deparser blocks.

`fastpath.p4.compiler` reads p4c's BMv2 JSON (`p4c-bm2-ss` output) and produces the pipeline's
configuration (header layouts, parser graph, tables with their key layout and TCAM/hash mapping,
actions as programs of primitive ops, control flow, deparser order, checksums), refusing with
`P4CompileError` what the hardware cannot do. `fastpath.p4.interp` runs a compiled program on
packets (the reference for the RTL blocks), `fastpath.p4.runtime`
holds the tables and parses `simple_switch_CLI` table commands, `fastpath.p4.stf` runs p4c STF
tests, `fastpath.p4.p4runtime` serves P4Runtime (gRPC) over the interpreter, and p4/cli.py adds
`fastpath p4 compile|stf|run|serve`. RTL blocks on their own (not yet one pipeline): the TCAM
(`fp_p4_tcam*`), the table-driven parser (`fp_p4_parser`, loaded by `fastpath.p4.parser_load`),
the action unit and deparser (loaded by `fastpath.p4.action_load`). `fastpath.p4.bench_sw`
measures the SR-MPLS push in software over veth. Datasheet: p4/README.md.
"""
