"""fp_p4_tcam_cascade: TCAMs of 64, 128 and 15 entries built from fp_p4_tcam blocks and a tree of
fp_p4_tcam_merge, checked as one TCAM by the cocotb tests of test_p4_tcam.py (imported below:
cocotb runs the tests it finds in this module). The reference is the same one-table model: the
lowest index over ALL blocks wins, a lookup sees the writes presented two or more cycles before
its key in every block, the latency is the block's plus one cycle per merge level (asserted exactly), and a
write beyond the last entry raises wr_bad. Random traffic, LPM routes spread over the blocks,
write hazards and reset, with the same random timing (no backpressure: a valid-only pipeline).
"""
import pytest

from fastpath.sim import runner
from test_p4_tcam import lpm_routes, random_traffic, reset_clears, write_hazards  # noqa: F401 (cocotb tests)

CONFIGS = {
    # name: KEY_WIDTH, BLOCK_ENTRIES, BLOCKS, ACTION_WIDTH, CMP_CHUNK, AND_RADIX, ENC_RADIX; latency
    "64_2x32_k104": (104, 32, 2, 16, 4, 4, 4),    # 8 + 1
    "128_4x32_k24": (24, 32, 4, 8, 4, 4, 4),      # 7 + 2
    "15_3x5_k16": (16, 5, 3, 4, 4, 2, 2),         # odd merge tree, 5-entry blocks, bad index 15: 7 + 2
}


@pytest.mark.parametrize("config", list(CONFIGS))
def test_p4_tcam_cascade(config):
    kw, block, blocks, aw, chunk, and_radix, enc_radix = CONFIGS[config]
    runner.run("fp_p4_tcam_cascade", __name__, {"KEY_WIDTH": kw, "BLOCK_ENTRIES": block, "BLOCKS": blocks,
                                                "ACTION_WIDTH": aw, "CMP_CHUNK": chunk, "AND_RADIX": and_radix,
                                                "ENC_RADIX": enc_radix})
