"""The P4 pipeline of seeds/004 (P4 smart NIC): the RTL pipeline (parser, match-action stages, deparser) and its loader, BMv2-JSON compiler, reference interpreter, table commands, STF runner, P4Runtime server.

`fastpath.p4.compiler` reads p4c's BMv2 JSON (`p4c-bm2-ss` output) and produces the pipeline's
configuration (header layouts, parser graph, tables with their key layout and TCAM/hash mapping,
actions as programs of primitive ops, control flow, deparser order, checksums), refusing with
`P4CompileError` what the hardware cannot do. `fastpath.p4.interp` runs a compiled program on
packets (the reference for the RTL blocks), `fastpath.p4.runtime`
holds the tables and parses `simple_switch_CLI` table commands, `fastpath.p4.stf` runs p4c STF
tests, `fastpath.p4.p4runtime` serves P4Runtime (gRPC) over the interpreter, and p4/cli.py adds
`fastpath p4 compile|stf|run|serve`. The RTL: `fp_p4_pipeline` (loaded by
`fastpath.p4.pipeline_load`, driven in simulation by `fastpath.p4.pipeline_sim`, the backend of
`stf`/`run` in `fastpath.p4.rtl_backend`) assembles the table-driven parser (`fp_p4_parser`,
`fastpath.p4.parser_load`), the match-action stages (`fp_p4_stage`: TCAM `fp_p4_tcam*`, hash
table `fp_p4_hash` with `fastpath.p4.hash_load`, action unit `fp_p4_action`) and the deparser
(both loaded by `fastpath.p4.action_load`). `fastpath bench p4` (p4/bench.py) measures it;
`fastpath.p4.bench_sw` the SR-MPLS push in software over veth. Datasheet: p4/README.md.
"""
