// SPDX-License-Identifier: GPL-2.0
/*
 * Trend tests on measurement-stream delays (see imtcp_trend.h).
 *
 * imtcp_trend_test() is pathload's pair of statistics (Jain, Dovrolis,
 * "End-to-end available bandwidth", SIGCOMM 2002): the delays are split
 * into about sqrt(n) groups whose medians D_k absorb single outliers such
 * as a compressed or delayed ACK; then
 *   PCT = share of k with D_k < D_k+1,
 *   PDT = (D_last - D_first) / sum |D_k+1 - D_k|.
 * Each says "increasing" above its threshold times 1.1, "not increasing"
 * below it times 0.9 (PCT 0.55, PDT 0.4), unclear in between; when one is
 * unclear the other decides, and when they disagree the answer is unclear.
 *
 * Difference from pathload: its streams are 100 packets long (10 groups);
 * ours are a few tens, so 3-5 groups, where PCT on pure noise says
 * "increasing" about a quarter of the time. A rise must therefore also be
 * larger than the noise: D_last - D_first > min_rise_us, else FLAT.
 */
#include "imtcp_trend.h"

#define PCT_UP		605	/* 0.55 * 1.1, thousandths */
#define PCT_FLAT	495	/* 0.55 * 0.9 */
#define PDT_UP		440	/* 0.40 * 1.1 */
#define PDT_FLAT	360	/* 0.40 * 0.9 */

static u32 isqrt(u32 x)
{
	u32 r = 0;

	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* Median of n <= IMTCP_TREND_MAX values (lower median for even n). */
static s32 median(const s32 *v, u32 n)
{
	s32 tmp[IMTCP_TREND_MAX];
	u32 i, j;

	for (i = 0; i < n; i++) {
		s32 x = v[i];

		for (j = i; j > 0 && tmp[j - 1] > x; j--)
			tmp[j] = tmp[j - 1];
		tmp[j] = x;
	}
	return tmp[(n - 1) / 2];
}

static enum imtcp_trend classify(s32 value, s32 up, s32 flat)
{
	if (value > up)
		return IMTCP_TREND_UP;
	if (value < flat)
		return IMTCP_TREND_FLAT;
	return IMTCP_TREND_UNCLEAR;
}

static enum imtcp_trend combine(enum imtcp_trend a, enum imtcp_trend b)
{
	if (a == b)
		return a;
	if (a == IMTCP_TREND_UNCLEAR)
		return b;
	if (b == IMTCP_TREND_UNCLEAR)
		return a;
	return IMTCP_TREND_UNCLEAR;
}

/*
 * Classify the delay sequence delay[0..n-1] (us, any common offset); a
 * rise of at most @min_rise_us between the first and last group is noise.
 * Fewer than 3 delays cannot show a trend: UNCLEAR. Fills @st if given.
 */
enum imtcp_trend imtcp_trend_test(const s32 *delay, u32 n, s32 min_rise_us,
				  struct imtcp_trend_stats *st)
{
	s32 med[IMTCP_TREND_MAX];
	u32 groups, size, k, rises = 0;
	s64 path = 0;
	s32 pct, pdt;

	if (n > IMTCP_TREND_MAX)
		n = IMTCP_TREND_MAX;
	if (n < 3) {
		if (st) {
			st->pct = 0;
			st->pdt = 0;
		}
		return IMTCP_TREND_UNCLEAR;
	}
	groups = n < 9 ? n : isqrt(n);
	size = n / groups;
	for (k = 0; k < groups; k++) {
		u32 len = k == groups - 1 ? n - k * size : size;

		med[k] = median(delay + k * size, len);
	}
	for (k = 0; k + 1 < groups; k++) {
		s32 d = med[k + 1] - med[k];

		rises += d > 0;
		path += d < 0 ? -(s64)d : d;
	}
	pct = (s32)(rises * 1000 / (groups - 1));
	pdt = path ? (s32)div64_s64((s64)(med[groups - 1] - med[0]) * 1000,
				    path) : 0;
	if (st) {
		st->pct = pct;
		st->pdt = pdt;
	}
	if (med[groups - 1] - med[0] <= min_rise_us)
		return IMTCP_TREND_FLAT;
	return combine(classify(pct, PCT_UP, PCT_FLAT),
		       classify(pdt, PDT_UP, PDT_FLAT));
}

/*
 * Where the final rise of delay[0..n-1] begins: the last index whose delay
 * is within @noise_us of the lowest delay up to it, provided the sequence
 * ends more than @noise_us above that point. A queue that grows from
 * segment i+1 on leaves every later delay above the floor, so this is the
 * last segment sent below the available bandwidth. Returns -1 when the
 * sequence does not end in a rise.
 */
s32 imtcp_rise_onset(const s32 *delay, u32 n, s32 noise_us)
{
	s32 floor, onset = -1;
	u32 i;

	if (!n)
		return -1;
	floor = delay[0];
	for (i = 0; i < n; i++) {
		if (delay[i] < floor)
			floor = delay[i];
		if (delay[i] <= floor + noise_us)
			onset = (s32)i;
	}
	if (onset < 0 || onset == (s32)n - 1 ||
	    delay[n - 1] <= delay[onset] + noise_us)
		return -1;
	return onset;
}
