/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The measurement unit: search range, stream rates, analysis of each
 * stream's delays, the estimate and the next search range. One job per
 * file: imtcp_plan.c (stream plans), imtcp_stream.c (a stream's samples
 * and their class), imtcp_fit.c (a measurement's result), imtcp_served.c
 * (that result held at the rate the link served the rising streams at),
 * imtcp_est.c (the estimate), imtcp_range.c (the search range),
 * imtcp_cap.c (the path's capacity, from the fits' slopes).
 *
 * A measurement is k streams of n segments. Stream i probes sub-range i of
 * the search range [lo_bps, hi_bps]: the gap after its segment j is sized for the
 * rate lo_i + (hi_i - lo_i) * j / (n - 2), so rates rise linearly across
 * the stream and across the measurement. Per ACK the module records one
 * sample: the index of the last stream segment the ACK covers, that
 * segment's real departure time and its delay (ACK arrival - departure).
 * Streams whose delays end in a rise ran above A; where A lies is fitted
 * from the shape of all streams' delays together, over the gaps the
 * segments really had (from the samples' departure times) rather than
 * the planned ones, or on a standing queue from a linear fit of delays
 * against bytes sent and time elapsed (imtcp_fit.c).
 *
 * Rates are in bit/s, times in us.
 */
#ifndef _IMTCP_EST_H
#define _IMTCP_EST_H

#include "imtcp_types.h"

#define IMTCP_K_MAX		8	/* streams per measurement */
#define IMTCP_HIST		8	/* raw results kept for the range */
#define IMTCP_RSE_MAX		65535	/* a result's standard error, permille */

/* Lowest rate a stream is sent at: 100 kbit/s. */
#define IMTCP_RATE_MIN		100000ULL
/* The rate of a gap between segments that left in one skb: 1 Tbit/s. */
#define IMTCP_RATE_B2B		1000000000000ULL
#define IMTCP_NS_PER_S		1000000000ULL

struct imtcp_sample {
	u8 seg;		/* index of the segment in its stream */
	u32 tx_us;	/* its departure time */
	s32 delay_us;	/* ACK arrival - departure */
};

enum imtcp_outcome {
	IMTCP_OUT_NONE,		/* not analysed */
	IMTCP_OUT_FLAT,		/* no rise above the noise */
	IMTCP_OUT_RISE,		/* the delays end in a rise */
	IMTCP_OUT_UNCLEAR,	/* too few samples, or no clear answer */
};

struct imtcp_stream {
	u64 lo_bps;		/* rate of the first gap */
	u64 hi_bps;		/* rate of the last gap */
	u32 seg_bytes;		/* segment size; 0: use planned rates only */
	u8 nsamples;
	u8 outcome;		/* enum imtcp_outcome */
	u8 part;		/* the part of the search range it probed */
	struct imtcp_sample s[IMTCP_N_MAX];
};

/*
 * Whether the busy-link bounds (imtcp_busy.c) moved the latest result or
 * the estimate: held down to the busy delivery rate's cap (CAP) or up
 * to busy_floor_pct of its floor (FLOOR). The values are the uapi's
 * IMTCP_BOUND_* (checked at build time in imtcp_main.c).
 */
enum imtcp_held {
	IMTCP_HELD_NONE,
	IMTCP_HELD_CAP,
	IMTCP_HELD_FLOOR,
};

struct imtcp_busy;

#define IMTCP_BUCKET_SEGS_MAX	4	/* largest bucket the fit tries */

/*
 * What the Lindley fits have learnt of the bottleneck's token bucket
 * (imtcp_fit.c): for each candidate of 0 to IMTCP_BUCKET_SEGS_MAX
 * segments a moving sum of how well its best model correlated with the
 * delays (1/1024 per measurement, decaying by 1/32), and the candidate
 * in use. The largest candidate is the test bed's bucket (four frames);
 * a stream of 10-16 segments shows little behind a larger one, and
 * there the served-rate cap (imtcp_served.c) holds the result.
 */
struct imtcp_bucket {
	u32 score[IMTCP_BUCKET_SEGS_MAX + 1];
	u8 segs;
};

#define IMTCP_SERVED_HIST	16	/* served rates the cap remembers */

/*
 * The rates the bottleneck served the connection's latest rising streams
 * at (imtcp_served.c), the oldest overwritten first.
 */
struct imtcp_served {
	u64 bps[IMTCP_SERVED_HIST];
	u8 n;
	u8 pos;
	u8 across;	/* the faster ones count over measurements */
	u8 faster;	/* rising streams in a row served faster */
};

#define IMTCP_CAP_HIST		8	/* capacities the median is of */
#define IMTCP_MEDIAN_MAX	16	/* imtcp_median_bps: rates at most */
#define IMTCP_CAP_MIN		3	/* fewest it publishes with */

/*
 * The path's capacity (imtcp_cap.c): the latest measurements' (the
 * oldest overwritten first) and their median, 0 until IMTCP_CAP_MIN came.
 */
struct imtcp_cap {
	u64 bps[IMTCP_CAP_HIST];
	u64 median_bps;
	u8 n;
	u8 pos;
};

struct imtcp_est {
	u64 lo_bps, hi_bps;	/* search range */
	u64 estimate_bps;	/* the estimate; 0 before the first */
	u64 raw_bps;		/* the latest single result */
	u64 probe_bps;		/* the same before the busy-link bounds */
	u64 busy_bps;		/* the busy rate at that update; 0: none */
	u64 hist_bps[IMTCP_HIST];	/* recent raw results */
	u16 hist_rse[IMTCP_HIST];	/* their standard errors, permille */
	u8 nhist;
	u8 hist_pos;
	u8 edge;		/* enum imtcp_edge of the latest result */
	u8 seen;		/* a result has come, taken or not */
	u8 provisional;		/* the estimate is the first result alone */
	u8 held;		/* enum imtcp_held of the latest update */
	u8 stale;		/* the history is older than stale_rtts */
	u8 off;			/* the latest result lay off the estimate */
	u8 up_wide;		/* past the top: at least as a range around */
	u8 cap_range;		/* the range's top bound by the capacity */
	u8 tops;		/* results at the range's upper edge in a row */
	u32 count;		/* results so far */
	u64 last_us;		/* when the latest result came */
	struct imtcp_bucket bucket;	/* the bottleneck's, as learnt */
	struct imtcp_served served;	/* rates it served rising streams at */
	struct imtcp_cap cap;		/* its capacity */
};

/* Settings of the measurement unit (module parameters). */
struct imtcp_est_cfg {
	u32 n;			/* segments per stream */
	u32 k;			/* streams per measurement */
	s32 noise_us;		/* delay rise smaller than this is noise */
	u32 gain_shift;		/* smoothing: new = old + (raw - old) >> s */
	u32 stale_rtts;		/* results this many RTTs old are forgotten */
	u32 fast_fall;		/* a fall of A is taken on two results */
	u32 lift_off;		/* a figure lifted off the estimate: a change */
};

u64 imtcp_envelope_bps(const struct imtcp_est_cfg *c, u32 mss);
bool imtcp_est_shown_off(const struct imtcp_est *e,
			 const struct imtcp_est_cfg *c, u64 shown_bps);
u64 imtcp_gap_bps(const struct imtcp_stream *st, u32 n, u32 j);
u64 imtcp_gap_ns(const struct imtcp_stream *st, u32 n, u32 j);
void imtcp_plan_stream(const struct imtcp_est *e, const struct imtcp_est_cfg *c,
		       u32 i, struct imtcp_stream *st);
u32 imtcp_fastest_stream(const struct imtcp_stream *st, u32 k);
bool imtcp_stream_carries(const struct imtcp_stream *st);
u32 imtcp_carry_part(const struct imtcp_est_cfg *c,
		     const struct imtcp_stream *carried);
s32 imtcp_queue_ceiling(const s32 *max_us, const s32 *min_us,
			const struct imtcp_est_cfg *c);
void imtcp_analyse_stream(struct imtcp_stream *st,
			  const struct imtcp_est_cfg *c, s32 ceiling_us);
u64 imtcp_combine(const struct imtcp_stream *st, u32 k,
		  const struct imtcp_est_cfg *cfg, s32 base_us,
		  struct imtcp_bucket *bucket, enum imtcp_edge *edge,
		  u32 *rse, u64 *cap_bps);
u64 imtcp_served_bps(const struct imtcp_stream *st);
void imtcp_served_forget(struct imtcp_served *mem);
void imtcp_served_outrun(struct imtcp_served *mem,
			 const struct imtcp_stream *st, u32 k, u64 capacity_bps);
u64 imtcp_served_cap(const struct imtcp_stream *st, u32 k, u32 known,
		     u64 fit_bps, struct imtcp_served *mem,
		     enum imtcp_edge *edge, u32 *rse);
void imtcp_cap_add(struct imtcp_cap *cap, u64 sample_bps);
void imtcp_first_range(struct imtcp_est *e, u64 hint_bps, bool app_limited);
void imtcp_est_bound(struct imtcp_est *e, u64 floor_bps, u64 cap_bps);
u64 imtcp_range_floor(u64 dlv_bps, u64 window_bps, u64 own_bps,
		      bool window_limited);
void imtcp_est_result_at(struct imtcp_est *e, const struct imtcp_est_cfg *c,
			 u64 now_us, u32 rtt_us);
void imtcp_est_age_served(struct imtcp_est *e, const struct imtcp_est_cfg *c,
			  u64 now_us, u32 rtt_us);
bool imtcp_est_update(struct imtcp_est *e, const struct imtcp_est_cfg *c,
		      u64 raw_bps, enum imtcp_edge edge, u32 rse);
bool imtcp_est_withdraw(struct imtcp_est *e);
bool imtcp_est_update_bounded(struct imtcp_est *e,
			      const struct imtcp_est_cfg *c, u64 fit_bps,
			      enum imtcp_edge edge, u32 rse,
			      const struct imtcp_busy *b);
u8 imtcp_est_shown_held(const struct imtcp_est *e, u64 shown_bps,
			u64 now_bps, u64 *busy_bps);

/* Within the unit: shared by its files. */
u64 imtcp_median_bps(const u64 *bps, u32 n);
s32 imtcp_lowest_delay_us(const struct imtcp_stream *st);
u32 imtcp_rel_delays(const struct imtcp_stream *st, s32 *d);
bool imtcp_range_past_edge(struct imtcp_est *e, enum imtcp_edge edge,
			   u64 width_bps, u64 result_bps);
void imtcp_range_around(struct imtcp_est *e, u64 fit_bps, u64 spread_bps);
u64 imtcp_range_cap_bps(const struct imtcp_est *e);

#endif /* _IMTCP_EST_H */
