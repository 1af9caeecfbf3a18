"""ctypes binding of libfade (build/host/libfade.so), the FADE-10G host side in C.

    from fastpath.fade.libfade import Board
    with Board("h0", "02:00:00:00:00:02") as b:      # GETMAC (and a RESET of the board)
        b.start()                                    # STARTMAC
        view = b.read(timeout_ms=100)                # READPTRS: a memoryview IN the buffer
        ...                                          # use view (no copy)
        b.consume(len(view))                         # WRITEPTRS
        b.command(0x100, 7)                          # USERCMD -> 64-bit result
        b.stop()                                     # STOPMAC; read on until b.eos
        print(b.counters())

The library must be built first (`make host`). API and protocol: fade/docs/host.md,
fade/host/include/fastpath/fade.h. Errors raise FadeError (an OSError with the errno).
"""
from __future__ import annotations

import ctypes
import errno
import os

from fastpath.host import BUILD

LIB = BUILD / "libfade.so"


class Options(ctypes.Structure):
    _fields_ = [("buf_log2", ctypes.c_uint), ("window_log2", ctypes.c_uint),
                ("ring_version", ctypes.c_uint), ("ring_block_kib", ctypes.c_uint),
                ("ring_blocks", ctypes.c_uint), ("no_reset", ctypes.c_int),
                ("rx_cpu", ctypes.c_int), ("no_tx_ring", ctypes.c_int),
                ("poll_mode", ctypes.c_int), ("ack_records", ctypes.c_uint), ("inplace", ctypes.c_int),
                ("no_frame_mode", ctypes.c_int)]


class Ptrs(ctypes.Structure):
    _fields_ = [("avail", ctypes.c_uint64), ("head", ctypes.c_uint64), ("tail", ctypes.c_uint64),
                ("total", ctypes.c_uint64), ("eos", ctypes.c_int)]


COUNTERS = ["frames", "data", "dups", "future", "no_space", "idle_data", "foreign", "bad_version",
            "bad_frame", "resets_sent", "acks_sent", "ack_frames", "ack_records", "ack_send_fail", "responses",
            "stale_responses", "cmds_sent", "cmd_retries", "kernel_drops", "bytes", "inplace",
            "frame_mode_entries", "frame_mode_frames"]


class Counters(ctypes.Structure):
    _fields_ = [(n, ctypes.c_uint64) for n in COUNTERS]


class FadeError(OSError):
    pass


_lib = None


def lib() -> ctypes.CDLL:
    """The loaded library (built by `make host`)."""
    global _lib
    if _lib is None:
        if not LIB.exists():
            raise FileNotFoundError(f"{LIB} is not built: make host")
        L = ctypes.CDLL(str(LIB), use_errno=True)
        vp, u, i, sz = ctypes.c_void_p, ctypes.c_uint, ctypes.c_int, ctypes.c_size_t
        L.fade_options_default.argtypes = [ctypes.POINTER(Options)]
        L.fade_parse_mac.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
        L.fade_open.restype = vp
        L.fade_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(Options),
                                ctypes.c_char_p, sz]
        for name, args in [("fade_start", [vp, u]), ("fade_stop", [vp, u]), ("fade_reset", [vp]),
                           ("fade_set_wakeup", [vp, sz]),
                           ("fade_read_ptrs", [vp, ctypes.POINTER(Ptrs), i]),
                           ("fade_write_ptrs", [vp, sz]), ("fade_poll", [vp, i]),
                           ("fade_user_cmd", [vp, ctypes.c_uint16, ctypes.c_uint32, u, u,
                                              ctypes.POINTER(ctypes.c_uint64)])]:
            getattr(L, name).argtypes = args
            getattr(L, name).restype = i
        L.fade_close.argtypes = [vp]
        L.fade_close.restype = None
        L.fade_buf_len.argtypes = [vp]
        L.fade_buf_len.restype = sz
        L.fade_buf.argtypes = [vp]
        L.fade_buf.restype = vp
        L.fade_get_counters.argtypes = [vp, ctypes.POINTER(Counters)]
        L.fade_get_counters.restype = None
        L.fade_strerror.argtypes = [i]
        L.fade_strerror.restype = ctypes.c_char_p
        _lib = L
    return _lib


def _check(ret: int, what: str) -> None:
    if ret < 0:
        raise FadeError(-ret, f"{what}: {lib().fade_strerror(ret).decode()}")


def parse_mac(mac: str) -> bytes:
    out = ctypes.create_string_buffer(6)
    _check(lib().fade_parse_mac(mac.encode(), out), f"MAC {mac!r}")
    return out.raw


class Board:
    """One front-end board: fade_open() ... fade_close(). Not for use after close()."""

    def __init__(self, ifname: str, mac: str, *, buf_log2: int = 0, window_log2: int = 4,
                 ring_version: int = 3, reset: bool = True, rx_cpu: int = -1,
                 poll_mode: bool = False):
        """buf_log2 0: the library's default (from the window); poll_mode: no receive thread,
        read() / poll() handle the frames (fade/docs/host.md)."""
        L = lib()
        o = Options()
        L.fade_options_default(ctypes.byref(o))
        o.buf_log2, o.window_log2, o.ring_version = buf_log2, window_log2, ring_version
        o.no_reset, o.rx_cpu, o.poll_mode = int(not reset), rx_cpu, int(poll_mode)
        err = ctypes.create_string_buffer(256)
        self._f = L.fade_open(ifname.encode(), parse_mac(mac), ctypes.byref(o), err, len(err))
        if not self._f:
            raise FadeError(errno.EIO, f"fade_open {ifname} {mac}: {err.value.decode()}")
        self.buf_len = L.fade_buf_len(self._f)
        # the mirrored mapping: 2 * buf_len bytes, so every readable span is contiguous
        self._buf = (ctypes.c_char * (2 * self.buf_len)).from_address(L.fade_buf(self._f))
        self.eos = False

    # Table 4
    def start(self, timeout_ms: int = 3000) -> None:
        self.eos = False
        _check(lib().fade_start(self._f, timeout_ms), "START")

    def stop(self, timeout_ms: int = 3000) -> None:
        _check(lib().fade_stop(self._f, timeout_ms), "STOP")

    def reset(self) -> None:
        _check(lib().fade_reset(self._f), "RESET")

    def set_wakeup(self, nbytes: int) -> None:
        _check(lib().fade_set_wakeup(self._f, nbytes), "SETWAKEUP")

    def read_ptrs(self, timeout_ms: int = -1) -> Ptrs:
        p = Ptrs()
        lib().fade_read_ptrs(self._f, ctypes.byref(p), timeout_ms)
        self.eos = bool(p.eos)
        return p

    def read(self, timeout_ms: int = -1) -> memoryview:
        """The available bytes, in place (valid until consume()); empty on timeout."""
        p = self.read_ptrs(timeout_ms)
        return memoryview(self._buf).cast("B")[p.tail:p.tail + p.avail]

    def poll(self, timeout_ms: int = 0) -> int:
        """Poll mode: handle the frames that arrived (ACKs out); how many."""
        ret = lib().fade_poll(self._f, timeout_ms)
        _check(ret, "poll")
        return ret

    def consume(self, nbytes: int) -> None:
        _check(lib().fade_write_ptrs(self._f, nbytes), "WRITEPTRS")

    def command(self, cmd: int, arg: int, retries: int = 100, timeout_ms: int = 20) -> int:
        val = ctypes.c_uint64()
        _check(lib().fade_user_cmd(self._f, cmd, arg, retries, timeout_ms, ctypes.byref(val)),
               f"user command {cmd:#x}")
        return val.value

    def counters(self) -> dict:
        c = Counters()
        lib().fade_get_counters(self._f, ctypes.byref(c))
        return {n: getattr(c, n) for n in COUNTERS}

    def close(self) -> None:
        if self._f:
            lib().fade_close(self._f)
            self._f = None

    def __enter__(self) -> "Board":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def available() -> str | None:
    """Why the binding cannot be used here, or None."""
    if not LIB.exists():
        return f"{LIB} not built (make host)"
    if os.geteuid() != 0:
        return "not root (AF_PACKET needs CAP_NET_RAW)"
    return None
