// SPDX-License-Identifier: GPL-2.0
/*
 * A bound on A from the connection's own delivery rate (see imtcp_busy.h).
 *
 * While a queue stands at the bottleneck the link is busy, and all it
 * serves is this connection and the other traffic; so what the connection
 * is delivered at over such a time is C less the others' rate: A itself
 * (the benchmark's truth, C - cross at the router, is the same figure).
 * A measurement, though, sees A over its streams, a few milliseconds,
 * where a burst or a gap of the cross traffic (or, at MTU 9000 and A = 20
 * Mbit/s in the VM, the service of one 9 KB cross datagram, 0.7 ms of a
 * stream of 3-12 ms) weighs heavily; a connection's first results there
 * read 34-59 Mbit/s for a delivery rate of 20-30 (traced: the delays of
 * those streams really did rise as if A were 43-76). Such a result is
 * held at the highest rate the connection was delivered at over busy
 * intervals in the last one to two windows of b->window_rtts srtt (the
 * module's busy_window_rtts, default 2), or b->margin_pct above it (its
 * busy_margin, default 0). That highest rate already lies above A where
 * the cross traffic scatters (it is the maximum of the samples of 2-4
 * srtt), so a margin on top only let high results through: in 79 recorded
 * runs at MTU 1500 (C = 30 Mbit/s) replayed with no margin instead of
 * 5/4, a bulk flow's mean median / p90 error fell from 2.74 / 7.59 to
 * 1.65 / 4.56 % of C under steps of A and from 6.33 / 15.44 to 4.75 /
 * 10.68 under Poisson cross traffic at 60 %. A margin suits a bottleneck
 * that delivers less than A while its queue stands (a shaper losing
 * capacity to late timers: at MTU 9000 and C = 100 in the VM, 5/4 did
 * better, 3.25 / 7.59 Mbit/s against 3.82 / 8.69 in S1). A falling A
 * brings the bound down within two windows; a rising one raises it at once
 * where the queue still stands, as the connection takes the room; where
 * the queue empties as A rises, no interval is busy any more, and the
 * windows keep the old rate until they end (2-4 srtt), which with no
 * margin held the estimate there (replayed: 15 of 44 rises of A followed
 * within 10 RTT, against 17; once the cap stood at 13.0 Mbit/s for 0.3 s
 * after A rose to 16.8), until a measurement's streams that stay flat
 * above the cap make the connection forget them (imtcp_busy_outrun).
 * While a queue still holds more of the connection's data than it would
 * at A (after a slow start's overshoot) the connection gets more than A:
 * the bound is loose then, not wrong.
 *
 * Windows of 2 srtt, not 4 (before 2026-12-01): where A falls while the
 * connection's window is large, Reno's loss recovery follows and nothing
 * is measured for a few RTT, so the cap is what brings the published
 * figure down. In the VM (MTU 1500, C = 30, S1's fall from 60 to 20 % of
 * C, published figure to within 10 % of C) windows of 2 srtt took 6.9
 * and 9.9 RTT (one boot, alternating with 4: 11.1 and 12.8), and 8.6,
 * 8.3, 8.7, 7.6 in the next; windows of 4 had taken 9.7-14.5 in the
 * day's earlier boots. The published figure's error over S1 was the same
 * (median / p90 1.5-1.7 / 4.4-5.8 % of C with 2, 1.6 / 4.2-4.9 with 4),
 * and under Poisson cross traffic the results' too.
 *
 * The same rate bounds a result from below: over a time in which the
 * queue neither grows nor drains, the connection cannot have been
 * delivered at more than A. Results of the fit scatter to both sides of
 * A with the cross traffic's bursts (in an accuracy run at MTU 9000,
 * C = 100 Mbit/s, CBR cross traffic and A = 59.5, a tenth of them read
 * 17 or more below A), and a short median lets low ones through when
 * they come in a row. So a result is also held at b->floor_pct (the
 * module's busy_floor_pct, default 97) of the busy rate, taken here as
 * the lowest of the two windows' maxima and the highest since the last
 * measurement (imtcp_busy_floor_bps): where the queue grew or drained
 * and the connection got more than A (a slow start's overshoot, the
 * window it had before A fell, until its next loss), that lasts an RTT
 * or two. 97 %, not 9/10 (before 2026-12-02): where A is near C a
 * stream above A barely rises, the fit reads low, and in a bulk flow at
 * A = 90 % of C (MTU 1500, C = 30) a third of the results were held at
 * the floor, the estimate 2.2 Mbit/s under A with them. The recorded
 * runs at MTU 1500 replayed with 90, 95, 97 and 100 % gave a mean
 * median / p90 error of 0.92 / 2.77, 0.75 / 2.66, 0.70 / 2.66 and
 * 0.82 / 2.64 Mbit/s over 17 runs of bulk flows (that at A = 90 %:
 * 1.76 / 6.19, 0.80, 0.37 and 0.49 at the median); media senders seldom
 * have a busy rate, and their figures did not move. In the VM (one
 * boot, a run each way): at A = 90 % of C 1.8 / 9.4 % of C against
 * 6.1 / 10.8 with 90, under S1's steps 1.6 / 6.9 against 2.0 / 10.1.
 *
 * The floor also takes the connection's own rate where no queue stood
 * (own_floor, 2026-12-02; on by default since 2026-12-03: a media
 * sender's capacity estimate that read 0.59-0.68 C in 3 of its first 17
 * runs of imtcp_measure.sh with it, none in the 18 after, read 0.51 C
 * once without it as well; Documentation/benchmarks.rst): over a sample's own
 * interval (at least the minimum RTT) a window-limited connection was
 * delivered at no more than A, whatever the queue did, since the others
 * took the rest of C. Where A rises and the queue empties, no rate is
 * busy, while results on a thin window come seconds apart (the hold
 * budget): S1's rise from 20 to 60 % of C read the old level for 30-60
 * RTT while the delivery rate followed in 24. The same two windows and
 * the rate since the last measurement are kept of these samples, and
 * the floor is the higher of the two. Replayed roughly on 23 recorded
 * bulk runs (the kernel's delivery rate every 100 ms standing in for
 * the samples), the figure's mean median / p90 error fell from 3.42 /
 * 12.30 to 3.02 / 10.42 % of C, p90 lower in 21 and higher in none.
 * In the VM (S1, one boot, faithful path, on then off): at each result
 * 1.3 / 5.3 against 1.4 / 5.4, the steps within 10 % of C after 5.6,
 * 3.4, 14.0, 8.7 RTT against 8.5, 4.4, 11.2, 29.9 (the delivery rate:
 * 23.8-24.0 for the rise from 20 %).
 *
 * The estimate itself is held within the same bounds (imtcp_est.c):
 * they say where A is now, while the median and the EWMA remember
 * where it was, and where A is small results come seconds apart. So
 * between results too, what is published is held under the cap as it
 * is at each ACK (imtcp_busy_capped; imtcp_meas.c): a fall of A shows
 * within the 2-4 srtt the windows take, without waiting for a result
 * (traced in the VM: an MPTCP subflow whose path fell from 8 to 1
 * Mbit/s had its next result 9 s later, and its estimate read the old
 * level until then while its busy rate read 1.0). With own_floor it is
 * held over the floor as well (imtcp_busy_shown), so that a rise shows
 * as the connection takes the room.
 *
 * Busy means every ACK over the rate sample's interval came back more
 * than @empty_us after the minimum RTT would have (the caller's margin
 * for delay noise): an ACK within it says the queue may have emptied,
 * and from then on the link may have idled, so the connection's rate
 * says nothing about A. Application-limited rate samples are not offered
 * (the caller's job): such a sender is delivered at its own rate.
 */
#include "imtcp_busy.h"

/* No busy rate known: both windows' maxima and the recent one empty. */
static void forget_rates(struct imtcp_busy *b)
{
	b->max_bps[0] = 0;
	b->max_bps[1] = 0;
	b->recent_bps = 0;
}

/* @margin_pct: the cap's margin (imtcp_busy_cap_bps), at most 100. */
void imtcp_busy_init(struct imtcp_busy *b, u64 now_us, u32 margin_pct)
{
	b->margin_pct = min_t(u32, margin_pct, IMTCP_BUSY_MARGIN_MAX);
	b->window_rtts = IMTCP_BUSY_WINDOW_RTTS;
	b->floor_pct = IMTCP_BUSY_FLOOR_PCT;
	b->since_us = now_us;
	b->start_us = now_us;
	b->own_floor = true;
	b->own_cap = true;
	forget_rates(b);
	b->own_bps[0] = 0;
	b->own_bps[1] = 0;
	b->own_recent_bps = 0;
}

/* Each window of the maximum @rtts srtt long, 1 to IMTCP_BUSY_WINDOW_MAX. */
void imtcp_busy_set_window(struct imtcp_busy *b, u32 rtts)
{
	b->window_rtts = clamp_t(u32, rtts, 1, IMTCP_BUSY_WINDOW_MAX);
}

/* The floor at @pct percent of the busy rate, at most 100 (0: none). */
void imtcp_busy_set_floor(struct imtcp_busy *b, u32 pct)
{
	b->floor_pct = min_t(u32, pct, 100);
}

/*
 * Start a new window of the maximum every b->window_rtts srtt;
 * after two windows' time or more without one, both are over.
 */
static void next_window(struct imtcp_busy *b, u64 now_us, u32 srtt_us)
{
	u64 win_us = (u64)srtt_us * b->window_rtts;
	bool next = now_us - b->start_us < 2 * win_us;

	if (now_us - b->start_us < win_us)
		return;
	b->max_bps[1] = next ? b->max_bps[0] : 0;
	b->max_bps[0] = 0;
	b->own_bps[1] = next ? b->own_bps[0] : 0;
	b->own_bps[0] = 0;
	b->start_us = now_us;
}

/*
 * An ACK with an RTT sample (@rtt_us < 0: none): did it see a queue?
 * The windows move on every ACK, not only with the rate samples that
 * count: an application-limited sender offers none, and a busy rate it
 * had once must not bound it for good.
 */
void imtcp_busy_ack(struct imtcp_busy *b, u64 now_us, s64 rtt_us,
		    u32 empty_us, u32 srtt_us)
{
	next_window(b, now_us, srtt_us);
	if (rtt_us >= 0 && rtt_us <= empty_us)
		b->since_us = now_us;
}

/*
 * Would @bits over @interval_us (their rate rounded down) stay at or
 * below @max_bps? Told without dividing (this runs per ACK) where the
 * products fit in 64 bits: the rate exceeds max_bps exactly when
 * bits * 10^6 >= (max_bps + 1) * interval_us. Otherwise false, and the
 * caller divides.
 */
static bool not_above(u64 bits, u32 interval_us, u64 max_bps)
{
	if (bits >= (1ULL << 40) || max_bps >= (1ULL << 39) ||
	    interval_us >= (1U << 24))
		return false;
	return bits * 1000000 < (max_bps + 1) * interval_us;
}

/*
 * Raise the window's maximum @window_bps and the one since the last
 * measurement @recent_bps to @delivered segments of @mss bytes over
 * @interval_us (both nonzero) where that rate lies above either;
 * dividing only then.
 */
static void raise_maxima(u64 *window_bps, u64 *recent_bps, u32 delivered,
			 u32 mss, u32 interval_us)
{
	u64 bps;

	if (not_above((u64)delivered * mss * 8, interval_us,
		      min_t(u64, *window_bps, *recent_bps)))
		return;
	bps = imtcp_rate_bps(delivered, mss, interval_us);
	*window_bps = max_t(u64, *window_bps, bps);
	*recent_bps = max_t(u64, *recent_bps, bps);
}

/*
 * A rate sample: @delivered segments of @mss bytes over the @interval_us
 * that ended now. It counts if the queue stood all that time. Its ACK
 * went through imtcp_busy_ack first, which moved the windows on.
 */
void imtcp_busy_rate(struct imtcp_busy *b, u64 now_us, u32 delivered,
		     u32 mss, u32 interval_us)
{
	if (!delivered || !interval_us || now_us < b->since_us ||
	    now_us - b->since_us < interval_us)
		return;
	raise_maxima(&b->max_bps[0], &b->recent_bps, delivered, mss,
		     interval_us);
}

/*
 * Whether the floor also takes the own rates (imtcp_busy_own_rate), and
 * the cap never lies below that floor (imtcp_busy_cap_bps).
 */
void imtcp_busy_set_own(struct imtcp_busy *b, bool on)
{
	b->own_floor = on;
	b->own_cap = on;
}

/*
 * A rate sample, busy or not: @delivered segments of @mss bytes over the
 * sample's own @interval_us (the longer of its send and ACK intervals,
 * at least the minimum RTT). Whatever the queue did, the connection was
 * delivered at no more than A over it, give or take a queue of its own
 * draining: the other traffic took the rest of C. Its ACK went through
 * imtcp_busy_ack first, which moved the windows on. Not kept without
 * b->own_floor: nothing reads them then (this runs per ACK).
 */
void imtcp_busy_own_rate(struct imtcp_busy *b, u32 delivered, u32 mss,
			 u32 interval_us)
{
	if (!b->own_floor || !delivered || !interval_us)
		return;
	raise_maxima(&b->own_bps[0], &b->own_recent_bps, delivered, mss,
		     interval_us);
}

/* The highest busy delivery rate of the last two windows; 0: none. */
u64 imtcp_busy_bps(const struct imtcp_busy *b)
{
	return max_t(u64, b->max_bps[0], b->max_bps[1]);
}

/*
 * The lowest of the two windows' highest busy rates and the highest
 * since the last measurement ended; 0 unless all three had one. What
 * the connection gets beyond A while a queue it overfilled drains (a
 * slow start's overshoot) lasts an RTT or two, so it rarely fills both
 * windows, while a queue that stands at A does; and after A falls the
 * rate since the last measurement follows by the next one, where the
 * windows (then of 4 srtt) took 4-8 srtt (in an accuracy run a result of 35.0
 * for A = 38.1 was held at 51.4, 0.2 s after A fell from 59.5). With
 * b->own_floor, the higher of that and the same taken of the own rates
 * (imtcp_busy_own_rate).
 */
u64 imtcp_busy_floor_bps(const struct imtcp_busy *b)
{
	u64 busy_bps = min_t(u64, min_t(u64, b->max_bps[0], b->max_bps[1]),
			     b->recent_bps);
	u64 own_bps;

	if (!b->own_floor)
		return busy_bps;
	own_bps = min_t(u64, min_t(u64, b->own_bps[0], b->own_bps[1]),
			b->own_recent_bps);
	return max_t(u64, busy_bps, own_bps);
}

/* A measurement ended: the highest rates since then start anew. */
void imtcp_busy_measured(struct imtcp_busy *b)
{
	b->recent_bps = 0;
	b->own_recent_bps = 0;
}

/*
 * The cap: the highest busy rate (imtcp_busy_bps) and b->margin_pct
 * percent more; 0: none. With b->own_cap never below the floor
 * (imtcp_busy_floor_bps): the connection was delivered at that rate over
 * each of its last two windows, so a busy rate below it is one that read
 * low (after losses, while the queue refilled: in an S1 run with
 * own_floor, where the floor lay above the cap, A lay above both in 18
 * of 19 results).
 */
static u64 cap_over(const struct imtcp_busy *b, u64 floor_bps)
{
	u64 cap_bps = imtcp_busy_bps(b);

	if (b->margin_pct)	/* divide only where a margin is set (not by default) */
		cap_bps += div_u64(cap_bps * b->margin_pct, 100);
	if (!cap_bps || !b->own_cap)
		return cap_bps;
	return max_t(u64, cap_bps, floor_bps);
}

u64 imtcp_busy_cap_bps(const struct imtcp_busy *b)
{
	return cap_over(b, b->own_cap ? imtcp_busy_floor_bps(b) : 0);
}

/*
 * A measurement's streams all stayed flat up to @fit_bps (@edge high)
 * above the cap: A rose past the rate the connection was delivered at
 * while its queue stood, and that queue has since emptied (a stream
 * above A on a standing queue rises), so the windows' maxima are
 * forgotten and bound nothing until busy samples come again. Without
 * this a rise of A was held at the old rate for up to two windows, and the
 * results held there kept the median low for three more: in the VM
 * (MTU 1500, C = 30) a rise from 5.7 to 16.9 Mbit/s read 5.7 for 51
 * RTT while results of 16.6-23.9 came within 0.32 s. Returns whether
 * they were forgotten.
 */
bool imtcp_busy_outrun(struct imtcp_busy *b, u64 fit_bps,
		       enum imtcp_edge edge)
{
	u64 cap_bps = imtcp_busy_cap_bps(b);

	if (edge != IMTCP_EDGE_HIGH || !cap_bps || fit_bps <= cap_bps)
		return false;
	forget_rates(b);
	return true;
}

/* @rate_bps held at or below the cap (imtcp_busy_cap_bps), if any. */
u64 imtcp_busy_capped(u64 rate_bps, const struct imtcp_busy *b)
{
	u64 top_bps = imtcp_busy_cap_bps(b);

	return top_bps && rate_bps > top_bps ? top_bps : rate_bps;
}

/*
 * Whether listeners who last heard @told_bps at @told_us should hear that
 * the figure shown is now @shown_bps (the cap moved it between results,
 * or let it back up; imtcp_meas.c): it lies more than an eighth of the
 * larger of the two away, and at least @srtt_us has passed since they
 * last heard. The eighth is the busy rate's own scatter, so the cap's
 * jitter at a steady A tells nothing; the srtt spaces the news of a
 * fall (2-4 srtt long) to a few messages. A figure that stays off is
 * told once the srtt has passed, with whatever ACK comes then.
 */
bool imtcp_busy_move_news(u64 shown_bps, u64 told_bps, u64 now_us,
			  u64 told_us, u32 srtt_us)
{
	u64 hi_bps = max_t(u64, shown_bps, told_bps);
	u64 lo_bps = min_t(u64, shown_bps, told_bps);

	return hi_bps - lo_bps > hi_bps / 8 && now_us - told_us >= srtt_us;
}

/*
 * @rate_bps held between b->floor_pct of the floor (imtcp_busy_floor_bps)
 * and the cap (imtcp_busy_cap_bps; either 0: no such bound). A rate at
 * or above the floor itself needs no division.
 */
u64 imtcp_busy_hold(u64 rate_bps, const struct imtcp_busy *b)
{
	u64 bottom_bps = imtcp_busy_floor_bps(b);	/* once: the cap's too */
	u64 top_bps = cap_over(b, bottom_bps), gap_bps;

	if (top_bps && rate_bps > top_bps)
		return top_bps;
	if (rate_bps >= bottom_bps)
		return rate_bps;
	gap_bps = div_u64(bottom_bps * (100 - b->floor_pct), 100);
	return max_t(u64, rate_bps, bottom_bps - gap_bps);
}

/*
 * The figure shown for the estimate @rate_bps between results
 * (imtcp_meas.c, per ACK): held within both bounds with b->own_floor
 * (imtcp_busy_hold), else only under the cap, as before it.
 */
u64 imtcp_busy_shown(u64 rate_bps, const struct imtcp_busy *b)
{
	return b->own_floor ? imtcp_busy_hold(rate_bps, b) :
			      imtcp_busy_capped(rate_bps, b);
}

/*
 * A result @raw_bps (imtcp_combine, with its @edge and @rse) held so
 * (imtcp_busy_hold). A result held is no longer at the edge it was held
 * from, and its standard error, the fit's, no longer applies (0:
 * unknown). One held from beyond an edge stays there (the bound agrees:
 * A lies further out still).
 */
u64 imtcp_busy_bound(u64 raw_bps, const struct imtcp_busy *b,
		     enum imtcp_edge *edge, u32 *rse)
{
	u64 held_bps = imtcp_busy_hold(raw_bps, b);

	if (held_bps == raw_bps)
		return raw_bps;
	if (*edge != (held_bps < raw_bps ? IMTCP_EDGE_LOW : IMTCP_EDGE_HIGH))
		*edge = IMTCP_EDGE_NONE;
	*rse = 0;
	return held_bps;
}
