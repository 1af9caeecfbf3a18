"""Common RTL library: AXI4-Stream register and FIFOs, clock-domain crossings, CRC-32, arbiter, RAM.

The cores every system builds on (lib/rtl/), their tests (lib/tb/), the stream-core bench
(`fastpath bench lib`), the identification register block and the CRC-32 reference model
(`fastpath.lib.crc`). Datasheet: lib/README.md.
"""
