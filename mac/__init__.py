"""Ethernet MACs: 1G GMII/MII/RGMII, 10G XGMII, and the nanosecond timebase they stamp frames with.

RTL in mac/rtl/, cocotb tests in mac/tb/, the reference models `fastpath.mac.eth` (1G) and
`fastpath.mac.eth10g`, the MAC bench (`fastpath bench mac`). Datasheet: mac/README.md.
"""
