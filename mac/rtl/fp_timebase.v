// fp_timebase: the project's clock, fp_time (Q48.16 ns) in one clock domain.
//
// `now` counts nanoseconds in Q48.16 (bits [63:16] whole ns, [15:0] 1/65,536 ns) and advances by
// the clock period every cycle. The period is the rational PERIOD_NUM / PERIOD_DEN ns (8/1 for
// 125 MHz, 32/5 for 156.25 MHz, 5/1 for 200 MHz). Internally the count has 16 more fraction bits
// (Q48.32, units of 2^-32 ns) and the per-cycle increment is
//     INC = floor(PERIOD_NUM * 2^32 / PERIOD_DEN)  plus one unit in REM of every PERIOD_DEN cycles,
// where REM = (PERIOD_NUM * 2^32) mod PERIOD_DEN, chosen by a remainder accumulator. After n cycles
// from a load the count is exactly set_time * 2^16 + floor(n * PERIOD_NUM * 2^32 / PERIOD_DEN): the
// time never drifts from the nominal period, whatever the period.
//
// set_valid:  loads set_time; `now` shows set_time in the cycle after set_valid is sampled, then
//             advances from there. The extra fraction bits and the remainder are cleared.
// adj_valid:  loads the rate offset adj_delta (signed, units of 2^-32 ns per cycle; it REPLACES the
//             previous offset, it does not accumulate). The step after the one at the adj_valid
//             edge still uses the old offset; from the second cycle on every step is the nominal
//             increment plus adj_delta. Range +-0.5 ns per cycle (+-6 % at 8 ns); one unit is
//             2^-32 ns per cycle, 0.03 ppb at 125 MHz. Reset clears it to 0.
// now_next:   the value `now` takes at the next edge (combinational: reset, set or count + step);
//             a register loaded with it every cycle equals `now` in every cycle.
// pps:        asynchronous input, synchronized by fp_sync_level (2 flops). On each rising edge
//             pps_valid pulses for one cycle with pps_time = the value `now` showed in the
//             cycle that began with the clock edge at which the first synchronizer flop first
//             sampled pps high (with `now` aligned so that after edge k it reads the time of
//             edge k, that is the time of that edge: the PPS rose within the cycle before it).
//             pps_valid rises 2 cycles after that edge. pps must stay high for at least 3
//             cycles and low for at least 3 cycles between pulses.
//
// Latency:    set: 1 cycle (set_valid sampled -> now == set_time). adj: 2 cycles (the first step
//             with the new offset is the second edge after adj_valid). pps: 2 cycles from the
//             sampling edge to pps_valid.
// Throughput: one step per cycle; set/adj may be given every cycle. The next step (increment,
//             remainder carry and offset) is prepared a cycle ahead and the remainder carry two
//             cycles ahead, so every register has a single adder in front of it.
// Bad input:  set_valid and adj_valid in the same cycle: both take effect (the set defines `now`
//             for the next cycle; the first step after it still uses the old offset). A pps
//             glitch shorter than a cycle may be missed (it is a 1-cycle-resolution input).
// Parameters: PERIOD_NUM >= 1, PERIOD_DEN 1..65535, PERIOD_NUM / PERIOD_DEN < 65,536 ns and the
//             period at least 1 ns (PERIOD_NUM >= PERIOD_DEN).
`default_nettype none

module fp_timebase #(
    parameter PERIOD_NUM = 8,
    parameter PERIOD_DEN = 1
) (
    input  wire        clk,
    input  wire        rst,

    output wire [63:0] now,
    output wire [63:0] now_next,

    input  wire        set_valid,
    input  wire [63:0] set_time,

    input  wire        adj_valid,
    input  wire [31:0] adj_delta,

    input  wire        pps,
    output reg         pps_valid,
    output reg  [63:0] pps_time
);

    generate
        if (PERIOD_NUM < 1) begin : g_bad_num
            PARAMETER_ERROR_PERIOD_NUM_must_be_at_least_1 u_error();
        end
        if (PERIOD_DEN < 1 || PERIOD_DEN > 65535) begin : g_bad_den
            PARAMETER_ERROR_PERIOD_DEN_must_be_1_to_65535 u_error();
        end
        if (PERIOD_NUM < PERIOD_DEN) begin : g_bad_short
            PARAMETER_ERROR_period_must_be_at_least_1_ns u_error();
        end
        if (PERIOD_NUM / PERIOD_DEN >= 65536) begin : g_bad_long
            PARAMETER_ERROR_period_must_be_below_65536_ns u_error();
        end
    endgenerate

    localparam [79:0] NUM80  = PERIOD_NUM * 80'd1;          // widened without a concatenation
    localparam [79:0] DEN80  = PERIOD_DEN * 80'd1;
    localparam [79:0] SCALED = NUM80 << 32;               // period in 2^-32 ns, times DEN
    localparam [79:0] INC    = SCALED / DEN80;
    localparam [79:0] REM    = SCALED % DEN80;
    localparam [16:0] DEN    = DEN80[16:0];

    // Remainder state after two steps, for the reset/load values below.
    localparam [16:0] REM2   = REM[15:0] + REM[15:0];
    localparam        CARRY2 = REM2 >= DEN;
    localparam [15:0] ACC2   = CARRY2 ? REM2[15:0] - DEN[15:0] : REM2[15:0];

    reg  [79:0] count_q;  // Q48.32
    reg  [79:0] step_q;   // the next step: INC + its remainder carry + the rate offset
    reg         carry_q;  // the remainder carry of the step after that
    reg  [15:0] acc_q;    // the remainder accumulator after that step, 0 .. PERIOD_DEN-1
    reg  [31:0] adj_q;

    // Pipelined ahead of the count, so that each register has one adder in front of it: the
    // count adds step_q; step_q is INC + carry_q + the rate offset in force; carry_q and acc_q
    // run the remainder accumulator one more step ahead.

    // acc + REM reaches PERIOD_DEN exactly when acc >= PERIOD_DEN - REM (a compare with a
    // constant, beside the two adders rather than after one of them).
    localparam [15:0] WRAP = DEN[15:0] - REM[15:0];      // 1 .. PERIOD_DEN
    wire        carry    = acc_q >= WRAP;
    wire [15:0] acc_next = carry ? acc_q - WRAP : acc_q + REM[15:0];

    // INC + sign-extended offset + carry without an 80-bit adder: a 33-bit add of the low word,
    // and the high word is INC's plus the low carry minus the offset's sign, one of 3 constants.
    localparam [47:0] INC_HI = INC[79:32];
    wire [32:0] lo_sum  = {1'b0, INC[31:0]} + {1'b0, adj_q} + {32'd0, carry_q};
    wire [32:0] lo_set  = {1'b0, INC[31:0]} + {1'b0, adj_q};
    wire [47:0] hi_sum  = (lo_sum[32] == adj_q[31]) ? INC_HI :
                          lo_sum[32] ? INC_HI + 48'd1 : INC_HI - 48'd1;
    wire [47:0] hi_set  = (lo_set[32] == adj_q[31]) ? INC_HI :
                          lo_set[32] ? INC_HI + 48'd1 : INC_HI - 48'd1;

    wire [79:0] count_sum = count_q + step_q;

    always @(posedge clk) begin
        if (rst) begin
            count_q <= 80'd0;
            step_q  <= INC;  // step 1 (from acc 0: REM < PERIOD_DEN, no carry), no offset
            carry_q <= CARRY2;
            acc_q   <= ACC2;
            adj_q   <= 32'd0;
        end else begin
            if (set_valid) begin
                count_q <= {set_time, 16'd0};
                step_q  <= {hi_set, lo_set[31:0]};
                carry_q <= CARRY2;
                acc_q   <= ACC2;
            end else begin
                count_q <= count_sum;
                step_q  <= {hi_sum, lo_sum[31:0]};
                carry_q <= carry;
                acc_q   <= acc_next;
            end
            if (adj_valid) begin
                adj_q <= adj_delta;
            end
        end
    end

    assign now = count_q[79:16];
    // What `now` shows after the next edge (the count's D input): a client that registers it
    // holds a copy of `now` placed beside its consumers (one adder and a wire, not the wire from
    // the count to every consumer).
    assign now_next = rst ? 64'd0 : set_valid ? set_time : count_sum[79:16];

    // ---- PPS capture ---------------------------------------------------------------------------
    wire        pps_sync;
    reg         pps_prev_q;
    reg  [63:0] now_d1_q;  // `now` one cycle ago: the time of the first synchronizer's sample

    fp_sync_level #(.WIDTH(1), .STAGES(2)) u_pps_sync (
        .clk(clk), .rst(rst), .in(pps), .out(pps_sync)
    );

    always @(posedge clk) begin
        now_d1_q <= now;
        if (rst) begin
            pps_prev_q <= 1'b0;
            pps_valid  <= 1'b0;
            pps_time   <= 64'd0;
        end else begin
            pps_prev_q <= pps_sync;
            pps_valid  <= pps_sync && !pps_prev_q;
            if (pps_sync && !pps_prev_q) begin
                pps_time <= now_d1_q;
            end
        end
    end

endmodule

`default_nettype wire
