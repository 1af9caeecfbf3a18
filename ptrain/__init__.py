"""Packet-train tester (seeds/003): the tester frame format and the analysis of received trains.

Built today: the frame format (`ptrain/rtl/ptrain.fmt.toml`, with pktgen-compatible header),
frame building and parsing (`fastpath.ptrain.frame`), nanosecond capture I/O
(`fastpath.ptrain.capture`), the analyser of network parameters and its loopback calibration
(`fastpath.ptrain.analyze`), a software model of a generator plus delay for tests and demos
(`fastpath.ptrain.model`), and the CLI verbs `fastpath ptrain analyze|frames` (ptrain/cli.py).
Not built yet: the RTL generator and receiver, the PPS servo. Datasheet: ptrain/README.md.
"""
