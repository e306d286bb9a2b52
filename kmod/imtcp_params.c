// SPDX-License-Identifier: GPL-2.0
/*
 * The module parameters (/sys/module/imtcp/parameters): each range-checked
 * as it is written (a value out of range is refused with EINVAL), and
 * read by each new connection (imtcp_params_read); a connection keeps
 * what it read. Documentation/user-guide.rst says what each costs.
 */
#include <linux/atomic.h>
#include <linux/module.h>

#include "imtcp_params.h"
#include "core/imtcp_busy.h"
#include "core/imtcp_cu.h"

static unsigned int stream_len = 10;
static unsigned int streams = 2;
static unsigned int noise_us = 500;
static unsigned int gain_shift = 1;
static unsigned int stale_rtts = 32;
static unsigned int hold_budget = 2;
static unsigned int free_starts = 2;
static unsigned int off_debt_rtts = IMTCP_OFF_DEBT_RTTS;
static unsigned int busy_margin;
static unsigned int busy_window_rtts = IMTCP_BUSY_WINDOW_RTTS;
static unsigned int busy_floor_pct = IMTCP_BUSY_FLOOR_PCT;
static unsigned int fail_alloc_every;
static bool measure = true;
static bool carry = true;
static bool outrun = true;
static bool served_across = true;
static bool up_wide = true;
static bool cap_range;
static bool prepay;
static bool charge_gap = true;
static bool off_ahead;
static bool fast_fall = true;
static bool own_floor = true;
static bool lift_off;
static bool hold_echo = true;
static bool frame_hold = true;

/*
 * The ops of an unsigned parameter that takes @lo to @hi: a write out of
 * that range is refused with EINVAL and leaves the value as it was.
 */
#define IMTCP_UINT_RANGE(name, lo, hi)					\
static int set_##name(const char *val, const struct kernel_param *kp)	\
{									\
	return param_set_uint_minmax(val, kp, lo, hi);			\
}									\
static const struct kernel_param_ops name##_ops = {			\
	.set = set_##name, .get = param_get_uint,			\
}

IMTCP_UINT_RANGE(stream_len, IMTCP_N_MIN, IMTCP_N_MAX);
IMTCP_UINT_RANGE(streams, 1, IMTCP_K_MAX);
IMTCP_UINT_RANGE(noise, 0, 100000);
IMTCP_UINT_RANGE(gain, 0, 4);
IMTCP_UINT_RANGE(stale, 0, 10000);
IMTCP_UINT_RANGE(budget, 1, IMTCP_BUDGET_MAX);
IMTCP_UINT_RANGE(free_starts, 0, IMTCP_FREE_MAX);
IMTCP_UINT_RANGE(off_debt, 0, IMTCP_OFF_DEBT_MAX);
IMTCP_UINT_RANGE(busy_margin, 0, IMTCP_BUSY_MARGIN_MAX);
IMTCP_UINT_RANGE(busy_window, 1, IMTCP_BUSY_WINDOW_MAX);
IMTCP_UINT_RANGE(busy_floor, 0, 100);
IMTCP_UINT_RANGE(fail_alloc, 0, 1000000);

module_param_cb(stream_len, &stream_len_ops, &stream_len, 0644);
MODULE_PARM_DESC(stream_len, "segments per measurement stream, N (5-16, default 10); an application-limited sender's streams are as long as its writes, 5-16");
module_param_cb(streams, &streams_ops, &streams, 0644);
MODULE_PARM_DESC(streams, "streams per measurement, k (1-8, default 2)");
module_param_cb(noise_us, &noise_ops, &noise_us, 0644);
MODULE_PARM_DESC(noise_us, "delay rise in us that a stream must exceed to count as rising (0-100000, default 500)");
module_param_cb(gain_shift, &gain_ops, &gain_shift, 0644);
MODULE_PARM_DESC(gain_shift, "estimate smoothing: EWMA gain 2^-gain_shift (0-4, default 1)");
module_param_cb(stale_rtts, &stale_ops, &stale_rtts, 0644);
MODULE_PARM_DESC(stale_rtts, "results (and the served rates kept with them) older than this many minimum RTTs no longer count: the next result starts the estimate anew (0-10000, default 32; 0 = never)");
module_param_cb(hold_budget, &budget_ops, &hold_budget, 0644);
MODULE_PARM_DESC(hold_budget, "percent of a connection's time that holding segments may cost it (1-100, default 2; 100 = measure without pause)");
module_param_cb(free_starts, &free_starts_ops, &free_starts, 0644);
MODULE_PARM_DESC(free_starts, "measurements at a connection's start, until its first estimate, that may begin while the hold budget is in debt (0-8, default 2)");
module_param_cb(off_debt_rtts, &off_debt_ops, &off_debt_rtts, 0644);
MODULE_PARM_DESC(off_debt_rtts, "after a result more than a quarter off the estimate (and more than the recent results' spread) or at the search range's upper edge, or a measurement that found A below its range without a result, measurements may begin in debt of the hold budget while it would pay that off within this many srtt (0-256, default 32; 0 = never)");
module_param_cb(busy_margin, &busy_margin_ops, &busy_margin, 0644);
MODULE_PARM_DESC(busy_margin, "while the bottleneck's queue stands, the estimate is held at most this many percent above the highest rate the connection was delivered at over the last 2-4 srtt (busy_window_rtts; 0-100, default 0)");
module_param_cb(busy_window_rtts, &busy_window_ops, &busy_window_rtts, 0644);
MODULE_PARM_DESC(busy_window_rtts, "the busy-link bounds take the highest rate the connection was delivered at while the queue stood over the last one to two windows of this many srtt (1-16, default 2)");
module_param_cb(busy_floor_pct, &busy_floor_ops, &busy_floor_pct, 0644);
MODULE_PARM_DESC(busy_floor_pct, "while the bottleneck's queue stands, a result and the estimate are held at least at this many percent of the rate the connection was delivered at (0-100, default 97; 0 = no floor)");
module_param_cb(fail_alloc_every, &fail_alloc_ops, &fail_alloc_every, 0644);
MODULE_PARM_DESC(fail_alloc_every, "testing: fail every Nth allocation of a socket's measurement state, as a failed GFP_NOWAIT allocation would (0-1000000, default 0 = never); such sockets run as plain Reno and count in alloc_failed");
module_param(measure, bool, 0644);
MODULE_PARM_DESC(measure, "measure available bandwidth on new connections (default Y; N = plain Reno)");
module_param(carry, bool, 0644);
MODULE_PARM_DESC(carry, "a window-limited connection's measurement of two streams takes the newest stream of the one before as its first, if at most 2 srtt old, and needs one stream of its own (default Y; N = two new streams each)");
module_param(outrun, bool, 0644);
MODULE_PARM_DESC(outrun, "a measurement whose streams all stayed flat up to above the served rates remembered, and not beyond the path's capacity, makes the connection forget them (default Y)");
module_param(served_across, bool, 0644);
MODULE_PARM_DESC(served_across, "the served rates remembered are forgotten (A rose) after two rising streams in a row, over consecutive measurements, were served faster than 9/8 of their median (default Y; N = two in one measurement)");
module_param(up_wide, bool, 0644);
MODULE_PARM_DESC(up_wide, "after a result at the search range's upper edge, the next range reaches at least three times that result, as a range around it does (default Y; N = one and a half of the old range's width past it)");
module_param(prepay, bool, 0644);
MODULE_PARM_DESC(prepay, "a new measurement starts once the hold budget holds what the latest one cost (at most 3/4 srtt of hold), not as soon as it is out of debt; a stream at hand, or one after a result off the estimate or at the search range's upper edge or after a measurement begun in the first slow start, needs only no debt (default N: once out of debt)");
module_param(charge_gap, bool, 0644);
MODULE_PARM_DESC(charge_gap, "a hold begun on a window of at least 4 m segments, and its stream, are charged to the hold budget for the share of the window they keep out of flight, not for all of the hold's time and the stream's lateness (default Y; N = always all of it, as before 2026-12-03)");
module_param(off_ahead, bool, 0644);
MODULE_PARM_DESC(off_ahead, "a measurement that a result off the estimate lets start in debt must stay within off_debt_rtts once it costs what the latest one did, not only start within it (default N: start within it)");
module_param(cap_range, bool, 0644);
MODULE_PARM_DESC(cap_range, "a measurement's search range reaches at most twice the path's capacity estimated alongside A, doubled after each result at the range's upper edge in a row, free after three (default N)");
module_param(fast_fall, bool, 0644);
MODULE_PARM_DESC(fast_fall, "the estimate falls at once to where two results agree, both below it by more than a quarter and by more than the recent results' spread; rises follow the median (default Y; N = a step either way on three results agreeing)");
module_param(lift_off, bool, 0644);
MODULE_PARM_DESC(lift_off, "a figure shown between results that the floor lifts above the estimate by more than a quarter (and the recent results' spread) counts as a result off the estimate: the next measurement may start in debt, within off_debt_rtts (default N: only results do; two S6 pairs in the VM showed no gain beyond the runs' spread)");
module_param(own_floor, bool, 0644);
MODULE_PARM_DESC(own_floor, "the floor of busy_floor_pct also takes the rate the connection was delivered at while the queue did not stand (its window, not the application, limiting it), and holds the estimate shown between results too, and keeps the busy cap no lower than that floor (default Y since 2026-12-03: S1's rise from 20 to 60 % of C followed in 3.2-16.1 RTT with it, 9.3-70.8 without; N = busy rates only, at results only)");
module_param(hold_echo, bool, 0644);
MODULE_PARM_DESC(hold_echo, "a measurement's later hold, on a window that limits the sender, may last longer by what is still to come of the ACK gap that its hold before made one srtt earlier, within one srtt, and that gap costs the hold budget nothing (default Y; N = as before 2026-12-03)");
module_param(frame_hold, bool, 0644);
MODULE_PARM_DESC(frame_hold, "an application-limited sender whose frames come in small writes holds from a frame's first write on (after a quiet time), not at an ACK between frames, and that hold gathers the whole stream, not m (default Y; N = such holds begin at ACKs between frames and gather m, as before)");

static atomic_t allocs = ATOMIC_INIT(0);

/* measure: whether new connections measure at all. */
bool imtcp_params_measure(void)
{
	return READ_ONCE(measure);
}

/* fail_alloc_every: the allocation failure path, on demand (testing). */
bool imtcp_params_fail_alloc(void)
{
	u32 every = READ_ONCE(fail_alloc_every);

	return every && (u32)atomic_inc_return(&allocs) % every == 0;
}

void imtcp_params_read(struct imtcp_params *p)
{
	p->est.n = READ_ONCE(stream_len);
	p->est.k = READ_ONCE(streams);
	p->est.noise_us = READ_ONCE(noise_us);
	p->est.gain_shift = READ_ONCE(gain_shift);
	p->est.stale_rtts = READ_ONCE(stale_rtts);
	p->est.fast_fall = READ_ONCE(fast_fall);
	p->est.lift_off = READ_ONCE(lift_off);
	p->hold_budget = READ_ONCE(hold_budget);
	p->free_starts = READ_ONCE(free_starts);
	p->off_debt_rtts = READ_ONCE(off_debt_rtts);
	p->busy_margin = READ_ONCE(busy_margin);
	p->busy_window_rtts = READ_ONCE(busy_window_rtts);
	p->busy_floor_pct = READ_ONCE(busy_floor_pct);
	p->carry = READ_ONCE(carry);
	p->outrun = READ_ONCE(outrun);
	p->served_across = READ_ONCE(served_across);
	p->up_wide = READ_ONCE(up_wide);
	p->cap_range = READ_ONCE(cap_range);
	p->prepay = READ_ONCE(prepay);
	p->charge_gap = READ_ONCE(charge_gap);
	p->hold_echo = READ_ONCE(hold_echo);
	p->frame_hold = READ_ONCE(frame_hold);
	p->off_ahead = READ_ONCE(off_ahead);
	p->own_floor = READ_ONCE(own_floor);
}
