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
// tv_usec = (w - 10^6 q) mod 2^20 = (w + 48,576 q) mod 2^20 (48,576 = 2^20 - 10^6; tv_usec < 2^20).
//
// The bound. For a divisor d, an input n < 2^N and a shift s, take M = ceil(2^s / d) and
// e = M d - 2^s (0 <= e < d). Write n = q d + rho (0 <= rho < d). Then
//     n M = q 2^s + R,   R = (rho 2^s + n e) / d.
// The hardware computes X = n M - delta + C instead (delta: the partial products it leaves out,
// 0 <= delta < C; C: a constant bias), so X = q 2^s + R + (C - delta) with 0 < C - delta <= C.
// X >= q 2^s because R >= 0; X < (q + 1) 2^s if R + C < 2^s, and since
// R <= ((d - 1) 2^s + n e) / d, that holds when   n e + d C < 2^s   for every n < 2^N.
// Then floor(X / 2^s) = q exactly.
//   q: d = D1, N = 39, s = 60, M1 = 590,295,810,359 (40 bits), e = 574,899, C = 2^35:
//      (2^39 - 1) e + D1 2^35 = 3.83e17 < 2^60 = 1.15e18.
//   w: d = D2, N = 45, s = 50, M2 = 9,007,199,254,741 (44 bits), e = 1, C = 2^35:
//      (2^45 - 1) + 125 * 2^35 = 3.95e13 < 2^50 = 1.13e15.
// The products are cut in 17-bit limbs (a DSP each on ECP5 and 7-series: 17 bits unsigned fit a
// signed 18-bit port): n = a0 + a1 2^17 + a2 2^34, M = m0 + m1 2^17 + m2 2^34. Left out, in both:
// a0 m0 (< 2^34) and the low 17 bits of G1 = a0 m1 + a1 m0 (weight 2^17, so < 2^34): delta < 2^35.
// For w only bits 50..69 of X matter (w mod 2^20), so the products of weight 2^51 are kept mod
// 2^19 and a2 m2 (weight 2^68) mod 4, which is 0 (m2 = 0x20C).
//
// Pipeline (a register after each step):
//   1 input (ns)   2 the limb products   3 three partial sums per quotient (weights 2^17, 2^34,
//   2^51)   4 X: q and w mod 2^20   5 tv_usec = w + 48,576 q (mod 2^20), tv_sec = q.
//
// Latency:    5 cycles: in_valid high in cycle c -> out_valid high, with that input's result on
//             out_tv_sec / out_tv_usec, in cycle c + 5. The outputs hold until the next result.
// Throughput: one conversion per cycle (in_valid may be high every cycle).
// Bad input:  none: every 64-bit value is a valid fp_time (the 16 fraction bits are ignored).
// Parameters: none.
`default_nettype none

module fp_ts_tod (
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

    // reciprocals (see the bound above), in 17-bit limbs (widened: products are written with
    // operands of the result's width, which synthesis narrows again)
    localparam [39:0] M1 = 40'd590295810359;    // ceil(2^60 / 1,953,125)
    localparam [43:0] M2 = 44'd9007199254741;   // ceil(2^50 / 125)
    localparam [33:0] M1_0 = {17'd0, M1[16:0]};
    localparam [33:0] M1_1 = {17'd0, M1[33:17]};
    localparam [33:0] M1_2 = {28'd0, M1[39:34]};
    localparam [33:0] M2_0 = {17'd0, M2[16:0]};
    localparam [33:0] M2_1 = {17'd0, M2[33:17]};
    localparam [33:0] M2_2 = {24'd0, M2[43:34]};

    reg  [4:1] v;  // valid of stages 1..4

    // ---- 1: input ------------------------------------------------------------------------------
    reg  [44:0] n2_q;   // ns >> 3; n1 = ns >> 9 = n2 >> 6

    // limbs of n1 (a) and n2 (b), widened to 34 bits
    wire [33:0] a0 = {17'd0, n2_q[22:6]};
    wire [33:0] a1 = {17'd0, n2_q[39:23]};
    wire [33:0] a2 = {29'd0, n2_q[44:40]};
    wire [33:0] b0 = {17'd0, n2_q[16:0]};
    wire [33:0] b1 = {17'd0, n2_q[33:17]};
    wire [33:0] b2 = {23'd0, n2_q[44:34]};

    // ---- 2: limb products (the a0 m0 / b0 m0 products are left out: see the bound) -------------
    reg  [33:0] p_a0m1, p_a1m0, p_a1m1, p_b0m1, p_b1m0, p_b1m1;
    reg  [22:0] p_a0m2, p_a1m2;   // 17 x 6 bits
    reg  [21:0] p_a2m0, p_a2m1;   // 5 x 17
    reg  [10:0] p_a2m2;           // 5 x 6
    reg  [26:0] p_b0m2;           // 17 x 10
    reg  [27:0] p_b2m0;           // 11 x 17
    reg  [18:0] p_b1m2, p_b2m1;   // weight 2^51: mod 2^19 (only bits below 2^70 matter)

    // Lint: the products below are wider than their values (or than the bits kept, mod 2^19), the
    // weight-2^17 sums keep only their bits from 2^34 up, and X keeps only the quotient bits.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [33:0] a0m2 = a0 * M1_2;
    wire [33:0] a1m2 = a1 * M1_2;
    wire [33:0] a2m0 = a2 * M1_0;
    wire [33:0] a2m1 = a2 * M1_1;
    wire [33:0] a2m2 = a2 * M1_2;
    wire [33:0] b0m2 = b0 * M2_2;
    wire [33:0] b2m0 = b2 * M2_0;
    wire [33:0] b1m2 = b1 * M2_2;
    wire [33:0] b2m1 = b2 * M2_1;

    // ---- 3: partial sums of weight 2^17 (only their bits from 2^34 up are kept), 2^34, 2^51 ---
    wire [34:0] g1_sum = {1'b0, p_a0m1} + {1'b0, p_a1m0};
    wire [34:0] h1_sum = {1'b0, p_b0m1} + {1'b0, p_b1m0};
    reg  [17:0] g1, h1;   // the sums / 2^17
    reg  [35:0] g2, h2;   // h2 mod 2^36
    reg  [27:0] g3;       // < 2^28: a1 m2 < 2^23, a2 m1 < 2^21, a2 m2 2^17 < 2^28 - 2^24
    reg  [18:0] h3;       // mod 2^19

    // ---- 4: X / 2^34 = G1 / 2^17 + G2 + G3 * 2^17 + C / 2^34 (C = 2^35); q = X / 2^60 -------
    wire [44:0] x1 = {27'd0, g1} + {9'd0, g2} + {g3, 17'd0} + 45'd2;    // < 2^45
    wire [35:0] x2 = {18'd0, h1} + h2 + {h3, 17'd0} + 36'd2;                 // mod 2^36
    /* verilator lint_on UNUSEDSIGNAL */
    reg  [18:0] q_q;      // floor(ns / 10^9)
    reg  [19:0] w_q;      // floor(ns / 1000) mod 2^20

    // ---- 5: tv_usec = w + 48,576 q = w + 2^16 q - 2^14 q - 2^9 q - 2^6 q (mod 2^20) -------------
    wire [19:0] q20  = {1'b0, q_q};
    wire [19:0] usec = w_q + (q20 << 16) - (q20 << 14) - (q20 << 9) - (q20 << 6);

    always @(posedge clk) begin
        v <= {v[3:1], in_valid};

        n2_q <= in_time[63:19];  // every cycle: in_valid fans out to one flop only

        p_a0m1 <= a0 * M1_1;
        p_a1m0 <= a1 * M1_0;
        p_a1m1 <= a1 * M1_1;
        p_a0m2 <= a0m2[22:0];
        p_a1m2 <= a1m2[22:0];
        p_a2m0 <= a2m0[21:0];
        p_a2m1 <= a2m1[21:0];
        p_a2m2 <= a2m2[10:0];
        p_b0m1 <= b0 * M2_1;
        p_b1m0 <= b1 * M2_0;
        p_b1m1 <= b1 * M2_1;
        p_b0m2 <= b0m2[26:0];
        p_b2m0 <= b2m0[27:0];
        p_b1m2 <= b1m2[18:0];
        p_b2m1 <= b2m1[18:0];

        g1 <= g1_sum[34:17];
        h1 <= h1_sum[34:17];
        g2 <= {2'd0, p_a1m1} + {13'd0, p_a0m2} + {14'd0, p_a2m0};
        h2 <= {2'd0, p_b1m1} + {9'd0, p_b0m2} + {8'd0, p_b2m0};
        g3 <= {5'd0, p_a1m2} + {6'd0, p_a2m1} + {p_a2m2, 17'd0};
        h3 <= p_b1m2 + p_b2m1;

        q_q <= x1[44:26];
        w_q <= x2[35:16];

        out_valid <= v[4];
        if (v[4]) begin
            out_tv_sec  <= {13'd0, q_q};
            out_tv_usec <= {12'd0, usec};
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
