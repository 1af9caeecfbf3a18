"""fastpath: low-latency network node cores, host software and tools.

This package is the generic tooling (simulation runner, register and format generators, synthesis
flow, lint, frame and pcap helpers, the CLI). Each system lives in a folder of its own at the top
of the tree (node/, gre/, fade/, ...); its Python parts are importable as `fastpath.<system>`
(`fastpath.gre.model`, `fastpath.node.bench`) because the tree's top is added to this package's
search path below. docs/architecture.md says why.
"""
from pathlib import Path as _Path

__version__ = "0.1.0"

# The system folders (node/, gre/, ...) are subpackages: fastpath.<system> is <ROOT>/<system>/.
__path__.append(str(_Path(__file__).resolve().parent.parent))  # noqa: F821 (a package's __path__)
