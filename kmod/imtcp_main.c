// SPDX-License-Identifier: GPL-2.0
/*
 * imtcp: TCP Reno with inline available-bandwidth measurement (ImTCP).
 *
 * ImTCP (Man, Hasegawa, Murata) measures the available bandwidth A of a
 * path -- the tight link's capacity minus the cross traffic on it -- from
 * a TCP connection's own data segments: a control unit between TCP and IP
 * briefly holds segments (STORE), releases N of them as a paced measurement
 * stream (SEND), lets everything else go (PASS, EMPTY), and infers A from
 * the spacing of the ACKs that come back. No probe traffic is added and the
 * congestion window stays Reno's.
 *
 * The model in Linux terms:
 *
 *   Reno.  The window is TCP Reno's: slow start and additive increase
 *   (tcp_reno_cong_avoid), ssthresh = cwnd / 2 on loss, undo as Reno does.
 *   imtcp uses .cong_control because the measurement has to own the pacing
 *   rate, and with .cong_control the stack skips three things it would
 *   otherwise do for Reno. imtcp does them itself, with the same arithmetic
 *   (kmod/core/imtcp_reno.c):
 *     - PRR (RFC 6937) while in CWR or Recovery, and cwnd = ssthresh when a
 *       reduction completes without undo (the stack's
 *       tcp_end_cwnd_reduction returns early for .cong_control);
 *     - RFC 2861 window decay after an RTO's worth of application-limited
 *       sending (checked per ACK instead of per send);
 *     - the pacing rate: the kernel's own value for Reno, sysctl
 *       tcp_pacing_ss_ratio / tcp_pacing_ca_ratio percent of cwnd * mss /
 *       srtt. Like the kernel's Reno, imtcp does not pace by itself: the
 *       rate sizes TSO bursts and is what sch_fq would pace at. Internal
 *       pacing is switched on only while the measurement holds segments
 *       or sends a stream (see below): paced at this rate all the time, a
 *       connection at 1 % loss lost 5-15 % of goodput against the
 *       kernel's unpaced Reno.
 *   Everything else (RTO and F-RTO, RACK, idle restart, SACK scoreboard,
 *   ECN) is the stack's and needs nothing from a congestion control.
 *
 *   Measurement (imtcp_meas.c, decisions in core/).  The control unit's
 *   states become: STORE = the next departure time (tcp_wstamp_ns) moved
 *   ahead by at most T, so window credit gathers unused; SEND = the hold
 *   ends and N segments leave one MSS each, paced at rates that rise
 *   linearly, the rate set before each segment from .min_tso_segs (called
 *   once per tcp_write_xmit, which under pacing sends one skb), on a
 *   schedule of their own: segments overdue after a late pacing timer
 *   leave together in one skb (core/imtcp_pace.c); EMPTY =
 *   what was held leaves unpaced; PASS = unpaced Reno until the streams'
 *   ACKs are in. cwnd is never touched by the measurement. Each ACK gives
 *   one sample: the newest segment it delivered (rate sample last_end_seq),
 *   its real departure time (tp->first_tx_mstamp) and the ACK's arrival.
 *   k streams cover the search range; a joint fit of a queue model to all
 *   their delays gives A (core/imtcp_fit.c). Measurement is off in CWR,
 *   Recovery and Loss, before the first 10 segments (no pacing yet), and
 *   under sch_fq (which owns pacing); it never holds with nothing in
 *   flight or a window of N or less (4 N in a slow start that the window
 *   limits: holds there delay the window's doubling; not for a sender
 *   that paces its own writes once the window exceeds its write).
 *
 * Per-socket state: Reno's, and the figures TCP_CC_INFO reports, in the
 * private area of inet_connection_sock; the measurement's (2744 bytes)
 * allocated in init with GFP_NOWAIT from a memcg-accounted cache of its
 * own (imtcp_meas). If that fails, or with measure=N, the socket is
 * plain Reno (fail_alloc_every makes it fail on demand, for tests).
 *
 * Notable differences from the paper:
 *   o T is capped at one srtt and gathers at the lower of A and the
 *     window's rate (ACKs free held segments); a later stream's hold on
 *     a window that limits the sender also waits out the ACK gap that
 *     the hold before made, one srtt on, and that gap is free
 *     (hold_echo). A media sender whose frames come in small writes
 *     holds from a frame's first write on, and gathers the whole
 *     stream there, not m (frame_hold).
 *   o Holds are paid from a budget (hold_budget, 2 % of the time by
 *     default; core/imtcp_cu.c): measuring without pause cost a
 *     loss-limited Reno window a third of its goodput. On a window of
 *     4 m or more a hold and its stream are charged for the share of
 *     the window they keep out of flight (charge_gap), what a
 *     window-limited sender loses. A result off the estimate (with
 *     lift_off, off by default, also a figure the floor lifts off it)
 *     lets the next measurement borrow up to off_debt_rtts srtt of it.
 *   o A window-limited connection's measurement takes the last one's
 *     newest stream as its first (carry; core/imtcp_cu.c), so each
 *     result costs one hold, not two: up to twice the results from the
 *     same budget where it binds (A thin).
 *   o No hold on a window of N or less, nor below 4 N in a slow start
 *     that the window limits (unless the application paces its writes
 *     and the window exceeds the write at hand).
 *   o An application-limited sender's streams are as long as its writes
 *     (5-16 segments), not N.
 *   o A is a least-squares fit of a queue model over all streams' delays,
 *     not the first rising segment (core/imtcp_fit.c says why).
 *   o A result is held at 9/8 of the rate the bottleneck served its
 *     rising streams at (at least A, at most C; core/imtcp_served.c): a
 *     shaper's bucket lets a stream's fast end through unqueued; and at
 *     the median of the served rates of the connection's last 16 rising
 *     streams (one measurement's are too noisy to bound A near C),
 *     forgotten when A rises: two rising streams in a row served
 *     faster, over consecutive measurements (served_across), or every
 *     stream flat up to above their median (outrun).
 *   o The first result is provisional (dropped at the lower edge of its
 *     range, else replaced by the next, and withdrawn once the writes
 *     are known too short for a stream); the estimate is the median of
 *     the latest results, smoothed by an EWMA (gain_shift), and falls
 *     to where two results agree on a fall of A (fast_fall; the paper
 *     has no rule for steps); results more than stale_rtts minimum RTTs
 *     before the latest are forgotten, and the served rates remembered
 *     with them.
 *   o A result, and the estimate after it, is held between 97 % of what
 *     the connection was delivered at while the bottleneck's queue stood
 *     (then its rate is A itself; core/imtcp_busy.c; busy_floor_pct),
 *     or (own_floor, on by default) whenever its window limited it,
 *     and the highest such busy rate of the last 2-4 srtt
 *     (busy_window_rtts; busy_margin percent more, if set); between
 *     results the figure shown is held within the same bounds.
 *   o A receiver that ACKs every second segment leaves half the samples.
 *   o The path's capacity is estimated alongside A, from the service
 *     time each fit finds (the median of the latest eight measurements';
 *     core/imtcp_cap.c); the paper estimates A only.
 *
 * References:
 *   Cao Le Thanh Man, Go Hasegawa, Masayuki Murata, "ImTCP: TCP with an
 *   inline measurement mechanism for available bandwidth", Computer
 *   Communications 29(10), 2006.
 *   RFC 5681 (Reno), RFC 6937 (PRR), RFC 2861 (cwnd validation).
 */
#include <linux/module.h>
#include <linux/inet_diag.h>
#include <net/tcp.h>

#include "core/imtcp_reno.h"
#include "imtcp_meas.h"
#include "imtcp_nl.h"
#include "imtcp_pacing.h"
#include "uapi/imtcp.h"

/* Per-socket state, kept in icsk_ca_priv. */
struct imtcp {
	u64 ack_mstamp_us;		/* tcp_mstamp of the ACK being processed */
	struct imtcp_meas *meas;/* measurement state; NULL: plain Reno */
	u32 prior_snd_una;	/* snd_una when cong_control last ran */
	struct imtcp_info info;	/* for get_info, which takes no lock */
};

static struct imtcp *imtcp_ca(const struct sock *sk)
{
	return inet_csk_ca(sk);
}

/* One PRR step while in CWR or Recovery. */
static void imtcp_reduce_cwnd(struct sock *sk, u32 acked_sacked, int losses,
			      bool una_advanced)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct imtcp_prr prr = {
		.ssthresh = tp->snd_ssthresh,
		.prior_cwnd = tp->prior_cwnd,
		.in_flight = tcp_packets_in_flight(tp),
		.prr_delivered = tp->prr_delivered,
		.prr_out = tp->prr_out,
	};
	u32 cwnd;

	cwnd = imtcp_prr_cwnd(&prr, acked_sacked, losses > 0, una_advanced);
	if (!cwnd)
		return;
	tp->prr_delivered = prr.prr_delivered;
	tcp_snd_cwnd_set(tp, cwnd);
}

/*
 * Whether this ACK may raise cwnd: in-order progress (snd_una moved), or,
 * with heavy reordering, any newly delivered data (as tcp_may_raise_cwnd).
 */
static bool imtcp_may_raise_cwnd(const struct sock *sk, u32 acked_sacked,
				 bool una_advanced)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	if (tp->reordering > READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_reordering))
		return acked_sacked > 0;
	return una_advanced;
}

/* The initial window: the route's initcwnd metric, else the default. */
static u32 imtcp_init_cwnd(struct sock *sk)
{
	const struct dst_entry *dst = __sk_dst_get(sk);
	u32 cwnd = dst ? dst_metric(dst, RTAX_INITCWND) : 0;

	if (!cwnd)
		cwnd = TCP_INIT_CWND;
	return min(cwnd, tcp_sk(sk)->snd_cwnd_clamp);
}

/* RFC 2861: decay a window that an application-limited sender left unused. */
static void imtcp_check_app_limited(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u32 win_used;

	if (tcp_is_cwnd_limited(sk) ||
	    !READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_slow_start_after_idle) ||
	    (s32)(tcp_jiffies32 - tp->snd_cwnd_stamp) <
	    (s32)inet_csk(sk)->icsk_rto)
		return;

	if (inet_csk(sk)->icsk_ca_state == TCP_CA_Open && sk->sk_socket &&
	    !imtcp_writer_waits(sk)) {
		win_used = max(tp->snd_cwnd_used, imtcp_init_cwnd(sk));
		if (win_used < tcp_snd_cwnd(tp)) {
			tp->snd_ssthresh = tcp_current_ssthresh(sk);
			tcp_snd_cwnd_set(tp, imtcp_app_limited_cwnd(tcp_snd_cwnd(tp),
								    win_used));
		}
		tp->snd_cwnd_used = 0;
	}
	tp->snd_cwnd_stamp = tcp_jiffies32;
}

/* Reno's window update on an ACK, as tcp_cong_control does it. */
static void imtcp_reno_update(struct sock *sk, const struct rate_sample *rs)
{
	struct tcp_sock *tp = tcp_sk(sk);
	struct imtcp *ca = imtcp_ca(sk);
	bool una_advanced = after(tp->snd_una, ca->prior_snd_una);

	ca->prior_snd_una = tp->snd_una;
	if (tcp_in_cwnd_reduction(sk)) {
		imtcp_reduce_cwnd(sk, rs->acked_sacked, rs->losses,
				  una_advanced);
	} else if (imtcp_may_raise_cwnd(sk, rs->acked_sacked, una_advanced)) {
		tcp_reno_cong_avoid(sk, 0, rs->acked_sacked);
		tp->snd_cwnd_stamp = tcp_jiffies32;
	}
	imtcp_check_app_limited(sk);
}

static void imtcp_cong_control(struct sock *sk, const struct rate_sample *rs)
{
	struct imtcp_meas *meas = imtcp_ca(sk)->meas;

	imtcp_reno_update(sk, rs);
	if (!meas || !imtcp_meas_owns_pacing(meas))
		imtcp_set_reno_pacing(sk);
	if (meas)
		imtcp_meas_on_ack(sk, meas, rs);
}

/* Called by tcp_write_xmit before it sends; see imtcp_meas.c. */
static u32 imtcp_min_tso_segs(struct sock *sk)
{
	struct imtcp_meas *meas = imtcp_ca(sk)->meas;
	u32 segs = meas ? imtcp_meas_on_send(sk, meas) : 0;

	if (segs)
		return segs;
	return READ_ONCE(sock_net(sk)->ipv4.sysctl_tcp_min_tso_segs);
}

static void imtcp_in_ack_event(struct sock *sk, u32 flags)
{
	imtcp_ca(sk)->ack_mstamp_us = tcp_sk(sk)->tcp_mstamp;
}

/*
 * The stack ends a window reduction with cwnd = ssthresh, but not for a
 * .cong_control module; do it on the way out of CWR or Recovery, under the
 * stack's condition (CWR, or a Recovery that was not undone).
 */
static void imtcp_end_reduction(struct sock *sk)
{
	struct tcp_sock *tp = tcp_sk(sk);
	u8 old_state = inet_csk(sk)->icsk_ca_state;

	if (tp->snd_ssthresh >= TCP_INFINITE_SSTHRESH)
		return;
	if (old_state == TCP_CA_CWR ||
	    (old_state == TCP_CA_Recovery && tp->undo_marker)) {
		tcp_snd_cwnd_set(tp, tp->snd_ssthresh);
		tp->snd_cwnd_stamp = tcp_jiffies32;
	}
}

static void imtcp_set_state(struct sock *sk, u8 new_state)
{
	struct imtcp *ca = imtcp_ca(sk);

	if (new_state >= TCP_CA_CWR && ca->meas)
		imtcp_meas_pause(sk, ca->meas);

	if (new_state <= TCP_CA_Disorder && tcp_in_cwnd_reduction(sk))
		imtcp_end_reduction(sk);

	/*
	 * Recovery entered from the RACK reordering timer, outside any ACK:
	 * the stack takes a first PRR step there for other congestion
	 * controls (tcp_rack_reo_timeout), so that the retransmissions that
	 * follow at once are paced by PRR. The timer is told from an ACK by
	 * the ACK's timestamp, which in_ack_event recorded.
	 */
	if (new_state == TCP_CA_Recovery &&
	    inet_csk(sk)->icsk_pending == ICSK_TIME_REO_TIMEOUT &&
	    ca->ack_mstamp_us != tcp_sk(sk)->tcp_mstamp)
		imtcp_reduce_cwnd(sk, 1, 1, false);
}

static void imtcp_init(struct sock *sk)
{
	struct imtcp *ca = imtcp_ca(sk);

	ca->prior_snd_una = tcp_sk(sk)->snd_una;
	ca->ack_mstamp_us = 0;
	imtcp_set_reno_pacing(sk);
	ca->meas = imtcp_meas_alloc(sk, &ca->info);
}

static void imtcp_release(struct sock *sk)
{
	struct imtcp *ca = imtcp_ca(sk);
	struct imtcp_meas *meas = ca->meas;

	ca->meas = NULL;
	WRITE_ONCE(ca->info.measuring, 0);
	imtcp_meas_free(sk, meas);
}

/*
 * getsockopt(TCP_CC_INFO): struct imtcp_cc_info (uapi/imtcp.h). Nothing
 * for inet_diag (ss): union tcp_cc_info has no imtcp layout, and ss would
 * print ours under another congestion control's name. inet_diag asks
 * with the bits it wants, getsockopt with all of them. Runs without the
 * socket lock, so it reads only the figures kept in the private area
 * (struct imtcp_info), never a pointer.
 */
static size_t imtcp_get_info(struct sock *sk, u32 ext, int *attr,
			     union tcp_cc_info *info)
{
	struct imtcp_cc_info *ci = (struct imtcp_cc_info *)info;
	const struct imtcp_info *f = &imtcp_ca(sk)->info;
	u64 est_bps;

	BUILD_BUG_ON(sizeof(*ci) > sizeof(*info));
	if (ext != ~0U || !READ_ONCE(f->measuring))
		return 0;
	memset(ci, 0, sizeof(*ci));
	est_bps = READ_ONCE(f->estimate_bps);
	ci->version = IMTCP_CC_INFO_VERSION;
	ci->estimate_lo = lower_32_bits(est_bps);
	ci->estimate_hi = upper_32_bits(est_bps);
	if (est_bps)
		ci->age_ms = jiffies_to_msecs(jiffies -
					      READ_ONCE(f->est_jiffies));
	ci->measurements = min_t(u32, READ_ONCE(f->measurements), U16_MAX);
	ci->state = READ_ONCE(f->state);
	ci->m = READ_ONCE(f->m);
	*attr = INET_DIAG_NONE;
	return sizeof(*ci);
}

static struct tcp_congestion_ops imtcp_ops __read_mostly = {
	.flags		= TCP_CONG_NON_RESTRICTED,
	.name		= "imtcp",
	.owner		= THIS_MODULE,
	.init		= imtcp_init,
	.release	= imtcp_release,
	.cong_control	= imtcp_cong_control,
	.min_tso_segs	= imtcp_min_tso_segs,
	.ssthresh	= tcp_reno_ssthresh,
	.undo_cwnd	= tcp_reno_undo_cwnd,
	.set_state	= imtcp_set_state,
	.get_info	= imtcp_get_info,
	.in_ack_event	= imtcp_in_ack_event,
};

static int __init imtcp_register(void)
{
	int err;

	BUILD_BUG_ON(sizeof(struct imtcp) > ICSK_CA_PRIV_SIZE);
	BUILD_BUG_ON((int)IMTCP_BOUND_NONE != (int)IMTCP_HELD_NONE ||
		     (int)IMTCP_BOUND_CAP != (int)IMTCP_HELD_CAP ||
		     (int)IMTCP_BOUND_FLOOR != (int)IMTCP_HELD_FLOOR);
	/* imtcp_median_bps takes the longest of these whole */
	BUILD_BUG_ON(max(IMTCP_SERVED_HIST, IMTCP_CAP_HIST) > IMTCP_MEDIAN_MAX);
	err = imtcp_registry_init();
	if (err)
		return err;
	err = imtcp_meas_init();
	if (err)
		goto out_registry;
	err = imtcp_nl_init();
	if (err)
		goto out_meas;
	err = tcp_register_congestion_control(&imtcp_ops);
	if (err)
		goto out_nl;
	return 0;
out_nl:
	imtcp_nl_exit();
out_meas:
	imtcp_meas_exit();
out_registry:
	imtcp_registry_exit();
	return err;
}

static void __exit imtcp_unregister(void)
{
	tcp_unregister_congestion_control(&imtcp_ops);
	imtcp_nl_exit();
	imtcp_meas_exit();
	imtcp_registry_exit();
}

module_init(imtcp_register);
module_exit(imtcp_unregister);

MODULE_AUTHOR("The imtcp developers");
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("TCP Reno with ImTCP inline available-bandwidth measurement");
MODULE_ALIAS("tcp_imtcp");
