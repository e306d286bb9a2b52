// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the served-rate bound (kmod/core/imtcp_served.c): the
 * rate a rising stream was served at, from its last lowest sample on,
 * and a measurement's result held at 9/8 of the highest such rate and
 * at the median of the served rates the connection remembers.
 */
#include "kselftest_harness.h"
#include "core/imtcp_est.h"

#define MBIT	1000000ULL
#define MSS	1448
#define BASE	40000		/* delay of an empty queue, us */

/*
 * A stream of @n samples, one per second segment (a receiver that ACKs
 * every other one), sent at @send_mbit: from sample @onset on, the
 * bottleneck serves it at @served_mbit, so each ACK comes the service
 * time of two segments after the one before, and the delays grow by that
 * less the send gap. Before @onset the delays fall by @fall_us a sample
 * (a queue draining).
 */
static void stream(struct imtcp_stream *st, u32 n, double send_mbit,
		   double served_mbit, u32 onset, s32 fall_us)
{
	double gap_us = 2.0 * MSS * 8 / send_mbit;
	double svc_us = 2.0 * MSS * 8 / served_mbit;
	double d = BASE + (double)onset * fall_us;
	u32 i;

	memset(st, 0, sizeof(*st));
	st->seg_bytes = MSS;
	st->outcome = IMTCP_OUT_RISE;
	st->nsamples = n;
	for (i = 0; i < n; i++) {
		st->s[i].seg = 2 * i + 1;
		st->s[i].tx_us = 1000000 + (u32)(i * gap_us);
		if (i < onset)
			d -= fall_us;
		else if (i > onset)
			d += svc_us - gap_us;
		st->s[i].delay_us = (s32)d;
	}
}

static void expect_near(struct __test_metadata *_metadata, u64 bps,
			double mbit)
{
	EXPECT_GE(bps, (u64)(mbit * MBIT * 0.99));
	EXPECT_LE(bps, (u64)(mbit * MBIT * 1.01));
}

TEST(rising_stream_served_at_the_bottleneck_rate)
{
	struct imtcp_stream st;

	stream(&st, 8, 60, 30, 0, 0);
	expect_near(_metadata, imtcp_served_bps(&st), 30);
}

/* the draining part before the lowest sample does not count */
TEST(served_from_the_last_lowest_sample_on)
{
	struct imtcp_stream st;

	stream(&st, 8, 60, 25, 3, 200);
	expect_near(_metadata, imtcp_served_bps(&st), 25);
}

TEST(no_served_rate_without_a_rise)
{
	struct imtcp_stream st;

	stream(&st, 8, 60, 30, 0, 0);
	st.outcome = IMTCP_OUT_FLAT;
	EXPECT_EQ(0, imtcp_served_bps(&st));
	st.outcome = IMTCP_OUT_UNCLEAR;
	EXPECT_EQ(0, imtcp_served_bps(&st));
	st.outcome = IMTCP_OUT_RISE;
	st.seg_bytes = 0;
	EXPECT_EQ(0, imtcp_served_bps(&st));
}

/* two samples after the lowest are too few to time a service */
TEST(no_served_rate_from_a_late_lowest_sample)
{
	struct imtcp_stream st;

	stream(&st, 8, 60, 30, 6, 200);
	EXPECT_EQ(0, imtcp_served_bps(&st));
	stream(&st, 8, 60, 30, 5, 200);
	expect_near(_metadata, imtcp_served_bps(&st), 30);
}

/* a last ACK timed no later than the first (clock trouble): no rate */
TEST(no_served_rate_over_no_time)
{
	struct imtcp_stream st;
	u32 i;

	stream(&st, 6, 60, 30, 0, 0);
	for (i = 1; i < st.nsamples; i++) {
		st.s[i].tx_us = st.s[0].tx_us - 10;
		st.s[i].delay_us = BASE + 5 + i;
	}
	EXPECT_EQ(0, imtcp_served_bps(&st));
}

/* a flat stream read A above C; the next one rose at C = 30 */
TEST(result_above_the_served_rate_is_held_at_nine_eighths)
{
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_HIGH;
	u32 rse = 120;
	u64 r;

	stream(&st[0], 8, 40, 40, 0, 0);
	st[0].outcome = IMTCP_OUT_FLAT;
	stream(&st[1], 8, 70, 30, 0, 0);
	r = imtcp_served_cap(st, 2, 0, 50 * MBIT, NULL, &edge, &rse);
	expect_near(_metadata, r, 30 * 9.0 / 8);
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	EXPECT_EQ(0, rse);
}

/* the highest served rate of the rising streams makes the bound */
TEST(highest_served_rate_bounds)
{
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 rse = 0;

	stream(&st[0], 8, 50, 24, 0, 0);
	stream(&st[1], 8, 70, 32, 0, 0);
	expect_near(_metadata,
		    imtcp_served_cap(st, 2, 0, 60 * MBIT, NULL, &edge, &rse),
		    32 * 9.0 / 8);
}

TEST(result_within_the_bound_is_kept)
{
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_LOW;
	u32 rse = 80;

	stream(&st[0], 8, 20, 20, 0, 0);
	st[0].outcome = IMTCP_OUT_FLAT;
	stream(&st[1], 8, 70, 30, 0, 0);
	EXPECT_EQ(33 * MBIT, imtcp_served_cap(st, 2, 0, 33 * MBIT, NULL, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_LOW, edge);
	EXPECT_EQ(80, rse);
}

TEST(no_rising_stream_no_bound)
{
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_HIGH;
	u32 rse = 0;

	stream(&st[0], 8, 20, 20, 0, 0);
	stream(&st[1], 8, 40, 40, 0, 0);
	st[0].outcome = IMTCP_OUT_FLAT;
	st[1].outcome = IMTCP_OUT_FLAT;
	EXPECT_EQ(90 * MBIT, imtcp_served_cap(st, 2, 0, 90 * MBIT, NULL, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_HIGH, edge);
}

/*
 * Served rates scatter around C on an idle link (ACK timing): the
 * highest of one measurement's, plus 1/8, lies well above C, the median
 * of the rates remembered does not.
 */
TEST(remembered_median_bounds_a_noisy_measurement)
{
	static const double served_mbit[] = { 27, 33, 29, 31, 26, 34, 30, 30 };
	struct imtcp_served mem = { 0 };
	struct imtcp_stream st[2];
	enum imtcp_edge edge;
	u32 i, rse;
	u64 r = 0;

	for (i = 0; i < 8; i += 2) {
		stream(&st[0], 8, 60, served_mbit[i], 0, 0);
		stream(&st[1], 8, 70, served_mbit[i + 1], 0, 0);
		edge = IMTCP_EDGE_NONE;
		r = imtcp_served_cap(st, 2, 0, 45 * MBIT, &mem, &edge, &rse);
	}
	EXPECT_EQ(8, mem.n);
	/* this measurement alone would hold at 9/8 of 30 */
	expect_near(_metadata, r, 30);
	/* the oldest is overwritten, the count stays at the memory's size */
	for (i = 0; i < 2 * IMTCP_SERVED_HIST; i++) {
		stream(&st[0], 8, 60, 28, 0, 0);
		st[1] = st[0];
		imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge, &rse);
	}
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	expect_near(_metadata, imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge,
						&rse), 28);
}

/* the memory only lowers the bound: a measurement's own cap still holds */
TEST(remembered_median_never_raises_the_bound)
{
	struct imtcp_served mem = { 0 };
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 i, rse = 0;

	for (i = 0; i < 4; i++) {
		stream(&st[0], 8, 60, 30, 0, 0);
		imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge, &rse);
	}
	stream(&st[0], 8, 60, 20, 0, 0);
	expect_near(_metadata, imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge,
						&rse), 20 * 9.0 / 8);
}

/*
 * A rose: two streams of one measurement both served well above what is
 * remembered. The old rates are forgotten, the result is not held at
 * them; one such stream alone is not enough.
 */
TEST(a_rise_of_every_rising_stream_forgets_the_old_rates)
{
	struct imtcp_served mem = { 0 };
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 i, rse = 0;
	u64 r;

	for (i = 0; i < IMTCP_SERVED_HIST; i++) {
		stream(&st[0], 8, 60, 15, 0, 0);
		imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge, &rse);
	}
	stream(&st[0], 8, 60, 28, 0, 0);
	stream(&st[1], 8, 60, 15, 0, 0);
	st[1].outcome = IMTCP_OUT_FLAT;
	expect_near(_metadata, imtcp_served_cap(st, 2, 0, 45 * MBIT, &mem, &edge,
						&rse), 15);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	stream(&st[0], 8, 60, 29, 0, 0);
	stream(&st[1], 8, 70, 30, 0, 0);
	r = imtcp_served_cap(st, 2, 0, 45 * MBIT, &mem, &edge, &rse);
	EXPECT_EQ(2, mem.n);
	expect_near(_metadata, r, 30);
	/* a result below the median is kept */
	EXPECT_EQ(25 * MBIT, imtcp_served_cap(st, 2, 0, 25 * MBIT, &mem, &edge,
					      &rse));
}

/* Two flat streams planned from @lo_mbit, to @mid_mbit and @hi_mbit. */
static void flat_pair(struct imtcp_stream *st, u32 lo_mbit, u32 mid_mbit,
		      u32 hi_mbit)
{
	memset(st, 0, 2 * sizeof(*st));
	st[0].outcome = IMTCP_OUT_FLAT;
	st[0].lo_bps = lo_mbit * MBIT;
	st[0].hi_bps = mid_mbit * MBIT;
	st[1].outcome = IMTCP_OUT_FLAT;
	st[1].lo_bps = mid_mbit * MBIT;
	st[1].hi_bps = hi_mbit * MBIT;
}

/*
 * A measurement whose streams all stayed flat up to above 9/8 of the
 * remembered rates' median (A lies above them) forgets them, unless its
 * fastest went beyond the path's capacity (a token bucket's burst);
 * not one that stayed within 9/8, nor one with a stream that rose.
 */
TEST(flat_streams_above_the_remembered_rates_forget_them)
{
	struct imtcp_served mem = { 0 };
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 i, rse = 0;

	flat_pair(st, 5, 8, 20);
	imtcp_served_outrun(&mem, st, 2, 0);		/* nothing to forget */
	EXPECT_EQ(0, mem.n);
	for (i = 0; i < IMTCP_SERVED_HIST; i++) {
		stream(&st[0], 8, 60, 10, 0, 0);
		imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge, &rse);
	}
	ASSERT_EQ(IMTCP_SERVED_HIST, mem.n);
	flat_pair(st, 5, 8, 11);			/* within 9/8 of 10 */
	imtcp_served_outrun(&mem, st, 2, 0);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	flat_pair(st, 5, 9, 13);
	st[0].outcome = IMTCP_OUT_UNCLEAR;		/* one did not stay flat */
	imtcp_served_outrun(&mem, st, 2, 0);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	flat_pair(st, 5, 9, 13);			/* beyond a capacity of 12 */
	imtcp_served_outrun(&mem, st, 2, 12 * MBIT);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	flat_pair(st, 9, 13, 5);			/* any order; within C */
	st[1].lo_bps = 3 * MBIT;
	imtcp_served_outrun(&mem, st, 2, 28 * MBIT);
	EXPECT_EQ(0, mem.n);
	/* then a single rising stream at the new level is not held down */
	stream(&st[0], 8, 60, 17, 0, 0);
	expect_near(_metadata, imtcp_served_cap(st, 1, 0, 16 * MBIT, &mem,
						&edge, &rse), 16);
}

/*
 * The rates remembered are as old as the results: after a pause longer
 * than stale_rtts RTTs (a media sender that stopped), a single rising
 * stream served faster than before is no longer held at the old rates;
 * within it, or with stale_rtts 0, it still is.
 */
TEST(rates_as_old_as_stale_results_are_forgotten)
{
	struct imtcp_est_cfg c = { .stale_rtts = 32 };
	struct imtcp_est e = { .count = 4, .last_us = 1000000 };
	struct imtcp_stream st[1];
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 i, rse = 0;

	for (i = 0; i < 8; i++) {
		stream(&st[0], 8, 60, 15, 0, 0);
		imtcp_served_cap(st, 1, 0, 45 * MBIT, &e.served, &edge, &rse);
	}
	stream(&st[0], 8, 60, 30, 0, 0);
	/* 31 RTTs of 40 ms later: still held at the old rates */
	imtcp_est_age_served(&e, &c, 1000000 + 31 * 40000, 40000);
	EXPECT_EQ(8, e.served.n);
	/* no known RTT, or no ageing (stale_rtts 0): kept as well */
	imtcp_est_age_served(&e, &c, 1000000 + 100 * 40000, 0);
	c.stale_rtts = 0;
	imtcp_est_age_served(&e, &c, 1000000 + 100 * 40000, 40000);
	EXPECT_EQ(8, e.served.n);
	expect_near(_metadata, imtcp_served_cap(st, 1, 0, 45 * MBIT, &e.served,
						&edge, &rse), 15);
	/* 33 RTTs after the last result: forgotten, the new stream bounds */
	c.stale_rtts = 32;
	imtcp_est_age_served(&e, &c, 1000000 + 33 * 40000, 40000);
	EXPECT_EQ(0, e.served.n);
	expect_near(_metadata, imtcp_served_cap(st, 1, 0, 45 * MBIT, &e.served,
						&edge, &rse), 30);
	/* a history already marked stale forgets them too */
	e.stale = 1;
	e.last_us = 1000000 + 33 * 40000;
	imtcp_est_age_served(&e, &c, e.last_us, 40000);
	EXPECT_EQ(0, e.served.n);
}

/*
 * A stream carried over into the next measurement (imtcp_cu_carry) was
 * remembered with the one before: it is not remembered twice. Its rate
 * still counts for the bound, and for the test of a rise.
 */
TEST(a_carried_stream_is_remembered_once)
{
	struct imtcp_served mem = { 0 };
	struct imtcp_stream st[2];
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 i, rse = 0;

	stream(&st[0], 8, 60, 30, 0, 0);
	stream(&st[1], 8, 70, 32, 0, 0);
	imtcp_served_cap(st, 2, 0, 45 * MBIT, &mem, &edge, &rse);
	EXPECT_EQ(2, mem.n);
	st[0] = st[1];
	stream(&st[1], 8, 60, 31, 0, 0);
	expect_near(_metadata, imtcp_served_cap(st, 2, 1, 45 * MBIT, &mem,
						&edge, &rse), 31);
	EXPECT_EQ(3, mem.n);

	/* A rose: the carried and the new stream both well above */
	for (i = 0; i < IMTCP_SERVED_HIST; i++) {
		stream(&st[0], 8, 60, 15, 0, 0);
		imtcp_served_cap(st, 1, 0, 45 * MBIT, &mem, &edge, &rse);
	}
	stream(&st[0], 8, 60, 28, 0, 0);
	stream(&st[1], 8, 70, 29, 0, 0);
	imtcp_served_cap(st, 2, 1, 45 * MBIT, &mem, &edge, &rse);
	EXPECT_EQ(1, mem.n);
}

/* @fit_bps held by the served rates of @k streams @st and by @mem. */
static u64 cap_of(struct imtcp_served *mem, const struct imtcp_stream *st,
		  u32 k, u32 known, u64 fit_bps)
{
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 rse = 0;

	return imtcp_served_cap(st, k, known, fit_bps, mem, &edge, &rse);
}

/* A memory of IMTCP_SERVED_HIST rates of @mbit, counting across. */
static void remember_across(struct imtcp_served *mem, double mbit)
{
	struct imtcp_stream st;
	u32 i;

	memset(mem, 0, sizeof(*mem));
	mem->across = 1;
	for (i = 0; i < IMTCP_SERVED_HIST; i++) {
		stream(&st, 8, 60, mbit, 0, 0);
		cap_of(mem, &st, 1, 0, 45 * MBIT);
	}
}

/*
 * Counted across measurements (the module's served_across): a rise
 * shows as one rising stream per measurement served well above the
 * rates remembered, the other stream flat. Two such in a row forget the
 * old rates; the first alone does not, and a measurement with no rising
 * stream between them does not break the run.
 */
TEST(two_faster_measurements_in_a_row_forget_the_old_rates)
{
	struct imtcp_served mem;
	struct imtcp_stream st[2];

	remember_across(&mem, 15);
	stream(&st[0], 8, 60, 15, 0, 0);
	st[0].outcome = IMTCP_OUT_FLAT;
	stream(&st[1], 8, 70, 24, 0, 0);
	expect_near(_metadata, cap_of(&mem, st, 2, 0, 45 * MBIT), 15);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	st[1].outcome = IMTCP_OUT_FLAT;		/* nothing rose: no news */
	EXPECT_EQ(40 * MBIT, cap_of(&mem, st, 2, 0, 40 * MBIT));
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	stream(&st[1], 8, 70, 22, 0, 0);
	expect_near(_metadata, cap_of(&mem, st, 2, 0, 45 * MBIT), 22);
	EXPECT_EQ(1, mem.n);
}

/* a stream served near what is remembered breaks the run */
TEST(a_stream_served_as_before_breaks_the_run)
{
	struct imtcp_served mem;
	struct imtcp_stream st[2];

	remember_across(&mem, 15);
	stream(&st[0], 8, 60, 24, 0, 0);
	cap_of(&mem, st, 1, 0, 45 * MBIT);
	stream(&st[0], 8, 60, 16, 0, 0);
	cap_of(&mem, st, 1, 0, 45 * MBIT);
	stream(&st[0], 8, 60, 24, 0, 0);
	expect_near(_metadata, cap_of(&mem, st, 1, 0, 45 * MBIT), 15);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
}

/*
 * A carried stream was counted with the measurement before: it does not
 * count again. Without counting across, a measurement's carried and new
 * stream both faster forget the rates
 * (a_carried_stream_is_remembered_once); across, the carried one counts
 * once, where it came first.
 */
TEST(a_carried_stream_counts_once_across)
{
	struct imtcp_served mem;
	struct imtcp_stream st[2];

	remember_across(&mem, 15);
	stream(&st[0], 8, 60, 15, 0, 0);
	stream(&st[1], 8, 70, 26, 0, 0);
	cap_of(&mem, st, 2, 0, 45 * MBIT);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	st[0] = st[1];
	stream(&st[1], 8, 60, 15, 0, 0);
	cap_of(&mem, st, 2, 1, 45 * MBIT);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);	/* 26 counted once, 15 broke */
	st[0] = st[1];
	stream(&st[1], 8, 70, 27, 0, 0);
	cap_of(&mem, st, 2, 1, 45 * MBIT);
	EXPECT_EQ(IMTCP_SERVED_HIST, mem.n);
	st[0] = st[1];
	stream(&st[1], 8, 70, 28, 0, 0);
	cap_of(&mem, st, 2, 1, 45 * MBIT);
	EXPECT_EQ(1, mem.n);
}

TEST_HARNESS_MAIN
