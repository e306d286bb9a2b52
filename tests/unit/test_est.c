// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the measurement unit (kmod/core/imtcp_est.h) on streams
 * sent through the simulated bottleneck of sim.h, where the available
 * bandwidth is known: queue-building above A, flat below, delayed and
 * compressed ACKs, noise, Poisson cross traffic, steps of A.
 */
#include "kselftest_harness.h"
#include "sim.h"
#include "core/imtcp_busy.h"

#define MBIT	1000000ULL

static const struct imtcp_est_cfg cfg = {
	.n = 10, .k = 4, .noise_us = 150, .gain_shift = 1,
};

static struct sim path(double a_mbit)
{
	struct sim s = {
		.c_bps = 100e6, .x_bps = 100e6 - a_mbit * 1e6,
		.base_us = 20000, .seed = 7,
	};
	return s;
}

static double err(u64 est, double a_mbit)
{
	return fabs((double)est / 1e6 - a_mbit) / a_mbit;
}

/* The envelope: (n - 1) mss 8 / noise_us. */
TEST(envelope)
{
	struct imtcp_est_cfg c = { .n = 10, .k = 2, .noise_us = 500 };

	EXPECT_EQ(208512000ULL, imtcp_envelope_bps(&c, 1448));
	EXPECT_EQ(1288512000ULL, imtcp_envelope_bps(&c, 8948));
	c.n = 16;
	EXPECT_EQ(347520000ULL, imtcp_envelope_bps(&c, 1448));
	c.noise_us = 0;
	EXPECT_EQ(U64_MAX, imtcp_envelope_bps(&c, 1448));
}

TEST(gap_rates_rise_linearly)
{
	struct imtcp_stream st = { .lo_bps = 10 * MBIT, .hi_bps = 18 * MBIT };

	EXPECT_EQ(10 * MBIT, imtcp_gap_bps(&st, 10, 0));
	EXPECT_EQ(14 * MBIT, imtcp_gap_bps(&st, 10, 4));
	EXPECT_EQ(18 * MBIT, imtcp_gap_bps(&st, 10, 8));
	EXPECT_EQ(18 * MBIT, imtcp_gap_bps(&st, 10, 9));
}

TEST(plan_splits_the_range)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 80 * MBIT };
	struct imtcp_stream st;

	imtcp_plan_stream(&e, &cfg, 0, &st);
	EXPECT_EQ(40 * MBIT, st.lo_bps);
	EXPECT_EQ(50 * MBIT, st.hi_bps);
	imtcp_plan_stream(&e, &cfg, 3, &st);
	EXPECT_EQ(70 * MBIT, st.lo_bps);
	EXPECT_EQ(80 * MBIT, st.hi_bps);
}

/* Streams that run well above A rise, with or without delayed ACKs. */
TEST(stream_above_a_rises)
{
	int delayed;

	for (delayed = 0; delayed <= 1; delayed++) {
		struct sim s = path(60);
		struct imtcp_stream st = { .lo_bps = 60 * MBIT,
					   .hi_bps = 120 * MBIT };

		s.every_second = delayed;
		s.noise_us = 20;
		sim_stream(&s, &st, 10, 1448, 1000);
		imtcp_analyse_stream(&st, &cfg, 0);
		EXPECT_EQ(IMTCP_OUT_RISE, st.outcome);
	}
}

TEST(stream_below_a_is_flat)
{
	struct sim s = path(60);
	struct imtcp_stream st = { .lo_bps = 20 * MBIT, .hi_bps = 55 * MBIT };

	s.noise_us = 60;
	s.q_us = 2000;	/* a standing queue that drains meanwhile */
	sim_stream(&s, &st, 10, 1448, 1000);
	imtcp_analyse_stream(&st, &cfg, 0);
	EXPECT_EQ(IMTCP_OUT_FLAT, st.outcome);
}

/* At a full drop-tail queue delays stay flat at any rate. */
TEST(stream_at_the_ceiling_is_unclear)
{
	struct imtcp_stream st = { .lo_bps = 60 * MBIT, .hi_bps = 120 * MBIT };
	u32 i;

	for (i = 0; i < 5; i++) {
		st.s[i].seg = 2 * i + 1;
		st.s[i].delay_us = 71000 + (i % 2) * 200;
	}
	st.nsamples = 5;
	imtcp_analyse_stream(&st, &cfg, 71100);
	EXPECT_EQ(IMTCP_OUT_UNCLEAR, st.outcome);
	imtcp_analyse_stream(&st, &cfg, 80000);	/* room above: flat */
	EXPECT_EQ(IMTCP_OUT_FLAT, st.outcome);
}

TEST(ceiling_only_where_a_queue_was_seen)
{
	/* delays 40-71 ms lately: a queue filled; its top is the ceiling */
	s32 max[2] = { 71000, 70500 }, min[2] = { 45000, 40000 };
	/* a loopback or LAN path: all delays within noise_us, no ceiling */
	s32 lmax[2] = { 90, 120 }, lmin[2] = { 30, 25 };
	s32 none[2] = { 0, 0 };

	EXPECT_EQ(71000, imtcp_queue_ceiling(max, min, &cfg));
	EXPECT_EQ(0, imtcp_queue_ceiling(lmax, lmin, &cfg));
	/* no minimum known (first measurement): no evidence of a queue */
	EXPECT_EQ(0, imtcp_queue_ceiling(max, none, &cfg));
	min[0] = 70900;		/* within noise_us (150) of the top */
	min[1] = 0;				/* one measurement, all high */
	EXPECT_EQ(0, imtcp_queue_ceiling(max, min, &cfg));
}

TEST(too_few_samples_are_unclear)
{
	struct imtcp_stream st = { .lo_bps = MBIT, .hi_bps = 2 * MBIT,
				   .nsamples = 2 };

	imtcp_analyse_stream(&st, &cfg, 0);
	EXPECT_EQ(IMTCP_OUT_UNCLEAR, st.outcome);
}

TEST(duplicate_and_reordered_samples_are_sorted)
{
	struct imtcp_stream st = { .lo_bps = 40 * MBIT, .hi_bps = 80 * MBIT };
	static const u8 seg[] = { 3, 1, 5, 5, 7, 9 };
	u32 i;

	for (i = 0; i < sizeof(seg); i++) {
		st.s[i].seg = seg[i];
		st.s[i].delay_us = 1000;
	}
	st.nsamples = sizeof(seg);
	imtcp_analyse_stream(&st, &cfg, 0);
	ASSERT_EQ(5, st.nsamples);
	for (i = 0; i + 1 < st.nsamples; i++)
		EXPECT_LT(st.s[i].seg, st.s[i + 1].seg);
	EXPECT_EQ(IMTCP_OUT_FLAT, st.outcome);
}

TEST(combine_without_rise_is_the_high_edge)
{
	struct imtcp_stream st[2] = {
		{ .lo_bps = 10, .hi_bps = 20, .outcome = IMTCP_OUT_FLAT },
		{ .lo_bps = 20, .hi_bps = 30, .outcome = IMTCP_OUT_UNCLEAR },
	};
	enum imtcp_edge edge;
	u32 rse;
	u64 cap;

	EXPECT_EQ(0, imtcp_combine(st, 2, &cfg, 0, NULL, &edge, &rse, &cap));	/* top unclear */
	st[1].outcome = IMTCP_OUT_FLAT;
	EXPECT_EQ(30, imtcp_combine(st, 2, &cfg, 0, NULL, &edge, &rse, &cap));
	EXPECT_EQ(IMTCP_EDGE_HIGH, edge);
}

/* The joint fit places A inside the range, and at the low edge when all
 * streams ran above it. */
TEST(combine_fits_a)
{
	struct imtcp_est e = { .lo_bps = 30 * MBIT, .hi_bps = 120 * MBIT };
	struct imtcp_stream st[IMTCP_K_MAX];
	struct sim s = path(60);
	enum imtcp_edge edge;
	u32 rse;
	u64 cap;
	u64 a;
	u32 i;

	s.every_second = 1;
	for (i = 0; i < cfg.k; i++) {
		imtcp_plan_stream(&e, &cfg, i, &st[i]);
		sim_stream(&s, &st[i], cfg.n, 1448, 1000 + 5000.0 * i);
		imtcp_analyse_stream(&st[i], &cfg, 0);
	}
	a = imtcp_combine(st, cfg.k, &cfg, 0, NULL, &edge, &rse, &cap);
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	EXPECT_LT(err(a, 60), 0.05) TH_LOG("fit %.1f", a / 1e6);

	s = path(20);
	for (i = 0; i < cfg.k; i++) {
		imtcp_plan_stream(&e, &cfg, i, &st[i]);
		sim_stream(&s, &st[i], cfg.n, 1448, 1000 + 5000.0 * i);
		imtcp_analyse_stream(&st[i], &cfg, 0);
	}
	EXPECT_EQ(30 * MBIT, imtcp_combine(st, cfg.k, &cfg, 0, NULL, &edge, &rse, &cap));
	EXPECT_EQ(IMTCP_EDGE_LOW, edge);
}

TEST(edge_results_widen_the_range)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };

	imtcp_est_update(&e, &cfg, 60 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(50 * MBIT, e.lo_bps);
	EXPECT_EQ(90 * MBIT, e.hi_bps);
	imtcp_est_update(&e, &cfg, 50 * MBIT, IMTCP_EDGE_LOW, 0);
	EXPECT_EQ(IMTCP_RATE_MIN, e.lo_bps);
	EXPECT_EQ(70 * MBIT, e.hi_bps);
	EXPECT_EQ(2, e.count);
}

/*
 * An upper-edge result below the range's top (a measurement that probed
 * only part of its range) moves the range from the result, not from the
 * top it did not reach; one above the top (a stream carried over from a
 * higher range) from the top, as before.
 */
TEST(an_upper_edge_below_the_top_moves_from_the_result)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };

	imtcp_est_update(&e, &cfg, 48 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(38 * MBIT, e.lo_bps);		/* 48 - 20 / 2 */
	EXPECT_EQ(78 * MBIT, e.hi_bps);		/* 48 + 20 + 20 / 2 */
	e.lo_bps = 40 * MBIT;
	e.hi_bps = 60 * MBIT;
	imtcp_est_update(&e, &cfg, 70 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(50 * MBIT, e.lo_bps);
	EXPECT_EQ(90 * MBIT, e.hi_bps);
}

/*
 * up_wide: past the upper edge the range reaches at least as far as one
 * around the result, three times it; without a result (no fit) it moves
 * by its width as before.
 */
TEST(up_wide_reaches_as_far_as_a_range_around)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT,
			       .up_wide = 1 };

	imtcp_est_update(&e, &cfg, 48 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(38 * MBIT, e.lo_bps);		/* 48 - 20 / 2 */
	EXPECT_EQ(144 * MBIT, e.hi_bps);	/* 3 * 48, beyond 78 */
	e.lo_bps = 40 * MBIT;
	e.hi_bps = 60 * MBIT;
	imtcp_est_update(&e, &cfg, 0, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(50 * MBIT, e.lo_bps);
	EXPECT_EQ(90 * MBIT, e.hi_bps);
}

/*
 * Measurements from a narrow range far below A (2-8 Mbit/s, C = 100)
 * until the first result inside its range: each upper-edge result lies
 * below the top (the fit), and 1.5 widths past it climb slower than a
 * range around it.
 */
static int measurements_to_reach(double a_mbit, u32 k, u32 seed, u8 up_wide)
{
	struct imtcp_est_cfg c = { .n = 10, .k = k, .noise_us = 150,
				   .gain_shift = 1 };
	struct imtcp_est e = { .lo_bps = 2 * MBIT, .hi_bps = 8 * MBIT,
			       .up_wide = up_wide };
	struct imtcp_stream st[IMTCP_K_MAX];
	struct sim s = path(a_mbit);
	int i;

	s.every_second = 1;
	s.noise_us = 30;
	s.seed = seed;
	for (i = 1; i <= 12; i++)
		if (sim_measure(&s, &e, &c, st, i * 40000.0) &&
		    e.edge == IMTCP_EDGE_NONE)
			return i;
	return i;
}

/*
 * A from 20 to 80 Mbit/s, k = 2 and 4, ten seeds: with up_wide never a
 * measurement later, and at least half a measurement sooner on average
 * (4.6 and 3.8 over thirty seeds when written).
 */
TEST(up_wide_reaches_a_risen_a_sooner)
{
	int wide = 0, narrow = 0, a, k, seed;

	for (a = 20; a <= 80; a += 20)
		for (k = 2; k <= 4; k += 2)
			for (seed = 1; seed <= 10; seed++) {
				int w = measurements_to_reach(a, k, seed, 1);
				int n = measurements_to_reach(a, k, seed, 0);

				EXPECT_LE(w, n) {
					TH_LOG("A %d k %d seed %d: %d, %d",
					       a, k, seed, w, n);
				}
				wide += w;
				narrow += n;
			}
	EXPECT_LE(wide, narrow - 40) {
		TH_LOG("80 cases: %d measurements with up_wide, %d without",
		       wide, narrow);
	}
}

/* A capacity median of @mbit, as IMTCP_CAP_HIST measurements gave it. */
static void capacity_of(struct imtcp_est *e, u64 mbit)
{
	int i;

	for (i = 0; i < IMTCP_CAP_HIST; i++)
		imtcp_cap_add(&e->cap, mbit * MBIT);
}

/*
 * cap_range: the range's top at most twice the capacity, doubled by
 * each upper-edge result in a row and free after three; a result inside
 * the range brings the bound back, a measurement without one does not.
 */
TEST(cap_range_lifts_after_upper_edge_results)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };

	capacity_of(&e, 30);
	EXPECT_EQ(0, imtcp_range_cap_bps(&e));		/* off */
	e.cap_range = 1;
	EXPECT_EQ(60 * MBIT, imtcp_range_cap_bps(&e));
	imtcp_est_update(&e, &cfg, 50 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(120 * MBIT, imtcp_range_cap_bps(&e));
	imtcp_est_update(&e, &cfg, 0, IMTCP_EDGE_NONE, 0);	/* no result */
	EXPECT_EQ(120 * MBIT, imtcp_range_cap_bps(&e));
	imtcp_est_update(&e, &cfg, 0, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(240 * MBIT, imtcp_range_cap_bps(&e));
	imtcp_est_update(&e, &cfg, 90 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(480 * MBIT, imtcp_range_cap_bps(&e));
	imtcp_est_update(&e, &cfg, 95 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(0, imtcp_range_cap_bps(&e));		/* free */
	imtcp_est_update(&e, &cfg, 25 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(60 * MBIT, imtcp_range_cap_bps(&e));
	imtcp_est_update(&e, &cfg, 20 * MBIT, IMTCP_EDGE_LOW, 0);
	EXPECT_EQ(60 * MBIT, imtcp_range_cap_bps(&e));
	memset(&e.cap, 0, sizeof(e.cap));		/* no capacity yet */
	EXPECT_EQ(0, imtcp_range_cap_bps(&e));
}

/*
 * Measurements of A = @a_mbit (C = 100) from a range of 10-60 Mbit/s,
 * the range bound as the module bounds it, with @cap_range, by a
 * capacity median of @cap_mbit, until the estimate lies within 10 % of A.
 */
static int measurements_to_follow(double a_mbit, u64 cap_mbit, u32 seed,
				  u8 cap_range)
{
	struct imtcp_est_cfg c = { .n = 10, .k = 2, .noise_us = 150,
				   .gain_shift = 1 };
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 60 * MBIT,
			       .up_wide = 1, .cap_range = cap_range };
	struct imtcp_stream st[IMTCP_K_MAX];
	struct sim s = path(a_mbit);
	int i;

	capacity_of(&e, cap_mbit);
	s.every_second = 1;
	s.noise_us = 30;
	s.seed = seed;
	for (i = 1; i <= 30; i++) {
		imtcp_est_bound(&e, 0, imtcp_range_cap_bps(&e));
		sim_measure(&s, &e, &c, st, i * 40000.0);
		if (e.estimate_bps && err(e.estimate_bps, a_mbit) <= 0.1)
			return i;
	}
	return i;
}

/*
 * A = 20-80 Mbit/s (C = 100), ten seeds. A capacity median read right
 * or at half of C costs at most one measurement more than no bound; one
 * read at 0.3 C (the range then bound below A = 60 and 80) follows A
 * within ten; one read at 0.15 C within twenty: the upper-edge results
 * lift the bound (and inside results below A from the Poisson cross
 * traffic's noise bring it back, until new capacities move the median).
 * When written: at most 8, 9 and 18 (without the lift, 31: never).
 */
TEST(cap_range_read_low_does_not_hold_the_range_below_a)
{
	u64 caps[] = { 15, 30, 50, 100 }, most[] = { 20, 10, 0, 0 };
	int a, seed, i;

	for (a = 20; a <= 80; a += 20)
		for (i = 0; i < 4; i++)
			for (seed = 1; seed <= 10; seed++) {
				int n = measurements_to_follow(a, caps[i], seed, 1);
				int free = measurements_to_follow(a, caps[i], seed, 0);

				EXPECT_LE(n, most[i] ? most[i] : free + 1) {
					TH_LOG("A %d C read %llu seed %d: %d (%d free)",
					       a, caps[i], seed, n, free);
				}
			}
}

TEST(range_centres_on_the_result)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };

	imtcp_est_update(&e, &cfg, 50 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(25 * MBIT, e.lo_bps);	/* A / 2 .. 3 A */
	EXPECT_EQ(150 * MBIT, e.hi_bps);
	EXPECT_EQ(50 * MBIT, e.estimate_bps);
	imtcp_est_update(&e, &cfg, 0, IMTCP_EDGE_NONE, 0);	/* no result */
	EXPECT_EQ(1, e.count);
}

/* Feed @mbit at @t_ms with a 40 ms RTT, as the module does. */
static void result_at(struct imtcp_est *e, const struct imtcp_est_cfg *c,
		      u64 t_ms, u64 mbit)
{
	imtcp_est_result_at(e, c, t_ms * 1000, 40000);
	imtcp_est_update(e, c, mbit * MBIT, IMTCP_EDGE_NONE, 0);
}

/*
 * Results more than stale_rtts RTTs before the latest are history: after
 * such a gap the estimate starts anew from the result that came, where
 * the median of five would have kept the old level for two more.
 */
TEST(results_older_than_stale_rtts_are_forgotten)
{
	struct imtcp_est_cfg c = cfg;
	struct imtcp_est e = { .lo_bps = 4 * MBIT, .hi_bps = 16 * MBIT };
	u64 t;

	c.stale_rtts = 32;		/* 1.28 s at 40 ms */
	for (t = 0; t < 1000; t += 200)
		result_at(&e, &c, t, 8);
	EXPECT_EQ(8 * MBIT, e.estimate_bps);
	result_at(&e, &c, 2000, 1);	/* 1.2 s after the last: kept */
	EXPECT_EQ(8 * MBIT, e.estimate_bps);
	result_at(&e, &c, 3500, 1);	/* 1.5 s: the 8s are history */
	EXPECT_EQ(1 * MBIT, e.estimate_bps);
	EXPECT_EQ(1, e.nhist);
	EXPECT_EQ(7, e.count);		/* counted all the same */
	EXPECT_EQ(0, e.provisional);
	result_at(&e, &c, 3700, 3);	/* then smoothed again: */
	EXPECT_EQ(1 * MBIT, e.estimate_bps);	/* the median of 1 and 3 */
	result_at(&e, &c, 3900, 3);
	EXPECT_EQ(2 * MBIT, e.estimate_bps);	/* halfway to 3 */
	EXPECT_EQ(3, e.nhist);
}

/* stale_rtts = 0, or no RTT known: results never expire. */
TEST(stale_rtts_zero_keeps_every_result)
{
	struct imtcp_est_cfg c = cfg;
	struct imtcp_est e = { .lo_bps = 4 * MBIT, .hi_bps = 16 * MBIT };
	u64 t;

	c.stale_rtts = 0;
	for (t = 0; t < 1000; t += 200)
		result_at(&e, &c, t, 8);
	result_at(&e, &c, 60000, 1);
	EXPECT_EQ(8 * MBIT, e.estimate_bps);
	EXPECT_EQ(5, e.nhist);		/* the provisional first gave way */
	c.stale_rtts = 32;
	imtcp_est_result_at(&e, &c, 120000000, 0);
	imtcp_est_update(&e, &c, 1 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(6, e.nhist);
}

/*
 * A stale history waits for a result that is taken: a first result at
 * the lower edge (not taken) or none leaves it, and the estimate, as
 * they were until one comes.
 */
TEST(a_stale_history_gives_way_only_to_a_taken_result)
{
	struct imtcp_est_cfg c = cfg;
	struct imtcp_est e = { .lo_bps = 4 * MBIT, .hi_bps = 16 * MBIT };

	c.stale_rtts = 32;
	result_at(&e, &c, 0, 8);
	result_at(&e, &c, 100, 8);
	imtcp_est_result_at(&e, &c, 5000000, 40000);
	imtcp_est_update(&e, &c, 0, IMTCP_EDGE_NONE, 0);	/* no result */
	EXPECT_EQ(8 * MBIT, e.estimate_bps);
	EXPECT_EQ(1, e.stale);
	imtcp_est_update(&e, &c, 2 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(2 * MBIT, e.estimate_bps);
	EXPECT_EQ(0, e.stale);
}

/*
 * A result above the busy-link cap (here 5/4 of the busy rate: a
 * busy_margin of 25), or below 97 % of its floor (busy_floor_pct), is
 * held there for the estimate; the range follows the fit (and its edge)
 * all the same.
 */
TEST(a_held_result_leaves_the_range_to_the_fit)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };
	/* busy at 20 in this window, none in the last: no floor yet */
	struct imtcp_busy b = { .max_bps = { 20 * MBIT, 0 },
				.recent_bps = 20 * MBIT, .margin_pct = 25,
				.floor_pct = IMTCP_BUSY_FLOOR_PCT };

	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 76 * MBIT,
					     IMTCP_EDGE_NONE, 40, &b));
	EXPECT_EQ(25 * MBIT, e.raw_bps);
	EXPECT_EQ(76 * MBIT, e.probe_bps);	/* the fit, for readers */
	EXPECT_EQ(IMTCP_HELD_CAP, e.held);
	EXPECT_EQ(25 * MBIT, e.estimate_bps);
	EXPECT_EQ(0, e.hist_rse[0]);	/* the fit's no longer applies */
	EXPECT_EQ(38 * MBIT, e.lo_bps);	/* fit / 2 .. 3 fit */
	EXPECT_EQ(228 * MBIT, e.hi_bps);
	/* an upper edge held: no edge for the estimate, the range moves up */
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 228 * MBIT,
					     IMTCP_EDGE_HIGH, 0, &b));
	EXPECT_EQ(IMTCP_EDGE_NONE, e.edge);
	EXPECT_EQ(228 * MBIT - 95 * MBIT, e.lo_bps);
	/* below the bound, or without one: as imtcp_est_update */
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 22 * MBIT,
					     IMTCP_EDGE_NONE, 0, &b));
	EXPECT_EQ(22 * MBIT, e.raw_bps);
	EXPECT_EQ(22 * MBIT, e.probe_bps);
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 90 * MBIT,
					     IMTCP_EDGE_NONE, 0, NULL));
	EXPECT_EQ(90 * MBIT, e.raw_bps);
	EXPECT_EQ(90 * MBIT, e.probe_bps);
	EXPECT_EQ(IMTCP_HELD_NONE, e.held);
	/* busy at 20 in both windows: a result below 19.4 is held there */
	b.max_bps[1] = 20 * MBIT;
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 6 * MBIT,
					     IMTCP_EDGE_LOW, 30, &b));
	EXPECT_EQ(194 * MBIT / 10, e.raw_bps);
	EXPECT_EQ(6 * MBIT, e.probe_bps);
	EXPECT_EQ(IMTCP_HELD_FLOOR, e.held);
	EXPECT_EQ(IMTCP_EDGE_NONE, e.edge);
	EXPECT_LT(e.lo_bps, 6 * MBIT);	/* the fit's lower edge moves the range */
}

/*
 * The estimate itself is held within the busy-link bounds: after A fell,
 * a median of older results would keep it where A was until three
 * more results came, seconds where A is small.
 */
TEST(the_estimate_is_held_within_the_bounds_too)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };
	struct imtcp_busy b = { .max_bps = { 20 * MBIT, 20 * MBIT },
				.recent_bps = 20 * MBIT, .margin_pct = 25,
				.floor_pct = IMTCP_BUSY_FLOOR_PCT };
	int i;

	for (i = 0; i < 3; i++)
		imtcp_est_update(&e, &cfg, 50 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(50 * MBIT, e.estimate_bps);
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 22 * MBIT,
					     IMTCP_EDGE_NONE, 0, &b));
	EXPECT_EQ(22 * MBIT, e.raw_bps);		/* within the bounds */
	EXPECT_EQ(25 * MBIT, e.estimate_bps);	/* the median, 50, held */
	EXPECT_EQ(IMTCP_HELD_CAP, e.held);	/* the estimate was */
	/* and from below */
	b.max_bps[0] = b.max_bps[1] = b.recent_bps = 80 * MBIT;
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 75 * MBIT,
					     IMTCP_EDGE_NONE, 0, &b));
	EXPECT_EQ(776 * MBIT / 10, e.estimate_bps);	/* 97 % of 80 */
	EXPECT_EQ(IMTCP_HELD_FLOOR, e.held);
}

/*
 * Between results the figure shown moves with the bounds (imtcp_busy_shown);
 * readers are told the bound and busy rate that moved it, and once it is
 * back at the estimate, the estimate's own: a CI run published "cap"
 * beside a busy rate of 0, the windows having lapsed since the result.
 */
TEST(the_figure_shown_carries_its_own_bound_and_busy_rate)
{
	struct imtcp_est e = { .lo_bps = 40 * MBIT, .hi_bps = 60 * MBIT };
	struct imtcp_busy b = { .max_bps = { 20 * MBIT, 20 * MBIT },
				.recent_bps = 20 * MBIT,
				.floor_pct = IMTCP_BUSY_FLOOR_PCT };
	u64 busy_bps = 1;

	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 30 * MBIT,
					     IMTCP_EDGE_NONE, 0, &b));
	EXPECT_EQ(20 * MBIT, e.estimate_bps);
	EXPECT_EQ(IMTCP_HELD_CAP, e.held);
	EXPECT_EQ(20 * MBIT, e.busy_bps);
	/* the cap falls to 15 */
	EXPECT_EQ(IMTCP_HELD_CAP,
		  imtcp_est_shown_held(&e, 15 * MBIT, 15 * MBIT, &busy_bps));
	EXPECT_EQ(15 * MBIT, busy_bps);
	/* the windows lapse: back at the estimate, held by 20 at its result */
	EXPECT_EQ(IMTCP_HELD_CAP,
		  imtcp_est_shown_held(&e, 20 * MBIT, 0, &busy_bps));
	EXPECT_EQ(20 * MBIT, busy_bps);
	/* a floor above it (own_floor) */
	EXPECT_EQ(IMTCP_HELD_FLOOR,
		  imtcp_est_shown_held(&e, 24 * MBIT, 25 * MBIT, &busy_bps));
	EXPECT_EQ(25 * MBIT, busy_bps);
	/* a result no bound moved: none, and the busy rate of its update */
	b.max_bps[0] = b.max_bps[1] = b.recent_bps = 0;
	EXPECT_TRUE(imtcp_est_update_bounded(&e, &cfg, 30 * MBIT,
					     IMTCP_EDGE_NONE, 0, &b));
	EXPECT_EQ(IMTCP_HELD_NONE, e.held);
	EXPECT_EQ(0, e.busy_bps);
	EXPECT_EQ(IMTCP_HELD_NONE,
		  imtcp_est_shown_held(&e, e.estimate_bps, 9 * MBIT, &busy_bps));
	EXPECT_EQ(0, busy_bps);
}

/*
 * A connection's first result at the lower edge is not taken (only the
 * range moves past that edge); the first estimate it reports is replaced by the next result, not averaged
 * with it (a median would keep a low first result for several more
 * measurements).
 */
TEST(the_first_result_is_provisional)
{
	struct imtcp_est e = { .lo_bps = 1 * MBIT, .hi_bps = 50 * MBIT };

	EXPECT_FALSE(imtcp_est_update(&e, &cfg, 1 * MBIT, IMTCP_EDGE_LOW, 0));
	EXPECT_EQ(0, e.estimate_bps);
	EXPECT_EQ(0, e.count);
	EXPECT_EQ(IMTCP_RATE_MIN, e.lo_bps);	/* not reported, but the */
	EXPECT_EQ(25500000, e.hi_bps);		/* range moves below it */
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 2 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_EQ(2 * MBIT, e.estimate_bps);
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 40 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_EQ(40 * MBIT, e.estimate_bps);
	EXPECT_EQ(1, e.nhist);
	EXPECT_EQ(2, e.count);
	/* from then on every result is taken and averaged */
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 20 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_EQ(30 * MBIT, e.estimate_bps);	/* median 20, gain 1/2 */
	EXPECT_EQ(2, e.nhist);
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 5 * MBIT, IMTCP_EDGE_LOW, 0));
}

/*
 * A provisional estimate is withdrawn when the writes turn out too short
 * (imtcp_cu_writes_short): it reads 0, the result after it is a first
 * one again (replaced by the next, not averaged), and an estimate of
 * more than one result is never withdrawn.
 */
TEST(a_provisional_estimate_can_be_withdrawn)
{
	struct imtcp_est e = { .lo_bps = 1 * MBIT, .hi_bps = 50 * MBIT };

	EXPECT_FALSE(imtcp_est_withdraw(&e));	/* nothing to withdraw */
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 83 * MBIT, IMTCP_EDGE_HIGH, 0));
	EXPECT_EQ(83 * MBIT, e.estimate_bps);
	EXPECT_TRUE(imtcp_est_withdraw(&e));
	EXPECT_EQ(0, e.estimate_bps);
	EXPECT_EQ(0, e.nhist);
	EXPECT_EQ(1, e.count);			/* the result was measured */
	EXPECT_FALSE(imtcp_est_withdraw(&e));
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 12 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_EQ(12 * MBIT, e.estimate_bps);
	EXPECT_EQ(1, e.provisional);		/* a first result again */
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 20 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_EQ(20 * MBIT, e.estimate_bps);	/* it gave way */
	EXPECT_EQ(1, e.nhist);
	EXPECT_EQ(0, e.provisional);
	EXPECT_FALSE(imtcp_est_withdraw(&e));
	EXPECT_EQ(20 * MBIT, e.estimate_bps);
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 10 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_EQ(15 * MBIT, e.estimate_bps);	/* averaged, as before */
	EXPECT_FALSE(imtcp_est_withdraw(&e));
}

/*
 * Streams far above A on a standing queue (a slow start's first
 * measurement probes from its own pace up: 120-400 Mbit/s for A = 19
 * in the VM): the standing-queue fit's result is held at half the
 * range's floor, and that is its lower edge, not an estimate of 60.
 */
TEST(a_fit_held_at_half_the_floor_is_the_lower_edge)
{
	struct imtcp_est e = { .lo_bps = 120 * MBIT, .hi_bps = 400 * MBIT };
	struct imtcp_stream st[IMTCP_K_MAX];
	struct sim s = path(19);
	enum imtcp_edge edge;
	u32 rse;
	u64 cap;
	double t = 1000;
	u64 raw;
	u32 i;

	s.every_second = 1;
	s.noise_us = 20;
	s.q_us = 10000;		/* the flow's own standing queue */
	for (i = 0; i < cfg.k; i++) {
		imtcp_plan_stream(&e, &cfg, i, &st[i]);
		t = sim_stream(&s, &st[i], cfg.n, 1448, t) + 2000;
		imtcp_analyse_stream(&st[i], &cfg, 0);
	}
	/* the empty path's delay: every stream met a standing queue */
	raw = imtcp_combine(st, cfg.k, &cfg, (s32)s.base_us, &e.bucket, &edge,
			    &rse, &cap);
	EXPECT_EQ(60 * MBIT, raw);
	EXPECT_EQ(IMTCP_EDGE_LOW, edge);
	EXPECT_FALSE(imtcp_est_update(&e, &cfg, raw, edge, 0));
	EXPECT_EQ(0, e.estimate_bps);
	EXPECT_LT(e.lo_bps, 19 * MBIT);		/* the next range holds A */
	EXPECT_EQ(260 * MBIT, e.hi_bps);
}

/*
 * A result whose standard error is four times the usual (and above
 * IMTCP_RSE_FULL) moves the estimate by 1/16 of what a precise one
 * would: the median result 80 against an estimate of 50 gives 50.9, not
 * 65. (The last three results are 80, 80, 110: too far apart to be a
 * step, so the EWMA decides; the median, 80, is an imprecise one.)
 */
TEST(an_imprecise_result_moves_the_estimate_less)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 200 * MBIT };
	struct imtcp_est f = e;

	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 1 * MBIT, IMTCP_EDGE_NONE, 50));
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 50 * MBIT, IMTCP_EDGE_NONE, 50));
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 50 * MBIT, IMTCP_EDGE_NONE, 50));
	EXPECT_EQ(50 * MBIT, e.estimate_bps);
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 80 * MBIT, IMTCP_EDGE_NONE, 400));
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 80 * MBIT, IMTCP_EDGE_NONE, 400));
	EXPECT_EQ(50 * MBIT, e.estimate_bps);	/* median of 50 50 80 80: 50 */
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 110 * MBIT, IMTCP_EDGE_NONE,
				     50));
	/* median 80 of rse 400; usual 50, counted as 100: weight 16/256 */
	EXPECT_EQ(50 * MBIT + 15 * MBIT * 16 / 256, e.estimate_bps);

	/* the same results with no standard error count in full */
	imtcp_est_update(&f, &cfg, 1 * MBIT, IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&f, &cfg, 50 * MBIT, IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&f, &cfg, 50 * MBIT, IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&f, &cfg, 80 * MBIT, IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&f, &cfg, 80 * MBIT, IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&f, &cfg, 110 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(65 * MBIT, f.estimate_bps);
}

/*
 * Where every result is as imprecise (a noisy path), the usual precision
 * is that one and each result counts in full: weights relative to a
 * fixed standard would leave the estimate where it started.
 */
TEST(equally_imprecise_results_count_in_full)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 200 * MBIT };
	u32 i;

	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 1 * MBIT, IMTCP_EDGE_NONE, 500));
	for (i = 0; i < 3; i++)
		imtcp_est_update(&e, &cfg, 20 * MBIT, IMTCP_EDGE_NONE, 500);
	EXPECT_EQ(20 * MBIT, e.estimate_bps);
	for (i = 0; i < 2; i++)
		imtcp_est_update(&e, &cfg, 60 * MBIT, IMTCP_EDGE_NONE, 500);
	EXPECT_EQ(20 * MBIT, e.estimate_bps);	/* median of five: 20 */
	imtcp_est_update(&e, &cfg, 60 * MBIT, IMTCP_EDGE_NONE, 500);
	/* three alike, each counted in full: a step (a weight below full
	 * would have left the estimate near 20)
	 */
	EXPECT_EQ(60 * MBIT, e.estimate_bps);
}

/*
 * With @c_cfg, an estimate of 50 from six results of 50 (standard error
 * 5 %), and then @a, @b and @c (@c 0: none) of standard error @rse
 * permille.
 */
static u64 after_results(const struct imtcp_est_cfg *c_cfg, u64 a, u64 b,
			 u64 c, u32 rse)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 200 * MBIT };
	u32 i;

	for (i = 0; i < 6; i++)
		imtcp_est_update(&e, c_cfg, 50 * MBIT, IMTCP_EDGE_NONE, 50);
	imtcp_est_update(&e, c_cfg, a, IMTCP_EDGE_NONE, rse);
	imtcp_est_update(&e, c_cfg, b, IMTCP_EDGE_NONE, rse);
	if (c)
		imtcp_est_update(&e, c_cfg, c, IMTCP_EDGE_NONE, rse);
	return e.estimate_bps;
}

static u64 after_three_rse(u64 a, u64 b, u64 c, u32 rse)
{
	return after_results(&cfg, a, b, c, rse);
}

static u64 after_three(u64 a, u64 b, u64 c)
{
	return after_three_rse(a, b, c, 50);
}

/*
 * A median of five needs three results on a new level before it moves;
 * three in a row that agree on it (within a quarter of each other, each
 * more than an eighth off the estimate, on one side) are a step of A,
 * and the estimate goes to their mean at once.
 */
TEST(three_results_alike_are_a_step)
{
	EXPECT_EQ(50 * MBIT, after_three(30 * MBIT, 31 * MBIT, 0));
	EXPECT_EQ(30 * MBIT, after_three(30 * MBIT, 31 * MBIT, 29 * MBIT));
	EXPECT_EQ(70 * MBIT, after_three(72 * MBIT, 68 * MBIT, 70 * MBIT));
}

TEST(results_that_do_not_agree_are_no_step)
{
	/* too far apart: 20 to 40; the median of five (40) and the EWMA */
	EXPECT_EQ(45 * MBIT, after_three(30 * MBIT, 40 * MBIT, 20 * MBIT));
	/* on both sides of the estimate: the median stays 50 */
	EXPECT_EQ(50 * MBIT, after_three(30 * MBIT, 70 * MBIT, 31 * MBIT));
	/* within an eighth of it: the EWMA, half way to the median 54 */
	EXPECT_EQ(52 * MBIT, after_three(54 * MBIT, 55 * MBIT, 54 * MBIT));
	/* close to each other, but on both sides: the median stays 50 */
	EXPECT_EQ(50 * MBIT, after_three(435 * MBIT / 10, 57 * MBIT,
					 435 * MBIT / 10));
	/* alike, but each four times less precise than the usual: the
	 * median (31) moves the estimate with weight 1/16
	 */
	EXPECT_EQ(50 * MBIT - 19 * MBIT / 2 * 16 / 256,
		  after_three_rse(30 * MBIT, 31 * MBIT, 29 * MBIT, 400));
}

static const struct imtcp_est_cfg fall_cfg = {
	.n = 10, .k = 4, .noise_us = 150, .gain_shift = 1, .fast_fall = 1,
};

/* after_results with fast_fall: two results @a and @b after the 50s. */
static u64 fast_after_two(u64 a, u64 b, u32 rse)
{
	return after_results(&fall_cfg, a, b, 0, rse);
}

/*
 * fast_fall: two results in a row, both below the estimate by more than
 * a quarter of it and more than the recent results' spread, within a
 * quarter of each other, are a fall of A; the estimate goes to their
 * mean at once. A rise is left to the median and the EWMA, however many
 * results agree on it.
 */
TEST(two_results_below_are_a_fall)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 200 * MBIT };
	u32 i;

	EXPECT_EQ(21 * MBIT, fast_after_two(20 * MBIT, 22 * MBIT, 50));
	/* one alone: the median of five stays 50 */
	EXPECT_EQ(50 * MBIT, fast_after_two(50 * MBIT, 20 * MBIT, 50));
	/* below by less than a quarter (39 and 38, both above 37.5): no
	 * jump; the median of five is still 50
	 */
	EXPECT_EQ(50 * MBIT, fast_after_two(39 * MBIT, 38 * MBIT, 50));
	/* too far apart (10 and 30): no jump */
	EXPECT_EQ(50 * MBIT, fast_after_two(10 * MBIT, 30 * MBIT, 50));
	/* imprecise (a weight below full): no jump */
	EXPECT_EQ(50 * MBIT, fast_after_two(20 * MBIT, 22 * MBIT, 400));
	/* a rise of three alike is no jump: the median of five (70) and the
	 * EWMA, half way
	 */
	for (i = 0; i < 6; i++)
		imtcp_est_update(&e, &fall_cfg, 50 * MBIT, IMTCP_EDGE_NONE, 50);
	for (i = 0; i < 3; i++)
		imtcp_est_update(&e, &fall_cfg, 70 * MBIT, IMTCP_EDGE_NONE, 50);
	EXPECT_EQ(60 * MBIT, e.estimate_bps);
}

/*
 * fast_fall with results @lo and @lo + 1 after eight that alternate 20
 * and 60 (an estimate of 46.9 with a spread of 20).
 */
static u64 fall_after_scatter(u64 lo)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 200 * MBIT };
	u32 i;

	for (i = 0; i < 8; i++)
		imtcp_est_update(&e, &fall_cfg, (i % 2 ? 60 : 20) * MBIT,
				 IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&e, &fall_cfg, lo, IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&e, &fall_cfg, lo + MBIT, IMTCP_EDGE_NONE, 0);
	return e.estimate_bps;
}

/*
 * Where the recent results scatter more than a quarter of the estimate
 * (an idle path's media sender: 12 to 98 Mbit/s for A = 28.7, traced),
 * two low ones are a fall only if they lie below it by more than the
 * spread too: 20 and 21 are what the scatter gave before (the median,
 * 20 then 21, and the EWMA half way each time), 10 and 11 are new.
 */
TEST(a_fall_must_exceed_the_spread)
{
	EXPECT_EQ(27218750ULL, fall_after_scatter(20 * MBIT));
	EXPECT_EQ(10500000ULL, fall_after_scatter(10 * MBIT));
}

/*
 * Whether a result lay off the estimate it found (e.off): more than a
 * quarter of it away, on either side, and more than the recent results'
 * spread. A first result finds no estimate.
 */
TEST(a_result_off_the_estimate_is_marked)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 200 * MBIT };
	u32 i;

	imtcp_est_update(&e, &fall_cfg, 50 * MBIT, IMTCP_EDGE_NONE, 50);
	EXPECT_EQ(0, e.off);
	for (i = 0; i < 5; i++)
		imtcp_est_update(&e, &fall_cfg, 50 * MBIT, IMTCP_EDGE_NONE, 50);
	imtcp_est_update(&e, &fall_cfg, 70 * MBIT, IMTCP_EDGE_HIGH, 0);
	EXPECT_EQ(1, e.off);			/* 20 above 50 */
	imtcp_est_update(&e, &fall_cfg, 60 * MBIT, IMTCP_EDGE_NONE, 50);
	EXPECT_EQ(0, e.off);			/* 10: within a quarter */
	imtcp_est_update(&e, &fall_cfg, 30 * MBIT, IMTCP_EDGE_NONE, 50);
	EXPECT_EQ(1, e.off);			/* 20 below */
	/* after results that alternate 20 and 60 (spread 20): 30 below the
	 * estimate of 46.9 is within the spread, 10 is not
	 */
	for (i = 0; i < 8; i++)
		imtcp_est_update(&e, &fall_cfg, (i % 2 ? 60 : 20) * MBIT,
				 IMTCP_EDGE_NONE, 0);
	imtcp_est_update(&e, &fall_cfg, 30 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(0, e.off);
	imtcp_est_update(&e, &fall_cfg, 10 * MBIT, IMTCP_EDGE_NONE, 0);
	EXPECT_EQ(1, e.off);
}

/*
 * lift_off: a figure shown above the estimate counts as off it as a
 * result would (more than a quarter and more than the spread); one
 * below it, one within the distance, or with lift_off unset, does not.
 */
TEST(a_figure_lifted_off_the_estimate_is_a_change)
{
	struct imtcp_est_cfg lift_cfg = fall_cfg;
	struct imtcp_est e = { .lo_bps = 1 * MBIT, .hi_bps = 20 * MBIT };
	u32 i;

	lift_cfg.lift_off = 1;
	for (i = 0; i < 6; i++)
		imtcp_est_update(&e, &lift_cfg, 4400000, IMTCP_EDGE_NONE, 50);
	EXPECT_EQ(4400000ULL, e.estimate_bps);
	EXPECT_TRUE(imtcp_est_shown_off(&e, &lift_cfg, 7600000));
	EXPECT_FALSE(imtcp_est_shown_off(&e, &lift_cfg, 5400000));
	EXPECT_FALSE(imtcp_est_shown_off(&e, &lift_cfg, 2000000));
	EXPECT_FALSE(imtcp_est_shown_off(&e, &fall_cfg, 7600000));
	/* results alternating 2 and 8 (spread, the mean deviation, 3;
	 * a quarter of the estimate less): 2.5 above is within it
	 */
	for (i = 0; i < 8; i++)
		imtcp_est_update(&e, &lift_cfg, i % 2 ? 8000000 : 2000000,
				 IMTCP_EDGE_NONE, 0);
	EXPECT_TRUE(e.estimate_bps / 4 < 2500000);
	EXPECT_FALSE(imtcp_est_shown_off(&e, &lift_cfg,
					 e.estimate_bps + 2500000));
	EXPECT_TRUE(imtcp_est_shown_off(&e, &lift_cfg,
					e.estimate_bps + 3500000));
}

/*
 * Random stream pairs over the whole range the module allows (segments
 * of 536 B to 64 KB, streams of 10 us to 4 s, delays to the cap, rates
 * from 100 kbit/s to 1 Tbit/s, departures across the u32 wrap) through
 * both fits (the Lindley fit with and without a bucket) and the standard
 * error: no arithmetic fault (the unit tests
 * run under UBSan without recovery, so a signed overflow fails the test)
 * and the standard error within its range.
 */
TEST(fits_survive_random_extreme_streams)
{
	static const u32 segs[] = { 536, 1448, 8948, 65535 };
	struct imtcp_bucket bucket = { 0 };
	struct imtcp_stream st[2];
	u32 n, i, j, rse, fluid = 0;
	u64 cap;
	enum imtcp_edge edge;
	u64 raw;

	srand(1);	/* the same cases every run */
	for (n = 0; n < 20000; n++) {
		/* every fourth: fast streams over long spans, the largest sums */
		u32 fast = n % 4 == 0, tx = (u32)rand() * 2u;
		u32 span = 10u << (fast ? 14 + rand() % 5 : rand() % 19);
		s32 rise = rand() % 70000, d0 = 41000 + rand() % 100000;

		for (i = 0; i < 2; i++) {
			st[i].lo_bps = IMTCP_RATE_MIN <<
				       (fast ? 20 + rand() % 4 : rand() % 24);
			st[i].hi_bps = st[i].lo_bps + (st[i].lo_bps >> (rand() % 4));
			st[i].seg_bytes = segs[rand() % 4];
			st[i].nsamples = IMTCP_N_MAX;
			st[i].outcome = rand() % 2 ? IMTCP_OUT_RISE : IMTCP_OUT_FLAT;
			for (j = 0; j < IMTCP_N_MAX; j++) {
				u32 g = IMTCP_N_MAX - 1 - j;

				st[i].s[j].seg = j;
				st[i].s[j].tx_us = tx + span -
						   span / 225 * g * g;
				st[i].s[j].delay_us = d0 + rise / 225 * j * j +
						      rand() % 1000;
			}
		}
		raw = imtcp_combine(st, 2, &cfg, 40000, n % 2 ? &bucket : NULL,
				    &edge, &rse, &cap);
		EXPECT_LE(rse, IMTCP_RSE_MAX);
		EXPECT_LE(edge, IMTCP_EDGE_HIGH);
		EXPECT_TRUE(raw || !rse);	/* no standard error of nothing */
		/* no capacity without a result inside the range */
		EXPECT_TRUE(!cap || (raw && edge == IMTCP_EDGE_NONE));
		fluid += rse > 0;
	}
	/* the standard error's path itself was taken (439 times) */
	TH_LOG("%u of 20000 with a standard error", fluid);
	EXPECT_GT(fluid, 200);
}

/* Only the first result's lower edge is dropped, and only once. */
TEST(a_later_low_edge_is_taken)
{
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 50 * MBIT };

	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 30 * MBIT, IMTCP_EDGE_NONE, 0));
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 15 * MBIT, IMTCP_EDGE_LOW, 0));
	EXPECT_EQ(15 * MBIT, e.estimate_bps);	/* replaced, not averaged */
	EXPECT_EQ(2, e.count);
	e = (struct imtcp_est){ .lo_bps = 10 * MBIT, .hi_bps = 50 * MBIT };
	EXPECT_FALSE(imtcp_est_update(&e, &cfg, 10 * MBIT, IMTCP_EDGE_LOW, 0));
	EXPECT_TRUE(imtcp_est_update(&e, &cfg, 10 * MBIT, IMTCP_EDGE_LOW, 0));
	EXPECT_EQ(10 * MBIT, e.estimate_bps);
}

TEST(bounds_hold_the_range)
{
	struct imtcp_est e = { .lo_bps = 2 * MBIT, .hi_bps = 10 * MBIT };

	imtcp_est_bound(&e, 20 * MBIT, 0);
	EXPECT_EQ(20 * MBIT, e.lo_bps);
	EXPECT_EQ(24 * MBIT, e.hi_bps);
	imtcp_est_bound(&e, 5 * MBIT, 0);	/* already above */
	EXPECT_EQ(20 * MBIT, e.lo_bps);
	e.hi_bps = 80 * MBIT;
	imtcp_est_bound(&e, 30 * MBIT, 0);
	EXPECT_EQ(80 * MBIT, e.hi_bps);
	e.lo_bps = 500 * MBIT;
	e.hi_bps = 2000 * MBIT;
	imtcp_est_bound(&e, 30 * MBIT, 400 * MBIT);
	EXPECT_EQ(200 * MBIT, e.lo_bps);
	EXPECT_EQ(400 * MBIT, e.hi_bps);
}

TEST(range_floor)
{
	/* delivery 3/4, window 1/2 where the window limits the sender */
	EXPECT_EQ(15 * MBIT, imtcp_range_floor(20 * MBIT, 10 * MBIT, 0, true));
	EXPECT_EQ(20 * MBIT, imtcp_range_floor(4 * MBIT, 40 * MBIT, 0, true));
	EXPECT_EQ(0, imtcp_range_floor(0, 0, 0, true));
}

/* an application-limited sender: its own rate, not its window's */
TEST(range_floor_of_an_application_limited_sender)
{
	EXPECT_EQ(5 * MBIT,
		  imtcp_range_floor(0, 48 * MBIT, 10 * MBIT, false));
	EXPECT_EQ(15 * MBIT,
		  imtcp_range_floor(20 * MBIT, 48 * MBIT, 10 * MBIT, false));
	EXPECT_EQ(24 * MBIT,
		  imtcp_range_floor(0, 48 * MBIT, 10 * MBIT, true));
}

/*
 * The first range: from half the hint to 16 times it where the window
 * limits the sender, to 4 times it for an application-limited one.
 */
TEST(first_range_of_an_application_limited_sender)
{
	struct imtcp_est e = { 0 };

	imtcp_first_range(&e, 10 * MBIT, false);
	EXPECT_EQ(5 * MBIT, e.lo_bps);
	EXPECT_EQ(160 * MBIT, e.hi_bps);
	imtcp_first_range(&e, 10 * MBIT, true);
	EXPECT_EQ(5 * MBIT, e.lo_bps);
	EXPECT_EQ(40 * MBIT, e.hi_bps);
}

/* From a slow-start hint far below A, the first estimates find A. */
static void converge(struct __test_metadata *_metadata, double a, int poisson,
		     int delayed, double noise, double tol, int by)
{
	struct sim s = path(a);
	struct imtcp_stream st[IMTCP_K_MAX];
	struct imtcp_est e = { 0 };
	int i;

	s.poisson = poisson;
	s.every_second = delayed;
	s.noise_us = noise;
	imtcp_first_range(&e, 3 * MBIT, false);
	for (i = 0; i < by; i++)
		sim_measure(&s, &e, &cfg, st, i * 40000.0);
	EXPECT_LT(err(e.estimate_bps, a), tol) {
		TH_LOG("A %.0f: estimate %.1f after %d, range %.1f-%.1f",
		       a, e.estimate_bps / 1e6, by, e.lo_bps / 1e6, e.hi_bps / 1e6);
	}
}

TEST(first_estimates_find_a_cbr)
{
	converge(_metadata, 60, 0, 1, 20, 0.10, 6);
	converge(_metadata, 20, 0, 1, 20, 0.10, 6);
	converge(_metadata, 85, 0, 1, 20, 0.10, 6);
}

/*
 * The capacity (imtcp_cap.c): nothing before three measurements gave
 * one, then the median of the latest eight; a measurement without one
 * changes nothing; a new capacity takes over once it fills half the
 * window.
 */
TEST(capacity_is_a_median_of_the_latest)
{
	static const u64 first[] = { 31, 0, 25, 29, 1000, 28, 30 };
	struct imtcp_cap cap = { 0 };
	u32 i;

	imtcp_cap_add(&cap, first[0] * MBIT);
	imtcp_cap_add(&cap, first[1] * MBIT);
	EXPECT_EQ(0, cap.median_bps);
	imtcp_cap_add(&cap, first[2] * MBIT);
	EXPECT_EQ(0, cap.median_bps);	/* two so far */
	imtcp_cap_add(&cap, first[3] * MBIT);
	EXPECT_EQ(29 * MBIT, cap.median_bps);
	for (i = 4; i < ARRAY_SIZE(first); i++)
		imtcp_cap_add(&cap, first[i] * MBIT);
	EXPECT_EQ(6, cap.n);
	EXPECT_EQ(30 * MBIT, cap.median_bps);	/* the outlier is one rank */
	for (i = 0; i < 4; i++)
		imtcp_cap_add(&cap, 10 * MBIT);
	EXPECT_EQ(IMTCP_CAP_HIST, cap.n);
	EXPECT_EQ(28 * MBIT, cap.median_bps);	/* 4 of 8: not yet */
	imtcp_cap_add(&cap, 10 * MBIT);
	EXPECT_EQ(10 * MBIT, cap.median_bps);
}

/*
 * On the model path (C = 100 Mbit/s, CBR cross traffic, delayed ACKs,
 * +-20 us of noise) the capacity comes with the first estimates, and
 * lies within 10 % of C at every A.
 */
TEST(capacity_alongside_a)
{
	static const double a_mbit[] = { 20, 40, 60, 85 };
	u32 j;

	for (j = 0; j < ARRAY_SIZE(a_mbit); j++) {
		struct sim s = path(a_mbit[j]);
		struct imtcp_stream st[IMTCP_K_MAX];
		struct imtcp_est e = { 0 };
		int i;

		s.every_second = 1;
		s.noise_us = 20;
		imtcp_first_range(&e, 3 * MBIT, false);
		for (i = 0; i < 12; i++)
			sim_measure(&s, &e, &cfg, st, i * 40000.0);
		TH_LOG("A %.0f: capacity %.1f Mbit/s (%u of 12 measurements gave one), estimate %.1f",
		       a_mbit[j], e.cap.median_bps / 1e6, e.cap.n,
		       e.estimate_bps / 1e6);
		EXPECT_LT(err(e.cap.median_bps, 100), 0.1);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * Median |result - A| / A of 60 measurements (after 10 to settle) on a
 * path shaped by a token bucket of @bucket_segs segments, fluid cross
 * traffic leaving A = 40 of 100 Mbit/s, +-100 us of ACK noise; each
 * measurement finds the bucket full (the link idled 40 ms). @segs: the
 * bucket the estimator learnt.
 */
static double bucket_err(u32 bucket_segs, int fit_no_bucket, u32 *segs)
{
	struct imtcp_stream st[IMTCP_K_MAX];
	struct sim s = path(40);
	struct imtcp_est e = { 0 };
	double res[60];
	u32 i, nr = 0;

	s.bucket_us = bucket_segs * 1448 * 8 / s.c_bps * 1e6;
	s.fit_no_bucket = fit_no_bucket;
	s.every_second = 1;
	s.noise_us = 100;
	imtcp_first_range(&e, 3 * MBIT, false);
	for (i = 0; i < 70; i++) {
		u64 r = sim_measure(&s, &e, &cfg, st, i * 40000.0);

		if (i >= 10 && r)
			res[nr++] = err(r, 40);
	}
	*segs = e.bucket.segs;
	if (!nr)
		return 1;
	qsort(res, nr, sizeof(res[0]), cmp_double);
	return res[nr / 2];
}

/*
 * A media sender's frame of more than one stream (10 Mbit/s in frames of
 * 34 segments: two streams of 16) leaves them back to back, the second
 * on the first one's queue, with the bucket's tokens spent: the fit
 * starts the second where the first left the queue. Path as the
 * accuracy benchmark's S4 at A = 50 % of C (C = 30, a bucket of four
 * segments that each frame finds full, delayed ACKs, +-100 us of
 * noise). Started with a full bucket instead, the second stream's model
 * stays flat for the bucket's worth where the delays rise, and the
 * results read high: median error 0.74 A here (0.12 A with the queue
 * carried), 20.3 Mbit/s for 13.9 in the VM.
 */
TEST(back_to_back_streams_meet_the_queue_before_them)
{
	struct imtcp_est_cfg c = { .n = 16, .k = 2, .noise_us = 500, .gain_shift = 1 };
	struct sim s = { .c_bps = 30e6, .x_bps = 15e6, .base_us = 20000, .seed = 7,
			 .every_second = 1, .noise_us = 100, .back_to_back = 1 };
	struct imtcp_stream st[IMTCP_K_MAX];
	struct imtcp_est e = { 0 };
	double res[60];
	u32 i, nr = 0;

	s.bucket_us = 4 * 1448 * 8 / s.c_bps * 1e6;
	imtcp_first_range(&e, 10 * MBIT, true);
	for (i = 0; i < 70; i++) {
		u64 r = sim_measure(&s, &e, &c, st, i * 40000.0);

		if (i >= 10 && r)
			res[nr++] = err(r, 15);
	}
	ASSERT_GT(nr, 30);
	qsort(res, nr, sizeof(res[0]), cmp_double);
	TH_LOG("streams back to back: median error %.3f A, p90 %.3f A (%u results)",
	       res[nr / 2], res[nr * 9 / 10], nr);
	EXPECT_LT(res[nr / 2], 0.25);
}

/*
 * Behind a token bucket a stream's first segments pass unqueued: the
 * estimator learns the bucket, and its results lie nearer A than those
 * of the fit without one; on a plain FIFO it learns none.
 */
TEST(a_token_bucket_is_learnt)
{
	double with, without;
	u32 segs, none;

	with = bucket_err(4, 0, &segs);
	without = bucket_err(4, 1, &none);
	TH_LOG("bucket of 4 segments: learnt %u, median error %.3f A (without: %.3f A)",
	       segs, with, without);
	EXPECT_GE(segs, 1);
	EXPECT_LT(with, without);
	with = bucket_err(0, 0, &segs);
	without = bucket_err(0, 1, &none);
	TH_LOG("no bucket: learnt %u, median error %.3f A (without: %.3f A)",
	       segs, with, without);
	EXPECT_EQ(0, segs);
}

TEST(noise_on_ack_times)
{
	converge(_metadata, 60, 0, 1, 100, 0.15, 20);
	converge(_metadata, 30, 0, 0, 100, 0.15, 20);
}

/*
 * Median of the results of 200 measurements (after 20 to settle) for
 * five seeds, Poisson cross traffic leaving A, each measurement starting
 * on a backlog of at least @standing_us (what a bulk sender's own window
 * keeps at the bottleneck between measurements).
 */
static double poisson_median(struct __test_metadata *_metadata, double a,
			     double standing_us)
{
	struct imtcp_stream st[IMTCP_K_MAX];
	static double raw[1000];
	u32 i, nr = 0, seed, segs[6] = { 0 };

	for (seed = 1; seed <= 5; seed++) {
		struct sim s = path(a);
		struct imtcp_est e = { 0 };

		s.poisson = 1;
		s.every_second = 1;
		s.noise_us = 50;
		s.standing_us = standing_us;
		s.seed = seed;
		imtcp_first_range(&e, 3 * MBIT, false);
		for (i = 0; i < 220; i++) {
			u64 r = sim_measure(&s, &e, &cfg, st, i * 40000.0);

			if (i >= 20 && r)
				raw[nr++] = r / 1e6;
		}
		segs[seed] = e.bucket.segs;
	}
	EXPECT_GT(nr, 750);
	if (!nr)
		return 0;
	qsort(raw, nr, sizeof(raw[0]), cmp_double);
	TH_LOG("A %.0f, backlog %.0f us: median of %u results %.1f (buckets learnt %u %u %u %u %u)",
	       a, standing_us, nr, raw[nr / 2], segs[1], segs[2], segs[3],
	       segs[4], segs[5]);
	return raw[nr / 2];
}

/*
 * Poisson cross traffic on a standing queue (10 ms, as a Reno flow keeps
 * in front of its own measurements): one measurement sees A over a few
 * ms in which 1500 B cross packets arrive in bursts, so single results
 * scatter widely; what must hold is that they scatter around A: the
 * median within 15 % (measured 35.9, 60.6 and 81.4 for A = 40, 60, 80;
 * the Lindley fit alone read 15.6, 36.2 and 68.1 here).
 */
TEST(poisson_on_a_standing_queue_centres_on_a)
{
	static const double as[] = { 40, 60, 80 };
	u32 t;

	for (t = 0; t < 3; t++)
		EXPECT_LT(fabs(poisson_median(_metadata, as[t], 10000) - as[t]) /
			  as[t], 0.15);
}

/*
 * Poisson cross traffic on a link that empties between bursts: the
 * fits read A low here (medians 26.9, 56.3 and 81.2 for A = 40, 60, 80;
 * a known weakness, Documentation/benchmarks.rst). Until that is
 * mended this only guards against a collapse: the median stays above a
 * quarter of A (a range walked down to its floor reads 0.1).
 */
TEST(poisson_on_an_idle_link_does_not_collapse)
{
	static const double as[] = { 40, 60, 80 };
	u32 t;

	for (t = 0; t < 3; t++)
		EXPECT_GT(poisson_median(_metadata, as[t], 0), as[t] / 4);
}

/*
 * Single measurements over the range [A / 2, 3 A] on a standing queue
 * (20 ms), CBR cross traffic, ACK times +- 500 us as in the VM, at the
 * module's default noise_us: the median of 200 results (fresh jitter
 * each) within 10 % of A. The Lindley fit alone, which starts each
 * stream at its lowest delay and so reads jitter as a rise, sat at
 * 0.6-0.8 A on such data (tests/unit/traces).
 */
TEST(standing_queue_with_ack_jitter)
{
	static const struct imtcp_est_cfg vm = {	/* the module's defaults */
		.n = 10, .k = 4, .noise_us = 500, .gain_shift = 1,
	};
	static const double as[] = { 25, 40, 70 };
	struct imtcp_stream st[IMTCP_K_MAX];
	static double raw[200];
	u32 t, i, nr;

	for (t = 0; t < 3; t++) {
		struct sim s = path(as[t]);

		s.every_second = 1;
		s.noise_us = 500;
		s.standing_us = 20000;
		s.min_rtt_us = s.base_us;
		for (i = 0, nr = 0; i < 200; i++) {
			struct imtcp_est e = {
				.lo_bps = as[t] * MBIT / 2, .hi_bps = as[t] * MBIT * 3,
			};
			u64 r = sim_measure(&s, &e, &vm, st, i * 100000.0);

			if (r)
				raw[nr++] = r / 1e6;
		}
		ASSERT_GT(nr, 150);
		qsort(raw, nr, sizeof(raw[0]), cmp_double);
		EXPECT_LT(fabs(raw[nr / 2] - as[t]) / as[t], 0.10);
		TH_LOG("A %.0f: median of %u results %.1f", as[t], nr,
		       raw[nr / 2]);
	}
}

TEST(compressed_acks_are_not_a_rise)
{
	struct sim s = path(60);
	struct imtcp_stream st = { .lo_bps = 20 * MBIT, .hi_bps = 40 * MBIT };

	s.every_second = 1;
	s.compress = 1;
	sim_stream(&s, &st, 10, 1448, 1000);
	imtcp_analyse_stream(&st, &cfg, 0);
	EXPECT_NE(IMTCP_OUT_RISE, st.outcome);
}

/* A falls from 60 to 20 and rises to 60 again: within 10 % after eight
 * measurements (one per 1-2 RTT in a bulk transfer). */
TEST(steps_of_a_are_followed)
{
	struct sim s = path(60);
	struct imtcp_stream st[IMTCP_K_MAX];
	struct imtcp_est e = { 0 };
	int i;

	s.every_second = 1;
	s.noise_us = 30;
	imtcp_first_range(&e, 3 * MBIT, false);
	for (i = 0; i < 10; i++)
		sim_measure(&s, &e, &cfg, st, i * 40000.0);
	s.x_bps = 80e6;
	for (i = 0; i < 8; i++)
		sim_measure(&s, &e, &cfg, st, (10 + i) * 40000.0);
	EXPECT_LT(err(e.estimate_bps, 20), 0.10) {
		TH_LOG("after the fall: %.1f", e.estimate_bps / 1e6);
	}
	s.x_bps = 40e6;
	for (i = 0; i < 8; i++)
		sim_measure(&s, &e, &cfg, st, (18 + i) * 40000.0);
	EXPECT_LT(err(e.estimate_bps, 60), 0.10) {
		TH_LOG("after the rise: %.1f", e.estimate_bps / 1e6);
	}
}

/*
 * Beside a carried stream the new one probes the half of the range the
 * carried one did not: below a stream of the upper half, above one of
 * the lower. Only an analysed stream with three samples is carried.
 */
TEST(carry_part_probes_where_the_carried_stream_did_not)
{
	struct imtcp_est_cfg c = { .n = 10, .k = 2, .noise_us = 500 };
	struct imtcp_est e = { .lo_bps = 10 * MBIT, .hi_bps = 40 * MBIT };
	struct imtcp_stream up, low;

	imtcp_plan_stream(&e, &c, 1, &up);
	imtcp_plan_stream(&e, &c, 0, &low);
	EXPECT_EQ(0, imtcp_carry_part(&c, &up));
	EXPECT_EQ(1, imtcp_carry_part(&c, &low));
	/* the range moved up since: the old upper stream is still upper */
	e.lo_bps = 30 * MBIT;
	e.hi_bps = 90 * MBIT;
	EXPECT_EQ(0, imtcp_carry_part(&c, &up));

	up.outcome = IMTCP_OUT_RISE;
	up.nsamples = 3;
	EXPECT_TRUE(imtcp_stream_carries(&up));
	up.outcome = IMTCP_OUT_FLAT;
	EXPECT_TRUE(imtcp_stream_carries(&up));
	up.nsamples = 2;
	EXPECT_FALSE(imtcp_stream_carries(&up));
	up.nsamples = 3;
	up.outcome = IMTCP_OUT_UNCLEAR;
	EXPECT_FALSE(imtcp_stream_carries(&up));
}

/*
 * A carried stream of the upper half, then the new one of the lower
 * half: the fit takes the range from both, whatever their order, and
 * places A as with the streams in rate order; neither rising, A is at
 * least the top of the faster one (not of the last).
 */
TEST(combine_takes_a_carried_stream_above_the_next)
{
	struct imtcp_est_cfg c = { .n = 10, .k = 2, .noise_us = 150 };
	struct imtcp_est e = { .lo_bps = 30 * MBIT, .hi_bps = 120 * MBIT };
	struct imtcp_stream st[2];
	struct sim s = path(60);
	enum imtcp_edge edge;
	u32 rse;
	u64 cap, a;

	s.every_second = 1;
	imtcp_plan_stream(&e, &c, 1, &st[0]);
	sim_stream(&s, &st[0], c.n, 1448, 1000);
	imtcp_plan_stream(&e, &c, 0, &st[1]);
	sim_stream(&s, &st[1], c.n, 1448, 6000);
	imtcp_analyse_stream(&st[0], &c, 0);
	imtcp_analyse_stream(&st[1], &c, 0);
	ASSERT_EQ(120 * MBIT, st[imtcp_fastest_stream(st, 2)].hi_bps);
	a = imtcp_combine(st, 2, &c, 0, NULL, &edge, &rse, &cap);
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	EXPECT_LT(err(a, 60), 0.05) TH_LOG("fit %.1f", a / 1e6);

	st[0].outcome = IMTCP_OUT_FLAT;
	st[1].outcome = IMTCP_OUT_FLAT;
	st[0].seg_bytes = 0;			/* planned rates only */
	st[1].seg_bytes = 0;
	EXPECT_EQ(120 * MBIT, imtcp_combine(st, 2, &c, 0, NULL, &edge, &rse,
					    &cap));
	EXPECT_EQ(IMTCP_EDGE_HIGH, edge);
}

TEST_HARNESS_MAIN
