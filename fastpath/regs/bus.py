"""The AXI4-Lite bus behaviour every register map has.

The protocol is not generated: every `fp_<name>_regs` instantiates the hand-written shared slave
`lib/rtl/fp_axil_slave.v` (SLAVE) and adds only its map's decode and registers. These constants
state that slave's contract; the generated module's header, the docs and the tests
(lib/tb/test_axil_slave.py, lib/tb/test_regs_generated.py) use them.
"""

SLAVE = "fp_axil_slave"

# rvalid rises READ_LATENCY cycles after the AR handshake (data sampled at that handshake);
# bvalid rises WRITE_LATENCY cycles after the later of the AW and W handshakes (once B is free).
READ_LATENCY = 2
WRITE_LATENCY = 1
RESP_OKAY = 0
RESP_SLVERR = 2
UNMAPPED_READ_VALUE = 0
