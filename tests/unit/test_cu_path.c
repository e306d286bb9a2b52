// SPDX-License-Identifier: GPL-2.0
/*
 * The control unit (kmod/core/imtcp_cu.c) in a closed loop: a bulk sender
 * with a fixed window, a bottleneck that serves its segments at A, a
 * receiver that ACKs every second segment (a lone one after 40 ms), and
 * ACKs that come back with a small random delay. The control unit's
 * holds and streams decide when segments leave, as the module carries
 * them out (a hold: nothing leaves until STORE ends; a stream: one
 * segment per slot; otherwise all the window allows), and the test
 * counts holds that ended without a stream and the goodput against the
 * same sender that never holds.
 *
 * The case: A = 20 Mbit/s, 8948-byte segments, RTT 40 ms, a window of
 * 11 segments (one BDP), ACK delay variation of 1 ms, N = 10, k = 2. A
 * later stream's hold that gathers too little before its deadline must
 * not start again and again: each failed hold leaves a gap in the ACK
 * clock one RTT later that makes the next one fail too.
 */
#include "kselftest_harness.h"
#include "core/imtcp_cu.h"

#define TICK_US		10
#define MAX_ACKS	4096

struct path {
	/* the path */
	double a_bps;
	u32 mss;
	u32 base_rtt_us;
	u32 jitter_us;		/* ACKs arrive up to this much late */
	u32 cwnd;
	u32 budget;		/* hold_budget, percent */
	u32 secs;
	bool measure;
	bool charge_gap;	/* the module's charge_gap */
	bool echo;		/* the module's hold_echo */
	/* the sender */
	u32 snd_una, snd_nxt;
	u64 link_free_us;
	u32 stream_seq, stream_end, stream_sent;
	u64 stream_t0_us;
	/* the receiver */
	u32 rcv_nxt, unacked;
	u64 delack_us;
	u64 ack_us[MAX_ACKS];
	u32 ack_seq[MAX_ACKS];
	u32 ack_head, ack_tail;
	u64 last_ack_us;
	u64 arrive_us[MAX_ACKS];	/* segments on their way, by seq */
	unsigned int seed;
	/* what the test counts */
	u32 holds, holds_expired, run, longest_run, streams, measured;
	u32 failed;
};

static u32 rnd(struct path *p, u32 range)
{
	p->seed = p->seed * 1103515245u + 12345u;
	return range ? (p->seed >> 8) % range : 0;
}

/* The receiver ACKs everything it has, arriving @base_rtt / 2 later. */
static void send_ack(struct path *p, u64 now)
{
	u64 t = now + p->base_rtt_us / 2 + rnd(p, p->jitter_us + 1);

	p->unacked = 0;
	if (t < p->last_ack_us)
		t = p->last_ack_us;	/* ACKs stay in order */
	p->last_ack_us = t;
	p->ack_us[p->ack_tail % MAX_ACKS] = t;
	p->ack_seq[p->ack_tail % MAX_ACKS] = p->rcv_nxt;
	p->ack_tail++;
}

/* A segment reaches the receiver at @now: ACK every second, or later. */
static void receive(struct path *p, u64 now)
{
	p->rcv_nxt++;
	if (++p->unacked == 1)
		p->delack_us = now + 40000;
	if (p->unacked >= 2)
		send_ack(p, now);
}

static void send_one(struct path *p, u64 now)
{
	double svc_us = p->mss * 8 / p->a_bps * 1e6;
	u64 start = p->link_free_us > now ? p->link_free_us : now;

	p->link_free_us = start + (u64)svc_us;
	p->arrive_us[p->snd_nxt % MAX_ACKS] = p->link_free_us +
					       p->base_rtt_us / 2;
	p->snd_nxt++;
}

static u32 room(const struct path *p)
{
	u32 in_flight = p->snd_nxt - p->snd_una;

	return p->cwnd > in_flight ? p->cwnd - in_flight : 0;
}

static void view_of(const struct path *p, const struct imtcp_cu *cu, u64 now,
		    struct imtcp_cu_view *v)
{
	u64 gap_us = (u64)(p->mss * 8 / p->a_bps * 1e6);

	memset(v, 0, sizeof(*v));
	v->now_us = (u32)now;
	v->held = room(p);
	v->unsent = 1000000;
	v->cwnd = p->cwnd;
	v->in_flight = p->snd_nxt - p->snd_una;
	v->can_measure = true;
	v->srtt_us = p->base_rtt_us;
	v->seg_us = p->base_rtt_us / p->cwnd;
	if (cu->state == IMTCP_STATE_SEND) {
		v->sent = p->stream_sent;
		v->slot_due = now >= p->stream_t0_us + p->stream_sent * gap_us;
	}
	v->acked = (s32)(p->snd_una - p->stream_end) >= 0;
}

/* Carry out the state the control unit entered, as imtcp_meas.c does. */
static void enter(struct path *p, struct imtcp_cu *cu, u32 from, u64 now)
{
	if (cu->state == IMTCP_STATE_STORE) {
		u32 t = imtcp_hold_us(p->mss, (u64)p->a_bps, cu->m, p->cwnd,
				      1000, p->base_rtt_us);

		cu->deadline_us = (u32)now +
			imtcp_cu_hold_us(cu, t, p->base_rtt_us);
		p->holds++;
	}
	if (from == IMTCP_STATE_STORE && cu->state == IMTCP_STATE_EMPTY) {
		p->holds_expired++;
		if (++p->run > p->longest_run)
			p->longest_run = p->run;
	}
	if (cu->state == IMTCP_STATE_SEND) {
		p->run = 0;
		p->streams++;
		p->stream_t0_us = now;
		p->stream_seq = p->snd_nxt;
		p->stream_sent = 0;
	}
}

static void step(struct path *p, struct imtcp_cu *cu, u64 now)
{
	struct imtcp_cu_view v;
	u32 from = cu->state, f;

	view_of(p, cu, now, &v);
	f = imtcp_cu_step(cu, 10, 2, &v);
	if (f & IMTCP_CU_STREAM_DONE)
		p->stream_end = p->snd_nxt;
	if (f & IMTCP_CU_FAILED)
		p->failed++;
	if (f & IMTCP_CU_MEASURED) {
		p->measured++;
		imtcp_cu_result(cu, true);
		imtcp_cu_estimated(cu);
	}
	if (f & IMTCP_CU_CHANGED) {
		if (getenv("CU_DEBUG"))
			fprintf(stderr, "%.3f %u->%u m=%u stream=%u room=%u credit=%lld\n", now / 1e6, from, cu->state, cu->m, cu->stream, room(p), (long long)cu->credit);
		enter(p, cu, from, now);
	}
}

/* tcp_write_xmit: what may leave now does. */
static void xmit(struct path *p, struct imtcp_cu *cu, u64 now)
{
	u64 gap_us = (u64)(p->mss * 8 / p->a_bps * 1e6);

	if (!p->measure) {
		while (room(p))
			send_one(p, now);
		return;
	}
	if (cu->state == IMTCP_STATE_STORE || cu->state == IMTCP_STATE_SEND)
		step(p, cu, now);
	if (cu->state == IMTCP_STATE_STORE)
		return;
	if (cu->state == IMTCP_STATE_SEND) {
		if (room(p) && now >= p->stream_t0_us + p->stream_sent * gap_us) {
			send_one(p, now);
			p->stream_sent++;
			step(p, cu, now);
		}
		return;
	}
	while (room(p))
		send_one(p, now);
}

/* Run the path for p->secs; returns the segments delivered. */
static u32 run(struct path *p)
{
	struct imtcp_cu cu;
	u64 now;

	imtcp_cu_init(&cu, 10);
	imtcp_cu_set_budget(&cu, p->budget);
	imtcp_cu_set_charge_gap(&cu, p->charge_gap);
	imtcp_cu_set_echo(&cu, p->echo);
	for (now = 0; now < (u64)p->secs * 1000000; now += TICK_US) {
		bool acked = false;

		while (p->rcv_nxt < p->snd_nxt &&
		       p->arrive_us[p->rcv_nxt % MAX_ACKS] <= now)
			receive(p, p->arrive_us[p->rcv_nxt % MAX_ACKS]);
		if (p->unacked && now >= p->delack_us)
			send_ack(p, now);	/* the delayed ACK of a lone one */
		while (p->ack_head != p->ack_tail &&
		       p->ack_us[p->ack_head % MAX_ACKS] <= now) {
			p->snd_una = p->ack_seq[p->ack_head % MAX_ACKS];
			p->ack_head++;
			acked = true;
		}
		if (acked && p->measure)
			step(p, &cu, now);
		xmit(p, &cu, now);
	}
	return p->snd_una;
}

static struct path thin_window(bool measure, u32 budget)
{
	struct path p = {
		.a_bps = 20e6, .mss = 8948, .base_rtt_us = 40000,
		.jitter_us = 1000, .cwnd = 11, .budget = budget, .secs = 20,
		.measure = measure, .seed = 1,
	};
	return p;
}

/*
 * A window of one BDP, default hold budget: the holds that fail end; the
 * connection keeps nearly all of its goodput and still measures.
 */
TEST(thin_window_holds_do_not_loop)
{
	static struct path plain, meas;
	u32 base, got;

	plain = thin_window(false, 2);
	meas = thin_window(true, 2);
	base = run(&plain);
	got = run(&meas);
	TH_LOG("goodput %.3f of plain; %u holds, %u expired (longest run %u), %u streams, %u measurements",
	       (double)got / base, meas.holds, meas.holds_expired,
	       meas.longest_run, meas.streams, meas.measured);
	EXPECT_GE((double)got / base, 0.9);
	EXPECT_LE(meas.longest_run, 3);
	EXPECT_GE(meas.measured, 1);
}

/*
 * With the whole budget (hold_budget=100: measure without pause) holds
 * that fail still do not run on for ever: every one that expires in a
 * later stream abandons its measurement.
 */
TEST(thin_window_full_budget_abandons_failed_measurements)
{
	static struct path meas;

	meas = thin_window(true, 100);
	run(&meas);
	TH_LOG("%u holds, %u expired (longest run %u), %u streams, %u measurements",
	       meas.holds, meas.holds_expired, meas.longest_run, meas.streams,
	       meas.measured);
	EXPECT_GE(meas.measured, 20);
	EXPECT_LE(meas.longest_run, 3);
}

/*
 * charge_gap in the same loop at MTU 1500: A = 20 Mbit/s, a window of one
 * BDP (69 segments), so a hold of 10 keeps a seventh of it back for a
 * seventh of an RTT. Charged for all of its time, the budget buys few
 * measurements; charged for the share of the window held back, what
 * the connection loses, it buys several times as many for about the
 * same goodput, within the budget's 2 %.
 */
static struct path wide_window(bool measure, bool charge_gap)
{
	struct path p = {
		.a_bps = 20e6, .mss = 1448, .base_rtt_us = 40000,
		.jitter_us = 200, .cwnd = 69, .budget = 2, .secs = 20,
		.measure = measure, .charge_gap = charge_gap, .seed = 1,
	};
	return p;
}

/*
 * Run @plain (no measurement), then @p measuring charged in full and
 * charged by the gap; the goodputs over plain's in @ratio and the
 * measurements in @measured, charged in full first.
 */
static void full_and_gap(struct __test_metadata *_metadata,
			 const struct path *plain, const struct path *p,
			 double ratio[2], u32 measured[2])
{
	static struct path runs[3];
	u32 base, i;

	runs[0] = *plain;
	base = run(&runs[0]);
	for (i = 0; i < 2; i++) {
		runs[i + 1] = *p;
		runs[i + 1].charge_gap = i;
		ratio[i] = (double)run(&runs[i + 1]) / base;
		measured[i] = runs[i + 1].measured;
	}
	TH_LOG("charged in full: goodput %.4f of plain, %u measurements; by the gap: %.4f, %u",
	       ratio[0], measured[0], ratio[1], measured[1]);
}

TEST(charge_gap_buys_more_measurements_for_the_same_cost)
{
	static struct path plain, p;
	double ratio[2];
	u32 measured[2];

	plain = wide_window(false, false);
	p = wide_window(true, false);

	full_and_gap(_metadata, &plain, &p, ratio, measured);
	EXPECT_GE(ratio[1], 0.975);
	EXPECT_GE(measured[1], 2 * measured[0]);
}

/*
 * charge_gap where a hold takes nearly the whole window (the thin window
 * above, under 4 N): charged in full as without it, the same holds.
 */
TEST(charge_gap_charges_a_thin_window_in_full)
{
	static struct path plain, p;
	double ratio[2];
	u32 measured[2];

	plain = thin_window(false, 2);
	p = thin_window(true, 2);

	full_and_gap(_metadata, &plain, &p, ratio, measured);
	EXPECT_EQ(ratio[1], ratio[0]);
	EXPECT_EQ(measured[1], measured[0]);
}

/*
 * hold_echo on a thin window at MTU 1500: A = 5 Mbit/s, RTT 50 ms, a
 * window of one BDP (21 segments), so the window limits the sender and
 * a hold of 10 takes most of it. The second stream's hold begins about
 * when the ACK gap of the first one's comes back, and timed by the
 * window's rate alone it ends before the ACKs of the first stream free
 * its segments: the measurement is abandoned and its holds charged.
 * Waiting out that gap, the measurements finish, for about the same
 * goodput.
 */
static struct path echo_window(bool measure, bool echo)
{
	struct path p = {
		.a_bps = 5e6, .mss = 1448, .base_rtt_us = 50000,
		.jitter_us = 200, .cwnd = 21, .budget = 2, .secs = 20,
		.measure = measure, .charge_gap = true, .echo = echo,
		.seed = 1,
	};
	return p;
}

TEST(hold_echo_finishes_the_later_streams)
{
	static struct path plain, runs[2];
	double ratio[2];
	u32 base, i;

	plain = echo_window(false, false);
	base = run(&plain);
	for (i = 0; i < 2; i++) {
		runs[i] = echo_window(true, i);
		ratio[i] = (double)run(&runs[i]) / base;
		TH_LOG("hold_echo %u: goodput %.4f of plain, %u holds, %u expired, %u streams, %u measurements",
		       i, ratio[i], runs[i].holds, runs[i].holds_expired,
		       runs[i].streams, runs[i].measured);
	}
	EXPECT_GE(runs[1].measured, 2 * runs[0].measured);
	EXPECT_GE(runs[1].measured, 5);
	EXPECT_LT(runs[1].holds_expired, runs[0].holds_expired);
	EXPECT_GE(ratio[1], 0.97);
}

TEST_HARNESS_MAIN
