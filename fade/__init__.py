"""FADE-10G: reliable FPGA-to-host streaming over raw Ethernet (seeds/002), with its Linux receiver.

RTL in fade/rtl/, cocotb tests in fade/tb/, the Python host model (`fastpath.fade.model`), the C
host library libfade and its tools in fade/host/, the bench (`fastpath bench fade`). Datasheet:
fade/README.md.
"""
