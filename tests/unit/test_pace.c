// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of a stream's schedule (kmod/core/imtcp_pace.c), against a
 * model of the stack's EDT pacing as 6.1 computes it
 * (tcp_update_skb_after_send): sk_pacing_rate r is in bytes per second,
 * after an skb of len bytes the next departure is max(due, now) +
 * len / r - min(len / 2r, how late this send was), an skb waits while
 * its departure time is ahead, and a pacing timer fires some time after
 * the departure time it was set for.
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
 * The stack as tcp_write_xmit and tcp_update_skb_after_send compute it:
 * sk_pacing_rate is in bytes per second; a send at time now with the
 * stack's departure time wstamp goes at max(wstamp, now), and then
 * wstamp advances by len / rate less min(half of that, how late the
 * send was). The pacing check holds an skb while wstamp > now.
 */
struct stack {
	u64 now;	/* tcp_clock_cache */
	u64 wstamp;	/* tcp_wstamp_ns */
	u64 early_ns;	/* a stack whose departure time runs this far early */
};

static void stack_send(struct stack *k, u32 bytes, u64 pacing_Bps)
{
	u64 prior = k->wstamp, len_ns;

	k->wstamp = k->wstamp > k->now ? k->wstamp : k->now;
	len_ns = (u64)bytes * 1000000000ULL / pacing_Bps;
	len_ns -= min_t(u64, len_ns / 2, k->wstamp - prior);
	k->wstamp += len_ns - min_t(u64, len_ns, k->early_ns);
}

/*
 * Send a stream through the model with timers @late_ns late; @ours says
 * whether the schedule sizes the sends and holds early ones (else one
 * segment per wake-up at the planned rate, as pacing alone does). Every
 * @ack_ns (0: never) an ACK also runs tcp_write_xmit, between the pacing
 * timer's wake-ups; @early_ns makes the stack's departure time run early
 * after each send. Fills @tx_ns with each segment's departure from the
 * first; returns the sends used.
 */
static u32 send_stream_acks(const struct imtcp_stream *st, u64 late_ns,
			    bool ours, u32 room, u64 ack_ns, u64 early_ns,
			    u64 *tx_ns)
{
	struct stack k = { 0, 0, early_ns };
	u64 timer = 0, ack = ack_ns;
	u32 sent = 0, sends = 0, i;

	while (sent < N) {
		struct imtcp_pace p = {
			1, imtcp_pacing_Bps(imtcp_gap_bps(st, N, sent)), 0,
		};

		if (ours)
			imtcp_pace_next(st, N, sent, k.now,
					k.now > k.wstamp ? k.now - k.wstamp : 0,
					room, &p);
		if (p.wait_ns && k.wstamp < k.now + p.wait_ns)
			k.wstamp = k.now + p.wait_ns;
		if (k.wstamp <= k.now) {	/* the pacing check passes */
			p.segs = p.segs < N - sent ? p.segs : N - sent;
			for (i = 0; i < p.segs; i++)
				tx_ns[sent + i] = k.now;
			sent += p.segs;
			stack_send(&k, p.segs * MSS, p.pacing_Bps);
			sends++;
		}
		timer = k.wstamp + late_ns;	/* the pacing timer */
		if (ack_ns && ack <= timer) {
			k.now = ack;
			ack += ack_ns;
		} else {
			k.now = timer;
		}
	}
	return sends;
}

static u32 send_stream(const struct imtcp_stream *st, u64 late_ns, bool ours,
		       u32 room, u64 *tx_ns)
{
	return send_stream_acks(st, late_ns, ours, room, 0, 0, tx_ns);
}

/* The time an skb of @bytes holds the stack's departure time back. */
static double len_ns(u32 bytes, u64 pacing_Bps)
{
	return (double)bytes * 1e9 / pacing_Bps;
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
	EXPECT_NEAR(gap - 10000, len_ns(4 * MSS, p.pacing_Bps), 2);
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
	EXPECT_NEAR(gap + 50000, len_ns(MSS, p.pacing_Bps), 2);
	/* far behind: the stack gives back half, so len / r is twice the gap */
	imtcp_pace_next(&st, N, 3, 3 * gap, 5 * gap, N, &p);
	EXPECT_NEAR(2.0 * gap, len_ns(MSS, p.pacing_Bps), 2);
}

/*
 * Before anything is due the next segment waits for its time; past the
 * end the planned rate stands.
 */
TEST(early_waits_done_keeps_the_plan)
{
	struct imtcp_stream st = stream(20, 40);
	struct imtcp_pace p;

	imtcp_pace_next(&st, N, 4, plan_ns(&st, 4) - 1000, 0, N, &p);
	EXPECT_EQ(1, p.segs);
	EXPECT_EQ(1000, p.wait_ns);
	EXPECT_EQ(imtcp_pacing_Bps(imtcp_gap_bps(&st, N, 4)), p.pacing_Bps);
	imtcp_pace_next(&st, N, 4, plan_ns(&st, 4), 0, N, &p);
	EXPECT_EQ(0, p.wait_ns);
	imtcp_pace_next(&st, N, N, 1000000000, 0, N, &p);
	EXPECT_EQ(1, p.segs);
	EXPECT_EQ(0, p.wait_ns);
	EXPECT_EQ(imtcp_pacing_Bps(imtcp_gap_bps(&st, N, N - 1)),
		  p.pacing_Bps);
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
	EXPECT_NEAR((double)IMTCP_PACE_MIN_NS, len_ns(3 * MSS, p.pacing_Bps), 2);
}

/*
 * sk_pacing_rate is bytes per second: a stream planned at 20-40 Mbit/s
 * with punctual timers lasts its plan, not an eighth of it.
 */
TEST(stream_lasts_its_plan_in_bytes_per_second)
{
	struct imtcp_stream st = stream(20, 40);
	u64 plan = plan_ns(&st, N - 1), tx[N];

	EXPECT_EQ(40 * MBIT / 8, imtcp_pacing_Bps(40 * MBIT));
	send_stream(&st, 0, true, N, tx);
	TH_LOG("stream of %.3f ms, plan %.3f ms", tx[N - 1] / 1e6, plan / 1e6);
	EXPECT_NEAR(plan, tx[N - 1], 10 * N);
}

/*
 * ACKs run tcp_write_xmit between the pacing timer's wake-ups; where the
 * stack's own departure time has passed but the schedule's has not (a
 * stack that runs early), nothing may leave before its planned time.
 */
TEST(acks_between_departures_send_nothing_early)
{
	struct imtcp_stream st = stream(10, 20);
	u64 late, tx[N];
	u32 j;

	for (late = 0; late <= 2000000; late += 250000) {
		send_stream_acks(&st, late, true, N, 37000, 300000, tx);
		for (j = 0; j < N; j++) {
			u64 t = tx[j], plan = plan_ns(&st, j);

			EXPECT_GE(t, plan)
				TH_LOG("late %llu: segment %u at %llu, plan %llu",
				       late, j, t, plan);
		}
	}
}

TEST_HARNESS_MAIN
