"""fp_fade_cmd: random command streams (START/STOP, user codes, repeated csn) under random stalls of
the command FIFO, the user (m_cmd_ready, answer delay) and the transmitter (rsp_take), checked
against a Python model of exactly-once execution, with the stated 1-cycle latencies."""
import cocotb
from cocotb.triggers import ClockCycles, FallingEdge

from fastpath import formats
from fastpath.sim import runner
from fastpath.sim.tb import high, rng, start

F = formats.load("fade")
START, STOP = F.const["cmd_start"], F.const["cmd_stop"]
USER_MIN, USER_MAX = F.const["cmd_user_min"], F.const["cmd_user_max"]
LATENCY = 1  # cmd handshake -> m_cmd_valid / rsp_valid; s_rsp handshake -> rsp_valid


def make_commands(r, n):
    """Commands as fp_fade_rx queues them: dup = 1 when csn equals the previous command's."""
    out, last = [], None
    for _ in range(n):
        if last is not None and r.random() < 0.25:
            csn = last
        else:
            csn = r.getrandbits(16)
        code = r.choice([START, STOP] + [r.randint(USER_MIN, USER_MAX)] * 3)
        out.append((code, csn, r.getrandbits(32), int(csn == last)))
        last = csn
    return out


def model(cmds, values):
    """Expected responses in order, and the user commands (code, csn, arg) offered on m_cmd."""
    stored = (0, 0, 0)
    rsps, user = [], []
    vals = iter(values)
    for code, csn, arg, dup in cmds:
        if not dup:
            if code in (START, STOP):
                stored = (code, csn, 0)
            else:
                user.append((code, csn, arg))
                stored = (code, csn, next(vals))
        rsps.append(stored)
    return rsps, user


def idle_inputs(dut):
    dut.cmd_valid.value = 0
    dut.cmd_dup.value = 0
    dut.cmd_ctl.value = 0
    dut.cmd_code.value = 0
    dut.cmd_csn.value = 0
    dut.cmd_arg.value = 0
    dut.m_cmd_ready.value = 0
    dut.s_rsp_valid.value = 0
    dut.s_rsp_value.value = 0
    dut.rsp_take.value = 0


async def run(dut, cmds, p_fifo, p_user, p_take, max_wait):
    """Drive everything from the falling edge (inputs settle before the rising edge that samples
    them; every output read there was registered at the previous rising edge). Returns the log."""
    r = rng()
    values = [r.getrandbits(64) for _ in cmds]
    log = {"rsp": [], "user": [], "lat": [], "exec": 0, "repeat": 0, "cmd_cycles": []}
    pending = list(cmds)
    vals = iter(values)
    answer_in = None  # cycles until the user answers the command it holds
    expect_at = None  # (cycle, what) an output must appear at, from a handshake
    cycle = 0
    while pending or high(dut.rsp_valid) or not high(dut.cmd_ready) or expect_at:
        await FallingEdge(dut.clk)
        cycle += 1
        assert cycle < 100 * len(cmds) + 100, "stuck"
        log["exec"] += high(dut.ev_cmd_exec)
        log["repeat"] += high(dut.ev_cmd_repeat)
        if expect_at is not None:
            at, what = expect_at
            assert cycle == at and high(getattr(dut, what)), f"{what} not valid {LATENCY} cycle after handshake"
            log["lat"].append(LATENCY)
            expect_at = None
        # transmitter side: take the pending response at random
        take = high(dut.rsp_valid) and r.random() >= p_take
        if take:
            log["rsp"].append((int(dut.rsp_code.value), int(dut.rsp_csn.value), int(dut.rsp_value.value)))
        dut.rsp_take.value = int(take)
        # user side: command port and answer
        m_ready = r.random() >= p_user
        dut.m_cmd_ready.value = int(m_ready)
        if high(dut.m_cmd_valid) and m_ready:
            log["user"].append((int(dut.m_cmd_code.value), int(dut.m_cmd_csn.value), int(dut.m_cmd_arg.value)))
            answer_in = r.randint(0, max_wait)
        rsp_hs = False
        if high(dut.s_rsp_ready) and answer_in is not None and answer_in <= 0:
            dut.s_rsp_valid.value = 1
            dut.s_rsp_value.value = next(vals)
            rsp_hs = True
            answer_in = None
        else:
            # junk while nobody waits for an answer (s_rsp_ready low): must be ignored
            dut.s_rsp_valid.value = int(not high(dut.s_rsp_ready) and r.random() < 0.3)
            dut.s_rsp_value.value = r.getrandbits(64)
            if answer_in is not None and high(dut.s_rsp_ready):
                answer_in -= 1
        # command FIFO side
        if pending and r.random() >= p_fifo:
            code, csn, arg, dup = pending[0]
            dut.cmd_valid.value = 1
            dut.cmd_code.value, dut.cmd_csn.value, dut.cmd_arg.value, dut.cmd_dup.value = code, csn, arg, dup
            dut.cmd_ctl.value = int(code in (START, STOP))  # fp_fade_rx's decode
            if high(dut.cmd_ready):
                pending.pop(0)
                log["cmd_cycles"].append(cycle)
                user_cmd = not dup and code not in (START, STOP)
                expect_at = (cycle + LATENCY, "m_cmd_valid" if user_cmd else "rsp_valid")
        else:
            dut.cmd_valid.value = 0
            dut.cmd_code.value = r.getrandbits(16)  # junk while not valid
        if rsp_hs:
            assert expect_at is None
            expect_at = (cycle + LATENCY, "rsp_valid")
    idle_inputs(dut)
    return log, values


async def check(dut, cmds, **kw):
    idle_inputs(dut)
    await start(dut)
    log, values = await run(dut, cmds, **kw)
    rsps, user = model(cmds, values)
    assert log["user"] == user
    assert log["rsp"] == rsps
    assert log["repeat"] == sum(c[3] for c in cmds)
    assert log["exec"] == len(cmds) - log["repeat"]
    return log


@cocotb.test()
async def random_commands(dut):
    """Random commands and stalls on every side: responses and offered commands match the model."""
    r = rng()
    await check(dut, make_commands(r, 300), p_fifo=0.4, p_user=0.5, p_take=0.5, max_wait=6)


@cocotb.test()
async def dup_before_any_command(dut):
    """Bad input: a repeat right after reset re-posts the reset response {0, 0, 0}."""
    r = rng()
    cmds = [(START, 0, 0, 1), (r.randint(USER_MIN, USER_MAX), 7, 9, 0), (START, 7, 0, 1)]
    await check(dut, cmds, p_fifo=0.0, p_user=0.0, p_take=0.0, max_wait=0)


@cocotb.test()
async def throughput(dut):
    """Everything ready: START/STOP/repeats are accepted one per 2 cycles."""
    r = rng()
    cmds = [c for c in make_commands(r, 200) if c[3] or c[0] in (START, STOP)]
    log = await check(dut, cmds, p_fifo=0.0, p_user=0.0, p_take=0.0, max_wait=0)
    gaps = {b - a for a, b in zip(log["cmd_cycles"], log["cmd_cycles"][1:])}
    assert gaps == {2}, gaps


def test_fade_cmd():
    runner.run("fp_fade_cmd", __name__)
