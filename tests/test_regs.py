"""Register descriptions: the loader's checks, the Python API, and the generated files (current,
lint-clean RTL, a C header that compiles and agrees with Python). The generated RTL's behaviour is
simulated by lib/tb/test_regs_generated.py."""
import subprocess

import pytest

from fastpath import regs, rtl
from fastpath.paths import ROOT, tool_env, which

FIXTURE = ROOT / "lib" / "tb" / "regs_selftest.regs.toml"
MAPS = {p.name[: -len(".regs.toml")]: p for p in [*regs.descriptions(), FIXTURE]}

BLOCK = """
[block]
name = "t"
address_width = 8
"""


def reg(name, offset, access="rw", **extra):
    lines = ["[[register]]", f'name = "{name}"', f"offset = {offset}", f'access = "{access}"']
    lines += [f"{k} = {v!r}".replace("'", '"') for k, v in extra.items()]
    return "\n".join(lines) + "\n"


def bad(text, match):
    with pytest.raises(regs.RegsError, match=match):
        regs.loads(BLOCK + text, "t.regs.toml")


# ---- the loader rejects bad descriptions with clear errors


def test_overlapping_registers():
    bad(reg("a", 0x10) + reg("b", 0x10), r"register b overlaps a at 0x10")
    bad(reg("a", 0x10, width=64) + reg("b", 0x14), r"register b overlaps a at 0x14")


def test_misaligned_registers():
    bad(reg("a", 0x6), r"offset 0x6 is misaligned \(must be a multiple of 4\)")
    bad(reg("a", 0x4, width=64), r"misaligned \(a 64-bit register must be at a multiple of 8")


def test_duplicate_names():
    bad(reg("a", 0x0) + reg("a", 0x4), r"duplicate register a")
    field = '[[register.field]]\nname = "x"\nbits = {}\n'
    text = reg("a", 0x0) + field.format(0) + field.format(1)
    bad(text, r"duplicate field x")


def test_field_checks():
    f = '[[register.field]]\nname = "{}"\nbits = "{}"\n'
    bad(reg("a", 0) + f.format("x", "7:0") + f.format("y", "4:4"), r"field y \[4\] overlaps field x \[7:0\]")
    bad(reg("a", 0) + f.format("x", "32:30"), r"outside the 32-bit register")
    bad(reg("a", 0) + f.format("x", "3:5"), r"MSB must not be below LSB")
    bad(reg("a", 0) + f.format("x", "3:0") + "reset = 16\n", r"reset 0x10 out of range 0x0..0xf")
    bad(reg("a", 0, "ro") + f.format("x", "3:0") + "reset = 1\n", r"reset applies to rw fields only")
    bad(reg("a", 0, "rw", value=1), r"value \(a constant\) applies to ro fields only")


def test_access_and_width_checks():
    bad(reg("a", 0, "rc"), r"'rc' \(clear on read\) is not supported.*use a free-running 'ro'")
    bad(reg("a", 0, "xx"), r"access 'xx' must be one of rw, ro, w1c, pulse")
    bad(reg("a", 0, "w1c", width=64), r"64-bit registers must be rw or ro")
    bad(reg("a", 0, width=16), r"width must be 32 or 64")


def test_names_keys_and_window():
    bad(reg("A", 0), r"must be lower-case")
    bad(reg("wire", 0), r"is a Verilog keyword")
    bad(reg("a", 0, colour="red"), r"unknown key\(s\) colour")
    bad(reg("a", 0x100), r"outside the 0x100-byte window")
    bad(reg("s_axil_x", 0), r"reserved name")
    bad(reg("a_b", 0) + reg("a", 4) + '[[register.field]]\nname = "b"\nbits = 0\n',
        r"port a_b made by both a_b and a")


def test_array_checks():
    arr = ('[[array]]\nname = "t"\noffset = {}\ncount = 4\nstride = {}\n'
           '[[array.register]]\nname = "k"\noffset = {}\naccess = "rw"\n')
    bad(arr.format(0x40, 0x8, 0x8), r"does not fit in the stride 0x8")
    bad(arr.format(0x42, 0x8, 0x0), r"misaligned")
    bad(reg("x", 0x50) + arr.format(0x40, 0x8, 0x0), r"register x overlaps t_k\[2\] at 0x50")
    bad(arr.format(0xf0, 0x8, 0x0), r"t_k at 0x100 is outside the 0x100-byte window")


def test_file_name_and_include_checks(tmp_path):
    p = tmp_path / "other.regs.toml"
    p.write_text(BLOCK)
    with pytest.raises(regs.RegsError, match=r"block name 't' must match the file name \(other.regs.toml\)"):
        regs.load_file(p)
    bad('[[include]]\nblock = "fastpath_id"\noffset = 0\nvalues = { scratch = 1 }\n',
        r"values: scratch is not a constant ro register")
    bad('[[include]]\nblock = "nope"\n', r"no description nope.regs.toml")
    bad('[[include]]\nblock = "fastpath_id"\noffset = 0\n' + reg("a", 0x8), r"register .* overlaps")


# ---- the Python API


def test_python_api():
    rm = regs.load_file(FIXTURE)
    assert rm.offset("ctrl") == 0x20
    assert rm.offset("tunnel_key", index=3) == 0x104 + 3 * 0x20
    with pytest.raises(IndexError):
        rm.offset("tunnel_key")
    with pytest.raises(IndexError):
        rm.offset("tunnel_key", 4)
    f = rm.field("ctrl", "threshold")
    assert (f.lsb, f.width, f.reset, f.mask) == (9, 11, 0x123, 0x7FF << 9)
    assert rm.register("ctrl").reset == 1 | 5 << 4 | 0x123 << 9 | 0xA5 << 24
    v = rm.encode("ctrl", mode=2)
    assert rm.decode("ctrl", v) == {"enable": 1, "mode": 2, "threshold": 0x123, "tag": 0xA5}
    with pytest.raises(ValueError):
        rm.encode("ctrl", mode=8)
    # the include: fastpath_id's registers at 0, its id constant overridden
    assert rm.offset("cycles") == 0x10 and rm.register("id").reset == 0x4650_00FE
    assert regs.load("fastpath_id").register("id").reset == 0x4650_0000
    assert rm.words()[0x14] == (rm.register("cycles"), None, 1)


def test_generated_modules_are_rtl_modules():
    for m in regs.generated_modules():
        assert m in rtl.modules()


# ---- the generated files


@pytest.mark.parametrize("src", regs.descriptions(), ids=lambda p: p.name)
def test_generated_files_are_current(src):
    for path, text in regs.outputs(regs.load_file(src)).items():
        rel = path.relative_to(ROOT)
        assert path.exists(), f"{rel} missing: run `fastpath regs`"
        assert path.read_text() == text, f"{rel} is stale: run `fastpath regs`"
    assert regs.run(check=True) == 0


def _lint(rm, tmp_path):
    """verilator -Wall on a rendered map with the shared slave it instantiates: no output at all."""
    v = tmp_path / f"{rm.module}.v"
    v.write_text(regs.render_verilog(rm))
    slave = rtl.modules()[regs.SLAVE]
    proc = subprocess.run(["verilator", "--lint-only", "-Wall", "--quiet", "--top-module", rm.module,
                           str(slave), str(v)], env=tool_env(), capture_output=True, text=True)
    assert proc.returncode == 0 and not (proc.stdout + proc.stderr).strip(), proc.stdout + proc.stderr


@pytest.mark.skipif(which("verilator") is None, reason="verilator not installed")
@pytest.mark.parametrize("name", sorted(MAPS))
def test_rtl_is_lint_clean(name, tmp_path):
    _lint(regs.load_file(MAPS[name]), tmp_path)


# Maps at the edges of the generator: the smallest window, the widest, a map without writable or
# 64-bit registers (bus signals it has no use for), and one whose array fills several read groups.
EDGE_MAPS = {
    "aw3": "address_width = 3\n" + reg("a", 0) + reg("b", 4, "pulse"),
    "aw32": "address_width = 32\n" + reg("a", 0x8000_0000, width=64) + reg("b", 0xFFFF_FFFC, "w1c"),
    "ro_only": "address_width = 8\n" + reg("a", 0, "ro") + reg("b", 4, "ro", value=5),
    "groups": "address_width = 12\n" + reg("a", 0) + (
        '[[array]]\nname = "t"\noffset = 0x100\ncount = 20\nstride = 0x10\n'
        '[[array.register]]\nname = "k"\noffset = 0\naccess = "rw"\n'
        '[[array.register]]\nname = "c"\noffset = 8\naccess = "ro"\nwidth = 64\n'),
}


@pytest.mark.skipif(which("verilator") is None, reason="verilator not installed")
@pytest.mark.parametrize("name", sorted(EDGE_MAPS))
def test_rtl_edge_maps_are_lint_clean(name, tmp_path):
    rm = regs.loads('[block]\nname = "t"\n' + EDGE_MAPS[name], "t.regs.toml")
    _lint(rm, tmp_path)


def test_rtl_is_decode_only():
    """The generated module instantiates the shared slave and holds no bus protocol of its own:
    the channel handshakes and holding registers are fp_axil_slave's alone."""
    slave = rtl.modules()[regs.SLAVE].read_text()
    for name in sorted(MAPS):
        text = regs.render_verilog(regs.load_file(MAPS[name]))
        assert f"{regs.SLAVE} #(" in text
        for s in ("s_axil_awready", "s_axil_bvalid", "s_axil_rdata", "s_axil_rvalid"):
            assert f"assign {s}" not in text and f"assign {s}" in slave
        assert "_held_q" not in text
    for m in regs.generated_modules():
        assert regs.SLAVE in rtl.children(m)


def _cc():
    return which("cc") or which("gcc") or which("clang")


@pytest.mark.skipif(_cc() is None, reason="no C compiler")
@pytest.mark.parametrize("name", sorted(MAPS))
def test_c_header_compiles_and_agrees_with_python(name, tmp_path):
    rm = regs.load_file(MAPS[name])
    inc = tmp_path / "fastpath" / "regs"
    inc.mkdir(parents=True)
    (inc / f"{rm.name}.h").write_text(regs.render_c(rm))
    P = regs.c_prefix(rm).upper()
    checks = [f"{P}_SIZE == 0x{rm.size:x}u"]
    for a in rm.arrays:
        A = f"{P}_{a.name.upper()}"
        checks += [f"{A}_OFFSET == 0x{a.offset:x}u", f"{A}_COUNT == {a.count}u",
                   f"{A}_STRIDE == 0x{a.stride:x}u"]
    for r in rm.registers:
        R = f"{P}_{r.name.upper()}"
        checks.append(f"{R}_OFFSET == 0x{r.offset:x}u")
        if r.constant:
            checks.append(f"{R}_VALUE == 0x{r.reset:x}ull")
        elif r.access in ("rw", "w1c"):
            checks.append(f"{R}_RESET == 0x{r.reset:x}ull")
        if not r.implicit:
            for f in r.fields:
                F = f"{R}_{f.name.upper()}"
                checks += [f"{F}_SHIFT == {f.lsb}u", f"{F}_MASK == 0x{f.mask:x}ull"]
                if r.access == "rw":
                    checks.append(f"{F}_RESET == 0x{f.reset:x}ull")
                if f.value is not None:
                    checks.append(f"{F}_VALUE == 0x{f.value:x}ull")
    src = tmp_path / "check.c"
    src.write_text(f'#include "fastpath/regs/{rm.name}.h"\n' + "".join(
        f'_Static_assert({c}, "{c}");\n' for c in checks))
    proc = subprocess.run([_cc(), "-std=c11", "-Wall", "-Wextra", "-Werror", "-fsyntax-only",
                           f"-I{tmp_path}", str(src)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.skipif(_cc() is None, reason="no C compiler")
def test_c_accessors_on_a_simulated_bus(tmp_path):
    """The accessors index the right words of a plain buffer (a 'simulated bus')."""
    rm = regs.load_file(FIXTURE)
    (tmp_path / "regs.h").write_text(regs.render_c(rm))
    p = regs.c_prefix(rm)
    body = [f"static volatile uint32_t bus[{rm.size // 4}];", "int main(void)", "{"]
    body += [
        f"    {p}_ctrl_write(bus, 0x12345678u);",
        "    if (bus[0x20 / 4] != 0x12345678u) return 1;",
        f"    {p}_limit_write(bus, 0x1122334455667788ull);",
        "    if (bus[0x28 / 4] != 0x55667788u || bus[0x2c / 4] != 0x11223344u) return 2;",
        f"    if ({p}_limit_read(bus) != 0x1122334455667788ull) return 3;",
        f"    {p}_tunnel_key_write(bus, 3, 0xabcdu);",
        "    if (bus[(0x104 + 3 * 0x20) / 4] != 0xabcdu) return 4;",
        f"    if ({p}_ctrl_threshold_get({p}_ctrl_threshold_set(0, 0x7ffu)) != 0x7ffu) return 5;",
        f"    if ({p}_ctrl_threshold_set(0, 0xfffu) != (0x7ffu << 9)) return 6;",
        "    bus[0x14 / 4] = 7u; bus[0x10 / 4] = 9u;",
        f"    if ({p}_cycles_read(bus) != ((7ull << 32) | 9u)) return 7;",
        "    return 0;", "}",
    ]
    (tmp_path / "main.c").write_text('#include "regs.h"\n' + "\n".join(body) + "\n")
    exe = tmp_path / "main"
    proc = subprocess.run([_cc(), "-std=c11", "-Wall", "-Wextra", "-Werror", "-o", str(exe),
                           str(tmp_path / "main.c")], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert subprocess.run([str(exe)]).returncode == 0


def test_markdown_lists_every_register():
    for name, path in MAPS.items():
        rm = regs.load_file(path)
        text = regs.render_markdown(rm)
        for r in rm.registers:
            assert f"| {r.name} |" in text and f"### {r.name} (" in text
