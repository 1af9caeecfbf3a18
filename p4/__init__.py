"""The P4 pipeline of seeds/004 (P4 smart NIC): BMv2-JSON compiler, reference interpreter, table commands, STF runner, TCAM block.

`fastpath.p4.compiler` reads p4c's BMv2 JSON (`p4c-bm2-ss` output) and produces the pipeline's
configuration (header layouts, parser graph, tables with their key layout and TCAM/hash mapping,
actions as programs of primitive ops, control flow, deparser order, checksums), refusing with
`P4CompileError` what the hardware cannot do. `fastpath.p4.interp` runs a compiled program on
packets (the reference for the RTL pipeline, which is not built yet), `fastpath.p4.runtime`
holds the tables and parses `simple_switch_CLI` table commands, `fastpath.p4.stf` runs p4c STF
tests, and p4/cli.py adds `fastpath p4 compile|stf|run`. Datasheet: p4/README.md.
"""
