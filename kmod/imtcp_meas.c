// SPDX-License-Identifier: GPL-2.0
/*
 * imtcp: the measurement on a live socket (see the design comment in
 * imtcp_main.c). Decisions are made by the control unit
 * (core/imtcp_cu.c) and the measurement unit (core/imtcp_est.h); this
 * file reads the socket for them and carries out what they decide:
 *
 *   hold (STORE)   tcp_wstamp_ns, the departure time of the next segment,
 *                  is moved T ahead; the stack's pacing timer ends the
 *                  hold if no ACK does it first (with nothing queued no
 *                  timer runs, and the next ACK or write ends it, late,
 *                  with nothing kept back). Nothing else is touched:
 *                  cwnd stays Reno's, and the held segments are simply
 *                  window credit that has not been used yet.
 *   stream (SEND)  the hold ends, skbs are cut to one MSS (sk_gso_max_segs
 *                  = 1 while the stream leaves) and sk_pacing_rate is set,
 *                  before each segment, to the rate of the gap after it.
 *                  The stack calls .min_tso_segs once per tcp_write_xmit,
 *                  and with pacing in effect a tcp_write_xmit sends one
 *                  skb, so that callback is where the next rate is set.
 *                  Segments overdue (a late pacing timer) leave as one skb
 *                  of that many, and the rate then puts the next departure
 *                  back on the stream's schedule (core/imtcp_pace.c).
 *   EMPTY, PASS,   internal pacing off again: the socket sends as the
 *   OFF            kernel's Reno does without a pacing qdisc (unpaced,
 *                  sk_pacing_rate at Reno's value for TSO sizing).
 * Samples: per ACK, the rate sample names the newest segment it delivered
 * (last_end_seq) and tp->first_tx_mstamp holds that segment's real
 * departure time; with the ACK's arrival time that is one delay sample.
 */
#include <linux/hrtimer.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>
#include <linux/sock_diag.h>
#include <net/mptcp.h>

#include "imtcp_meas.h"
#include "imtcp_nl.h"
#include "imtcp_pacing.h"
#include "imtcp_params.h"
#include "core/imtcp_pace.h"
#include "uapi/imtcp.h"

#define CREATE_TRACE_POINTS
#include "imtcp_trace.h"

/* Per-socket measurement state: a cache of its own, charged to memcgs. */
static struct kmem_cache *meas_cache;

/* Search ranges stay below this multiple of what the connection sees. */
#define IMTCP_CAP_MUL	16

static u32 now_us(const struct tcp_sock *tp)
{
	return (u32)div_u64(tp->tcp_clock_cache, NSEC_PER_USEC);
}

/*
 * Of @unsent segments (a partial one counted), those that could leave
 * now: window credit, data, receive window.
 */
static u32 held_of(const struct sock *sk, u32 unsent)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 in_flight = tcp_packets_in_flight(tp), mss = tp->mss_cache;
	u32 room, rwnd;

	room = tcp_snd_cwnd(tp) > in_flight ? tcp_snd_cwnd(tp) - in_flight : 0;
	rwnd = after(tcp_wnd_end(tp), tp->snd_nxt) ?
	       (tcp_wnd_end(tp) - tp->snd_nxt) / mss : 0;
	return min3(room, unsent, rwnd);
}

static u32 held_segs(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return held_of(sk, DIV_ROUND_UP(tp->write_seq - tp->snd_nxt,
					tp->mss_cache));
}

static bool can_measure(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return inet_csk(sk)->icsk_ca_state <= TCP_CA_Disorder &&
	       tp->data_segs_out >= 10 && tp->srtt_us &&
	       READ_ONCE(sk->sk_pacing_status) != SK_PACING_FQ;
}

/* Segments of the current stream that have left. */
static u32 stream_sent(const struct sock *sk, const struct imtcp_meas *meas)
{
	u32 seq = meas->stream_seq[meas->cu.stream];

	return DIV_ROUND_UP(tcp_sk(sk)->snd_nxt - seq, meas->mss);
}

/* A write just began a frame that a hold gathers (imtcp_cu_frame_opens). */
static bool frame_opens(const struct sock *sk, const struct imtcp_meas *meas)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return imtcp_cu_frame_opens(&meas->cu, tp->write_seq, now_us(tp),
				    tp->srtt_us >> 3, imtcp_writer_waits(sk));
}

/*
 * The standing queue: srtt - min_rtt, less the RTT's variation (mdev_us,
 * four times its mean deviation), which is noise and not queue.
 */
static u32 queue_us_of(const struct tcp_sock *tp)
{
	u32 srtt_us = tp->srtt_us >> 3;

	if (srtt_us <= tcp_min_rtt(tp) + tp->mdev_us)
		return 0;
	return srtt_us - tcp_min_rtt(tp) - tp->mdev_us;
}

static void view_of(const struct sock *sk, const struct imtcp_meas *meas,
		    struct imtcp_cu_view *v)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 unsent = tp->write_seq - tp->snd_nxt;

	v->now_us = now_us(tp);
	/* a partial segment would wait for Nagle (or the app) anyway */
	v->unsent = unsent / tp->mss_cache;
	v->write_seq = tp->write_seq;
	v->writer_waits = imtcp_writer_waits(sk);
	v->held = held_of(sk, v->unsent + (unsent > v->unsent * tp->mss_cache));
	v->cwnd = tcp_snd_cwnd(tp);
	v->in_flight = tcp_packets_in_flight(tp);
	v->can_measure = can_measure(sk);
	v->slow_start = tcp_in_slow_start(tp);
	v->first_ss = tcp_in_initial_slowstart(tp);
	v->sent = meas->cu.state == IMTCP_STATE_SEND ? stream_sent(sk, meas) : 0;
	/* a division, but only while a stream is out */
	v->seg_us = meas->cu.state == IMTCP_STATE_SEND ?
		    (tp->srtt_us >> 3) / max(tcp_snd_cwnd(tp), 1U) : 0;
	v->slot_due = tp->tcp_wstamp_ns <= tp->tcp_clock_cache;
	v->due_us = meas->cu.state == IMTCP_STATE_SEND && v->slot_due ?
		    (u32)div_u64(tp->tcp_clock_cache - tp->tcp_wstamp_ns,
				 NSEC_PER_USEC) : 0;
	v->snd_nxt = tp->snd_nxt;
	v->mss = tp->mss_cache;
	v->acked = !before(tp->snd_una, meas->stream_end);
	v->srtt_us = tp->srtt_us >> 3;
	v->queue_us = queue_us_of(tp);
	/* frame_opens from what the view already read (every ACK steps) */
	v->opens = imtcp_cu_frame_opens(&meas->cu, v->write_seq, v->now_us,
					v->srtt_us, v->writer_waits);
}

/*
 * Internal pacing is on only while the measurement needs it (a hold, a
 * stream); otherwise the socket sends as the kernel's Reno does, unpaced.
 * Never overrides sch_fq's SK_PACING_FQ, and stays on where the
 * application capped the rate (SO_MAX_PACING_RATE, which turns internal
 * pacing on for the cap to apply).
 */
static void pacing_on(struct sock *sk)
{
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NONE, SK_PACING_NEEDED);
}

/*
 * The application's cap on its rate (SO_MAX_PACING_RATE), in bit/s; 0
 * where it set none (or 0, which the stack's pacing ignores).
 */
static u64 app_cap_bps(const struct sock *sk)
{
	unsigned long cap_Bps = READ_ONCE(sk->sk_max_pacing_rate);

	return cap_Bps == ~0UL ? 0 : imtcp_bps_of_pacing_Bps(cap_Bps);
}

static void pacing_off(struct sock *sk)
{
	if (app_cap_bps(sk))
		return;
	cmpxchg(&sk->sk_pacing_status, SK_PACING_NEEDED, SK_PACING_NONE);
}

/*
 * Hold the next segment back until @t_ns (a hold, or a stream's next
 * slot): move the stack's departure time on, noting where the stack had
 * it, unless a hold had already moved it there.
 */
static void hold_until(struct sock *sk, struct imtcp_meas *meas, u64 t_ns)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (t_ns <= tp->tcp_wstamp_ns)
		return;
	if (tp->tcp_wstamp_ns != meas->held_until_ns)
		meas->unheld_ns = tp->tcp_wstamp_ns;
	tp->tcp_wstamp_ns = t_ns;
	meas->held_until_ns = t_ns;
}

/*
 * When the next segment may leave once a hold ends: now, where pacing
 * goes off; under the application's cap, when the stack's own pacing
 * lets it (its departure time from before the hold, or the one it set
 * since, sending at most at the cap). Given back as now, it let a
 * connection under an 8 Mbit/s cap carry up to 8.7: a stream planned
 * above the cap fell behind and caught up in one skb of 9 segments,
 * whose 13 ms at the cap were forgotten at the stream's end (captures:
 * up to 0.65 s of 6.7 s sent faster than the cap, nearly all in
 * streams).
 */
static u64 departure_after_hold_ns(const struct sock *sk,
				   const struct imtcp_meas *meas)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (!app_cap_bps(sk))
		return tp->tcp_clock_cache;
	if (tp->tcp_wstamp_ns != meas->held_until_ns)
		return tp->tcp_wstamp_ns;
	return max(tp->tcp_clock_cache, meas->unheld_ns);
}

/*
 * End a hold: the next segment may leave now, or, where the application
 * capped its rate, when the cap lets it (departure_after_hold_ns). If
 * the stack armed its pacing timer for the hold's end meanwhile
 * (tcp_pacing_check arms it once and leaves it while it is queued), the
 * timer is moved to then, keeping the socket reference the stack took
 * for it: left as it was, it held back every segment after the first of
 * the stream that ends the hold until the hold's end, and they left as
 * one burst (traced: a media sender's stream of 10 segments planned over
 * 15 ms left 32 ms late at once, and its rise read as A = 5 Mbit/s on an
 * idle 30 Mbit/s path). Under the socket lock no one else arms it, and a
 * timer that already fires keeps its own reference.
 */
static void end_hold(struct sock *sk, const struct imtcp_meas *meas)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 t_ns = departure_after_hold_ns(sk, meas);

	if (tp->tcp_wstamp_ns <= t_ns)
		return;
	tp->tcp_wstamp_ns = t_ns;
	if (hrtimer_try_to_cancel(&tp->pacing_timer) == 1)
		hrtimer_start(&tp->pacing_timer, ns_to_ktime(tp->tcp_wstamp_ns),
			      HRTIMER_MODE_ABS_PINNED_SOFT);
}

/*
 * While a stream leaves, skbs are as many segments as the schedule sends
 * at once (one, unless the sender fell behind), never more than the
 * route allows.
 */
static void shape(struct sock *sk, struct imtcp_meas *meas, u32 segs)
{
	/* not ours yet, or the stack set it meanwhile (a new route) */
	if (!meas->shaped || sk->sk_gso_max_segs != meas->gso_segs) {
		meas->saved_gso_max_segs = sk->sk_gso_max_segs;
		meas->shaped = true;
	}
	meas->gso_segs = clamp_t(u32, segs, 1, max_t(u32, meas->saved_gso_max_segs, 1));
	sk->sk_gso_max_segs = meas->gso_segs;
}

/*
 * Give segment sizes back to the stack, unless it changed them itself
 * meanwhile (a new route).
 */
static void unshape(struct sock *sk, struct imtcp_meas *meas)
{
	if (!meas->shaped)
		return;
	if (sk->sk_gso_max_segs == meas->gso_segs)
		sk->sk_gso_max_segs = meas->saved_gso_max_segs;
	meas->shaped = false;
}

/* The connection's latest delivery rate: the application's own rate. */
static u64 own_rate_bps(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return imtcp_rate_bps(tp->rate_delivered, tp->mss_cache,
			      tp->rate_interval_us);
}

/*
 * A rate the connection already knows, for the first search range: its
 * window's rate or its latest delivery rate.
 */
static u64 rate_hint(const struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return max(imtcp_rate_bps(tcp_snd_cwnd(tp), tp->mss_cache,
				  max(tp->srtt_us >> 3, 1U)),
		   own_rate_bps(sk));
}

/*
 * The top of any search range: IMTCP_CAP_MUL times what the connection
 * sees, and never beyond twice the operating envelope (a stream cannot
 * measure above it, and the range arithmetic stays far from u64's end).
 */
static u64 range_cap_bps(const struct imtcp_meas *meas, u64 hint_bps, u32 mss)
{
	return min(IMTCP_CAP_MUL * max(meas->dlv_max_bps, hint_bps),
		   2 * imtcp_envelope_bps(&meas->cfg, mss));
}

/*
 * A measurement's search range, before its first stream: within what
 * the connection knows, and never above the application's cap, which no
 * stream can exceed (one planned above it fell behind and left its
 * segments in bursts). The first range is an application-limited
 * sender's also for one that paces its writes while slow start's window
 * holds its frame back (benchmarks.rst, "Frame 3 as the first stream").
 */
static void bound_range(struct sock *sk, struct imtcp_meas *meas, u64 hint_bps)
{
	u64 cap_bps = app_cap_bps(sk);

	if (!meas->est.hi_bps)
		imtcp_first_range(&meas->est, hint_bps,
				  imtcp_cu_app_sets_pace(&meas->cu));
	imtcp_est_bound(&meas->est,
			imtcp_range_floor(meas->dlv_max_bps, hint_bps,
					  own_rate_bps(sk), meas->cu.limited),
			range_cap_bps(meas, hint_bps, tcp_sk(sk)->mss_cache));
	if (cap_bps)
		imtcp_est_bound(&meas->est, 0, cap_bps);
	imtcp_est_bound(&meas->est, 0, imtcp_range_cap_bps(&meas->est));
}

/*
 * The part of the search range stream @i plans: its own, or beside a
 * stream carried over (carry_newest), the part that one did not probe.
 */
static u32 stream_part(const struct imtcp_meas *meas, u32 i)
{
	if (i == 1 && meas->carried)
		return imtcp_carry_part(&meas->cfg, &meas->st[0]);
	return i;
}

static void begin_stream(struct sock *sk, struct imtcp_meas *meas)
{
	struct imtcp_stream *st = &meas->st[meas->cu.stream];
	struct tcp_sock *tp = tcp_sk(sk);

	if (!meas->cu.stream)
		meas->carried = false;
	if (!meas->cu.stream || meas->carried)
		bound_range(sk, meas, rate_hint(sk));
	imtcp_plan_stream(&meas->est, &meas->cfg,
			  stream_part(meas, meas->cu.stream), st);
	st->seg_bytes = tp->mss_cache;
	meas->stream_seq[meas->cu.stream] = tp->snd_nxt;
	meas->mss = tp->mss_cache;
	meas->stream_t0_ns = tp->tcp_clock_cache;
	shape(sk, meas, 1);
	end_hold(sk, meas);
	pacing_on(sk);
	imtcp_set_pacing_Bps(sk,
			     imtcp_pacing_Bps(imtcp_gap_bps(st, meas->cfg.n, 0)));
	if (trace_imtcp_stream_start_enabled())
		trace_imtcp_stream_start(meas->entry.cookie, meas->cu.stream, tp->snd_nxt,
					 st->lo_bps, st->hi_bps, meas->cfg.n,
					 st->seg_bytes,
					 imtcp_pace_plan_ns(st, meas->cfg.n));
}

static void trace_state(struct sock *sk, struct imtcp_meas *meas, u32 from)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (!trace_imtcp_state_enabled())
		return;
	trace_imtcp_state(meas->entry.cookie, from, meas->cu.state, meas->cu.m, meas->cu.stream,
			  tcp_snd_cwnd(tp), held_segs(sk),
			  imtcp_cu_credit_us(&meas->cu), meas->cu.app_paced,
			  tp->srtt_us >> 3, queue_us_of(tp));
}

/* Carry out the entry into the state the control unit moved to. */
static void enter_state(struct sock *sk, struct imtcp_meas *meas, u32 from)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 t;

	trace_state(sk, meas, from);
	WRITE_ONCE(meas->entry.pub.state, meas->cu.state);
	WRITE_ONCE(meas->entry.pub.m, meas->cu.m);
	WRITE_ONCE(meas->info->state, meas->cu.state);
	WRITE_ONCE(meas->info->m, meas->cu.m);
	switch (meas->cu.state) {
	case IMTCP_STATE_STORE:
		unshape(sk, meas);
		pacing_on(sk);
		t = imtcp_hold_us(tp->mss_cache, meas->est.estimate_bps ?: meas->est.lo_bps,
				  meas->cu.m, tcp_snd_cwnd(tp), tp->mdev_us,
				  tp->srtt_us >> 3);
		t = imtcp_cu_hold_us(&meas->cu, t, tp->srtt_us >> 3);
		meas->cu.deadline_us = now_us(tp) + t;
		imtcp_set_reno_pacing(sk);
		hold_until(sk, meas, tp->tcp_clock_cache + (u64)t * NSEC_PER_USEC);
		break;
	case IMTCP_STATE_SEND:
		begin_stream(sk, meas);
		break;
	default:	/* EMPTY, PASS, OFF */
		unshape(sk, meas);
		end_hold(sk, meas);
		pacing_off(sk);
		imtcp_set_reno_pacing(sk);
		break;
	}
}

/*
 * The end of the newest data this ACK delivered. The rate sample names
 * the end of the newest skb it touched; an skb of several segments (a
 * stream catching up) that the ACK covers only in part is delivered up
 * to snd_una, not to its end.
 */
static u32 delivered_end(struct sock *sk, const struct rate_sample *rs)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct sk_buff *head = tcp_rtx_queue_head(sk);
	u32 end = rs->last_end_seq;

	if (head && TCP_SKB_CB(head)->end_seq == end &&
	    after(end, tp->snd_una))
		return tp->snd_una;
	return end;
}

/*
 * Record the delay of the newest segment this ACK delivered, if it
 * belongs to a stream of the current measurement.
 */
static void take_sample(struct sock *sk, struct imtcp_meas *meas,
			const struct rate_sample *rs)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 i, started = meas->cu.stream + (meas->cu.state == IMTCP_STATE_SEND);
	u32 end, seg;

	if (rs->delivered <= 0 || rs->is_retrans || !meas->mss)
		return;
	end = delivered_end(sk, rs);
	for (i = 0; i < started && i < meas->cfg.k; i++) {
		struct imtcp_stream *st = &meas->st[i];
		struct imtcp_sample *s;

		if (!after(end, meas->stream_seq[i]))
			continue;
		seg = (end - meas->stream_seq[i] - 1) / meas->mss;
		if (seg >= meas->cfg.n || st->nsamples >= IMTCP_N_MAX)
			continue;
		s = &st->s[st->nsamples++];
		s->seg = seg;
		s->tx_us = (u32)tp->first_tx_mstamp;
		s->delay_us = (s32)(tp->tcp_mstamp - tp->first_tx_mstamp);
		meas->delay_max_us[0] = max(meas->delay_max_us[0], s->delay_us);
		if (!meas->delay_min_us[0] || s->delay_us < meas->delay_min_us[0])
			meas->delay_min_us[0] = s->delay_us;
		trace_imtcp_sample(meas->entry.cookie, i, seg, s->tx_us, s->delay_us);
		return;
	}
}

/* The socket's figures for the registry's readers. */
/* Raw figures only: readers do the arithmetic, not the ACK path. */
static void publish_path(const struct sock *sk, struct imtcp_meas *meas)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	WRITE_ONCE(meas->entry.pub.srtt_us, tp->srtt_us >> 3);
	WRITE_ONCE(meas->entry.pub.min_rtt_us, tcp_min_rtt(tp));
	WRITE_ONCE(meas->entry.pub.cwnd, tcp_snd_cwnd(tp));
	WRITE_ONCE(meas->entry.pub.dlv_segs, tp->rate_delivered);
	WRITE_ONCE(meas->entry.pub.dlv_us, tp->rate_interval_us);
	WRITE_ONCE(meas->entry.pub.mss, tp->mss_cache);
}

/*
 * A measurement's capacity @cap_bps (0: none) into the path's
 * (core/imtcp_cap.c), for the registry's readers at once: it does not
 * wait for an estimate to be taken.
 */
static void publish_capacity(struct imtcp_meas *meas, u64 cap_bps)
{
	imtcp_cap_add(&meas->est.cap, cap_bps);
	WRITE_ONCE(meas->entry.pub.capacity_bps, meas->est.cap.median_bps);
}

static void publish_estimate(struct imtcp_meas *meas)
{
	unsigned long now = jiffies;

	WRITE_ONCE(meas->entry.pub.raw_bps, meas->est.raw_bps);
	WRITE_ONCE(meas->entry.pub.probe_bps, meas->est.probe_bps);
	WRITE_ONCE(meas->entry.pub.busy_bps, meas->est.busy_bps);
	WRITE_ONCE(meas->entry.pub.bound, meas->est.held);
	WRITE_ONCE(meas->entry.pub.range_lo_bps, meas->est.lo_bps);
	WRITE_ONCE(meas->entry.pub.range_hi_bps, meas->est.hi_bps);
	WRITE_ONCE(meas->entry.pub.measurements, meas->est.count);
	WRITE_ONCE(meas->entry.pub.est_jiffies, now);
	WRITE_ONCE(meas->entry.pub.estimate_bps, meas->est.estimate_bps);
	WRITE_ONCE(meas->info->measurements, meas->est.count);
	WRITE_ONCE(meas->info->est_jiffies, now);
	WRITE_ONCE(meas->info->estimate_bps, meas->est.estimate_bps);
	meas->hidden = false;
}

/*
 * The socket shows no estimate from now on (TCP_CC_INFO's and the
 * registry's read 0). One that was there, or @bps (0: none) that the
 * estimator withdrew before it was shown, is traced as withdrawn, for
 * @why; one that was there is also told to netlink listeners, who saw
 * it, with @why as the socket's reason (which say_why() would set
 * in this step anyway).
 */
static void unpublish(struct imtcp_meas *meas, u64 bps, u8 why)
{
	u64 shown_bps = READ_ONCE(meas->entry.pub.estimate_bps);

	meas->hidden = true;
	meas->told_bps = 0;
	WRITE_ONCE(meas->entry.pub.estimate_bps, 0);
	WRITE_ONCE(meas->info->estimate_bps, 0);
	if (shown_bps) {
		WRITE_ONCE(meas->entry.pub.reason, why);
		imtcp_nl_withdraw_event(&meas->entry, shown_bps);
	}
	if (shown_bps || bps)
		trace_imtcp_withdraw(meas->entry.cookie, shown_bps ? shown_bps : bps,
				     shown_bps != 0, why);
}

/*
 * Whether the streams, up to the application's cap, all found A above
 * them: the path has room beyond what this connection may send.
 */
static bool above_app_cap(const struct imtcp_meas *meas, u64 cap_bps,
			  enum imtcp_edge edge)
{
	return cap_bps && edge == IMTCP_EDGE_HIGH &&
	       meas->st[imtcp_fastest_stream(meas->st, meas->cfg.k)].hi_bps >=
	       cap_bps;
}

/*
 * Beyond the operating envelope (imtcp_envelope_bps): the connection was
 * delivered faster than a stream can measure (so C is faster still), or
 * the fit put A there; or, under the application's cap, every stream up
 * to the cap found A above it (the envelope shown is then the cap). Then
 * nothing is published: the estimate, and TCP_CC_INFO's, read 0 and the
 * reason says why, until a measurement inside the envelope is taken.
 */
static bool out_of_envelope(const struct sock *sk, struct imtcp_meas *meas,
			    u64 fit_bps, enum imtcp_edge edge)
{
	u64 env_bps = imtcp_envelope_bps(&meas->cfg, meas->mss);
	u64 cap_bps = app_cap_bps(sk);

	WRITE_ONCE(meas->entry.pub.envelope_bps,
		   cap_bps ? min(env_bps, cap_bps) : env_bps);
	if (max(meas->dlv_max_bps, fit_bps) <= env_bps &&
	    !above_app_cap(meas, cap_bps, edge)) {
		WRITE_ONCE(meas->entry.pub.reason, IMTCP_REASON_NONE);
		return false;
	}
	WRITE_ONCE(meas->entry.pub.reason, IMTCP_REASON_ENVELOPE);
	unpublish(meas, 0, IMTCP_REASON_ENVELOPE);
	imtcp_count_out_of_envelope(meas->entry.net);
	return true;
}

/*
 * The reason shown while no estimate is (imtcp_cu_reason), brought up to
 * date at every step: its causes may end between streams.
 */
static void say_why(struct imtcp_meas *meas)
{
	u8 reason = READ_ONCE(meas->entry.pub.reason);
	u8 why = imtcp_cu_reason(&meas->cu, reason,
				 READ_ONCE(meas->entry.pub.estimate_bps) != 0);

	if (why != reason)
		WRITE_ONCE(meas->entry.pub.reason, why);
}

/*
 * The writes are too short for a stream (imtcp_cu_writes_short): an
 * estimate from the first result alone is withdrawn, and TCP_CC_INFO's
 * and the registry's read 0. Returns whether it was.
 */
static bool withdraw_if_short(struct imtcp_meas *meas)
{
	u64 bps;

	if (!imtcp_cu_writes_short(&meas->cu))
		return false;
	bps = meas->est.estimate_bps;	/* imtcp_est_withdraw zeroes it */
	if (!imtcp_est_withdraw(&meas->est))
		return false;
	unpublish(meas, bps, IMTCP_REASON_WRITES_SHORT);
	return true;
}

/*
 * After a measurement with a result (@ok), its newest stream becomes the
 * next one's first (imtcp_cu_carry), if the control unit takes it: it
 * was analysed, and its samples are all in.
 */
static void carry_newest(struct imtcp_meas *meas, bool ok, u32 t_us)
{
	u32 last = meas->cfg.k - 1;

	meas->carried = false;
	if (!meas->carry || !ok || !imtcp_stream_carries(&meas->st[last]) ||
	    !imtcp_cu_carry(&meas->cu, meas->cfg.k, meas->cfg.n, t_us))
		return;
	meas->st[0] = meas->st[last];
	meas->stream_seq[0] = meas->stream_seq[last];
	meas->carried = true;
}

/* All ACKs of a measurement are in: analyse, estimate, adapt. */
static void finish_measurement(struct sock *sk, struct imtcp_meas *meas)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	s32 ceiling = imtcp_queue_ceiling(meas->delay_max_us, meas->delay_min_us,
					  &meas->cfg);
	u64 busy = imtcp_busy_bps(&meas->busy), fit, cap;
	u64 busy_floor = imtcp_busy_floor_bps(&meas->busy);
	u32 min_rtt = tcp_min_rtt(tp);
	u32 rtt_us = min_rtt == ~0U ? 0 : min_rtt;	/* 0: not known yet */
	enum imtcp_edge edge;
	bool taken, outside;
	u32 i, rse;

	meas->delay_max_us[1] = meas->delay_max_us[0];
	meas->delay_max_us[0] = 0;
	meas->delay_min_us[1] = meas->delay_min_us[0];
	meas->delay_min_us[0] = 0;
	for (i = 0; i < meas->cfg.k; i++) {
		struct imtcp_stream *st = &meas->st[i];

		imtcp_analyse_stream(st, &meas->cfg, ceiling);
		trace_imtcp_stream(meas->entry.cookie, i, st->lo_bps, st->hi_bps,
				   meas->cfg.n, st->seg_bytes, st->nsamples,
				   st->outcome, min_rtt, !i && meas->carried);
	}
	fit = imtcp_combine(meas->st, meas->cfg.k, &meas->cfg, min_rtt,
			    &meas->est.bucket, &edge, &rse, &cap);
	imtcp_est_age_served(&meas->est, &meas->cfg, tp->tcp_mstamp, rtt_us);
	if (meas->outrun)
		imtcp_served_outrun(&meas->est.served, meas->st, meas->cfg.k,
				    meas->est.cap.median_bps);
	fit = imtcp_served_cap(meas->st, meas->cfg.k, meas->carried, fit,
			       &meas->est.served, &edge, &rse);
	outside = out_of_envelope(sk, meas, fit, edge);
	if (!outside)
		publish_capacity(meas, cap);
	meas->dlv_max_bps -= meas->dlv_max_bps / 4;	/* let the floor follow a fall */
	if (fit && !outside)
		imtcp_est_result_at(&meas->est, &meas->cfg, tp->tcp_mstamp,
				    rtt_us);
	if (!outside)
		imtcp_busy_outrun(&meas->busy, fit, edge);
	taken = !outside &&
		imtcp_est_update_bounded(&meas->est, &meas->cfg, fit, edge, rse,
					 &meas->busy);
	imtcp_busy_measured(&meas->busy);
	imtcp_cu_result(&meas->cu, fit != 0 && !outside);
	carry_newest(meas, fit != 0 && !outside, now_us(tp));
	imtcp_cu_below(&meas->cu, !taken && !outside && edge == IMTCP_EDGE_LOW);
	if (!taken || withdraw_if_short(meas))
		return;
	imtcp_cu_estimated(&meas->cu);
	imtcp_cu_off(&meas->cu, meas->est.off);
	imtcp_cu_top(&meas->cu, edge == IMTCP_EDGE_HIGH);
	say_why(meas);
	publish_estimate(meas);
	imtcp_count_estimate(meas->entry.net);
	imtcp_nl_estimate_event(&meas->entry);
	meas->told_bps = meas->est.estimate_bps;
	meas->told_us = tp->tcp_mstamp;
	trace_imtcp_estimate(meas->entry.cookie, &meas->est, fit, busy, busy_floor, edge,
			     tp->srtt_us >> 3, tcp_snd_cwnd(tp), meas->cu.m, rse);
}

/* Run the control unit on what the socket shows now; act on the result. */
static void step(struct sock *sk, struct imtcp_meas *meas)
{
	struct imtcp_cu_view v;
	u32 from = meas->cu.state, flags, stream = meas->cu.stream;

	/* a measurement's streams all have the length it began with */
	if (!meas->cu.stream && meas->cu.state != IMTCP_STATE_SEND &&
	    meas->cu.state != IMTCP_STATE_PASS)
		meas->cfg.n = imtcp_cu_stream_len(&meas->cu);
	view_of(sk, meas, &v);
	flags = imtcp_cu_step(&meas->cu, meas->cfg.n, meas->cfg.k, &v);
	WRITE_ONCE(meas->entry.pub.hold_us, meas->cu.held_us);
	WRITE_ONCE(meas->entry.pub.stream_us, meas->cu.stream_us);
	if (flags & IMTCP_CU_STREAM_DONE)
		meas->stream_end = tcp_sk(sk)->snd_nxt;
	if (flags & IMTCP_CU_FAILED) {
		meas->streams_failed++;
		WRITE_ONCE(meas->entry.pub.streams_failed, meas->streams_failed);
		imtcp_count_stream_failed(meas->entry.net);
		trace_imtcp_stream(meas->entry.cookie, stream, meas->st[stream].lo_bps,
				   meas->st[stream].hi_bps, v.sent,
				   meas->st[stream].seg_bytes,
				   meas->st[stream].nsamples, IMTCP_OUT_NONE,
				   tcp_min_rtt(tcp_sk(sk)), false);
	}
	if (flags & IMTCP_CU_MEASURED)
		finish_measurement(sk, meas);
	withdraw_if_short(meas);
	say_why(meas);
	if (flags & IMTCP_CU_CHANGED)
		enter_state(sk, meas, from);
}

/* The connection's delivery rate, a lower bound of A (imtcp_est_floor). */
static void track_delivery(struct sock *sk, struct imtcp_meas *meas,
			   const struct rate_sample *rs)
{
	u32 mss = tcp_sk(sk)->mss_cache;
	u64 top;

	if (rs->delivered <= 0 || rs->interval_us <= 0 || rs->is_app_limited)
		return;
	/* compare without dividing; divide only for a new maximum */
	if (check_mul_overflow(meas->dlv_max_bps, (u64)rs->interval_us, &top) ||
	    (u64)rs->delivered * mss * 8 * USEC_PER_SEC <= top)
		return;
	meas->dlv_max_bps = imtcp_rate_bps(rs->delivered, mss, rs->interval_us);
}

/*
 * The delivery rate while the bottleneck was busy, which bounds results
 * and the estimate from both sides (core/imtcp_busy.c): an ACK within
 * 4 noise_us or an eighth of the minimum RTT of it, whichever is more,
 * says the queue may have emptied.
 * Less was not enough: after a loss at A = 99 Mbit/s in the VM, the
 * streams kept the RTT 2-4 ms above its minimum while the link idled
 * during the holds, and a connection delivered at 56 Mbit/s looked busy
 * and held results of 95 at 70. The rate is over the ACKs' interval
 * (rcv_interval_us), the pace at which the bottleneck handed on the
 * connection's data: the sample's own interval, the longer of that and
 * the send interval, reads low while a queue drains (69 Mbit/s for
 * A = 99 in the recovery after a loss, traced).
 */
static void track_busy(struct sock *sk, struct imtcp_meas *meas,
		       const struct rate_sample *rs)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	u32 base = tcp_min_rtt(tp);

	if (base == ~0U)
		return;
	imtcp_busy_ack(&meas->busy, tp->tcp_mstamp, rs->rtt_us,
		       base + max_t(u32, 4 * meas->cfg.noise_us, base / 8),
		       tp->srtt_us >> 3);
	if (rs->delivered <= 0 || rs->interval_us <= 0 || rs->is_app_limited)
		return;
	imtcp_busy_rate(&meas->busy, tp->tcp_mstamp, rs->delivered,
			tp->mss_cache, rs->rcv_interval_us);
	imtcp_busy_own_rate(&meas->busy, rs->delivered, tp->mss_cache,
			    rs->interval_us);
}

/*
 * Tell netlink listeners (and the imtcp_move tracepoint) that the figure
 * shown is now @bps, if that is news to them (imtcp_busy_move_news):
 * otherwise a sender that picks its rate from the events would keep the
 * last estimate through a fall the socket itself already shows.
 */
static void tell_move(const struct sock *sk, struct imtcp_meas *meas, u64 bps)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (!imtcp_busy_move_news(bps, meas->told_bps, tp->tcp_mstamp,
				  meas->told_us, tp->srtt_us >> 3))
		return;
	trace_imtcp_move(meas->entry.cookie, bps, meas->told_bps,
			 READ_ONCE(meas->entry.pub.busy_bps));
	imtcp_nl_move_event(&meas->entry);
	meas->told_bps = bps;
	meas->told_us = tp->tcp_mstamp;
}

/*
 * Between results, the published estimate stays under the busy-link cap
 * as it is now (core/imtcp_busy.c): a fall of A shows in the delivery
 * rate within 2-4 srtt, where a thin window's next result may be
 * seconds away. With own_floor it also stays over the floor, so a rise
 * of A shows as soon as the connection takes the room
 * (imtcp_busy_shown). Only what is published moves (and back, to the
 * estimate, when the bounds move again); the estimate itself, and so its
 * smoothing, changes only with results. An estimate unpublished (beyond
 * the envelope, or withdrawn: unpublish) is not shown here again: only
 * the next estimate taken is, with its netlink event. Before, a result
 * inside the envelope that was not taken let the old estimate show
 * again with no event, and each next result beyond the envelope
 * withdrew it once more (traced in the VM: four withdrawals of the
 * same 4.8 Mbit/s estimate after the path went from 5 to 50 Mbit/s).
 * A move listeners have not heard of is told to them (tell_move). A
 * figure lifted off the estimate lets the next measurement start as a
 * result off it would (imtcp_est_shown_off, lift_off).
 */
static void publish_shown(struct sock *sk, struct imtcp_meas *meas)
{
	u64 est_bps = meas->est.estimate_bps, pub_bps, busy_bps;
	u8 bound;

	if (!est_bps || meas->hidden)
		return;
	pub_bps = imtcp_busy_shown(est_bps, &meas->busy);
	if (pub_bps != READ_ONCE(meas->entry.pub.estimate_bps)) {
		bound = imtcp_est_shown_held(&meas->est, pub_bps,
					     imtcp_busy_bps(&meas->busy),
					     &busy_bps);
		WRITE_ONCE(meas->entry.pub.busy_bps, busy_bps);
		WRITE_ONCE(meas->entry.pub.bound, bound);
		WRITE_ONCE(meas->entry.pub.estimate_bps, pub_bps);
		WRITE_ONCE(meas->info->estimate_bps, pub_bps);
		if (imtcp_est_shown_off(&meas->est, &meas->cfg, pub_bps))
			imtcp_cu_off(&meas->cu, true);
	}
	tell_move(sk, meas, pub_bps);
}

/*
 * An MPTCP subflow is never marked application-limited in 6.1: TCP marks
 * a socket when the application writes (tcp_sendmsg_locked calls
 * tcp_rate_check_app_limited), and net/mptcp hands data to its subflows
 * without that call. A media sender's subflows then give rate samples
 * of the sender's own rate as if the window limited them, and those set
 * the busy-link bounds (a frame's burst queues at the bottleneck, so the
 * ACKs look busy): on an 8 Mbit/s path, results held at 0.2-0.3 Mbit/s,
 * traced in the VM (make bench-mptcp-backup). So the subflow is checked
 * here, once this ACK is taken: nothing left to send and the window not
 * full marks what it sends next as application-limited, as TCP would
 * had the write come through tcp_sendmsg.
 */
static void check_subflow_app_limited(struct sock *sk)
{
	if (sk_is_mptcp(sk))
		tcp_rate_check_app_limited(sk);
}

/* Per ACK, after Reno has updated the window. */
void imtcp_meas_on_ack(struct sock *sk, struct imtcp_meas *meas,
		       const struct rate_sample *rs)
{
	publish_path(sk, meas);
	track_delivery(sk, meas, rs);
	track_busy(sk, meas, rs);
	publish_shown(sk, meas);
	if (meas->cu.state != IMTCP_STATE_OFF)
		take_sample(sk, meas, rs);
	step(sk, meas);
	check_subflow_app_limited(sk);
}

/*
 * During a stream, what leaves now and when the next segment is due: the
 * segments the stream's schedule says are due, as one skb, and a rate
 * that brings the stack's next departure back onto the schedule
 * (core/imtcp_pace.c). Before the next segment is due its departure
 * time is held back to it (the stack's may be earlier: it gives back
 * credit after a late send), so the stack's pacing check waits. Returns
 * the segments to send as one skb.
 */
static u32 pace_stream(struct sock *sk, struct imtcp_meas *meas)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u64 now = tp->tcp_clock_cache;
	struct imtcp_pace p;

	imtcp_pace_next(&meas->st[meas->cu.stream], meas->cfg.n, stream_sent(sk, meas),
			now - meas->stream_t0_ns,
			now > tp->tcp_wstamp_ns ? now - tp->tcp_wstamp_ns : 0,
			held_segs(sk), &p);
	if (p.wait_ns)
		hold_until(sk, meas, now + p.wait_ns);
	shape(sk, meas, p.segs);
	imtcp_set_pacing_Bps(sk, p.pacing_Bps);
	return meas->gso_segs;
}

/*
 * Whether a write just queued a whole stream while the connection was
 * not holding (an application-limited sender between writes): enough
 * unsent data (a cheap first look) and enough of it allowed to leave.
 */
static bool stream_ready(const struct sock *sk, const struct imtcp_meas *meas)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tp->write_seq - tp->snd_nxt >= (u32)meas->cu.m * tp->mss_cache &&
	       held_segs(sk) >= meas->cu.m;
}

/*
 * Before each tcp_write_xmit (the .min_tso_segs callback): end a hold
 * whose time is up, or a stream the write found dry; in EMPTY (then or
 * before), a write that brings a whole stream starts it (STORE, then
 * SEND at once, nothing held) instead of leaving unpaced until the next
 * ACK, and the first write of a frame that a hold gathers from small
 * writes begins that hold (frame_opens); during a stream size and pace
 * what leaves next. Returns the smallest TSO size to use, 0 outside a
 * stream.
 */
u32 imtcp_meas_on_send(struct sock *sk, struct imtcp_meas *meas)
{
	if (meas->cu.state == IMTCP_STATE_STORE || meas->cu.state == IMTCP_STATE_SEND)
		step(sk, meas);
	if (meas->cu.state == IMTCP_STATE_EMPTY &&
	    (stream_ready(sk, meas) || frame_opens(sk, meas))) {
		step(sk, meas);
		if (meas->cu.state == IMTCP_STATE_STORE)
			step(sk, meas);
	}
	if (meas->cu.state != IMTCP_STATE_SEND)
		return 0;
	return pace_stream(sk, meas);
}

/*
 * Loss recovery, CWR or RTO: stop measuring at once (before the stack
 * retransmits), and give everything back; a measurement whose streams
 * had all left (and that did not begin in slow start) is analysed on the
 * samples that came before (imtcp_cu_pause).
 */
void imtcp_meas_pause(struct sock *sk, struct imtcp_meas *meas)
{
	u32 from = meas->cu.state, flags;

	if (from == IMTCP_STATE_OFF)
		return;
	flags = imtcp_cu_pause(&meas->cu);
	if (flags & IMTCP_CU_MEASURED)
		finish_measurement(sk, meas);
	enter_state(sk, meas, from);
}

/* Whether the measurement sets sk_pacing_rate now (else Reno's rate). */
bool imtcp_meas_owns_pacing(const struct imtcp_meas *meas)
{
	return meas->cu.state == IMTCP_STATE_SEND;
}

/* Who the socket is, for the registry's readers. */
static void set_identity(struct sock *sk, struct imtcp_meas *meas)
{
	const struct inet_sock *inet = inet_sk(sk);

	meas->entry.net = sock_net(sk);
	meas->entry.family = sk->sk_family;
	meas->entry.mptcp = sk_is_mptcp(sk);
	meas->entry.sport = inet->inet_sport;
	meas->entry.dport = inet->inet_dport;
#if IS_ENABLED(CONFIG_IPV6)
	if (sk->sk_family == AF_INET6) {
		meas->entry.saddr.v6 = sk->sk_v6_rcv_saddr;
		meas->entry.daddr.v6 = sk->sk_v6_daddr;
		return;
	}
#endif
	meas->entry.saddr.v4 = inet->inet_saddr;
	meas->entry.daddr.v4 = inet->inet_daddr;
}

struct imtcp_meas *imtcp_meas_alloc(struct sock *sk, struct imtcp_info *info)
{
	struct imtcp_params params;
	struct imtcp_meas *meas;
	u32 cookie[2];

	if (!imtcp_params_measure())
		return NULL;
	meas = imtcp_params_fail_alloc() ? NULL :
	    kmem_cache_zalloc(meas_cache, GFP_NOWAIT | __GFP_NOWARN);
	if (!meas) {
		imtcp_count_alloc_failed(sock_net(sk));
		return NULL;
	}
	imtcp_params_read(&params);
	meas->cfg = params.est;
	imtcp_cu_init(&meas->cu, meas->cfg.n);
	imtcp_cu_set_budget(&meas->cu, params.hold_budget);
	imtcp_cu_set_free_starts(&meas->cu, params.free_starts);
	imtcp_cu_set_off_debt(&meas->cu, params.off_debt_rtts);
	imtcp_cu_set_prepay(&meas->cu, params.prepay);
	imtcp_cu_set_charge_gap(&meas->cu, params.charge_gap);
	imtcp_cu_set_off_ahead(&meas->cu, params.off_ahead);
	imtcp_cu_set_echo(&meas->cu, params.hold_echo);
	imtcp_cu_set_frame_hold(&meas->cu, params.frame_hold);
	meas->carry = params.carry;
	meas->outrun = params.outrun;
	meas->est.served.across = params.served_across;
	meas->est.up_wide = params.up_wide;
	meas->est.cap_range = params.cap_range;
	imtcp_busy_init(&meas->busy, tcp_clock_us(), params.busy_margin);
	imtcp_busy_set_window(&meas->busy, params.busy_window_rtts);
	imtcp_busy_set_floor(&meas->busy, params.busy_floor_pct);
	imtcp_busy_set_own(&meas->busy, params.own_floor);
	sock_diag_save_cookie(sk, cookie);
	meas->entry.cookie = (u64)cookie[1] << 32 | cookie[0];
	set_identity(sk, meas);
	meas->entry.pub.m = meas->cu.m;
	meas->info = info;
	meas->entry.pub.envelope_bps =
		imtcp_envelope_bps(&meas->cfg, tcp_sk(sk)->mss_cache);
	WRITE_ONCE(info->m, meas->cu.m);
	WRITE_ONCE(info->measuring, 1);
	imtcp_registry_add(&meas->entry);
	return meas;
}

/* Netlink readers may still walk to @meas: free it after a grace period. */
static void meas_free_rcu(struct rcu_head *head)
{
	kmem_cache_free(meas_cache, container_of(head, struct imtcp_meas, rcu));
}

void imtcp_meas_free(struct sock *sk, struct imtcp_meas *meas)
{
	if (!meas)
		return;
	unshape(sk, meas);
	if (meas->cu.state == IMTCP_STATE_STORE || meas->cu.state == IMTCP_STATE_SEND) {
		end_hold(sk, meas);
		pacing_off(sk);
	}
	imtcp_registry_del(&meas->entry);
	call_rcu(&meas->rcu, meas_free_rcu);
}

/*
 * The cache of measurement states. SLAB_ACCOUNT charges each to the
 * memory cgroup of the task that opens the connection (connect, accept's
 * caller for a socket set up in process context, setsockopt).
 */
int imtcp_meas_init(void)
{
	meas_cache = kmem_cache_create("imtcp_meas", sizeof(struct imtcp_meas),
				       0, SLAB_ACCOUNT, NULL);
	return meas_cache ? 0 : -ENOMEM;
}

/* After the last socket's release: wait for its RCU readers, then free. */
void imtcp_meas_exit(void)
{
	rcu_barrier();
	kmem_cache_destroy(meas_cache);
}
