// SPDX-License-Identifier: GPL-2.0
/*
 * One stream's samples (see imtcp_est.h): in segment order, as delays
 * above the stream's lowest, and classified as a rise, flat or unclear
 * against noise_us and the delay of a full queue.
 */
#include "imtcp_est.h"
#include "imtcp_trend.h"

#define IMTCP_DELAY_CAP		65535	/* us; larger rises are clamped */

/*
 * Order the samples by segment (ACKs may arrive reordered) and keep one
 * per segment.
 */
static void sort_samples(struct imtcp_stream *st)
{
	u32 i, j, n = 0;

	for (i = 0; i < st->nsamples; i++) {
		struct imtcp_sample x = st->s[i];

		for (j = n; j > 0 && st->s[j - 1].seg > x.seg; j--)
			st->s[j] = st->s[j - 1];
		if (j > 0 && st->s[j - 1].seg == x.seg) {
			/* a duplicate: drop it, undo the shift */
			for (; j < n; j++)
				st->s[j] = st->s[j + 1];
			continue;
		}
		st->s[j] = x;
		n++;
	}
	st->nsamples = n;
}

/* The lowest delay of a stream's samples (it has at least one). */
s32 imtcp_lowest_delay_us(const struct imtcp_stream *st)
{
	s32 low = st->s[0].delay_us;
	u32 i;

	for (i = 1; i < st->nsamples; i++)
		low = min_t(s32, low, st->s[i].delay_us);
	return low;
}

/*
 * Relative delays of a stream's samples, clamped (the fit's sums must not
 * overflow), and the index of the last lowest one.
 */
u32 imtcp_rel_delays(const struct imtcp_stream *st, s32 *d)
{
	s32 floor = imtcp_lowest_delay_us(st);
	u32 i, first = 0;

	for (i = 0; i < st->nsamples; i++) {
		d[i] = min_t(s32, st->s[i].delay_us - floor, IMTCP_DELAY_CAP);
		if (d[i] == 0)
			first = i;
	}
	return first;
}

/*
 * The delay of a full drop-tail queue, from the highest and lowest sample
 * delays of this measurement and the one before (@max_us[2], @min_us[2];
 * a minimum of 0 is none): the highest delay, if it stands more than
 * noise_us above the lowest. Otherwise no queue was seen to fill (a
 * sub-millisecond path, a path that never queues): 0, and flat streams
 * count as flat.
 */
s32 imtcp_queue_ceiling(const s32 *max_us, const s32 *min_us,
			const struct imtcp_est_cfg *c)
{
	s32 top = max_t(s32, max_us[0], max_us[1]), low = top;
	u32 i;

	for (i = 0; i < 2; i++)
		if (min_us[i] > 0)
			low = min_t(s32, low, min_us[i]);
	return top - low > c->noise_us ? top : 0;
}

/*
 * A stream may be carried over into the next measurement
 * (imtcp_cu_carry): it was analysed as a rise or flat, from enough
 * samples for either.
 */
bool imtcp_stream_carries(const struct imtcp_stream *st)
{
	return (st->outcome == IMTCP_OUT_RISE || st->outcome == IMTCP_OUT_FLAT) &&
	       st->nsamples >= 3;
}

/*
 * Classify one stream. @ceiling_us is the highest delay the connection
 * saw lately (0: unknown): a stream that lies entirely within noise_us of
 * it met a full drop-tail queue, where delay cannot grow whatever the
 * rate, so its flatness says nothing (UNCLEAR).
 */
void imtcp_analyse_stream(struct imtcp_stream *st,
			  const struct imtcp_est_cfg *c, s32 ceiling_us)
{
	s32 d[IMTCP_N_MAX];
	u32 n, first;

	sort_samples(st);
	n = st->nsamples;
	if (n < 3) {
		st->outcome = IMTCP_OUT_UNCLEAR;
		return;
	}
	first = imtcp_rel_delays(st, d);
	if (ceiling_us &&
	    st->s[first].delay_us >= ceiling_us - c->noise_us) {
		st->outcome = IMTCP_OUT_UNCLEAR;
		return;
	}
	if (imtcp_rise_onset(d, n, c->noise_us) < 0) {
		st->outcome = IMTCP_OUT_FLAT;
		return;
	}
	if (n - first >= 3 &&
	    imtcp_trend_test(d + first, n - first, c->noise_us, NULL) !=
	    IMTCP_TREND_UP) {
		st->outcome = IMTCP_OUT_UNCLEAR;
		return;
	}
	st->outcome = IMTCP_OUT_RISE;
}
