// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of a stream's schedule (kmod/core/imtcp_pace.c), against a
 * model of the stack's EDT pacing (tcp_update_skb_after_send): after an
 * skb of len bytes at rate r the next departure is max(due, now) +
 * len / r - min(len / 2r, how late this send was), and a pacing timer
 * that fires some time after the departure time it was set for.
 */
#include <math.h>
#include "kselftest_harness.h"
#include "core/imtcp_pace.h"

#define MBIT	1000000ULL
#define MSS	1448
#define N	10

/* |a - b| <= tol, as a kselftest expectation */
#define EXPECT_NEAR(a, b, tol)	EXPECT_LE(fabs((double)(a) - (double)(b)), (tol))

static struct imtcp_stream stream(u64 lo_mbit, u64 hi_mbit)
{
	struct imtcp_stream st = {
		.lo_bps = lo_mbit * MBIT, .hi_bps = hi_mbit * MBIT,
		.seg_bytes = MSS,
	};
	return st;
}

/* Planned time from a stream's first departure to segment @j's. */
static u64 plan_ns(const struct imtcp_stream *st, u32 j)
{
	u64 t = 0;
	u32 g;

	for (g = 0; g < j; g++)
		t += imtcp_gap_ns(st, N, g);
	return t;
}

/*
 * Send a stream through the model with timers @late_ns late; @ours says
 * whether the schedule sizes the sends (else one segment per wake-up at
 * the planned rate, as pacing alone does). Fills @tx_ns with each
 * segment's departure from the first; returns the wake-ups used.
 */
static u32 send_stream(const struct imtcp_stream *st, u64 late_ns, bool ours,
		       u32 room, u64 *tx_ns)
{
	u64 now = 0, wstamp = 0;
	u32 sent = 0, wakes = 0, i;

	while (sent < N) {
		struct imtcp_pace p = { 1, imtcp_gap_rate(st, N, sent) };
		u64 prior = wstamp, len_ns;

		if (ours)
			imtcp_pace_next(st, N, sent, now,
					now > wstamp ? now - wstamp : 0,
					room, &p);
		p.segs = p.segs < N - sent ? p.segs : N - sent;
		wstamp = wstamp > now ? wstamp : now;
		for (i = 0; i < p.segs; i++)
			tx_ns[sent + i] = wstamp;
		sent += p.segs;
		len_ns = (u64)p.segs * MSS * 8 * 1000000000ULL / p.rate_bps;
		len_ns -= min_t(u64, len_ns / 2, wstamp - prior);
		wstamp += len_ns;
		now = wstamp + late_ns;		/* the pacing timer */
		wakes++;
	}
	return wakes;
}

/* With punctual timers every segment leaves alone, on its plan. */
TEST(on_time_one_segment_each_on_plan)
{
	struct imtcp_stream st = stream(20, 40);
	u64 tx[N];
	u32 j;

	EXPECT_EQ(N, send_stream(&st, 0, true, N, tx));
	for (j = 0; j < N; j++) {
		s64 d = (s64)tx[j] - (s64)plan_ns(&st, j);

		EXPECT_LE(llabs(d), 10) TH_LOG("segment %u %lld ns off", j, d);
	}
}

/*
 * Timers 700 us late (the TCG VM's median), gaps of 230-580 us: pacing
 * alone stretches the stream to several times its plan; the schedule
 * keeps it within one timer delay of it, sending overdue segments
 * together.
 */
TEST(late_timers_stream_keeps_its_rate)
{
	struct imtcp_stream st = stream(20, 50);
	u64 plan = plan_ns(&st, N - 1), tx[N];
	u32 wakes;

	send_stream(&st, 700000, false, N, tx);
	TH_LOG("pacing alone: %.2f ms for a plan of %.2f ms",
	       tx[N - 1] / 1e6, plan / 1e6);
	EXPECT_GT(tx[N - 1], 2 * plan);
	wakes = send_stream(&st, 700000, true, N, tx);
	TH_LOG("with the schedule: %.2f ms, %u sends", tx[N - 1] / 1e6, wakes);
	EXPECT_LE(tx[N - 1], plan + 700000);
	EXPECT_GE(tx[N - 1], plan);
	EXPECT_LT(wakes, N);
}

/* Overdue segments go together, but never more than may leave. */
TEST(burst_is_what_is_due_within_room)
{
	struct imtcp_stream st = stream(40, 40);
	u64 gap = plan_ns(&st, 1);
	struct imtcp_pace p;

	/* segments 2..4 due, 10 us after 4's time */
	imtcp_pace_next(&st, N, 2, 4 * gap + 10000, 0, N, &p);
	EXPECT_EQ(3, p.segs);
	/* 2..5 */
	imtcp_pace_next(&st, N, 2, plan_ns(&st, 5) + 10000, 0, N, &p);
	EXPECT_EQ(4, p.segs);
	/* the next departure lands on segment 6's time: len / r = gap - 10 us */
	EXPECT_NEAR(gap - 10000,
		    4.0 * MSS * 8 * 1e9 / p.rate_bps, 2);
	imtcp_pace_next(&st, N, 2, plan_ns(&st, 5) + 10000, 0, 2, &p);
	EXPECT_EQ(2, p.segs);
}

/* Late against the stack: it gives back up to half; the rate allows for it. */
TEST(rate_allows_for_the_stacks_credit)
{
	struct imtcp_stream st = stream(40, 40);
	u64 gap = plan_ns(&st, 1);
	struct imtcp_pace p;

	/* on time for segment 3, the stack 50 us behind its own time */
	imtcp_pace_next(&st, N, 3, 3 * gap, 50000, N, &p);
	EXPECT_EQ(1, p.segs);
	/* len / r = gap + 50 us, of which the stack gives back 50 us */
	EXPECT_NEAR(gap + 50000, 1.0 * MSS * 8 * 1e9 / p.rate_bps, 2);
	/* far behind: the stack gives back half, so len / r is twice the gap */
	imtcp_pace_next(&st, N, 3, 3 * gap, 5 * gap, N, &p);
	EXPECT_NEAR(2.0 * gap, 1.0 * MSS * 8 * 1e9 / p.rate_bps, 2);
}

/* Before anything is due, and past the end, the planned rate stands. */
TEST(early_and_done_keep_the_plan)
{
	struct imtcp_stream st = stream(20, 40);
	struct imtcp_pace p;

	imtcp_pace_next(&st, N, 4, plan_ns(&st, 4) - 1, 0, N, &p);
	EXPECT_EQ(1, p.segs);
	EXPECT_EQ(imtcp_gap_rate(&st, N, 4), p.rate_bps);
	imtcp_pace_next(&st, N, N, 1000000000, 0, N, &p);
	EXPECT_EQ(1, p.segs);
	EXPECT_EQ(imtcp_gap_rate(&st, N, N - 1), p.rate_bps);
	/* everything overdue, no room: still one (the stack checks room) */
	imtcp_pace_next(&st, N, 0, 1000000000, 0, 0, &p);
	EXPECT_EQ(1, p.segs);
}

/* Far behind, the next departure is asked for at once, but never at 0. */
TEST(never_a_zero_gap)
{
	struct imtcp_stream st = stream(40, 40);
	struct imtcp_pace p;

	imtcp_pace_next(&st, N, 0, plan_ns(&st, 9), 0, 3, &p);
	EXPECT_EQ(3, p.segs);
	EXPECT_NEAR((double)IMTCP_PACE_MIN_NS,
		    3.0 * MSS * 8 * 1e9 / p.rate_bps, 2);
}

TEST_HARNESS_MAIN
