"""The cut-through switch node (seeds/000, TrustNode): shared segment buffer, learning L2 table, VLANs.

RTL in node/rtl/, cocotb tests in node/tb/ (and the fast Verilator harness, node/tb/harness/),
harness-driven tests in node/tests/, the frame-level model (`fastpath.node.model`, `.l2`), the
latency model (`fastpath.node.budget`), the RFC 2544 bench (`fastpath bench node`). Datasheet:
node/README.md.
"""
