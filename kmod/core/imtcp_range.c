// SPDX-License-Identifier: GPL-2.0
/*
 * The search range (see imtcp_est.h): where the next measurement's
 * streams probe.
 *
 * The search range spans [A / 2, 3 A] around the latest result, wider
 * if recent results spread more: the upper streams must run far enough
 * above A to build a queue that stands out of the noise. A result on an
 * edge moves the range past that edge and doubles it; past the upper
 * edge (up_wide) at least as far as a range around that result.
 */
#include "imtcp_est.h"

#define IMTCP_RANGE_UP		3	/* range: A / 2 .. 3 A */
#define IMTCP_FIRST_LO_DIV	2	/* first range: hint / 2 .. */
#define IMTCP_FIRST_HI_MUL	16	/* .. hint * 16 */
#define IMTCP_FIRST_APP_MUL	4	/* .. * 4, application-limited */
#define IMTCP_CAP_RANGE_MUL	2	/* range's top: 2 C .. */
#define IMTCP_CAP_RANGE_LIFTS	3	/* .. doubled up to 3 times, then free */

static void set_range(struct imtcp_est *e, u64 lo_bps, u64 hi_bps)
{
	if (lo_bps < IMTCP_RATE_MIN)
		lo_bps = IMTCP_RATE_MIN;
	if (hi_bps < lo_bps + lo_bps / 10 + IMTCP_RATE_MIN)
		hi_bps = lo_bps + lo_bps / 10 + IMTCP_RATE_MIN;
	e->lo_bps = lo_bps;
	e->hi_bps = hi_bps;
}

/*
 * The range before any result, from what the connection knows (its
 * delivery rate or cwnd / srtt, which in slow start lie far below A):
 * up to 16 times that for a sender its window limits, 4 times for an
 * application-limited one (@app_limited). Such a sender's window stops
 * growing at about twice what it sends per RTT (the stack grows cwnd
 * only while it limits), so the hint is about twice the application's
 * rate, and the range reaches 8 times that rate; past A there it moves
 * up by its edge. Up to 16 times, the first streams of a media sender
 * (5 Mbit/s in 40 ms frames, C = 30, A = 11) spanned 5-170 Mbit/s, 10
 * segments each: the first result read 17-34 Mbit/s in 3 of 9 runs,
 * and there was none in 3 more (the estimate then came after 8-9 RTT).
 */
void imtcp_first_range(struct imtcp_est *e, u64 hint_bps, bool app_limited)
{
	u32 mul = app_limited ? IMTCP_FIRST_APP_MUL : IMTCP_FIRST_HI_MUL;

	set_range(e, hint_bps / IMTCP_FIRST_LO_DIV, hint_bps * mul);
}

/*
 * Keep the range between @floor_bps and @cap_bps. The connection's own
 * delivery rate is a lower bound of A: over any period its throughput
 * through the bottleneck is at most C minus the other traffic there; with
 * that floor (less a margin for the noise of single rate samples) noise
 * cannot walk the range down. The cap stops a path whose streams never
 * rise (a sender slower than the path) from doubling the range forever.
 */
void imtcp_est_bound(struct imtcp_est *e, u64 floor_bps, u64 cap_bps)
{
	u64 width_bps = e->hi_bps - e->lo_bps;

	if (e->lo_bps < floor_bps)
		set_range(e, floor_bps,
			  max_t(u64, e->hi_bps, floor_bps + width_bps / 2));
	if (cap_bps > floor_bps && e->hi_bps > cap_bps)
		set_range(e, min_t(u64, e->lo_bps, cap_bps / 2), cap_bps);
}

/*
 * The lowest rate a measurement may start from: 3/4 of the delivery rate
 * @dlv_bps (a lower bound of A, less a margin for the noise of single
 * rate samples) and half of a second rate: where the window limits the
 * sender (@window_limited), the window's rate @window_bps (a stream
 * slower than that would hold the connection back); else the
 * connection's own latest delivery rate @own_bps, the application's
 * rate, which the path carries.
 *
 * The window's rate, also in slow start: not from the slow start's own
 * pace, twice the window's rate. From the 4 N
 * at which a slow start may hold (imtcp_cu.c), at MTU 9000 and C = 100
 * Mbit/s that pace is already above C, every result lies below its
 * range and is dropped, and the first estimate waits for the loss
 * recovery that ends the slow start (11-21 RTT). From half the window's
 * rate it comes after 4.0-4.6 RTT where A >= 60 (two runs), and imtcp
 * against reno from a common start (20 s pairs, MTU 1500, C = 50) keeps
 * its share: 1.046 beside 1.058 with measure=N (10 pairs each).
 *
 * An application-limited sender's window says nothing about A: one at 10
 * Mbit/s had a cwnd of 183 segments, and half its rate, 24 Mbit/s, kept
 * every result of a run where A was 13.9 at the range's lower edge. With
 * no second rate at all its streams began at 0.1 Mbit/s, and a frame
 * waited up to 116 ms for one gap.
 */
u64 imtcp_range_floor(u64 dlv_bps, u64 window_bps, u64 own_bps,
		      bool window_limited)
{
	u64 second_bps = window_limited ? window_bps : own_bps;

	return max_t(u64, dlv_bps - dlv_bps / 4, second_bps / 2);
}

/*
 * How far a range past the upper edge reaches, from its new base
 * @top_bps: one and a half of the old @width_bps past it; with
 * e->up_wide (the module's up_wide), where there is a result, at least
 * as far as a range around that base would (IMTCP_RANGE_UP times it).
 * A narrow range (a floor lifted under it, a lower-edge result before)
 * otherwise climbs to a risen A by 1.5 widths a measurement: in the VM
 * (MTU 1500, C = 30 Mbit/s, a 5 Mbit/s media sender, A from 6 to 18)
 * one lifted to 6.4-9.6 Mbit/s took three measurements to reach A. In
 * the unit tests' simulated path (C = 100, A = 20-80, 240 cases) the
 * first result inside its range came after 3.8 measurements from a
 * range of 2-8 Mbit/s instead of 4.6, in none later.
 */
static u64 past_top_bps(const struct imtcp_est *e, u64 top_bps,
			u64 width_bps, u64 result_bps)
{
	u64 hi_bps = top_bps + width_bps + width_bps / 2;

	if (e->up_wide && result_bps)
		hi_bps = max_t(u64, hi_bps, top_bps * IMTCP_RANGE_UP);
	return hi_bps;
}

/*
 * Results at the range's upper edge in a row (imtcp_range_cap_bps): a
 * result anywhere else ends the row, a measurement without one does not.
 */
static void count_tops(struct imtcp_est *e, enum imtcp_edge edge,
		       u64 result_bps)
{
	if (edge == IMTCP_EDGE_HIGH)
		e->tops = min_t(u32, e->tops + 1, U8_MAX);
	else if (result_bps)
		e->tops = 0;
}

/*
 * The next range after a result at an edge of [lo_bps, hi_bps]
 * (@width_bps wide): past that edge, wider. Past the upper edge from
 * the result @result_bps where it lies below hi_bps: that is the
 * highest rate the streams sustained (imtcp_combine), and it lies below
 * where a measurement probed only part of its range (a stream carried
 * over from the measurement before probes the old range's part; a sender
 * slower than planned probes only up to what it sent). Moved from
 * hi_bps, such a range could leave A below it unprobed. In the VM (MTU
 * 1500, C = 30 Mbit/s; ranges read from the tracepoints, approximately)
 * 11 of 16 and 12 of 14 upper-edge results of a bulk flow under steps of
 * A, and all 23 of a media sender's, lay below 0.9 of the range's top
 * (0.68-0.86 of it at the median). Returns false for a result inside
 * the range.
 */
bool imtcp_range_past_edge(struct imtcp_est *e, enum imtcp_edge edge,
			   u64 width_bps, u64 result_bps)
{
	u64 half_bps = width_bps / 2, top_bps = e->hi_bps;

	count_tops(e, edge, result_bps);
	switch (edge) {
	case IMTCP_EDGE_HIGH:
		if (result_bps && result_bps < top_bps)
			top_bps = result_bps;
		set_range(e, top_bps > half_bps ? top_bps - half_bps : 0,
			  past_top_bps(e, top_bps, width_bps, result_bps));
		return true;
	case IMTCP_EDGE_LOW:
		set_range(e, e->lo_bps > width_bps + half_bps ?
			  e->lo_bps - width_bps - half_bps : 0,
			  e->lo_bps + half_bps);
		return true;
	default:
		return false;
	}
}

/*
 * The next range after a result @fit_bps inside the last one: from half
 * of it to three times it, wider by @spread_bps (twice the recent results'
 * spread) where they spread more.
 */
void imtcp_range_around(struct imtcp_est *e, u64 fit_bps, u64 spread_bps)
{
	u64 lo_bps = fit_bps > spread_bps ? fit_bps - spread_bps : 0;

	set_range(e, min_t(u64, fit_bps / 2, lo_bps),
		  max_t(u64, fit_bps * IMTCP_RANGE_UP, fit_bps + spread_bps));
}

/*
 * The highest rate a search range may reach with e->cap_range (the
 * module's cap_range): twice the capacity estimated alongside A
 * (imtcp_cap.c), doubled after each result at the range's upper edge in
 * a row (e->tops), and no bound after IMTCP_CAP_RANGE_LIFTS of them or
 * while no capacity is known (0). A stream above C builds a queue as
 * one at C does, so a range above 2 C spends its upper streams where
 * nothing is learnt: in the VM (MTU 1500, C = 30 Mbit/s) a 5 Mbit/s
 * sender in 1200-byte writes planned streams up to 192 Mbit/s while it
 * estimated C at 29.6. The lift keeps a capacity median that reads low
 * from holding the range below A: each upper-edge result there lifts it.
 */
u64 imtcp_range_cap_bps(const struct imtcp_est *e)
{
	if (!e->cap_range || !e->cap.median_bps ||
	    e->tops > IMTCP_CAP_RANGE_LIFTS)
		return 0;
	return (IMTCP_CAP_RANGE_MUL * e->cap.median_bps) << e->tops;
}
