"""fastpath: low-latency network node cores, host software and tools."""
__version__ = "0.1.0"
