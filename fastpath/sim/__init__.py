"""Simulation support: building and running cocotb tests, and helpers used inside them."""
