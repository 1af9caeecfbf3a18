// fp_pps_servo: disciplines one fp_timebase (mac/rtl/fp_timebase.v) to a pulse-per-second reference.
//
// Input: the timebase's PPS captures (pps_valid, pps_time = `now` at the first clock edge after the
// PPS edge). Output: a step of the timebase (set_valid / set_time) and its rate offset (adj_valid /
// adj_delta, 2^-32 ns per cycle, replacing the previous one). The loop, its gains and criteria are
// described with the bit-exact Python model, fastpath.ptrain.servo (ptrain/servo.py); in short:
//   * e = pps_time - (expected + T/2), Q48.16 ns, T the nominal period. `expected` is the fp_time
//     of the pulse: cfg_tod_ns for the first pulse after enabling, then + PPS_INTERVAL_NS per pulse
//     (missed pulses counted). T/2: the capture is on average half a period after the PPS edge.
//   * r = e / N as a rate (N = cycles per interval), in 2^-48 ns/cycle ("fine" units):
//     r = sign(e) * min((|e| * RECIP) >> S1, 2^48 - 1), by a serial multiplier.
//   * PI: I = clamp(I - (r >>> cfg_ki_shift), +-MAX_PPM), P = -(r >>> cfg_kp_shift),
//     adj_delta = clamp((I + P + 2^15) >>> 16, -2^31 .. 2^31 - 1) (the timebase's +-0.5 ns/cycle);
//     anti-windup: the integrator is clamped to MAX_PPM and keeps its value when the output
//     saturates. I is the frequency estimate, also given as freq_ppb = -I / T in ppb.
//   * States (`state`): 0 IDLE (cfg_enable low), 1 ACQ (the next pulse steps the clock to its
//     expected time), 2 FREQ (the next pulse, within MAX_PPM * interval, measures the frequency:
//     I = -r), 3 TRACK (PI). A TRACK pulse with |e| > cfg_reject_ns is rejected, unless it is the
//     (RESTEP_AFTER+1)-th in a row whose errors agree within cfg_reject_ns (the reference moved):
//     that one is accepted. An accepted pulse with |e| > cfg_step_ns steps the clock
//     (set_time = expected + T/2 + 64 T: the timebase loads it 64 cycles after the capture edge).
//   * locked: LOCK_PULSES consecutive TRACK pulses with |e| <= cfg_lock_ns, no step in between;
//     cleared by a larger error, a step, a missed pulse or disabling.
//   * Missed pulse: no accepted pulse for 1.5 intervals (N * 3/2 cycles counted from the sampling
//     of the last accepted pulse, + N per missed pulse): counted, `expected` advances an interval,
//     adj_delta = I (no phase correction), holdover = 1 (in TRACK; in FREQ back to ACQ). The first
//     pulse accepted after a holdover corrects the phase (P) without integrating.
//   * Disabling (cfg_enable low between events): adj_delta = 0 once (the timebase free-runs at its
//     nominal rate), state IDLE, I = 0. Re-enabling steps on the next pulse to cfg_tod_ns.
// cfg_* are read while an event is processed: change them between events (cfg_tod_ns is loaded
// when the servo leaves IDLE).
//
// Latency:    fixed for every event: adj_valid (with set_valid for a step) is presented 60 cycles
//             after the edge at which pps_valid is sampled (timeouts the same, from the edge that
//             detects them); state, locked, holdover, phase_err and the counters change at that
//             edge; freq_ppb and status_valid (one cycle) at 110 cycles. With fp_timebase: capture
//             edge + 3 = the sampling edge; `now` == set_time after capture edge + 64.
// Throughput: one event at a time, each busy for 110 cycles (PPS_INTERVAL_NS is at least 1024
//             cycles); the arithmetic is a serial 48 x 32 multiplier used twice and single adders
//             between registers.
// Bad input:  a pps_valid while an event is processed (within 110 cycles of the previous one) is
//             counted as a pulse and as rejected, and otherwise ignored; a PPS that is far from
//             its expected time is rejected as a glitch (above); pps_valid while IDLE is ignored.
// Parameters: PERIOD_NUM / PERIOD_DEN as fp_timebase's; PPS_INTERVAL_NS 1 .. 2^31 - 1 and at
//             least 1024 nominal cycles (a scaled "PPS" for simulation is fine: the algorithm
//             does not depend on it); MAX_PPM >= 1 with 2 * MAX_PPM of the period below
//             0.5 ns/cycle; LOCK_PULSES 1..255; RESTEP_AFTER 1..7.
`default_nettype none

module fp_pps_servo #(
    parameter PERIOD_NUM      = 8,
    parameter PERIOD_DEN      = 1,
    parameter PPS_INTERVAL_NS = 1000000000,
    parameter MAX_PPM         = 500,
    parameter LOCK_PULSES     = 4,
    parameter RESTEP_AFTER    = 2
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        pps_valid,
    input  wire [63:0] pps_time,

    input  wire        cfg_enable,
    input  wire [47:0] cfg_tod_ns,
    input  wire [4:0]  cfg_kp_shift,
    input  wire [4:0]  cfg_ki_shift,
    input  wire [31:0] cfg_lock_ns,
    input  wire [31:0] cfg_step_ns,
    input  wire [31:0] cfg_reject_ns,

    output reg         set_valid,
    output reg  [63:0] set_time,
    output reg         adj_valid,
    output reg  [31:0] adj_delta,

    output reg  [1:0]  state,
    output reg         locked,
    output reg         holdover,
    output reg  [47:0] phase_err,     // signed Q32.16 ns, saturated
    output reg  [31:0] freq_ppb,      // signed
    output reg  [31:0] cnt_pulses,
    output reg  [31:0] cnt_steps,
    output reg  [31:0] cnt_missed,
    output reg  [31:0] cnt_rejected,
    output reg         status_valid
);

    // ---- constants ---------------------------------------------------------------------------
    // The largest s <= 81 with round(a * 2^s / b) < 2^32 (a normalized 32-bit reciprocal).
    function integer norm_shift;
        input [127:0] a;
        input [127:0] b;
        integer s;
        reg     done;
        reg [127:0] q;
        begin
            norm_shift = 0;
            done = 1'b0;
            for (s = 0; s < 82; s = s + 1) begin
                if (!done) begin
                    q = ((a << s) + (b >> 1)) / b;
                    if (q < 128'h1_0000_0000) norm_shift = s;
                    else done = 1'b1;
                end
            end
        end
    endfunction

    localparam [127:0] NUM  = PERIOD_NUM;
    localparam [127:0] DEN  = PERIOD_DEN;
    localparam [127:0] INTV = PPS_INTERVAL_NS;
    localparam [127:0] PPM  = MAX_PPM;
    localparam [127:0] CYC  = (INTV * DEN * 2 + NUM) / (NUM * 2);        // N, cycles per interval
    localparam [127:0] TOUT = CYC + CYC / 2;                             // 1.5 intervals

    localparam [6:0]   LAT_ADJ    = 7'd60;       // sampling edge -> adj_valid / set_valid
    localparam integer M_SET      = 3 + {25'd0, LAT_ADJ} + 1;            // capture edge -> load

    localparam [127:0] HALF    = (NUM * 65536 + DEN) / (DEN * 2);        // T/2, Q48.16
    localparam [127:0] SET_ADV = (NUM * 65536 * M_SET * 2 + DEN) / (DEN * 2);
    localparam [127:0] INT_Q16 = INTV * 65536;

    localparam [127:0] RA     = NUM << 32;
    localparam [127:0] RB     = INTV * DEN;
    localparam integer S1     = norm_shift(RA, RB);
    localparam [127:0] RECIP  = ((RA << S1) + (RB >> 1)) / RB;          // r = |e| * RECIP >> S1

    localparam [127:0] PA     = DEN * 1000000000;
    localparam [127:0] PB     = NUM << 48;
    localparam integer S2     = norm_shift(PA, PB);
    localparam [127:0] PRECIP = ((PA << S2) + (PB >> 1)) / PB;          // ppb = |I| * PRECIP >> S2

    localparam [127:0] IMAX    = PPM * NUM * (128'd1 << 48) / (DEN * 1000000);  // fine units
    localparam [127:0] ACQ_WIN = PPM * INTV * 65536 / 1000000;                  // Q48.16

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
        if (PPS_INTERVAL_NS < 1 || CYC < 1024) begin : g_bad_interval
            PARAMETER_ERROR_PPS_INTERVAL_NS_must_be_at_least_1024_cycles u_error();
        end
        if (MAX_PPM < 1 || IMAX * 2 >= (128'd1 << 47) || ACQ_WIN >= (128'd1 << 47)) begin : g_bad_ppm
            PARAMETER_ERROR_MAX_PPM_out_of_range u_error();
        end
        if (LOCK_PULSES < 1 || LOCK_PULSES > 255) begin : g_bad_lock
            PARAMETER_ERROR_LOCK_PULSES_must_be_1_to_255 u_error();
        end
        if (RESTEP_AFTER < 1 || RESTEP_AFTER > 7) begin : g_bad_restep
            PARAMETER_ERROR_RESTEP_AFTER_must_be_1_to_7 u_error();
        end
    endgenerate

    localparam [1:0] S_IDLE = 2'd0, S_ACQ = 2'd1, S_FREQ = 2'd2, S_TRACK = 2'd3;
    localparam [1:0] M_KEEP = 2'd0, M_LOAD = 2'd1, M_PI = 2'd2;

    localparam FW = 52;                                  // fine-unit datapath, signed
    localparam [FW-1:0] IMAX_F  = IMAX[FW-1:0];
    localparam [33:0]   TOUT_C  = TOUT[33:0];
    localparam [33:0]   CYC_C   = CYC[33:0];

    // ---- event sequencer ---------------------------------------------------------------------
    // An event (a pulse, or a timeout) started at edge X runs a fixed schedule, one register
    // stage per cycle; st_* is high in the cycle before the edge that performs the step:
    //   X+1 diff, +2 abs, +3 cmp, +4 load (multiplier), +5 dec, +5..+52 multiply (48 edges),
    //   +53 rate (magnitude), +54 sign, +55 shift, +56 sum, +57 clamp (compare), +58 out (clamp,
    //   I + P + 2^15), +59 sat, +60 commit (adj_valid, set_valid, status), +61 ppb load,
    //   +62..+109 multiply, +110 end (freq_ppb, status_valid).
    // Every strobe is a register: no step decodes a counter.
    reg         busy;
    reg         st_diff, st_abs, st_cmp, st_load, st_dec, st_rate, st_sign, st_shift, st_sum;
    reg         st_clamp, st_out, st_sat, st_commit, st_pload, st_end, pass2;
    reg         ev_to;          // the event is a timeout
    reg  [33:0] since;          // cycles since the reference pulse was sampled
    reg  [33:0] since_back;     // since + 2 - N: the next cycle's since + 1 - N
    reg         to_due;         // since >= TOUT - 1: at the next edge since >= TOUT
    reg         have_ref;
    reg  [63:0] exp_q;          // expected + T/2, Q48.16
    reg  [63:0] exp_next;
    reg  [2:0]  rej_run;
    reg  [63:0] last_rej;
    reg  [7:0]  lock_cnt;
    reg         lock_hit;       // lock_cnt + 1 >= LOCK_PULSES
    reg         reacq;
    reg  signed [FW-1:0] integ;

    // pipeline
    reg  [63:0] p_q, d_q, mag_q, dr_q, drmag_q, set_q;
    reg         neg_q;
    reg  [47:0] pe_q;
    reg  [47:0] mag_sat_q;
    reg         gt_lock, gt_step, gt_rej, gt_acq, cons_hz, cons_le, cons_q;
    reg         acc_q, rej_q, step_q, usep_q, lock_ok_q, c_acc, c_to, c_rej;
    reg  [1:0]  mode_q, nxt_q;
    reg  [47:0] rmag_q;
    reg  signed [FW-1:0] r_q, ri_q, rp_q, icand_q, iclamp_q, p_term_q;
    // The rounding drops the 16 bits below the timebase's unit: they are computed on purpose.
    /* verilator lint_off UNUSEDSIGNAL */
    reg  signed [FW-1:0] out_q;
    /* verilator lint_on UNUSEDSIGNAL */
    localparam signed [FW-1:0] ROUND = 52'sd32768;
    reg  [31:0] adj_sat_q;
    reg         sat_q;
    reg         ineg_q;
    reg         ihi_q, ilo_q;   // the integrator candidate beyond +-IMAX
    reg  [47:0] iabs_q;         // |I| after the commit, for freq_ppb
    // conditional integration: the integrator keeps its value when a PI output saturates
    wire signed [FW-1:0] integ_next = (sat_q && mode_q == M_PI) ? integ : iclamp_q;
    wire signed [FW-1:0] iclamp_w = ihi_q ? $signed(IMAX_F) : ilo_q ? -$signed(IMAX_F) : icand_q;

    // serial multiplier: {mul_acc, mul_a} = a * b after 48 iterations
    reg  [47:0] mul_a;
    reg  [31:0] mul_acc;
    reg  [31:0] mul_b;
    reg  [5:0]  mul_cnt;
    wire [32:0] mul_sum = {1'b0, mul_acc} + (mul_a[0] ? {1'b0, mul_b} : 33'd0);
    wire [79:0] prod    = {mul_acc, mul_a};

    wire [128:0] r_sh   = {49'd0, prod} >> S1;
    wire [47:0]  r_mag  = (|r_sh[128:48]) ? 48'hFFFF_FFFF_FFFF : r_sh[47:0];
    // ppb: the product shifted by S2; |I| <= IMAX keeps it below 2^31, the upper bits are zero.
    /* verilator lint_off UNUSEDSIGNAL */
    wire [128:0] p_sh   = {49'd0, prod} >> S2;
    /* verilator lint_on UNUSEDSIGNAL */
    wire [31:0]  ppb_m  = p_sh[31:0];

    wire signed [FW-17:0] adj_full = out_q[FW-1:16];     // (I + P + 2^15) >>> 16
    wire        adj_hi  = adj_full > $signed({{(FW-48){1'b0}}, 32'h7FFF_FFFF});
    wire        adj_lo  = adj_full < $signed({{(FW-48){1'b1}}, 32'h8000_0000});

    wire        starting  = !busy && state != S_IDLE && cfg_enable;
    wire        start_pps = starting && pps_valid;
    wire        start_to  = starting && !pps_valid && have_ref && to_due;
    wire        busy_pps  = busy && pps_valid;
    wire        out_win   = (state == S_FREQ) ? gt_acq : gt_rej;

    wire [63:0] d_abs     = d_q[63] ? (~d_q + 64'd1) : d_q;
    wire [63:0] dr_abs    = dr_q[63] ? (~dr_q + 64'd1) : dr_q;
    wire [63:0] lock_lim  = {16'd0, cfg_lock_ns, 16'd0};
    wire [63:0] step_lim  = {16'd0, cfg_step_ns, 16'd0};
    wire [63:0] rej_lim   = {16'd0, cfg_reject_ns, 16'd0};
    wire [63:0] acq_lim   = ACQ_WIN[63:0];
    wire        d_big     = d_q[63] ? (d_q[62:47] != 16'hFFFF) : (d_q[62:47] != 16'h0000);

    always @(posedge clk) begin
        adj_valid    <= 1'b0;
        set_valid    <= 1'b0;
        status_valid <= 1'b0;
        if (since != {34{1'b1}}) since <= since + 34'd1;
        since_back <= since + 34'd2 - CYC_C;
        to_due     <= since >= TOUT_C - 34'd1;

        if (pps_valid && (busy || (state != S_IDLE && cfg_enable))) cnt_pulses <= cnt_pulses + 32'd1;
        cnt_rejected <= cnt_rejected + {31'd0, busy_pps} + {31'd0, st_commit && c_rej};

        // the schedule's strobes
        st_diff  <= start_pps || start_to;
        st_abs   <= st_diff;
        st_cmp   <= st_abs;
        st_load  <= st_cmp;
        st_dec   <= st_load;
        st_rate  <= mul_cnt == 6'd1 && !pass2;
        st_sign  <= st_rate;
        st_shift <= st_sign;
        st_sum   <= st_shift;
        st_clamp <= st_sum;
        st_out   <= st_clamp;
        st_sat   <= st_out;
        st_commit <= st_sat;
        st_pload <= st_commit;
        st_end   <= mul_cnt == 6'd1 && pass2;

        // ---- between events: IDLE, enabling, disabling, starting an event ----
        if (!busy) begin
            if (state == S_IDLE) begin
                exp_q <= {cfg_tod_ns, 16'd0} + HALF[63:0];
                if (cfg_enable) state <= S_ACQ;
            end else if (!cfg_enable) begin
                state <= S_IDLE;  integ <= {FW{1'b0}};  have_ref <= 1'b0;  rej_run <= 3'd0;
                lock_cnt <= 8'd0;  reacq <= 1'b0;  locked <= 1'b0;  holdover <= 1'b0;
                freq_ppb <= 32'd0;  adj_valid <= 1'b1;  adj_delta <= 32'd0;
            end
            if (start_pps || start_to) begin
                busy  <= 1'b1;
                ev_to <= start_to;
                p_q   <= pps_time;
            end
        end

        // ---- the event's datapath ----
        if (st_diff) d_q <= p_q - exp_q;
        if (st_abs) begin
            neg_q    <= d_q[63];
            mag_q    <= d_abs;
            dr_q     <= d_q - last_rej;
            pe_q     <= d_big ? {d_q[63], {47{!d_q[63]}}} : d_q[47:0];
            set_q    <= exp_q + SET_ADV[63:0];
            exp_next <= exp_q + INT_Q16[63:0];
            lock_hit <= {24'd0, lock_cnt} + 32'd1 >= LOCK_PULSES;
        end
        if (st_cmp) begin
            gt_lock   <= mag_q > lock_lim;
            gt_step   <= mag_q > step_lim;
            gt_rej    <= mag_q > rej_lim;
            gt_acq    <= mag_q > acq_lim;
            mag_sat_q <= (|mag_q[63:48]) ? 48'hFFFF_FFFF_FFFF : mag_q[47:0];
            drmag_q   <= dr_abs;
        end
        if (st_load) begin
            // |d - last_rej| <= cfg_reject_ns, in two halves combined at st_dec
            cons_hz <= drmag_q[63:48] == 16'd0;
            cons_le <= drmag_q[47:0] <= rej_lim[47:0];
            mul_a   <= mag_sat_q;
            mul_acc <= 32'd0;
            mul_b   <= RECIP[31:0];
            mul_cnt <= 6'd48;
            pass2   <= 1'b0;
        end
        if (st_dec) begin
            cons_q <= cons_hz && cons_le;
            acc_q <= 1'b0;  rej_q <= 1'b0;  step_q <= 1'b0;  usep_q <= 1'b0;
            mode_q <= M_KEEP;  nxt_q <= state;
            lock_ok_q <= 1'b0;
            if (ev_to) begin
                if (state == S_FREQ) nxt_q <= S_ACQ;
            end else if (state == S_ACQ) begin
                acc_q  <= 1'b1;
                step_q <= 1'b1;
                nxt_q  <= S_FREQ;
            end else if (out_win) begin
                if ({29'd0, rej_run} >= RESTEP_AFTER && cons_hz && cons_le) begin
                    acc_q  <= 1'b1;
                    step_q <= 1'b1;
                end else begin
                    rej_q  <= 1'b1;
                end
            end else begin
                acc_q     <= 1'b1;
                step_q    <= gt_step;
                usep_q    <= !gt_step;
                mode_q    <= (state == S_FREQ) ? M_LOAD : (reacq || gt_step) ? M_KEEP : M_PI;
                nxt_q     <= S_TRACK;
                lock_ok_q <= state == S_TRACK && !gt_step && !gt_lock;
            end
        end
        if (st_rate) begin
            rmag_q <= r_mag;
            c_acc  <= acc_q && !ev_to;               // the commit's cases, decoded early
            c_to   <= ev_to;
            c_rej  <= rej_q && !ev_to;
        end
        if (st_sign) begin
            r_q <= neg_q ? -$signed({{(FW-48){1'b0}}, rmag_q}) : $signed({{(FW-48){1'b0}}, rmag_q});
        end
        if (st_shift) begin
            ri_q <= r_q >>> cfg_ki_shift;
            rp_q <= r_q >>> cfg_kp_shift;
        end
        if (st_sum) begin
            icand_q  <= (mode_q == M_LOAD) ? -r_q : (mode_q == M_PI) ? integ - ri_q : integ;
            // P, with the rounding constant of the output (2^15) folded in
            p_term_q <= usep_q ? ROUND - rp_q : ROUND;
        end
        if (st_clamp) begin
            ihi_q <= icand_q > $signed(IMAX_F);
            ilo_q <= icand_q < -$signed(IMAX_F);
        end
        if (st_out) begin
            iclamp_q <= iclamp_w;
            out_q    <= iclamp_w + p_term_q;            // I + P + 2^15
        end
        if (st_sat) begin
            adj_sat_q <= adj_hi ? 32'h7FFF_FFFF : adj_lo ? 32'h8000_0000 : adj_full[31:0];
            sat_q     <= adj_hi || adj_lo;
        end
        if (st_commit) begin
            adj_valid <= c_acc || c_to;
            adj_delta <= adj_sat_q;
            integ     <= integ_next;
            ineg_q    <= integ_next[FW-1];
            iabs_q    <= integ_next[FW-1] ? (~integ_next[47:0] + 48'd1) : integ_next[47:0];
            set_valid <= step_q;
            set_time  <= set_q;
            if (step_q) cnt_steps <= cnt_steps + 32'd1;
            if (!c_to) phase_err <= pe_q;
            if (c_to) begin
                cnt_missed <= cnt_missed + 32'd1;
                exp_q      <= exp_next;
                since      <= since_back;
                if (state == S_TRACK) begin
                    holdover <= 1'b1;
                    reacq    <= 1'b1;
                end
                state    <= nxt_q;
                lock_cnt <= 8'd0;
                locked   <= 1'b0;
            end
            if (c_acc) begin
                exp_q    <= exp_next;
                since    <= {27'd0, LAT_ADJ};   // counted from the sampling edge
                have_ref <= 1'b1;
                rej_run  <= 3'd0;
                reacq    <= 1'b0;
                holdover <= 1'b0;
                state    <= nxt_q;
                if (lock_ok_q) begin
                    if (lock_cnt != 8'hFF) lock_cnt <= lock_cnt + 8'd1;
                    if (lock_hit) locked <= 1'b1;
                end else begin
                    lock_cnt <= 8'd0;
                    locked   <= 1'b0;
                end
            end
            if (c_rej) begin
                rej_run  <= (cons_q && rej_run != 3'd0) ? ((rej_run == 3'd7) ? 3'd7 : rej_run + 3'd1) : 3'd1;
                last_rej <= d_q;
            end
        end
        if (st_pload) begin
            mul_a   <= iabs_q;
            mul_acc <= 32'd0;
            mul_b   <= PRECIP[31:0];
            mul_cnt <= 6'd48;
            pass2   <= 1'b1;
        end
        if (st_end) begin
            freq_ppb     <= ineg_q ? ppb_m : (~ppb_m + 32'd1);
            status_valid <= 1'b1;
            busy         <= 1'b0;
        end

        if (mul_cnt != 6'd0) begin
            mul_cnt <= mul_cnt - 6'd1;
            mul_acc <= mul_sum[32:1];
            mul_a   <= {mul_sum[0], mul_a[47:1]};
        end

        // The reset comes last and wins for the registers it names; the datapath registers it does
        // not name are loaded only by the schedule's strobes (reset above), so they need no reset,
        // and keeping rst out of their enables keeps the reset net off their paths.
        if (rst) begin
            busy <= 1'b0;  ev_to <= 1'b0;  since <= 34'd0;  since_back <= 34'd0;  to_due <= 1'b0;
            have_ref <= 1'b0;  exp_q <= 64'd0;  rej_run <= 3'd0;  last_rej <= 64'd0;
            lock_cnt <= 8'd0;  reacq <= 1'b0;  integ <= {FW{1'b0}};  mul_cnt <= 6'd0;
            st_diff <= 1'b0;  st_abs <= 1'b0;  st_cmp <= 1'b0;  st_load <= 1'b0;  st_dec <= 1'b0;
            st_rate <= 1'b0;  st_sign <= 1'b0;  st_shift <= 1'b0;  st_sum <= 1'b0;
            st_clamp <= 1'b0;  st_out <= 1'b0;  st_sat <= 1'b0;  st_commit <= 1'b0;
            st_pload <= 1'b0;  st_end <= 1'b0;  pass2 <= 1'b0;
            set_time <= 64'd0;  adj_delta <= 32'd0;  state <= S_IDLE;  locked <= 1'b0;
            holdover <= 1'b0;  phase_err <= 48'd0;  freq_ppb <= 32'd0;  cnt_pulses <= 32'd0;
            cnt_steps <= 32'd0;  cnt_missed <= 32'd0;  cnt_rejected <= 32'd0;
            adj_valid <= 1'b0;  set_valid <= 1'b0;  status_valid <= 1'b0;
        end
    end

endmodule

`default_nettype wire
