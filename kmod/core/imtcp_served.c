// SPDX-License-Identifier: GPL-2.0
/*
 * A bound on a measurement's result from the rate the bottleneck served
 * its rising streams at (see imtcp_est.h).
 *
 * From a rising stream's last lowest delay on, the queue grew, so the
 * bottleneck was busy until the stream's last sample, serving the stream
 * and the other traffic in arrival order. In a fluid FIFO the stream got
 * C r / (r + x) of it (r the stream's rate, x the others'), which is at
 * least A = C - x wherever r >= A, as it is where a stream rises, and at
 * most C. So the served rate, the bytes ACKed from that lowest sample to
 * the last over the time between their ACKs, bounds A from above, and it
 * needs no queue standing before the stream.
 *
 * Why it is needed: a stream sweeps its rates upwards, and a token-bucket
 * shaper's bucket, refilled while the link idled (between a media
 * sender's frames, or after a loss emptied the queue), lets its fast end
 * through unqueued. That stream then reads flat where its rates passed C,
 * and the fit places A above C: in the VM, an application-limited sender
 * on an idle path of C = 30 Mbit/s with a bucket of four frames read
 * 47-56 Mbit/s. The next stream, faster still, drains the bucket and
 * rises, and its served rate is C. On the two recordings of that path in
 * tests/unit/traces (5 and 20 Mbit/s senders) capping each result at 9/8
 * of the highest served rate of its rising streams takes the results'
 * median error from 10.9 and 7.0 Mbit/s to 6.9 and 3.9 (p90 from 20.1
 * and 14.2 to 18.4 and 10.3); on the eleven recordings of bulk senders
 * there, the median moves by -0.1 to +2.2 Mbit/s and p90 by -5.3 to
 * +0.1.
 *
 * The margin (1/8) is for the served rate's own noise: an ACK delayed or
 * compressed by the receiver moves one end of the span, and cross
 * traffic that comes in a burst during a short stream takes more of the
 * link than its mean.
 *
 * That noise is large: on the idle 30 Mbit/s path (28.7 of payload) the
 * highest served rate of a measurement read 31-33 Mbit/s at the median
 * of three recorded runs, and 35.6-37.3 at p90, so 9/8 of it held
 * little near C, and an application-limited sender's estimate read
 * 15-27 % of C above A on the idle path and at A = 80 % of C. Every
 * served rate bounds A, though, not only the highest of one measurement:
 * so each connection also remembers the served rates of its last
 * IMTCP_SERVED_HIST rising streams, and a result is held at their
 * median as well (never above the measurement's own 9/8). When A rises,
 * the rates remembered would hold the results down until half of them
 * were new; so two rising streams in a row served faster than 9/8 of the
 * median (in one measurement, or with served_across over consecutive
 * ones: served_rose) start the memory afresh, as does a history of
 * results gone stale (imtcp_est_age_served).
 * Replayed on 44 recordings of media and bulk senders, the mean of
 * their estimates' median errors came to 9.0 % of C from 10.9 (8.7
 * without the fresh start); in short VM runs at A = 80 % of C and on
 * the idle path, 14.2 and 10.6 % of C from 16.7 and 16.6 (medians of
 * 3-4 runs).
 */
#include "imtcp_est.h"

#define IMTCP_SERVED_MARGIN_SHIFT	3	/* cap at served + served / 8 */

/*
 * The rate the bottleneck served one analysed stream @st at, in bit/s
 * (the top of this file); 0 if it did not rise, or if fewer than three
 * samples lie from its last lowest one on.
 */
u64 imtcp_served_bps(const struct imtcp_stream *st)
{
	s32 d[IMTCP_N_MAX];
	u32 first, last, segs;
	s32 span_us;

	if (st->outcome != IMTCP_OUT_RISE || !st->seg_bytes ||
	    st->nsamples < 3)
		return 0;
	first = imtcp_rel_delays(st, d);
	last = st->nsamples - 1;
	if (last - first < 2)
		return 0;
	segs = st->s[last].seg - st->s[first].seg;
	span_us = (s32)(st->s[last].tx_us + st->s[last].delay_us -
			st->s[first].tx_us - st->s[first].delay_us);
	if (!segs || span_us <= 0)
		return 0;
	return imtcp_rate_bps(segs, st->seg_bytes, span_us);
}

/* The median of the rates @mem remembers; 0 if none. */
static u64 served_median(const struct imtcp_served *mem)
{
	return imtcp_median_bps(mem->bps, mem->n);
}

/* Forget every rate @mem remembers. */
void imtcp_served_forget(struct imtcp_served *mem)
{
	mem->n = 0;
	mem->pos = 0;
	mem->faster = 0;
}

/* @bps was served faster than 9/8 of the median @med_bps remembered. */
static bool served_faster(u64 bps, u64 med_bps)
{
	return med_bps && bps > med_bps + (med_bps >> IMTCP_SERVED_MARGIN_SHIFT);
}

/*
 * Whether a measurement's @n served rates @served_bps (the first @known
 * of them counted with the measurement before) show that the link now
 * serves more than the rates @mem remembers (A rose): two rising streams
 * in a row were served faster than 9/8 of their median. Where @mem
 * counts across measurements, the two may come from two (mem->faster
 * carries the run over); otherwise they must come from this one.
 *
 * Why across: a measurement near A has one rising stream, its other
 * stays flat, so after a rise of A the run in one measurement seldom
 * came. Traced (S6 of the accuracy benchmark, a 5 Mbit/s media sender,
 * A from 20 to 60 % of C): after the rise every measurement's one
 * rising stream was served at 15-25 Mbit/s, the median remembered was
 * 11.3, and nine of the next fourteen results read the median, rising
 * with it as new rates replaced old, for 1.7 s.
 */
static bool served_rose(struct imtcp_served *mem, const u64 *served_bps,
			u32 n, u32 known)
{
	u64 med_bps = served_median(mem);
	u32 i;

	if (!mem->across) {
		for (i = 0; i < n; i++)
			if (!served_faster(served_bps[i], med_bps))
				return false;
		return n >= 2;
	}
	for (i = known; i < n; i++)
		mem->faster = served_faster(served_bps[i], med_bps) ?
			      mem->faster + 1 : 0;
	return mem->faster >= 2;
}

/*
 * Remember a measurement's @n served rates @served_bps (of its rising
 * streams), but for the first @known, remembered before (a stream
 * carried over from the measurement before, imtcp_cu_carry). If the link
 * now serves more than they say (served_rose), the older rates are
 * forgotten first.
 */
static void served_remember(struct imtcp_served *mem, const u64 *served_bps,
			    u32 n, u32 known)
{
	u32 i;

	if (served_rose(mem, served_bps, n, known))
		imtcp_served_forget(mem);
	for (i = known; i < n; i++) {
		mem->bps[mem->pos] = served_bps[i];
		mem->pos = (mem->pos + 1) % IMTCP_SERVED_HIST;
		if (mem->n < IMTCP_SERVED_HIST)
			mem->n++;
	}
}

/*
 * Every one of a measurement's @k analysed streams @st stayed flat, the
 * fastest up to above 9/8 of the median of the rates @mem remembers: A
 * lies above that median, which then no longer bounds it (A rose since
 * those rates were served), and they are forgotten. Not where the
 * fastest stream went beyond the path's capacity @capacity_bps (0: not
 * known yet): a token bucket refilled while the link idled lets such a
 * stream through flat (the top of this file). Traced (S1 of the
 * accuracy benchmark, a bulk flow, A from 20 to 60 % of C): after the
 * step, two measurements' streams stayed flat up to 12.5 and 29.7
 * Mbit/s, and four of the next seven results read the memory's cap,
 * 9.9 Mbit/s (their median), for A = 16.9: the fresh start in
 * served_remember needs two rising streams served faster, and a
 * measurement near A has one.
 */
void imtcp_served_outrun(struct imtcp_served *mem,
			 const struct imtcp_stream *st, u32 k, u64 capacity_bps)
{
	u64 top_bps;
	u32 i;

	if (!mem->n || !k)
		return;
	for (i = 0; i < k; i++)		/* most measurements stop here */
		if (st[i].outcome != IMTCP_OUT_FLAT)
			return;
	top_bps = st[imtcp_fastest_stream(st, k)].hi_bps;
	if (capacity_bps && top_bps > capacity_bps)
		return;
	if (served_faster(top_bps, served_median(mem)))
		imtcp_served_forget(mem);
}

/*
 * A measurement's result @fit_bps (imtcp_combine) held at 9/8 of the
 * highest served rate of its @k analysed streams @st, if any rose, and
 * at the median of the served rates @mem remembers (which takes this
 * measurement's, but for its first @known streams', carried over and
 * remembered with the measurement before; NULL: this measurement's cap
 * alone). A result so held lies inside what was probed: no longer at an
 * edge, and the fit's standard error no longer applies (@edge, @rse).
 */
u64 imtcp_served_cap(const struct imtcp_stream *st, u32 k, u32 known,
		     u64 fit_bps, struct imtcp_served *mem,
		     enum imtcp_edge *edge, u32 *rse)
{
	u64 served_bps[IMTCP_K_MAX], high_bps = 0, cap_bps;
	u32 i, n = 0, n_known = 0;

	for (i = 0; i < k; i++) {
		served_bps[n] = imtcp_served_bps(&st[i]);
		if (!served_bps[n])
			continue;
		high_bps = max_t(u64, high_bps, served_bps[n++]);
		if (i < known)
			n_known = n;
	}
	if (!n)
		return fit_bps;
	cap_bps = high_bps + (high_bps >> IMTCP_SERVED_MARGIN_SHIFT);
	if (mem) {
		served_remember(mem, served_bps, n, n_known);
		cap_bps = min_t(u64, cap_bps, served_median(mem));
	}
	if (fit_bps <= cap_bps)
		return fit_bps;
	*edge = IMTCP_EDGE_NONE;
	*rse = 0;
	return cap_bps;
}
