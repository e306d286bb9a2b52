// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the control unit (kmod/core/imtcp_cu.c): the paper's
 * transitions, m adaptation, the hold time, and the Linux rules (never
 * hold with nothing in flight or a window of N or less; OFF while
 * measurement is not possible).
 */
#include "kselftest_harness.h"
#include "core/imtcp_cu.h"

#define N 10
#define K 4

static struct imtcp_cu_view bulk(void)
{
	struct imtcp_cu_view v = {
		.now_us = 1000, .held = 0, .cwnd = 40, .in_flight = 40,
		.can_measure = true, .unsent = 1000,
	};
	return v;
}

static struct imtcp_cu started(void)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v = bulk();

	imtcp_cu_init(&cu, N);
	imtcp_cu_step(&cu, N, K, &v);
	return cu;
}

TEST(starts_off_then_stores)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v = bulk();

	imtcp_cu_init(&cu, N);
	EXPECT_EQ(IMTCP_STATE_OFF, cu.state);
	EXPECT_EQ(N, cu.m);
	EXPECT_EQ(IMTCP_CU_CHANGED, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

TEST(store_sends_when_m_are_held)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	cu.deadline_us = 5000;
	v.held = N - 1;
	EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
}

TEST(store_gives_up_at_the_deadline)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	cu.deadline_us = 5000;
	v.held = 3;
	v.now_us = 4999;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	v.now_us = 5000;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

/*
 * A later stream's hold that runs out abandons the measurement: a failed
 * stream, stream 0 again, and no hold for one srtt (the ACK clock's gap
 * that the released burst leaves comes one RTT later).
 */
TEST(later_stream_hold_expiry_abandons_and_rests)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 f;

	v.srtt_us = 40000;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);		/* stream 0 */
	v.sent = N;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.sent = 0;
	v.held = 1;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_EQ(1, cu.stream);
	cu.deadline_us = v.now_us + 5000;
	v.now_us += 5000;
	f = imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_CU_FAILED | IMTCP_CU_CHANGED, f);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	EXPECT_EQ(0, cu.stream);
	EXPECT_EQ(N, cu.m);			/* m is for dry streams */
	v.now_us += 39999;
	EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.now_us += 1;
	EXPECT_EQ(IMTCP_CU_CHANGED, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

/* Step with m segments held until the stream starts (three steps). */
static void to_send(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	int i;

	for (i = 0; i < 3 && cu->state != IMTCP_STATE_SEND; i++)
		imtcp_cu_step(cu, N, K, v);
}

/*
 * Holds that fail in a row rest 1, 2, 4 ... 64 srtt; from the eighth the
 * connection says so; a stream that leaves ends the row of the rest, a
 * result ends the saying so.
 */
TEST(failed_holds_in_a_row_back_off)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 i, rest;

	v.srtt_us = 1000;
	v.held = 1;
	for (i = 0; i < 10; i++) {
		ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
		EXPECT_EQ(i >= IMTCP_HOLDS_FAILING, imtcp_cu_holds_failing(&cu));
		cu.deadline_us = v.now_us + 100;
		v.now_us += 100;
		ASSERT_TRUE(imtcp_cu_step(&cu, N, K, &v) & IMTCP_CU_FAILED);
		rest = 1000u << (i < IMTCP_REST_SHIFT_MAX ? i : IMTCP_REST_SHIFT_MAX);
		v.now_us += rest - 1;
		EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));
		EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
		v.now_us += 1;
		imtcp_cu_step(&cu, N, K, &v);
	}
	EXPECT_TRUE(imtcp_cu_holds_failing(&cu));
	/* now a stream gathers and leaves: the row of the rest ends */
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	v.sent = N;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(0, cu.failed_holds);
	/* but the connection is failing until a result comes */
	EXPECT_TRUE(imtcp_cu_holds_failing(&cu));
	imtcp_cu_estimated(&cu);
	EXPECT_FALSE(imtcp_cu_holds_failing(&cu));
}

/* 200 ms later, m segments wait: the state once the stream can start. */
static u32 stream_starts(struct imtcp_cu *cu, struct imtcp_cu_view *v)
{
	v->held = N;
	v->sent = 0;
	v->now_us += 200000;
	to_send(cu, v);
	return cu->state;
}

/*
 * On loopback a first stream sometimes gathered and the second's hold
 * failed: without a result that is failing all the same, and so are
 * streams that run dry.
 */
TEST(failing_counts_until_a_result)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 i;

	v.srtt_us = 1000;
	for (i = 0; i < IMTCP_HOLDS_FAILING; i++) {
		/* the first stream gathers and leaves */
		ASSERT_EQ(IMTCP_STATE_SEND, stream_starts(&cu, &v));
		v.sent = N;
		ASSERT_TRUE(imtcp_cu_step(&cu, N, K, &v) & IMTCP_CU_STREAM_DONE);
		ASSERT_EQ(1, cu.stream);
		/* the second's hold does not */
		v.held = 1;
		v.sent = 0;
		imtcp_cu_step(&cu, N, K, &v);
		ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
		v.now_us = cu.deadline_us + 1;
		ASSERT_TRUE(imtcp_cu_step(&cu, N, K, &v) & IMTCP_CU_FAILED);
	}
	EXPECT_TRUE(imtcp_cu_holds_failing(&cu));

	cu = started();
	v = bulk();
	for (i = 0; i < IMTCP_HOLDS_FAILING; i++) {
		ASSERT_EQ(IMTCP_STATE_SEND, stream_starts(&cu, &v));
		/* the stream runs dry: its slot is due and nothing waits */
		v.held = 0;
		v.slot_due = true;
		ASSERT_TRUE(imtcp_cu_step(&cu, N, K, &v) & IMTCP_CU_FAILED);
		v.slot_due = false;
	}
	EXPECT_TRUE(imtcp_cu_holds_failing(&cu));
}

TEST(deadline_survives_clock_wrap)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	cu.deadline_us = 100;		/* after the wrap */
	v.now_us = 0xfffffff0u;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

TEST(never_holds_with_small_window_or_nothing_in_flight)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	cu.deadline_us = 5000;
	v.cwnd = N;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);	/* and does not go back */

	cu = started();
	v = bulk();
	cu.deadline_us = 5000;
	v.in_flight = 0;
	v.held = 3;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	/* an application-limited burst of m segments starts a stream */
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
}

TEST(window_limited_slow_start_holds_from_4n)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v = bulk();

	imtcp_cu_init(&cu, N);
	v.slow_start = true;
	v.cwnd = IMTCP_SS_WINDOW * N;
	v.in_flight = v.cwnd;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.now_us += 100;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.cwnd++;
	v.now_us += 100;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);

	/* 4 N of the connection's N, with streams longer than N too */
	imtcp_cu_init(&cu, N);
	v.cwnd = IMTCP_SS_WINDOW * N + 1;
	imtcp_cu_step(&cu, IMTCP_N_MAX, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);

	/* an application-limited sender in slow start: from N on */
	imtcp_cu_init(&cu, N);
	v.cwnd = N + 1;
	v.in_flight = 3;
	v.unsent = 0;
	v.srtt_us = 40000;		/* and it wrote just now */
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

/* A whole measurement: k streams, EMPTY between them, PASS at the end. */
TEST(measurement_cycle_visits_every_state)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 seen = 1 << IMTCP_STATE_OFF, i, f;

	seen |= 1 << cu.state;
	for (i = 0; i < K; i++) {
		v.held = N;
		cu.deadline_us = v.now_us + 1000;
		imtcp_cu_step(&cu, N, K, &v);
		ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
		seen |= 1 << cu.state;
		v.sent = N;
		f = imtcp_cu_step(&cu, N, K, &v);
		EXPECT_TRUE(f & IMTCP_CU_STREAM_DONE);
		seen |= 1 << cu.state;
		v.sent = 0;
		if (i + 1 < K) {
			EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
			imtcp_cu_step(&cu, N, K, &v);
			EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
		}
	}
	EXPECT_EQ(IMTCP_STATE_PASS, cu.state);
	EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));	/* ACKs not in */
	v.acked = true;
	f = imtcp_cu_step(&cu, N, K, &v);
	EXPECT_TRUE(f & IMTCP_CU_MEASURED);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(0, cu.stream);
	EXPECT_EQ((1 << IMTCP_STATE_OFF) | (1 << IMTCP_STATE_STORE) | (1 << IMTCP_STATE_SEND) |
		  (1 << IMTCP_STATE_PASS) | (1 << IMTCP_STATE_EMPTY), seen);
}

TEST(dry_stream_raises_m_and_retries)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 f;

	cu.m = 4;
	cu.deadline_us = 5000;
	v.held = 4;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	v.held = 0;
	v.sent = 4;
	EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));	/* not due yet */
	v.slot_due = true;
	f = imtcp_cu_step(&cu, N, K, &v);
	EXPECT_TRUE(f & IMTCP_CU_FAILED);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	EXPECT_EQ(5, cu.m);
	EXPECT_EQ(0, cu.stream);			/* same stream again */
}

/* An application-limited sender: a write of @segs segments, nothing else. */
static struct imtcp_cu_view writes(u32 segs)
{
	struct imtcp_cu_view v = bulk();

	v.in_flight = 0;
	v.unsent = segs;
	v.held = segs;
	v.mss = 1448;
	return v;
}

#define FRAME_GAP_US	3000000	/* frames this far apart: any rest is over */

/* One step with the stream length the module passes (imtcp_meas.c). */
static u32 step_as_module(struct imtcp_cu *cu, const struct imtcp_cu_view *v)
{
	return imtcp_cu_step(cu, imtcp_cu_stream_len(cu), K, v);
}
#define QUIET_US	10000	/* a hold ends so long after its write */

/*
 * A media sender's frame: a write of @segs segments at @t_us (srtt 40
 * ms), then nothing; with @in_flight 0 at @t_us + QUIET_US its hold fails
 * (or its stream runs dry: see dry_frame). Returns the flags of the
 * first step.
 */
static u32 frame_at(struct imtcp_cu *cu, struct imtcp_cu_view *v, u32 segs,
		    u32 t_us)
{
	v->now_us = t_us;
	v->srtt_us = 40000;
	v->write_seq += segs * 1448;
	v->unsent = segs;
	v->held = segs;
	v->in_flight = 2;
	v->sent = 0;
	v->slot_due = false;
	cu->deadline_us = t_us + 2 * QUIET_US;	/* the module's, on STORE */
	return step_as_module(cu, v);
}

/* A frame of @segs whose hold its last ACK ends @end_us after the write. */
static u32 frame_ended(struct imtcp_cu *cu, struct imtcp_cu_view *v,
		       u32 segs, u32 t_us, u32 end_us)
{
	frame_at(cu, v, segs, t_us);
	v->now_us = t_us + end_us;
	v->in_flight = 0;
	return step_as_module(cu, v);
}

/* A frame of @segs whose hold ends with nothing more written. */
static u32 short_frame(struct imtcp_cu *cu, struct imtcp_cu_view *v,
		       u32 segs, u32 t_us)
{
	return frame_ended(cu, v, segs, t_us, QUIET_US);
}

/*
 * Finished writes of fewer than N segments (frames 10 ms apart and
 * more: srtt / 8 = 5 ms): after two, the next measurement's streams are
 * as long as the shorter, and m no longer; the next frame then starts a
 * stream as it comes.
 */
TEST(short_writes_shorten_the_streams)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);

	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	EXPECT_TRUE(short_frame(&cu, &v, 8, 10000) & IMTCP_CU_FAILED);
	EXPECT_TRUE(short_frame(&cu, &v, 9, 10000 + FRAME_GAP_US) & IMTCP_CU_FAILED);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));	/* one may be chance */
	frame_at(&cu, &v, 8, 10000 + 2 * FRAME_GAP_US);
	EXPECT_EQ(8, imtcp_cu_stream_len(&cu));	/* the shorter of the two */
	EXPECT_EQ(8, cu.m);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	imtcp_cu_step(&cu, 8, K, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
}

/*
 * A sender that a CPU paces (loopback, srtt 1.5 ms) writes a segment
 * every few microseconds and its holds fail meanwhile: no quiet time, so
 * all it writes is one write, and the streams stay N long.
 */
TEST(writes_without_a_quiet_time_are_one_write)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 i;

	v.srtt_us = 1500;
	v.in_flight = 2;
	for (i = 0; i < 2000; i++) {
		v.now_us = 10000 + 3 * i;
		v.write_seq += 1448;
		v.unsent = 1 + i % 7;
		v.held = v.unsent;
		if (imtcp_cu_step(&cu, N, K, &v) & IMTCP_CU_CHANGED &&
		    cu.state == IMTCP_STATE_STORE)
			cu.deadline_us = v.now_us + 10;
	}
	EXPECT_LT(0, cu.failures);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(N, cu.m);
}

/*
 * The length is the writes', not where holds or streams ended: streams
 * that ran dry after 9 segments (m raised) shorten nothing until the
 * writes are known, and holds that the last ACKs of the frame before
 * cut 2 ms after the write count as well as any.
 */
/* A frame of @segs whose stream (m <= @segs) runs dry after them. */
static u32 dry_frame(struct imtcp_cu *cu, struct imtcp_cu_view *v, u32 segs,
		     u32 t_us)
{
	frame_at(cu, v, segs, t_us);
	if (cu->state == IMTCP_STATE_STORE)
		step_as_module(cu, v);
	v->now_us = t_us + QUIET_US;
	v->held = 0;
	v->unsent = 0;
	v->sent = segs;
	v->slot_due = true;
	return step_as_module(cu, v);
}

TEST(streams_dry_after_short_writes_are_as_long_as_the_writes)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 f;

	cu.m = 4;
	f = dry_frame(&cu, &v, 9, 10000);
	EXPECT_TRUE(f & IMTCP_CU_FAILED);
	EXPECT_EQ(5, cu.m);
	dry_frame(&cu, &v, 9, 10000 + FRAME_GAP_US);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	frame_at(&cu, &v, 9, 10000 + 2 * FRAME_GAP_US);
	EXPECT_EQ(9, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(6, cu.m);
}

/*
 * A frame written while the last ACKs of the one before were on their
 * way: its hold ends with the last ACK 2 ms after the write, before the
 * write is known finished. The next frame, 40 ms later, shows it was;
 * two such frames and the streams are as long as the frames (traced:
 * left unjudged, 36 s without an estimate).
 */
static u32 frame_cut_by_ack(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			    u32 segs, u32 t_us)
{
	u32 f = frame_ended(cu, v, segs, t_us, 2000);

	v->now_us = t_us + 40000;		/* an ACK of what left */
	step_as_module(cu, v);
	return f;
}

TEST(a_frame_cut_by_its_last_ack_counts_whole)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);

	EXPECT_TRUE(frame_cut_by_ack(&cu, &v, 8, 10000) & IMTCP_CU_FAILED);
	EXPECT_TRUE(frame_cut_by_ack(&cu, &v, 9, 10000 + FRAME_GAP_US) &
		    IMTCP_CU_FAILED);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	frame_at(&cu, &v, 9, 10000 + 2 * FRAME_GAP_US);
	EXPECT_EQ(8, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(8, cu.m);
}

/*
 * A stream longer than the frames (a hold that gathered two frames of 9
 * made streams of 16): the stream runs dry after a frame, but nothing
 * runs the control unit until the next frame's write. That write finds
 * every earlier segment sent and the stream's slot due for 30 ms: the
 * stream ran dry (traced: counted as going on, each stream spanned two
 * frames and the estimate froze for 25 s).
 */
static bool stream_of_frame(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			    u32 segs, u32 t_us)
{
	frame_at(cu, v, segs, t_us);
	if (cu->state == IMTCP_STATE_STORE)
		step_as_module(cu, v);
	/* all of it leaves; no event until the next write */
	v->snd_nxt = v->write_seq;
	v->sent = segs;
	v->held = 0;
	v->unsent = 0;
	return cu->state == IMTCP_STATE_SEND;
}

/* The next frame's write, @due_us after the stream's next slot came. */
static u32 write_after(struct imtcp_cu *cu, struct imtcp_cu_view *v,
		       u32 segs, u32 t_us, u32 due_us)
{
	v->now_us = t_us;
	v->write_seq += segs * 1448;
	v->unsent = segs;
	v->held = segs;
	v->slot_due = true;
	v->due_us = due_us;
	v->mss = 1448;
	return step_as_module(cu, v);
}

/* A frame of 9 whose stream (m 9, streams @n_writes long) has all left. */
static bool frame_streamed(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			   u32 n_writes, u32 t_us)
{
	*cu = started();
	*v = writes(0);
	cu->m = 9;
	cu->n_writes = n_writes;
	return stream_of_frame(cu, v, 9, t_us);
}

TEST(a_stream_the_frame_left_dry_is_seen_at_the_next_frame)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v;
	u32 t = 10000, f;

	ASSERT_TRUE(frame_streamed(&cu, &v, 16, t));
	f = write_after(&cu, &v, 9, t += 40000, 30000);
	EXPECT_TRUE(f & IMTCP_CU_FAILED);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	EXPECT_EQ(10, cu.m);
	/* two frames of 9 are known: streams of 9, and this one starts */
	frame_at(&cu, &v, 9, t += 40000);
	EXPECT_EQ(9, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(9, cu.m);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
}

/*
 * Not dry: a write that comes just as the slot is due (many small
 * writes to a frame), or while earlier segments still wait (a late
 * pacing timer): the stream goes on with it.
 */
TEST(a_write_that_keeps_up_carries_the_stream_on)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000;

	cu.m = 4;
	cu.n_writes = 9;
	ASSERT_TRUE(stream_of_frame(&cu, &v, 4, t));
	v.sent = 4;
	EXPECT_EQ(0, write_after(&cu, &v, 2, t + 1000, 1000));
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	v.snd_nxt = v.write_seq - 2 * 1448;	/* two wait for the timer */
	EXPECT_EQ(0, write_after(&cu, &v, 2, t + 40000, 30000));
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
}

/*
 * A measurement's next hold, begun at an ACK between two frames, that
 * its deadline ends before the next frame: nothing it held leaves late,
 * so no failure and no rest, and the measurement waits with its stream
 * for the frame, which starts it (traced: each such end a failure that
 * doubled the rest, up to 64 srtt). A sender its window limits fails
 * there as before (store_gives_up_at_the_deadline).
 */
TEST(a_hold_between_frames_waits_for_the_next_without_failing)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v;
	u32 t = 10000, f;

	ASSERT_TRUE(frame_streamed(&cu, &v, 9, t));
	v.now_us = t + 15000;			/* the stream is done */
	step_as_module(&cu, &v);
	ASSERT_EQ(IMTCP_STATE_EMPTY, cu.state);
	ASSERT_EQ(1, cu.stream);
	v.now_us = t + 20000;			/* an ACK: a hold begins */
	step_as_module(&cu, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.deadline_us = t + 35000;
	v.now_us = t + 35000;
	f = step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_CU_CHANGED, f);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	EXPECT_EQ(1, cu.stream);
	frame_at(&cu, &v, 9, t + 40000);	/* the next frame */
	if (cu.state == IMTCP_STATE_STORE)
		step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(1, cu.stream);
}

/*
 * A first stream's hold that began at an ACK with a frame's last partial
 * segment fails at its deadline and rests one srtt; the next frame, a
 * whole stream that may all leave, starts it within that rest (traced:
 * such a frame left unmeasured, and a measurement took four frames
 * where three would do). A sender its window limits, with as many
 * held, still waits out the rest.
 */
TEST(a_frame_starts_its_stream_within_a_rest)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000;

	v.srtt_us = 40000;
	v.in_flight = 2;
	v.held = 1;			/* the last frame's partial segment */
	v.now_us = t;
	cu.deadline_us = t + 26000;	/* the hold begun at the last ACK */
	step_as_module(&cu, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_EQ(0, cu.stream);
	v.now_us = t + 26000;
	ASSERT_TRUE(step_as_module(&cu, &v) & IMTCP_CU_FAILED);
	ASSERT_EQ(IMTCP_STATE_EMPTY, cu.state);
	/* within the rest: an ACK with little held holds nothing */
	v.now_us = t + 30000;
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	/* the next frame, 7 ms after the failure: its stream starts */
	frame_at(&cu, &v, 17, t + 33000);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(0, cu.stream);

	/* the same rest, window-limited: m held and more waiting */
	cu = started();
	v = bulk();
	v.srtt_us = 40000;
	v.held = 1;
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.deadline_us = v.now_us + 5000;
	v.now_us += 5000;
	ASSERT_TRUE(imtcp_cu_step(&cu, N, K, &v) & IMTCP_CU_FAILED);
	v.held = N;
	v.now_us += 10000;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

/*
 * A media sender whose frames come in small writes (1,200 bytes each,
 * frames of 17 segments), application-limited, between two frames at
 * @t_us: EMPTY, its last frame known, its streams not written whole;
 * frame_hold @on. @v: an ACK with the last frame's partial segment
 * waiting (Nagle) and two segments in flight.
 */
static void small_write_sender(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			       bool on, u32 t_us)
{
	*cu = started();
	*v = writes(0);
	imtcp_cu_set_frame_hold(cu, on);
	cu->state = IMTCP_STATE_EMPTY;
	cu->limited = 0;
	cu->app_paced = 1;
	cu->burst_segs = 17;
	cu->burst_bad = 0;
	cu->writes_whole = 0;
	v->srtt_us = 40000;
	v->now_us = t_us;
	v->held = 1;
	v->in_flight = 2;
	v->write_seq = 1000000;
	cu->write_seq = v->write_seq;
	cu->burst_seq = v->write_seq - 25000;	/* the last frame */
	cu->write_us = t_us - 20000;	/* its writes */
	cu->last_us = t_us;
}

/* One step as the module takes it: v->opens as view_of sets it. */
static u32 step_seen(struct imtcp_cu *cu, struct imtcp_cu_view *v)
{
	v->opens = imtcp_cu_frame_opens(cu, v->write_seq, v->now_us,
					v->srtt_us, v->writer_waits);
	return step_as_module(cu, v);
}

/* The next frame's first write (1200 bytes), 15 ms after @t_us. */
static u32 first_write(struct imtcp_cu *cu, struct imtcp_cu_view *v, u32 t_us)
{
	v->now_us = t_us + 15000;
	v->in_flight = 0;		/* the last frame is all ACKed */
	v->write_seq += 1200;
	v->held = 1;
	return step_seen(cu, v);
}

/*
 * frame_hold: such a sender holds from a frame's first write on, which
 * gathers the frame as its next writes come, and not at an ACK between
 * frames, where a hold kept the last frame's partial segment and ran out
 * before the next frame came (traced: 155 of 330 holds in a 20 s run
 * ended without their stream). Without it: a hold at the ACK, and none
 * at the write (nothing in flight, less than m at hand).
 */
TEST(a_small_write_frame_holds_from_its_first_write)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v;
	u32 t = 100000;

	small_write_sender(&cu, &v, true, t);
	step_seen(&cu, &v);			/* the ACK */
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.held = 0;				/* the tail has left */
	v.now_us += 1000;
	step_seen(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	first_write(&cu, &v, t);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	/* at most the quiet time (srtt / 8) that says a write is finished */
	EXPECT_EQ(5000, imtcp_cu_hold_us(&cu, 20000, 40000));
	EXPECT_EQ(3000, imtcp_cu_hold_us(&cu, 3000, 40000));
	cu.deadline_us = v.now_us + 20000;	/* the module's, on STORE */
	step_seen(&cu, &v);			/* on_send's second step */
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	v.now_us += 500;			/* its other writes */
	v.write_seq += 20 * 1200;
	v.unsent = 17;
	v.held = 17;
	step_seen(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);

	small_write_sender(&cu, &v, false, t);
	step_seen(&cu, &v);			/* the ACK: a hold */
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(20000, imtcp_cu_hold_us(&cu, 20000, 40000));
	small_write_sender(&cu, &v, false, t);
	first_write(&cu, &v, t);		/* the write: none */
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

/*
 * A hold that a frame's first write began gathers the whole stream (or
 * the frame, if shorter), not m: a stream that left at m ran ahead of the
 * writes, at the writer's pace. If the writes stop short of it, what came
 * leaves at the deadline, m or more; less fails as any hold.
 */
TEST(a_frame_s_hold_gathers_the_whole_stream)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v;
	u32 t = 100000, held;

	for (held = 12; held >= 8; held -= 4) {
		small_write_sender(&cu, &v, true, t);
		cu.n_writes = 16;		/* streams of 16 */
		first_write(&cu, &v, t);
		ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
		cu.deadline_us = v.now_us + 20000;
		v.now_us += 300;		/* m (10) and more, not 16 */
		v.write_seq += held * 1200;
		v.unsent = held;
		v.held = held;
		step_seen(&cu, &v);
		EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
		v.now_us = cu.deadline_us;	/* no more writes */
		if (held >= 10) {
			EXPECT_EQ(IMTCP_CU_CHANGED, step_seen(&cu, &v));
			EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
		} else {
			EXPECT_TRUE(step_seen(&cu, &v) & IMTCP_CU_FAILED);
			EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
		}
	}
	small_write_sender(&cu, &v, true, t);
	cu.n_writes = 16;
	first_write(&cu, &v, t);
	v.now_us += 600;			/* the whole frame */
	v.unsent = 17;
	v.held = 17;
	step_seen(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);

}

/*
 * Not so: a write within the quiet time (the same frame's), a writer
 * that waits for its buffer, frames shorter than m, streams written
 * whole (they start from the write that brings them), a window that
 * limits the sender; and no state but EMPTY opens a frame.
 */
TEST(only_a_small_write_frame_s_first_write_opens)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v;
	u32 t = 100000, seq;

	small_write_sender(&cu, &v, true, t);
	seq = v.write_seq + 1200;
	EXPECT_TRUE(imtcp_cu_frame_opens(&cu, seq, t, 40000, false));
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, v.write_seq, t, 40000, false));
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t - 16000, 40000, false));
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t, 40000, true));
	cu.burst_segs = 9;
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t, 40000, false));
	cu.burst_segs = 17;
	cu.writes_whole = 1;
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t, 40000, false));
	cu.writes_whole = 0;
	cu.limited = 1;
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t, 40000, false));
	cu.limited = 0;
	cu.state = IMTCP_STATE_PASS;
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t, 40000, false));
	cu.state = IMTCP_STATE_EMPTY;
	imtcp_cu_set_frame_hold(&cu, false);
	EXPECT_FALSE(imtcp_cu_frame_opens(&cu, seq, t, 40000, false));
}

/*
 * A measurement's last stream from a frame of @segs written whole at @t;
 * its last ACK is due. Returns the state the write's stream reached.
 */
static u32 whole_frame_measured(struct imtcp_cu *cu, struct imtcp_cu_view *v,
				u32 segs, u32 t)
{
	u32 state;

	cu->state = IMTCP_STATE_EMPTY;
	frame_at(cu, v, segs, t);		/* the write starts it */
	step_as_module(cu, v);
	state = cu->state;
	cu->state = IMTCP_STATE_PASS;
	cu->stream = K;
	return state;
}

/*
 * A measurement ends (PASS, its last ACK) while all that waits is the
 * last frame's partial segment, its write finished, and the frames come
 * whole (the last stream started from a write): no hold begins, so that
 * tail is not kept from its frame until a deadline (traced: 7-26 ms,
 * then a failed hold). Once it has left, a hold that holds nothing
 * waits for the next frame. A write not yet finished, frames whose
 * streams holds gathered (small writes), or a sender its window limits:
 * a hold begins at once, as before. A last ACK that comes within the
 * quiet time after a write that brought a whole stream: as finished.
 */
TEST(no_hold_for_a_finished_write_s_tail)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000, f;

	ASSERT_EQ(IMTCP_STATE_SEND, whole_frame_measured(&cu, &v, 17, t));
	cu.stream = K;
	v.unsent = 0;
	v.held = 1;				/* its partial segment */
	v.in_flight = 2;
	v.acked = true;
	v.now_us = t + 30000;			/* finished: > srtt / 8 */
	f = step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_CU_MEASURED | IMTCP_CU_CHANGED, f);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.acked = false;
	v.now_us += 1000;			/* an ACK: the tail still waits */
	EXPECT_EQ(0, step_as_module(&cu, &v) & IMTCP_CU_FAILED);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.held = 0;				/* it has left */
	v.now_us += 1000;
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);

	/* the write not finished yet: the hold gathers what comes next */
	cu.state = IMTCP_STATE_PASS;
	cu.stream = K;
	v.write_seq += 1000;
	v.held = 1;
	v.acked = true;
	v.now_us += 1000;
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);

	/* a stream its hold gathered (small writes): the same tail holds */
	v.held = 17;
	v.now_us += 1000;
	step_as_module(&cu, &v);
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	cu.state = IMTCP_STATE_PASS;
	cu.stream = K;
	v.unsent = 0;
	v.held = 1;
	v.now_us += 30000;
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);

	/* window-limited (one segment may leave, more wait): as before */
	cu = started();
	v = bulk();
	cu.state = IMTCP_STATE_PASS;
	cu.stream = K;
	v.held = 1;
	v.acked = true;
	v.now_us += 30000;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);

	/* the last ACK within the quiet time, the frame whole: as finished */
	cu = started();
	v = writes(0);
	ASSERT_EQ(IMTCP_STATE_SEND, whole_frame_measured(&cu, &v, 17, t));
	cu.stream = K;
	v.unsent = 0;
	v.held = 1;
	v.in_flight = 2;
	v.acked = true;
	v.now_us = t + 2000;			/* < srtt / 8 */
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

/*
 * A frame of 17 segments in slow start, the window (14: smaller than the
 * frame, so the 4 N rule keeps a hold off as it comes) letting 4 of
 * them go, its last @last segments written a step after the rest (17:
 * one write); then, 3.8 ms later, the ACK that opens the window (grown
 * to 32) with 2 of the frame left. Returns the state that ACK leads to.
 */
static u32 rest_of_frame(u32 last)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000, i, segs[2] = { 17 - last, last };

	cu.state = IMTCP_STATE_EMPTY;
	v.srtt_us = 40000;
	v.slow_start = true;
	v.cwnd = 14;
	v.in_flight = 10;
	for (i = 0; i < 2; i++) {
		if (!segs[i])
			continue;
		v.now_us = t + i;
		v.write_seq += segs[i] * 1448;
		v.unsent += segs[i];
		v.held = min_t(u32, v.unsent, 4);
		step_as_module(&cu, &v);
	}
	v.now_us = t + 3800;
	v.cwnd = 32;
	v.in_flight = 28;
	v.unsent = 1;
	v.held = 2;
	step_as_module(&cu, &v);
	return cu.state;
}

/*
 * Before any stream came whole from a write, the rest of a write that
 * brought a whole stream at once (the window kept it back in slow start)
 * starts no hold: it would wait for the next frame. Where the last write
 * brought less (a frame in smaller writes), the hold begins as before.
 */
TEST(no_hold_for_the_rest_of_a_whole_write)
{
	EXPECT_EQ(IMTCP_STATE_EMPTY, rest_of_frame(17));
	EXPECT_EQ(IMTCP_STATE_STORE, rest_of_frame(2));
}

/*
 * A frame of @segs segments written in one write at @t, in slow start,
 * a window of @cwnd letting 4 of them go; the writes before came after
 * quiet times (@paced) or the writer waited on its send buffer. Returns
 * the state that write leads to.
 */
static u32 frame_in_slow_start(u32 segs, u32 cwnd, bool paced)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 50000;

	cu.state = IMTCP_STATE_EMPTY;
	v.srtt_us = 40000;
	v.slow_start = true;
	v.cwnd = cwnd;
	v.writer_waits = !paced;
	v.now_us = t - 40000;			/* the frame before, all acked */
	v.write_seq += segs * 1448;
	step_as_module(&cu, &v);
	v.in_flight = cwnd - 4;
	v.now_us = t;
	v.write_seq += segs * 1448;
	v.unsent = segs;
	v.held = 4;
	step_as_module(&cu, &v);
	return cu.state;
}

/*
 * An application that paces its writes holds in slow start once the
 * window exceeds the write it is sending (frame 3 of a 5 Mbit/s media
 * sender, 17 segments, came to a window of 22); a frame larger than the
 * window, or a writer its buffer paces, keeps the 4 N rule.
 */
TEST(app_paced_frame_within_the_window_holds_in_slow_start)
{
	EXPECT_EQ(IMTCP_STATE_STORE, frame_in_slow_start(17, 22, true));
	EXPECT_EQ(IMTCP_STATE_EMPTY, frame_in_slow_start(34, 22, true));
	EXPECT_EQ(IMTCP_STATE_EMPTY, frame_in_slow_start(17, 22, false));
	EXPECT_EQ(IMTCP_STATE_STORE, frame_in_slow_start(17, 4 * N + 1, false));
}

/*
 * Who sets the pace, for the first search range: a frame that slow
 * start's window holds back leaves an application that paces its writes
 * the application-limited range; a writer its buffer paces, held back
 * by the window, is window-limited; nothing held back, the application.
 */
TEST(app_sets_the_pace_of_a_paced_writer_held_back_by_slow_start)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);

	v.srtt_us = 40000;
	v.slow_start = true;
	v.cwnd = 12;
	v.in_flight = 8;
	v.now_us = 20000;			/* a write after a quiet time */
	v.write_seq += 17 * 1448;
	v.unsent = 17;
	v.held = 4;
	step_as_module(&cu, &v);
	ASSERT_TRUE(cu.limited);
	EXPECT_TRUE(cu.app_paced);
	EXPECT_TRUE(imtcp_cu_app_sets_pace(&cu));

	v.now_us += 1000;			/* the writer now waits */
	v.writer_waits = true;
	step_as_module(&cu, &v);
	EXPECT_FALSE(cu.app_paced);
	EXPECT_FALSE(imtcp_cu_app_sets_pace(&cu));

	v.now_us += 1000;			/* the window holds nothing back */
	v.unsent = 4;
	step_as_module(&cu, &v);
	EXPECT_TRUE(imtcp_cu_app_sets_pace(&cu));
}

/*
 * A hold of nothing begun at an ACK at @t, @written bytes having come at
 * @t (0: the last write long before). Returns whether it holds.
 */
static bool hold_of_nothing(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			    u32 t, u32 written)
{
	*cu = started();
	*v = writes(0);
	v->srtt_us = 40000;
	v->in_flight = 2;
	v->now_us = t;
	v->write_seq += written;		/* already sent */
	cu->state = IMTCP_STATE_EMPTY;
	step_as_module(cu, v);
	cu->deadline_us = t + 30000;
	return cu->state == IMTCP_STATE_STORE;
}

/*
 * The stream of the hold begun at @t has left; all that waits is the
 * frame's partial segment. Returns the state the next ACK leads to.
 */
static u32 tail_after_stream(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			     u32 t)
{
	cu->state = IMTCP_STATE_EMPTY;
	cu->stream = 1;
	v->unsent = 0;
	v->held = 1;
	v->now_us = t + 25000;
	step_as_module(cu, v);
	return cu->state;
}

/*
 * The same for a stream whose hold began with nothing held, waiting for
 * the next frame, and that the frame's write ended at once (how nearly
 * every stream of a media sender begins): it came whole from the write,
 * so once it has left, the frame's partial segment is not held for the
 * next stream. A hold whose segments came in small writes, one step
 * each, or in a write with no quiet time before it (a writer its send
 * buffer paces), still holds that tail.
 */
TEST(no_hold_for_the_tail_of_a_frame_that_ended_a_hold)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v;
	u32 t = 10000, i;

	ASSERT_TRUE(hold_of_nothing(&cu, &v, t, 0));
	frame_at(&cu, &v, 17, t + 5000);	/* the frame ends it */
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(IMTCP_STATE_EMPTY, tail_after_stream(&cu, &v, t));

	/* the same write without a quiet time before it: the buffer's */
	ASSERT_TRUE(hold_of_nothing(&cu, &v, t, 2 * 1448));
	frame_at(&cu, &v, 17, t + 1000);	/* 1 ms after the last write */
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(IMTCP_STATE_STORE, tail_after_stream(&cu, &v, t));

	/* the same frame in writes of one segment, a step each */
	ASSERT_TRUE(hold_of_nothing(&cu, &v, t, 0));
	for (i = 1; i <= 17 && cu.state == IMTCP_STATE_STORE; i++) {
		v.now_us = t + 5000 + i;
		v.write_seq += 1448;
		v.unsent = i;
		v.held = i;
		step_as_module(&cu, &v);
	}
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(IMTCP_STATE_STORE, tail_after_stream(&cu, &v, t));
}

/*
 * The same ends, from a writer that waits for room in its send buffer
 * meanwhile (loopback, where the window outgrows the buffer): the writes
 * are the buffer's, not the application's, and shorten nothing.
 */
TEST(a_writer_waiting_for_its_buffer_does_not_shorten)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t;

	for (t = 10000; t < 10000 + 4 * FRAME_GAP_US; t += FRAME_GAP_US) {
		v.writer_waits = false;
		frame_at(&cu, &v, 8, t);
		v.writer_waits = true;		/* it waits */
		v.now_us = t + 2000;
		v.in_flight = 0;
		step_as_module(&cu, &v);
		v.now_us = t + 40000;		/* an ACK makes room */
		step_as_module(&cu, &v);
	}
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(N, cu.m);
}

/*
 * A hold that began with one frame's last (partial) segment and gathered
 * the next frame of 9 holds 10 = N: streams of N formed every other
 * time, and the failures between never came two in a row (traced: the
 * estimate froze for 9 s). The writes say 9 however the holds end.
 */
TEST(a_partial_segment_and_the_next_frame_do_not_make_n)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000, i;

	for (i = 0; i < 6; i++, t += 40000) {
		frame_at(&cu, &v, 9, t);
		v.held = 10;			/* and the last one's partial */
		if (cu.state == IMTCP_STATE_STORE)
			step_as_module(&cu, &v);
		v.now_us = t + QUIET_US;
		v.held = 0;
		v.unsent = 0;
		v.in_flight = 0;
		cu.state = IMTCP_STATE_EMPTY;	/* whatever came of it */
		cu.stream = 0;
		step_as_module(&cu, &v);
	}
	EXPECT_EQ(9, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(9, cu.m);
}

/*
 * Writes of N bring N back; writes of N or more never shorten. Writes
 * longer than N: streams as long as the writes, up to IMTCP_N_MAX.
 */
TEST(writes_set_the_length_both_ways)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000;

	short_frame(&cu, &v, 8, t);
	short_frame(&cu, &v, 8, t += FRAME_GAP_US);
	short_frame(&cu, &v, N, t += FRAME_GAP_US);
	ASSERT_EQ(8, imtcp_cu_stream_len(&cu));
	ASSERT_EQ(8, cu.m);
	short_frame(&cu, &v, N, t += FRAME_GAP_US);
	EXPECT_EQ(8, imtcp_cu_stream_len(&cu));	/* 8 and N: 8 */
	short_frame(&cu, &v, N + 5, t += FRAME_GAP_US);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	short_frame(&cu, &v, N + 5, t += FRAME_GAP_US);
	short_frame(&cu, &v, 4 * IMTCP_N_MAX, t += FRAME_GAP_US);
	EXPECT_EQ(N + 5, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(8, cu.m);			/* m only shrinks so */
	short_frame(&cu, &v, 4 * IMTCP_N_MAX, t += FRAME_GAP_US);
	short_frame(&cu, &v, 1, t += FRAME_GAP_US);
	EXPECT_EQ(IMTCP_N_MAX, imtcp_cu_stream_len(&cu));
}

/*
 * Not from writes: a sender the window limits (its streams are N long
 * whatever it writes), and writes too short for any stream (fewer than
 * IMTCP_WRITE_SEGS_MIN segments).
 */
TEST(only_application_limited_writes_of_n_min_set_the_length)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000, i;

	for (i = 0; i < 4; i++, t += FRAME_GAP_US)
		short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN - 1, t);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	EXPECT_EQ(N, cu.m);
	for (i = 0; i < 4; i++, t += FRAME_GAP_US) {
		frame_at(&cu, &v, 6, t);
		v.unsent = 1000;		/* the window keeps data back */
		v.now_us = t + QUIET_US;
		step_as_module(&cu, &v);
	}
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
	cu.n_writes = 6;
	cu.state = IMTCP_STATE_STORE;
	v.held = N;
	v.now_us += 1000;
	step_as_module(&cu, &v);
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));	/* the window's: N */
}

/* A frame of @segs at @t_us that the window cuts (slow start). */
static void window_cut_frame(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			     u32 segs, u32 t_us)
{
	v->slow_start = true;
	frame_at(cu, v, segs, t_us);
	v->unsent = 1000;			/* the window keeps data back */
	v->now_us = t_us + QUIET_US;
	step_as_module(cu, v);
}

/*
 * A bulk sender after its slow start, its writer late: a write of 40
 * segments after a quiet time finds the window limiting the sender (its
 * data waited meanwhile). That is no frame: the streams stay N long, and
 * a length taken in slow start is forgotten.
 */
TEST(a_late_writer_the_window_limits_makes_no_first_length)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000;

	window_cut_frame(&cu, &v, 17, t);
	frame_at(&cu, &v, 17, t += FRAME_GAP_US);
	ASSERT_EQ(IMTCP_N_MAX, imtcp_cu_stream_len(&cu));	/* slow start */
	v.slow_start = false;			/* a loss ended it */
	v.unsent = 1000;
	v.in_flight = v.cwnd;
	v.now_us = t + QUIET_US;
	step_as_module(&cu, &v);		/* the window limits it */
	frame_at(&cu, &v, 40, t += FRAME_GAP_US);
	v.unsent = 1000;
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
}

/*
 * A media sender's first frames in slow start: the window keeps part of
 * each back, so no two finished writes tell the length. Until they do,
 * a measurement's streams are as long as the last write that came after
 * a quiet time (up to IMTCP_N_MAX), N if that brought N or fewer; a
 * stream the window makes forgets it.
 */
TEST(a_first_measurement_is_as_long_as_the_last_write)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000, i;

	for (i = 0; i < 2; i++, t += FRAME_GAP_US)
		window_cut_frame(&cu, &v, 17, t);
	EXPECT_EQ(0, cu.n_writes);		/* not known */
	EXPECT_EQ(IMTCP_N_MAX, imtcp_cu_stream_len(&cu));
	frame_at(&cu, &v, 17, t);
	cu.state = IMTCP_STATE_STORE;
	v.held = 17;
	v.now_us = t + 100;
	step_as_module(&cu, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(IMTCP_N_MAX, imtcp_cu_stream_len(&cu));

	cu = started();
	v = writes(0);
	t = 10000;
	window_cut_frame(&cu, &v, 17, t);
	frame_at(&cu, &v, N, t += FRAME_GAP_US);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));	/* N or fewer: N */
	frame_at(&cu, &v, 12, t += FRAME_GAP_US);
	v.now_us = t + QUIET_US;
	step_as_module(&cu, &v);
	frame_at(&cu, &v, 12, t += FRAME_GAP_US);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));	/* two told: N and 12 */

	cu = started();
	v = writes(0);
	t = 10000;
	window_cut_frame(&cu, &v, 17, t);
	frame_at(&cu, &v, 17, t += FRAME_GAP_US);
	ASSERT_EQ(IMTCP_N_MAX, imtcp_cu_stream_len(&cu));
	cu.state = IMTCP_STATE_STORE;
	v.held = N;
	v.unsent = 1000;			/* a stream the window makes */
	v.now_us = t + 100;
	step_as_module(&cu, &v);
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(IMTCP_N_MAX, imtcp_cu_stream_len(&cu));	/* kept */
	cu.state = IMTCP_STATE_PASS;		/* the measurement ends */
	v.acked = 1;
	v.now_us += 100;
	EXPECT_TRUE(step_as_module(&cu, &v) & IMTCP_CU_MEASURED);
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));
}

/*
 * Writes are short (imtcp_cu_writes_short: no stream of theirs shows A)
 * after two finished writes in a row each shorter than
 * IMTCP_WRITE_SEGS_MIN, not after one (a small frame between large ones);
 * no longer after a write of IMTCP_WRITE_SEGS_MIN, nor once the window
 * holds a write back (a bulk sender's writes are the window's).
 */
TEST(writes_are_short_after_two_short_writes)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t = 10000, i;

	EXPECT_FALSE(imtcp_cu_writes_short(&cu));
	short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN, t);
	short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN - 2, t += FRAME_GAP_US);
	short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN - 1, t += FRAME_GAP_US);
	EXPECT_FALSE(imtcp_cu_writes_short(&cu));	/* one was long */
	short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN - 1, t += FRAME_GAP_US);
	EXPECT_TRUE(imtcp_cu_writes_short(&cu));
	EXPECT_EQ(N, imtcp_cu_stream_len(&cu));		/* as before */
	short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN, t += FRAME_GAP_US);
	EXPECT_TRUE(imtcp_cu_writes_short(&cu));	/* not finished yet */
	short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN - 1, t += FRAME_GAP_US);
	EXPECT_FALSE(imtcp_cu_writes_short(&cu));
	for (i = 0; i < 2; i++)
		short_frame(&cu, &v, 3, t += FRAME_GAP_US);
	short_frame(&cu, &v, 3, t += FRAME_GAP_US);
	ASSERT_TRUE(imtcp_cu_writes_short(&cu));
	frame_at(&cu, &v, 6, t += FRAME_GAP_US);
	v.unsent = 1000;			/* the window keeps data back */
	v.now_us = t + QUIET_US;
	step_as_module(&cu, &v);
	EXPECT_FALSE(imtcp_cu_writes_short(&cu));
}

/*
 * While the writes are short no measurement starts (a hold would only
 * delay the frame); once a write of IMTCP_WRITE_SEGS_MIN or more is
 * finished, the next frame's hold begins again.
 */
TEST(short_writes_start_no_measurement)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = writes(0);
	u32 t_us = 10000, i;

	for (i = 0; i < 3; i++)
		short_frame(&cu, &v, IMTCP_WRITE_SEGS_MIN - 2,
			    t_us += FRAME_GAP_US);
	ASSERT_TRUE(imtcp_cu_writes_short(&cu));
	frame_at(&cu, &v, IMTCP_WRITE_SEGS_MIN - 2, t_us += FRAME_GAP_US);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.now_us = t_us + QUIET_US;
	v.in_flight = 0;
	step_as_module(&cu, &v);
	frame_at(&cu, &v, N, t_us += FRAME_GAP_US);	/* long, not finished */
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.now_us = t_us + QUIET_US;
	v.in_flight = 0;
	step_as_module(&cu, &v);
	frame_at(&cu, &v, N - 2, t_us += FRAME_GAP_US);
	EXPECT_FALSE(imtcp_cu_writes_short(&cu));
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

/*
 * The reason shown without an estimate: writes-short outranks
 * holds-failing, and where the writes stop being short while holds
 * fail, holds-failing takes over in the same call (asked in two steps,
 * the other way round, the socket said nothing until its next ACK).
 */
TEST(reason_goes_from_writes_short_to_holds_failing_at_once)
{
	struct imtcp_cu cu = started();

	EXPECT_EQ(IMTCP_REASON_NONE,
		  imtcp_cu_reason(&cu, IMTCP_REASON_NONE, false));
	cu.failures = IMTCP_HOLDS_FAILING;
	cu.writes_short = 1;
	EXPECT_EQ(IMTCP_REASON_WRITES_SHORT,
		  imtcp_cu_reason(&cu, IMTCP_REASON_NONE, false));
	EXPECT_EQ(IMTCP_REASON_WRITES_SHORT,
		  imtcp_cu_reason(&cu, IMTCP_REASON_HOLDS_FAILING, false));
	cu.writes_short = 0;
	EXPECT_EQ(IMTCP_REASON_HOLDS_FAILING,
		  imtcp_cu_reason(&cu, IMTCP_REASON_WRITES_SHORT, false));
	imtcp_cu_estimated(&cu);	/* a result: holds no longer fail */
	EXPECT_EQ(IMTCP_REASON_NONE,
		  imtcp_cu_reason(&cu, IMTCP_REASON_HOLDS_FAILING, false));
}

/*
 * Under an estimate shown no reason begins, and one whose cause ended
 * ends; the envelope's reason is left to the envelope.
 */
TEST(reason_under_an_estimate_and_the_envelope)
{
	struct imtcp_cu cu = started();

	cu.failures = IMTCP_HOLDS_FAILING;
	cu.writes_short = 1;
	EXPECT_EQ(IMTCP_REASON_NONE,
		  imtcp_cu_reason(&cu, IMTCP_REASON_NONE, true));
	EXPECT_EQ(IMTCP_REASON_WRITES_SHORT,
		  imtcp_cu_reason(&cu, IMTCP_REASON_WRITES_SHORT, true));
	cu.writes_short = 0;
	EXPECT_EQ(IMTCP_REASON_NONE,
		  imtcp_cu_reason(&cu, IMTCP_REASON_WRITES_SHORT, true));
	EXPECT_EQ(IMTCP_REASON_ENVELOPE,
		  imtcp_cu_reason(&cu, IMTCP_REASON_ENVELOPE, false));
	cu.failures = 0;
	EXPECT_EQ(IMTCP_REASON_ENVELOPE,
		  imtcp_cu_reason(&cu, IMTCP_REASON_ENVELOPE, true));
}

TEST(m_shrinks_after_f_good_measurements)
{
	struct imtcp_cu cu = started();
	u32 i;

	for (i = 0; i < 2 * (N - IMTCP_M_MIN) + 4; i++)
		imtcp_cu_result(&cu, true);
	EXPECT_EQ(IMTCP_M_MIN, cu.m);
	cu.m = 6;
	imtcp_cu_result(&cu, true);
	imtcp_cu_result(&cu, false);
	imtcp_cu_result(&cu, true);
	EXPECT_EQ(6, cu.m);		/* F = 2 in a row */
	imtcp_cu_result(&cu, true);
	EXPECT_EQ(5, cu.m);
}

TEST(m_never_exceeds_n)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	cu.state = IMTCP_STATE_SEND;
	v.slot_due = true;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(N, cu.m);
}

TEST(off_whenever_measurement_is_impossible)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 s;

	for (s = IMTCP_STATE_STORE; s < __IMTCP_STATE_MAX; s++) {
		cu.state = s;
		cu.stream = 2;
		v.can_measure = false;
		EXPECT_EQ(IMTCP_CU_CHANGED |
			  (s == IMTCP_STATE_PASS ? IMTCP_CU_MEASURED : 0),
			  imtcp_cu_step(&cu, N, K, &v));
		EXPECT_EQ(IMTCP_STATE_OFF, cu.state);
		EXPECT_EQ(0, cu.stream);
		v.can_measure = true;
		imtcp_cu_step(&cu, N, K, &v);
		EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	}
}

/*
 * A pause (loss recovery) after every stream has left analyses what the
 * ACKs brought so far; a pause during a hold or a stream does not, nor
 * one that ends a measurement begun in slow start.
 */
TEST(a_pause_after_all_streams_left_analyses_them)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 s;

	for (s = IMTCP_STATE_OFF; s < __IMTCP_STATE_MAX; s++) {
		u32 want = s == IMTCP_STATE_OFF ? 0 : IMTCP_CU_CHANGED;

		if (s == IMTCP_STATE_PASS)
			want |= IMTCP_CU_MEASURED;
		cu.state = s;
		cu.stream = s == IMTCP_STATE_PASS ? K : 1;
		EXPECT_EQ(want, imtcp_cu_pause(&cu));
		EXPECT_EQ(IMTCP_STATE_OFF, cu.state);
		EXPECT_EQ(0, cu.stream);
	}

	/* begun in slow start: dropped; the next, in congestion avoidance,
	 * analysed again */
	v.slow_start = true;
	v.cwnd = 10 * N;
	v.in_flight = v.cwnd;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.state = IMTCP_STATE_PASS;
	cu.stream = K;
	EXPECT_EQ(IMTCP_CU_CHANGED, imtcp_cu_pause(&cu));
	v.slow_start = false;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.state = IMTCP_STATE_PASS;
	cu.stream = K;
	EXPECT_EQ(IMTCP_CU_MEASURED | IMTCP_CU_CHANGED, imtcp_cu_pause(&cu));
}

TEST(hold_time)
{
	/*
	 * 1448 B at 50 Mbit/s: 231.7 us per segment, m - 1 = 9 of them; one
	 * ACK interval, two segments at the window's 115.8 Mbit/s: 200 us;
	 * + 4 D_RTT
	 */
	EXPECT_EQ(2085 + 200 + 3000,
		  imtcp_hold_us(1448, 50000000, 10, 400, 3000, 40000));
	/* m, not N: four held segments start the stream */
	EXPECT_EQ(695 + 200 + 3000,
		  imtcp_hold_us(1448, 50000000, 4, 400, 3000, 40000));
	/* no estimate and no window known: only the RTT variation */
	EXPECT_EQ(3000, imtcp_hold_us(1448, 0, 10, 0, 3000, 40000));
	/* no estimate yet: the window's rate, 10 segments per 40 ms */
	EXPECT_EQ(3 * 4000 + 2 * 4000 + 3000,
		  imtcp_hold_us(1448, 0, 4, 10, 3000, 40000));
	/* never beyond one srtt */
	EXPECT_EQ(4000, imtcp_hold_us(1448, 1000000, 10, 400, 3000, 4000));
	EXPECT_EQ(40000, imtcp_hold_us(1448, 0, 10, 10, 3000, 40000));
}

/*
 * A window slower than A frees held segments at its own rate: 12
 * segments of 8948 B per 47 ms (18.3 Mbit/s) gather seven more in 27 ms,
 * and one ACK frees two in 7.8 ms, where A = 80 Mbit/s would allow 6 ms
 * and the hold would end first.
 */
TEST(hold_time_follows_a_slow_window)
{
	u32 t = imtcp_hold_us(8948, 80000000, 8, 12, 5000, 47000);

	EXPECT_EQ(27416 + 7833 + 5000, t);
	/* a window faster than A leaves A's time, and its own ACK interval */
	EXPECT_EQ(8053 + 235 + 5000, imtcp_hold_us(8948, 80000000, 10, 400,
						   5000, 47000));
}

/*
 * hold_echo: a measurement whose first hold began at 1 ms and lasted
 * 28 ms (srtt 65 ms), its stream sent; the second stream's hold begins
 * @at_us after the first began, with @unsent segments waiting (more
 * than held: the window limits the sender).
 */
static struct imtcp_cu echo_hold(bool on, u32 at_us, u32 unsent)
{
	struct imtcp_cu cu;
	struct imtcp_cu_view v = bulk();

	imtcp_cu_init(&cu, N);
	imtcp_cu_set_echo(&cu, on);
	v.srtt_us = 65000;
	v.cwnd = 28;
	v.in_flight = 28;
	imtcp_cu_step(&cu, N, K, &v);		/* the first hold, at 1 ms */
	v.now_us += 28000;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);
	v.sent = N;
	imtcp_cu_step(&cu, N, K, &v);
	v.sent = 0;
	v.held = 2;
	v.unsent = unsent;
	v.now_us = 1000 + at_us;
	imtcp_cu_step(&cu, N, K, &v);		/* the second hold */
	return cu;
}

/*
 * The ACK gap of the first hold comes back from 65 to 93 ms after it
 * began: a hold begun at 53 ms waits all of it out, one begun at 75 ms
 * the 18 ms left, one begun after it nothing; always within one srtt,
 * and the gap is free. Not with hold_echo off, nor for a sender whose
 * writes the window does not keep back.
 */
TEST(a_later_hold_waits_out_the_echo_of_the_one_before)
{
	struct imtcp_cu cu = echo_hold(true, 53000, 1000);

	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_EQ(1, cu.stream);
	EXPECT_EQ(28000, cu.echo_us);
	EXPECT_EQ(28000, cu.free_us);
	EXPECT_EQ(35000 + 28000, imtcp_cu_hold_us(&cu, 35000, 65000));
	EXPECT_EQ(65000, imtcp_cu_hold_us(&cu, 40000, 65000));
	EXPECT_EQ(65000, imtcp_cu_hold_us(&cu, 65000, 65000));
	cu = echo_hold(true, 75000, 1000);
	EXPECT_EQ(18000, cu.echo_us);
	EXPECT_EQ(35000 + 18000, imtcp_cu_hold_us(&cu, 35000, 65000));
	cu = echo_hold(true, 93000, 1000);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(0, cu.echo_us);
	EXPECT_EQ(35000, imtcp_cu_hold_us(&cu, 35000, 65000));
	cu = echo_hold(false, 53000, 1000);
	EXPECT_EQ(0, cu.echo_us);
	EXPECT_EQ(35000, imtcp_cu_hold_us(&cu, 35000, 65000));
	cu = echo_hold(true, 53000, 0);
	EXPECT_EQ(0, cu.echo_us);
}

/*
 * A measurement's first hold has no echo of its own: the hold before it
 * was the last measurement's.
 */
TEST(a_first_hold_waits_for_no_echo)
{
	struct imtcp_cu cu = echo_hold(true, 53000, 1000);
	struct imtcp_cu_view v = bulk();

	v.srtt_us = 65000;
	v.cwnd = 28;
	v.in_flight = 28;
	v.now_us = 54000;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);		/* the second stream */
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	v.sent = N;
	imtcp_cu_step(&cu, N, K, &v);		/* K = 4: the third's hold */
	v.sent = 0;
	v.held = 2;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_EQ(2, cu.stream);
	EXPECT_EQ(0, cu.echo_us);	/* the second hold lasted 0: no gap */
	imtcp_cu_pause(&cu);
	v.now_us = 60000;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_EQ(0, cu.stream);
	EXPECT_EQ(0, cu.echo_us);
}

/*
 * Run one measurement from STORE: each of the K holds lasts @hold_us
 * with a segment waiting from its start (a window-limited sender), each
 * stream leaves at once. Returns the flags of the last step.
 */
static u32 measure_once(struct imtcp_cu *cu, struct imtcp_cu_view *v,
			u32 hold_us)
{
	u32 i, f;

	for (i = 0; i < K; i++) {
		if (cu->state != IMTCP_STATE_STORE)
			return 0;
		cu->deadline_us = v->now_us + 1000000;
		v->held = 1;
		imtcp_cu_step(cu, N, K, v);		/* one waits */
		v->now_us += hold_us;
		v->held = N;
		imtcp_cu_step(cu, N, K, v);		/* -> SEND */
		v->sent = N;
		imtcp_cu_step(cu, N, K, v);		/* -> EMPTY / PASS */
		v->held = 0;
		v->sent = 0;
		if (cu->state == IMTCP_STATE_EMPTY)
			imtcp_cu_step(cu, N, K, v);	/* -> STORE */
	}
	if (cu->state != IMTCP_STATE_PASS)
		return 0;
	v->acked = true;
	f = imtcp_cu_step(cu, N, K, v);
	v->acked = false;
	return f;
}

/*
 * A control unit with a hold budget of @percent and @free measurements
 * that may start in debt, stepped once with @v (into STORE for a bulk
 * view).
 */
static struct imtcp_cu budgeted_free(u32 percent, u32 free,
				     const struct imtcp_cu_view *v)
{
	struct imtcp_cu cu;

	imtcp_cu_init(&cu, N);
	imtcp_cu_set_budget(&cu, percent);
	imtcp_cu_set_free_starts(&cu, free);
	imtcp_cu_step(&cu, N, K, v);
	return cu;
}

static struct imtcp_cu budgeted(u32 percent, const struct imtcp_cu_view *v)
{
	return budgeted_free(percent, 0, v);
}

TEST(unlimited_budget_measures_back_to_back)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();
	u32 f;

	v.srtt_us = 40000;
	f = measure_once(&cu, &v, 5000);
	EXPECT_TRUE(f & IMTCP_CU_MEASURED);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(4 * 5000, cu.cost_us);
}

TEST(budget_spaces_measurements_by_their_cost)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 f, end;

	v.srtt_us = 40000;
	cu = budgeted(10, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	f = measure_once(&cu, &v, 1000);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	/* 4 ms held, 4 ms passed: 4000 * 10 - 4000 * 100 in debt */
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	EXPECT_EQ(-360000, cu.credit);
	/* paid off at 10 % of the time: 36 ms of not holding */
	end = v.now_us;
	v.now_us = end + 35900;
	EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.now_us = end + 36000;
	EXPECT_EQ(IMTCP_CU_CHANGED, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

TEST(budget_never_stops_a_started_measurement)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	cu = budgeted(1, &v);
	/* 30 ms holds put it deep in debt after the first stream */
	EXPECT_TRUE(measure_once(&cu, &v, 30000) & IMTCP_CU_MEASURED);
	EXPECT_EQ(4 * 30000, cu.cost_us);
}

/*
 * OFF is for a pause only: once measurement is possible again, a
 * connection that may not hold yet waits in EMPTY (traced after a loss
 * recovery: 'off' for 3-4 s of a budget in debt, with the stack in Open).
 */
TEST(off_ends_when_measurement_is_possible)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	cu = budgeted(10, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_TRUE(measure_once(&cu, &v, 1000) & IMTCP_CU_MEASURED);
	ASSERT_TRUE(cu.credit < 0);
	v.can_measure = false;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_OFF, cu.state);
	v.can_measure = true;
	v.now_us += 100;
	EXPECT_EQ(IMTCP_CU_CHANGED, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);	/* in debt */

	cu = started();
	v = bulk();
	v.can_measure = false;
	imtcp_cu_step(&cu, N, K, &v);
	v.can_measure = true;
	v.cwnd = N;				/* a window too small */
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

TEST(a_standing_queue_pays_for_holds)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	v.queue_us = 2000;
	cu = budgeted(1, &v);
	EXPECT_TRUE(measure_once(&cu, &v, 1500) & IMTCP_CU_MEASURED);
	EXPECT_EQ(0, cu.cost_us);
	EXPECT_EQ(4 * 1500, cu.held_us);	/* held all the same */
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);	/* at once, nothing owed */
	/* a hold longer than the queue pays for the rest */
	EXPECT_TRUE(measure_once(&cu, &v, 2500) & IMTCP_CU_MEASURED);
	EXPECT_EQ(4 * 500, cu.cost_us);
	EXPECT_EQ(4 * 1500 + 4 * 2500, cu.held_us);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

TEST(a_stream_is_charged_only_beyond_the_window_rate)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	v.srtt_us = 40000;
	v.seg_us = 1000;			/* 40 segments per 40 ms */
	cu.deadline_us = v.now_us + 100000;
	v.held = 1;
	imtcp_cu_step(&cu, N, K, &v);
	v.now_us += 1000;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);		/* 1 ms in STORE -> SEND */
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	v.now_us += 4000;
	v.sent = 5;
	imtcp_cu_step(&cu, N, K, &v);		/* 5 sent in 4 ms: no charge */
	EXPECT_EQ(1000, cu.cost_us);
	v.now_us += 8000;
	v.sent = 8;
	imtcp_cu_step(&cu, N, K, &v);		/* 8 in 12 ms: 4 ms late */
	EXPECT_EQ(1000 + 4000, cu.cost_us);
	v.now_us += 1000;
	v.sent = N;
	imtcp_cu_step(&cu, N, K, &v);		/* 10 in 13 ms: 3 ms late */
	EXPECT_EQ(1000 + 4000, cu.cost_us);	/* never charged back */
	EXPECT_EQ(1000, cu.held_us);
	EXPECT_EQ(13000, cu.stream_us);
}

/* What the standing queue did not spend on the hold pays for the stream. */
TEST(a_standing_queue_pays_for_a_slow_stream)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	v.seg_us = 1000;
	v.queue_us = 6000;
	cu = budgeted(1, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.deadline_us = v.now_us + 100000;
	v.held = 1;
	imtcp_cu_step(&cu, N, K, &v);
	v.now_us += 1000;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);		/* 1 ms held, queue pays */
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(0, cu.cost_us);
	v.now_us += 8000;
	v.sent = 4;
	imtcp_cu_step(&cu, N, K, &v);		/* 4 ms late: queue pays */
	EXPECT_EQ(0, cu.cost_us);
	v.now_us += 4000;
	v.sent = 6;
	imtcp_cu_step(&cu, N, K, &v);		/* 6 ms late: 1 ms left */
	EXPECT_EQ(1000, cu.cost_us);
	EXPECT_EQ(1000, cu.held_us);
}

/* A control unit with charge_gap on and a 1 % budget, stepped once on @v. */
static struct imtcp_cu gap_budgeted(const struct imtcp_cu_view *v)
{
	struct imtcp_cu cu;

	imtcp_cu_init(&cu, N);
	imtcp_cu_set_budget(&cu, 1);
	imtcp_cu_set_charge_gap(&cu, true);
	imtcp_cu_step(&cu, N, K, v);
	return cu;
}

/*
 * A hold of N on a window of @cwnd, its gap growing by an ACK of two
 * segments every 4 ms, then its stream sent within 1 ms, which puts the
 * window back in flight; charge_gap on. Returns the charge of the hold
 * in @hold_us and of the whole in the return value.
 */
static u64 gap_hold_and_stream(struct __test_metadata *_metadata, u32 cwnd,
			       u64 *hold_us)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 i;

	v.srtt_us = 40000;
	v.seg_us = v.srtt_us / cwnd;		/* the window's own rate */
	v.cwnd = cwnd;
	v.in_flight = cwnd;
	cu = gap_budgeted(&v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.deadline_us = v.now_us + 100000;
	for (i = 1; i <= N / 2; i++) {
		v.now_us += 4000;
		v.held = 2 * i;
		v.in_flight = cwnd - 2 * i;
		imtcp_cu_step(&cu, N, K, &v);
	}
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(20000, cu.held_us);		/* held all the same */
	*hold_us = cu.cost_us;
	v.now_us += 1000;
	v.sent = N;
	v.held = 0;
	v.in_flight = cwnd;
	imtcp_cu_step(&cu, N, K, &v);
	return cu.cost_us;
}

/*
 * charge_gap: on a window of 4 N, a hold costs the mean share of the
 * window it kept out of flight (an eighth of its 20 ms), and its stream
 * what it left out until the window was back in flight; on a thinner
 * window the hold is charged in full, as without it.
 */
TEST(charge_gap_charges_the_share_of_the_window_held_back)
{
	u64 hold_us, all_us;

	all_us = gap_hold_and_stream(_metadata, 4 * N, &hold_us);
	EXPECT_EQ(2500, hold_us);		/* 20 ms x 10 / (2 x 40) */
	EXPECT_EQ(2500 + 125, all_us);		/* 1 ms x (25 % + 0) / 2 */
	all_us = gap_hold_and_stream(_metadata, 4 * N - 1, &hold_us);
	EXPECT_EQ(20000, hold_us);
	EXPECT_EQ(20000, all_us);		/* a stream in time: nothing */
}

/*
 * charge_gap: half the window out of flight for 6 ms is 3 ms of a full
 * stop, of which the standing queue pays the first 1 ms; an
 * application-limited sender pays nothing.
 */
TEST(charge_gap_the_queue_pays_first_and_apps_pay_nothing)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	v.in_flight = 20;			/* of 40 */
	v.queue_us = 1000;
	cu = gap_budgeted(&v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	cu.deadline_us = v.now_us + 100000;
	v.held = 1;
	v.now_us += 6000;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(2000, cu.cost_us);
	v.unsent = v.held;			/* all it has may leave */
	imtcp_cu_step(&cu, N, K, &v);
	v.now_us += 3000;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(2000, cu.cost_us);
}

TEST(an_idle_hold_costs_at_most_one_rtt)
{
	struct imtcp_cu cu = started();
	struct imtcp_cu_view v = bulk();

	v.srtt_us = 40000;
	cu.deadline_us = v.now_us + 1000;
	v.held = 1;
	imtcp_cu_step(&cu, N, K, &v);		/* a segment waits */
	v.now_us += 5000000;			/* nothing happened for 5 s */
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(40000, cu.cost_us);
}

/*
 * An application-limited sender with nothing written, in STORE under a
 * 1 % budget, 30 ms into its hold.
 */
static struct imtcp_cu idle_30ms_in_store(struct imtcp_cu_view *v)
{
	struct imtcp_cu cu;

	v->srtt_us = 40000;
	v->unsent = 0;
	cu = budgeted(1, v);
	cu.deadline_us = v->now_us + 100000;
	v->now_us += 30000;
	return cu;
}

/*
 * An application-limited sender: a hold costs nothing while nothing
 * waits, nor while what the application wrote fits in the window, and
 * neither does a slow stream; a write that the window keeps back is
 * charged as a bulk sender's.
 */
TEST(a_hold_costs_nothing_while_the_window_does_not_limit)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	cu = idle_30ms_in_store(&v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	v.unsent = 3;				/* a write arrives */
	v.held = 3;
	v.write_seq += 3 * 1448;
	EXPECT_EQ(0, imtcp_cu_step(&cu, N, K, &v));
	v.now_us += 2000;			/* the next one, 2 ms on */
	v.write_seq += (N - 3) * 1448;
	v.unsent = N;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(0, cu.cost_us);
	EXPECT_EQ(32000, cu.held_us);
	EXPECT_EQ(32000 * 1, cu.credit);	/* earned, not spent */
	v.seg_us = 100;
	v.sent = 5;
	v.unsent = N - 5;
	v.held = N - 5;
	v.now_us += 10000;			/* 5 segments in 10 ms */
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(0, cu.cost_us);
	EXPECT_EQ(10000, cu.stream_us);
}

/* A write larger than the window's room costs while it waits. */
TEST(a_write_the_window_keeps_back_costs_its_hold)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	cu = idle_30ms_in_store(&v);
	v.unsent = 60;				/* 60 written, room for 3 */
	v.held = 3;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(0, cu.cost_us);		/* the idle 30 ms */
	v.now_us += 2000;
	v.held = N;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(2000, cu.cost_us);
	v.seg_us = 100;
	v.sent = 5;
	v.now_us += 10000;			/* 9.5 ms beyond 5 x 100 us */
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(2000 + 9500, cu.cost_us);
}

/* The same hold with data waiting all along is charged in full. */
TEST(a_hold_with_data_waiting_costs_its_time)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	cu = budgeted(1, &v);
	cu.deadline_us = v.now_us + 100000;
	v.now_us += 30000;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(30000, cu.cost_us);
	EXPECT_TRUE(cu.credit < 0);
}

TEST(free_starts_begin_in_debt_and_are_charged)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 f;

	v.srtt_us = 40000;
	cu = budgeted_free(10, 2, &v);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	f = measure_once(&cu, &v, 1000);	/* needed no free start */
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	EXPECT_EQ(4 * 1000, cu.cost_us);
	EXPECT_TRUE(cu.credit < 0);
	/* in debt, the next starts at once all the same, twice */
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(1, cu.free_starts);
	f = measure_once(&cu, &v, 1000);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(0, cu.free_starts);
	f = measure_once(&cu, &v, 1000);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	/* all three paid; now the debt waits */
	EXPECT_EQ(3 * 4 * 1000, cu.cost_us);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

TEST(a_failed_hold_uses_a_free_start)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	/* 1 %: the rest after a failed hold does not pay the debt off */
	cu = budgeted_free(1, 2, &v);
	measure_once(&cu, &v, 1000);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	ASSERT_EQ(1, cu.free_starts);
	/* the hold runs out with nothing gathered */
	cu.deadline_us = v.now_us;
	imtcp_cu_step(&cu, N, K, &v);
	ASSERT_EQ(IMTCP_STATE_EMPTY, cu.state);
	v.now_us += v.srtt_us;			/* after its rest */
	imtcp_cu_step(&cu, N, K, &v);		/* tries once more */
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(0, cu.free_starts);
	cu.deadline_us = v.now_us;
	imtcp_cu_step(&cu, N, K, &v);
	v.now_us += v.srtt_us;
	imtcp_cu_step(&cu, N, K, &v);		/* in debt: waits */
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
}

TEST(an_estimate_ends_the_free_starts)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 f;

	v.srtt_us = 40000;
	cu = budgeted_free(10, 8, &v);
	f = measure_once(&cu, &v, 1000);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	imtcp_cu_estimated(&cu);		/* its result came */
	EXPECT_EQ(0, cu.free_starts);
	cu.state = IMTCP_STATE_PASS;			/* the same end again */
	v.acked = true;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);	/* in debt: waits */
}

/* From EMPTY at @credit: does a new measurement start (STORE)? */
static bool starts_at(struct imtcp_cu *cu, struct imtcp_cu_view *v,
		      s64 credit)
{
	cu->state = IMTCP_STATE_EMPTY;
	cu->credit = credit;
	imtcp_cu_step(cu, N, K, v);
	return cu->state == IMTCP_STATE_STORE;
}

/*
 * The deepest credit a borrowing start may begin at, for a connection of
 * budgeted(10, @v): IMTCP_OFF_DEBT_RTTS srtt of a 10 % budget.
 */
static s64 borrow_bound(const struct imtcp_cu_view *v)
{
	return -(s64)10 * v->srtt_us * IMTCP_OFF_DEBT_RTTS;
}

/*
 * A result off the estimate (imtcp_cu_off): the next measurement starts
 * in debt, as long as the budget pays that off within
 * IMTCP_OFF_DEBT_RTTS srtt; a result on it ends that.
 */
TEST(a_result_off_the_estimate_borrows_a_bounded_debt)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	s64 bound;
	u32 f;

	v.srtt_us = 40000;
	cu = budgeted(10, &v);
	bound = borrow_bound(&v);
	EXPECT_EQ(IMTCP_OFF_DEBT_RTTS, cu.off_debt_rtts);
	f = measure_once(&cu, &v, 1000);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	ASSERT_TRUE(cu.credit < 0);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);	/* in debt: waits */
	imtcp_cu_off(&cu, true);
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);	/* borrows */
	f = measure_once(&cu, &v, 1000);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	EXPECT_EQ(2 * 4 * 1000, cu.cost_us);	/* charged as any */
	/* deeper than the bound: waits even so */
	EXPECT_FALSE(starts_at(&cu, &v, bound - 1));
	EXPECT_TRUE(starts_at(&cu, &v, bound));
	/* a result on the estimate: debt waits again */
	imtcp_cu_off(&cu, false);
	EXPECT_FALSE(starts_at(&cu, &v, -1000));
}

/*
 * After @grant(true) (imtcp_cu_top, imtcp_cu_below) the next measurement
 * borrows as after a result off the estimate, within the same bound, and
 * not with off_debt_rtts at 0; @grant(false) ends that.
 */
static void grant_borrows(struct __test_metadata *_metadata,
			  void (*grant)(struct imtcp_cu *cu, bool on))
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	s64 bound;

	v.srtt_us = 40000;
	cu = budgeted(10, &v);
	bound = borrow_bound(&v);
	ASSERT_TRUE(measure_once(&cu, &v, 1000) & IMTCP_CU_MEASURED);
	ASSERT_TRUE(cu.credit < 0);
	EXPECT_FALSE(starts_at(&cu, &v, -1));	/* in debt: waits */
	grant(&cu, true);
	EXPECT_TRUE(starts_at(&cu, &v, -1));	/* borrows */
	EXPECT_TRUE(starts_at(&cu, &v, bound));
	EXPECT_FALSE(starts_at(&cu, &v, bound - 1));
	imtcp_cu_set_off_debt(&cu, 0);
	EXPECT_FALSE(starts_at(&cu, &v, -1));
	imtcp_cu_set_off_debt(&cu, IMTCP_OFF_DEBT_RTTS);
	grant(&cu, false);
	EXPECT_FALSE(starts_at(&cu, &v, -1));
}

/*
 * A result at the search range's upper edge (imtcp_cu_top) says only
 * that A lies above the range: the next measurement borrows; a result
 * inside the range ends that.
 */
TEST(a_result_at_the_top_borrows_a_bounded_debt)
{
	grant_borrows(_metadata, imtcp_cu_top);
}

/*
 * A measurement that found A below its range without a result
 * (imtcp_cu_below: the range moved down) lets the next borrow as a
 * result at the top does; a measurement that ends otherwise ends that.
 */
TEST(a_measurement_below_its_range_borrows_a_bounded_debt)
{
	grant_borrows(_metadata, imtcp_cu_below);
}

/*
 * off_ahead: the bound holds for the debt a borrowing start would leave,
 * counting what the latest measurement cost (4 ms of charged hold), not
 * only for the debt it starts in.
 */
TEST(off_ahead_bounds_the_debt_a_start_leaves)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	s64 bound, cost;

	v.srtt_us = 40000;
	cu = budgeted(10, &v);
	imtcp_cu_set_off_ahead(&cu, true);
	bound = borrow_bound(&v);
	ASSERT_TRUE(measure_once(&cu, &v, 1000) & IMTCP_CU_MEASURED);
	EXPECT_EQ(4000, cu.spent_us);
	cost = (s64)cu.spent_us * IMTCP_BUDGET_MAX;
	imtcp_cu_off(&cu, true);
	/* would start within it, end past it */
	EXPECT_FALSE(starts_at(&cu, &v, bound));
	EXPECT_FALSE(starts_at(&cu, &v, bound + cost - 1));
	EXPECT_TRUE(starts_at(&cu, &v, bound + cost));
	/* with no result off the estimate, debt waits as ever */
	imtcp_cu_off(&cu, false);
	EXPECT_FALSE(starts_at(&cu, &v, -1));
}

/*
 * @cu: a connection with prepay at a 10 % budget, srtt 40 ms, after one
 * measurement of 4 ms charged hold (in debt, 36 ms to pay); @v's clock
 * at its end. Returns that measurement's flags (IMTCP_CU_MEASURED).
 */
static u32 prepaid_once(struct imtcp_cu *cu, struct imtcp_cu_view *v)
{
	v->srtt_us = 40000;
	*cu = budgeted(10, v);
	imtcp_cu_set_prepay(cu, true);
	return measure_once(cu, v, 1000);
}

/* The control unit's state after a step at @now_us. */
static u8 state_at(struct imtcp_cu *cu, struct imtcp_cu_view *v,
		   u32 now_us)
{
	v->now_us = now_us;
	imtcp_cu_step(cu, N, K, v);
	return cu->state;
}

/*
 * prepay: a new measurement waits until the credit holds what the latest
 * one cost, not only until the debt is paid; the same 4 ms of charged
 * hold at 10 %: 36 ms to pay the debt, 40 more to save the next's cost.
 */
TEST(prepay_saves_the_latest_cost_first)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 end;

	ASSERT_TRUE(prepaid_once(&cu, &v) & IMTCP_CU_MEASURED);
	EXPECT_EQ(4000, cu.spent_us);
	EXPECT_EQ(-360000, cu.credit);
	end = v.now_us;
	/* out of debt, then just short of the saved cost */
	EXPECT_EQ(IMTCP_STATE_EMPTY, state_at(&cu, &v, end + 36000));
	EXPECT_EQ(IMTCP_STATE_EMPTY, state_at(&cu, &v, end + 75900));
	v.now_us = end + 76000;
	EXPECT_EQ(IMTCP_CU_CHANGED, imtcp_cu_step(&cu, N, K, &v));
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_EQ(0, cu.spent_us);		/* the new one's own */
}

/*
 * A stream at hand (an application-limited sender's write of m, nothing
 * kept back) costs nothing: out of debt is enough. In debt it waits, as
 * without prepay.
 */
TEST(prepay_lets_a_stream_at_hand_start_out_of_debt)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 end;

	ASSERT_TRUE(prepaid_once(&cu, &v) & IMTCP_CU_MEASURED);
	EXPECT_EQ(-360000, cu.credit);
	end = v.now_us;
	v.unsent = N;
	v.held = N;
	/* in debt: waits */
	EXPECT_EQ(IMTCP_STATE_EMPTY, state_at(&cu, &v, end + 35900));
	EXPECT_NE(IMTCP_STATE_EMPTY, state_at(&cu, &v, end + 36000));
}

/*
 * After a result off the estimate or at the range's upper edge (top), A
 * has likely changed: what prepay saved is spent, out of debt is enough
 * (i = 0: neither, it saves; 1: off; 2: top).
 */
TEST(prepay_spends_after_a_result_off_or_at_the_top)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;
	u32 end;
	int i;

	for (i = 0; i < 3; i++) {
		ASSERT_TRUE(prepaid_once(&cu, &v) & IMTCP_CU_MEASURED);
		imtcp_cu_set_off_debt(&cu, 0);		/* no borrowing */
		EXPECT_EQ(-360000, cu.credit);
		end = v.now_us;
		imtcp_cu_off(&cu, i == 1);
		imtcp_cu_top(&cu, i == 2);
		/* in debt: waits; out of debt: starts if spending */
		EXPECT_EQ(IMTCP_STATE_EMPTY, state_at(&cu, &v, end + 35900));
		EXPECT_EQ(i ? IMTCP_STATE_STORE : IMTCP_STATE_EMPTY,
			  state_at(&cu, &v, end + 36000));
	}
}

/*
 * The cost of a measurement begun in the connection's first slow start
 * (no loss yet) is not saved again: the next needs only to be out of
 * debt, as without prepay. One begun in a later slow start (a recovery
 * that left the window below ssthresh) is saved as any (i = 0: first,
 * 1: later).
 */
TEST(prepay_saves_nothing_after_a_first_slow_start_measurement)
{
	struct imtcp_cu_view v;
	struct imtcp_cu cu;
	u32 end;
	int i;

	for (i = 0; i < 2; i++) {
		v = bulk();
		v.slow_start = true;
		v.first_ss = i == 0;
		v.cwnd = 8 * N;			/* past the slow start's 4 N */
		v.in_flight = 8 * N;
		ASSERT_TRUE(prepaid_once(&cu, &v) & IMTCP_CU_MEASURED);
		EXPECT_EQ(4000, cu.spent_us);
		EXPECT_EQ(-360000, cu.credit);
		end = v.now_us;
		v.slow_start = false;
		v.first_ss = false;
		/* in debt: waits; out of debt: starts if not saving */
		EXPECT_EQ(IMTCP_STATE_EMPTY, state_at(&cu, &v, end + 35900));
		EXPECT_EQ(i ? IMTCP_STATE_EMPTY : IMTCP_STATE_STORE,
			  state_at(&cu, &v, end + 36000));
	}
}

/* what it saves is at most 3/4 srtt of hold: the credit holds one srtt */
TEST(prepay_saves_at_most_three_quarters_of_an_srtt)
{
	struct imtcp_cu_view v = bulk();
	struct imtcp_cu cu;

	v.srtt_us = 40000;
	cu = budgeted(10, &v);
	imtcp_cu_set_prepay(&cu, true);
	cu.state = IMTCP_STATE_EMPTY;
	cu.spent_us = 200000;
	cu.credit = (s64)30000 * IMTCP_BUDGET_MAX - 1;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	cu.credit = (s64)30000 * IMTCP_BUDGET_MAX;
	imtcp_cu_step(&cu, N, K, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

TEST(credit_in_microseconds_of_hold)
{
	struct imtcp_cu cu;

	imtcp_cu_init(&cu, N);
	cu.credit = -12345;
	EXPECT_EQ(0, imtcp_cu_credit_us(&cu));	/* 100 %: not budgeted */
	imtcp_cu_set_budget(&cu, 2);
	EXPECT_EQ(-123, imtcp_cu_credit_us(&cu));
	cu.credit = 250000;
	EXPECT_EQ(2500, imtcp_cu_credit_us(&cu));
}

TEST(free_starts_range)
{
	struct imtcp_cu cu;

	imtcp_cu_init(&cu, N);
	EXPECT_EQ(0, cu.free_starts);
	imtcp_cu_set_free_starts(&cu, 1000);
	EXPECT_EQ(IMTCP_FREE_MAX, cu.free_starts);
}

TEST(budget_range)
{
	struct imtcp_cu cu;

	imtcp_cu_init(&cu, N);
	EXPECT_EQ(IMTCP_BUDGET_MAX, cu.budget);
	imtcp_cu_set_budget(&cu, 0);
	EXPECT_EQ(1, cu.budget);
	imtcp_cu_set_budget(&cu, 1000);
	EXPECT_EQ(IMTCP_BUDGET_MAX, cu.budget);
}

/*
 * A bulk sender's measurement of two streams up to PASS with its ACKs
 * in (srtt 40 ms): the step that ends it leaves the next hold begun.
 */
static struct imtcp_cu measured_pair(struct imtcp_cu_view *v)
{
	struct imtcp_cu cu;

	*v = bulk();
	v->srtt_us = 40000;
	imtcp_cu_init(&cu, N);
	imtcp_cu_step(&cu, N, 2, v);		/* OFF -> STORE */
	v->held = N;
	imtcp_cu_step(&cu, N, 2, v);		/* stream 0 */
	v->sent = N;
	imtcp_cu_step(&cu, N, 2, v);
	v->sent = 0;
	imtcp_cu_step(&cu, N, 2, v);		/* its hold, then stream 1 */
	imtcp_cu_step(&cu, N, 2, v);
	v->sent = N;
	imtcp_cu_step(&cu, N, 2, v);
	v->sent = 0;
	v->acked = true;
	return cu;
}

/*
 * Carried over, the newest stream is the next measurement's first: one
 * stream of its own ends it (PASS after one SEND). Only for k = 2, and
 * only before a stream of the next measurement has left.
 */
TEST(a_carried_measurement_sends_one_stream_of_its_own)
{
	struct imtcp_cu_view v;
	struct imtcp_cu cu = measured_pair(&v);
	u32 f;

	ASSERT_EQ(IMTCP_STATE_PASS, cu.state);
	f = imtcp_cu_step(&cu, N, 2, &v);
	ASSERT_TRUE(f & IMTCP_CU_MEASURED);
	ASSERT_EQ(IMTCP_STATE_STORE, cu.state);
	EXPECT_FALSE(imtcp_cu_carry(&cu, 4, N, v.now_us));
	EXPECT_EQ(0, cu.stream);
	cu.limited = 0;				/* its writes set the pace */
	EXPECT_FALSE(imtcp_cu_carry(&cu, 2, N, v.now_us));
	cu.limited = 1;
	cu.app_paced = 1;
	EXPECT_FALSE(imtcp_cu_carry(&cu, 2, N, v.now_us));
	cu.app_paced = 0;
	cu.n_writes = N + 4;			/* the next streams are longer */
	EXPECT_FALSE(imtcp_cu_carry(&cu, 2, N, v.now_us));
	cu.n_writes = 0;
	EXPECT_EQ(0, cu.stream);
	ASSERT_TRUE(imtcp_cu_carry(&cu, 2, N, v.now_us));
	EXPECT_EQ(1, cu.stream);
	EXPECT_TRUE(cu.carried);
	EXPECT_FALSE(imtcp_cu_carry(&cu, 2, N, v.now_us));	/* carried already */
	v.acked = false;
	imtcp_cu_step(&cu, N, 2, &v);
	ASSERT_EQ(IMTCP_STATE_SEND, cu.state);
	EXPECT_EQ(1, cu.stream);
	EXPECT_FALSE(cu.carried);
	EXPECT_FALSE(imtcp_cu_carry(&cu, 2, N, v.now_us));	/* SEND */
	v.sent = N;
	f = imtcp_cu_step(&cu, N, 2, &v);
	EXPECT_TRUE(f & IMTCP_CU_STREAM_DONE);
	EXPECT_EQ(IMTCP_STATE_PASS, cu.state);
	EXPECT_FALSE(imtcp_cu_carry(&cu, 2, N, v.now_us));	/* PASS */
}

/*
 * A carried measurement starts as a new one: in debt, with no free
 * start, it does not begin, where a measurement whose own first stream
 * has left goes on regardless.
 */
TEST(a_carried_measurement_pays_from_the_budget)
{
	struct imtcp_cu_view v;
	struct imtcp_cu cu = measured_pair(&v);

	imtcp_cu_set_budget(&cu, 2);
	imtcp_cu_step(&cu, N, 2, &v);		/* measured; a hold begins */
	cu.state = IMTCP_STATE_EMPTY;		/* as if none had */
	ASSERT_TRUE(imtcp_cu_carry(&cu, 2, N, v.now_us));
	cu.credit = -1000000000;
	cu.free_starts = 0;
	v.acked = false;
	v.now_us += 1000;
	imtcp_cu_step(&cu, N, 2, &v);
	EXPECT_EQ(IMTCP_STATE_EMPTY, cu.state);
	EXPECT_TRUE(cu.carried);

	cu.carried = 0;				/* stream 0 its own */
	imtcp_cu_step(&cu, N, 2, &v);
	EXPECT_EQ(IMTCP_STATE_STORE, cu.state);
}

/*
 * A carried stream that no stream joins within IMTCP_CARRY_RTTS srtt is
 * dropped: the measurement starts anew, with stream 0.
 */
TEST(a_carried_stream_older_than_two_srtt_starts_anew)
{
	struct imtcp_cu_view v;
	struct imtcp_cu cu = measured_pair(&v);
	u32 t;

	imtcp_cu_step(&cu, N, 2, &v);
	cu.state = IMTCP_STATE_EMPTY;
	t = v.now_us;
	ASSERT_TRUE(imtcp_cu_carry(&cu, 2, N, t));
	v.acked = false;
	v.held = 0;
	v.in_flight = 0;			/* nothing to hold */
	v.now_us = t + IMTCP_CARRY_RTTS * v.srtt_us;
	imtcp_cu_step(&cu, N, 2, &v);
	EXPECT_EQ(1, cu.stream);
	EXPECT_TRUE(cu.carried);
	v.now_us++;
	imtcp_cu_step(&cu, N, 2, &v);
	EXPECT_EQ(0, cu.stream);
	EXPECT_FALSE(cu.carried);
}

TEST_HARNESS_MAIN
