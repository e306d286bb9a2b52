// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the busy-link bound (kmod/core/imtcp_busy.c): which rate
 * samples count as taken on a busy link, how long the highest one lasts,
 * and what the bound does to a measurement's result.
 */
#include "kselftest_harness.h"
#include "core/imtcp_busy.h"

#define MBIT	1000000ULL
#define KBIT	1000ULL
#define MSS	8948
#define BASE	40000		/* minimum RTT, us */
#define EMPTY	(BASE + 2000)	/* an RTT at most this: no queue */
#define SRTT	60000

/* Segments of MSS bytes that make @mbit over @us. */
static u32 segs_for(u64 mbit, u32 us)
{
	return (u32)(mbit * MBIT * us / (8ULL * MSS * 1000000));
}

/*
 * A connection delivered at @mbit for @dur_us from @t, one ACK per ms
 * with RTT @rtt_us and a rate sample over the last srtt. Returns the end.
 */
static u64 deliver(struct imtcp_busy *b, u64 t, u32 dur_us, u64 mbit,
		   s64 rtt_us)
{
	u64 end = t + dur_us;

	for (; t < end; t += 1000) {
		imtcp_busy_ack(b, t, rtt_us, EMPTY, SRTT);
		imtcp_busy_rate(b, t, segs_for(mbit, SRTT), MSS, SRTT);
	}
	return end;
}

/* Rates within one segment per srtt below (segment rounding: 7 %). */
#define EXPECT_RATE(bps, mbit) do {					\
	EXPECT_GE((bps), (mbit) * MBIT * 93 / 100);			\
	EXPECT_LE((bps), (mbit) * MBIT);				\
} while (0)

TEST(nothing_before_a_busy_interval)
{
	struct imtcp_busy b;
	enum imtcp_edge edge = IMTCP_EDGE_HIGH;
	u32 rse = 50;

	imtcp_busy_init(&b, 0, 0);
	EXPECT_EQ(0, imtcp_busy_bps(&b));
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));
	EXPECT_EQ(90 * MBIT, imtcp_busy_bound(90 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(1 * MBIT, imtcp_busy_bound(1 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_HIGH, edge);
	EXPECT_EQ(50, rse);
	/* a sample over an interval longer than the connection's life */
	imtcp_busy_ack(&b, SRTT / 2, -1, EMPTY, SRTT);
	imtcp_busy_rate(&b, SRTT / 2, 10, MSS, SRTT);
	EXPECT_EQ(0, imtcp_busy_bps(&b));
}

TEST(a_standing_queue_gives_the_delivery_rate)
{
	struct imtcp_busy b;

	imtcp_busy_init(&b, 0, 0);
	deliver(&b, 0, 3 * SRTT, 20, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
}

TEST(an_empty_queue_says_nothing)
{
	struct imtcp_busy b;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, 3 * SRTT, 20, EMPTY);
	EXPECT_EQ(0, imtcp_busy_bps(&b));
	/* one ACK without queue: samples reaching back past it do not count */
	t = deliver(&b, t, 3 * SRTT, 20, BASE + 20000);
	imtcp_busy_ack(&b, t, BASE, EMPTY, SRTT);
	imtcp_busy_ack(&b, t + SRTT - 1000, -1, EMPTY, SRTT);
	imtcp_busy_rate(&b, t + SRTT - 1000, segs_for(90, SRTT), MSS, SRTT);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
	imtcp_busy_ack(&b, t + SRTT, -1, EMPTY, SRTT);
	imtcp_busy_rate(&b, t + SRTT, segs_for(90, SRTT), MSS, SRTT);
	EXPECT_RATE(imtcp_busy_bps(&b), 90);
}

TEST(acks_without_rtt_sample_do_not_end_busy)
{
	struct imtcp_busy b;

	imtcp_busy_init(&b, 0, 0);
	deliver(&b, 0, 3 * SRTT, 30, -1);
	EXPECT_RATE(imtcp_busy_bps(&b), 30);
}

TEST(the_maximum_follows_a_fall_within_two_windows)
{
	struct imtcp_busy b;
	u32 win = IMTCP_BUSY_WINDOW_RTTS * SRTT;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, 2 * win, 60, BASE + 10000);
	EXPECT_RATE(imtcp_busy_bps(&b), 60);
	t = deliver(&b, t, win / 2, 20, BASE + 30000);
	EXPECT_RATE(imtcp_busy_bps(&b), 60);		/* still in the window */
	deliver(&b, t, 2 * win, 20, BASE + 30000);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
}

/*
 * busy_window_rtts: windows of 2 srtt (the default) take a fall within
 * 2-4 srtt (here 3), where those of 4 still hold the old rate; a length
 * out of range is held at 1 or IMTCP_BUSY_WINDOW_MAX.
 */
TEST(a_shorter_window_follows_a_fall_sooner)
{
	struct imtcp_busy b, d;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	imtcp_busy_init(&d, 0, 0);
	EXPECT_EQ(IMTCP_BUSY_WINDOW_RTTS, b.window_rtts);
	EXPECT_EQ(2, b.window_rtts);		/* the default */
	imtcp_busy_set_window(&d, 4);		/* the default before */
	EXPECT_EQ(4, d.window_rtts);
	deliver(&d, 0, 8 * SRTT, 60, BASE + 10000);
	t = deliver(&b, 0, 8 * SRTT, 60, BASE + 10000);
	EXPECT_RATE(imtcp_busy_bps(&b), 60);
	deliver(&d, t, 3 * SRTT, 20, BASE + 30000);
	deliver(&b, t, 3 * SRTT, 20, BASE + 30000);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
	EXPECT_RATE(imtcp_busy_bps(&d), 60);
	imtcp_busy_set_window(&b, 0);
	EXPECT_EQ(1, b.window_rtts);
	imtcp_busy_set_window(&b, IMTCP_BUSY_WINDOW_MAX + 1);
	EXPECT_EQ(IMTCP_BUSY_WINDOW_MAX, b.window_rtts);
}

/*
 * An application-limited sender offers no rate samples (imtcp_meas.c),
 * but its ACKs keep coming: a busy rate it had once (its first slow
 * start) must age out with them, not bound its results for the rest of
 * the connection (in the VM a rate of 3.6 Mbit/s from the start held
 * every estimate of a 20 s transfer at 4.5 for A = 11).
 */
TEST(the_maximum_ages_with_acks_alone)
{
	struct imtcp_busy b;
	u32 win = IMTCP_BUSY_WINDOW_RTTS * SRTT;
	u64 t, end;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, 2 * SRTT, 20, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
	for (end = t + 2 * win + SRTT; t < end; t += 40000)
		imtcp_busy_ack(&b, t, BASE + 20000, EMPTY, SRTT);
	EXPECT_EQ(0, imtcp_busy_bps(&b));
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));
}

/* After a silence of two windows or more, nothing of before is left. */
TEST(a_long_silence_clears_both_windows)
{
	struct imtcp_busy b;
	u32 win = IMTCP_BUSY_WINDOW_RTTS * SRTT;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, 3 * win, 20, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
	imtcp_busy_ack(&b, t + 10 * win, BASE + 20000, EMPTY, SRTT);
	EXPECT_EQ(0, imtcp_busy_bps(&b));
}

TEST(a_rise_raises_it_at_once)
{
	struct imtcp_busy b;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, 4 * SRTT, 20, BASE + 30000);
	deliver(&b, t, 2 * SRTT, 60, BASE + 5000);
	EXPECT_RATE(imtcp_busy_bps(&b), 60);
}

/*
 * The floor is the lower of the two windows' maxima: none until both
 * had a busy rate, and a rate the connection got for an RTT or two (a
 * queue it overfilled draining) fills only one of them.
 */
TEST(the_floor_needs_both_windows)
{
	struct imtcp_busy b;
	u32 win = IMTCP_BUSY_WINDOW_RTTS * SRTT;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, win, 20, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 20);
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));
	t = deliver(&b, t, win, 20, BASE + 20000);
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 20);
	/* 90 for one srtt, then 20 again: the maximum is 90, the floor 20 */
	t = deliver(&b, t, SRTT, 90, BASE + 30000);
	t = deliver(&b, t, win, 20, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 90);
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 20);
}

/*
 * After A falls, the floor follows by the next measurement: the highest
 * rate since the last one bounds it, while both windows still hold the
 * rate from before.
 */
TEST(the_floor_follows_a_fall_by_the_next_measurement)
{
	struct imtcp_busy b;
	u32 win = IMTCP_BUSY_WINDOW_RTTS * SRTT;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	t = deliver(&b, 0, 2 * win + win / 2, 60, BASE + 10000);
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 60);
	imtcp_busy_measured(&b);
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));	/* nothing since */
	t = deliver(&b, t, SRTT / 2, 40, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 60);
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 40);
	/* the highest since: a lower sample after it does not lower it */
	deliver(&b, t, SRTT / 4, 30, BASE + 20000);
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 40);
}

/*
 * A busy link whose windows' maxima were @cur and @last Mbit/s, and @cur
 * since the last measurement; the cap @margin percent above the higher,
 * the floor at the default busy_floor_pct of the lowest.
 */
static struct imtcp_busy busy_of(u64 cur, u64 last, u32 margin)
{
	struct imtcp_busy b = { .max_bps = { cur * MBIT, last * MBIT },
				.recent_bps = cur * MBIT,
				.margin_pct = margin,
				.floor_pct = IMTCP_BUSY_FLOOR_PCT };

	return b;
}

TEST(the_bound)
{
	struct imtcp_busy b = busy_of(20, 16, 0);
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 rse = 79;

	/* at or below the busy rate: untouched */
	EXPECT_EQ(20 * MBIT, imtcp_busy_bound(20 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	EXPECT_EQ(79, rse);
	/* above: held there, the fit's standard error no longer applies */
	EXPECT_EQ(20 * MBIT, imtcp_busy_bound(21 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	EXPECT_EQ(0, rse);
	/* an upper edge held is no edge any more */
	edge = IMTCP_EDGE_HIGH;
	EXPECT_EQ(20 * MBIT, imtcp_busy_bound(80 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	/* a lower edge stays one */
	edge = IMTCP_EDGE_LOW;
	EXPECT_EQ(20 * MBIT, imtcp_busy_bound(40 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_LOW, edge);
}

/* busy_margin: the cap that far above the busy rate, at most twice it. */
TEST(the_bound_with_a_margin)
{
	struct imtcp_busy b = busy_of(20, 16, 25);
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u32 rse = 79;

	EXPECT_EQ(25 * MBIT, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(24 * MBIT, imtcp_busy_bound(24 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(79, rse);
	EXPECT_EQ(25 * MBIT, imtcp_busy_bound(58 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(0, rse);
	/* the floor does not move with it */
	EXPECT_EQ(16 * MBIT * IMTCP_BUSY_FLOOR_PCT / 100,
		  imtcp_busy_bound(9 * MBIT, &b, &edge, &rse));
	imtcp_busy_init(&b, 0, 250);
	EXPECT_EQ(IMTCP_BUSY_MARGIN_MAX, b.margin_pct);
	b.max_bps[0] = 20 * MBIT;
	EXPECT_EQ(40 * MBIT, imtcp_busy_cap_bps(&b));
}

/*
 * What is published between results: the estimate, under the cap as it
 * is now; no busy rate, no cap; and only a cap, never the floor.
 */
TEST(the_cap_between_results)
{
	struct imtcp_busy b = busy_of(8, 0, 25), none = busy_of(0, 0, 25);

	EXPECT_EQ(10 * MBIT, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(10 * MBIT, imtcp_busy_capped(16 * MBIT, &b));
	EXPECT_EQ(9 * MBIT, imtcp_busy_capped(9 * MBIT, &b));
	EXPECT_EQ(0, imtcp_busy_cap_bps(&none));
	EXPECT_EQ(16 * MBIT, imtcp_busy_capped(16 * MBIT, &none));
	b = busy_of(8, 0, 0);	/* no margin: the busy rate itself */
	EXPECT_EQ(8 * MBIT, imtcp_busy_capped(9 * MBIT, &b));
	b = busy_of(8, 8, 25);	/* a floor of 7.2: not applied here */
	EXPECT_EQ(1 * MBIT, imtcp_busy_capped(1 * MBIT, &b));
	/* after a fall: the windows move on, and the cap with them */
	imtcp_busy_init(&b, 0, 25);
	imtcp_busy_ack(&b, 1000, 50000, 1000, 40000);	/* busy */
	imtcp_busy_rate(&b, 200000, 40, 1448, 120000);	/* 3.86 Mbit/s */
	EXPECT_EQ(imtcp_busy_bps(&b) + imtcp_busy_bps(&b) / 4,
		  imtcp_busy_capped(16 * MBIT, &b));
	imtcp_busy_ack(&b, 600000, 50000, 1000, 40000);	/* 3 windows on */
	EXPECT_EQ(0, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(16 * MBIT, imtcp_busy_capped(16 * MBIT, &b));
}

/*
 * Streams flat above the cap (a result at the upper edge): A rose past
 * the busy rate, whose windows are forgotten. Not for a result inside
 * its range, nor at or under the cap, nor without a busy rate.
 */
TEST(streams_flat_above_the_cap_forget_it)
{
	struct imtcp_busy b = busy_of(6, 5, 0), none = busy_of(0, 0, 0);

	EXPECT_FALSE(imtcp_busy_outrun(&b, 20 * MBIT, IMTCP_EDGE_NONE));
	EXPECT_FALSE(imtcp_busy_outrun(&b, 20 * MBIT, IMTCP_EDGE_LOW));
	EXPECT_FALSE(imtcp_busy_outrun(&b, 6 * MBIT, IMTCP_EDGE_HIGH));
	EXPECT_EQ(6 * MBIT, imtcp_busy_cap_bps(&b));
	EXPECT_FALSE(imtcp_busy_outrun(&none, 20 * MBIT, IMTCP_EDGE_HIGH));
	b.margin_pct = 25;	/* above 6, not above the cap of 7.5 */
	EXPECT_FALSE(imtcp_busy_outrun(&b, 7 * MBIT, IMTCP_EDGE_HIGH));
	b.margin_pct = 0;
	EXPECT_TRUE(imtcp_busy_outrun(&b, 17 * MBIT, IMTCP_EDGE_HIGH));
	EXPECT_EQ(0, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));
	EXPECT_EQ(16 * MBIT, imtcp_busy_capped(16 * MBIT, &b));
	/* busy samples bound it again */
	imtcp_busy_ack(&b, 1000, BASE + 20000, EMPTY, SRTT);
	deliver(&b, 1000, SRTT, 17, BASE + 20000);
	EXPECT_RATE(imtcp_busy_bps(&b), 17);
}

TEST(the_floor)
{
	struct imtcp_busy b = busy_of(20, 16, 0);
	enum imtcp_edge edge = IMTCP_EDGE_NONE;
	u64 floor_bps = 16 * MBIT * IMTCP_BUSY_FLOOR_PCT / 100;
	u32 rse = 79;

	/* at or above 97 % of the lower maximum (16): untouched */
	EXPECT_EQ(15520 * KBIT, floor_bps);
	EXPECT_EQ(156 * MBIT / 10,
		  imtcp_busy_bound(156 * MBIT / 10, &b, &edge, &rse));
	EXPECT_EQ(79, rse);
	/* below: held there, the fit's standard error no longer applies */
	EXPECT_EQ(floor_bps, imtcp_busy_bound(15 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	EXPECT_EQ(0, rse);
	/* a lower edge held is no edge any more */
	edge = IMTCP_EDGE_LOW;
	EXPECT_EQ(floor_bps, imtcp_busy_bound(2 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_NONE, edge);
	/* an upper edge stays one (A is higher still) */
	edge = IMTCP_EDGE_HIGH;
	EXPECT_EQ(floor_bps, imtcp_busy_bound(2 * MBIT, &b, &edge, &rse));
	EXPECT_EQ(IMTCP_EDGE_HIGH, edge);
	/* one window without a busy rate: no floor */
	b = busy_of(0, 20, 0);
	EXPECT_EQ(2 * MBIT, imtcp_busy_bound(2 * MBIT, &b, &edge, &rse));
}

/*
 * busy_floor_pct: the floor that share of the busy rate (at most all of
 * it); 0, none. The cap is its own.
 */
TEST(the_floor_as_set)
{
	struct imtcp_busy b;

	imtcp_busy_init(&b, 0, 0);
	EXPECT_EQ(IMTCP_BUSY_FLOOR_PCT, b.floor_pct);
	b.max_bps[0] = b.max_bps[1] = b.recent_bps = 20 * MBIT;
	imtcp_busy_set_floor(&b, 90);
	EXPECT_EQ(18 * MBIT, imtcp_busy_hold(9 * MBIT, &b));
	imtcp_busy_set_floor(&b, 250);
	EXPECT_EQ(100, b.floor_pct);
	EXPECT_EQ(20 * MBIT, imtcp_busy_hold(9 * MBIT, &b));
	imtcp_busy_set_floor(&b, 0);
	EXPECT_EQ(9 * MBIT, imtcp_busy_hold(9 * MBIT, &b));
	EXPECT_EQ(20 * MBIT, imtcp_busy_hold(30 * MBIT, &b));	/* the cap */
}

/*
 * A connection delivered at @mbit for @dur_us from @t with no queue (its
 * RTT at the minimum), one ACK per ms, each with a rate sample over the
 * last srtt offered as busy and as its own. Returns the end.
 */
static u64 deliver_idle(struct imtcp_busy *b, u64 t, u32 dur_us, u64 mbit)
{
	u64 end = t + dur_us;

	for (; t < end; t += 1000) {
		imtcp_busy_ack(b, t, BASE, EMPTY, SRTT);
		imtcp_busy_rate(b, t, segs_for(mbit, SRTT), MSS, SRTT);
		imtcp_busy_own_rate(b, segs_for(mbit, SRTT), MSS, SRTT);
	}
	return end;
}

/*
 * own_floor: where the queue does not stand (A rose and the queue
 * emptied), the connection's own rate still bounds A from below, though
 * no busy rate does; the cap stays the busy rate's alone. Like the busy
 * floor, the own one needs both windows and a sample since the last
 * measurement; off, the floor is the busy one only.
 */
TEST(the_own_rate_floors_an_idle_link)
{
	struct imtcp_busy b;
	u32 win = IMTCP_BUSY_WINDOW_RTTS * SRTT;
	u64 t;

	imtcp_busy_init(&b, 0, 0);
	EXPECT_TRUE(b.own_floor);
	t = deliver_idle(&b, 0, win, 16);
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));	/* one window only */
	t = deliver_idle(&b, t, win, 16);
	EXPECT_EQ(0, imtcp_busy_bps(&b));		/* never busy: no cap */
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 16);
	/* an estimate from before the rise, 11, held up to 97 % of it */
	EXPECT_EQ(imtcp_busy_floor_bps(&b) - imtcp_busy_floor_bps(&b) * 3 / 100,
		  imtcp_busy_hold(11 * MBIT, &b));
	EXPECT_EQ(imtcp_busy_hold(11 * MBIT, &b),
		  imtcp_busy_shown(11 * MBIT, &b));
	EXPECT_EQ(40 * MBIT, imtcp_busy_hold(40 * MBIT, &b));	/* no cap */
	imtcp_busy_measured(&b);
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));	/* nothing since */
	deliver_idle(&b, t, SRTT / 4, 12);
	EXPECT_RATE(imtcp_busy_floor_bps(&b), 12);
	imtcp_busy_set_own(&b, false);
	EXPECT_EQ(0, imtcp_busy_floor_bps(&b));
	EXPECT_EQ(11 * MBIT, imtcp_busy_hold(11 * MBIT, &b));
}

/*
 * With a busy rate as well, the floor is the higher of the two, and the
 * cap lies no lower than it (own_cap, on with own_floor); the figure
 * shown between results is held within both bounds with own_floor, and
 * only under the cap without it (the module before).
 */
TEST(the_floor_is_the_higher_and_shown_between_results)
{
	struct imtcp_busy b;

	imtcp_busy_init(&b, 0, 0);
	b.max_bps[0] = b.max_bps[1] = b.recent_bps = 20 * MBIT;
	b.own_bps[0] = b.own_bps[1] = b.own_recent_bps = 10 * MBIT;
	EXPECT_EQ(20 * MBIT, imtcp_busy_floor_bps(&b));
	b.own_bps[0] = b.own_bps[1] = b.own_recent_bps = 25 * MBIT;
	EXPECT_EQ(25 * MBIT, imtcp_busy_floor_bps(&b));
	/* the cap lies no lower than the floor (own_cap) */
	EXPECT_EQ(25 * MBIT, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(25 * MBIT, imtcp_busy_shown(30 * MBIT, &b));
	EXPECT_EQ(25 * MBIT * 97 / 100, imtcp_busy_shown(9 * MBIT, &b));
	b.own_cap = false;					/* as before it */
	EXPECT_EQ(20 * MBIT, imtcp_busy_shown(30 * MBIT, &b));
	EXPECT_EQ(25 * MBIT * 97 / 100, imtcp_busy_shown(9 * MBIT, &b));
	b.own_cap = true;
	/* no busy rate: no cap, whatever the floor */
	b.max_bps[0] = b.max_bps[1] = b.recent_bps = 0;
	EXPECT_EQ(0, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(30 * MBIT, imtcp_busy_shown(30 * MBIT, &b));
	b.max_bps[0] = b.max_bps[1] = b.recent_bps = 20 * MBIT;
	imtcp_busy_set_own(&b, false);
	EXPECT_EQ(20 * MBIT, imtcp_busy_cap_bps(&b));
	EXPECT_EQ(20 * MBIT, imtcp_busy_floor_bps(&b));
	EXPECT_EQ(20 * MBIT, imtcp_busy_shown(30 * MBIT, &b));
	EXPECT_EQ(9 * MBIT, imtcp_busy_shown(9 * MBIT, &b));
}

/*
 * Listeners hear of a move of the figure shown between results when it
 * is more than an eighth off what they last heard, at most once per
 * srtt: not of the cap's jitter, and of a fall in a few messages that
 * leave them within an eighth of the figure shown.
 */
TEST(news_of_a_move)
{
	u64 told = 20 * MBIT, told_us = 0, shown, now;
	u32 srtt = 40000, told_n = 0;

	/* an eighth off, or less: no news, however long */
	EXPECT_FALSE(imtcp_busy_move_news(18 * MBIT, told, 1000000, 0, srtt));
	EXPECT_FALSE(imtcp_busy_move_news(22 * MBIT, told, 1000000, 0, srtt));
	EXPECT_FALSE(imtcp_busy_move_news(told, told, 1000000, 0, srtt));
	/* more: news once an srtt has passed, not before */
	EXPECT_TRUE(imtcp_busy_move_news(17 * MBIT, told, 40000, 0, srtt));
	EXPECT_FALSE(imtcp_busy_move_news(17 * MBIT, told, 39999, 0, srtt));
	EXPECT_TRUE(imtcp_busy_move_news(23 * MBIT, told, 40000, 0, srtt));
	/* a rise is measured against the new figure's eighth */
	EXPECT_FALSE(imtcp_busy_move_news(8 * MBIT, 7 * MBIT, 40000, 0, srtt));
	EXPECT_TRUE(imtcp_busy_move_news(9 * MBIT, 7 * MBIT, 40000, 0, srtt));
	/* a fall from 20 to 4 Mbit/s over 8 srtt, an ACK each ms */
	for (now = 1000; now <= 8 * srtt + 400000; now += 1000) {
		shown = now >= 8 * srtt ? 4 * MBIT :
			20 * MBIT - 16 * MBIT * now / (8 * srtt);
		if (!imtcp_busy_move_news(shown, told, now, told_us, srtt))
			continue;
		told = shown;
		told_us = now;
		told_n++;
	}
	EXPECT_GE(told_n, 5);
	EXPECT_LE(told_n, 12);
	EXPECT_LE(told - 4 * MBIT, told / 8);
	EXPECT_LE(told_us, 8 * srtt + srtt);
}

TEST_HARNESS_MAIN
