// SPDX-License-Identifier: GPL-2.0
/*
 * sk_pacing_rate, which the kernel reads in bytes per second: measurement
 * rates are converted to it once, by imtcp_pacing_Bps (core/imtcp_types.h),
 * and written here, capped by the socket's SO_MAX_PACING_RATE.
 */
#include <net/tcp.h>

#include "imtcp_pacing.h"
#include "core/imtcp_reno.h"

void imtcp_set_pacing_Bps(struct sock *sk, u64 pacing_Bps)
{
	/* sch_fq reads sk_pacing_rate without the socket lock. */
	WRITE_ONCE(sk->sk_pacing_rate,
		   min_t(u64, pacing_Bps, READ_ONCE(sk->sk_max_pacing_rate)));
}

/* Set sk_pacing_rate as the kernel does for a Reno flow. */
void imtcp_set_reno_pacing(struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	const struct net *net = sock_net(sk);
	u32 ratio;

	if (tcp_snd_cwnd(tp) < tp->snd_ssthresh / 2)
		ratio = READ_ONCE(net->ipv4.sysctl_tcp_pacing_ss_ratio);
	else
		ratio = READ_ONCE(net->ipv4.sysctl_tcp_pacing_ca_ratio);

	imtcp_set_pacing_Bps(sk, imtcp_reno_pacing_Bps(tp->mss_cache,
						       tcp_snd_cwnd(tp),
						       tp->packets_out,
						       tp->srtt_us, ratio));
}
