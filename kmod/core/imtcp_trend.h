/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trend tests on the relative one-way delays of a measurement stream.
 *
 * A stream's segments leave at rising rates. While the rate stays below
 * the available bandwidth A the bottleneck queue does not grow, and the
 * delays (ACK arrival - real departure, in us) are flat up to noise; above
 * A each segment adds queueing delay. These functions decide whether a
 * delay sequence rises and where the rise starts.
 */
#ifndef _IMTCP_TREND_H
#define _IMTCP_TREND_H

#include "imtcp_types.h"

/* Longest delay sequence the tests take (all streams of a measurement). */
#define IMTCP_TREND_MAX		64

enum imtcp_trend {
	IMTCP_TREND_FLAT,	/* no increase */
	IMTCP_TREND_UNCLEAR,	/* between the thresholds */
	IMTCP_TREND_UP,		/* increasing */
};

/* pathload's statistics, in thousandths. */
struct imtcp_trend_stats {
	s32 pct;	/* pairwise comparison test, 0..1000 */
	s32 pdt;	/* pairwise difference test, -1000..1000 */
};

enum imtcp_trend imtcp_trend_test(const s32 *delay, u32 n, s32 min_rise_us,
				  struct imtcp_trend_stats *st);

s32 imtcp_rise_onset(const s32 *delay, u32 n, s32 noise_us);

#endif /* _IMTCP_TREND_H */
