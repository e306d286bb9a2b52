// SPDX-License-Identifier: GPL-2.0
/*
 * Reno arithmetic for a .cong_control module.
 *
 * The kernel runs PRR, RFC 2861 cwnd validation and the default pacing
 * rate only for congestion controls without .cong_control. imtcp needs
 * .cong_control (it owns the pacing rate for its probe streams), so it
 * performs the same steps itself; the arithmetic lives here so that the
 * unit tests can check it against hand-computed cases.
 */
#include "imtcp_reno.h"

/*
 * One PRR step on an ACK that delivered @newly_acked_sacked packets.
 * Updates prr->prr_delivered and returns the new cwnd (in_flight + sndcnt,
 * at least 1), or 0 when nothing was delivered and cwnd must stay as it is.
 *
 * Above ssthresh the sending rate is reduced in proportion to deliveries;
 * at or below it, packet conservation, with one extra packet per ACK that
 * advanced snd_una without new loss (slow-start back towards ssthresh).
 * The first step always allows one packet: the fast retransmit.
 */
u32 imtcp_prr_cwnd(struct imtcp_prr *prr, u32 newly_acked_sacked,
		   u32 newly_lost, bool una_advanced)
{
	s64 delta = (s64)prr->ssthresh - prr->in_flight;
	s64 sndcnt;

	if (!newly_acked_sacked || !prr->prior_cwnd)
		return 0;

	prr->prr_delivered += newly_acked_sacked;
	if (delta < 0) {
		u64 dividend = (u64)prr->ssthresh * prr->prr_delivered +
			       prr->prior_cwnd - 1;

		sndcnt = (s64)div_u64(dividend, prr->prior_cwnd) -
			 prr->prr_out;
	} else {
		sndcnt = (s64)prr->prr_delivered - prr->prr_out;
		if (sndcnt < newly_acked_sacked)
			sndcnt = newly_acked_sacked;
		if (una_advanced && !newly_lost)
			sndcnt++;
		if (sndcnt > delta)
			sndcnt = delta;
	}
	if (!prr->prr_out && sndcnt < 1)
		sndcnt = 1;
	/* As in the kernel, a negative count may leave cwnd below in_flight. */
	sndcnt += prr->in_flight;
	return sndcnt < 1 ? 1 : (u32)sndcnt;
}

/*
 * RFC 2861 for a sender that was not cwnd-limited for an RTO: the window
 * decays to the mean of itself and what was really used. Returns the new
 * cwnd (unchanged when all of it was used).
 */
u32 imtcp_app_limited_cwnd(u32 cwnd, u32 win_used)
{
	if (win_used >= cwnd)
		return cwnd;
	return (cwnd + win_used) >> 1;
}

/*
 * The pacing rate the kernel gives a Reno flow, in bytes per second:
 * ratio_pct percent of max(cwnd, packets_out) * mss / srtt, srtt in the
 * kernel's 1/8 us units. Zero srtt (no sample yet) leaves the product
 * undivided, as the kernel does.
 */
u64 imtcp_reno_pacing_Bps(u32 mss, u32 cwnd, u32 packets_out,
			  u32 srtt_us8, u32 ratio_pct)
{
	u64 rate_Bps = (u64)mss * ((1000000 / 100) << 3);

	rate_Bps *= ratio_pct;
	rate_Bps *= cwnd > packets_out ? cwnd : packets_out;
	if (srtt_us8)
		rate_Bps = div_u64(rate_Bps, srtt_us8);
	return rate_Bps;
}
