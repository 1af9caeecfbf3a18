// fp_ts_tod: fp_time (Q48.16 ns) -> time of day as Linux pktgen writes it: whole seconds modulo
// 2^32 (tv_sec) and microseconds within the second (tv_usec), by constant-reciprocal
// multiplication, pipelined. The MACs' tester stamp (s_axis_ts_mode = 1) uses it.
//
// With ns = in_time[63:16] (the whole nanoseconds, 48 bits):
//     out_tv_sec  = floor(ns / 10^9)                   (< 281,475: the upper 13 bits are 0)
//     out_tv_usec = floor((ns mod 10^9) / 1000)        (0..999,999)
// exactly, for every input (fastpath.ptrain.frame.pktgen_time). The fraction bits are ignored.
//
// How. Two quotients by reciprocal multiplication, in parallel:
//     q = floor(n1 / D1), n1 = ns >> 9 (39 bits), D1 = 1,953,125 (10^9 = 2^9 * D1)
//     w = floor(n2 / D2), n2 = ns >> 3 (45 bits), D2 = 125       (10^3 = 2^3 * D2)
// (floor(floor(ns / 2^k) / d) = floor(ns / (2^k d))), so q = floor(ns / 10^9) and
// w = floor(ns / 1000) = 10^6 q + tv_usec. Only w mod 2^20 is computed, and
// tv_usec = (w - 10^6 q) mod 2^20 = (w + 48,576 q) mod 2^20 (48,576 = 2^20 - 10^6 = 759 * 2^6;
// tv_usec < 2^20), so only q mod 2^14 enters tv_usec.
//
// The bound. For a divisor d, an input n < 2^N and a shift s, take M = ceil(2^s / d) and
// e = M d - 2^s (0 <= e < d). Write n = q d + rho (0 <= rho < d). Then
//     n M = q 2^s + R,   R = (rho 2^s + n e) / d.
// The hardware computes X instead of n M, with 0 < X - n M <= C (C: a bound on what it leaves
// out or rounds, covered by a constant bias), so X = q 2^s + R + (X - n M).
// X >= q 2^s because R >= 0; X < (q + 1) 2^s if R + C < 2^s, and since
// R <= ((d - 1) 2^s + n e) / d, that holds when   n e + d C < 2^s   for every n < 2^N.
// Then floor(X / 2^s) = q exactly.
//   q: d = D1, N = 39, s = 60, M1 = 590,295,810,359 (40 bits), e = 574,899;
//   w: d = D2, N = 45, s = 50, M2 = 9,007,199,254,741 (44 bits), e = 1.
// Both variants sum the product in units of 2^T with the bits below dropped, so they need an
// adder tree; 759 q mod 2^14 and tv_sec = q come from its two last rows, z (wide) and y (small):
// q = (z >> K) + c with c the carry out of y + (z mod 2^K), and tv_usec = w + 2^6 (759 (z >> K)
// + 759 c) mod 2^20 (only q mod 2^14 counts), so no stage has q's adder and a product of q.
//
// USE_DSP = 0 (default): no multiplier, for 156.25 MHz on the ECP5 (an unregistered MULT18X18D,
// as synthesis infers it, takes 3.9 ns, which with the routing to and from it leaves no margin
// at 6.4 ns). Per nonzero digit of M's canonical signed-digit form (q: 13, w: 17), a row: n
// shifted, cut at the unit (q: T = 34, mod 2^45; w: T = 38, mod 2^32, w = bits 12..31); a
// negative digit's row is the ones' complement of its bits, its -2^width + 1 in a constant row.
// A positive row cut at the unit is short by less than one unit, a negative row exact in
// value (-floor) is over by less than one: with the P cut positive rows added back as a bias,
// 0 < X - n M < (P + Nneg) 2^T = C.
//   q: P = 5, Nneg = 6, C = 11 * 2^34: (2^39 - 1) e + D1 C = 6.85e17 < 2^60 = 1.15e18.
//   w: P = 9, Nneg = 6, C = 15 * 2^38: (2^45 - 1) e + 125 C = 5.50e14 < 2^50 = 1.13e15.
//   q's rows of width <= 26 (and the constant's bits below 2^26) are summed apart in y (< 2^28),
//   the others in z (mod 2^45): K = 26, c = 0..3. Carry-save adders (3 rows -> 2, one LUT level)
//   reduce the rows; one carry chain ends each sum.
//
// USE_DSP = 1: the products in 18-bit limbs (an ECP5 MULT18X18D each, unsigned; 8 of them):
// n = a0 + a1 2^18 + a2 2^36, M = m0 + m1 2^18 + m2 2^36. Left out, in both: a0 m0 (< 2^36)
// and the low 18 bits of a0 m1 and of a1 m0 (weight 2^18, so < 2^36 each): 0 < X - n M <= C =
// 3 * 2^36 with the bias 3 in units of 2^36 (T = 36), in which everything is summed from the
// products on.
//   q: (2^39 - 1) e + D1 C = 7.19e17 < 2^60;  w: (2^45 - 1) e + 125 C = 6.09e13 < 2^50.
//   q: m2 = M1 >> 36 = 8, so n1 m2 2^36 = (n1 << 3) 2^36, a shift; a2 (3 bits) times
//      M1 mod 2^36 is one of 8 constants (a table). DSPs: a0 m1, a1 m0, a1 m1. In units of 2^36,
//      X1 = y + z with y = (a0 m1 >> 18) + (a1 m0 >> 18) (< 2^19) and
//      z = a1 m1 + (n1 << 3) + 3 + table(a2) (< 2^43): K = 24, c = 0..1.
//   w: only bits 50..69 of X2 matter (w mod 2^20): in units of 2^36, X2 mod 2^34. m2 = 131, and
//      (a0 + a1 2^18) m2 mod 2^34 = (n2 mod 2^34) * 131 = (n2 << 7) + (n2 << 1) + n2 (adders);
//      a2 m2 has weight 2^72 (left out exactly). DSPs: a0 m1, a1 m0, a1 m1, a2 m0, a2 m1
//      (the last kept mod 2^16, weight 2^54).
//   On the ECP5 the multiplier stage (a register, the MULT18X18D, a register) bounds it at about
//   135 MHz: enough for 125 MHz with a third of the LUTs of USE_DSP = 0.
//
// Pipeline (a register after each step; every step is at most three LUT levels, or one carry
// chain with at most one carry-save level before it, or (USE_DSP = 1) one multiplier):
//   1 input (n2 = in_time[63:19]; n1 = n2 >> 6)
//   2 USE_DSP = 0: three carry-save levels (y 8 rows -> 3, z 7 -> 3, w 18 -> 6);
//     USE_DSP = 1: the products; (n1 << 3) + 3 + table(a2); (n2 << 7) + (n2 << 1) + n2 + 3
//   3 0: y, z (3 -> 2 rows, one adder each); w 6 -> 3 rows.  1: y; z; three sums of two for w
//   4 z >> K, c (y + (z mod 2^K)), k = 759 (z >> K) mod 2^14, w (3 rows -> 2, one adder)
//   5 tv_sec = (z >> K) + c; tv_usec = w + 2^6 (k + 759 c) mod 2^20
//
// Latency:    5 cycles: in_valid high in cycle c -> out_valid high, with that input's result on
//             out_tv_sec / out_tv_usec, in cycle c + 5. The outputs hold until the next result.
// Throughput: one conversion per cycle (in_valid may be high every cycle).
// Bad input:  none: every 64-bit value is a valid fp_time (the 16 fraction bits are ignored).
// Parameters: USE_DSP 0 or 1 (same results and latency; see above).
`default_nettype none

module fp_ts_tod #(
    parameter USE_DSP = 0
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        in_valid,
    /* verilator lint_off UNUSEDSIGNAL */
    input  wire [63:0] in_time,     // bits [18:0] (fractions, and ns mod 8) do not change the result
    /* verilator lint_on UNUSEDSIGNAL */

    output reg         out_valid,
    output reg  [31:0] out_tv_sec,
    output reg  [31:0] out_tv_usec
);

    generate
        if (USE_DSP != 0 && USE_DSP != 1) begin : g_bad_use_dsp
            PARAMETER_ERROR_USE_DSP_must_be_0_or_1 u_error();
        end
    endgenerate

    localparam [39:0] M1 = 40'd590295810359;    // ceil(2^60 / 1,953,125)
    localparam [43:0] M2 = 44'd9007199254741;   // ceil(2^50 / 125)

    reg  [4:1] v;  // valid of stages 1..4

    // ---- 1: input ------------------------------------------------------------------------------
    reg  [44:0] n2_q;   // ns >> 3; n1 = ns >> 9 = n2 >> 6
    wire [38:0] n1 = n2_q[44:6];

    // ---- 2, 3: per variant; what stage 4 takes from stage 3: ----------------------------------
    wire [18:0] zh3;    // z >> K (q = z >> K + c)
    wire [1:0]  c3;     // c, the carry out of y + (z mod 2^K) (USE_DSP = 1: 0..1; 0: 0..3)
    wire [13:0] kx3;    // (z >> K) mod 2^14
    wire [19:0] w3;     // w mod 2^20

    generate
        if (USE_DSP) begin : g_dsp
            // reciprocals in 18-bit limbs, widened to the products' 36 bits (the products are
            // written with operands of the result's width; synthesis narrows them again)
            localparam [35:0] M1_0 = {18'd0, M1[17:0]};
            localparam [35:0] M1_1 = {18'd0, M1[35:18]};
            localparam [35:0] M2_0 = {18'd0, M2[17:0]};
            localparam [35:0] M2_1 = {18'd0, M2[35:18]};
            // a2 (M1 mod 2^36) for a2 = 0..7 (< 2^39): a LUT3 per bit (written as masks, not as
            // a product, which synthesis would give a multiplier)
            localparam [38:0] T1 = {3'd0, M1[35:0]};
            localparam [38:0] T2 = T1 + T1;
            localparam [38:0] T3 = T2 + T1;
            localparam [38:0] T4 = T3 + T1;
            localparam [38:0] T5 = T4 + T1;
            localparam [38:0] T6 = T5 + T1;
            localparam [38:0] T7 = T6 + T1;
            wire [2:0]  a2 = n1[38:36];
            wire [38:0] tab = ({39{a2 == 3'd1}} & T1) | ({39{a2 == 3'd2}} & T2) | ({39{a2 == 3'd3}} & T3) |
                              ({39{a2 == 3'd4}} & T4) | ({39{a2 == 3'd5}} & T5) | ({39{a2 == 3'd6}} & T6) |
                              ({39{a2 == 3'd7}} & T7);
            // limbs of n1 (a) and n2 (b), widened to 36 bits
            wire [35:0] a0 = {18'd0, n1[17:0]};
            wire [35:0] a1 = {18'd0, n1[35:18]};
            wire [35:0] b0 = {18'd0, n2_q[17:0]};
            wire [35:0] b1 = {18'd0, n2_q[35:18]};
            wire [35:0] b2 = {27'd0, n2_q[44:36]};

            // Lint: products and sums are wider than the bits kept (the low 18 bits of a0 m1 and
            // friends, w's bits past 2^34, the carry-save carries out of the top).
            /* verilator lint_off UNUSEDSIGNAL */
            // ---- 2: products; (n1 << 3 | 3) + table(a2); (n2 << 7 | 3) + (n2 << 1) + n2 ----
            wire [35:0] pa01 = a0 * M1_1;
            wire [35:0] pa10 = a1 * M1_0;
            wire [35:0] pa11 = a1 * M1_1;
            wire [35:0] pb01 = b0 * M2_1;
            wire [35:0] pb10 = b1 * M2_0;
            wire [35:0] pb11 = b1 * M2_1;
            wire [35:0] pb20 = b2 * M2_0;
            wire [35:0] pb21 = b2 * M2_1;
            reg  [17:0] pa01_q, pa10_q;   // >> 18
            reg  [35:0] pa11_q;
            reg  [42:0] s1_q;             // (n1 << 3) + 3 + table(a2)
            reg  [16:0] pb01_q;           // >> 18 (18 x 15 bits)
            reg  [16:0] pb10_q;           // >> 18 (18 x 17 bits)
            reg  [32:0] pb11_q;           // 18 x 15 bits
            reg  [25:0] pb20_q;           // 9 x 17 bits
            reg  [15:0] pb21_q;           // mod 2^16
            reg  [33:0] f_q;              // (n2 * 131 + 3) mod 2^34
            wire [33:0] f_x = {n2_q[26:0], 7'd3};
            wire [33:0] f_y = {n2_q[32:0], 1'b0};
            wire [33:0] f_z = n2_q[33:0];
            wire [33:0] f_s = f_x ^ f_y ^ f_z;
            wire [33:0] f_c = {(f_x[32:0] & f_y[32:0]) | (f_x[32:0] & f_z[32:0]) | (f_y[32:0] & f_z[32:0]), 1'b0};

            // ---- 3: sums of two ----
            reg  [18:0] y_q;              // (a0 m1 >> 18) + (a1 m0 >> 18)
            reg  [42:0] z_q;              // a1 m1 + (n1 << 3) + 3 + table(a2)
            reg  [33:0] r1_q, r2_q, r3_q; // w's, mod 2^34
            wire [24:0] c_sum = {6'd0, y_q} + {1'b0, z_q[23:0]};
            wire [33:0] w_s = r1_q ^ r2_q ^ r3_q;
            wire [33:0] w_c = {(r1_q[32:0] & r2_q[32:0]) | (r1_q[32:0] & r3_q[32:0]) | (r2_q[32:0] & r3_q[32:0]), 1'b0};
            wire [33:0] x2  = w_s + w_c;
            /* verilator lint_on UNUSEDSIGNAL */
            assign zh3 = z_q[42:24];
            assign c3  = {1'b0, c_sum[24]};
            assign kx3 = z_q[37:24];
            assign w3  = x2[33:14];

            always @(posedge clk) begin
                pa01_q <= pa01[35:18];
                pa10_q <= pa10[35:18];
                pa11_q <= pa11;
                s1_q   <= {1'b0, n1, 3'd3} + {4'd0, tab};
                pb01_q <= pb01[34:18];
                pb10_q <= pb10[34:18];
                pb11_q <= pb11[32:0];
                pb20_q <= pb20[25:0];
                pb21_q <= pb21[15:0];
                f_q    <= f_s + f_c;

                y_q  <= {1'b0, pa01_q} + {1'b0, pa10_q};
                z_q  <= {7'd0, pa11_q} + s1_q;
                r1_q <= {17'd0, pb01_q} + {17'd0, pb10_q};
                r2_q <= {1'b0, pb11_q} + {8'd0, pb20_q};
                r3_q <= f_q + {pb21_q, 18'd0};
            end
        end else begin : g_lut
            // Rows of the sums (see the header): q's in units of 2^34, split in those of width
            // <= 26 (summed in y, < 2^28) and the wider ones (z, mod 2^45); w's in units of 2^38,
            // mod 2^32. Per nonzero digit of M's canonical signed-digit form, the input shifted
            // (truncated at the unit); a negative digit's row is its ones' complement within the
            // row's width, the 1 - 2^width going into the constant row, with the bias.
            // Lint: the carry-save carries out of the top, and the sums' bits below q and w.
            /* verilator lint_off UNUSEDSIGNAL */
            // ---- 2: carry save, three levels: y 8 -> 3 rows, z 7 -> 3, w 18 -> 6 ----
            // q, rows of width <= 26 (their sum y < 2^28) and wider (z, mod 2^45)
            localparam [28:0] YCONST = 29'h3dffeeb;
            localparam [44:0] ZCONST = 45'h1fedf8000000;
            localparam [31:0] WCONST = 32'h6fbbe00f;
            wire [28:0] yr0 = {24'd0, ~n1[38:34]};   // k = 0
            wire [28:0] yr1 = {21'd0, ~n1[38:31]};   // k = 3
            wire [28:0] yr2 = {18'd0, n1[38:28]};   // k = 6
            wire [28:0] yr3 = {16'd0, n1[38:26]};   // k = 8
            wire [28:0] yr4 = {10'd0, n1[38:20]};   // k = 14
            wire [28:0] yr5 = {8'd0, ~n1[38:18]};   // k = 16
            wire [28:0] yr6 = {3'd0, ~n1[38:13]};   // k = 21
            wire [28:0] y1s0 = YCONST ^ yr0 ^ yr1;
            wire [28:0] y1c0 = {(YCONST[27:0] & yr0[27:0]) | (YCONST[27:0] & yr1[27:0]) | (yr0[27:0] & yr1[27:0]), 1'b0};
            wire [28:0] y1s1 = yr2 ^ yr3 ^ yr4;
            wire [28:0] y1c1 = {(yr2[27:0] & yr3[27:0]) | (yr2[27:0] & yr4[27:0]) | (yr3[27:0] & yr4[27:0]), 1'b0};
            wire [28:0] y2s0 = y1s0 ^ y1c0 ^ y1s1;
            wire [28:0] y2c0 = {(y1s0[27:0] & y1c0[27:0]) | (y1s0[27:0] & y1s1[27:0]) | (y1c0[27:0] & y1s1[27:0]), 1'b0};
            wire [28:0] y2s1 = y1c1 ^ yr5 ^ yr6;
            wire [28:0] y2c1 = {(y1c1[27:0] & yr5[27:0]) | (y1c1[27:0] & yr6[27:0]) | (yr5[27:0] & yr6[27:0]), 1'b0};
            wire [28:0] y3s0 = y2s0 ^ y2c0 ^ y2s1;
            wire [28:0] y3c0 = {(y2s0[27:0] & y2c0[27:0]) | (y2s0[27:0] & y2s1[27:0]) | (y2c0[27:0] & y2s1[27:0]), 1'b0};
            wire [44:0] zr0 = {17'd0, n1[38:11]};   // k = 23
            wire [44:0] zr1 = {12'd0, ~n1[38:6]};   // k = 28
            wire [44:0] zr2 = {9'd0, ~n1[38:3]};   // k = 31
            wire [44:0] zr3 = {7'd0, n1[38:1]};   // k = 33
            wire [44:0] zr4 = {5'd0, {n1[38:0], 1'd0}};   // k = 35
            wire [44:0] zr5 = {1'd0, {n1[38:0], 5'd0}};   // k = 39
            wire [44:0] z1s0 = ZCONST ^ zr0 ^ zr1;
            wire [44:0] z1c0 = {(ZCONST[43:0] & zr0[43:0]) | (ZCONST[43:0] & zr1[43:0]) | (zr0[43:0] & zr1[43:0]), 1'b0};
            wire [44:0] z1s1 = zr2 ^ zr3 ^ zr4;
            wire [44:0] z1c1 = {(zr2[43:0] & zr3[43:0]) | (zr2[43:0] & zr4[43:0]) | (zr3[43:0] & zr4[43:0]), 1'b0};
            wire [44:0] z2s0 = z1s0 ^ z1c0 ^ z1s1;
            wire [44:0] z2c0 = {(z1s0[43:0] & z1c0[43:0]) | (z1s0[43:0] & z1s1[43:0]) | (z1c0[43:0] & z1s1[43:0]), 1'b0};
            wire [44:0] z3s0 = z2s0 ^ z2c0 ^ z1c1;
            wire [44:0] z3c0 = {(z2s0[43:0] & z2c0[43:0]) | (z2s0[43:0] & z1c1[43:0]) | (z2c0[43:0] & z1c1[43:0]), 1'b0};
            wire [31:0] wr0 = {25'd0, n2_q[44:38]};   // k = 0
            wire [31:0] wr1 = {23'd0, n2_q[44:36]};   // k = 2
            wire [31:0] wr2 = {21'd0, n2_q[44:34]};   // k = 4
            wire [31:0] wr3 = {19'd0, ~n2_q[44:32]};   // k = 6
            wire [31:0] wr4 = {17'd0, n2_q[44:30]};   // k = 8
            wire [31:0] wr5 = {14'd0, ~n2_q[44:27]};   // k = 11
            wire [31:0] wr6 = {10'd0, ~n2_q[44:23]};   // k = 15
            wire [31:0] wr7 = {8'd0, n2_q[44:21]};   // k = 17
            wire [31:0] wr8 = {6'd0, n2_q[44:19]};   // k = 19
            wire [31:0] wr9 = {4'd0, ~n2_q[44:17]};   // k = 21
            wire [31:0] wr10 = {1'd0, ~n2_q[44:14]};   // k = 24
            wire [31:0] wr11 = n2_q[42:11];   // k = 27
            wire [31:0] wr12 = n2_q[40:9];   // k = 29
            wire [31:0] wr13 = n2_q[37:6];   // k = 32
            wire [31:0] wr14 = ~n2_q[33:2];   // k = 36
            wire [31:0] wr15 = n2_q[31:0];   // k = 38
            wire [31:0] wr16 = {n2_q[26:0], 5'd0};   // k = 43
            wire [31:0] w1s0 = WCONST ^ wr0 ^ wr1;
            wire [31:0] w1c0 = {(WCONST[30:0] & wr0[30:0]) | (WCONST[30:0] & wr1[30:0]) | (wr0[30:0] & wr1[30:0]), 1'b0};
            wire [31:0] w1s1 = wr2 ^ wr3 ^ wr4;
            wire [31:0] w1c1 = {(wr2[30:0] & wr3[30:0]) | (wr2[30:0] & wr4[30:0]) | (wr3[30:0] & wr4[30:0]), 1'b0};
            wire [31:0] w1s2 = wr5 ^ wr6 ^ wr7;
            wire [31:0] w1c2 = {(wr5[30:0] & wr6[30:0]) | (wr5[30:0] & wr7[30:0]) | (wr6[30:0] & wr7[30:0]), 1'b0};
            wire [31:0] w1s3 = wr8 ^ wr9 ^ wr10;
            wire [31:0] w1c3 = {(wr8[30:0] & wr9[30:0]) | (wr8[30:0] & wr10[30:0]) | (wr9[30:0] & wr10[30:0]), 1'b0};
            wire [31:0] w1s4 = wr11 ^ wr12 ^ wr13;
            wire [31:0] w1c4 = {(wr11[30:0] & wr12[30:0]) | (wr11[30:0] & wr13[30:0]) | (wr12[30:0] & wr13[30:0]), 1'b0};
            wire [31:0] w1s5 = wr14 ^ wr15 ^ wr16;
            wire [31:0] w1c5 = {(wr14[30:0] & wr15[30:0]) | (wr14[30:0] & wr16[30:0]) | (wr15[30:0] & wr16[30:0]), 1'b0};
            wire [31:0] w2s0 = w1s0 ^ w1c0 ^ w1s1;
            wire [31:0] w2c0 = {(w1s0[30:0] & w1c0[30:0]) | (w1s0[30:0] & w1s1[30:0]) | (w1c0[30:0] & w1s1[30:0]), 1'b0};
            wire [31:0] w2s1 = w1c1 ^ w1s2 ^ w1c2;
            wire [31:0] w2c1 = {(w1c1[30:0] & w1s2[30:0]) | (w1c1[30:0] & w1c2[30:0]) | (w1s2[30:0] & w1c2[30:0]), 1'b0};
            wire [31:0] w2s2 = w1s3 ^ w1c3 ^ w1s4;
            wire [31:0] w2c2 = {(w1s3[30:0] & w1c3[30:0]) | (w1s3[30:0] & w1s4[30:0]) | (w1c3[30:0] & w1s4[30:0]), 1'b0};
            wire [31:0] w2s3 = w1c4 ^ w1s5 ^ w1c5;
            wire [31:0] w2c3 = {(w1c4[30:0] & w1s5[30:0]) | (w1c4[30:0] & w1c5[30:0]) | (w1s5[30:0] & w1c5[30:0]), 1'b0};
            wire [31:0] w3s0 = w2s0 ^ w2c0 ^ w2s1;
            wire [31:0] w3c0 = {(w2s0[30:0] & w2c0[30:0]) | (w2s0[30:0] & w2s1[30:0]) | (w2c0[30:0] & w2s1[30:0]), 1'b0};
            wire [31:0] w3s1 = w2c1 ^ w2s2 ^ w2c2;
            wire [31:0] w3c1 = {(w2c1[30:0] & w2s2[30:0]) | (w2c1[30:0] & w2c2[30:0]) | (w2s2[30:0] & w2c2[30:0]), 1'b0};
            reg  [28:0] y0_q, y1_q, y2_q;
            reg  [44:0] z0_q, z1_q, z2_q;
            reg  [31:0] w0_q, w1_q, w2_q, w3_q, w4_q, w5_q;
            // ---- 3: y and z: 3 -> 2 rows, one adder; w: 6 -> 3 rows ----
            wire [28:0] ya_s = y0_q ^ y1_q ^ y2_q;
            wire [28:0] ya_c = {(y0_q[27:0] & y1_q[27:0]) | (y0_q[27:0] & y2_q[27:0]) | (y1_q[27:0] & y2_q[27:0]), 1'b0};
            wire [44:0] za_s = z0_q ^ z1_q ^ z2_q;
            wire [44:0] za_c = {(z0_q[43:0] & z1_q[43:0]) | (z0_q[43:0] & z2_q[43:0]) | (z1_q[43:0] & z2_q[43:0]), 1'b0};
            wire [31:0] wa_s = w0_q ^ w1_q ^ w2_q;
            wire [31:0] wa_c = {(w0_q[30:0] & w1_q[30:0]) | (w0_q[30:0] & w2_q[30:0]) | (w1_q[30:0] & w2_q[30:0]), 1'b0};
            wire [31:0] wb_s = w3_q ^ w4_q ^ w5_q;
            wire [31:0] wb_c = {(w3_q[30:0] & w4_q[30:0]) | (w3_q[30:0] & w5_q[30:0]) | (w4_q[30:0] & w5_q[30:0]), 1'b0};
            wire [31:0] wc_s = wa_s ^ wa_c ^ wb_s;
            wire [31:0] wc_c = {(wa_s[30:0] & wa_c[30:0]) | (wa_s[30:0] & wb_s[30:0]) | (wa_c[30:0] & wb_s[30:0]), 1'b0};
            reg  [27:0] y_q;
            reg  [44:0] z_q;
            reg  [31:0] wd0_q, wd1_q, wd2_q;
            // ---- 4 (its part here): c = (y + z mod 2^26) >> 26 (0..3); w: 3 -> 2 rows, one adder ----
            wire [28:0] c_sum = {1'b0, y_q} + {3'd0, z_q[25:0]};
            wire [31:0] we_s = wd0_q ^ wd1_q ^ wd2_q;
            wire [31:0] we_c = {(wd0_q[30:0] & wd1_q[30:0]) | (wd0_q[30:0] & wd2_q[30:0]) | (wd1_q[30:0] & wd2_q[30:0]), 1'b0};
            wire [31:0] x2   = we_s + we_c;
            wire [28:0] y_sum = ya_s + ya_c;
            /* verilator lint_on UNUSEDSIGNAL */
            assign zh3 = z_q[44:26];
            assign c3  = c_sum[27:26];
            assign kx3 = z_q[39:26];
            assign w3  = x2[31:12];

            always @(posedge clk) begin
                y0_q  <= y3s0;
                y1_q  <= y3c0;
                y2_q  <= y2c1;
                z0_q  <= z3s0;
                z1_q  <= z3c0;
                z2_q  <= zr5;
                w0_q  <= w3s0;
                w1_q  <= w3c0;
                w2_q  <= w3s1;
                w3_q  <= w3c1;
                w4_q  <= w2s3;
                w5_q  <= w2c3;
                y_q   <= y_sum[27:0];
                z_q   <= za_s + za_c;
                wd0_q <= wc_s;
                wd1_q <= wc_c;
                wd2_q <= wb_c;
            end
        end
    endgenerate

    // ---- 4: k = 759 kx mod 2^14 = (kx << 9) + (kx << 8) - (kx << 3) - kx (mod 2^14) ----------
    reg  [18:0] zh_q;
    reg  [1:0]  c_q;
    reg  [13:0] k_q;
    reg  [19:0] w_q;              // floor(ns / 1000) mod 2^20

    // ---- 5: tv_sec = zh + c; tv_usec = w + 2^6 (k + 759 c) (mod 2^20) -------------------------
    wire [13:0] c759 = ({14{c_q == 2'd1}} & 14'd759) | ({14{c_q == 2'd2}} & 14'd1518) |
                       ({14{c_q == 2'd3}} & 14'd2277);

    always @(posedge clk) begin
        v <= {v[3:1], in_valid};

        n2_q <= in_time[63:19];  // every cycle: in_valid fans out to one flop only

        zh_q <= zh3;
        c_q  <= c3;
        k_q  <= ({kx3[4:0], 9'd0} + {kx3[5:0], 8'd0}) - ({kx3[10:0], 3'd0} + kx3);
        w_q  <= w3;

        out_valid <= v[4];
        if (v[4]) begin
            out_tv_sec  <= {13'd0, zh_q + {17'd0, c_q}};
            out_tv_usec <= {12'd0, w_q[19:6] + k_q + c759, w_q[5:0]};
        end

        if (rst) begin
            v           <= 4'd0;
            out_valid   <= 1'b0;
            out_tv_sec  <= 32'd0;
            out_tv_usec <= 32'd0;
        end
    end

endmodule

`default_nettype wire
