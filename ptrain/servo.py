"""The PPS servo of the packet-train tester, in integers: bit-exact with ptrain/rtl/fp_pps_servo.v.

fp_pps_servo disciplines one fp_timebase (mac/rtl/fp_timebase.v) to a pulse-per-second reference:
the timebase captures `now` at each PPS edge (`pps_time`), the servo compares it with the time
that edge should have shown and steers the timebase with a step (`set_time`) or a rate offset
(`adj_delta`, 2^-32 ns per cycle, replacing the previous one). This module is its reference model:
`Servo` is the controller per event (pulse, timeout), `CycleModel` adds the cycle timing of the
RTL (busy window, timeouts, output latencies), and `ClosedLoop` runs the whole loop (oscillator,
timebase, servo) per pulse for analysis, e.g. at the real 1 s interval.

The loop
--------
Units: phase in Q48.16 ns (fp_time), rates in "fine" units of 2^-48 ns per cycle (the timebase's
2^-32 ns/cycle with 16 more fraction bits, so that small gains lose nothing). N is the nominal
number of cycles per PPS interval, PPS_INTERVAL_NS * PERIOD_DEN / PERIOD_NUM.

Every PPS gives the phase error

    e = pps_time - (expected + T/2)

where `expected` is the fp_time the edge should carry (cfg_tod_ns for the first pulse after
enabling, then + PPS_INTERVAL_NS per pulse, counted also for missed pulses) and T/2 half the
nominal clock period: the timebase stamps a PPS with the time of the first clock edge after it,
on average half a period late, so the servo aims the clock at the PPS instant itself. The rate
that would remove e in one interval is r = e / N, computed as (|e| * RECIP) >> S1 with a 32-bit
constant RECIP (a serial multiplier in the RTL; truncated towards zero, saturated at 2^48 - 1).

  * Proportional: P = -(r >>> kp)             (Kp = 2^-cfg_kp_shift)
  * Integral:     I = I - (r >>> ki)          (Ki = 2^-cfg_ki_shift); I is the frequency estimate
  * Output:       adj_delta = clamp((I + P + 2^15) >>> 16) to the timebase's range, +-0.5 ns/cycle

(">>>" floors, as Python's >> on negative numbers). With x_n the clock's phase error at pulse n
and D the oscillator's drift per interval, the loop is

    x[n+1] = (1 - Kp - Ki) x[n] + (D - I[n]),    I[n+1] = I[n] + Ki x[n]   (I in ns per interval)

with the characteristic polynomial z^2 - (2 - Kp - Ki) z + (1 - Kp). The recommended gains
kp_shift = 1, ki_shift = 4 (Kp = 1/2, Ki = 1/16; the Config defaults) put the poles at 0.85 and
0.59 (real: no ringing): an error decays by 0.85 per pulse. The clock follows the reference's
phase up to 0.15 of the pulse rate (-3 dB; 0.15 Hz at 1 PPS, 1.4 dB peaking) and white PPS jitter
of rms s leaves 0.67 s rms in the clock. Worst cases for a bounded error |q| on every capture
(the l1 gains of the loop): |phase| <= 1.30 |q|, |frequency error| <= 0.196 |q| per interval.
A frequency ramp of R ns per interval^2 leaves a phase error of R / Ki. kp_shift 2, ki_shift 5
(poles 0.86 +- 0.11j) halve the bandwidth (0.07 of the pulse rate) and the frequency noise
(l1 0.171), and pull in a frequency error more slowly.

The PPS capture quantizes: pps_time is the time of the first clock edge after the PPS edge, so
after the T/2 compensation each measurement carries an error in [-T/2, T/2] that depends on where
the PPS falls between two edges. It follows that a frequency cannot be measured better than about
T per interval: 8 ppb at 1 PPS with an 8 ns clock, 80 ppm at a 100 us simulation interval; the
frequency measurement of the FREQ pulse has exactly that resolution, the loop averages below it.

Acquisition: the first pulse after enabling steps the clock (`set_time`) so that this edge reads
cfg_tod_ns (state ACQ -> FREQ). The next pulse measures the drift over one interval: its r is the
oscillator's frequency error, loaded into I directly (FREQ -> TRACK); the PI loop runs from then
on. A FREQ pulse farther than MAX_PPM * interval from its expected time is rejected.

Steps: an accepted pulse with |e| > cfg_step_ns steps the clock to `expected` (the integrator
keeps its value; in FREQ it still loads the measured frequency). set_time = expected + T/2 +
M_SET * T, M_SET = 64 cycles being the fixed distance from the capture edge to the edge at which
the timebase loads set_time (3 in the timebase and 61 in the servo).

Lock: `locked` is set after LOCK_PULSES consecutive TRACK pulses with |e| <= cfg_lock_ns, and
cleared by a pulse beyond cfg_lock_ns, a step, a missed pulse or disabling.

Glitches: in TRACK a pulse with |e| > cfg_reject_ns is rejected (counted; it changes nothing,
the next pulse is still expected one interval after the last accepted one). If the reference
itself moved, its pulses keep being rejected with errors that agree: after RESTEP_AFTER
consecutive rejected pulses whose errors agree within cfg_reject_ns, the next such pulse is
accepted and steps the clock. A pulse arriving while the datapath is busy with the previous event
(within 110 cycles of its sampling) is rejected too.

Holdover: no pulse for 1.5 intervals (counted in cycles of the disciplined oscillator from the
last accepted or missed pulse) is a missed pulse: `expected` advances one interval, the output
becomes I alone (the last frequency estimate, no phase correction) and `holdover` is set. When
pulses return, one within cfg_reject_ns is accepted without a step (when within cfg_step_ns):
its P term corrects the phase, the integrator resumes from the next pulse (the error of the first
one spans several intervals). A missed pulse in FREQ returns to ACQ (the next pulse steps again,
to the expected time, keeping the pulse count).

Outputs per event: a pulse accepted or a timeout gives adj_valid (and set_valid for a step) at
LAT_ADJ = 60 cycles after the edge at which pps_valid was sampled; the status (counters, flags,
phase_err) changes at that edge too, freq_ppb and status_valid follow at LAT_STATUS = 110.
freq_ppb = -I / T in ppb, the oscillator's frequency offset to first order: for an oscillator
whose period is T * (1 + a) the loop converges to I = a * T, freq_ppb = -a * 1e9.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

NS = 1 << 16          # fp_time units per ns
MASK64 = (1 << 64) - 1

IDLE, ACQ, FREQ, TRACK = 0, 1, 2, 3
STATE_NAMES = ("IDLE", "ACQ", "FREQ", "TRACK")

LAT_ADJ = 60          # pps_valid sampling edge -> edge presenting adj_valid / set_valid
LAT_STATUS = 110      # pps_valid sampling edge -> edge presenting status_valid (freq_ppb)
PPS_TO_SAMPLE = 3     # fp_timebase: capture edge -> the edge at which the servo samples pps_valid
M_SET = PPS_TO_SAMPLE + LAT_ADJ + 1   # capture edge -> edge after which `now` == set_time

R_MAX = (1 << 48) - 1                 # saturation of |r| (fine units)
ADJ_MIN, ADJ_MAX = -(1 << 31), (1 << 31) - 1


def signed64(v: int) -> int:
    v &= MASK64
    return v - (1 << 64) if v >> 63 else v


def _norm(a: int, b: int) -> tuple[int, int]:
    """(C, S): C = round(a * 2^S / b) < 2^32 with S as large as possible (S <= 81)."""
    best = None
    for s in range(82):
        c = ((a << s) + (b >> 1)) // b
        if c < (1 << 32):
            best = (c, s)
    if best is None:
        raise ValueError("constant too large")
    return best


@dataclass(frozen=True)
class Params:
    """The HDL parameters of fp_pps_servo (and fp_ptrain_clock)."""

    period_num: int = 8
    period_den: int = 1
    interval_ns: int = 1_000_000_000
    max_ppm: int = 500
    lock_pulses: int = 4
    restep_after: int = 2

    @classmethod
    def from_hdl(cls, p: dict) -> "Params":
        return cls(p.get("PERIOD_NUM", 8), p.get("PERIOD_DEN", 1), p.get("PPS_INTERVAL_NS", 1_000_000_000),
                   p.get("MAX_PPM", 500), p.get("LOCK_PULSES", 4), p.get("RESTEP_AFTER", 2))

    def hdl(self) -> dict:
        return {"PERIOD_NUM": self.period_num, "PERIOD_DEN": self.period_den,
                "PPS_INTERVAL_NS": self.interval_ns, "MAX_PPM": self.max_ppm,
                "LOCK_PULSES": self.lock_pulses, "RESTEP_AFTER": self.restep_after}

    @property
    def period(self) -> Fraction:
        """Nominal clock period in ns."""
        return Fraction(self.period_num, self.period_den)

    @cached_property
    def cycles(self) -> int:
        """N: nominal cycles per interval (rounded)."""
        return (2 * self.interval_ns * self.period_den + self.period_num) // (2 * self.period_num)

    @property
    def timeout(self) -> int:
        return self.cycles + self.cycles // 2

    @property
    def half(self) -> int:
        """T/2 in Q48.16, rounded."""
        return (self.period_num * NS + self.period_den) // (2 * self.period_den)

    @property
    def set_adv(self) -> int:
        """M_SET * T in Q48.16, rounded."""
        return (2 * M_SET * self.period_num * NS + self.period_den) // (2 * self.period_den)

    @cached_property
    def recip(self) -> tuple[int, int]:
        """(RECIP, S1): r = (|e| * RECIP) >> S1 ~ e * 2^32 * NUM / (INTERVAL * DEN)."""
        return _norm(self.period_num << 32, self.interval_ns * self.period_den)

    @cached_property
    def ppb_recip(self) -> tuple[int, int]:
        """(PRECIP, S2): ppb = (|I| * PRECIP) >> S2 ~ I * 1e9 * DEN / (NUM * 2^48)."""
        return _norm(10**9 * self.period_den, self.period_num << 48)

    @property
    def i_max(self) -> int:
        """The integrator's clamp, MAX_PPM of the nominal period, fine units."""
        return self.max_ppm * self.period_num * (1 << 48) // (10**6 * self.period_den)

    @property
    def acq_win(self) -> int:
        """The FREQ pulse's window, MAX_PPM of the interval, Q48.16."""
        return self.max_ppm * self.interval_ns * NS // 10**6

    def check(self) -> None:
        if not (1 <= self.period_den <= 65535 and self.period_num >= self.period_den
                and self.period_num // self.period_den < 65536):
            raise ValueError("period as fp_timebase's")
        if self.cycles < 1024 or self.interval_ns >= 1 << 36:
            raise ValueError("PPS_INTERVAL_NS: at least 1024 cycles, below 2^36 ns")
        if self.max_ppm < 1 or 2 * self.i_max >= 1 << 47 or self.acq_win >= 1 << 47:
            raise ValueError("MAX_PPM")
        if not 1 <= self.lock_pulses <= 255 or not 1 <= self.restep_after <= 7:
            raise ValueError("LOCK_PULSES 1..255, RESTEP_AFTER 1..7")


@dataclass
class Config:
    """The cfg_* ports."""

    enable: bool = True
    tod_ns: int = 0           # 48 bits: the fp_time (whole ns) of the PPS edge the servo first steps on
    kp_shift: int = 1         # Kp = 2^-kp_shift, 0..31
    ki_shift: int = 4         # Ki = 2^-ki_shift, 0..31
    lock_ns: int = 16
    step_ns: int = 1000
    reject_ns: int = 2000

    def hdl(self) -> dict:
        return {"cfg_enable": int(self.enable), "cfg_tod_ns": self.tod_ns, "cfg_kp_shift": self.kp_shift,
                "cfg_ki_shift": self.ki_shift, "cfg_lock_ns": self.lock_ns, "cfg_step_ns": self.step_ns,
                "cfg_reject_ns": self.reject_ns}


@dataclass
class Status:
    state: int = IDLE
    locked: bool = False
    holdover: bool = False
    phase_err: int = 0        # signed Q32.16 ns (saturated)
    freq_ppb: int = 0
    pulses: int = 0
    steps: int = 0
    missed: int = 0
    rejected: int = 0


@dataclass
class Outcome:
    """What one event (pulse or timeout) does: outputs and the status after it."""

    kind: str                 # "pulse" | "timeout" | "disable"
    accepted: bool = False
    rejected: bool = False
    step: bool = False
    set_time: int | None = None
    adj: int | None = None    # adj_delta (signed) when adj_valid
    e: int = 0                # the phase error, Q48.16 signed
    status: Status = field(default_factory=Status)


def _sat48(v: int) -> int:
    return max(-(1 << 47), min((1 << 47) - 1, v))


class Servo:
    """The controller, one call per event, in the RTL's integer arithmetic."""

    def __init__(self, params: Params = Params(), cfg: Config | None = None):
        params.check()
        self.p = params
        self.cfg = cfg or Config()
        self.state = IDLE
        self.integ = 0            # I, fine units
        self.exp = 0              # expected + T/2, Q48.16 (64-bit)
        self.have_ref = False
        self.rej_run = 0
        self.last_rej = 0
        self.lock_cnt = 0
        self.reacq = False
        self.st = Status()

    # -- enable / disable (the RTL does these on an edge without an event) -----------------------
    def idle_tick(self) -> Outcome | None:
        """An edge without an event: IDLE follows cfg_tod_ns and enables; a disable releases the
        rate offset (adj 0)."""
        if self.state == IDLE:
            self.exp = ((self.cfg.tod_ns << 16) + self.p.half) & MASK64
            if self.cfg.enable:
                self.state = ACQ
                self.st.state = ACQ
            return None
        if not self.cfg.enable:
            self.state = IDLE
            self.integ = 0
            self.have_ref = False
            self.rej_run = 0
            self.lock_cnt = 0
            self.reacq = False
            self.st.locked = self.st.holdover = False
            self.st.state = IDLE
            self.st.freq_ppb = 0
            return Outcome("disable", adj=0, status=self._snap())
        return None

    def _snap(self) -> Status:
        return Status(**vars(self.st))

    def rate(self, e: int) -> int:
        mag = min(abs(e), R_MAX)
        recip, s1 = self.p.recip
        r = min((mag * recip) >> s1, R_MAX)
        return -r if e < 0 else r

    def _ppb(self, integ: int) -> int:
        precip, s2 = self.p.ppb_recip
        m = (abs(integ) * precip) >> s2
        return m if integ < 0 else -m

    def pulse(self, pps_time: int) -> Outcome:
        """A pulse sampled while enabled and not busy (the pulse counter is counted by the caller
        at the sampling edge: see CycleModel)."""
        c, p = self.cfg, self.p
        d = signed64(pps_time - self.exp)
        mag = abs(d)
        gt_lock, gt_step = mag > c.lock_ns << 16, mag > c.step_ns << 16
        gt_rej, gt_acq = mag > c.reject_ns << 16, mag > p.acq_win
        cons = abs(signed64(d - self.last_rej)) <= c.reject_ns << 16
        out = Outcome("pulse", e=d)
        mode, use_p = "keep", False
        nxt = self.state
        if self.state == ACQ:
            out.accepted = out.step = True
            nxt = FREQ
        else:
            out_win = gt_acq if self.state == FREQ else gt_rej
            if out_win:
                if self.rej_run >= p.restep_after and cons:
                    out.accepted = out.step = True
                else:
                    out.rejected = True
            else:
                out.accepted = True
                out.step = gt_step
                use_p = not gt_step
                if self.state == FREQ:
                    mode = "load"
                elif not (self.reacq or gt_step):
                    mode = "pi"
                nxt = TRACK
        adj = self._output(self.rate(d), mode, use_p) if out.accepted else None
        # commit (the RTL's LAT_ADJ edge)
        self.st.phase_err = _sat48(d)
        if out.step:
            out.set_time = (self.exp + p.set_adv) & MASK64
            self.st.steps += 1
        if out.accepted:
            out.adj = adj
            self.exp = (self.exp + (p.interval_ns << 16)) & MASK64
            self.have_ref = True
            self.rej_run = 0
            self.reacq = False
            self.st.holdover = False
            if self.state == TRACK and not out.step and not gt_lock:
                self.lock_cnt = min(self.lock_cnt + 1, 255)
                self.st.locked = self.st.locked or self.lock_cnt >= p.lock_pulses
            else:
                self.lock_cnt = 0
                self.st.locked = False
            self.state = nxt
        else:
            self.st.rejected += 1
            self.rej_run = min(self.rej_run + 1, 7) if (cons and self.rej_run > 0) else 1
            self.last_rej = d
        self.st.state = self.state
        self.st.freq_ppb = self._ppb(self.integ)
        out.status = self._snap()
        return out

    def timeout(self) -> Outcome:
        """No pulse for 1.5 intervals."""
        out = Outcome("timeout")
        out.adj = self._output(0, "keep", False)
        self.st.missed += 1
        self.exp = (self.exp + (self.p.interval_ns << 16)) & MASK64
        if self.state == TRACK:
            self.st.holdover = True
            self.reacq = True
        elif self.state == FREQ:
            self.state = ACQ
        self.lock_cnt = 0
        self.st.locked = False
        self.st.state = self.state
        self.st.freq_ppb = self._ppb(self.integ)
        out.status = self._snap()
        return out

    def _output(self, r: int, mode: str, use_p: bool) -> int:
        c = self.cfg
        if mode == "load":
            cand = -r
        elif mode == "pi":
            cand = self.integ - (r >> c.ki_shift)
        else:
            cand = self.integ
        cand = max(-self.p.i_max, min(self.p.i_max, cand))
        pterm = -(r >> c.kp_shift) if use_p else 0
        adj = (cand + pterm + (1 << 15)) >> 16
        sat = adj > ADJ_MAX or adj < ADJ_MIN
        adj = max(ADJ_MIN, min(ADJ_MAX, adj))
        if not (sat and mode == "pi"):     # conditional integration: no windup in saturation
            self.integ = cand
        return adj


@dataclass
class Emission:
    """What the RTL presents: adj_valid/set_valid at edge `edge` (after that rising edge), or the
    status at status_valid."""

    edge: int
    outcome: Outcome


class CycleModel:
    """fp_pps_servo's cycle behaviour around `Servo`, edge by edge.

    Edges are numbered; "at edge k" means the rising edge k samples the inputs and the outputs it
    assigns are seen after it. An event starts at the edge that samples pps_valid (or the timeout
    condition) while not busy; it presents adj/set at +LAT_ADJ and status_valid at +LAT_STATUS,
    and is busy until then (pps_valid sampled at edges start+1 .. start+LAT_STATUS is rejected).
    A timeout starts at the first free edge at which the cycles since the reference pulse's
    sampling edge (the last accepted pulse, advanced by N per missed pulse) exceed N * 1.5, with
    no pps_valid at that edge. Configuration changes (`configure`) happen between events.
    """

    def __init__(self, params: Params = Params(), cfg: Config | None = None):
        self.servo = Servo(params, cfg)
        self.p = params
        self.busy_last = -1          # last edge at which busy is sampled high
        self.ref = None              # reference sampling edge of the since counter
        self.edge = -1               # last edge processed
        self.out: list[Emission] = []
        self.current: tuple[int, Outcome] | None = None   # the last event: (status edge, outcome)

    @property
    def cfg(self) -> Config:
        return self.servo.cfg

    def _tick_idle(self, k: int) -> None:
        o = self.servo.idle_tick()
        if o is not None:
            self.out.append(Emission(k, o))

    def advance(self, upto: int) -> None:
        """Process edges up to `upto` (inclusive) without pulses: timeouts, IDLE/enable."""
        s = self.servo
        while self.edge < upto:
            k = max(self.edge + 1, self.busy_last + 1)
            if k > upto:
                self.edge = upto
                return
            if s.state == IDLE or not s.cfg.enable:
                self._tick_idle(k)          # IDLE follows cfg_tod_ns and enables, or a disable
                self.edge = k
                if s.state == IDLE and not s.cfg.enable:
                    self.edge = upto
                continue
            if s.have_ref:
                due = max(k, self.ref + self.p.timeout + 1)
                if due <= upto:
                    self._start_timeout(due)
                    continue
            self.edge = upto

    def _start_timeout(self, k: int) -> None:
        o = self.servo.timeout()
        self.ref += self.p.cycles
        self.busy_last = k + LAT_STATUS
        self.edge = k
        self._emit(k, o)

    def _emit(self, k: int, o: Outcome) -> None:
        self.out.append(Emission(k + LAT_ADJ, o))
        self.current = (k + LAT_STATUS, o)

    def pps(self, k: int, pps_time: int) -> None:
        """pps_valid sampled high at edge k (strictly after earlier calls)."""
        self.advance(k - 1)
        s = self.servo
        if k <= self.busy_last:
            s.st.pulses += 1
            s.st.rejected += 1
            if self.current is not None and self.current[0] >= k:
                st = self.current[1].status           # seen at status_valid of the running event
                st.pulses += 1
                st.rejected += 1
            self.edge = k
            return
        self.edge = k
        if s.state == IDLE or not s.cfg.enable:
            self._tick_idle(k)
            return
        s.st.pulses += 1
        o = s.pulse(pps_time)
        if o.accepted:
            self.ref = k
        self.busy_last = k + LAT_STATUS
        self._emit(k, o)

    def configure(self, k: int, **changes) -> None:
        """cfg_* change before edge k, which is outside any event (the RTL reads them during one)."""
        self.advance(k - 1)
        if k <= self.busy_last:
            raise ValueError(f"configuration change at edge {k}, inside an event (busy to {self.busy_last})")
        for name, v in changes.items():
            setattr(self.servo.cfg, name, v)


# ---- closed loop: oscillator + fp_timebase + servo, per pulse --------------------------------------

class Edges:
    """The rising edges of an oscillator in true time (ps): piecewise-constant periods.

    Edge k of a segment starting at edge k0 (time t0) with period p is at t0 + (k - k0) * p. A
    simulator with 1 ps resolution realizes a period that is not a whole number of ps by
    alternating whole-ps periods; `dithered` builds such a schedule, and the cocotb clock
    driver of ptrain/tb/test_ptrain_clock.py plays the same segments.
    """

    def __init__(self, period_ps: Fraction, phase_ps: Fraction = Fraction(0), first: int = 0):
        self.k0 = [first]
        self.t0 = [Fraction(phase_ps)]
        self.per = [Fraction(period_ps)]

    def change(self, k: int, period_ps: Fraction) -> None:
        """From edge k on (k after the last change), the period is period_ps."""
        if k <= self.k0[-1]:
            raise ValueError("segments in increasing edge order")
        self.t0.append(self.time(k))
        self.k0.append(k)
        self.per.append(Fraction(period_ps))

    def time(self, k: int) -> Fraction:
        i = max(0, bisect.bisect_right(self.k0, k) - 1)
        return self.t0[i] + (k - self.k0[i]) * self.per[i]

    def first_at_or_after(self, t_ps: Fraction) -> int:
        i = max(0, bisect.bisect_right(self.t0, t_ps) - 1)
        n = (Fraction(t_ps) - self.t0[i]) / self.per[i]
        k = self.k0[i] + max(0, -((-n.numerator) // n.denominator))
        return k

    def period_at(self, k: int) -> Fraction:
        return self.per[max(0, bisect.bisect_right(self.k0, k) - 1)]

    @classmethod
    def dithered(cls, nominal_ps: int, ppm_of_block, blocks: int, block: int = 125,
                 phase_ps: int = 0, first: int = 0) -> "Edges":
        """An oscillator of nominal period `nominal_ps` off by ppm_of_block(b) ppm in block b
        (`block` cycles each): per block, n cycles of the period rounded away from nominal and the
        rest of the nominal one, n chosen so that the block lasts exactly block * nominal_ps *
        (1 + ppm / 1e6) when that is a whole number of ps (integer ppm, block 125 at 8 ns)."""
        e = None
        k = first
        for b in range(blocks):
            ppm = Fraction(ppm_of_block(b))
            extra = block * nominal_ps * ppm / 10**6          # ps added to the block
            if extra.denominator != 1 or abs(extra) > block:
                raise ValueError(f"block {b}: {ppm} ppm is not realizable in whole ps")
            n = abs(int(extra))
            step = 1 if extra > 0 else -1
            for per, count in ((nominal_ps + step, n), (nominal_ps, block - n)):
                if count == 0:
                    continue
                if e is None:
                    e = cls(Fraction(per), Fraction(phase_ps), first)
                elif e.per[-1] != per:
                    e.change(k, Fraction(per))
                k += count
        return e

    def segments(self, last: int):
        """(first edge, time of it, period, edges in the segment) up to edge `last`."""
        for i, (k, t, p) in enumerate(zip(self.k0, self.t0, self.per)):
            end = self.k0[i + 1] if i + 1 < len(self.k0) else last + 1
            if k > last:
                return
            yield k, t, p, min(end, last + 1) - k


class ClosedLoop:
    """The whole loop, computed per event rather than per cycle.

    The oscillator's rising edges are `edges` (true time, ps; an `Edges`, or a period for a
    constant one); the timebase adds its nominal increment plus the offset in force every edge
    (exactly as fp_timebase for PERIOD_DEN = 1, to the 2^-32 ns remainder otherwise), from 0 after
    edge 0 (the last edge of its reset); a PPS at true time t is captured at the first edge at or
    after t. The servo's outputs reach the timebase with the RTL's latencies. With an oscillator
    that the simulator can play exactly, it predicts fp_ptrain_clock bit for bit; it also gives
    the loop's behaviour at the real 1 s interval, where a cycle-level simulation would take hours.
    """

    def __init__(self, params: Params, cfg: Config, edges: "Edges | Fraction", phase_ps: Fraction = Fraction(0)):
        self.p = params
        self.cfg0 = Config(**vars(cfg))           # the configuration at the start
        self.model = CycleModel(params, Config(**vars(cfg)))
        self.edges = edges if isinstance(edges, Edges) else Edges(Fraction(edges), Fraction(phase_ps))
        self.inc = (params.period_num << 32) // params.period_den
        self.count = 0                   # Q48.32 after edge `at`
        self.at = 0
        self.adj = 0
        self.pending: list[tuple[int, str, int]] = []    # (edge, kind, value): applied at that edge
        self.stimulus: list[tuple[int, str, object]] = []  # (edge, "pps", pps_time) | (edge, "cfg", Config)
        self.emissions: list[Emission] = []
        self.model.advance(0)

    def edge_time(self, k: int) -> Fraction:
        return self.edges.time(k)

    def first_edge(self, t_ps: Fraction) -> int:
        return self.edges.first_at_or_after(t_ps)

    def _count_to(self, k: int) -> None:
        if k > self.at:
            self.count += (k - self.at) * (self.inc + self.adj)
            self.at = k

    def _run_to(self, k: int) -> None:
        """Count up to edge k (inclusive), applying the pending loads and offsets."""
        self.pending.sort(key=lambda x: (x[0], x[1] == "adj"))
        while self.pending and self.pending[0][0] <= k:
            e, kind, v = self.pending.pop(0)
            self._count_to(e - 1)
            if kind == "set":          # `now` == v after edge e
                self.count = v << 16
                self.at = e
            else:                      # the step at edge e is the first with the new offset
                self.adj = v
        self._count_to(k)

    def now_at_edge(self, k: int) -> int:
        """`now` (Q48.16) after edge k (k >= every edge asked before)."""
        self._run_to(k)
        return (self.count >> 16) & MASK64

    def now_at(self, t_ps: Fraction) -> int:
        """`now` as read at true time t: the value after the last edge at or before t."""
        k = self.first_edge(t_ps)
        if self.edge_time(k) > t_ps:
            k -= 1
        return self.now_at_edge(k)

    def clock_at(self, t_ps: Fraction) -> Fraction:
        """The clock's phase in ns at true time t, interpolated between edges (analysis): from the
        last edge counted, so t must lie where the offset in force has not changed since."""
        k = self.first_edge(t_ps)
        if self.edge_time(k) > t_ps:
            k -= 1
        self._run_to(k)
        frac = (t_ps - self.edge_time(self.at)) / self.edges.period_at(self.at)
        return Fraction(self.count, 1 << 32) + frac * Fraction(self.inc + self.adj, 1 << 32)

    def _drain(self) -> list[Emission]:
        out, self.model.out = self.model.out, []
        self.emissions += out
        for em in out:
            o = em.outcome
            # set_valid / adj_valid are seen after edge em.edge; the timebase loads set_time at
            # the next edge and steps with a new offset from the third edge on
            if o.set_time is not None:
                self.pending.append((em.edge + 1, "set", o.set_time))
            if o.adj is not None:
                self.pending.append((em.edge + 3, "adj", o.adj))
        return out

    def pps(self, t_ps: Fraction) -> list[Emission]:
        """A PPS at true time t_ps; returns the servo's emissions up to that pulse's event."""
        e0 = self.first_edge(t_ps)
        self.model.advance(e0 + PPS_TO_SAMPLE - 1)
        pre = self._drain()
        t = self.now_at_edge(e0)
        self.model.pps(e0 + PPS_TO_SAMPLE, t)
        self.stimulus.append((e0 + PPS_TO_SAMPLE, "pps", t))
        return pre + self._drain()

    def configure(self, t_ps: Fraction, **changes) -> list[Emission]:
        """Change cfg_* (between events) before the first edge at or after t_ps: enable, tod_ns."""
        k = self.first_edge(t_ps)
        self.model.configure(k, **changes)
        self.model.advance(k)
        pre = self._drain()
        self.stimulus.append((k, "cfg", Config(**vars(self.model.cfg))))
        return pre + self._drain()

    def idle(self, t_ps: Fraction) -> list[Emission]:
        """No pulse until t_ps: timeouts happen."""
        self.model.advance(self.first_edge(t_ps))
        return self._drain()
