/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bottleneck for unit tests: one FIFO link of capacity C with cross
 * traffic (constant-rate fluid, or Poisson packets), optionally shaped
 * by a token bucket (fluid cross traffic only), base one-way delay,
 * a receiver that ACKs every segment or every second one, and noise on
 * the ACK arrival times. It turns a stream plan into the samples the
 * module would record, so the measurement unit can be checked against a
 * known available bandwidth A = C - cross.
 */
#ifndef _IMTCP_SIM_H
#define _IMTCP_SIM_H

#include <math.h>
#include "core/imtcp_est.h"

struct sim {
	double c_bps;		/* capacity */
	double x_bps;		/* mean cross traffic */
	int poisson;		/* cross traffic as 1500 B Poisson packets */
	double base_us;		/* fixed delay */
	int every_second;	/* delayed ACKs: one per two segments */
	double noise_us;	/* ACK times +- this, uniform */
	int compress;		/* ACK compression: ACKs leave in pairs */
	unsigned int seed;
	double q_us;		/* backlog at the link, in us of work;
				 * below 0: a token bucket's tokens */
	double bucket_us;	/* the bucket's size, in us of work */
	int fit_no_bucket;	/* fit without the bucket learnt */
	double standing_us;	/* backlog each measurement starts with */
	int back_to_back;	/* streams leave back to back (one frame) */
	s32 min_rtt_us;		/* lowest delay recorded so far (0: none) */
	double now_us;
	double next_cross_us;	/* Poisson: next cross packet */
};

static double sim_rand(struct sim *s)
{
	s->seed = s->seed * 1103515245u + 12345u;
	return ((s->seed >> 8) & 0xffffff) / (double)0x1000000;
}

/* Advance the link to time t: serve the backlog, add cross traffic. */
static void sim_advance(struct sim *s, double t)
{
	double pkt_us = 1500 * 8 / s->c_bps * 1e6;

	if (!s->poisson) {
		double dt = t - s->now_us;

		s->q_us += dt * s->x_bps / s->c_bps - dt;
		if (s->q_us < -s->bucket_us)
			s->q_us = -s->bucket_us;
		s->now_us = t;
		return;
	}
	while (s->x_bps > 0 && s->next_cross_us <= t) {
		double dt = s->next_cross_us - s->now_us;

		s->q_us = s->q_us > dt ? s->q_us - dt : 0;
		s->q_us += pkt_us;
		s->now_us = s->next_cross_us;
		s->next_cross_us += -log(1 - sim_rand(s)) * 1500 * 8 / s->x_bps * 1e6;
	}
	s->q_us = s->q_us > t - s->now_us ? s->q_us - (t - s->now_us) : 0;
	s->now_us = t;
}

/*
 * Send stream @st (n segments of @mss bytes, gaps at the planned rates)
 * starting at time @t0 and record its samples. Returns the time the last
 * segment left.
 */
static double sim_stream(struct sim *s, struct imtcp_stream *st, u32 n,
			 u32 mss, double t0)
{
	double t = t0, ack[IMTCP_N_MAX], tx[IMTCP_N_MAX];
	u32 j;

	for (j = 0; j < n; j++) {
		sim_advance(s, t);
		s->q_us += mss * 8 / s->c_bps * 1e6;
		tx[j] = t;
		ack[j] = t + (s->q_us > 0 ? s->q_us : 0) + s->base_us +
			 (2 * sim_rand(s) - 1) * s->noise_us;
		if (j + 1 < n)
			t += mss * 8 / (double)imtcp_gap_bps(st, n, j) * 1e6;
	}
	st->nsamples = 0;
	st->seg_bytes = mss;
	for (j = 0; j < n; j++) {
		struct imtcp_sample *x;
		double a = ack[j];

		if (s->every_second && j % 2 == 0 && j + 1 < n)
			continue;
		if (s->compress && j + 2 < n)
			a = ack[j + 2] > a ? ack[j + 2] : a;
		x = &st->s[st->nsamples++];
		x->seg = j;
		x->tx_us = (u32)tx[j];
		x->delay_us = (s32)(a - tx[j]);
		if (!s->min_rtt_us || x->delay_us < s->min_rtt_us)
			s->min_rtt_us = x->delay_us;
	}
	return t;
}

/*
 * One measurement of k streams, 2 ms apart (back_to_back: one gap at the
 * last one's top rate), then an update of @e.
 */
static u64 sim_measure(struct sim *s, struct imtcp_est *e,
		       const struct imtcp_est_cfg *c, struct imtcp_stream *st,
		       double t0)
{
	/* a measurement that overran its slot delays the next: no time
	 * runs backwards (the link would gain work) */
	double t = t0 > s->now_us ? t0 : s->now_us;
	enum imtcp_edge edge;
	u32 i, rse;
	u64 raw, cap;

	sim_advance(s, t);
	if (s->standing_us > 0 && s->q_us < s->standing_us)
		s->q_us = s->standing_us;
	for (i = 0; i < c->k; i++) {
		imtcp_plan_stream(e, c, i, &st[i]);
		t = sim_stream(s, &st[i], c->n, 1448, t);
		t += s->back_to_back ? 1448 * 8 * 1e6 / st[i].hi_bps : 2000;
		imtcp_analyse_stream(&st[i], c, 0);
	}
	raw = imtcp_combine(st, c->k, c, s->min_rtt_us,
			    s->fit_no_bucket ? NULL : &e->bucket, &edge, &rse,
			    &cap);
	imtcp_cap_add(&e->cap, cap);
	imtcp_est_update(e, c, raw, edge, rse);
	return raw;
}

#endif /* _IMTCP_SIM_H */
