"""ptrain_clock: fp_timebase + fp_pps_servo in closed loop, on an oscillator off by -100..+100 ppm
with slow wander, disciplined by a PPS at exact multiples of a scaled interval (100 us).

The oscillator: its period is realized exactly in whole picoseconds by blocks of 125 cycles
mixing 8,000 ps and 8,001 (or 7,999) ps cycles (`Edges.dithered`: an integer ppm per block is
exact over each 1 us block, the phase deviates from a uniform clock by less than 32 ps inside
it), played by a cocotb GPI clock restarted at each segment. The run (pulse n at
FIRST_PS + n * 100 us of simulated time, which is the true time):
  pulses 0..19   acquisition (step, frequency, PI), lock;
  pulses 20..35  wander: the oscillator's offset ramps by WANDER ppm (1 ppm steps);
  pulses 40..44  no PPS: holdover (5 missed pulses counted, the first 1.5 intervals after pulse 39);
  pulses 45..59  the PPS returns: reacquisition without a step, lock again.

Checked:
  * bit for bit: every pps_time capture and every status update (state, flags, phase error,
    frequency, counters, at the exact cycle) equals the model's closed loop
    (fastpath.ptrain.servo.ClosedLoop on the same edges);
  * locked before pulse K_LOCK = 8 (pulse 5 is the earliest: 0 steps, 1 measures the frequency,
    2..5 are LOCK_PULSES = 4 pulses within cfg_lock_ns), and again within 8 pulses of the PPS's
    return;
  * phase and frequency within bounds derived from the loop's linear model (`bounds`): the
    capture quantizes each PPS to the next clock edge, an error q in [-T/2, T/2] after the T/2
    compensation; the worst case of a bounded input through a linear loop is its l1 gain, so
    |x| <= l1(q -> x) * T/2 + (the wander's deterministic response) + (the acquisition's
    transient), the same for the frequency error, with margins for what the linear model leaves
    out. The clock's phase at an instant is the sample of `now` (the value of the last edge
    before it) plus the time since that edge (the test knows the edges);
  * holdover: the clock's drift over 3 intervals of holdover equals the one the frequency
    estimate's error predicts, -(freq_ppb - true ppb) * 1e-9 * duration, within 0.1 ns, and stays
    within the derived frequency bound times the duration;
  * reacquisition: no step, holdover cleared by the first pulse, locked again within K_LOCK;
  * two testers on different oscillators (+80 ppm and -60 ppm, two runs of the same test: two
    fp_ptrain_clock cannot be two simulation tops) stamp the same instants: a pulse sent at s
    stamped by one and received at s + DELAY stamped by the other gives DELAY within the sum of
    their bounds, in both directions.
"""
from __future__ import annotations

import json
import os
from fractions import Fraction as F
from pathlib import Path

import cocotb
import pytest
from cocotb.clock import Clock
from cocotb.triggers import ReadOnly, RisingEdge, Timer
from cocotb.utils import get_sim_time

from fastpath.ptrain import servo as sv
from fastpath.sim import runner
from fastpath.sim.tb import params

INTERVAL_NS = 100_000
HDL = {"PPS_INTERVAL_NS": INTERVAL_NS}          # 8 ns, MAX_PPM 500, LOCK_PULSES 4, RESTEP_AFTER 2
T_PS = 8000
IV_PS = INTERVAL_NS * 1000
FIRST_PS = 30_000_000                           # the first PPS (30 us)
PULSES = 60
HOLD = range(40, 45)
WANDER = (20, 35)                               # the ramp's first and last pulse
K_LOCK = 8
TOD_NS = 1_700_000_000 * 10**9 % (1 << 48)      # Unix time modulo 2^48 ns, as the tester counts
CFG = sv.Config(enable=True, tod_ns=TOD_NS, kp_shift=1, ki_shift=4, lock_ns=16, step_ns=1000,
                reject_ns=2000)
SAMPLE_AT_PS = 20_000_000                       # samples 20 us after each PPS instant
DELAY_PS = 12_345_678                           # the known one-way delay between two testers
END_PS = FIRST_PS + PULSES * IV_PS


def ppm_at(base: int, wander: int, t_ps: F) -> int:
    """The oscillator's offset at true time t: base, ramping by `wander` over WANDER."""
    n = (t_ps - FIRST_PS) / IV_PS
    a, b = WANDER
    frac = min(max((n - a) / (b - a), F(0)), F(1))
    return base + round(wander * frac)


def oscillator(base: int, wander: int, phase_ps: int) -> sv.Edges:
    """Edge 0 is the last edge of reset (at phase_ps); 4 more reset edges before it."""
    block_ps = 125 * T_PS
    blocks = (END_PS + IV_PS) // block_ps + 2
    return sv.Edges.dithered(T_PS, lambda b: ppm_at(base, wander, F(b * block_ps)), blocks,
                             phase_ps=phase_ps, first=-4)


def pps_instants() -> list[tuple[int, int]]:
    return [(n, FIRST_PS + n * IV_PS) for n in range(PULSES) if n not in HOLD]


def pick_phase(base: int, wander: int) -> tuple[int, sv.Edges]:
    """A clock phase at which no PPS instant falls on a clock edge (the capture would depend on
    the simulator's ordering of two events at the same time)."""
    phase = 40_000 + 1237
    while True:
        e = oscillator(base, wander, phase)
        if all(e.time(e.first_at_or_after(F(t))) != t for _, t in pps_instants()):
            return phase, e
        phase += 1


def model_run(edges: sv.Edges) -> sv.ClosedLoop:
    L = sv.ClosedLoop(sv.Params.from_hdl(HDL), CFG, edges)
    for _, t in pps_instants():
        L.pps(F(t))
    L.idle(F(END_PS))
    return L


def avg_ppm(base: int, wander: int, n: int) -> F:
    """The oscillator's mean offset over interval n (between PPS n and n + 1), block by block."""
    block_ps = 125 * T_PS
    t0, t1 = FIRST_PS + n * IV_PS, FIRST_PS + (n + 1) * IV_PS
    total = F(0)
    for b in range(t0 // block_ps, t1 // block_ps + 1):
        lo, hi = max(t0, b * block_ps), min(t1, (b + 1) * block_ps)
        if hi > lo:
            total += ppm_at(base, wander, F(b * block_ps)) * F(hi - lo)
    return total / IV_PS


def bounds(base: int, wander: int) -> dict:
    """Bounds from the loop's linear model, per pulse n: |x| at PPS n (ns) and |frequency error|
    after pulse n against the oscillator's offset at the sample 20 us later (ppm).

        e[n] = x[n] + q[n],  x[n+1] = x[n] - Kp e[n] + J[n] - Ki e[n],  J[n+1] = J[n] - Ki e[n] + dD[n]

    x: phase error at the PPS; J: frequency error, ns per interval (the drift of interval n minus
    the integrator); dD: the change of the oscillator's drift from one interval to the next; q:
    the capture's quantization after the T/2 compensation, |q| <= T/2 (+ the 32 ps by which the
    dithered oscillator deviates from a uniform one). It starts at pulse 2, after the step (pulse
    0: x = -q0 after it) and the frequency measurement (pulse 1: J = q0 - q1, no integration):
    |x2| <= (1 - Kp)(|D0| + T/2) + Kp T/2 + T, |J2| <= T. No correction in the holdover, no
    integration at the first pulse after it. Bound = the wander's response + the worst transient
    from the initial box + l1(q -> x or J) * max|q|, then + 10 % and 0.25 ns (phase) or 0.25 ppm
    (frequency) for what the linear model leaves out (the correction starts 65 cycles into the
    interval; fixed point)."""
    kp, ki = F(1, 1 << CFG.kp_shift), F(1, 1 << CFG.ki_shift)
    qmax = F(T_PS, 2000) + F(32, 1000)
    iv = F(INTERVAL_NS)
    drift = [-avg_ppm(base, wander, n) / 10**6 * iv for n in range(PULSES + 1)]

    def run(x, j, q_at=None, ramp=True):
        xs, js = [None, None], [None, None]
        for n in range(2, PULSES + 1):
            xs.append(x)
            js.append(j)
            dd = drift[n] - drift[n - 1] if ramp else 0     # J carries the drift of the coming interval
            if n in HOLD:
                x, j = x + j, j + dd
                continue
            e = x + (1 if q_at == n else 0)
            k_i = 0 if n == HOLD.stop else ki
            x, j = x - kp * e + j - k_i * e, j - k_i * e + dd
        return xs, js

    x2 = (1 - kp) * (abs(drift[0]) + qmax) + kp * qmax + 2 * qmax
    det_x, det_j = run(F(0), F(0))
    tr = [run(sx * x2, sj * 2 * qmax, ramp=False) for sx in (1, -1) for sj in (1, -1)]
    ix, ij = run(F(0), F(0), q_at=2, ramp=False)
    l1x = sum(abs(v) for v in ix[2:])
    l1j = sum(abs(v) for v in ij[2:])
    phase, freq = [None, None], [None, None]
    for n in range(2, PULSES):
        bx = abs(det_x[n]) + max(abs(t[0][n]) for t in tr) + l1x * qmax
        # J after pulse n concerns interval n; the sample's instantaneous offset differs from its mean
        bj = abs(det_j[n + 1]) + max(abs(t[1][n + 1]) for t in tr) + l1j * qmax
        inst = abs(ppm_at(base, wander, F(FIRST_PS + n * IV_PS + SAMPLE_AT_PS)) - avg_ppm(base, wander, n))
        phase.append(float(bx * F(11, 10) + F(1, 4)))
        freq.append(float(bj / iv * 10**6 * F(11, 10) + F(1, 4) + inst))
    return {"phase_ns": phase, "freq_ppm": freq, "l1x": float(l1x), "l1j": float(l1j)}


def true_ns(t_ps: int) -> F:
    """The time of day the disciplined clock should show at true time t."""
    return TOD_NS + F(t_ps - FIRST_PS, 1000)


class Run:
    def __init__(self, dut, base: int, wander: int):
        self.dut, self.base, self.wander = dut, base, wander
        self.phase, self.edges = pick_phase(base, wander)
        self.status: list[tuple[int, sv.Status]] = []
        self.captures: list[int] = []

    async def clock(self):
        """Play the oscillator's segments: a GPI clock per segment, restarted at its first edge."""
        d = self.dut
        last = self.edges.first_at_or_after(F(END_PS + IV_PS))
        clk = None
        for k, t, per, _ in self.edges.segments(last):
            wait = int(t) - int(get_sim_time("ps"))
            if wait:
                await Timer(wait, unit="ps")
            if clk is not None:
                clk.stop()
            clk = Clock(d.clk, int(per), unit="ps", impl="gpi", period_high=T_PS // 2)
            clk.start(start_high=True)

    async def pps(self):
        d = self.dut
        for _, t in pps_instants():
            await Timer(t - int(get_sim_time("ps")), unit="ps")
            d.pps.value = 1
            await Timer(1_000_000, unit="ps")
            d.pps.value = 0

    async def monitor(self):
        d = self.dut
        cocotb.start_soon(self._captures())
        while True:
            await RisingEdge(d.status_valid)
            await ReadOnly()
            k = self.edges.first_at_or_after(F(int(get_sim_time("ps"))))
            self.status.append((k, sv.Status(
                int(d.state.value), bool(int(d.locked.value)), bool(int(d.holdover.value)),
                _signed(int(d.phase_err.value), 48), _signed(int(d.freq_ppb.value), 32),
                int(d.cnt_pulses.value), int(d.cnt_steps.value), int(d.cnt_missed.value),
                int(d.cnt_rejected.value))))

    async def _captures(self):
        d = self.dut
        while True:
            await RisingEdge(d.pps_valid)
            await ReadOnly()
            self.captures.append(int(d.pps_time.value))

    async def now_at(self, t_ps: int) -> int:
        await Timer(t_ps - int(get_sim_time("ps")), unit="ps")
        await ReadOnly()
        return int(self.dut.now.value)


def _signed(v: int, bits: int) -> int:
    return v - (1 << bits) if v >> (bits - 1) else v


@cocotb.test()
async def disciplined_clock(dut):
    """Closed loop against the model; lock, phase, frequency, holdover and reacquisition bounds."""
    base, wander = int(os.environ["PTRAIN_PPM"]), int(os.environ["PTRAIN_WANDER"])
    assert sv.Params.from_hdl(params()) == sv.Params.from_hdl(HDL)
    run = Run(dut, base, wander)
    for name, v in CFG.hdl().items():
        getattr(dut, name).value = v
    dut.pps.value = 0
    dut.rst.value = 1
    cocotb.start_soon(run.clock())
    cocotb.start_soon(run.monitor())
    await Timer(int(run.edges.time(0)) + T_PS // 2, unit="ps")
    dut.rst.value = 0
    cocotb.start_soon(run.pps())

    # samples of `now` 20 us after every PPS instant s and at s + DELAY (after the loop's event,
    # which ends 113 cycles after the capture)
    samples = []
    for n in range(PULSES):
        s = FIRST_PS + n * IV_PS + SAMPLE_AT_PS
        a = await run.now_at(s)
        b = await run.now_at(s + DELAY_PS)
        samples.append((n, s, a, b, bool(int(dut.locked.value)), bool(int(dut.holdover.value)),
                        _signed(int(dut.freq_ppb.value), 32), int(dut.cnt_steps.value)))
    await Timer(END_PS + IV_PS // 2 - int(get_sim_time("ps")), unit="ps")

    # ---- bit for bit against the model's closed loop on the same edges ----
    L = model_run(run.edges)
    want_caps = [v for _, kind, v in L.stimulus if kind == "pps"]
    assert run.captures == want_caps, "pps_time differs from the model"
    want_status = [(e.edge - sv.LAT_ADJ + sv.LAT_STATUS, e.outcome.status) for e in L.emissions]
    assert len(run.status) == len(want_status)
    for got, want in zip(run.status, want_status):
        assert got == want, f"status: got {got}, model {want}"

    # ---- physical bounds ----
    bnd = bounds(base, wander)
    T = F(T_PS, 1000)
    lock_n = next(r[0] for r in samples if r[4])
    assert lock_n < K_LOCK, f"locked at pulse {lock_n}"
    steps_at_lock = samples[lock_n][7]
    x = {}
    for n, s, a, b, locked, hold, fppb, steps in samples:
        # the clock's phase at s: the sample is `now` of the last edge before s; add the time since
        k = run.edges.first_at_or_after(F(s))
        if run.edges.time(k) > s:
            k -= 1
        x[n] = F(a, 1 << 16) + (F(s) - run.edges.time(k)) / 1000 - true_ns(s)
        if n < 2:
            continue
        bx = max(bnd["phase_ns"][n], bnd["phase_ns"][min(n + 1, PULSES - 1)])   # between PPS n and n + 1
        assert abs(x[n]) <= bx, f"pulse {n}: phase {float(x[n]):.3f} ns, bound {bx:.3f}"
        ferr = F(fppb + ppm_at(base, wander, F(s)) * 1000, 1000)
        assert abs(ferr) <= bnd["freq_ppm"][n], f"pulse {n}: frequency error {float(ferr)} ppm, bound {bnd['freq_ppm'][n]:.2f}"
        if n >= lock_n and n not in HOLD:
            assert locked or HOLD.stop <= n < HOLD.stop + K_LOCK, f"lock lost at pulse {n}"
            assert steps == steps_at_lock, f"a step at pulse {n}"
    # figures for the datasheet: after lock, and settled (20 pulses in, away from the holdover)
    settled = [n for n in x if n >= 20 and n not in HOLD and not HOLD.stop <= n < HOLD.stop + 5]
    ferr_of = {r[0]: float(F(r[6] + ppm_at(base, wander, F(r[1])) * 1000, 1000)) for r in samples}
    worst_x = max(abs(float(x[n])) for n in x if n >= lock_n)
    settled_x = max(abs(float(x[n])) for n in settled)
    settled_f = max(abs(ferr_of[n]) for n in settled)

    # holdover: from the sample 20 us after PPS 41's instant (the first missed pulse, counted 1.5
    # intervals after pulse 39, has put the output on the frequency estimate alone) to the one
    # after 44's, 3 intervals later; no PPS in between
    h0, h1 = HOLD.start + 1, HOLD.stop - 1
    s0, s1 = samples[h0][1], samples[h1][1]
    assert samples[h0][5] and samples[h1][5] and not samples[HOLD.start - 1][5], "holdover flag"
    est_err_ppb = samples[h0][6] + ppm_at(base, wander, F(s0)) * 1000
    predicted = -F(est_err_ppb, 10**9) * F(s1 - s0, 1000)
    drift = x[h1] - x[h0]
    assert abs(drift - predicted) <= F(1, 10), f"holdover drift {float(drift):.3f} ns, predicted {float(predicted):.3f}"
    assert abs(drift) <= F(bnd["freq_ppm"][h0]) / 10**6 * F(s1 - s0, 1000)
    # reacquisition: the first pulse back clears holdover without a step, lock within K_LOCK
    back = HOLD.stop
    assert not samples[back][5] and samples[back][7] == steps_at_lock
    relock = next(r[0] for r in samples if r[0] >= back and r[4])
    assert relock - back < K_LOCK

    result = {
        "ppm": base, "wander": wander, "lock_pulse": lock_n, "relock_pulses": relock - back + 1,
        "worst_phase_after_lock_ns": worst_x, "settled_phase_ns": settled_x,
        "settled_freq_ppm": settled_f, "holdover_est_err_ppm": est_err_ppb / 1000,
        "holdover_drift_ns": float(drift), "holdover_predicted_ns": float(predicted),
        "holdover_intervals": (s1 - s0) // IV_PS,
        "samples": [(n, s, a, b, max(bnd["phase_ns"][n], bnd["phase_ns"][min(n + 1, PULSES - 1)]) if n >= 2 else None)
                    for n, s, a, b, *_ in samples],
        "after_lock": lock_n,
        "phase": {n: float(v) for n, v in x.items()},
    }
    dut._log.info("RESULT %s", json.dumps({k: v for k, v in result.items() if k != "samples"}))
    out = os.environ.get("PTRAIN_OUT")
    if out:
        Path(out).write_text(json.dumps(result))


def _run(ppm: int, wander: int, out: Path | None = None) -> dict | None:
    env = {"PTRAIN_PPM": str(ppm), "PTRAIN_WANDER": str(wander)}
    if out is not None:
        env["PTRAIN_OUT"] = str(out)
    runner.run("fp_ptrain_clock", __name__, HDL, env=env)
    return json.loads(out.read_text()) if out is not None else None


@pytest.mark.parametrize("ppm,wander", [(-100, 10), (100, -10)])
def test_ptrain_clock(ppm, wander):
    _run(ppm, wander)


def test_two_testers_one_way_delay(tmp_path):
    """Tester A on +80 ppm (wandering to +88), tester B on -60 ppm (to -65), the same PPS: a pulse
    sent by A at s, stamped by A, received by B at s + DELAY, stamped by B: B's stamp - A's stamp
    is DELAY within their two phase bounds plus one period of sampling (and B to A the same)."""
    a = _run(80, 8, tmp_path / "a.json")
    b = _run(-60, -5, tmp_path / "b.json")
    T = 8.0
    worst = settled = 0.0
    first = max(a["after_lock"], b["after_lock"])
    for (n, s, a_s, a_sd, a_b), (_, s2, b_s, b_sd, b_b) in zip(a["samples"], b["samples"]):
        assert s == s2
        if n < first:
            continue
        # each clock within its bound at s and at s + DELAY (12 us later, still before the next
        # PPS, within the same interval's bound); each stamp lags by 0..T: the difference of two
        bound = a_b + b_b + T
        for sent, received in ((a_s, b_sd), (b_s, a_sd)):
            owd = ((received - sent) & ((1 << 64) - 1)) / 65536
            assert abs(owd - DELAY_PS / 1000) <= bound, (n, owd, bound)
            worst = max(worst, abs(owd - DELAY_PS / 1000))
            if n >= 20:
                settled = max(settled, abs(owd - DELAY_PS / 1000))
    # the clocks themselves (phase at each sample instant, without the stamps' 0..T lag)
    agree = max(abs(a["phase"][str(n)] - b["phase"][str(n)]) for n in range(first, PULSES))
    print(f"two testers: one-way delay error at most {worst:.3f} ns from pulse {first} on, "
          f"{settled:.3f} ns from pulse 20 on (both ways, holdover included); the clocks' "
          f"phases differ by at most {agree:.3f} ns")
