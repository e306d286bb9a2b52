/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When the segments of a stream leave: a schedule kept in absolute time.
 *
 * The stack paces one skb per wake-up of its pacing timer and gives back
 * at most half a gap when a wake-up comes late. Where timers run late by
 * more than a gap (measured in the TCG VM: the pacing hrtimer, a soft
 * one, fired 665 us late at the median and 2.2 ms at p90, against gaps
 * of 100-400 us), a stream then leaves at a fraction of its plan (there,
 * 1/16 at the median) and probes nothing. So each stream keeps its own
 * schedule, planned departure times from its first segment on; a send
 * that finds several segments overdue sends them at once, as one skb of
 * that many segments, and the pacing rate is set so that the stack's next
 * departure lands on the schedule again. A stream so keeps its planned
 * rate on average, and where timers are late its overdue segments leave
 * back to back; the estimator sees either in the real departure times.
 */
#ifndef _IMTCP_PACE_H
#define _IMTCP_PACE_H

#include "imtcp_est.h"

/* The shortest gap asked of the stack: never zero (see imtcp_pace.c). */
#define IMTCP_PACE_MIN_NS	1000

struct imtcp_pace {
	u32 segs;	/* segments to send now, back to back (>= 1) */
	u64 pacing_Bps;	/* sk_pacing_rate to set for them, bytes/s */
	u64 wait_ns;	/* > 0: nothing is due yet; the next is this far off */
};

u64 imtcp_pace_plan_ns(const struct imtcp_stream *st, u32 n);
void imtcp_pace_next(const struct imtcp_stream *st, u32 n, u32 sent,
		     u64 elapsed_ns, u64 late_ns, u32 room,
		     struct imtcp_pace *p);

#endif /* _IMTCP_PACE_H */
