"""Packet-train tester (seeds/003): RTL generator, timestamping receiver and disciplined clock at 1G and 10G, the analyser, a software baseline.

RTL: `fp_ptrain_1g` / `fp_ptrain_10g` (fp_ptrain_core on the 1G / 10G MAC: the generator
`fp_ptrain_gen` whose frames the MAC stamps at the SFD, the receiver `fp_ptrain_rx` with filter
rules, records and loss/reordering/duplicate counters, the clock `fp_ptrain_clock` steered to a
PPS by `fp_pps_servo`, registers from ptrain/rtl/ptrain.regs.toml) and `fp_ptrain_node_bed`
(the tester measuring a node). Python: frame format and parsing (`fastpath.ptrain.frame`),
capture I/O (`.capture`), records (`.record`), the analyser with its calibration (`.analyze`),
the servo model (`.servo`), the pin-level wire and driver of the benches (`.wire`), the software
baseline over AF_PACKET (`.baseline`, ptrain/host/), `fastpath ptrain analyze|frames|gen` and
`fastpath bench ptrain`. Datasheet: ptrain/README.md.
"""
