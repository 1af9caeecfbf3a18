// fp_ptrain_clock: the packet-train tester's disciplined clock: fp_timebase steered by fp_pps_servo.
//
// `now` is fp_time (Q48.16 ns, docs/architecture.md "Time") counted by an fp_timebase and kept on
// a pulse-per-second reference by an fp_pps_servo: the first PPS edge after cfg_enable rises is
// given the time cfg_tod_ns, the next one measures the oscillator's frequency, and from then on a
// PI loop on the phase error of every PPS steers the timebase's rate (ptrain/servo.py describes
// the loop, its gains and its lock, glitch and holdover rules; ptrain/README.md "Disciplined
// clock" gives the figures measured in simulation). Two testers whose clocks follow the same PPS
// stamp the same instant with the same fp_time to within a few clock periods, so a one-way delay
// is the receiver's stamp minus the sender's.
//
// pps:        asynchronous (synchronized inside fp_timebase); the PPS edge is the rising edge,
//             high and low for at least 3 cycles each. pps_valid / pps_time: each capture (the
//             `now` of the first clock edge after the PPS edge), for logging.
// Latency:    `now` is a register (the count itself). pps_valid: 2 cycles after the edge that
//             captured the PPS; the servo's step (`now` == the set time) 64 cycles after that
//             edge and its new rate from 66 cycles on; state, locked, holdover, phase_err and the
//             counters change 63 cycles after it, freq_ppb and status_valid 113 cycles after it.
// Throughput: `now` advances every cycle; one PPS per PPS_INTERVAL_NS (pulses closer together
//             are treated as glitches: rejected).
// Bad input:  a PPS far from its expected instant is rejected and counted (a glitch); missing
//             pulses are counted and the clock holds over on its last frequency estimate; a PPS
//             shorter than a cycle may be missed (see fp_timebase and fp_pps_servo).
// Parameters: PERIOD_NUM / PERIOD_DEN (nominal clock period in ns, as fp_timebase),
//             PPS_INTERVAL_NS (1e9; less for a scaled PPS in simulation), MAX_PPM, LOCK_PULSES,
//             RESTEP_AFTER: as fp_pps_servo.
`default_nettype none

module fp_ptrain_clock #(
    parameter PERIOD_NUM      = 8,
    parameter PERIOD_DEN      = 1,
    parameter PPS_INTERVAL_NS = 1000000000,
    parameter MAX_PPM         = 500,
    parameter LOCK_PULSES     = 4,
    parameter RESTEP_AFTER    = 2
) (
    input  wire        clk,
    input  wire        rst,

    input  wire        pps,
    output wire [63:0] now,
    output wire [63:0] now_next,    // what `now` shows after the next edge (fp_timebase)
    output wire        pps_valid,
    output wire [63:0] pps_time,

    input  wire        cfg_enable,
    input  wire [47:0] cfg_tod_ns,
    input  wire [4:0]  cfg_kp_shift,
    input  wire [4:0]  cfg_ki_shift,
    input  wire [31:0] cfg_lock_ns,
    input  wire [31:0] cfg_step_ns,
    input  wire [31:0] cfg_reject_ns,

    output wire [1:0]  state,
    output wire        locked,
    output wire        holdover,
    output wire [47:0] phase_err,
    output wire [31:0] freq_ppb,
    output wire [31:0] cnt_pulses,
    output wire [31:0] cnt_steps,
    output wire [31:0] cnt_missed,
    output wire [31:0] cnt_rejected,
    output wire        status_valid
);

    wire        set_valid;
    wire [63:0] set_time;
    wire        adj_valid;
    wire [31:0] adj_delta;

    fp_timebase #(
        .PERIOD_NUM(PERIOD_NUM),
        .PERIOD_DEN(PERIOD_DEN)
    ) u_timebase (
        .clk(clk),
        .rst(rst),
        .now(now),
        .now_next(now_next),
        .set_valid(set_valid),
        .set_time(set_time),
        .adj_valid(adj_valid),
        .adj_delta(adj_delta),
        .pps(pps),
        .pps_valid(pps_valid),
        .pps_time(pps_time)
    );

    fp_pps_servo #(
        .PERIOD_NUM(PERIOD_NUM),
        .PERIOD_DEN(PERIOD_DEN),
        .PPS_INTERVAL_NS(PPS_INTERVAL_NS),
        .MAX_PPM(MAX_PPM),
        .LOCK_PULSES(LOCK_PULSES),
        .RESTEP_AFTER(RESTEP_AFTER)
    ) u_servo (
        .clk(clk),
        .rst(rst),
        .pps_valid(pps_valid),
        .pps_time(pps_time),
        .cfg_enable(cfg_enable),
        .cfg_tod_ns(cfg_tod_ns),
        .cfg_kp_shift(cfg_kp_shift),
        .cfg_ki_shift(cfg_ki_shift),
        .cfg_lock_ns(cfg_lock_ns),
        .cfg_step_ns(cfg_step_ns),
        .cfg_reject_ns(cfg_reject_ns),
        .set_valid(set_valid),
        .set_time(set_time),
        .adj_valid(adj_valid),
        .adj_delta(adj_delta),
        .state(state),
        .locked(locked),
        .holdover(holdover),
        .phase_err(phase_err),
        .freq_ppb(freq_ppb),
        .cnt_pulses(cnt_pulses),
        .cnt_steps(cnt_steps),
        .cnt_missed(cnt_missed),
        .cnt_rejected(cnt_rejected),
        .status_valid(status_valid)
    );

endmodule

`default_nettype wire
