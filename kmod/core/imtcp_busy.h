/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a busy bottleneck gives the connection (imtcp_busy.c): the highest
 * delivery rate it had over intervals in which every ACK showed a queue,
 * and the bounds that puts on a measurement's result and the estimate.
 */
#ifndef _IMTCP_BUSY_H
#define _IMTCP_BUSY_H

#include "imtcp_types.h"

#define IMTCP_BUSY_WINDOW_RTTS	2	/* a window of the maximum, in srtt */
#define IMTCP_BUSY_WINDOW_MAX	16	/* busy_window_rtts: at most */
#define IMTCP_BUSY_MARGIN_MAX	100	/* the cap's margin, percent */
#define IMTCP_BUSY_FLOOR_PCT	97	/* the floor: this much of the busy rate */

struct imtcp_busy {
	u64 since_us;		/* the latest ACK that showed no queue */
	u64 start_us;		/* when the current window began */
	u64 max_bps[2];		/* highest busy rate: this window, the last */
	u64 recent_bps;		/* highest since the last measurement */
	u64 own_bps[2];		/* highest rate, busy or not: as max_bps */
	u64 own_recent_bps;	/* the same since the last measurement */
	u32 margin_pct;		/* the cap: the busy rate and this much more */
	u32 floor_pct;		/* the floor: this much of the busy rate */
	u32 window_rtts;	/* a window of the maximum, in srtt */
	bool own_floor;		/* the floor also from the own rates */
	bool own_cap;		/* the cap never below that floor */
};

void imtcp_busy_init(struct imtcp_busy *b, u64 now_us, u32 margin_pct);
void imtcp_busy_set_window(struct imtcp_busy *b, u32 rtts);
void imtcp_busy_set_floor(struct imtcp_busy *b, u32 pct);
void imtcp_busy_ack(struct imtcp_busy *b, u64 now_us, s64 rtt_us,
		    u32 empty_us, u32 srtt_us);
void imtcp_busy_rate(struct imtcp_busy *b, u64 now_us, u32 delivered,
		     u32 mss, u32 interval_us);
void imtcp_busy_set_own(struct imtcp_busy *b, bool on);
void imtcp_busy_own_rate(struct imtcp_busy *b, u32 delivered, u32 mss,
			 u32 interval_us);
u64 imtcp_busy_bps(const struct imtcp_busy *b);
u64 imtcp_busy_floor_bps(const struct imtcp_busy *b);
void imtcp_busy_measured(struct imtcp_busy *b);
u64 imtcp_busy_cap_bps(const struct imtcp_busy *b);
u64 imtcp_busy_capped(u64 rate_bps, const struct imtcp_busy *b);
bool imtcp_busy_outrun(struct imtcp_busy *b, u64 fit_bps,
		       enum imtcp_edge edge);
bool imtcp_busy_move_news(u64 shown_bps, u64 told_bps, u64 now_us,
			  u64 told_us, u32 srtt_us);
u64 imtcp_busy_hold(u64 rate_bps, const struct imtcp_busy *b);
u64 imtcp_busy_shown(u64 rate_bps, const struct imtcp_busy *b);
u64 imtcp_busy_bound(u64 raw_bps, const struct imtcp_busy *b,
		     enum imtcp_edge *edge, u32 *rse);

#endif /* _IMTCP_BUSY_H */
