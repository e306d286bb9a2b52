// SPDX-License-Identifier: GPL-2.0
/*
 * The estimate (see imtcp_est.h): each measurement's result, held within
 * the busy link's bounds, joins the recent results; the estimate follows
 * their median through an EWMA (a result the fit finds imprecise moves
 * it less), jumps where the latest results agree on a new level, and a
 * connection's first result stands only until the next.
 */
#include "imtcp_est.h"
#include "imtcp_busy.h"

#define IMTCP_MEDIAN		5	/* raw results in the median */
#define IMTCP_STEP_RESULTS	3	/* results that agree on a step */
#define IMTCP_FALL_RESULTS	2	/* on a fall, with fast_fall */
#define IMTCP_RSE_FULL		100	/* permille: counts in full (smooth) */
#define IMTCP_WEIGHT_FULL	256	/* a result's weight in the estimate */
#define IMTCP_WEIGHT_MIN	13	/* at least 1/20 */

/* Mean absolute deviation of the recent results. */
static u64 hist_spread(const struct imtcp_est *e)
{
	u64 sum = 0, dev = 0, mean;
	u32 i;

	for (i = 0; i < e->nhist; i++)
		sum += e->hist_bps[i];
	mean = div_u64(sum, e->nhist);
	for (i = 0; i < e->nhist; i++)
		dev += e->hist_bps[i] > mean ? e->hist_bps[i] - mean :
					   mean - e->hist_bps[i];
	return div_u64(dev, e->nhist);
}

/* Median of the latest IMTCP_MEDIAN raw results (fewer at the start). */
static u32 recent_median(const struct imtcp_est *e)
{
	u32 i, j, n = min_t(u32, e->nhist, IMTCP_MEDIAN), v[IMTCP_MEDIAN];

	for (i = 0; i < n; i++) {
		u32 h = (e->hist_pos + IMTCP_HIST - 1 - i) % IMTCP_HIST;

		for (j = i; j > 0 && e->hist_bps[v[j - 1]] > e->hist_bps[h]; j--)
			v[j] = v[j - 1];
		v[j] = h;
	}
	return v[(n - 1) / 2];
}

/*
 * The weight (of IMTCP_WEIGHT_FULL) of the result in hist[@h]: full if
 * its standard error is unknown or at most the larger of
 * IMTCP_RSE_FULL and the median of the recent results' (the path's usual
 * precision), less beyond that, as the inverse of its variance.
 */
static u32 result_weight(const struct imtcp_est *e, u32 h)
{
	u32 v[IMTCP_HIST], i, j, n = 0;
	u64 ref;

	if (!e->hist_rse[h])
		return IMTCP_WEIGHT_FULL;
	for (i = 0; i < e->nhist; i++) {
		if (!e->hist_rse[i])
			continue;
		for (j = n++; j > 0 && v[j - 1] > e->hist_rse[i]; j--)
			v[j] = v[j - 1];
		v[j] = e->hist_rse[i];
	}
	ref = max_t(u32, v[(n - 1) / 2], IMTCP_RSE_FULL);
	if (e->hist_rse[h] <= ref)
		return IMTCP_WEIGHT_FULL;
	return max_t(u32, div64_u64(ref * ref * IMTCP_WEIGHT_FULL,
				    (u64)e->hist_rse[h] * e->hist_rse[h]),
		     IMTCP_WEIGHT_MIN);
}

/*
 * A new level of A: the latest @nres results, each of full weight, all
 * lie more than @off_bps away from the estimate on the same side (below
 * it, if @fall_only), and the lowest is within a quarter of the highest.
 * Returns their mean then, else 0.
 */
static u64 agreed_level(const struct imtcp_est *e, u32 nres, u64 off_bps,
			bool fall_only)
{
	u64 s = e->estimate_bps, lo = U64_MAX, hi = 0, sum = 0;
	int side = 0, sd;
	u32 i, h;

	if (e->nhist < nres)
		return 0;
	for (i = 0; i < nres; i++) {
		h = (e->hist_pos + IMTCP_HIST - 1 - i) % IMTCP_HIST;
		sd = e->hist_bps[h] > s + off_bps ? 1 :
		     e->hist_bps[h] + off_bps < s ? -1 : 0;
		if (!sd || (side && sd != side) || (fall_only && sd > 0) ||
		    result_weight(e, h) < IMTCP_WEIGHT_FULL)
			return 0;
		side = sd;
		lo = min_t(u64, lo, e->hist_bps[h]);
		hi = max_t(u64, hi, e->hist_bps[h]);
		sum += e->hist_bps[h];
	}
	if (hi - lo > hi / 4)
		return 0;
	return div_u64(sum, nres);
}

/*
 * How far a result must lie from the estimate to say A may have moved:
 * more than a quarter of the estimate and more than the recent results'
 * spread (so that the scattered results of an idle path's media sender
 * do not). fast_fall's fall and lies_off both use it.
 */
static u64 off_distance_bps(const struct imtcp_est *e)
{
	return max_t(u64, e->estimate_bps >> 2, hist_spread(e));
}

/*
 * Where the estimate jumps (0: nowhere). With fast_fall, to a fall of A
 * that two results agree on, both below the estimate by more than a
 * quarter of it and by more than the recent results' spread (so that
 * the scattered results of an idle path's media sender do not make
 * one); a rise is left to the median and the EWMA. Without it, to a
 * step either way that three results agree on, each more than an
 * eighth of the estimate away.
 */
static u64 step_level(const struct imtcp_est *e, const struct imtcp_est_cfg *c)
{
	u64 s = e->estimate_bps;

	if (c->fast_fall)
		return agreed_level(e, IMTCP_FALL_RESULTS, off_distance_bps(e),
				    true);
	return agreed_level(e, IMTCP_STEP_RESULTS, s >> 3, false);
}

/*
 * Does @raw_bps, the result just added, lie off the estimate it found
 * (off_distance_bps, on either side)? A change of A is then likely, and
 * the estimate moves only once more results say so: the control unit
 * lets the next measurements start sooner (imtcp_cu_off).
 */
static bool lies_off(const struct imtcp_est *e, u64 raw_bps)
{
	u64 s = e->estimate_bps;
	u64 d = raw_bps > s ? raw_bps - s : s - raw_bps;

	return s && d > off_distance_bps(e);
}

/*
 * With c->lift_off (the module's lift_off): whether the figure shown
 * between results, @shown_bps, lies off the estimate above it (lies_off):
 * the busy-link or own floor (imtcp_busy_shown) lifted it there, so the
 * connection itself was delivered at that much, and A rose past the
 * estimate. The control unit then treats it as a result off the
 * estimate (imtcp_cu_off): the next measurement may start in debt, within
 * off_debt_rtts. Traced (S6 of the accuracy benchmark, a 5 Mbit/s media
 * sender, A from 20 to 60 % of C, own_floor on): the floor lifted the
 * figure from 4.4 to 7.6 and 11.6 Mbit/s 0.1-0.9 s after the rise, then
 * fell back to 4.4 once the sender's backlog was gone and its samples
 * were application-limited again; the next measurement waited 1.9 s for
 * the budget (37.6 ms in debt after holds on the 20 % phase's window),
 * and the estimate reached 10 % of C of A after 35 RTT. A fall is not
 * taken so: the busy cap shows it within the windows' 2-4 srtt, and a
 * measurement on a busy link costs the window's share.
 */
bool imtcp_est_shown_off(const struct imtcp_est *e,
			 const struct imtcp_est_cfg *c, u64 shown_bps)
{
	return c->lift_off && shown_bps > e->estimate_bps &&
	       lies_off(e, shown_bps);
}

/*
 * The reported estimate: a short median (one stream set sees A over a
 * few ms, where bursty cross traffic makes single results scatter
 * without bias), then an EWMA with gain 2^-gain_shift, scaled by that
 * result's weight: a result the fit itself finds imprecise moves the
 * estimate less. In the VM's recordings (MTU 9000, C = 100, A = 38-79,
 * 485 standing-queue results) those with a standard error under 10 %
 * were off by 4.2 Mbit/s (median of 261), 10-20 % by 8.2 (127), over
 * 20 % by 16.7 (97). The median is of five: replayed exactly on the
 * results of four accuracy runs (32 scenario runs), against a median
 * of three it lowered the p90 error in 24 and raised it in 3 (by at
 * most 0.7 % of C; mean p90 9.8 -> 8.9 % of C, mean median 3.8 -> 3.6),
 * but followed S1's steps later. Where three results in a row agree on
 * a new level (step_level), the estimate goes there at once: with it
 * the steps were followed about as soon as with a median of three
 * (replayed: 915 RTT in all against 892; one fall from 60 to 40 in 12
 * RTT instead of 32), the p90 error still lower in 22 of 32 and
 * higher in 3 (mean 9.0). At MTU 1500 (C = 30, 2026-11-30) the results
 * of 79 recorded runs (20 with steps of A, 88 steps; S6 under a 5
 * Mbit/s media sender, whose results come one per three RTT), replayed:
 * the three-result rule followed 29 steps within 10 % of C in 10 RTT,
 * mean median / p90 error 3.85 / 10.02 % of C; no jump at all 25, 3.73
 * / 9.65 (the jumps of rises cost more than they gain: a bucket's
 * bursts scatter results upward); the fall rule of fast_fall 34 (falls
 * 17 of 44 against 11), 3.80 / 9.94. A first result within 10 % of C
 * came within 10 RTT in 39 of the first 56 steps: what the
 * measurements give, not the smoothing, holds the rest.
 */
static void smooth(struct imtcp_est *e, const struct imtcp_est_cfg *c)
{
	u32 h = recent_median(e), w = result_weight(e, h);
	u64 med = e->hist_bps[h], step, level;

	if (!e->estimate_bps) {
		e->estimate_bps = med;
		return;
	}
	level = step_level(e, c);
	if (level) {
		e->estimate_bps = level;
		return;
	}
	step = med >= e->estimate_bps ? med - e->estimate_bps : e->estimate_bps - med;
	step = div_u64((step >> c->gain_shift) * w, IMTCP_WEIGHT_FULL);
	if (med >= e->estimate_bps)
		e->estimate_bps += step;
	else
		e->estimate_bps -= step;
}

/*
 * The connection's first result is provisional. It is measured at the
 * start, on a window of a few segments and a range from a guess (the
 * rate hint), and in the VM a stream there may
 * run out of window or stall (one stalled 26 ms, then sent its last six
 * segments at once): in one benchmark run four first results in nine
 * read a tenth of A or less, and a median of three kept such a result
 * as the estimate for 2-4 s, until two more came. So a first result at
 * the lower edge (every stream rose: A is below a guessed range, or the
 * streams were disturbed; the two such results seen in traces were far
 * below A) is not reported; only the range moves down, so that the next
 * measurement also probes below it (a range left where it was, above A,
 * gave the same edge again, and that one was reported: 60-80 Mbit/s for
 * A = 9-19 at MTU 9000, standing for seconds under the hold budget).
 * The first estimate the connection reports is replaced by the next
 * result instead of averaged with it. Returns whether @edge is the
 * first result's lower edge.
 */
static bool first_at_low_edge(struct imtcp_est *e, enum imtcp_edge edge)
{
	bool first = !e->seen;

	e->seen = 1;
	return first && edge == IMTCP_EDGE_LOW;
}

/* Are the results before @now_us more than c->stale_rtts RTTs old? */
static bool history_stale(const struct imtcp_est *e,
			  const struct imtcp_est_cfg *c, u64 now_us, u32 rtt_us)
{
	return c->stale_rtts && rtt_us && e->count &&
	       now_us - e->last_us > (u64)c->stale_rtts * rtt_us;
}

/*
 * A measurement's result came at @now_us, @rtt_us the path's minimum RTT
 * (0: unknown). Where the results before it are more than
 * c->stale_rtts RTTs old (0: never), they are history: the estimate
 * starts anew from this result (settle_history), as from a first one.
 * Results come every few RTTs while the window is large, but where the
 * available bandwidth is a few segments per RTT they come seconds apart
 * (an application-limited MPTCP subflow after its path fell from 8 to
 * 1 Mbit/s: 0.6, 3.5 and 10.8 s, traced in the VM), and a median of five
 * with an EWMA then held a level from before the fall for tens of
 * seconds (15.3 Mbit/s on the 1 Mbit/s path, in a CI run of
 * imtcp_mptcp.sh). A result that old says nothing of A now.
 */
void imtcp_est_result_at(struct imtcp_est *e, const struct imtcp_est_cfg *c,
			 u64 now_us, u32 rtt_us)
{
	if (history_stale(e, c, now_us, rtt_us))
		e->stale = 1;
	e->last_us = now_us;
}

/*
 * The served rates remembered (imtcp_served_cap) are as old as the
 * results they came with: where those are history at @now_us (or already
 * marked so), the rates are forgotten before a measurement's result is
 * held at their median. Without this, after a pause of a media sender
 * longer than stale_rtts, the rates of before the pause held a rise of A
 * down until a measurement's rising streams all read above them.
 */
void imtcp_est_age_served(struct imtcp_est *e, const struct imtcp_est_cfg *c,
			  u64 now_us, u32 rtt_us)
{
	if (e->stale || history_stale(e, c, now_us, rtt_us))
		imtcp_served_forget(&e->served);
}

/*
 * A provisional first estimate gives way to the result after it, and
 * stale results (imtcp_est_result_at) to the one that came now. The
 * result that comes after a provisional estimate was withdrawn
 * (imtcp_est_withdraw) is a first result again.
 */
static void settle_history(struct imtcp_est *e)
{
	bool first = !e->count || (e->provisional && !e->estimate_bps);

	if (e->provisional || e->stale) {
		e->nhist = 0;
		e->hist_pos = 0;
		e->estimate_bps = 0;
		e->stale = 0;
	}
	e->provisional = first;
}

/*
 * Withdraw a provisional estimate (the first result alone): the sender's
 * writes turned out too short for any stream to show A
 * (imtcp_cu_writes_short), so its first result, from a stream a hold
 * gathered before that was known, is no better, and no other will come
 * to replace it. The estimate reads 0 (none) until the next result,
 * which is taken as a first one. Returns whether there was one to
 * withdraw.
 */
bool imtcp_est_withdraw(struct imtcp_est *e)
{
	if (!e->provisional || !e->estimate_bps)
		return false;
	e->estimate_bps = 0;
	e->nhist = 0;
	e->hist_pos = 0;
	return true;
}

/* How a bound moved @from to @to (enum imtcp_held). */
static u8 held_how(u64 from, u64 to)
{
	if (to < from)
		return IMTCP_HELD_CAP;
	if (to > from)
		return IMTCP_HELD_FLOOR;
	return IMTCP_HELD_NONE;
}

/*
 * Take one measurement's result @fit_bps (imtcp_combine; 0: there was
 * none, and the range moves past @edge if it says A lies beyond it),
 * with its @edge and @rse (relative standard error in permille, 0
 * unknown), held within the bounds the busy link @b gives (imtcp_busy.c;
 * NULL: none) for the estimate, and the estimate after it held there
 * too (in exact replays of two accuracy runs: S1's fall from 60 to 20
 * Mbit/s followed after 74 and 177 RTT instead of 224 and 204, S3-60's
 * p90 error 12.8 instead of 18.1 % of C; S2-80, four estimates where a
 * busy rate read 8.8 for A = 19.2, 3.5 instead of 2.2 at the median).
 * The next range still follows the fit: a range that followed the held
 * results tied a connection's streams to its own delivery rate, and
 * four imtcp flows sharing a link (their results held in 3-5 of 6-10
 * each, traced) then kept a Jain's index of 0.986 (median of six VM
 * runs) beside 0.994 without the bound. The fit itself stays in
 * e->probe_bps, and e->held says whether a bound moved the estimate (or,
 * failing that, the result), so that readers can tell the probe's figure
 * from the delivery rate's. Returns whether the result was taken (the
 * estimate updated; the range moves also for a first result at the lower
 * edge, which is not taken).
 */
bool imtcp_est_update_bounded(struct imtcp_est *e,
			      const struct imtcp_est_cfg *c, u64 fit_bps,
			      enum imtcp_edge edge, u32 rse,
			      const struct imtcp_busy *b)
{
	u64 width_bps = e->hi_bps - e->lo_bps, raw_bps, held_bps;
	enum imtcp_edge held_edge = edge;

	if (!fit_bps || first_at_low_edge(e, edge)) {
		imtcp_range_past_edge(e, edge, width_bps, fit_bps);
		return false;
	}
	settle_history(e);
	raw_bps = b ? imtcp_busy_bound(fit_bps, b, &held_edge, &rse) : fit_bps;
	e->probe_bps = fit_bps;
	e->raw_bps = raw_bps;
	e->busy_bps = b ? imtcp_busy_bps(b) : 0;
	e->edge = held_edge;
	e->count++;
	e->hist_bps[e->hist_pos] = raw_bps;
	e->hist_rse[e->hist_pos] = min_t(u32, rse, IMTCP_RSE_MAX);
	e->hist_pos = (e->hist_pos + 1) % IMTCP_HIST;
	if (e->nhist < IMTCP_HIST)
		e->nhist++;
	e->off = lies_off(e, raw_bps);
	smooth(e, c);
	held_bps = b ? imtcp_busy_hold(e->estimate_bps, b) : e->estimate_bps;
	e->held = held_bps != e->estimate_bps ?
		  held_how(e->estimate_bps, held_bps) : held_how(fit_bps, raw_bps);
	e->estimate_bps = held_bps;
	if (imtcp_range_past_edge(e, edge, width_bps, fit_bps))
		return true;
	imtcp_range_around(e, fit_bps, 2 * hist_spread(e));
	return true;
}

/*
 * The bound readers are told held @shown_bps, the figure shown for the
 * estimate between results (imtcp_busy_shown), and in @busy_bps the busy
 * rate told beside it (@now_bps: the busy rate now). A figure the bounds
 * move now is held by them at the busy rate now; one back at the
 * estimate carries the estimate's own bound and the busy rate of its
 * update. Before, it took the busy rate now, which may be none by then:
 * a CI run published bound "cap" beside a busy rate of 0.
 */
u8 imtcp_est_shown_held(const struct imtcp_est *e, u64 shown_bps,
			u64 now_bps, u64 *busy_bps)
{
	if (shown_bps == e->estimate_bps) {
		*busy_bps = e->busy_bps;
		return e->held;
	}
	*busy_bps = now_bps;
	return held_how(e->estimate_bps, shown_bps);
}

/* The same without the busy-link bounds. */
bool imtcp_est_update(struct imtcp_est *e, const struct imtcp_est_cfg *c,
		      u64 raw_bps, enum imtcp_edge edge, u32 rse)
{
	return imtcp_est_update_bounded(e, c, raw_bps, edge, rse, NULL);
}
